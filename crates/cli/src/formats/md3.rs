//! Quake III MD3, read with `idmodel::md3`, with the `.skin` and `animation.cfg` files
//! that sit next to a player model.
//!
//! What the outputs hold (the conventions issue #7 asks to document):
//!
//! - **Surfaces**: one mesh primitive per surface, with the surface's own vertices,
//!   triangles and texture coordinates (`[0, 0]` the top-left of the image, as stored).
//!   Positions are `xyz / 64`; normals are decoded **engine-exact** (Quake III's
//!   1023-step sine table, `NormalDecode::Exact`). A surface without vertices or
//!   triangles is left out. Non-finite texture coordinates are written as 0.
//! - **Frames**: frame 0 is the base; every other frame is a morph target holding the
//!   displacements of POSITION and NORMAL relative to frame 0, named after the frame.
//!   A surface with fewer frames than the header repeats its frame 0 for the missing
//!   ones (the engine would read past its data).
//! - **Animations**: with an `animation.cfg` next to `lower.md3` or `upper.md3` (or their
//!   `_1`/`_2` LODs), one clip per animation that plays on that model under the Quake III
//!   rules (`AnimationCfg::q3`: entry order, leg-frame adjustment, Team Arena fill,
//!   reversed entries): BOTH_* and LEGS_* (with the derived LEGS_BACKCR/LEGS_BACKWALK)
//!   on lower, BOTH_* and TORSO_* (Team Arena entries only when written in the file) on
//!   upper. Key `k` shows the `k`-th frame of the range and lasts the engine's
//!   `frameLerp = (int)(1000 / fps)` ms; keys are LINEAR (the engine lerps between
//!   frames); loop frames are not expressed. A frame outside the model shows frame 0, as
//!   the renderer does. A file with more than 31 entries is not Quake III's layout
//!   (Tremulous, for example): it, a refused file, any other model, or no file at all
//!   gives **one clip of all frames at 15 fps**, the documented default (MD3 stores no
//!   rate; 15 fps is the rate of most Quake III player animations). A clip is at most
//!   4096 keys long.
//! - **Materials**: from `<part>_default.skin` next to the model (`<part>` is the file
//!   name without extension and LOD suffix, e.g. `lower` for `lower_1.md3`), matched as
//!   the engine does (lower-cased, `_x`-cut surface names, first entry wins; a surface
//!   the skin does not name, or an empty shader, gets no material: the engine's default
//!   shader). Without a usable skin, each surface's first shader name. One material per
//!   distinct name, its image URI the name as a relative path (`\` → `/`, other
//!   characters outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded) with `.tga` added when the
//!   name has no extension (the image Quake III looks for). Images are not read.
//! - **Tags**: one child node of the model node per tag, named after it, placed at the
//!   tag's origin and rotated so its local X, Y, Z axes are the tag's axis rows (forward,
//!   left, up). Axis rows are made orthonormal first (Gram–Schmidt from forward, up
//!   rebuilt as forward × left; a mirrored or degenerate axis cannot be a glTF rotation),
//!   then converted to a quaternion (Shepperd's method) in file axes; the exporter
//!   converts it with the same axis permutation as everything else. Every clip animates
//!   the tags with translation and rotation keys (rotation signs kept continuous); a
//!   frame past the end uses the last frame, as `R_GetTag` does. Non-finite tag values
//!   become 0 / identity.
//! - **Player models** ([`is_player_folder`], [`player_scene`]): a folder holding
//!   `lower.md3`, `upper.md3` and `head.md3` becomes one model: upper hangs under lower's
//!   `tag_torso` node and head under upper's `tag_head` node (so the parts follow the
//!   tags frame by frame, as `CG_PositionRotatedEntityOnTag` places them with no extra
//!   player angles); LEGS_* clips drive lower and its tags, TORSO_* clips drive upper and
//!   its tags, BOTH_* clips both; the head is always frame 0. Each part uses its
//!   `<part>_default.skin`. Without a usable Quake III `animation.cfg`, one clip of all
//!   frames per part (`lower`, `upper`).
//! - **`--frame N`**: that frame alone is the base; no morph targets, no animation (for a
//!   player, frame N of both lower and upper).
//! - **Tag-only models** (no surfaces, e.g. hand positions for a weapon): the glTF holds
//!   only the tag nodes; `frame` (for `.obj` and `render`) draws each tag as three thin
//!   pyramids along its forward, left and up axes, 8 units long.
//! - Everything is in file axes and the file's clockwise winding; the exporter converts.

use core::fmt::Write as _;
use std::path::Path;

use idmodel::md3::{
    AnimId, AnimationCfg, BodyPart, MAX_ANIMATIONS, Md3 as Model, NormalDecode, Orientation,
    Profile, Q3Animations, Skin, Surface, position_on_tag,
};
use idmodel_gltf::{
    Animation, Channel, ChannelValues, Image, Interpolation, Material, Mesh, MorphTarget, Node,
    Primitive, Scene,
};

use super::{Bounds, Engine, Finding, FrameMesh, Info, Input, ModelFormat, Request};
use crate::failure::Failure;

/// The Quake III MD3 module.
pub struct Md3;

/// Playback rate of the all-frames clip (MD3 files store no rate).
const DEFAULT_FPS: f32 = 15.0;

/// Longest clip, in keys (the engine shows at most 1024 distinct frames).
const MAX_CLIP_KEYS: usize = 4096;

/// Largest glTF buffer (morph displacements and animation keys, in bytes) an animated
/// export may need; beyond it the export is refused with a hint to use `--frame`.
const MAX_MORPH_BYTES: u64 = 1 << 30;

/// Side files larger than this are ignored (the engine reads at most 20 KB of
/// `animation.cfg`; skins are a few hundred bytes).
const MAX_SIDECAR: u64 = 1 << 20;

/// Length of the tag markers of a tag-only model, in model units.
const MARKER_LENGTH: f32 = 8.0;

fn parse<'a>(bytes: &'a [u8]) -> Result<Model<'a>, Failure> {
    Model::parse(bytes).map_err(Failure::from)
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The frame `request` asks for (default 0), or a failure naming the valid range.
fn frame_of(md3: &Model<'_>, frame: Option<usize>) -> Result<usize, Failure> {
    let n = frame.unwrap_or(0);
    if n < md3.num_frames() {
        Ok(n)
    } else {
        Err(Failure::new(format!(
            "frame {n} is out of range: the model has {} frames (0 to {})",
            md3.num_frames(),
            md3.num_frames().saturating_sub(1)
        )))
    }
}

// ---------------------------------------------------------------------------------------
// Side files

/// The bytes of `dir/name` when it is a readable regular file of a sane size (read by
/// the command's one read function: never blocks on a FIFO, remembered as an input).
fn sidecar(dir: &Path, name: &str) -> Option<Vec<u8>> {
    crate::output::read_regular(&dir.join(name), MAX_SIDECAR).ok()
}

/// The part name of a model file: its file name without extension, lower-cased, without
/// a LOD suffix (`lower_1.md3` → `lower`).
fn part_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match stem.strip_suffix("_1").or_else(|| stem.strip_suffix("_2")) {
        Some(base) if !base.is_empty() => base.to_owned(),
        _ => stem,
    }
}

/// Which animations of `animation.cfg` a part plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// lower.md3: BOTH_* and LEGS_*.
    Legs,
    /// upper.md3: BOTH_* and TORSO_*.
    Torso,
    /// Anything else: no animation.cfg entries apply.
    Other,
}

impl Role {
    fn of(part: &str) -> Role {
        match part {
            "lower" => Role::Legs,
            "upper" => Role::Torso,
            _ => Role::Other,
        }
    }

    fn plays(self, id: AnimId, q3: &Q3Animations) -> bool {
        let i = id.index();
        // Entries the file did not write (Team Arena fill) are copies of TORSO_GESTURE.
        let written = i >= MAX_ANIMATIONS || i < q3.from_file();
        match (self, id.body_part()) {
            (Role::Legs | Role::Torso, BodyPart::Both) => true,
            (Role::Legs, BodyPart::Legs) => true,
            (Role::Torso, BodyPart::Torso) => written,
            _ => false,
        }
    }
}

/// The skin a part uses: `<part>_default.skin` when it parses and has surface entries.
struct SkinFile {
    name: String,
    text: Vec<u8>,
}

impl SkinFile {
    fn find(dir: &Path, part: &str) -> Option<SkinFile> {
        let name = format!("{part}_default.skin");
        let text = sidecar(dir, &name)?;
        Some(SkinFile { name, text })
    }

    /// The parsed skin, when the engine would use it (parses, has surface entries).
    fn usable(&self) -> Option<Skin<'_>> {
        Skin::parse(&self.text)
            .ok()
            .filter(|s| s.num_surfaces() > 0)
    }
}

// ---------------------------------------------------------------------------------------
// Clips

/// One animation clip of one part: the frames it shows, one per key.
#[derive(Debug, Clone, PartialEq)]
struct Clip {
    name: String,
    /// Frame numbers as the animation names them (may be outside the model).
    frames: Vec<i64>,
    /// Seconds per key.
    step: f32,
    /// What drives it, for `info`.
    about: String,
}

/// The frames of an animation, in playing order, at most [`MAX_CLIP_KEYS`].
fn anim_frames(first: i32, num: i32, reversed: bool) -> Vec<i64> {
    let first = i64::from(first);
    let num = i64::from(num.max(0)).min(i64::try_from(MAX_CLIP_KEYS).unwrap_or(i64::MAX));
    (0..num)
        .map(|k| {
            if reversed {
                first
                    .saturating_add(num)
                    .saturating_sub(1)
                    .saturating_sub(k)
            } else {
                first.saturating_add(k)
            }
        })
        .collect()
}

/// The all-frames clip of a model with `frames` frames.
fn all_frames_clip(name: &str, frames: usize) -> Clip {
    let n = frames.min(MAX_CLIP_KEYS);
    Clip {
        name: name.to_owned(),
        frames: (0..n).map(|f| i64::try_from(f).unwrap_or(0)).collect(),
        step: 1.0 / DEFAULT_FPS,
        about: format!("frames 0-{} ({n}), {DEFAULT_FPS} fps", n.saturating_sub(1)),
    }
}

/// How `animation.cfg` was read, for `info`.
#[derive(Debug, Clone, PartialEq)]
enum CfgUse {
    /// No file next to the model.
    Missing,
    /// The file is there but does not apply to this part.
    NotForPart,
    /// Read under the Quake III rules.
    Q3 { entries: usize, skip: i32 },
    /// Not used, and why.
    Unusable(String),
}

/// The Quake III animations of `cfg` text, or why they cannot be used.
fn q3_animations(text: &[u8]) -> Result<(Q3Animations, usize), String> {
    let cfg = AnimationCfg::parse(text).map_err(|e| format!("animation.cfg: {e}"))?;
    let entries = cfg.raw_entries().count();
    if entries > MAX_ANIMATIONS {
        return Err(format!(
            "animation.cfg has {entries} entries, more than Quake III's {MAX_ANIMATIONS}: another game's layout"
        ));
    }
    let q3 = cfg.q3().map_err(|e| format!("animation.cfg: {e}"))?;
    Ok((q3, entries))
}

/// The clips of `role` from `q3`, in `animNumber_t` order.
fn cfg_clips(q3: &Q3Animations, role: Role) -> Vec<Clip> {
    q3.iter()
        .filter(|(id, a)| role.plays(*id, q3) && a.num_frames > 0)
        .map(|(id, a)| {
            let lerp = u16::try_from(a.frame_lerp.clamp(0, 60_000)).unwrap_or(0);
            // A frame time of 0 ms (fps above 1000) freezes the animation in the engine.
            let frames = if lerp == 0 {
                anim_frames(a.first_frame, 1, a.reversed)
            } else {
                anim_frames(a.first_frame, a.num_frames, a.reversed)
            };
            let last = i64::from(a.first_frame)
                .saturating_add(i64::from(a.num_frames))
                .saturating_sub(1);
            Clip {
                name: id.name().to_owned(),
                frames,
                step: f32::from(lerp.max(1)) / 1000.0,
                about: format!(
                    "frames {}-{last} ({}), {} ms a frame{}{}",
                    a.first_frame,
                    a.num_frames,
                    a.frame_lerp,
                    if a.reversed { ", reversed" } else { "" },
                    if a.loop_frames > 0 {
                        format!(", loops the last {}", a.loop_frames)
                    } else {
                        String::new()
                    }
                ),
            }
        })
        .collect()
}

/// The clips of a single model file: from `animation.cfg` when it applies, else all
/// frames. `name` names the all-frames clip.
fn part_clips(dir: &Path, part: &str, frames: usize) -> (Vec<Clip>, CfgUse) {
    let role = Role::of(part);
    let cfg = match sidecar(dir, "animation.cfg") {
        None => CfgUse::Missing,
        Some(_) if role == Role::Other => CfgUse::NotForPart,
        Some(text) => match q3_animations(&text) {
            Ok((q3, entries)) => {
                let clips = cfg_clips(&q3, role);
                if !clips.is_empty() {
                    let skip = q3.legs_skip();
                    return (clips, CfgUse::Q3 { entries, skip });
                }
                CfgUse::Unusable("animation.cfg has no animation for this part".to_owned())
            }
            Err(e) => CfgUse::Unusable(e),
        },
    };
    let clips = if frames > 1 {
        vec![all_frames_clip(
            if part.is_empty() { "all" } else { part },
            frames,
        )]
    } else {
        Vec::new()
    };
    (clips, cfg)
}

/// The frame the mesh shows for an animation frame: out of range shows frame 0.
fn mesh_frame(f: i64, frames: usize) -> usize {
    usize::try_from(f).ok().filter(|&f| f < frames).unwrap_or(0)
}

/// The frame a tag is read from: clamped to the last frame (`R_GetTag`).
fn tag_frame(f: i64, frames: usize) -> usize {
    usize::try_from(f.max(0))
        .unwrap_or(usize::MAX)
        .min(frames.saturating_sub(1))
}

// ---------------------------------------------------------------------------------------
// Materials

/// A shader name as a relative URI reference (see the module docs).
fn shader_uri(name: &str) -> String {
    let mut path = name.replace('\\', "/");
    let file = path.rsplit('/').next().unwrap_or("");
    if !file.contains('.') {
        path.push_str(".tga");
    }
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

/// The materials of a scene or frame, one per distinct shader name.
#[derive(Default)]
struct Materials(Vec<Material>);

impl Materials {
    /// The material for `shader`; `None` for an empty name (the default shader).
    fn index(&mut self, shader: &[u8]) -> Option<usize> {
        if shader.is_empty() {
            return None;
        }
        let name = idmodel::core::Name::from_field(shader).to_string();
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
        Some(skin) => skin.shader_for(s.engine_name().as_bytes(), Profile::Ioq3),
        None => s.shaders().first().map(|sh| sh.name().as_bytes()),
    }
}

// ---------------------------------------------------------------------------------------
// Geometry and tags

fn finite_or_zero<const N: usize>(v: [f32; N]) -> [f32; N] {
    v.map(|x| if x.is_finite() { x } else { 0.0 })
}

/// Positions and normals of one surface in one frame.
type Posed = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// `(positions, normals)` of surface `s` in model frame `frame` (the surface's frame 0
/// when it has fewer frames); `None` when the surface has no vertex data at all.
fn surface_frame(s: &Surface<'_>, frame: usize) -> Option<Posed> {
    let f = if frame < s.num_frames() { frame } else { 0 };
    let positions = s.positions(f)?.collect();
    let normals = s.normals(f, NormalDecode::Exact)?.collect();
    Some((positions, normals))
}

/// The primitive of surface `s` at `frame`, or `None` when it draws nothing.
fn surface_primitive(s: &Surface<'_>, frame: usize, material: Option<usize>) -> Option<Primitive> {
    if s.num_verts() == 0 || s.triangles().is_empty() {
        return None;
    }
    let (positions, normals) = surface_frame(s, frame)?;
    Some(Primitive {
        positions,
        normals,
        uvs: s.tex_coords().map(finite_or_zero).collect(),
        indices: s.indices().flatten().collect(),
        material,
        ..Primitive::default()
    })
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn axpy(s: f32, x: [f32; 3], y: [f32; 3]) -> [f32; 3] {
    [s * x[0] + y[0], s * x[1] + y[1], s * x[2] + y[2]]
}

/// `v` scaled to unit length, or `None` when it is (nearly) zero or not finite.
fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let len = libm::sqrtf(dot(v, v));
    (len.is_finite() && len > 1e-6).then(|| [v[0] / len, v[1] / len, v[2] / len])
}

/// The rotation whose local X, Y, Z axes are the tag's axis rows, as a unit quaternion
/// `[x, y, z, w]` (standard convention, file axes). The rows are made orthonormal first:
/// forward normalised, left made perpendicular to it, up rebuilt as forward × left.
/// A degenerate or non-finite axis gives the identity.
fn axis_to_quat(axis: &[[f32; 3]; 3]) -> [f32; 4] {
    const IDENTITY: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
    let [fwd, left, up] = *axis;
    let Some(x) = unit(fwd) else {
        return IDENTITY;
    };
    let y = unit(axpy(-dot(left, x), x, left)).or_else(|| {
        // Left is parallel to forward: derive it from up instead.
        unit(cross(up, x))
    });
    let Some(y) = y else {
        return IDENTITY;
    };
    let z = cross(x, y);
    // R has the axes as columns: R[r][c] = axis_c[r].
    let (m00, m01, m02) = (x[0], y[0], z[0]);
    let (m10, m11, m12) = (x[1], y[1], z[1]);
    let (m20, m21, m22) = (x[2], y[2], z[2]);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = libm::sqrtf(trace + 1.0) * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = libm::sqrtf((1.0 + m00 - m11 - m22).max(0.0)) * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = libm::sqrtf((1.0 + m11 - m00 - m22).max(0.0)) * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = libm::sqrtf((1.0 + m22 - m00 - m11).max(0.0)) * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    let len = libm::sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if !len.is_finite() || len < 1e-6 {
        return IDENTITY;
    }
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    q.map(|c| c * sign / len)
}

/// A tag's placement with non-finite values replaced (origin 0, axis identity).
fn sane(o: Orientation) -> Orientation {
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
fn tag_at(md3: &Model<'_>, t: usize, frame: usize) -> Orientation {
    let frame = frame.min(md3.num_frames().saturating_sub(1));
    md3.frame_tags(frame)
        .and_then(|tags| tags.get(t))
        .map_or(Orientation::IDENTITY, |tag| {
            sane(Orientation::from_tag(tag))
        })
}

/// The index of the first tag called `name` in frame 0 (`R_GetTag` takes the first).
fn tag_index(md3: &Model<'_>, name: &str) -> Option<usize> {
    md3.frame_tags(0)?
        .iter()
        .position(|t| t.name().as_bytes() == name.as_bytes())
}

/// Three thin pyramids per tag along its axis rows: something to draw for a model that
/// has tags and no surfaces.
fn tag_markers(md3: &Model<'_>, frame: usize) -> Option<Primitive> {
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
                let sub = |u: [f32; 3], v: [f32; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
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

// ---------------------------------------------------------------------------------------
// Scenes

/// The nodes of one model added to a scene.
struct PartNodes {
    /// The model's node (draws its mesh, parent of the tag nodes).
    node: usize,
    /// Whether the node's mesh has morph targets (one per frame after the base).
    targets: usize,
    /// One node per tag, by tag index.
    tags: Vec<usize>,
}

/// How many bytes the targets and keys of an animated part take.
fn morph_bytes(md3: &Model<'_>, clips: &[Clip]) -> u64 {
    let targets = count(md3.num_frames().saturating_sub(1));
    let verts: u64 = md3
        .surfaces()
        .map(|s| count(s.num_verts()))
        .fold(0, u64::saturating_add);
    let keys: u64 = clips
        .iter()
        .map(|c| count(c.frames.len()))
        .fold(0, u64::saturating_add);
    let per_key = targets
        .saturating_mul(4)
        .saturating_add(count(md3.num_tags()).saturating_mul(32));
    targets
        .saturating_mul(verts)
        .saturating_mul(24)
        .saturating_add(keys.saturating_mul(per_key))
}

fn check_budget(md3: &Model<'_>, clips: &[Clip], what: &str) -> Result<(), Failure> {
    let need = morph_bytes(md3, clips);
    if need > MAX_MORPH_BYTES {
        return Err(Failure::new(format!(
            "{what}: {} frames need {need} bytes of morph targets and keys, more than the {MAX_MORPH_BYTES} this tool writes; export one frame with --frame N",
            md3.num_frames()
        )));
    }
    Ok(())
}

/// Adds one model to `scene`: a node named `name` with its mesh at frame `base` (morph
/// targets for every other frame when `animated`), and a child node per tag.
fn add_part(
    scene: &mut Scene,
    materials: &mut Materials,
    md3: &Model<'_>,
    name: &str,
    skin: Option<&Skin<'_>>,
    base: usize,
    animated: bool,
) -> PartNodes {
    let frames = md3.num_frames();
    let mut primitives = Vec::new();
    for s in md3.surfaces() {
        let material = surface_shader(&s, skin).and_then(|sh| materials.index(sh));
        let Some(mut prim) = surface_primitive(&s, base, material) else {
            continue;
        };
        if animated {
            for f in 1..frames {
                let Some((positions, normals)) = surface_frame(&s, f) else {
                    continue;
                };
                prim.targets.push(MorphTarget::from_absolute(
                    &prim.positions,
                    &positions,
                    &prim.normals,
                    &normals,
                ));
            }
        }
        primitives.push(prim);
    }
    let targets = primitives.first().map_or(0, |p| p.targets.len());
    let mut node = Node::new(name);
    if !primitives.is_empty() {
        node.mesh = Some(scene.meshes.len());
        let target_names = if targets > 0 {
            md3.frames()
                .iter()
                .skip(1)
                .map(|f| f.name().to_string())
                .collect()
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
        n.rotation = axis_to_quat(&o.axis);
        let i = scene.nodes.len();
        scene.nodes.push(n);
        tags.push(i);
    }
    if let Some(parent) = scene.nodes.get_mut(node_index) {
        parent.children.extend(&tags);
    }
    PartNodes {
        node: node_index,
        targets,
        tags,
    }
}

/// The channels that play `frames` on one part: morph weights and tag transforms.
fn part_channels(md3: &Model<'_>, part: &PartNodes, frames: &[i64], times: &[f32]) -> Vec<Channel> {
    let n = md3.num_frames();
    let mut channels = Vec::new();
    if part.targets > 0 {
        let mut values = Vec::with_capacity(frames.len().saturating_mul(part.targets));
        for &f in frames {
            // Target t is frame t + 1; frame 0 is the base (all weights 0).
            let shown = mesh_frame(f, n);
            values.extend((1..=part.targets).map(|t| if t == shown { 1.0 } else { 0.0 }));
        }
        channels.push(Channel {
            node: part.node,
            times: times.to_vec(),
            interpolation: Interpolation::Linear,
            values: ChannelValues::Weights(values),
        });
    }
    for (t, &node) in part.tags.iter().enumerate() {
        let mut translations = Vec::with_capacity(frames.len());
        let mut rotations: Vec<[f32; 4]> = Vec::with_capacity(frames.len());
        for &f in frames {
            let o = tag_at(md3, t, tag_frame(f, n));
            translations.push(o.origin);
            let mut q = axis_to_quat(&o.axis);
            if let Some(prev) = rotations.last() {
                let d = prev[0] * q[0] + prev[1] * q[1] + prev[2] * q[2] + prev[3] * q[3];
                if d < 0.0 {
                    q = q.map(|c| -c);
                }
            }
            rotations.push(q);
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

/// Key times of a clip.
fn clip_times(clip: &Clip) -> Vec<f32> {
    let mut t = 0.0f32;
    clip.frames
        .iter()
        .map(|_| {
            let now = t;
            t += clip.step;
            now
        })
        .collect()
}

/// The part of a single model file: its name, skin and clips.
struct SingleSidecars {
    part: String,
    skin: Option<SkinFile>,
    clips: Vec<Clip>,
    cfg: CfgUse,
}

impl SingleSidecars {
    fn read(input: &Input<'_>, md3: &Model<'_>) -> Self {
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let part = part_name(input.path);
        let skin = SkinFile::find(dir, &part);
        let (clips, cfg) = part_clips(dir, &part, md3.num_frames());
        SingleSidecars {
            part,
            skin,
            clips,
            cfg,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Player models

/// The three parts of a Quake III player, in attachment order.
const PLAYER_PARTS: [&str; 3] = ["lower", "upper", "head"];

/// True when `dir` directly holds `lower.md3`, `upper.md3` and `head.md3`: `convert`
/// then assembles one player model instead of converting each file.
pub fn is_player_folder(dir: &Path) -> bool {
    PLAYER_PARTS
        .iter()
        .all(|p| dir.join(format!("{p}.md3")).is_file())
}

/// The three files of a player folder, read.
struct PlayerFiles {
    bytes: [Vec<u8>; 3],
}

impl PlayerFiles {
    fn read(dir: &Path) -> Result<PlayerFiles, Failure> {
        let read = |part: &str| {
            let name = format!("{part}.md3");
            crate::output::read_regular(&dir.join(&name), MAX_SIDECAR.saturating_mul(1024))
                .map_err(|e| Failure::new(format!("{name}: {e}")))
        };
        Ok(PlayerFiles {
            bytes: [read("lower")?, read("upper")?, read("head")?],
        })
    }

    fn models(&self) -> Result<[Model<'_>; 3], Failure> {
        let [l, u, h] = &self.bytes;
        let parse =
            |part: &str, b| Model::parse(b).map_err(|e| Failure::new(format!("{part}.md3: {e}")));
        Ok([parse("lower", l)?, parse("upper", u)?, parse("head", h)?])
    }
}

/// The clips of a player: the cfg's LEGS_*, TORSO_* and BOTH_* animations as
/// `(clip, plays on lower, plays on upper)`, or one all-frames clip per part.
fn player_clips(dir: &Path, lower: usize, upper: usize) -> Vec<(Clip, bool, bool)> {
    if let Some(Ok((q3, _))) = sidecar(dir, "animation.cfg").map(|t| q3_animations(&t)) {
        let legs = cfg_clips(&q3, Role::Legs);
        let torso = cfg_clips(&q3, Role::Torso);
        let mut out: Vec<(Clip, bool, bool)> = Vec::new();
        for c in legs {
            let both = torso.iter().any(|t| t.name == c.name);
            out.push((c, true, both));
        }
        for c in torso {
            if !out.iter().any(|(o, _, _)| o.name == c.name) {
                out.push((c, false, true));
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    let mut out = Vec::new();
    if lower > 1 {
        out.push((all_frames_clip("lower", lower), true, false));
    }
    if upper > 1 {
        out.push((all_frames_clip("upper", upper), false, true));
    }
    out
}

/// Checks `frame` against both animated parts of a player.
fn player_frame_of(
    lower: &Model<'_>,
    upper: &Model<'_>,
    frame: Option<usize>,
) -> Result<usize, Failure> {
    frame_of(lower, frame).map_err(|e| Failure::new(format!("lower.md3: {e}")))?;
    frame_of(upper, frame).map_err(|e| Failure::new(format!("upper.md3: {e}")))
}

/// The Quake III player in `dir` (see [`is_player_folder`]) as one glTF scene: upper on
/// lower's `tag_torso`, head on upper's `tag_head`, the animation.cfg clips.
pub fn player_scene(dir: &Path, request: &Request<'_>) -> Result<Scene, Failure> {
    let files = PlayerFiles::read(dir)?;
    let [lower, upper, head] = files.models()?;
    let base = player_frame_of(&lower, &upper, request.frame)?;
    let animated = request.frame.is_none();
    let clips = if animated {
        player_clips(dir, lower.num_frames(), upper.num_frames())
    } else {
        Vec::new()
    };
    let lower_clips: Vec<Clip> = clips.iter().filter(|c| c.1).map(|c| c.0.clone()).collect();
    let upper_clips: Vec<Clip> = clips.iter().filter(|c| c.2).map(|c| c.0.clone()).collect();
    if animated {
        check_budget(&lower, &lower_clips, "lower.md3")?;
        check_budget(&upper, &upper_clips, "upper.md3")?;
    }
    let skins: Vec<Option<SkinFile>> = PLAYER_PARTS
        .iter()
        .map(|p| SkinFile::find(dir, p))
        .collect();
    let skin = |i: usize| {
        skins
            .get(i)
            .and_then(Option::as_ref)
            .and_then(SkinFile::usable)
    };
    let name = dir
        .file_name()
        .map_or_else(|| "player".to_owned(), |n| n.to_string_lossy().into_owned());
    let mut scene = Scene {
        name: name.clone(),
        ..Scene::default()
    };
    let mut materials = Materials::default();
    // The root (node 0) holds lower, which add_part puts at node 1.
    let mut root = Node::new(name);
    root.children.push(1);
    scene.nodes.push(root);
    let legs_animated = animated && lower.num_frames() > 1;
    let torso_animated = animated && upper.num_frames() > 1;
    let lower_part = add_part(
        &mut scene,
        &mut materials,
        &lower,
        "lower",
        skin(0).as_ref(),
        base,
        legs_animated,
    );
    let upper_part = add_part(
        &mut scene,
        &mut materials,
        &upper,
        "upper",
        skin(1).as_ref(),
        base,
        torso_animated,
    );
    // The head is always drawn at frame 0.
    let head_part = add_part(
        &mut scene,
        &mut materials,
        &head,
        "head",
        skin(2).as_ref(),
        0,
        false,
    );
    // A missing tag places the child at the parent's origin (identity), as the engine.
    let attach = |parent: &PartNodes, md3: &Model<'_>, tag: &str| {
        tag_index(md3, tag)
            .and_then(|t| parent.tags.get(t).copied())
            .unwrap_or(parent.node)
    };
    let torso_on = attach(&lower_part, &lower, "tag_torso");
    let head_on = attach(&upper_part, &upper, "tag_head");
    if let Some(n) = scene.nodes.get_mut(torso_on) {
        n.children.push(upper_part.node);
    }
    if let Some(n) = scene.nodes.get_mut(head_on) {
        n.children.push(head_part.node);
    }
    for (clip, on_lower, on_upper) in &clips {
        let times = clip_times(clip);
        let mut channels = Vec::new();
        if *on_lower {
            channels.extend(part_channels(&lower, &lower_part, &clip.frames, &times));
        }
        if *on_upper {
            channels.extend(part_channels(&upper, &upper_part, &clip.frames, &times));
        }
        if !channels.is_empty() {
            scene.animations.push(Animation {
                name: clip.name.clone(),
                channels,
            });
        }
    }
    scene.materials = materials.0;
    Ok(scene)
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

/// One posed frame of the player in `dir` (frame N of lower and upper, head frame 0),
/// the parts placed on their tags as the engine places them.
pub fn player_frame(dir: &Path, request: &Request<'_>) -> Result<FrameMesh, Failure> {
    let files = PlayerFiles::read(dir)?;
    let [lower, upper, head] = files.models()?;
    let frame = player_frame_of(&lower, &upper, request.frame)?;
    let mut materials = Materials::default();
    let torso = lower
        .lerp_tag("tag_torso", frame, frame, 0.0)
        .map_or(Orientation::IDENTITY, sane);
    let torso = position_on_tag(&Orientation::IDENTITY, &torso);
    let head_tag = upper
        .lerp_tag("tag_head", frame, frame, 0.0)
        .map_or(Orientation::IDENTITY, sane);
    let head_at = position_on_tag(&torso, &head_tag);
    let mut primitives = Vec::new();
    for (i, (md3, at, f)) in [
        (&lower, Orientation::IDENTITY, frame),
        (&upper, torso, frame),
        (&head, head_at, 0),
    ]
    .into_iter()
    .enumerate()
    {
        let skin_file = PLAYER_PARTS.get(i).and_then(|p| SkinFile::find(dir, p));
        let skin = skin_file.as_ref().and_then(SkinFile::usable);
        for s in md3.surfaces() {
            let material = surface_shader(&s, skin.as_ref()).and_then(|sh| materials.index(sh));
            if let Some(mut prim) = surface_primitive(&s, f, material) {
                place(&mut prim, &at);
                primitives.push(prim);
            }
        }
    }
    Ok(FrameMesh {
        primitives,
        materials: materials.0,
    })
}

// ---------------------------------------------------------------------------------------
// The four answers

/// One line for a finding of the model, a skin or an animation.cfg.
fn profile_engine(p: Profile) -> Engine {
    match p {
        Profile::Quake3 => Engine::Quake3,
        Profile::Ioq3 => Engine::Ioq3,
    }
}

impl ModelFormat for Md3 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        let md3 = parse(input.bytes)?;
        let side = SingleSidecars::read(input, &md3);
        let skin = side.skin.as_ref().and_then(SkinFile::usable);
        let mut details = vec![("name".to_owned(), md3.name().to_string())];
        let mut vertices = 0u64;
        let mut triangles = 0u64;
        for s in md3.surfaces() {
            vertices = vertices.saturating_add(count(s.num_verts()));
            triangles = triangles.saturating_add(count(s.triangles().len()));
            let engine = s.engine_name();
            let renamed = if engine.is_shortened(s.name().as_bytes())
                || engine.as_bytes() != s.name().as_bytes()
            {
                format!(" (engine '{engine}')")
            } else {
                String::new()
            };
            let shaders: Vec<String> = s.shaders().iter().map(|sh| sh.name().to_string()).collect();
            let mut row = format!(
                "'{}'{renamed}: {} vertices, {} triangles, shader '{}'",
                s.name(),
                s.num_verts(),
                s.triangles().len(),
                shaders.join("', '")
            );
            if let Some(skin) = &skin {
                match skin.shader_for(engine.as_bytes(), Profile::Ioq3) {
                    Some(sh) if !sh.is_empty() => {
                        let _ = write!(row, "; skin: '{}'", idmodel::core::Name::from_field(sh));
                    }
                    _ => row.push_str("; skin: none (default shader)"),
                }
            }
            details.push((format!("surface {}", s.index()), row));
        }
        let tags: Vec<String> = md3.tag_names().map(|n| n.to_string()).collect();
        if !tags.is_empty() {
            details.push(("tag names".to_owned(), tags.join(", ")));
        }
        let frames = md3.frames();
        if let (Some(first), Some(last)) = (frames.first(), frames.last()) {
            details.push((
                "frame names".to_owned(),
                format!("'{}' .. '{}'", first.name(), last.name()),
            ));
        }
        details.push((
            "skin file".to_owned(),
            match (&side.skin, &skin) {
                (Some(f), Some(s)) => format!(
                    "{} ({} surface entries); materials from it",
                    f.name,
                    s.num_surfaces()
                ),
                (Some(f), None) => format!(
                    "{} is not usable (no surface entries or unreadable); materials from the surfaces' shader names",
                    f.name
                ),
                (None, _) => format!(
                    "none ({}_default.skin not found); materials from the surfaces' shader names",
                    side.part
                ),
            },
        ));
        let source = match &side.cfg {
            CfgUse::Missing => "no animation.cfg".to_owned(),
            CfgUse::NotForPart => format!(
                "animation.cfg not used ('{}' is not lower or upper)",
                side.part
            ),
            CfgUse::Q3 { entries, skip } => format!(
                "animation.cfg, Quake III rules ({entries} entries, legs frames moved back by {skip})"
            ),
            CfgUse::Unusable(why) => format!("not from animation.cfg: {why}"),
        };
        let default = if matches!(side.cfg, CfgUse::Q3 { .. }) || side.clips.is_empty() {
            ""
        } else {
            " (one clip of all frames at the default 15 fps: MD3 stores no rate)"
        };
        details.push((
            "animations".to_owned(),
            format!(
                "{} clip{}; {source}{default}",
                side.clips.len(),
                if side.clips.len() == 1 { "" } else { "s" }
            ),
        ));
        for c in &side.clips {
            details.push((format!("  {}", c.name), c.about.clone()));
        }
        let findings: Vec<String> = Profile::ALL
            .iter()
            .map(|&p| format!("{} for {}", md3.findings(p).len(), profile_engine(p).name()))
            .collect();
        details.push((
            "findings".to_owned(),
            format!(
                "{} (the model only; see idmodel check)",
                findings.join(", ")
            ),
        ));
        let bounds = Bounds::of(
            md3.surfaces()
                .filter_map(|s| s.positions(0).map(Iterator::collect::<Vec<_>>))
                .flatten(),
        );
        Ok(Info {
            format: input.format.id(),
            frames: count(md3.num_frames()),
            vertices,
            triangles,
            surfaces: Some(count(md3.num_surfaces())),
            tags: Some(count(md3.num_tags())),
            bounds,
            details,
            ..Info::default()
        })
    }

    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        let md3 = parse(input.bytes)?;
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let part = part_name(input.path);
        let skin_file = SkinFile::find(dir, &part);
        let cfg_text = (Role::of(&part) != Role::Other)
            .then(|| sidecar(dir, "animation.cfg"))
            .flatten();
        let mut out = Vec::new();
        for &profile in Profile::ALL {
            let e = profile_engine(profile);
            if engine.is_some_and(|want| want != e) {
                continue;
            }
            let mut push = |message: String| out.push(Finding { engine: e, message });
            for f in md3.findings(profile) {
                push(f.to_string());
            }
            if let Some(file) = &skin_file {
                match Skin::parse(&file.text) {
                    Ok(skin) => {
                        for f in skin.findings(Some(&md3), profile) {
                            push(format!("{}: {f}", file.name));
                        }
                    }
                    Err(err) => push(format!("{}: refused: {err}", file.name)),
                }
            }
            if let Some(text) = &cfg_text {
                match AnimationCfg::parse(text) {
                    Ok(cfg) => {
                        // This part's frame count for both models; keep only the
                        // range findings about this part.
                        let n = md3.num_frames();
                        for f in cfg.findings(Some((n, n)), profile) {
                            if let idmodel::md3::AnimFindingKind::FramesOutOfRange {
                                model, ..
                            } = f.kind
                            {
                                if model != part {
                                    continue;
                                }
                            }
                            push(format!("animation.cfg: {f}"));
                        }
                    }
                    Err(err) => push(format!("animation.cfg: refused: {err}")),
                }
            }
        }
        Ok(out)
    }

    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure> {
        let md3 = parse(input.bytes)?;
        let base = frame_of(&md3, request.frame)?;
        let side = SingleSidecars::read(input, &md3);
        let skin = side.skin.as_ref().and_then(SkinFile::usable);
        let animated = request.frame.is_none() && md3.num_frames() > 1;
        let clips = if animated { side.clips } else { Vec::new() };
        if animated {
            check_budget(&md3, &clips, "the model")?;
        }
        let name = input
            .path
            .file_stem()
            .map_or_else(|| "md3".to_owned(), |s| s.to_string_lossy().into_owned());
        let mut scene = Scene {
            name: name.clone(),
            ..Scene::default()
        };
        let mut materials = Materials::default();
        let part = add_part(
            &mut scene,
            &mut materials,
            &md3,
            &name,
            skin.as_ref(),
            base,
            animated,
        );
        for clip in &clips {
            let channels = part_channels(&md3, &part, &clip.frames, &clip_times(clip));
            if !channels.is_empty() {
                scene.animations.push(Animation {
                    name: clip.name.clone(),
                    channels,
                });
            }
        }
        scene.materials = materials.0;
        Ok(scene)
    }

    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<FrameMesh, Failure> {
        let md3 = parse(input.bytes)?;
        let frame = frame_of(&md3, request.frame)?;
        let dir = input.path.parent().unwrap_or(Path::new(""));
        let skin_file = SkinFile::find(dir, &part_name(input.path));
        let skin = skin_file.as_ref().and_then(SkinFile::usable);
        let mut materials = Materials::default();
        let mut primitives: Vec<Primitive> = md3
            .surfaces()
            .filter_map(|s| {
                let material = surface_shader(&s, skin.as_ref()).and_then(|sh| materials.index(sh));
                surface_primitive(&s, frame, material)
            })
            .collect();
        if md3.num_surfaces() == 0 {
            primitives.extend(tag_markers(&md3, frame));
        }
        Ok(FrameMesh {
            primitives,
            materials: materials.0,
        })
    }
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects
)]
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
        let q = idmodel_gltf::Axes::YUp.quat(axis_to_quat(&axis));
        let yup = |v| idmodel_gltf::Axes::YUp.point(v);
        assert!(near(rotate(q, yup([1.0, 0.0, 0.0])), yup(axis[0])));
    }

    #[test]
    fn q3_clips_follow_the_engine_rules() {
        let mut text = String::from("sex f\n");
        for i in 0..25 {
            // BOTH 0-5, TORSO 6-12, LEGS 13-24 written on one timeline.
            let first = if i >= 13 { 100 + 10 * i } else { 10 * i };
            let num = if i == 14 { -3 } else { 3 };
            text += &format!("{first} {num} 0 {}\n", if i == 22 { 2000 } else { 20 });
        }
        let (q3, n) = q3_animations(text.as_bytes()).unwrap();
        assert_eq!(n, 25);
        let legs = cfg_clips(&q3, Role::Legs);
        let torso = cfg_clips(&q3, Role::Torso);
        let names = |c: &[Clip]| c.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        // 6 BOTH + 12 LEGS + LEGS_BACKCR/LEGS_BACKWALK.
        assert_eq!(legs.len(), 20, "{:?}", names(&legs));
        // 6 BOTH + 7 TORSO; the Team Arena copies are not written, so not clips.
        assert_eq!(torso.len(), 13, "{:?}", names(&torso));
        assert!(names(&torso).iter().all(|n| !n.starts_with("LEGS")));
        // LEGS_WALKCR (entry 13) written 230, TORSO_GESTURE 60: skip 170.
        let walkcr = legs.iter().find(|c| c.name == "LEGS_WALKCR").unwrap();
        assert_eq!(walkcr.frames, vec![60, 61, 62]);
        assert!((walkcr.step - 0.05).abs() < 1e-6);
        let walk = legs.iter().find(|c| c.name == "LEGS_WALK").unwrap();
        assert_eq!(walk.frames, vec![72, 71, 70], "reversed");
        let backwalk = legs.iter().find(|c| c.name == "LEGS_BACKWALK").unwrap();
        assert_eq!(backwalk.frames, vec![72, 71, 70]);
        // 2000 fps: frame time 0, frozen on its first frame.
        let idle = legs.iter().find(|c| c.name == "LEGS_IDLE").unwrap();
        assert_eq!(idle.frames.len(), 1);
        // Too many entries: not Quake III's layout.
        let mut more = text.clone();
        for _ in 0..10 {
            more += "1 1 0 10\n";
        }
        assert!(
            q3_animations(more.as_bytes())
                .unwrap_err()
                .contains("35 entries")
        );
        assert!(q3_animations(b"0 1 0 10").is_err());
    }

    #[test]
    fn frames_resolve_as_the_engine_draws_them() {
        assert_eq!(mesh_frame(3, 5), 3);
        assert_eq!(mesh_frame(5, 5), 0);
        assert_eq!(mesh_frame(-1, 5), 0);
        assert_eq!(tag_frame(9, 5), 4);
        assert_eq!(tag_frame(-3, 5), 0);
        assert_eq!(anim_frames(10, 3, true), vec![12, 11, 10]);
        assert_eq!(anim_frames(0, i32::MAX, false).len(), MAX_CLIP_KEYS);
    }

    #[test]
    fn names_and_uris() {
        assert_eq!(part_name(Path::new("a/lower_1.md3")), "lower");
        assert_eq!(part_name(Path::new("a/Upper.MD3")), "upper");
        assert_eq!(part_name(Path::new("_1.md3")), "_1");
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
        let mut model = idmodel::md3::Model::example();
        model.surfaces.clear();
        let bytes = idmodel::md3::write(&model).unwrap();
        let md3 = Model::parse(&bytes).unwrap();
        let prim = tag_markers(&md3, 0).unwrap();
        assert_eq!(prim.indices.len(), 3 * 6 * 3 * md3.num_tags());
        // Every face's id front normal points away from its pyramid's axis.
        assert!(prim.positions.iter().flatten().all(|v| v.is_finite()));
    }
}
