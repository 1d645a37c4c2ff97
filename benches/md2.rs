//! MD2 benchmarks: parse and full decode measured apart, in bytes per second, on
//! `faerie.md2` and the 3.6 MB `ufoai_soldiers_male/body.md2` from `$IDMODEL_CORPUS`
//! when set, and always on a generated large model.
// Bench code may unwrap, index and cast: a panic aborts the bench, it is not a library bug.
#![allow(clippy::restriction)]

mod common;

use core::hint::black_box;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idmodel::md2::raw::TriVertex;
use idmodel::md2::{FrameData, Md2, Model, Triangle};

/// A 40×40 grid (1600 vertices, 3042 triangles) with 200 frames: about 1.3 MB.
fn generated() -> Vec<u8> {
    let n = 40u16;
    let (_, corners) = idmodel_test_support::grid(u32::from(n) - 1);
    let triangles = corners
        .iter()
        .map(|t| {
            let v = t.map(|i| i as u16);
            Triangle { xyz: v, st: v }
        })
        .collect();
    let st = (0..n * n)
        .map(|i| [(i % n) as i16 * 6, (i / n) as i16 * 6])
        .collect();
    let frames = (0..200u32)
        .map(|f| FrameData {
            name: format!("run{f:03}").into_bytes(),
            scale: [0.5; 3],
            translate: [-64.0, -64.0, 0.0],
            vertices: (0..u32::from(n * n))
                .map(|i| TriVertex {
                    v: [
                        (i % 40 * 6) as u8,
                        (i / 40 * 6) as u8,
                        ((i + f) % 250) as u8,
                    ],
                    light_normal_index: (i % 162) as u8,
                })
                .collect(),
        })
        .collect();
    let model = Model {
        skin_width: 256,
        skin_height: 256,
        skins: vec![b"models/bench/skin.pcx".to_vec()],
        st,
        triangles,
        frames,
        gl_commands: true,
    };
    idmodel::md2::write(&model).unwrap()
}

fn decode_all(md2: &Md2<'_>, pos: &mut [[f32; 3]]) -> f32 {
    let mut acc = 0.0f32;
    for f in md2.frames() {
        f.positions_into(pos).unwrap();
        acc += pos[0][0];
        acc += f.normals().map(|n| n[2]).sum::<f32>();
    }
    let a = md2.frame(0).unwrap();
    let b = md2.frame_or_first(1);
    acc += idmodel::md2::lerp_positions(&a, &b, 0.5)
        .map(|p| p[1])
        .sum::<f32>();
    acc += md2.soft_mesh().vertices.len() as f32;
    acc += md2.gl_mesh().indices.len() as f32;
    acc
}

fn bench_file(c: &mut Criterion, name: &str, bytes: &[u8]) {
    let parse = |b: &[u8]| _ = black_box(Md2::parse(b).unwrap());
    let mut g = common::parse_group(c, format!("md2/{name}"), bytes, parse);
    let md2 = Md2::parse(bytes).unwrap();
    let mut pos = vec![[0.0f32; 3]; md2.vertex_count()];
    g.bench_function("decode", |b| {
        b.iter(|| decode_all(black_box(&md2), &mut pos))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("IDMODEL_CORPUS").filter(|d| !d.is_empty()) {
        let dir = std::path::PathBuf::from(dir).join("md2");
        for name in ["faerie.md2", "ufoai_soldiers_male/body.md2"] {
            match std::fs::read(dir.join(name)) {
                Ok(bytes) => bench_file(c, name, &bytes),
                Err(e) => eprintln!("notice: skipping {name}: {e}"),
            }
        }
    } else {
        eprintln!("notice: IDMODEL_CORPUS is not set; benchmarking the generated model only");
    }
    let bytes = generated();
    bench_file(c, "generated", &bytes);
    let model = Model::from(Md2::parse(&bytes).unwrap());
    let mut g = c.benchmark_group("md2/generated");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.bench_function("write", |b| {
        b.iter(|| idmodel::md2::write(black_box(&model)).unwrap())
    });
    g.finish();
}

// criterion_group! generates an undocumented public fn.
#[allow(missing_docs)]
mod group {
    use super::{benches, criterion_group};
    criterion_group!(md2, benches);
}
use group::md2;
criterion_main!(md2);
