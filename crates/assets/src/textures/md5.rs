//! md5mesh shaders (ASSETS.md §4), in this order for each material:
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

use idmodel_scene::{AlphaMode, Image, Material, Scene, Wrap};

use super::md3::{Scripts, image_candidates, lookup_name};
use super::{Loader, ModelRef, Q3Images, ext_of, folder, game_path, join, not_found, strip_ext};
use crate::images;

/// Doom 3's generated images that are not files (Image_init.cpp).
const GENERATED: [&str; 8] = [
    "_default",
    "_white",
    "_black",
    "_flat",
    "_ambient",
    "_quadratic",
    "_noFalloff",
    "_fog",
];

pub(super) fn resolve(
    scene: &mut Scene,
    model: ModelRef<'_>,
    used: &[bool],
    loader: &mut Loader<'_>,
    warnings: &mut Vec<String>,
) {
    let dir = folder(model.game_path).to_owned();
    let cfg = cube2_lines(loader, &dir);
    let names = mesh_names(model.bytes);
    let mtr = Decls::load(loader);
    let scripts = Scripts::load(loader);
    for (m, &used) in scene.materials.iter_mut().zip(used) {
        if !used || m.name.is_empty() {
            continue;
        }
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
                match loader.first(&c) {
                    Some(l) => m.image = Some(l.image),
                    None => warnings.push(not_found(
                        &format!("md5 shader {:?} ({script}) image", m.name),
                        &image,
                        &c,
                    )),
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

/// The `md5skin`/`md5bumpmap` lines of the `md5.cfg` (or `md3.cfg`) in `dir`:
/// `(command, mesh, image)`.
fn cube2_lines(loader: &mut Loader<'_>, dir: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for cfg in ["md5.cfg", "md3.cfg"] {
        let path = join(dir, cfg);
        let Ok(Some(bytes)) = loader.files().read(&path) else {
            continue;
        };
        for line in String::from_utf8_lossy(&bytes).lines() {
            let words = cfg_words(line);
            let mut it = words.iter();
            let (Some(cmd), Some(mesh), Some(tex)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let cmd = cmd.to_ascii_lowercase();
            let cmd = match cmd.as_str() {
                "md5skin" | "md3skin" => "md5skin",
                "md5bumpmap" | "md3bumpmap" => "md5bumpmap",
                _ => continue,
            };
            out.push((cmd.to_owned(), mesh.clone(), strip_prefixes(tex)));
        }
    }
    out
}

/// The words of a cubescript line (quoted strings unquoted, `//` comments dropped).
fn cfg_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '/' && line.contains("//") && {
            let mut ahead = chars.clone();
            ahead.next();
            ahead.peek() == Some(&'/')
        } {
            break;
        } else if c == '"' {
            chars.next();
            out.push(chars.by_ref().take_while(|&c| c != '"').collect());
        } else {
            let mut w = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                w.push(c);
                chars.next();
            }
            out.push(w);
        }
    }
    out
}

/// A Cube 2 texture name without its `<cmd>` prefixes (`<dds>a.png` → `a.png`).
fn strip_prefixes(tex: &str) -> String {
    let mut t = tex;
    while let Some(rest) = t.strip_prefix('<') {
        t = rest.split_once('>').map_or("", |(_, r)| r);
    }
    t.to_owned()
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
            match loader.first(&c) {
                Some(l) => m.image = Some(l.image),
                None => warnings.push(not_found(
                    &format!("material {:?} ({file}) diffuse image", m.name),
                    img,
                    &c,
                )),
            }
        }
        None => warnings.push(format!(
            "texture not found: material {:?} ({file}) has no diffuse image",
            m.name
        )),
    }
    if let Some(bump) = &decl.bump {
        let c = doom_candidates(bump);
        match loader.first(&c) {
            Some(l) => m.normal = flip_green(l.image),
            None => warnings.push(not_found(
                &format!("material {:?} ({file}) bump map", m.name),
                bump,
                &c,
            )),
        }
    }
}

/// Doom 3's image lookup (`R_LoadImage`): `.tga` appended when there is no extension;
/// a `.tga` missing is retried as `.jpg`; lower case.
fn doom_candidates(name: &str) -> Vec<String> {
    let name = game_path(name).to_ascii_lowercase();
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

/// A Doom 3 normal map in glTF's convention: green inverted (ASSETS.md §4.6). PNG/JPEG
/// files are decoded for it; `None` when one does not decode.
pub(super) fn flip_green(image: Image) -> Option<Image> {
    match images::decoded(&image).ok()? {
        Image::Rgba8 {
            width,
            height,
            mut pixels,
        } => {
            for px in pixels.chunks_exact_mut(4) {
                if let Some(g) = px.get_mut(1) {
                    *g = 255u8.saturating_sub(*g);
                }
            }
            Some(Image::Rgba8 {
                width,
                height,
                pixels,
            })
        }
        other => Some(other),
    }
}

/// A small reader of Doom 3 `.mtr` declarations: only what [`Decl`] needs.
pub(super) mod mtr {
    use super::{Decl, GENERATED, canonical};

    /// idLexer-like tokens: words, quoted strings, and `{ } ( ) ,` as their own tokens;
    /// `//` and `/* */` comments skipped.
    fn tokens(text: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0usize;
        let at = |i: usize| text.get(i).copied();
        while let Some(c) = at(i) {
            if c <= b' ' {
                i = i.saturating_add(1);
            } else if c == b'/' && at(i.saturating_add(1)) == Some(b'/') {
                while at(i).is_some_and(|c| c != b'\n') {
                    i = i.saturating_add(1);
                }
            } else if c == b'/' && at(i.saturating_add(1)) == Some(b'*') {
                i = i.saturating_add(2);
                while at(i).is_some()
                    && !(at(i) == Some(b'*') && at(i.saturating_add(1)) == Some(b'/'))
                {
                    i = i.saturating_add(1);
                }
                i = i.saturating_add(2);
            } else if c == b'"' {
                let start = i.saturating_add(1);
                let mut end = start;
                while at(end).is_some_and(|c| c != b'"') {
                    end = end.saturating_add(1);
                }
                out.push(
                    String::from_utf8_lossy(text.get(start..end).unwrap_or_default()).into_owned(),
                );
                i = end.saturating_add(1);
            } else if matches!(c, b'{' | b'}' | b'(' | b')' | b',') {
                out.push(char::from(c).to_string());
                i = i.saturating_add(1);
            } else {
                let start = i;
                while at(i).is_some_and(|c| {
                    c > b' ' && !matches!(c, b'{' | b'}' | b'(' | b')' | b',' | b'"')
                }) {
                    i = i.saturating_add(1);
                }
                out.push(
                    String::from_utf8_lossy(text.get(start..i).unwrap_or_default()).into_owned(),
                );
            }
        }
        out
    }

    /// An image program at `toks[i..]`: its innermost first image, the index after it,
    /// and whether it is a bare `heightmap` (a height image, not a normal map).
    fn program(toks: &[String], i: usize) -> (Option<String>, usize, bool) {
        let Some(first) = toks.get(i) else {
            return (None, i, false);
        };
        if toks.get(i.saturating_add(1)).map(String::as_str) != Some("(") {
            let img =
                (!GENERATED.iter().any(|g| g.eq_ignore_ascii_case(first))).then(|| first.clone());
            return (img, i.saturating_add(1), false);
        }
        let func = first.to_ascii_lowercase();
        let (inner, mut j, _) = program(toks, i.saturating_add(2));
        // Skip the other arguments up to the matching `)`.
        let mut depth = 1usize;
        while let Some(t) = toks.get(j) {
            j = j.saturating_add(1);
            if t == "(" {
                depth = depth.saturating_add(1);
            } else if t == ")" {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
        }
        (inner, j, func == "heightmap")
    }

    /// The declaration of material `name` (canonical) in `text`, the first one.
    pub fn decl(text: &[u8], name: &str) -> Option<Decl> {
        let toks = tokens(text);
        let mut i = 0usize;
        while let Some(t) = toks.get(i) {
            // `[type] name {`
            let next_is = |k: usize| toks.get(i.saturating_add(k)).map(String::as_str) == Some("{");
            let (decl_name, open, material) = if next_is(1) {
                (t, i.saturating_add(1), true)
            } else if next_is(2) {
                let material = t.eq_ignore_ascii_case("material");
                (
                    toks.get(i.saturating_add(1))?,
                    i.saturating_add(2),
                    material,
                )
            } else {
                i = i.saturating_add(1);
                continue;
            };
            let mut j = open.saturating_add(1);
            let mut depth = 1usize;
            while let Some(t) = toks.get(j) {
                if t == "{" {
                    depth = depth.saturating_add(1);
                } else if t == "}" {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                j = j.saturating_add(1);
            }
            if material && canonical(decl_name) == name {
                return Some(body(
                    toks.get(open.saturating_add(1)..j).unwrap_or_default(),
                ));
            }
            i = j.saturating_add(1);
        }
        None
    }

    fn body(toks: &[String]) -> Decl {
        let mut d = Decl::default();
        let mut i = 0usize;
        let mut in_stage = false;
        let mut stage_blend: Option<String> = None;
        let mut stage_map: Option<(Option<String>, bool)> = None;
        let lower = |i: usize| toks.get(i).map(|t| t.to_ascii_lowercase());
        while let Some(t) = lower(i) {
            i = i.saturating_add(1);
            match t.as_str() {
                "{" => {
                    in_stage = true;
                    stage_blend = None;
                    stage_map = None;
                }
                "}" => {
                    in_stage = false;
                    if let (Some(b), Some((img, height))) = (stage_blend.take(), stage_map.take()) {
                        match b.as_str() {
                            "diffusemap" if d.diffuse.is_none() => d.diffuse = img,
                            "bumpmap" if d.bump.is_none() && !height => d.bump = img,
                            _ => {}
                        }
                    }
                }
                "diffusemap" | "bumpmap" | "specularmap" if !in_stage => {
                    let (img, next, height) = program(toks, i);
                    i = next;
                    match t.as_str() {
                        "diffusemap" if d.diffuse.is_none() => d.diffuse = img,
                        "bumpmap" if d.bump.is_none() && !height => d.bump = img,
                        _ => {}
                    }
                }
                "blend" if in_stage => stage_blend = lower(i),
                "map" if in_stage => {
                    let (img, next, height) = program(toks, i);
                    i = next;
                    stage_map = Some((img, height));
                }
                "qer_editorimage" => {
                    d.editor = toks.get(i).cloned();
                    i = i.saturating_add(1);
                }
                "alphatest" => {
                    d.alpha_test = toks.get(i).and_then(|v| v.parse().ok());
                }
                "translucent" => d.translucent = true,
                "twosided" => d.two_sided = true,
                "clamp" | "zeroclamp" | "alphazeroclamp" => d.clamp = true,
                _ => {}
            }
        }
        d
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
