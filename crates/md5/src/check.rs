//! Findings: what a file does that an engine accepts but a modder should know about.
//!
//! The parsers refuse only what cannot be read safely. Everything else that is odd —
//! a comment that eats a character, a frame rate of 0, weights that do not add up to
//! one — is reported by `check` as a [`Finding`], with the engine's view of it. The
//! [`Severity`] and [`Engine`] are idmodel-core's, shared by every format; the only
//! engine here is [`Engine::Doom3`] (and dhewm3, whose MD5 parsing is identical:
//! docs/formats.md §6.4).
//!
//! ```
//! let text = b"MD5Version 10 commandline \"\" numFrames 1 numJoints 1 frameRate 0
//!              numAnimatedComponents 0 hierarchy { \"root\" -1 0 0 }
//!              bounds { ( 0 0 0 ) ( 0 0 0 ) } baseframe { ( 0 0 0 ) ( 0 0 0 ) } frame 0 { }";
//! let anim = idmodel_md5::anim::parse(text)?;
//! let found = anim.findings(idmodel_md5::Engine::Doom3);
//! assert_eq!(found[0].to_string(), "doom3: hazard: frameRate 0: Doom 3 loads the animation and then divides by zero");
//! assert!(anim.findings(idmodel_md5::Engine::Quake3).is_empty()); // not an MD5 engine
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```

use core::fmt;

use idmodel_core::findings;

use crate::error::line_column;
use crate::lexer::LexNotes;

/// The engine and severity of every finding: idmodel-core's, shared by all formats.
pub use idmodel_core::findings::{Engine, Severity};

/// The engines that load MD5: every `check` here reports nothing for any other.
pub const ENGINES: &[Engine] = &[Engine::Doom3];

/// What was found.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FindingKind {
    /// `/*` inside a comment (Doom warns "nested comment"; comments do not nest).
    NestedComment,
    /// A `*/` directly followed by a character that Doom's lexer swallows (docs/formats.md §4.1).
    SwallowedCharacter,
    /// A `'…'` literal longer or shorter than one character (Doom warns).
    LongLiteral,
    /// A float where an integer is expected; Doom truncates it.
    FloatAsInteger,
    /// Bytes ≥ 0x80 outside strings, read as whitespace.
    HighBytes,
    /// A NUL byte: Doom stops reading the file there.
    NulByte,
    /// Two joints with the same name (Doom does not check; name lookups find the first).
    DuplicateJointName {
        /// The earlier joint.
        first: u32,
        /// The later joint.
        second: u32,
    },
    /// A joint quaternion with `x² + y² + z² > 1`: Doom takes `|1 − …|` under the root.
    LongQuaternion {
        /// Where: the joint (or frame) index.
        index: u32,
    },
    /// A mesh with no vertices or no triangles.
    EmptyMesh {
        /// The mesh index.
        mesh: u32,
    },
    /// Weights no vertex uses.
    UnusedWeights {
        /// The mesh index.
        mesh: u32,
        /// How many.
        count: u32,
    },
    /// A vertex whose biases do not add up to 1 (used as is).
    BiasSum {
        /// The mesh index.
        mesh: u32,
        /// The first such vertex.
        vertex: u32,
        /// Its sum.
        sum: f32,
        /// How many vertices in the file.
        count: u32,
    },
    /// A negative weight bias (allowed, used as is).
    NegativeBias {
        /// The mesh index.
        mesh: u32,
        /// The weight index.
        weight: u32,
    },
    /// An md5anim with `frameRate 0`: Doom loads it and then divides by zero.
    ZeroFrameRate,
    /// Animated components that no joint reads, or that several joints share.
    ComponentUse {
        /// Components the joints' flags select.
        used: u32,
        /// `numAnimatedComponents`.
        declared: u32,
    },
    /// Camera cuts out of ascending order: Doom's walk stops at the first cut after the
    /// frame, so later, smaller cuts are never applied and interpolation crosses them.
    CutsOutOfOrder {
        /// Index of the first cut smaller than the one before it.
        cut: u32,
    },
    /// A camera at 60 frames per second: Doom steps it per game tick without
    /// interpolation (`USERCMD_HZ`).
    SixtyHertzCamera,
    /// A single-frame md5anim: it plays as a still pose.
    SingleFrameAnim,
    /// md5mesh `vert`/`tri`/`weight` numbers that are not the line's position: Doom
    /// ignores them, but Assimp-based tools store elements at those numbers (and
    /// Assimp 5.2.5 crashes on `4294967295`).
    ElementIndex,
    /// Numbers that overflow to an infinity (`1e39`): Doom's lexer reads
    /// them, and the joints, weights, frames or camera are then NaN or infinite.
    NonFinite {
        /// `"joint"`, `"weight"`, `"base frame joint"`, `"frame bounds"`,
        /// `"frame component"` or `"camera frame"`.
        what: &'static str,
        /// The first such entry (for weights: the mesh's weight index).
        index: u32,
    },
}

impl FindingKind {
    /// A stable, lowercase, hyphenated name of this kind (its variant name), for filtering
    /// and machine-readable output.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::NestedComment => "nested-comment",
            Self::SwallowedCharacter => "swallowed-character",
            Self::LongLiteral => "long-literal",
            Self::FloatAsInteger => "float-as-integer",
            Self::HighBytes => "high-bytes",
            Self::NulByte => "nul-byte",
            Self::DuplicateJointName { .. } => "duplicate-joint-name",
            Self::LongQuaternion { .. } => "long-quaternion",
            Self::EmptyMesh { .. } => "empty-mesh",
            Self::UnusedWeights { .. } => "unused-weights",
            Self::BiasSum { .. } => "bias-sum",
            Self::NegativeBias { .. } => "negative-bias",
            Self::ZeroFrameRate => "zero-frame-rate",
            Self::ComponentUse { .. } => "component-use",
            Self::CutsOutOfOrder { .. } => "cuts-out-of-order",
            Self::SixtyHertzCamera => "sixty-hertz-camera",
            Self::SingleFrameAnim => "single-frame-anim",
            Self::ElementIndex => "element-index",
            Self::NonFinite { .. } => "non-finite",
        }
    }
}

/// A finding: its kind, severity and where it was first seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// How bad it is for the engine checked (always [`Engine::Doom3`]).
    pub severity: Severity,
    /// Byte offset, line and column of the first occurrence, when known.
    pub at: Option<Position>,
    /// How many times it occurs (1 when counted once).
    pub count: u32,
}

/// A place in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Byte offset.
    pub offset: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (bytes).
    pub column: u32,
}

impl Position {
    /// The position of byte `offset` of `src`.
    pub fn of(src: &[u8], offset: usize) -> Self {
        let (line, column) = line_column(src, offset);
        Self {
            offset,
            line,
            column,
        }
    }
}

impl Finding {
    pub(crate) fn new(kind: FindingKind, severity: Severity) -> Self {
        Self {
            kind,
            severity,
            at: None,
            count: 1,
        }
    }

    pub(crate) fn at(mut self, src: &[u8], offset: Option<usize>) -> Self {
        self.at = offset.map(|o| Position::of(src, o));
        self
    }

    pub(crate) fn times(mut self, count: u32) -> Self {
        self.count = count;
        self
    }
}

/// Shown as `engine: severity: message` ([`findings::display`]).
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        findings::display(self, f)
    }
}

impl findings::Finding for Finding {
    fn severity(&self) -> Severity {
        self.severity
    }

    /// Always [`Engine::Doom3`], the one engine that loads MD5.
    fn engine(&self) -> Engine {
        Engine::Doom3
    }

    fn code(&self) -> &'static str {
        self.kind.code()
    }

    fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FindingKind::NestedComment => f.write_str(
                "'/*' inside a comment: comments do not nest, the first '*/' ends it",
            )?,
            FindingKind::SwallowedCharacter => f.write_str(
                "a character right after '*/' is skipped by Doom 3's lexer; put a space after the comment",
            )?,
            FindingKind::LongLiteral => {
                f.write_str("a '…' literal is not one character long (Doom 3 warns)")?
            }
            FindingKind::FloatAsInteger => f.write_str(
                "a number with a fraction where a whole number is expected; Doom 3 drops the fraction",
            )?,
            FindingKind::HighBytes => {
                f.write_str("non-ASCII bytes outside quotes are read as spaces")?
            }
            FindingKind::NulByte => {
                f.write_str("a NUL byte: Doom 3 stops reading the file there")?
            }
            FindingKind::DuplicateJointName { first, second } => write!(
                f,
                "joints {first} and {second} have the same name; lookups by name find only the first"
            )?,
            FindingKind::LongQuaternion { index } => write!(
                f,
                "orientation {index} has x²+y²+z² > 1; Doom 3 uses w = √|1 − (x²+y²+z²)|"
            )?,
            FindingKind::EmptyMesh { mesh } => {
                write!(f, "mesh {mesh} has no vertices or no triangles")?
            }
            FindingKind::UnusedWeights { mesh, count } => {
                write!(f, "mesh {mesh} has {count} weights that no vertex uses")?
            }
            FindingKind::BiasSum {
                mesh,
                vertex,
                sum,
                count,
            } => write!(
                f,
                "{count} vertices have weight biases that do not add up to 1 (first: mesh {mesh} vertex {vertex}, sum {sum}); Doom 3 uses them as they are"
            )?,
            FindingKind::NegativeBias { mesh, weight } => write!(
                f,
                "mesh {mesh} weight {weight} has a negative bias"
            )?,
            FindingKind::ZeroFrameRate => f.write_str(
                "frameRate 0: Doom 3 loads the animation and then divides by zero",
            )?,
            FindingKind::ComponentUse { used, declared } => write!(
                f,
                "the joints read {used} animated components but the file declares {declared}"
            )?,
            FindingKind::CutsOutOfOrder { cut } => write!(
                f,
                "camera cut {cut} is smaller than the one before it; Doom 3 stops at the first later cut, so it is ignored"
            )?,
            FindingKind::SixtyHertzCamera => f.write_str(
                "a 60 Hz camera is stepped once per game tick, without interpolation",
            )?,
            FindingKind::SingleFrameAnim => {
                f.write_str("a single-frame animation plays as a still pose")?
            }
            FindingKind::ElementIndex => f.write_str(
                "the number after 'vert', 'tri' or 'weight' is not the line's position: Doom 3 ignores it, Assimp-based tools put the element there (and may crash)",
            )?,
            FindingKind::NonFinite { what, index } => write!(
                f,
                "{what} {index} holds a number too large for a float (an infinity): Doom 3 computes NaN or infinite positions from it (converted, it is 0)"
            )?,
        }
        if self.count > 1 {
            write!(f, " ({} times)", self.count)?;
        }
        if let Some(p) = self.at {
            write!(f, " (line {}, column {})", p.line, p.column)?;
        }
        Ok(())
    }
}

/// Reports orientation `index` when its `x² + y² + z²` exceeds 1 (Doom's `w` is then
/// computed from the absolute value).
pub(crate) fn long_quaternion(orientation: [f32; 3], index: usize, sink: &mut dyn FnMut(Finding)) {
    let [x, y, z] = orientation;
    if x * x + y * y + z * z > 1.0 + 1e-5 {
        sink(Finding::new(
            FindingKind::LongQuaternion {
                index: u32::try_from(index).unwrap_or(u32::MAX),
            },
            Severity::Warning,
        ));
    }
}

/// The findings a `check(engine, sink)` reports, into a `Vec`.
#[cfg(feature = "alloc")]
pub(crate) fn collect(check: impl FnOnce(&mut dyn FnMut(Finding))) -> alloc::vec::Vec<Finding> {
    let mut v = alloc::vec::Vec::new();
    check(&mut |f| v.push(f));
    v
}

/// Reports the lexer's notes as findings.
pub(crate) fn lex_findings(src: &[u8], notes: &LexNotes, sink: &mut dyn FnMut(Finding)) {
    let list = [
        (notes.nested_comments, FindingKind::NestedComment),
        (notes.long_literals, FindingKind::LongLiteral),
        (notes.float_as_int, FindingKind::FloatAsInteger),
        (notes.high_bytes, FindingKind::HighBytes),
        (notes.nul, FindingKind::NulByte),
    ];
    if !notes.element_index.is_empty() {
        sink(
            Finding::new(FindingKind::ElementIndex, Severity::Hazard)
                .at(src, notes.element_index.first)
                .times(notes.element_index.count),
        );
    }
    if !notes.swallowed.is_empty() {
        sink(
            Finding::new(FindingKind::SwallowedCharacter, Severity::Hazard)
                .at(src, notes.swallowed.first)
                .times(notes.swallowed.count),
        );
    }
    for (tally, kind) in list {
        if !tally.is_empty() {
            sink(
                Finding::new(kind, Severity::Warning)
                    .at(src, tally.first)
                    .times(tally.count),
            );
        }
    }
}
