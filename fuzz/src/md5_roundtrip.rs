//! MD5 round trip: whatever parses as an md5mesh, md5anim or md5camera converts to the
//! owned form; if it is writable (no NaN or infinite values), the text parses back to
//! an equal model and writing that again gives the same bytes.

use idmodel::md5::{anim, camera, mesh};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    if let Ok(m) = mesh::Model::parse(data)
        && let Ok(text) = mesh::write(&m)
    {
        assert_eq!(mesh::written_size(&m).unwrap(), text.len());
        let back = mesh::Model::parse(&text).expect("written md5mesh parses");
        assert_eq!(back, m);
        assert_eq!(mesh::write(&back).unwrap(), text);
    }
    if let Ok(a) = anim::Anim::parse(data)
        && let Ok(text) = anim::write(&a)
    {
        let back = anim::Anim::parse(&text).expect("written md5anim parses");
        assert_eq!(back, a);
        assert_eq!(anim::write(&back).unwrap(), text);
    }
    if let Ok(c) = camera::Camera::parse(data)
        && let Ok(text) = camera::write(&c)
    {
        let back = camera::Camera::parse(&text).expect("written md5camera parses");
        assert_eq!(back, c);
        assert_eq!(camera::write(&back).unwrap(), text);
    }
}
