//! Pieces shared by the three MD5 grammars.

use crate::error::{Md5Error, Md5ErrorKind, Result};
use crate::lexer::{CommentRule, Parser};
use crate::text::Text;

/// The version every MD5 file must declare (`MD5_VERSION`, Model.h).
pub const MD5_VERSION: i32 = 10;

/// Options for the three parsers.
///
/// ```
/// use idmodel_md5::{lexer::CommentRule, ParseOptions};
/// let strict = ParseOptions { comments: CommentRule::Strict, ..ParseOptions::default() };
/// assert_ne!(strict, ParseOptions::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ParseOptions {
    /// How `/* */` comments end; [`CommentRule::Engine`] (the default) reads files as
    /// Doom 3 does.
    pub comments: CommentRule,
    /// Refuse md5mesh `vert`/`tri`/`weight` lines whose number is not their position.
    /// Off by default: Doom reads and ignores that number (the i-th line is element i),
    /// and a mismatch is reported as a finding instead. Files made for Assimp-based tools,
    /// which store element i at the written number, are read differently there.
    pub require_element_indices: bool,
}

/// `MD5Version 10` and `commandline <token>`; returns the command line's text.
pub(crate) fn header<'a>(p: &mut Parser<'a>) -> Result<Text<'a>> {
    p.expect("MD5Version")?;
    let (version, at) = p.parse_int_at()?;
    if version != MD5_VERSION {
        return Err(p.error(Md5ErrorKind::UnsupportedVersion(version), at));
    }
    p.expect("commandline")?;
    Ok(p.read(crate::error::Expected::Token)?.text)
}

/// A count read with `ParseInt`, refused below `min` (Doom's `< 0` or `<= 0` checks).
pub(crate) fn count(p: &mut Parser<'_>, what: &'static str, min: i32) -> Result<u32> {
    let (v, at) = p.parse_int_at()?;
    if v < min {
        return Err(p.error(
            Md5ErrorKind::BadCount {
                what,
                value: i64::from(v),
            },
            at,
        ));
    }
    Ok(u32::try_from(v).unwrap_or(0))
}

/// Reads an integer that must lie in `0..len`.
#[inline(always)]
pub(crate) fn index(p: &mut Parser<'_>, what: &'static str, len: u32) -> Result<u32> {
    let (v, at) = p.parse_int_at()?;
    match u32::try_from(v) {
        Ok(i) if i < len => Ok(i),
        _ => Err(index_error(p, what, v, len, at)),
    }
}

#[cold]
#[inline(never)]
fn index_error(p: &Parser<'_>, what: &'static str, v: i32, len: u32, at: usize) -> Md5Error {
    p.error(
        Md5ErrorKind::IndexOutOfRange {
            what,
            index: i64::from(v),
            len: u64::from(len),
        },
        at,
    )
}

/// A parser for `src` with the md5mesh (`concat = true`) or md5anim/md5camera rules.
pub(crate) fn parser(src: &[u8], concat: bool, opts: ParseOptions) -> Parser<'_> {
    Parser::new(src, concat, opts.comments)
}

/// A parser positioned at `pos`, for the views' iterators.
pub(crate) fn parser_at(src: &[u8], concat: bool, rule: CommentRule, pos: usize) -> Parser<'_> {
    let mut p = Parser::new(src, concat, rule);
    p.set_pos(pos);
    p
}

/// The ignored number after `vert`, `tri` or `weight`: noted when it is not `i`, refused
/// when `strict`.
#[inline(always)]
pub(crate) fn element_index(
    p: &mut Parser<'_>,
    what: &'static str,
    i: u32,
    strict: bool,
) -> Result<()> {
    let (n, at) = p.parse_int_at()?;
    if u32::try_from(n).ok() != Some(i) {
        return element_index_mismatch(p, what, i, n, at, strict);
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn element_index_mismatch(
    p: &mut Parser<'_>,
    what: &'static str,
    i: u32,
    n: i32,
    at: usize,
    strict: bool,
) -> Result<()> {
    if strict {
        return Err(p.error(
            Md5ErrorKind::ElementIndex {
                what,
                expected: i,
                found: n,
            },
            at,
        ));
    }
    p.note_element_index(at);
    Ok(())
}
