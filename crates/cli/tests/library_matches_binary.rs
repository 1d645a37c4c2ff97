//! The command and the library are one conversion: for every corpus model (files, Quake
//! III player folders, md5meshes with the md5anims beside them, archive entries) the
//! bytes `idmodel convert` writes are the bytes `idmodel_convert::convert` returns,
//! textures included; and the browser viewer (`idmodel_web::open_files`, which calls
//! `idmodel_convert::convert_bytes`) gives the same GLB for the same files.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{code, idmodel, stderr};
use idmodel_convert::{Options, OutFile};

/// A fresh scratch folder for `name`, removed when the test is done with it.
fn scratch(name: &str) -> idmodel_test_support::Scratch {
    idmodel_test_support::Scratch::new(&format!("libbin-{name}"))
}

/// Every file under `dir`, by its path below `dir`.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for f in idmodel_test_support::walk(dir) {
        let rel = f.strip_prefix(dir).unwrap().to_path_buf();
        out.insert(rel, std::fs::read(&f).unwrap());
    }
    out
}

/// The library's files, by their path below `dir`.
fn library_files(files: &[OutFile], dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files
        .iter()
        .map(|f| (f.path.strip_prefix(dir).unwrap().to_path_buf(), f.bytes()))
        .collect()
}

/// Converts `input` to `out/<name>` with the binary and with the library, and checks the
/// files are the same bytes (or both fail with the same line). Returns how many files
/// were compared.
fn same(input: &Path, name: &str, extra: &[&str], options: &Options) -> usize {
    let dir = scratch("one");
    let output = dir.join(name);
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"convert", &input, &"-o", &output];
    for e in extra {
        args.push(e);
    }
    let o = idmodel(&args);
    let lib = idmodel_convert::convert(input, &output, options);
    match lib {
        Ok(done) => {
            assert_eq!(code(&o), 0, "{}: {}", input.display(), stderr(&o));
            let written = tree(&dir);
            assert_eq!(
                written.keys().collect::<Vec<_>>(),
                library_files(&done.files, &dir).keys().collect::<Vec<_>>(),
                "{}",
                input.display()
            );
            for (rel, bytes) in library_files(&done.files, &dir) {
                assert!(
                    written[&rel] == bytes,
                    "{} -> {}: the binary wrote other bytes than the library returned",
                    input.display(),
                    rel.display()
                );
            }
            written.len()
        }
        Err(e) => {
            assert_ne!(code(&o), 0, "{}", input.display());
            assert!(
                stderr(&o).contains(e.line().lines().next().unwrap()),
                "{}: {e} / {}",
                input.display(),
                stderr(&o)
            );
            0
        }
    }
}

/// A batch of `folder` by the binary (one process) against each item converted alone by
/// the library.
fn same_batch(folder: &Path) -> usize {
    let dir = scratch("batch");
    let out = dir.join("out");
    let o = idmodel(&[&"convert", &folder, &"-o", &out, &"-q"]);
    let written = tree(&out);
    let batch = idmodel_convert::batch::batch(folder, &out, &Options::default())
        .unwrap()
        .expect("a folder or archive is a batch");
    let mut compared = 0;
    for item in &batch.items {
        let rel = item.output.strip_prefix(&out).unwrap().to_path_buf();
        match idmodel_convert::convert(&item.input, &item.output, &Options::default()) {
            Ok(done) => {
                assert!(
                    written.get(&rel) == Some(&done.main_bytes()),
                    "{}: the batch wrote other bytes than the library returned",
                    item.input.display()
                );
                compared += 1;
            }
            Err(e) => {
                assert!(!written.contains_key(&rel), "{}", item.input.display());
                assert!(stderr(&o).contains(e.line()), "{e}");
            }
        }
    }
    assert!(compared > 0, "{}: nothing converted", folder.display());
    compared
}

#[test]
fn every_corpus_model_converts_to_the_same_bytes_through_the_library_and_the_binary() {
    let Some(corpus) = common::corpus_dir("library_matches_binary") else {
        return;
    };
    let mut compared = 0;
    // Files and player folders, each format's folder as one batch.
    for sub in ["mdl", "md2", "md3", "md5"] {
        compared += same_batch(&corpus.join(sub));
    }
    // Archives: every model of Quake's pak0.pak and of a .pk3 (players assembled).
    compared += same_batch(&corpus.join("assets/quake/id1/pak0.pak"));
    compared += same_batch(&corpus.join("assets/openarena/kyonshi.pk3"));
    // One archive entry, a player folder of a .pk3.
    let entry = PathBuf::from(format!(
        "{}:models/players/kyonshi",
        corpus.join("assets/openarena/kyonshi.pk3").display()
    ));
    compared += same(&entry, "kyonshi.glb", &[], &Options::default());
    // A model in a game folder (textures from the game root), as glTF with side files
    // and as OBJ with its skins.
    let upper = corpus.join("assets/openarena/baseoa/models/players/kyonshi/upper.md3");
    compared += same(&upper, "upper.gltf", &[], &Options::default());
    compared += same(&upper, "upper.obj", &[], &Options::default());
    // md5meshes with each md5anim beside them whose name shares the mesh's first word.
    let md5 = corpus.join("md5");
    let mut pairs = 0;
    for mesh in idmodel_test_support::walk(&md5) {
        if mesh.extension().is_none_or(|e| e != "md5mesh") {
            continue;
        }
        let stem = mesh.file_stem().unwrap().to_string_lossy().into_owned();
        let word = stem.split('_').next().unwrap().to_owned();
        for anim in idmodel_test_support::walk(mesh.parent().unwrap()) {
            let a = anim.file_name().unwrap().to_string_lossy().into_owned();
            if anim.extension().is_some_and(|e| e == "md5anim") && a.starts_with(&word) {
                let options = Options {
                    anims: vec![anim.clone()],
                    ..Options::default()
                };
                compared += same(&mesh, "m.glb", &["--anim", &a_path(&anim)], &options);
                pairs += 1;
            }
        }
    }
    assert!(pairs >= 5, "only {pairs} md5mesh + md5anim pairs");
    assert!(compared > 100, "only {compared} files compared");
}

fn a_path(p: &Path) -> String {
    p.display().to_string()
}

/// The files of `dir` as the viewer gets them when a folder is dropped: `prefix/name`.
fn dropped(dir: &Path, prefix: &str) -> Vec<idmodel_web::File> {
    let mut out = Vec::new();
    for f in idmodel_test_support::walk(dir) {
        let rel = f.strip_prefix(dir).unwrap();
        out.push(idmodel_web::File {
            name: format!("{prefix}/{}", rel.display()),
            bytes: std::fs::read(&f).unwrap(),
        });
    }
    out
}

#[test]
fn the_viewer_and_the_library_make_the_same_glb() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    for name in ["sample.mdl", "sample.md2", "sample.md3", "sample.md5mesh"] {
        let path = samples.join(name);
        let mut files = vec![idmodel_web::File {
            name: name.to_owned(),
            bytes: std::fs::read(&path).unwrap(),
        }];
        let mut options = Options::default();
        if name == "sample.md5mesh" {
            files.push(idmodel_web::File {
                name: "sample.md5anim".to_owned(),
                bytes: std::fs::read(samples.join("sample.md5anim")).unwrap(),
            });
            options.anims = vec![samples.join("sample.md5anim")];
        }
        let viewer = idmodel_web::open_files(files, &idmodel_web::Choice::default());
        assert_eq!(viewer.state["error"], serde_json::Value::Null, "{name}");
        let dir = scratch("viewer");
        let lib = idmodel_convert::convert(&path, &dir.join("x.glb"), &options).unwrap();
        assert!(
            viewer.glb == lib.main_bytes(),
            "{name}: the viewer's GLB differs"
        );
    }
    let Some(corpus) = common::corpus_dir("the_viewer_and_the_library_make_the_same_glb") else {
        return;
    };
    // Quake III player folders dropped whole (skins, animation.cfg, LODs; the second
    // with its images in the folder): the same player as the command assembles.
    // The second is dropped as its whole game folder (shader scripts and images), the
    // player chosen in it.
    for (folder, dropped_as, textured) in [
        ("md3/oa_kyonshi", "md3/oa_kyonshi", false),
        (
            "assets/openarena/baseoa/models/players/kyonshi",
            "assets/openarena/baseoa",
            true,
        ),
    ] {
        let player = corpus.join(folder);
        let root = corpus.join(dropped_as);
        let name = root.file_name().unwrap().to_string_lossy().into_owned();
        let below = player.strip_prefix(&root).unwrap();
        let choice = idmodel_web::Choice {
            model: Some(format!("{name}/{}", below.join("lower.md3").display())),
            ..idmodel_web::Choice::default()
        };
        let viewer = idmodel_web::open_files(dropped(&root, &name), &choice);
        assert_eq!(viewer.state["error"], serde_json::Value::Null, "{folder}");
        let drawn = viewer.state["textured"].as_u64().unwrap();
        assert_eq!(
            drawn > 0,
            textured,
            "{folder}: {}",
            viewer.state["textured"]
        );
        let dir = scratch("viewer-player");
        let lib =
            idmodel_convert::convert(&player, &dir.join("p.glb"), &Options::default()).unwrap();
        assert!(
            viewer.glb == lib.main_bytes(),
            "{folder}: the viewer's player GLB differs"
        );
    }
}

#[test]
fn an_md5_folder_is_its_mesh_with_the_md5anims_that_fit() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let dir = scratch("md5-folder");
    let folder = dir.join("thing");
    std::fs::create_dir_all(&folder).unwrap();
    for f in ["sample.md5mesh", "sample.md5anim"] {
        std::fs::copy(samples.join(f), folder.join(f)).unwrap();
    }
    // An md5anim of another skeleton beside them is left out.
    std::fs::write(
        folder.join("other.md5anim"),
        "MD5Version 10\ncommandline \"\"\nnumFrames 1\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 0\nhierarchy {\n\t\"x\" -1 0 0\n}\nbounds {\n\t( 0 0 0 ) ( 0 0 0 )\n}\nbaseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n}\n",
    )
    .unwrap();
    let whole = dir.join("whole.glb");
    let o = idmodel(&[&"convert", &folder, &"-o", &whole]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        common::stdout(&o).contains("with 1 md5anim of"),
        "{}",
        common::stdout(&o)
    );
    let one = dir.join("one.glb");
    let o = idmodel(&[
        &"convert",
        &folder.join("sample.md5mesh"),
        &"--anim",
        &folder.join("sample.md5anim"),
        &"-o",
        &one,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&whole).unwrap() == std::fs::read(&one).unwrap());
    let lib = idmodel_convert::convert(&folder, &dir.join("lib.glb"), &Options::default()).unwrap();
    assert!(lib.main_bytes() == std::fs::read(&one).unwrap());
    // To a folder it stays a batch of models (the md5anims skipped: they need a mesh).
    let o = idmodel(&[&"convert", &folder, &"-o", &dir.join("batch")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(dir.join("batch/sample.glb").is_file());
}
