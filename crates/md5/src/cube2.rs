//! Cube 2 (Sauerbraten, Tesseract) model configs: `md5.cfg` and `md3.cfg`.
//!
//! Cube 2 loads a model folder's `md5.cfg` or `md3.cfg` as CubeScript. This module is
//! named for the engine, not a format, because one parser serves both files (and the
//! `md3*` commands in it are Cube 2's, not Quake III's). It reads the script as
//! `command.cpp` tokenizes it and names the commands a converter needs:
//! `md5dir`/`md3dir`, `md5load`/`md3load`, `md5skin`/`md3skin mesh diffuse [masks
//! [envmapmax [envmapmin]]]`, `md5bumpmap`/`md3bumpmap mesh normalmap [skin]`, `md5anim
//! anim file [fps [priority]]` and `md3anim anim first count [fps [priority]]`
//! ([`Command`]). Everything else is [`Command::Other`].
//!
//! Tokens: statements end at a line break or `;`; `//` starts a comment; words end at
//! whitespace, `;`, `"` or `//`; `"…"` strings end at `"` or the line's end and keep
//! `^` escapes raw ([`Word::unescaped`] applies them: `^n`, `^t`, `^f`, `^x` → `x`);
//! `[…]` and `(…)` words nest and may span lines. Texture names may carry Cube's load
//! commands (`<dds>ffflag_cc.png`); [`texture_file`] strips them.
//!
//! ```
//! use idmodel_md5::cube2::{Cfg, Command, texture_file};
//! let cfg = Cfg::new(b"md5dir \"ffflag\"\nmd5skin ffflag \"<dds>ffflag_cc.png\" \"<dds>ffflag_sc.png\" // x\nmd5anim mapmodel ffflag.md5anim 0 20");
//! let cmds: Vec<_> = cfg.statements().map(|s| s.unwrap().command()).collect();
//! assert!(matches!(cmds[0], Command::Dir { dir, .. } if dir.raw == b"ffflag"));
//! let Command::Skin { mesh, diffuse, masks, .. } = cmds[1] else { panic!() };
//! assert_eq!((mesh.raw, texture_file(diffuse.raw)), (&b"ffflag"[..], &b"ffflag_cc.png"[..]));
//! assert_eq!(texture_file(masks.unwrap().raw), b"ffflag_sc.png");
//! let Command::Anim { anim, file, fps, .. } = cmds[2] else { panic!() };
//! assert_eq!((anim.raw, file.raw, fps), (&b"mapmodel"[..], &b"ffflag.md5anim"[..], Some(0.0)));
//! # Ok::<(), idmodel_md5::cube2::CfgError>(())
//! ```

use core::fmt;
use idmodel_core::bytes::byte_or_nul;

/// Cube 2's `MAXWORDS`: words per statement, the command included (more are dropped).
pub const MAX_WORDS: usize = 25;

/// What is wrong with a Cube 2 config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CfgErrorKind {
    /// A `[` or `(` that never closes ("missing ]" / "missing )").
    Unclosed(u8),
}

/// An error in a Cube 2 config, at a 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CfgError {
    /// What went wrong.
    pub kind: CfgErrorKind,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            CfgErrorKind::Unclosed(c) => {
                let close = if c == b'[' { ']' } else { ')' };
                write!(
                    f,
                    "missing {close} for the {} opened (at {}:{})",
                    char::from(c),
                    self.line,
                    self.column
                )
            }
        }
    }
}

impl core::error::Error for CfgError {}

/// How a word was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordKind {
    /// A bare word.
    Plain,
    /// A `"…"` string (raw: without the quotes, `^` escapes kept).
    Quoted,
    /// A `[…]` block (raw: without the brackets).
    Block,
    /// A `(…)` expression (raw: without the parentheses).
    Paren,
}

/// One word of a statement, borrowed from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Word<'a> {
    /// The text (see [`WordKind`] for what is stripped).
    pub raw: &'a [u8],
    /// How it was written.
    pub kind: WordKind,
    /// Byte offset of the word's first character (its quote or bracket).
    pub offset: usize,
}

impl<'a> Word<'a> {
    /// The text with Cube's `^` escapes applied (quoted strings only).
    pub fn unescaped(&self) -> impl Iterator<Item = u8> + 'a {
        let escapes = self.kind == WordKind::Quoted;
        let mut it = self.raw.iter().copied();
        core::iter::from_fn(move || {
            let b = it.next()?;
            if escapes && b == b'^' {
                return Some(match it.next()? {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'f' => 0x0c,
                    x => x,
                });
            }
            Some(b)
        })
    }

    /// `parseint` (C's `strtol` with base 0: `0x` hex, a leading `0` octal); 0 when the
    /// word is no number.
    pub fn int(&self) -> i32 {
        let s = self.raw.trim_ascii_start();
        let (neg, s) = match s.first() {
            Some(b'-') => (true, s.get(1..).unwrap_or(&[])),
            Some(b'+') => (false, s.get(1..).unwrap_or(&[])),
            _ => (false, s),
        };
        let (radix, digits) = if s.len() > 1 && (s.starts_with(b"0x") || s.starts_with(b"0X")) {
            (16, s.get(2..).unwrap_or(&[]))
        } else if s.first() == Some(&b'0') {
            (8, s)
        } else {
            (10, s)
        };
        let mut v: i64 = 0;
        for &b in digits {
            let Some(d) = char::from(b).to_digit(radix) else {
                break;
            };
            v = v
                .saturating_mul(i64::from(radix))
                .saturating_add(i64::from(d))
                .min(1 << 40);
        }
        let v = if neg { v.saturating_neg() } else { v };
        // `strtol` into `int`: clamp to the 32-bit range.
        i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0)
    }

    /// `parsefloat` (C's `strtod` for decimal forms); 0 when the word is no number.
    pub fn float(&self) -> f32 {
        idmodel_core::number::atof_with(self.raw, |e| libm::pow(10.0, f64::from(e)))
    }
}

/// The file name of a Cube 2 texture argument: leading `<…>` load commands removed
/// (`<dds>a.png` → `a.png`, `<mad:0.5>b.jpg` → `b.jpg`).
pub fn texture_file(name: &[u8]) -> &[u8] {
    let mut rest = name;
    while rest.first() == Some(&b'<') {
        match rest.iter().position(|&b| b == b'>') {
            Some(end) => rest = rest.get(end.saturating_add(1)..).unwrap_or(&[]),
            None => break,
        }
    }
    rest
}

/// A Cube 2 config's text (it ends at its first NUL).
#[derive(Debug, Clone, Copy)]
pub struct Cfg<'a> {
    text: &'a [u8],
}

impl<'a> Cfg<'a> {
    /// The config `text`.
    pub fn new(text: &'a [u8]) -> Self {
        Self { text }
    }

    /// The statements with at least one word, in order. An unclosed bracket is an error
    /// and ends the walk.
    pub fn statements(&self) -> Statements<'a> {
        Statements {
            lex: Lexer {
                text: self.text,
                pos: 0,
            },
            done: false,
            lines: (0, 0),
        }
    }

    /// Every statement read as a [`Command`], skipping none but stopping at an error.
    pub fn commands(&self) -> impl Iterator<Item = Result<Command<'a>, CfgError>> + 'a {
        self.statements().map(|s| s.map(|s| s.command()))
    }
}

#[derive(Debug, Clone)]
struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn error(&self, c: u8, at: usize) -> CfgError {
        let before = self.text.get(..at).unwrap_or(self.text);
        let line = before.iter().filter(|&&b| b == b'\n').count();
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p.saturating_add(1));
        let to = |n: usize| u32::try_from(n.saturating_add(1)).unwrap_or(u32::MAX);
        CfgError {
            kind: CfgErrorKind::Unclosed(c),
            line: to(line),
            column: to(before.len().saturating_sub(start)),
        }
    }

    /// `skipcomments`: spaces, tabs, CRs and `//` comments (not line breaks).
    fn skip(&mut self) {
        loop {
            while matches!(byte_or_nul(self.text, self.pos), b' ' | b'\t' | b'\r') {
                self.pos = self.pos.saturating_add(1);
            }
            if byte_or_nul(self.text, self.pos) == b'/'
                && byte_or_nul(self.text, self.pos.saturating_add(1)) == b'/'
            {
                while !matches!(byte_or_nul(self.text, self.pos), 0 | b'\n') {
                    self.pos = self.pos.saturating_add(1);
                }
            } else {
                return;
            }
        }
    }

    /// The next word of the current statement, or `None` at its end (the separator is
    /// left for [`Lexer::end_statement`]).
    fn word(&mut self) -> Result<Option<Word<'a>>, CfgError> {
        self.skip();
        let start = self.pos;
        let c = byte_or_nul(self.text, start);
        match c {
            0 | b'\n' | b';' => Ok(None),
            b'"' => {
                let from = start.saturating_add(1);
                let mut end = from;
                loop {
                    match byte_or_nul(self.text, end) {
                        0 | b'\n' | b'\r' | b'"' => break,
                        b'^' if byte_or_nul(self.text, end.saturating_add(1)) != 0 => {
                            end = end.saturating_add(2);
                        }
                        _ => end = end.saturating_add(1),
                    }
                }
                self.pos = if byte_or_nul(self.text, end) == b'"' {
                    end.saturating_add(1)
                } else {
                    end
                };
                Ok(Some(Word {
                    raw: self.text.get(from..end).unwrap_or(&[]),
                    kind: WordKind::Quoted,
                    offset: start,
                }))
            }
            b'[' | b'(' => {
                let close = if c == b'[' { b']' } else { b')' };
                let mut depth = 0usize;
                let mut i = start;
                loop {
                    let b = byte_or_nul(self.text, i);
                    if b == 0 {
                        return Err(self.error(c, start));
                    }
                    if b == b'"' {
                        // A string inside a block: up to its quote or the line's end.
                        i = i.saturating_add(1);
                        while !matches!(byte_or_nul(self.text, i), 0 | b'"' | b'\n') {
                            i = i.saturating_add(1);
                        }
                        if byte_or_nul(self.text, i) == b'"' {
                            i = i.saturating_add(1);
                        }
                        continue;
                    }
                    if b == b'/' && byte_or_nul(self.text, i.saturating_add(1)) == b'/' {
                        while !matches!(byte_or_nul(self.text, i), 0 | b'\n') {
                            i = i.saturating_add(1);
                        }
                        continue;
                    }
                    if b == c {
                        depth = depth.saturating_add(1);
                    } else if b == close {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    i = i.saturating_add(1);
                }
                self.pos = i.saturating_add(1);
                Ok(Some(Word {
                    raw: self.text.get(start.saturating_add(1)..i).unwrap_or(&[]),
                    kind: if c == b'[' {
                        WordKind::Block
                    } else {
                        WordKind::Paren
                    },
                    offset: start,
                }))
            }
            _ => {
                let mut i = start;
                loop {
                    match byte_or_nul(self.text, i) {
                        0 | b'"' | b';' | b' ' | b'\t' | b'\r' | b'\n' => break,
                        b'/' if byte_or_nul(self.text, i.saturating_add(1)) == b'/' => break,
                        _ => i = i.saturating_add(1),
                    }
                }
                self.pos = i;
                Ok(Some(Word {
                    raw: self.text.get(start..i).unwrap_or(&[]),
                    kind: WordKind::Plain,
                    offset: start,
                }))
            }
        }
    }

    /// Steps over the statement separator; false at the end of the text.
    fn end_statement(&mut self) -> bool {
        match byte_or_nul(self.text, self.pos) {
            0 => false,
            _ => {
                self.pos = self.pos.saturating_add(1);
                true
            }
        }
    }
}

/// One statement: a command word and its arguments (read again on demand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Statement<'a> {
    /// The command word.
    pub command_word: Word<'a>,
    /// 1-based line of the command word.
    pub line: u32,
    text: &'a [u8],
    /// Offset just after the command word.
    args_at: usize,
    /// Arguments kept (at most [`MAX_WORDS`] − 1).
    num_args: usize,
}

impl<'a> Statement<'a> {
    /// The arguments (at most [`MAX_WORDS`] − 1; Cube drops the rest).
    pub fn args(&self) -> impl Iterator<Item = Word<'a>> + 'a {
        let mut lex = Lexer {
            text: self.text,
            pos: self.args_at,
        };
        // The statement was read once already: re-reading cannot fail.
        core::iter::from_fn(move || lex.word().ok().flatten()).take(self.num_args)
    }

    /// Argument `i` (0-based, after the command).
    pub fn arg(&self, i: usize) -> Option<Word<'a>> {
        self.args().nth(i)
    }

    /// The statement read as a known command.
    pub fn command(&self) -> Command<'a> {
        let name = self.command_word.raw;
        let is = |a: &str| name.eq_ignore_ascii_case(a.as_bytes());
        let md5 = name
            .get(..3)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"md5"));
        let fmt = if md5 { Fmt::Md5 } else { Fmt::Md3 };
        let a = |i| self.arg(i);
        let other = Command::Other(*self);
        let nonempty = |i| a(i).filter(|w: &Word<'a>| !w.raw.is_empty());
        // The commands of two required arguments (and optional ones `make` reads).
        let two = |make: &dyn Fn(Word<'a>, Word<'a>) -> Command<'a>| match (a(0), a(1)) {
            (Some(x), Some(y)) => make(x, y),
            _ => other,
        };
        if is("md5dir") || is("md3dir") {
            a(0).map_or(other, |dir| Command::Dir { fmt, dir })
        } else if is("md5load") || is("md3load") {
            a(0).map_or(other, |file| Command::Load {
                fmt,
                file,
                skeleton: nonempty(1),
            })
        } else if is("md5skin") || is("md3skin") {
            two(&|mesh, diffuse| Command::Skin {
                fmt,
                mesh,
                diffuse,
                masks: nonempty(2),
            })
        } else if is("md5bumpmap") || is("md3bumpmap") {
            two(&|mesh, normal| Command::Bumpmap {
                fmt,
                mesh,
                normal,
                skin: nonempty(2),
            })
        } else if is("md5anim") {
            two(&|anim, file| Command::Anim {
                anim,
                file,
                fps: a(2).map(|w| w.float()),
                priority: a(3).map(|w| w.int()),
            })
        } else if is("md3anim") {
            two(&|anim, first| Command::FrameAnim {
                anim,
                first: first.int(),
                count: a(2).map_or(0, |w| w.int()),
                fps: a(3).map(|w| w.float()),
                priority: a(4).map(|w| w.int()),
            })
        } else {
            other
        }
    }
}

/// Which command family (`md5…` or `md3…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fmt {
    /// `md5dir`, `md5load`, `md5skin`, `md5bumpmap`.
    Md5,
    /// `md3dir`, `md3load`, `md3skin`, `md3bumpmap`.
    Md3,
}

/// A config statement a converter cares about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command<'a> {
    /// `md5dir dir`: the folder (under `packages/models/`) the other names are in.
    Dir {
        /// md5 or md3.
        fmt: Fmt,
        /// The folder.
        dir: Word<'a>,
    },
    /// `md5load mesh [skeleton]` / `md3load model`.
    Load {
        /// md5 or md3.
        fmt: Fmt,
        /// The model file.
        file: Word<'a>,
        /// md5: the skeleton to share (empty: none).
        skeleton: Option<Word<'a>>,
    },
    /// `md5skin mesh diffuse [masks …]`: `*` as mesh means every mesh.
    Skin {
        /// md5 or md3.
        fmt: Fmt,
        /// The mesh (md5: its `shader` name; md3: the surface name) or `*`.
        mesh: Word<'a>,
        /// The diffuse texture.
        diffuse: Word<'a>,
        /// The masks texture (R specular, G glow, B envmap): "spec \[glow\]".
        masks: Option<Word<'a>>,
    },
    /// `md5bumpmap mesh normalmap [skin]`.
    Bumpmap {
        /// md5 or md3.
        fmt: Fmt,
        /// The mesh or `*`.
        mesh: Word<'a>,
        /// The normal map.
        normal: Word<'a>,
        /// A diffuse texture to use with it.
        skin: Option<Word<'a>>,
    },
    /// `md5anim anim file [fps [priority]]`: a clip from an md5anim (`fps` 0 or absent:
    /// the file's own frame rate).
    Anim {
        /// The animation name (`idle`, `mapmodel`, `dying`, …).
        anim: Word<'a>,
        /// The md5anim file.
        file: Word<'a>,
        /// Frames per second.
        fps: Option<f32>,
        /// Priority.
        priority: Option<i32>,
    },
    /// `md3anim anim first count [fps [priority]]`: a clip of the model's frames.
    FrameAnim {
        /// The animation name.
        anim: Word<'a>,
        /// The first frame.
        first: i32,
        /// The frame count.
        count: i32,
        /// Frames per second.
        fps: Option<f32>,
        /// Priority.
        priority: Option<i32>,
    },
    /// Anything else (`mdlscale`, `md5glare`, …), or a known command without its
    /// required words.
    Other(Statement<'a>),
}

/// The statements of a [`Cfg`].
#[derive(Debug, Clone)]
pub struct Statements<'a> {
    lex: Lexer<'a>,
    done: bool,
    /// (offset counted to, line breaks before it): lines are counted forward once.
    lines: (usize, usize),
}

impl<'a> Statements<'a> {
    fn line_of(&mut self, at: usize) -> u32 {
        let span = self.lex.text.get(self.lines.0..at).unwrap_or(&[]);
        let n = span.iter().filter(|&&b| b == b'\n').count();
        self.lines = (at.max(self.lines.0), self.lines.1.saturating_add(n));
        u32::try_from(self.lines.1.saturating_add(1)).unwrap_or(u32::MAX)
    }
}

impl<'a> Iterator for Statements<'a> {
    type Item = Result<Statement<'a>, CfgError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let first = match self.lex.word() {
                Ok(w) => w,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let Some(command_word) = first else {
                if !self.lex.end_statement() {
                    self.done = true;
                }
                continue;
            };
            let args_at = self.lex.pos;
            let mut n = 0usize;
            loop {
                match self.lex.word() {
                    Ok(Some(_)) => {
                        n = n.saturating_add(1);
                    }
                    Ok(None) => break,
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
            if !self.lex.end_statement() {
                self.done = true;
            }
            let line = self.line_of(command_word.offset);
            return Some(Ok(Statement {
                command_word,
                line,
                text: self.lex.text,
                args_at,
                // MAXWORDS includes the command: MAX_WORDS − 1 arguments are kept.
                num_args: n.min(MAX_WORDS.saturating_sub(1)),
            }));
        }
        None
    }
}

impl core::iter::FusedIterator for Statements<'_> {}

#[cfg(test)]
mod tests {
    extern crate alloc;
    use super::*;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    fn all(text: &[u8]) -> Vec<Statement<'_>> {
        Cfg::new(text).statements().map(|s| s.unwrap()).collect()
    }

    #[test]
    fn statements_comments_and_semicolons() {
        let s = all(b"a 1; b \"x y\" // c\n\n  // only\nc [d\ne] (f (g)) h\r\n");
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].command_word.raw, b"a");
        assert_eq!(s[1].arg(0).unwrap().raw, b"x y");
        assert_eq!(s[1].arg(1), None);
        assert_eq!(s[2].line, 4);
        let c: Vec<_> = s[2].args().map(|w| (w.raw, w.kind)).collect();
        assert_eq!(
            c,
            [
                (&b"d\ne"[..], WordKind::Block),
                (b"f (g)", WordKind::Paren),
                (b"h", WordKind::Plain)
            ]
        );
    }

    #[test]
    fn quoted_strings_as_cube_reads_them() {
        let s = all(b"x \"a^\"b^n\" \"open\ny");
        let w = s[0].arg(0).unwrap();
        assert_eq!(w.raw, b"a^\"b^n");
        assert_eq!(w.unescaped().collect::<Vec<_>>(), b"a\"b\n");
        assert_eq!(s[0].arg(1).unwrap().raw, b"open"); // ends at the line break
        assert_eq!(s[1].command_word.raw, b"y");
        assert_eq!(all(b"x \"\"")[0].arg(0).unwrap().raw, b"");
    }

    #[test]
    fn commands() {
        let s = all(b"md5load \"m.md5mesh\" \"\" 00\nmd3skin body a.jpg\nmd3anim run 10 5 15 2\n\
                      md5bumpmap * n.png d.png\nmd5anim idle i.md5anim\nmd5skin lonely\nmdlscale 10");
        let c: Vec<_> = s.iter().map(Statement::command).collect();
        assert!(matches!(
            c[0],
            Command::Load {
                fmt: Fmt::Md5,
                skeleton: None,
                ..
            }
        ));
        assert!(matches!(
            c[1],
            Command::Skin {
                fmt: Fmt::Md3,
                masks: None,
                ..
            }
        ));
        assert!(matches!(
            c[2],
            Command::FrameAnim {
                first: 10,
                count: 5,
                fps: Some(15.0),
                priority: Some(2),
                ..
            }
        ));
        assert!(matches!(c[3], Command::Bumpmap { mesh, skin: Some(_), .. } if mesh.raw == b"*"));
        assert!(matches!(c[4], Command::Anim { fps: None, .. }));
        assert!(matches!(c[5], Command::Other(_)));
        assert!(matches!(c[6], Command::Other(s) if s.arg(0).unwrap().int() == 10));
    }

    #[test]
    fn numbers_and_textures() {
        let w = |raw: &'static [u8]| Word {
            raw,
            kind: WordKind::Plain,
            offset: 0,
        };
        assert_eq!(
            (
                w(b"010").int(),
                w(b"0x1f").int(),
                w(b"-7z").int(),
                w(b"z").int()
            ),
            (8, 31, -7, 0)
        );
        assert_eq!(
            (w(b"2.5").float(), w(b"1e2").float(), w(b"x").float()),
            (2.5, 100.0, 0.0)
        );
        assert_eq!(w(b"99999999999").int(), i32::MAX);
        assert_eq!(texture_file(b"<dds><mad:1>a.png"), b"a.png");
        assert_eq!(texture_file(b"<open"), b"<open");
    }

    #[test]
    fn unclosed_brackets_and_many_words() {
        let e = Cfg::new(b"ok\nx [a [b]")
            .statements()
            .nth(1)
            .unwrap()
            .unwrap_err();
        assert_eq!(
            (e.kind, e.line, e.column),
            (CfgErrorKind::Unclosed(b'['), 2, 3)
        );
        assert!(e.to_string().contains("2:3"));
        let long = [b"c".as_slice(), &b" w".repeat(40)].concat();
        let s = all(&long);
        assert_eq!(s[0].args().count(), MAX_WORDS - 1);
        assert!(Cfg::new(b"").statements().next().is_none());
        assert!(Cfg::new(b"\n;;\n").statements().next().is_none());
    }
}
