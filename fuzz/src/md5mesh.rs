//! md5mesh: parsing never panics, with either comment rule; whatever parses has every
//! accessor walked (joints, meshes, vertices, triangles, weights, skinning, findings);
//! and the lexer always makes progress (each token moves the position forward, so no
//! input can make it loop).

use idmodel::md5::lexer::{CommentRule, Lexer};
use idmodel::md5::{Engine, ParseOptions, mesh};
use idmodel_core::quat::JointMat;

/// The lexer makes progress on every token, in order, and stops within `data.len()`
/// tokens (the md5anim and md5camera targets run it too).
pub(crate) fn progress(data: &[u8], concat: bool, rule: CommentRule) {
    let mut lex = Lexer::new(data, concat, rule);
    let mut last = 0usize;
    let mut tokens = 0usize;
    while let Ok(Some(t)) = lex.next_token() {
        assert!(t.offset >= last, "token before the previous end");
        assert!(lex.pos() > last, "no progress at byte {last}");
        last = lex.pos();
        tokens += 1;
        assert!(tokens <= data.len(), "more tokens than bytes");
    }
}

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    progress(data, true, CommentRule::Engine);
    progress(data, true, CommentRule::Strict);
    for comments in [CommentRule::Engine, CommentRule::Strict] {
        let opts = ParseOptions {
            comments,
            require_element_indices: false,
        };
        let Ok(file) = mesh::parse_with(data, opts) else {
            continue;
        };
        let _ = file.findings(Engine::Doom3);
        let _ = file.commandline().to_string_lossy();
        let mut mats = vec![JointMat::IDENTITY; file.num_joints()];
        assert_eq!(file.bind_pose(&mut mats), file.num_joints());
        assert_eq!(file.joints().count(), file.num_joints());
        let mut n = 0;
        for m in file.meshes() {
            n += 1;
            let _ = (m.name(), m.shader().len());
            assert_eq!(m.vertices().count(), m.num_vertices());
            assert!(
                m.triangles()
                    .flatten()
                    .all(|v| (v as usize) < m.num_vertices())
            );
            assert!(m.weights().all(|w| (w.joint as usize) < file.num_joints()));
            let mut out = vec![[0.0; 3]; m.num_vertices()];
            assert_eq!(m.skin(&mats, &mut out), m.num_vertices());
        }
        assert_eq!(n, file.num_meshes());
        let owned = mesh::Model::from(&file);
        let _ = owned.findings(Engine::Doom3);
        for m in &owned.meshes {
            let positions: Vec<[f32; 3]> = {
                let mut out = vec![[0.0; 3]; m.vertices.len()];
                idmodel::md5::skinning::skin(&m.vertices, &m.weights, &mats, &mut out);
                out
            };
            let uv: Vec<[f32; 2]> = m.vertices.iter().map(|v| v.uv).collect();
            let setup = idmodel::md5::normals::DoomTangents::new(&positions, &uv, &m.triangles);
            let _ = setup.derive(&positions);
            let mut normals = vec![[0.0; 3]; positions.len()];
            idmodel::md5::normals::area_weighted_normals(&positions, &m.triangles, &mut normals);
        }
    }
}
