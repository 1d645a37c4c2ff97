//! A field-by-field minimal MDL for the fixtures, written with the workspace's one
//! little-endian builder ([`LeBuffer`], from `idmodel-test-support`).
#![allow(dead_code)] // each test binary uses a different subset

pub use idmodel_test_support::LeBuffer;

/// Header values of the minimal fixture; tests change one field.
#[derive(Clone, Copy)]
pub struct Spec {
    pub magic: [u8; 4],
    pub version: i32,
    pub numskins: i32,
    pub skinwidth: i32,
    pub skinheight: i32,
    pub numverts: i32,
    pub numtris: i32,
    pub numframes: i32,
    pub synctype: i32,
    pub flags: i32,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            magic: *b"IDPO",
            version: 6,
            numskins: 1,
            skinwidth: 4,
            skinheight: 2,
            numverts: 3,
            numtris: 1,
            numframes: 1,
            synctype: 0,
            flags: 0,
        }
    }
}

/// The 84-byte header, one field per line.
pub fn header(b: &mut LeBuffer, s: &Spec) {
    b.bytes(&s.magic); // ident
    b.i32(s.version); // version
    b.f32(1.0).f32(1.0).f32(1.0); // scale
    b.f32(0.0).f32(0.0).f32(0.0); // scale_origin
    b.f32(10.0); // boundingradius
    b.f32(0.0).f32(0.0).f32(0.0); // eyeposition
    b.i32(s.numskins); // numskins
    b.i32(s.skinwidth); // skinwidth
    b.i32(s.skinheight); // skinheight
    b.i32(s.numverts); // numverts
    b.i32(s.numtris); // numtris
    b.i32(s.numframes); // numframes
    b.i32(s.synctype); // synctype
    b.i32(s.flags); // flags
    b.f32(1.0); // size
}

/// One single skin of `w*h` bytes.
pub fn single_skin(b: &mut LeBuffer, w: usize, h: usize) {
    b.i32(0); // skin type: ALIAS_SKIN_SINGLE
    b.fill(w * h, 7); // pixels
}

/// `n` texture coordinates at (i, 0), onseam 0.
pub fn stverts(b: &mut LeBuffer, n: usize) {
    for i in 0..n {
        b.i32(0); // onseam
        b.i32(i as i32); // s
        b.i32(0); // t
    }
}

/// One triangle.
pub fn triangle(b: &mut LeBuffer, faces_front: i32, v: [i32; 3]) {
    b.i32(faces_front); // facesfront
    b.i32(v[0]).i32(v[1]).i32(v[2]); // vertindex[3]
}

/// One pose body (daliasframe_t + verts), no type word.
pub fn pose(b: &mut LeBuffer, name: &str, nverts: usize, normal: u8) {
    b.bytes(&[0, 0, 0, 0]); // bboxmin
    b.bytes(&[8, 8, 8, 0]); // bboxmax
    b.name(name, 16); // name
    for i in 0..nverts {
        b.bytes(&[i as u8, 1, 2, normal]); // trivertx_t v[3], lightnormalindex
    }
}

/// One single frame.
pub fn single_frame(b: &mut LeBuffer, name: &str, nverts: usize) {
    b.i32(0); // frame type: ALIAS_SINGLE
    pose(b, name, nverts, 0);
}

/// A valid file with the header from `s` and bodies sized from its (positive) counts.
pub fn minimal_with(s: &Spec) -> Vec<u8> {
    let mut b = LeBuffer::new();
    header(&mut b, s);
    let (w, h) = (s.skinwidth.max(0) as usize, s.skinheight.max(0) as usize);
    for _ in 0..s.numskins.max(0) {
        single_skin(&mut b, w, h);
    }
    let nv = s.numverts.max(0) as usize;
    stverts(&mut b, nv);
    for _ in 0..s.numtris.max(0) {
        triangle(&mut b, 1, [0, 1, 2]);
    }
    for i in 0..s.numframes.max(0) {
        single_frame(&mut b, &format!("frame{}", i + 1), nv);
    }
    b.into_vec()
}

/// The default minimal file: 1 skin 4x2, 3 vertices, 1 triangle, 1 frame.
pub fn minimal() -> Vec<u8> {
    minimal_with(&Spec::default())
}
