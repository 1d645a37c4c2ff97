//! `info` of the text files that sit beside models: Quake III `.skin`, `animation.cfg`
//! and `.shader`, Doom 3 `.mtr`, UFO:AI `.anm` and Cube 2 `md5.cfg`/`md3.cfg`: what each
//! holds. `idmodel::detect` does not place text files, so these go by file name.

use std::path::Path;

use crate::idmodel::md2::Anm;
use crate::idmodel::md3::shader::{self, ShaderText};
use crate::idmodel::md3::{AnimationCfg, EntryKind, Skin};
use crate::idmodel::md5::cube2::{self, Cfg};
use idmodel_assets::textures::mtr::{self as material, MaterialText};
use idmodel_scene::md3::q3_animations;
use serde::Serialize;

/// The side file kinds `info` knows, by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Skin,
    AnimationCfg,
    Shader,
    Mtr,
    Anm,
    Cube2,
}

fn kind(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if name == "animation.cfg" {
        return Some(Kind::AnimationCfg);
    }
    if name == "md5.cfg" || name == "md3.cfg" {
        return Some(Kind::Cube2);
    }
    match name.rsplit_once('.')?.1 {
        "skin" => Some(Kind::Skin),
        "shader" => Some(Kind::Shader),
        "mtr" => Some(Kind::Mtr),
        "anm" => Some(Kind::Anm),
        _ => None,
    }
}

/// The `info --json` object of a side file.
#[derive(Debug, Serialize)]
struct SideInfo {
    /// `skin`, `animation.cfg`, `shader`, `mtr`, `anm`.
    format: &'static str,
    /// Whether idmodel reads the file (false: named only).
    read: bool,
    /// `.skin`: surface entries; animation.cfg: animation entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<usize>,
    /// `.skin`: tag entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<usize>,
    /// `.skin`: the shaders, each once, in file order.
    #[serde(skip_serializing_if = "Option::is_none")]
    shaders: Option<Vec<String>>,
    /// animation.cfg: the animation names (Quake III layout); `.anm`, `md5.cfg`: the
    /// clip names in file order.
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<Vec<String>>,
    /// `.shader`, `.mtr`: each definition and what a glTF material takes from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    definitions: Option<Vec<Definition>>,
}

/// One `.shader` or `.mtr` definition in `info --json`.
#[derive(Debug, Serialize)]
struct Definition {
    name: String,
    /// The base-colour image (a game path or image program), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    /// `.mtr`: the normal map's image program.
    #[serde(skip_serializing_if = "Option::is_none")]
    normal: Option<String>,
    /// `OPAQUE`, `MASK <cutoff>` or `BLEND`.
    alpha: String,
    double_sided: bool,
    stages: usize,
    /// What would make the engine use its default instead, with its position.
    #[serde(skip_serializing_if = "Option::is_none")]
    engine_failure: Option<String>,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `info` of `bytes` read from `path` when the file name is a side file's; `None` for
/// anything else (a model). `Err` is the one-line message for a file that does not parse.
pub fn info_report(path: &Path, bytes: &[u8], json: bool) -> Option<Result<String, String>> {
    let kind = kind(path)?;
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let (info, rows, what) = match kind {
        Kind::Skin => match skin(bytes) {
            Ok((i, r)) => (i, r, "Quake III skin"),
            Err(e) => return Some(Err(fail(&e))),
        },
        Kind::AnimationCfg => match cfg(bytes) {
            Ok((i, r)) => (i, r, "Quake III animation.cfg"),
            Err(e) => return Some(Err(fail(&e))),
        },
        Kind::Shader => match shader_file(bytes) {
            Ok((i, r)) => (i, r, "Quake III shader script"),
            Err(e) => return Some(Err(fail(&e))),
        },
        Kind::Mtr => match mtr(bytes) {
            Ok((i, r)) => (i, r, "Doom 3 material file"),
            Err(e) => return Some(Err(fail(&e))),
        },
        Kind::Anm => match anm(bytes) {
            Ok((i, r)) => (i, r, "UFO:AI animation table (.anm)"),
            Err(e) => return Some(Err(fail(&e))),
        },
        Kind::Cube2 => match cube2_cfg(bytes) {
            Ok((i, r)) => (i, r, "Cube 2 model config"),
            Err(e) => return Some(Err(fail(&e))),
        },
    };
    if json {
        return Some(serde_json::to_string(&info).map_err(|e| fail(&e)));
    }
    let mut out = format!("{}: {what}", path.display());
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<width$}  {v}"));
    }
    Some(Ok(out))
}

type Rows = Vec<(String, String)>;

fn skin(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let skin = Skin::parse(bytes).map_err(|e| e.to_string())?;
    let mut rows = vec![
        (
            "surface entries".to_owned(),
            skin.num_surfaces().to_string(),
        ),
        ("tag entries".to_owned(), skin.num_tags().to_string()),
    ];
    let mut shaders: Vec<String> = Vec::new();
    for e in skin.entries() {
        match e.kind {
            EntryKind::Surface => {
                let sh = e.shader().to_string();
                rows.push((
                    format!("'{}'", e.name()),
                    if sh.is_empty() {
                        "(no shader: the default shader)".to_owned()
                    } else {
                        sh.clone()
                    },
                ));
                if !sh.is_empty() && !shaders.contains(&sh) {
                    shaders.push(sh);
                }
            }
            EntryKind::Tag => rows.push((format!("'{}'", e.name()), "tag".to_owned())),
        }
    }
    if skin.num_surfaces() == 0 {
        rows.push((
            "use".to_owned(),
            "no surface entries: the engine does not use this skin".to_owned(),
        ));
    }
    Ok((
        SideInfo {
            format: "skin",
            read: true,
            entries: Some(skin.num_surfaces()),
            tags: Some(skin.num_tags()),
            shaders: Some(shaders),
            clips: None,
            definitions: None,
        },
        rows,
    ))
}

fn cfg(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let cfg = AnimationCfg::parse(bytes).map_err(|e| e.to_string())?;
    let entries = cfg.raw_entries().count();
    let h = cfg.head_offset();
    let mut rows = vec![
        (
            "sex".to_owned(),
            format!("{:?}", cfg.gender()).to_lowercase(),
        ),
        (
            "footsteps".to_owned(),
            format!("{:?}", cfg.footsteps()).to_lowercase(),
        ),
        (
            "head offset".to_owned(),
            format!("({}, {}, {})", h[0], h[1], h[2]),
        ),
    ];
    let mut names = Vec::new();
    match q3_animations(bytes) {
        Ok((q3, _)) => {
            rows.push((
                "animations".to_owned(),
                format!(
                    "{entries} entries, Quake III rules (legs frames moved back by {})",
                    q3.legs_skip()
                ),
            ));
            for (id, a) in q3.iter() {
                let last = i64::from(a.first_frame)
                    .saturating_add(i64::from(a.num_frames))
                    .saturating_sub(1);
                let mut v = format!(
                    "frames {}-{last} ({}), {} ms a frame",
                    a.first_frame, a.num_frames, a.frame_lerp
                );
                if a.reversed {
                    v.push_str(", reversed");
                }
                if a.loop_frames > 0 {
                    v.push_str(&format!(", loops the last {}", a.loop_frames));
                }
                if id.index() >= q3.from_file() && id.index() < crate::idmodel::md3::MAX_ANIMATIONS
                {
                    v.push_str(" (not in the file: the engine's fill)");
                }
                rows.push((format!("  {}", id.name()), v));
                names.push(id.name().to_owned());
            }
        }
        Err(why) => rows.push((
            "animations".to_owned(),
            format!("{entries} entries; not usable as Quake III's: {why}"),
        )),
    }
    Ok((
        SideInfo {
            format: "animation.cfg",
            read: true,
            entries: Some(entries),
            tags: None,
            shaders: None,
            clips: Some(names),
            definitions: None,
        },
        rows,
    ))
}

fn shader_alpha(a: shader::AlphaMode) -> String {
    match a {
        shader::AlphaMode::Opaque => "OPAQUE".to_owned(),
        shader::AlphaMode::Mask { cutoff } => format!("MASK {cutoff}"),
        shader::AlphaMode::Blend => "BLEND".to_owned(),
    }
}

fn shader_file(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let text = ShaderText::new(bytes);
    let mut rows = Rows::new();
    let mut defs = Vec::new();
    let mut problems = 0usize;
    for d in text.entries() {
        let d = match d {
            Ok(d) => d,
            Err(e) => {
                problems = problems.saturating_add(1);
                rows.push(("error".to_owned(), e.to_string()));
                continue;
            }
        };
        let s = d.parse().map_err(|e| e.to_string())?;
        let g = s.gltf();
        let mut v = match g.image {
            Some(i) => lossy(i),
            None => "(no image)".to_owned(),
        };
        v.push_str(&format!(", {}", shader_alpha(g.alpha)));
        if g.invert_alpha {
            v.push_str(" (alpha inverted: LT128)");
        }
        if g.double_sided {
            v.push_str(", double-sided");
        }
        if g.approximate {
            v.push_str(", blend approximated");
        }
        v.push_str(&format!(", {} stage(s)", s.num_stages()));
        if let Some(f) = s.failure {
            v.push_str(&format!("; the engine uses its default shader: {f}"));
        }
        rows.push((format!("'{}'", lossy(s.name)), v));
        defs.push(Definition {
            name: lossy(s.name),
            image: g.image.map(lossy),
            normal: None,
            alpha: shader_alpha(g.alpha),
            double_sided: g.double_sided,
            stages: s.num_stages(),
            engine_failure: s.failure.map(|f| f.to_string()),
        });
    }
    rows.insert(0, ("shaders".to_owned(), defs.len().to_string()));
    if problems > 0 {
        rows.insert(
            1,
            (
                "ioq3".to_owned(),
                format!("ignores this whole file ({problems} malformed definition(s))"),
            ),
        );
    }
    Ok((
        SideInfo {
            format: "shader",
            read: true,
            entries: Some(defs.len()),
            tags: None,
            shaders: Some(defs.iter().map(|d| d.name.clone()).collect()),
            clips: None,
            definitions: Some(defs),
        },
        rows,
    ))
}

fn mtr_alpha(a: material::AlphaMode) -> String {
    match a {
        material::AlphaMode::Opaque => "OPAQUE".to_owned(),
        material::AlphaMode::Mask { cutoff } => format!("MASK {cutoff}"),
        material::AlphaMode::Blend => "BLEND".to_owned(),
    }
}

fn mtr(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let text = MaterialText::new(bytes);
    let mut rows = Rows::new();
    let mut defs = Vec::new();
    let mut other = 0usize;
    let mut seen: Vec<&[u8]> = Vec::new();
    for d in text.decls() {
        let d = d.map_err(|e| e.to_string())?;
        if d.kind != material::DeclType::Material {
            other = other.saturating_add(1);
            continue;
        }
        let m = d.material().map_err(|e| e.to_string())?;
        let g = m.gltf();
        let image = g.base_color.map(|p| lossy(p.text()));
        let normal = g.normal.map(|p| lossy(p.text()));
        let mut v = image.clone().unwrap_or_else(|| "(no image)".to_owned());
        if g.from_editor_image {
            v.push_str(" (qer_editorimage)");
        }
        if let Some(n) = &normal {
            v.push_str(&format!(", normal {n}"));
        }
        v.push_str(&format!(", {}", mtr_alpha(g.alpha)));
        if g.double_sided {
            v.push_str(", two-sided");
        }
        v.push_str(&format!(", {} stage(s)", m.num_stages()));
        if seen.iter().any(|s| material::names_match(s, m.name)) {
            v.push_str("; defined before: Doom ignores this one");
        }
        seen.push(m.name);
        let failure = m.failure.map(|f| {
            format!(
                "unknown {}keyword '{}' (at {}:{})",
                if f.in_stage { "stage " } else { "" },
                lossy(f.token),
                f.line(),
                f.column()
            )
        });
        if let Some(f) = &failure {
            v.push_str(&format!("; Doom uses its default material: {f}"));
        }
        rows.push((format!("'{}'", lossy(m.name)), v));
        defs.push(Definition {
            name: lossy(m.name),
            image,
            normal,
            alpha: mtr_alpha(g.alpha),
            double_sided: g.double_sided,
            stages: m.num_stages(),
            engine_failure: failure,
        });
    }
    rows.insert(0, ("materials".to_owned(), defs.len().to_string()));
    rows.insert(1, ("other decls".to_owned(), other.to_string()));
    Ok((
        SideInfo {
            format: "mtr",
            read: true,
            entries: Some(defs.len()),
            tags: None,
            shaders: None,
            clips: None,
            definitions: Some(defs),
        },
        rows,
    ))
}

fn anm(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let anm = Anm::parse(bytes).map_err(|e| e.to_string())?;
    let mut rows = vec![("clips".to_owned(), anm.len().to_string())];
    if anm.ignored() > 0 {
        rows.push((
            "ignored".to_owned(),
            format!("{} clip(s) past the engine's 128", anm.ignored()),
        ));
    }
    let mut names = Vec::new();
    for e in anm.entries() {
        let mut v = format!(
            "frames {}-{} at {} fps ({} ms a frame)",
            e.first,
            e.last,
            e.fps,
            e.frame_time_ms()
        );
        if let Some(p) = e.check(usize::MAX) {
            v.push_str(&format!("; {p}"));
        }
        rows.push((format!("'{}'", e.name), v));
        names.push(e.name.to_string());
    }
    Ok((
        SideInfo {
            format: "anm",
            read: true,
            entries: Some(anm.len()),
            tags: None,
            shaders: None,
            clips: Some(names),
            definitions: None,
        },
        rows,
    ))
}

fn cube2_cfg(bytes: &[u8]) -> Result<(SideInfo, Rows), String> {
    let mut rows = Rows::new();
    let mut clips = Vec::new();
    let mut shaders = Vec::new();
    let mut statements = 0usize;
    for c in Cfg::new(bytes).commands() {
        statements = statements.saturating_add(1);
        let word = |w: cube2::Word<'_>| lossy(cube2::texture_file(w.raw));
        match c.map_err(|e| e.to_string())? {
            cube2::Command::Dir { dir, .. } => rows.push(("folder".to_owned(), lossy(dir.raw))),
            cube2::Command::Load { file, .. } => rows.push(("model".to_owned(), lossy(file.raw))),
            cube2::Command::Skin {
                mesh,
                diffuse,
                masks,
                ..
            } => {
                let mut v = word(diffuse);
                if let Some(m) = masks {
                    v.push_str(&format!(", masks {}", word(m)));
                }
                shaders.push(word(diffuse));
                rows.push((format!("skin '{}'", lossy(mesh.raw)), v));
            }
            cube2::Command::Bumpmap { mesh, normal, .. } => {
                rows.push((format!("bump map '{}'", lossy(mesh.raw)), word(normal)));
            }
            cube2::Command::Anim {
                anim, file, fps, ..
            } => {
                let mut v = lossy(file.raw);
                if let Some(f) = fps.filter(|f| *f > 0.0) {
                    v.push_str(&format!(" at {f} fps"));
                }
                rows.push((format!("clip '{}'", lossy(anim.raw)), v));
                clips.push(lossy(anim.raw));
            }
            cube2::Command::FrameAnim {
                anim, first, count, ..
            } => {
                rows.push((
                    format!("clip '{}'", lossy(anim.raw)),
                    format!("frames {first} +{count}"),
                ));
                clips.push(lossy(anim.raw));
            }
            cube2::Command::Other(_) => {}
        }
    }
    rows.insert(0, ("statements".to_owned(), statements.to_string()));
    Ok((
        SideInfo {
            format: "cube2cfg",
            read: true,
            entries: Some(statements),
            tags: None,
            shaders: Some(shaders),
            clips: Some(clips),
            definitions: None,
        },
        rows,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_files_go_by_name() {
        assert_eq!(kind(Path::new("a/Animation.CFG")), Some(Kind::AnimationCfg));
        assert_eq!(kind(Path::new("a/head_red.skin")), Some(Kind::Skin));
        assert_eq!(kind(Path::new("x.mtr")), Some(Kind::Mtr));
        assert_eq!(kind(Path::new("a/MD5.cfg")), Some(Kind::Cube2));
        assert_eq!(kind(Path::new("x.anm")), Some(Kind::Anm));
        assert_eq!(kind(Path::new("x.md3")), None);
        assert_eq!(kind(Path::new("other.cfg")), None);
    }

    #[test]
    fn a_skin_lists_its_entries() {
        let text = info_report(
            Path::new("head_default.skin"),
            b"tag_head,\nh_head,models/h.tga\n",
            false,
        )
        .unwrap()
        .unwrap();
        assert!(
            text.starts_with("head_default.skin: Quake III skin"),
            "{text}"
        );
        assert!(
            text.contains("'h_head'") && text.contains("models/h.tga"),
            "{text}"
        );
        let json = info_report(Path::new("x.skin"), b"h_head,models/h.tga\n", true)
            .unwrap()
            .unwrap();
        assert_eq!(
            json,
            r#"{"format":"skin","read":true,"entries":1,"tags":0,"shaders":["models/h.tga"]}"#
        );
        // `.shader` files are read now (this asserted "not read yet" before): the
        // definition is listed with what the engine makes of it.
        let named = info_report(Path::new("a.shader"), b"textures/x { }", false)
            .unwrap()
            .unwrap();
        assert!(named.contains("'textures/x'"), "{named}");
        assert!(named.contains("no stages"), "{named}");
    }

    #[test]
    fn shader_mtr_anm_and_cube2_are_read() {
        let text = info_report(
            Path::new("p.shader"),
            b"m/hair\n{ cull none\n { map m/hair.tga\n alphaFunc GE128 } }",
            false,
        )
        .unwrap()
        .unwrap();
        assert!(
            text.contains("m/hair.tga, MASK 0.5, double-sided"),
            "{text}"
        );
        let json = info_report(Path::new("p.shader"), b"a { { map b.tga } }", true)
            .unwrap()
            .unwrap();
        assert!(
            json.contains(r#""image":"b.tga","alpha":"OPAQUE""#),
            "{json}"
        );
        let text = info_report(
            Path::new("m.mtr"),
            b"table t { { 1 } }\nm { translucent diffusemap d.tga bogus }",
            false,
        )
        .unwrap()
        .unwrap();
        assert!(text.contains("other decls  1"), "{text}");
        assert!(text.contains("d.tga, BLEND"), "{text}");
        assert!(text.contains("unknown keyword 'bogus' (at 2:34)"), "{text}");
        let text = info_report(Path::new("x.anm"), b"walk 0 9 10\ndead -1 0 0", false)
            .unwrap()
            .unwrap();
        assert!(
            text.contains("'walk'  frames 0-9 at 10 fps (100 ms a frame)"),
            "{text}"
        );
        assert!(text.contains("negative frame -1"), "{text}");
        let e = info_report(Path::new("x.anm"), b"walk 0 9", false)
            .unwrap()
            .unwrap_err();
        assert!(e.starts_with("x.anm: invalid syntax"), "{e}");
        let json = info_report(
            Path::new("md5.cfg"),
            b"md5skin * \"<dds>a.png\"\nmd5anim idle i.md5anim 30",
            true,
        )
        .unwrap()
        .unwrap();
        assert!(
            json.contains(r#""shaders":["a.png"],"clips":["idle"]"#),
            "{json}"
        );
    }
}
