//! Quake MDL round trip: whatever parses converts to the owned model, writes back to the
//! same bytes (type words normalised to 0/1), and parses again to the same model.

use idmodel::mdl::{Mdl, Model};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Ok(m) = Mdl::parse(data) else {
        return;
    };
    let model = Model::from(&m);
    let bytes = model.write().expect("a parsed model is always writable");
    assert_eq!(bytes.len(), model.written_size().unwrap());
    let again = Mdl::parse(&bytes).expect("written bytes parse");
    let back = Model::from(&again);
    // Compare the written bytes: NaN intervals make `==` on floats unreliable.
    assert_eq!(back.write().unwrap(), bytes);
    let canonical = m.skins().all(|s| s.type_word() == 0 || s.type_word() == 1)
        && m.frames().all(|f| f.type_word() == 0 || f.type_word() == 1);
    if canonical {
        assert_eq!(&bytes[..], data);
    }
}
