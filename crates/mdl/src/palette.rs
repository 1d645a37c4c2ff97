//! The palette and what it does to skins: the standard Quake palette, skins to RGBA8
//! through any palette, fullbright masks and `MF_HOLEY` transparency.

// The generated table is a file of its own, as core's normal table is.
#[path = "palette_table.rs"]
mod table;

use idmodel_core::{Error, ErrorKind, Result};

pub use table::QUAKE_PALETTE;

/// First fullbright palette index: QuakeSpasm's `Mod_CheckFullbrights` treats indices
/// 224–255 as fullbright (drawn without lighting), as the software colormap does.
pub const FIRST_FULLBRIGHT: u8 = 224;

/// The palette index made transparent by `MF_HOLEY` (flag 0x4000).
pub const TRANSPARENT_INDEX: u8 = 255;

/// A 256-colour palette.
///
/// ```
/// use idmodel_mdl::Palette;
/// assert_eq!(Palette::QUAKE.rgb(254), [255, 255, 255]);
/// let lmp = [7u8; 768];
/// let custom = Palette::from_lmp(&lmp).unwrap(); // e.g. Hexen II's palette.lmp
/// assert_eq!(custom.rgb(3), [7, 7, 7]);
/// assert!(Palette::from_lmp(&lmp[..767]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette<'a> {
    colors: &'a [[u8; 3]; 256],
}

impl Palette<'static> {
    /// The standard Quake palette (`gfx/palette.lmp`, md5 79bc149d…).
    pub const QUAKE: Palette<'static> = Palette {
        colors: &QUAKE_PALETTE,
    };
}

impl Default for Palette<'static> {
    fn default() -> Self {
        Palette::QUAKE
    }
}

impl<'a> Palette<'a> {
    /// A palette from 256 RGB triples.
    pub const fn new(colors: &'a [[u8; 3]; 256]) -> Self {
        Palette { colors }
    }

    /// A palette from the 768 bytes of a `palette.lmp` (Quake, Hexen II, …).
    /// Refuses any other length.
    pub fn from_lmp(bytes: &'a [u8]) -> Result<Self> {
        let (colors, rest) = <[[u8; 3]; 256] as zerocopy::FromBytes>::ref_from_prefix(bytes)
            .map_err(|_| {
                Error::at(
                    ErrorKind::Truncated {
                        needed: 768,
                        available: u64::try_from(bytes.len()).unwrap_or(u64::MAX),
                    },
                    0,
                )
            })?;
        if !rest.is_empty() {
            return Err(Error::at(
                ErrorKind::BadValue {
                    what: "palette length (must be 768)",
                    value: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
                },
                768,
            ));
        }
        Ok(Palette { colors })
    }

    /// The RGB triple of `index`.
    pub fn rgb(&self, index: u8) -> [u8; 3] {
        self.colors
            .get(usize::from(index))
            .copied()
            .unwrap_or_default()
    }

    /// The 256 colours.
    pub fn colors(&self) -> &'a [[u8; 3]; 256] {
        self.colors
    }
}

/// How to turn palette indices into RGBA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkinOptions<'a> {
    /// The palette (default: [`Palette::QUAKE`]).
    pub palette: Palette<'a>,
    /// Make index 255 fully transparent (alpha 0). Set it from [`crate::Flags::holey`].
    pub transparent_255: bool,
}

impl SkinOptions<'_> {
    /// The RGBA colour of every palette index as [`skin_to_rgba`] writes it (index 255
    /// transparent when `transparent_255` is set): what an indexed image needs as its
    /// palette.
    ///
    /// ```
    /// use idmodel_mdl::SkinOptions;
    /// let opts = SkinOptions { transparent_255: true, ..SkinOptions::default() };
    /// let table = opts.colours();
    /// assert_eq!(table[1], [15, 15, 15, 255]);
    /// assert_eq!(table[255], [159, 91, 83, 0]);
    /// ```
    pub fn colours(&self) -> [[u8; 4]; 256] {
        let mut table = [[0u8; 4]; 256];
        for (i, c) in (0..=255u8).zip(table.iter_mut()) {
            let [r, g, b] = self.palette.rgb(i);
            let a = if self.transparent_255 && i == TRANSPARENT_INDEX {
                0
            } else {
                255
            };
            *c = [r, g, b, a];
        }
        table
    }
}

impl Default for SkinOptions<'static> {
    fn default() -> Self {
        SkinOptions {
            palette: Palette::QUAKE,
            transparent_255: false,
        }
    }
}

/// Converts an 8-bit image to RGBA8 (`out.len()` must be at least `4 × image.len()`).
/// Returns the number of bytes written.
///
/// ```
/// use idmodel_mdl::{skin_to_rgba, SkinOptions};
/// let mut out = [0u8; 8];
/// let opts = SkinOptions { transparent_255: true, ..SkinOptions::default() };
/// skin_to_rgba(&[1, 255], &opts, &mut out).unwrap();
/// assert_eq!(out, [15, 15, 15, 255, 159, 91, 83, 0]);
/// ```
pub fn skin_to_rgba(image: &[u8], options: &SkinOptions<'_>, out: &mut [u8]) -> Result<usize> {
    let needed = image.len().saturating_mul(4);
    let out = idmodel_core::bytes::prefix_mut(out, needed, "RGBA bytes for the output slice")?;
    // Each index's colour once, then one table read per texel.
    let table = options.colours();
    for (px, &i) in out.chunks_exact_mut(4).zip(image) {
        if let Some(c) = table.get(usize::from(i)) {
            px.copy_from_slice(c);
        }
    }
    Ok(needed)
}

/// [`skin_to_rgba`] into a new vector.
#[cfg(feature = "alloc")]
pub fn skin_to_rgba_vec(image: &[u8], options: &SkinOptions<'_>) -> alloc::vec::Vec<u8> {
    let mut out = alloc::vec![0u8; image.len().saturating_mul(4)];
    // The length is exactly what the function asks for.
    let _ = skin_to_rgba(image, options, &mut out);
    out
}

/// True for palette indices 224–255 (fullbright).
pub const fn is_fullbright(index: u8) -> bool {
    index >= FIRST_FULLBRIGHT
}

/// Fills `out` with one byte per pixel: 255 for fullbright pixels, 0 otherwise (a mask
/// ready to upload as an alpha or luminance texture). Returns the count written.
pub fn fullbright_mask(image: &[u8], out: &mut [u8]) -> usize {
    let mut n = 0usize;
    for (o, &i) in out.iter_mut().zip(image) {
        *o = if is_fullbright(i) { 255 } else { 0 };
        n = n.saturating_add(1);
    }
    n
}

/// True when any pixel of `image` is fullbright (QuakeSpasm then makes a second,
/// fullbright-only texture).
pub fn has_fullbrights(image: &[u8]) -> bool {
    image.iter().any(|&i| is_fullbright(i))
}
