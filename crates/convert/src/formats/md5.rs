//! Doom 3 MD5 (`.md5mesh`, `.md5anim`, `.md5camera`), read with `idmodel::md5` and turned
//! into scenes by `idmodel_scene::md5` (whose module docs say what the outputs hold:
//! skinned joint hierarchies, Doom's normals on the mesh as Doom draws it, md5anim clips,
//! bare-anim skeletons, animated cameras). This module reads the files (the mesh and its
//! `--anim` files, printing the adapter's joint-name warnings on stderr), and writes `info`
//! and `check`.
//!
//! - **`info`**: md5mesh: `meshes`, `joints`, vertices and triangles summed over meshes,
//!   `frames` 0, `bounds` of the bind-pose skinned positions of every vertex. md5anim:
//!   `frames`, `joints`, vertices and triangles 0, `bounds` from the file's `bounds` block
//!   for frame 0 (Doom's culling box; the anim has no vertices of its own). md5camera:
//!   `frames`, vertices and triangles 0, `bounds` null.

use core::fmt::Write as _;

use crate::idmodel::Format;
use crate::idmodel::core::quat::Vec3;
use crate::idmodel::md5::anim::{self, Anim};
use crate::idmodel::md5::camera::{self, Camera as CameraFile};
use crate::idmodel::md5::mesh::{self, Model};
use crate::idmodel::md5::pose;
use crate::idmodel::md5::{ENGINES, skinning};
use idmodel_scene::md5::{self as adapter, ZERO_RATE_FPS};

use super::{Bounds, Built, Engine, Finding, Info, Input, ModelFormat, Request, Shape, count};
use crate::failure::Failure;

/// The Doom 3 MD5 (md5mesh, md5anim, md5camera) module.
pub struct Md5;

/// How many joint names `info` lists.
const LISTED_JOINTS: usize = 12;

// ---------------------------------------------------------------------------------------
// Parsing and small helpers

/// The `--anim` files, parsed and checked against the mesh's joints (see
/// `idmodel_scene::md5::mesh::fit`), with their names (file stems).
fn mesh_anims(model: &Model, request: &Request<'_>) -> Result<Vec<(String, Anim)>, Failure> {
    let mut out = Vec::with_capacity(request.anims.len());
    for a in request.anims {
        let shown = a.path.display();
        let anim =
            Anim::parse(a.bytes).map_err(|f| Failure::new(format!("--anim {shown}: {f}")))?;
        let warning = adapter::mesh::fit(model, &anim)
            .map_err(|e| Failure::new(format!("--anim {shown}: {e}")))?;
        if let Some(w) = warning {
            eprintln!("idmodel: {shown}: warning: {w}");
        }
        out.push((a.name(), anim));
    }
    Ok(out)
}

/// The anims as the adapters take them.
fn named(anims: &[(String, Anim)]) -> Vec<(&str, &Anim)> {
    anims.iter().map(|(n, a)| (n.as_str(), a)).collect()
}

/// `--anim` is for an md5mesh only.
fn no_anims(request: &Request<'_>) -> Result<(), Failure> {
    if request.anims.is_empty() {
        Ok(())
    } else {
        Err(Failure::new("--anim applies to an md5mesh"))
    }
}

// ---------------------------------------------------------------------------------------
// Meshes

fn mesh_info(input: &Input<'_>) -> Result<Info, Failure> {
    let model = Model::parse(input.bytes)?;
    let bind = model.bind_pose();
    let mut points: Vec<Vec3> = Vec::new();
    let mut details = Vec::new();
    let mut vertices = 0u64;
    let mut triangles = 0u64;
    let mut most_weights = 0usize;
    for (i, m) in model.meshes.iter().enumerate() {
        let mut out = vec![[0.0f32; 3]; m.vertices.len()];
        skinning::skin(&m.vertices, &m.weights, &bind, &mut out);
        points.extend(out);
        vertices = vertices.saturating_add(count(m.vertices.len()));
        triangles = triangles.saturating_add(count(m.triangles.len()));
        let heaviest = m
            .vertices
            .iter()
            .map(|v| v.weights().len())
            .max()
            .unwrap_or(0);
        most_weights = most_weights.max(heaviest);
        let mut line = String::new();
        if let Some(n) = &m.name {
            let _ = write!(line, "{n:?}, ");
        }
        let _ = write!(
            line,
            "shader {:?}, {} vertices, {} triangles, {} weights (at most {heaviest} per vertex)",
            m.shader,
            m.vertices.len(),
            m.triangles.len(),
            m.weights.len()
        );
        details.push((format!("mesh {i}"), line));
    }
    let mut head = vec![("commandline".to_owned(), format!("{:?}", model.commandline))];
    let mut names: Vec<String> = model
        .joints
        .iter()
        .take(LISTED_JOINTS)
        .map(|j| j.name.clone())
        .collect();
    if model.joints.len() > LISTED_JOINTS {
        names.push(format!(
            "… ({} more)",
            model.joints.len().saturating_sub(LISTED_JOINTS)
        ));
    }
    head.push(("joint names".to_owned(), names.join(", ")));
    head.push((
        "roots".to_owned(),
        model
            .joints
            .iter()
            .filter(|j| j.parent < 0)
            .map(|j| j.name.clone())
            .collect::<Vec<_>>()
            .join(", "),
    ));
    if most_weights > 0 {
        head.push((
            "weights per vertex".to_owned(),
            if most_weights > 8 {
                format!("at most {most_weights}; glTF export keeps the 8 largest")
            } else {
                format!("at most {most_weights}")
            },
        ));
    }
    head.extend(details);
    Ok(Info {
        format: Format::Md5Mesh.id(),
        frames: 0,
        vertices,
        triangles,
        meshes: Some(count(model.meshes.len())),
        joints: Some(count(model.joints.len())),
        bounds: Bounds::of(points),
        shaders: Some(crate::info::unique(
            model.meshes.iter().map(|m| m.shader.clone()),
        )),
        details: head,
        ..Info::default()
    })
}

// ---------------------------------------------------------------------------------------
// Anims on their own

fn anim_info(input: &Input<'_>) -> Result<Info, Failure> {
    let anim = Anim::parse(input.bytes)?;
    let mut details = vec![
        ("commandline".to_owned(), format!("{:?}", anim.commandline)),
        (
            "frame rate".to_owned(),
            if anim.frame_rate > 0 {
                format!("{} fps", anim.frame_rate)
            } else {
                format!("0 (Doom 3 divides by zero; exported at {ZERO_RATE_FPS} fps)")
            },
        ),
    ];
    if let Ok(frames) = u32::try_from(anim.frames.len())
        && let Some(ms) = pose::anim_length_ms(frames, anim.frame_rate)
    {
        details.push(("length".to_owned(), format!("{ms} ms")));
    }
    details.push((
        "animated components".to_owned(),
        anim.num_animated_components.to_string(),
    ));
    let animated = anim.hierarchy.iter().filter(|h| h.flags != 0).count();
    details.push((
        "animated joints".to_owned(),
        format!("{animated} of {}", anim.hierarchy.len()),
    ));
    if let Some(root) = anim.hierarchy.first() {
        details.push(("root joint".to_owned(), root.name.clone()));
    }
    details.push((
        "bounds source".to_owned(),
        "the file's bounds block, frame 0".to_owned(),
    ));
    Ok(Info {
        format: Format::Md5Anim.id(),
        frames: count(anim.frames.len()),
        joints: Some(count(anim.hierarchy.len())),
        bounds: anim.bounds.first().map(|b| Bounds {
            min: b[0],
            max: b[1],
        }),
        details,
        ..Info::default()
    })
}

// ---------------------------------------------------------------------------------------
// Cameras

fn camera_info(input: &Input<'_>) -> Result<Info, Failure> {
    let cam = CameraFile::parse(input.bytes)?;
    let mut details = vec![
        ("commandline".to_owned(), format!("{:?}", cam.commandline)),
        ("frame rate".to_owned(), format!("{} fps", cam.frame_rate)),
        (
            "cuts".to_owned(),
            if cam.cuts.is_empty() {
                "none".to_owned()
            } else {
                cam.cuts
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ),
        ("length".to_owned(), format!("{} ms", cam.duration_ms())),
    ];
    let fovs = cam.frames.iter().map(|f| f.fov).filter(|f| f.is_finite());
    let (lo, hi) = fovs.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), f| {
        (lo.min(f), hi.max(f))
    });
    if lo <= hi {
        details.push((
            "horizontal fov".to_owned(),
            if lo < hi {
                format!("{lo}° to {hi}° (glTF export: the first frame's, not animated)")
            } else {
                format!("{lo}°")
            },
        ));
    }
    Ok(Info {
        format: Format::Md5Camera.id(),
        frames: count(cam.frames.len()),
        bounds: None,
        details,
        ..Info::default()
    })
}

// ---------------------------------------------------------------------------------------
// The module

impl ModelFormat for Md5 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        match input.format {
            Format::Md5Mesh => mesh_info(input),
            Format::Md5Anim => anim_info(input),
            Format::Md5Camera => camera_info(input),
            other => Err(Failure::wrong_module(other)),
        }
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let mut out = Vec::new();
        let mut sink = |f: crate::idmodel::md5::Finding| {
            let mut finding = Finding::of(&f, None);
            // The exact place, offset included, rather than the one the message names.
            if let Some(at) = f.at {
                finding.location = Some(super::Location {
                    offset: u64::try_from(at.offset).ok(),
                    line: Some(u64::from(at.line)),
                    column: Some(u64::from(at.column)),
                });
            }
            out.push(finding);
        };
        // Parsed (and refused) whatever the engine; checked for each MD5 engine asked.
        match input.format {
            Format::Md5Mesh => {
                let file = mesh::parse(input.bytes)?;
                super::engines(ENGINES, engine).for_each(|e| file.check(e, &mut sink));
            }
            Format::Md5Anim => {
                let file = anim::parse(input.bytes)?;
                super::engines(ENGINES, engine).for_each(|e| file.check(e, &mut sink));
            }
            Format::Md5Camera => {
                let file = camera::parse(input.bytes)?;
                super::engines(ENGINES, engine).for_each(|e| file.check(e, &mut sink));
            }
            other => return Err(Failure::wrong_module(other)),
        }
        Ok(out)
    }

    fn build(&self, input: &Input<'_>, request: &Request<'_>, shape: Shape) -> Built {
        let (name, options) = (input.name(), request.options());
        let frame = shape == Shape::Frame;
        match input.format {
            Format::Md5Mesh => {
                let model = Model::parse(input.bytes)?;
                if !frame {
                    // Before the anims are read (the adapter checks it again), so a mesh
                    // with too many joints is refused as such whatever its --anim files
                    // hold.
                    adapter::mesh::check_joints(&model)?;
                }
                let anims = mesh_anims(&model, request)?;
                let build = if frame {
                    adapter::mesh::frame_with
                } else {
                    adapter::mesh::scene_with
                };
                Ok(build(&model, &name, &options, &named(&anims))?)
            }
            Format::Md5Anim => {
                no_anims(request)?;
                let build = if frame {
                    adapter::anim::frame
                } else {
                    adapter::anim::scene
                };
                Ok(build(&Anim::parse(input.bytes)?, &name, &options)?)
            }
            Format::Md5Camera if frame => {
                CameraFile::parse(input.bytes)?;
                Err(Failure::new(
                    "an md5camera is a camera path with nothing to draw; convert it to .glb or .gltf",
                ))
            }
            Format::Md5Camera => {
                no_anims(request)?;
                let camera = CameraFile::parse(input.bytes)?;
                Ok(adapter::camera::scene(&camera, &name, &options)?)
            }
            other => Err(Failure::wrong_module(other)),
        }
    }
}
