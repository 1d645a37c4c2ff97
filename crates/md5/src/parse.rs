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

/// `name <count>`: the keyword, then a count read with [`count`] (the count's name in
/// errors is the keyword).
pub(crate) fn named_count(p: &mut Parser<'_>, name: &'static str, min: i32) -> Result<u32> {
    p.expect(name)?;
    count(p, name, min)
}

/// `name <count>` where the count must lie in `0..=max` (`numAnimatedComponents`,
/// `numCuts`).
pub(crate) fn bounded_count(p: &mut Parser<'_>, name: &'static str, max: u64) -> Result<u32> {
    p.expect(name)?;
    let (n, at) = p.parse_int_at()?;
    match u32::try_from(n) {
        Ok(v) if u64::from(v) <= max => Ok(v),
        _ => Err(p.error(
            Md5ErrorKind::BadCount {
                what: name,
                value: i64::from(n),
            },
            at,
        )),
    }
}

/// `name { … }` holding `len` elements, each read by `element(parser, index)`; returns
/// the offset of the first element (where the views' iterators start).
pub(crate) fn block<'a>(
    p: &mut Parser<'a>,
    name: &'static str,
    len: u32,
    mut element: impl FnMut(&mut Parser<'a>, u32) -> Result<()>,
) -> Result<usize> {
    p.expect(name)?;
    p.expect("{")?;
    let at = p.pos();
    for i in 0..len {
        element(p, i)?;
    }
    p.expect("}")?;
    Ok(at)
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

/// `usize` of a count (0 where it does not fit, which no parsed count reaches).
pub(crate) fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Copies `it` into `out`; returns how many were written.
pub(crate) fn fill<T>(it: impl Iterator<Item = T>, out: &mut [T]) -> usize {
    let mut n = 0usize;
    for (slot, x) in out.iter_mut().zip(it) {
        *slot = x;
        n = n.saturating_add(1);
    }
    n
}

/// An iterator over `len` elements of one block, each read again from the text by
/// `read` (`|parser, index, ctx|`, where `ctx` is the one count the element is checked
/// against: a vertex count, a joint count, …). The block was validated by `parse`, so a
/// read error only ends the iteration.
macro_rules! element_iter {
    ($lt:lifetime, $name:ident, $item:ty, $doc:literal, |$p:ident, $i:ident, $c:ident| $read:expr) => {
        #[doc = $doc]
        #[derive(Debug, Clone)]
        pub struct $name<$lt> {
            p: Parser<$lt>,
            next: u32,
            len: u32,
            ctx: u32,
        }

        impl<$lt> $name<$lt> {
            fn new(p: Parser<$lt>, len: u32, ctx: u32) -> Self {
                Self {
                    p,
                    next: 0,
                    len,
                    ctx,
                }
            }
        }

        impl<$lt> Iterator for $name<$lt> {
            type Item = $item;

            fn next(&mut self) -> Option<$item> {
                if self.next >= self.len {
                    return None;
                }
                let $p = &mut self.p;
                let $i = self.next;
                let $c = self.ctx;
                let item = $read.ok()?;
                self.next = self.next.saturating_add(1);
                Some(item)
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = $crate::parse::to_usize(self.len.saturating_sub(self.next));
                (n, Some(n))
            }
        }

        impl ExactSizeIterator for $name<'_> {}
    };
}
pub(crate) use element_iter;
