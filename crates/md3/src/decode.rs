//! Decoding: positions, normals, engine-exact frame interpolation, tags and placement
//! on tags (docs/formats.md §3.3, docs/game-data.md §6.4.2).

use core::fmt;

use idmodel_core::md3_normal;

use crate::raw::{self, XYZ_SCALE};
use crate::view::{Md3, Surface};

/// How to decode the lat/long normals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NormalDecode {
    /// Bit for bit what Quake III and ioquake3 compute, through their 1023-step sine
    /// table (angles come out scaled by 1024/1023).
    #[default]
    Exact,
    /// The mathematical decode, `a, b = byte · 2π/256`.
    Ideal,
    /// The middle of the cell q3map's `NormalToLatLong` encodes to the stored value
    /// ([`md3_normal::decode_centre`]): what survives a further quantization, such as
    /// byte normals in a compact glTF.
    Centre,
}

impl NormalDecode {
    /// Decodes one stored normal.
    pub fn decode(self, n: u16) -> [f32; 3] {
        match self {
            Self::Exact => md3_normal::decode_exact(n),
            Self::Ideal => md3_normal::decode_ideal(n),
            Self::Centre => md3_normal::decode_centre(n),
        }
    }
}

/// Why a decode into caller slices did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// A frame index is not below the surface's frame count.
    FrameOutOfRange {
        /// The requested frame.
        frame: usize,
        /// The surface's `numFrames`.
        frames: usize,
    },
    /// An output slice does not hold exactly one entry per vertex.
    BufferLength {
        /// The surface's `numVerts`.
        needed: usize,
        /// The slice's length.
        got: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::FrameOutOfRange { frame, frames } => {
                write!(
                    f,
                    "frame {frame} out of range (surface has {frames} frames)"
                )
            }
            Self::BufferLength { needed, got } => {
                write!(
                    f,
                    "output slice holds {got} vertices, the surface has {needed}"
                )
            }
        }
    }
}

impl core::error::Error for DecodeError {}

/// ioq3's `Q_rsqrt`: the bit-trick inverse square root with one Newton step, as
/// `VectorNormalizeFast` uses it when renormalising lerped normals.
pub fn q_rsqrt(number: f32) -> f32 {
    let x2 = number * 0.5;
    let i = i32::from_ne_bytes(number.to_bits().to_ne_bytes());
    let i = 0x5f37_59df_i32.wrapping_sub(i.wrapping_shr(1));
    let y = f32::from_bits(u32::from_ne_bytes(i.to_ne_bytes()));
    y * (1.5 - (x2 * y * y))
}

/// C's `(float)(double)` narrowing.
#[allow(clippy::as_conversions)] // f64 → f32 rounding is the intent; no `From` exists.
fn narrow(v: f64) -> f32 {
    v as f32
}

/// q_math.c `VectorNormalize`: `ilength = 1/(float)sqrt(len²)`, a zero vector stays zero.
pub fn vector_normalize(v: [f32; 3]) -> [f32; 3] {
    let len = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if len == 0.0 {
        return v;
    }
    let il = 1.0 / libm::sqrtf(len);
    [v[0] * il, v[1] * il, v[2] * il]
}

impl<'a> Surface<'a> {
    /// The positions of `frame` in model units (`xyz / 64`), or `None` when out of range.
    pub fn positions(&self, frame: usize) -> Option<impl ExactSizeIterator<Item = [f32; 3]> + 'a> {
        Some(self.frame(frame)?.iter().map(raw::XyzNormal::position))
    }

    /// The normals of `frame`, decoded with `mode`, or `None` when out of range.
    pub fn normals(
        &self,
        frame: usize,
        mode: NormalDecode,
    ) -> Option<impl ExactSizeIterator<Item = [f32; 3]> + 'a> {
        Some(
            self.frame(frame)?
                .iter()
                .map(move |v| mode.decode(v.normal())),
        )
    }

    /// Writes the triangle indices, three per triangle, each plus `base` (the surface's
    /// first vertex in a shared vertex buffer), into `out`, which must hold exactly
    /// `3 × triangles().len()` entries. A plain copy loop (the indices were checked by
    /// `parse`); `base + index` wraps if it does not fit a `u32`.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_md3::{Md3, Model};
    /// let bytes = idmodel_md3::write(&Model::example()).unwrap();
    /// let s = Md3::parse(&bytes).unwrap().surface(0).unwrap();
    /// let mut out = vec![0u32; 3 * s.triangles().len()];
    /// s.indices_into(100, &mut out).unwrap();
    /// assert_eq!(out, s.indices().flatten().map(|i| i + 100).collect::<Vec<_>>());
    /// let mut uv = vec![[0.0; 2]; s.num_verts()];
    /// s.tex_coords_into(&mut uv).unwrap();
    /// assert_eq!(uv, s.tex_coords().collect::<Vec<_>>());
    /// assert!(s.tex_coords_into(&mut []).is_err());
    /// # }
    /// ```
    pub fn indices_into(&self, base: u32, out: &mut [u32]) -> Result<(), DecodeError> {
        let words = zerocopy::IntoBytes::as_bytes(self.triangles());
        let needed = words.len() / 4;
        if out.len() != needed {
            return Err(DecodeError::BufferLength {
                needed,
                got: out.len(),
            });
        }
        for (o, w) in out.iter_mut().zip(words.chunks_exact(4)) {
            let i = <[u8; 4]>::try_from(w).map_or(0, u32::from_le_bytes);
            *o = i.wrapping_add(base);
        }
        Ok(())
    }

    /// Writes the texture coordinates as stored (one per vertex) into `out`, which must
    /// hold exactly `num_verts()` entries.
    pub fn tex_coords_into(&self, out: &mut [[f32; 2]]) -> Result<(), DecodeError> {
        let st = self.st();
        if out.len() != st.len() {
            return Err(DecodeError::BufferLength {
                needed: st.len(),
                got: out.len(),
            });
        }
        for (o, s) in out.iter_mut().zip(st) {
            *o = s.get();
        }
        Ok(())
    }

    /// Decodes one frame into caller slices (one entry per vertex each).
    pub fn decode_frame(
        &self,
        frame: usize,
        mode: NormalDecode,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DecodeError> {
        self.lerp_into(frame, frame, 0.0, mode, positions, normals)
    }

    /// Interpolates between two frames exactly as the renderer does
    /// (`LerpMeshVertexes_scalar`, renderergl1/tr_surface.c), writing into caller slices.
    ///
    /// `backlerp` is the weight of `old` (0 shows `new` alone). The scales are computed
    /// as the engine does, in double precision then narrowed:
    /// `newScale = (1/64)·(1 − backlerp)`, `oldScale = (1/64)·backlerp`, and
    /// `pos = old·oldScale + new·newScale` in f32. With `backlerp == 0` the new frame is
    /// copied and its normals are not renormalised; otherwise both normals are decoded,
    /// blended with `backlerp` and `1 − backlerp`, and renormalised with ioq3's
    /// `VectorNormalizeFast` ([`q_rsqrt`]) for [`NormalDecode::Exact`], or an exact
    /// normalisation for [`NormalDecode::Ideal`].
    ///
    /// Frames must be below [`Surface::num_frames`]; to reproduce the engine's reset of
    /// out-of-range frames use [`Md3::engine_frames`] first.
    pub fn lerp_into(
        &self,
        old: usize,
        new: usize,
        backlerp: f32,
        mode: NormalDecode,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), DecodeError> {
        let frames = self.num_frames();
        let out_of_range = |frame| DecodeError::FrameOutOfRange { frame, frames };
        let old_v = self.frame(old).ok_or_else(|| out_of_range(old))?;
        let new_v = self.frame(new).ok_or_else(|| out_of_range(new))?;
        let needed = self.num_verts();
        for got in [positions.len(), normals.len()] {
            if got != needed {
                return Err(DecodeError::BufferLength { needed, got });
            }
        }
        let new_scale = narrow(f64::from(XYZ_SCALE) * (1.0 - f64::from(backlerp)));
        let new_nscale = narrow(1.0 - f64::from(backlerp));
        let verts = new_v
            .iter()
            .zip(old_v)
            .zip(positions.iter_mut().zip(normals.iter_mut()));
        if backlerp == 0.0 {
            // Two plain passes (positions, then normals with the mode chosen once) keep
            // every value in registers; one interleaved loop went through the stack.
            for (n, p) in new_v.iter().zip(positions.iter_mut()) {
                let [x, y, z] = n.xyz();
                *p = [
                    f32::from(x) * new_scale,
                    f32::from(y) * new_scale,
                    f32::from(z) * new_scale,
                ];
            }
            match mode {
                NormalDecode::Exact => {
                    for (n, nrm) in new_v.iter().zip(normals.iter_mut()) {
                        *nrm = md3_normal::decode_exact(n.normal());
                    }
                }
                NormalDecode::Ideal => {
                    for (n, nrm) in new_v.iter().zip(normals.iter_mut()) {
                        *nrm = md3_normal::decode_ideal(n.normal());
                    }
                }
                NormalDecode::Centre => {
                    for (n, nrm) in new_v.iter().zip(normals.iter_mut()) {
                        *nrm = md3_normal::decode_centre(n.normal());
                    }
                }
            }
            return Ok(());
        }
        let old_scale = narrow(f64::from(XYZ_SCALE) * f64::from(backlerp));
        let old_nscale = backlerp;
        for ((n, o), (p, nrm)) in verts {
            let (nx, ox) = (n.xyz(), o.xyz());
            for k in 0..3 {
                let (Some(out), Some(&a), Some(&b)) = (p.get_mut(k), ox.get(k), nx.get(k)) else {
                    continue;
                };
                *out = f32::from(a) * old_scale + f32::from(b) * new_scale;
            }
            let a = mode.decode(o.normal());
            let b = mode.decode(n.normal());
            let v = [
                a[0] * old_nscale + b[0] * new_nscale,
                a[1] * old_nscale + b[1] * new_nscale,
                a[2] * old_nscale + b[2] * new_nscale,
            ];
            *nrm = match mode {
                NormalDecode::Exact => {
                    let il = q_rsqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                    [v[0] * il, v[1] * il, v[2] * il]
                }
                NormalDecode::Ideal | NormalDecode::Centre => vector_normalize(v),
            };
        }
        Ok(())
    }
}

/// A tag's placement: `origin` and `axis` rows (forward, left, up) in the parent's
/// model space; also an entity's placement in the world (`refEntity_t` origin/axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orientation {
    /// Position.
    pub origin: [f32; 3],
    /// Rows: the local X, Y and Z axes.
    pub axis: [[f32; 3]; 3],
}

impl Orientation {
    /// Zero origin, identity axis: what the engine uses for a missing tag.
    pub const IDENTITY: Self = Self {
        origin: [0.0; 3],
        axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    };

    /// The stored placement of a raw tag.
    pub fn from_tag(tag: &raw::Tag) -> Self {
        Self {
            origin: tag.origin(),
            axis: tag.axis(),
        }
    }
}

/// q_math.c `MatrixMultiply`: `out[i][j] = Σk a[i][k]·b[k][j]` (rows are axes).
pub fn matrix_multiply(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> [[f32; 3]; 3] {
    let mut out = [[0.0f32; 3]; 3];
    for (row, a_row) in out.iter_mut().zip(a) {
        for (j, o) in row.iter_mut().enumerate() {
            let col = |k: usize| b.get(k).and_then(|r| r.get(j)).copied().unwrap_or(0.0);
            *o = a_row[0] * col(0) + a_row[1] * col(1) + a_row[2] * col(2);
        }
    }
    out
}

fn origin_on_tag(parent: &Orientation, tag: &Orientation) -> [f32; 3] {
    // VectorMA(origin, tag.origin[i], parent.axis[i], origin) for i = 0, 1, 2.
    let mut o = parent.origin;
    for (s, axis) in tag.origin.iter().zip(&parent.axis) {
        for (ok, ak) in o.iter_mut().zip(axis) {
            *ok += ak * s;
        }
    }
    o
}

/// Places a child on a parent's (already lerped) tag as `CG_PositionEntityOnTag`:
/// `origin = parent.origin + Σi tag.origin[i]·parent.axis[i]`,
/// `axis = tag.axis × parent.axis`. Used for weapons.
///
/// ```
/// use idmodel_md3::{Orientation, position_on_tag};
/// let parent = Orientation { origin: [10.0, 0.0, 0.0], ..Orientation::IDENTITY };
/// let tag = Orientation { origin: [0.0, 0.0, 5.0], ..Orientation::IDENTITY };
/// assert_eq!(position_on_tag(&parent, &tag).origin, [10.0, 0.0, 5.0]);
/// ```
pub fn position_on_tag(parent: &Orientation, tag: &Orientation) -> Orientation {
    Orientation {
        origin: origin_on_tag(parent, tag),
        axis: matrix_multiply(&tag.axis, &parent.axis),
    }
}

/// Places a child on a parent's tag as `CG_PositionRotatedEntityOnTag` (torso and
/// head): the origin as [`position_on_tag`], `axis = local × tag.axis × parent.axis`.
pub fn position_rotated_on_tag(
    parent: &Orientation,
    tag: &Orientation,
    local: &[[f32; 3]; 3],
) -> Orientation {
    let temp = matrix_multiply(local, &tag.axis);
    Orientation {
        origin: origin_on_tag(parent, tag),
        axis: matrix_multiply(&temp, &parent.axis),
    }
}

impl<'a> Md3<'a> {
    /// `R_GetTag`: the tag named `name` (case-sensitive) in `frame`, with a frame past
    /// the end clamped to the last one.
    pub fn tag(&self, frame: usize, name: impl AsRef<[u8]>) -> Option<&'a raw::Tag> {
        let frame = frame.min(self.num_frames().saturating_sub(1));
        let name = name.as_ref();
        self.frame_tags(frame)?
            .iter()
            .find(|t| t.name().as_bytes() == name)
    }

    /// `R_LerpTag`: the tag `name` (case-sensitive) interpolated from `frame_a` to
    /// `frame_b` by `frac` (the weight of `frame_b`). Origin and axis rows are mixed
    /// linearly and each row is normalised on its own, not re-orthogonalised. Frames past
    /// the end are clamped to the last one. A missing tag gives `None` (the engine then
    /// uses [`Orientation::IDENTITY`]).
    pub fn lerp_tag(
        &self,
        name: impl AsRef<[u8]>,
        frame_a: usize,
        frame_b: usize,
        frac: f32,
    ) -> Option<Orientation> {
        let name = name.as_ref();
        let start = Orientation::from_tag(self.tag(frame_a, name)?);
        let end = Orientation::from_tag(self.tag(frame_b, name)?);
        let back = 1.0 - frac;
        let mix = |a: [f32; 3], b: [f32; 3]| {
            [
                a[0] * back + b[0] * frac,
                a[1] * back + b[1] * frac,
                a[2] * back + b[2] * frac,
            ]
        };
        Some(Orientation {
            origin: mix(start.origin, end.origin),
            axis: [
                vector_normalize(mix(start.axis[0], end.axis[0])),
                vector_normalize(mix(start.axis[1], end.axis[1])),
                vector_normalize(mix(start.axis[2], end.axis[2])),
            ],
        })
    }
}

/// A surface name as the engine keeps it after `R_LoadMD3`: lower-cased, and with the
/// last two characters cut when the name is longer than 2 and its second-to-last
/// character is `_` (`arm_l` → `arm`, `_x` stays). Skins match against this name.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EngineName {
    buf: [u8; raw::MAX_QPATH],
    len: u8,
}

impl Surface<'_> {
    /// The name the engine uses (lower-cased, a final `_x` cut when longer than 2).
    pub fn engine_name(&self) -> EngineName {
        EngineName::from_raw(self.name().as_bytes())
    }
}

impl EngineName {
    /// Applies the engine's rule to a raw name (at most 64 bytes are kept).
    pub fn from_raw(raw_name: &[u8]) -> Self {
        let mut buf = [0u8; raw::MAX_QPATH];
        let mut len = 0usize;
        for (o, b) in buf.iter_mut().zip(raw_name) {
            *o = b.to_ascii_lowercase();
            len = len.saturating_add(1);
        }
        if len > 2 && buf.get(len.saturating_sub(2)) == Some(&b'_') {
            len = len.saturating_sub(2);
        }
        Self {
            buf,
            len: u8::try_from(len).unwrap_or(u8::MAX),
        }
    }

    /// The name's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// True when the engine's name is not just the lower-cased raw name (a `_x` was cut).
    pub fn is_shortened(&self, raw_name: &[u8]) -> bool {
        self.len() != raw_name.len().min(raw::MAX_QPATH)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True for an empty name.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Display for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&idmodel_core::Name::from_field(self.as_bytes()), f)
    }
}

impl fmt::Debug for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

impl PartialEq<str> for EngineName {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for EngineName {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
