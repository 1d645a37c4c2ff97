//! Shared helpers for the `idmodel` binary's tests (`mod common;` in each test file):
//! running the binary, scratch folders, the samples and corpus files, the glTF
//! validator, reading `.glb` and `.png` output, and little-endian field reading.
//!
//! They live here rather than in `idmodel-test-support` because `CARGO_BIN_EXE_idmodel`
//! is only set for this crate's own tests. What is specific to one format (its scratch
//! folder name, its sample, its corpus subfolder) is a parameter, passed by a one-line
//! wrapper in the test file.
#![allow(dead_code, unused_imports)] // each test binary uses a different subset

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub use idmodel_test_support::{corpus_dir, corpus_subdir, run_validator, validator, walk, zip_of};

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

/// Standard error of a command that must have failed with exit 1 and one line; the line.
pub fn one_error_line(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(code(o), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// Whether one line of `text` contains every one of `parts`.
pub fn has_line(text: &str, parts: &[&str]) -> bool {
    text.lines().any(|l| parts.iter().all(|p| l.contains(p)))
}

/// Asserts that `text` (what a run printed) contains `needle`; the message shows the
/// whole text.
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{text}");
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

/// `idmodel render <file> -o <png> --size 200x150 <extra>...`, which must exit 0; the
/// share of the picture drawn (see [`coverage`]).
pub fn render_coverage(file: &Path, png: &Path, extra: &[&str]) -> f64 {
    let mut args: Vec<&dyn AsRef<OsStr>> =
        vec![&"render", &file, &"-o", &png, &"--size", &"200x150"];
    args.extend(extra.iter().map(|s| s as &dyn AsRef<OsStr>));
    let o = idmodel(&args);
    assert_eq!(code(&o), 0, "{}: {}", file.display(), stderr(&o));
    coverage(png, (200, 150))
}

/// `idmodel info <file>` (plain text), which must exit 0 and name `format` and each of
/// `rows`; the text.
pub fn info_plain(file: &Path, format: &str, rows: &[&str]) -> String {
    let what = file.display();
    let o = idmodel(&[&"info", &file]);
    assert_eq!(code(&o), 0, "{what}: {}", stderr(&o));
    let plain = stdout(&o);
    assert!(plain.contains(format), "{what}: no {format} in\n{plain}");
    for row in rows {
        assert!(plain.contains(row), "{what}: no {row} in\n{plain}");
    }
    plain
}

/// `idmodel convert <model> -o <out> --frame <frames>` for a model of `frames` frames:
/// exit 1, one stderr line that says the frame is out of range, and nothing written.
pub fn assert_frame_out_of_range(model: &Path, out: &Path, frames: usize) {
    let says = format!("frame {frames} is out of range: the model has {frames} frames");
    let frame = frames.to_string();
    let o = idmodel(&[&"convert", &model, &"-o", &out, &"--frame", &frame]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains(&says), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(!out.exists(), "{}", out.display());
}

/// Every `map_Kd` of the `.mtl` beside `obj` names a file written beside it (none names a
/// missing one); the `.mtl` text.
pub fn mtl_beside(obj: &Path) -> String {
    let mtl = std::fs::read_to_string(obj.with_extension("mtl")).unwrap();
    for l in mtl.lines().filter_map(|l| l.strip_prefix("map_Kd ")) {
        assert!(obj.with_file_name(l).is_file(), "{l}: {mtl}");
    }
    mtl
}

/// The keys of the JSON object `j` are exactly the words of `keys`.
pub fn assert_keys(j: &Value, keys: &str, what: &str) {
    let got: BTreeSet<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(got, keys.split_whitespace().collect(), "{what}");
}

/// An `.obj` text has `verts` of each of `v`, `vt` and `vn`, and `tris` faces.
pub fn assert_obj_counts(text: &str, verts: usize, tris: usize) {
    for tag in ["v ", "vt ", "vn "] {
        assert_eq!(count_lines(text, tag), verts, "{tag:?} lines");
    }
    assert_eq!(count_lines(text, "f "), tris, "faces");
}

/// The number of lines of `text` that start with `tag`.
pub fn count_lines(text: &str, tag: &str) -> usize {
    text.lines().filter(|l| l.starts_with(tag)).count()
}

/// `check <file>` exits 0 and ends with `ok (<engines>)`; `--engine <own>` exits 0 and
/// `--engine <foreign>` (an engine of another format) exits 2.
pub fn assert_check_ok(file: &Path, engines: &str, own: &str, foreign: &str) {
    let o = idmodel(&[&"check", &file]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let ok = format!("ok ({engines})");
    assert!(stdout(&o).trim_end().ends_with(&ok), "{}", stdout(&o));
    let o = idmodel(&[&"check", &file, &"--engine", &own]);
    assert_eq!(code(&o), 0, "{own}: {}", stderr(&o));
    let o = idmodel(&[&"check", &file, &"--engine", &foreign]);
    assert_eq!(code(&o), 2, "{foreign}: {}", stderr(&o));
}

/// For `samples/sample.<ext>` and then every `.<ext>` of the corpus (see [`corpus_of`]):
/// its `info --json` (see [`info_json`]) has exactly the words of `keys` as keys and
/// `"format": "<ext>"`; then calls `each` with the file, its bytes, that JSON and the
/// file's name for messages.
pub fn each_info(ext: &str, keys: &str, mut each: impl FnMut(&Path, &[u8], &Value, &str)) {
    let mut files = vec![sample_file(ext)];
    files.extend(corpus_of("info", ext).unwrap_or_default());
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let j = info_json(file);
        let what = file.display().to_string();
        assert_keys(&j, keys, &what);
        assert_eq!(j["format"], ext, "{what}");
        each(file, &bytes, &j, &what);
    }
}

/// Converts each `.<ext>` of `$IDMODEL_CORPUS/<ext>` no larger than `max_bytes` to
/// `<scratch>/<i>.glb` and calls `each` with the file, its bytes and the glTF JSON; then
/// validates what was written. Returns how many were converted, or `None` (with a notice
/// naming `test`) when the corpus is not set.
pub fn convert_corpus_to_glb(
    test: &str,
    ext: &str,
    max_bytes: usize,
    mut each: impl FnMut(&Path, &[u8], &Value),
) -> Option<usize> {
    let files = corpus_of(test, ext)?;
    let dir = scratch(test);
    let mut written = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).unwrap();
        if bytes.len() > max_bytes {
            continue;
        }
        let out = dir.join(format!("{i}.glb"));
        convert(file, &out, &[]);
        each(file, &bytes, &glb_json(&out));
        written.push(out);
    }
    validate(&written);
    Some(written.len())
}

/// `convert <model> -o <dir>/f<frame>.obj` for the animated base frame (Y-up) and for
/// frame 2 with `--keep-axes`; calls `each` with the frame, whether the axes are kept,
/// the `.obj` path and its text.
pub fn each_obj(model: &Path, dir: &Path, mut each: impl FnMut(Option<usize>, bool, &Path, &str)) {
    for (frame, keep) in [(None, false), (Some(2usize), true)] {
        let out = dir.join(format!("f{}.obj", frame.unwrap_or(0)));
        let text = convert_to_text(model, &out, frame, keep);
        each(frame, keep, &out, &text);
    }
}

/// `convert <model> -o <dir>/<name>.glb` and `.gltf` (with its `.bin`) for three cases:
/// `anim` (no extra arguments), `keep` (`--keep-axes`) and `frame` (the given extra
/// arguments); calls `each` with the case name, the output file and its glTF JSON; then
/// validates the files written.
pub fn each_glb_and_gltf(
    model: &Path,
    dir: &Path,
    frame: &[&str],
    mut each: impl FnMut(&str, &Path, &Value),
) {
    let mut written = Vec::new();
    for (name, extra) in [
        ("anim", &[][..]),
        ("keep", &["--keep-axes"]),
        ("frame", frame),
    ] {
        for ext in ["glb", "gltf"] {
            let out = dir.join(format!("{name}.{ext}"));
            convert(model, &out, extra);
            if ext == "gltf" {
                assert!(dir.join(format!("{name}.bin")).exists(), "{name}.bin");
            }
            each(name, &out, &scene_json(&out));
            written.push(out);
        }
    }
    validate(&written);
}

/// The morph target names of a glTF `mesh` (`extras.targetNames`) are `names`, when those
/// are ASCII (others are not compared).
pub fn assert_target_names(mesh: &Value, names: &[String], what: &str) {
    let got = strings(&mesh["extras"]["targetNames"]);
    if names.iter().all(|n| n.is_ascii()) {
        assert_eq!(got, names, "{what}");
    }
}

/// `render` of `model` at each of `frames` covers between 2 % and 90 % of the picture.
pub fn assert_frames_render(model: &Path, dir: &Path, frames: &[&str]) {
    for frame in frames {
        let png = dir.join(format!("{frame}.png"));
        let fraction = render_coverage(model, &png, &["--frame", frame]);
        assert!(
            (0.02..=0.9).contains(&fraction),
            "frame {frame}: {fraction}"
        );
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

/// A fresh, empty scratch folder for `test` of this test binary:
/// `<target tmp>/idmodel-<binary name>/<test>`.
pub fn scratch(test: &str) -> PathBuf {
    scratch_dir(concat!("idmodel-", env!("CARGO_CRATE_NAME")), test)
}

/// An MD3 player part: the example model (3 frames, frame k lifted by 2k) with its first
/// tag renamed `tag` at `origin` (identity axes), and its surfaces named as the engine
/// names them (`body`, `arm`: nothing for `check`).
pub fn part(tag: &[u8], origin: [f32; 3]) -> Vec<u8> {
    let mut m = idmodel::md3::Model::example();
    m.surfaces[1].name = b"arm".to_vec();
    for frame in &mut m.tags {
        frame[0] = idmodel::md3::TagInfo {
            name: tag.to_vec(),
            origin,
            axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        };
    }
    idmodel::md3::write(&m).unwrap()
}

/// `samples/sample.<ext>` of the workspace.
pub fn sample_file(ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../samples/sample.{ext}"))
}

/// `samples/sample.<ext>`, then the first `more` `.<ext>` files under
/// `$IDMODEL_CORPUS/<ext>` when it is set.
pub fn sample_and_corpus(test: &str, ext: &str, more: usize) -> Vec<PathBuf> {
    let mut files = vec![sample_file(ext)];
    if let Some(corpus) = corpus_of(test, ext) {
        files.extend(corpus.into_iter().take(more));
    }
    files
}

/// Every `.<ext>` under `$IDMODEL_CORPUS/<ext>`, or `None` (with a notice) when unset.
pub fn corpus_of(test: &str, ext: &str) -> Option<Vec<PathBuf>> {
    corpus_files(test, ext, &[ext])
}

/// `file`, its bytes, and what `parse` reads from them (a test's own header reader).
pub fn read_with<H>(file: PathBuf, parse: fn(&[u8]) -> H) -> (PathBuf, Vec<u8>, H) {
    let bytes = std::fs::read(&file).unwrap();
    let parsed = parse(&bytes);
    (file, bytes, parsed)
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
/// have its summary line, with 0 errors and 0 warnings. Returns false (after a notice) when Node.js or
/// the validator is missing.
pub fn validate(files: &[PathBuf]) -> bool {
    let Some(script) = validator() else {
        idmodel_test_support::skipped(
            &format!("glTF validation of {} files", files.len()),
            "node or the glTF validator is missing",
        );
        return false;
    };
    for chunk in files.chunks(40) {
        let o = run_validator(&script, chunk);
        let report = stdout(&o);
        assert!(o.status.success(), "validator:\n{report}{}", stderr(&o));
        let summaries: Vec<&str> = report
            .lines()
            .filter(|l| l.starts_with("errors: "))
            .collect();
        assert_eq!(summaries.len(), chunk.len(), "{report}");
        // Every GLB idmodel writes: 0 errors and 0 warnings.
        assert!(
            summaries
                .iter()
                .all(|l| l.starts_with("errors: 0 warnings: 0 ")),
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

/// The `name` of each element of a JSON array (materials, animations, nodes).
pub fn name_list(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect()
}

/// The parent of each glTF node that has one (from the nodes' `children`).
pub fn node_parents(j: &Value) -> BTreeMap<usize, usize> {
    let mut parent = BTreeMap::new();
    for (i, n) in j["nodes"].as_array().unwrap().iter().enumerate() {
        for c in n
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parent.insert(c.as_u64().unwrap() as usize, i);
        }
    }
    parent
}

/// The numbers of a JSON array.
pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// Bounds of `points` as (min, max), or `None` when there are none.
pub fn bounds<T: Copy + PartialOrd>(
    points: impl IntoIterator<Item = [T; 3]>,
) -> Option<([T; 3], [T; 3])> {
    points.into_iter().fold(None, |acc, p| {
        let (mut lo, mut hi) = acc.unwrap_or((p, p));
        for k in 0..3 {
            if p[k] < lo[k] {
                lo[k] = p[k];
            }
            if p[k] > hi[k] {
                hi[k] = p[k];
            }
        }
        Some((lo, hi))
    })
}

/// Whether `a` is within `tol` of `b`, relative to `|b|` (absolute below 1).
pub fn close_to(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// The JSON array `got` holds three numbers, each [`close_to`] `want`'s.
pub fn assert_close3(got: &Value, want: [f64; 3], tol: f64, what: &str) {
    let got = nums(got);
    assert_eq!(got.len(), 3, "{what}");
    for k in 0..3 {
        assert!(
            close_to(got[k], want[k], tol),
            "{what}: {got:?} != {want:?}"
        );
    }
}

/// Accessor `i` (a JSON index) of the glTF JSON `j`.
pub fn accessor<'a>(j: &'a Value, i: &Value) -> &'a Value {
    &j["accessors"][i.as_u64().unwrap() as usize]
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

/// Every file under the corpus's `mdl`, `md2`, `md3` and `md5` folders whose extension
/// (any case) is one of `exts`, sorted.
#[allow(dead_code)] // not every test binary uses every helper
pub fn corpus_models(corpus: &Path, exts: &[&str]) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = ["mdl", "md2", "md3", "md5"]
        .iter()
        .flat_map(|s| walk(&corpus.join(s)))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
        })
        .collect();
    out.sort();
    out
}
