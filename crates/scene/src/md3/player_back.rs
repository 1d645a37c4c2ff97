//! [`Scene`] → a Quake III player folder (the way back of
//! [`player_scene`](super::player_scene)): `lower.md3`, `upper.md3`, `head.md3`,
//! `animation.cfg` and `<part>_<skin>.skin`.
//!
//! - **Parts** ([`player_parts`]): the nodes named `lower`, `upper` and `head`
//!   (ASCII case ignored; how [`player_scene`](super::player_scene) names them), else
//!   upper is what hangs under the node named `tag_torso`, head what hangs under
//!   `tag_head`, and lower the top of the tree holding `tag_torso`. Each part is the
//!   subtree of its node without the other parts' subtrees; it is written by
//!   [`to_bytes`](super::to_bytes) as a model of its own (its node is the model's origin,
//!   its `tag_*` nodes its tags, the animations' channels on its nodes its frames).
//! - **Extras**: [`player_scene`](super::player_scene) records each part's `md3.*` extras
//!   ([`record`](super::record)) under `player.lower`, `player.upper`, `player.head`, the
//!   `animation.cfg` text under `player.animation_cfg`, the skins' text under
//!   `player.skins` and a fingerprint of the clips under `player.clips`. When they still
//!   describe the scene, every file comes back byte for byte. A head of more than one
//!   frame (the scene holds only frame 0, the one the engine draws) is kept whole in
//!   `player.head_file` and comes back when its frame 0 is unchanged.
//! - **`animation.cfg`**: the original text when the clips (names, frames, key times)
//!   are the ones it gave; else written from the clips: an animation named as Quake III's
//!   `animNumber_t` (`LEGS_WALK`) is an entry, its frames (consecutive, ascending, or
//!   descending: a reversed entry with a negative count) from the morph weights of the
//!   part it plays on (BOTH_* lower's, TORSO_* upper's, LEGS_* lower's), its rate from the
//!   key times (an fps giving that `(int)(1000 / fps)`). The `sex`, `footsteps` and
//!   `headoffset` lines (and `fixedlegs`/`fixedtorso`) come from the original file, else
//!   the engine's defaults. The 25 required entries are always written (a missing one
//!   shows frame 0 for one frame at 15 fps; loop frames from the original entry, else 0
//!   for deaths, jumps, lands, gestures, attacks, drops and raises, and the whole range for
//!   the rest); the Team Arena entries only when the scene has one (a missing one is
//!   written as TORSO_GESTURE, the engine's fill). The legs entries are numbered on the
//!   combined timeline (the legs-frame offset quirk: the engine subtracts
//!   `LEGS_WALKCR − TORSO_GESTURE`), starting after the last torso frame, so LEGS_WALKCR
//!   must start at the frame TORSO_GESTURE starts at (the engine makes them equal) or the
//!   write is refused naming both. The text written is read back under the Quake III rules
//!   and compared entry by entry before it is returned.
//! - **`.skin`**: per part, the original text when it gives every drawn surface the
//!   shader the scene's material says; else one `surface,shader` line per drawn surface
//!   (the engine's lower-cased, `_x`-cut name; shader = [`BackOptions::shader_prefix`] +
//!   the material's name; a surface without a material is left out: the default shader)
//!   and a `tag_x,` line per tag. Without any material, each surface's own MD3 shader.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write as _;

use idmodel_md3::{AnimId, AnimationCfg, BodyPart, Footsteps, Gender, MAX_ANIMATIONS, Md3, Skin};

use super::back::{
    BackOptions, bytes_value, hex, made_for, shader_of, to_bytes, unhex, value_bytes,
};
use super::clips::q3_animations;
use crate::back::{digest_hex, fnv1a};
use crate::{Animation, Channel, ChannelValues, Error, Extras, Mesh, Node, Scene, Value};

/// The extras key of each part's `md3.*` extras, in [`PLAYER_PARTS`](super::PLAYER_PARTS)
/// order.
pub const PART_EXTRAS: [&str; 3] = ["player.lower", "player.upper", "player.head"];

/// Options of [`player_files`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlayerBackOptions {
    /// How each part is written (shader prefix, limits, fps).
    pub back: BackOptions,
    /// The skin name of the `.skin` files (`lower_<skin>.skin`); empty: `default`.
    pub skin: String,
}

/// The files of a player folder: `(file name, bytes)`, in the order `lower.md3`,
/// `upper.md3`, `head.md3`, `animation.cfg`, `lower_<skin>.skin`, `upper_<skin>.skin`,
/// `head_<skin>.skin`.
pub type PlayerFiles = Vec<(String, Vec<u8>)>;

// ---------------------------------------------------------------------------------------
// Finding the parts

fn children_of(scene: &Scene, i: usize) -> &[usize] {
    scene.nodes.get(i).map_or(&[], |n| n.children.as_slice())
}

fn parents(scene: &Scene) -> Vec<Option<usize>> {
    let mut p = vec![None; scene.nodes.len()];
    for (i, n) in scene.nodes.iter().enumerate() {
        for &c in &n.children {
            if let Some(slot) = p.get_mut(c)
                && slot.is_none()
            {
                *slot = Some(i);
            }
        }
    }
    p
}

/// Nodes under `root` (itself included), not entering `stop` nodes; each once.
fn subtree(scene: &Scene, root: usize, stop: &[usize]) -> Vec<bool> {
    let mut seen = vec![false; scene.nodes.len()];
    let mut todo = vec![root];
    while let Some(i) = todo.pop() {
        match seen.get_mut(i) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        todo.extend(children_of(scene, i).iter().filter(|c| !stop.contains(c)));
    }
    seen
}

/// Whether node `i` or a node under it draws a mesh (at most one visit per node of the
/// scene, so that children of one node cost their own subtrees only).
fn draws_below(scene: &Scene, i: usize) -> bool {
    let mut todo = vec![i];
    let mut steps = 0usize;
    while let Some(k) = todo.pop() {
        steps = steps.saturating_add(1);
        if steps > scene.nodes.len() {
            break;
        }
        if scene
            .nodes
            .get(k)
            .is_some_and(|n| n.mesh.is_some() && !super::is_tag_frames(n))
        {
            return true;
        }
        todo.extend_from_slice(children_of(scene, k));
    }
    false
}

fn named(scene: &Scene, name: &str) -> Option<usize> {
    scene
        .nodes
        .iter()
        .rposition(|n| n.name.eq_ignore_ascii_case(name))
}

/// What hangs under the node named `tag`: the tag node itself when it draws, else its
/// first child with something to draw.
fn under_tag(scene: &Scene, tag: &str) -> Option<usize> {
    let t = scene.nodes.iter().position(|n| n.name == tag)?;
    if scene.nodes.get(t).is_some_and(|n| n.mesh.is_some()) {
        return Some(t);
    }
    children_of(scene, t)
        .iter()
        .copied()
        .find(|&c| draws_below(scene, c))
}

/// The nodes of lower, upper and head (see the module docs), or `None` when the scene is
/// not a player.
///
/// ```
/// use idmodel_scene::{Node, Scene, md3};
/// let mut scene = Scene::default();
/// for name in ["sarge", "lower", "upper", "head"] {
///     scene.nodes.push(Node::new(name));
/// }
/// assert_eq!(md3::player_parts(&scene), Some([1, 2, 3]));
/// assert_eq!(md3::player_parts(&Scene::default()), None);
/// ```
pub fn player_parts(scene: &Scene) -> Option<[usize; 3]> {
    let upper = named(scene, "upper").or_else(|| under_tag(scene, "tag_torso"))?;
    let head = named(scene, "head").or_else(|| under_tag(scene, "tag_head"))?;
    let lower = named(scene, "lower").or_else(|| {
        let parent = parents(scene);
        let mut at = scene.nodes.iter().position(|n| n.name == "tag_torso")?;
        for _ in 0..scene.nodes.len() {
            match parent.get(at).copied().flatten() {
                Some(p) => at = p,
                None => break,
            }
        }
        Some(at)
    })?;
    (lower != upper && upper != head && lower != head).then_some([lower, upper, head])
}

/// Whether the scene is a Quake III player ([`player_parts`] finds its three parts).
pub fn is_player(scene: &Scene) -> bool {
    player_parts(scene).is_some()
}

/// The scene of one part (`part`: 0 lower, 1 upper, 2 head; see the module docs), ready
/// for [`to_bytes`](super::to_bytes): the part's node a root, the other parts' meshes and
/// tags left out, the animations' channels on other nodes dropped, and the part's
/// `md3.*` extras.
pub fn part_scene(scene: &Scene, parts: [usize; 3], part: usize) -> Scene {
    let root = parts.get(part).copied().unwrap_or(0);
    let others: Vec<usize> = parts.iter().copied().filter(|&p| p != root).collect();
    let inside = subtree(scene, root, &others);
    let is_in = |i: usize| inside.get(i).copied().unwrap_or(false);
    let mut meshes: Vec<Mesh> = vec![Mesh::default(); scene.meshes.len()];
    let nodes: Vec<Node> = scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut node = Node {
                name: n.name.clone(),
                children: n.children.iter().copied().filter(|&c| c != root).collect(),
                translation: n.translation,
                rotation: n.rotation,
                scale: n.scale,
                mesh: None,
                skin: n.skin,
                camera: None,
                weights: n.weights.clone(),
            };
            if is_in(i) {
                node.mesh = n.mesh;
                if let (Some(m), Some(src)) = (n.mesh, n.mesh.and_then(|m| scene.meshes.get(m)))
                    && let Some(slot) = meshes.get_mut(m)
                {
                    slot.clone_from(src);
                }
            } else if node.name.starts_with("tag_") {
                // Another part's tag: not one of this model's.
                node.name.insert(0, '~');
            }
            node
        })
        .collect();
    // A tag an editor renamed because another part has one of that name (Blender's
    // `tag_torso.001` for upper's `tag_torso`, lower's being first) gets its name back.
    let mut nodes = nodes;
    let others: Vec<String> = nodes
        .iter()
        .filter_map(|n| n.name.strip_prefix('~').map(String::from))
        .collect();
    for (i, n) in nodes.iter_mut().enumerate() {
        let plain = super::editor_name(&n.name);
        if is_in(i)
            && plain.len() < n.name.len()
            && plain.starts_with("tag_")
            && others.iter().any(|o| super::editor_name(o) == plain)
        {
            n.name = plain.to_string();
        }
    }
    let animations = scene
        .animations
        .iter()
        .filter_map(|a| {
            let channels: Vec<Channel> = a
                .channels
                .iter()
                .filter(|c| is_in(c.node))
                .cloned()
                .collect();
            (!channels.is_empty()).then(|| Animation {
                name: a.name.clone(),
                channels,
            })
        })
        .collect();
    let extras = match PART_EXTRAS.get(part).and_then(|k| scene.extras.get(k)) {
        Some(Value::Object(o)) => Extras(o.clone()),
        _ => Extras::default(),
    };
    Scene {
        name: scene.name.clone(),
        meshes,
        materials: scene.materials.clone(),
        nodes,
        skins: scene.skins.clone(),
        animations,
        cameras: Vec::new(),
        extras,
    }
}

// ---------------------------------------------------------------------------------------
// Clips

/// The frame each key of a weights channel shows (0: the base, target `t`: frame
/// `t + 1`), or `None` for another channel or a key that blends frames.
fn shown_frames(ch: &Channel) -> Option<Vec<usize>> {
    let keys = ch.times.len();
    let mut out = vec![0usize; keys];
    match &ch.values {
        ChannelValues::SparseWeights { targets, nonzero } => {
            let mut set = vec![false; keys];
            for &(k, t, w) in nonzero {
                if w == 0.0 {
                    continue;
                }
                let (Some(slot), Some(s)) = (out.get_mut(k), set.get_mut(k)) else {
                    return None;
                };
                if *s || w != 1.0 || t >= *targets {
                    return None;
                }
                *s = true;
                *slot = t.checked_add(1)?;
            }
        }
        ChannelValues::Weights(w) => {
            let targets = w.len().checked_div(keys)?;
            if targets == 0 {
                return Some(out);
            }
            for (slot, row) in out.iter_mut().zip(w.chunks_exact(targets)) {
                let mut hot = row.iter().enumerate().filter(|(_, w)| **w != 0.0);
                match (hot.next(), hot.next()) {
                    (None, _) => {}
                    (Some((t, &1.0)), None) => *slot = t.checked_add(1)?,
                    _ => return None,
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The node drawing the part's morph targets: the first node of the part's subtree whose
/// mesh has targets.
fn morph_node(scene: &Scene, parts: [usize; 3], part: usize) -> Option<usize> {
    let root = *parts.get(part)?;
    let others: Vec<usize> = parts.iter().copied().filter(|&p| p != root).collect();
    let inside = subtree(scene, root, &others);
    scene.nodes.iter().enumerate().position(|(i, n)| {
        inside.get(i).copied().unwrap_or(false)
            && !super::is_tag_frames(n)
            && n.mesh
                .and_then(|m| scene.meshes.get(m))
                .is_some_and(|m| m.primitives.iter().any(|p| !p.targets.is_empty()))
    })
}

/// What one animation plays on one part: the frames and the key times.
struct PartClip {
    frames: Vec<usize>,
    times: Vec<f32>,
}

fn part_clip(a: &Animation, node: Option<usize>) -> Option<PartClip> {
    let node = node?;
    a.channels.iter().filter(|c| c.node == node).find_map(|c| {
        shown_frames(c).map(|frames| PartClip {
            frames,
            times: c.times.clone(),
        })
    })
}

/// A fingerprint of the clips: every animation's name and, for lower and upper, the
/// frame each key shows and the key times.
fn clip_signature(scene: &Scene, lower: Option<usize>, upper: Option<usize>) -> String {
    let mut bytes = Vec::new();
    for a in &scene.animations {
        bytes.extend_from_slice(a.name.as_bytes());
        bytes.push(0);
        for node in [lower, upper] {
            if let Some(c) = part_clip(a, node) {
                for (f, t) in c.frames.iter().zip(&c.times) {
                    bytes.extend_from_slice(&u64::try_from(*f).unwrap_or(u64::MAX).to_le_bytes());
                    bytes.extend_from_slice(&t.to_bits().to_le_bytes());
                }
            }
            bytes.push(0xff);
        }
    }
    format!("{:016x}", fnv1a(&bytes))
}

/// The `player.*` extras of a player scene [`player_scene`](super::player_scene) built
/// (its nodes `lower`, `upper`, `head`): each part's [`record`](super::record), the
/// `animation.cfg` and skin texts, and the clip fingerprint.
pub(crate) fn record_player(scene: &mut Scene, player: &super::Player<'_>, quantized: bool) {
    let lower = morph_node_named(scene, "lower");
    let upper = morph_node_named(scene, "upper");
    let signature = clip_signature(scene, lower, upper);
    let x = &mut scene.extras;
    for (key, md3) in PART_EXTRAS
        .iter()
        .zip([&player.lower, &player.upper, &player.head])
    {
        x.set(*key, Value::Object(super::record_for(md3, quantized).0));
    }
    if let Some(cfg) = player.animation_cfg {
        x.set("player.animation_cfg", bytes_value(cfg));
    }
    x.set(
        "player.skins",
        Value::List(
            player
                .skins
                .iter()
                .map(|s| s.as_ref().map_or(Value::Null, |s| bytes_value(s.text())))
                .collect(),
        ),
    );
    x.set("player.clips", Value::Str(signature));
    // The head is drawn at frame 0 only, so the scene holds only that frame: a head of
    // more frames is kept whole, with the fingerprint of what its frame 0 writes.
    if player.head.num_frames() > 1
        && let Some(parts) = player_parts(scene)
    {
        let part = part_scene(scene, parts, 2);
        if let Ok(bytes) = to_bytes(&part, &BackOptions::default()) {
            let x = &mut scene.extras;
            let mut file = player.head.body().to_vec();
            file.extend_from_slice(player.head.trailing_bytes());
            x.set("player.head_file", Value::Str(hex(&file)));
            x.set("player.head_digest", Value::Str(digest_hex(&bytes)));
        }
    }
}

/// The recorded whole head when `written` is what its frame 0 wrote at export.
fn recorded_head(scene: &Scene, written: &[u8]) -> Option<Vec<u8>> {
    made_for(
        &scene.extras,
        "player.head_digest",
        "player.head_hash",
        written,
    )
    .then(|| {
        scene
            .extras
            .get("player.head_file")?
            .as_str()
            .and_then(unhex)
    })
    .flatten()
}

fn morph_node_named(scene: &Scene, name: &str) -> Option<usize> {
    let parts = player_parts(scene)?;
    let part = ["lower", "upper", "head"].iter().position(|p| *p == name)?;
    morph_node(scene, parts, part)
}

// ---------------------------------------------------------------------------------------
// animation.cfg

/// One entry as written: first frame, frame count (negative: reversed), loop frames,
/// milliseconds per frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    first: i32,
    num: i32,
    looping: i32,
    lerp: i32,
}

const DEFAULT_LERP: i32 = 66;

/// The engine's `(int)(1000 / fps)` for a key step in seconds: whole milliseconds (a
/// step within a thousandth of a millisecond of one is that one, as the exporter writes
/// `frameLerp / 1000`), else truncated (1/15 s is 66 ms, as 15 fps gives).
#[allow(clippy::as_conversions)] // the range is checked before the float → int cast
fn lerp_of(step: f32) -> Option<i32> {
    let exact = step * 1000.0;
    let near = libm::roundf(exact);
    let ms = if (exact - near).abs() < 1e-3 {
        near
    } else {
        libm::floorf(exact)
    };
    (ms.is_finite() && (1.0..=60_000.0).contains(&ms)).then_some(ms as i32)
}

/// The fps token that gives `lerp` ms a frame: an integer when one does, else a
/// decimal.
fn fps_text(lerp: i32) -> String {
    if let Some(f) = 1000i32.checked_div(lerp).filter(|&f| f >= 1)
        && 1000i32.checked_div(f) == Some(lerp)
    {
        return f.to_string();
    }
    let mut lo = 0.0f64;
    let mut hi = 1000.0f64;
    // 1000 / fps truncated is `lerp` for fps in (1000 / (lerp + 1), 1000 / lerp].
    let l = f64::from(lerp);
    if l > 0.0 {
        lo = 1000.0 / (l + 1.0);
        hi = 1000.0 / l;
    }
    format!("{:.6}", (lo + hi) / 2.0)
}

fn frames_entry(name: &str, frames: &[usize]) -> Result<(i32, i32), Error> {
    let n = i32::try_from(frames.len()).map_err(|_| Error::new(format!("{name}: too long")))?;
    let at = |i: usize| {
        frames
            .get(i)
            .and_then(|&f| i32::try_from(f).ok())
            .unwrap_or(0)
    };
    let first = at(0);
    let ascending = frames
        .windows(2)
        .all(|w| w.get(1).copied() == w.first().and_then(|f| f.checked_add(1)));
    let descending = frames
        .windows(2)
        .all(|w| w.first().copied() == w.get(1).and_then(|f| f.checked_add(1)));
    if ascending {
        Ok((first, n))
    } else if descending {
        Ok((at(frames.len().saturating_sub(1)), n.saturating_neg()))
    } else {
        Err(Error::new(format!(
            "animation {name}: its frames are not one range (animation.cfg plays consecutive frames)"
        )))
    }
}

/// Loop frames of an entry the original file does not give: 0 for animations that play
/// once, the whole range for the rest.
fn default_loop(id: AnimId, num: i32) -> i32 {
    let once = [
        "BOTH_",
        "LEGS_JUMP",
        "LEGS_LAND",
        "TORSO_GESTURE",
        "TORSO_ATTACK",
        "TORSO_DROP",
        "TORSO_RAISE",
    ];
    if once.iter().any(|p| id.name().starts_with(p)) || id.index() >= 25 {
        0
    } else {
        num.saturating_abs()
    }
}

/// `animation.cfg` written from the scene's clips (see the module docs).
fn write_cfg(scene: &Scene, parts: [usize; 3], original: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    let lower = morph_node(scene, parts, 0);
    let upper = morph_node(scene, parts, 1);
    let orig_cfg = original.and_then(|t| AnimationCfg::parse(t).ok());
    let orig_q3 = original.and_then(|t| q3_animations(t).ok()).map(|(q, _)| q);
    let mut entries: Vec<Option<Entry>> = vec![None; MAX_ANIMATIONS];
    for a in &scene.animations {
        let Some(id) = AnimId::from_name(&a.name).filter(|id| id.index() < MAX_ANIMATIONS) else {
            continue;
        };
        let on = match id.body_part() {
            BodyPart::Legs => part_clip(a, lower),
            BodyPart::Torso => part_clip(a, upper),
            _ => part_clip(a, lower).or_else(|| part_clip(a, upper)),
        };
        let Some(clip) = on else { continue };
        let (first, num) = frames_entry(&a.name, &clip.frames)?;
        let step = match clip.times.as_slice() {
            [a, b, ..] => lerp_of(b - a),
            _ => None,
        };
        let orig = orig_q3.as_ref().map(|q| q.get(id));
        let lerp = step
            .or_else(|| orig.map(|o| o.frame_lerp).filter(|&l| l > 0))
            .unwrap_or(DEFAULT_LERP);
        let looping = orig
            .filter(|o| o.num_frames == num.saturating_abs())
            .map_or_else(|| default_loop(id, num), |o| o.loop_frames);
        if let Some(slot) = entries.get_mut(id.index()) {
            *slot = Some(Entry {
                first,
                num,
                looping,
                lerp,
            });
        }
    }
    let get = |i: usize| entries.get(i).copied().flatten();
    let placeholder = Entry {
        first: 0,
        num: 1,
        looping: 0,
        lerp: DEFAULT_LERP,
    };
    let gesture = get(6).unwrap_or(placeholder);
    // The engine makes LEGS_WALKCR start where TORSO_GESTURE does.
    if let Some(walk) = get(13)
        && walk.first != gesture.first
    {
        return Err(Error::new(format!(
            "LEGS_WALKCR starts at lower frame {} but TORSO_GESTURE at upper frame {}: animation.cfg makes them start at the same frame (the legs offset)",
            walk.first, gesture.first
        )));
    }
    // Legs entries on the combined timeline, after the last BOTH or TORSO frame.
    let end = (0..13)
        .filter_map(get)
        .map(|e| e.first.saturating_add(e.num.saturating_abs()))
        .max()
        .unwrap_or(0);
    let skip = end.saturating_sub(gesture.first).max(0);
    let ta = (25..MAX_ANIMATIONS).rev().find(|&i| get(i).is_some());
    let count = ta.map_or(25, |i| i.saturating_add(1));
    let mut text = String::from("// animation config file (written by idmodel)\n\n");
    let (sex, footsteps, head, fixed) = orig_cfg.as_ref().map_or(
        (Gender::Male, Footsteps::Normal, [0.0; 3], (false, false)),
        |c| {
            (
                c.gender(),
                c.footsteps(),
                c.head_offset(),
                (c.fixed_legs(), c.fixed_torso()),
            )
        },
    );
    let sex = match sex {
        Gender::Male => "m",
        Gender::Female => "f",
        Gender::Neuter => "n",
    };
    let footsteps = match footsteps {
        Footsteps::Normal => "normal",
        Footsteps::Boot => "boot",
        Footsteps::Flesh => "flesh",
        Footsteps::Mech => "mech",
        Footsteps::Energy => "energy",
    };
    let _ = writeln!(text, "sex {sex}");
    let _ = writeln!(text, "footsteps {footsteps}");
    let [h0, h1, h2] = head;
    let _ = writeln!(text, "headoffset {h0} {h1} {h2}");
    if fixed.0 {
        text.push_str("fixedlegs\n");
    }
    if fixed.1 {
        text.push_str("fixedtorso\n");
    }
    text.push_str("\n// first frame, num frames, looping frames, frames per second\n\n");
    let mut want = Vec::with_capacity(count);
    for (i, id) in AnimId::ALL.iter().enumerate().take(count) {
        let mut e = match (get(i), i) {
            (Some(e), _) => e,
            (None, 25..) => gesture,
            (None, 13) => Entry {
                first: gesture.first,
                ..placeholder
            },
            (None, _) => placeholder,
        };
        let written_first = if (13..25).contains(&i) {
            e.first.saturating_add(skip)
        } else {
            e.first
        };
        let _ = writeln!(
            text,
            "{written_first}\t{}\t{}\t{}\t\t// {}",
            e.num,
            e.looping,
            fps_text(e.lerp),
            id.name()
        );
        e.lerp = e.lerp.max(0);
        want.push(e);
    }
    // Read back under the Quake III rules: every entry as meant.
    let (q3, _) = q3_animations(text.as_bytes()).map_err(Error::new)?;
    for (id, e) in AnimId::ALL.iter().zip(&want) {
        let a = q3.get(*id);
        let got = Entry {
            first: a.first_frame,
            num: if a.reversed {
                a.num_frames.saturating_neg()
            } else {
                a.num_frames
            },
            looping: a.loop_frames,
            lerp: a.frame_lerp,
        };
        if got != *e {
            return Err(Error::new(format!(
                "animation {}: animation.cfg cannot say it ({e:?} reads back as {got:?})",
                id.name()
            )));
        }
    }
    Ok(text.into_bytes())
}

// ---------------------------------------------------------------------------------------
// .skin

/// The skin of one part: the original text when it still gives every drawn surface its
/// material's shader, else written from the materials (see the module docs).
fn write_skin(
    part: &Scene,
    md3_bytes: &[u8],
    original: Option<&[u8]>,
    prefix: &str,
) -> Result<Vec<u8>, Error> {
    let md3 = Md3::parse(md3_bytes).map_err(|e| Error::new(format!("the written MD3: {e}")))?;
    let drawn: Vec<_> = md3
        .surfaces()
        .filter(|s| s.num_verts() > 0 && !s.triangles().is_empty())
        .collect();
    let materials: Vec<Vec<u8>> = part
        .nodes
        .iter()
        .filter(|n| !super::is_tag_frames(n))
        .filter_map(|n| n.mesh.and_then(|m| part.meshes.get(m)))
        .flat_map(|m| &m.primitives)
        .filter(|p| !p.positions.is_empty() && !p.indices.is_empty())
        .map(|p| shader_of(part, p.material, prefix))
        .collect();
    let paired = materials.len() == drawn.len();
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = drawn
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let shader = match materials.get(i).filter(|_| paired) {
                Some(m) => m.clone(),
                None => s
                    .shaders()
                    .first()
                    .map(|sh| sh.name().as_bytes().to_vec())
                    .unwrap_or_default(),
            };
            (s.engine_name().as_bytes().to_vec(), shader)
        })
        .collect();
    if let Some(skin) = original.and_then(|t| Skin::parse(t).ok()) {
        let same = pairs.iter().all(|(name, shader)| {
            let got = skin
                .shader_for(name, idmodel_core::Engine::Ioq3)
                .unwrap_or(&[]);
            got == shader.as_slice()
        });
        if same && skin.num_surfaces() > 0 {
            return Ok(original.unwrap_or(&[]).to_vec());
        }
    }
    let mut out = Vec::new();
    let mut seen: Vec<&[u8]> = Vec::new();
    let any = pairs.iter().any(|(_, s)| !s.is_empty());
    for (name, shader) in &pairs {
        let shader: &[u8] = if any { shader } else { name };
        if shader.is_empty() || seen.contains(&name.as_slice()) {
            continue;
        }
        seen.push(name);
        out.extend_from_slice(name);
        out.push(b',');
        out.extend_from_slice(shader);
        out.push(b'\n');
    }
    for tag in md3.tag_names() {
        out.extend_from_slice(tag.as_bytes());
        out.extend_from_slice(b",\n");
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// The folder

/// The player folder of `scene` (see the module docs): `(file name, bytes)` of
/// `lower.md3`, `upper.md3`, `head.md3`, `animation.cfg` and the three skins. An error
/// when the scene is not a player (naming what is missing), a part cannot be written, or
/// the clips cannot be said in `animation.cfg`.
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let part = |tag: &[u8]| {
///     let mut m = Model::example();
///     for f in &mut m.tags { f[0].name = tag.to_vec(); }
///     write(&m).unwrap()
/// };
/// let (lower, upper, head) = (part(b"tag_torso"), part(b"tag_head"), part(b"tag_x"));
/// let player = md3::Player {
///     name: "sarge",
///     lower: Md3::parse(&lower)?,
///     upper: Md3::parse(&upper)?,
///     head: Md3::parse(&head)?,
///     animation_cfg: None,
///     skins: [None, None, None],
/// };
/// let scene = md3::player_scene(&player, &Options::default())?;
/// let files = md3::player_files(&scene, &md3::PlayerBackOptions::default())?;
/// assert_eq!(files[0], ("lower.md3".to_owned(), lower));
/// assert_eq!(files[2].1, head);
/// assert_eq!(files[4].0, "lower_default.skin");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn player_files(scene: &Scene, options: &PlayerBackOptions) -> Result<PlayerFiles, Error> {
    let parts = player_parts(scene).ok_or_else(|| {
        Error::new(
            "not a Quake III player: no nodes named lower, upper and head, nor meshes on tag_torso and tag_head",
        )
    })?;
    let skin_name = if options.skin.is_empty() {
        "default"
    } else {
        options.skin.as_str()
    };
    let names = super::PLAYER_PARTS;
    let mut files = Vec::with_capacity(7);
    let mut scenes = Vec::with_capacity(3);
    for (i, name) in names.iter().enumerate() {
        let part = part_scene(scene, parts, i);
        let mut bytes =
            to_bytes(&part, &options.back).map_err(|e| Error::new(format!("{name}.md3: {e}")))?;
        if i == 2
            && let Some(whole) = recorded_head(scene, &bytes)
        {
            bytes = whole;
        }
        files.push((format!("{name}.md3"), bytes));
        scenes.push(part);
    }
    let original = scene
        .extras
        .get("player.animation_cfg")
        .and_then(value_bytes);
    let lower = morph_node(scene, parts, 0);
    let upper = morph_node(scene, parts, 1);
    let unchanged = scene.extras.get("player.clips").and_then(Value::as_str)
        == Some(clip_signature(scene, lower, upper).as_str());
    let cfg = match original {
        Some(text) if unchanged => text,
        other => write_cfg(scene, parts, other.as_deref())?,
    };
    files.push(("animation.cfg".to_owned(), cfg));
    let skins = scene.extras.get("player.skins").and_then(Value::as_list);
    for (i, (name, part)) in names.iter().zip(&scenes).enumerate() {
        let original = skins.and_then(|s| s.get(i)).and_then(value_bytes);
        let md3 = files.get(i).map_or(&[][..], |f| f.1.as_slice());
        let text = write_skin(part, md3, original.as_deref(), &options.back.shader_prefix)
            .map_err(|e| Error::new(format!("{name}_{skin_name}.skin: {e}")))?;
        files.push((format!("{name}_{skin_name}.skin"), text));
    }
    Ok(files)
}
