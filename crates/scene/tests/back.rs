//! The way back for MD2 and MDL: file → scene (the export adapters, which record `md2.*`
//! / `mdl.*` extras) → file is byte-identical for every corpus model; scenes without
//! extras (or whose geometry no longer fits them) are written from the geometry, within
//! the quantisation step; engine limits refuse.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use std::path::PathBuf;

use idmodel_core::Engine;
use idmodel_md2::Md2;
use idmodel_scene::Scene;
use idmodel_scene::back::BackOptions;

mod common;
use common::{assert_refusal, md2_scene, mdl_scene};

fn corpus_files(test: &str, sub: &str, ext: &str) -> Vec<PathBuf> {
    let Some(dir) = idmodel_test_support::corpus_dir(test) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = idmodel_test_support::walk(&dir.join(sub))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)))
        .collect();
    files.extend(
        idmodel_test_support::walk(&dir.join("assets"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))),
    );
    files.sort();
    files
}

/// Bytes the extras take as text (strings, keys and about 8 per other value): what they
/// add to a glTF's JSON, roughly.
/// Prints what one file's round trip kept: its size, the size of its extras, and whether
/// they hold a patch (`<format>.patch`).
fn report(what: &str, bytes: usize, scene: &Scene, format: &str) {
    let patch = if scene.extras.get(&format!("{format}.patch")).is_some() {
        " (with a patch)"
    } else {
        ""
    };
    let extras = extras_size(scene);
    println!("{what}: {bytes} bytes, extras {extras} bytes{patch}");
}

/// Every finding of the file at `path` is below a hazard.
fn assert_below_hazard<F>(found: &[F], path: &std::path::Path)
where
    F: idmodel_core::findings::Finding + core::fmt::Debug,
{
    assert!(
        found
            .iter()
            .all(|f| f.severity() < idmodel_core::Severity::Hazard),
        "{}: {found:?}",
        path.display()
    );
}

fn extras_size(scene: &Scene) -> usize {
    fn size(v: &idmodel_scene::Value) -> usize {
        use idmodel_scene::Value;
        match v {
            Value::Str(s) => s.len() + 2,
            Value::List(l) => l.iter().map(size).sum::<usize>() + 2,
            Value::Object(o) => o.iter().map(|(k, v)| k.len() + 3 + size(v)).sum::<usize>() + 2,
            _ => 8,
        }
    }
    scene
        .extras
        .0
        .iter()
        .map(|(k, v)| k.len() + 3 + size(v))
        .sum()
}

#[test]
fn every_corpus_md2_comes_back_byte_identical() {
    let files = corpus_files("every_corpus_md2_comes_back_byte_identical", "md2", "md2");
    let mut same = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let scene = md2_scene("m", &bytes);
        let out = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(out == bytes, "{} is not byte-identical", path.display());
        same += 1;
        report(&path.display().to_string(), bytes.len(), &scene, "md2");
    }
    println!("{same} MD2 files byte-identical");
    assert!(files.is_empty() || same >= 19, "{same}");
}

/// The `.mdl` entries of a Quake `.pak` (`PACK`, directory offset and length, 64-byte
/// entries of a 56-byte name, position and length).
fn pak_models(pak: &[u8]) -> Vec<(String, Vec<u8>)> {
    let word = |at: usize| i32::from_le_bytes(pak[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&pak[..4], b"PACK");
    let (dir, len) = (word(4), word(8));
    let mut out = Vec::new();
    for e in pak[dir..dir + len].chunks_exact(64) {
        let name = String::from_utf8_lossy(&e[..56]);
        let name = name.trim_end_matches('\0').to_owned();
        let (pos, n) = (
            i32::from_le_bytes(e[56..60].try_into().unwrap()) as usize,
            i32::from_le_bytes(e[60..64].try_into().unwrap()) as usize,
        );
        if name.ends_with(".mdl") {
            out.push((name, pak[pos..pos + n].to_vec()));
        }
    }
    out
}

fn corpus_mdls(test: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = corpus_files(test, "mdl", "mdl")
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    if let Some(dir) = idmodel_test_support::corpus_dir(test) {
        for pak in idmodel_test_support::walk(&dir.join("assets"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pak")))
        {
            out.extend(pak_models(&std::fs::read(pak).unwrap()));
        }
    }
    out
}

#[test]
fn every_corpus_mdl_comes_back_byte_identical() {
    let files = corpus_mdls("every_corpus_mdl_comes_back_byte_identical");
    let mut same = 0;
    for (name, bytes) in &files {
        let scene = mdl_scene("m", bytes);
        let out = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out == *bytes, "{name} is not byte-identical");
        same += 1;
        report(name, bytes.len(), &scene, "mdl");
    }
    println!("{same} MDL files byte-identical");
    assert!(files.is_empty() || same >= 24, "{same}");
}

/// Absolute positions of every frame of a morph scene: the base, then base + target.
fn frames_of(scene: &Scene) -> Vec<Vec<[f32; 3]>> {
    let p = &scene.meshes[0].primitives[0];
    let mut out = vec![p.positions.clone()];
    for t in &p.targets {
        out.push(
            p.positions
                .iter()
                .zip(&t.positions)
                .map(|(b, d)| [b[0] + d[0], b[1] + d[1], b[2] + d[2]])
                .collect(),
        );
    }
    out
}

/// Every frame of `back` within `step(frame)` of `scene`'s, per axis, triangle corner by
/// triangle corner (the way back may merge vertices that are the same in every frame).
fn assert_within(scene: &Scene, back: &Scene, step: impl Fn(usize) -> [f32; 3], what: &str) {
    let (a, b) = (frames_of(scene), frames_of(back));
    assert_eq!(a.len(), b.len(), "{what}: frame count");
    let (ia, ib) = (
        &scene.meshes[0].primitives[0].indices,
        &back.meshes[0].primitives[0].indices,
    );
    assert_eq!(ia.len(), ib.len(), "{what}: triangle count");
    assert!(
        b[0].len() <= a[0].len(),
        "{what}: more vertices than the scene"
    );
    for (f, (fa, fb)) in a.iter().zip(&b).enumerate() {
        let s = step(f);
        for (&i, &j) in ia.iter().zip(ib) {
            let (p, q) = (fa[i as usize], fb[j as usize]);
            for k in 0..3 {
                let tol = s[k] * 0.5 + 1e-3 * (1.0 + p[k].abs());
                assert!(
                    (p[k] - q[k]).abs() <= tol,
                    "{what}: frame {f} {p:?} vs {q:?} (step {s:?})"
                );
            }
        }
    }
}

fn without_extras(mut scene: Scene) -> Scene {
    scene.extras = Default::default();
    scene
}

#[test]
fn md2_without_extras_comes_back_within_the_quantisation_step() {
    let files = corpus_files("md2_without_extras", "md2", "md2");
    for path in files
        .iter()
        .filter(|p| std::fs::metadata(p).unwrap().len() < 400_000)
    {
        let bytes = std::fs::read(path).unwrap();
        let scene = without_extras(md2_scene("m", &bytes));
        let out = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).unwrap();
        assert!(out != bytes, "{}: no extras, yet identical", path.display());
        let md2 = Md2::parse(&out).unwrap();
        let back = md2_scene("m", &out);
        assert_within(
            &scene,
            &back,
            |f| md2.frame(f).unwrap().scale(),
            &path.display().to_string(),
        );
        // UVs within half a texel.
        let (w, h) = (md2.skin_width() as f32, md2.skin_height() as f32);
        let (pa, pb) = (
            &scene.meshes[0].primitives[0],
            &back.meshes[0].primitives[0],
        );
        for (a, b) in pa
            .indices
            .iter()
            .zip(&pb.indices)
            .map(|(&i, &j)| (pa.uvs[i as usize], pb.uvs[j as usize]))
        {
            assert!((a[0] - b[0]).abs() * w <= 0.5 + 1e-3 && (a[1] - b[1]).abs() * h <= 0.5 + 1e-3);
        }
        // Frame names and clips come back from the target names.
        assert_eq!(
            scene.meshes[0].target_names,
            back.meshes[0].target_names,
            "{}",
            path.display()
        );
    }
}

#[test]
fn mdl_without_extras_comes_back_within_the_quantisation_step() {
    for (name, bytes) in corpus_files("mdl_without_extras", "mdl", "mdl")
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
    {
        let scene = without_extras(mdl_scene("m", &bytes));
        let out = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default()).unwrap();
        let mdl = idmodel_mdl::Mdl::parse(&out).unwrap();
        let back = mdl_scene("m", &out);
        let scale = mdl.scale();
        assert_within(&scene, &back, |_| scale, &name);
        assert_eq!(
            scene.meshes[0].primitives[0].uvs, back.meshes[0].primitives[0].uvs,
            "{name}: uvs"
        );
        // The skin comes back exactly (every texel is a palette colour).
        assert_eq!(scene.materials[0].image, back.materials[0].image, "{name}");
        assert_eq!(back.animations.len(), scene.animations.len(), "{name}");
        let keys = |s: &Scene| {
            s.animations
                .iter()
                .map(|a| a.channels[0].times.len())
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(&scene), keys(&back), "{name}: keys per clip");
    }
}

#[test]
fn an_edited_scene_is_written_from_its_geometry() {
    let bytes = idmodel_md2::write(&idmodel_md2::Model::example()).unwrap();
    let mut scene = md2_scene("m", &bytes);
    scene.meshes[0].primitives[0].positions[0][2] += 7.0;
    let out = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).unwrap();
    assert!(out != bytes);
    let back = md2_scene("m", &out);
    let md2 = Md2::parse(&out).unwrap();
    assert_within(
        &scene,
        &back,
        |f| md2.frame(f).unwrap().scale(),
        "edited md2",
    );

    let bytes = idmodel_mdl::Model::example_groups().write().unwrap();
    let mut scene = mdl_scene("m", &bytes);
    scene.meshes[0].primitives[0].positions[1][0] -= 3.0;
    let out = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default()).unwrap();
    assert!(out != bytes);
    let scale = idmodel_mdl::Mdl::parse(&out).unwrap().scale();
    assert_within(&scene, &mdl_scene("m", &out), |_| scale, "edited mdl");
}

#[test]
fn engine_limits_refuse_naming_the_limit() {
    let files = corpus_files("engine_limits_refuse_naming_the_limit", "md2", "md2");
    let Some(soldier) = files
        .iter()
        .find(|p| p.ends_with("ufoai_soldiers_male/body.md2"))
    else {
        return;
    };
    let scene = md2_scene("m", &std::fs::read(soldier).unwrap());
    let quake2 = BackOptions {
        engine: Some(Engine::Quake2),
        ..BackOptions::default()
    };
    let e = idmodel_scene::md2::to_bytes(&scene, &quake2).unwrap_err();
    assert_refusal(e.message(), "refusing to write this MD2: quake2: ", "1007");
    assert!(idmodel_scene::md2::from_scene(&scene, &quake2).is_err());
    // Without an engine the exact round trip stays possible.
    assert!(idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).is_ok());
}

#[test]
fn an_md2_without_gl_commands_gets_them_when_written_for_quake2() {
    let model = idmodel_md2::Model {
        gl_commands: false,
        ..idmodel_md2::Model::example()
    };
    let bytes = idmodel_md2::write(&model).unwrap();
    let bare = Md2::parse(&bytes).unwrap();
    assert!(!bare.has_gl_commands());
    let scene = md2_scene("m", &bytes);
    // Without an engine: the exact file.
    assert_eq!(
        idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).unwrap(),
        bytes
    );
    let quake2 = BackOptions {
        engine: Some(Engine::Quake2),
        ..BackOptions::default()
    };
    let out = idmodel_scene::md2::to_bytes(&scene, &quake2).unwrap();
    let md2 = Md2::parse(&out).unwrap();
    assert!(md2.has_gl_commands());
    // The list draws the triangle list's triangles (else `findings` says so) in every frame.
    assert!(
        md2.findings(Engine::Quake2).is_empty(),
        "{:?}",
        md2.findings(Engine::Quake2)
    );
    assert_eq!(md2.gl_triangle_count(), model.triangles.len());
    // Nothing else changed: the same frames, skins and triangles as the original.
    let back = idmodel_scene::md2::from_scene(&md2_scene("m", &out), &BackOptions::default());
    assert_eq!(
        back.unwrap(),
        idmodel_md2::Model {
            gl_commands: true,
            ..model
        }
    );
}

#[test]
fn every_written_file_passes_check_for_its_engine() {
    // Files the engine already loads cleanly come back identical and clean; one whose
    // only hazard is a missing GL command list comes back with one, clean; written from
    // the geometry alone they are clean too (or the write is refused).
    let mut checked = 0;
    for path in corpus_files("every_written_file_passes_check", "md2", "md2") {
        let bytes = std::fs::read(&path).unwrap();
        let clean = Md2::parse(&bytes)
            .unwrap()
            .findings(Engine::Quake2)
            .iter()
            .all(|f| f.severity < idmodel_core::Severity::Hazard);
        let opts = BackOptions {
            engine: Some(Engine::Quake2),
            ..BackOptions::default()
        };
        let scene = md2_scene("m", &bytes);
        match idmodel_scene::md2::to_bytes(&scene, &opts) {
            Ok(out) if clean => assert!(out == bytes, "{}", path.display()),
            Ok(out) => {
                assert!(!Md2::parse(&bytes).unwrap().has_gl_commands());
                let found = Md2::parse(&out).unwrap().findings(Engine::Quake2);
                assert_below_hazard(&found, &path);
            }
            Err(e) => assert!(!clean, "{}: {e}", path.display()),
        }
        if bytes.len() < 400_000
            && let Ok(out) = idmodel_scene::md2::to_bytes(&without_extras(scene), &opts)
        {
            let found = Md2::parse(&out).unwrap().findings(Engine::Quake2);
            assert_below_hazard(&found, &path);
            checked += 1;
        }
    }
    for path in corpus_files("every_written_file_passes_check", "mdl", "mdl") {
        let bytes = std::fs::read(&path).unwrap();
        let scene = without_extras(mdl_scene("m", &bytes));
        for engine in [Engine::WinQuake, Engine::GlQuake, Engine::QuakeSpasm] {
            let opts = BackOptions {
                engine: Some(engine),
                ..BackOptions::default()
            };
            match idmodel_scene::mdl::to_bytes(&scene, &opts) {
                Ok(out) => {
                    let found = idmodel_mdl::Mdl::parse(&out).unwrap().findings(engine);
                    assert_below_hazard(&found, &path);
                    checked += 1;
                }
                Err(e) => assert!(
                    e.message()
                        .starts_with(&format!("refusing to write this MDL: {engine}: ")),
                    "{e}"
                ),
            }
        }
    }
    println!("{checked} files written from geometry pass check");
}

/// file → scene → GLB (idmodel-gltf's writer) → scene (its reader) → file.
fn through_glb(scene: &Scene) -> Scene {
    use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
    let glb = idmodel_gltf::to_glb(scene, &idmodel_gltf::ExportOptions::default()).unwrap();
    from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap()
}

#[test]
fn every_corpus_md2_comes_back_byte_identical_through_glb() {
    let files = corpus_files("md2_through_glb", "md2", "md2");
    let mut same = 0;
    let mut differ = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let back = through_glb(&md2_scene("m", &bytes));
        let out = idmodel_scene::md2::to_bytes(&back, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if out == bytes {
            same += 1;
        } else {
            differ.push(path.display().to_string());
        }
    }
    println!(
        "{same} of {} MD2 files byte-identical through GLB; not: {differ:?}",
        files.len()
    );
    assert!(differ.is_empty(), "{differ:?}");
}

#[test]
fn every_corpus_mdl_comes_back_byte_identical_through_glb() {
    let files = corpus_mdls("mdl_through_glb");
    let mut same = 0;
    let mut differ = Vec::new();
    for (name, bytes) in &files {
        let back = through_glb(&mdl_scene("m", bytes));
        let out = idmodel_scene::mdl::to_bytes(&back, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if out == *bytes {
            same += 1;
        } else {
            differ.push(name.clone());
        }
    }
    println!(
        "{same} of {} MDL files byte-identical through GLB; not: {differ:?}",
        files.len()
    );
    assert!(differ.is_empty(), "{differ:?}");
}

/// The scene of `scene` with its vertices renumbered (reversed) and the first corner's
/// vertex split off, triangles kept in order: what Blender's glTF exporter does to a mesh.
fn renumbered(scene: &Scene) -> Scene {
    let mut out = scene.clone();
    let p = &mut out.meshes[0].primitives[0];
    let n = p.positions.len();
    let rev = |v: &mut Vec<[f32; 3]>| v.reverse();
    rev(&mut p.positions);
    rev(&mut p.normals);
    p.uvs.reverse();
    for t in &mut p.targets {
        rev(&mut t.positions);
        rev(&mut t.normals);
    }
    for i in &mut p.indices {
        *i = (n - 1) as u32 - *i;
    }
    // Split the first corner's vertex into a copy of its own.
    let v = p.indices[0] as usize;
    p.positions.push(p.positions[v]);
    if !p.normals.is_empty() {
        p.normals.push(p.normals[v]);
    }
    if !p.uvs.is_empty() {
        p.uvs.push(p.uvs[v]);
    }
    for t in &mut p.targets {
        t.positions.push(t.positions[v]);
        if !t.normals.is_empty() {
            t.normals.push(t.normals[v]);
        }
    }
    p.indices[0] = n as u32;
    out
}

#[test]
fn renumbered_vertices_still_come_back_byte_identical() {
    let mut checked = 0;
    for (sub, ext) in [("mdl", "mdl"), ("md2", "md2")] {
        let Some(files) = idmodel_test_support::corpus_bytes("renumbered", sub, ext) else {
            return;
        };
        for (path, bytes) in files.iter().filter(|(_, b)| b.len() < 300_000).take(8) {
            let scene = if ext == "mdl" {
                mdl_scene("m", bytes)
            } else {
                md2_scene("m", bytes)
            };
            let out = if ext == "mdl" {
                idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default())
            } else {
                idmodel_scene::md2::to_bytes(&scene, &BackOptions::default())
            };
            // Only files that come back byte for byte as they are.
            if out.ok().as_ref() != Some(bytes) {
                continue;
            }
            let moved = renumbered(&scene);
            let back = if ext == "mdl" {
                idmodel_scene::mdl::to_bytes(&moved, &BackOptions::default())
            } else {
                idmodel_scene::md2::to_bytes(&moved, &BackOptions::default())
            }
            .unwrap();
            assert!(
                back == *bytes,
                "{}: not byte-identical once renumbered",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} files checked");
}
