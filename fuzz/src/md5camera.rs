//! md5camera: parsing never panics; whatever parses has its cuts and frames walked and
//! is sampled at many times, never blending a cut frame forward when cuts ascend; the
//! lexer always makes progress.

use idmodel::md5::Engine;
use idmodel::md5::camera::{self, Camera};
use idmodel::md5::lexer::CommentRule;

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    super::md5mesh::progress(data, false, CommentRule::Engine);
    let Ok(file) = camera::parse(data) else {
        return;
    };
    let _ = file.findings(Engine::Doom3);
    assert_eq!(file.cuts().count(), file.num_cuts());
    assert_eq!(file.frames().count(), file.num_frames());
    let c = Camera::from(&file);
    let ascending = c.cuts.windows(2).all(|w| w[0] <= w[1]);
    for t in [-5i64, 0, 1, 33, 500, 1001, 60_000, i64::MAX] {
        let s = c.sample(t);
        assert!(s.frame < c.frames.len() && s.next < c.frames.len());
        if ascending && s.lerp > 0.0 {
            assert!(!c.cuts.contains(&(s.frame as u32)));
        }
    }
    let _ = c.duration_ms();
}
