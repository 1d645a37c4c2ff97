//! The way back from arrays: a scene made of the caller's frames, written through the
//! same conversion as a GLB would be (engine checks, fitting, the command's writer).

use std::path::PathBuf;

use numpy::{PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;

use idmodel_scene::{
    Animation, Channel, ChannelValues, Interpolation, Mesh, MorphTarget, Node, Primitive, Scene,
};

use idmodel_convert::OutKind;

use crate::convert::{Opts, Report, conversion_error, write_out};
use crate::error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write, m)?)?;
    Ok(())
}

/// One mesh given by the caller, arrays already C-contiguous float32 / uint32.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct MeshIn<'py> {
    name: String,
    positions: PyReadonlyArray3<'py, f32>,
    triangles: PyReadonlyArray2<'py, u32>,
    #[pyo3(default)]
    normals: Option<PyReadonlyArray3<'py, f32>>,
    #[pyo3(default)]
    uvs: Option<PyReadonlyArray2<'py, f32>>,
}

fn rows<const N: usize>(flat: &[f32]) -> Vec<[f32; N]> {
    flat.chunks_exact(N)
        .map(|c| {
            let mut a = [0f32; N];
            a.copy_from_slice(c);
            a
        })
        .collect()
}

fn usage(py: Python<'_>, message: String) -> PyErr {
    error(py, "usage", message, None)
}

/// The scene of `meshes`: frame 0 the base, frame `k` morph target `k - 1` (the rule the
/// way back reads), frame names as target names. With `one_mesh` (MDL and MD2, whose way
/// back reads one mesh) the meshes are primitives of one mesh; else one node each (MD3
/// surfaces named after them).
fn scene(
    py: Python<'_>,
    meshes: &[MeshIn<'_>],
    frame_names: &[String],
    one_mesh: bool,
) -> PyResult<Scene> {
    let mut scene = Scene {
        name: "model".to_owned(),
        ..Scene::default()
    };
    let mut frames_seen: Option<usize> = None;
    for (mi, m) in meshes.iter().enumerate() {
        let shape = m.positions.shape();
        let (frames, verts) = match shape {
            [f, v, 3] if *f > 0 => (*f, *v),
            _ => {
                return Err(usage(
                    py,
                    format!(
                        "mesh '{}': positions must be (frames, vertices, 3) with at least one frame, not {shape:?}",
                        m.name
                    ),
                ));
            }
        };
        if let Some(f) = frames_seen
            && f != frames
        {
            return Err(usage(
                py,
                format!(
                    "mesh '{}' has {frames} frames where the first mesh has {f}; every mesh needs the same frames",
                    m.name
                ),
            ));
        }
        frames_seen = Some(frames);
        let pos = m.positions.as_slice()?;
        let tri_shape = m.triangles.shape();
        if !matches!(tri_shape, [_, 3]) {
            return Err(usage(
                py,
                format!(
                    "mesh '{}': triangles must be (triangles, 3), not {tri_shape:?}",
                    m.name
                ),
            ));
        }
        let tris = m.triangles.as_slice()?;
        if let Some(bad) = tris
            .iter()
            .find(|&&i| usize::try_from(i).map_or(true, |i| i >= verts))
        {
            return Err(usage(
                py,
                format!(
                    "mesh '{}': triangle index {bad} is past its {verts} vertices",
                    m.name
                ),
            ));
        }
        let nrm = match &m.normals {
            Some(n) if n.shape() == shape => Some(n.as_slice()?),
            Some(n) => {
                return Err(usage(
                    py,
                    format!(
                        "mesh '{}': normals must have the positions' shape {shape:?}, not {:?}",
                        m.name,
                        n.shape()
                    ),
                ));
            }
            None => None,
        };
        let uvs = match &m.uvs {
            Some(u) if u.shape() == [verts, 2] => rows::<2>(u.as_slice()?),
            Some(u) => {
                return Err(usage(
                    py,
                    format!(
                        "mesh '{}': uvs must be ({verts}, 2), not {:?}",
                        m.name,
                        u.shape()
                    ),
                ));
            }
            None => Vec::new(),
        };
        let per = verts.saturating_mul(3);
        let frame = |all: &[f32], f: usize| -> Vec<[f32; 3]> {
            rows::<3>(
                all.get(f.saturating_mul(per)..f.saturating_add(1).saturating_mul(per))
                    .unwrap_or(&[]),
            )
        };
        let base = frame(pos, 0);
        let base_n = nrm.map(|n| frame(n, 0)).unwrap_or_default();
        let targets = (1..frames)
            .map(|f| {
                let fnorm = nrm.map(|n| frame(n, f)).unwrap_or_default();
                MorphTarget::from_absolute(&base, &frame(pos, f), &base_n, &fnorm)
            })
            .collect();
        let primitive = Primitive {
            positions: base,
            normals: base_n,
            uvs,
            indices: tris.to_vec(),
            targets,
            ..Primitive::default()
        };
        if let (true, Some(first)) = (one_mesh, scene.meshes.first_mut()) {
            first.primitives.push(primitive);
            continue;
        }
        scene.meshes.push(Mesh {
            name: m.name.clone(),
            primitives: vec![primitive],
            target_names: frame_names.iter().skip(1).cloned().collect(),
        });
        let mut node = Node::new(m.name.clone());
        node.mesh = Some(mi);
        scene.nodes.push(node);
    }
    // One clip that shows frame k at k / 10 s, as the morph adapters write a model's
    // frames: the way back reads which target each frame is from these keys.
    if let Some(f) = frames_seen.filter(|&f| f > 1) {
        let times: Vec<f32> = (0..f).map(|k| k as f32 / 10.0).collect();
        let channels = (0..scene.nodes.len())
            .map(|node| Channel {
                node,
                times: times.clone(),
                interpolation: Interpolation::Step,
                values: ChannelValues::one_hot(f - 1, (0..f).map(|k| k.checked_sub(1))),
            })
            .collect();
        scene.animations.push(Animation {
            name: "frames".to_owned(),
            channels,
        });
    }
    if let Some(f) = frames_seen
        && !frame_names.is_empty()
        && frame_names.len() != f
    {
        return Err(usage(
            py,
            format!("{} frame names for {f} frames", frame_names.len()),
        ));
    }
    Ok(scene)
}

/// Writes `meshes` as the model `output` names (MDL, MD2, MD3, md5mesh, GLB, …) through
/// the conversion the command makes from a GLB: checked for `options["engine"]`, fitted
/// with `fit`, written by the command's writer.
#[pyfunction]
#[pyo3(signature = (output, meshes, frame_names, options, force=false))]
fn write(
    py: Python<'_>,
    output: PathBuf,
    meshes: Vec<MeshIn<'_>>,
    frame_names: Vec<String>,
    options: Opts,
    force: bool,
) -> PyResult<Report> {
    if meshes.is_empty() {
        return Err(usage(py, "no meshes to write".to_owned()));
    }
    let options = options.options(py)?;
    let kind = options
        .to
        .or_else(|| idmodel_convert::OutKind::from_path(&output));
    if !matches!(
        kind,
        Some(OutKind::Mdl | OutKind::Md2 | OutKind::Md3 | OutKind::Md5mesh)
    ) {
        return Err(usage(
            py,
            format!(
                "{}: write makes MDL, MD2, MD3 or md5mesh files (name one of those extensions)",
                output.display()
            ),
        ));
    }
    let one_mesh = matches!(kind, Some(OutKind::Mdl | OutKind::Md2));
    let scene = scene(py, &meshes, &frame_names, one_mesh)?;
    let glb = py
        .detach(|| idmodel_gltf::to_glb(&scene, &idmodel_gltf::ExportOptions::default()))
        .map_err(|e| error(py, "failed", format!("{}: {e}", output.display()), None))?;
    let done = py
        .detach(|| {
            idmodel_convert::convert_bytes(&[("model.glb", &glb)], "model.glb", &output, &options)
        })
        .map_err(|e| conversion_error(py, e))?;
    write_out(py, done, force)
}
