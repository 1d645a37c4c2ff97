//! Images as PNG files: the embedded images' encoders, checked against their sizes
//! ([`png_rgba8`], [`png_indexed8`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::Result;
use crate::ExportError;

/// Encodes `width × height` RGBA8 pixels (rows top to bottom) as a PNG file, as the
/// exporter does for embedded images.
pub fn png_rgba8(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>> {
    encode_png(width, height, pixels).map_err(ExportError::Image)
}

/// Encodes `width × height` palette indices (rows top to bottom) with their `palette` as
/// a PNG file, as the exporter does for an embedded
/// [`Image::Indexed8`](idmodel_scene::Image::Indexed8): the same bytes as [`png_rgba8`] of
/// the RGBA they expand to.
///
/// ```
/// let mut palette = Box::new([[0u8; 4]; 256]);
/// palette[3] = [200, 10, 10, 255];
/// let png = idmodel_gltf::png_indexed8(2, 1, &palette, &[3, 0])?;
/// assert_eq!(png, idmodel_gltf::png_rgba8(2, 1, &[200, 10, 10, 255, 0, 0, 0, 0])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn png_indexed8(
    width: u32,
    height: u32,
    palette: &[[u8; 4]; 256],
    indices: &[u8],
) -> Result<Vec<u8>> {
    encode_png_indexed(width, height, palette, indices).map_err(ExportError::Image)
}

pub(super) fn encode_png_indexed(
    width: u32,
    height: u32,
    palette: &[[u8; 4]; 256],
    indices: &[u8],
) -> core::result::Result<Vec<u8>, String> {
    let expected = usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h));
    if width == 0 || height == 0 || expected != Some(indices.len()) {
        return Err(alloc::format!(
            "{width}×{height} indexed image needs {expected:?} bytes, has {}",
            indices.len()
        ));
    }
    crate::png::encode_indexed(width, height, palette, indices)
}

pub(super) fn encode_png(
    width: u32,
    height: u32,
    pixels: &[u8],
) -> core::result::Result<Vec<u8>, String> {
    let expected = usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h))
        .and_then(|n| n.checked_mul(4));
    if width == 0 || height == 0 || expected != Some(pixels.len()) {
        return Err(alloc::format!(
            "{width}×{height} RGBA image needs {expected:?} bytes, has {}",
            pixels.len()
        ));
    }
    crate::png::encode(width, height, pixels)
}
