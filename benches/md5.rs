//! MD5 benchmarks: md5mesh parse (the no-allocation view and the owned model, in bytes
//! per second), bind-pose skinning (vertices per second), md5anim parse, and pose
//! evaluation plus skinning per frame. On `unv_human_light_body.md5mesh`, `Bob.md5mesh`
//! and `Bob.md5anim` from `$IDMODEL_CORPUS` when set, and always on generated large files.
// Bench code may unwrap, index and cast: a panic aborts the bench, it is not a library bug.
#![allow(clippy::restriction)]

use core::hint::black_box;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use idmodel::md5::anim::{self, Anim, BaseJoint, HierarchyJoint, flags};
use idmodel::md5::mesh::{self, Joint, Mesh, Model, Vertex, Weight};
use idmodel::md5::pose::{self, JointPose};
use idmodel::md5::skinning;
use idmodel_core::quat::JointMat;

const JOINTS: usize = 64;

/// 64 joints in a chain; 8 meshes of a 100×100 grid (80 000 vertices, 158 408
/// triangles, two weights per vertex): about 12 MB of text.
fn generated_mesh() -> Model {
    let joints = (0..JOINTS)
        .map(|i| Joint {
            name: format!("joint{i}"),
            parent: i as i32 - 1,
            position: [0.0, 0.0, i as f32 * 2.0],
            orientation: [0.0, 0.0, (i as f32 * 0.01).sin() * 0.1],
        })
        .collect();
    let n = 100u32;
    let meshes = (0..8)
        .map(|m| {
            let mut vertices = vec![];
            let mut weights = vec![];
            for i in 0..n * n {
                let (x, y) = ((i % n) as f32, (i / n) as f32);
                let j = ((i / n) as usize * JOINTS / n as usize).min(JOINTS - 1);
                vertices.push(Vertex {
                    uv: [x / n as f32, y / n as f32],
                    first_weight: weights.len() as u32,
                    weight_count: 2,
                });
                weights.push(Weight {
                    joint: j as u32,
                    bias: 0.75,
                    position: [x * 0.37, y * 0.11, m as f32 * 0.5],
                });
                weights.push(Weight {
                    joint: ((j + 1) % JOINTS) as u32,
                    bias: 0.25,
                    position: [x * 0.37, y * 0.11 - 2.0, m as f32 * 0.5],
                });
            }
            let mut triangles = vec![];
            for y in 0..n - 1 {
                for x in 0..n - 1 {
                    let i = y * n + x;
                    triangles.push([i, i + n, i + 1]);
                    triangles.push([i + 1, i + n, i + n + 1]);
                }
            }
            Mesh {
                name: None,
                shader: format!("models/bench/mesh{m}"),
                vertices,
                triangles,
                weights,
            }
        })
        .collect();
    Model {
        commandline: "generated".into(),
        joints,
        meshes,
    }
}

/// The same 64-joint chain, every component animated, 400 frames: about 3 MB.
fn generated_anim() -> Anim {
    let frames = (0..400)
        .map(|f| {
            (0..JOINTS * 6)
                .map(|c| {
                    let v = ((f * 7 + c * 13) % 100) as f32 * 0.001;
                    if c % 6 < 3 { v * 10.0 } else { v }
                })
                .collect()
        })
        .collect();
    Anim {
        commandline: "generated".into(),
        frame_rate: 24,
        num_animated_components: (JOINTS * 6) as u32,
        hierarchy: (0..JOINTS)
            .map(|i| HierarchyJoint {
                name: format!("joint{i}"),
                parent: i as i32 - 1,
                flags: flags::ALL,
                first_component: (i * 6) as i32,
            })
            .collect(),
        bounds: vec![[[-100.0; 3], [100.0; 3]]; 400],
        base_frame: (0..JOINTS)
            .map(|_| BaseJoint {
                position: [0.0, 0.0, 2.0],
                orientation: [0.0; 3],
            })
            .collect(),
        frames,
    }
}

/// The two parses of `bytes` in bytes per second: the view (`view`, no allocation) and
/// the owned form (`owned`, named `owned_name`).
fn bench_parses(
    g: &mut BenchmarkGroup<'_, WallTime>,
    bytes: &[u8],
    owned_name: &str,
    view: impl Fn(&[u8]),
    owned: impl Fn(&[u8]),
) {
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse (view, no allocation)", |b| {
        b.iter(|| view(black_box(bytes)))
    });
    g.bench_function(owned_name, |b| b.iter(|| owned(black_box(bytes))));
}

/// One zeroed position buffer per mesh of `model`, and the group's throughput set to its
/// vertex count (what a skinning bench measures).
fn skin_outputs(g: &mut BenchmarkGroup<'_, WallTime>, model: &Model) -> Vec<Vec<[f32; 3]>> {
    let verts: usize = model.meshes.iter().map(|m| m.vertices.len()).sum();
    g.throughput(Throughput::Elements(verts as u64));
    model
        .meshes
        .iter()
        .map(|m| vec![[0.0; 3]; m.vertices.len()])
        .collect()
}

fn bench_mesh(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let mut g = c.benchmark_group(format!("md5mesh/{name}"));
    let view = |b: &[u8]| _ = black_box(mesh::parse(b).unwrap());
    let owned = |b: &[u8]| _ = black_box(Model::parse(b).unwrap());
    bench_parses(&mut g, bytes, "parse (owned model)", view, owned);
    let model = Model::parse(bytes).unwrap();
    let joints = model.bind_pose();
    let mut out = skin_outputs(&mut g, &model);
    g.bench_function("bind-pose skinning (vertices)", |b| {
        b.iter(|| {
            for (m, o) in model.meshes.iter().zip(out.iter_mut()) {
                skinning::skin(&m.vertices, &m.weights, black_box(&joints), o);
            }
        })
    });
    g.finish();
}

/// An animation posed at one time after another: each [`Poser::advance`] moves 7 ms on
/// (wrapping at 10 s) and poses there, blended, in model space.
struct Poser<'a> {
    anim: &'a Anim,
    t: i32,
    local: Vec<JointPose>,
    scratch: Vec<JointPose>,
    mats: Vec<JointMat>,
}

impl<'a> Poser<'a> {
    fn new(anim: &'a Anim) -> Self {
        let n = anim.hierarchy.len();
        Poser {
            anim,
            t: 0,
            local: vec![JointPose::IDENTITY; n],
            scratch: vec![JointPose::IDENTITY; n],
            mats: vec![JointMat::IDENTITY; n],
        }
    }

    fn advance(&mut self) -> &[JointMat] {
        self.t = (self.t + 7) % 10_000;
        let raw = pose::RootMotion::Raw;
        self.anim
            .local_pose_at(self.t, raw, &mut self.scratch, &mut self.local);
        pose::model_space(&self.anim.hierarchy, &self.local, &mut self.mats);
        &self.mats
    }
}

fn bench_anim(c: &mut Criterion, name: &str, anim_bytes: &[u8], model: Option<&Model>) {
    let a = Anim::parse(anim_bytes).unwrap();
    let mut g = c.benchmark_group(format!("md5anim/{name}"));
    let view = |b: &[u8]| _ = black_box(anim::parse(b).unwrap());
    let owned = |b: &[u8]| _ = black_box(Anim::parse(b).unwrap());
    bench_parses(&mut g, anim_bytes, "parse (owned)", view, owned);
    g.throughput(Throughput::Elements(1));
    g.bench_function("pose at a time (blended, model space)", |b| {
        let mut poser = Poser::new(&a);
        b.iter(|| {
            black_box(poser.advance());
        })
    });
    if let Some(model) = model {
        let mut out = skin_outputs(&mut g, model);
        g.bench_function("pose + skinning per frame (vertices)", |b| {
            let mut poser = Poser::new(&a);
            b.iter(|| {
                let mats = poser.advance();
                for (m, o) in model.meshes.iter().zip(out.iter_mut()) {
                    skinning::skin(&m.vertices, &m.weights, mats, o);
                }
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let gm = generated_mesh();
    let gm_text = mesh::write(&gm).unwrap();
    bench_mesh(c, "generated", &gm_text);
    let ga_text = anim::write(&generated_anim()).unwrap();
    bench_anim(c, "generated", &ga_text, Some(&gm));
    if let Some(dir) = std::env::var_os("IDMODEL_CORPUS").filter(|d| !d.is_empty()) {
        let md5 = std::path::Path::new(&dir).join("md5");
        let read = |n: &str| std::fs::read(md5.join(n)).unwrap();
        bench_mesh(
            c,
            "unv_human_light_body",
            &read("unv_human_light_body.md5mesh"),
        );
        let bob = read("Bob.md5mesh");
        bench_mesh(c, "Bob", &bob);
        let bob_model = Model::parse(&bob).unwrap();
        bench_anim(c, "Bob", &read("Bob.md5anim"), Some(&bob_model));
    } else {
        eprintln!("notice: IDMODEL_CORPUS is not set; benching generated files only");
    }
}

// criterion_group! generates an undocumented public fn.
#[allow(missing_docs)]
mod group {
    use super::{benches, criterion_group};
    criterion_group!(md5, benches);
}
use group::md5;
criterion_main!(md5);
