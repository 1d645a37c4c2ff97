//! `idmodel check` as a CI gate: `--fail-on`, `--json` (JSON Lines), findings shared by
//! engines printed once, folders walked with a summary, and every exit code.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{code, corpus_dir, idmodel, sample_file, scratch, stderr, stdout};
use serde_json::Value;

/// `samples/sample.md2` with the i32 at byte `at` set to `value`, written to `dir/name`.
fn patched_md2(dir: &Path, name: &str, at: usize, value: i32) -> PathBuf {
    let mut b = std::fs::read(sample_file("md2")).unwrap();
    b[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let p = dir.join(name);
    std::fs::write(&p, b).unwrap();
    p
}

/// One file of each severity: (clean, warning only, hazard, refused, unreadable).
struct Fixtures {
    clean: PathBuf,
    warning: PathBuf,
    hazard: PathBuf,
    refused: PathBuf,
    unreadable: PathBuf,
}

fn fixtures(dir: &Path) -> Fixtures {
    let clean = dir.join("clean.mdl");
    std::fs::copy(sample_file("mdl"), &clean).unwrap();
    // The MD3 sample's 'arm_l' is renamed by both engines: one warning, shared.
    let warning = dir.join("renamed.md3");
    std::fs::copy(sample_file("md3"), &warning).unwrap();
    Fixtures {
        clean,
        warning,
        // num_glcmds (byte 36) = 0: a hazard for Quake II's GL renderer.
        hazard: patched_md2(dir, "nogl.md2", 36, 0),
        // skinheight (byte 12) = 481: Quake II refuses it.
        refused: patched_md2(dir, "tall.md2", 12, 481),
        unreadable: {
            let p = dir.join("junk.md2");
            std::fs::write(&p, b"\x01\x02\x03\x04 not a model").unwrap();
            p
        },
    }
}

fn check(args: &[&dyn AsRef<OsStr>]) -> std::process::Output {
    let mut a: Vec<&dyn AsRef<OsStr>> = vec![&"check"];
    a.extend_from_slice(args);
    idmodel(&a)
}

#[test]
fn exit_codes_follow_fail_on() {
    let dir = scratch("exit_codes");
    let f = fixtures(&dir);
    // (file, exit with --fail-on refused, hazard (the default), warning)
    let cases: [(&Path, [i32; 3]); 5] = [
        (&f.clean, [0, 0, 0]),
        (&f.warning, [0, 0, 1]),
        (&f.hazard, [0, 1, 1]),
        (&f.refused, [1, 1, 1]),
        // A file that cannot be read or parsed fails whatever --fail-on says.
        (&f.unreadable, [1, 1, 1]),
    ];
    for (file, codes) in cases {
        for (level, want) in ["refused", "hazard", "warning"].iter().zip(codes) {
            let o = check(&[&file, &"--fail-on", level]);
            assert_eq!(
                code(&o),
                want,
                "{} --fail-on {level}: {}{}",
                file.display(),
                stdout(&o),
                stderr(&o)
            );
        }
        let o = check(&[&file]);
        assert_eq!(code(&o), codes[1], "{} (default)", file.display());
    }
    // Warnings are printed even when they do not fail the check.
    let o = check(&[&f.warning]);
    assert!(stdout(&o).contains(": warning: "), "{}", stdout(&o));
    // The unreadable file: one stderr line naming it.
    let o = check(&[&f.unreadable]);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).starts_with(&format!("idmodel: {}: ", f.unreadable.display())));
}

#[test]
fn allow_lets_one_finding_code_pass_the_gate() {
    let dir = scratch("allow");
    let f = fixtures(&dir);
    // The MD2 without GL commands fails the default gate; --allow no-gl-commands lets
    // it pass, printed still, and the summary counts it; another code allows nothing.
    assert_eq!(code(&check(&[&f.hazard])), 1);
    let o = check(&[&f.hazard, &"--allow", &"no-gl-commands"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("no GL commands"), "{}", stdout(&o));
    assert_eq!(code(&check(&[&f.hazard, &"--allow", &"skin-too-tall"])), 1);
    // A refusal of another code still fails; the summary names what was allowed.
    let o = check(&[&f.hazard, &f.refused, &"--allow", &"no-gl-commands"]);
    assert_eq!(code(&o), 1);
    common::assert_contains(&stdout(&o), "1 allowed by --allow");
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    let f = fixtures(&dir);
    let cases: Vec<Vec<&dyn AsRef<OsStr>>> = vec![
        vec![],
        vec![&f.clean, &"--fail-on", &"never"],
        vec![&f.clean, &"--engine", &"quake2"],
        vec![&f.clean, &"--jsonx"],
    ];
    for args in cases {
        let o = check(&args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].starts_with("idmodel: "), "{err}");
        assert!(lines[1].starts_with("usage: idmodel check "), "{err}");
        assert!(o.stdout.is_empty(), "{}", stdout(&o));
    }
}

#[test]
fn shared_findings_print_once_with_their_engines() {
    let dir = scratch("merged");
    let f = fixtures(&dir);
    let o = check(&[&f.warning]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with(&format!(
            "{}: quake3, ioq3: warning: surface 1 'arm_l' is renamed 'arm'",
            f.warning.display()
        )),
        "{out}"
    );
    // One engine: its name alone.
    let o = check(&[&f.warning, &"--engine", &"ioq3"]);
    assert!(
        stdout(&o).starts_with(&format!("{}: ioq3: warning: ", f.warning.display())),
        "{}",
        stdout(&o)
    );
}

#[test]
fn json_lines_one_object_per_finding() {
    let dir = scratch("json");
    let f = fixtures(&dir);
    // A comment that swallows a digit: a finding with a line, column and offset.
    let camera = dir.join("comment.md5camera");
    let text = std::fs::read_to_string(sample_file("md5camera")).unwrap();
    std::fs::write(&camera, text.replace("numCuts 1", "numCuts /* x */11")).unwrap();
    let o = check(&[
        &f.clean,
        &f.warning,
        &f.hazard,
        &f.refused,
        &f.unreadable,
        &camera,
        &"--json",
    ]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let objects: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // warning, hazard, refused, unreadable, camera: the clean file has no line.
    assert_eq!(objects.len(), 5, "{out}");
    for v in &objects {
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        for k in [
            "file", "model", "engines", "severity", "code", "message", "location",
        ] {
            assert!(keys.contains(&k), "{k} missing: {v}");
        }
        assert!(v["code"].as_str().is_some_and(|c| !c.is_empty()), "{v}");
    }
    let by_file = |p: &Path| {
        objects
            .iter()
            .find(|v| v["file"] == p.display().to_string())
            .unwrap_or_else(|| panic!("no object for {}: {out}", p.display()))
    };
    let w = by_file(&f.warning);
    assert_eq!(w["engines"], serde_json::json!(["quake3", "ioq3"]));
    assert_eq!(w["severity"], "warning");
    assert_eq!(w["location"], Value::Null);
    let h = by_file(&f.hazard);
    assert_eq!(h["severity"], "hazard");
    assert_eq!(h["code"], "no-gl-commands");
    assert_eq!(by_file(&f.refused)["severity"], "refused");
    let u = by_file(&f.unreadable);
    assert_eq!(u["code"], "unreadable");
    assert_eq!(u["engines"], serde_json::json!([]));
    let c = by_file(&camera);
    assert_eq!(c["engines"], serde_json::json!(["doom3"]));
    let at = &c["location"];
    assert!(
        at["line"].as_u64().is_some() && at["column"].as_u64().is_some(),
        "{c}"
    );
    let offset = at["offset"].as_u64().unwrap() as usize;
    assert_eq!(
        &std::fs::read(&camera).unwrap()[offset - 2..offset],
        b"*/",
        "the offset is the character after the comment: {c}"
    );
    // The summary goes to stderr, after the unreadable file's line.
    let err = stderr(&o);
    assert_eq!(
        err.lines().last().unwrap(),
        "idmodel: checked 6 files: 1 refused, 2 hazards, 1 warnings, 1 unreadable",
        "{err}"
    );
}

#[test]
fn skin_findings_carry_their_file_and_line() {
    let dir = scratch("skin");
    let lower = dir.join("lower.md3");
    std::fs::copy(sample_file("md3"), &lower).unwrap();
    std::fs::write(
        dir.join("lower_default.skin"),
        "nosuch,models/x.tga\nother,models/y.tga\n",
    )
    .unwrap();
    let o = check(&[&lower, &"--engine", &"ioq3", &"--json"]);
    let skin: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["file"] == dir.join("lower_default.skin").display().to_string())
        .collect();
    assert!(!skin.is_empty(), "{}", stdout(&o));
    let mut lined = 0;
    for v in &skin {
        assert_eq!(v["model"], lower.display().to_string());
        // A finding that says `line N: …` has that line as its location.
        let message = v["message"].as_str().unwrap();
        if let Some((n, _)) = message
            .strip_prefix("line ")
            .and_then(|r| r.split_once(':'))
        {
            assert_eq!(v["location"]["line"], n.parse::<u64>().unwrap(), "{v}");
            lined += 1;
        }
    }
    assert!(lined > 0, "{}", stdout(&o));
}

#[test]
fn folders_are_walked_with_a_summary() {
    let dir = scratch("folder");
    let models = dir.join("models");
    let deep = models.join("a").join("b");
    std::fs::create_dir_all(&deep).unwrap();
    let f = fixtures(&deep);
    std::fs::copy(sample_file("md5anim"), models.join("walk.md5anim")).unwrap();
    std::fs::write(models.join("pak0.pk3"), b"PK\x03\x04").unwrap();
    std::fs::write(models.join("notes.txt"), b"not a model").unwrap();
    let o = check(&[&models]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(code(&o), 1, "{out}{err}");
    let last = out.lines().last().unwrap();
    assert_eq!(
        last,
        "checked 6 files: 1 refused, 1 hazards, 1 warnings, 1 unreadable, 1 archives not checked",
        "{out}"
    );
    // Clean files found in a folder print nothing; every finding names its file.
    assert!(!out.contains("ok ("), "{out}");
    for l in out.lines().filter(|l| *l != last) {
        assert!(l.starts_with(&deep.display().to_string()), "{l}");
    }
    // The archive and the unreadable file: one stderr line each.
    let err_lines: Vec<&str> = err.lines().collect();
    assert_eq!(err_lines.len(), 2, "{err}");
    let unreadable = f.unreadable.display().to_string();
    let pak = ["pak0.pk3", "not supported yet"];
    assert!(common::has_line(&err, &pak), "{err}");
    assert!(common::has_line(&err, &[&unreadable]), "{err}");

    // Without the hazard, refusal and junk, the folder passes with its warning shown.
    for p in [&f.hazard, &f.refused, &f.unreadable] {
        std::fs::remove_file(p).unwrap();
    }
    let o = check(&[&models]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(": warning: "), "{}", stdout(&o));
    assert!(
        stdout(&o).ends_with(
            "checked 3 files: 0 refused, 0 hazards, 1 warnings, 0 unreadable, 1 archives not checked\n"
        ),
        "{}",
        stdout(&o)
    );
    let o = check(&[&models, &"--fail-on", &"warning"]);
    assert_eq!(code(&o), 1);

    // --engine on a folder checks only the files that engine loads.
    let o = check(&[&models, &"--engine", &"doom3"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("checked 1 files: ") && stdout(&o).contains("2 files skipped"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_archive_named_directly_is_refused_in_one_line() {
    let dir = scratch("archive");
    let pak = dir.join("pak0.pak");
    std::fs::write(&pak, b"PACK\x0c\0\0\0\0\0\0\0").unwrap();
    let o = check(&[&pak]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("archive"), "{}", stderr(&o));
}

/// The corpus as a CI job sees it: most files have only warnings, so the default gate
/// fails far fewer files than `--fail-on warning`, and never more.
#[test]
fn corpus_gate_is_milder_by_default() {
    let Some(corpus) = corpus_dir("corpus_gate_is_milder_by_default") else {
        return;
    };
    let mut counts = Vec::new();
    for level in ["refused", "hazard", "warning"] {
        let o = check(&[&corpus, &"--fail-on", &level, &"--json"]);
        assert!(matches!(code(&o), 0 | 1), "{}", stderr(&o));
        let summary = stderr(&o).lines().last().unwrap_or_default().to_owned();
        assert!(summary.starts_with("idmodel: checked "), "{summary}");
        for l in stdout(&o).lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(v["severity"].is_string() && v["message"].is_string(), "{v}");
        }
        counts.push(code(&o));
        // Every level sees the same findings; only the exit code differs.
        if level == "warning" {
            assert_eq!(code(&o), 1, "the corpus has warnings: {summary}");
        }
    }
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
}
