//! Archives as inputs: `info ARCHIVE`, `convert ARCHIVE -o DIR` (players assembled),
//! `ARCHIVE:entry`, `check ARCHIVE`, `render ARCHIVE:entry`, and the file safety rules.
//!
//! The fixtures are written here: MD3 parts with the MD3 writer, packed with the `zip`
//! crate into a `.pk3`, and the sample MDL into a `.pak` with `idmodel_assets::pak::write`.
//! The corpus' `assets/openarena/kyonshi.pk3` is read in place when `IDMODEL_CORPUS` is set.

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// `dir/game.pk3`: a player `models/players/p` (with a `red` skin), a loose MD3
/// `models/mapobjects/box.md3`, a shader script and an image.
fn pk3(dir: &Path) -> PathBuf {
    let mut files = vec![
        (
            "models/players/p/lower.md3",
            part(b"tag_torso", [0.0, 0.0, 24.0]),
        ),
        (
            "models/players/p/upper.md3",
            part(b"tag_head", [0.0, 0.0, 16.0]),
        ),
        ("models/players/p/head.md3", part(b"tag_none", [0.0; 3])),
        ("models/players/p/head_2.md3", part(b"tag_none", [0.0; 3])),
        ("models/mapobjects/box.md3", part(b"tag_none", [0.0; 3])),
        (
            "scripts/p.shader",
            b"models/p/body { { map $whiteimage } }".to_vec(),
        ),
        ("models/p/body.tga", vec![0; 18]),
    ];
    for p in ["lower", "upper", "head"] {
        files.push((
            Box::leak(format!("models/players/p/{p}_red.skin").into_boxed_str()),
            b"body,models/p/red.tga\n".to_vec(),
        ));
    }
    let path = dir.join("game.pk3");
    let entries: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    std::fs::write(&path, zip_of(&entries)).unwrap();
    path
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (i32, String, String) {
    let o = idmodel(args);
    (code(&o), stdout(&o), stderr(&o))
}

fn entry(archive: &Path, e: &str) -> PathBuf {
    PathBuf::from(format!("{}:{e}", archive.display()))
}

#[test]
fn info_lists_the_models_of_an_archive() {
    let dir = scratch("info");
    let a = pk3(&dir);
    let (c, out, err) = run(&[&"info", &a]);
    assert_eq!(c, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{}: pk3 archive, 10 files", a.display()));
    assert!(out.contains("\n  models           5\n"), "{out}");
    assert!(out.contains("\n  player folders   1\n"), "{out}");
    assert!(out.contains("\n  side files       3\n"), "{out}");
    assert!(out.contains("\n  images           1\n"), "{out}");
    assert!(out.contains("\n  shader scripts   1\n"), "{out}");
    assert!(
        out.contains(&format!("\n  player  {}:/models/players/p\n", a.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "\n  model   {}:/models/mapobjects/box.md3",
            a.display()
        )),
        "{out}"
    );
    let (c, out, _) = run(&[&"info", &a, &"--json"]);
    assert_eq!(c, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "archive");
    assert_eq!(v["kind"], "pk3");
    assert_eq!(v["models"].as_array().unwrap().len(), 5);
    assert_eq!(v["players"][0], "models/players/p");
}

#[test]
fn info_of_one_entry_and_of_a_player_folder_inside() {
    let dir = scratch("info_entry");
    let a = pk3(&dir);
    let (c, out, err) = run(&[&"info", &entry(&a, "models/mapobjects/box.md3")]);
    assert_eq!(c, 0, "{err}");
    assert!(
        out.starts_with(&format!(
            "{}:/models/mapobjects/box.md3: Quake III MD3",
            a.display()
        )),
        "{out}"
    );
    let (c, out, err) = run(&[&"info", &entry(&a, "models/players/p")]);
    assert_eq!(c, 0, "{err}");
    assert!(out.contains("Quake III player 'p'"), "{out}");
    // The skins inside the archive are found.
    let (c, out, err) = run(&[&"info", &entry(&a, "models/players/p"), &"--json"]);
    assert_eq!(c, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["skin_names"], serde_json::json!(["red"]), "{out}");
    // An entry that is not there: one line naming it and the archive.
    let (c, _, err) = run(&[&"info", &entry(&a, "models/nothing.md3")]);
    assert_eq!(c, 1);
    assert_eq!(
        err,
        format!(
            "idmodel: {}:/models/nothing.md3: not in {}\n",
            a.display(),
            a.display()
        )
    );
}

#[test]
fn convert_an_archive_assembles_players_and_converts_the_rest() {
    let dir = scratch("convert");
    let a = pk3(&dir);
    let out = dir.join("out");
    let (c, stdout, err) = run(&[&"convert", &a, &"-o", &out]);
    assert_eq!(c, 0, "{err}");
    assert!(
        stdout.starts_with("converted 2 of 2 models from "),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped 1"),
        "head_2.md3 of the player folder: {stdout}"
    );
    let player = out.join("models/players/p.glb");
    let box_ = out.join("models/mapobjects/box.glb");
    assert!(player.is_file() && box_.is_file());
    let json = glb_json(&player);
    // lower, upper and head: three parts in one scene (and the tag-frames meshes of
    // lower's tag_torso and upper's tag_head, the parts with frames).
    let names: Vec<&str> = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "lower",
            "frames of tag_torso",
            "upper",
            "frames of tag_head",
            "head"
        ],
        "{json}"
    );
    // Nothing else was written: not beside the archive, not in the output folder.
    let mut beside: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    beside.sort();
    assert_eq!(beside, ["game.pk3", "out"]);
    assert_eq!(walk(&out).len(), 2);

    // Again: the outputs exist, so nothing is replaced without --force.
    let (c, _, err) = run(&[&"convert", &a, &"-o", &out]);
    assert_eq!(c, 2, "{err}");
    assert!(
        err.contains("nothing was converted: 2 output files refused"),
        "{err}"
    );
    let (c, _, err) = run(&[&"convert", &a, &"-o", &out, &"--force"]);
    assert_eq!(c, 0, "{err}");

    // The archive itself is never an output.
    let (c, _, err) = run(&[
        &"convert",
        &entry(&a, "models/mapobjects/box.md3"),
        &"-o",
        &a,
        &"--to",
        &"glb",
    ]);
    assert_ne!(c, 0);
    assert!(!err.is_empty());
    assert!(std::fs::read(&a).unwrap().starts_with(b"PK\x03\x04"));
}

#[test]
fn convert_one_entry_and_a_player_folder_inside() {
    let dir = scratch("convert_entry");
    let a = pk3(&dir);
    let one = dir.join("box.glb");
    let (c, out, err) = run(&[
        &"convert",
        &entry(&a, "models/mapobjects/box.md3"),
        &"-o",
        &one,
    ]);
    assert_eq!(c, 0, "{err}");
    assert!(
        out.starts_with(&format!("wrote {}", one.display())),
        "{out}"
    );
    assert!(std::fs::read(&one).unwrap().starts_with(b"glTF"));

    let p = dir.join("p.glb");
    let (c, out, err) = run(&[
        &"convert",
        &entry(&a, "models/players/p"),
        &"-o",
        &p,
        &"--skin",
        &"red",
    ]);
    assert_eq!(c, 0, "{err}");
    assert!(
        out.starts_with("assembled the Quake III player in "),
        "{out}"
    );
    let json = glb_json(&p);
    assert!(
        json.to_string().contains("models/p/red.tga"),
        "the red skin from the archive: {json}"
    );

    // A folder of the archive: every model under it.
    let sub = dir.join("sub");
    let (c, out, err) = run(&[&"convert", &entry(&a, "models/mapobjects"), &"-o", &sub]);
    assert_eq!(c, 0, "{err}");
    assert!(out.starts_with("converted 1 of 1 models"), "{out}");
    assert!(sub.join("box.glb").is_file());
}

#[test]
fn a_real_file_named_with_a_colon_wins() {
    let dir = scratch("colon");
    let a = pk3(&dir);
    let real = entry(&a, "models/mapobjects/box.md3");
    // The same name as a real file: now a plain MDL.
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::copy(sample_file("mdl"), &real).unwrap();
    let (c, out, err) = run(&[&"info", &real]);
    assert_eq!(c, 0, "{err}");
    assert!(out.contains("Quake MDL"), "{out}");
}

#[test]
fn check_an_archive_checks_every_model_inside() {
    let dir = scratch("check");
    let a = pk3(&dir);
    let (c, out, err) = run(&[&"check", &a]);
    assert_eq!(c, 0, "{out}{err}");
    assert_eq!(
        out.lines().last().unwrap(),
        "checked 5 files: 0 refused, 0 hazards, 0 warnings, 0 unreadable",
        "{out}"
    );
    // One entry.
    let (c, out, err) = run(&[&"check", &entry(&a, "models/mapobjects/box.md3")]);
    assert_eq!(c, 0, "{out}{err}");
    assert!(out.contains("box.md3"), "{out}");
    // A broken archive: one line naming it, exit 1.
    let bad = dir.join("bad.pk3");
    std::fs::write(&bad, b"PK\x03\x04 and nothing").unwrap();
    let (c, _, err) = run(&[&"check", &bad]);
    assert_eq!(c, 1);
    assert!(
        err.starts_with(&format!(
            "idmodel: {}: not a zip: no end of central directory record",
            bad.display()
        )),
        "{err}"
    );
}

#[test]
fn pak_archives_convert_and_render() {
    let dir = scratch("pak");
    let mdl = std::fs::read(sample_file("mdl")).unwrap();
    let pak = dir.join("pak0.pak");
    std::fs::write(
        &pak,
        idmodel_assets::pak::write(&[("progs/thing.mdl", &mdl), ("gfx/readme.txt", b"x")]).unwrap(),
    )
    .unwrap();
    let (c, out, err) = run(&[&"info", &pak]);
    assert_eq!(c, 0, "{err}");
    assert!(
        out.starts_with(&format!("{}: pak archive, 2 files", pak.display())),
        "{out}"
    );
    let out_dir = dir.join("out");
    let (c, _, err) = run(&[&"convert", &pak, &"-o", &out_dir]);
    assert_eq!(c, 0, "{err}");
    assert!(out_dir.join("progs/thing.glb").is_file());
    let png = dir.join("thing.png");
    let (c, _, err) = run(&[&"render", &entry(&pak, "progs/thing.mdl"), &"-o", &png]);
    assert_eq!(c, 0, "{err}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn game_is_accepted_by_every_model_command() {
    let dir = scratch("game");
    let a = pk3(&dir);
    let model = dir.join("m.md3");
    std::fs::write(&model, part(b"tag_none", [0.0; 3])).unwrap();
    for args in [vec!["info"], vec!["check"]] {
        let mut a2: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|s| s as _).collect();
        a2.push(&model);
        a2.push(&"--game");
        a2.push(&a);
        a2.push(&"--game");
        a2.push(&dir);
        let (c, _, err) = run(&a2);
        assert_eq!(c, 0, "{args:?}: {err}");
    }
    let (c, _, err) = run(&[&"convert", &model, &"-o", &dir.join("m.glb"), &"--game", &a]);
    assert_eq!(c, 0, "{err}");
    let (c, _, err) = run(&[&"render", &model, &"-o", &dir.join("m.png"), &"--game", &a]);
    assert_eq!(c, 0, "{err}");
}

#[test]
fn corpus_kyonshi_pk3_in_place() {
    let Some(pk3) = corpus_subdir(
        "corpus_kyonshi_pk3_in_place",
        "assets/openarena/kyonshi.pk3",
    ) else {
        return;
    };
    let dir = scratch("kyonshi");
    let (c, out, err) = run(&[&"info", &pk3]);
    assert_eq!(c, 0, "{err}");
    assert!(
        out.contains(&format!(
            "player  {}:/models/players/kyonshi",
            pk3.display()
        )),
        "{out}"
    );
    let out_dir = dir.join("out");
    let (c, stdout, err) = run(&[&"convert", &pk3, &"-o", &out_dir]);
    assert_eq!(c, 0, "{err}");
    assert!(stdout.starts_with("converted 1 of 1 models"), "{stdout}");
    assert!(out_dir.join("models/players/kyonshi.glb").is_file());
    assert_eq!(walk(&out_dir).len(), 1);
    let (c, _, err) = run(&[&"check", &pk3]);
    assert_eq!(c, 0, "{err}");
}

#[test]
fn game_archive_textures_a_player_folder_outside_it() {
    let Some(pk3) = corpus_subdir(
        "game_archive_textures_a_player_folder_outside_it",
        "assets/openarena/kyonshi.pk3",
    ) else {
        return;
    };
    // The player's models, skins and animation.cfg alone, no image, outside any game
    // folder: the textures are the archive's.
    let dir = scratch("game-textures");
    let player = dir.join("kyonshi");
    std::fs::create_dir_all(&player).unwrap();
    let src = pk3.parent().unwrap().join("baseoa/models/players/kyonshi");
    for f in std::fs::read_dir(&src).unwrap() {
        let p = f.unwrap().path();
        let ext = p
            .extension()
            .unwrap()
            .to_string_lossy()
            .to_ascii_lowercase();
        if ["md3", "skin", "cfg"].contains(&ext.as_str()) {
            std::fs::copy(&p, player.join(p.file_name().unwrap())).unwrap();
        }
    }
    let glb = dir.join("k.glb");
    let (c, bare, err) = run(&[&"convert", &player, &"-o", &glb]);
    assert_eq!(c, 0, "{err}");
    assert!(bare.contains(", 0 textures embedded"), "{bare}");
    let (c, out, err) = run(&[&"convert", &player, &"-o", &glb, &"--game", &pk3]);
    assert_eq!(c, 0, "{err}");
    let embedded: usize = out
        .split(", ")
        .find_map(|p| p.strip_suffix(" textures embedded"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(embedded >= 3, "{out}\n{err}");
    assert!(!err.contains("texture not found"), "{err}");
}
