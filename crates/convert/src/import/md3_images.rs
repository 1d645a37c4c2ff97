//! glTF → MD3 textures: a material's embedded image is written beside the MD3 and the
//! surface's shader names it by its game path, so the game finds it. Quake III resolves a
//! shader without a script by loading the image of that name (ioquake3's
//! `R_FindImageFile` also tries the other image extensions), so the shader is the image's
//! path below the game root with its extension (`models/thing/thing_skin.png`, at most
//! 63 bytes: `MAX_QPATH`).
//!
//! Only for a scene made elsewhere: a scene this library made from an MD3 carries its
//! shaders in its extras, and they already name the game's textures. Nor with
//! `--shader-prefix`, which says the user keeps the textures somewhere of their own.
//! Images go as PNG (ioquake3 loads PNG; the encoder is the glTF exporter's), JPEG and
//! PNG files embedded as they are; for Quake III 1.32, which reads TGA and JPEG only, as
//! TGA (JPEG as it is). An image that is only a URI stays where it is.

use std::path::{Path, PathBuf};

use idmodel_assets::root::split_root;
use idmodel_scene::{Image, Mime, Scene};

/// The longest shader name an MD3 holds (`MAX_QPATH` less its NUL).
const MAX_SHADER: usize = 63;

/// Writes each embedded image of `scene`'s materials as a file beside `output` and names
/// the material after the file's game path (the shader [`idmodel_scene::md3::to_bytes`]
/// writes); the files to write with the MD3. Warnings for images it could not write.
pub(crate) fn textures_beside(
    output: &Path,
    scene: &mut Scene,
    tga: bool,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, Vec<u8>)> {
    if scene.extras.get("md3.surfaces").is_some() {
        return Vec::new();
    }
    let (_, game) = split_root(output);
    let stem = output
        .file_stem()
        .map_or_else(|| "model".to_owned(), |s| s.to_string_lossy().into_owned());
    let folder = match game.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/"),
        None => String::new(),
    };
    // Only the materials a surface is drawn with (an MDL's other skins are not).
    let used: Vec<usize> = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter_map(|p| p.material)
        .collect();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for (i, material) in scene.materials.iter_mut().enumerate() {
        let Some(image) = material.image.as_ref().filter(|_| used.contains(&i)) else {
            continue;
        };
        if matches!(image, Image::Uri(_)) {
            continue;
        }
        let encoded = match image {
            Image::Encoded {
                mime: Mime::Jpeg,
                bytes,
            } => Ok((bytes.clone(), Some(Mime::Jpeg))),
            _ if tga => idmodel_assets::images::decoded(image).and_then(|i| match i {
                Image::Rgba8 {
                    width,
                    height,
                    pixels,
                } => idmodel_assets::images::tga_encode(width, height, &pixels).map(|b| (b, None)),
                _ => Err("not decodable".to_owned()),
            }),
            Image::Encoded { mime, bytes } => Ok((bytes.clone(), Some(*mime))),
            Image::Rgba8 {
                width,
                height,
                pixels,
            } => idmodel_gltf::png_rgba8(*width, *height, pixels)
                .map(|b| (b, Some(Mime::Png)))
                .map_err(|e| e.to_string()),
            Image::Indexed8 {
                width,
                height,
                palette,
                indices,
            } => idmodel_gltf::png_indexed8(*width, *height, palette, indices)
                .map(|b| (b, Some(Mime::Png)))
                .map_err(|e| e.to_string()),
            _ => continue,
        };
        let (bytes, mime) = match encoded {
            Ok(e) => e,
            Err(e) => {
                warnings.push(format!(
                    "warning: material {:?}: its image is not written: {e}",
                    material.name
                ));
                continue;
            }
        };
        let ext = match mime {
            Some(Mime::Jpeg) => "jpg",
            Some(Mime::Png) => "png",
            None => "tga",
        };
        let mut name = format!("{stem}_{}", file_part(&material.name, i));
        // Two materials whose names read the same get distinct files.
        while files
            .iter()
            .any(|(p, _)| p.file_stem().is_some_and(|s| *s == *name))
        {
            name.push('_');
        }
        let shader = format!("{folder}{name}.{ext}");
        if shader.len() > MAX_SHADER {
            warnings.push(format!(
                "warning: material {:?}: the shader {shader:?} is longer than an MD3 holds ({MAX_SHADER} bytes); its image is not written",
                material.name
            ));
            continue;
        }
        files.push((output.with_file_name(format!("{name}.{ext}")), bytes));
        material.name = shader;
    }
    files
}

/// A material's name as a file name part: lower-case ASCII letters, digits, `_` and `-`
/// (others become `_`), else the material's number.
fn file_part(name: &str, index: usize) -> String {
    let part: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let part = part.trim_matches('_');
    if part.is_empty() {
        index.to_string()
    } else {
        part.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idmodel_scene::Material;

    fn material(name: &str, image: Option<Image>) -> Material {
        Material::new(name, image)
    }

    /// A mesh with one (empty) primitive per material of `materials`.
    fn drawn_with(materials: &[usize]) -> idmodel_scene::Mesh {
        idmodel_scene::Mesh {
            name: "m".into(),
            primitives: materials
                .iter()
                .map(|&m| idmodel_scene::Primitive {
                    material: Some(m),
                    ..idmodel_scene::Primitive::default()
                })
                .collect(),
            ..idmodel_scene::Mesh::default()
        }
    }

    #[test]
    fn only_the_materials_a_surface_uses_are_written() {
        let image = Image::Rgba8 {
            width: 1,
            height: 1,
            pixels: vec![0; 4],
        };
        let mut scene = Scene {
            meshes: vec![drawn_with(&[1])],
            materials: vec![
                material("skin_0", Some(image.clone())),
                material("skin_1", Some(image)),
            ],
            ..Scene::default()
        };
        let files = textures_beside(Path::new("m.md3"), &mut scene, false, &mut Vec::new());
        assert_eq!(files.len(), 1);
        assert_eq!(scene.materials[0].name, "skin_0");
        assert_eq!(scene.materials[1].name, "m_skin_1.png");
    }

    #[test]
    fn embedded_images_are_written_and_named_by_their_game_path() {
        let red = Image::Rgba8 {
            width: 1,
            height: 1,
            pixels: vec![255, 0, 0, 255],
        };
        let jpeg = Image::Encoded {
            mime: Mime::Jpeg,
            bytes: vec![0xFF, 0xD8, 0xFF],
        };
        let mut scene = Scene {
            meshes: vec![drawn_with(&[0, 1, 2, 3])],
            materials: vec![
                material("Body Skin.001", Some(red.clone())),
                material("", Some(jpeg)),
                material("body skin 001", Some(red)),
                material("plain", None),
            ],
            ..Scene::default()
        };
        let mut warnings = Vec::new();
        let out = Path::new("/g/baseq3/models/thing/thing.md3");
        let files = textures_beside(out, &mut scene, false, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let names: Vec<&str> = scene.materials.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "models/thing/thing_body_skin_001.png",
                "models/thing/thing_1.jpg",
                "models/thing/thing_body_skin_001_.png",
                "plain"
            ]
        );
        let paths: Vec<_> = files.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/g/baseq3/models/thing/thing_body_skin_001.png"),
                PathBuf::from("/g/baseq3/models/thing/thing_1.jpg"),
                PathBuf::from("/g/baseq3/models/thing/thing_body_skin_001_.png"),
            ]
        );
        assert_eq!(&files[0].1[1..4], b"PNG");
        assert_eq!(files[1].1, [0xFF, 0xD8, 0xFF]);
    }

    #[test]
    fn for_quake_3_the_images_are_tga_and_jpeg() {
        let mut scene = Scene {
            meshes: vec![drawn_with(&[0, 1])],
            materials: vec![
                material(
                    "skin",
                    Some(Image::Rgba8 {
                        width: 1,
                        height: 2,
                        pixels: vec![1, 2, 3, 255, 4, 5, 6, 255],
                    }),
                ),
                material(
                    "photo",
                    Some(Image::Encoded {
                        mime: Mime::Jpeg,
                        bytes: vec![0xFF, 0xD8, 0xFF],
                    }),
                ),
            ],
            ..Scene::default()
        };
        let files = textures_beside(Path::new("m.md3"), &mut scene, true, &mut Vec::new());
        assert_eq!(scene.materials[0].name, "m_skin.tga");
        assert_eq!(scene.materials[1].name, "m_photo.jpg");
        let (tga, _) =
            idmodel_assets::images::tga(&files[0].1, idmodel_assets::images::TgaOrigin::Ignored)
                .unwrap();
        assert_eq!(tga.pixels, [1, 2, 3, 255, 4, 5, 6, 255]);
    }

    #[test]
    fn a_scene_from_an_md3_keeps_its_shaders() {
        let mut scene = Scene {
            materials: vec![material(
                "models/x/skin.tga",
                Some(Image::Rgba8 {
                    width: 1,
                    height: 1,
                    pixels: vec![0; 4],
                }),
            )],
            ..Scene::default()
        };
        scene
            .extras
            .set("md3.surfaces", idmodel_scene::Value::List(Vec::new()));
        let files = textures_beside(Path::new("x.md3"), &mut scene, false, &mut Vec::new());
        assert!(files.is_empty());
        assert_eq!(scene.materials[0].name, "models/x/skin.tga");
    }
}
