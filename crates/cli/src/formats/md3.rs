//! Quake III MD3, read with `idmodel::md3`, with the `.skin` and `animation.cfg` files
//! that sit next to a player model.
//!
//! This module does the I/O (side files next to the model, player folders), the `info`
//! text and the `check` findings; turning a model into a scene is
//! [`idmodel_scene::md3`], whose module docs say what the outputs hold (the conventions
//! issue #7 asks to document).

use core::fmt::Write as _;
use std::path::Path;

use idmodel::md3::{AnimationCfg, ENGINES, Md3 as Model, Skin};
use idmodel_scene::Scene;
use idmodel_scene::md3::{self as adapter, CfgUse, Clip, PLAYER_PARTS, Player, Role};

use super::{Bounds, Engine, Finding, Info, Input, ModelFormat, Request, count};
use crate::failure::Failure;

/// The Quake III MD3 module.
pub struct Md3;

/// Side files larger than this are ignored (the engine reads at most 20 KB of
/// `animation.cfg`; skins are a few hundred bytes).
const MAX_SIDECAR: u64 = 1 << 20;

fn parse<'a>(bytes: &'a [u8]) -> Result<Model<'a>, Failure> {
    Model::parse(bytes).map_err(Failure::from)
}

// ---------------------------------------------------------------------------------------
// Side files

/// The bytes of `dir/name` when it is a readable regular file of a sane size (read by
/// the command's one read function: never blocks on a FIFO, remembered as an input).
fn sidecar(dir: &Path, name: &str) -> Option<Vec<u8>> {
    crate::archives::read(&dir.join(name), MAX_SIDECAR).ok()
}

/// The part name of a model file (`lower_1.md3` → `lower`).
fn part_name(path: &Path) -> String {
    adapter::part_name(&path.file_name().unwrap_or_default().to_string_lossy())
}

/// The skin a part uses: `<part>_default.skin` (or `<part>_NAME.skin` for `--skin
/// NAME`) when it parses and has surface entries.
struct SkinFile {
    name: String,
    text: Vec<u8>,
}

/// The names of the skins of `part` in `dir`: the `NAME` of every `<part>_NAME.skin`
/// (file names compared case-insensitively), sorted.
pub fn skin_names(dir: &Path, part: &str) -> Vec<String> {
    let prefix = format!("{part}_");
    // A folder inside an archive lists its entries (crate::archives).
    let files = crate::archives::file_names(dir).unwrap_or_else(|| {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    });
    let mut names: Vec<String> = Some(files)
        .map(|entries| {
            entries
                .into_iter()
                .filter_map(|file| {
                    let file = file.to_ascii_lowercase();
                    let stem = file.strip_suffix(".skin")?;
                    stem.strip_prefix(&prefix)
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.dedup();
    names
}

impl SkinFile {
    fn find(dir: &Path, part: &str) -> Option<SkinFile> {
        Self::named(dir, part, "default")
    }

    fn named(dir: &Path, part: &str, skin: &str) -> Option<SkinFile> {
        let name = format!("{part}_{skin}.skin");
        let text = sidecar(dir, &name)?;
        Some(SkinFile { name, text })
    }

    /// The skin `--skin` asks for: `<part>_default.skin` when there is one, and for an
    /// explicit name the file, which must exist (the error names the skins there are).
    fn chosen(dir: &Path, part: &str, skin: Option<&str>) -> Result<Option<SkinFile>, Failure> {
        let Some(want) = skin else {
            return Ok(Self::find(dir, part));
        };
        match Self::named(dir, part, want) {
            Some(f) => Ok(Some(f)),
            None => {
                let names = skin_names(dir, part);
                Err(Failure::new(format!(
                    "no skin '{want}': {part}_{want}.skin is not in {} ({})",
                    if dir.as_os_str().is_empty() {
                        ".".to_owned()
                    } else {
                        dir.display().to_string()
                    },
                    if names.is_empty() {
                        format!("it has no {part}_*.skin files")
                    } else {
                        format!("the skins: {}", names.join(", "))
                    }
                )))
            }
        }
    }

    /// The parsed skin, when the engine would use it (parses, has surface entries).
    fn usable(&self) -> Option<Skin<'_>> {
        adapter::usable_skin(&self.text)
    }
}

/// The side files of a single model file: its part name, skin, animation.cfg, and the
/// clips they give.
struct SingleSidecars {
    part: String,
    skin: Option<SkinFile>,
    cfg_text: Option<Vec<u8>>,
    clips: Vec<Clip>,
    cfg: CfgUse,
}

impl SingleSidecars {
    fn read(input: &Input<'_>, md3: &Model<'_>, skin: Option<&str>) -> Result<Self, Failure> {
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let part = part_name(input.path);
        let skin = SkinFile::chosen(dir, &part, skin)?;
        let cfg_text = sidecar(dir, "animation.cfg");
        let (clips, cfg) = adapter::clips(&part, cfg_text.as_deref(), md3.num_frames());
        Ok(SingleSidecars {
            part,
            skin,
            cfg_text,
            clips,
            cfg,
        })
    }

    /// What the adapter is given.
    fn sidecars(&self) -> adapter::Sidecars<'_> {
        adapter::Sidecars {
            part: &self.part,
            skin: self.skin.as_ref().and_then(SkinFile::usable),
            animation_cfg: self.cfg_text.as_deref(),
        }
    }
}

/// The surfaces' shader names, each once, in file order.
fn shader_names(md3: &Model<'_>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for s in md3.surfaces() {
        for sh in s.shaders() {
            let n = sh.name().to_string();
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

// ---------------------------------------------------------------------------------------
// Player models

/// True when `dir` directly holds `lower.md3`, `upper.md3` and `head.md3`: `convert`
/// then assembles one player model instead of converting each file.
pub fn is_player_folder(dir: &Path) -> bool {
    PLAYER_PARTS
        .iter()
        .all(|p| crate::archives::is_file(&dir.join(format!("{p}.md3"))))
}

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

/// The Quake III player in `dir` (see [`is_player_folder`]) as one glTF scene: upper on
/// lower's `tag_torso`, head on upper's `tag_head`, the animation.cfg clips.
pub fn player_scene(dir: &Path, request: &Request<'_>) -> Result<Scene, Failure> {
    let files = PlayerFiles::read(dir, request.skin)?;
    adapter::player_scene(&files.player()?, &request.options()).map_err(Failure::from)
}

/// One posed frame of the player in `dir` (`--frame N` of lower and upper, else the
/// first frame of `--clip`, else standing idle; head frame 0), the parts placed on
/// their tags as the engine places them.
pub fn player_frame(dir: &Path, request: &Request<'_>) -> Result<Scene, Failure> {
    let files = PlayerFiles::read(dir, request.skin)?;
    adapter::player_frame(&files.player()?, &request.options()).map_err(Failure::from)
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

/// Reads and describes the player in `dir` (see [`is_player_folder`]).
pub fn player_info(dir: &Path) -> Result<PlayerInfo, Failure> {
    let files = PlayerFiles::read(dir, None)?;
    let player = files.player()?;
    let [l, u, h] = &files.bytes;
    let part_info = |part: &str, bytes: &[u8]| {
        let path = dir.join(format!("{part}.md3"));
        Md3.info(&Input {
            path: &path,
            format: idmodel::Format::Md3,
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
    let mut shaders: Vec<String> = Vec::new();
    for n in [&lower, &upper, &head]
        .iter()
        .flat_map(|i| i.shaders.iter().flatten())
    {
        if !shaders.contains(n) {
            shaders.push(n.clone());
        }
    }
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

// ---------------------------------------------------------------------------------------
// The four answers

impl ModelFormat for Md3 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let md3 = parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3, None)?;
        let skin = side.skin.as_ref().and_then(SkinFile::usable);
        let mut details = vec![("name".to_owned(), md3.name().to_string())];
        let mut vertices = 0u64;
        let mut triangles = 0u64;
        for s in md3.surfaces() {
            vertices = vertices.saturating_add(count(s.num_verts()));
            triangles = triangles.saturating_add(count(s.triangles().len()));
            let engine = s.engine_name();
            let renamed = if engine.is_shortened(s.name().as_bytes())
                || engine.as_bytes() != s.name().as_bytes()
            {
                format!(" (engine '{engine}')")
            } else {
                String::new()
            };
            let shaders: Vec<String> = s.shaders().iter().map(|sh| sh.name().to_string()).collect();
            let mut row = format!(
                "'{}'{renamed}: {} vertices, {} triangles, shader '{}'",
                s.name(),
                s.num_verts(),
                s.triangles().len(),
                shaders.join("', '")
            );
            if let Some(skin) = &skin {
                match skin.shader_for(engine.as_bytes(), Engine::Ioq3) {
                    Some(sh) if !sh.is_empty() => {
                        let _ = write!(row, "; skin: '{}'", idmodel::core::Name::from_field(sh));
                    }
                    _ => row.push_str("; skin: none (default shader)"),
                }
            }
            details.push((format!("surface {}", s.index()), row));
        }
        let tags: Vec<String> = md3.tag_names().map(|n| n.to_string()).collect();
        if !tags.is_empty() {
            details.push(("tag names".to_owned(), tags.join(", ")));
        }
        let frames = md3.frames();
        if let (Some(first), Some(last)) = (frames.first(), frames.last()) {
            details.push((
                "frame names".to_owned(),
                format!("'{}' .. '{}'", first.name(), last.name()),
            ));
        }
        details.push(("skin file".to_owned(), match (&side.skin, &skin) {
                (Some(f), Some(s)) => format!(
                    "{} ({} surface entries); materials from it",
                    f.name,
                    s.num_surfaces()
                ),
                (Some(f), None) => format!(
                    "{} is not usable (no surface entries or unreadable); materials from the surfaces' shader names",
                    f.name
                ),
                (None, _) => format!(
                    "none ({}_default.skin not found); materials from the surfaces' shader names",
                    side.part
                ),
            }));
        let source = match &side.cfg {
            CfgUse::Missing => "no animation.cfg".to_owned(),
            CfgUse::NotForPart => format!(
                "animation.cfg not used ('{}' is not lower or upper)",
                side.part
            ),
            CfgUse::Q3 { entries, skip } => format!(
                "animation.cfg, Quake III rules ({entries} entries, legs frames moved back by {skip})"
            ),
            CfgUse::Unusable(why) => format!("not from animation.cfg: {why}"),
        };
        let default = if matches!(side.cfg, CfgUse::Q3 { .. }) || side.clips.is_empty() {
            ""
        } else {
            " (one clip of all frames at the default 15 fps: MD3 stores no rate)"
        };
        details.push((
            "animations".to_owned(),
            format!(
                "{} clip{}; {source}{default}",
                side.clips.len(),
                if side.clips.len() == 1 { "" } else { "s" }
            ),
        ));
        for c in &side.clips {
            details.push((format!("  {}", c.name), c.to_string()));
        }
        let findings: Vec<String> = ENGINES
            .iter()
            .map(|&e| format!("{} for {}", md3.findings(e).len(), e.name()))
            .collect();
        details.push((
            "findings".to_owned(),
            format!(
                "{} (the model only; see idmodel check)",
                findings.join(", ")
            ),
        ));
        let bounds = Bounds::of(
            md3.surfaces()
                .filter_map(|s| s.positions(0).map(Iterator::collect::<Vec<_>>))
                .flatten(),
        );
        Ok(Info {
            format: input.format.id(),
            frames: count(md3.num_frames()),
            vertices,
            triangles,
            surfaces: Some(count(md3.num_surfaces())),
            tags: Some(count(md3.num_tags())),
            bounds,
            clips: Some(side.clips.iter().map(|c| c.name.clone()).collect()),
            skin_names: Some(skin_names(
                input.path.parent().unwrap_or(Path::new("")),
                &side.part,
            )),
            shaders: Some(shader_names(&md3)),
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md3 = parse(input.bytes)?;
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let part = part_name(input.path);
        let skin_file = SkinFile::find(dir, &part);
        let cfg_text = (Role::of(&part) != Role::Other)
            .then(|| sidecar(dir, "animation.cfg"))
            .flatten();
        let mut out = Vec::new();
        for e in super::engines(ENGINES, engine) {
            // A side file that does not parse: the engine refuses it.
            let refused = |file: &str, err: &dyn std::fmt::Display| {
                let message = err.to_string();
                Finding {
                    engine: e,
                    file: Some(file.to_owned()),
                    severity: idmodel::core::Severity::Refused,
                    code: "side-file-refused",
                    location: super::Location::in_message(&message),
                    message,
                }
            };
            out.extend(md3.findings(e).iter().map(|f| Finding::of(f, None)));
            if let Some(file) = &skin_file {
                match Skin::parse(&file.text) {
                    Ok(skin) => {
                        for f in skin.findings(Some(&md3), e) {
                            out.push(Finding::of(&f, Some(&file.name)));
                        }
                    }
                    Err(err) => out.push(refused(&file.name, &err)),
                }
            }
            if let Some(text) = &cfg_text {
                match AnimationCfg::parse(text) {
                    Ok(cfg) => {
                        // This part's frame count for both models; keep only the
                        // range findings about this part.
                        let n = md3.num_frames();
                        for f in cfg.findings(Some((n, n)), e) {
                            if let idmodel::md3::AnimFindingKind::FramesOutOfRange {
                                model, ..
                            } = f.kind
                            {
                                if model != part {
                                    continue;
                                }
                            }
                            out.push(Finding::of(&f, Some("animation.cfg")));
                        }
                    }
                    Err(err) => out.push(refused("animation.cfg", &err)),
                }
            }
        }
        Ok(out)
    }

    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md3 = parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3, request.skin)?;
        adapter::scene(&md3, &input.name(), &side.sidecars(), &request.options())
            .map_err(Failure::from)
    }

    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md3 = parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3, request.skin)?;
        adapter::frame(&md3, &input.name(), &side.sidecars(), &request.options())
            .map_err(Failure::from)
    }
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects
)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris() {
        assert_eq!(part_name(Path::new("a/lower_1.md3")), "lower");
        assert_eq!(part_name(Path::new("a/Upper.MD3")), "upper");
        assert_eq!(part_name(Path::new("_1.md3")), "_1");
    }
}
