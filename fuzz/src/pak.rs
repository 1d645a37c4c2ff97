//! `.pak` (Quake, Quake II): see `archive_walk`.

/// Runs the target on one input; panics on a finding. (Without the `assets` feature,
/// as when `tests/sweeps.rs` includes this file, it does nothing.)
pub fn run(data: &[u8]) {
    #[cfg(feature = "assets")]
    {
        use idmodel_assets::Profile;
        let mut bytes = data.to_vec();
        super::archive_walk::walk(&bytes, &[Profile::Quake, Profile::Quake2]);
        // Most inputs fail the magic: try them as a pak too.
        if !bytes.starts_with(b"PACK") {
            bytes.splice(0..bytes.len().min(4), *b"PACK");
            super::archive_walk::walk(&bytes, &[Profile::Quake2]);
        }
    }
    #[cfg(not(feature = "assets"))]
    let _ = data;
}
