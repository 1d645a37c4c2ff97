//! Hand-made fixtures: every refusal of `Mdl::parse`, and the accessors on valid files.
// Test helpers and fixtures may index, unwrap and cast: a panic is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use common::fixture::{self, LeBuffer, Spec};
use common::patch;
use idmodel_mdl::{ErrorKind, Mdl};

fn refuse(bytes: &[u8]) -> (ErrorKind, u64) {
    let e = Mdl::parse(bytes).expect_err("must be refused");
    (e.kind(), e.offset())
}

/// The refusal of the minimal fixture cut to its first `len` bytes.
fn cut(len: usize) -> (ErrorKind, u64) {
    refuse(&fixture::minimal()[..len])
}

/// A truncation that needed `needed` bytes where `available` were left.
fn truncated(needed: u64, available: u64) -> ErrorKind {
    ErrorKind::Truncated { needed, available }
}

fn with(f: impl FnOnce(&mut Spec)) -> Vec<u8> {
    let mut s = Spec::default();
    f(&mut s);
    fixture::minimal_with(&s)
}

#[test]
fn minimal_file_parses() {
    let bytes = fixture::minimal();
    assert_eq!(bytes.len(), 188);
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skin_count(), 1);
    assert_eq!((m.skin_width(), m.skin_height()), (4, 2));
    assert_eq!(m.vertex_count(), 3);
    assert_eq!(m.triangles().len(), 1);
    assert_eq!(m.frame_count(), 1);
    assert_eq!(m.pose_count(), 1);
    assert_eq!(m.frames_offset(), 148);
    assert_eq!(m.trailing_offset(), 188);
    assert!(m.trailing().is_empty());
    let skin = m.skin(0).unwrap();
    assert!(!skin.is_group());
    assert_eq!(skin.offset(), 84);
    assert_eq!(skin.image(0).unwrap(), &[7u8; 8]);
    let pose = m.pose(0).unwrap();
    assert_eq!(pose.name(), "frame1");
    assert_eq!(pose.offset(), 152);
    assert_eq!(
        pose.positions().collect::<Vec<_>>(),
        vec![[0.0, 1.0, 2.0], [1.0, 1.0, 2.0], [2.0, 1.0, 2.0]]
    );
    assert_eq!(pose.bbox_max(), [8.0, 8.0, 8.0]);
    assert!(m.pose(1).is_none());
    assert!(m.frame(1).is_none());
}

#[test]
fn empty_input() {
    assert_eq!(refuse(&[]).0, truncated(4, 0));
}

#[test]
fn wrong_magic() {
    let bytes = with(|s| s.magic = *b"ABCD");
    assert_eq!(refuse(&bytes), (ErrorKind::BadMagic(*b"ABCD"), 0));
}

#[test]
fn half_life_model_is_named() {
    let bytes = with(|s| s.magic = *b"IDST");
    let e = Mdl::parse(&bytes).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::WrongFormat { .. }));
    assert!(e.to_string().contains("Half-Life"), "{e}");
}

#[test]
fn gamestudio_and_md2_are_named() {
    for (magic, word) in [
        (*b"MDL5", "GameStudio"),
        (*b"IDP2", "MD2"),
        (*b"IDSP", "sprite"),
    ] {
        let e = Mdl::parse(&with(|s| s.magic = magic)).unwrap_err();
        assert!(e.to_string().contains(word), "{e}");
    }
}

#[test]
fn wrong_version() {
    let bytes = with(|s| s.version = 7);
    assert_eq!(refuse(&bytes), (ErrorKind::UnsupportedVersion(7), 4));
}

#[test]
fn header_truncated() {
    let bytes = fixture::minimal();
    assert!(matches!(
        refuse(&bytes[..83]).0,
        ErrorKind::Truncated { needed: 84, .. }
    ));
}

#[test]
fn zero_and_negative_counts() {
    type Case = (fn(&mut Spec), &'static str, i64, u64);
    let cases: [Case; 9] = [
        (|s| s.numskins = 0, "numskins", 0, 48),
        (|s| s.skinwidth = -4, "skinwidth", -4, 52),
        (|s| s.skinheight = 0, "skinheight", 0, 56),
        (|s| s.numverts = 0, "numverts", 0, 60),
        (|s| s.numverts = -1, "numverts", -1, 60),
        (|s| s.numtris = 0, "numtris", 0, 64),
        (|s| s.numtris = i32::MIN, "numtris", i32::MIN as i64, 64),
        (|s| s.numframes = 0, "numframes", 0, 68),
        (|s| s.numframes = -3, "numframes", -3, 68),
    ];
    for (f, what, value, at) in cases {
        let bytes = with(f);
        assert_eq!(
            refuse(&bytes),
            (ErrorKind::BadCount { what, value }, at),
            "{what}"
        );
    }
}

#[test]
fn negative_frame_count() {
    let bytes = with(|s| s.numframes = -1);
    assert_eq!(
        refuse(&bytes),
        (
            ErrorKind::BadCount {
                what: "numframes",
                value: -1
            },
            68
        )
    );
}

#[test]
fn huge_skin_size_does_not_overflow() {
    let mut b = LeBuffer::new();
    fixture::header(
        &mut b,
        &Spec {
            skinwidth: i32::MAX,
            skinheight: i32::MAX,
            ..Spec::default()
        },
    );
    fixture::single_skin(&mut b, 4, 2);
    let bytes = b.into_vec();
    assert!(matches!(refuse(&bytes), (ErrorKind::Truncated { .. }, 88)));
}

#[test]
fn skin_past_end() {
    let (kind, at) = cut(90);
    assert_eq!(at, 88);
    assert_eq!(kind, truncated(8, 2));
}

#[test]
fn more_skins_than_bytes() {
    let mut bytes = fixture::minimal();
    patch(&mut bytes, 48, i32::MAX); // numskins
    // The walk ends where the bytes do, not after 2^31 iterations: the stverts and
    // triangles are read as skin entries until one runs past the end or is invalid.
    let (kind, at) = refuse(&bytes);
    assert!(at < bytes.len() as u64, "{kind:?} at {at}");
}

#[test]
fn stverts_past_end() {
    assert_eq!(cut(100), (truncated(36, 4), 96));
}

#[test]
fn triangles_past_end() {
    assert!(matches!(
        cut(140),
        (ErrorKind::Truncated { needed: 16, .. }, 132)
    ));
}

#[test]
fn frame_past_end() {
    assert_eq!(cut(187), (truncated(36, 35), 152));
    assert_eq!(cut(150), (truncated(4, 2), 148));
}

#[test]
fn more_frames_than_bytes() {
    let mut bytes = fixture::minimal();
    patch(&mut bytes, 68, 1_000_000i32); // numframes
    assert!(matches!(refuse(&bytes), (ErrorKind::Truncated { .. }, 188)));
}

#[test]
fn triangle_vertex_index_past_numverts() {
    let mut bytes = fixture::minimal();
    patch(&mut bytes, 144, 3i32); // vertindex[2] = numverts
    let (kind, at) = refuse(&bytes);
    assert_eq!(at, 144);
    assert_eq!(
        kind,
        ErrorKind::IndexOutOfRange {
            what: "triangle vertex index",
            index: 3,
            len: 3
        }
    );
}

#[test]
fn negative_triangle_vertex_index() {
    let mut bytes = fixture::minimal();
    patch(&mut bytes, 136, -1i32); // vertindex[0]
    assert_eq!(
        refuse(&bytes),
        (
            ErrorKind::IndexOutOfRange {
                what: "triangle vertex index",
                index: -1,
                len: 3
            },
            136
        )
    );
}

fn group_file(group_count: i32, intervals: &[f32], poses: usize, trailing: &[u8]) -> Vec<u8> {
    let mut b = LeBuffer::new();
    let s = Spec {
        numframes: 2,
        ..Spec::default()
    };
    fixture::header(&mut b, &s);
    fixture::single_skin(&mut b, 4, 2);
    fixture::stverts(&mut b, 3);
    fixture::triangle(&mut b, 1, [0, 1, 2]);
    fixture::single_frame(&mut b, "stand1", 3);
    b.i32(1); // frame type: ALIAS_GROUP
    b.i32(group_count); // daliasgroup_t numframes
    b.bytes(&[0, 0, 0, 0]); // bboxmin
    b.bytes(&[9, 9, 9, 0]); // bboxmax
    for &i in intervals {
        b.f32(i); // interval
    }
    for k in 0..poses {
        fixture::pose(&mut b, &format!("run{}", k + 1), 3, 0);
    }
    b.bytes(trailing);
    b.into_vec()
}

#[test]
fn frame_group_parses() {
    let bytes = group_file(3, &[0.1, 0.2, 0.3], 3, b"QMEX1234");
    let m = Mdl::parse(&bytes).unwrap();
    assert!(m.has_frame_groups());
    assert_eq!(m.frame_count(), 2);
    assert_eq!(m.pose_count(), 4);
    assert_eq!(m.trailing(), b"QMEX1234");
    let g = m.frame(1).unwrap();
    assert!(g.is_group());
    assert_eq!(g.first_pose(), 1);
    assert_eq!(g.intervals().collect::<Vec<_>>(), vec![0.1, 0.2, 0.3]);
    assert_eq!(g.bbox_max().v, [9, 9, 9]);
    assert_eq!(g.name(), "run1");
    let names: Vec<String> = m.poses().map(|p| p.name().to_string()).collect();
    assert_eq!(names, ["stand1", "run1", "run2", "run3"]);
    assert_eq!(m.poses().len(), 4);
    assert_eq!(m.pose(3).unwrap().name(), "run3");
    assert!(m.pose(4).is_none());
    let anims: Vec<_> = m
        .animations()
        .map(|a| (a.name.as_bytes().to_vec(), a.frames.start, a.frames.len()))
        .collect();
    assert_eq!(
        anims,
        vec![(b"stand".to_vec(), 0, 1), (b"run".to_vec(), 1, 1)]
    );
}

#[test]
fn zero_frame_group_count() {
    let bytes = group_file(0, &[], 0, &[]);
    let at = 188 + 4;
    assert_eq!(
        refuse(&bytes),
        (
            ErrorKind::BadCount {
                what: "frame group numframes",
                value: 0
            },
            at
        )
    );
}

#[test]
fn negative_frame_group_count() {
    let bytes = group_file(-2, &[], 0, &[]);
    assert_eq!(
        refuse(&bytes),
        (
            ErrorKind::BadCount {
                what: "frame group numframes",
                value: -2
            },
            192
        )
    );
}

#[test]
fn frame_group_past_end() {
    let bytes = group_file(3, &[0.1, 0.2, 0.3], 2, &[]);
    assert!(matches!(refuse(&bytes).0, ErrorKind::Truncated { .. }));
}

fn skin_group_file(count: i32, intervals: &[f32], images: usize) -> Vec<u8> {
    let mut b = LeBuffer::new();
    fixture::header(&mut b, &Spec::default());
    b.i32(1); // skin type: ALIAS_SKIN_GROUP
    b.i32(count); // daliasskingroup_t numskins
    for &i in intervals {
        b.f32(i); // interval
    }
    for k in 0..images {
        b.fill(8, k as u8); // image k
    }
    fixture::stverts(&mut b, 3);
    fixture::triangle(&mut b, 1, [0, 1, 2]);
    fixture::single_frame(&mut b, "base", 3);
    b.into_vec()
}

#[test]
fn skin_group_parses() {
    let bytes = skin_group_file(3, &[0.5, 1.0, 1.5], 3);
    let m = Mdl::parse(&bytes).unwrap();
    assert!(m.has_skin_groups());
    let s = m.skin(0).unwrap();
    assert!(s.is_group());
    assert_eq!(s.image_count(), 3);
    assert_eq!(s.intervals().collect::<Vec<_>>(), vec![0.5, 1.0, 1.5]);
    assert_eq!(s.image(2).unwrap(), &[2u8; 8]);
    assert_eq!(s.images().len(), 3);
}

#[test]
fn zero_skin_group_count() {
    assert_eq!(
        refuse(&skin_group_file(0, &[], 0)),
        (
            ErrorKind::BadCount {
                what: "skin group numskins",
                value: 0
            },
            88
        )
    );
}

#[test]
fn negative_skin_group_count() {
    assert_eq!(
        refuse(&skin_group_file(-1, &[], 0)),
        (
            ErrorKind::BadCount {
                what: "skin group numskins",
                value: -1
            },
            88
        )
    );
}

#[test]
fn skin_group_past_end() {
    let bytes = skin_group_file(1_000_000, &[0.1], 1);
    assert!(matches!(refuse(&bytes), (ErrorKind::Truncated { .. }, 92)));
}

#[test]
fn any_nonzero_type_word_is_a_group() {
    let mut bytes = skin_group_file(1, &[0.1], 1);
    patch(&mut bytes, 84, -7i32); // skin type word
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skin(0).unwrap().type_word(), -7);
    assert!(m.skin(0).unwrap().is_group());
}

#[test]
fn trailing_data_is_kept() {
    let mut bytes = fixture::minimal();
    bytes.extend_from_slice(b"QMEX\x01\x02");
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.trailing(), b"QMEX\x01\x02");
}

#[test]
fn unknown_flags_and_synctype_are_kept() {
    let bytes = with(|s| {
        s.flags = 0x7fff_0001;
        s.synctype = 9;
    });
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.flags().bits(), 0x7fff_0001);
    assert_eq!(m.flags().unknown_bits(), 0x7fff_0000);
    assert_eq!(m.sync_type(), 9);
    assert!(!m.random_sync());
}

#[test]
fn out_of_table_normal_decodes_to_up() {
    let mut bytes = fixture::minimal();
    patch(&mut bytes, 176 + 3, 200u8); // lightnormalindex of vertex 0
    let m = Mdl::parse(&bytes).unwrap();
    let p = m.pose(0).unwrap();
    assert_eq!(p.normals().next().unwrap(), [0.0, 0.0, 1.0]);
    assert_eq!(p.bad_normal_count(), 1);
}

#[test]
fn random_access_without_groups_is_consistent() {
    let bytes = with(|s| s.numframes = 5);
    let m = Mdl::parse(&bytes).unwrap();
    for (i, p) in m.poses().enumerate() {
        let q = m.pose(i).unwrap();
        assert_eq!(p.offset(), q.offset());
        assert_eq!(q.name().to_string(), format!("frame{}", i + 1));
        assert_eq!(m.frame(i).unwrap().first_pose(), i);
    }
    assert!(m.pose(5).is_none());
}

#[test]
fn every_prefix_is_refused_without_panic() {
    let bytes = group_file(3, &[0.1, 0.2, 0.3], 3, &[]);
    for n in 0..bytes.len() {
        assert!(Mdl::parse(&bytes[..n]).is_err(), "prefix {n}");
    }
    assert!(Mdl::parse(&bytes).is_ok());
}
