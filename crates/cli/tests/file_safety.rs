//! The command never loses a user's file: one test per data-loss case, each proving the
//! original bytes survive and checking the exit code; FIFOs and devices (with a timeout,
//! so a hang fails instead of blocking CI); atomic writes.
//!
//! Exit codes: 0 done; 1 a refused input (a FIFO, a device, not a model) or a failed
//! conversion; 2 a refusal to write (an output that is an input, an existing side file,
//! a read-only output, an output that is not a regular file), with nothing written.
//!
//! Samples come from the repository's `samples/` folder or are generated here.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]
#![cfg(unix)]

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{code, convert, idmodel, sample_file, scratch, stderr, stdout};

/// Copies `samples/sample.<ext>` to `dir/name`.
fn sample_as(ext: &str, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(sample_file(ext), &p).unwrap();
    p
}

/// Bytes the user cares about (not a model).
const PRECIOUS: &[u8] = b"the user's own file, not to be lost\n";

/// Writes [`PRECIOUS`] to `dir/name`.
fn precious(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, PRECIOUS).unwrap();
    p
}

/// Runs `idmodel` with `args`, killing it after 10 s: a hang is a test failure.
fn idmodel_within(args: &[&dyn AsRef<OsStr>]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_idmodel"))
        .args(args.iter().map(|a| a.as_ref()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_owned()).collect();
            panic!("idmodel {shown:?} hung for 10 s and was killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `mkfifo path`.
fn mkfifo(path: &Path) {
    let s = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(s.success(), "mkfifo {}", path.display());
}

/// Exit `want` and exactly one stderr line `idmodel: ...` containing every `parts`.
fn assert_one_line(o: &Output, want: i32, parts: &[&str]) {
    let err = stderr(o);
    assert_eq!(code(o), want, "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("idmodel: "), "{err:?}");
    for p in parts {
        assert!(err.contains(p), "no {p:?} in {err:?}");
    }
    assert!(!err.contains("panicked") && !err.contains("internal error"));
}

/// `path` still holds `bytes`.
fn assert_kept(path: &Path, bytes: &[u8]) {
    assert_eq!(
        std::fs::read(path).unwrap(),
        bytes,
        "{} was changed",
        path.display()
    );
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

// ---------------------------------------------------------------------------------------
// An output that is an input (by name, through `..`, a symbolic link, a hard link)

#[test]
fn render_over_its_input() {
    let dir = scratch("render-over-input");
    let m3 = sample_as("md3", &dir, "m3.md3");
    let before = std::fs::read(&m3).unwrap();
    let o = idmodel(&[&"render", &m3, &"-o", &m3]);
    assert_one_line(&o, 2, &[&s(&m3), "refusing to write over the input"]);
    assert_kept(&m3, &before);
    // Not even with --force.
    let o = idmodel(&[&"render", &m3, &"-o", &m3, &"--force"]);
    assert_one_line(&o, 2, &["the input"]);
    assert_kept(&m3, &before);
    assert_eq!(names(&dir), ["m3.md3"]);
}

#[test]
fn convert_glb_named_mdl_onto_itself() {
    // Detection is by content: MDL bytes named .glb convert, and would overwrite.
    let dir = scratch("same-name");
    let m = sample_as("mdl", &dir, "m.glb");
    let before = std::fs::read(&m).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let mut a: Vec<&dyn AsRef<OsStr>> = vec![&"convert", &m, &"-o", &m];
        a.extend(extra.iter().map(|e| e as &dyn AsRef<OsStr>));
        let o = idmodel(&a);
        assert_one_line(&o, 2, &["refusing to write over the input"]);
        assert_kept(&m, &before);
    }
    assert_eq!(names(&dir), ["m.glb"]);
}

#[test]
fn convert_onto_itself_through_dot_dot() {
    let dir = scratch("dot-dot");
    std::fs::create_dir(dir.join("sub")).unwrap();
    let m = sample_as("mdl", &dir, "m.glb");
    let before = std::fs::read(&m).unwrap();
    let out = dir.join("sub").join("..").join("m.glb");
    let o = idmodel(&[&"convert", &m, &"-o", &out]);
    assert_one_line(&o, 2, &[&s(&out), &s(&m), "the same file"]);
    assert_kept(&m, &before);
    // The same with the input named through `..`.
    let o = idmodel(&[&"convert", &out, &"-o", &m]);
    assert_one_line(&o, 2, &["the same file"]);
    assert_kept(&m, &before);
}

#[test]
fn convert_onto_itself_through_a_symlink() {
    let dir = scratch("symlink");
    let m = sample_as("mdl", &dir, "m.mdl");
    let before = std::fs::read(&m).unwrap();
    let link = dir.join("link.glb");
    std::os::unix::fs::symlink("m.mdl", &link).unwrap();
    let o = idmodel(&[&"convert", &m, &"-o", &link, &"--force"]);
    assert_one_line(&o, 2, &[&s(&link), "refusing to write over the input"]);
    assert_kept(&m, &before);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    // And the other way round: the input read through a link, the output its target.
    let real = sample_as("mdl", &dir, "real.glb");
    let alias = dir.join("alias.mdl");
    std::os::unix::fs::symlink("real.glb", &alias).unwrap();
    let o = idmodel(&[&"convert", &alias, &"-o", &real]);
    assert_one_line(&o, 2, &["refusing to write over the input"]);
    assert_kept(&real, &before);
}

#[test]
fn convert_onto_itself_through_a_hard_link() {
    let dir = scratch("hardlink");
    let m = sample_as("mdl", &dir, "m.mdl");
    let before = std::fs::read(&m).unwrap();
    let link = dir.join("out.glb");
    std::fs::hard_link(&m, &link).unwrap();
    let o = idmodel(&[&"convert", &m, &"-o", &link, &"--force"]);
    assert_one_line(&o, 2, &[&s(&link), &s(&m), "the same file"]);
    assert_kept(&m, &before);
    assert_kept(&link, &before);
}

#[test]
fn render_over_its_input_through_dot_dot_a_symlink_and_a_hard_link() {
    let dir = scratch("render-links");
    std::fs::create_dir(dir.join("sub")).unwrap();
    let m = sample_as("md2", &dir, "m.md2");
    let before = std::fs::read(&m).unwrap();
    let dotdot = dir.join("sub").join("..").join("m.md2");
    let sym = dir.join("sym.png");
    std::os::unix::fs::symlink(&m, &sym).unwrap();
    let hard = dir.join("hard.png");
    std::fs::hard_link(&m, &hard).unwrap();
    for out in [&dotdot, &sym, &hard] {
        let o = idmodel(&[&"render", &m, &"-o", out, &"--force"]);
        assert_one_line(&o, 2, &["refusing to write over the input"]);
        assert_kept(&m, &before);
    }
}

#[test]
fn an_anim_file_is_never_the_output() {
    let dir = scratch("anim-output");
    let mesh = sample_as("md5mesh", &dir, "m.md5mesh");
    // md5anim text named like the output of both commands.
    let anim = sample_as("md5anim", &dir, "walk.glb");
    let before = std::fs::read(&anim).unwrap();
    let o = idmodel(&[&"convert", &mesh, &"--anim", &anim, &"-o", &anim]);
    assert_one_line(&o, 2, &[&s(&anim), "refusing to write over the input"]);
    assert_kept(&anim, &before);
    let o = idmodel(&[
        &"render", &mesh, &"--anim", &anim, &"--frame", &"1", &"-o", &anim,
    ]);
    assert_one_line(&o, 2, &["refusing to write over the input"]);
    assert_kept(&anim, &before);
}

#[test]
fn an_md3_side_file_that_was_read_is_never_the_output() {
    // animation.cfg and the .skin are read beside an MD3: an output linked to one of
    // them is an input too.
    let dir = scratch("md3-sidecars");
    let m = sample_as("md3", &dir, "sample.md3");
    let cfg = dir.join("animation.cfg");
    let cfg_text = b"// not a real animation.cfg, still the user's\nsex m\n";
    std::fs::write(&cfg, cfg_text).unwrap();
    let skin = dir.join("sample_default.skin");
    let skin_text = b"body,models/sample/body.tga\n";
    std::fs::write(&skin, skin_text).unwrap();
    let to_cfg = dir.join("cfg.glb");
    std::os::unix::fs::symlink(&cfg, &to_cfg).unwrap();
    let to_skin = dir.join("skin.glb");
    std::fs::hard_link(&skin, &to_skin).unwrap();
    for out in [&to_cfg, &to_skin] {
        let o = idmodel(&[&"convert", &m, &"-o", out, &"--force"]);
        assert_one_line(&o, 2, &["refusing to write over the input"]);
    }
    assert_kept(&cfg, cfg_text);
    assert_kept(&skin, skin_text);
}

// ---------------------------------------------------------------------------------------
// Side files the user did not name

#[test]
fn obj_over_an_existing_mtl() {
    let dir = scratch("obj-mtl");
    let m = sample_as("mdl", &dir, "knight.mdl");
    let mtl = precious(&dir, "knight.mtl");
    let obj = dir.join("knight.obj");
    let o = idmodel(&[&"convert", &m, &"-o", &obj]);
    assert_one_line(&o, 2, &[&s(&mtl), "--force"]);
    assert_kept(&mtl, PRECIOUS);
    // Nothing was written: not the .obj, not the textures.
    assert_eq!(names(&dir), ["knight.mdl", "knight.mtl"]);
    // --force replaces it (the .obj refers to it by name).
    convert(&m, &obj, &["--force"]);
    assert!(std::fs::read_to_string(&mtl).unwrap().contains("newmtl"));
}

#[test]
fn obj_over_an_existing_texture() {
    let dir = scratch("obj-png");
    let m = sample_as("mdl", &dir, "knight.mdl");
    let png = precious(&dir, "knight_0.png");
    let o = idmodel(&[&"convert", &m, &"-o", &dir.join("knight.obj")]);
    assert_one_line(&o, 2, &[&s(&png), "refusing to replace it"]);
    assert_kept(&png, PRECIOUS);
    assert_eq!(names(&dir), ["knight.mdl", "knight_0.png"]);
}

#[test]
fn gltf_over_an_existing_bin() {
    let dir = scratch("gltf-bin");
    let m = sample_as("md2", &dir, "m.md2");
    let bin = precious(&dir, "scene.bin");
    let o = idmodel(&[&"convert", &m, &"-o", &dir.join("scene.gltf")]);
    assert_one_line(&o, 2, &[&s(&bin), "refusing to replace it"]);
    assert_kept(&bin, PRECIOUS);
    assert_eq!(names(&dir), ["m.md2", "scene.bin"]);
}

#[test]
fn a_side_file_that_is_the_input_md2_named_g_bin() {
    let dir = scratch("bin-is-input");
    let g = sample_as("md2", &dir, "g.bin");
    let before = std::fs::read(&g).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let out = dir.join("g.gltf");
        let mut a: Vec<&dyn AsRef<OsStr>> = vec![&"convert", &g, &"-o", &out];
        a.extend(extra.iter().map(|e| e as &dyn AsRef<OsStr>));
        let o = idmodel(&a);
        assert_one_line(&o, 2, &[&s(&g), "refusing to write over the input"]);
        assert_kept(&g, &before);
        assert_eq!(names(&dir), ["g.bin"]);
    }
}

#[test]
fn a_side_file_that_is_the_input_mdl_named_knight_mtl() {
    let dir = scratch("mtl-is-input");
    let k = sample_as("mdl", &dir, "knight.mtl");
    let before = std::fs::read(&k).unwrap();
    let o = idmodel(&[&"convert", &k, &"-o", &dir.join("knight.obj"), &"--force"]);
    assert_one_line(&o, 2, &["refusing to write over the input"]);
    assert_kept(&k, &before);
    assert_eq!(names(&dir), ["knight.mtl"]);
}

/// A Quake III player folder made from the sample (tags renamed so that the parts
/// attach: lower has `tag_torso`, upper `tag_head`).
fn sample_player(dir: &Path) -> PathBuf {
    let p = dir.join("player");
    std::fs::create_dir_all(&p).unwrap();
    let sample = std::fs::read(sample_file("md3")).unwrap();
    let rename = |to: &[u8; 10]| {
        let mut b = sample.clone();
        let from = b"tag_weapon";
        let mut i = 0;
        while i + from.len() <= b.len() {
            if &b[i..i + from.len()] == from {
                b[i..i + from.len()].copy_from_slice(to);
            }
            i += 1;
        }
        b
    };
    std::fs::write(p.join("lower.md3"), rename(b"tag_torso\0")).unwrap();
    std::fs::write(p.join("upper.md3"), rename(b"tag_head\0\0")).unwrap();
    std::fs::write(p.join("head.md3"), &sample).unwrap();
    p
}

#[test]
fn player_side_files_and_player_files() {
    let dir = scratch("player");
    let player = sample_player(&dir);
    // The .bin of the assembled player's .gltf is refused when it exists.
    let bin = precious(&dir, "p.bin");
    let o = idmodel(&[&"convert", &player, &"-o", &dir.join("p.gltf")]);
    assert_one_line(&o, 2, &[&s(&bin), "refusing to replace it"]);
    assert_kept(&bin, PRECIOUS);
    // A player written into a folder: the derived name is not replaced without --force.
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let derived = precious(&out, "player.glb");
    let o = idmodel(&[&"convert", &player, &"-o", &out]);
    assert_one_line(&o, 2, &[&s(&derived), "--force"]);
    assert_kept(&derived, PRECIOUS);
    convert(&player, &out, &["--force"]);
    assert_eq!(&std::fs::read(&derived).unwrap()[..4], b"glTF");
    // The player's own files are inputs.
    let head = player.join("head.md3");
    let head_bytes = std::fs::read(&head).unwrap();
    let link = dir.join("head.glb");
    std::os::unix::fs::symlink(&head, &link).unwrap();
    let o = idmodel(&[&"convert", &player, &"-o", &link, &"--force"]);
    assert_one_line(&o, 2, &["refusing to write over the input"]);
    assert_kept(&head, &head_bytes);
}

// ---------------------------------------------------------------------------------------
// Batches

#[test]
fn folder_onto_itself_keeps_an_unrelated_glb() {
    let dir = scratch("folder-self");
    let folder = dir.join("models");
    std::fs::create_dir(&folder).unwrap();
    sample_as("mdl", &folder, "a.mdl");
    sample_as("md2", &folder, "b.md2");
    let glb = precious(&folder, "a.glb");
    let o = idmodel(&[&"convert", &folder, &"-o", &folder]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(
        err.contains(&s(&glb)) && err.contains("nothing was converted"),
        "{err}"
    );
    assert_kept(&glb, PRECIOUS);
    // Nothing written: b.glb was not made either.
    assert_eq!(names(&folder), ["a.glb", "a.mdl", "b.md2"]);
    // --force replaces it, as asked.
    convert(&folder, &folder, &["--force"]);
    assert_eq!(names(&folder), ["a.glb", "a.mdl", "b.glb", "b.md2"]);
}

#[test]
fn a_batch_run_twice_needs_force() {
    let dir = scratch("batch-twice");
    let folder = dir.join("in");
    std::fs::create_dir(&folder).unwrap();
    sample_as("mdl", &folder, "a.mdl");
    let out = dir.join("out");
    convert(&folder, &out, &["--to", "gltf"]);
    // The user edits the .bin; a second run keeps it.
    let bin = precious(&out, "a.bin");
    std::fs::remove_file(out.join("a.gltf")).unwrap();
    let o = idmodel(&[&"convert", &folder, &"-o", &out, &"--to", &"gltf"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains(&s(&bin)), "{}", stderr(&o));
    assert_kept(&bin, PRECIOUS);
    // The skins are written beside the .gltf too (a_N.png), as side files like the .bin.
    assert_eq!(names(&out), ["a.bin", "a_0.png", "a_1.png"]);
    let o = idmodel(&[
        &"convert", &folder, &"-o", &out, &"--to", &"gltf", &"--force",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(names(&out), ["a.bin", "a.gltf", "a_0.png", "a_1.png"]);
}

#[test]
fn a_batch_output_linked_to_an_input() {
    let dir = scratch("batch-link");
    let folder = dir.join("in");
    std::fs::create_dir(&folder).unwrap();
    sample_as("mdl", &folder, "a.mdl");
    let b = sample_as("md2", &folder, "b.md2");
    let b_bytes = std::fs::read(&b).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&b, out.join("a.glb")).unwrap();
    let o = idmodel(&[&"convert", &folder, &"-o", &out, &"--force"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing to write over the input"));
    assert_kept(&b, &b_bytes);
    assert_eq!(names(&out), ["a.glb"]);
}

#[test]
fn two_batch_inputs_never_write_the_same_file() {
    // a.mdl and a.md2 keep their extensions (a.mdl.glb, a.md2.glb), which a.mdl.md2
    // would also write.
    let dir = scratch("batch-twice-same");
    let folder = dir.join("in");
    std::fs::create_dir(&folder).unwrap();
    sample_as("mdl", &folder, "a.mdl");
    sample_as("md2", &folder, "a.md2");
    sample_as("md2", &folder, "a.mdl.md2");
    let out = dir.join("out");
    let o = idmodel(&[&"convert", &folder, &"-o", &out, &"--force"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    common::assert_contains(&stderr(&o), "two inputs would write");
    assert!(!out.exists());
}

// ---------------------------------------------------------------------------------------
// Read-only outputs (the tests usually run as root, where access(2) would allow it)

#[test]
fn a_read_only_output_is_kept_even_as_root() {
    let dir = scratch("read-only");
    let m = sample_as("mdl", &dir, "m.mdl");
    for (cmd, name) in [("convert", "out.glb"), ("render", "out.png")] {
        let out = precious(&dir, name);
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
        let o = idmodel(&[&cmd, &m, &"-o", &out]);
        assert_one_line(&o, 2, &[&s(&out), "read-only", "--force"]);
        assert_kept(&out, PRECIOUS);
        let o = idmodel(&[&cmd, &m, &"-o", &out, &"--force"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_ne!(std::fs::read(&out).unwrap(), PRECIOUS);
        // Still read-only: the mode of the replaced file is kept.
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444, "{cmd}");
    }
}

#[test]
fn the_named_output_is_replaced_atomically_and_no_temporary_file_is_left() {
    let dir = scratch("replace");
    let m = sample_as("mdl", &dir, "m.mdl");
    let out = precious(&dir, "m.glb");
    convert(&m, &out, &[]);
    assert_eq!(&std::fs::read(&out).unwrap()[..4], b"glTF");
    let png = precious(&dir, "m.png");
    let o = idmodel(&[&"render", &m, &"-o", &png, &"--size", &"32x32"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    // A named output reached through a symbolic link: the link stays, its target is
    // replaced.
    let target = precious(&dir, "target.glb");
    let link = dir.join("link.glb");
    std::os::unix::fs::symlink("target.glb", &link).unwrap();
    convert(&m, &link, &[]);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(&std::fs::read(&target).unwrap()[..4], b"glTF");
    assert_eq!(
        names(&dir),
        ["link.glb", "m.glb", "m.mdl", "m.png", "target.glb"]
    );
}

/// `idmodel convert <args>` under `sh` with a file-size limit of 1 KiB (512 bytes for
/// some shells) and, when `ignore` is set, SIGXFSZ ignored (so the write fails with
/// EFBIG instead of killing the process).
fn convert_with_size_limit(args: &[&dyn AsRef<OsStr>], ignore: bool) -> Output {
    let script = if ignore {
        r#"trap '' XFSZ; ulimit -f 1; exec "$0" convert "$@""#
    } else {
        r#"ulimit -f 1; exec "$0" convert "$@""#
    };
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_idmodel"))
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap()
}

#[test]
fn an_interrupted_write_leaves_the_old_files() {
    // The write of the new .gltf + .bin pair (or .glb) fails midway: the old files must
    // be untouched, whether the process is killed (SIGXFSZ) or the write fails.
    let dir = scratch("interrupted");
    let m = sample_as("mdl", &dir, "m.mdl");
    let gltf = precious(&dir, "m.gltf");
    let bin = precious(&dir, "m.bin");
    let glb = precious(&dir, "m.glb");
    for ignore in [true, false] {
        for (out, extra) in [(&gltf, "--force"), (&glb, "--keep-axes")] {
            let o = convert_with_size_limit(&[&m, &"-o", out, &extra], ignore);
            assert!(
                !o.status.success(),
                "{}: the write should fail",
                out.display()
            );
            assert_kept(&gltf, PRECIOUS);
            assert_kept(&bin, PRECIOUS);
            assert_kept(&glb, PRECIOUS);
            if ignore {
                // It failed cleanly: exit 1, one line, the temporary files gone too.
                assert_one_line(&o, 1, &["cannot write"]);
                assert_eq!(names(&dir), ["m.bin", "m.glb", "m.gltf", "m.mdl"]);
            }
        }
    }
    // Without the limit the same command works.
    convert(&m, &gltf, &["--force"]);
    assert_ne!(std::fs::read(&bin).unwrap(), PRECIOUS);
}

// ---------------------------------------------------------------------------------------
// FIFOs and devices: a one-line error, never a hang

#[test]
fn a_fifo_named_like_a_model() {
    let dir = scratch("fifo");
    let fifo = dir.join("m.mdl");
    mkfifo(&fifo);
    let png = dir.join("m.png");
    let glb = dir.join("m.glb");
    let runs: [Vec<&dyn AsRef<OsStr>>; 4] = [
        vec![&"info", &fifo],
        vec![&"check", &fifo],
        vec![&"convert", &fifo, &"-o", &glb],
        vec![&"render", &fifo, &"-o", &png],
    ];
    for args in runs {
        let o = idmodel_within(&args);
        assert_one_line(&o, 1, &[&s(&fifo), "not a regular file (a FIFO)"]);
    }
    // As an --anim file.
    let mesh = sample_as("md5mesh", &dir, "m.md5mesh");
    let anim = dir.join("a.md5anim");
    mkfifo(&anim);
    let o = idmodel_within(&[&"convert", &mesh, &"--anim", &anim, &"-o", &glb]);
    assert_one_line(&o, 1, &[&s(&anim), "(a FIFO)"]);
    assert_eq!(names(&dir), ["a.md5anim", "m.md5mesh", "m.mdl"]);
}

#[test]
fn a_fifo_in_a_folder_is_skipped() {
    let dir = scratch("fifo-folder");
    let folder = dir.join("in");
    std::fs::create_dir(&folder).unwrap();
    sample_as("mdl", &folder, "a.mdl");
    let fifo = folder.join("b.md2");
    mkfifo(&fifo);
    let out = dir.join("out");
    let o = idmodel_within(&[&"convert", &folder, &"-o", &out]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stdout(&o).contains("converted 1 of 1"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{}: skipped: not a regular file (a FIFO)",
            s(&fifo)
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&out), ["a.glb"]);
    // A folder holding only the FIFO says why nothing was found.
    std::fs::remove_file(folder.join("a.mdl")).unwrap();
    let o = idmodel_within(&[&"convert", &folder, &"-o", &dir.join("out2")]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("no model files"), "{}", stderr(&o));
    assert!(stderr(&o).contains("skipped: not a regular file (a FIFO)"));
    assert!(!dir.join("out2").exists());
}

#[test]
fn a_fifo_as_a_players_head() {
    let dir = scratch("fifo-head");
    let player = sample_player(&dir);
    let head = player.join("head.md3");
    std::fs::remove_file(&head).unwrap();
    mkfifo(&head);
    let out = dir.join("out");
    let o = idmodel_within(&[&"convert", &player, &"-o", &out]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("(a FIFO)"), "{}", stderr(&o));
    assert!(std::fs::metadata(&head).unwrap().file_type().is_fifo());
    // info on it too.
    let o = idmodel_within(&[&"info", &head]);
    assert_one_line(&o, 1, &["not a regular file (a FIFO)"]);
}

#[test]
fn a_fifo_beside_an_md3_is_not_read() {
    // animation.cfg and the .skin are optional: a FIFO there is ignored, not waited on.
    let dir = scratch("fifo-sidecar");
    let m = sample_as("md3", &dir, "sample.md3");
    mkfifo(&dir.join("animation.cfg"));
    mkfifo(&dir.join("sample_default.skin"));
    let o = idmodel_within(&[&"info", &m]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = dir.join("m.glb");
    let o = idmodel_within(&[&"convert", &m, &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn a_fifo_as_the_output() {
    let dir = scratch("fifo-output");
    let m = sample_as("mdl", &dir, "m.mdl");
    let fifo = dir.join("out.glb");
    mkfifo(&fifo);
    for (cmd, extra) in [("convert", "--force"), ("render", "--force")] {
        let o = idmodel_within(&[&cmd, &m, &"-o", &fifo, &extra]);
        assert_one_line(&o, 2, &[&s(&fifo), "not a regular file (a FIFO)"]);
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
}

#[test]
fn devices_are_not_models_and_not_outputs() {
    let dir = scratch("devices");
    let glb = dir.join("x.glb");
    for dev in ["/dev/zero", "/dev/null"] {
        for args in [
            vec![&"info" as &dyn AsRef<OsStr>, &dev],
            vec![&"convert", &dev, &"-o", &glb],
        ] {
            let o = idmodel_within(&args);
            assert_one_line(&o, 1, &[dev, "not a regular file (a device)"]);
        }
    }
    // -o /dev/null is refused (idmodel writes only regular files; replacing the device
    // by a rename would destroy it), and /dev/null stays a device.
    let m = sample_as("mdl", &dir, "m.mdl");
    // (convert -o /dev/null is already a usage error: no .glb/.gltf/.obj extension.)
    let o = idmodel_within(&[&"convert", &m, &"-o", &"/dev/null"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = idmodel_within(&[&"render", &m, &"-o", &"/dev/null", &"--force"]);
    assert_one_line(&o, 2, &["/dev/null", "not a regular file (a device)"]);
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(!glb.exists());
}
