//! Quake III player folders everywhere: `info`, `check`, `render`, batches, `--clip`,
//! `--skin`, the standing idle pose, and `info` of the side files.
//!
//! The fixture is built with the MD3 writer; the corpus player comes from
//! `$IDMODEL_CORPUS/md3/oa_kyonshi` (skipped with a notice when unset).

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// 25 entries: BOTH_* at frame 0, TORSO_* at 1 but TORSO_STAND at 2, LEGS_* written at
/// 101 (moved back to 1) but LEGS_IDLE at 102 (frame 2).
fn animation_cfg() -> String {
    // BOTH_*; TORSO_*, TORSO_STAND the sixth; LEGS_*, LEGS_IDLE the tenth.
    const FIRST: [u32; 25] = [
        0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 1, 101, 101, 101, 101, 101, 101, 101, 101, 101, 102,
        101, 101,
    ];
    let entries = FIRST.iter().map(|first| format!("{first} 1 0 10\n"));
    std::iter::once("sex f\n".to_owned())
        .chain(entries)
        .collect()
}

/// A player folder `dir/name` with animation.cfg and the `default` and `red` skins.
fn player(dir: &Path, name: &str, cfg: bool) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("lower.md3"), part(b"tag_torso", [0.0, 0.0, 24.0])).unwrap();
    std::fs::write(p.join("upper.md3"), part(b"tag_head", [0.0, 0.0, 16.0])).unwrap();
    std::fs::write(p.join("head.md3"), part(b"tag_none", [0.0; 3])).unwrap();
    if cfg {
        std::fs::write(p.join("animation.cfg"), animation_cfg()).unwrap();
    }
    for part in ["lower", "upper", "head"] {
        std::fs::write(
            p.join(format!("{part}_default.skin")),
            format!("body,models/{part}/body.tga\narm,models/{part}/arm.tga\n"),
        )
        .unwrap();
        std::fs::write(
            p.join(format!("{part}_red.skin")),
            format!("body,models/{part}/red.tga\n"),
        )
        .unwrap();
    }
    p
}

/// A scratch folder for `test` and the player `kid` written in it (with animation.cfg).
fn kid(test: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let p = player(&dir, "kid", true);
    (dir, p)
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (i32, String, String) {
    let o = idmodel(args);
    (code(&o), stdout(&o), stderr(&o))
}

#[test]
fn info_describes_a_player_folder() {
    let (_, p) = kid("info");
    let (rc, out, err) = run(&[&"info", &p]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("Quake III player 'kid'"), "{out}");
    for row in [
        "lower.md3",
        "upper.md3",
        "head.md3",
        "LEGS_IDLE",
        "TORSO_STAND",
    ] {
        assert!(out.contains(row), "{row}: {out}");
    }
    assert!(
        out.contains("lower frame 2, upper frame 2, head frame 0"),
        "{out}"
    );
    assert!(out.contains("default, red"), "{out}");
    let j = info_json(&p);
    assert_eq!(j["format"], "md3-player");
    assert_eq!(j["lower"]["format"], "md3");
    assert_eq!(j["upper"]["frames"], 3);
    let clips = strings(&j["clips"]);
    assert!(clips.contains(&"LEGS_WALK".to_owned()), "{clips:?}");
    assert!(clips.contains(&"TORSO_ATTACK".to_owned()), "{clips:?}");
    assert_eq!(strings(&j["skin_names"]), ["default", "red"]);
    // One md3 of the folder: its clips, skins and shaders too.
    let j = info_json(&p.join("lower.md3"));
    assert!(strings(&j["clips"]).contains(&"LEGS_IDLE".to_owned()));
    assert!(!strings(&j["clips"]).contains(&"TORSO_STAND".to_owned()));
    assert_eq!(strings(&j["skin_names"]), ["default", "red"]);
    assert_eq!(strings(&j["shaders"]).len(), 2);
}

#[test]
fn check_takes_a_player_folder() {
    let (_, p) = kid("check");
    let (rc, out, err) = run(&[&"check", &p]);
    assert_eq!(rc, 0, "{out}{err}");
    // The three parts are checked (a folder prints only what has findings, then the
    // summary).
    assert!(
        format!("{out}{err}").contains("checked 3 files"),
        "{out}{err}"
    );
    // A skin naming a surface the model lacks is a finding, named with its part.
    std::fs::write(p.join("head_default.skin"), "nosuch,models/x.tga\n").unwrap();
    let (rc, out, _) = run(&[&"check", &p, &"--engine", &"ioq3", &"--fail-on", &"warning"]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("head.md3: ioq3: head_default.skin:"), "{out}");
    // A folder checked for an engine that does not load MD3: every part is skipped and
    // said so (a single file named with such an engine is a usage error: check_gate.rs).
    let (rc, out, err) = run(&[&"check", &p, &"--engine", &"doom3"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        format!("{out}{err}").contains("3 files skipped"),
        "{out}{err}"
    );
    let (rc, _, err) = run(&[&"check", &p.join("head.md3"), &"--engine", &"doom3"]);
    assert_eq!(rc, 2, "{err}");
}

#[test]
fn render_draws_the_assembled_player_standing_idle() {
    let (dir, p) = kid("render");
    let png = |name: &str, extra: &[&str]| {
        let out = dir.join(format!("{name}.png"));
        let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"render", &p, &"-o", &out, &"--size", &"64x64"];
        a.extend(extra.iter().map(|e| e as &dyn AsRef<std::ffi::OsStr>));
        let (rc, _, err) = run(&a);
        assert_eq!(rc, 0, "{name}: {err}");
        std::fs::read(&out).unwrap()
    };
    let idle = png("idle", &[]);
    assert_eq!(idle, png("frame2", &["--frame", "2"]));
    assert_ne!(idle, png("frame0", &["--frame", "0"]));
    // BOTH_DEATH1 starts at frame 0 on both parts.
    assert_eq!(
        png("death", &["--clip", "BOTH_DEATH1"]),
        png("f0", &["--frame", "0"])
    );
    let _ = png("red", &["--skin", "red"]);
    let out = dir.join("x.png");
    let (rc, _, err) = run(&[&"render", &p, &"-o", &out, &"--clip", &"NOPE"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("no clip named 'NOPE'") && err.contains("LEGS_IDLE"),
        "{err}"
    );
    let (rc, _, err) = run(&[&"render", &p, &"-o", &out, &"--skin", &"green"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("lower_green.skin") && err.contains("default, red"),
        "{err}"
    );
    assert!(!out.exists());
    // Without animation.cfg: frame 0.
    let plain = player(&dir, "plain", false);
    let out0 = dir.join("plain.png");
    let out1 = dir.join("plain0.png");
    for (o, extra) in [(&out0, &[][..]), (&out1, &["--frame", "0"])] {
        render_coverage(&plain, o, extra);
    }
    assert_eq!(std::fs::read(&out0).unwrap(), std::fs::read(&out1).unwrap());
}

#[test]
fn render_animates_the_assembled_player() {
    let (dir, p) = kid("animate");
    let frames = |name: &str, extra: &[&str]| {
        let out = dir.join(format!("{name}.png"));
        let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
            &"render",
            &p,
            &"-o",
            &out,
            &"--size",
            &"48x48",
            &"--animate",
        ];
        a.extend(extra.iter().map(|e| e as &dyn AsRef<std::ffi::OsStr>));
        let (rc, _, err) = run(&a);
        assert_eq!(rc, 0, "{name}: {err}");
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
        let reader = decoder.read_info().unwrap();
        reader.info().animation_control.expect("an APNG").num_frames
    };
    // Every clip's frames, one after another: the fixture's 25 clips of one frame each
    // (the one-frame clips of a part whose model has frames still play).
    let all = frames("all", &[]);
    assert!(all >= 2, "{all} frames");
    assert_eq!(frames("gesture", &["--clip", "TORSO_GESTURE"]), 1);
    // --anim is an md5 option: a usage error for a player.
    let out = dir.join("bad.png");
    let (rc, _, err) = run(&[&"render", &p, &"-o", &out, &"--animate", &"--anim", &p]);
    assert_ne!(rc, 0);
    assert!(err.contains("--anim"), "{err}");
    assert!(!out.exists());
}

#[test]
fn skins_and_clips_choose_what_convert_writes() {
    let (dir, p) = kid("convert");
    let materials = |j: &serde_json::Value| -> Vec<String> {
        j["materials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let out = dir.join("red.glb");
    convert(&p, &out, &["--skin", "red"]);
    let mats = materials(&glb_json(&out));
    assert!(
        mats.contains(&"models/lower/red.tga".to_owned()),
        "{mats:?}"
    );
    assert!(!mats.iter().any(|m| m.ends_with("body.tga")), "{mats:?}");
    let out = dir.join("walk.glb");
    convert(&p, &out, &["--clip", "LEGS_WALK"]);
    let j = glb_json(&out);
    let clips = name_list(&j["animations"]);
    assert_eq!(clips, ["LEGS_WALK"]);
    // One md3 with --skin: <part>_NAME.skin beside it.
    let out = dir.join("lower_red.glb");
    convert(&p.join("lower.md3"), &out, &["--skin", "red"]);
    assert_eq!(materials(&glb_json(&out)), ["models/lower/red.tga"]);
    // An .obj of a clip is its first frame: LEGS_IDLE is frame 2 of lower.
    let a = convert_to_text(&p, &dir.join("idle.obj"), None, true);
    let b = convert_to_text(&p, &dir.join("two.obj"), Some(2), true);
    assert_eq!(a.replace("idle", "two"), b);
}

#[test]
fn a_batch_converts_each_player_folder_once() {
    let dir = scratch("batch");
    let input = dir.join("in");
    let p = player(&input.join("players"), "kid", true);
    std::fs::copy(p.join("lower.md3"), p.join("lower_1.md3")).unwrap();
    std::fs::copy(sample_file("md2"), input.join("ogre.md2")).unwrap();
    let out = dir.join("out");
    let (rc, stdout, err) = run(&[&"convert", &input, &"-o", &out]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.join("players/kid.glb").is_file());
    assert!(out.join("ogre.glb").is_file());
    assert!(!out.join("players/kid/lower.glb").exists());
    assert!(!out.join("players/kid").exists());
    assert!(stdout.contains("converted 2 of 2 models"), "{stdout}");
    assert!(
        stdout.contains("skipped 1 (1 other md3 in player folders"),
        "{stdout}"
    );
    check_assembled(&glb_json(&out.join("players/kid.glb")));
}

/// Upper hangs under tag_torso, head under tag_head.
fn check_assembled(j: &serde_json::Value) {
    let nodes = j["nodes"].as_array().unwrap();
    let find = |n: &str| nodes.iter().position(|x| x["name"] == n).unwrap();
    let children = |i: usize| -> Vec<u64> {
        nodes[i]["children"]
            .as_array()
            .map(|c| c.iter().map(|v| v.as_u64().unwrap()).collect())
            .unwrap_or_default()
    };
    assert!(children(find("tag_torso")).contains(&(find("upper") as u64)));
    assert!(children(find("tag_head")).contains(&(find("head") as u64)));
}

#[test]
fn info_describes_the_side_files() {
    let (dir, p) = kid("side");
    let (rc, out, err) = run(&[&"info", &p.join("lower_red.skin")]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("Quake III skin") && out.contains("models/lower/red.tga"),
        "{out}"
    );
    let j = info_json(&p.join("lower_default.skin"));
    assert_eq!(j["format"], "skin");
    assert_eq!(j["entries"], 2);
    let (rc, out, err) = run(&[&"info", &p.join("animation.cfg")]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("sex") && out.contains("female"), "{out}");
    assert!(
        out.contains("LEGS_IDLE") && out.contains("frames 2-2 (1)"),
        "{out}"
    );
    let j = info_json(&p.join("animation.cfg"));
    assert_eq!(j["entries"], 25);
    // The other side files are read now (these asserted "not read yet" before): a file
    // of only a comment holds nothing, and says so.
    for (name, what, count) in [
        ("base.shader", "Quake III shader script", "shaders"),
        ("doom.mtr", "Doom 3 material file", "materials"),
        ("walk.anm", "UFO:AI animation table", "clips"),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, "// text\n").unwrap();
        let (rc, out, err) = run(&[&"info", &f]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.lines().next().unwrap().contains(what), "{out}");
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [count, "0"]),
            "{out}"
        );
        let j = info_json(&f);
        assert_eq!(j["read"], true);
        assert_eq!(j["entries"], 0);
    }
    // An animation.cfg the engine cannot use says why.
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("animation.cfg"), "0 1 0 10").unwrap();
    let (rc, out, err) = run(&[&"info", &bad.join("animation.cfg")]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("1 entries; not usable as Quake III's"),
        "{out}"
    );
}

#[test]
fn the_corpus_player_everywhere() {
    let Some(dir) = corpus_subdir("the_corpus_player_everywhere", "md3/oa_kyonshi") else {
        return;
    };
    let j = info_json(&dir);
    assert_eq!(strings(&j["clips"]).len(), 27);
    assert_eq!(strings(&j["skin_names"]), ["beh", "blue", "default", "red"]);
    let (rc, out, _) = run(&[&"info", &dir]);
    assert_eq!(rc, 0);
    assert!(out.contains("lower frame 180, upper frame 165"), "{out}");
    let scratch = scratch("corpus");
    let png = scratch.join("p.png");
    let (rc, _, err) = run(&[
        &"render", &dir, &"-o", &png, &"--size", &"96x96", &"--skin", &"red",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(coverage(&png, (96, 96)) > 0.05);
    let (rc, out, _) = run(&[&"check", &dir, &"--fail-on", &"warning"]);
    // The head's skin names a surface the head lacks: a harmless warning.
    assert_eq!(rc, 1, "{out}");
    assert!(
        out.contains("head.md3: quake3, ioq3: head_default.skin: warning:"),
        "{out}"
    );
}
