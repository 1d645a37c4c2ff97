//! `.skin`: parsing and iterating never panic, the iterator makes progress and agrees with
//! the counts from `parse`, and the checks run.

use idmodel::md3::{ENGINES, Skin};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(skin) = Skin::parse(data) else {
        return;
    };
    let mut n = 0usize;
    for e in skin.entries() {
        n += 1;
        assert!(!e.name.is_empty());
        assert!(n <= data.len(), "the entry iterator does not make progress");
        let _ = e.matches(b"h_head");
    }
    assert_eq!(n, skin.num_surfaces() + skin.num_tags());
    for p in ENGINES {
        skin.check(None, *p, &mut |f| {
            let _ = f.to_string();
        });
        let _ = skin.shader_for(b"u_torso", *p);
    }
}
