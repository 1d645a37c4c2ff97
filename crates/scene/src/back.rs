//! What the adapters going back (scene → MD2, scene → MDL) share: base64 for the raw
//! blocks kept in [`Extras`](crate::Extras), the byte patch that makes a rewrite
//! byte-identical, the geometry comparison that decides whether the extras still describe
//! a scene, frames from morph targets and weight animations, and the write-time engine
//! check.
//!
//! **Binary data in extras is base64** (RFC 4648 standard alphabet, with `=` padding) of
//! the file's own little-endian bytes: 4 characters per 3 bytes, so a raw block costs
//! 1⅓ × its size in the JSON, less than the glTF's float copy of the same vertices
//! (12 bytes of `POSITION` per vertex per frame against 4 packed bytes).

use alloc::string::String;
use alloc::vec::Vec;

use idmodel_core::findings::{Engine, Finding, Severity};

use crate::{ChannelValues, Error, Scene, Value};

/// The caller's choices for a scene → MD2 / MDL write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackOptions {
    /// The engine whose limits the written file must keep (`--engine`): the write is
    /// refused, naming the first finding, when the format's `check` reports a hazard or a
    /// refusal for it. `None`: no engine check (an exact round trip of a file that already
    /// breaks a limit stays possible).
    pub engine: Option<Engine>,
    /// Ignore the `md2.*` / `mdl.*` extras and build the model from the geometry alone.
    pub ignore_extras: bool,
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

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64 (standard alphabet, padded).
///
/// ```
/// assert_eq!(idmodel_scene::back::base64_encode(b"Man"), "TWFu");
/// assert_eq!(idmodel_scene::back::base64_encode(b"Ma"), "TWE=");
/// ```
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                let idx = usize::try_from((n >> shift) & 63).unwrap_or(0);
                out.push(char::from(ALPHABET.get(idx).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
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

/// FNV-1a (64-bit) of `bytes`, as 16 hex digits: the guard of a [`make_patch`] patch.
fn fnv_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    alloc::format!("{h:016x}")
}

/// Equal bytes shorter than this between two differing runs are folded into one run.
const RUN_GAP: usize = 8;

/// The patch that turns `written` (what the writer makes of the model the extras
/// describe) into `original`, or `None` when they are equal: an object
/// `{"hash": FNV-1a of written, "len": original length, "runs": [[offset, base64], …]}`.
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
        (String::from("hash"), Value::Str(fnv_hex(written))),
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
    let hash = field("hash").and_then(Value::as_str);
    let len = field("len")
        .and_then(Value::as_int)
        .and_then(|l| usize::try_from(l).ok());
    let runs = field("runs").and_then(Value::as_list);
    let (Some(hash), Some(len), Some(runs)) = (hash, len, runs) else {
        return written;
    };
    // The output may grow only by the bytes the patch itself carries (so a small hostile
    // patch cannot ask for a large allocation), and never past `limit`.
    let carried: usize = runs
        .iter()
        .filter_map(|r| r.as_list()?.get(1)?.as_str().map(str::len))
        .sum();
    let most = written.len().saturating_add(carried).min(limit);
    if hash != fnv_hex(&written) || len > most {
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
}

/// Merges the first mesh's primitives (id models have one mesh; other meshes are left
/// out). `None` when the scene has no triangles.
pub fn merge(scene: &Scene) -> Option<Merged> {
    let mesh = scene.meshes.first()?;
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
    };
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
        for k in 0..n {
            m.normals.push(
                p.normals
                    .get(k)
                    .copied()
                    .map_or([0.0; 3], idmodel_core::vec::finite_or_zero),
            );
            m.uvs.push(
                p.uvs
                    .get(k)
                    .copied()
                    .map_or([0.0; 2], idmodel_core::vec::finite_or_zero),
            );
        }
        for (t, out) in m.targets.iter_mut().enumerate() {
            let target = p.targets.get(t);
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
/// 1-based key number), as `(clip name, frames)`; without such animations the base
/// pose and one frame per morph target (named after the target, else `frameN`), as one
/// clip named `frame`.
pub fn sample_frames(scene: &Scene, merged: &Merged) -> Vec<(String, Vec<SampledFrame>)> {
    let targets = merged.targets.len();
    let mut clips = Vec::new();
    for anim in &scene.animations {
        let Some(channel) = anim.channels.iter().find(|c| {
            matches!(
                c.values,
                ChannelValues::Weights(_) | ChannelValues::SparseWeights { .. }
            ) && scene.nodes.get(c.node).is_some_and(|n| n.mesh == Some(0))
        }) else {
            continue;
        };
        let keys = channel.times.len();
        let Some(dense) = channel.values.dense(keys) else {
            continue;
        };
        let mut frames = Vec::with_capacity(keys);
        for k in 0..keys {
            let start = k.saturating_mul(targets);
            let weights = dense
                .get(start..start.saturating_add(targets))
                .unwrap_or(&[]);
            let ones: Vec<usize> = weights
                .iter()
                .enumerate()
                .filter(|(_, w)| **w != 0.0)
                .map(|(i, _)| i)
                .collect();
            let named = match ones.as_slice() {
                [t] if weights.get(*t) == Some(&1.0) => merged.target_names.get(*t).cloned(),
                _ => None,
            }
            .filter(|n| !n.is_empty());
            let name =
                named.unwrap_or_else(|| alloc::format!("{}{}", anim.name, k.saturating_add(1)));
            let time = channel.times.get(k).copied().unwrap_or(0.0);
            frames.push(pose(merged, weights, name, time));
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
    clips
}

/// The frames a morph scene shows: the base, then base + each morph target (in target
/// order), the way the MD2 and MDL adapters build them.
pub fn target_frames(merged: &Merged) -> Vec<SampledFrame> {
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

/// The packed vertices of every frame recovered from the scene: file vertex `i` of frame
/// `f` from scene vertex `map[i]` (position `rint((p − translate) / scale)`, normal the
/// nearest table normal), with `quant(f)` the frame's `(scale, translate)`. A file
/// vertex no scene vertex shows gets zeros (the fixes say the rest).
/// `normal`, when given, is every vertex's normal index (a file whose vertices all share
/// one, whose scene normals the adapter smooths instead).
pub fn recover_vertices(
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
        for a in 0..3 {
            if let (Some(l), Some(h), Some(v)) = (lo.get_mut(a), hi.get_mut(a), p.get(a)) {
                *l = l.min(*v);
                *h = h.max(*v);
            }
        }
    }
    if any { (lo, hi) } else { ([0.0; 3], [0.0; 3]) }
}

/// `(v − translate) / scale` rounded to the nearest integer and clamped to 0..=255, as
/// qdata does (`Q_rint`, then the clamp "so rounding doesn't wrap").
pub fn quantise(v: f32, translate: f32, scale: f32) -> u8 {
    if scale.is_nan() || scale <= 0.0 {
        return 0;
    }
    let q = libm::rintf((v - translate) / scale).clamp(0.0, 255.0);
    // A whole number in 0..=255 after the clamp; `as` saturates and turns NaN into 0.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let b = q as u8;
    b
}

/// The index of the table normal nearest to `n` (largest dot product; the first on a
/// tie), as id's tools pick it.
pub fn nearest_normal(n: [f32; 3]) -> u8 {
    idmodel_core::anorms::nearest_anorm(n)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for n in 0..40 {
            let s = base64_encode(&data[..n]);
            assert_eq!(s.len() % 4, 0);
            assert_eq!(base64_decode(&s).unwrap(), &data[..n]);
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
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
