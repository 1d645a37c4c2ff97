//! The validated, borrowed view of an MDL file: [`Mdl::parse`] and its accessors.

use core::iter::FusedIterator;
use core::mem::offset_of;

use idmodel_core::bytes::{self, Cursor, Name};
use idmodel_core::{Error, ErrorKind, Result};
use zerocopy::FromBytes;

use crate::Flags;
use crate::raw::{self, FrameGroup, Header, Interval, PoseHeader, StVert, TriVertex, Triangle};

/// Size of `daliasframe_t` in bytes.
const POSE_HEADER: usize = size_of::<PoseHeader>();

/// A parsed Quake MDL, borrowing the file's bytes.
///
/// Built by [`Mdl::parse`], which walks and checks every block once; after that every
/// accessor is infallible and returns borrowed slices or iterators. `Mdl` is `Copy`.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use idmodel_mdl::{Mdl, Model};
/// let bytes = Model::example().write().unwrap();
/// let mdl = Mdl::parse(&bytes).unwrap();
/// assert_eq!(mdl.vertex_count(), 3);
/// assert_eq!(mdl.triangles().len(), 1);
/// let pose = mdl.pose(0).unwrap();
/// assert_eq!(pose.name(), "base1");
/// let p = pose.positions().next().unwrap();
/// assert_eq!(p, [0.0, 0.0, 0.0]);
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Mdl<'a> {
    data: &'a [u8],
    header: &'a Header,
    num_skins: usize,
    skin_width: usize,
    skin_height: usize,
    image_size: usize,
    num_verts: usize,
    num_frames: usize,
    skins_offset: usize,
    skins: &'a [u8],
    stverts: &'a [StVert],
    triangles: &'a [Triangle],
    frames_offset: usize,
    frames: &'a [u8],
    pose_count: usize,
    has_frame_groups: bool,
    has_skin_groups: bool,
    trailing_offset: usize,
    trailing: &'a [u8],
}

/// What a foreign magic is (through core's `detect`), for a refusal that tells the user
/// what they have: a Half-Life or 3D GameStudio `.mdl`, another id format, a sprite…
fn foreign_format(data: &[u8]) -> Option<&'static str> {
    idmodel_core::detect::detect(data)
        .filter(|f| *f != idmodel_core::detect::Format::Mdl)
        .map(idmodel_core::detect::Format::name)
}

fn count_at(data: &[u8], at: usize, what: &'static str) -> Result<usize> {
    let v = bytes::read_at::<zerocopy::little_endian::I32>(data, at)?.get();
    bytes::positive_count(v, what, at)
}

fn truncated_overflow(data: &[u8], at: usize) -> Error {
    Error::at(
        ErrorKind::Truncated {
            needed: u64::MAX,
            available: u64::try_from(data.len().saturating_sub(at)).unwrap_or(u64::MAX),
        },
        at,
    )
}

impl<'a> Mdl<'a> {
    /// Parses and validates an MDL in one walk over its sequential blocks.
    ///
    /// Refuses, with the byte offset and the value: a wrong magic (naming Half-Life,
    /// 3D GameStudio and other known `.mdl` impostors), a version other than 6, vertex,
    /// triangle, frame or skin counts ≤ 0, skin width or height ≤ 0, group counts ≤ 0,
    /// any block running past the end, and triangle vertex indices outside
    /// `[0, numverts)`. Bytes after the last frame are accepted and exposed by
    /// [`Mdl::trailing`]. Engine limits are not refused: see [`Mdl::check`].
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let magic = bytes::bytes_at(data, 0, 4)?;
        if magic != raw::MAGIC {
            if let Some(found) = foreign_format(data) {
                return Err(Error::at(ErrorKind::WrongFormat { found }, 0));
            }
            let mut m = [0u8; 4];
            m.copy_from_slice(magic);
            return Err(Error::at(ErrorKind::BadMagic(m), 0));
        }
        let at_version = offset_of!(Header, version);
        let version = bytes::read_at::<zerocopy::little_endian::I32>(data, at_version)?.get();
        if version != raw::VERSION {
            return Err(Error::at(
                ErrorKind::UnsupportedVersion(version),
                at_version,
            ));
        }
        let header = bytes::read_at::<Header>(data, 0)?;
        let num_skins = count_at(data, offset_of!(Header, num_skins), "numskins")?;
        let skin_width = count_at(data, offset_of!(Header, skin_width), "skinwidth")?;
        let skin_height = count_at(data, offset_of!(Header, skin_height), "skinheight")?;
        let num_verts = count_at(data, offset_of!(Header, num_verts), "numverts")?;
        let num_tris = count_at(data, offset_of!(Header, num_tris), "numtris")?;
        let num_frames = count_at(data, offset_of!(Header, num_frames), "numframes")?;

        let skins_offset = size_of::<Header>();
        let mut cur = Cursor::at(data, skins_offset);
        let image_size = skin_width
            .checked_mul(skin_height)
            .ok_or_else(|| truncated_overflow(data, skins_offset))?;
        let mut has_skin_groups = false;
        // Each skin entry consumes at least 5 bytes, so a hostile count ends in
        // `Truncated` after at most len/5 iterations.
        for _ in 0..num_skins {
            let kind = cur.read::<raw::TypeWord>()?.kind.get();
            if kind == raw::TYPE_SINGLE {
                cur.read_bytes(image_size)?;
            } else {
                has_skin_groups = true;
                let at = cur.position();
                let n = bytes::positive_count(cur.read_i32()?, "skin group numskins", at)?;
                cur.read_slice::<Interval>(n)?;
                let len = image_size
                    .checked_mul(n)
                    .ok_or_else(|| truncated_overflow(data, cur.position()))?;
                cur.read_bytes(len)?;
            }
        }
        let skins = data.get(skins_offset..cur.position()).unwrap_or(&[]);

        let stverts = cur.read_slice::<StVert>(num_verts)?;
        let tris_offset = cur.position();
        let triangles = cur.read_slice::<Triangle>(num_tris)?;
        let len = u64::try_from(num_verts).unwrap_or(u64::MAX);
        let mut at = tris_offset;
        // The branch-free test first; the walk that finds and places the first bad index
        // only when there is one.
        let bad_triangles = if indices_in_range(triangles, num_verts) {
            &[][..]
        } else {
            triangles
        };
        for tri in bad_triangles {
            let mut field = at.saturating_add(offset_of!(Triangle, vert_index));
            for v in tri.vert_index {
                let index = v.get();
                if usize::try_from(index).map_or(true, |i| i >= num_verts) {
                    return Err(Error::at(
                        ErrorKind::IndexOutOfRange {
                            what: "triangle vertex index",
                            index: i64::from(index),
                            len,
                        },
                        field,
                    ));
                }
                field = field.saturating_add(4);
            }
            at = at.saturating_add(size_of::<Triangle>());
        }

        let frames_offset = cur.position();
        let pose_size =
            pose_size(num_verts).ok_or_else(|| truncated_overflow(data, frames_offset))?;
        let mut pose_count = 0usize;
        let mut has_frame_groups = false;
        for _ in 0..num_frames {
            let kind = cur.read::<raw::TypeWord>()?.kind.get();
            if kind == raw::TYPE_SINGLE {
                cur.read_bytes(pose_size)?;
                pose_count = pose_count.saturating_add(1);
            } else {
                has_frame_groups = true;
                let at = cur.position();
                let group = cur.read::<FrameGroup>()?;
                let n = bytes::positive_count(group.num_frames.get(), "frame group numframes", at)?;
                cur.read_slice::<Interval>(n)?;
                let len = pose_size
                    .checked_mul(n)
                    .ok_or_else(|| truncated_overflow(data, cur.position()))?;
                cur.read_bytes(len)?;
                pose_count = pose_count.saturating_add(n);
            }
        }
        let frames = data.get(frames_offset..cur.position()).unwrap_or(&[]);
        let trailing_offset = cur.position();
        Ok(Self {
            data,
            header,
            num_skins,
            skin_width,
            skin_height,
            image_size,
            num_verts,
            num_frames,
            skins_offset,
            skins,
            stverts,
            triangles,
            frames_offset,
            frames,
            pose_count,
            has_frame_groups,
            has_skin_groups,
            trailing_offset,
            trailing: cur.rest(),
        })
    }

    /// The whole input, as passed to [`Mdl::parse`].
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The raw 84-byte header.
    pub fn header(&self) -> &'a Header {
        self.header
    }

    /// `scale`: per-axis multiplier of the packed vertex coordinates.
    pub fn scale(&self) -> [f32; 3] {
        self.header.scale.map(|v| v.get())
    }

    /// `scale_origin`: per-axis translation of the packed vertex coordinates.
    pub fn origin(&self) -> [f32; 3] {
        self.header.scale_origin.map(|v| v.get())
    }

    /// `boundingradius` as stored.
    pub fn bounding_radius(&self) -> f32 {
        self.header.bounding_radius.get()
    }

    /// `eyeposition` as stored (unused by the engines).
    pub fn eye_position(&self) -> [f32; 3] {
        self.header.eye_position.map(|v| v.get())
    }

    /// `size` as stored (the engines multiply it by 1/11).
    pub fn size(&self) -> f32 {
        self.header.size.get()
    }

    /// `synctype` as stored: 0 = `ST_SYNC`, 1 = `ST_RAND`; engines treat every value
    /// other than 1 as synchronised.
    pub fn sync_type(&self) -> i32 {
        self.header.sync_type.get()
    }

    /// True when `synctype == 1` (`ST_RAND`): the engine gives each entity a random
    /// animation offset (used by the software renderer only, §1.3.5).
    pub fn random_sync(&self) -> bool {
        self.sync_type() == 1
    }

    /// The `EF_*` flags, every bit kept.
    pub fn flags(&self) -> Flags {
        Flags::from_raw(self.header.flags.get())
    }

    /// Skin width in texels (validated > 0).
    pub fn skin_width(&self) -> usize {
        self.skin_width
    }

    /// Skin height in texels (validated > 0).
    pub fn skin_height(&self) -> usize {
        self.skin_height
    }

    /// Bytes in one skin image (`width × height`).
    pub fn skin_image_size(&self) -> usize {
        self.image_size
    }

    /// Number of skin entries (`numskins`).
    pub fn skin_count(&self) -> usize {
        self.num_skins
    }

    /// Vertices per pose (`numverts`).
    pub fn vertex_count(&self) -> usize {
        self.num_verts
    }

    /// Number of frame entries (`numframes`); a group counts once.
    pub fn frame_count(&self) -> usize {
        self.num_frames
    }

    /// Number of poses: single frames plus every member of every group.
    pub fn pose_count(&self) -> usize {
        self.pose_count
    }

    /// True when at least one frame entry is a group.
    pub fn has_frame_groups(&self) -> bool {
        self.has_frame_groups
    }

    /// True when at least one skin entry is a group.
    pub fn has_skin_groups(&self) -> bool {
        self.has_skin_groups
    }

    /// Texture coordinates (`stvert_t`), one per vertex.
    pub fn texcoords(&self) -> &'a [StVert] {
        self.stverts
    }

    /// Triangles (`dtriangle_t`); every vertex index is validated to be in range.
    pub fn triangles(&self) -> &'a [Triangle] {
        self.triangles
    }

    /// The triangles' vertex indices as `usize` (infallible: validated by `parse`).
    pub fn triangle_indices(&self) -> impl ExactSizeIterator<Item = [usize; 3]> + 'a {
        self.triangles
            .iter()
            .map(|t| t.vert_index.map(|v| usize::try_from(v.get()).unwrap_or(0)))
    }

    /// Byte offset of the first skin entry (always 84).
    pub fn skins_offset(&self) -> usize {
        self.skins_offset
    }

    /// Byte offset of the first frame entry.
    pub fn frames_offset(&self) -> usize {
        self.frames_offset
    }

    /// The skins, in file order.
    pub fn skins(&self) -> Skins<'a> {
        Skins {
            data: self.skins,
            pos: 0,
            base: self.skins_offset,
            remaining: self.num_skins,
            image_size: self.image_size,
        }
    }

    /// Skin entry `index`, or `None` past the end. Cost: O(index) (skin entries have
    /// different sizes only when groups are present, but the walk is always done).
    pub fn skin(&self, index: usize) -> Option<Skin<'a>> {
        self.skins().nth(index)
    }

    /// The frame entries, in file order.
    pub fn frames(&self) -> Frames<'a> {
        Frames {
            data: self.frames,
            pos: 0,
            base: self.frames_offset,
            remaining: self.num_frames,
            next_pose: 0,
            num_verts: self.num_verts,
            scale: self.scale(),
            origin: self.origin(),
        }
    }

    /// Frame entry `index`, or `None` past the end.
    ///
    /// Cost: O(1) when the model has no frame groups (every entry has the same size);
    /// otherwise O(index), a walk over the entries before it.
    pub fn frame(&self, index: usize) -> Option<Frame<'a>> {
        if index >= self.num_frames {
            return None;
        }
        if self.has_frame_groups {
            return self.frames().nth(index);
        }
        let stride = pose_size(self.num_verts)?.checked_add(4)?;
        let start = stride.checked_mul(index)?;
        let mut frames = self.frames();
        frames.pos = start;
        frames.next_pose = index;
        frames.remaining = self.num_frames.checked_sub(index)?;
        frames.next()
    }

    /// Every pose of the model in file order (single frames and group members).
    pub fn poses(&self) -> AllPoses<'a> {
        AllPoses {
            frames: self.frames(),
            current: None,
            remaining: self.pose_count,
        }
    }

    /// Pose `index` counting every group member (the engines' `posenum`).
    ///
    /// Cost: O(1) when the model has no frame groups; otherwise O(number of frame
    /// entries before it).
    pub fn pose(&self, index: usize) -> Option<Pose<'a>> {
        if !self.has_frame_groups {
            return self.frame(index)?.pose(0);
        }
        let mut first = 0usize;
        for frame in self.frames() {
            let n = frame.pose_count();
            if index < first.saturating_add(n) {
                return frame.pose(index.checked_sub(first)?);
            }
            first = first.saturating_add(n);
        }
        None
    }

    /// Bytes after the last frame (for example a Quake Model Editor `QMEX` block).
    /// Engines never read them.
    pub fn trailing(&self) -> &'a [u8] {
        self.trailing
    }

    /// Byte offset where [`Mdl::trailing`] starts (the end of the model data).
    pub fn trailing_offset(&self) -> usize {
        self.trailing_offset
    }
}

/// True when every triangle vertex index lies in `0..num_verts`
/// ([`bytes::indices_below`]).
fn indices_in_range(triangles: &[Triangle], num_verts: usize) -> bool {
    let indices = triangles
        .iter()
        .flat_map(|t| t.vert_index.iter().map(|v| v.get()));
    bytes::indices_below(indices, num_verts)
}

/// Bytes of one pose: `daliasframe_t` plus `numverts` vertices.
pub(crate) fn pose_size(num_verts: usize) -> Option<usize> {
    num_verts
        .checked_mul(size_of::<TriVertex>())?
        .checked_add(POSE_HEADER)
}

/// One skin entry: a single image, or a group of images with intervals.
#[derive(Debug, Clone, Copy)]
pub struct Skin<'a> {
    offset: usize,
    type_word: i32,
    intervals: &'a [Interval],
    pixels: &'a [u8],
    image_size: usize,
}

impl<'a> Skin<'a> {
    /// Byte offset of the entry's type word.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The type word as stored (0 = single; any other value is a group).
    pub fn type_word(&self) -> i32 {
        self.type_word
    }

    /// True for a skin group.
    pub fn is_group(&self) -> bool {
        self.type_word != raw::TYPE_SINGLE
    }

    /// Number of images (1 for a single skin).
    pub fn image_count(&self) -> usize {
        self.pixels.len().checked_div(self.image_size).unwrap_or(0)
    }

    /// The group's intervals in seconds, as stored (empty for a single skin).
    pub fn intervals(&self) -> impl ExactSizeIterator<Item = f32> + Clone + 'a {
        self.intervals.iter().map(|i| i.interval.get())
    }

    /// The raw interval slice (empty for a single skin).
    pub fn raw_intervals(&self) -> &'a [Interval] {
        self.intervals
    }

    /// The 8-bit images, each `width × height` palette indices, row-major, top row first.
    pub fn images(&self) -> core::slice::ChunksExact<'a, u8> {
        self.pixels.chunks_exact(self.image_size.max(1))
    }

    /// Image `index`, or `None` past the end.
    pub fn image(&self, index: usize) -> Option<&'a [u8]> {
        self.images().nth(index)
    }

    /// All the images' bytes, back to back.
    pub fn pixels(&self) -> &'a [u8] {
        self.pixels
    }
}

/// Iterator over the skin entries of an [`Mdl`].
#[derive(Debug, Clone)]
pub struct Skins<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    remaining: usize,
    image_size: usize,
}

impl<'a> Iterator for Skins<'a> {
    type Item = Skin<'a>;

    fn next(&mut self) -> Option<Skin<'a>> {
        if self.remaining == 0 {
            return None;
        }
        // The walk was validated by `parse`; a `None` here cannot happen, and ends the
        // iteration rather than panicking if it ever did.
        let mut cur = Cursor::at(self.data, self.pos);
        let type_word = cur.read_i32().ok()?;
        let (intervals, n) = if type_word == raw::TYPE_SINGLE {
            (&[][..], 1)
        } else {
            let n = usize::try_from(cur.read_i32().ok()?).ok()?;
            (cur.read_slice::<Interval>(n).ok()?, n)
        };
        let pixels = cur.read_bytes(self.image_size.checked_mul(n)?).ok()?;
        let skin = Skin {
            offset: self.base.saturating_add(self.pos),
            type_word,
            intervals,
            pixels,
            image_size: self.image_size,
        };
        self.pos = cur.position();
        self.remaining = self.remaining.saturating_sub(1);
        Some(skin)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Skins<'_> {}
impl FusedIterator for Skins<'_> {}

/// One frame entry: a single pose, or a group of poses with intervals and group bounds.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    offset: usize,
    type_word: i32,
    group: Option<&'a FrameGroup>,
    intervals: &'a [Interval],
    poses: &'a [u8],
    poses_offset: usize,
    first_pose: usize,
    num_verts: usize,
    scale: [f32; 3],
    origin: [f32; 3],
}

impl<'a> Frame<'a> {
    /// Byte offset of the entry's type word.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The type word as stored (0 = single; any other value is a group).
    pub fn type_word(&self) -> i32 {
        self.type_word
    }

    /// True for a frame group.
    pub fn is_group(&self) -> bool {
        self.group.is_some()
    }

    /// The group header (`None` for a single frame).
    pub fn group_header(&self) -> Option<&'a FrameGroup> {
        self.group
    }

    /// Index of this entry's first pose among all poses of the model.
    pub fn first_pose(&self) -> usize {
        self.first_pose
    }

    /// Number of poses (1 for a single frame).
    pub fn pose_count(&self) -> usize {
        pose_size(self.num_verts)
            .and_then(|s| self.poses.len().checked_div(s))
            .unwrap_or(0)
    }

    /// The group's intervals in seconds, as stored (empty for a single frame).
    pub fn intervals(&self) -> impl ExactSizeIterator<Item = f32> + Clone + 'a {
        self.intervals.iter().map(|i| i.interval.get())
    }

    /// The raw interval slice (empty for a single frame).
    pub fn raw_intervals(&self) -> &'a [Interval] {
        self.intervals
    }

    /// The entry's name: the name of its first pose (what QuakeC `$frame` lists use).
    pub fn name(&self) -> Name<'a> {
        self.pose(0).map(|p| p.name()).unwrap_or_default()
    }

    /// Packed lower bound: the group's `bboxmin`, or the single pose's.
    pub fn bbox_min(&self) -> TriVertex {
        match self.group {
            Some(g) => g.bbox_min,
            None => self
                .pose(0)
                .map(|p| p.header().bbox_min)
                .unwrap_or_default(),
        }
    }

    /// Packed upper bound: the group's `bboxmax`, or the single pose's.
    pub fn bbox_max(&self) -> TriVertex {
        match self.group {
            Some(g) => g.bbox_max,
            None => self
                .pose(0)
                .map(|p| p.header().bbox_max)
                .unwrap_or_default(),
        }
    }

    /// The poses of this entry.
    pub fn poses(&self) -> Poses<'a> {
        let size = pose_size(self.num_verts).unwrap_or(usize::MAX);
        Poses {
            chunks: self.poses.chunks_exact(size.max(1)),
            offset: self.poses_offset,
            size,
            scale: self.scale,
            origin: self.origin,
        }
    }

    /// Pose `index` of this entry (O(1)).
    pub fn pose(&self, index: usize) -> Option<Pose<'a>> {
        let size = pose_size(self.num_verts)?;
        let start = size.checked_mul(index)?;
        let chunk = self.poses.get(start..start.checked_add(size)?)?;
        make_pose(
            chunk,
            self.poses_offset.saturating_add(start),
            self.scale,
            self.origin,
        )
    }
}

fn make_pose<'a>(
    chunk: &'a [u8],
    offset: usize,
    scale: [f32; 3],
    origin: [f32; 3],
) -> Option<Pose<'a>> {
    let (header, rest) = PoseHeader::ref_from_prefix(chunk).ok()?;
    let vertices = <[TriVertex]>::ref_from_bytes(rest).ok()?;
    Some(Pose {
        header,
        vertices,
        offset,
        scale,
        origin,
    })
}

/// Iterator over the frame entries of an [`Mdl`].
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    remaining: usize,
    next_pose: usize,
    num_verts: usize,
    scale: [f32; 3],
    origin: [f32; 3],
}

impl<'a> Iterator for Frames<'a> {
    type Item = Frame<'a>;

    fn next(&mut self) -> Option<Frame<'a>> {
        if self.remaining == 0 {
            return None;
        }
        let size = pose_size(self.num_verts)?;
        let mut cur = Cursor::at(self.data, self.pos);
        let type_word = cur.read_i32().ok()?;
        let (group, intervals, n) = if type_word == raw::TYPE_SINGLE {
            (None, &[][..], 1)
        } else {
            let g = cur.read::<FrameGroup>().ok()?;
            let n = usize::try_from(g.num_frames.get()).ok()?;
            (Some(g), cur.read_slice::<Interval>(n).ok()?, n)
        };
        let poses_pos = cur.position();
        let poses = cur.read_bytes(size.checked_mul(n)?).ok()?;
        let frame = Frame {
            offset: self.base.saturating_add(self.pos),
            type_word,
            group,
            intervals,
            poses,
            poses_offset: self.base.saturating_add(poses_pos),
            first_pose: self.next_pose,
            num_verts: self.num_verts,
            scale: self.scale,
            origin: self.origin,
        };
        self.pos = cur.position();
        self.next_pose = self.next_pose.saturating_add(n);
        self.remaining = self.remaining.saturating_sub(1);
        Some(frame)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Frames<'_> {}
impl FusedIterator for Frames<'_> {}

/// Iterator over the poses of one [`Frame`].
#[derive(Debug, Clone)]
pub struct Poses<'a> {
    chunks: core::slice::ChunksExact<'a, u8>,
    offset: usize,
    size: usize,
    scale: [f32; 3],
    origin: [f32; 3],
}

impl<'a> Iterator for Poses<'a> {
    type Item = Pose<'a>;

    fn next(&mut self) -> Option<Pose<'a>> {
        let chunk = self.chunks.next()?;
        let pose = make_pose(chunk, self.offset, self.scale, self.origin);
        self.offset = self.offset.saturating_add(self.size);
        pose
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl ExactSizeIterator for Poses<'_> {}
impl FusedIterator for Poses<'_> {}

/// Iterator over every pose of an [`Mdl`], across frame entries.
#[derive(Debug, Clone)]
pub struct AllPoses<'a> {
    frames: Frames<'a>,
    current: Option<Poses<'a>>,
    remaining: usize,
}

impl<'a> Iterator for AllPoses<'a> {
    type Item = Pose<'a>;

    fn next(&mut self) -> Option<Pose<'a>> {
        loop {
            if let Some(p) = self.current.as_mut().and_then(Iterator::next) {
                self.remaining = self.remaining.saturating_sub(1);
                return Some(p);
            }
            self.current = Some(self.frames.next()?.poses());
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for AllPoses<'_> {}
impl FusedIterator for AllPoses<'_> {}

/// One pose: a name, packed bounds and `numverts` packed vertices.
#[derive(Debug, Clone, Copy)]
pub struct Pose<'a> {
    header: &'a PoseHeader,
    vertices: &'a [TriVertex],
    offset: usize,
    scale: [f32; 3],
    origin: [f32; 3],
}

impl<'a> Pose<'a> {
    /// Byte offset of the pose's `daliasframe_t`.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The raw 24-byte pose header.
    pub fn header(&self) -> &'a PoseHeader {
        self.header
    }

    /// The name up to the first NUL (all 16 bytes when there is none).
    pub fn name(&self) -> Name<'a> {
        Name::from_field(&self.header.name)
    }

    /// True when the 16-byte name field has no NUL (WinQuake and GLQuake `strcpy` it
    /// past the end of their buffer; QuakeSpasm truncates it to 15 characters).
    pub fn name_unterminated(&self) -> bool {
        !self.header.name.contains(&0)
    }

    /// The packed vertices.
    pub fn vertices(&self) -> &'a [TriVertex] {
        self.vertices
    }

    /// Decoded lower bound (`scale · bboxmin + origin`).
    pub fn bbox_min(&self) -> [f32; 3] {
        self.header.bbox_min.position(self.scale, self.origin)
    }

    /// Decoded upper bound (`scale · bboxmax + origin`).
    pub fn bbox_max(&self) -> [f32; 3] {
        self.header.bbox_max.position(self.scale, self.origin)
    }

    /// Decoded positions, `scale · v + origin` per axis.
    pub fn positions(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
        let (scale, origin) = (self.scale, self.origin);
        self.vertices.iter().map(move |v| v.position(scale, origin))
    }

    /// Decoded position of vertex `index`.
    pub fn position(&self, index: usize) -> Option<[f32; 3]> {
        let v = self.vertices.get(index)?;
        Some(v.position(self.scale, self.origin))
    }

    /// Unit normals from the 162-entry table. An index ≥ 162 (which engines read out of
    /// bounds) decodes to the documented fallback `(0, 0, 1)`; [`Mdl::check`] reports it.
    pub fn normals(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
        self.vertices.iter().map(TriVertex::normal)
    }

    /// Number of vertices whose normal index is ≥ 162.
    pub fn bad_normal_count(&self) -> usize {
        self.vertices
            .iter()
            .filter(|v| !v.normal_in_table())
            .count()
    }

    /// Writes decoded positions into `out` (the first `min(out.len(), numverts)` entries);
    /// returns how many were written.
    pub fn positions_into(&self, out: &mut [[f32; 3]]) -> usize {
        let mut n = 0usize;
        for (o, p) in out.iter_mut().zip(self.positions()) {
            *o = p;
            n = n.saturating_add(1);
        }
        n
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
            let tri = |t: &[i32; 3]| Triangle {
                faces_front: I32::new(0),
                vert_index: t.map(I32::new),
            };
            let mut buf = [tri(&[0; 3]); 2];
            for (slot, t) in buf.iter_mut().zip(tris) {
                *slot = tri(t);
            }
            indices_in_range(buf.get(..tris.len()).unwrap_or(&buf), n)
        });
    }
}
