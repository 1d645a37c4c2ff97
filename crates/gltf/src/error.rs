//! The exporter's error type.

use alloc::string::String;
use core::fmt;

/// Why a [`Scene`](idmodel_scene::Scene) could not be written.
///
/// The exporter refuses rather than write a file that the Khronos validator would reject;
/// the message names the object (`mesh 2 primitive 0 NORMAL`, `animation "run" channel
/// 3`, …) and the bad value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportError {
    /// The scene breaks a rule of the IR (an index out of range, a length mismatch, a
    /// non-finite number, a cycle in the node graph, …).
    Invalid(String),
    /// The output would exceed glTF's 32-bit sizes.
    TooLarge(&'static str),
    /// An embedded image could not be encoded as PNG.
    Image(String),
    /// The output would exceed the caller's budget
    /// ([`ExportOptions::max_bytes`](crate::ExportOptions::max_bytes)): `what` needs
    /// `need` bytes, over `limit`.
    OverBudget {
        /// What would be written (`the dense morph weights of animation 0 channel 0`).
        what: String,
        /// Bytes it needs.
        need: u64,
        /// The limit.
        limit: u64,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Invalid(m) => write!(f, "invalid scene: {m}"),
            ExportError::TooLarge(what) => write!(f, "too large for glTF: {what} exceeds 4 GiB"),
            ExportError::Image(m) => write!(f, "cannot encode image: {m}"),
            ExportError::OverBudget { what, need, limit } => write!(
                f,
                "{what} would need {}, over the {} limit (--max-output raises it; without --dense-weights they are stored sparsely)",
                idmodel_scene::human_bytes(*need),
                idmodel_scene::human_bytes(*limit)
            ),
        }
    }
}

impl core::error::Error for ExportError {}

/// Shorthand for building an [`ExportError::Invalid`].
macro_rules! invalid {
    ($($arg:tt)*) => {
        $crate::ExportError::Invalid(alloc::format!($($arg)*))
    };
}
pub(crate) use invalid;
