//! Bounded memory of `convert`: the crafted MDL and MD2 files (2,000 and 16,000 frames),
//! written here with the project's writers, convert with an output linear in the frames
//! and a peak resident size linear in the output (over the command's own baseline), or
//! the command exits 1 with one line naming the file and the limit: never SIGABRT
//! (`memory allocation of … failed`).
//!
//! The peak is checked against 16 × output + 16 MiB, not yet the target of 2 × output +
//! 16 MiB: for these few-vertex, many-frame files the exporter's JSON tree (two
//! accessors and two buffer views per morph target, as `serde_json::Value`s) is about
//! ten times the file it becomes. Streaming the JSON, or one buffer view per attribute
//! for all targets, is what reaching 2× needs.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use common::{code, convert, idmodel, one_error_line, scratch_dir, stderr};
use idmodel::{md2, mdl};

#[path = "../../scene/tests/crafted/mod.rs"]
mod crafted;

use crafted::{CASES, crafted, md2_of};

/// Peak resident size in bytes of `idmodel convert model -o out`, by `/usr/bin/time`
/// (`None` where it is missing), and whether it exited 0.
fn peak_rss(model: &Path, out: &Path) -> Option<(u64, bool)> {
    if !Path::new("/usr/bin/time").exists() {
        idmodel_test_support::skipped("peak memory", "/usr/bin/time is missing");
        return None;
    }
    let o = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(env!("CARGO_BIN_EXE_idmodel"))
        .arg("convert")
        .arg(model)
        .arg("-o")
        .arg(out)
        .arg("--force")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let kib: u64 = err.lines().last()?.trim().parse().ok()?;
    Some((kib * 1024, o.status.success()))
}

#[test]
fn crafted_many_frame_files_convert_linearly_or_refuse_with_one_line() {
    let dir = scratch_dir("bounds", "crafted");
    // The command's own resident size on a one-frame model: the binary, the runtime.
    let one = dir.join("one.md2");
    std::fs::write(&one, md2_of(1)).unwrap();
    let baseline = peak_rss(&one, &dir.join("one.glb"));
    for (ext, frames) in CASES {
        let bytes = crafted(ext, frames);
        let model = dir.join(format!("f{frames}.{ext}"));
        let out = dir.join(format!("f{frames}_{ext}.glb"));
        std::fs::write(&model, &bytes).unwrap();

        let o = idmodel(&[&"convert", &model, &"-o", &out]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(size < 1000 * frames as u64, "{ext} {frames}: {size} bytes");
        if let (Some((base, true)), Some((peak, ok))) = (baseline, peak_rss(&model, &out)) {
            let bound = base + 16 * size + (16 << 20);
            eprintln!(
                "{ext} of {frames} frames: {size}-byte GLB, peak {peak} bytes resident (baseline {base}, bound {bound})"
            );
            assert!(ok);
            assert!(peak <= bound, "{ext} {frames}: peak {peak} > {bound}");
        }

        // Over the limit: exit 1, one line naming the file and the limit.
        let forced = |extra: &[&str]| {
            let mut args: Vec<&dyn AsRef<OsStr>> =
                vec![&"convert", &model, &"-o", &out, &"--force"];
            args.extend(extra.iter().map(|a| a as &dyn AsRef<OsStr>));
            idmodel(&args)
        };
        let o = forced(&["--max-output", "64K"]);
        let err = one_error_line(&o);
        assert!(
            err.contains(&format!("f{frames}.{ext}: the animated output would need ")),
            "{err}"
        );
        assert!(
            err.contains("over the 65.5 KB limit (--max-output raises it"),
            "{err}"
        );

        // The plain dense weights (frames² floats) are refused over the limit too,
        // instead of allocating them.
        let o = forced(&["--dense-weights", "--max-output", "8M"]);
        if frames == 16_000 {
            let err = one_error_line(&o);
            assert!(
                err.contains("the dense morph weights of animation 0"),
                "{err}"
            );
            assert!(err.contains("over the 8 MiB limit"), "{err}");
        } else {
            // 2,000 frames: 16 MB of dense weights, over 8 MiB as well.
            assert_eq!(code(&o), 1, "{}", stderr(&o));
        }
    }
}

#[test]
fn dense_weights_write_the_plain_form_within_the_limit() {
    let dir = scratch_dir("bounds", "dense");
    let model = dir.join("small.md2");
    std::fs::write(&model, md2_of(40)).unwrap();
    let sparse = dir.join("sparse.glb");
    let dense = dir.join("dense.glb");
    convert(&model, &sparse, &[]);
    convert(&model, &dense, &["--dense-weights"]);
    let (s, _) = common::glb(&sparse);
    let (d, _) = common::glb(&dense);
    let output = |j: &serde_json::Value| {
        let a = &j["animations"][0]["samplers"][0]["output"];
        j["accessors"][a.as_u64().unwrap() as usize].clone()
    };
    let (so, dn) = (output(&s), output(&d));
    assert_eq!(so["count"], 40 * 39);
    assert_eq!(dn["count"], 40 * 39);
    assert_eq!(so["sparse"]["count"], 39, "{so}");
    assert!(so.get("bufferView").is_none(), "{so}");
    assert!(
        dn.get("sparse").is_none() && dn.get("bufferView").is_some(),
        "{dn}"
    );
    common::validate(&[sparse, dense]);
}
