//! Wire structs mirroring Quake III's `code/qcommon/qfiles.h` field for field
//! (docs/formats.md §3.1).
//!
//! Every struct holds only alignment-1 little-endian types, so it can be borrowed
//! straight from the file on any host. Sizes are checked at compile time.

use zerocopy::little_endian::{F32, I16, I32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use idmodel_core::Name;

/// `MD3_IDENT`: the four magic bytes `IDP3`.
pub const IDENT: [u8; 4] = *b"IDP3";
/// `MD3_VERSION`.
pub const VERSION: i32 = 15;
/// `MD3_XYZ_SCALE`: stored positions are multiplied by 1/64.
pub const XYZ_SCALE: f32 = 1.0 / 64.0;
/// `MAX_QPATH`: the size of header, tag, surface and shader name fields.
pub const MAX_QPATH: usize = 64;

/// `md3Header_t` (108 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// `ident`: `IDP3`.
    pub ident: [u8; 4],
    /// `version`: 15.
    pub version: I32,
    /// `name`: NUL-padded model path (unused by the engine).
    pub name: [u8; 64],
    /// `flags` (unused).
    pub flags: I32,
    /// `numFrames`: frames of vertex animation, at least 1.
    pub num_frames: I32,
    /// `numTags`: tags per frame.
    pub num_tags: I32,
    /// `numSurfaces`.
    pub num_surfaces: I32,
    /// `numSkins` (unused).
    pub num_skins: I32,
    /// `ofsFrames`: offset of `numFrames` [`Frame`]s.
    pub ofs_frames: I32,
    /// `ofsTags`: offset of `numFrames × numTags` [`Tag`]s, frame-major.
    pub ofs_tags: I32,
    /// `ofsSurfaces`: offset of the first surface.
    pub ofs_surfaces: I32,
    /// `ofsEnd`: the size of the model data; bytes after it are not loaded.
    pub ofs_end: I32,
}
const _: () = assert!(size_of::<Header>() == 108);

/// `md3Frame_t` (56 bytes): bounds and cull sphere of one frame.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Frame {
    /// `bounds[2][3]`: mins, then maxs.
    pub bounds: [[F32; 3]; 2],
    /// `localOrigin`: centre of the cull sphere.
    pub local_origin: [F32; 3],
    /// `radius`: radius of the cull sphere.
    pub radius: F32,
    /// `name[16]`: NUL-padded frame name.
    pub name: [u8; 16],
}
const _: () = assert!(size_of::<Frame>() == 56);

/// `md3Tag_t` (112 bytes): a named attachment point in one frame.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Tag {
    /// `name[MAX_QPATH]`: NUL-padded, compared case-sensitively by the engine.
    pub name: [u8; 64],
    /// `origin`: position in model space.
    pub origin: [F32; 3],
    /// `axis[3][3]`: rows are forward, left, up, in model space.
    pub axis: [[F32; 3]; 3],
}
const _: () = assert!(size_of::<Tag>() == 112);

/// `md3Surface_t` (108 bytes). Its offsets are relative to the surface's start.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SurfaceHeader {
    /// `ident` (not checked by the engine).
    pub ident: [u8; 4],
    /// `name[MAX_QPATH]`: lower-cased and `_x`-shortened by the engine at load.
    pub name: [u8; 64],
    /// `flags` (unused).
    pub flags: I32,
    /// `numFrames`: should equal the header's.
    pub num_frames: I32,
    /// `numShaders`.
    pub num_shaders: I32,
    /// `numVerts`.
    pub num_verts: I32,
    /// `numTriangles`.
    pub num_triangles: I32,
    /// `ofsTriangles`.
    pub ofs_triangles: I32,
    /// `ofsShaders`.
    pub ofs_shaders: I32,
    /// `ofsSt`: one [`St`] per vertex, shared by all frames.
    pub ofs_st: I32,
    /// `ofsXyzNormals`: `numVerts × numFrames` [`XyzNormal`]s, frame-major.
    pub ofs_xyz_normals: I32,
    /// `ofsEnd`: offset of the next surface.
    pub ofs_end: I32,
}
const _: () = assert!(size_of::<SurfaceHeader>() == 108);

/// `md3Shader_t` (68 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Shader {
    /// `name[MAX_QPATH]`: shader or image path.
    pub name: [u8; 64],
    /// `shaderIndex`: filled in at run time; the file value is ignored.
    pub shader_index: I32,
}
const _: () = assert!(size_of::<Shader>() == 68);

/// `md3Triangle_t` (12 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// `indexes[3]`: vertex indices (clockwise on screen is front).
    pub indexes: [I32; 3],
}
const _: () = assert!(size_of::<Triangle>() == 12);

/// `md3St_t` (8 bytes): a texture coordinate; t = 0 is the image top.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct St {
    /// `st[2]`.
    pub st: [F32; 2],
}
const _: () = assert!(size_of::<St>() == 8);

/// `md3XyzNormal_t` (8 bytes): a position in 1/64 units and a lat/long normal.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct XyzNormal {
    /// `xyz[3]`: position × 64.
    pub xyz: [I16; 3],
    /// `normal`: high byte lat, low byte lng (see `idmodel_core::md3_normal`).
    pub normal: I16,
}
const _: () = assert!(size_of::<XyzNormal>() == 8);

pub(crate) fn vec3(v: &[F32; 3]) -> [f32; 3] {
    [v[0].get(), v[1].get(), v[2].get()]
}

impl Frame {
    /// `bounds[0]`.
    pub fn mins(&self) -> [f32; 3] {
        vec3(&self.bounds[0])
    }
    /// `bounds[1]`.
    pub fn maxs(&self) -> [f32; 3] {
        vec3(&self.bounds[1])
    }
    /// `localOrigin`.
    pub fn local_origin(&self) -> [f32; 3] {
        vec3(&self.local_origin)
    }
    /// `radius`.
    pub fn radius(&self) -> f32 {
        self.radius.get()
    }
    /// The frame name up to its first NUL.
    pub fn name(&self) -> Name<'_> {
        Name::from_field(&self.name)
    }
}

impl Tag {
    /// The tag name up to its first NUL.
    pub fn name(&self) -> Name<'_> {
        Name::from_field(&self.name)
    }
    /// `origin`.
    pub fn origin(&self) -> [f32; 3] {
        vec3(&self.origin)
    }
    /// `axis` rows (forward, left, up).
    pub fn axis(&self) -> [[f32; 3]; 3] {
        [
            vec3(&self.axis[0]),
            vec3(&self.axis[1]),
            vec3(&self.axis[2]),
        ]
    }
}

impl Shader {
    /// The shader name up to its first NUL.
    pub fn name(&self) -> Name<'_> {
        Name::from_field(&self.name)
    }
}

impl St {
    /// `[s, t]` as stored.
    pub fn get(&self) -> [f32; 2] {
        [self.st[0].get(), self.st[1].get()]
    }
}

impl XyzNormal {
    /// The stored position (× 64).
    pub fn xyz(&self) -> [i16; 3] {
        [self.xyz[0].get(), self.xyz[1].get(), self.xyz[2].get()]
    }
    /// The stored normal as the engine reads it (an unsigned 16-bit value).
    pub fn normal(&self) -> u16 {
        u16::from_le_bytes(self.normal.get().to_le_bytes())
    }
    /// The position in model units: `xyz × 1/64`.
    pub fn position(&self) -> [f32; 3] {
        let [x, y, z] = self.xyz();
        [
            f32::from(x) * XYZ_SCALE,
            f32::from(y) * XYZ_SCALE,
            f32::from(z) * XYZ_SCALE,
        ]
    }
}
