//! Embedded PNG images → RGBA8 pixels, within the budget.

use alloc::vec::Vec;

use super::ImportError;
use super::doc::Budget;

/// Decodes a PNG into `(width, height, RGBA8 pixels)`, charging the decoded size first.
pub(crate) fn decode_png(
    bytes: &[u8],
    budget: &mut Budget,
    what: &str,
) -> Result<(u32, u32, Vec<u8>), ImportError> {
    let err = |e: &dyn core::fmt::Display| ImportError::Invalid(alloc::format!("{what}: PNG: {e}"));
    let left = usize::try_from(budget.limit.saturating_sub(budget.used)).unwrap_or(usize::MAX);
    let mut dec =
        png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: left });
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| err(&e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err(&"image too large"))?;
    budget.charge_n(size, 1, &what)?;
    let mut buf = alloc::vec![0u8; size];
    let out = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    let (color, _) = reader.output_color_type();
    let px = usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h))
        .ok_or_else(|| err(&"image too large"))?;
    budget.charge_n(px, 4, &what)?;
    let data = buf.get(..out.buffer_size()).unwrap_or(&[]);
    let mut rgba = Vec::with_capacity(px.saturating_mul(4));
    match color {
        png::ColorType::Rgba => rgba.extend_from_slice(data),
        png::ColorType::Rgb => {
            for p in data.chunks_exact(3) {
                rgba.extend_from_slice(p);
                rgba.push(255);
            }
        }
        png::ColorType::GrayscaleAlpha => {
            for p in data.chunks_exact(2) {
                if let [g, a] = *p {
                    rgba.extend_from_slice(&[g, g, g, a]);
                }
            }
        }
        png::ColorType::Grayscale => {
            for &g in data {
                rgba.extend_from_slice(&[g, g, g, 255]);
            }
        }
        png::ColorType::Indexed => return Err(err(&"palette not expanded")),
    }
    if rgba.len() != px.saturating_mul(4) {
        return Err(err(&"pixel data of the wrong size"));
    }
    Ok((width, height, rgba))
}
