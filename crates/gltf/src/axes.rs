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
    /// Write sparse morph weights ([`ChannelValues::SparseWeights`], what the MDL, MD2
    /// and MD3 adapters build) as plain dense accessors of `keys × targets` floats
    /// instead of glTF sparse accessors (default `false`: sparse, linear in the keys).
    /// The dense form grows with frames², and is refused over [`ExportOptions::max_bytes`].
    ///
    /// [`ChannelValues::SparseWeights`]: idmodel_scene::ChannelValues::SparseWeights
    pub dense_weights: bool,
    /// The most bytes the dense weights of one channel may take when
    /// [`ExportOptions::dense_weights`] is set; `None`: [`idmodel_scene::DEFAULT_MAX_BYTES`].
    pub max_bytes: Option<u64>,
    /// Write compact meshes with `KHR_mesh_quantization` (required by the file): integer
    /// positions on one grid per mesh, lossless when the positions lie on a power-of-two
    /// grid as MD3's do, normals and their morph displacements as normalized bytes (the
    /// rule of [`idmodel_scene::quantize`]). A child node named `<node> mesh` carries the
    /// dequantizing scale and translation (marked by its extras, so the importer folds it
    /// back). Skinned meshes and an MD3 tag's frames keep float positions. Blender, three.js, Babylon.js and the
    /// Khronos validator read such files; Godot 4 refuses them and Assimp misreads them,
    /// so it is off by default.
    pub quantize: bool,
}
