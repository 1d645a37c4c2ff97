//! What `convert` says: one line for a single file (what it wrote, its size, textures
//! embedded and missing) unless `--quiet`, and the batch summary (converted, skipped
//! with why, failed).

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use common::*;

#[test]
fn a_single_convert_prints_one_line() {
    let dir = scratch("single");
    // The MDL sample embeds its palette skins.
    let out = dir.join("m.glb");
    let o = idmodel(&[&"convert", &sample_file("mdl"), &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    let size = std::fs::metadata(&out).unwrap().len();
    let want_size = if size < 1000 {
        format!("{size} bytes")
    } else {
        format!("{} KB", (size + 500) / 1000)
    };
    let skins = info_json(&sample_file("mdl"))["skins"].as_u64().unwrap();
    assert!(skins > 0);
    assert_eq!(
        text.trim_end(),
        format!(
            "wrote {} ({want_size}, {skins} texture{} embedded, 0 missing)",
            out.display(),
            if skins == 1 { "" } else { "s" }
        )
    );
    // MD3 names its shaders' images: missing, not embedded.
    let out = dir.join("m3.gltf");
    let o = idmodel(&[&"convert", &sample_file("md3"), &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("wrote {} (", out.display())),
        "{text}"
    );
    assert!(text.contains(", 0 textures embedded, 2 missing)"), "{text}");
    // --quiet: nothing on stdout or stderr.
    let out = dir.join("q.obj");
    let o = idmodel(&[&"convert", &sample_file("md2"), &"-o", &out, &"--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(out.is_file());
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
}

#[test]
fn the_batch_summary_counts_converted_skipped_and_failed() {
    let dir = scratch("batch");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("a/b")).unwrap();
    std::fs::copy(sample_file("md2"), input.join("a/ogre.md2")).unwrap();
    std::fs::copy(sample_file("md5anim"), input.join("a/b/walk.md5anim")).unwrap();
    std::fs::copy(sample_file("md5anim"), input.join("run.MD5ANIM")).unwrap();
    std::fs::write(input.join("a/b/broken.mdl"), b"IDPO").unwrap();
    let out = dir.join("out");
    let o = idmodel(&[&"convert", &input, &"-o", &out]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("converted 1 of 2 models")
            && text.contains("skipped 2 (2 md5anim: need a mesh), failed 1"),
        "{text}"
    );
    let err = stderr(&o);
    assert!(
        err.contains("1 failed:") && err.contains("broken.mdl"),
        "{err}"
    );
    assert!(out.join("a/ogre.glb").is_file());
    // --quiet: no summary, the failures still on stderr.
    let out = dir.join("out2");
    let o = idmodel(&[&"convert", &input, &"-o", &out, &"-q"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("broken.mdl"));
    // Nothing skipped: `skipped 0`.
    std::fs::remove_file(input.join("a/b/walk.md5anim")).unwrap();
    std::fs::remove_file(input.join("run.MD5ANIM")).unwrap();
    std::fs::remove_file(input.join("a/b/broken.mdl")).unwrap();
    let out = dir.join("out3");
    let o = idmodel(&[&"convert", &input, &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("skipped 0, failed 0"), "{}", stdout(&o));
}
