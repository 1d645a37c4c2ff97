//! glTF → `X.md5mesh|X.md5anim|X.md5camera`: which files a scene becomes and where they
//! go. The conversion is `idmodel_scene::md5::from_scene`; this module names the files.
//!
//! - `-o model.md5mesh`: the mesh there; one `.md5anim` per animation, at the `--anim-out`
//!   paths in order when given (as many as there are animations), else beside the mesh,
//!   named after the clip; each animated camera beside it as `NAME.md5camera`.
//! - `-o clip.md5anim`: only the anims, the first one there, the others beside it.
//! - `-o shot.md5camera`: only the cameras, the first one there, the others beside it.
//!
//! A clip or camera name becomes a file name with every character outside `A–Z a–z 0–9
//! _ - .` replaced by `_` (a leading `.` too; an empty name is `anim`), and `_2`, `_3` …
//! added when two would clash.

use std::path::{Path, PathBuf};

use crate::idmodel::md5::{anim, camera, mesh};
use idmodel_scene::Scene;
use idmodel_scene::md5::from_scene::{self, Md5Options};

use crate::options::Options;
use crate::outcome::{Converted, Error, Outputs, Report};

/// The largest glTF, GLB or buffer file read (as every model input).
const MAX_INPUT: u64 = 1 << 30;

/// What `-o` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Md5Kind {
    /// `.md5mesh`.
    Mesh,
    /// `.md5anim`.
    Anim,
    /// `.md5camera`.
    Camera,
}

impl Md5Kind {
    /// The kind an output path's extension names (ASCII case ignored).
    pub(crate) fn of(output: &Path) -> Option<Md5Kind> {
        let ext = output.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "md5mesh" => Some(Md5Kind::Mesh),
            "md5anim" => Some(Md5Kind::Anim),
            "md5camera" => Some(Md5Kind::Camera),
            _ => None,
        }
    }
}

/// One file to write: where, whether it is the `-o` file, its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Md5File {
    /// Where.
    pub path: PathBuf,
    /// True for the file `-o` names.
    pub named: bool,
    /// The text.
    pub bytes: Vec<u8>,
}

/// `name` as a file-name stem (see the module docs).
fn file_stem(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with('.') {
        s.replace_range(..1, "_");
    }
    if s.is_empty() {
        s.push_str("anim");
    }
    s
}

/// `dir/stem.ext`, with `_2`, `_3` … when `taken` has it (case-insensitively).
fn beside(dir: &Path, stem: &str, ext: &str, taken: &mut Vec<String>) -> PathBuf {
    let mut name = format!("{stem}.{ext}");
    let mut k = 2u32;
    while taken.iter().any(|t| t.eq_ignore_ascii_case(&name)) {
        name = format!("{stem}_{k}.{ext}");
        k = k.saturating_add(1);
    }
    taken.push(name.clone());
    dir.join(name)
}

/// The md5 files of `scene` for `-o output` (see the module docs); the error is the line
/// to print.
pub(crate) fn md5_files(
    scene: &Scene,
    output: &Path,
    anim_out: &[PathBuf],
    fps: Option<u32>,
    max_bytes: Option<u64>,
) -> Result<Vec<Md5File>, String> {
    let kind = Md5Kind::of(output).ok_or_else(|| {
        format!(
            "{}: not an md5 output (.md5mesh, .md5anim or .md5camera)",
            output.display()
        )
    })?;
    let at = |e: &dyn std::fmt::Display| format!("{}: {e}", output.display());
    let options = Md5Options { fps, max_bytes };
    let files = from_scene::convert(scene, &options).map_err(|e| at(&e))?;
    let dir = output.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut taken: Vec<String> = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .into_iter()
        .collect();
    let mut out = Vec::new();
    if kind != Md5Kind::Mesh && !anim_out.is_empty() {
        return Err(at(&"--anim-out applies to an .md5mesh output"));
    }
    if kind == Md5Kind::Mesh {
        let model = files
            .mesh
            .as_ref()
            .ok_or_else(|| at(&"the scene has no mesh to write as an md5mesh"))?;
        out.push(Md5File {
            path: output.to_path_buf(),
            named: true,
            bytes: mesh::write(model).map_err(|e| at(&e))?,
        });
        if !anim_out.is_empty() && anim_out.len() != files.anims.len() {
            return Err(at(&format!(
                "{} --anim-out paths for {} animations ({})",
                anim_out.len(),
                files.anims.len(),
                files
                    .anims
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    if kind != Md5Kind::Camera {
        if kind == Md5Kind::Anim && files.anims.is_empty() {
            return Err(at(&"the scene has no animation that moves a joint"));
        }
        for (i, (name, a)) in files.anims.iter().enumerate() {
            let named = kind == Md5Kind::Anim && i == 0;
            let path = match anim_out.get(i) {
                Some(p) => p.clone(),
                None if named => output.to_path_buf(),
                None => beside(&dir, &file_stem(name), "md5anim", &mut taken),
            };
            out.push(Md5File {
                path,
                named,
                bytes: anim::write(a).map_err(|e| format!("md5anim {name:?}: {e}"))?,
            });
        }
    }
    if kind != Md5Kind::Anim {
        if kind == Md5Kind::Camera && files.cameras.is_empty() {
            return Err(at(&"the scene has no camera"));
        }
        for (i, (name, c)) in files.cameras.iter().enumerate() {
            let named = kind == Md5Kind::Camera && i == 0;
            let path = if named {
                output.to_path_buf()
            } else {
                beside(&dir, &file_stem(name), "md5camera", &mut taken)
            };
            out.push(Md5File {
                path,
                named,
                bytes: camera::write(c).map_err(|e| format!("md5camera {name:?}: {e}"))?,
            });
        }
    }
    Ok(out)
}

/// The resolver of a `.gltf`'s buffer and image files: plain relative paths in the
/// glTF's folder, read as inputs; anything with a scheme, an absolute path or `..` is
/// refused.
fn resolver(dir: PathBuf) -> impl FnMut(&str) -> Option<Vec<u8>> {
    move |uri: &str| {
        let rel = Path::new(uri);
        let plain = !uri.contains(':')
            && rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain {
            return None;
        }
        crate::archives::read(&dir.join(rel), MAX_INPUT).ok()
    }
}

/// `MODEL.glb → X.md5mesh|X.md5anim|X.md5camera`: reads the glTF and converts it. The
/// `-o` file is the named output; the others (`--anim-out` paths too: the caller named
/// them, but an existing one is replaced only when asked, as any file besides `-o`) are
/// side files.
pub(crate) fn convert(input: &Path, out: &Path, options: &Options) -> Result<Converted, Error> {
    let gltf = input
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"));
    if !gltf {
        return Err(Error::Refused(format!(
            "{}: md5 files are written from a .glb or .gltf (convert a model to .glb first)",
            input.display()
        )));
    }
    let bytes = crate::archives::read(input, MAX_INPUT)
        .map_err(|e| Error::Failed(format!("{}: {e}", input.display())))?;
    let dir = input.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let import = idmodel_gltf::import::ImportOptions {
        keep_axes: options.keep_axes,
        ..idmodel_gltf::import::ImportOptions::default()
    };
    let bytes = crate::import::plain_glb(&bytes)
        .map_err(|e| Error::Failed(format!("{}: {e}", input.display())))?;
    let scene = idmodel_gltf::import::from_bytes(&bytes, &import, &mut resolver(dir))
        .map_err(|e| Error::Failed(format!("{}: {e}", input.display())))?;
    let files = md5_files(
        &scene,
        out,
        &options.anim_out,
        options.fps,
        options.max_output,
    )?;
    let mut report = Report::new(out);
    for f in &files {
        let warnings = crate::target::check_written(&f.path, &f.bytes, options)?;
        report.warnings.extend(warnings);
    }
    let mut outputs = Outputs::new(true);
    for f in files {
        report.lines.push(format!(
            "wrote {} ({} bytes)",
            f.path.display(),
            f.bytes.len()
        ));
        if f.named {
            report.written.bytes = crate::outcome::len(&f.bytes);
            outputs.output(&f.path, f.bytes);
        } else {
            outputs.side(&f.path, f.bytes);
        }
    }
    Ok(Converted {
        files: outputs.files,
        report,
    })
}

// Tests may index and unwrap: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;
    use idmodel_scene::{Animation, Channel, ChannelValues, Interpolation, Node, Primitive};

    fn scene() -> Scene {
        let mut s = Scene::still(
            "m",
            vec![Primitive {
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                indices: vec![0, 1, 2],
                ..Primitive::default()
            }],
            Vec::new(),
        );
        let clip = |name: &str| Animation {
            name: name.into(),
            channels: vec![Channel {
                node: 0,
                times: vec![0.0, 1.0],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Translation(vec![[0.0; 3], [1.0, 0.0, 0.0]]),
            }],
        };
        s.animations = vec![clip("run fast"), clip("run/fast"), clip("")];
        let mut cam = Node::new("cam");
        cam.camera = Some(0);
        s.nodes.push(cam);
        s.cameras.push(idmodel_scene::Camera {
            name: "cam".into(),
            yfov: 1.0,
            aspect_ratio: None,
            znear: 1.0,
            zfar: None,
        });
        s
    }

    #[test]
    fn a_mesh_output_names_the_anims_after_their_clips() {
        let files = md5_files(&scene(), Path::new("out/m.md5mesh"), &[], None, None).unwrap();
        let paths: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "out/m.md5mesh",
                "out/run_fast.md5anim",
                "out/run_fast_2.md5anim",
                "out/anim2.md5anim",
                "out/cam.md5camera"
            ]
        );
        assert!(files[0].named && files[1..].iter().all(|f| !f.named));
        assert!(mesh::parse(&files[0].bytes).is_ok());
        assert!(anim::parse(&files[1].bytes).is_ok());
        assert!(camera::parse(&files[4].bytes).is_ok());
    }

    #[test]
    fn anim_out_paths_must_match_the_clips() {
        let outs = [PathBuf::from("a.md5anim"), PathBuf::from("b.md5anim")];
        let e = md5_files(&scene(), Path::new("m.md5mesh"), &outs, None, None).unwrap_err();
        assert_eq!(
            e,
            "m.md5mesh: 2 --anim-out paths for 3 animations (run fast, run/fast, anim2)"
        );
        let outs = [
            PathBuf::from("a.md5anim"),
            PathBuf::from("b.md5anim"),
            PathBuf::from("c.md5anim"),
        ];
        let files = md5_files(&scene(), Path::new("m.md5mesh"), &outs, Some(30), None).unwrap();
        assert_eq!(files[3].path, PathBuf::from("c.md5anim"));
        assert!(String::from_utf8_lossy(&files[1].bytes).contains("frameRate 30"));
    }

    #[test]
    fn anim_and_camera_outputs_take_the_first_of_their_kind() {
        let files = md5_files(&scene(), Path::new("x/first.md5anim"), &[], None, None).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].path, PathBuf::from("x/first.md5anim"));
        assert!(files[0].named);
        let files = md5_files(&scene(), Path::new("shot.MD5CAMERA"), &[], None, None).unwrap();
        assert_eq!(files.len(), 1);
        assert!(files[0].named);
        let e = md5_files(&scene(), Path::new("m.obj"), &[], None, None).unwrap_err();
        assert!(e.contains("not an md5 output"), "{e}");
    }
}
