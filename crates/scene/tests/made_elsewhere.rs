//! Models made elsewhere: GLBs written here from code, byte by byte as an exporter script
//! would write them (no idmodel writer involved), converted to MD3, MD2 and MDL with
//! their animation:
//!
//! - a **shape-key animation** (two morph targets, one weight clip);
//! - a **skinned arm** with two bones and two clips (`bend`, `wave`), baked to vertex
//!   frames at the clips' key times and at `--fps`;
//! - a **mesh over the Quake III vertex limit** (2250 vertices), split for MD3 and
//!   refused naming the limit for Quake II and Quake.
//!
//! Every frame's positions are checked against the glTF pose computed here independently
//! (glTF axes turned to id's: `(x, y, z)` → `(z, x, y)`), within the format's
//! quantisation step.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, clippy::pedantic, missing_docs)]

use idmodel_core::Engine;
use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
use idmodel_scene::Scene;
use idmodel_scene::back::BackOptions;

mod common;

// ---------------------------------------------------------------------------------------
// A GLB byte builder

/// The little-endian bytes of `values`.
fn le_floats<'a>(values: impl IntoIterator<Item = &'a f32>) -> Vec<u8> {
    values.into_iter().flat_map(|f| f.to_le_bytes()).collect()
}

#[derive(Default)]
struct Glb {
    bin: Vec<u8>,
    views: Vec<String>,
    accessors: Vec<String>,
}

impl Glb {
    fn add(&mut self, bytes: &[u8], count: usize, ctype: u32, ty: &str, extra: &str) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views.push(format!(
            r#"{{"buffer":0,"byteOffset":{offset},"byteLength":{}}}"#,
            bytes.len()
        ));
        self.accessors.push(format!(
            r#"{{"bufferView":{},"componentType":{ctype},"count":{count},"type":"{ty}"{extra}}}"#,
            self.views.len() - 1
        ));
        self.accessors.len() - 1
    }

    fn vec3(&mut self, v: &[[f32; 3]]) -> usize {
        let (lo, hi) = common::bounds(v.iter().copied());
        let bytes = le_floats(v.iter().flatten());
        let extra = format!(
            r#","min":[{},{},{}],"max":[{},{},{}]"#,
            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
        );
        self.add(&bytes, v.len(), 5126, "VEC3", &extra)
    }

    fn vec2(&mut self, v: &[[f32; 2]]) -> usize {
        let bytes = le_floats(v.iter().flatten());
        self.add(&bytes, v.len(), 5126, "VEC2", "")
    }

    fn vec4(&mut self, v: &[[f32; 4]]) -> usize {
        let bytes = le_floats(v.iter().flatten());
        self.add(&bytes, v.len(), 5126, "VEC4", "")
    }

    fn times(&mut self, v: &[f32]) -> usize {
        let bytes = le_floats(v);
        let extra = format!(r#","min":[{}],"max":[{}]"#, v[0], v[v.len() - 1]);
        self.add(&bytes, v.len(), 5126, "SCALAR", &extra)
    }

    fn floats(&mut self, v: &[f32]) -> usize {
        let bytes = le_floats(v);
        self.add(&bytes, v.len(), 5126, "SCALAR", "")
    }

    fn indices(&mut self, v: &[u32]) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|i| i.to_le_bytes()).collect();
        self.add(&bytes, v.len(), 5125, "SCALAR", "")
    }

    fn joints(&mut self, v: &[[u16; 4]]) -> usize {
        let bytes: Vec<u8> = v.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
        self.add(&bytes, v.len(), 5123, "VEC4", "")
    }

    fn mat4(&mut self, v: &[[f32; 16]]) -> usize {
        let bytes = le_floats(v.iter().flatten());
        self.add(&bytes, v.len(), 5126, "MAT4", "")
    }

    /// The GLB: `rest` is the JSON members after `asset`, `buffers`, `bufferViews` and
    /// `accessors`.
    fn finish(mut self, rest: &str) -> Vec<u8> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut json = format!(
            r#"{{"asset":{{"version":"2.0","generator":"made_elsewhere.rs"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],{rest}}}"#,
            self.bin.len(),
            self.views.join(","),
            self.accessors.join(",")
        )
        .into_bytes();
        while json.len() % 4 != 0 {
            json.push(b' ');
        }
        let total = 12 + 8 + json.len() + 8 + self.bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
        out.extend_from_slice(&json);
        out.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
        out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
        out.extend_from_slice(&self.bin);
        out
    }
}

fn import(glb: &[u8]) -> Scene {
    from_glb(glb, &ImportOptions::default(), &mut no_files).unwrap()
}

/// glTF's Y-up `(x, y, z)` as id's Z-up `(z, x, y)` (the importer's default axes).
fn id_axes(p: [f32; 3]) -> [f32; 3] {
    [p[2], p[0], p[1]]
}

// ---------------------------------------------------------------------------------------
// Checking written frames against expected poses

/// The positions of every MD2 frame: `translate + v · scale`, with each frame's scale.
fn md2_frames(m: &idmodel_md2::Model) -> Vec<(String, Vec<[f32; 3]>, [f32; 3])> {
    m.frames
        .iter()
        .map(|f| {
            let p = f
                .vertices
                .iter()
                .map(|v| core::array::from_fn(|a| f.translate[a] + f32::from(v.v[a]) * f.scale[a]))
                .collect();
            (String::from_utf8_lossy(&f.name).into_owned(), p, f.scale)
        })
        .collect()
}

/// The positions of every MDL pose: `origin + v · scale`.
fn mdl_frames(m: &idmodel_mdl::Model) -> Vec<(String, Vec<[f32; 3]>, [f32; 3])> {
    m.frames
        .iter()
        .flat_map(idmodel_mdl::FrameData::poses)
        .map(|p| {
            let name = p.name.split(|&b| b == 0).next().unwrap_or(&[]);
            let pos = p
                .vertices
                .iter()
                .map(|v| core::array::from_fn(|a| m.origin[a] + f32::from(v.v[a]) * m.scale[a]))
                .collect();
            (String::from_utf8_lossy(name).into_owned(), pos, m.scale)
        })
        .collect()
}

/// Every written position within half a quantisation step (and a little float slack) of
/// the expected one.
fn assert_close(what: &str, got: &[[f32; 3]], want: &[[f32; 3]], step: [f32; 3]) {
    assert_eq!(got.len(), want.len(), "{what}: vertex count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for a in 0..3 {
            let tol = step[a] * 0.5 + 1e-3 * (1.0 + w[a].abs());
            assert!(
                (g[a] - w[a]).abs() <= tol,
                "{what}: vertex {i} axis {a}: {} written, {} expected (step {})",
                g[a],
                w[a],
                step[a]
            );
        }
    }
}

fn md3_positions(m: &idmodel_md3::Model, frame: usize) -> Vec<[f32; 3]> {
    m.surfaces
        .iter()
        .flat_map(|s| s.frames[frame].iter())
        .map(|v| v.xyz.map(|c| f32::from(c) / 64.0))
        .collect()
}

// ---------------------------------------------------------------------------------------
// 1. A shape-key animation

/// A quad of 4 vertices, two unnamed shape keys, and one clip `wave` whose three keys
/// (0, 0.5, 1 s) show the base, key 1, and half of each; with the expected poses of the
/// three keys, then of the base and each key at full weight (id axes).
fn shape_keys() -> (Vec<u8>, Vec<Vec<[f32; 3]>>) {
    let base = [
        [0.0, 0.0, 0.0],
        [20.0, 0.0, 0.0],
        [20.0, 10.0, 0.0],
        [0.0, 10.0, 0.0f32],
    ];
    let d1 = [
        [0.0, 0.0, 4.0],
        [0.0, 0.0, 4.0],
        [0.0, 6.0, 0.0],
        [0.0, 6.0, 0.0f32],
    ];
    let d2 = [
        [-3.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [-3.0, 0.0, 0.0f32],
    ];
    let weights = [[0.0f32, 0.0], [1.0, 0.0], [0.5, 0.5]];
    // The full-weight poses: the base, base + key 1, base + key 2 (MD3's frames).
    let full = [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]];
    let mut g = Glb::default();
    let pos = g.vec3(&base);
    let uv = g.vec2(&[[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]);
    let idx = g.indices(&[0, 1, 2, 0, 2, 3]);
    let t1 = g.vec3(&d1);
    let t2 = g.vec3(&d2);
    let times = g.times(&[0.0, 0.5, 1.0]);
    let w = g.floats(&weights.concat());
    let rest = format!(
        r#""scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"name":"flag","mesh":0}}],
        "meshes":[{{"name":"flag","primitives":[{{"attributes":{{"POSITION":{pos},"TEXCOORD_0":{uv}}},"indices":{idx},
        "targets":[{{"POSITION":{t1}}},{{"POSITION":{t2}}}]}}],"weights":[0,0]}}],
        "animations":[{{"name":"wave","samplers":[{{"input":{times},"output":{w},"interpolation":"LINEAR"}}],
        "channels":[{{"sampler":0,"target":{{"node":0,"path":"weights"}}}}]}}]"#
    );
    let poses = weights
        .iter()
        .chain(&full)
        .map(|w| {
            (0..4)
                .map(|v| {
                    id_axes(core::array::from_fn(|a| {
                        base[v][a] + w[0] * d1[v][a] + w[1] * d2[v][a]
                    }))
                })
                .collect()
        })
        .collect();
    (g.finish(&rest), poses)
}

#[test]
fn a_shape_key_animation_converts_with_its_frames() {
    let (glb, mut poses) = shape_keys();
    let targets = poses.split_off(3);
    let scene = import(&glb);

    let md2 = idmodel_scene::md2::from_scene(&scene, &BackOptions::default()).unwrap();
    let frames = md2_frames(&md2);
    let names: Vec<&str> = frames.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["wave1", "wave2", "wave3"]);
    for ((name, got, step), want) in frames.iter().zip(&poses) {
        assert_close(&format!("md2 {name}"), got, want, *step);
    }
    let bytes = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).unwrap();
    assert_eq!(idmodel_md2::Md2::parse(&bytes).unwrap().frames().len(), 3);

    // MDL: keys 0.5 s apart make one frame group (the default rule) with the keys' end
    // times as intervals; single frames when asked.
    let mdl = idmodel_scene::mdl::from_scene(&scene, &BackOptions::default()).unwrap();
    assert_eq!(mdl.frames.len(), 1);
    let idmodel_mdl::FrameData::Group { intervals, .. } = &mdl.frames[0] else {
        panic!("a group expected");
    };
    assert_eq!(intervals, &[0.5, 1.0, 1.1]);
    let frames = mdl_frames(&mdl);
    for ((name, got, step), want) in frames.iter().zip(&poses) {
        assert_close(&format!("mdl {name}"), got, want, *step);
    }
    let singles = BackOptions {
        groups: Some(false),
        ..BackOptions::default()
    };
    let mdl = idmodel_scene::mdl::from_scene(&scene, &singles).unwrap();
    assert_eq!(mdl.frames.len(), 3);
    let names: Vec<String> = mdl_frames(&mdl).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["wave1", "wave2", "wave3"]);

    // MD3: the frames are the morph targets (base, base + key 1, base + key 2).
    let md3 = idmodel_scene::md3::from_scene(&scene, &idmodel_scene::md3::BackOptions::default())
        .unwrap();
    assert_eq!(md3.frames.len(), 3);
    for (f, want) in targets.iter().enumerate() {
        assert_close(
            &format!("md3 frame {f}"),
            &md3_positions(&md3, f),
            want,
            [1.0 / 64.0; 3],
        );
    }
}

// ---------------------------------------------------------------------------------------
// 2. A skinned arm: two bones, two clips

fn quat_z(deg: f32) -> [f32; 4] {
    let h = deg.to_radians() * 0.5;
    [0.0, 0.0, h.sin(), h.cos()]
}

/// Rotates `p` by the unit quaternion `q` (`[x, y, z, w]`).
fn rotate(q: [f32; 4], p: [f32; 3]) -> [f32; 3] {
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let cross = idmodel_core::vec::cross;
    let t = cross(u, p).map(|c| 2.0 * c);
    let c = cross(u, t);
    core::array::from_fn(|k| p[k] + w * t[k] + c[k])
}

/// The arm along glTF +X from 0 to 20 (vertices at x = 0, 10, 20, y = ±1): x = 0 on the
/// upper bone, x = 10 half and half, x = 20 on the lower bone (which starts at x = 10).
/// Clip `bend`: the lower bone turns 0 → 90° about Z over 1 s. Clip `wave`: the upper
/// bone turns 0 → 45° → 0 about Z at 0, 0.5, 1 s.
fn arm() -> Vec<u8> {
    let mut g = Glb::default();
    let pos = g.vec3(&ARM);
    let uv = g.vec2(&[
        [0.0, 0.0],
        [0.0, 1.0],
        [0.5, 0.0],
        [0.5, 1.0],
        [1.0, 0.0],
        [1.0, 1.0],
    ]);
    let idx = g.indices(&[0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5]);
    let joints = g.joints(&[[0, 1, 0, 0]; 6]);
    let weights = g.vec4(&ARM_WEIGHTS.map(|[a, b]| [a, b, 0.0, 0.0]));
    let mut lower_ibm = IDENTITY;
    lower_ibm[12] = -10.0;
    let ibm = g.mat4(&[IDENTITY, lower_ibm]);
    let bend_t = g.times(&[0.0, 1.0]);
    let bend_r = g.vec4(&[quat_z(0.0), quat_z(90.0)]);
    let wave_t = g.times(&[0.0, 0.5, 1.0]);
    let wave_r = g.vec4(&[quat_z(0.0), quat_z(45.0), quat_z(0.0)]);
    let rest = format!(
        r#""scene":0,"scenes":[{{"nodes":[0,1]}}],
        "nodes":[{{"name":"arm","mesh":0,"skin":0}},{{"name":"upper","children":[2]}},{{"name":"lower","translation":[10,0,0]}}],
        "skins":[{{"joints":[1,2],"inverseBindMatrices":{ibm}}}],
        "meshes":[{{"name":"arm","primitives":[{{"attributes":{{"POSITION":{pos},"TEXCOORD_0":{uv},"JOINTS_0":{joints},"WEIGHTS_0":{weights}}},"indices":{idx}}}]}}],
        "animations":[
          {{"name":"bend","samplers":[{{"input":{bend_t},"output":{bend_r}}}],"channels":[{{"sampler":0,"target":{{"node":2,"path":"rotation"}}}}]}},
          {{"name":"wave","samplers":[{{"input":{wave_t},"output":{wave_r}}}],"channels":[{{"sampler":0,"target":{{"node":1,"path":"rotation"}}}}]}}]"#
    );
    g.finish(&rest)
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

const ARM: [[f32; 3]; 6] = [
    [0.0, -1.0, 0.0],
    [0.0, 1.0, 0.0],
    [10.0, -1.0, 0.0],
    [10.0, 1.0, 0.0],
    [20.0, -1.0, 0.0],
    [20.0, 1.0, 0.0],
];

const ARM_WEIGHTS: [[f32; 2]; 6] = [
    [1.0, 0.0],
    [1.0, 0.0],
    [0.5, 0.5],
    [0.5, 0.5],
    [0.0, 1.0],
    [0.0, 1.0],
];

/// The arm posed with the upper bone at `upper`° and the lower at `lower`° about Z, in
/// id axes: each vertex the weighted sum of its bones' world × inverse bind transforms.
fn arm_pose(upper: f32, lower: f32) -> Vec<[f32; 3]> {
    let (qu, ql) = (quat_z(upper), quat_z(lower));
    ARM.iter()
        .zip(ARM_WEIGHTS)
        .map(|(&p, [wu, wl])| {
            // Upper: world = R(upper), bind at the origin.
            let by_upper = rotate(qu, p);
            // Lower: world = R(upper) · T(10, 0, 0) · R(lower); inverse bind T(−10, 0, 0).
            let local = rotate(ql, [p[0] - 10.0, p[1], p[2]]);
            let by_lower = rotate(qu, [local[0] + 10.0, local[1], local[2]]);
            id_axes(core::array::from_fn(|k| {
                wu * by_upper[k] + wl * by_lower[k]
            }))
        })
        .collect()
}

#[test]
fn a_skinned_arm_with_two_clips_is_baked_at_its_keys_and_at_fps() {
    let scene = import(&arm());
    // At the clips' key times: bend 0 s, 1 s; wave 0, 0.5, 1 s.
    let expected: Vec<(&str, Vec<[f32; 3]>)> = vec![
        ("bend1", arm_pose(0.0, 0.0)),
        ("bend2", arm_pose(0.0, 90.0)),
        ("wave1", arm_pose(0.0, 0.0)),
        ("wave2", arm_pose(45.0, 0.0)),
        ("wave3", arm_pose(0.0, 0.0)),
    ];
    // The bent pose really moves the hand: (20, ±1, 0) goes to about (10 ∓ 1, 10, 0).
    assert!(
        (expected[1].1[4][1] - 11.0).abs() < 1e-4,
        "{:?}",
        expected[1].1[4]
    );

    let md2 = idmodel_scene::md2::from_scene(&scene, &BackOptions::default()).unwrap();
    let frames = md2_frames(&md2);
    assert_eq!(frames.len(), 5);
    for ((name, got, step), (want_name, want)) in frames.iter().zip(&expected) {
        assert_eq!(name, want_name);
        assert_close(&format!("md2 {name}"), got, want, *step);
    }
    let mdl = idmodel_scene::mdl::from_scene(
        &scene,
        &BackOptions {
            groups: Some(false),
            ..BackOptions::default()
        },
    )
    .unwrap();
    assert_eq!(mdl.frames.len(), 5);
    for ((name, got, step), (want_name, want)) in mdl_frames(&mdl).iter().zip(&expected) {
        assert_eq!(name, want_name);
        assert_close(&format!("mdl {name}"), got, want, *step);
    }
    // Asked for groups: one per clip, with the keys' end times as intervals.
    let grouped = BackOptions {
        groups: Some(true),
        ..BackOptions::default()
    };
    let mdl = idmodel_scene::mdl::from_scene(&scene, &grouped).unwrap();
    let intervals: Vec<Vec<f32>> = mdl
        .frames
        .iter()
        .map(|f| match f {
            idmodel_mdl::FrameData::Group { intervals, .. } => intervals.clone(),
            idmodel_mdl::FrameData::Single(_) => Vec::new(),
        })
        .collect();
    assert_eq!(intervals, vec![vec![1.0, 1.1], vec![0.5, 1.0, 1.1]]);
    let bytes = idmodel_scene::mdl::to_bytes(&scene, &grouped).unwrap();
    let parsed = idmodel_mdl::Mdl::parse(&bytes).unwrap();
    assert_eq!((parsed.frame_count(), parsed.pose_count()), (2, 5));

    // At 4 frames a second: 5 frames per clip (0, 0.25, …, 1 s), linear in the keys.
    let fps = BackOptions {
        fps: Some(4.0),
        ..BackOptions::default()
    };
    let md2 = idmodel_scene::md2::from_scene(&scene, &fps).unwrap();
    let frames = md2_frames(&md2);
    assert_eq!(frames.len(), 10);
    assert_eq!(frames[4].0, "bend5");
    assert_eq!(frames[9].0, "wave5");
    // bend at 0.5 s: the rotation halfway (nlerp of 0° and 90° is 45°).
    assert_close("md2 bend3", &frames[2].1, &arm_pose(0.0, 45.0), frames[2].2);
    // wave at 0.25 s: halfway between 0° and 45°.
    assert_close("md2 wave2", &frames[6].1, &arm_pose(22.5, 0.0), frames[6].2);

    // MD3 samples the first clip.
    let md3 = idmodel_scene::md3::from_scene(&scene, &idmodel_scene::md3::BackOptions::default())
        .unwrap();
    assert_eq!(md3.frames.len(), 2);
    assert_close(
        "md3 bend2",
        &md3_positions(&md3, 1),
        &expected[1].1,
        [1.0 / 64.0; 3],
    );
    let md3 = idmodel_scene::md3::from_scene(
        &scene,
        &idmodel_scene::md3::BackOptions {
            fps: Some(4.0),
            ..idmodel_scene::md3::BackOptions::default()
        },
    )
    .unwrap();
    assert_eq!(md3.frames.len(), 5);
    assert_close(
        "md3 bend3",
        &md3_positions(&md3, 2),
        &arm_pose(0.0, 45.0),
        [1.0 / 64.0; 3],
    );
}

// ---------------------------------------------------------------------------------------
// 3. A mesh over the Quake III vertex limit

const GRID: (u32, u32) = (50, 45);

/// A 50 × 45 grid (2250 vertices, 4312 triangles) with one shape key (a bulge) and a
/// clip `breathe` showing it at 0, 1, 0.
fn big_grid() -> (Vec<u8>, Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let (w, h) = GRID;
    let mut base = Vec::new();
    let mut uvs = Vec::new();
    let mut bulge = Vec::new();
    for y in 0..h {
        for x in 0..w {
            base.push([x as f32, y as f32, 0.0]);
            uvs.push([x as f32 / (w - 1) as f32, y as f32 / (h - 1) as f32]);
            bulge.push([0.0, 0.0, ((x + y) % 7) as f32]);
        }
    }
    let mut idx = Vec::new();
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            let i = y * w + x;
            idx.extend([i, i + 1, i + w, i + 1, i + w + 1, i + w]);
        }
    }
    let mut g = Glb::default();
    let pos = g.vec3(&base);
    let uv = g.vec2(&uvs);
    let ix = g.indices(&idx);
    let t = g.vec3(&bulge);
    let times = g.times(&[0.0, 1.0, 2.0]);
    let wts = g.floats(&[0.0, 1.0, 0.0]);
    let rest = format!(
        r#""scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"name":"grid","mesh":0}}],
        "meshes":[{{"name":"grid","primitives":[{{"attributes":{{"POSITION":{pos},"TEXCOORD_0":{uv}}},"indices":{ix},"targets":[{{"POSITION":{t}}}]}}]}}],
        "animations":[{{"name":"breathe","samplers":[{{"input":{times},"output":{wts}}}],"channels":[{{"sampler":0,"target":{{"node":0,"path":"weights"}}}}]}}]"#
    );
    let full = base
        .iter()
        .zip(&bulge)
        .map(|(p, d)| id_axes(core::array::from_fn(|k| p[k] + d[k])))
        .collect();
    (
        g.finish(&rest),
        base.into_iter().map(id_axes).collect(),
        full,
    )
}

#[test]
fn a_mesh_over_the_quake3_limit_is_split_for_md3_and_refused_naming_the_limit() {
    let (glb, base, full) = big_grid();
    let scene = import(&glb);
    let limits = idmodel_scene::md3::Limits::of(Engine::Quake3).unwrap();
    let split = idmodel_scene::md3::BackOptions {
        limits: Some(limits),
        split: true,
        ..idmodel_scene::md3::BackOptions::default()
    };
    let md3 = idmodel_scene::md3::from_scene(&scene, &split).unwrap();
    assert!(md3.surfaces.len() >= 3, "{} surfaces", md3.surfaces.len());
    let mut vertices = 0;
    let mut triangles = 0;
    for s in &md3.surfaces {
        // 999 / 1999, not the 1000 / 2000 Quake III 1.32's loader takes: its renderer
        // cannot draw a surface of 1000 vertices or 2000 triangles (RB_CheckOverflow).
        assert!(s.st.len() <= 999 && s.triangles.len() <= 1999);
        vertices += s.st.len();
        triangles += s.triangles.len();
    }
    assert_eq!(triangles, 49 * 44 * 2);
    assert!(vertices >= 2250);
    assert_eq!(md3.frames.len(), 2);
    // Every written vertex is one of the grid's, at its frame's position.
    for (f, want) in [&base, &full].into_iter().enumerate() {
        for s in &md3.surfaces {
            for v in &s.frames[f] {
                let p = v.xyz.map(|c| f32::from(c) / 64.0);
                assert!(
                    want.iter()
                        .any(|w| (0..3).all(|k| (w[k] - p[k]).abs() <= 1.0 / 128.0)),
                    "frame {f}: {p:?} is no grid vertex"
                );
            }
        }
    }
    let bytes = idmodel_scene::md3::to_bytes(&scene, &split).unwrap();
    let parsed = idmodel_md3::Md3::parse(&bytes).unwrap();
    assert!(
        parsed
            .findings(Engine::Quake3)
            .iter()
            .all(|f| idmodel_core::findings::Finding::severity(f)
                < idmodel_core::findings::Severity::Hazard)
    );
    let refuse = idmodel_scene::md3::BackOptions {
        limits: Some(limits),
        split: false,
        ..idmodel_scene::md3::BackOptions::default()
    };
    let e = idmodel_scene::md3::from_scene(&scene, &refuse).unwrap_err();
    // The limit named is the drawable one (999), not the loadable 1000.
    assert!(e.message().contains("limit of 999 vertices"), "{e}");

    // Quake II loads at most 2048 MD2 vertices, Quake (WinQuake) 2000 MDL vertices.
    let quake2 = refusal(&scene, Engine::Quake2, idmodel_scene::md2::to_bytes);
    assert!(
        quake2.starts_with("refusing to write this MD2: quake2: "),
        "{quake2}"
    );
    assert!(quake2.contains("2048"), "{quake2}");
    let winquake = refusal(&scene, Engine::WinQuake, idmodel_scene::mdl::to_bytes);
    assert!(
        winquake.starts_with("refusing to write this MDL: winquake: "),
        "{winquake}"
    );
    assert!(winquake.contains("2000"), "{winquake}");
    // Without an engine the file holds them, with the clip's frames.
    let m = idmodel_scene::md2::from_scene(&scene, &BackOptions::default()).unwrap();
    let frames = md2_frames(&m);
    let names: Vec<&str> = frames.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["breathe1", "breathe2", "breathe3"]);
    assert_close("md2 breathe2", &frames[1].1, &full, frames[1].2);
    assert_close("md2 breathe3", &frames[2].1, &base, frames[2].2);
}

/// The message of `to_bytes`'s refusal to write `scene` within `engine`'s limits.
fn refusal(
    scene: &Scene,
    engine: Engine,
    to_bytes: fn(&Scene, &BackOptions) -> idmodel_scene::Result<Vec<u8>>,
) -> String {
    let options = BackOptions {
        engine: Some(engine),
        ..BackOptions::default()
    };
    to_bytes(scene, &options).unwrap_err().message().to_owned()
}
