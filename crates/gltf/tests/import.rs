//! The glTF reader: every corpus model → scene → GLB (and `.gltf` + `.bin`, both axis
//! modes) → scene gives back the scene (positions, UVs, indices, morph displacements,
//! times and translations bit for bit: the axis change is a permutation; normals,
//! quaternions and joint weights as the exporter normalised them); hostile documents are
//! errors.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

mod common;

use idmodel_gltf::import::{ImportError, ImportOptions, from_glb, from_gltf, no_files};
use idmodel_gltf::{ExportOptions, to_glb, to_gltf};
use idmodel_scene::axes::Axes;
use idmodel_scene::{ChannelValues, Options, Scene, md2, md3, md5, mdl, unit_or_up};

/// The scenes of one corpus file (animated, as the command converts it).
fn scenes_of(path: &std::path::Path) -> Vec<Scene> {
    let data = std::fs::read(path).unwrap();
    let o = Options::default();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let r = match ext.as_str() {
        "mdl" => idmodel_mdl::Mdl::parse(&data)
            .ok()
            .and_then(|m| mdl::scene(&m, "m", &o).ok()),
        "md2" => idmodel_md2::Md2::parse(&data)
            .ok()
            .and_then(|m| md2::scene(&m, "m", &o).ok()),
        "md3" => idmodel_md3::Md3::parse(&data)
            .ok()
            .and_then(|m| md3::scene(&m, "m", &o).ok()),
        "md5mesh" => idmodel_md5::mesh::Model::parse(&data)
            .ok()
            .and_then(|m| md5::mesh::scene(&m, "m", &o).ok()),
        "md5anim" => idmodel_md5::anim::Anim::parse(&data)
            .ok()
            .and_then(|a| md5::anim::scene(&a, "m", &o).ok()),
        "md5camera" => idmodel_md5::camera::Camera::parse(&data)
            .ok()
            .and_then(|c| md5::camera::scene(&c, "m", &o).ok()),
        _ => None,
    };
    r.into_iter().collect()
}

fn unit_quat(q: [f32; 4]) -> [f32; 4] {
    let len = (q.iter().map(|c| c * c).sum::<f32>()).sqrt();
    if len.is_finite() && len > 1e-12 {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

fn close<const N: usize>(a: &[[f32; N]], b: &[[f32; N]], eps: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        for (p, q) in x.iter().zip(y) {
            assert!((p - q).abs() <= eps, "{what}[{i}]: {x:?} vs {y:?}");
        }
    }
}

/// The scene as the exporter writes it: empty primitives left out, normals unit,
/// quaternions unit, influences merged and normalised, indexed images as the RGBA a PNG
/// decodes to.
fn as_exported(mut s: Scene) -> Scene {
    for m in &mut s.materials {
        for slot in [&mut m.image, &mut m.emissive, &mut m.normal] {
            *slot = slot.take().map(idmodel_scene::Image::to_rgba8);
        }
    }
    let mut map = Vec::new();
    let mut meshes = Vec::new();
    for mut m in std::mem::take(&mut s.meshes) {
        m.primitives
            .retain(|p| !p.positions.is_empty() && !p.indices.is_empty());
        if m.primitives.is_empty() {
            map.push(None);
        } else {
            map.push(Some(meshes.len()));
            meshes.push(m);
        }
    }
    s.meshes = meshes;
    for n in &mut s.nodes {
        n.mesh = n.mesh.and_then(|m| map[m]);
        if n.mesh.is_none() {
            n.skin = None;
        }
        n.rotation = unit_quat(n.rotation);
    }
    for m in &mut s.meshes {
        for p in &mut m.primitives {
            for n in &mut p.normals {
                *n = unit_or_up(*n);
            }
            if p.normals.is_empty() {
                for t in &mut p.targets {
                    t.normals.clear();
                }
            }
        }
    }
    for a in &mut s.animations {
        a.channels
            .retain(|c| !c.values.is_weights() || s.nodes[c.node].mesh.is_some());
        for c in &mut a.channels {
            if let ChannelValues::Rotation(v) = &mut c.values {
                for q in v {
                    *q = unit_quat(*q);
                }
            }
        }
    }
    s.animations.retain(|a| !a.channels.is_empty());
    s
}

/// Asserts that `a` and `b` agree in each named field, the message naming `what` and the
/// field.
macro_rules! same_fields {
    ($a:expr, $b:expr, $what:expr; $($f:ident),+) => {
        $(assert_eq!($a.$f, $b.$f, "{}: {}", $what, stringify!($f));)+
    };
}

fn assert_same(got: &Scene, want: &Scene, file: &str) {
    same_fields!(got, want, file; name, extras, materials, cameras);
    assert_eq!(got.meshes.len(), want.meshes.len(), "{file}: meshes");
    for (mi, (g, w)) in got.meshes.iter().zip(&want.meshes).enumerate() {
        let what = format!("{file} mesh {mi}");
        same_fields!(g, w, what; name, target_names);
        assert_eq!(g.primitives.len(), w.primitives.len(), "{what}");
        for (pi, (a, b)) in g.primitives.iter().zip(&w.primitives).enumerate() {
            let what = format!("{what} primitive {pi}");
            same_fields!(a, b, what; positions, uvs, indices, material);
            close(&a.normals, &b.normals, 0.0, &format!("{what} normals"));
            assert_eq!(a.targets.len(), b.targets.len(), "{what}: targets");
            for (ta, tb) in a.targets.iter().zip(&b.targets) {
                assert_eq!(ta.positions, tb.positions, "{what}: target positions");
                assert_eq!(ta.normals, tb.normals, "{what}: target normals");
            }
            assert_eq!(a.influences.len(), b.influences.len(), "{what}: influences");
            for (v, (ia, ib)) in a.influences.iter().zip(&b.influences).enumerate() {
                let mut ib: Vec<(u16, f32)> =
                    ib.iter().copied().filter(|&(_, w)| w > 0.0).collect();
                let sum: f32 = ib.iter().map(|p| p.1).sum();
                ib.iter_mut().for_each(|p| p.1 /= sum);
                ib.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
                ib.truncate(8);
                assert_eq!(ia.len(), ib.len(), "{what} vertex {v}: {ia:?} vs {ib:?}");
                for (x, y) in ia.iter().zip(&ib) {
                    assert_eq!(x.0, y.0, "{what} vertex {v}");
                    assert!((x.1 - y.1).abs() < 1e-5, "{what} vertex {v}");
                }
            }
        }
    }
    assert_eq!(got.nodes.len(), want.nodes.len(), "{file}: nodes");
    for (i, (a, b)) in got.nodes.iter().zip(&want.nodes).enumerate() {
        let what = format!("{file} node {i}");
        same_fields!(a, b, what; name, children, translation, scale);
        assert_eq!(a.weights, b.weights, "{what}: rest weights");
        close(&[a.rotation], &[b.rotation], 1e-6, &what);
        assert_eq!(
            (a.mesh, a.skin, a.camera),
            (b.mesh, b.skin, b.camera),
            "{what}"
        );
    }
    assert_eq!(got.skins, want.skins, "{file}: skins");
    assert_eq!(
        got.animations.len(),
        want.animations.len(),
        "{file}: animations"
    );
    for (a, b) in got.animations.iter().zip(&want.animations) {
        assert_eq!(a.name, b.name, "{file}");
        assert_eq!(a.channels.len(), b.channels.len(), "{file} {}", a.name);
        for (ci, (x, y)) in a.channels.iter().zip(&b.channels).enumerate() {
            let what = format!("{file} animation {:?} channel {ci}", a.name);
            same_fields!(x, y, what; node, times, interpolation);
            match (&x.values, &y.values) {
                (ChannelValues::Rotation(p), ChannelValues::Rotation(q)) => close(p, q, 0.0, &what),
                (p, q) => assert_eq!(p, q, "{what}"),
            }
        }
    }
}

/// Exports `scene` every way and reads it back.
fn round_trip(scene: &Scene, file: &str) {
    let want = as_exported(scene.clone());
    for axes in [Axes::YUp, Axes::Keep] {
        let eo = ExportOptions {
            axes,
            ..ExportOptions::default()
        };
        let io = ImportOptions {
            keep_axes: axes == Axes::Keep,
            ..ImportOptions::default()
        };
        let glb = to_glb(scene, &eo).unwrap();
        let got = from_glb(&glb, &io, &mut no_files).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_same(&got, &want, &format!("{file} (glb, {axes:?})"));
        let files = to_gltf(scene, &eo, "m.bin").unwrap();
        let bin = files.bin.clone();
        // A .gltf's embedded images are files beside it (m_N.png): the resolver serves
        // them (an adapter's URI images are no files: kept as URIs).
        let io = ImportOptions {
            read_images: !files.images.is_empty(),
            ..io
        };
        let got = from_gltf(&files.json, &io, &mut |uri: &str| {
            if uri == "m.bin" {
                return Some(bin.clone());
            }
            files
                .images
                .iter()
                .find(|(n, _)| n == uri)
                .map(|(_, b)| b.clone())
        })
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_same(&got, &want, &format!("{file} (gltf, {axes:?})"));
    }
}

#[test]
fn corpus_models_round_trip_through_glb() {
    let Some(dir) = idmodel_test_support::corpus_dir("corpus_models_round_trip_through_glb") else {
        return;
    };
    let mut n = 0;
    for path in idmodel_test_support::walk(&dir) {
        if path.to_string_lossy().contains("malformed") {
            continue;
        }
        for scene in scenes_of(&path) {
            round_trip(&scene, &path.display().to_string());
            n += 1;
        }
    }
    println!("{n} corpus scenes round-tripped");
    assert!(n > 50, "only {n} corpus scenes");
}

#[test]
fn gltf_buffer_needs_the_resolver() {
    let scene = cube_scene();
    let files = to_gltf(&scene, &ExportOptions::default(), "m.bin").unwrap();
    let err = from_gltf(&files.json, &ImportOptions::default(), &mut no_files).unwrap_err();
    assert!(matches!(err, ImportError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("m.bin"), "{err}");
}

fn cube_scene() -> Scene {
    Scene {
        name: "cube".into(),
        meshes: vec![idmodel_scene::Mesh {
            name: "cube".into(),
            primitives: vec![common::cube(Some(0))],
            ..idmodel_scene::Mesh::default()
        }],
        materials: vec![idmodel_scene::Material::new(
            "checker",
            Some(common::checker()),
        )],
        nodes: vec![common::mesh_node("cube")],
        ..Scene::default()
    }
}

#[test]
fn embedded_png_comes_back_as_pixels() {
    round_trip(&cube_scene(), "cube");
}

/// A `.gltf` of one triangle with its buffer as a data URI (`positions` then `indices`),
/// patched by `edit`.
fn tiny(edit: impl FnOnce(&mut serde_json::Value)) -> Result<Scene, ImportError> {
    let mut bin = Vec::new();
    for f in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&f.to_le_bytes());
    }
    for i in [0u16, 1, 2, 0] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for c in bin.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for k in 0..=c.len() {
            text.push(B64[((n >> (18 - 6 * k)) & 63) as usize] as char);
        }
        for _ in c.len()..3 {
            text.push('=');
        }
    }
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{text}")}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ],
        "meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "nodes": [{"name": "n", "mesh": 0}],
        "scenes": [{"nodes": [0]}]
    });
    edit(&mut doc);
    from_gltf(
        &serde_json::to_vec(&doc).unwrap(),
        &ImportOptions::default(),
        &mut no_files,
    )
}

#[test]
fn data_uri_triangle_reads_with_axes_and_winding() {
    let s = tiny(|_| {}).unwrap();
    let p = &s.meshes[0].primitives[0];
    // glTF (1, 0, 0) is file +Y; (0, 1, 0) is file +Z (up).
    assert_eq!(
        p.positions,
        vec![[0.0; 3], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
    assert_eq!(p.indices, vec![0, 2, 1]);
}

/// One hostile edit of [`tiny`]'s document, named.
type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;

fn case(
    name: &'static str,
    edit: impl FnOnce(&mut serde_json::Value) + 'static,
) -> (&'static str, Edit) {
    (name, Box::new(edit))
}

#[test]
fn hostile_documents_are_errors() {
    let cases: Vec<(&str, Edit)> = vec![
        case("huge_count", |d| {
            d["accessors"][0]["count"] = 4_000_000_000u64.into()
        }),
        case("index_out_of_range", |d| {
            d["meshes"][0]["primitives"][0]["indices"] = 7.into()
        }),
        case("bad_vertex_index", |d| {
            d["accessors"][1]["count"] = 4.into()
        }),
        case("cycle", |d| {
            d["nodes"] = serde_json::json!([{"children": [1]}, {"children": [0]}]);
        }),
        case("own_child", |d| {
            d["nodes"] = serde_json::json!([{"children": [0]}])
        }),
        case("points", |d| {
            d["meshes"][0]["primitives"][0]["mode"] = 0.into()
        }),
        case("view_past_buffer", |d| {
            d["bufferViews"][0]["byteLength"] = 4000.into()
        }),
        case("sparse_past_end", |d| {
            d["accessors"][0]["sparse"] = serde_json::json!({
                "count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                "values": {"bufferView": 0}});
            d["bufferViews"][1]["byteLength"] = 6.into();
            // index 2 of view 1 is 2 (< 3, fine); make the count small so it is past the end
            d["accessors"][0]["count"] = 0.into();
        }),
        case("zero_accessor_over_budget", |d| {
            d["accessors"][0] =
                serde_json::json!({"componentType": 5126, "count": 900_000_000u64, "type": "VEC3"});
        }),
        case("not_gltf2", |d| d["asset"]["version"] = "1.0".into()),
    ];
    for (name, edit) in cases {
        let err = tiny(edit).expect_err(name);
        let m = err.to_string();
        assert!(!m.contains('\n') && !m.is_empty(), "{name}: {m}");
        if name == "points" {
            assert!(m.contains("mesh 0 (\"tri\")"), "{name}: {m}");
        }
        if name == "zero_accessor_over_budget" {
            assert!(matches!(err, ImportError::OverBudget { .. }), "{name}: {m}");
        }
    }
}

#[test]
fn strips_and_fans_are_triangulated() {
    let strip = tiny(|d| d["meshes"][0]["primitives"][0]["mode"] = 5.into()).unwrap();
    assert_eq!(strip.meshes[0].primitives[0].indices, vec![0, 2, 1]);
    let fan = tiny(|d| d["meshes"][0]["primitives"][0]["mode"] = 6.into()).unwrap();
    // glTF fan triangle {v1, v2, v0}, then the winding swap.
    assert_eq!(fan.meshes[0].primitives[0].indices, vec![1, 0, 2]);
}

#[test]
fn truncated_and_mutated_glb_never_panics() {
    let glb = to_glb(&cube_scene(), &ExportOptions::default()).unwrap();
    for cut in (0..glb.len()).step_by(97) {
        let _ = from_glb(&glb[..cut], &ImportOptions::default(), &mut no_files);
    }
    for at in (0..glb.len()).step_by(13) {
        let mut m = glb.clone();
        m[at] ^= 0x5A;
        let _ = from_glb(&m, &ImportOptions::default(), &mut no_files);
    }
}

#[test]
fn rest_weights_come_back_and_a_wrong_count_is_refused() {
    let bytes = idmodel_md3::write(&idmodel_md3::Model::example()).unwrap();
    let m = idmodel_md3::Md3::parse(&bytes).unwrap();
    let mut scene = md3::scene(&m, "m", &Options::default()).unwrap();
    let node = scene.nodes.iter().position(|n| n.mesh.is_some()).unwrap();
    let targets = scene.meshes[scene.nodes[node].mesh.unwrap()].primitives[0]
        .targets
        .len();
    assert!(targets > 0, "the example is animated");
    let mut w = vec![0.0; targets];
    w[targets - 1] = 1.0;
    scene.nodes[node].weights = w.clone();
    round_trip(&scene, "example with rest weights");
    let glb = to_glb(&scene, &ExportOptions::default()).unwrap();
    let got = from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap();
    assert_eq!(got.nodes[node].weights, w);
    // One weight too many: the exporter refuses, naming the node.
    scene.nodes[node].weights.push(0.5);
    let err = to_glb(&scene, &ExportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("rest weights"), "{err}");
}
