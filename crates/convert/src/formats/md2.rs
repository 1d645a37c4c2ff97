//! Quake II MD2, read with `idmodel::md2` and turned into a scene by
//! `idmodel_scene::md2` (whose module docs say what the outputs hold: the software
//! renderer's triangle list, every frame a morph target, clips by frame name at 10 fps,
//! skins as image URIs). This module does the I/O, `info` and `check`, and reads the
//! UFO:AI `.anm` clip table beside the model (`<model>.anm`, where the engine looks for
//! it). UFO:AI's `.tag` (tag frames) and `.mdx` (vertex remap) files are not read.

use std::path::Path;

use crate::idmodel::md2::{self as file, Anm, ENGINES, Md2 as Model};
use idmodel_scene::md2::{self as adapter, FPS, RateClip, Sidecars};

use super::{Bounds, Built, Engine, Finding, Info, Input, ModelFormat, Request, Shape, count};
use crate::failure::Failure;

/// The Quake II MD2 module.
pub struct Md2;

/// The `.anm` beside `model` read as clips (`None` when there is no such file); an
/// `.anm` the engine refuses is an error naming it.
fn anm_clips(model: &Path) -> Result<Option<Vec<RateClip>>, Failure> {
    let path = model.with_extension("anm");
    if !path.is_file() {
        return Ok(None);
    }
    let text = crate::archives::read_file(&path)?;
    let anm = Anm::parse(&text).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    Ok(Some(RateClip::from_anm(&anm)))
}

/// What the adapter takes from beside the model and from `--keep-normals`.
fn sidecars(input: &Input<'_>, keep_normals: bool) -> Result<Sidecars, Failure> {
    Ok(Sidecars {
        clips: anm_clips(input.path)?.unwrap_or_default(),
        keep_normals,
    })
}

/// `frames 0-39 (40)`: a clip's frames for `info`.
fn frames_text(frames: &core::ops::Range<usize>) -> String {
    let last = frames.end.saturating_sub(1);
    format!("frames {}-{last} ({})", frames.start, frames.len())
}

/// Whether the GL command list agrees with the triangle list, for `info`.
fn gl_summary(md2: &Model<'_>, findings: &[file::Finding]) -> String {
    for f in findings {
        match f.kind {
            file::FindingKind::NoGlCommands { .. } => {
                return "none (num_glcmds = 0); exports use the triangle list".to_owned();
            }
            file::FindingKind::GlCommandsInvalid {
                error,
                swapped_layout,
            } => {
                return format!(
                    "unreadable ({error}){}; exports use the triangle list",
                    if swapped_layout {
                        ", written as index, s, t"
                    } else {
                        ""
                    }
                );
            }
            file::FindingKind::GlMismatch {
                gl_triangles,
                unmatched,
                ..
            } => {
                return format!(
                    "{} strips/fans drawing {gl_triangles} triangles, which disagree with the triangle list ({unmatched} not in it); exports use the triangle list",
                    md2.gl_commands().len()
                );
            }
            _ => {}
        }
    }
    format!(
        "{} strips/fans drawing {} triangles, the same as the triangle list",
        md2.gl_commands().len(),
        md2.gl_triangle_count()
    )
}

impl ModelFormat for Md2 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let md2 = Model::parse(input.bytes)?;
        let first = adapter::frame_at(&md2, None)?;
        let findings = md2.findings(Engine::Quake2);
        let mut details = vec![(
            "skin size".to_owned(),
            format!("{}x{}", md2.skin_width(), md2.skin_height()),
        )];
        for (i, name) in md2.skins().enumerate() {
            details.push((format!("skin {i}"), name.to_string()));
        }
        details.push(("st".to_owned(), md2.st().len().to_string()));
        let mesh = md2.soft_mesh();
        details.push((
            "topology".to_owned(),
            format!(
                "triangle list + st (software renderer): {} glTF vertices after splitting UV seams",
                mesh.vertices.len()
            ),
        ));
        details.push(("GL commands".to_owned(), gl_summary(&md2, &findings)));
        let last = md2.frame_or_first(md2.frame_count().saturating_sub(1));
        details.push((
            "frame names".to_owned(),
            format!("{} .. {}", first.name(), last.name()),
        ));
        let anims: Vec<file::Animation<'_>> = md2.animations().collect();
        let anm = anm_clips(input.path)?;
        let clips: Vec<String> = match &anm {
            Some(table) => {
                details.push((
                    "animations".to_owned(),
                    format!(
                        "{} from {} (UFO:AI), each at its own rate",
                        table.len(),
                        input.path.with_extension("anm").display()
                    ),
                ));
                for c in table {
                    let row = format!("{} at {} fps", frames_text(&c.frames), c.fps);
                    details.push((format!("  {}", c.name), row));
                }
                table.iter().map(|c| c.name.clone()).collect()
            }
            None => {
                details.push((
                    "animations".to_owned(),
                    format!(
                        "{} by frame name, at {FPS} fps (default: MD2 stores no rate)",
                        anims.len()
                    ),
                ));
                for a in &anims {
                    details.push((format!("  {}", a.name), frames_text(&a.frames)));
                }
                anims.iter().map(|a| a.name.to_string()).collect()
            }
        };
        details.push((
            "normals".to_owned(),
            match md2.single_normal_index() {
                Some(i) => format!(
                    "every vertex uses normal index {i}: converted with smooth normals computed from the triangles (--keep-normals keeps the file's)"
                ),
                None => "from the file (lightnormalindex)".to_owned(),
            },
        ));
        details.push((
            "findings".to_owned(),
            if findings.is_empty() {
                "none (quake2)".to_owned()
            } else {
                format!("{} for quake2 (see idmodel check)", findings.len())
            },
        ));
        Ok(Info {
            format: input.format.id(),
            frames: count(md2.frame_count()),
            vertices: count(md2.vertex_count()),
            triangles: count(md2.triangles().len()),
            skins: Some(count(md2.skin_fields().len())),
            bounds: Bounds::of(first.positions()),
            clips: Some(clips),
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md2 = Model::parse(input.bytes)?;
        Ok(super::findings(ENGINES, engine, |e| md2.findings(e)))
    }

    fn build(&self, input: &Input<'_>, request: &Request<'_>, shape: Shape) -> Built {
        let md2 = Model::parse(input.bytes)?;
        let side = sidecars(input, request.keep_normals)?;
        let build = match shape {
            Shape::Scene => adapter::scene_with,
            Shape::Frame => adapter::frame_with,
        };
        Ok(build(&md2, &input.name(), &request.options(), &side)?)
    }
}
