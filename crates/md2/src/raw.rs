//! Wire structs, field for field as in Quake II's `qcommon/qfiles.h`.
//!
//! Every struct is alignment 1 and built from little-endian zerocopy types, so it can be
//! borrowed straight from the file bytes on any host.

use zerocopy::little_endian::{F32, I16, I32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The magic bytes `IDP2` (`IDALIASHEADER`).
pub const MAGIC: [u8; 4] = *b"IDP2";
/// The only version Quake II loads (`ALIAS_VERSION`).
pub const VERSION: i32 = 8;
/// Bytes in a skin name field (`MAX_SKINNAME`).
pub const SKIN_NAME_LEN: usize = 64;
/// Bytes in a frame name field.
pub const FRAME_NAME_LEN: usize = 16;

/// `dmdl_t`: the 68-byte file header (17 little-endian `i32`s).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// `ident`: the magic `IDP2`.
    pub ident: [u8; 4],
    /// `version`: 8.
    pub version: I32,
    /// `skinwidth`: skin width in texels (divides `s` for the software renderer's UVs).
    pub skinwidth: I32,
    /// `skinheight`: skin height in texels.
    pub skinheight: I32,
    /// `framesize`: bytes per frame; the engine uses it as the frame stride.
    pub framesize: I32,
    /// `num_skins`: number of 64-byte skin names.
    pub num_skins: I32,
    /// `num_xyz`: vertices per frame.
    pub num_xyz: I32,
    /// `num_st`: texture coordinates (usually more than `num_xyz`, seams are split).
    pub num_st: I32,
    /// `num_tris`: triangles.
    pub num_tris: I32,
    /// `num_glcmds`: 32-bit words of GL commands, including the final 0.
    pub num_glcmds: I32,
    /// `num_frames`: animation frames.
    pub num_frames: I32,
    /// `ofs_skins`: offset of the skin names.
    pub ofs_skins: I32,
    /// `ofs_st`: offset of the texture coordinates.
    pub ofs_st: I32,
    /// `ofs_tris`: offset of the triangles.
    pub ofs_tris: I32,
    /// `ofs_frames`: offset of the first frame.
    pub ofs_frames: I32,
    /// `ofs_glcmds`: offset of the GL command words.
    pub ofs_glcmds: I32,
    /// `ofs_end`: total size; the engine allocates this many bytes for the model.
    pub ofs_end: I32,
}
const _: () = assert!(size_of::<Header>() == 68);

/// A skin name field: a NUL-padded path, `char name[MAX_SKINNAME]`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SkinName {
    /// The NUL-padded bytes.
    pub name: [u8; SKIN_NAME_LEN],
}
const _: () = assert!(size_of::<SkinName>() == 64);

/// `dstvert_t`: a texture coordinate in skin texels.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct St {
    /// `s`: column in texels.
    pub s: I16,
    /// `t`: row in texels (0 is the top row).
    pub t: I16,
}
const _: () = assert!(size_of::<St>() == 4);

/// `dtriangle_t`: a triangle of the software renderer's list.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Triangle {
    /// `index_xyz`: indices into each frame's vertices.
    pub index_xyz: [I16; 3],
    /// `index_st`: indices into the texture coordinates.
    pub index_st: [I16; 3],
}
const _: () = assert!(size_of::<Triangle>() == 12);

/// `dtrivertx_t`: a packed frame vertex, the same as MDL's `trivertx_t` (defined once in
/// `idmodel-core`, with its decode).
pub use idmodel_core::trivertx::TriVertex;

/// `daliasframe_t` without its vertices: the 40 bytes that start every frame.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct FrameHeader {
    /// `scale`: per-axis multiplier of the packed vertex.
    pub scale: [F32; 3],
    /// `translate`: per-axis offset added after scaling.
    pub translate: [F32; 3],
    /// `name`: NUL-padded frame name (`stand01`).
    pub name: [u8; FRAME_NAME_LEN],
}
const _: () = assert!(size_of::<FrameHeader>() == 40);

/// One vertex of a GL command: `float s, t; int index_xyz` (the 3 words after a count).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct GlVertex {
    /// `s`, already normalised to 0..1 of the skin width.
    pub s: F32,
    /// `t`, already normalised to 0..1 of the skin height (0 is the top).
    pub t: F32,
    /// Index into each frame's vertices.
    pub index_xyz: I32,
}
const _: () = assert!(size_of::<GlVertex>() == 12);
