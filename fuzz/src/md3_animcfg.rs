//! `animation.cfg`: parsing, raw entries, the Quake III interpretation and the checks
//! never panic; the raw entry iterator makes progress.

use idmodel::md3::{AnimationCfg, Engine};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(cfg) = AnimationCfg::parse(data) else {
        return;
    };
    let _ = (
        cfg.footsteps(),
        cfg.gender(),
        cfg.head_offset(),
        cfg.fixed_legs(),
    );
    let n = cfg.raw_entries().count();
    assert!(
        n <= data.len() / 4 + 1,
        "the raw entry iterator does not make progress"
    );
    if let Ok(q3) = cfg.q3() {
        assert!((25..=31).contains(&q3.from_file()));
        for (id, a) in q3.iter() {
            assert_eq!(q3.by_name(id.name()), Some(a));
        }
    }
    cfg.check(Some((100, 100)), Engine::Ioq3, &mut |f| {
        let _ = f.to_string();
    });
}
