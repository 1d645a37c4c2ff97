//! `info` of the text files that sit beside models: Quake III `.skin` and
//! `animation.cfg` (described), `.shader`, Doom 3 `.mtr` and `.anm` (named, not yet
//! read). `idmodel::detect` does not place text files, so these go by file name.

use std::path::Path;

use idmodel::md3::{AnimationCfg, EntryKind, Skin};
use idmodel_scene::md3::q3_animations;
use serde::Serialize;

/// The side file kinds `info` knows, by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Skin,
    AnimationCfg,
    /// Named only (`.shader`, `.mtr`, `.anm`): what it is.
    Named(&'static str),
}

fn kind(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if name == "animation.cfg" {
        return Some(Kind::AnimationCfg);
    }
    match name.rsplit_once('.')?.1 {
        "skin" => Some(Kind::Skin),
        "shader" => Some(Kind::Named("Quake III shader script")),
        "mtr" => Some(Kind::Named("Doom 3 material file")),
        "anm" => Some(Kind::Named("Doom 3 animation (.anm)")),
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
    /// animation.cfg: the animation names (Quake III layout).
    #[serde(skip_serializing_if = "Option::is_none")]
    clips: Option<Vec<String>>,
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
        Kind::Named(what) => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            let format = match ext.as_deref() {
                Some("mtr") => "mtr",
                Some("anm") => "anm",
                _ => "shader",
            };
            let info = SideInfo {
                format,
                read: false,
                entries: None,
                tags: None,
                shaders: None,
                clips: None,
            };
            if json {
                return Some(serde_json::to_string(&info).map_err(|e| fail(&e)));
            }
            return Some(Ok(format!(
                "{}: {what}, {} bytes (not read yet: materials and textures are the next step)",
                path.display(),
                bytes.len()
            )));
        }
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
                if id.index() >= q3.from_file() && id.index() < idmodel::md3::MAX_ANIMATIONS {
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
        },
        rows,
    ))
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_files_go_by_name() {
        assert_eq!(kind(Path::new("a/Animation.CFG")), Some(Kind::AnimationCfg));
        assert_eq!(kind(Path::new("a/head_red.skin")), Some(Kind::Skin));
        assert!(matches!(kind(Path::new("x.mtr")), Some(Kind::Named(_))));
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
        let named = info_report(Path::new("a.shader"), b"textures/x { }", false)
            .unwrap()
            .unwrap();
        assert!(named.contains("not read yet"), "{named}");
    }
}
