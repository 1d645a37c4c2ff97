//! Palette quantisation (MDL skins, MD2's PCX skins): the [`redmean`] colour metric and
//! RGBA texels to the indices of a 256-colour palette ([`quantise_to_palette`]).

use alloc::vec::Vec;

use super::memo::{Memo, mix};

/// The squared redmean distance between two colours (Compuphase's "low-cost
/// approximation" of perceived colour difference): with `r̄` the mean red,
/// `(2 + r̄/256)·ΔR² + 4·ΔG² + (2 + (255 − r̄)/256)·ΔB²`. The one colour metric of the
/// palette quantisers (MDL skins to the Quake palette, MD2 skins to Quake II's).
///
/// ```
/// use idmodel_scene::back::redmean;
/// assert_eq!(redmean([10, 20, 30], [10, 20, 30]), 0.0);
/// // Green weighs most: a step of green is farther than the same step of blue.
/// assert!(redmean([0, 0, 0], [0, 10, 0]) > redmean([0, 0, 0], [0, 0, 10]));
/// ```
pub fn redmean(a: [u8; 3], b: [u8; 3]) -> f32 {
    let [r1, g1, b1] = a.map(f32::from);
    let [r2, g2, b2] = b.map(f32::from);
    let rm = (r1 + r2) * 0.5;
    let (dr, dg, db) = (r1 - r2, g1 - g2, b1 - b2);
    (2.0 + rm / 256.0) * dr * dr + 4.0 * dg * dg + (2.0 + (255.0 - rm) / 256.0) * db * db
}

/// How RGBA texels become indices of a 256-colour palette: see [`quantise_to_palette`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaletteRules<'a> {
    /// The palette.
    pub colors: &'a [[u8; 3]; 256],
    /// A texel whose colour is exactly one of the indices below this keeps that index
    /// (the first one with the colour).
    pub exact_below: usize,
    /// Other texels take the nearest colour ([`redmean`]) among the indices below this
    /// (the first on a tie).
    pub nearest_below: usize,
    /// Texels with alpha below 128 become this index (`None`: alpha is ignored).
    pub transparent: Option<u8>,
}

/// The palette indices of `rgba` (4 bytes a texel) under `rules`.
///
/// ```
/// use idmodel_scene::back::{PaletteRules, quantise_to_palette};
/// let mut colors = [[0u8; 3]; 256];
/// colors[1] = [200, 0, 0];
/// colors[2] = [0, 200, 0];
/// let rules = PaletteRules { colors: &colors, exact_below: 256, nearest_below: 255, transparent: Some(255) };
/// let rgba = [190, 10, 0, 255, 0, 200, 0, 255, 9, 9, 9, 0];
/// assert_eq!(quantise_to_palette(&rgba, &rules), vec![1, 2, 255]);
/// ```
pub fn quantise_to_palette(rgba: &[u8], rules: &PaletteRules<'_>) -> Vec<u8> {
    let mut exact: alloc::collections::BTreeMap<[u8; 3], u8> = alloc::collections::BTreeMap::new();
    for (i, c) in rules.colors.iter().enumerate().take(rules.exact_below) {
        exact.entry(*c).or_insert(u8::try_from(i).unwrap_or(0));
    }
    let mut cache: alloc::collections::BTreeMap<[u8; 3], u8> = alloc::collections::BTreeMap::new();
    let mut memo = Memo::new(12);
    rgba.chunks_exact(4)
        .map(|px| {
            let (rgb, a) = match *px {
                [r, g, b, a] => ([r, g, b], a),
                _ => ([0; 3], 255),
            };
            if let Some(t) = rules.transparent.filter(|_| a < 128) {
                return t;
            }
            let [r, g, b] = rgb;
            memo.get(rgb, mix(&[u32::from_le_bytes([r, g, b, 0])]), |rgb| {
                if let Some(&i) = exact.get(&rgb) {
                    return i;
                }
                *cache.entry(rgb).or_insert_with(|| {
                    let mut best = (f32::INFINITY, 0u8);
                    for (i, c) in rules.colors.iter().enumerate().take(rules.nearest_below) {
                        let Ok(i) = u8::try_from(i) else { break };
                        let d = redmean(rgb, *c);
                        if d < best.0 {
                            best = (d, i);
                        }
                    }
                    best.1
                })
            })
        })
        .collect()
}
