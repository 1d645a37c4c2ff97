//! Quake II MD2 (`idmodel_md2`) → [`Scene`].
//!
//! What the scene holds:
//!
//! - **Topology**: the software renderer's triangle list with its st coordinates, one
//!   vertex per distinct (`index_xyz`, `index_st`) pair (`Md2::soft_mesh`), as one
//!   primitive; UVs are `s / skinwidth`, `t / skinheight` with `[0, 0]` the top-left of
//!   the skin. The GL command list (what `ref_gl` draws) is not used: the command's `check`
//!   reports when it disagrees with the triangle list, and `info` says whether it agrees.
//!   Each mesh vertex takes the position and normal of its `index_xyz` in the frame
//!   ([`posed`]).
//! - **Frames**: frame 0 is the base mesh; every other frame is a morph target holding the
//!   displacements of POSITION and NORMAL relative to frame 0, named after the frame.
//! - **Animations**: one clip per frame-name range (`stand01`…`stand40` → `stand`, see
//!   `Md2::animations`), played at **10 fps** (MD2 stores no rate; Quake II's server runs
//!   at 10 Hz and steps one frame per tick). With a UFO:AI `.anm` table
//!   ([`Sidecars::clips`], [`RateClip::from_anm`]) its clips replace those: named as the
//!   table names them, frames `first..=last`, each at the rate the engine plays it
//!   (`1000 / (int)(1000 / fps)` frames a second).
//! - **Normals**: the file's (`lightnormalindex` → the 162-entry table), except when every
//!   vertex of every frame uses one index (`Md2::single_normal_index`: degenerate
//!   normals, as UFO:AI exporters write them, whose engine computes its own): then smooth normals are computed per frame from the
//!   triangles, area-weighted ([`smooth_normals`]), unless [`Sidecars::keep_normals`]. Key `k` of a clip sets the weight of its
//!   `k`-th frame's target to 1 and every other weight to 0 (all 0 for frame 0), linearly
//!   interpolated, which is the engine's lerp between consecutive frames.
//! - **Skins**: one material per skin, named with the skin name and pointing to it as an
//!   image URI (the game path, `\` turned into `/`, leading `/` dropped, other characters
//!   outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded); the primitive uses skin 0, or the skin
//!   [`Options::skin`] names (its index in decimal). The `.pcx` files are not read. A model without skins has no material.
//! - **[`Options::frame`] `N`** (`--frame N`): that frame alone is the base; no morph
//!   targets, no animation. **[`Options::clip`]**: only the animation of that name (and,
//!   for [`frame`], its first frame when no frame is given).
//! - **[`frame`]** (for the renderer and the OBJ writer): a still scene of one frame.
//! - Everything is in file axes and the file's clockwise winding; the writers convert.
//! - **Finite numbers**: a non-finite `scale` or `translate` makes positions NaN or
//!   infinite; they (and any non-finite displacement or texture coordinate) become 0,
//!   and `check` reports the frames (`non-finite-frame`).
//! - **Size**: the morph targets and keys ([`morph_bytes`], linear in the frames: the
//!   weights are [`ChannelValues::SparseWeights`])
//!   are checked against [`Options::max_bytes`] before anything is built.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use core::ops::Range;

use crate::unit_or_up;
use idmodel_core::vec::finite_or_zero;
use idmodel_md2::{self as file, Md2};

mod back;
pub use back::{
    MAX_PATCHED_BYTES, from_scene, record_extras, record_extras_for, texel_grid, to_bytes,
};

use crate::{
    Animation, Channel, ChannelValues, Error, Image, Interpolation, Material, MorphTarget, Options,
    Primitive, Result, Scene, frame_out_of_range,
};

/// Playback rate of the animation clips (MD2 files store none).
pub const FPS: f32 = 10.0;

/// The default budget of an animated scene (morph displacements and animation keys, in
/// bytes, [`morph_bytes`]): beyond [`Options::budget`] [`scene`] refuses before it
/// allocates, with a hint to raise the limit or export one frame, so a small hostile
/// file cannot ask for gigabytes.
pub const MAX_MORPH_BYTES: u64 = crate::DEFAULT_MAX_BYTES;

/// Frame `frame` (default 0), or the error naming the valid range.
///
/// ```
/// use idmodel_md2::{Md2, Model, write};
/// let bytes = write(&Model::example())?;
/// let md2 = Md2::parse(&bytes)?;
/// assert!(idmodel_scene::md2::frame_at(&md2, Some(1)).is_ok());
/// let e = idmodel_scene::md2::frame_at(&md2, Some(7)).unwrap_err();
/// assert_eq!(e.message(), "frame 7 is out of range: the model has 2 frames (0 to 1)");
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn frame_at<'a>(md2: &Md2<'a>, frame: Option<usize>) -> Result<file::Frame<'a>> {
    let n = frame.unwrap_or(0);
    md2.frame(n)
        .ok_or_else(|| frame_out_of_range(n, md2.frame_count(), "model", "frames", ""))
}

/// `(positions, normals)` of the mesh vertices in `frame`: each vertex takes its
/// `index_xyz`'s (an index past the frame gives the origin and the up normal).
pub fn posed(frame: &file::Frame<'_>, mesh: &file::Mesh) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let positions: Vec<[f32; 3]> = frame.positions().collect();
    let normals: Vec<[f32; 3]> = frame.normals().collect();
    let index = |v: &file::MeshVertex| usize::try_from(v.xyz).unwrap_or(usize::MAX);
    // Two collects of a known length (an `unzip` pushed element by element).
    (
        mesh.vertices
            .iter()
            // A non-finite scale or translate makes a position so: it becomes 0.
            .map(|v| {
                positions
                    .get(index(v))
                    .copied()
                    .map_or([0.0; 3], finite_or_zero)
            })
            .collect(),
        mesh.vertices
            .iter()
            .map(|v| normals.get(index(v)).copied().unwrap_or([0.0, 0.0, 1.0]))
            .collect(),
    )
}

/// The material index [`Options::skin`] asks for: default 0, `None` without skins.
fn skin_index(md2: &Md2<'_>, options: &Options) -> Result<Option<usize>> {
    let skins = md2.skin_fields().len();
    let Some(name) = &options.skin else {
        return Ok((skins > 0).then_some(0));
    };
    name.parse::<usize>()
        .ok()
        .filter(|&i| i < skins)
        .map(Some)
        .ok_or_else(|| {
            Error::new(format!(
                "no skin {name:?}: the model has {skins} skins (0 to {})",
                skins.saturating_sub(1)
            ))
        })
}

/// The animation [`Options::clip`] names, if any.
fn clip_of<'a>(md2: &Md2<'a>, options: &Options) -> Result<Option<file::Animation<'a>>> {
    let Some(name) = &options.clip else {
        return Ok(None);
    };
    md2.animations()
        .find(|a| a.name.to_string() == *name)
        .map(Some)
        .ok_or_else(|| Error::new(format!("no animation named {name:?} in the model")))
}

/// The primitive of `frame` (no morph targets), with material `material`.
pub fn primitive(frame: &file::Frame<'_>, mesh: &file::Mesh, material: Option<usize>) -> Primitive {
    let (positions, normals) = posed(frame, mesh);
    Primitive {
        positions,
        normals,
        uvs: mesh.vertices.iter().map(|v| finite_or_zero(v.uv)).collect(),
        indices: mesh.indices.clone(),
        material,
        ..Primitive::default()
    }
}

/// A skin name as a relative URI reference (see the module docs).
///
/// ```
/// use idmodel_scene::md2::skin_uri;
/// assert_eq!(skin_uri("E:\\MIJN DOCU\\a.pcx"), "E%3A/MIJN%20DOCU/a.pcx");
/// ```
pub fn skin_uri(name: &str) -> String {
    let path = name.replace('\\', "/");
    crate::scene::uri_path(&path)
}

/// One material per skin: the skin name, its path as the image URI.
pub fn materials(md2: &Md2<'_>) -> Vec<Material> {
    md2.skins()
        .map(|name| {
            let uri = skin_uri(&String::from_utf8_lossy(name.as_bytes()));
            let image = (!uri.is_empty()).then_some(Image::Uri(uri));
            Material::new(name.to_string(), image)
        })
        .collect()
}

/// How many bytes the morph targets and weight keys of an animated scene take: 24 per
/// vertex per target (position and normal displacements) and 12 per key (its time and
/// one sparse weight): linear in the frames.
pub fn morph_bytes(frames: usize, vertices: usize) -> u64 {
    let targets = u64::try_from(frames.saturating_sub(1)).unwrap_or(u64::MAX);
    let per_target = u64::try_from(vertices)
        .unwrap_or(u64::MAX)
        .saturating_mul(24);
    // One frame is no animation: no targets, no keys.
    let keys = if targets == 0 {
        0
    } else {
        u64::try_from(frames).unwrap_or(u64::MAX).saturating_mul(12)
    };
    targets.saturating_mul(per_target).saturating_add(keys)
}

/// A clip from a side file: a name, frames and its own rate.
#[derive(Debug, Clone, PartialEq)]
pub struct RateClip {
    /// The clip name.
    pub name: String,
    /// The frames, `first..last + 1`.
    pub frames: Range<usize>,
    /// Frames per second.
    pub fps: f32,
}

impl RateClip {
    /// The clips of a UFO:AI `.anm` table, in file order, at the engine's rates; entries
    /// with a negative or backwards frame range are left out.
    ///
    /// ```
    /// let anm = idmodel_md2::Anm::parse(b"walk 0 3 50 dead 4 4 0 bad 5 2 10")?;
    /// let clips = idmodel_scene::md2::RateClip::from_anm(&anm);
    /// assert_eq!(clips.len(), 2);
    /// assert_eq!((clips[0].name.as_str(), clips[0].frames.clone(), clips[0].fps), ("walk", 0..4, 50.0));
    /// assert_eq!(clips[1].fps, 0.01); // fps 0: one frame each 100 s, as the engine plays it
    /// # Ok::<(), idmodel_md2::AnmError>(())
    /// ```
    pub fn from_anm(anm: &file::Anm<'_>) -> Vec<RateClip> {
        anm.entries()
            .filter_map(|e| {
                let clip = e.clip()?;
                Some(RateClip {
                    name: clip.name.to_string(),
                    frames: clip.frames,
                    fps: e.rate(),
                })
            })
            .collect()
    }
}

/// What travels beside an MD2 and how to use it (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sidecars {
    /// Named clips at their own rates (a UFO:AI `.anm`); empty: clips by frame name at
    /// [`FPS`].
    pub clips: Vec<RateClip>,
    /// Keep the file's normals even when they are degenerate (`--keep-normals`).
    pub keep_normals: bool,
}

impl Sidecars {
    /// True when `md2`'s normals are replaced by computed ones.
    pub fn replaces_normals(&self, md2: &Md2<'_>) -> bool {
        !self.keep_normals && md2.single_normal_index().is_some()
    }
}

pub use crate::scene::smooth_normals;

/// The xyz triangles of `md2` as vertex indices.
fn xyz_triangles(md2: &Md2<'_>) -> Vec<[usize; 3]> {
    md2.triangles()
        .iter()
        .map(|t| file::Triangle::from_raw(t).xyz.map(usize::from))
        .collect()
}

/// [`posed`] with the normals computed from `triangles` ([`smooth_normals`]) instead of
/// the file's.
pub fn posed_smooth(
    frame: &file::Frame<'_>,
    mesh: &file::Mesh,
    triangles: &[[usize; 3]],
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let frame_positions: Vec<[f32; 3]> = frame.positions().map(finite_or_zero).collect();
    let normals = smooth_normals(&frame_positions, triangles);
    mesh.vertices
        .iter()
        .map(|v| {
            let i = usize::try_from(v.xyz).unwrap_or(usize::MAX);
            (
                frame_positions.get(i).copied().unwrap_or([0.0; 3]),
                normals.get(i).copied().unwrap_or([0.0, 0.0, 1.0]),
            )
        })
        .unzip()
}

/// The clip of a side file's table: keys at its own rate.
fn rate_animation(clip: &RateClip, frame_count: usize, targets: usize) -> Option<Animation> {
    let end = clip.frames.end.min(frame_count);
    let frames = clip.frames.start..end;
    if frames.is_empty() {
        return None;
    }
    let fps = if clip.fps.is_finite() && clip.fps > 0.0 {
        clip.fps
    } else {
        FPS
    };
    let mut times = Vec::with_capacity(frames.len());
    let mut shown = Vec::with_capacity(frames.len());
    let mut key = 0.0f32;
    for frame in frames {
        times.push(key / fps);
        key += 1.0;
        shown.push(frame.checked_sub(1));
    }
    Some(Animation {
        name: clip.name.clone(),
        channels: vec![Channel {
            node: 0,
            times,
            interpolation: Interpolation::Linear,
            values: ChannelValues::one_hot(targets, shown),
        }],
    })
}

/// The clip of one frame-name range: keys at 10 fps, weights of `targets` targets.
fn animation(anim: &file::Animation<'_>, targets: usize) -> Animation {
    let mut times = Vec::with_capacity(anim.frames.len());
    let mut shown = Vec::with_capacity(anim.frames.len());
    let mut key = 0.0f32;
    for frame in anim.frames.clone() {
        times.push(key / FPS);
        key += 1.0;
        // Target t is frame t + 1; frame 0 is the base (all weights 0).
        shown.push(frame.checked_sub(1));
    }
    Animation {
        name: anim.name.to_string(),
        channels: vec![Channel {
            node: 0,
            times,
            interpolation: Interpolation::Linear,
            values: ChannelValues::one_hot(targets, shown),
        }],
    }
}

/// The clips: one per frame-name range, keys at 10 fps, weights of `targets` targets.
pub fn animations(md2: &Md2<'_>, targets: usize) -> Vec<Animation> {
    md2.animations().map(|a| animation(&a, targets)).collect()
}

/// The whole model as a scene named `name` (see the module docs): reads
/// [`Options::frame`], [`Options::clip`] and [`Options::skin`].
///
/// ```
/// use idmodel_md2::{Md2, Model, write};
/// use idmodel_scene::Options;
/// let bytes = write(&Model::example())?;
/// let md2 = Md2::parse(&bytes)?;
/// let scene = idmodel_scene::md2::scene(&md2, "example", &Options::default())?;
/// assert_eq!(scene.meshes[0].primitives[0].targets.len(), 1);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn scene(md2: &Md2<'_>, name: &str, options: &Options) -> Result<Scene> {
    scene_with(md2, name, options, &Sidecars::default())
}

/// [`scene`] with what travels beside the model: `.anm` clips and the normal policy
/// ([`Sidecars`]). [`Options::clip`] names one of the side file's clips when it has any.
///
/// ```
/// use idmodel_md2::{Md2, Model, write};
/// use idmodel_scene::md2::{RateClip, Sidecars, scene_with};
/// let bytes = write(&Model::example())?;
/// let md2 = Md2::parse(&bytes)?;
/// let side = Sidecars {
///     clips: vec![RateClip { name: "both".into(), frames: 0..2, fps: 20.0 }],
///     keep_normals: false,
/// };
/// let scene = scene_with(&md2, "example", &Default::default(), &side)?;
/// assert_eq!(scene.animations[0].name, "both");
/// assert_eq!(scene.animations[0].channels[0].times, vec![0.0, 0.05]);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn scene_with(
    md2: &Md2<'_>,
    name: &str,
    options: &Options,
    sidecars: &Sidecars,
) -> Result<Scene> {
    let base = frame_at(md2, options.frame)?;
    let skin = skin_index(md2, options)?;
    let (only, only_rate) = if sidecars.clips.is_empty() {
        (clip_of(md2, options)?, None)
    } else {
        (None, rate_clip_of(sidecars, options)?)
    };
    let mesh = md2.soft_mesh();
    let smooth = sidecars.replaces_normals(md2).then(|| xyz_triangles(md2));
    let pose = |f: &file::Frame<'_>| match &smooth {
        Some(t) => posed_smooth(f, &mesh, t),
        None => posed(f, &mesh),
    };
    let mut prim = primitive(&base, &mesh, skin);
    if smooth.is_some() {
        prim.normals = pose(&base).1;
    }
    let mut target_names = Vec::new();
    let mut clips = Vec::new();
    if options.frame.is_none() && md2.frame_count() > 1 {
        options.check_budget(morph_bytes(md2.frame_count(), mesh.vertices.len()))?;
        let unit_base: Vec<[f32; 3]> = prim.normals.iter().map(|&n| unit_or_up(n)).collect();
        // One pair of buffers for every frame ([`posed`] of each, without four
        // allocations apiece).
        let mut positions = vec![[0.0f32; 3]; mesh.vertices.len()];
        let mut normals = vec![[0.0f32; 3]; mesh.vertices.len()];
        for frame in md2.frames().skip(1) {
            if smooth.is_some() {
                (positions, normals) = pose(&frame);
            } else {
                frame.mesh_positions_into(&mesh.vertices, &mut positions);
                for p in &mut positions {
                    *p = finite_or_zero(*p);
                }
                frame.mesh_normals_into(&mesh.vertices, &mut normals);
            }
            prim.targets.push(MorphTarget::from_absolute_unit_base(
                &prim.positions,
                &positions,
                &unit_base,
                &normals,
            ));
            target_names.push(frame.name().to_string());
        }
        let targets = prim.targets.len();
        let count = md2.frame_count();
        clips = match (&only, only_rate) {
            (Some(anim), _) => vec![animation(anim, targets)],
            (None, Some(c)) => rate_animation(c, count, targets).into_iter().collect(),
            (None, None) if !sidecars.clips.is_empty() => sidecars
                .clips
                .iter()
                .filter_map(|c| rate_animation(c, count, targets))
                .collect(),
            (None, None) => animations(md2, targets),
        };
    }
    let mut scene = Scene::still(name.to_owned(), vec![prim], materials(md2));
    if let Some(m) = scene.meshes.first_mut() {
        m.target_names = target_names;
    }
    scene.animations = clips;
    if options.frame.is_none() && options.clip.is_none() {
        record_extras_for(md2, &mut scene, options.quantized);
    }
    Ok(scene)
}

/// The side file's clip [`Options::clip`] names, if any.
fn rate_clip_of<'s>(sidecars: &'s Sidecars, options: &Options) -> Result<Option<&'s RateClip>> {
    let Some(name) = &options.clip else {
        return Ok(None);
    };
    sidecars
        .clips
        .iter()
        .find(|c| c.name == *name)
        .map(Some)
        .ok_or_else(|| Error::new(format!("no animation named {name:?} in the .anm clips")))
}

/// One frame as a still scene named `name`: [`Options::frame`] (default: the first frame
/// of [`Options::clip`], else frame 0) with the materials; reads [`Options::skin`] too.
pub fn frame(md2: &Md2<'_>, name: &str, options: &Options) -> Result<Scene> {
    frame_with(md2, name, options, &Sidecars::default())
}

/// [`frame`] with [`Sidecars`]: [`Options::clip`] names a side-file clip when there are
/// any, and degenerate normals are replaced as in [`scene_with`].
pub fn frame_with(
    md2: &Md2<'_>,
    name: &str,
    options: &Options,
    sidecars: &Sidecars,
) -> Result<Scene> {
    let skin = skin_index(md2, options)?;
    let clip_first = if sidecars.clips.is_empty() {
        clip_of(md2, options)?.map(|a| a.frames.start)
    } else {
        rate_clip_of(sidecars, options)?.map(|c| c.frames.start)
    };
    let frame = frame_at(md2, options.frame.or(clip_first))?;
    let mesh = md2.soft_mesh();
    let mut prim = primitive(&frame, &mesh, skin);
    if sidecars.replaces_normals(md2) {
        prim.normals = posed_smooth(&frame, &mesh, &xyz_triangles(md2)).1;
    }
    Ok(Scene::still(name.to_owned(), vec![prim], materials(md2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_uris_are_relative_references() {
        assert_eq!(
            skin_uri("models/monsters/tank/skin.pcx"),
            "models/monsters/tank/skin.pcx"
        );
        assert_eq!(skin_uri(".box"), ".box");
        assert_eq!(skin_uri("E:\\MIJN DOCU\\a.pcx"), "E%3A/MIJN%20DOCU/a.pcx");
        assert_eq!(skin_uri("//x/y"), "x/y");
        assert_eq!(skin_uri("é"), "%C3%A9");
        assert_eq!(skin_uri(""), "");
    }

    #[test]
    fn clips_key_one_target_per_frame() {
        let bytes = file::write(&file::Model::example()).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let clips = animations(&md2, md2.frame_count() - 1);
        assert_eq!(clips.len(), 1);
        let ch = &clips[0].channels[0];
        assert_eq!(ch.times, vec![0.0, 0.1]);
        assert_eq!(ch.values.dense(2), Some(vec![0.0, 1.0]));
        assert_eq!(ch.values, ChannelValues::one_hot(1, [None, Some(0)]));
    }

    #[test]
    fn morph_budget_grows_with_frames_and_vertices() {
        assert_eq!(morph_bytes(1, 1000), 0);
        assert_eq!(morph_bytes(2, 10), 10 * 24 + 2 * 12);
        // Linear in the frames: 16,000 frames of 3 vertices need about 1.2 MB.
        assert!(morph_bytes(16_000, 3) < 2_000_000);
        assert!(morph_bytes(100_000, 30_000) > MAX_MORPH_BYTES);
    }

    /// The scene's targets, decoded into reused buffers, are `from_absolute` of
    /// [`posed`] for every frame.
    #[test]
    fn targets_are_from_absolute_of_posed_frames() {
        let bytes = file::write(&file::Model::example()).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let mesh = md2.soft_mesh();
        let s = scene(&md2, "m", &Options::default()).unwrap();
        let prim = &s.meshes[0].primitives[0];
        assert_eq!(prim.targets.len(), md2.frame_count() - 1);
        assert!(!prim.targets.is_empty());
        for (frame, target) in md2.frames().skip(1).zip(&prim.targets) {
            let (p, n) = posed(&frame, &mesh);
            let want = MorphTarget::from_absolute(&prim.positions, &p, &prim.normals, &n);
            assert_eq!(*target, want);
        }
    }

    #[test]
    fn posed_maps_frame_positions_onto_the_mesh() {
        let bytes = file::write(&file::Model::example()).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let mesh = md2.soft_mesh();
        let f = md2.frame(1).unwrap();
        let (positions, normals) = posed(&f, &mesh);
        assert_eq!(positions.len(), mesh.vertices.len());
        assert_eq!(normals.len(), mesh.vertices.len());
        let frame_positions: Vec<[f32; 3]> = f.positions().collect();
        for (v, p) in mesh.vertices.iter().zip(&positions) {
            assert_eq!(*p, frame_positions[v.xyz as usize]);
        }
    }

    #[test]
    fn one_frame_has_no_targets_and_skins_are_checked() {
        let bytes = file::write(&file::Model::example()).unwrap();
        let md2 = Md2::parse(&bytes).unwrap();
        let one = Options {
            frame: Some(1),
            ..Options::default()
        };
        let s = scene(&md2, "m", &one).unwrap();
        assert!(s.meshes[0].primitives[0].targets.is_empty());
        assert!(s.animations.is_empty());
        assert_eq!(
            s.meshes[0].primitives[0],
            frame(&md2, "m", &one).unwrap().meshes[0].primitives[0]
        );
        let bad = Options {
            skin: Some("99".into()),
            ..Options::default()
        };
        assert!(scene(&md2, "m", &bad).is_err());
        let clip = md2.animations().next().unwrap().name.to_string();
        let only = Options {
            clip: Some(clip),
            ..Options::default()
        };
        assert_eq!(scene(&md2, "m", &only).unwrap().animations.len(), 1);
    }
}
