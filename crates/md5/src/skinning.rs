//! Skinning: vertex positions from weights and joint matrices, as Doom 3 computes them
//! (`idSIMD_Generic::TransformVerts`, docs/formats.md §4.2).
//!
//! Doom pre-multiplies each weight: `(offset · bias, bias)`, then sums
//! `joint × (offset · bias, bias)` over a vertex's weights, first weight first. The joint
//! matrices are **model-space**: the md5mesh bind pose ([`crate::mesh::MeshFile::bind_pose`])
//! or an evaluated animation pose ([`crate::pose::model_space`]). There are no
//! inverse-bind matrices.
//!
//! ```
//! use idmodel_core::quat::{JointMat, IDENTITY};
//! use idmodel_md5::mesh::{Vertex, Weight};
//! use idmodel_md5::skinning::skin;
//! // Two half weights at heights 0 and 10 on an unrotated joint at the origin → height 5.
//! let joints = [JointMat::from_quat(IDENTITY, [0.0; 3])];
//! let weights = [
//!     Weight { joint: 0, bias: 0.5, position: [0.0, 0.0, 0.0] },
//!     Weight { joint: 0, bias: 0.5, position: [0.0, 0.0, 10.0] },
//! ];
//! let vertices = [Vertex { uv: [0.0; 2], first_weight: 0, weight_count: 2 }];
//! let mut out = [[0.0; 3]];
//! skin(&vertices, &weights, &joints, &mut out);
//! assert_eq!(out[0], [0.0, 0.0, 5.0]);
//! ```

use idmodel_core::quat::{JointMat, Vec3};

use crate::types::{Vertex, Weight};

/// One vertex from its weights. Weights whose joint is outside `joints` are skipped.
pub fn skin_vertex(weights: impl Iterator<Item = Weight>, joints: &[JointMat]) -> Vec3 {
    let mut sum: Option<Vec3> = None;
    for w in weights {
        let Some(j) = usize::try_from(w.joint).ok().and_then(|i| joints.get(i)) else {
            continue;
        };
        let b = w.bias;
        let p = j.transform4([w.position[0] * b, w.position[1] * b, w.position[2] * b, b]);
        sum = Some(match sum {
            None => p,
            Some(s) => [s[0] + p[0], s[1] + p[1], s[2] + p[2]],
        });
    }
    sum.unwrap_or([0.0; 3])
}

/// Every vertex of a mesh into `out` (as many as both hold); no allocation. Returns how
/// many were written. Weight ranges outside `weights` contribute nothing.
pub fn skin(
    vertices: &[Vertex],
    weights: &[Weight],
    joints: &[JointMat],
    out: &mut [Vec3],
) -> usize {
    let mut n = 0usize;
    for (slot, v) in out.iter_mut().zip(vertices) {
        let ws = weights.get(v.weights()).unwrap_or(&[]);
        *slot = skin_vertex(ws.iter().copied(), joints);
        n = n.saturating_add(1);
    }
    n
}
