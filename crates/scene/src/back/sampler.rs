//! The one sampler of node and skin animation (shared by MD3, MD2 and MDL): node
//! transforms at a time, world matrices, skinning, and a clip baked into vertex frames.

use alloc::vec::Vec;

use super::merge::{Merged, SampledFrame};
use crate::{Animation, ChannelValues, Error, Interpolation, Scene};

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
/// node drawing the merged mesh: one per sample time
/// ([`BackOptions::fps`](super::BackOptions::fps), else the keys), named `clip` + the
/// 1-based frame number.
pub(super) fn sampled_clip(
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
