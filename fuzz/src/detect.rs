//! Format detection and the shared byte helpers never panic on any input.

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let _ = idmodel::detect(data);
    let _ = idmodel_core::bytes::Name::from_field(data).to_str();
    if data.len() >= 2 {
        let n = u16::from_le_bytes([data[0], data[1]]);
        let a = idmodel_core::md3_normal::decode_exact(n);
        let b = idmodel_core::md3_normal::encode(a);
        let _ = idmodel_core::md3_normal::decode_ideal(b);
    }
}
