//! Shared helpers for the `idmodel` binary's tests (`mod common;` in each test file):
//! running the binary, scratch folders, the samples and corpus files, the glTF
//! validator, reading `.glb` and `.png` output, and little-endian field reading.
//!
//! They live here rather than in `idmodel-test-support` because `CARGO_BIN_EXE_idmodel`
//! is only set for this crate's own tests. What is specific to one format (its scratch
//! folder name, its sample, its corpus subfolder) is a parameter, passed by a one-line
//! wrapper in the test file.
#![allow(dead_code)] // each test binary uses a different subset

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub use idmodel_test_support::{corpus_dir, validator, walk};

// ---------------------------------------------------------------------------------------
// Running the binary

/// Runs `idmodel` with `args` and waits for it. `RUST_BACKTRACE=1` so that a panic that
/// gets past the binary's own one-line panic hook shows where it came from.
pub fn idmodel(args: &[&dyn AsRef<OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idmodel"))
        .args(args.iter().map(|a| a.as_ref()))
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap()
}

/// The exit code (a test failure when the process was killed by a signal).
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("killed by a signal")
}

/// Standard output, lossily decoded.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error, lossily decoded.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `idmodel info <file> --json`: exit 0 and one line of JSON, parsed.
pub fn info_json(file: &Path) -> Value {
    let o = idmodel(&[&"info", &file, &"--json"]);
    assert_eq!(code(&o), 0, "{}: {}", file.display(), stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "one line of JSON: {out}");
    serde_json::from_str(&out).unwrap()
}

/// `idmodel convert <model> -o <out> <extra>...`, which must exit 0.
pub fn convert(model: &Path, out: &Path, extra: &[&str]) {
    let mut a: Vec<&dyn AsRef<OsStr>> = vec![&"convert", &model, &"-o", &out];
    a.extend(extra.iter().map(|e| e as &dyn AsRef<OsStr>));
    let o = idmodel(&a);
    assert_eq!(
        code(&o),
        0,
        "convert {} -o {}: {}",
        model.display(),
        out.display(),
        stderr(&o)
    );
}

/// [`convert`] with `--frame <frame>` and `--keep-axes` when asked; the written file's
/// text (for `.obj`).
pub fn convert_to_text(model: &Path, out: &Path, frame: Option<usize>, keep_axes: bool) -> String {
    let f = frame.map(|f| f.to_string());
    let mut extra = Vec::new();
    if let Some(f) = &f {
        extra.extend(["--frame", f.as_str()]);
    }
    if keep_axes {
        extra.push("--keep-axes");
    }
    convert(model, out, &extra);
    std::fs::read_to_string(out).unwrap()
}

/// `check`, `info --json` and `render` each refuse `file`: exit 1 and one stderr line,
/// `idmodel: ...`, that names the file and contains `why` and a byte offset, with no
/// panic text. The PNG that `render` is asked for goes in `dir` (it is never written).
pub fn assert_refused_with_offset(dir: &Path, file: &Path, why: &str) {
    for args in [vec!["check"], vec!["info", "--json"], vec!["render", "-o"]] {
        let png = dir.join("x.png");
        let mut a: Vec<&dyn AsRef<OsStr>> = args.iter().map(|s| s as _).collect();
        a.insert(1, &file);
        if args[0] == "render" {
            a.push(&png);
        }
        let o = idmodel(&a);
        let err = stderr(&o);
        assert_eq!(code(&o), 1, "{args:?} {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("idmodel: "), "{err}");
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(err.contains(why) && err.contains("(at byte "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

// ---------------------------------------------------------------------------------------
// Files

/// A fresh, empty scratch folder `<target tmp>/<group>/<test>`.
pub fn scratch_dir(group: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `samples/sample.<ext>` of the workspace.
pub fn sample_file(ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../samples/sample.{ext}"))
}

/// `$IDMODEL_CORPUS/<sub>`, or `None` (with a notice naming `test`) when unset.
pub fn corpus_subdir(test: &str, sub: &str) -> Option<PathBuf> {
    corpus_dir(test).map(|dir| dir.join(sub))
}

/// Every file under `$IDMODEL_CORPUS/<sub>` whose extension is one of `exts` (ASCII case
/// ignored), sorted; `None` (with a notice) when unset. There must be at least one.
pub fn corpus_files(test: &str, sub: &str, exts: &[&str]) -> Option<Vec<PathBuf>> {
    let dir = corpus_subdir(test, sub)?;
    let files: Vec<PathBuf> = walk(&dir)
        .into_iter()
        .filter(|p| {
            p.extension()
                .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
        })
        .collect();
    assert!(
        !files.is_empty(),
        "no {exts:?} files under {}",
        dir.display()
    );
    Some(files)
}

// ---------------------------------------------------------------------------------------
// Checking output

/// Validates `files` with the Khronos validator, 40 to a run of `node`: every file must
/// have its summary line, with 0 errors. Returns false (after a notice) when Node.js or
/// the validator is missing.
pub fn validate(files: &[PathBuf]) -> bool {
    let Some(script) = validator() else {
        eprintln!(
            "notice: node or the glTF validator is missing; {} files not validated",
            files.len()
        );
        return false;
    };
    for chunk in files.chunks(40) {
        let o = Command::new("node")
            .arg(&script)
            .args(chunk)
            .output()
            .unwrap();
        let report = stdout(&o);
        assert!(o.status.success(), "validator:\n{report}{}", stderr(&o));
        let summaries: Vec<&str> = report
            .lines()
            .filter(|l| l.starts_with("errors: "))
            .collect();
        assert_eq!(summaries.len(), chunk.len(), "{report}");
        assert!(
            summaries.iter().all(|l| l.starts_with("errors: 0 ")),
            "{report}"
        );
    }
    true
}

/// The JSON chunk of a `.glb` (header and chunk type checked) and where it ends.
fn glb_json_chunk(b: &[u8]) -> (Value, usize) {
    assert_eq!(&b[..4], b"glTF");
    let len = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    assert_eq!(&b[16..20], b"JSON");
    (serde_json::from_slice(&b[20..20 + len]).unwrap(), 20 + len)
}

/// The JSON chunk of a `.glb`.
pub fn glb_json(path: &Path) -> Value {
    glb_json_chunk(&std::fs::read(path).unwrap()).0
}

/// The glTF JSON of a converted scene: the JSON chunk of a `.glb`, or a whole `.gltf`.
pub fn scene_json(path: &Path) -> Value {
    if path.extension().is_some_and(|e| e == "glb") {
        glb_json(path)
    } else {
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }
}

/// The JSON and binary chunks of a `.glb` (an empty binary chunk when there is none).
pub fn glb(path: &Path) -> (Value, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    let (json, at) = glb_json_chunk(&b);
    let bin = if b.len() > at + 8 {
        let blen = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        assert_eq!(&b[at + 4..at + 8], b"BIN\0");
        b[at + 8..at + 8 + blen].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// The share of pixels of an RGBA8 PNG of `size` that are not the default background.
pub fn coverage(png_path: &Path, size: (u32, u32)) -> f64 {
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(png_path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), size);
    let bg = [0x30, 0x30, 0x38];
    let px = (size.0 * size.1) as usize;
    let covered = buf.chunks(4).take(px).filter(|p| p[..3] != bg).count();
    covered as f64 / px as f64
}

/// The strings of a JSON array.
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// The `v x y z` positions of an `.obj` text.
pub fn obj_vertices(text: &str) -> Vec<[f32; 3]> {
    text.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// The numbers of a JSON array.
pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Reading model files independently of idmodel: little-endian fields

/// The little-endian `i32` at byte `at`.
pub fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The little-endian `i16` at byte `at`.
pub fn i16_at(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

/// The little-endian `f32` at byte `at`.
pub fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The NUL-terminated (or `len`-byte) name field of `len` bytes at byte `at`.
pub fn name_at(b: &[u8], at: usize, len: usize) -> String {
    let field = &b[at..at + len];
    let end = field.iter().position(|&c| c == 0).unwrap_or(len);
    String::from_utf8_lossy(&field[..end]).into_owned()
}
