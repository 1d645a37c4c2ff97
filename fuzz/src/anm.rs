//! UFO:AI `.anm` clip tables: every entry, its clip, rate and check.

use idmodel::md2::Anm;

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(anm) = Anm::parse(data) else { return };
    assert!(anm.len() <= idmodel::md2::anm::MAX_ANIMS);
    let mut n = 0usize;
    for e in anm.entries() {
        n += 1;
        assert!(e.name.as_bytes().len() < idmodel::md2::anm::MAX_ANIMNAME);
        let rate = e.rate();
        assert!(rate.is_finite() && rate > 0.0, "{rate}");
        if let Some(c) = e.clip() {
            assert!(c.frames.start < c.frames.end);
        }
        let _ = (e.check(0), e.check(1000), e.frame_time_ms());
    }
    assert_eq!(n, anm.len());
}
