//! `.skin` files: a zero-copy parser that follows the engine's `CommaParse` and
//! `RE_RegisterSkin` (docs/game-data.md §6.5), and checks against a model.

use core::fmt;

use idmodel_core::Name;
use idmodel_core::findings::{Engine, Found, Severity};

use crate::text::{LineCounter, TextError, Tokenizer, WordEnd};
use crate::view::Md3;

/// ioq3's `MAX_SKIN_SURFACES`: entries after this many are dropped.
pub const MAX_SKIN_SURFACES_IOQ3: usize = 256;
/// Quake III 1.32's fixed array (`MD3_MAX_SURFACES`), not checked: more entries overflow.
pub const MAX_SKIN_SURFACES_QUAKE3: usize = 32;
/// The engine keeps at most this many bytes of a surface name (`MAX_QPATH − 1`).
pub const MAX_SURFACE_NAME: usize = 63;

/// What a skin entry does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A `surface,shader` pair.
    Surface,
    /// A name containing `tag_` (case-sensitive, anywhere): skipped by the engine, and
    /// no shader token is read for it.
    Tag,
}

/// One entry of a `.skin` file, borrowed from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkinEntry<'a> {
    /// Surface or tag entry.
    pub kind: EntryKind,
    /// The name token as written (original case, untruncated).
    pub name: &'a [u8],
    /// The shader token (empty for tags, and for an empty shader at the end of the file).
    pub shader: &'a [u8],
    /// 1-based line of the name.
    pub line: u32,
    /// 1-based line of the shader token (equals `line` for a tag).
    pub shader_line: u32,
    /// True when a `,` directly follows the name (the only comma the engine steps over).
    pub comma: bool,
    /// 1-based line of the token that follows a tag entry, if any (the engine reads it
    /// as the next surface name).
    next_line: Option<u32>,
}

impl SkinEntry<'_> {
    /// True when this entry names the engine surface name `engine_name` (the entry's
    /// first 63 bytes, lower-cased, compared exactly; see [`crate::EngineName`]).
    pub fn matches(&self, engine_name: &[u8]) -> bool {
        let n = self.name.get(..MAX_SURFACE_NAME).unwrap_or(self.name);
        n.len() == engine_name.len()
            && n.iter()
                .zip(engine_name)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
    }

    /// The name as text (bytes that are not UTF-8 are escaped by `Display`).
    pub fn name(&self) -> Name<'_> {
        Name::from_field(self.name)
    }

    /// The shader as text.
    pub fn shader(&self) -> Name<'_> {
        Name::from_field(self.shader)
    }
}

/// A parsed `.skin` file.
///
/// ```
/// use idmodel_md3::{Skin, EntryKind};
/// let skin = Skin::parse(b"H_Head,models/h.tga\r\ntag_head,\r\nh_eyes,models/e.tga")?;
/// let e: Vec<_> = skin.entries().collect();
/// assert_eq!(e.len(), 3);
/// assert!(e[0].matches(b"h_head"));
/// assert_eq!(e[1].kind, EntryKind::Tag);
/// assert_eq!(skin.shader_for(b"h_eyes", idmodel_md3::Engine::Ioq3), Some(&b"models/e.tga"[..]));
/// # Ok::<(), idmodel_md3::TextError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Skin<'a> {
    text: &'a [u8],
    surfaces: usize,
    tags: usize,
}

impl<'a> Skin<'a> {
    /// Parses `text` as `RE_RegisterSkin` does. The text ends at its first NUL byte, as
    /// in the engine. The only error is a `"` string that never closes.
    pub fn parse(text: &'a [u8]) -> Result<Self, TextError> {
        let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        let text = text.get(..end).unwrap_or(text);
        let mut skin = Self {
            text,
            surfaces: 0,
            tags: 0,
        };
        let mut it = SkinEntries::new(text);
        while let Some(e) = it.step()? {
            match e.kind {
                EntryKind::Surface => skin.surfaces = skin.surfaces.saturating_add(1),
                EntryKind::Tag => skin.tags = skin.tags.saturating_add(1),
            }
        }
        Ok(skin)
    }

    /// The text the engine sees (up to the first NUL).
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// Every entry in file order, tags included.
    pub fn entries(&self) -> SkinEntries<'a> {
        SkinEntries::new(self.text)
    }

    /// The `surface,shader` entries in file order.
    pub fn surface_entries(&self) -> impl Iterator<Item = SkinEntry<'a>> + use<'a> {
        self.entries().filter(|e| e.kind == EntryKind::Surface)
    }

    /// Number of surface entries.
    pub fn num_surfaces(&self) -> usize {
        self.surfaces
    }

    /// Number of skipped `tag_` entries.
    pub fn num_tags(&self) -> usize {
        self.tags
    }

    /// The shader the engine gives the surface with engine name `engine_name`: the first
    /// matching entry among those stored (ioq3 keeps 256). `None` means the renderer's
    /// default shader. An empty result means the default shader too. `None` for an
    /// engine that does not load MD3 (one not in [`ENGINES`](crate::ENGINES)).
    pub fn shader_for(&self, engine_name: &[u8], engine: Engine) -> Option<&'a [u8]> {
        let stored = match engine {
            Engine::Ioq3 => MAX_SKIN_SURFACES_IOQ3,
            // Quake III overflows past 32 entries; the first 32 are the ones it defines.
            Engine::Quake3 => MAX_SKIN_SURFACES_QUAKE3,
            _ => return None,
        };
        self.surface_entries()
            .take(stored)
            .find(|e| e.matches(engine_name))
            .map(|e| e.shader)
    }

    /// Surface entries that name no surface of `md3` (harmless, but often a typo).
    pub fn unknown_surfaces<'m>(
        &self,
        md3: &Md3<'m>,
    ) -> impl Iterator<Item = SkinEntry<'a>> + use<'a, 'm> {
        let md3 = *md3;
        self.surface_entries().filter(move |e| {
            !md3.surfaces()
                .any(|s| e.matches(s.engine_name().as_bytes()))
        })
    }

    /// Reports what `engine` does with this skin, and, given the model it dresses, the
    /// entries that name no surface and the surfaces no entry names; nothing for an
    /// engine that does not load MD3 (one not in [`ENGINES`](crate::ENGINES)).
    pub fn check(
        &self,
        model: Option<&Md3<'_>>,
        engine: Engine,
        sink: &mut dyn FnMut(SkinFinding<'a>),
    ) {
        let (max, sev) = match engine {
            Engine::Ioq3 => (MAX_SKIN_SURFACES_IOQ3, Severity::Warning),
            Engine::Quake3 => (MAX_SKIN_SURFACES_QUAKE3, Severity::Hazard),
            _ => return,
        };
        let mut emit = |kind, severity| sink(SkinFinding::new(kind, severity, engine));
        if self.surfaces == 0 {
            emit(SkinFindingKind::NoSurfaces, Severity::Refused);
        }
        if self.surfaces > max {
            emit(
                SkinFindingKind::TooManySurfaces {
                    count: self.surfaces,
                    max,
                },
                sev,
            );
        }
        for e in self.entries() {
            let line = e.line;
            match e.kind {
                EntryKind::Tag => {
                    if e.comma && e.next_line == Some(line) {
                        emit(SkinFindingKind::TagSwallowsNext { line }, Severity::Hazard);
                    }
                }
                EntryKind::Surface => {
                    let n = e.name;
                    if n.windows(4).any(|w| w.eq_ignore_ascii_case(b"tag_")) {
                        emit(SkinFindingKind::TagNotSkipped { line }, Severity::Hazard);
                    }
                    if n.len() > MAX_SURFACE_NAME {
                        emit(SkinFindingKind::NameTruncated { line }, Severity::Warning);
                    }
                    if e.shader.first() == Some(&b',') {
                        emit(SkinFindingKind::CommaShader { line }, Severity::Hazard);
                    } else if e.shader.is_empty() {
                        emit(SkinFindingKind::EmptyShader { line }, Severity::Warning);
                    } else if e.shader_line != line {
                        emit(
                            SkinFindingKind::ShaderOnNextLine {
                                line,
                                shader_line: e.shader_line,
                            },
                            Severity::Hazard,
                        );
                    }
                }
            }
        }
        if let Some(md3) = model {
            for e in self.unknown_surfaces(md3) {
                emit(
                    SkinFindingKind::UnknownSurface {
                        line: e.line,
                        name: e.name,
                    },
                    Severity::Warning,
                );
            }
            for s in md3.surfaces() {
                if self
                    .shader_for(s.engine_name().as_bytes(), engine)
                    .is_none()
                {
                    emit(
                        SkinFindingKind::UnskinnedSurface { surface: s.index() },
                        Severity::Hazard,
                    );
                }
            }
        }
    }

    /// [`check`](Self::check) collected into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(
        &self,
        model: Option<&Md3<'_>>,
        engine: Engine,
    ) -> alloc::vec::Vec<SkinFinding<'a>> {
        let mut out = alloc::vec::Vec::new();
        self.check(model, engine, &mut |f| out.push(f));
        out
    }
}

/// The entries of a [`Skin`] (from [`Skin::entries`]).
#[derive(Debug, Clone)]
pub struct SkinEntries<'a> {
    lex: Tokenizer<'a>,
    lines: LineCounter,
    done: bool,
}

impl<'a> SkinEntries<'a> {
    fn new(text: &'a [u8]) -> Self {
        Self {
            lex: Tokenizer::new(text, 0, WordEnd::SpaceOrComma),
            lines: LineCounter::default(),
            done: false,
        }
    }

    /// The 1-based line of `offset` (offsets are asked in increasing order).
    fn line_of(&mut self, offset: usize) -> u32 {
        self.lines.line_at(self.lex.text, offset)
    }

    fn step(&mut self) -> Result<Option<SkinEntry<'a>>, TextError> {
        if self.done {
            return Ok(None);
        }
        let name = self.lex.next()?;
        if name.bytes.is_empty() {
            self.done = true;
            return Ok(None);
        }
        let line = self.line_of(name.start);
        let comma = self.lex.byte(self.lex.pos) == b',';
        if comma {
            self.lex.pos = self.lex.pos.saturating_add(1);
        }
        if name.bytes.windows(4).any(|w| w == b"tag_") {
            // Peek at the next token to report a tag line that swallows a shader.
            let mut peek = self.lex.clone();
            let next_line = match peek.next() {
                Ok(t) if !t.bytes.is_empty() => {
                    // Count on from the name's line (not from the start of the text).
                    let gap = self.lex.text.get(name.start..t.start).unwrap_or(&[]);
                    let n = gap.iter().filter(|&&b| b == b'\n').count();
                    Some(line.saturating_add(u32::try_from(n).unwrap_or(u32::MAX)))
                }
                _ => None,
            };
            return Ok(Some(SkinEntry {
                kind: EntryKind::Tag,
                name: name.bytes,
                shader: &[],
                line,
                shader_line: line,
                comma,
                next_line,
            }));
        }
        let shader = self.lex.next()?;
        let shader_line = if shader.bytes.is_empty() {
            line
        } else {
            self.line_of(shader.start)
        };
        Ok(Some(SkinEntry {
            kind: EntryKind::Surface,
            name: name.bytes,
            shader: shader.bytes,
            line,
            shader_line,
            comma,
            next_line: None,
        }))
    }
}

impl<'a> Iterator for SkinEntries<'a> {
    type Item = SkinEntry<'a>;

    fn next(&mut self) -> Option<SkinEntry<'a>> {
        // `Skin::parse` ran the same loop without error, so `step` cannot fail here.
        self.step().unwrap_or_else(|_| {
            self.done = true;
            None
        })
    }
}

impl core::iter::FusedIterator for SkinEntries<'_> {}

/// What a `.skin` finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkinFindingKind<'a> {
    /// No surface entries: the skin handle is 0 and player loading fails.
    NoSurfaces,
    /// More surface entries than the engine stores.
    TooManySurfaces {
        /// Surface entries in the file.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// A tag line with a comma is followed by a token on the same line, which the engine
    /// reads as the next surface name (later pairs shift).
    TagSwallowsNext {
        /// Line of the tag.
        line: u32,
    },
    /// A name like `TAG_head` is not skipped (the test is case-sensitive): it takes the
    /// next token as its shader.
    TagNotSkipped {
        /// Line of the name.
        line: u32,
    },
    /// A surface name longer than 63 bytes is cut by the engine.
    NameTruncated {
        /// Line of the name.
        line: u32,
    },
    /// The shader token starts with a comma (a space before the comma): no such shader.
    CommaShader {
        /// Line of the entry.
        line: u32,
    },
    /// An empty shader at the end of the file: the default shader.
    EmptyShader {
        /// Line of the entry.
        line: u32,
    },
    /// The shader token was taken from a later line (an entry without a shader pulls the
    /// next token in, and later pairs shift).
    ShaderOnNextLine {
        /// Line of the surface name.
        line: u32,
        /// Line of the token used as its shader.
        shader_line: u32,
    },
    /// An entry names a surface the model does not have (harmless).
    UnknownSurface {
        /// Line of the entry.
        line: u32,
        /// The name as written.
        name: &'a [u8],
    },
    /// A model surface no entry names: the renderer's default shader.
    UnskinnedSurface {
        /// Surface index.
        surface: usize,
    },
}

idmodel_core::finding_kind!(SkinFindingKind<'_>, write_skin_message, {
    NoSurfaces => "no-surfaces",
    TooManySurfaces => "too-many-surfaces",
    TagSwallowsNext => "tag-swallows-next",
    TagNotSkipped => "tag-not-skipped",
    NameTruncated => "name-truncated",
    CommaShader => "comma-shader",
    EmptyShader => "empty-shader",
    ShaderOnNextLine => "shader-on-next-line",
    UnknownSurface => "unknown-surface",
    UnskinnedSurface => "unskinned-surface",
});

/// One thing an engine would do with a `.skin` file.
pub type SkinFinding<'a> = Found<SkinFindingKind<'a>>;

fn write_skin_message(
    found: &Found<SkinFindingKind<'_>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let p = found.engine.display_name();
    match found.kind {
        SkinFindingKind::NoSurfaces => {
            f.write_str("the skin has no surface entries; the engine treats it as missing")
        }
        SkinFindingKind::TooManySurfaces { count, max } => match found.engine {
            Engine::Ioq3 => write!(
                f,
                "{count} surface entries; {p} keeps the first {max} and ignores the rest"
            ),
            _ => write!(
                f,
                "{count} surface entries; {p} has room for {max} and overwrites memory after that"
            ),
        },
        SkinFindingKind::TagSwallowsNext { line } => write!(
            f,
            "line {line}: the token after this tag line is read as a surface name, and later pairs shift"
        ),
        SkinFindingKind::TagNotSkipped { line } => write!(
            f,
            "line {line}: only a lower-case 'tag_' marks a tag line; this one is read as a surface and takes the next token as its shader"
        ),
        SkinFindingKind::NameTruncated { line } => {
            write!(f, "line {line}: the surface name is cut to 63 characters")
        }
        SkinFindingKind::CommaShader { line } => write!(
            f,
            "line {line}: the shader name starts with a comma (a space before the comma?); the surface gets the default shader"
        ),
        SkinFindingKind::EmptyShader { line } => {
            write!(
                f,
                "line {line}: empty shader name; the surface gets the default shader"
            )
        }
        SkinFindingKind::ShaderOnNextLine { line, shader_line } => write!(
            f,
            "line {line}: the entry has no shader, so the token on line {shader_line} is used as its shader and later pairs shift"
        ),
        SkinFindingKind::UnknownSurface { line, name } => write!(
            f,
            "line {line}: the model has no surface '{}' (harmless)",
            Name::from_field(name)
        ),
        SkinFindingKind::UnskinnedSurface { surface } => write!(
            f,
            "surface {surface} has no skin entry; the renderer gives it the default shader"
        ),
    }
}
