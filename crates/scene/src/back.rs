//! What the adapters going back (scene → MD2, scene → MDL, and MD3 for the sampling)
//! share: base64 for the raw blocks kept in [`Extras`](crate::Extras), the byte patch
//! that makes a rewrite byte-identical, the geometry comparison that decides whether the
//! extras still describe a scene, frames from morph targets and weight animations, node
//! and skin animation **sampled** into vertex frames (the one sampler of all three
//! formats: node transforms at a time, world matrices, skinning), the perceptual colour
//! metric of the palette quantisers (MDL skins, MD2's PCX skins), and the write-time
//! engine check.
//!
//! **Binary data in extras is base64** (RFC 4648 standard alphabet, with `=` padding) of
//! the file's own little-endian bytes: 4 characters per 3 bytes, so a raw block costs
//! 1⅓ × its size in the JSON, less than the glTF's float copy of the same vertices
//! (12 bytes of `POSITION` per vertex per frame against 4 packed bytes).

use alloc::string::String;
use alloc::vec::Vec;

use idmodel_core::findings::{Engine, Finding, Severity};

use crate::{Animation, ChannelValues, Error, Interpolation, Scene, Value};

/// The caller's choices for a scene → MD2 / MDL write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackOptions {
    /// The engine whose limits the written file must keep (`--engine`): the write is
    /// refused, naming the first finding, when the format's `check` reports a hazard or a
    /// refusal for it. `None`: no engine check (an exact round trip of a file that already
    /// breaks a limit stays possible).
    pub engine: Option<Engine>,
    /// Ignore the `md2.*` / `mdl.*` extras and build the model from the geometry alone.
    pub ignore_extras: bool,
    /// Sample node and skin animations at this rate (frames per second) instead of at
    /// their own key times (`--fps`). Weight animations keep their keys.
    pub fps: Option<f32>,
    /// MDL frame groups: `None` the default rule (a clip whose keys are not 0.1 s apart
    /// becomes one group), `Some(true)` every clip of two frames or more becomes one
    /// group with its intervals (`--groups`), `Some(false)` single frames only.
    pub groups: Option<bool>,
    /// The skin names to write when the model is built from the geometry (MD2: the game
    /// paths the engine loads, such as `models/x/skin.pcx`); `None`: the material names.
    pub skin_names: Option<Vec<String>>,
}

/// `Err` naming every hazard and refusal `findings` hold (`; `-separated, on one line).
pub(crate) fn refuse_findings<F: Finding + core::fmt::Display>(
    format: &str,
    findings: &[F],
) -> Result<(), Error> {
    let mut bad = findings.iter().filter(|f| f.severity() >= Severity::Hazard);
    let Some(first) = bad.next() else {
        return Ok(());
    };
    let mut message = alloc::format!("refusing to write this {format}: {first}");
    for f in bad {
        message.push_str("; ");
        message.push_str(&alloc::format!("{f}"));
    }
    Err(Error::new(message))
}

/// One format of the way back (MD2, MDL): how its owned model is rebuilt from extras or
/// from the geometry, written, read back and checked. [`model_of`] and [`bytes_of`] are
/// the formats' `from_scene` and `to_bytes`.
pub(crate) trait Back: Sized {
    /// The extras key of the byte patch (`md2.patch`).
    const PATCH: &'static str;
    /// The largest patched file accepted.
    const LIMIT: usize;
    /// The model the extras describe, if they are complete and consistent.
    fn from_extras(scene: &Scene) -> Option<Self>;
    /// The model built from the geometry alone.
    fn fresh(scene: &Scene, options: &BackOptions) -> Result<Self, Error>;
    /// The model's file.
    fn write(&self) -> Result<Vec<u8>, Error>;
    /// Whether `bytes` parse as the format.
    fn parses(bytes: &[u8]) -> bool;
    /// The scene the format's adapter makes of `bytes` (`None` when they do not parse).
    fn scene_of(bytes: &[u8]) -> Option<Scene>;
    /// `Err` naming every hazard and refusal `engine` has with `bytes`.
    fn check(bytes: &[u8], engine: Engine) -> Result<(), Error>;
}

/// The [`Back`] impl of an adapter's way back: `$model` is the owned model, `$view` the
/// view that parses the file (and whose `findings` are checked), `$name` the format in
/// messages; the module's `fresh`, `file::write`, `MAX_PATCHED_BYTES` and `super::scene`
/// do the rest.
macro_rules! back_impl {
    ($model:ty, $view:ident, $patch:literal, $name:literal, $from_extras:ident) => {
        impl $crate::back::Back for $model {
            const PATCH: &'static str = $patch;
            const LIMIT: usize = MAX_PATCHED_BYTES;
            fn from_extras(scene: &Scene) -> Option<Self> {
                $from_extras(scene)
            }
            fn fresh(scene: &Scene, options: &BackOptions) -> Result<Self> {
                fresh(scene, options)
            }
            fn write(&self) -> Result<Vec<u8>> {
                file::write(self)
                    .map_err(|e| Error::new(format!("cannot write the {}: {e}", $name)))
            }
            fn parses(bytes: &[u8]) -> bool {
                $view::parse(bytes).is_ok()
            }
            fn scene_of(bytes: &[u8]) -> Option<Scene> {
                super::scene(&$view::parse(bytes).ok()?, "", &Options::default()).ok()
            }
            fn check(bytes: &[u8], engine: Engine) -> Result<()> {
                refuse_findings($name, &$view::parse(bytes)?.findings(engine))
            }
        }
    };
}
pub(crate) use back_impl;

/// The model of `scene`: from the extras when they give back its geometry (within a
/// hundred-thousandth relative), else from the geometry.
fn build<B: Back>(scene: &Scene, options: &BackOptions) -> Result<B, Error> {
    if !options.ignore_extras {
        if let Some(model) = B::from_extras(scene) {
            let fits = model
                .write()
                .ok()
                .and_then(|b| B::scene_of(&b))
                .is_some_and(|back| same_geometry(scene, &back, 1e-5));
            if fits {
                return Ok(model);
            }
        }
    }
    B::fresh(scene, options)
}

fn check<B: Back>(bytes: &[u8], options: &BackOptions) -> Result<(), Error> {
    match options.engine {
        Some(engine) => B::check(bytes, engine),
        None => Ok(()),
    }
}

/// The owned model of `scene`, checked against [`BackOptions::engine`]'s limits.
pub(crate) fn model_of<B: Back>(scene: &Scene, options: &BackOptions) -> Result<B, Error> {
    let model = build::<B>(scene, options)?;
    check::<B>(&model.write()?, options)?;
    Ok(model)
}

/// The file of `scene`: [`model_of`] written, with the extras' patch applied when the
/// model came from unedited extras and the patched bytes still parse.
pub(crate) fn bytes_of<B: Back>(scene: &Scene, options: &BackOptions) -> Result<Vec<u8>, Error> {
    let written = build::<B>(scene, options)?.write()?;
    let bytes = if options.ignore_extras {
        written
    } else {
        let patched = apply_patch(written.clone(), scene.extras.get(B::PATCH), B::LIMIT);
        // A patch must give a file that still parses (a hostile one may not): else the
        // writer's bytes.
        if B::parses(&patched) {
            patched
        } else {
            written
        }
    };
    check::<B>(&bytes, options)?;
    Ok(bytes)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64 (standard alphabet, padded).
///
/// ```
/// assert_eq!(idmodel_scene::back::base64_encode(b"Man"), "TWFu");
/// assert_eq!(idmodel_scene::back::base64_encode(b"Ma"), "TWE=");
/// ```
pub fn base64_encode(bytes: &[u8]) -> String {
    let sym = |n: u32, shift: u32| {
        let idx = usize::try_from((n >> shift) & 63).unwrap_or(0);
        ALPHABET.get(idx).copied().unwrap_or(b'A')
    };
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = c.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b));
        out.extend_from_slice(&[sym(n, 18), sym(n, 12), sym(n, 6), sym(n, 0)]);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let b = [
            rest.first().copied().unwrap_or(0),
            rest.get(1).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8);
        let third = if rest.len() == 2 { sym(n, 6) } else { b'=' };
        out.extend_from_slice(&[sym(n, 18), sym(n, 12), third, b'=']);
    }
    // Every byte is from the ASCII alphabet or '='.
    String::from_utf8(out).unwrap_or_default()
}

fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c.wrapping_sub(b'A'),
        b'a'..=b'z' => c.wrapping_sub(b'a').wrapping_add(26),
        b'0'..=b'9' => c.wrapping_sub(b'0').wrapping_add(52),
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// The bytes of base64 `text` (as [`base64_encode`] writes it), or `None` when it is not
/// such text.
///
/// ```
/// use idmodel_scene::back::{base64_decode, base64_encode};
/// assert_eq!(base64_decode(&base64_encode(b"hello")), Some(b"hello".to_vec()));
/// assert_eq!(base64_decode("T!=="), None);
/// ```
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len().checked_rem(4) != Some(0) {
        return None;
    }
    let quads = bytes.len().checked_div(4).unwrap_or(0);
    let mut out = Vec::with_capacity(quads.saturating_mul(3));
    for (q, chunk) in bytes.chunks_exact(4).enumerate() {
        let last = q.saturating_add(1) == quads;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = if i >= 4usize.saturating_sub(pad) {
                0
            } else {
                sextet(c)?
            };
            n = (n << 6) | v;
        }
        let b = n.to_be_bytes();
        out.extend(b.get(1..4usize.saturating_sub(pad)).unwrap_or(&[]));
    }
    Some(out)
}

/// The base64 text stored under `key` in `scene`'s extras, decoded.
pub(crate) fn blob(scene: &Scene, key: &str) -> Option<Vec<u8>> {
    scene
        .extras
        .get(key)
        .and_then(Value::as_str)
        .and_then(base64_decode)
}

/// FNV-1a (64-bit) of `bytes`, as 16 hex digits: the guard of a [`make_patch`] patch in
/// files written before 2026-12-02 (key `hash`); still read, no longer written.
fn fnv_hex(bytes: &[u8]) -> String {
    alloc::format!("{:016x}", fnv1a(bytes))
}

/// FNV-1a, 64 bits: the guard of patches in files written before 2026-12-02.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The 128-bit product of `a` and `b`, its two halves xored (a "folded multiply": every
/// bit of either input reaches the result).
#[allow(clippy::as_conversions, clippy::cast_possible_truncation)] // the halves: meant
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a).wrapping_mul(u128::from(b));
    (p as u64) ^ ((p >> 64) as u64)
}

/// A 64-bit digest of `bytes`: what guards the patches of the way back (it tells
/// whether the writer's output is the one the patch was made for; it is not meant to
/// resist someone who forges a file, who can write any patch anyway).
///
/// Four lanes take 8-byte little-endian words in turn, each step a [`fold`] of the lane
/// and the word, so that four multiplications run at once: about 15× faster than
/// byte-at-a-time FNV-1a, whose every step waits for the last (1.4 ms for a 1.2 MB MD3
/// here). The same value on every machine (the words are read little-endian).
pub(crate) fn digest(bytes: &[u8]) -> u64 {
    const K: [u64; 4] = [
        0x9E37_79B9_7F4A_7C15,
        0xC2B2_AE3D_27D4_EB4F,
        0x1656_67B1_9E37_79F9,
        0x85EB_CA77_C2B2_AE63,
    ];
    const M: u64 = 0xD6E8_FEB8_6659_FD93;
    let mut lanes = K;
    let mut step = |block: &[u8]| {
        for ((lane, w), k) in lanes.iter_mut().zip(block.chunks_exact(8)).zip(K) {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            *lane = fold(*lane ^ u64::from_le_bytes(b) ^ k, M);
        }
    };
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        step(block);
    }
    // The last bytes, zero-padded; the length below tells `ab` from `ab\0`.
    let rest = blocks.remainder();
    let mut tail = [0u8; 32];
    if let Some(t) = tail.get_mut(..rest.len()) {
        t.copy_from_slice(rest);
    }
    step(&tail);
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let h = lanes.iter().fold(len ^ M, |h, &lane| fold(h ^ lane, M));
    fold(h, M ^ K[0])
}

/// [`digest`] as 16 hex digits.
pub(crate) fn digest_hex(bytes: &[u8]) -> String {
    alloc::format!("{:016x}", digest(bytes))
}

/// Whether `written` is what a patch was made for, by its guard: the `digest` (hex of
/// [`digest`]) or, in files written before 2026-12-02, `fnv` (hex of FNV-1a). `None`
/// when there is no guard.
pub(crate) fn guard_matches(
    digest: Option<&str>,
    fnv: Option<&str>,
    written: &[u8],
) -> Option<bool> {
    match (digest, fnv) {
        (Some(d), _) => Some(d == digest_hex(written)),
        (None, Some(h)) => Some(h == fnv_hex(written)),
        (None, None) => None,
    }
}

/// Equal bytes shorter than this between two differing runs are folded into one run.
const RUN_GAP: usize = 8;

/// The patch that turns `written` (what the writer makes of the model the extras
/// describe) into `original`, or `None` when they are equal: an object
/// `{"digest": digest of written, "len": original length, "runs": [[offset, base64], …]}`
/// (files written before 2026-12-02 have `"hash"`, FNV-1a of written, instead).
/// It holds only the bytes the owned models cannot say (padding after a name's NUL, GL
/// commands another tool built, a header offset of 0 for absent GL commands, …), so it
/// stays small; it is applied only to a writer output with the same hash, that is only
/// when nothing was edited.
pub fn make_patch(written: &[u8], original: &[u8]) -> Option<Value> {
    if written == original {
        return None;
    }
    let mut runs: Vec<Value> = Vec::new();
    let mut i = 0usize;
    let n = original.len();
    while i < n {
        if written.get(i) == original.get(i) {
            i = i.saturating_add(1);
            continue;
        }
        let start = i;
        let mut end = i;
        let mut same = 0usize;
        while i < n {
            if written.get(i) == original.get(i) {
                same = same.saturating_add(1);
                if same >= RUN_GAP {
                    break;
                }
            } else {
                same = 0;
                end = i.saturating_add(1);
            }
            i = i.saturating_add(1);
        }
        let bytes = original.get(start..end).unwrap_or(&[]);
        runs.push(Value::List(alloc::vec![
            Value::Int(i64::try_from(start).unwrap_or(i64::MAX)),
            Value::Str(base64_encode(bytes)),
        ]));
    }
    Some(Value::Object(alloc::vec![
        (String::from("digest"), Value::Str(digest_hex(written))),
        (
            String::from("len"),
            Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
        ),
        (String::from("runs"), Value::List(runs)),
    ]))
}

/// `written` with `patch` applied when the patch was made for exactly these bytes (same
/// hash) and is well formed; else `written` unchanged. The result is at most `limit`
/// bytes and at most `written` plus the patch's own data long.
pub fn apply_patch(written: Vec<u8>, patch: Option<&Value>, limit: usize) -> Vec<u8> {
    let Some(Value::Object(fields)) = patch else {
        return written;
    };
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    // Which bytes the patch was made for: the digest (or, in older files, FNV-1a).
    let made_for = guard_matches(
        field("digest").and_then(Value::as_str),
        field("hash").and_then(Value::as_str),
        &written,
    );
    let len = field("len")
        .and_then(Value::as_int)
        .and_then(|l| usize::try_from(l).ok());
    let runs = field("runs").and_then(Value::as_list);
    let (Some(made_for), Some(len), Some(runs)) = (made_for, len, runs) else {
        return written;
    };
    // The output may grow only by the bytes the patch itself carries (so a small hostile
    // patch cannot ask for a large allocation), and never past `limit`.
    let carried: usize = runs
        .iter()
        .filter_map(|r| r.as_list()?.get(1)?.as_str().map(str::len))
        .sum();
    let most = written.len().saturating_add(carried).min(limit);
    if !made_for || len > most {
        return written;
    }
    let mut out = written.clone();
    out.resize(len, 0);
    for run in runs {
        let Some([at, data]) = run.as_list() else {
            return written;
        };
        let at = at.as_int().and_then(|a| usize::try_from(a).ok());
        let data = data.as_str().and_then(base64_decode);
        let (Some(at), Some(data)) = (at, data) else {
            return written;
        };
        let Some(dst) = at
            .checked_add(data.len())
            .and_then(|end| out.get_mut(at..end))
        else {
            return written;
        };
        dst.copy_from_slice(&data);
    }
    out
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    let d = a - b;
    let scale = 1.0 + a.abs().max(b.abs());
    (d.abs() <= tol * scale) || (a == b)
}

fn close3(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| p.iter().zip(q).all(|(x, y)| close(*x, *y, tol)))
}

/// Whether `a` and `b` draw the same single-mesh geometry: one mesh of one primitive,
/// equal indices, and positions, UVs and morph displacements within `tol` (relative to
/// `1 + |value|`). Normals are not compared (glTF writers renormalise them).
pub fn same_geometry(a: &Scene, b: &Scene, tol: f32) -> bool {
    let (Some(ma), Some(mb)) = (a.meshes.first(), b.meshes.first()) else {
        return false;
    };
    if a.meshes.len() != 1 || b.meshes.len() != 1 {
        return false;
    }
    let (Some(pa), Some(pb)) = (ma.primitives.first(), mb.primitives.first()) else {
        return false;
    };
    if ma.primitives.len() != 1 || mb.primitives.len() != 1 {
        return false;
    }
    pa.indices == pb.indices
        && close3(&pa.positions, &pb.positions, tol)
        && pa.uvs.len() == pb.uvs.len()
        && pa
            .uvs
            .iter()
            .zip(&pb.uvs)
            .all(|(p, q)| close(p[0], q[0], tol) && close(p[1], q[1], tol))
        && pa.targets.len() == pb.targets.len()
        && pa
            .targets
            .iter()
            .zip(&pb.targets)
            .all(|(x, y)| close3(&x.positions, &y.positions, tol))
}

/// One frame to write: its name and the absolute positions and normals of every vertex
/// of the merged mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledFrame {
    /// The frame name (a target name, or the clip name and a 1-based number: `run1`).
    pub name: String,
    /// The key time in seconds (0.1 s apart for the frames of a scene without animation).
    pub time: f32,
    /// Positions, one per vertex of [`Merged`].
    pub positions: Vec<[f32; 3]>,
    /// Unit normals (or zero when the scene has none), one per vertex.
    pub normals: Vec<[f32; 3]>,
}

/// The scene's drawn geometry as one triangle list: every primitive of every node's mesh
/// (node transforms are not applied: id models are one mesh at the origin; see the module
/// docs of the adapters), with the morph targets of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// Base positions.
    pub positions: Vec<[f32; 3]>,
    /// Base normals (zero where a primitive has none).
    pub normals: Vec<[f32; 3]>,
    /// UVs (zero where a primitive has none), glTF convention.
    pub uvs: Vec<[f32; 2]>,
    /// Triangle list into the vertices.
    pub indices: Vec<u32>,
    /// The material of the first primitive.
    pub material: Option<usize>,
    /// Per morph target, per vertex: (position, normal) displacement.
    pub targets: Vec<Vec<([f32; 3], [f32; 3])>>,
    /// The target names of the first mesh.
    pub target_names: Vec<String>,
    /// Per vertex, the skin joints and weights (empty where a primitive has none).
    pub influences: Vec<Vec<(u16, f32)>>,
}

/// Merges the first mesh's primitives (id models have one mesh; other meshes are left
/// out). `None` when the scene has no triangles.
pub fn merge(scene: &Scene) -> Option<Merged> {
    // The first mesh that is not a tag's frames (`md3::is_tag_frames`).
    let helper = |m: usize| {
        scene
            .nodes
            .iter()
            .any(|n| n.mesh == Some(m) && crate::scene::is_tag_frames(n))
    };
    let mesh = (0..scene.meshes.len())
        .find(|&m| !helper(m))
        .and_then(|m| scene.meshes.get(m))?;
    let targets = mesh
        .primitives
        .iter()
        .map(|p| p.targets.len())
        .max()
        .unwrap_or(0);
    // Sized up front: growing these by doubling would reallocate for every large model.
    let vertices: usize = mesh.primitives.iter().map(|p| p.positions.len()).sum();
    let indices: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
    let mut m = Merged {
        positions: Vec::with_capacity(vertices),
        normals: Vec::with_capacity(vertices),
        uvs: Vec::with_capacity(vertices),
        indices: Vec::with_capacity(indices),
        targets: (0..targets).map(|_| Vec::with_capacity(vertices)).collect(),
        target_names: mesh.target_names.clone(),
        material: mesh.primitives.first().and_then(|p| p.material),
        influences: Vec::new(),
    };
    let skinned = mesh.primitives.iter().any(|p| !p.influences.is_empty());
    for p in &mesh.primitives {
        let base = u32::try_from(m.positions.len()).ok()?;
        let n = p.positions.len();
        for &i in &p.indices {
            if usize::try_from(i).ok()? >= n {
                return None;
            }
            m.indices.push(base.checked_add(i)?);
        }
        m.positions.extend(
            p.positions
                .iter()
                .map(|&v| idmodel_core::vec::finite_or_zero(v)),
        );
        if skinned {
            m.influences
                .extend((0..n).map(|k| p.influences.get(k).cloned().unwrap_or_default()));
        }
        // Each list whole where it has an entry per vertex (one pass the compiler can
        // widen), else entry by entry with zeros for the missing.
        match p.normals.get(..n) {
            Some(normals) => m.normals.extend(
                normals
                    .iter()
                    .map(|&v| idmodel_core::vec::finite_or_zero(v)),
            ),
            None => m.normals.extend((0..n).map(|k| {
                p.normals
                    .get(k)
                    .copied()
                    .map_or([0.0; 3], idmodel_core::vec::finite_or_zero)
            })),
        }
        match p.uvs.get(..n) {
            Some(uvs) => m
                .uvs
                .extend(uvs.iter().map(|&v| idmodel_core::vec::finite_or_zero(v))),
            None => m.uvs.extend((0..n).map(|k| {
                p.uvs
                    .get(k)
                    .copied()
                    .map_or([0.0; 2], idmodel_core::vec::finite_or_zero)
            })),
        }
        for (t, out) in m.targets.iter_mut().enumerate() {
            let target = p.targets.get(t);
            if let Some((dps, dns)) =
                target.and_then(|t| Some((t.positions.get(..n)?, t.normals.get(..n)?)))
            {
                out.extend(dps.iter().zip(dns).map(|(&dp, &dn)| {
                    (
                        idmodel_core::vec::finite_or_zero(dp),
                        idmodel_core::vec::finite_or_zero(dn),
                    )
                }));
                continue;
            }
            for k in 0..n {
                let dp = target
                    .and_then(|t| t.positions.get(k))
                    .copied()
                    .unwrap_or([0.0; 3]);
                let dn = target
                    .and_then(|t| t.normals.get(k))
                    .copied()
                    .unwrap_or([0.0; 3]);
                out.push((
                    idmodel_core::vec::finite_or_zero(dp),
                    idmodel_core::vec::finite_or_zero(dn),
                ));
            }
        }
    }
    (!m.indices.is_empty()).then_some(m)
}

/// The posed vertices of `merged` with morph `weights` (missing weights are 0).
pub fn pose(merged: &Merged, weights: &[f32], name: String, time: f32) -> SampledFrame {
    let mut positions = merged.positions.clone();
    let mut normals = merged.normals.clone();
    for (t, w) in merged.targets.iter().zip(weights) {
        if *w == 0.0 || !w.is_finite() {
            continue;
        }
        for ((p, n), (dp, dn)) in positions.iter_mut().zip(normals.iter_mut()).zip(t) {
            for a in 0..3 {
                if let (Some(pa), Some(na), Some(d), Some(e)) =
                    (p.get_mut(a), n.get_mut(a), dp.get(a), dn.get(a))
                {
                    *pa += w * d;
                    *na += w * e;
                }
            }
        }
    }
    SampledFrame {
        name,
        time,
        positions: positions
            .into_iter()
            .map(idmodel_core::vec::finite_or_zero)
            .collect(),
        normals: normals.into_iter().map(crate::unit_or_up).collect(),
    }
}

/// The frames of `scene`: for each animation with a weight channel on a node drawing the
/// mesh, one frame per key of that channel (its weights at the key; named after the
/// target when the key shows exactly one named target at weight 1, else `clip` + the
/// 1-based key number); for each other animation that moves nodes, the mesh **sampled**
/// at its key times or every `1 / fps` seconds ([`BackOptions::fps`]): skinned by the
/// node's skin (each vertex by its joints' world × inverse bind matrices, weighted), else
/// placed by the node's world matrix, named `clip` + the 1-based frame number (`run1`,
/// `run2` …); as `(clip name, frames)`. Without such animations the base pose and one
/// frame per morph target (named after the target, else `frameN`), as one clip named
/// `frame`. `Err` when an animation has more than [`MAX_SAMPLED_FRAMES`] sample times
/// (`format` names the file kind in the message).
pub fn sample_frames(
    scene: &Scene,
    merged: &Merged,
    options: &BackOptions,
    format: &str,
) -> Result<Vec<(String, Vec<SampledFrame>)>, Error> {
    let targets = merged.targets.len();
    let mut clips = Vec::new();
    for (ai, anim) in scene.animations.iter().enumerate() {
        let Some(channel) = anim.channels.iter().find(|c| {
            matches!(
                c.values,
                ChannelValues::Weights(_) | ChannelValues::SparseWeights { .. }
            ) && scene.nodes.get(c.node).is_some_and(|n| n.mesh == Some(0))
        }) else {
            if moves_nodes(anim) {
                let frames = sampled_clip(scene, merged, ai, options.fps, format)?;
                if !frames.is_empty() {
                    clips.push((anim.name.clone(), frames));
                }
            }
            continue;
        };
        let keys = channel.times.len();
        let Some(dense) = channel.values.dense(keys) else {
            continue;
        };
        let weights_at = |k: usize| {
            let start = k.saturating_mul(targets);
            dense
                .get(start..start.saturating_add(targets))
                .unwrap_or(&[])
        };
        let named: Vec<Option<String>> = (0..keys)
            .map(|k| {
                let weights = weights_at(k);
                let mut ones = weights.iter().enumerate().filter(|(_, w)| **w != 0.0);
                match (ones.next(), ones.next()) {
                    (Some((t, w)), None) if *w == 1.0 => merged.target_names.get(t).cloned(),
                    _ => None,
                }
                .filter(|n| !n.is_empty())
            })
            .collect();
        let names = frame_names(named, &anim.name);
        let mut frames = Vec::with_capacity(keys);
        for (k, name) in names.into_iter().enumerate() {
            let time = channel.times.get(k).copied().unwrap_or(0.0);
            frames.push(pose(merged, weights_at(k), name, time));
        }
        if !frames.is_empty() {
            clips.push((anim.name.clone(), frames));
        }
    }
    if clips.is_empty() {
        let mut frames = alloc::vec![pose(merged, &[], String::from("frame1"), 0.0)];
        for t in 0..targets {
            let mut w = alloc::vec![0.0f32; targets];
            if let Some(x) = w.get_mut(t) {
                *x = 1.0;
            }
            let name = merged
                .target_names
                .get(t)
                .filter(|n| !n.is_empty())
                .cloned()
                .unwrap_or_else(|| alloc::format!("frame{}", t.saturating_add(2)));
            let time = f32::from(u16::try_from(t.saturating_add(1)).unwrap_or(u16::MAX)) * 0.1;
            frames.push(pose(merged, &w, name, time));
        }
        clips.push((String::from("frame"), frames));
    }
    Ok(clips)
}

/// A clip's frame names: each key's morph target name where the key shows exactly one
/// target, and for a key that shows none (the base shape, whose name a tool such as
/// Blender does not keep) the name its clip's next named frame implies when that one is
/// `<prefix><digits>`: `stand02` after an unnamed first key gives `stand01`, in the same
/// digit width. The one key of a one-key clip is named after the clip (`wc`: a clip made
/// from frame names is named after its frames). Else `<clip><k + 1>` (`run1`, `run2` …).
///
/// ```
/// use idmodel_scene::back::frame_names;
/// let named = vec![None, Some("stand02".into()), Some("stand03".into())];
/// assert_eq!(frame_names(named, "stand"), ["stand01", "stand02", "stand03"]);
/// assert_eq!(frame_names(vec![None, None], "run"), ["run1", "run2"]);
/// assert_eq!(frame_names(vec![None], "wc"), ["wc"]);
/// // A name with no number to count back from is not guessed at.
/// assert_eq!(frame_names(vec![None, Some("pain".into())], "pain"), ["pain1", "pain"]);
/// ```
pub fn frame_names(named: Vec<Option<String>>, clip: &str) -> Vec<String> {
    let implied = |k: usize| -> Option<String> {
        let (j, next) = named
            .iter()
            .enumerate()
            .skip(k)
            .find_map(|(j, n)| n.as_ref().map(|n| (j, n)))?;
        let digits = next.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (prefix, number) = next.split_at(next.len().checked_sub(digits)?);
        if prefix.is_empty() || number.is_empty() || digits > 9 {
            return None;
        }
        let n = number
            .parse::<u32>()
            .ok()?
            .checked_sub(u32::try_from(j.checked_sub(k)?).ok()?)?;
        Some(alloc::format!("{prefix}{n:0digits$}"))
    };
    let mut out = Vec::with_capacity(named.len());
    for (k, name) in named.iter().enumerate() {
        out.push(match name {
            Some(n) => n.clone(),
            None if named.len() == 1 && !clip.is_empty() => String::from(clip),
            None => implied(k).unwrap_or_else(|| alloc::format!("{clip}{}", k.saturating_add(1))),
        });
    }
    out
}

/// The frames a morph scene shows are the base (frame 0), then base + each morph target
/// at weight 1 (frame `t + 1`), the way the MD2 and MDL adapters build them (`pose` adds
/// `w · d` with `w = 1`, which is `d` exactly). The displacements frame `f` adds to the
/// base (none for frame 0); `None` past the last target. At scene vertex `k` frame `f` is
/// `base[k] + target[k]` (`base[k]` past the target's end), a vertex needing a normal
/// entry as well, and a non-finite position is 0, as [`pose`] makes it.
fn frame_target(merged: &Merged, f: usize) -> Option<&[([f32; 3], [f32; 3])]> {
    match f.checked_sub(1) {
        None => Some(&[]),
        Some(i) => merged.targets.get(i).map(Vec::as_slice),
    }
}

/// The packed vertices of every frame the morph scene shows (the base, then base + each
/// morph target at weight 1, as [`pose`] makes them): file vertex `i` of frame `f` from scene vertex `map[i]` (position
/// `rint((p − translate) / scale)`, normal the nearest table normal), with `quant(f)` the
/// frame's `(scale, translate)`. A file vertex no scene vertex shows gets zeros (the fixes
/// say the rest). `normal`, when given, is every vertex's normal index (a file whose
/// vertices all share one, whose scene normals the adapter smooths instead). Computed
/// a block of vertices at a time: no frame is posed whole, so it needs no memory beyond
/// its result.
///
/// `hints`, per frame, per file vertex, may hold the vertices the file is expected to
/// have (the recording side knows them): a hinted normal index is taken when the
/// recovered normal lies so close to its table normal that no other can be nearer
/// ([`idmodel_core::anorms::confirm_nearest_anorm`]), so the result is the same with
/// any hints or none; right hints only make it faster.
pub fn recover_target_vertices(
    merged: &Merged,
    map: &[Option<usize>],
    quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
    normal: Option<u8>,
    hints: &[&[idmodel_core::trivertx::TriVertex]],
) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
    let frames = merged.targets.len().saturating_add(1);
    let mut nearest = NearestCache::new(map.len().saturating_mul(frames));
    let mut block = RecoverBlock::new();
    let mut out: Vec<Vec<idmodel_core::trivertx::TriVertex>> = Vec::with_capacity(frames);
    for f in 0..frames {
        let (s, t) = quant(f);
        // Looked up once per frame, not per vertex.
        let target = frame_target(merged, f);
        let frame_hints = hints.get(f).copied().unwrap_or_default();
        let mut frame = Vec::with_capacity(map.len());
        for (c, chunk) in map.chunks(RECOVER_BLOCK).enumerate() {
            let start = c.saturating_mul(RECOVER_BLOCK);
            let chunk_hints = frame_hints.get(start..).unwrap_or_default();
            block.recover(
                merged,
                target,
                chunk,
                (s, t),
                normal,
                chunk_hints,
                &mut nearest,
                &mut frame,
            );
        }
        out.push(frame);
    }
    out
}

/// The file vertices [`recover_target_vertices`] works on at a time.
const RECOVER_BLOCK: usize = 64;

/// One block of file vertices on their way back, a component per array, so that each
/// step is a short loop over one array that the compiler turns into vector operations
/// (issue #19: one vertex at a time, with its position, normal and three quantisations
/// interleaved, took most of an MD2 or MDL conversion's way-back recording).
struct RecoverBlock {
    /// Whether a scene vertex shows the file vertex.
    shown: [bool; RECOVER_BLOCK],
    /// Positions, base plus displacement, per axis.
    p: [[f32; RECOVER_BLOCK]; 3],
    /// Normals, base plus displacement (unit after [`RecoverBlock::unit_normals`]).
    n: [[f32; RECOVER_BLOCK]; 3],
    /// The packed positions.
    q: [[u8; RECOVER_BLOCK]; 3],
    /// The normal indices.
    index: [u8; RECOVER_BLOCK],
}

impl RecoverBlock {
    fn new() -> Self {
        Self {
            shown: [false; RECOVER_BLOCK],
            p: [[0.0; RECOVER_BLOCK]; 3],
            n: [[0.0; RECOVER_BLOCK]; 3],
            q: [[0; RECOVER_BLOCK]; 3],
            index: [0; RECOVER_BLOCK],
        }
    }

    /// Appends the packed vertices of `chunk` (at most [`RECOVER_BLOCK`] file vertices)
    /// of one frame to `frame`: what the vertex-at-a-time definition in
    /// [`recover_target_vertices`]'s docs gives, bit for bit (the same operations in the
    /// same order, each float computed alone; a test compares the two).
    #[allow(clippy::too_many_arguments)]
    fn recover(
        &mut self,
        merged: &Merged,
        target: Option<&[([f32; 3], [f32; 3])]>,
        chunk: &[Option<usize>],
        (s, t): ([f32; 3], [f32; 3]),
        normal: Option<u8>,
        hints: &[idmodel_core::trivertx::TriVertex],
        nearest: &mut NearestCache,
        frame: &mut Vec<idmodel_core::trivertx::TriVertex>,
    ) {
        use idmodel_core::trivertx::TriVertex;
        let len = chunk.len().min(RECOVER_BLOCK);
        // Gather: base plus displacement, or nothing shown (no frame's displacements:
        // nothing at all). Zipped slices, so the loop checks no index but the scene's.
        let (positions, normals) = (merged.positions.as_slice(), merged.normals.as_slice());
        let [px, py, pz] = &mut self.p;
        let [nx, ny, nz] = &mut self.n;
        let outs = self
            .shown
            .iter_mut()
            .zip(px.iter_mut().zip(py.iter_mut()).zip(pz.iter_mut()))
            .zip(nx.iter_mut().zip(ny.iter_mut()).zip(nz.iter_mut()));
        for (m, ((shown, ((px, py), pz)), ((nx, ny), nz))) in chunk.iter().zip(outs) {
            let vertex = m.zip(target).and_then(|(k, target)| {
                let (bp, bn) = (*positions.get(k)?, *normals.get(k)?);
                Some(match target.get(k) {
                    Some((dp, dn)) => (
                        [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                        [bn[0] + dn[0], bn[1] + dn[1], bn[2] + dn[2]],
                    ),
                    None => (bp, bn),
                })
            });
            let ([x, y, z], [a, b, c], is) = match vertex {
                Some((p, n)) => (p, n, true),
                None => ([0.0; 3], [0.0, 0.0, 1.0], false),
            };
            (*shown, *px, *py, *pz, *nx, *ny, *nz) = (is, x, y, z, a, b, c);
        }
        // Positions: non-finite to zero, then packed, one axis at a time.
        for ((pa, qa), (&scale, &translate)) in self
            .p
            .iter_mut()
            .zip(self.q.iter_mut())
            .zip(s.iter().zip(&t))
        {
            // The whole block, a fixed length the compiler can widen; entries past
            // `len` hold an earlier chunk's numbers and are not read back.
            if scale.is_nan() || scale <= 0.0 {
                // `quantise`'s answer for such a scale, whatever the position.
                qa.fill(0);
                continue;
            }
            for (x, q) in pa.iter_mut().zip(qa.iter_mut()) {
                *x = if x.is_finite() { *x } else { 0.0 };
                *q = quantise_valid(*x, translate, scale);
            }
        }
        match normal {
            Some(i) => self.index.fill(i),
            None => {
                self.unit_normals();
                self.normal_indices(len, hints, nearest);
            }
        }
        let [qx, qy, qz] = &self.q;
        let rows = self
            .shown
            .iter()
            .zip(qx.iter().zip(qy).zip(qz))
            .zip(&self.index)
            .take(len);
        frame.extend(rows.map(|((&shown, ((&x, &y), &z)), &i)| {
            if shown {
                TriVertex {
                    v: [x, y, z],
                    light_normal_index: i,
                }
            } else {
                TriVertex::default()
            }
        }));
    }

    /// The nearest table normal of each of the first `len` unit normals: the hint's
    /// where [`idmodel_core::anorms::confirm_nearest_anorm`] confirms it (a short loop
    /// with no call in it), else the cache's.
    fn normal_indices(
        &mut self,
        len: usize,
        hints: &[idmodel_core::trivertx::TriVertex],
        nearest: &mut NearestCache,
    ) {
        use idmodel_core::anorms::{ANORMS, CONFIRM_RADIUS};
        const NONE: u8 = u8::MAX;
        // The hints and their table normals, a component per array: no hint past the
        // hints given, and NaN for no table normal, which no distance is below.
        let mut hint = [NONE; RECOVER_BLOCK];
        let mut table = [[f32::NAN; RECOVER_BLOCK]; 3];
        let [tx, ty, tz] = &mut table;
        let slots = hint
            .iter_mut()
            .zip(tx.iter_mut().zip(ty.iter_mut()).zip(tz.iter_mut()));
        for (h, (slot, ((x, y), z))) in hints.iter().take(len).zip(slots) {
            *slot = h.light_normal_index;
            if let Some(&[a, b, c]) = ANORMS.get(usize::from(h.light_normal_index)) {
                (*x, *y, *z) = (a, b, c);
            }
        }
        // `confirm_nearest_anorm` over the whole block: the same arithmetic in the same
        // order, with no call and no early exit in the loop.
        let [nx, ny, nz] = &self.n;
        let [tx, ty, tz] = &table;
        let rows = nx.iter().zip(ny).zip(nz).zip(tx.iter().zip(ty).zip(tz));
        for (((((&x, &y), &z), ((&a, &b), &c)), i), &h) in rows.zip(&mut self.index).zip(&hint) {
            let e = [x - a, y - b, z - c];
            let d2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            *i = if d2 < CONFIRM_RADIUS * CONFIRM_RADIUS {
                h
            } else {
                NONE
            };
        }
        let normals = nx.iter().zip(ny).zip(nz).take(len);
        for (((&x, &y), &z), i) in normals.zip(self.index.iter_mut()) {
            if *i == NONE {
                *i = nearest.get([x, y, z]);
            }
        }
    }

    /// [`crate::unit_or_up`] of the block's normals, in place (the whole block: a fixed
    /// length the compiler can widen).
    fn unit_normals(&mut self) {
        let [nx, ny, nz] = &mut self.n;
        // Three loops: the square root (an instruction libm writes in assembly, which
        // the compiler cannot widen) alone in the middle one, the two around it vector
        // code.
        let mut lengths = [0.0f32; RECOVER_BLOCK];
        for (((l, &x), &y), &z) in lengths.iter_mut().zip(&*nx).zip(&*ny).zip(&*nz) {
            *l = x * x + y * y + z * z;
        }
        for l in &mut lengths {
            *l = libm::sqrtf(*l);
        }
        for (((x, y), z), &l) in nx
            .iter_mut()
            .zip(ny.iter_mut())
            .zip(nz.iter_mut())
            .zip(&lengths)
        {
            let keep = l.is_finite() && l > 1e-12;
            *x = if keep { *x / l } else { 0.0 };
            *y = if keep { *y / l } else { 0.0 };
            *z = if keep { *z / l } else { 1.0 };
        }
    }
}

/// The [`bounds`] of the positions of every frame [`recover_target_vertices`] reads,
/// without posing them.
pub fn target_frame_bounds(merged: &Merged) -> Vec<([f32; 3], [f32; 3])> {
    let frames = merged.targets.len().saturating_add(1);
    (0..frames)
        .map(|f| {
            let Some(target) = frame_target(merged, f) else {
                return bounds(core::iter::empty());
            };
            // A vertex needs a normal entry too (`frame_target`). The vertices the target
            // displaces, then the rest: `bounds` of the same points in the same order, as
            // two loops with no test of the target's length per vertex.
            let n = merged.positions.len().min(merged.normals.len());
            let base = merged.positions.get(..n).unwrap_or_default();
            if base.is_empty() {
                return bounds(core::iter::empty());
            }
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for (bp, (dp, _)) in base.iter().zip(target) {
                let p = [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]];
                widen(&mut lo, &mut hi, idmodel_core::vec::finite_or_zero(p));
            }
            for &bp in base.get(target.len()..).unwrap_or_default() {
                widen(&mut lo, &mut hi, idmodel_core::vec::finite_or_zero(bp));
            }
            (lo, hi)
        })
        .collect()
}

/// The fixes that turn `recovered` into `actual`: 12-byte records (frame `u32`, vertex
/// `u32`, the 4 packed bytes), little-endian, concatenated.
pub fn vertex_fixes(
    recovered: &[Vec<idmodel_core::trivertx::TriVertex>],
    actual: &[&[idmodel_core::trivertx::TriVertex]],
) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, (r, a)) in recovered.iter().zip(actual).enumerate() {
        for (i, (x, y)) in r.iter().zip(a.iter()).enumerate() {
            if x != y {
                out.extend(u32::try_from(f).unwrap_or(u32::MAX).to_le_bytes());
                out.extend(u32::try_from(i).unwrap_or(u32::MAX).to_le_bytes());
                out.extend(y.v);
                out.push(y.light_normal_index);
            }
        }
    }
    out
}

/// Applies [`vertex_fixes`] records to `frames`; `None` when one names no vertex.
pub fn apply_vertex_fixes(
    frames: &mut [Vec<idmodel_core::trivertx::TriVertex>],
    fixes: &[u8],
) -> Option<()> {
    if fixes.len().checked_rem(12) != Some(0) {
        return None;
    }
    for r in fixes.chunks_exact(12) {
        let [f0, f1, f2, f3, i0, i1, i2, i3, x, y, z, n] = *r else {
            return None;
        };
        let f = usize::try_from(u32::from_le_bytes([f0, f1, f2, f3])).ok()?;
        let i = usize::try_from(u32::from_le_bytes([i0, i1, i2, i3])).ok()?;
        *frames.get_mut(f)?.get_mut(i)? = idmodel_core::trivertx::TriVertex {
            v: [x, y, z],
            light_normal_index: n,
        };
    }
    Some(())
}

/// Per-axis minimum and maximum of `points` (zeros when empty).
pub fn bounds(points: impl Iterator<Item = [f32; 3]>) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut any = false;
    for p in points {
        any = true;
        widen(&mut lo, &mut hi, p);
    }
    if any { (lo, hi) } else { ([0.0; 3], [0.0; 3]) }
}

/// One point into [`bounds`]'s running minimum and maximum.
fn widen(lo: &mut [f32; 3], hi: &mut [f32; 3], p: [f32; 3]) {
    for ((l, h), v) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
        *l = l.min(v);
        *h = h.max(v);
    }
}

/// `(v − translate) / scale` rounded to the nearest integer and clamped to 0..=255, as
/// qdata does (`Q_rint`, then the clamp "so rounding doesn't wrap").
pub fn quantise(v: f32, translate: f32, scale: f32) -> u8 {
    if scale.is_nan() || scale <= 0.0 {
        return 0;
    }
    let q = round_half_even((v - translate) / scale).clamp(0.0, 255.0);
    // A whole number in 0..=255 after the clamp; `as` saturates and turns NaN into 0.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let b = q as u8;
    b
}

/// [`quantise`] for a `scale` that is a number above zero, with no branch (so that a loop
/// of it becomes vector code): the same byte.
fn quantise_valid(v: f32, translate: f32, scale: f32) -> u8 {
    let r = round_half_even((v - translate) / scale);
    // `clamp` keeps a NaN, which `as` then makes 0; `max` makes it 0 first: the same byte.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::manual_clamp
    )]
    let b = r.max(0.0).min(255.0) as u8;
    b
}

/// `x` rounded to the nearest whole number, ties to even: `libm::rintf`'s value (in the
/// default rounding mode), except that a negative `x` that rounds to zero gives +0, not
/// −0. Adding and removing 2²³ leaves no fraction bits, so the hardware's own rounding
/// does the work (a few instructions, where libm's portable `rintf` took about a tenth
/// of the way back's recording: callgrind, ogre.mdl). At 2²³ and beyond every f32 is
/// whole; NaN stays NaN.
fn round_half_even(x: f32) -> f32 {
    const TWO_23: f32 = 8_388_608.0;
    const SIGN: u32 = 0x8000_0000;
    // |x| and copysign(2²³, x) through the bits (libm's `copysignf` was a call).
    // Both values, then a choice (no branch, so a loop of it becomes vector code).
    let s = f32::from_bits((x.to_bits() & SIGN) | TWO_23.to_bits());
    let whole = (x + s) - s;
    if f32::from_bits(x.to_bits() & !SIGN) < TWO_23 {
        whole
    } else {
        x
    }
}

/// The index of the table normal nearest to `n` (largest dot product; the first on a
/// tie), as id's tools pick it.
pub fn nearest_normal(n: [f32; 3]) -> u8 {
    idmodel_core::anorms::nearest_anorm(n)
}

/// A direct-mapped memo of a pure function `K → V`: a collision only costs a new call,
/// so what [`Memo::get`] returns is always `f(key)`. Issue #19: the 162-entry normal
/// search per vertex per frame was 90 % of an MDL or MD2 conversion, though a model's
/// frames hold few distinct normals (a table normal, or one blended from two); the
/// palette search per texel is the same case.
struct Memo<K, V> {
    slots: Vec<Option<(K, V)>>,
    shift: u32,
}

impl<K: Copy + PartialEq, V: Copy> Memo<K, V> {
    /// `2^bits` slots (`bits` within 4..=15: at most 512 KiB of slots for the normals).
    fn new(bits: u32) -> Self {
        let bits = bits.clamp(4, 15);
        Self {
            slots: alloc::vec![None; 1usize << bits],
            shift: 32u32.saturating_sub(bits),
        }
    }

    /// `f(key)`, called only when the slot of `hash` (any well-mixed `u32` of the key)
    /// does not hold `key` already.
    fn get(&mut self, key: K, hash: u32, f: impl FnOnce(K) -> V) -> V {
        let slot = usize::try_from(hash.checked_shr(self.shift).unwrap_or(0))
            .ok()
            .and_then(|i| self.slots.get_mut(i));
        match slot {
            Some(Some((k, v))) if *k == key => *v,
            Some(s) => {
                let v = f(key);
                *s = Some((key, v));
                v
            }
            None => f(key),
        }
    }
}

/// A multiplicative hash of `words`, mixed into the high bits [`Memo`] uses.
fn mix(words: &[u32]) -> u32 {
    words.iter().fold(0x811C_9DC5u32, |h, &w| {
        (h ^ w)
            .wrapping_mul(0x9E37_79B1)
            .rotate_left(13)
            .wrapping_mul(0x85EB_CA77)
    })
}

/// [`nearest_normal`], answered cheaply for the vectors a model's frames hold.
///
/// First a guess: the entry last found for the same cell of a 32³ grid over the cube
/// `[-1, 1]³`, confirmed by [`idmodel_core::anorms::confirm_nearest_anorm`] (the vector
/// lies within 10⁻³ of that entry, inside every entry's margin), which covers normals
/// decoded from the table and then moved by rounding (a frame rebuilt as base + target,
/// renormalised). Otherwise the search, remembered by the bits of its input (see
/// [`Memo`], allocated on the first such search). Either way the answer is the search's.
struct NearestCache {
    /// Per grid cell, the last entry found there (255: none yet).
    guess: Vec<u8>,
    memo: Option<Memo<[u32; 3], u8>>,
    bits: u32,
}

impl NearestCache {
    /// Memo slots for `n` vectors (rounded up to a power of two, at most 2^15).
    fn new(n: usize) -> Self {
        Self {
            guess: alloc::vec![u8::MAX; 1 << 15],
            memo: None,
            bits: usize::BITS.saturating_sub(n.saturating_sub(1).leading_zeros()),
        }
    }

    /// The grid cell of `n` (components clamped to the cube).
    fn cell(n: [f32; 3]) -> usize {
        let axis = |x: f32| {
            // Clamped to 0..=31 as a float first (`max` takes 0 for NaN, where `clamp`
            // keeps the NaN), so the conversion needs none of `as`'s saturation.
            #[allow(
                clippy::as_conversions,
                clippy::cast_possible_truncation,
                clippy::manual_clamp
            )]
            let c = (x * 16.0 + 16.0).max(0.0).min(31.0) as i32;
            usize::try_from(c).unwrap_or(0)
        };
        (axis(n[0]) << 10) | (axis(n[1]) << 5) | axis(n[2])
    }

    fn get(&mut self, n: [f32; 3]) -> u8 {
        let cell = Self::cell(n);
        let slot = self.guess.get(cell).copied().unwrap_or(u8::MAX);
        if let Some(c) = idmodel_core::anorms::confirm_nearest_anorm(n, slot) {
            return c;
        }
        let key = n.map(f32::to_bits);
        let bits = self.bits;
        let found = self
            .memo
            .get_or_insert_with(|| Memo::new(bits))
            .get(key, mix(&key), |_| nearest_normal(n));
        if let Some(g) = self.guess.get_mut(cell) {
            *g = found;
        }
        found
    }
}

// ---------------------------------------------------------------------------------------
// Sampling node and skin animation (shared by MD3, MD2 and MDL)

/// A column-major 4 × 4 matrix (glTF's layout).
pub(crate) type Mat4 = [f32; 16];

/// The identity matrix.
pub(crate) const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// The most frames a node or skin animation is sampled into (`MD3_MAX_FRAMES`; Quake II
/// loads 512 MD2 frames and Quake 256 MDL frames, which `--engine` checks).
pub const MAX_SAMPLED_FRAMES: usize = idmodel_md3::MAX_FRAMES;

/// Element (`col`, `row`) of `m`.
pub(crate) fn at(m: &Mat4, col: usize, row: usize) -> f32 {
    m.get(col.saturating_mul(4).saturating_add(row))
        .copied()
        .unwrap_or(0.0)
}

/// `a × b`.
pub(crate) fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [0.0f32; 16];
    for c in 0..4 {
        for r in 0..4 {
            let mut s = 0.0f32;
            for k in 0..4 {
                s += at(a, k, r) * at(b, c, k);
            }
            if let Some(o) = out.get_mut(c.saturating_mul(4).saturating_add(r)) {
                *o = s;
            }
        }
    }
    out
}

fn trs(t: [f32; 3], q: [f32; 4], s: [f32; 3]) -> Mat4 {
    let q = idmodel_core::vec::quat_unit(q);
    let m = idmodel_core::vec::rigid_matrix(q, t);
    let mut out = m;
    for (c, k) in s.iter().enumerate() {
        for r in 0..3 {
            if let Some(o) = out.get_mut(c.saturating_mul(4).saturating_add(r)) {
                *o *= k;
            }
        }
    }
    out
}

/// `m × (p, w)`: a point with `w` 1, a direction with `w` 0.
pub(crate) fn apply(m: &Mat4, p: [f32; 3], w: f32) -> [f32; 3] {
    let mut out = [0.0f32; 3];
    for (r, o) in out.iter_mut().enumerate() {
        *o = at(m, 0, r) * p[0] + at(m, 1, r) * p[1] + at(m, 2, r) * p[2] + at(m, 3, r) * w;
    }
    out
}

/// A node's local transform: translation, rotation, scale.
pub(crate) type Local = ([f32; 3], [f32; 4], [f32; 3]);

/// Local transforms of every node at time `t` of animation `anim` (rest without one).
pub(crate) fn locals(scene: &Scene, anim: Option<usize>, t: f32) -> Vec<Local> {
    let mut out: Vec<_> = scene
        .nodes
        .iter()
        .map(|n| (n.translation, n.rotation, n.scale))
        .collect();
    let Some(a) = anim.and_then(|a| scene.animations.get(a)) else {
        return out;
    };
    for ch in &a.channels {
        let Some(slot) = out.get_mut(ch.node) else {
            continue;
        };
        let (k, frac) = key_at(&ch.times, t, ch.interpolation);
        match &ch.values {
            ChannelValues::Translation(v) => slot.0 = lerp3(v, k, frac),
            ChannelValues::Scale(v) => slot.2 = lerp3(v, k, frac),
            ChannelValues::Rotation(v) => {
                let a = v.get(k).copied().unwrap_or(slot.1);
                let b = v.get(k.saturating_add(1)).copied().unwrap_or(a);
                slot.1 = nlerp(a, b, frac);
            }
            _ => {}
        }
    }
    out
}

/// The key before `t` and the fraction towards the next.
fn key_at(times: &[f32], t: f32, interp: Interpolation) -> (usize, f32) {
    let k = times.iter().rposition(|&x| x <= t).unwrap_or(0);
    let (Some(&a), Some(&b)) = (times.get(k), times.get(k.saturating_add(1))) else {
        return (k, 0.0);
    };
    if interp == Interpolation::Step || b <= a {
        return (k, 0.0);
    }
    (k, ((t - a) / (b - a)).clamp(0.0, 1.0))
}

fn lerp3(v: &[[f32; 3]], k: usize, f: f32) -> [f32; 3] {
    let a = v.get(k).copied().unwrap_or([0.0; 3]);
    let b = v.get(k.saturating_add(1)).copied().unwrap_or(a);
    if f == 0.0 {
        return a;
    }
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
    ]
}

fn nlerp(a: [f32; 4], b: [f32; 4], f: f32) -> [f32; 4] {
    if f == 0.0 {
        return a;
    }
    let d = idmodel_core::vec::quat_dot(a, b);
    let s = if d < 0.0 { -1.0 } else { 1.0 };
    idmodel_core::vec::quat_unit([
        a[0] + (s * b[0] - a[0]) * f,
        a[1] + (s * b[1] - a[1]) * f,
        a[2] + (s * b[2] - a[2]) * f,
        a[3] + (s * b[3] - a[3]) * f,
    ])
}

/// World matrices of every node from their local transforms (parents first; a cycle is
/// cut after as many steps as there are nodes).
pub(crate) fn worlds(scene: &Scene, local: &[Local]) -> Vec<Mat4> {
    let n = scene.nodes.len();
    let mut parent = alloc::vec![None; n];
    for (i, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            if let Some(p) = parent.get_mut(c) {
                *p = Some(i);
            }
        }
    }
    (0..n)
        .map(|i| {
            let mut m = IDENTITY;
            let mut at_node = Some(i);
            let mut steps = 0usize;
            while let Some(k) = at_node {
                if steps > n {
                    break;
                }
                steps = steps.saturating_add(1);
                if let Some(&(t, q, s)) = local.get(k) {
                    m = mul(&trs(t, q, s), &m);
                }
                at_node = parent.get(k).copied().flatten();
            }
            m
        })
        .collect()
}

/// `k` as the nearest `f32` (exact below 2²⁴).
pub(crate) fn f32_of(k: u32) -> f32 {
    let hi = u16::try_from(k >> 16).unwrap_or(u16::MAX);
    let lo = u16::try_from(k & 0xFFFF).unwrap_or(0);
    f32::from(hi) * 65536.0 + f32::from(lo)
}

/// The times at which animation `a` is sampled: every key time of its channels (sorted,
/// without repeats), or every `1 / fps` seconds from 0 to its last key with `fps` (at
/// most `cap` of them); never empty. `Err` naming `format`'s cap when the keys are more.
pub(crate) fn sample_times(
    a: &Animation,
    fps: Option<f32>,
    cap: usize,
    format: &str,
) -> Result<Vec<f32>, Error> {
    let end = a
        .channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0f32, f32::max);
    let mut times: Vec<f32> = match fps.filter(|f| f.is_finite() && *f > 0.0) {
        Some(fps) => {
            let mut t = Vec::new();
            let mut k = 0u32;
            loop {
                let x = f32_of(k) / fps;
                if x > end + 1e-6 || t.len() >= cap {
                    break;
                }
                t.push(x);
                k = k.saturating_add(1);
            }
            t
        }
        None => {
            let mut t: Vec<f32> = a
                .channels
                .iter()
                .flat_map(|c| c.times.iter().copied())
                .collect();
            t.sort_by(f32::total_cmp);
            t.dedup();
            t
        }
    };
    if times.len() > cap {
        return Err(Error::new(alloc::format!(
            "animation {:?}: {} frames to sample, over {format} {cap} (use --fps)",
            a.name,
            times.len()
        )));
    }
    if times.is_empty() {
        times.push(0.0);
    }
    Ok(times)
}

/// The joint matrices of `skin` in the pose `world`: each joint's world matrix times its
/// inverse bind matrix.
pub(crate) fn skin_matrices(skin: &crate::Skin, world: &[Mat4]) -> Vec<Mat4> {
    skin.joints
        .iter()
        .enumerate()
        .map(|(k, &j)| {
            let ibm = skin
                .inverse_bind_matrices
                .get(k)
                .copied()
                .unwrap_or(IDENTITY);
            mul(world.get(j).unwrap_or(&IDENTITY), &ibm)
        })
        .collect()
}

/// `v` skinned by `pairs` (joint, weight; negative weights count as 0, the sum made 1)
/// with the joint matrices `mats`, as a point (`w` 1) or a direction (`w` 0); `None`
/// when the weights sum to nothing.
pub(crate) fn skin_point(
    mats: &[Mat4],
    pairs: &[(u16, f32)],
    v: [f32; 3],
    w: f32,
) -> Option<[f32; 3]> {
    let sum: f32 = pairs.iter().map(|&(_, w)| w.max(0.0)).sum();
    if sum <= 0.0 {
        return None;
    }
    let mut out = [0.0f32; 3];
    for &(j, wt) in pairs {
        let m = mats.get(usize::from(j)).unwrap_or(&IDENTITY);
        let q = apply(m, v, w);
        out = idmodel_core::vec::add(out, idmodel_core::vec::scale(q, wt.max(0.0) / sum));
    }
    Some(out)
}

/// Whether animation `a` moves nodes (translation, rotation or scale channels).
pub(crate) fn moves_nodes(a: &Animation) -> bool {
    a.channels.iter().any(|c| {
        matches!(
            c.values,
            ChannelValues::Translation(_) | ChannelValues::Rotation(_) | ChannelValues::Scale(_)
        )
    })
}

/// `merged` posed by the world matrices `world`: skinned by its node's skin where the
/// vertices have influences, else placed by the node's world matrix; normals turned by
/// the same matrices (without translation) and made unit.
fn bake(
    scene: &Scene,
    merged: &Merged,
    node: usize,
    world: &[Mat4],
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let n = scene.nodes.get(node);
    let skin = n.and_then(|n| n.skin).and_then(|s| scene.skins.get(s));
    let place = world.get(node).copied().unwrap_or(IDENTITY);
    let mats = skin.map(|s| skin_matrices(s, world));
    let mut positions = Vec::with_capacity(merged.positions.len());
    let mut normals = Vec::with_capacity(merged.positions.len());
    for (k, (&p, &nor)) in merged.positions.iter().zip(&merged.normals).enumerate() {
        let pairs = merged.influences.get(k).map_or(&[][..], Vec::as_slice);
        let skinned = mats.as_deref().and_then(|m| {
            Some((
                skin_point(m, pairs, p, 1.0)?,
                skin_point(m, pairs, nor, 0.0)?,
            ))
        });
        let (q, m) = skinned.unwrap_or_else(|| (apply(&place, p, 1.0), apply(&place, nor, 0.0)));
        positions.push(idmodel_core::vec::finite_or_zero(q));
        normals.push(if nor == [0.0; 3] {
            nor
        } else {
            crate::unit_or_up(m)
        });
    }
    (positions, normals)
}

/// The frames of node or skin animation `anim` (index into `scene.animations`) of the
/// node drawing the merged mesh: one per sample time ([`BackOptions::fps`], else the
/// keys), named `clip` + the 1-based frame number.
fn sampled_clip(
    scene: &Scene,
    merged: &Merged,
    anim: usize,
    fps: Option<f32>,
    format: &str,
) -> Result<Vec<SampledFrame>, Error> {
    let Some(a) = scene.animations.get(anim) else {
        return Ok(Vec::new());
    };
    let node = scene
        .nodes
        .iter()
        .position(|n| n.mesh == Some(0))
        .unwrap_or(0);
    let base = if a.name.is_empty() {
        "frame"
    } else {
        a.name.as_str()
    };
    let times = sample_times(a, fps, MAX_SAMPLED_FRAMES, format)?;
    Ok(times
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let world = worlds(scene, &locals(scene, Some(anim), t));
            let (positions, normals) = bake(scene, merged, node, &world);
            SampledFrame {
                name: alloc::format!("{base}{}", k.saturating_add(1)),
                time: t,
                positions,
                normals,
            }
        })
        .collect())
}

// ---------------------------------------------------------------------------------------
// Palette quantisation (MDL skins, MD2's PCX skins)

/// The squared redmean distance between two colours (Compuphase's "low-cost
/// approximation" of perceived colour difference): with `r̄` the mean red,
/// `(2 + r̄/256)·ΔR² + 4·ΔG² + (2 + (255 − r̄)/256)·ΔB²`. The one colour metric of the
/// palette quantisers (MDL skins to the Quake palette, MD2 skins to Quake II's).
///
/// ```
/// use idmodel_scene::back::redmean;
/// assert_eq!(redmean([10, 20, 30], [10, 20, 30]), 0.0);
/// // Green weighs most: a step of green is farther than the same step of blue.
/// assert!(redmean([0, 0, 0], [0, 10, 0]) > redmean([0, 0, 0], [0, 0, 10]));
/// ```
pub fn redmean(a: [u8; 3], b: [u8; 3]) -> f32 {
    let [r1, g1, b1] = a.map(f32::from);
    let [r2, g2, b2] = b.map(f32::from);
    let rm = (r1 + r2) * 0.5;
    let (dr, dg, db) = (r1 - r2, g1 - g2, b1 - b2);
    (2.0 + rm / 256.0) * dr * dr + 4.0 * dg * dg + (2.0 + (255.0 - rm) / 256.0) * db * db
}

/// How RGBA texels become indices of a 256-colour palette: see [`quantise_to_palette`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaletteRules<'a> {
    /// The palette.
    pub colors: &'a [[u8; 3]; 256],
    /// A texel whose colour is exactly one of the indices below this keeps that index
    /// (the first one with the colour).
    pub exact_below: usize,
    /// Other texels take the nearest colour ([`redmean`]) among the indices below this
    /// (the first on a tie).
    pub nearest_below: usize,
    /// Texels with alpha below 128 become this index (`None`: alpha is ignored).
    pub transparent: Option<u8>,
}

/// The palette indices of `rgba` (4 bytes a texel) under `rules`.
///
/// ```
/// use idmodel_scene::back::{PaletteRules, quantise_to_palette};
/// let mut colors = [[0u8; 3]; 256];
/// colors[1] = [200, 0, 0];
/// colors[2] = [0, 200, 0];
/// let rules = PaletteRules { colors: &colors, exact_below: 256, nearest_below: 255, transparent: Some(255) };
/// let rgba = [190, 10, 0, 255, 0, 200, 0, 255, 9, 9, 9, 0];
/// assert_eq!(quantise_to_palette(&rgba, &rules), vec![1, 2, 255]);
/// ```
pub fn quantise_to_palette(rgba: &[u8], rules: &PaletteRules<'_>) -> Vec<u8> {
    let mut exact: alloc::collections::BTreeMap<[u8; 3], u8> = alloc::collections::BTreeMap::new();
    for (i, c) in rules.colors.iter().enumerate().take(rules.exact_below) {
        exact.entry(*c).or_insert(u8::try_from(i).unwrap_or(0));
    }
    let mut cache: alloc::collections::BTreeMap<[u8; 3], u8> = alloc::collections::BTreeMap::new();
    let mut memo = Memo::new(12);
    rgba.chunks_exact(4)
        .map(|px| {
            let (rgb, a) = match *px {
                [r, g, b, a] => ([r, g, b], a),
                _ => ([0; 3], 255),
            };
            if let Some(t) = rules.transparent.filter(|_| a < 128) {
                return t;
            }
            let [r, g, b] = rgb;
            memo.get(rgb, mix(&[u32::from_le_bytes([r, g, b, 0])]), |rgb| {
                if let Some(&i) = exact.get(&rgb) {
                    return i;
                }
                *cache.entry(rgb).or_insert_with(|| {
                    let mut best = (f32::INFINITY, 0u8);
                    for (i, c) in rules.colors.iter().enumerate().take(rules.nearest_below) {
                        let Ok(i) = u8::try_from(i) else { break };
                        let d = redmean(rgb, *c);
                        if d < best.0 {
                            best = (d, i);
                        }
                    }
                    best.1
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`recover_target_vertices`] as it was written before the blocks: one vertex at a
    /// time, straight from its docs.
    fn recover_one_at_a_time(
        merged: &Merged,
        map: &[Option<usize>],
        quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
        normal: Option<u8>,
    ) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
        use idmodel_core::trivertx::TriVertex;
        let frames = merged.targets.len() + 1;
        let mut out = Vec::new();
        for f in 0..frames {
            let (s, t) = quant(f);
            let target = frame_target(merged, f);
            let mut frame = Vec::new();
            for m in map {
                let vertex = m.zip(target).and_then(|(k, target)| {
                    let (bp, bn) = (*merged.positions.get(k)?, *merged.normals.get(k)?);
                    let (p, n) = match target.get(k) {
                        Some((dp, dn)) => (
                            [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                            [bn[0] + dn[0], bn[1] + dn[1], bn[2] + dn[2]],
                        ),
                        None => (bp, bn),
                    };
                    Some((idmodel_core::vec::finite_or_zero(p), crate::unit_or_up(n)))
                });
                frame.push(match vertex {
                    Some((p, n)) => TriVertex {
                        v: [
                            quantise(p[0], t[0], s[0]),
                            quantise(p[1], t[1], s[1]),
                            quantise(p[2], t[2], s[2]),
                        ],
                        light_normal_index: normal.unwrap_or_else(|| nearest_normal(n)),
                    },
                    None => TriVertex::default(),
                });
            }
            out.push(frame);
        }
        out
    }

    /// The branch-free packing is [`quantise`]'s for every valid scale: on random bit
    /// patterns (NaN, infinities and subnormals among them), on halves, and around 2²³.
    #[test]
    fn quantise_valid_is_quantise() {
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        let mut values: Vec<f32> = (0..20_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                f32::from_bits(state as u32)
            })
            .collect();
        values.extend((-600..600).map(|i| i as f32 * 0.5));
        values.extend([
            8_388_607.5,
            8_388_608.0,
            8_388_609.0,
            -8_388_609.0,
            -0.4,
            -0.0,
        ]);
        for &(t, sc) in &[
            (0.0f32, 1.0f32),
            (-64.0, 0.5),
            (3.25, 0.1),
            (f32::NAN, 1.0),
            (f32::INFINITY, 2.0),
            (0.0, f32::INFINITY),
            (1.0, 1e-38),
        ] {
            for &v in &values {
                assert_eq!(quantise_valid(v, t, sc), quantise(v, t, sc), "{v} {t} {sc}");
            }
        }
    }

    /// `target_frame_bounds` is `bounds` of each frame's points in vertex order, bit for
    /// bit (signed zeros included): with targets shorter and longer than the base, fewer
    /// normals than positions, non-finite displacements, and no vertices at all.
    #[test]
    fn target_frame_bounds_are_bounds_of_each_frame() {
        let reference = |merged: &Merged| -> Vec<([f32; 3], [f32; 3])> {
            (0..merged.targets.len() + 1)
                .map(|f| {
                    let Some(target) = frame_target(merged, f) else {
                        return bounds(core::iter::empty());
                    };
                    let vertices = merged.positions.iter().zip(&merged.normals).enumerate();
                    bounds(vertices.map(|(k, (bp, _))| {
                        idmodel_core::vec::finite_or_zero(match target.get(k) {
                            Some((dp, _)) => [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                            None => *bp,
                        })
                    }))
                })
                .collect()
        };
        let values = [
            0.0f32,
            -0.0,
            1.5,
            -2.25,
            f32::NAN,
            f32::INFINITY,
            1e38,
            -1e38,
            3.0,
        ];
        let pick = |i: usize| values[(i * 7 + i / 3) % values.len()];
        for (vertices, normals) in [(0usize, 0usize), (1, 1), (9, 9), (9, 5), (20, 20)] {
            let positions: Vec<[f32; 3]> = (0..vertices)
                .map(|i| [pick(i), pick(i + 1), pick(i + 2)])
                .collect();
            let targets: Vec<Vec<([f32; 3], [f32; 3])>> = [0usize, 3, vertices, vertices + 4]
                .iter()
                .enumerate()
                .map(|(t, &len)| {
                    (0..len)
                        .map(|i| ([pick(i + t), -pick(i + 2 * t), pick(i * 5 + t)], [0.0; 3]))
                        .collect()
                })
                .collect();
            let merged = Merged {
                positions,
                normals: alloc::vec![[0.0, 0.0, 1.0]; normals],
                targets,
                ..Merged::default()
            };
            let bits = |b: Vec<([f32; 3], [f32; 3])>| -> Vec<[u32; 6]> {
                b.iter()
                    .map(|(lo, hi)| [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]].map(f32::to_bits))
                    .collect()
            };
            assert_eq!(
                bits(target_frame_bounds(&merged)),
                bits(reference(&merged)),
                "{vertices} vertices, {normals} normals"
            );
        }
    }

    /// The block's unit normals are [`crate::unit_or_up`]'s, bit for bit (the recovered
    /// bytes alone would hide a last-bit difference that never crosses to another table
    /// normal).
    #[test]
    fn block_unit_normals_are_unit_or_up_bit_for_bit() {
        let mut block = RecoverBlock::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut inputs = Vec::new();
        for j in 0..RECOVER_BLOCK {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v: [f32; 3] = match j {
                0 => [0.0; 3],
                1 => [f32::NAN, 0.0, 0.0],
                2 => [f32::INFINITY, 1.0, 0.0],
                3 => [1e-20, 0.0, 0.0],
                4 => [3e19, 3e19, 3e19],
                _ => [0, 21, 42].map(|s| ((state >> s) as u16 as f32 - 32768.0) / 3000.0),
            };
            for (axis, x) in v.iter().enumerate() {
                block.n[axis][j] = *x;
            }
            inputs.push(v);
        }
        block.unit_normals();
        for (j, v) in inputs.iter().enumerate() {
            let got = [block.n[0][j], block.n[1][j], block.n[2][j]].map(f32::to_bits);
            assert_eq!(got, crate::unit_or_up(*v).map(f32::to_bits), "{v:?}");
        }
    }

    /// The block-wise recovery gives the vertex-at-a-time definition's bytes: on
    /// ordinary vertices, on ones that round half-way, and on every edge the definition
    /// names (no scene vertex, an index past the normals, a target shorter than the base,
    /// non-finite positions and normals, zero normals, scales that are zero, negative or
    /// NaN, huge values), for map lengths around the block size.
    #[test]
    fn block_recovery_is_the_vertex_at_a_time_definition() {
        use idmodel_core::trivertx::TriVertex;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e30,
            -1e30,
            8_388_609.0,
            1e-40,
        ];
        let float = |next: &mut dyn FnMut() -> u64| -> f32 {
            let r = next();
            match r % 16 {
                0 => specials[((r >> 8) % specials.len() as u64) as usize],
                1..=4 => ((r >> 8) % 512) as f32 * 0.5 - 128.0,
                _ => ((r >> 8) as u32 as f32 / u32::MAX as f32) * 200.0 - 100.0,
            }
        };
        let vec3 = |next: &mut dyn FnMut() -> u64| [float(next), float(next), float(next)];
        for (round, len) in [0usize, 1, 5, 63, 64, 65, 127, 128, 130, 200]
            .into_iter()
            .enumerate()
        {
            let vertices = len.max(1) + round;
            let positions: Vec<[f32; 3]> = (0..vertices).map(|_| vec3(&mut next)).collect();
            // Fewer normals than positions: the last vertices have none.
            let normals: Vec<[f32; 3]> = (0..vertices.saturating_sub(round % 3))
                .map(|_| vec3(&mut next))
                .collect();
            let targets: Vec<Vec<([f32; 3], [f32; 3])>> = (0..4)
                .map(|t| {
                    // Target 2 is shorter than the base.
                    let n = if t == 2 { vertices / 2 } else { vertices };
                    (0..n).map(|_| (vec3(&mut next), vec3(&mut next))).collect()
                })
                .collect();
            let merged = Merged {
                positions,
                normals,
                targets,
                ..Merged::default()
            };
            let map: Vec<Option<usize>> = (0..len)
                .map(|_| match next() % 10 {
                    0 => None,
                    1 => Some(vertices + 3),
                    _ => Some((next() % vertices as u64) as usize),
                })
                .collect();
            let scales = [
                [0.5, 0.25, 1.0],
                [0.0, -1.0, f32::NAN],
                [0.1, 3.0, 1e-30],
                [f32::INFINITY, 0.75, 2.0],
                [1.0, 1.0, 1.0],
            ];
            let translates = [
                [-64.0, -32.0, 0.0],
                [0.0, 0.0, 0.0],
                [f32::NAN, 1.0, -1.0],
                [5.0, f32::INFINITY, -100.0],
                [-0.5, 0.5, 127.5],
            ];
            let quant = |f: usize| (scales[f % 5], translates[f % 5]);
            for normal in [None, Some(7u8)] {
                let want = recover_one_at_a_time(&merged, &map, &quant, normal);
                assert_eq!(want.len(), 5);
                // Hints: none, the answer itself, wrong ones, too few (frames and
                // vertices), and indices past the table.
                let wrong: Vec<Vec<TriVertex>> = want
                    .iter()
                    .map(|f| {
                        f.iter()
                            .map(|v| TriVertex {
                                light_normal_index: (v.light_normal_index.wrapping_add(1)) % 200,
                                ..*v
                            })
                            .collect()
                    })
                    .collect();
                fn as_refs(v: &[Vec<TriVertex>]) -> Vec<&[TriVertex]> {
                    v.iter().map(Vec::as_slice).collect()
                }
                let right = as_refs(&want);
                let wrong = as_refs(&wrong);
                let short: Vec<&[TriVertex]> =
                    right.iter().take(3).map(|f| &f[..f.len() / 2]).collect();
                for hints in [&[][..], &right, &wrong, &short] {
                    let got = recover_target_vertices(&merged, &map, &quant, normal, hints);
                    assert_eq!(got, want, "map of {len}, normal {normal:?}");
                }
            }
        }
    }

    /// The digest is stored in files (the guard of their patches), so its values are
    /// pinned: a change to the function would make older files' patches unusable.
    #[test]
    fn digest_values_are_pinned() {
        let bytes: Vec<u8> = (0u8..=99).collect();
        let got: Vec<String> = [
            &bytes[..0],
            &bytes[..1],
            &bytes[..31],
            &bytes[..32],
            &bytes[..],
        ]
        .iter()
        .map(|b| digest_hex(b))
        .collect();
        assert_eq!(got, PINNED, "{got:?}");
    }

    const PINNED: [&str; 5] = [
        "e12d3d8ba5fbc0e2",
        "3652b849cb4d0668",
        "2b8a182a68c6bbd4",
        "b25b4cc96c900937",
        "ff371643978f88ad",
    ];

    /// Any one byte changed, at any position (every lane, the tail), and a zero byte
    /// appended give another digest.
    #[test]
    fn digest_sees_every_byte_and_the_length() {
        let base: Vec<u8> = (0..203u32)
            .map(|i| (i.wrapping_mul(7919) >> 3) as u8)
            .collect();
        let d = digest(&base);
        for i in 0..base.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut b = base.clone();
                b[i] ^= flip;
                assert_ne!(digest(&b), d, "byte {i} ^ {flip:#x}");
            }
        }
        let mut longer = base.clone();
        longer.push(0);
        assert_ne!(digest(&longer), d);
        assert_ne!(digest(&base[..base.len() - 1]), d);
    }

    /// A patch applies to the bytes it was made for, not to others; patches of older
    /// files, guarded by FNV-1a under `hash`, still apply.
    #[test]
    fn patches_apply_by_digest_and_by_the_older_fnv_hash() {
        let written: Vec<u8> = (0..100u8).collect();
        let mut original = written.clone();
        original[10] = 0xee;
        original[60] = 0xdd;
        let patch = make_patch(&written, &original).unwrap();
        assert_eq!(
            apply_patch(written.clone(), Some(&patch), 1 << 20),
            original
        );
        let mut other = written.clone();
        other[99] ^= 1;
        assert_eq!(apply_patch(other.clone(), Some(&patch), 1 << 20), other);
        // The same patch as files written before the digest hold it.
        let Value::Object(fields) = &patch else {
            panic!("{patch:?}")
        };
        let old: Vec<(String, Value)> = fields
            .iter()
            .map(|(k, v)| match k.as_str() {
                "digest" => ("hash".into(), Value::Str(fnv_hex(&written))),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        assert!(old.iter().any(|(k, _)| k == "hash"));
        let old = Value::Object(old);
        assert_eq!(apply_patch(written.clone(), Some(&old), 1 << 20), original);
        assert_eq!(apply_patch(other.clone(), Some(&old), 1 << 20), other);
    }

    /// `round_half_even` is libm's `rintf` (up to the sign of a zero): halves, ties on
    /// both sides of even, the edges of 2^23, infinities, NaN, and a million bit
    /// patterns from a fixed generator.
    #[test]
    fn round_half_even_is_rintf() {
        let same = |x: f32| {
            let (a, b) = (round_half_even(x), libm::rintf(x));
            assert!(
                a == b || (a.is_nan() && b.is_nan()),
                "{x:e}: {a:e} vs {b:e}"
            );
        };
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            254.5,
            255.5,
            0.49999997,
            -0.49999997,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            16_777_217.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ] {
            same(x);
        }
        for k in -40_000i32..40_000 {
            same(k as f32 / 16.0);
        }
        let mut state = 0x9E37_79B9u32;
        for _ in 0..1_000_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            same(f32::from_bits(state));
        }
    }

    /// The reference: every frame posed whole by `pose`.
    fn target_frames(merged: &Merged) -> Vec<SampledFrame> {
        let n = merged.targets.len();
        let mut out = Vec::with_capacity(n.saturating_add(1));
        out.push(pose(merged, &[], String::new(), 0.0));
        let mut w = alloc::vec![0.0f32; n];
        for t in 0..n {
            if let Some(x) = w.get_mut(t) {
                *x = 1.0;
            }
            out.push(pose(merged, &w, String::new(), 0.0));
            if let Some(x) = w.get_mut(t) {
                *x = 0.0;
            }
        }
        out
    }

    /// The reference: packed vertices of posed frames, with the search for every normal.
    fn recover_vertices(
        frames: &[SampledFrame],
        map: &[Option<usize>],
        quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
        normal: Option<u8>,
    ) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
        frames
            .iter()
            .enumerate()
            .map(|(f, frame)| {
                let (s, t) = quant(f);
                map.iter()
                    .map(|m| {
                        let p = m.and_then(|k| frame.positions.get(k));
                        let n = m.and_then(|k| frame.normals.get(k));
                        match (p, n) {
                            (Some(p), Some(n)) => idmodel_core::trivertx::TriVertex {
                                v: [
                                    quantise(p[0], t[0], s[0]),
                                    quantise(p[1], t[1], s[1]),
                                    quantise(p[2], t[2], s[2]),
                                ],
                                light_normal_index: normal.unwrap_or_else(|| nearest_normal(*n)),
                            },
                            _ => idmodel_core::trivertx::TriVertex::default(),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn recovering_vertex_by_vertex_matches_posing_whole_frames() {
        let mut seed = 0x9E37_79B9u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(seed >> 9 | 0x3F80_0000) * 2.0 - 3.0
        };
        let n = 300;
        let unit = |next: &mut dyn FnMut() -> f32| {
            let i = usize::try_from(next().to_bits() % 162).unwrap_or(0);
            idmodel_core::anorms::ANORMS[i]
        };
        let positions: Vec<[f32; 3]> = (0..n)
            .map(|_| [next() * 40.0, next() * 40.0, next() * 1e38])
            .collect();
        let normals: Vec<[f32; 3]> = (0..n).map(|_| unit(&mut next)).collect();
        let targets: Vec<Vec<([f32; 3], [f32; 3])>> = (0..12)
            .map(|_| {
                (0..n)
                    .map(|k| {
                        let to = unit(&mut next);
                        let b = normals[k];
                        let dp = [next() * 5.0, next() * 5.0, next() * 3e38];
                        (dp, [to[0] - b[0], to[1] - b[1], to[2] - b[2]])
                    })
                    .collect()
            })
            .collect();
        let merged = Merged {
            positions,
            normals,
            uvs: alloc::vec![[0.0; 2]; n],
            indices: alloc::vec![0, 1, 2],
            material: None,
            targets,
            target_names: Vec::new(),
            influences: Vec::new(),
        };
        // Some file vertices unmapped, some mapped twice, one past the mesh.
        let map: Vec<Option<usize>> = (0..n + 20)
            .map(|i| (i % 7 != 3).then_some(i % (n + 1)))
            .collect();
        let quant = |f: usize| {
            let f = f32::from(u8::try_from(f).unwrap_or(0));
            ([0.3 + f * 0.01, 0.25, 0.5], [-40.0, -41.0 + f, -1e38])
        };
        let frames = target_frames(&merged);
        assert_eq!(
            recover_target_vertices(&merged, &map, &quant, None, &[]),
            recover_vertices(&frames, &map, &quant, None)
        );
        assert_eq!(
            recover_target_vertices(&merged, &map, &quant, Some(7), &[]),
            recover_vertices(&frames, &map, &quant, Some(7))
        );
        let bits = |b: ([f32; 3], [f32; 3])| (b.0.map(f32::to_bits), b.1.map(f32::to_bits));
        let posed: Vec<_> = frames
            .iter()
            .map(|f| bits(bounds(f.positions.iter().copied())))
            .collect();
        let direct: Vec<_> = target_frame_bounds(&merged).into_iter().map(bits).collect();
        assert_eq!(direct, posed);
    }

    #[test]
    fn the_nearest_normal_cache_answers_as_the_search_does() {
        // More distinct vectors than slots (collisions evict), each asked twice, plus
        // the table itself, -0.0 against 0.0 and a zero vector.
        let mut cache = NearestCache::new(4096);
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(seed >> 9 | 0x3F80_0000) * 2.0 - 3.0
        };
        let mut vectors: Vec<[f32; 3]> = (0..10_000).map(|_| [next(), next(), next()]).collect();
        vectors.extend(idmodel_core::anorms::ANORMS);
        // Table entries moved by up to ±2e-3 per axis (inside and outside the radius
        // where a grid guess is confirmed), renormalised as a posed frame is.
        for t in &idmodel_core::anorms::ANORMS {
            for _ in 0..20 {
                let j = [next(), next(), next()].map(|r| r * 2e-3);
                vectors.push(crate::unit_or_up([t[0] + j[0], t[1] + j[1], t[2] + j[2]]));
            }
            vectors.push(crate::unit_or_up(*t));
        }
        vectors.extend([[0.0, -0.0, 1.0], [0.0, 0.0, 1.0], [0.0; 3], [-0.0; 3]]);
        vectors.extend([
            [f32::NAN, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0],
            [5.0, -7.0, 0.5],
        ]);
        for round in 0..2 {
            for v in &vectors {
                assert_eq!(cache.get(*v), nearest_normal(*v), "{v:?}, round {round}");
            }
        }
    }

    #[test]
    fn base64_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for n in 0..40 {
            let s = base64_encode(&data[..n]);
            assert_eq!(s.len() % 4, 0);
            assert_eq!(base64_decode(&s).unwrap(), &data[..n]);
        }
        // RFC 4648 §10.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), coded);
        }
        assert_eq!(base64_encode(&[0xFF, 0xEF, 0x00, 0x3E]), "/+8APg==");
        assert!(base64_decode("Zm9=Zm9v").is_none());
        assert!(base64_decode("abc").is_none());
    }

    #[test]
    fn a_patch_applies_only_to_the_bytes_it_was_made_for() {
        let written = b"hello world, this is the written form".to_vec();
        let mut original = written.clone();
        original[3] = b'X';
        original[20] = b'Y';
        original.extend_from_slice(b"tail");
        let patch = make_patch(&written, &original).unwrap();
        assert_eq!(
            apply_patch(written.clone(), Some(&patch), 1 << 20),
            original
        );
        let mut edited = written.clone();
        edited[0] = b'J';
        assert_eq!(apply_patch(edited.clone(), Some(&patch), 1 << 20), edited);
        assert_eq!(apply_patch(written.clone(), Some(&patch), 4), written);
        assert!(make_patch(&written, &written).is_none());
        // Shorter originals truncate.
        let short = written[..10].to_vec();
        let patch = make_patch(&written, &short).unwrap();
        assert_eq!(apply_patch(written.clone(), Some(&patch), 1 << 20), short);
    }

    #[test]
    fn quantisation_rounds_and_clamps() {
        assert_eq!(quantise(0.0, 0.0, 1.0), 0);
        assert_eq!(quantise(2.6, 0.0, 1.0), 3);
        assert_eq!(quantise(300.0, 0.0, 1.0), 255);
        assert_eq!(quantise(-3.0, 0.0, 1.0), 0);
        assert_eq!(quantise(5.0, 0.0, 0.0), 0);
        assert_eq!(quantise(f32::NAN, 0.0, 1.0), 0);
        for (i, n) in idmodel_core::anorms::ANORMS.iter().enumerate() {
            assert_eq!(usize::from(nearest_normal(*n)), i);
        }
    }
}
