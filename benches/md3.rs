//! MD3 benchmarks, in bytes per second: `parse` alone, decode frame 0, decode all frames,
//! on `oa_kyonshi/upper.md3` and `trem_level1_nonseg.md3` from `$IDMODEL_CORPUS` when set,
//! and always on generated models. `parse` never reads vertex data: the generated
//! 1-frame and 1000-frame models have the same structure, and parsing them costs the
//! same (the `parse/frames_*` pair).
// Bench code may unwrap, index and cast: a panic aborts the bench, it is not a library bug.
#![allow(clippy::restriction)]

mod common;

use core::hint::black_box;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idmodel::md3::{Md3, Model, NormalDecode, SurfaceData, Vertex, write};

/// Four 30×30 grid surfaces (900 vertices, 1682 triangles each) and one tag, with
/// `frames` frames: about 29 KB per frame.
fn generated(frames: usize) -> Vec<u8> {
    let mut m = Model::example();
    m.frames = (0..frames).map(|_| m.frames[0].clone()).collect();
    m.tags = (0..frames).map(|_| m.tags[0].clone()).collect();
    let n = 30u32;
    let mut triangles = Vec::new();
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = y * n + x;
            triangles.push([i, i + n, i + 1]);
            triangles.push([i + 1, i + n, i + n + 1]);
        }
    }
    let st: Vec<_> = (0..n * n)
        .map(|i| [(i % n) as f32 / 30.0, (i / n) as f32 / 30.0])
        .collect();
    m.surfaces = (0..4)
        .map(|s| SurfaceData {
            name: format!("grid{s}").into_bytes(),
            triangles: triangles.clone(),
            st: st.clone(),
            frames: (0..frames)
                .map(|f| {
                    (0..n * n)
                        .map(|i| Vertex {
                            xyz: [
                                (i % n) as i16 * 64,
                                (i / n) as i16 * 64,
                                ((i as usize + f) % 512) as i16,
                            ],
                            normal: (i * 257 + f as u32) as u16,
                        })
                        .collect()
                })
                .collect(),
            ..Model::example().surfaces[0].clone()
        })
        .collect();
    write(&m).unwrap()
}

fn decode_frames(m: &Md3<'_>, all: bool) -> f32 {
    let mut acc = 0.0f32;
    for s in m.surfaces() {
        let n = s.num_verts();
        let mut p = vec![[0.0f32; 3]; n];
        let mut nr = vec![[0.0f32; 3]; n];
        let frames = if all {
            s.num_frames()
        } else {
            1.min(s.num_frames())
        };
        for f in 0..frames {
            s.decode_frame(f, NormalDecode::Exact, &mut p, &mut nr)
                .unwrap();
            acc += p.first().map_or(0.0, |v| v[0]) + nr.first().map_or(0.0, |v| v[2]);
        }
    }
    acc
}

fn bench_file(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let parse = |b: &[u8]| _ = black_box(Md3::parse(b).unwrap());
    let mut g = common::parse_group(c, format!("md3/{name}"), bytes, parse);
    let m = Md3::parse(bytes).unwrap();
    g.bench_function("decode_frame0", |b| {
        b.iter(|| decode_frames(black_box(&m), false))
    });
    g.bench_function("decode_all_frames", |b| {
        b.iter(|| decode_frames(black_box(&m), true))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("IDMODEL_CORPUS").filter(|d| !d.is_empty()) {
        let dir = std::path::PathBuf::from(dir).join("md3");
        for file in ["oa_kyonshi/upper.md3", "trem_level1_nonseg.md3"] {
            let bytes = std::fs::read(dir.join(file)).unwrap();
            bench_file(c, file, &bytes);
        }
    } else {
        eprintln!("notice: IDMODEL_CORPUS is not set; benchmarking generated models only");
    }
    let big = generated(200);
    bench_file(c, "generated_200_frames", &big);
    // Same structure, 1 vs 1000 frames: parse time must not grow with the frame count.
    let mut g = c.benchmark_group("md3/parse_vs_frames");
    for frames in [1usize, 1000] {
        let bytes = generated(frames);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("frames_{frames}"), |b| {
            b.iter(|| Md3::parse(black_box(&bytes)).unwrap())
        });
    }
    g.finish();
}

// criterion_group! generates an undocumented public fn.
#[allow(missing_docs)]
mod group {
    use super::{benches, criterion_group};
    criterion_group!(md3, benches);
}
use group::md3;
criterion_main!(md3);
