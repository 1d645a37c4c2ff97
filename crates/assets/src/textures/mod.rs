//! Texture resolution: the names a model's materials carry (skin paths, shader names,
//! material names) turned into images as each engine finds them (docs/game-data.md §5,
//! whose table is the contract), over any [`Files`].
//!
//! [`resolve`] fills the materials of a scene an adapter of `idmodel-scene` built:
//!
//! | format | where it looks | what a material gets |
//! |---|---|---|
//! | MDL | the skins in the model, through `gfx/palette.lmp` (else the bundled Quake palette, warned) | base colour, and the fullbright texels (indices 224–255) as an emissive texture |
//! | MD2 | each skin name as a game path (`.pcx`/`.wal` through `pics/colormap.pcx`'s palette, else the skin's own, warned; `.tga`; PNG/JPEG as other engines ship them); UFO:AI's `.name` = that name in the model's folder with the engine's extensions | base colour; `MASK` 0.5 when index 255 occurs |
//! | MD3 | the shader (the `.skin` entry the adapter chose, else the surface's) in `scripts/*.shader`, else the implicit image with the engine's extension fallback ([`Q3Images`]) | base stage image, clamp, alpha test/blend, `cull none` |
//! | md5 | Cube 2's `md5.cfg` skin lines beside the model, a shader that is an image file name (Bob, Unvanquished), Doom 3 `materials/*.mtr`, else the implicit image (`.tga`, then `.jpg`) | diffuse, bump map as normal map (green flipped), alpha test, two-sided, clamp |
//!
//! A name that finds nothing leaves the material without an image and gives **one
//! warning line** naming the texture and every path tried; an [`Image::Uri`] an adapter
//! put there is always removed, so no output names a file that was not written. Only the
//! materials some primitive uses are resolved.
//!
//! Engines resolve names from the game root, not the model's folder; where a name has no
//! folder at all (Cube 2's MD2 skins, Bob's md5 shaders), the model's folder is tried
//! after the root, as the last, warned fallback of §5.
//!
//! Doom 3's `.mtr` declarations themselves (decls, stages, image programs, their glTF
//! view) are read by [`mtr`].

mod load;
mod md2;
mod md3;
mod md5;
mod mdl;
pub mod mtr;

use idmodel_scene::{Image, Material, Scene};

use crate::Files;
use crate::images::{self, TgaOrigin};

pub use load::{Loaded, Loader};

/// Which model format the scene came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Quake MDL.
    Mdl,
    /// Quake II MD2 (and UFO:AI's, Cube 2's).
    Md2,
    /// Quake III MD3 (players included).
    Md3,
    /// Doom 3 md5mesh (and Cube 2's, Unvanquished's).
    Md5,
}

/// The model whose scene is resolved.
#[derive(Debug, Clone, Copy)]
pub struct ModelRef<'a> {
    /// Its format.
    pub format: Format,
    /// Its game path (`models/players/kyonshi/upper.md3`): the folder UFO:AI's `.name`
    /// skins, Cube 2's `md5.cfg` and the last-resort basename lookups use.
    pub game_path: &'a str,
    /// The model file's bytes (MDL skins are read from it; md5's `// meshes:` names for
    /// Cube 2). May be empty where a format does not need it.
    pub bytes: &'a [u8],
}

/// Quake III's image lookup for shader and implicit images (docs/game-data.md §3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Q3Images {
    /// Vanilla Quake III: `.tga` appended when there is no extension, then `.jpg` for a
    /// `.tga` that is missing.
    Vanilla,
    /// ioq3 (renderergl1): the stated extension, then `tga`, `jpg`, `jpeg`, `png`, `pcx`
    /// (`bmp` is not read here).
    #[default]
    Ioq3,
}

/// The caller's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Quake III's image lookup (vanilla or ioq3).
    pub q3: Q3Images,
    /// How TGA origin bits are read; `None`: as the format's engine does (ignored by the
    /// Quake engines, honoured by Doom 3).
    pub tga_origin: Option<TgaOrigin>,
}

/// Fills the materials of `scene` (built by an `idmodel-scene` adapter from `model`)
/// with the images `files` holds, as the module docs say; returns the warnings, one line
/// each.
///
/// ```
/// use idmodel_assets::MemFiles;
/// use idmodel_assets::textures::{Format, ModelRef, Options, resolve};
/// use idmodel_scene::{Image, Material, Primitive, Scene};
/// let tri = Primitive {
///     positions: vec![[0.0; 3]; 3],
///     uvs: vec![[0.0; 2]; 3],
///     indices: vec![0, 1, 2],
///     material: Some(0),
///     ..Primitive::default()
/// };
/// let skin = Material::new("models/x/skin.pcx", Some(Image::Uri("models/x/skin.pcx".into())));
/// let mut scene = Scene::still("x", vec![tri], vec![skin]);
/// let model = ModelRef { format: Format::Md2, game_path: "models/x/tris.md2", bytes: &[] };
/// let warnings = resolve(&mut scene, model, &MemFiles::default(), &Options::default());
/// assert_eq!(scene.materials[0].image, None); // never a dangling URI
/// assert!(warnings[0].contains("models/x/skin.pcx"));
/// ```
pub fn resolve(
    scene: &mut Scene,
    model: ModelRef<'_>,
    files: &dyn Files,
    options: &Options,
) -> Vec<String> {
    let used: Vec<bool> = (0..scene.materials.len())
        .map(|i| {
            scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .any(|p| p.material == Some(i))
        })
        .collect();
    for m in &mut scene.materials {
        if matches!(m.image, Some(Image::Uri(_))) {
            m.image = None;
        }
    }
    let origin = options.tga_origin.unwrap_or(match model.format {
        Format::Md5 => TgaOrigin::Honoured,
        _ => TgaOrigin::Ignored,
    });
    let mut loader = Loader::new(files, origin);
    let mut warnings = Vec::new();
    let (loader, out) = (&mut loader, &mut warnings);
    match model.format {
        Format::Mdl => mdl::resolve(scene, model, loader, out),
        Format::Md2 => md2::resolve(wanted(&mut scene.materials, &used), model, loader, out),
        Format::Md3 => md3::resolve(wanted(&mut scene.materials, &used), options.q3, loader, out),
        Format::Md5 => md5::resolve(wanted(&mut scene.materials, &used), model, loader, out),
    }
    warnings.extend(loader.take_warnings());
    let mut seen = std::collections::BTreeSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    warnings
}

/// Game paths compared the engines' way: `\` read as `/`, no leading `/`.
pub(crate) fn game_path(name: &str) -> String {
    name.replace('\\', "/").trim_start_matches('/').to_owned()
}

/// The folder of a game path (`models/a/b.md2` → `models/a`; none → empty).
pub(crate) fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `dir/name`, or `name` when `dir` is empty.
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// `path` without its extension (the part after the last `.` of the last component).
pub(crate) fn strip_ext(path: &str) -> &str {
    let file_start = path.rfind('/').map_or(0, |i| i.saturating_add(1));
    match path.get(file_start..).and_then(|f| f.rfind('.')) {
        Some(dot) => path.get(..file_start.saturating_add(dot)).unwrap_or(path),
        None => path,
    }
}

/// The extension of `path`'s last component, lower-cased (`""` for none).
pub(crate) fn ext_of(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.')
        .map_or(String::new(), |(_, e)| e.to_ascii_lowercase())
}

/// The materials a format's resolution fills: those some primitive uses, with a name.
pub(crate) type Wanted<'s> = Box<dyn Iterator<Item = &'s mut Material> + 's>;

/// The [`Wanted`] materials of `materials`, `used[i]` saying whether a primitive uses
/// material `i`.
fn wanted<'s>(materials: &'s mut [Material], used: &'s [bool]) -> Wanted<'s> {
    Box::new(
        materials
            .iter_mut()
            .zip(used)
            .filter(|(m, used)| **used && !m.name.is_empty())
            .map(|(m, _)| m),
    )
}

/// `image` with the 8-bit channel `channel` (0 red … 3 alpha) of every texel inverted;
/// PNG/JPEG files are decoded first. `None` when an encoded file does not decode.
pub(crate) fn invert_channel(image: Image, channel: usize) -> Option<Image> {
    match images::decoded(&image).ok()? {
        Image::Rgba8 {
            width,
            height,
            mut pixels,
        } => {
            for px in pixels.chunks_exact_mut(4) {
                if let Some(c) = px.get_mut(channel) {
                    *c = 255u8.saturating_sub(*c);
                }
            }
            Some(Image::Rgba8 {
                width,
                height,
                pixels,
            })
        }
        Image::Indexed8 {
            width,
            height,
            mut palette,
            indices,
        } => {
            // Each texel's colour is its entry's: inverting the entries inverts them all.
            for c in palette.iter_mut() {
                if let Some(c) = c.get_mut(channel) {
                    *c = 255u8.saturating_sub(*c);
                }
            }
            Some(Image::Indexed8 {
                width,
                height,
                palette,
                indices,
            })
        }
        other => Some(other),
    }
}

/// The warning for a texture not found.
pub(crate) fn not_found(what: &str, name: &str, tried: &[String]) -> String {
    let mut unique: Vec<String> = Vec::new();
    for t in tried {
        if !unique.iter().any(|u| u.eq_ignore_ascii_case(t)) {
            unique.push(t.clone());
        }
    }
    let tried = unique;
    if tried.is_empty() {
        format!("texture not found: {what} {name:?} (no path to try)")
    } else {
        format!(
            "texture not found: {what} {name:?}; tried {}",
            tried.join(", ")
        )
    }
}

// Tests may index, unwrap and panic: a panic is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::unreachable)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverting_a_channel_of_indices_inverts_the_colours_they_show() {
        let mut palette = Box::new([[0u8, 0, 0, 255]; 256]);
        palette[1] = [10, 20, 30, 40];
        palette[2] = [200, 100, 50, 255];
        let indexed = Image::Indexed8 {
            width: 3,
            height: 1,
            palette,
            indices: vec![1, 2, 1],
        };
        for channel in 0..4 {
            let direct = invert_channel(indexed.clone(), channel).unwrap();
            let through_rgba = invert_channel(indexed.clone().to_rgba8(), channel).unwrap();
            assert!(matches!(direct, Image::Indexed8 { .. }), "stays indices");
            assert_eq!(direct.to_rgba8(), through_rgba, "channel {channel}");
        }
        let alpha = invert_channel(indexed, 3).unwrap().to_rgba8();
        let Image::Rgba8 { pixels, .. } = alpha else {
            unreachable!()
        };
        assert_eq!(&pixels[..8], &[10, 20, 30, 215, 200, 100, 50, 0]);
    }
}
