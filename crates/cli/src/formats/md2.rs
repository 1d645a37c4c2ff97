//! Quake II MD2, read with `idmodel::md2`.
//!
//! What the outputs hold (the conventions issue #7 asks to document):
//!
//! - **Topology**: the software renderer's triangle list with its st coordinates, one
//!   vertex per distinct (`index_xyz`, `index_st`) pair (`Md2::soft_mesh`), as one
//!   primitive; UVs are `s / skinwidth`, `t / skinheight` with `[0, 0]` the top-left of
//!   the skin. The GL command list (what `ref_gl` draws) is not exported: `check` reports
//!   when it disagrees with the triangle list, and `info` says whether it agrees.
//! - **Frames**: frame 0 is the base mesh; every other frame is a morph target holding the
//!   displacements of POSITION and NORMAL relative to frame 0, named after the frame.
//! - **Animations**: one clip per frame-name range (`stand01`…`stand40` → `stand`, see
//!   `Md2::animations`), played at **10 fps** (MD2 stores no rate; Quake II's server runs
//!   at 10 Hz and steps one frame per tick). Key `k` of a clip sets the weight of its
//!   `k`-th frame's target to 1 and every other weight to 0 (all 0 for frame 0), linearly
//!   interpolated, which is the engine's lerp between consecutive frames.
//! - **Skins**: one material per skin, named with the skin name and pointing to it as an
//!   image URI (the game path, `\` turned into `/`, leading `/` dropped, other characters
//!   outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded); the primitive uses skin 0. The
//!   `.pcx` files are not read. A model without skins has no material.
//! - **`--frame N`**: that frame alone is the base; no morph targets, no animation.
//! - Everything is in file axes and the file's clockwise winding; the exporter converts.

use core::fmt::Write as _;

use idmodel::md2::{self as file, ENGINES, Md2 as Model};
use idmodel_gltf::{
    Animation, Channel, ChannelValues, Image, Interpolation, Material, Mesh, MorphTarget, Node,
    Primitive, Scene,
};

use super::{Bounds, Engine, Finding, FrameMesh, Info, Input, ModelFormat, Request};
use crate::failure::Failure;

/// The Quake II MD2 module.
pub struct Md2;

/// Playback rate of the animation clips (MD2 files store none).
const FPS: f32 = 10.0;

/// Largest glTF buffer (morph displacements and animation weights, in bytes) an
/// animated export may need; beyond it the export is refused with a hint to use
/// `--frame`, so a small hostile file cannot ask for gigabytes.
const MAX_MORPH_BYTES: u64 = 1 << 30;

fn parse<'a>(input: &Input<'a>) -> Result<Model<'a>, Failure> {
    Model::parse(input.bytes).map_err(Failure::from)
}

/// The frame `request` asks for (default 0), or a failure naming the valid range.
fn frame_of<'a>(md2: &Model<'a>, frame: Option<usize>) -> Result<file::Frame<'a>, Failure> {
    let n = frame.unwrap_or(0);
    md2.frame(n).ok_or_else(|| {
        Failure::new(format!(
            "frame {n} is out of range: the model has {} frames (0 to {})",
            md2.frame_count(),
            md2.frame_count().saturating_sub(1)
        ))
    })
}

/// `(positions, normals)` of the mesh vertices in `frame`.
fn posed(frame: &file::Frame<'_>, mesh: &file::Mesh) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let positions: Vec<[f32; 3]> = frame.positions().collect();
    let normals: Vec<[f32; 3]> = frame.normals().collect();
    mesh.vertices
        .iter()
        .map(|v| {
            let i = usize::try_from(v.xyz).unwrap_or(usize::MAX);
            (
                positions.get(i).copied().unwrap_or([0.0; 3]),
                normals.get(i).copied().unwrap_or([0.0, 0.0, 1.0]),
            )
        })
        .unzip()
}

/// The primitive of `frame` (no morph targets), with material 0 when there are skins.
fn primitive(md2: &Model<'_>, frame: &file::Frame<'_>, mesh: &file::Mesh) -> Primitive {
    let (positions, normals) = posed(frame, mesh);
    Primitive {
        positions,
        normals,
        uvs: mesh.vertices.iter().map(|v| v.uv).collect(),
        indices: mesh.indices.clone(),
        material: (!md2.skin_fields().is_empty()).then_some(0),
        ..Primitive::default()
    }
}

/// A skin name as a relative URI reference (see the module docs).
fn skin_uri(name: &str) -> String {
    let path = name.replace('\\', "/");
    let mut uri = String::with_capacity(path.len());
    for b in path.trim_start_matches('/').bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri
}

/// One material per skin: the skin name, its path as the image URI.
fn materials(md2: &Model<'_>) -> Vec<Material> {
    md2.skins()
        .map(|name| {
            let uri = skin_uri(&String::from_utf8_lossy(name.as_bytes()));
            let image = (!uri.is_empty()).then_some(Image::Uri(uri));
            Material::new(name.to_string(), image)
        })
        .collect()
}

/// The model's name: the file name without its extension.
fn model_name(input: &Input<'_>) -> String {
    input
        .path
        .file_stem()
        .map_or_else(|| "md2".to_owned(), |s| s.to_string_lossy().into_owned())
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

/// How many bytes the morph targets and weight keys of an animated export take.
fn morph_bytes(frames: usize, vertices: usize) -> u64 {
    let targets = u64::try_from(frames.saturating_sub(1)).unwrap_or(u64::MAX);
    let per_target = u64::try_from(vertices)
        .unwrap_or(u64::MAX)
        .saturating_mul(24);
    let weights = u64::try_from(frames)
        .unwrap_or(u64::MAX)
        .saturating_mul(targets)
        .saturating_mul(4);
    targets.saturating_mul(per_target).saturating_add(weights)
}

/// The clips: one per frame-name range, keys at 10 fps, weights of `targets` targets.
fn animations(md2: &Model<'_>, targets: usize) -> Vec<Animation> {
    md2.animations()
        .map(|anim| {
            let mut times = Vec::with_capacity(anim.frames.len());
            let mut values = Vec::with_capacity(anim.frames.len().saturating_mul(targets));
            let mut key = 0.0f32;
            for frame in anim.frames.clone() {
                times.push(key / FPS);
                key += 1.0;
                // Target t is frame t + 1; frame 0 is the base (all weights 0).
                values.extend((1..=targets).map(|t| if t == frame { 1.0 } else { 0.0 }));
            }
            Animation {
                name: anim.name.to_string(),
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

impl ModelFormat for Md2 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let md2 = parse(input)?;
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        let first = frame_of(&md2, None)?;
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
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md2 = parse(input)?;
        Ok(super::engines(ENGINES, engine)
            .flat_map(|e| md2.findings(e))
            .map(|f| Finding::of(&f, None))
            .collect())
    }

    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md2 = parse(input)?;
        let base = frame_of(&md2, request.frame)?;
        let mesh = md2.soft_mesh();
        let mut prim = primitive(&md2, &base, &mesh);
        let mut target_names = Vec::new();
        let mut clips = Vec::new();
        if request.frame.is_none() && md2.frame_count() > 1 {
            let need = morph_bytes(md2.frame_count(), mesh.vertices.len());
            if need > MAX_MORPH_BYTES {
                return Err(Failure::new(format!(
                    "{} frames of {} vertices need {need} bytes of morph targets, more than the {MAX_MORPH_BYTES} this tool writes; export one frame with --frame N",
                    md2.frame_count(),
                    mesh.vertices.len()
                )));
            }
            for frame in md2.frames().skip(1) {
                let (positions, normals) = posed(&frame, &mesh);
                prim.targets.push(MorphTarget::from_absolute(
                    &prim.positions,
                    &positions,
                    &prim.normals,
                    &normals,
                ));
                target_names.push(frame.name().to_string());
            }
            clips = animations(&md2, prim.targets.len());
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
            materials: materials(&md2),
            nodes: vec![node],
            animations: clips,
            ..Scene::default()
        })
    }

    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<FrameMesh, Failure> {
        let md2 = parse(input)?;
        let frame = frame_of(&md2, request.frame)?;
        let mesh = md2.soft_mesh();
        Ok(FrameMesh {
            primitives: vec![primitive(&md2, &frame, &mesh)],
            materials: materials(&md2),
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
    fn skin_uris_are_relative_references() {
        assert_eq!(
            skin_uri("models/monsters/tank/skin.pcx"),
            "models/monsters/tank/skin.pcx"
        );
        assert_eq!(skin_uri(".box"), ".box");
        assert_eq!(skin_uri("E:\\MIJN DOCU\\a.pcx"), "E%3A/MIJN%20DOCU/a.pcx");
        assert_eq!(skin_uri("//x/y"), "x/y");
        assert_eq!(skin_uri("é"), "%C3%A9");
        assert_eq!(skin_uri(""), "");
    }

    #[test]
    fn clips_key_one_target_per_frame() {
        let bytes = file::write(&file::Model::example()).unwrap();
        let md2 = Model::parse(&bytes).unwrap();
        let clips = animations(&md2, md2.frame_count() - 1);
        assert_eq!(clips.len(), 1);
        let ch = &clips[0].channels[0];
        assert_eq!(ch.times, vec![0.0, 0.1]);
        assert_eq!(ch.values, ChannelValues::Weights(vec![0.0, 1.0]));
    }

    #[test]
    fn morph_budget_grows_with_frames_and_vertices() {
        assert_eq!(morph_bytes(1, 1000), 0);
        assert_eq!(morph_bytes(2, 10), 10 * 24 + 2 * 4);
        assert!(morph_bytes(100_000, 30_000) > MAX_MORPH_BYTES);
    }
}
