//! Quake MDL: parse, then walk every accessor, decode every pose and skin, run every
//! engine check and build the welded mesh under both seam rules. Nothing may panic.

use idmodel::mdl::{
    AnimRule, ENGINES, Mdl, SeamRule, SkinOptions, fullbright_mask, skin_to_rgba_vec,
};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(m) = Mdl::parse(data) else {
        return;
    };
    let _ = (
        m.scale(),
        m.origin(),
        m.eye_position(),
        m.size(),
        m.flags().trail(),
        m.trailing().len(),
    );
    let _ = m.triangle_indices().count();
    let opts = SkinOptions {
        transparent_255: m.flags().holey(),
        ..SkinOptions::default()
    };
    for skin in m.skins() {
        let _ = skin.intervals().count();
        for rule in [AnimRule::Software, AnimRule::Gl] {
            let _ = skin.image_at(2.5, 0.3, rule);
        }
        for image in skin.images() {
            let rgba = skin_to_rgba_vec(image, &opts);
            assert_eq!(rgba.len(), image.len() * 4);
            let mut mask = vec![0u8; image.len()];
            fullbright_mask(image, &mut mask);
        }
    }
    for frame in m.frames() {
        let _ = (frame.name(), frame.bbox_min(), frame.bbox_max());
        for rule in [AnimRule::Software, AnimRule::Gl] {
            if let Some(p) = frame.pose_at(7.1, 0.4, rule) {
                assert!(p < frame.pose_count());
            }
        }
    }
    let mut poses = 0usize;
    for pose in m.poses() {
        let _ = (pose.name().to_str(), pose.bbox_min(), pose.bbox_max());
        assert_eq!(pose.positions().count(), m.vertex_count());
        let _ = pose.normals().count();
        poses += 1;
    }
    assert_eq!(poses, m.pose_count());
    for i in [0, m.pose_count() / 2, m.pose_count().saturating_sub(1)] {
        assert!(m.pose(i).is_some());
    }
    for rule in [SeamRule::Gl, SeamRule::Software] {
        let _ = m.triangle_uvs(rule).count();
        let mesh = m.welded_mesh(rule);
        assert!(
            mesh.indices
                .iter()
                .all(|&i| (i as usize) < mesh.vertices.len())
        );
        if let Some(p) = m.pose(0) {
            let _ = mesh.positions(&p);
            let _ = mesh.normals(&p);
        }
    }
    for p in ENGINES {
        m.check(*p, &mut |f| {
            let _ = f.to_string();
        });
    }
    let _ = m.animations().count();
}
