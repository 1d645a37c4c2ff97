//! PCX writing (`pcx_encode`) and Quake II quantisation (`quantise_quake2`): every image
//! written reads back through the Quake II-exact reader with the same indices and
//! palette, and the quantiser's choices are the redmean-nearest ones.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, clippy::pedantic, missing_docs)]

use idmodel_assets::images::{
    Indexed, QUAKE2_TRANSPARENT, palette_file, pcx, pcx_encode, quantise_quake2,
};
use idmodel_scene::back::redmean;

/// A made-up palette (not Quake II's: the project ships no id palette): a colour ramp.
fn palette() -> [[u8; 3]; 256] {
    core::array::from_fn(|i| {
        let i = i as u8;
        [i, i.wrapping_mul(7), 255 - i]
    })
}

#[test]
fn every_written_pcx_reads_back_exactly() {
    let pal = palette();
    // Sizes with odd widths, runs longer than 63, bytes with the top two bits set, runs
    // ending at a row end.
    for (w, h) in [(1, 1), (2, 1), (3, 5), (64, 2), (130, 3), (257, 1)] {
        for pattern in 0..4u32 {
            let indices: Vec<u8> = (0..w * h)
                .map(|i: u32| match pattern {
                    0 => 0xC5,
                    1 => (i % 256) as u8,
                    2 => (i / 70 % 2) as u8 * 0xFF,
                    _ => (i.wrapping_mul(2_654_435_761) >> 24) as u8,
                })
                .collect();
            let img = Indexed {
                width: w,
                height: h,
                indices: indices.clone(),
                palette: None,
            };
            let bytes = pcx_encode(&img, &pal).unwrap();
            let (back, warnings) = pcx(&bytes).unwrap();
            assert_eq!((back.width, back.height), (w, h));
            assert_eq!(back.indices, indices, "{w}x{h} pattern {pattern}");
            assert_eq!(*back.palette.unwrap(), pal);
            assert!(warnings.is_empty(), "{warnings:?}");
            // The 0x0C marker precedes the palette.
            assert_eq!(bytes[bytes.len() - 769], 0x0C);
            // A run of one value compresses (two bytes per run of up to 63).
            if pattern == 0 && w >= 64 {
                assert!(bytes.len() < 128 + 769 + (w * h) as usize, "{w}x{h}");
            }
        }
    }
}

#[test]
fn bad_images_are_refused_naming_the_problem() {
    let pal = palette();
    let empty = Indexed {
        width: 0,
        height: 4,
        indices: vec![],
        palette: None,
    };
    assert!(pcx_encode(&empty, &pal).unwrap_err().contains("width 0"));
    let short = Indexed {
        width: 2,
        height: 2,
        indices: vec![1, 2, 3],
        palette: None,
    };
    assert!(pcx_encode(&short, &pal).unwrap_err().contains("3 indices"));
}

#[test]
fn quantising_picks_the_redmean_nearest_and_never_255_without_holes() {
    let pal = palette();
    let rgba: Vec<u8> = (0..600u32)
        .flat_map(|i| {
            let v = i.wrapping_mul(2_654_435_761).to_le_bytes();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    let opaque = quantise_quake2(&rgba, 600, 1, &pal, false);
    for (px, &i) in rgba.chunks(4).zip(&opaque.indices) {
        assert_ne!(i, QUAKE2_TRANSPARENT);
        let rgb = [px[0], px[1], px[2]];
        let best = (0..255)
            .map(|k| redmean(rgb, pal[k]))
            .fold(f32::INFINITY, f32::min);
        assert_eq!(redmean(rgb, pal[usize::from(i)]), best, "{rgb:?}");
    }
    let holes = quantise_quake2(&rgba, 600, 1, &pal, true);
    for (px, (&i, &o)) in rgba
        .chunks(4)
        .zip(holes.indices.iter().zip(&opaque.indices))
    {
        if px[3] < 128 {
            assert_eq!(i, QUAKE2_TRANSPARENT);
        } else {
            assert_eq!(i, o);
        }
    }
    // Exact colours keep their index.
    let exact: Vec<u8> = (0..255usize)
        .flat_map(|k| [pal[k][0], pal[k][1], pal[k][2], 255])
        .collect();
    let img = quantise_quake2(&exact, 255, 1, &pal, false);
    assert_eq!(img.indices, (0..255u8).collect::<Vec<_>>());
}

#[test]
fn palettes_come_from_lmp_bytes_or_a_pcx() {
    let pal = palette();
    let raw: Vec<u8> = pal.iter().flatten().copied().collect();
    assert_eq!(*palette_file(&raw).unwrap(), pal);
    let img = Indexed {
        width: 1,
        height: 1,
        indices: vec![3],
        palette: None,
    };
    let colormap = pcx_encode(&img, &pal).unwrap();
    assert_eq!(*palette_file(&colormap).unwrap(), pal);
    assert!(palette_file(b"nope").unwrap_err().contains("768-byte"));
}
