//! What parses converts to an owned model; when the writer accepts it, the written file
//! parses strictly, converts back to an equal model (bitwise, NaNs included) and writes
//! the same bytes again.

use idmodel::md2::{Engine, Md2, Model, write};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(md2) = Md2::parse(data) else {
        return;
    };
    let model = Model::from(md2);
    let Ok(bytes) = write(&model) else {
        return;
    };
    let again = Md2::parse_strict(&bytes).expect("written file parses strictly");
    assert!(
        !again
            .findings(Engine::Quake2)
            .iter()
            .any(|f| matches!(f.kind, idmodel::md2::FindingKind::GlMismatch { .. })),
        "generated GL commands disagree with the triangles"
    );
    let back = Model::from(again);
    assert_eq!(
        write(&back).ok(),
        Some(bytes.clone()),
        "second write differs"
    );
    assert_eq!(back.triangles, model.triangles);
    assert_eq!(back.st, model.st);
    assert_eq!(back.skins, model.skins);
    for (x, y) in back.frames.iter().zip(&model.frames) {
        assert_eq!(x.vertices, y.vertices);
        assert_eq!(x.name, y.name);
        assert_eq!(x.scale.map(f32::to_bits), y.scale.map(f32::to_bits));
        assert_eq!(x.translate.map(f32::to_bits), y.translate.map(f32::to_bits));
    }
}
