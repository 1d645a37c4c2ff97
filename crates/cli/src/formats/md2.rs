//! Quake II MD2, read with `idmodel::md2` and turned into a scene by
//! `idmodel_scene::md2` (whose module docs say what the outputs hold: the software
//! renderer's triangle list, every frame a morph target, clips by frame name at 10 fps,
//! skins as image URIs). This module does the I/O, `info` and `check`.

use idmodel::md2::{self as file, ENGINES, Md2 as Model};
use idmodel_scene::Scene;
use idmodel_scene::md2::{self as adapter, FPS};

use super::{Bounds, Engine, Finding, Info, Input, ModelFormat, Request, count};
use crate::failure::Failure;

/// The Quake II MD2 module.
pub struct Md2;

fn parse<'a>(input: &Input<'a>) -> Result<Model<'a>, Failure> {
    Model::parse(input.bytes).map_err(Failure::from)
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
        let md2 = parse(input)?;
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
        details.push((
            "animations".to_owned(),
            format!(
                "{} by frame name, at {FPS} fps (default: MD2 stores no rate)",
                anims.len()
            ),
        ));
        for a in &anims {
            details.push((
                format!("  {}", a.name),
                format!(
                    "frames {}-{} ({})",
                    a.frames.start,
                    a.frames.end.saturating_sub(1),
                    a.frames.len()
                ),
            ));
        }
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
            clips: Some(anims.iter().map(|a| a.name.to_string()).collect()),
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md2 = parse(input)?;
        Ok(super::findings(ENGINES, engine, |e| md2.findings(e)))
    }

    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md2 = parse(input)?;
        Ok(adapter::scene(&md2, &input.name(), &request.options())?)
    }

    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md2 = parse(input)?;
        Ok(adapter::frame(&md2, &input.name(), &request.options())?)
    }
}
