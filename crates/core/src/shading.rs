//! What Quake III shaders and Doom 3 materials share: the OpenGL blend factors their
//! stages name, and the glTF alpha mode both map to.
//!
//! `idmodel_md3::shader` re-exports these as `BlendFactor` and `AlphaMode`,
//! `idmodel_assets::textures::mtr` as `GlFactor` and `AlphaMode`.
//!
//! ```
//! use idmodel_core::shading::{AlphaMode, BlendFactor};
//! assert_eq!(BlendFactor::from_name(b"gl_one_minus_src_alpha"), (BlendFactor::OneMinusSrcAlpha, true));
//! assert_eq!(BlendFactor::from_name(b"GL_SRC_COLOR"), (BlendFactor::SrcColor, true));
//! assert_eq!(BlendFactor::from_name(b"GL_NONSENSE"), (BlendFactor::One, false));
//! assert_ne!(AlphaMode::Mask { cutoff: 0.5 }, AlphaMode::Blend);
//! ```

/// An OpenGL blend factor of a stage's `blendFunc` (Quake III) or `blend` (Doom 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the GL names say it
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    SrcAlphaSaturate,
}

impl BlendFactor {
    /// `NameToSrcBlendMode`/`NameToDstBlendMode` (the same in both engines): a `GL_*`
    /// name, compared case-insensitively; an unknown name is `GL_ONE` with `false`, as
    /// the engines read it (with a warning).
    pub fn from_name(name: &[u8]) -> (Self, bool) {
        const NAMES: [(&str, BlendFactor); 11] = [
            ("GL_ZERO", BlendFactor::Zero),
            ("GL_ONE", BlendFactor::One),
            ("GL_SRC_COLOR", BlendFactor::SrcColor),
            ("GL_ONE_MINUS_SRC_COLOR", BlendFactor::OneMinusSrcColor),
            ("GL_DST_COLOR", BlendFactor::DstColor),
            ("GL_ONE_MINUS_DST_COLOR", BlendFactor::OneMinusDstColor),
            ("GL_SRC_ALPHA", BlendFactor::SrcAlpha),
            ("GL_ONE_MINUS_SRC_ALPHA", BlendFactor::OneMinusSrcAlpha),
            ("GL_DST_ALPHA", BlendFactor::DstAlpha),
            ("GL_ONE_MINUS_DST_ALPHA", BlendFactor::OneMinusDstAlpha),
            ("GL_SRC_ALPHA_SATURATE", BlendFactor::SrcAlphaSaturate),
        ];
        NAMES
            .iter()
            .find(|(n, _)| name.eq_ignore_ascii_case(n.as_bytes()))
            .map_or((BlendFactor::One, false), |&(_, f)| (f, true))
    }
}

/// The glTF alpha mode a shader or material maps to (docs/game-data.md §3.9, §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaMode {
    /// `OPAQUE`.
    Opaque,
    /// `MASK` with this `alphaCutoff`.
    Mask {
        /// The cutoff: for Quake III `GE128` 0.5, `GT0` 0.5/255; for Doom 3 just above
        /// the `alphaTest` value, (⌊255·v⌋ + 0.5) / 255.
        cutoff: f32,
    },
    /// `BLEND`.
    Blend,
}
