//! Zero heap allocations on the no-allocation paths of every format: `parse`, the
//! accessors, decoding into caller slices and `check`, proven with a counting global
//! allocator. Inputs are written by idmodel's own writers (always) and read from
//! `$IDMODEL_CORPUS` (when set). Buffers are allocated before the counted region.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use core::hint::black_box;
use std::alloc::System;

use idmodel::core::quat::JointMat;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

// Counts every allocation of the process. The counts are global, so this file holds a
// single `#[test]` that runs the formats one after another: no other test thread runs in
// this binary, and libtest's main thread only waits meanwhile.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Runs `f` and fails the test if it allocated. A path that allocates does so on every
/// run; libtest's main thread may allocate once or twice while it starts the test thread,
/// so `f` gets three tries and must come out clean on one of them.
fn no_alloc<R>(what: &str, mut f: impl FnMut() -> R) -> R {
    let mut counts = Vec::with_capacity(3);
    for _ in 0..3 {
        let region = Region::new(GLOBAL);
        let r = black_box(f());
        let change = region.change();
        let n = change.allocations + change.reallocations;
        if n == 0 {
            return r;
        }
        counts.push(n);
    }
    panic!("{what}: heap allocations on a no-allocation path, {counts:?} in three runs");
}

#[test]
fn no_allocation_paths_do_not_allocate() {
    mdl_paths();
    md2_paths();
    md3_paths();
    md5_paths();
}

/// The corpus files named in the performance issue, when `$IDMODEL_CORPUS` is set.
fn corpus(test: &str, names: &[&str]) -> Vec<Vec<u8>> {
    let Some(dir) = common::corpus_dir(test) else {
        return Vec::new();
    };
    names
        .iter()
        .filter_map(|n| std::fs::read(dir.join(n)).ok())
        .collect()
}

fn mdl_paths() {
    use idmodel::mdl::{Engine, Mdl, Model, SeamRule, SkinOptions, WeldedVertex, skin_to_rgba};
    let mut files = vec![
        Model::example().write().unwrap(),
        Model::example_groups().write().unwrap(),
    ];
    files.extend(corpus(
        "mdl_paths_do_not_allocate",
        &["mdl/ogre.mdl", "mdl/player.mdl"],
    ));
    for bytes in &files {
        let m = Mdl::parse(bytes).unwrap();
        let sizes = m.weld_sizes();
        let mut verts = vec![WeldedVertex::default(); sizes.max_vertices];
        let mut indices = vec![0u32; sizes.indices];
        let mut scratch = vec![0u32; sizes.scratch];
        let mut pos = vec![[0.0f32; 3]; m.vertex_count().max(sizes.max_vertices)];
        let mut nrm = pos.clone();
        let mut rgba = vec![0u8; m.skin_image_size() * 4];
        let opts = SkinOptions::default();
        let m = no_alloc("mdl parse", || Mdl::parse(bytes).unwrap());
        let n = no_alloc("mdl weld_into", || {
            m.weld_into(SeamRule::Gl, &mut verts, &mut indices, &mut scratch)
                .unwrap()
        });
        no_alloc("mdl poses", || {
            let mut acc = 0.0f32;
            for pose in m.poses() {
                pose.welded_positions_into(&verts[..n], &mut pos);
                pose.welded_normals_into(&verts[..n], &mut nrm);
                pose.positions_into(&mut pos);
                acc += pose.normals().map(|v| v[2]).sum::<f32>() + pose.bbox_max()[0];
                black_box(pose.name());
            }
            for frame in m.frames() {
                acc += frame.intervals().sum::<f32>();
            }
            acc + m
                .triangle_uvs(SeamRule::Software)
                .map(|t| t[0][0])
                .sum::<f32>()
        });
        let k = 3 * m.triangles().len();
        let (mut cp, mut cn, mut cu) = (
            vec![[0.0f32; 3]; k.max(sizes.max_vertices)],
            vec![[0.0f32; 3]; k.max(sizes.max_vertices)],
            vec![[0.0f32; 2]; k.max(sizes.max_vertices)],
        );
        no_alloc("mdl weld_pose_into and corners_into", || {
            let pose = m.pose(0).unwrap();
            let targets = idmodel::mdl::WeldTargets {
                positions: &mut cp,
                normals: &mut cn,
                uvs: &mut cu,
                indices: &mut indices,
            };
            let w = m
                .weld_pose_into(SeamRule::Gl, &pose, targets, &mut scratch)
                .unwrap();
            assert_eq!(w, n);
            m.corners_into(SeamRule::Gl, &pose, &mut cp, &mut cn, &mut cu)
                .unwrap()
        });
        no_alloc("mdl skin_to_rgba", || {
            for skin in m.skins() {
                for image in skin.images() {
                    skin_to_rgba(image, &opts, &mut rgba).unwrap();
                }
            }
        });
        no_alloc("mdl animations", || black_box(m.animations().count()));
        for profile in [Engine::WinQuake, Engine::GlQuake, Engine::QuakeSpasm] {
            no_alloc("mdl check", || {
                m.check(profile, &mut |f| {
                    black_box(f);
                });
            });
        }
        // The first findings of a check kept in a heapless::Vec: no allocator either.
        no_alloc("mdl check into first::<_, 4>", || {
            let first =
                idmodel::core::findings::first::<_, 4>(|sink| m.check(Engine::GlQuake, sink));
            black_box((first.total(), first.worst))
        });
    }
}

fn md2_paths() {
    use idmodel::md2::{Engine, Md2, MeshVertex, Model, lerp_positions_into};
    let mut files = vec![idmodel::md2::write(&Model::example()).unwrap()];
    files.extend(corpus("md2_paths_do_not_allocate", &["md2/faerie.md2"]));
    for bytes in &files {
        let m = Md2::parse(bytes).unwrap();
        let soft = m.soft_mesh_sizes();
        let gl = m.gl_mesh_sizes();
        let mut sv = vec![MeshVertex::default(); soft.vertices];
        let mut si = vec![0u32; soft.indices];
        let mut gv = vec![MeshVertex::default(); gl.vertices];
        let mut gi = vec![0u32; gl.indices];
        let mut pos = vec![[0.0f32; 3]; m.vertex_count()];
        let mut nrm = pos.clone();
        no_alloc("md2", || {
            let m = Md2::parse(bytes).unwrap();
            m.soft_mesh_into(&mut sv, &mut si).unwrap();
            m.gl_mesh_into(&mut gv, &mut gi).unwrap();
            for f in m.frames() {
                f.positions_into(&mut pos).unwrap();
                f.normals_into(&mut nrm).unwrap();
                black_box(f.name());
            }
            let (a, b) = (m.frame(0).unwrap(), m.frame_or_first(1));
            lerp_positions_into(&a, &b, 0.5, &mut pos).unwrap();
            black_box(m.gl_triangles().count());
            black_box(m.skins().count());
            black_box(m.animations().count());
            m.check(Engine::Quake2, &mut |f| {
                black_box(f);
            });
        });
    }
}

fn md3_paths() {
    use idmodel::md3::{Engine, Md3, Model, NormalDecode};
    let mut files = vec![idmodel::md3::write(&Model::example()).unwrap()];
    files.extend(corpus(
        "md3_paths_do_not_allocate",
        &["md3/oa_kyonshi/upper.md3", "md3/trem_level1_nonseg.md3"],
    ));
    for bytes in &files {
        let m = Md3::parse(bytes).unwrap();
        let most = m.surfaces().map(|s| s.num_verts()).max().unwrap_or(0);
        let mut pos = vec![[0.0f32; 3]; most];
        let mut nrm = pos.clone();
        let most_tris = m.surfaces().map(|s| s.triangles().len()).max().unwrap_or(0);
        let mut idx = vec![0u32; 3 * most_tris];
        let mut uv = vec![[0.0f32; 2]; most];
        no_alloc("md3", || {
            let m = Md3::parse(bytes).unwrap();
            for s in m.surfaces() {
                let n = s.num_verts();
                for f in 0..s.num_frames() {
                    s.decode_frame(f, NormalDecode::Exact, &mut pos[..n], &mut nrm[..n])
                        .unwrap();
                }
                if s.num_frames() > 1 {
                    s.lerp_into(0, 1, 0.5, NormalDecode::Exact, &mut pos[..n], &mut nrm[..n])
                        .unwrap();
                }
                black_box(s.indices().count());
                black_box(s.tex_coords().count());
                let k = 3 * s.triangles().len();
                s.indices_into(7, &mut idx[..k]).unwrap();
                s.tex_coords_into(&mut uv[..n]).unwrap();
                black_box(s.engine_name());
            }
            for name in m.tag_names() {
                black_box(m.lerp_tag(name.as_bytes(), 0, m.num_frames() - 1, 0.5));
            }
            for profile in [Engine::Quake3, Engine::Ioq3] {
                m.check(profile, &mut |f| {
                    black_box(f);
                });
            }
        });
    }
}

fn md5_paths() {
    use idmodel::md5::anim::{self, BaseJoint, HierarchyJoint};
    use idmodel::md5::mesh::{self, Vertex, Weight};
    use idmodel::md5::pose::{self, JointPose};
    use idmodel::md5::{Engine, skinning};
    let meshes = corpus(
        "md5_paths_do_not_allocate",
        &["md5/Bob.md5mesh", "md5/unv_human_light_body.md5mesh"],
    );
    let anims = corpus("md5_paths_do_not_allocate", &["md5/Bob.md5anim"]);
    // Always: a small written mesh and anim.
    let gen_mesh = b"MD5Version 10 commandline \"\" numJoints 2 numMeshes 1
        joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) \"tip\" 0 ( 0 0 8 ) ( 0 0 0.5 ) }
        mesh { shader \"s\" numverts 3
          vert 0 ( 0 0 ) 0 1 vert 1 ( 1 0 ) 1 2 vert 2 ( 0 1 ) 3 1
          numtris 1 tri 0 0 1 2
          numweights 4 weight 0 0 1 ( 1 2 3 ) weight 1 0 0.5 ( 0 0 1 )
          weight 2 1 0.5 ( 0 1 0 ) weight 3 1 1 ( 2 0 0 ) }"
        .to_vec();
    let gen_anim = b"MD5Version 10 commandline \"\" numFrames 2 numJoints 2 frameRate 24
        numAnimatedComponents 1
        hierarchy { \"root\" -1 4 0 \"tip\" 0 0 0 }
        bounds { ( -1 -1 -1 ) ( 1 1 1 ) ( -1 -1 -1 ) ( 1 1 1 ) }
        baseframe { ( 0 0 0 ) ( 0 0 0 ) ( 0 0 8 ) ( 0 0 0.5 ) }
        frame 0 { 1 } frame 1 { 2 }"
        .to_vec();
    for bytes in core::iter::once(&gen_mesh).chain(&meshes) {
        let f = mesh::parse(bytes).unwrap();
        let mut joints = vec![JointMat::IDENTITY; f.num_joints()];
        let most = |g: fn(&mesh::MeshView<'_>) -> usize| f.meshes().map(|m| g(&m)).max().unwrap();
        let mut verts = vec![Vertex::default(); most(|m| m.num_vertices())];
        let mut weights = vec![Weight::default(); most(|m| m.num_weights())];
        let mut tris = vec![[0u32; 3]; most(|m| m.num_triangles())];
        let mut out = vec![[0.0f32; 3]; verts.len()];
        no_alloc("md5mesh", || {
            let f = mesh::parse(bytes).unwrap();
            f.bind_pose(&mut joints);
            for m in f.meshes() {
                let (nv, nw) = (m.num_vertices(), m.num_weights());
                m.fill_vertices(&mut verts);
                m.fill_weights(&mut weights);
                m.fill_triangles(&mut tris);
                skinning::skin(&verts[..nv], &weights[..nw], &joints, &mut out);
                m.skin(&joints, &mut out);
                black_box(m.shader());
            }
            f.check(Engine::Doom3, &mut |x| {
                black_box(x);
            });
        });
    }
    for bytes in core::iter::once(&gen_anim).chain(&anims) {
        let a = anim::parse(bytes).unwrap();
        let hierarchy: Vec<HierarchyJoint<_>> = a.hierarchy().collect();
        let base: Vec<BaseJoint> = a.base_frame().collect();
        let mut comps = vec![0.0f32; a.num_animated_components()];
        let mut local = vec![JointPose::IDENTITY; hierarchy.len()];
        let mut mats = vec![JointMat::IDENTITY; hierarchy.len()];
        no_alloc("md5anim", || {
            let a = anim::parse(bytes).unwrap();
            for n in [0, a.num_frames() - 1] {
                a.fill_frame(n, &mut comps);
                pose::frame_local(&hierarchy, &base, &comps, &mut local);
                pose::model_space(&hierarchy, &local, &mut mats);
            }
            black_box(a.bounds().count());
            a.check(Engine::Doom3, &mut |x| {
                black_box(x);
            });
        });
    }
}
