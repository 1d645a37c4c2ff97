//! Owned models and the writer (behind the `alloc` feature).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use zerocopy::IntoBytes;
use zerocopy::little_endian::{F32, I32};

use crate::raw;
use crate::view::{Md3, Surface};

/// One frame's bounds, cull sphere and name.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    /// `bounds[0]`.
    pub mins: [f32; 3],
    /// `bounds[1]`.
    pub maxs: [f32; 3],
    /// `localOrigin`.
    pub local_origin: [f32; 3],
    /// `radius`.
    pub radius: f32,
    /// Name, at most 15 bytes, no NUL.
    pub name: Vec<u8>,
}

/// One tag in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct TagInfo {
    /// Name, at most 63 bytes, no NUL.
    pub name: Vec<u8>,
    /// `origin`.
    pub origin: [f32; 3],
    /// `axis` rows.
    pub axis: [[f32; 3]; 3],
}

/// A shader reference of a surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderInfo {
    /// Name, at most 63 bytes, no NUL.
    pub name: Vec<u8>,
    /// `shaderIndex` (ignored by the engine; kept for a lossless round trip).
    pub index: i32,
}

/// A stored vertex: position × 64 and the lat/long normal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Vertex {
    /// Position in 1/64 units.
    pub xyz: [i16; 3],
    /// `lat << 8 | lng`.
    pub normal: u16,
}

impl Vertex {
    /// Encodes a position (rounded to the nearest 1/64, so the error is at most 1/128 per
    /// axis) and a unit normal (q3map's `NormalToLatLong`: the decoded direction is within
    /// about 0.07 rad, 4°, of the input). `None` when a coordinate is not finite or lies
    /// outside the range an `i16` can hold (−512 … 511.98).
    pub fn encode(position: [f32; 3], normal: [f32; 3]) -> Option<Self> {
        let mut xyz = [0i16; 3];
        for (o, p) in xyz.iter_mut().zip(position) {
            *o = round_i16(p * 64.0)?;
        }
        Some(Self {
            xyz,
            normal: idmodel_core::md3_normal::encode(normal),
        })
    }
}

#[allow(clippy::as_conversions)] // float → int after an explicit range check
fn round_i16(v: f32) -> Option<i16> {
    let r = libm::roundf(v);
    if r.is_finite() && r >= f32::from(i16::MIN) && r <= f32::from(i16::MAX) {
        Some(r as i16)
    } else {
        None
    }
}

/// The order of a surface's blocks after its header. The engine follows the header's
/// offsets, so every order loads; tools differ (q3data and most exporters put the
/// triangles first), and [`write()`] keeps a file's own order so that it comes back byte
/// for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SurfaceLayout {
    /// Shaders, triangles, texture coordinates, vertices.
    #[default]
    ShadersFirst,
    /// Triangles, shaders, texture coordinates, vertices.
    TrianglesFirst,
}

/// An owned surface.
#[derive(Debug, Clone, PartialEq)]
pub struct SurfaceData {
    /// The surface `ident` (usually `IDP3`; the engine ignores it).
    pub ident: [u8; 4],
    /// Name, at most 63 bytes, no NUL.
    pub name: Vec<u8>,
    /// `flags`.
    pub flags: i32,
    /// Shaders.
    pub shaders: Vec<ShaderInfo>,
    /// Triangles (indices below `st.len()`).
    pub triangles: Vec<[u32; 3]>,
    /// Texture coordinates, one per vertex.
    pub st: Vec<[f32; 2]>,
    /// Vertices per frame: `frames[f][v]`, each frame `st.len()` long. The number of
    /// frames is the surface's own `numFrames`.
    pub frames: Vec<Vec<Vertex>>,
    /// The order of the blocks in the file (read from its offsets: triangles before
    /// shaders is [`SurfaceLayout::TrianglesFirst`], anything else the default; a
    /// surface with neither triangles nor shaders is the same bytes either way and reads
    /// as the default).
    pub layout: SurfaceLayout,
}

/// An owned MD3, convertible from the borrowed view, written by [`write()`].
///
/// `Model::from(Md3::parse(&write(&m)?)?) == m` for every model the writer accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Header name, at most 63 bytes, no NUL.
    pub name: Vec<u8>,
    /// Header `flags`.
    pub flags: i32,
    /// Header `numSkins`.
    pub num_skins: i32,
    /// Frames (at least one).
    pub frames: Vec<FrameInfo>,
    /// Tags: `tags[frame][tag]`; one list per frame, all of the same length.
    pub tags: Vec<Vec<TagInfo>>,
    /// Surfaces.
    pub surfaces: Vec<SurfaceData>,
    /// Bytes written after `ofsEnd` (the engine ignores them).
    pub trailing: Vec<u8>,
}

/// Why a model cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteError {
    /// A name does not fit its field with a terminating NUL, or contains a NUL.
    BadName {
        /// Which name.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The longest allowed.
        max: usize,
    },
    /// The model has no frames.
    NoFrames,
    /// `tags` has a different length than `frames`, or frames have different tag counts.
    TagCount {
        /// The offending frame.
        frame: usize,
    },
    /// A surface frame does not have one vertex per texture coordinate.
    VertexCount {
        /// Surface index.
        surface: usize,
        /// Surface frame.
        frame: usize,
    },
    /// A triangle index is not below the surface's vertex count.
    Index {
        /// Surface index.
        surface: usize,
        /// Triangle index.
        triangle: usize,
    },
    /// A surface without vertices has more frames than the model (the parser refuses
    /// such a count, since no bytes back it).
    UnbackedFrames {
        /// Surface index.
        surface: usize,
    },
    /// The file would exceed the format's 2 GiB offsets.
    TooLarge,
    /// The output buffer's length is not the size from [`written_size`].
    BufferSize {
        /// Needed bytes.
        needed: usize,
        /// Given bytes.
        got: usize,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BadName { what, len, max } => {
                write!(
                    f,
                    "{what} is {len} bytes or holds a NUL (at most {max} bytes)"
                )
            }
            Self::NoFrames => f.write_str("a model needs at least one frame"),
            Self::TagCount { frame } => {
                write!(
                    f,
                    "frame {frame} has a different number of tags (or tags.len() != frames.len())"
                )
            }
            Self::VertexCount { surface, frame } => write!(
                f,
                "surface {surface} frame {frame} does not have one vertex per texture coordinate"
            ),
            Self::Index { surface, triangle } => {
                write!(
                    f,
                    "surface {surface} triangle {triangle} has an index past the vertices"
                )
            }
            Self::UnbackedFrames { surface } => write!(
                f,
                "surface {surface} has no vertices and more frames than the model"
            ),
            Self::TooLarge => f.write_str("the model is too large for MD3's 32-bit offsets"),
            Self::BufferSize { needed, got } => {
                write!(
                    f,
                    "output buffer holds {got} bytes, the model needs {needed}"
                )
            }
        }
    }
}

impl core::error::Error for WriteError {}

fn name_vec(n: idmodel_core::Name<'_>) -> Vec<u8> {
    n.as_bytes().to_vec()
}

impl From<Surface<'_>> for SurfaceData {
    fn from(s: Surface<'_>) -> Self {
        let vert = |v: &raw::XyzNormal| Vertex {
            xyz: v.xyz(),
            normal: v.normal(),
        };
        Self {
            ident: s.header().ident,
            name: name_vec(s.name()),
            flags: s.header().flags.get(),
            shaders: s
                .shaders()
                .iter()
                .map(|sh| ShaderInfo {
                    name: name_vec(sh.name()),
                    index: sh.shader_index.get(),
                })
                .collect(),
            triangles: s.indices().collect(),
            st: s.tex_coords().collect(),
            frames: (0..s.num_frames())
                .map(|f| s.frame(f).unwrap_or(&[]).iter().map(vert).collect())
                .collect(),
            layout: {
                let h = s.header();
                let (tri, sh) = (h.ofs_triangles.get(), h.ofs_shaders.get());
                // Equal offsets: one block is empty; only no triangles before shaders
                // reads back as triangles first.
                if tri < sh || (tri == sh && h.num_triangles.get() == 0 && h.num_shaders.get() > 0)
                {
                    SurfaceLayout::TrianglesFirst
                } else {
                    SurfaceLayout::ShadersFirst
                }
            },
        }
    }
}

impl From<Md3<'_>> for Model {
    fn from(m: Md3<'_>) -> Self {
        Self {
            name: name_vec(m.name()),
            flags: m.flags(),
            num_skins: m.num_skins(),
            frames: m
                .frames()
                .iter()
                .map(|f| FrameInfo {
                    mins: f.mins(),
                    maxs: f.maxs(),
                    local_origin: f.local_origin(),
                    radius: f.radius(),
                    name: name_vec(f.name()),
                })
                .collect(),
            tags: (0..m.num_frames())
                .map(|f| {
                    m.frame_tags(f)
                        .unwrap_or(&[])
                        .iter()
                        .map(|t| TagInfo {
                            name: name_vec(t.name()),
                            origin: t.origin(),
                            axis: t.axis(),
                        })
                        .collect()
                })
                .collect(),
            surfaces: m.surfaces().map(SurfaceData::from).collect(),
            trailing: m.trailing_bytes().to_vec(),
        }
    }
}

const fn sz<T>() -> usize {
    size_of::<T>()
}

fn mul(a: usize, b: usize) -> Result<usize, WriteError> {
    a.checked_mul(b).ok_or(WriteError::TooLarge)
}

fn add(a: usize, b: usize) -> Result<usize, WriteError> {
    a.checked_add(b).ok_or(WriteError::TooLarge)
}

fn i32_of(n: usize) -> Result<I32, WriteError> {
    i32::try_from(n)
        .map(I32::new)
        .map_err(|_| WriteError::TooLarge)
}

fn check_name(what: &'static str, name: &[u8], field: usize) -> Result<(), WriteError> {
    let max = field.saturating_sub(1);
    if name.len() > max || name.contains(&0) {
        return Err(WriteError::BadName {
            what,
            len: name.len(),
            max,
        });
    }
    Ok(())
}

fn field<const N: usize>(name: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, b) in out.iter_mut().zip(name) {
        *o = *b;
    }
    out
}

fn f3(v: [f32; 3]) -> [F32; 3] {
    v.map(F32::new)
}

/// The size of one surface (header and arrays), after validating it.
fn surface_size(i: usize, s: &SurfaceData, frames: usize) -> Result<usize, WriteError> {
    check_name("surface name", &s.name, raw::MAX_QPATH)?;
    for sh in &s.shaders {
        check_name("shader name", &sh.name, raw::MAX_QPATH)?;
    }
    let nv = s.st.len();
    if nv == 0 && s.frames.len() > frames {
        return Err(WriteError::UnbackedFrames { surface: i });
    }
    for (f, frame) in s.frames.iter().enumerate() {
        if frame.len() != nv {
            return Err(WriteError::VertexCount {
                surface: i,
                frame: f,
            });
        }
    }
    for (t, tri) in s.triangles.iter().enumerate() {
        if tri
            .iter()
            .any(|&x| usize::try_from(x).map_or(true, |x| x >= nv))
        {
            return Err(WriteError::Index {
                surface: i,
                triangle: t,
            });
        }
    }
    let mut n = sz::<raw::SurfaceHeader>();
    n = add(n, mul(s.shaders.len(), sz::<raw::Shader>())?)?;
    n = add(n, mul(s.triangles.len(), sz::<raw::Triangle>())?)?;
    n = add(n, mul(nv, sz::<raw::St>())?)?;
    n = add(n, mul(mul(nv, s.frames.len())?, sz::<raw::XyzNormal>())?)?;
    i32_of(n)?;
    i32_of(nv)?;
    i32_of(s.frames.len())?;
    Ok(n)
}

/// The size of the model data (`ofsEnd`) and of the whole file.
fn sizes(m: &Model) -> Result<(usize, usize), WriteError> {
    check_name("model name", &m.name, raw::MAX_QPATH)?;
    if m.frames.is_empty() {
        return Err(WriteError::NoFrames);
    }
    for f in &m.frames {
        check_name("frame name", &f.name, 16)?;
    }
    if m.tags.len() != m.frames.len() {
        return Err(WriteError::TagCount {
            frame: m.tags.len().min(m.frames.len()),
        });
    }
    let num_tags = m.tags.first().map_or(0, Vec::len);
    for (f, tags) in m.tags.iter().enumerate() {
        if tags.len() != num_tags {
            return Err(WriteError::TagCount { frame: f });
        }
        for t in tags {
            check_name("tag name", &t.name, raw::MAX_QPATH)?;
        }
    }
    let mut end = sz::<raw::Header>();
    end = add(end, mul(m.frames.len(), sz::<raw::Frame>())?)?;
    end = add(end, mul(mul(m.frames.len(), num_tags)?, sz::<raw::Tag>())?)?;
    for (i, s) in m.surfaces.iter().enumerate() {
        end = add(end, surface_size(i, s, m.frames.len())?)?;
    }
    i32_of(end)?;
    i32_of(num_tags)?;
    i32_of(m.surfaces.len())?;
    Ok((end, add(end, m.trailing.len())?))
}

/// The exact size of the file [`write_into`] produces, after validating the model.
pub fn written_size(m: &Model) -> Result<usize, WriteError> {
    sizes(m).map(|(_, total)| total)
}

/// Copies `value`'s bytes to `out` at `*at` and advances.
fn put(out: &mut [u8], at: &mut usize, value: &[u8]) -> Result<(), WriteError> {
    let end = add(*at, value.len())?;
    let dst = out.get_mut(*at..end).ok_or(WriteError::TooLarge)?;
    dst.copy_from_slice(value);
    *at = end;
    Ok(())
}

/// Writes `m` into `out`, whose length must be exactly [`written_size`]; returns the
/// number of bytes written. Layout: header, frames, tags, then each surface as header,
/// shaders, triangles, texture coordinates, vertices.
pub fn write_into(m: &Model, out: &mut [u8]) -> Result<usize, WriteError> {
    let (end, total) = sizes(m)?;
    if out.len() != total {
        return Err(WriteError::BufferSize {
            needed: total,
            got: out.len(),
        });
    }
    let hs = sz::<raw::Header>();
    let ofs_frames = hs;
    let ofs_tags = add(ofs_frames, mul(m.frames.len(), sz::<raw::Frame>())?)?;
    let num_tags = m.tags.first().map_or(0, Vec::len);
    let ofs_surfaces = add(
        ofs_tags,
        mul(mul(m.frames.len(), num_tags)?, sz::<raw::Tag>())?,
    )?;
    let header = raw::Header {
        ident: raw::IDENT,
        version: I32::new(raw::VERSION),
        name: field(&m.name),
        flags: I32::new(m.flags),
        num_frames: i32_of(m.frames.len())?,
        num_tags: i32_of(num_tags)?,
        num_surfaces: i32_of(m.surfaces.len())?,
        num_skins: I32::new(m.num_skins),
        ofs_frames: i32_of(ofs_frames)?,
        ofs_tags: i32_of(ofs_tags)?,
        ofs_surfaces: i32_of(ofs_surfaces)?,
        ofs_end: i32_of(end)?,
    };
    let mut at = 0usize;
    put(out, &mut at, header.as_bytes())?;
    for f in &m.frames {
        let frame = raw::Frame {
            bounds: [f3(f.mins), f3(f.maxs)],
            local_origin: f3(f.local_origin),
            radius: F32::new(f.radius),
            name: field(&f.name),
        };
        put(out, &mut at, frame.as_bytes())?;
    }
    for t in m.tags.iter().flatten() {
        let tag = raw::Tag {
            name: field(&t.name),
            origin: f3(t.origin),
            axis: t.axis.map(f3),
        };
        put(out, &mut at, tag.as_bytes())?;
    }
    for (i, s) in m.surfaces.iter().enumerate() {
        let size = surface_size(i, s, m.frames.len())?;
        let nv = s.st.len();
        let header = sz::<raw::SurfaceHeader>();
        let shader_bytes = mul(s.shaders.len(), sz::<raw::Shader>())?;
        let triangle_bytes = mul(s.triangles.len(), sz::<raw::Triangle>())?;
        let (ofs_shaders, ofs_triangles) = match s.layout {
            SurfaceLayout::ShadersFirst => (header, add(header, shader_bytes)?),
            SurfaceLayout::TrianglesFirst => (add(header, triangle_bytes)?, header),
        };
        let ofs_st = add(add(header, shader_bytes)?, triangle_bytes)?;
        let ofs_xyz = add(ofs_st, mul(nv, sz::<raw::St>())?)?;
        let h = raw::SurfaceHeader {
            ident: s.ident,
            name: field(&s.name),
            flags: I32::new(s.flags),
            num_frames: i32_of(s.frames.len())?,
            num_shaders: i32_of(s.shaders.len())?,
            num_verts: i32_of(nv)?,
            num_triangles: i32_of(s.triangles.len())?,
            ofs_triangles: i32_of(ofs_triangles)?,
            ofs_shaders: i32_of(ofs_shaders)?,
            ofs_st: i32_of(ofs_st)?,
            ofs_xyz_normals: i32_of(ofs_xyz)?,
            ofs_end: i32_of(size)?,
        };
        put(out, &mut at, h.as_bytes())?;
        let shaders = |out: &mut [u8], at: &mut usize| -> Result<(), WriteError> {
            for sh in &s.shaders {
                let shader = raw::Shader {
                    name: field(&sh.name),
                    shader_index: I32::new(sh.index),
                };
                put(out, at, shader.as_bytes())?;
            }
            Ok(())
        };
        let triangles = |out: &mut [u8], at: &mut usize| -> Result<(), WriteError> {
            for tri in &s.triangles {
                let mut idx = [I32::new(0); 3];
                for (o, &x) in idx.iter_mut().zip(tri) {
                    *o = i32::try_from(x)
                        .map(I32::new)
                        .map_err(|_| WriteError::TooLarge)?;
                }
                put(out, at, raw::Triangle { indexes: idx }.as_bytes())?;
            }
            Ok(())
        };
        match s.layout {
            SurfaceLayout::ShadersFirst => {
                shaders(out, &mut at)?;
                triangles(out, &mut at)?;
            }
            SurfaceLayout::TrianglesFirst => {
                triangles(out, &mut at)?;
                shaders(out, &mut at)?;
            }
        }
        // Texture coordinates and vertices straight into their place: one bounds check
        // per block, not one per element (an animated model is megabytes of vertices).
        let st_len = mul(s.st.len(), sz::<raw::St>())?;
        let dst = out
            .get_mut(at..add(at, st_len)?)
            .ok_or(WriteError::TooLarge)?;
        for (o, &[u, v]) in dst.chunks_exact_mut(8).zip(&s.st) {
            let w = u64::from(u.to_bits()) | (u64::from(v.to_bits()) << 32);
            o.copy_from_slice(&w.to_le_bytes());
        }
        at = add(at, st_len)?;
        for frame in &s.frames {
            let len = mul(frame.len(), sz::<raw::XyzNormal>())?;
            let dst = out.get_mut(at..add(at, len)?).ok_or(WriteError::TooLarge)?;
            for (o, v) in dst.chunks_exact_mut(8).zip(frame) {
                // x, y, z, normal as four little-endian 16-bit words: one 8-byte store.
                let [x, y, z] = v
                    .xyz
                    .map(|c| u64::from(u16::from_le_bytes(c.to_le_bytes())));
                let w = x | (y << 16) | (z << 32) | (u64::from(v.normal) << 48);
                o.copy_from_slice(&w.to_le_bytes());
            }
            at = add(at, len)?;
        }
    }
    put(out, &mut at, &m.trailing)?;
    Ok(at)
}

/// Writes `m` into a new `Vec`.
pub fn write(m: &Model) -> Result<Vec<u8>, WriteError> {
    let mut out = vec![0u8; written_size(m)?];
    write_into(m, &mut out)?;
    Ok(out)
}

impl Model {
    /// A small example model: two surfaces (`body`, and `arm_l`, which the engine
    /// renames `arm`), a tag `tag_weapon`, and three frames. It is the committed sample
    /// `samples/sample.md3`.
    pub fn example() -> Self {
        let quad_st = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let frames = 3usize;
        let mut body_frames = Vec::new();
        let mut arm_frames = Vec::new();
        let mut infos = Vec::new();
        let mut tags = Vec::new();
        let mut k = 0.0f32;
        for f in 0..frames {
            let lift = k * 2.0;
            let quad = |x0: f32, z0: f32, w: f32, h: f32, n: [f32; 3]| {
                [
                    [x0, 0.0, z0],
                    [x0 + w, 0.0, z0],
                    [x0 + w, 0.0, z0 + h],
                    [x0, 0.0, z0 + h],
                ]
                .map(|p| Vertex::encode(p, n).unwrap_or_default())
                .to_vec()
            };
            body_frames.push(quad(-8.0, lift, 16.0, 32.0, [0.0, -1.0, 0.0]));
            arm_frames.push(quad(8.0, 16.0 + lift, 12.0, 4.0, [0.0, -1.0, 0.0]));
            infos.push(FrameInfo {
                mins: [-8.0, 0.0, lift],
                maxs: [20.0, 0.0, 32.0 + lift],
                local_origin: [0.0; 3],
                radius: 40.0,
                name: alloc::format!("frame{f}").into_bytes(),
            });
            let (s, c) = (libm::sinf(k * 0.5), libm::cosf(k * 0.5));
            tags.push(vec![TagInfo {
                name: b"tag_weapon".to_vec(),
                origin: [20.0, 0.0, 18.0 + lift],
                axis: [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]],
            }]);
            k += 1.0;
        }
        let surface = |name: &[u8], shader: &[u8], frames: Vec<Vec<Vertex>>| SurfaceData {
            ident: raw::IDENT,
            name: name.to_vec(),
            flags: 0,
            shaders: vec![ShaderInfo {
                name: shader.to_vec(),
                index: 0,
            }],
            triangles: vec![[0, 2, 1], [0, 3, 2]],
            st: quad_st.clone(),
            frames,
            layout: SurfaceLayout::default(),
        };
        Self {
            name: b"models/sample/sample.md3".to_vec(),
            flags: 0,
            num_skins: 0,
            frames: infos,
            tags,
            surfaces: vec![
                surface(b"body", b"models/sample/body.tga", body_frames),
                surface(b"arm_l", b"models/sample/arm.tga", arm_frames),
            ],
            trailing: Vec::new(),
        }
    }
}
