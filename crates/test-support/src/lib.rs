//! # idmodel-test-support
//!
//! Helpers shared by the tests of the idmodel workspace, and by nothing else: finding
//! the real-file corpus (`$IDMODEL_CORPUS`; a test without it prints a `skipped:` line
//! that `cargo test` shows, and fails when `IDMODEL_REQUIRE_CORPUS=1`, as in CI),
//! listing its files, finding the Khronos glTF validator (Node.js and the npm
//! `gltf-validator` package, see `crates/gltf/tests/validate.mjs`), and the one
//! little-endian byte builder every format's fixtures are written with ([`LeBuffer`],
//! after read-fonts' `BeBuffer`). It uses `std`, is a dev-dependency only and is never
//! published. Each test crate re-exports it from its `tests/common/mod.rs`, so the tests
//! call `common::corpus_dir(..)` as before.

use std::path::{Path, PathBuf};
use std::process::Command;

mod index_range;
mod le_buffer;

pub use index_range::check_index_range_test;
pub use le_buffer::{LeBuffer, LeScalar, patch, patch_bytes};

/// The corpus directory from `$IDMODEL_CORPUS`, or `None` (with a printed notice) when
/// the variable is unset. `.ci/run` sets it to the shared corpus beside the repository.
///
/// # Panics
///
/// When `$IDMODEL_CORPUS` is set but is not a directory.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("IDMODEL_CORPUS") {
        Some(dir) if !dir.is_empty() => {
            // A relative path is the workspace root's (cargo runs each crate's tests in
            // that crate's folder): a path relative to the workspace works in every crate.
            let dir = PathBuf::from(dir);
            let dir = if dir.is_relative() {
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../..")
                    .join(dir)
            } else {
                dir
            };
            assert!(
                dir.is_dir(),
                "IDMODEL_CORPUS={} is not a directory",
                dir.display()
            );
            Some(dir)
        }
        _ => {
            assert!(
                std::env::var_os("IDMODEL_REQUIRE_CORPUS").is_none_or(|v| v != "1"),
                "IDMODEL_REQUIRE_CORPUS=1 but IDMODEL_CORPUS is not set: `{test}` cannot run"
            );
            skipped(test, "IDMODEL_CORPUS is not set");
            None
        }
    }
}

/// Says that `what` was skipped and `why`, on a line `cargo test` shows: written to the
/// process's stderr directly, as the test harness captures only `print!`-style output
/// (a notice through `eprintln!` vanishes when the test passes). `grep -c '^skipped:'` of
/// a test run counts them.
pub fn skipped(what: &str, why: &str) {
    use core::sync::atomic::{AtomicUsize, Ordering};
    use std::io::Write as _;
    static SKIPPED: AtomicUsize = AtomicUsize::new(0);
    let n = SKIPPED.fetch_add(1, Ordering::Relaxed).saturating_add(1);
    let _ = writeln!(
        std::io::stderr().lock(),
        "skipped: {what} ({why}; {n} skipped so far in this test binary)"
    );
}

/// The rows of a whitespace-separated table of expected values kept beside a test (a
/// `.txt` file read with `include_str!`): each line that is not blank or a `#` comment,
/// split into words.
///
/// # Panics
///
/// When a row does not have `columns` words (the message names `name` and the row).
pub fn table_rows<'a>(name: &str, text: &'a str, columns: usize) -> Vec<Vec<&'a str>> {
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    for row in &rows {
        assert!(
            row.len() == columns,
            "{name}: {} words, not {columns}: {row:?}",
            row.len()
        );
    }
    rows
}

/// A list cell of such a table: comma-separated values, or `-` for none.
///
/// # Panics
///
/// When a value does not parse as a `T`.
#[allow(clippy::unwrap_used)] // tests only: a bad table is a failed test
pub fn list_cell<T: core::str::FromStr>(cell: &str) -> Vec<T>
where
    T::Err: core::fmt::Debug,
{
    if cell == "-" {
        return Vec::new();
    }
    cell.split(',').map(|v| v.parse().unwrap()).collect()
}

/// A fresh, empty scratch folder in the system's temporary folder (named for the test and
/// the process), removed with everything in it when dropped, so test runs leave nothing
/// behind. It derefs to its [`Path`].
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates `idmodel-<name>-<pid>` in the temporary folder, emptied first.
    ///
    /// # Panics
    ///
    /// When the folder cannot be created.
    #[allow(clippy::unwrap_used)] // tests only: no scratch folder is a failed test
    pub fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("idmodel-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Self(d)
    }
}

impl core::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every regular file under `dir` (recursively, sorted), symlinks included as files.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `$IDMODEL_CORPUS/<sub>`, or `None` (with a printed notice naming `test`) when the
/// variable is unset.
pub fn corpus_subdir(test: &str, sub: &str) -> Option<PathBuf> {
    corpus_dir(test).map(|dir| dir.join(sub))
}

/// The files under `$IDMODEL_CORPUS/<sub>` whose extension is `ext` (ASCII case ignored),
/// sorted; `None` (with a printed notice naming `test`) when the variable is unset.
pub fn corpus_ext_files(test: &str, sub: &str, ext: &str) -> Option<Vec<PathBuf>> {
    corpus_dir(test).map(|dir| files_with_ext(&dir.join(sub), ext))
}

/// The bytes of the corpus file `$IDMODEL_CORPUS/<rel>`, or `None` (with a printed notice
/// naming `test`) when the variable is unset.
///
/// # Panics
///
/// When the file cannot be read.
#[allow(clippy::unwrap_used)] // tests only: an unreadable corpus file is a failed test
pub fn corpus_file(test: &str, rel: &str) -> Option<Vec<u8>> {
    corpus_dir(test).map(|dir| std::fs::read(dir.join(rel)).unwrap())
}

/// The corpus directory (as [`corpus_dir`]), after asserting that `<sub>` holds exactly
/// `count` files with extension `ext`: the files the calling test's table lists.
///
/// # Panics
///
/// When the count differs.
pub fn corpus_listed(test: &str, sub: &str, ext: &str, count: usize) -> Option<PathBuf> {
    let dir = corpus_dir(test)?;
    let files = files_with_ext(&dir.join(sub), ext);
    assert_eq!(
        files.len(),
        count,
        "corpus .{ext} files under {sub} changed: {files:?}"
    );
    Some(dir)
}

/// [`corpus_ext_files`] read: each file and its bytes; there must be at least one.
///
/// # Panics
///
/// When there is none, or one cannot be read.
#[allow(clippy::unwrap_used)] // tests only: an unreadable corpus file is a failed test
pub fn corpus_bytes(test: &str, sub: &str, ext: &str) -> Option<Vec<(PathBuf, Vec<u8>)>> {
    let files = corpus_ext_files(test, sub, ext)?;
    assert!(!files.is_empty(), "no .{ext} under {sub}");
    Some(
        files
            .into_iter()
            .map(|f| (f.clone(), std::fs::read(f).unwrap()))
            .collect(),
    )
}

/// Calls `check` with each `.<ext>` file under `$IDMODEL_CORPUS/<sub>` (its path and
/// bytes); `check` gives `None` for a file it does not check (one that does not parse).
/// At least one must be checked. Nothing (after a notice naming `test`) when the variable
/// is unset.
///
/// # Panics
///
/// When no file is checked, or one cannot be read.
pub fn each_checked(
    test: &str,
    sub: &str,
    ext: &str,
    mut check: impl FnMut(&Path, &[u8]) -> Option<()>,
) {
    let Some(files) = corpus_bytes(test, sub, ext) else {
        return;
    };
    let checked = files.iter().filter_map(|(p, b)| check(p, b)).count();
    assert!(checked > 0, "no .{ext} under {sub} was checked");
}

/// Files under `dir` whose extension matches `ext` case-insensitively.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
        })
        .collect()
}

/// A zip archive (a `.pk3` or `.pk4`) of `files`, `(entry name, bytes)`, deflated.
///
/// # Panics
///
/// When the `zip` crate fails to write to memory.
#[allow(clippy::unwrap_used)] // tests only: a failed write is a failed test
pub fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write as _;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (name, bytes) in files {
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The rotation matrix (rows) of the unit quaternion `[x, y, z, w]`: `R · v` turns `v`
/// as `q · v · q⁻¹` does. Computed here in `f64`, apart from the library's maths, for
/// tests to compare against.
pub fn rotation_matrix([x, y, z, w]: [f64; 4]) -> [[f64; 3]; 3] {
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// The workspace's validator script, `crates/gltf/tests/validate.mjs` (run it with
/// `node`; it prints one `errors: N ...` summary line per file).
pub fn validator_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gltf/tests/validate.mjs")
}

/// The npm `gltf-validator` package folder: `$IDMODEL_GLTF_VALIDATOR`, else
/// `<workspace>/.validator/node_modules/gltf-validator` (where `.ci/run` installs it).
pub fn validator_package() -> PathBuf {
    std::env::var_os("IDMODEL_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../.validator/node_modules/gltf-validator")
        })
}

/// Whether `node --version` runs and succeeds.
pub fn has_node() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The validator script when Node.js and the validator package are both present, or
/// `None` (the caller skips validation with a notice).
pub fn validator() -> Option<PathBuf> {
    let installed = validator_package();
    (has_node() && installed.exists()).then(validator_script)
}

/// The committed sample `samples/<name>` (at the workspace root), asserted to be
/// `bytes`, the writer's output; with `IDMODEL_BLESS=1` in the environment it is written
/// first (regenerated).
///
/// # Panics
///
/// When the file cannot be read (or, blessing, written), or differs from `bytes`.
#[allow(clippy::unwrap_used, clippy::panic)] // tests only: an unwritable sample is a failed test
pub fn assert_sample(name: &str, bytes: &[u8]) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    if std::env::var_os("IDMODEL_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with IDMODEL_BLESS=1)", path.display()));
    assert!(
        committed == bytes,
        "samples/{name} differs from the writer's output (run with IDMODEL_BLESS=1)"
    );
    committed
}

/// A `cells` × `cells` grid of quads over `(cells + 1)²` vertices numbered row by row:
/// each vertex's texture coordinate `(x / cells, y / cells)`, and two triangles a cell.
// Tests only, on small grids: the casts are exact and the arithmetic cannot overflow.
#[allow(
    clippy::as_conversions,
    clippy::cast_precision_loss,
    clippy::arithmetic_side_effects
)]
pub fn grid(cells: u32) -> (Vec<[f32; 2]>, Vec<[u32; 3]>) {
    let n = cells + 1;
    let side = cells as f32;
    let st = (0..n * n)
        .map(|i| [(i % n) as f32 / side, (i / n) as f32 / side])
        .collect();
    let triangles = (0..cells)
        .flat_map(|y| (0..cells).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let a = y * n + x;
            [[a, a + n, a + 1], [a + 1, a + n, a + n + 1]]
        })
        .collect();
    (st, triangles)
}

/// A unit cube's vertex attributes and triangles, as [`cube`] builds them.
#[derive(Debug, Default)]
pub struct Cube {
    /// Four corners a face, `n ± u ± v` of its normal `n` and axes `u`, `v`.
    pub positions: Vec<[f32; 3]>,
    /// The face normal at each corner.
    pub normals: Vec<[f32; 3]>,
    /// The corner's place on its face, from (0, 1) to (1, 0).
    pub uvs: Vec<[f32; 2]>,
    /// Two triangles a face, clockwise seen from outside (the id formats' order).
    pub indices: Vec<u32>,
}

/// A unit cube (file axes) with per-face normals and UVs, clockwise front faces as in the
/// id formats.
// Tests only: 24 corners, so the arithmetic cannot overflow.
#[allow(clippy::arithmetic_side_effects)]
pub fn cube() -> Cube {
    let mut c = Cube::default();
    // (normal, u axis, v axis) per face; corners = n + ±u + ±v.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
    ];
    let mut base = 0u32;
    for (n, u, v) in faces {
        let ([nx, ny, nz], [ux, uy, uz], [vx, vy, vz]) = (n, u, v);
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            c.positions.push([
                nx + su * ux + sv * vx,
                ny + su * uy + sv * vy,
                nz + su * uz + sv * vz,
            ]);
            c.normals.push(n);
            c.uvs.push([(su + 1.0) / 2.0, (1.0 - sv) / 2.0]);
        }
        // u × v = n, so (0, 1, 2) is counter-clockwise seen from outside; id files
        // store the clockwise order.
        c.indices
            .extend([base, base + 2, base + 1, base, base + 3, base + 2]);
        base += 4;
    }
    c
}

/// Overwrites bytes of `bytes`, as a mutation test does: each edit `(at, value)` sets the
/// byte at `at` modulo the length to `value` (nothing when `bytes` is empty).
pub fn overwrite(bytes: &mut [u8], edits: &[(usize, u8)]) {
    let len = bytes.len();
    for &(at, value) in edits {
        if let Some(b) = at.checked_rem(len).and_then(|i| bytes.get_mut(i)) {
            *b = value;
        }
    }
}

/// Runs the validator `script` (from [`validator`]) with `node` on `files`, and waits.
///
/// # Panics
///
/// When `node` cannot be started.
#[allow(clippy::unwrap_used)] // tests only: a validator that does not start is a failed test
pub fn run_validator<P: AsRef<std::ffi::OsStr>>(
    script: &Path,
    files: &[P],
) -> std::process::Output {
    Command::new("node")
        .arg(script)
        .args(files)
        .output()
        .unwrap()
}

/// The files of a Quake III player folder with its default skin, in the order the way
/// back writes them: the three parts, `animation.cfg`, the three `.skin` files.
pub const PLAYER_FILES: [&str; 7] = [
    "lower.md3",
    "upper.md3",
    "head.md3",
    "animation.cfg",
    "lower_default.skin",
    "upper_default.skin",
    "head_default.skin",
];

/// The Quake III player folders under `dir` (each directly holding `lower.md3`,
/// `upper.md3` and `head.md3`; none under a `malformed` folder), sorted.
pub fn player_folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "lower.md3"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| d.join("upper.md3").is_file() && d.join("head.md3").is_file())
        .filter(|d| !d.to_string_lossy().contains("malformed"))
        .collect();
    out.sort();
    out
}
