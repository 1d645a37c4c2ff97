//! The way back: glTF/GLB (or OBJ) → scene → an id format (`idmodel_gltf::import`,
//! then `idmodel_scene::{md3, md2, mdl}::to_bytes`), and OBJ → GLB. Files are read
//! through [`crate::read`] (regular files only, inside the glTF's folder).

mod fit;
mod lod;
mod md2_skin;
mod md3_images;

use std::path::{Component, Path, PathBuf};

use crate::idmodel::Engine;
use idmodel_gltf::import::{ImportOptions, from_bytes};
use idmodel_scene::md3::{BackOptions, Limits, PlayerBackOptions};

use crate::failure::line;
pub(crate) use crate::info::is_obj;
use crate::options::{Lods, Options, OutKind};
use crate::outcome::{Converted, Error, Outputs, Report};

/// The largest glTF, `.bin` or image file read (1 GiB).
const MAX_FILE: u64 = 1 << 30;

/// The options of an import conversion.
pub(crate) struct ImportArgs<'a> {
    pub(crate) input: &'a Path,
    pub(crate) output: &'a Path,
    pub(crate) to: Option<OutKind>,
    pub(crate) fps: Option<f32>,
    pub(crate) engine: Option<Engine>,
    pub(crate) shader_prefix: &'a str,
    pub(crate) no_split: bool,
    pub(crate) keep_axes: bool,
    /// MD2: the skin name to reference (no PCX written).
    pub(crate) skin_name: Option<&'a str>,
    /// MD2: Quake II's palette file for the PCX skin.
    pub(crate) palette: Option<&'a Path>,
    /// MDL: every clip one frame group.
    pub(crate) groups: bool,
    /// `--skin NAME`: a player's skin files are `<part>_NAME.skin` (default `default`).
    pub(crate) skin: Option<&'a str>,
    pub(crate) lods: &'a Lods,
    /// `--fit`: simplify to the target engine's limits.
    pub(crate) fit: bool,
    /// The options as given (the target engine check reads them).
    pub(crate) options: &'a Options,
}

impl<'a> ImportArgs<'a> {
    /// The import arguments of `options` for `input → output`.
    pub(crate) fn new(input: &'a Path, output: &'a Path, options: &'a Options) -> Self {
        ImportArgs {
            input,
            output,
            to: options.to,
            // 1..=1000 (the command's range) is exact in f32.
            fps: options
                .fps
                .and_then(|f| u16::try_from(f).ok())
                .map(f32::from),
            engine: options.engine,
            shader_prefix: &options.shader_prefix,
            no_split: options.no_split,
            keep_axes: options.keep_axes,
            skin_name: options.skin_name.as_deref(),
            palette: options.palette.as_deref(),
            groups: options.groups,
            skin: options.skin.as_deref(),
            lods: &options.lods,
            fit: options.fit,
            options,
        }
    }
}

impl Lods {
    /// The LODs to write: `(level, a file to read it from)`, level 1 and 2.
    fn levels(&self) -> Vec<(u8, Option<&Path>)> {
        let given = [self.lod1.as_deref(), self.lod2.as_deref()];
        let generated = self.count.unwrap_or(0);
        let last = given
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |i| i.saturating_add(1));
        let n = usize::from(generated).max(last);
        (1u8..).zip(given).take(n).collect()
    }
}

/// The id formats a scene can be written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Md3,
    /// A Quake III player folder.
    Player,
    Md2,
    Mdl,
    Md5Mesh,
}

fn ext_of(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether the input is a glTF and `-o` a folder (`out/`, or one that exists): a
/// player folder is written.
fn folder_output(input: &Path, output: &Path) -> bool {
    let gltf = matches!(ext_of(input).as_deref(), Some("glb" | "gltf"));
    let slash = output
        .as_os_str()
        .to_str()
        .is_some_and(|s| s.ends_with('/') || s.ends_with(std::path::MAIN_SEPARATOR));
    gltf && (slash || output.is_dir())
}

/// Whether `output` or `--to` names an id format (so the conversion is an import), or
/// a glTF input goes to a folder (a Quake III player).
pub(crate) fn is_target(input: &Path, output: &Path, to: Option<OutKind>) -> bool {
    folder_output(input, output) || target(output, to).is_ok_and(|t| t.is_some())
}

fn target(output: &Path, to: Option<OutKind>) -> Result<Option<Target>, String> {
    let from_to = match to {
        Some(OutKind::Player) => Some(Target::Player),
        Some(OutKind::Md3) => Some(Target::Md3),
        Some(OutKind::Md2) => Some(Target::Md2),
        Some(OutKind::Mdl) => Some(Target::Mdl),
        Some(OutKind::Md5mesh) => Some(Target::Md5Mesh),
        _ => None,
    };
    let from_ext = match ext_of(output).as_deref() {
        Some("md3") => Some(Target::Md3),
        Some("md2") => Some(Target::Md2),
        Some("mdl") => Some(Target::Mdl),
        Some("md5mesh") => Some(Target::Md5Mesh),
        _ => None,
    };
    match (from_ext, from_to) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "--to contradicts the output extension of '{}'",
            output.display()
        )),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b),
    }
}

/// A URI of the glTF as a path inside its folder, or `None` when it would leave it (an
/// absolute path, `..`, a scheme or a drive).
fn inside(dir: &Path, uri: &str) -> Option<std::path::PathBuf> {
    let decoded = percent_decode(uri)?;
    let rel = Path::new(&decoded);
    let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain || decoded.contains(':') || decoded.contains('\\') {
        return None;
    }
    Some(dir.join(rel))
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = b.get(i.saturating_add(1)..i.saturating_add(3))?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i = i.saturating_add(3);
        } else {
            out.push(c);
            i = i.saturating_add(1);
        }
    }
    String::from_utf8(out).ok()
}

/// `bytes` without `EXT_meshopt_compression` ([`crate::compress::decompress`]; the wasm
/// build, without meshoptimizer, reads only uncompressed files).
pub(crate) fn plain_glb(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // A `.gltf` (JSON) is read as it is; only a GLB can hold the compressed streams.
        if !bytes.starts_with(b"glTF") {
            return Ok(std::borrow::Cow::Borrowed(bytes));
        }
        crate::compress::decompress(bytes).map_err(|e| e.to_string())
    }
    #[cfg(target_arch = "wasm32")]
    {
        Ok(std::borrow::Cow::Borrowed(bytes))
    }
}

/// Converts a glTF/GLB (or an OBJ) into an id format, or an OBJ into a GLB.
pub(crate) fn convert(args: &ImportArgs<'_>) -> Result<Converted, Error> {
    let folder = folder_output(args.input, args.output);
    if is_obj(args.input) && is_glb(args.output, args.to) {
        let options = idmodel_gltf::ExportOptions {
            axes: if args.keep_axes {
                idmodel_scene::axes::Axes::Keep
            } else {
                idmodel_scene::axes::Axes::YUp
            },
            ..idmodel_gltf::ExportOptions::default()
        };
        let mut warnings = Vec::new();
        let scene = read_scene(args, &mut warnings)?;
        return write(
            args,
            idmodel_gltf::to_glb(&scene, &options)
                .map_err(|e| idmodel_scene::Error::new(e.to_string())),
            warnings,
        );
    }
    let target = match target(args.output, args.to) {
        Ok(None) if folder => Target::Player,
        Ok(Some(Target::Md3)) if folder => Target::Player,
        Ok(Some(t)) => t,
        Ok(None) => {
            let also = if is_obj(args.input) { ", .glb" } else { "" };
            return Err(Error::Usage(format!(
                "cannot tell the output format of '{}': name it .md3, .md2, .mdl{also} (or use --to)",
                args.output.display()
            )));
        }
        Err(m) => return Err(Error::Usage(m)),
    };
    if args.lods.any() && !matches!(target, Target::Md3 | Target::Player) {
        return Err(Error::Usage(
            "--lods, --lod1 and --lod2 apply to conversions to MD3 (.md3 or a player folder)"
                .into(),
        ));
    }
    match target {
        Target::Md3 => md3(args),
        Target::Player => player(args),
        Target::Md2 => quake(
            args,
            "MD2",
            crate::idmodel::md2::ENGINES,
            md2_skin::to_bytes,
        ),
        Target::Mdl => quake(
            args,
            "MDL",
            crate::idmodel::mdl::ENGINES,
            |_, scene, back, _| (idmodel_scene::mdl::to_bytes(scene, back), None),
        ),
        Target::Md5Mesh => Err(Error::Usage(format!(
            "name the output .md5mesh to write md5 ('{}')",
            args.output.display()
        ))),
    }
}

/// The MD3 writing options of `--engine`, `--fps`, `--shader-prefix`, `--no-split`, or
/// the usage error.
fn md3_options(args: &ImportArgs<'_>) -> Result<BackOptions, Error> {
    let limits = match args.engine {
        // The default target, ioquake3: surfaces over its limits are split.
        None => Limits::of(Engine::Ioq3),
        Some(e) => match Limits::of(e) {
            Some(l) => Some(l),
            None => {
                return Err(Error::Usage(format!(
                    "--engine {} does not load MD3 (quake3 or ioq3)",
                    e.name()
                )));
            }
        },
    };
    if args.fps.is_some_and(|f| !(f.is_finite() && f > 0.0)) {
        return Err(Error::Usage("--fps must be a positive number".into()));
    }
    Ok(BackOptions {
        fps: args.fps,
        shader_prefix: args.shader_prefix.to_owned(),
        limits,
        split: !args.no_split,
    })
}

/// glTF player → a Quake III player folder (`idmodel_scene::md3::player_files`), with the
/// LODs of each part.
fn player(args: &ImportArgs<'_>) -> Result<Converted, Error> {
    let back = md3_options(args)?;
    let options = PlayerBackOptions {
        back,
        skin: args.skin.unwrap_or("default").to_owned(),
    };
    let mut warnings = Vec::new();
    let (files, side, levels) =
        read_player_with_side_files(args, args.input, &options, &mut warnings)?;
    let mut out: Vec<(PathBuf, Vec<u8>)> = Vec::with_capacity(files.len());
    // The folder's other skins, as the scene recorded them.
    for (name, bytes) in side {
        out.push((args.output.join(name), bytes));
    }
    // The folder had LODs: made again (from the written parts) unless --lods says how.
    let recorded = Lods {
        count: Some(levels),
        ..Lods::default()
    };
    let lods = if args.lods.any() || levels == 0 {
        args.lods
    } else {
        warnings.push(format!(
            "{}: the player had {levels} LOD level(s); they are made again from the parts (the GLB holds no LOD geometry)",
            args.input.display()
        ));
        &recorded
    };
    for (level, from) in lods.levels() {
        let given = match from {
            Some(path) => Some(read_player(args, path, &options, &mut warnings)?),
            None => None,
        };
        for part in idmodel_scene::md3::PLAYER_PARTS {
            let name = format!("{part}.md3");
            let bytes = match &given {
                Some(g) => g.iter().find(|(n, _)| *n == name).map(|(_, b)| b.clone()),
                None => files
                    .iter()
                    .find(|(n, _)| *n == name)
                    .and_then(|(_, b)| lod::simplify(b, lod::ratio(level)).ok()),
            };
            match bytes {
                Some(b) => out.push((args.output.join(format!("{part}_{level}.md3")), b)),
                None => {
                    return Err(Error::Failed(line(
                        args.input,
                        format!("{part}_{level}.md3: cannot make the LOD"),
                    )));
                }
            }
        }
    }
    let mut all: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|(n, b)| (args.output.join(n), b))
        .collect();
    all.extend(out);
    write_all(args, all, warnings)
}

/// A player glTF read and split into its folder's files.
fn read_player(
    args: &ImportArgs<'_>,
    input: &Path,
    options: &PlayerBackOptions,
    warnings: &mut Vec<String>,
) -> Result<idmodel_scene::md3::PlayerFiles, Error> {
    read_player_with_side_files(args, input, options, warnings).map(|(files, ..)| files)
}

/// A player read back: its files, the other skins its folder had (name, bytes) and how
/// many LOD levels its parts had.
type ReadPlayer = (idmodel_scene::md3::PlayerFiles, Vec<(String, Vec<u8>)>, u8);

/// [`read_player`], the other skins of the player folder its scene recorded
/// ([`crate::players::SIDE_FILES`]) and how many LOD levels its parts had
/// ([`crate::players::LOD_LEVELS`]).
fn read_player_with_side_files(
    args: &ImportArgs<'_>,
    input: &Path,
    options: &PlayerBackOptions,
    warnings: &mut Vec<String>,
) -> Result<ReadPlayer, Error> {
    let scene = read_scene_at(args, input, warnings)?;
    let files = idmodel_scene::md3::player_files(&scene, options)
        .map_err(|e| Error::Failed(line(input, e.message())))?;
    let mut side = Vec::new();
    let recorded = scene
        .extras
        .get(crate::players::SIDE_FILES)
        .and_then(idmodel_scene::Value::as_list)
        .unwrap_or(&[]);
    for entry in recorded {
        let Some([name, bytes]) = entry.as_list() else {
            continue;
        };
        let (Some(name), Some(bytes)) = (name.as_str(), bytes.as_str()) else {
            continue;
        };
        // A plain `.skin` file name, never a path out of the folder, nor a written file.
        let plain = !name.contains(['/', '\\', ':']) && !name.starts_with('.');
        if !plain || !name.ends_with(".skin") || files.iter().any(|(n, _)| *n == name) {
            continue;
        }
        if let Some(bytes) = idmodel_scene::back::base64_decode(bytes) {
            side.push((name.to_owned(), bytes));
        }
    }
    let levels = scene
        .extras
        .get(crate::players::LOD_LEVELS)
        .and_then(idmodel_scene::Value::as_int)
        .and_then(|n| u8::try_from(n.clamp(0, 2)).ok())
        .unwrap_or(0);
    Ok((files, side, levels))
}

fn md3(args: &ImportArgs<'_>) -> Result<Converted, Error> {
    if args.skin_name.is_some() || args.palette.is_some() || args.groups {
        return Err(Error::Usage(
            "--skin-name, --palette and --groups apply to .md2 / .mdl outputs".into(),
        ));
    }
    if args.lods.any() {
        return md3_with_lods(args);
    }
    let back = md3_options(args)?;
    let mut warnings = Vec::new();
    let mut scene = read_scene(args, &mut warnings)?;
    let images = md3_images(args, &mut scene, &mut warnings);
    match idmodel_scene::md3::to_bytes(&scene, &back) {
        Ok(bytes) => {
            let mut files = vec![(args.output.to_owned(), bytes)];
            files.extend(images);
            write_all(args, files, warnings)
        }
        Err(e) => Err(Error::Failed(line(args.input, e.message()))),
    }
}

/// The embedded images of a glTF → MD3 scene written beside the output, the materials
/// named by them ([`md3_images::textures_beside`]), unless `--shader-prefix` is given.
fn md3_images(
    args: &ImportArgs<'_>,
    scene: &mut idmodel_scene::Scene,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, Vec<u8>)> {
    if args.shader_prefix.is_empty() {
        // Quake III 1.32 reads TGA and JPEG only.
        let tga = args.engine == Some(Engine::Quake3);
        md3_images::textures_beside(args.output, scene, tga, warnings)
    } else {
        Vec::new()
    }
}

/// glTF → MD3 and its LODs (`x_1.md3`, `x_2.md3`).
fn md3_with_lods(args: &ImportArgs<'_>) -> Result<Converted, Error> {
    let back = md3_options(args)?;
    let mut warnings = Vec::new();
    // The main model's images are written; a LOD's materials of the same names take the
    // same shaders.
    let mut images = Vec::new();
    let mut renamed: Option<Vec<(String, String)>> = None;
    let mut one = |input: &Path| -> Result<Vec<u8>, Error> {
        let mut scene = read_scene_at(args, input, &mut warnings)?;
        match &renamed {
            None => {
                let before: Vec<String> = scene.materials.iter().map(|m| m.name.clone()).collect();
                images = md3_images(args, &mut scene, &mut warnings);
                let after = scene.materials.iter().map(|m| m.name.clone());
                renamed = Some(
                    before
                        .into_iter()
                        .zip(after)
                        .filter(|(a, b)| a != b)
                        .collect(),
                );
            }
            Some(names) => {
                for m in &mut scene.materials {
                    if let Some((_, new)) = names.iter().find(|(old, _)| *old == m.name) {
                        m.name.clone_from(new);
                    }
                }
            }
        }
        idmodel_scene::md3::to_bytes(&scene, &back)
            .map_err(|e| Error::Failed(line(input, e.message())))
    };
    let main = one(args.input)?;
    let stem = args
        .output
        .file_stem()
        .map_or_else(|| "model".to_owned(), |s| s.to_string_lossy().into_owned());
    let dir = args.output.parent().unwrap_or(Path::new(""));
    let mut all = Vec::new();
    for (level, from) in args.lods.levels() {
        let bytes = match from {
            Some(path) => one(path)?,
            None => lod::simplify(&main, lod::ratio(level))
                .map_err(|e| Error::Failed(line(args.input, format!("{stem}_{level}.md3: {e}"))))?,
        };
        all.push((dir.join(format!("{stem}_{level}.md3")), bytes));
    }
    all.insert(0, (args.output.to_owned(), main));
    all.extend(images);
    write_all(args, all, warnings)
}

/// The files of a conversion: the first is `-o` (for a player folder, every file is
/// derived and the folder is to be made), the rest side files; a `wrote …` line each.
fn write_all(
    args: &ImportArgs<'_>,
    files: Vec<(PathBuf, Vec<u8>)>,
    mut warnings: Vec<String>,
) -> Result<Converted, Error> {
    for (path, bytes) in &files {
        warnings.extend(crate::target::check_written(path, bytes, args.options)?);
    }
    let folder = folder_output(args.input, args.output) || args.to == Some(OutKind::Player);
    let mut outputs = Outputs::new(!folder);
    let mut report = Report::new(args.output);
    report.warnings = warnings;
    if folder {
        report.folder = Some(args.output.to_owned());
    }
    for (i, (path, bytes)) in files.into_iter().enumerate() {
        report
            .lines
            .push(format!("wrote {} ({} bytes)", path.display(), bytes.len()));
        if i == 0 {
            report.written.bytes = crate::outcome::len(&bytes);
            outputs.output(&path, bytes);
        } else {
            outputs.side(&path, bytes);
        }
    }
    Ok(Converted {
        files: outputs.files,
        report,
    })
}

/// glTF → MD2 or MDL (`to_bytes` of `idmodel_scene::md2` / `mdl`), within `--engine`'s
/// limits when one is named (it must be one of `engines`).
fn quake(
    args: &ImportArgs<'_>,
    format: &str,
    engines: &[Engine],
    to_bytes: fn(
        &ImportArgs<'_>,
        &idmodel_scene::Scene,
        &idmodel_scene::back::BackOptions,
        &mut Vec<String>,
    ) -> Made,
) -> Result<Converted, Error> {
    if let Some(e) = args.engine.filter(|e| !engines.contains(e)) {
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        return Err(Error::Usage(format!(
            "--engine {} does not load {format} ({})",
            e.name(),
            names.join(", ")
        )));
    }
    if args.fps.is_some_and(|f| !(f.is_finite() && f > 0.0)) {
        return Err(Error::Usage("--fps must be a positive number".into()));
    }
    if format != "MD2" && (args.skin_name.is_some() || args.palette.is_some()) {
        return Err(Error::Usage(
            "--skin-name and --palette apply to .md2 outputs".into(),
        ));
    }
    if format != "MDL" && args.groups {
        return Err(Error::Usage("--groups applies to .mdl outputs".into()));
    }
    let mut warnings = Vec::new();
    let scene = read_scene(args, &mut warnings)?;
    let back = back_options(args);
    let (scene, back) = if args.fit {
        fit_quake(args, format, scene, back, &mut warnings)?
    } else {
        (scene, back)
    };
    let (out, side) = to_bytes(args, &scene, &back, &mut warnings);
    write_with(args, out, side, warnings)
}

/// `--fit` for MDL and MD2: the target engine's vertex and triangle limits
/// ([`fit::fit_counts`], counted in the file the scene writes), and its frame limit (the
/// frames thinned evenly in each clip, [`BackOptions::max_frames`]).
///
/// [`BackOptions::max_frames`]: idmodel_scene::back::BackOptions::max_frames
fn fit_quake(
    args: &ImportArgs<'_>,
    format: &str,
    scene: idmodel_scene::Scene,
    mut back: idmodel_scene::back::BackOptions,
    warnings: &mut Vec<String>,
) -> Result<(idmodel_scene::Scene, idmodel_scene::back::BackOptions), Error> {
    use crate::idmodel::{md2, mdl};
    let plain = idmodel_scene::back::BackOptions {
        engine: None,
        ..back.clone()
    };
    let mdl_format = format == "MDL";
    let engine = args.engine.unwrap_or(if mdl_format {
        Engine::QuakeSpasm
    } else {
        Engine::Quake2
    });
    let limits = match engine {
        // GLQuake: below the triangle count whose display list may overflow its buffer.
        Engine::GlQuake => (mdl::MAX_VERTS_GLQUAKE, mdl::GLQUAKE_COMMANDS_RISK_TRIS),
        Engine::QuakeSpasm => (mdl::MAX_VERTS_SOFTWARE, mdl::MAX_TRIS_QUAKESPASM),
        Engine::WinQuake => (mdl::MAX_VERTS_SOFTWARE, usize::MAX),
        _ => (md2::MAX_VERTS, md2::MAX_TRIANGLES),
    };
    let measure = |s: &idmodel_scene::Scene| -> Result<fit::Counts, String> {
        if mdl_format {
            let bytes = idmodel_scene::mdl::to_bytes(s, &plain).map_err(|e| e.to_string())?;
            let m = mdl::Mdl::parse(&bytes).map_err(|e| e.to_string())?;
            Ok((m.vertex_count(), m.triangles().len()))
        } else {
            let bytes = idmodel_scene::md2::to_bytes(s, &plain).map_err(|e| e.to_string())?;
            let m = md2::Md2::parse(&bytes).map_err(|e| e.to_string())?;
            Ok((m.vertex_count(), m.triangles().len()))
        }
    };
    let fitted = fit::fit_counts(&scene, limits, engine.name(), measure)
        .map_err(|e| Error::Failed(line(args.input, e)))?;
    warnings.extend(
        fitted
            .line
            .map(|l| format!("{}: {l}", args.output.display())),
    );
    // Frames: GLQuake draws at most 256 poses, QuakeSpasm loads 1,024, Quake II 512.
    let max_frames = match engine {
        Engine::GlQuake => Some(mdl::MAX_POSES_GLQUAKE),
        Engine::QuakeSpasm => Some(mdl::MAX_POSES_QUAKESPASM),
        Engine::WinQuake => None,
        _ => Some(md2::MAX_FRAMES),
    };
    let frames = |s: &idmodel_scene::Scene, o: &idmodel_scene::back::BackOptions| {
        let written = if mdl_format {
            idmodel_scene::mdl::to_bytes(s, o)
                .ok()
                .and_then(|b| mdl::Mdl::parse(&b).ok().map(|m| m.pose_count()))
        } else {
            idmodel_scene::md2::to_bytes(s, o)
                .ok()
                .and_then(|b| md2::Md2::parse(&b).ok().map(|m| m.frame_count()))
        };
        written.unwrap_or(0)
    };
    if let Some(max) = max_frames {
        let before = frames(&fitted.scene, &plain);
        if before > max {
            // The extras would give back every frame of the original.
            back.ignore_extras = true;
            back.max_frames = Some(max);
            let after = frames(
                &fitted.scene,
                &idmodel_scene::back::BackOptions {
                    engine: None,
                    ..back.clone()
                },
            );
            warnings.push(format!(
                "{}: fitted for {}: {before} → {after} frames (at most {max}), thinned evenly in each clip",
                args.output.display(),
                engine.name()
            ));
        }
    }
    Ok((fitted.scene, back))
}

/// The bytes of a conversion and the side file that goes with them (path, bytes).
pub(crate) type Made = (
    idmodel_scene::Result<Vec<u8>>,
    Option<(std::path::PathBuf, Vec<u8>)>,
);

/// The scene → MD2 / MDL options of the command line.
pub(crate) fn back_options(args: &ImportArgs<'_>) -> idmodel_scene::back::BackOptions {
    idmodel_scene::back::BackOptions {
        // `--unchecked` writes what the engine refuses: no refusal on the way back either.
        engine: args.engine.filter(|_| !args.options.unchecked),
        fps: args.fps,
        groups: args.groups.then_some(true),
        ..idmodel_scene::back::BackOptions::default()
    }
}

/// The input glTF/GLB as a scene (external buffers and images only inside its folder),
/// or the input OBJ ([`read_obj`]).
fn read_scene(
    args: &ImportArgs<'_>,
    warnings: &mut Vec<String>,
) -> Result<idmodel_scene::Scene, Error> {
    read_scene_at(args, args.input, warnings)
}

/// The glTF/GLB `input` (the input or a `--lodN` file) as a scene.
fn read_scene_at(
    args: &ImportArgs<'_>,
    input: &Path,
    warnings: &mut Vec<String>,
) -> Result<idmodel_scene::Scene, Error> {
    let bytes =
        crate::archives::read(input, MAX_FILE).map_err(|f| Error::Failed(line(input, f)))?;
    if is_obj(input) {
        return read_obj(input, &bytes, args.keep_axes, warnings);
    }
    let dir = input.parent().unwrap_or(Path::new("")).to_owned();
    let mut resolve = |uri: &str| {
        let path = inside(&dir, uri)?;
        crate::archives::read(&path, MAX_FILE).ok()
    };
    let options = ImportOptions {
        keep_axes: args.keep_axes,
        ..ImportOptions::default()
    };
    let bytes = plain_glb(&bytes).map_err(|e| Error::Failed(line(input, e)))?;
    let mut scene =
        from_bytes(&bytes, &options, &mut resolve).map_err(|e| Error::Failed(line(input, e)))?;
    // Embedded JPEGs come as they are: their pixels for the skins written from them.
    let lost = idmodel_assets::images::decode_scene(&mut scene);
    warnings.extend(
        lost.into_iter()
            .map(|w| format!("{}: {w}", input.display())),
    );
    Ok(scene)
}

fn is_glb(output: &Path, to: Option<OutKind>) -> bool {
    to == Some(OutKind::Glb) || (to.is_none() && ext_of(output).as_deref() == Some("glb"))
}

/// A file an OBJ or MTL names, relative to the OBJ's folder `dir`: a relative path is
/// followed where it says (`../textures/x.png` included: the file names it); an absolute
/// one (another machine's, as Windows exporters write) or a scheme is looked for by its
/// file name beside the OBJ. `\` separates folders.
fn beside(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    let name = name.replace('\\', "/");
    let rel = Path::new(&name);
    let plain = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::ParentDir));
    if plain && !name.contains(':') && !name.is_empty() {
        return Some(dir.join(rel));
    }
    let file = name
        .rsplit('/')
        .next()
        .filter(|f| !f.is_empty() && !f.contains(':'))?;
    Some(dir.join(file))
}

/// An OBJ as a scene named after the file: its MTL libraries and textures read
/// ([`beside`]); a texture that is not PNG or JPEG is decoded with `idmodel-assets`
/// (TGA, PCX, WAL), one that cannot be found or decoded is left out with a warning.
fn read_obj(
    input: &Path,
    bytes: &[u8],
    keep_axes: bool,
    warnings: &mut Vec<String>,
) -> Result<idmodel_scene::Scene, Error> {
    let dir = input.parent().unwrap_or(Path::new("")).to_owned();
    let read = |name: &str| crate::archives::read(&beside(&dir, name)?, MAX_FILE).ok();
    let options = ImportOptions {
        keep_axes,
        read_images: true,
        ..ImportOptions::default()
    };
    let mut scene = idmodel_gltf::import::obj::from_obj(bytes, &options, &mut |n| read(n))
        .map_err(|e| Error::Failed(line(input, e)))?;
    scene.name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for m in &mut scene.materials {
        let Some(idmodel_scene::Image::Uri(uri)) = &m.image else {
            continue;
        };
        let decoded = read(uri)
            .ok_or_else(|| "not found".to_owned())
            .and_then(|b| idmodel_assets::images::decode_any(uri, &b, None));
        match decoded {
            Ok(rgba) => m.image = Some(rgba.into_image()),
            Err(e) => {
                warnings.push(line(
                    input,
                    format!("warning: texture {uri:?} of material {:?}: {e}", m.name),
                ));
                m.image = None;
            }
        }
    }
    Ok(scene)
}

/// The converted bytes as the `-o` file.
fn write(
    args: &ImportArgs<'_>,
    out: idmodel_scene::Result<Vec<u8>>,
    warnings: Vec<String>,
) -> Result<Converted, Error> {
    write_with(args, out, None, warnings)
}

/// [`write`], with a side file (the MD2's PCX skin).
pub(crate) fn write_with(
    args: &ImportArgs<'_>,
    out: idmodel_scene::Result<Vec<u8>>,
    side: Option<(PathBuf, Vec<u8>)>,
    warnings: Vec<String>,
) -> Result<Converted, Error> {
    match out {
        Ok(b) => {
            let mut files = vec![(args.output.to_owned(), b)];
            files.extend(side);
            write_all(args, files, warnings)
        }
        Err(e) => {
            let mut message = e.message().to_owned();
            if message.starts_with("refusing to write") {
                let fit = if args.fit {
                    ""
                } else {
                    "--fit to simplify it to the limits, "
                };
                message.push_str(&format!(
                    "; nothing was written: {fit}another --engine, or --unchecked to write it anyway"
                ));
            }
            Err(Error::Failed(line(args.input, message)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_stay_inside_the_folder() {
        let d = Path::new("/m");
        assert_eq!(
            inside(d, "a%20b.bin"),
            Some(Path::new("/m/a b.bin").to_owned())
        );
        assert_eq!(
            inside(d, "tex/x.png"),
            Some(Path::new("/m/tex/x.png").to_owned())
        );
        for bad in [
            "../x.bin",
            "/etc/passwd",
            "C:/x",
            "a/../../b",
            "http://x",
            "a\\..\\b",
            "%2e%2e/x",
        ] {
            assert_eq!(inside(d, bad), None, "{bad}");
        }
    }
}
