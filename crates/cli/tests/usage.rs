//! Usage errors are one line and a usage hint (exit 2); `--anim` on a non-md5mesh and a
//! folder converted to `x.glb` are usage errors; help lists every command; shell
//! completions and man pages are generated.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::ffi::OsStr;
use std::process::Output;

use common::{code, convert, idmodel, sample_file, scratch, stderr, stdout};

/// Exit 2, nothing on stdout, and exactly two stderr lines: `idmodel: …` containing
/// `what`, then `usage: idmodel <hint> … (more: … --help)`.
fn assert_usage(o: &Output, hint: &str, what: &str) {
    let err = stderr(o);
    assert_eq!(code(o), 2, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "not two lines: {err}");
    assert!(lines[0].starts_with("idmodel: "), "{err}");
    assert!(lines[0].contains(what), "{what}: {err}");
    assert!(
        lines[1].starts_with(&format!("usage: {hint}")),
        "{hint}: {err}"
    );
    assert!(lines[1].ends_with("--help)"), "{err}");
    assert!(o.stdout.is_empty(), "{}", stdout(o));
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn usage_errors_are_one_line_and_a_hint() {
    let dir = scratch("one_line");
    let model = dir.join("x.mdl");
    std::fs::copy(sample_file("mdl"), &model).unwrap();
    let cases: Vec<(Vec<&dyn AsRef<OsStr>>, &str, &str)> = vec![
        (vec![], "idmodel <COMMAND>", "a command is needed"),
        (vec![&"frobnicate"], "idmodel <COMMAND>", "'frobnicate'"),
        (vec![&"info"], "idmodel info ", "<FILE>"),
        (
            vec![&"info", &model, &"--bogus"],
            "idmodel info ",
            "--bogus",
        ),
        (
            vec![&"check", &model, &"--engine", &"quake4"],
            "idmodel check ",
            "possible values: winquake",
        ),
        (
            vec![&"convert", &model, &"-o", &"out.fbx"],
            "idmodel convert ",
            "cannot tell the output format",
        ),
        (
            vec![&"render", &model, &"-o", &"x.png", &"--size", &"big"],
            "idmodel render ",
            "WIDTHxHEIGHT",
        ),
        (
            vec![&"check", &model, &"--engine", &"doom3"],
            "idmodel check ",
            "winquake, glquake, quakespasm",
        ),
        (
            vec![&"completions", &"tcsh"],
            "idmodel completions ",
            "tcsh",
        ),
        (vec![&"man", &"nosuch"], "idmodel man ", "nosuch"),
    ];
    for (args, hint, what) in cases {
        assert_usage(&idmodel(&args), hint, what);
    }
}

#[test]
fn anim_needs_an_md5mesh() {
    let dir = scratch("anim");
    let model = dir.join("x.mdl");
    std::fs::copy(sample_file("mdl"), &model).unwrap();
    let anim = sample_file("md5anim");
    let glb = dir.join("x.glb");
    for (command, out) in [("convert", &glb), ("render", &dir.join("x.png"))] {
        let o = idmodel(&[&command, &model, &"-o", out, &"--anim", &anim]);
        let hint = format!("idmodel {command} ");
        assert_usage(&o, &hint, "--anim applies only to a Doom 3 md5mesh");
        if command == "convert" {
            assert!(stderr(&o).contains("Quake MDL") || stderr(&o).contains("MDL"));
        }
        assert!(!out.exists(), "{command}");
    }
    // An md5mesh takes it.
    let mesh = sample_file("md5mesh");
    let o = idmodel(&[&"convert", &mesh, &"-o", &glb, &"--anim", &anim]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn a_folder_is_not_converted_into_a_model_file() {
    let dir = scratch("folder_out");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(sample_file("md2"), input.join("a.md2")).unwrap();
    for name in ["x.glb", "x.gltf", "x.OBJ"] {
        let out = dir.join(name);
        let o = idmodel(&[&"convert", &input, &"-o", &out]);
        assert_usage(&o, "idmodel convert ", "is a folder, not a");
        assert!(!out.exists(), "{name} was made");
    }
    // A folder name without a model extension is fine.
    let out = dir.join("out");
    convert(&input, &out, &[]);
    assert!(out.join("a.glb").is_file());
}

#[test]
fn help_lists_every_command() {
    let o = idmodel(&[&"--help"]);
    assert_eq!(code(&o), 0);
    let help = stdout(&o);
    assert!(
        help.contains("render"),
        "the summary line names render: {help}"
    );
    for sub in ["info", "check", "convert", "render", "completions", "man"] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(sub)),
            "{sub}: {help}"
        );
        let o = idmodel(&[&sub, &"--help"]);
        assert_eq!(code(&o), 0, "{sub}");
    }
    // check's help documents the exit codes and --fail-on.
    let o = idmodel(&[&"check", &"--help"]);
    let h = stdout(&o);
    assert!(
        h.contains("--fail-on") && h.contains("Exit status: 0"),
        "{h}"
    );
}

#[test]
fn completions_and_man_pages() {
    for (shell, marker) in [
        ("bash", "_idmodel()"),
        ("zsh", "#compdef idmodel"),
        ("fish", "complete -c idmodel"),
        ("elvish", "idmodel"),
        ("powershell", "idmodel"),
    ] {
        let o = idmodel(&[&"completions", &shell]);
        assert_eq!(code(&o), 0, "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        assert!(script.contains(marker), "{shell}: {script}");
        for word in ["check", "convert", "render", "fail-on"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
    }
    let o = idmodel(&[&"man"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH idmodel"), "{page}");
    for sub in ["check", "convert", "render"] {
        assert!(page.contains(sub), "{sub}");
    }
    let o = idmodel(&[&"man", &"check"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH idmodel-check"), "{page}");
    assert!(page.contains("fail\\-on"), "{page}");
}
