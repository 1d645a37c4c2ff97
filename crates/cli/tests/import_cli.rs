//! `idmodel convert model.glb|.gltf -o model.md3`: corpus MD3 → GLB → MD3 byte-identical
//! through the command, `--keep-axes` both ways, `--engine` limits checked by `idmodel
//! check`, the formats not supported yet refused as usage errors, and the file safety of
//! `output.rs` (an input is never written over).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::{code, convert, idmodel, sample_file, scratch_dir, stderr};

#[test]
fn md3_through_glb_and_gltf_is_byte_identical() {
    let dir = scratch_dir("idmodel-import-cli", "md3_round_trip");
    let files = common::sample_and_corpus("md3_round_trip", "md3", 8);
    for (i, f) in files.iter().enumerate() {
        for (ext, keep) in [("glb", false), ("gltf", true)] {
            let mid = dir.join(format!("{i}.{ext}"));
            let back = dir.join(format!("{i}_{ext}.md3"));
            let extra: &[&str] = if keep {
                &["--force", "--keep-axes"]
            } else {
                &["--force"]
            };
            convert(f, &mid, extra);
            convert(&mid, &back, extra);
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(f).unwrap(),
                "{} via .{ext}",
                f.display()
            );
        }
    }
}

#[test]
fn engine_limits_pass_check_for_every_target_format() {
    let dir = scratch_dir("idmodel-import-cli", "engine");
    let glb = dir.join("m.glb");
    convert(&sample_file("md3"), &glb, &["--force"]);
    // MD3 for both of its engines, and the other Quake formats: written within the named
    // engine's limits, and checked so.
    for (ext, engine) in [
        ("md3", "quake3"),
        ("md3", "ioq3"),
        ("md2", "quake2"),
        ("mdl", "quakespasm"),
        ("mdl", "winquake"),
    ] {
        let out = dir.join(format!("{engine}.{ext}"));
        convert(&glb, &out, &["--engine", engine, "--force"]);
        let o = idmodel(&[&"check", &"--engine", &engine, &out]);
        assert_eq!(code(&o), 0, "{ext} {engine}: {}", stderr(&o));
    }
    // An engine that does not load the target format is a usage error naming the ones that do.
    for (out, engine, says) in [
        ("y.md2", "quake3", "does not load MD2 (quake2)"),
        ("x.md3", "quake2", ""),
    ] {
        let o = idmodel(&[
            &"convert",
            &glb,
            &"-o",
            &dir.join(out),
            &"--engine",
            &engine,
        ]);
        assert_eq!(code(&o), 2, "{out} {engine}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    // Never over the input.
    let o = idmodel(&[&"convert", &glb, &"-o", &glb, &"--to", &"md3", &"--force"]);
    assert_ne!(code(&o), 0);
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
    // A hostile GLB is one error line, exit 1.
    let bad = dir.join("bad.glb");
    std::fs::write(&bad, b"glTF\x02\0\0\0\xff\xff\xff\x7f").unwrap();
    let o = idmodel(&[&"convert", &bad, &"-o", &dir.join("bad.md3"), &"--force"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}
