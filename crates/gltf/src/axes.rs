//! Axis and winding conventions of the IR → glTF step.

// The conventions themselves belong to the scene (the OBJ writer and the renderer use
// them too); the glTF step only chooses among them.
use idmodel_scene::axes::{Axes, Winding};

/// Options of the IR → glTF step.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExportOptions {
    /// Axis conversion (default: Y-up).
    pub axes: Axes,
    /// Winding of the IR's triangles (default: clockwise, as in every id format).
    pub winding: Winding,
}
