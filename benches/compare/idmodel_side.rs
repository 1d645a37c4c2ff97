//! idmodel side of the Assimp comparison (`benches/compare/run`).
//!
//! ```text
//! compare_idmodel FILE [BUDGET_MS]
//! ```
//!
//! prints one line of `key=value` pairs (medians in nanoseconds over many runs, each
//! measurement running for about `BUDGET_MS`, default 1500):
//!
//! * `load_ns`: the work Assimp's `ReadFileFromMemory` does: parse + frame-0
//!   engine-ready buffers (positions, normals, UVs, `u32` indices) for MDL, MD2 and MD3;
//!   parse + bind-pose skinning (positions, UVs, indices) for md5mesh; parse + frame 0
//!   evaluated to model-space joint matrices for md5anim. MDL and MD2 use the
//!   no-allocation `*_into` paths into caller buffers reused from load to load (as an
//!   engine does at level load); for the other formats the output buffers are allocated
//!   inside the timed region (Assimp allocates its scene there too) and freed outside it.
//! * `load_alloc_ns` (MDL, MD2): the same load with the output `Vec`s allocated inside
//!   the timing; `load_into_bytes`: its output bytes.
//! * `load_soup_ns`, `soup_verts` (MDL): the load with Assimp's output shape, one vertex
//!   per triangle corner, unwelded (`corners_into`), into reused buffers.
//! * `load_gl_ns`, `gl_verts`, `gl_bytes` (MD2): the load through Quake II's GL topology
//!   (`gl_mesh_into`, one vertex per GL command vertex) instead of the software mesh.
//! * With `STAGES` set in the environment: `stage_weld_pose_ns` (MDL), the fused weld
//!   alone; `stage_soft_mesh_ns` and `stage_attributes_ns` (MD2), the mesh build
//!   (`soft_mesh_scratch_into`) and frame 0's positions, normals and UVs apart.
//! * `load_bytes`: bytes of those output buffers; `memcpy_load_ns`: `memcpy` of as many.
//! * `parse_ns`: `parse` alone (the validating walk, no allocation).
//! * `all_ns`, `all_bytes`, `memcpy_all_ns` (MDL, MD2, MD3): decoding the positions and
//!   normals of every frame into one caller buffer of `all_bytes`, against `memcpy` of
//!   the same number of bytes between two buffers of that size.
//! * `verts`, `tris`: what the load produced, to compare with Assimp's counts.
// A measuring program: it may unwrap, index and cast (a panic aborts a measurement, not
// a library).
#![allow(clippy::restriction, missing_docs)]

use core::hint::black_box;
use core::time::Duration;
use std::time::Instant;

use idmodel::core::quat::JointMat;
use idmodel::md2::{Md2, MeshVertex};
use idmodel::md3::{Md3, NormalDecode};
use idmodel::md5::anim::{self, BaseJoint, HierarchyJoint};
use idmodel::md5::mesh::{self, Triangle, Vertex, Weight};
use idmodel::md5::pose::{self, JointPose};
use idmodel::md5::skinning;
use idmodel::mdl::{Mdl, SeamRule, WeldTargets, WeldedVertex};

/// Engine-ready frame-0 buffers.
#[derive(Default)]
struct Buffers {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
    joints: Vec<JointMat>,
}

impl Buffers {
    fn bytes(&self) -> usize {
        self.positions.len() * 12
            + self.normals.len() * 12
            + self.uvs.len() * 8
            + self.indices.len() * 4
            + self.joints.len() * size_of::<JointMat>()
    }
}

/// Median of many timed runs of `f`; what `f` returns is dropped outside the timing.
fn median_ns<T>(budget: Duration, mut f: impl FnMut() -> T) -> f64 {
    // Warm caches, the allocator and the branch predictors first.
    let warm = Instant::now();
    for _ in 0..3 {
        black_box(f());
        if warm.elapsed() > budget / 4 {
            break;
        }
    }
    let mut v: Vec<f64> = Vec::with_capacity(4096);
    let start = Instant::now();
    while v.len() < 21 || (v.len() < 200_001 && start.elapsed() < budget) {
        let t0 = Instant::now();
        let r = black_box(f());
        let dt = t0.elapsed();
        drop(r);
        v.push(dt.as_nanos() as f64);
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn memcpy_ns(bytes: usize, budget: Duration) -> f64 {
    let src: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let mut dst = vec![0u8; bytes];
    median_ns(budget, || {
        dst.copy_from_slice(black_box(&src));
        black_box(dst.last().copied())
    })
}

// ---------------------------------------------------------------- MDL

/// Caller-owned output and scratch buffers, reused from load to load as an engine does at
/// level load (sized once, grown only for a bigger model): the `*_into` paths then
/// allocate nothing.
#[derive(Default)]
struct Reused {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
    scratch: Vec<u32>,
    md2_verts: Vec<MeshVertex>,
}

fn grow<T: Clone + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

impl Reused {
    /// Bytes of the engine-ready output of the last load (`verts` vertices, `indices`).
    fn bytes(verts: usize, indices: usize) -> usize {
        verts * (12 + 12 + 8) + indices * 4
    }
}

/// MDL, no allocation: parse, then the welded mesh of pose 0 straight into the caller's
/// position, normal, UV and index slices (`weld_pose_into`). Returns (vertices, indices).
fn mdl_load_into(bytes: &[u8], b: &mut Reused) -> (usize, usize) {
    let m = Mdl::parse(bytes).unwrap();
    let sizes = m.weld_sizes();
    grow(&mut b.positions, sizes.max_vertices);
    grow(&mut b.normals, sizes.max_vertices);
    grow(&mut b.uvs, sizes.max_vertices);
    grow(&mut b.indices, sizes.indices);
    grow(&mut b.scratch, sizes.scratch);
    let pose = m.pose(0).unwrap();
    let targets = WeldTargets {
        positions: &mut b.positions,
        normals: &mut b.normals,
        uvs: &mut b.uvs,
        indices: &mut b.indices[..sizes.indices],
    };
    let n = m
        .weld_pose_into(SeamRule::Gl, &pose, targets, &mut b.scratch)
        .unwrap();
    (n, sizes.indices)
}

/// MDL as Assimp builds it: one vertex per triangle corner, unwelded and unindexed
/// (`corners_into`), into buffers reused from load to load.
fn mdl_soup_into(bytes: &[u8], b: &mut Reused) -> usize {
    let m = Mdl::parse(bytes).unwrap();
    let n = 3 * m.triangles().len();
    grow(&mut b.positions, n);
    grow(&mut b.normals, n);
    grow(&mut b.uvs, n);
    let pose = m.pose(0).unwrap();
    m.corners_into(
        SeamRule::Gl,
        &pose,
        &mut b.positions,
        &mut b.normals,
        &mut b.uvs,
    )
    .unwrap()
}

/// MDL with the output `Vec`s allocated inside the timing (as Assimp allocates its
/// scene): `weld_into`, then the pose decoded for the welded vertices.
fn mdl_load(bytes: &[u8]) -> Buffers {
    let m = Mdl::parse(bytes).unwrap();
    let sizes = m.weld_sizes();
    let mut verts = vec![WeldedVertex::default(); sizes.max_vertices];
    let mut indices = vec![0u32; sizes.indices];
    let mut scratch = vec![0u32; sizes.scratch];
    let n = m
        .weld_into(SeamRule::Gl, &mut verts, &mut indices, &mut scratch)
        .unwrap();
    let verts = &verts[..n];
    let pose = m.pose(0).unwrap();
    let uvs = verts.iter().map(|v| v.uv).collect();
    attributes(n, uvs, indices, |p, nr| {
        pose.welded_positions_into(verts, p);
        pose.welded_normals_into(verts, nr);
    })
}

/// `Buffers` of `n` positions and normals written by `fill`, and `uvs` and `indices`.
fn attributes(
    n: usize,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
    fill: impl FnOnce(&mut [[f32; 3]], &mut [[f32; 3]]),
) -> Buffers {
    let mut positions = vec![[0.0f32; 3]; n];
    let mut normals = vec![[0.0f32; 3]; n];
    fill(&mut positions, &mut normals);
    Buffers {
        positions,
        normals,
        uvs,
        indices,
        ..Buffers::default()
    }
}

/// Every pose's positions and normals (per stored vertex) into `out`, 6 floats a vertex.
fn mdl_all(m: &Mdl<'_>, out: &mut [[f32; 3]]) -> f32 {
    let n = m.vertex_count();
    let mut chunks = out.chunks_exact_mut(2 * n);
    for pose in m.poses() {
        let (p, nr) = chunks.next().unwrap().split_at_mut(n);
        pose.positions_into(p);
        for (o, v) in nr.iter_mut().zip(pose.normals()) {
            *o = v;
        }
    }
    out[0][0]
}

// ---------------------------------------------------------------- MD2

/// MD2, no allocation: parse, the software mesh (one vertex per distinct (xyz, st), the
/// same triangles + st that Assimp reads) built in linear time in the caller's slices,
/// then frame 0's positions, normals and the UVs for its vertices.
fn md2_load_into(bytes: &[u8], b: &mut Reused) -> (usize, usize) {
    let m = Md2::parse(bytes).unwrap();
    let sizes = m.soft_mesh_sizes();
    grow(&mut b.md2_verts, sizes.vertices);
    grow(&mut b.indices, sizes.indices);
    grow(&mut b.scratch, sizes.scratch);
    let n = m
        .soft_mesh_scratch_into(
            &mut b.md2_verts,
            &mut b.indices[..sizes.indices],
            &mut b.scratch,
        )
        .unwrap();
    md2_attributes(&m, n, b);
    (n, sizes.indices)
}

/// Frame 0's positions and normals and the UVs of `b.md2_verts[..n]`.
fn md2_attributes(m: &Md2<'_>, n: usize, b: &mut Reused) {
    grow(&mut b.positions, n);
    grow(&mut b.normals, n);
    grow(&mut b.uvs, n);
    let verts = &b.md2_verts[..n];
    let frame = m.frame(0).unwrap();
    frame.mesh_positions_into(verts, &mut b.positions);
    frame.mesh_normals_into(verts, &mut b.normals);
    for (o, v) in b.uvs.iter_mut().zip(verts) {
        *o = v.uv;
    }
}

/// MD2, no allocation, Quake II's GL topology: the GL command list as an indexed mesh
/// (`gl_mesh_into`: one vertex per command vertex, no dedup), then frame 0.
fn md2_load_gl_into(bytes: &[u8], b: &mut Reused) -> (usize, usize) {
    let m = Md2::parse(bytes).unwrap();
    let sizes = m.gl_mesh_sizes();
    grow(&mut b.md2_verts, sizes.vertices);
    grow(&mut b.indices, sizes.indices);
    m.gl_mesh_into(&mut b.md2_verts, &mut b.indices[..sizes.indices])
        .unwrap();
    md2_attributes(&m, sizes.vertices, b);
    (sizes.vertices, sizes.indices)
}

/// MD2 with the output `Vec`s allocated inside the timing.
fn md2_load(bytes: &[u8]) -> Buffers {
    let m = Md2::parse(bytes).unwrap();
    let sizes = m.soft_mesh_sizes();
    let mut verts = vec![MeshVertex::default(); sizes.vertices];
    let mut indices = vec![0u32; sizes.indices];
    let mut scratch = vec![0u32; sizes.scratch];
    let n = m
        .soft_mesh_scratch_into(&mut verts, &mut indices, &mut scratch)
        .unwrap();
    let verts = &verts[..n];
    let frame = m.frame(0).unwrap();
    let uvs = verts.iter().map(|v| v.uv).collect();
    attributes(n, uvs, indices, |p, nr| {
        frame.mesh_positions_into(verts, p);
        frame.mesh_normals_into(verts, nr);
    })
}

fn md2_all(m: &Md2<'_>, out: &mut [[f32; 3]]) -> f32 {
    let n = m.vertex_count();
    let mut chunks = out.chunks_exact_mut(2 * n);
    for f in m.frames() {
        let (p, nr) = chunks.next().unwrap().split_at_mut(n);
        f.positions_into(p).unwrap();
        f.normals_into(nr).unwrap();
    }
    out[0][0]
}

// ---------------------------------------------------------------- MD3

fn md3_load(bytes: &[u8]) -> Buffers {
    let m = Md3::parse(bytes).unwrap();
    let (mut nv, mut nt) = (0usize, 0usize);
    for s in m.surfaces() {
        nv += s.num_verts();
        nt += s.triangles().len();
    }
    let mut b = Buffers {
        positions: vec![[0.0; 3]; nv],
        normals: vec![[0.0; 3]; nv],
        uvs: vec![[0.0; 2]; nv],
        indices: vec![0; nt * 3],
        ..Buffers::default()
    };
    let (mut at, mut ti) = (0usize, 0usize);
    for s in m.surfaces() {
        let n = s.num_verts();
        if s.num_frames() > 0 {
            s.decode_frame(
                0,
                NormalDecode::Exact,
                &mut b.positions[at..at + n],
                &mut b.normals[at..at + n],
            )
            .unwrap();
        }
        s.tex_coords_into(&mut b.uvs[at..at + n]).unwrap();
        let k = 3 * s.triangles().len();
        s.indices_into(at as u32, &mut b.indices[ti..ti + k])
            .unwrap();
        ti += k;
        at += n;
    }
    b
}

fn md3_all(m: &Md3<'_>, out: &mut [[f32; 3]]) -> f32 {
    let mut rest = &mut *out;
    for s in m.surfaces() {
        let n = s.num_verts();
        for f in 0..s.num_frames() {
            let (chunk, tail) = rest.split_at_mut(2 * n);
            let (p, nr) = chunk.split_at_mut(n);
            s.decode_frame(f, NormalDecode::Exact, p, nr).unwrap();
            rest = tail;
        }
    }
    out.first().map_or(0.0, |v| v[0])
}

fn md3_all_len(m: &Md3<'_>) -> usize {
    m.surfaces()
        .map(|s| s.num_verts() * s.num_frames() * 2)
        .sum()
}

// ---------------------------------------------------------------- MD5

/// md5mesh through the no-allocation view: parse (validates), then each mesh's vertices,
/// weights and triangles read into slices (a second lexing pass over them), skinned.
fn md5mesh_load_view(bytes: &[u8]) -> Buffers {
    let f = mesh::parse(bytes).unwrap();
    let mut joints = vec![JointMat::IDENTITY; f.num_joints()];
    f.bind_pose(&mut joints);
    let nv = usize::try_from(f.total_vertices()).unwrap();
    let nt = usize::try_from(f.total_triangles()).unwrap();
    let mut b = Buffers {
        positions: vec![[0.0; 3]; nv],
        uvs: Vec::with_capacity(nv),
        indices: Vec::with_capacity(nt * 3),
        ..Buffers::default()
    };
    let mut verts: Vec<Vertex> = Vec::new();
    let mut weights: Vec<Weight> = Vec::new();
    let mut tris: Vec<Triangle> = Vec::new();
    let mut at = 0usize;
    for m in f.meshes() {
        verts.resize(m.num_vertices(), Vertex::default());
        weights.resize(m.num_weights(), Weight::default());
        tris.resize(m.num_triangles(), [0; 3]);
        m.fill_vertices(&mut verts);
        m.fill_weights(&mut weights);
        m.fill_triangles(&mut tris);
        let n = verts.len();
        skinning::skin(&verts, &weights, &joints, &mut b.positions[at..at + n]);
        b.uvs.extend(verts.iter().map(|v| v.uv));
        let base = at as u32;
        b.indices
            .extend(tris.iter().flat_map(|t| t.map(|i| i + base)));
        at += n;
    }
    b.joints = joints;
    b
}

/// md5mesh through the owned model (one lexing pass, into `Vec`s), then skinned.
fn md5mesh_load_owned(bytes: &[u8]) -> Buffers {
    let model = mesh::Model::parse(bytes).unwrap();
    let joints = model.bind_pose();
    let nv: usize = model.meshes.iter().map(|m| m.vertices.len()).sum();
    let nt: usize = model.meshes.iter().map(|m| m.triangles.len()).sum();
    let mut b = Buffers {
        positions: vec![[0.0; 3]; nv],
        uvs: Vec::with_capacity(nv),
        indices: Vec::with_capacity(nt * 3),
        ..Buffers::default()
    };
    let mut at = 0usize;
    for m in &model.meshes {
        let n = m.vertices.len();
        skinning::skin(
            &m.vertices,
            &m.weights,
            &joints,
            &mut b.positions[at..at + n],
        );
        b.uvs.extend(m.vertices.iter().map(|v| v.uv));
        let base = at as u32;
        b.indices
            .extend(m.triangles.iter().flat_map(|t| t.map(|i| i + base)));
        at += n;
    }
    b.joints = joints;
    b
}

/// md5anim: parse (validates every frame), then frame 0 to model-space matrices.
fn md5anim_load(bytes: &[u8]) -> Buffers {
    let a = anim::parse(bytes).unwrap();
    let hierarchy: Vec<HierarchyJoint<_>> = a.hierarchy().collect();
    let base: Vec<BaseJoint> = a.base_frame().collect();
    let mut comps = vec![0.0f32; a.num_animated_components()];
    a.fill_frame(0, &mut comps);
    let mut local = vec![JointPose::IDENTITY; hierarchy.len()];
    pose::frame_local(&hierarchy, &base, &comps, &mut local);
    let mut joints = vec![JointMat::IDENTITY; hierarchy.len()];
    pose::model_space(&hierarchy, &local, &mut joints);
    Buffers {
        joints,
        ..Buffers::default()
    }
}

/// The reused-buffer load wrote what the allocating load returns.
fn check_same(load: &Buffers, b: &Reused, n: usize) {
    assert_eq!(load.positions, b.positions[..n], "positions differ");
    assert_eq!(load.normals, b.normals[..n], "normals differ");
    assert_eq!(load.uvs, b.uvs[..n], "uvs differ");
    assert_eq!(
        load.indices,
        b.indices[..load.indices.len()],
        "indices differ"
    );
}

/// A format's two loads: allocating, and into reused buffers (vertices, indices).
type Loads = (
    fn(&[u8]) -> Buffers,
    fn(&[u8], &mut Reused) -> (usize, usize),
);

/// Times a format's two loads, the allocating one and the one into reused buffers `b`
/// (after checking that they agree), and puts `load_into_bytes`, `load_ns` and
/// `load_alloc_ns`; the allocating load's buffers.
fn time_loads(
    budget: Duration,
    bytes: &[u8],
    put: &mut impl FnMut(&str, String),
    (load, load_into): Loads,
    b: &mut Reused,
) -> Buffers {
    let loaded = load(bytes);
    let (nv, ni) = load_into(bytes, b);
    check_same(&loaded, b, nv);
    put("load_into_bytes", Reused::bytes(nv, ni).to_string());
    let t = median_ns(budget, || load_into(black_box(bytes), b));
    put("load_ns", format!("{t:.0}"));
    let t = median_ns(budget, || load(bytes));
    put("load_alloc_ns", format!("{t:.0}"));
    loaded
}

// ---------------------------------------------------------------- main

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: compare_idmodel FILE [BUDGET_MS]");
    let ms: u64 = args.get(2).map_or(1500, |s| s.parse().unwrap());
    let budget = Duration::from_millis(ms);
    let bytes = std::fs::read(path).unwrap();
    let bytes = bytes.as_slice();
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let mut line = String::new();
    let mut put = |k: &str, v: String| line.push_str(&format!("{k}={v} "));

    let (load, parse_ns, all): (Buffers, f64, Option<(usize, f64)>) = match ext.as_str() {
        "mdl" => {
            let mut b = Reused::default();
            let load = time_loads(budget, bytes, &mut put, (mdl_load, mdl_load_into), &mut b);
            let parse = median_ns(budget, || Mdl::parse(bytes).unwrap().pose_count());
            let mut soup = Reused::default();
            put("soup_verts", mdl_soup_into(bytes, &mut soup).to_string());
            put(
                "load_soup_ns",
                format!(
                    "{:.0}",
                    median_ns(budget, || mdl_soup_into(black_box(bytes), &mut soup))
                ),
            );
            if std::env::var_os("STAGES").is_some() {
                let m = Mdl::parse(bytes).unwrap();
                let pose = m.pose(0).unwrap();
                let t = median_ns(budget, || {
                    let targets = WeldTargets {
                        positions: &mut b.positions,
                        normals: &mut b.normals,
                        uvs: &mut b.uvs,
                        indices: &mut b.indices[..m.weld_sizes().indices],
                    };
                    m.weld_pose_into(SeamRule::Gl, black_box(&pose), targets, &mut b.scratch)
                        .unwrap()
                });
                put("stage_weld_pose_ns", format!("{t:.0}"));
            }
            let m = Mdl::parse(bytes).unwrap();
            let mut out = vec![[0.0f32; 3]; m.pose_count() * m.vertex_count() * 2];
            let t = median_ns(budget, || mdl_all(&m, &mut out));
            (load, parse, Some((out.len() * 12, t)))
        }
        "md2" => {
            let mut b = Reused::default();
            let load = time_loads(budget, bytes, &mut put, (md2_load, md2_load_into), &mut b);
            let parse = median_ns(budget, || Md2::parse(bytes).unwrap().frame_count());
            if std::env::var_os("STAGES").is_some() {
                let m = Md2::parse(bytes).unwrap();
                let sizes = m.soft_mesh_sizes();
                let t = median_ns(budget, || {
                    m.soft_mesh_scratch_into(
                        &mut b.md2_verts,
                        &mut b.indices[..sizes.indices],
                        &mut b.scratch,
                    )
                    .unwrap()
                });
                put("stage_soft_mesh_ns", format!("{t:.0}"));
                let (n, _) = md2_load_into(bytes, &mut b);
                let t = median_ns(budget, || md2_attributes(&m, n, &mut b));
                put("stage_attributes_ns", format!("{t:.0}"));
            }
            let (gv, gi) = md2_load_gl_into(bytes, &mut b);
            put("gl_verts", gv.to_string());
            put("gl_bytes", Reused::bytes(gv, gi).to_string());
            put(
                "load_gl_ns",
                format!(
                    "{:.0}",
                    median_ns(budget, || md2_load_gl_into(black_box(bytes), &mut b))
                ),
            );
            let m = Md2::parse(bytes).unwrap();
            let mut out = vec![[0.0f32; 3]; m.frame_count() * m.vertex_count() * 2];
            let t = median_ns(budget, || md2_all(&m, &mut out));
            (load, parse, Some((out.len() * 12, t)))
        }
        "md3" => {
            let load = md3_load(bytes);
            let parse = median_ns(budget, || Md3::parse(bytes).unwrap().num_frames());
            put(
                "load_ns",
                format!("{:.0}", median_ns(budget, || md3_load(bytes))),
            );
            let m = Md3::parse(bytes).unwrap();
            let mut out = vec![[0.0f32; 3]; md3_all_len(&m)];
            let t = median_ns(budget, || md3_all(&m, &mut out));
            (load, parse, Some((out.len() * 12, t)))
        }
        "md5mesh" => {
            let view = md5mesh_load_view(bytes);
            let owned = md5mesh_load_owned(bytes);
            assert_eq!(
                view.positions, owned.positions,
                "view and owned paths disagree"
            );
            let parse = median_ns(budget, || mesh::parse(bytes).unwrap().num_meshes());
            let tv = median_ns(budget, || md5mesh_load_view(bytes));
            let to = median_ns(budget, || md5mesh_load_owned(bytes));
            put("load_view_ns", format!("{tv:.0}"));
            put("load_owned_ns", format!("{to:.0}"));
            put("load_ns", format!("{:.0}", tv.min(to)));
            put(
                "load_path",
                (if tv <= to { "view" } else { "owned" }).into(),
            );
            (view, parse, None)
        }
        "md5anim" => {
            let load = md5anim_load(bytes);
            let parse = median_ns(budget, || anim::parse(bytes).unwrap().num_frames());
            put(
                "load_ns",
                format!("{:.0}", median_ns(budget, || md5anim_load(bytes))),
            );
            (load, parse, None)
        }
        other => panic!("unknown extension {other:?}"),
    };
    put("parse_ns", format!("{parse_ns:.0}"));
    put(
        "parse_mbs",
        format!("{:.0}", bytes.len() as f64 / parse_ns * 1e3),
    );
    put("load_bytes", load.bytes().to_string());
    put(
        "memcpy_load_ns",
        format!("{:.0}", memcpy_ns(load.bytes(), budget)),
    );
    put("verts", load.uvs.len().max(load.joints.len()).to_string());
    put("tris", (load.indices.len() / 3).to_string());
    if let Some((all_bytes, all_ns)) = all {
        put("all_bytes", all_bytes.to_string());
        put("all_ns", format!("{all_ns:.0}"));
        put(
            "memcpy_all_ns",
            format!("{:.0}", memcpy_ns(all_bytes, budget)),
        );
    }
    println!("ok {}", line.trim_end());
}
