//! The crafted many-frame files of the memory tests (an MD2 and an MDL of 2,000 and
//! 16,000 frames, a few vertices), written with the project's writers. Shared by this
//! crate's `conversion_bounds.rs` and the CLI's `tests/bounds.rs` (through `#[path]`);
//! each names the format crates `md2` and `mdl` in the including module.
#![allow(dead_code)] // each including test uses a different subset

use super::{md2, mdl};

/// The crafted cases: `(extension, frames)`.
pub const CASES: [(&str, usize); 4] = [
    ("md2", 2_000),
    ("md2", 16_000),
    ("mdl", 2_000),
    ("mdl", 16_000),
];

/// The crafted file of `frames` frames for `ext` (`md2` or `mdl`).
pub fn crafted(ext: &str, frames: usize) -> Vec<u8> {
    if ext == "md2" {
        md2_of(frames)
    } else {
        mdl_of(frames)
    }
}

/// An MD2 of `frames` frames (the example's 4 vertices), all in one clip `run`.
pub fn md2_of(frames: usize) -> Vec<u8> {
    let mut m = md2::Model::example();
    let f = m.frames[1].clone();
    m.frames = (0..frames)
        .map(|i| {
            let mut g = f.clone();
            g.name = format!("run{i}").into_bytes();
            g.translate = [0.0, 0.0, (i % 7) as f32];
            g
        })
        .collect();
    md2::write(&m).unwrap()
}

/// An MDL of `frames` single frames (the example's 3 vertices), all in one clip `run`.
pub fn mdl_of(frames: usize) -> Vec<u8> {
    let mut m = mdl::Model::example();
    let mdl::FrameData::Single(pose) = m.frames[0].clone() else {
        unreachable!("the example has a single frame")
    };
    m.frames = (0..frames)
        .map(|i| {
            let mut p = pose.clone();
            p.name = mdl::PoseData::name_field(&format!("run{i}"));
            p.vertices[1].v[2] = (i % 200) as u8;
            mdl::FrameData::Single(p)
        })
        .collect();
    m.write().unwrap()
}
