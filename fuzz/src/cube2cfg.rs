//! Cube 2 `md5.cfg` / `md3.cfg`: statements make progress; every word, number and
//! command is read.

use idmodel::md5::cube2::{Cfg, texture_file};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let mut n = 0usize;
    for s in Cfg::new(data).statements() {
        n += 1;
        assert!(
            n <= data.len() + 1,
            "the statement walk does not make progress"
        );
        let Ok(s) = s else { continue };
        assert!(s.args().count() < idmodel::md5::cube2::MAX_WORDS);
        for w in s.args() {
            let _ = (
                w.int(),
                w.float(),
                texture_file(w.raw),
                w.unescaped().count(),
            );
        }
        let _ = s.command();
    }
}
