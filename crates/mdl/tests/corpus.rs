//! Corpus tests: every MDL of `$IDMODEL_CORPUS/mdl` parses with the counts and flags of
//! `corpus_counts.txt`, rewrites byte for byte, decodes every pose and skin, and the seam
//! files weld to QuakeSpasm's vertex counts. Skipped with a notice when the variable is
//! unset.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use std::collections::HashSet;

use idmodel_mdl::{
    ENGINES, Engine, ErrorKind, Mdl, Model, SeamRule, Severity, SkinOptions, skin_to_rgba_vec,
};

/// One row of `corpus_counts.txt`: file, skins, width, height, verts, tris, frame
/// entries, poses, group sizes, synctype, flags, trailing bytes (surveyed from the corpus
/// files).
type Row = (String, [usize; 7], Vec<usize>, i32, u32, usize);

/// The rows of `corpus_counts.txt` (`#` lines are comments).
fn expected() -> Vec<Row> {
    let text = include_str!("corpus_counts.txt");
    common::table_rows("corpus_counts.txt", text, 12)
        .into_iter()
        .map(|w| {
            let n = |k: usize| w[k].parse::<usize>().unwrap();
            let groups = common::list_cell(w[8]);
            let flags = u32::from_str_radix(w[10].trim_start_matches("0x"), 16).unwrap();
            let counts = [n(1), n(2), n(3), n(4), n(5), n(6), n(7)];
            (
                w[0].to_owned(),
                counts,
                groups,
                w[9].parse().unwrap(),
                flags,
                n(11),
            )
        })
        .collect()
}

#[test]
fn every_corpus_mdl_parses_with_the_documented_counts() {
    let test = "every_corpus_mdl_parses_with_the_documented_counts";
    let expected = expected();
    let Some(dir) = common::corpus_listed(test, "mdl", "mdl", expected.len()) else {
        return;
    };
    for (name, counts, groups, sync, flags, trailing) in expected {
        let [skins, w, h, verts, tris, frames, poses] = counts;
        let bytes = std::fs::read(dir.join("mdl").join(&name)).unwrap();
        let m = Mdl::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.skin_count(), skins, "{name} skins");
        assert_eq!(
            (m.skin_width(), m.skin_height()),
            (w, h),
            "{name} skin size"
        );
        assert_eq!(m.vertex_count(), verts, "{name} verts");
        assert_eq!(m.triangles().len(), tris, "{name} tris");
        assert_eq!(m.frame_count(), frames, "{name} frames");
        assert_eq!(m.pose_count(), poses, "{name} poses");
        assert_eq!(m.poses().count(), poses, "{name} pose walk");
        let sizes: Vec<usize> = m
            .frames()
            .filter(|f| f.is_group())
            .map(|f| f.pose_count())
            .collect();
        assert_eq!(sizes, groups, "{name} groups");
        assert_eq!(m.sync_type(), sync, "{name} synctype");
        assert_eq!(m.flags().bits(), flags, "{name} flags");
        assert_eq!(m.trailing().len(), trailing, "{name} trailing");
        if trailing > 0 {
            assert!(m.trailing().starts_with(b"QMEX"), "{name} trailing block");
        }
        assert!(!m.has_skin_groups(), "{name}: the corpus has no skin group");
        assert_eq!(m.trailing_offset() + trailing, bytes.len());
    }
}

#[test]
fn every_corpus_mdl_rewrites_byte_for_byte() {
    let files = common::corpus_bytes("every_corpus_mdl_rewrites_byte_for_byte", "mdl", "mdl");
    for (path, bytes) in files.into_iter().flatten() {
        let model = Model::from(&Mdl::parse(&bytes).unwrap());
        assert_eq!(
            model.written_size().unwrap(),
            bytes.len(),
            "{}",
            path.display()
        );
        let out = model.write().unwrap();
        assert!(
            out == bytes,
            "{} does not rewrite identically",
            path.display()
        );
    }
}

#[test]
fn every_corpus_mdl_decodes_and_checks() {
    let files = common::corpus_bytes("every_corpus_mdl_decodes_and_checks", "mdl", "mdl");
    for (path, bytes) in files.into_iter().flatten() {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let m = Mdl::parse(&bytes).unwrap();
        let (scale, origin) = (m.scale(), m.origin());
        for pose in m.poses() {
            let (lo, hi) = (pose.bbox_min(), pose.bbox_max());
            assert_eq!(pose.positions().len(), m.vertex_count());
            for (p, v) in pose.positions().zip(pose.vertices()) {
                for a in 0..3 {
                    assert_eq!(p[a], scale[a] * f32::from(v.v[a]) + origin[a]);
                    assert!(p[a].is_finite());
                }
            }
            assert!(
                lo.iter().zip(hi).all(|(a, b)| *a <= b),
                "{name}: inverted bounds"
            );
            for n in pose.normals() {
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                assert!((len - 1.0).abs() < 1e-3);
            }
            assert_eq!(pose.bad_normal_count(), 0, "{name}");
        }
        let opts = SkinOptions::default();
        for skin in m.skins() {
            for image in skin.images() {
                let rgba = skin_to_rgba_vec(image, &opts);
                assert_eq!(rgba.len(), m.skin_width() * m.skin_height() * 4);
                assert!(rgba.chunks(4).all(|px| px[3] == 255));
            }
        }
        for rule in [SeamRule::Gl, SeamRule::Software] {
            for uvs in m.triangle_uvs(rule) {
                for uv in uvs {
                    assert!(
                        uv[0] >= 0.0 && uv[0] <= 1.5 && uv[1] >= 0.0 && uv[1] <= 1.0,
                        "{name}: {uv:?}"
                    );
                }
            }
        }
        // QuakeSpasm loads every corpus model; GLQuake refuses only the 1341-vertex demon.
        for &profile in ENGINES {
            let refused: Vec<_> = m
                .findings(profile)
                .into_iter()
                .filter(|f| f.severity == Severity::Refused)
                .collect();
            let expect_refused = profile == Engine::GlQuake && name == "lq_freeassets_demon.mdl";
            assert_eq!(
                !refused.is_empty(),
                expect_refused,
                "{name} {profile}: {refused:?}"
            );
        }
        let qs = m.findings(Engine::QuakeSpasm);
        assert_eq!(
            qs.iter()
                .any(|f| matches!(f.kind, idmodel_mdl::FindingKind::TrailingData { .. })),
            !m.trailing().is_empty()
        );
    }
}

/// QuakeSpasm's rule (`GL_MakeAliasModelDisplayLists_VBO`), written independently: one
/// vertex per (vertex, back side of the seam) pair used by some triangle.
fn quakespasm_welded_count(m: &Mdl<'_>) -> usize {
    let mut seen = HashSet::new();
    for t in m.triangles() {
        for v in t.vert_index {
            let v = v.get() as usize;
            let back = t.faces_front.get() == 0 && m.texcoords()[v].onseam.get() != 0;
            seen.insert((v, back));
        }
    }
    seen.len()
}

#[test]
fn seam_files_weld_like_quakespasm() {
    let Some(dir) = common::corpus_dir("seam_files_weld_like_quakespasm") else {
        return;
    };
    for (name, welded) in [("steg.mdl", 348), ("tekmechbot.MDL", 1480)] {
        let bytes = std::fs::read(dir.join("mdl").join(name)).unwrap();
        let m = Mdl::parse(&bytes).unwrap();
        let mesh = m.welded_mesh(SeamRule::Gl);
        assert_eq!(mesh.vertices.len(), welded, "{name}");
        assert_eq!(quakespasm_welded_count(&m), welded, "{name}");
        assert_eq!(mesh.indices.len(), 3 * m.triangles().len());
        // Every index refers to a vertex with the right source and seam side.
        for (t, tri) in m.triangles().iter().enumerate() {
            for c in 0..3 {
                let wv = mesh.vertices[mesh.indices[3 * t + c] as usize];
                let src = tri.vert_index[c].get() as usize;
                assert_eq!(wv.source as usize, src);
                let st = m.texcoords()[src];
                let back = tri.faces_front.get() == 0 && st.onseam.get() != 0;
                assert_eq!(wv.back_side, back);
                let half = if back { m.skin_width() as i32 / 2 } else { 0 };
                assert_eq!(wv.texel, [st.s.get() + half, st.t.get()]);
            }
        }
        // Only 0 and 0x20 occur, so the software rule welds the same way here.
        assert_eq!(m.welded_mesh(SeamRule::Software).vertices.len(), welded);
    }
    // Without seam vertices the welded mesh is exactly the vertices in use.
    let bytes = std::fs::read(dir.join("mdl/player.mdl")).unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.welded_mesh(SeamRule::Gl).vertices.len(), 801);
}

#[test]
fn half_life_file_is_refused_by_name() {
    let files = common::corpus_bytes("half_life_file_is_refused_by_name", "malformed/mdl", "mdl");
    for (_, bytes) in files.into_iter().flatten() {
        let e = Mdl::parse(&bytes).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::WrongFormat { .. }), "{e}");
        assert_eq!(e.offset(), 0);
        assert!(e.to_string().contains("Half-Life"), "{e}");
    }
}
