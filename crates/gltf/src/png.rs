//! PNG encoding of RGBA pixels, fast and small for the images idmodel writes.
//!
//! - An image of at most 256 distinct colours (every Quake skin: its texels are palette
//!   indices; Quake II PCX and WAL skins; most renders' backgrounds are not, so those take
//!   the next branch) is written **indexed** (`PLTE`, plus `tRNS` when a colour is not
//!   opaque): a quarter of the pixel bytes before compression.
//! - Any other image is written as RGB when every pixel is opaque, else RGBA.
//!
//! Both use the `png` crate's `Compression::Fast` (fdeflate) with its default adaptive
//! filter. Measured on one machine, one run (`/tmp` experiment noted in
//! `benches/compare/RESULTS.md`): against the `Balanced` RGBA the exporter wrote before,
//! a 256×256 Quake skin (168 colours) encodes 86× faster to a file of 51 % the size;
//! a 1024×1024 photographic RGBA texture 31× faster and 3 % smaller.
//! The decoded pixels are the same in every case (tests below decode and compare).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Slots of the colour table's open-addressing hash (a power of two, > 2 × 256).
const SLOTS: usize = 1024;

/// The palette (RGBA, first-seen order) and the index of each pixel, or `None` when the
/// image has more than 256 colours.
fn palettize(pixels: &[u8]) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    const MASK: usize = SLOTS - 1;
    let mut keys = [0u32; SLOTS];
    let mut vals = [0u16; SLOTS]; // palette index + 1; 0 = empty slot
    let mut palette: Vec<[u8; 4]> = Vec::new();
    // Sized once and written in place (no capacity check per pixel).
    let mut indices = alloc::vec![0u8; pixels.len() / 4];
    let mut last = (0u32, None::<u8>);
    for (px, out) in pixels.chunks_exact(4).zip(indices.iter_mut()) {
        let key = px.iter().rev().fold(0u32, |k, &b| (k << 8) | u32::from(b));
        // Runs of one colour (most of a skin's rows) cost one compare.
        if let (k, Some(i)) = last {
            if k == key {
                *out = i;
                continue;
            }
        }
        let mut slot = usize::try_from(key.wrapping_mul(0x9E37_79B1) >> 22).ok()? & MASK;
        let index = loop {
            let (k, v) = (
                keys.get(slot).copied().unwrap_or(0),
                vals.get(slot).copied().unwrap_or(0),
            );
            if v == 0 {
                let i = u8::try_from(palette.len()).ok()?; // a 257th colour: not indexed
                palette.push(key.to_le_bytes());
                *keys.get_mut(slot)? = key;
                *vals.get_mut(slot)? = u16::from(i).wrapping_add(1);
                break i;
            }
            if k == key {
                break u8::try_from(v.wrapping_sub(1)).ok()?;
            }
            slot = slot.wrapping_add(1) & MASK;
        };
        last = (key, Some(index));
        *out = index;
    }
    Some((palette, indices))
}

/// Encodes `width × height` RGBA pixels (rows top to bottom) as PNG.
pub(crate) fn encode(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let opaque = pixels
        .chunks_exact(4)
        .fold(true, |o, px| o & (px.get(3) == Some(&255)));
    let data: Vec<u8> = match palettize(pixels) {
        Some((palette, indices)) => {
            enc.set_color(png::ColorType::Indexed);
            enc.set_palette(
                palette
                    .iter()
                    .flat_map(|c| [c[0], c[1], c[2]])
                    .collect::<Vec<u8>>(),
            );
            if !opaque {
                // tRNS may stop after the last non-opaque entry.
                let alpha: Vec<u8> = palette.iter().map(|c| c[3]).collect();
                let keep = alpha
                    .iter()
                    .rposition(|&a| a != 255)
                    .map_or(0, |i| i.wrapping_add(1));
                enc.set_trns(alpha.get(..keep).unwrap_or(&[]).to_vec());
            }
            indices
        }
        None if opaque => {
            enc.set_color(png::ColorType::Rgb);
            pixels
                .chunks_exact(4)
                .flat_map(|px| px.iter().take(3).copied())
                .collect()
        }
        None => {
            enc.set_color(png::ColorType::Rgba);
            pixels.to_vec()
        }
    };
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&data).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions
)] // tests
mod tests {
    use super::*;

    /// Decodes `png` to RGBA8 (expanding palettes, tRNS and RGB).
    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut d = png::Decoder::new(std::io::Cursor::new(png_bytes));
        d.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut r = d.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn image(w: u32, h: u32, colour: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
        let mut v = Vec::new();
        for y in 0..h {
            for x in 0..w {
                v.extend_from_slice(&colour(x, y));
            }
        }
        v
    }

    #[test]
    fn every_kind_decodes_to_the_same_pixels() {
        let cases = [
            // ≤ 256 colours, opaque → indexed without tRNS
            image(37, 11, |x, y| [(x * 7) as u8, (y * 20) as u8, 9, 255]),
            // ≤ 256 colours with transparency → indexed + tRNS
            image(16, 16, |x, y| {
                [x as u8, y as u8, 0, if x == 3 { 0 } else { 255 }]
            }),
            // > 256 colours, opaque → RGB
            image(64, 64, |x, y| {
                [(x * 4) as u8, (y * 4) as u8, (x ^ y) as u8, 255]
            }),
            // > 256 colours with alpha → RGBA
            image(64, 64, |x, y| {
                [(x * 4) as u8, (y * 4) as u8, 7, (x + y) as u8]
            }),
            // exactly 256 colours, then 257
            image(256, 1, |x, _| [x as u8, 0, 0, 255]),
            image(257, 1, |x, _| [x as u8, (x / 256) as u8, 0, 255]),
        ];
        for (i, px) in cases.iter().enumerate() {
            let (w, h) = match i {
                0 => (37, 11),
                1 => (16, 16),
                2 | 3 => (64, 64),
                4 => (256, 1),
                _ => (257, 1),
            };
            let png_bytes = encode(w, h, px).unwrap();
            assert_eq!(decode(&png_bytes), (w, h, px.clone()), "case {i}");
        }
    }

    #[test]
    fn few_colours_are_indexed_and_many_are_not() {
        let few = image(32, 32, |x, _| [(x % 4) as u8 * 60, 0, 0, 255]);
        let many = image(32, 32, |x, y| [(x * 8) as u8, (y * 8) as u8, 1, 255]);
        assert!(palettize(&few).is_some_and(|(p, i)| p.len() == 4 && i.len() == 1024));
        assert!(palettize(&many).is_none());
        // colour type byte of IHDR: 3 indexed, 2 RGB
        assert_eq!(encode(32, 32, &few).unwrap()[25], 3);
        assert_eq!(encode(32, 32, &many).unwrap()[25], 2);
    }
}
