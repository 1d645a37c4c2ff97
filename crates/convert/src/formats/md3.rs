//! Quake III MD3, read with `idmodel::md3`, with the `.skin` and `animation.cfg` files
//! that sit next to a player model.
//!
//! This module does the I/O (side files next to the model, player folders), the `info`
//! text and the `check` findings; turning a model into a scene is
//! [`idmodel_scene::md3`], whose module docs say what the outputs hold.

use core::fmt::Write as _;
use std::path::Path;

use crate::idmodel::md3::{AnimationCfg, ENGINES, Md3 as Model, Skin};
use idmodel_scene::md3::{self as adapter, CfgUse, Clip, PLAYER_PARTS, Role};

use super::{Bounds, Built, Engine, Finding, Info, Input, ModelFormat, Request, Shape, count};
use crate::failure::Failure;

/// The Quake III MD3 module.
pub struct Md3;

/// Side files larger than this are ignored (the engine reads at most 20 KB of
/// `animation.cfg`; skins are a few hundred bytes).
pub(crate) const MAX_SIDECAR: u64 = 1 << 20;

// ---------------------------------------------------------------------------------------
// Side files

/// The bytes of `dir/name` when it is a readable regular file of a sane size (read by
/// the command's one read function: never blocks on a FIFO, remembered as an input).
pub(crate) fn sidecar(dir: &Path, name: &str) -> Option<Vec<u8>> {
    crate::archives::read(&dir.join(name), MAX_SIDECAR).ok()
}

/// The part name of a model file (`lower_1.md3` → `lower`).
fn part_name(path: &Path) -> String {
    adapter::part_name(&path.file_name().unwrap_or_default().to_string_lossy())
}

/// The skin a part uses: `<part>_default.skin` (or `<part>_NAME.skin` for `--skin
/// NAME`) when it parses and has surface entries.
pub(crate) struct SkinFile {
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
    let mut names: Vec<String> = files
        .into_iter()
        .filter_map(|file| {
            let stem = file.to_ascii_lowercase().strip_suffix(".skin")?.to_owned();
            stem.strip_prefix(&prefix)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
        })
        .collect();
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
    pub(crate) fn chosen(
        dir: &Path,
        part: &str,
        skin: Option<&str>,
    ) -> Result<Option<SkinFile>, Failure> {
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
    pub(crate) fn usable(&self) -> Option<Skin<'_>> {
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

// ---------------------------------------------------------------------------------------
// Player models

/// True when `dir` directly holds `lower.md3`, `upper.md3` and `head.md3`: `convert`
/// then assembles one player model instead of converting each file.
pub fn is_player_folder(dir: &Path) -> bool {
    PLAYER_PARTS
        .iter()
        .all(|p| crate::archives::is_file(&dir.join(format!("{p}.md3"))))
}

/// The frame counts of the LODs of the model at `path` when it is a LOD 0 with LODs
/// beside it (`x.md3` and `x_1.md3`, `x_2.md3`, as the engines name them): LOD 0's
/// `frames`, then each LOD's (`None` for one that is missing or does not parse).
fn lod_frames(path: &Path, frames: usize) -> Option<Vec<Option<usize>>> {
    let stem = path.file_stem()?.to_str()?;
    let is_lod = stem
        .rsplit_once('_')
        .is_some_and(|(_, n)| n == "1" || n == "2");
    if is_lod {
        return None;
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let count = |k: u8| {
        let bytes = crate::archives::read_file(&dir.join(format!("{stem}_{k}.md3"))).ok()?;
        Model::parse(&bytes).ok().map(|m| m.num_frames())
    };
    let lods = [count(1), count(2)];
    lods.iter()
        .any(Option::is_some)
        .then(|| [Some(frames), lods[0], lods[1]].to_vec())
}

// ---------------------------------------------------------------------------------------
// The four answers

impl ModelFormat for Md3 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let md3 = Model::parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3, None)?;
        let skin = side.skin.as_ref().and_then(SkinFile::usable);
        let mut details = vec![("name".to_owned(), md3.name().to_string())];
        let mut vertices = 0u64;
        let mut triangles = 0u64;
        let mut all_shaders = Vec::new();
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
            all_shaders.extend(shaders.iter().cloned());
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
                        let _ = write!(
                            row,
                            "; skin: '{}'",
                            crate::idmodel::core::Name::from_field(sh)
                        );
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
            shaders: Some(crate::info::unique(all_shaders)),
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md3 = Model::parse(input.bytes)?;
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let part = part_name(input.path);
        let skin_file = SkinFile::find(dir, &part);
        let cfg_text = (Role::of(&part) != Role::Other)
            .then(|| sidecar(dir, "animation.cfg"))
            .flatten();
        let lods = lod_frames(input.path, md3.num_frames());
        let mut out = Vec::new();
        for e in super::engines(ENGINES, engine) {
            let refused = |file: &str, err: &dyn std::fmt::Display| Finding::refused(e, file, err);
            out.extend(md3.findings(e).iter().map(|f| Finding::of(f, None)));
            if let Some(frames) = &lods {
                out.extend(
                    crate::idmodel::md3::lod_frame_findings(e, frames)
                        .iter()
                        .map(|f| Finding::of(f, None)),
                );
            }
            if let Some(file) = &skin_file {
                match Skin::parse(&file.text) {
                    Ok(skin) => out.extend(
                        skin.findings(Some(&md3), e)
                            .iter()
                            .map(|f| Finding::of(f, Some(&file.name))),
                    ),
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
                            use crate::idmodel::md3::AnimFindingKind::FramesOutOfRange;
                            if !matches!(f.kind, FramesOutOfRange { model, .. } if model != part) {
                                out.push(Finding::of(&f, Some("animation.cfg")));
                            }
                        }
                    }
                    Err(err) => out.push(refused("animation.cfg", &err)),
                }
            }
        }
        Ok(out)
    }

    fn build(&self, input: &Input<'_>, request: &Request<'_>, shape: Shape) -> Built {
        let md3 = Model::parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3, request.skin)?;
        let build = match shape {
            Shape::Scene => adapter::scene_with,
            Shape::Frame => adapter::frame_with,
        };
        build(&md3, &input.name(), &request.options(), &side.sidecars()).map_err(Failure::from)
    }
}

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
