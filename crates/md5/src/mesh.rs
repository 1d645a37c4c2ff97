//! `.md5mesh`: joints in their bind pose and weighted meshes (docs/formats.md §4.2).
//!
//! Two ways in:
//!
//! * [`parse`] validates the whole file without allocating and returns a [`MeshFile`]
//!   view; its iterators ([`MeshFile::joints`], [`MeshFile::meshes`],
//!   [`MeshView::vertices`], …) read the text again, infallibly, and borrow names from it.
//! * [`Model::parse`] (feature `alloc`) builds an owned [`Model`] in the same single pass.
//!
//! The checks (§4.2): `MD5Version 10`; counts ≥ 0; each joint's parent comes before it;
//! every vertex has at least one weight and its weight range lies inside its mesh; every
//! weight's joint and every triangle index is in range. The index after `vert`, `tri` and
//! `weight` is read and ignored, as Doom does: the i-th line is element i.
//!
//! ```
//! let text = b"MD5Version 10 commandline \"\"
//! numJoints 1 numMeshes 1
//! joints { \"origin\" -1 ( 0 0 32 ) ( 0 0 0 ) }
//! mesh { shader \"skin\" numverts 1 vert 0 ( 0 0 ) 0 1
//!        numtris 0 numweights 1 weight 0 0 1 ( 0 0 8 ) }";
//! let file = idmodel_md5::mesh::parse(text)?;
//! assert_eq!(file.num_joints(), 1);
//! let mesh = file.meshes().next().unwrap();
//! assert_eq!(mesh.shader(), "skin");
//! // The seed's worked example: weight (0 0 8) on a joint at (0 0 32) → (0, 0, 40).
//! let mut joints = [idmodel_core::quat::JointMat::IDENTITY; 1];
//! file.bind_pose(&mut joints);
//! let mut out = [[0.0; 3]; 1];
//! mesh.skin(&joints, &mut out);
//! assert_eq!(out[0], [0.0, 0.0, 40.0]);
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```

use idmodel_core::quat::{JointMat, Quat, Vec3, doom_quat, to_standard};

use crate::check::{
    ENGINES, Engine, Finding, FindingKind, Severity, lex_findings, long_quaternion,
};
use crate::error::{Expected, Md5ErrorKind, Result};
use crate::lexer::{CommentRule, LexNotes, Parser};
use crate::parse::{self, ParseOptions, element_iter};
use crate::text::Text;
pub use crate::types::{Triangle, Vertex, Weight};

/// A joint of the md5mesh skeleton, with its name as `N` (a borrowed [`Text`] in the
/// view, a `String` in the owned [`Model`]).
///
/// `position` and `orientation` are in **model space** (the bind pose). The orientation
/// is stored as Doom stores it: `(x, y, z)` with `w = +√|1 − x² − y² − z²|`
/// ([`Joint::quat`]); [`Joint::standard_quat`] converts to the usual `q·v·q⁻¹`
/// convention (docs/formats.md §4.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joint<N> {
    /// The joint's name.
    pub name: N,
    /// The parent's index, or any negative value for a root.
    pub parent: i32,
    /// Model-space position.
    pub position: Vec3,
    /// Model-space orientation `(x, y, z)` in Doom's stored form.
    pub orientation: Vec3,
}

impl<N> Joint<N> {
    /// The parent's index, `None` for a root.
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }

    /// Doom's quaternion `(x, y, z, w ≥ 0)`, applied as its conjugate (§4.5).
    pub fn quat(&self) -> Quat {
        doom_quat(self.orientation)
    }

    /// The same rotation in the `q·v·q⁻¹` convention (glTF, glam, nalgebra).
    pub fn standard_quat(&self) -> Quat {
        to_standard(self.quat())
    }

    /// The bind-pose joint matrix, as Doom builds it (`SetRotation(q.ToMat3())`).
    pub fn matrix(&self) -> JointMat {
        JointMat::from_quat(self.quat(), self.position)
    }

    /// The same joint with its name mapped by `f`.
    pub fn map_name<M>(self, f: impl FnOnce(N) -> M) -> Joint<M> {
        Joint {
            name: f(self.name),
            parent: self.parent,
            position: self.position,
            orientation: self.orientation,
        }
    }
}

/// Receives the elements as the parser meets them (the owned model's builder).
trait Sink<'a> {
    fn header(&mut self, _commandline: Text<'a>) {}
    fn joint(&mut self, _j: Joint<Text<'a>>) {}
    fn mesh(&mut self, _name: Option<Text<'a>>, _shader: Text<'a>) {}
    fn vertex(&mut self, _v: Vertex) {}
    fn triangle(&mut self, _t: Triangle) {}
    fn weight(&mut self, _w: Weight) {}
    fn mesh_end(&mut self) {}
}

struct NoSink;
impl Sink<'_> for NoSink {}

/// A validated md5mesh, borrowing the text. See the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct MeshFile<'a> {
    src: &'a [u8],
    rule: CommentRule,
    commandline: Text<'a>,
    num_joints: u32,
    num_meshes: u32,
    joints_at: usize,
    meshes_at: usize,
    end: usize,
    totals: [u64; 3],
    notes: LexNotes,
}

/// Parses and validates an md5mesh with Doom's lexer rules. Does not allocate.
pub fn parse(bytes: &[u8]) -> Result<MeshFile<'_>> {
    parse_with(bytes, ParseOptions::default())
}

/// [`parse`] with options (for example strict comments).
pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<MeshFile<'_>> {
    parse_into(bytes, opts, &mut NoSink)
}

fn parse_into<'a>(
    src: &'a [u8],
    opts: ParseOptions,
    sink: &mut impl Sink<'a>,
) -> Result<MeshFile<'a>> {
    let mut p = parse::parser(src, true, opts);
    let commandline = parse::header(&mut p)?;
    sink.header(commandline);
    let num_joints = parse::named_count(&mut p, "numJoints", 0)?;
    let num_meshes = parse::named_count(&mut p, "numMeshes", 0)?;
    let joints_at = parse::block(&mut p, "joints", num_joints, |p, i| {
        read_joint(p, i).map(|x| sink.joint(x))
    })?;
    let meshes_at = p.pos();
    let mut totals = [0u64; 3];
    for i in 0..num_meshes {
        let m = read_mesh(&mut p, num_joints, i, opts.require_element_indices, sink)?;
        for (t, n) in totals
            .iter_mut()
            .zip([m.num_vertices, m.num_triangles, m.num_weights])
        {
            *t = t.saturating_add(u64::from(n));
        }
    }
    Ok(MeshFile {
        src,
        rule: opts.comments,
        commandline,
        num_joints,
        num_meshes,
        joints_at,
        meshes_at,
        end: p.pos(),
        totals,
        notes: p.notes(),
    })
}

fn read_joint<'a>(p: &mut Parser<'a>, i: u32) -> Result<Joint<Text<'a>>> {
    let name = p.read(Expected::Token)?.text;
    let (parent, at) = p.parse_int_at()?;
    if u32::try_from(parent).is_ok_and(|pi| pi >= i) {
        return Err(p.error(Md5ErrorKind::BadParent { joint: i, parent }, at));
    }
    let position = p.parse_vec::<3>()?;
    let orientation = p.parse_vec::<3>()?;
    Ok(Joint {
        name,
        parent,
        position,
        orientation,
    })
}

fn read_vertex(p: &mut Parser<'_>, i: u32, strict: bool) -> Result<(Vertex, usize)> {
    let at = p.expect("vert")?;
    parse::element_index(p, "vert", i, strict)?;
    let uv = p.parse_vec::<2>()?;
    let first = p.parse_int()?;
    let count = p.parse_int()?;
    if count == 0 {
        return Err(p.error(Md5ErrorKind::VertexWithoutWeights { vertex: i }, at));
    }
    match (u32::try_from(first), u32::try_from(count)) {
        (Ok(first_weight), Ok(weight_count)) => Ok((
            Vertex {
                uv,
                first_weight,
                weight_count,
            },
            at,
        )),
        _ => Err(p.error(
            Md5ErrorKind::WeightRange {
                vertex: i,
                first,
                count,
                num_weights: None,
            },
            at,
        )),
    }
}

fn read_triangle(p: &mut Parser<'_>, i: u32, num_vertices: u32, strict: bool) -> Result<Triangle> {
    p.expect("tri")?;
    parse::element_index(p, "tri", i, strict)?;
    let a = parse::index(p, "triangle vertex index", num_vertices)?;
    let b = parse::index(p, "triangle vertex index", num_vertices)?;
    let c = parse::index(p, "triangle vertex index", num_vertices)?;
    Ok([a, b, c])
}

fn read_weight(p: &mut Parser<'_>, i: u32, num_joints: u32, strict: bool) -> Result<Weight> {
    p.expect("weight")?;
    parse::element_index(p, "weight", i, strict)?;
    let joint = parse::index(p, "weight joint index", num_joints)?;
    let bias = p.parse_float()?;
    let position = p.parse_vec::<3>()?;
    Ok(Weight {
        joint,
        bias,
        position,
    })
}

fn read_mesh<'a>(
    p: &mut Parser<'a>,
    num_joints: u32,
    index: u32,
    strict: bool,
    sink: &mut impl Sink<'a>,
) -> Result<MeshView<'a>> {
    p.expect("mesh")?;
    p.expect("{")?;
    let name = if p.check("name")? {
        Some(p.read(Expected::Token)?.text)
    } else {
        None
    };
    p.expect("shader")?;
    let shader = p.read(Expected::Token)?.text;
    sink.mesh(name, shader);
    let num_vertices = parse::named_count(p, "numverts", 0)?;
    let vertices_at = p.pos();
    // The vertex whose weight range reaches furthest, checked once numweights is known.
    let mut furthest: Option<(u64, u32, Vertex, usize)> = None;
    for i in 0..num_vertices {
        let (v, at) = read_vertex(p, i, strict)?;
        let end = u64::from(v.first_weight).saturating_add(u64::from(v.weight_count));
        if furthest.is_none_or(|(e, ..)| end > e) {
            furthest = Some((end, i, v, at));
        }
        sink.vertex(v);
    }
    let num_triangles = parse::named_count(p, "numtris", 0)?;
    let triangles_at = p.pos();
    for i in 0..num_triangles {
        sink.triangle(read_triangle(p, i, num_vertices, strict)?);
    }
    let num_weights = parse::named_count(p, "numweights", 0)?;
    if let Some((end, i, v, at)) = furthest
        && end > u64::from(num_weights)
    {
        return Err(p.error(
            Md5ErrorKind::WeightRange {
                vertex: i,
                first: i32::try_from(v.first_weight).unwrap_or(i32::MAX),
                count: i32::try_from(v.weight_count).unwrap_or(i32::MAX),
                num_weights: Some(num_weights),
            },
            at,
        ));
    }
    let weights_at = p.pos();
    for i in 0..num_weights {
        sink.weight(read_weight(p, i, num_joints, strict)?);
    }
    p.expect("}")?;
    sink.mesh_end();
    Ok(MeshView {
        src: p.lexer().src(),
        rule: p.lexer().comment_rule(),
        index,
        name,
        shader,
        num_vertices,
        num_triangles,
        num_weights,
        vertices_at,
        triangles_at,
        weights_at,
    })
}

impl<'a> MeshFile<'a> {
    /// The whole input.
    pub fn source(&self) -> &'a [u8] {
        self.src
    }

    /// The `commandline` token (usually the exporter's arguments).
    pub fn commandline(&self) -> Text<'a> {
        self.commandline
    }

    /// `numJoints`.
    pub fn num_joints(&self) -> usize {
        usize::try_from(self.num_joints).unwrap_or(0)
    }

    /// `numMeshes`.
    pub fn num_meshes(&self) -> usize {
        usize::try_from(self.num_meshes).unwrap_or(0)
    }

    /// Total vertices over all meshes.
    pub fn total_vertices(&self) -> u64 {
        self.totals[0]
    }

    /// Total triangles over all meshes.
    pub fn total_triangles(&self) -> u64 {
        self.totals[1]
    }

    /// Total weights over all meshes.
    pub fn total_weights(&self) -> u64 {
        self.totals[2]
    }

    /// Byte offset just after the last mesh (Doom ignores whatever follows).
    pub fn end(&self) -> usize {
        self.end
    }

    /// The lexer's warnings (see also [`MeshFile::check`]).
    pub fn notes(&self) -> LexNotes {
        self.notes
    }

    /// The joints, in file order.
    pub fn joints(&self) -> Joints<'a> {
        Joints::new(
            parse::parser_at(self.src, true, self.rule, self.joints_at),
            self.num_joints,
            0,
        )
    }

    /// Fills `out` with the joints; returns how many were written
    /// (`min(out.len(), num_joints)`).
    pub fn fill_joints(&self, out: &mut [Joint<Text<'a>>]) -> usize {
        parse::fill(self.joints(), out)
    }

    /// The bind-pose (model-space) joint matrices, into `out`; returns how many.
    pub fn bind_pose(&self, out: &mut [JointMat]) -> usize {
        let mut n = 0usize;
        for (slot, j) in out.iter_mut().zip(self.joints()) {
            *slot = j.matrix();
            n = n.saturating_add(1);
        }
        n
    }

    /// The meshes, in file order. Each step reads one mesh's text again.
    pub fn meshes(&self) -> Meshes<'a> {
        Meshes::new(
            parse::parser_at(self.src, true, self.rule, self.meshes_at),
            self.num_meshes,
            self.num_joints,
        )
    }

    /// Reports what Doom 3 accepts but a modder may want to know. Does not allocate.
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        lex_findings(self.src, &self.notes, sink);
        check_joints(self.joints(), self.num_joints, sink);
        for m in self.meshes() {
            let src = self.src;
            let weights_at = m.weights_at;
            let rule = self.rule;
            let weights_from = move |first: u32| {
                let mut it = Weights::new(
                    parse::parser_at(src, true, rule, weights_at),
                    m.num_weights,
                    u32::MAX,
                );
                for _ in 0..first {
                    if it.next().is_none() {
                        break;
                    }
                }
                it
            };
            check_mesh(
                m.index,
                m.vertices(),
                m.num_triangles,
                m.weights(),
                weights_from,
                sink,
            );
        }
    }

    /// [`MeshFile::check`] into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

/// Duplicate names (pairwise, for skeletons up to this many joints) and long quaternions.
const DUPLICATE_CHECK_MAX: u32 = 4096;

fn check_joints<'a, I>(joints: I, num: u32, sink: &mut dyn FnMut(Finding))
where
    I: Iterator<Item = Joint<Text<'a>>> + Clone,
{
    let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
    if let Some(i) = joints
        .clone()
        .position(|j| !(finite(&j.position) && finite(&j.orientation)))
    {
        sink(Finding::new(
            FindingKind::NonFinite {
                what: "joint",
                index: u32::try_from(i).unwrap_or(u32::MAX),
            },
            Severity::Hazard,
        ));
    }
    for (i, j) in joints.clone().enumerate() {
        long_quaternion(j.orientation, i, sink);
    }
    if num <= DUPLICATE_CHECK_MAX {
        for (i, a) in joints.clone().enumerate() {
            let dup = joints.clone().take(i).position(|b| b.name == a.name);
            if let Some(first) = dup {
                sink(Finding::new(
                    FindingKind::DuplicateJointName {
                        first: u32::try_from(first).unwrap_or(u32::MAX),
                        second: u32::try_from(i).unwrap_or(u32::MAX),
                    },
                    Severity::Warning,
                ));
            }
        }
    }
}

fn check_mesh<VI, WI, WF>(
    mesh: u32,
    vertices: VI,
    num_triangles: u32,
    weights: WI,
    weights_from: WF,
    sink: &mut dyn FnMut(Finding),
) where
    VI: Iterator<Item = Vertex> + Clone,
    WI: Iterator<Item = Weight>,
    WF: Fn(u32) -> WI,
{
    let num_vertices = vertices.clone().count();
    if num_vertices == 0 || num_triangles == 0 {
        sink(Finding::new(
            FindingKind::EmptyMesh { mesh },
            Severity::Warning,
        ));
    }
    let mut num_weights = 0u32;
    let mut non_finite = false;
    for (i, w) in weights.enumerate() {
        num_weights = num_weights.saturating_add(1);
        let ok = w.bias.is_finite() && w.position.iter().all(|x| x.is_finite());
        if !non_finite && !ok {
            non_finite = true;
            sink(Finding::new(
                FindingKind::NonFinite {
                    what: "weight",
                    index: u32::try_from(i).unwrap_or(u32::MAX),
                },
                Severity::Hazard,
            ));
        }
        if w.bias < 0.0 {
            sink(Finding::new(
                FindingKind::NegativeBias {
                    mesh,
                    weight: u32::try_from(i).unwrap_or(u32::MAX),
                },
                Severity::Warning,
            ));
        }
    }
    // Unused weights, by a sweep over ranges in ascending order (the usual layout).
    let mut covered = 0u32;
    let mut unused = 0u32;
    let mut sorted = true;
    let mut last_first = 0u32;
    for v in vertices.clone() {
        if v.first_weight < last_first {
            sorted = false;
            break;
        }
        last_first = v.first_weight;
        if v.first_weight > covered {
            unused = unused.saturating_add(v.first_weight.saturating_sub(covered));
        }
        covered = covered.max(v.first_weight.saturating_add(v.weight_count));
    }
    if sorted {
        unused = unused.saturating_add(num_weights.saturating_sub(covered));
        if unused > 0 {
            sink(Finding::new(
                FindingKind::UnusedWeights {
                    mesh,
                    count: unused,
                },
                Severity::Warning,
            ));
        }
    }
    // Bias sums, walking the weights alongside the vertices; a range that starts behind
    // the walk restarts it (bounded, so hostile layouts cannot make this quadratic).
    let mut restarts = 0u32;
    let mut walk = weights_from(0);
    let mut at = 0u32;
    let mut bad: Option<(u32, f32)> = None;
    let mut bad_count = 0u32;
    for (i, v) in vertices.enumerate() {
        if v.first_weight < at {
            restarts = restarts.saturating_add(1);
            if restarts > 64 {
                break;
            }
            walk = weights_from(v.first_weight);
            at = v.first_weight;
        }
        while at < v.first_weight {
            if walk.next().is_none() {
                break;
            }
            at = at.saturating_add(1);
        }
        let mut sum = 0.0f32;
        for _ in 0..v.weight_count {
            match walk.next() {
                Some(w) => sum += w.bias,
                None => break,
            }
            at = at.saturating_add(1);
        }
        if libm::fabsf(sum - 1.0) > 1e-3 {
            bad_count = bad_count.saturating_add(1);
            if bad.is_none() {
                bad = Some((u32::try_from(i).unwrap_or(u32::MAX), sum));
            }
        }
    }
    if let Some((vertex, sum)) = bad {
        sink(Finding::new(
            FindingKind::BiasSum {
                mesh,
                vertex,
                sum,
                count: bad_count,
            },
            Severity::Warning,
        ));
    }
}

element_iter!(
    'a,
    Joints,
    Joint<Text<'a>>,
    "Iterator over an md5mesh's joints (see [`MeshFile::joints`]).",
    |p, i, _c| read_joint(p, i)
);
element_iter!(
    'a,
    Meshes,
    MeshView<'a>,
    "Iterator over an md5mesh's meshes (see [`MeshFile::meshes`]).",
    |p, i, num_joints| read_mesh(p, num_joints, i, false, &mut NoSink)
);

/// One validated mesh of an md5mesh, borrowing the text.
#[derive(Debug, Clone, Copy)]
pub struct MeshView<'a> {
    src: &'a [u8],
    rule: CommentRule,
    index: u32,
    name: Option<Text<'a>>,
    shader: Text<'a>,
    num_vertices: u32,
    num_triangles: u32,
    num_weights: u32,
    vertices_at: usize,
    triangles_at: usize,
    weights_at: usize,
}

element_iter!(
    'a,
    Vertices,
    Vertex,
    "Iterator over a mesh's vertices.",
    |p, i, _c| { read_vertex(p, i, false).map(|(v, _)| v) }
);
element_iter!(
    'a,
    Triangles,
    Triangle,
    "Iterator over a mesh's triangles.",
    |p, i, c| { read_triangle(p, i, c, false) }
);
element_iter!(
    'a,
    Weights,
    Weight,
    "Iterator over a mesh's weights.",
    |p, i, c| { read_weight(p, i, c, false) }
);

impl<'a> MeshView<'a> {
    /// The mesh's position in the file (0-based).
    pub fn index(&self) -> usize {
        usize::try_from(self.index).unwrap_or(0)
    }

    /// The optional `name` (Doom reads and ignores it).
    pub fn name(&self) -> Option<Text<'a>> {
        self.name
    }

    /// The material name.
    pub fn shader(&self) -> Text<'a> {
        self.shader
    }

    /// `numverts`.
    pub fn num_vertices(&self) -> usize {
        usize::try_from(self.num_vertices).unwrap_or(0)
    }

    /// `numtris`.
    pub fn num_triangles(&self) -> usize {
        usize::try_from(self.num_triangles).unwrap_or(0)
    }

    /// `numweights`.
    pub fn num_weights(&self) -> usize {
        usize::try_from(self.num_weights).unwrap_or(0)
    }

    /// The vertices, in order.
    pub fn vertices(&self) -> Vertices<'a> {
        Vertices::new(
            parse::parser_at(self.src, true, self.rule, self.vertices_at),
            self.num_vertices,
            0,
        )
    }

    /// The triangles, in order; every index is below [`MeshView::num_vertices`].
    pub fn triangles(&self) -> Triangles<'a> {
        Triangles::new(
            parse::parser_at(self.src, true, self.rule, self.triangles_at),
            self.num_triangles,
            self.num_vertices,
        )
    }

    /// The weights, in order; every joint index is below the file's joint count.
    pub fn weights(&self) -> Weights<'a> {
        Weights::new(
            parse::parser_at(self.src, true, self.rule, self.weights_at),
            self.num_weights,
            u32::MAX,
        )
    }

    /// Fills `out` with the vertices; returns how many.
    pub fn fill_vertices(&self, out: &mut [Vertex]) -> usize {
        parse::fill(self.vertices(), out)
    }

    /// Fills `out` with the triangles; returns how many.
    pub fn fill_triangles(&self, out: &mut [Triangle]) -> usize {
        parse::fill(self.triangles(), out)
    }

    /// Fills `out` with the weights; returns how many.
    pub fn fill_weights(&self, out: &mut [Weight]) -> usize {
        parse::fill(self.weights(), out)
    }

    /// Skinned positions for `joints` (model-space matrices, for example
    /// [`MeshFile::bind_pose`] or an evaluated pose) into `out`, without allocating.
    /// Walks the text; for repeated skinning, fill slices once and use
    /// [`crate::skinning::skin`]. Returns how many vertices were written.
    pub fn skin(&self, joints: &[JointMat], out: &mut [Vec3]) -> usize {
        let mut walk = self.weights();
        let mut at = 0u32;
        let mut n = 0usize;
        for (slot, v) in out.iter_mut().zip(self.vertices()) {
            if v.first_weight < at {
                walk = self.weights();
                at = 0;
            }
            while at < v.first_weight {
                walk.next();
                at = at.saturating_add(1);
            }
            let ws = (&mut walk).take(usize::try_from(v.weight_count).unwrap_or(0));
            *slot = crate::skinning::skin_vertex(ws, joints);
            at = at.saturating_add(v.weight_count);
            n = n.saturating_add(1);
        }
        n
    }
}

#[cfg(feature = "alloc")]
pub use owned::*;

#[cfg(feature = "alloc")]
mod owned;
