//! One model as a scene, and a scene as GLB, glTF or OBJ files: reading and identifying
//! the file (or the Quake III player folder, or the archive entry), the format module
//! that builds its scene, its textures, and the export.

use std::path::{Path, PathBuf};

use crate::idmodel::{Format, detect};
use idmodel_gltf::{ExportOptions, png_rgba8, to_glb_pieces, to_gltf};
use idmodel_scene::Scene;
use idmodel_scene::axes::Axes;
use idmodel_scene::obj;

use crate::archives::read_file as read;
use crate::failure::{Failure, line};
use crate::formats::Choice;
use crate::formats::{self, Input, ModelFormat, Shape};
use crate::options::{Options, OutKind};
use crate::outcome::{Converted, Error, Outputs, Report};
use crate::players;
use crate::textures;

/// What `bytes` is, and the module that reads it.
pub(crate) fn identify(bytes: &[u8]) -> Result<(Format, &'static dyn ModelFormat), Failure> {
    match detect(bytes) {
        None if crate::idmodel::core::detect::starts_like_md5(bytes) => {
            // MD5 text that the detector cannot place: say where it goes wrong.
            let why = match crate::idmodel::md5::mesh::Model::parse(bytes) {
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
pub(crate) struct Loaded {
    path: PathBuf,
    pub(crate) format: Format,
    module: &'static dyn ModelFormat,
    pub(crate) bytes: Vec<u8>,
}

impl Loaded {
    pub(crate) fn open(path: &Path) -> Result<Loaded, String> {
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
    pub(crate) fn build(
        &self,
        anims: &[Loaded],
        choice: Choice<'_>,
        shape: Shape,
    ) -> Result<Scene, String> {
        let anim_inputs: Vec<Input<'_>> = anims.iter().map(Loaded::input).collect();
        let request = choice.request(&anim_inputs);
        self.module
            .build(&self.input(), &request, shape)
            .map_err(|f| line(&self.path, f))
    }
}

/// `--anim` applies only to an md5mesh: a usage error for any other readable model
/// (a file that cannot be read is left to the conversion, which says why).
pub(crate) fn anims_apply(input: &Path, anims: &[PathBuf]) -> Result<(), Error> {
    if anims.is_empty() {
        return Ok(());
    }
    match Loaded::open(input) {
        Ok(l) if l.format != Format::Md5Mesh => Err(Error::Usage(line(
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
pub(crate) fn load_anims(paths: &[PathBuf]) -> Result<Vec<Loaded>, String> {
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

/// The `info` output for `bytes` read from `path` (no trailing newline).
pub fn info_report(path: &Path, bytes: &[u8], json: bool) -> Result<String, String> {
    if let Some(report) = crate::sidefiles::info_report(path, bytes, json) {
        return report;
    }
    if let Some(report) = crate::info::obj_info(path, bytes, json) {
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
pub(crate) fn kind_of(output: &Path, to: Option<OutKind>) -> Result<OutKind, String> {
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
            "cannot tell the output format of '{}': name it .glb, .gltf or .obj (from a glTF or OBJ: .md3, .md2, .mdl, .md5mesh, .md5anim, .md5camera, or a folder for a Quake III player)",
            output.display()
        )),
    }
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

/// The choices of `options` a format module and the textures read.
pub(crate) fn choice(options: &Options) -> Choice<'_> {
    Choice {
        frame: options.frame,
        clip: options.clip.as_deref(),
        skin: options.skin.as_deref(),
        max_bytes: options.max_output,
        no_textures: options.no_textures,
        keep_normals: options.keep_normals,
        quantize: options.quantize,
        game: &options.game,
    }
}

/// Converts one model file, or with `player` the Quake III player in the folder `input`
/// (for `.obj` one posed frame), to `kind`; `named`: the caller named `output` (else it
/// was derived, as in a batch).
pub(crate) fn convert_one(
    input: &Path,
    output: &Path,
    options: &Options,
    kind: OutKind,
    named: bool,
    player: bool,
) -> Result<Converted, Error> {
    let frame = choice(options);
    if player {
        let request = frame.request(&[]);
        return export(input, output, options, (kind, named), |shape, pending| {
            let mut s = players::player(input, &request, shape)?;
            textures::apply_player(&mut s, input, frame.textures(), pending);
            Ok(s)
        });
    }
    let loaded = Loaded::open(input)?;
    let anims = load_anims(&options.anims)?;
    let anim_inputs: Vec<Input<'_>> = anims.iter().map(Loaded::input).collect();
    let request = frame.request(&anim_inputs);
    export(input, output, options, (kind, named), |shape, pending| {
        let mut s = loaded.module.build(&loaded.input(), &request, shape)?;
        let (format, bytes) = (loaded.format, &loaded.bytes);
        textures::apply(&mut s, input, format, bytes, frame.textures(), pending);
        Ok(s)
    })
}

/// A single model file to GLB, glTF or OBJ (the kind from `output` and `Options::to`).
pub(crate) fn convert_file(
    input: &Path,
    output: &Path,
    options: &Options,
) -> Result<Converted, Error> {
    let kind = kind_of(output, options.to).map_err(Error::Usage)?;
    anims_apply(input, &options.anims)?;
    let mut done = convert_one(input, output, options, kind, true, false)?;
    done.report.lines.push(done.report.written.to_string());
    Ok(done)
}

/// A Quake III player folder (`lower.md3`, `upper.md3`, `head.md3`) as one assembled
/// model. `output` is the file to write, or a folder to write `<folder name>.<ext>` into
/// (`Options::to`, default GLB).
pub(crate) fn convert_player(
    input: &Path,
    output: &Path,
    options: &Options,
) -> Result<Converted, Error> {
    if !options.anims.is_empty() {
        return Err(Error::Usage(
            "--anim applies to one md5mesh, not to a Quake III player folder".into(),
        ));
    }
    let has_ext = output.extension().is_some() && !output.is_dir();
    let (output, kind) = if has_ext {
        let kind = kind_of(output, options.to).map_err(Error::Usage)?;
        (output.to_path_buf(), kind)
    } else {
        let kind = options.to.unwrap_or(OutKind::Glb);
        let name = input
            .file_name()
            .map_or_else(|| "player".into(), |n| n.to_string_lossy().into_owned());
        (output.join(format!("{name}.{}", kind.ext())), kind)
    };
    // Written into a folder, the file name is derived: an existing file is kept.
    let mut done = convert_one(input, &output, options, kind, has_ext, true)?;
    let what = done.report.written.what();
    done.report.lines.push(format!(
        "assembled the Quake III player in {} (upper.md3 on lower.md3's tag_torso, head.md3 on upper.md3's tag_head) into {} ({what})",
        input.display(),
        output.display(),
    ));
    Ok(done)
}

/// A GLB compressed with `EXT_meshopt_compression`, or why not (the wasm build has no
/// meshoptimizer).
fn meshopt_glb(glb: &[u8]) -> Result<Vec<u8>, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        crate::compress::meshopt(glb).map_err(|e| e.to_string())
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = glb;
        Err("EXT_meshopt_compression is not in this build".to_owned())
    }
}

/// The scene (`.glb`/`.gltf`) or one frame (`.obj`) `build` makes of `input` as the
/// files of `output` (`kind`; `named`: the caller named `output`), with the texture
/// warnings `build` leaves in the report. The error is the complete line.
fn export(
    input: &Path,
    output: &Path,
    options: &Options,
    (kind, named): (OutKind, bool),
    build: impl FnOnce(Shape, &textures::Pending) -> Result<Scene, Failure>,
) -> Result<Converted, Error> {
    if options.meshopt && kind != OutKind::Glb {
        return Err(Error::Usage(format!(
            "--meshopt compresses GLB files: {} is not a .glb",
            output.display()
        )));
    }
    let pending = textures::Pending::default();
    let axes = options.axes();
    let export_options = ExportOptions {
        axes,
        dense_weights: options.dense_weights,
        max_bytes: options.max_output,
        quantize: options.quantize,
        ..ExportOptions::default()
    };
    let mut files = Outputs::new(named);
    let stem = output
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_owned();
    let dir = output.parent().unwrap_or(Path::new(""));
    let mut report = Report::new(output);
    let failed = |f: Failure| Error::Failed(line(input, f));
    match kind {
        OutKind::Md3 | OutKind::Md2 | OutKind::Mdl | OutKind::Md5mesh | OutKind::Player => {
            return Err(Error::Refused(line(
                input,
                format!("converting to .{} needs a .glb or .gltf input", kind.ext()),
            )));
        }
        OutKind::Glb | OutKind::Gltf => {
            let scene = build(Shape::Scene, &pending).map_err(failed)?;
            report.written.count_textures(&scene);
            if kind == OutKind::Glb {
                // Kept as its two pieces: the binary buffer is not moved to join them.
                let glb =
                    to_glb_pieces(&scene, &export_options).map_err(|e| failed(Failure::from(e)))?;
                if options.meshopt {
                    let small =
                        meshopt_glb(&glb.into_vec()).map_err(|e| failed(Failure::new(e)))?;
                    report.written.bytes = crate::outcome::len(&small);
                    files.output(output, small);
                } else {
                    report.written.bytes = u64::try_from(glb.len()).unwrap_or(u64::MAX);
                    let (front, bin) = glb.into_pieces();
                    files.output_pieces(output, vec![front, bin]);
                }
            } else {
                let bin_name = format!("{stem}.bin");
                let gltf = to_gltf(&scene, &export_options, &bin_name)
                    .map_err(|e| failed(Failure::from(e)))?;
                report.written.bytes = crate::outcome::len(&gltf.json);
                files.output(output, gltf.json);
                if !gltf.bin.is_empty() {
                    files.side(&dir.join(&bin_name), gltf.bin);
                }
                for (name, bytes) in gltf.images {
                    files.side(&dir.join(name), bytes);
                }
            }
        }
        OutKind::Obj => {
            let frame = build(Shape::Frame, &pending).map_err(failed)?;
            report.written.count_textures(&frame);
            let (text, beside) = obj_files(&frame, &stem, axes).map_err(failed)?;
            report.written.bytes = crate::outcome::len(text.as_bytes());
            files.output(output, text.into_bytes());
            for (name, bytes) in beside {
                files.side(&dir.join(name), bytes);
            }
        }
    }
    report.written.missing = report.written.missing.saturating_add(pending.not_found());
    report.warnings = pending.into_lines();
    Ok(Converted {
        files: files.files,
        report,
    })
}

/// The whole scene of a model file, Quake III player folder or archive entry, textures
/// resolved (what [`crate::scene`] gives).
pub(crate) fn scene(path: &Path, options: &Options) -> Result<(Scene, Report), Error> {
    let prepared = crate::archives::prepare(path).map_err(Error::Failed)?;
    let path = prepared.as_deref().unwrap_or(path);
    let pending = textures::Pending::default();
    let frame = choice(options);
    let folder =
        path.is_dir() || (crate::archives::is_virtual(path) && !crate::archives::is_file(path));
    let scene = if folder && formats::md3::is_player_folder(path) {
        if !options.anims.is_empty() {
            return Err(Error::Usage(
                "--anim applies to one md5mesh, not to a Quake III player folder".into(),
            ));
        }
        let mut s = players::player(path, &frame.request(&[]), Shape::Scene)
            .map_err(|f| Error::Failed(line(path, f)))?;
        textures::apply_player(&mut s, path, frame.textures(), &pending);
        s
    } else {
        anims_apply(path, &options.anims)?;
        let loaded = Loaded::open(path)?;
        let anims = load_anims(&options.anims)?;
        let mut s = loaded.build(&anims, frame, Shape::Scene)?;
        let (format, bytes) = (loaded.format, &loaded.bytes);
        textures::apply(&mut s, path, format, bytes, frame.textures(), &pending);
        s
    };
    let mut report = Report::new(path);
    report.written.count_textures(&scene);
    report.written.missing = report.written.missing.saturating_add(pending.not_found());
    report.warnings = pending.into_lines();
    Ok((scene, report))
}

/// The md5mesh and the md5anims that fit it, when `dir` (a folder on disk or in an
/// archive) is an md5 folder: its models are exactly one `.md5mesh` and any number of
/// `.md5anim` (a Doom 3 model's folder). The md5anims are those whose joints are the
/// mesh's (Doom 3's `CheckModelHierarchy`), in name order; `None` for any other folder.
pub(crate) fn md5_folder(dir: &Path) -> Option<(PathBuf, Vec<PathBuf>)> {
    let names: Vec<String> = match crate::archives::file_names(dir) {
        Some(n) => n,
        None => std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    };
    let ext = |n: &str| {
        n.rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default()
    };
    let models: Vec<&String> = names
        .iter()
        .filter(|n| crate::MODEL_EXTENSIONS.contains(&ext(n).as_str()))
        .collect();
    let meshes: Vec<&&String> = models.iter().filter(|n| ext(n) == "md5mesh").collect();
    let [mesh] = meshes.as_slice() else {
        return None;
    };
    if models
        .iter()
        .any(|n| !["md5mesh", "md5anim"].contains(&ext(n).as_str()))
    {
        return None;
    }
    let mesh_path = dir.join(mesh);
    let mesh_bytes = read(&mesh_path).ok()?;
    let parsed = crate::idmodel::md5::mesh::Model::parse(&mesh_bytes).ok()?;
    let mut anims: Vec<PathBuf> = models
        .iter()
        .filter(|n| ext(n) == "md5anim")
        .map(|n| dir.join(n))
        .filter(|a| {
            read(a).ok().is_some_and(|b| {
                crate::idmodel::md5::anim::Anim::parse(&b).is_ok_and(|anim| {
                    matches!(idmodel_scene::md5::mesh::fit(&parsed, &anim), Ok(None))
                })
            })
        })
        .collect();
    anims.sort();
    Some((mesh_path, anims))
}

/// An md5 folder (see [`md5_folder`]) as one model: its md5mesh with every md5anim that
/// fits it as a clip. `output` is the file to write, or a folder to write
/// `<folder name>.<ext>` into.
pub(crate) fn convert_md5_folder(
    dir: &Path,
    (mesh, anims): (PathBuf, Vec<PathBuf>),
    output: &Path,
    options: &Options,
) -> Result<Converted, Error> {
    if !options.anims.is_empty() {
        return Err(Error::Usage(
            "--anim applies to one md5mesh file; an md5 folder takes the md5anims beside its mesh"
                .into(),
        ));
    }
    let has_ext = output.extension().is_some() && !output.is_dir();
    let output = if has_ext {
        output.to_path_buf()
    } else {
        let kind = options.to.unwrap_or(OutKind::Glb);
        let name = dir
            .file_name()
            .map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
        output.join(format!("{name}.{}", kind.ext()))
    };
    let kind = kind_of(&output, options.to).map_err(Error::Usage)?;
    let options = Options {
        anims,
        ..options.clone()
    };
    let mut done = convert_one(&mesh, &output, &options, kind, has_ext, false)?;
    done.report.lines.push(format!(
        "{} with {} md5anim{} of {}",
        done.report.written,
        options.anims.len(),
        if options.anims.len() == 1 { "" } else { "s" },
        dir.display()
    ));
    Ok(done)
}
