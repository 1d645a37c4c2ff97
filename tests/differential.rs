//! Differential check against Assimp: for every corpus file Assimp loads,
//! idmodel's frame-0 positions equal Assimp's within the format's quantisation.
//!
//! `benches/compare/assimp_harness.cpp` is compiled with g++ and pkg-config (skipped with a
//! notice when either, or libassimp, is missing) and run in `dump FILE` mode. Assimp
//! unshares vertices, swaps winding and flips v (docs/formats.md §6.5–6.8),
//! none of which moves a position, so the two sides are compared as multisets of
//! positions: idmodel's per-triangle corners (unshared) or its vertex list (shared),
//! whichever count Assimp's matches. Disagreements are printed with their reason; the test
//! fails when an MDL, MD2 or MD3 file both sides load has the same count and different
//! positions (md5mesh differences are listed: Assimp's skinning differs, §6.8).
// Tests may index, cast and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn build_harness() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("benches/compare/assimp_harness.cpp");
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "assimp"])
        .output()
        .ok()?;
    if !flags.status.success() {
        idmodel_test_support::skipped("the differential test", "pkg-config finds no assimp");
        return None;
    }
    let out = std::env::temp_dir().join(format!("idmodel_assimp_dump_{}", std::process::id()));
    let flags = String::from_utf8(flags.stdout).ok()?;
    let ok = Command::new("g++")
        .args(["-O1", "-std=c++17", "-o"])
        .arg(&out)
        .arg(&src)
        .args(flags.split_whitespace())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        idmodel_test_support::skipped(
            "the differential test",
            "g++ could not build the Assimp harness",
        );
        return None;
    }
    Some(out)
}

/// Assimp's frame-0 positions of all meshes, or its error line.
fn assimp(harness: &Path, file: &Path) -> Result<Vec<[f32; 3]>, String> {
    let out = Command::new(harness)
        .arg("dump")
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(text.lines().next().unwrap_or("crashed").to_owned());
    }
    Ok(text
        .lines()
        .filter(|l| !l.starts_with("mesh"))
        .map(|l| {
            let v: Vec<f32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect())
}

/// idmodel's frame-0 positions: (per-triangle corners, shared vertices), or its error.
type Positions = Vec<[f32; 3]>;

fn idmodel_positions(file: &Path, d: &[u8]) -> Result<(Positions, Positions), String> {
    let ext = file
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut corners = Vec::new();
    let mut shared = Vec::new();
    match ext.as_str() {
        "mdl" => {
            let m = idmodel::mdl::Mdl::parse(d).map_err(|e| e.to_string())?;
            let p: Vec<[f32; 3]> = m.pose(0).ok_or("no pose")?.positions().collect();
            corners.extend(m.triangle_indices().flatten().map(|i| p[i]));
            shared = p;
        }
        "md2" => {
            let m = idmodel::md2::Md2::parse(d).map_err(|e| e.to_string())?;
            let mut p = vec![[0.0; 3]; m.vertex_count()];
            m.frame(0)
                .ok_or("no frame")?
                .positions_into(&mut p)
                .map_err(|e| format!("{e:?}"))?;
            corners.extend(
                m.triangles()
                    .iter()
                    .flat_map(|t| t.index_xyz)
                    .map(|i| p[i.get() as usize]),
            );
            shared = p;
        }
        "md3" => {
            let m = idmodel::md3::Md3::parse(d).map_err(|e| e.to_string())?;
            for s in m.surfaces() {
                let p: Vec<[f32; 3]> = s.positions(0).ok_or("no frame")?.collect();
                corners.extend(s.indices().flatten().map(|i| p[i as usize]));
                shared.extend(p);
            }
        }
        "md5mesh" => {
            let f = idmodel::md5::mesh::parse(d).map_err(|e| e.to_string())?;
            let mut mats = vec![idmodel::core::quat::JointMat::IDENTITY; f.num_joints()];
            f.bind_pose(&mut mats);
            for m in f.meshes() {
                let mut p = vec![[0.0; 3]; m.num_vertices()];
                m.skin(&mats, &mut p);
                corners.extend(m.triangles().flatten().map(|i| p[i as usize]));
                shared.extend(p);
            }
        }
        _ => return Err("not a model".into()),
    }
    Ok((corners, shared))
}

/// Symmetric nearest-neighbour (Hausdorff) distance between two point sets, using a
/// grid of cell size `8·tol` for the search; points with no neighbour in the 27 nearby
/// cells are measured against every point (a few at most when the sets agree).
///
/// (An earlier version sorted both sets by grid key and compared them pairwise: one point
/// moved across a cell boundary shifted every later pair and reported distances that were
/// artefacts of the sort, not of the data.)
fn multiset_distance(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32) -> f32 {
    fn one_way(a: &[[f32; 3]], b: &[[f32; 3]], cell: f64) -> f32 {
        use std::collections::HashMap;
        let key = |p: &[f32; 3]| p.map(|x| (f64::from(x) / cell).floor() as i64);
        let mut grid: HashMap<[i64; 3], Vec<[f32; 3]>> = HashMap::new();
        for q in b {
            grid.entry(key(q)).or_default().push(*q);
        }
        let dist =
            |p: &[f32; 3], q: &[f32; 3]| (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0f32, f32::max);
        let mut worst = 0.0f32;
        let mut brute = 0usize;
        for p in a {
            let k = key(p);
            let mut best = f32::INFINITY;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(v) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) {
                            for q in v {
                                best = best.min(dist(p, q));
                            }
                        }
                    }
                }
            }
            if best.is_infinite() && brute < 200 {
                brute += 1;
                best = b.iter().map(|q| dist(p, q)).fold(f32::INFINITY, f32::min);
            }
            worst = worst.max(best);
        }
        worst
    }
    if a.is_empty() || b.is_empty() {
        return if a.len() == b.len() {
            0.0
        } else {
            f32::INFINITY
        };
    }
    let cell = f64::from(tol * 8.0).max(1e-6);
    one_way(a, b, cell).max(one_way(b, a, cell))
}

#[test]
fn frame0_positions_match_assimp() {
    let Some(corpus) = common::corpus_dir("frame0_positions_match_assimp") else {
        return;
    };
    if Command::new("g++").arg("--version").output().is_err() {
        idmodel_test_support::skipped("the differential test", "g++ not found");
        return;
    }
    let Some(harness) = build_harness() else {
        return;
    };
    let (mut agree, mut disagree, mut failures) = (0, Vec::new(), Vec::new());
    for sub in ["mdl", "md2", "md3", "md5"] {
        for file in common::walk(&corpus.join(sub)) {
            let d = std::fs::read(&file).unwrap();
            let Ok((corners, shared)) = idmodel_positions(&file, &d) else {
                if let Err(e) = idmodel_positions(&file, &d)
                    && e != "not a model"
                {
                    disagree.push(format!("{}: idmodel refuses ({e})", file.display()));
                }
                continue;
            };
            let theirs = match assimp(&harness, &file) {
                Ok(p) => p,
                Err(e) => {
                    disagree.push(format!("{}: Assimp refuses ({e})", file.display()));
                    continue;
                }
            };
            let ours = if theirs.len() == corners.len() {
                &corners
            } else if theirs.len() == shared.len() {
                &shared
            } else {
                disagree.push(format!(
                    "{}: vertex count {} (Assimp) vs {} corners / {} vertices (idmodel)",
                    file.display(),
                    theirs.len(),
                    corners.len(),
                    shared.len()
                ));
                continue;
            };
            // Positions are decoded identically (scale·byte + translate, i16/64, skinned
            // weights); allow for f32 rounding of the largest coordinate and the dump's
            // six decimals.
            let extent = ours.iter().flatten().fold(1.0f32, |m, x| m.max(x.abs()));
            let tol = 1e-4 * extent + 2e-6;
            let dist = multiset_distance(ours, &theirs, tol);
            if dist <= tol * 4.0 {
                agree += 1;
            } else if file.extension().is_some_and(|e| e == "md5mesh") {
                // Assimp's MD5 skinning is not Doom's (docs/formats.md §6.8: per-vertex weight
                // normalisation, weights under epsilon skipped, w = 0 on a negative
                // radicand, `vert N` as the storage index): listed, not failed.
                disagree.push(format!(
                    "{}: positions differ by {dist} (Assimp's MD5 skinning, §6.8)",
                    file.display()
                ));
            } else {
                failures.push(format!(
                    "{}: positions differ by {dist} (tolerance {tol})",
                    file.display()
                ));
            }
        }
    }
    let _ = std::fs::remove_file(&harness);
    eprintln!("differential: {agree} files agree with Assimp");
    for d in &disagree {
        eprintln!("  disagree: {d}");
    }
    for f in &failures {
        eprintln!("  DIFFER: {f}");
    }
    assert!(agree > 0, "no file compared");
    assert!(
        failures.is_empty(),
        "{} files load in both with different positions",
        failures.len()
    );
}
