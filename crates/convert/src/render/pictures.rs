//! Animated pictures (`--animate`, `--turntable`): the frames of an animated scene posed one by one,
//! and the animated PNG (APNG) of a list of pictures.
//!
//! Posing is what the renderer does not do (it draws base positions): at key `k` of an
//! animation, every morph-weight channel adds its weighted targets to the base positions
//! and normals, and every translation/rotation/scale channel sets its node to the key's
//! value. Skinned meshes (md5) are posed by their format module instead (`--frame k`).

use idmodel_scene::render::Picture;
use idmodel_scene::{ChannelValues, Scene};

/// The most frames an animated PNG may have.
pub const MAX_FRAMES: usize = 1000;

/// The default budget of the raw pixels of all frames (`width × height × 4 × frames`),
/// changed with `--max-output`: 1 GiB.
pub const DEFAULT_MAX_PIXELS_BYTES: u64 = 1 << 30;

/// Refuses `frames` frames of `width × height` past [`MAX_FRAMES`] or the byte budget.
pub fn check_budget(
    frames: usize,
    width: u32,
    height: u32,
    max: Option<u64>,
) -> Result<(), String> {
    let budget = max.unwrap_or(DEFAULT_MAX_PIXELS_BYTES);
    if frames > MAX_FRAMES {
        return Err(format!(
            "{frames} frames is more than the {MAX_FRAMES} an animated picture may have"
        ));
    }
    let need = u64::from(width)
        .saturating_mul(u64::from(height))
        .saturating_mul(4)
        .saturating_mul(u64::try_from(frames).unwrap_or(u64::MAX));
    if need > budget {
        return Err(format!(
            "{frames} frames of {width}x{height} need {need} bytes of pixels, over the budget of {budget} (--max-output)"
        ));
    }
    Ok(())
}

/// The keys of animation `anim`: their count (the longest channel's) and the time of
/// each key in seconds (from that channel).
pub fn key_times(scene: &Scene, anim: usize) -> Vec<f32> {
    scene
        .animations
        .get(anim)
        .and_then(|a| a.channels.iter().max_by_key(|c| c.times.len()))
        .map(|c| c.times.clone())
        .unwrap_or_default()
}

/// Frame delays in milliseconds (1 ..= 65535) from key times: the gap to the next key,
/// the last frame holding as long as the one before it (100 ms for a single key).
pub fn delays_ms(times: &[f32]) -> Vec<u16> {
    let gaps: Vec<f32> = times
        .windows(2)
        .map(|w| match w {
            [a, b] => b - a,
            _ => 0.1,
        })
        .collect();
    let last = gaps.last().copied().unwrap_or(0.1);
    gaps.iter()
        .copied()
        .chain(core::iter::once(last))
        .take(times.len())
        .map(ms)
        .collect()
}

/// Seconds → milliseconds, clamped to 1 ..= 65535.
pub fn ms(seconds: f32) -> u16 {
    let m = (seconds * 1000.0).round();
    if m.is_nan() || m < 1.0 {
        1
    } else if m >= 65535.0 {
        u16::MAX
    } else {
        // In 1 ..= 65534 after the tests above: exact.
        #[allow(
            clippy::as_conversions,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let v = m as u16;
        v
    }
}

/// Whether any primitive of `scene` is skinned (posed by joints, not by this module).
pub fn skinned(scene: &Scene) -> bool {
    scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .any(|p| !p.influences.is_empty())
}

/// A still copy of `scene` posed at key `key` of animation `anim`: morph weights applied
/// to the positions and normals (targets dropped), nodes set to the key's transform,
/// animations dropped.
pub fn pose(scene: &Scene, anim: usize, key: usize) -> Scene {
    let mut out = scene.clone();
    out.animations.clear();
    let animation = scene.animations.get(anim);
    let driven: Vec<usize> = animation
        .into_iter()
        .flat_map(|a| &a.channels)
        .filter(|c| c.values.is_weights())
        .map(|c| c.node)
        .collect();
    // A node this animation does not morph shows its rest weights (a player's resting part).
    for (i, node) in scene.nodes.iter().enumerate() {
        if node.weights.is_empty() || driven.contains(&i) {
            continue;
        }
        let rest: Vec<(usize, f32)> = node.weights.iter().copied().enumerate().collect();
        if let Some(mesh) = node.mesh.and_then(|m| out.meshes.get_mut(m)) {
            morph(mesh, &rest);
        }
    }
    for node in &mut out.nodes {
        node.weights.clear();
    }
    let Some(animation) = animation else {
        for prim in out.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            prim.targets.clear();
        }
        return out;
    };
    for channel in &animation.channels {
        let Some(node) = out.nodes.get_mut(channel.node) else {
            continue;
        };
        let weights: Vec<(usize, f32)> = match &channel.values {
            ChannelValues::Translation(v) => {
                if let Some(t) = v.get(key) {
                    node.translation = *t;
                }
                continue;
            }
            ChannelValues::Rotation(v) => {
                if let Some(r) = v.get(key) {
                    node.rotation = *r;
                }
                continue;
            }
            ChannelValues::Scale(v) => {
                if let Some(s) = v.get(key) {
                    node.scale = *s;
                }
                continue;
            }
            ChannelValues::CameraYfov { .. } => continue,
            ChannelValues::Weights(w) => {
                let n = scene
                    .nodes
                    .get(channel.node)
                    .and_then(|n| n.mesh)
                    .and_then(|m| scene.meshes.get(m))
                    .and_then(|m| m.primitives.first())
                    .map_or(0, |p| p.targets.len());
                let start = key.saturating_mul(n);
                w.get(start..start.saturating_add(n))
                    .unwrap_or_default()
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, w)| w != 0.0)
                    .collect()
            }
            ChannelValues::SparseWeights { nonzero, .. } => nonzero
                .iter()
                .filter(|&&(k, _, _)| k == key)
                .map(|&(_, t, w)| (t, w))
                .collect(),
        };
        let Some(mesh) = node.mesh.and_then(|m| out.meshes.get_mut(m)) else {
            continue;
        };
        morph(mesh, &weights);
    }
    for prim in out.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        prim.targets.clear();
    }
    out
}

/// Adds each `(target, weight)` of `weights` to the mesh's positions and normals.
fn morph(mesh: &mut idmodel_scene::Mesh, weights: &[(usize, f32)]) {
    for prim in &mut mesh.primitives {
        for &(t, w) in weights {
            let Some(target) = prim.targets.get(t) else {
                continue;
            };
            for (p, d) in prim.positions.iter_mut().zip(&target.positions) {
                for (a, b) in p.iter_mut().zip(d) {
                    *a += w * b;
                }
            }
            for (p, d) in prim.normals.iter_mut().zip(&target.normals) {
                for (a, b) in p.iter_mut().zip(d) {
                    *a += w * b;
                }
            }
        }
    }
}

/// The union of two boxes.
pub fn union(
    a: Option<([f32; 3], [f32; 3])>,
    b: Option<([f32; 3], [f32; 3])>,
) -> Option<([f32; 3], [f32; 3])> {
    match (a, b) {
        (Some((alo, ahi)), Some((blo, bhi))) => Some((
            [0, 1, 2].map(|k| at(alo, k).min(at(blo, k))),
            [0, 1, 2].map(|k| at(ahi, k).max(at(bhi, k))),
        )),
        (x, None) | (None, x) => x,
    }
}

fn at(v: [f32; 3], k: usize) -> f32 {
    v.get(k).copied().unwrap_or(0.0)
}

/// An animated PNG (APNG) of `frames`, all of one size, frame `i` shown `delays[i]` ms
/// (100 ms where a delay is missing), looping forever.
pub fn apng(frames: &[Picture], delays: &[u16]) -> Result<Vec<u8>, String> {
    let Some(first) = frames.first() else {
        return Err("no frames to write".to_owned());
    };
    let count = u32::try_from(frames.len()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, first.width, first.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .set_animated(count, 0)
            .map_err(|e| format!("PNG encoding: {e}"))?;
        let mut writer = encoder
            .write_header()
            .map_err(|e| format!("PNG encoding: {e}"))?;
        for (i, frame) in frames.iter().enumerate() {
            if (frame.width, frame.height) != (first.width, first.height) {
                return Err(format!("frame {i} is not {}x{}", first.width, first.height));
            }
            writer
                .set_frame_delay(delays.get(i).copied().unwrap_or(100), 1000)
                .map_err(|e| format!("PNG encoding: {e}"))?;
            writer
                .write_image_data(&frame.rgba)
                .map_err(|e| format!("PNG encoding: {e}"))?;
        }
        writer.finish().map_err(|e| format!("PNG encoding: {e}"))?;
    }
    Ok(out)
}

// Tests may index and unwrap freely: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_follow_the_key_gaps() {
        assert_eq!(delays_ms(&[0.0, 0.1, 0.3]), [100, 200, 200]);
        assert_eq!(delays_ms(&[0.0]), [100]);
        assert_eq!(ms(-1.0), 1);
        assert_eq!(ms(1e9), u16::MAX);
    }

    #[test]
    fn budget_refuses_too_many_frames_or_bytes() {
        assert!(check_budget(MAX_FRAMES, 1, 1, None).is_ok());
        assert!(check_budget(MAX_FRAMES + 1, 1, 1, None).is_err());
        assert!(check_budget(10, 100, 100, Some(400_000)).is_ok());
        assert!(check_budget(11, 100, 100, Some(400_000)).is_err());
    }

    #[test]
    fn a_node_the_animation_does_not_morph_shows_its_rest_weights() {
        use idmodel_scene::{
            Animation, Channel, Interpolation, Mesh, MorphTarget, Node, Primitive,
        };
        let prim = |z: f32| Primitive {
            positions: vec![[0.0, 0.0, z]; 3],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            uvs: vec![[0.0; 2]; 3],
            indices: vec![0, 1, 2],
            targets: vec![MorphTarget {
                positions: vec![[0.0, 0.0, 5.0]; 3],
                normals: vec![[0.0; 3]; 3],
            }],
            ..Primitive::default()
        };
        let mut scene = Scene::default();
        for (i, z) in [0.0, 10.0].into_iter().enumerate() {
            scene.meshes.push(Mesh {
                name: format!("m{i}"),
                primitives: vec![prim(z)],
                target_names: Vec::new(),
            });
            let mut n = Node::new(format!("n{i}"));
            n.mesh = Some(i);
            n.weights = vec![1.0];
            scene.nodes.push(n);
        }
        // The animation morphs node 1 to weight 0 at its only key; node 0 rests at 1.
        scene.animations.push(Animation {
            name: "a".into(),
            channels: vec![Channel {
                node: 1,
                times: vec![0.0],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Weights(vec![0.0]),
            }],
        });
        let posed = pose(&scene, 0, 0);
        assert_eq!(posed.meshes[0].primitives[0].positions[0], [0.0, 0.0, 5.0]);
        assert_eq!(posed.meshes[1].primitives[0].positions[0], [0.0, 0.0, 10.0]);
        assert!(posed.nodes.iter().all(|n| n.weights.is_empty()));
        assert!(posed.meshes[0].primitives[0].targets.is_empty());
    }
}
