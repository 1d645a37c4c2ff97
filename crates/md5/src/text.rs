//! [`Text`]: the borrowed text of a name, string or keyword token.

use core::fmt;

use crate::types::{CommentRule, LexNotes};
use crate::whitespace;

/// The text of a token, borrowed from the input.
///
/// Usually one contiguous slice. In an md5mesh, Doom's lexer joins quoted strings that
/// are separated only by whitespace and comments (`"a" "b"` is the token `ab`); such a
/// token is kept as its source span and its pieces are found again on demand
/// ([`Text::chunks`]), so even then nothing is copied.
///
/// Names are bytes, not necessarily UTF-8 (Doom copies bytes); [`Text::as_str`] and
/// [`Display`](fmt::Display) (which escapes invalid bytes) give text.
///
/// ```
/// use idmodel_md5::Text;
/// let t = Text::from_bytes(b"origin");
/// assert_eq!(t, "origin");
/// assert_eq!(t.as_str(), Some("origin"));
/// ```
#[derive(Clone, Copy)]
pub struct Text<'a> {
    raw: &'a [u8],
    concat: Option<Concat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Concat {
    quote: u8,
    comments: CommentRule,
}

impl<'a> Text<'a> {
    /// A plain text over `bytes`.
    pub const fn from_bytes(bytes: &'a [u8]) -> Self {
        Self {
            raw: bytes,
            concat: None,
        }
    }

    /// A concatenated string: `span` runs from the first opening quote to the last
    /// closing quote.
    pub(crate) const fn concatenated(span: &'a [u8], quote: u8, comments: CommentRule) -> Self {
        Self {
            raw: span,
            concat: Some(Concat { quote, comments }),
        }
    }

    /// The bytes, when the text is one contiguous slice (always, except for joined
    /// md5mesh strings).
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        match self.concat {
            None => Some(self.raw),
            Some(_) => None,
        }
    }

    /// The text as `&str` when it is one contiguous slice of valid UTF-8.
    pub fn as_str(&self) -> Option<&'a str> {
        self.as_bytes().and_then(|b| core::str::from_utf8(b).ok())
    }

    /// True for md5mesh strings joined from several quoted pieces.
    pub fn is_concatenated(&self) -> bool {
        self.concat.is_some()
    }

    /// The pieces of the text, in order (one piece unless joined).
    pub fn chunks(&self) -> Chunks<'a> {
        Chunks {
            raw: self.raw,
            pos: 0,
            concat: self.concat,
            done: false,
        }
    }

    /// All bytes of the text, in order.
    pub fn bytes(&self) -> impl Iterator<Item = u8> + 'a {
        self.chunks().flat_map(|c| c.iter().copied())
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        match self.concat {
            None => self.raw.len(),
            Some(_) => self.chunks().map(<[u8]>::len).sum(),
        }
    }

    /// True for the empty text (`""`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the text equals `other` byte for byte.
    pub fn eq_bytes(&self, other: &[u8]) -> bool {
        match self.concat {
            None => self.raw == other,
            Some(_) => {
                let mut rest = other;
                for c in self.chunks() {
                    match rest.split_at_checked(c.len()) {
                        Some((head, tail)) if head == c => rest = tail,
                        _ => return false,
                    }
                }
                rest.is_empty()
            }
        }
    }

    /// The text as an owned `String` (invalid UTF-8 replaced by U+FFFD).
    #[cfg(feature = "alloc")]
    pub fn to_string_lossy(&self) -> alloc::string::String {
        match self.as_bytes() {
            Some(b) => alloc::string::String::from_utf8_lossy(b).into_owned(),
            None => {
                let v: alloc::vec::Vec<u8> = self.bytes().collect();
                alloc::string::String::from_utf8_lossy(&v).into_owned()
            }
        }
    }
}

/// Iterator over the pieces of a [`Text`] (see [`Text::chunks`]).
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    raw: &'a [u8],
    pos: usize,
    concat: Option<Concat>,
    done: bool,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.done {
            return None;
        }
        let Some(c) = self.concat else {
            self.done = true;
            return Some(self.raw);
        };
        // At an opening quote: the piece runs to the next quote of the same kind.
        let start = self.pos.checked_add(1)?;
        let rest = self.raw.get(start..)?;
        let Some(len) = rest.iter().position(|&b| b == c.quote) else {
            self.done = true;
            return None;
        };
        let piece = rest.get(..len)?;
        let after = start.checked_add(len)?.checked_add(1)?;
        // Skip the whitespace and comments to the next opening quote, as the lexer did.
        let mut pos = after;
        let mut notes = LexNotes::default();
        if whitespace::skip(self.raw, &mut pos, c.comments, &mut notes) && pos < self.raw.len() {
            self.pos = pos;
        } else {
            self.done = true;
        }
        Some(piece)
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.as_bytes(), other.as_bytes()) {
            (Some(a), Some(b)) => a == b,
            _ => self.bytes().eq(other.bytes()),
        }
    }
}

impl Eq for Text<'_> {}

impl PartialEq<str> for Text<'_> {
    fn eq(&self, other: &str) -> bool {
        self.eq_bytes(other.as_bytes())
    }
}

impl PartialEq<&str> for Text<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.eq_bytes(other.as_bytes())
    }
}

impl core::hash::Hash for Text<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        for b in self.bytes() {
            state.write_u8(b);
        }
        state.write_usize(self.len());
    }
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.chunks() {
            idmodel_core::bytes::write_escaped(f, piece)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}
