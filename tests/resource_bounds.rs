//! Resource bounds against hostile input: what the `alloc` APIs allocate stays
//! within a small multiple of the input size, a count of 2^31-1 in a tiny file allocates
//! nothing, parse work grows linearly with the input, and nothing recurses on the input.
//!
//! Allocation is counted with an instrumented global allocator. The counts are global,
//! so the allocation checks live in one `#[test]` that runs its cases one after another
//! (as `tests/alloc_free.rs` does); the recursion and linearity checks allocate freely and
//! run in their own tests.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use core::hint::black_box;
use core::time::Duration;
use std::alloc::System;
use std::path::Path;
use std::time::Instant;

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocation allowed per input byte through an `alloc` API, plus a fixed slack. Decoded
/// data is wider than the file's (an MDL vertex is 4 bytes on disk, 24 as f32 position
/// and normal), so the multiple is not 1, but it is small and independent of any count.
const PER_BYTE: u64 = 32;
const SLACK: u64 = 64 * 1024;

/// Bytes allocated by `f` (the best of three runs, so a libtest bookkeeping allocation on
/// the main thread cannot fail the check).
fn allocated<R>(mut f: impl FnMut() -> R) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..3 {
        let region = Region::new(GLOBAL);
        black_box(f());
        let c = region.change();
        best = best.min((c.bytes_allocated + c.bytes_reallocated.max(0) as usize) as u64);
    }
    best
}

fn within(what: &str, input: usize, bytes: u64) {
    let bound = PER_BYTE * input as u64 + SLACK;
    eprintln!("{what}: {bytes} bytes allocated for a {input}-byte input (bound {bound})");
    assert!(
        bytes <= bound,
        "{what}: {bytes} bytes allocated for {input} input bytes"
    );
}

/// [`within`] for what `f` allocates reading `input`.
fn bounded<R>(what: &str, input: &[u8], mut f: impl FnMut(&[u8]) -> R) {
    within(what, input.len(), allocated(|| f(input)));
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples")
            .join(name),
    )
    .unwrap()
}

fn put(d: &mut [u8], at: usize, v: i32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// 200-byte binary files: a valid magic and version, every count field 2^31-1.
fn hostile_binaries() -> Vec<(&'static str, Vec<u8>)> {
    let max = i32::MAX;
    let mut mdl = vec![0u8; 200];
    mdl[..4].copy_from_slice(b"IDPO");
    put(&mut mdl, 4, 6);
    for at in [48, 52, 56, 60, 64, 68] {
        put(&mut mdl, at, max); // numskins, skinwidth, skinheight, numverts, numtris, numframes
    }
    let mut md2 = vec![0u8; 200];
    md2[..4].copy_from_slice(b"IDP2");
    put(&mut md2, 4, 8);
    for i in 2..11 {
        put(&mut md2, 4 * i, max); // skinwidth .. num_frames, framesize
    }
    for i in 11..17 {
        put(&mut md2, 4 * i, 68); // every lump right after the header
    }
    let mut md3 = vec![0u8; 200];
    md3[..4].copy_from_slice(b"IDP3");
    put(&mut md3, 4, 15);
    for at in [76, 80, 84, 88] {
        put(&mut md3, at, max); // numFrames, numTags, numSurfaces, numSkins
    }
    for at in [92, 96, 100] {
        put(&mut md3, at, 108); // every lump right after the header
    }
    put(&mut md3, 104, 200);
    vec![("mdl", mdl), ("md2", md2), ("md3", md3)]
}

/// An md5mesh whose mesh claims 2^31-1 vertices (and as many triangles and weights).
fn md5_numverts_max() -> Vec<u8> {
    let text = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n\
        joints {\n\t\"origin\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n\
        mesh {\n\tshader \"s\"\n\tnumverts 2147483647\n\tvert 0 ( 0 0 ) 0 1\n\
        \tnumtris 2147483647\n\ttri 0 0 0 0\n\tnumweights 2147483647\n\tweight 0 0 1 ( 0 0 0 )\n}\n";
    text.as_bytes().to_vec()
}

fn md5anim_counts_max() -> Vec<u8> {
    b"MD5Version 10\ncommandline \"\"\nnumFrames 2147483647\nnumJoints 2147483647\n\
      frameRate 24\nnumAnimatedComponents 2147483647\nhierarchy {\n}\n"
        .to_vec()
}

fn md5camera_counts_max() -> Vec<u8> {
    b"MD5Version 10\ncommandline \"\"\nnumFrames 2147483647\nframeRate 24\nnumCuts 2147483647\ncuts {\n}\n"
        .to_vec()
}

/// The sample md5mesh with a 1 MiB comment, a 1 MiB command line and a 1 MiB joint name.
fn md5_long_strings() -> Vec<(&'static str, Vec<u8>)> {
    let mesh = String::from_utf8(sample("sample.md5mesh")).unwrap();
    let long = "x".repeat(1 << 20);
    vec![
        (
            "md5mesh 1 MiB // comment",
            format!("// {long}\n{mesh}").into_bytes(),
        ),
        (
            "md5mesh 1 MiB /* comment */",
            format!("/* {long} */\n{mesh}").into_bytes(),
        ),
        (
            "md5mesh 1 MiB commandline",
            mesh.replacen(
                "\"idmodel sample: a bending column\"",
                &format!("\"{long}\""),
                1,
            )
            .into_bytes(),
        ),
        (
            "md5mesh 1 MiB joint name",
            mesh.replacen("\"upper\"", &format!("\"{long}\""), 1)
                .into_bytes(),
        ),
        (
            "md5mesh 1 MiB shader",
            mesh.replacen("\"models/samples/column\"", &format!("\"{long}\""), 1)
                .into_bytes(),
        ),
        (
            "md5mesh unterminated /*",
            format!("{mesh}/* {long}").into_bytes(),
        ),
        (
            "md5mesh unterminated string",
            format!("MD5Version 10\ncommandline \"{long}").into_bytes(),
        ),
        (
            "md5mesh 512 Ki nested /*",
            format!("{}{mesh}", "/*".repeat(1 << 19)).into_bytes(),
        ),
        (
            "md5mesh 512 Ki opening braces",
            format!("{mesh}{}", "{".repeat(1 << 19)).into_bytes(),
        ),
    ]
}

fn text_long_strings() -> Vec<(&'static str, Vec<u8>)> {
    let long = "x".repeat(1 << 20);
    vec![
        (
            "skin 1 MiB name",
            format!("{long},models/a.tga\nh_head,b.tga\n").into_bytes(),
        ),
        (
            "skin 1 MiB line of commas",
            ",".repeat(1 << 20).into_bytes(),
        ),
        (
            "animation.cfg 1 MiB token",
            format!("sex m\n{long}\n0 1 0 20\n").into_bytes(),
        ),
        (
            "animation.cfg 256 Ki lines",
            "0 1 0 20\n".repeat(1 << 15).into_bytes(),
        ),
        (
            "animation.cfg unterminated /*",
            format!("/* {long}").into_bytes(),
        ),
    ]
}

#[test]
fn alloc_apis_stay_within_a_small_multiple_of_the_input() {
    // Hostile binary headers: parse refuses them without allocating at all.
    for (what, d) in hostile_binaries() {
        let n = allocated(|| match what {
            "mdl" => idmodel::mdl::Mdl::parse(&d)
                .map(|m| idmodel::mdl::Model::from(&m))
                .is_ok(),
            "md2" => idmodel::md2::Md2::parse(&d)
                .map(idmodel::md2::Model::from)
                .is_ok(),
            _ => idmodel::md3::Md3::parse(&d)
                .map(idmodel::md3::Model::from)
                .is_ok(),
        });
        assert!(idmodel::detect(&d).is_some());
        eprintln!("{what} with counts 2^31-1 in 200 bytes: {n} bytes allocated");
        assert_eq!(n, 0, "{what}: a hostile header made the parser allocate");
    }
    // md5 counts of 2^31-1: the owned parsers fail without reserving for the count.
    for (what, d) in [
        ("md5mesh numverts 2147483647", md5_numverts_max()),
        ("md5anim counts 2147483647", md5anim_counts_max()),
        ("md5camera counts 2147483647", md5camera_counts_max()),
    ] {
        let n = allocated(|| {
            let a = idmodel::md5::mesh::Model::parse(&d).is_ok();
            let b = idmodel::md5::anim::Anim::parse(&d).is_ok();
            let c = idmodel::md5::camera::Camera::parse(&d).is_ok();
            assert!(!(a || b || c), "{what} parsed");
        });
        within(what, d.len(), n);
    }
    // Megabyte-long strings, comments and names through the owned parsers.
    for (what, d) in md5_long_strings() {
        let n = allocated(|| idmodel::md5::mesh::Model::parse(&d).map(|m| m.meshes.len()));
        within(what, d.len(), n);
    }
    for (what, d) in text_long_strings() {
        let n = allocated(|| {
            let s = idmodel::md3::Skin::parse(&d)
                .map(|s| s.entries().count())
                .ok();
            let c = idmodel::md3::AnimationCfg::parse(&d)
                .map(|c| c.raw_entries().count())
                .ok();
            (s, c)
        });
        within(what, d.len(), n);
    }
    // Valid files through every owned conversion and the allocating decoders.
    let mdl = sample("sample.mdl");
    bounded("mdl owned + welded mesh + RGBA skin", &mdl, |mdl| {
        let m = idmodel::mdl::Mdl::parse(mdl).unwrap();
        let owned = idmodel::mdl::Model::from(&m);
        let mesh = m.welded_mesh(idmodel::mdl::SeamRule::Gl);
        let opts = idmodel::mdl::SkinOptions::default();
        let rgba: usize = m
            .skins()
            .flat_map(|s| s.images().collect::<Vec<_>>())
            .map(|i| idmodel::mdl::skin_to_rgba_vec(i, &opts).len())
            .sum();
        (owned, mesh.indices.len(), rgba)
    });
    let md2 = sample("sample.md2");
    bounded("md2 owned + gl mesh + write", &md2, |md2| {
        let m = idmodel::md2::Md2::parse(md2).unwrap();
        let owned = idmodel::md2::Model::from(m);
        let gl = m.gl_mesh();
        (
            idmodel::md2::write(&owned).map(|b| b.len()),
            gl.indices.len(),
        )
    });
    let md3 = sample("sample.md3");
    bounded("md3 owned + write", &md3, |md3| {
        let owned = idmodel::md3::Model::from(idmodel::md3::Md3::parse(md3).unwrap());
        idmodel::md3::write(&owned).map(|b| b.len())
    });
    for name in ["sample.md5mesh", "sample.md5anim", "sample.md5camera"] {
        let d = sample(name);
        bounded(name, &d, |d| {
            let a = idmodel::md5::mesh::Model::parse(d)
                .map(|m| m.meshes.len())
                .ok();
            let b = idmodel::md5::anim::Anim::parse(d)
                .map(|a| a.num_frames())
                .ok();
            let c = idmodel::md5::camera::Camera::parse(d)
                .map(|c| c.frames.len())
                .ok();
            (a, b, c)
        });
    }
}

/// Runs `f` on a thread with a 256 KiB stack: a parser that recursed once per nesting
/// level of a megabyte of input would overflow it (and abort the test binary).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nothing_recurses_on_input() {
    let mut inputs = md5_long_strings();
    inputs.extend(text_long_strings());
    inputs.push(("md5 1 Mi closing braces", "}".repeat(1 << 20).into_bytes()));
    inputs.push(("md5 1 Mi parentheses", "(".repeat(1 << 20).into_bytes()));
    on_small_stack(move || {
        for (_, d) in &inputs {
            let _ = black_box(idmodel::md5::mesh::Model::parse(d));
            let _ = black_box(idmodel::md5::anim::Anim::parse(d));
            let _ = black_box(idmodel::md5::camera::Camera::parse(d));
            let _ = black_box(idmodel::md3::Skin::parse(d).map(|s| s.entries().count()));
            let _ =
                black_box(idmodel::md3::AnimationCfg::parse(d).map(|c| c.raw_entries().count()));
        }
    });
    // Binary formats: a chain of 4096 MDL skin groups / MD3 surfaces walks iteratively.
    on_small_stack(|| {
        for (_, d) in hostile_binaries() {
            let _ = black_box(idmodel::mdl::Mdl::parse(&d));
            let _ = black_box(idmodel::md2::Md2::parse(&d));
            let _ = black_box(idmodel::md3::Md3::parse(&d));
        }
    });
}

/// The fastest of 7 runs of `f` (the minimum is the least disturbed by other load).
fn fastest(mut f: impl FnMut()) -> Duration {
    (0..7)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// Parse time of an 8x input against a 1x input: linear work gives about 8; a quadratic
/// rescan gives about 64. The bound (40) is generous for load and cache effects (the
/// sizes stay within a few hundred KiB) and still catches that.
fn linear(what: &str, small: &[u8], big: &[u8], parse: impl Fn(&[u8])) {
    assert!(big.len() >= 7 * small.len());
    let t1 = fastest(|| parse(small));
    let t8 = fastest(|| parse(big));
    let ratio = t8.as_secs_f64() / t1.as_secs_f64().max(1e-9);
    eprintln!(
        "{what}: {t1:?} for {} bytes, {t8:?} for {} bytes (x{ratio:.1})",
        small.len(),
        big.len()
    );
    assert!(
        ratio < 40.0,
        "{what}: parse time grew {ratio:.1}x for 8x the input"
    );
}

#[test]
fn parse_time_is_linear_in_the_input() {
    fn long(n: usize) -> String {
        "x".repeat(n)
    }
    let md5 = |d: &[u8]| {
        let _ = black_box(idmodel::md5::mesh::parse(d));
        let _ = black_box(idmodel::md5::anim::parse(d));
    };
    let mesh = String::from_utf8(sample("sample.md5mesh")).unwrap();
    // A long comment, an unterminated comment, nested comment openers, a long string.
    for (what, f) in [
        (
            "md5mesh // comment",
            (|n| format!("// {}\n{}", long(n), String::new())) as fn(usize) -> String,
        ),
        ("md5mesh unterminated /*", |n| format!("/* {}", long(n))),
        ("md5mesh nested /*", |n| "/*".repeat(n / 2)),
        ("md5mesh long commandline", |n| {
            format!("MD5Version 10\ncommandline \"{}\"\n", long(n))
        }),
        ("md5mesh many lines", |n| "\n".repeat(n)),
    ] {
        let (a, b) = (f(1 << 15), f(1 << 18));
        linear(what, a.as_bytes(), b.as_bytes(), md5);
    }
    // Many joints: per-joint work must not rescan what came before.
    let joints = |n: usize| {
        let mut s =
            format!("MD5Version 10\ncommandline \"\"\nnumJoints {n}\nnumMeshes 0\njoints {{\n");
        s.push_str("\t\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n");
        for i in 1..n {
            s.push_str(&format!("\t\"j{i}\" {} ( 0 0 0 ) ( 0 0 0 )\n", i - 1));
        }
        s.push_str("}\n");
        s
    };
    let (a, b) = (joints(2000), joints(16000));
    linear("md5mesh joints", a.as_bytes(), b.as_bytes(), md5);
    let _ = mesh;
    let skins = |n: usize| "h_head,models/players/a/head.tga\n".repeat(n);
    let (a, b) = (skins(4000), skins(32000));
    linear("skin entries", a.as_bytes(), b.as_bytes(), |d| {
        let _ = black_box(idmodel::md3::Skin::parse(d).map(|s| s.entries().count()));
    });
}
