//! The four subcommands: file handling, output and exit codes around the format modules.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use idmodel::{Format, detect};
use idmodel_gltf::{ExportOptions, png_rgba8, to_glb_pieces, to_gltf};
use idmodel_scene::Scene;

use crate::textures;
use idmodel_scene::axes::Axes;
use idmodel_scene::obj;
use idmodel_scene::render::{self, Picture, RenderOptions};
use rayon::prelude::*;

use crate::failure::Failure;
use crate::formats::{self, Input, ModelFormat, Shape};
use crate::output::{self, Plan, Policy, Stop};
use crate::pictures;
use crate::players::{self, Choice, Skipped, Written};
use crate::{Command, Exit, OutKind, error_line, out_line};

/// Files larger than this are refused before reading (no id model comes near it).
const MAX_FILE: u64 = 1 << 30;

/// Extensions `convert FOLDER` picks up (md5anim files need a mesh: use `--anim`).
const MODEL_EXTENSIONS: [&str; 5] = ["mdl", "md2", "md3", "md5mesh", "md5camera"];

/// `convert`'s `--max-output` and `--dense-weights`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// The budget of an animated scene, adapters and glTF writer alike (`None`: default).
    max_bytes: Option<u64>,
    /// Plain dense morph weights instead of sparse accessors.
    dense_weights: bool,
}

/// What `convert` was asked beside its input and output, passed on as given to every
/// conversion path (a file, a player folder, a folder, an archive, a batch).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Job<'a> {
    /// `--anim` files (md5anim for an md5mesh).
    pub(crate) anims: &'a [PathBuf],
    /// `--frame`, `--clip`, `--skin` and the other scene choices.
    pub(crate) frame: Choice<'a>,
    /// `--keep-axes`.
    pub(crate) axes: Axes,
    /// `--max-output`, `--dense-weights`.
    pub(crate) limits: Limits,
    /// `--to`.
    pub(crate) to: Option<OutKind>,
    /// `--force`.
    pub(crate) force: bool,
}

/// Runs one subcommand.
pub fn run(command: Command) -> Exit {
    match command {
        Command::Info { file, json, game } => {
            crate::archives::set_game(&game);
            info(&file, json)
        }
        Command::Check {
            paths,
            engine,
            fail_on,
            json,
            game,
            allow,
        } => {
            crate::archives::set_game(&game);
            crate::check::run(&crate::check::Request {
                paths,
                engine: engine.map(|e| e.0),
                fail_on: fail_on.severity(),
                json,
                allow,
            })
        }
        Command::Convert {
            input,
            output,
            anims,
            frame,
            clip,
            skin,
            quiet,
            keep_axes,
            to,
            force,
            max_output,
            dense_weights,
            no_textures,
            keep_normals,
            game,
            anim_out,
            fps,
            engine,
            shader_prefix,
            no_split,
            skin_name,
            palette,
            groups,
            lods,
        } => {
            crate::archives::set_game(&game);
            if crate::md5_out::Md5Kind::of(&output).is_some() {
                let request = crate::md5_out::Md5Request {
                    anim_out,
                    fps,
                    keep_axes,
                    max_bytes: max_output,
                    quiet,
                    force,
                };
                return crate::md5_out::convert(&input, &output, &request);
            }
            if !anim_out.is_empty() {
                return usage("--anim-out applies to md5 outputs (.md5mesh)");
            }
            if crate::import::is_target(&input, &output, to) || crate::import::is_obj(&input) {
                return crate::import::convert(&crate::import::ImportArgs {
                    input: &input,
                    output: &output,
                    to,
                    // 1..=1000 (the argument's range) is exact in f32.
                    fps: fps.and_then(|f| u16::try_from(f).ok()).map(f32::from),
                    engine: engine.map(|e| e.0),
                    shader_prefix: &shader_prefix,
                    no_split,
                    keep_axes,
                    force,
                    quiet,
                    skin_name: skin_name.as_deref(),
                    palette: palette.as_deref(),
                    groups,
                    skin: skin.as_deref(),
                    lods: &lods,
                });
            }
            if lods.any() {
                return usage(
                    "--lods, --lod1 and --lod2 apply to conversions to MD3 (.md3 or a player folder)",
                );
            }
            if fps.is_some() {
                return usage(
                    "--fps applies to conversions to id formats (.md3, .md2, .mdl, .md5mesh, .md5anim, .md5camera)",
                );
            }
            if skin_name.is_some() || palette.is_some() || groups {
                return usage(
                    "--skin-name, --palette and --groups apply to glTF conversions to .md2 / .mdl",
                );
            }
            let axes = if keep_axes { Axes::Keep } else { Axes::YUp };
            let frame = Choice {
                frame,
                clip: clip.as_deref(),
                skin: skin.as_deref(),
                quiet,
                max_bytes: max_output,
                no_textures,
                keep_normals,
            };
            let limits = Limits {
                max_bytes: max_output,
                dense_weights,
            };
            let job = Job {
                anims: &anims,
                frame,
                axes,
                limits,
                to,
                force,
            };
            if let Some(exit) = crate::archives::convert(&input, &output, job) {
                exit
            } else if input.is_dir() && formats::md3::is_player_folder(&input) {
                convert_player(&input, &output, job)
            } else if input.is_dir() {
                convert_folder(&input, &output, job)
            } else {
                convert_file(&input, &output, job)
            }
        }
        Command::Completions { shell } => crate::usage::completions(shell),
        Command::Man { command } => crate::usage::man(command.as_deref()),
        Command::Render {
            file,
            output,
            frame,
            clip,
            skin,
            anims,
            size,
            background,
            force,
            no_textures,
            keep_normals,
            game,
            animate,
            turntable,
            max_output,
        } => {
            crate::archives::set_game(&game);
            let sheet = file.is_dir() && !formats::md3::is_player_folder(&file)
                || crate::archives::is_archive_file(&file);
            let size = size.unwrap_or(if sheet { (128, 128) } else { (512, 512) });
            let options = RenderOptions {
                width: size.0,
                height: size.1,
                background,
                ..RenderOptions::default()
            };
            let motion = if animate {
                Motion::Animate
            } else if let Some(n) = turntable {
                Motion::Turntable(n)
            } else {
                Motion::Still
            };
            let motion = (motion, max_output);
            let frame = Choice {
                frame,
                clip: clip.as_deref(),
                skin: skin.as_deref(),
                quiet: true,
                max_bytes: None,
                no_textures,
                keep_normals,
            };
            render_file(&file, &output, &anims, frame, &options, force, motion)
        }
    }
}

/// Prints a usage error (one line, then the subcommand's usage) and returns exit
/// status 2.
pub(crate) fn usage(message: impl std::fmt::Display) -> Exit {
    crate::usage::print(&message.to_string());
    Exit::Usage
}

/// A failure that names its file: the line printed for it.
pub(crate) fn line(path: &Path, failure: impl std::fmt::Display) -> String {
    format!("{}: {failure}", path.display())
}

/// Reads a model file, refusing anything but a regular file (without blocking on a
/// FIFO) and absurd sizes.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    crate::archives::read(path, MAX_FILE)
}

/// What `bytes` is, and the module that reads it.
pub(crate) fn identify(bytes: &[u8]) -> Result<(Format, &'static dyn ModelFormat), Failure> {
    match detect(bytes) {
        None if idmodel::core::detect::starts_like_md5(bytes) => {
            // MD5 text that the detector cannot place: say where it goes wrong.
            let why = match idmodel::md5::mesh::Model::parse(bytes) {
                Err(e) => format!(
                    "{} (line {}, column {}, at byte {})",
                    e.kind(),
                    e.line(),
                    e.column(),
                    e.offset()
                ),
                Ok(_) => "its header names none of the three kinds".to_owned(),
            };
            Err(Failure::new(format!(
                "starts like Doom 3 MD5 text but is not a valid md5mesh, md5anim or md5camera: {why}"
            )))
        }
        None => {
            let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
            Err(Failure::new(if bytes.is_empty() {
                "not a model idmodel knows: the file is empty".to_owned()
            } else {
                format!(
                    "not a model idmodel knows (it starts with bytes {})",
                    head.join(" ")
                )
            }))
        }
        Some(f) => match formats::module(f) {
            Some(m) if f.is_supported() => Ok((f, m)),
            _ => Err(Failure::new(format!(
                "this is a {}, which idmodel does not read",
                f.name()
            ))),
        },
    }
}

/// A model file read and identified.
struct Loaded {
    path: PathBuf,
    format: Format,
    module: &'static dyn ModelFormat,
    bytes: Vec<u8>,
}

impl Loaded {
    fn open(path: &Path) -> Result<Loaded, String> {
        let bytes = read(path).map_err(|f| line(path, f))?;
        let (format, module) = identify(&bytes).map_err(|f| line(path, f))?;
        Ok(Loaded {
            path: path.to_owned(),
            format,
            module,
            bytes,
        })
    }

    fn input(&self) -> Input<'_> {
        Input {
            path: &self.path,
            format: self.format,
            bytes: &self.bytes,
        }
    }

    /// The model's `shape` scene for `choice`, with the `--anim` files `anims`; the
    /// failure is a line naming the file.
    fn build(&self, anims: &[Loaded], choice: Choice<'_>, shape: Shape) -> Result<Scene, String> {
        let anim_inputs: Vec<Input<'_>> = anims.iter().map(Loaded::input).collect();
        let request = choice.request(&anim_inputs);
        self.module
            .build(&self.input(), &request, shape)
            .map_err(|f| line(&self.path, f))
    }
}

/// `--anim` applies only to an md5mesh: a usage error for any other readable model
/// (a file that cannot be read is left to the command, which says why).
fn anims_apply(input: &Path, anims: &[PathBuf]) -> Result<(), Exit> {
    if anims.is_empty() {
        return Ok(());
    }
    match Loaded::open(input) {
        Ok(l) if l.format != Format::Md5Mesh => Err(usage(line(
            input,
            format!(
                "--anim applies only to a Doom 3 md5mesh; this is a {}",
                l.format.name()
            ),
        ))),
        _ => Ok(()),
    }
}

/// Reads the `--anim` files; each must be an md5anim.
fn load_anims(paths: &[PathBuf]) -> Result<Vec<Loaded>, String> {
    paths
        .iter()
        .map(|p| {
            let l = Loaded::open(p)?;
            if l.format == Format::Md5Anim {
                Ok(l)
            } else {
                Err(line(
                    p,
                    format!(
                        "--anim expects a Doom 3 md5anim, this is a {}",
                        l.format.name()
                    ),
                ))
            }
        })
        .collect()
}

/// [`crate::archives::prepare`], its refusal printed as the one error line and given
/// back as the exit.
fn prepare_reported(path: &Path) -> Result<Option<PathBuf>, Exit> {
    output::or_failed(crate::archives::prepare(path))
}

fn info(path: &Path, json: bool) -> Exit {
    if let Some(exit) = crate::archives::info(path, json) {
        return exit;
    }
    let prepared = match prepare_reported(path) {
        Ok(p) => p,
        Err(exit) => return exit,
    };
    let path = prepared.as_deref().unwrap_or(path);
    if let Some(exit) = players::info_folder(path, json) {
        return exit;
    }
    let bytes = match read(path) {
        Ok(b) => b,
        Err(f) => {
            error_line(line(path, f));
            return Exit::Failed;
        }
    };
    match info_report(path, &bytes, json) {
        Ok(report) => {
            out_line(report);
            Exit::Ok
        }
        Err(e) => {
            error_line(e);
            Exit::Failed
        }
    }
}

/// The `info` output for `bytes` read from `path` (no trailing newline).
pub fn info_report(path: &Path, bytes: &[u8], json: bool) -> Result<String, String> {
    if let Some(report) = crate::sidefiles::info_report(path, bytes, json) {
        return report;
    }
    if let Some(report) = crate::import::obj_info(path, bytes, json) {
        return report;
    }
    let (format, module) = identify(bytes).map_err(|f| line(path, f))?;
    let input = Input {
        path,
        format,
        bytes,
    };
    let info = module.info(&input).map_err(|f| line(path, f))?;
    if json {
        crate::info::json(path, &info)
    } else {
        Ok(crate::info::text(path, format, &info))
    }
}

/// The output kind of a single-file conversion, from the extension and `--to`.
fn kind_of(output: &Path, to: Option<OutKind>) -> Result<OutKind, String> {
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let from_ext = match ext.as_deref() {
        Some("glb") => Some(OutKind::Glb),
        Some("gltf") => Some(OutKind::Gltf),
        Some("obj") => Some(OutKind::Obj),
        _ => None,
    };
    match (from_ext, to) {
        (Some(k), None) => Ok(k),
        (Some(k), Some(t)) if k == t => Ok(k),
        (Some(k), Some(t)) => Err(format!(
            "--to {} contradicts the output extension .{}",
            t.ext(),
            k.ext()
        )),
        (None, Some(_)) | (None, None) => Err(format!(
            "cannot tell the output format of '{}': name it .glb, .gltf or .obj",
            output.display()
        )),
    }
}

pub(crate) fn convert_file(input: &Path, output: &Path, job: Job<'_>) -> Exit {
    let kind = match kind_of(output, job.to) {
        Ok(k) => k,
        Err(m) => return usage(m),
    };
    if let Err(exit) = anims_apply(input, job.anims) {
        return exit;
    }
    let policy = Policy {
        force: job.force,
        named: true,
    };
    match convert_one(input, output, job, (kind, policy), false) {
        Ok(written) => {
            if !job.frame.quiet {
                out_line(written);
            }
            Exit::Ok
        }
        Err(e) => e.report(),
    }
}

/// Converts one file, or with `player` the Quake III player in the folder `input` (for
/// `.obj` one posed frame), to `target` (the output kind and the write policy); the error
/// is the complete line to print.
fn convert_one(
    input: &Path,
    output: &Path,
    job: Job<'_>,
    target: (OutKind, Policy),
    player: bool,
) -> Result<Written, Stop> {
    let frame = job.frame;
    if player {
        let request = frame.request(&[]);
        return export(input, output, job, target, |shape, pending| {
            let mut s = players::player(input, &request, shape)?;
            textures::apply_player(&mut s, input, frame.textures(), pending);
            Ok(s)
        });
    }
    let loaded = Loaded::open(input)?;
    let anims = load_anims(job.anims)?;
    let anim_inputs: Vec<Input<'_>> = anims.iter().map(Loaded::input).collect();
    let request = frame.request(&anim_inputs);
    export(input, output, job, target, |shape, pending| {
        let mut s = loaded.module.build(&loaded.input(), &request, shape)?;
        let (format, bytes) = (loaded.format, &loaded.bytes);
        textures::apply(&mut s, input, format, bytes, frame.textures(), pending);
        Ok(s)
    })
}

/// Writes the one file `output` (a picture) through a [`Plan`]: `--force` replaces a
/// read-only output, never an input.
fn write_one(output: &Path, bytes: Vec<u8>, force: bool) -> Result<(), Stop> {
    let mut plan = Plan::new(Policy { force, named: true });
    plan.output(output, bytes);
    plan.commit()
}

/// A picture as a PNG file.
fn picture_png(picture: &Picture) -> Result<Vec<u8>, Failure> {
    Ok(png_rgba8(picture.width, picture.height, &picture.rgba)?)
}

/// Files to write beside an output: (file name, bytes), in writing order.
type Beside = Vec<(String, Vec<u8>)>;

/// The OBJ export of a still scene: the `.obj` text and the files beside it (the `.mtl`,
/// the embedded skins encoded as PNG).
fn obj_files(frame: &Scene, stem: &str, axes: Axes) -> Result<(String, Beside), Failure> {
    let files = obj::to_obj(frame, stem, axes)?;
    let mut beside = Vec::new();
    if let Some(mtl) = files.mtl {
        beside.push((format!("{stem}.mtl"), mtl.into_bytes()));
    }
    for t in &files.textures {
        beside.push((t.file.clone(), png_rgba8(t.width, t.height, &t.pixels)?));
    }
    for (name, bytes) in &files.encoded {
        beside.push((name.clone(), bytes.to_vec()));
    }
    Ok((files.obj, beside))
}

/// Writes the scene (`.glb`/`.gltf`) or one frame (`.obj`) `build` makes of `input` to
/// `output` as `target` (the kind and the write policy), with its side files, all
/// checked before any is written (`output::Plan`); the texture warnings `build` leaves
/// are printed after (unless `--quiet`). The error is the complete line to print.
fn export(
    input: &Path,
    output: &Path,
    job: Job<'_>,
    (kind, policy): (OutKind, Policy),
    build: impl FnOnce(Shape, &textures::Pending) -> Result<Scene, Failure>,
) -> Result<Written, Stop> {
    let pending = textures::Pending::default();
    let (axes, limits) = (job.axes, job.limits);
    let options = ExportOptions {
        axes,
        dense_weights: limits.dense_weights,
        max_bytes: limits.max_bytes,
        ..ExportOptions::default()
    };
    let mut plan = Plan::new(policy);
    let stem = output
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_owned();
    let dir = output.parent().unwrap_or(Path::new(""));
    let mut written = Written::new(output);
    match kind {
        OutKind::Md3 | OutKind::Md2 | OutKind::Mdl | OutKind::Md5mesh | OutKind::Player => {
            return Err(Stop::Refused(line(
                input,
                format!("converting to .{} needs a .glb or .gltf input", kind.ext()),
            )));
        }
        OutKind::Glb | OutKind::Gltf => {
            let scene = build(Shape::Scene, &pending).map_err(|f| line(input, f))?;
            written.count_textures(&scene);
            if kind == OutKind::Glb {
                // Written as its two pieces: the binary buffer is not moved to join them.
                let glb =
                    to_glb_pieces(&scene, &options).map_err(|e| line(input, Failure::from(e)))?;
                written.bytes = u64::try_from(glb.len()).unwrap_or(u64::MAX);
                let (front, bin) = glb.into_pieces();
                plan.output_pieces(output, vec![front, bin]);
            } else {
                let bin_name = format!("{stem}.bin");
                let files = to_gltf(&scene, &options, &bin_name)
                    .map_err(|e| line(input, Failure::from(e)))?;
                if !files.bin.is_empty() {
                    plan.side(&dir.join(&bin_name), files.bin);
                }
                for (name, bytes) in files.images {
                    plan.side(&dir.join(name), bytes);
                }
                written.bytes = players::len(&files.json);
                plan.output(output, files.json);
            }
        }
        OutKind::Obj => {
            let frame = build(Shape::Frame, &pending).map_err(|f| line(input, f))?;
            written.count_textures(&frame);
            let (text, beside) = obj_files(&frame, &stem, axes).map_err(|f| line(input, f))?;
            for (name, bytes) in beside {
                plan.side(&dir.join(name), bytes);
            }
            written.bytes = players::len(text.as_bytes());
            plan.output(output, text.into_bytes());
        }
    }
    plan.commit()?;
    written.missing = written.missing.saturating_add(pending.not_found());
    pending.print(job.frame.quiet);
    Ok(written)
}

/// `convert` of a Quake III player folder (`lower.md3`, `upper.md3`, `head.md3`): one
/// assembled model. OUTPUT is the file to write, or a folder to write
/// `<folder name>.<ext>` into (`--to`, default glb).
pub(crate) fn convert_player(input: &Path, output: &Path, job: Job<'_>) -> Exit {
    if !job.anims.is_empty() {
        return usage("--anim applies to one md5mesh, not to a Quake III player folder");
    }
    let has_ext = output.extension().is_some() && !output.is_dir();
    let (output, kind) = if has_ext {
        match kind_of(output, job.to) {
            Ok(k) => (output.to_path_buf(), k),
            Err(m) => return usage(m),
        }
    } else {
        let kind = job.to.unwrap_or(OutKind::Glb);
        let name = input
            .file_name()
            .map_or_else(|| "player".into(), |n| n.to_string_lossy().into_owned());
        (output.join(format!("{name}.{}", kind.ext())), kind)
    };
    // Written into a folder, the file name is derived: an existing file is kept.
    let policy = Policy {
        force: job.force,
        named: has_ext,
    };
    match convert_one(input, &output, job, (kind, policy), true) {
        Ok(written) => {
            if !job.frame.quiet {
                out_line(format_args!(
                    "assembled the Quake III player in {} (upper.md3 on lower.md3's tag_torso, head.md3 on upper.md3's tag_head) into {} ({})",
                    input.display(),
                    output.display(),
                    written.what()
                ));
            }
            Exit::Ok
        }
        Err(e) => e.report(),
    }
}

/// Every model file under `dir`, sorted, by extension (case-insensitive); a Quake III
/// player folder is one entry (the folder itself), and what is not converted is counted
/// in `skipped`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<String>, skipped: &mut Skipped) {
    walk_in(dir, &MODEL_EXTENSIONS, out, errors, Some(skipped));
}

/// Every file under `dir` with one of the extensions `exts` (lowercase), sorted.
pub(crate) fn walk_ext(
    dir: &Path,
    exts: &[&str],
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
) {
    walk_in(dir, exts, out, errors, None);
}

/// [`walk_ext`], and for a batch (`skipped` given) [`walk`]'s player folders and skips.
fn walk_in(
    dir: &Path,
    exts: &[&str],
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
    mut skipped: Option<&mut Skipped>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(line(dir, format!("cannot list folder: {e}")));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let player = skipped.is_some() && formats::md3::is_player_folder(dir);
    if player {
        out.push(dir.to_path_buf());
    }
    for p in paths {
        // Symlinked folders are not followed (no loops).
        let is_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if is_dir {
            walk_in(&p, exts, out, errors, skipped.as_deref_mut());
        } else if skipped.as_deref_mut().is_some_and(|s| s.skips(&p, player)) {
            // Counted: an md5anim (needs a mesh), another model of a player folder.
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e.to_ascii_lowercase().as_str()))
        {
            // A FIFO or device named like a model is skipped, never opened.
            match std::fs::metadata(&p).map(|m| output::not_regular(m.file_type())) {
                Ok(Some(why)) => errors.push(line(&p, format!("skipped: {why}"))),
                _ => out.push(p),
            }
        }
    }
}

/// Output paths for a batch: `OUT/<relative dir>/<stem>.<ext>`; when two inputs would
/// share an output (`ogre.md2` and `ogre.mdl`), both keep their extension
/// (`ogre.md2.glb`, `ogre.mdl.glb`).
fn batch_outputs(input: &Path, output: &Path, files: &[PathBuf], kind: OutKind) -> Vec<PathBuf> {
    let rel = |f: &Path| {
        f.strip_prefix(input)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| f.to_path_buf())
    };
    let short: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            if is_player_entry(f) {
                // A player folder: `OUT/<relative folder>.<ext>`.
                let mut name = rel(f).into_os_string();
                name.push(".");
                name.push(kind.ext());
                output.join(name)
            } else {
                output.join(rel(f)).with_extension(kind.ext())
            }
        })
        .collect();
    short
        .iter()
        .zip(files)
        .map(|(s, f)| {
            if short.iter().filter(|o| *o == s).count() > 1 {
                let mut name = rel(f).into_os_string();
                name.push(".");
                name.push(kind.ext());
                output.join(name)
            } else {
                s.clone()
            }
        })
        .collect()
}

fn convert_folder(input: &Path, output: &Path, job: Job<'_>) -> Exit {
    if !job.anims.is_empty() {
        return usage("--anim applies to one md5mesh, not to a folder");
    }
    if let Err(exit) = batch_output_ok(output) {
        return exit;
    }
    let mut files = Vec::new();
    let mut failures = Vec::new();
    let mut skipped = Skipped::default();
    walk(input, &mut files, &mut failures, &mut skipped);
    if files.is_empty() {
        error_line(line(
            input,
            format!(
                "no model files (.{}) under this folder",
                MODEL_EXTENSIONS.join(", .")
            ),
        ));
        // Say why files named like models were skipped (a FIFO, a device).
        for f in failures {
            error_line(f);
        }
        return Exit::Failed;
    }
    convert_batch(input, &files, failures, &skipped, output, job)
}

/// The output of a batch must be a folder (or not exist yet): a usage error otherwise.
pub(crate) fn batch_output_ok(output: &Path) -> Result<(), Exit> {
    if output.exists() && !output.is_dir() {
        return Err(usage(format!(
            "the output of a folder conversion must be a folder; '{}' is a file",
            output.display()
        )));
    }
    if !output.is_dir() && kind_of(output, None).is_ok() {
        return Err(usage(format!(
            "the output of a folder conversion is a folder, not a .{} file: name a folder and choose the format with --to",
            output
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default()
        )));
    }
    Ok(())
}

/// Whether a batch entry is a Quake III player folder (on disk or in an archive).
fn is_player_entry(file: &Path) -> bool {
    file.is_dir() || crate::archives::is_player(file)
}

/// Converts the batch `files` found under `input` (a folder, or an archive's virtual
/// root) into the folder `output`; `failures` are the walk's. All outputs are checked
/// before anything is converted.
pub(crate) fn convert_batch(
    input: &Path,
    files: &[PathBuf],
    mut failures: Vec<String>,
    skipped: &Skipped,
    output: &Path,
    job: Job<'_>,
) -> Exit {
    let (frame, force) = (job.frame, job.force);
    let job = Job { anims: &[], ..job };
    let kind = job.to.unwrap_or(OutKind::Glb);
    let outputs = batch_outputs(input, output, files, kind);
    if let Err(refused) = output::check_batch(input, &outputs, kind, force) {
        for r in &refused {
            error_line(r);
        }
        error_line(format_args!(
            "nothing was converted: {} output files refused (--force replaces existing files, never inputs)",
            refused.len()
        ));
        return Exit::Usage;
    }
    let policy = Policy {
        force,
        named: false,
    };
    let bar = if std::io::stderr().is_terminal() && !frame.quiet {
        let bar = indicatif::ProgressBar::new(u64::try_from(files.len()).unwrap_or(u64::MAX));
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:20} {pos}/{len} {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let panicked = AtomicBool::new(false);
    // Largest inputs first, each thread taking the next file when it is free (greedy
    // list scheduling: `par_bridge` hands the files out in this order). A batch takes
    // as long as its busiest thread; in the folder's order, or with `par_iter`'s halves,
    // the big models can land on one thread one after the other (the corpus's `mdl`
    // folder: `boss.mdl`, then `oldone.mdl` and its 4096-wide skin). The results go back
    // to the folder's order below.
    let mut order: Vec<(u64, usize)> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (std::fs::metadata(f).map_or(0, |m| m.len()), i))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut indexed: Vec<(usize, Result<Written, String>)> = order
        .into_iter()
        .filter_map(|(_, i)| Some((i, files.get(i)?, outputs.get(i)?)))
        .par_bridge()
        .map(|(i, file, out)| {
            bar.set_message(players::progress_label(input, file));
            let result = std::panic::catch_unwind(|| {
                convert_one(file, out, job, (kind, policy), is_player_entry(file))
                    .map_err(String::from)
            })
            .unwrap_or_else(|_| {
                panicked.store(true, Ordering::Relaxed);
                Err(line(file, "internal error while converting (see above)"))
            });
            bar.inc(1);
            (i, result)
        })
        .collect();
    indexed.sort_by_key(|(i, _)| *i);
    let results: Vec<Result<Written, String>> = indexed.into_iter().map(|(_, r)| r).collect();
    bar.finish_and_clear();
    let done = results.iter().filter(|r| r.is_ok()).count();
    failures.extend(results.into_iter().filter_map(Result::err));
    if !frame.quiet {
        out_line(format_args!(
            "converted {done} of {} models from {} to {} ({}), {}, failed {}",
            files.len(),
            input.display(),
            output.display(),
            kind.ext(),
            skipped,
            failures.len()
        ));
    }
    if failures.is_empty() && !panicked.load(Ordering::Relaxed) {
        return Exit::Ok;
    }
    error_line(format_args!("{} failed:", failures.len()));
    for f in failures {
        error_line(f);
    }
    Exit::Failed
}

/// What `render` draws: one picture, every frame of a clip, or a turntable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Motion {
    /// One picture (`--frame`, `--clip`).
    Still,
    /// `--animate`: every frame of the clip (or of the whole model) as an APNG.
    Animate,
    /// `--turntable N`: N views turning once about the up axis as an APNG.
    Turntable(u16),
}

/// One turn of a turntable takes this long.
const TURN_MS: u32 = 4000;

fn render_file(
    path: &Path,
    output: &Path,
    anims: &[PathBuf],
    frame: Choice<'_>,
    options: &RenderOptions,
    force: bool,
    (motion, max_output): (Motion, Option<u64>),
) -> Exit {
    let choice = frame;
    if path.is_dir() && !formats::md3::is_player_folder(path)
        || crate::archives::is_archive_file(path)
    {
        return contact_sheet(path, output, choice, options, force, motion);
    }
    let prepared = match prepare_reported(path) {
        Ok(p) => p,
        Err(exit) => return exit,
    };
    let path = prepared.as_deref().unwrap_or(path);
    if let Err(exit) = anims_apply(path, anims) {
        return exit;
    }
    let pending = textures::Pending::default();
    let result = (|| -> Result<(), Stop> {
        let draw = |scene: &Scene, options: &RenderOptions| {
            render::render(scene, options).map_err(|e| line(path, Failure::from(e)))
        };
        let png = match motion {
            Motion::Still => {
                let frame = still_scene(path, anims, choice, &pending)?;
                picture_png(&draw(&frame, options)?).map_err(|f| line(path, f))?
            }
            Motion::Turntable(n) => {
                let frame = still_scene(path, anims, choice, &pending)?;
                pictures::check_budget(usize::from(n), options.width, options.height, max_output)
                    .map_err(|e| line(path, e))?;
                let mut frames = Vec::new();
                for k in 0..n {
                    let yaw = core::f32::consts::TAU * f32::from(k) / f32::from(n);
                    frames.push(draw(&frame, &RenderOptions { yaw, ..*options })?);
                }
                let delay = u16::try_from(TURN_MS.checked_div(u32::from(n)).unwrap_or(1).max(1))
                    .unwrap_or(u16::MAX);
                pictures::apng(&frames, &vec![delay; frames.len()]).map_err(|e| line(path, e))?
            }
            Motion::Animate => {
                let (pictures_of, delays) =
                    animated_frames(path, anims, choice, &pending, options, max_output)?;
                let mut bounds = None;
                for s in &pictures_of {
                    bounds = pictures::union(bounds, render::drawn_bounds(s));
                }
                let framed = RenderOptions { bounds, ..*options };
                let mut out = Vec::new();
                for s in &pictures_of {
                    out.push(draw(s, &framed)?);
                }
                pictures::apng(&out, &delays).map_err(|e| line(path, e))?
            }
        };
        write_one(output, png, force)
    })();
    match result {
        Ok(()) => {
            // `render` has no --quiet: its warnings are always shown.
            pending.print(false);
            Exit::Ok
        }
        Err(e) => e.report(),
    }
}

/// `render DIR|ARCHIVE`: a contact sheet of every model under the folder or in the
/// archive (players as one cell each in folders); a model that fails is a grey cell
/// with "error" and a line on stderr, not a failed sheet.
fn contact_sheet(
    path: &Path,
    output: &Path,
    choice: Choice<'_>,
    options: &RenderOptions,
    force: bool,
    motion: Motion,
) -> Exit {
    if motion != Motion::Still {
        return usage(format_args!(
            "{}: --animate and --turntable draw one model, not a contact sheet",
            path.display()
        ));
    }
    let mut failures = Vec::new();
    let files = match crate::archives::check_paths(path) {
        Some(Ok(files)) => files,
        Some(Err(e)) => {
            error_line(e);
            return Exit::Failed;
        }
        None => {
            let mut files = Vec::new();
            let mut skipped = Skipped::default();
            walk(path, &mut files, &mut failures, &mut skipped);
            files
        }
    };
    for f in &failures {
        error_line(f);
    }
    if files.is_empty() {
        error_line(line(path, "no models to draw a contact sheet of"));
        return Exit::Failed;
    }
    let mut sheet = match crate::sheet::Sheet::new(
        files.len(),
        (options.width, options.height),
        options.background,
        render::MAX_SIDE,
    ) {
        Ok(s) => s,
        Err(e) => {
            error_line(line(path, e));
            return Exit::Failed;
        }
    };
    let pending = textures::Pending::default();
    for (i, file) in files.iter().enumerate() {
        let label = crate::sheet::name_of(file);
        let thumb = still_scene(file, &[], choice, &pending).and_then(|s| {
            render::render(&s, options).map_err(|e| Stop::Failed(line(file, Failure::from(e))))
        });
        match thumb {
            Ok(t) => sheet.cell(i, &t, &label),
            Err(e) => {
                error_line(e.line());
                sheet.failed(i, &label);
            }
        }
    }
    let result = (|| -> Result<(), Stop> {
        let png = picture_png(&sheet.finish()).map_err(|f| line(path, f))?;
        write_one(output, png, force)
    })();
    // Like `render`, the sheet's texture warnings are always shown.
    pending.print(false);
    match result {
        Ok(()) => Exit::Ok,
        Err(e) => e.report(),
    }
}

/// The one posed frame `render` draws of `path` (a model, ARCHIVE:ENTRY or a Quake III
/// player folder), textures applied and decoded.
fn still_scene(
    path: &Path,
    anims: &[PathBuf],
    choice: Choice<'_>,
    pending: &textures::Pending,
) -> Result<Scene, Stop> {
    let in_archive = crate::archives::is_virtual(path) && !crate::archives::is_file(path);
    let frame = if (path.is_dir() || in_archive) && formats::md3::is_player_folder(path) {
        if !anims.is_empty() {
            return Err(Stop::Refused(line(
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
) -> Result<(Vec<Scene>, Vec<u16>), Stop> {
    let folder =
        path.is_dir() || (crate::archives::is_virtual(path) && !crate::archives::is_file(path));
    let player = folder && formats::md3::is_player_folder(path);
    if folder && !player {
        return Err(Stop::Refused(line(
            path,
            "--animate takes one model file or a Quake III player folder, not a folder of models",
        )));
    }
    if player && !anims.is_empty() {
        return Err(Stop::Refused(line(
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
) -> Result<(Keys, usize, Vec<u16>), Stop> {
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
        return Err(Stop::Failed(line(path, empty)));
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
) -> Result<(Vec<Scene>, Vec<u16>), Stop> {
    let (keys, _, delays) = planned_keys(
        path,
        scene,
        "nothing to animate: the player has no frames to play",
        options,
        max_output,
    )?;
    Ok((posed(scene, &keys), delays))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_kinds() {
        assert_eq!(kind_of(Path::new("a.GLB"), None), Ok(OutKind::Glb));
        assert_eq!(
            kind_of(Path::new("a.gltf"), Some(OutKind::Gltf)),
            Ok(OutKind::Gltf)
        );
        assert!(kind_of(Path::new("a.obj"), Some(OutKind::Glb)).is_err());
        assert!(kind_of(Path::new("a.fbx"), None).is_err());
        assert!(kind_of(Path::new("a"), Some(OutKind::Glb)).is_err());
    }

    #[test]
    fn batch_output_names() {
        let files: Vec<PathBuf> = ["in/a/ogre.md2", "in/a/ogre.mdl", "in/b/tank.md2"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let outs = batch_outputs(Path::new("in"), Path::new("out"), &files, OutKind::Glb);
        assert_eq!(
            outs,
            ["out/a/ogre.md2.glb", "out/a/ogre.mdl.glb", "out/b/tank.glb"]
                .iter()
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        );
    }

    /// The PNG of a picture decodes to the picture's size (the renderer itself is tested in
    /// `idmodel_scene::render`).
    #[test]
    fn rendered_pictures_encode_as_png_of_their_size() {
        use idmodel_scene::Primitive;
        let tri = Primitive {
            positions: vec![[0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        };
        let scene = Scene::still("triangle", vec![tri], Vec::new());
        for (name, size) in [
            ("wide", (320, 200)),
            ("square", (128, 128)),
            ("tall", (64, 300)),
        ] {
            let options = RenderOptions {
                width: size.0,
                height: size.1,
                ..RenderOptions::default()
            };
            let png_bytes = picture_png(&render::render(&scene, &options).unwrap()).unwrap();
            // Set IDMODEL_RENDER_DUMP=folder to look at the pictures.
            if let Some(dir) = std::env::var_os("IDMODEL_RENDER_DUMP") {
                std::fs::write(Path::new(&dir).join(format!("{name}.png")), &png_bytes).unwrap();
            }
            let decoder = png::Decoder::new(std::io::Cursor::new(&png_bytes));
            let mut reader = decoder.read_info().unwrap();
            let mut buf = vec![0; reader.output_buffer_size().unwrap()];
            let info = reader.next_frame(&mut buf).unwrap();
            assert_eq!((info.width, info.height), size, "{name}");
        }
    }

    /// An embedded skin of an OBJ export is written beside it as a PNG, after the `.mtl`.
    #[test]
    fn obj_skins_are_written_as_png() {
        use idmodel_scene::{Image, Material, Primitive};
        let tri = Primitive {
            positions: vec![[0.0; 3]; 3],
            uvs: vec![[0.0; 2]; 3],
            indices: vec![0, 1, 2],
            material: Some(0),
            ..Primitive::default()
        };
        let skin = Image::Rgba8 {
            width: 1,
            height: 1,
            pixels: vec![1, 2, 3, 255],
        };
        let scene = Scene::still("ogre", vec![tri], vec![Material::new("skin 0", Some(skin))]);
        let (text, beside) = obj_files(&scene, "ogre", Axes::YUp).unwrap();
        assert!(text.contains("usemtl skin_0\n"));
        assert_eq!(beside.len(), 2);
        assert_eq!(beside[0].0, "ogre.mtl");
        assert_eq!(beside[1].0, "ogre_0.png");
        assert!(beside[1].1.starts_with(b"\x89PNG"));
    }

    #[test]
    fn identify_names_impostors_and_garbage() {
        let e = identify(b"IDST\x0a\0\0\0").err().unwrap().to_string();
        assert_eq!(
            e,
            "this is a Half-Life studio model (IDST), which idmodel does not read"
        );
        let e = identify(b"\x01\x02\x03\x04\x05").err().unwrap().to_string();
        assert_eq!(
            e,
            "not a model idmodel knows (it starts with bytes 01 02 03 04)"
        );
        assert!(identify(b"").err().unwrap().to_string().contains("empty"));
        assert!(identify(b"IDPO\x06\0\0\0").is_ok());
    }
}
