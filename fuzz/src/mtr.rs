//! Doom 3 `.mtr` files (`idmodel_assets::textures::mtr`): the decl walk makes progress and
//! every material, stage and image program (node, arguments, first image) is walked.

#[cfg(feature = "assets")]
use idmodel_assets::textures::mtr::{Arg, ImageProgram, MaterialText, Node};

#[cfg(feature = "assets")]
fn walk(p: ImageProgram<'_>, depth: usize) {
    assert!(depth <= idmodel_assets::textures::mtr::MAX_PROGRAM_DEPTH + 1);
    let _ = (p.text(), p.first_image(), p.is_generated());
    if let Node::Call { args, .. } = p.node() {
        for a in args.take(64) {
            if let Arg::Program(q) = a {
                walk(q, depth + 1);
            }
        }
    }
}

/// Runs the target on one input; panics on a finding. (Without the `assets` feature,
/// as when `tests/sweeps.rs` includes this file, it does nothing.)
pub fn run(data: &[u8]) {
    #[cfg(feature = "assets")]
    {
        let text = MaterialText::new(data);
        let mut n = 0usize;
        for d in text.decls() {
            n += 1;
            assert!(n <= data.len() + 1, "the decl walk does not make progress");
            let Ok(d) = d else {
                let _ = d.map_err(|e| e.to_string());
                continue;
            };
            let Ok(m) = d.material() else { continue };
            for s in m.stages() {
                if let Some(p) = s.map {
                    walk(p, 0);
                }
            }
            let g = m.gltf();
            for p in [g.base_color, g.normal, g.specular, m.editor_image]
                .into_iter()
                .flatten()
            {
                walk(p, 0);
            }
            let _ = text.find(d.name);
        }
    }
    #[cfg(not(feature = "assets"))]
    let _ = data;
}
