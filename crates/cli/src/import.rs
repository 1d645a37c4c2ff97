//! `idmodel convert model.glb|.gltf -o model.md3`: the way back, glTF → scene → id
//! format. Reading and writing go through [`crate::output`] (regular files only, never
//! over an input, atomic writes, `--force`); the conversion is the libraries'
//! (`idmodel_gltf::import`, `idmodel_scene::md3::to_bytes`).

use std::path::{Component, Path};

use idmodel::Engine;
use idmodel_gltf::import::{ImportOptions, from_bytes};
use idmodel_scene::md3::{BackOptions, Limits};

use crate::commands::{line, usage};
use crate::output::{self, Plan, Policy};
use crate::{Exit, OutKind, error_line, out_line};

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
    pub(crate) force: bool,
    pub(crate) quiet: bool,
}

/// The id formats a scene can be written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Md3,
    Md2,
    Mdl,
    Md5Mesh,
}

fn ext_of(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Whether `output` or `--to` names an id format (so the conversion is an import).
pub(crate) fn is_target(output: &Path, to: Option<OutKind>) -> bool {
    target(output, to).is_ok_and(|t| t.is_some())
}

fn target(output: &Path, to: Option<OutKind>) -> Result<Option<Target>, String> {
    let from_to = match to {
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

/// Converts a glTF/GLB (or an OBJ) into an id format, or an OBJ into a GLB.
pub(crate) fn convert(args: &ImportArgs<'_>) -> Exit {
    if is_obj(args.input) && is_glb(args.output, args.to) {
        let options = idmodel_gltf::ExportOptions {
            axes: if args.keep_axes {
                idmodel_scene::axes::Axes::Keep
            } else {
                idmodel_scene::axes::Axes::YUp
            },
            ..idmodel_gltf::ExportOptions::default()
        };
        return match read_scene(args) {
            Ok(scene) => write(
                args,
                idmodel_gltf::to_glb(&scene, &options)
                    .map_err(|e| idmodel_scene::Error::new(e.to_string())),
            ),
            Err(exit) => exit,
        };
    }
    let target = match target(args.output, args.to) {
        Ok(Some(t)) => t,
        Ok(None) => {
            let also = if is_obj(args.input) { ", .glb" } else { "" };
            return usage(format!(
                "cannot tell the output format of '{}': name it .md3, .md2, .mdl{also} (or use --to)",
                args.output.display()
            ));
        }
        Err(m) => return usage(m),
    };
    match target {
        Target::Md3 => md3(args),
        Target::Md2 => quake(
            args,
            "MD2",
            idmodel::md2::ENGINES,
            idmodel_scene::md2::to_bytes,
        ),
        Target::Mdl => quake(
            args,
            "MDL",
            idmodel::mdl::ENGINES,
            idmodel_scene::mdl::to_bytes,
        ),
        Target::Md5Mesh => usage(format!(
            "name the output .md5mesh to write md5 ('{}')",
            args.output.display()
        )),
    }
}

fn md3(args: &ImportArgs<'_>) -> Exit {
    let limits = match args.engine {
        None => None,
        Some(e) => match Limits::of(e) {
            Some(l) => Some(l),
            None => {
                return usage(format!(
                    "--engine {} does not load MD3 (quake3 or ioq3)",
                    e.name()
                ));
            }
        },
    };
    if args.fps.is_some_and(|f| !(f.is_finite() && f > 0.0)) {
        return usage("--fps must be a positive number");
    }
    let scene = match read_scene(args) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let back = BackOptions {
        fps: args.fps,
        shader_prefix: args.shader_prefix.to_owned(),
        limits,
        split: !args.no_split,
    };
    write(args, idmodel_scene::md3::to_bytes(&scene, &back))
}

/// glTF → MD2 or MDL (`to_bytes` of `idmodel_scene::md2` / `mdl`), within `--engine`'s
/// limits when one is named (it must be one of `engines`).
fn quake(
    args: &ImportArgs<'_>,
    format: &str,
    engines: &[Engine],
    to_bytes: fn(
        &idmodel_scene::Scene,
        &idmodel_scene::back::BackOptions,
    ) -> idmodel_scene::Result<Vec<u8>>,
) -> Exit {
    if let Some(e) = args.engine.filter(|e| !engines.contains(e)) {
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        return usage(format!(
            "--engine {} does not load {format} ({})",
            e.name(),
            names.join(", ")
        ));
    }
    if args.fps.is_some() {
        return usage(format!(
            "--fps: {format} frames are the glTF's morph targets and weight keys (not resampled)"
        ));
    }
    let scene = match read_scene(args) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let back = idmodel_scene::back::BackOptions {
        engine: args.engine,
        ignore_extras: false,
    };
    write(args, to_bytes(&scene, &back))
}

/// The input glTF/GLB as a scene (external buffers and images only inside its folder),
/// or the input OBJ ([`read_obj`]).
fn read_scene(args: &ImportArgs<'_>) -> Result<idmodel_scene::Scene, Exit> {
    let bytes = match output::read_regular(args.input, MAX_FILE) {
        Ok(b) => b,
        Err(f) => {
            error_line(line(args.input, f));
            return Err(Exit::Failed);
        }
    };
    if is_obj(args.input) {
        return read_obj(args.input, &bytes, args.keep_axes, args.quiet);
    }
    let dir = args.input.parent().unwrap_or(Path::new("")).to_owned();
    let mut resolve = |uri: &str| {
        let path = inside(&dir, uri)?;
        output::read_regular(&path, MAX_FILE).ok()
    };
    let options = ImportOptions {
        keep_axes: args.keep_axes,
        ..ImportOptions::default()
    };
    from_bytes(&bytes, &options, &mut resolve).map_err(|e| {
        error_line(line(args.input, e));
        Exit::Failed
    })
}

/// Whether `input` is a Wavefront OBJ (by its extension): `convert` reads it as a still
/// scene (`idmodel_gltf::import::obj`), `info` describes it.
pub(crate) fn is_obj(input: &Path) -> bool {
    ext_of(input).as_deref() == Some("obj")
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
    quiet: bool,
) -> Result<idmodel_scene::Scene, Exit> {
    let dir = input.parent().unwrap_or(Path::new("")).to_owned();
    let read = |name: &str| output::read_regular(&beside(&dir, name)?, MAX_FILE).ok();
    let options = ImportOptions {
        keep_axes,
        read_images: true,
        ..ImportOptions::default()
    };
    let mut scene = idmodel_gltf::import::obj::from_obj(bytes, &options, &mut |n| read(n))
        .map_err(|e| {
            error_line(line(input, e));
            Exit::Failed
        })?;
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
                if !quiet {
                    error_line(line(
                        input,
                        format!("warning: texture {uri:?} of material {:?}: {e}", m.name),
                    ));
                }
                m.image = None;
            }
        }
    }
    Ok(scene)
}

/// `info` of an OBJ (by its extension): objects, vertices, triangles, materials and
/// bounds of the scene it reads as (without its MTL libraries); `None` for other files.
pub(crate) fn obj_info(path: &Path, bytes: &[u8], json: bool) -> Option<Result<String, String>> {
    if !is_obj(path) {
        return None;
    }
    let scene = match idmodel_gltf::import::obj::from_obj(
        bytes,
        &ImportOptions::default(),
        &mut idmodel_gltf::import::no_files,
    ) {
        Ok(s) => s,
        Err(e) => return Some(Err(line(path, e))),
    };
    let prims = || scene.meshes.iter().flat_map(|m| &m.primitives);
    let count = |n: usize| crate::formats::count(n);
    let materials: Vec<String> = scene.materials.iter().map(|m| m.name.clone()).collect();
    let info = crate::formats::Info {
        format: "obj",
        frames: 1,
        vertices: count(prims().map(|p| p.positions.len()).sum()),
        triangles: count(prims().map(|p| p.indices.len() / 3).sum()),
        bounds: crate::formats::Bounds::of(prims().flat_map(|p| p.positions.iter().copied())),
        shaders: Some(materials.clone()),
        details: vec![
            ("objects".into(), scene.meshes.len().to_string()),
            ("materials".into(), materials.join(", ")),
        ],
        ..crate::formats::Info::default()
    };
    if json {
        return Some(serde_json::to_string(&info).map_err(|e| line(path, e)));
    }
    let mut rows = vec![
        ("vertices".to_owned(), info.vertices.to_string()),
        ("triangles".to_owned(), info.triangles.to_string()),
    ];
    if let Some(b) = info.bounds {
        rows.push((
            "bounds (id axes)".into(),
            format!("{:?} .. {:?}", b.min, b.max),
        ));
    }
    rows.extend(info.details);
    let mut out = format!("{}: Wavefront OBJ (a still model)", path.display());
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<16}  {v}"));
    }
    Some(Ok(out))
}

/// Writes the converted bytes to `-o` through the file-safety plan.
fn write(args: &ImportArgs<'_>, out: idmodel_scene::Result<Vec<u8>>) -> Exit {
    let out = match out {
        Ok(b) => b,
        Err(e) => {
            error_line(line(args.input, e.message()));
            return Exit::Failed;
        }
    };
    let n = out.len();
    let mut plan = Plan::new(Policy {
        force: args.force,
        named: true,
    });
    plan.output(args.output, out);
    match plan.commit() {
        Ok(()) => {
            if !args.quiet {
                out_line(format!("wrote {} ({n} bytes)", args.output.display()));
            }
            Exit::Ok
        }
        Err(stop) => {
            error_line(stop.line());
            stop.exit()
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
