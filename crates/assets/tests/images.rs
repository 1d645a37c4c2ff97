//! Every image type the engines read, made by the tests (byte builders and the `image`
//! encoders), decoded with the engines' rules, and the hostile cases refused.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use common::{RGB, palette, rgba};
use idmodel_assets::images::{self, Kind, MAX_SIDE, TgaOrigin};
use idmodel_scene::{Image, Mime};

fn pal() -> [[u8; 3]; 256] {
    *images::palette_from(&palette()).unwrap()
}

#[test]
fn pcx_8bit_paletted_decodes_with_its_palette_and_the_colormap() {
    let f = common::pcx(2, 2, &[1, 2, 3, 4], &palette());
    let (img, warnings) = images::pcx(&f).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!((img.width, img.height), (2, 2));
    assert_eq!(img.indices, vec![1, 2, 3, 4]);
    let (rgba_img, holes) = img.to_rgba(img.palette.as_deref().unwrap());
    assert_eq!(rgba_img.pixels, rgba());
    assert!(!holes);
    // Through another palette (Quake II's colormap): the file's own is not used.
    let grey: [[u8; 3]; 256] = core::array::from_fn(|i| [i as u8; 3]);
    assert_eq!(img.to_rgba(&grey).0.pixels[..4], [1, 1, 1, 255]);
}

#[test]
fn pcx_runs_spill_across_rows_and_values_over_0xc0_need_a_run() {
    // 3×2: one run of 6 bytes of index 200 covers both rows (Quake II does not clip runs
    // at the row end).
    let mut f = common::pcx(3, 2, &[], &palette());
    f.truncate(128);
    f.extend([0xC6, 200, 0x0C]);
    f.extend(palette());
    let (img, _) = images::pcx(&f).unwrap();
    assert_eq!(img.indices, vec![200; 6]);
}

#[test]
fn pcx_index_255_is_transparent_with_a_neighbours_colour() {
    let f = common::pcx(2, 1, &[2, 255], &palette());
    let (img, _) = images::pcx(&f).unwrap();
    let (out, holes) = img.to_rgba(&pal());
    assert!(holes);
    assert_eq!(out.pixels, vec![0, 255, 0, 255, 0, 255, 0, 0]);
}

#[test]
fn pcx_refusals_and_warnings() {
    let good = common::pcx(2, 2, &[1, 2, 3, 4], &palette());
    let refused = |at: usize, v: u8, want: &str| {
        let mut f = good.clone();
        f[at] = v;
        let e = images::pcx(&f).unwrap_err();
        assert!(e.contains(want), "{e}");
    };
    refused(0, 0x0B, "manufacturer");
    refused(1, 3, "version 3");
    refused(2, 0, "encoding 0");
    refused(3, 4, "4 bits per pixel");
    refused(65, 3, "3 colour planes");
    // Truncated pixel data.
    let mut short = good[..128].to_vec();
    short.extend([1, 2]);
    assert!(images::pcx(&short).unwrap_err().contains("bytes"));
    let mut short = good[..130].to_vec();
    short.extend(vec![0; 768]);
    short[128..130].copy_from_slice(&[0xC1, 0xC1]);
    assert!(
        images::pcx(&short).is_ok(),
        "pixel data may run into the palette bytes"
    );
    // A header only.
    assert!(images::pcx(&good[..100]).is_err());
    // Too large: refused before allocating.
    let mut huge = good.clone();
    huge[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
    huge[10..12].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(images::pcx(&huge).unwrap_err().contains("outside"));
    // bytes_per_line not the width, bigger than Quake II reads: warnings.
    let mut odd = common::pcx(2, 2, &[1, 2, 3, 4], &palette());
    odd[66] = 4;
    let (_, w) = images::pcx(&odd).unwrap();
    assert!(w[0].contains("bytes_per_line 4"), "{w:?}");
    let big = common::pcx(641, 1, &vec![1; 641], &palette());
    let (_, w) = images::pcx(&big).unwrap();
    assert!(
        w.iter().any(|w| w.contains("larger than Quake II")),
        "{w:?}"
    );
}

#[test]
fn wal_mip_level_0_and_refusals() {
    let f = common::wal(2, 2, &[1, 2, 3, 4]);
    let img = images::wal(&f).unwrap();
    assert_eq!(img.indices, vec![1, 2, 3, 4]);
    assert_eq!(img.palette, None);
    assert_eq!(img.to_rgba(&pal()).0.pixels, rgba());
    // Mip data past the end, an offset past the end, sizes out of range, a short header.
    assert!(
        images::wal(&f[..103])
            .unwrap_err()
            .contains("passes the end")
    );
    let mut far = f.clone();
    far[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(images::wal(&far).is_err());
    let mut zero = f.clone();
    zero[32..36].copy_from_slice(&0u32.to_le_bytes());
    assert!(images::wal(&zero).unwrap_err().contains("outside"));
    let mut huge = f.clone();
    huge[32..36].copy_from_slice(&(MAX_SIDE + 1).to_le_bytes());
    assert!(images::wal(&huge).unwrap_err().contains("outside"));
    assert!(images::wal(&f[..99]).is_err());
}

/// The decoded test picture for TGA type `ty`: grey types hold the red channel.
fn expected(ty: u8, alpha: bool) -> Vec<u8> {
    RGB.iter()
        .enumerate()
        .flat_map(|(k, c)| {
            let a = if alpha && k == 1 { 128 } else { 255 };
            if matches!(ty, 3 | 11) {
                [c[0], c[0], c[0], 255]
            } else {
                [c[0], c[1], c[2], a]
            }
        })
        .collect()
}

#[test]
fn tga_every_type_both_origins() {
    for ty in [1u8, 2, 3, 9, 10, 11] {
        for alpha in [false, true] {
            if alpha && !matches!(ty, 2 | 10) {
                continue;
            }
            for top_down in [false, true] {
                let f = common::tga(ty, alpha, top_down);
                let what = format!("type {ty} alpha {alpha} top-down {top_down}");
                // Doom 3 (and image-rs) honour the origin bit: always upright.
                let (img, warnings) = images::tga(&f, TgaOrigin::Honoured).unwrap();
                assert_eq!((img.width, img.height), (2, 2), "{what}");
                assert_eq!(img.pixels, expected(ty, alpha), "{what}");
                let engine_warns = warnings.iter().any(|w| w.contains("engines read only"));
                assert_eq!(
                    engine_warns,
                    matches!(ty, 1 | 9 | 11),
                    "{what}: {warnings:?}"
                );
                // The Quake engines ignore it: a top-down file is upside down.
                let (q, qw) = images::tga(&f, TgaOrigin::Ignored).unwrap();
                if top_down {
                    let mut flipped = expected(ty, alpha)[8..].to_vec();
                    flipped.extend_from_slice(&expected(ty, alpha)[..8]);
                    assert_eq!(q.pixels, flipped, "{what}");
                    assert!(qw.iter().any(|w| w.contains("origin bit")), "{what}");
                } else {
                    assert_eq!(q.pixels, expected(ty, alpha), "{what}");
                }
            }
        }
    }
}

#[test]
fn tga_32_bit_alpha_is_the_fourth_byte_whatever_the_descriptor_says() {
    let (img, warnings) = images::tga(&common::tga_32_no_alpha_bits(), TgaOrigin::Ignored).unwrap();
    assert_eq!(img.pixels, vec![30, 20, 10, 7]);
    assert!(
        warnings.iter().any(|w| w.contains("0 alpha bits")),
        "{warnings:?}"
    );
}

#[test]
fn tga_refusals() {
    let good = common::tga(10, true, false);
    assert!(images::tga(&good[..17], TgaOrigin::Ignored).is_err());
    // RLE data cut short.
    assert!(images::tga(&good[..good.len() - 3], TgaOrigin::Ignored).is_err());
    // Sizes over the limit are refused before decoding.
    let mut huge = good.clone();
    huge[12..14].copy_from_slice(&u16::MAX.to_le_bytes());
    huge[14..16].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(
        images::tga(&huge, TgaOrigin::Ignored)
            .unwrap_err()
            .contains("outside")
    );
    let mut zero = good.clone();
    zero[12..14].copy_from_slice(&0u16.to_le_bytes());
    assert!(images::tga(&zero, TgaOrigin::Ignored).is_err());
    // An unknown type.
    let mut bad = good.clone();
    bad[2] = 7;
    assert!(images::tga(&bad, TgaOrigin::Ignored).is_err());
}

#[test]
fn png_and_jpeg_are_kept_and_decoded_for_render() {
    let png = common::png();
    assert_eq!(Kind::of("x.tga", &png), Some(Kind::Png));
    assert_eq!(images::png(&png).unwrap().pixels, rgba());
    assert_eq!(images::check_encoded(&png, Mime::Png).unwrap(), (2, 2));
    let jpg = common::jpeg([200, 40, 40]);
    assert_eq!(Kind::of("x", &jpg), Some(Kind::Jpeg));
    let d = images::jpeg(&jpg).unwrap();
    assert_eq!((d.width, d.height), (8, 8));
    let px = &d.pixels[..4];
    assert!(
        (px[0] as i32 - 200).abs() < 8 && (px[1] as i32 - 40).abs() < 8,
        "{px:?}"
    );
    let enc = Image::Encoded {
        mime: Mime::Jpeg,
        bytes: jpg.clone(),
    };
    assert!(matches!(
        images::decoded(&enc).unwrap(),
        Image::Rgba8 { width: 8, .. }
    ));
    // Truncated or foreign bytes are errors, never panics.
    assert!(images::png(&png[..20]).is_err());
    assert!(images::jpeg(&jpg[..20]).is_err());
    assert!(images::check_encoded(b"GIF89a", Mime::Png).is_err());
}

#[test]
fn decode_any_dispatches_by_kind() {
    let pcx = common::pcx(2, 2, &[1, 2, 3, 4], &palette());
    assert_eq!(
        images::decode_any("a.pcx", &pcx, None).unwrap().pixels,
        rgba()
    );
    let wal = common::wal(2, 2, &[1, 2, 3, 4]);
    assert_eq!(
        images::decode_any("a.wal", &wal, Some(&pal()))
            .unwrap()
            .pixels,
        rgba()
    );
    let tga = common::tga(2, false, false);
    assert_eq!(
        images::decode_any("a.tga", &tga, None).unwrap().pixels,
        rgba()
    );
    assert!(images::decode_any("a.txt", b"text", None).is_err());
}

/// A colour map in a true-colour or grey TGA (which its pixels do not index) is skipped:
/// the pixels decode as without it, with the engines' refusal as a warning. image-rs
/// alone reads such pixels at the map's entry size, and panicked on a fuzzer's file
/// (`fuzz/regressions/images/`) where that size was smaller than the pixel depth.
#[test]
fn tga_colour_map_in_an_unmapped_type_is_skipped() {
    for ty in [2u8, 3, 10, 11] {
        let plain = common::tga(ty, false, false);
        let mut mapped = plain[..18].to_vec();
        mapped[1] = 1; // colour map present
        mapped[5..7].copy_from_slice(&3u16.to_le_bytes()); // 3 entries
        mapped[7] = 16; // of 16 bits, not the pixel depth
        mapped.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
        mapped.extend_from_slice(&plain[18..]);
        let (want, _) = images::tga(&plain, TgaOrigin::Ignored).unwrap();
        let (got, warnings) = images::tga(&mapped, TgaOrigin::Ignored).unwrap();
        assert_eq!(got, want, "type {ty}");
        assert!(
            warnings.iter().any(|w| w.contains("colour map")),
            "{warnings:?}"
        );
        // A map that runs past the end of the file is refused, naming its bytes.
        let cut = &mapped[..20];
        let e = images::tga(cut, TgaOrigin::Ignored).unwrap_err();
        assert!(e.contains("colour map (bytes 18..24)"), "{e}");
    }
    // The fuzzer's file: an unknown type 32 with a 16-bit map over 24-bit pixels.
    let mut crash = vec![0u8, 1, 32, 0, 0, 0, 0, 16];
    crash.extend_from_slice(&[24; 23]);
    crash.extend_from_slice(&[16, 118, 255, 216, 188, 255, 219, 0, 254, 76, 0, 0, 35, 32]);
    let e = images::tga(&crash, TgaOrigin::Honoured).unwrap_err();
    assert!(e.contains("image type 32 (byte 2)"), "{e}");
}
