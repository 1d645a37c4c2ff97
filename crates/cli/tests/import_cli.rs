//! `idmodel convert model.glb|.gltf -o model.md3`: corpus MD3 → GLB → MD3 byte-identical
//! through the command, `--keep-axes` both ways, `--engine` limits checked by `idmodel
//! check`, the formats not supported yet refused as usage errors, and the file safety of
//! `output.rs` (an input is never written over).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::{code, corpus_files, idmodel, sample_file, scratch_dir, stderr};

#[test]
fn md3_through_glb_and_gltf_is_byte_identical() {
    let dir = scratch_dir("idmodel-import-cli", "md3_round_trip");
    let mut files = vec![sample_file("md3")];
    if let Some(more) = corpus_files("md3_round_trip", "md3", &["md3"]) {
        files.extend(more.into_iter().take(8));
    }
    for (i, f) in files.iter().enumerate() {
        for (ext, keep) in [("glb", false), ("gltf", true)] {
            let mid = dir.join(format!("{i}.{ext}"));
            let back = dir.join(format!("{i}_{ext}.md3"));
            let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
                vec![&"convert", f, &"-o", &mid, &"--force"];
            if keep {
                args.push(&"--keep-axes");
            }
            let o = idmodel(&args);
            assert_eq!(code(&o), 0, "{}: {}", f.display(), stderr(&o));
            let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
                vec![&"convert", &mid, &"-o", &back, &"--force"];
            if keep {
                args.push(&"--keep-axes");
            }
            let o = idmodel(&args);
            assert_eq!(code(&o), 0, "{}: {}", mid.display(), stderr(&o));
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
    let o = idmodel(&[&"convert", &sample_file("md3"), &"-o", &glb, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for engine in ["quake3", "ioq3"] {
        let out = dir.join(format!("{engine}.md3"));
        let o = idmodel(&[
            &"convert",
            &glb,
            &"-o",
            &out,
            &"--engine",
            &engine,
            &"--force",
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let o = idmodel(&[&"check", &"--engine", &engine, &out]);
        assert_eq!(code(&o), 0, "{engine}: {}", stderr(&o));
    }
    // The other Quake formats: written within the named engine's limits, and checked so.
    for (ext, engine) in [
        ("md2", "quake2"),
        ("mdl", "quakespasm"),
        ("mdl", "winquake"),
    ] {
        let out = dir.join(format!("{engine}.{ext}"));
        let o = idmodel(&[
            &"convert",
            &glb,
            &"-o",
            &out,
            &"--engine",
            &engine,
            &"--force",
        ]);
        assert_eq!(code(&o), 0, "{ext}: {}", stderr(&o));
        let o = idmodel(&[&"check", &"--engine", &engine, &out]);
        assert_eq!(code(&o), 0, "{ext} {engine}: {}", stderr(&o));
    }
    // An engine that does not load the target format is a usage error naming the ones that do.
    let o = idmodel(&[
        &"convert",
        &glb,
        &"-o",
        &dir.join("y.md2"),
        &"--engine",
        &"quake3",
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("does not load MD2 (quake2)"),
        "{}",
        stderr(&o)
    );
    let o = idmodel(&[
        &"convert",
        &glb,
        &"-o",
        &dir.join("x.md3"),
        &"--engine",
        &"quake2",
    ]);
    assert_eq!(code(&o), 2);
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
