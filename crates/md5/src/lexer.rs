//! Doom 3's `idLexer`, as the MD5 loaders configure it (docs/formats.md §4.1).
//!
//! One file, a little over 1,000 lines, because it is one concept: the idLexer-exact
//! tokenizer. The [`Lexer`]'s number reading, the fast paths the [`Parser`] tries first
//! and the exact path they fall back to must give Doom's value byte for byte, so they are
//! read side by side (the tests are apart, in `lexer/tests.rs`).
//!
//! The [`Lexer`] turns bytes into [`Token`]s that borrow from the input; the [`Parser`]
//! adds `ExpectTokenString`, `ParseInt` and `ParseFloat` with Doom's rules. Nothing here
//! allocates, and line numbers are computed only when an error is built.
//!
//! The rules, in short:
//!
//! * whitespace is every byte `≤ 0x20` and, outside strings, every byte `≥ 0x80`; a NUL
//!   byte ends the text;
//! * `//` and `/* */` comments (not nested: a `/*` inside one is counted as a warning);
//!   with [`CommentRule::Engine`] the character right after `*/` is swallowed, as Doom
//!   does (`1 /* c */2 3` is `1 3`);
//! * quoted strings without escapes (`\` is literal); in md5mesh files adjacent strings are
//!   joined;
//! * names start with a letter, `_`, `/`, `\` or `.` (not before a digit) and go on with
//!   letters, digits and `_ / \ : .`;
//! * numbers: `0…` octal, `0x` hex, `0b` binary, decimal with one dot, exponent with a
//!   lowercase `e` only, suffixes `f l u` dropped; `1.#INF` and friends refused; the value
//!   is accumulated in `f64` exactly as `idToken::NumberValue` does, then rounded to `f32`;
//! * signs are separate punctuation tokens (the longest punctuation wins: `--` is one
//!   token).
//!
//! ```
//! use idmodel_md5::lexer::{CommentRule, Parser};
//! let mut p = Parser::new(b"010 - 5 .5 2.99999999 /* c */x 7", false, CommentRule::Engine);
//! assert_eq!(p.parse_int().unwrap(), 8); // octal
//! assert_eq!(p.parse_float().unwrap(), -5.0); // `-` may stand apart
//! assert_eq!(p.parse_float().unwrap(), 0.5);
//! assert_eq!(p.parse_int().unwrap(), 3); // f32 rounding, then truncation
//! assert_eq!(p.parse_int().unwrap(), 7); // the comment swallowed `x`
//! ```

use crate::error::{Expected, Found, Md5Error, Md5ErrorKind, Result};
use crate::text::Text;
pub use crate::types::{Base, CommentRule, LexNotes, Tally, TokenKind};
use crate::whitespace;

/// A token, borrowing its text from the input.
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    /// What kind of token it is.
    pub kind: TokenKind,
    /// Its text (for strings, without the quotes; for numbers, without the suffix).
    pub text: Text<'a>,
    /// Byte offset of its first character.
    pub offset: usize,
    value: f64,
    int: u32,
}

impl Token<'_> {
    /// True for integer and float tokens.
    pub fn is_number(&self) -> bool {
        matches!(self.kind, TokenKind::Integer(_) | TokenKind::Float)
    }

    /// `idToken::GetDoubleValue`: the number's value as Doom accumulates it (0 for
    /// non-numbers).
    pub fn double_value(&self) -> f64 {
        self.value
    }

    /// `idToken::GetFloatValue`: the `f64` value rounded to `f32`.
    pub fn float_value(&self) -> f32 {
        f64_to_f32(self.value)
    }

    /// `idToken::GetUnsignedLongValue` with a 32-bit `unsigned long`: integers wrap
    /// (`4294967296` is 0); floats are rounded to `f32` and then truncated (`2.99999999`
    /// is 3).
    pub fn int_value(&self) -> u32 {
        self.int
    }
}

#[allow(clippy::as_conversions)] // the C cast `(float)double`: round to nearest
fn f64_to_f32(x: f64) -> f32 {
    x as f32
}

/// `idMath::Ftol` of a non-negative value: truncation. Values of 2³² and more are
/// undefined behaviour in C; here they wrap modulo 2³² (saturating at 2⁶⁴).
#[allow(clippy::as_conversions)] // float → integer truncation is the operation being modelled
fn ftol(f: f32) -> u32 {
    (f as u64) as u32
}

/// A number token without its text (the parser's fast path).
#[derive(Debug, Clone, Copy)]
struct Num {
    kind: TokenKind,
    value: f64,
    int: u32,
    end: usize,
}

/// `10^-k` for `k` in `0..=19`, each correctly rounded (Rust float literals are).
const NEG_POW10: [f64; 20] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18, 1e-19,
];

/// How close (in `f64` units in the last place) a fast-path value may come to an `f32`
/// rounding midpoint before the exact Doom accumulation is run instead.
///
/// Doom's `NumberValue` and the fast path's `N · 10⁻ᵏ` both stay within a few dozen `f64`
/// ulps of the true decimal value for at most 18 digits (Doom: `10⁻ᵏ` built by `k`
/// multiplications, one rounding per product and per sum, all terms positive, so at most
/// about `(3k + 2)·2⁻⁵³` relative; the fast path: at most three roundings). When the
/// fast value is further than this from the midpoint between two `f32`s, no `f32`
/// boundary lies between the two, so both round to the same `f32`. `2¹²` ulps is far
/// above that bound; about 1 value in 65 000 falls back.
const MIDPOINT_MARGIN: u64 = 1 << 12;

/// A number read by [`fast_number`]: the `f32` value Doom would compute, the
/// `GetUnsignedLongValue` integer, whether the token is a float, and where it ends.
#[derive(Debug, Clone, Copy)]
struct Fast {
    value: f32,
    int: u32,
    float: bool,
    end: usize,
}

/// `n` (below 10¹⁸, so below 2⁶³) as `f64`, rounded to nearest (exact below 2⁵³). The
/// signed conversion is one instruction on x86-64, where an unsigned one is a sequence.
#[allow(clippy::as_conversions, clippy::cast_possible_wrap)] // n < 2⁶³: no wrap
fn i64_to_f64(n: u64) -> f64 {
    (n as i64) as f64
}

/// The common number shapes, `digits`, `digits.digits`, `.digits` (at most 18 digits, no
/// exponent, no suffix, no leading-zero integer other than a lone `0`), read straight
/// from the bytes. Returns `None` for anything else, and for the rare float whose value
/// lies too close to an `f32` rounding midpoint to be sure without Doom's own `f64`
/// accumulation ([`MIDPOINT_MARGIN`]): the caller then runs the exact path, which also
/// builds any error. The result is bit-identical to the exact path's (property-tested in
/// `lexer/tests.rs`).
#[inline(always)]
fn fast_number(src: &[u8], start: usize) -> Option<Fast> {
    let rest = src.get(start..)?;
    let at = |i: usize| rest.get(i).copied().unwrap_or(0);
    let first = at(0);
    if first == b'0' && at(1) != b'.' {
        // Doom's octal branch. A lone `0` is common (indices, zero components); octal
        // digits, `08`, `0x`, `0b` and suffixes go the exact way.
        if at(1).is_ascii_digit()
            || matches!(at(1), b'x' | b'X' | b'b' | b'B' | b'u' | b'U' | b'l' | b'L')
        {
            return None;
        }
        return Some(Fast {
            value: 0.0,
            int: 0,
            float: false,
            end: start.wrapping_add(1),
        });
    }
    // The integer part is short in practice (`0`, `12`): one byte at a time. A long run
    // wraps `n`, but more than 18 digits are refused below anyway.
    let mut n = 0u64;
    let mut i = 0usize;
    while let Some(d) = rest.get(i).and_then(|b| digit(*b)) {
        n = n.wrapping_mul(10).wrapping_add(u64::from(d));
        i = i.wrapping_add(1);
    }
    let int_digits = i;
    let mut frac_digits = 0usize;
    let float = at(i) == b'.';
    if float {
        i = i.wrapping_add(1);
        let from = i;
        (n, i) = digit_run(rest, i, n);
        frac_digits = i.wrapping_sub(from);
    }
    if int_digits.wrapping_add(frac_digits) > 18
        || matches!(
            at(i),
            b'.' | b'e' | b'#' | b'f' | b'F' | b'l' | b'L' | b'u' | b'U'
        )
    {
        return None;
    }
    if i == 0 || (float && i == 1) {
        return None; // not a number (the caller checks; kept for safety)
    }
    let end = start.wrapping_add(i);
    if !float {
        // 32-bit wrapping accumulation is the value modulo 2³².
        let int = u32::try_from(n & 0xFFFF_FFFF).unwrap_or(0);
        return Some(Fast {
            value: f64_to_f32(f64::from(int)),
            int,
            float: false,
            end,
        });
    }
    let x = i64_to_f64(n) * *NEG_POW10.get(frac_digits)?;
    // The low 29 bits of the f64 significand are what rounding to f32 drops; a tie sits at
    // 2²⁸. (Every value here is 0 or a normal f32: at most 18 digits, ≥ 10⁻¹⁹.)
    let dropped = x.to_bits() & ((1 << 29) - 1);
    if dropped.abs_diff(1 << 28) <= MIDPOINT_MARGIN {
        return None;
    }
    let value = f64_to_f32(x);
    Some(Fast {
        value,
        int: ftol(value),
        float: true,
        end,
    })
}

/// [`Parser::parse_float`]'s fast path as a pure function of the position: plain
/// whitespace, an optional `-` right before the number, a [`fast_number`]. `None` for
/// everything else (comments, `-` apart from its number, other shapes, errors), which
/// the caller leaves to the general path from the same position.
#[inline(always)]
fn fast_float(src: &[u8], pos: usize) -> Option<(f32, usize)> {
    let start = whitespace::skip_plain(src, pos);
    let neg = src.get(start) == Some(&b'-');
    let n = fast_number(src, start.wrapping_add(usize::from(neg)))?;
    Some((if neg { -n.value } else { n.value }, n.end))
}

/// [`Parser::parse_vec`]'s fast path: `(`, `N` × [`fast_float`], `)`, each after plain
/// whitespace; the values and the position after `)`. `None` wherever one of them
/// declines (the caller then reads the vector token by token from `pos`, with the same
/// result: a bracket matches `expect` whatever follows it).
#[inline(always)]
fn fast_vec<const N: usize>(src: &[u8], pos: usize) -> Option<([f32; N], usize)> {
    let mut pos = whitespace::skip_plain(src, pos);
    if src.get(pos) != Some(&b'(') {
        return None;
    }
    pos = pos.wrapping_add(1);
    let mut out = [0.0f32; N];
    for slot in &mut out {
        let (v, end) = fast_float(src, pos)?;
        *slot = v;
        pos = end;
    }
    pos = whitespace::skip_plain(src, pos);
    if src.get(pos) != Some(&b')') {
        return None;
    }
    Some((out, pos.wrapping_add(1)))
}

/// The commonest integer shape, up to nine decimal digits (a lone `0`, or no leading
/// zero) followed by a byte that cannot continue a number, read one byte at a time:
/// `(value, end)`. Everything else (longer runs, octal, hex, floats, suffixes, errors)
/// returns `None` for [`fast_number`] and the exact path; what it accepts, it reads as
/// they do (nine digits cannot wrap a `u32`).
#[inline(always)]
fn fast_int(src: &[u8], start: usize) -> Option<(u32, usize)> {
    let mut n = u32::from(digit(*src.get(start)?)?);
    let mut i = start.wrapping_add(1);
    if n != 0 {
        let stop = start.wrapping_add(9);
        while i < stop {
            let Some(d) = src.get(i).and_then(|b| digit(*b)) else {
                break;
            };
            n = n.wrapping_mul(10).wrapping_add(u32::from(d));
            i = i.wrapping_add(1);
        }
    }
    let next = src.get(i).copied().unwrap_or(0);
    if next.is_ascii_digit()
        || matches!(
            next,
            b'.' | b'e'
                | b'#'
                | b'f'
                | b'F'
                | b'l'
                | b'L'
                | b'u'
                | b'U'
                | b'x'
                | b'X'
                | b'b'
                | b'B'
        )
    {
        return None;
    }
    Some((n, i))
}

/// `10^k` for `k` in `0..=8`.
const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// Reads the decimal digits of `rest` from `i` on, accumulating onto `n` (wrapping; the
/// caller refuses more than 18 digits). Returns the value and the index after the last
/// digit. Eight bytes at a time where the input has them (SWAR), one at a time at the end.
#[inline(always)]
fn digit_run(rest: &[u8], mut i: usize, mut n: u64) -> (u64, usize) {
    while let Some(chunk) = rest.get(i..i.wrapping_add(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        // Each byte minus '0' (as xor: digits become 0..=9, everything else > 9).
        let t = u64::from_le_bytes(b) ^ 0x3030_3030_3030_3030;
        // High bit set in each byte that is not a digit (a carry out of such a byte only
        // reaches later bytes, so the first one is found correctly).
        let bad = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
        let k = if bad == 0 {
            8
        } else {
            bad.trailing_zeros() / 8
        };
        if k == 0 {
            return (n, i);
        }
        // Keep the first k digits, moved up so that the dropped places read as leading
        // zeros, then combine them pairwise (fast_float's eight-digit step).
        let d = t.wrapping_shl(8u32.wrapping_sub(k).wrapping_mul(8));
        let d = d.wrapping_mul(10).wrapping_add(d >> 8);
        const MASK: u64 = 0x0000_00FF_0000_00FF;
        let v1 = (d & MASK).wrapping_mul(0x000F_4240_0000_0064);
        let v2 = ((d >> 16) & MASK).wrapping_mul(0x0000_2710_0000_0001);
        let value = v1.wrapping_add(v2).wrapping_shr(32) & 0xFFFF_FFFF;
        let kk = usize::try_from(k).unwrap_or(8);
        let scale = POW10_U64.get(kk).copied().unwrap_or(1);
        n = n.wrapping_mul(scale).wrapping_add(value);
        i = i.wrapping_add(kk);
        if k < 8 {
            return (n, i);
        }
    }
    while let Some(d) = rest.get(i).and_then(|b| digit(*b)) {
        n = n.wrapping_mul(10).wrapping_add(u64::from(d));
        i = i.wrapping_add(1);
    }
    (n, i)
}

#[inline(always)]
fn digit(b: u8) -> Option<u8> {
    let d = b.wrapping_sub(b'0');
    (d < 10).then_some(d)
}

/// Doom 3's lexer over a byte slice. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    concat: bool,
    comments: CommentRule,
    notes: LexNotes,
}

const fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'\\' | b':' | b'.')
}

const PUNCT3: [&[u8]; 3] = [b">>=", b"<<=", b"..."];
const PUNCT2: [&[u8]; 22] = [
    b"##", b"&&", b"||", b">=", b"<=", b"==", b"!=", b"*=", b"/=", b"%=", b"+=", b"-=", b"++",
    b"--", b"&=", b"|=", b"^=", b">>", b"<<", b"->", b"::", b".*",
];
const PUNCT1: &[u8] = b"*/%+-=&|^~!><.,;:?(){}[]\\#$";

impl<'a> Lexer<'a> {
    /// A lexer over `src`. `concat_strings` joins adjacent quoted strings (md5mesh only).
    pub fn new(src: &'a [u8], concat_strings: bool, comments: CommentRule) -> Self {
        Self {
            src,
            pos: 0,
            concat: concat_strings,
            comments,
            notes: LexNotes::default(),
        }
    }

    /// The input.
    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// The byte offset of the next character to read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to byte `pos` (which should be a token boundary returned by [`Lexer::pos`]).
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// The warnings seen so far.
    pub fn notes(&self) -> LexNotes {
        self.notes
    }

    /// The comment rule in use.
    pub fn comment_rule(&self) -> CommentRule {
        self.comments
    }

    #[inline(always)]
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn error(&self, kind: Md5ErrorKind, at: usize) -> Md5Error {
        Md5Error::new(kind, self.src, at)
    }

    /// `ReadWhiteSpace`: skips whitespace and comments. Returns false at the end of the
    /// text (the end of the slice, or a NUL byte).
    #[inline(always)]
    pub fn skip_whitespace(&mut self) -> bool {
        whitespace::skip(self.src, &mut self.pos, self.comments, &mut self.notes)
    }

    /// `ReadToken`: the next token, `Ok(None)` at the end of the text.
    pub fn next_token(&mut self) -> Result<Option<Token<'a>>> {
        if !self.skip_whitespace() {
            return Ok(None);
        }
        let start = self.pos;
        let c = self.at(start);
        let tok = if c.is_ascii_digit()
            || (c == b'.' && self.at(start.saturating_add(1)).is_ascii_digit())
        {
            self.read_number(start)?
        } else if c == b'"' || c == b'\'' {
            self.read_string(start, c)?
        } else if c.is_ascii_alphabetic() || matches!(c, b'_' | b'/' | b'\\' | b'.') {
            // LEXFL_ALLOWPATHNAMES: names may also start with `/`, `\` or `.`.
            let rest = self.src.get(start.saturating_add(1)..).unwrap_or(&[]);
            let n = rest
                .iter()
                .position(|&b| !is_name_char(b))
                .unwrap_or(rest.len());
            let end = start.saturating_add(1).saturating_add(n);
            self.pos = end;
            self.simple(TokenKind::Name, start, end)
        } else {
            self.read_punctuation(start, c)?
        };
        Ok(Some(tok))
    }

    fn simple(&self, kind: TokenKind, start: usize, end: usize) -> Token<'a> {
        Token {
            kind,
            text: Text::from_bytes(self.src.get(start..end).unwrap_or(&[])),
            offset: start,
            value: 0.0,
            int: 0,
        }
    }

    fn read_punctuation(&mut self, start: usize, c: u8) -> Result<Token<'a>> {
        let len = match c {
            // The frequent ones, which never start a longer punctuation: no table walk.
            b'(' | b')' | b'{' | b'}' | b'[' | b']' | b',' | b';' | b'?' | b'~' | b'$' => 1,
            _ => {
                let rest = self.src.get(start..).unwrap_or(&[]);
                if PUNCT3.iter().any(|p| rest.starts_with(p)) {
                    3
                } else if PUNCT2.iter().any(|p| rest.starts_with(p)) {
                    2
                } else if PUNCT1.contains(&c) {
                    1
                } else {
                    return Err(self.error(Md5ErrorKind::UnknownPunctuation(c), start));
                }
            }
        };
        let end = start.saturating_add(len);
        self.pos = end;
        Ok(self.simple(TokenKind::Punctuation, start, end))
    }

    fn read_string(&mut self, start: usize, quote: u8) -> Result<Token<'a>> {
        let kind = if quote == b'"' {
            TokenKind::String
        } else {
            TokenKind::Literal
        };
        let mut p = start.saturating_add(1);
        let mut joined = false;
        let close = loop {
            let rest = self.src.get(p..).unwrap_or(&[]);
            let Some(n) = rest
                .iter()
                .position(|&b| b == quote || b == b'\n' || b == 0)
            else {
                return Err(self.error(Md5ErrorKind::MissingTrailingQuote, start));
            };
            let q = p.saturating_add(n);
            match self.at(q) {
                b'\n' => return Err(self.error(Md5ErrorKind::NewlineInString, q)),
                0 => return Err(self.error(Md5ErrorKind::MissingTrailingQuote, start)),
                _ => {}
            }
            let after = q.saturating_add(1);
            if !self.concat {
                self.pos = after;
                break q;
            }
            // Look for another string after whitespace and comments; if there is none,
            // step back (and forget the warnings seen while looking).
            let saved = self.notes;
            self.pos = after;
            if self.skip_whitespace() && self.at(self.pos) == quote {
                joined = true;
                p = self.pos.saturating_add(1);
            } else {
                self.pos = after;
                self.notes = saved;
                break q;
            }
        };
        let text = if joined {
            Text::concatenated(
                self.src.get(start..=close).unwrap_or(&[]),
                quote,
                self.comments,
            )
        } else {
            Text::from_bytes(self.src.get(start.saturating_add(1)..close).unwrap_or(&[]))
        };
        if kind == TokenKind::Literal && text.len() != 1 {
            self.notes.long_literals.note(start);
        }
        Ok(Token {
            kind,
            text,
            offset: start,
            value: 0.0,
            int: 0,
        })
    }

    fn read_number(&mut self, start: usize) -> Result<Token<'a>> {
        let n = self.read_number_raw(start)?;
        Ok(Token {
            kind: n.kind,
            text: Text::from_bytes(self.src.get(start..n.end).unwrap_or(&[])),
            offset: start,
            value: n.value,
            int: n.int,
        })
    }

    /// True when a number token starts at `i` (a digit, or `.` before a digit).
    #[inline(always)]
    fn number_starts(&self, i: usize) -> bool {
        let c = self.at(i);
        c.is_ascii_digit() || (c == b'.' && self.at(i.saturating_add(1)).is_ascii_digit())
    }

    /// True when the token at `i` is exactly the punctuation `-` (not `--`, `-=`, `->`).
    #[inline(always)]
    fn lone_minus(&self, i: usize) -> bool {
        self.at(i) == b'-' && !matches!(self.at(i.saturating_add(1)), b'-' | b'=' | b'>')
    }

    #[inline(never)]
    fn read_number_raw(&mut self, start: usize) -> Result<Num> {
        let c = self.at(start);
        let c2 = self.at(start.saturating_add(1));
        let mut int: u32 = 0;
        let value: f64;
        let kind;
        let mut p;
        if c == b'0' && c2 != b'.' {
            if c2 == b'x' || c2 == b'X' {
                p = start.saturating_add(2);
                loop {
                    let b = self.at(p);
                    let d = match b {
                        b'0'..=b'9' => b.wrapping_sub(b'0'),
                        b'a'..=b'f' => b.wrapping_sub(b'a').wrapping_add(10),
                        b'A'..=b'F' => b.wrapping_sub(b'A').wrapping_add(10),
                        _ => break,
                    };
                    int = int.wrapping_shl(4).wrapping_add(u32::from(d));
                    p = p.saturating_add(1);
                }
                kind = TokenKind::Integer(Base::Hex);
            } else if c2 == b'b' || c2 == b'B' {
                p = start.saturating_add(2);
                while let b @ (b'0' | b'1') = self.at(p) {
                    int = int
                        .wrapping_shl(1)
                        .wrapping_add(u32::from(b.wrapping_sub(b'0')));
                    p = p.saturating_add(1);
                }
                kind = TokenKind::Integer(Base::Binary);
            } else {
                p = start.saturating_add(1);
                while let b @ b'0'..=b'7' = self.at(p) {
                    int = int
                        .wrapping_shl(3)
                        .wrapping_add(u32::from(b.wrapping_sub(b'0')));
                    p = p.saturating_add(1);
                }
                kind = TokenKind::Integer(Base::Octal);
            }
            value = f64::from(int);
        } else {
            // Decimal: digits and dots. The integer part is accumulated in a double
            // (`v = v*10 + d`) and, for integers, in a 32-bit unsigned long at once; the
            // fraction adds `d*m` with `m` starting at 0.1 and multiplied by 0.1.
            let mut v = 0.0f64;
            let mut m = 0.1f64;
            let mut dots = 0u32;
            p = start;
            loop {
                let b = self.at(p);
                if b.is_ascii_digit() {
                    let d = b.wrapping_sub(b'0');
                    if dots == 0 {
                        v = v * 10.0 + f64::from(d);
                        int = int.wrapping_mul(10).wrapping_add(u32::from(d));
                    } else {
                        v += f64::from(d) * m;
                        m *= 0.1;
                    }
                } else if b == b'.' {
                    dots = dots.saturating_add(1);
                } else {
                    break;
                }
                p = p.saturating_add(1);
            }
            let mut b = self.at(p);
            if dots > 1 {
                return Err(self.error(Md5ErrorKind::MoreThanOneDot, start));
            }
            if dots == 1 || b == b'e' {
                kind = TokenKind::Float;
                if b == b'e' {
                    p = p.saturating_add(1);
                    b = self.at(p);
                    let div = b == b'-';
                    if b == b'-' || b == b'+' {
                        p = p.saturating_add(1);
                        b = self.at(p);
                    }
                    let mut pow: i32 = 0;
                    while b.is_ascii_digit() {
                        pow = pow
                            .wrapping_mul(10)
                            .wrapping_add(i32::from(b.wrapping_sub(b'0')));
                        p = p.saturating_add(1);
                        b = self.at(p);
                    }
                    let mut scale = 1.0f64;
                    let mut i = 0i32;
                    while i < pow && scale.is_finite() {
                        scale *= 10.0;
                        i = i.saturating_add(1);
                    }
                    if div {
                        v /= scale;
                    } else {
                        v *= scale;
                    }
                } else if b == b'#' {
                    return Err(self.error(Md5ErrorKind::FloatException, start));
                }
                value = v;
                int = ftol(f64_to_f32(v));
            } else {
                kind = TokenKind::Integer(Base::Decimal);
                value = f64::from(int);
            }
        }
        let end = p;
        // Suffixes are consumed silently: `f`/`l` after a float, up to two of `u`/`l`
        // after an integer.
        if kind == TokenKind::Float {
            if matches!(self.at(p), b'f' | b'F' | b'l' | b'L') {
                p = p.saturating_add(1);
            }
        } else {
            for _ in 0..2 {
                if matches!(self.at(p), b'l' | b'L' | b'u' | b'U') {
                    p = p.saturating_add(1);
                } else {
                    break;
                }
            }
        }
        self.pos = p;
        Ok(Num {
            kind,
            value,
            int,
            end,
        })
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<Token<'a>>;

    /// Tokens until the end; after an error the iterator ends (it is fused).
    fn next(&mut self) -> Option<Self::Item> {
        match self.next_token() {
            Ok(Some(t)) => Some(Ok(t)),
            Ok(None) => None,
            Err(e) => {
                self.pos = self.src.len();
                Some(Err(e))
            }
        }
    }
}

/// The parsing helpers of `idLexer` (`ExpectTokenString`, `CheckTokenString`,
/// `ParseInt`, `ParseFloat`, `Parse1DMatrix`) over a [`Lexer`].
#[derive(Debug, Clone)]
pub struct Parser<'a> {
    lex: Lexer<'a>,
}

fn found(tok: &Token<'_>) -> Found {
    Found::token(tok.kind, tok.text.bytes())
}

impl<'a> Parser<'a> {
    /// A parser over `src` (see [`Lexer::new`]).
    pub fn new(src: &'a [u8], concat_strings: bool, comments: CommentRule) -> Self {
        Self {
            lex: Lexer::new(src, concat_strings, comments),
        }
    }

    /// The underlying lexer.
    pub fn lexer(&self) -> &Lexer<'a> {
        &self.lex
    }

    /// The underlying lexer, mutably.
    pub fn lexer_mut(&mut self) -> &mut Lexer<'a> {
        &mut self.lex
    }

    /// The byte offset of the next character to read.
    pub fn pos(&self) -> usize {
        self.lex.pos
    }

    /// Moves to a token boundary returned by [`Parser::pos`].
    pub fn set_pos(&mut self, pos: usize) {
        self.lex.pos = pos;
    }

    /// An error of `kind` at byte `at`.
    pub fn error(&self, kind: Md5ErrorKind, at: usize) -> Md5Error {
        self.lex.error(kind, at)
    }

    fn unexpected_end(&self, expected: Expected) -> Md5Error {
        self.error(
            Md5ErrorKind::Unexpected {
                expected,
                found: Found::END,
            },
            self.lex.pos,
        )
    }

    fn unexpected(&self, expected: Expected, tok: &Token<'_>) -> Md5Error {
        self.error(
            Md5ErrorKind::Unexpected {
                expected,
                found: found(tok),
            },
            tok.offset,
        )
    }

    /// `ReadToken`, failing at the end of the text with "expected `expected`".
    #[inline]
    pub fn read(&mut self, expected: Expected) -> Result<Token<'a>> {
        match self.lex.next_token()? {
            Some(t) => Ok(t),
            None => Err(self.unexpected_end(expected)),
        }
    }

    /// `ExpectTokenString`: the next token's text must be `keyword` (case-sensitive; any
    /// token kind, so `"{"` in quotes matches `{`).
    /// Returns the keyword's byte offset.
    #[inline(always)]
    pub fn expect(&mut self, keyword: &'static str) -> Result<usize> {
        // Fast path: the text is the keyword as a name or a one-character bracket, so
        // the token is known without building it.
        if self.lex.skip_whitespace() {
            let pos = self.lex.pos;
            let kw = keyword.as_bytes();
            let rest = self.lex.src.get(pos..).unwrap_or(&[]);
            if let Some(&first) = kw.first()
                && rest.len() >= kw.len()
                && kw.iter().zip(rest).all(|(a, b)| a == b)
            {
                let next = rest.get(kw.len()).copied().unwrap_or(0);
                let whole = if first.is_ascii_alphabetic() {
                    !is_name_char(next)
                } else {
                    kw.len() == 1 && matches!(first, b'(' | b')' | b'{' | b'}')
                };
                if whole {
                    self.lex.pos = pos.saturating_add(kw.len());
                    return Ok(pos);
                }
            }
        }
        self.expect_token(keyword)
    }

    /// [`Parser::expect`] beyond its inlined fast path: through a whole token.
    #[inline(never)]
    fn expect_token(&mut self, keyword: &'static str) -> Result<usize> {
        let tok = self.read(Expected::Keyword(keyword))?;
        if tok.text.eq_bytes(keyword.as_bytes()) {
            Ok(tok.offset)
        } else {
            Err(self.unexpected(Expected::Keyword(keyword), &tok))
        }
    }

    /// `CheckTokenString`: consumes the next token if its text is `keyword`; otherwise
    /// leaves the input as it was.
    pub fn check(&mut self, keyword: &str) -> Result<bool> {
        let pos = self.lex.pos;
        let notes = self.lex.notes;
        match self.lex.next_token()? {
            Some(t) if t.text.eq_bytes(keyword.as_bytes()) => Ok(true),
            _ => {
                self.lex.pos = pos;
                self.lex.notes = notes;
                Ok(false)
            }
        }
    }

    /// `ParseInt`: an optional `-` token, then a number. After `-` an integer token is
    /// required; without it a float token is accepted and truncated (Doom's subtype test
    /// never matches), which is tallied in [`LexNotes::float_as_int`]. Values wrap as
    /// 32-bit integers do.
    #[inline(always)]
    pub fn parse_int(&mut self) -> Result<i32> {
        self.parse_int_at().map(|(v, _)| v)
    }

    /// [`Parser::parse_int`], also returning the byte offset where the number (or its
    /// sign) starts, for error messages.
    #[inline(always)]
    pub fn parse_int_at(&mut self) -> Result<(i32, usize)> {
        if self.lex.skip_whitespace() {
            let start = self.lex.pos;
            if let Some((n, end)) = fast_int(self.lex.src, start) {
                self.lex.pos = end;
                return Ok((i32::from_ne_bytes(n.to_ne_bytes()), start));
            }
        }
        self.parse_int_other()
    }

    /// [`Parser::parse_int_at`] beyond its inlined fast path.
    #[inline(never)]
    fn parse_int_other(&mut self) -> Result<(i32, usize)> {
        if self.lex.skip_whitespace() {
            let start = self.lex.pos;
            if let Some(n) = fast_number(self.lex.src, start) {
                self.lex.pos = n.end;
                if n.float {
                    self.lex.notes.float_as_int.note(start);
                }
                return Ok((i32::from_ne_bytes(n.int.to_ne_bytes()), start));
            }
            if self.lex.number_starts(start) {
                return self.parse_int_exact(start);
            }
        }
        self.parse_int_slow()
    }

    /// The exact number path for what [`fast_number`] leaves (octal, hex, exponents,
    /// suffixes, long digit strings, values near an `f32` midpoint) and for errors.
    #[inline(never)]
    fn parse_int_exact(&mut self, start: usize) -> Result<(i32, usize)> {
        let n = self.lex.read_number_raw(start)?;
        if n.kind == TokenKind::Float {
            self.lex.notes.float_as_int.note(start);
        }
        Ok((i32::from_ne_bytes(n.int.to_ne_bytes()), start))
    }

    #[inline(never)]
    fn parse_float_exact(&mut self, start: usize) -> Result<f32> {
        Ok(f64_to_f32(self.lex.read_number_raw(start)?.value))
    }

    #[cold]
    fn parse_int_slow(&mut self) -> Result<(i32, usize)> {
        let tok = self.read(Expected::Integer)?;
        let at = tok.offset;
        match tok.kind {
            TokenKind::Integer(_) => Ok((i32::from_ne_bytes(tok.int.to_ne_bytes()), at)),
            TokenKind::Float => {
                self.lex.notes.float_as_int.note(tok.offset);
                Ok((i32::from_ne_bytes(tok.int.to_ne_bytes()), at))
            }
            TokenKind::Punctuation if tok.text.eq_bytes(b"-") => {
                let n = self.read(Expected::IntegerAfterMinus)?;
                match n.kind {
                    TokenKind::Integer(_) => {
                        Ok((i32::from_ne_bytes(n.int.to_ne_bytes()).wrapping_neg(), at))
                    }
                    _ => Err(self.unexpected(Expected::IntegerAfterMinus, &n)),
                }
            }
            _ => Err(self.unexpected(Expected::Integer, &tok)),
        }
    }

    /// `ParseFloat`: an optional `-` token, then any number token; the value is Doom's
    /// `f64` accumulation rounded to `f32`. `+` is refused.
    #[inline(always)]
    pub fn parse_float(&mut self) -> Result<f32> {
        // Inlined: a number, or `-` right before one (half the values of a typical file),
        // after plain whitespace; comments and the rest go the general way.
        if let Some((v, end)) = fast_float(self.lex.src, self.lex.pos) {
            self.lex.pos = end;
            return Ok(v);
        }
        self.parse_float_other()
    }

    /// [`Parser::parse_float`] beyond its inlined fast path.
    #[inline(never)]
    fn parse_float_other(&mut self) -> Result<f32> {
        if self.lex.skip_whitespace() {
            let start = self.lex.pos;
            if let Some(n) = fast_number(self.lex.src, start) {
                self.lex.pos = n.end;
                return Ok(n.value);
            }
            if self.lex.number_starts(start) {
                return self.parse_float_exact(start);
            }
            if self.lex.lone_minus(start) {
                let notes = self.lex.notes;
                self.lex.pos = start.saturating_add(1);
                if self.lex.skip_whitespace() {
                    let at = self.lex.pos;
                    if let Some(n) = fast_number(self.lex.src, at) {
                        self.lex.pos = n.end;
                        return Ok(-n.value);
                    }
                    if self.lex.number_starts(at) {
                        return self.parse_float_exact(at).map(|v| -v);
                    }
                }
                self.lex.pos = start;
                self.lex.notes = notes;
            }
        }
        self.parse_float_slow()
    }

    #[cold]
    fn parse_float_slow(&mut self) -> Result<f32> {
        let tok = self.read(Expected::Float)?;
        match tok.kind {
            TokenKind::Integer(_) | TokenKind::Float => Ok(tok.float_value()),
            TokenKind::Punctuation if tok.text.eq_bytes(b"-") => {
                let n = self.read(Expected::NumberAfterMinus)?;
                if n.is_number() {
                    Ok(-n.float_value())
                } else {
                    Err(self.unexpected(Expected::NumberAfterMinus, &n))
                }
            }
            _ => Err(self.unexpected(Expected::Float, &tok)),
        }
    }

    /// `Parse1DMatrix`: `(` then `N` floats then `)`.
    #[inline]
    pub fn parse_vec<const N: usize>(&mut self) -> Result<[f32; N]> {
        // The whole vector with the read position in a register ([`fast_vec`]); the
        // general path from the same place when it declines.
        if let Some((out, end)) = fast_vec::<N>(self.lex.src, self.lex.pos) {
            self.lex.pos = end;
            return Ok(out);
        }
        self.parse_vec_other()
    }

    /// [`Parser::parse_vec`] beyond its inlined fast path: token by token.
    #[inline(never)]
    fn parse_vec_other<const N: usize>(&mut self) -> Result<[f32; N]> {
        self.expect("(")?;
        let mut out = [0.0f32; N];
        for slot in &mut out {
            *slot = self.parse_float()?;
        }
        self.expect(")")?;
        Ok(out)
    }

    /// `count` × [`Parser::parse_float`], each value handed to `each` in order (an
    /// md5anim frame's components). The same values and errors as that many calls; the
    /// read position stays in a register while the numbers are plain (no comment, no
    /// `-` apart from its number, a common shape), where a call at a time goes through
    /// memory for every number.
    #[inline]
    pub fn parse_floats(&mut self, count: u32, mut each: impl FnMut(f32)) -> Result<()> {
        let src = self.lex.src;
        let mut pos = self.lex.pos;
        let mut left = count;
        while left > 0 {
            match fast_float(src, pos) {
                Some((v, end)) => {
                    each(v);
                    pos = end;
                }
                None => {
                    self.lex.pos = pos;
                    each(self.parse_float_other()?);
                    pos = self.lex.pos;
                }
            }
            left = left.wrapping_sub(1);
        }
        self.lex.pos = pos;
        Ok(())
    }

    /// The warnings seen so far.
    pub fn notes(&self) -> LexNotes {
        self.lex.notes
    }

    pub(crate) fn note_element_index(&mut self, at: usize) {
        self.lex.notes.element_index.note(at);
    }
}

#[cfg(test)]
mod tests;
