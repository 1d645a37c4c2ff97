//! `convert --quantize` (and `--quantize --meshopt`) over every corpus model and player
//! folder: the Khronos validator passes each GLB with 0 errors and 0 warnings; the
//! importer reads the quantized one back to the plain GLB's scene within half of the
//! quantization grid's step (exactly for MD3, whose 1/64-unit grid the quantization
//! keeps); and wherever the plain GLB converts back to the original file byte for byte,
//! the quantized and the compressed ones do too.
//!
//! Skipped with a notice when `IDMODEL_CORPUS` is unset.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus_dir, idmodel, stderr};
use idmodel::gltf::import::{from_glb, no_files};
use idmodel::scene::Scene;

/// Every corpus model the way back writes (MDL, MD2, MD3, md5mesh), and the player folders.
fn sources(corpus: &Path) -> Vec<PathBuf> {
    let mut out = common::corpus_models(corpus, &["mdl", "md2", "md3", "md5mesh"]);
    out.push(corpus.join("md3/oa_kyonshi"));
    out
}

fn scene(glb: &Path) -> Scene {
    from_glb(
        &std::fs::read(glb).unwrap(),
        &Default::default(),
        &mut no_files,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", glb.display()))
}

/// The largest position difference between two scenes of the same shape (every mesh,
/// primitive, vertex and morph target), and the quantization step the quantized file's
/// dequantizing nodes use (the largest, 0 when none).
fn largest_difference(plain: &Scene, quantized: &Scene) -> f32 {
    assert_eq!(plain.meshes.len(), quantized.meshes.len());
    assert_eq!(plain.nodes.len(), quantized.nodes.len(), "nodes fold back");
    let mut worst = 0.0f32;
    for (a, b) in plain.meshes.iter().zip(&quantized.meshes) {
        assert_eq!(a.primitives.len(), b.primitives.len());
        for (p, q) in a.primitives.iter().zip(&b.primitives) {
            assert_eq!(p.indices, q.indices);
            assert_eq!(p.targets.len(), q.targets.len());
            for (i, (x, y)) in p.positions.iter().zip(&q.positions).enumerate() {
                for k in 0..3 {
                    worst = worst.max((x[k] - y[k]).abs());
                    // Every frame: base plus displacement.
                    for (s, t) in p.targets.iter().zip(&q.targets) {
                        let fx = x[k] + s.positions[i][k];
                        let fy = y[k] + t.positions[i][k];
                        worst = worst.max((fx - fy).abs());
                    }
                }
            }
        }
    }
    worst
}

/// The largest dequantizing scale in the GLB's JSON.
fn grid_step(glb: &Path) -> f32 {
    let bytes = std::fs::read(glb).unwrap();
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    // A file that draws nothing (a model of tags only) has nothing to quantize.
    if json["meshes"].as_array().is_some_and(|m| !m.is_empty()) {
        assert_eq!(
            json["extensionsRequired"][0],
            "KHR_mesh_quantization",
            "{}",
            glb.display()
        );
    }
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["extras"]["idmodel"] == "dequantize")
        .map(|n| n["scale"][0].as_f64().unwrap() as f32)
        .fold(0.0, f32::max)
}

#[test]
fn quantized_glbs_validate_read_back_and_convert_back_byte_for_byte() {
    let Some(corpus) =
        corpus_dir("quantized_glbs_validate_read_back_and_convert_back_byte_for_byte")
    else {
        return;
    };
    let out = idmodel_test_support::Scratch::new("quantized-corpus");
    let mut written = Vec::new();
    let mut failures = Vec::new();
    let (mut identical, mut exact_md3) = (0, 0);
    for (i, src) in sources(&corpus).iter().enumerate() {
        let is_player = src.is_dir();
        let ext = if is_player {
            "md3".to_owned()
        } else {
            src.extension()
                .unwrap()
                .to_string_lossy()
                .to_ascii_lowercase()
        };
        let plain = out.join(format!("{i}.glb"));
        let quant = out.join(format!("{i}.q.glb"));
        let o = idmodel(&[&"convert", src, &"-o", &plain, &"-q"]);
        if !o.status.success() {
            // Refused models are the plain conversion's test; nothing to compare.
            continue;
        }
        let o = idmodel(&[&"convert", src, &"-o", &quant, &"--quantize", &"-q"]);
        assert!(o.status.success(), "{}: {}", src.display(), stderr(&o));
        written.push(quant.clone());
        // Quantized and compressed (EXT_meshopt_compression): at most the quantized size.
        let packed = out.join(format!("{i}.m.glb"));
        let o = idmodel(&[
            &"convert",
            src,
            &"-o",
            &packed,
            &"--quantize",
            &"--meshopt",
            &"-q",
        ]);
        assert!(o.status.success(), "{}: {}", src.display(), stderr(&o));
        assert!(
            std::fs::metadata(&packed).unwrap().len() <= std::fs::metadata(&quant).unwrap().len(),
            "{}: --meshopt made it larger",
            src.display()
        );
        written.push(packed.clone());
        let (a, b) = (scene(&plain), scene(&quant));
        let step = grid_step(&quant);
        let worst = largest_difference(&a, &b);
        // Half a step, with a little float slack for the sums of base and displacement.
        if worst > step * 0.5 + 1e-4 * (1.0 + step) {
            failures.push(format!(
                "{}: positions move by {worst}, over half the grid step {step}",
                src.display()
            ));
        }
        if ext == "md3" && !is_player {
            // MD3's own grid: not a bit moves.
            if worst != 0.0 {
                failures.push(format!("{}: MD3 positions moved by {worst}", src.display()));
            }
            exact_md3 += 1;
        }
        // The way back: wherever the plain GLB gives the file back, so does the quantized.
        if is_player || ext == "md5mesh" {
            continue;
        }
        let back_plain = out.join(format!("{i}.plain.{ext}"));
        let back_quant = out.join(format!("{i}.quant.{ext}"));
        let original = std::fs::read(src).unwrap();
        let o = idmodel(&[&"convert", &plain, &"-o", &back_plain, &"-q"]);
        if !o.status.success() || std::fs::read(&back_plain).unwrap() != original {
            continue;
        }
        for (glb, what) in [(&quant, "quantized"), (&packed, "compressed")] {
            let o = idmodel(&[&"convert", glb, &"-o", &back_quant, &"-q", &"--force"]);
            if !o.status.success() || std::fs::read(&back_quant).unwrap() != original {
                failures.push(format!(
                    "{}: the {what} GLB does not convert back byte for byte ({})",
                    src.display(),
                    stderr(&o)
                ));
            } else if what == "compressed" {
                identical += 1;
            }
        }
    }
    assert!(
        identical >= 20,
        "only {identical} files came back byte for byte"
    );
    assert!(exact_md3 >= 10, "only {exact_md3} MD3 files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 0 errors and 0 warnings (skipped, visibly, without the validator).
    common::validate(&written);
}
