//! Every corpus model through `convert` (`.glb` and `.gltf`, validated by the Khronos
//! validator, 0 errors and 0 warnings) and `render` (a PNG of the requested size with a plausible drawn area).
//!
//! Skipped with a notice when `IDMODEL_CORPUS` is unset. Every format is wired: any
//! failed conversion or render is a test failure.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus_dir, idmodel, validator};

fn models(corpus: &Path) -> Vec<PathBuf> {
    common::corpus_models(corpus, &["mdl", "md2", "md3", "md5mesh", "md5camera"])
}

#[test]
fn corpus_models_convert_validate_and_render() {
    let Some(corpus) = corpus_dir("corpus_models_convert_validate_and_render") else {
        return;
    };
    let files = models(&corpus);
    assert!(!files.is_empty(), "no corpus models");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("idmodel-cli-corpus");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let mut written = Vec::new();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let glb = out.join(format!("{i}.glb"));
        let gltf = out.join(format!("{i}.gltf"));
        let png = out.join(format!("{i}.png"));
        let o = idmodel(&[&"convert", file, &"-o", &glb]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if !o.status.success() {
            failures.push(format!("convert {}: {err}", file.display()));
            continue;
        }
        written.push(glb);
        let o = idmodel(&[&"convert", file, &"-o", &gltf]);
        if o.status.success() {
            written.push(gltf);
        } else {
            failures.push(format!(
                "convert .gltf {}: {}",
                file.display(),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        if file.extension().is_some_and(|e| e == "md5camera") {
            continue; // nothing to draw
        }
        let o = idmodel(&[&"render", file, &"-o", &png, &"--size", &"160x120"]);
        if !o.status.success() {
            failures.push(format!(
                "render {}: {}",
                file.display(),
                String::from_utf8_lossy(&o.stderr)
            ));
            continue;
        }
        let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (160, 120), "{}", file.display());
        let bg = [0x30, 0x30, 0x38];
        // Our PNGs are RGBA8: 4 bytes a pixel.
        let px = (info.width * info.height) as usize;
        let covered = buf.chunks(4).take(px).filter(|p| p[..3] != bg).count();
        let fraction = covered as f64 / px as f64;
        if !(0.002..=0.9).contains(&fraction) {
            failures.push(format!(
                "render {}: implausible drawn area {fraction:.4}",
                file.display()
            ));
        }
    }
    if !written.is_empty() {
        match validator() {
            Some(script) => {
                for chunk in written.chunks(40) {
                    let o = common::run_validator(&script, chunk);
                    if !o.status.success() {
                        failures.push(format!(
                            "validator:\n{}{}",
                            String::from_utf8_lossy(&o.stdout),
                            String::from_utf8_lossy(&o.stderr)
                        ));
                    }
                    // Not a warning either: one summary per file, all clean.
                    let report = String::from_utf8_lossy(&o.stdout);
                    let summaries: Vec<&str> = report
                        .lines()
                        .filter(|l| l.starts_with("errors:"))
                        .collect();
                    if summaries.len() != chunk.len() {
                        failures.push(format!(
                            "validator: {} summaries for {} files:\n{report}",
                            summaries.len(),
                            chunk.len()
                        ));
                    }
                    for l in summaries {
                        if !l.starts_with("errors: 0 warnings: 0 ") {
                            failures.push(format!("validator: {l}"));
                        }
                    }
                }
            }
            None => idmodel_test_support::skipped(
                &format!("glTF validation of {} files", written.len()),
                "node or the glTF validator is missing",
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
