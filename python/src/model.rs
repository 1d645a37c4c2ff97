//! `Model` and `Mesh`: a parsed file and its arrays, decoded by the C API's safe layer.

use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use idmodel_capi::formats::{Fail, ParseError, Parsed, parse};
use idmodel_capi::{IDMODEL_NO_OFFSET, IdmodelJoint};
use idmodel_convert::Location;

use crate::error;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_class::<Mesh>()?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(read_path, m)?)?;
    m.add_function(wrap_pyfunction!(load_path, m)?)?;
    m.add_function(wrap_pyfunction!(info_json, m)?)?;
    Ok(())
}

/// The Python error of a failed call on `name`.
fn failed(py: Python<'_>, name: &str, fail: &Fail) -> PyErr {
    let offset = Some(fail.offset()).filter(|&o| o != IDMODEL_NO_OFFSET);
    let (line, column) = match fail {
        Fail::Parse(_, ParseError::Text(e)) => {
            (Some(u64::from(e.line())), Some(u64::from(e.column())))
        }
        _ => (None, None),
    };
    let kind = match fail {
        Fail::Parse(..) | Fail::UnknownFormat(_) => "refused",
        _ => "usage",
    };
    error(
        py,
        kind,
        format!("{name}: {fail}"),
        Some(Location {
            offset,
            line,
            column,
        }),
    )
}

/// A numpy array of `shape` over `flat` (moved, not copied).
fn array<'py, T: numpy::Element>(
    py: Python<'py>,
    flat: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let a = PyArray1::from_vec(py, flat);
    Ok(a.reshape(shape)?.into_any())
}

/// Flattens `[[T; N]]` into `Vec<T>` without a per-element Python object.
fn flat<T: Copy, const N: usize>(v: Vec<[T; N]>) -> Vec<T> {
    v.into_iter().flatten().collect()
}

fn index(i: i64, count: usize, what: &str) -> PyResult<u64> {
    let n = i64::try_from(count).unwrap_or(i64::MAX);
    let j = if i < 0 { i.saturating_add(n) } else { i };
    match u64::try_from(j) {
        Ok(j) if j < u64::try_from(count).unwrap_or(u64::MAX) => Ok(j),
        _ => Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "{what} {i} is out of range (there are {count})"
        ))),
    }
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A parsed model file: the bytes it was read from and its format.
///
/// Made by `idmodel.load`; every array is decoded from the bytes when asked for.
#[pyclass(frozen, module = "idmodel._native")]
pub struct Model {
    bytes: Vec<u8>,
    name: String,
    path: Option<PathBuf>,
    format: &'static str,
}

impl Model {
    fn parsed(&self, py: Python<'_>) -> PyResult<Parsed<'_>> {
        parse(&self.bytes).map_err(|f| failed(py, &self.name, &f))
    }
}

/// Parses `data` as a model named `name` (used in messages and to tell the format).
#[pyfunction]
#[pyo3(signature = (data, name, path=None))]
fn parse_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    name: String,
    path: Option<PathBuf>,
) -> PyResult<Model> {
    let bytes = data.as_bytes().to_vec();
    let format = parse(&bytes)
        .map_err(|f| failed(py, &name, &f))?
        .format_id();
    Ok(Model {
        bytes,
        name,
        path,
        format,
    })
}

/// Reads and parses the model at `path` (a file, `ARCHIVE:entry` or a file in a game
/// folder) without copying its bytes through Python; `None` for a folder.
#[pyfunction]
fn load_path(py: Python<'_>, path: PathBuf, name: String) -> PyResult<Option<Model>> {
    if path.is_dir() {
        return Ok(None);
    }
    let bytes = py
        .detach(|| idmodel_convert::read_model(&path))
        .map_err(|e| error(py, "failed", e, None))?;
    let format = parse(&bytes)
        .map_err(|f| failed(py, &name, &f))?
        .format_id();
    Ok(Some(Model {
        bytes,
        name,
        path: Some(path),
        format,
    }))
}

/// The bytes of a model file, an `ARCHIVE:entry` or a file in a game folder, read as the
/// command reads them.
#[pyfunction]
fn read_path<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py
        .detach(|| idmodel_convert::read_model(&path))
        .map_err(|e| error(py, "failed", e, None))?;
    Ok(PyBytes::new(py, &bytes))
}

/// `idmodel info --json` of a file, a player folder or bytes named `name`.
#[pyfunction]
#[pyo3(signature = (path, data=None))]
fn info_json(py: Python<'_>, path: PathBuf, data: Option<&Bound<'_, PyBytes>>) -> PyResult<String> {
    let out = match data {
        Some(d) => idmodel_convert::info_report(&path, d.as_bytes(), true),
        None => py
            .detach(|| idmodel_convert::info(&path, true))
            .and_then(|(text, errors)| match errors.into_iter().next() {
                Some(e) => Err(e),
                None => Ok(text),
            }),
    };
    out.map_err(|e| error(py, "refused", e, None))
}

#[pymethods]
impl Model {
    /// `"mdl"`, `"md2"`, `"md3"`, `"md5mesh"`, `"md5anim"` or `"md5camera"`.
    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }

    /// The name the model was loaded under (its path, or the name given with bytes).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The path it was read from, `None` for bytes.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// The file's bytes.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bytes)
    }

    /// The counts `info --json` reports: frames, vertices, triangles, meshes, skins,
    /// tags, joints.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let i = self.parsed(py)?.info();
        let d = PyDict::new(py);
        d.set_item("frames", i.frames)?;
        d.set_item("vertices", i.vertices)?;
        d.set_item("triangles", i.triangles)?;
        d.set_item("meshes", i.meshes)?;
        d.set_item("skins", i.skins)?;
        d.set_item("tags", i.tags)?;
        d.set_item("joints", i.joints)?;
        Ok(d)
    }

    /// The meshes: MDL and MD2 one, MD3 one per surface, md5mesh one per mesh.
    fn meshes(slf: &Bound<'_, Self>) -> PyResult<Vec<Mesh>> {
        let py = slf.py();
        let me = slf.get();
        let parsed = me.parsed(py)?;
        let n = parsed.info().meshes;
        let mut out = Vec::new();
        for i in 0..n {
            let mi = parsed.mesh_info(i).map_err(|f| failed(py, &me.name, &f))?;
            out.push(Mesh {
                model: slf.clone().unbind(),
                index: i,
                name: c_text(&mi.name),
                shader: c_text(&mi.shader),
                vertices: usize_of(mi.vertices),
                triangles: usize_of(mi.triangles),
                frames: usize_of(mi.frames),
            });
        }
        Ok(out)
    }

    /// The name of each frame (MDL poses, MD2 and MD3 frames); empty for md5.
    fn frame_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(match self.parsed(py)? {
            Parsed::Mdl(m) => m.poses().map(|p| p.name().to_string()).collect(),
            Parsed::Md2(m) => m.frames().map(|f| f.name().to_string()).collect(),
            Parsed::Md3(m) => m.frames().iter().map(|f| f.name().to_string()).collect(),
            _ => Vec::new(),
        })
    }

    /// The skins' names: MD2 skin paths; MDL `skin<N>`; MD3 each surface's first
    /// shader; md5mesh each mesh's shader.
    fn skin_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let parsed = self.parsed(py)?;
        Ok(match parsed {
            Parsed::Md2(m) => m.skins().map(|s| s.to_string()).collect(),
            Parsed::Mdl(m) => (0..m.skins().len()).map(|i| format!("skin{i}")).collect(),
            _ => {
                let n = parsed.info().meshes;
                (0..n)
                    .filter_map(|i| parsed.mesh_info(i).ok())
                    .map(|mi| c_text(&mi.shader))
                    .collect()
            }
        })
    }

    /// MD3 tag names, in file order.
    fn tag_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(match self.parsed(py)? {
            Parsed::Md3(m) => m.tag_names().map(|n| n.to_string()).collect(),
            _ => Vec::new(),
        })
    }

    /// MD3 tags of every frame: `(origins (frames, tags, 3), axes (frames, tags, 3, 3))`,
    /// the axes' rows forward, left, up, as the engine reads them.
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let parsed = self.parsed(py)?;
        let i = parsed.info();
        let (frames, tags) = (usize_of(i.frames), usize_of(i.tags));
        let mut origins: Vec<f32> =
            Vec::with_capacity(frames.saturating_mul(tags).saturating_mul(3));
        let mut axes: Vec<f32> = Vec::with_capacity(frames.saturating_mul(tags).saturating_mul(9));
        if tags > 0 {
            for f in 0..i.frames {
                for t in 0..i.tags {
                    let tag = parsed
                        .tag(t, f, f, 0.0)
                        .map_err(|e| failed(py, &self.name, &e))?;
                    origins.extend_from_slice(&tag.origin);
                    axes.extend(tag.axis.iter().flatten());
                }
            }
        }
        let frames = if tags == 0 { 0 } else { frames };
        Ok((
            array(py, origins, &[frames, tags, 3])?,
            array(py, axes, &[frames, tags, 3, 3])?,
        ))
    }

    /// md5mesh and md5anim: the joints' names and parents (-1 for a root).
    fn joints(&self, py: Python<'_>) -> PyResult<(Vec<String>, Vec<i32>)> {
        Ok(match self.parsed(py)? {
            Parsed::Md5Mesh(f) => f
                .joints()
                .map(|j| (j.name.to_string_lossy(), j.parent.max(-1)))
                .unzip(),
            Parsed::Md5Anim(a) => a
                .hierarchy()
                .map(|h| (h.name.to_string_lossy(), h.parent.max(-1)))
                .unzip(),
            _ => (Vec::new(), Vec::new()),
        })
    }

    /// md5: model-space joint matrices `(frames, joints, 3, 4)` as Doom 3 builds them
    /// (rows: rotation then translation); md5mesh its bind pose (one frame), md5anim
    /// every frame.
    fn poses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let parsed = self.parsed(py)?;
        let info = parsed.info();
        let joints = usize_of(info.joints);
        let frames = match parsed {
            Parsed::Md5Mesh(_) => 1,
            Parsed::Md5Anim(_) => usize_of(info.frames),
            _ => 0,
        };
        let mut out = vec![IdmodelJoint::default(); frames.saturating_mul(joints)];
        let mut components = vec![0f32; usize_of(info.components)];
        let name = &self.name;
        py.detach(|| {
            for (f, chunk) in out.chunks_mut(joints.max(1)).enumerate() {
                let f = u64::try_from(f).unwrap_or(u64::MAX);
                parsed.md5_pose(f, &mut components, chunk)?;
            }
            Ok::<(), Fail>(())
        })
        .map_err(|f| failed(py, name, &f))?;
        let values: Vec<f32> = out
            .iter()
            .flat_map(|j| j.m.iter().flatten().copied())
            .collect();
        array(py, values, &[frames, joints, 3, 4])
    }

    /// md5anim and md5camera: frames per second; `None` else.
    fn frame_rate(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        Ok(match self.parsed(py)? {
            Parsed::Md5Anim(a) => Some(f64::from(a.frame_rate())),
            Parsed::Md5Camera(c) => Some(f64::from(c.frame_rate())),
            _ => None,
        })
    }

    /// md5anim: the stored bounds of every frame, `(frames, 2, 3)` (min, max).
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let values: Vec<f32> = match self.parsed(py)? {
            Parsed::Md5Anim(a) => a.bounds().flat_map(|b| b.into_iter().flatten()).collect(),
            _ => Vec::new(),
        };
        let frames = values.len() / 6;
        array(py, values, &[frames, 2, 3])
    }
}

/// A mesh of a [`Model`]: MDL and MD2 the model, MD3 a surface, md5mesh a mesh.
#[pyclass(frozen, module = "idmodel._native")]
pub struct Mesh {
    model: Py<Model>,
    index: u64,
    name: String,
    shader: String,
    vertices: usize,
    triangles: usize,
    frames: usize,
}

fn c_text(field: &[core::ffi::c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .map(|c| c.to_ne_bytes()[0])
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[pymethods]
impl Mesh {
    /// MD3 surface name, md5mesh mesh name; empty for MDL and MD2.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// MD3 first shader, md5mesh shader; empty else.
    #[getter]
    fn shader(&self) -> &str {
        &self.shader
    }

    /// Vertex count.
    #[getter]
    fn vertex_count(&self) -> usize {
        self.vertices
    }

    /// Triangle count.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.triangles
    }

    /// Frames (1 for md5mesh: its bind pose).
    #[getter]
    fn frame_count(&self) -> usize {
        if self.frames == 0 { 1 } else { self.frames }
    }

    /// Triangles as `(triangles, 3)` uint32 vertex indices, in the file's winding.
    fn triangle_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let model = self.model.get();
        let parsed = model.parsed(py)?;
        let mut out = vec![[0u32; 3]; self.triangles];
        parsed
            .indices(self.index, &mut out)
            .map_err(|f| failed(py, &model.name, &f))?;
        array(py, flat(out), &[self.triangles, 3])
    }

    /// Per-vertex UVs `(vertices, 2)` (MD3, md5mesh), or `None` where the format keeps
    /// them per triangle corner (MDL, MD2: see `corner_uvs`).
    fn uv_array<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let model = self.model.get();
        let parsed = model.parsed(py)?;
        if matches!(parsed, Parsed::Mdl(_) | Parsed::Md2(_)) {
            return Ok(None);
        }
        let mut out = vec![[0f32; 2]; self.vertices];
        parsed
            .uvs(self.index, &mut out)
            .map_err(|f| failed(py, &model.name, &f))?;
        Ok(Some(array(py, flat(out), &[self.vertices, 2])?))
    }

    /// Per-corner UVs `(triangles, 3, 2)` in glTF's convention (0, 0 the image's top
    /// left): MDL with GLQuake's seam rule, MD2, MD3.
    fn corner_uv_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let model = self.model.get();
        let parsed = model.parsed(py)?;
        let mut out = vec![[0f32; 6]; self.triangles];
        parsed
            .corner_uvs(self.index, &mut out)
            .map_err(|f| failed(py, &model.name, &f))?;
        array(py, flat(out), &[self.triangles, 3, 2])
    }

    /// Positions and normals of frames `first..first+count`, each `(count, vertices, 3)`,
    /// as the engine decodes them. md5mesh: the bind pose (frame 0 only).
    fn frame_arrays<'py>(
        &self,
        py: Python<'py>,
        first: i64,
        count: Option<usize>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let model = self.model.get();
        let parsed = model.parsed(py)?;
        let frames = self.frame_count();
        let first = index(first, frames, "frame")?;
        let left = frames.saturating_sub(usize_of(first));
        let count = count.map_or(left, |c| c.min(left));
        let n = self.vertices;
        let total = count.saturating_mul(n);
        let mut pos = vec![[0f32; 3]; total];
        let mut nrm = vec![[0f32; 3]; total];
        if let Parsed::Md5Mesh(_) = parsed {
            let joints = md5_bind(&parsed, py, &model.name)?;
            if let Some(p) = pos.get_mut(..n) {
                parsed
                    .md5_skin(self.index, &joints, p)
                    .map_err(|f| failed(py, &model.name, &f))?;
            }
            // md5 stores no normals: Doom 3 derives them at load; they are left zero.
        } else {
            let name = &model.name;
            py.detach(|| {
                for (k, (p, q)) in pos
                    .chunks_mut(n.max(1))
                    .zip(nrm.chunks_mut(n.max(1)))
                    .enumerate()
                {
                    let f = first.saturating_add(u64::try_from(k).unwrap_or(u64::MAX));
                    parsed.frame(self.index, f, f, 0.0, p, q)?;
                }
                Ok::<(), Fail>(())
            })
            .map_err(|f| failed(py, name, &f))?;
        }
        Ok((
            array(py, flat(pos), &[count, n, 3])?,
            array(py, flat(nrm), &[count, n, 3])?,
        ))
    }
}

/// The md5mesh's bind pose as joint matrices.
fn md5_bind(parsed: &Parsed<'_>, py: Python<'_>, name: &str) -> PyResult<Vec<IdmodelJoint>> {
    let n = usize_of(parsed.info().joints);
    let mut joints = vec![IdmodelJoint::default(); n];
    parsed
        .md5_pose(0, &mut [], &mut joints)
        .map_err(|f| failed(py, name, &f))?;
    Ok(joints)
}
