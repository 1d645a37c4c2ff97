//! MD2 parsing never panics, and on what parses every accessor, decoder and the checker
//! walk the whole model: every frame, both mesh topologies, the GL commands, findings.

use idmodel::md2::{Engine, Md2, MeshVertex, lerp_positions};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(md2) = Md2::parse(data) else {
        return;
    };
    let _ = Md2::parse_strict(data);
    let _ = md2.gl_commands_look_swapped();
    for s in md2.skins() {
        let _ = s.to_str();
    }
    let mut pos = vec![[0.0f32; 3]; md2.vertex_count()];
    let mut nrm = vec![[0.0f32; 3]; md2.vertex_count()];
    for f in md2.frames() {
        assert_eq!(f.positions_into(&mut pos).ok(), Some(md2.vertex_count()));
        assert_eq!(f.normals_into(&mut nrm).ok(), Some(md2.vertex_count()));
        let _ = f.name().to_str();
    }
    let a = md2.frame_or_first(0);
    let b = md2.frame_or_first(md2.frame_count().wrapping_sub(1));
    assert_eq!(lerp_positions(&a, &b, 0.5).count(), md2.vertex_count());
    for cmd in md2.gl_commands() {
        for t in 0..cmd.triangle_count() {
            let tri = cmd.triangle(t).unwrap_or([0; 3]);
            assert!(tri.iter().all(|&i| i < cmd.vertices.len()));
        }
    }
    let sizes = md2.soft_mesh_sizes();
    let mut verts = vec![MeshVertex::default(); sizes.vertices];
    let mut idx = vec![0u32; sizes.indices];
    if let Ok(n) = md2.soft_mesh_into(&mut verts, &mut idx) {
        assert!(idx.iter().all(|&i| usize::try_from(i).is_ok_and(|i| i < n)));
    }
    let gl = md2.gl_mesh();
    assert_eq!(gl.indices.len(), 3 * md2.gl_triangle_count());
    let _ = md2.animations().count();
    for f in md2.findings(Engine::Quake2) {
        let _ = f.to_string();
    }
}
