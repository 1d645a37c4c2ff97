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
    /// MD2: the skin name to reference (no PCX written).
    pub(crate) skin_name: Option<&'a str>,
    /// MD2: Quake II's palette file for the PCX skin.
    pub(crate) palette: Option<&'a Path>,
    /// MDL: every clip one frame group.
    pub(crate) groups: bool,
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

/// Converts a glTF/GLB into an id format.
pub(crate) fn convert(args: &ImportArgs<'_>) -> Exit {
    let target = match target(args.output, args.to) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return usage(format!(
                "cannot tell the output format of '{}': name it .md3 (or use --to)",
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
            crate::md2_skin::to_bytes,
        ),
        Target::Mdl => quake(args, "MDL", idmodel::mdl::ENGINES, |_, scene, back| {
            (idmodel_scene::mdl::to_bytes(scene, back), None)
        }),
        Target::Md5Mesh => usage(format!(
            "name the output .md5mesh to write md5 ('{}')",
            args.output.display()
        )),
    }
}

fn md3(args: &ImportArgs<'_>) -> Exit {
    if args.skin_name.is_some() || args.palette.is_some() || args.groups {
        return usage("--skin-name, --palette and --groups apply to .md2 / .mdl outputs");
    }
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
        &ImportArgs<'_>,
        &idmodel_scene::Scene,
        &idmodel_scene::back::BackOptions,
    ) -> Converted,
) -> Exit {
    if let Some(e) = args.engine.filter(|e| !engines.contains(e)) {
        let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
        return usage(format!(
            "--engine {} does not load {format} ({})",
            e.name(),
            names.join(", ")
        ));
    }
    if args.fps.is_some_and(|f| !(f.is_finite() && f > 0.0)) {
        return usage("--fps must be a positive number");
    }
    if format != "MD2" && (args.skin_name.is_some() || args.palette.is_some()) {
        return usage("--skin-name and --palette apply to .md2 outputs");
    }
    if format != "MDL" && args.groups {
        return usage("--groups applies to .mdl outputs");
    }
    let scene = match read_scene(args) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let back = back_options(args);
    let (out, side) = to_bytes(args, &scene, &back);
    write_with(args, out, side)
}

/// The bytes of a conversion and the side file that goes with them (path, bytes).
pub(crate) type Converted = (
    idmodel_scene::Result<Vec<u8>>,
    Option<(std::path::PathBuf, Vec<u8>)>,
);

/// The scene → MD2 / MDL options of the command line.
pub(crate) fn back_options(args: &ImportArgs<'_>) -> idmodel_scene::back::BackOptions {
    idmodel_scene::back::BackOptions {
        engine: args.engine,
        fps: args.fps,
        groups: args.groups.then_some(true),
        ..idmodel_scene::back::BackOptions::default()
    }
}

/// The input glTF/GLB as a scene (external buffers and images only inside its folder).
fn read_scene(args: &ImportArgs<'_>) -> Result<idmodel_scene::Scene, Exit> {
    let bytes = match output::read_regular(args.input, MAX_FILE) {
        Ok(b) => b,
        Err(f) => {
            error_line(line(args.input, f));
            return Err(Exit::Failed);
        }
    };
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

/// Writes the converted bytes to `-o` through the file-safety plan.
fn write(args: &ImportArgs<'_>, out: idmodel_scene::Result<Vec<u8>>) -> Exit {
    write_with(args, out, None)
}

/// [`write`], with a side file (the MD2's PCX skin) in the same plan.
pub(crate) fn write_with(
    args: &ImportArgs<'_>,
    out: idmodel_scene::Result<Vec<u8>>,
    side: Option<(std::path::PathBuf, Vec<u8>)>,
) -> Exit {
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
    let side_line = side
        .as_ref()
        .map(|(p, b)| format!("wrote {} ({} bytes)", p.display(), b.len()));
    if let Some((path, bytes)) = side {
        plan.side(&path, bytes);
    }
    match plan.commit() {
        Ok(()) => {
            if !args.quiet {
                out_line(format!("wrote {} ({n} bytes)", args.output.display()));
                if let Some(l) = side_line {
                    out_line(l);
                }
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
