//! Format detection: what a buffer holds, from its first bytes.
//!
//! Recognises the formats idmodel reads and names the common impostors that share an
//! extension with them (Half-Life and 3D GameStudio `.mdl`, sprites, MD4, MDR, MDC, IQM),
//! so a reader can say "this is a Half-Life model" instead of "bad magic".
//!
//! ```
//! use idmodel_core::detect::{detect, Format};
//! assert_eq!(detect(b"IDPO\x06\0\0\0"), Some(Format::Mdl));
//! assert_eq!(detect(b"IDST\x0a\0\0\0").map(Format::name), Some("Half-Life studio model (IDST)"));
//! ```

/// What a buffer holds, as far as its first bytes tell.
///
/// The first six variants are the formats idmodel reads; the rest are files that share an
/// extension or a family with them, named so a user learns what they have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Quake MDL (`IDPO`).
    Mdl,
    /// Quake II MD2 (`IDP2`).
    Md2,
    /// Quake III MD3 (`IDP3`).
    Md3,
    /// Doom 3 mesh (`MD5Version` … `numJoints`).
    Md5Mesh,
    /// Doom 3 animation (`MD5Version` … `numFrames` … `numJoints`).
    Md5Anim,
    /// Doom 3 camera (`MD5Version` … `numFrames` … `frameRate`).
    Md5Camera,
    /// Half-Life studio model (`IDST`), also a `.mdl`.
    HalfLifeStudio,
    /// Half-Life sequence group (`IDSQ`, `name01.mdl`).
    HalfLifeSequence,
    /// 3D GameStudio model (`MDL2` … `MDL7`), also a `.mdl`; the digit is the version.
    GameStudio(u8),
    /// Quake II sprite (`IDS2`, `.sp2`).
    Quake2Sprite,
    /// Quake sprite (`IDSP`, `.spr`).
    QuakeSprite,
    /// Quake III MD4 skeletal model (`IDP4`).
    Md4,
    /// Raven/ioquake3 MDR skeletal model (`RDM5`).
    Mdr,
    /// Return to Castle Wolfenstein compressed MD3 (`IDPC`, `.mdc`).
    Mdc,
    /// Inter-Quake Model (`INTERQUAKEMODEL`).
    Iqm,
}

impl Format {
    /// True for the formats idmodel reads.
    pub const fn is_supported(self) -> bool {
        matches!(
            self,
            Format::Mdl
                | Format::Md2
                | Format::Md3
                | Format::Md5Mesh
                | Format::Md5Anim
                | Format::Md5Camera
        )
    }

    /// A short human-readable name, e.g. `"Half-Life studio model (IDST)"`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Mdl => "Quake MDL (IDPO)",
            Format::Md2 => "Quake II MD2 (IDP2)",
            Format::Md3 => "Quake III MD3 (IDP3)",
            Format::Md5Mesh => "Doom 3 md5mesh",
            Format::Md5Anim => "Doom 3 md5anim",
            Format::Md5Camera => "Doom 3 md5camera",
            Format::HalfLifeStudio => "Half-Life studio model (IDST)",
            Format::HalfLifeSequence => "Half-Life sequence group (IDSQ)",
            Format::GameStudio(2) => "3D GameStudio model (MDL2)",
            Format::GameStudio(3) => "3D GameStudio model (MDL3)",
            Format::GameStudio(4) => "3D GameStudio model (MDL4)",
            Format::GameStudio(5) => "3D GameStudio model (MDL5)",
            Format::GameStudio(6) => "3D GameStudio model (MDL6)",
            Format::GameStudio(_) => "3D GameStudio model (MDL7)",
            Format::Quake2Sprite => "Quake II sprite (IDS2)",
            Format::QuakeSprite => "Quake sprite (IDSP)",
            Format::Md4 => "Quake III MD4 (IDP4)",
            Format::Mdr => "MDR skeletal model (RDM5)",
            Format::Mdc => "Return to Castle Wolfenstein MDC (IDPC)",
            Format::Iqm => "Inter-Quake Model (IQM)",
        }
    }

    /// The short identifier used by the command-line tool's JSON (`"mdl"`, `"md5mesh"`, …).
    pub const fn id(self) -> &'static str {
        match self {
            Format::Mdl => "mdl",
            Format::Md2 => "md2",
            Format::Md3 => "md3",
            Format::Md5Mesh => "md5mesh",
            Format::Md5Anim => "md5anim",
            Format::Md5Camera => "md5camera",
            Format::HalfLifeStudio => "hl-studio",
            Format::HalfLifeSequence => "hl-sequence",
            Format::GameStudio(_) => "gamestudio-mdl",
            Format::Quake2Sprite => "sp2",
            Format::QuakeSprite => "spr",
            Format::Md4 => "md4",
            Format::Mdr => "mdr",
            Format::Mdc => "mdc",
            Format::Iqm => "iqm",
        }
    }
}

impl core::fmt::Display for Format {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Tells what `bytes` holds from its first bytes (at most the first 4 KiB are read for
/// the MD5 text files). `None` when nothing known matches.
///
/// Only the magic (or, for MD5, the leading keywords) is looked at: a `Some` does not
/// mean the file is valid. Parse it with the format crate for that.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"INTERQUAKEMODEL\0") {
        return Some(Format::Iqm);
    }
    if let Some(magic) = bytes.get(..4) {
        let found = match magic {
            b"IDPO" => Some(Format::Mdl),
            b"IDP2" => Some(Format::Md2),
            b"IDP3" => Some(Format::Md3),
            b"IDST" => Some(Format::HalfLifeStudio),
            b"IDSQ" => Some(Format::HalfLifeSequence),
            b"IDS2" => Some(Format::Quake2Sprite),
            b"IDSP" => Some(Format::QuakeSprite),
            b"IDP4" => Some(Format::Md4),
            b"RDM5" => Some(Format::Mdr),
            b"IDPC" => Some(Format::Mdc),
            [b'M', b'D', b'L', d @ b'2'..=b'7'] => Some(Format::GameStudio(d.wrapping_sub(b'0'))),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    detect_md5(bytes.get(..4096).unwrap_or(bytes))
}

/// Recognises the three MD5 text files by their leading keywords, skipping whitespace,
/// comments and quoted strings as Doom's lexer does.
fn detect_md5(text: &[u8]) -> Option<Format> {
    let mut words = Words { text, pos: 0 };
    if words.next()? != b"MD5Version" {
        return None;
    }
    // Version number, then "commandline" and its argument.
    words.next()?;
    if words.next()? != b"commandline" {
        return None;
    }
    words.next()?;
    match words.next()? {
        b"numJoints" => Some(Format::Md5Mesh),
        b"numFrames" => {
            words.next()?; // the count
            match words.next()? {
                b"numJoints" => Some(Format::Md5Anim),
                b"frameRate" => Some(Format::Md5Camera),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A tiny word splitter for [`detect_md5`]: words are runs of bytes above space;
/// `//` and `/* */` comments and `"…"` strings are single separators/words.
struct Words<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Words<'a> {
    fn peek(&self, at: usize) -> Option<u8> {
        self.text.get(self.pos.checked_add(at)?).copied()
    }

    fn skip_space_and_comments(&mut self) {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(b), _) if b <= b' ' || b >= 0x80 => self.pos = self.pos.saturating_add(1),
                (Some(b'/'), Some(b'/')) => {
                    while let Some(b) = self.peek(0) {
                        if b == b'\n' {
                            break;
                        }
                        self.pos = self.pos.saturating_add(1);
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.pos = self.pos.saturating_add(2);
                    loop {
                        match (self.peek(0), self.peek(1)) {
                            (Some(b'*'), Some(b'/')) => {
                                self.pos = self.pos.saturating_add(2);
                                break;
                            }
                            (None, _) => return,
                            _ => self.pos = self.pos.saturating_add(1),
                        }
                    }
                }
                _ => return,
            }
        }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        self.skip_space_and_comments();
        let start = self.pos;
        let first = self.peek(0)?;
        if first == b'"' {
            self.pos = self.pos.saturating_add(1);
            while let Some(b) = self.peek(0) {
                self.pos = self.pos.saturating_add(1);
                if b == b'"' || b == b'\n' {
                    break;
                }
            }
        } else {
            while let Some(b) = self.peek(0) {
                if b <= b' ' || b >= 0x80 || b == b'"' {
                    break;
                }
                self.pos = self.pos.saturating_add(1);
            }
        }
        self.text.get(start..self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_magics() {
        let cases: &[(&[u8], Format)] = &[
            (b"IDPO\x06\0\0\0", Format::Mdl),
            (b"IDP2\x08\0\0\0", Format::Md2),
            (b"IDP3\x0f\0\0\0", Format::Md3),
            (b"IDST\x0a\0\0\0", Format::HalfLifeStudio),
            (b"IDSQ\x0a\0\0\0", Format::HalfLifeSequence),
            (b"MDL2", Format::GameStudio(2)),
            (b"MDL5....", Format::GameStudio(5)),
            (b"MDL7", Format::GameStudio(7)),
            (b"IDS2\x02\0\0\0", Format::Quake2Sprite),
            (b"IDSP\x01\0\0\0", Format::QuakeSprite),
            (b"IDP4", Format::Md4),
            (b"RDM5", Format::Mdr),
            (b"IDPC", Format::Mdc),
            (b"INTERQUAKEMODEL\0\x02\0\0\0", Format::Iqm),
        ];
        for (bytes, want) in cases {
            assert_eq!(detect(bytes), Some(*want), "{bytes:?}");
        }
        for f in [Format::Mdl, Format::Md2, Format::Md3] {
            assert!(f.is_supported());
        }
        assert!(!Format::GameStudio(5).is_supported());
        assert_eq!(Format::GameStudio(5).name(), "3D GameStudio model (MDL5)");
    }

    #[test]
    fn unknown_and_short_inputs() {
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"IDP"), None);
        assert_eq!(detect(b"MDL8"), None);
        assert_eq!(detect(b"MDL1"), None);
        assert_eq!(detect(b"\0\0\0\0"), None);
        assert_eq!(detect(b"MD5Version"), None);
        assert_eq!(detect(b"MD5Version 10 commandline \"\" numMeshes 1"), None);
    }

    #[test]
    fn md5_text_kinds() {
        let mesh = b"MD5Version 10\ncommandline \"x\"\n\nnumJoints 1\nnumMeshes 1\n";
        assert_eq!(detect(mesh), Some(Format::Md5Mesh));
        let anim = b"MD5Version 10 // comment\ncommandline \"a b\"\nnumFrames 2\nnumJoints 1\n";
        assert_eq!(detect(anim), Some(Format::Md5Anim));
        let cam = b"/* header */ MD5Version 10\ncommandline \"\"\nnumFrames 2\nframeRate 24\n";
        assert_eq!(detect(cam), Some(Format::Md5Camera));
        // Keywords are case-sensitive, as in Doom's lexer.
        assert_eq!(detect(b"md5version 10 commandline \"\" numJoints 1"), None);
        // The 34-byte hostile input from the MD5 issue is not mistaken for a mesh.
        assert_eq!(detect(b"MD5Version 10\njoints MD5Version"), None);
    }
}
