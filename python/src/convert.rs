//! Conversions, checks and engine limits: `idmodel-convert`'s calls with Python types.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use idmodel_convert::{Converted, Engine, Options, check};

use crate::{engine, error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Report>()?;
    m.add_class::<Finding>()?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(convert_unwritten, m)?)?;
    m.add_function(wrap_pyfunction!(materials, m)?)?;
    m.add_function(wrap_pyfunction!(check_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(limits, m)?)?;
    m.add_function(wrap_pyfunction!(engines, m)?)?;
    Ok(())
}

/// The options of a conversion, as the command's flags name them.
#[derive(Default)]
pub(crate) struct Opts {
    engine: Option<String>,
    fit: bool,
    unchecked: bool,
    anims: Vec<PathBuf>,
    game: Vec<PathBuf>,
    fps: Option<u32>,
    frame: Option<usize>,
    clip: Option<String>,
    skin: Option<String>,
    quantize: bool,
    meshopt: bool,
    no_textures: bool,
    keep_axes: bool,
    keep_normals: bool,
    lods: Option<u8>,
    no_split: bool,
    shader_prefix: Option<String>,
    skin_name: Option<String>,
    groups: bool,
    palette: Option<PathBuf>,
}

impl<'py> FromPyObject<'_, 'py> for Opts {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let d = obj.cast::<PyDict>()?;
        let mut o = Opts::default();
        for (k, v) in d.iter() {
            let key: String = k.extract()?;
            if v.is_none() {
                continue;
            }
            match key.as_str() {
                "engine" => o.engine = v.extract()?,
                "fit" => o.fit = v.extract()?,
                "unchecked" => o.unchecked = v.extract()?,
                "anims" => o.anims = v.extract()?,
                "game" => o.game = v.extract()?,
                "fps" => o.fps = v.extract()?,
                "frame" => o.frame = v.extract()?,
                "clip" => o.clip = v.extract()?,
                "skin" => o.skin = v.extract()?,
                "quantize" => o.quantize = v.extract()?,
                "meshopt" => o.meshopt = v.extract()?,
                "no_textures" => o.no_textures = v.extract()?,
                "keep_axes" => o.keep_axes = v.extract()?,
                "keep_normals" => o.keep_normals = v.extract()?,
                "lods" => o.lods = v.extract()?,
                "no_split" => o.no_split = v.extract()?,
                "shader_prefix" => o.shader_prefix = v.extract()?,
                "skin_name" => o.skin_name = v.extract()?,
                "groups" => o.groups = v.extract()?,
                "palette" => o.palette = v.extract()?,
                _ => {
                    return Err(error(
                        d.py(),
                        "usage",
                        format!(
                            "unknown option '{key}'; the options are: {}",
                            OPTION_NAMES.join(", ")
                        ),
                        None,
                    ));
                }
            }
        }
        Ok(o)
    }
}

/// The option names, as the command's flags name them (`no_textures` for `--no-textures`).
pub(crate) const OPTION_NAMES: &[&str] = &[
    "engine",
    "fit",
    "unchecked",
    "anims",
    "game",
    "fps",
    "frame",
    "clip",
    "skin",
    "quantize",
    "meshopt",
    "no_textures",
    "keep_axes",
    "keep_normals",
    "lods",
    "no_split",
    "shader_prefix",
    "skin_name",
    "groups",
    "palette",
];

impl Opts {
    pub(crate) fn options(self, py: Python<'_>) -> PyResult<Options> {
        let mut o = Options {
            engine: engine(py, self.engine.as_deref())?,
            fit: self.fit,
            unchecked: self.unchecked,
            anims: self.anims,
            game: self.game,
            fps: self.fps,
            frame: self.frame,
            clip: self.clip,
            skin: self.skin,
            quantize: self.quantize,
            meshopt: self.meshopt,
            no_textures: self.no_textures,
            keep_axes: self.keep_axes,
            keep_normals: self.keep_normals,
            no_split: self.no_split,
            skin_name: self.skin_name,
            groups: self.groups,
            palette: self.palette,
            ..Options::default()
        };
        o.lods.count = self.lods;
        if let Some(p) = self.shader_prefix {
            o.shader_prefix = p;
        }
        Ok(o)
    }
}

/// Each output's path and bytes, and the report.
type Outputs<'py> = (Vec<(PathBuf, Bound<'py, PyBytes>)>, Report);

/// A material's name and its image (see [`materials`]).
type NamedImage<'py> = (String, Option<Bound<'py, PyAny>>);

/// The Python error of a failed conversion.
pub(crate) fn conversion_error(py: Python<'_>, e: idmodel_convert::Error) -> PyErr {
    let (kind, line) = match e {
        idmodel_convert::Error::Usage(s) => ("usage", s),
        idmodel_convert::Error::Refused(s) => ("refused", s),
        idmodel_convert::Error::Failed(s) => ("failed", s),
    };
    error(py, kind, line, None)
}

/// What a conversion wrote and said.
#[pyclass(frozen, get_all, module = "idmodel._native")]
pub struct Report {
    /// The files written (or, for `to_glb`, that would be), the named output first.
    pub(crate) files: Vec<PathBuf>,
    /// What the command prints on success, one line each.
    lines: Vec<String>,
    /// Warnings, one line each, naming their file.
    warnings: Vec<String>,
}

#[pymethods]
impl Report {
    fn __repr__(&self) -> String {
        format!(
            "Report(files={:?}, warnings={})",
            self.files,
            self.warnings.len()
        )
    }
}

/// The report of a conversion not written (yet).
fn report(done: &Converted) -> Report {
    Report {
        files: done.files.iter().map(|f| f.path.clone()).collect(),
        lines: done.report.lines.clone(),
        warnings: done.report.warnings.clone(),
    }
}

/// Writes a conversion's files with the command's writer and reports what it wrote.
pub(crate) fn write_out(py: Python<'_>, done: Converted, force: bool) -> PyResult<Report> {
    let files = done.files.iter().map(|f| f.path.clone()).collect();
    let written = py
        .detach(|| idmodel_cli::write_converted(done, force))
        .map_err(|e| error(py, "failed", e, None))?;
    Ok(Report {
        files,
        lines: written.lines,
        warnings: written.warnings,
    })
}

/// Converts `source` to `output` as `idmodel convert` does and writes the files the way
/// it writes them (never over an input; `force` replaces existing side files).
#[pyfunction]
#[pyo3(signature = (source, output, options, force=false))]
fn convert(
    py: Python<'_>,
    source: PathBuf,
    output: PathBuf,
    options: Opts,
    force: bool,
) -> PyResult<Report> {
    let options = options.options(py)?;
    let done = py
        .detach(|| idmodel_convert::convert(&source, &output, &options))
        .map_err(|e| conversion_error(py, e))?;
    write_out(py, done, force)
}

/// Converts `source` as `output` names without writing: `[(path, bytes)]` and the report.
#[pyfunction]
#[pyo3(signature = (source, output, options))]
fn convert_unwritten<'py>(
    py: Python<'py>,
    source: PathBuf,
    output: PathBuf,
    options: Opts,
) -> PyResult<Outputs<'py>> {
    let options = options.options(py)?;
    let done = py
        .detach(|| idmodel_convert::convert(&source, &output, &options))
        .map_err(|e| conversion_error(py, e))?;
    Ok(outputs(py, &done))
}

fn outputs<'py>(py: Python<'py>, done: &Converted) -> Outputs<'py> {
    let out = done
        .files
        .iter()
        .map(|f| (f.path.clone(), PyBytes::new(py, &f.bytes())))
        .collect();
    (out, report(done))
}

/// The materials of the model at `source` with their textures resolved as a conversion
/// resolves them (skins inside the file, `.skin` files, `game` folders and archives):
/// `[(name, image)]`, `image` `None`, `("rgba", width, height, pixels)` or
/// `("png" | "jpeg", encoded bytes)`; and the report's warnings.
#[pyfunction]
#[pyo3(signature = (source, options))]
fn materials<'py>(
    py: Python<'py>,
    source: PathBuf,
    options: Opts,
) -> PyResult<(Vec<NamedImage<'py>>, Vec<String>)> {
    use idmodel_scene::{Image, Mime};
    let options = options.options(py)?;
    let (scene, rep) = py
        .detach(|| idmodel_convert::scene(&source, &options))
        .map_err(|e| conversion_error(py, e))?;
    let mut out = Vec::new();
    for m in scene.materials {
        let image = match m.image.map(Image::to_rgba8) {
            Some(Image::Rgba8 {
                width,
                height,
                pixels,
            }) => Some(
                ("rgba", width, height, PyBytes::new(py, &pixels))
                    .into_pyobject(py)?
                    .into_any(),
            ),
            Some(Image::Encoded { mime, bytes }) => {
                let kind = if mime == Mime::Png { "png" } else { "jpeg" };
                Some(
                    (kind, PyBytes::new(py, &bytes))
                        .into_pyobject(py)?
                        .into_any(),
                )
            }
            _ => None,
        };
        out.push((m.name, image));
    }
    Ok((out, rep.warnings))
}

/// Converts files held in memory (`files`: name → bytes; `model` the model's name among
/// them) to the bytes of each output, without writing: `[(path, bytes)]` and the report.
#[pyfunction]
#[pyo3(signature = (files, model, output, options))]
fn convert_bytes<'py>(
    py: Python<'py>,
    files: Vec<(String, Vec<u8>)>,
    model: String,
    output: PathBuf,
    options: Opts,
) -> PyResult<Outputs<'py>> {
    let options = options.options(py)?;
    let done = py
        .detach(|| {
            let refs: Vec<(&str, &[u8])> = files
                .iter()
                .map(|(n, b)| (n.as_str(), b.as_slice()))
                .collect();
            idmodel_convert::convert_bytes(&refs, &model, &output, &options)
        })
        .map_err(|e| conversion_error(py, e))?;
    Ok(outputs(py, &done))
}

/// One finding of a check, merged over the engines it concerns.
#[pyclass(frozen, get_all, module = "idmodel._native")]
pub struct Finding {
    /// `"warning"`, `"hazard"` (loads, then misbehaves) or `"refused"` (does not load).
    severity: &'static str,
    /// The engines, by the command's names.
    engines: Vec<&'static str>,
    /// The stable kind (`too-many-vertices`).
    code: &'static str,
    /// One line: what the engine does and why.
    message: String,
    /// The side file it is about (`lower_default.skin`), or `None` for the model.
    file: Option<String>,
    /// Byte offset, when the finding has one.
    offset: Option<u64>,
    /// 1-based line (text files), when known.
    line: Option<u64>,
    /// 1-based column, when known.
    column: Option<u64>,
}

#[pymethods]
impl Finding {
    /// The first engine (most findings concern one).
    #[getter]
    fn engine(&self) -> &'static str {
        self.engines.first().copied().unwrap_or("")
    }

    fn __repr__(&self) -> String {
        format!(
            "Finding({}, {}: {})",
            self.engines.join(","),
            self.severity,
            self.message
        )
    }

    fn __str__(&self) -> String {
        format!(
            "{}: {}: {}",
            self.engines.join(", "),
            self.severity,
            self.message
        )
    }
}

/// `check --json`'s findings of `data`, read from `path` (used in messages and to find
/// a Quake III model's `.skin` and `animation.cfg` beside it).
#[pyfunction]
#[pyo3(signature = (path, data, engine_name=None))]
fn check_bytes(
    py: Python<'_>,
    path: PathBuf,
    data: &Bound<'_, PyBytes>,
    engine_name: Option<String>,
) -> PyResult<Vec<Finding>> {
    let e = engine(py, engine_name.as_deref())?;
    let bytes = data.as_bytes();
    let checked = check::check_bytes(&path, bytes, e).map_err(|err| match err {
        check::CheckError::Usage(s) => error(py, "usage", s, None),
        check::CheckError::Refused(s) => error(py, "refused", s, None),
    })?;
    Ok(checked
        .findings
        .into_iter()
        .map(|m| {
            let loc = m.location.unwrap_or_default();
            Finding {
                severity: m.severity.name(),
                engines: m.engines.iter().map(|e| e.name()).collect(),
                code: m.code,
                message: m.message,
                file: m.file,
                offset: loc.offset,
                line: loc.line,
                column: loc.column,
            }
        })
        .collect())
}

/// The limits `engine` enforces on a model it loads (and draws): `vertices` and
/// `triangles` (per surface for MD3, per model for MDL and MD2), `frames`, `skins`,
/// `skin_height`; `None` where the engine sets none.
#[pyfunction]
fn limits<'py>(py: Python<'py>, engine_name: String) -> PyResult<Bound<'py, PyDict>> {
    let e = engine(py, Some(&engine_name))?;
    let d = PyDict::new(py);
    let none: Option<usize> = None;
    let (verts, tris, frames, skins, height) = match e {
        Some(Engine::WinQuake) => (
            Some(idmodel_mdl::MAX_VERTS_SOFTWARE),
            none,
            none,
            none,
            Some(idmodel_mdl::MAX_SKIN_HEIGHT),
        ),
        Some(Engine::GlQuake) => (
            Some(idmodel_mdl::MAX_VERTS_GLQUAKE),
            Some(idmodel_mdl::MAX_TRIS_GLQUAKE),
            Some(idmodel_mdl::MAX_POSES_GLQUAKE),
            Some(idmodel_mdl::MAX_SKINS),
            Some(idmodel_mdl::MAX_SKIN_HEIGHT),
        ),
        Some(Engine::QuakeSpasm) => (
            Some(idmodel_mdl::MAX_VERTS_SOFTWARE),
            Some(idmodel_mdl::MAX_TRIS_QUAKESPASM),
            Some(idmodel_mdl::MAX_POSES_QUAKESPASM),
            Some(idmodel_mdl::MAX_SKINS),
            Some(idmodel_mdl::MAX_SKIN_HEIGHT),
        ),
        Some(Engine::Quake2) => (
            Some(idmodel_md2::MAX_VERTS),
            Some(idmodel_md2::MAX_TRIANGLES),
            Some(idmodel_md2::MAX_FRAMES),
            Some(idmodel_md2::MAX_MD2SKINS),
            usize::try_from(idmodel_md2::MAX_LBM_HEIGHT).ok(),
        ),
        Some(e @ (Engine::Quake3 | Engine::Ioq3)) => (
            idmodel_md3::max_verts(e),
            idmodel_md3::max_triangles(e),
            none,
            none,
            none,
        ),
        _ => (none, none, none, none, none),
    };
    d.set_item("vertices", verts)?;
    d.set_item("triangles", tris)?;
    d.set_item("frames", frames)?;
    d.set_item("skins", skins)?;
    d.set_item("skin_height", height)?;
    Ok(d)
}

/// The engines that load `format` (`"mdl"`, `"md2"`, `"md3"`, `"md5mesh"`, …).
#[pyfunction]
fn engines(py: Python<'_>, format: String) -> PyResult<Vec<&'static str>> {
    let f = match format.to_ascii_lowercase().as_str() {
        "mdl" => idmodel_core::detect::Format::Mdl,
        "md2" => idmodel_core::detect::Format::Md2,
        "md3" => idmodel_core::detect::Format::Md3,
        "md5mesh" => idmodel_core::detect::Format::Md5Mesh,
        "md5anim" => idmodel_core::detect::Format::Md5Anim,
        "md5camera" => idmodel_core::detect::Format::Md5Camera,
        _ => {
            return Err(error(
                py,
                "usage",
                format!(
                    "unknown format '{format}'; choose one of: mdl, md2, md3, md5mesh, md5anim, md5camera"
                ),
                None,
            ));
        }
    };
    Ok(Engine::for_format(f).map(|e| e.name()).collect())
}
