//! MDL benchmarks, in bytes per second: parse; the welded frame-0 mesh; decoding all
//! poses; skins to RGBA. On `ogre.mdl`, `player.mdl` and `boss.mdl` from
//! `$IDMODEL_CORPUS` when set, and always on a generated large model.
// Bench code may unwrap, index and cast: a panic aborts the bench, it is not a library bug.
#![allow(clippy::restriction)]

use core::hint::black_box;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idmodel::mdl::{
    FrameData, Mdl, Model, PoseData, Quantizer, SeamRule, SkinData, SkinOptions, TexCoord, Tri,
    WeldedVertex, skin_to_rgba,
};

/// A 44×44 grid (1936 vertices, 3698 triangles, a seam column) with 250 poses (a frame
/// group of 50 among them) and a 512×256 skin group of 4: about 2.5 MB.
fn generated() -> Vec<u8> {
    let n = 44u32;
    // Two triangles a cell, row by row; the left half of the columns faces front.
    let (_, corners) = idmodel_test_support::grid(n - 1);
    let triangles = corners
        .into_iter()
        .enumerate()
        .map(|(k, vertices)| Tri {
            faces_front: i32::from((k as u32 / 2) % (n - 1) < n / 2),
            vertices,
        })
        .collect();
    let texcoords = (0..n * n)
        .map(|i| TexCoord {
            onseam: if i % n == 0 { 0x20 } else { 0 },
            s: (i % n) as i32 * 5,
            t: (i / n) as i32 * 5,
        })
        .collect();
    let q = Quantizer::from_bounds([-64.0; 3], [64.0; 3]);
    let pose = |f: u32| -> PoseData {
        let pts: Vec<[f32; 3]> = (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as f32 * 3.0 - 64.0, (i / n) as f32 * 3.0 - 64.0);
                [x, y, (x * 0.1 + f as f32 * 0.05).sin() * 30.0]
            })
            .collect();
        let normals = vec![[0.0, 0.0, 1.0]; pts.len()];
        q.pose(&format!("wave{f}"), &pts, &normals)
    };
    let mut frames: Vec<FrameData> = (0..200).map(|f| FrameData::Single(pose(f))).collect();
    let group: Vec<PoseData> = (200..250).map(pose).collect();
    frames.push(FrameData::Group {
        bbox_min: group[0].bbox_min,
        bbox_max: group[0].bbox_max,
        intervals: (1..=50).map(|i| i as f32 * 0.1).collect(),
        poses: group,
    });
    let (w, h) = (512u32, 256u32);
    let image = |k: u32| {
        (0..w * h)
            .map(|i| (i.wrapping_mul(31) ^ k) as u8)
            .collect::<Vec<u8>>()
    };
    let model = Model {
        scale: q.scale,
        origin: q.origin,
        bounding_radius: 90.0,
        eye_position: [0.0; 3],
        skin_width: w,
        skin_height: h,
        sync_type: 0,
        flags: Default::default(),
        size: 3.0,
        skins: vec![SkinData::Group {
            intervals: vec![0.1, 0.2, 0.3, 0.4],
            images: (0..4).map(image).collect(),
        }],
        texcoords,
        triangles,
        frames,
        trailing: Vec::new(),
    };
    model.write().unwrap()
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("generated".to_owned(), generated())];
    if let Some(dir) = std::env::var_os("IDMODEL_CORPUS") {
        let dir = std::path::PathBuf::from(dir).join("mdl");
        for name in ["ogre.mdl", "player.mdl", "boss.mdl"] {
            if let Ok(bytes) = std::fs::read(dir.join(name)) {
                out.push((name.to_owned(), bytes));
            }
        }
    } else {
        eprintln!("notice: IDMODEL_CORPUS is not set; benchmarking the generated model only");
    }
    out
}

fn bench(c: &mut Criterion) {
    for (name, bytes) in inputs() {
        let m = Mdl::parse(&bytes).unwrap();
        // Throughput counts the model data, not a trailing editor block.
        let model_bytes = m.trailing_offset() as u64;
        let mut g = c.benchmark_group(format!("mdl/{name}"));
        g.throughput(Throughput::Bytes(model_bytes));
        g.bench_function("parse", |b| {
            b.iter(|| Mdl::parse(black_box(&bytes)).unwrap().pose_count())
        });

        let sizes = m.weld_sizes();
        let mut verts = vec![WeldedVertex::default(); sizes.max_vertices];
        let mut indices = vec![0u32; sizes.indices];
        let mut scratch = vec![0u32; sizes.scratch];
        let mut positions = vec![[0.0f32; 3]; sizes.max_vertices];
        g.bench_function("welded frame-0 mesh", |b| {
            b.iter(|| {
                let n = m
                    .weld_into(SeamRule::Gl, &mut verts, &mut indices, &mut scratch)
                    .unwrap();
                let pose = m.pose(0).unwrap();
                pose.welded_positions_into(&verts[..n], &mut positions[..n]);
                black_box(positions[0])
            })
        });

        let mut out = vec![[0.0f32; 3]; m.vertex_count()];
        g.bench_function("all poses", |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for pose in m.poses() {
                    pose.positions_into(&mut out);
                    for n in pose.normals() {
                        acc += n[2];
                    }
                    acc += out[0][0];
                }
                black_box(acc)
            })
        });

        let opts = SkinOptions::default();
        let mut rgba = vec![0u8; m.skin_image_size() * 4];
        g.bench_function("skins to RGBA", |b| {
            b.iter(|| {
                for skin in m.skins() {
                    for image in skin.images() {
                        skin_to_rgba(image, &opts, &mut rgba).unwrap();
                    }
                }
                black_box(rgba[0])
            })
        });
        g.finish();
    }
}

// criterion_group! generates an undocumented public fn.
#[allow(missing_docs)]
mod group {
    use super::{bench, criterion_group};
    criterion_group!(mdl, bench);
}
use group::mdl;
criterion_main!(mdl);
