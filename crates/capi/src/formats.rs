//! The safe half: a parsed view per format and what each call does with it, over Rust
//! slices the FFI layer has already checked (sizes exact, no aliasing).
//!
//! Public for Rust front ends that want the C API's answers without its pointers (the
//! Python package reads models through it), so that every front end decodes frames,
//! tags, joints and findings with the same code.

use core::fmt;

use idmodel_core::detect::{Format, detect};
use idmodel_core::{Engine, Severity};

#[allow(unused_imports)]
use crate::message;
use crate::{
    IDMODEL_E_BAD_HANDLE, IDMODEL_E_BUFFER_TOO_SMALL, IDMODEL_E_MISALIGNED, IDMODEL_E_NULL,
    IDMODEL_E_OVERLAP, IDMODEL_E_PARSE, IDMODEL_E_RANGE, IDMODEL_E_TOO_LARGE,
    IDMODEL_E_UNKNOWN_FORMAT, IDMODEL_E_UNSUPPORTED, IDMODEL_FORMAT_MD2, IDMODEL_FORMAT_MD3,
    IDMODEL_FORMAT_MD5ANIM, IDMODEL_FORMAT_MD5CAMERA, IDMODEL_FORMAT_MD5MESH, IDMODEL_FORMAT_MDL,
    IDMODEL_FORMAT_NONE, IDMODEL_FORMAT_OTHER, IDMODEL_NO_OFFSET, IdmodelInfo, IdmodelJoint,
    IdmodelMeshInfo, IdmodelTag,
};

/// A model parsed by its format crate: a `Copy` view borrowing the caller's bytes.
#[derive(Clone, Copy)]
pub enum Parsed<'a> {
    /// Quake MDL.
    #[cfg(feature = "mdl")]
    Mdl(idmodel_mdl::Mdl<'a>),
    /// Quake II MD2.
    #[cfg(feature = "md2")]
    Md2(idmodel_md2::Md2<'a>),
    /// Quake III MD3.
    #[cfg(feature = "md3")]
    Md3(idmodel_md3::Md3<'a>),
    /// Doom 3 md5mesh.
    #[cfg(feature = "md5")]
    Md5Mesh(idmodel_md5::mesh::MeshFile<'a>),
    /// Doom 3 md5anim.
    #[cfg(feature = "md5")]
    Md5Anim(idmodel_md5::anim::AnimFile<'a>),
    /// Doom 3 md5camera.
    #[cfg(feature = "md5")]
    Md5Camera(idmodel_md5::camera::CameraFile<'a>),
    /// Keeps the lifetime used when every format is left out of the build.
    #[allow(dead_code)]
    None(core::marker::PhantomData<&'a [u8]>),
}

/// A parse error of either kind of format crate.
#[derive(Clone, Copy, Debug)]
pub enum ParseError {
    /// The binary formats' positioned error.
    #[allow(dead_code)]
    Binary(idmodel_core::Error),
    /// The md5 text formats' error (offset, line, column).
    #[cfg(feature = "md5")]
    Text(idmodel_md5::Md5Error),
}

/// Why a call failed; formatted into the caller's [`crate::IdmodelError`] only then.
#[derive(Clone, Copy, Debug)]
pub enum Fail {
    /// A required pointer argument was null.
    Null(&'static str),
    /// An array holds `got` elements, `needed` are required.
    TooSmall {
        /// The array.
        what: &'static str,
        /// Elements required.
        needed: u64,
        /// Elements given.
        got: u64,
    },
    /// The file did not parse.
    Parse(&'static str, ParseError),
    /// Not a model this build reads.
    UnknownFormat(Option<Format>),
    /// A handle never parsed.
    BadHandle,
    /// An index past its count.
    Range {
        /// What was indexed.
        what: &'static str,
        /// The index given.
        index: u64,
        /// How many there are.
        count: u64,
    },
    /// The call does not apply to the format.
    Unsupported {
        /// The call's subject.
        what: &'static str,
        /// The model's format.
        format: &'static str,
    },
    /// A pointer not aligned for its type.
    Misaligned(&'static str),
    /// Two memory ranges overlap.
    Overlap(&'static str, &'static str),
    /// A length no object can have.
    TooLarge(&'static str),
}

impl Fail {
    /// The `IDMODEL_E_*` code.
    pub fn code(&self) -> i32 {
        match self {
            Fail::Null(_) => IDMODEL_E_NULL,
            Fail::TooSmall { .. } => IDMODEL_E_BUFFER_TOO_SMALL,
            Fail::Parse(..) => IDMODEL_E_PARSE,
            Fail::UnknownFormat(_) => IDMODEL_E_UNKNOWN_FORMAT,
            Fail::BadHandle => IDMODEL_E_BAD_HANDLE,
            Fail::Range { .. } => IDMODEL_E_RANGE,
            Fail::Unsupported { .. } => IDMODEL_E_UNSUPPORTED,
            Fail::Misaligned(_) => IDMODEL_E_MISALIGNED,
            Fail::Overlap(..) => IDMODEL_E_OVERLAP,
            Fail::TooLarge(_) => IDMODEL_E_TOO_LARGE,
        }
    }

    /// The byte offset in the file, or [`IDMODEL_NO_OFFSET`].
    pub fn offset(&self) -> u64 {
        match self {
            Fail::Parse(_, ParseError::Binary(e)) => e.offset(),
            #[cfg(feature = "md5")]
            Fail::Parse(_, ParseError::Text(e)) => u64::try_from(e.offset()).unwrap_or(u64::MAX),
            _ => IDMODEL_NO_OFFSET,
        }
    }

    /// The elements needed, for [`Fail::TooSmall`]; 0 else.
    pub fn required(&self) -> u64 {
        match self {
            Fail::TooSmall { needed, .. } => *needed,
            _ => 0,
        }
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Null(what) => write!(f, "{what} is a null pointer"),
            Fail::TooSmall { what, needed, got } => {
                write!(f, "{what} holds {got}, {needed} needed")
            }
            Fail::Parse(format, ParseError::Binary(e)) => write!(f, "{format}: {e}"),
            #[cfg(feature = "md5")]
            Fail::Parse(format, ParseError::Text(e)) => write!(f, "{format}: {e}"),
            Fail::UnknownFormat(None) => f.write_str("not a model idmodel knows"),
            Fail::UnknownFormat(Some(format)) if format.is_supported() => write!(
                f,
                "this is a {}, which this build of idmodel leaves out",
                format.name()
            ),
            Fail::UnknownFormat(Some(format)) => {
                write!(
                    f,
                    "this is a {}, which idmodel does not read",
                    format.name()
                )
            }
            Fail::BadHandle => {
                f.write_str("the model handle was not filled by idmodel_parse (or was released)")
            }
            Fail::Range { what, index, count } => {
                write!(f, "{what} {index} is out of range (there are {count})")
            }
            Fail::Unsupported { what, format } => write!(f, "{what} do not apply to {format}"),
            Fail::Misaligned(what) => write!(f, "{what} is not aligned for its element type"),
            Fail::Overlap(a, b) => write!(f, "{a} overlaps {b}"),
            Fail::TooLarge(what) => write!(f, "the length of {what} is larger than memory"),
        }
    }
}

/// `n` as the C API's `uint64_t` (saturating; `usize` is at most 64 bits on every
/// supported target).
pub fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The `IDMODEL_FORMAT_*` of a detected format.
pub fn format_code(format: Option<Format>) -> i32 {
    match format {
        None => IDMODEL_FORMAT_NONE,
        Some(Format::Mdl) => IDMODEL_FORMAT_MDL,
        Some(Format::Md2) => IDMODEL_FORMAT_MD2,
        Some(Format::Md3) => IDMODEL_FORMAT_MD3,
        Some(Format::Md5Mesh) => IDMODEL_FORMAT_MD5MESH,
        Some(Format::Md5Anim) => IDMODEL_FORMAT_MD5ANIM,
        Some(Format::Md5Camera) => IDMODEL_FORMAT_MD5CAMERA,
        Some(_) => IDMODEL_FORMAT_OTHER,
    }
}

/// The format of `bytes`, as an `IDMODEL_FORMAT_*`.
pub fn detect_code(bytes: &[u8]) -> i32 {
    format_code(detect(bytes))
}

/// The engine of an `IDMODEL_ENGINE_*` (`None` for any other value).
pub fn engine_of(code: i32) -> Option<Engine> {
    usize::try_from(code)
        .ok()
        .and_then(|i| Engine::ALL.get(i))
        .copied()
}

/// The `IDMODEL_ENGINE_*` of an engine.
pub fn engine_code(engine: Engine) -> i32 {
    Engine::ALL
        .iter()
        .position(|&e| e == engine)
        .and_then(|i| i32::try_from(i).ok())
        .unwrap_or(-1)
}

/// The `IDMODEL_SEVERITY_*` of a severity.
pub fn severity_code(severity: Severity) -> i32 {
    Severity::ALL
        .iter()
        .position(|&s| s == severity)
        .and_then(|i| i32::try_from(i).ok())
        .unwrap_or(-1)
}

/// Parses `bytes` by the format `detect` finds.
pub fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Fail> {
    let format = detect(bytes);
    match format {
        #[cfg(feature = "mdl")]
        Some(Format::Mdl) => idmodel_mdl::Mdl::parse(bytes)
            .map(Parsed::Mdl)
            .map_err(|e| Fail::Parse("mdl", ParseError::Binary(e))),
        #[cfg(feature = "md2")]
        Some(Format::Md2) => idmodel_md2::Md2::parse(bytes)
            .map(Parsed::Md2)
            .map_err(|e| Fail::Parse("md2", ParseError::Binary(e))),
        #[cfg(feature = "md3")]
        Some(Format::Md3) => idmodel_md3::Md3::parse(bytes)
            .map(Parsed::Md3)
            .map_err(|e| Fail::Parse("md3", ParseError::Binary(e))),
        #[cfg(feature = "md5")]
        Some(Format::Md5Mesh) => idmodel_md5::mesh::parse(bytes)
            .map(Parsed::Md5Mesh)
            .map_err(|e| Fail::Parse("md5mesh", ParseError::Text(e))),
        #[cfg(feature = "md5")]
        Some(Format::Md5Anim) => idmodel_md5::anim::parse(bytes)
            .map(Parsed::Md5Anim)
            .map_err(|e| Fail::Parse("md5anim", ParseError::Text(e))),
        #[cfg(feature = "md5")]
        Some(Format::Md5Camera) => idmodel_md5::camera::parse(bytes)
            .map(Parsed::Md5Camera)
            .map_err(|e| Fail::Parse("md5camera", ParseError::Text(e))),
        other => Err(Fail::UnknownFormat(other)),
    }
}

impl<'a> Parsed<'a> {
    /// The format's id, as the CLI's JSON names it.
    pub fn format_id(&self) -> &'static str {
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(_) => "mdl",
            #[cfg(feature = "md2")]
            Parsed::Md2(_) => "md2",
            #[cfg(feature = "md3")]
            Parsed::Md3(_) => "md3",
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(_) => "md5mesh",
            #[cfg(feature = "md5")]
            Parsed::Md5Anim(_) => "md5anim",
            #[cfg(feature = "md5")]
            Parsed::Md5Camera(_) => "md5camera",
            Parsed::None(_) => "",
        }
    }

    /// The model's `IDMODEL_FORMAT_*`.
    pub fn format_code(&self) -> i32 {
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(_) => IDMODEL_FORMAT_MDL,
            #[cfg(feature = "md2")]
            Parsed::Md2(_) => IDMODEL_FORMAT_MD2,
            #[cfg(feature = "md3")]
            Parsed::Md3(_) => IDMODEL_FORMAT_MD3,
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(_) => IDMODEL_FORMAT_MD5MESH,
            #[cfg(feature = "md5")]
            Parsed::Md5Anim(_) => IDMODEL_FORMAT_MD5ANIM,
            #[cfg(feature = "md5")]
            Parsed::Md5Camera(_) => IDMODEL_FORMAT_MD5CAMERA,
            Parsed::None(_) => IDMODEL_FORMAT_NONE,
        }
    }

    fn unsupported(&self, what: &'static str) -> Fail {
        Fail::Unsupported {
            what,
            format: self.format_id(),
        }
    }

    /// The model's counts, as `idmodel info --json` reports them.
    pub fn info(&self) -> IdmodelInfo {
        let mut info = IdmodelInfo::default();
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => {
                info.format = IDMODEL_FORMAT_MDL;
                info.frames = count(m.pose_count());
                info.vertices = count(m.vertex_count());
                info.triangles = count(m.triangles().len());
                info.meshes = 1;
                info.skins = count(m.skin_count());
            }
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => {
                info.format = IDMODEL_FORMAT_MD2;
                info.frames = count(m.frame_count());
                info.vertices = count(m.vertex_count());
                info.triangles = count(m.triangles().len());
                info.meshes = 1;
                info.skins = count(m.skin_fields().len());
            }
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                info.format = IDMODEL_FORMAT_MD3;
                info.frames = count(m.num_frames());
                for s in m.surfaces() {
                    info.vertices = info.vertices.saturating_add(count(s.num_verts()));
                    info.triangles = info.triangles.saturating_add(count(s.triangles().len()));
                }
                info.meshes = count(m.num_surfaces());
                info.skins = u64::try_from(m.num_skins()).unwrap_or(0);
                info.tags = count(m.num_tags());
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(m) => {
                info.format = IDMODEL_FORMAT_MD5MESH;
                info.vertices = m.total_vertices();
                info.triangles = m.total_triangles();
                info.meshes = count(m.num_meshes());
                info.joints = count(m.num_joints());
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Anim(a) => {
                info.format = IDMODEL_FORMAT_MD5ANIM;
                info.frames = count(a.num_frames());
                info.joints = count(a.num_joints());
                info.components = count(a.num_animated_components());
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Camera(c) => {
                info.format = IDMODEL_FORMAT_MD5CAMERA;
                info.frames = count(c.num_frames());
            }
            Parsed::None(_) => {}
        }
        info
    }

    fn single_mesh(&self, mesh: u64) -> Result<(), Fail> {
        if mesh == 0 {
            Ok(())
        } else {
            Err(Fail::Range {
                what: "mesh",
                index: mesh,
                count: 1,
            })
        }
    }

    #[cfg(feature = "md3")]
    fn surface(md3: &idmodel_md3::Md3<'a>, mesh: u64) -> Result<idmodel_md3::Surface<'a>, Fail> {
        usize::try_from(mesh)
            .ok()
            .and_then(|i| md3.surface(i))
            .ok_or(Fail::Range {
                what: "surface",
                index: mesh,
                count: count(md3.num_surfaces()),
            })
    }

    #[cfg(feature = "md5")]
    fn md5_mesh(
        file: &idmodel_md5::mesh::MeshFile<'a>,
        mesh: u64,
    ) -> Result<idmodel_md5::mesh::MeshView<'a>, Fail> {
        usize::try_from(mesh)
            .ok()
            .and_then(|i| file.meshes().nth(i))
            .ok_or(Fail::Range {
                what: "mesh",
                index: mesh,
                count: count(file.num_meshes()),
            })
    }

    /// One mesh's counts and names.
    pub fn mesh_info(&self, mesh: u64) -> Result<IdmodelMeshInfo, Fail> {
        let mut out = IdmodelMeshInfo::default();
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => {
                self.single_mesh(mesh)?;
                out.vertices = count(m.vertex_count());
                out.triangles = count(m.triangles().len());
                out.frames = count(m.pose_count());
            }
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => {
                self.single_mesh(mesh)?;
                out.vertices = count(m.vertex_count());
                out.triangles = count(m.triangles().len());
                out.frames = count(m.frame_count());
            }
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let s = Self::surface(m, mesh)?;
                out.vertices = count(s.num_verts());
                out.triangles = count(s.triangles().len());
                out.frames = count(s.num_frames());
                message::set_bytes(&mut out.name, s.name().as_bytes());
                if let Some(sh) = s.shaders().first() {
                    message::set_bytes(&mut out.shader, sh.name().as_bytes());
                }
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(f) => {
                let m = Self::md5_mesh(f, mesh)?;
                out.vertices = count(m.num_vertices());
                out.triangles = count(m.num_triangles());
                out.weights = count(m.num_weights());
                if let Some(name) = m.name() {
                    message::set_display(&mut out.name, name);
                }
                message::set_display(&mut out.shader, m.shader());
            }
            _ => return Err(self.unsupported("meshes")),
        }
        Ok(out)
    }

    /// Positions and normals of `mesh` between frames `old` and `new` (`backlerp` is the
    /// weight of `old`), as the format's engine interpolates them. Both slices hold
    /// exactly the mesh's vertex count.
    #[allow(unused_variables)]
    pub fn frame(
        &self,
        mesh: u64,
        old: u64,
        new: u64,
        backlerp: f32,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), Fail> {
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => {
                self.single_mesh(mesh)?;
                let pose = |i: u64| {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| m.pose(i))
                        .ok_or(Fail::Range {
                            what: "pose",
                            index: i,
                            count: count(m.pose_count()),
                        })
                };
                let (a, b) = (pose(old)?, pose(new)?);
                // QuakeSpasm's GL_DrawAliasFrame: `blend` is the weight of the new pose,
                // `iblend = 1 - blend`; vertices are mixed in byte space, then scaled and
                // moved by the model matrix. The lighting mixes the two poses' normal
                // dot products the same way, which is the mixed (unnormalised) normal.
                let blend = 1.0 - backlerp;
                let iblend = 1.0 - blend;
                let (scale, origin) = (m.scale(), m.origin());
                let verts = a.vertices().iter().zip(b.vertices());
                for ((va, vb), (p, n)) in verts.zip(positions.iter_mut().zip(normals.iter_mut())) {
                    let (na, nb) = (va.normal(), vb.normal());
                    for k in 0..3 {
                        let get = |v: &[u8; 3]| f32::from(v.get(k).copied().unwrap_or(0));
                        let s = |a: [f32; 3]| a.get(k).copied().unwrap_or(0.0);
                        let lerped = get(&va.v) * iblend + get(&vb.v) * blend;
                        if let Some(slot) = p.get_mut(k) {
                            *slot = s(scale) * lerped + s(origin);
                        }
                        if let Some(slot) = n.get_mut(k) {
                            *slot = s(na) * iblend + s(nb) * blend;
                        }
                    }
                }
                Ok(())
            }
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => {
                self.single_mesh(mesh)?;
                let frame = |i: u64| {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| m.frame(i))
                        .ok_or(Fail::Range {
                            what: "frame",
                            index: i,
                            count: count(m.frame_count()),
                        })
                };
                let (a, b) = (frame(old)?, frame(new)?);
                // GL_LerpVerts; the GL renderer shades with the new frame's normals.
                let short = |got: usize| Fail::TooSmall {
                    what: "the positions array",
                    needed: count(m.vertex_count()),
                    got: count(got),
                };
                idmodel_md2::lerp_positions_into(&a, &b, backlerp, positions)
                    .map_err(|_| short(positions.len()))?;
                b.normals_into(normals).map_err(|_| short(normals.len()))?;
                Ok(())
            }
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let s = Self::surface(m, mesh)?;
                let range = |i: u64| -> Result<usize, Fail> {
                    usize::try_from(i)
                        .ok()
                        .filter(|&i| i < s.num_frames())
                        .ok_or(Fail::Range {
                            what: "frame",
                            index: i,
                            count: count(s.num_frames()),
                        })
                };
                let (a, b) = (range(old)?, range(new)?);
                s.lerp_into(
                    a,
                    b,
                    backlerp,
                    idmodel_md3::NormalDecode::Exact,
                    positions,
                    normals,
                )
                .map_err(|_| Fail::TooSmall {
                    what: "the positions array",
                    needed: count(s.num_verts()),
                    got: count(positions.len()),
                })
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(_) => Err(Fail::Unsupported {
                what: "frames (pose it with idmodel_md5_pose and idmodel_md5_skin)",
                format: "md5mesh",
            }),
            _ => Err(self.unsupported("frames")),
        }
    }

    /// Triangle vertex indices of `mesh` (three per triangle) into `out` (exactly sized).
    pub fn indices(&self, mesh: u64, out: &mut [[u32; 3]]) -> Result<(), Fail> {
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => {
                self.single_mesh(mesh)?;
                for (o, t) in out.iter_mut().zip(m.triangle_indices()) {
                    *o = t.map(|i| u32::try_from(i).unwrap_or(0));
                }
                Ok(())
            }
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => {
                self.single_mesh(mesh)?;
                for (o, t) in out.iter_mut().zip(m.triangles()) {
                    *o = idmodel_md2::Triangle::from_raw(t).xyz.map(u32::from);
                }
                Ok(())
            }
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let s = Self::surface(m, mesh)?;
                for (o, t) in out.iter_mut().zip(s.indices()) {
                    *o = t;
                }
                Ok(())
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(f) => {
                let m = Self::md5_mesh(f, mesh)?;
                for (o, t) in out.iter_mut().zip(m.triangles()) {
                    *o = t;
                }
                Ok(())
            }
            _ => Err(self.unsupported("triangles")),
        }
    }

    /// Per-vertex texture coordinates (MD3, md5mesh) into `out` (exactly sized).
    pub fn uvs(&self, mesh: u64, out: &mut [[f32; 2]]) -> Result<(), Fail> {
        match self {
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let s = Self::surface(m, mesh)?;
                for (o, uv) in out.iter_mut().zip(s.tex_coords()) {
                    *o = uv;
                }
                Ok(())
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(f) => {
                let m = Self::md5_mesh(f, mesh)?;
                for (o, v) in out.iter_mut().zip(m.vertices()) {
                    *o = v.uv;
                }
                Ok(())
            }
            _ => Err(self.unsupported(
                "per-vertex texture coordinates (MDL and MD2 keep them per triangle corner: idmodel_corner_uvs)",
            )),
        }
    }

    /// Per-corner texture coordinates (three per triangle, in index order) into `out`.
    pub fn corner_uvs(&self, mesh: u64, out: &mut [[f32; 6]]) -> Result<(), Fail> {
        let six = |c: [[f32; 2]; 3]| [c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1]];
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => {
                self.single_mesh(mesh)?;
                // GLQuake/QuakeSpasm's seam rule and half-texel offset.
                for (o, uv) in out
                    .iter_mut()
                    .zip(m.triangle_uvs(idmodel_mdl::SeamRule::Gl))
                {
                    *o = six(uv);
                }
                Ok(())
            }
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => {
                self.single_mesh(mesh)?;
                let st = m.st();
                for (o, t) in out.iter_mut().zip(m.triangles()) {
                    let t = idmodel_md2::Triangle::from_raw(t);
                    *o = six(t
                        .st
                        .map(|i| st.get(usize::from(i)).map_or([0.0; 2], |s| m.st_uv(s))));
                }
                Ok(())
            }
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let s = Self::surface(m, mesh)?;
                let st = s.st();
                for (o, t) in out.iter_mut().zip(s.indices()) {
                    *o = six(t.map(|i| {
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| st.get(i))
                            .map_or([0.0; 2], |s| s.get())
                    }));
                }
                Ok(())
            }
            _ => Err(self.unsupported(
                "per-corner texture coordinates (md5 keeps them per vertex: idmodel_uvs)",
            )),
        }
    }

    /// MD3 tag `index` between frames `a` and `b` (`frac` the weight of `b`), as
    /// `R_LerpTag` computes it.
    #[allow(unused_variables)]
    pub fn tag(&self, index: u64, a: u64, b: u64, frac: f32) -> Result<IdmodelTag, Fail> {
        match self {
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => {
                let name = usize::try_from(index)
                    .ok()
                    .and_then(|i| m.tag_names().nth(i))
                    .ok_or(Fail::Range {
                        what: "tag",
                        index,
                        count: count(m.num_tags()),
                    })?;
                let frames = count(m.num_frames());
                for f in [a, b] {
                    if f >= frames {
                        return Err(Fail::Range {
                            what: "frame",
                            index: f,
                            count: frames,
                        });
                    }
                }
                let (fa, fb) = (
                    usize::try_from(a).unwrap_or(0),
                    usize::try_from(b).unwrap_or(0),
                );
                let o = m
                    .lerp_tag(name.as_bytes(), fa, fb, frac)
                    .unwrap_or(idmodel_md3::Orientation::IDENTITY);
                let mut tag = IdmodelTag {
                    origin: o.origin,
                    axis: o.axis,
                    ..IdmodelTag::default()
                };
                message::set_bytes(&mut tag.name, name.as_bytes());
                Ok(tag)
            }
            _ => Err(self.unsupported("tags")),
        }
    }

    /// Runs the format's `check` for `engine` (`None`: every engine that loads it),
    /// handing each finding to `sink` with its byte offset when it has one.
    #[allow(unused_variables, unused_mut)]
    pub fn check(&self, engine: Option<Engine>, sink: &mut dyn FnMut(&dyn Reported)) {
        match self {
            #[cfg(feature = "mdl")]
            Parsed::Mdl(m) => each_engine(idmodel_mdl::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Plain(f)))
            }),
            #[cfg(feature = "md2")]
            Parsed::Md2(m) => each_engine(idmodel_md2::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Plain(f)))
            }),
            #[cfg(feature = "md3")]
            Parsed::Md3(m) => each_engine(idmodel_md3::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Plain(f)))
            }),
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(m) => each_engine(idmodel_md5::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Md5Reported(f)))
            }),
            #[cfg(feature = "md5")]
            Parsed::Md5Anim(m) => each_engine(idmodel_md5::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Md5Reported(f)))
            }),
            #[cfg(feature = "md5")]
            Parsed::Md5Camera(m) => each_engine(idmodel_md5::ENGINES, engine, |e| {
                m.check(e, &mut |f| sink(&Md5Reported(f)))
            }),
            Parsed::None(_) => {}
        }
    }

    /// md5: the model-space joints of the md5mesh's bind pose (`frame` 0) or of md5anim
    /// frame `frame`, as Doom 3 builds them (`frame_local` then `TransformJoints`).
    /// `components` holds at least the anim's `numAnimatedComponents`; `out` exactly the
    /// joint count.
    #[allow(unused_variables)]
    pub fn md5_pose(
        &self,
        frame: u64,
        components: &mut [f32],
        out: &mut [IdmodelJoint],
    ) -> Result<(), Fail> {
        match self {
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(f) => {
                if frame != 0 {
                    return Err(Fail::Range {
                        what: "frame",
                        index: frame,
                        count: 1,
                    });
                }
                for (o, j) in out.iter_mut().zip(f.joints()) {
                    *o = IdmodelJoint { m: j.matrix().m };
                }
                Ok(())
            }
            #[cfg(feature = "md5")]
            Parsed::Md5Anim(a) => md5::anim_pose(a, frame, components, out),
            _ => Err(self.unsupported("joints")),
        }
    }

    /// md5mesh: `mesh`'s vertices skinned by `joints` (model space), as Doom 3's
    /// `TransformVerts`; `out` holds exactly the mesh's vertex count.
    #[allow(unused_variables)]
    pub fn md5_skin(
        &self,
        mesh: u64,
        joints: &[IdmodelJoint],
        out: &mut [[f32; 3]],
    ) -> Result<(), Fail> {
        match self {
            #[cfg(feature = "md5")]
            Parsed::Md5Mesh(f) => {
                let m = Self::md5_mesh(f, mesh)?;
                md5::skin(&m, joints, out);
                Ok(())
            }
            _ => Err(self.unsupported("md5 skinning")),
        }
    }
}

/// A finding as the callback reports it.
pub trait Reported {
    /// The engine.
    fn engine(&self) -> Engine;
    /// The severity.
    fn severity(&self) -> Severity;
    /// The stable code.
    fn code(&self) -> &'static str;
    /// Writes the one-line message.
    fn message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// The byte offset, or [`IDMODEL_NO_OFFSET`].
    fn offset(&self) -> u64;
}

/// A finding without a position (the binary formats').
#[allow(dead_code)]
struct Plain<F>(F);

impl<F: idmodel_core::Finding> Reported for Plain<F> {
    fn engine(&self) -> Engine {
        self.0.engine()
    }
    fn severity(&self) -> Severity {
        self.0.severity()
    }
    fn code(&self) -> &'static str {
        self.0.code()
    }
    fn message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_message(f)
    }
    fn offset(&self) -> u64 {
        IDMODEL_NO_OFFSET
    }
}

/// An md5 finding, which may carry its position.
#[cfg(feature = "md5")]
struct Md5Reported(idmodel_md5::Finding);

#[cfg(feature = "md5")]
impl Reported for Md5Reported {
    fn engine(&self) -> Engine {
        idmodel_core::Finding::engine(&self.0)
    }
    fn severity(&self) -> Severity {
        idmodel_core::Finding::severity(&self.0)
    }
    fn code(&self) -> &'static str {
        idmodel_core::Finding::code(&self.0)
    }
    fn message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        idmodel_core::Finding::write_message(&self.0, f)
    }
    fn offset(&self) -> u64 {
        self.0.at.map_or(IDMODEL_NO_OFFSET, |p| count(p.offset))
    }
}

/// Calls `run` for `engine` when the format's engines include it, or for each of them.
#[allow(dead_code)]
fn each_engine(engines: &[Engine], engine: Option<Engine>, mut run: impl FnMut(Engine)) {
    for &e in engines {
        if engine.is_none_or(|want| want == e) {
            run(e);
        }
    }
}

#[cfg(feature = "md5")]
mod md5 {
    use idmodel_core::quat::JointMat;
    use idmodel_md5::anim::AnimFile;
    use idmodel_md5::mesh::MeshView;
    use idmodel_md5::pose::{JointPose, frame_local};

    use super::{Fail, count};
    use crate::IdmodelJoint;

    /// `frame_local` joint by joint (so no list of joints is needed), composed with
    /// the parent as `model_space_by_parents` does.
    pub fn anim_pose(
        a: &AnimFile<'_>,
        frame: u64,
        components: &mut [f32],
        out: &mut [IdmodelJoint],
    ) -> Result<(), Fail> {
        let frames = count(a.num_frames());
        let n = usize::try_from(frame)
            .ok()
            .filter(|&f| f < a.num_frames())
            .ok_or(Fail::Range {
                what: "frame",
                index: frame,
                count: frames,
            })?;
        let needed = a.num_animated_components();
        let got = count(components.len());
        let comps = components.get_mut(..needed).ok_or(Fail::TooSmall {
            what: "the components array",
            needed: count(needed),
            got,
        })?;
        let written = a.fill_frame(n, comps);
        let comps = comps.get(..written).unwrap_or(&[]);
        for (i, (h, b)) in a.hierarchy().zip(a.base_frame()).enumerate() {
            let mut local = [JointPose::IDENTITY];
            frame_local(
                core::slice::from_ref(&h),
                core::slice::from_ref(&b),
                comps,
                &mut local,
            );
            let m = local[0].matrix();
            let world = match usize::try_from(h.parent).ok().filter(|&p| p < i) {
                Some(p) => match out.get(p) {
                    Some(pm) => JointMat::compose(&JointMat { m: pm.m }, &m),
                    None => m,
                },
                None => m,
            };
            match out.get_mut(i) {
                Some(slot) => *slot = IdmodelJoint { m: world.m },
                None => break,
            }
        }
        Ok(())
    }

    /// `MeshView::skin` with the caller's joint matrices (`skin_vertex` weight by
    /// weight: the same sums in the same order).
    pub fn skin(m: &MeshView<'_>, joints: &[IdmodelJoint], out: &mut [[f32; 3]]) {
        let mut walk = m.weights();
        let mut at = 0u32;
        for (slot, v) in out.iter_mut().zip(m.vertices()) {
            if v.first_weight < at {
                walk = m.weights();
                at = 0;
            }
            while at < v.first_weight {
                walk.next();
                at = at.saturating_add(1);
            }
            let mut sum: Option<[f32; 3]> = None;
            for w in (&mut walk).take(usize::try_from(v.weight_count).unwrap_or(0)) {
                let Some(j) = usize::try_from(w.joint).ok().and_then(|i| joints.get(i)) else {
                    continue;
                };
                let b = w.bias;
                let p = JointMat { m: j.m }.transform4([
                    w.position[0] * b,
                    w.position[1] * b,
                    w.position[2] * b,
                    b,
                ]);
                sum = Some(match sum {
                    None => p,
                    Some(s) => [s[0] + p[0], s[1] + p[1], s[2] + p[2]],
                });
            }
            *slot = sum.unwrap_or([0.0; 3]);
            at = at.saturating_add(v.weight_count);
        }
    }
}
