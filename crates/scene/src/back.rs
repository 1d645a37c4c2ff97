//! What the adapters going back (scene → MD2, scene → MDL, and MD3 for the sampling)
//! share: base64 for the raw blocks kept in [`Extras`](crate::Extras), the byte patch
//! that makes a rewrite byte-identical, the geometry comparison that decides whether the
//! extras still describe a scene, frames from morph targets and weight animations, node
//! and skin animation **sampled** into vertex frames (the one sampler of all three
//! formats: node transforms at a time, world matrices, skinning), the perceptual colour
//! metric of the palette quantisers (MDL skins, MD2's PCX skins), and the write-time
//! engine check.
//!
//! **Binary data in extras is base64** (RFC 4648 standard alphabet, with `=` padding) of
//! the file's own little-endian bytes: 4 characters per 3 bytes, so a raw block costs
//! 1⅓ × its size in the JSON, less than the glTF's float copy of the same vertices
//! (12 bytes of `POSITION` per vertex per frame against 4 packed bytes).
//!
//! One concept a module: [`BackOptions`] and the checked write of a format (`write`);
//! base64 (`base64`); the patch (`patch`) and the digest that guards it (`digest`); the
//! geometry comparison (`geometry`); the merged mesh and its posed frames (`merge`); the
//! frames of the animations (`frames`); the sampler of node and skin animation
//! (`sampler`); the recovery of packed vertices (`recover`); the packing of positions and
//! normals (`quantise`); the palette metric and quantiser (`palette`); the skin sizes
//! the engines accept and the resampling to them (`skin`); and the memo behind the
//! nearest-normal and nearest-colour searches (`memo`).

mod base64;
mod digest;
mod frames;
mod geometry;
mod memo;
mod merge;
mod palette;
mod patch;
mod quantise;
mod recover;
mod sampler;
mod skin;
mod write;

pub(crate) use base64::blob;
pub use base64::{base64_decode, base64_encode};
pub(crate) use digest::{digest_hex, fnv1a, guard_matches};
pub use frames::{frame_names, sample_frames};
pub use geometry::same_geometry;
pub use merge::{Merged, SampledFrame, merge, pose};
pub use palette::{PaletteRules, quantise_to_palette, redmean};
pub use patch::{apply_patch, make_patch};
pub use quantise::{bounds, nearest_normal, quantise};
pub use recover::{apply_vertex_fixes, recover_target_vertices, target_frame_bounds, vertex_fixes};
pub use sampler::MAX_SAMPLED_FRAMES;
pub(crate) use sampler::{
    IDENTITY, Mat4, apply, at, locals, mul, sample_times, skin_matrices, skin_point, worlds,
};
pub use skin::{MAX_SKIN_HEIGHT, md2_skin_size, mdl_skin_size, resample_nearest};
pub use write::BackOptions;
pub(crate) use write::{Back, back_impl, bytes_of, model_of, refuse_findings};
