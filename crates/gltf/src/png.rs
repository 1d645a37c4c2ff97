//! PNG encoding of RGBA pixels, fast and small for the images idmodel writes.
//!
//! - An image of at most 256 distinct colours (every Quake skin: its texels are palette
//!   indices; Quake II PCX and WAL skins; most renders' backgrounds are not, so those take
//!   the next branch) is written **indexed** (`PLTE`, plus `tRNS` when a colour is not
//!   opaque): a quarter of the pixel bytes before compression.
//! - Any other image is written as RGB when every pixel is opaque, else RGBA.
//!
//! Both use the `png` crate's `Compression::Fast` (fdeflate). RGB and RGBA rows take its
//! default adaptive filter (the best of the five per row); indexed rows take Paeth alone
//! (see [`encode`] for the measurement). Measured on one machine, one run (`/tmp`
//! experiment noted in `benches/compare/RESULTS.md`): against the `Balanced` RGBA the exporter wrote before,
//! a 256×256 Quake skin (168 colours) encodes 86× faster to a file of 51 % the size;
//! a 1024×1024 photographic RGBA texture 31× faster and 3 % smaller.
//! The decoded pixels are the same in every case (tests below decode and compare).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The PNG chunks a glTF client may not honour, which the Khronos validator reports as
/// `IMAGE_FEATURES_UNSUPPORTED`: colour space (`cHRM`, `gAMA`, `iCCP`, `sRGB`, `cICP`,
/// `mDCv`, `cLLi`), pixel aspect (`pHYs`), significant bits (`sBIT`) and APNG animation
/// (`acTL`, `fcTL`, `fdAT`; the default image is the `IDAT` one).
const UNSUPPORTED_CHUNKS: [&[u8; 4]; 12] = [
    b"cHRM", b"gAMA", b"iCCP", b"sRGB", b"cICP", b"mDCv", b"cLLi", b"pHYs", b"sBIT", b"acTL",
    b"fcTL", b"fdAT",
];

/// A PNG file without the chunks glTF clients may not honour ([`UNSUPPORTED_CHUNKS`]):
/// every other chunk byte for byte, so the pixels decode the same. `None` when the file
/// has none of them (keep it as it is) or is not a well-formed chunk sequence (leave it to
/// the caller's check).
pub(crate) fn without_unsupported_chunks(png: &[u8]) -> Option<Vec<u8>> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    let mut rest = png.strip_prefix(SIGNATURE)?;
    let mut kept = SIGNATURE.to_vec();
    let mut dropped = false;
    while !rest.is_empty() {
        let len = usize::try_from(u32::from_be_bytes(rest.get(..4)?.try_into().ok()?)).ok()?;
        let whole = len.checked_add(12)?;
        let chunk = rest.get(..whole)?;
        let kind = chunk.get(4..8)?;
        if UNSUPPORTED_CHUNKS.iter().any(|c| c.as_slice() == kind) {
            dropped = true;
        } else {
            kept.extend_from_slice(chunk);
        }
        rest = rest.get(whole..)?;
    }
    dropped.then_some(kept)
}

/// Slots of the colour table's open-addressing hash (a power of two, > 2 × 256).
const SLOTS: usize = 1024;

/// The four bytes of one RGBA pixel as one integer (0 for a short slice, which
/// `chunks_exact(4)` never gives).
fn rgba_key(px: &[u8]) -> u32 {
    <[u8; 4]>::try_from(px).map_or(0, u32::from_le_bytes)
}

/// The palette (RGBA, first-seen order) and the index of each pixel, or `None` when the
/// image has more than 256 colours.
fn palettize(pixels: &[u8]) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    const MASK: usize = SLOTS - 1;
    let mut keys = [0u32; SLOTS];
    let mut vals = [0u16; SLOTS]; // palette index + 1; 0 = empty slot
    let mut palette: Vec<[u8; 4]> = Vec::new();
    let texels = pixels.chunks_exact(4);
    // Sized once and written in place (no capacity check per pixel).
    let mut indices = alloc::vec![0u8; pixels.len() / 4];
    // The previous pixel's colour and index: runs of one colour (most of a skin's rows)
    // cost one compare. Starts as a key unlike the first pixel's, so it is looked up.
    let mut last_key = !rgba_key(pixels.get(..4).unwrap_or(&[]));
    let mut last_index = 0u8;
    for (px, out) in texels.zip(indices.iter_mut()) {
        let key = rgba_key(px);
        if key != last_key {
            let mut slot = usize::try_from(key.wrapping_mul(0x9E37_79B1) >> 22).ok()? & MASK;
            last_index = loop {
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
            last_key = key;
        }
        *out = last_index;
    }
    Some((palette, indices))
}

/// The palette of the colours `indices` use (first-seen order, equal colours merged) and
/// each texel's index into it: what [`palettize`] gives for the RGBA these indices
/// expand to through `colours`, with one table read per texel and no RGBA.
fn palettize_indexed(colours: &[[u8; 4]; 256], indices: &[u8]) -> (Vec<[u8; 4]>, Vec<u8>) {
    // Source index → palette index in the low byte; UNSEEN (above any byte) until the
    // index is first met.
    const UNSEEN: u16 = 0x100;
    let mut map = [UNSEEN; 256];
    let mut palette: Vec<[u8; 4]> = Vec::new();
    let mut out = alloc::vec![0u8; indices.len()];
    for (&i, o) in indices.iter().zip(out.iter_mut()) {
        let Some(slot) = map.get_mut(usize::from(i)) else {
            continue; // a u8 always indexes 256 entries
        };
        if *slot >= UNSEEN {
            let c = colours.get(usize::from(i)).copied().unwrap_or_default();
            // At most 256 source indices, so at most 256 colours: always fits a u8.
            let at = palette.iter().position(|p| *p == c).unwrap_or_else(|| {
                palette.push(c);
                palette.len().saturating_sub(1)
            });
            *slot = u16::try_from(at).unwrap_or(0);
        }
        let [low, _] = slot.to_le_bytes();
        *o = low;
    }
    (palette, out)
}

/// Encodes `width × height` palette indices (rows top to bottom) whose colours are
/// `colours` as PNG: the same bytes as [`encode`] of the RGBA they expand to.
pub(crate) fn encode_indexed(
    width: u32,
    height: u32,
    colours: &[[u8; 4]; 256],
    indices: &[u8],
) -> Result<Vec<u8>, String> {
    let (palette, indices) = palettize_indexed(colours, indices);
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    set_indexed(&mut enc, &palette);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&indices).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Sets an indexed encoding with `palette` (`PLTE`, and `tRNS` when a colour is not
/// opaque).
fn set_indexed<W: std::io::Write>(enc: &mut png::Encoder<'_, W>, palette: &[[u8; 4]]) {
    enc.set_color(png::ColorType::Indexed);
    // Paeth on every row, not the adaptive choice of five filters: on the 22
    // corpus MDLs the GLBs were 0.87–1.04× the adaptive ones' size
    // (1.7 % smaller in all) for a third of the filtering work. No filter, the
    // PNG specification's advice for palettes, made them 1.1–4.9× larger:
    // fdeflate's fast mode relies on the runs of zeros filtering leaves.
    enc.set_filter(png::Filter::Paeth);
    enc.set_palette(
        palette
            .iter()
            .flat_map(|c| [c[0], c[1], c[2]])
            .collect::<Vec<u8>>(),
    );
    // tRNS may stop after the last non-opaque entry; none when all are opaque.
    let keep = palette
        .iter()
        .rposition(|c| c[3] != 255)
        .map_or(0, |i| i.wrapping_add(1));
    if keep > 0 {
        let alpha: Vec<u8> = palette.iter().take(keep).map(|c| c[3]).collect();
        enc.set_trns(alpha);
    }
}

/// Encodes `width × height` RGBA pixels (rows top to bottom) as PNG.
pub(crate) fn encode(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let texels = pixels.chunks_exact(4);
    let data: Vec<u8> = match palettize(pixels) {
        Some((palette, indices)) => {
            set_indexed(&mut enc, &palette);
            indices
        }
        None if texels.clone().all(|px| px.get(3) == Some(&255)) => {
            enc.set_color(png::ColorType::Rgb);
            let mut rgb = Vec::with_capacity(texels.len().saturating_mul(3));
            for px in texels {
                rgb.extend_from_slice(px.get(..3).unwrap_or(&[]));
            }
            rgb
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

    #[test]
    fn unsupported_chunks_are_dropped_and_the_pixels_kept() {
        let plain = encode(2, 1, &[255, 0, 0, 255, 0, 0, 255, 255]).unwrap();
        assert_eq!(without_unsupported_chunks(&plain), None, "nothing to drop");
        // The same file with a gAMA and a pHYs chunk after IHDR (8 + 25 bytes).
        let chunk = |kind: &[u8; 4], data: &[u8]| {
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(data);
            c.extend_from_slice(&[0; 4]); // the CRC is not read here
            c
        };
        let mut extra = plain[..33].to_vec();
        extra.extend(chunk(b"gAMA", &[0, 0, 0xB1, 0x8F]));
        extra.extend(chunk(b"pHYs", &[0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x12, 1]));
        extra.extend_from_slice(&plain[33..]);
        assert_eq!(without_unsupported_chunks(&extra), Some(plain.clone()));
        // Not a PNG, or a truncated chunk: left to the caller.
        assert_eq!(without_unsupported_chunks(b"not a png"), None);
        assert_eq!(without_unsupported_chunks(&extra[..40]), None);
    }

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

    /// `indices` through `colours` as RGBA.
    fn expand(colours: &[[u8; 4]; 256], indices: &[u8]) -> Vec<u8> {
        indices
            .iter()
            .flat_map(|&i| colours[usize::from(i)])
            .collect()
    }

    #[test]
    fn indexed_input_gives_the_bytes_of_its_rgba() {
        // A small deterministic generator (xorshift) for palettes and texels.
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for case in 0..40u32 {
            let (w, h) = (1 + next() % 40, 1 + next() % 30);
            let mut colours = [[0u8; 4]; 256];
            for c in colours.iter_mut() {
                // Few distinct values, so that entries repeat (duplicates must merge),
                // and some with alpha below 255.
                let v = next();
                *c = [
                    (v % 5) as u8 * 60,
                    (v >> 8) as u8 % 3,
                    if case % 3 == 0 { v as u8 } else { 7 },
                    if case % 4 == 0 && v % 7 == 0 {
                        (v >> 16) as u8
                    } else {
                        255
                    },
                ];
            }
            let span = [2u32, 16, 256][(case % 3) as usize];
            let indices: Vec<u8> = (0..w * h).map(|_| (next() % span) as u8).collect();
            let rgba = expand(&colours, &indices);
            let direct = encode_indexed(w, h, &colours, &indices).unwrap();
            assert_eq!(direct, encode(w, h, &rgba).unwrap(), "case {case} {w}×{h}");
            assert_eq!(decode(&direct), (w, h, rgba), "case {case}");
        }
    }

    #[test]
    fn indexed_palettes_merge_equal_colours_in_first_seen_order() {
        let mut colours = [[9u8, 9, 9, 255]; 256];
        colours[5] = [1, 2, 3, 255];
        colours[6] = [1, 2, 3, 255]; // the same colour as 5
        colours[200] = [0, 0, 0, 0];
        let (palette, out) = palettize_indexed(&colours, &[200, 6, 5, 7, 6, 200]);
        assert_eq!(palette, [[0, 0, 0, 0], [1, 2, 3, 255], [9, 9, 9, 255]]);
        assert_eq!(out, [0, 1, 1, 2, 1, 0]);
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
