//! Quake III `.shader` scripts: the definition walk makes progress, every definition
//! parses (or fails with a positioned error), and every accessor and the glTF view run.

use idmodel::md3::shader::ShaderText;

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let text = ShaderText::new(data);
    let _ = text.validate_ioq3();
    let mut n = 0usize;
    for def in text.entries() {
        n += 1;
        assert!(
            n <= data.len() + 1,
            "the definition walk does not make progress"
        );
        let Ok(def) = def else { continue };
        let Ok(shader) = def.parse() else { continue };
        assert!(shader.stages().len() <= shader.num_stages());
        assert!(shader.surface_parms().len() <= shader.num_surface_parms());
        for s in shader.stages() {
            let _ = s.base_image();
        }
        let _ = (shader.base_stage(), shader.gltf());
        if let Some(f) = shader.failure.filter(|_| n <= 4) {
            let _ = (f.to_string(), f.line(), f.column());
        }
    }
}
