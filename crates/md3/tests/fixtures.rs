//! Hand-made fixtures: one test per refusal, per acceptance the engines rely on, and per
//! finding. Files are built field by field with a little-endian builder.
// Test code: a panic is a failed assertion, and fixture offsets are small constants.
#![allow(clippy::restriction)]

mod common;

use idmodel_md3::{
    Engine, ErrorKind, FindingKind, Md3, Model, NormalDecode, Orientation, Severity, Vertex,
    position_on_tag, position_rotated_on_tag, write,
};
use idmodel_test_support::{LeBuffer, patch, patch_bytes};

// Offsets in the minimal file.
const OFS_FRAMES: usize = 108;
const OFS_TAGS: usize = 164;
const OFS_SURF: usize = 276;
const SURF_END: usize = 236; // relative: 108 header + 68 shader + 12 triangle + 24 st + 24 xyz
const OFS_END: usize = OFS_SURF + SURF_END; // 512

/// One frame, one tag, one surface (one shader, one triangle, three vertices).
fn minimal() -> Vec<u8> {
    let mut b = LeBuffer::new();
    // md3Header_t
    b.bytes(b"IDP3") // ident
        .i32(15) // version
        .name("models/test.md3", 64) // name
        .i32(0) // flags
        .i32(1) // numFrames
        .i32(1) // numTags
        .i32(1) // numSurfaces
        .i32(0) // numSkins
        .i32(OFS_FRAMES as i32) // ofsFrames
        .i32(OFS_TAGS as i32) // ofsTags
        .i32(OFS_SURF as i32) // ofsSurfaces
        .i32(OFS_END as i32); // ofsEnd
    assert_eq!(b.len(), OFS_FRAMES);
    // md3Frame_t
    common::unit_frame(&mut b, "frame0");
    assert_eq!(b.len(), OFS_TAGS);
    // md3Tag_t
    b.name("tag_weapon", 64) // name
        .f32(1.0)
        .f32(2.0)
        .f32(3.0) // origin
        .f32(1.0)
        .f32(0.0)
        .f32(0.0) // axis[0]
        .f32(0.0)
        .f32(1.0)
        .f32(0.0) // axis[1]
        .f32(0.0)
        .f32(0.0)
        .f32(1.0); // axis[2]
    assert_eq!(b.len(), OFS_SURF);
    // md3Surface_t
    b.bytes(b"IDP3") // ident
        .name("Arm_L", 64) // name
        .i32(0) // flags
        .i32(1) // numFrames
        .i32(1) // numShaders
        .i32(3) // numVerts
        .i32(1) // numTriangles
        .i32(176) // ofsTriangles
        .i32(108) // ofsShaders
        .i32(188) // ofsSt
        .i32(212) // ofsXyzNormals
        .i32(SURF_END as i32); // ofsEnd
    // md3Shader_t
    b.name("models/test.tga", 64) // name
        .i32(0); // shaderIndex
    // md3Triangle_t
    b.i32(0).i32(1).i32(2); // indexes
    // md3St_t × 3
    b.f32(0.0).f32(0.0).f32(1.0).f32(0.0).f32(0.0).f32(1.0);
    // md3XyzNormal_t × 3: xyz, normal
    b.i16(0).i16(0).i16(0).i16(0);
    b.i16(64).i16(0).i16(0).i16(0);
    b.i16(0).i16(128).i16(-64).i16(0x4040);
    assert_eq!(b.len(), OFS_END);
    b.into_vec()
}

fn refused(bytes: &[u8]) -> idmodel_md3::Error {
    match Md3::parse(bytes) {
        Ok(_) => panic!("expected a refusal"),
        Err(e) => e,
    }
}

#[test]
fn minimal_fixture_parses() {
    let b = minimal();
    let m = Md3::parse(&b).unwrap();
    assert_eq!(m.num_frames(), 1);
    assert_eq!(m.num_tags(), 1);
    assert_eq!(m.name(), "models/test.md3");
    assert_eq!(m.frames()[0].name(), "frame0");
    let s = m.surface(0).unwrap();
    assert_eq!(s.name(), "Arm_L");
    assert_eq!(s.engine_name(), "arm");
    assert_eq!(s.num_verts(), 3);
    assert_eq!(s.indices().collect::<Vec<_>>(), [[0, 1, 2]]);
    assert_eq!(s.shaders()[0].name(), "models/test.tga");
    let p: Vec<_> = s.positions(0).unwrap().collect();
    assert_eq!(p, [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, -1.0]]);
    assert!(s.positions(1).is_none());
    assert_eq!(s.tex_coords().nth(1), Some([1.0, 0.0]));
    assert!(m.trailing_bytes().is_empty());
}

// ---- refusals ----

#[test]
fn symlink_stub_is_too_short() {
    let e = refused(b"../nexus6/computer.md3");
    assert_eq!(
        e.kind(),
        ErrorKind::Truncated {
            needed: 108,
            available: 22
        }
    );
    assert_eq!(e.offset(), 0);
}

#[test]
fn bad_magic() {
    let mut b = minimal();
    patch_bytes(&mut b, 0, b"XXXX"); // ident
    assert_eq!(refused(&b).kind(), ErrorKind::BadMagic(*b"XXXX"));
}

#[test]
fn md2_magic_is_named() {
    let mut b = minimal();
    patch_bytes(&mut b, 0, b"IDP2"); // ident
    assert!(matches!(refused(&b).kind(), ErrorKind::WrongFormat { .. }));
}

#[test]
fn wrong_version() {
    let mut b = minimal();
    patch(&mut b, 4, 16);
    let e = refused(&b);
    assert_eq!(e.kind(), ErrorKind::UnsupportedVersion(16));
    assert_eq!(e.offset(), 4);
}

#[test]
fn zero_frame_count() {
    let mut b = minimal();
    patch(&mut b, 76, 0);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::BadCount {
            what: "numFrames",
            value: 0
        }
    );
    assert_eq!(e.offset(), 76);
}

#[test]
fn negative_frame_count() {
    let mut b = minimal();
    patch(&mut b, 76, -5);
    assert_eq!(
        refused(&b).kind(),
        ErrorKind::BadCount {
            what: "numFrames",
            value: -5
        }
    );
}

#[test]
fn negative_tag_count() {
    let mut b = minimal();
    patch(&mut b, 80, -1);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::BadCount {
            what: "numTags",
            value: -1
        }
    );
    assert_eq!(e.offset(), 80);
}

#[test]
fn negative_surface_count() {
    let mut b = minimal();
    patch(&mut b, 84, -1);
    assert_eq!(refused(&b).offset(), 84);
}

#[test]
fn ofs_end_past_file() {
    let mut b = minimal();
    patch(&mut b, 104, 100_000);
    assert_eq!(
        refused(&b).kind(),
        ErrorKind::Truncated {
            needed: 100_000,
            available: OFS_END as u64
        }
    );
}

#[test]
fn ofs_end_inside_header() {
    let mut b = minimal();
    patch(&mut b, 104, 50);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::BadOffset {
            what: "ofsEnd",
            value: 50
        }
    );
    assert_eq!(e.offset(), 104);
}

#[test]
fn frames_past_ofs_end() {
    let mut b = minimal();
    patch(&mut b, 92, OFS_END as i32 - 10);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::Truncated {
            needed: 56,
            available: 10
        }
    );
    assert_eq!(e.offset(), OFS_END as u64 - 10);
}

#[test]
fn arrays_must_lie_before_ofs_end_even_with_trailing_bytes() {
    let mut b = minimal();
    b.extend_from_slice(&[0u8; 200]); // bytes after ofsEnd do not count
    patch(&mut b, 92, OFS_END as i32 - 10);
    assert!(matches!(refused(&b).kind(), ErrorKind::Truncated { .. }));
}

#[test]
fn negative_tag_offset() {
    let mut b = minimal();
    patch(&mut b, 96, -112);
    assert_eq!(
        refused(&b).kind(),
        ErrorKind::BadOffset {
            what: "ofsTags",
            value: -112
        }
    );
}

#[test]
fn huge_tag_count() {
    let mut b = minimal();
    patch(&mut b, 80, i32::MAX);
    assert!(matches!(refused(&b).kind(), ErrorKind::Truncated { .. }));
}

#[test]
fn huge_surface_count_is_bounded_by_the_file() {
    let mut b = minimal();
    patch(&mut b, 84, i32::MAX);
    // The second surface header would start at ofsEnd: refused, and quickly.
    let e = refused(&b);
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    assert_eq!(e.offset(), OFS_END as u64);
}

#[test]
fn surface_ofs_end_that_does_not_advance() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 104, 0);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::BadOffset {
            what: "surface ofsEnd",
            value: 0
        }
    );
    assert_eq!(e.offset(), (OFS_SURF + 104) as u64);
}

#[test]
fn surface_ofs_end_past_model() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 104, SURF_END as i32 + 4);
    assert!(matches!(
        refused(&b).kind(),
        ErrorKind::BadOffset {
            what: "surface ofsEnd",
            ..
        }
    ));
}

#[test]
fn negative_vertex_count() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 80, -3);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::BadCount {
            what: "surface numVerts",
            value: -3
        }
    );
    assert_eq!(e.offset(), (OFS_SURF + 80) as u64);
}

#[test]
fn vertices_past_end() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 72, 2); // surface numFrames: a second frame is not there
    assert!(matches!(refused(&b).kind(), ErrorKind::Truncated { .. }));
}

#[test]
fn verts_times_frames_overflow() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 72, i32::MAX);
    patch(&mut b, OFS_SURF + 80, i32::MAX);
    // Either the st array or the product is refused; never a panic or a huge loop.
    assert!(Md3::parse(&b).is_err());
}

#[test]
fn unbacked_surface_frame_count() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 80, 0); // numVerts: no vertex data at all
    patch(&mut b, OFS_SURF + 84, 0); // numTriangles
    patch(&mut b, OFS_SURF + 72, i32::MAX); // numFrames: nothing backs it
    let e = refused(&b);
    assert!(
        matches!(
            e.kind(),
            ErrorKind::TooMany {
                count: 0x7fff_ffff,
                max: 1,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset(), (OFS_SURF + 72) as u64);
    // With as many frames as the header it is accepted.
    patch(&mut b, OFS_SURF + 72, 1);
    assert_eq!(Md3::parse(&b).unwrap().surface(0).unwrap().num_frames(), 1);
    let mut m = Model::example();
    m.surfaces[0].st.clear();
    m.surfaces[0].triangles.clear();
    m.surfaces[0].frames = vec![Vec::new(); 4];
    assert_eq!(
        write(&m),
        Err(idmodel_md3::WriteError::UnbackedFrames { surface: 0 })
    );
}

#[test]
fn negative_shader_offset() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 92, -400);
    assert_eq!(
        refused(&b).kind(),
        ErrorKind::BadOffset {
            what: "surface ofsShaders",
            value: -400
        }
    );
}

#[test]
fn triangle_index_out_of_range() {
    let mut b = minimal();
    let at = OFS_SURF + 176 + 8; // third index of the triangle
    patch(&mut b, at, 3);
    let e = refused(&b);
    assert_eq!(
        e.kind(),
        ErrorKind::IndexOutOfRange {
            what: "triangle vertex index",
            index: 3,
            len: 3
        }
    );
    assert_eq!(e.offset(), at as u64);
}

#[test]
fn negative_triangle_index() {
    let mut b = minimal();
    patch(&mut b, OFS_SURF + 176, -1);
    assert!(matches!(
        refused(&b).kind(),
        ErrorKind::IndexOutOfRange { index: -1, .. }
    ));
}

// ---- accepted files ----

#[test]
fn trailing_bytes_are_exposed() {
    let mut b = minimal();
    b.push(0x0a);
    let m = Md3::parse(&b).unwrap();
    assert_eq!(m.trailing_bytes(), &[0x0a]);
    assert_eq!(m.body().len(), OFS_END);
    let f = m.findings(Engine::Ioq3);
    assert!(
        f.iter()
            .any(|f| f.kind == FindingKind::TrailingBytes { count: 1 })
    );
}

#[test]
fn tags_only_model() {
    let mut b = minimal();
    patch(&mut b, 84, 0); // numSurfaces
    patch(&mut b, 104, OFS_SURF as i32); // ofsEnd
    b.truncate(OFS_SURF);
    let m = Md3::parse(&b).unwrap();
    assert_eq!(m.surfaces().len(), 0);
    assert_eq!(m.tag_names().next().unwrap(), "tag_weapon");
    assert!(m.findings(Engine::Quake3).is_empty());
}

#[test]
fn surface_with_fewer_frames_than_header() {
    let mut b = minimal();
    // Two header frames (add a second frame record by pointing both at the same bytes
    // is impossible, so give the header 2 frames that overlap the tag record).
    patch(&mut b, 76, 2); // numFrames
    patch(&mut b, 96, OFS_TAGS as i32 - 112); // ofsTags: 2 × 1 tags end where they did
    let m = Md3::parse(&b).unwrap();
    let s = m.surface(0).unwrap();
    assert_eq!((m.num_frames(), s.num_frames()), (2, 1));
    assert!(s.frame(1).is_none());
    let f = m.findings(Engine::Ioq3);
    assert!(f.iter().any(|f| matches!(
        f.kind,
        FindingKind::SurfaceFrameCount {
            surface: 0,
            surface_frames: 1,
            header_frames: 2
        }
    ) && f.severity == Severity::Hazard));
}

// ---- findings (models built with the writer) ----

fn grid_surface(name: &str, verts: usize, tris: usize) -> idmodel_md3::SurfaceData {
    let mut m = Model::example();
    let mut s = m.surfaces.remove(0);
    s.name = name.as_bytes().to_vec();
    s.st = vec![[0.0, 0.0]; verts];
    s.frames = vec![vec![Vertex::default(); verts]; m.frames.len()];
    s.triangles = vec![[0, 1, 2]; tris];
    s
}

fn kinds(m: &Model, p: Engine) -> Vec<(String, Severity)> {
    let bytes = write(m).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    md3.findings(p)
        .iter()
        .map(|f| (f.to_string(), f.severity))
        .collect()
}

// These two tests once had Quake III 1.32 accept 1000 vertices and 2000 triangles without
// a finding: its R_LoadMD3 (code/renderer/tr_model.c) does load them, but its renderer
// drops to the console at the surface's first draw (RB_CheckOverflow, tr_surface.c:
// `verts >= SHADER_MAX_VERTEXES`, `indexes >= SHADER_MAX_INDEXES`). So exactly 1000 / 2000
// is now a hazard for Quake III 1.32 (still a refusal for ioquake3), and the file is
// refused by Quake III only from 1001 / 2001. tests/limits.rs checks every edge.
#[test]
fn thousand_vertices_split_the_engines() {
    let mut m = Model::example();
    m.surfaces = vec![grid_surface("big", 1000, 1)];
    let ioq3 = kinds(&m, Engine::Ioq3);
    assert!(
        ioq3.iter()
            .any(|(s, sev)| *sev == Severity::Refused && s.contains("1000 vertices")),
        "{ioq3:?}"
    );
    let quake3 = kinds(&m, Engine::Quake3);
    assert!(
        quake3.iter().any(|(s, sev)| *sev == Severity::Hazard
            && s.contains("1000 vertices")
            && s.contains("cannot draw")),
        "{quake3:?}"
    );
    assert!(quake3.iter().all(|(_, sev)| *sev != Severity::Refused));
    m.surfaces = vec![grid_surface("big", 1001, 1)];
    assert!(
        kinds(&m, Engine::Quake3)
            .iter()
            .any(|(s, sev)| *sev == Severity::Refused && s.contains("ERR_DROP"))
    );
}

#[test]
fn two_thousand_triangles_split_the_engines() {
    let mut m = Model::example();
    m.surfaces = vec![grid_surface("big", 3, 2000)];
    assert!(
        kinds(&m, Engine::Ioq3)
            .iter()
            .any(|(s, sev)| *sev == Severity::Refused && s.contains("2000 triangles"))
    );
    let quake3 = kinds(&m, Engine::Quake3);
    assert!(
        quake3.iter().any(|(s, sev)| *sev == Severity::Hazard
            && s.contains("2000 triangles")
            && s.contains("cannot draw")),
        "{quake3:?}"
    );
    assert!(quake3.iter().all(|(_, sev)| *sev != Severity::Refused));
}

#[test]
fn above_declared_maxima() {
    let mut m = Model::example();
    m.surfaces = (0..33)
        .map(|i| grid_surface(&format!("s{i}"), 3, 1))
        .collect();
    m.tags = m.tags.iter().map(|t| vec![t[0].clone(); 17]).collect();
    let f = kinds(&m, Engine::Ioq3);
    assert!(f.iter().any(|(s, _)| s.contains("MD3_MAX_SURFACES")));
    assert!(f.iter().any(|(s, _)| s.contains("MD3_MAX_TAGS")));
    assert!(f.iter().all(|(_, sev)| *sev == Severity::Warning));
}

#[test]
fn duplicate_surface_names() {
    let mut m = Model::example();
    m.surfaces[1].name = b"BODY".to_vec();
    let f = kinds(&m, Engine::Ioq3);
    assert!(
        f.iter()
            .any(|(s, _)| s.contains("surfaces 0 and 1 are both called 'body'")),
        "{f:?}"
    );
}

#[test]
fn surface_renamed_by_the_engine() {
    let f = kinds(&Model::example(), Engine::Ioq3);
    assert!(
        f.iter()
            .any(|(s, _)| s.contains("'arm_l' is renamed 'arm'")),
        "{f:?}"
    );
}

#[test]
fn empty_shader_name() {
    let mut m = Model::example();
    m.surfaces[0].shaders[0].name.clear();
    let f = kinds(&m, Engine::Ioq3);
    assert!(f.iter().any(|(s, _)| s.contains("empty name")), "{f:?}");
}

#[test]
fn tag_not_orthonormal() {
    let mut m = Model::example();
    m.tags[2][0].axis[0] = [2.0, 0.0, 0.0];
    let bytes = write(&m).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    let f = md3.findings(Engine::Ioq3);
    assert!(f.iter().any(|f| matches!(
        f.kind,
        FindingKind::TagNotOrthonormal {
            tag: 0,
            frame: 2,
            ..
        }
    )));
}

#[test]
fn example_model_has_only_the_rename_finding() {
    let f = kinds(&Model::example(), Engine::Quake3);
    assert_eq!(f.len(), 1, "{f:?}");
}

// ---- decoding ----

#[test]
fn lerp_matches_the_engine_formula() {
    let bytes = write(&Model::example()).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    let s = md3.surface(0).unwrap();
    let n = s.num_verts();
    let (mut p, mut nr) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    s.lerp_into(0, 2, 0.0, NormalDecode::Exact, &mut p, &mut nr)
        .unwrap();
    let want: Vec<_> = s.positions(2).unwrap().collect();
    assert_eq!(p, want);
    assert_eq!(
        nr[0],
        idmodel_core::md3_normal::decode_exact(s.frame(2).unwrap()[0].normal())
    );
    s.lerp_into(0, 2, 0.25, NormalDecode::Exact, &mut p, &mut nr)
        .unwrap();
    // z of vertex 0 is 0 in frame 0 and 4 in frame 2: 0·0.25 + 4·0.75 = 3.
    assert_eq!(p[0][2], 3.0);
    let len = (nr[0][0] * nr[0][0] + nr[0][1] * nr[0][1] + nr[0][2] * nr[0][2]).sqrt();
    assert!((len - 1.0).abs() < 2e-3);
    assert_eq!(
        s.lerp_into(0, 3, 0.5, NormalDecode::Exact, &mut p, &mut nr),
        Err(idmodel_md3::DecodeError::FrameOutOfRange {
            frame: 3,
            frames: 3
        })
    );
    let mut short = vec![[0.0; 3]; n - 1];
    assert!(
        s.lerp_into(0, 1, 0.5, NormalDecode::Ideal, &mut short, &mut nr)
            .is_err()
    );
}

#[test]
fn engine_frames_reset_both_when_one_is_out_of_range() {
    let bytes = write(&Model::example()).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    assert_eq!(md3.engine_frames(2, 1), (2, 1));
    assert_eq!(md3.engine_frames(3, 1), (0, 0));
}

#[test]
fn lerp_tag_like_r_lerp_tag() {
    let bytes = write(&Model::example()).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    assert!(md3.lerp_tag("tag_Weapon", 0, 1, 0.5).is_none()); // case-sensitive
    assert!(md3.lerp_tag("tag_torso", 0, 1, 0.5).is_none());
    let t = md3.lerp_tag("tag_weapon", 0, 2, 0.5).unwrap();
    assert_eq!(t.origin, [20.0, 0.0, 20.0]);
    for row in t.axis {
        let l = row[0] * row[0] + row[1] * row[1] + row[2] * row[2];
        assert!((l - 1.0).abs() < 1e-6);
    }
    // A frame past the end is clamped to the last one.
    assert_eq!(
        md3.lerp_tag("tag_weapon", 9, 9, 0.0),
        md3.lerp_tag("tag_weapon", 2, 2, 0.0)
    );
}

#[test]
fn placement_on_tags_composes_rows() {
    // Parent yawed 90°: its forward is +Y, left is −X.
    let parent = Orientation {
        origin: [100.0, 0.0, 0.0],
        axis: [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
    };
    let tag = Orientation {
        origin: [10.0, 0.0, 5.0],
        ..Orientation::IDENTITY
    };
    let child = position_on_tag(&parent, &tag);
    assert_eq!(child.origin, [100.0, 10.0, 5.0]);
    assert_eq!(child.axis, parent.axis);
    let local = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let rotated = position_rotated_on_tag(&parent, &tag, &local);
    // Two 90° yaws: forward is −X.
    assert_eq!(rotated.axis[0], [-1.0, 0.0, 0.0]);
}

#[test]
fn vertex_encoding_bounds() {
    let v = Vertex::encode([1.0 / 128.0 + 0.001, -3.0, 511.98], [0.0, 0.0, 1.0]).unwrap();
    assert_eq!(v.xyz, [1, -192, 32767]);
    assert_eq!(v.normal, 0);
    assert!(Vertex::encode([512.0, 0.0, 0.0], [0.0, 0.0, 1.0]).is_none());
    assert!(Vertex::encode([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]).is_none());
}

/// A NaN frame bound and an infinite tag origin are hazards `check` reports
/// (the parser accepts them, as the engine does).
#[test]
fn non_finite_bounds_and_tags() {
    let mut bytes = idmodel_md3::write(&idmodel_md3::Model::example()).unwrap();
    let at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let ofs_frames = at(&bytes, 92);
    let ofs_tags = at(&bytes, 96);
    assert!(idmodel_md3::Md3::parse(&bytes).unwrap().num_tags() > 0);
    bytes[ofs_frames..ofs_frames + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    bytes[ofs_tags + 64..ofs_tags + 68].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let md3 = idmodel_md3::Md3::parse(&bytes).unwrap();
    let found = md3.findings(idmodel_md3::Engine::Quake3);
    let non_finite: Vec<_> = found
        .iter()
        .filter(|f| matches!(f.kind, idmodel_md3::FindingKind::NonFinite { .. }))
        .collect();
    assert_eq!(non_finite.len(), 2, "{found:?}");
    assert!(
        non_finite
            .iter()
            .all(|f| f.severity == idmodel_md3::Severity::Hazard)
    );
    assert!(matches!(
        non_finite[0].kind,
        idmodel_md3::FindingKind::NonFinite {
            what: "frame",
            count: 1,
            first: 0
        }
    ));
    assert!(
        non_finite[1]
            .to_string()
            .contains("tag entries hold a NaN or an infinity")
    );
    // A clean model has none.
    let clean = idmodel_md3::write(&idmodel_md3::Model::example()).unwrap();
    let md3 = idmodel_md3::Md3::parse(&clean).unwrap();
    assert!(
        md3.findings(idmodel_md3::Engine::Quake3)
            .iter()
            .all(|f| !matches!(f.kind, idmodel_md3::FindingKind::NonFinite { .. }))
    );
}
