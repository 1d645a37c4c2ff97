//! A Quake III player: `lower.md3`, `upper.md3` and `head.md3` assembled on their tags.

use alloc::format;
use alloc::vec::Vec;

use idmodel_md3::{Md3, Orientation, Skin, position_on_tag};

use super::clips::{Clip, player_clips};
use super::parts::{
    Materials, PartFrame, PartNodes, add_part, check_budget, frame_of, frame_primitives,
    normal_decode, part_channels, rest_part, sane, tag_index,
};
use super::{frame_scene, select_clips, usable};
use crate::{Animation, Error, Node, Options, Scene};

/// The three parts of a Quake III player, in attachment order (their file names
/// without `.md3`).
pub const PLAYER_PARTS: [&str; 3] = ["lower", "upper", "head"];

/// The three models of a Quake III player folder and its side files, parsed or read by
/// the caller.
#[derive(Debug, Clone, Copy)]
pub struct Player<'a> {
    /// Name of the scene and of its root node (the folder's name, e.g. `sarge`).
    pub name: &'a str,
    /// `lower.md3`: the legs, at the origin; plays BOTH_* and LEGS_*.
    pub lower: Md3<'a>,
    /// `upper.md3`: the torso, on lower's `tag_torso`; plays BOTH_* and TORSO_*.
    pub upper: Md3<'a>,
    /// `head.md3`: on upper's `tag_head`, always frame 0.
    pub head: Md3<'a>,
    /// The bytes of `animation.cfg`, if the folder has one.
    pub animation_cfg: Option<&'a [u8]>,
    /// `lower_default.skin`, `upper_default.skin`, `head_default.skin` (or another skin's
    /// files), parsed. A skin without surface entries is not used, as in the engine.
    pub skins: [Option<Skin<'a>>; 3],
}

impl Player<'_> {
    /// Checks `frame` against both animated parts (the range error names the part:
    /// `lower.md3: frame 9 is out of range: …`).
    fn frame(&self, frame: Option<usize>) -> Result<usize, Error> {
        frame_of(&self.lower, frame).map_err(|e| Error::new(format!("lower.md3: {e}")))?;
        frame_of(&self.upper, frame).map_err(|e| Error::new(format!("upper.md3: {e}")))
    }

    fn skin(&self, i: usize) -> Option<&Skin<'_>> {
        usable(self.skins.get(i).and_then(Option::as_ref))
    }
}

/// [`player_scene`](super::player_scene) without the extras of the way back.
pub(crate) fn player_scene_unrecorded(
    player: &Player<'_>,
    options: &Options,
) -> Result<Scene, Error> {
    let (lower, upper, head) = (&player.lower, &player.upper, &player.head);
    let base = player.frame(options.frame)?;
    let animated = options.frame.is_none();
    let clips = if animated {
        select_clips(
            player_clips(player.animation_cfg, lower.num_frames(), upper.num_frames()),
            options,
            |c| &c.0,
        )?
    } else {
        Vec::new()
    };
    let lower_clips: Vec<Clip> = clips.iter().filter(|c| c.1).map(|c| c.0.clone()).collect();
    let upper_clips: Vec<Clip> = clips.iter().filter(|c| c.2).map(|c| c.0.clone()).collect();
    if animated {
        check_budget(lower, &lower_clips, "lower.md3", options)?;
        check_budget(upper, &upper_clips, "upper.md3", options)?;
    }
    let mut scene = Scene {
        name: player.name.into(),
        ..Scene::default()
    };
    let mut materials = Materials::default();
    // The root (node 0) holds lower, which add_part puts at node 1.
    let mut root = Node::new(player.name);
    root.children.push(1);
    scene.nodes.push(root);
    let legs_animated = animated && lower.num_frames() > 1;
    let torso_animated = animated && upper.num_frames() > 1;
    let lower_part = add_part(
        &mut scene,
        &mut materials,
        lower,
        "lower",
        player.skin(0),
        (base, legs_animated),
        normal_decode(options),
    );
    let upper_part = add_part(
        &mut scene,
        &mut materials,
        upper,
        "upper",
        player.skin(1),
        (base, torso_animated),
        normal_decode(options),
    );
    // The head is always drawn at frame 0.
    let head_part = add_part(
        &mut scene,
        &mut materials,
        head,
        "head",
        player.skin(2),
        (0, false),
        normal_decode(options),
    );
    // Animated, the parts rest in the standing idle (or the chosen clip's first frame),
    // not in frame 0 (a death): the base stays frame 0, the rest weights pick the frame.
    if animated {
        let (legs, torso) = pose(player, options)?;
        if legs_animated {
            rest_part(&mut scene, lower, &lower_part, legs);
        }
        if torso_animated {
            rest_part(&mut scene, upper, &upper_part, torso);
        }
    }
    // A missing tag places the child at the parent's origin (identity), as the engine.
    let attach = |parent: &PartNodes, md3: &Md3<'_>, tag: &str| {
        tag_index(md3, tag)
            .and_then(|t| parent.tags.get(t).copied())
            .unwrap_or(parent.node)
    };
    let torso_on = attach(&lower_part, lower, "tag_torso");
    let head_on = attach(&upper_part, upper, "tag_head");
    if let Some(n) = scene.nodes.get_mut(torso_on) {
        n.children.push(upper_part.node);
    }
    if let Some(n) = scene.nodes.get_mut(head_on) {
        n.children.push(head_part.node);
    }
    for (clip, on_lower, on_upper) in &clips {
        let times = clip.times();
        let mut channels = Vec::new();
        if *on_lower {
            channels.extend(part_channels(lower, &lower_part, &clip.frames, &times));
        }
        if *on_upper {
            channels.extend(part_channels(upper, &upper_part, &clip.frames, &times));
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

/// One posed frame of the player, static: lower and upper at the frames [`pose`] picks
/// (`options.frame`, else the first frame of `options.clip`, else a standing idle), head
/// frame 0, the parts moved onto their tags as `CG_PositionEntityOnTag` places them, all
/// in one mesh on one node (see [`frame`](super::frame)).
///
/// Reads `options.frame` and `options.clip`.
pub fn player_frame(player: &Player<'_>, options: &Options) -> Result<Scene, Error> {
    let (lower, upper, head) = (&player.lower, &player.upper, &player.head);
    let (legs, torso_frame) = pose(player, options)?;
    let mut materials = Materials::default();
    let torso = lower
        .lerp_tag("tag_torso", legs.tag, legs.tag, 0.0)
        .map_or(Orientation::IDENTITY, sane);
    let torso = position_on_tag(&Orientation::IDENTITY, &torso);
    let head_tag = upper
        .lerp_tag("tag_head", torso_frame.tag, torso_frame.tag, 0.0)
        .map_or(Orientation::IDENTITY, sane);
    let head_at = position_on_tag(&torso, &head_tag);
    let mut primitives = Vec::new();
    for (i, (md3, at, f)) in [
        (lower, Orientation::IDENTITY, legs.mesh),
        (upper, torso, torso_frame.mesh),
        (head, head_at, 0),
    ]
    .into_iter()
    .enumerate()
    {
        // Even the identity goes through the placement, as it always has: it turns
        // −0.0 into 0.0, and the outputs stay the same bits.
        primitives.extend(frame_primitives(
            md3,
            player.skin(i),
            f,
            Some(&at),
            &mut materials,
        ));
    }
    Ok(frame_scene(player.name, primitives, materials.0))
}

/// The clip names of the standing idle a player shows by default (Quake III's
/// `TORSO_STAND` for upper, `LEGS_IDLE` for lower).
pub const IDLE_CLIPS: [&str; 2] = ["LEGS_IDLE", "TORSO_STAND"];

/// The frames of lower and upper for one posed frame of the player: `options.frame` for
/// both; else the first frame of the clip `options.clip` names on the parts it plays on
/// (an error names the clips when none has that name); else, and for a part the clip
/// does not play on, the first frame of `LEGS_IDLE` (lower) and `TORSO_STAND` (upper)
/// from `animation.cfg`, or frame 0 without a usable Quake III `animation.cfg`.
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?;
/// let part = Md3::parse(&bytes)?;
/// let player = md3::Player {
///     name: "p", lower: part, upper: part, head: part, animation_cfg: None, skins: [None; 3],
/// };
/// let (legs, torso) = md3::pose(&player, &Options::default())?;
/// assert_eq!((legs.mesh, torso.mesh), (0, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pose(player: &Player<'_>, options: &Options) -> Result<(PartFrame, PartFrame), Error> {
    let (lower, upper) = (&player.lower, &player.upper);
    if options.frame.is_some() {
        let f = player.frame(options.frame)?;
        let at = PartFrame { mesh: f, tag: f };
        return Ok((at, at));
    }
    let clips = player_clips(player.animation_cfg, lower.num_frames(), upper.num_frames());
    let first = |name: &str, on_lower: bool| {
        clips
            .iter()
            .find(|c| c.0.name == name && if on_lower { c.1 } else { c.2 })
            .and_then(|c| c.0.frames.first().copied())
    };
    let [idle_legs, idle_torso] = IDLE_CLIPS;
    let mut legs = first(idle_legs, true).unwrap_or(0);
    let mut torso = first(idle_torso, false).unwrap_or(0);
    if options.clip.is_some() {
        let chosen = select_clips(clips.clone(), options, |c| &c.0)?;
        if let Some((clip, on_lower, on_upper)) = chosen.first() {
            let f = clip.frames.first().copied().unwrap_or(0);
            if *on_lower {
                legs = f;
            }
            if *on_upper {
                torso = f;
            }
        }
    }
    Ok((PartFrame::at(legs, lower), PartFrame::at(torso, upper)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChannelValues;
    use crate::md3::player_scene;
    use alloc::string::String;
    use alloc::vec;
    use idmodel_md3::{Model, TagInfo, write};

    /// The example model with its one tag renamed and moved to `origin`.
    fn part(tag: &[u8], origin: [f32; 3]) -> Vec<u8> {
        let mut m = Model::example();
        for frame in &mut m.tags {
            frame[0] = TagInfo {
                name: tag.to_vec(),
                origin,
                axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            };
        }
        write(&m).unwrap()
    }

    fn files() -> [Vec<u8>; 3] {
        [
            part(b"tag_torso", [0.0, 0.0, 24.0]),
            part(b"tag_head", [0.0, 0.0, 16.0]),
            part(b"tag_unused", [0.0; 3]),
        ]
    }

    /// The default options but for `--frame`.
    fn at_frame(frame: usize) -> Options {
        Options {
            frame: Some(frame),
            ..Options::default()
        }
    }

    /// The default options but for `--clip`.
    fn clip(name: &str) -> Options {
        Options {
            clip: Some(name.into()),
            ..Options::default()
        }
    }

    fn player(files: &[Vec<u8>; 3]) -> Player<'_> {
        Player {
            name: "sarge",
            lower: Md3::parse(&files[0]).unwrap(),
            upper: Md3::parse(&files[1]).unwrap(),
            head: Md3::parse(&files[2]).unwrap(),
            animation_cfg: None,
            skins: [None; 3],
        }
    }

    #[test]
    fn parts_hang_on_their_tags() {
        let files = files();
        let scene = player_scene(&player(&files), &Options::default()).unwrap();
        let find = |name: &str| scene.nodes.iter().position(|n| n.name == name).unwrap();
        let (root, lower, upper, head) =
            (find("sarge"), find("lower"), find("upper"), find("head"));
        assert_eq!(scene.nodes[root].children, vec![lower]);
        let torso = find("tag_torso");
        assert!(scene.nodes[lower].children.contains(&torso));
        assert_eq!(scene.nodes[torso].translation, [0.0, 0.0, 24.0]);
        assert!(scene.nodes[torso].children.contains(&upper));
        let tag_head = find("tag_head");
        assert!(scene.nodes[upper].children.contains(&tag_head));
        assert!(scene.nodes[tag_head].children.contains(&head));
        // Without animation.cfg: one all-frames clip per animated part.
        let names: Vec<&str> = scene.animations.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["lower", "upper"]);
        // The lower clip moves lower's mesh and tags, never upper's.
        let lower_clip = &scene.animations[0];
        assert!(
            lower_clip
                .channels
                .iter()
                .all(|c| c.node == lower || c.node == torso)
        );
        assert!(
            lower_clip
                .channels
                .iter()
                .any(|c| matches!(c.values, ChannelValues::SparseWeights { .. }))
        );
        // The head is not animated: no morph targets.
        let head_mesh = scene.nodes[head].mesh.unwrap();
        assert!(scene.meshes[head_mesh].primitives[0].targets.is_empty());
    }

    #[test]
    fn a_missing_tag_places_the_part_at_the_parent() {
        let mut files = files();
        files[0] = part(b"tag_elsewhere", [1.0, 2.0, 3.0]);
        let scene = player_scene(&player(&files), &Options::default()).unwrap();
        let find = |name: &str| scene.nodes.iter().position(|n| n.name == name).unwrap();
        assert!(scene.nodes[find("lower")].children.contains(&find("upper")));
    }

    #[test]
    fn one_frame_is_posed_on_the_tags() {
        let files = files();
        let p = player(&files);
        let scene = player_scene(&p, &at_frame(1)).unwrap();
        assert!(scene.animations.is_empty());
        assert!(
            scene
                .meshes
                .iter()
                .all(|m| m.primitives[0].targets.is_empty())
        );
        let posed = player_frame(&p, &at_frame(1)).unwrap();
        assert_eq!((posed.meshes.len(), posed.nodes.len()), (1, 1));
        assert_eq!(posed.nodes[0].mesh, Some(0));
        assert!(posed.animations.is_empty());
        // Two surfaces per part; upper is raised by tag_torso, head by both tags.
        let prims = &posed.meshes[0].primitives;
        assert_eq!(prims.len(), 6);
        let lowest = |p: &crate::Primitive| {
            p.positions
                .iter()
                .map(|v| v[2])
                .fold(f32::INFINITY, f32::min)
        };
        // Example body: frame 1 is lifted by 2; the head is frame 0.
        assert_eq!(lowest(&prims[0]), 2.0);
        assert_eq!(lowest(&prims[2]), 26.0);
        assert_eq!(lowest(&prims[4]), 40.0);
        // Materials from the surfaces' shader names, shared by the three parts.
        assert_eq!(posed.materials.len(), 2);
    }

    /// 25 entries: BOTH_* (0-5) at frame 0, TORSO_* (6-12) at frame 1 (TORSO_STAND, entry
    /// 11, at frame 2), LEGS_* (13-24) written at 101, moved back to 1 (LEGS_IDLE, entry
    /// 22, at 102 → frame 2).
    fn cfg() -> String {
        let mut text = String::new();
        for i in 0..25 {
            let first = match i {
                0..=5 => 0,
                11 => 2,
                6..=12 => 1,
                22 => 102,
                _ => 101,
            };
            text += &format!("{first} 1 0 10\n");
        }
        text
    }

    #[test]
    fn the_default_pose_is_a_standing_idle_and_a_clip_chooses_another() {
        let files = files();
        let text = cfg();
        let mut p = player(&files);
        // Without animation.cfg: frame 0 of both.
        let zero = PartFrame { mesh: 0, tag: 0 };
        assert_eq!(pose(&p, &Options::default()).unwrap(), (zero, zero));
        p.animation_cfg = Some(text.as_bytes());
        let two = PartFrame { mesh: 2, tag: 2 };
        let one = PartFrame { mesh: 1, tag: 1 };
        assert_eq!(pose(&p, &Options::default()).unwrap(), (two, two));
        // A LEGS clip moves only the legs; a BOTH clip both; --frame wins.
        assert_eq!(pose(&p, &clip("LEGS_WALK")).unwrap(), (one, two));
        assert_eq!(pose(&p, &clip("TORSO_ATTACK")).unwrap(), (two, one));
        assert_eq!(pose(&p, &clip("BOTH_DEATH1")).unwrap(), (zero, zero));
        let frame_one = Options {
            frame: Some(1),
            clip: Some("LEGS_WALK".into()),
            ..Options::default()
        };
        assert_eq!(pose(&p, &frame_one).unwrap(), (one, one));
        assert!(
            pose(&p, &clip("NOPE"))
                .unwrap_err()
                .message()
                .starts_with("no clip named 'NOPE'")
        );
        // The posed frame follows: frame 2 of the example is lifted by 4 (2 a frame).
        let posed = player_frame(&p, &Options::default()).unwrap();
        let lowest = |p: &crate::Primitive| {
            p.positions
                .iter()
                .map(|v| v[2])
                .fold(f32::INFINITY, f32::min)
        };
        assert_eq!(lowest(&posed.meshes[0].primitives[0]), 4.0);
    }

    #[test]
    fn the_animated_player_rests_in_the_standing_idle() {
        // Lower's tag_torso rises one unit a frame, so the frames can be told apart.
        let mut m = Model::example();
        let mut z = 24.0;
        for frame in &mut m.tags {
            z += 1.0;
            frame[0] = TagInfo {
                name: b"tag_torso".to_vec(),
                origin: [0.0, 0.0, z],
                axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            };
        }
        let mut files = files();
        files[0] = write(&m).unwrap();
        let text = cfg();
        let mut p = player(&files);
        let node =
            |s: &Scene, name: &str| s.nodes.iter().find(|n| n.name == name).cloned().unwrap();
        // Without animation.cfg the rest is frame 0: no rest weights.
        let plain = player_scene(&p, &Options::default()).unwrap();
        assert!(node(&plain, "lower").weights.is_empty());
        p.animation_cfg = Some(text.as_bytes());
        let scene = player_scene(&p, &Options::default()).unwrap();
        // LEGS_IDLE and TORSO_STAND start at frame 2: target 1 of each animated part.
        for part in ["lower", "upper"] {
            let n = node(&scene, part);
            let targets = scene.meshes[n.mesh.unwrap()].primitives[0].targets.len();
            let mut want = vec![0.0; targets];
            want[1] = 1.0;
            assert_eq!(n.weights, want, "{part}");
        }
        // The tags rest at frame 2 too: lower's tag_torso is where frame 2 puts it.
        let lower = Md3::parse(&files[0]).unwrap();
        let at = |f| lower.lerp_tag("tag_torso", f, f, 0.0).unwrap().origin;
        let want = at(2);
        assert_ne!(want, at(0));
        let got = scene
            .nodes
            .iter()
            .filter(|n| n.name == "tag_torso")
            .map(|n| n.translation)
            .next()
            .unwrap();
        assert_eq!(got, want);
        // A clip rests at its own first frame (LEGS_WALK: frame 1, target 0).
        let walk = clip("LEGS_WALK");
        let scene = player_scene(&p, &walk).unwrap();
        assert_eq!(node(&scene, "lower").weights.first(), Some(&1.0));
    }

    #[test]
    fn a_frame_past_either_part_is_refused_naming_it() {
        let files = files();
        let p = player(&files);
        let options = at_frame(3);
        let e = player_frame(&p, &options).unwrap_err();
        assert_eq!(
            e.message(),
            "lower.md3: frame 3 is out of range: the model has 3 frames (0 to 2)"
        );
        assert_eq!(player_scene(&p, &options).unwrap_err(), e);
    }

    #[test]
    fn the_clip_option_picks_one_clip() {
        let files = files();
        let p = player(&files);
        let options = clip("upper");
        let scene = player_scene(&p, &options).unwrap();
        assert_eq!(scene.animations.len(), 1);
        assert_eq!(scene.animations[0].name, "upper");
        let e = player_scene(&p, &clip("LEGS_WALK")).unwrap_err();
        assert_eq!(
            e.message(),
            "no clip named 'LEGS_WALK' (the clips: lower, upper)"
        );
    }
}
