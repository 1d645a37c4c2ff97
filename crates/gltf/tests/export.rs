//! Builds scenes of every kind the adapters will produce, exports them as `.glb` and
//! `.gltf` + `.bin` (Y-up and file axes), and runs the Khronos validator on each file when
//! Node.js and `.validator/node_modules/gltf-validator` are present (a notice is printed
//! and validation skipped otherwise). The structural checks run either way.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::*;
use idmodel_gltf::{ExportOptions, to_glb, to_gltf};
use idmodel_scene::axes::{Axes, yfov_from_xfov};
use idmodel_scene::{
    Animation, Camera, Channel, ChannelValues, Image, Interpolation, Material, Mesh, MorphTarget,
    Node, Primitive, Scene, Skin,
};

#[test]
fn static_mesh() {
    let scene = Scene {
        name: "cube".into(),
        meshes: vec![Mesh {
            name: "cube".into(),
            primitives: vec![cube(Some(0))],
            ..Mesh::default()
        }],
        materials: vec![Material::new("plain", None)],
        nodes: vec![mesh_node("cube")],
        ..Scene::default()
    };
    let json = export_and_validate("static_mesh", &scene);
    let pos = &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    assert_eq!(pos["min"], serde_json::json!([-1.0, -1.0, -1.0]));
    assert_eq!(pos["max"], serde_json::json!([1.0, 1.0, 1.0]));
    assert_eq!(pos["componentType"], 5126);
    let view = &json["bufferViews"][pos["bufferView"].as_u64().unwrap() as usize];
    assert_eq!(view["target"], 34962);
    let idx = &json["accessors"][json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize];
    assert_eq!(idx["componentType"], 5123);
    let view = &json["bufferViews"][idx["bufferView"].as_u64().unwrap() as usize];
    assert_eq!(view["target"], 34963);
}

/// The exporter's triangles are counter-clockwise seen from outside the cube, i.e. their
/// geometric normal agrees with the vertex normals, in both axis modes.
#[test]
fn winding_and_axes_agree_with_normals() {
    let p = cube(None);
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![p],
            ..Mesh::default()
        }],
        nodes: vec![mesh_node("cube")],
        ..Scene::default()
    };
    for axes in [Axes::YUp, Axes::Keep] {
        let opts = ExportOptions {
            axes,
            ..ExportOptions::default()
        };
        let files = to_gltf(&scene, &opts, "x.bin").unwrap();
        let json: serde_json::Value = serde_json::from_slice(&files.json).unwrap();
        let read = |acc: u64| -> Vec<u8> {
            let a = &json["accessors"][acc as usize];
            let v = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
            let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
            let len = v["byteLength"].as_u64().unwrap() as usize;
            files.bin[off..off + len].to_vec()
        };
        let prim = &json["meshes"][0]["primitives"][0];
        let f32s = |b: Vec<u8>| -> Vec<f32> {
            b.chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let pos = f32s(read(prim["attributes"]["POSITION"].as_u64().unwrap()));
        let nor = f32s(read(prim["attributes"]["NORMAL"].as_u64().unwrap()));
        let idx: Vec<usize> = read(prim["indices"].as_u64().unwrap())
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as usize)
            .collect();
        let v3 = |d: &[f32], i: usize| [d[3 * i], d[3 * i + 1], d[3 * i + 2]];
        for t in idx.chunks(3) {
            let [a, b, c] = [v3(&pos, t[0]), v3(&pos, t[1]), v3(&pos, t[2])];
            let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let g = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            let n = v3(&nor, t[0]);
            assert!(
                g[0] * n[0] + g[1] * n[1] + g[2] * n[2] > 0.0,
                "{axes:?} {t:?}"
            );
        }
        // The +X face of the file (the model's front) is glTF's +Z face under Y-up.
        let front = match axes {
            Axes::YUp => [0.0, 0.0, 1.0],
            Axes::Keep => [1.0, 0.0, 0.0],
        };
        assert_eq!(v3(&nor, 0), front);
    }
}

/// Three frames of a shape as a base plus two morph targets, animated by one LINEAR
/// and one STEP clip that share their key times.
#[test]
fn morph_animation() {
    let base = cube(None);
    let frames: Vec<Vec<[f32; 3]>> = (1..3)
        .map(|f| {
            base.positions
                .iter()
                .map(|p| [p[0] * (1.0 + f as f32), p[1], p[2] + f as f32])
                .collect()
        })
        .collect();
    let mut prim = base.clone();
    prim.targets = frames
        .iter()
        .map(|f| MorphTarget::from_absolute(&base.positions, f, &base.normals, &base.normals))
        .collect();
    let times = vec![0.0, 0.1, 0.2];
    let weights = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let clip = |name: &str, interpolation| Animation {
        name: name.into(),
        channels: vec![channel(
            0,
            interpolation,
            times.clone(),
            ChannelValues::Weights(weights.clone()),
        )],
    };
    let scene = Scene {
        meshes: vec![Mesh {
            name: "blob".into(),
            primitives: vec![prim],
            target_names: vec!["frame1".into(), "frame2".into()],
        }],
        nodes: vec![mesh_node("blob")],
        animations: vec![
            clip("walk", Interpolation::Linear),
            clip("pose", Interpolation::Step),
        ],
        ..Scene::default()
    };
    let json = export_and_validate("morph_animation", &scene);
    let a0 = &json["animations"][0]["samplers"][0];
    let a1 = &json["animations"][1]["samplers"][0];
    assert_eq!(a0["input"], a1["input"], "key times are shared");
    assert_eq!(a1["interpolation"], "STEP");
    assert_eq!(
        json["meshes"][0]["extras"]["targetNames"],
        serde_json::json!(["frame1", "frame2"])
    );
    let target = &json["meshes"][0]["primitives"][0]["targets"][1]["POSITION"];
    let acc = &json["accessors"][target.as_u64().unwrap() as usize];
    assert!(acc["min"].is_array() && acc["max"].is_array());
}

/// A two-bone arm: a root joint, a child joint, vertices with 1 to 10 influences
/// (duplicates and zero weights included) so both JOINTS/WEIGHTS sets are written, and
/// a clip rotating and moving the joints.
#[test]
fn skinned_mesh_with_animation() {
    let mut prim = cube(None);
    let joints = 10u16;
    prim.influences = (0..prim.positions.len())
        .map(|v| {
            let n = v % 11;
            let mut list: Vec<(u16, f32)> = (0..n as u16)
                .map(|k| (k % joints, 1.0 + f32::from(k)))
                .collect();
            list.push((1, 0.0));
            list
        })
        .collect();
    let mut nodes = vec![Node::new("body")];
    nodes[0].mesh = Some(0);
    nodes[0].skin = Some(0);
    // Joint chain: node 1 is the root joint, each next one its child, 1 unit along +X.
    for j in 0..joints {
        let mut n = Node::new(format!("joint{j}"));
        if j > 0 {
            n.translation = [1.0, 0.0, 0.0];
        }
        if j + 1 < joints {
            n.children = vec![usize::from(j) + 2];
        }
        nodes.push(n);
    }
    let ibm = (0..joints)
        .map(|j| {
            let mut m = [0.0f32; 16];
            m[0] = 1.0;
            m[5] = 1.0;
            m[10] = 1.0;
            m[15] = 1.0;
            m[12] = -f32::from(j);
            m
        })
        .collect();
    let half = core::f32::consts::FRAC_1_SQRT_2;
    let scene = Scene {
        meshes: vec![Mesh {
            name: "arm".into(),
            primitives: vec![prim],
            ..Mesh::default()
        }],
        nodes,
        skins: vec![Skin {
            name: "arm".into(),
            joints: (1..=usize::from(joints)).collect(),
            inverse_bind_matrices: ibm,
            skeleton: None,
        }],
        animations: vec![Animation {
            name: "wave".into(),
            channels: vec![
                // Deliberately not unit length: the exporter normalises.
                channel(
                    2,
                    Interpolation::Linear,
                    vec![0.0, 0.5, 1.0],
                    ChannelValues::Rotation(vec![
                        [0.0, 0.0, 0.0, 1.0],
                        [0.0, 0.0, 1.0, 1.0],
                        [0.0, 0.0, half, half],
                    ]),
                ),
                channel(
                    1,
                    Interpolation::Linear,
                    vec![0.0, 1.0],
                    ChannelValues::Translation(vec![[0.0; 3], [0.0, 0.0, 2.0]]),
                ),
                channel(
                    3,
                    Interpolation::Step,
                    vec![0.0, 1.0],
                    ChannelValues::Scale(vec![[1.0; 3], [1.0, 2.0, 1.0]]),
                ),
            ],
        }],
        ..Scene::default()
    };
    let json = export_and_validate("skinned_mesh_with_animation", &scene);
    let attrs = &json["meshes"][0]["primitives"][0]["attributes"];
    for a in ["JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1"] {
        assert!(attrs[a].is_u64(), "{a} missing");
    }
    let ibm =
        &json["accessors"][json["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize];
    assert_eq!(ibm["type"], "MAT4");
}

/// Joints with two separate top-level parents get a common root node.
#[test]
fn skin_without_common_root_gets_one() {
    let mut prim = cube(None);
    prim.influences = (0..prim.positions.len())
        .map(|v| vec![((v % 2) as u16, 1.0)])
        .collect();
    let mut body = Node::new("body");
    body.mesh = Some(0);
    body.skin = Some(0);
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![prim],
            ..Mesh::default()
        }],
        nodes: vec![body, Node::new("a"), Node::new("b")],
        skins: vec![Skin {
            name: "pair".into(),
            joints: vec![1, 2],
            ..Skin::default()
        }],
        ..Scene::default()
    };
    let json = export_and_validate("skin_without_common_root", &scene);
    assert_eq!(json["nodes"][3]["children"], serde_json::json!([1, 2]));
    assert_eq!(json["scenes"][0]["nodes"], serde_json::json!([0, 3]));
}

/// An animated camera (md5camera-like): translation and rotation keys, a cut held by
/// STEP, and the fixed child node that turns glTF's −Z camera to look along +X.
#[test]
fn camera_animation() {
    let mut cam_node = Node::new("camera");
    cam_node.camera = Some(0);
    let times: Vec<f32> = (0..24).map(|f| f as f32 / 24.0).collect();
    let scene = Scene {
        cameras: vec![camera(yfov_from_xfov(90.0, 16.0 / 9.0), 16.0 / 9.0)],
        nodes: vec![cam_node],
        animations: vec![Animation {
            name: "flyby".into(),
            channels: vec![
                channel(
                    0,
                    Interpolation::Linear,
                    times.clone(),
                    ChannelValues::Translation(
                        times.iter().map(|t| [t * 100.0, 0.0, 50.0]).collect(),
                    ),
                ),
                channel(
                    0,
                    Interpolation::Step,
                    times.clone(),
                    ChannelValues::Rotation(
                        times
                            .iter()
                            .map(|t| [0.0, 0.0, libm::sinf(*t), libm::cosf(*t)])
                            .collect(),
                    ),
                ),
            ],
        }],
        ..Scene::default()
    };
    let json = export_and_validate("camera_animation", &scene);
    assert_eq!(json["nodes"][0]["children"], serde_json::json!([1]));
    assert_eq!(json["nodes"][1]["camera"], 0);
    assert_eq!(json["cameras"][0]["type"], "perspective");
}

/// An embedded RGBA texture becomes a PNG in the binary buffer; a URI skin is written as
/// given (the file does not exist, which validates with a warning, not an error).
#[test]
fn embedded_texture() {
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![cube(Some(0))],
            ..Mesh::default()
        }],
        materials: vec![Material::new("skin0", Some(checker()))],
        nodes: vec![mesh_node("box")],
        ..Scene::default()
    };
    let json = export_and_validate("embedded_texture", &scene);
    assert_eq!(json["images"][0]["mimeType"], "image/png");
    assert_eq!(json["samplers"][0]["magFilter"], 9728);

    let mut with_uri = scene.clone();
    with_uri.materials = vec![Material::new(
        "models/monsters/tank/skin.pcx",
        Some(Image::Uri("skin.pcx".into())),
    )];
    let glb = to_glb(&with_uri, &ExportOptions::default()).unwrap();
    let json = check_glb_container(&glb);
    // The skin file is missing: validate.mjs reports a notice, the validator a warning.
    let path = out_dir("uri_texture").join("uri.glb");
    std::fs::write(&path, &glb).unwrap();
    validate(&path);
    assert_eq!(json["images"][0]["uri"], "skin.pcx");
    assert_eq!(
        json["materials"][0]["name"],
        "models/monsters/tank/skin.pcx"
    );
}

/// Primitives without triangles are left out; a mesh left empty is dropped with its
/// weight channels; an empty scene is still a valid file.
#[test]
fn empty_parts_are_dropped() {
    let mut empty = cube(None);
    empty.indices.clear();
    empty.targets = vec![MorphTarget {
        positions: vec![[0.0; 3]; empty.positions.len()],
        normals: Vec::new(),
    }];
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![empty],
            ..Mesh::default()
        }],
        nodes: vec![mesh_node("nothing")],
        animations: vec![node0_clip(
            "idle",
            Interpolation::Step,
            vec![0.0],
            ChannelValues::Weights(vec![1.0]),
        )],
        ..Scene::default()
    };
    let json = export_and_validate("empty_parts", &scene);
    assert!(json.get("meshes").is_none());
    assert!(json.get("animations").is_none());
    export_and_validate("empty_scene", &Scene::default());
}

/// One channel of an animation: `node`'s `values` at `times`.
fn channel(
    node: usize,
    interpolation: Interpolation,
    times: Vec<f32>,
    values: ChannelValues,
) -> Channel {
    Channel {
        node,
        times,
        interpolation,
        values,
    }
}

/// An animation `name` of one channel on node 0.
fn node0_clip(
    name: &str,
    interpolation: Interpolation,
    times: Vec<f32>,
    values: ChannelValues,
) -> Animation {
    Animation {
        name: name.into(),
        channels: vec![channel(0, interpolation, times, values)],
    }
}

/// Adds to `scene` an animation `name` of one linear channel on node 0.
fn push_clip(scene: &mut Scene, name: &str, times: Vec<f32>, values: ChannelValues) {
    let clip = node0_clip(name, Interpolation::Linear, times, values);
    scene.animations.push(clip);
}

/// The test camera: `yfov` radians, `aspect` wide, the near plane at 3, no far plane.
fn camera(yfov: f32, aspect: f32) -> Camera {
    Camera {
        name: "cam".into(),
        yfov,
        aspect_ratio: Some(aspect),
        znear: 3.0,
        zfar: None,
    }
}

#[test]
fn invalid_scenes_are_refused() {
    let good = Scene {
        meshes: vec![Mesh {
            primitives: vec![cube(None)],
            ..Mesh::default()
        }],
        nodes: vec![mesh_node("cube")],
        ..Scene::default()
    };
    let opts = ExportOptions::default();
    assert!(to_glb(&good, &opts).is_ok());
    let refused = |f: &dyn Fn(&mut Scene), want: &str| {
        let mut s = good.clone();
        f(&mut s);
        let e = to_glb(&s, &opts).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    };
    refused(
        &|s| s.meshes[0].primitives[0].indices[4] = 24,
        "index 4 is 24, but there are 24 vertices",
    );
    refused(
        &|s| s.meshes[0].primitives[0].positions[3][1] = f32::NAN,
        "non-finite value at element 3",
    );
    refused(
        &|s| s.meshes[0].primitives[0].indices.push(0),
        "whole number of triangles",
    );
    refused(
        &|s| s.meshes[0].primitives[0].uvs.pop().map(|_| ()).unwrap(),
        "23 texture coordinates",
    );
    refused(&|s| s.nodes[0].mesh = Some(1), "mesh 1 out of range");
    refused(&|s| s.nodes[0].children = vec![0], "more than one parent");
    refused(
        &|s| {
            s.nodes.push(Node::new("a"));
            s.nodes.push(Node::new("b"));
            s.nodes[1].children = vec![2];
            s.nodes[2].children = vec![1];
        },
        "cycle",
    );
    // Three keys' worth of translations, all at the origin.
    let still3 = || ChannelValues::Translation(vec![[0.0; 3]; 3]);
    refused(
        &|s| push_clip(s, "bad", vec![0.0, 0.5, 0.5], still3()),
        "key 2 time 0.5",
    );
    refused(
        &|s| push_clip(s, "short", vec![0.0, 0.5], still3()),
        "3 values for 2 keys",
    );
    refused(
        &|s| push_clip(s, "w", vec![0.0], ChannelValues::Weights(vec![1.0])),
        "without morph targets",
    );
    refused(
        &|s| s.meshes[0].primitives[0].influences = vec![vec![(0, 1.0)]; 24],
        "no node draws it with a skin",
    );
    refused(
        &|s| {
            s.materials.push(Material::new("t", Some(checker())));
            s.meshes[0].primitives[0].material = Some(0);
            s.meshes[0].primitives[0].uvs.clear();
        },
        "no texture coordinates",
    );
    refused(
        &|s| {
            s.materials.push(Material::new(
                "t",
                Some(Image::Rgba8 {
                    width: 2,
                    height: 2,
                    pixels: vec![0; 15],
                }),
            ))
        },
        "needs Some(16) bytes, has 15",
    );
}

/// A camera zoom (the md5camera's fov from 90° to 60°): a `KHR_animation_pointer`
/// channel on `/cameras/0/perspective/yfov`, the static first-frame yfov kept, the
/// extension used but not required; a bad key or camera is refused.
#[test]
fn camera_zoom_is_an_animation_pointer() {
    let mut cam_node = Node::new("camera");
    cam_node.camera = Some(0);
    let times: Vec<f32> = (0..4).map(|f| f as f32 / 30.0).collect();
    let zoom: Vec<f32> = [90.0f32, 80.0, 70.0, 60.0]
        .iter()
        .map(|&x| yfov_from_xfov(x, 4.0 / 3.0))
        .collect();
    let scene = Scene {
        cameras: vec![camera(zoom[0], 4.0 / 3.0)],
        nodes: vec![cam_node],
        animations: vec![Animation {
            name: "zoom".into(),
            channels: vec![
                channel(
                    0,
                    Interpolation::Linear,
                    times.clone(),
                    ChannelValues::Translation(vec![[0.0; 3]; 4]),
                ),
                channel(
                    0,
                    Interpolation::Linear,
                    times.clone(),
                    ChannelValues::CameraYfov {
                        camera: 0,
                        yfov: zoom.clone(),
                    },
                ),
            ],
        }],
        ..Scene::default()
    };
    let json = export_and_validate("camera_zoom", &scene);
    assert_eq!(
        json["extensionsUsed"],
        serde_json::json!(["KHR_animation_pointer"])
    );
    assert!(json.get("extensionsRequired").is_none());
    let yfov = json["cameras"][0]["perspective"]["yfov"].as_f64().unwrap();
    assert!((yfov - f64::from(zoom[0])).abs() < 1e-6);
    let ch = &json["animations"][0]["channels"][1];
    assert_eq!(ch["target"]["path"], "pointer");
    assert!(ch["target"].get("node").is_none());
    assert_eq!(
        ch["target"]["extensions"]["KHR_animation_pointer"]["pointer"],
        "/cameras/0/perspective/yfov"
    );
    // The validator knows the extension: no warning either (it reports "warnings: 0").
    let glb = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("idmodel-gltf-tests/camera_zoom/camera_zoom-YUp.glb");
    assert!(glb.is_file());
    if let Some(script) = common::validator() {
        let out = idmodel_test_support::run_validator(&script, &[&glb]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("errors: 0") && text.contains("warnings: 0"),
            "{text}"
        );
    }

    let mut bad = scene.clone();
    bad.animations[0].channels[1].values = ChannelValues::CameraYfov {
        camera: 0,
        yfov: vec![zoom[0], f32::NAN, 1.0, 1.0],
    };
    assert!(to_glb(&bad, &ExportOptions::default()).is_err());
    bad.animations[0].channels[1].values = ChannelValues::CameraYfov {
        camera: 1,
        yfov: zoom,
    };
    assert!(to_glb(&bad, &ExportOptions::default()).is_err());
}

/// Emissive and normal textures, a clamping sampler beside the repeating one, and a PNG
/// kept byte for byte (`Image::Encoded`): in the GLB's buffer and, for `.gltf`, as files
/// beside it; both validate.
#[test]
fn emissive_normal_clamp_and_encoded_images() {
    let png = idmodel_gltf::png_rgba8(2, 2, &[200u8; 16]).unwrap();
    let mut glow = Material::new("glow", Some(checker()));
    glow.emissive = Some(checker());
    glow.emissive_factor = [1.0, 1.0, 1.0];
    glow.normal = Some(Image::Encoded {
        mime: idmodel_scene::Mime::Png,
        bytes: png.clone(),
    });
    let mut clamped = Material::new("decal", Some(checker()));
    clamped.wrap = idmodel_scene::Wrap::Clamp;
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![cube(Some(0)), cube(Some(1))],
            ..Mesh::default()
        }],
        materials: vec![glow, clamped, Material::new("untextured", None)],
        nodes: vec![mesh_node("box")],
        ..Scene::default()
    };
    let json = export_and_validate("emissive_normal_clamp", &scene);
    let m = &json["materials"];
    assert_eq!(m[0]["emissiveFactor"], serde_json::json!([1.0, 1.0, 1.0]));
    assert!(m[0]["emissiveTexture"]["index"].is_u64());
    assert!(m[0]["normalTexture"]["index"].is_u64());
    assert_eq!(
        json["samplers"].as_array().unwrap().len(),
        2,
        "repeat and clamp"
    );
    let t1 = m[1]["pbrMetallicRoughness"]["baseColorTexture"]["index"]
        .as_u64()
        .unwrap();
    let s1 = json["textures"][t1 as usize]["sampler"].as_u64().unwrap();
    assert_eq!(json["samplers"][s1 as usize]["wrapS"], 33071);
    assert!(
        m[2]["pbrMetallicRoughness"]
            .get("baseColorTexture")
            .is_none()
    );
    // .gltf: images are files beside it; the encoded PNG unchanged.
    let files = to_gltf(&scene, &ExportOptions::default(), "box.bin").unwrap();
    assert_eq!(files.images.len(), 4);
    assert!(
        files
            .images
            .iter()
            .any(|(name, bytes)| name.ends_with(".png") && *bytes == png)
    );
    let g: serde_json::Value = serde_json::from_slice(&files.json).unwrap();
    for (img, (name, _)) in g["images"].as_array().unwrap().iter().zip(&files.images) {
        assert_eq!(img["uri"], name.as_str());
    }
    // GLB: the encoded PNG's bytes are in the buffer as they were.
    let glb = to_glb(&scene, &ExportOptions::default()).unwrap();
    assert!(glb.windows(png.len()).any(|w| w == png.as_slice()));
}

/// A mesh of `n` vertices whose positions and morph target are spread over ± a few
/// thousand (a small generator, the same on every run), with every sign of zero.
fn spread_mesh(n: usize, seed: u32) -> Scene {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        match state % 7 {
            0 => 0.0,
            1 => -0.0,
            // Sixteenths: short decimals, which the serde_json check of the JSON
            // (`check_glb_container`) reads back exactly.
            _ => (state % 100_000) as f32 / 16.0 - 3000.0,
        }
    };
    let positions: Vec<[f32; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
    let moved: Vec<[f32; 3]> = (0..n).map(|_| [next(), next(), next()]).collect();
    let mut prim = Primitive {
        positions,
        // Triangles over every vertex (a primitive without any is left out).
        indices: (0..n.max(3) / 3 * 3).map(|k| (k % n) as u32).collect(),
        ..Primitive::default()
    };
    prim.targets = vec![MorphTarget {
        positions: moved,
        normals: Vec::new(),
    }];
    Scene {
        meshes: vec![Mesh {
            name: "spread".into(),
            primitives: vec![prim],
            ..Mesh::default()
        }],
        nodes: vec![mesh_node("spread")],
        ..Scene::default()
    }
}

/// POSITION bounds (base and morph target) are the per-component minimum and maximum of
/// the axis-converted values, for sizes around the writer's block and lane lengths.
#[test]
fn position_bounds_are_exact_at_every_length() {
    for (i, n) in [1usize, 2, 15, 16, 17, 255, 256, 257, 600, 1000]
        .into_iter()
        .enumerate()
    {
        for axes in [Axes::YUp, Axes::Keep] {
            let scene = spread_mesh(n, i as u32);
            let options = ExportOptions {
                axes,
                ..ExportOptions::default()
            };
            let json = check_glb_container(&to_glb(&scene, &options).unwrap());
            let prim = &json["meshes"][0]["primitives"][0];
            let sources = [
                (
                    &prim["attributes"]["POSITION"],
                    &scene.meshes[0].primitives[0].positions,
                ),
                (
                    &prim["targets"][0]["POSITION"],
                    &scene.meshes[0].primitives[0].targets[0].positions,
                ),
            ];
            for (accessor, data) in sources {
                let acc = &json["accessors"][accessor.as_u64().unwrap() as usize];
                for c in 0..3 {
                    let values = data.iter().map(|&p| axes.point(p)[c]);
                    let lo = values.clone().fold(f32::INFINITY, f32::min);
                    let hi = values.fold(f32::NEG_INFINITY, f32::max);
                    // Compared as numbers: -0 and +0 are both the right bound.
                    assert_eq!(
                        acc["min"][c].as_f64().unwrap(),
                        f64::from(lo),
                        "n {n} min {c}"
                    );
                    assert_eq!(
                        acc["max"][c].as_f64().unwrap(),
                        f64::from(hi),
                        "n {n} max {c}"
                    );
                }
            }
        }
    }
}

/// A non-finite morph-target value is refused wherever it is (first, in a lane's
/// remainder, past a block boundary), naming the first bad element, quantized or not.
#[test]
fn non_finite_morph_values_are_refused_at_every_position() {
    for n in [1usize, 17, 300] {
        for at in [0, n / 2, n - 1] {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let mut scene = spread_mesh(n, 7);
                scene.meshes[0].primitives[0].targets[0].positions[at][at % 3] = bad;
                for quantize in [false, true] {
                    let options = ExportOptions {
                        quantize,
                        ..ExportOptions::default()
                    };
                    let e = to_glb(&scene, &options).unwrap_err().to_string();
                    assert!(
                        e.contains(&format!("element {at}")),
                        "n {n} at {at} quantize {quantize}: {e}"
                    );
                }
            }
        }
    }
}

/// The two pieces are the file, and building into a previous export's pieces (larger or
/// smaller, with or without binary data) gives the same bytes as building afresh.
#[test]
fn glb_pieces_and_reuse_give_the_same_file() {
    use idmodel_gltf::{to_glb_pieces, to_glb_pieces_reusing};
    let empty = Scene {
        nodes: vec![Node::new("alone")],
        ..Scene::default()
    };
    let scenes = [
        spread_mesh(1000, 1),
        spread_mesh(3, 2),
        empty.clone(),
        spread_mesh(500, 3),
        empty,
    ];
    let options = ExportOptions::default();
    let mut reuse = idmodel_gltf::Glb::default();
    for (i, scene) in scenes.iter().enumerate() {
        let fresh = to_glb(scene, &options).unwrap();
        let pieces = to_glb_pieces(scene, &options).unwrap();
        assert_eq!(pieces.len(), fresh.len());
        assert_eq!([pieces.front(), pieces.bin()].concat(), fresh, "scene {i}");
        let mut written = Vec::new();
        pieces.write_to(&mut written).unwrap();
        assert_eq!(written, fresh, "scene {i}");
        reuse = to_glb_pieces_reusing(scene, &options, reuse).unwrap();
        assert_eq!(
            [reuse.front(), reuse.bin()].concat(),
            fresh,
            "scene {i} reused"
        );
        assert_eq!(reuse.clone().into_vec(), fresh, "scene {i} into_vec");
        check_glb_container(&fresh);
    }
}

#[test]
fn indexed_images_of_the_wrong_size_are_refused() {
    let colours = [[1u8, 2, 3, 255]; 256];
    assert!(idmodel_gltf::png_indexed8(2, 2, &colours, &[0; 3]).is_err());
    assert!(idmodel_gltf::png_indexed8(0, 2, &colours, &[]).is_err());
    assert!(idmodel_gltf::png_indexed8(2, 2, &colours, &[0; 4]).is_ok());
    // In a scene: the exporter's error names the material, no file is written.
    let bad = Image::Indexed8 {
        width: 4,
        height: 4,
        palette: Box::new(colours),
        indices: vec![0; 15],
    };
    let scene = Scene {
        meshes: vec![Mesh {
            primitives: vec![cube(Some(0))],
            ..Mesh::default()
        }],
        materials: vec![Material::new("skin0", Some(bad))],
        nodes: vec![mesh_node("box")],
        ..Scene::default()
    };
    let e = to_glb(&scene, &ExportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("indexed image needs"), "{e}");
}

/// `ExportOptions::quantize`: the GLB requires `KHR_mesh_quantization`, reads back with
/// the same nodes (the dequantizing child folded), every position of every frame within
/// half the grid's step, and exactly when the positions lie on a power-of-two grid.
#[test]
fn quantized_export_reads_back_within_half_a_step_and_exactly_on_a_binary_grid() {
    use idmodel_gltf::import::{from_glb, no_files};
    let frames = |s: &Scene| -> Vec<[f32; 3]> {
        let p = &s.meshes[0].primitives[0];
        let mut out = p.positions.clone();
        for t in &p.targets {
            out.extend(
                p.positions
                    .iter()
                    .zip(&t.positions)
                    .map(|(b, d)| [b[0] + d[0], b[1] + d[1], b[2] + d[2]]),
            );
        }
        out
    };
    // Sixteenths over ±3000 (lossy: more than 65,535 steps), then 64ths over a few
    // hundred units (exact).
    let lossy = spread_mesh(400, 11);
    let mut binary = spread_mesh(400, 12);
    for p in &mut binary.meshes[0].primitives {
        let snap = |v: &mut [f32; 3]| {
            for c in v.iter_mut() {
                *c = ((*c * 16.0) as i32 % 10_000) as f32 / 64.0;
            }
        };
        p.positions.iter_mut().for_each(snap);
        for t in &mut p.targets {
            t.positions.iter_mut().for_each(snap);
        }
    }
    for (scene, exact) in [(lossy, false), (binary, true)] {
        let plain = to_glb(&scene, &ExportOptions::default()).unwrap();
        let glb = to_glb(
            &scene,
            &ExportOptions {
                quantize: true,
                ..ExportOptions::default()
            },
        )
        .unwrap();
        let json = check_glb_container(&glb);
        assert_eq!(json["extensionsRequired"][0], "KHR_mesh_quantization");
        let step = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["extras"]["idmodel"] == "dequantize")
            .unwrap()["scale"][0]
            .as_f64()
            .unwrap() as f32;
        let a = from_glb(&plain, &Default::default(), &mut no_files).unwrap();
        let b = from_glb(&glb, &Default::default(), &mut no_files).unwrap();
        assert_eq!(a.nodes.len(), b.nodes.len());
        assert_eq!(b.nodes[0].mesh, Some(0), "the mesh is on its node again");
        let worst = frames(&a)
            .iter()
            .zip(frames(&b))
            .flat_map(|(x, y)| (0..3).map(move |k| (x[k] - y[k]).abs()))
            .fold(0.0f32, f32::max);
        if exact {
            assert_eq!(worst, 0.0, "a binary grid is kept exactly (step {step})");
            assert!(step >= 1.0 / 64.0);
        } else {
            assert!(
                worst > 0.0 && worst <= step * 0.5 * 1.001 + 1e-3,
                "{worst} vs {step}"
            );
        }
        assert!(glb.len() < plain.len(), "{} vs {}", glb.len(), plain.len());
    }
}

/// A scene of two primitives whose frames turn normals: in the first, a normal along an
/// axis flips to its opposite (no byte displacement reaches it from that base); in the
/// second, normals only tilt. Three frames, shown one per key.
fn flipping_normals(dense: bool) -> Scene {
    let unit = |v: [f32; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    let prim = |normals: [[f32; 3]; 3], later: [[[f32; 3]; 3]; 2]| {
        let positions = vec![[0.0, 0.0, 0.0], [64.0, 0.0, 0.0], [0.0, 64.0, 8.0]];
        Primitive {
            positions: positions.clone(),
            normals: normals.to_vec(),
            indices: vec![0, 1, 2],
            targets: later
                .iter()
                .enumerate()
                .map(|(k, frame)| MorphTarget {
                    positions: vec![[k as f32 + 1.0, 2.0, -3.0]; 3],
                    normals: frame
                        .iter()
                        .zip(&normals)
                        .map(|(f, b)| [f[0] - b[0], f[1] - b[1], f[2] - b[2]])
                        .collect(),
                })
                .collect(),
            ..Primitive::default()
        }
    };
    let up = [0.0, 0.0, 1.0];
    let tilt = unit([0.3, 0.2, 0.9]);
    let flipping = prim(
        [up, up, unit([1.0, 1.0, 1.0])],
        [
            [[0.0, 0.0, -1.0], up, tilt],
            [unit([0.1, 0.0, -1.0]), tilt, up],
        ],
    );
    let tilting = prim([up, tilt, up], [[tilt, up, tilt], [up, up, tilt]]);
    let values = if dense {
        ChannelValues::Weights(vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    } else {
        ChannelValues::one_hot(2, [None, Some(0), Some(1)])
    };
    Scene {
        meshes: vec![Mesh {
            name: "flip".into(),
            primitives: vec![flipping, tilting],
            target_names: vec!["one".into(), "two".into()],
        }],
        nodes: vec![mesh_node("flip")],
        animations: vec![Animation {
            name: "flip".into(),
            channels: vec![Channel {
                node: 0,
                times: vec![0.0, 0.1, 0.2],
                interpolation: Interpolation::Linear,
                values,
            }],
        }],
        ..Scene::default()
    }
}

/// Quantized normals out of a byte base's reach: the mesh takes frame 0 as its first
/// target, shown at rest, every normal displacement is a byte, the file validates, and
/// the importer folds the first target back: the same targets, names and weights as the
/// scene, every frame's positions exact and normals within the byte tolerance.
#[test]
fn quantized_normals_out_of_reach_take_frame_0_as_the_first_target() {
    use idmodel_gltf::import::{from_glb, no_files};
    use idmodel_scene::quantize::BYTE_TOLERANCE;
    let unit = |v: [f32; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for dense in [false, true] {
        let scene = flipping_normals(dense);
        let options = ExportOptions {
            quantize: true,
            ..ExportOptions::default()
        };
        let glb = to_glb(&scene, &options).unwrap();
        let json = check_glb_container(&glb);
        let mesh = &json["meshes"][0];
        assert_eq!(mesh["weights"], serde_json::json!([1, 0, 0]));
        assert_eq!(
            mesh["extras"]["targetNames"],
            serde_json::json!(["frame0", "one", "two"])
        );
        for p in mesh["primitives"].as_array().unwrap() {
            let targets = p["targets"].as_array().unwrap();
            assert_eq!(targets.len(), 3);
            for t in targets {
                let a = &json["accessors"][t["NORMAL"].as_u64().unwrap() as usize];
                assert_eq!(a["componentType"], 5120, "byte normal displacements");
            }
        }
        let path = out_dir("hidden_base").join(format!("flip-{dense}.glb"));
        std::fs::write(&path, &glb).unwrap();
        validate(&path);

        let back = from_glb(&glb, &Default::default(), &mut no_files).unwrap();
        assert_eq!(back.meshes[0].target_names, scene.meshes[0].target_names);
        assert!(back.nodes[0].weights.is_empty(), "rests at the base again");
        assert_eq!(
            back.animations[0].channels[0].values,
            scene.animations[0].channels[0].values
        );
        for (p, q) in scene.meshes[0]
            .primitives
            .iter()
            .zip(&back.meshes[0].primitives)
        {
            assert_eq!(q.targets.len(), 2);
            assert_eq!(p.positions, q.positions);
            for f in 0..3 {
                for v in 0..3 {
                    let (pos_p, pos_q, n_p, n_q) = match f {
                        0 => (p.positions[v], q.positions[v], p.normals[v], q.normals[v]),
                        _ => {
                            let (s, t) = (&p.targets[f - 1], &q.targets[f - 1]);
                            let add =
                                |a: [f32; 3], b: [f32; 3]| [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
                            (
                                add(p.positions[v], s.positions[v]),
                                add(q.positions[v], t.positions[v]),
                                add(p.normals[v], s.normals[v]),
                                add(unit(q.normals[v]), t.normals[v]),
                            )
                        }
                    };
                    assert_eq!(pos_p, pos_q, "frame {f} vertex {v}");
                    let d = dot(unit(n_p), unit(n_q));
                    assert!(d >= BYTE_TOLERANCE, "frame {f} vertex {v}: {d}");
                }
            }
        }
    }
    // Rest weights whose sum is past a float leave frame 0 no finite weight: refused.
    let mut scene = flipping_normals(false);
    scene.nodes[0].weights = vec![f32::MAX, f32::MAX];
    let quantized = ExportOptions {
        quantize: true,
        ..ExportOptions::default()
    };
    let e = to_glb(&scene, &quantized).unwrap_err().to_string();
    assert!(e.contains("rest weights sum past a float"), "{e}");
    // A plain file whose node rests at its first target is not folded: the mesh's own
    // weights are not `[1, 0, …]`.
    let mut scene = flipping_normals(false);
    scene.nodes[0].weights = vec![1.0, 0.0];
    let glb = to_glb(&scene, &ExportOptions::default()).unwrap();
    let back = from_glb(&glb, &Default::default(), &mut no_files).unwrap();
    assert_eq!(back.meshes[0].primitives[0].targets.len(), 2);
    assert_eq!(back.nodes[0].weights, [1.0, 0.0]);
}
