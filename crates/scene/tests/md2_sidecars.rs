//! What real engines keep beside an MD2: UFO:AI `.anm` clips at their own rates, and
//! smooth normals computed from the triangles when every vertex uses one normal index.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, clippy::cast_precision_loss, missing_docs)]

use idmodel_md2::{Anm, Md2, Model, write};
use idmodel_scene::Options;
use idmodel_scene::md2::{RateClip, Sidecars, frame_with, scene, scene_with, smooth_normals};

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The example tetrahedron with every normal index set to `index`.
fn one_index(index: u8) -> Vec<u8> {
    let mut m = Model::example();
    for f in &mut m.frames {
        for v in &mut f.vertices {
            v.light_normal_index = index;
        }
    }
    write(&m).unwrap()
}

/// The vertex indices of each triangle of `md2`.
fn corners(md2: &Md2<'_>) -> Vec<[usize; 3]> {
    md2.triangles()
        .iter()
        .map(|t| idmodel_md2::Triangle::from_raw(t).xyz.map(usize::from))
        .collect()
}

#[test]
fn degenerate_normals_are_replaced_and_kept_on_request() {
    let bytes = one_index(5);
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.single_normal_index(), Some(5));
    let f = md2.findings(idmodel_md2::Engine::Quake2);
    let one = f
        .iter()
        .find(|f| f.kind == idmodel_md2::FindingKind::OneNormalIndex { index: 5 })
        .unwrap();
    assert_eq!(one.severity, idmodel_md2::Severity::Warning);
    assert!(
        one.to_string().contains("every vertex uses normal index 5"),
        "{one}"
    );

    let s = scene(&md2, "m", &Options::default()).unwrap();
    let p = &s.meshes[0].primitives[0];
    // Computed per frame-0 vertex and mapped onto the mesh's vertices.
    let frame0: Vec<[f32; 3]> = md2.frame(0).unwrap().positions().collect();
    let tris = corners(&md2);
    let expect = smooth_normals(&frame0, &tris);
    let mesh = md2.soft_mesh();
    for (v, n) in mesh.vertices.iter().zip(&p.normals) {
        assert_eq!(*n, expect[v.xyz as usize]);
    }
    let file_normal = md2.frame(0).unwrap().normals().next().unwrap();
    assert!(p.normals.iter().any(|n| *n != file_normal));
    // Frame 1's computed normals arrive through the morph target's normal displacement.
    let frame1: Vec<[f32; 3]> = md2.frame(1).unwrap().positions().collect();
    let expect1 = smooth_normals(&frame1, &tris);
    let t = &p.targets[0];
    for (i, v) in mesh.vertices.iter().enumerate() {
        let got = [0, 1, 2].map(|k| p.normals[i][k] + t.normals[i][k]);
        for k in 0..3 {
            assert!((got[k] - expect1[v.xyz as usize][k]).abs() < 1e-5);
        }
    }

    let keep = Sidecars {
        keep_normals: true,
        ..Sidecars::default()
    };
    let kept = scene_with(&md2, "m", &Options::default(), &keep).unwrap();
    assert!(
        kept.meshes[0].primitives[0]
            .normals
            .iter()
            .all(|n| *n == file_normal)
    );
    let still = frame_with(&md2, "m", &Options::default(), &Sidecars::default()).unwrap();
    assert_eq!(still.meshes[0].primitives[0].normals, p.normals);
}

#[test]
fn real_normals_are_kept_and_the_computed_ones_face_the_same_way() {
    let bytes = write(&Model::example()).unwrap();
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.single_normal_index(), None);
    let s = scene(&md2, "m", &Options::default()).unwrap();
    let file: Vec<[f32; 3]> = md2.frame(0).unwrap().normals().collect();
    let mesh = md2.soft_mesh();
    for (v, n) in mesh.vertices.iter().zip(&s.meshes[0].primitives[0].normals) {
        assert_eq!(*n, file[v.xyz as usize]);
    }
    // On real Quake II models the computed normals agree with the artists' (the
    // winding rule is right): mean cosine above 0.8 on the organic models (dolphin,
    // horse, sydney … 0.85–0.99); never negative (two-sided plant cards are near 0,
    // the hard-edged box 0.3).
    let Some(dir) = idmodel_test_support::corpus_dir("computed_normals_face_the_file_normals")
    else {
        return;
    };
    let mut checked = 0;
    let mut agree = 0;
    for path in idmodel_test_support::files_with_ext(&dir.join("md2"), "md2") {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(md2) = Md2::parse(&bytes) else {
            continue;
        };
        if md2.single_normal_index().is_some() || md2.triangles().len() < 20 {
            continue;
        }
        let frame = md2.frame(0).unwrap();
        let pos: Vec<[f32; 3]> = frame.positions().collect();
        let tris = corners(&md2);
        let computed = smooth_normals(&pos, &tris);
        let mean = computed
            .iter()
            .zip(frame.normals())
            .map(|(a, b)| dot(*a, b))
            .sum::<f32>()
            / computed.len() as f32;
        assert!(mean > -0.05, "{}: mean cosine {mean}", path.display());
        if mean > 0.8 {
            agree += 1;
        }
        checked += 1;
    }
    assert!(
        checked >= 10 && agree >= 9,
        "{agree} of {checked} models agree"
    );
}

#[test]
fn anm_clips_play_at_their_rates() {
    let bytes = write(&Model::example()).unwrap();
    let md2 = Md2::parse(&bytes).unwrap();
    let anm = Anm::parse(b"both 0 1 20\nlast 1 1 0\npast 1 9 10\nback 1 0 10\n").unwrap();
    let clips = RateClip::from_anm(&anm);
    assert_eq!(clips.len(), 3); // `back` runs backwards: left out
    let side = Sidecars {
        clips,
        keep_normals: false,
    };
    let s = scene_with(&md2, "m", &Options::default(), &side).unwrap();
    let names: Vec<&str> = s.animations.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["both", "last", "past"]);
    assert_eq!(s.animations[0].channels[0].times, vec![0.0, 0.05]);
    // fps 0 plays one frame each 100 s; a range past the model is cut to its frames.
    assert_eq!(s.animations[1].channels[0].times, vec![0.0]);
    assert_eq!(s.animations[2].channels[0].times.len(), 1);
    let only = Options {
        clip: Some("last".into()),
        ..Options::default()
    };
    let s = scene_with(&md2, "m", &only, &side).unwrap();
    assert_eq!(s.animations.len(), 1);
    let still = frame_with(&md2, "m", &only, &side).unwrap();
    let f1: Vec<[f32; 3]> = md2.frame(1).unwrap().positions().collect();
    let mesh = md2.soft_mesh();
    assert_eq!(
        still.meshes[0].primitives[0].positions[0],
        f1[mesh.vertices[0].xyz as usize]
    );
    let none = Options {
        clip: Some("stand".into()),
        ..Options::default()
    };
    assert!(scene_with(&md2, "m", &none, &side).is_err());
}

#[test]
fn ufoai_models_get_named_clips_and_keep_real_normals() {
    let Some(dir) = idmodel_test_support::corpus_dir("ufoai_models_get_named_clips") else {
        return;
    };
    let folder = dir.join("assets/ufoai/base/models/aliens/bloodspider");
    let bytes = std::fs::read(folder.join("bloodspider.md2")).unwrap();
    let md2 = Md2::parse(&bytes).unwrap();
    // This corpus's UFO:AI MD2s carry real normals (162 indices in use): kept.
    assert_eq!(md2.single_normal_index(), None);
    let text = std::fs::read(folder.join("bloodspider.anm")).unwrap();
    let anm = Anm::parse(&text).unwrap();
    let side = Sidecars {
        clips: RateClip::from_anm(&anm),
        keep_normals: false,
    };
    let s = scene_with(&md2, "bloodspider", &Options::default(), &side).unwrap();
    assert_eq!(s.animations.len(), 27);
    assert_eq!(s.animations[0].name, "walk0");
    assert_eq!(s.animations[0].channels[0].times.len(), 33);
    assert_eq!(s.animations[0].channels[0].times[1], 0.02);
    let plain = scene(&md2, "bloodspider", &Options::default()).unwrap();
    assert_eq!(
        plain.meshes[0].primitives[0].normals,
        s.meshes[0].primitives[0].normals
    );
}

#[test]
fn a_flat_model_with_one_index_keeps_its_facing() {
    // lily_leaf.md2: four vertices, all normal index 5: the computed normals face the
    // same way as the file's one normal.
    let test = "a_flat_model_with_one_index";
    let Some(bytes) = idmodel_test_support::corpus_file(test, "md2/lily_leaf.md2") else {
        return;
    };
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.single_normal_index(), Some(5));
    let file = md2.frame(0).unwrap().normals().next().unwrap();
    let s = scene(&md2, "leaf", &Options::default()).unwrap();
    for n in &s.meshes[0].primitives[0].normals {
        assert!(dot(*n, file) > 0.5, "{n:?} against {file:?}");
    }
}
