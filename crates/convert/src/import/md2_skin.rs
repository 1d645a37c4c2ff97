//! glTF → MD2 skins: the material's image written as an 8-bit PCX in Quake II's palette
//! beside the MD2 (`model.md2` → `model.pcx`, referenced by its game path: the output's
//! path below its game root, `models/x/model.pcx`), or a name given with `--skin-name`.
//!
//! The palette is `--palette FILE` (a PCX such as `pics/colormap.pcx`, or 768 bytes of
//! RGB), else `pics/colormap.pcx` of the output's game root. idmodel ships no Quake II
//! palette (it is game data), so without one the skin is referenced by the material's
//! name, with a warning. The colour metric is the MDL quantiser's redmean
//! (`idmodel_assets::images::quantise_quake2`); index 255, which Quake II draws
//! transparent, only for texels with alpha below half of a masked material. A model
//! rebuilt from its own extras (an unedited round trip) keeps its own skin names, and then
//! no PCX is written. A skin taller than Quake II's 480 texels is scaled down with its
//! aspect, as the MD2's header says (`idmodel_scene::back::md2_skin_size`).

use std::path::{Path, PathBuf};

use crate::idmodel::md2::Md2;
use idmodel_assets::images::{palette_file, pcx_encode, quantise_quake2};
use idmodel_assets::root::split_root;
use idmodel_scene::back::{BackOptions, MAX_SKIN_HEIGHT, md2_skin_size, resample_nearest};
use idmodel_scene::{AlphaMode, Error, Scene};

use super::{ImportArgs, Made};
use crate::failure::line;

/// The largest palette file read (a PCX of Quake II's 640×480 with its palette is far
/// smaller).
const MAX_PALETTE_FILE: u64 = 1 << 22;

/// The image of the material the MD2 is skinned with (the first primitive's, else the
/// first material's): RGBA, width, height and whether it is alpha-masked.
fn skin_image(scene: &Scene) -> Option<(std::borrow::Cow<'_, [u8]>, u32, u32, bool)> {
    let material = scene
        .meshes
        .first()
        .and_then(|m| m.primitives.first())
        .and_then(|p| p.material)
        .and_then(|m| scene.materials.get(m))
        .or(scene.materials.first())?;
    let image = material.image.as_ref()?;
    let (width, height) = image.pixel_size()?;
    Some((
        image.rgba8_pixels()?,
        width,
        height,
        matches!(material.alpha, AlphaMode::Mask(_)),
    ))
}

/// Quake II's palette: `--palette`, else the output's game root's `pics/colormap.pcx`
/// (`Ok(None)` when there is none).
fn palette(args: &ImportArgs<'_>) -> Result<Option<Box<[[u8; 3]; 256]>>, String> {
    let (path, named) = match args.palette {
        Some(p) => (p.to_owned(), true),
        None => (split_root(args.output).0.join("pics/colormap.pcx"), false),
    };
    match crate::read::read_regular(&path, MAX_PALETTE_FILE) {
        Ok(bytes) => palette_file(&bytes).map(Some).map_err(|e| line(&path, e)),
        Err(f) if named => Err(line(&path, f)),
        Err(_) => Ok(None),
    }
}

/// The game path the MD2 references its PCX skin by, and where the PCX is written.
fn pcx_names(output: &Path) -> (String, PathBuf) {
    let (_, game) = split_root(output);
    let reference = match game.rsplit_once('.') {
        Some((stem, _)) if !stem.ends_with('/') => format!("{stem}.pcx"),
        _ => format!("{game}.pcx"),
    };
    (reference, output.with_extension("pcx"))
}

/// The skin names the written MD2 references.
fn written_skins(out: &idmodel_scene::Result<Vec<u8>>) -> Option<Vec<String>> {
    let md2 = Md2::parse(out.as_ref().ok()?).ok()?;
    Some(
        md2.skins()
            .map(|s| s.to_str().unwrap_or("").to_owned())
            .collect(),
    )
}

/// The skin names the scene's `md2.skins` extras record (a scene made from an MD2).
fn extras_skins(scene: &Scene) -> Option<Vec<String>> {
    let list = scene.extras.get("md2.skins")?.as_list()?;
    list.iter().map(|v| v.as_str().map(str::to_owned)).collect()
}

/// The MD2 of `scene` and its PCX skin (see the module docs).
pub(crate) fn to_bytes(
    args: &ImportArgs<'_>,
    scene: &Scene,
    back: &BackOptions,
    warnings: &mut Vec<String>,
) -> Made {
    let mut back = back.clone();
    if let Some(name) = args.skin_name {
        back.skin_names = Some(vec![name.to_owned()]);
        return (idmodel_scene::md2::to_bytes(scene, &back), None);
    }
    let Some((rgba, width, height, holes)) = skin_image(scene) else {
        return (idmodel_scene::md2::to_bytes(scene, &back), None);
    };
    let palette = match palette(args) {
        Ok(Some(p)) => p,
        Ok(None) => {
            let out = idmodel_scene::md2::to_bytes(scene, &back);
            // A model rebuilt from its own extras keeps its skin names: nothing to warn of.
            if written_skins(&out).is_none_or(|s| Some(s) != extras_skins(scene)) {
                warnings.push(
                    "warning: no Quake II palette (--palette pics/colormap.pcx, or one in the output's game root): the skin is referenced by its material name and no PCX is written".to_owned(),
                );
            }
            return (out, None);
        }
        Err(e) => return (Err(Error::new(e)), None),
    };
    let (reference, path) = pcx_names(args.output);
    back.skin_names = Some(vec![reference.clone()]);
    let out = idmodel_scene::md2::to_bytes(scene, &back);
    let referenced = out
        .as_ref()
        .ok()
        .and_then(|b| Md2::parse(b).ok())
        .is_some_and(|m| m.skins().any(|s| s.to_str() == Some(reference.as_str())));
    if !referenced {
        return (out, None);
    }
    // The size the MD2's header was given (Quake II refuses skins over 480 tall).
    let (w, h) = md2_skin_size(width, height);
    let rgba = if (w, h) == (width, height) {
        rgba
    } else {
        warnings.push(format!(
            "warning: the {width}×{height} skin is written at {w}×{h} (Quake II loads skins at most {MAX_SKIN_HEIGHT} tall)"
        ));
        resample_nearest(&rgba, width, height, w, h).into()
    };
    let image = quantise_quake2(&rgba, w, h, &palette, holes);
    match pcx_encode(&image, &palette) {
        Ok(bytes) => (out, Some((path, bytes))),
        Err(e) => (Err(Error::new(e)), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skin_taller_than_quake_2_loads_is_scaled_with_the_header() {
        let dir = idmodel_test_support::Scratch::new("md2-tall");
        let palette_path = dir.join("palette.lmp");
        let ramp: Vec<u8> = (0..=255u8).flat_map(|i| [i, 255 - i, i / 2]).collect();
        std::fs::write(&palette_path, &ramp).unwrap();
        let model = crate::idmodel::md2::Model {
            gl_commands: false,
            ..crate::idmodel::md2::Model::example()
        };
        let bytes = crate::idmodel::md2::write(&model).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let mut scene =
            idmodel_scene::md2::scene(&md2, "m", &idmodel_scene::Options::default()).unwrap();
        scene.extras = idmodel_scene::Extras::default(); // as if made elsewhere
        let (width, height) = (700, 500);
        let pixels = (0..width * height)
            .flat_map(|i| [(i % 251) as u8, 0, 0, 255])
            .collect();
        scene.materials[0].image = Some(idmodel_scene::Image::Rgba8 {
            width,
            height,
            pixels,
        });
        let output = dir.join("tall.md2");
        let options = crate::Options {
            palette: Some(palette_path),
            ..crate::Options::default()
        };
        let args = ImportArgs::new(Path::new("tall.glb"), &output, &options);
        let mut warnings = Vec::new();
        let (out, side) = to_bytes(&args, &scene, &BackOptions::default(), &mut warnings);
        let out = out.unwrap();
        let written = Md2::parse(&out).unwrap();
        assert_eq!((written.skin_width(), written.skin_height()), (672, 480));
        assert!(written.findings(crate::Engine::Quake2).is_empty());
        let (path, pcx) = side.unwrap();
        assert_eq!(path, output.with_extension("pcx"));
        let (w, h) = (
            u16::from_le_bytes([pcx[8], pcx[9]]),
            u16::from_le_bytes([pcx[10], pcx[11]]),
        );
        assert_eq!((w + 1, h + 1), (672, 480), "the PCX is the header's size");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("700×500 skin is written at 672×480"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_pcx_is_named_by_its_game_path() {
        let (r, p) = pcx_names(Path::new("/g/baseq2/models/monsters/x/tris.md2"));
        assert_eq!(r, "models/monsters/x/tris.pcx");
        assert_eq!(p, Path::new("/g/baseq2/models/monsters/x/tris.pcx"));
        let (r, p) = pcx_names(Path::new("out/thing.md2"));
        assert_eq!(r, "thing.pcx");
        assert_eq!(p, Path::new("out/thing.pcx"));
    }
}
