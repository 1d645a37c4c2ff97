//! Corpus tests: every MD2 in `$IDMODEL_CORPUS/md2` parses with the counts surveyed
//! below, every accessor and decoder walks it, the findings are the expected ones, and
//! the owned model round-trips through the writer.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_md2::{Engine, ErrorKind, FindingKind, Md2, Model, Severity};

/// (file, skins, width, height, verts, st, tris, frames, glcmds, skin 0, frame 0),
/// surveyed from the corpus files.
type Row = (
    &'static str,
    usize,
    i32,
    i32,
    usize,
    usize,
    usize,
    usize,
    usize,
    &'static str,
    &'static [u8],
);

const EXPECTED: &[Row] = &[
    (
        "box.md2",
        1,
        2048,
        2048,
        228,
        678,
        226,
        2,
        0,
        ".box",
        b"E:\\MIJN DOCU000",
    ),
    (
        "cube2_debris_tris.md2",
        1,
        256,
        256,
        8,
        3,
        12,
        198,
        58,
        "generic_grayrock1_col.png",
        b"stand_1",
    ),
    (
        "dolphin.md2",
        1,
        256,
        256,
        324,
        293,
        500,
        59,
        2285,
        "settings/elias1/desktop/frames/dolphin_f.bmp",
        b"glide1",
    ),
    (
        "faerie.md2",
        0,
        220,
        193,
        366,
        487,
        654,
        198,
        3335,
        "",
        b"stand01",
    ),
    (
        "fern.md2", 1, 256, 492, 245, 137, 952, 1, 0, ".fern", b"frame0",
    ),
    (
        "flag.md2", 0, 212, 243, 106, 612, 204, 10, 2041, "", b"stand01",
    ),
    (
        "grass.md2",
        6,
        512,
        512,
        8,
        12,
        4,
        1,
        41,
        ".grass_skin1",
        b"Frame000",
    ),
    (
        "gum_tree_branch.md2",
        8,
        256,
        256,
        1040,
        1930,
        936,
        1,
        0,
        ".gum_tree_branch",
        b"FRAME 000......",
    ),
    (
        "head05.md2",
        1,
        256,
        256,
        337,
        668,
        585,
        34,
        2631,
        ".head05a",
        b"FRAME 000......",
    ),
    (
        "helicopter.md2",
        1,
        256,
        256,
        1708,
        1389,
        1317,
        1,
        0,
        ".helicopter",
        b"FRAME 000......",
    ),
    (
        "horse.md2",
        0,
        468,
        151,
        346,
        2070,
        690,
        12,
        6901,
        "",
        b"stand01",
    ),
    (
        "lily_leaf.md2",
        1,
        256,
        256,
        4,
        6,
        2,
        1,
        0,
        ".lily_leaf",
        b"FRAME 000......",
    ),
    (
        "plant_01.md2",
        20,
        512,
        512,
        64,
        162,
        54,
        1,
        541,
        ".plant_skin1",
        b"Frame000",
    ),
    (
        "sign.md2",
        4,
        256,
        256,
        104,
        174,
        200,
        1,
        0,
        ".sign1",
        b"FRAME 000......",
    ),
    (
        "sydney.md2",
        0,
        308,
        193,
        342,
        456,
        679,
        198,
        3326,
        "",
        b"stand1",
    ),
    (
        "ufoai_pilots_male_body.md2",
        1,
        256,
        256,
        609,
        877,
        1196,
        372,
        0,
        ".body",
        b"FRAME 000......",
    ),
    (
        "ufoai_soldiers_male/body.md2",
        1,
        256,
        256,
        868,
        1149,
        1724,
        1007,
        7518,
        ".body",
        b"FRAME 000......",
    ),
    ("wc.md2", 2, 128, 256, 67, 82, 89, 2, 0, ".wc", b"wc"),
];

/// Walks every accessor and decoder; returns a checksum so nothing is optimised away.
fn walk(md2: &Md2<'_>) -> f64 {
    let mut sum = 0.0f64;
    for s in md2.skins() {
        sum += s.len() as f64;
    }
    let mut pos = vec![[0.0f32; 3]; md2.vertex_count()];
    let mut nrm = vec![[0.0f32; 3]; md2.vertex_count()];
    for f in md2.frames() {
        assert_eq!(f.positions_into(&mut pos).unwrap(), md2.vertex_count());
        assert_eq!(f.normals_into(&mut nrm).unwrap(), md2.vertex_count());
        sum += pos
            .iter()
            .map(|p| f64::from(p[0] + p[1] + p[2]))
            .sum::<f64>();
        assert!(
            nrm.iter()
                .all(|n| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-3)
        );
    }
    let last = md2.frame(md2.frame_count() - 1).unwrap();
    let first = md2.frame(0).unwrap();
    let half: Vec<_> = idmodel_md2::lerp_positions(&first, &last, 0.5).collect();
    assert_eq!(half.len(), md2.vertex_count());
    // backlerp 0 is the new frame exactly.
    let zero: Vec<_> = idmodel_md2::lerp_positions(&first, &last, 0.0).collect();
    assert_eq!(zero, last.positions().collect::<Vec<_>>());

    let soft = md2.soft_mesh();
    assert_eq!(soft.indices.len(), 3 * md2.triangles().len());
    assert!(
        soft.indices
            .iter()
            .all(|&i| (i as usize) < soft.vertices.len())
    );
    assert!(
        soft.vertices
            .iter()
            .all(|v| (v.xyz as usize) < md2.vertex_count())
    );
    let gl = md2.gl_mesh();
    assert_eq!(gl.vertices.len(), md2.gl_vertex_count());
    assert_eq!(gl.indices.len(), 3 * md2.gl_triangle_count());
    assert!(gl.indices.iter().all(|&i| (i as usize) < gl.vertices.len()));
    assert_eq!(md2.gl_triangles().count(), md2.gl_triangle_count());
    assert_eq!(
        common::gl_mesh_draws_gl_triangles(md2),
        md2.gl_triangle_count()
    );
    sum += md2.animations().count() as f64;
    sum
}

#[test]
fn every_corpus_md2_parses_with_its_listed_counts() {
    let test = "every_corpus_md2_parses_with_its_listed_counts";
    let Some(dir) = common::corpus_listed(test, "md2", "md2", EXPECTED.len()) else {
        return;
    };
    for &(name, skins, w, h, verts, st, tris, frames, glcmds, skin0, frame0) in EXPECTED {
        let path = dir.join("md2").join(name);
        let bytes = std::fs::read(&path).unwrap();
        let md2 = Md2::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(md2.skins().len(), skins, "{name} skins");
        assert_eq!(
            (md2.skin_width(), md2.skin_height()),
            (w, h),
            "{name} skin size"
        );
        assert_eq!(md2.vertex_count(), verts, "{name} verts");
        assert_eq!(md2.st().len(), st, "{name} st");
        assert_eq!(md2.triangles().len(), tris, "{name} tris");
        assert_eq!(md2.frame_count(), frames, "{name} frames");
        assert_eq!(md2.gl_command_words(), glcmds, "{name} glcmds");
        if skins > 0 {
            assert_eq!(md2.skin(0).unwrap(), skin0, "{name} skin 0");
        }
        assert_eq!(
            md2.frame(0).unwrap().name().as_bytes(),
            frame0,
            "{name} frame 0"
        );
        assert!(walk(&md2).is_finite(), "{name}");
    }
}

#[test]
fn corpus_findings_are_the_expected_ones() {
    let Some(dir) = common::corpus_dir("corpus_findings_are_the_expected_ones") else {
        return;
    };
    for &(name, .., glcmds, _, _) in EXPECTED {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let found = md2.findings(Engine::Quake2);
        for f in &found {
            eprintln!("{name}: {f}");
        }
        let has = |pred: &dyn Fn(&FindingKind) -> bool| found.iter().any(|f| pred(&f.kind));
        // The UFO:AI files without GL commands would make Quake II's GL renderer read garbage.
        assert_eq!(
            has(&|k| matches!(k, FindingKind::NoGlCommands { .. })),
            glcmds == 0,
            "{name}"
        );
        let tall = md2.skin_height() > 480;
        assert_eq!(
            has(&|k| matches!(k, FindingKind::SkinTooTall { .. })),
            tall,
            "{name}"
        );
        if name == "plant_01.md2" {
            assert!(!has(&|k| matches!(k, FindingKind::TooManySkins { .. })));
        }
    }
    // Two UFO:AI files write GL vertices as (index, s, t): set aside, reported, still parsed.
    for name in ["grass.md2", "plant_01.md2"] {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        assert!(md2.gl_commands_error().is_some(), "{name}");
        assert!(Md2::parse_strict(&bytes).is_err(), "{name}");
        assert_eq!(md2.gl_commands().len(), 0, "{name}");
        assert!(md2.findings(Engine::Quake2).iter().any(|f| matches!(
            f.kind,
            FindingKind::GlCommandsInvalid {
                swapped_layout: true,
                ..
            }
        )));
    }
    // cube2's debris: the GL strips draw (0,1,2) where the list has (1,3,2).
    let bytes = std::fs::read(dir.join("md2/cube2_debris_tris.md2")).unwrap();
    let found = Md2::parse(&bytes).unwrap().findings(Engine::Quake2);
    assert!(found.iter().any(|f| f.kind
        == FindingKind::GlMismatch {
            gl_triangles: 12,
            triangles: 12,
            unmatched: 1
        }));
    // The id-style exports agree: GL commands and triangle list draw the same mesh.
    for name in ID_TOOLS.iter().chain(&["head05.md2"]) {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let md2 = Md2::parse_strict(&bytes).unwrap();
        assert!(md2.findings(Engine::Quake2).is_empty(), "{name}");
        assert_eq!(md2.gl_triangle_count(), md2.triangles().len(), "{name}");
    }
    // The 3.6 MB, 1007-frame soldier: over the 512-frame limit and the 2 MiB model hunk.
    let bytes = std::fs::read(dir.join("md2/ufoai_soldiers_male/body.md2")).unwrap();
    let found = Md2::parse(&bytes).unwrap().findings(Engine::Quake2);
    let frames = FindingKind::TooManyFrames { count: 1007 };
    assert!(common::has(&found, frames, Severity::Hazard));
    let hunk = FindingKind::HunkOverflow { ofs_end: 3_592_072 };
    assert!(common::has(&found, hunk, Severity::Refused));
}

/// The corpus files made by id-style tools (qdata's BuildGlCmds).
const ID_TOOLS: [&str; 5] = [
    "faerie.md2",
    "sydney.md2",
    "horse.md2",
    "flag.md2",
    "dolphin.md2",
];

#[test]
fn corpus_models_round_trip_through_the_writer() {
    let Some(dir) = common::corpus_dir("corpus_models_round_trip_through_the_writer") else {
        return;
    };
    for &(name, ..) in EXPECTED {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let model = Model::from(Md2::parse(&bytes).unwrap());
        let written = idmodel_md2::write(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = Md2::parse(&written).unwrap();
        assert_eq!(Model::from(again), model, "{name}");
        // Generated GL commands draw exactly the triangle list.
        if model.gl_commands {
            let found = again.findings(Engine::Quake2);
            assert!(
                !found
                    .iter()
                    .any(|f| matches!(f.kind, FindingKind::GlMismatch { .. })),
                "{name}: {found:?}"
            );
            assert_eq!(again.gl_triangle_count(), model.triangles.len(), "{name}");
        }
    }
}

#[test]
fn malformed_zero_numvertices_is_refused_cleanly() {
    let test = "malformed_zero_numvertices_is_refused_cleanly";
    let rel = "malformed/md2/malformed_zero_numvertices.md2";
    let Some(bytes) = common::corpus_file(test, rel) else {
        return;
    };
    let e = Md2::parse(&bytes).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::BadCount {
            what: "num_xyz",
            value: 0
        }
    );
    assert_eq!(e.offset(), 24);
}

#[test]
fn generated_gl_commands_match_quake2_tools_word_for_word() {
    let Some(dir) = common::corpus_dir("generated_gl_commands_match_quake2_tools_word_for_word")
    else {
        return;
    };
    // These five were made by id-style tools (qdata's BuildGlCmds): the writer's strips and
    // fans, and the (s + 0.5) / width float bits, reproduce their command lists exactly.
    for name in ID_TOOLS {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let words: Vec<i32> = md2
            .gl_command_bytes()
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            idmodel_md2::build_gl_commands(&Model::from(md2)),
            words,
            "{name}"
        );
    }
    // Two of them (no garbage after the NULs of their names) are rewritten byte for byte.
    for name in ["faerie.md2", "sydney.md2"] {
        let bytes = std::fs::read(dir.join("md2").join(name)).unwrap();
        let model = Model::from(Md2::parse(&bytes).unwrap());
        assert!(idmodel_md2::write(&model).unwrap() == bytes, "{name}");
    }
}
