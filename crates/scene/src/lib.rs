//! # idmodel-scene
//!
//! The format-independent scene of idmodel: what every adapter builds from a parsed
//! model and what every consumer (the glTF writer, the OBJ writer, the renderer, and the
//! importers going the other way) reads.
//!
//! ```text
//! bytes ─▶ format crate view ─▶ adapter (this crate) ─▶ Scene ─▶ glTF / OBJ / picture
//! glTF ─▶ importer ─▶ Scene ─▶ adapter back ─▶ owned model ─▶ writer ─▶ bytes
//! ```
//!
//! ```
//! use idmodel_md2::{Md2, Model, write};
//! use idmodel_scene::{Options, back::BackOptions, md2};
//! let bytes = write(&Model::example())?; // an MD2 file
//! let scene = md2::scene(&Md2::parse(&bytes)?, "example", &Options::default())?;
//! assert_eq!(scene.meshes[0].primitives[0].targets.len(), 1); // frame 2 as a morph target
//! assert_eq!(scene.animations[0].name, "stand"); // the frames' clip
//! // And back: an unedited scene gives the file byte for byte.
//! assert_eq!(md2::to_bytes(&scene, &BackOptions::default())?, bytes);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! Everything in a [`Scene`] is in the **file's conventions**: id axes (Z up, models face
//! +X), id triangle winding (clockwise front faces), id camera orientation (a camera
//! looks along its node's local +X with +Z up). Consumers convert as they need to.
//!
//! `#![no_std]` with `alloc`, no `unsafe`, no panics, no I/O: side files (`.skin`,
//! `animation.cfg`, md5anims) arrive parsed; textures arrive as names the caller
//! resolves.
//!
//! Every format's adapter has the same calls: `scene(model, name, &Options)` for the
//! whole model (morph targets or skins, clips, the extras the way back reads),
//! `frame(model, name, &Options)` for one posed frame as a still mesh, and, where side
//! files add to a model, `scene_with` and `frame_with` taking them as a last argument
//! ([`md2::Sidecars`], [`md3::Sidecars`], an md5mesh's anims). The way back lives in each
//! format's `back` source file: [`mdl::from_scene`], [`md2::from_scene`],
//! [`md3::from_scene`], [`md5::back`]. For any file, the `idmodel-convert` crate picks
//! the adapter from the bytes and finds the side files.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// The unit tests (each module's `mod tests`) may index, unwrap, cast and compute freely: a
// panic there is a failed assertion. The library itself is linted without this.
#![cfg_attr(
    test,
    allow(
        clippy::arithmetic_side_effects,
        clippy::as_conversions,
        clippy::float_cmp,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::unwrap_used
    )
)]

extern crate alloc;

// Quake III MD3 models and players (with their `.skin` and `animation.cfg`) as scenes;
// the module docs (inner, so their links resolve inside it) say what the scenes hold.
pub mod md3;

pub mod axes;
pub mod back;
mod error;
pub mod extras;
pub mod md2;
pub mod md5;
pub mod mdl;
pub mod obj;
mod options;
mod placed;
pub mod quantize;
pub mod render;
mod scene;

pub use error::Error;
pub use extras::{Extras, Value};
pub use options::{DEFAULT_MAX_BYTES, Options, frame_out_of_range, human_bytes, over_budget};
pub use scene::{
    AlphaMode, Animation, Camera, Channel, ChannelValues, Image, Interpolation, Material, Mesh,
    MorphTarget, Node, Primitive, Scene, Skin, unit_or_up,
};
pub use scene::{Mime, TAG_FRAMES_PREFIX, Wrap, editor_name, is_tag_frames};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
