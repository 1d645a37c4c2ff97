//! The archives a model comes in: Quake III `.pk3` / Doom 3 `.pk4` (zip) and Quake /
//! Quake II `.pak` (`PACK`). Only the members the viewer can use are taken out (models,
//! their side files and images), within a total size budget.

use crate::File;

/// At most this many bytes are taken out of the archives of one drop, all together.
pub const MAX_EXTRACTED: usize = 256 << 20;

/// The file extensions worth taking out of an archive.
const USEFUL: [&str; 13] = [
    "mdl",
    "md2",
    "md3",
    "md5mesh",
    "md5anim",
    "md5camera",
    "skin",
    "cfg",
    "tga",
    "png",
    "jpg",
    "jpeg",
    "pcx",
];

/// Whether a member named `name` is one the viewer can use.
pub fn useful(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower
        .rsplit_once('.')
        .is_some_and(|(_, ext)| USEFUL.contains(&ext))
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(usize::from(u16::from_le_bytes([*s.first()?, *s.get(1)?])))
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    let s = b.get(at..at.checked_add(4)?)?;
    let v = u32::from_le_bytes(s.try_into().ok()?);
    usize::try_from(v).ok()
}

/// What came out of an archive: the members taken, and how many it holds in all.
#[derive(Debug, Default)]
pub struct Extracted {
    /// The useful members, named `archive/path/in/archive`.
    pub files: Vec<File>,
    /// How many members the archive lists.
    pub members: usize,
}

/// The useful members of the zip archive `bytes` named `name`, or the one-line reason
/// it cannot be read. `budget` is what may still be taken out; it is reduced.
pub fn unzip(name: &str, bytes: &[u8], budget: &mut usize) -> Result<Extracted, String> {
    let bad = |what: &str| format!("{name}: a zip archive idmodel cannot read: {what}");
    // End of central directory: 22 bytes plus a comment of at most 65535.
    let start = bytes.len().saturating_sub(22 + 65535);
    let eocd = (start..=bytes.len().saturating_sub(22))
        .rev()
        .find(|&i| bytes.get(i..i.saturating_add(4)) == Some(b"PK\x05\x06"))
        .ok_or_else(|| bad("no end of central directory"))?;
    let count = u16_at(bytes, eocd.saturating_add(10)).ok_or_else(|| bad("truncated"))?;
    let mut at = u32_at(bytes, eocd.saturating_add(16)).ok_or_else(|| bad("truncated"))?;
    let mut out = Extracted {
        members: count,
        ..Extracted::default()
    };
    for _ in 0..count {
        let field = |off: usize, len: usize| {
            let p = at.checked_add(off)?;
            if len == 2 {
                u16_at(bytes, p)
            } else {
                u32_at(bytes, p)
            }
        };
        if bytes.get(at..at.saturating_add(4)) != Some(b"PK\x01\x02") {
            return Err(bad(&format!("no central directory entry at byte {at}")));
        }
        let (Some(method), Some(csize), Some(usize_), Some(nlen), Some(xlen), Some(clen)) = (
            field(10, 2),
            field(20, 4),
            field(24, 4),
            field(28, 2),
            field(30, 2),
            field(32, 2),
        ) else {
            return Err(bad("truncated central directory"));
        };
        let local = field(42, 4).ok_or_else(|| bad("truncated central directory"))?;
        let name_at = at.saturating_add(46);
        let member = bytes
            .get(name_at..name_at.saturating_add(nlen))
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .ok_or_else(|| bad("truncated central directory"))?;
        at = name_at
            .saturating_add(nlen)
            .saturating_add(xlen)
            .saturating_add(clen);
        if member.ends_with('/') || !useful(&member) || usize_ > *budget {
            continue;
        }
        let (Some(lnlen), Some(lxlen)) = (
            u16_at(bytes, local.saturating_add(26)),
            u16_at(bytes, local.saturating_add(28)),
        ) else {
            return Err(bad(&format!("{member}: truncated local header")));
        };
        let data_at = local
            .saturating_add(30)
            .saturating_add(lnlen)
            .saturating_add(lxlen);
        let data = bytes
            .get(data_at..data_at.saturating_add(csize))
            .ok_or_else(|| bad(&format!("{member}: data past the end")))?;
        let data = match method {
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, usize_)
                .map_err(|e| bad(&format!("{member}: bad deflate data ({:?})", e.status)))?,
            m => return Err(bad(&format!("{member}: compression method {m}"))),
        };
        *budget = budget.saturating_sub(data.len());
        out.files.push(File {
            name: format!("{name}/{member}"),
            bytes: data,
        });
    }
    Ok(out)
}

/// The useful members of the `PACK` archive `bytes` named `name` (64-byte directory
/// entries: 56-byte name, offset, length), or the one-line reason it cannot be read.
pub fn unpak(name: &str, bytes: &[u8], budget: &mut usize) -> Result<Extracted, String> {
    let bad = |what: &str| format!("{name}: a PACK archive idmodel cannot read: {what}");
    let (Some(dir), Some(len)) = (u32_at(bytes, 4), u32_at(bytes, 8)) else {
        return Err(bad("truncated header"));
    };
    let table = bytes
        .get(dir..dir.saturating_add(len))
        .ok_or_else(|| bad(&format!("directory at byte {dir} past the end")))?;
    let mut out = Extracted {
        members: len / 64,
        ..Extracted::default()
    };
    for entry in table.chunks_exact(64) {
        let raw = entry.get(..56).unwrap_or_default();
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let member = String::from_utf8_lossy(raw.get(..end).unwrap_or_default()).into_owned();
        let (Some(pos), Some(size)) = (u32_at(entry, 56), u32_at(entry, 60)) else {
            continue;
        };
        if !useful(&member) || size > *budget {
            continue;
        }
        let data = bytes
            .get(pos..pos.saturating_add(size))
            .ok_or_else(|| bad(&format!("{member}: data past the end")))?;
        *budget = budget.saturating_sub(size);
        out.files.push(File {
            name: format!("{name}/{member}"),
            bytes: data.to_vec(),
        });
    }
    Ok(out)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    clippy::as_conversions
)]
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A stored (method 0) zip with the members `files`.
    pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in files {
            let local = out.len() as u32;
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method, time, date
            out.extend_from_slice(&0u32.to_le_bytes()); // crc (not checked)
            out.extend_from_slice(&(data.len() as u32).to_le_bytes()); // compressed size
            out.extend_from_slice(&(data.len() as u32).to_le_bytes()); // size
            out.extend_from_slice(&(name.len() as u16).to_le_bytes()); // name length
            out.extend_from_slice(&0u16.to_le_bytes()); // extra length
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(data);
            central.extend_from_slice(b"PK\x01\x02");
            central.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // versions, flags, method, time, date
            central.extend_from_slice(&0u32.to_le_bytes()); // crc
            central.extend_from_slice(&(data.len() as u32).to_le_bytes()); // compressed size
            central.extend_from_slice(&(data.len() as u32).to_le_bytes()); // size
            central.extend_from_slice(&(name.len() as u16).to_le_bytes()); // name length
            central.extend_from_slice(&[0; 12]); // extra, comment, disk, attributes
            central.extend_from_slice(&local.to_le_bytes()); // local header offset
            central.extend_from_slice(name.as_bytes());
        }
        let cd = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(b"PK\x05\x06");
        out.extend_from_slice(&[0; 4]); // disk numbers
        out.extend_from_slice(&(files.len() as u16).to_le_bytes()); // entries here
        out.extend_from_slice(&(files.len() as u16).to_le_bytes()); // entries
        out.extend_from_slice(&(central.len() as u32).to_le_bytes()); // directory size
        out.extend_from_slice(&cd.to_le_bytes()); // directory offset
        out.extend_from_slice(&0u16.to_le_bytes()); // comment length
        out
    }

    #[test]
    fn zip_members_come_out_and_others_are_skipped() {
        let z = zip(&[("models/a.md3", b"IDP3"), ("readme.txt", b"hi")]);
        let mut budget = MAX_EXTRACTED;
        let got = unzip("x.pk3", &z, &mut budget).unwrap();
        assert_eq!(got.members, 2);
        assert_eq!(got.files.len(), 1);
        assert_eq!(got.files[0].name, "x.pk3/models/a.md3");
        assert_eq!(got.files[0].bytes, b"IDP3");
        assert!(unzip("y.pk3", b"PK\x03\x04 cut", &mut budget).is_err());
    }

    #[test]
    fn pak_members_come_out() {
        let mut p = b"PACK".to_vec();
        p.extend_from_slice(&16u32.to_le_bytes()); // directory offset
        p.extend_from_slice(&64u32.to_le_bytes()); // directory length
        p.extend_from_slice(b"IDP2"); // the member's data at 12
        let mut name = [0u8; 56];
        name[..13].copy_from_slice(b"models/a.md2\0");
        p.extend_from_slice(&name);
        p.extend_from_slice(&12u32.to_le_bytes()); // file position
        p.extend_from_slice(&4u32.to_le_bytes()); // file length
        let mut budget = MAX_EXTRACTED;
        let got = unpak("pak0.pak", &p, &mut budget).unwrap();
        assert_eq!(got.files[0].name, "pak0.pak/models/a.md2");
        assert_eq!(got.files[0].bytes, b"IDP2");
        assert!(unpak("pak1.pak", b"PACK\x10", &mut budget).is_err());
    }
}
