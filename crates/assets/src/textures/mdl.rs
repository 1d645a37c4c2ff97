//! Quake MDL: the skins are in the model; the palette is the game's `gfx/palette.lmp`
//! (else the bundled Quake palette, warned); fullbright texels (indices 224–255) become
//! the emissive texture (black elsewhere, factor 1), as QuakeSpasm draws them.

use idmodel_mdl::{Flags, Mdl, Palette, SkinOptions, has_fullbrights, is_fullbright};
use idmodel_scene::{Image, Scene};

use super::{Loader, ModelRef};

/// Where Quake's palette lives.
pub const PALETTE: &str = "gfx/palette.lmp";

/// The skin index of a material the MDL adapter named `skin_N` or
/// `skin_N_group_image_0`.
fn skin_index(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("skin_")?;
    let digits = rest.split('_').next()?;
    digits.parse().ok()
}

pub(super) fn resolve(
    scene: &mut Scene,
    model: ModelRef<'_>,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    let Ok(mdl) = Mdl::parse(model.bytes) else {
        // The scene came from these bytes; without them the adapter's skins stay.
        return;
    };
    let lmp = match loader.files().read(PALETTE) {
        Ok(Some(b)) => Some(b),
        Ok(None) => None,
        Err(e) => {
            warnings.push(e);
            None
        }
    };
    let palette = match lmp.as_deref().map(Palette::from_lmp) {
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            warnings.push(format!("{PALETTE}: {e}: the bundled Quake palette is used"));
            Palette::QUAKE
        }
        None => {
            warnings.push(format!(
                "{PALETTE} not found beside {}: the bundled Quake palette is used",
                model.game_path
            ));
            Palette::QUAKE
        }
    };
    let holey = mdl.flags().contains(Flags::HOLEY);
    let options = SkinOptions {
        palette,
        transparent_255: holey,
    };
    let (Ok(width), Ok(height)) = (
        u32::try_from(mdl.skin_width()),
        u32::try_from(mdl.skin_height()),
    ) else {
        return;
    };
    for m in &mut scene.materials {
        let Some(indices) = skin_index(&m.name)
            .and_then(|i| mdl.skin(i))
            .and_then(|s| s.image(0))
        else {
            continue;
        };
        if palette != Palette::QUAKE {
            m.image = Some(Image::Indexed8 {
                width,
                height,
                palette: Box::new(options.colours()),
                indices: indices.to_vec(),
            });
        }
        if has_fullbrights(indices) {
            // The same indices through a palette that is black but for the fullbright
            // entries.
            let mut glow = Box::new([[0u8, 0, 0, 255]; 256]);
            for (i, c) in (0..=255u8).zip(glow.iter_mut()) {
                if is_fullbright(i) && !(holey && i == 255) {
                    let [r, g, b] = palette.rgb(i);
                    *c = [r, g, b, 255];
                }
            }
            m.emissive = Some(Image::Indexed8 {
                width,
                height,
                palette: glow,
                indices: indices.to_vec(),
            });
            m.emissive_factor = [1.0; 3];
        }
    }
}
