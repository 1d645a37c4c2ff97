//! Skin sizes the engines accept and the resampling that gets an image there.
//!
//! Quake and Quake II refuse a skin taller than 480 texels (`MAX_LBM_HEIGHT`: WinQuake's
//! `d_iface.h`, GLQuake's `glquake.h`, Quake II's `ref_gl/gl_local.h` and
//! `ref_soft/r_local.h`); WinQuake also refuses an MDL skin whose width is not a multiple
//! of 4. Texture coordinates in a scene are relative to the image, so a skin resampled to
//! another size still maps the same texels to the same triangles.

use alloc::vec::Vec;

/// The tallest skin Quake and Quake II load (`MAX_LBM_HEIGHT`).
pub const MAX_SKIN_HEIGHT: u32 = 480;

/// The size an MD2 skin of `width` × `height` texels is written at: as it is when at
/// most [`MAX_SKIN_HEIGHT`] tall, else scaled down to that height with its aspect kept
/// (the width rounded, at least 1).
///
/// ```
/// use idmodel_scene::back::md2_skin_size;
/// assert_eq!(md2_skin_size(256, 256), (256, 256));
/// assert_eq!(md2_skin_size(700, 500), (672, 480));
/// ```
pub fn md2_skin_size(width: u32, height: u32) -> (u32, u32) {
    if height <= MAX_SKIN_HEIGHT {
        return (width, height);
    }
    let scaled = u64::from(width)
        .saturating_mul(u64::from(MAX_SKIN_HEIGHT))
        .saturating_add(u64::from(height) / 2)
        .checked_div(u64::from(height))
        .unwrap_or(1);
    (
        u32::try_from(scaled).unwrap_or(u32::MAX).max(1),
        MAX_SKIN_HEIGHT,
    )
}

/// The size an MDL skin of `width` × `height` texels is written at: the width rounded up
/// to a multiple of 4 (WinQuake's rule), the height at most [`MAX_SKIN_HEIGHT`].
///
/// ```
/// use idmodel_scene::back::mdl_skin_size;
/// assert_eq!(mdl_skin_size(700, 500), (700, 480));
/// assert_eq!(mdl_skin_size(30, 20), (32, 20));
/// ```
pub fn mdl_skin_size(width: u32, height: u32) -> (u32, u32) {
    (
        width.max(1).div_ceil(4).saturating_mul(4),
        height.clamp(1, MAX_SKIN_HEIGHT),
    )
}

/// `rgba` (`width` × `height` RGBA8 texels, rows top first) resampled to `new_width` ×
/// `new_height` by nearest neighbour (the same pixels when the size is kept; texels
/// missing from a short `rgba` are opaque black).
///
/// ```
/// use idmodel_scene::back::resample_nearest;
/// let two_by_one = [255, 0, 0, 255, 0, 0, 255, 255];
/// let four = resample_nearest(&two_by_one, 2, 1, 4, 1);
/// assert_eq!(four[..8], [255, 0, 0, 255, 255, 0, 0, 255]);
/// assert_eq!(four[8..], [0, 0, 255, 255, 0, 0, 255, 255]);
/// ```
pub fn resample_nearest(
    rgba: &[u8],
    width: u32,
    height: u32,
    new_width: u32,
    new_height: u32,
) -> Vec<u8> {
    let wide = |v: u32| usize::try_from(v).unwrap_or(0);
    let mut out = Vec::with_capacity(
        wide(new_width)
            .saturating_mul(wide(new_height))
            .saturating_mul(4),
    );
    for y in 0..new_height {
        let sy = u64::from(y)
            .saturating_mul(u64::from(height))
            .checked_div(u64::from(new_height))
            .unwrap_or(0);
        for x in 0..new_width {
            let sx = u64::from(x)
                .saturating_mul(u64::from(width))
                .checked_div(u64::from(new_width))
                .unwrap_or(0);
            let at = sy
                .saturating_mul(u64::from(width))
                .saturating_add(sx)
                .saturating_mul(4);
            let at = usize::try_from(at).unwrap_or(usize::MAX);
            let px = rgba
                .get(at..at.saturating_add(4))
                .unwrap_or(&[0, 0, 0, 255]);
            out.extend_from_slice(px);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_fit_the_engines_and_keep_small_skins() {
        for (w, h) in [(1, 1), (256, 480), (640, 481), (3, 5000), (100_000, 481)] {
            let (nw, nh) = md2_skin_size(w, h);
            assert!(nh <= MAX_SKIN_HEIGHT && nw >= 1);
            if h <= MAX_SKIN_HEIGHT {
                assert_eq!((nw, nh), (w, h));
            } else {
                // The aspect within one texel of rounding.
                let want = f64::from(w) * 480.0 / f64::from(h);
                assert!(
                    (f64::from(nw) - want).abs() <= 0.5 || nw == 1,
                    "{w}x{h}: {nw}"
                );
            }
            let (mw, mh) = mdl_skin_size(w, h);
            assert!(mw % 4 == 0 && mw >= w && mh <= MAX_SKIN_HEIGHT);
        }
    }

    #[test]
    fn resampling_to_the_same_size_is_the_identity() {
        let rgba: Vec<u8> = (0..3 * 2 * 4).map(|i| i as u8).collect();
        assert_eq!(resample_nearest(&rgba, 3, 2, 3, 2), rgba);
        let half = resample_nearest(&rgba, 3, 2, 3, 1);
        assert_eq!(half, rgba[..12]);
    }
}
