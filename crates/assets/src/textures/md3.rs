//! Quake III MD3 shaders (docs/game-data.md §3): the shader a surface is drawn with (the
//! `.skin` entry the scene adapter already chose, else the surface's own) is looked up in
//! the `scripts/*.shader` files; its base stage (§3.9) gives the image, clamping, the
//! alpha mode and culling. A name no script defines is an implicit shader: the image of
//! that name with the engine's extension fallback ([`Q3Images`]), opaque and
//! single-sided.

use idmodel_scene::{AlphaMode, Image, Wrap};

use super::{Loader, Q3Images, Wanted, ext_of, game_path, invert_channel, strip_ext};

/// The extensions ioq3's renderergl1 tries, in order (`bmp` and `pvr` are not read here).
pub const IOQ3_EXTENSIONS: [&str; 5] = ["tga", "jpg", "jpeg", "png", "pcx"];

/// What a material takes from a shader definition.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Facts {
    /// The base-colour image (a game path), if any.
    pub image: Option<String>,
    /// `clampMap`.
    pub clamp: bool,
    /// The glTF alpha mode.
    pub alpha: AlphaMode,
    /// `alphaFunc LT128`: the texture's alpha is inverted for `MASK` 0.5.
    pub invert_alpha: bool,
    /// `cull none`/`twosided`/`disable`.
    pub double_sided: bool,
    /// The base stage's blend has no glTF form.
    pub approximate: bool,
}

/// The paths Quake III 1.32 and Doom 3 try for the image `name` (a game path): `.tga`
/// appended when it has no extension, and a `.tga` retried as `.jpg`.
pub(super) fn tga_then_jpg(name: String) -> Vec<String> {
    let name = if ext_of(&name).is_empty() {
        format!("{name}.tga")
    } else {
        name
    };
    if ext_of(&name) == "tga" {
        vec![name.clone(), format!("{}.jpg", strip_ext(&name))]
    } else {
        vec![name]
    }
}

/// The image paths tried for the image `name` (a shader's `map` or an implicit shader's
/// name), in the engine's order.
pub(super) fn image_candidates(name: &str, flavour: Q3Images) -> Vec<String> {
    let name = game_path(name);
    let ext = ext_of(&name);
    match flavour {
        Q3Images::Vanilla => tga_then_jpg(name),
        Q3Images::Ioq3 => {
            let known = IOQ3_EXTENSIONS.contains(&ext.as_str());
            let base = if known {
                strip_ext(&name)
            } else {
                name.as_str()
            };
            let mut out = Vec::new();
            if known {
                out.push(name.clone());
            }
            out.extend(
                IOQ3_EXTENSIONS
                    .iter()
                    .filter(|e| !(known && **e == ext))
                    .map(|e| format!("{base}.{e}")),
            );
            out
        }
    }
}

/// The name a shader is looked up by: `\` as `/`, the extension stripped (ioq3: after
/// the last `.` of the last component; vanilla: at the first `.`).
pub(super) fn lookup_name(name: &str, flavour: Q3Images) -> String {
    let name = game_path(name);
    match flavour {
        Q3Images::Ioq3 => strip_ext(&name).to_owned(),
        Q3Images::Vanilla => name.split('.').next().unwrap_or("").to_owned(),
    }
}

/// The shader scripts, loaded once, in the order definitions are searched (ioq3: the
/// file listed last first, docs/game-data.md §3.3).
pub(super) struct Scripts {
    texts: Vec<(String, Vec<u8>)>,
}

impl Scripts {
    pub(super) fn load(loader: &mut Loader<'_>) -> Self {
        let files = loader.files();
        let mut texts = Vec::new();
        for path in files.list("scripts", ".shader").into_iter().rev() {
            match files.read(&path) {
                Ok(Some(b)) => texts.push((path, b)),
                Ok(None) => {}
                Err(e) => loader.warn(e),
            }
        }
        Self { texts }
    }

    /// The facts of shader `name` (already stripped) from the first script defining it.
    pub(super) fn find(&self, name: &str) -> Option<(Facts, &str)> {
        self.texts
            .iter()
            .find_map(|(path, text)| Some((shader::facts(text, name)?, path.as_str())))
    }
}

pub(super) fn resolve(
    materials: Wanted<'_>,
    flavour: Q3Images,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    let scripts = Scripts::load(loader);
    for m in materials {
        let key = lookup_name(&m.name, flavour);
        match scripts.find(&key) {
            Some((facts, script)) => {
                m.double_sided = facts.double_sided;
                m.wrap = if facts.clamp {
                    Wrap::Clamp
                } else {
                    Wrap::Repeat
                };
                m.alpha = facts.alpha;
                if facts.approximate {
                    warnings.push(format!(
                        "shader {key:?} ({script}): its base stage's blendFunc has no glTF form; written as {}",
                        if m.alpha == AlphaMode::Blend { "BLEND" } else { "OPAQUE" }
                    ));
                }
                let Some(image) = facts.image else {
                    warnings.push(format!(
                        "texture not found: shader {key:?} ({script}) has no stage with an image file"
                    ));
                    continue;
                };
                let tried = image_candidates(&image, flavour);
                let what = format!("shader {key:?} ({script}) image");
                if let Some(l) = loader.first_or_warn(&tried, warnings, (&what, &image)) {
                    m.image = if facts.invert_alpha {
                        invert_alpha(l.image)
                    } else {
                        Some(l.image)
                    };
                }
            }
            None => {
                let tried = image_candidates(&m.name, flavour);
                let what = "MD3 shader (no script defines it; implicit image)";
                if let Some(l) = loader.first_or_warn(&tried, warnings, (what, &m.name)) {
                    m.image = Some(l.image);
                }
            }
        }
    }
}

/// The image with its alpha inverted (for `alphaFunc LT128` as `MASK` 0.5); PNG/JPEG
/// files are decoded first. `None` when an encoded file does not decode.
fn invert_alpha(image: Image) -> Option<Image> {
    invert_channel(image, 3)
}

/// Shader definitions read with `idmodel_md3::shader` (the engine's tokenizer and
/// `ParseShader` rules), turned into [`Facts`].
pub(super) mod shader {
    use super::Facts;
    use idmodel_md3::shader::{AlphaMode as Q3Alpha, ShaderText};
    use idmodel_scene::AlphaMode;

    /// The facts of the shader named `name` (case-insensitive, already stripped) in
    /// `text`, or `None` when `text` does not define it (or its definition does not
    /// read).
    pub fn facts(text: &[u8], name: &str) -> Option<Facts> {
        let def = ShaderText::new(text).find(name.as_bytes())?;
        let shader = def.parse().ok()?;
        let g = shader.gltf();
        Some(Facts {
            image: g.image.map(|i| String::from_utf8_lossy(i).into_owned()),
            clamp: g.clamp,
            alpha: match g.alpha {
                Q3Alpha::Opaque => AlphaMode::Opaque,
                Q3Alpha::Mask { cutoff } => AlphaMode::Mask(cutoff),
                Q3Alpha::Blend => AlphaMode::Blend,
            },
            invert_alpha: g.invert_alpha,
            double_sided: g.double_sided,
            approximate: g.approximate,
        })
    }

    // Tests may index and unwrap: a panic is a failed assertion.
    #[allow(clippy::indexing_slicing, clippy::unwrap_used)]
    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn base_stage_alpha_and_cull() {
            let text = b"// c\nmodels/a/hair\n{\n cull disable\n {\n  map $lightmap\n }\n {\n  map models/a/hair.tga\n  alphaFunc GE128\n }\n}\nmodels/a/glass { { clampmap models/a/g.tga\n blendfunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA } }\nmodels/a/add { { map x.tga\n blendfunc add } }\n";
            let f = facts(text, "models/a/hair").unwrap();
            assert_eq!(f.image.as_deref(), Some("models/a/hair.tga"));
            assert_eq!(f.alpha, AlphaMode::Mask(0.5));
            assert!(f.double_sided && !f.clamp);
            let g = facts(text, "MODELS/A/GLASS").unwrap();
            assert_eq!(
                (g.alpha, g.clamp, g.double_sided),
                (AlphaMode::Blend, true, false)
            );
            let a = facts(text, "models/a/add").unwrap();
            assert!(a.approximate);
            assert_eq!(facts(text, "models/a/none"), None);
        }
    }
}
