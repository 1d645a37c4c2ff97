//! The types several layers share, so that no module imports one that imports it back:
//! the token vocabulary (lexer, errors, text, writer), the lexer's notes (lexer,
//! findings, views), the mesh records skinning and normals read, and the animation
//! records posing reads. Each is re-exported where it has always been public
//! (`lexer::TokenKind`, `mesh::Vertex`, `anim::HierarchyJoint`, …).

use core::ops::Range;

use idmodel_core::quat::Vec3;

/// How `/* */` comments end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CommentRule {
    /// As Doom 3's `ReadWhiteSpace`: the character right after `*/` is skipped too
    /// (docs/formats.md §4.1). The default, so that files read as the engine reads them.
    #[default]
    Engine,
    /// The comment ends at `*/`; nothing after it is skipped.
    Strict,
}

/// The base of an integer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    /// Decimal digits.
    Decimal,
    /// A leading `0` and octal digits (`010` is 8).
    Octal,
    /// `0x` or `0X` and hex digits.
    Hex,
    /// `0b` or `0B` and binary digits.
    Binary,
}

/// The kind of a [`Token`](crate::lexer::Token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// An integer literal.
    Integer(Base),
    /// A decimal number with one dot or an exponent.
    Float,
    /// A `"…"` string (the text excludes the quotes).
    String,
    /// A `'…'` literal (the text excludes the quotes).
    Literal,
    /// A name (letters, digits and path characters).
    Name,
    /// Punctuation such as `(`, `{`, `-` or `--`.
    Punctuation,
}

/// Something odd but accepted that the lexer or parser saw: how often, and where first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tally {
    /// How many times.
    pub count: u32,
    /// Byte offset of the first occurrence.
    pub first: Option<usize>,
}

impl Tally {
    pub(crate) fn note(&mut self, at: usize) {
        self.count = self.count.saturating_add(1);
        if self.first.is_none() {
            self.first = Some(at);
        }
    }

    /// True when it never happened.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The lexer's and parser's warnings: things Doom accepts (some with a console
/// warning) that a modder may want to know about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LexNotes {
    /// `/*` inside a `/* */` comment (Doom: "nested comment"; comments do not nest).
    pub nested_comments: Tally,
    /// Characters other than whitespace swallowed right after a `*/` ([`CommentRule::Engine`]).
    pub swallowed: Tally,
    /// `'…'` literals that are not one character long (Doom warns).
    pub long_literals: Tally,
    /// Floats read where an integer is expected, truncated (`numverts 3.9` is 3).
    pub float_as_int: Tally,
    /// Bytes ≥ 0x80 outside strings, which Doom treats as whitespace.
    pub high_bytes: Tally,
    /// A NUL byte before the end of the input: Doom stops reading there.
    pub nul: Tally,
    /// md5mesh `vert`/`tri`/`weight` numbers that differ from the line's position
    /// (Doom ignores them; Assimp uses them as storage indices).
    pub element_index: Tally,
}

/// A vertex: texture coordinates and a range of its mesh's weights.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vertex {
    /// `(s, t)`, used unchanged by Doom; `t = 0` is the top of the image.
    pub uv: [f32; 2],
    /// The first weight (an index into the mesh's weights).
    pub first_weight: u32,
    /// How many weights (at least 1).
    pub weight_count: u32,
}

impl Vertex {
    /// The vertex's weights as an index range into its mesh's weights.
    pub fn weights(&self) -> Range<usize> {
        let first = usize::try_from(self.first_weight).unwrap_or(usize::MAX);
        let count = usize::try_from(self.weight_count).unwrap_or(0);
        first..first.saturating_add(count)
    }
}

/// A triangle: three vertex indices, clockwise front faces (Doom's winding).
pub type Triangle = [u32; 3];

/// A weight: a joint, a bias and an offset in that joint's space.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Weight {
    /// The joint index.
    pub joint: u32,
    /// The bias (not normalised; may be negative).
    pub bias: f32,
    /// The offset in the joint's space.
    pub position: Vec3,
}

/// Flag bits of a hierarchy entry (Anim.h): which components a joint animates.
pub mod flags {
    /// Translation x.
    pub const TX: u8 = 1;
    /// Translation y.
    pub const TY: u8 = 2;
    /// Translation z.
    pub const TZ: u8 = 4;
    /// Orientation x.
    pub const QX: u8 = 8;
    /// Orientation y.
    pub const QY: u8 = 16;
    /// Orientation z.
    pub const QZ: u8 = 32;
    /// Every valid bit.
    pub const ALL: u8 = 63;
}

/// A joint of the md5anim hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HierarchyJoint<N> {
    /// The joint's name.
    pub name: N,
    /// The parent's index, or a negative value for the root (joint 0 only).
    pub parent: i32,
    /// Which components are animated ([`flags`]), within `0..=63`.
    pub flags: u8,
    /// Index of the joint's first animated component in each frame.
    pub first_component: i32,
}

impl<N> HierarchyJoint<N> {
    /// The parent's index, `None` for the root.
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }

    /// How many components the flags select.
    pub fn component_count(&self) -> u32 {
        self.flags.count_ones()
    }

    /// The joint's components as a range of a frame's values (empty without flags).
    pub fn components(&self) -> Range<usize> {
        if self.flags == 0 {
            return 0..0;
        }
        let first = usize::try_from(self.first_component).unwrap_or(0);
        let n = usize::try_from(self.component_count()).unwrap_or(0);
        first..first.saturating_add(n)
    }

    /// The same joint with its name mapped by `f`.
    pub fn map_name<M>(self, f: impl FnOnce(N) -> M) -> HierarchyJoint<M> {
        HierarchyJoint {
            name: f(self.name),
            parent: self.parent,
            flags: self.flags,
            first_component: self.first_component,
        }
    }
}

/// A base-frame joint: parent-relative position and Doom-form orientation `(x, y, z)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BaseJoint {
    /// Parent-relative position.
    pub position: Vec3,
    /// Parent-relative orientation `(x, y, z)`; `w = +√|1 − x² − y² − z²|`.
    pub orientation: Vec3,
}

/// A frame's model-space bounds `[min, max]` (used by Doom for culling only).
pub type Bounds = [Vec3; 2];
