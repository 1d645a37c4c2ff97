//! Wavefront OBJ + MTL → [`Scene`]: a static source for the way back (`idmodel convert
//! x.obj -o x.md3`), the exact inverse of idmodel's own OBJ writer
//! ([`idmodel_scene::obj::to_obj`]).
//!
//! ```
//! use idmodel_gltf::import::{ImportOptions, no_files};
//! use idmodel_gltf::import::obj::from_obj;
//! let obj = b"o box\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
//! let scene = from_obj(obj, &ImportOptions::default(), &mut no_files)?;
//! let p = &scene.meshes[0].primitives[0];
//! assert_eq!(scene.meshes[0].name, "box");
//! assert_eq!(p.indices, [0, 2, 1, 0, 3, 2]); // a quad: two triangles, id winding
//! assert_eq!(p.positions[1], [0.0, 1.0, 0.0]); // glTF/OBJ (x, y, z) → id (z, x, y)
//! # Ok::<(), idmodel_gltf::import::obj::ObjError>(())
//! ```
//!
//! What is read, and how it comes back into the scene's (id) conventions:
//!
//! - **Geometry**: `v x y z` (a fourth `w` or colour values are ignored), `vt u [v [w]]`,
//!   `vn x y z`, `f` with `v`, `v/vt`, `v//vn` or `v/vt/vn` corners, 1-based or negative
//!   (relative to the lists read so far). A face of `n ≥ 3` corners becomes `n − 2`
//!   triangles, fanned from its first corner (quads and convex polygons, what modelling
//!   programs write). `p` and `l` (points and lines) and the other statements (`s`,
//!   smoothing groups, free-form geometry) are ignored; a line continued with `\` is not
//!   joined. A corner index must name an element already read (no forward references).
//! - **Groups**: `o` and `g` start an object; every object with faces becomes a
//!   [`Mesh`] drawn by a [`Node`] of its name (identity transform), with one
//!   [`Primitive`] per material (`usemtl`) in the order of first use. A primitive's
//!   vertices are its distinct `(v, vt, vn)` corners, in that index order, so an OBJ the
//!   writer made (each primitive its own `o`, one `vt` and `vn` per `v`) gives back the
//!   primitive's vertex order exactly; a vertex no face uses is not kept.
//! - **Axes and winding**: the inverse of the writer's: OBJ `(x, y, z)` becomes file
//!   `(z, x, y)`, or is kept with [`ImportOptions::keep_axes`]; faces are
//!   counter-clockwise-front in OBJ, so each triangle `(a, b, c)` is stored `(a, c, b)`
//!   unless [`ImportOptions::winding`] is [`Winding::CounterClockwise`]; `vt u v` becomes
//!   the scene's `(u, 1 − v)` (the image's top row at 0). Normals are kept as written.
//!   A primitive whose corners all have texture coordinates has `uvs` (a corner without
//!   one, among others with, gets `(0, 0)`); one whose corners all have normals has
//!   `normals`, otherwise none (the formats' writers compute face normals).
//! - **Materials**: every `mtllib` is asked of the resolver by the name written (it
//!   decides where that is; a library it refuses is skipped). `newmtl`, `Kd` (with `d`:
//!   the base colour factor; `d < 1` blends), `map_Kd` (its options such as `-s 1 1 1`
//!   skipped, `\` read as `/`): with [`ImportOptions::read_images`] the image is asked of
//!   the resolver and a PNG decoded to [`Image::Rgba8`], a JPEG kept as
//!   [`Image::Encoded`]; any other image, or one the resolver refuses, stays
//!   [`Image::Uri`] for the caller to find and decode. A `usemtl` name no library defines
//!   is a material of that name without an image (the name is what the id formats keep:
//!   an MD3 shader, an MD2 skin).
//! - **Finite numbers only**: a number that does not parse, or is not finite, is an error
//!   naming its line and column, as is an index of 0, out of range, or past the lists.
//!
//! **Hostile input**: errors, never panics; lines and tokens are scanned, never indexed.
//! Everything kept is charged against the budget before it is stored:
//! [`ImportOptions::max_bytes`], by default [`super::DEFAULT_RATIO`] × the input (the OBJ
//! plus the MTL libraries the resolver gave) + [`super::DEFAULT_FLOOR`]; with vectors'
//! doubling growth the reader holds at most about **twice that budget**, on top of the
//! input and the resolved files themselves. Every element kept comes from at least two
//! bytes of text, so the budget only refuses inputs near its ratio (a 1 MiB polygon of
//! one-digit corners: about 18 bytes of triangles per byte).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use idmodel_scene::axes::{Axes, Winding};
use idmodel_scene::{AlphaMode, Image, Material, Mesh, Mime, Node, Primitive, Scene};

use super::doc::Budget;
use super::scene::unpoint;
use super::{ImportError, ImportOptions, Resolver};

/// Why an OBJ could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjError {
    /// A statement that cannot be read: a bad number, a bad or out-of-range index.
    Invalid {
        /// The file: `None` for the OBJ, else the MTL library's name.
        file: Option<String>,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The model would take more memory than the budget ([`ImportOptions::max_bytes`]).
    OverBudget {
        /// What was being read.
        what: String,
        /// Bytes it would take (with everything before it).
        need: u64,
        /// The limit.
        limit: u64,
    },
    /// A texture the resolver gave could not be decoded (the message names it).
    Image(String),
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid {
                file,
                line,
                column,
                message,
            } => match file {
                None => write!(f, "OBJ line {line}, column {column}: {message}"),
                Some(m) => write!(f, "MTL {m} line {line}, column {column}: {message}"),
            },
            Self::OverBudget { what, need, limit } => write!(
                f,
                "OBJ too large: {what} would bring the decoded data to {}, over the {} limit",
                idmodel_scene::human_bytes(*need),
                idmodel_scene::human_bytes(*limit)
            ),
            Self::Image(m) => write!(f, "OBJ texture: {m}"),
        }
    }
}

impl core::error::Error for ObjError {}

impl From<ImportError> for ObjError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::OverBudget { what, need, limit } => Self::OverBudget { what, need, limit },
            other => Self::Image(other.to_string()),
        }
    }
}

type Result<T> = core::result::Result<T, ObjError>;

/// "No element": a corner without a texture coordinate or normal.
const NONE: u32 = u32::MAX;

/// A face corner: indices into the position, texture coordinate and normal lists.
type Corner = (u32, u32, u32);

/// Bytes charged per kept element.
const CORNER: usize = core::mem::size_of::<Corner>();

/// `(byte offset, token)` of each whitespace-separated token of `line`.
fn tokens(line: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let mut at = 0usize;
    core::iter::from_fn(move || {
        let rest = line.get(at..)?;
        let start = at.saturating_add(rest.find(|c: char| !c.is_whitespace())?);
        let tail = line.get(start..)?;
        let len = tail.find(char::is_whitespace).unwrap_or(tail.len());
        at = start.saturating_add(len);
        Some((start, tail.get(..len)?))
    })
}

/// Where an error is.
#[derive(Clone, Copy)]
struct At<'f> {
    file: Option<&'f str>,
    line: usize,
}

impl At<'_> {
    fn err(&self, offset: usize, message: impl Into<String>) -> ObjError {
        ObjError::Invalid {
            file: self.file.map(str::to_string),
            line: self.line,
            column: offset.saturating_add(1),
            message: message.into(),
        }
    }

    fn float(&self, tok: Option<(usize, &str)>, what: &str, end: usize) -> Result<f32> {
        let (off, t) = tok.ok_or_else(|| self.err(end, alloc::format!("{what}: missing")))?;
        match t.parse::<f32>() {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(self.err(off, alloc::format!("{what}: {t:?} is not finite"))),
            Err(_) => Err(self.err(off, alloc::format!("{what}: {t:?} is not a number"))),
        }
    }

    /// The three floats after a `v` or `vn` key, named `{key} x`, `{key} y` and
    /// `{key} z` in errors.
    fn xyz<'t>(
        &self,
        toks: &mut impl Iterator<Item = (usize, &'t str)>,
        key: &str,
        end: usize,
    ) -> Result<[f32; 3]> {
        let mut out = [0.0; 3];
        for (slot, axis) in out.iter_mut().zip(["x", "y", "z"]) {
            *slot = self.float(toks.next(), &alloc::format!("{key} {axis}"), end)?;
        }
        Ok(out)
    }
}

/// The lines of `text` (`\n`, `\r\n` or `\r` ended), without comments, 1-based.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    text.split('\n').enumerate().map(|(i, l)| {
        let l = l.split('#').next().unwrap_or("");
        (i.saturating_add(1), l.trim_end_matches('\r'))
    })
}

/// The text after the statement keyword (`usemtl`, `newmtl`, `o`, `mtllib` names may hold
/// spaces), trimmed.
fn rest_of(line: &str, keyword_end: usize) -> &str {
    line.get(keyword_end..).unwrap_or("").trim()
}

/// One OBJ object being read.
struct Object {
    name: String,
    /// `(material name, triangles)`, in the order of first use.
    groups: Vec<(Option<String>, Vec<[Corner; 3]>)>,
    /// The index in `groups` of each material name (a scan of the groups per face was
    /// quadratic in the number of `usemtl` switches).
    group_of: BTreeMap<Option<String>, usize>,
}

/// A material from an MTL library.
struct MtlEntry {
    name: String,
    kd: Option<[f32; 3]>,
    d: Option<f32>,
    map_kd: Option<String>,
}

/// A `map_Kd` statement's file name: its options (`-s 1 1 1`, `-clamp on`, …) skipped,
/// `\` read as `/`.
fn map_file(line: &str, keyword_end: usize) -> String {
    let rest = rest_of(line, keyword_end);
    let toks: Vec<(usize, &str)> = tokens(rest).collect();
    let last = toks.len().saturating_sub(1);
    let is_arg = |a: &str| {
        a.parse::<f32>().is_ok() || matches!(a, "on" | "off") || (a.len() == 1 && a != "-")
    };
    let mut i = 0usize;
    let mut start = None;
    while let Some(&(off, t)) = toks.get(i) {
        if i < last && t.starts_with('-') && t.len() > 1 && t.parse::<f32>().is_err() {
            // An option: skip its arguments (the last token is the file name).
            i = i.saturating_add(1);
            while toks.get(i).is_some_and(|&(_, a)| i < last && is_arg(a)) {
                i = i.saturating_add(1);
            }
            continue;
        }
        start = Some(off);
        break;
    }
    start
        .and_then(|s| rest.get(s..))
        .unwrap_or("")
        .trim()
        .replace('\\', "/")
}

/// [`Budget::charge_n`] for `what`, the refusal as an [`ObjError`].
fn charge(budget: &mut Budget, count: usize, size: usize, what: &'static str) -> Result<()> {
    budget.charge_n(count, size, &what).map_err(ObjError::from)
}

fn parse_mtl(text: &str, file: &str, out: &mut Vec<MtlEntry>, budget: &mut Budget) -> Result<()> {
    for (line_no, line) in lines(text) {
        let at = At {
            file: Some(file),
            line: line_no,
        };
        let mut toks = tokens(line);
        let Some((off, key)) = toks.next() else {
            continue;
        };
        let key_end = off.saturating_add(key.len());
        match key {
            "newmtl" => {
                let name = rest_of(line, key_end).to_string();
                charge(budget, name.len().saturating_add(64), 1, "MTL materials")?;
                out.push(MtlEntry {
                    name,
                    kd: None,
                    d: None,
                    map_kd: None,
                });
            }
            "Kd" | "d" | "map_Kd" => {
                let Some(m) = out.last_mut() else {
                    return Err(at.err(off, alloc::format!("{key} before any newmtl")));
                };
                match key {
                    "Kd" => {
                        let end = line.len();
                        let r = at.float(toks.next(), "Kd red", end)?;
                        let g = at.float(toks.next(), "Kd green", end)?;
                        let b = at.float(toks.next(), "Kd blue", end)?;
                        m.kd = Some([r, g, b]);
                    }
                    "d" => {
                        let mut t = toks.next();
                        // `d -halo 0.5`: the factor is the last token.
                        if t.is_some_and(|(_, s)| s == "-halo") {
                            t = toks.next();
                        }
                        m.d = Some(at.float(t, "d", line.len())?);
                    }
                    _ => {
                        let f = map_file(line, key_end);
                        charge(budget, f.len(), 1, "MTL texture names")?;
                        m.map_kd = Some(f);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A corner token `v[/vt[/vn]]` → indices, checked against the lists read so far.
fn corner(at: &At<'_>, off: usize, tok: &str, counts: [usize; 3]) -> Result<Corner> {
    let mut parts = tok.split('/');
    let mut out = [NONE; 3];
    let names = ["position", "texture coordinate", "normal"];
    let mut column = off;
    for (i, slot) in out.iter_mut().enumerate() {
        let Some(p) = parts.next() else { break };
        let here = column;
        column = column.saturating_add(p.len()).saturating_add(1);
        let (Some(&count), Some(&what)) = (counts.get(i), names.get(i)) else {
            break;
        };
        if p.is_empty() {
            if i == 0 {
                return Err(at.err(here, "face corner without a position index"));
            }
            continue;
        }
        let n: i64 = p
            .parse()
            .map_err(|_| at.err(here, alloc::format!("{what} index {p:?} is not a number")))?;
        let count_i = i64::try_from(count).unwrap_or(i64::MAX);
        let index = if n > 0 {
            n.checked_sub(1).filter(|&k| k < count_i)
        } else if n < 0 {
            count_i.checked_add(n).filter(|&k| k >= 0)
        } else {
            return Err(at.err(here, alloc::format!("{what} index 0 (indices start at 1)")));
        };
        *slot = index
            .and_then(|k| u32::try_from(k).ok())
            .filter(|&k| k != NONE)
            .ok_or_else(|| {
                at.err(
                    here,
                    alloc::format!("{what} index {n} out of range ({count} read so far)"),
                )
            })?;
    }
    if parts.next().is_some() {
        return Err(at.err(
            off,
            alloc::format!("face corner {tok:?}: more than 3 indices"),
        ));
    }
    let [v, t, n] = out;
    Ok((v, t, n))
}

/// Reads an OBJ (`text`, UTF-8; other bytes are read as U+FFFD) into a scene. Its MTL
/// libraries and, with [`ImportOptions::read_images`], its textures are asked of
/// `resolve` by the names the files give (see the module docs).
pub fn from_obj(text: &[u8], options: &ImportOptions, resolve: &mut Resolver<'_>) -> Result<Scene> {
    let text = String::from_utf8_lossy(text);
    let mut budget = super::budget(options, text.len());
    let fixed_limit = options.max_bytes.is_some();
    let axes = if options.keep_axes {
        Axes::Keep
    } else {
        Axes::YUp
    };
    let mut pos: Vec<[f32; 3]> = Vec::new();
    let mut uv: Vec<[f32; 2]> = Vec::new();
    let mut nrm: Vec<[f32; 3]> = Vec::new();
    let mut objects: Vec<Object> = Vec::new();
    let mut mtl: Vec<MtlEntry> = Vec::new();
    let mut current: Option<String> = None;
    let mut material: Option<String> = None;
    let mut face: Vec<Corner> = Vec::new();
    // Each library is read once, however often it is named (re-reading one per `mtllib`
    // line made the work, and the budget it grants, grow with every repetition).
    let mut libraries: BTreeSet<String> = BTreeSet::new();
    for (line_no, line) in lines(&text) {
        let at = At {
            file: None,
            line: line_no,
        };
        let mut toks = tokens(line);
        let Some((off, key)) = toks.next() else {
            continue;
        };
        let key_end = off.saturating_add(key.len());
        let end = line.len();
        match key {
            "v" => {
                charge(&mut budget, 1, 12, "OBJ positions")?;
                pos.push(at.xyz(&mut toks, key, end)?);
            }
            "vt" => {
                charge(&mut budget, 1, 8, "OBJ texture coordinates")?;
                let u = at.float(toks.next(), "vt u", end)?;
                let v = match toks.next() {
                    None => 0.0,
                    t => at.float(t, "vt v", end)?,
                };
                uv.push([u, v]);
            }
            "vn" => {
                charge(&mut budget, 1, 12, "OBJ normals")?;
                nrm.push(at.xyz(&mut toks, key, end)?);
            }
            "f" => {
                face.clear();
                let counts = [pos.len(), uv.len(), nrm.len()];
                for (o, t) in toks {
                    charge(&mut budget, 1, CORNER, "OBJ faces")?;
                    face.push(corner(&at, o, t, counts)?);
                }
                let Some((&first, rest)) = face.split_first() else {
                    return Err(at.err(key_end, "face without corners"));
                };
                if rest.len() < 2 {
                    return Err(at.err(
                        key_end,
                        alloc::format!("face of {} corners (3 or more)", face.len()),
                    ));
                }
                if objects.is_empty() || current.is_some() {
                    objects.push(Object {
                        name: current.take().unwrap_or_default(),
                        groups: Vec::new(),
                        group_of: BTreeMap::new(),
                    });
                }
                let Some(obj) = objects.last_mut() else {
                    continue;
                };
                let gi = match obj.group_of.get(&material) {
                    Some(&i) => i,
                    None => {
                        obj.groups.push((material.clone(), Vec::new()));
                        let i = obj.groups.len().saturating_sub(1);
                        obj.group_of.insert(material.clone(), i);
                        i
                    }
                };
                let Some((_, tris)) = obj.groups.get_mut(gi) else {
                    continue;
                };
                charge(
                    &mut budget,
                    rest.len().saturating_sub(1),
                    3 * CORNER,
                    "OBJ triangles",
                )?;
                for pair in rest.windows(2) {
                    if let [b, c] = *pair {
                        tris.push([first, b, c]);
                    }
                }
            }
            "o" | "g" => {
                let name = rest_of(line, key_end).to_string();
                charge(&mut budget, name.len(), 1, "OBJ object names")?;
                current = Some(name);
            }
            "usemtl" => {
                let name = rest_of(line, key_end).to_string();
                charge(&mut budget, name.len(), 1, "OBJ material names")?;
                material = Some(name);
            }
            "mtllib" => {
                let name = rest_of(line, key_end).replace('\\', "/");
                if !libraries.insert(name.clone()) {
                    continue;
                }
                if let Some(bytes) = resolve(&name) {
                    if !fixed_limit {
                        let more = super::budget(options, bytes.len()).limit;
                        budget.limit = budget
                            .limit
                            .saturating_add(more.saturating_sub(super::DEFAULT_FLOOR));
                    }
                    let t = String::from_utf8_lossy(&bytes);
                    parse_mtl(&t, &name, &mut mtl, &mut budget)?;
                }
            }
            _ => {}
        }
    }
    let materials = materials(&mtl, &objects, options, resolve, &mut budget)?;
    let mut material_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, m) in materials.iter().enumerate() {
        material_of.entry(m.name.as_str()).or_insert(i);
    }
    let mut scene = Scene::default();
    for obj in &objects {
        let mut prims = Vec::new();
        for (mat, tris) in &obj.groups {
            let m = mat.as_deref().and_then(|n| material_of.get(n).copied());
            prims.push(primitive(
                tris,
                (&pos, &uv, &nrm),
                axes,
                options.winding,
                m,
                &mut budget,
            )?);
        }
        let mi = scene.meshes.len();
        let mut node = Node::new(obj.name.clone());
        node.mesh = Some(mi);
        scene.nodes.push(node);
        scene.meshes.push(Mesh {
            name: obj.name.clone(),
            primitives: prims,
            target_names: Vec::new(),
        });
    }
    scene.materials = materials;
    Ok(scene)
}

/// The scene's materials: the libraries' (in their order), then the `usemtl` names no
/// library defines.
fn materials(
    mtl: &[MtlEntry],
    objects: &[Object],
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
    budget: &mut Budget,
) -> Result<Vec<Material>> {
    let mut out: Vec<Material> = Vec::new();
    // The names in `out` (a scan of `out` per material was quadratic).
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for e in mtl {
        if !named.insert(e.name.as_str()) {
            continue;
        }
        let image = match &e.map_kd {
            Some(f) if !f.is_empty() => Some(image(f, options, resolve, budget)?),
            _ => None,
        };
        let mut m = Material::new(e.name.clone(), image);
        let [r, g, b] = e.kd.unwrap_or([1.0; 3]);
        let d = e.d.unwrap_or(1.0);
        m.base_color = [r, g, b, d];
        if d < 1.0 {
            m.alpha = AlphaMode::Blend;
        }
        out.push(m);
    }
    for (name, _) in objects.iter().flat_map(|o| &o.groups) {
        if let Some(n) = name
            && named.insert(n.as_str())
        {
            out.push(Material::new(n.clone(), None));
        }
    }
    Ok(out)
}

/// A `map_Kd` image: decoded PNG, kept JPEG, or the name (see the module docs).
fn image(
    file: &str,
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
    budget: &mut Budget,
) -> Result<Image> {
    let uri = || Image::Uri(file.to_string());
    if !options.read_images {
        return Ok(uri());
    }
    let Some(bytes) = resolve(file) else {
        return Ok(uri());
    };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let (width, height, pixels) = super::image::decode_png(&bytes, budget, file)?;
        Ok(Image::Rgba8 {
            width,
            height,
            pixels,
        })
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Ok(Image::Encoded {
            mime: Mime::Jpeg,
            bytes,
        })
    } else {
        Ok(uri())
    }
}

/// The file's position, texture coordinate and normal lists.
type Lists<'a> = (&'a [[f32; 3]], &'a [[f32; 2]], &'a [[f32; 3]]);

/// The primitive of one object's triangles of one material.
fn primitive(
    tris: &[[Corner; 3]],
    (pos, uv, nrm): Lists<'_>,
    axes: Axes,
    winding: Winding,
    material: Option<usize>,
    budget: &mut Budget,
) -> Result<Primitive> {
    // Distinct corners in index order, numbered.
    let corners = tris.len().saturating_mul(3);
    charge(budget, corners, CORNER.saturating_add(16), "OBJ vertices")?;
    let mut map: BTreeMap<Corner, u32> = tris.iter().flatten().map(|&c| (c, 0)).collect();
    let has_uv = tris.iter().flatten().any(|c| c.1 != NONE);
    let has_n = tris.iter().flatten().all(|c| c.2 != NONE);
    charge(budget, map.len(), 32, "OBJ vertices")?;
    let mut p = Primitive {
        material,
        ..Primitive::default()
    };
    for (next, (&(v, t, n), slot)) in (0u32..).zip(map.iter_mut()) {
        *slot = next;
        let get3 = |list: &[[f32; 3]], i: u32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| list.get(i))
                .copied()
                .unwrap_or([0.0; 3])
        };
        let [a, b, c] = get3(pos, v);
        p.positions.push(unpoint(axes, [a, b, c]));
        if has_uv {
            let [s, tt] = usize::try_from(t)
                .ok()
                .and_then(|i| uv.get(i))
                .copied()
                .unwrap_or([0.0, 1.0]);
            p.uvs.push([s, 1.0 - tt]);
        }
        if has_n {
            p.normals.push(unpoint(axes, get3(nrm, n)));
        }
    }
    charge(budget, tris.len(), 12, "OBJ indices")?;
    for tri in tris {
        let [a, b, c] = tri.map(|c| map.get(&c).copied().unwrap_or(0));
        p.indices.extend(winding.triangle([a, b, c]));
    }
    Ok(p)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used
)]
#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::no_files;

    fn read(text: &str) -> Result<Scene> {
        from_obj(text.as_bytes(), &ImportOptions::default(), &mut no_files)
    }

    #[test]
    fn tokens_have_offsets() {
        let t: Vec<_> = tokens("  f 1/2  3\t4 ").collect();
        assert_eq!(t, [(2, "f"), (4, "1/2"), (9, "3"), (11, "4")]);
    }

    #[test]
    fn quads_and_negative_indices() {
        let s = read(
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
             usemtl wall\nf -4/-4 -3/-3 -2/-2 -1/-1\n",
        )
        .unwrap();
        let p = &s.meshes[0].primitives[0];
        assert_eq!(p.positions.len(), 4);
        assert_eq!(p.indices, [0, 2, 1, 0, 3, 2]);
        assert_eq!(p.uvs, [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]);
        assert!(p.normals.is_empty());
        assert_eq!(s.materials[0].name, "wall");
        assert_eq!(p.material, Some(0));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read("v 0 0 0\nf 1 2 3\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "OBJ line 2, column 5: position index 2 out of range (1 read so far)"
        );
        let e = read("v 0 nan 0\n").unwrap_err().to_string();
        assert_eq!(e, "OBJ line 1, column 5: v y: \"nan\" is not finite");
        let e = read("v 0 0 0\nf 1 1 0\n").unwrap_err().to_string();
        assert!(
            e.starts_with("OBJ line 2, column 7: position index 0"),
            "{e}"
        );
        let e = read("v 0 0 0\nf 1 -2 1\n").unwrap_err().to_string();
        assert!(
            e.starts_with("OBJ line 2, column 5: position index -2"),
            "{e}"
        );
        let e = read("v 0 0 0\nf 1/1 1 1\n").unwrap_err().to_string();
        assert!(e.contains("column 5: texture coordinate index 1"), "{e}");
        let e = read("v 0 0 0\nf 1 1\n").unwrap_err().to_string();
        assert!(e.contains("face of 2 corners"), "{e}");
        let e = read("v 0 0\n").unwrap_err().to_string();
        assert_eq!(e, "OBJ line 1, column 6: v z: missing");
        let e = read("v 0 0 0\nf 99999999999999999999 1 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a number"), "{e}");
    }

    #[test]
    fn budget_refuses_before_storing() {
        let text = "v 0 0 0\n".repeat(1000);
        let options = ImportOptions {
            max_bytes: Some(100),
            ..ImportOptions::default()
        };
        let e = from_obj(text.as_bytes(), &options, &mut no_files).unwrap_err();
        assert!(matches!(e, ObjError::OverBudget { .. }), "{e}");
    }

    #[test]
    fn materials_from_the_library() {
        let mut resolve = |name: &str| {
            (name == "m.mtl").then(|| {
                b"newmtl skin\nKd 0.5 0.5 0.5\nd 0.5\nmap_Kd -s 1 1 1 tex\\skin.tga\n".to_vec()
            })
        };
        let options = ImportOptions {
            read_images: true,
            ..ImportOptions::default()
        };
        let s = from_obj(
            b"mtllib m.mtl\nv 0 0 0\nusemtl skin\nf 1 1 1\nusemtl other\nf 1 1 1\n",
            &options,
            &mut resolve,
        )
        .unwrap();
        assert_eq!(s.materials.len(), 2);
        assert_eq!(
            s.materials[0].image,
            Some(Image::Uri("tex/skin.tga".into()))
        );
        assert_eq!(s.materials[0].base_color, [0.5, 0.5, 0.5, 0.5]);
        assert_eq!(s.materials[0].alpha, AlphaMode::Blend);
        assert_eq!(s.materials[1].name, "other");
        assert_eq!(s.meshes[0].primitives.len(), 2);
        assert_eq!(s.meshes[0].primitives[1].material, Some(1));
    }

    #[test]
    fn writer_output_comes_back() {
        use idmodel_scene::obj::to_obj;
        let prim = Primitive {
            positions: alloc::vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [7.0, -8.0, 9.0]],
            normals: alloc::vec![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            uvs: alloc::vec![[0.0, 0.0], [1.0, 0.25], [0.5, 1.0]],
            indices: alloc::vec![0, 1, 2],
            material: Some(0),
            ..Primitive::default()
        };
        let scene = Scene::still(
            "x",
            alloc::vec![prim.clone()],
            alloc::vec![Material::new("m", None)],
        );
        for keep_axes in [false, true] {
            let axes = if keep_axes { Axes::Keep } else { Axes::YUp };
            let files = to_obj(&scene, "x", axes).unwrap();
            let options = ImportOptions {
                keep_axes,
                ..ImportOptions::default()
            };
            let back = from_obj(files.obj.as_bytes(), &options, &mut no_files).unwrap();
            assert_eq!(back.meshes[0].primitives[0], prim);
            assert_eq!(back.materials[0].name, "m");
        }
    }

    #[test]
    fn a_library_named_many_times_is_read_once_and_switches_stay_linear() {
        // 20,000 `mtllib` lines of one library: one read (the library was read, and its
        // size added to the budget, once per line), then 20,000 materials switched
        // between faces: each face finds its group and each group its material by name
        // (both were scans: quadratic in the switches).
        let n = 20_000usize;
        let mut lib = String::new();
        for i in 0..n {
            lib.push_str(&alloc::format!("newmtl m{i}\nKd 0.5 0.5 0.5\n"));
        }
        let mut text = "mtllib lib.mtl\n".repeat(n);
        text.push_str("v 0 0 0\n");
        for i in (0..n).rev() {
            text.push_str(&alloc::format!("usemtl m{i}\nf 1 1 1\n"));
        }
        // The same materials again: back in their groups, not new ones.
        for i in 0..n {
            text.push_str(&alloc::format!("usemtl m{i}\nf 1 1 1\n"));
        }
        let mut reads = 0usize;
        let mut resolve = |name: &str| {
            assert_eq!(name, "lib.mtl");
            reads += 1;
            Some(lib.clone().into_bytes())
        };
        let s = from_obj(text.as_bytes(), &ImportOptions::default(), &mut resolve).unwrap();
        assert_eq!(reads, 1);
        assert_eq!(s.materials.len(), n);
        assert!(
            s.materials
                .iter()
                .enumerate()
                .all(|(i, m)| m.name == alloc::format!("m{i}"))
        );
        let prims = &s.meshes[0].primitives;
        assert_eq!(prims.len(), n);
        // Groups in the order of first use (m{n-1} first), each with its two faces.
        for (k, p) in prims.iter().enumerate() {
            assert_eq!(p.material, Some(n - 1 - k));
            assert_eq!(p.indices.len(), 6);
        }
    }
}
