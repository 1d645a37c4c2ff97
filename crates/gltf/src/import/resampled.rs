//! Morph animations another tool **resampled** (Blender's glTF exporter samples every
//! animation at its scene's frame rate, 24 fps by default) back to one key per frame.
//!
//! idmodel's morph adapters (MDL, MD2, MD3) key one target at weight 1 per frame; a
//! sampler in between turns that into keys at its own rate whose weights blend two
//! neighbouring frames (`0.45 × frame 94 + 0.55 × frame 95`), and samples the tags' node
//! animation on the same grid. [`restore`] recognises such a channel and gives back the
//! animation the frames say:
//!
//! - **Recognised**: a weights channel every key of which shows frame position
//!   `P = i + w` (frame 0 the base, frame `k` target `k − 1`): no weight, one target at
//!   weight 1, or two neighbouring targets (or the base and the first target) whose
//!   weights sum to 1; `P` never decreasing; at least one key between two frames; the
//!   first key on a whole frame, and the last one too unless the keys are evenly spaced
//!   and `P` advances by the same step at each (a sampler at its own rate, such as
//!   Blender's on whole scene frames, ends on its last sample before the clip's end; a
//!   clip whose author keyed it to end on a blend is neither). Any
//!   other weights (a blend of far targets, weights summing to more than 1, negative
//!   ones) is an animation of its own and is left alone.
//! - **Restored**: one key per frame from `floor(P)` of the first key to `ceil(P)` of the
//!   last, each showing its frame alone (weight 1), at the time `P` reaches it (linear
//!   between the sampler's keys, which is exact for a clip at a constant rate). The other
//!   channels of the animation are given keys at the same times: a channel of one key
//!   stays constant, a step channel is read at each time, and a linear one is solved for
//!   the values at the frames whose linear interpolation gives the sampler's keys
//!   (least squares over the tridiagonal system, exact when the original keys were the
//!   frames, as idmodel writes them; rotations are renormalised, as the sampler
//!   normalised its lerps).
//! - **Order**: when every animation of the scene was restored, they are sorted by the
//!   first frame they show (samplers such as Blender's write them sorted by name), so the
//!   formats' frames come back in the file's order.
//!
//! The work is linear in the channel's keys (sparse weights are read without expanding
//! them) plus the frames restored, which are at most the mesh's targets + 1.

use alloc::collections::BTreeSet;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_scene::md3::tag_frames_trs;
use idmodel_scene::{
    Animation, Channel, ChannelValues, Interpolation, Scene, TAG_FRAMES_PREFIX, editor_name,
    is_tag_frames,
};

use super::doc::narrow;

/// Weights within this of 0, 1 or a sum of 1 count as exact (the sampler writes f32).
const EPS: f32 = 1e-4;

/// A frame index as f32.
fn fl(k: usize) -> f32 {
    narrow(f64::from(u32::try_from(k).unwrap_or(u32::MAX)))
}

/// The frame position `(i, α)` (`P = i + α`, `0 ≤ α < 1`) of each key of a weights
/// channel, or `None` when a key is not a blend of two neighbouring frames.
fn phases(values: &ChannelValues, keys: usize) -> Option<Vec<(usize, f32)>> {
    let mut rows: Vec<Vec<(usize, f32)>> = vec![Vec::new(); keys];
    let put = |row: &mut Vec<(usize, f32)>, t: usize, x: f32| {
        if x == 0.0 {
            return Some(());
        }
        if row.len() >= 2 {
            return None;
        }
        row.push((t, x));
        Some(())
    };
    match values {
        ChannelValues::Weights(w) => {
            let targets = w.len().checked_div(keys)?;
            if targets == 0 || targets.checked_mul(keys)? != w.len() {
                return None;
            }
            for (row, ws) in rows.iter_mut().zip(w.chunks_exact(targets)) {
                for (t, &x) in ws.iter().enumerate() {
                    put(row, t, x)?;
                }
            }
        }
        ChannelValues::SparseWeights { nonzero, .. } => {
            for &(k, t, x) in nonzero {
                put(rows.get_mut(k)?, t, x)?;
            }
        }
        _ => return None,
    }
    let whole = |i: usize, alpha: f32| {
        if alpha >= 1.0 - EPS {
            Some((i.checked_add(1)?, 0.0))
        } else if alpha <= EPS {
            Some((i, 0.0))
        } else {
            Some((i, alpha))
        }
    };
    rows.iter()
        .map(|row| match *row.as_slice() {
            [] => Some((0, 0.0)),
            [(t, w)] if (w - 1.0).abs() <= EPS => Some((t.checked_add(1)?, 0.0)),
            [(0, w)] if w > 0.0 && w < 1.0 => whole(0, w),
            [(a, wa), (b, wb)]
                if Some(b) == a.checked_add(1)
                    && wa > 0.0
                    && wb > 0.0
                    && (wa + wb - 1.0).abs() <= EPS =>
            {
                whole(b, wb)
            }
            _ => None,
        })
        .collect()
}

/// `x` linearly interpolated over `(xs, ys)` (extrapolated from the end pairs).
fn interp(xs: &[f32], ys: &[f32], x: f32) -> Option<f32> {
    let i = xs
        .iter()
        .position(|&v| v >= x)
        .unwrap_or(xs.len().saturating_sub(1));
    let i = i.clamp(1, xs.len().saturating_sub(1).max(1));
    let (x0, x1) = (*xs.get(i.saturating_sub(1))?, *xs.get(i)?);
    let (y0, y1) = (*ys.get(i.saturating_sub(1))?, *ys.get(i)?);
    if x1 <= x0 {
        return Some(y0);
    }
    Some(y0 + (x - x0) / (x1 - x0) * (y1 - y0))
}

/// The time the frame position `f` is reached: between the keys around it, or, when the
/// key reaching it is on a frame and may be the sampler holding the clip's last frame
/// after its end, at the rate of the two keys before.
fn time_of(pf: &[f32], times: &[f32], f: f32) -> Option<f32> {
    let Some(i) = pf.iter().position(|&v| v >= f - EPS) else {
        // Past the last key: at the rate of the last two.
        return interp(pf, times, f);
    };
    let on_frame = pf
        .get(i)
        .is_some_and(|&v| (v - libm::roundf(v)).abs() <= EPS);
    if let (true, Some(j)) = (on_frame, i.checked_sub(2)) {
        let (p0, p1) = (*pf.get(j)?, *pf.get(j.saturating_add(1))?);
        let (t0, t1) = (*times.get(j)?, *times.get(j.saturating_add(1))?);
        if p1 > p0 && p1 < f - EPS {
            return Some(t1 + (f - p1) / (p1 - p0) * (t1 - t0));
        }
    }
    interp(pf, times, f)
}

/// The values at `n` frames whose linear interpolation gives the keys `(frame, α,
/// value)` (frame counted from the first): least squares, with a faint smoothness term so
/// that a frame no key reaches takes its neighbours' values.
fn solve<const N: usize>(keys: &[(usize, f32, [f32; N])], n: usize) -> Option<Vec<[f32; N]>> {
    let mut d = vec![0.0f64; n];
    let mut e = vec![0.0f64; n.saturating_sub(1)];
    let mut b = vec![[0.0f64; N]; n];
    for &(a, alpha, v) in keys {
        let (a, alpha) = if a >= n.saturating_sub(1) {
            (n.saturating_sub(1), 0.0)
        } else {
            (a, f64::from(alpha))
        };
        let w = [1.0 - alpha, alpha];
        for (j, wj) in w.iter().enumerate() {
            let k = a.saturating_add(j);
            if let Some(row) = b.get_mut(k) {
                for (r, &c) in row.iter_mut().zip(&v) {
                    *r += wj * f64::from(c);
                }
            }
            if let Some(dd) = d.get_mut(k) {
                *dd += wj * wj;
            }
        }
        if let Some(ee) = e.get_mut(a) {
            *ee += w[0] * w[1];
        }
    }
    const LAMBDA: f64 = 1e-4;
    for k in 0..e.len() {
        if let Some(x) = e.get_mut(k) {
            *x -= LAMBDA;
        }
        for j in [k, k.saturating_add(1)] {
            if let Some(x) = d.get_mut(j) {
                *x += LAMBDA;
            }
        }
    }
    if let Some(x) = d.first_mut() {
        *x += LAMBDA;
    }
    // Thomas algorithm (the matrix is symmetric positive definite).
    let mut c = vec![0.0f64; n];
    for k in 0..n {
        let (lower, c_prev, prev) = match k.checked_sub(1) {
            Some(j) => (*e.get(j)?, *c.get(j)?, *b.get(j)?),
            None => (0.0, 0.0, [0.0; N]),
        };
        let denom = *d.get(k)? - lower * c_prev;
        if denom.abs() < 1e-300 {
            return None;
        }
        *c.get_mut(k)? = e.get(k).copied().unwrap_or(0.0) / denom;
        for (r, p) in b.get_mut(k)?.iter_mut().zip(prev) {
            *r = (*r - lower * p) / denom;
        }
    }
    for k in (0..n.saturating_sub(1)).rev() {
        let next = *b.get(k.saturating_add(1))?;
        let ck = *c.get(k)?;
        for (r, x) in b.get_mut(k)?.iter_mut().zip(next) {
            *r -= ck * x;
        }
    }
    let out: Vec<[f32; N]> = b.into_iter().map(|row| row.map(narrow)).collect();
    out.iter().flatten().all(|x| x.is_finite()).then_some(out)
}

fn normalised(q: [f32; 4]) -> [f32; 4] {
    let len = libm::sqrtf(q.iter().map(|x| x * x).sum());
    if len.is_finite() && len > 0.0 {
        q.map(|x| x / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// A time's frame position `(frame from the first restored, α)`.
type PhaseOf<'p> = &'p dyn Fn(f32) -> Option<(usize, f32)>;

/// One channel given keys at `times` (one per restored frame).
fn rekey(ch: &Channel, times: &[f32], phase_of: PhaseOf<'_>) -> Option<ChannelValues> {
    fn resample<const N: usize>(
        ch: &Channel,
        vals: &[[f32; N]],
        times: &[f32],
        phase_of: PhaseOf<'_>,
    ) -> Option<Vec<[f32; N]>> {
        if vals.len() != ch.times.len() || vals.is_empty() {
            return None;
        }
        if vals.len() == 1 || ch.interpolation == Interpolation::Step {
            return times
                .iter()
                .map(|&t| {
                    let k = ch.times.iter().rposition(|&x| x <= t + 1e-6).unwrap_or(0);
                    vals.get(k).copied()
                })
                .collect();
        }
        let keys: Vec<(usize, f32, [f32; N])> = ch
            .times
            .iter()
            .zip(vals)
            .map(|(&t, &v)| phase_of(t).map(|(a, alpha)| (a, alpha, v)))
            .collect::<Option<_>>()?;
        solve(&keys, times.len())
    }
    Some(match &ch.values {
        ChannelValues::Translation(v) => {
            ChannelValues::Translation(resample(ch, v, times, phase_of)?)
        }
        ChannelValues::Scale(v) => ChannelValues::Scale(resample(ch, v, times, phase_of)?),
        ChannelValues::Rotation(v) => {
            // One hemisphere, as the sampler's lerps were.
            let mut aligned: Vec<[f32; 4]> = Vec::with_capacity(v.len());
            for &q in v {
                let flip = aligned
                    .last()
                    .is_some_and(|p| p.iter().zip(&q).map(|(a, b)| a * b).sum::<f32>() < 0.0);
                aligned.push(if flip { q.map(|x| -x) } else { q });
            }
            let solved = resample(ch, &aligned, times, phase_of)?;
            ChannelValues::Rotation(solved.into_iter().map(normalised).collect())
        }
        _ => return None,
    })
}

/// Whether a sampler at a constant rate made these keys from a clip at a constant rate:
/// the key times evenly spaced and the frame position `P` advancing by the same step at
/// every key (to f32's precision), over at least three keys.
fn sampled_evenly(times: &[f32], pf: &[f32]) -> bool {
    let steps = |v: &[f32]| -> Vec<f32> {
        v.windows(2)
            .filter_map(|x| match *x {
                [a, b] => Some(b - a),
                _ => None,
            })
            .collect()
    };
    let even = |d: &[f32], tolerance: f32| {
        d.first().is_some_and(|&d0| {
            d0 > 0.0
                && d.iter()
                    .all(|&x| libm::fabsf(x - d0) <= tolerance * d0.max(1.0))
        })
    };
    times.len() >= 3
        && times.len() == pf.len()
        && even(&steps(times), 1e-4)
        && even(&steps(pf), 1e-3)
}

/// A node's exact transform per frame, from an MD3 tag-frames node.
type Trs = ([f32; 3], [f32; 4], [f32; 3]);

/// At most this many tag-frames nodes are read per scene (an MD3 has at most 16 tags, a
/// player three parts).
const MAX_TAG_FRAMES: usize = 64;

/// Whether every key of the tag channels `raw` (of node `node`) is what a sampler makes of
/// the frames `exact` (frame `first + k` at restored key `k`): the lerp of the two frames
/// its time falls between (the normalised lerp for rotations). `None` when no key was
/// checked.
fn tag_keys_agree(
    raw: &[Channel],
    node: usize,
    exact: &[Trs],
    first: usize,
    phase_of: PhaseOf<'_>,
) -> Option<bool> {
    let lerp = |a: &[f32], b: &[f32], t: f32| -> Vec<f32> {
        a.iter().zip(b).map(|(x, y)| x + (y - x) * t).collect()
    };
    let close = |p: &[f32], q: &[f32]| {
        p.iter()
            .zip(q)
            .all(|(x, y)| libm::fabsf(x - y) <= 1e-3 + 1e-5 * libm::fabsf(*y))
    };
    let mut checked = 0usize;
    for ch in raw.iter().filter(|c| c.node == node) {
        for (k, &t) in ch.times.iter().enumerate() {
            let (i, alpha) = phase_of(t)?;
            let fa = first.checked_add(i)?;
            let a = exact.get(fa)?;
            let b = exact.get(fa.saturating_add(1)).unwrap_or(a);
            let ok = match &ch.values {
                ChannelValues::Translation(v) => close(v.get(k)?, &lerp(&a.0, &b.0, alpha)),
                ChannelValues::Scale(v) => close(v.get(k)?, &lerp(&a.2, &b.2, alpha)),
                ChannelValues::Rotation(v) => {
                    let p = normalised(<[f32; 4]>::try_from(lerp(&a.1, &b.1, alpha)).ok()?);
                    let q = normalised(*v.get(k)?);
                    let dot: f32 = p.iter().zip(&q).map(|(x, y)| x * y).sum();
                    libm::fabsf(dot) >= 1.0 - 1e-5
                }
                _ => continue,
            };
            if !ok {
                return Some(false);
            }
            checked = checked.saturating_add(1);
        }
    }
    (checked > 0).then_some(true)
}

/// Restores one animation in place; the first frame it shows, when it was restored.
/// Tag nodes with exact frames (`tags`) whose keys a sampler made of those frames get
/// them back exactly; those whose keys say otherwise (an edit) are added to `edited`.
fn restore_animation(
    a: &mut Animation,
    targets_of: &dyn Fn(usize) -> usize,
    tags: &[(usize, Vec<Trs>)],
    edited: &mut Vec<usize>,
) -> Option<usize> {
    let wi = a.channels.iter().position(|c| c.values.is_weights())?;
    let w = a.channels.get(wi)?;
    let targets = targets_of(w.node);
    let p = phases(&w.values, w.times.len())?;
    let later = |x: (usize, f32), y: (usize, f32)| y.0 > x.0 || (y.0 == x.0 && y.1 >= x.1 - EPS);
    if p.windows(2).any(|x| matches!(*x, [a, b] if !later(a, b))) || p.iter().all(|x| x.1 == 0.0) {
        return None;
    }
    // A sampler starts a clip on its first frame, and ends it on its last frame or, when
    // it samples on a grid of its own (Blender: whole scene frames), on its last sample
    // before it; a clip that starts between two frames, or ends between two frames
    // without a sampler's even steps, was keyed so (a blend its author chose): left alone.
    let whole = |a: f32| a <= EPS || a >= 1.0 - EPS;
    let pf: Vec<f32> = p.iter().map(|&(i, a)| fl(i) + a).collect();
    if !p.first().is_some_and(|x| whole(x.1))
        || !(p.last().is_some_and(|x| whole(x.1)) || sampled_evenly(&w.times, &pf))
    {
        return None;
    }
    let first = p.first()?.0;
    let &(li, la) = p.last()?;
    let last = if la > 0.0 { li.checked_add(1)? } else { li };
    if last > targets {
        return None;
    }
    let n = last.checked_sub(first)?.checked_add(1)?;
    let times: Vec<f32> = (first..=last)
        .map(|f| time_of(&pf, &w.times, fl(f)).map(|t| t.max(0.0)))
        .collect::<Option<_>>()?;
    if times.len() != n
        || times.windows(2).any(|x| matches!(*x, [a, b] if b <= a))
        || times.iter().any(|t| !t.is_finite())
    {
        return None;
    }
    let wt = w.times.clone();
    let phase_of = move |t: f32| {
        let x = interp(&wt, &pf, t)? - fl(first);
        let x = x.max(0.0);
        let i = libm::floorf(x);
        // `i` is a small whole number: at most the targets.
        let k = (0..n).find(|&k| fl(k) >= i)?;
        Some((k, x - fl(k)))
    };
    // Other weights channels (a Quake III player's clip moves lower and upper) are
    // restored alike when they show the same frames at the same keys.
    let is_weights = |c: &Channel| c.values.is_weights();
    for (cj, c) in a.channels.iter().enumerate() {
        if cj == wi || !is_weights(c) {
            continue;
        }
        let q = phases(&c.values, c.times.len())?;
        let same = q.len() == p.len()
            && c.times.len() == w.times.len()
            && q.iter()
                .zip(&p)
                .all(|(x, y)| libm::fabsf(fl(x.0) + x.1 - fl(y.0) - y.1) <= EPS);
        if !same || last > targets_of(c.node) {
            return None;
        }
    }
    let mut channels = Vec::with_capacity(a.channels.len());
    for (ci, ch) in a.channels.iter().enumerate() {
        let values = if is_weights(ch) {
            ChannelValues::SparseWeights {
                targets: if ci == wi {
                    targets
                } else {
                    targets_of(ch.node)
                },
                nonzero: (first..=last)
                    .enumerate()
                    .filter_map(|(k, f)| Some((k, f.checked_sub(1)?, 1.0)))
                    .collect(),
            }
        } else {
            rekey(ch, &times, &phase_of)?
        };
        channels.push(Channel {
            node: ch.node,
            times: times.clone(),
            interpolation: if is_weights(ch) {
                Interpolation::Linear
            } else {
                ch.interpolation
            },
            values,
        });
    }
    // Tags whose exact frames the sampled keys agree with take those frames.
    for (node, exact) in tags {
        match tag_keys_agree(&a.channels, *node, exact, first, &phase_of) {
            Some(true) => {
                let at = |k: usize| exact.get(first.saturating_add(k));
                for ch in channels.iter_mut().filter(|c| c.node == *node) {
                    let keys = ch.times.len();
                    let pick = |f: fn(&Trs) -> [f32; 4]| -> Option<Vec<[f32; 4]>> {
                        (0..keys).map(|k| at(k).map(f)).collect()
                    };
                    match &mut ch.values {
                        ChannelValues::Translation(v) => {
                            if let Some(x) = pick(|t| [t.0[0], t.0[1], t.0[2], 0.0]) {
                                *v = x.into_iter().map(|p| [p[0], p[1], p[2]]).collect();
                            }
                        }
                        ChannelValues::Scale(v) => {
                            if let Some(x) = pick(|t| [t.2[0], t.2[1], t.2[2], 0.0]) {
                                *v = x.into_iter().map(|p| [p[0], p[1], p[2]]).collect();
                            }
                        }
                        ChannelValues::Rotation(v) => {
                            if let Some(x) = pick(|t| t.1) {
                                *v = x;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(false) => edited.push(*node),
            None => {}
        }
    }
    a.channels = channels;
    Some(first)
}

/// Restores every resampled morph animation of `scene` (see the module docs).
pub(crate) fn restore(scene: &mut Scene) {
    let targets_of = |node: usize| {
        scene
            .nodes
            .get(node)
            .and_then(|n| n.mesh)
            .and_then(|m| scene.meshes.get(m))
            .and_then(|m| m.primitives.first())
            .map_or(0, |p| p.targets.len())
    };
    let counts: Vec<usize> = (0..scene.nodes.len()).map(targets_of).collect();
    let of = |node: usize| counts.get(node).copied().unwrap_or(0);
    // Tag nodes with exact frames (MD3 tag-frames nodes, `idmodel_scene::md3`).
    let tags: Vec<(usize, usize, Vec<Trs>)> = if scene.nodes.iter().any(is_tag_frames) {
        let names: BTreeSet<&str> = scene
            .nodes
            .iter()
            .filter(|n| is_tag_frames(n))
            .filter_map(|n| editor_name(&n.name).strip_prefix(TAG_FRAMES_PREFIX))
            .collect();
        (0..scene.nodes.len())
            .filter(|&i| {
                scene.nodes.get(i).is_some_and(|n| {
                    n.mesh.is_none()
                        && !n.name.starts_with(TAG_FRAMES_PREFIX)
                        && names.contains(editor_name(&n.name))
                })
            })
            .take(MAX_TAG_FRAMES)
            .filter_map(|i| tag_frames_trs(scene, i).map(|(h, trs)| (i, h, trs)))
            .collect()
    } else {
        Vec::new()
    };
    let exact: Vec<(usize, Vec<Trs>)> = tags.iter().map(|(i, _, t)| (*i, t.clone())).collect();
    let mut edited = Vec::new();
    let mut restored = false;
    for a in &mut scene.animations {
        let before = a.clone();
        let mut e = Vec::new();
        if restore_animation(a, &of, &exact, &mut e).is_some() {
            restored = true;
            edited.extend(e);
        } else {
            *a = before;
        }
    }
    // An edited tag's frames no longer say what it does: detach them, so that the way
    // back follows the animation.
    for (node, helper, _) in &tags {
        if edited.contains(node)
            && let Some(h) = scene.nodes.get_mut(*helper)
        {
            h.mesh = None;
        }
    }
    // The first frame each animation shows (its weights' first key).
    let firsts: Vec<Option<usize>> = scene
        .animations
        .iter()
        .map(|a| {
            let w = a.channels.iter().find(|c| c.values.is_weights())?;
            Some(phases(&w.values, w.times.len())?.first()?.0)
        })
        .collect();
    if restored && firsts.iter().all(Option::is_some) {
        let mut order: Vec<(usize, Animation)> = firsts
            .into_iter()
            .flatten()
            .zip(core::mem::take(&mut scene.animations))
            .collect();
        order.sort_by_key(|a| a.0);
        scene.animations = order.into_iter().map(|(_, a)| a).collect();
    }
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions,
    clippy::cast_precision_loss,
    clippy::unwrap_used
)]
#[cfg(test)]
mod tests {
    use super::*;
    use idmodel_scene::{Mesh, MorphTarget, Node, Primitive};

    /// A morph scene of `frames` frames at 10 fps with a tag moving through
    /// `tag(k)`, keyed one frame per key (as idmodel writes it) or sampled at 24 fps
    /// (as Blender writes it).
    fn scene(frames: usize, sampled: bool) -> Scene {
        let targets = frames - 1;
        let tag = |k: f32| [k * k, 2.0 * k, 1.0];
        let p = Primitive {
            positions: vec![[0.0; 3]; 3],
            indices: vec![0, 1, 2],
            targets: vec![
                MorphTarget {
                    positions: vec![[1.0; 3]; 3],
                    normals: Vec::new()
                };
                targets
            ],
            ..Primitive::default()
        };
        let mut node = Node::new("m");
        node.mesh = Some(0);
        let (times, weights, tags): (Vec<f32>, Vec<f32>, Vec<[f32; 3]>) = if sampled {
            let end = (frames - 1) as f32 / 10.0;
            let n = (end * 24.0).ceil() as usize + 1;
            let mut w = vec![0.0; n * targets];
            let mut tg = Vec::new();
            let mut ts = Vec::new();
            for s in 0..n {
                let t = s as f32 / 24.0;
                let pos = (t * 10.0).min((frames - 1) as f32);
                let a = pos.floor() as usize;
                let alpha = pos - a as f32;
                if a >= 1 {
                    w[s * targets + a - 1] = 1.0 - alpha;
                }
                if alpha > 0.0 {
                    w[s * targets + a] = alpha;
                }
                let (x, y) = (tag(a as f32), tag((a + 1) as f32));
                tg.push([0, 1, 2].map(|i| x[i] * (1.0 - alpha) + y[i] * alpha));
                ts.push(t);
            }
            (ts, w, tg)
        } else {
            let mut w = vec![0.0; frames * targets];
            for k in 1..frames {
                w[k * targets + k - 1] = 1.0;
            }
            (
                (0..frames).map(|k| k as f32 / 10.0).collect(),
                w,
                (0..frames).map(|k| tag(k as f32)).collect(),
            )
        };
        Scene {
            meshes: vec![Mesh {
                primitives: vec![p],
                ..Mesh::default()
            }],
            nodes: vec![node, Node::new("tag_x")],
            animations: vec![Animation {
                name: "clip".into(),
                channels: vec![
                    Channel {
                        node: 0,
                        times: times.clone(),
                        interpolation: Interpolation::Linear,
                        values: ChannelValues::Weights(weights),
                    },
                    Channel {
                        node: 1,
                        times,
                        interpolation: Interpolation::Linear,
                        values: ChannelValues::Translation(tags),
                    },
                ],
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn sampled_morph_animation_comes_back_one_key_per_frame() {
        let want = scene(7, false);
        let mut got = scene(7, true);
        restore(&mut got);
        assert_restored(&want, &got, 7, 1e-3);
    }

    /// `got`'s clip has `frames` keys at `want`'s times, the same weights, and the tag
    /// within `tolerance` of `want`'s at every frame.
    fn assert_restored(want: &Scene, got: &Scene, frames: usize, tolerance: f32) {
        let (a, b) = (&want.animations[0], &got.animations[0]);
        assert_eq!(
            b.channels[0].times.len(),
            frames,
            "{:?}",
            b.channels[0].times
        );
        for (t, u) in a.channels[0].times.iter().zip(&b.channels[0].times) {
            assert!((t - u).abs() < 1e-5, "{:?}", b.channels[0].times);
        }
        assert_eq!(
            a.channels[0].values.dense(frames),
            b.channels[0].values.dense(frames)
        );
        let (ChannelValues::Translation(x), ChannelValues::Translation(y)) =
            (&a.channels[1].values, &b.channels[1].values)
        else {
            panic!()
        };
        for (p, q) in x.iter().zip(y) {
            for i in 0..3 {
                assert!((p[i] - q[i]).abs() < tolerance, "{x:?} {y:?}");
            }
        }
    }

    /// As Blender writes it: sampled on whole scene frames up to the last one before the
    /// clip's end, so the last key falls between two frames when the clip's length is not
    /// a whole number of samples (12 frames at 10 fps: 27 samples, the last at frame 10.83).
    fn blender_sampled(frames: usize) -> Scene {
        let mut s = scene(frames, true);
        let keep = ((frames - 1) as f32 / 10.0 * 24.0).floor() as usize + 1;
        for ch in &mut s.animations[0].channels {
            ch.times.truncate(keep);
            match &mut ch.values {
                ChannelValues::Weights(w) => w.truncate(keep * (frames - 1)),
                ChannelValues::Translation(t) => t.truncate(keep),
                _ => {}
            }
        }
        s
    }

    /// `scene`, with a second morph node keyed alike (a Quake III player's clip moving
    /// lower and upper).
    fn two_parts(frames: usize, sampled: bool) -> Scene {
        let mut s = scene(frames, sampled);
        let mut upper = Node::new("upper");
        upper.mesh = Some(0);
        s.nodes.push(upper);
        let w = s.animations[0].channels[0].clone();
        s.animations[0].channels.push(Channel { node: 2, ..w });
        s
    }

    #[test]
    fn two_morph_nodes_keyed_alike_come_back_together() {
        let want = two_parts(7, false);
        let mut got = two_parts(7, true);
        restore(&mut got);
        assert_restored(&want, &got, 7, 1e-3);
        let (a, b) = (
            &got.animations[0].channels[0],
            &got.animations[0].channels[2],
        );
        assert_eq!(b.node, 2);
        assert_eq!(a.times, b.times);
        assert_eq!(a.values.dense(7), b.values.dense(7));
        // Keyed differently (the second node shows other frames): left alone.
        let mut other = two_parts(7, true);
        if let ChannelValues::Weights(w) = &mut other.animations[0].channels[2].values {
            w.iter_mut().for_each(|x| *x = 0.0);
            w[6 * 3 + 5] = 1.0;
        }
        let before = other.clone();
        restore(&mut other);
        assert_eq!(other, before);
    }

    #[test]
    fn a_sampling_that_stops_short_of_the_last_frame_comes_back_whole() {
        let want = scene(12, false);
        let mut got = blender_sampled(12);
        assert_eq!(got.animations[0].channels[0].times.len(), 27);
        restore(&mut got);
        assert_restored(&want, &got, 12, 1e-2);
    }

    #[test]
    fn one_key_per_frame_and_other_blends_are_left_alone() {
        let want = scene(5, false);
        let mut got = want.clone();
        restore(&mut got);
        assert_eq!(got, want);
        // Far targets blended: an animation of its own.
        let mut s = scene(5, true);
        if let ChannelValues::Weights(w) = &mut s.animations[0].channels[0].values {
            w[4 * 2 + 3] = 0.5;
        }
        let before = s.clone();
        restore(&mut s);
        assert_eq!(s, before);
        // Keys that end on a blend at uneven steps (frames 0, 1, then 1.5): the author's.
        let mut s = scene(3, false);
        if let ChannelValues::Weights(w) = &mut s.animations[0].channels[0].values {
            w.copy_from_slice(&[0.0, 0.0, 1.0, 0.0, 0.5, 0.5]);
        }
        let before = s.clone();
        restore(&mut s);
        assert_eq!(s, before);
    }
}
