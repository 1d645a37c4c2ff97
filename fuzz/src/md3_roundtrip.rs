//! MD3 round trip: whatever parses and the writer accepts is written, parsed again, and
//! written again to the same bytes (compared as bytes so NaN floats compare equal).

use idmodel::md3::{Md3, Model, write, written_size};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(m) = Md3::parse(data) else {
        return;
    };
    let owned = Model::from(m);
    let Ok(bytes) = write(&owned) else {
        return;
    };
    assert_eq!(written_size(&owned).unwrap(), bytes.len());
    let again = Md3::parse(&bytes).expect("the writer's output parses");
    assert_eq!(again.num_frames(), m.num_frames());
    assert_eq!(again.num_surfaces(), m.num_surfaces());
    let twice = write(&Model::from(again)).expect("a re-parsed model is writable");
    assert_eq!(twice, bytes);
}
