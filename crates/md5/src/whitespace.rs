//! Doom 3's `ReadWhiteSpace`: whitespace, `//` and `/* */` comments and the character a
//! comment swallows ([`CommentRule::Engine`]). Shared by the lexer
//! ([`Lexer::skip_whitespace`](crate::lexer::Lexer::skip_whitespace)) and by
//! [`Text::chunks`](crate::Text::chunks), which finds the pieces of a joined md5mesh
//! string again.

use crate::types::{CommentRule, LexNotes};

#[inline(always)]
fn byte_at(src: &[u8], i: usize) -> u8 {
    src.get(i).copied().unwrap_or(0)
}

/// Plain whitespace (`0x01..=0x20`) from `pos`: the next byte that is not (possibly the
/// end, a NUL, a comment's `/` or a byte ≥ 0x80, which [`skip`] then handles). The
/// lexer's fast paths use it alone and decline whatever it stops at that is no token.
#[inline(always)]
pub(crate) fn skip_plain(src: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = src.get(pos) {
        if b.wrapping_sub(1) >= b' ' {
            break;
        }
        pos = pos.wrapping_add(1);
    }
    pos
}

/// Skips whitespace and comments from `*pos`, noting what Doom warns about in `notes`.
/// Returns false at the end of the text (the end of the slice, or a NUL byte).
#[inline(always)]
pub(crate) fn skip(
    src: &[u8],
    pos: &mut usize,
    comments: CommentRule,
    notes: &mut LexNotes,
) -> bool {
    // Fast path: plain ASCII whitespace (0x01..=0x20) up to a character that starts a
    // token and is not `/`. Everything else (comments, NUL, bytes ≥ 0x80, the end)
    // goes through the full loop, which also keeps the notes.
    let p = skip_plain(src, *pos);
    *pos = p;
    match src.get(p) {
        Some(&b) if b > b' ' && b < 0x80 && b != b'/' => true,
        _ => skip_full(src, pos, comments, notes),
    }
}

#[inline(never)]
fn skip_full(src: &[u8], pos: &mut usize, comments: CommentRule, notes: &mut LexNotes) -> bool {
    loop {
        let rest = src.get(*pos..).unwrap_or(&[]);
        let mut skipped = 0usize;
        for &b in rest {
            if b == 0 || (b > b' ' && b < 0x80) {
                break;
            }
            if b >= 0x80 {
                let at = pos.saturating_add(skipped);
                notes.high_bytes.note(at);
            }
            skipped = skipped.saturating_add(1);
        }
        *pos = pos.saturating_add(skipped);
        let c = byte_at(src, *pos);
        if c == 0 {
            note_nul(src, *pos, notes);
            return false;
        }
        if c != b'/' {
            return true;
        }
        match byte_at(src, pos.saturating_add(1)) {
            b'/' => {
                let from = pos.saturating_add(2);
                let rest = src.get(from..).unwrap_or(&[]);
                match rest.iter().position(|&b| b == b'\n' || b == 0) {
                    Some(n) => {
                        let at = from.saturating_add(n);
                        if byte_at(src, at) == 0 {
                            *pos = at;
                            note_nul(src, *pos, notes);
                            return false;
                        }
                        *pos = at.saturating_add(1);
                    }
                    None => {
                        *pos = src.len();
                        return false;
                    }
                }
            }
            b'*' => {
                // Doom starts looking at the character after `/*`, and a `/` there
                // closes the comment when the character before it is `*`: `/*/` is a
                // whole comment.
                let mut p = pos.saturating_add(2);
                loop {
                    let rest = src.get(p..).unwrap_or(&[]);
                    let Some(n) = rest.iter().position(|&b| b == b'/' || b == 0) else {
                        *pos = src.len();
                        return false;
                    };
                    p = p.saturating_add(n);
                    if byte_at(src, p) == 0 {
                        *pos = p;
                        note_nul(src, *pos, notes);
                        return false;
                    }
                    if byte_at(src, p.wrapping_sub(1)) == b'*' {
                        break;
                    }
                    if byte_at(src, p.saturating_add(1)) == b'*' {
                        notes.nested_comments.note(p);
                    }
                    p = p.saturating_add(1);
                }
                p = p.saturating_add(1);
                if byte_at(src, p) == 0 {
                    *pos = p;
                    note_nul(src, *pos, notes);
                    return false;
                }
                if comments == CommentRule::Engine {
                    let b = byte_at(src, p);
                    if b > b' ' && b < 0x80 {
                        notes.swallowed.note(p);
                    }
                    p = p.saturating_add(1);
                    if byte_at(src, p) == 0 {
                        *pos = p;
                        note_nul(src, *pos, notes);
                        return false;
                    }
                }
                *pos = p;
            }
            _ => return true,
        }
    }
}

fn note_nul(src: &[u8], pos: usize, notes: &mut LexNotes) {
    if pos < src.len() {
        notes.nul.note(pos);
    }
}
