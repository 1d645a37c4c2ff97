//! Every corpus model through `convert` (`.glb` and `.gltf`, validated by the Khronos
//! validator) and `render` (a PNG of the requested size with a plausible drawn area).
//!
//! Skipped with a notice when `IDMODEL_CORPUS` is unset. Every format is wired: any
//! failed conversion or render is a test failure.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::as_conversions,
    clippy::std_instead_of_core,
    clippy::std_instead_of_alloc,
    missing_docs
)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn models(corpus: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = ["mdl", "md2", "md3", "md5"]
        .iter()
        .map(|s| corpus.join(s))
        .collect();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let ext = p
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                ext.as_deref(),
                Some("mdl" | "md2" | "md3" | "md5mesh" | "md5camera")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `node` + the validator, or `None` (skip validation with a notice).
fn validator() -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gltf/tests/validate.mjs");
    let installed = std::env::var_os("IDMODEL_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../.validator/node_modules/gltf-validator")
        });
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (node && installed.exists()).then_some(script)
}

#[test]
fn corpus_models_convert_validate_and_render() {
    let Some(corpus) = std::env::var_os("IDMODEL_CORPUS").filter(|c| !c.is_empty()) else {
        eprintln!("notice: IDMODEL_CORPUS is not set; skipping corpus convert/render test");
        return;
    };
    let files = models(Path::new(&corpus));
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
        let run = |args: &[&dyn AsRef<std::ffi::OsStr>]| {
            Command::new(env!("CARGO_BIN_EXE_idmodel"))
                .args(args.iter().map(|a| a.as_ref()))
                .output()
                .unwrap()
        };
        let o = run(&[&"convert", file, &"-o", &glb]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if !o.status.success() {
            failures.push(format!("convert {}: {err}", file.display()));
            continue;
        }
        written.push(glb);
        let o = run(&[&"convert", file, &"-o", &gltf]);
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
        let o = run(&[&"render", file, &"-o", &png, &"--size", &"160x120"]);
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
                    let o = Command::new("node")
                        .arg(&script)
                        .args(chunk)
                        .output()
                        .unwrap();
                    if !o.status.success() {
                        failures.push(format!(
                            "validator:\n{}{}",
                            String::from_utf8_lossy(&o.stdout),
                            String::from_utf8_lossy(&o.stderr)
                        ));
                    }
                }
            }
            None => eprintln!(
                "notice: node or the glTF validator is missing; {} files not validated",
                written.len()
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
