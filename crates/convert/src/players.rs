//! Quake III player folders (`lower`, `upper`, `head.md3` with their skins and
//! `animation.cfg`): read, assembled into one scene, described by `info`; and what a
//! batch leaves out (md5anims, a player's other MD3s).

use std::fmt;
use std::path::Path;

use idmodel_scene::Scene;
use idmodel_scene::md3::PLAYER_PARTS;

use crate::idmodel::md3::Md3 as Model;
use idmodel_scene::md3::{self as adapter, Player};

use crate::failure::Failure;
use crate::formats::md3::{self, MAX_SIDECAR, Md3, SkinFile, sidecar, skin_names};
use crate::formats::{Info, Input, ModelFormat, Request, Shape};

/// The files a folder conversion leaves out, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// md5anim files: they need a mesh (`convert MESH --anim A`).
    pub md5anim: usize,
    /// Other `.md3` files of a player folder (LODs, extra parts): the folder is
    /// converted as one player from lower, upper and head.
    pub player_md3: usize,
}

impl Skipped {
    /// True when the batch leaves `path` out (counting it, unless it is one of the three
    /// parts of the player folder it is in, `in_player`, which the player conversion
    /// reads).
    pub fn skips(&mut self, path: &Path, in_player: bool) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("md5anim") => {
                self.md5anim = self.md5anim.saturating_add(1);
                true
            }
            Some("md3") if in_player => {
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .map(str::to_ascii_lowercase);
                if !stem.is_some_and(|s| PLAYER_PARTS.contains(&s.as_str())) {
                    self.player_md3 = self.player_md3.saturating_add(1);
                }
                true
            }
            _ => false,
        }
    }

    /// How many.
    pub fn total(&self) -> usize {
        self.md5anim.saturating_add(self.player_md3)
    }
}

/// `skipped 3 (2 md5anim: need a mesh, 1 other md3 in player folders)`, `skipped 0`.
impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped {}", self.total())?;
        let mut why = Vec::new();
        if self.md5anim > 0 {
            why.push(format!("{} md5anim: need a mesh", self.md5anim));
        }
        if self.player_md3 > 0 {
            why.push(format!(
                "{} other md3 in player folders: converted as players",
                self.player_md3
            ));
        }
        if !why.is_empty() {
            write!(f, " ({})", why.join(", "))?;
        }
        Ok(())
    }
}

/// True when `path` is a Quake III player folder.
fn player_folder(path: &Path) -> bool {
    (path.is_dir() || crate::archives::is_virtual(path)) && md3::is_player_folder(path)
}

/// `info` of a player folder (the text, or with `json` the JSON object); `None` when
/// `path` is not one.
pub fn info_folder(path: &Path, json: bool) -> Option<Result<String, String>> {
    if !player_folder(path) {
        return None;
    }
    let info = match player_info(path) {
        Ok(i) => i,
        Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
    };
    if json {
        return Some(crate::info::json(path, &info));
    }
    let mut out = format!("{}: Quake III player '{}'", path.display(), info.name);
    crate::info::push_rows(&mut out, &info.details);
    Some(Ok(out))
}

// ---------------------------------------------------------------------------------------
// The files of a player folder, and its `info`

/// The files of a player folder, read: the three models, `animation.cfg` and the three
/// `<part>_default.skin`.
struct PlayerFiles {
    name: String,
    bytes: [Vec<u8>; 3],
    cfg: Option<Vec<u8>>,
    skins: [Option<SkinFile>; 3],
}

impl PlayerFiles {
    fn read(dir: &Path, skin: Option<&str>) -> Result<PlayerFiles, Failure> {
        let read = |part: &str| {
            let name = format!("{part}.md3");
            crate::archives::read(&dir.join(&name), MAX_SIDECAR.saturating_mul(1024))
                .map_err(|e| Failure::new(format!("{name}: {e}")))
        };
        Ok(PlayerFiles {
            name: dir
                .file_name()
                .map_or_else(|| "player".to_owned(), |n| n.to_string_lossy().into_owned()),
            bytes: [read("lower")?, read("upper")?, read("head")?],
            cfg: sidecar(dir, "animation.cfg"),
            skins: [
                SkinFile::chosen(dir, "lower", skin)?,
                SkinFile::chosen(dir, "upper", skin)?,
                SkinFile::chosen(dir, "head", skin)?,
            ],
        })
    }

    fn player(&self) -> Result<Player<'_>, Failure> {
        let [l, u, h] = &self.bytes;
        let parse =
            |part: &str, b| Model::parse(b).map_err(|e| Failure::new(format!("{part}.md3: {e}")));
        Ok(Player {
            name: &self.name,
            lower: parse("lower", l)?,
            upper: parse("upper", u)?,
            head: parse("head", h)?,
            animation_cfg: self.cfg.as_deref(),
            skins: self
                .skins
                .each_ref()
                .map(|s| s.as_ref().and_then(SkinFile::usable)),
        })
    }
}

/// The Quake III player in `dir` (see [`md3::is_player_folder`]): [`Shape::Scene`], one
/// scene with upper on lower's `tag_torso`, head on upper's `tag_head`, the
/// animation.cfg clips; [`Shape::Frame`], one posed frame (`--frame N` of lower and
/// upper, else the first frame of `--clip`, else standing idle; head frame 0), the parts
/// placed on their tags as the engine places them.
pub fn player(dir: &Path, request: &Request<'_>, shape: Shape) -> Result<Scene, Failure> {
    let files = PlayerFiles::read(dir, request.skin)?;
    let build = match shape {
        Shape::Scene => adapter::player_scene,
        Shape::Frame => adapter::player_frame,
    };
    let mut scene = build(&files.player()?, &request.options()).map_err(Failure::from)?;
    if shape == Shape::Scene && request.options().frame.is_none() {
        let side = side_files(dir, request.skin.unwrap_or("default"));
        if !side.is_empty() {
            scene
                .extras
                .set(SIDE_FILES, idmodel_scene::Value::List(side));
        }
        let levels = lod_levels(dir);
        if levels > 0 {
            scene
                .extras
                .set(LOD_LEVELS, idmodel_scene::Value::Int(i64::from(levels)));
        }
    }
    Ok(scene)
}

/// The extras key of how many LODs (`_1`, `_2`) the player's parts had: the way back
/// makes that many again (the GLB holds no LOD geometry, which would add a third or more
/// to its size).
pub(crate) const LOD_LEVELS: &str = "player.lod_levels";

/// The LOD levels every part of the player in `dir` has (0, 1 or 2).
fn lod_levels(dir: &Path) -> u8 {
    let has = |level: u8| {
        PLAYER_PARTS
            .iter()
            .all(|part| crate::archives::is_file(&dir.join(format!("{part}_{level}.md3"))))
    };
    if has(1) && has(2) {
        2
    } else {
        u8::from(has(1))
    }
}

/// The extras key of a player's files the scene does not draw (see [`side_files`]).
pub(crate) const SIDE_FILES: &str = "player.side_files";

/// The skins of a player folder the scene does not draw, which the way back writes
/// again so that none is lost: every `<part>_NAME.skin` but the drawn one
/// (`<part>_red.skin` …), each `[file name, base64 bytes]`.
fn side_files(dir: &Path, drawn_skin: &str) -> Vec<idmodel_scene::Value> {
    use idmodel_scene::Value;
    let mut out = Vec::new();
    for part in PLAYER_PARTS {
        for skin in skin_names(dir, part) {
            if skin.eq_ignore_ascii_case(drawn_skin) {
                continue;
            }
            let name = format!("{part}_{skin}.skin");
            if let Some(bytes) = sidecar(dir, &name) {
                out.push(Value::List(vec![
                    Value::Str(name),
                    Value::Str(idmodel_scene::back::base64_encode(&bytes)),
                ]));
            }
        }
    }
    out
}

/// `info` of a player folder: the three parts' `info`, the player's clips (and where
/// each plays), its skins, and the pose `render` draws by default.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PlayerInfo {
    /// `md3-player`.
    pub format: &'static str,
    /// The folder's name.
    pub name: String,
    /// `lower.md3`, `upper.md3`, `head.md3`.
    pub lower: Info,
    /// See `lower`.
    pub upper: Info,
    /// See `lower`.
    pub head: Info,
    /// The player's clips (the names `--clip` takes).
    pub clips: Vec<String>,
    /// The skins all three parts have (`<part>_NAME.skin`; the names `--skin` takes).
    pub skin_names: Vec<String>,
    /// The three parts' shader names, each once.
    pub shaders: Vec<String>,
    /// Plain-text rows, not part of the JSON.
    #[serde(skip)]
    pub details: Vec<(String, String)>,
}

/// Reads and describes the player in `dir` (see [`md3::is_player_folder`]).
pub fn player_info(dir: &Path) -> Result<PlayerInfo, Failure> {
    let files = PlayerFiles::read(dir, None)?;
    let player = files.player()?;
    let [l, u, h] = &files.bytes;
    let part_info = |part: &str, bytes: &[u8]| {
        let path = dir.join(format!("{part}.md3"));
        Md3.info(&Input {
            path: &path,
            format: crate::idmodel::Format::Md3,
            bytes,
        })
        .map_err(|e| Failure::new(format!("{part}.md3: {e}")))
    };
    let (lower, upper, head) = (
        part_info("lower", l)?,
        part_info("upper", u)?,
        part_info("head", h)?,
    );
    let clips = adapter::player_clips(
        player.animation_cfg,
        player.lower.num_frames(),
        player.upper.num_frames(),
    );
    let mut details = Vec::new();
    for (part, info) in [("lower", &lower), ("upper", &upper), ("head", &head)] {
        details.push((
            format!("{part}.md3"),
            format!(
                "{} frames, {} surfaces, {} vertices, {} triangles, {} tags",
                info.frames,
                info.surfaces.unwrap_or(0),
                info.vertices,
                info.triangles,
                info.tags.unwrap_or(0)
            ),
        ));
    }
    details.push((
        "assembly".to_owned(),
        "upper.md3 on lower.md3's tag_torso, head.md3 on upper.md3's tag_head".to_owned(),
    ));
    let skins: Vec<String> = skin_names(dir, "lower")
        .into_iter()
        .filter(|n| skin_names(dir, "upper").contains(n) && skin_names(dir, "head").contains(n))
        .collect();
    details.push((
        "skins".to_owned(),
        if skins.is_empty() {
            "none (materials from the surfaces' shader names)".to_owned()
        } else {
            skins.join(", ")
        },
    ));
    let source = match player.animation_cfg.map(adapter::q3_animations) {
        None => "no animation.cfg: one clip of all frames per animated part".to_owned(),
        Some(Ok((_, entries))) => format!("animation.cfg, Quake III rules ({entries} entries)"),
        Some(Err(why)) => format!("not from animation.cfg: {why}"),
    };
    details.push((
        "animations".to_owned(),
        format!(
            "{} clip{}; {source}",
            clips.len(),
            if clips.len() == 1 { "" } else { "s" }
        ),
    ));
    for (c, on_lower, on_upper) in &clips {
        let plays = match (on_lower, on_upper) {
            (true, true) => "lower and upper",
            (true, false) => "lower",
            _ => "upper",
        };
        details.push((format!("  {}", c.name), format!("{c}; {plays}")));
    }
    let [idle_legs, idle_torso] = adapter::IDLE_CLIPS;
    let pose = match adapter::pose(&player, &idmodel_scene::Options::default()) {
        Ok((legs, torso)) => format!(
            "lower frame {}, upper frame {}, head frame 0 (standing idle: {idle_legs} and {idle_torso} when animation.cfg has them, else frame 0)",
            legs.mesh, torso.mesh,
        ),
        Err(e) => e.to_string(),
    };
    details.push(("default pose".to_owned(), pose));
    let shaders = crate::info::unique(
        [&lower, &upper, &head]
            .iter()
            .flat_map(|i| i.shaders.iter().flatten())
            .cloned(),
    );
    Ok(PlayerInfo {
        format: "md3-player",
        name: files.name.clone(),
        clips: clips.iter().map(|c| c.0.name.clone()).collect(),
        skin_names: skins,
        shaders,
        lower,
        upper,
        head,
        details,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_are_counted_with_why() {
        let mut s = Skipped::default();
        assert_eq!(s.to_string(), "skipped 0");
        assert!(s.skips(Path::new("a/walk.MD5ANIM"), false));
        assert!(!s.skips(Path::new("a/ogre.md3"), false));
        assert!(s.skips(Path::new("p/lower.md3"), true));
        assert!(s.skips(Path::new("p/lower_1.md3"), true));
        assert!(!s.skips(Path::new("p/gun.md2"), true));
        assert_eq!(
            s.to_string(),
            "skipped 2 (1 md5anim: need a mesh, 1 other md3 in player folders: converted as players)"
        );
    }
}
