//! UFO:AI `.anm` clip tables: the named animations beside an MD2 (`<model>.anm`).
//!
//! UFO:AI keeps every animation of a model in one MD2 and names the clips in a text
//! file next to it. The engine (`R_ModLoadAnims`, `r_model_alias.c`) reads it as a flat
//! list of tokens, four per clip: `name first last fps`.
//!
//! * Tokens come from UFO:AI's `Com_Parse`: whitespace is any byte ≤ 0x20 (and, with the
//!   signed `char` of x86, ≥ 0x80), `//` and `/* */` comments, `"…"` strings (an open
//!   string runs to the end of the text, as the C loop stops at the NUL).
//! * The token count must be a multiple of four, else the engine refuses the model
//!   (`Com_Error(ERR_DROP, "invalid syntax")`): [`AnmErrorKind::TokenCount`].
//! * At most [`MAX_ANIMS`] (128) clips are read; the rest are ignored.
//! * Names are cut to [`MAX_ANIMNAME`] − 1 = 15 bytes (`Q_strncpyz` into `char[16]`).
//! * `first` and `last` go through `atoi`; both are inclusive (`dead1 83 83 0` is the one
//!   frame 83). A negative one, or one above the model's frame count, is a fatal engine
//!   error at load: [`AnmEntry::check`] says so; the parser keeps the values.
//! * `fps` goes through `atof`; the engine stores `time = 1000 / fps` milliseconds per
//!   frame as an `int`, with `fps ≤ 0.01` read as 0.01 ([`AnmEntry::frame_time_ms`]).
//!
//! ```
//! use idmodel_md2::Anm;
//! let anm = Anm::parse(b"// name start end fps\nwalk0 0 32 50\ndead1 83 83 0\n")?;
//! let clips: Vec<_> = anm.entries().collect();
//! assert_eq!(clips.len(), 2);
//! assert_eq!(clips[0].name, "walk0");
//! assert_eq!(clips[0].clip().unwrap().frames, 0..33); // `last` is inclusive
//! assert_eq!(clips[0].frame_time_ms(), 20);
//! assert_eq!(clips[1].frame_time_ms(), 100_000); // fps 0 is read as 0.01
//! # Ok::<(), idmodel_md2::AnmError>(())
//! ```

use core::fmt;

use idmodel_core::anim::Clip;
use idmodel_core::bytes::line_column as line_col;
use idmodel_core::bytes::{Name, byte_or_nul};

/// The most clips the engine reads from one file (`MAX_ANIMS`).
pub const MAX_ANIMS: usize = 128;
/// The size of the engine's name buffer (`MAX_ANIMNAME`); names keep 15 bytes.
pub const MAX_ANIMNAME: usize = 16;

/// What is wrong with an `.anm` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnmErrorKind {
    /// The token count is not a multiple of four: the engine refuses the model.
    TokenCount {
        /// How many tokens the file holds.
        count: usize,
    },
}

/// An error in an `.anm` file, at a 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnmError {
    /// What went wrong.
    pub kind: AnmErrorKind,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

impl fmt::Display for AnmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            AnmErrorKind::TokenCount { count } => write!(
                f,
                "invalid syntax: {count} tokens, not four per clip (name first last fps); the last clip is incomplete (at {}:{})",
                self.line, self.column
            ),
        }
    }
}

impl core::error::Error for AnmError {}

fn is_space(b: u8) -> bool {
    b <= b' ' || b >= 0x80
}

/// `Com_Parse` over `text` (which ends at its first NUL): yields (token, offset).
#[derive(Debug, Clone)]
struct Tokens<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (&'a [u8], usize);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            while byte_or_nul(self.text, self.pos) != 0
                && is_space(byte_or_nul(self.text, self.pos))
            {
                self.pos = self.pos.saturating_add(1);
            }
            let c = byte_or_nul(self.text, self.pos);
            let n = byte_or_nul(self.text, self.pos.saturating_add(1));
            if c == b'/' && n == b'/' {
                while !matches!(byte_or_nul(self.text, self.pos), 0 | b'\n') {
                    self.pos = self.pos.saturating_add(1);
                }
            } else if c == b'/' && n == b'*' {
                self.pos = self.pos.saturating_add(2);
                while byte_or_nul(self.text, self.pos) != 0
                    && !(byte_or_nul(self.text, self.pos) == b'*'
                        && byte_or_nul(self.text, self.pos.saturating_add(1)) == b'/')
                {
                    self.pos = self.pos.saturating_add(1);
                }
                if byte_or_nul(self.text, self.pos) != 0 {
                    self.pos = self.pos.saturating_add(2);
                }
            } else if c == 0 {
                return None;
            } else {
                break;
            }
        }
        let start = self.pos;
        if byte_or_nul(self.text, start) == b'"' {
            let from = start.saturating_add(1);
            let mut end = from;
            while !matches!(byte_or_nul(self.text, end), 0 | b'"') {
                end = end.saturating_add(1);
            }
            self.pos = if byte_or_nul(self.text, end) == b'"' {
                end.saturating_add(1)
            } else {
                end
            };
            return Some((self.text.get(from..end).unwrap_or(&[]), start));
        }
        let mut end = start.saturating_add(1);
        while !is_space(byte_or_nul(self.text, end)) {
            end = end.saturating_add(1);
        }
        self.pos = end;
        Some((self.text.get(start..end).unwrap_or(&[]), start))
    }
}

/// C's `atoi`: optional whitespace and sign, then decimal digits; anything else ends the
/// number (no digits: 0). Saturates instead of overflowing.
pub fn anm_atoi(s: &[u8]) -> i32 {
    let mut it = s
        .iter()
        .copied()
        .skip_while(|b| b.is_ascii_whitespace())
        .peekable();
    let neg = match it.peek() {
        Some(b'-') => {
            it.next();
            true
        }
        Some(b'+') => {
            it.next();
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for b in it {
        if !b.is_ascii_digit() {
            break;
        }
        v = v
            .saturating_mul(10)
            .saturating_add(i64::from(b.wrapping_sub(b'0')));
        v = v.min(i64::from(i32::MAX).saturating_add(1));
    }
    let v = if neg { v.saturating_neg() } else { v };
    i32::try_from(v).unwrap_or(if neg { i32::MIN } else { i32::MAX })
}

/// C's `atof` for the forms `.anm` files use: sign, digits, one dot, digits, an optional
/// `e`/`E` exponent; anything else ends the number (no digits: 0).
pub fn anm_atof(s: &[u8]) -> f32 {
    idmodel_core::number::atof_with(s, libm_pow10)
}

/// 10^e by repeated multiplication (exact enough for the exponents `.anm` files use).
fn libm_pow10(e: i32) -> f64 {
    let mut r = 1.0f64;
    let (base, n) = if e < 0 {
        (0.1, e.unsigned_abs())
    } else {
        (10.0, e.unsigned_abs())
    };
    for _ in 0..n.min(400) {
        r *= base;
    }
    r
}

/// A parsed `.anm` file: the text and how many clips the engine reads from it.
#[derive(Debug, Clone, Copy)]
pub struct Anm<'a> {
    text: &'a [u8],
    clips: usize,
    tokens: usize,
}

impl<'a> Anm<'a> {
    /// Reads `text` as the engine does (one pass, no allocation). The one error is a
    /// token count that is not a multiple of four, placed at the incomplete clip's first
    /// token.
    pub fn parse(text: &'a [u8]) -> Result<Self, AnmError> {
        let mut count = 0usize;
        let mut last_group = 0usize;
        for (i, (_, at)) in (Tokens { text, pos: 0 }).enumerate() {
            if i % 4 == 0 {
                last_group = at;
            }
            count = i.saturating_add(1);
        }
        if !count.is_multiple_of(4) {
            let (line, column) = line_col(text, last_group);
            return Err(AnmError {
                kind: AnmErrorKind::TokenCount { count },
                line,
                column,
            });
        }
        Ok(Self {
            text,
            clips: (count / 4).min(MAX_ANIMS),
            tokens: count,
        })
    }

    /// How many clips the engine reads (at most [`MAX_ANIMS`]).
    pub fn len(&self) -> usize {
        self.clips
    }

    /// True when the file names no clip.
    pub fn is_empty(&self) -> bool {
        self.clips == 0
    }

    /// Clips in the file beyond [`MAX_ANIMS`], which the engine ignores.
    pub fn ignored(&self) -> usize {
        (self.tokens / 4).saturating_sub(self.clips)
    }

    /// The clips, in file order.
    pub fn entries(&self) -> AnmEntries<'a> {
        AnmEntries {
            tokens: Tokens {
                text: self.text,
                pos: 0,
            },
            left: self.clips,
            lines: (0, 0),
            text: self.text,
        }
    }
}

/// One clip of an `.anm` file, with the values as the engine reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnmEntry<'a> {
    /// The clip name, cut to 15 bytes as the engine stores it.
    pub name: Name<'a>,
    /// The first frame (`atoi`), inclusive.
    pub first: i32,
    /// The last frame (`atoi`), inclusive.
    pub last: i32,
    /// The frame rate as written (`atof`).
    pub fps: f32,
    /// 1-based line of the name.
    pub line: u32,
}

/// Why the engine would stop at an [`AnmEntry`] when it loads a model of some frame count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnmProblem {
    /// A negative first or last frame (`ERR_FATAL`).
    NegativeFrame(i32),
    /// A first or last frame above the model's frame count (`ERR_FATAL`).
    FrameAboveCount {
        /// The frame named.
        frame: i32,
        /// The model's frame count.
        num_frames: usize,
    },
    /// The last frame is before the first: no frame plays as a clip (kept, no error).
    Backwards,
}

impl fmt::Display for AnmProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NegativeFrame(n) => write!(f, "negative frame {n} (the engine stops)"),
            Self::FrameAboveCount { frame, num_frames } => write!(
                f,
                "frame {frame} is above the model's frame count {num_frames} (the engine stops)"
            ),
            Self::Backwards => f.write_str("the last frame is before the first"),
        }
    }
}

impl<'a> AnmEntry<'a> {
    /// The engine's milliseconds per frame: `(int)(1000 / fps)`, with `fps ≤ 0.01` (and
    /// NaN) read as 0.01.
    pub fn frame_time_ms(&self) -> i32 {
        let fps = if self.fps > 0.01 { self.fps } else { 0.01 };
        // Truncates toward zero as C's conversion does; in range: fps ≥ 0.01 gives at
        // most 100000 (NaN fails `> 0.01` above).
        #[allow(clippy::cast_possible_truncation, clippy::as_conversions)] // bounded above
        let ms = (1000.0 / f64::from(fps)) as i32;
        ms
    }

    /// The frame rate the engine plays at: `1000 / frame_time_ms` frames per second (a
    /// frame time of 0, from fps over 1000, is read as 1 ms).
    pub fn rate(&self) -> f32 {
        let ms = self.frame_time_ms().max(1);
        // Exact: ms ≤ 100000 fits an f32's 24-bit mantissa.
        #[allow(clippy::cast_precision_loss, clippy::as_conversions)] // exact, see above
        let ms = ms as f32;
        1000.0 / ms
    }

    /// The frames as a [`Clip`] (`first..last + 1`); `None` when either is negative or
    /// the last is before the first.
    pub fn clip(&self) -> Option<Clip<'a>> {
        let first = usize::try_from(self.first).ok()?;
        let last = usize::try_from(self.last).ok()?;
        if last < first {
            return None;
        }
        Some(Clip {
            name: self.name,
            frames: first..last.checked_add(1)?,
        })
    }

    /// What the engine would do with this entry for a model of `num_frames` frames:
    /// `None` when it loads it.
    pub fn check(&self, num_frames: usize) -> Option<AnmProblem> {
        for frame in [self.first, self.last] {
            match usize::try_from(frame) {
                Err(_) => return Some(AnmProblem::NegativeFrame(frame)),
                Ok(f) if f > num_frames => {
                    return Some(AnmProblem::FrameAboveCount { frame, num_frames });
                }
                Ok(_) => {}
            }
        }
        (self.last < self.first).then_some(AnmProblem::Backwards)
    }
}

/// The clips of an [`Anm`], in file order.
#[derive(Debug, Clone)]
pub struct AnmEntries<'a> {
    tokens: Tokens<'a>,
    left: usize,
    /// (offset counted to, lines before it).
    lines: (usize, usize),
    text: &'a [u8],
}

impl<'a> Iterator for AnmEntries<'a> {
    type Item = AnmEntry<'a>;

    fn next(&mut self) -> Option<AnmEntry<'a>> {
        self.left = self.left.checked_sub(1)?;
        let (name, at) = self.tokens.next()?;
        let first = anm_atoi(self.tokens.next()?.0);
        let last = anm_atoi(self.tokens.next()?.0);
        let fps = anm_atof(self.tokens.next()?.0);
        let span = self.text.get(self.lines.0..at).unwrap_or(&[]);
        self.lines.1 = self
            .lines
            .1
            .saturating_add(span.iter().filter(|&&b| b == b'\n').count());
        self.lines.0 = at.max(self.lines.0);
        let keep = name.get(..MAX_ANIMNAME.saturating_sub(1)).unwrap_or(name);
        Some(AnmEntry {
            name: Name::from_field(keep),
            first,
            last,
            fps,
            line: u32::try_from(self.lines.1.saturating_add(1)).unwrap_or(u32::MAX),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for AnmEntries<'_> {}
impl core::iter::FusedIterator for AnmEntries<'_> {}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::float_cmp)] // tests: a panic is a failure
mod tests {
    extern crate alloc;
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    #[test]
    fn token_count_not_a_multiple_of_four() {
        let e = Anm::parse(b"walk 0 1 10\nrun 2 3\n").unwrap_err();
        assert_eq!(e.kind, AnmErrorKind::TokenCount { count: 7 });
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.to_string().contains("at 2:1"));
    }

    #[test]
    fn comments_quotes_and_high_bytes() {
        let anm =
            Anm::parse(b"/* a\nb */ \"two words\" 1 2 3.5 // x y z\n\xffnext\x80 4 4 0").unwrap();
        let e: Vec<_> = anm.entries().collect();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "two words");
        assert_eq!((e[0].first, e[0].last, e[0].fps, e[0].line), (1, 2, 3.5, 2));
        assert_eq!(e[0].frame_time_ms(), 285);
        assert_eq!(e[1].name, "next");
        assert_eq!(e[1].line, 3);
    }

    #[test]
    fn names_cut_to_fifteen_bytes_and_atoi_rules() {
        let anm = Anm::parse(b"abcdefghijklmnopqrst 12x -3 fast").unwrap();
        let e = anm.entries().next().unwrap();
        assert_eq!(e.name, "abcdefghijklmno");
        assert_eq!((e.first, e.last, e.fps), (12, -3, 0.0));
        assert_eq!(e.clip(), None);
        assert_eq!(e.check(100), Some(AnmProblem::NegativeFrame(-3)));
        assert_eq!(e.frame_time_ms(), 100_000);
    }

    #[test]
    fn more_than_max_anims_are_ignored() {
        let mut text = Vec::new();
        for i in 0..130 {
            text.extend_from_slice(alloc::format!("c{i} {i} {i} 10\n").as_bytes());
        }
        let anm = Anm::parse(&text).unwrap();
        assert_eq!(anm.len(), MAX_ANIMS);
        assert_eq!(anm.ignored(), 2);
        assert_eq!(anm.entries().count(), MAX_ANIMS);
        assert_eq!(anm.entries().last().unwrap().name, "c127");
    }

    #[test]
    fn check_against_frame_count() {
        let anm = Anm::parse(b"a 0 10 10 b 3 2 10").unwrap();
        let e: Vec<_> = anm.entries().collect();
        assert_eq!(e[0].check(10), None); // the engine allows last == num_frames
        assert_eq!(
            e[0].check(9),
            Some(AnmProblem::FrameAboveCount {
                frame: 10,
                num_frames: 9
            })
        );
        assert_eq!(e[1].check(10), Some(AnmProblem::Backwards));
        assert_eq!(e[0].rate(), 10.0);
    }

    #[test]
    fn empty_and_open_quote() {
        assert!(Anm::parse(b"").unwrap().is_empty());
        let anm = Anm::parse(b"a 1 2 \"3").unwrap();
        assert_eq!(anm.entries().next().unwrap().fps, 3.0);
    }
}
