//! Decoding: palette, RGBA, fullbrights, seam rules and UVs, welded mesh, animation
//! timing, flags, frame names, quantisation.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_mdl::raw::StVert;
use idmodel_mdl::{
    AnimRule, Flags, FrameData, Mdl, Model, Palette, QUAKE_PALETTE, Quantizer, SeamRule, SkinData,
    SkinOptions, TexCoord, Trail, Tri, WeldedVertex, fullbright_mask, gl_skin_slot_image,
    has_fullbrights, skin_to_rgba, split_frame_name,
};
use zerocopy::little_endian::I32;

/// A small MD5 (RFC 1321) for checking the embedded palette against its known digest.
fn md5(data: &[u8]) -> [u8; 16] {
    let s: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32)
        .collect();
    let (mut a0, mut b0, mut c0, mut d0) =
        (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f2 = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f2.rotate_left(s[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    let mut out = [0u8; 16];
    for (i, v) in [a0, b0, c0, d0].iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn md5_helper_is_right() {
    assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(
        hex(&md5(b"The quick brown fox jumps over the lazy dog")),
        "9e107d9d372bb6826bd81d3542a419d6"
    );
}

#[test]
fn palette_matches_spec_md5() {
    let flat: Vec<u8> = QUAKE_PALETTE.iter().flatten().copied().collect();
    assert_eq!(flat.len(), 768);
    assert_eq!(hex(&md5(&flat)), "79bc149d4f2fb0bd68cd8400a3fd87d4");
    // Spot values of the Quake palette (docs/formats.md §5.2).
    assert_eq!(QUAKE_PALETTE[0], [0, 0, 0]);
    assert_eq!(QUAKE_PALETTE[15], [235, 235, 235]);
    assert_eq!(QUAKE_PALETTE[208], [0, 0, 255]);
    assert_eq!(QUAKE_PALETTE[224], [43, 0, 0]);
    assert_eq!(QUAKE_PALETTE[244], [127, 191, 255]);
    assert_eq!(QUAKE_PALETTE[255], [159, 91, 83]);
    // And byte for byte against the palette lump kept beside the corpus
    // (`$IDMODEL_CORPUS/../spec`), when the corpus is given.
    let Some(corpus) = common::corpus_dir("palette_matches_spec_md5") else {
        return;
    };
    let lmp = corpus.join("../spec/quake-palette.lmp");
    if let Ok(bytes) = std::fs::read(&lmp) {
        assert_eq!(bytes, flat);
        assert_eq!(Palette::from_lmp(&bytes).unwrap(), Palette::QUAKE);
    }
}

#[test]
fn custom_palette_and_wrong_lengths() {
    let mut lmp = vec![0u8; 768];
    lmp[3..6].copy_from_slice(&[1, 2, 3]);
    let p = Palette::from_lmp(&lmp).unwrap();
    assert_eq!(p.rgb(1), [1, 2, 3]);
    assert!(Palette::from_lmp(&lmp[..700]).is_err());
    let mut long = lmp.clone();
    long.push(0);
    assert!(Palette::from_lmp(&long).is_err());
    let mut out = [0u8; 4];
    let opts = SkinOptions {
        palette: p,
        transparent_255: false,
    };
    skin_to_rgba(&[1], &opts, &mut out).unwrap();
    assert_eq!(out, [1, 2, 3, 255]);
}

#[test]
fn rgba_and_transparency() {
    let image = [0u8, 254, 255];
    let mut out = [9u8; 12];
    let opaque = SkinOptions::default();
    assert_eq!(skin_to_rgba(&image, &opaque, &mut out).unwrap(), 12);
    assert_eq!(out, [0, 0, 0, 255, 255, 255, 255, 255, 159, 91, 83, 255]);
    let holey = SkinOptions {
        transparent_255: true,
        ..SkinOptions::default()
    };
    skin_to_rgba(&image, &holey, &mut out).unwrap();
    assert_eq!(&out[8..], &[159, 91, 83, 0]);
    let mut short = [0u8; 11];
    assert!(skin_to_rgba(&image, &opaque, &mut short).is_err());
}

#[test]
fn fullbright_mask_marks_224_to_255() {
    let image = [0u8, 223, 224, 255];
    let mut mask = [7u8; 4];
    assert_eq!(fullbright_mask(&image, &mut mask), 4);
    assert_eq!(mask, [0, 0, 255, 255]);
    assert!(has_fullbrights(&image));
    assert!(!has_fullbrights(&image[..2]));
}

fn st(onseam: i32, s: i32, t: i32) -> StVert {
    StVert {
        onseam: I32::new(onseam),
        s: I32::new(s),
        t: I32::new(t),
    }
}

#[test]
fn seam_rules_differ_on_onseam_one() {
    let plain = st(0x20, 3, 5);
    let odd = st(1, 3, 5);
    // Front-facing: never shifted.
    assert_eq!(SeamRule::Gl.texel(&plain, true, 12), [3, 5]);
    // Back-facing seam vertex: shifted by width / 2 (integer division).
    assert_eq!(SeamRule::Gl.texel(&plain, false, 13), [9, 5]);
    assert_eq!(SeamRule::Software.texel(&plain, false, 13), [9, 5]);
    // onseam = 1: GL/QS shift, software does not (only bit 0x20 counts).
    assert_eq!(SeamRule::Gl.texel(&odd, false, 12), [9, 5]);
    assert_eq!(SeamRule::Software.texel(&odd, false, 12), [3, 5]);
    // Half texel for GL, none for software; v = 0 is the top row.
    assert_eq!(SeamRule::Gl.uv([3, 5], 8, 10), [3.5 / 8.0, 5.5 / 10.0]);
    assert_eq!(SeamRule::Software.uv([3, 5], 8, 10), [3.0 / 8.0, 0.5]);
}

fn seam_model() -> Model {
    let mut m = Model::example_groups();
    m.texcoords[0].onseam = 1; // GL seam, not software
    m
}

#[test]
fn welded_mesh_duplicates_seam_vertices_for_back_faces() {
    let bytes = Model::example_groups().write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    let mesh = m.welded_mesh(SeamRule::Gl);
    // Triangles [0,1,2] front and [0,2,3] back; vertices 0 and 3 are on the seam.
    assert_eq!(mesh.indices, vec![0, 1, 2, 3, 2, 4]);
    let src: Vec<(u32, bool)> = mesh
        .vertices
        .iter()
        .map(|v| (v.source, v.back_side))
        .collect();
    assert_eq!(
        src,
        vec![(0, false), (1, false), (2, false), (0, true), (3, true)]
    );
    assert_eq!(mesh.vertices[3].texel, [4, 0]); // s 0 + 8 / 2
    assert_eq!(mesh.vertices[3].uv, [4.5 / 8.0, 0.5 / 4.0]);
    let pose = m.pose(0).unwrap();
    let pos = mesh.positions(&pose);
    assert_eq!(pos[3], pose.position(0).unwrap());
    assert_eq!(mesh.normals(&pose).len(), 5);
}

#[test]
fn welded_mesh_follows_the_chosen_rule() {
    let bytes = seam_model().write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.welded_mesh(SeamRule::Gl).vertices.len(), 5);
    // Software: vertex 0 (onseam 1) is not a seam vertex, so it is shared.
    assert_eq!(m.welded_mesh(SeamRule::Software).vertices.len(), 4);
}

#[test]
fn weld_into_reports_small_buffers() {
    let bytes = Model::example_groups().write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    let sizes = m.weld_sizes();
    assert_eq!(
        (sizes.max_vertices, sizes.indices, sizes.scratch),
        (6, 6, 14)
    );
    let mut v = vec![WeldedVertex::default(); 4];
    let mut i = vec![0u32; 6];
    let mut s = vec![0u32; 8];
    assert!(m.weld_into(SeamRule::Gl, &mut v, &mut i, &mut s).is_err());
    let mut v = vec![WeldedVertex::default(); 5]; // the exact count is enough
    assert_eq!(
        m.weld_into(SeamRule::Gl, &mut v, &mut i, &mut s).unwrap(),
        5
    );
    assert!(
        m.weld_into(SeamRule::Gl, &mut v, &mut i[..5], &mut s)
            .is_err()
    );
    assert!(
        m.weld_into(SeamRule::Gl, &mut v, &mut i, &mut s[..7])
            .is_err()
    );
}

#[test]
fn frame_group_timing_software_and_gl() {
    let bytes = Model::example_groups().write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(
        m.frame(0).unwrap().pose_at(123.0, 0.0, AnimRule::Software),
        Some(0)
    );
    let g = m.frame(1).unwrap(); // intervals 0.1, 0.2, 0.3 (cumulative end times)
    let sw = |t: f64, sync: f32| g.pose_at(t, sync, AnimRule::Software);
    assert_eq!(sw(0.0, 0.0), Some(0));
    assert_eq!(sw(0.05, 0.0), Some(0));
    assert_eq!(sw(0.15, 0.0), Some(1));
    assert_eq!(sw(0.25, 0.0), Some(2));
    assert_eq!(sw(0.35, 0.0), Some(0)); // wrapped: cycle length 0.3
    assert_eq!(sw(0.05, 0.1), Some(1)); // sync offset added
    let gl = |t: f64| g.pose_at(t, 0.9, AnimRule::Gl);
    // Every pose lasts the first interval (0.1 s), syncbase ignored.
    assert_eq!(gl(0.05), Some(0));
    assert_eq!(gl(0.15), Some(1));
    assert_eq!(gl(0.25), Some(2));
    assert_eq!(gl(0.35), Some(0));
    assert_eq!(gl(-0.15), None); // (int)(-1.5) % 3 = -1: the engine would index a negative pose
}

#[test]
fn zero_first_interval_divides_by_zero() {
    let mut model = Model::example_groups();
    if let FrameData::Group { intervals, .. } = &mut model.frames[1] {
        intervals[0] = 0.0;
        intervals[2] = 0.0;
    }
    let bytes = model.write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    let g = m.frame(1).unwrap();
    assert_eq!(g.pose_at(1.0, 0.0, AnimRule::Gl), None);
    assert_eq!(g.pose_at(1.0, 0.0, AnimRule::Software), None);
}

#[test]
fn skin_group_timing() {
    let bytes = Model::example_groups().write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skin(0).unwrap().image_at(5.0, 0.0, AnimRule::Gl), Some(0));
    let s = m.skin(1).unwrap(); // 3 images, intervals 0.1, 0.2, 0.3
    assert_eq!(s.image_at(0.15, 0.0, AnimRule::Software), Some(1));
    assert_eq!(s.image_at(0.29, 0.0, AnimRule::Software), Some(2));
    // GL: 10 Hz over 4 slots; slot 3 repeats image 0 for a 3-image group.
    let gl: Vec<_> = (0..8)
        .map(|i| {
            s.image_at(i as f64 * 0.1 + 0.01, 0.0, AnimRule::Gl)
                .unwrap()
        })
        .collect();
    assert_eq!(gl, vec![0, 1, 2, 0, 0, 1, 2, 0]);
}

#[test]
fn gl_skin_slots() {
    // 1 image: all slots. 2 images: 0 1 0 1. 3: 0 1 2 0. 4: identity.
    let slots = |n: usize| (0..4).map(|s| gl_skin_slot_image(n, s)).collect::<Vec<_>>();
    assert_eq!(slots(1), [0, 0, 0, 0]);
    assert_eq!(slots(2), [0, 1, 0, 1]);
    assert_eq!(slots(3), [0, 1, 2, 0]);
    assert_eq!(slots(4), [0, 1, 2, 3]);
    // More than 4: the last writer of each slot wins.
    assert_eq!(slots(6), [4, 5, 2, 3]);
    assert_eq!(slots(9), [8, 5, 6, 7]);
}

#[test]
fn flags_trail_priority() {
    assert_eq!(Flags::from_raw(0).trail(), None);
    for (flags, trail) in [
        (Flags::ROCKET | Flags::GIB, Trail::Gib),
        (Flags::ROCKET | Flags::ZOMGIB, Trail::ZomGib),
        (Flags::TRACER2 | Flags::TRACER, Trail::Tracer),
        (Flags::ROCKET | Flags::TRACER2, Trail::Tracer2),
        (Flags::ROCKET | Flags::GRENADE, Trail::Rocket),
        (Flags::TRACER3 | Flags::GRENADE, Trail::Grenade),
    ] {
        assert_eq!(flags.trail(), Some(trail), "{flags}");
    }
    assert_eq!(Flags::TRACER3.trail().map(Trail::type_number), Some(6));
    assert!(Flags::from_raw(0x88).rotates());
    assert!(!Flags::TRACER2.rotates());
    let odd = Flags::from_raw(0x1_4001 | 0x200);
    assert_eq!(odd.unknown_bits(), 0x1_0200);
    assert_eq!(odd.as_quakespasm().bits(), 0x4001);
    assert!(odd.holey());
    assert_eq!(odd.to_string(), "rocket | holey | 0x10200");
    assert_eq!(Flags::from_raw(-1).to_raw(), -1);
    assert_eq!(Flags::default().to_string(), "none");
}

#[test]
fn frame_names_split_into_animations() {
    assert_eq!(split_frame_name(b"run6"), (&b"run"[..], Some(6)));
    assert_eq!(split_frame_name(b"axrun10"), (&b"axrun"[..], Some(10)));
    assert_eq!(split_frame_name(b"base"), (&b"base"[..], None));
    assert_eq!(split_frame_name(b"42"), (&b""[..], Some(42)));
    assert_eq!(split_frame_name(b""), (&b""[..], None));
    assert_eq!(
        split_frame_name(b"x99999999999"),
        (&b"x"[..], Some(u32::MAX))
    );

    let mut model = Model::example();
    let pose = model.frames[0].poses()[0].clone();
    let names = ["stand1", "stand2", "run1", "run2", "run3", "pain", "stand3"];
    model.frames = names
        .iter()
        .map(|n| {
            let mut p = pose.clone();
            p.name = idmodel_mdl::PoseData::name_field(n);
            FrameData::Single(p)
        })
        .collect();
    let bytes = model.write().unwrap();
    let m = Mdl::parse(&bytes).unwrap();
    let anims: Vec<(String, usize, usize)> = m
        .animations()
        .map(|a| {
            (
                String::from_utf8(a.name.as_bytes().to_vec()).unwrap(),
                a.frames.start,
                a.frames.len(),
            )
        })
        .collect();
    assert_eq!(
        anims,
        vec![
            ("stand".into(), 0, 2),
            ("run".into(), 2, 3),
            ("pain".into(), 5, 1),
            ("stand".into(), 6, 1)
        ]
    );
}

#[test]
fn quantizer_error_bound() {
    let pts = [
        [-30.5f32, 2.0, 100.0],
        [40.25, 2.0, -7.0],
        [0.1, 2.0, 3.3],
        [12.0, 2.0, 55.5],
    ];
    let q = Quantizer::fit(&pts);
    assert_eq!(q.origin, [-30.5, 2.0, -7.0]);
    assert_eq!(q.scale[1], 1.0); // no extent on y
    for p in pts {
        let d = q.decode(q.quantize(p));
        for a in 0..3 {
            assert!((d[a] - p[a]).abs() <= q.max_error()[a], "{p:?} -> {d:?}");
        }
    }
    // The extremes land on 0 and 255.
    assert_eq!(q.quantize([-30.5, 2.0, -7.0]), [0, 0, 0]);
    assert_eq!(q.quantize([40.25, 2.0, 100.0]), [255, 0, 255]);
    // Outside the bounds: clamped.
    assert_eq!(q.quantize([-1e9, f32::NAN, 1e9]), [0, 0, 255]);
}

#[test]
fn quantized_pose_encodes_normals_and_bounds() {
    let q = Quantizer::new([0.5; 3], [-10.0; 3]);
    let pose = q.pose(
        "walk1",
        &[[0.0, 0.0, 0.0], [5.0, -10.0, 117.5]],
        &[[-0.525731, 0.0, 0.850651], [0.0, 0.0, -3.0]],
    );
    assert_eq!(pose.vertices[0].v, [20, 20, 20]);
    assert_eq!(pose.vertices[1].v, [30, 0, 255]);
    assert_eq!(pose.vertices[0].light_normal_index, 0);
    let down = idmodel_core::anorms::ANORMS[usize::from(pose.vertices[1].light_normal_index)];
    assert!(down[2] < -0.99);
    assert_eq!(pose.bbox_min.v, [20, 0, 20]);
    assert_eq!(pose.bbox_max.v, [30, 20, 255]);
    assert_eq!(&pose.name[..6], b"walk1\0");
}

#[test]
fn writer_refuses_inconsistent_models() {
    let ok = Model::example();
    assert!(ok.write().is_ok());
    type Edit = Box<dyn Fn(&mut Model)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("no skins", Box::new(|m| m.skins.clear())),
        ("no vertices", Box::new(|m| m.texcoords.clear())),
        ("no triangles", Box::new(|m| m.triangles.clear())),
        ("no frames", Box::new(|m| m.frames.clear())),
        ("zero width", Box::new(|m| m.skin_width = 0)),
        ("width over i32", Box::new(|m| m.skin_width = u32::MAX)),
        (
            "short image",
            Box::new(|m| m.skins[0] = SkinData::Single(vec![0; 15])),
        ),
        (
            "empty skin group",
            Box::new(|m| {
                m.skins[0] = SkinData::Group {
                    intervals: vec![],
                    images: vec![],
                }
            }),
        ),
        (
            "interval count",
            Box::new(|m| {
                m.skins[0] = SkinData::Group {
                    intervals: vec![0.1],
                    images: vec![vec![0; 16]; 2],
                }
            }),
        ),
        (
            "index out of range",
            Box::new(|m| {
                m.triangles[0] = Tri {
                    faces_front: 0,
                    vertices: [0, 1, 3],
                }
            }),
        ),
        (
            "pose vertex count",
            Box::new(|m| m.texcoords.push(TexCoord::default())),
        ),
        (
            "empty frame group",
            Box::new(|m| {
                m.frames[0] = FrameData::Group {
                    bbox_min: Default::default(),
                    bbox_max: Default::default(),
                    intervals: vec![],
                    poses: vec![],
                }
            }),
        ),
    ];
    for (what, f) in cases {
        let mut m = ok.clone();
        f(&mut m);
        assert!(m.written_size().is_err(), "{what}");
        assert!(m.write().is_err(), "{what}");
        let mut buf = vec![0u8; 4096];
        assert!(idmodel_mdl::write_into(&m, &mut buf).is_err(), "{what}");
    }
    let mut small = vec![0u8; ok.written_size().unwrap() - 1];
    assert!(idmodel_mdl::write_into(&ok, &mut small).is_err());
    let mut exact = vec![0u8; ok.written_size().unwrap()];
    assert_eq!(
        idmodel_mdl::write_into(&ok, &mut exact).unwrap(),
        exact.len()
    );
    assert_eq!(exact, ok.write().unwrap());
}
