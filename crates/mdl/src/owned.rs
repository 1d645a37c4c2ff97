//! The owned model (behind `alloc`), its conversion from the borrowed view, the writer
//! and position quantisation.

use alloc::vec;
use alloc::vec::Vec;
use core::mem::offset_of;

use idmodel_core::{Error, ErrorKind, Result};
use zerocopy::IntoBytes;
use zerocopy::little_endian::{F32, I32};

use crate::raw::{self, TriVertex};
use crate::{Flags, Mdl};

/// A texture coordinate (`stvert_t`), owned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TexCoord {
    /// `onseam`: 0, or 0x20 (`ALIAS_ONSEAM`) for seam vertices; other values are kept.
    pub onseam: i32,
    /// `s` in texels.
    pub s: i32,
    /// `t` in texels (0 = top row).
    pub t: i32,
}

/// A triangle (`dtriangle_t`), owned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tri {
    /// `facesfront` as stored (engines only test it for zero).
    pub faces_front: i32,
    /// Vertex indices, each `< texcoords.len()`.
    pub vertices: [u32; 3],
}

/// One skin entry, owned.
#[derive(Debug, Clone, PartialEq)]
pub enum SkinData {
    /// A single 8-bit image of `width × height` palette indices.
    Single(Vec<u8>),
    /// A group: one interval per image.
    Group {
        /// Intervals in seconds (the software renderer reads them as cumulative end times).
        intervals: Vec<f32>,
        /// The images, each `width × height` palette indices.
        images: Vec<Vec<u8>>,
    },
}

impl SkinData {
    /// Resizes every image to `len` bytes (padding with index 0); a helper for editing
    /// the skin size.
    pub fn resize_images(&mut self, len: usize) {
        match self {
            SkinData::Single(image) => image.resize(len, 0),
            SkinData::Group { images, .. } => images.iter_mut().for_each(|i| i.resize(len, 0)),
        }
    }
}

/// One pose, owned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PoseData {
    /// The 16-byte NUL-padded name field as stored.
    pub name: [u8; 16],
    /// Packed lower bound.
    pub bbox_min: TriVertex,
    /// Packed upper bound.
    pub bbox_max: TriVertex,
    /// The packed vertices, one per texture coordinate.
    pub vertices: Vec<TriVertex>,
}

impl PoseData {
    /// Builds a name field from `name` (cut to 16 bytes; NUL-padded when shorter).
    pub fn name_field(name: &str) -> [u8; 16] {
        let mut field = [0u8; 16];
        for (f, b) in field.iter_mut().zip(name.bytes()) {
            *f = b;
        }
        field
    }

    /// Sets the bounds to the per-axis minimum and maximum of the vertices
    /// ([`PoseData::vertex_bounds`]).
    pub fn compute_bounds(&mut self) {
        let (min, max) = self.vertex_bounds();
        self.bbox_min.v = min;
        self.bbox_max.v = max;
    }

    /// The per-axis minimum and maximum of the packed vertices (what modelgen writes
    /// as the bounds, and [`PoseData::compute_bounds`] sets); zeros when there are none.
    ///
    /// ```
    /// use idmodel_mdl::PoseData;
    /// use idmodel_mdl::raw::TriVertex;
    /// let pose = PoseData {
    ///     vertices: vec![
    ///         TriVertex { v: [3, 9, 1], light_normal_index: 0 },
    ///         TriVertex { v: [7, 2, 5], light_normal_index: 0 },
    ///     ],
    ///     ..PoseData::default()
    /// };
    /// assert_eq!(pose.vertex_bounds(), ([3, 2, 1], [7, 9, 5]));
    /// ```
    pub fn vertex_bounds(&self) -> ([u8; 3], [u8; 3]) {
        // Four vertices (16 bytes, normal bytes included) a step, lane by lane: loops
        // that compile to whole-vector minima and maxima; then the lanes of each axis.
        const LANES: usize = 16;
        let bytes = zerocopy::IntoBytes::as_bytes(self.vertices.as_slice());
        let mut lo = [u8::MAX; LANES];
        let mut hi = [0u8; LANES];
        let mut steps = bytes.chunks_exact(LANES);
        for step in &mut steps {
            if let Ok(step) = <&[u8; LANES]>::try_from(step) {
                for ((l, h), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(step) {
                    *l = (*l).min(b);
                    *h = (*h).max(b);
                }
            }
        }
        for ((l, h), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(steps.remainder()) {
            *l = (*l).min(b);
            *h = (*h).max(b);
        }
        if self.vertices.is_empty() {
            return ([0; 3], [0; 3]);
        }
        let mut min = [u8::MAX; 3];
        let mut max = [0u8; 3];
        for (k, (l, h)) in lo.iter().zip(&hi).enumerate() {
            // Byte 3 of each vertex is its normal index, not a coordinate.
            if let (Some(a), Some(b)) = (min.get_mut(k % 4), max.get_mut(k % 4)) {
                *a = (*a).min(*l);
                *b = (*b).max(*h);
            }
        }
        (min, max)
    }
}

fn packed_bounds<'a>(vertices: impl Iterator<Item = &'a TriVertex>) -> ([u8; 3], [u8; 3]) {
    let mut min = [255u8; 3];
    let mut max = [0u8; 3];
    let mut any = false;
    for v in vertices {
        any = true;
        for ((lo, hi), c) in min.iter_mut().zip(max.iter_mut()).zip(v.v) {
            *lo = (*lo).min(c);
            *hi = (*hi).max(c);
        }
    }
    if any { (min, max) } else { ([0; 3], [0; 3]) }
}

/// One frame entry, owned.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameData {
    /// A single pose.
    Single(PoseData),
    /// A group: one interval per pose.
    Group {
        /// Packed lower bound of the group.
        bbox_min: TriVertex,
        /// Packed upper bound of the group.
        bbox_max: TriVertex,
        /// Intervals in seconds.
        intervals: Vec<f32>,
        /// The poses.
        poses: Vec<PoseData>,
    },
}

impl FrameData {
    /// The poses of this entry.
    pub fn poses(&self) -> &[PoseData] {
        match self {
            FrameData::Single(p) => core::slice::from_ref(p),
            FrameData::Group { poses, .. } => poses,
        }
    }
}

/// An owned MDL: every field of the file, ready to edit and [`write()`].
///
/// `Model::from(&Mdl::parse(&write(&m)?)?) == m` for every model the writer accepts.
/// Skin and frame type words are normalised to 0 (single) and 1 (group).
///
/// ```
/// use idmodel_mdl::{Mdl, Model};
/// let model = Model::example_groups();
/// let bytes = model.write().unwrap();
/// let back = Model::from(&Mdl::parse(&bytes).unwrap());
/// assert_eq!(back, model);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// `scale`.
    pub scale: [f32; 3],
    /// `scale_origin`.
    pub origin: [f32; 3],
    /// `boundingradius`.
    pub bounding_radius: f32,
    /// `eyeposition`.
    pub eye_position: [f32; 3],
    /// `skinwidth` (must be ≥ 1 and fit an `i32`).
    pub skin_width: u32,
    /// `skinheight` (must be ≥ 1 and fit an `i32`).
    pub skin_height: u32,
    /// `synctype` as stored.
    pub sync_type: i32,
    /// `flags`, every bit kept.
    pub flags: Flags,
    /// `size`.
    pub size: f32,
    /// Skin entries (at least one).
    pub skins: Vec<SkinData>,
    /// Texture coordinates, one per vertex (at least one).
    pub texcoords: Vec<TexCoord>,
    /// Triangles (at least one).
    pub triangles: Vec<Tri>,
    /// Frame entries (at least one).
    pub frames: Vec<FrameData>,
    /// Bytes written after the last frame (an editor block); usually empty.
    pub trailing: Vec<u8>,
}

impl From<&Mdl<'_>> for Model {
    fn from(m: &Mdl<'_>) -> Self {
        let skins = m
            .skins()
            .map(|s| {
                if s.is_group() {
                    SkinData::Group {
                        intervals: s.intervals().collect(),
                        images: s.images().map(<[u8]>::to_vec).collect(),
                    }
                } else {
                    SkinData::Single(s.pixels().to_vec())
                }
            })
            .collect();
        let pose = |p: crate::Pose<'_>| PoseData {
            name: p.header().name,
            bbox_min: p.header().bbox_min,
            bbox_max: p.header().bbox_max,
            vertices: p.vertices().to_vec(),
        };
        let frames = m
            .frames()
            .map(|f| match f.group_header() {
                Some(g) => FrameData::Group {
                    bbox_min: g.bbox_min,
                    bbox_max: g.bbox_max,
                    intervals: f.intervals().collect(),
                    poses: f.poses().map(pose).collect(),
                },
                None => FrameData::Single(f.pose(0).map(pose).unwrap_or_default()),
            })
            .collect();
        Model {
            scale: m.scale(),
            origin: m.origin(),
            bounding_radius: m.bounding_radius(),
            eye_position: m.eye_position(),
            skin_width: u32::try_from(m.skin_width()).unwrap_or(u32::MAX),
            skin_height: u32::try_from(m.skin_height()).unwrap_or(u32::MAX),
            sync_type: m.sync_type(),
            flags: m.flags(),
            size: m.size(),
            skins,
            texcoords: m
                .texcoords()
                .iter()
                .map(|st| TexCoord {
                    onseam: st.onseam.get(),
                    s: st.s.get(),
                    t: st.t.get(),
                })
                .collect(),
            triangles: m
                .triangles()
                .iter()
                .map(|t| Tri {
                    faces_front: t.faces_front.get(),
                    vertices: t.vert_index.map(|v| u32::try_from(v.get()).unwrap_or(0)),
                })
                .collect(),
            frames,
            trailing: m.trailing().to_vec(),
        }
    }
}

impl From<Mdl<'_>> for Model {
    fn from(m: Mdl<'_>) -> Self {
        Model::from(&m)
    }
}

fn bad_count(what: &'static str, value: usize, at: usize) -> Error {
    Error::at(
        ErrorKind::BadCount {
            what,
            value: i64::try_from(value).unwrap_or(i64::MAX),
        },
        at,
    )
}

fn to_i32(value: usize, what: &'static str, at: usize) -> Result<i32> {
    i32::try_from(value).map_err(|_| {
        Error::at(
            ErrorKind::TooMany {
                what,
                count: u64::try_from(value).unwrap_or(u64::MAX),
                max: 0x7fff_ffff,
            },
            at,
        )
    })
}

/// An output size past `usize`, at output offset `at`.
fn too_big(at: usize) -> Error {
    Error::at(
        ErrorKind::TooMany {
            what: "output bytes",
            count: u64::MAX,
            max: u64::try_from(usize::MAX).unwrap_or(u64::MAX),
        },
        at,
    )
}

fn add(a: usize, b: usize, at: usize) -> Result<usize> {
    a.checked_add(b).ok_or_else(|| too_big(at))
}

fn mul(a: usize, b: usize, at: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| too_big(at))
}

/// The exact size [`write_into`] needs for `model`, after checking that the model can be
/// written: at least one skin, vertex, triangle and frame; skin width and height ≥ 1;
/// every image `width × height` bytes; every group non-empty with one interval per
/// image or pose; every pose with one vertex per texture coordinate; every triangle
/// index in range; every count within `i32`. Errors carry the output offset where the
/// bad item would go.
pub fn written_size(model: &Model) -> Result<usize> {
    use raw::Header as H;
    let w = usize::try_from(model.skin_width).unwrap_or(usize::MAX);
    let h = usize::try_from(model.skin_height).unwrap_or(usize::MAX);
    let (at_width, at_height) = (
        offset_of!(raw::Header, skin_width),
        offset_of!(raw::Header, skin_height),
    );
    if w == 0 {
        return Err(bad_count("skinwidth", 0, at_width));
    }
    if h == 0 {
        return Err(bad_count("skinheight", 0, at_height));
    }
    to_i32(w, "skinwidth", at_width)?;
    to_i32(h, "skinheight", at_height)?;
    let image = mul(w, h, at_width)?;
    for (what, n, at) in [
        ("numskins", model.skins.len(), offset_of!(H, num_skins)),
        ("numverts", model.texcoords.len(), offset_of!(H, num_verts)),
        ("numtris", model.triangles.len(), offset_of!(H, num_tris)),
        ("numframes", model.frames.len(), offset_of!(H, num_frames)),
    ] {
        if n == 0 {
            return Err(bad_count(what, 0, at));
        }
        to_i32(n, what, at)?;
    }
    let mut size = size_of::<raw::Header>();
    let add_image = |size: usize, img: &[u8]| {
        if img.len() != image {
            return Err(bad_count(
                "skin image bytes (must be width × height)",
                img.len(),
                size,
            ));
        }
        add(size, image, size)
    };
    for skin in &model.skins {
        size = add(size, 4, size)?;
        match skin {
            SkinData::Single(img) => size = add_image(size, img)?,
            SkinData::Group { intervals, images } => {
                let what = (
                    "skin group numskins",
                    "skin group intervals (must be one per image)",
                );
                size = group(size, (images, intervals.len()), what, 4, |s, img| {
                    add_image(s, img)
                })?;
            }
        }
    }
    let nv = model.texcoords.len();
    size = add(size, mul(nv, 12, size)?, size)?;
    for tri in &model.triangles {
        let mut at = add(size, 4, size)?;
        for v in tri.vertices {
            if usize::try_from(v).map_or(true, |v| v >= nv) {
                return Err(Error::at(
                    ErrorKind::IndexOutOfRange {
                        what: "triangle vertex index",
                        index: i64::from(v),
                        len: u64::try_from(nv).unwrap_or(u64::MAX),
                    },
                    at,
                ));
            }
            at = at.saturating_add(4);
        }
        size = add(size, 16, size)?;
    }
    let pose_size = add(24, mul(nv, 4, size)?, size)?;
    let add_pose = |at: usize, p: &PoseData| {
        if p.vertices.len() == nv {
            add(at, pose_size, at)
        } else {
            Err(bad_count(
                "pose vertices (must be numverts)",
                p.vertices.len(),
                at,
            ))
        }
    };
    for frame in &model.frames {
        size = add(size, 4, size)?;
        match frame {
            FrameData::Single(p) => size = add_pose(size, p)?,
            FrameData::Group {
                intervals, poses, ..
            } => {
                let what = (
                    "frame group numframes",
                    "frame group intervals (must be one per pose)",
                );
                size = group(size, (poses, intervals.len()), what, 12, add_pose)?;
            }
        }
    }
    add(size, model.trailing.len(), size)
}

/// Checks the counts of a skin or frame group (its `items` and `intervals` count)
/// starting at output offset `size` (`what` names its count field, `per` what a
/// mismatched interval count is called), then walks its `head`-byte header, its intervals
/// and each item (`each` takes an item's offset and returns the offset after it).
fn group<T>(
    size: usize,
    (items, intervals): (&[T], usize),
    (what, per): (&'static str, &'static str),
    head: usize,
    each: impl Fn(usize, &T) -> Result<usize>,
) -> Result<usize> {
    if items.is_empty() {
        return Err(bad_count(what, 0, size));
    }
    to_i32(items.len(), what, size)?;
    if intervals != items.len() {
        return Err(bad_count(per, intervals, size));
    }
    let size = add(size, head, size)?;
    let size = add(size, mul(4, intervals, size)?, size)?;
    items.iter().try_fold(size, each)
}

struct Out<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl Out<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let end = self.pos.saturating_add(bytes.len());
        if let Some(dst) = self.buf.get_mut(self.pos..end) {
            dst.copy_from_slice(bytes);
        }
        self.pos = end;
    }

    fn i32(&mut self, v: i32) {
        self.put(&v.to_le_bytes());
    }

    fn f32(&mut self, v: f32) {
        self.put(&v.to_le_bytes());
    }

    fn len32(&mut self, n: usize) {
        // Counts were checked to fit by `written_size`.
        self.i32(i32::try_from(n).unwrap_or(i32::MAX));
    }

    fn pose(&mut self, p: &PoseData) {
        self.put(p.bbox_min.as_bytes());
        self.put(p.bbox_max.as_bytes());
        self.put(&p.name);
        self.put(p.vertices.as_bytes());
    }
}

/// Writes `model` into `buf`, which must hold at least [`written_size`] bytes; returns
/// the number of bytes written. Normals and positions are written as stored in the
/// model (see [`Quantizer`] to build them from floats).
pub fn write_into(model: &Model, buf: &mut [u8]) -> Result<usize> {
    let size = written_size(model)?;
    let buf = idmodel_core::bytes::prefix_mut(buf, size, "bytes for the output buffer")?;
    let mut out = Out { buf, pos: 0 };
    let header = raw::Header {
        ident: raw::MAGIC,
        version: I32::new(raw::VERSION),
        scale: model.scale.map(F32::new),
        scale_origin: model.origin.map(F32::new),
        bounding_radius: F32::new(model.bounding_radius),
        eye_position: model.eye_position.map(F32::new),
        num_skins: I32::new(i32::try_from(model.skins.len()).unwrap_or(i32::MAX)),
        skin_width: I32::new(i32::try_from(model.skin_width).unwrap_or(i32::MAX)),
        skin_height: I32::new(i32::try_from(model.skin_height).unwrap_or(i32::MAX)),
        num_verts: I32::new(i32::try_from(model.texcoords.len()).unwrap_or(i32::MAX)),
        num_tris: I32::new(i32::try_from(model.triangles.len()).unwrap_or(i32::MAX)),
        num_frames: I32::new(i32::try_from(model.frames.len()).unwrap_or(i32::MAX)),
        sync_type: I32::new(model.sync_type),
        flags: I32::new(model.flags.to_raw()),
        size: F32::new(model.size),
    };
    out.put(header.as_bytes());
    for skin in &model.skins {
        match skin {
            SkinData::Single(img) => {
                out.i32(raw::TYPE_SINGLE);
                out.put(img);
            }
            SkinData::Group { intervals, images } => {
                out.i32(raw::TYPE_GROUP);
                out.len32(images.len());
                intervals.iter().for_each(|&i| out.f32(i));
                images.iter().for_each(|img| out.put(img));
            }
        }
    }
    for st in &model.texcoords {
        out.i32(st.onseam);
        out.i32(st.s);
        out.i32(st.t);
    }
    for tri in &model.triangles {
        out.i32(tri.faces_front);
        for v in tri.vertices {
            out.i32(i32::try_from(v).unwrap_or(i32::MAX));
        }
    }
    for frame in &model.frames {
        match frame {
            FrameData::Single(p) => {
                out.i32(raw::TYPE_SINGLE);
                out.pose(p);
            }
            FrameData::Group {
                bbox_min,
                bbox_max,
                intervals,
                poses,
            } => {
                out.i32(raw::TYPE_GROUP);
                out.len32(poses.len());
                out.put(bbox_min.as_bytes());
                out.put(bbox_max.as_bytes());
                intervals.iter().for_each(|&i| out.f32(i));
                poses.iter().for_each(|p| out.pose(p));
            }
        }
    }
    out.put(&model.trailing);
    Ok(out.pos)
}

/// Writes `model` into a new vector of exactly [`written_size`] bytes.
pub fn write(model: &Model) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; written_size(model)?];
    let n = write_into(model, &mut buf)?;
    buf.truncate(n);
    Ok(buf)
}

/// A texture coordinate of the examples.
fn tc(onseam: i32, s: i32, t: i32) -> TexCoord {
    TexCoord { onseam, s, t }
}

/// A triangle of the examples.
fn tri(faces_front: i32, vertices: [u32; 3]) -> Tri {
    Tri {
        faces_front,
        vertices,
    }
}

impl Model {
    /// [`write()`] as a method.
    pub fn write(&self) -> Result<Vec<u8>> {
        write(self)
    }

    /// [`written_size`] as a method.
    pub fn written_size(&self) -> Result<usize> {
        written_size(self)
    }

    /// Total poses (single frames plus group members).
    pub fn pose_count(&self) -> usize {
        self.frames.iter().map(|f| f.poses().len()).sum()
    }

    /// The smallest valid model: a 4×4 skin, one triangle, one frame named `base1` with
    /// scale 1 and origin 0. Useful in examples and tests.
    pub fn example() -> Model {
        let verts = [[0u8, 0, 0], [16, 0, 0], [0, 16, 0]];
        let mut pose = PoseData {
            name: PoseData::name_field("base1"),
            vertices: verts
                .iter()
                .map(|&v| TriVertex {
                    v,
                    light_normal_index: 5,
                })
                .collect(),
            ..PoseData::default()
        };
        pose.compute_bounds();
        Model {
            scale: [1.0; 3],
            origin: [0.0; 3],
            bounding_radius: 16.0,
            eye_position: [0.0, 0.0, 24.0],
            skin_width: 4,
            skin_height: 4,
            sync_type: 0,
            flags: Flags::default(),
            size: 8.0,
            skins: vec![SkinData::Single((0u8..16).collect())],
            texcoords: vec![tc(0, 0, 0), tc(0, 3, 0), tc(0, 0, 3)],
            triangles: vec![tri(1, [0, 1, 2])],
            frames: vec![FrameData::Single(pose)],
            trailing: Vec::new(),
        }
    }

    /// An example with a skin group (3 images, intervals 0.1/0.2/0.3 s) after a single
    /// skin, a seam vertex on a back-facing triangle, a single frame `stand1`, then a
    /// frame group of three poses `stand2`..`stand4` with intervals 0.1/0.2/0.3 s, and the
    /// `EF_ROTATE | MF_HOLEY` flags.
    pub fn example_groups() -> Model {
        let mut m = Model::example();
        let q = Quantizer::from_bounds([-16.0; 3], [16.0; 3]);
        m.scale = q.scale;
        m.origin = q.origin;
        m.flags = Flags::ROTATE | Flags::HOLEY;
        m.skin_width = 8;
        m.skin_height = 4;
        m.skins = vec![
            SkinData::Single((0u8..32).map(|i| i.wrapping_mul(7)).collect()),
            SkinData::Group {
                intervals: vec![0.1, 0.2, 0.3],
                images: (0u8..3)
                    .map(|k| {
                        (0u8..32)
                            .map(|i| i.wrapping_add(k.wrapping_mul(64)))
                            .collect()
                    })
                    .collect(),
            },
        ];
        m.texcoords = vec![tc(0x20, 0, 0), tc(0, 3, 0), tc(0, 0, 3), tc(0x20, 0, 3)];
        m.triangles = vec![tri(1, [0, 1, 2]), tri(0, [0, 2, 3])];
        let pose = |name: &str, k: f32| {
            let pts = [
                [0.0, 0.0, k],
                [8.0, 0.0, k],
                [0.0, 8.0, k],
                [-8.0, -8.0, -k],
            ];
            let normals = [[0.0, 0.0, 1.0]; 4];
            q.pose(name, &pts, &normals)
        };
        let group: Vec<PoseData> = vec![
            pose("stand2", 2.0),
            pose("stand3", 4.0),
            pose("stand4", 6.0),
        ];
        let (bmin, bmax) = packed_bounds(group.iter().flat_map(|p| p.vertices.iter()));
        m.frames = vec![
            FrameData::Single(pose("stand1", 0.0)),
            FrameData::Group {
                bbox_min: TriVertex {
                    v: bmin,
                    light_normal_index: 0,
                },
                bbox_max: TriVertex {
                    v: bmax,
                    light_normal_index: 0,
                },
                intervals: vec![0.1, 0.2, 0.3],
                poses: group,
            },
        ];
        m
    }
}

/// Quantises float positions into the 8-bit packed form: `v = round((p − origin) / scale)`
/// clamped to 0..=255, decoded as `scale · v + origin`.
///
/// **Error bound:** for a point inside the bounds the quantiser was made from, each
/// decoded coordinate is within `scale / 2` of the original (half a step), plus the f32
/// rounding of the arithmetic (a few ulps of the largest coordinate). Points outside the
/// bounds are clamped to them.
///
/// ```
/// use idmodel_mdl::Quantizer;
/// let q = Quantizer::from_bounds([-10.0, 0.0, 0.0], [10.0, 5.1, 0.0]);
/// let p = [3.3, 1.7, 0.0];
/// let v = q.quantize(p);
/// let d = q.decode(v);
/// for i in 0..3 { assert!((d[i] - p[i]).abs() <= q.max_error()[i]); }
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantizer {
    /// The header's `scale`.
    pub scale: [f32; 3],
    /// The header's `scale_origin`.
    pub origin: [f32; 3],
}

impl Quantizer {
    /// A quantiser with a given scale and origin.
    pub const fn new(scale: [f32; 3], origin: [f32; 3]) -> Self {
        Quantizer { scale, origin }
    }

    /// The quantiser that spreads `min..=max` over 0..=255 on each axis: `origin = min`,
    /// `scale = (max − min) / 255` (1 on an axis with no extent).
    pub fn from_bounds(min: [f32; 3], max: [f32; 3]) -> Self {
        let mut scale = [1.0f32; 3];
        for ((s, lo), hi) in scale.iter_mut().zip(min).zip(max) {
            let extent = hi - lo;
            if extent > 0.0 && extent.is_finite() {
                *s = extent / 255.0;
            }
        }
        Quantizer { scale, origin: min }
    }

    /// The quantiser for the bounds of `points` (every pose of a model, usually).
    pub fn fit<'p>(points: impl IntoIterator<Item = &'p [f32; 3]>) -> Self {
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in points {
            for i in 0..3 {
                if let (Some(lo), Some(hi), Some(&c)) = (min.get_mut(i), max.get_mut(i), p.get(i)) {
                    *lo = lo.min(c);
                    *hi = hi.max(c);
                }
            }
        }
        if min.iter().any(|v| !v.is_finite()) || max.iter().any(|v| !v.is_finite()) {
            return Quantizer::from_bounds([0.0; 3], [0.0; 3]);
        }
        Quantizer::from_bounds(min, max)
    }

    /// The worst-case decode error per axis for points inside the bounds: `scale / 2`
    /// (plus f32 rounding; this value adds a margin of 1e-5 relative).
    pub fn max_error(&self) -> [f32; 3] {
        let mut out = [0.0f32; 3];
        for ((o, s), org) in out.iter_mut().zip(self.scale).zip(self.origin) {
            let magnitude = libm::fabsf(org) + libm::fabsf(s) * 255.0;
            *o = libm::fabsf(s) * 0.5 + magnitude * 1e-5;
        }
        out
    }

    /// The packed coordinate of `p`.
    pub fn quantize(&self, p: [f32; 3]) -> [u8; 3] {
        let mut out = [0u8; 3];
        for (((o, c), s), org) in out.iter_mut().zip(p).zip(self.scale).zip(self.origin) {
            let q = libm::roundf((c - org) / s);
            *o = clamp_u8(q);
        }
        out
    }

    /// `scale · v + origin`.
    pub fn decode(&self, v: [u8; 3]) -> [f32; 3] {
        idmodel_core::trivertx::decode_position(v, self.scale, self.origin)
    }

    /// A pose from float positions and normals: positions quantised, normals encoded to
    /// the nearest of the 162 table entries, bounds computed. Missing normals encode as
    /// index 0.
    pub fn pose(&self, name: &str, positions: &[[f32; 3]], normals: &[[f32; 3]]) -> PoseData {
        let mut pose = PoseData {
            name: PoseData::name_field(name),
            vertices: positions
                .iter()
                .enumerate()
                .map(|(i, &p)| TriVertex {
                    v: self.quantize(p),
                    light_normal_index: normals
                        .get(i)
                        .map_or(0, |&n| idmodel_core::anorms::nearest_anorm(n)),
                })
                .collect(),
            ..PoseData::default()
        };
        pose.compute_bounds();
        pose
    }
}

/// Clamps a float to 0..=255 (NaN → 0).
fn clamp_u8(x: f32) -> u8 {
    let mut v = 0u8;
    // A comparison ladder instead of an `as` cast: exact for the integers 0..=255 that
    // `roundf` produces.
    if x > 0.0 {
        let mut lo = 0u8;
        let mut hi = 255u8;
        if x >= 255.0 {
            return 255;
        }
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo).div_ceil(2));
            if f32::from(mid) <= x {
                lo = mid;
            } else {
                hi = mid.saturating_sub(1);
            }
        }
        v = lo;
    }
    v
}
