//! # idmodel
//!
//! Zero-copy, `no_std` readers and writers for id Software's classic model formats:
//! Quake MDL, Quake II MD2, Quake III MD3 and Doom 3 MD5 (`.md5mesh`, `.md5anim`,
//! `.md5camera`), and, with the `convert` feature, the one call that turns any of them
//! (a file, a Quake III player folder, an archive entry) into the textured GLB the
//! `idmodel` command writes, and glTF back into them:
//!
//! ```
//! # #[cfg(feature = "convert")] {
//! # let dir = std::env::temp_dir().join(format!("idmodel-front-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let (model, out) = (dir.join("sample.mdl"), dir.join("sample.glb"));
//! # std::fs::write(&model, include_bytes!("../samples/sample.mdl")).unwrap();
//! // Cargo.toml: idmodel = { version = "0.1", features = ["convert"] }
//! use idmodel::convert::{Options, convert};
//!
//! let done = convert(&model, &out, &Options::default())?;
//! std::fs::write(&out, done.main_bytes())?;
//! println!("{}", done.report.written); // wrote …/sample.glb (7 KB, 2 textures embedded, 0 missing)
//! # assert_eq!(done.report.written.embedded, 2); // the skin and its fullbright texels
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | feature | what it adds | `no_std` |
//! |---|---|---|
//! | `mdl`, `md2`, `md3`, `md5` (default) | one crate per format: parse, decode, check, write | yes |
//! | `alloc` (default) | owned models and `Vec` conveniences | yes, with `alloc` |
//! | `scene` | `idmodel::scene` (`idmodel-scene`): the format-independent scene and every format's adapter | yes, with `alloc` |
//! | `gltf` | `idmodel::gltf` (`idmodel-gltf`): scene ⇄ glTF 2.0 / GLB | no |
//! | `assets` | `idmodel::assets` (`idmodel-assets`): archives, images, texture resolution as the engines find files | no |
//! | `convert` | `idmodel::convert` (`idmodel-convert`): one call from a model to GLB, glTF, OBJ, MDL, MD2, MD3 or md5 | no |
//!
//! This facade re-exports one crate per format, each behind a feature of the same name
//! (all on by default), plus the shared [`core`] crate, and offers [`detect`] to tell
//! what a buffer holds, including the common files that share an extension with these
//! formats but are something else (Half-Life `.mdl`, 3D GameStudio `.mdl`, …).
//!
//! ```
//! use idmodel::{detect, Format};
//! assert_eq!(detect(b"IDP3\x0f\x00\x00\x00"), Some(Format::Md3));
//! assert_eq!(detect(b"IDST\x0a\x00\x00\x00"), Some(Format::HalfLifeStudio));
//! assert!(!Format::HalfLifeStudio.is_supported());
//! assert_eq!(detect(b"MD5Version 10\ncommandline \"\"\nnumFrames 3\nnumJoints 2"),
//!            Some(Format::Md5Anim));
//! assert_eq!(detect(b"hello"), None);
//! ```
//!
//! Every format's `check(engine, sink)` reports engine findings in one vocabulary,
//! [`Engine`] and [`Severity`], and every finding displays as `engine: severity: message`:
//!
//! ```
//! # #[cfg(all(feature = "md2", feature = "alloc"))] {
//! use idmodel::{Engine, Finding as _, Format, Severity};
//! let mut md2 = idmodel::md2::Model::example();
//! md2.skin_height = 481;
//! let bytes = idmodel::md2::write(&md2).unwrap();
//! let found = idmodel::md2::Md2::parse(&bytes).unwrap().findings(Engine::Quake2);
//! assert_eq!(found[0].severity(), Severity::Refused);
//! assert!(found[0].to_string().starts_with("quake2: refused: skin height 481"));
//! let engines: Vec<Engine> = Engine::for_format(Format::Md2).collect();
//! assert_eq!(engines, idmodel::md2::ENGINES);
//! # }
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "assets")]
pub use idmodel_assets as assets;
#[cfg(feature = "convert")]
pub use idmodel_convert as convert;
pub use idmodel_core as core;
#[cfg(feature = "gltf")]
pub use idmodel_gltf as gltf;
#[cfg(feature = "md2")]
pub use idmodel_md2 as md2;
#[cfg(feature = "md3")]
pub use idmodel_md3 as md3;
#[cfg(feature = "md5")]
pub use idmodel_md5 as md5;
#[cfg(feature = "mdl")]
pub use idmodel_mdl as mdl;
#[cfg(feature = "scene")]
pub use idmodel_scene as scene;

pub use idmodel_core::detect::{Format, detect};
/// The findings vocabulary every format shares (see [`core::findings`]).
pub use idmodel_core::{Engine, Finding, Severity};
pub use idmodel_core::{Error, ErrorKind};

/// The README's code examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
