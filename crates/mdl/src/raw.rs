//! Wire structs mirroring `WinQuake/modelgen.h` field for field.
//!
//! Every struct is alignment 1 and holds only little-endian zerocopy types or bytes, so
//! it can be borrowed straight from the file on any host. Sizes are checked at compile
//! time.

use zerocopy::little_endian::{F32, I32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The four magic bytes `IDPO` (`IDPOLYHEADER`).
pub const MAGIC: [u8; 4] = *b"IDPO";
/// The only version engines load (`ALIAS_VERSION`).
pub const VERSION: i32 = 6;
/// `ALIAS_ONSEAM`: the bit modelgen writes into [`StVert::onseam`] for seam vertices.
pub const ALIAS_ONSEAM: i32 = 0x20;
/// `ALIAS_SINGLE` / `ALIAS_SKIN_SINGLE`: the type word of a single frame or skin.
/// Any other value is read as a group.
pub const TYPE_SINGLE: i32 = 0;
/// The type word the writer stores for groups (`ALIAS_GROUP` / `ALIAS_SKIN_GROUP`).
pub const TYPE_GROUP: i32 = 1;

/// `mdl_t`: the 84-byte file header.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Header {
    /// `ident`: the bytes `IDPO`.
    pub ident: [u8; 4],
    /// `version`: must be 6.
    pub version: I32,
    /// `scale`: per-axis multiplier of the 8-bit vertex coordinates.
    pub scale: [F32; 3],
    /// `scale_origin`: per-axis translation added after scaling.
    pub scale_origin: [F32; 3],
    /// `boundingradius`: loaded, unused by the GL renderers.
    pub bounding_radius: F32,
    /// `eyeposition`: loaded, unused.
    pub eye_position: [F32; 3],
    /// `numskins`: number of skin entries.
    pub num_skins: I32,
    /// `skinwidth`: width of every skin image in texels.
    pub skin_width: I32,
    /// `skinheight`: height of every skin image in texels.
    pub skin_height: I32,
    /// `numverts`: vertices per pose (and texture coordinates).
    pub num_verts: I32,
    /// `numtris`: triangles.
    pub num_tris: I32,
    /// `numframes`: frame entries (single frames or groups).
    pub num_frames: I32,
    /// `synctype`: 0 = `ST_SYNC`, 1 = `ST_RAND`.
    pub sync_type: I32,
    /// `flags`: `EF_*` bits.
    pub flags: I32,
    /// `size`: average triangle size (the engine scales it by 1/11).
    pub size: F32,
}
const _: () = assert!(size_of::<Header>() == 84);

/// `daliasskintype_t` / `daliasframetype_t`: the type word before a skin or frame entry.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct TypeWord {
    /// `type`: 0 = single, anything else = group.
    pub kind: I32,
}
const _: () = assert!(size_of::<TypeWord>() == 4);

/// `daliasskingroup_t`: the count that starts a skin group.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct SkinGroup {
    /// `numskins`: images in the group.
    pub num_skins: I32,
}
const _: () = assert!(size_of::<SkinGroup>() == 4);

/// `daliasskininterval_t` / `daliasinterval_t`: one group interval in seconds.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Interval {
    /// `interval`: for the software renderer, the cumulative end time of the image or pose.
    pub interval: F32,
}
const _: () = assert!(size_of::<Interval>() == 4);

/// `stvert_t`: one texture coordinate, in texels.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct StVert {
    /// `onseam`: non-zero (GL) or bit 0x20 (software) marks a seam vertex.
    pub onseam: I32,
    /// `s`: horizontal texel coordinate.
    pub s: I32,
    /// `t`: vertical texel coordinate (0 = top row).
    pub t: I32,
}
const _: () = assert!(size_of::<StVert>() == 12);

/// `dtriangle_t`: one triangle.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Triangle {
    /// `facesfront`: zero means the triangle is on the back half of the skin (seam shift applies).
    pub faces_front: I32,
    /// `vertindex`: three indices into the vertices and texture coordinates.
    pub vert_index: [I32; 3],
}
const _: () = assert!(size_of::<Triangle>() == 16);

/// `trivertx_t`: one packed vertex, the same as MD2's `dtrivertx_t` (defined once in
/// `idmodel-core`, with its decode).
pub use idmodel_core::trivertx::TriVertex;

/// `daliasframe_t`: the 24-byte header of one pose (single frame or group member).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct PoseHeader {
    /// `bboxmin`: lower bound of the pose (normal byte unused).
    pub bbox_min: TriVertex,
    /// `bboxmax`: upper bound of the pose (normal byte unused).
    pub bbox_max: TriVertex,
    /// `name`: NUL-padded frame name.
    pub name: [u8; 16],
}
const _: () = assert!(size_of::<PoseHeader>() == 24);

/// `daliasgroup_t`: the 12-byte header of a frame group.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct FrameGroup {
    /// `numframes`: poses in the group.
    pub num_frames: I32,
    /// `bboxmin`: lower bound of the whole group.
    pub bbox_min: TriVertex,
    /// `bboxmax`: upper bound of the whole group.
    pub bbox_max: TriVertex,
}
const _: () = assert!(size_of::<FrameGroup>() == 12);
