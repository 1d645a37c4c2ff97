//! The owned layer of `.md5mesh` (feature `alloc`): [`Model`], built in the parser's one
//! pass, its data checks, and the writer that gives the same model back.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::*;
use crate::write::{Dyn, WriteError, as_i32, invalid, write_f32, write_quoted, write_vec};

/// An owned md5mesh.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// The `commandline` text.
    pub commandline: String,
    /// The skeleton in its bind pose.
    pub joints: Vec<Joint<String>>,
    /// The meshes.
    pub meshes: Vec<Mesh>,
}

/// An owned mesh.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// The optional `name`.
    pub name: Option<String>,
    /// The material name.
    pub shader: String,
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Triangles.
    pub triangles: Vec<Triangle>,
    /// Weights.
    pub weights: Vec<Weight>,
}

/// The owned model, and the mesh being read (moved into `meshes` at its end).
struct Builder(Model, Mesh);

impl<'a> Sink<'a> for Builder {
    fn header(&mut self, commandline: Text<'a>) {
        self.0.commandline = commandline.to_string_lossy();
    }
    fn joint(&mut self, j: Joint<Text<'a>>) {
        self.0.joints.push(j.map_name(|n| n.to_string_lossy()));
    }
    fn mesh(&mut self, name: Option<Text<'a>>, shader: Text<'a>) {
        self.1 = Mesh {
            name: name.map(|n| n.to_string_lossy()),
            shader: shader.to_string_lossy(),
            ..Mesh::default()
        };
    }
    #[inline]
    fn vertex(&mut self, v: Vertex) {
        self.1.vertices.push(v);
    }
    #[inline]
    fn triangle(&mut self, t: Triangle) {
        self.1.triangles.push(t);
    }
    #[inline]
    fn weight(&mut self, w: Weight) {
        self.1.weights.push(w);
    }
    fn mesh_end(&mut self) {
        self.0.meshes.push(core::mem::take(&mut self.1));
    }
}

impl Model {
    /// Parses an md5mesh into an owned model in one pass. Lists grow as elements
    /// appear; no count read from the file is used to reserve memory.
    pub fn parse(bytes: &[u8]) -> Result<Model> {
        Self::parse_with(bytes, ParseOptions::default())
    }

    /// [`Model::parse`] with options.
    pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<Model> {
        let mut b = Builder(Model::default(), Mesh::default());
        parse_into(bytes, opts, &mut b)?;
        Ok(b.0)
    }

    /// The bind-pose joint matrices.
    pub fn bind_pose(&self) -> Vec<JointMat> {
        self.joints.iter().map(Joint::matrix).collect()
    }

    /// Reports findings on the model's data (not the text: see [`MeshFile::check`]).
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        let joints = self.joints.iter().map(|j| Joint {
            name: Text::from_bytes(j.name.as_bytes()),
            parent: j.parent,
            position: j.position,
            orientation: j.orientation,
        });
        check_joints(
            joints,
            u32::try_from(self.joints.len()).unwrap_or(u32::MAX),
            sink,
        );
        for (i, m) in self.meshes.iter().enumerate() {
            let weights_from = |first: u32| {
                let f = usize::try_from(first).unwrap_or(usize::MAX);
                m.weights.get(f..).unwrap_or(&[]).iter().copied()
            };
            check_mesh(
                u32::try_from(i).unwrap_or(u32::MAX),
                m.vertices.iter().copied(),
                u32::try_from(m.triangles.len()).unwrap_or(u32::MAX),
                m.weights.iter().copied(),
                weights_from,
                sink,
            );
        }
    }

    /// [`Model::check`] into a `Vec`.
    pub fn findings(&self, engine: Engine) -> Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

impl From<&MeshFile<'_>> for Model {
    fn from(f: &MeshFile<'_>) -> Model {
        Model {
            commandline: f.commandline().to_string_lossy(),
            joints: f
                .joints()
                .map(|j| j.map_name(|n| n.to_string_lossy()))
                .collect(),
            meshes: f
                .meshes()
                .map(|m| Mesh {
                    name: m.name().map(|n| n.to_string_lossy()),
                    shader: m.shader().to_string_lossy(),
                    vertices: m.vertices().collect(),
                    triangles: m.triangles().collect(),
                    weights: m.weights().collect(),
                })
                .collect(),
        }
    }
}

impl From<MeshFile<'_>> for Model {
    fn from(f: MeshFile<'_>) -> Model {
        Model::from(&f)
    }
}

fn wide(n: u32) -> i64 {
    i64::from(n)
}

/// Checks that the reader would accept what the writer would write.
fn validate(m: &Model) -> core::result::Result<(), WriteError> {
    as_i32(m.joints.len(), "numJoints", 0)?;
    as_i32(m.meshes.len(), "numMeshes", 0)?;
    for (i, j) in m.joints.iter().enumerate() {
        if usize::try_from(j.parent).is_ok_and(|p| p >= i) {
            return Err(invalid("joint parent", i, i64::from(j.parent)));
        }
    }
    for m in &m.meshes {
        as_i32(m.vertices.len(), "numverts", 0)?;
        as_i32(m.triangles.len(), "numtris", 0)?;
        as_i32(m.weights.len(), "numweights", 0)?;
        for (i, v) in m.vertices.iter().enumerate() {
            let end = u64::from(v.first_weight).saturating_add(u64::from(v.weight_count));
            if v.weight_count == 0
                || i32::try_from(v.weight_count).is_err()
                || i32::try_from(v.first_weight).is_err()
                || end > u64::try_from(m.weights.len()).unwrap_or(u64::MAX)
            {
                return Err(invalid("vertex weight range", i, wide(v.first_weight)));
            }
        }
        for (i, t) in m.triangles.iter().enumerate() {
            for &x in t {
                if usize::try_from(x).map_or(true, |x| x >= m.vertices.len()) {
                    return Err(invalid("triangle vertex index", i, wide(x)));
                }
            }
        }
    }
    Ok(())
}

fn validate_joints(m: &Model) -> core::result::Result<(), WriteError> {
    for mesh in &m.meshes {
        for (i, w) in mesh.weights.iter().enumerate() {
            if usize::try_from(w.joint).map_or(true, |x| x >= m.joints.len()) {
                return Err(invalid("weight joint index", i, wide(w.joint)));
            }
        }
    }
    Ok(())
}

/// Writes `m` as md5mesh text through `core::fmt::Write`. Refuses models the reader
/// would refuse, and NaN/infinite numbers; otherwise
/// `Model::parse(written) == m`, bit for bit.
pub fn write_fmt<W: Write + ?Sized>(m: &Model, w: &mut W) -> core::result::Result<(), WriteError> {
    validate(m)?;
    validate_joints(m)?;
    let mut w = Dyn(w);
    crate::write::write_header(&mut w, &m.commandline)?;
    write!(
        w,
        "\n\nnumJoints {}\nnumMeshes {}\n\njoints {{\n",
        m.joints.len(),
        m.meshes.len()
    )?;
    for j in &m.joints {
        w.write_char('\t')?;
        write_quoted(&mut w, &j.name, "joint name")?;
        write!(w, "\t{} ", j.parent)?;
        write_vec(&mut w, &j.position, "joint position")?;
        w.write_char(' ')?;
        write_vec(&mut w, &j.orientation, "joint orientation")?;
        w.write_char('\n')?;
    }
    w.write_str("}\n")?;
    for mesh in &m.meshes {
        w.write_str("\nmesh {\n")?;
        if let Some(name) = &mesh.name {
            w.write_str("\tname ")?;
            write_quoted(&mut w, name, "mesh name")?;
            w.write_char('\n')?;
        }
        w.write_str("\tshader ")?;
        write_quoted(&mut w, &mesh.shader, "shader")?;
        write!(w, "\n\n\tnumverts {}\n", mesh.vertices.len())?;
        for (i, v) in mesh.vertices.iter().enumerate() {
            write!(w, "\tvert {i} ")?;
            write_vec(&mut w, &v.uv, "vertex uv")?;
            writeln!(w, " {} {}", v.first_weight, v.weight_count)?;
        }
        write!(w, "\n\tnumtris {}\n", mesh.triangles.len())?;
        for (i, t) in mesh.triangles.iter().enumerate() {
            writeln!(w, "\ttri {i} {} {} {}", t[0], t[1], t[2])?;
        }
        write!(w, "\n\tnumweights {}\n", mesh.weights.len())?;
        for (i, wt) in mesh.weights.iter().enumerate() {
            write!(w, "\tweight {i} {} ", wt.joint)?;
            write_f32(&mut w, wt.bias, "weight bias")?;
            w.write_char(' ')?;
            write_vec(&mut w, &wt.position, "weight position")?;
            w.write_char('\n')?;
        }
        w.write_str("}\n")?;
    }
    Ok(())
}

crate::write::entry_points!(Model);
