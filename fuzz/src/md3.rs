//! MD3: parse, then walk every accessor, decode every frame (both normal decodes, lerped),
//! every tag, and run every check. Nothing may panic.

use idmodel::md3::{ENGINES, Md3, NormalDecode};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(m) = Md3::parse(data) else {
        return;
    };
    let _ = (
        m.name().to_string(),
        m.flags(),
        m.num_skins(),
        m.trailing_bytes().len(),
    );
    for f in m.frames() {
        let _ = (
            f.mins(),
            f.maxs(),
            f.local_origin(),
            f.radius(),
            f.name().to_string(),
        );
    }
    let frames = m.num_frames();
    for s in m.surfaces() {
        let n = s.num_verts();
        let _ = (
            s.name().to_string(),
            s.engine_name().to_string(),
            s.offset(),
        );
        for sh in s.shaders() {
            let _ = sh.name().to_string();
        }
        for tri in s.indices() {
            assert!(tri.iter().all(|&i| (i as usize) < n));
        }
        assert_eq!(s.tex_coords().count(), n);
        let mut p = vec![[0.0f32; 3]; n];
        let mut nr = vec![[0.0f32; 3]; n];
        for f in 0..s.num_frames() {
            s.decode_frame(f, NormalDecode::Exact, &mut p, &mut nr)
                .unwrap();
            s.lerp_into(f, 0, 0.25, NormalDecode::Exact, &mut p, &mut nr)
                .unwrap();
            s.lerp_into(0, f, 0.75, NormalDecode::Ideal, &mut p, &mut nr)
                .unwrap();
            assert_eq!(s.positions(f).unwrap().count(), n);
            assert_eq!(s.normals(f, NormalDecode::Ideal).unwrap().count(), n);
        }
        let (a, b) = m.engine_frames(frames, 0);
        assert_eq!((a, b), (0, 0));
    }
    for t in m.all_tags() {
        for f in 0..frames {
            let _ = m.lerp_tag(t.name().as_bytes(), f, frames, 0.5);
        }
    }
    for p in ENGINES {
        m.check(*p, &mut |f| {
            let _ = f.to_string();
        });
    }
}
