//! Doom 3 `.mtr` material declarations, read as the engine reads them: zero-copy, no
//! allocation. The grammar is that of Doom 3's GPL source: the decl walk of
//! `neo/framework/DeclManager.cpp`, the material parser of `neo/renderer/Material.cpp`
//! and the image programs of `neo/renderer/Image_program.cpp`, over the tokens of
//! `idLexer` (`neo/idlib/Lexer.cpp`, here [`idmodel_md5::lexer`]).
//!
//! One file because it is one grammar: the material language, its stages and its image
//! programs are read by one recursive walk whose pieces share the token stream.
//!
//! * [`MaterialText::decls`] walks a file as `idDeclFile::LoadAndParse` does, with
//!   idLexer's rules (the `/* */` comment quirk included): `[type] name { … }`, where a
//!   missing type means `material`; `table`, `skin`, `sound`, `entityDef` and the other
//!   decl types are returned with their [`DeclType`] and skipped by brace counting; a
//!   decl without a name is skipped.
//! * **First definition wins** ([`MaterialText::find`], [`find_in_files`]): names are
//!   compared canonically (`MakeNameCanonical`: ASCII lower case, `\` = `/`, everything
//!   from the last `.` removed), and a name seen again is ignored, as Doom's "previously
//!   defined" warning says. Across files, pass them in Doom's order: `materials/*.mtr`
//!   sorted with `IcmpPath` (case-insensitive, `\` = `/`, folders first).
//! * [`Decl::material`] reads a body as `ParseMaterial`/`ParseStage`/`ParseBlend` do:
//!   `diffusemap`/`bumpmap`/`specularmap` shorthands, `{ blend …  map <program> }`
//!   stages, `alphaTest`, `translucent`, `twoSided`, `backSided`, `clamp` (material and
//!   stage), `qer_editorimage`. Image programs become [`ImageProgram`]s: a span of the
//!   text read as a small tree on demand ([`ImageProgram::node`]). What would make Doom
//!   default the material (an unknown keyword) is kept as [`Material::failure`].
//! * [`Material::gltf`] gives what a glTF material needs: base colour, normal and
//!   specular programs, alpha mode, double-sidedness and clamping ([`GltfMaterial`]).
//!
//! Errors are the md5 lexer's ([`idmodel_md5::Md5Error`]: byte offset, line, column).
//!
//! ```
//! use idmodel_assets::textures::mtr::{AlphaMode, MaterialText, Node, Op};
//! let text = b"table sinTable { { 0, 1 } }
//! models/monsters/imp/imp {
//!     qer_editorimage models/monsters/imp/imp_d.tga
//!     twoSided
//!     diffusemap models/monsters/imp/imp_d.tga
//!     bumpmap addnormals(models/monsters/imp/imp_local.tga, heightmap(models/monsters/imp/imp_h.tga, 4))
//!     { blend diffusemap map models/monsters/imp/imp_d.tga alphaTest 0.5 }
//! }";
//! let decl = MaterialText::new(text).find(b"Models\\Monsters\\Imp\\imp.tga").unwrap();
//! let m = decl.material()?;
//! let g = m.gltf();
//! assert_eq!(g.base_color.unwrap().first_image(), b"models/monsters/imp/imp_d.tga");
//! assert!(g.double_sided);
//! assert_eq!(g.alpha, AlphaMode::Mask { cutoff: 127.5 / 255.0 });
//! let bump = g.normal.unwrap();
//! let Node::Call { op, .. } = bump.node() else { panic!() };
//! assert_eq!(op, Op::AddNormals);
//! assert_eq!(bump.first_image(), b"models/monsters/imp/imp_local.tga");
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```

/// The glTF alpha mode, shared with Quake III shaders.
pub use idmodel_core::shading::AlphaMode;
/// The GL blend factor of a stage's `blend`, shared with Quake III shaders.
pub use idmodel_core::shading::BlendFactor as GlFactor;

use idmodel_md5::error::{Expected, Found, Md5Error, Md5ErrorKind, Result};
use idmodel_md5::lexer::{CommentRule, Lexer, Parser, Token, TokenKind};

/// The stages kept per material (Doom allows 256; more are counted, not kept).
pub const MAX_KEPT_STAGES: usize = 16;
/// The deepest image-program nesting read (deeper is an error; Doom's recursion has no
/// limit, but no real material nests more than a few levels).
pub const MAX_PROGRAM_DEPTH: usize = 32;

fn eq(a: &[u8], b: &str) -> bool {
    a.eq_ignore_ascii_case(b.as_bytes())
}

/// `clamp`, `zeroclamp` or `alphazeroclamp` (any case), read the same in a stage and in
/// the material's general section.
fn clamp_keyword(w: &[u8]) -> Option<Repeat> {
    [
        ("clamp", Repeat::Clamp),
        ("zeroclamp", Repeat::ZeroClamp),
        ("alphazeroclamp", Repeat::AlphaZeroClamp),
    ]
    .into_iter()
    .find_map(|(k, r)| eq(w, k).then_some(r))
}

fn tok_bytes<'a>(t: &Token<'a>) -> &'a [u8] {
    t.text.as_bytes().unwrap_or(&[])
}

/// The canonical form of a decl name, byte by byte (`MakeNameCanonical`).
fn canonical(name: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let end = name.iter().rposition(|&b| b == b'.').unwrap_or(name.len());
    name.iter().take(end).map(|&b| match b {
        b'\\' => b'/',
        b => b.to_ascii_lowercase(),
    })
}

/// True when two material names are the same decl for Doom 3.
pub fn names_match(a: &[u8], b: &[u8]) -> bool {
    canonical(a).eq(canonical(b))
}

/// The decl types `idDeclManager` registers (the type word before a decl name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the decl type names say it
pub enum DeclType {
    Table,
    Material,
    Skin,
    Sound,
    EntityDef,
    MapDef,
    Fx,
    Particle,
    ArticulatedFigure,
    Pda,
    Video,
    Audio,
    Email,
    ModelExport,
}

const DECL_TYPES: [(&str, DeclType); 14] = [
    ("table", DeclType::Table),
    ("material", DeclType::Material),
    ("skin", DeclType::Skin),
    ("sound", DeclType::Sound),
    ("entityDef", DeclType::EntityDef),
    ("mapDef", DeclType::MapDef),
    ("fx", DeclType::Fx),
    ("particle", DeclType::Particle),
    ("articulatedFigure", DeclType::ArticulatedFigure),
    ("pda", DeclType::Pda),
    ("video", DeclType::Video),
    ("audio", DeclType::Audio),
    ("email", DeclType::Email),
    ("export", DeclType::ModelExport),
];

/// A `.mtr` file's text.
#[derive(Debug, Clone, Copy)]
pub struct MaterialText<'a> {
    src: &'a [u8],
}

impl<'a> MaterialText<'a> {
    /// The file `src`.
    pub fn new(src: &'a [u8]) -> Self {
        Self { src }
    }

    /// The decls in file order. A lexer error, or a name whose `{` is missing or whose
    /// braces never close, is an error, and the walk stops there.
    pub fn decls(&self) -> Decls<'a> {
        Decls {
            lex: Lexer::new(self.src, false, CommentRule::Engine),
            done: false,
        }
    }

    /// The first material decl whose name matches `name` canonically.
    pub fn find(&self, name: &[u8]) -> Option<Decl<'a>> {
        self.decls()
            .map_while(core::result::Result::ok)
            .find(|d| d.kind == DeclType::Material && names_match(d.name, name))
    }
}

/// The first material named `name` across `files` in Doom's order (sorted paths).
pub fn find_in_files<'a, I>(files: I, name: &[u8]) -> Option<Decl<'a>>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    files
        .into_iter()
        .find_map(|f| MaterialText::new(f).find(name))
}

/// One `[type] name { … }` declaration, not yet read.
#[derive(Debug, Clone, Copy)]
pub struct Decl<'a> {
    /// The decl type (`Material` when no type word precedes the name).
    pub kind: DeclType,
    /// The name as written.
    pub name: &'a [u8],
    /// Byte offset of the name.
    pub offset: usize,
    src: &'a [u8],
    /// Offset just after the opening `{`.
    body: usize,
}

/// The decls of a [`MaterialText`].
#[derive(Debug, Clone)]
pub struct Decls<'a> {
    lex: Lexer<'a>,
    done: bool,
}

fn unexpected(src: &[u8], expected: Expected, tok: Option<&Token<'_>>, at: usize) -> Md5Error {
    let found = tok.map_or(Found::END, |t| Found::token(t.kind, t.text.bytes()));
    Md5Error::new(Md5ErrorKind::Unexpected { expected, found }, src, at)
}

/// Skips a braced section after its `{` (`SkipBracedSection(false)` with depth 1).
fn skip_braces(lex: &mut Lexer<'_>) -> Result<bool> {
    let mut depth = 1usize;
    while depth > 0 {
        let Some(t) = lex.next_token()? else {
            return Ok(false);
        };
        if t.kind == TokenKind::Punctuation {
            match tok_bytes(&t) {
                b"{" => depth = depth.saturating_add(1),
                b"}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    Ok(true)
}

fn is_punct(t: &Token<'_>, p: &[u8]) -> bool {
    t.kind == TokenKind::Punctuation && tok_bytes(t) == p
}

impl<'a> Decls<'a> {
    fn step(&mut self) -> Result<Option<Decl<'a>>> {
        let src = self.lex.src();
        loop {
            let Some(first) = self.lex.next_token()? else {
                return Ok(None);
            };
            let typed = DECL_TYPES
                .iter()
                .find(|(n, _)| eq(tok_bytes(&first), n) && first.kind == TokenKind::Name);
            let (kind, name) = match typed {
                Some(&(_, kind)) => match self.lex.next_token()? {
                    Some(n) => (kind, n),
                    None => return Err(unexpected(src, Expected::Token, None, self.lex.pos())),
                },
                None => (DeclType::Material, first),
            };
            if is_punct(&name, b"{") {
                // "Missing decl name": skipped.
                if !skip_braces(&mut self.lex)? {
                    return Err(unexpected(
                        src,
                        Expected::Keyword("}"),
                        None,
                        self.lex.pos(),
                    ));
                }
                continue;
            }
            let open = self.lex.next_token()?;
            match open {
                Some(o) if is_punct(&o, b"{") => {
                    let body = self.lex.pos();
                    if !skip_braces(&mut self.lex)? {
                        return Err(unexpected(src, Expected::Keyword("}"), None, name.offset));
                    }
                    return Ok(Some(Decl {
                        kind,
                        name: tok_bytes(&name),
                        offset: name.offset,
                        src,
                        body,
                    }));
                }
                other => {
                    let at = other.as_ref().map_or(self.lex.pos(), |o| o.offset);
                    return Err(unexpected(src, Expected::Keyword("{"), other.as_ref(), at));
                }
            }
        }
    }
}

impl<'a> Iterator for Decls<'a> {
    type Item = Result<Decl<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(d)) => Some(Ok(d)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // The walk stops at the first error: what follows a broken decl cannot
                // be placed reliably.
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Decls<'_> {}

/// A stage's `blend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StageBlend {
    /// `blend diffusemap` (or the `diffusemap` shorthand): a lit diffuse stage.
    DiffuseMap,
    /// `blend bumpmap`: the normal map.
    BumpMap,
    /// `blend specularmap`: the specular map.
    SpecularMap,
    /// An unlit stage with these factors (`blend`, `add`, `filter`/`modulate`, `none`
    /// resolved, or `src, dst`).
    Factors(GlFactor, GlFactor),
}

/// Texture repeat mode (`clamp`, `zeroclamp`, `alphazeroclamp`, `noclamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Repeat {
    /// `noclamp`: repeat (the default).
    Repeat,
    /// `clamp`.
    Clamp,
    /// `zeroclamp`: clamp to black.
    ZeroClamp,
    /// `alphazeroclamp`: clamp to transparent.
    AlphaZeroClamp,
}

/// A stage's `alphaTest`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaTest<'a> {
    /// A constant (a number, possibly negated): keep fragments with alpha > it.
    Constant(f32),
    /// An expression over tables or parms, as written.
    Expression(&'a [u8]),
}

/// One stage of a material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stage<'a> {
    /// The stage's blend (`None`: no `blend`, which Doom reads as an opaque unlit stage).
    pub blend: Option<StageBlend>,
    /// The `map` image program.
    pub map: Option<ImageProgram<'a>>,
    /// The stage's own repeat mode.
    pub repeat: Option<Repeat>,
    /// `alphaTest`.
    pub alpha_test: Option<AlphaTest<'a>>,
    /// Byte offset of the stage (its `{`, or the shorthand keyword).
    pub offset: usize,
}

/// An image program (`R_ParseImageProgram_r`): a span of the text, read on demand.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ImageProgram<'a> {
    src: &'a [u8],
    start: usize,
    end: usize,
}

impl core::fmt::Debug for ImageProgram<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "ImageProgram({:?})",
            self.text().utf8_chunks().next().map(|c| c.valid())
        )
    }
}

/// An image-program function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op<'a> {
    /// `heightmap(img, scale)`: a height map turned into a normal map.
    Heightmap,
    /// `addnormals(a, b)`: two normal maps combined.
    AddNormals,
    /// `smoothnormals(a)`.
    SmoothNormals,
    /// `add(a, b)`.
    Add,
    /// `scale(a, r, g, b, a)`.
    Scale,
    /// `invertAlpha(a)`.
    InvertAlpha,
    /// `invertColor(a)`.
    InvertColor,
    /// `makeIntensity(a)`.
    MakeIntensity,
    /// `makeAlpha(a)`.
    MakeAlpha,
    /// Any other `name(…)` (Doom 3 has no such function: it reads the name as an image
    /// and fails on the `(`).
    Other(&'a [u8]),
}

impl<'a> Op<'a> {
    fn from_name(name: &'a [u8]) -> Self {
        const OPS: [(&str, Op<'static>); 9] = [
            ("heightmap", Op::Heightmap),
            ("addnormals", Op::AddNormals),
            ("smoothnormals", Op::SmoothNormals),
            ("add", Op::Add),
            ("scale", Op::Scale),
            ("invertAlpha", Op::InvertAlpha),
            ("invertColor", Op::InvertColor),
            ("makeIntensity", Op::MakeIntensity),
            ("makeAlpha", Op::MakeAlpha),
        ];
        OPS.iter()
            .find(|(n, _)| eq(name, n))
            .map_or(Op::Other(name), |&(_, o)| o)
    }

    /// True for the functions Doom 3's image programs have (`R_ParseImageProgram_r` in
    /// `neo/renderer/Image_program.cpp`), all of which a converter can reproduce; false
    /// for [`Op::Other`].
    pub fn is_reproducible(&self) -> bool {
        !matches!(self, Op::Other(_))
    }
}

/// An image program read one level deep.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // made on demand and dropped: not worth a box
pub enum Node<'a> {
    /// An image name (a game path; Doom appends `.tga` when it has no extension).
    Image(&'a [u8]),
    /// A function and its arguments.
    Call {
        /// The function.
        op: Op<'a>,
        /// Its arguments, in order.
        args: Args<'a>,
    },
}

/// An argument of an image-program function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<'a> {
    /// A nested program (an image or a call).
    Program(ImageProgram<'a>),
    /// A number (`heightmap`'s scale, `scale`'s factors).
    Number(f32),
}

/// The arguments of a [`Node::Call`].
#[derive(Debug, Clone)]
pub struct Args<'a> {
    parser: Parser<'a>,
    done: bool,
}

impl<'a> Iterator for Args<'a> {
    type Item = Arg<'a>;

    fn next(&mut self) -> Option<Arg<'a>> {
        if self.done {
            return None;
        }
        // The program was validated when it was read, so errors cannot occur; any that
        // did would end the arguments.
        let arg = read_arg(&mut self.parser, 1).ok()?;
        let sep = self.parser.lexer_mut().next_token().ok().flatten();
        if !sep.is_some_and(|s| is_punct(&s, b",")) {
            self.done = true;
        }
        Some(arg)
    }
}

fn is_number_start(p: &Parser<'_>) -> bool {
    let mut lex = p.lexer().clone();
    match lex.next_token() {
        Ok(Some(t)) => t.is_number() || is_punct(&t, b"-"),
        _ => false,
    }
}

/// One argument: a number or a program, up to (not including) its `,` or `)`.
fn read_arg<'a>(p: &mut Parser<'a>, depth: usize) -> Result<Arg<'a>> {
    if is_number_start(p) {
        return p.parse_float().map(Arg::Number);
    }
    let start = program(p, depth)?;
    Ok(Arg::Program(ImageProgram {
        src: p.lexer().src(),
        start,
        end: p.pos(),
    }))
}

/// Reads one program; returns its start offset.
fn program(p: &mut Parser<'_>, depth: usize) -> Result<usize> {
    let src = p.lexer().src();
    let t = p.read(Expected::Token)?;
    if depth >= MAX_PROGRAM_DEPTH {
        return Err(p.error(
            Md5ErrorKind::BadCount {
                what: "image program nesting depth",
                value: i64::try_from(depth).unwrap_or(i64::MAX),
            },
            t.offset,
        ));
    }
    if !matches!(
        t.kind,
        TokenKind::Name | TokenKind::String | TokenKind::Literal
    ) {
        return Err(unexpected(src, Expected::Token, Some(&t), t.offset));
    }
    if t.kind == TokenKind::Name && p.check("(")? {
        loop {
            read_arg(p, depth.saturating_add(1))?;
            let s = p.read(Expected::Keyword(")"))?;
            if is_punct(&s, b")") {
                break;
            }
            if !is_punct(&s, b",") {
                return Err(unexpected(src, Expected::Keyword(")"), Some(&s), s.offset));
            }
        }
    }
    Ok(t.offset)
}

impl<'a> ImageProgram<'a> {
    /// The program's text as written (`addnormals(a, heightmap(b, 4))`).
    pub fn text(&self) -> &'a [u8] {
        self.src.get(self.start..self.end).unwrap_or(&[])
    }

    /// Byte offset of the program in the file.
    pub fn offset(&self) -> usize {
        self.start
    }

    fn parser(&self) -> Parser<'a> {
        let mut p = Parser::new(self.src, false, CommentRule::Engine);
        p.set_pos(self.start);
        p
    }

    /// The program's head: an image name, or a function with its arguments.
    pub fn node(&self) -> Node<'a> {
        let mut p = self.parser();
        let head = p.lexer_mut().next_token().ok().flatten();
        let name = head.as_ref().map_or(&[][..], tok_bytes);
        match head {
            Some(t) if t.kind == TokenKind::Name && p.check("(").unwrap_or(false) => Node::Call {
                op: Op::from_name(name),
                args: Args {
                    parser: p,
                    done: false,
                },
            },
            _ => Node::Image(name),
        }
    }

    /// The innermost first image argument (`addnormals(a, …)` → `a`,
    /// `heightmap(b, 4)` → `b`): the image to fall back to when a converter does not
    /// carry out the operation.
    pub fn first_image(&self) -> &'a [u8] {
        let mut at = *self;
        for _ in 0..MAX_PROGRAM_DEPTH {
            match at.node() {
                Node::Image(i) => return i,
                Node::Call { mut args, .. } => {
                    match args.find_map(|a| match a {
                        Arg::Program(p) => Some(p),
                        Arg::Number(_) => None,
                    }) {
                        Some(p) => at = p,
                        None => return &[],
                    }
                }
            }
        }
        &[]
    }

    /// True when the program is a plain image name.
    pub fn is_image(&self) -> bool {
        matches!(self.node(), Node::Image(_))
    }

    /// True for a plain image name that is one of Doom's generated images (`_white`,
    /// `_flat`, `_black`, `_default`, …, made in code by `idImageManager::Init` in
    /// `neo/renderer/Image_init.cpp`), not a file.
    pub fn is_generated(&self) -> bool {
        match self.node() {
            Node::Image(i) => i.first() == Some(&b'_'),
            Node::Call { .. } => false,
        }
    }
}

/// What would make Doom default the material ("unknown general material parameter",
/// "unknown token"): the first such token. Line and column are computed when asked for,
/// so reading many materials stays linear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Failure<'a> {
    /// The token.
    pub token: &'a [u8],
    /// True inside a stage.
    pub in_stage: bool,
    /// Byte offset of the token.
    pub offset: usize,
    src: &'a [u8],
}

impl Failure<'_> {
    /// 1-based line.
    pub fn line(&self) -> u32 {
        idmodel_md5::error::line_column(self.src, self.offset).0
    }

    /// 1-based column, in bytes.
    pub fn column(&self) -> u32 {
        idmodel_md5::error::line_column(self.src, self.offset).1
    }
}

/// A material declaration as `ParseMaterial` reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material<'a> {
    /// The name as written.
    pub name: &'a [u8],
    /// `qer_editorimage` (the editor's image; a last-resort base colour).
    pub editor_image: Option<ImageProgram<'a>>,
    /// `translucent`.
    pub translucent: bool,
    /// `twoSided`.
    pub two_sided: bool,
    /// `backSided`.
    pub back_sided: bool,
    /// The material-level repeat mode (`clamp` … outside a stage: every stage's default).
    pub repeat: Option<Repeat>,
    stages: [Option<Stage<'a>>; MAX_KEPT_STAGES],
    num_stages: usize,
    /// The first thing Doom would refuse (it then uses its default material).
    pub failure: Option<Failure<'a>>,
}

/// What a glTF material needs from a Doom 3 material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GltfMaterial<'a> {
    /// The base colour: the first diffuse stage's program (not a generated image such as
    /// `_white`), else the first unlit stage's, else `qer_editorimage`.
    pub base_color: Option<ImageProgram<'a>>,
    /// The base colour comes from `qer_editorimage`.
    pub from_editor_image: bool,
    /// The first bump stage's program (its green channel is to be inverted for glTF, whose
    /// normal maps point green the other way); `None` for `_flat`.
    pub normal: Option<ImageProgram<'a>>,
    /// The first specular stage's program.
    pub specular: Option<ImageProgram<'a>>,
    /// The alpha mode.
    pub alpha: AlphaMode,
    /// An `alphaTest` expression that is not a constant was read as 0.5.
    pub alpha_test_expression: bool,
    /// `twoSided`.
    pub double_sided: bool,
    /// The base colour's stage (or the material) clamps: sampler CLAMP_TO_EDGE.
    pub clamp: bool,
}

impl<'a> Material<'a> {
    /// The stages kept (at most [`MAX_KEPT_STAGES`]), shorthands included, in order.
    pub fn stages(&self) -> impl Iterator<Item = &Stage<'a>> + '_ {
        self.stages.iter().flatten()
    }

    /// How many stages the material has (including any beyond those kept).
    pub fn num_stages(&self) -> usize {
        self.num_stages
    }

    fn first(&self, blend: StageBlend) -> Option<&Stage<'a>> {
        self.stages()
            .find(|s| s.blend == Some(blend) && s.map.is_some())
    }

    /// The glTF view: which programs give the base colour, normal and specular textures,
    /// and the alpha mode, double-sidedness and clamping ([`GltfMaterial`]'s fields).
    pub fn gltf(&self) -> GltfMaterial<'a> {
        let diffuse = self
            .first(StageBlend::DiffuseMap)
            .filter(|s| s.map.is_some_and(|m| !m.is_generated()));
        let unlit = self.stages().find(|s| {
            matches!(s.blend, Some(StageBlend::Factors(..)) | None)
                && s.map.is_some_and(|m| !m.is_generated())
        });
        let base_stage = diffuse.or(unlit);
        let base_color = base_stage.and_then(|s| s.map);
        let from_editor_image = base_color.is_none() && self.editor_image.is_some();
        let normal = self
            .first(StageBlend::BumpMap)
            .and_then(|s| s.map)
            .filter(|m| !(m.is_image() && eq(m.first_image(), "_flat")));
        let specular = self.first(StageBlend::SpecularMap).and_then(|s| s.map);
        let test = base_stage
            .and_then(|s| s.alpha_test)
            .or_else(|| self.stages().find_map(|s| s.alpha_test));
        let mut alpha_test_expression = false;
        let alpha = match test {
            Some(AlphaTest::Constant(v)) => {
                let v = if v.is_finite() {
                    v.clamp(0.0, 1.0)
                } else {
                    0.5
                };
                let cutoff = ((v * 255.0).floor() + 0.5) / 255.0;
                AlphaMode::Mask {
                    cutoff: cutoff.min(1.0),
                }
            }
            Some(AlphaTest::Expression(_)) => {
                alpha_test_expression = true;
                AlphaMode::Mask { cutoff: 0.5 }
            }
            None if self.translucent => AlphaMode::Blend,
            None if diffuse.is_none()
                && unlit.is_some_and(|s| {
                    s.blend
                        == Some(StageBlend::Factors(
                            GlFactor::SrcAlpha,
                            GlFactor::OneMinusSrcAlpha,
                        ))
                }) =>
            {
                AlphaMode::Blend
            }
            None => AlphaMode::Opaque,
        };
        let clamp = base_stage
            .and_then(|s| s.repeat)
            .or(self.repeat)
            .is_some_and(|r| r != Repeat::Repeat);
        GltfMaterial {
            base_color: base_color.or(self.editor_image),
            from_editor_image,
            normal,
            specular,
            alpha,
            alpha_test_expression,
            double_sided: self.two_sided,
            clamp,
        }
    }
}

/// General keywords that take no argument and have no converter use.
const GENERAL_FLAGS: [&str; 52] = [
    "noShadows",
    "noSelfShadow",
    "forceShadows",
    "noOverlays",
    "forceOverlays",
    "forceOpaque",
    "noPortalFog",
    "unsmoothedTangents",
    "mirror",
    "fogLight",
    "blendLight",
    "ambientLight",
    "noFog",
    "solid",
    "water",
    "playerclip",
    "monsterclip",
    "moveableclip",
    "ikclip",
    "blood",
    "trigger",
    "aassolid",
    "aasobstacle",
    "flashlight_trigger",
    "nonsolid",
    "nullNormal",
    "areaportal",
    "qer_nocarve",
    "discrete",
    "noFragment",
    "slick",
    "collision",
    "noimpact",
    "nodamage",
    "ladder",
    "nosteps",
    "metal",
    "stone",
    "flesh",
    "wood",
    "cardboard",
    "liquid",
    "glass",
    "plastic",
    "ricochet",
    "DECAL_MACRO",
    "TWOSIDED_DECAL_MACRO",
    "GLASS_MACRO",
    "PARTICLE_MACRO",
    "islightgemsurf",
    "noShadows",
    "forceOpaque",
];
/// General keywords whose arguments are read past (to the end of the line).
const GENERAL_ARGS: [&str; 12] = [
    "description",
    "sort",
    "polygonOffset",
    "deform",
    "decalInfo",
    "spectrum",
    "guisurf",
    "lightFalloffImage",
    "materialType",
    "surftype",
    "renderbump",
    "renderbumpflat",
];
/// Stage keywords without arguments.
const STAGE_FLAGS: [&str; 20] = [
    "uncompressed",
    "highquality",
    "forceHighQuality",
    "nopicmip",
    "vertexColor",
    "inverseVertexColor",
    "colored",
    "ignoreAlphaTest",
    "nearest",
    "linear",
    "maskRed",
    "maskGreen",
    "maskBlue",
    "maskAlpha",
    "maskColor",
    "maskDepth",
    "ignoreDepth",
    "forceHighQuality",
    "privatePolygonOffset",
    "alphaTestPass",
];
/// Stage keywords whose arguments are read past (to the end of the line).
const STAGE_ARGS: [&str; 27] = [
    "cubeMap",
    "cameraCubeMap",
    "videomap",
    "soundmap",
    "remoteRenderMap",
    "mirrorRenderMap",
    "texGen",
    "scroll",
    "translate",
    "scale",
    "centerScale",
    "shear",
    "rotate",
    "rgb",
    "rgba",
    "red",
    "green",
    "blue",
    "alpha",
    "color",
    "vertexProgram",
    "fragmentProgram",
    "program",
    "vertexParm",
    "fragmentMap",
    "megaTexture",
    "condition",
];

struct Reader<'a> {
    p: Parser<'a>,
    failure: Option<Failure<'a>>,
}

impl<'a> Reader<'a> {
    fn src(&self) -> &'a [u8] {
        self.p.lexer().src()
    }

    fn fail(&mut self, t: &Token<'a>, in_stage: bool) {
        if self.failure.is_none() {
            self.failure = Some(Failure {
                token: tok_bytes(t),
                in_stage,
                offset: t.offset,
                src: self.src(),
            });
        }
    }

    /// A keyword this reader does not model: one of `flags` is skipped alone, one of
    /// `args` with the rest of its line; anything else is also skipped with its line, and
    /// noted as the first failure (`in_stage` says where).
    fn skip(
        &mut self,
        t: &Token<'a>,
        (flags, args): (&[&str], &[&str]),
        in_stage: bool,
    ) -> Result<()> {
        let w = tok_bytes(t);
        if flags.iter().any(|k| eq(w, k)) {
            return Ok(());
        }
        if !args.iter().any(|k| eq(w, k)) {
            self.fail(t, in_stage);
        }
        self.drop_line()
    }

    /// `ReadTokenOnLine`: the next token if no line break comes before it.
    fn on_line(&mut self) -> Result<Option<Token<'a>>> {
        let pos = self.p.pos();
        let t = self.p.lexer_mut().next_token()?;
        match t {
            Some(t)
                if !self
                    .src()
                    .get(pos..t.offset)
                    .unwrap_or(&[])
                    .contains(&b'\n') =>
            {
                Ok(Some(t))
            }
            _ => {
                self.p.set_pos(pos);
                Ok(None)
            }
        }
    }

    /// The rest of the line's tokens, up to (not including) a `}`.
    fn drop_line(&mut self) -> Result<()> {
        loop {
            let pos = self.p.pos();
            match self.on_line()? {
                Some(t) if is_punct(&t, b"}") => {
                    self.p.set_pos(pos);
                    return Ok(());
                }
                Some(_) => {}
                None => return Ok(()),
            }
        }
    }

    fn image_program(&mut self) -> Result<ImageProgram<'a>> {
        let start = program(&mut self.p, 0)?;
        Ok(ImageProgram {
            src: self.src(),
            start,
            end: self.p.pos(),
        })
    }

    /// `ParseBlend`.
    fn blend(&mut self) -> Result<StageBlend> {
        let t = self.p.read(Expected::Token)?;
        let w = tok_bytes(&t);
        Ok(if eq(w, "diffusemap") {
            StageBlend::DiffuseMap
        } else if eq(w, "bumpmap") {
            StageBlend::BumpMap
        } else if eq(w, "specularmap") {
            StageBlend::SpecularMap
        } else if eq(w, "blend") {
            StageBlend::Factors(GlFactor::SrcAlpha, GlFactor::OneMinusSrcAlpha)
        } else if eq(w, "add") {
            StageBlend::Factors(GlFactor::One, GlFactor::One)
        } else if eq(w, "filter") || eq(w, "modulate") {
            StageBlend::Factors(GlFactor::DstColor, GlFactor::Zero)
        } else if eq(w, "none") {
            StageBlend::Factors(GlFactor::Zero, GlFactor::One)
        } else {
            let src = GlFactor::from_name(w).0;
            self.p.expect(",")?;
            let d = self.p.read(Expected::Token)?;
            StageBlend::Factors(src, GlFactor::from_name(tok_bytes(&d)).0)
        })
    }

    /// An expression (`ParseExpression`), skipped; a lone number (or `-` number) is
    /// returned as a constant.
    fn expression(&mut self, depth: usize) -> Result<AlphaTest<'a>> {
        let start = self.p.pos();
        let mut terms = 0usize;
        let mut constant;
        loop {
            let value = self.term(depth)?;
            terms = terms.saturating_add(1);
            constant = value;
            let pos = self.p.pos();
            match self.p.lexer_mut().next_token()? {
                Some(t)
                    if t.kind == TokenKind::Punctuation
                        && matches!(
                            tok_bytes(&t),
                            b"+" | b"-"
                                | b"*"
                                | b"/"
                                | b"%"
                                | b"&&"
                                | b"||"
                                | b"=="
                                | b"!="
                                | b"<"
                                | b">"
                                | b"<="
                                | b">="
                        ) => {}
                _ => {
                    self.p.set_pos(pos);
                    break;
                }
            }
        }
        let text = self.src().get(start..self.p.pos()).unwrap_or(&[]);
        let text_start = text
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(text.len());
        Ok(match (terms, constant) {
            (1, Some(v)) => AlphaTest::Constant(v),
            _ => AlphaTest::Expression(text.get(text_start..).unwrap_or(&[])),
        })
    }

    /// One term; its value when it is a number.
    fn term(&mut self, depth: usize) -> Result<Option<f32>> {
        let t = self.p.read(Expected::Token)?;
        if depth >= MAX_PROGRAM_DEPTH {
            return Err(self.p.error(
                Md5ErrorKind::BadCount {
                    what: "expression nesting depth",
                    value: i64::try_from(depth).unwrap_or(i64::MAX),
                },
                t.offset,
            ));
        }
        if t.is_number() {
            return Ok(Some(t.float_value()));
        }
        if is_punct(&t, b"-") {
            return Ok(self.term(depth.saturating_add(1))?.map(|v| -v));
        }
        if is_punct(&t, b"(") {
            self.expression(depth.saturating_add(1))?;
            self.p.expect(")")?;
            return Ok(None);
        }
        if t.kind == TokenKind::Name {
            if self.p.check("[")? {
                self.expression(depth.saturating_add(1))?;
                self.p.expect("]")?;
            }
            return Ok(None);
        }
        Err(unexpected(self.src(), Expected::Float, Some(&t), t.offset))
    }

    /// `ParseStage`, after its `{`.
    fn stage(&mut self, stage: &mut Stage<'a>) -> Result<()> {
        loop {
            let t = self.p.read(Expected::Keyword("}"))?;
            let w = tok_bytes(&t);
            if is_punct(&t, b"}") {
                return Ok(());
            }
            if eq(w, "blend") {
                stage.blend = Some(self.blend()?);
            } else if eq(w, "map") {
                stage.map = Some(self.image_program()?);
            } else if let Some(clamp) = clamp_keyword(w) {
                stage.repeat = Some(clamp);
            } else if eq(w, "noclamp") {
                stage.repeat = Some(Repeat::Repeat);
            } else if eq(w, "alphaTest") {
                stage.alpha_test = Some(self.expression(0)?);
            } else {
                self.skip(&t, (&STAGE_FLAGS, &STAGE_ARGS), true)?;
            }
        }
    }
}

impl<'a> Decl<'a> {
    /// Reads the decl as a material (whatever its [`Decl::kind`]). Errors are the
    /// lexer's and broken grammar (a `blend` without `,`, an image program without `)`);
    /// unknown keywords are [`Material::failure`].
    pub fn material(&self) -> Result<Material<'a>> {
        let mut p = Parser::new(self.src, false, CommentRule::Engine);
        p.set_pos(self.body);
        let mut r = Reader { p, failure: None };
        let mut m = Material {
            name: self.name,
            editor_image: None,
            translucent: false,
            two_sided: false,
            back_sided: false,
            repeat: None,
            stages: [None; MAX_KEPT_STAGES],
            num_stages: 0,
            failure: None,
        };
        let push = |m: &mut Material<'a>, s: Stage<'a>| {
            if let Some(slot) = m.stages.get_mut(m.num_stages) {
                *slot = Some(s);
            }
            m.num_stages = m.num_stages.saturating_add(1);
        };
        loop {
            let t = r.p.read(Expected::Keyword("}"))?;
            let w = tok_bytes(&t);
            if is_punct(&t, b"}") {
                break;
            }
            let shorthand = if eq(w, "diffusemap") {
                Some(StageBlend::DiffuseMap)
            } else if eq(w, "bumpmap") {
                Some(StageBlend::BumpMap)
            } else if eq(w, "specularmap") {
                Some(StageBlend::SpecularMap)
            } else {
                None
            };
            if let Some(blend) = shorthand {
                let map = r.image_program()?;
                push(
                    &mut m,
                    Stage {
                        blend: Some(blend),
                        map: Some(map),
                        repeat: None,
                        alpha_test: None,
                        offset: t.offset,
                    },
                );
            } else if is_punct(&t, b"{") {
                let mut s = Stage {
                    blend: None,
                    map: None,
                    repeat: None,
                    alpha_test: None,
                    offset: t.offset,
                };
                r.stage(&mut s)?;
                push(&mut m, s);
            } else if eq(w, "qer_editorimage") {
                // `ReadTokenOnLine`: the image must be on the keyword's line.
                if let Some(peek) = r.on_line()? {
                    r.p.set_pos(peek.offset);
                    m.editor_image = Some(r.image_program()?);
                }
            } else if eq(w, "translucent") {
                m.translucent = true;
            } else if eq(w, "twoSided") {
                m.two_sided = true;
            } else if eq(w, "backSided") {
                m.back_sided = true;
            } else if let Some(clamp) = clamp_keyword(w) {
                m.repeat = Some(clamp);
            } else {
                r.skip(&t, (&GENERAL_FLAGS, &GENERAL_ARGS), false)?;
            }
        }
        m.failure = r.failure;
        Ok(m)
    }
}

// Tests may index, unwrap and panic: a panic is a failed assertion.
#[cfg(test)]
#[allow(
    clippy::float_cmp,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]
mod tests {
    use super::*;

    fn one(text: &[u8]) -> Material<'_> {
        MaterialText::new(text)
            .decls()
            .next()
            .unwrap()
            .unwrap()
            .material()
            .unwrap()
    }

    #[test]
    fn decl_types_and_first_definition_wins() {
        let t = b"table t { { 0, 1 } }\nskin s { a b }\nmaterial m.tga { diffusemap one }\n\
                  { missing name }\nM { diffusemap two }";
        let decls: Vec<_> = MaterialText::new(t).decls().map(|d| d.unwrap()).collect();
        let kinds: Vec<_> = decls.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DeclType::Table,
                DeclType::Skin,
                DeclType::Material,
                DeclType::Material
            ]
        );
        let m = MaterialText::new(t).find(b"m").unwrap().material().unwrap();
        assert_eq!(m.gltf().base_color.unwrap().text(), b"one");
        assert!(MaterialText::new(t).find(b"t").is_none()); // a table, not a material
        let files = [&b"x { diffusemap a }"[..], b"x { diffusemap b }"];
        let d = find_in_files(files, b"X").unwrap();
        assert_eq!(
            d.material().unwrap().gltf().base_color.unwrap().text(),
            b"a"
        );
    }

    #[test]
    fn stages_blends_and_programs() {
        let m = one(
            b"m {\n clamp\n bumpmap heightmap(h.tga, 4.5)\n specularmap s\n\
                      { blend gl_one, gl_zero\n map makeIntensity(x) }\n\
                      { blend add map glow.tga zeroclamp }\n}",
        );
        assert_eq!(m.num_stages(), 4);
        let st: Vec<_> = m.stages().collect();
        assert_eq!(
            st[2].blend,
            Some(StageBlend::Factors(GlFactor::One, GlFactor::Zero))
        );
        assert_eq!(st[3].repeat, Some(Repeat::ZeroClamp));
        let bump = st[0].map.unwrap();
        let Node::Call { op, args } = bump.node() else {
            panic!()
        };
        assert_eq!(op, Op::Heightmap);
        let args: Vec<_> = args.collect();
        assert_eq!(args.len(), 2);
        assert!(matches!(args[0], Arg::Program(p) if p.text() == b"h.tga"));
        assert_eq!(args[1], Arg::Number(4.5));
        let g = m.gltf();
        // No diffuse stage: the first unlit stage with a file image.
        assert_eq!(g.base_color.unwrap().text(), b"makeIntensity(x)");
        assert_eq!(g.base_color.unwrap().first_image(), b"x");
        assert!(g.clamp); // the material's `clamp`
        assert_eq!(g.specular.unwrap().text(), b"s");
        assert_eq!(g.alpha, AlphaMode::Opaque);
    }

    #[test]
    fn alpha_modes() {
        let g = one(b"m { translucent { blend diffusemap map d } }").gltf();
        assert_eq!(g.alpha, AlphaMode::Blend);
        let g = one(b"m { { blend diffusemap map d alphaTest 0.25 } }").gltf();
        assert_eq!(
            g.alpha,
            AlphaMode::Mask {
                cutoff: 63.5 / 255.0
            }
        );
        let g = one(b"m { { blend diffusemap map d alphaTest 0.5 * sinTable[time] } }").gltf();
        assert!(g.alpha_test_expression);
        let g = one(b"m { { blend blend map decal.tga } }").gltf();
        assert_eq!(g.alpha, AlphaMode::Blend);
        let g = one(b"m { qer_editorimage ed.tga\n bumpmap _flat\n diffusemap _white }").gltf();
        assert!(g.from_editor_image && g.normal.is_none());
        assert_eq!(g.base_color.unwrap().text(), b"ed.tga");
    }

    #[test]
    fn unknown_keywords_are_failures_not_errors() {
        let m = one(b"m {\n  bogus 1 2 { x }\n diffusemap d }");
        let f = m.failure.unwrap();
        assert_eq!(
            (f.token, f.line(), f.column(), f.in_stage),
            (&b"bogus"[..], 2, 3, false)
        );
        let m = one(b"m { { weird } }");
        assert!(m.failure.unwrap().in_stage);
    }

    #[test]
    fn hostile_text() {
        let e = MaterialText::new(b"m { diffusemap a(b, c")
            .decls()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("line 1"));
        let deep = [
            b"m { diffusemap ".as_slice(),
            &[b'a', b'('].repeat(100),
            b"x }",
        ]
        .concat();
        let d = MaterialText::new(&deep).decls().next();
        // The braces are unbalanced only inside parentheses: the decl is found, the program refused.
        if let Some(Ok(d)) = d {
            assert!(d.material().is_err());
        }
        assert!(MaterialText::new(b"m").decls().next().unwrap().is_err());
        assert!(MaterialText::new(b"m @").decls().next().unwrap().is_err());
        // A missing `{` ends the walk with its error.
        let mut d = MaterialText::new(b"a b { } c { }").decls();
        assert!(d.next().unwrap().is_err());
        assert!(d.next().is_none());
    }
}
