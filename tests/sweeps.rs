//! Deterministic mutation sweeps over every sample and corpus model.
//!
//! For each file: truncation at every block boundary the format has (binary: every header,
//! group, frame, surface and lump edge; text: every `{`, `}` and line end) and at 256
//! evenly spaced lengths, then at least 1000 seeded mutations (bit flips, 0x00/0xFF/0x7F
//! fills of header fields, counts set to -1, 0 and 2^31-1; in text, numbers replaced by
//! those values and bytes overwritten). Every input either parses, and is then walked by
//! the same code the fuzz targets run (every accessor, every frame decoded), or returns an
//! error whose byte offset lies inside the input (or line:column inside the text). Nothing
//! may panic.
//!
//! Corpus files come from `$IDMODEL_CORPUS` (skipped with a notice when unset); the
//! `samples/` files always run. Cost: every mutated input of a file up to `FULL_WALK`
//! bytes (`FULL_WALK_TEXT` for text) is walked in full; for larger files each input is parsed and its error checked,
//! and the full walk runs on every 16th truncation and mutant (the parse,
//! which is where hostile counts are refused, still sees every input). Set
//! `IDMODEL_SWEEP_FULL=1` to walk every input of every file.
// Tests may index, cast and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

mod common;

// The walkers are the fuzz targets' own bodies, so the sweep and the fuzzer check the same
// invariants. That file is harness code (asserts, indexing, casts) like this one.
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::as_conversions,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    dead_code,
    unused_imports,
    unexpected_cfgs // the fuzz crate's `cli` feature, which this package does not have
)]
#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};
use std::time::Instant;

const SEED: u64 = 0x1d_0de1_5eed;
const EVEN_CUTS: usize = 256;
const MUTATIONS: usize = 1000;
const FULL_WALK: usize = 64 * 1024;
/// The md5mesh walk (two lexer passes, two parses, owned model, Doom tangents) is the
/// costliest: text files walk in full only up to this size.
const FULL_WALK_TEXT: usize = 16 * 1024;
/// Files larger than this are swept by the `#[ignore]`d `sweep_large_files` (run it in
/// release: `cargo test --release --test sweeps -- --ignored`), keeping the default sweep
/// within about a minute at the test profile's opt-level 1.
const LARGE: u64 = 256 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mdl,
    Md2,
    Md3,
    Md5Mesh,
    Md5Anim,
    Md5Camera,
    Skin,
    AnimCfg,
}

impl Kind {
    fn of(path: &Path) -> Option<Kind> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let ext = name.rsplit('.').next()?;
        Some(match ext {
            "mdl" => Kind::Mdl,
            "md2" => Kind::Md2,
            "md3" => Kind::Md3,
            "md5mesh" => Kind::Md5Mesh,
            "md5anim" => Kind::Md5Anim,
            "md5camera" => Kind::Md5Camera,
            "skin" => Kind::Skin,
            "cfg" if name.contains("animation") => Kind::AnimCfg,
            _ => return None,
        })
    }

    fn is_text(self) -> bool {
        matches!(
            self,
            Kind::Md5Mesh | Kind::Md5Anim | Kind::Md5Camera | Kind::Skin | Kind::AnimCfg
        )
    }
}

/// xorshift64*: small, seeded, good enough to pick positions and values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn rd_i32(d: &[u8], at: usize) -> Option<i64> {
    let b = d.get(at..at.checked_add(4)?)?;
    Some(i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
}

fn push_rel(out: &mut Vec<usize>, base: usize, rel: i64, len: usize) {
    if rel >= 0 {
        let at = base.saturating_add(rel as usize);
        if at <= len {
            out.push(at);
        }
    }
}

/// Byte offsets of the 4-byte header fields (main header, MD3 surface headers, MDL group
/// headers) that mutations fill or set to hostile counts.
fn header_fields(kind: Kind, d: &[u8]) -> Vec<usize> {
    match kind {
        Kind::Mdl => (0..84).step_by(4).collect(),
        Kind::Md2 => (0..68).step_by(4).collect(),
        Kind::Md3 => {
            let mut f: Vec<usize> = [0, 4].into_iter().chain((72..108).step_by(4)).collect();
            for s in md3_surfaces(d) {
                f.push(s);
                f.extend((68..108).step_by(4).map(|o| s + o));
            }
            f
        }
        _ => Vec::new(),
    }
}

/// Starts of the MD3 surfaces, following each surface's `ofsEnd` (at most 256).
fn md3_surfaces(d: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let (Some(n), Some(mut at)) = (rd_i32(d, 84), rd_i32(d, 100)) else {
        return out;
    };
    for _ in 0..n.clamp(0, 256) {
        if at < 0 || at as usize + 108 > d.len() {
            break;
        }
        out.push(at as usize);
        match rd_i32(d, at as usize + 104) {
            Some(e) if e > 0 => at += e,
            _ => break,
        }
    }
    out
}

/// Every block edge the format has, as lengths to truncate at.
fn boundaries(kind: Kind, d: &[u8]) -> Vec<usize> {
    let len = d.len();
    let mut b = Vec::new();
    match kind {
        Kind::Mdl => {
            b.push(84);
            let g = |at| rd_i32(d, at).unwrap_or(0).max(0) as usize;
            let (skins, w, h, verts, tris, frames) = (g(48), g(52), g(56), g(60), g(64), g(68));
            let img = w.saturating_mul(h);
            let mut at = 84usize;
            for _ in 0..skins.min(256) {
                b.push(at + 4);
                if g(at) == 0 {
                    at = at.saturating_add(4 + img);
                } else {
                    let n = g(at + 4).min(1024);
                    b.push(at + 8);
                    b.push(at + 8 + 4 * n);
                    at = at
                        .saturating_add(8 + 4 * n)
                        .saturating_add(n.saturating_mul(img));
                }
                b.push(at);
                if at > len {
                    break;
                }
            }
            at = at.saturating_add(verts.saturating_mul(12));
            b.push(at);
            at = at.saturating_add(tris.saturating_mul(16));
            b.push(at);
            let pose = 24usize.saturating_add(verts.saturating_mul(4));
            for _ in 0..frames.min(4096) {
                if at >= len {
                    break;
                }
                if g(at) == 0 {
                    b.push(at + 4);
                    at = at.saturating_add(4 + pose);
                } else {
                    let n = g(at + 4).min(4096);
                    b.extend([at + 8, at + 16, at + 16 + 4 * n]);
                    at = at.saturating_add(16 + 4 * n);
                    for _ in 0..n {
                        at = at.saturating_add(pose);
                        b.push(at);
                    }
                }
                b.push(at);
            }
        }
        Kind::Md2 => {
            b.push(68);
            let g = |i: usize| rd_i32(d, 4 * i).unwrap_or(0);
            let framesize = g(4);
            // (count field, offset field, element size)
            for (c, o, size) in [
                (5, 11, 64),
                (7, 12, 4),
                (8, 13, 12),
                (10, 15, 4),
                (9, 14, framesize),
            ] {
                push_rel(&mut b, 0, g(o), len);
                let n = g(c).clamp(0, 1 << 16);
                if c == 9 {
                    for i in 1..=n {
                        push_rel(&mut b, 0, g(o) + i * size, len);
                    }
                } else {
                    push_rel(&mut b, 0, g(o) + n * size, len);
                }
            }
            push_rel(&mut b, 0, g(16), len);
        }
        Kind::Md3 => {
            b.push(108);
            let g = |at| rd_i32(d, at).unwrap_or(0);
            let frames = g(76).clamp(0, 1 << 16);
            for i in 0..=frames {
                push_rel(&mut b, 0, g(92) + 56 * i, len);
            }
            let tags = g(80).clamp(0, 1 << 20);
            for i in 0..=frames.min(1024) {
                push_rel(&mut b, 0, g(96) + 112 * tags * i, len);
            }
            push_rel(&mut b, 0, g(104), len);
            for s in md3_surfaces(d) {
                b.extend([s, s + 108]);
                for f in [88, 92, 96, 100, 104] {
                    push_rel(&mut b, s, g(s + f), len);
                }
                let nv = g(s + 80).clamp(0, 1 << 20);
                for i in 0..=g(s + 72).clamp(0, 1024) {
                    push_rel(&mut b, s, g(s + 100) + 8 * nv * i, len);
                }
                push_rel(&mut b, s, g(s + 88) + 12 * g(s + 84).clamp(0, 1 << 20), len);
                push_rel(&mut b, s, g(s + 96) + 8 * nv, len);
                push_rel(&mut b, s, g(s + 92) + 68 * g(s + 76).clamp(0, 1 << 16), len);
            }
        }
        _ => {
            for (i, &c) in d.iter().enumerate() {
                if c == b'{'
                    || c == b'}'
                    || (c == b'\n' && (d.len() < 64 * 1024 || kind == Kind::Skin))
                {
                    b.extend([i, i + 1]);
                }
            }
        }
    }
    b.retain(|&x| x < len);
    b.sort_unstable();
    b.dedup();
    b
}

/// Parses `d` as `kind`; on error, checks that the error points inside the input.
/// Returns whether it parsed.
fn parse_checked(kind: Kind, d: &[u8], what: &dyn Fn() -> String) -> bool {
    let inside = |off: u64| {
        assert!(
            off <= d.len() as u64,
            "{}: error offset {off} past the end of a {}-byte input",
            what(),
            d.len()
        );
    };
    let text_pos = |line: u32, col: u32| {
        let lines = d.iter().filter(|&&c| c == b'\n').count() as u64 + 1;
        assert!(
            u64::from(line) >= 1 && u64::from(line) <= lines && col >= 1,
            "{}: error at line {line} column {col} outside {lines} lines",
            what()
        );
        if u64::from(col) > d.len() as u64 + 1 {
            panic!("{}: column {col} past the end", what());
        }
    };
    let md5 = |e: idmodel::md5::Md5Error| {
        inside(e.offset() as u64);
        text_pos(e.line(), e.column());
        assert_eq!(
            idmodel::md5::error::line_column(d, e.offset()),
            (e.line(), e.column()),
            "{}: line:column does not match the offset",
            what()
        );
    };
    match kind {
        Kind::Mdl => idmodel::mdl::Mdl::parse(d)
            .map_err(|e| inside(e.offset()))
            .is_ok(),
        Kind::Md2 => idmodel::md2::Md2::parse(d)
            .map_err(|e| inside(e.offset()))
            .is_ok(),
        Kind::Md3 => idmodel::md3::Md3::parse(d)
            .map_err(|e| inside(e.offset()))
            .is_ok(),
        Kind::Md5Mesh => idmodel::md5::mesh::parse(d).map_err(md5).is_ok(),
        Kind::Md5Anim => idmodel::md5::anim::parse(d).map_err(md5).is_ok(),
        Kind::Md5Camera => idmodel::md5::camera::parse(d).map_err(md5).is_ok(),
        Kind::Skin => idmodel::md3::Skin::parse(d)
            .map_err(|e| text_pos(e.line, e.column))
            .is_ok(),
        Kind::AnimCfg => idmodel::md3::AnimationCfg::parse(d)
            .map_err(|e| text_pos(e.line, e.column))
            .is_ok(),
    }
}

/// The fuzz target's parse-and-walk body for `kind`.
fn walk(kind: Kind, d: &[u8]) {
    match kind {
        Kind::Mdl => targets::mdl::run(d),
        Kind::Md2 => targets::md2::run(d),
        Kind::Md3 => targets::md3::run(d),
        Kind::Md5Mesh => targets::md5mesh::run(d),
        Kind::Md5Anim => targets::md5anim::run(d),
        Kind::Md5Camera => targets::md5camera::run(d),
        Kind::Skin => targets::md3_skin::run(d),
        Kind::AnimCfg => targets::md3_animcfg::run(d),
    }
}

/// Positions of ASCII numbers in a text file (start, end), for count mutations.
fn numbers(d: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < d.len() {
        if d[i].is_ascii_digit() && (i == 0 || !d[i - 1].is_ascii_alphanumeric()) {
            let s = if i > 0 && d[i - 1] == b'-' { i - 1 } else { i };
            let mut e = i;
            while e < d.len() && (d[e].is_ascii_digit() || d[e] == b'.') {
                e += 1;
            }
            out.push((s, e));
            i = e;
        } else {
            i += 1;
        }
    }
    out
}

const HOSTILE: [i32; 3] = [-1, 0, i32::MAX];

fn mutate(
    kind: Kind,
    orig: &[u8],
    fields: &[usize],
    nums: &[(usize, usize)],
    rng: &mut Rng,
) -> (Vec<u8>, String) {
    let mut d = orig.to_vec();
    let len = d.len();
    if len == 0 {
        return (d, "empty".into());
    }
    let choice = rng.below(if kind.is_text() { 5 } else { 6 });
    let desc;
    match choice {
        // A bit flip anywhere, or (half the time) in the first 512 bytes where the headers are.
        0 | 1 => {
            let span = if choice == 0 { len } else { len.min(512) };
            let at = rng.below(span);
            let bit = rng.below(8);
            d[at] ^= 1 << bit;
            desc = format!("bit {bit} of byte {at} flipped");
        }
        // Fill a header field (binary) or a short run (text) with 0x00, 0xFF or 0x7F.
        2 => {
            let fill = [0x00, 0xFF, 0x7F][rng.below(3)];
            let (at, n) = if kind.is_text() || fields.is_empty() {
                (rng.below(len), 1 + rng.below(4))
            } else {
                (fields[rng.below(fields.len())], 4)
            };
            for b in d.iter_mut().skip(at).take(n) {
                *b = fill;
            }
            desc = format!("{n} bytes at {at} filled with {fill:#04x}");
        }
        // A count set to -1, 0 or 2^31-1.
        3 | 5 => {
            let v = HOSTILE[rng.below(3)];
            if kind.is_text() {
                if nums.is_empty() {
                    return (d, "no number".into());
                }
                let (s, e) = nums[rng.below(nums.len())];
                let mut out = d[..s].to_vec();
                out.extend_from_slice(v.to_string().as_bytes());
                out.extend_from_slice(&d[e..]);
                desc = format!("number at {s} set to {v}");
                return (out, desc);
            }
            // Binary: a header field, or (choice 5) any aligned word, such as a group count.
            let at = if choice == 3 && !fields.is_empty() {
                fields[rng.below(fields.len())]
            } else {
                rng.below(len / 4) * 4
            };
            if at + 4 <= len {
                d[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            desc = format!("word at {at} set to {v}");
        }
        // Text: a random byte replaced by a structural character or a random byte.
        _ => {
            let at = rng.below(len);
            let pick = rng.below(8);
            d[at] = [
                b'{',
                b'}',
                b'"',
                b'/',
                b'*',
                b'\n',
                b'-',
                (rng.next() & 0xFF) as u8,
            ][pick];
            desc = format!("byte {at} set to {:#04x}", d[at]);
        }
    }
    (d, desc)
}

#[derive(Default)]
struct Tally {
    files: usize,
    inputs: usize,
    parsed: usize,
    walked: usize,
}

fn sweep_file(path: &Path, kind: Kind, tally: &mut Tally) {
    let orig = std::fs::read(path).unwrap();
    let name = path.display().to_string();
    let limit = if kind.is_text() {
        FULL_WALK_TEXT
    } else {
        FULL_WALK
    };
    let full = orig.len() <= limit || std::env::var_os("IDMODEL_SWEEP_FULL").is_some();
    let mut run = |d: &[u8], desc: &dyn Fn() -> String, walk_it: bool| {
        tally.inputs += 1;
        let what = || format!("{name}: {}", desc());
        if parse_checked(kind, d, &what) {
            tally.parsed += 1;
        }
        if walk_it {
            tally.walked += 1;
            if let Err(p) = std::panic::catch_unwind(|| walk(kind, d)) {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                panic!("{}: walk panicked: {msg}", what());
            }
        }
    };
    // Truncations: every block boundary, then 256 evenly spaced lengths.
    for (i, cut) in boundaries(kind, &orig).into_iter().enumerate() {
        run(
            &orig[..cut],
            &|| format!("truncated at block boundary {cut}"),
            full || i % 16 == 0,
        );
    }
    for i in 0..EVEN_CUTS {
        let cut = orig.len() * i / EVEN_CUTS;
        run(
            &orig[..cut],
            &|| format!("truncated to {cut} bytes"),
            full || i % 16 == 0,
        );
    }
    // Mutations, seeded per file so a failure names a reproducible case.
    let fields = header_fields(kind, &orig);
    let nums = if kind.is_text() {
        numbers(&orig)
    } else {
        Vec::new()
    };
    let mut rng = Rng(SEED ^ fnv(path.file_name().unwrap().as_encoded_bytes()) | 1);
    for i in 0..MUTATIONS {
        let (d, desc) = mutate(kind, &orig, &fields, &nums, &mut rng);
        run(&d, &|| format!("mutation {i}: {desc}"), full || i % 16 == 0);
    }
    tally.files += 1;
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &c| {
        (h ^ u64::from(c)).wrapping_mul(0x100_0000_01b3)
    })
}

fn files_for(kinds: &[Kind], corpus_sub: &str, large: bool) -> Vec<(PathBuf, Kind)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = common::walk(&root.join("samples"));
    if let Some(c) = common::corpus_dir(&format!("sweeps ({corpus_sub})")) {
        files.extend(common::walk(&c.join(corpus_sub)));
        files.extend(common::walk(&c.join("malformed").join(corpus_sub)));
    }
    files
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| (m.len() > LARGE) == large))
        .filter_map(|p| Kind::of(&p).filter(|k| kinds.contains(k)).map(|k| (p, k)))
        .collect()
}

fn sweep(kinds: &[Kind], corpus_sub: &str, large: bool) {
    let t0 = Instant::now();
    let mut tally = Tally::default();
    for (path, kind) in files_for(kinds, corpus_sub, large) {
        let t = Instant::now();
        sweep_file(&path, kind, &mut tally);
        if std::env::var_os("IDMODEL_SWEEP_VERBOSE").is_some() {
            eprintln!("  {} {:.1?}", path.display(), t.elapsed());
        }
    }
    assert!(large || tally.files > 0, "no {corpus_sub} files swept");
    eprintln!(
        "sweep {corpus_sub}{}: {} files, {} inputs ({} parsed, {} walked) in {:.1?}",
        if large { " (large files)" } else { "" },
        tally.files,
        tally.inputs,
        tally.parsed,
        tally.walked,
        t0.elapsed()
    );
}

#[test]
fn sweep_mdl() {
    sweep(&[Kind::Mdl], "mdl", false);
}

#[test]
fn sweep_md2() {
    sweep(&[Kind::Md2], "md2", false);
}

#[test]
fn sweep_md3() {
    sweep(&[Kind::Md3, Kind::Skin, Kind::AnimCfg], "md3", false);
}

#[test]
fn sweep_md5() {
    sweep(
        &[Kind::Md5Mesh, Kind::Md5Anim, Kind::Md5Camera],
        "md5",
        false,
    );
}

#[test]
#[ignore = "minutes at opt-level 1: run with --release -- --ignored"]
fn sweep_large_files() {
    sweep(&[Kind::Mdl], "mdl", true);
    sweep(&[Kind::Md2], "md2", true);
    sweep(&[Kind::Md3, Kind::Skin, Kind::AnimCfg], "md3", true);
    sweep(
        &[Kind::Md5Mesh, Kind::Md5Anim, Kind::Md5Camera],
        "md5",
        true,
    );
}

#[test]
fn boundaries_are_found_in_the_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for (f, kind, min) in [
        ("sample.mdl", Kind::Mdl, 5),
        ("sample.md2", Kind::Md2, 6),
        ("sample.md3", Kind::Md3, 8),
        ("sample.md5mesh", Kind::Md5Mesh, 4),
    ] {
        let d = std::fs::read(root.join(f)).unwrap();
        let b = boundaries(kind, &d);
        assert!(b.len() >= min, "{f}: only {} boundaries: {b:?}", b.len());
    }
}
