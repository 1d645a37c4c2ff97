//! Clips from `animation.cfg` under the Quake III rules, or the all-frames default.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use idmodel_md3::{AnimId, Animation, AnimationCfg, BodyPart, MAX_ANIMATIONS, Q3Animations};

/// Playback rate of the all-frames clip (MD3 files store no rate; 15 fps is the rate of
/// most Quake III player animations).
pub const DEFAULT_FPS: f32 = 15.0;

/// Longest clip, in keys (the engine shows at most 1024 distinct frames).
pub const MAX_CLIP_KEYS: usize = 4096;

/// Which animations of `animation.cfg` a part plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `lower.md3`: BOTH_* and LEGS_*.
    Legs,
    /// `upper.md3`: BOTH_* and TORSO_* (Team Arena entries only when written in the file).
    Torso,
    /// Anything else: no `animation.cfg` entries apply.
    Other,
}

/// The part name of a model file name: without extension, lower-cased, without a LOD
/// suffix (`lower_1.md3` → `lower`; `_1.md3` stays `_1`). It names the part's skin
/// (`<part>_default.skin`) and decides its [`Role`].
///
/// ```
/// use idmodel_scene::md3::part_name;
/// assert_eq!(part_name("Upper_2.MD3"), "upper");
/// ```
pub fn part_name(file_name: &str) -> String {
    let stem = match file_name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => file_name,
    };
    let stem = stem.to_ascii_lowercase();
    match stem.strip_suffix("_1").or_else(|| stem.strip_suffix("_2")) {
        Some(base) if !base.is_empty() => base.to_owned(),
        _ => stem,
    }
}

impl Role {
    /// The role of a part name (the file name lower-cased, without extension and LOD
    /// suffix): `lower` plays the legs, `upper` the torso.
    ///
    /// ```
    /// use idmodel_scene::md3::Role;
    /// assert_eq!(Role::of("lower"), Role::Legs);
    /// assert_eq!(Role::of("head"), Role::Other);
    /// ```
    pub fn of(part: &str) -> Role {
        match part {
            "lower" => Role::Legs,
            "upper" => Role::Torso,
            _ => Role::Other,
        }
    }

    /// Whether a part of this role plays animation `id` of `q3`. Entries the file did not
    /// write (the Team Arena fill, copies of TORSO_GESTURE) play on no part.
    pub fn plays(self, id: AnimId, q3: &Q3Animations) -> bool {
        let i = id.index();
        // Entries the file did not write (Team Arena fill) are copies of TORSO_GESTURE.
        let written = i >= MAX_ANIMATIONS || i < q3.from_file();
        match (self, id.body_part()) {
            (Role::Legs | Role::Torso, BodyPart::Both) => true,
            (Role::Legs, BodyPart::Legs) => true,
            (Role::Torso, BodyPart::Torso) => written,
            _ => false,
        }
    }
}

/// One animation clip of one part: the frames it shows, one per key.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// The clip's name: the `animNumber_t` name (`LEGS_WALK`) or, for the all-frames
    /// clip, the part name.
    pub name: String,
    /// Frame numbers as the animation names them, in playing order (may be outside the
    /// model: the mesh then shows frame 0, a tag the last frame).
    pub frames: Vec<i64>,
    /// Seconds per key.
    pub step: f32,
    /// The `animation.cfg` entry it comes from (after the Quake III rules); `None` for
    /// the all-frames clip.
    pub source: Option<Animation>,
}

/// What drives the clip, in one line: `frames 90-115 (26), 50 ms a frame, loops the last
/// 26` for an `animation.cfg` entry (with `, reversed` when it plays backwards), `frames
/// 0-19 (20), 15 fps` for the all-frames clip.
impl fmt::Display for Clip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(a) = self.source else {
            let n = self.frames.len();
            return write!(
                f,
                "frames 0-{} ({n}), {DEFAULT_FPS} fps",
                n.saturating_sub(1)
            );
        };
        let last = i64::from(a.first_frame)
            .saturating_add(i64::from(a.num_frames))
            .saturating_sub(1);
        write!(
            f,
            "frames {}-{last} ({}), {} ms a frame",
            a.first_frame, a.num_frames, a.frame_lerp
        )?;
        if a.reversed {
            f.write_str(", reversed")?;
        }
        if a.loop_frames > 0 {
            write!(f, ", loops the last {}", a.loop_frames)?;
        }
        Ok(())
    }
}

impl Clip {
    /// Key times in seconds: `0, step, 2·step, …`, one per frame.
    pub fn times(&self) -> Vec<f32> {
        let mut t = 0.0f32;
        self.frames
            .iter()
            .map(|_| {
                let now = t;
                t += self.step;
                now
            })
            .collect()
    }
}

/// How `animation.cfg` was used for a part's clips.
#[derive(Debug, Clone, PartialEq)]
pub enum CfgUse {
    /// No file was given.
    Missing,
    /// The file is there but does not apply to this part (not lower or upper).
    NotForPart,
    /// Read under the Quake III rules.
    Q3 {
        /// Entries written in the file.
        entries: usize,
        /// How far the legs frames were moved back (`Q3Animations::legs_skip`).
        skip: i32,
    },
    /// Not used, and why (one line).
    Unusable(String),
}

/// The frames of an animation, in playing order, at most [`MAX_CLIP_KEYS`].
pub(crate) fn anim_frames(first: i32, num: i32, reversed: bool) -> Vec<i64> {
    let first = i64::from(first);
    let num = i64::from(num.max(0)).min(i64::try_from(MAX_CLIP_KEYS).unwrap_or(i64::MAX));
    (0..num)
        .map(|k| {
            if reversed {
                first
                    .saturating_add(num)
                    .saturating_sub(1)
                    .saturating_sub(k)
            } else {
                first.saturating_add(k)
            }
        })
        .collect()
}

/// The all-frames clip of a model with `frames` frames, at [`DEFAULT_FPS`].
pub(crate) fn all_frames_clip(name: &str, frames: usize) -> Clip {
    let n = frames.min(MAX_CLIP_KEYS);
    Clip {
        name: name.to_owned(),
        frames: (0..n).map(|f| i64::try_from(f).unwrap_or(0)).collect(),
        step: 1.0 / DEFAULT_FPS,
        source: None,
    }
}

/// The Quake III animations of `animation.cfg` text and the number of entries written,
/// or why they cannot be used: the file is refused, or it has more than
/// [`MAX_ANIMATIONS`] entries (another game's layout, Tremulous for example).
pub fn q3_animations(text: &[u8]) -> Result<(Q3Animations, usize), String> {
    let cfg = AnimationCfg::parse(text).map_err(|e| format!("animation.cfg: {e}"))?;
    let entries = cfg.raw_entries().count();
    if entries > MAX_ANIMATIONS {
        return Err(format!(
            "animation.cfg has {entries} entries, more than Quake III's {MAX_ANIMATIONS}: another game's layout"
        ));
    }
    let q3 = cfg.q3().map_err(|e| format!("animation.cfg: {e}"))?;
    Ok((q3, entries))
}

/// The clips `role` plays from `q3`, in `animNumber_t` order. Key `k` shows the `k`-th
/// frame of the range and lasts the engine's `frameLerp` ms; a frame time of 0 ms (fps
/// above 1000) freezes the animation on its first frame, as in the engine.
pub fn cfg_clips(q3: &Q3Animations, role: Role) -> Vec<Clip> {
    q3.iter()
        .filter(|(id, a)| role.plays(*id, q3) && a.num_frames > 0)
        .map(|(id, a)| {
            let lerp = u16::try_from(a.frame_lerp.clamp(0, 60_000)).unwrap_or(0);
            // A frame time of 0 ms (fps above 1000) freezes the animation in the engine.
            let frames = if lerp == 0 {
                anim_frames(a.first_frame, 1, a.reversed)
            } else {
                anim_frames(a.first_frame, a.num_frames, a.reversed)
            };
            Clip {
                name: id.name().to_owned(),
                frames,
                step: f32::from(lerp.max(1)) / 1000.0,
                source: Some(*a),
            }
        })
        .collect()
}

/// The clips of a single model file whose part name is `part` and which has `frames`
/// frames: from `animation_cfg` (the file's bytes) when it applies to the part, else
/// one clip of all frames named after the part (`all` for an empty name), or none for
/// a model of one frame. The second value says how the file was used.
///
/// ```
/// use idmodel_scene::md3::{CfgUse, clips};
/// let (c, how) = clips("lower", None, 10);
/// assert_eq!((c.len(), c[0].name.as_str(), how), (1, "lower", CfgUse::Missing));
/// ```
pub fn clips(part: &str, animation_cfg: Option<&[u8]>, frames: usize) -> (Vec<Clip>, CfgUse) {
    let role = Role::of(part);
    let cfg = match animation_cfg {
        None => CfgUse::Missing,
        Some(_) if role == Role::Other => CfgUse::NotForPart,
        Some(text) => match q3_animations(text) {
            Ok((q3, entries)) => {
                let clips = cfg_clips(&q3, role);
                if !clips.is_empty() {
                    let skip = q3.legs_skip();
                    return (clips, CfgUse::Q3 { entries, skip });
                }
                CfgUse::Unusable("animation.cfg has no animation for this part".to_owned())
            }
            Err(e) => CfgUse::Unusable(e),
        },
    };
    let clips = if frames > 1 {
        vec![all_frames_clip(
            if part.is_empty() { "all" } else { part },
            frames,
        )]
    } else {
        Vec::new()
    };
    (clips, cfg)
}

/// The clips of a player: the cfg's LEGS_*, TORSO_* and BOTH_* animations as
/// `(clip, plays on lower, plays on upper)`, or one all-frames clip per animated part
/// (`lower` with `lower` frames, `upper` with `upper` frames).
///
/// ```
/// use idmodel_scene::md3::player_clips;
/// let clips = player_clips(None, 10, 1);
/// assert_eq!((clips[0].0.name.as_str(), clips[0].1, clips[0].2), ("lower", true, false));
/// ```
pub fn player_clips(
    animation_cfg: Option<&[u8]>,
    lower: usize,
    upper: usize,
) -> Vec<(Clip, bool, bool)> {
    if let Some(Ok((q3, _))) = animation_cfg.map(q3_animations) {
        let legs = cfg_clips(&q3, Role::Legs);
        let torso = cfg_clips(&q3, Role::Torso);
        let mut out: Vec<(Clip, bool, bool)> = Vec::new();
        for c in legs {
            let both = torso.iter().any(|t| t.name == c.name);
            out.push((c, true, both));
        }
        for c in torso {
            if !out.iter().any(|(o, _, _)| o.name == c.name) {
                out.push((c, false, true));
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    let mut out = Vec::new();
    if lower > 1 {
        out.push((all_frames_clip("lower", lower), true, false));
    }
    if upper > 1 {
        out.push((all_frames_clip("upper", upper), false, true));
    }
    out
}

/// The frame the mesh shows for an animation frame: out of range shows frame 0.
pub(crate) fn mesh_frame(f: i64, frames: usize) -> usize {
    usize::try_from(f).ok().filter(|&f| f < frames).unwrap_or(0)
}

/// The frame a tag is read from: clamped to the last frame (`R_GetTag`).
pub(crate) fn tag_frame(f: i64, frames: usize) -> usize {
    usize::try_from(f.max(0))
        .unwrap_or(usize::MAX)
        .min(frames.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn q3_clips_follow_the_engine_rules() {
        let mut text = String::from("sex f\n");
        for i in 0..25 {
            // BOTH 0-5, TORSO 6-12, LEGS 13-24 written on one timeline.
            let first = if i >= 13 { 100 + 10 * i } else { 10 * i };
            let num = if i == 14 { -3 } else { 3 };
            text += &format!("{first} {num} 0 {}\n", if i == 22 { 2000 } else { 20 });
        }
        let (q3, n) = q3_animations(text.as_bytes()).unwrap();
        assert_eq!(n, 25);
        let legs = cfg_clips(&q3, Role::Legs);
        let torso = cfg_clips(&q3, Role::Torso);
        let names = |c: &[Clip]| c.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        // 6 BOTH + 12 LEGS + LEGS_BACKCR/LEGS_BACKWALK.
        assert_eq!(legs.len(), 20, "{:?}", names(&legs));
        // 6 BOTH + 7 TORSO; the Team Arena copies are not written, so not clips.
        assert_eq!(torso.len(), 13, "{:?}", names(&torso));
        assert!(names(&torso).iter().all(|n| !n.starts_with("LEGS")));
        // LEGS_WALKCR (entry 13) written 230, TORSO_GESTURE 60: skip 170.
        let walkcr = legs.iter().find(|c| c.name == "LEGS_WALKCR").unwrap();
        assert_eq!(walkcr.frames, vec![60, 61, 62]);
        assert!((walkcr.step - 0.05).abs() < 1e-6);
        let walk = legs.iter().find(|c| c.name == "LEGS_WALK").unwrap();
        assert_eq!(walk.frames, vec![72, 71, 70], "reversed");
        let backwalk = legs.iter().find(|c| c.name == "LEGS_BACKWALK").unwrap();
        assert_eq!(backwalk.frames, vec![72, 71, 70]);
        // 2000 fps: frame time 0, frozen on its first frame.
        let idle = legs.iter().find(|c| c.name == "LEGS_IDLE").unwrap();
        assert_eq!(idle.frames.len(), 1);
        // Too many entries: not Quake III's layout.
        let mut more = text.clone();
        for _ in 0..10 {
            more += "1 1 0 10\n";
        }
        assert!(
            q3_animations(more.as_bytes())
                .unwrap_err()
                .contains("35 entries")
        );
        assert!(q3_animations(b"0 1 0 10").is_err());
    }

    #[test]
    fn frames_resolve_as_the_engine_draws_them() {
        assert_eq!(mesh_frame(3, 5), 3);
        assert_eq!(mesh_frame(5, 5), 0);
        assert_eq!(mesh_frame(-1, 5), 0);
        assert_eq!(tag_frame(9, 5), 4);
        assert_eq!(tag_frame(-3, 5), 0);
        assert_eq!(anim_frames(10, 3, true), vec![12, 11, 10]);
        assert_eq!(anim_frames(0, i32::MAX, false).len(), MAX_CLIP_KEYS);
    }

    /// 25 BOTH/TORSO/LEGS entries of three frames each, 20 fps.
    fn cfg_text() -> String {
        let mut text = String::new();
        for i in 0..25 {
            text += &format!("{} 3 0 20\n", 3 * i);
        }
        text
    }

    #[test]
    fn roles_decide_which_entries_a_part_plays() {
        let text = cfg_text();
        let (legs, how) = clips("lower", Some(text.as_bytes()), 100);
        assert!(matches!(how, CfgUse::Q3 { entries: 25, .. }), "{how:?}");
        assert!(legs.iter().all(|c| !c.name.starts_with("TORSO")));
        assert!(legs.iter().any(|c| c.name == "LEGS_WALK"));
        let (torso, _) = clips("upper", Some(text.as_bytes()), 100);
        assert!(torso.iter().all(|c| !c.name.starts_with("LEGS")));
        assert!(torso.iter().any(|c| c.name == "TORSO_GESTURE"));
        // The head plays nothing of animation.cfg: all frames instead.
        let (head, how) = clips("head", Some(text.as_bytes()), 4);
        assert_eq!(how, CfgUse::NotForPart);
        assert_eq!(head.len(), 1);
        assert_eq!(head[0].frames, vec![0, 1, 2, 3]);
        assert!((head[0].step - 1.0 / DEFAULT_FPS).abs() < 1e-9);
        assert_eq!(head[0].times()[2], 2.0 * head[0].step);
        // One frame: nothing to play.
        assert!(clips("", None, 1).0.is_empty());
        assert_eq!(clips("", None, 2).0[0].name, "all");
        // A refused file falls back to all frames and says why.
        let (c, how) = clips("lower", Some(b"bogus text"), 5);
        assert_eq!(c.len(), 1);
        match how {
            CfgUse::Unusable(why) => assert!(why.starts_with("animation.cfg"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn names_and_descriptions() {
        assert_eq!(part_name("lower_1.md3"), "lower");
        assert_eq!(part_name("Upper.MD3"), "upper");
        assert_eq!(part_name("_1.md3"), "_1");
        assert_eq!(part_name("a.b_2.md3"), "a.b");
        assert_eq!(part_name("head"), "head");
        let (c, _) = clips("head", None, 20);
        assert_eq!(c[0].to_string(), "frames 0-19 (20), 15 fps");
        let mut text = String::new();
        for i in 0..25 {
            text += &format!("{} {} 2 {}\n", 3 * i, if i == 0 { -3 } else { 3 }, 20);
        }
        let (c, _) = clips("lower", Some(text.as_bytes()), 100);
        assert_eq!(
            c[0].to_string(),
            "frames 0-2 (3), 50 ms a frame, reversed, loops the last 2"
        );
    }

    #[test]
    fn player_clips_share_the_both_animations() {
        let text = cfg_text();
        let clips = player_clips(Some(text.as_bytes()), 100, 100);
        let both = clips.iter().find(|c| c.0.name == "BOTH_DEATH1").unwrap();
        assert!(both.1 && both.2);
        let legs = clips.iter().find(|c| c.0.name == "LEGS_WALK").unwrap();
        assert!(legs.1 && !legs.2);
        let torso = clips.iter().find(|c| c.0.name == "TORSO_ATTACK").unwrap();
        assert!(!torso.1 && torso.2);
        // No names twice.
        let mut names: Vec<String> = clips.iter().map(|c| c.0.name.to_string()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), clips.len());
        // Without a file: one clip per animated part.
        let fallback = player_clips(None, 5, 1);
        assert_eq!(fallback.len(), 1);
        assert_eq!(
            (fallback[0].0.name.as_str(), fallback[0].1, fallback[0].2),
            ("lower", true, false)
        );
    }
}
