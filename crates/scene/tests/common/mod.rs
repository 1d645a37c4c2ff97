//! Helpers shared by idmodel-scene's integration tests (`mod common;` in each test file
//! that uses them): the scene of a written model's bytes, and a writer's refusal.
// Test helpers may unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, dead_code)] // each test binary uses a different subset

use idmodel_scene::{Options, Primitive, Scene};

/// One right triangle at the origin, `(0, 0, 0)`, `(1, 0, 0)`, `(0, 1, 0)`.
pub fn triangle() -> Primitive {
    Primitive {
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        indices: vec![0, 1, 2],
        ..Primitive::default()
    }
}

/// The scene (`name`, default options) of MD2 `bytes`.
pub fn md2_scene(name: &str, bytes: &[u8]) -> Scene {
    let md2 = idmodel_md2::Md2::parse(bytes).unwrap();
    idmodel_scene::md2::scene(&md2, name, &Options::default()).unwrap()
}

/// The scene (`name`, default options) of MDL `bytes`.
pub fn mdl_scene(name: &str, bytes: &[u8]) -> Scene {
    let mdl = idmodel_mdl::Mdl::parse(bytes).unwrap();
    idmodel_scene::mdl::scene(&mdl, name, &Options::default()).unwrap()
}

/// The scene (`name`, no side files, default options) of MD3 `bytes`.
pub fn md3_scene(name: &str, bytes: &[u8]) -> Scene {
    let md3 = idmodel_md3::Md3::parse(bytes).unwrap();
    let sidecars = idmodel_scene::md3::Sidecars::default();
    idmodel_scene::md3::scene_with(&md3, name, &Options::default(), &sidecars).unwrap()
}

/// Asserts that a writer's refusal `message` starts with `prefix` and names `number`
/// (the limit or the count over it).
pub fn assert_refusal(message: &str, prefix: &str, number: &str) {
    assert!(message.starts_with(prefix), "{message}");
    assert!(message.contains(number), "{message}");
}

/// The smallest and largest coordinate of `points` on each axis (infinities, inverted,
/// when there are none).
pub fn bounds(points: impl IntoIterator<Item = [f32; 3]>) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// The scene through GLB bytes and back (the glTF writer and reader, default options).
pub fn via_glb(scene: &Scene) -> Scene {
    let glb = idmodel_gltf::to_glb(scene, &idmodel_gltf::ExportOptions::default()).unwrap();
    idmodel_gltf::import::from_glb(
        &glb,
        &idmodel_gltf::import::ImportOptions::default(),
        &mut idmodel_gltf::import::no_files,
    )
    .unwrap()
}
