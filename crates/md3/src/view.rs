//! The validated view: [`Md3::parse`] checks everything once; the accessors then
//! return slices and exact-size iterators and cannot fail.

use idmodel_core::bytes::{self, Name};
use idmodel_core::{Error, ErrorKind, Result};

use crate::raw;

/// Byte offsets of the header fields, used in error positions: taken from the wire
/// structs with `offset_of!`, so they cannot drift from [`raw`].
mod at {
    use core::mem::offset_of;

    use crate::raw::{Header, SurfaceHeader};

    pub const VERSION: usize = offset_of!(Header, version);
    pub const NUM_FRAMES: usize = offset_of!(Header, num_frames);
    pub const NUM_TAGS: usize = offset_of!(Header, num_tags);
    pub const NUM_SURFACES: usize = offset_of!(Header, num_surfaces);
    pub const OFS_FRAMES: usize = offset_of!(Header, ofs_frames);
    pub const OFS_TAGS: usize = offset_of!(Header, ofs_tags);
    pub const OFS_SURFACES: usize = offset_of!(Header, ofs_surfaces);
    pub const OFS_END: usize = offset_of!(Header, ofs_end);
    // Inside a surface header.
    pub const S_NUM_FRAMES: usize = offset_of!(SurfaceHeader, num_frames);
    pub const S_NUM_SHADERS: usize = offset_of!(SurfaceHeader, num_shaders);
    pub const S_NUM_VERTS: usize = offset_of!(SurfaceHeader, num_verts);
    pub const S_NUM_TRIANGLES: usize = offset_of!(SurfaceHeader, num_triangles);
    pub const S_OFS_TRIANGLES: usize = offset_of!(SurfaceHeader, ofs_triangles);
    pub const S_OFS_SHADERS: usize = offset_of!(SurfaceHeader, ofs_shaders);
    pub const S_OFS_ST: usize = offset_of!(SurfaceHeader, ofs_st);
    pub const S_OFS_XYZ: usize = offset_of!(SurfaceHeader, ofs_xyz_normals);
    pub const S_OFS_END: usize = offset_of!(SurfaceHeader, ofs_end);
    // Inside a triangle: the stride of one triangle and of one of its indices.
    pub const TRIANGLE_SIZE: usize = size_of::<crate::raw::Triangle>();
    pub const INDEX_SIZE: usize = size_of::<zerocopy::little_endian::I32>();

    // The values the error positions have always had (md3Header_t, md3Surface_t).
    const _: () = assert!(VERSION == 4 && NUM_FRAMES == 76 && OFS_END == 104);
    const _: () = assert!(S_NUM_FRAMES == 72 && S_OFS_END == 104 && TRIANGLE_SIZE == 12);
}

const HEADER_SIZE: usize = size_of::<raw::Header>();
const SURFACE_HEADER_SIZE: usize = size_of::<raw::SurfaceHeader>();

/// A parsed, validated MD3 borrowing the file's bytes.
///
/// `parse` checks the magic, the version, every count and offset against `ofsEnd` and
/// the input length (checked arithmetic), the surface chain, every surface's arrays and
/// every triangle index. It never reads vertex data, so its cost does not grow with the
/// number of frames.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use idmodel_md3::{Md3, Model};
/// let bytes = idmodel_md3::write(&Model::example()).unwrap();
/// let md3 = Md3::parse(&bytes)?;
/// assert_eq!(md3.num_frames(), 3);
/// let names: Vec<_> = md3.surfaces().map(|s| s.name().to_string()).collect();
/// assert_eq!(names, ["body", "arm_l"]);
/// let tag = md3.lerp_tag("tag_weapon", 0, 1, 0.5).unwrap();
/// assert!(tag.origin[0] > 0.0);
/// # }
/// # Ok::<(), idmodel_md3::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Md3<'a> {
    /// The whole input (including bytes after `ofsEnd`).
    data: &'a [u8],
    /// `data[..ofsEnd]`: everything the engine loads.
    body: &'a [u8],
    header: &'a raw::Header,
    frames: &'a [raw::Frame],
    tags: &'a [raw::Tag],
    num_tags: usize,
    num_surfaces: usize,
    ofs_surfaces: usize,
}

/// One surface of an [`Md3`]: its header and borrowed arrays.
#[derive(Debug, Clone, Copy)]
pub struct Surface<'a> {
    index: usize,
    offset: usize,
    header: &'a raw::SurfaceHeader,
    shaders: &'a [raw::Shader],
    triangles: &'a [raw::Triangle],
    st: &'a [raw::St],
    xyz_normals: &'a [raw::XyzNormal],
    num_verts: usize,
    num_frames: usize,
}

fn err(kind: ErrorKind, offset: usize) -> Error {
    Error::at(kind, offset)
}

fn field(base: usize, rel: usize) -> usize {
    base.saturating_add(rel)
}

/// `base + rel` for an offset field, refusing a negative or overflowing result.
fn rel_offset(base: usize, value: i32, what: &'static str, at: usize) -> Result<usize> {
    let rel = bytes::offset(value, what, at)?;
    base.checked_add(rel).ok_or_else(|| {
        err(
            ErrorKind::BadOffset {
                what,
                value: i64::from(value),
            },
            at,
        )
    })
}

/// Reads and validates the surface at `pos` of `body`. Returns it and the offset of the
/// next surface. With `check_indices`, every triangle index is checked too.
/// True when every triangle index lies in `0..num_verts` ([`bytes::indices_below`] over
/// the raw words).
fn indices_in_range(triangles: &[raw::Triangle], num_verts: usize) -> bool {
    let words = zerocopy::IntoBytes::as_bytes(triangles)
        .chunks_exact(4)
        .map(|w| <[u8; 4]>::try_from(w).map_or(-1, i32::from_le_bytes));
    bytes::indices_below(words, num_verts)
}

fn read_surface(
    body: &[u8],
    pos: usize,
    index: usize,
    check_indices: bool,
) -> Result<(Surface<'_>, usize)> {
    let h = bytes::read_at::<raw::SurfaceHeader>(body, pos)?;
    let num_frames = bytes::count(
        h.num_frames.get(),
        "surface numFrames",
        field(pos, at::S_NUM_FRAMES),
    )?;
    let num_shaders = bytes::count(
        h.num_shaders.get(),
        "surface numShaders",
        field(pos, at::S_NUM_SHADERS),
    )?;
    let num_verts = bytes::count(
        h.num_verts.get(),
        "surface numVerts",
        field(pos, at::S_NUM_VERTS),
    )?;
    let num_triangles = bytes::count(
        h.num_triangles.get(),
        "surface numTriangles",
        field(pos, at::S_NUM_TRIANGLES),
    )?;
    let ofs_shaders = rel_offset(
        pos,
        h.ofs_shaders.get(),
        "surface ofsShaders",
        field(pos, at::S_OFS_SHADERS),
    )?;
    let ofs_triangles = rel_offset(
        pos,
        h.ofs_triangles.get(),
        "surface ofsTriangles",
        field(pos, at::S_OFS_TRIANGLES),
    )?;
    let ofs_st = rel_offset(
        pos,
        h.ofs_st.get(),
        "surface ofsSt",
        field(pos, at::S_OFS_ST),
    )?;
    let ofs_xyz = rel_offset(
        pos,
        h.ofs_xyz_normals.get(),
        "surface ofsXyzNormals",
        field(pos, at::S_OFS_XYZ),
    )?;
    let end_at = field(pos, at::S_OFS_END);
    let next = rel_offset(pos, h.ofs_end.get(), "surface ofsEnd", end_at)?;
    // A surface must move the chain forward by at least its own header, and stay inside
    // the model: this bounds the walk by the file size whatever numSurfaces says.
    let bad_end = || {
        err(
            ErrorKind::BadOffset {
                what: "surface ofsEnd",
                value: i64::from(h.ofs_end.get()),
            },
            end_at,
        )
    };
    if next < pos.saturating_add(SURFACE_HEADER_SIZE) || next > body.len() {
        return Err(bad_end());
    }
    let shaders = bytes::slice_at::<raw::Shader>(body, ofs_shaders, num_shaders)?;
    let triangles = bytes::slice_at::<raw::Triangle>(body, ofs_triangles, num_triangles)?;
    let st = bytes::slice_at::<raw::St>(body, ofs_st, num_verts)?;
    let total = num_verts.checked_mul(num_frames).ok_or_else(|| {
        err(
            ErrorKind::BadCount {
                what: "surface numVerts × numFrames",
                value: i64::from(h.num_verts.get()),
            },
            field(pos, at::S_NUM_VERTS),
        )
    })?;
    let xyz_normals = bytes::slice_at::<raw::XyzNormal>(body, ofs_xyz, total)?;
    // Branch-free first, and the search for the first bad index, with its position,
    // only when there is one.
    if check_indices && !indices_in_range(triangles, num_verts) {
        for (t, tri) in triangles.iter().enumerate() {
            for (k, i) in tri.indexes.iter().enumerate() {
                let v = i.get();
                let ok = usize::try_from(v).is_ok_and(|v| v < num_verts);
                if !ok {
                    let at = ofs_triangles
                        .saturating_add(t.saturating_mul(at::TRIANGLE_SIZE))
                        .saturating_add(k.saturating_mul(at::INDEX_SIZE));
                    return Err(err(
                        ErrorKind::IndexOutOfRange {
                            what: "triangle vertex index",
                            index: i64::from(v),
                            len: u64::try_from(num_verts).unwrap_or(u64::MAX),
                        },
                        at,
                    ));
                }
            }
        }
    }
    let surface = Surface {
        index,
        offset: pos,
        header: h,
        shaders,
        triangles,
        st,
        xyz_normals,
        num_verts,
        num_frames,
    };
    Ok((surface, next))
}

/// The magics of the formats an MD3 is mistaken for, named in the `BadMagic` refusal.
const NEIGHBOURS: [(&[u8; 4], &str); 6] = [
    (b"IDP2", "a Quake II MD2 model"),
    (b"IDPO", "a Quake MDL model"),
    (b"IDP4", "a Quake III MD4 model"),
    (b"RDM5", "an MDR model"),
    (b"IDPC", "a Return to Castle Wolfenstein MDC model"),
    (b"IDST", "a Half-Life studio model"),
];

impl<'a> Md3<'a> {
    /// Parses and validates `data`. See the type docs for what is checked.
    ///
    /// Refused (with the byte offset and the bad value): a short header, a magic that is
    /// not `IDP3` (known neighbours are named), a version other than 15, `numFrames < 1`,
    /// negative counts or offsets, `ofsEnd` past the input or inside the header, any
    /// array outside `ofsEnd`, a surface whose `ofsEnd` does not move forward by at
    /// least its header or leaves the model, triangle indices `>= numVerts`, and a
    /// surface without vertices whose `numFrames` exceeds the header's (no bytes back
    /// that count, so it would drive loops and allocations unchecked).
    ///
    /// Accepted (and reported by [`check`](Self::check) where the engines care): no
    /// surfaces, bytes after `ofsEnd`, counts above the `MD3_MAX_*` values, surface frame
    /// counts that differ from the header's.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = bytes::read_at::<raw::Header>(data, 0)?;
        if header.ident != raw::IDENT {
            let kind = NEIGHBOURS
                .iter()
                .find(|(magic, _)| **magic == header.ident)
                .map_or(ErrorKind::BadMagic(header.ident), |&(_, found)| {
                    ErrorKind::WrongFormat { found }
                });
            return Err(err(kind, 0));
        }
        let version = header.version.get();
        if version != raw::VERSION {
            return Err(err(ErrorKind::UnsupportedVersion(version), at::VERSION));
        }
        let ofs_end_value = header.ofs_end.get();
        let ofs_end = bytes::offset(ofs_end_value, "ofsEnd", at::OFS_END)?;
        if ofs_end < HEADER_SIZE {
            return Err(err(
                ErrorKind::BadOffset {
                    what: "ofsEnd",
                    value: i64::from(ofs_end_value),
                },
                at::OFS_END,
            ));
        }
        let body = data.get(..ofs_end).ok_or_else(|| {
            err(
                ErrorKind::Truncated {
                    needed: u64::try_from(ofs_end).unwrap_or(u64::MAX),
                    available: u64::try_from(data.len()).unwrap_or(u64::MAX),
                },
                0,
            )
        })?;
        let num_frames =
            bytes::positive_count(header.num_frames.get(), "numFrames", at::NUM_FRAMES)?;
        let num_tags = bytes::count(header.num_tags.get(), "numTags", at::NUM_TAGS)?;
        let num_surfaces =
            bytes::count(header.num_surfaces.get(), "numSurfaces", at::NUM_SURFACES)?;
        let ofs_frames = bytes::offset(header.ofs_frames.get(), "ofsFrames", at::OFS_FRAMES)?;
        let ofs_tags = bytes::offset(header.ofs_tags.get(), "ofsTags", at::OFS_TAGS)?;
        let ofs_surfaces =
            bytes::offset(header.ofs_surfaces.get(), "ofsSurfaces", at::OFS_SURFACES)?;
        let frames = bytes::slice_at::<raw::Frame>(body, ofs_frames, num_frames)?;
        let total_tags = num_tags.checked_mul(num_frames).ok_or_else(|| {
            err(
                ErrorKind::BadCount {
                    what: "numTags × numFrames",
                    value: i64::from(header.num_tags.get()),
                },
                at::NUM_TAGS,
            )
        })?;
        let tags = bytes::slice_at::<raw::Tag>(body, ofs_tags, total_tags)?;
        // Each surface advances the chain by at least one header, so this loop is bounded
        // by the file size even when numSurfaces is huge.
        let mut pos = ofs_surfaces;
        for i in 0..num_surfaces {
            let (surface, next) = read_surface(body, pos, i, true)?;
            // A surface without vertices has no bytes behind its frame count: refuse a
            // count above the header's (it would drive loops and allocations unchecked).
            if surface.num_verts() == 0 && surface.num_frames() > num_frames {
                return Err(err(
                    ErrorKind::TooMany {
                        what: "surface numFrames (surface without vertices)",
                        count: u64::try_from(surface.num_frames()).unwrap_or(u64::MAX),
                        max: u64::try_from(num_frames).unwrap_or(u64::MAX),
                    },
                    field(pos, at::S_NUM_FRAMES),
                ));
            }
            pos = next;
        }
        Ok(Self {
            data,
            body,
            header,
            frames,
            tags,
            num_tags,
            num_surfaces,
            ofs_surfaces,
        })
    }

    /// The raw header.
    pub fn header(&self) -> &'a raw::Header {
        self.header
    }

    /// The model name from the header (unused by the engine).
    pub fn name(&self) -> Name<'a> {
        Name::from_field(&self.header.name)
    }

    /// `numFrames` (at least 1).
    pub fn num_frames(&self) -> usize {
        self.frames.len()
    }

    /// The frames' bounds, cull spheres and names.
    pub fn frames(&self) -> &'a [raw::Frame] {
        self.frames
    }

    /// `numTags`: tags per frame.
    pub fn num_tags(&self) -> usize {
        self.num_tags
    }

    /// Every tag, frame-major (`frame * num_tags + tag`).
    pub fn all_tags(&self) -> &'a [raw::Tag] {
        self.tags
    }

    /// The tags of `frame`, or `None` when `frame >= num_frames`.
    pub fn frame_tags(&self, frame: usize) -> Option<&'a [raw::Tag]> {
        let start = frame.checked_mul(self.num_tags)?;
        let end = start.checked_add(self.num_tags)?;
        self.tags.get(start..end)
    }

    /// The tag names of frame 0, the ones the engine searches.
    pub fn tag_names(&self) -> impl ExactSizeIterator<Item = Name<'a>> + 'a {
        self.frame_tags(0).unwrap_or(&[]).iter().map(raw::Tag::name)
    }

    /// `numSurfaces`.
    pub fn num_surfaces(&self) -> usize {
        self.num_surfaces
    }

    /// The surfaces, in file order.
    pub fn surfaces(&self) -> Surfaces<'a> {
        Surfaces {
            body: self.body,
            pos: self.ofs_surfaces,
            next_index: 0,
            remaining: self.num_surfaces,
        }
    }

    /// Surface `i` (walks the chain from the first surface), or `None` when out of range.
    pub fn surface(&self, i: usize) -> Option<Surface<'a>> {
        self.surfaces().nth(i)
    }

    /// The bytes the engine loads: `data[..ofsEnd]`.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// The whole input: [`Md3::body`] followed by [`Md3::trailing_bytes`].
    pub fn file_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// Bytes after `ofsEnd`, which the engine never reads (often a single pad byte).
    pub fn trailing_bytes(&self) -> &'a [u8] {
        self.data.get(self.body.len()..).unwrap_or(&[])
    }

    /// `numSkins` (unused by the engine).
    pub fn num_skins(&self) -> i32 {
        self.header.num_skins.get()
    }

    /// The header `flags` (unused by the engine).
    pub fn flags(&self) -> i32 {
        self.header.flags.get()
    }

    /// The frames the renderer draws for a requested `(frame, oldframe)` pair
    /// (`R_AddMD3Surfaces`): if either is out of range, both become 0.
    pub fn engine_frames(&self, frame: usize, oldframe: usize) -> (usize, usize) {
        let n = self.num_frames();
        if frame >= n || oldframe >= n {
            (0, 0)
        } else {
            (frame, oldframe)
        }
    }
}

/// The surfaces of an [`Md3`], in file order (from [`Md3::surfaces`]).
#[derive(Debug, Clone)]
pub struct Surfaces<'a> {
    body: &'a [u8],
    pos: usize,
    next_index: usize,
    remaining: usize,
}

impl<'a> Iterator for Surfaces<'a> {
    type Item = Surface<'a>;

    fn next(&mut self) -> Option<Surface<'a>> {
        if self.remaining == 0 {
            return None;
        }
        // Validated by `parse`: this cannot fail, and on a (impossible) failure the
        // iterator simply ends.
        let Ok((surface, next)) = read_surface(self.body, self.pos, self.next_index, false) else {
            self.remaining = 0;
            return None;
        };
        self.pos = next;
        self.next_index = self.next_index.saturating_add(1);
        self.remaining = self.remaining.saturating_sub(1);
        Some(surface)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Surfaces<'_> {}
impl core::iter::FusedIterator for Surfaces<'_> {}

impl<'a> Surface<'a> {
    /// This surface's index in the file.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Byte offset of this surface's header in the file.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The raw surface header.
    pub fn header(&self) -> &'a raw::SurfaceHeader {
        self.header
    }

    /// The name as stored in the file.
    pub fn name(&self) -> Name<'a> {
        Name::from_field(&self.header.name)
    }

    /// `numVerts`.
    pub fn num_verts(&self) -> usize {
        self.num_verts
    }

    /// This surface's own `numFrames` (may differ from the header's).
    pub fn num_frames(&self) -> usize {
        self.num_frames
    }

    /// The shaders.
    pub fn shaders(&self) -> &'a [raw::Shader] {
        self.shaders
    }

    /// The raw triangles (every index was checked to be `< num_verts`).
    pub fn triangles(&self) -> &'a [raw::Triangle] {
        self.triangles
    }

    /// The triangles as vertex indices.
    pub fn indices(&self) -> impl ExactSizeIterator<Item = [u32; 3]> + 'a {
        self.triangles.iter().map(|t| {
            t.indexes
                .map(|i| u32::try_from(i.get()).unwrap_or_default())
        })
    }

    /// The raw texture coordinates, one per vertex.
    pub fn st(&self) -> &'a [raw::St] {
        self.st
    }

    /// The texture coordinates as stored (t = 0 is the image top).
    pub fn tex_coords(&self) -> impl ExactSizeIterator<Item = [f32; 2]> + 'a {
        self.st.iter().map(raw::St::get)
    }

    /// Every stored vertex, frame-major.
    pub fn all_xyz_normals(&self) -> &'a [raw::XyzNormal] {
        self.xyz_normals
    }

    /// The stored vertices of `frame`, or `None` when `frame >= self.num_frames()`.
    pub fn frame(&self, frame: usize) -> Option<&'a [raw::XyzNormal]> {
        if frame >= self.num_frames {
            return None;
        }
        let start = frame.checked_mul(self.num_verts)?;
        let end = start.checked_add(self.num_verts)?;
        self.xyz_normals.get(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::little_endian::I32;

    /// The branch-free range test agrees with the plain one on every edge value.
    #[test]
    fn indices_in_range_matches_the_plain_test() {
        idmodel_test_support::check_index_range_test(|tris, n| {
            let tri = |t: &[i32; 3]| raw::Triangle {
                indexes: t.map(I32::new),
            };
            let mut buf = [tri(&[0; 3]); 2];
            for (slot, t) in buf.iter_mut().zip(tris) {
                *slot = tri(t);
            }
            indices_in_range(buf.get(..tris.len()).unwrap_or(&buf), n)
        });
    }
}
