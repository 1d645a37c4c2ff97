//! Quake MDL (`idmodel_mdl`) → [`Scene`].
//!
//! What the scene holds:
//!
//! - **Topology**: QuakeSpasm's welded mesh (`Mdl::welded_mesh` with the GL seam rule):
//!   one vertex per (source vertex, seam side) in order of first use, where back-facing
//!   triangles use the copy of a seam vertex moved by half the skin width. UVs are
//!   GLQuake's `(s + 0.5) / skinwidth`, `(t + 0.5) / skinheight`, `[0, 0]` the top-left
//!   of the skin. One mesh, one primitive.
//! - **Poses**: every pose counts, single frames and each member of a frame group, in
//!   file order (the engines' `posenum`; the command's `info` reports their number as
//!   `frames`, and [`Options::frame`] `N` picks pose `N`). Pose 0 is the base mesh; every other pose is a morph
//!   target holding the displacements of POSITION and NORMAL relative to pose 0, named
//!   after the pose.
//! - **Animations**: one clip per animation range of `Mdl::animations` (consecutive frame
//!   entries whose names share a base, `run1`…`run6` → `run`; a frame group is one entry
//!   whose poses all play). Timing is QuakeSpasm's: a single frame lasts **0.1 s**
//!   (10 fps, the documented default: MDL stores no rate for single frames and QuakeC
//!   steps them with `nextthink = time + 0.1`), a pose of a frame group lasts the group's
//!   first interval (the GL rule; 0.1 s when that interval is not a usable positive
//!   number). Key `k` sets the weight of its pose's target to 1 and every other weight to
//!   0 (all 0 for pose 0), with **LINEAR** interpolation: QuakeSpasm and the later ports
//!   blend between poses over exactly these durations (`r_lerpmodels`, on by default),
//!   and a linear ramp of one-hot weights is that blend. WinQuake and GLQuake snap from
//!   pose to pose instead, which STEP would reproduce.
//! - **Skins**: one material per skin entry, its image converted to RGBA through the Quake
//!   palette and embedded (a PNG in the glTF). For a skin group, image 0 of the group is
//!   used; the group's other images are not exported. The primitive uses skin 0, or the
//!   skin [`Options::skin`] names (its index in decimal). With
//!   the `MF_HOLEY` flag (0x4000), palette index 255 is transparent and the materials use
//!   alpha masking, as QuakeSpasm draws it.
//! - **[`Options::frame`] `N`** (`--frame N`): pose `N` alone is the base; no morph targets,
//!   no animation. **[`Options::clip`]**: only the animation of that name (and, for
//!   [`frame`], its first pose when no frame is given).
//! - **[`frame`]** (for the renderer and the OBJ writer): a still scene of one pose.
//! - **Finite numbers**: a non-finite `scale` or `scale_origin` makes positions NaN or
//!   infinite; they (and any non-finite displacement) become 0, and `check` reports the
//!   header (`non-finite-scale`).
//! - **Size**: the morph targets and keys ([`morph_bytes`], linear in the poses: the
//!   weights are [`ChannelValues::SparseWeights`])
//!   are checked against [`Options::max_bytes`] before anything is built.
//! - Everything is in file axes and the file's clockwise winding; the writers convert.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use idmodel_mdl::{self as file, Flags, Mdl, Palette, SeamRule, SkinOptions, WeldedMesh};

use crate::unit_or_up;
use idmodel_core::vec::finite_or_zero;

mod back;
pub use back::{
    MAX_PATCHED_BYTES, MAX_SKIN_HEIGHT, from_scene, quantise_rgba, record_extras, redmean, to_bytes,
};

use crate::{
    AlphaMode, Animation, Channel, ChannelValues, Error, Image, Interpolation, Material,
    MorphTarget, Options, Primitive, Result, Scene, frame_out_of_range,
};

/// Seconds a single frame lasts (MDL stores no rate; QuakeC thinks every 0.1 s).
pub const FRAME_TIME: f64 = 0.1;

/// Frame-group intervals outside this range are not used for timing (0.1 s instead):
/// zero, negative and non-finite values break the engines' own timing, and absurd ones
/// would make key times lose precision.
pub const USABLE_INTERVAL: core::ops::RangeInclusive<f32> = 0.001..=60.0;

/// The default budget of an animated scene (morph displacements and animation keys, in
/// bytes, [`morph_bytes`]): beyond [`Options::budget`] [`scene`] refuses before it
/// allocates, with a hint to raise the limit or export one frame, so a small hostile
/// file cannot ask for gigabytes.
pub const MAX_MORPH_BYTES: u64 = crate::DEFAULT_MAX_BYTES;

/// Alpha cutoff of `MF_HOLEY` skins (index 255 has alpha 0, every other texel 255).
pub const HOLEY_CUTOFF: f32 = 0.5;

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Pose `frame` (default 0), or the error naming the valid range.
///
/// ```
/// use idmodel_mdl::{Mdl, Model};
/// let bytes = Model::example().write()?;
/// let mdl = Mdl::parse(&bytes)?;
/// assert!(idmodel_scene::mdl::pose(&mdl, None).is_ok());
/// let e = idmodel_scene::mdl::pose(&mdl, Some(99)).unwrap_err();
/// assert!(e.message().starts_with("frame 99 is out of range: the model has "));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn pose<'a>(mdl: &Mdl<'a>, frame: Option<usize>) -> Result<file::Pose<'a>> {
    let n = frame.unwrap_or(0);
    mdl.pose(n).ok_or_else(|| {
        frame_out_of_range(
            n,
            mdl.pose_count(),
            "model",
            "poses",
            ", every member of a frame group counted",
        )
    })
}

/// The material index [`Options::skin`] asks for (default 0).
fn skin_index(mdl: &Mdl<'_>, options: &Options) -> Result<usize> {
    let Some(name) = &options.skin else {
        return Ok(0);
    };
    name.parse::<usize>()
        .ok()
        .filter(|&i| i < mdl.skin_count())
        .ok_or_else(|| {
            Error::new(format!(
                "no skin {name:?}: the model has {} skins (0 to {})",
                mdl.skin_count(),
                mdl.skin_count().saturating_sub(1)
            ))
        })
}

/// The animation [`Options::clip`] names, if any.
fn clip_of<'a>(mdl: &Mdl<'a>, options: &Options) -> Result<Option<file::Animation<'a>>> {
    let Some(name) = &options.clip else {
        return Ok(None);
    };
    mdl.animations()
        .find(|a| a.name.as_bytes() == name.as_bytes())
        .map(Some)
        .ok_or_else(|| Error::new(format!("no animation named {name:?} in the model")))
}

/// The primitive of `pose` on `mesh` (no morph targets), with material `material`.
pub fn primitive(pose: &file::Pose<'_>, mesh: &WeldedMesh, material: usize) -> Primitive {
    Primitive {
        positions: finite_positions(mesh.positions(pose)),
        normals: mesh.normals(pose),
        uvs: mesh.vertices.iter().map(|v| finite_or_zero(v.uv)).collect(),
        indices: mesh.indices.clone(),
        material: Some(material),
        ..Primitive::default()
    }
}

/// `positions` with every non-finite coordinate replaced by 0 (a `scale` or `translate`
/// of infinity or NaN makes them so; see [`crate::obj`] for the rule).
pub fn finite_positions(mut positions: Vec<[f32; 3]>) -> Vec<[f32; 3]> {
    for p in &mut positions {
        *p = finite_or_zero(*p);
    }
    positions
}

/// The RGBA colour of each palette index under `options`, as [`Image::Indexed8`] holds it.
pub(crate) fn skin_palette(options: &SkinOptions<'_>) -> [[u8; 4]; 256] {
    options.colours()
}

/// One material per skin entry (`skin_N`, or `skin_N_group_image_0` for a skin group):
/// its first image through the Quake palette.
pub fn materials(mdl: &Mdl<'_>) -> Vec<Material> {
    let holey = mdl.flags().contains(Flags::HOLEY);
    let options = SkinOptions {
        palette: Palette::QUAKE,
        transparent_255: holey,
    };
    let size = u32::try_from(mdl.skin_width())
        .ok()
        .zip(u32::try_from(mdl.skin_height()).ok());
    mdl.skins()
        .enumerate()
        .map(|(i, skin)| {
            let image = skin
                .image(0)
                .zip(size)
                .map(|(indices, (width, height))| Image::Indexed8 {
                    width,
                    height,
                    palette: alloc::boxed::Box::new(skin_palette(&options)),
                    indices: indices.to_vec(),
                });
            let name = if skin.is_group() {
                format!("skin_{i}_group_image_0")
            } else {
                format!("skin_{i}")
            };
            let mut m = Material::new(name, image);
            if holey {
                m.alpha = AlphaMode::Mask(HOLEY_CUTOFF);
            }
            m
        })
        .collect()
}

/// Seconds each pose of `frame` is shown (see the module docs).
pub fn pose_time(frame: &file::Frame<'_>) -> f64 {
    if !frame.is_group() {
        return FRAME_TIME;
    }
    frame
        .intervals()
        .next()
        .filter(|i| USABLE_INTERVAL.contains(i))
        .map_or(FRAME_TIME, f64::from)
}

#[allow(clippy::as_conversions)] // f64→f32 rounds to nearest; there is no From impl
fn to_f32(x: f64) -> f32 {
    x as f32
}

/// `t`, or the next float above `prev` when rounding made `t` not increase.
fn after(prev: Option<f32>, t: f32) -> f32 {
    match prev {
        Some(p) if t <= p => f32::from_bits(p.to_bits().saturating_add(1)),
        _ => t,
    }
}

/// How many bytes the morph targets and weight keys of an animated scene take: 24 per
/// vertex per target (position and normal displacements) and 12 per key (its time and
/// one sparse weight): linear in the poses.
pub fn morph_bytes(poses: usize, vertices: usize) -> u64 {
    let targets = count(poses.saturating_sub(1));
    let per_target = count(vertices).saturating_mul(24);
    // One pose is no animation: no targets, no keys.
    let keys = if targets == 0 {
        0
    } else {
        count(poses).saturating_mul(12)
    };
    targets.saturating_mul(per_target).saturating_add(keys)
}

/// The clip of one animation range: weights of `targets` targets (target `t` is pose
/// `t + 1`).
fn animation(frames: &[file::Frame<'_>], anim: &file::Animation<'_>, targets: usize) -> Animation {
    let entries = frames.get(anim.frames.clone()).unwrap_or(&[]);
    let mut times: Vec<f32> = Vec::new();
    let mut shown = Vec::new();
    let mut clock = 0.0f64;
    for frame in entries {
        let step = pose_time(frame);
        for i in 0..frame.pose_count() {
            let pose = frame.first_pose().saturating_add(i);
            times.push(after(times.last().copied(), to_f32(clock)));
            clock += step;
            // Target t is pose t + 1; pose 0 is the base (all weights 0).
            shown.push(pose.checked_sub(1));
        }
    }
    Animation {
        name: String::from_utf8_lossy(anim.name.as_bytes()).into_owned(),
        channels: vec![Channel {
            node: 0,
            times,
            interpolation: Interpolation::Linear,
            values: ChannelValues::one_hot(targets, shown),
        }],
    }
}

/// The clips: one per animation range, weights of `targets` targets (target `t` is pose
/// `t + 1`).
pub fn animations(mdl: &Mdl<'_>, targets: usize) -> Vec<Animation> {
    let frames: Vec<file::Frame<'_>> = mdl.frames().collect();
    mdl.animations()
        .map(|anim| animation(&frames, &anim, targets))
        .collect()
}

/// The whole model as a scene named `name` (see the module docs): reads
/// [`Options::frame`], [`Options::clip`] and [`Options::skin`].
///
/// ```
/// use idmodel_mdl::{Mdl, Model};
/// use idmodel_scene::Options;
/// let bytes = Model::example().write()?;
/// let mdl = Mdl::parse(&bytes)?;
/// let scene = idmodel_scene::mdl::scene(&mdl, "example", &Options::default())?;
/// assert_eq!(scene.meshes[0].primitives.len(), 1);
/// assert_eq!(scene.materials.len(), mdl.skin_count());
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn scene(mdl: &Mdl<'_>, name: &str, options: &Options) -> Result<Scene> {
    let base = pose(mdl, options.frame)?;
    let skin = skin_index(mdl, options)?;
    let only = clip_of(mdl, options)?;
    let mesh = mdl.welded_mesh(SeamRule::Gl);
    let mut prim = primitive(&base, &mesh, skin);
    let mut target_names = Vec::new();
    let mut clips = Vec::new();
    if options.frame.is_none() && mdl.pose_count() > 1 {
        options.check_budget(morph_bytes(mdl.pose_count(), mesh.vertices.len()))?;
        let unit_base: Vec<[f32; 3]> = prim.normals.iter().map(|&n| unit_or_up(n)).collect();
        // One pair of buffers for every pose (`mesh.positions`/`normals` of each pose,
        // without a zeroed allocation apiece).
        let mut positions = vec![[0.0f32; 3]; mesh.vertices.len()];
        let mut normals = vec![[0.0f32; 3]; mesh.vertices.len()];
        for pose in mdl.poses().skip(1) {
            pose.welded_positions_into(&mesh.vertices, &mut positions);
            for p in &mut positions {
                *p = finite_or_zero(*p);
            }
            pose.welded_normals_into(&mesh.vertices, &mut normals);
            prim.targets.push(MorphTarget::from_absolute_unit_base(
                &prim.positions,
                &positions,
                &unit_base,
                &normals,
            ));
            target_names.push(pose.name().to_string());
        }
        clips = match &only {
            Some(anim) => {
                let frames: Vec<file::Frame<'_>> = mdl.frames().collect();
                vec![animation(&frames, anim, prim.targets.len())]
            }
            None => animations(mdl, prim.targets.len()),
        };
    }
    let mut scene = Scene::still(name.to_owned(), vec![prim], materials(mdl));
    if let Some(m) = scene.meshes.first_mut() {
        m.target_names = target_names;
    }
    scene.animations = clips;
    if options.frame.is_none() && options.clip.is_none() {
        record_extras(mdl, &mut scene);
    }
    Ok(scene)
}

/// One pose as a still scene named `name`: [`Options::frame`] (default: the first pose
/// of [`Options::clip`], else pose 0) with the materials; reads [`Options::skin`] too.
pub fn frame(mdl: &Mdl<'_>, name: &str, options: &Options) -> Result<Scene> {
    let skin = skin_index(mdl, options)?;
    let clip_first = clip_of(mdl, options)?.and_then(|a| {
        mdl.frames()
            .nth(a.frames.start)
            .map(|f: file::Frame<'_>| f.first_pose())
    });
    let pose = pose(mdl, options.frame.or(clip_first))?;
    let mesh = mdl.welded_mesh(SeamRule::Gl);
    Ok(Scene::still(
        name.to_owned(),
        vec![primitive(&pose, &mesh, skin)],
        materials(mdl),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_poses_are_keyed_by_their_interval() {
        let bytes = file::Model::example_groups().write().unwrap();
        let mdl = Mdl::parse(&bytes).unwrap();
        let targets = mdl.pose_count() - 1;
        let clips = animations(&mdl, targets);
        let keys: usize = clips.iter().map(|c| c.channels[0].times.len()).sum();
        assert_eq!(keys, mdl.pose_count());
        for clip in &clips {
            let ch = &clip.channels[0];
            assert!(ch.times.windows(2).all(|w| w[0] < w[1]), "{:?}", ch.times);
            let ChannelValues::SparseWeights {
                targets: t,
                nonzero,
            } = &ch.values
            else {
                panic!("weights")
            };
            assert_eq!(*t, targets);
            assert!(nonzero.len() <= ch.times.len());
            let w = ch.values.dense(ch.times.len()).unwrap();
            assert_eq!(w.len(), ch.times.len() * targets);
        }
        // The group (intervals 0.1, 0.2, 0.3) plays each pose for its first interval.
        let group = mdl.frames().position(|f| f.is_group()).unwrap();
        let frame = mdl.frame(group).unwrap();
        assert!((pose_time(&frame) - f64::from(frame.intervals().next().unwrap())).abs() < 1e-9);
    }

    #[test]
    fn times_always_increase() {
        assert_eq!(after(None, 0.0), 0.0);
        assert_eq!(after(Some(0.0), 0.1), 0.1);
        assert!(after(Some(1.0e6), 1.0e6) > 1.0e6);
    }

    #[test]
    fn morph_budget_grows_with_poses_and_vertices() {
        assert_eq!(morph_bytes(1, 1000), 0);
        assert_eq!(morph_bytes(2, 10), 10 * 24 + 2 * 12);
        // Linear in the poses: 16,000 poses of 3 vertices need about 1.2 MB.
        assert!(morph_bytes(16_000, 3) < 2_000_000);
        assert!(morph_bytes(100_000, 30_000) > MAX_MORPH_BYTES);
    }

    #[test]
    fn every_pose_but_the_first_is_a_target_and_one_frame_has_none() {
        let bytes = file::Model::example_groups().write().unwrap();
        let mdl = Mdl::parse(&bytes).unwrap();
        let all = scene(&mdl, "m", &Options::default()).unwrap();
        let mesh = &all.meshes[0];
        assert_eq!(mesh.primitives[0].targets.len(), mdl.pose_count() - 1);
        assert_eq!(mesh.target_names.len(), mdl.pose_count() - 1);
        assert_eq!(all.animations.len(), mdl.animations().count());
        let one = Options {
            frame: Some(1),
            ..Options::default()
        };
        let still = scene(&mdl, "m", &one).unwrap();
        assert!(still.meshes[0].primitives[0].targets.is_empty());
        assert!(still.animations.is_empty());
        assert_eq!(
            still.meshes[0].primitives[0],
            frame(&mdl, "m", &one).unwrap().meshes[0].primitives[0]
        );
    }

    #[test]
    fn clips_and_skins_are_chosen_by_name() {
        let bytes = file::Model::example_groups().write().unwrap();
        let mdl = Mdl::parse(&bytes).unwrap();
        let first = mdl.animations().next().unwrap();
        let name = String::from_utf8_lossy(first.name.as_bytes()).into_owned();
        let options = Options {
            clip: Some(name.clone()),
            ..Options::default()
        };
        let s = scene(&mdl, "m", &options).unwrap();
        assert_eq!(s.animations.len(), 1);
        assert_eq!(s.animations[0].name, name);
        let bad = Options {
            clip: Some("no such clip".into()),
            ..Options::default()
        };
        assert!(scene(&mdl, "m", &bad).is_err());
        let skin = Options {
            skin: Some(mdl.skin_count().to_string()),
            ..Options::default()
        };
        assert!(frame(&mdl, "m", &skin).is_err());
        let skin = Options {
            skin: Some("0".into()),
            ..Options::default()
        };
        assert_eq!(
            frame(&mdl, "m", &skin).unwrap().meshes[0].primitives[0].material,
            Some(0)
        );
    }
}
