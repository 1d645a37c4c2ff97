//! One format of the way back: the caller's [`BackOptions`], the [`Back`] trait a format
//! implements (with [`back_impl`]), and a scene written and checked ([`model_of`],
//! [`bytes_of`]).

use alloc::string::String;
use alloc::vec::Vec;

use idmodel_core::findings::{Engine, Finding, Severity};

use super::geometry::same_geometry;
use super::patch::apply_patch;
use crate::{Error, Scene};

/// The caller's choices for a scene → MD2 / MDL write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackOptions {
    /// The engine whose limits the written file must keep (`--engine`): the write is
    /// refused, naming the first finding, when the format's `check` reports a hazard or a
    /// refusal for it. `None`: no engine check (an exact round trip of a file that already
    /// breaks a limit stays possible). The model also gets what that engine needs and
    /// the original may lack: an MD2 written for Quake II carries GL commands.
    pub engine: Option<Engine>,
    /// Ignore the `md2.*` / `mdl.*` extras and build the model from the geometry alone.
    pub ignore_extras: bool,
    /// Sample node and skin animations at this rate (frames per second) instead of at
    /// their own key times (`--fps`). Weight animations keep their keys.
    pub fps: Option<f32>,
    /// MDL frame groups: `None` the default rule (a clip whose keys are not 0.1 s apart
    /// becomes one group), `Some(true)` every clip of two frames or more becomes one
    /// group with its intervals (`--groups`), `Some(false)` single frames only.
    pub groups: Option<bool>,
    /// The skin names to write when the model is built from the geometry (MD2: the game
    /// paths the engine loads, such as `models/x/skin.pcx`); `None`: the material names.
    pub skin_names: Option<Vec<String>>,
    /// At most this many frames (MD2, MDL poses), kept evenly spaced within each clip and
    /// shared among the clips by their lengths, with their own times (a clip keeps its
    /// duration at a lower rate): `--fit` for an engine's frame limit. `None`: every frame.
    pub max_frames: Option<usize>,
}

/// `Err` naming every hazard and refusal `findings` hold (`; `-separated, on one line).
pub(crate) fn refuse_findings<F: Finding + core::fmt::Display>(
    format: &str,
    findings: &[F],
) -> Result<(), Error> {
    let mut bad = findings.iter().filter(|f| f.severity() >= Severity::Hazard);
    let Some(first) = bad.next() else {
        return Ok(());
    };
    let mut message = alloc::format!("refusing to write this {format}: {first}");
    for f in bad {
        message.push_str("; ");
        message.push_str(&alloc::format!("{f}"));
    }
    Err(Error::new(message))
}

/// One format of the way back (MD2, MDL): how its owned model is rebuilt from extras or
/// from the geometry, written, read back and checked. [`model_of`] and [`bytes_of`] are
/// the formats' `from_scene` and `to_bytes`.
pub(crate) trait Back: Sized {
    /// The extras key of the byte patch (`md2.patch`).
    const PATCH: &'static str;
    /// The largest patched file accepted.
    const LIMIT: usize;
    /// The model the extras describe, if they are complete and consistent.
    fn from_extras(scene: &Scene) -> Option<Self>;
    /// The model built from the geometry alone.
    fn fresh(scene: &Scene, options: &BackOptions) -> Result<Self, Error>;
    /// The model's file.
    fn write(&self) -> Result<Vec<u8>, Error>;
    /// Whether `bytes` parse as the format.
    fn parses(bytes: &[u8]) -> bool;
    /// The scene the format's adapter makes of `bytes` (`None` when they do not parse).
    fn scene_of(bytes: &[u8]) -> Option<Scene>;
    /// `Err` naming every hazard and refusal `engine` has with `bytes`.
    fn check(bytes: &[u8], engine: Engine) -> Result<(), Error>;
    /// Adds what `engine` needs that an exact copy of the original file may lack (MD2:
    /// the GL command list Quake II's GL renderer walks).
    fn complete_for(&mut self, engine: Engine) {
        let _ = engine;
    }
}

/// The [`Back`] impl of an adapter's way back: `$model` is the owned model, `$view` the
/// view that parses the file (and whose `findings` are checked), `$name` the format in
/// messages; the module's `fresh`, `file::write`, `MAX_PATCHED_BYTES` and `super::scene`
/// do the rest.
macro_rules! back_impl {
    ($model:ty, $view:ident, $patch:literal, $name:literal, $from_extras:ident $(, $complete:ident)?) => {
        impl $crate::back::Back for $model {
            const PATCH: &'static str = $patch;
            const LIMIT: usize = MAX_PATCHED_BYTES;
            fn from_extras(scene: &Scene) -> Option<Self> {
                $from_extras(scene)
            }
            fn fresh(scene: &Scene, options: &BackOptions) -> Result<Self> {
                fresh(scene, options)
            }
            fn write(&self) -> Result<Vec<u8>> {
                file::write(self)
                    .map_err(|e| Error::new(format!("cannot write the {}: {e}", $name)))
            }
            fn parses(bytes: &[u8]) -> bool {
                $view::parse(bytes).is_ok()
            }
            fn scene_of(bytes: &[u8]) -> Option<Scene> {
                super::scene(&$view::parse(bytes).ok()?, "", &Options::default()).ok()
            }
            fn check(bytes: &[u8], engine: Engine) -> Result<()> {
                refuse_findings($name, &$view::parse(bytes)?.findings(engine))
            }
            $(fn complete_for(&mut self, engine: Engine) {
                $complete(self, engine)
            })?
        }
    };
}
pub(crate) use back_impl;

/// The model of `scene`: from the extras when they give back its geometry (within a
/// hundred-thousandth relative), else from the geometry; completed for
/// [`BackOptions::engine`] ([`Back::complete_for`]).
fn build<B: Back>(scene: &Scene, options: &BackOptions) -> Result<B, Error> {
    let mut model = exact_or_fresh::<B>(scene, options)?;
    if let Some(engine) = options.engine {
        model.complete_for(engine);
    }
    Ok(model)
}

/// The model of `scene`, as [`build`] without the engine's completion.
fn exact_or_fresh<B: Back>(scene: &Scene, options: &BackOptions) -> Result<B, Error> {
    if !options.ignore_extras
        && let Some(model) = B::from_extras(scene)
    {
        let back = model.write().ok().and_then(|b| B::scene_of(&b));
        if back
            .as_ref()
            .is_some_and(|back| same_geometry(scene, back, 1e-5))
        {
            return Ok(model);
        }
        // An editor that kept the triangles but renumbered (and split) the vertices, as
        // Blender's glTF exporter does: the record reads vertices by the file's
        // numbering, so put the scene's vertices back in it, corner by corner, and try
        // again.
        if let Some(renumbered) = back.as_ref().and_then(|back| renumber(scene, back))
            && let Some(model) = B::from_extras(&renumbered)
            && model
                .write()
                .ok()
                .and_then(|b| B::scene_of(&b))
                .is_some_and(|back| same_geometry(&renumbered, &back, 1e-5))
        {
            return Ok(model);
        }
    }
    B::fresh(scene, options)
}

/// `scene`'s single primitive with its vertices numbered as `to`'s, matched through
/// the triangles' corners (the same triangles in the same order); `None` when the
/// triangles differ in number or the scene is not one mesh of one primitive.
fn renumber(scene: &Scene, to: &Scene) -> Option<Scene> {
    fn one(s: &Scene) -> Option<&crate::Primitive> {
        match s.meshes.as_slice() {
            [m] => match m.primitives.as_slice() {
                [p] => Some(p),
                _ => None,
            },
            _ => None,
        }
    }
    let (from, target) = (one(scene)?, one(to)?);
    if from.indices.len() != target.indices.len() || from.indices == target.indices {
        return None;
    }
    let n = target.positions.len();
    let mut source: Vec<Option<usize>> = alloc::vec![None; n];
    for (&t, &f) in target.indices.iter().zip(&from.indices) {
        let slot = source.get_mut(usize::try_from(t).ok()?)?;
        if slot.is_none() {
            *slot = Some(usize::try_from(f).ok()?);
        }
    }
    // Every vertex of `to` is drawn by a corner, and named by a vertex of `scene`.
    let source: Vec<usize> = source.into_iter().collect::<Option<Vec<usize>>>()?;
    fn gather<T: Copy>(v: &[T], source: &[usize]) -> Option<Vec<T>> {
        if v.is_empty() {
            return Some(Vec::new());
        }
        source.iter().map(|&i| v.get(i).copied()).collect()
    }
    let mut p = from.clone();
    p.positions = gather(&from.positions, &source)?;
    p.normals = gather(&from.normals, &source)?;
    p.uvs = gather(&from.uvs, &source)?;
    p.influences = if from.influences.is_empty() {
        Vec::new()
    } else {
        source
            .iter()
            .map(|&i| from.influences.get(i).cloned())
            .collect::<Option<Vec<_>>>()?
    };
    for (t, ft) in p.targets.iter_mut().zip(&from.targets) {
        t.positions = gather(&ft.positions, &source)?;
        t.normals = gather(&ft.normals, &source)?;
    }
    p.indices.clone_from(&target.indices);
    let mut out = scene.clone();
    if let Some(slot) = out
        .meshes
        .first_mut()
        .and_then(|m| m.primitives.first_mut())
    {
        *slot = p;
    }
    Some(out)
}

fn check<B: Back>(bytes: &[u8], options: &BackOptions) -> Result<(), Error> {
    match options.engine {
        Some(engine) => B::check(bytes, engine),
        None => Ok(()),
    }
}

/// The owned model of `scene`, checked against [`BackOptions::engine`]'s limits.
pub(crate) fn model_of<B: Back>(scene: &Scene, options: &BackOptions) -> Result<B, Error> {
    let model = build::<B>(scene, options)?;
    check::<B>(&model.write()?, options)?;
    Ok(model)
}

/// The file of `scene`: [`model_of`] written, with the extras' patch applied when the
/// model came from unedited extras and the patched bytes still parse.
pub(crate) fn bytes_of<B: Back>(scene: &Scene, options: &BackOptions) -> Result<Vec<u8>, Error> {
    let written = build::<B>(scene, options)?.write()?;
    let bytes = if options.ignore_extras {
        written
    } else {
        let patched = apply_patch(written.clone(), scene.extras.get(B::PATCH), B::LIMIT);
        // A patch must give a file that still parses (a hostile one may not): else the
        // writer's bytes.
        if B::parses(&patched) {
            patched
        } else {
            written
        }
    };
    check::<B>(&bytes, options)?;
    Ok(bytes)
}
