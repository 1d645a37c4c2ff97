//! The axis and winding conventions every consumer of a [`Scene`](crate::Scene) chooses
//! among (the glTF writer, the OBJ writer), and the camera field-of-view conversion.
//!
//! They live here rather than in `idmodel-gltf` so that no_std consumers (the OBJ
//! writer, a browser viewer) get them without the glTF writer.

/// Which axes a written file uses.
///
/// The id formats are Z-up and their models face **+X** (yaw 0 in Quake and Doom 3).
/// glTF is Y-up and "the front of a glTF asset faces +Z" (glTF 2.0 §3.4). The default,
/// [`Axes::YUp`], is the rotation that honours both:
///
/// ```text
/// (x, y, z) in the file  →  (y, z, x) in glTF
/// file +X (forward) → glTF +Z (front)   file +Y (left) → glTF +X (left)
/// file +Z (up)      → glTF +Y (up)
/// ```
///
/// It is a proper rotation (a cyclic permutation, determinant +1), so it never changes
/// triangle winding or handedness: quaternions `[x, y, z, w]` become `[y, z, x, w]` and
/// matrices `M` become `P·M·Pᵀ`. Blender's glTF importer then shows the model upright and
/// facing its front view (−Y), Godot shows it facing `MODEL_FRONT` (+Z). Units are never
/// changed.
///
/// ```
/// use idmodel_scene::axes::Axes;
/// assert_eq!(Axes::YUp.point([1.0, 2.0, 3.0]), [2.0, 3.0, 1.0]);
/// assert_eq!(Axes::Keep.point([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Axes {
    /// Convert to glTF's Y-up, +Z-front axes: `(x, y, z) → (y, z, x)`.
    #[default]
    YUp,
    /// Keep the file's axes (the model lies on its back in a Y-up viewer).
    Keep,
}

impl Axes {
    /// Converts a point, direction or displacement.
    pub const fn point(self, [x, y, z]: [f32; 3]) -> [f32; 3] {
        match self {
            Axes::YUp => [y, z, x],
            Axes::Keep => [x, y, z],
        }
    }

    /// Converts a scale vector (the same permutation as a point).
    pub const fn scale(self, s: [f32; 3]) -> [f32; 3] {
        self.point(s)
    }

    /// Converts a rotation quaternion `[x, y, z, w]`.
    pub const fn quat(self, [x, y, z, w]: [f32; 4]) -> [f32; 4] {
        let [a, b, c] = self.point([x, y, z]);
        [a, b, c, w]
    }

    /// Converts a column-major 4×4 affine matrix: `P·M·Pᵀ`.
    #[rustfmt::skip] // one line per matrix column
    pub const fn mat4(self, m: [f32; 16]) -> [f32; 16] {
        let [
            a00, a10, a20, a30, // column 0
            a01, a11, a21, a31, // column 1
            a02, a12, a22, a32, // column 2
            a03, a13, a23, a33, // column 3
        ] = m;
        match self {
            Axes::Keep => m,
            // M'[i][j] = M[p(i)][p(j)] with p = (1, 2, 0): column j of M' is column p(j)
            // of M with its first three rows permuted the same way.
            Axes::YUp => [
                a11, a21, a01, a31, // column 0 ← column 1
                a12, a22, a02, a32, // column 1 ← column 2
                a10, a20, a00, a30, // column 2 ← column 0
                a13, a23, a03, a33, // translation
            ],
        }
    }
}

/// Which triangle winding the IR holds, and so whether a writer flips it.
///
/// glTF draws counter-clockwise triangles as front faces. The id games draw the
/// **clockwise** ones: GLQuake and Quake II cull `GL_FRONT` with the default CCW front
/// face (docs/formats.md §1.3.4, §2.3), Quake III culls `GL_FRONT` for its default
/// shaders (§3.3), Doom 3 computes `n = (c−a)×(b−a)` and culls `GL_FRONT` (§4.6). So with
/// [`Winding::Clockwise`] (the default, right for every id format) a writer writes
/// each triangle `(a, b, c)` as `(a, c, b)`: the same faces are front faces in glTF and
/// their geometric normals agree with the file's vertex normals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Winding {
    /// The IR's front faces are clockwise (id): a writer swaps the 2nd and 3rd index.
    #[default]
    Clockwise,
    /// The IR's front faces are already counter-clockwise: indices are written unchanged.
    CounterClockwise,
}

impl Winding {
    /// The triangle as glTF should store it.
    pub const fn triangle(self, [a, b, c]: [u32; 3]) -> [u32; 3] {
        match self {
            Winding::Clockwise => [a, c, b],
            Winding::CounterClockwise => [a, b, c],
        }
    }
}

/// The vertical field of view, in radians, of a camera whose horizontal field of view is
/// `xfov_degrees` on a `width / height = aspect` screen: `2·atan(tan(xfov/2) / aspect)`.
///
/// Doom 3's md5camera stores the horizontal fov in degrees; glTF wants `yfov` in radians.
///
/// ```
/// let y = idmodel_scene::axes::yfov_from_xfov(90.0, 4.0 / 3.0);
/// assert!((y.to_degrees() - 73.739_8).abs() < 1e-3);
/// ```
pub fn yfov_from_xfov(xfov_degrees: f32, aspect: f32) -> f32 {
    let half = xfov_degrees.to_radians() * 0.5;
    2.0 * libm::atanf(libm::tanf(half) / aspect)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matrix rule agrees with converting the points a matrix moves.
    #[test]
    fn mat4_matches_point_conversion() {
        // A rotation of 90° about file Z, then a translation (1, 2, 3), column-major.
        let m = [
            0.0, 1.0, 0.0, 0.0, //
            -1.0, 0.0, 0.0, 0.0, //
            0.0, 0.0, 1.0, 0.0, //
            1.0, 2.0, 3.0, 1.0,
        ];
        let apply = |m: &[f32; 16], p: [f32; 3]| {
            let mut out = [0.0f32; 3];
            for (r, o) in out.iter_mut().enumerate() {
                *o = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
            }
            out
        };
        let p = [0.5, -2.0, 7.0];
        for axes in [Axes::YUp, Axes::Keep] {
            assert_eq!(
                apply(&axes.mat4(m), axes.point(p)),
                axes.point(apply(&m, p))
            );
        }
    }

    #[test]
    fn winding_flip() {
        assert_eq!(Winding::Clockwise.triangle([1, 2, 3]), [1, 3, 2]);
        assert_eq!(Winding::CounterClockwise.triangle([1, 2, 3]), [1, 2, 3]);
    }
}
