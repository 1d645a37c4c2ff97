//! The borrowed view: [`Md2::parse`] validates once, then accessors cannot fail.

use core::fmt;
use core::mem::offset_of;

use idmodel_core::bytes::{self, Name};
use idmodel_core::{Error, ErrorKind, Result};
use zerocopy::FromBytes;
use zerocopy::little_endian::U16;

use crate::raw;

/// Size of [`raw::Header`] in bytes.
pub const HEADER_SIZE: usize = size_of::<raw::Header>();
/// Size of [`raw::FrameHeader`] in bytes: the part of a frame before its vertices.
pub const FRAME_HEADER_SIZE: usize = size_of::<raw::FrameHeader>();

/// A validated Quake II model borrowed from its file bytes.
///
/// Built only by [`Md2::parse`], which checks every count, offset and index once; the
/// accessors then return slices and exact-size iterators and cannot fail.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use idmodel_md2::{Md2, Model};
/// let bytes = idmodel_md2::write(&Model::example())?;
/// let md2 = Md2::parse(&bytes)?;
/// assert_eq!(md2.vertex_count(), 4);
/// assert_eq!(md2.triangles().len(), 4);
/// let frame = md2.frame(0).unwrap();
/// assert_eq!(frame.name(), "stand01");
/// let first = frame.positions().next().unwrap();
/// assert_eq!(first, [0.0, 0.0, 0.0]);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct Md2<'a> {
    data: &'a [u8],
    header: &'a raw::Header,
    skins: &'a [raw::SkinName],
    st: &'a [raw::St],
    triangles: &'a [raw::Triangle],
    frames: &'a [u8],
    framesize: usize,
    num_frames: usize,
    num_xyz: usize,
    glcmds: &'a [u8],
}

impl fmt::Debug for Md2<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Md2")
            .field("bytes", &self.data.len())
            .field("skins", &self.skins.len())
            .field("vertices", &self.num_xyz)
            .field("st", &self.st.len())
            .field("triangles", &self.triangles.len())
            .field("frames", &self.num_frames)
            .field("gl_commands", &self.gl_walk().map_or(0, |g| g.0))
            .finish()
    }
}

/// Borrows a block of `count` elements of `elem` bytes at the offset stored in the header
/// field at `ofs_at`. An empty block is empty whatever its offset says (UFO:AI writes
/// `ofs_glcmds = 0` with no commands).
fn block<'a>(
    data: &'a [u8],
    ofs_value: i32,
    ofs_at: usize,
    what: &'static str,
    count: usize,
    elem: usize,
) -> Result<&'a [u8]> {
    if count == 0 {
        return Ok(&[]);
    }
    let off = bytes::offset(ofs_value, what, ofs_at)?;
    if off > data.len() {
        return Err(Error::at(
            ErrorKind::BadOffset {
                what,
                value: i64::from(ofs_value),
            },
            ofs_at,
        ));
    }
    let len = count.checked_mul(elem).ok_or_else(|| {
        Error::at(
            ErrorKind::Truncated {
                needed: u64::MAX,
                available: u64::try_from(data.len().saturating_sub(off)).unwrap_or(u64::MAX),
            },
            off,
        )
    })?;
    bytes::bytes_at(data, off, len)
}

/// Words in one step of [`index_maxima`]: four triangles, so every lane holds the same
/// field (`index_xyz[k]` or `index_st[k]`) in each step.
const INDEX_LANES: usize = 24;

/// The largest `index_xyz` and `index_st` over the triangles in `tri_bytes` (whole
/// 12-byte triangles, as [`block`] gives them), read as **unsigned** 16-bit numbers, so
/// that a negative index counts as 32768 or more; `(0, 0)` when there are none.
///
/// Written for the vectoriser: running maxima of 24 lanes (four triangles) per step, no
/// branch, no data-dependent index, then the lanes folded by field. One unsigned maximum
/// per word is what makes it vectorise; signed minima and maxima of the same loop did
/// not. On `faerie.md2` (654 triangles) it takes `Md2::parse` from about 20,000
/// instructions to about 2,000 (callgrind), and the scan alone from 1.1 µs to 0.13 µs.
fn index_maxima(tri_bytes: &[u8]) -> (u16, u16) {
    let words = <[U16]>::ref_from_bytes(tri_bytes).unwrap_or(&[]);
    let mut hi = [0u16; INDEX_LANES];
    let mut steps = words.chunks_exact(INDEX_LANES);
    for step in &mut steps {
        // A fixed-size array, so the lane loop unrolls into whole-vector operations.
        let Ok(step) = <&[U16; INDEX_LANES]>::try_from(step) else {
            continue; // chunks_exact: never
        };
        for (h, w) in hi.iter_mut().zip(step) {
            *h = (*h).max(w.get());
        }
    }
    // The last 0–3 triangles: their words start at lane 0 as well.
    for (h, w) in hi.iter_mut().zip(steps.remainder()) {
        *h = (*h).max(w.get());
    }
    let (mut xyz, mut st) = (0u16, 0u16);
    for (lane, h) in hi.iter().enumerate() {
        // Words 0–2 of a triangle are index_xyz, 3–5 index_st.
        if lane % 6 < 3 {
            xyz = xyz.max(*h);
        } else {
            st = st.max(*h);
        }
    }
    (xyz, st)
}

fn word_offset(base: usize, word: usize) -> usize {
    base.saturating_add(word.saturating_mul(4))
}

impl<'a> Md2<'a> {
    /// Parses and validates an MD2 file.
    ///
    /// Refused, with the byte offset and the bad value:
    /// * a short header, a magic other than `IDP2`, a version other than 8;
    /// * what Quake II itself refuses: no vertices, no st, no triangles, no frames
    ///   (`num_* <= 0`); negative `num_skins` or `num_glcmds`;
    /// * a `framesize` smaller than `40 + 4·num_xyz` (the engine uses it as the stride);
    /// * any block (skins, st, triangles, frames, GL commands) that does not fit in `data`,
    ///   or a negative offset; an empty block's offset is ignored;
    /// * a triangle `index_xyz` outside `0..num_xyz` or `index_st` outside `0..num_st`.
    ///
    /// The GL command stream is only bounded here (its block must fit in `data`); it is
    /// walked and validated when it is first asked for (strip/fan headers, 3 words per
    /// vertex, vertex indices below `num_xyz`, a terminating 0 within `num_glcmds`:
    /// [`Md2::gl_commands_checked`], [`Md2::gl_commands`], [`Md2::check`]), and a bad one
    /// is set aside rather than refused, because Quake II loads such files and real ones
    /// exist: see [`Md2::gl_commands_error`] and [`Md2::parse_strict`] (which walks it).
    ///
    /// Accepted although odd (see [`Md2::check`]): engine limits such as more than 2048
    /// vertices, a skin taller than 480, no GL commands at all (`num_glcmds = 0`),
    /// zero skins, frame names with any bytes, trailing data, and `ofs_end` disagreeing
    /// with the file length.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = bytes::read_at::<raw::Header>(data, 0)?;
        if header.ident != raw::MAGIC {
            let kind = match &header.ident {
                b"IDPO" => ErrorKind::WrongFormat {
                    found: "a Quake MDL (IDPO)",
                },
                b"IDP3" => ErrorKind::WrongFormat {
                    found: "a Quake III MD3 (IDP3)",
                },
                b"IDS2" => ErrorKind::WrongFormat {
                    found: "a Quake II sprite (IDS2)",
                },
                _ => ErrorKind::BadMagic(header.ident),
            };
            return Err(Error::at(kind, 0));
        }
        let version = header.version.get();
        if version != raw::VERSION {
            return Err(Error::at(
                ErrorKind::UnsupportedVersion(version),
                offset_of!(raw::Header, version),
            ));
        }
        // The order of Quake II's own refusals (Mod_LoadAliasModel).
        let num_xyz = bytes::positive_count(
            header.num_xyz.get(),
            "num_xyz",
            offset_of!(raw::Header, num_xyz),
        )?;
        let num_st = bytes::positive_count(
            header.num_st.get(),
            "num_st",
            offset_of!(raw::Header, num_st),
        )?;
        let num_tris = bytes::positive_count(
            header.num_tris.get(),
            "num_tris",
            offset_of!(raw::Header, num_tris),
        )?;
        let num_frames = bytes::positive_count(
            header.num_frames.get(),
            "num_frames",
            offset_of!(raw::Header, num_frames),
        )?;
        let num_skins = bytes::count(
            header.num_skins.get(),
            "num_skins",
            offset_of!(raw::Header, num_skins),
        )?;
        let num_glcmds = bytes::count(
            header.num_glcmds.get(),
            "num_glcmds",
            offset_of!(raw::Header, num_glcmds),
        )?;

        let framesize_value = header.framesize.get();
        let min_framesize = num_xyz
            .checked_mul(size_of::<raw::TriVertex>())
            .and_then(|n| n.checked_add(FRAME_HEADER_SIZE));
        let framesize = match (usize::try_from(framesize_value), min_framesize) {
            (Ok(fs), Some(min)) if fs >= min => fs,
            _ => {
                return Err(Error::at(
                    ErrorKind::BadValue {
                        what: "framesize (below 40 + 4 * num_xyz)",
                        value: i64::from(framesize_value),
                    },
                    offset_of!(raw::Header, framesize),
                ));
            }
        };

        let skin_bytes = block(
            data,
            header.ofs_skins.get(),
            offset_of!(raw::Header, ofs_skins),
            "ofs_skins",
            num_skins,
            size_of::<raw::SkinName>(),
        )?;
        let st_bytes = block(
            data,
            header.ofs_st.get(),
            offset_of!(raw::Header, ofs_st),
            "ofs_st",
            num_st,
            size_of::<raw::St>(),
        )?;
        let tri_bytes = block(
            data,
            header.ofs_tris.get(),
            offset_of!(raw::Header, ofs_tris),
            "ofs_tris",
            num_tris,
            size_of::<raw::Triangle>(),
        )?;
        let frames = block(
            data,
            header.ofs_frames.get(),
            offset_of!(raw::Header, ofs_frames),
            "ofs_frames",
            num_frames,
            framesize,
        )?;
        let glcmds = block(
            data,
            header.ofs_glcmds.get(),
            offset_of!(raw::Header, ofs_glcmds),
            "ofs_glcmds",
            num_glcmds,
            4,
        )?;
        let skins = bytes::slice_at::<raw::SkinName>(skin_bytes, 0, num_skins)?;
        let st = bytes::slice_at::<raw::St>(st_bytes, 0, num_st)?;
        let triangles = bytes::slice_at::<raw::Triangle>(tri_bytes, 0, num_tris)?;

        // Triangle index ranges (the engine does not check them: UB). A branch-free scan
        // of the extremes first (it vectorises); the walk that names the first bad index
        // only on failure.
        // As unsigned numbers, a negative index is 32768 or more, and no valid index
        // (an i16) reaches 32768: so "outside 0..n" is "at least min(n, 32768)".
        let lim = |n: usize| u16::try_from(n).unwrap_or(u16::MAX).min(0x8000);
        let (xyz_max, st_max) = index_maxima(tri_bytes);
        let any_bad = (xyz_max >= lim(num_xyz)) | (st_max >= lim(num_st));
        let ofs_tris = usize::try_from(header.ofs_tris.get()).unwrap_or(0);
        for (i, tri) in triangles
            .iter()
            .enumerate()
            .take(if any_bad { usize::MAX } else { 0 })
        {
            let tri_at = word_offset(ofs_tris, i.saturating_mul(3));
            for (k, idx) in tri.index_xyz.iter().enumerate() {
                check_index(
                    idx.get(),
                    num_xyz,
                    "triangle index_xyz",
                    tri_at.saturating_add(k.saturating_mul(2)),
                )?;
            }
            for (k, idx) in tri.index_st.iter().enumerate() {
                check_index(
                    idx.get(),
                    num_st,
                    "triangle index_st",
                    tri_at
                        .saturating_add(offset_of!(raw::Triangle, index_st))
                        .saturating_add(k.saturating_mul(2)),
                )?;
            }
        }

        // The GL command list is walked when it is first asked for ([`Md2::gl_walk`]),
        // not here: loading a model for the triangle list never pays for it.
        Ok(Self {
            data,
            header,
            skins,
            st,
            triangles,
            frames,
            framesize,
            num_frames,
            num_xyz,
            glcmds,
        })
    }

    /// [`Md2::parse`], but also refuses a GL command list that [`Md2::parse`] sets aside
    /// (see [`Md2::gl_commands_error`]).
    pub fn parse_strict(data: &'a [u8]) -> Result<Self> {
        let md2 = Self::parse(data)?;
        md2.gl_walk()?;
        Ok(md2)
    }

    /// Walks the GL command list (every call: the view stays a small `Copy` type with
    /// nothing cached): `(commands, vertices, triangles)`, or why it is set aside.
    fn gl_walk(&self) -> Result<(usize, usize, usize)> {
        let base = usize::try_from(self.header.ofs_glcmds.get()).unwrap_or(0);
        validate_glcmds(self.glcmds, base, self.num_xyz, GlLayout::Quake2)
    }

    /// Why the GL command list was set aside, when it was: it overruns `num_glcmds`, has
    /// no terminating 0 within it, or names a vertex outside `0..num_xyz`. Quake II's GL
    /// renderer would read out of bounds on such a list; the loader does not check it, and
    /// two UFO:AI files in the corpus (vertices written as `index, s, t`) have one, so the
    /// model still parses: [`Md2::gl_commands`] is then empty and [`Md2::check`] reports it.
    ///
    /// [`Md2::parse`] does not walk the list; this does (each call), as do the other GL
    /// accessors.
    pub fn gl_commands_error(&self) -> Option<Error> {
        self.gl_walk().err()
    }

    /// True when a GL command list is present but laid out as `index, s, t` per vertex
    /// (instead of `s, t, index`) and valid that way, as some UFO:AI exporters wrote it.
    /// Such a list is not decoded (Quake II would not read it that way either).
    pub fn gl_commands_look_swapped(&self) -> bool {
        self.gl_commands_error().is_some() && {
            let base = usize::try_from(self.header.ofs_glcmds.get()).unwrap_or(0);
            validate_glcmds(self.glcmds, base, self.num_xyz, GlLayout::IndexFirst).is_ok()
        }
    }

    /// The whole input, as given to [`Md2::parse`].
    pub const fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The raw header.
    pub const fn header(&self) -> &'a raw::Header {
        self.header
    }

    /// `skinwidth` from the header (Quake II does not check it; see [`Md2::check`]).
    pub fn skin_width(&self) -> i32 {
        self.header.skinwidth.get()
    }

    /// `skinheight` from the header.
    pub fn skin_height(&self) -> i32 {
        self.header.skinheight.get()
    }

    /// The frame stride in bytes (`framesize`, at least `40 + 4 · vertex_count()`).
    pub const fn frame_size(&self) -> usize {
        self.framesize
    }

    /// Vertices per frame (`num_xyz`, at least 1).
    pub const fn vertex_count(&self) -> usize {
        self.num_xyz
    }

    /// The raw skin name fields (64 bytes each, NUL-padded).
    pub const fn skin_fields(&self) -> &'a [raw::SkinName] {
        self.skins
    }

    /// The skin names, borrowed up to their first NUL (`.pcx` paths for the engine to
    /// resolve; the library opens no file).
    pub fn skins(&self) -> impl ExactSizeIterator<Item = Name<'a>> + DoubleEndedIterator + 'a {
        self.skins.iter().map(|s| Name::from_field(&s.name))
    }

    /// Skin name `i`, or `None` past the end.
    pub fn skin(&self, i: usize) -> Option<Name<'a>> {
        self.skins.get(i).map(|s| Name::from_field(&s.name))
    }

    /// The texture coordinates in skin texels (at least one).
    pub const fn st(&self) -> &'a [raw::St] {
        self.st
    }

    /// The triangles of the software renderer (at least one; every index is in range).
    pub const fn triangles(&self) -> &'a [raw::Triangle] {
        self.triangles
    }

    /// Triangle `i` as plain indices, or `None` past the end.
    pub fn triangle(&self, i: usize) -> Option<Triangle> {
        self.triangles.get(i).map(Triangle::from_raw)
    }

    /// The number of frames (at least one).
    pub const fn frame_count(&self) -> usize {
        self.num_frames
    }

    /// Frame `i`, or `None` past the end.
    pub fn frame(&self, i: usize) -> Option<Frame<'a>> {
        let start = i.checked_mul(self.framesize)?;
        let bytes = bytes::bytes_at(self.frames, start, self.framesize).ok()?;
        let header = bytes::read_at::<raw::FrameHeader>(bytes, 0).ok()?;
        let vertices =
            bytes::slice_at::<raw::TriVertex>(bytes, FRAME_HEADER_SIZE, self.num_xyz).ok()?;
        Some(Frame { header, vertices })
    }

    /// Frame `i` with the engine's fallback: an out-of-range frame number is replaced by
    /// frame 0, as `R_DrawAliasModel` does (after printing a message).
    pub fn frame_or_first(&self, i: usize) -> Frame<'a> {
        match self.frame(i) {
            Some(f) => f,
            // Frame 0 exists: parse refuses num_frames < 1.
            None => self.frame(0).unwrap_or(Frame {
                header: &EMPTY_FRAME,
                vertices: &[],
            }),
        }
    }

    /// All frames in order.
    pub fn frames(&self) -> Frames<'a> {
        Frames {
            md2: *self,
            next: 0,
            end: self.num_frames,
        }
    }

    /// The number of 32-bit GL command words in the file (`num_glcmds`, possibly 0).
    pub fn gl_command_words(&self) -> usize {
        self.glcmds.len() / 4
    }

    /// True when the file has a GL command list (`num_glcmds > 0`).
    pub fn has_gl_commands(&self) -> bool {
        !self.glcmds.is_empty()
    }

    /// The raw GL command words (`num_glcmds` of them, also when set aside).
    pub fn gl_command_bytes(&self) -> &'a [u8] {
        self.glcmds
    }

    /// The GL commands (strips and fans) up to the terminating 0; empty when the file has
    /// none or when they were set aside ([`Md2::gl_commands_error`]).
    pub fn gl_commands(&self) -> GlCommands<'a> {
        self.gl_walked().0
    }

    /// The GL commands, checked now: the validated iterator ([`Md2::gl_commands`]), or
    /// the error that sets the list aside ([`Md2::gl_commands_error`]). An empty iterator
    /// when the file has none.
    pub fn gl_commands_checked(&self) -> Result<GlCommands<'a>> {
        let (commands, _, _) = self.gl_walk()?;
        Ok(GlCommands {
            rest: self.glcmds,
            remaining: commands,
        })
    }

    /// One walk of the GL command list: the validated commands and their vertex and
    /// triangle totals (empty and 0 when the list is set aside), for callers that need
    /// more than one of them (each accessor walks the list again).
    pub(crate) fn gl_walked(&self) -> (GlCommands<'a>, usize, usize) {
        let (commands, vertices, triangles) = self.gl_walk().unwrap_or((0, 0, 0));
        let rest = if commands == 0 { &[] } else { self.glcmds };
        (
            GlCommands {
                rest,
                remaining: commands,
            },
            vertices,
            triangles,
        )
    }

    /// Total vertices over all GL commands (0 when the list is set aside).
    pub fn gl_vertex_count(&self) -> usize {
        self.gl_walk().map_or(0, |g| g.1)
    }

    /// Total triangles the GL commands draw (`n − 2` per strip or fan of `n` vertices; 0
    /// when the list is set aside).
    pub fn gl_triangle_count(&self) -> usize {
        self.gl_walk().map_or(0, |g| g.2)
    }
}

static EMPTY_FRAME: raw::FrameHeader = raw::FrameHeader {
    scale: [zerocopy::little_endian::F32::ZERO; 3],
    translate: [zerocopy::little_endian::F32::ZERO; 3],
    name: [0; 16],
};

fn check_index(index: i16, len: usize, what: &'static str, at: usize) -> Result<()> {
    match usize::try_from(index) {
        Ok(i) if i < len => Ok(()),
        _ => Err(Error::at(
            ErrorKind::IndexOutOfRange {
                what,
                index: i64::from(index),
                len: u64::try_from(len).unwrap_or(u64::MAX),
            },
            at,
        )),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GlLayout {
    /// `s, t, index` per vertex, as qfiles.h says.
    Quake2,
    /// `index, s, t`, as some UFO:AI exporters wrote.
    IndexFirst,
}

/// Walks the GL command words: returns (commands, vertices, triangles).
fn validate_glcmds(
    glcmds: &[u8],
    base: usize,
    num_xyz: usize,
    layout: GlLayout,
) -> Result<(usize, usize, usize)> {
    if glcmds.is_empty() {
        return Ok((0, 0, 0));
    }
    let words = glcmds.len() / 4;
    let mut pos = 0usize;
    let (mut commands, mut vertices, mut triangles) = (0usize, 0usize, 0usize);
    loop {
        let at = word_offset(base, pos);
        let Ok(word) =
            bytes::read_at::<zerocopy::little_endian::I32>(glcmds, pos.saturating_mul(4))
        else {
            return Err(Error::at(
                ErrorKind::Invalid("GL command list has no terminating 0 within num_glcmds"),
                at,
            ));
        };
        let n = word.get();
        pos = pos.saturating_add(1);
        if n == 0 {
            return Ok((commands, vertices, triangles));
        }
        let count = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
        let need = count.saturating_mul(3);
        let left = words.saturating_sub(pos);
        if need > left {
            return Err(Error::at(
                ErrorKind::Truncated {
                    needed: u64::try_from(need.saturating_mul(4)).unwrap_or(u64::MAX),
                    available: u64::try_from(left.saturating_mul(4)).unwrap_or(u64::MAX),
                },
                word_offset(base, pos),
            ));
        }
        let verts = bytes::slice_at::<raw::GlVertex>(glcmds, pos.saturating_mul(4), count)?;
        for (j, v) in verts.iter().enumerate() {
            let (index, word) = match layout {
                GlLayout::Quake2 => (v.index_xyz.get(), 2usize),
                GlLayout::IndexFirst => (i32::from_le_bytes(v.s.get().to_le_bytes()), 0),
            };
            match usize::try_from(index) {
                Ok(i) if i < num_xyz => {}
                _ => {
                    return Err(Error::at(
                        ErrorKind::IndexOutOfRange {
                            what: "GL command vertex index",
                            index: i64::from(index),
                            len: u64::try_from(num_xyz).unwrap_or(u64::MAX),
                        },
                        word_offset(
                            base,
                            pos.saturating_add(j.saturating_mul(3)).saturating_add(word),
                        ),
                    ));
                }
            }
        }
        pos = pos.saturating_add(need);
        commands = commands.saturating_add(1);
        vertices = vertices.saturating_add(count);
        triangles = triangles.saturating_add(count.saturating_sub(2));
    }
}

/// A triangle of the software renderer's list, as plain indices (validated in range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Triangle {
    /// Indices into each frame's vertices.
    pub xyz: [u16; 3],
    /// Indices into [`Md2::st`].
    pub st: [u16; 3],
}

impl Triangle {
    /// Converts a raw triangle; negative indices (refused by parse) become 0.
    pub fn from_raw(t: &raw::Triangle) -> Self {
        let c = |i: &zerocopy::little_endian::I16| u16::try_from(i.get()).unwrap_or(0);
        Self {
            xyz: [c(&t.index_xyz[0]), c(&t.index_xyz[1]), c(&t.index_xyz[2])],
            st: [c(&t.index_st[0]), c(&t.index_st[1]), c(&t.index_st[2])],
        }
    }
}

/// One animation frame: scale, translate, name and `vertex_count()` packed vertices.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    header: &'a raw::FrameHeader,
    vertices: &'a [raw::TriVertex],
}

impl<'a> Frame<'a> {
    /// The raw 40-byte frame header.
    pub const fn header(&self) -> &'a raw::FrameHeader {
        self.header
    }

    /// The frame name up to its first NUL (any bytes; 16 without a NUL are kept whole).
    pub fn name(&self) -> Name<'a> {
        Name::from_field(&self.header.name)
    }

    /// Per-axis scale.
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// Per-axis translation.
    pub fn translate(&self) -> [f32; 3] {
        self.header.translate.map(|v| v.get())
    }

    /// The packed vertices.
    pub const fn vertices(&self) -> &'a [raw::TriVertex] {
        self.vertices
    }
}

/// Iterator over [`Md2::frames`].
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    md2: Md2<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Frames<'a> {
    type Item = Frame<'a>;
    fn next(&mut self) -> Option<Frame<'a>> {
        if self.next >= self.end {
            return None;
        }
        let f = self.md2.frame(self.next);
        self.next = self.next.saturating_add(1);
        f
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Frames<'_> {}

impl DoubleEndedIterator for Frames<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        self.end = self.end.saturating_sub(1);
        self.md2.frame(self.end)
    }
}

/// Whether a GL command is a strip or a fan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlKind {
    /// A triangle strip (positive count): triangle `i` is `(i, i+1, i+2)` for even `i`,
    /// `(i+1, i, i+2)` for odd `i`, as `GL_TRIANGLE_STRIP` draws it.
    Strip,
    /// A triangle fan (negative count): triangle `i` is `(0, i+1, i+2)`.
    Fan,
}

/// One GL command: a strip or fan over vertices with their own UVs.
#[derive(Debug, Clone, Copy)]
pub struct GlCommand<'a> {
    /// Strip or fan.
    pub kind: GlKind,
    /// The vertices (validated: every index is below `vertex_count()`).
    pub vertices: &'a [raw::GlVertex],
}

impl GlCommand<'_> {
    /// The number of triangles this command draws (`n − 2`, or 0 for fewer than 3 vertices).
    pub fn triangle_count(&self) -> usize {
        self.vertices.len().saturating_sub(2)
    }

    /// Triangle `i` of this command as positions in [`GlCommand::vertices`].
    pub fn triangle(&self, i: usize) -> Option<[usize; 3]> {
        if i >= self.triangle_count() {
            return None;
        }
        let (a, b, c) = (i, i.checked_add(1)?, i.checked_add(2)?);
        Some(match self.kind {
            GlKind::Strip if i % 2 == 1 => [b, a, c],
            GlKind::Strip => [a, b, c],
            GlKind::Fan => [0, b, c],
        })
    }
}

/// Iterator over [`Md2::gl_commands`].
#[derive(Debug, Clone)]
pub struct GlCommands<'a> {
    rest: &'a [u8],
    remaining: usize,
}

impl<'a> Iterator for GlCommands<'a> {
    type Item = GlCommand<'a>;
    fn next(&mut self) -> Option<GlCommand<'a>> {
        let remaining = self.remaining.checked_sub(1)?;
        let n = bytes::read_at::<zerocopy::little_endian::I32>(self.rest, 0)
            .ok()?
            .get();
        let count = usize::try_from(n.unsigned_abs()).ok()?;
        let vertices = bytes::slice_at::<raw::GlVertex>(self.rest, 4, count).ok()?;
        let used = size_of_val(vertices).checked_add(4)?;
        self.rest = self.rest.get(used..).unwrap_or(&[]);
        self.remaining = remaining;
        Some(GlCommand {
            kind: if n > 0 { GlKind::Strip } else { GlKind::Fan },
            vertices,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for GlCommands<'_> {}
