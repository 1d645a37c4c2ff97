//! One fixture per engine finding, checked under each profile.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_mdl::{
    ENGINES, Engine, Finding, FindingKind, Flags, FrameData, GroupKind, Mdl, Model, PoseData,
    Severity, SkinData, TexCoord, Tri,
};

use Engine::{GlQuake as Gl, QuakeSpasm as Qs, WinQuake as Sw};

/// A closure telling whether a finding's kind matches the pattern, for [`severities`].
/// `is!(Variant, field: pattern, …)` matches exactly those fields; `is!(Variant, .., …)` the
/// named ones and any others.
macro_rules! is {
    ($v:ident, .. $(, $f:ident: $p:pat)*) => {
        |k: &FindingKind| matches!(k, FindingKind::$v { $($f: $p,)* .. })
    };
    ($v:ident $(, $f:ident: $p:pat)*) => {
        |k: &FindingKind| matches!(k, FindingKind::$v { $($f: $p),* })
    };
}

fn findings(model: &Model, profile: Engine) -> Vec<Finding> {
    let bytes = model.write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    let v = m.findings(profile);
    // Every finding has a message naming the engine, then the severity.
    for f in &v {
        let text = f.to_string();
        assert_eq!(f.engine, profile);
        assert!(text.starts_with(&format!("{}: ", profile.name())), "{text}");
        assert!(
            text.starts_with(&format!("{}: {}: ", profile.name(), f.severity)),
            "{text}"
        );
    }
    v
}

/// The severities of the findings that match `pred`, per profile (Sw, Gl, Qs).
fn severities(model: &Model, pred: impl Fn(&FindingKind) -> bool) -> [Option<Severity>; 3] {
    [Sw, Gl, Qs].map(|p| {
        let found: Vec<_> = findings(model, p)
            .into_iter()
            .filter(|f| pred(&f.kind))
            .collect();
        assert!(found.len() <= 1, "{p}: {found:?}");
        found.first().map(|f| f.severity)
    })
}

/// A model with `n` vertices, `t` triangles and `frames` single frames.
fn sized(n: usize, t: usize, frames: usize) -> Model {
    let mut m = Model::example();
    m.texcoords = (0..n)
        .map(|i| TexCoord {
            onseam: 0,
            s: (i % 4) as i32,
            t: 0,
        })
        .collect();
    m.triangles = (0..t)
        .map(|i| Tri {
            faces_front: 1,
            vertices: [0, (i % n) as u32, ((i + 1) % n) as u32],
        })
        .collect();
    let pose = PoseData {
        vertices: vec![Default::default(); n],
        ..PoseData::default()
    };
    m.frames = vec![FrameData::Single(pose); frames];
    for f in &mut m.frames {
        if let FrameData::Single(p) = f {
            p.name = PoseData::name_field("f");
        }
    }
    m
}

const R: Option<Severity> = Some(Severity::Refused);
const H: Option<Severity> = Some(Severity::Hazard);
const W: Option<Severity> = Some(Severity::Warning);

#[test]
fn clean_model_has_no_findings() {
    for p in ENGINES {
        assert!(findings(&Model::example(), *p).is_empty(), "{p}");
        assert!(
            findings(&Model::example_groups(), *p)
                .iter()
                .all(|f| matches!(f.kind, FindingKind::HoleyIgnored))
        );
    }
}

#[test]
fn profile_names_round_trip() {
    for p in ENGINES {
        assert_eq!(Engine::from_name(p.name()), Some(*p));
    }
    // Quake II is an engine, but not one that loads MDL: it finds nothing.
    let quake2 = Engine::from_name("quake2").unwrap();
    assert!(!ENGINES.contains(&quake2));
    assert!(findings(&sized(1025, 1, 1), quake2).is_empty());
    assert_eq!(ENGINES.len(), 3);
    assert!(Engine::for_format(idmodel_core::detect::Format::Mdl).eq(ENGINES.iter().copied()));
}

#[test]
fn too_many_vertices_for_glquake() {
    let m = sized(1025, 1, 1);
    assert_eq!(
        severities(&m, |k| matches!(k, FindingKind::TooManyVertices { .. })),
        [None, R, None]
    );
    let m = sized(2001, 1, 1);
    assert_eq!(
        severities(&m, |k| matches!(k, FindingKind::TooManyVertices { .. })),
        [R, R, R]
    );
    let m = sized(1024, 1, 1);
    assert_eq!(
        severities(&m, |k| matches!(k, FindingKind::TooManyVertices { .. })),
        [None, None, None]
    );
}

#[test]
fn too_many_triangles() {
    let is = |k: &FindingKind| matches!(k, FindingKind::TooManyTriangles { .. });
    assert_eq!(severities(&sized(3, 2048, 1), is), [None, None, None]);
    assert_eq!(severities(&sized(3, 2049, 1), is), [None, H, None]);
    assert_eq!(severities(&sized(3, 4097, 1), is), [None, H, R]);
}

#[test]
fn glquake_command_buffer_risk_from_1171_triangles() {
    let is = |k: &FindingKind| matches!(k, FindingKind::CommandBufferRisk { .. });
    assert_eq!(severities(&sized(3, 1170, 1), is), [None, None, None]);
    assert_eq!(severities(&sized(3, 1171, 1), is), [None, H, None]);
}

#[test]
fn too_many_poses() {
    let is = |k: &FindingKind| matches!(k, FindingKind::TooManyPoses { .. });
    assert_eq!(severities(&sized(3, 1, 256), is), [None, None, None]);
    assert_eq!(severities(&sized(3, 1, 257), is), [None, H, None]);
    // Group members count as poses.
    let mut m = sized(3, 1, 1);
    let pose = m.frames[0].poses()[0].clone();
    m.frames.push(FrameData::Group {
        bbox_min: Default::default(),
        bbox_max: Default::default(),
        intervals: vec![0.1; 1024],
        poses: vec![pose; 1024],
    });
    assert_eq!(severities(&m, is), [None, H, R]);
}

#[test]
fn too_many_skins() {
    let mut m = Model::example();
    m.skins = vec![SkinData::Single(vec![0; 16]); 33];
    let is = |k: &FindingKind| matches!(k, FindingKind::TooManySkins { .. });
    assert_eq!(severities(&m, is), [None, R, R]);
    m.skins.pop();
    assert_eq!(severities(&m, is), [None, None, None]);
}

#[test]
fn skin_taller_than_480() {
    let mut m = Model::example();
    m.skin_height = 481;
    m.skins = vec![SkinData::Single(vec![0; 4 * 481])];
    let is = |k: &FindingKind| matches!(k, FindingKind::SkinTooTall { height: 481 });
    assert_eq!(severities(&m, is), [R, R, W]);
}

#[test]
fn skin_width_not_multiple_of_4() {
    let mut m = Model::example();
    m.skin_width = 6;
    m.skins = vec![SkinData::Single(vec![0; 24])];
    let is = |k: &FindingKind| matches!(k, FindingKind::SkinWidthNotMultipleOf4 { width: 6 });
    assert_eq!(severities(&m, is), [R, None, None]);
}

#[test]
fn zero_skin_interval() {
    let mut m = Model::example();
    m.skins = vec![SkinData::Group {
        intervals: vec![0.1, 0.0],
        images: vec![vec![0; 16]; 2],
    }];
    let is = |k: &FindingKind| matches!(k, FindingKind::BadInterval { group: GroupKind::Skin, entry: 0, index: 1, value } if *value == 0.0);
    assert_eq!(severities(&m, is), [R, None, None]);
}

#[test]
fn negative_frame_interval() {
    let mut m = Model::example_groups();
    if let FrameData::Group { intervals, .. } = &mut m.frames[1] {
        intervals[0] = -0.1;
    }
    let is = is!(BadInterval, .., group: GroupKind::Frame, entry: 1, index: 0);
    assert_eq!(severities(&m, is), [R, H, H]);
}

#[test]
fn nan_interval_is_a_software_hazard() {
    let mut m = Model::example_groups();
    if let FrameData::Group { intervals, .. } = &mut m.frames[1] {
        intervals[2] = f32::NAN;
    }
    let is = |k: &FindingKind| matches!(k, FindingKind::BadInterval { index: 2, .. });
    // GL engines only read the first interval.
    assert_eq!(severities(&m, is), [H, None, None]);
}

#[test]
fn decreasing_intervals_warn_for_software() {
    let mut m = Model::example_groups();
    if let FrameData::Group { intervals, .. } = &mut m.frames[1] {
        *intervals = vec![0.3, 0.2, 0.1];
    }
    let is = is!(IntervalsNotIncreasing, group: GroupKind::Frame, entry: 1);
    assert_eq!(severities(&m, is), [W, None, None]);
}

#[test]
fn normal_index_past_the_table() {
    let mut m = Model::example();
    if let FrameData::Single(p) = &mut m.frames[0] {
        p.vertices[1].light_normal_index = 162;
        p.vertices[2].light_normal_index = 255;
    }
    let is = is!(NormalIndexOutOfTable, index: 162, pose: 0, vertex: 1, count: 2);
    assert_eq!(severities(&m, is), [H, None, H]);
}

#[test]
fn onseam_one_is_a_software_clip_hazard() {
    let mut m = Model::example();
    m.texcoords[1].onseam = 1;
    let is = is!(OddOnseam, vertex: 1, value: 1, count: 1);
    assert_eq!(severities(&m, is), [H, None, None]);
    m.texcoords[1].onseam = 0x20;
    assert_eq!(severities(&m, is), [None, None, None]);
}

#[test]
fn texcoord_outside_skin() {
    let mut m = Model::example();
    m.texcoords[2].t = 5; // skin is 4 high
    let is = is!(TexcoordOutsideSkin, vertex: 2, s: 0, t: 5, count: 1);
    assert_eq!(severities(&m, is), [H, W, W]);
    m.texcoords[2].t = 4; // the far edge is fine
    assert_eq!(severities(&m, is), [None, None, None]);
}

#[test]
fn unterminated_frame_name() {
    let mut m = Model::example();
    if let FrameData::Single(p) = &mut m.frames[0] {
        p.name = *b"sixteen_chars_xx";
    }
    let is = |k: &FindingKind| matches!(k, FindingKind::UnterminatedFrameName { pose: 0 });
    assert_eq!(severities(&m, is), [H, H, W]);
}

#[test]
fn unknown_synctype() {
    let mut m = Model::example();
    m.sync_type = 2;
    let is = |k: &FindingKind| matches!(k, FindingKind::UnknownSyncType { value: 2 });
    assert_eq!(severities(&m, is), [W, W, W]);
}

#[test]
fn unknown_flags_and_holey() {
    let mut m = Model::example();
    m.flags = Flags::from_bits(0x100 | 0x4000);
    let unknown = |k: &FindingKind| matches!(k, FindingKind::UnknownFlags { bits: 0x100 });
    assert_eq!(severities(&m, unknown), [W, W, W]);
    let holey = |k: &FindingKind| matches!(k, FindingKind::HoleyIgnored);
    assert_eq!(severities(&m, holey), [W, W, None]);
    let text = findings(&m, Qs)[0].to_string();
    assert!(text.contains("dropped"), "{text}");
}

#[test]
fn long_skin_group_on_gl() {
    let mut m = Model::example();
    m.skins = vec![SkinData::Group {
        intervals: vec![0.1, 0.2, 0.3, 0.4, 0.5],
        images: vec![vec![0; 16]; 5],
    }];
    let is = is!(SkinGroupTooLong, entry: 0, images: 5);
    assert_eq!(severities(&m, is), [None, W, W]);
}

#[test]
fn trailing_data() {
    let mut m = Model::example();
    m.trailing = b"QMEX....".to_vec();
    let is = |k: &FindingKind| matches!(k, FindingKind::TrailingData { len: 8 });
    assert_eq!(severities(&m, is), [W, W, W]);
}

#[test]
fn messages_read_like_a_modder_would_say_it() {
    let m = sized(1025, 1, 1);
    let f = findings(&m, Gl);
    assert_eq!(
        f[0].to_string(),
        "glquake: refused: 1025 vertices, more than the 1024 it allows (MAXALIASVERTS); it stops with an error"
    );
}
