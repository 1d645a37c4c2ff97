//! What an MD2 keeps when its GLB comes back without the scene extras (Blender's glTF
//! exporter with its defaults drops them, and these corpus files ship without their skin
//! images): the skin size is read off the grid the texture coordinates sit on, and the
//! base frame's name is implied by the next frame's (`stand01` before `stand02`); a model
//! of one frame has nothing to imply its name from.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use std::collections::BTreeSet;

use idmodel_md2::Md2;
use idmodel_scene::back::BackOptions;
use idmodel_scene::{Extras, Options};

fn names(md2: &Md2<'_>) -> Vec<String> {
    md2.frames()
        .map(|f| f.name().to_str().unwrap_or("").to_owned())
        .collect()
}

/// The texture coordinates the triangles use, `s / skinwidth` and `t / skinheight` in
/// billionths (a file's `st` list may hold entries no triangle uses).
fn uvs(md2: &Md2<'_>) -> BTreeSet<(i64, i64)> {
    let (w, h) = (f64::from(md2.skin_width()), f64::from(md2.skin_height()));
    (0..md2.triangles().len())
        .filter_map(|i| md2.triangle(i))
        .flat_map(|t| t.st)
        .filter_map(|i| md2.st().get(usize::from(i)))
        .map(|st| {
            let at = |x: i16, size: f64| (f64::from(x) / size * 1e9).round() as i64;
            (at(st.s.get(), w), at(st.t.get(), h))
        })
        .collect()
}

#[test]
fn md2_skin_grid_and_first_frame_name_survive_losing_the_extras() {
    let Some(files) = idmodel_test_support::corpus_bytes("without_extras", "md2", "md2") else {
        return;
    };
    let (mut grids, mut named, mut single) = (0, 0, 0);
    for (path, bytes) in &files {
        let Ok(md2) = Md2::parse(bytes) else { continue };
        let Ok(mut scene) = idmodel_scene::md2::scene(&md2, "m", &Options::default()) else {
            continue;
        };
        scene.extras = Extras::default();
        let back = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = Md2::parse(&back).unwrap();
        // Every texture coordinate comes back exactly: on the same skin size, or on one
        // that divides it where every texel the file uses is a multiple of the quotient.
        if uvs(&back) == uvs(&md2) {
            grids += 1;
        } else {
            eprintln!(
                "{}: texture coordinates moved ({}x{} -> {}x{})",
                path.display(),
                md2.skin_width(),
                md2.skin_height(),
                back.skin_width(),
                back.skin_height()
            );
        }
        let (was, now) = (names(&md2), names(&back));
        assert_eq!(was.len(), now.len(), "{}", path.display());
        if was.len() == 1 {
            // One frame is the base shape alone: its name has nothing to be implied from.
            single += 1;
        } else {
            assert_eq!(was, now, "{}", path.display());
            named += 1;
        }
    }
    // Every file in the corpus keeps its texture coordinates and its frame names.
    assert!(!files.is_empty());
    assert_eq!(
        grids,
        files.len(),
        "texture coordinates kept for {grids} of {} files",
        files.len()
    );
    // Every model with more than one frame keeps its frame names.
    assert_eq!(named + single, files.len());
    assert!(named >= 8, "only {named} multi-frame models");
}

/// An MDL whose GLB lost its extras comes back on a grid on which every position decodes
/// where it was (within float error, not half a step): the grid the positions already
/// lie on is recovered, although the original header's scale spans more than the model.
#[test]
fn mdl_positions_survive_losing_the_extras() {
    let Some(files) = idmodel_test_support::corpus_bytes("without_extras", "mdl", "mdl") else {
        return;
    };
    let mut exact = 0;
    for (path, bytes) in &files {
        let Ok(mdl) = idmodel_mdl::Mdl::parse(bytes) else {
            continue;
        };
        let Ok(mut scene) = idmodel_scene::mdl::scene(&mdl, "m", &Options::default()) else {
            continue;
        };
        scene.extras = Extras::default();
        let Ok(back) = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default()) else {
            continue;
        };
        let back = idmodel_mdl::Mdl::parse(&back).unwrap();
        let poses = |m: &idmodel_mdl::Mdl<'_>| -> Vec<[f32; 3]> {
            m.poses()
                .flat_map(|p| p.positions().collect::<Vec<_>>())
                .collect()
        };
        let (was, now) = (poses(&mdl), poses(&back));
        if was.len() != now.len() || was.is_empty() {
            continue;
        }
        let extent = was
            .iter()
            .flat_map(|p| p.iter().map(|c| c.abs()))
            .fold(1.0f32, f32::max);
        let worst = was
            .iter()
            .zip(&now)
            .flat_map(|(a, b)| (0..3).map(move |i| (a[i] - b[i]).abs()))
            .fold(0.0f32, f32::max);
        assert!(
            worst <= extent * 1e-5,
            "{}: a position moved by {worst} (extent {extent})",
            path.display()
        );
        exact += 1;
    }
    assert!(exact >= 10, "only {exact} corpus MDLs compared");
}
