//! MD3 tags through an editor that keeps meshes and shape keys but resamples node
//! animation and drops the extras (Blender's glTF round trip): the tag-frames nodes
//! (`idmodel_scene::md3::is_tag_frames`) give every tag back exactly, scaled axes
//! included, unless the tag's animation was edited, when the animation wins.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, clippy::needless_range_loop, missing_docs)]

use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
use idmodel_gltf::{ExportOptions, to_glb};
use idmodel_md3::{Md3, Model, TagInfo, write};
use idmodel_scene::md3::{self, BackOptions};
use idmodel_scene::{ChannelValues, Extras, Options, Scene};

/// A model of 9 frames (the example's body, moved up a little per frame) whose tag moves
/// on a curve and turns, its axes scaled by 1.5 (trem's are 1.56 long).
fn model() -> Model {
    let mut m = Model::example();
    let frames = 9;
    for s in &mut m.surfaces {
        let first = s.frames[0].clone();
        s.frames = (0..frames).map(|_| first.clone()).collect();
    }
    let info = m.frames[0].clone();
    m.frames = (0..frames)
        .map(|f| {
            let mut i = info.clone();
            i.name = format!("frame{f}").into_bytes();
            i
        })
        .collect();
    let tag = m.tags[0][0].clone();
    m.tags = (0..frames)
        .map(|f| {
            let k = f as f32;
            let (s, c) = ((k * 0.3).sin(), (k * 0.3).cos());
            let mut t = tag.clone();
            t.origin = [20.0 + k * k * 0.5, (k * 1.3).sin() * 4.0, 18.0 + k];
            t.axis = [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]].map(|a| a.map(|x| x * 1.5));
            vec![t]
        })
        .collect();
    m
}

/// What a sampler at its own rate makes of `scene`'s animations (Blender at its scene
/// rate): every channel read at `step` seconds from 0 up to the last sample before the
/// clip's end, linearly (rotations: the normalised lerp), the extras dropped.
fn resampled(scene: &Scene, step: f32) -> Scene {
    let mut out = scene.clone();
    out.extras = Extras::default();
    for a in &mut out.animations {
        let end = a
            .channels
            .iter()
            .filter_map(|c| c.times.last())
            .fold(0.0f32, |x, &y| x.max(y));
        let n = (end / step).floor() as usize + 1;
        let times: Vec<f32> = (0..n).map(|s| s as f32 * step).collect();
        for ch in &mut a.channels {
            let at = |t: f32| {
                let k = ch.times.iter().rposition(|&x| x <= t).unwrap_or(0);
                let k1 = (k + 1).min(ch.times.len() - 1);
                let span = ch.times[k1] - ch.times[k];
                let w = if span > 0.0 {
                    ((t - ch.times[k]) / span).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (k, k1, w)
            };
            let lerp = |a: &[f32], b: &[f32], w: f32| -> Vec<f32> {
                a.iter().zip(b).map(|(x, y)| x + (y - x) * w).collect()
            };
            ch.values = match &ch.values {
                ChannelValues::Translation(v) | ChannelValues::Scale(v) => {
                    let r: Vec<[f32; 3]> = times
                        .iter()
                        .map(|&t| {
                            let (k, k1, w) = at(t);
                            lerp(&v[k], &v[k1], w).try_into().unwrap()
                        })
                        .collect();
                    if matches!(ch.values, ChannelValues::Translation(_)) {
                        ChannelValues::Translation(r)
                    } else {
                        ChannelValues::Scale(r)
                    }
                }
                ChannelValues::Rotation(v) => ChannelValues::Rotation(
                    times
                        .iter()
                        .map(|&t| {
                            let (k, k1, w) = at(t);
                            let q = lerp(&v[k], &v[k1], w);
                            let l = q.iter().map(|x| x * x).sum::<f32>().sqrt();
                            [q[0] / l, q[1] / l, q[2] / l, q[3] / l]
                        })
                        .collect(),
                ),
                other => {
                    let targets = match other {
                        ChannelValues::SparseWeights { targets, .. } => *targets,
                        _ => panic!("weights expected"),
                    };
                    let dense = other.dense(ch.times.len()).unwrap();
                    let mut w = Vec::new();
                    for &t in &times {
                        let (k, k1, x) = at(t);
                        w.extend(lerp(
                            &dense[k * targets..(k + 1) * targets],
                            &dense[k1 * targets..(k1 + 1) * targets],
                            x,
                        ));
                    }
                    ChannelValues::Weights(w)
                }
            };
            ch.times = times.clone();
        }
    }
    out
}

/// The model's scene.
fn scene_of(m: &Model) -> Scene {
    let bytes = write(m).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    md3::scene(&md3, "m", &Options::default()).unwrap()
}

/// `scene` through a GLB (the import restores a resampled animation), without extras.
fn via_glb(scene: &Scene) -> Scene {
    let glb = to_glb(scene, &ExportOptions::default()).unwrap();
    let mut back = from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap();
    back.extras = Extras::default();
    back
}

fn tags_back(scene: &Scene) -> Vec<Vec<TagInfo>> {
    md3::from_scene(scene, &BackOptions::default())
        .unwrap()
        .tags
}

fn assert_close(got: &[Vec<TagInfo>], want: &[Vec<TagInfo>], shift: [f32; 3]) {
    assert_near(got, want, shift, 1e-4);
}

fn assert_near(got: &[Vec<TagInfo>], want: &[Vec<TagInfo>], shift: [f32; 3], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (f, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "frame {f}");
        for (g, w) in g.iter().zip(w) {
            assert_eq!(g.name, w.name);
            for i in 0..3 {
                assert!(
                    (g.origin[i] - w.origin[i] - shift[i]).abs() < tol,
                    "frame {f}: {g:?} {w:?}"
                );
                for j in 0..3 {
                    assert!(
                        (g.axis[i][j] - w.axis[i][j]).abs() < tol,
                        "frame {f}: {g:?} {w:?}"
                    );
                }
            }
        }
    }
}

/// Moves the translation keys of every tag channel: all of them (`every`), or key 1 only
/// (what a coarse resampling does to a frame between two samples).
fn move_tags(scene: &mut Scene, by: [f32; 3], every: bool) {
    let tag_nodes: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| scene.nodes[i].name.starts_with("tag_"))
        .collect();
    assert!(!tag_nodes.is_empty());
    let mut moved = 0;
    for a in &mut scene.animations {
        for ch in a
            .channels
            .iter_mut()
            .filter(|c| tag_nodes.contains(&c.node))
        {
            if let ChannelValues::Translation(v) = &mut ch.values {
                for (k, t) in v.iter_mut().enumerate() {
                    if every || k == 1 {
                        *t = [t[0] + by[0], t[1] + by[1], t[2] + by[2]];
                        moved += 1;
                    }
                }
            }
        }
    }
    assert!(moved > 0);
}

#[test]
fn the_export_carries_each_tags_frames_and_its_scale() {
    let m = model();
    let scene = via_glb(&scene_of(&m));
    let helpers: Vec<_> = scene
        .nodes
        .iter()
        .filter(|n| md3::is_tag_frames(n))
        .collect();
    assert_eq!(helpers.len(), m.tags[0].len());
    assert_eq!(helpers[0].name, "frames of tag_weapon");
    // The tag node carries the axes' length as its scale.
    let tag = scene.nodes.iter().find(|n| n.name == "tag_weapon").unwrap();
    assert!(
        tag.scale.iter().all(|s| (s - 1.5).abs() < 1e-5),
        "{:?}",
        tag.scale
    );
    // Nothing but the model's own surfaces is written back, and the tags as they were.
    let back = md3::from_scene(&scene, &BackOptions::default()).unwrap();
    assert_eq!(back.surfaces.len(), m.surfaces.len());
    assert_close(&back.tags, &m.tags, [0.0; 3]);
}

#[test]
fn tags_sampled_at_fewer_samples_than_frames_come_back_exactly() {
    let m = model();
    let scene = scene_of(&m);
    // The all-frames clip plays at 15 fps; sampled at 12 per second there are fewer
    // samples than frames (a 30 fps clip under Blender's 24), and the clip of 9 frames
    // (0.533 s) ends between two samples.
    let sampled = via_glb(&resampled(&scene, 1.0 / 12.0));
    assert_close(&tags_back(&sampled), &m.tags, [0.0; 3]);
    // Without the tag-frames nodes the samples cannot say every frame.
    let mut bare = resampled(&scene, 1.0 / 12.0);
    for n in &mut bare.nodes {
        if md3::is_tag_frames(n) {
            n.mesh = None;
        }
    }
    let off = tags_back(&via_glb(&bare));
    let worst = off
        .iter()
        .zip(&m.tags)
        .map(|(g, w)| {
            (0..3)
                .map(|i| (g[0].origin[i] - w[0].origin[i]).abs())
                .fold(0.0, f32::max)
        })
        .fold(0.0, f32::max);
    assert!(worst > 0.1, "{worst}");
}

#[test]
fn an_edited_tag_animation_wins_over_the_tag_frames() {
    let m = model();
    // Edited in a tool that keeps the keys: every key moved, or one.
    let mut scene = via_glb(&scene_of(&m));
    move_tags(&mut scene, [0.0, 0.0, 5.0], true);
    assert_close(&tags_back(&scene), &m.tags, [0.0, 0.0, 5.0]);
    let mut scene = via_glb(&scene_of(&m));
    move_tags(&mut scene, [9.0, 0.0, 0.0], false);
    let back = tags_back(&scene);
    assert!((back[1][0].origin[0] - m.tags[1][0].origin[0] - 9.0).abs() < 1e-4);
    // Edited and then resampled: the import sees samples the frames do not make, and
    // detaches the frames; the tags follow the samples.
    let mut scene = scene_of(&m);
    move_tags(&mut scene, [0.0, 0.0, 5.0], true);
    let sampled = via_glb(&resampled(&scene, 1.0 / 24.0));
    assert!(!sampled.nodes.iter().any(md3::is_tag_frames));
    // (Re-solved from the samples, so within a hundredth; the scale is the samples'.)
    assert_near(&tags_back(&sampled), &m.tags, [0.0, 0.0, 5.0], 1e-2);
}

/// Swaps nodes `i` and `j`, with every reference to them (what an editor that sorts
/// nodes by name does to their order).
fn swap_nodes(s: &mut Scene, i: usize, j: usize) {
    s.nodes.swap(i, j);
    let map = |k: &mut usize| {
        if *k == i {
            *k = j;
        } else if *k == j {
            *k = i;
        }
    };
    for n in &mut s.nodes {
        n.children.iter_mut().for_each(map);
    }
    for a in &mut s.animations {
        a.channels.iter_mut().for_each(|c| map(&mut c.node));
    }
    assert!(s.skins.is_empty());
}

#[test]
fn tags_reordered_by_an_editor_come_back_in_the_files_order() {
    let mut m = model();
    // A second tag whose name sorts first: `tag_alpha` after `tag_weapon` in the file.
    for frame in &mut m.tags {
        let mut t = frame[0].clone();
        t.name = b"tag_alpha".to_vec();
        t.origin[2] += 3.0;
        frame.push(t);
    }
    let mut scene = via_glb(&scene_of(&m));
    let at = |s: &Scene, name: &str| s.nodes.iter().position(|n| n.name == name).unwrap();
    let (w, a) = (at(&scene, "tag_weapon"), at(&scene, "tag_alpha"));
    assert!(w < a);
    swap_nodes(&mut scene, w, a);
    let names = |tags: &[Vec<TagInfo>]| -> Vec<Vec<u8>> {
        tags[0].iter().map(|t| t.name.clone()).collect()
    };
    let back = tags_back(&scene);
    assert_eq!(names(&back), names(&m.tags));
    assert_close(&back, &m.tags, [0.0; 3]);
    // Without the index in the frames nodes' `v`, the scene's order stands.
    for i in 0..scene.nodes.len() {
        if md3::is_tag_frames(&scene.nodes[i]) {
            let mesh = scene.nodes[i].mesh.unwrap();
            for uv in &mut scene.meshes[mesh].primitives[0].uvs {
                uv[1] = 0.5;
            }
        }
    }
    let unordered = tags_back(&scene);
    assert_eq!(names(&unordered)[0], b"tag_alpha".to_vec());
}
