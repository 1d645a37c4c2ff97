//! Hand-made fixtures, one per refusal and per finding, built field by field.
// Test helpers may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_md2::{Engine, ErrorKind, FindingKind, GlKind, Md2, Severity};
use idmodel_test_support::{LeBuffer, patch, patch_bytes};

mod common;

/// The header values of the fixture; tests change one and rebuild.
#[derive(Clone)]
struct Fx {
    ident: [u8; 4],
    version: i32,
    skinwidth: i32,
    skinheight: i32,
    framesize: i32,
    num_skins: i32,
    num_xyz: i32,
    num_st: i32,
    num_tris: i32,
    num_glcmds: i32,
    num_frames: i32,
    ofs_skins: i32,
    ofs_st: i32,
    ofs_tris: i32,
    ofs_frames: i32,
    ofs_glcmds: i32,
    ofs_end: Option<i32>,
    /// Triangle 0's index_xyz and index_st.
    tri: [i16; 6],
    /// The GL command words.
    glcmds: Vec<i32>,
    lightnormal: u8,
    skin_name: Vec<u8>,
}

const OFS_SKINS: i32 = 68;
const OFS_ST: i32 = OFS_SKINS + 64; // one skin
const OFS_TRIS: i32 = OFS_ST + 3 * 4; // three st
const OFS_FRAMES: i32 = OFS_TRIS + 12; // one triangle
const OFS_GLCMDS: i32 = OFS_FRAMES + 40 + 3 * 4; // one frame of three vertices

fn gl_fan() -> Vec<i32> {
    let mut w = vec![-3];
    for (s, t, i) in [(0.0f32, 0.0f32, 0), (1.0, 0.0, 1), (0.0, 1.0, 2)] {
        w.push(i32::from_le_bytes(s.to_le_bytes()));
        w.push(i32::from_le_bytes(t.to_le_bytes()));
        w.push(i);
    }
    w.push(0);
    w
}

impl Fx {
    /// One skin, three vertices, three st, one triangle, one frame, one fan.
    fn valid() -> Self {
        let glcmds = gl_fan();
        Fx {
            ident: *b"IDP2",
            version: 8,
            skinwidth: 8,
            skinheight: 8,
            framesize: 40 + 3 * 4,
            num_skins: 1,
            num_xyz: 3,
            num_st: 3,
            num_tris: 1,
            num_glcmds: glcmds.len() as i32,
            num_frames: 1,
            ofs_skins: OFS_SKINS,
            ofs_st: OFS_ST,
            ofs_tris: OFS_TRIS,
            ofs_frames: OFS_FRAMES,
            ofs_glcmds: OFS_GLCMDS,
            ofs_end: None,
            tri: [0, 1, 2, 0, 1, 2],
            glcmds,
            lightnormal: 5,
            skin_name: b"models/fx/skin.pcx".to_vec(),
        }
    }

    fn build(&self) -> Vec<u8> {
        let end = OFS_GLCMDS + 4 * self.glcmds.len() as i32;
        let mut b = LeBuffer::new();
        b.bytes(&self.ident) // ident
            .i32(self.version) // version
            .i32(self.skinwidth) // skinwidth
            .i32(self.skinheight) // skinheight
            .i32(self.framesize) // framesize
            .i32(self.num_skins) // num_skins
            .i32(self.num_xyz) // num_xyz
            .i32(self.num_st) // num_st
            .i32(self.num_tris) // num_tris
            .i32(self.num_glcmds) // num_glcmds
            .i32(self.num_frames) // num_frames
            .i32(self.ofs_skins) // ofs_skins
            .i32(self.ofs_st) // ofs_st
            .i32(self.ofs_tris) // ofs_tris
            .i32(self.ofs_frames) // ofs_frames
            .i32(self.ofs_glcmds) // ofs_glcmds
            .i32(self.ofs_end.unwrap_or(end)); // ofs_end
        b.name(&self.skin_name, 64); // skin 0 name
        b.i16(0).i16(0); // st 0: s, t
        b.i16(7).i16(0); // st 1
        b.i16(0).i16(7); // st 2
        for v in self.tri {
            b.i16(v); // triangle 0: index_xyz[3], index_st[3]
        }
        b.f32(1.0).f32(1.0).f32(1.0); // frame 0 scale
        b.f32(-1.0).f32(0.0).f32(2.0); // frame 0 translate
        b.name(b"stand01", 16); // frame 0 name
        b.bytes(&[0, 0, 0, self.lightnormal]); // vertex 0: v[3], lightnormalindex
        b.bytes(&[4, 0, 0, 0]); // vertex 1
        b.bytes(&[0, 4, 0, 0]); // vertex 2
        for w in &self.glcmds {
            b.i32(*w); // GL command words
        }
        b.into_vec()
    }

    /// The valid file with `change` made to it.
    fn with(change: impl FnOnce(&mut Self)) -> Self {
        let mut fx = Self::valid();
        change(&mut fx);
        fx
    }

    fn err(&self) -> idmodel_md2::Error {
        Md2::parse(&self.build()).unwrap_err()
    }

    /// The error the GL commands were set aside with (the file itself parses).
    fn gl_err(&self) -> idmodel_md2::Error {
        Md2::parse(&self.build())
            .unwrap()
            .gl_commands_error()
            .unwrap()
    }

    fn findings(&self) -> Vec<idmodel_md2::Finding> {
        Md2::parse(&self.build()).unwrap().findings(Engine::Quake2)
    }
}

/// `ErrorKind::BadCount` of `what`.
fn bad_count(what: &'static str, value: i64) -> ErrorKind {
    ErrorKind::BadCount { what, value }
}

/// `ErrorKind::BadOffset` of `what`.
fn bad_offset(what: &'static str, value: i64) -> ErrorKind {
    ErrorKind::BadOffset { what, value }
}

/// `ErrorKind::IndexOutOfRange` of `what`.
fn out_of_range(what: &'static str, index: i64, len: u64) -> ErrorKind {
    ErrorKind::IndexOutOfRange { what, index, len }
}

/// `e` is of `kind`, at byte `at`.
fn assert_error(e: &idmodel_md2::Error, kind: ErrorKind, at: i32) {
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.offset(), u64::try_from(at).unwrap(), "{e}");
}

#[test]
fn valid_fixture_parses_and_decodes() {
    let bytes = Fx::valid().build();
    let md2 = Md2::parse_strict(&bytes).unwrap();
    assert_eq!(md2.skin(0).unwrap(), "models/fx/skin.pcx");
    let f = md2.frame(0).unwrap();
    assert_eq!(
        f.positions().collect::<Vec<_>>(),
        vec![[-1.0, 0.0, 2.0], [3.0, 0.0, 2.0], [-1.0, 4.0, 2.0]]
    );
    let cmds: Vec<_> = md2.gl_commands().collect();
    assert_eq!(cmds.len(), 1);
    assert_eq!(cmds[0].kind, GlKind::Fan);
    assert_eq!(md2.gl_triangle_count(), 1);
    // UVs from st: s / skinwidth, no half texel.
    let soft = md2.soft_mesh();
    assert_eq!(soft.vertices.len(), 3);
    assert_eq!(soft.vertices[1].uv, [7.0 / 8.0, 0.0]);
    assert!(md2.findings(Engine::Quake2).is_empty());
}

#[test]
fn short_header() {
    let bytes = Fx::valid().build();
    let e = Md2::parse(&bytes[..67]).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Truncated {
            needed: 68,
            available: 67
        }
    );
}

#[test]
fn bad_magic_and_md3_magic() {
    let mut fx = Fx::valid();
    fx.ident = *b"XXXX";
    assert_eq!(fx.err().kind(), ErrorKind::BadMagic(*b"XXXX"));
    fx.ident = *b"IDP3";
    assert!(matches!(fx.err().kind(), ErrorKind::WrongFormat { .. }));
}

#[test]
fn wrong_version() {
    let fx = Fx::with(|fx| fx.version = 15);
    let e = fx.err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedVersion(15));
    assert_eq!(e.offset(), 4);
}

#[test]
fn zero_vertices_st_triangles_frames() {
    for (field, at) in [
        ("num_xyz", 24),
        ("num_st", 28),
        ("num_tris", 32),
        ("num_frames", 40),
    ] {
        let mut fx = Fx::valid();
        match field {
            "num_xyz" => fx.num_xyz = 0,
            "num_st" => fx.num_st = 0,
            "num_tris" => fx.num_tris = 0,
            _ => fx.num_frames = 0,
        }
        let e = fx.err();
        assert_eq!(
            e.kind(),
            ErrorKind::BadCount {
                what: field,
                value: 0
            },
            "{field}"
        );
        assert_eq!(e.offset(), at);
    }
}

#[test]
fn negative_frame_count() {
    let fx = Fx::with(|fx| fx.num_frames = -1);
    assert_eq!(fx.err().kind(), bad_count("num_frames", -1));
}

#[test]
fn negative_skin_and_glcmd_counts() {
    let fx = Fx::with(|fx| fx.num_skins = -2);
    assert_eq!(fx.err().offset(), 20);
    let fx = Fx::with(|fx| fx.num_glcmds = i32::MIN);
    assert_eq!(fx.err().offset(), 36);
}

#[test]
fn framesize_below_natural() {
    let fx = Fx::with(|fx| fx.framesize = 40 + 3 * 4 - 1);
    let e = fx.err();
    assert!(matches!(e.kind(), ErrorKind::BadValue { value: 51, .. }));
    assert_eq!(e.offset(), 16);
}

#[test]
fn offset_past_end() {
    let fx = Fx::with(|fx| fx.ofs_frames = 100_000);
    let e = fx.err();
    assert_eq!(e.kind(), bad_offset("ofs_frames", 100_000));
    assert_eq!(e.offset(), 56);
}

#[test]
fn negative_offset() {
    let fx = Fx::with(|fx| fx.ofs_st = -4);
    assert_eq!(fx.err().kind(), bad_offset("ofs_st", -4));
}

#[test]
fn frames_run_past_end() {
    let mut fx = Fx::valid();
    fx.num_frames = 1_000_000;
    assert!(matches!(fx.err().kind(), ErrorKind::Truncated { .. }));
    // Huge count times huge stride does not overflow.
    fx.num_frames = i32::MAX;
    fx.framesize = i32::MAX;
    assert!(matches!(fx.err().kind(), ErrorKind::Truncated { .. }));
}

#[test]
fn triangle_vertex_index_out_of_range() {
    let fx = Fx::with(|fx| fx.tri[1] = 3);
    let e = fx.err();
    assert_error(&e, out_of_range("triangle index_xyz", 3, 3), OFS_TRIS + 2);
}

#[test]
fn triangle_negative_st_index() {
    let fx = Fx::with(|fx| fx.tri[5] = -1);
    let e = fx.err();
    assert_error(&e, out_of_range("triangle index_st", -1, 3), OFS_TRIS + 10);
}

#[test]
fn gl_command_without_terminator_is_set_aside() {
    let mut fx = Fx::valid();
    fx.glcmds.pop(); // drop the final 0
    fx.num_glcmds -= 1;
    let bytes = fx.build();
    let md2 = Md2::parse(&bytes).unwrap();
    let e = md2.gl_commands_error().unwrap();
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)));
    assert_eq!(e.offset(), u64::try_from(OFS_GLCMDS + 40).unwrap());
    assert_eq!(Md2::parse_strict(&bytes).unwrap_err(), e);
    assert_eq!(md2.gl_commands().count(), 0);
    assert!(md2.findings(Engine::Quake2).iter().any(|f| matches!(
        f.kind,
        FindingKind::GlCommandsInvalid {
            swapped_layout: false,
            ..
        }
    ) && f.severity == Severity::Hazard));
}

#[test]
fn gl_command_overruns_num_glcmds() {
    let fx = Fx::with(|fx| fx.glcmds[0] = -4); // a fan of 4 needs 12 words, 10 remain
    let e = fx.gl_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Truncated {
            needed: 48,
            available: 40
        }
    );
}

#[test]
fn gl_command_count_i32_min() {
    let fx = Fx::with(|fx| fx.glcmds[0] = i32::MIN);
    let md2_bytes = fx.build();
    let md2 = Md2::parse(&md2_bytes).unwrap();
    assert!(matches!(
        md2.gl_commands_error().unwrap().kind(),
        ErrorKind::Truncated { .. }
    ));
}

#[test]
fn gl_command_vertex_index_out_of_range() {
    let fx = Fx::with(|fx| fx.glcmds[9] = 3); // third vertex's index
    let e = fx.gl_err();
    assert_error(
        &e,
        out_of_range("GL command vertex index", 3, 3),
        OFS_GLCMDS + 36,
    );
}

#[test]
fn gl_vertices_written_index_first_are_recognised() {
    let mut fx = Fx::valid();
    // (index, s, t) per vertex, as the UFO:AI files in the corpus have it.
    let mut w = vec![-3];
    for (i, s, t) in [(0, 0.0f32, 0.0f32), (1, 1.0, 0.0), (2, 0.0, 1.0)] {
        w.push(i);
        w.push(i32::from_le_bytes(s.to_le_bytes()));
        w.push(i32::from_le_bytes(t.to_le_bytes()));
    }
    w.push(0);
    fx.glcmds = w;
    let bytes = fx.build();
    let md2 = Md2::parse(&bytes).unwrap();
    assert!(md2.gl_commands_look_swapped());
}

#[test]
fn no_gl_commands_at_all() {
    // UFO:AI style: num_glcmds = 0, ofs_glcmds = 0, frames end exactly at EOF.
    let mut fx = Fx::valid();
    fx.glcmds.clear();
    fx.num_glcmds = 0;
    fx.ofs_glcmds = 0;
    let bytes = fx.build();
    assert_eq!(bytes.len(), usize::try_from(OFS_GLCMDS).unwrap());
    let md2 = Md2::parse_strict(&bytes).unwrap();
    assert!(!md2.has_gl_commands());
    assert_eq!(md2.gl_mesh().indices.len(), 0);
    let found = md2.findings(Engine::Quake2);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, FindingKind::NoGlCommands { ofs_glcmds: 0 });
}

#[test]
fn zero_skins() {
    let mut fx = Fx::valid();
    fx.num_skins = 0;
    fx.ofs_skins = 0;
    let bytes = fx.build();
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(md2.skins().len(), 0);
}

#[test]
fn frame_name_with_odd_bytes() {
    let mut bytes = Fx::valid().build();
    let at = usize::try_from(OFS_FRAMES + 24).unwrap();
    patch_bytes(&mut bytes, at, b"E:\\MIJN\xffDOCU0001"); // 16 bytes, no NUL
    let md2 = Md2::parse(&bytes).unwrap();
    let name = md2.frame(0).unwrap().name();
    assert_eq!(name.len(), 16);
    assert_eq!(name.to_string(), "E:\\MIJN\\xffDOCU0001");
}

#[test]
fn too_many_vertices_is_refused_by_quake2() {
    // A finding, not a parse refusal: build 2049 vertices.
    let mut fx = Fx::valid();
    fx.num_xyz = 2049;
    fx.framesize = 40 + 4 * 2049;
    fx.glcmds.clear();
    fx.num_glcmds = 0;
    let mut bytes = fx.build();
    bytes.resize(bytes.len() + 4 * 2046, 0);
    let found = Md2::parse(&bytes).unwrap().findings(Engine::Quake2);
    let vertices = FindingKind::TooManyVertices { count: 2049 };
    assert!(common::has(&found, vertices, Severity::Refused));
}

#[test]
fn skin_taller_than_480() {
    let fx = Fx::with(|fx| fx.skinheight = 481);
    let found = fx.findings();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, FindingKind::SkinTooTall { height: 481 });
    assert_eq!(found[0].severity, Severity::Refused);
    assert!(found[0].to_string().contains("taller than 480"));
    // The one shape of every finding: engine, severity, message.
    assert_eq!(
        found[0].to_string(),
        "quake2: refused: skin height 481; Quake II refuses skins taller than 480"
    );
}

#[test]
fn non_positive_skin_size() {
    let fx = Fx::with(|fx| fx.skinwidth = 0);
    let found = fx.findings();
    assert!(found.iter().any(|f| f.kind
        == FindingKind::BadSkinSize {
            width: 0,
            height: 8
        }));
    // UVs use the documented divisor 1 instead of dividing by zero.
    let bytes = fx.build();
    let soft = Md2::parse(&bytes).unwrap().soft_mesh();
    assert!(soft.vertices.iter().all(|v| v.uv[0].is_finite()));
}

#[test]
fn too_many_skins() {
    let mut fx = Fx::valid();
    // 33 skins of 64 bytes appended after the GL commands.
    fx.num_skins = 33;
    fx.ofs_skins = OFS_GLCMDS + 4 * fx.glcmds.len() as i32;
    let mut bytes = fx.build();
    bytes.resize(bytes.len() + 33 * 64, 0);
    let found = Md2::parse(&bytes).unwrap().findings(Engine::Quake2);
    assert!(found.iter().any(
        |f| f.kind == FindingKind::TooManySkins { count: 33 } && f.severity == Severity::Hazard
    ));
}

#[test]
fn unterminated_skin_name() {
    let mut fx = Fx::valid();
    fx.skin_name = vec![b'a'; 64];
    let found = fx.findings();
    assert_eq!(found[0].kind, FindingKind::UnterminatedSkinName { skin: 0 });
}

#[test]
fn normal_index_past_table() {
    let fx = Fx::with(|fx| fx.lightnormal = 200);
    let found = fx.findings();
    assert_eq!(
        found[0].kind,
        FindingKind::NormalIndexOutOfRange {
            count: 1,
            frame: 0,
            vertex: 0,
            index: 200
        }
    );
    // Decoded with the documented fallback.
    let bytes = fx.build();
    let md2 = Md2::parse(&bytes).unwrap();
    assert_eq!(
        md2.frame(0).unwrap().normals().next(),
        Some([0.0, 0.0, 1.0])
    );
}

#[test]
fn gl_commands_disagree_with_triangles() {
    let mut fx = Fx::valid();
    // The fan's winding reversed: vertices 0, 2, 1.
    fx.glcmds.swap(6, 9);
    let found = fx.findings();
    assert_eq!(
        found[0].kind,
        FindingKind::GlMismatch {
            gl_triangles: 1,
            triangles: 1,
            unmatched: 1
        }
    );
    assert_eq!(found[0].severity, Severity::Hazard);
}

#[test]
fn block_past_ofs_end() {
    let fx = Fx::with(|fx| fx.ofs_end = Some(OFS_FRAMES));
    let found = fx.findings();
    assert!(found.iter().any(|f| matches!(
        f.kind,
        FindingKind::BlockPastEnd {
            block: "frames",
            ..
        }
    )));
}

#[test]
fn ofs_end_over_the_model_hunk() {
    let fx = Fx::with(|fx| fx.ofs_end = Some(0x20_0001));
    let found = fx.findings();
    assert!(found.iter().any(
        |f| f.kind == FindingKind::HunkOverflow { ofs_end: 0x20_0001 }
            && f.severity == Severity::Refused
    ));
}

#[test]
fn frame_padding() {
    let mut fx = Fx::valid();
    fx.framesize += 4;
    fx.ofs_glcmds += 4;
    let mut bytes = fx.build();
    // Insert the 4 padding bytes after the frame.
    let at = usize::try_from(OFS_GLCMDS).unwrap();
    bytes.splice(at..at, [0u8; 4]);
    let end = bytes.len() as i32;
    patch(&mut bytes, 64, end); // ofs_end
    let md2 = Md2::parse_strict(&bytes).unwrap();
    let found = md2.findings(Engine::Quake2);
    assert_eq!(
        found[0].kind,
        FindingKind::FramePadding {
            framesize: 56,
            natural: 52
        }
    );
}

#[test]
fn profile_names_round_trip() {
    for p in idmodel_md2::ENGINES {
        assert_eq!(Engine::from_name(p.name()), Some(*p));
    }
    assert_eq!(Engine::from_name("quake2"), Some(Engine::Quake2));
    // Quake III is an engine, but not one that loads MD2: it finds nothing.
    let quake3 = Engine::from_name("quake3").unwrap();
    assert!(!idmodel_md2::ENGINES.contains(&quake3));
    let fx = Fx::with(|fx| fx.skinheight = 481);
    let tall = fx.build();
    let md2 = Md2::parse(&tall).unwrap();
    assert!(!md2.findings(Engine::Quake2).is_empty());
    assert!(md2.findings(quake3).is_empty());
}

#[test]
fn animations_group_frame_names() {
    use idmodel_md2::frame_name_stem;
    assert_eq!(frame_name_stem(b"stand01"), b"stand");
    assert_eq!(frame_name_stem(b"stand_1"), b"stand");
    assert_eq!(frame_name_stem(b"FRAME 000......"), b"FRAME 000......");
    assert_eq!(frame_name_stem(b"123"), b"");
    assert_eq!(frame_name_stem(b"_1"), b"_");
}

#[test]
fn degenerate_triangle_rotations_match() {
    // Regression: the GL/list comparison once canonicalised (1,0,0) and (0,1,0)
    // differently although they are rotations of the same triangle.
    let mut fx = Fx::valid();
    fx.tri = [1, 0, 0, 0, 1, 2];
    fx.glcmds[3] = 0; // fan vertices 0, 1, 0
    fx.glcmds[6] = 1;
    fx.glcmds[9] = 0;
    assert!(fx.findings().is_empty(), "{:?}", fx.findings());
}
