//! md5mesh shaders (docs/game-data.md §4), in this order for each material:
//!
//! 1. **Cube 2**: `md5skin MESH DIFFUSE [MASKS]` and `md5bumpmap MESH NORMAL` lines of the
//!    `md5.cfg` beside the model (`MESH` is the mesh's `// meshes:` name or its shader,
//!    `*` any; images relative to the model's folder, `<dds>`-style prefixes dropped).
//! 2. **A shader that is an image file name** (`guard1_body.png` in Bob, Unvanquished):
//!    from the root, then beside the model (where those games keep them).
//! 3. **Doom 3 `materials/*.mtr`** declarations (first definition wins): `diffusemap` or
//!    the first `blend diffusemap` stage, else `qer_editorimage`; `bumpmap` as the normal
//!    map with the **green channel inverted** (§4.6); `alphaTest v` → MASK just above `v`;
//!    `translucent` → BLEND; `twoSided`; `clamp`. Image programs: the innermost first
//!    image (`heightmap` alone gives no normal map).
//! 4. **Quake III scripts** (`scripts/*.shader`, the Unvanquished engine's), as for MD3.
//! 5. **The implicit material**: the image named like the material (`.tga`, then `.jpg`,
//!    then the other types), which Doom 3 draws blended and clamped.

use idmodel_scene::{AlphaMode, Image, Material, Wrap};

use super::md3::{Scripts, image_candidates, lookup_name, tga_then_jpg};
use super::{
    Loader, ModelRef, Q3Images, Wanted, ext_of, folder, game_path, invert_channel, join, not_found,
};

pub(super) fn resolve(
    materials: Wanted<'_>,
    model: ModelRef<'_>,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    let dir = folder(model.game_path).to_owned();
    let cfg = cube2_lines(loader, &dir);
    // The `// meshes:` names only matter to a cfg's lines (a scan of the whole text).
    let names = if cfg.is_empty() {
        Vec::new()
    } else {
        mesh_names(model.bytes)
    };
    let mtr = Decls::load(loader);
    let scripts = Scripts::load(loader);
    for m in materials {
        let mut tried: Vec<String> = Vec::new();
        // 1. Cube 2.
        let aliases: Vec<&str> = names
            .iter()
            .filter(|(shader, _)| *shader == m.name)
            .map(|(_, n)| n.as_str())
            .chain([m.name.as_str()])
            .collect();
        let skin = |key: &str| {
            cfg.iter().find(|(cmd, mesh, _)| {
                cmd == key && (mesh == "*" || aliases.iter().any(|a| a.eq_ignore_ascii_case(mesh)))
            })
        };
        if let Some((_, _, tex)) = skin("md5skin") {
            let path = join(&dir, tex);
            if let Some(l) = loader.load(&path) {
                m.image = Some(l.image);
                if let Some((_, _, nm)) = skin("md5bumpmap") {
                    m.normal = loader.load(&join(&dir, nm)).map(|l| l.image);
                }
                continue;
            }
            tried.push(path);
        }
        // 2. An image file name.
        let name = game_path(&m.name);
        if matches!(
            ext_of(&name).as_str(),
            "png" | "jpg" | "jpeg" | "tga" | "pcx"
        ) {
            let file = name.rsplit('/').next().unwrap_or(&name);
            let beside = join(&dir, file);
            if let Some(l) = loader.load(&name) {
                m.image = Some(l.image);
                continue;
            }
            tried.push(name.clone());
            if beside != name {
                if let Some(l) = loader.load(&beside) {
                    m.image = Some(l.image);
                    continue;
                }
                tried.push(beside);
            }
        }
        // 3. Doom 3 materials.
        let canonical = canonical(&m.name);
        if let Some((decl, file)) = mtr.find(&canonical) {
            apply_decl(m, &decl, file, loader, warnings);
            continue;
        }
        // 4. Quake III scripts (Unvanquished).
        if let Some((facts, script)) = scripts.find(&lookup_name(&m.name, Q3Images::Ioq3)) {
            m.double_sided = facts.double_sided;
            m.alpha = facts.alpha;
            if facts.clamp {
                m.wrap = Wrap::Clamp;
            }
            if let Some(image) = facts.image {
                let c = image_candidates(&image, Q3Images::Ioq3);
                let what = format!("md5 shader {:?} ({script}) image", m.name);
                if let Some(l) = loader.first_or_warn(&c, warnings, (&what, &image)) {
                    m.image = Some(l.image);
                }
            } else {
                warnings.push(format!(
                    "texture not found: md5 shader {:?} ({script}) has no stage with an image file",
                    m.name
                ));
            }
            continue;
        }
        // 5. The implicit material.
        let c = image_candidates(&canonical, Q3Images::Ioq3);
        match loader.first(&c) {
            Some(l) => {
                m.image = Some(l.image);
                m.alpha = AlphaMode::Blend;
                m.wrap = Wrap::Clamp;
            }
            None => {
                tried.extend(c);
                warnings.push(not_found("md5 shader", &m.name, &tried));
            }
        }
    }
}

/// Doom 3's canonical material name (`MakeNameCanonical`): `\` as `/`, lower case,
/// everything from the last `.` removed.
pub(super) fn canonical(name: &str) -> String {
    let n = name.replace('\\', "/").to_ascii_lowercase();
    match n.rfind('.') {
        Some(dot) => n.get(..dot).unwrap_or(&n).to_owned(),
        None => n,
    }
}

/// `(shader, // meshes: name)` of each mesh block of an md5mesh text.
fn mesh_names(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for block in text.split("mesh {").skip(1) {
        let block = block.split('}').next().unwrap_or("");
        let mut shader = None;
        let mut name = None;
        for line in block.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("// meshes:") {
                name = Some(rest.trim().to_owned());
            } else if let Some(rest) = line.strip_prefix("shader") {
                shader = Some(rest.trim().trim_matches('"').to_owned());
            }
        }
        if let (Some(s), Some(n)) = (shader, name) {
            out.push((s, n));
        }
    }
    out
}

/// The `md5skin`/`md5bumpmap` lines (and md3's) of the `md5.cfg` or `md3.cfg` in `dir`,
/// read with `idmodel_md5::cube2`: `(command, mesh, image)`, the image without its
/// `<…>` load commands.
fn cube2_lines(loader: &mut Loader<'_>, dir: &str) -> Vec<(String, String, String)> {
    use idmodel_md5::cube2::{Cfg, Command, Word, texture_file};
    let text =
        |w: &Word<'_>| String::from_utf8_lossy(&w.unescaped().collect::<Vec<u8>>()).into_owned();
    let mut out = Vec::new();
    for cfg in ["md5.cfg", "md3.cfg"] {
        let path = join(dir, cfg);
        let Ok(Some(bytes)) = loader.files().read(&path) else {
            continue;
        };
        for command in Cfg::new(&bytes).commands().map_while(Result::ok) {
            match command {
                Command::Skin { mesh, diffuse, .. } => out.push((
                    "md5skin".to_owned(),
                    text(&mesh),
                    String::from_utf8_lossy(texture_file(text(&diffuse).as_bytes())).into_owned(),
                )),
                Command::Bumpmap { mesh, normal, .. } => out.push((
                    "md5bumpmap".to_owned(),
                    text(&mesh),
                    String::from_utf8_lossy(texture_file(text(&normal).as_bytes())).into_owned(),
                )),
                _ => {}
            }
        }
    }
    out
}

/// What a material takes from a Doom 3 declaration.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Decl {
    pub diffuse: Option<String>,
    pub bump: Option<String>,
    pub editor: Option<String>,
    pub alpha_test: Option<f32>,
    pub translucent: bool,
    pub two_sided: bool,
    pub clamp: bool,
}

/// Every `materials/*.mtr` file's text, in the order decls are registered.
struct Decls {
    texts: Vec<(String, Vec<u8>)>,
}

impl Decls {
    fn load(loader: &mut Loader<'_>) -> Self {
        let files = loader.files();
        let mut list = files.list("materials", ".mtr");
        list.sort_by_key(|p| p.to_ascii_lowercase());
        let mut texts = Vec::new();
        for path in list {
            match files.read(&path) {
                Ok(Some(b)) => texts.push((path, b)),
                Ok(None) => {}
                Err(e) => loader.warn(e),
            }
        }
        Self { texts }
    }

    /// The first declaration of `name` (canonical).
    fn find(&self, name: &str) -> Option<(Decl, &str)> {
        self.texts
            .iter()
            .find_map(|(p, t)| Some((mtr::decl(t, name)?, p.as_str())))
    }
}

fn apply_decl(
    m: &mut Material,
    decl: &Decl,
    file: &str,
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    m.double_sided = decl.two_sided;
    if decl.clamp {
        m.wrap = Wrap::Clamp;
    }
    if let Some(v) = decl.alpha_test {
        // Doom 3 keeps alpha > v; glTF keeps alpha ≥ cutoff: just above v in 8 bits.
        let steps = (v.clamp(0.0, 1.0) * 255.0).floor();
        m.alpha = AlphaMode::Mask((steps + 0.5) / 255.0);
    } else if decl.translucent {
        m.alpha = AlphaMode::Blend;
    }
    let image = decl.diffuse.as_ref().or(decl.editor.as_ref());
    match image {
        Some(img) => {
            let c = doom_candidates(img);
            let what = format!("material {:?} ({file}) diffuse image", m.name);
            if let Some(l) = loader.first_or_warn(&c, warnings, (&what, img)) {
                m.image = Some(l.image);
            }
        }
        None => warnings.push(format!(
            "texture not found: material {:?} ({file}) has no diffuse image",
            m.name
        )),
    }
    if let Some(bump) = &decl.bump {
        let c = doom_candidates(bump);
        let what = format!("material {:?} ({file}) bump map", m.name);
        if let Some(l) = loader.first_or_warn(&c, warnings, (&what, bump)) {
            m.normal = flip_green(l.image);
        }
    }
}

/// Doom 3's image lookup (`R_LoadImage`): `.tga` appended when there is no extension;
/// a `.tga` missing is retried as `.jpg`; lower case.
fn doom_candidates(name: &str) -> Vec<String> {
    tga_then_jpg(game_path(name).to_ascii_lowercase())
}

/// A Doom 3 normal map in glTF's convention: green inverted (docs/game-data.md §4.6).
/// PNG/JPEG files are decoded for it; `None` when one does not decode.
pub(super) fn flip_green(image: Image) -> Option<Image> {
    invert_channel(image, 1)
}

/// Doom 3 declarations read with [`crate::textures::mtr`] (idLexer tokens, Doom's
/// grammar and image programs), turned into [`Decl`].
pub(super) mod mtr {
    use super::Decl;
    use crate::textures::mtr::{AlphaTest, ImageProgram, MaterialText, Node, Op};

    /// The file image of a program: the innermost first image, `None` for a generated
    /// image (`_white`, `_flat`, …) or, with `bump`, a bare `heightmap` (a height image,
    /// not a normal map).
    fn image(p: &ImageProgram<'_>, bump: bool) -> Option<String> {
        if p.is_generated() {
            return None;
        }
        if bump
            && matches!(
                p.node(),
                Node::Call {
                    op: Op::Heightmap,
                    ..
                }
            )
        {
            return None;
        }
        let i = p.first_image();
        (!i.is_empty() && i.first() != Some(&b'_')).then(|| String::from_utf8_lossy(i).into_owned())
    }

    /// The declaration of material `name` (canonical) in `text`, the first one.
    pub fn decl(text: &[u8], name: &str) -> Option<Decl> {
        let d = MaterialText::new(text).find(name.as_bytes())?;
        let m = d.material().ok()?;
        let g = m.gltf();
        Some(Decl {
            diffuse: g
                .base_color
                .filter(|_| !g.from_editor_image)
                .and_then(|p| image(&p, false)),
            bump: g.normal.and_then(|p| image(&p, true)),
            editor: m.editor_image.and_then(|p| image(&p, false)),
            alpha_test: m.stages().find_map(|s| match s.alpha_test {
                Some(AlphaTest::Constant(v)) => Some(v),
                Some(AlphaTest::Expression(_)) => Some(0.5),
                None => None,
            }),
            translucent: m.translucent,
            two_sided: g.double_sided,
            clamp: g.clamp,
        })
    }

    // Tests may index and unwrap: a panic is a failed assertion.
    #[allow(clippy::unwrap_used)]
    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn shorthand_stages_programs_and_keywords() {
            let text = br#"
table foo { { 0, 1 } }
// a comment
models/monsters/imp/imp
{
    qer_editorimage models/monsters/imp/imp_d.tga
    twoSided
    diffusemap models/monsters/imp/imp_d.tga
    bumpmap addnormals( models/monsters/imp/imp_local.tga, heightmap( models/monsters/imp/imp_h.tga, 4 ) )
    { blend specularmap map models/monsters/imp/imp_s.tga }
}
material models/x/glass { translucent { blend diffusemap map models/x/glass.tga alphaTest 0.5 } bumpmap heightmap(models/x/h.tga, 2) }
"#;
            let d = decl(text, "models/monsters/imp/imp").unwrap();
            assert_eq!(d.diffuse.as_deref(), Some("models/monsters/imp/imp_d.tga"));
            assert_eq!(d.bump.as_deref(), Some("models/monsters/imp/imp_local.tga"));
            assert!(d.two_sided && !d.translucent);
            let g = decl(text, "models/x/glass").unwrap();
            assert_eq!(g.diffuse.as_deref(), Some("models/x/glass.tga"));
            assert_eq!(g.alpha_test, Some(0.5));
            assert_eq!(g.bump, None, "a bare heightmap is no normal map");
            assert!(g.translucent);
            assert_eq!(decl(text, "foo"), None, "a table is no material");
            assert_eq!(decl(text, "models/none"), None);
        }
    }
}
