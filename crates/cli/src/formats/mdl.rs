//! Quake MDL, read with `idmodel::mdl`.
//!
//! What the outputs hold (the conventions issue #7 asks to document):
//!
//! - **Topology**: QuakeSpasm's welded mesh (`Mdl::welded_mesh` with the GL seam rule):
//!   one vertex per (source vertex, seam side) in order of first use, where back-facing
//!   triangles use the copy of a seam vertex moved by half the skin width. UVs are
//!   GLQuake's `(s + 0.5) / skinwidth`, `(t + 0.5) / skinheight`, `[0, 0]` the top-left
//!   of the skin. One mesh, one primitive.
//! - **Poses**: every pose counts, single frames and each member of a frame group, in
//!   file order (the engines' `posenum`; `info` reports their number as `frames`, and
//!   `--frame N` picks pose `N`). Pose 0 is the base mesh; every other pose is a morph
//!   target holding the displacements of POSITION and NORMAL relative to pose 0, named
//!   after the pose.
//! - **Animations**: one clip per animation range of `Mdl::animations` (consecutive frame
//!   entries whose names share a base, `run1`…`run6` → `run`; a frame group is one entry
//!   whose poses all play). Timing is QuakeSpasm's: a single frame lasts **0.1 s**
//!   (10 fps, the documented default: MDL stores no rate for single frames and QuakeC
//!   steps them with `nextthink = time + 0.1`), a pose of a frame group lasts the group's
//!   first interval (the GL rule; 0.1 s when that interval is not a usable positive
//!   number). Key `k` sets the weight of its pose's target to 1 and every other weight to
//!   0 (all 0 for pose 0), with **LINEAR** interpolation: QuakeSpasm and the later ports
//!   blend between poses over exactly these durations (`r_lerpmodels`, on by default),
//!   and a linear ramp of one-hot weights is that blend. WinQuake and GLQuake snap from
//!   pose to pose instead, which STEP would reproduce.
//! - **Skins**: one material per skin entry, its image converted to RGBA through the Quake
//!   palette and embedded (a PNG in the glTF). For a skin group, image 0 of the group is
//!   used; the group's other images are not exported. The primitive uses skin 0. With
//!   the `MF_HOLEY` flag (0x4000), palette index 255 is transparent and the materials use
//!   alpha masking, as QuakeSpasm draws it.
//! - **`--frame N`**: pose `N` alone is the base; no morph targets, no animation.
//! - Everything is in file axes and the file's clockwise winding; the exporter converts.

use idmodel::mdl::{
    self as file, ENGINES, Flags, Mdl as Model, Palette, SeamRule, SkinOptions, WeldedMesh,
};
use idmodel_gltf::{
    AlphaMode, Animation, Channel, ChannelValues, Image, Interpolation, Material, Mesh,
    MorphTarget, Node, Primitive, Scene,
};

use super::{Bounds, Engine, Finding, FrameMesh, Info, Input, ModelFormat, Request};
use crate::failure::Failure;

/// The Quake MDL module.
pub struct Mdl;

/// Seconds a single frame lasts (MDL stores no rate; QuakeC thinks every 0.1 s).
const FRAME_TIME: f64 = 0.1;

/// Frame-group intervals outside this range are not used for timing (0.1 s instead):
/// zero, negative and non-finite values break the engines' own timing, and absurd ones
/// would make key times lose precision.
const USABLE_INTERVAL: core::ops::RangeInclusive<f32> = 0.001..=60.0;

/// Largest glTF buffer (morph displacements and animation weights, in bytes) an
/// animated export may need; beyond it the export is refused with a hint to use
/// `--frame`, so a small hostile file cannot ask for gigabytes.
const MAX_MORPH_BYTES: u64 = 1 << 30;

/// Alpha cutoff of `MF_HOLEY` skins (index 255 has alpha 0, every other texel 255).
const HOLEY_CUTOFF: f32 = 0.5;

fn parse<'a>(input: &Input<'a>) -> Result<Model<'a>, Failure> {
    Model::parse(input.bytes).map_err(Failure::from)
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The pose `frame` asks for (default 0), or a failure naming the valid range.
fn pose_of<'a>(mdl: &Model<'a>, frame: Option<usize>) -> Result<file::Pose<'a>, Failure> {
    let n = frame.unwrap_or(0);
    mdl.pose(n).ok_or_else(|| {
        Failure::new(format!(
            "frame {n} is out of range: the model has {} poses (0 to {}, every member of a frame group counted)",
            mdl.pose_count(),
            mdl.pose_count().saturating_sub(1)
        ))
    })
}

/// The primitive of `pose` (no morph targets), with material 0 (skin 0).
fn primitive(pose: &file::Pose<'_>, mesh: &WeldedMesh) -> Primitive {
    Primitive {
        positions: mesh.positions(pose),
        normals: mesh.normals(pose),
        uvs: mesh.vertices.iter().map(|v| v.uv).collect(),
        indices: mesh.indices.clone(),
        material: Some(0),
        ..Primitive::default()
    }
}

/// One material per skin entry (`skin_N`, or `skin_N_group_image_0` for a skin group):
/// its first image through the Quake palette.
fn materials(mdl: &Model<'_>) -> Vec<Material> {
    let holey = mdl.flags().contains(Flags::HOLEY);
    let options = SkinOptions {
        palette: Palette::QUAKE,
        transparent_255: holey,
    };
    let size = u32::try_from(mdl.skin_width())
        .ok()
        .zip(u32::try_from(mdl.skin_height()).ok());
    mdl.skins()
        .enumerate()
        .map(|(i, skin)| {
            let image = skin
                .image(0)
                .zip(size)
                .map(|(pixels, (width, height))| Image::Rgba8 {
                    width,
                    height,
                    pixels: file::skin_to_rgba_vec(pixels, &options),
                });
            let name = if skin.is_group() {
                format!("skin_{i}_group_image_0")
            } else {
                format!("skin_{i}")
            };
            let mut m = Material::new(name, image);
            if holey {
                m.alpha = AlphaMode::Mask(HOLEY_CUTOFF);
            }
            m
        })
        .collect()
}

/// The model's name: the file name without its extension.
fn model_name(input: &Input<'_>) -> String {
    input
        .path
        .file_stem()
        .map_or_else(|| "mdl".to_owned(), |s| s.to_string_lossy().into_owned())
}

/// Seconds each pose of `frame` is shown (see the module docs).
fn pose_time(frame: &file::Frame<'_>) -> f64 {
    if !frame.is_group() {
        return FRAME_TIME;
    }
    frame
        .intervals()
        .next()
        .filter(|i| USABLE_INTERVAL.contains(i))
        .map_or(FRAME_TIME, f64::from)
}

#[allow(clippy::as_conversions)] // f64→f32 rounds to nearest; there is no From impl
fn to_f32(x: f64) -> f32 {
    x as f32
}

/// `t`, or the next float above `prev` when rounding made `t` not increase.
fn after(prev: Option<f32>, t: f32) -> f32 {
    match prev {
        Some(p) if t <= p => f32::from_bits(p.to_bits().saturating_add(1)),
        _ => t,
    }
}

/// How many bytes the morph targets and weight keys of an animated export take.
fn morph_bytes(poses: usize, vertices: usize) -> u64 {
    let targets = count(poses.saturating_sub(1));
    let per_target = count(vertices).saturating_mul(24);
    let weights = count(poses).saturating_mul(targets).saturating_mul(4);
    targets.saturating_mul(per_target).saturating_add(weights)
}

/// The clips: one per animation range, weights of `targets` targets (target `t` is pose
/// `t + 1`).
fn animations(mdl: &Model<'_>, targets: usize) -> Vec<Animation> {
    let frames: Vec<file::Frame<'_>> = mdl.frames().collect();
    mdl.animations()
        .map(|anim| {
            let end = anim.first_frame.saturating_add(anim.frame_count);
            let entries = frames.get(anim.first_frame..end).unwrap_or(&[]);
            let mut times: Vec<f32> = Vec::new();
            let mut values = Vec::new();
            let mut clock = 0.0f64;
            for frame in entries {
                let step = pose_time(frame);
                for i in 0..frame.pose_count() {
                    let pose = frame.first_pose().saturating_add(i);
                    times.push(after(times.last().copied(), to_f32(clock)));
                    clock += step;
                    values.extend((1..=targets).map(|t| if t == pose { 1.0 } else { 0.0 }));
                }
            }
            Animation {
                name: String::from_utf8_lossy(anim.name).into_owned(),
                channels: vec![Channel {
                    node: 0,
                    times,
                    interpolation: Interpolation::Linear,
                    values: ChannelValues::Weights(values),
                }],
            }
        })
        .collect()
}

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
        let end = a.first_frame.saturating_add(a.frame_count);
        let entries = frames.get(a.first_frame..end).unwrap_or(&[]);
        let first_pose = entries.first().map_or(0, file::Frame::first_pose);
        let poses: usize = entries.iter().map(file::Frame::pose_count).sum();
        let groups = entries.iter().filter(|f| f.is_group()).count();
        let names = match (entries.first(), entries.last()) {
            (Some(f), Some(l)) if entries.len() > 1 => format!("{} .. {}", f.name(), l.name()),
            (Some(f), _) => f.name().to_string(),
            _ => String::new(),
        };
        push(
            &format!("  {}", String::from_utf8_lossy(a.name)),
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
        let mdl = parse(input)?;
        let first = pose_of(&mdl, None)?;
        let mesh = mdl.welded_mesh(SeamRule::Gl);
        Ok(Info {
            format: input.format.id(),
            frames: count(mdl.pose_count()),
            vertices: count(mdl.vertex_count()),
            triangles: count(mdl.triangles().len()),
            skins: Some(count(mdl.skin_count())),
            bounds: Bounds::of(first.positions()),
            details: details(&mdl, &mesh),
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let mdl = parse(input)?;
        Ok(super::engines(ENGINES, engine)
            .flat_map(|e| mdl.findings(e))
            .map(|f| Finding::of(&f, None))
            .collect())
    }

    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let mdl = parse(input)?;
        let base = pose_of(&mdl, request.frame)?;
        let mesh = mdl.welded_mesh(SeamRule::Gl);
        let mut prim = primitive(&base, &mesh);
        let mut target_names = Vec::new();
        let mut clips = Vec::new();
        if request.frame.is_none() && mdl.pose_count() > 1 {
            let need = morph_bytes(mdl.pose_count(), mesh.vertices.len());
            if need > MAX_MORPH_BYTES {
                return Err(Failure::new(format!(
                    "{} poses of {} vertices need {need} bytes of morph targets, more than the {MAX_MORPH_BYTES} this tool writes; export one frame with --frame N",
                    mdl.pose_count(),
                    mesh.vertices.len()
                )));
            }
            for pose in mdl.poses().skip(1) {
                prim.targets.push(MorphTarget::from_absolute(
                    &prim.positions,
                    &mesh.positions(&pose),
                    &prim.normals,
                    &mesh.normals(&pose),
                ));
                target_names.push(pose.name().to_string());
            }
            clips = animations(&mdl, prim.targets.len());
        }
        let name = model_name(input);
        let mut node = Node::new(name.clone());
        node.mesh = Some(0);
        Ok(Scene {
            name: name.clone(),
            meshes: vec![Mesh {
                name,
                primitives: vec![prim],
                target_names,
            }],
            materials: materials(&mdl),
            nodes: vec![node],
            animations: clips,
            ..Scene::default()
        })
    }

    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<FrameMesh, Failure> {
        let mdl = parse(input)?;
        let pose = pose_of(&mdl, request.frame)?;
        let mesh = mdl.welded_mesh(SeamRule::Gl);
        Ok(FrameMesh {
            primitives: vec![primitive(&pose, &mesh)],
            materials: materials(&mdl),
        })
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
    fn group_poses_are_keyed_by_their_interval() {
        let bytes = file::Model::example_groups().write().unwrap();
        let mdl = Model::parse(&bytes).unwrap();
        let targets = mdl.pose_count() - 1;
        let clips = animations(&mdl, targets);
        let keys: usize = clips.iter().map(|c| c.channels[0].times.len()).sum();
        assert_eq!(keys, mdl.pose_count());
        for clip in &clips {
            let ch = &clip.channels[0];
            assert!(ch.times.windows(2).all(|w| w[0] < w[1]), "{:?}", ch.times);
            let ChannelValues::Weights(w) = &ch.values else {
                panic!("weights")
            };
            assert_eq!(w.len(), ch.times.len() * targets);
        }
        // The group (intervals 0.1, 0.2, 0.3) plays each pose for its first interval.
        let group = mdl.frames().position(|f| f.is_group()).unwrap();
        let frame = mdl.frame(group).unwrap();
        assert!((pose_time(&frame) - f64::from(frame.intervals().next().unwrap())).abs() < 1e-9);
    }

    #[test]
    fn times_always_increase() {
        assert_eq!(after(None, 0.0), 0.0);
        assert_eq!(after(Some(0.0), 0.1), 0.1);
        assert!(after(Some(1.0e6), 1.0e6) > 1.0e6);
    }

    #[test]
    fn morph_budget_grows_with_poses_and_vertices() {
        assert_eq!(morph_bytes(1, 1000), 0);
        assert_eq!(morph_bytes(2, 10), 10 * 24 + 2 * 4);
        assert!(morph_bytes(100_000, 30_000) > MAX_MORPH_BYTES);
    }
}
