//! The GL command builder on large meshes: no rescans of the triangle list, and every
//! triangle drawn once.
// Test helpers may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use idmodel_md2::raw::TriVertex;
mod common;

use idmodel_md2::{
    Engine, FindingKind, FrameData, GlKind, Md2, Model, Triangle, build_gl_commands,
};

/// A `side × side` grid of quads (two triangles each, one UV per vertex).
fn grid(side: u16) -> Model {
    let n = side + 1;
    let id = |x: u16, y: u16| y * n + x;
    let mut triangles = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let (a, b, c, d) = (id(x, y), id(x + 1, y), id(x, y + 1), id(x + 1, y + 1));
            for xyz in [[a, c, b], [b, c, d]] {
                triangles.push(Triangle { xyz, st: xyz });
            }
        }
    }
    let count = usize::from(n) * usize::from(n);
    let vertices = (0..count)
        .map(|i| TriVertex {
            v: [(i % 256) as u8, (i / 256 % 256) as u8, 0],
            light_normal_index: 0,
        })
        .collect();
    Model {
        st: (0..count)
            .map(|i| [(i % 256) as i16, (i / 256) as i16])
            .collect(),
        triangles,
        frames: vec![FrameData {
            name: b"grid".to_vec(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices,
        }],
        ..Model::example()
    }
}

/// The triangles the words draw, as sorted (xyz, st) corner triples (rotated so the
/// smallest corner comes first, keeping the winding), with their multiplicity.
fn drawn(words: &[i32]) -> BTreeMap<[u16; 3], usize> {
    let mut out = BTreeMap::new();
    let mut at = 0;
    loop {
        let n = words[at];
        at += 1;
        if n == 0 {
            break;
        }
        let verts: Vec<u16> = (0..n.unsigned_abs() as usize)
            .map(|v| words[at + 3 * v + 2] as u16)
            .collect();
        at += 3 * verts.len();
        for i in 0..verts.len() - 2 {
            let t = if n < 0 {
                [verts[0], verts[i + 1], verts[i + 2]]
            } else if i % 2 == 0 {
                [verts[i], verts[i + 1], verts[i + 2]]
            } else {
                [verts[i + 1], verts[i], verts[i + 2]]
            };
            *out.entry(rotated(t)).or_insert(0) += 1;
        }
    }
    out
}

fn rotated(t: [u16; 3]) -> [u16; 3] {
    let m = (0..3).min_by_key(|&k| t[k]).unwrap();
    [t[m], t[(m + 1) % 3], t[(m + 2) % 3]]
}

/// `build_gl_commands(model)`, failing when it takes `limit` seconds or more.
fn timed_build(model: &Model, limit: u64) -> Vec<i32> {
    let started = Instant::now();
    let words = build_gl_commands(model);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(limit),
        "building the GL commands of {} triangles took {took:?}",
        model.triangles.len()
    );
    words
}

#[test]
fn gl_commands_of_a_large_mesh_are_built_without_rescanning_the_triangles() {
    // 32,768 triangles in long strips: each step of a strip is a binary search in the
    // edge index (it was a scan of the later triangles).
    let model = grid(128);
    let words = timed_build(&model, 30);
    let mut expected = BTreeMap::new();
    for t in &model.triangles {
        *expected.entry(rotated(t.xyz)).or_insert(0) += 1;
    }
    assert_eq!(drawn(&words), expected, "every triangle once, winding kept");
    // Strips, not one triangle per command: a grid strips well.
    let commands = drawn_commands(&words);
    assert!(commands * 4 < model.triangles.len(), "{commands} commands");

    // The written file agrees with itself (the writer builds the commands once).
    let bytes = idmodel_md2::write(&model).unwrap();
    let md2 = Md2::parse_strict(&bytes).unwrap();
    assert!(
        !md2.findings(Engine::Quake2)
            .iter()
            .any(|f| matches!(f.kind, FindingKind::GlMismatch { .. }))
    );
    assert_eq!(Model::from(md2), model);
}

#[test]
fn gl_commands_of_many_unconnected_triangles_take_linearithmic_time() {
    // 32,765 triangles that share no edge: one command each. Every try used to scan all
    // later triangles and clear marks to the end of the list (~10^10 steps: 33 s in the
    // test profile before the edge index, milliseconds after).
    let mut model = grid(1);
    model.st = (0..32_767)
        .map(|i| [(i % 64) as i16, (i / 64) as i16])
        .collect();
    model.triangles = (0..32_765u16)
        .map(|t| Triangle {
            xyz: [0, 1, 2],
            st: [t, t + 1, t + 2],
        })
        .collect();
    let words = timed_build(&model, 5);
    assert_eq!(drawn_commands(&words), model.triangles.len());
    // Each command is one triangle, in order, with its own winding.
    let mut at = 0;
    for t in &model.triangles {
        assert_eq!(words[at].unsigned_abs(), 3);
        let xyz: Vec<i32> = (0..3).map(|v| words[at + 1 + 3 * v + 2]).collect();
        assert_eq!(xyz, t.xyz.map(i32::from));
        at += 10;
    }
}

fn drawn_commands(words: &[i32]) -> usize {
    let (mut at, mut n) = (0, 0);
    while words[at] != 0 {
        at += 1 + 3 * words[at].unsigned_abs() as usize;
        n += 1;
    }
    n
}

/// `n` triangles around vertex 0 (a disc): the builder draws it as one fan.
fn disc(n: u16) -> Model {
    let triangles = (1..=n)
        .map(|i| {
            let xyz = [0, i, i % n + 1];
            Triangle { xyz, st: xyz }
        })
        .collect();
    let count = usize::from(n) + 1;
    Model {
        st: (0..count).map(|i| [i as i16, 0]).collect(),
        triangles,
        frames: vec![FrameData {
            name: b"disc".to_vec(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices: (0..count)
                .map(|i| TriVertex {
                    v: [i as u8, 0, 0],
                    light_normal_index: 0,
                })
                .collect(),
        }],
        ..Model::example()
    }
}

#[test]
fn gl_mesh_of_long_strips_and_fans_draws_what_the_commands_draw() {
    // Commands longer than one triangle: odd strip triangles swap their first two
    // corners and fan triangles share the first, which one-triangle commands never show.
    for (model, kind) in [(grid(12), GlKind::Strip), (disc(7), GlKind::Fan)] {
        let bytes = idmodel_md2::write(&model).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let longest = md2
            .gl_commands()
            .filter(|c| c.kind == kind)
            .map(|c| c.triangle_count())
            .max()
            .unwrap_or(0);
        assert!(longest >= 3, "no {kind:?} of three triangles or more");
        assert_eq!(
            common::gl_mesh_draws_gl_triangles(&md2),
            model.triangles.len()
        );
    }
}
