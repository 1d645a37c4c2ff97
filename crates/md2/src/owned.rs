//! The owned model and the writer (behind `alloc`).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use zerocopy::IntoBytes;
use zerocopy::little_endian::{F32, I16, I32};

use crate::raw;
use crate::view::{FRAME_HEADER_SIZE, HEADER_SIZE, Md2, Triangle};

/// One owned frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameData {
    /// The name (at most 16 bytes, no NUL).
    pub name: Vec<u8>,
    /// Per-axis scale.
    pub scale: [f32; 3],
    /// Per-axis translation.
    pub translate: [f32; 3],
    /// The packed vertices (the same count in every frame).
    pub vertices: Vec<raw::TriVertex>,
}

/// An owned MD2 model: everything the file holds except the GL commands, which the
/// writer generates from the triangles (see [`write()`]).
///
/// `Model::from(Md2::parse(&write(&m)?)?) == m` for every model [`write()`] accepts.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use idmodel_md2::{Md2, Model};
/// let model = Model::example();
/// let bytes = idmodel_md2::write(&model)?;
/// assert_eq!(Model::from(Md2::parse(&bytes)?), model);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// `skinwidth` (must be positive when GL commands are written).
    pub skin_width: i32,
    /// `skinheight`.
    pub skin_height: i32,
    /// Skin paths (at most 64 bytes, no NUL).
    pub skins: Vec<Vec<u8>>,
    /// Texture coordinates in texels, `[s, t]`.
    pub st: Vec<[i16; 2]>,
    /// Triangles (indices below 32768, in range of the vertices and st).
    pub triangles: Vec<Triangle>,
    /// Frames (at least one; all with the same number of vertices, at least one).
    pub frames: Vec<FrameData>,
    /// Whether to write a GL command list (Quake II's GL renderer needs one; UFO:AI's
    /// files have none).
    pub gl_commands: bool,
}

impl Model {
    /// A small tetrahedron with two frames (`stand01`, `stand02`), one skin, GL commands.
    pub fn example() -> Self {
        let verts = |d: u8| {
            vec![
                raw::TriVertex {
                    v: [0, 0, 0],
                    light_normal_index: 0,
                },
                raw::TriVertex {
                    v: [200, 0, d],
                    light_normal_index: 1,
                },
                raw::TriVertex {
                    v: [0, 200, 0],
                    light_normal_index: 2,
                },
                raw::TriVertex {
                    v: [0, 0, 200],
                    light_normal_index: 3,
                },
            ]
        };
        let t = |xyz: [u16; 3]| Triangle { xyz, st: xyz };
        Model {
            skin_width: 64,
            skin_height: 64,
            skins: vec![b"models/example/skin.pcx".to_vec()],
            st: vec![[0, 0], [63, 0], [0, 63], [63, 63]],
            triangles: vec![t([0, 2, 1]), t([0, 1, 3]), t([0, 3, 2]), t([1, 2, 3])],
            frames: vec![
                FrameData {
                    name: b"stand01".to_vec(),
                    scale: [0.125; 3],
                    translate: [0.0; 3],
                    vertices: verts(0),
                },
                FrameData {
                    name: b"stand02".to_vec(),
                    scale: [0.125; 3],
                    translate: [0.0, 0.0, 1.0],
                    vertices: verts(40),
                },
            ],
            gl_commands: true,
        }
    }
}

impl From<Md2<'_>> for Model {
    fn from(md2: Md2<'_>) -> Self {
        Model {
            skin_width: md2.skin_width(),
            skin_height: md2.skin_height(),
            skins: md2.skins().map(|n| n.as_bytes().to_vec()).collect(),
            st: md2.st().iter().map(|s| [s.s.get(), s.t.get()]).collect(),
            triangles: md2.triangles().iter().map(Triangle::from_raw).collect(),
            frames: md2
                .frames()
                .map(|f| FrameData {
                    name: f.name().as_bytes().to_vec(),
                    scale: f.scale(),
                    translate: f.translate(),
                    vertices: f.vertices().to_vec(),
                })
                .collect(),
            gl_commands: md2.has_gl_commands(),
        }
    }
}

/// Why a model cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteError {
    /// The output buffer is too small.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A list the file requires to be non-empty is empty (`"frames"`, `"vertices"`,
    /// `"st"`, `"triangles"`).
    Empty(&'static str),
    /// A count or offset does not fit the file's `i32` fields.
    TooLarge {
        /// Which.
        what: &'static str,
        /// The value.
        value: usize,
    },
    /// A frame has another vertex count than frame 0.
    VertexCountMismatch {
        /// The frame.
        frame: usize,
        /// Its vertex count.
        count: usize,
        /// Frame 0's.
        expected: usize,
    },
    /// A triangle index is out of range (or above 32767, the largest `i16`).
    IndexOutOfRange {
        /// `"index_xyz"` or `"index_st"`.
        what: &'static str,
        /// The triangle.
        triangle: usize,
        /// The index.
        index: u16,
        /// The length of the indexed list.
        len: usize,
    },
    /// A name is longer than its field or contains a NUL.
    BadName {
        /// `"skin"` or `"frame"`.
        what: &'static str,
        /// Which one.
        index: usize,
    },
    /// GL commands were requested with a non-positive skin size (their UVs divide by it).
    BadSkinSize {
        /// `skin_width`.
        width: i32,
        /// `skin_height`.
        height: i32,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WriteError::BufferTooSmall { needed, available } => {
                write!(
                    f,
                    "output buffer too small: needed {needed} bytes, {available} available"
                )
            }
            WriteError::Empty(what) => write!(f, "an MD2 needs at least one of {what}"),
            WriteError::TooLarge { what, value } => {
                write!(f, "{what} {value} does not fit the file")
            }
            WriteError::VertexCountMismatch {
                frame,
                count,
                expected,
            } => write!(
                f,
                "frame {frame} has {count} vertices, frame 0 has {expected}"
            ),
            WriteError::IndexOutOfRange {
                what,
                triangle,
                index,
                len,
            } => write!(
                f,
                "triangle {triangle} {what} {index} out of range (0..{len})"
            ),
            WriteError::BadName { what, index } => {
                write!(
                    f,
                    "{what} name {index} is too long for its field or contains a NUL"
                )
            }
            WriteError::BadSkinSize { width, height } => write!(
                f,
                "skin size {width}x{height} must be positive to write GL commands"
            ),
        }
    }
}

impl core::error::Error for WriteError {}

fn to_i32(what: &'static str, value: usize) -> Result<i32, WriteError> {
    i32::try_from(value).map_err(|_| WriteError::TooLarge { what, value })
}

/// Everything the writer derives from a model, checked.
struct Plan {
    num_xyz: usize,
    framesize: usize,
    glcmds: Vec<i32>,
    ofs: [usize; 6], // skins, st, tris, frames, glcmds, end
}

fn plan(m: &Model) -> Result<Plan, WriteError> {
    let first = m.frames.first().ok_or(WriteError::Empty("frames"))?;
    let num_xyz = first.vertices.len();
    if num_xyz == 0 {
        return Err(WriteError::Empty("vertices"));
    }
    if m.st.is_empty() {
        return Err(WriteError::Empty("st"));
    }
    if m.triangles.is_empty() {
        return Err(WriteError::Empty("triangles"));
    }
    for (frame, f) in m.frames.iter().enumerate() {
        if f.vertices.len() != num_xyz {
            return Err(WriteError::VertexCountMismatch {
                frame,
                count: f.vertices.len(),
                expected: num_xyz,
            });
        }
        if f.name.len() > raw::FRAME_NAME_LEN || f.name.contains(&0) {
            return Err(WriteError::BadName {
                what: "frame",
                index: frame,
            });
        }
    }
    for (index, s) in m.skins.iter().enumerate() {
        if s.len() > raw::SKIN_NAME_LEN || s.contains(&0) {
            return Err(WriteError::BadName {
                what: "skin",
                index,
            });
        }
    }
    let max = usize::from(u16::try_from(i16::MAX).unwrap_or(u16::MAX));
    for (triangle, t) in m.triangles.iter().enumerate() {
        for (what, list, len) in [
            ("index_xyz", t.xyz, num_xyz),
            ("index_st", t.st, m.st.len()),
        ] {
            for index in list {
                let i = usize::from(index);
                if i >= len || i > max {
                    return Err(WriteError::IndexOutOfRange {
                        what,
                        triangle,
                        index,
                        len,
                    });
                }
            }
        }
    }
    let glcmds = if m.gl_commands {
        if m.skin_width <= 0 || m.skin_height <= 0 {
            return Err(WriteError::BadSkinSize {
                width: m.skin_width,
                height: m.skin_height,
            });
        }
        build_gl_commands(m)
    } else {
        Vec::new()
    };
    let framesize = num_xyz
        .checked_mul(4)
        .and_then(|n| n.checked_add(FRAME_HEADER_SIZE))
        .ok_or(WriteError::TooLarge {
            what: "framesize",
            value: num_xyz,
        })?;
    // Each block starts where the one before ends: `count` entries of `size` bytes after
    // `start`; `what` names the offset that would overflow.
    let after = |start: usize, count: usize, size: usize, what| {
        count
            .checked_mul(size)
            .and_then(|n| n.checked_add(start))
            .ok_or(WriteError::TooLarge {
                what,
                value: usize::MAX,
            })
    };
    let ofs_skins = HEADER_SIZE;
    let ofs_st = after(ofs_skins, m.skins.len(), raw::SKIN_NAME_LEN, "ofs_st")?;
    let ofs_tris = after(ofs_st, m.st.len(), 4, "ofs_tris")?;
    let ofs_frames = after(ofs_tris, m.triangles.len(), 12, "ofs_frames")?;
    let ofs_glcmds = after(ofs_frames, m.frames.len(), framesize, "ofs_glcmds")?;
    let ofs_end = after(ofs_glcmds, glcmds.len(), 4, "ofs_end")?;
    to_i32("ofs_end", ofs_end)?;
    to_i32("num_skins", m.skins.len())?;
    Ok(Plan {
        num_xyz,
        framesize,
        glcmds,
        ofs: [ofs_skins, ofs_st, ofs_tris, ofs_frames, ofs_glcmds, ofs_end],
    })
}

/// The size in bytes [`write_into`] needs for `model`.
pub fn written_size(model: &Model) -> Result<usize, WriteError> {
    Ok(plan(model)?.ofs[5])
}

fn put(out: &mut [u8], at: &mut usize, bytes: &[u8]) {
    let end = at.saturating_add(bytes.len());
    if let Some(dst) = out.get_mut(*at..end) {
        dst.copy_from_slice(bytes);
    }
    *at = end;
}

/// Writes `model` into `out`; returns the number of bytes written.
///
/// The layout is the one Quake II's tools wrote: header, skins, st, triangles, frames,
/// GL commands, each block right after the previous one, `framesize = 40 + 4·num_xyz`,
/// `ofs_end` = the file size. Without GL commands, `num_glcmds = 0` and `ofs_glcmds`
/// points at the end of the frames.
pub fn write_into(model: &Model, out: &mut [u8]) -> Result<usize, WriteError> {
    write_planned(model, &plan(model)?, out)
}

/// [`write_into`] with the plan made (the GL commands are built once per write).
fn write_planned(model: &Model, p: &Plan, out: &mut [u8]) -> Result<usize, WriteError> {
    let size = p.ofs[5];
    let available = out.len();
    let Some(out) = out.get_mut(..size) else {
        return Err(WriteError::BufferTooSmall {
            needed: size,
            available,
        });
    };
    let i = |v: usize| I32::new(i32::try_from(v).unwrap_or(i32::MAX));
    let header = raw::Header {
        ident: raw::MAGIC,
        version: I32::new(raw::VERSION),
        skinwidth: I32::new(model.skin_width),
        skinheight: I32::new(model.skin_height),
        framesize: i(p.framesize),
        num_skins: i(model.skins.len()),
        num_xyz: i(p.num_xyz),
        num_st: i(model.st.len()),
        num_tris: i(model.triangles.len()),
        num_glcmds: i(p.glcmds.len()),
        num_frames: i(model.frames.len()),
        ofs_skins: i(p.ofs[0]),
        ofs_st: i(p.ofs[1]),
        ofs_tris: i(p.ofs[2]),
        ofs_frames: i(p.ofs[3]),
        ofs_glcmds: i(p.ofs[4]),
        ofs_end: i(p.ofs[5]),
    };
    let mut at = 0usize;
    put(out, &mut at, header.as_bytes());
    for s in &model.skins {
        let mut field = raw::SkinName {
            name: [0; raw::SKIN_NAME_LEN],
        };
        for (d, b) in field.name.iter_mut().zip(s) {
            *d = *b;
        }
        put(out, &mut at, field.as_bytes());
    }
    for st in &model.st {
        let w = raw::St {
            s: I16::new(st[0]),
            t: I16::new(st[1]),
        };
        put(out, &mut at, w.as_bytes());
    }
    let h = |v: u16| I16::new(i16::try_from(v).unwrap_or(0));
    for t in &model.triangles {
        let w = raw::Triangle {
            index_xyz: t.xyz.map(h),
            index_st: t.st.map(h),
        };
        put(out, &mut at, w.as_bytes());
    }
    for f in &model.frames {
        let mut name = [0u8; raw::FRAME_NAME_LEN];
        for (d, b) in name.iter_mut().zip(&f.name) {
            *d = *b;
        }
        let w = raw::FrameHeader {
            scale: f.scale.map(F32::new),
            translate: f.translate.map(F32::new),
            name,
        };
        put(out, &mut at, w.as_bytes());
        put(out, &mut at, f.vertices.as_bytes());
    }
    for word in &p.glcmds {
        put(out, &mut at, &word.to_le_bytes());
    }
    Ok(size)
}

/// Writes `model` into a new vector (see [`write_into`]).
pub fn write(model: &Model) -> Result<Vec<u8>, WriteError> {
    let p = plan(model)?;
    let mut out = vec![0u8; p.ofs[5]];
    write_planned(model, &p, &mut out)?;
    Ok(out)
}

/// Generates the GL command words for `model`'s triangles as Quake II's `qdata`
/// (`BuildGlCmds`, with `StripLength` and `FanLength`) does: for each unused triangle,
/// try a fan and a strip from each of its three edges, keep the longest (fans win ties,
/// then the first start vertex), emit `+n` for a strip or `−n` for a fan, then each
/// vertex as `(s + 0.5) / skinwidth`, `(t + 0.5) / skinheight`, `index_xyz`; a final 0.
///
/// The strips and fans keep every triangle's winding, so the GL renderer draws the same
/// mesh as the software renderer.
pub fn build_gl_commands(model: &Model) -> Vec<i32> {
    let tris = &model.triangles;
    let edges = Edges::new(tris);
    let mut used = vec![0u8; tris.len()];
    let mut out = Vec::new();
    let w = divisor(model.skin_width);
    let h = divisor(model.skin_height);
    let mut best = Strip::default();
    let mut cur = Strip::default();
    for i in 0..tris.len() {
        if used.get(i).copied().unwrap_or(1) != 0 {
            continue;
        }
        best.clear();
        let mut best_is_strip = false;
        for is_strip in [false, true] {
            for startv in 0..3 {
                cur.clear();
                grow(tris, &edges, &mut used, i, startv, is_strip, &mut cur);
                if cur.tris.len() > best.tris.len() {
                    core::mem::swap(&mut best, &mut cur);
                    best_is_strip = is_strip;
                }
            }
        }
        for &t in &best.tris {
            if let Some(u) = used.get_mut(t) {
                *u = 1;
            }
        }
        let n = i32::try_from(best.verts.len()).unwrap_or(i32::MAX);
        out.push(if best_is_strip { n } else { n.saturating_neg() });
        for &(xyz, st) in &best.verts {
            let st = model.st.get(usize::from(st)).copied().unwrap_or([0, 0]);
            let s = (f32::from(st[0]) + 0.5) / w;
            let t = (f32::from(st[1]) + 0.5) / h;
            out.push(i32::from_ne_bytes(s.to_ne_bytes()));
            out.push(i32::from_ne_bytes(t.to_ne_bytes()));
            out.push(i32::from(xyz));
        }
    }
    out.push(0);
    out
}

fn divisor(n: i32) -> f32 {
    // Skin sizes are checked positive before GL commands are built.
    let v = f64::from(n.max(1));
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    // Round to nearest, as C's int → float conversion does.
    let f = v as f32;
    f
}

#[derive(Default)]
struct Strip {
    verts: Vec<(u16, u16)>,
    tris: Vec<usize>,
}

impl Strip {
    fn clear(&mut self) {
        self.verts.clear();
        self.tris.clear();
    }
}

fn corner(t: &Triangle, k: usize) -> (u16, u16) {
    (
        t.xyz.get(k % 3).copied().unwrap_or(0),
        t.st.get(k % 3).copied().unwrap_or(0),
    )
}

/// A corner: (xyz index, st index).
type Corner = (u16, u16);

/// Every directed edge `corner k → corner k + 1` of every triangle, sorted by
/// (edge, triangle, k): the first triangle after `start` with a given edge is a binary
/// search, not a scan of the triangles after it (which made the builder quadratic).
struct Edges(Vec<(Corner, Corner, usize, usize)>);

impl Edges {
    fn new(tris: &[Triangle]) -> Self {
        let mut v = Vec::with_capacity(tris.len().saturating_mul(3));
        for (j, t) in tris.iter().enumerate() {
            for k in 0..3 {
                v.push((corner(t, k), corner(t, k.wrapping_add(1)), j, k));
            }
        }
        v.sort_unstable();
        Self(v)
    }

    /// The first triangle after `start` with the edge `m1 → m2` (xyz and st equal) at
    /// some corner `k` (the lowest `k` of that triangle); returns (triangle, k).
    fn find_next(&self, start: usize, m1: Corner, m2: Corner) -> Option<(usize, usize)> {
        let at = self.0.partition_point(|&(a, b, j, _)| {
            (a, b) < (m1, m2) || ((a, b) == (m1, m2) && j <= start)
        });
        match self.0.get(at) {
            Some(&(a, b, j, k)) if (a, b) == (m1, m2) => Some((j, k)),
            _ => None,
        }
    }
}

/// qdata's `StripLength` (`strip`) or `FanLength` (not `strip`): the strip or fan grown
/// from triangle `start` entered at corner `startv`, into `s`. A strip swaps which edge
/// end it replaces at each triangle; a fan keeps its first corner.
fn grow(
    tris: &[Triangle],
    edges: &Edges,
    used: &mut [u8],
    start: usize,
    startv: usize,
    strip: bool,
    s: &mut Strip,
) {
    let Some(last) = tris.get(start) else { return };
    if let Some(u) = used.get_mut(start) {
        *u = 2;
    }
    s.verts.push(corner(last, startv));
    s.verts.push(corner(last, startv.wrapping_add(1)));
    s.verts.push(corner(last, startv.wrapping_add(2)));
    s.tris.push(start);
    let (mut m1, mut m2) = if strip {
        (
            corner(last, startv.wrapping_add(2)),
            corner(last, startv.wrapping_add(1)),
        )
    } else {
        (corner(last, startv), corner(last, startv.wrapping_add(2)))
    };
    // qdata restarts the search after each match and stops at the first matching
    // triangle that is already used.
    while let Some((j, k)) = edges.find_next(start, m1, m2) {
        if used.get(j).copied().unwrap_or(1) != 0 {
            break;
        }
        let Some(check) = tris.get(j) else { break };
        let new = corner(check, k.wrapping_add(2));
        if !strip || s.tris.len() % 2 == 1 {
            m2 = new;
        } else {
            m1 = new;
        }
        s.verts.push(new);
        s.tris.push(j);
        if let Some(u) = used.get_mut(j) {
            *u = 2;
        }
    }
    clear_temp(used, s.tris.get(1..).unwrap_or_default());
}

/// Clears the temporary marks (2) after the start triangle, as qdata does. The start
/// triangle keeps its mark 2 until the caller marks the chosen strip 1; qdata's loop
/// starts at `starttri + 1`, so the start stays "used" for the following tries too, which
/// is harmless since every try begins with it. qdata clears every mark 2 after the start;
/// the only ones are the triangles this try took (`taken`, all after the start: earlier
/// triangles are all 1 by then), so only those are visited (a scan to the end per try
/// made the builder quadratic).
fn clear_temp(used: &mut [u8], taken: &[usize]) {
    for &t in taken {
        if let Some(u) = used.get_mut(t)
            && *u == 2
        {
            *u = 0;
        }
    }
}
