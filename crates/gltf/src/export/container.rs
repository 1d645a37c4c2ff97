//! The two containers: one binary `.glb` ([`Glb`], [`to_glb`] and its pieces) and a `.gltf`
//! with its `.bin` and images ([`GltfFiles`], [`to_gltf`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::Result;
use super::buffers::{pad_to_4, u32_len};
use super::document::build;
use crate::{ExportError, ExportOptions};
use idmodel_scene::Scene;

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// A `.gltf` file and the `.bin` it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfFiles {
    /// The JSON document (UTF-8).
    pub json: Vec<u8>,
    /// The binary buffer to write under the `bin_uri` given to [`to_gltf`]. Empty when
    /// the scene needs no binary data; then the JSON names no buffer and nothing need be
    /// written.
    pub bin: Vec<u8>,
    /// The images, to write beside the `.gltf` under the relative URIs the JSON gives
    /// them: `(file name, bytes)`. Names are the `bin_uri` without its `.bin`, then
    /// `_<n>.png` or `_<n>.jpg` (`model.bin` → `model_0.png`).
    pub images: Vec<(String, Vec<u8>)>,
}

/// A GLB file as two pieces, to be written one after the other: [`Glb::front`] (the
/// 12-byte file header, the JSON chunk and the BIN chunk's 8-byte header) and
/// [`Glb::bin`] (the BIN chunk's data, padded). Writing the pieces one after the other
/// gives exactly the bytes of [`to_glb`], with no copy of the binary buffer; a writer
/// that converts many files can hand the pieces back to [`to_glb_pieces_reusing`], so
/// that the next file is built in memory that is already allocated and mapped.
///
/// ```
/// use idmodel_gltf::{ExportOptions, Glb, to_glb, to_glb_pieces, to_glb_pieces_reusing};
/// use idmodel_scene::{Mesh, Node, Primitive, Scene};
///
/// let mut scene = Scene::default();
/// scene.meshes.push(Mesh {
///     primitives: vec![Primitive {
///         positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
///         indices: vec![0, 1, 2],
///         ..Primitive::default()
///     }],
///     ..Mesh::default()
/// });
/// let mut node = Node::new("triangle");
/// node.mesh = Some(0);
/// scene.nodes.push(node);
///
/// let options = ExportOptions::default();
/// let glb: Glb = to_glb_pieces(&scene, &options)?;
/// let mut file = Vec::new();
/// glb.write_to(&mut file)?;
/// assert_eq!(file.len(), glb.len());
/// assert_eq!(file, to_glb(&scene, &options)?);
/// // The next export reuses the pieces' memory.
/// let again = to_glb_pieces_reusing(&scene, &options, glb)?;
/// assert_eq!(again.into_vec(), file);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Glb {
    front: Vec<u8>,
    bin: Vec<u8>,
}

impl Glb {
    /// Everything before the BIN chunk's data: the file header, the JSON chunk (padded
    /// with spaces) and, when there is binary data, the BIN chunk's header.
    pub fn front(&self) -> &[u8] {
        &self.front
    }

    /// The BIN chunk's data, padded with zeros to 4 bytes (empty when the scene has no
    /// binary data, and then the file has no BIN chunk).
    pub fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.front.len().saturating_add(self.bin.len())
    }

    /// True for the empty default value (an export is never empty).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the file to `out`: the two pieces, one after the other.
    pub fn write_to<W: std::io::Write + ?Sized>(&self, out: &mut W) -> std::io::Result<()> {
        out.write_all(&self.front)?;
        out.write_all(&self.bin)
    }

    /// The two pieces, [`Glb::front`] then [`Glb::bin`], to write one after the other.
    pub fn into_pieces(self) -> (Vec<u8>, Vec<u8>) {
        (self.front, self.bin)
    }

    /// The file as one buffer. The front goes in front of the binary buffer in place
    /// (one move of the buffer, one copy of the front), so this never holds two copies
    /// of the binary data (the bound on a conversion's peak memory).
    pub fn into_vec(self) -> Vec<u8> {
        let Glb { front, mut bin } = self;
        if bin.is_empty() {
            return front;
        }
        let len = bin.len();
        bin.reserve_exact(front.len());
        bin.resize(len.saturating_add(front.len()), 0);
        bin.copy_within(..len, front.len());
        if let Some(slot) = bin.get_mut(..front.len()) {
            slot.copy_from_slice(&front);
        }
        drop(front);
        // The buffer grew while it was built: give back what it holds beyond the file.
        bin.shrink_to_fit();
        bin
    }
}

/// Writes `scene` as one binary glTF (`.glb`): JSON chunk, then a BIN chunk holding every
/// buffer view, embedded PNG images included. Both chunks are padded to 4 bytes (JSON
/// with spaces, BIN with zeros) as the GLB container requires. The same bytes as
/// [`to_glb_pieces`] then [`Glb::into_vec`]; a caller that writes the file itself saves
/// the move of the binary buffer with [`to_glb_pieces`] and [`Glb::write_to`].
pub fn to_glb(scene: &Scene, options: &ExportOptions) -> Result<Vec<u8>> {
    Ok(to_glb_pieces(scene, options)?.into_vec())
}

/// [`to_glb`] as its two pieces ([`Glb`]), without joining them.
pub fn to_glb_pieces(scene: &Scene, options: &ExportOptions) -> Result<Glb> {
    to_glb_pieces_reusing(scene, options, Glb::default())
}

/// [`to_glb_pieces`] built in the memory of `reuse` (a previous export's pieces, whose
/// contents are discarded): when it is large enough, the export allocates no new memory
/// for the binary buffer, and writes into pages that are already mapped.
pub fn to_glb_pieces_reusing(scene: &Scene, options: &ExportOptions, reuse: Glb) -> Result<Glb> {
    let Glb {
        front: mut head_buf,
        bin: mut bin_buf,
    } = reuse;
    bin_buf.clear();
    let (mut json, mut bin, _) = build(scene, options, None, bin_buf)?;
    pad_to_4(&mut json, b' ');
    let bin_pad = bin.len().wrapping_neg() & 3;
    let chunk_header = 8usize;
    let mut total = 12usize
        .checked_add(chunk_header)
        .and_then(|n| n.checked_add(json.len()))
        .ok_or(ExportError::TooLarge("the GLB file"))?;
    if !bin.is_empty() {
        total = total
            .checked_add(chunk_header)
            .and_then(|n| n.checked_add(bin.len()))
            .and_then(|n| n.checked_add(bin_pad))
            .ok_or(ExportError::TooLarge("the GLB file"))?;
    }
    let total32 = u32_len(total, "the GLB file")?;
    let json32 = u32_len(json.len(), "the JSON chunk")?;
    // Everything before the BIN chunk's data.
    let mut head = [0u8; 28];
    for (slot, word) in head.chunks_exact_mut(4).zip([
        GLB_MAGIC,
        2,
        total32,
        json32,
        CHUNK_JSON,
        u32_len(bin.len().saturating_add(bin_pad), "the BIN chunk")?,
        CHUNK_BIN,
    ]) {
        slot.copy_from_slice(&word.to_le_bytes());
    }
    let head_len: usize = if bin.is_empty() { 20 } else { 28 };
    head_buf.clear();
    head_buf.reserve_exact(head_len.saturating_add(json.len()));
    head_buf.extend_from_slice(head.get(..20).unwrap_or_default());
    head_buf.extend_from_slice(&json);
    head_buf.extend_from_slice(head.get(20..head_len).unwrap_or_default());
    drop(json);
    if !bin.is_empty() {
        bin.reserve_exact(bin_pad);
        pad_to_4(&mut bin, 0);
    }
    Ok(Glb {
        front: head_buf,
        bin,
    })
}

/// Writes `scene` as a `.gltf` JSON document whose single buffer is the file `bin_uri`
/// (a relative URI such as `"model.bin"`); the images are files of their own beside it
/// ([`GltfFiles::images`]: PNG, or the bytes of an `Image::Encoded`: a JPEG unchanged, a
/// PNG without the chunks glTF clients may not honour, such as colour space and aspect).
pub fn to_gltf(scene: &Scene, options: &ExportOptions, bin_uri: &str) -> Result<GltfFiles> {
    let (compact, mut bin, images) = build(scene, options, Some(bin_uri), Vec::new())?;
    let json = crate::json::pretty(&compact);
    drop(compact);
    bin.reserve_exact(3); // the padding, without a doubling of the buffer
    pad_to_4(&mut bin, 0);
    Ok(GltfFiles { json, bin, images })
}
