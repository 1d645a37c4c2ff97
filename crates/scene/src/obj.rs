//! Wavefront `.obj` output of a [`Scene`] (usually a still one: one posed frame).
//!
//! The writer is no_std + alloc (text and the images to write, no I/O and no PNG
//! encoder), so every consumer of the scene (the command, a browser viewer, a C API) gets
//! it without `std`; the caller encodes the images and writes the files.
//!
//! - What is written: every node's mesh with the node's world transform (the node
//!   hierarchy), base positions (no morph targets, no skinning), materials.
//! - One `o` object per primitive, `v` / `vt` / `vn` lines, then `f` faces with 1-based
//!   indices counted over the whole file (`f v/vt/vn`, or `v//vn`, `v/vt`, `v` when a
//!   part lacks UVs or normals).
//! - Axes: as for glTF, `(x, y, z) → (y, z, x)` by default (OBJ importers such as
//!   Blender's assume Y up), file axes with `--keep-axes`.
//! - Winding: faces are written counter-clockwise-front as OBJ expects (the id files'
//!   clockwise triangles `(a, b, c)` become `(a, c, b)`).
//! - Texture coordinates: OBJ's `v` runs upwards from the bottom of the image, the IR's
//!   (glTF's) downwards from the top, so `vt u v` is written as `vt u (1 − v)`.
//! - Materials go to `<stem>.mtl` (`mtllib`, `usemtl`); an embedded skin is named
//!   `<stem>_<n>.png` by `map_Kd` and returned in [`ObjFiles::textures`] for the caller to
//!   encode as that PNG; a PNG or JPEG kept as is ([`Image::Encoded`]) is named
//!   `<stem>_<n>.png`/`.jpg` and returned in [`ObjFiles::encoded`]; a skin file name is
//!   copied to `map_Kd`.
//! - **Finite numbers only** (the one rule of every writer in the project): the adapters
//!   put no NaN or infinity in a scene (a non-finite position, displacement or texture
//!   coordinate read from a file becomes 0, a non-finite normal the up axis, and the
//!   format crates' `check` reports the file's non-finite values), and a writer given a
//!   non-finite value anyway refuses the scene, naming the part and the element, as the
//!   glTF writer does; it never writes `v NaN …`.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::axes::{Axes, Winding};
use crate::placed::placed;
use crate::{Error, Image, Scene, unit_or_up};

/// The files of one `.obj` export, borrowing the scene's images.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjFiles<'a> {
    /// The `.obj` text.
    pub obj: String,
    /// The `.mtl` text, when the scene has materials.
    pub mtl: Option<String>,
    /// Images to write beside the `.obj`, in material order.
    pub textures: Vec<ObjTexture<'a>>,
    /// PNG or JPEG files ([`Image::Encoded`]) to write beside the `.obj` byte for byte:
    /// `(file name, bytes)`, in material order.
    pub encoded: Vec<(String, &'a [u8])>,
}

/// An embedded image the `.mtl` names: the caller writes it as the PNG `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjTexture<'a> {
    /// The file name `map_Kd` gives (`<stem>_<n>.png`).
    pub file: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` RGBA8 bytes, rows top to bottom (an [`Image::Indexed8`]
    /// expanded).
    pub pixels: alloc::borrow::Cow<'a, [u8]>,
}

/// A name usable after `o`, `usemtl` and `newmtl` (no spaces).
fn obj_name(s: &str, fallback: &str) -> String {
    let n: String = s
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if n.is_empty() { fallback.to_owned() } else { n }
}

/// Writes `scene` as OBJ; `stem` names the `.mtl` and texture files.
///
/// ```
/// use idmodel_scene::axes::Axes;
/// use idmodel_scene::obj::to_obj;
/// use idmodel_scene::{Primitive, Scene};
/// let tri = Primitive {
///     positions: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
///     indices: vec![0, 1, 2],
///     ..Primitive::default()
/// };
/// let scene = Scene::still("tri", vec![tri], Vec::new());
/// let files = to_obj(&scene, "tri", Axes::Keep)?;
/// assert!(files.obj.contains("v 1 2 3\n"));
/// assert!(files.obj.contains("f 1 3 2\n"));
/// assert_eq!(files.mtl, None);
/// # Ok::<(), idmodel_scene::Error>(())
/// ```
pub fn to_obj<'a>(scene: &'a Scene, stem: &str, axes: Axes) -> Result<ObjFiles<'a>, Error> {
    let mut out = ObjFiles::default();
    let mut obj = String::new();
    let _ = writeln!(obj, "# written by idmodel {}", env!("CARGO_PKG_VERSION"));
    let mtl_names: Vec<String> = scene
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| obj_name(&m.name, &format!("material{i}")))
        .collect();
    if !scene.materials.is_empty() {
        let mut mtl = String::new();
        for (i, (m, name)) in scene.materials.iter().zip(&mtl_names).enumerate() {
            let _ = writeln!(mtl, "newmtl {name}\nKd 1 1 1");
            match &m.image {
                Some(image @ (Image::Rgba8 { .. } | Image::Indexed8 { .. })) => {
                    if let (Some((width, height)), Some(pixels)) =
                        (image.pixel_size(), image.rgba8_pixels())
                    {
                        let file = format!("{stem}_{i}.png");
                        let _ = writeln!(mtl, "map_Kd {file}");
                        out.textures.push(ObjTexture {
                            file,
                            width,
                            height,
                            pixels,
                        });
                    }
                }
                Some(Image::Encoded { mime, bytes }) => {
                    let file = format!("{stem}_{i}.{}", mime.extension());
                    let _ = writeln!(mtl, "map_Kd {file}");
                    out.encoded.push((file, bytes));
                }
                Some(Image::Uri(uri)) => {
                    let _ = writeln!(mtl, "map_Kd {uri}");
                }
                None => {}
            }
        }
        let _ = writeln!(obj, "mtllib {stem}.mtl");
        out.mtl = Some(mtl);
    }
    // 1-based running offsets of the v, vt and vn lists.
    let (mut v0, mut t0, mut n0) = (1u64, 1u64, 1u64);
    let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    for (pi, part) in placed(scene).iter().enumerate() {
        let p = part.prim;
        let n = part.positions.len();
        let has_uv = !p.uvs.is_empty() && p.uvs.len() == n;
        let has_n = !p.normals.is_empty() && p.normals.len() == n;
        let _ = writeln!(obj, "o part{pi}");
        if let Some(name) = p.material.and_then(|m| mtl_names.get(m)) {
            let _ = writeln!(obj, "usemtl {name}");
        }
        let bad = |what: &str, i: usize, v: &dyn core::fmt::Debug| {
            Error::new(format!(
                "part {pi} {what}: non-finite value at element {i}: {v:?}"
            ))
        };
        if let Some((i, v)) = part
            .positions
            .iter()
            .enumerate()
            .find(|(_, v)| !v.iter().all(|x| x.is_finite()))
        {
            return Err(bad("POSITION", i, v));
        }
        if let Some((i, v)) = p
            .uvs
            .iter()
            .enumerate()
            .find(|(_, v)| !v.iter().all(|x| x.is_finite()))
            .filter(|_| has_uv)
        {
            return Err(bad("TEXCOORD_0", i, v));
        }
        for &v in part.positions.iter() {
            let [x, y, z] = axes.point(v);
            let _ = writeln!(obj, "v {x} {y} {z}");
        }
        if has_uv {
            for &[u, v] in &p.uvs {
                let _ = writeln!(obj, "vt {u} {}", 1.0 - v);
            }
        }
        if has_n {
            for &nv in part.normals.iter() {
                let [x, y, z] = axes.point(unit_or_up(nv));
                let _ = writeln!(obj, "vn {x} {y} {z}");
            }
        }
        for tri in p.indices.chunks_exact(3) {
            let &[a, b, c] = tri else { continue };
            if [a, b, c]
                .iter()
                .any(|&i| usize::try_from(i).map_or(true, |i| i >= n))
            {
                return Err(Error::new(format!(
                    "part {pi}: triangle index out of range ({a}, {b}, {c}) for {n} vertices"
                )));
            }
            let _ = write!(obj, "f");
            for i in Winding::Clockwise.triangle([a, b, c]) {
                let i = u64::from(i);
                let v = v0.saturating_add(i);
                let t = t0.saturating_add(i);
                let nn = n0.saturating_add(i);
                let _ = match (has_uv, has_n) {
                    (true, true) => write!(obj, " {v}/{t}/{nn}"),
                    (false, true) => write!(obj, " {v}//{nn}"),
                    (true, false) => write!(obj, " {v}/{t}"),
                    (false, false) => write!(obj, " {v}"),
                };
            }
            let _ = writeln!(obj);
        }
        v0 = v0.saturating_add(count(n));
        if has_uv {
            t0 = t0.saturating_add(count(n));
        }
        if has_n {
            n0 = n0.saturating_add(count(n));
        }
    }
    out.obj = obj;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Material, Primitive};
    use alloc::vec;

    #[test]
    fn triangle_with_uvs_normals_and_texture() {
        let mesh = Scene::still(
            "ogre",
            vec![
                Primitive {
                    positions: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                    normals: vec![[0.0, 0.0, 2.0]; 3],
                    uvs: vec![[0.0, 0.0], [1.0, 0.25], [0.5, 1.0]],
                    indices: vec![0, 1, 2],
                    material: Some(0),
                    ..Primitive::default()
                },
                Primitive {
                    positions: vec![[0.0; 3]; 3],
                    indices: vec![0, 1, 2],
                    ..Primitive::default()
                },
            ],
            vec![Material::new(
                "skin 0",
                Some(Image::Rgba8 {
                    width: 1,
                    height: 1,
                    pixels: vec![1, 2, 3, 255],
                }),
            )],
        );
        let files = to_obj(&mesh, "ogre", Axes::YUp).unwrap();
        let obj = files.obj;
        assert!(obj.contains("mtllib ogre.mtl\n"));
        assert!(obj.contains("usemtl skin_0\n"));
        assert!(obj.contains("v 2 3 1\n"), "{obj}");
        assert!(obj.contains("vt 1 0.75\n"));
        assert!(obj.contains("vt 0.5 0\n"));
        assert!(obj.contains("vn 0 1 0\n"));
        assert!(obj.contains("f 1/1/1 3/3/3 2/2/2\n"));
        // Second part: offsets continue, no uv/normal lists.
        assert!(obj.contains("f 4 6 5\n"), "{obj}");
        assert_eq!(
            files.mtl.unwrap(),
            "newmtl skin_0\nKd 1 1 1\nmap_Kd ogre_0.png\n"
        );
        assert_eq!(files.textures[0].file, "ogre_0.png");
        // The caller encodes the PNG (the command's tests check its bytes).
        assert_eq!((files.textures[0].width, files.textures[0].height), (1, 1));
        assert_eq!(*files.textures[0].pixels, [1, 2, 3, 255]);
        let kept = to_obj(&mesh, "ogre", Axes::Keep).unwrap().obj;
        assert!(kept.contains("v 1 2 3\n"));
    }

    #[test]
    fn non_finite_values_are_refused_not_written() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mesh = Scene::still(
                "x",
                vec![Primitive {
                    positions: vec![[0.0; 3], [bad, 0.0, 0.0], [0.0; 3]],
                    indices: vec![0, 1, 2],
                    ..Primitive::default()
                }],
                Vec::new(),
            );
            let e = to_obj(&mesh, "x", Axes::YUp).unwrap_err();
            assert!(
                e.message()
                    .starts_with("part 0 POSITION: non-finite value at element 1"),
                "{e}"
            );
            let mesh = Scene::still(
                "x",
                vec![Primitive {
                    positions: vec![[0.0; 3]; 3],
                    uvs: vec![[0.0; 2], [0.0; 2], [0.0, bad]],
                    indices: vec![0, 1, 2],
                    ..Primitive::default()
                }],
                Vec::new(),
            );
            let e = to_obj(&mesh, "x", Axes::YUp).unwrap_err();
            assert!(e.message().starts_with("part 0 TEXCOORD_0"), "{e}");
        }
    }

    #[test]
    fn bad_index_is_an_error() {
        let mesh = Scene::still(
            "x",
            vec![Primitive {
                positions: vec![[0.0; 3]; 2],
                indices: vec![0, 1, 2],
                ..Primitive::default()
            }],
            Vec::new(),
        );
        assert!(to_obj(&mesh, "x", Axes::YUp).is_err());
    }
}
