//! Format detection: what a buffer holds, from its first bytes.
//!
//! Recognises the formats idmodel reads and names the common impostors that share an
//! extension with them (Half-Life, Source and 3D GameStudio `.mdl`, sprites, MD4, MDR, MDC,
//! IQM) and the files that travel with models (archives: zip/`.pk3`/`.pk4` and Quake
//! `PACK`; glTF and GLB; Wavefront OBJ; PNG, JPEG, TGA and PCX images), so a reader can say
//! "this is a Half-Life model" or "this is a zip archive" instead of "bad magic".
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
    /// Source engine studio model (`IDST` with version 44 to 49), also a `.mdl`.
    SourceStudio,
    /// A zip archive (`PK\x03\x04`): Quake III `.pk3`, Doom 3 `.pk4`.
    Zip,
    /// A Quake / Quake II `PACK` archive (`.pak`).
    Pak,
    /// Binary glTF (`glTF`, `.glb`).
    Glb,
    /// glTF JSON (an object with an `"asset"` member, `.gltf`).
    Gltf,
    /// Wavefront OBJ text (first statement `v`, `vt`, `vn`, `f`, `o`, `g`, `mtllib`, …).
    Obj,
    /// A PNG image.
    Png,
    /// A JPEG image.
    Jpeg,
    /// A Truevision TGA image (recognised from its header fields; TGA has no magic).
    Tga,
    /// A ZSoft PCX image (Quake II skins).
    Pcx,
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
            Format::SourceStudio => "Source engine studio model (IDST, version 44-49)",
            Format::Zip => "zip archive (.pk3/.pk4)",
            Format::Pak => "Quake PACK archive (.pak)",
            Format::Glb => "binary glTF (GLB)",
            Format::Gltf => "glTF JSON",
            Format::Obj => "Wavefront OBJ",
            Format::Png => "PNG image",
            Format::Jpeg => "JPEG image",
            Format::Tga => "TGA image",
            Format::Pcx => "PCX image",
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
            Format::SourceStudio => "source-studio",
            Format::Zip => "zip",
            Format::Pak => "pak",
            Format::Glb => "glb",
            Format::Gltf => "gltf",
            Format::Obj => "obj",
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Tga => "tga",
            Format::Pcx => "pcx",
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
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(Format::Png);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(Format::Jpeg);
    }
    if let Some(magic) = bytes.get(..4) {
        let found = match magic {
            b"IDPO" => Some(Format::Mdl),
            b"IDP2" => Some(Format::Md2),
            b"IDP3" => Some(Format::Md3),
            b"IDST" => Some(match bytes.get(4..8) {
                Some(&[44..=49, 0, 0, 0]) => Format::SourceStudio,
                _ => Format::HalfLifeStudio,
            }),
            b"PK\x03\x04" | b"PK\x05\x06" => Some(Format::Zip),
            b"PACK" => Some(Format::Pak),
            b"glTF" => Some(Format::Glb),
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
    let head = bytes.get(..4096).unwrap_or(bytes);
    detect_md5(head)
        .or_else(|| detect_text(head))
        .or_else(|| detect_pcx(bytes))
        .or_else(|| detect_tga(bytes))
}

/// glTF JSON or OBJ text, from the first statement.
fn detect_text(text: &[u8]) -> Option<Format> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = text.get(start..)?;
    if rest.first() == Some(&b'{') {
        // A JSON object naming glTF's required "asset" member near the start.
        let has_asset = rest.windows(7).any(|w| w == b"\"asset\"");
        return has_asset.then_some(Format::Gltf);
    }
    // OBJ: skip comment lines, then the first keyword must be an OBJ statement.
    for line in rest.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line.first() == Some(&b'#') {
            continue;
        }
        let keyword = line
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or(line);
        let obj = matches!(
            keyword,
            b"v" | b"vt" | b"vn" | b"vp" | b"f" | b"o" | b"g" | b"s" | b"mtllib" | b"usemtl"
        );
        return (obj && line.len() > keyword.len()).then_some(Format::Obj);
    }
    None
}

/// A PCX header: manufacturer 10, version 0/2/3/4/5, RLE encoding 1, 1/2/4/8 bits per
/// plane, 1 to 4 planes, `xmax ≥ xmin`, `ymax ≥ ymin`.
fn detect_pcx(b: &[u8]) -> Option<Format> {
    let h = b.get(..128)?;
    let word = |i: usize| Some(u16::from_le_bytes([*h.get(i)?, *h.get(i.checked_add(1)?)?]));
    let ok = h.first() == Some(&10)
        && matches!(h.get(1), Some(0 | 2 | 3 | 4 | 5))
        && h.get(2) == Some(&1)
        && matches!(h.get(3), Some(1 | 2 | 4 | 8))
        && matches!(h.get(65), Some(1..=4))
        && word(8)? >= word(4)?
        && word(10)? >= word(6)?;
    ok.then_some(Format::Pcx)
}

/// A TGA header (18 bytes, no magic): colour-map type 0 or 1, an image type the id engines
/// read (1, 2, 3, 9, 10, 11), a colour map only for colour-mapped types, a pixel depth of
/// 8, 15, 16, 24 or 32 bits, a non-zero size, and the reserved bits of the descriptor clear.
fn detect_tga(b: &[u8]) -> Option<Format> {
    let h = b.get(..18)?;
    let word = |i: usize| Some(u16::from_le_bytes([*h.get(i)?, *h.get(i.checked_add(1)?)?]));
    let cmap = *h.get(1)?;
    let kind = *h.get(2)?;
    let mapped = matches!(kind, 1 | 9);
    let ok = matches!(kind, 1 | 2 | 3 | 9 | 10 | 11)
        && (cmap == 1) == mapped
        && (!mapped || matches!(h.get(7), Some(15 | 16 | 24 | 32)))
        && matches!(h.get(16), Some(8 | 15 | 16 | 24 | 32))
        && word(12)? > 0
        && word(14)? > 0
        && h.get(17).is_some_and(|d| d & 0xC0 == 0);
    ok.then_some(Format::Tga)
}

/// True when `bytes` starts like MD5 text (`MD5Version` after whitespace and comments),
/// whether or not [`detect`] can tell which of the three kinds it is: a reader can then
/// parse it to report where it goes wrong instead of calling it unknown.
pub fn starts_like_md5(bytes: &[u8]) -> bool {
    let mut words = Words {
        text: bytes.get(..4096).unwrap_or(bytes),
        pos: 0,
    };
    words.next() == Some(b"MD5Version".as_slice())
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
            (b"IDST\x30\0\0\0", Format::SourceStudio),
            (b"PK\x03\x04\x14\0", Format::Zip),
            (b"PK\x05\x06", Format::Zip),
            (b"PACK\x0c\0\0\0\0\0\0\0", Format::Pak),
            (b"glTF\x02\0\0\0", Format::Glb),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Format::Png),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Format::Jpeg),
            (b"  {\n \"asset\": {\"version\": \"2.0\"}}", Format::Gltf),
            (b"# Blender\nmtllib a.mtl\nv 0 0 0\n", Format::Obj),
            (b"v 1 2 3\nf 1 1 1\n", Format::Obj),
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
    fn images_without_magic() {
        // PCX: 8 bits, one plane... 128-byte header, 2x2 image.
        let mut pcx = [0u8; 128];
        pcx[..4].copy_from_slice(&[10, 5, 1, 8]);
        pcx[8] = 1; // xmax
        pcx[10] = 1; // ymax
        pcx[65] = 1; // planes
        assert_eq!(detect(&pcx), Some(Format::Pcx));
        pcx[2] = 0; // not RLE: not a PCX id's tools write
        assert_eq!(detect(&pcx), None);
        // TGA: uncompressed true colour 4x2, 32 bits, top-left origin.
        let tga = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 2, 0, 32, 0x28];
        assert_eq!(detect(&tga), Some(Format::Tga));
        let mut bad = tga;
        bad[16] = 7; // no such pixel depth
        assert_eq!(detect(&bad), None);
        let mut mapped = tga;
        mapped[2] = 1; // colour-mapped without a colour map
        assert_eq!(detect(&mapped), None);
    }

    /// Asserts that none of `inputs` is detected as any format.
    fn assert_none(inputs: &[&str]) {
        for input in inputs {
            assert_eq!(detect(input.as_bytes()), None, "{input:?}");
        }
    }

    #[test]
    fn text_that_is_not_obj_or_gltf() {
        assert_none(&[
            "{\"name\": 1}",
            "hello world\n",
            "# only a comment\n",
            "v\n",
        ]);
        assert!(starts_like_md5(b"// x\nMD5Version 10 junk"));
        assert!(!starts_like_md5(b"MD5Versio"));
    }

    #[test]
    fn unknown_and_short_inputs() {
        assert_none(&[
            "",
            "IDP",
            "MDL8",
            "MDL1",
            "\0\0\0\0",
            "MD5Version",
            "MD5Version 10 commandline \"\" numMeshes 1",
        ]);
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
