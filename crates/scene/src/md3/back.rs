//! [`Scene`] → MD3 (the way back): [`from_scene`] builds an owned
//! [`idmodel_md3::Model`] for the existing writer, and [`record`] keeps in
//! [`Scene::extras`] what glTF cannot say, so MD3 → scene → glTF → scene → MD3 gives back
//! the file byte for byte.
//!
//! One file because it is one conversion: surfaces, frames, tags and the record that
//! makes an unedited trip byte-identical are rebuilt together and checked against each
//! other.
//!
//! What [`from_scene`] makes of a scene:
//!
//! - **Surfaces**: one per primitive (with vertices and triangles) of every node that
//!   draws a mesh, in node then primitive order; positions are placed by the node's rest
//!   transform (the identity for idmodel's MD3 scenes), quantised to 1/64 unit (refused
//!   outside MD3's ±512 range), normals encoded to MD3's lat/long (the nearest the
//!   engine decodes, `md3_normal::encode_nearest`, or q3map's `NormalToLatLong` for a
//!   scene with idmodel's record, which lists that encoder's misses; face normals of the
//!   id winding when the primitive has none), texture coordinates as they are. The surface is named after the mesh (a number added
//!   when a mesh has several primitives) and its one shader is
//!   [`BackOptions::shader_prefix`] + the material's name (or its image URI without the
//!   extension), at most 63 bytes.
//! - **Frames**: a mesh with morph targets gives frame 0 = the base and frame `k` = base +
//!   target `k − 1` (how idmodel's morph adapters store frames; the weight animation says
//!   which frame each key shows; a model of tags alone counts its frames on its first
//!   tag-frames node, `tag_frames`). A scene without morph targets whose first animation
//!   moves nodes or joints is **sampled**: at its key times, or every `1 / fps` seconds
//!   with [`BackOptions::fps`]; skinned meshes are baked (each vertex by its joints'
//!   matrices × inverse bind matrices, weighted; the sampler MD2 and MDL share,
//!   `crate::back`). Otherwise one frame.
//! - **Tags**: every node named `tag_*`, per frame, from its transform relative to the
//!   model root (its axis rows are the rotated X, Y, Z).
//! - **Frame bounds, radius and local origin** as Quake III's tools compute them: the
//!   box of the frame's quantised vertices, `localOrigin` 0, `radius` =
//!   `RadiusFromBounds` (the length of the per-axis largest magnitude of the box).
//! - **Limits** ([`BackOptions::limits`]): a surface over the engine's vertex or triangle
//!   limit (for Quake III 1.32 and ioquake3 what they draw, 999 / 1999: [`Limits::of`])
//!   is split into surfaces that fit (triangles kept whole, in order), or the write is
//!   refused naming the limit when [`BackOptions::split`] is off.
//! - **Extras** ([`record`]): when the scene's `md3.*` extras still describe it (the same
//!   frame count, surfaces and vertex counts), the header name, flags, frame names, bounds,
//!   origins and radii, raw tags, surface idents, names, flags, shaders, block orders and
//!   own frame counts, surfaces the scene could not hold (no vertices or no triangles), the
//!   normals the float round trip cannot recover, non-finite texture coordinates and
//!   trailing bytes come back from them.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::md3_normal;
use idmodel_core::vec::{add, cross, length, sub};
use idmodel_md3::{
    Engine, FrameInfo, Md3, Model, Orientation, ShaderInfo, SurfaceData, SurfaceLayout, TagInfo,
    Vertex,
};

use super::tag_frames::{self, is_tag_frames};
use crate::back::{
    IDENTITY, Mat4, apply, at, base64_encode, digest_hex, guard_matches, locals, mul, sample_times,
    skin_matrices, skin_point, worlds,
};
use crate::{ChannelValues, Error, Image, Scene, Value, unit_or_up};

/// The per-surface limits a written MD3 keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most vertices per surface.
    pub verts: usize,
    /// Most triangles per surface.
    pub triangles: usize,
}

impl Limits {
    /// MD3's declared maxima (`MD3_MAX_VERTS` 4096, `MD3_MAX_TRIANGLES` 8192), which no
    /// engine enforces.
    pub const DECLARED: Limits = Limits {
        verts: idmodel_md3::MAX_VERTS,
        triangles: idmodel_md3::MAX_TRIANGLES,
    };

    /// The limits a surface keeps to for `engine` to load **and draw** it: 999 vertices
    /// and 1999 triangles for both Quake III 1.32 and ioquake3
    /// ([`idmodel_md3::max_verts`], [`idmodel_md3::max_triangles`]), or `None` for an
    /// engine that does not load MD3.
    ///
    /// Quake III 1.32 loads a surface of 1000 vertices or 2000 triangles, but its renderer
    /// drops to the console at that surface's first draw (`RB_CheckOverflow`), so a
    /// written file keeps to the smaller drawing limit; ioquake3 refuses such a surface
    /// at load.
    ///
    /// ```
    /// use idmodel_md3::Engine;
    /// use idmodel_scene::md3::Limits;
    /// let q3 = Limits::of(Engine::Quake3).unwrap();
    /// assert_eq!((q3.verts, q3.triangles), (999, 1999));
    /// assert_eq!(Limits::of(Engine::Ioq3), Some(q3));
    /// assert_eq!(Limits::of(Engine::Quake2), None);
    /// ```
    pub fn of(engine: Engine) -> Option<Limits> {
        Some(Limits {
            verts: idmodel_md3::max_verts(engine)?,
            triangles: idmodel_md3::max_triangles(engine)?,
        })
    }
}

/// Options of [`from_scene`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BackOptions {
    /// Sample a node or skin animation at this rate instead of at its key times.
    pub fps: Option<f32>,
    /// Put in front of every shader name made from a material (`models/mapobjects/x/`).
    pub shader_prefix: String,
    /// Per-surface limits; `None`: none beyond what the file format can hold.
    pub limits: Option<Limits>,
    /// Split a surface over [`BackOptions::limits`] (default `false`: refuse it).
    pub split: bool,
}

/// The most frames [`from_scene`] samples from an animation (`MD3_MAX_FRAMES`).
pub const MAX_SAMPLED_FRAMES: usize = crate::back::MAX_SAMPLED_FRAMES;

// ---------------------------------------------------------------------------------------
// Extras: values

pub(crate) fn bytes_value(b: &[u8]) -> Value {
    match core::str::from_utf8(b) {
        Ok(s) => Value::Str(s.to_string()),
        Err(_) => Value::List(b.iter().map(|&x| Value::Int(i64::from(x))).collect()),
    }
}

pub(crate) fn value_bytes(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(s) => Some(s.as_bytes().to_vec()),
        Value::List(l) => l
            .iter()
            .map(|x| x.as_int().and_then(|i| u8::try_from(i).ok()))
            .collect(),
        _ => None,
    }
}

/// An `f32` exactly: a JSON number when finite, else its bits as `"bits:XXXXXXXX"`.
fn f_value(f: f32) -> Value {
    if f.is_finite() {
        Value::Float(f)
    } else {
        Value::Str(format!("bits:{:08x}", f.to_bits()))
    }
}

fn value_f(v: &Value) -> Option<f32> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Int(i) => i32::try_from(*i)
            .ok()
            .and_then(|i| i16::try_from(i).ok())
            .map(f32::from),
        Value::Str(s) => s
            .strip_prefix("bits:")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map(f32::from_bits),
        _ => None,
    }
}

fn int(v: usize) -> Value {
    Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

// ---------------------------------------------------------------------------------------
// Normals: the float path of the round trip

/// The frame normal [`from_scene`] encodes: the base normal made unit, plus the frame's
/// displacement (`None` for the base frame), made unit.
fn frame_normal(base: [f32; 3], displacement: Option<[f32; 3]>) -> [f32; 3] {
    let nb = unit_or_up(base);
    match displacement {
        None => nb,
        Some(d) => unit_or_up(add(nb, d)),
    }
}

/// The quantized path's exceptions of surface `si` (`s`) over its first `nf` frames:
/// the adapter decodes each normal at its cell's centre and makes displacements of unit
/// normals; the exporter writes bytes ([`crate::quantize`]); the importer reads them and
/// [`from_scene`] encodes [`frame_normal`] of them. Each normal that does not come back
/// is pushed as `[si, f, v, raw]`; true (and counting stops) when more than one in six
/// does not, as for the float path.
fn quantized_exceptions(
    s: &SurfaceData,
    si: usize,
    nf: usize,
    slots: usize,
    out: &mut Vec<Value>,
) -> bool {
    use crate::quantize::{BaseNormals, fold_base, fold_target};
    let verts = s.st.len();
    let base: Vec<[f32; 3]> = (0..verts)
        .map(|v| unit_or_up(md3_normal::decode_centre(raw_normal(s, 0, v))))
        .collect();
    let mut base_q = BaseNormals::new(base.iter().copied());
    let frames_of = |f: usize| {
        base.iter().enumerate().map(move |(v, b)| {
            let n = unit_or_up(md3_normal::decode_centre(raw_normal(s, f, v)));
            let d = sub(n, *b);
            unit_or_up(add(*b, d))
        })
    };
    // The vertices the exporter gives hidden bases (a frame's normal out of the byte
    // base's reach), whose frame 0 is then the first target, which the importer folds
    // back into the base (`quantize::fold_base`, `quantize::fold_target`).
    let mut hidden = vec![false; verts];
    for f in 1..nf {
        for ((v, frame), h) in frames_of(f).enumerate().zip(hidden.iter_mut()) {
            if !*h && !base_q.reaches(v, frame) {
                *h = true;
            }
        }
    }
    let first = hidden.contains(&true).then(|| {
        base_q.hide(&hidden);
        base_q.first_target(&hidden, &base)
    });
    for f in 0..nf {
        let target = (f > 0).then(|| base_q.target(frames_of(f)));
        for v in 0..verts {
            let seen = match (&first, &target) {
                (Some(first), _) if hidden.get(v).copied().unwrap_or(false) => {
                    // As the importer folds it and the way back decodes it.
                    let read = base_q.decoded(v);
                    let d0 = BaseNormals::displacement(first, v);
                    let folded = fold_base(read, d0);
                    frame_normal(
                        folded,
                        target.as_ref().map(|t| {
                            fold_target(read, d0, folded, BaseNormals::displacement(t, v))
                        }),
                    )
                }
                (_, None) => base_q.seen(v),
                (_, Some(t)) => base_q.seen_in(t, v),
            };
            let raw = raw_normal(s, f, v);
            if md3_normal::encode(seen) != raw {
                out.extend([int(si), int(f), int(v), Value::Int(i64::from(raw))]);
                if out.len().saturating_mul(6) / 4 > slots {
                    return true;
                }
            }
        }
    }
    false
}

/// The raw normal of surface `s`, frame `f` (frame 0 for a frame the surface lacks, as
/// the scene adapter repeats it), vertex `v`.
fn raw_normal(s: &SurfaceData, f: usize, v: usize) -> u16 {
    s.frames
        .get(f)
        .or_else(|| s.frames.first())
        .and_then(|fr| fr.get(v))
        .map_or(0, |x| x.normal)
}

/// Whether the scene adapter turns surface `s` into a primitive.
fn drawn(s: &SurfaceData) -> bool {
    !s.st.is_empty() && !s.triangles.is_empty() && !s.frames.is_empty()
}

/// The `md3.*` extras of a model whose animated scene the MD3 adapter builds (every
/// frame, frame 0 the base): everything [`from_scene`] needs to write it back byte for
/// byte after a trip through glTF.
pub fn record(md3: &Md3<'_>) -> crate::Extras {
    record_for(md3, false)
}

/// [`record`] of a scene made for a quantized glTF ([`crate::Options::quantized`]): the
/// normals the byte form does not bring back are those recorded.
pub fn record_for(md3: &Md3<'_>, quantized: bool) -> crate::Extras {
    let m = Model::from(*md3);
    let mut x = crate::Extras::default();
    x.set("md3.name", bytes_value(&m.name));
    x.set("md3.flags", Value::Int(i64::from(m.flags)));
    x.set("md3.num_skins", Value::Int(i64::from(m.num_skins)));
    x.set(
        "md3.frames",
        Value::List(
            m.frames
                .iter()
                .map(|f| {
                    let mut v = vec![bytes_value(&f.name)];
                    v.extend(
                        f.mins
                            .iter()
                            .chain(&f.maxs)
                            .chain(&f.local_origin)
                            .map(|&c| f_value(c)),
                    );
                    v.push(f_value(f.radius));
                    Value::List(v)
                })
                .collect(),
        ),
    );
    x.set(
        "md3.tags",
        Value::List(
            m.tags
                .iter()
                .map(|frame| {
                    Value::List(
                        frame
                            .iter()
                            .map(|t| {
                                let mut v = vec![bytes_value(&t.name)];
                                v.extend(
                                    t.origin
                                        .iter()
                                        .chain(t.axis.iter().flatten())
                                        .map(|&c| f_value(c)),
                                );
                                Value::List(v)
                            })
                            .collect(),
                    )
                })
                .collect(),
        ),
    );
    let frames = m.frames.len();
    let mut surfaces = Vec::with_capacity(m.surfaces.len());
    let mut normals = Vec::new();
    let mut normals_raw = Vec::new();
    let mut st = Vec::new();
    for (si, s) in m.surfaces.iter().enumerate() {
        let is_drawn = drawn(s);
        let shaders = Value::List(
            s.shaders
                .iter()
                .map(|sh| Value::List(vec![bytes_value(&sh.name), Value::Int(i64::from(sh.index))]))
                .collect(),
        );
        let raw = if is_drawn {
            Value::Null
        } else {
            Value::List(vec![
                Value::List(
                    s.triangles
                        .iter()
                        .flatten()
                        .map(|&i| Value::Int(i64::from(i)))
                        .collect(),
                ),
                Value::List(s.st.iter().flatten().map(|&c| f_value(c)).collect()),
                Value::List(
                    s.frames
                        .iter()
                        .map(|fr| {
                            Value::List(
                                fr.iter()
                                    .flat_map(|v| {
                                        v.xyz
                                            .iter()
                                            .map(|&c| Value::Int(i64::from(c)))
                                            .chain([Value::Int(i64::from(v.normal))])
                                    })
                                    .collect(),
                            )
                        })
                        .collect(),
                ),
            ])
        };
        surfaces.push(Value::List(vec![
            bytes_value(&s.ident),
            bytes_value(&s.name),
            Value::Int(i64::from(s.flags)),
            shaders,
            int(s.frames.len()),
            Value::Bool(is_drawn),
            raw,
            Value::Int(match s.layout {
                SurfaceLayout::ShadersFirst => 0,
                SurfaceLayout::TrianglesFirst => 1,
            }),
        ]));
        if !is_drawn {
            continue;
        }
        for (v, uv) in s.st.iter().enumerate() {
            if uv.iter().any(|c| !c.is_finite()) {
                st.extend([int(si), int(v), f_value(uv[0]), f_value(uv[1])]);
            }
        }
        // Simulate the float path: the adapter decodes (engine-exact), makes displacements
        // of unit normals; the exporter writes the base made unit; from_scene adds them.
        // A surface where more than one normal in six does not come back keeps all its
        // raw normals as one blob (`md3.normals_raw`, 2.7 characters a normal) instead of
        // a list of exceptions (about 16 characters each); counting stops there.
        let verts = s.st.len();
        let nf = frames.min(s.frames.len());
        let slots = nf.saturating_mul(verts);
        let mut exceptions = Vec::new();
        let mut dense = false;
        if quantized {
            dense = quantized_exceptions(s, si, nf, slots, &mut exceptions);
        }
        'vertices: for v in (0..verts).filter(|_| !quantized) {
            let b = md3_normal::decode_exact(raw_normal(s, 0, v));
            let base = unit_or_up(b);
            // `frame_normal(base, …)`, with the exporter's unit base computed once.
            let written_base = frame_normal(base, None);
            // Past frame 0 the outcome depends on the raw normal alone: a normal that
            // stays from frame to frame (most of them, in many files) is tested once.
            let mut last: Option<(u16, bool)> = None;
            for f in 0..nf {
                let raw = raw_normal(s, f, v);
                let lost = match (f, last) {
                    (0, _) => md3_normal::encode(written_base) != raw,
                    (_, Some((r, lost))) if r == raw => lost,
                    _ => {
                        let d = unit_or_up(md3_normal::decode_exact(raw));
                        let lost =
                            md3_normal::encode(unit_or_up(add(written_base, sub(d, base)))) != raw;
                        last = Some((raw, lost));
                        lost
                    }
                };
                if lost {
                    exceptions.extend([int(si), int(f), int(v), Value::Int(i64::from(raw))]);
                    if exceptions.len().saturating_mul(6) / 4 > slots {
                        dense = true;
                        break 'vertices;
                    }
                }
            }
        }
        if dense {
            // `nf` is at most the surface's own frame count: its frames as stored, each
            // normal into its two bytes of a buffer sized once.
            let mut blob = vec![0u8; slots.saturating_mul(2)];
            let stored = s
                .frames
                .iter()
                .take(nf)
                .flat_map(|fr| fr.iter().take(verts));
            for (out, x) in blob.chunks_exact_mut(2).zip(stored) {
                out.copy_from_slice(&x.normal.to_le_bytes());
            }
            normals_raw.extend([int(si), int(nf), Value::Str(base64_encode(&blob))]);
        } else {
            normals.append(&mut exceptions);
        }
    }
    x.set("md3.surfaces", Value::List(surfaces));
    if !normals.is_empty() {
        x.set("md3.normals", Value::List(normals));
    }
    if !normals_raw.is_empty() {
        x.set("md3.normals_raw", Value::List(normals_raw));
    }
    if !st.is_empty() {
        x.set("md3.st", Value::List(st));
    }
    // The bytes the owned model cannot hold (garbage after a name's NUL, say): the
    // differences between the writer's form of the model and the file, applied by
    // `to_bytes` when the written model is exactly this one (the same digest, `md3.digest`).
    if let Ok(canonical) = idmodel_md3::write(&m)
        && canonical.len() == md3.body().len().saturating_add(md3.trailing_bytes().len())
    {
        let original = md3.file_bytes();
        let mut runs: Vec<Value> = Vec::new();
        let mut run: Option<(usize, Vec<u8>)> = None;
        // Equal blocks outside a run change nothing: compared 64 bytes at a time.
        const BLOCK: usize = 64;
        let mut i = 0usize;
        while let (Some(&a), Some(&b)) = (canonical.get(i), original.get(i)) {
            let end = i.saturating_add(BLOCK);
            if run.is_none()
                && canonical
                    .get(i..end)
                    .is_some_and(|c| original.get(i..end) == Some(c))
            {
                i = end;
                continue;
            }
            i = i.saturating_add(1);
            if a == b {
                if let Some((start, bytes)) = run.take() {
                    runs.push(Value::List(vec![int(start), Value::Str(hex(&bytes))]));
                }
                continue;
            }
            match &mut run {
                Some((_, bytes)) => bytes.push(b),
                None => run = Some((i.saturating_sub(1), vec![b])),
            }
        }
        if let Some((start, bytes)) = run.take() {
            runs.push(Value::List(vec![int(start), Value::Str(hex(&bytes))]));
        }
        if !runs.is_empty() {
            x.set("md3.patches", Value::List(runs));
            x.set("md3.digest", Value::Str(digest_hex(&canonical)));
        }
    }
    if !m.trailing.is_empty() {
        x.set(
            "md3.trailing",
            Value::List(
                m.trailing
                    .iter()
                    .map(|&b| Value::Int(i64::from(b)))
                    .collect(),
            ),
        );
    }
    x
}

/// Whether `written` is what the recorded patches were made for: the digest under
/// `digest_key` or, in files written by earlier versions, FNV-1a under `fnv_key`.
pub(crate) fn made_for(x: &crate::Extras, digest_key: &str, fnv_key: &str, written: &[u8]) -> bool {
    guard_matches(
        x.get(digest_key).and_then(Value::as_str),
        x.get(fnv_key).and_then(Value::as_str),
        written,
    )
    .unwrap_or(false)
}

/// `b` as lowercase hex digits, two a byte.
pub(crate) fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digit = |d: u8| char::from(DIGITS.get(usize::from(d & 15)).copied().unwrap_or(b'0'));
    let mut s = String::with_capacity(b.len().saturating_mul(2));
    for &x in b {
        s.push(digit(x >> 4));
        s.push(digit(x));
    }
    s
}

/// The bytes of [`hex`]'s digits; `None` for anything else.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    b.chunks(2)
        .map(|c| {
            core::str::from_utf8(c)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}

/// [`from_scene`], written: the file's bytes, with the `md3.patches` of [`record`]
/// applied when the model written is exactly the one recorded (so the bytes an owned model
/// cannot hold, such as garbage after a name's NUL, come back too).
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?;
/// let scene = md3::scene(&Md3::parse(&bytes)?, "m", &Options::default())?;
/// assert_eq!(md3::to_bytes(&scene, &md3::BackOptions::default())?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_bytes(scene: &Scene, options: &BackOptions) -> Result<Vec<u8>, Error> {
    let model = from_scene(scene, options)?;
    let mut bytes =
        idmodel_md3::write(&model).map_err(|e| err(format!("cannot write the MD3: {e}")))?;
    if made_for(&scene.extras, "md3.digest", "md3.hash", &bytes) {
        for run in scene
            .extras
            .get("md3.patches")
            .and_then(Value::as_list)
            .unwrap_or(&[])
        {
            let Some(l) = run.as_list() else { continue };
            let start = l
                .first()
                .and_then(Value::as_int)
                .and_then(|i| usize::try_from(i).ok());
            let data = l.get(1).and_then(Value::as_str).and_then(unhex);
            if let (Some(start), Some(data)) = (start, data)
                && let Some(dst) = bytes.get_mut(start..start.saturating_add(data.len()))
                && dst.len() == data.len()
            {
                dst.copy_from_slice(&data);
            }
        }
    }
    Ok(bytes)
}

// ---------------------------------------------------------------------------------------
// The model

/// One surface being built: its name, shader, texture coordinates, triangles and
/// per-frame positions and normals.
struct Work {
    name: Vec<u8>,
    shader: Vec<u8>,
    st: Vec<[f32; 2]>,
    triangles: Vec<[u32; 3]>,
    frames: Vec<Posed>,
}

/// Positions and normals of one frame.
type Posed = (Vec<[f32; 3]>, Vec<[f32; 3]>);

fn err(m: String) -> Error {
    Error::new(m)
}

pub(crate) fn shader_of(scene: &Scene, material: Option<usize>, prefix: &str) -> Vec<u8> {
    let Some(m) = material.and_then(|m| scene.materials.get(m)) else {
        return Vec::new();
    };
    let name = if m.name.is_empty() {
        match &m.image {
            Some(Image::Uri(u)) => u
                .rsplit_once('.')
                .map_or(u.as_str(), |(a, _)| a)
                .to_string(),
            _ => String::new(),
        }
    } else {
        m.name.clone()
    };
    let mut out = prefix.as_bytes().to_vec();
    out.extend_from_slice(name.as_bytes());
    out
}

/// Face normals of the id winding (`(c − a) × (b − a)`), summed per vertex.
fn face_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0f32; 3]; positions.len()];
    let get = |i: u32| {
        positions
            .get(usize::try_from(i).unwrap_or(usize::MAX))
            .copied()
    };
    for t in triangles {
        let (Some(a), Some(b), Some(c)) = (get(t[0]), get(t[1]), get(t[2])) else {
            continue;
        };
        let n = cross(sub(c, a), sub(b, a));
        for &i in t {
            if let Some(o) = out.get_mut(usize::try_from(i).unwrap_or(usize::MAX)) {
                *o = add(*o, n);
            }
        }
    }
    out
}

/// The first tag-frames node (`tag_frames`) whose mesh has morph targets and whose
/// weights some animation keys: how a model of tags alone carries its frame count and
/// frame times through an editor.
fn tag_frames_source(scene: &Scene) -> Option<usize> {
    (0..scene.nodes.len()).find(|&i| {
        scene.nodes.get(i).is_some_and(|n| {
            is_tag_frames(n)
                && n.mesh
                    .and_then(|m| scene.meshes.get(m))
                    .and_then(|m| m.primitives.first())
                    .is_some_and(|p| !p.targets.is_empty())
        }) && scene.animations.iter().any(|a| {
            a.channels
                .iter()
                .any(|c| c.node == i && c.values.is_weights())
        })
    })
}

/// Which frame each morph target stands for is the target's index + 1; which animation
/// time shows frame `k` (for tags), from the first one-hot weights key showing it.
fn frame_times(scene: &Scene, node: usize, frames: usize) -> Vec<Option<(usize, f32)>> {
    let mut out = vec![None; frames];
    for (ai, a) in scene.animations.iter().enumerate() {
        for ch in a.channels.iter().filter(|c| c.node == node) {
            let targets = match &ch.values {
                ChannelValues::SparseWeights { targets, .. } => *targets,
                ChannelValues::Weights(w) => w.len().checked_div(ch.times.len()).unwrap_or(0),
                _ => continue,
            };
            let Some(dense) = ch.values.dense(ch.times.len()) else {
                continue;
            };
            for (k, &t) in ch.times.iter().enumerate() {
                let row = dense
                    .get(k.saturating_mul(targets)..k.saturating_add(1).saturating_mul(targets));
                let Some(row) = row else { continue };
                let shown = if row.iter().all(|&w| w == 0.0) {
                    Some(0)
                } else if row.iter().filter(|&&w| w != 0.0).count() == 1 {
                    row.iter()
                        .position(|&w| w == 1.0)
                        .map(|p| p.saturating_add(1))
                } else {
                    None
                };
                if let Some(slot) = shown.and_then(|f| out.get_mut(f))
                    && slot.is_none()
                {
                    *slot = Some((ai, t));
                }
            }
        }
    }
    out
}

/// Builds the MD3 of `scene` (see the module docs).
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?;
/// let model = Md3::parse(&bytes)?;
/// let scene = md3::scene(&model, "m", &Options::default())?;
/// let back = md3::from_scene(&scene, &md3::BackOptions::default())?;
/// assert_eq!(write(&back)?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_scene(scene: &Scene, options: &BackOptions) -> Result<Model, Error> {
    // The model root: the first node that draws a mesh, else the first node.
    let draws: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| {
            scene
                .nodes
                .get(i)
                .is_some_and(|n| n.mesh.is_some() && !is_tag_frames(n))
        })
        .collect();
    let morph_node = draws.iter().copied().find(|&i| {
        scene
            .nodes
            .get(i)
            .and_then(|n| n.mesh)
            .and_then(|m| scene.meshes.get(m))
            .is_some_and(|m| m.primitives.iter().any(|p| !p.targets.is_empty()))
    });
    // Where the frames are counted: the drawing mesh with targets, else (a model of tags
    // alone) the first tag-frames node with targets whose weights an animation keys.
    let frame_source = morph_node.or_else(|| tag_frames_source(scene));
    let rest = worlds(scene, &locals(scene, None, 0.0));
    // Frames: (animation, time) per frame for poses; morph frame index per frame.
    let (frame_count, poses): (usize, Vec<Option<(usize, f32)>>) = match frame_source {
        Some(node) => {
            let targets = scene
                .nodes
                .get(node)
                .and_then(|n| n.mesh)
                .and_then(|m| scene.meshes.get(m))
                .and_then(|m| m.primitives.first())
                .map_or(0, |p| p.targets.len());
            let n = targets.saturating_add(1);
            (n, frame_times(scene, node, n))
        }
        None => match scene.animations.first() {
            Some(a) if !a.channels.is_empty() => {
                let times = sample_times(a, options.fps, MAX_SAMPLED_FRAMES, "MD3's")?;
                (
                    times.len(),
                    times.into_iter().map(|t| Some((0, t))).collect(),
                )
            }
            _ => (1, vec![None]),
        },
    };
    let pose_worlds: Vec<Vec<Mat4>> = poses
        .iter()
        .map(|p| match p {
            Some((a, t)) => worlds(scene, &locals(scene, Some(*a), *t)),
            None => rest.clone(),
        })
        .collect();

    // Surfaces.
    let mut work: Vec<Work> = Vec::new();
    for &ni in &draws {
        let Some(node) = scene.nodes.get(ni) else {
            continue;
        };
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        let skin = node.skin.and_then(|s| scene.skins.get(s));
        let several = mesh.primitives.len() > 1;
        for (pi, p) in mesh.primitives.iter().enumerate() {
            if p.positions.is_empty() || p.indices.is_empty() {
                continue;
            }
            let n = p.positions.len();
            let triangles: Vec<[u32; 3]> = p
                .indices
                .chunks_exact(3)
                .map(|t| match *t {
                    [a, b, c] => [a, b, c],
                    _ => [0; 3],
                })
                .collect();
            if let Some(bad) = p
                .indices
                .iter()
                .find(|&&i| usize::try_from(i).map_or(true, |i| i >= n))
            {
                return Err(err(format!(
                    "mesh {:?} primitive {pi}: index {bad} past its {n} vertices",
                    mesh.name
                )));
            }
            let mut frames = Vec::with_capacity(frame_count);
            for f in 0..frame_count {
                // Every mesh with morph targets follows the frames (a scene from Blender
                // has one node per object); the first one's weight keys say which time
                // shows which frame.
                let morphs = morph_node.is_some() && !p.targets.is_empty();
                let (mut pos, nor): (Vec<[f32; 3]>, Vec<[f32; 3]>) = if morphs {
                    let t = f.checked_sub(1).and_then(|k| p.targets.get(k));
                    let pos = match t {
                        Some(t) => p
                            .positions
                            .iter()
                            .zip(&t.positions)
                            .map(|(&a, &d)| add(a, d))
                            .collect(),
                        None => p.positions.clone(),
                    };
                    let nor = if p.normals.is_empty() {
                        face_normals(&pos, &triangles)
                            .into_iter()
                            .map(unit_or_up)
                            .collect()
                    } else {
                        p.normals
                            .iter()
                            .enumerate()
                            .map(|(v, &b)| {
                                frame_normal(
                                    b,
                                    t.map(|t| t.normals.get(v).copied().unwrap_or([0.0; 3])),
                                )
                            })
                            .collect()
                    };
                    (pos, nor)
                } else {
                    (p.positions.clone(), Vec::new())
                };
                let w = pose_worlds.get(f).unwrap_or(&rest);
                // Skinning or node placement.
                if let (Some(skin), false) = (skin, p.influences.is_empty()) {
                    let mats = skin_matrices(skin, w);
                    for (v, pairs) in pos.iter_mut().zip(&p.influences) {
                        if let Some(out) = skin_point(&mats, pairs, *v, 1.0) {
                            *v = out;
                        }
                    }
                } else if let Some(m) = w.get(ni).filter(|m| **m != IDENTITY) {
                    for v in &mut pos {
                        *v = apply(m, *v, 1.0);
                    }
                }
                let nor = if nor.is_empty() {
                    if p.normals.is_empty()
                        || morph_node.is_none()
                            && (skin.is_some() || w.get(ni).is_some_and(|m| *m != IDENTITY))
                    {
                        face_normals(&pos, &triangles)
                            .into_iter()
                            .map(unit_or_up)
                            .collect()
                    } else {
                        p.normals.iter().map(|&b| frame_normal(b, None)).collect()
                    }
                } else {
                    nor
                };
                frames.push((pos, nor));
            }
            let mut name = mesh.name.as_bytes().to_vec();
            if name.is_empty() {
                name = format!("surface{}", work.len()).into_bytes();
            }
            if several {
                name.extend_from_slice(format!("{pi}").as_bytes());
            }
            work.push(Work {
                name,
                shader: shader_of(scene, p.material, &options.shader_prefix),
                st: if p.uvs.len() == n {
                    p.uvs.clone()
                } else {
                    vec![[0.0; 2]; n]
                },
                triangles,
                frames,
            });
        }
    }

    // Tags.
    let root = draws.first().copied();
    let root_inv = |w: &[Mat4]| root.and_then(|r| w.get(r)).map_or(IDENTITY, rigid_inverse);
    let tag_nodes: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| {
            scene
                .nodes
                .get(i)
                .is_some_and(|n| n.name.starts_with("tag_"))
        })
        .collect();
    let mut tags: Vec<Vec<TagInfo>> = pose_worlds
        .iter()
        .map(|w| {
            let inv = root_inv(w);
            tag_nodes
                .iter()
                .map(|&t| {
                    let m = mul(&inv, w.get(t).unwrap_or(&IDENTITY));
                    TagInfo {
                        name: scene
                            .nodes
                            .get(t)
                            .map(|n| n.name.as_bytes().to_vec())
                            .unwrap_or_default(),
                        origin: [at(&m, 3, 0), at(&m, 3, 1), at(&m, 3, 2)],
                        axis: [
                            [at(&m, 0, 0), at(&m, 0, 1), at(&m, 0, 2)],
                            [at(&m, 1, 0), at(&m, 1, 1), at(&m, 1, 2)],
                            [at(&m, 2, 0), at(&m, 2, 1), at(&m, 2, 2)],
                        ],
                    }
                })
                .collect()
        })
        .collect();

    exact_tags(scene, &mut tags, &poses);
    file_order(scene, &mut tags);

    let names: Vec<Vec<u8>> = (0..frame_count)
        .map(|f| {
            let target = f.checked_sub(1).and_then(|k| {
                frame_source
                    .and_then(|n| scene.nodes.get(n))
                    .and_then(|n| n.mesh)
                    .and_then(|m| scene.meshes.get(m))
                    .and_then(|m| m.target_names.get(k))
            });
            let mut s = match target {
                // Without the suffix an editor adds to repeated names (`(from 3DSMax).001`).
                Some(t) => crate::editor_name(t).as_bytes().to_vec(),
                None if f == 0 => b"frame0".to_vec(),
                None => format!("frame{f}").into_bytes(),
            };
            s.truncate(15);
            s
        })
        .collect();

    // A scene with idmodel's record is written back with the encoder the record was
    // made for (q3map's, whose misses it lists); any other scene gets the normal the
    // engine shows nearest to its own.
    let q3map = scene.extras.get("md3.surfaces").is_some();
    let mut model = build(work, tags, names, options, q3map)?;
    apply_extras(&mut model, &scene.extras);
    Ok(model)
}

/// Replaces each tag's frames by those of its tag-frames node (`tag_frames`) when that
/// holds every frame and agrees with the tag's animation on every frame the animation
/// shows (`poses`): the frames no clip shows, and the scale of axes, come from it too.
/// A tag whose animation says otherwise (edited; the glTF import detaches the frames of
/// a resampled tag animation that was edited) keeps what its animation says.
fn exact_tags(scene: &Scene, tags: &mut [Vec<TagInfo>], poses: &[Option<(usize, f32)>]) {
    let frames = tags.len();
    let names: Vec<Vec<u8>> = tags
        .first()
        .map_or_else(Vec::new, |f| f.iter().map(|t| t.name.clone()).collect());
    for (t, name) in names.iter().enumerate() {
        let Ok(name) = core::str::from_utf8(name) else {
            continue;
        };
        let Some(exact) = tag_frames::read(scene, name, frames) else {
            continue;
        };
        let agree = exact
            .iter()
            .zip(tags.iter())
            .zip(poses)
            .all(|((o, frame), pose)| {
                pose.is_none()
                    || frame.get(t).is_some_and(|tag| {
                        tag_frames::agree(
                            o,
                            &Orientation {
                                origin: tag.origin,
                                axis: tag.axis,
                            },
                        )
                    })
            });
        if !agree {
            continue;
        }
        for (o, frame) in exact.iter().zip(tags.iter_mut()) {
            if let Some(tag) = frame.get_mut(t) {
                tag.origin = o.origin;
                tag.axis = o.axis;
            }
        }
    }
}

/// Puts the tags back in their file's order when every tag's frames node gives its index
/// there and the indices are `0..n` in some order (editors reorder nodes: Blender sorts
/// them by name); otherwise leaves the scene's order.
fn file_order(scene: &Scene, tags: &mut [Vec<TagInfo>]) {
    let Some(first) = tags.first() else {
        return;
    };
    let Some(index) = first
        .iter()
        .map(|t| {
            core::str::from_utf8(&t.name)
                .ok()
                .and_then(|n| tag_frames::index(scene, n))
        })
        .collect::<Option<Vec<usize>>>()
    else {
        return;
    };
    let mut seen = vec![false; index.len()];
    for &i in &index {
        match seen.get_mut(i) {
            Some(s) if !*s => *s = true,
            _ => return,
        }
    }
    for frame in tags.iter_mut() {
        let mut keyed: Vec<(usize, TagInfo)> =
            index.iter().copied().zip(core::mem::take(frame)).collect();
        keyed.sort_by_key(|(i, _)| *i);
        *frame = keyed.into_iter().map(|(_, t)| t).collect();
    }
}

/// The inverse of a rigid (rotation + translation, perhaps scaled) matrix, by its
/// transpose for the 3×3 part.
fn rigid_inverse(m: &Mat4) -> Mat4 {
    let mut r = IDENTITY;
    for c in 0..3usize {
        for row in 0..3 {
            let len2 = at(m, row, 0) * at(m, row, 0)
                + at(m, row, 1) * at(m, row, 1)
                + at(m, row, 2) * at(m, row, 2);
            let k = if len2 > 0.0 { 1.0 / len2 } else { 0.0 };
            if let Some(o) = r.get_mut(c.saturating_mul(4).saturating_add(row)) {
                *o = at(m, row, c) * k;
            }
        }
    }
    let t = apply(&r, [at(m, 3, 0), at(m, 3, 1), at(m, 3, 2)], 1.0);
    for (row, v) in t.iter().enumerate() {
        if let Some(o) = r.get_mut(12usize.saturating_add(row)) {
            *o = -v;
        }
    }
    r
}

/// Splits a surface into pieces within `limits` (whole triangles, in order).
fn split(w: Work, limits: Limits) -> Vec<Work> {
    let verts = w.st.len();
    if verts <= limits.verts && w.triangles.len() <= limits.triangles {
        return vec![w];
    }
    let mut out = Vec::new();
    let mut remap: Vec<Option<u32>> = vec![None; verts];
    let mut used: Vec<usize> = Vec::new();
    let mut tris: Vec<[u32; 3]> = Vec::new();
    let flush = |used: &mut Vec<usize>,
                 tris: &mut Vec<[u32; 3]>,
                 remap: &mut Vec<Option<u32>>,
                 out: &mut Vec<Work>| {
        if tris.is_empty() {
            return;
        }
        let mut name = w.name.clone();
        if !out.is_empty() {
            name.extend_from_slice(format!("{}", out.len().saturating_add(1)).as_bytes());
        }
        out.push(Work {
            name,
            shader: w.shader.clone(),
            st: used
                .iter()
                .map(|&v| w.st.get(v).copied().unwrap_or([0.0; 2]))
                .collect(),
            triangles: core::mem::take(tris),
            frames: w
                .frames
                .iter()
                .map(|(p, n)| {
                    (
                        used.iter()
                            .map(|&v| p.get(v).copied().unwrap_or([0.0; 3]))
                            .collect(),
                        used.iter()
                            .map(|&v| n.get(v).copied().unwrap_or([0.0, 0.0, 1.0]))
                            .collect(),
                    )
                })
                .collect(),
        });
        for &v in used.iter() {
            if let Some(r) = remap.get_mut(v) {
                *r = None;
            }
        }
        used.clear();
    };
    for t in &w.triangles {
        let new = t
            .iter()
            .filter(|&&i| {
                remap
                    .get(usize::try_from(i).unwrap_or(usize::MAX))
                    .is_some_and(Option::is_none)
            })
            .count();
        if used.len().saturating_add(new) > limits.verts || tris.len() >= limits.triangles {
            flush(&mut used, &mut tris, &mut remap, &mut out);
        }
        let mut nt = [0u32; 3];
        for (o, &i) in nt.iter_mut().zip(t) {
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            let slot = remap.get_mut(i);
            *o = match slot {
                Some(Some(r)) => *r,
                Some(s) => {
                    let r = u32::try_from(used.len()).unwrap_or(u32::MAX);
                    *s = Some(r);
                    used.push(i);
                    r
                }
                None => 0,
            };
        }
        tris.push(nt);
    }
    flush(&mut used, &mut tris, &mut remap, &mut out);
    out
}

fn build(
    work: Vec<Work>,
    tags: Vec<Vec<TagInfo>>,
    names: Vec<Vec<u8>>,
    options: &BackOptions,
    q3map: bool,
) -> Result<Model, Error> {
    let mut pieces = Vec::new();
    for w in work {
        match options.limits {
            Some(l) if w.st.len() > l.verts || w.triangles.len() > l.triangles => {
                if !options.split {
                    return Err(err(format!(
                        "surface {:?}: {} vertices and {} triangles, over the limit of {} vertices and {} triangles per surface",
                        String::from_utf8_lossy(&w.name),
                        w.st.len(),
                        w.triangles.len(),
                        l.verts,
                        l.triangles
                    )));
                }
                pieces.extend(split(w, l));
            }
            _ => pieces.push(w),
        }
    }
    let frames_n = names.len();
    let mut surfaces = Vec::with_capacity(pieces.len());
    let mut mins = vec![[f32::INFINITY; 3]; frames_n];
    let mut maxs = vec![[f32::NEG_INFINITY; 3]; frames_n];
    for w in pieces {
        let mut frames = Vec::with_capacity(w.frames.len());
        for (f, (pos, nor)) in w.frames.iter().enumerate() {
            let mut verts = Vec::with_capacity(pos.len());
            for (v, (&p, &n)) in pos.iter().zip(nor).enumerate() {
                let vert = Vertex::encode(p, n)
                    .map(|v| {
                        if q3map {
                            v
                        } else {
                            // Within 1° of the scene's normal; q3map's encoder is off
                            // by up to 2.9° (`md3_normal::encode_nearest`).
                            Vertex {
                                normal: md3_normal::encode_nearest(n),
                                ..v
                            }
                        }
                    })
                    .ok_or_else(|| {
                        err(format!(
                            "surface {:?} frame {f} vertex {v}: position {p:?} outside MD3's range (±512)",
                            String::from_utf8_lossy(&w.name)
                        ))
                    })?;
                if let (Some(lo), Some(hi)) = (mins.get_mut(f), maxs.get_mut(f)) {
                    for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&vert.xyz) {
                        let c = f32::from(x) / 64.0;
                        *l = l.min(c);
                        *h = h.max(c);
                    }
                }
                verts.push(vert);
            }
            frames.push(verts);
        }
        let mut name = w.name;
        name.truncate(63);
        let mut shader = w.shader;
        shader.truncate(63);
        surfaces.push(SurfaceData {
            ident: *b"IDP3",
            name,
            flags: 0,
            shaders: vec![ShaderInfo {
                name: shader,
                index: 0,
            }],
            triangles: w.triangles,
            st: w.st,
            frames,
            layout: SurfaceLayout::default(),
        });
    }
    let frames = names
        .into_iter()
        .enumerate()
        .map(|(f, name)| {
            let lo = mins
                .get(f)
                .copied()
                .filter(|m| m[0].is_finite())
                .unwrap_or([0.0; 3]);
            let hi = maxs
                .get(f)
                .copied()
                .filter(|m| m[0].is_finite())
                .unwrap_or([0.0; 3]);
            let [a, b, c] = lo;
            let [d, e, g] = hi;
            let corner = [
                a.abs().max(d.abs()),
                b.abs().max(e.abs()),
                c.abs().max(g.abs()),
            ];
            FrameInfo {
                mins: lo,
                maxs: hi,
                local_origin: [0.0; 3],
                radius: length(corner),
                name,
            }
        })
        .collect();
    Ok(Model {
        name: Vec::new(),
        flags: 0,
        num_skins: 0,
        frames,
        tags,
        surfaces,
        trailing: Vec::new(),
    })
}

/// Puts back what the `md3.*` extras say, where they still fit the model.
fn apply_extras(m: &mut Model, x: &crate::Extras) {
    let Some(frames) = x.get("md3.frames").and_then(Value::as_list) else {
        return;
    };
    if frames.len() != m.frames.len() {
        return;
    }
    if let Some(n) = x.get("md3.name").and_then(value_bytes) {
        m.name = n;
    }
    if let Some(f) = x
        .get("md3.flags")
        .and_then(Value::as_int)
        .and_then(|i| i32::try_from(i).ok())
    {
        m.flags = f;
    }
    if let Some(f) = x
        .get("md3.num_skins")
        .and_then(Value::as_int)
        .and_then(|i| i32::try_from(i).ok())
    {
        m.num_skins = f;
    }
    for (fi, v) in m.frames.iter_mut().zip(frames) {
        let Some(l) = v.as_list() else { continue };
        let (Some(name), Some(nums)) = (l.first().and_then(value_bytes), l.get(1..)) else {
            continue;
        };
        let f: Option<Vec<f32>> = nums.iter().map(value_f).collect();
        if let Some(&[a, b, c, d, e, g, h, i, j, r]) = f.as_deref() {
            fi.name = name;
            fi.mins = [a, b, c];
            fi.maxs = [d, e, g];
            fi.local_origin = [h, i, j];
            fi.radius = r;
        }
    }
    if let Some(tags) = x.get("md3.tags").and_then(Value::as_list) {
        let parsed: Option<Vec<Vec<TagInfo>>> = tags
            .iter()
            .map(|fr| {
                fr.as_list()?
                    .iter()
                    .map(|t| {
                        let l = t.as_list()?;
                        let name = value_bytes(l.first()?)?;
                        let f: Vec<f32> = l.get(1..)?.iter().map(value_f).collect::<Option<_>>()?;
                        let &[o0, o1, o2, a, b, c, d, e, g, h, i, j] = f.as_slice() else {
                            return None;
                        };
                        Some(TagInfo {
                            name,
                            origin: [o0, o1, o2],
                            axis: [[a, b, c], [d, e, g], [h, i, j]],
                        })
                    })
                    .collect()
            })
            .collect();
        if let Some(t) = parsed.filter(|t| t.len() == m.frames.len()) {
            m.tags = t;
        }
    }
    let Some(surfaces) = x.get("md3.surfaces").and_then(Value::as_list) else {
        return;
    };
    let drawn_count = surfaces
        .iter()
        .filter(|s| s.as_list().and_then(|l| l.get(5)).and_then(Value::as_bool) == Some(true))
        .count();
    if drawn_count != m.surfaces.len() {
        return;
    }
    let mut made = core::mem::take(&mut m.surfaces).into_iter();
    let mut out = Vec::with_capacity(surfaces.len());
    for s in surfaces {
        let Some(l) = s.as_list() else { return };
        let ident = l
            .first()
            .and_then(value_bytes)
            .and_then(|b| <[u8; 4]>::try_from(b.as_slice()).ok());
        let name = l.get(1).and_then(value_bytes);
        let flags = l
            .get(2)
            .and_then(Value::as_int)
            .and_then(|i| i32::try_from(i).ok());
        let shaders: Option<Vec<ShaderInfo>> = l.get(3).and_then(Value::as_list).and_then(|sh| {
            sh.iter()
                .map(|s| {
                    let p = s.as_list()?;
                    Some(ShaderInfo {
                        name: value_bytes(p.first()?)?,
                        index: i32::try_from(p.get(1)?.as_int()?).ok()?,
                    })
                })
                .collect()
        });
        let own_frames = l
            .get(4)
            .and_then(Value::as_int)
            .and_then(|i| usize::try_from(i).ok());
        let is_drawn = l.get(5).and_then(Value::as_bool) == Some(true);
        let (Some(ident), Some(name), Some(flags), Some(shaders), Some(own)) =
            (ident, name, flags, shaders, own_frames)
        else {
            return;
        };
        let mut surf = if is_drawn {
            let Some(mut s) = made.next() else { return };
            if own <= s.frames.len() {
                s.frames.truncate(own);
            }
            s
        } else {
            let Some(raw) = l.get(6).and_then(Value::as_list) else {
                return;
            };
            let tris: Option<Vec<u32>> = raw.first().and_then(Value::as_list).and_then(|t| {
                t.iter()
                    .map(|i| i.as_int().and_then(|i| u32::try_from(i).ok()))
                    .collect()
            });
            let st: Option<Vec<f32>> = raw
                .get(1)
                .and_then(Value::as_list)
                .and_then(|t| t.iter().map(value_f).collect());
            let frames: Option<Vec<Vec<Vertex>>> =
                raw.get(2).and_then(Value::as_list).and_then(|fr| {
                    fr.iter()
                        .map(|f| {
                            let ints: Vec<i64> = f
                                .as_list()?
                                .iter()
                                .map(Value::as_int)
                                .collect::<Option<_>>()?;
                            ints.chunks_exact(4)
                                .map(|c| match *c {
                                    [x, y, z, n] => Some(Vertex {
                                        xyz: [
                                            i16::try_from(x).ok()?,
                                            i16::try_from(y).ok()?,
                                            i16::try_from(z).ok()?,
                                        ],
                                        normal: u16::try_from(n).ok()?,
                                    }),
                                    _ => None,
                                })
                                .collect()
                        })
                        .collect()
                });
            let (Some(tris), Some(st), Some(frames)) = (tris, st, frames) else {
                return;
            };
            SurfaceData {
                ident,
                name: Vec::new(),
                flags: 0,
                shaders: Vec::new(),
                triangles: tris
                    .chunks_exact(3)
                    .filter_map(|t| <[u32; 3]>::try_from(t).ok())
                    .collect(),
                st: st
                    .chunks_exact(2)
                    .filter_map(|c| <[f32; 2]>::try_from(c).ok())
                    .collect(),
                frames,
                layout: SurfaceLayout::default(),
            }
        };
        surf.ident = ident;
        surf.name = name;
        surf.flags = flags;
        surf.shaders = shaders;
        // The file's block order (records written before it was kept have none).
        surf.layout = match l.get(7).and_then(Value::as_int) {
            Some(1) => SurfaceLayout::TrianglesFirst,
            _ => SurfaceLayout::ShadersFirst,
        };
        out.push(surf);
    }
    // Normals and texture coordinates the float path cannot give back: whole surfaces
    // (`[surface, frames, base64 of frame-major u16 normals]`), then single normals
    // (`[surface, frame, vertex, normal]`, the only form of GLBs written before).
    if let Some(n) = x.get("md3.normals_raw").and_then(Value::as_list) {
        for c in n.chunks_exact(3) {
            let (Some(s), Some(nf), Some(blob)) = (
                c.first().and_then(Value::as_int),
                c.get(1).and_then(Value::as_int),
                c.get(2)
                    .and_then(Value::as_str)
                    .and_then(crate::back::base64_decode),
            ) else {
                continue;
            };
            let (Ok(s), Ok(nf)) = (usize::try_from(s), usize::try_from(nf)) else {
                continue;
            };
            let verts = (blob.len() / 2).checked_div(nf).unwrap_or(0);
            let Some(surf) = out.get_mut(s) else {
                continue;
            };
            if verts == 0 {
                continue;
            }
            for (fr, normals) in surf
                .frames
                .iter_mut()
                .zip(blob.chunks_exact(verts.saturating_mul(2)))
            {
                for (vert, raw) in fr.iter_mut().zip(normals.chunks_exact(2)) {
                    if let [lo, hi] = *raw {
                        vert.normal = u16::from_le_bytes([lo, hi]);
                    }
                }
            }
        }
    }
    if let Some(n) = x.get("md3.normals").and_then(Value::as_list) {
        for c in n.chunks_exact(4) {
            let idx: Option<Vec<usize>> = c
                .iter()
                .map(|v| v.as_int().and_then(|i| usize::try_from(i).ok()))
                .collect();
            if let Some(&[s, f, v, raw]) = idx.as_deref()
                && let Some(vert) = out
                    .get_mut(s)
                    .and_then(|s| s.frames.get_mut(f))
                    .and_then(|fr| fr.get_mut(v))
            {
                vert.normal = u16::try_from(raw).unwrap_or(vert.normal);
            }
        }
    }
    if let Some(st) = x.get("md3.st").and_then(Value::as_list) {
        for c in st.chunks_exact(4) {
            let s = c
                .first()
                .and_then(Value::as_int)
                .and_then(|i| usize::try_from(i).ok());
            let v = c
                .get(1)
                .and_then(Value::as_int)
                .and_then(|i| usize::try_from(i).ok());
            let (Some(u), Some(t)) = (c.get(2).and_then(value_f), c.get(3).and_then(value_f))
            else {
                continue;
            };
            if let (Some(s), Some(v)) = (s, v)
                && let Some(slot) = out.get_mut(s).and_then(|s| s.st.get_mut(v))
            {
                *slot = [u, t];
            }
        }
    }
    if let Some(t) = x.get("md3.trailing").and_then(value_bytes) {
        m.trailing = t;
    }
    m.surfaces = out;
}
