//! The frames a scene's animations give ([`sample_frames`]: weight keys posed, node and
//! skin animation sampled) and their names ([`frame_names`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::merge::{Merged, SampledFrame, pose};
use super::sampler::{moves_nodes, sampled_clip};
use super::write::BackOptions;
use crate::{Error, Scene};

/// The frames of `scene`: for each animation with a weight channel on a node drawing the
/// mesh, one frame per key of that channel (its weights at the key; named after the
/// target when the key shows exactly one named target at weight 1, else `clip` + the
/// 1-based key number); for each other animation that moves nodes, the mesh **sampled**
/// at its key times or every `1 / fps` seconds ([`BackOptions::fps`]): skinned by the
/// node's skin (each vertex by its joints' world × inverse bind matrices, weighted), else
/// placed by the node's world matrix, named `clip` + the 1-based frame number (`run1`,
/// `run2` …); as `(clip name, frames)`. Without such animations the base pose and one
/// frame per morph target (named after the target, else `frameN`), as one clip named
/// `frame`. `Err` when an animation has more than
/// [`MAX_SAMPLED_FRAMES`](super::MAX_SAMPLED_FRAMES) sample times (`format` names the
/// file kind in the message).
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
            c.values.is_weights() && scene.nodes.get(c.node).is_some_and(|n| n.mesh == Some(0))
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
    if let Some(max) = options.max_frames {
        thin(&mut clips, max);
    }
    Ok(clips)
}

/// Keeps at most `max` frames (at least one) of `clips`: each clip a share of `max` by
/// its length (at least one frame while there is room), its frames evenly spaced from its
/// first; clips past the room are dropped.
pub(crate) fn thin<T>(clips: &mut Vec<(String, Vec<T>)>, max: usize) {
    let max = max.max(1);
    let total: usize = clips.iter().map(|(_, f)| f.len()).sum();
    if total <= max {
        return;
    }
    let mut room = max;
    let mut keep: Vec<usize> = clips
        .iter()
        .map(|(_, f)| {
            // floor(len · max / total), computed without overflow for any counts.
            let share = u128::try_from(f.len())
                .unwrap_or(0)
                .saturating_mul(u128::try_from(max).unwrap_or(0))
                .checked_div(u128::try_from(total).unwrap_or(1))
                .and_then(|s| usize::try_from(s).ok())
                .unwrap_or(0);
            let k = share.max(1).min(f.len()).min(room);
            room = room.saturating_sub(k);
            k
        })
        .collect();
    // What flooring left over goes to the clips in order.
    for (k, (_, f)) in keep.iter_mut().zip(clips.iter()) {
        let more = f.len().saturating_sub(*k).min(room);
        *k = k.saturating_add(more);
        room = room.saturating_sub(more);
    }
    for ((_, frames), k) in clips.iter_mut().zip(&keep) {
        let len = frames.len();
        // Frame `i` is kept when it is slot `j · len / k` (distinct, as `k ≤ len`).
        let slot = |j: usize| j.saturating_mul(len).checked_div(*k).unwrap_or(len);
        let (mut i, mut j) = (0usize, 0usize);
        frames.retain(|_| {
            let kept = j < *k && slot(j) == i;
            if kept {
                j = j.saturating_add(1);
            }
            i = i.saturating_add(1);
            kept
        });
    }
    clips.retain(|(_, f)| !f.is_empty());
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

#[cfg(test)]
mod tests {
    use super::thin;
    use alloc::borrow::ToOwned;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn thinning_keeps_evenly_spaced_frames_within_the_limit() {
        let clip = |name: &str, n: usize| (name.to_owned(), (0..n).collect::<Vec<usize>>());
        let mut clips = vec![clip("run", 300), clip("stand", 100), clip("pain", 1)];
        thin(&mut clips, 200);
        let lens: Vec<usize> = clips.iter().map(|(_, f)| f.len()).collect();
        assert_eq!(lens, [150, 49, 1]);
        assert_eq!(clips[0].1[..3], [0, 2, 4]);
        assert_eq!(clips[2].1, [0], "a short clip keeps its frame");
        let mut few = vec![clip("a", 5)];
        thin(&mut few, 10);
        assert_eq!(few[0].1.len(), 5, "within the limit: untouched");
        let mut many = vec![clip("a", 3), clip("b", 3), clip("c", 3)];
        thin(&mut many, 2);
        assert_eq!(many.iter().map(|(_, f)| f.len()).sum::<usize>(), 2);
    }
}
