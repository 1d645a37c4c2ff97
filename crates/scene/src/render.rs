//! A small software rasteriser (what `idmodel render` draws) of a [`Scene`].
//!
//! It is pure maths over the scene, so it lives in this no_std crate: every consumer
//! (the command, a browser viewer, a C API) gets the same pictures without `std`. It
//! returns RGBA8 pixels; encoding them (PNG) is the caller's business.
//!
//! - What is drawn: every node's mesh with the node's world transform (the node
//!   hierarchy), the primitives' base positions (no morph targets, no skinning) and
//!   their materials; cameras and animations are ignored.
//! - Camera: a three-quarter view of the model's front (the id formats' +X) from its
//!   right (−Y) and above (Z up), 35° off the front and 25° up, with a 35° field of view,
//!   placed so that the bounding sphere of the drawn positions fills the shorter side
//!   of the picture ([`RenderOptions::bounds`] frames a given box instead);
//!   [`RenderOptions::yaw`] turns the model about Z.
//! - Triangles: both faces drawn, perspective-correct barycentric interpolation, a
//!   32-bit float depth buffer, pixel centres sampled once (no anti-aliasing).
//! - Shading: Lambert lighting (ambient 0.25 + diffuse 0.75) from a light above and left
//!   of the viewer, with the interpolated vertex normals (the face normal where a part
//!   has none), turned towards the viewer on back faces.
//! - Texture: an embedded RGBA8 base-colour image with the part's UVs, nearest texel,
//!   wrapping or clamped as the material says; untextured parts (and images still
//!   encoded as PNG/JPEG or named by URI: the caller decodes them first) are light grey
//!   times the material's base colour. The emissive texture is added after lighting.
//! - Alpha: a `Mask` material drops the texels whose alpha (times the base colour's) is
//!   below its cutoff, as glTF does (both faces and the depth buffer see the hole); a
//!   `Blend` material is blended over what is behind it (in drawing order, no sorting).

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::vec::{add, cross, dot, scale, sub};

use crate::placed::{Placed, placed};
use crate::{AlphaMode, Error, Image, Material, Scene, Wrap, unit_or_up};

/// Size, background, view direction and framing of a picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Width in pixels (1 ..= [`MAX_SIDE`]).
    pub width: u32,
    /// Height in pixels (1 ..= [`MAX_SIDE`]).
    pub height: u32,
    /// RGBA of pixels no triangle covers.
    pub background: [u8; 4],
    /// Turn of the model about the up axis (Z), in radians, counter-clockwise seen from
    /// above (default 0: the three-quarter view of the module docs). The camera orbits
    /// the framed centre by `-yaw`, so the light turns with it; the framing does not
    /// depend on the yaw, so the frames of a turntable do not jump.
    pub yaw: f32,
    /// The box (smallest and largest x, y, z in world axes) to frame instead of the drawn
    /// positions' bounds: give every frame of an animation the same box (the union of the
    /// frames' [`drawn_bounds`]) and the model does not jump. `None` (default): the
    /// drawn positions' bounds.
    pub bounds: Option<([f32; 3], [f32; 3])>,
}

/// The largest accepted width or height.
pub const MAX_SIDE: u32 = 8192;

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            width: 512,
            height: 512,
            background: [48, 48, 56, 255],
            yaw: 0.0,
            bounds: None,
        }
    }
}

/// An RGBA8 picture, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

type V3 = [f32; 3];

/// `a` scaled by the reciprocal of its length (not `idmodel_core::vec::unit`, which
/// divides: the pictures keep their bits), or `a` itself when it is nearly zero.
fn norm(a: V3) -> V3 {
    let l = libm::sqrtf(dot(a, a));
    if l > 1e-20 { scale(a, 1.0 / l) } else { a }
}

/// `u32` → `f32` (exact for the sizes used here: at most [`MAX_SIDE`]).
fn f32_of(u: u32) -> f32 {
    #[allow(clippy::as_conversions, clippy::cast_precision_loss)]
    // Exact below 2^24; pixel coordinates and texture sizes are far smaller.
    let f = u as f32;
    f
}

/// `f32` → `u32`, saturating (negative and NaN give 0), as Rust's float casts do.
fn u32_of(f: f32) -> u32 {
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    // Float-to-int `as` saturates and maps NaN to 0: the clamping a rasteriser wants.
    let u = f as u32;
    u
}

/// `[0, 1]` → `0 ..= 255`, clamped.
fn byte_of(f: f32) -> u8 {
    u8::try_from(u32_of(f.clamp(0.0, 1.0) * 255.0 + 0.5).min(255)).unwrap_or(u8::MAX)
}

/// A vertex after projection.
#[derive(Clone, Copy)]
struct Projected {
    /// Screen x, y in pixels.
    x: f32,
    y: f32,
    /// 1 / view depth.
    inv_z: f32,
    /// World position (for the view vector), normal, UV.
    world: V3,
    normal: Option<V3>,
    uv: [f32; 2],
}

/// Draws `scene` (file axes, Z up) from the three-quarter view (see the module docs).
///
/// ```
/// use idmodel_scene::render::{RenderOptions, render};
/// use idmodel_scene::{Primitive, Scene};
/// let tri = Primitive {
///     positions: vec![[0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
///     indices: vec![0, 1, 2],
///     ..Primitive::default()
/// };
/// let scene = Scene::still("triangle", vec![tri], Vec::new());
/// let options = RenderOptions { width: 32, height: 24, ..RenderOptions::default() };
/// let picture = render(&scene, &options)?;
/// assert_eq!(picture.rgba.len(), 32 * 24 * 4);
/// assert!(picture.rgba.chunks(4).any(|px| px != options.background));
/// # Ok::<(), idmodel_scene::Error>(())
/// ```
pub fn render(scene: &Scene, options: &RenderOptions) -> Result<Picture, Error> {
    let (w, h) = (options.width, options.height);
    if !(1..=MAX_SIDE).contains(&w) || !(1..=MAX_SIDE).contains(&h) {
        return Err(Error::new(format!(
            "picture size {w}x{h} outside 1x1 ..= {MAX_SIDE}x{MAX_SIDE}"
        )));
    }
    let parts = placed(scene);
    for (pi, p) in parts.iter().enumerate() {
        let n = p.positions.len();
        if p.prim
            .indices
            .iter()
            .any(|&i| usize::try_from(i).map_or(true, |i| i >= n))
        {
            return Err(Error::new(format!(
                "part {pi}: triangle index out of range"
            )));
        }
        if p.positions.iter().flatten().any(|f| !f.is_finite()) {
            return Err(Error::new(format!("part {pi}: non-finite vertex position")));
        }
    }
    let Some(drawn) = used_bounds(&parts) else {
        return Err(Error::new("nothing to draw: the frame has no triangles"));
    };
    let (min, max) = match options.bounds {
        Some((lo, hi)) if lo.iter().chain(&hi).all(|f| f.is_finite()) => (lo, hi),
        Some(_) => return Err(Error::new("non-finite framing bounds")),
        None => drawn,
    };
    let center = scale(add(min, max), 0.5);
    let radius = (libm::sqrtf(dot(sub(max, min), sub(max, min))) * 0.5).max(1e-3);

    // Camera.
    if !options.yaw.is_finite() {
        return Err(Error::new("non-finite yaw"));
    }
    let (az, el, fov) = (
        // At yaw 0 this is exactly −35° (x − 0 = x): the still pictures keep their bits.
        (-35.0f32).to_radians() - options.yaw,
        25.0f32.to_radians(),
        35.0f32.to_radians(),
    );
    let to_eye = [
        libm::cosf(el) * libm::cosf(az),
        libm::cosf(el) * libm::sinf(az),
        libm::sinf(el),
    ];
    let dist = radius / libm::sinf(fov * 0.5) * 1.05;
    let eye = add(center, scale(to_eye, dist));
    let fwd = scale(to_eye, -1.0);
    let right = norm(cross(fwd, [0.0, 0.0, 1.0]));
    let up = cross(right, fwd);
    let light = norm(add(
        add(scale(to_eye, 0.6), scale(up, 0.7)),
        scale(right, -0.4),
    ));
    let (wf, hf) = (f32_of(w), f32_of(h));
    let s = 0.5 * wf.min(hf) / libm::tanf(fov * 0.5);

    let pixels = u64::from(w)
        .checked_mul(u64::from(h))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::new("picture too large"))?;
    let mut depth = vec![f32::INFINITY; pixels];
    let mut rgba: Vec<u8> = options
        .background
        .iter()
        .copied()
        .cycle()
        .take(pixels.saturating_mul(4))
        .collect();

    for part in &parts {
        let p = part.prim;
        let material = p.material.and_then(|m| scene.materials.get(m));
        let texture = texture_of(material.and_then(|m| m.image.as_ref()), material, part);
        let glow = texture_of(material.and_then(|m| m.emissive.as_ref()), material, part);
        let glow_factor = material.map_or([0.0; 3], |m| m.emissive_factor);
        let tint = material.map_or([1.0; 4], |m| m.base_color);
        let alpha_mode = material.map_or(AlphaMode::Opaque, |m| m.alpha);
        let project = |i: u32| -> Option<Projected> {
            let i = usize::try_from(i).ok()?;
            let world = *part.positions.get(i)?;
            let rel = sub(world, eye);
            let z = dot(rel, fwd);
            if z <= 1e-6 {
                return None;
            }
            Some(Projected {
                x: 0.5 * wf + s * dot(rel, right) / z,
                y: 0.5 * hf - s * dot(rel, up) / z,
                inv_z: 1.0 / z,
                world,
                normal: part.normals.get(i).map(|&n| unit_or_up(n)),
                uv: p.uvs.get(i).copied().unwrap_or([0.0; 2]),
            })
        };
        for tri in p.indices.chunks_exact(3) {
            let &[a, b, c] = tri else { continue };
            let (Some(a), Some(b), Some(c)) = (project(a), project(b), project(c)) else {
                continue;
            };
            let face = norm(cross(sub(b.world, a.world), sub(c.world, a.world)));
            let area = edge(a, b, c.x, c.y);
            if !area.is_finite() || area.abs() < 1e-12 {
                continue;
            }
            let x0 = u32_of(libm::floorf(a.x.min(b.x).min(c.x)));
            let y0 = u32_of(libm::floorf(a.y.min(b.y).min(c.y)));
            let x1 = u32_of(libm::ceilf(a.x.max(b.x).max(c.x))).min(w.saturating_sub(1));
            let y1 = u32_of(libm::ceilf(a.y.max(b.y).max(c.y))).min(h.saturating_sub(1));
            for py in y0..=y1 {
                for px in x0..=x1 {
                    let (fx, fy) = (f32_of(px) + 0.5, f32_of(py) + 0.5);
                    let ba = edge(b, c, fx, fy) / area;
                    let bb = edge(c, a, fx, fy) / area;
                    let bc = edge(a, b, fx, fy) / area;
                    if ba < 0.0 || bb < 0.0 || bc < 0.0 {
                        continue;
                    }
                    let inv_z = ba * a.inv_z + bb * b.inv_z + bc * c.inv_z;
                    let z = 1.0 / inv_z;
                    let Some(at) = u64::from(py)
                        .checked_mul(u64::from(w))
                        .and_then(|r| r.checked_add(u64::from(px)))
                        .and_then(|i| usize::try_from(i).ok())
                    else {
                        continue;
                    };
                    let Some(d) = depth.get_mut(at) else { continue };
                    if z.is_nan() || z >= *d {
                        continue;
                    }
                    // Perspective-correct weights.
                    let (wa, wb, wc) = (ba * a.inv_z * z, bb * b.inv_z * z, bc * c.inv_z * z);
                    let uv = [
                        wa * a.uv[0] + wb * b.uv[0] + wc * c.uv[0],
                        wa * a.uv[1] + wb * b.uv[1] + wc * c.uv[1],
                    ];
                    let base = match &texture {
                        Some(t) => t.sample(uv),
                        None => [0.8, 0.8, 0.8, 1.0],
                    };
                    let alpha = base[3] * tint[3];
                    match alpha_mode {
                        AlphaMode::Mask(cutoff) if alpha < cutoff => continue,
                        AlphaMode::Blend if alpha <= 0.0 => continue,
                        _ => {}
                    }
                    if !matches!(alpha_mode, AlphaMode::Blend) {
                        *d = z;
                    }
                    let mut n = match (a.normal, b.normal, c.normal) {
                        (Some(na), Some(nb), Some(nc)) => {
                            norm(add(add(scale(na, wa), scale(nb, wb)), scale(nc, wc)))
                        }
                        _ => face,
                    };
                    let world = add(
                        add(scale(a.world, wa), scale(b.world, wb)),
                        scale(c.world, wc),
                    );
                    if dot(n, sub(world, eye)) > 0.0 {
                        n = scale(n, -1.0);
                    }
                    let light = 0.25 + 0.75 * dot(n, light).max(0.0);
                    let emit = glow.as_ref().map_or([0.0; 4], |t| t.sample(uv));
                    let colour = [0, 1, 2].map(|k: usize| {
                        let at = |v: &[f32]| v.get(k).copied().unwrap_or(0.0);
                        at(&base) * at(&tint) * light + at(&emit) * at(&glow_factor)
                    });
                    let start = at.saturating_mul(4);
                    if let Some(dst) = rgba.get_mut(start..start.saturating_add(4)) {
                        let keep = if matches!(alpha_mode, AlphaMode::Blend) {
                            alpha.clamp(0.0, 1.0)
                        } else {
                            1.0
                        };
                        for (o, c) in dst.iter_mut().zip(colour) {
                            let under = f32::from(*o) / 255.0;
                            *o = byte_of(c * keep + under * (1.0 - keep));
                        }
                        if let Some(o) = dst.get_mut(3) {
                            *o = 255;
                        }
                    }
                }
            }
        }
    }
    Ok(Picture {
        width: w,
        height: h,
        rgba,
    })
}

/// The smallest and largest x, y, z (world axes) of the positions `render` would draw
/// (those the triangles use, placed by the node transforms), `None` when there are none.
/// Union these over the frames of an animation for [`RenderOptions::bounds`].
///
/// ```
/// use idmodel_scene::render::drawn_bounds;
/// use idmodel_scene::{Primitive, Scene};
/// let tri = Primitive {
///     positions: vec![[0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [9.0; 3]],
///     indices: vec![0, 1, 2],
///     ..Primitive::default()
/// };
/// let scene = Scene::still("triangle", vec![tri], Vec::new());
/// assert_eq!(drawn_bounds(&scene), Some(([0.0, -1.0, 0.0], [0.0, 1.0, 2.0])));
/// ```
pub fn drawn_bounds(scene: &Scene) -> Option<([f32; 3], [f32; 3])> {
    used_bounds(&placed(scene))
}

/// The bounds of the positions the triangles of `parts` use.
fn used_bounds(parts: &[Placed<'_>]) -> Option<(V3, V3)> {
    let used = parts.iter().flat_map(|p| {
        p.prim
            .indices
            .iter()
            .filter_map(|&i| p.positions.get(usize::try_from(i).ok()?))
    });
    bounds(used.copied())
}

/// The smallest and largest x, y, z of `points`, `None` for no points.
fn bounds(points: impl IntoIterator<Item = V3>) -> Option<(V3, V3)> {
    let mut it = points.into_iter();
    let first = it.next()?;
    Some(it.fold((first, first), |(mut lo, mut hi), p| {
        for ((l, h), v) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
            *l = l.min(v);
            *h = h.max(v);
        }
        (lo, hi)
    }))
}

/// Twice the signed area of (a, b, p) in screen space.
fn edge(a: Projected, b: Projected, px: f32, py: f32) -> f32 {
    (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)
}

/// A texture usable by one primitive.
struct Texture<'a> {
    width: u32,
    height: u32,
    pixels: Texels<'a>,
    clamp: bool,
}

/// The texels of a [`Texture`]: RGBA bytes, or palette indices and their colours.
enum Texels<'a> {
    Rgba(&'a [u8]),
    Indexed(&'a [u8], &'a [[u8; 4]; 256]),
}

impl Texels<'_> {
    /// How many texels there are.
    fn len(&self) -> usize {
        match self {
            Self::Rgba(px) => px.len() / 4,
            Self::Indexed(ix, _) => ix.len(),
        }
    }

    /// The RGBA of texel `i`.
    fn get(&self, i: usize) -> Option<[u8; 4]> {
        match self {
            Self::Rgba(px) => {
                let at = i.checked_mul(4)?;
                <[u8; 4]>::try_from(px.get(at..at.checked_add(4)?)?).ok()
            }
            Self::Indexed(ix, palette) => palette.get(usize::from(*ix.get(i)?)).copied(),
        }
    }
}

fn texture_of<'a>(
    image: Option<&'a Image>,
    material: Option<&Material>,
    p: &Placed<'_>,
) -> Option<Texture<'a>> {
    let clamp = material.is_some_and(|m| m.wrap == Wrap::Clamp);
    let (width, height, pixels) = match image? {
        Image::Rgba8 {
            width,
            height,
            pixels,
        } if pixels.len() % 4 == 0 => (*width, *height, Texels::Rgba(pixels)),
        Image::Indexed8 {
            width,
            height,
            palette,
            indices,
        } => (*width, *height, Texels::Indexed(indices, palette)),
        _ => return None,
    };
    (p.prim.uvs.len() == p.positions.len()
        && Some(pixels.len())
            == u64::from(width)
                .checked_mul(u64::from(height))
                .and_then(|n| usize::try_from(n).ok())
        && width > 0
        && height > 0)
        .then_some(Texture {
            width,
            height,
            pixels,
            clamp,
        })
}

impl Texture<'_> {
    /// Nearest texel at `uv` (wrapping or clamped), as linear-ish `[0, 1]` RGBA.
    fn sample(&self, [u, v]: [f32; 2]) -> [f32; 4] {
        let clamp = self.clamp;
        let wrap = |t: f32| {
            if !t.is_finite() {
                0.0
            } else if clamp {
                t.clamp(0.0, 1.0)
            } else {
                t - libm::floorf(t)
            }
        };
        let x = u32_of(wrap(u) * f32_of(self.width)).min(self.width.saturating_sub(1));
        let y = u32_of(wrap(v) * f32_of(self.height)).min(self.height.saturating_sub(1));
        let at = u64::from(y)
            .checked_mul(u64::from(self.width))
            .and_then(|r| r.checked_add(u64::from(x)))
            .and_then(|i| usize::try_from(i).ok());
        match at.and_then(|i| self.pixels.get(i)) {
            Some(rgba) => rgba.map(|c| f32::from(c) / 255.0),
            None => [1.0, 0.0, 1.0, 1.0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Primitive;

    /// A unit cube, clockwise front faces (id winding), per-face normals and UVs.
    fn cube() -> Primitive {
        let mut p = Primitive::default();
        let c = idmodel_test_support::cube();
        (p.positions, p.normals, p.uvs, p.indices) = (c.positions, c.normals, c.uvs, c.indices);
        p
    }

    /// A UV sphere of radius 10 around (5, 5, 5).
    fn sphere() -> Primitive {
        let mut p = Primitive::default();
        let (rings, segs) = (16u32, 32u32);
        for r in 0..=rings {
            let th = core::f32::consts::PI * f32_of(r) / f32_of(rings);
            for s in 0..=segs {
                let ph = 2.0 * core::f32::consts::PI * f32_of(s) / f32_of(segs);
                let n = [
                    libm::sinf(th) * libm::cosf(ph),
                    libm::sinf(th) * libm::sinf(ph),
                    libm::cosf(th),
                ];
                p.positions.push(add([5.0; 3], scale(n, 10.0)));
                p.normals.push(n);
                p.uvs
                    .push([f32_of(s) / f32_of(segs), f32_of(r) / f32_of(rings)]);
            }
        }
        for r in 0..rings {
            for s in 0..segs {
                let a = r * (segs + 1) + s;
                let b = a + segs + 1;
                p.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
            }
        }
        p
    }

    fn coverage(pic: &Picture, bg: [u8; 4]) -> f64 {
        let covered = pic.rgba.chunks(4).filter(|px| *px != bg).count();
        covered as f64 / (pic.width * pic.height) as f64
    }

    /// A still scene of `prims` with `materials`.
    fn still(prims: Vec<Primitive>, materials: Vec<Material>) -> Scene {
        Scene::still("test", prims, materials)
    }

    #[test]
    fn cube_and_sphere_render_to_plausible_pictures() {
        let checker = Image::Rgba8 {
            width: 2,
            height: 2,
            pixels: vec![
                255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 0, 255,
            ],
        };
        for (name, prim, size) in [
            ("cube", cube(), (320, 200)),
            ("sphere", sphere(), (128, 128)),
            ("tall", cube(), (64, 300)),
        ] {
            let mut prim = prim;
            prim.material = Some(0);
            let mesh = still(
                vec![prim],
                vec![Material::new("checker", Some(checker.clone()))],
            );
            let opts = RenderOptions {
                width: size.0,
                height: size.1,
                ..RenderOptions::default()
            };
            let pic = render(&mesh, &opts).unwrap();
            let cov = coverage(&pic, opts.background);
            assert!((0.05..=0.8).contains(&cov), "{name}: coverage {cov}");
            // The PNG of these pictures is checked by the command's tests (PNG encoding
            // is the caller's).
            assert_eq!((pic.width, pic.height), size, "{name}");
            assert_eq!(pic.rgba.len(), (size.0 * size.1 * 4) as usize, "{name}");
            // Lit faces differ: more than one colour is drawn.
            let mut colours: Vec<&[u8]> = pic.rgba.chunks(4).collect();
            colours.sort();
            colours.dedup();
            assert!(colours.len() > 3, "{name}: {} colours", colours.len());
        }
    }

    /// A solid `rgba` 2×2 image.
    fn solid(rgba: [u8; 4]) -> Image {
        Image::Rgba8 {
            width: 2,
            height: 2,
            pixels: rgba.repeat(4),
        }
    }

    fn has_colour(pic: &Picture, pred: impl Fn(&[u8]) -> bool) -> bool {
        pic.rgba.chunks(4).any(pred)
    }

    #[test]
    fn textures_give_their_colours_masks_cut_and_emissive_adds() {
        let opts = RenderOptions {
            width: 64,
            height: 64,
            ..RenderOptions::default()
        };
        let draw = |m: Material| {
            let mut prim = cube();
            prim.material = Some(0);
            render(&still(vec![prim], vec![m]), &opts).unwrap()
        };
        // A red texture: red pixels, no grey ones.
        let red = draw(Material::new("red", Some(solid([255, 0, 0, 255]))));
        assert!(has_colour(&red, |p| p[0] > 100 && p[1] < 10 && p[2] < 10));
        assert!(!has_colour(&red, |p| p[1] > 30 && p != opts.background));
        // Alpha below the MASK cutoff: nothing drawn; above it: drawn.
        let mut cut = Material::new("cut", Some(solid([0, 255, 0, 100])));
        cut.alpha = AlphaMode::Mask(0.5);
        assert_eq!(coverage(&draw(cut.clone()), opts.background), 0.0);
        cut.alpha = AlphaMode::Mask(0.2);
        assert!(coverage(&draw(cut), opts.background) > 0.05);
        // Emissive light is added after lighting: a black base with a blue glow is blue.
        let mut glow = Material::new("glow", Some(solid([0, 0, 0, 255])));
        glow.emissive = Some(solid([0, 0, 200, 255]));
        glow.emissive_factor = [1.0; 3];
        let pic = draw(glow);
        assert!(has_colour(&pic, |p| p[2] >= 199 && p[0] == 0));
        // An encoded image is not decoded here: the part is drawn untextured.
        let enc = Material::new(
            "png",
            Some(Image::Encoded {
                mime: crate::Mime::Png,
                bytes: vec![1, 2, 3],
            }),
        );
        let pic = draw(enc);
        assert!(!has_colour(&pic, |p| p[0] != p[1] && p != opts.background));
    }

    #[test]
    fn indexed_textures_draw_as_their_colours() {
        let opts = RenderOptions {
            width: 48,
            height: 48,
            ..RenderOptions::default()
        };
        let mut palette = alloc::boxed::Box::new([[0u8, 0, 0, 255]; 256]);
        for (i, c) in palette.iter_mut().enumerate() {
            *c = [i as u8, 255 - i as u8, (i * 7) as u8, 255];
        }
        let indices: Vec<u8> = (0..64u32).map(|i| (i * 37 % 251) as u8).collect();
        let indexed = Image::Indexed8 {
            width: 8,
            height: 8,
            palette,
            indices,
        };
        let draw = |image: Image| {
            let mut prim = cube();
            prim.material = Some(0);
            render(
                &still(vec![prim], vec![Material::new("t", Some(image))]),
                &opts,
            )
            .unwrap()
        };
        let a = draw(indexed.clone());
        let b = draw(indexed.clone().to_rgba8());
        assert_eq!(a.rgba, b.rgba);
        assert!(has_colour(&a, |p| p[0] != p[1]), "textured");
        // Fewer indices than width × height: drawn untextured, like such an RGBA image.
        let Image::Indexed8 {
            palette, indices, ..
        } = indexed
        else {
            unreachable!()
        };
        let short = Image::Indexed8 {
            width: 9,
            height: 8,
            palette,
            indices,
        };
        let c = draw(short.clone());
        assert_eq!(c.rgba, draw(short.to_rgba8()).rgba);
        assert!(!has_colour(&c, |p| p[0] != p[1] && p != opts.background));
    }

    #[test]
    fn clamped_textures_stretch_the_edge() {
        // UVs 0..2 over a 2×1 image, left red, right green: repeating shows red again on
        // the far half, clamping keeps green.
        let img = Image::Rgba8 {
            width: 2,
            height: 1,
            pixels: vec![255, 0, 0, 255, 0, 255, 0, 255],
        };
        let tex = |wrap| {
            let mut m = Material::new("t", Some(img.clone()));
            m.wrap = wrap;
            m
        };
        let clamp = Texture {
            width: 2,
            height: 1,
            pixels: match &img {
                Image::Rgba8 { pixels, .. } => Texels::Rgba(pixels),
                _ => unreachable!(),
            },
            clamp: true,
        };
        assert_eq!(clamp.sample([1.8, 0.5]), [0.0, 1.0, 0.0, 1.0]);
        let repeat = Texture {
            clamp: false,
            ..clamp
        };
        assert_eq!(repeat.sample([1.2, 0.5]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(tex(Wrap::Clamp).wrap, Wrap::Clamp);
    }

    #[test]
    fn degenerate_inputs_give_errors_or_pictures_never_panics() {
        let opts = RenderOptions::default();
        assert!(render(&Scene::default(), &opts).is_err());
        let mut flat = cube();
        for p in &mut flat.positions {
            *p = [1.0, 1.0, 1.0];
        }
        let mesh = still(vec![flat], Vec::new());
        let pic = render(&mesh, &opts).unwrap();
        assert_eq!(coverage(&pic, opts.background), 0.0);
        let mut nan = cube();
        nan.positions[0][0] = f32::NAN;
        let mesh = still(vec![nan], Vec::new());
        assert!(render(&mesh, &opts).is_err());
        let huge = RenderOptions {
            width: MAX_SIDE + 1,
            ..opts
        };
        assert!(render(&Scene::default(), &huge).is_err());
        // Far-apart values stay finite.
        let mut big = cube();
        for p in &mut big.positions {
            *p = scale(*p, 1e30);
        }
        let mesh = still(vec![big], Vec::new());
        let _ = render(&mesh, &opts);
    }

    #[test]
    fn yaw_turns_the_view_and_bounds_fix_the_framing() {
        let scene = still(vec![cube()], Vec::new());
        let base = RenderOptions {
            width: 48,
            height: 48,
            ..RenderOptions::default()
        };
        let still_pic = render(&scene, &base).unwrap();
        let zero = RenderOptions { yaw: 0.0, ..base };
        assert_eq!(render(&scene, &zero).unwrap(), still_pic);
        let turned = RenderOptions { yaw: 0.6, ..base };
        assert_ne!(render(&scene, &turned).unwrap(), still_pic);
        let full = RenderOptions {
            yaw: core::f32::consts::TAU,
            ..base
        };
        let back = render(&scene, &full).unwrap();
        let same = back
            .rgba
            .iter()
            .zip(&still_pic.rgba)
            .filter(|(a, b)| a == b)
            .count();
        assert!(
            same * 100 >= still_pic.rgba.len() * 95,
            "a full turn looks alike"
        );
        let drawn = drawn_bounds(&scene).unwrap();
        let own = RenderOptions {
            bounds: Some(drawn),
            ..base
        };
        assert_eq!(render(&scene, &own).unwrap(), still_pic);
        let (lo, hi) = drawn;
        let wide = RenderOptions {
            bounds: Some((scale(lo, 4.0), scale(hi, 4.0))),
            ..base
        };
        let small = render(&scene, &wide).unwrap();
        assert!(coverage(&small, base.background) < coverage(&still_pic, base.background) * 0.5);
        let nan = RenderOptions {
            yaw: f32::NAN,
            ..base
        };
        assert!(render(&scene, &nan).is_err());
    }
}

#[cfg(test)]
mod scene_tests {
    use super::*;
    use crate::{Mesh, Node, Primitive};

    /// A node's transform moves what is drawn: a triangle far off-centre behind a
    /// translated node gives the same picture as the same triangle moved by hand.
    #[test]
    fn node_transforms_place_the_mesh() {
        let tri = |dx: f32| Primitive {
            positions: vec![[dx, -1.0, 0.0], [dx, 1.0, 0.0], [dx, 0.0, 1.0]],
            normals: vec![[1.0, 0.0, 0.0]; 3],
            indices: vec![0, 1, 2, 0, 2, 1],
            ..Primitive::default()
        };
        let mut node = Node::new("moved");
        node.translation = [5.0, 0.0, 0.0];
        node.mesh = Some(0);
        // A second, empty root draws nothing but shifts nothing either.
        let moved = Scene {
            meshes: vec![Mesh {
                primitives: vec![tri(0.0), tri(-2.0)],
                ..Mesh::default()
            }],
            nodes: vec![Node::new("root"), node],
            ..Scene::default()
        };
        let by_hand = Scene::still("by hand", vec![tri(5.0), tri(3.0)], Vec::new());
        let opts = RenderOptions {
            width: 40,
            height: 30,
            ..RenderOptions::default()
        };
        assert_eq!(render(&moved, &opts), render(&by_hand, &opts));
        // A mesh no node draws is not drawn.
        let orphan = Scene {
            meshes: moved.meshes.clone(),
            ..Scene::default()
        };
        assert!(render(&orphan, &opts).is_err());
    }
}
