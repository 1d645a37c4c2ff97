//! Scene → MD3: every corpus MD3 → scene → GLB → scene → MD3 is byte-identical (the
//! exceptions counted and named), generated scenes convert with their animation, limits
//! split or refuse, and small arbitrary scenes come back within the quantisation step.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
use idmodel_gltf::{ExportOptions, to_glb};
use idmodel_md3::{Engine, Md3, Model, write};
use idmodel_scene::md3::{BackOptions, Limits, from_scene};
use idmodel_scene::{Options, md3};

/// The MD3 files of the corpus (the md3 folder and the assets).
fn corpus_md3() -> Vec<std::path::PathBuf> {
    let Some(dir) = idmodel_test_support::corpus_dir("md3_back") else {
        return Vec::new();
    };
    idmodel_test_support::files_with_ext(&dir, "md3")
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("malformed"))
        .collect()
}

fn via_glb(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let m = Md3::parse(bytes).map_err(|e| e.to_string())?;
    let scene = md3::scene(&m, "m", &Options::default()).map_err(|e| e.to_string())?;
    let glb = to_glb(&scene, &ExportOptions::default()).map_err(|e| e.to_string())?;
    let back =
        from_glb(&glb, &ImportOptions::default(), &mut no_files).map_err(|e| e.to_string())?;
    md3::to_bytes(&back, &BackOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn every_corpus_md3_round_trips_byte_identical_through_glb() {
    let files = corpus_md3();
    let mut same = 0;
    let mut exceptions = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let Ok(m) = Md3::parse(&bytes) else { continue };
        let canonical = write(&Model::from(m)).unwrap();
        match via_glb(&bytes) {
            Ok(out) if out == bytes => same += 1,
            Ok(out) if out == canonical => exceptions.push(format!(
                "{}: the writer's canonical layout differs from the file's",
                path.display()
            )),
            Ok(out) => {
                let at = out.iter().zip(&canonical).position(|(a, b)| a != b);
                exceptions.push(format!(
                    "{}: differs at byte {at:?} ({} vs {} bytes)",
                    path.display(),
                    out.len(),
                    canonical.len()
                ))
            }
            Err(e) => exceptions.push(format!("{}: {e}", path.display())),
        }
    }
    println!("{same} of {} corpus MD3 files byte-identical", files.len());
    for e in &exceptions {
        println!("exception: {e}");
    }
    if !files.is_empty() {
        assert!(exceptions.is_empty(), "{exceptions:#?}");
        assert!(same > 30, "only {same} files");
    }
}

/// GLBs written before `md3.normals_raw` listed every normal the float path misses as
/// `[surface, frame, vertex, normal]` in `md3.normals`: that form still comes back byte
/// for byte (each whole-surface blob rewritten as such a list).
#[test]
fn the_old_normal_exception_list_still_round_trips() {
    use idmodel_scene::Value;
    let mut rewritten = 0;
    for path in corpus_md3() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(m) = Md3::parse(&bytes) else { continue };
        let mut scene = md3::scene(&m, "m", &Options::default()).unwrap();
        let Some(raw) = scene.extras.get("md3.normals_raw").cloned() else {
            continue;
        };
        let mut old: Vec<Value> = scene
            .extras
            .get("md3.normals")
            .and_then(Value::as_list)
            .map(<[Value]>::to_vec)
            .unwrap_or_default();
        for c in raw.as_list().unwrap().chunks_exact(3) {
            let (s, nf) = (c[0].as_int().unwrap(), c[1].as_int().unwrap());
            let blob = idmodel_scene::back::base64_decode(c[2].as_str().unwrap()).unwrap();
            let verts = blob.len() as i64 / 2 / nf;
            for (k, n) in blob.chunks_exact(2).enumerate() {
                let k = k as i64;
                let n = i64::from(u16::from_le_bytes([n[0], n[1]]));
                old.extend([s, k / verts, k % verts, n].map(Value::Int));
            }
        }
        scene.extras.set("md3.normals_raw", Value::Null);
        scene.extras.set("md3.normals", Value::List(old));
        let glb = to_glb(&scene, &ExportOptions::default()).unwrap();
        let back = from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap();
        let out = md3::to_bytes(&back, &BackOptions::default()).unwrap();
        let canonical = write(&Model::from(m)).unwrap();
        assert!(
            out == bytes || out == canonical,
            "{}: the old normals form does not come back",
            path.display()
        );
        rewritten += 1;
    }
    if idmodel_test_support::corpus_dir("md3_back").is_some() {
        assert!(
            rewritten > 0,
            "no corpus MD3 keeps whole surfaces of normals"
        );
    }
}

use idmodel_core::findings::{Finding, Severity};
use idmodel_scene::{
    Animation, Channel, ChannelValues, Interpolation, Material, Mesh, MorphTarget, Node, Primitive,
    Scene,
};

/// A `w × h` grid of quads in the XY plane (id winding), with UVs.
fn grid(w: u32, h: u32) -> Primitive {
    let mut p = Primitive::default();
    for y in 0..=h {
        for x in 0..=w {
            p.positions.push([x as f32, y as f32, 0.0]);
            p.uvs.push([x as f32 / w as f32, y as f32 / h as f32]);
        }
    }
    let at = |x: u32, y: u32| y * (w + 1) + x;
    for y in 0..h {
        for x in 0..w {
            // Clockwise seen from +Z (id front faces).
            p.indices.extend([at(x, y), at(x, y + 1), at(x + 1, y)]);
            p.indices
                .extend([at(x + 1, y), at(x, y + 1), at(x + 1, y + 1)]);
        }
    }
    p
}

/// A shape-key animation made outside idmodel's adapters: `targets` keys, each lifting the
/// grid by `k + 1` units, as dense weights.
fn shape_key_scene(w: u32, h: u32, targets: usize) -> Scene {
    let mut p = grid(w, h);
    p.material = Some(0);
    for k in 0..targets {
        p.targets.push(MorphTarget {
            positions: vec![[0.0, 0.0, (k + 1) as f32 + 0.25]; p.positions.len()],
            normals: Vec::new(),
        });
    }
    let mut node = Node::new("sheet");
    node.mesh = Some(0);
    let mut tag = Node::new("tag_top");
    tag.translation = [1.0, 2.0, 3.0];
    node.children.push(1);
    let keys = targets + 1;
    let mut weights = vec![0.0; keys * targets];
    for k in 1..keys {
        weights[k * targets + (k - 1)] = 1.0;
    }
    Scene {
        name: "sheet".into(),
        meshes: vec![Mesh {
            name: "sheet".into(),
            primitives: vec![p],
            target_names: (0..targets).map(|k| format!("lift{k}")).collect(),
        }],
        materials: vec![Material::new("textures/sheet", None)],
        nodes: vec![node, tag],
        animations: vec![Animation {
            name: "lift".into(),
            channels: vec![Channel {
                node: 0,
                times: (0..keys).map(|k| k as f32 / 10.0).collect(),
                interpolation: Interpolation::Linear,
                values: ChannelValues::Weights(weights),
            }],
        }],
        ..Scene::default()
    }
}

fn glb_trip(scene: &Scene) -> Scene {
    let glb = to_glb(scene, &ExportOptions::default()).unwrap();
    from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap()
}

#[test]
fn shape_key_glb_converts_with_its_animation() {
    let scene = glb_trip(&shape_key_scene(4, 3, 3));
    let model = from_scene(
        &scene,
        &BackOptions {
            shader_prefix: "models/x/".into(),
            ..BackOptions::default()
        },
    )
    .unwrap();
    let bytes = write(&model).unwrap();
    let m = Md3::parse(&bytes).unwrap();
    assert_eq!(m.num_frames(), 4);
    assert_eq!(m.frames()[2].name().as_bytes(), b"lift1");
    let s = m.surfaces().next().unwrap();
    assert_eq!(s.shaders()[0].name().as_bytes(), b"models/x/textures/sheet");
    for f in 0..4 {
        let z: Vec<f32> = s.positions(f).unwrap().map(|p| p[2]).collect();
        let want = if f == 0 { 0.0 } else { f as f32 + 0.25 };
        assert!(
            z.iter().all(|&z| (z - want).abs() <= 1.0 / 128.0),
            "frame {f}: {z:?}"
        );
    }
    // The tag, every frame; the bounds and radius from the frame's vertices.
    assert_eq!(m.num_tags(), 1);
    assert_eq!(m.frame_tags(3).unwrap()[0].origin(), [1.0, 2.0, 3.0]);
    assert_eq!(m.frames()[1].maxs(), [4.0, 3.0, 1.25]);
    assert!((m.frames()[1].radius() - (16.0f32 + 9.0 + 1.5625).sqrt()).abs() < 1e-4);
    // Normals point up (+Z) for a flat sheet of clockwise triangles.
    let n: Vec<[f32; 3]> = s
        .normals(0, idmodel_md3::NormalDecode::Ideal)
        .unwrap()
        .collect();
    assert!(n.iter().all(|n| n[2] > 0.99), "{n:?}");
}

fn worst(bytes: &[u8], engine: Engine) -> Option<Severity> {
    let m = Md3::parse(bytes).unwrap();
    m.findings(engine).iter().map(|f| f.severity()).max()
}

#[test]
fn over_the_quake3_limit_splits_or_refuses_and_passes_check() {
    // 41 × 41 = 1681 vertices, 3200 triangles: over both engines' limits.
    let scene = glb_trip(&shape_key_scene(40, 40, 2));
    for engine in [Engine::Quake3, Engine::Ioq3] {
        let limits = Limits::of(engine).unwrap();
        let refused = from_scene(
            &scene,
            &BackOptions {
                limits: Some(limits),
                ..BackOptions::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains(&format!("{} vertices", limits.verts)),
            "{refused}"
        );
        let model = from_scene(
            &scene,
            &BackOptions {
                limits: Some(limits),
                split: true,
                ..BackOptions::default()
            },
        )
        .unwrap();
        assert!(model.surfaces.len() >= 2);
        let tris: usize = model.surfaces.iter().map(|s| s.triangles.len()).sum();
        assert_eq!(tris, 3200);
        for s in &model.surfaces {
            assert!(s.st.len() <= limits.verts && s.triangles.len() <= limits.triangles);
        }
        let bytes = write(&model).unwrap();
        assert!(
            worst(&bytes, engine).is_none_or(|s| s < Severity::Hazard),
            "{engine:?}: {:?}",
            Md3::parse(&bytes).unwrap().findings(engine)
        );
        assert_eq!(Md3::parse(&bytes).unwrap().num_frames(), 3);
    }
}

/// A strip of `verts` vertices in the XY plane whose `tris` triangles walk along it
/// (wrapping round when there are more triangles than the strip has).
fn strip_scene(verts: u32, tris: usize) -> Scene {
    let mut p = Primitive::default();
    for v in 0..verts {
        p.positions
            .push([(v / 2) as f32 * 0.5, (v % 2) as f32, 0.0]);
        p.uvs.push([v as f32 / verts as f32, 0.5]);
    }
    for k in 0..tris as u32 {
        let j = k % (verts - 2);
        // Clockwise seen from +Z on every other one; the winding does not matter here.
        p.indices.extend([j, j + 1, j + 2]);
    }
    let mut node = Node::new("strip");
    node.mesh = Some(0);
    Scene {
        meshes: vec![Mesh {
            name: "strip".into(),
            primitives: vec![p],
            ..Mesh::default()
        }],
        nodes: vec![node],
        ..Scene::default()
    }
}

#[test]
fn limits_of_both_engines_are_what_they_draw() {
    // Quake III 1.32 loads 1000 vertices / 2000 triangles a surface, but its renderer
    // drops to the console at the first draw of such a surface (RB_CheckOverflow), and
    // ioquake3 refuses them at load: a written file keeps to 999 / 1999 for both.
    for engine in [Engine::Quake3, Engine::Ioq3] {
        let limits = Limits::of(engine).unwrap();
        assert_eq!((limits.verts, limits.triangles), (999, 1999), "{engine:?}");
        let refuse = BackOptions {
            limits: Some(limits),
            ..BackOptions::default()
        };
        let split = BackOptions {
            split: true,
            ..refuse.clone()
        };
        // Just at each limit: written as one surface, with no finding of harm.
        for (verts, tris) in [(999, 997), (12, 1999)] {
            let model = from_scene(&strip_scene(verts, tris), &refuse).unwrap();
            assert_eq!(model.surfaces.len(), 1);
            let s = &model.surfaces[0];
            assert_eq!((s.st.len(), s.triangles.len()), (verts as usize, tris));
            let bytes = write(&model).unwrap();
            for e in [Engine::Quake3, Engine::Ioq3] {
                assert!(
                    worst(&bytes, e).is_none_or(|s| s < Severity::Hazard),
                    "{e:?}"
                );
            }
        }
        // Just over: refused naming the limit, or split into surfaces both engines draw.
        for (verts, tris, named) in [(1000, 998, "999 vertices"), (12, 2000, "1999 triangles")] {
            let scene = strip_scene(verts, tris);
            let e = from_scene(&scene, &refuse).unwrap_err().to_string();
            assert!(e.contains(named), "{e}");
            let model = from_scene(&scene, &split).unwrap();
            assert_eq!(model.surfaces.len(), 2, "{verts} / {tris}");
            for s in &model.surfaces {
                assert!(s.st.len() <= 999 && s.triangles.len() <= 1999);
            }
            let total: usize = model.surfaces.iter().map(|s| s.triangles.len()).sum();
            assert_eq!(total, tris);
            let bytes = write(&model).unwrap();
            for e in [Engine::Quake3, Engine::Ioq3] {
                assert!(
                    worst(&bytes, e).is_none_or(|s| s < Severity::Hazard),
                    "{e:?}"
                );
            }
        }
    }
    // Without limits, the same 1000-vertex surface is written whole, and checking it
    // shows why the limit is 999: Quake III 1.32 cannot draw it, ioquake3 refuses it.
    let whole =
        write(&from_scene(&strip_scene(1000, 998), &BackOptions::default()).unwrap()).unwrap();
    assert_eq!(worst(&whole, Engine::Quake3), Some(Severity::Hazard));
    assert_eq!(worst(&whole, Engine::Ioq3), Some(Severity::Refused));
    assert_eq!(Limits::of(Engine::Quake2), None);
}

mod property {
    use super::*;
    use proptest::prelude::*;

    /// A small scene: one mesh of `n` vertices (positions within ±500), a triangle fan,
    /// `t` morph targets keyed one per frame.
    fn scene_of(base: Vec<[f32; 3]>, disp: Vec<Vec<[f32; 3]>>) -> Scene {
        let n = base.len() as u32;
        let mut p = Primitive {
            positions: base,
            uvs: (0..n).map(|i| [i as f32 / n as f32, 0.5]).collect(),
            material: None,
            ..Primitive::default()
        };
        for i in 1..n - 1 {
            p.indices.extend([0, i, i + 1]);
        }
        for d in &disp {
            p.targets.push(MorphTarget {
                positions: d.clone(),
                normals: Vec::new(),
            });
        }
        let mut node = Node::new("m");
        node.mesh = Some(0);
        Scene {
            meshes: vec![Mesh {
                name: "m".into(),
                primitives: vec![p],
                ..Mesh::default()
            }],
            nodes: vec![node],
            ..Scene::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn small_scenes_come_back_within_the_quantisation_step(
            (base, disp) in (3usize..12, 0usize..4).prop_flat_map(|(n, t)| (
                proptest::collection::vec([-250.0f32..250.0, -250.0f32..250.0, -250.0f32..250.0], n),
                proptest::collection::vec(
                    proptest::collection::vec([-200.0f32..200.0, -200.0f32..200.0, -200.0f32..200.0], n), t),
            ))
        ) {
            let scene = scene_of(base.clone(), disp.clone());
            let bytes = write(&from_scene(&scene, &BackOptions::default()).unwrap()).unwrap();
            let m = Md3::parse(&bytes).unwrap();
            let back = md3::scene(&m, "m", &Options::default()).unwrap();
            prop_assert_eq!(m.num_frames(), disp.len() + 1);
            let p = &back.meshes[0].primitives[0];
            let q = &scene.meshes[0].primitives[0];
            prop_assert_eq!(&p.indices, &q.indices);
            prop_assert_eq!(&p.uvs, &q.uvs);
            for f in 0..=disp.len() {
                for v in 0..base.len() {
                    let want = if f == 0 { q.positions[v] } else {
                        let d = q.targets[f - 1].positions[v];
                        [q.positions[v][0] + d[0], q.positions[v][1] + d[1], q.positions[v][2] + d[2]]
                    };
                    let got = if f == 0 { p.positions[v] } else {
                        let d = p.targets[f - 1].positions[v];
                        [p.positions[v][0] + d[0], p.positions[v][1] + d[1], p.positions[v][2] + d[2]]
                    };
                    for k in 0..3 {
                        prop_assert!((got[k] - want[k]).abs() <= 1.0 / 128.0 + 1e-4,
                            "frame {} vertex {}: {:?} vs {:?}", f, v, got, want);
                    }
                }
            }
        }
    }
}

/// FNV-1a, 64 bits: the guard older files hold under `md3.hash`.
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Bytes the owned model cannot hold (garbage after the name's NUL) come back through
/// the patches, guarded by `md3.digest`, and, in files written before the digest, by
/// FNV-1a under `md3.hash`; a guard that does not match leaves the writer's bytes.
#[test]
fn md3_patches_apply_by_digest_and_by_the_older_fnv_hash() {
    use idmodel_scene::Value;
    let canonical = write(&Model::example()).unwrap();
    let mut bytes = canonical.clone();
    // The header's 64-byte name field starts at offset 8; its last byte is after the NUL.
    assert_eq!(bytes[8 + 63], 0);
    bytes[8 + 63] = b'X';
    let m = Md3::parse(&bytes).unwrap();
    let scene = md3::scene(&m, "m", &Options::default()).unwrap();
    assert!(scene.extras.get("md3.patches").is_some());
    assert!(scene.extras.get("md3.hash").is_none());
    let back =
        |scene: &idmodel_scene::Scene| md3::to_bytes(scene, &BackOptions::default()).unwrap();
    assert_eq!(back(&scene), bytes);
    // The same extras as an older file holds them.
    let mut old = scene.clone();
    old.extras.set("md3.digest", Value::Null);
    old.extras.set(
        "md3.hash",
        Value::Str(format!("{:016x}", fnv1a(&canonical))),
    );
    assert_eq!(back(&old), bytes);
    // Guards for other bytes: the patches are not applied.
    let mut wrong = old.clone();
    wrong
        .extras
        .set("md3.hash", Value::Str(format!("{:016x}", fnv1a(&bytes))));
    assert_eq!(back(&wrong), canonical);
    let mut wrong = scene.clone();
    wrong
        .extras
        .set("md3.digest", Value::Str("0000000000000000".into()));
    assert_eq!(back(&wrong), canonical);
}

/// Two objects with shape keys (a scene as Blender exports it: one node and one mesh per
/// object): both surfaces follow the frames, not only the first object's.
#[test]
fn every_object_with_morph_targets_follows_the_frames() {
    use idmodel_scene::{
        Animation, Channel, ChannelValues, Interpolation, Mesh, MorphTarget, Node,
    };
    let mut scene = idmodel_scene::Scene::default();
    for (i, lift) in [(0usize, 1.0f32), (1, 4.0)] {
        let mut p = idmodel_scene::Primitive {
            positions: vec![[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [0.0, 8.0, 0.0]],
            indices: vec![0, 1, 2],
            ..Default::default()
        };
        let moved: Vec<[f32; 3]> = p
            .positions
            .iter()
            .map(|v| [v[0], v[1], v[2] + lift])
            .collect();
        p.targets = vec![MorphTarget::from_absolute(&p.positions, &moved, &[], &[])];
        scene.meshes.push(Mesh {
            name: format!("object{i}"),
            primitives: vec![p],
            target_names: vec!["up".into()],
        });
        let mut node = Node::new(format!("object{i}"));
        node.mesh = Some(i);
        scene.nodes.push(node);
    }
    scene.animations.push(Animation {
        name: "lift".into(),
        channels: (0..2)
            .map(|node| Channel {
                node,
                times: vec![0.0, 0.1],
                interpolation: Interpolation::Step,
                values: ChannelValues::one_hot(1, [None, Some(0)]),
            })
            .collect(),
    });
    let model = from_scene(&scene, &BackOptions::default()).unwrap();
    assert_eq!(model.frames.len(), 2);
    assert_eq!(model.surfaces.len(), 2);
    for (s, lift) in model.surfaces.iter().zip([1.0f32, 4.0]) {
        let z0 = f32::from(s.frames[0][0].xyz[2]) / 64.0;
        let z1 = f32::from(s.frames[1][0].xyz[2]) / 64.0;
        assert_eq!(z1 - z0, lift, "surface {:?}", s.name);
    }
}

/// A scene without idmodel's record (an editor's export, any glTF) is written with the
/// normals the engine shows nearest to its own, so an MD3 whose record was dropped gets
/// its engine normals back: every one off the poles (q3map's encoder would turn nearly
/// all of them one step back).
#[test]
fn without_the_record_the_engine_normals_come_back() {
    let mut files = vec![("example".to_string(), write(&Model::example()).unwrap())];
    for path in corpus_md3().into_iter().take(8) {
        files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    for (name, bytes) in files {
        let Ok(m) = Md3::parse(&bytes) else { continue };
        let mut scene = md3::scene(&m, "m", &Options::default()).unwrap();
        scene.extras = Default::default();
        let Ok(back) = md3::from_scene(&scene, &BackOptions::default()) else {
            continue;
        };
        let original = Model::from(m);
        let (mut same, mut all) = (0usize, 0usize);
        let drawn = original
            .surfaces
            .iter()
            .filter(|s| !s.st.is_empty() && !s.triangles.is_empty() && !s.frames.is_empty());
        for (a, b) in drawn.zip(&back.surfaces) {
            for (fa, fb) in a.frames.iter().zip(&b.frames) {
                for (va, vb) in fa.iter().zip(fb) {
                    all += 1;
                    if va.normal == vb.normal {
                        same += 1;
                    }
                }
            }
        }
        assert!(all > 0, "{name}: no normals compared");
        assert!(
            same * 100 >= all * 97,
            "{name}: {same} of {all} normals came back"
        );
    }
}
