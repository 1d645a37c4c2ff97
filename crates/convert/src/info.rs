//! What `info` answers: the [`Info`] fields every format module fills (the
//! `info --json` object) and their plain text.

use std::path::Path;

use crate::idmodel::Format;
use serde::Serialize;

/// The `info` answer; serialised as the `info --json` object (schema in the crate
/// README). Counts are as stored in the file; fields that do not apply to a format are
/// `None` and left out of the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Info {
    /// `mdl`, `md2`, `md3`, `md5mesh`, `md5anim` or `md5camera` (`Format::id`).
    pub format: &'static str,
    /// MDL: all poses (each member of a frame group counted); MD2/MD3/md5anim/md5camera:
    /// frames; md5mesh: 0.
    pub frames: u64,
    /// MDL `numverts`, MD2 `num_xyz`, MD3/md5mesh summed over surfaces/meshes; 0 else.
    pub vertices: u64,
    /// MDL `numtris`, MD2 `num_tris`, MD3/md5mesh summed over surfaces/meshes; 0 else.
    pub triangles: u64,
    /// MDL/MD2 skin count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skins: Option<u64>,
    /// MD3 surface count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surfaces: Option<u64>,
    /// MD3 tag count (per frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<u64>,
    /// md5mesh mesh count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meshes: Option<u64>,
    /// md5mesh/md5anim joint count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joints: Option<u64>,
    /// Bounds of the first frame's decoded positions (MDL: first pose; md5mesh: bind
    /// pose), file axes; `null` when the file has no positions.
    pub bounds: Option<Bounds>,
    /// Animation clip names (the names `--clip` takes); left out where the format has
    /// none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clips: Option<Vec<String>>,
    /// Named skins (Quake III: the `NAME` of the `<part>_NAME.skin` files beside the
    /// model, the names `--skin` takes); `skins` stays the MDL/MD2 count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_names: Option<Vec<String>>,
    /// Shader names (MD3 surfaces' shaders, md5mesh meshes' shaders), each once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shaders: Option<Vec<String>>,
    /// Further human-readable facts (name, frame rate, skin names, …) for the plain
    /// `info` output; not part of the JSON.
    #[serde(skip)]
    pub details: Vec<(String, String)>,
}

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bounds {
    /// Smallest x, y, z.
    pub min: [f32; 3],
    /// Largest x, y, z.
    pub max: [f32; 3],
}

impl Bounds {
    /// The bounds of `points`, `None` for no points.
    pub fn of(points: impl IntoIterator<Item = [f32; 3]>) -> Option<Bounds> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(
            Bounds {
                min: first,
                max: first,
            },
            |mut b, p| {
                for ((lo, hi), v) in b.min.iter_mut().zip(b.max.iter_mut()).zip(p) {
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                }
                b
            },
        ))
    }
}

/// The plain `info` text of `info` read from `path`.
pub fn text(path: &Path, format: Format, info: &Info) -> String {
    let mut out = format!("{}: {}", path.display(), format.name());
    let mut rows: Vec<(String, String)> = vec![
        ("frames".into(), info.frames.to_string()),
        ("vertices".into(), info.vertices.to_string()),
        ("triangles".into(), info.triangles.to_string()),
    ];
    for (name, v) in [
        ("skins", info.skins),
        ("surfaces", info.surfaces),
        ("tags", info.tags),
        ("meshes", info.meshes),
        ("joints", info.joints),
    ] {
        if let Some(v) = v {
            rows.push((name.into(), v.to_string()));
        }
    }
    if let Some(b) = info.bounds {
        rows.push((
            "bounds".into(),
            format!(
                "({}, {}, {}) .. ({}, {}, {})",
                b.min[0], b.min[1], b.min[2], b.max[0], b.max[1], b.max[2]
            ),
        ));
    }
    rows.extend(info.details.iter().cloned());
    push_rows(&mut out, &rows);
    out
}

/// The `info --json` object `value` of `path` (one line).
///
/// # Errors
/// The line naming `path` when the value cannot be written as JSON.
pub fn json(path: &Path, value: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| format!("{}: cannot write JSON: {e}", path.display()))
}

/// `names` without repeats, each where it first occurs (the `shaders` lists).
pub fn unique(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Appends `rows` to `out`, a line each: `  key  value`, the values aligned.
pub fn push_rows(out: &mut String, rows: &[(String, String)]) {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<width$}  {v}"));
    }
}

/// A count as `Info` holds it (saturating).
pub fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Whether `input` is a Wavefront OBJ (by its extension): `convert` reads it as a still
/// scene (`idmodel_gltf::import::obj`), `info` describes it.
pub(crate) fn is_obj(input: &Path) -> bool {
    input
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"))
}

/// `info` of an OBJ (by its extension): objects, vertices, triangles, materials and
/// bounds of the scene it reads as (without its MTL libraries); `None` for other files.
pub(crate) fn obj_info(path: &Path, bytes: &[u8], json: bool) -> Option<Result<String, String>> {
    if !is_obj(path) {
        return None;
    }
    let scene = match idmodel_gltf::import::obj::from_obj(
        bytes,
        &idmodel_gltf::import::ImportOptions::default(),
        &mut idmodel_gltf::import::no_files,
    ) {
        Ok(s) => s,
        Err(e) => return Some(Err(crate::failure::line(path, e))),
    };
    let prims = || scene.meshes.iter().flat_map(|m| &m.primitives);
    let count = |n: usize| count(n);
    let materials: Vec<String> = scene.materials.iter().map(|m| m.name.clone()).collect();
    let info = Info {
        format: "obj",
        frames: 1,
        vertices: count(prims().map(|p| p.positions.len()).sum()),
        triangles: count(prims().map(|p| p.indices.len() / 3).sum()),
        bounds: Bounds::of(prims().flat_map(|p| p.positions.iter().copied())),
        shaders: Some(materials.clone()),
        details: vec![
            ("objects".into(), scene.meshes.len().to_string()),
            ("materials".into(), materials.join(", ")),
        ],
        ..Info::default()
    };
    if json {
        return Some(serde_json::to_string(&info).map_err(|e| crate::failure::line(path, e)));
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
