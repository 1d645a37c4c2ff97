//! The images id's engines read, decoded with limits (docs/game-data.md §§2.3–2.6, 3.7, 3.8).
//!
//! | type | decoder | what the engines accept (and we warn about beyond it) |
//! |---|---|---|
//! | PCX | here, by hand (Quake II `LoadPCX`) | version 5, RLE, 8 bits, 1 plane; Quake II ≤ 640×480, Quake III ≤ 1024 a side |
//! | WAL | here, by hand (`GL_LoadWal`: no crate reads it) | mip level 0 only |
//! | TGA | `image` (image-rs) with [`image::Limits`] | types 2, 3, 10 (image-rs also reads 1, 9, 11: decoded with a warning); the origin bit as the engine does |
//! | PNG, JPEG | `image` with [`image::Limits`], only for `render` | kept byte for byte for glTF ([`idmodel_scene::Image::Encoded`]) |
//!
//! Why PCX is hand-written: Quake II's rules are not the PCX standard's (it ignores
//! `bytes_per_line`, lets RLE runs spill across rows, and takes the palette from the last
//! 768 bytes without the `0x0C` marker), and the `pcx` crate reads planes and padded
//! lines the standard way, so it would decode some skins differently from the engine; the
//! format is 60 lines. WAL has no crate at all.
//!
//! **Limits**: every decoder refuses an image wider or taller than [`MAX_SIDE`] before
//! allocating, and image-rs is given `max_alloc` = [`MAX_ALLOC`]. The engines' own caps
//! (Quake II's 640×480 PCX and 512·256-pixel uploads) are warnings, not refusals.
//!
//! 8-bit images (PCX, WAL) decode to palette indices ([`Indexed`]); [`Indexed::to_rgba`]
//! turns them into RGBA through a palette with Quake II's index-255 rule.
//!
//! **Writing**: [`pcx_encode`] writes indices as the PCX Quake II reads (MD2 skins made
//! by `idmodel convert model.glb -o model.md2`); [`quantise_quake2`] makes those indices
//! from RGBA with the perceptual metric the MDL quantiser uses
//! ([`idmodel_scene::back::redmean`]).

use std::io::Cursor;

use idmodel_scene::{Image, Mime};

/// The widest or tallest image decoded (larger ones are refused before allocation): 8192,
/// beyond every engine's cap (Quake III reads up to 1024 per side from PCX, Doom 3
/// textures are at most 4096).
pub const MAX_SIDE: u32 = 8192;

/// The most bytes image-rs may allocate for one image (its `Limits::max_alloc`).
pub const MAX_ALLOC: u64 = 256 << 20;

/// Quake II's PCX size cap (`LoadPCX`): 640 × 480.
pub const QUAKE2_PCX_MAX: (u32, u32) = (640, 480);

/// An image file type, from its bytes (TGA has no magic: from the name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ZSoft PCX (8-bit paletted).
    Pcx,
    /// Quake II `.wal` (8-bit, `pics/colormap.pcx` palette).
    Wal,
    /// Truevision TGA.
    Tga,
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
}

impl Kind {
    /// The type of the file `name` with contents `bytes`: PNG and JPEG by their magic,
    /// the others by the name's extension (ASCII case-insensitive).
    ///
    /// ```
    /// use idmodel_assets::images::Kind;
    /// assert_eq!(Kind::of("a.tga", b"\x89PNG\r\n\x1a\n"), Some(Kind::Png));
    /// assert_eq!(Kind::of("a.TGA", &[0; 18]), Some(Kind::Tga));
    /// assert_eq!(Kind::of("a.txt", b"hello"), None);
    /// ```
    pub fn of(name: &str, bytes: &[u8]) -> Option<Kind> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Some(Kind::Png);
        }
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            return Some(Kind::Jpeg);
        }
        let lower = name.to_ascii_lowercase();
        let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "pcx" => Some(Kind::Pcx),
            "wal" => Some(Kind::Wal),
            "tga" => Some(Kind::Tga),
            "png" => Some(Kind::Png),
            "jpg" | "jpeg" => Some(Kind::Jpeg),
            _ => None,
        }
    }
}

/// An 8-bit image: palette indices, rows top to bottom, and the file's own palette if it
/// has one (PCX).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height` palette indices.
    pub indices: Vec<u8>,
    /// The palette stored in the file (PCX: its last 768 bytes), if any.
    pub palette: Option<Box<[[u8; 3]; 256]>>,
}

/// An RGBA8 image, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

impl Rgba {
    /// As a scene image.
    pub fn into_image(self) -> Image {
        Image::Rgba8 {
            width: self.width,
            height: self.height,
            pixels: self.pixels,
        }
    }

    /// Whether any pixel has an alpha below 255.
    pub fn has_alpha(&self) -> bool {
        self.pixels.chunks_exact(4).any(|p| p.get(3) != Some(&255))
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes(s.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(s.try_into().ok()?))
}

/// `w × h` as a `usize`, refusing sides of 0 or over [`MAX_SIDE`].
fn area(what: &str, w: u32, h: u32) -> Result<usize, String> {
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!(
            "{what}: size {w}x{h} outside 1x1 ..= {MAX_SIDE}x{MAX_SIDE}"
        ));
    }
    usize::try_from(u64::from(w).saturating_mul(u64::from(h)))
        .map_err(|_| format!("{what}: size {w}x{h} too large"))
}

/// The first `len` bytes of `bytes`, the `format`'s header; else the one-line refusal.
fn header<'a>(format: &str, bytes: &'a [u8], len: usize) -> Result<&'a [u8], String> {
    bytes.get(..len).ok_or_else(|| {
        format!(
            "{format}: {} bytes, shorter than the {len}-byte header",
            bytes.len()
        )
    })
}

/// Decodes an 8-bit PCX as Quake II's `LoadPCX` does: manufacturer 0x0A, version 5,
/// RLE, 8 bits per pixel (anything else is refused), width `xmax + 1` and height
/// `ymax + 1` (xmin and ymin ignored), runs continuing across rows, the palette from the
/// **last 768 bytes** of the file. Refused as well (docs/game-data.md §2.3: the engine
/// decodes garbage): more than one colour plane, RLE data that ends early.
/// Warnings: `bytes_per_line` ≠ width (the engine ignores it: padded lines decode
/// skewed, as here), sizes over Quake II's 640×480.
///
/// ```
/// use idmodel_assets::images::pcx;
/// // A 2×1 PCX: indices 7 and 9 (one literal, one run of 1), a palette of index → (i, i, i).
/// let mut f = vec![0u8; 128];
/// f[..4].copy_from_slice(&[0x0A, 5, 1, 8]);
/// f[8] = 1; // xmax
/// f[65] = 1; // planes
/// f[66] = 2; // bytes per line
/// f.extend([7, 0xC1, 9, 0x0C]);
/// f.extend((0..=255u8).flat_map(|i| [i, i, i]));
/// let (img, warnings) = pcx(&f).unwrap();
/// assert_eq!((img.width, img.height, img.indices), (2, 1, vec![7, 9]));
/// assert_eq!(img.palette.unwrap()[9], [9, 9, 9]);
/// assert!(warnings.is_empty());
/// ```
pub fn pcx(bytes: &[u8]) -> Result<(Indexed, Vec<String>), String> {
    let head = header("PCX", bytes, 128)?;
    let field = |at: usize| head.get(at).copied().unwrap_or(0);
    let (manufacturer, version, encoding, bpp) = (field(0), field(1), field(2), field(3));
    if manufacturer != 0x0A {
        return Err(format!(
            "PCX: manufacturer {manufacturer:#04x} at byte 0, not 0x0a"
        ));
    }
    if version != 5 || encoding != 1 || bpp != 8 {
        return Err(format!(
            "PCX: version {version}, encoding {encoding}, {bpp} bits per pixel at bytes 1-3: \
             the engines read only version 5, RLE (1), 8 bits"
        ));
    }
    let planes = field(65);
    if planes != 1 {
        return Err(format!(
            "PCX: {planes} colour planes at byte 65: only 8-bit paletted (1 plane) is read"
        ));
    }
    let xmax = u32::from(u16_at(head, 8).unwrap_or(0));
    let ymax = u32::from(u16_at(head, 10).unwrap_or(0));
    let (width, height) = (xmax.saturating_add(1), ymax.saturating_add(1));
    let n = area("PCX", width, height)?;
    let mut warnings = Vec::new();
    let bytes_per_line = u32::from(u16_at(head, 66).unwrap_or(0));
    if bytes_per_line != width {
        warnings.push(format!(
            "PCX: bytes_per_line {bytes_per_line} (byte 66) is not the width {width}: \
             decoded as Quake II does (ignoring it)"
        ));
    }
    if width > QUAKE2_PCX_MAX.0 || height > QUAKE2_PCX_MAX.1 {
        warnings.push(format!(
            "PCX: {width}x{height} is larger than Quake II reads (640x480)"
        ));
    }
    if bytes.len() < 128 + 768 {
        return Err(format!(
            "PCX: {} bytes, too short for the header and the 768-byte palette",
            bytes.len()
        ));
    }
    let data = bytes.get(128..).unwrap_or_default();
    let mut indices = Vec::with_capacity(n.min(data.len().saturating_mul(63)));
    let mut it = data.iter().copied().enumerate();
    while indices.len() < n {
        let Some((at, b)) = it.next() else {
            return Err(format!(
                "PCX: pixel data ends at byte {} after {} of {n} pixels",
                bytes.len(),
                indices.len()
            ));
        };
        if b & 0xC0 == 0xC0 {
            let run = usize::from(b & 0x3F);
            let Some((_, value)) = it.next() else {
                return Err(format!(
                    "PCX: run at byte {} has no value byte",
                    at.saturating_add(128)
                ));
            };
            let run = run.min(n.saturating_sub(indices.len()));
            indices.extend(core::iter::repeat_n(value, run));
        } else {
            indices.push(b);
        }
    }
    let pal = bytes
        .get(bytes.len().saturating_sub(768)..)
        .unwrap_or_default();
    Ok((
        Indexed {
            width,
            height,
            indices,
            palette: palette_from(pal),
        },
        warnings,
    ))
}

/// Encodes `image` as an 8-bit PCX the way Quake II's `LoadPCX` reads it (and its tools'
/// `WritePCXfile` write it): manufacturer 0x0A, version 5, RLE, 8 bits, one plane,
/// `xmax = width − 1`, `ymax = height − 1`, `bytes_per_line` = the width; each row
/// run-length encoded on its own (runs of at most 63, a literal byte with its top two
/// bits set written as a run of 1), then the `0x0C` marker and `palette` (768 bytes). The
/// image's own palette is not used. Refused: an empty image, a side over 65,536, or
/// indices that are not `width × height`.
///
/// ```
/// use idmodel_assets::images::{Indexed, pcx, pcx_encode};
/// let palette: [[u8; 3]; 256] = core::array::from_fn(|i| [i as u8, 0, 0]);
/// let image = Indexed { width: 3, height: 2, indices: vec![1, 1, 1, 200, 7, 7], palette: None };
/// let bytes = pcx_encode(&image, &palette)?;
/// let (back, warnings) = pcx(&bytes)?;
/// assert_eq!((back.width, back.height, &back.indices), (3, 2, &image.indices));
/// assert_eq!(back.palette.as_deref(), Some(&palette));
/// assert!(warnings.is_empty());
/// # Ok::<(), String>(())
/// ```
pub fn pcx_encode(image: &Indexed, palette: &[[u8; 3]; 256]) -> Result<Vec<u8>, String> {
    let side = |v: u32, what: &str| {
        v.checked_sub(1)
            .and_then(|m| u16::try_from(m).ok())
            .ok_or_else(|| format!("PCX: {what} {v}: a PCX side is 1 to 65536 pixels"))
    };
    let xmax = side(image.width, "width")?;
    let ymax = side(image.height, "height")?;
    let n = area("PCX", image.width, image.height)?;
    if image.indices.len() != n {
        return Err(format!(
            "PCX: {} indices for a {}x{} image",
            image.indices.len(),
            image.width,
            image.height
        ));
    }
    let width = usize::from(xmax).saturating_add(1);
    let mut out = vec![0u8; 128];
    let put16 = |out: &mut Vec<u8>, at: usize, v: u16| {
        if let Some(d) = out.get_mut(at..at.saturating_add(2)) {
            d.copy_from_slice(&v.to_le_bytes());
        }
    };
    if let Some(h) = out.get_mut(..4) {
        h.copy_from_slice(&[0x0A, 5, 1, 8]);
    }
    put16(&mut out, 8, xmax);
    put16(&mut out, 10, ymax);
    put16(&mut out, 12, xmax.saturating_add(1).max(1)); // hres
    put16(&mut out, 14, ymax.saturating_add(1).max(1)); // vres
    if let Some(p) = out.get_mut(65) {
        *p = 1; // color_planes
    }
    put16(&mut out, 66, u16::try_from(width).unwrap_or(u16::MAX)); // bytes_per_line
    put16(&mut out, 68, 1); // palette_type: colour
    for row in image.indices.chunks(width) {
        let mut i = 0usize;
        while let Some(&v) = row.get(i) {
            let run = row
                .get(i..)
                .unwrap_or_default()
                .iter()
                .take(63)
                .take_while(|&&x| x == v)
                .count();
            if run > 1 || v & 0xC0 == 0xC0 {
                out.push(0xC0 | u8::try_from(run).unwrap_or(63));
            }
            out.push(v);
            i = i.saturating_add(run.max(1));
        }
    }
    out.push(0x0C);
    out.extend(palette.iter().flatten());
    Ok(out)
}

/// The palette index Quake II draws transparent (`d_8to24table[255]` has alpha 0).
pub const QUAKE2_TRANSPARENT: u8 = 255;

/// RGBA texels (4 bytes each, `width × height` of them) as indices of Quake II's
/// `palette` (`pics/colormap.pcx`'s): a texel whose colour is exactly one of indices
/// 0–254 keeps that index, any other takes the nearest of 0–254 by the **redmean**
/// distance ([`idmodel_scene::back::redmean`], the MDL quantiser's metric); with `holes`,
/// texels with alpha below 128 become index 255, which Quake II draws transparent (else
/// index 255 is never used, so no texel turns transparent by accident).
///
/// ```
/// use idmodel_assets::images::quantise_quake2;
/// let palette: [[u8; 3]; 256] = core::array::from_fn(|i| [i as u8, i as u8, i as u8]);
/// let img = quantise_quake2(&[10, 10, 10, 255, 254, 250, 255, 255, 0, 0, 0, 0], 3, 1, &palette, true);
/// assert_eq!(img.indices, vec![10, 252, 255]);
/// ```
pub fn quantise_quake2(
    rgba: &[u8],
    width: u32,
    height: u32,
    palette: &[[u8; 3]; 256],
    holes: bool,
) -> Indexed {
    let rules = idmodel_scene::back::PaletteRules {
        colors: palette,
        exact_below: usize::from(QUAKE2_TRANSPARENT),
        nearest_below: usize::from(QUAKE2_TRANSPARENT),
        transparent: holes.then_some(QUAKE2_TRANSPARENT),
    };
    Indexed {
        width,
        height,
        indices: idmodel_scene::back::quantise_to_palette(rgba, &rules),
        palette: None,
    }
}

/// A 256-colour palette from a file: 768 bytes as they are (`.lmp`, `.pal`), else a PCX's
/// own palette (Quake II's `pics/colormap.pcx`).
pub fn palette_file(bytes: &[u8]) -> Result<Box<[[u8; 3]; 256]>, String> {
    if let Some(p) = palette_from(bytes) {
        return Ok(p);
    }
    let (img, _) = pcx(bytes).map_err(|e| format!("not a 768-byte palette or a PCX: {e}"))?;
    img.palette
        .ok_or_else(|| String::from("PCX: no 768-byte palette at its end"))
}

/// 768 bytes as 256 RGB triples.
pub fn palette_from(bytes: &[u8]) -> Option<Box<[[u8; 3]; 256]>> {
    if bytes.len() != 768 {
        return None;
    }
    let mut p = Box::new([[0u8; 3]; 256]);
    for (c, rgb) in p.iter_mut().zip(bytes.chunks_exact(3)) {
        c.copy_from_slice(rgb);
    }
    Some(p)
}

/// Decodes a Quake II `.wal` (`miptex_t`, docs/game-data.md §2.5): name @0, width @32,
/// height @36, `offsets[0]` @40; the first mip level's `width × height` indices. No
/// palette: the engine uses `pics/colormap.pcx`.
///
/// ```
/// use idmodel_assets::images::wal;
/// let mut f = vec![0u8; 100];
/// f[32] = 2; // width
/// f[36] = 1; // height
/// f[40] = 100; // offsets[0]
/// f.extend([3, 4]);
/// let img = wal(&f).unwrap();
/// assert_eq!((img.width, img.height, img.indices), (2, 1, vec![3, 4]));
/// assert!(wal(&f[..101]).is_err());
/// ```
pub fn wal(bytes: &[u8]) -> Result<Indexed, String> {
    header("WAL", bytes, 100)?;
    let width = u32_at(bytes, 32).unwrap_or(0);
    let height = u32_at(bytes, 36).unwrap_or(0);
    let n = area("WAL", width, height)?;
    let offset = u32_at(bytes, 40).unwrap_or(0);
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let pixels = start
        .checked_add(n)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| {
            format!(
                "WAL: mip level 0 ({width}x{height} bytes at offset {offset}, byte 40) \
                 passes the end of the file ({} bytes)",
                bytes.len()
            )
        })?;
    Ok(Indexed {
        width,
        height,
        indices: pixels.to_vec(),
        palette: None,
    })
}

impl Indexed {
    /// RGBA through `palette` with Quake II's rule (`Draw_GetPalette`, `GL_Upload8`):
    /// index 255 is transparent (alpha 0) and takes the colour of a neighbour (up, down,
    /// left, right that is not 255, else index 0) so filtering shows no fringe. Returns
    /// the image and whether index 255 occurs.
    pub fn to_rgba(&self, palette: &[[u8; 3]; 256]) -> (Rgba, bool) {
        let (w, h) = (
            usize::try_from(self.width).unwrap_or(0),
            usize::try_from(self.height).unwrap_or(0),
        );
        let at = |x: usize, y: usize| -> Option<u8> {
            self.indices.get(y.checked_mul(w)?.checked_add(x)?).copied()
        };
        let colour = |i: u8| palette.get(usize::from(i)).copied().unwrap_or_default();
        let mut holes = false;
        let mut pixels = Vec::with_capacity(self.indices.len().saturating_mul(4));
        for y in 0..h {
            for x in 0..w {
                let i = at(x, y).unwrap_or(0);
                if i == 255 {
                    holes = true;
                    let near = [
                        y.checked_sub(1).and_then(|y| at(x, y)),
                        at(x, y.saturating_add(1)),
                        x.checked_sub(1).and_then(|x| at(x, y)),
                        at(x.saturating_add(1), y),
                    ]
                    .into_iter()
                    .flatten()
                    .find(|&n| n != 255)
                    .unwrap_or(0);
                    let [r, g, b] = colour(near);
                    pixels.extend([r, g, b, 0]);
                } else {
                    let [r, g, b] = colour(i);
                    pixels.extend([r, g, b, 255]);
                }
            }
        }
        (
            Rgba {
                width: self.width,
                height: self.height,
                pixels,
            },
            holes,
        )
    }
}

/// How a TGA's origin bits (descriptor bit 5: top-down rows; bit 4: right-to-left) are
/// read (docs/game-data.md §3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TgaOrigin {
    /// Ignored, as Quake II, Quake III and ioq3 do: rows are always bottom-up, so a
    /// top-down file shows upside down in the game (and here).
    Ignored,
    /// Honoured, as Doom 3 (`R_VerticalFlip`) and image-rs do.
    Honoured,
}

/// A decoder's message on one line (image-rs's may end with or hold line breaks).
fn one_line(e: &dyn core::fmt::Display) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn limits() -> image::Limits {
    let mut l = image::Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_ALLOC);
    l
}

fn decode_with(bytes: &[u8], format: image::ImageFormat, what: &str) -> Result<Rgba, String> {
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits());
    let img = reader
        .decode()
        .map_err(|e| format!("{what}: {}", one_line(&e)))?;
    let rgba = img.into_rgba8();
    let (width, height) = rgba.dimensions();
    Ok(Rgba {
        width,
        height,
        pixels: rgba.into_raw(),
    })
}

/// Decodes a TGA with image-rs (types 1, 2, 3, 9, 10, 11; RLE; colour maps), limited to
/// [`MAX_SIDE`] a side and [`MAX_ALLOC`] bytes, with the origin bits read as `origin`
/// says. Warnings name what the engines would do differently: types 1, 9 and 11 and
/// colour-mapped files are refused by every engine (docs/game-data.md §3.7), a set origin
/// bit is ignored by the Quake engines.
pub fn tga(bytes: &[u8], origin: TgaOrigin) -> Result<(Rgba, Vec<String>), String> {
    let head = header("TGA", bytes, 18)?;
    let byte = |at: usize| head.get(at).copied().unwrap_or(0);
    let (map_type, ty, depth, descriptor) = (byte(1), byte(2), byte(16), byte(17));
    let (w, h) = (
        u32::from(u16_at(head, 12).unwrap_or(0)),
        u32::from(u16_at(head, 14).unwrap_or(0)),
    );
    area("TGA", w, h)?;
    let mut warnings = Vec::new();
    if !matches!(ty, 2 | 3 | 10) || map_type != 0 {
        warnings.push(format!(
            "TGA: type {ty} with colour map type {map_type} (bytes 1-2): the engines read only \
             types 2, 3 and 10 without a colour map"
        ));
    }
    if !matches!(ty, 1 | 2 | 3 | 9 | 10 | 11) {
        return Err(format!(
            "TGA: image type {ty} (byte 2) is none of 1, 2, 3, 9, 10, 11"
        ));
    }
    // A colour map in a file whose pixels do not index it (types 2, 3, 10, 11): image-rs
    // (0.25) sizes such pixels by the map's entry size instead of the pixel depth, and
    // panics when the two differ. The map is unused there, so it is cut out first.
    let unmapped;
    let bytes = if map_type == 1 && !matches!(ty, 1 | 9) {
        unmapped = without_colour_map(bytes, head)?;
        unmapped.as_slice()
    } else {
        bytes
    };
    let mut rgba = decode_with(bytes, image::ImageFormat::Tga, "TGA")?;
    // 32-bit pixels: the engines take the 4th byte as alpha whatever the descriptor's
    // alpha-bit count says; image-rs drops it when the count is 0. Read it back.
    if depth == 32 && descriptor & 0x0F == 0 && !matches!(ty, 1 | 9) {
        warnings.push(
            "TGA: 32-bit pixels with 0 alpha bits (byte 17): alpha read from the 4th byte as the engines do"
                .to_owned(),
        );
        if let Ok(alpha) = tga_alpha_channel(bytes, &rgba) {
            for (px, a) in rgba.pixels.chunks_exact_mut(4).zip(alpha) {
                if let Some(p) = px.get_mut(3) {
                    *p = a;
                }
            }
        }
    }
    if origin == TgaOrigin::Ignored {
        if descriptor & 0x20 != 0 {
            warnings.push(
                "TGA: top-down origin bit set (byte 17): the Quake engines ignore it, so the image is upside down as in the game"
                    .to_owned(),
            );
            flip_rows(&mut rgba);
        }
        if descriptor & 0x10 != 0 {
            flip_columns(&mut rgba);
        }
    }
    Ok((rgba, warnings))
}

/// `bytes` (a TGA with the 18-byte `head`) with its colour map cut out and the header's
/// colour map fields zeroed; refused when the map runs past the end of the file.
fn without_colour_map(bytes: &[u8], head: &[u8]) -> Result<Vec<u8>, String> {
    let id_len = usize::from(head.first().copied().unwrap_or(0));
    let entries = usize::from(u16_at(head, 5).unwrap_or(0));
    let entry_bytes = usize::from(head.get(7).copied().unwrap_or(0)).div_ceil(8);
    let start = 18 + id_len;
    let end = start.saturating_add(entries.saturating_mul(entry_bytes));
    let (Some(before), Some(after)) = (bytes.get(..start), bytes.get(end..)) else {
        return Err(format!(
            "TGA: the colour map (bytes {start}..{end}) runs past the end of the file ({} bytes)",
            bytes.len()
        ));
    };
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(before);
    // Byte 1 (colour map type) and bytes 3-7 (its first entry, length and entry size).
    for at in [1, 3, 4, 5, 6, 7] {
        if let Some(field) = out.get_mut(at) {
            *field = 0;
        }
    }
    out.extend_from_slice(after);
    Ok(out)
}

/// The 4th byte of each 32-bit pixel of a type 2 or 10 TGA, in the order image-rs returns
/// pixels (the file's rows put in display order): decoded here by a small raw/RLE walk.
fn tga_alpha_channel(bytes: &[u8], decoded: &Rgba) -> Result<Vec<u8>, ()> {
    let id_len = usize::from(*bytes.first().ok_or(())?);
    let ty = *bytes.get(2).ok_or(())?;
    let descriptor = *bytes.get(17).ok_or(())?;
    let n = usize::try_from(u64::from(decoded.width).saturating_mul(u64::from(decoded.height)))
        .map_err(|_| ())?;
    let mut data = bytes
        .get(18usize.checked_add(id_len).ok_or(())?..)
        .ok_or(())?;
    let mut alpha = Vec::with_capacity(n);
    while alpha.len() < n {
        if ty == 10 || ty == 11 {
            let (&head, rest) = data.split_first().ok_or(())?;
            data = rest;
            let count = usize::from(head & 0x7F).saturating_add(1);
            if head & 0x80 != 0 {
                let px = data.get(..4).ok_or(())?;
                alpha.extend(core::iter::repeat_n(*px.get(3).ok_or(())?, count));
                data = data.get(4..).ok_or(())?;
            } else {
                for _ in 0..count {
                    let px = data.get(..4).ok_or(())?;
                    alpha.push(*px.get(3).ok_or(())?);
                    data = data.get(4..).ok_or(())?;
                }
            }
        } else {
            let px = data.get(..4).ok_or(())?;
            alpha.push(*px.get(3).ok_or(())?);
            data = data.get(4..).ok_or(())?;
        }
    }
    alpha.truncate(n);
    // The file's rows run bottom-up unless bit 5 is set; image-rs returns them top-down.
    if descriptor & 0x20 == 0 {
        let w = usize::try_from(decoded.width).map_err(|_| ())?;
        let rows: Vec<&[u8]> = alpha.chunks(w.max(1)).rev().collect();
        alpha = rows.concat();
    }
    Ok(alpha)
}

fn flip_rows(img: &mut Rgba) {
    let stride = usize::try_from(img.width).unwrap_or(0).saturating_mul(4);
    if stride == 0 {
        return;
    }
    let rows: Vec<Vec<u8>> = img
        .pixels
        .chunks(stride)
        .rev()
        .map(<[u8]>::to_vec)
        .collect();
    img.pixels = rows.concat();
}

fn flip_columns(img: &mut Rgba) {
    let stride = usize::try_from(img.width).unwrap_or(0).saturating_mul(4);
    if stride == 0 {
        return;
    }
    for row in img.pixels.chunks_mut(stride) {
        let mut px: Vec<[u8; 4]> = row
            .chunks_exact(4)
            .map(|p| p.try_into().unwrap_or_default())
            .collect();
        px.reverse();
        for (dst, src) in row.chunks_exact_mut(4).zip(px) {
            dst.copy_from_slice(&src);
        }
    }
}

/// Decodes a PNG (for `render`; the GLB keeps the file as it is), with the limits.
pub fn png(bytes: &[u8]) -> Result<Rgba, String> {
    decode_with(bytes, image::ImageFormat::Png, "PNG")
}

/// Decodes a JPEG (for `render`; the GLB keeps the file as it is), with the limits.
pub fn jpeg(bytes: &[u8]) -> Result<Rgba, String> {
    decode_with(bytes, image::ImageFormat::Jpeg, "JPEG")
}

/// Encodes `width × height` RGBA8 pixels (rows top first) as an uncompressed 32-bit TGA
/// with its rows bottom-up, the image every Quake III engine loads as it is meant (Quake
/// III 1.32 reads TGA and JPEG only, and its loader ignores the origin flag: image-rs's
/// encoder writes top-down rows with that flag, which the game would show upside down,
/// hence these 20 lines).
///
/// ```
/// use idmodel_assets::images::{TgaOrigin, tga, tga_encode};
/// let px = [10, 20, 30, 255, 40, 50, 60, 128, 1, 2, 3, 4, 5, 6, 7, 8];
/// let file = tga_encode(2, 2, &px)?;
/// // As Quake III reads it, flag or not.
/// let (back, _) = tga(&file, TgaOrigin::Ignored)?;
/// assert_eq!((back.width, back.height, back.pixels), (2, 2, px.to_vec()));
/// # Ok::<(), String>(())
/// ```
///
/// # Errors
/// A size over 65,535 or a pixel buffer of another size, in one line.
pub fn tga_encode(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, String> {
    let (Ok(w), Ok(h)) = (u16::try_from(width), u16::try_from(height)) else {
        return Err(format!("TGA: {width}×{height} is larger than a TGA holds"));
    };
    let row = usize::from(w).saturating_mul(4);
    if rgba.len() != row.saturating_mul(usize::from(h)) {
        return Err(format!(
            "TGA: {width}×{height} RGBA needs {} bytes, has {}",
            row.saturating_mul(usize::from(h)),
            rgba.len()
        ));
    }
    let mut out = Vec::with_capacity(rgba.len().saturating_add(18));
    // Type 2 (uncompressed true colour), 32 bits, 8 alpha bits, origin bottom-left.
    out.extend_from_slice(&[0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&w.to_le_bytes());
    out.extend_from_slice(&h.to_le_bytes());
    out.extend_from_slice(&[32, 8]);
    if row > 0 {
        for line in rgba.chunks_exact(row).rev() {
            for px in line.chunks_exact(4) {
                if let [r, g, b, a] = *px {
                    out.extend_from_slice(&[b, g, r, a]);
                }
            }
        }
    }
    Ok(out)
}

/// Checks a PNG or JPEG for glTF: its header must decode (size within the limits). The
/// pixels are not decoded.
pub fn check_encoded(bytes: &[u8], mime: Mime) -> Result<(u32, u32), String> {
    let format = match mime {
        Mime::Png => image::ImageFormat::Png,
        Mime::Jpeg => image::ImageFormat::Jpeg,
    };
    let reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let (w, h) = reader.into_dimensions().map_err(|e| {
        format!(
            "{}: {}",
            mime.extension().to_ascii_uppercase(),
            one_line(&e)
        )
    })?;
    area(mime.extension(), w, h)?;
    Ok((w, h))
}

/// An [`Image::Encoded`] decoded to [`Image::Rgba8`] (what `render` draws); other images
/// are returned as they are.
///
/// ```
/// use idmodel_assets::images::decoded;
/// use idmodel_scene::{Image, Mime};
/// let bad = Image::Encoded { mime: Mime::Png, bytes: b"not a png".to_vec() };
/// assert!(decoded(&bad).is_err());
/// let px = Image::Rgba8 { width: 1, height: 1, pixels: vec![1, 2, 3, 4] };
/// assert_eq!(decoded(&px).unwrap(), px);
/// ```
pub fn decoded(image: &Image) -> Result<Image, String> {
    match image {
        Image::Encoded { mime, bytes } => Ok(match mime {
            Mime::Png => png(bytes)?,
            Mime::Jpeg => jpeg(bytes)?,
        }
        .into_image()),
        other => Ok(other.clone()),
    }
}

/// Decodes every encoded image of every material of `scene` in place (before `render`);
/// an image that does not decode is removed and named in the returned warnings.
pub fn decode_scene(scene: &mut idmodel_scene::Scene) -> Vec<String> {
    let mut warnings = Vec::new();
    for m in &mut scene.materials {
        for slot in [&mut m.image, &mut m.emissive, &mut m.normal] {
            if let Some(img @ Image::Encoded { .. }) = slot.as_ref() {
                match decoded(img) {
                    Ok(d) => *slot = Some(d),
                    Err(e) => {
                        warnings.push(format!("material {:?}: {e}", m.name));
                        *slot = None;
                    }
                }
            }
        }
    }
    warnings
}

/// Decodes any image file by its [`Kind`] into RGBA (8-bit ones through `palette`, or
/// their own, or the greyscale ramp when neither is given): for fuzzing and tools.
pub fn decode_any(
    name: &str,
    bytes: &[u8],
    palette: Option<&[[u8; 3]; 256]>,
) -> Result<Rgba, String> {
    let ramp: [[u8; 3]; 256] = core::array::from_fn(|i| {
        let v = u8::try_from(i).unwrap_or(u8::MAX);
        [v, v, v]
    });
    let indexed = |img: Indexed| {
        let own = img.palette.as_deref().copied();
        let pal = palette.copied().or(own).unwrap_or(ramp);
        img.to_rgba(&pal).0
    };
    match Kind::of(name, bytes).ok_or_else(|| format!("{name}: not an image type that is read"))? {
        Kind::Pcx => Ok(indexed(pcx(bytes)?.0)),
        Kind::Wal => Ok(indexed(wal(bytes)?)),
        Kind::Tga => Ok(tga(bytes, TgaOrigin::Ignored)?.0),
        Kind::Png => png(bytes),
        Kind::Jpeg => jpeg(bytes),
    }
}
