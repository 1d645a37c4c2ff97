//! `.pk3` / `.pk4` (zip): see `archive_walk`.

/// Runs the target on one input; panics on a finding. (Without the `assets` feature,
/// as when `tests/sweeps.rs` includes this file, it does nothing.)
pub fn run(data: &[u8]) {
    #[cfg(feature = "assets")]
    {
        use idmodel_assets::Profile;
        if data.starts_with(b"PACK") {
            return;
        }
        super::archive_walk::walk(data, &[Profile::Ioq3, Profile::Doom3]);
    }
    #[cfg(not(feature = "assets"))]
    let _ = data;
}
