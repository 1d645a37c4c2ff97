//! Bounded memory of a conversion: the crafted MDL and MD2 files (2,000 and 16,000
//! frames, a few vertices), written with the project's writers, go through the library
//! path (adapter, then the glTF writer) and either succeed with an output linear in the
//! frames, the memory still held at the end (scene and GLB) within 2 × output + 16 MiB
//! and the total allocated (every temporary, the JSON tree included) linear in the
//! output, or, over a budget, refuse before allocating. The peak itself is measured on
//! the command by `crates/cli/tests/bounds.rs` (maximum resident size).
//!
//! Allocation is counted with an instrumented global allocator: every byte allocated
//! (and every byte a reallocation grows by) during the conversion. The counts are
//! global, so all cases run in one `#[test]`, one after another.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use std::alloc::System;

use idmodel_gltf::{ExportOptions, to_glb};
use idmodel_scene::Options;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

use idmodel_md2 as md2;
use idmodel_mdl as mdl;

mod crafted;

use crafted::{CASES, crafted};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const SLACK: u64 = 16 << 20;

/// Bytes allocated by `f` in all, bytes it left allocated, and its result.
fn allocated<R>(f: impl FnOnce() -> R) -> (u64, u64, R) {
    let region = Region::new(GLOBAL);
    let r = f();
    let c = region.change();
    // stats_alloc already counts a realloc's growth in `bytes_allocated` and its shrink
    // in `bytes_deallocated` (`bytes_reallocated` is the same deltas again): adding it
    // would count every grown buffer twice.
    let grown = c.bytes_allocated as i64;
    let held = grown - c.bytes_deallocated as i64;
    (grown.max(0) as u64, held.max(0) as u64, r)
}

/// What the whole conversion keeps: the scene and the GLB.
fn convert_held(kind: &str, bytes: &[u8]) -> (Vec<u8>, Box<dyn core::any::Any>) {
    match kind {
        "md2" => {
            let md2 = idmodel_md2::Md2::parse(bytes).unwrap();
            let scene = idmodel_scene::md2::scene(&md2, "crafted", &Options::default()).unwrap();
            (
                to_glb(&scene, &ExportOptions::default()).unwrap(),
                Box::new(scene),
            )
        }
        _ => {
            let mdl = idmodel_mdl::Mdl::parse(bytes).unwrap();
            let scene = idmodel_scene::mdl::scene(&mdl, "crafted", &Options::default()).unwrap();
            (
                to_glb(&scene, &ExportOptions::default()).unwrap(),
                Box::new(scene),
            )
        }
    }
}

fn convert(kind: &str, bytes: &[u8], options: &Options) -> Result<Vec<u8>, String> {
    let scene = match kind {
        "md2" => {
            let md2 = idmodel_md2::Md2::parse(bytes).unwrap();
            idmodel_scene::md2::scene(&md2, "crafted", options)
        }
        _ => {
            let mdl = idmodel_mdl::Mdl::parse(bytes).unwrap();
            idmodel_scene::mdl::scene(&mdl, "crafted", options)
        }
    }
    .map_err(|e| e.to_string())?;
    to_glb(&scene, &ExportOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn crafted_many_frame_files_convert_within_the_bound_or_refuse_before_allocating() {
    for (kind, frames) in CASES {
        let bytes = crafted(kind, frames);
        let (used, held, (glb, scene)) = allocated(|| convert_held(kind, &bytes));
        let out = glb.len() as u64;
        let bound = 2 * out + SLACK;
        eprintln!(
            "{kind} of {frames} frames ({} bytes): {out}-byte GLB, {held} bytes held with the scene (bound {bound}), {used} allocated in all",
            bytes.len()
        );
        assert!(held <= bound, "{kind} {frames}: {held} > {bound}");
        assert!(
            used <= 32 * out + SLACK,
            "{kind} {frames}: {used} allocated"
        );
        drop((glb, scene));
        // Linear in the frames: at most 1,000 bytes a frame for these few vertices (most
        // of it each target's accessors in the JSON; the
        // dense weights alone were 4 × frames² bytes: 1 GB for 16,000 frames).
        assert!(out < 1000 * frames as u64, "{kind} {frames}: {out} bytes");

        // Over a budget: refused with the line naming need and limit, before the
        // targets are built.
        let small = Options {
            max_bytes: Some(64 << 10),
            ..Options::default()
        };
        let (used, _, r) = allocated(|| convert(kind, &bytes, &small));
        let e = r.unwrap_err();
        assert!(
            e.starts_with("the animated output would need ")
                && e.contains(", over the 65.5 KB limit (--max-output raises it"),
            "{e}"
        );
        assert!(
            used < 64 << 10,
            "{kind} {frames}: {used} bytes allocated before refusing"
        );
    }
}
