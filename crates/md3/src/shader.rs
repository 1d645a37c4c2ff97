//! Quake III `.shader` scripts (docs/game-data.md §3.3, §3.4, §3.9): zero-copy, no allocation.
//!
//! * [`ShaderText::entries`] walks a script as `ScanAndLoadShaderFiles` does: a name
//!   token (`COM_ParseExt`, the tokenizer of `animation.cfg`: comments, `"…"` strings,
//!   whitespace ≤ 0x20 or ≥ 0x80), then a braced section skipped by counting the tokens
//!   `{` and `}` (`SkipBracedSection`), so nested braces (stages) are one definition.
//! * [`ShaderDef::parse`] reads one definition as `ParseShader`/`ParseStage` do, with
//!   case-insensitive keywords: `cull`, `surfaceparm`, `qer_editorimage`, `skyparms`,
//!   `fogparms`; stages with `map`/`clampMap`/`animMap` (first frame)/`videoMap`,
//!   `$lightmap`/`$whiteimage`, `blendFunc` (shorthands and `GL_*` pairs), `alphaFunc`,
//!   `rgbGen`/`alphaGen`/`tcGen` (kept as names), `depthWrite`. Keywords without
//!   rendering effect (`nomipmaps`, `nopicmip`, `polygonOffset`, `sort`, `tcMod`,
//!   `deformVertexes`, …) are read past. What would make the engine use its default
//!   shader instead (an unknown keyword, no stage, a missing `}`) is kept as
//!   [`Shader::failure`], not an error: the converter decides.
//! * [`Shader::gltf`] picks the base-colour stage as §3.9 suggests and gives the glTF
//!   alpha mode, cutoff and double-sidedness.
//!
//! **Which definition wins.** Within one text, the first ([`ShaderText::find`]). Across
//! files the engine concatenates them in *reverse* `FS_ListFiles` order and takes the
//! first definition of the result (ioq3), i.e. the one in the file listed **last**; pass
//! the files to [`find_in_files`] in that concatenated order (last-listed file first).
//! Vanilla 1.32 differs in one artefact: the first shader of each listed file except the
//! last is entered ahead of everything else; that quirk is not reproduced here.
//!
//! ```
//! use idmodel_md3::shader::{AlphaMode, ShaderText};
//! let text = "// a player's hair\nmodels/players/x/hair\n{\n cull disable\n {\n  map models/players/x/hair.tga\n  alphaFunc GE128\n }\n}\n";
//! let def = ShaderText::new(text.as_bytes()).find(b"MODELS/players/x/hair").unwrap();
//! let shader = def.parse()?;
//! let g = shader.gltf();
//! assert_eq!(g.image, Some(&b"models/players/x/hair.tga"[..]));
//! assert_eq!(g.alpha, AlphaMode::Mask { cutoff: 0.5 });
//! assert!(g.double_sided);
//! # Ok::<(), idmodel_md3::TextError>(())
//! ```

/// The GL blend factors and glTF alpha modes, shared with Doom 3 materials.
pub use idmodel_core::shading::{AlphaMode, BlendFactor};

use crate::text::{TextError, TextErrorKind, Token, Tokenizer, WordEnd, line_col};

/// The stages kept per shader: ioq3's `MAX_SHADER_STAGES` (vanilla does not check; more
/// are counted in [`Shader::num_stages`] and make ioq3 fail the shader).
pub const MAX_SHADER_STAGES: usize = 8;
/// The `surfaceparm`s kept per shader (more are counted, not kept).
pub const MAX_SURFACE_PARMS: usize = 16;
/// `animMap` frames the engine loads (`MAX_IMAGE_ANIMATIONS`).
pub const MAX_IMAGE_ANIMATIONS: usize = 8;

fn eq(a: &[u8], b: &str) -> bool {
    a.eq_ignore_ascii_case(b.as_bytes())
}

/// A shader script's text (it ends at its first NUL, as the engine's C string does).
#[derive(Debug, Clone, Copy)]
pub struct ShaderText<'a> {
    text: &'a [u8],
}

impl<'a> ShaderText<'a> {
    /// The script `text`.
    pub fn new(text: &'a [u8]) -> Self {
        Self { text }
    }

    /// The definitions in file order. A name without `{` or a section whose braces never
    /// close yields an error at the name, and the walk goes on where the engine's would.
    pub fn entries(&self) -> ShaderDefs<'a> {
        ShaderDefs {
            lex: Tokenizer::new(self.text, 0, WordEnd::Space),
            done: false,
            lines: Lines::default(),
        }
    }

    /// The first definition named `name` (case-insensitive, as `Q_stricmp`), skipping
    /// malformed ones.
    pub fn find(&self, name: &[u8]) -> Option<ShaderDef<'a>> {
        self.entries()
            .filter_map(Result::ok)
            .find(|d| d.name.eq_ignore_ascii_case(name))
    }

    /// True when ioq3 would load this file: every name is followed by `{` and every
    /// section closes (ioq3 ignores the whole file otherwise, with a warning). The first
    /// problem is the error.
    pub fn validate_ioq3(&self) -> Result<(), TextError> {
        self.entries().try_for_each(|d| d.map(|_| ()))
    }
}

/// The first definition named `name` across `files` given in the engine's concatenated
/// order (the file listed last by `FS_ListFiles` first), as ioq3 resolves it.
pub fn find_in_files<'a, I>(files: I, name: &[u8]) -> Option<ShaderDef<'a>>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    files
        .into_iter()
        .find_map(|text| ShaderText::new(text).find(name))
}

/// One `name { … }` definition, not yet read.
#[derive(Debug, Clone, Copy)]
pub struct ShaderDef<'a> {
    /// The shader name as written.
    pub name: &'a [u8],
    /// Byte offset of the name.
    pub offset: usize,
    text: &'a [u8],
    /// Offset of the opening `{`.
    open: usize,
}

/// The definitions of a [`ShaderText`].
#[derive(Debug, Clone)]
pub struct ShaderDefs<'a> {
    lex: Tokenizer<'a>,
    done: bool,
    lines: Lines,
}

/// Line and column of increasing offsets, counted forward once (a fresh count per error
/// would make a text of many bad definitions quadratic).
#[derive(Debug, Clone, Copy, Default)]
struct Lines {
    pos: usize,
    line: u32,
    line_start: usize,
}

impl Lines {
    fn at(&mut self, text: &[u8], offset: usize) -> (u32, u32) {
        if offset < self.pos {
            *self = Self::default();
        }
        let span = text.get(self.pos..offset).unwrap_or(&[]);
        for (i, &b) in span.iter().enumerate() {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.line_start = self.pos.saturating_add(i).saturating_add(1);
            }
        }
        self.pos = offset.max(self.pos);
        let col = offset.saturating_sub(self.line_start).saturating_add(1);
        (
            self.line.saturating_add(1),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }
}

impl ShaderDefs<'_> {
    fn error(&mut self, kind: TextErrorKind, at: usize) -> TextError {
        let (line, column) = self.lines.at(self.lex.text, at);
        TextError { kind, line, column }
    }
}

impl<'a> Iterator for ShaderDefs<'a> {
    type Item = Result<ShaderDef<'a>, TextError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = (|| {
            let name = self.lex.next()?;
            if name.bytes.is_empty() && self.lex.byte(self.lex.pos) == 0 {
                return Ok(None);
            }
            let open = self.lex.next()?;
            if open.bytes != b"{" {
                return Err(self.error(TextErrorKind::MissingOpenBrace, name.start));
            }
            let mut depth = 1usize;
            while depth > 0 {
                let t = self.lex.next()?;
                match t.bytes {
                    b"{" => depth = depth.saturating_add(1),
                    b"}" => depth = depth.saturating_sub(1),
                    b"" if self.lex.byte(self.lex.pos) == 0 => {
                        return Err(self.error(TextErrorKind::MissingCloseBrace, name.start));
                    }
                    _ => {}
                }
            }
            Ok(Some(ShaderDef {
                name: name.bytes,
                offset: name.start,
                text: self.lex.text,
                open: open.start,
            }))
        })();
        match step {
            Ok(Some(d)) => Some(Ok(d)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // An open quote or unclosed braces reach the end of the text: stop.
                if self.lex.byte(self.lex.pos) == 0 || e.kind == TextErrorKind::UnterminatedQuote {
                    self.done = true;
                }
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for ShaderDefs<'_> {}

/// Face culling (`cull`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cull {
    /// The default: back faces culled (`cull front`, or no `cull`).
    #[default]
    Front,
    /// `cull back` / `backside` / `backsided`: front faces culled.
    Back,
    /// `cull none` / `twosided` / `disable`: both sides drawn.
    TwoSided,
}

/// A stage's `blendFunc`: source and destination factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blend {
    /// Source factor.
    pub src: BlendFactor,
    /// Destination factor.
    pub dst: BlendFactor,
}

impl Blend {
    /// `blendFunc add`: ONE, ONE.
    pub const ADD: Self = Self {
        src: BlendFactor::One,
        dst: BlendFactor::One,
    };
    /// `blendFunc filter`: DST_COLOR, ZERO.
    pub const FILTER: Self = Self {
        src: BlendFactor::DstColor,
        dst: BlendFactor::Zero,
    };
    /// `blendFunc blend`: SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
    pub const BLEND: Self = Self {
        src: BlendFactor::SrcAlpha,
        dst: BlendFactor::OneMinusSrcAlpha,
    };
}

/// A stage's `alphaFunc` test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlphaFunc {
    /// `GT0`: alpha > 0.
    Gt0,
    /// `LT128`: alpha < 0.5.
    Lt128,
    /// `GE128`: alpha ≥ 0.5.
    Ge128,
}

/// The image of a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StageImage<'a> {
    /// `map <image>` (GL_REPEAT).
    Map(&'a [u8]),
    /// `clampMap <image>` (GL_CLAMP).
    ClampMap(&'a [u8]),
    /// `animMap <freq> <image>…`: the first frame, and how many frames follow the
    /// frequency (the engine loads at most [`MAX_IMAGE_ANIMATIONS`]).
    AnimMap {
        /// The frequency token as written.
        freq: &'a [u8],
        /// The first frame's image.
        first: &'a [u8],
        /// How many images the line names.
        frames: usize,
    },
    /// `videoMap <file>`: a cinematic.
    VideoMap(&'a [u8]),
    /// `map $lightmap` (white for models).
    Lightmap,
    /// `map $whiteimage` (or ioq3's `*white`).
    White,
}

/// One `{ … }` stage of a shader.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stage<'a> {
    /// The stage's image.
    pub image: Option<StageImage<'a>>,
    /// `blendFunc`, shorthands resolved.
    pub blend: Option<Blend>,
    /// `alphaFunc` (an unknown name gives no test, as in the engine).
    pub alpha_func: Option<AlphaFunc>,
    /// The `rgbGen` name (`identity`, `lightingDiffuse`, `wave`, …).
    pub rgb_gen: Option<&'a [u8]>,
    /// The `alphaGen` name.
    pub alpha_gen: Option<&'a [u8]>,
    /// The `tcGen` name (`environment` makes the stage no base colour).
    pub tc_gen: Option<&'a [u8]>,
    /// `depthWrite` is present.
    pub depth_write: bool,
    /// Byte offset of the stage's `{`.
    pub offset: usize,
}

impl<'a> Stage<'a> {
    /// The stage's file image if it can be a base colour (§3.9): `map`, `clampMap` or
    /// `animMap`'s first frame, not `$lightmap`, `$whiteimage`, `videoMap` or
    /// `tcGen environment`. The flag is true for a clamped image.
    pub fn base_image(&self) -> Option<(&'a [u8], bool)> {
        if self.tc_gen.is_some_and(|t| eq(t, "environment")) {
            return None;
        }
        match self.image? {
            StageImage::Map(i) => Some((i, false)),
            StageImage::ClampMap(i) => Some((i, true)),
            StageImage::AnimMap { first, .. } => Some((first, false)),
            _ => None,
        }
    }
}

/// What would make the engine draw its default shader instead of this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// An unknown general keyword ("unknown general shader parameter").
    UnknownGeneral,
    /// An unknown stage keyword ("unknown parameter in shader").
    UnknownStage,
    /// A keyword without its parameter ("missing parameter").
    MissingParameter,
    /// No stage, and the shader is neither sky nor fog.
    NoStages,
    /// The text ended before the closing `}`.
    MissingCloseBrace,
    /// More than [`MAX_SHADER_STAGES`] stages (ioq3 only; vanilla does not check).
    TooManyStages,
}

/// A [`FailureKind`] with the token and its position (line and column are computed
/// when asked for, so reading many definitions stays linear).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Failure<'a> {
    /// What failed.
    pub kind: FailureKind,
    /// The token at fault (empty for `NoStages`, `MissingCloseBrace`).
    pub token: &'a [u8],
    /// Byte offset of the token (of the shader name for `NoStages`).
    pub offset: usize,
    text: &'a [u8],
}

impl Failure<'_> {
    /// 1-based line.
    pub fn line(&self) -> u32 {
        line_col(self.text, self.offset).0
    }

    /// 1-based column, in bytes.
    pub fn column(&self) -> u32 {
        line_col(self.text, self.offset).1
    }
}

impl core::fmt::Display for Failure<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let what = match self.kind {
            FailureKind::UnknownGeneral => "unknown general shader parameter",
            FailureKind::UnknownStage => "unknown stage parameter",
            FailureKind::MissingParameter => "missing parameter for",
            FailureKind::NoStages => "no stages",
            FailureKind::MissingCloseBrace => "no concluding '}'",
            FailureKind::TooManyStages => "more than 8 stages (ioq3)",
            #[allow(unreachable_patterns)] // non_exhaustive, in this crate
            _ => "failure",
        };
        f.write_str(what)?;
        if !self.token.is_empty() {
            f.write_str(" '")?;
            for c in self.token.utf8_chunks() {
                f.write_str(c.valid())?;
                if !c.invalid().is_empty() {
                    f.write_str("\u{fffd}")?;
                }
            }
            f.write_str("'")?;
        }
        let (line, column) = line_col(self.text, self.offset);
        write!(f, " (at {line}:{column})")
    }
}

/// A shader definition as `ParseShader` reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shader<'a> {
    /// The name as written.
    pub name: &'a [u8],
    /// Face culling.
    pub cull: Cull,
    /// `qer_editorimage`, the last-resort base colour.
    pub editor_image: Option<&'a [u8]>,
    /// `skyParms` is present.
    pub sky: bool,
    /// `fogParms` is present.
    pub fog: bool,
    surface_parms: [&'a [u8]; MAX_SURFACE_PARMS],
    num_surface_parms: usize,
    stages: [Stage<'a>; MAX_SHADER_STAGES],
    num_stages: usize,
    /// The first thing that makes the engine use its default shader instead.
    pub failure: Option<Failure<'a>>,
}

/// What a glTF material needs from a shader.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GltfShader<'a> {
    /// The base-colour image (a game path), if any.
    pub image: Option<&'a [u8]>,
    /// The index of the stage it comes from (`None` for `qer_editorimage` or no image).
    pub stage: Option<usize>,
    /// The image is clamped (`clampMap`): sampler CLAMP_TO_EDGE.
    pub clamp: bool,
    /// The alpha mode.
    pub alpha: AlphaMode,
    /// `alphaFunc LT128`: invert the texture's alpha for `MASK` 0.5 (no direct form).
    pub invert_alpha: bool,
    /// Both sides drawn.
    pub double_sided: bool,
    /// `cull back`: keep single-sided and reverse the winding.
    pub reverse_winding: bool,
    /// The base stage's `blendFunc` has no glTF form (`add`, `filter`, other pairs): the
    /// mode is an approximation, worth a warning.
    pub approximate: bool,
}

impl<'a> Shader<'a> {
    /// The stages kept (at most [`MAX_SHADER_STAGES`]).
    pub fn stages(&self) -> &[Stage<'a>] {
        self.stages
            .get(..self.num_stages.min(MAX_SHADER_STAGES))
            .unwrap_or(&[])
    }

    /// How many stages the definition has (including any beyond those kept).
    pub fn num_stages(&self) -> usize {
        self.num_stages
    }

    /// The `surfaceparm`s kept (at most [`MAX_SURFACE_PARMS`]).
    pub fn surface_parms(&self) -> &[&'a [u8]] {
        self.surface_parms
            .get(..self.num_surface_parms.min(MAX_SURFACE_PARMS))
            .unwrap_or(&[])
    }

    /// How many `surfaceparm`s the definition has.
    pub fn num_surface_parms(&self) -> usize {
        self.num_surface_parms
    }

    /// The base-colour stage (§3.9): the first whose image is a real file.
    pub fn base_stage(&self) -> Option<(usize, &Stage<'a>)> {
        self.stages()
            .iter()
            .enumerate()
            .find(|(_, s)| s.base_image().is_some())
    }

    /// The glTF material facts (§3.9): base stage image (else `qer_editorimage`), alpha
    /// mode from its `alphaFunc` (first) or `blendFunc`, culling.
    pub fn gltf(&self) -> GltfShader<'a> {
        let mut g = GltfShader {
            image: self.editor_image,
            stage: None,
            clamp: false,
            alpha: AlphaMode::Opaque,
            invert_alpha: false,
            double_sided: self.cull == Cull::TwoSided,
            reverse_winding: self.cull == Cull::Back,
            approximate: false,
        };
        let Some((i, stage)) = self.base_stage() else {
            return g;
        };
        if let Some((image, clamp)) = stage.base_image() {
            g.image = Some(image);
            g.clamp = clamp;
        }
        g.stage = Some(i);
        match stage.alpha_func {
            Some(AlphaFunc::Ge128) => g.alpha = AlphaMode::Mask { cutoff: 0.5 },
            Some(AlphaFunc::Gt0) => {
                g.alpha = AlphaMode::Mask {
                    cutoff: 0.5 / 255.0,
                }
            }
            Some(AlphaFunc::Lt128) => {
                g.alpha = AlphaMode::Mask { cutoff: 0.5 };
                g.invert_alpha = true;
            }
            None => match stage.blend {
                None => {}
                Some(b) if b == Blend::BLEND => g.alpha = AlphaMode::Blend,
                Some(Blend {
                    src: BlendFactor::One,
                    dst: BlendFactor::Zero,
                }) => {}
                Some(b) => {
                    g.approximate = true;
                    if b.dst != BlendFactor::Zero {
                        g.alpha = AlphaMode::Blend;
                    }
                }
            },
        }
        g
    }
}

/// The parser of one definition body.
struct Body<'a> {
    lex: Tokenizer<'a>,
    failure: Option<Failure<'a>>,
}

impl<'a> Body<'a> {
    fn fail(&mut self, kind: FailureKind, token: Token<'a>) {
        if self.failure.is_none() {
            self.failure = Some(Failure {
                kind,
                token: token.bytes,
                offset: token.start,
                text: self.lex.text,
            });
        }
    }

    fn at_end(&self) -> bool {
        self.lex.byte(self.lex.pos) == 0
    }

    /// The rest of the line's tokens, read and dropped, up to a `}` (which closes the
    /// stage or shader, as the engine's fixed-count argument readers leave it).
    fn drop_line(&mut self) -> Result<(), TextError> {
        loop {
            let at = self.lex.pos;
            let t = self.lex.next_on_line()?;
            if t.bytes == b"}" {
                self.lex.pos = at;
                return Ok(());
            }
            if t.bytes.is_empty() {
                return Ok(());
            }
        }
    }

    /// A parameter on the same line; records a failure when there is none.
    fn param(&mut self, keyword: Token<'a>) -> Result<Option<&'a [u8]>, TextError> {
        let t = self.lex.next_on_line()?;
        if t.bytes.is_empty() {
            self.fail(FailureKind::MissingParameter, keyword);
            return Ok(None);
        }
        Ok(Some(t.bytes))
    }

    /// A stage, after its `{`. Returns `false` when the text ended inside it.
    fn stage(&mut self, stage: &mut Stage<'a>) -> Result<bool, TextError> {
        loop {
            let k = self.lex.next()?;
            let w = k.bytes;
            if w.is_empty() {
                if self.at_end() {
                    return Ok(false);
                }
                continue; // `""`
            }
            if w == b"}" {
                return Ok(true);
            }
            if eq(w, "map") || eq(w, "clampMap") {
                let Some(img) = self.param(k)? else { continue };
                stage.image = Some(if eq(img, "$lightmap") {
                    StageImage::Lightmap
                } else if eq(img, "$whiteimage") || eq(img, "*white") {
                    StageImage::White
                } else if eq(w, "map") {
                    StageImage::Map(img)
                } else {
                    StageImage::ClampMap(img)
                });
            } else if eq(w, "animMap") {
                let Some(freq) = self.param(k)? else { continue };
                let mut first = None;
                let mut frames = 0usize;
                loop {
                    let t = self.lex.next_on_line()?;
                    if t.bytes.is_empty() {
                        break;
                    }
                    first.get_or_insert(t.bytes);
                    frames = frames.saturating_add(1);
                }
                match first {
                    Some(first) => {
                        stage.image = Some(StageImage::AnimMap {
                            freq,
                            first,
                            frames,
                        })
                    }
                    None => self.fail(FailureKind::MissingParameter, k),
                }
            } else if eq(w, "videoMap") {
                if let Some(v) = self.param(k)? {
                    stage.image = Some(StageImage::VideoMap(v));
                }
            } else if eq(w, "alphaFunc") {
                if let Some(a) = self.param(k)? {
                    stage.alpha_func = if eq(a, "GT0") {
                        Some(AlphaFunc::Gt0)
                    } else if eq(a, "LT128") {
                        Some(AlphaFunc::Lt128)
                    } else if eq(a, "GE128") {
                        Some(AlphaFunc::Ge128)
                    } else {
                        None
                    };
                }
            } else if eq(w, "blendFunc") {
                let Some(src) = self.param(k)? else { continue };
                stage.blend = Some(if eq(src, "add") {
                    Blend::ADD
                } else if eq(src, "filter") {
                    Blend::FILTER
                } else if eq(src, "blend") {
                    Blend::BLEND
                } else {
                    let dst = self.param(k)?.unwrap_or(b"");
                    Blend {
                        src: BlendFactor::from_name(src).0,
                        dst: BlendFactor::from_name(dst).0,
                    }
                });
            } else if eq(w, "rgbGen") || eq(w, "alphaGen") || eq(w, "tcGen") || eq(w, "texgen") {
                let Some(name) = self.param(k)? else { continue };
                if eq(w, "rgbGen") {
                    stage.rgb_gen = Some(name);
                } else if eq(w, "alphaGen") {
                    stage.alpha_gen = Some(name);
                } else {
                    stage.tc_gen = Some(name);
                }
                // `wave …`, `const ( … )`, `vector ( … ) ( … )`, `portal <range>`.
                self.drop_line()?;
            } else if eq(w, "depthWrite") {
                stage.depth_write = true;
            } else if eq(w, "tcMod") {
                self.lex.skip_rest_of_line();
            } else if eq(w, "depthFunc") || eq(w, "detail") {
                self.drop_line()?;
            } else {
                self.fail(FailureKind::UnknownStage, k);
                self.drop_line()?;
            }
        }
    }
}

/// General keywords with no converter use, read past with the rest of their line.
const GENERAL_SKIPPED: [&str; 11] = [
    "deformVertexes",
    "tessSize",
    "clampTime",
    "portal",
    "light",
    "sort",
    "nomipmaps",
    "nopicmip",
    "polygonOffset",
    "entityMergable",
    "fogonly",
];

impl<'a> ShaderDef<'a> {
    /// Reads the definition as `ParseShader` does. The only error is an open quote;
    /// what the engine would refuse is [`Shader::failure`].
    pub fn parse(&self) -> Result<Shader<'a>, TextError> {
        let mut body = Body {
            lex: Tokenizer::new(self.text, self.open.saturating_add(1), WordEnd::Space),
            failure: None,
        };
        let mut shader = Shader {
            name: self.name,
            cull: Cull::Front,
            editor_image: None,
            sky: false,
            fog: false,
            surface_parms: [&[]; MAX_SURFACE_PARMS],
            num_surface_parms: 0,
            stages: [Stage::default(); MAX_SHADER_STAGES],
            num_stages: 0,
            failure: None,
        };
        loop {
            let k = body.lex.next()?;
            let w = k.bytes;
            if w.is_empty() {
                if body.at_end() {
                    body.fail(FailureKind::MissingCloseBrace, k);
                    break;
                }
                continue;
            }
            if w == b"}" {
                break;
            }
            if w == b"{" {
                let mut stage = Stage {
                    offset: k.start,
                    ..Stage::default()
                };
                let closed = body.stage(&mut stage)?;
                if let Some(slot) = shader.stages.get_mut(shader.num_stages) {
                    *slot = stage;
                } else {
                    body.fail(FailureKind::TooManyStages, k);
                }
                shader.num_stages = shader.num_stages.saturating_add(1);
                if !closed {
                    body.fail(FailureKind::MissingCloseBrace, k);
                    break;
                }
            } else if eq(w, "qer_editorimage") {
                let t = body.lex.next_on_line()?;
                if !t.bytes.is_empty() {
                    shader.editor_image = Some(t.bytes);
                }
                body.lex.skip_rest_of_line();
            } else if w.get(..3).is_some_and(|p| eq(p, "qer"))
                || w.get(..5).is_some_and(|p| eq(p, "q3map"))
            {
                body.lex.skip_rest_of_line();
            } else if eq(w, "cull") {
                let t = body.lex.next_on_line()?;
                let c = t.bytes;
                if c.is_empty() {
                    body.fail(FailureKind::MissingParameter, k);
                } else if eq(c, "none") || eq(c, "twosided") || eq(c, "disable") {
                    shader.cull = Cull::TwoSided;
                } else if eq(c, "back") || eq(c, "backside") || eq(c, "backsided") {
                    shader.cull = Cull::Back;
                } else {
                    shader.cull = Cull::Front;
                }
            } else if eq(w, "surfaceparm") {
                let t = body.lex.next_on_line()?;
                if let Some(slot) = shader.surface_parms.get_mut(shader.num_surface_parms) {
                    *slot = t.bytes;
                }
                shader.num_surface_parms = shader.num_surface_parms.saturating_add(1);
            } else if eq(w, "skyParms") {
                shader.sky = true;
                body.drop_line()?;
            } else if eq(w, "fogParms") {
                shader.fog = true;
                body.drop_line()?;
            } else if GENERAL_SKIPPED.iter().any(|n| eq(w, n)) {
                body.drop_line()?;
            } else {
                body.fail(FailureKind::UnknownGeneral, k);
                body.drop_line()?;
            }
        }
        if shader.num_stages == 0 && !shader.sky && !shader.fog {
            body.failure.get_or_insert(Failure {
                kind: FailureKind::NoStages,
                token: &[],
                offset: self.offset,
                text: self.text,
            });
        }
        shader.failure = body.failure;
        Ok(shader)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::float_cmp)] // tests: a panic is a failure
mod tests {
    use super::*;

    fn one(text: &str) -> Shader<'_> {
        ShaderText::new(text.as_bytes())
            .entries()
            .next()
            .unwrap()
            .unwrap()
            .parse()
            .unwrap()
    }

    #[test]
    fn first_definition_wins_case_insensitively() {
        let t = "a/b { { map one.tga } }\nA/B { { map two.tga } }";
        let s = ShaderText::new(t.as_bytes()).find(b"a/B").unwrap();
        assert_eq!(s.parse().unwrap().gltf().image, Some(&b"one.tga"[..]));
        // Across files: the first file given (the last listed) wins.
        let files = [&b"x { { map late.tga } }"[..], b"x { { map early.tga } }"];
        let d = find_in_files(files, b"x").unwrap();
        assert_eq!(d.parse().unwrap().gltf().image, Some(&b"late.tga"[..]));
    }

    #[test]
    fn nested_braces_comments_and_stages() {
        let s = one(
            "s // c\n{ /* { */ surfaceparm nodamage\n surfaceParm trans\n nomipmaps\n\
             { map $lightmap }\n { animMap 10 f1.tga f2.tga f3.tga\n blendFunc GL_ONE GL_ZERO\n rgbGen wave sin 0 1 0 1 }\n\
             { clampMap c.tga\n blendfunc filter }\n}",
        );
        assert_eq!(s.failure, None);
        assert_eq!(s.surface_parms(), [&b"nodamage"[..], b"trans"]);
        assert_eq!(s.num_stages(), 3);
        assert_eq!(s.stages()[0].image, Some(StageImage::Lightmap));
        assert_eq!(
            s.stages()[1].image,
            Some(StageImage::AnimMap {
                freq: b"10",
                first: b"f1.tga",
                frames: 3
            })
        );
        assert_eq!(s.stages()[1].rgb_gen, Some(&b"wave"[..]));
        assert_eq!(s.stages()[2].blend, Some(Blend::FILTER));
        let g = s.gltf();
        assert_eq!(
            (g.image, g.stage, g.alpha),
            (Some(&b"f1.tga"[..]), Some(1), AlphaMode::Opaque)
        );
        assert!(!g.approximate);
    }

    #[test]
    fn alpha_modes_and_culling() {
        let gt0 = one("s { cull twosided { map a.tga\n alphaFunc GT0 } }").gltf();
        assert_eq!(
            gt0.alpha,
            AlphaMode::Mask {
                cutoff: 0.5 / 255.0
            }
        );
        assert!(gt0.double_sided);
        let lt = one("s { cull back { map a.tga\n alphaFunc lt128 } }").gltf();
        assert!(lt.invert_alpha && lt.reverse_winding && !lt.double_sided);
        let blend =
            one("s { { map a.tga\n blendfunc gl_src_alpha gl_one_minus_src_alpha } }").gltf();
        assert_eq!(blend.alpha, AlphaMode::Blend);
        let add = one("s { { map a.tga\n blendfunc add } }").gltf();
        assert!(add.approximate && add.alpha == AlphaMode::Blend);
        let env = one("s { qer_editorimage ed.tga\n { map e.tga\n tcGen environment }\n { map $whiteimage } }").gltf();
        assert_eq!((env.image, env.stage), (Some(&b"ed.tga"[..]), None));
        let clamp = one("s { { clampmap c.tga } }").gltf();
        assert!(clamp.clamp);
    }

    #[test]
    fn engine_failures_are_kept_not_errors() {
        let s = one("s {\n bogus 1 2\n { map a.tga } }");
        let f = s.failure.unwrap();
        assert_eq!(
            (f.kind, f.token, f.line(), f.column()),
            (FailureKind::UnknownGeneral, &b"bogus"[..], 2, 2)
        );
        assert!(
            one("s { }")
                .failure
                .is_some_and(|f| f.kind == FailureKind::NoStages)
        );
        assert!(one("s { skyparms - 512 - }").failure.is_none());
        let s = one("s { { map\n } }");
        assert_eq!(s.failure.unwrap().kind, FailureKind::MissingParameter);
        let nine = "s { { map a } { map a } { map a } { map a } { map a } { map a } { map a } { map a } { map a } }";
        let s = one(nine);
        assert_eq!((s.num_stages(), s.stages().len()), (9, 8));
        assert_eq!(s.failure.unwrap().kind, FailureKind::TooManyStages);
    }

    #[test]
    fn malformed_files() {
        let t = ShaderText::new(b"a b\nc { { }");
        let e = t.entries().next().unwrap().unwrap_err();
        assert_eq!(
            (e.kind, e.line, e.column),
            (TextErrorKind::MissingOpenBrace, 1, 1)
        );
        assert!(t.validate_ioq3().is_err());
        let all: usize = t.entries().count();
        assert!(all >= 2);
        let open = ShaderText::new(b"a { \"open");
        assert_eq!(
            open.entries().next().unwrap().unwrap_err().kind,
            TextErrorKind::UnterminatedQuote
        );
        assert_eq!(open.entries().count(), 1);
        assert!(ShaderText::new(b"").entries().next().is_none());
        assert!(ShaderText::new(b"a { }").validate_ioq3().is_ok());
        // `{}` is one word, not a brace (as in the engine).
        assert!(ShaderText::new(b"a {}").validate_ioq3().is_err());
    }
}
