//! Pictures of models: a still, an animated PNG (APNG) of a clip or a turntable, or a
//! contact sheet of a folder or archive, drawn with `idmodel_scene::render` (a software
//! rasteriser) from the same scenes the conversions export, textures applied.

mod pictures;
mod sheet;

use std::path::{Path, PathBuf};

use idmodel_gltf::png_rgba8;
use idmodel_scene::Scene;
pub use idmodel_scene::render::RenderOptions;
use idmodel_scene::render::{self, Picture};

use crate::failure::Failure;
use crate::failure::line;
use crate::formats::Choice;
use crate::formats::{self, Shape};
use crate::model::{Loaded, anims_apply, choice, load_anims};
use crate::options::Options;
use crate::outcome::{Converted, Error, Outputs, Report};
use crate::players;
use crate::textures;

/// What to draw beside the model choices of [`Options`].
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// Size, background and framing.
    pub render: RenderOptions,
    /// A still, every frame of a clip, or a turntable.
    pub motion: Motion,
    /// `--animate`, `--turntable`: the most bytes the frames' pixels may take (width ×
    /// height × 4 × frames; `None`: 1 GiB).
    pub max_output: Option<u64>,
}

/// Whether `path` draws as a contact sheet (a folder that is no Quake III player, or an
/// archive).
pub fn is_sheet(path: &Path) -> bool {
    path.is_dir() && !formats::md3::is_player_folder(path) || crate::archives::is_archive_file(path)
}

/// The picture of `path` (a model file, a Quake III player folder, `ARCHIVE:ENTRY`, or a
/// folder or archive for a contact sheet) as the PNG file `output`, with the texture
/// warnings in the report.
///
/// # Errors
/// The model cannot be read or drawn, or the request does not apply to it.
pub fn render_file(
    path: &Path,
    output: &Path,
    options: &Options,
    request: &Request,
) -> Result<Converted, Error> {
    // An image format named that is not PNG: PNG bytes under that name would mislead.
    let other_image = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .is_some_and(|e| {
            [
                "jpg", "jpeg", "gif", "bmp", "tga", "webp", "tif", "tiff", "pcx",
            ]
            .contains(&e.as_str())
        });
    if other_image {
        return Err(Error::Usage(format!(
            "{}: pictures are written as PNG (APNG when animated): name the output .png",
            output.display()
        )));
    }
    let ((result, warnings), inputs) = crate::read::collecting(|| {
        let pending = textures::Pending::default();
        let result = draw(path, options, request, &pending);
        (result, pending.into_lines())
    });
    let (png, mut report) = result?;
    report.warnings.extend(warnings);
    report.inputs = inputs;
    report.written = crate::outcome::Written::new(output);
    report.written.bytes = crate::outcome::len(&png);
    let mut files = Outputs::new(true);
    files.output(output, png);
    Ok(Converted {
        files: files.files,
        report,
    })
}

fn draw(
    path: &Path,
    options: &Options,
    request: &Request,
    pending: &textures::Pending,
) -> Result<(Vec<u8>, Report), Error> {
    let choice = choice(options);
    let (options_r, motion, max_output) = (&request.render, request.motion, request.max_output);
    if is_sheet(path) {
        return contact_sheet(path, choice, options_r, motion, pending);
    }
    let prepared = crate::archives::prepare(path).map_err(Error::Failed)?;
    let path = prepared.as_deref().unwrap_or(path);
    let anims = &options.anims;
    anims_apply(path, anims)?;
    let draw = |scene: &Scene, options: &RenderOptions| {
        render::render(scene, options).map_err(|e| line(path, Failure::from(e)))
    };
    let png = match motion {
        Motion::Still => {
            let frame = still_scene(path, anims, choice, pending)?;
            picture_png(&draw(&frame, options_r)?).map_err(|f| line(path, f))?
        }
        Motion::Turntable(n) => {
            let frame = still_scene(path, anims, choice, pending)?;
            pictures::check_budget(
                usize::from(n),
                options_r.width,
                options_r.height,
                max_output,
            )
            .map_err(|e| line(path, e))?;
            let mut frames = Vec::new();
            for k in 0..n {
                let yaw = core::f32::consts::TAU * f32::from(k) / f32::from(n);
                frames.push(draw(&frame, &RenderOptions { yaw, ..*options_r })?);
            }
            let delay = u16::try_from(TURN_MS.checked_div(u32::from(n)).unwrap_or(1).max(1))
                .unwrap_or(u16::MAX);
            pictures::apng(&frames, &vec![delay; frames.len()]).map_err(|e| line(path, e))?
        }
        Motion::Animate => {
            let (pictures_of, delays) =
                animated_frames(path, anims, choice, pending, options_r, max_output)?;
            let mut bounds = None;
            for s in &pictures_of {
                bounds = pictures::union(bounds, render::drawn_bounds(s));
            }
            let framed = RenderOptions {
                bounds,
                ..*options_r
            };
            let mut out = Vec::new();
            for s in &pictures_of {
                out.push(draw(s, &framed)?);
            }
            pictures::apng(&out, &delays).map_err(|e| line(path, e))?
        }
    };
    Ok((png, Report::new(path)))
}

/// A picture as a PNG file.
fn picture_png(picture: &Picture) -> Result<Vec<u8>, Failure> {
    Ok(png_rgba8(picture.width, picture.height, &picture.rgba)?)
}

/// What `render` draws: one picture, every frame of a clip, or a turntable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// One picture (`--frame`, `--clip`).
    Still,
    /// `--animate`: every frame of the clip (or of the whole model) as an APNG.
    Animate,
    /// `--turntable N`: N views turning once about the up axis as an APNG.
    Turntable(u16),
}

/// One turn of a turntable takes this long.
const TURN_MS: u32 = 4000;

/// `render DIR|ARCHIVE`: a contact sheet of every model under the folder or in the
/// archive (players as one cell each in folders); a model that fails is a grey cell
/// with "error" and a line on stderr, not a failed sheet.
fn contact_sheet(
    path: &Path,
    choice: Choice<'_>,
    options: &RenderOptions,
    motion: Motion,
    pending: &textures::Pending,
) -> Result<(Vec<u8>, Report), Error> {
    if motion != Motion::Still {
        return Err(Error::Usage(format!(
            "{}: --animate and --turntable draw one model, not a contact sheet",
            path.display()
        )));
    }
    let mut report = Report::new(path);
    let mut failures = Vec::new();
    let files = match crate::archives::check_paths(path) {
        Some(Ok((files, _))) => files,
        Some(Err(e)) => return Err(Error::Failed(e)),
        None => {
            let mut files = Vec::new();
            crate::batch::walk_models(path, &mut files, &mut failures);
            files
        }
    };
    if files.is_empty() {
        failures.push(line(path, "no models to draw a contact sheet of"));
        return Err(Error::Failed(failures.join("\n")));
    }
    report.warnings = failures;
    let mut sheet = sheet::Sheet::new(
        files.len(),
        (options.width, options.height),
        options.background,
        render::MAX_SIDE,
    )
    .map_err(|e| Error::Failed(line(path, e)))?;
    for (i, file) in files.iter().enumerate() {
        let label = sheet::name_of(file);
        let thumb = still_scene(file, &[], choice, pending).and_then(|s| {
            render::render(&s, options).map_err(|e| Error::Failed(line(file, Failure::from(e))))
        });
        match thumb {
            Ok(t) => sheet.cell(i, &t, &label),
            Err(e) => {
                report.warnings.push(e.line().to_owned());
                sheet.failed(i, &label);
            }
        }
    }
    let png = picture_png(&sheet.finish()).map_err(|f| Error::Failed(line(path, f)))?;
    Ok((png, report))
}

/// The one posed frame `render` draws of `path` (a model, ARCHIVE:ENTRY or a Quake III
/// player folder), textures applied and decoded.
fn still_scene(
    path: &Path,
    anims: &[PathBuf],
    choice: Choice<'_>,
    pending: &textures::Pending,
) -> Result<Scene, Error> {
    let in_archive = crate::archives::is_virtual(path) && !crate::archives::is_file(path);
    let frame = if (path.is_dir() || in_archive) && formats::md3::is_player_folder(path) {
        if !anims.is_empty() {
            return Err(Error::Refused(line(
                path,
                "--anim applies to one md5mesh, not to a Quake III player folder",
            )));
        }
        let mut s =
            players::player(path, &choice.request(&[]), Shape::Frame).map_err(|f| line(path, f))?;
        textures::apply_player(&mut s, path, choice.textures(), pending);
        s
    } else {
        let loaded = Loaded::open(path)?;
        let anims = load_anims(anims)?;
        let mut s = loaded.build(&anims, choice, Shape::Frame)?;
        let (format, bytes) = (loaded.format, &loaded.bytes);
        textures::apply(&mut s, path, format, bytes, choice.textures(), pending);
        s
    };
    let mut frame = frame;
    textures::decode_for_render(&mut frame, path, pending);
    Ok(frame)
}

/// The posed stills of `render --animate` and the delay of each in milliseconds: every
/// key of every animation of the model's scene (only the `--clip` one when given), in
/// order; skinned meshes (md5) posed by the format module at each frame of the first
/// animation.
fn animated_frames(
    path: &Path,
    anims: &[PathBuf],
    choice: Choice<'_>,
    pending: &textures::Pending,
    options: &RenderOptions,
    max_output: Option<u64>,
) -> Result<(Vec<Scene>, Vec<u16>), Error> {
    let folder =
        path.is_dir() || (crate::archives::is_virtual(path) && !crate::archives::is_file(path));
    let player = folder && formats::md3::is_player_folder(path);
    if folder && !player {
        return Err(Error::Refused(line(
            path,
            "--animate takes one model file or a Quake III player folder, not a folder of models",
        )));
    }
    if player && !anims.is_empty() {
        return Err(Error::Refused(line(
            path,
            "--anim applies to one md5mesh, not to a Quake III player folder",
        )));
    }
    if player {
        // The assembled player: its clips play one after another (each on the parts it
        // drives, the other part resting in the standing idle), or only --clip's.
        let mut scene =
            players::player(path, &choice.request(&[]), Shape::Scene).map_err(|f| line(path, f))?;
        textures::apply_player(&mut scene, path, choice.textures(), pending);
        textures::decode_for_render(&mut scene, path, pending);
        return morph_stills(path, &scene, options, max_output);
    }
    let loaded = Loaded::open(path)?;
    let anims = load_anims(anims)?;
    let mut scene = loaded.build(&anims, choice, Shape::Scene)?;
    let (keys, total, delays) = planned_keys(
        path,
        &scene,
        "nothing to animate: the model has no animation (md5mesh: give --anim)",
        options,
        max_output,
    )?;
    let mut stills = Vec::new();
    if pictures::skinned(&scene) {
        for k in 0..total {
            let at_k = Choice {
                frame: Some(k),
                ..choice
            };
            let mut s = loaded.build(&anims, at_k, Shape::Frame)?;
            let (format, bytes) = (loaded.format, &loaded.bytes);
            // Every frame names the same textures: report them once (frame 0's).
            let quiet = textures::Pending::default();
            let report = if k == 0 { pending } else { &quiet };
            textures::apply(&mut s, path, format, bytes, choice.textures(), report);
            textures::decode_for_render(&mut s, path, report);
            stills.push(s);
        }
    } else {
        let (format, bytes) = (loaded.format, &loaded.bytes);
        textures::apply(&mut scene, path, format, bytes, choice.textures(), pending);
        textures::decode_for_render(&mut scene, path, pending);
        stills = posed(&scene, &keys);
    }
    Ok((stills, delays))
}

/// Per animation played, its index and key times.
type Keys = Vec<(usize, Vec<f32>)>;

/// The animations `render --animate` plays (every one with keys; only the first for a
/// skinned scene, posed frame by frame), their key count and delays, after the budget
/// check; `empty` is the refusal when nothing has keys.
fn planned_keys(
    path: &Path,
    scene: &Scene,
    empty: &str,
    options: &RenderOptions,
    max_output: Option<u64>,
) -> Result<(Keys, usize, Vec<u16>), Error> {
    let mut keys: Keys = (0..scene.animations.len())
        .map(|a| (a, pictures::key_times(scene, a)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    if pictures::skinned(scene) {
        keys.truncate(1);
    }
    let total = keys
        .iter()
        .map(|(_, t)| t.len())
        .fold(0usize, usize::saturating_add);
    if total == 0 {
        return Err(Error::Failed(line(path, empty)));
    }
    pictures::check_budget(total, options.width, options.height, max_output)
        .map_err(|e| line(path, e))?;
    let delays = keys
        .iter()
        .flat_map(|(_, times)| pictures::delays_ms(times))
        .collect();
    Ok((keys, total, delays))
}

/// A still of `scene` at every key of `keys`, in order.
fn posed(scene: &Scene, keys: &Keys) -> Vec<Scene> {
    keys.iter()
        .flat_map(|(a, times)| (0..times.len()).map(move |k| pictures::pose(scene, *a, k)))
        .collect()
}

/// The stills of every key of every animation of a morph and node-animated scene (a
/// player), after the budget check, and their delays.
fn morph_stills(
    path: &Path,
    scene: &Scene,
    options: &RenderOptions,
    max_output: Option<u64>,
) -> Result<(Vec<Scene>, Vec<u16>), Error> {
    let (keys, _, delays) = planned_keys(
        path,
        scene,
        "nothing to animate: the player has no frames to play",
        options,
        max_output,
    )?;
    Ok((posed(scene, &keys), delays))
}
