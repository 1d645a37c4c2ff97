//! One MD3 as scene pieces: surfaces → primitives, shader names → materials, tags →
//! nodes and channels, morph targets, the size budget, tag markers.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::vec::{axpy, cross, dot, finite_or_zero, quat_continuous, quat_from_axes, sub};
use idmodel_md3::{Md3, Name, NormalDecode, Orientation, Skin, Surface};

use super::clips::{Clip, mesh_frame, tag_frame};
use super::tag_frames::tag_scale;
use crate::{
    Channel, ChannelValues, Error, Image, Interpolation, Material, Mesh, MorphTarget, Node,
    Primitive, Scene, frame_out_of_range,
};

/// Largest glTF buffer (morph displacements and animation keys, in bytes) an animated
/// scene may need; beyond it the scene is refused with a hint to export one frame.
pub const MAX_MORPH_BYTES: u64 = crate::DEFAULT_MAX_BYTES;

/// Length of the tag markers of a tag-only model, in model units.
pub const MARKER_LENGTH: f32 = 8.0;

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The frame `frame` asks for (default 0), or the range error.
pub(crate) fn frame_of(md3: &Md3<'_>, frame: Option<usize>) -> Result<usize, Error> {
    let n = frame.unwrap_or(0);
    if n < md3.num_frames() {
        Ok(n)
    } else {
        Err(frame_out_of_range(
            n,
            md3.num_frames(),
            "model",
            "frames",
            "",
        ))
    }
}

// ---------------------------------------------------------------------------------------
// Materials

/// A shader name as a relative URI reference: `\` → `/`, a leading `/` dropped, `.tga`
/// added when the file name has no extension (the image Quake III looks for), and bytes
/// outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded.
///
/// ```
/// use idmodel_scene::md3::shader_uri;
/// assert_eq!(shader_uri("models/players/sarge/band"), "models/players/sarge/band.tga");
/// assert_eq!(shader_uri("a b\\c.png"), "a%20b/c.png");
/// ```
pub fn shader_uri(name: &str) -> String {
    let mut path = name.replace('\\', "/");
    let file = path.rsplit('/').next().unwrap_or("");
    if !file.contains('.') {
        path.push_str(".tga");
    }
    crate::scene::uri_path(&path)
}

/// The materials of a scene or frame, one per distinct shader name.
#[derive(Default)]
pub(crate) struct Materials(pub(crate) Vec<Material>);

impl Materials {
    /// The material for `shader`; `None` for an empty name (the default shader).
    pub(crate) fn index(&mut self, shader: &[u8]) -> Option<usize> {
        if shader.is_empty() {
            return None;
        }
        let name = Name::from_field(shader).to_string();
        if let Some(i) = self.0.iter().position(|m| m.name == name) {
            return Some(i);
        }
        let uri = shader_uri(&String::from_utf8_lossy(shader));
        self.0.push(Material::new(
            name,
            (!uri.is_empty()).then_some(Image::Uri(uri)),
        ));
        Some(self.0.len().saturating_sub(1))
    }
}

/// The shader a surface is drawn with: the skin's entry when a skin is used, else its
/// first shader. Empty or `None`: the default shader.
fn surface_shader<'a>(s: &Surface<'a>, skin: Option<&Skin<'a>>) -> Option<&'a [u8]> {
    match skin {
        Some(skin) => skin.shader_for(s.engine_name().as_bytes(), idmodel_core::Engine::Ioq3),
        None => s.shaders().first().map(|sh| sh.name().as_bytes()),
    }
}

// ---------------------------------------------------------------------------------------
// Geometry and tags

/// Positions and normals of one surface in one frame.
type Posed = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// `(positions, normals)` of surface `s` in model frame `frame` (the surface's frame 0
/// when it has fewer frames); `None` when the surface has no vertex data at all.
fn surface_frame(s: &Surface<'_>, frame: usize, decode: NormalDecode) -> Option<Posed> {
    let f = if frame < s.num_frames() { frame } else { 0 };
    let positions = s.positions(f)?.collect();
    let normals = s.normals(f, decode)?.collect();
    Some((positions, normals))
}

/// The primitive of surface `s` at `frame`, or `None` when it draws nothing.
fn surface_primitive(
    s: &Surface<'_>,
    frame: usize,
    material: Option<usize>,
    decode: NormalDecode,
) -> Option<Primitive> {
    if s.num_verts() == 0 || s.triangles().is_empty() {
        return None;
    }
    let (positions, normals) = surface_frame(s, frame, decode)?;
    Some(Primitive {
        positions,
        normals,
        uvs: s.tex_coords().map(finite_or_zero).collect(),
        indices: s.indices().flatten().collect(),
        material,
        ..Primitive::default()
    })
}

/// The primitives of every surface of `md3` at `frame`, their materials added to
/// `materials`, each moved onto `at` (the identity leaves them in the model's space).
pub(crate) fn frame_primitives(
    md3: &Md3<'_>,
    skin: Option<&Skin<'_>>,
    frame: usize,
    at: Option<&Orientation>,
    materials: &mut Materials,
) -> Vec<Primitive> {
    md3.surfaces()
        .filter_map(|s| {
            let material = surface_shader(&s, skin).and_then(|sh| materials.index(sh));
            let mut prim = surface_primitive(&s, frame, material, NormalDecode::Exact)?;
            if let Some(at) = at {
                place(&mut prim, at);
            }
            Some(prim)
        })
        .collect()
}

/// A tag's placement with non-finite values replaced (origin 0, axis identity).
pub(crate) fn sane(o: Orientation) -> Orientation {
    let finite = o.axis.iter().flatten().all(|v| v.is_finite());
    Orientation {
        origin: finite_or_zero(o.origin),
        axis: if finite {
            o.axis
        } else {
            Orientation::IDENTITY.axis
        },
    }
}

/// Tag `t` of `frame` (clamped to the last frame), or the identity when missing.
fn tag_at(md3: &Md3<'_>, t: usize, frame: usize) -> Orientation {
    let frame = frame.min(md3.num_frames().saturating_sub(1));
    md3.frame_tags(frame)
        .and_then(|tags| tags.get(t))
        .map_or(Orientation::IDENTITY, |tag| {
            sane(Orientation::from_tag(tag))
        })
}

/// The index of the first tag called `name` in frame 0 (`R_GetTag` takes the first).
pub(crate) fn tag_index(md3: &Md3<'_>, name: &str) -> Option<usize> {
    md3.frame_tags(0)?
        .iter()
        .position(|t| t.name().as_bytes() == name.as_bytes())
}

/// `v` of unit length, or `None` when (nearly) zero or not finite.
fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    idmodel_core::vec::unit(v, 1e-6)
}

/// Three thin pyramids per tag along its axis rows, [`MARKER_LENGTH`] long: something
/// to draw for a model that has tags and no surfaces.
pub(crate) fn tag_markers(md3: &Md3<'_>, frame: usize) -> Option<Primitive> {
    let mut prim = Primitive::default();
    for t in 0..md3.num_tags() {
        let o = tag_at(md3, t, frame);
        for (k, dir) in o.axis.iter().enumerate() {
            let Some(d) = unit(*dir) else { continue };
            // Two directions across the arrow.
            let other = o
                .axis
                .get(k.wrapping_add(1) % 3)
                .copied()
                .unwrap_or([0.0; 3]);
            let Some(a) = unit(cross(d, other)).or_else(|| unit(cross(d, [0.0, 0.0, 1.0]))) else {
                continue;
            };
            let b = cross(d, a);
            let w = MARKER_LENGTH * 0.08;
            let tip = axpy(MARKER_LENGTH, d, o.origin);
            let base = [
                axpy(w, a, o.origin),
                axpy(w, b, o.origin),
                axpy(-w, a, o.origin),
                axpy(-w, b, o.origin),
            ];
            let centre = axpy(MARKER_LENGTH * 0.25, d, o.origin);
            let start = u32::try_from(prim.positions.len()).ok()?;
            prim.positions.push(tip);
            prim.positions.extend(base);
            let mut tri = |i: u32, j: u32, l: u32| {
                let p = |n: u32| {
                    prim.positions
                        .get(usize::try_from(n).unwrap_or(usize::MAX))
                        .copied()
                        .unwrap_or([0.0; 3])
                };
                let (pa, pb, pc) = (p(i), p(j), p(l));
                // id winding: (c - a) × (b - a) is the front (outward) normal.
                let front = cross(sub(pc, pa), sub(pb, pa));
                let out = sub(axpy(1.0 / 3.0, pb, axpy(1.0 / 3.0, pc, pa)), centre);
                if dot(front, out) >= 0.0 {
                    prim.indices.extend([i, j, l]);
                } else {
                    prim.indices.extend([i, l, j]);
                }
            };
            let v = |n: u32| start.saturating_add(n);
            for (p, q) in [(1, 2), (2, 3), (3, 4), (4, 1)] {
                tri(v(0), v(p), v(q));
            }
            tri(v(1), v(2), v(3));
            tri(v(1), v(3), v(4));
        }
    }
    prim.normals = Vec::new();
    (!prim.indices.is_empty()).then_some(prim)
}

/// Moves a primitive from a part's space into the model's (`origin + Σ p[i]·axis[i]`).
fn place(prim: &mut Primitive, o: &Orientation) {
    let apply = |p: [f32; 3], origin: [f32; 3]| {
        let mut out = origin;
        for (s, axis) in p.iter().zip(&o.axis) {
            out = axpy(*s, *axis, out);
        }
        out
    };
    for p in &mut prim.positions {
        *p = apply(*p, o.origin);
    }
    for n in &mut prim.normals {
        *n = apply(*n, [0.0; 3]);
    }
}

// ---------------------------------------------------------------------------------------
// Scenes

/// The nodes of one model added to a scene.
pub(crate) struct PartNodes {
    /// The model's node (draws its mesh, parent of the tag nodes).
    pub(crate) node: usize,
    /// How many morph targets the weighted nodes' meshes have (one per frame after the
    /// base).
    targets: usize,
    /// The nodes whose morph weights play the frames: the model's node when it draws
    /// surfaces, else its tags' frames nodes (`tag_frames`), so that a model of tags
    /// alone still carries its frames as targets through an editor that resamples.
    weighted: Vec<usize>,
    /// One node per tag, by tag index.
    pub(crate) tags: Vec<usize>,
}

/// How many bytes the targets and keys of an animated part take.
fn morph_bytes(md3: &Md3<'_>, clips: &[Clip]) -> u64 {
    let targets = count(md3.num_frames().saturating_sub(1));
    let verts: u64 = md3
        .surfaces()
        .map(|s| count(s.num_verts()))
        .fold(0, u64::saturating_add);
    let keys: u64 = clips
        .iter()
        .map(|c| count(c.frames.len()))
        .fold(0, u64::saturating_add);
    // A key's time and its one sparse weight, and each tag's transform.
    let per_key = count(md3.num_tags()).saturating_mul(32).saturating_add(12);
    // Each tag's frames mesh: four points per target (`tag_frames`).
    let tag_points = count(md3.num_tags()).saturating_mul(4);
    targets
        .saturating_mul(verts.saturating_add(tag_points))
        .saturating_mul(24)
        .saturating_add(keys.saturating_mul(per_key))
}

/// Refuses an animated part whose targets and keys need more than
/// [`Options::budget`](crate::Options::budget) (default [`MAX_MORPH_BYTES`]); `what`
/// names it in the message (`the model`, `lower.md3`).
pub(crate) fn check_budget(
    md3: &Md3<'_>,
    clips: &[Clip],
    what: &str,
    options: &crate::Options,
) -> Result<(), Error> {
    options
        .check_budget(morph_bytes(md3, clips))
        .map_err(|e| Error::new(format!("{what}: {e}")))
}

/// How the scene's normals are decoded: as the engine does, or for a quantized glTF at
/// the middle of each cell ([`crate::Options::quantized`]).
pub(crate) fn normal_decode(options: &crate::Options) -> NormalDecode {
    if options.quantized {
        NormalDecode::Centre
    } else {
        NormalDecode::Exact
    }
}

/// The morph target names of frames 1 onwards: each frame's name, an unnamed one
/// `frame<N>` (an empty target name breaks clients: Blender 3.4's importer stops on it;
/// the way back takes MD3 frame names from its record).
fn target_names(md3: &Md3<'_>) -> Vec<String> {
    md3.frames()
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, f)| match f.name().to_string() {
            n if n.is_empty() => format!("frame{k}"),
            n => n,
        })
        .collect()
}

/// Adds one model to `scene`: a node named `name` with its mesh at frame `base` (morph
/// targets for every other frame when `animated`), and a child node per tag.
pub(crate) fn add_part(
    scene: &mut Scene,
    materials: &mut Materials,
    md3: &Md3<'_>,
    name: &str,
    skin: Option<&Skin<'_>>,
    (base, animated): (usize, bool),
    decode: NormalDecode,
) -> PartNodes {
    let frames = md3.num_frames();
    let mut primitives = Vec::new();
    for s in md3.surfaces() {
        let material = surface_shader(&s, skin).and_then(|sh| materials.index(sh));
        let Some(mut prim) = surface_primitive(&s, base, material, decode) else {
            continue;
        };
        if animated {
            // `MorphTarget::from_absolute` of each frame, decoded straight into the
            // target (no frame buffers) with the base normals made unit once.
            let base_unit: Vec<[f32; 3]> =
                prim.normals.iter().map(|&n| crate::unit_or_up(n)).collect();
            let minus = |a: [f32; 3], b: &[f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
            prim.targets.reserve_exact(frames.saturating_sub(1));
            for f in 1..frames {
                let f = if f < s.num_frames() { f } else { 0 };
                let (Some(positions), Some(normals)) = (s.positions(f), s.normals(f, decode))
                else {
                    continue;
                };
                prim.targets.push(MorphTarget {
                    positions: positions
                        .zip(&prim.positions)
                        .map(|(f, b)| finite_or_zero(minus(f, b)))
                        .collect(),
                    normals: normals
                        .zip(&base_unit)
                        .map(|(f, b)| minus(crate::unit_or_up(f), b))
                        .collect(),
                });
            }
        }
        primitives.push(prim);
    }
    let targets = primitives.first().map_or(0, |p| p.targets.len());
    let mut node = Node::new(name);
    let primitives_empty = primitives.is_empty();
    if !primitives_empty {
        node.mesh = Some(scene.meshes.len());
        let target_names = if targets > 0 {
            target_names(md3)
        } else {
            Vec::new()
        };
        scene.meshes.push(Mesh {
            name: name.to_owned(),
            primitives,
            target_names,
        });
    }
    let node_index = scene.nodes.len();
    scene.nodes.push(node);
    let mut tags = Vec::with_capacity(md3.num_tags());
    for (t, tag) in md3.tag_names().enumerate() {
        let o = tag_at(md3, t, base);
        let mut n = Node::new(tag.to_string());
        n.translation = o.origin;
        n.rotation = quat_from_axes(&o.axis);
        n.scale = tag_scale(&o);
        let i = scene.nodes.len();
        scene.nodes.push(n);
        tags.push(i);
    }
    if let Some(parent) = scene.nodes.get_mut(node_index) {
        parent.children.extend(&tags);
    }
    // Each tag's frames as geometry, for editors that resample animation (see
    // `tag_frames`). A model without surfaces plays its frames on these nodes' weights.
    let mut weighted = if primitives_empty {
        Vec::new()
    } else {
        vec![node_index]
    };
    let mut targets = targets;
    if animated && frames > 1 {
        let mut helpers = Vec::with_capacity(md3.num_tags());
        for (t, tag) in md3.tag_names().enumerate() {
            let name = tag.to_string();
            let names = target_names(md3);
            let mesh = super::tag_frames::mesh(
                &name,
                t,
                &tag_at(md3, t, base),
                (1..frames).map(|f| tag_at(md3, t, f)),
                names,
            );
            helpers.push(scene.nodes.len());
            scene
                .nodes
                .push(super::tag_frames::node(&name, scene.meshes.len()));
            scene.meshes.push(mesh);
        }
        if primitives_empty {
            targets = frames.saturating_sub(1);
            weighted.clone_from(&helpers);
        }
        if let Some(parent) = scene.nodes.get_mut(node_index) {
            parent.children.extend(helpers);
        }
    }
    PartNodes {
        node: node_index,
        targets,
        weighted,
        tags,
    }
}

/// Rests an animated part (added by [`add_part`] with base frame 0) at another frame
/// without moving its base: the node's rest weights pick `at.mesh`'s morph target and the
/// tag nodes take `at.tag`'s transforms, so a viewer that plays nothing shows that frame.
pub(crate) fn rest_part(scene: &mut Scene, md3: &Md3<'_>, part: &PartNodes, at: PartFrame) {
    if part.targets > 0 && at.mesh > 0 {
        let mut w = vec![0.0f32; part.targets];
        if let Some(x) = at.mesh.checked_sub(1).and_then(|i| w.get_mut(i)) {
            *x = 1.0;
        }
        for &node in &part.weighted {
            if let Some(n) = scene.nodes.get_mut(node) {
                n.weights.clone_from(&w);
            }
        }
    }
    for (t, &node) in part.tags.iter().enumerate() {
        let o = tag_at(md3, t, at.tag);
        if let Some(n) = scene.nodes.get_mut(node) {
            n.translation = o.origin;
            n.rotation = quat_from_axes(&o.axis);
            n.scale = tag_scale(&o);
        }
    }
}

/// The channels that play `frames` on one part: morph weights and tag transforms.
pub(crate) fn part_channels(
    md3: &Md3<'_>,
    part: &PartNodes,
    frames: &[i64],
    times: &[f32],
) -> Vec<Channel> {
    let n = md3.num_frames();
    let mut channels = Vec::new();
    if part.targets > 0 {
        // Target t is frame t + 1; frame 0 is the base (all weights 0).
        for &node in &part.weighted {
            let shown = frames.iter().map(|&f| mesh_frame(f, n).checked_sub(1));
            channels.push(Channel {
                node,
                times: times.to_vec(),
                interpolation: Interpolation::Linear,
                values: ChannelValues::one_hot(part.targets, shown),
            });
        }
    }
    for (t, &node) in part.tags.iter().enumerate() {
        let mut translations = Vec::with_capacity(frames.len());
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(frames.len());
        let mut scales = Vec::with_capacity(frames.len());
        for &f in frames {
            let o = tag_at(md3, t, tag_frame(f, n));
            translations.push(o.origin);
            rotations.push(quat_from_axes(&o.axis));
            scales.push(tag_scale(&o));
        }
        quat_continuous(&mut rotations);
        if scales.iter().any(|s| *s != [1.0; 3]) {
            channels.push(Channel {
                node,
                times: times.to_vec(),
                interpolation: Interpolation::Linear,
                values: ChannelValues::Scale(scales),
            });
        }
        channels.push(Channel {
            node,
            times: times.to_vec(),
            interpolation: Interpolation::Linear,
            values: ChannelValues::Translation(translations),
        });
        channels.push(Channel {
            node,
            times: times.to_vec(),
            interpolation: Interpolation::Linear,
            values: ChannelValues::Rotation(rotations),
        });
    }
    channels
}

/// The frame a part is drawn at: its mesh frame and the frame its tags are read from
/// (they differ only for an animation frame outside the model: the mesh shows frame 0,
/// the tags the last frame, as the engine draws them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartFrame {
    /// The frame of the surfaces.
    pub mesh: usize,
    /// The frame of the tags.
    pub tag: usize,
}

impl PartFrame {
    pub(crate) fn at(frame: i64, md3: &Md3<'_>) -> PartFrame {
        PartFrame {
            mesh: mesh_frame(frame, md3.num_frames()),
            tag: tag_frame(frame, md3.num_frames()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q · v · q⁻¹`.
    fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
        let u = [q[0], q[1], q[2]];
        let t = cross(u, v).map(|c| 2.0 * c);
        let c = cross(u, t);
        [
            v[0] + q[3] * t[0] + c[0],
            v[1] + q[3] * t[1] + c[1],
            v[2] + q[3] * t[2] + c[2],
        ]
    }

    fn near(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    #[test]
    fn tag_axes_become_the_rotated_basis() {
        let axis_to_quat = quat_from_axes;
        let s = core::f32::consts::FRAC_1_SQRT_2;
        let cases: [[[f32; 3]; 3]; 6] = [
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            // 90° about Z: forward is +Y, left is −X.
            [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            // 180° about Z (trace −1: not the w branch).
            [[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
            // 180° about X and about Y.
            [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]],
            [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]],
            // 45° about X.
            [[1.0, 0.0, 0.0], [0.0, s, s], [0.0, -s, s]],
        ];
        for axis in cases {
            let q = axis_to_quat(&axis);
            for (k, want) in axis.iter().enumerate() {
                let mut e = [0.0; 3];
                e[k] = 1.0;
                assert!(near(rotate(q, e), *want), "{axis:?} {k}: {q:?}");
            }
        }
        // Skewed, scaled and degenerate axes still give unit quaternions.
        let q = axis_to_quat(&[[2.0, 0.0, 0.0], [0.3, 0.9, 0.0], [0.0, 0.0, 5.0]]);
        assert!(near(rotate(q, [1.0, 0.0, 0.0]), [1.0, 0.0, 0.0]));
        assert!(near(rotate(q, [0.0, 0.0, 1.0]), [0.0, 0.0, 1.0]));
        assert_eq!(axis_to_quat(&[[0.0; 3]; 3]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            axis_to_quat(&[[f32::NAN; 3], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
            [0.0, 0.0, 0.0, 1.0]
        );
        // The exporter's axis conversion keeps the rule: converting the quaternion
        // rotates converted vectors into converted axis rows.
        let axis = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let q = crate::axes::Axes::YUp.quat(axis_to_quat(&axis));
        let yup = |v| crate::axes::Axes::YUp.point(v);
        assert!(near(rotate(q, yup([1.0, 0.0, 0.0])), yup(axis[0])));
    }

    #[test]
    fn names_and_uris() {
        assert_eq!(
            shader_uri("models/players/human_base/h_base"),
            "models/players/human_base/h_base.tga"
        );
        assert_eq!(shader_uri("models/a/skin.tga"), "models/a/skin.tga");
        assert_eq!(
            shader_uri("D:\\projects\\oahopper\\Material.001"),
            "D%3A/projects/oahopper/Material.001"
        );
        let mut m = Materials::default();
        assert_eq!(m.index(b""), None);
        assert_eq!(m.index(b"a/b"), Some(0));
        assert_eq!(m.index(b"c.tga"), Some(1));
        assert_eq!(m.index(b"a/b"), Some(0));
    }

    #[test]
    fn tag_only_models_draw_markers() {
        let mut model = idmodel_md3::Model::example();
        model.surfaces.clear();
        let bytes = idmodel_md3::write(&model).unwrap();
        let md3 = Md3::parse(&bytes).unwrap();
        let prim = tag_markers(&md3, 0).unwrap();
        assert_eq!(prim.indices.len(), 3 * 6 * 3 * md3.num_tags());
        // Every face's id front normal points away from its pyramid's axis.
        assert!(prim.positions.iter().flatten().all(|v| v.is_finite()));
    }

    #[test]
    fn the_frame_range_error_names_the_last_frame() {
        let bytes = idmodel_md3::write(&idmodel_md3::Model::example()).unwrap();
        let md3 = Md3::parse(&bytes).unwrap();
        assert_eq!(frame_of(&md3, None), Ok(0));
        assert_eq!(frame_of(&md3, Some(2)), Ok(2));
        assert_eq!(
            frame_of(&md3, Some(3)).unwrap_err().message(),
            "frame 3 is out of range: the model has 3 frames (0 to 2)"
        );
    }
}
