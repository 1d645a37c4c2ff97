//! Quake II's GL command list as the way back builds it (`build_gl_commands`, what
//! `--engine quake2` writes into a model that has none): for any model that parses, with
//! the commands built, the written file parses strictly, its command walk (the one Quake
//! II's GL renderer makes over every frame) stays inside the list and the vertex and
//! texture coordinate counts, and the commands draw exactly the file's triangles with
//! their winding (no `GlMismatch` finding).

use idmodel::md2::{Engine, FindingKind, Md2, Model, write};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(md2) = Md2::parse(data) else {
        return;
    };
    let model = Model {
        gl_commands: true,
        ..Model::from(md2)
    };
    let Ok(bytes) = write(&model) else {
        return;
    };
    let again = Md2::parse_strict(&bytes).expect("a file with built GL commands parses strictly");
    assert!(
        model.triangles.is_empty() || again.has_gl_commands(),
        "no GL commands were built for {} triangles",
        model.triangles.len()
    );
    assert!(
        again.gl_commands_checked().is_ok(),
        "the GL command walk leaves the list"
    );
    assert!(
        !again
            .findings(Engine::Quake2)
            .iter()
            .any(|f| matches!(f.kind, FindingKind::GlMismatch { .. })),
        "the built GL commands do not draw the triangles"
    );
}
