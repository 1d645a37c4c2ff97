//! md5mesh → a skinned scene ([`scene`]) or a still posed one ([`frame`]); md5anims for
//! the mesh arrive parsed and are checked with [`fit`]. See the [parent module](super)
//! for what the scene holds.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, JointMat, Vec3};
use idmodel_core::vec::{finite_or_zero, quat_conj, rigid_matrix, scale};
use idmodel_md5::anim::Anim;
use idmodel_md5::mesh::Model;
use idmodel_md5::normals::DoomTangents;
use idmodel_md5::pose::{self, Mismatch};
use idmodel_md5::skinning;

use super::{
    Bone, anim_local, clip, joint_nodes, node_pose, record_anims, record_meshes, standard,
};
use crate::{Error, Material, Mesh, Node, Options, Primitive, Result, Scene, Skin};

/// Largest joint index a 16-bit joint index (glTF's `JOINTS_n`) can hold, plus one.
pub const MAX_JOINTS: usize = 65536;

/// Refuses a mesh with more joints than [`MAX_JOINTS`].
pub fn check_joints(model: &Model) -> Result<()> {
    if model.joints.len() > MAX_JOINTS {
        return Err(Error::new(format!(
            "{} joints: glTF joint indices are 16-bit (at most {MAX_JOINTS} joints)",
            model.joints.len()
        )));
    }
    Ok(())
}

/// Whether `anim` can pose `model`, compared by index as Doom's `CheckModelHierarchy`
/// does: `Err` when the joint counts or parents differ (naming the first mismatch);
/// `Ok(Some(warning))` when only names differ (the anim is applied by index, Doom 3
/// would refuse it); `Ok(None)` when it fits.
pub fn fit(model: &Model, anim: &Anim) -> Result<Option<String>> {
    let mut first: Option<Mismatch> = None;
    let c = pose::compare(
        model.joints.iter().map(|j| (j.name.as_str(), j.parent)),
        anim.hierarchy.iter().map(|h| (h.name.as_str(), h.parent)),
        &mut |m| {
            if first.is_none() || matches!(m, Mismatch::JointCount { .. }) {
                first = Some(m);
            }
        },
    );
    let describe = |m: Mismatch| match m {
        Mismatch::JointCount { mesh, anim } => {
            format!("the mesh has {mesh} joints, the anim {anim}")
        }
        Mismatch::Name { joint } => format!(
            "joint {joint} is {:?} in the mesh, {:?} in the anim",
            model.joints.get(joint).map_or("", |j| j.name.as_str()),
            anim.hierarchy.get(joint).map_or("", |h| h.name.as_str())
        ),
        Mismatch::Parent { joint, mesh, anim } => {
            format!("joint {joint} has parent {mesh} in the mesh, {anim} in the anim")
        }
    };
    if !c.usable_by_index() {
        let why = first.map(describe).unwrap_or_default();
        return Err(Error::new(format!(
            "the animation does not fit this mesh: {why} ({} parent mismatches; Doom 3 refuses it too)",
            c.parent_mismatches
        )));
    }
    if !c.engine_accepts() {
        let why = first.map(describe).unwrap_or_default();
        return Ok(Some(format!(
            "{} joint names differ from the mesh's ({why}); applied by index, Doom 3 would refuse it",
            c.name_mismatches
        )));
    }
    Ok(None)
}

/// The md5mesh joints in their model-space bind pose.
fn mesh_bones(model: &Model) -> Vec<Bone> {
    model
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| Bone {
            name: j.name.clone(),
            parent: j.parent_index().filter(|&p| p < i),
            translation: finite_or_zero(j.position),
            rotation: standard(j.quat()),
        })
        .collect()
}

/// The primitives of `model` posed by `joints` (model-space matrices), with Doom's
/// normals and the draw mesh's mirrored-vertex copies (see the parent module), and the
/// materials (one per distinct shader name). With `skinned`, each vertex carries its
/// weights as influences.
pub fn primitives(
    model: &Model,
    joints: &[JointMat],
    skinned: bool,
) -> (Vec<Primitive>, Vec<Material>) {
    let mut materials: Vec<Material> = Vec::new();
    let mut prims = Vec::with_capacity(model.meshes.len());
    for m in &model.meshes {
        let mut base = vec![[0.0f32; 3]; m.vertices.len()];
        skinning::skin(&m.vertices, &m.weights, joints, &mut base);
        let base: Vec<Vec3> = base.into_iter().map(finite_or_zero).collect();
        let base_uv: Vec<[f32; 2]> = m.vertices.iter().map(|v| finite_or_zero(v.uv)).collect();
        let setup = DoomTangents::new(&base, &base_uv, &m.triangles);
        let derived = setup.derive(&base);
        let n = base.len();
        // Vertex `i` of the draw mesh: a file vertex, or (past the file's) the copy of a
        // mirrored one.
        let source = |i: usize| -> usize {
            match i.checked_sub(n) {
                None => i,
                Some(c) => setup
                    .mirrored()
                    .get(c)
                    .and_then(|&v| usize::try_from(v).ok())
                    .unwrap_or(0),
            }
        };
        let total = setup.num_vertices();
        let positions: Vec<Vec3> = (0..total)
            .map(|i| base.get(source(i)).copied().unwrap_or([0.0; 3]))
            .collect();
        let uvs: Vec<[f32; 2]> = (0..total)
            .map(|i| base_uv.get(source(i)).copied().unwrap_or([0.0; 2]))
            .collect();
        let mut normals = derived.normals;
        normals.resize(total, [0.0, 0.0, 1.0]);
        let influences: Vec<Vec<(u16, f32)>> = if skinned {
            (0..total)
                .map(|i| {
                    let v = m.vertices.get(source(i)).copied().unwrap_or_default();
                    m.weights
                        .get(v.weights())
                        .unwrap_or(&[])
                        .iter()
                        .filter(|w| w.bias.is_finite())
                        .filter_map(|w| Some((u16::try_from(w.joint).ok()?, w.bias)))
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        let material = (!m.shader.is_empty()).then(|| {
            match materials.iter().position(|x| x.name == m.shader) {
                Some(i) => i,
                None => {
                    materials.push(Material::new(m.shader.clone(), None));
                    materials.len().saturating_sub(1)
                }
            }
        });
        prims.push(Primitive {
            positions,
            normals,
            uvs,
            indices: setup.triangles().iter().flatten().copied().collect(),
            material,
            influences,
            targets: Vec::new(),
        });
    }
    (prims, materials)
}

/// The model-space joints of frame `frame` of `anim`, applied to the mesh's joints by
/// index (the mesh's parents).
fn posed_joints(model: &Model, anim: &Anim, frame: usize) -> Vec<JointMat> {
    let local = anim_local(anim, frame);
    let mut world = vec![JointMat::IDENTITY; model.joints.len()];
    pose::model_space_by_parents(model.joints.iter().map(|j| j.parent), &local, &mut world);
    world
}

/// The error for a frame of a mesh without anims.
fn bind_pose_only(n: usize) -> Error {
    Error::new(format!(
        "frame {n} is out of range: an md5mesh holds only its bind pose (frame 0); give --anim for more"
    ))
}

/// Refuses the anims that do not fit the mesh (see [`fit`]).
fn check_anims(model: &Model, anims: &[(&str, &Anim)]) -> Result<()> {
    for (name, anim) in anims {
        fit(model, anim).map_err(|e| Error::new(format!("md5anim {name}: {e}")))?;
    }
    Ok(())
}

/// The md5mesh alone as a scene named `name`, in its bind pose: joint nodes and the
/// skinned mesh node ([`scene_with`] adds anims as clips).
///
/// ```
/// use idmodel_md5::mesh::Model;
/// let text = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n\
///     joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n\
///     mesh {\nshader \"skin\"\nnumverts 3\n\
///     vert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\nvert 2 ( 0 1 ) 2 1\n\
///     numtris 1\ntri 0 0 1 2\nnumweights 3\n\
///     weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 0 1 0 )\nweight 2 0 1 ( 0 0 1 )\n}\n";
/// let model = Model::parse(text.as_bytes())?;
/// let scene = idmodel_scene::md5::mesh::scene(&model, "tri", &Default::default())?;
/// assert_eq!(scene.nodes.len(), 2); // the joint and the mesh node
/// assert_eq!(scene.skins[0].joints, vec![0]);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn scene(model: &Model, name: &str, options: &Options) -> Result<Scene> {
    scene_with(model, name, options, &[])
}

/// The md5mesh as a scene named `name` with what travels beside it, its md5anims: joint
/// nodes, the skinned mesh node and, per anim of `anims` (`(clip name, anim)`), one clip;
/// with [`Options::frame`] `N`, the joints in frame `N` of the first anim and no clips
/// (see the parent module). Each anim must [`fit`] the mesh (the error names the clip).
/// The scene's extras hold the clips' `md5.anims` and, when a mesh cannot go through
/// glTF, the `md5.meshes` record (see the parent module).
///
/// ```
/// use idmodel_md5::mesh::Model;
/// let text = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n\
///     joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n\
///     mesh {\nshader \"skin\"\nnumverts 3\n\
///     vert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\nvert 2 ( 0 1 ) 2 1\n\
///     numtris 1\ntri 0 0 1 2\nnumweights 3\n\
///     weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 0 1 0 )\nweight 2 0 1 ( 0 0 1 )\n}\n";
/// let model = Model::parse(text.as_bytes())?;
/// let scene = idmodel_scene::md5::mesh::scene_with(&model, "tri", &Default::default(), &[])?;
/// assert!(scene.animations.is_empty()); // no anims, no clips
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn scene_with(
    model: &Model,
    name: &str,
    options: &Options,
    anims: &[(&str, &Anim)],
) -> Result<Scene> {
    check_joints(model)?;
    check_anims(model, anims)?;
    let bones = mesh_bones(model);
    let mut nodes = joint_nodes(&bones);
    let mut animations = Vec::new();
    let mut extras = crate::Extras::default();
    match (options.frame, anims.first()) {
        (Some(n), Some((_, anim))) => {
            check_frame(anim, n)?;
            for (node, p) in nodes.iter_mut().zip(anim_local(anim, n)) {
                (node.translation, node.rotation) = node_pose(&p);
            }
        }
        (Some(n), None) if n > 0 => return Err(bind_pose_only(n)),
        _ => {
            for (clip_name, anim) in anims {
                animations.push(clip((*clip_name).to_owned(), anim, 0));
            }
            record_anims(&mut extras, anims.iter().map(|&(n, a)| (n, a)));
        }
    }
    record_meshes(&mut extras, model);
    let (prims, materials) = primitives(model, &model.bind_pose(), !bones.is_empty());
    let drawable = prims
        .iter()
        .any(|p| !p.positions.is_empty() && !p.indices.is_empty());
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    if drawable {
        let mut node = Node::new(name.to_owned());
        node.mesh = Some(0);
        if !bones.is_empty() {
            node.skin = Some(0);
            skins.push(Skin {
                name: format!("{name} skeleton"),
                joints: (0..bones.len()).collect(),
                inverse_bind_matrices: bones
                    .iter()
                    .map(|b| {
                        let inv = quat_conj(b.rotation);
                        rigid_matrix(
                            inv,
                            finite_or_zero(scale(quat::rotate(inv, b.translation), -1.0)),
                        )
                    })
                    .collect(),
                skeleton: None,
            });
        }
        nodes.push(node);
        meshes.push(Mesh {
            name: name.to_owned(),
            primitives: prims,
            target_names: Vec::new(),
        });
    }
    Ok(Scene {
        name: name.to_owned(),
        meshes,
        materials,
        nodes,
        skins,
        animations,
        cameras: Vec::new(),
        extras,
    })
}

/// Frame `n` of the first anim must exist.
fn check_frame(anim: &Anim, n: usize) -> Result<()> {
    if n >= anim.frames.len() {
        return Err(crate::frame_out_of_range(
            n,
            anim.frames.len(),
            "first --anim",
            "frames",
            "",
        ));
    }
    Ok(())
}

/// The mesh in its bind pose as a still scene named `name` (unskinned, for the renderer
/// and the OBJ writer); [`frame_with`] poses it by an anim.
pub fn frame(model: &Model, name: &str, options: &Options) -> Result<Scene> {
    frame_with(model, name, options, &[])
}

/// The mesh posed as a still scene named `name` (unskinned): by frame [`Options::frame`]
/// (default 0) of the first of `anims`, or in the bind pose without anims. Each anim must
/// [`fit`] the mesh.
pub fn frame_with(
    model: &Model,
    name: &str,
    options: &Options,
    anims: &[(&str, &Anim)],
) -> Result<Scene> {
    check_anims(model, anims)?;
    let joints = match anims.first() {
        Some((_, anim)) => {
            let n = options.frame.unwrap_or(0);
            check_frame(anim, n)?;
            posed_joints(model, anim, n)
        }
        None => match options.frame {
            Some(n) if n > 0 => return Err(bind_pose_only(n)),
            _ => model.bind_pose(),
        },
    };
    let (primitives, materials) = primitives(model, &joints, false);
    Ok(Scene::still(name.to_owned(), primitives, materials))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESH: &str = include_str!("../../../../samples/sample.md5mesh");
    const ANIM: &str = include_str!("../../../../samples/sample.md5anim");

    fn sample() -> (Model, Anim) {
        (
            Model::parse(MESH.as_bytes()).unwrap(),
            Anim::parse(ANIM.as_bytes()).unwrap(),
        )
    }

    #[test]
    fn the_draw_mesh_copies_mirrored_vertices() {
        let (model, _) = sample();
        let m = &model.meshes[0];
        let (prims, materials) = primitives(&model, &model.bind_pose(), true);
        let p = &prims[0];
        let n = m.vertices.len();
        // The column's UVs wrap around (u 0.75 → 0): the seam triangles are mirrored.
        assert!(p.positions.len() > n, "{} of {n}", p.positions.len());
        assert_eq!(p.uvs.len(), p.positions.len());
        assert_eq!(p.normals.len(), p.positions.len());
        assert_eq!(p.influences.len(), p.positions.len());
        let mut bind = vec![[0.0f32; 3]; n];
        skinning::skin(&m.vertices, &m.weights, &model.bind_pose(), &mut bind);
        let uvs: Vec<[f32; 2]> = m.vertices.iter().map(|v| v.uv).collect();
        let setup = DoomTangents::new(&bind, &uvs, &m.triangles);
        for (c, &src) in setup.mirrored().iter().enumerate() {
            let src = src as usize;
            assert_eq!(p.positions[n + c], bind[src]);
            assert_eq!(p.uvs[n + c], uvs[src]);
            assert_eq!(p.influences[n + c], p.influences[src]);
        }
        // Every index is in range, one material per shader.
        assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()));
        assert_eq!(materials.len(), 1);
        assert_eq!(materials[0].name, m.shader);
    }

    #[test]
    fn anims_fit_by_index_and_names_only_warn() {
        let (model, anim) = sample();
        assert_eq!(fit(&model, &anim), Ok(None));
        let mut renamed = anim.clone();
        renamed.hierarchy[2].name = "top".into();
        let warning = fit(&model, &renamed).unwrap().unwrap();
        assert_eq!(
            warning,
            "1 joint names differ from the mesh's (joint 2 is \"upper\" in the mesh, \"top\" in the anim); applied by index, Doom 3 would refuse it"
        );
        let mut short = anim.clone();
        short.hierarchy.pop();
        let e = fit(&model, &short).unwrap_err();
        assert!(
            e.message().starts_with(
                "the animation does not fit this mesh: the mesh has 3 joints, the anim 2"
            ),
            "{e}"
        );
        // The scene refuses it too, naming the clip.
        let e = scene_with(&model, "m", &Options::default(), &[("bend", &short)]).unwrap_err();
        assert!(e.message().starts_with("md5anim bend: "), "{e}");
    }

    #[test]
    fn the_skinned_scene_has_joints_binds_and_clips() {
        let (model, anim) = sample();
        let s = scene_with(&model, "m", &Options::default(), &[("bend", &anim)]).unwrap();
        assert_eq!(s.nodes.len(), model.joints.len() + 1);
        let mesh_node = &s.nodes[model.joints.len()];
        assert_eq!((mesh_node.mesh, mesh_node.skin), (Some(0), Some(0)));
        assert_eq!(s.skins[0].inverse_bind_matrices.len(), model.joints.len());
        // The inverse bind of "upper" (at z = 4, no rotation) moves it back to the origin.
        let ibm = s.skins[0].inverse_bind_matrices[2];
        assert_eq!(&ibm[12..15], &[0.0, 0.0, -4.0]);
        // Children are linked; translations are parent-relative.
        assert_eq!(s.nodes[1].children, vec![2]);
        assert_eq!(s.nodes[2].translation, [0.0, 0.0, 4.0]);
        assert_eq!(s.animations.len(), 1);
        assert_eq!(s.animations[0].name, "bend");
        assert_eq!(s.animations[0].channels.len(), 2 * model.joints.len());
        // One frame: the joints hold it, no clips.
        let one = Options {
            frame: Some(2),
            ..Options::default()
        };
        let posed = scene_with(&model, "m", &one, &[("bend", &anim)]).unwrap();
        assert!(posed.animations.is_empty());
        // Frame 2 of the sample bends "upper" (qx 0.25) and moves the origin (ty 1).
        assert_ne!(posed.nodes[2].rotation, s.nodes[2].rotation);
        assert_eq!(posed.nodes[0].translation, [0.0, 1.0, 0.0]);
        let e = scene_with(&model, "m", &one, &[]).unwrap_err();
        assert_eq!(
            e.message(),
            "frame 2 is out of range: an md5mesh holds only its bind pose (frame 0); give --anim for more"
        );
        let far = Options {
            frame: Some(5),
            ..Options::default()
        };
        let e = frame_with(&model, "m", &far, &[("bend", &anim)]).unwrap_err();
        assert_eq!(
            e.message(),
            "frame 5 is out of range: the first --anim has 5 frames (0 to 4)"
        );
    }

    #[test]
    fn a_frame_is_the_mesh_posed_without_skinning() {
        let (model, anim) = sample();
        let bind = frame_with(&model, "m", &Options::default(), &[]).unwrap();
        let last = Options {
            frame: Some(4),
            ..Options::default()
        };
        let bent = frame_with(&model, "m", &last, &[("bend", &anim)]).unwrap();
        let (b, p) = (&bind.meshes[0].primitives[0], &bent.meshes[0].primitives[0]);
        assert!(b.influences.is_empty() && p.influences.is_empty());
        assert_eq!(b.positions.len(), p.positions.len());
        assert_ne!(b.positions, p.positions);
        assert_eq!(bind.nodes.len(), 1);
        assert!(bind.skins.is_empty());
    }
}
