//! The engines' per-surface limits, to the unit, on hand-built files just at and just over
//! each one, and the LOD frame-count check.
//!
//! From the engine sources (code/qcommon/qfiles.h: `SHADER_MAX_VERTEXES` 1000,
//! `SHADER_MAX_INDEXES` 6000):
//!
//! * ioquake3 `R_LoadMD3` (renderergl1 and renderergl2 tr_model.c) refuses
//!   `numVerts >= 1000` and `numTriangles * 3 >= 6000`: it loads at most 999 / 1999.
//! * Quake III 1.32 `R_LoadMD3` (code/renderer/tr_model.c) drops to the console
//!   (`ERR_DROP`) on `numVerts > 1000` and `numTriangles * 3 > 6000`: it loads 1000 /
//!   2000, but `RB_CheckOverflow` (tr_surface.c) then drops at the first draw of such a
//!   surface (`verts >= 1000`, `indexes >= 6000`): it draws at most 999 / 1999.
// Test code: a panic is a failed assertion, and fixture offsets are small constants.
#![allow(clippy::restriction)]

mod common;

use idmodel_md3::{
    Engine, FindingKind, Md3, Severity, check_lod_frames, lod_frame_findings, max_loaded_triangles,
    max_loaded_verts, max_triangles, max_verts,
};
use idmodel_test_support::LeBuffer;

const HEADER: usize = 108;
const FRAME: usize = 56;
const SURFACE: usize = 108;
const SHADER: usize = 68;
const TRIANGLE: usize = 12;
const ST: usize = 8;
const XYZ_NORMAL: usize = 8;

/// A model of `frames` frames, no tags and one surface "body" of `verts` vertices and
/// `tris` triangles (all `0 1 2`), one shader.
fn surface_file(verts: usize, tris: usize, frames: usize) -> Vec<u8> {
    assert!(verts >= 3 && frames >= 1);
    let ofs_frames = HEADER;
    let ofs_tags = ofs_frames + FRAME * frames;
    let ofs_surf = ofs_tags; // no tags
    let ofs_shaders = SURFACE;
    let ofs_triangles = ofs_shaders + SHADER;
    let ofs_st = ofs_triangles + TRIANGLE * tris;
    let ofs_xyz = ofs_st + ST * verts;
    let surf_end = ofs_xyz + XYZ_NORMAL * verts * frames;
    let ofs_end = ofs_surf + surf_end;

    let mut b = LeBuffer::new();
    // md3Header_t
    b.bytes(b"IDP3") // ident
        .i32(15) // version
        .name("models/limits.md3", 64) // name
        .i32(0) // flags
        .i32(frames as i32) // numFrames
        .i32(0) // numTags
        .i32(1) // numSurfaces
        .i32(0) // numSkins
        .i32(ofs_frames as i32) // ofsFrames
        .i32(ofs_tags as i32) // ofsTags
        .i32(ofs_surf as i32) // ofsSurfaces
        .i32(ofs_end as i32); // ofsEnd
    assert_eq!(b.len(), ofs_frames);
    for f in 0..frames {
        // md3Frame_t
        common::unit_frame(&mut b, &format!("frame{f}"));
    }
    assert_eq!(b.len(), ofs_surf);
    // md3Surface_t
    b.bytes(b"IDP3") // ident
        .name("body", 64) // name
        .i32(0) // flags
        .i32(frames as i32) // numFrames
        .i32(1) // numShaders
        .i32(verts as i32) // numVerts
        .i32(tris as i32) // numTriangles
        .i32(ofs_triangles as i32) // ofsTriangles
        .i32(ofs_shaders as i32) // ofsShaders
        .i32(ofs_st as i32) // ofsSt
        .i32(ofs_xyz as i32) // ofsXyzNormals
        .i32(surf_end as i32); // ofsEnd
    // md3Shader_t
    b.name("models/limits.tga", 64) // name
        .i32(0); // shaderIndex
    for _ in 0..tris {
        b.i32(0).i32(1).i32(2); // md3Triangle_t indexes
    }
    for v in 0..verts {
        b.f32(v as f32 / verts as f32).f32(0.5); // md3St_t
    }
    for _ in 0..frames {
        for v in 0..verts {
            // md3XyzNormal_t: xyz, normal
            b.i16((v % 512) as i16).i16(0).i16(0).i16(0);
        }
    }
    assert_eq!(b.len(), ofs_end);
    b.into_vec()
}

/// The per-surface limit findings (vertices or triangles) of `engine`, as
/// (count, max, severity, message).
fn limit_findings(
    bytes: &[u8],
    engine: Engine,
    verts: bool,
) -> Vec<(usize, usize, Severity, String)> {
    let m = Md3::parse(bytes).unwrap();
    m.findings(engine)
        .into_iter()
        .filter_map(|f| {
            let (count, max) = match f.kind {
                FindingKind::TooManyVerts {
                    surface: 0,
                    count,
                    max,
                } if verts => (count, max),
                FindingKind::TooManyTriangles {
                    surface: 0,
                    count,
                    max,
                } if !verts => (count, max),
                _ => return None,
            };
            Some((count, max, f.severity, f.to_string()))
        })
        .collect()
}

#[test]
fn the_fixture_parses_with_the_counts_asked_for() {
    let b = surface_file(1000, 2001, 2);
    let m = Md3::parse(&b).unwrap();
    let s = m.surface(0).unwrap();
    assert_eq!(
        (s.num_verts(), s.triangles().len(), m.num_frames()),
        (1000, 2001, 2)
    );
    // A small one has no finding at all for either engine.
    let small = surface_file(3, 1, 1);
    for engine in [Engine::Quake3, Engine::Ioq3] {
        let f = Md3::parse(&small).unwrap().findings(engine);
        assert!(f.is_empty(), "{engine:?}: {f:?}");
    }
}

#[test]
fn the_limit_functions_give_the_engine_numbers() {
    // Drawable by both engines: 999 vertices, 1999 triangles.
    assert_eq!(max_verts(Engine::Quake3), Some(999));
    assert_eq!(max_verts(Engine::Ioq3), Some(999));
    assert_eq!(max_triangles(Engine::Quake3), Some(1999));
    assert_eq!(max_triangles(Engine::Ioq3), Some(1999));
    // Loaded: Quake III 1.32 one more than it draws.
    assert_eq!(max_loaded_verts(Engine::Quake3), Some(1000));
    assert_eq!(max_loaded_verts(Engine::Ioq3), Some(999));
    assert_eq!(max_loaded_triangles(Engine::Quake3), Some(2000));
    assert_eq!(max_loaded_triangles(Engine::Ioq3), Some(1999));
    for e in [Engine::Quake2, Engine::Doom3, Engine::GlQuake] {
        assert_eq!(
            (max_verts(e), max_triangles(e), max_loaded_verts(e)),
            (None, None, None)
        );
    }
}

// ---- vertices ----

#[test]
fn quake3_999_vertices_is_fine() {
    let b = surface_file(999, 1, 1);
    assert!(limit_findings(&b, Engine::Quake3, true).is_empty());
}

#[test]
fn quake3_1000_vertices_loads_but_cannot_be_drawn() {
    let b = surface_file(1000, 1, 1);
    let f = limit_findings(&b, Engine::Quake3, true);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (1000, 999, Severity::Hazard));
    assert!(msg.starts_with("quake3: hazard: "), "{msg}");
    assert!(
        msg.contains("cannot draw") && msg.contains("RB_CheckOverflow"),
        "{msg}"
    );
}

#[test]
fn quake3_1001_vertices_is_refused_at_load() {
    let b = surface_file(1001, 1, 1);
    let f = limit_findings(&b, Engine::Quake3, true);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (1001, 1000, Severity::Refused));
    assert!(
        msg.contains("loads at most 1000") && msg.contains("ERR_DROP"),
        "{msg}"
    );
}

#[test]
fn ioq3_999_vertices_is_fine() {
    let b = surface_file(999, 1, 1);
    assert!(limit_findings(&b, Engine::Ioq3, true).is_empty());
}

#[test]
fn ioq3_1000_vertices_is_refused_at_load() {
    let b = surface_file(1000, 1, 1);
    let f = limit_findings(&b, Engine::Ioq3, true);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (1000, 999, Severity::Refused));
    assert!(
        msg.contains("loads at most 999") && msg.contains("quietly refuses"),
        "{msg}"
    );
    // Still refused one further on.
    let f = limit_findings(&surface_file(1001, 1, 1), Engine::Ioq3, true);
    assert_eq!(
        f.iter().map(|f| (f.0, f.1, f.2)).collect::<Vec<_>>(),
        [(1001, 999, Severity::Refused)]
    );
}

// ---- triangles ----

#[test]
fn quake3_1999_triangles_is_fine() {
    let b = surface_file(3, 1999, 1);
    assert!(limit_findings(&b, Engine::Quake3, false).is_empty());
}

#[test]
fn quake3_2000_triangles_loads_but_cannot_be_drawn() {
    let b = surface_file(3, 2000, 1);
    let f = limit_findings(&b, Engine::Quake3, false);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (2000, 1999, Severity::Hazard));
    assert!(
        msg.contains("2000 triangles") && msg.contains("cannot draw"),
        "{msg}"
    );
}

#[test]
fn quake3_2001_triangles_is_refused_at_load() {
    let b = surface_file(3, 2001, 1);
    let f = limit_findings(&b, Engine::Quake3, false);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (2001, 2000, Severity::Refused));
    assert!(
        msg.contains("loads at most 2000") && msg.contains("ERR_DROP"),
        "{msg}"
    );
}

#[test]
fn ioq3_1999_triangles_is_fine() {
    let b = surface_file(3, 1999, 1);
    assert!(limit_findings(&b, Engine::Ioq3, false).is_empty());
}

#[test]
fn ioq3_2000_triangles_is_refused_at_load() {
    let b = surface_file(3, 2000, 1);
    let f = limit_findings(&b, Engine::Ioq3, false);
    assert_eq!(f.len(), 1, "{f:?}");
    let (count, max, severity, msg) = &f[0];
    assert_eq!((*count, *max, *severity), (2000, 1999, Severity::Refused));
    assert!(
        msg.contains("loads at most 1999") && msg.contains("quietly refuses"),
        "{msg}"
    );
}

#[test]
fn vertex_and_triangle_findings_are_independent() {
    // 1000 vertices and 2001 triangles: Quake III cannot draw the first, refuses the second.
    let b = surface_file(1000, 2001, 1);
    let v = limit_findings(&b, Engine::Quake3, true);
    let t = limit_findings(&b, Engine::Quake3, false);
    assert_eq!(
        v.iter().map(|f| f.2).collect::<Vec<_>>(),
        [Severity::Hazard]
    );
    assert_eq!(
        t.iter().map(|f| f.2).collect::<Vec<_>>(),
        [Severity::Refused]
    );
}

// ---- LOD frame counts ----

/// The LOD findings for LOD files of these frame counts, parsed from fixtures.
fn lod_kinds(engine: Engine, counts: [Option<usize>; 3]) -> Vec<(FindingKind<'static>, Severity)> {
    let files: Vec<Option<Vec<u8>>> = counts
        .iter()
        .map(|c| c.map(|n| surface_file(3, 1, n)))
        .collect();
    let views: Vec<Option<Md3<'_>>> = files
        .iter()
        .map(|b| b.as_deref().map(|b| Md3::parse(b).unwrap()))
        .collect();
    let frames: Vec<Option<usize>> = views
        .iter()
        .map(|m| m.as_ref().map(Md3::num_frames))
        .collect();
    assert_eq!(frames, counts);
    let mut out = Vec::new();
    check_lod_frames(engine, &frames, &mut |f| {
        assert_eq!(f.engine, engine);
        out.push((f.kind, f.severity));
    });
    assert_eq!(out.len(), lod_frame_findings(engine, &frames).len());
    out
}

#[test]
fn lods_with_as_many_frames_as_lod0_say_nothing() {
    for engine in [Engine::Quake3, Engine::Ioq3] {
        assert!(lod_kinds(engine, [Some(5), Some(5), Some(5)]).is_empty());
        assert!(lod_kinds(engine, [Some(5), Some(5), None]).is_empty());
    }
}

#[test]
fn a_lod_with_fewer_frames_is_a_hazard_in_both_engines() {
    for engine in [Engine::Quake3, Engine::Ioq3] {
        let f = lod_kinds(engine, [Some(5), Some(4), Some(5)]);
        assert_eq!(
            f,
            [(
                FindingKind::LodFewerFrames {
                    lod: 1,
                    frames: 4,
                    lod0_frames: 5
                },
                Severity::Hazard
            )]
        );
        // Both lower LODs short (as OpenArena's gargoyle lower_1 / lower_2), and a short
        // LOD 2 with no LOD 1 keeps its number.
        let f = lod_kinds(engine, [Some(5), Some(4), Some(3)]);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(matches!(
            f[1].0,
            FindingKind::LodFewerFrames {
                lod: 2,
                frames: 3,
                lod0_frames: 5
            }
        ));
        let f = lod_kinds(engine, [Some(5), None, Some(1)]);
        assert!(
            matches!(
                f[..],
                [(
                    FindingKind::LodFewerFrames {
                        lod: 2,
                        frames: 1,
                        lod0_frames: 5
                    },
                    Severity::Hazard
                )]
            ),
            "{f:?}"
        );
    }
}

#[test]
fn a_lod_with_more_frames_says_nothing() {
    // The extra frames are never shown (frame numbers are checked against LOD 0), and no
    // frame LOD 0 shows is missing from the LOD.
    for engine in [Engine::Quake3, Engine::Ioq3] {
        assert!(lod_kinds(engine, [Some(3), Some(4), Some(6)]).is_empty());
    }
}

#[test]
fn the_lod_message_and_code_name_the_counts() {
    let f = lod_frame_findings(Engine::Ioq3, &[Some(215), Some(214), Some(210)]);
    let text: Vec<String> = f.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2);
    assert!(
        text[0].starts_with("ioq3: hazard: LOD 1 has 214 frames but LOD 0 has 215"),
        "{}",
        text[0]
    );
    assert!(
        text[1].contains("reads past LOD 2's frames when it draws frames 210 to 214"),
        "{}",
        text[1]
    );
    assert_eq!(
        idmodel_core::findings::Finding::code(&f[0]),
        "lod-fewer-frames"
    );
}

#[test]
fn the_lod_check_needs_lod0_and_an_md3_engine() {
    // Without LOD 0 there is nothing to compare with.
    assert!(lod_frame_findings(Engine::Quake3, &[None, Some(1), Some(1)]).is_empty());
    assert!(lod_frame_findings(Engine::Quake3, &[]).is_empty());
    // Engines that do not load MD3 say nothing.
    assert!(lod_frame_findings(Engine::Quake2, &[Some(5), Some(1)]).is_empty());
    // The engines load three LODs; a fourth entry is ignored.
    let f = lod_frame_findings(Engine::Quake3, &[Some(5), Some(5), Some(5), Some(1)]);
    assert!(f.is_empty(), "{f:?}");
}
