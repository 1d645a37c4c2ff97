//! Search order and overrides per engine, listing order, and finding a model's root, over
//! game folders made in a scratch directory (archives written by the project).
// Test helpers may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use std::path::{Path, PathBuf};

use idmodel_assets::pak::write as pak;
use idmodel_assets::{Files, GameFs, Profile};
use idmodel_test_support::zip_of;

/// A fresh scratch folder for one test, removed when the test is done with it.
fn scratch(test: &str) -> idmodel_test_support::Scratch {
    idmodel_test_support::Scratch::new(&format!("assets-{test}"))
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn read(fs: &GameFs, path: &str) -> Option<String> {
    fs.read(path)
        .unwrap()
        .map(|b| String::from_utf8(b).unwrap())
}

fn game_dir(profile: Profile, dir: &Path) -> GameFs {
    let mut fs = GameFs::new(profile);
    fs.add_game_dir(dir).unwrap();
    fs
}

#[test]
fn quake_paks_stop_at_the_first_gap() {
    let d = scratch("q1gap");
    put(
        &d.join("pak0.pak"),
        &pak(&[("a.txt", b"pak0"), ("b.txt", b"pak0")]).unwrap(),
    );
    put(&d.join("pak1.pak"), &pak(&[("a.txt", b"pak1")]).unwrap());
    put(&d.join("pak3.pak"), &pak(&[("b.txt", b"pak3")]).unwrap());
    put(&d.join("a.txt"), b"loose");
    put(&d.join("c.txt"), b"loose");
    let fs = game_dir(Profile::Quake, &d);
    assert_eq!(
        read(&fs, "a.txt").as_deref(),
        Some("pak1"),
        "higher pak wins, paks beat loose"
    );
    assert_eq!(
        read(&fs, "b.txt").as_deref(),
        Some("pak0"),
        "pak3 is after a gap"
    );
    assert_eq!(read(&fs, "c.txt").as_deref(), Some("loose"));
    assert_eq!(fs.sources().len(), 3);
}

#[test]
fn quake2_paks_allow_gaps() {
    let d = scratch("q2gap");
    put(&d.join("pak0.pak"), &pak(&[("b.txt", b"pak0")]).unwrap());
    put(&d.join("pak3.pak"), &pak(&[("b.txt", b"pak3")]).unwrap());
    put(&d.join("pak10.pak"), &pak(&[("b.txt", b"pak10")]).unwrap());
    let fs = game_dir(Profile::Quake2, &d);
    assert_eq!(
        read(&fs, "B.TXT").as_deref(),
        Some("pak3"),
        "pak10 is never loaded"
    );
}

#[test]
fn quake_loose_files_are_case_sensitive() {
    let d = scratch("q1case");
    put(&d.join("progs/Player.mdl"), b"m");
    let q1 = game_dir(Profile::Quake, &d);
    assert_eq!(read(&q1, "progs/player.mdl"), None);
    assert_eq!(read(&q1, "progs/Player.mdl").as_deref(), Some("m"));
    let q3 = game_dir(Profile::Ioq3, &d);
    assert_eq!(read(&q3, "PROGS/player.MDL").as_deref(), Some("m"));
}

#[test]
fn folded_lookups_in_one_folder_agree_from_first_to_last() {
    // Each folder is listed once to fold case (`Loose`'s listing cache): every later
    // lookup through it must find what a first lookup would, missing names included.
    let d = scratch("q3fold");
    put(&d.join("Models/Players/A/Skin.TGA"), b"skin");
    put(&d.join("Models/Players/A/head.tga"), b"head");
    put(&d.join("Maps/x.tga"), b"upper");
    put(&d.join("maps/y.tga"), b"lower");
    let q3 = game_dir(Profile::Ioq3, &d);
    for _ in 0..3 {
        assert_eq!(
            read(&q3, "models/players/a/skin.tga").as_deref(),
            Some("skin")
        );
        assert_eq!(
            read(&q3, "MODELS/PLAYERS/A/HEAD.TGA").as_deref(),
            Some("head")
        );
        assert_eq!(read(&q3, "models/players/a/torso.tga"), None);
        assert_eq!(read(&q3, "models/players/b/skin.tga"), None);
        // Both `Maps` and `maps` exist: the exact name first, else the first in sorted
        // order (`Maps`).
        assert_eq!(read(&q3, "maps/y.tga").as_deref(), Some("lower"));
        assert_eq!(read(&q3, "Maps/x.tga").as_deref(), Some("upper"));
        assert_eq!(read(&q3, "MAPS/x.tga").as_deref(), Some("upper"));
        assert_eq!(read(&q3, "MAPS/y.tga"), None);
    }
    // A file made after its folder was listed: found by its exact name (always asked of
    // the file system); a folded name looks in the folder as first listed.
    put(&d.join("Models/Players/A/new.tga"), b"new");
    assert_eq!(
        read(&q3, "Models/Players/A/new.tga").as_deref(),
        Some("new")
    );
    assert_eq!(read(&q3, "models/players/a/NEW.tga"), None);
}

#[test]
fn quake3_vanilla_pk3s_beat_loose_ioq3_loose_beats_pk3s() {
    let d = scratch("q3loose");
    put(
        &d.join("pak0.pk3"),
        &zip_of(&[("scripts/a.shader", b"pk3")]),
    );
    put(&d.join("scripts/a.shader"), b"loose");
    let vanilla = game_dir(Profile::Quake3, &d);
    assert_eq!(read(&vanilla, "scripts/a.shader").as_deref(), Some("pk3"));
    let ioq3 = game_dir(Profile::Ioq3, &d);
    assert_eq!(read(&ioq3, "scripts/a.shader").as_deref(), Some("loose"));
    assert_eq!(Profile::default(), Profile::Ioq3);
}

#[test]
fn quake3_pk3_order_folds_to_upper_case() {
    // FS_PathCmp folds to upper case, so '_' (0x5F) sorts after letters: paka < pak_a, and
    // the alphabetically last (pak_a) is searched first.
    let d = scratch("q3sort");
    put(&d.join("paka.pk3"), &zip_of(&[("x.txt", b"paka")]));
    put(&d.join("pak_a.pk3"), &zip_of(&[("x.txt", b"pak_a")]));
    put(
        &d.join("pak0.pk3"),
        &zip_of(&[("x.txt", b"pak0"), ("y.txt", b"pak0")]),
    );
    put(&d.join("pak1.pk3"), &zip_of(&[("y.txt", b"pak1")]));
    for p in [Profile::Quake3, Profile::Ioq3] {
        let fs = game_dir(p, &d);
        assert_eq!(read(&fs, "x.txt").as_deref(), Some("pak_a"), "{p:?}");
        assert_eq!(read(&fs, "y.txt").as_deref(), Some("pak1"), "{p:?}");
    }
}

#[test]
fn ioq3_pk3dir_is_an_unpacked_pk3() {
    let d = scratch("pk3dir");
    put(&d.join("zz.pk3dir/x.txt"), b"pk3dir");
    put(&d.join("aa.pk3"), &zip_of(&[("x.txt", b"aa")]));
    assert_eq!(
        read(&game_dir(Profile::Ioq3, &d), "x.txt").as_deref(),
        Some("pk3dir")
    );
    assert_eq!(
        read(&game_dir(Profile::Quake3, &d), "x.txt").as_deref(),
        Some("aa")
    );
}

#[test]
fn doom3_pk4_order_folds_to_lower_case_and_loose_wins() {
    // idStr::Icmp folds to lower case: '_' sorts before letters, pak_a < paka, so paka wins.
    let d = scratch("d3sort");
    put(
        &d.join("paka.pk4"),
        &zip_of(&[("x.txt", b"paka"), ("l.txt", b"pk4")]),
    );
    put(&d.join("pak_a.pk4"), &zip_of(&[("x.txt", b"pak_a")]));
    put(
        &d.join("addon.pk4"),
        &zip_of(&[
            ("addon.conf", b""),
            ("x.txt", b"addon"),
            ("z.txt", b"addon"),
        ]),
    );
    put(&d.join("l.txt"), b"loose");
    let fs = game_dir(Profile::Doom3, &d);
    assert_eq!(read(&fs, "x.txt").as_deref(), Some("paka"));
    assert_eq!(read(&fs, "l.txt").as_deref(), Some("loose"));
    assert_eq!(read(&fs, "z.txt"), None, "addon pk4s are not searched");
}

#[test]
fn later_game_dirs_override_earlier() {
    let d = scratch("stack");
    put(
        &d.join("baseq3/pak0.pk3"),
        &zip_of(&[("a.txt", b"base"), ("b.txt", b"base")]),
    );
    put(&d.join("mod/zz.pk3"), &zip_of(&[("a.txt", b"mod")]));
    let mut fs = GameFs::new(Profile::Quake3);
    fs.add_game_dir(&d.join("baseq3")).unwrap();
    fs.add_game_dir(&d.join("mod")).unwrap();
    assert_eq!(read(&fs, "a.txt").as_deref(), Some("mod"));
    assert_eq!(read(&fs, "b.txt").as_deref(), Some("base"));
}

#[test]
fn lookups_refuse_escaping_paths() {
    let d = scratch("escape");
    put(&d.join("game/a.txt"), b"a");
    put(&d.join("secret.txt"), b"s");
    let fs = game_dir(Profile::Ioq3, &d.join("game"));
    assert_eq!(
        read(&fs, "/a.txt").as_deref(),
        Some("a"),
        "one leading slash is dropped"
    );
    assert_eq!(
        fs.read("../secret.txt").unwrap_err(),
        "refused game path \"../secret.txt\": it has a '..' component"
    );
    assert_eq!(
        fs.read("c:/secret.txt").unwrap_err(),
        "refused game path \"c:/secret.txt\": it has a ':' (a drive or stream name)"
    );
}

#[cfg(unix)]
#[test]
fn loose_links_out_of_the_root_are_refused() {
    let d = scratch("link");
    put(&d.join("secret.txt"), b"s");
    std::fs::create_dir_all(d.join("game")).unwrap();
    std::os::unix::fs::symlink(d.join("secret.txt"), d.join("game/a.txt")).unwrap();
    let fs = game_dir(Profile::Ioq3, &d.join("game"));
    let err = fs.read("a.txt").unwrap_err();
    assert!(
        err.ends_with(&format!(
            "refused: it leads out of {}",
            d.join("game").display()
        )),
        "{err}"
    );
}

#[test]
fn list_in_search_order_quake3_sorted_doom3() {
    let d = scratch("list");
    put(
        &d.join("pak0.pk3"),
        &zip_of(&[("scripts/z.shader", b"0"), ("scripts/b.shader", b"0")]),
    );
    put(
        &d.join("pak1.pk3"),
        &zip_of(&[("scripts/c.shader", b"1"), ("scripts/B.shader", b"1")]),
    );
    put(&d.join("scripts/a.shader"), b"loose");
    let ioq3 = game_dir(Profile::Ioq3, &d);
    assert_eq!(
        ioq3.list("scripts", ".shader"),
        [
            "scripts/a.shader",
            "scripts/c.shader",
            "scripts/B.shader",
            "scripts/z.shader"
        ]
    );
    let vanilla = game_dir(Profile::Quake3, &d);
    assert_eq!(
        vanilla.list("scripts", ".shader"),
        [
            "scripts/c.shader",
            "scripts/B.shader",
            "scripts/z.shader",
            "scripts/a.shader"
        ]
    );
    let d3 = scratch("list_d3");
    put(
        &d3.join("pak0.pk4"),
        &zip_of(&[("materials/z.mtr", b"0"), ("materials/B.mtr", b"0")]),
    );
    put(&d3.join("materials/a.mtr"), b"loose");
    assert_eq!(
        game_dir(Profile::Doom3, &d3).list("materials", ".mtr"),
        ["materials/a.mtr", "materials/B.mtr", "materials/z.mtr"]
    );
}

#[test]
fn root_above_models_progs_players() {
    let d = scratch("root");
    let model = d.join("baseq3/models/players/kyonshi/upper.md3");
    put(&model, b"IDP3");
    put(
        &d.join("baseq3/pak0.pk3"),
        &zip_of(&[("textures/a.tga", b"tga")]),
    );
    put(&d.join("baseq3/models/players/kyonshi/skin.tga"), b"loose");
    let (fs, game) = GameFs::for_model(&model, &[], Profile::Ioq3).unwrap();
    assert_eq!(game, "models/players/kyonshi/upper.md3");
    assert_eq!(read(&fs, "textures/a.tga").as_deref(), Some("tga"));
    assert_eq!(
        read(&fs, "models/players/kyonshi/skin.tga").as_deref(),
        Some("loose")
    );
    assert_eq!(read(&fs, &game).as_deref(), Some("IDP3"));

    let mdl = d.join("Quake/id1/PROGS/player.mdl");
    put(&mdl, b"IDPO");
    let (_, game) = GameFs::for_model(&mdl, &[], Profile::Quake).unwrap();
    assert_eq!(game, "PROGS/player.mdl");

    let md2 = d.join("baseq2/players/male/tris.md2");
    put(&md2, b"IDP2");
    let (fs, game) = GameFs::for_model(&md2, &[], Profile::Quake2).unwrap();
    assert_eq!(game, "players/male/tris.md2");
    assert_eq!(read(&fs, "players/male/tris.md2").as_deref(), Some("IDP2"));

    let alone = d.join("loose/thing.md2");
    put(&alone, b"IDP2");
    let (fs, game) = GameFs::for_model(&alone, &[], Profile::Quake2).unwrap();
    assert_eq!(game, "thing.md2");
    assert_eq!(read(&fs, "thing.md2").as_deref(), Some("IDP2"));
}

#[test]
fn root_with_game_values_stacked() {
    let d = scratch("rootgame");
    let model = d.join("mymod/models/x.md3");
    put(&model, b"IDP3");
    put(
        &d.join("baseq3/pak0.pk3"),
        &zip_of(&[("t.tga", b"base"), ("u.tga", b"base")]),
    );
    put(
        &d.join("extra.pk3"),
        &zip_of(&[("u.tga", b"extra"), ("v.tga", b"extra")]),
    );
    put(&d.join("mymod/v.tga"), b"mod");
    let extra = [d.join("baseq3"), d.join("extra.pk3")];
    let (fs, game) = GameFs::for_model(&model, &extra, Profile::Ioq3).unwrap();
    assert_eq!(game, "models/x.md3");
    assert_eq!(read(&fs, "t.tga").as_deref(), Some("base"));
    assert_eq!(
        read(&fs, "u.tga").as_deref(),
        Some("extra"),
        "a later --game overrides"
    );
    assert_eq!(
        read(&fs, "v.tga").as_deref(),
        Some("mod"),
        "the model's root is on top"
    );
    let err = GameFs::for_model(&model, &[d.join("missing.pk3")], Profile::Ioq3).unwrap_err();
    assert!(
        err.starts_with(&d.join("missing.pk3").display().to_string()),
        "{err}"
    );
    assert!(!err.contains('\n'));
}

#[test]
fn for_archive_puts_the_archive_on_top() {
    let d = scratch("forarchive");
    put(
        &d.join("pak0.pk3"),
        &zip_of(&[("a.txt", b"pak0"), ("b.txt", b"pak0")]),
    );
    put(&d.join("aaa.pk3"), &zip_of(&[("a.txt", b"aaa")]));
    let fs = GameFs::for_archive(&d.join("aaa.pk3"), Profile::Ioq3).unwrap();
    assert_eq!(read(&fs, "a.txt").as_deref(), Some("aaa"));
    assert_eq!(read(&fs, "b.txt").as_deref(), Some("pak0"));
    assert_eq!(
        fs.sources().len(),
        3,
        "the archive once, its folder's pk3 and loose files"
    );
}

#[test]
fn corpus_quake_pak_and_openarena_root() {
    let Some(dir) = idmodel_test_support::corpus_dir("corpus_quake_pak_and_openarena_root") else {
        return;
    };
    let id1 = dir.join("assets/quake/id1");
    let fs = game_dir(Profile::Quake, &id1);
    let mdl = fs.read("progs/player.mdl").unwrap().unwrap();
    assert_eq!(&mdl[..4], b"IDPO");
    let oa = dir.join("assets/openarena/baseoa");
    let upper = idmodel_test_support::walk(&oa)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "md3"))
        .unwrap();
    let (fs, game) = GameFs::for_model(&upper, &[], Profile::Ioq3).unwrap();
    assert!(game.starts_with("models/"), "{game}");
    assert!(fs.read(&game).unwrap().is_some());
    assert!(!fs.list("scripts", ".shader").is_empty());
}

#[test]
fn a_refused_archive_of_a_game_dir_is_left_out_with_a_warning() {
    let d = scratch("badpk3");
    put(&d.join("pak0.pk3"), &zip_of(&[("a.txt", b"pak0")]));
    put(&d.join("pak1.pk3"), b"PK\x03\x04 not really");
    let fs = game_dir(Profile::Ioq3, &d);
    assert_eq!(read(&fs, "a.txt").as_deref(), Some("pak0"));
    assert_eq!(
        fs.warnings(),
        [format!(
            "{}: not a zip: no end of central directory record in the last 15 bytes (left out)",
            d.join("pak1.pk3").display()
        )]
    );
}

#[test]
fn archive_entry_specs() {
    let d = scratch("spec");
    put(
        &d.join("a.pk3"),
        &zip_of(&[("models/x.md3", b"IDP3"), ("t.tga", b"tga")]),
    );
    let spec = PathBuf::from(format!("{}:models/x.md3", d.join("a.pk3").display()));
    assert_eq!(
        idmodel_assets::root::split_archive_spec(&spec),
        Some((d.join("a.pk3"), "models/x.md3".to_owned()))
    );
    let (fs, game) = GameFs::for_model(&spec, &[], Profile::Ioq3).unwrap();
    assert_eq!(game, "models/x.md3");
    assert_eq!(read(&fs, &game).as_deref(), Some("IDP3"));
    assert_eq!(read(&fs, "t.tga").as_deref(), Some("tga"));
    // A real file whose name contains ':' wins.
    let real = d.join("b.pk3:models");
    put(&real, b"real");
    assert_eq!(idmodel_assets::root::split_archive_spec(&real), None);
}
