//! Skins for the materials: the scene names its textures (`models/players/sarge/band.tga`,
//! an MD2's `.pcx`, an md5mesh's shader); the dropped files supply them. TGA, PCX and PNG
//! are decoded here and embedded in the GLB; a JPEG stays a reference to the dropped file
//! (the page hands the browser its bytes).

use idmodel::core::detect::{Format, detect};
use idmodel_scene::{Image, Scene};

use crate::File;

/// Images larger than this many pixels a side are not decoded.
pub const MAX_SIDE: usize = 4096;

/// The file-name stem of a path or URI, lower-cased, percent escapes decoded:
/// `models/players/sarge/Band%20x.tga` → `band x`.
pub fn stem(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let base = base.rsplit_once('.').map_or(base, |(s, _)| s);
    let mut out = Vec::new();
    let b = base.as_bytes();
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        let hex = b
            .get(i.saturating_add(1)..i.saturating_add(3))
            .and_then(|h| core::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (c, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i = i.saturating_add(3);
            }
            _ => {
                out.push(c);
                i = i.saturating_add(1);
            }
        }
    }
    String::from_utf8_lossy(&out).to_lowercase()
}

/// What an image file is, from its bytes (and, for TGA, which has no magic, its name).
fn kind(file: &File) -> Option<Format> {
    match detect(&file.bytes) {
        Some(f @ (Format::Png | Format::Jpeg | Format::Tga | Format::Pcx)) => Some(f),
        _ if file.name.to_ascii_lowercase().ends_with(".tga") => Some(Format::Tga),
        _ => None,
    }
}

/// The image for `file`, if it is one the viewer shows.
pub fn decode(file: &File) -> Option<Image> {
    match kind(file)? {
        Format::Tga => tga(&file.bytes),
        Format::Pcx => pcx(&file.bytes),
        Format::Png => png(&file.bytes),
        Format::Jpeg => Some(Image::Uri(file.name.clone())),
        _ => None,
    }
}

/// Gives each material of `scene` the dropped image its texture names (exact path first,
/// then by stem, then `stem_d` as Doom 3's diffuse maps are named); a reference that no
/// dropped file answers is removed, so nothing is fetched. Returns how many primitives
/// are drawn with a texture.
pub fn resolve(scene: &mut Scene, files: &[File]) -> usize {
    let images: Vec<(&File, String)> = files
        .iter()
        .filter(|f| kind(f).is_some())
        .map(|f| (f, stem(&f.name)))
        .collect();
    let find = |want: &str| -> Option<&File> {
        let lower = want.to_ascii_lowercase();
        let s = stem(want);
        let d = format!("{s}_d");
        images
            .iter()
            .find(|(f, _)| f.name.to_ascii_lowercase().ends_with(&lower))
            .or_else(|| images.iter().find(|(_, st)| *st == s))
            .or_else(|| images.iter().find(|(_, st)| *st == d))
            .map(|(f, _)| *f)
    };
    for m in &mut scene.materials {
        let want = match &m.image {
            Some(Image::Uri(u)) => Some(u.clone()),
            None if !m.name.is_empty() => Some(m.name.clone()),
            _ => None,
        };
        if let Some(want) = want {
            m.image = find(&want).and_then(decode);
        }
    }
    scene
        .meshes
        .iter()
        .flat_map(|mesh| &mesh.primitives)
        .filter(|p| {
            p.material
                .and_then(|i| scene.materials.get(i))
                .is_some_and(|m| m.image.is_some())
        })
        .count()
}

fn rgba(width: usize, height: usize, pixels: Vec<u8>) -> Option<Image> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return None;
    }
    if pixels.len() != width.checked_mul(height)?.checked_mul(4)? {
        return None;
    }
    Some(Image::Rgba8 {
        width: u32::try_from(width).ok()?,
        height: u32::try_from(height).ok()?,
        pixels,
    })
}

fn le16(b: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(u16::from_le_bytes([
        *b.get(at)?,
        *b.get(at.checked_add(1)?)?,
    ])))
}

/// A Truevision TGA: true-colour (24/32-bit) or grey (8-bit), raw or run-length
/// encoded (types 2, 3, 10, 11), either row order.
pub fn tga(b: &[u8]) -> Option<Image> {
    let id_len = usize::from(*b.first()?);
    let map_type = *b.get(1)?;
    let ty = *b.get(2)?;
    let map_len = le16(b, 5)?;
    let map_bits = usize::from(*b.get(7)?);
    let (w, h) = (le16(b, 12)?, le16(b, 14)?);
    let bpp = usize::from(*b.get(16)? / 8);
    let top_down = b.get(17)? & 0x20 != 0;
    let grey = matches!(ty, 3 | 11);
    if !matches!(ty, 2 | 3 | 10 | 11) || !matches!((grey, bpp), (false, 3 | 4) | (true, 1)) {
        return None;
    }
    if w > MAX_SIDE || h > MAX_SIDE {
        return None;
    }
    let map_bytes = if map_type == 1 {
        map_len.checked_mul(map_bits.div_ceil(8))?
    } else {
        0
    };
    let mut at = 18usize.checked_add(id_len)?.checked_add(map_bytes)?;
    let n = w.checked_mul(h)?;
    let mut px: Vec<[u8; 4]> = Vec::with_capacity(n.min(b.len()));
    let read = |at: usize| -> Option<[u8; 4]> {
        let s = b.get(at..at.checked_add(bpp)?)?;
        Some(match s {
            [g] => [*g, *g, *g, 255],
            [bl, g, r] => [*r, *g, *bl, 255],
            [bl, g, r, a] => [*r, *g, *bl, *a],
            _ => return None,
        })
    };
    let rle = ty >= 9;
    while px.len() < n {
        if rle {
            let head = *b.get(at)?;
            at = at.checked_add(1)?;
            let count = usize::from(head & 0x7f).checked_add(1)?;
            if head & 0x80 != 0 {
                let p = read(at)?;
                at = at.checked_add(bpp)?;
                px.extend(core::iter::repeat_n(p, count));
            } else {
                for _ in 0..count {
                    px.push(read(at)?);
                    at = at.checked_add(bpp)?;
                }
            }
        } else {
            px.push(read(at)?);
            at = at.checked_add(bpp)?;
        }
    }
    px.truncate(n);
    let mut rows: Vec<&[[u8; 4]]> = px.chunks(w.max(1)).collect();
    if !top_down {
        rows.reverse();
    }
    let pixels = rows.into_iter().flatten().flatten().copied().collect();
    rgba(w, h, pixels)
}

/// A ZSoft PCX with one 8-bit plane and the 256-colour palette at the end (Quake II's
/// skins).
pub fn pcx(b: &[u8]) -> Option<Image> {
    if b.get(3) != Some(&8) || b.get(65) != Some(&1) {
        return None;
    }
    let (x0, y0, x1, y1) = (le16(b, 4)?, le16(b, 6)?, le16(b, 8)?, le16(b, 10)?);
    let w = x1.checked_sub(x0)?.checked_add(1)?;
    let h = y1.checked_sub(y0)?.checked_add(1)?;
    let stride = le16(b, 66)?;
    if w > MAX_SIDE || h > MAX_SIDE || stride < w {
        return None;
    }
    let palette = b.get(b.len().checked_sub(768)?..)?;
    let data = b.get(128..b.len().checked_sub(769)?)?;
    let mut idx = Vec::with_capacity(stride.checked_mul(h)?.min(data.len().saturating_mul(64)));
    let mut it = data.iter();
    let total = stride.checked_mul(h)?;
    while idx.len() < total {
        let c = *it.next()?;
        if c & 0xc0 == 0xc0 {
            let v = *it.next()?;
            idx.extend(core::iter::repeat_n(v, usize::from(c & 0x3f)));
        } else {
            idx.push(c);
        }
    }
    let mut pixels = Vec::with_capacity(w.checked_mul(h)?.checked_mul(4)?);
    for row in idx.chunks(stride).take(h) {
        for &i in row.iter().take(w) {
            let at = usize::from(i).checked_mul(3)?;
            let c = palette.get(at..at.checked_add(3)?)?;
            pixels.extend_from_slice(c);
            pixels.push(255);
        }
    }
    rgba(w, h, pixels)
}

/// A PNG, any colour type, as 8-bit RGBA.
pub fn png(b: &[u8]) -> Option<Image> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(b));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let (w, h) = {
        let info = reader.info();
        (
            usize::try_from(info.width).ok()?,
            usize::try_from(info.height).ok()?,
        )
    };
    if w > MAX_SIDE || h > MAX_SIDE {
        return None;
    }
    let mut buf = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut buf).ok()?;
    let data = buf.get(..frame.buffer_size())?;
    let pixels: Vec<u8> = match frame.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .flat_map(|c| {
                [c.first(), c.get(1), c.get(2)]
                    .map(|v| v.copied().unwrap_or(0))
                    .into_iter()
                    .chain([255])
            })
            .collect(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|c| {
                let (g, a) = (
                    c.first().copied().unwrap_or(0),
                    c.get(1).copied().unwrap_or(255),
                );
                [g, g, g, a]
            })
            .collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return None,
    };
    rgba(w, h, pixels)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    /// The size and pixels of a decoded RGBA8 image; a failed test for anything else.
    fn rgba8(image: Option<Image>) -> ((u32, u32), Vec<u8>) {
        let Some(Image::Rgba8 {
            width,
            height,
            pixels,
        }) = image
        else {
            panic!("not decoded");
        };
        ((width, height), pixels)
    }

    #[test]
    fn stems_are_lower_case_and_unescaped() {
        assert_eq!(stem("models/players/sarge/Band%20x.tga"), "band x");
        assert_eq!(stem("skin"), "skin");
        assert_eq!(stem("a\\b\\C.PCX"), "c");
    }

    #[test]
    fn tga_rle_bottom_up() {
        // 2×2, type 10 (RLE true colour), 24 bits, bottom-up.
        let mut b = vec![0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0];
        b.extend_from_slice(&[0x81, 0, 0, 255]); // 2 × red (BGR): the bottom row
        b.extend_from_slice(&[0x01, 255, 0, 0, 0, 255, 0]); // blue, green: the top row
        let (size, pixels) = rgba8(tga(&b));
        assert_eq!(size, (2, 2));
        assert_eq!(&pixels[..8], &[0, 0, 255, 255, 0, 255, 0, 255]);
        assert_eq!(&pixels[8..], &[255, 0, 0, 255, 255, 0, 0, 255]);
        assert!(tga(&b[..20]).is_none());
    }

    #[test]
    fn pcx_with_its_palette() {
        let mut b = vec![0u8; 128];
        b[0] = 10;
        b[2] = 1;
        b[3] = 8; // bits per pixel
        b[8] = 1; // x max: 2 wide
        b[65] = 1; // planes
        b[66] = 2; // bytes per line
        b.extend_from_slice(&[0xc2, 1]); // run of 2 × index 1
        b.push(12);
        let mut pal = vec![0u8; 768];
        pal[3..6].copy_from_slice(&[10, 20, 30]);
        b.extend_from_slice(&pal);
        let (size, pixels) = rgba8(pcx(&b));
        assert_eq!(size, (2, 1));
        assert_eq!(pixels, [10, 20, 30, 255, 10, 20, 30, 255]);
    }
}
