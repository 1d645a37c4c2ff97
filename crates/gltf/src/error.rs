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

/// Notes a primitive's morph target count in `seen` (the first of its mesh), or says how
/// it differs from the mesh's other primitives: glTF gives a mesh one set of targets. The
/// message is `what` and the counts, for the exporter's and the importer's `Invalid`.
pub(crate) fn one_target_count(
    seen: &mut Option<usize>,
    count: usize,
    what: &str,
) -> Result<(), String> {
    match *seen {
        Some(t) if t != count => Err(alloc::format!(
            "{what}: {count} morph targets where the mesh's other primitives have {t}"
        )),
        _ => {
            *seen = Some(count);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    // A panic here is a failed assertion.
    #![allow(clippy::unwrap_used)]
    use super::one_target_count;

    #[test]
    fn a_mesh_keeps_its_first_primitives_target_count() {
        let mut seen = None;
        one_target_count(&mut seen, 3, "mesh 0 primitive 0").unwrap();
        assert_eq!(seen, Some(3));
        one_target_count(&mut seen, 3, "mesh 0 primitive 1").unwrap();
        assert_eq!(
            one_target_count(&mut seen, 2, "mesh 0 primitive 2"),
            Err(
                "mesh 0 primitive 2: 2 morph targets where the mesh's other primitives have 3"
                    .into()
            )
        );
        assert_eq!(seen, Some(3));
    }
}
