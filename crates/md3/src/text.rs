//! Shared pieces of the two text parsers: positioned errors, line counting and the one
//! Quake III tokenizer both use ([`Tokenizer`]: `COM_ParseExt` for `animation.cfg`,
//! `CommaParse` for `.skin`, which differ only in whether a comma ends a word).

use core::fmt;

/// What went wrong in a `.skin` or `animation.cfg` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TextErrorKind {
    /// A `"` string runs to the end of the text (the engine reads past the buffer).
    UnterminatedQuote,
    /// `animation.cfg` ends, or has a stray token, before the engine's 25 required
    /// entries are complete ("Error parsing animation file").
    MissingAnimations {
        /// Complete entries before the failure.
        complete: usize,
        /// The engine's minimum (25).
        needed: usize,
    },
    /// `animation.cfg` is longer than the engine's buffer allows ("File too long").
    TooLong {
        /// The file's length.
        len: usize,
        /// The largest accepted length (19998 bytes).
        max: usize,
    },
    /// `animation.cfg` is empty.
    Empty,
    /// A `.shader` name is not followed by `{` (ioq3 ignores the whole file).
    MissingOpenBrace,
    /// A `.shader` definition's braces never close (ioq3 ignores the whole file).
    MissingCloseBrace,
}

/// An error in a text file, at a 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextError {
    /// What went wrong.
    pub kind: TextErrorKind,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

impl TextError {
    /// An error of `kind` at byte `offset` of `text` (the position is computed here).
    pub fn at(kind: TextErrorKind, text: &[u8], offset: usize) -> Self {
        let (line, column) = line_col(text, offset);
        Self { kind, line, column }
    }
}

/// Counts lines forward through a text, so that asking for the line of each of `n`
/// increasing offsets costs O(text) in all rather than O(n · text) (a fresh
/// [`line_col`] per token made the checks quadratic on token-heavy input).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LineCounter {
    counted: usize,
    line: u32,
}

impl LineCounter {
    /// The 1-based line of `offset`; offsets before the last one asked are recounted
    /// from the start of the text.
    pub(crate) fn line_at(&mut self, text: &[u8], offset: usize) -> u32 {
        if offset < self.counted {
            *self = Self::default();
        }
        let span = text.get(self.counted..offset).unwrap_or(&[]);
        let n = span.iter().filter(|&&b| b == b'\n').count();
        self.line = self
            .line
            .saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.counted = offset.max(self.counted);
        self.line.saturating_add(1)
    }
}

/// 1-based line and column of byte `offset`.
pub(crate) use idmodel_core::bytes::line_column as line_col;

impl fmt::Display for TextErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnterminatedQuote => f.write_str("unterminated quoted string"),
            Self::MissingAnimations { complete, needed } => write!(
                f,
                "error parsing animation file: {complete} complete animations where the engine needs {needed}"
            ),
            Self::TooLong { len, max } => {
                write!(
                    f,
                    "file too long: {len} bytes (the engine reads at most {max})"
                )
            }
            Self::Empty => f.write_str("empty file"),
            Self::MissingOpenBrace => f.write_str("shader name not followed by '{'"),
            Self::MissingCloseBrace => f.write_str("shader braces never close"),
        }
    }
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {}:{})", self.kind, self.line, self.column)
    }
}

impl core::error::Error for TextError {}

/// True when the engine's `(c = *data) <= ' '` treats `b` as whitespace, with a signed
/// `char` (x86, Windows): bytes 0x80–0xFF are negative and count as whitespace.
/// NUL is handled separately (it ends the text).
pub(crate) fn is_space(b: u8) -> bool {
    b <= b' ' || b >= 0x80
}

/// A token, borrowed from the text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'a> {
    /// The token's bytes (for a quoted string, without the quotes); empty at the end of
    /// the text.
    pub(crate) bytes: &'a [u8],
    /// Offset of the token's first byte (its quote for a quoted string).
    pub(crate) start: usize,
}

impl Token<'_> {
    /// The empty token at offset 0.
    pub(crate) const EMPTY: Token<'static> = Token {
        bytes: &[],
        start: 0,
    };
}

/// What ends an unquoted word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WordEnd {
    /// Whitespace only (`COM_ParseExt`, `animation.cfg`).
    Space,
    /// Whitespace or a comma (`CommaParse`, `.skin`); the word's first byte is always
    /// taken, even a comma.
    SpaceOrComma,
}

/// Quake III's tokenizer over `text`, which ends at its first NUL as the engine's C
/// string does: whitespace is any byte ≤ 0x20 or ≥ 0x80 (signed `char`, [`is_space`]);
/// `//` and `/* */` comments only where a token would start; `"…"` strings without
/// escapes; words run to the next whitespace (or comma, see [`WordEnd`]).
#[derive(Debug, Clone)]
pub(crate) struct Tokenizer<'a> {
    /// The whole text.
    pub(crate) text: &'a [u8],
    /// Offset of the next byte to read.
    pub(crate) pos: usize,
    words: WordEnd,
}

impl<'a> Tokenizer<'a> {
    /// A tokenizer at offset `pos` of `text`.
    pub(crate) fn new(text: &'a [u8], pos: usize, words: WordEnd) -> Self {
        Self { text, pos, words }
    }

    /// The byte at `i`, or NUL past the end.
    pub(crate) fn byte(&self, i: usize) -> u8 {
        self.text.get(i).copied().unwrap_or(0)
    }

    /// Past the `/* … */` comment at the position (to the end of the text if it never
    /// closes).
    fn skip_block_comment(&mut self) {
        self.pos = self.pos.saturating_add(2);
        while self.byte(self.pos) != 0
            && (self.byte(self.pos) != b'*' || self.byte(self.pos.saturating_add(1)) != b'/')
        {
            self.pos = self.pos.saturating_add(1);
        }
        if self.byte(self.pos) != 0 {
            self.pos = self.pos.saturating_add(2);
        }
    }

    /// Up to the next line break (or the end of the text).
    fn skip_to_line_end(&mut self) {
        while !matches!(self.byte(self.pos), 0 | b'\n') {
            self.pos = self.pos.saturating_add(1);
        }
    }

    /// The next token; an empty token means the end of the text (or `""`). The only
    /// error is a `"` string that never closes.
    pub(crate) fn next(&mut self) -> Result<Token<'a>, TextError> {
        let mut c;
        loop {
            loop {
                c = self.byte(self.pos);
                if c == 0 || !is_space(c) {
                    break;
                }
                self.pos = self.pos.saturating_add(1);
            }
            let next = self.byte(self.pos.saturating_add(1));
            if c == b'/' && next == b'/' {
                self.pos = self.pos.saturating_add(2);
                self.skip_to_line_end();
            } else if c == b'/' && next == b'*' {
                self.skip_block_comment();
            } else {
                break;
            }
        }
        let start = self.pos;
        if c == 0 {
            return Ok(Token { bytes: &[], start });
        }
        if c == b'"' {
            let from = start.saturating_add(1);
            let rest = self.text.get(from..).unwrap_or(&[]);
            return match rest.iter().position(|&b| b == b'"' || b == 0) {
                Some(len) if rest.get(len) == Some(&b'"') => {
                    self.pos = from.saturating_add(len).saturating_add(1);
                    Ok(Token {
                        bytes: rest.get(..len).unwrap_or(&[]),
                        start,
                    })
                }
                _ => Err(TextError::at(
                    TextErrorKind::UnterminatedQuote,
                    self.text,
                    start,
                )),
            };
        }
        // A word: the first byte is always taken, then bytes up to whitespace (NUL
        // counts as whitespace) or, for `CommaParse`, a comma.
        let comma_ends = self.words == WordEnd::SpaceOrComma;
        let mut end = start.saturating_add(1);
        loop {
            let b = self.byte(end);
            if is_space(b) || (comma_ends && b == b',') {
                break;
            }
            end = end.saturating_add(1);
        }
        self.pos = end;
        Ok(Token {
            bytes: self.text.get(start..end).unwrap_or(&[]),
            start,
        })
    }
}

impl<'a> Tokenizer<'a> {
    /// `COM_ParseExt(text, qfalse)`: the next token if it is on the current line, else
    /// an empty token (the position is left after the whitespace, at the next line's
    /// token, as the engine leaves it). Line breaks inside `/* */` do not count, as in
    /// the engine.
    pub(crate) fn next_on_line(&mut self) -> Result<Token<'a>, TextError> {
        loop {
            let mut newline = false;
            loop {
                let c = self.byte(self.pos);
                if c == 0 || !is_space(c) {
                    break;
                }
                newline |= c == b'\n';
                self.pos = self.pos.saturating_add(1);
            }
            if newline {
                return Ok(Token {
                    bytes: &[],
                    start: self.pos,
                });
            }
            let c = self.byte(self.pos);
            let next = self.byte(self.pos.saturating_add(1));
            if c == b'/' && next == b'/' {
                // Up to the line break, which the next round sees.
                self.skip_to_line_end();
            } else if c == b'/' && next == b'*' {
                self.skip_block_comment();
            } else {
                return self.next();
            }
        }
    }

    /// `SkipRestOfLine`: raw bytes up to and including the next line break.
    pub(crate) fn skip_rest_of_line(&mut self) {
        loop {
            let c = self.byte(self.pos);
            if c == 0 {
                return;
            }
            self.pos = self.pos.saturating_add(1);
            if c == b'\n' {
                return;
            }
        }
    }
}

#[cfg(test)]
// Tests index and unwrap freely: a panic is a failed test.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every token of `text` (bytes and start) until the end or the first error.
    fn tokens(text: &[u8], words: WordEnd) -> Result<[(&[u8], usize); 6], TextError> {
        let mut lex = Tokenizer::new(text, 0, words);
        let mut out = [(&[][..], 0usize); 6];
        for slot in &mut out {
            let t = lex.next()?;
            *slot = (t.bytes, t.start);
        }
        Ok(out)
    }

    /// `COM_ParseExt` and `CommaParse` are one tokenizer: they differ only in whether a
    /// comma ends a word (and a word's first byte is taken even when it is a comma).
    #[test]
    fn comma_ends_words_only_for_comma_parse() {
        let text = b"a,b ,c // x\n/* y */\"q,r\"";
        let space = tokens(text, WordEnd::Space).unwrap();
        let comma = tokens(text, WordEnd::SpaceOrComma).unwrap();
        let space_bytes: [&[u8]; 6] = space.map(|t| t.0);
        let comma_bytes: [&[u8]; 6] = comma.map(|t| t.0);
        assert_eq!(space_bytes, [&b"a,b"[..], b",c", b"q,r", b"", b"", b""]);
        assert_eq!(comma_bytes, [&b"a"[..], b",b", b",c", b"q,r", b"", b""]);
        // Starts: the quoted string starts at its quote; the end token at the end.
        assert_eq!(space.map(|t| t.1), [0, 4, 19, 24, 24, 24]);
        assert_eq!(comma.map(|t| t.1), [0, 1, 4, 19, 24, 24]);
    }

    /// A NUL ends the text, bytes ≥ 0x80 are whitespace, and an open quote is an error at
    /// the quote's line and column.
    #[test]
    fn nul_high_bytes_and_open_quotes() {
        let t = tokens(b"a\x80b\0c", WordEnd::Space).unwrap();
        assert_eq!(t.map(|t| t.0)[..3], [&b"a"[..], b"b", b""]);
        let e = tokens(b"x\n  \"open", WordEnd::SpaceOrComma).unwrap_err();
        assert_eq!(e.kind, TextErrorKind::UnterminatedQuote);
        assert_eq!((e.line, e.column), (2, 3));
        let e = tokens(b"\"open\0\"", WordEnd::Space).unwrap_err();
        assert_eq!(e.kind, TextErrorKind::UnterminatedQuote);
    }
}
