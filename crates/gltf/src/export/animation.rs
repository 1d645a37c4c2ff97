//! One animation as glTF: its channels checked and converted (node transforms, morph
//! weights dense or sparse, camera fields through `KHR_animation_pointer`) and sampled.

use alloc::vec;
use alloc::vec::Vec;

use super::Result;
use super::buffers::{Buffers, finite};
use super::hierarchy::unit_quat;
use crate::error::invalid;
use crate::json::Json;
use crate::{ExportError, ExportOptions};
use idmodel_scene::{Animation, ChannelValues, Interpolation, Scene};

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
pub(super) fn animation(
    buf: &mut Buffers,
    out: &mut Json,
    time_cache: &mut Vec<(Vec<u32>, usize)>,
    scene: &Scene,
    anim: &Animation,
    ai: usize,
    options: &ExportOptions,
    mesh_map: &[Option<usize>],
    (mesh_targets, mesh_lead): (&[usize], &[bool]),
    holders: &[Option<usize>],
) -> Result<bool> {
    let axes = options.axes;
    let mut channels = Json::new();
    let mut samplers = Json::new();
    let mut sampler_count = 0usize;
    let mut uses_pointer = false;
    let mut seen: Vec<(usize, &'static str)> = Vec::new();
    for (ci, ch) in anim.channels.iter().enumerate() {
        let what = alloc::format!("animation {ai} ({:?}) channel {ci}", anim.name);
        let node = scene
            .nodes
            .get(ch.node)
            .ok_or_else(|| invalid!("{what}: node {} out of range", ch.node))?;
        if ch.times.is_empty() {
            return Err(invalid!("{what}: no keyframes"));
        }
        let mut prev = -1.0f32;
        for (k, &t) in ch.times.iter().enumerate() {
            if !(t.is_finite() && t >= 0.0 && t > prev) {
                return Err(invalid!(
                    "{what}: key {k} time {t} is not finite, non-negative and increasing"
                ));
            }
            prev = t;
        }
        let keys = ch.times.len();
        let mut pointer = None;
        let (path, values) = match &ch.values {
            ChannelValues::CameraYfov { camera, yfov } => {
                if *camera >= scene.cameras.len() {
                    return Err(invalid!("{what}: camera {camera} out of range"));
                }
                if node.camera != Some(*camera) {
                    return Err(invalid!(
                        "{what}: node {} does not hold camera {camera}",
                        ch.node
                    ));
                }
                if let Some((k, v)) = yfov
                    .iter()
                    .enumerate()
                    .find(|(_, v)| !(v.is_finite() && **v > 0.0))
                {
                    return Err(invalid!("{what}: key {k} yfov {v} is not finite and > 0"));
                }
                if yfov.len() != keys {
                    return Err(invalid!("{what}: {} values for {keys} keys", yfov.len()));
                }
                pointer = Some(alloc::format!("/cameras/{camera}/perspective/yfov"));
                ("yfov", Vals::V1(yfov.iter().map(|&v| [v]).collect()))
            }
            ChannelValues::Translation(v) => {
                finite(v, &what)?;
                (
                    "translation",
                    Vals::V3(v.iter().map(|&x| axes.point(x)).collect()),
                )
            }
            ChannelValues::Scale(v) => {
                finite(v, &what)?;
                (
                    "scale",
                    Vals::V3(v.iter().map(|&x| axes.scale(x)).collect()),
                )
            }
            ChannelValues::Rotation(v) => {
                finite(v, &what)?;
                (
                    "rotation",
                    Vals::V4(v.iter().map(|&q| axes.quat(unit_quat(q))).collect()),
                )
            }
            ChannelValues::Weights(_) | ChannelValues::SparseWeights { .. } => {
                let mesh = node
                    .mesh
                    .and_then(|m| mesh_map.get(m).copied().flatten().map(|_| m));
                let Some(mesh) = mesh else {
                    // The mesh had nothing to draw and was left out: so is its animation.
                    if node.mesh.is_some() {
                        continue;
                    }
                    return Err(invalid!(
                        "{what}: weights on node {} which has no mesh",
                        ch.node
                    ));
                };
                let t = mesh_targets.get(mesh).copied().unwrap_or(0);
                if t == 0 {
                    return Err(invalid!("{what}: weights on a mesh without morph targets"));
                }
                let lead = mesh_lead.get(mesh).copied().unwrap_or(false);
                (
                    "weights",
                    weights(&ch.values, keys, (t, lead), options, &what)?,
                )
            }
        };
        let count = match &values {
            Vals::V1(w) => w
                .len()
                .checked_div(keys.max(1))
                .unwrap_or(0)
                .saturating_mul(keys),
            Vals::V3(v) => v.len(),
            Vals::V4(v) => v.len(),
            Vals::Sparse { count, .. } => *count,
        };
        let expected = match &values {
            Vals::V1(w) => w.len(),
            Vals::Sparse { count, .. } => *count,
            _ => keys,
        };
        if count != expected {
            return Err(invalid!("{what}: {count} values for {keys} keys"));
        }
        if seen.contains(&(ch.node, path)) {
            return Err(invalid!(
                "{what}: node {} {path} is animated twice",
                ch.node
            ));
        }
        seen.push((ch.node, path));

        let bits: Vec<u32> = ch.times.iter().map(|t| t.to_bits()).collect();
        let input = match time_cache.iter().find(|(b, _)| *b == bits) {
            Some(&(_, a)) => a,
            None => {
                let t: Vec<[f32; 1]> = ch.times.iter().map(|&x| [x]).collect();
                let a = buf.floats(&t, None, true)?;
                time_cache.push((bits, a));
                a
            }
        };
        let output = match &values {
            Vals::V1(w) => buf.floats(w, None, false)?,
            Vals::V3(v) => buf.floats(v, None, false)?,
            Vals::V4(v) => buf.floats(v, None, false)?,
            Vals::Sparse {
                count,
                indices,
                values,
            } => buf.sparse_scalars(*count, indices, values)?,
        };
        let interpolation = match ch.interpolation {
            Interpolation::Linear => "LINEAR",
            Interpolation::Step => "STEP",
        };
        samplers.sep();
        samplers.raw(b"{");
        samplers.key_usize("input", input);
        samplers.key_str("interpolation", interpolation);
        samplers.key_usize("output", output);
        samplers.raw(b"}");
        sampler_count = sampler_count.saturating_add(1);
        channels.sep();
        channels.raw(b"{");
        channels.key_usize("sampler", sampler_count.saturating_sub(1));
        channels.key("target");
        channels.raw(b"{");
        // KHR_animation_pointer: the target is the pointer, with no node.
        match pointer {
            Some(p) => {
                channels.raw(b"\"extensions\":{\"KHR_animation_pointer\":{");
                channels.key_str("pointer", &p);
                channels.raw(b"}},\"path\":\"pointer\"");
                uses_pointer = true;
            }
            None => {
                // Weights go to the node that draws the mesh: a dequantizing child
                // when the mesh is quantized.
                let target = match (path, holders.get(ch.node).copied().flatten()) {
                    ("weights", Some(h)) => h,
                    _ => ch.node,
                };
                channels.key_usize("node", target);
                channels.key_str("path", path);
            }
        }
        channels.raw(b"}}");
    }
    if channels.out.is_empty() {
        return Ok(false);
    }
    out.sep();
    out.raw(b"{\"channels\":[");
    out.raw(&channels.out);
    out.raw(b"]");
    out.key_str("name", &anim.name);
    out.key("samplers");
    out.raw(b"[");
    out.raw(&samplers.out);
    out.raw(b"]}");
    Ok(uses_pointer)
}

/// A row of morph weights with frame 0 as the first target (a mesh whose glTF form leads with frame 0): frame 0's
/// weight first, the rest of the sum to 1 (a base shown whole is frame 0 at weight 1).
pub(super) fn with_frame0(row: &[f32]) -> Vec<f32> {
    let rest: f32 = row.iter().sum();
    core::iter::once(1.0 - rest)
        .chain(row.iter().copied())
        .collect()
}

/// Converted channel values.
enum Vals {
    V1(Vec<[f32; 1]>),
    V3(Vec<[f32; 3]>),
    V4(Vec<[f32; 4]>),
    /// `count` scalars, all 0 but `values` at `indices`.
    Sparse {
        count: usize,
        indices: Vec<u32>,
        values: Vec<f32>,
    },
}

/// The weights of a channel of `keys` keys on a mesh of `targets` targets, checked:
/// dense ones as they are, sparse ones as a sparse accessor (or expanded, within the
/// budget, with [`ExportOptions::dense_weights`]). With `lead` the glTF mesh has frame 0
/// as an extra first target, whose weight at each key is what the others leave of 1.
fn weights(
    v: &ChannelValues,
    keys: usize,
    (targets, lead): (usize, bool),
    options: &ExportOptions,
    what: &str,
) -> Result<Vals> {
    let total = keys.checked_mul(targets);
    let nonzero = match v {
        ChannelValues::Weights(v) => {
            if Some(v.len()) != total {
                return Err(invalid!(
                    "{what}: {} weights for {keys} keys × {targets} targets",
                    v.len()
                ));
            }
            let w: Vec<[f32; 1]> = if lead {
                v.chunks_exact(targets.max(1))
                    .flat_map(with_frame0)
                    .map(|x| [x])
                    .collect()
            } else {
                v.iter().map(|&x| [x]).collect()
            };
            finite(&w, &what)?;
            return Ok(Vals::V1(w));
        }
        ChannelValues::SparseWeights {
            targets: n,
            nonzero,
        } => {
            if *n != targets {
                return Err(invalid!(
                    "{what}: sparse weights of {n} targets on a mesh of {targets}"
                ));
            }
            nonzero
        }
        _ => return Err(invalid!("{what}: not weights")),
    };
    // The glTF's targets per key: one more with `lead`.
    let stride = targets.saturating_add(usize::from(lead));
    let total = keys
        .checked_mul(stride)
        .filter(|&n| u32::try_from(n).is_ok())
        .ok_or(ExportError::TooLarge("a morph weight accessor"))?;
    let mut indices = Vec::with_capacity(nonzero.len());
    let mut values = Vec::with_capacity(nonzero.len());
    for (e, &(k, t, w)) in nonzero.iter().enumerate() {
        if k >= keys || t >= targets {
            return Err(invalid!(
                "{what}: sparse weight {e} at key {k} target {t}, outside {keys} keys × {targets} targets"
            ));
        }
        if !w.is_finite() {
            return Err(invalid!("{what}: non-finite sparse weight {e}: {w}"));
        }
        let i = k
            .checked_mul(stride)
            .and_then(|i| i.checked_add(t))
            .and_then(|i| i.checked_add(usize::from(lead)))
            .and_then(|i| u32::try_from(i).ok())
            .ok_or(ExportError::TooLarge("a morph weight accessor"))?;
        if indices.last().is_some_and(|&last| last >= i) {
            return Err(invalid!(
                "{what}: sparse weight {e} (key {k} target {t}) is not in increasing order"
            ));
        }
        indices.push(i);
        values.push(w);
    }
    if lead {
        // Each key's frame-0 weight (what its others leave of 1) before its others.
        let mut li = Vec::with_capacity(indices.len().saturating_add(keys));
        let mut lv = Vec::with_capacity(li.capacity());
        let mut at = 0usize;
        for k in 0..keys {
            let start = k.saturating_mul(stride);
            let end = start.saturating_add(stride);
            let first = at;
            while indices
                .get(at)
                .and_then(|&i| usize::try_from(i).ok())
                .is_some_and(|i| i < end)
            {
                at = at.saturating_add(1);
            }
            let row = values.get(first..at).unwrap_or(&[]);
            let w0 = 1.0 - row.iter().sum::<f32>();
            if !w0.is_finite() {
                return Err(invalid!("{what}: the weights of key {k} sum past a float"));
            }
            if w0 != 0.0 {
                li.push(u32::try_from(start).unwrap_or(u32::MAX));
                lv.push(w0);
            }
            li.extend_from_slice(indices.get(first..at).unwrap_or(&[]));
            lv.extend_from_slice(row);
        }
        indices = li;
        values = lv;
    }
    if options.dense_weights {
        let need = u64::try_from(total).unwrap_or(u64::MAX).saturating_mul(4);
        let limit = options
            .max_bytes
            .unwrap_or(idmodel_scene::DEFAULT_MAX_BYTES);
        if need > limit {
            return Err(ExportError::OverBudget {
                what: alloc::format!("the dense morph weights of {what}"),
                need,
                limit,
            });
        }
        let mut w = vec![[0.0f32]; total];
        for (&i, &x) in indices.iter().zip(&values) {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| w.get_mut(i)) {
                *slot = [x];
            }
        }
        return Ok(Vals::V1(w));
    }
    Ok(Vals::Sparse {
        count: total,
        indices,
        values,
    })
}
