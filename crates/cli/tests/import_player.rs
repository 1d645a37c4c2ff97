//! `idmodel convert player.glb -o folder/` (or `--to player`): every corpus player folder →
//! GLB → folder is byte-identical through the command, a script-made player splits back
//! with its LODs, `--lods`/`--lod1`/`--lod2` for single MD3s, and every written folder
//! passes `idmodel check --engine quake3|ioq3` with no refusal or hazard.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use common::{code, corpus_dir, idmodel, sample_file, scratch_dir, stderr, stdout};
use idmodel::md3::{Md3, Model, TagInfo, Vertex, write};

use idmodel_test_support::PLAYER_FILES as FILES;

/// Folders of the corpus holding lower.md3, upper.md3 and head.md3.
fn corpus_players() -> Vec<PathBuf> {
    corpus_dir("import_player")
        .map(|dir| idmodel_test_support::player_folders(&dir))
        .unwrap_or_default()
}

/// `idmodel check --engine E DIR` for both Quake III engines: exit 0, no refusal, no hazard.
fn passes_check(dir: &Path) {
    for engine in ["quake3", "ioq3"] {
        let o = idmodel(&[&"check", &"--engine", &engine, &dir]);
        assert_eq!(
            code(&o),
            0,
            "{} {engine}: {}{}",
            dir.display(),
            stdout(&o),
            stderr(&o)
        );
        assert!(
            stdout(&o).contains("0 refused, 0 hazards"),
            "{engine}: {}",
            stdout(&o)
        );
    }
}

/// The findings `idmodel check --engine E` prints for `dir`'s lower, upper and head
/// (not its LODs), with the folder's path cut.
fn findings(dir: &Path, engine: &str) -> Vec<String> {
    let o = idmodel(&[&"check", &"--engine", &engine, &dir]);
    let prefix = format!("{}/", dir.display());
    let mut lines: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.replace(&prefix, ""))
        .filter(|l| {
            ["lower.md3:", "upper.md3:", "head.md3:"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect();
    lines.sort();
    lines
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let o = idmodel(args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn corpus_players_come_back_byte_for_byte_and_pass_check() {
    let dir = scratch_dir("idmodel-import-player", "corpus");
    for (i, player) in corpus_players().iter().enumerate() {
        let glb = dir.join(format!("{i}.glb"));
        run(&[&"convert", player, &"-o", &glb, &"-q"]);
        let out = dir.join(format!("{i}"));
        let slash = format!("{}/", out.display());
        let said = run(&[&"convert", &glb, &"-o", &slash]);
        for f in FILES {
            assert!(said.contains(f), "{said}");
            let original = player.join(f);
            if original.is_file() {
                assert!(
                    std::fs::read(out.join(f)).unwrap() == std::fs::read(&original).unwrap(),
                    "{}: {f} differs",
                    player.display()
                );
            }
        }
        // A folder with no refusal or hazard comes back so; trem_human_base's Tremulous
        // animation.cfg has hazards under Quake III rules, and comes back with the same.
        for engine in ["quake3", "ioq3"] {
            assert_eq!(findings(&out, engine), findings(player, engine), "{engine}");
        }
        let o = idmodel(&[&"check", &"--engine", &"ioq3", player]);
        if code(&o) == 0 {
            passes_check(&out);
        }
        // Nothing the folder held is lost: its other skins come back as they were, and
        // its LODs are made again (the GLB holds no LOD geometry).
        for entry in std::fs::read_dir(player).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".skin") {
                let back = std::fs::read(out.join(&name));
                assert!(
                    back.is_ok_and(|b| b == std::fs::read(player.join(&name)).unwrap()),
                    "{}: {name} lost or changed",
                    player.display()
                );
            } else if name.ends_with("_1.md3") || name.ends_with("_2.md3") {
                assert!(
                    out.join(&name).is_file(),
                    "{}: {name} lost",
                    player.display()
                );
                assert!(said.contains("made again from the parts") || !said.is_empty());
            }
        }
    }
}

/// A part: the example model with its tag renamed and moved, plus a 12 × 12 grid surface
/// (288 triangles) to simplify.
fn part(tag: &[u8], z: f32) -> Vec<u8> {
    let mut m = Model::example();
    for f in &mut m.tags {
        f[0] = TagInfo {
            name: tag.to_vec(),
            origin: [0.0, 0.0, z],
            axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        };
    }
    let n = 13u32;
    let mut grid = m.surfaces[0].clone();
    grid.name = b"grid".to_vec();
    (grid.st, grid.triangles) = idmodel_test_support::grid(12);
    for (f, frame) in grid.frames.iter_mut().enumerate() {
        *frame = (0..n * n)
            .map(|i| Vertex {
                xyz: [
                    (i % n) as i16 * 64,
                    (i / n) as i16 * 64,
                    (f as i16 + 20) * 64,
                ],
                normal: 0,
            })
            .collect();
    }
    m.surfaces.push(grid);
    write(&m).unwrap()
}

/// A player folder written by this test: three parts, a 25-entry animation.cfg, skins.
fn script_player(dir: &Path) -> PathBuf {
    let p = dir.join("script");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("lower.md3"), part(b"tag_torso", 24.0)).unwrap();
    std::fs::write(p.join("upper.md3"), part(b"tag_head", 16.0)).unwrap();
    std::fs::write(p.join("head.md3"), part(b"tag_x", 0.0)).unwrap();
    let mut cfg = String::from("sex f\nheadoffset 1 2 3\n");
    for i in 0..25 {
        let first = if (13..25).contains(&i) { 1 + 2 } else { 1 };
        cfg += &format!("{first} 2 0 10 // entry {i}\n");
    }
    std::fs::write(p.join("animation.cfg"), cfg).unwrap();
    for part in ["lower", "upper", "head"] {
        let tag = match part {
            "lower" => "tag_torso,\n",
            "upper" => "tag_head,\n",
            _ => "",
        };
        let skin = format!(
            "body,models/players/script/{part}\narm,models/players/script/arm\ngrid,models/players/script/grid\n{tag}"
        );
        std::fs::write(p.join(format!("{part}_default.skin")), skin).unwrap();
    }
    p
}

fn triangles(file: &Path) -> usize {
    let bytes = std::fs::read(file).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    md3.surfaces().map(|s| s.triangles().len()).sum()
}

fn frames(file: &Path) -> usize {
    let bytes = std::fs::read(file).unwrap();
    Md3::parse(&bytes).unwrap().num_frames()
}

#[test]
fn a_script_made_player_splits_back_with_lods_per_part() {
    let dir = scratch_dir("idmodel-import-player", "script");
    let player = script_player(&dir);
    let glb = dir.join("script.glb");
    run(&[&"convert", &player, &"-o", &glb, &"-q"]);
    let out = dir.join("out");
    run(&[
        &"convert", &glb, &"-o", &out, &"--to", &"player", &"--lods", &"2",
    ]);
    for f in FILES {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(player.join(f)).unwrap(),
            "{f}"
        );
    }
    for part in ["lower", "upper", "head"] {
        let lod0 = out.join(format!("{part}.md3"));
        let lod1 = out.join(format!("{part}_1.md3"));
        let lod2 = out.join(format!("{part}_2.md3"));
        assert!(triangles(&lod1) < triangles(&lod0), "{part}_1");
        assert!(triangles(&lod2) < triangles(&lod1), "{part}_2");
        assert_eq!(frames(&lod1), frames(&lod0));
        assert_eq!(frames(&lod2), frames(&lod0));
    }
    passes_check(&out);
    // A second run is refused (the files exist), and replaces them with --force.
    let o = idmodel(&[&"convert", &glb, &"-o", &out, &"--to", &"player"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    run(&[
        &"convert", &glb, &"-o", &out, &"--to", &"player", &"--force", &"-q",
    ]);
    // --skin names the skin files written.
    let red = dir.join("red");
    run(&[
        &"convert", &glb, &"-o", &red, &"--to", &"player", &"--skin", &"red", &"-q",
    ]);
    assert!(red.join("upper_red.skin").is_file());
    assert!(!red.join("upper_default.skin").exists());
}

#[test]
fn lods_of_a_single_md3_are_generated_or_given() {
    let dir = scratch_dir("idmodel-import-player", "single");
    let dense = dir.join("dense.md3");
    std::fs::write(&dense, part(b"tag_weapon", 0.0)).unwrap();
    let glb = dir.join("dense.glb");
    run(&[&"convert", &dense, &"-o", &glb, &"-q"]);
    let other = dir.join("other.glb");
    run(&[&"convert", &sample_file("md3"), &"-o", &other, &"-q"]);
    let out = dir.join("m.md3");
    let said = run(&[
        &"convert", &glb, &"-o", &out, &"--lods", &"1", &"--lod2", &other,
    ]);
    assert!(
        said.contains("m_1.md3") && said.contains("m_2.md3"),
        "{said}"
    );
    // LOD 0 is the model itself, LOD 1 simplified, LOD 2 the given file as it converts.
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&dense).unwrap());
    assert!(triangles(&dir.join("m_1.md3")) < triangles(&out));
    let alone = dir.join("alone.md3");
    run(&[&"convert", &other, &"-o", &alone, &"-q"]);
    assert_eq!(
        std::fs::read(dir.join("m_2.md3")).unwrap(),
        std::fs::read(&alone).unwrap()
    );
    for f in ["m.md3", "m_1.md3", "m_2.md3"] {
        for engine in ["quake3", "ioq3"] {
            let o = idmodel(&[&"check", &"--engine", &engine, &dir.join(f)]);
            assert_eq!(code(&o), 0, "{f}: {}", stdout(&o));
        }
    }
}

#[test]
fn what_cannot_be_a_player_or_a_lod_is_refused() {
    let dir = scratch_dir("idmodel-import-player", "refused");
    let glb = dir.join("sample.glb");
    run(&[&"convert", &sample_file("md3"), &"-o", &glb, &"-q"]);
    // Not a player: a failure naming what is missing; nothing is written.
    let out = dir.join("out/");
    let o = idmodel(&[&"convert", &glb, &"-o", &out]);
    assert_eq!(code(&o), 1);
    common::assert_contains(&stderr(&o), "not a Quake III player");
    assert!(!dir.join("out").join("lower.md3").exists());
    // LODs are for MD3 outputs; Quake III loads two.
    let o = idmodel(&[&"convert", &glb, &"-o", &dir.join("m.md2"), &"--lods", &"1"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = idmodel(&[&"convert", &glb, &"-o", &dir.join("m.md3"), &"--lods", &"3"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Nor to glTF.
    let o = idmodel(&[
        &"convert",
        &sample_file("md3"),
        &"-o",
        &dir.join("x.glb"),
        &"--lods",
        &"1",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--lods"), "{}", stderr(&o));
    // A missing --lod1 file is named.
    let o = idmodel(&[
        &"convert",
        &glb,
        &"-o",
        &dir.join("m.md3"),
        &"--lod1",
        &dir.join("nope.glb"),
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("nope.glb"), "{}", stderr(&o));
    assert!(!dir.join("m.md3").exists());
}
