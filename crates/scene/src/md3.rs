//! Quake III MD3 → [`Scene`], with the `.skin` and `animation.cfg` side files that sit
//! next to a player model (the caller reads them; this module does no I/O).
//!
//! A Quake III player folder's three files to a GLB, without the command:
//!
//! ```
//! use idmodel_md3::{Md3, Model, Skin, write};
//! use idmodel_scene::{Options, md3};
//! # let part = |tag: &[u8]| { let mut m = Model::example();
//! #     for f in &mut m.tags { f[0].name = tag.to_vec(); } write(&m).unwrap() };
//! # let (lower, upper, head) = (part(b"tag_torso"), part(b"tag_head"), part(b"tag_x"));
//! // let lower = std::fs::read("models/players/sarge/lower.md3")?; and so on.
//! let skin = b"body,models/players/sarge/band.tga\n";
//! let player = md3::Player {
//!     name: "sarge",
//!     lower: Md3::parse(&lower)?,
//!     upper: Md3::parse(&upper)?,
//!     head: Md3::parse(&head)?,
//!     animation_cfg: None, // Some(&bytes of animation.cfg)
//!     skins: [Skin::parse(skin).ok(), None, None],
//! };
//! let scene = md3::player_scene(&player, &Options::default())?;
//! let glb = idmodel_gltf::to_glb(&scene, &Default::default())?;
//! assert_eq!(&glb[..4], b"glTF");
//! assert_eq!(scene.materials[0].name, "models/players/sarge/band.tga");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What the scenes hold:
//!
//! - **Surfaces**: one mesh primitive per surface, with the surface's own vertices,
//!   triangles and texture coordinates (`[0, 0]` the top-left of the image, as stored).
//!   Positions are `xyz / 64`; normals are decoded **engine-exact** (Quake III's
//!   1023-step sine table, `NormalDecode::Exact`). A surface without vertices or
//!   triangles is left out. Non-finite texture coordinates are written as 0.
//! - **Frames**: frame 0 is the base; every other frame is a morph target holding the
//!   displacements of POSITION and NORMAL relative to frame 0, named after the frame.
//!   A surface with fewer frames than the header repeats its frame 0 for the missing
//!   ones (the engine would read past its data).
//! - **Animations**: with an `animation.cfg` for `lower.md3` or `upper.md3` (or their
//!   `_1`/`_2` LODs: [`Sidecars::part`]), one clip per animation that plays on that model
//!   under the Quake III rules (`AnimationCfg::q3`: entry order, leg-frame adjustment,
//!   Team Arena fill, reversed entries; [`Role::plays`]): BOTH_* and LEGS_* (with the
//!   derived LEGS_BACKCR/LEGS_BACKWALK) on lower, BOTH_* and TORSO_* (Team Arena entries
//!   only when written in the file) on upper. Key `k` shows the `k`-th frame of the
//!   range and lasts the engine's `frameLerp = (int)(1000 / fps)` ms; keys are LINEAR
//!   (the engine lerps between frames); loop frames are not expressed. A frame outside
//!   the model shows frame 0, as the renderer does. A file with more than 31 entries is
//!   not Quake III's layout (Tremulous, for example): it, a refused file, any other
//!   model, or no file at all gives **one clip of all frames at 15 fps**
//!   ([`DEFAULT_FPS`]), the documented default (MD3 stores no rate; 15 fps is the rate
//!   of most Quake III player animations). A clip is at most [`MAX_CLIP_KEYS`] keys long.
//! - **Materials**: from the part's skin (`<part>_default.skin` next to the model, read
//!   and parsed by the caller: [`Sidecars::skin`]), matched as the engine does
//!   (lower-cased, `_x`-cut surface names, first entry wins; a surface the skin does not
//!   name, or an empty shader, gets no material: the engine's default shader). Without a
//!   usable skin (one with surface entries), each surface's first shader name. One
//!   material per distinct name, its image URI the name as a relative path
//!   ([`shader_uri`]: `\` → `/`, other characters outside `A-Z a-z 0-9 - . _ ~ /`
//!   percent-encoded) with `.tga` added when the name has no extension (the image
//!   Quake III looks for). Images are not read.
//! - **Tags**: one child node of the model node per tag, named after it, placed at the
//!   tag's origin and rotated so its local X, Y, Z axes are the tag's axis rows (forward,
//!   left, up). Axis rows are made orthonormal first (Gram–Schmidt from forward, up
//!   rebuilt as forward × left; a mirrored or degenerate axis cannot be a glTF rotation),
//!   then converted to a quaternion (Shepperd's method, `idmodel_core::vec::quat_from_axes`)
//!   in file axes; the exporter converts it with the same axis permutation as everything
//!   else. Every clip animates the tags with translation and rotation keys (rotation
//!   signs kept continuous); a frame past the end uses the last frame, as `R_GetTag`
//!   does. Non-finite tag values become 0 / identity.
//! - **Player models** ([`Player`], [`player_scene`]): `lower.md3`, `upper.md3` and
//!   `head.md3` become one model: upper hangs under lower's `tag_torso` node and head
//!   under upper's `tag_head` node (so the parts follow the tags frame by frame, as
//!   `CG_PositionRotatedEntityOnTag` places them with no extra player angles); LEGS_*
//!   clips drive lower and its tags, TORSO_* clips drive upper and its tags, BOTH_* clips
//!   both; the head is always frame 0. Each part uses its own skin. Without a usable
//!   Quake III `animation.cfg`, one clip of all frames per part (`lower`, `upper`).
//!   What glTF cannot say about the folder (each part's `md3.*` extras, the
//!   `animation.cfg` and skin texts, a fingerprint of the clips) is kept under
//!   `player.*` extras, so [`player_files`] writes the folder back byte for byte.
//! - **`Options::frame`**: that frame alone is the base; no morph targets, no animation
//!   (for a player, frame N of both lower and upper).
//! - **Tag-only models** (no surfaces, e.g. hand positions for a weapon): the scene holds
//!   only the tag nodes; [`frame`] (for `.obj` and pictures) draws each tag as three thin
//!   pyramids along its forward, left and up axes, [`MARKER_LENGTH`] units long.
//! - **Size**: an animated scene whose morph targets and keys would take more than
//!   [`Options::max_bytes`](crate::Options::max_bytes) (default [`MAX_MORPH_BYTES`]) is
//!   refused before it is built, with a hint to raise the limit or export one frame.
//! - Everything is in file axes and the file's clockwise winding; the exporter converts.

mod back;
mod clips;
mod parts;
mod player;
mod player_back;
mod tag_frames;

pub use back::{BackOptions, Limits, MAX_SAMPLED_FRAMES, from_scene, record, record_for, to_bytes};

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use idmodel_md3::{Md3, Skin};

pub use crate::scene::{TAG_FRAMES_PREFIX, editor_name, is_tag_frames};
pub use clips::{
    CfgUse, Clip, DEFAULT_FPS, MAX_CLIP_KEYS, Role, cfg_clips, clips, part_name, player_clips,
    q3_animations,
};
pub use parts::{MARKER_LENGTH, MAX_MORPH_BYTES, PartFrame, shader_uri};
pub use player::{IDLE_CLIPS, PLAYER_PARTS, Player, player_frame, pose};
pub use player_back::{
    PART_EXTRAS, PlayerBackOptions, PlayerFiles, is_player, part_scene, player_files, player_parts,
};
pub use tag_frames::{AGREE_AXIS, AGREE_ORIGIN, SCALE as TAG_FRAMES_SCALE, tag_frames_trs};

use crate::{Animation, Error, Material, Mesh, Node, Options, Primitive, Scene};
use parts::{Materials, add_part, check_budget, frame_of, frame_primitives, part_channels};

/// The side files of a single MD3, read by the caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sidecars<'a> {
    /// The part name: the model's file name without extension, lower-cased, without a
    /// LOD suffix (`lower_1.md3` → `lower`). It decides which `animation.cfg` entries
    /// apply ([`Role::of`]) and names the all-frames clip (`all` when empty).
    pub part: &'a str,
    /// The part's skin (`<part>_default.skin`), parsed; used when it has surface entries.
    pub skin: Option<Skin<'a>>,
    /// The bytes of the `animation.cfg` next to the model.
    pub animation_cfg: Option<&'a [u8]>,
}

/// The skin when the engine would use it: it has surface entries.
fn usable<'s, 'a>(skin: Option<&'s Skin<'a>>) -> Option<&'s Skin<'a>> {
    skin.filter(|s| s.num_surfaces() > 0)
}

/// The skin in `text` when the engine would use it: it parses and has surface entries.
///
/// ```
/// use idmodel_scene::md3::usable_skin;
/// assert!(usable_skin(b"h_head,models/h.tga").is_some());
/// assert!(usable_skin(b"tag_head,").is_none());
/// ```
pub fn usable_skin(text: &[u8]) -> Option<Skin<'_>> {
    Skin::parse(text).ok().filter(|s| s.num_surfaces() > 0)
}

/// Keeps the clip `options.clip` names, or every clip when it names none.
fn select_clips<T>(
    clips: Vec<T>,
    options: &Options,
    clip: impl Fn(&T) -> &Clip,
) -> Result<Vec<T>, Error> {
    let Some(want) = &options.clip else {
        return Ok(clips);
    };
    if clips.iter().any(|c| clip(c).name == *want) {
        return Ok(clips
            .into_iter()
            .filter(|c| clip(c).name == *want)
            .collect());
    }
    let names: Vec<&str> = clips.iter().map(|c| clip(c).name.as_str()).collect();
    Err(Error::new(if names.is_empty() {
        format!("no clip named '{want}' (the model has no clips)")
    } else {
        format!("no clip named '{want}' (the clips: {})", names.join(", "))
    }))
}

/// A static scene of one posed frame: one mesh holding `primitives` (when there are
/// any) drawn by one node named `name` with the identity transform.
fn frame_scene(name: &str, primitives: Vec<Primitive>, materials: Vec<Material>) -> Scene {
    let mut node = Node::new(name);
    let mut meshes = Vec::new();
    if !primitives.is_empty() {
        node.mesh = Some(0);
        meshes.push(Mesh {
            name: String::from(name),
            primitives,
            target_names: Vec::new(),
        });
    }
    Scene {
        name: String::from(name),
        meshes,
        materials,
        nodes: alloc::vec![node],
        ..Scene::default()
    }
}

/// The whole model as a scene named `name`: a node drawing its surfaces (every frame
/// after the first a morph target), a child node per tag, and the clips of
/// [`clips`] animating both (see the module docs).
///
/// Reads `options.frame` (only that frame, as the base, no morph targets and no
/// animation; past the end: the range error) and `options.clip` (only that clip; an
/// error names the clips when none has that name). `options.skin` is not read: the
/// caller passes the skin it chose in [`Sidecars::skin`].
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?; // samples/sample.md3
/// let model = Md3::parse(&bytes)?;
/// let scene = md3::scene(&model, "sample", &Options::default())?;
/// assert_eq!(scene.nodes[1].name, "tag_weapon");
/// assert_eq!(scene.animations[0].name, "all");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scene(md3: &Md3<'_>, name: &str, options: &Options) -> Result<Scene, Error> {
    scene_with(md3, name, options, &Sidecars::default())
}

/// [`scene`] with what travels beside the model ([`Sidecars`]): the skin it uses, the
/// player part it is and the `animation.cfg` its clips come from.
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?;
/// let model = Md3::parse(&bytes)?;
/// let side = md3::Sidecars::default();
/// let scene = md3::scene_with(&model, "sample", &Options::default(), &side)?;
/// assert_eq!(scene.nodes[1].name, "tag_weapon");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scene_with(
    md3: &Md3<'_>,
    name: &str,
    options: &Options,
    sidecars: &Sidecars<'_>,
) -> Result<Scene, Error> {
    let base = frame_of(md3, options.frame)?;
    let skin = usable(sidecars.skin.as_ref());
    let animated = options.frame.is_none() && md3.num_frames() > 1;
    let clips = if animated {
        let (clips, _) = clips(sidecars.part, sidecars.animation_cfg, md3.num_frames());
        select_clips(clips, options, |c| c)?
    } else {
        Vec::new()
    };
    if animated {
        check_budget(md3, &clips, "the model", options)?;
    }
    let mut scene = Scene {
        name: String::from(name),
        ..Scene::default()
    };
    let mut materials = Materials::default();
    let part = add_part(
        &mut scene,
        &mut materials,
        md3,
        name,
        skin,
        (base, animated),
        parts::normal_decode(options),
    );
    for clip in &clips {
        let channels = part_channels(md3, &part, &clip.frames, &clip.times());
        if !channels.is_empty() {
            scene.animations.push(Animation {
                name: clip.name.clone(),
                channels,
            });
        }
    }
    scene.materials = materials.0;
    if options.frame.is_none() {
        // What glTF cannot say, for `from_scene` (the way back).
        scene.extras = back::record_for(md3, options.quantized);
    }
    Ok(scene)
}

/// One posed frame of the model, static: frame `options.frame` (default 0) of every
/// surface, with the materials of [`scene`], all in one mesh on one node named `name`
/// with the identity transform, and no animation. A model without surfaces draws its
/// tags as markers instead (see the module docs).
///
/// Reads `options.frame` and, without it, `options.clip` (the clip's first frame; an
/// error names the clips when none has that name).
pub fn frame(md3: &Md3<'_>, name: &str, options: &Options) -> Result<Scene, Error> {
    frame_with(md3, name, options, &Sidecars::default())
}

/// [`frame`] with [`Sidecars`]: their skin, and [`Options::clip`] names a clip of their
/// `animation.cfg`.
pub fn frame_with(
    md3: &Md3<'_>,
    name: &str,
    options: &Options,
    sidecars: &Sidecars<'_>,
) -> Result<Scene, Error> {
    let frame = match (options.frame, &options.clip) {
        (None, Some(_)) => {
            let (all, _) = clips(sidecars.part, sidecars.animation_cfg, md3.num_frames());
            let first = select_clips(all, options, |c| c)?
                .first()
                .and_then(|c| c.frames.first().copied())
                .unwrap_or(0);
            clips::mesh_frame(first, md3.num_frames())
        }
        _ => frame_of(md3, options.frame)?,
    };
    let skin = usable(sidecars.skin.as_ref());
    let mut materials = Materials::default();
    let mut primitives = frame_primitives(md3, skin, frame, None, &mut materials);
    if md3.num_surfaces() == 0 {
        primitives.extend(parts::tag_markers(md3, frame));
    }
    Ok(frame_scene(name, primitives, materials.0))
}

/// The player as one scene: a root node named after the player holding `lower`;
/// `upper` hangs under lower's `tag_torso` node and `head` under upper's `tag_head` node
/// (a missing tag places the part at its parent's origin, as the engine does). LEGS_*
/// clips drive lower and its tags, TORSO_* clips upper and its tags, BOTH_* clips both;
/// without a usable Quake III `animation.cfg`, one clip of all frames per animated part
/// (`lower`, `upper`).
///
/// Reads `options.frame` (that frame of lower and upper as the base, no animation) and
/// `options.clip` (only that clip; an error names the clips when none has that name).
/// `options.skin` is not read: the caller passes the skins it chose in
/// [`Player::skins`].
pub fn player_scene(player: &Player<'_>, options: &Options) -> Result<Scene, Error> {
    let mut scene = player::player_scene_unrecorded(player, options)?;
    if options.frame.is_none() {
        // What glTF cannot say, for `player_files` (the way back).
        player_back::record_player(&mut scene, player, options.quantized);
    }
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;
    use idmodel_md3::{Model, write};

    fn example() -> Vec<u8> {
        write(&Model::example()).unwrap()
    }

    #[test]
    fn a_skin_chooses_the_materials() {
        let bytes = example();
        let md3 = Md3::parse(&bytes).unwrap();
        // `arm_l` is `arm` to the engine; `body` is not named: the default shader.
        let skin = Skin::parse(b"arm,models/x/arm2\n").unwrap();
        let sidecars = Sidecars {
            part: "sample",
            skin: Some(skin),
            animation_cfg: None,
        };
        let s = scene_with(&md3, "sample", &Options::default(), &sidecars).unwrap();
        assert_eq!(s.materials.len(), 1);
        assert_eq!(s.materials[0].name, "models/x/arm2");
        let prims = &s.meshes[0].primitives;
        assert_eq!((prims[0].material, prims[1].material), (None, Some(0)));
        // A skin without surface entries is not used: the shader names are.
        let tags_only = Sidecars {
            skin: Some(Skin::parse(b"tag_weapon,\n").unwrap()),
            ..sidecars
        };
        let f = frame_with(&md3, "sample", &Options::default(), &tags_only).unwrap();
        assert_eq!(f.materials.len(), 2);
    }

    #[test]
    fn frames_animate_as_morph_targets_or_pose_alone() {
        let bytes = example();
        let md3 = Md3::parse(&bytes).unwrap();
        let side = Sidecars::default();
        let s = scene_with(&md3, "m", &Options::default(), &side).unwrap();
        assert_eq!(s.meshes[0].target_names, ["frame1", "frame2"]);
        assert_eq!(s.meshes[0].primitives[0].targets.len(), 2);
        assert_eq!(s.animations.len(), 1);
        let one = Options {
            frame: Some(2),
            ..Options::default()
        };
        let s = scene_with(&md3, "m", &one, &side).unwrap();
        assert!(s.animations.is_empty());
        assert!(s.meshes[0].primitives[0].targets.is_empty());
        let posed = frame_with(&md3, "m", &one, &side).unwrap();
        assert_eq!(
            posed.meshes[0].primitives[0].positions,
            s.meshes[0].primitives[0].positions
        );
        let past = Options {
            frame: Some(3),
            ..Options::default()
        };
        let want = "frame 3 is out of range: the model has 3 frames (0 to 2)";
        assert_eq!(
            scene_with(&md3, "m", &past, &side).unwrap_err().message(),
            want
        );
        assert_eq!(
            frame_with(&md3, "m", &past, &side).unwrap_err().message(),
            want
        );
    }

    #[test]
    fn tag_only_frames_draw_markers_in_one_mesh() {
        let mut model = Model::example();
        model.surfaces.clear();
        let bytes = write(&model).unwrap();
        let md3 = Md3::parse(&bytes).unwrap();
        let posed = frame(&md3, "hand", &Options::default()).unwrap();
        assert_eq!(posed.meshes[0].primitives.len(), 1);
        let s = scene(&md3, "hand", &Options::default()).unwrap();
        // The model node, its tag, and the tag's frames node, whose weights the clip keys
        // (a model of tags alone carries its frames there).
        assert_eq!(s.nodes.len(), 3);
        assert_eq!(s.meshes.len(), 1);
        assert!(is_tag_frames(&s.nodes[2]));
        let targets = s.meshes[0].primitives[0].targets.len();
        assert_eq!(targets, md3.num_frames() - 1);
        let keyed = s.animations[0].channels.iter().any(|c| {
            c.node == 2
                && matches!(
                    c.values,
                    crate::ChannelValues::SparseWeights { .. } | crate::ChannelValues::Weights(_)
                )
        });
        assert!(keyed, "the frames node's weights are keyed");
        // And the way back counts the frames there, with every tag exact.
        let back = from_scene(&s, &BackOptions::default()).unwrap();
        assert_eq!(write(&back).unwrap(), bytes);
    }

    #[test]
    fn the_clip_option_names_the_clips_it_lacks() {
        let bytes = example();
        let md3 = Md3::parse(&bytes).unwrap();
        let options = Options {
            clip: Some("TORSO_ATTACK".into()),
            ..Options::default()
        };
        let e = scene(&md3, "m", &options).unwrap_err();
        assert_eq!(e.message(), "no clip named 'TORSO_ATTACK' (the clips: all)");
        let e = frame(&md3, "m", &options).unwrap_err();
        assert_eq!(e.message(), "no clip named 'TORSO_ATTACK' (the clips: all)");
    }

    #[test]
    fn the_clip_option_poses_its_first_frame() {
        let bytes = example();
        let md3 = Md3::parse(&bytes).unwrap();
        // Entry 6 (TORSO_GESTURE) starts at frame 2; the others at frame 1.
        let mut cfg = String::new();
        for i in 0..25 {
            cfg += if i == 6 { "2 1 0 10\n" } else { "1 1 0 10\n" };
        }
        let side = Sidecars {
            part: "upper",
            skin: None,
            animation_cfg: Some(cfg.as_bytes()),
        };
        let clip = Options {
            clip: Some("TORSO_GESTURE".into()),
            ..Options::default()
        };
        let two = Options {
            frame: Some(2),
            ..Options::default()
        };
        let posed = frame_with(&md3, "m", &clip, &side).unwrap();
        let want = frame_with(&md3, "m", &two, &side).unwrap();
        assert_eq!(posed.meshes[0].primitives, want.meshes[0].primitives);
        let zero = frame_with(&md3, "m", &Options::default(), &side).unwrap();
        assert_ne!(posed.meshes[0].primitives, zero.meshes[0].primitives);
    }
}
