//! Quake MDL, read with `idmodel::mdl` and turned into a scene by
//! `idmodel_scene::mdl` (whose module docs say what the outputs hold: welded topology,
//! every pose a morph target, clips by frame name and frame group at QuakeSpasm's timing,
//! palette skins embedded). This module does the I/O, `info` and `check`.

use crate::idmodel::mdl::{self as file, ENGINES, Mdl as Model, SeamRule, WeldedMesh};
use idmodel_scene::mdl as adapter;

use super::{Bounds, Built, Engine, Finding, Info, Input, ModelFormat, Request, Shape, count};
use crate::failure::Failure;

/// The Quake MDL module.
pub struct Mdl;

/// The `info` detail lines.
fn details(mdl: &Model<'_>, mesh: &WeldedMesh) -> Vec<(String, String)> {
    let mut d = Vec::new();
    let mut push = |k: &str, v: String| d.push((k.to_owned(), v));
    push(
        "skin size",
        format!("{}x{}", mdl.skin_width(), mdl.skin_height()),
    );
    for (i, skin) in mdl.skins().enumerate() {
        let v = if skin.is_group() {
            let iv: Vec<String> = skin.intervals().map(|t| t.to_string()).collect();
            format!(
                "group of {} images, intervals {} s (glTF: image 0)",
                skin.image_count(),
                iv.join(", ")
            )
        } else {
            "single image".to_owned()
        };
        push(&format!("skin {i}"), v);
    }
    let flags = mdl.flags();
    push(
        "flags",
        if flags.bits() == 0 {
            "none".to_owned()
        } else {
            format!("{flags} ({:#x})", flags.bits())
        },
    );
    push(
        "synctype",
        match mdl.sync_type() {
            0 => "0 (sync)".to_owned(),
            1 => "1 (random)".to_owned(),
            v => format!("{v} (unknown, treated as sync)"),
        },
    );
    let [sx, sy, sz] = mdl.scale();
    let [ox, oy, oz] = mdl.origin();
    push("scale", format!("({sx}, {sy}, {sz})"));
    push("origin", format!("({ox}, {oy}, {oz})"));
    push("bounding radius", mdl.bounding_radius().to_string());
    let [ex, ey, ez] = mdl.eye_position();
    push("eye position", format!("({ex}, {ey}, {ez})"));
    push(
        "frame entries",
        format!(
            "{} ({} poses{})",
            mdl.frame_count(),
            mdl.pose_count(),
            if mdl.has_frame_groups() {
                ", with frame groups"
            } else {
                ""
            }
        ),
    );
    push(
        "topology",
        format!(
            "QuakeSpasm welded mesh (GL seam rule): {} glTF vertices",
            mesh.vertices.len()
        ),
    );
    let anims: Vec<file::Animation<'_>> = mdl.animations().collect();
    push(
        "animations",
        format!(
            "{} by frame name and frame group, single frames at 10 fps (default: MDL stores no rate), group poses at the group's first interval",
            anims.len()
        ),
    );
    let frames: Vec<file::Frame<'_>> = mdl.frames().collect();
    for a in &anims {
        let entries = frames.get(a.frames.clone()).unwrap_or(&[]);
        let first_pose = entries.first().map_or(0, file::Frame::first_pose);
        let poses: usize = entries.iter().map(file::Frame::pose_count).sum();
        let groups = entries.iter().filter(|f| f.is_group()).count();
        let names = match (entries.first(), entries.last()) {
            (Some(f), Some(l)) if entries.len() > 1 => format!("{} .. {}", f.name(), l.name()),
            (Some(f), _) => f.name().to_string(),
            _ => String::new(),
        };
        push(
            &format!("  {}", String::from_utf8_lossy(a.name.as_bytes())),
            format!(
                "poses {}-{} ({poses}; {names}{})",
                first_pose,
                first_pose.saturating_add(poses).saturating_sub(1),
                if groups > 0 {
                    format!("; {groups} frame group(s)")
                } else {
                    String::new()
                }
            ),
        );
    }
    if !mdl.trailing().is_empty() {
        push(
            "trailing bytes",
            format!(
                "{} at byte {} (ignored by the engines)",
                mdl.trailing().len(),
                mdl.trailing_offset()
            ),
        );
    }
    let findings: usize = ENGINES.iter().map(|e| mdl.findings(*e).len()).sum();
    push(
        "findings",
        if findings == 0 {
            "none (winquake, glquake, quakespasm)".to_owned()
        } else {
            format!("{findings} over winquake, glquake, quakespasm (see idmodel check)")
        },
    );
    d
}

impl ModelFormat for Mdl {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let mdl = Model::parse(input.bytes)?;
        let first = adapter::pose(&mdl, None)?;
        let mesh = mdl.welded_mesh(SeamRule::Gl);
        Ok(Info {
            format: input.format.id(),
            frames: count(mdl.pose_count()),
            vertices: count(mdl.vertex_count()),
            triangles: count(mdl.triangles().len()),
            skins: Some(count(mdl.skin_count())),
            bounds: Bounds::of(first.positions()),
            clips: Some(
                mdl.animations()
                    .map(|a| String::from_utf8_lossy(a.name.as_bytes()).into_owned())
                    .collect(),
            ),
            details: details(&mdl, &mesh),
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let mdl = Model::parse(input.bytes)?;
        Ok(super::findings(ENGINES, engine, |e| mdl.findings(e)))
    }

    fn build(&self, input: &Input<'_>, request: &Request<'_>, shape: Shape) -> Built {
        let mdl = Model::parse(input.bytes)?;
        let build = match shape {
            Shape::Scene => adapter::scene,
            Shape::Frame => adapter::frame,
        };
        Ok(build(&mdl, &input.name(), &request.options())?)
    }
}
