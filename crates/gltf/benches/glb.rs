//! The GLB writer against a `memcpy` of its output: `to_glb` of corpus scenes (an MD3, an
//! MD2 and an MDL with all their frames, from `$IDMODEL_CORPUS` when set) and of a
//! generated morph-animated scene, each beside a copy of the same number of bytes into a
//! buffer allocated once. `to_glb` allocates its output; `to_glb_pieces_reusing` builds
//! into the previous run's pieces, as the copy reuses its buffer. Throughput is in output
//! bytes per second, so the rows of a model compare directly (the target: the writer
//! within 2× of the copy).
//!
//! `cargo bench -p idmodel-gltf --bench glb -- --warm-up-time 1 --measurement-time 3`
// Bench code may unwrap, index and cast: a panic aborts the bench, it is not a library bug.
#![allow(clippy::restriction, missing_docs)]

use core::hint::black_box;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idmodel_gltf::{
    ExportOptions, png_indexed8, png_rgba8, to_glb, to_glb_pieces, to_glb_pieces_reusing,
};
use idmodel_scene::{Image, Mesh, MorphTarget, Node, Options, Primitive, Scene, md2, md3, mdl};

/// One mesh of 2 000 vertices with 200 morph targets (frames), positions and normals.
fn generated() -> Scene {
    let n = 2000usize;
    let grid = |k: f32| -> Vec<[f32; 3]> {
        (0..n)
            .map(|i| [i as f32 * 0.01, (i % 37) as f32 * k, (i % 11) as f32])
            .collect()
    };
    let prim = Primitive {
        positions: grid(1.0),
        normals: vec![[0.0, 0.0, 1.0]; n],
        uvs: (0..n).map(|i| [i as f32 / n as f32, 0.5]).collect(),
        indices: (0..(n as u32 - 2))
            .flat_map(|i| [i, i + 1, i + 2])
            .collect(),
        targets: (0..200)
            .map(|f| MorphTarget {
                positions: grid(f as f32 * 0.001),
                normals: vec![[0.0, 0.01, 0.0]; n],
            })
            .collect(),
        ..Primitive::default()
    };
    let mut node = Node::new("morph");
    node.mesh = Some(0);
    Scene {
        meshes: vec![Mesh {
            name: "morph".into(),
            primitives: vec![prim],
            ..Mesh::default()
        }],
        nodes: vec![node],
        ..Scene::default()
    }
}

fn corpus_scenes() -> Vec<(String, Scene)> {
    let Some(dir) = std::env::var_os("IDMODEL_CORPUS").map(std::path::PathBuf::from) else {
        return Vec::new();
    };
    let read = |p: &str| std::fs::read(dir.join(p)).ok();
    let o = Options::default();
    let mut out = Vec::new();
    if let Some(b) = read("md3/oa_kyonshi/upper.md3") {
        let m = idmodel_md3::Md3::parse(&b).unwrap();
        out.push(("upper.md3".into(), md3::scene(&m, "m", &o).unwrap()));
    }
    if let Some(b) = read("md2/faerie.md2") {
        let m = idmodel_md2::Md2::parse(&b).unwrap();
        out.push(("faerie.md2".into(), md2::scene(&m, "m", &o).unwrap()));
    }
    if let Some(b) = read("mdl/ogre.mdl") {
        let m = idmodel_mdl::Mdl::parse(&b).unwrap();
        out.push(("ogre.mdl".into(), mdl::scene(&m, "m", &o).unwrap()));
    }
    out
}

fn glb(c: &mut Criterion) {
    let mut scenes = corpus_scenes();
    scenes.push(("generated".into(), generated()));
    let options = ExportOptions::default();
    let mut g = c.benchmark_group("glb");
    for (name, scene) in &scenes {
        let bytes = to_glb(scene, &options).unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("{name} to_glb"), |b| {
            b.iter(|| to_glb(black_box(scene), &options).unwrap())
        });
        // The writer into memory it already has (a batch reuses one export's pieces for
        // the next): the same bytes, no allocation, no page faults, no move of the buffer.
        let mut reuse = Some(to_glb_pieces(scene, &options).unwrap());
        g.bench_function(format!("{name} to_glb_pieces_reusing"), |b| {
            b.iter(|| {
                let pieces =
                    to_glb_pieces_reusing(black_box(scene), &options, reuse.take().unwrap())
                        .unwrap();
                reuse = Some(pieces);
            })
        });
        // The PNG encodes alone (the part of the writer that is compression, not
        // copying): what is left of `to_glb_pieces_reusing` besides them is the writer's
        // own cost against the copy.
        let images: Vec<&Image> = scene.materials.iter().flat_map(|m| m.images()).collect();
        if images
            .iter()
            .any(|i| matches!(i, Image::Rgba8 { .. } | Image::Indexed8 { .. }))
        {
            g.bench_function(format!("{name} PNG encodes alone"), |b| {
                b.iter(|| {
                    for image in &images {
                        match image {
                            Image::Rgba8 {
                                width,
                                height,
                                pixels,
                            } => {
                                black_box(png_rgba8(*width, *height, pixels).unwrap());
                            }
                            Image::Indexed8 {
                                width,
                                height,
                                palette,
                                indices,
                            } => {
                                black_box(png_indexed8(*width, *height, palette, indices).unwrap());
                            }
                            _ => {}
                        }
                    }
                })
            });
        }
        let mut dst = vec![0u8; bytes.len()];
        g.bench_function(format!("{name} memcpy"), |b| {
            b.iter(|| dst.copy_from_slice(black_box(&bytes)))
        });
    }
    g.finish();
}

criterion_group!(benches, glb);
criterion_main!(benches);
