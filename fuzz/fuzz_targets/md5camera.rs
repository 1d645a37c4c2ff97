#![no_main]
//! md5camera: parsing never panics; whatever parses has its cuts and frames walked and
//! is sampled at many times, never blending a cut frame forward when cuts ascend; the
//! lexer always makes progress.

use idmodel::md5::Profile;
use idmodel::md5::camera::{self, Camera};
use idmodel::md5::lexer::{CommentRule, Lexer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut lex = Lexer::new(data, false, CommentRule::Engine);
    let mut last = 0usize;
    while let Ok(Some(_)) = lex.next_token() {
        assert!(lex.pos() > last, "no progress at byte {last}");
        last = lex.pos();
    }
    let Ok(file) = camera::parse(data) else {
        return;
    };
    let _ = file.findings(Profile::Doom3);
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
});
