//! Quake II MD2 skins (docs/game-data.md §2.2): each skin name is a game path (`.pcx` and
//! `.wal` through `pics/colormap.pcx`'s palette, `.tga` as is). UFO:AI writes `.name`:
//! that name in the model's folder, its extension found at load time from the engine's
//! list ([`UFO_EXTENSIONS`]). A name not found from the root is tried beside the model
//! (its file name), warned.

use idmodel_scene::AlphaMode;

use super::{Loader, ModelRef, Wanted, ext_of, folder, game_path, join, not_found};

/// The extensions UFO:AI tries for a `.name` skin, in order (its `R_FindImage` image
/// types; the order is unconfirmed from its source: PNG and JPEG are what its data ships).
pub const UFO_EXTENSIONS: [&str; 5] = ["png", "jpg", "tga", "pcx", "wal"];

/// The image extensions tried for a skin name without one beside the model.
const ANY_EXTENSIONS: [&str; 5] = ["pcx", "tga", "png", "jpg", "wal"];

/// Where the skin `name` of a model at `model_path` may be, in order, and whether each is
/// the warned last resort.
pub(super) fn candidates(name: &str, model_path: &str) -> Vec<(String, bool)> {
    let name = game_path(name);
    let dir = folder(model_path);
    let with_exts = |base: &str, exts: &[&str]| -> Vec<String> {
        exts.iter().map(|e| format!("{base}.{e}")).collect()
    };
    if let Some(stem) = name.strip_prefix('.') {
        let base = join(dir, stem);
        return with_exts(&base, &UFO_EXTENSIONS)
            .into_iter()
            .map(|c| (c, false))
            .collect();
    }
    let mut out = vec![(name.clone(), false)];
    let file = name.rsplit('/').next().unwrap_or(&name).to_owned();
    let beside = join(dir, &file);
    if ext_of(&file).is_empty() {
        out.extend(
            with_exts(&beside, &ANY_EXTENSIONS)
                .into_iter()
                .map(|c| (c, true)),
        );
    } else if beside != name {
        out.push((beside, true));
    }
    out
}

pub(super) fn resolve(
    materials: Wanted<'_>,
    model: ModelRef<'_>,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    for m in materials {
        let tried = candidates(&m.name, model.game_path);
        let found = tried
            .iter()
            .find_map(|(c, last)| Some((loader.load(c)?, *last)));
        match found {
            Some((l, last_resort)) => {
                if last_resort {
                    warnings.push(format!(
                        "skin {:?} is not at that game path: {} beside the model is used",
                        m.name, l.path
                    ));
                }
                if l.holes {
                    m.alpha = AlphaMode::Mask(0.5);
                }
                m.image = Some(l.image);
            }
            None => {
                let paths: Vec<String> = tried.into_iter().map(|(c, _)| c).collect();
                warnings.push(not_found("MD2 skin", &m.name, &paths));
            }
        }
    }
}
