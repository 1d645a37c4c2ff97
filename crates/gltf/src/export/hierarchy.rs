//! The node graph checked ([`check_graph`]: references in range, one parent each, no
//! cycle), its roots, and node rotations made unit.

use alloc::vec;
use alloc::vec::Vec;

use super::Result;
use crate::error::invalid;
use idmodel_scene::Scene;

/// Per-node facts gathered while checking the graph.
pub(super) struct Graph {
    pub(super) parent: Vec<Option<usize>>,
}

pub(super) fn check_graph(scene: &Scene) -> Result<Graph> {
    let n = scene.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            let slot = parent
                .get_mut(c)
                .ok_or_else(|| invalid!("node {i} ({:?}): child {c} out of range", node.name))?;
            if slot.is_some() || c == i {
                return Err(invalid!(
                    "node {c} has more than one parent (or is its own child)"
                ));
            }
            *slot = Some(i);
        }
        let check = |what: &str, idx: Option<usize>, len: usize| match idx {
            Some(k) if k >= len => Err(invalid!(
                "node {i} ({:?}): {what} {k} out of range (have {len})",
                node.name
            )),
            _ => Ok(()),
        };
        check("mesh", node.mesh, scene.meshes.len())?;
        check("skin", node.skin, scene.skins.len())?;
        check("camera", node.camera, scene.cameras.len())?;
        if node.skin.is_some() && node.mesh.is_none() {
            return Err(invalid!(
                "node {i} ({:?}) has a skin but no mesh",
                node.name
            ));
        }
        let trs = [node.translation, node.scale];
        if trs
            .iter()
            .flatten()
            .chain(&node.rotation)
            .any(|f| !f.is_finite())
        {
            return Err(invalid!("node {i} ({:?}): non-finite transform", node.name));
        }
    }
    // Cycles: every walk up the parent links must end within n steps.
    if let Some(start) = crate::graph::in_cycle(&parent) {
        return Err(invalid!("node {start} is part of a cycle"));
    }
    Ok(Graph { parent })
}

/// The topmost ancestor of `node`.
pub(super) fn root_of(graph: &Graph, node: usize) -> usize {
    let mut at = node;
    while let Some(p) = graph.parent.get(at).copied().flatten() {
        at = p;
    }
    at
}

pub(super) fn unit_quat(q: [f32; 4]) -> [f32; 4] {
    let len = libm::sqrtf(q.iter().map(|c| c * c).sum());
    if len.is_finite() && len > 1e-12 {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
