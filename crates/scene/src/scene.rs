//! The intermediate scene: what a format adapter builds and the exporter writes.
//!
//! Everything here is in the **file's conventions**: id axes (Z up, models face +X),
//! id triangle winding (clockwise front faces), id camera orientation (a camera looks
//! along its node's local +X with +Z up). The glTF writer (`idmodel-gltf`) converts all of
//! that to glTF's conventions as its options say, so an adapter never has to.
//!
//! Indices between the lists (`Node::mesh`, `Primitive::material`, `Skin::joints`, …) are
//! positions in the [`Scene`] vectors; the exporter checks every one of them and returns an
//! error rather than writing an invalid file.

use alloc::string::String;
use alloc::vec::Vec;

/// A whole model: the root of the intermediate representation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// Name of the glTF scene (for example the model's file name).
    pub name: String,
    /// Meshes, referenced by [`Node::mesh`].
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Nodes. A node that is no other node's child is a root of the scene.
    pub nodes: Vec<Node>,
    /// Skins, referenced by [`Node::skin`].
    pub skins: Vec<Skin>,
    /// Animation clips.
    pub animations: Vec<Animation>,
    /// Cameras, referenced by [`Node::camera`].
    pub cameras: Vec<Camera>,
    /// Facts of the source file that glTF cannot say ([`crate::extras`]), written as the
    /// glTF scene's `extras` and read back on import.
    pub extras: crate::Extras,
}

/// A mesh: primitives drawn together, sharing one set of morph targets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Name of the mesh.
    pub name: String,
    /// The primitives. Every primitive must have the same number of morph targets
    /// (a glTF rule); primitives without vertices or triangles are left out of the file.
    pub primitives: Vec<Primitive>,
    /// Optional names of the morph targets (written as `extras.targetNames`, which
    /// Blender and three.js read); empty, or one per target.
    pub target_names: Vec<String>,
}

/// One draw call: a triangle list with one material.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    /// Vertex positions in file axes (`POSITION`).
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals in file axes (`NORMAL`); empty for none, else one per vertex.
    /// The exporter normalises them (glTF requires unit normals) and replaces a zero or
    /// non-finite normal by the file's up axis `[0, 0, 1]`.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates (`TEXCOORD_0`), glTF convention: `[0, 0]` is the top-left of
    /// the image. Empty for none, else one per vertex.
    pub uvs: Vec<[f32; 2]>,
    /// Triangle list, three indices per triangle, in the file's winding (clockwise front
    /// faces for every id format).
    pub indices: Vec<u32>,
    /// Index into [`Scene::materials`]; `None` uses glTF's default material.
    pub material: Option<usize>,
    /// Skinning: for each vertex, its `(joint, weight)` pairs, where `joint` indexes the
    /// [`Skin::joints`] of the skin on the node that draws this mesh. Empty when the
    /// primitive is not skinned, else one entry per vertex.
    ///
    /// The exporter merges pairs naming the same joint, drops zero and negative weights,
    /// keeps the **8 largest** weights when a vertex has more (writing `JOINTS_0` /
    /// `WEIGHTS_0` and, when any vertex needs more than 4, `JOINTS_1` / `WEIGHTS_1`), and
    /// renormalises the kept weights to sum to 1. A vertex left with no weight is bound to
    /// joint 0 with weight 1.
    pub influences: Vec<Vec<(u16, f32)>>,
    /// Morph targets (relative displacements), all of the same length as `positions`.
    pub targets: Vec<MorphTarget>,
}

/// A morph target: per-vertex displacements added to the base primitive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphTarget {
    /// Displacement of each vertex position, in file axes (relative to the base).
    pub positions: Vec<[f32; 3]>,
    /// Displacement of each vertex normal, in file axes; empty for none.
    pub normals: Vec<[f32; 3]>,
}

impl MorphTarget {
    /// Builds a target from absolute frame data: the displacements `frame − base`.
    ///
    /// `frame_normals` may be empty (no normal displacements). When lengths differ the
    /// missing entries count as zero displacement; the exporter then reports the length
    /// mismatch if `base` and the primitive disagree. A displacement that is not finite
    /// (the difference of two huge positions) is 0.
    pub fn from_absolute(
        base_positions: &[[f32; 3]],
        frame_positions: &[[f32; 3]],
        base_normals: &[[f32; 3]],
        frame_normals: &[[f32; 3]],
    ) -> Self {
        let unit_base: Vec<[f32; 3]> = base_normals
            .iter()
            .take(frame_normals.len())
            .map(|&b| unit_or_up(b))
            .collect();
        Self::from_absolute_unit_base(base_positions, frame_positions, &unit_base, frame_normals)
    }

    /// [`MorphTarget::from_absolute`] with the base normals already [`unit_or_up`]'s:
    /// the same target, for an adapter that builds a target per frame over one base
    /// and makes its unit normals once.
    ///
    /// ```
    /// use idmodel_scene::{MorphTarget, unit_or_up};
    /// let base = [[0.0, 0.0, 0.0]];
    /// let base_normals = [[0.0, 0.0, 2.0]];
    /// let frame = [[1.0, 2.0, 3.0]];
    /// let frame_normals = [[3.0, 0.0, 0.0]];
    /// let unit: Vec<[f32; 3]> = base_normals.iter().map(|&n| unit_or_up(n)).collect();
    /// let t = MorphTarget::from_absolute_unit_base(&base, &frame, &unit, &frame_normals);
    /// assert_eq!(t, MorphTarget::from_absolute(&base, &frame, &base_normals, &frame_normals));
    /// assert_eq!(t.normals, [[1.0, 0.0, -1.0]]);
    /// ```
    pub fn from_absolute_unit_base(
        base_positions: &[[f32; 3]],
        frame_positions: &[[f32; 3]],
        unit_base_normals: &[[f32; 3]],
        frame_normals: &[[f32; 3]],
    ) -> Self {
        let sub = |a: &[f32; 3], b: &[f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        Self {
            positions: frame_positions
                .iter()
                .zip(base_positions)
                .map(|(f, b)| idmodel_core::vec::finite_or_zero(sub(f, b)))
                .collect(),
            normals: frame_normals
                .iter()
                .zip(unit_base_normals)
                .map(|(f, b)| sub(&unit_or_up(*f), b))
                .collect(),
        }
    }
}

/// `v` scaled to unit length, or the file's up axis `[0, 0, 1]` when `v` is zero or not
/// finite. The exporter applies this to every `NORMAL`.
pub fn unit_or_up(v: [f32; 3]) -> [f32; 3] {
    let len = libm::sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if len.is_finite() && len > 1e-12 {
        [v[0] / len, v[1] / len, v[2] / len]
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Area-weighted vertex normals of `positions` over `triangles` (indices into
/// `positions`, the MD2's clockwise front faces): each triangle adds its un-normalised
/// face normal (twice its area) to its three vertices, then each sum is normalised. A
/// vertex on no triangle, or only on degenerate ones, gets the up normal `(0, 0, 1)`.
///
/// ```
/// use idmodel_scene::md2::smooth_normals;
/// // Clockwise seen from +Z: the front faces +Z.
/// let n = smooth_normals(&[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], &[[0, 1, 2]]);
/// assert_eq!(n, vec![[0.0, 0.0, 1.0]; 3]);
/// ```
pub fn smooth_normals(positions: &[[f32; 3]], triangles: &[[usize; 3]]) -> Vec<[f32; 3]> {
    let mut sums = alloc::vec![[0.0f64; 3]; positions.len()];
    for t in triangles {
        let (Some(a), Some(b), Some(c)) = (
            positions.get(t[0]),
            positions.get(t[1]),
            positions.get(t[2]),
        ) else {
            continue;
        };
        let e1 = [
            f64::from(c[0]) - f64::from(a[0]),
            f64::from(c[1]) - f64::from(a[1]),
            f64::from(c[2]) - f64::from(a[2]),
        ];
        let e2 = [
            f64::from(b[0]) - f64::from(a[0]),
            f64::from(b[1]) - f64::from(a[1]),
            f64::from(b[2]) - f64::from(a[2]),
        ];
        // (c − a) × (b − a): the outward normal of a clockwise triangle.
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        if !n.iter().all(|x| x.is_finite()) {
            continue;
        }
        for &i in t {
            if let Some(s) = sums.get_mut(i) {
                s[0] += n[0];
                s[1] += n[1];
                s[2] += n[2];
            }
        }
    }
    sums.into_iter()
        .map(|s| {
            let len = libm::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
            if len > 0.0 && len.is_finite() {
                let f = |x: f64| -> f32 {
                    // f64 → f32 rounding of a unit component: in range.
                    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
                    let v = (x / len) as f32;
                    v
                };
                [f(s[0]), f(s[1]), f(s[2])]
            } else {
                [0.0, 0.0, 1.0]
            }
        })
        .collect()
}

/// A material: a name, an optional base-colour texture and the few facts of the engines'
/// shaders and materials that glTF can say (alpha test or blend, two-sided, clamping,
/// emissive and normal textures).
///
/// Build one with [`Material::new`] and set fields on it: fields are added over time, and
/// a struct literal would break.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name (for MD2/MD3 the skin or shader name).
    pub name: String,
    /// Base-colour texture, if any.
    pub image: Option<Image>,
    /// Base colour factor (linear RGBA), multiplied with the texture.
    pub base_color: [f32; 4],
    /// How alpha is used.
    pub alpha: AlphaMode,
    /// Whether back faces are drawn too.
    pub double_sided: bool,
    /// Emissive texture (glTF `emissiveTexture`), for example a Quake skin's fullbright
    /// texels (indices 224–255) on black; multiplied by [`Material::emissive_factor`].
    pub emissive: Option<Image>,
    /// Emissive factor (linear RGB); `[0, 0, 0]` (glTF's default) gives no emission.
    pub emissive_factor: [f32; 3],
    /// Tangent-space normal map in glTF's convention (+X right, **+Y up**: a Doom 3
    /// bump map has its green channel inverted when it is decoded into this).
    pub normal: Option<Image>,
    /// How texture coordinates outside `[0, 1]` sample every texture of the material.
    pub wrap: Wrap,
}

impl Material {
    /// An opaque, single-sided, white material with `name` and `image`, repeating, with
    /// no emissive or normal texture.
    ///
    /// ```
    /// use idmodel_scene::{AlphaMode, Material, Wrap};
    /// let m = Material::new("skin_0", None);
    /// assert_eq!((m.alpha, m.wrap, m.double_sided), (AlphaMode::Opaque, Wrap::Repeat, false));
    /// ```
    pub fn new(name: impl Into<String>, image: Option<Image>) -> Self {
        Self {
            name: name.into(),
            image,
            base_color: [1.0; 4],
            alpha: AlphaMode::Opaque,
            double_sided: false,
            emissive: None,
            emissive_factor: [0.0; 3],
            normal: None,
            wrap: Wrap::Repeat,
        }
    }

    /// Every image of the material: base colour, emissive, normal (those present).
    pub fn images(&self) -> impl Iterator<Item = &Image> {
        [&self.image, &self.emissive, &self.normal]
            .into_iter()
            .flatten()
    }
}

/// How texture coordinates outside `[0, 1]` are sampled (glTF sampler `wrapS`/`wrapT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wrap {
    /// Tile the image (`REPEAT`, 10497): the engines' default.
    #[default]
    Repeat,
    /// Clamp to the edge texels (`CLAMP_TO_EDGE`, 33071): Quake III `clampMap`, Doom 3
    /// `clamp` and Doom 3's implicit materials.
    Clamp,
}

/// glTF `alphaMode`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Texels with alpha below the cutoff are discarded (glTF: a texel is drawn when its
    /// alpha is **≥** the cutoff).
    Mask(f32),
    /// Alpha blended.
    Blend,
}

/// The type of an [`Image::Encoded`] file: the two glTF allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mime {
    /// `image/png`.
    Png,
    /// `image/jpeg`.
    Jpeg,
}

impl Mime {
    /// The MIME type (`image/png`, `image/jpeg`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
        }
    }

    /// The usual file extension (`png`, `jpg`).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
        }
    }
}

/// A texture image.
#[derive(Debug, Clone, PartialEq)]
pub enum Image {
    /// Pixels to embed, encoded by the exporter as PNG (in the GLB's binary chunk or the
    /// `.bin` next to a `.gltf`).
    Rgba8 {
        /// Width in pixels (at least 1).
        width: u32,
        /// Height in pixels (at least 1).
        height: u32,
        /// `width × height × 4` bytes, rows top to bottom.
        pixels: Vec<u8>,
    },
    /// Pixels as indices into a palette of 256 RGBA colours (a Quake skin as the file
    /// holds it): the exporter writes it as an indexed PNG straight from the indices,
    /// with the same bytes as the [`Image::Rgba8`] it expands to
    /// ([`Image::to_rgba8`]), and without building or scanning that RGBA.
    Indexed8 {
        /// Width in pixels (at least 1).
        width: u32,
        /// Height in pixels (at least 1).
        height: u32,
        /// The colour of each index.
        palette: alloc::boxed::Box<[[u8; 4]; 256]>,
        /// `width × height` palette indices, rows top to bottom.
        indices: Vec<u8>,
    },
    /// A PNG or JPEG file kept byte for byte: the glTF writer embeds it without decoding
    /// it (glTF viewers do; a PNG only loses the chunks glTF clients may not honour, such
    /// as colour space and pixel aspect); the renderer needs it decoded to
    /// [`Image::Rgba8`] first (the command does that with `idmodel-assets`).
    Encoded {
        /// PNG or JPEG.
        mime: Mime,
        /// The file's bytes.
        bytes: Vec<u8>,
    },
    /// A reference to an image file, written as the image `uri` (relative to the output
    /// file). It is not read or checked; glTF viewers load only PNG and JPEG. The
    /// command never writes one: it resolves every texture name to pixels
    /// (`idmodel-assets`) or drops it with a warning, so no output names a file that was
    /// not written.
    Uri(String),
}

impl Image {
    /// Width and height of the pixels an [`Image::Rgba8`] or [`Image::Indexed8`] holds
    /// (`None` for an encoded file or a reference).
    ///
    /// ```
    /// use idmodel_scene::Image;
    /// let img = Image::Rgba8 { width: 2, height: 1, pixels: vec![0; 8] };
    /// assert_eq!(img.pixel_size(), Some((2, 1)));
    /// assert_eq!(Image::Uri("a.png".into()).pixel_size(), None);
    /// ```
    pub fn pixel_size(&self) -> Option<(u32, u32)> {
        match self {
            Self::Rgba8 { width, height, .. } | Self::Indexed8 { width, height, .. } => {
                Some((*width, *height))
            }
            Self::Encoded { .. } | Self::Uri(_) => None,
        }
    }

    /// The RGBA bytes of an [`Image::Rgba8`] (borrowed) or an [`Image::Indexed8`] (each
    /// index's colour, expanded); `None` for an encoded file or a reference.
    ///
    /// ```
    /// use idmodel_scene::Image;
    /// let mut palette = Box::new([[0u8; 4]; 256]);
    /// palette[7] = [1, 2, 3, 255];
    /// let img = Image::Indexed8 { width: 2, height: 1, palette, indices: vec![7, 0] };
    /// assert_eq!(img.rgba8_pixels().unwrap().as_ref(), &[1, 2, 3, 255, 0, 0, 0, 0]);
    /// ```
    pub fn rgba8_pixels(&self) -> Option<alloc::borrow::Cow<'_, [u8]>> {
        use alloc::borrow::Cow;
        match self {
            Self::Rgba8 { pixels, .. } => Some(Cow::Borrowed(pixels)),
            Self::Indexed8 {
                palette, indices, ..
            } => Some(Cow::Owned(expand_indexed(palette, indices))),
            Self::Encoded { .. } | Self::Uri(_) => None,
        }
    }

    /// This image with an [`Image::Indexed8`] expanded to [`Image::Rgba8`]; any other
    /// image unchanged.
    ///
    /// ```
    /// use idmodel_scene::Image;
    /// let palette = Box::new([[9u8, 8, 7, 255]; 256]);
    /// let img = Image::Indexed8 { width: 1, height: 1, palette, indices: vec![3] };
    /// assert_eq!(img.to_rgba8(), Image::Rgba8 { width: 1, height: 1, pixels: vec![9, 8, 7, 255] });
    /// ```
    pub fn to_rgba8(self) -> Image {
        match self {
            Self::Indexed8 {
                width,
                height,
                palette,
                indices,
            } => Self::Rgba8 {
                width,
                height,
                pixels: expand_indexed(&palette, &indices),
            },
            other => other,
        }
    }
}

/// Each index's RGBA colour, in order.
fn expand_indexed(palette: &[[u8; 4]; 256], indices: &[u8]) -> Vec<u8> {
    let mut pixels = alloc::vec![0u8; indices.len().saturating_mul(4)];
    for (&i, px) in indices.iter().zip(pixels.chunks_exact_mut(4)) {
        if let Some(c) = palette.get(usize::from(i)) {
            px.copy_from_slice(c);
        }
    }
    pixels
}

/// A node of the scene graph, with a translation-rotation-scale transform in file axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Name (joint names, MD3 tag names, …).
    pub name: String,
    /// Indices of the child nodes. A node may have at most one parent and the graph may
    /// have no cycles.
    pub children: Vec<usize>,
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation as a quaternion `[x, y, z, w]` in the standard (Hamilton, right-handed)
    /// convention, as glTF uses. Normalised by the exporter.
    pub rotation: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
    /// Mesh drawn at this node.
    pub mesh: Option<usize>,
    /// Skin deforming the mesh (requires `mesh`).
    pub skin: Option<usize>,
    /// Camera at this node. IR cameras look along the node's local **+X** with **+Z** up
    /// (the id convention); the exporter adds a child node that turns glTF's camera
    /// (looking along −Z with +Y up) to match.
    pub camera: Option<usize>,
    /// The morph-target weights the mesh shows at rest, when no animation plays (glTF's
    /// node `weights`); empty means all zero, the base shape. When set, one per target
    /// of the mesh.
    pub weights: Vec<f32>,
}

impl Node {
    /// A node with the identity transform and nothing attached.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            children: Vec::new(),
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            mesh: None,
            skin: None,
            camera: None,
            weights: Vec::new(),
        }
    }
}

/// A skin: the joints that deform a mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skin {
    /// Name.
    pub name: String,
    /// Node index of each joint; [`Primitive::influences`] index this list.
    pub joints: Vec<usize>,
    /// One inverse bind matrix per joint, column-major 4×4 in file axes (the inverse of
    /// the joint's world transform in the bind pose). Must be affine (last row 0 0 0 1).
    /// Empty means identity matrices.
    pub inverse_bind_matrices: Vec<[f32; 16]>,
    /// Optional common root of the joint hierarchy.
    pub skeleton: Option<usize>,
}

/// An animation clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Animation {
    /// Name of the clip (frame-group name, animation.cfg entry, md5anim file name, …).
    pub name: String,
    /// The channels; each has its own keyframe times.
    pub channels: Vec<Channel>,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// The animated node.
    pub node: usize,
    /// Keyframe times in seconds: finite, non-negative and strictly increasing.
    pub times: Vec<f32>,
    /// How values between keys are computed.
    pub interpolation: Interpolation,
    /// The keyed values, one per time (for weights: one per time per morph target).
    pub values: ChannelValues,
}

/// Keyframe interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Linear (spherical linear for rotations).
    #[default]
    Linear,
    /// Value held until the next key.
    Step,
}

/// The values of a [`Channel`], in file axes.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelValues {
    /// Node translation per key.
    Translation(Vec<[f32; 3]>),
    /// Node rotation `[x, y, z, w]` per key (normalised by the exporter).
    Rotation(Vec<[f32; 4]>),
    /// Node scale per key.
    Scale(Vec<[f32; 3]>),
    /// Morph weights of the node's mesh: `times.len() × targets` values, key by key.
    Weights(Vec<f32>),
    /// Morph weights of the node's mesh stored sparsely: `targets` weights per key, all 0
    /// except the listed `(key, target, weight)` entries, in strictly increasing
    /// `(key, target)` order. Its size is linear in the keys, where [`Weights`] is
    /// `keys × targets`: the animations of the morph adapters (one target set to 1 per
    /// key) use it, and the glTF writer stores it as a sparse accessor.
    ///
    /// [`Weights`]: ChannelValues::Weights
    SparseWeights {
        /// Morph targets of the mesh (weights per key).
        targets: usize,
        /// The non-zero weights: `(key, target, weight)`.
        nonzero: Vec<(usize, usize, f32)>,
    },
    /// A camera's vertical field of view in radians per key (the md5camera's zoom). The
    /// channel's `node` is the node holding the camera; the glTF writer stores it as a
    /// `KHR_animation_pointer` channel on `/cameras/N/perspective/yfov`, keeping the
    /// camera's own [`Camera::yfov`] for clients without the extension.
    CameraYfov {
        /// The camera, an index into [`Scene::cameras`].
        camera: usize,
        /// yfov per key, radians (finite, > 0).
        yfov: Vec<f32>,
    },
}

impl ChannelValues {
    /// Whether these are morph weights, dense or sparse.
    ///
    /// ```
    /// use idmodel_scene::ChannelValues;
    /// assert!(ChannelValues::one_hot(2, [Some(1)]).is_weights());
    /// assert!(ChannelValues::Weights(vec![0.0, 1.0]).is_weights());
    /// assert!(!ChannelValues::Scale(vec![[1.0; 3]]).is_weights());
    /// ```
    pub fn is_weights(&self) -> bool {
        matches!(self, Self::Weights(_) | Self::SparseWeights { .. })
    }

    /// One-hot morph weights: key `k` sets target `shown[k]` to 1 and every other
    /// target to 0 (all 0 where `shown[k]` is `None` or not below `targets`).
    ///
    /// ```
    /// use idmodel_scene::ChannelValues;
    /// let v = ChannelValues::one_hot(3, [None, Some(2), Some(0)]);
    /// assert_eq!(v.dense(3), Some(vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]));
    /// ```
    pub fn one_hot(targets: usize, shown: impl IntoIterator<Item = Option<usize>>) -> Self {
        let nonzero = shown
            .into_iter()
            .enumerate()
            .filter_map(|(k, t)| t.filter(|&t| t < targets).map(|t| (k, t, 1.0)))
            .collect();
        Self::SparseWeights { targets, nonzero }
    }

    /// Weights as the dense `keys × targets` list (`None` for other channels, or when an
    /// entry lies outside `keys × targets` or the size overflows).
    pub fn dense(&self, keys: usize) -> Option<Vec<f32>> {
        match self {
            Self::Weights(v) => Some(v.clone()),
            Self::SparseWeights { targets, nonzero } => {
                let mut v = alloc::vec![0.0; keys.checked_mul(*targets)?];
                for &(k, t, w) in nonzero {
                    if t >= *targets {
                        return None;
                    }
                    let i = k.checked_mul(*targets)?.checked_add(t)?;
                    *v.get_mut(i)? = w;
                }
                Some(v)
            }
            _ => None,
        }
    }
}

/// A perspective camera.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    /// Name.
    pub name: String,
    /// Vertical field of view in radians ([`crate::axes::yfov_from_xfov`] turns a horizontal one into it).
    pub yfov: f32,
    /// Width / height, if known.
    pub aspect_ratio: Option<f32>,
    /// Near clipping distance (> 0).
    pub znear: f32,
    /// Far clipping distance (> znear), or `None` for an infinite projection.
    pub zfar: Option<f32>,
}

impl Scene {
    /// A still scene: one mesh of `primitives` named `name`, drawn by one node with the
    /// identity transform, using `materials`; no skins, animations or cameras. What an
    /// adapter's `frame` returns (one posed frame, for the renderer and the OBJ writer).
    ///
    /// ```
    /// let scene = idmodel_scene::Scene::still("box", Vec::new(), Vec::new());
    /// assert_eq!(scene.nodes[0].mesh, Some(0));
    /// assert_eq!(scene.meshes.len(), 1);
    /// ```
    pub fn still(
        name: impl Into<String>,
        primitives: Vec<Primitive>,
        materials: Vec<Material>,
    ) -> Self {
        let name: String = name.into();
        let mut node = Node::new(name.clone());
        node.mesh = Some(0);
        Self {
            name: name.clone(),
            meshes: alloc::vec![Mesh {
                name,
                primitives,
                target_names: Vec::new(),
            }],
            materials,
            nodes: alloc::vec![node],
            ..Self::default()
        }
    }
}

/// `path` (already with `/` separators) as a relative URI reference: a leading `/`
/// dropped and bytes outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded (the skin and shader
/// names of the adapters).
pub(crate) fn uri_path(path: &str) -> String {
    use core::fmt::Write as _;
    let mut uri = String::with_capacity(path.len());
    for b in path.trim_start_matches('/').bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri
}

/// The start of an MD3 tag-frames node's (and mesh's) name; the tag's name follows.
pub const TAG_FRAMES_PREFIX: &str = "frames of ";

/// `name` without a trailing `.NNN` (three or more digits): the suffix Blender adds to a
/// name it already holds (`tag_torso.001` for a player's second `tag_torso`).
pub fn editor_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, digits)) if digits.len() >= 3 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            stem
        }
        _ => name,
    }
}

/// Whether `node` is an MD3 tag-frames node (see `idmodel_scene::md3`'s tag frames): named [`TAG_FRAMES_PREFIX`]` + …` and
/// drawing a mesh. Adapters that collect geometry skip these.
///
/// ```
/// use idmodel_scene::{Node, is_tag_frames};
/// let mut n = Node::new("frames of tag_weapon");
/// assert!(!is_tag_frames(&n));
/// n.mesh = Some(0);
/// assert!(is_tag_frames(&n));
/// n.name = "upper".into();
/// assert!(!is_tag_frames(&n));
/// ```
pub fn is_tag_frames(node: &Node) -> bool {
    node.mesh.is_some() && node.name.starts_with(TAG_FRAMES_PREFIX)
}
