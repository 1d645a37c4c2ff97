//! Quake III `.pk3` and Doom 3 `.pk4` archives (zip; docs/game-data.md §1.2, §1.3), read
//! safely (§1.5).
//!
//! The central directory is walked here, with every check of §1.5, and the name index is
//! built with the engines' rule: names folded as the profile compares them, and a **later**
//! duplicate in central-directory order wins (`FS_LoadZipFile` pushes each entry on the head
//! of its hash chain). The `zip` crate then opens each entry (local header, deflate, CRC-32);
//! its own name map is not trusted: the entry it hands back is checked to be the one this
//! index chose (same central header offset).
//!
//! Refused for the whole archive: no end record in the last 65535 + 22 bytes, several disks,
//! differing entry counts, ZIP64 markers, a central directory ending after the end record or
//! a header running past it or with a wrong signature. Refused per entry (kept out of the
//! index, listed by [`Pk3::problems`], and reading the name gives the refusal): encryption
//! (flag bit 0), a method other than stored (0) or deflate (8), stored with differing sizes,
//! a name longer than the engine's buffer (255 bytes for Quake III, 2047 for Doom 3) or with
//! a NUL or unsafe ([`crate::path::unsafe_reason`]), data past the central directory, a
//! declared size over [`Limits::max_entry_size`]. While reading: a stream that inflates past
//! its declared size (read with `take(declared + 1)`), that ends early, or whose CRC-32 is
//! wrong. Nothing is ever written to disk.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Mutex;

use crate::listing::{Listing, Named, Wins, in_memory};
use crate::profile::{Limits, Profile, ReadSeek};

/// How far back from the end the end record is searched: the longest comment plus the record.
const EOCD_WINDOW: u64 = 65535 + 22;
/// Quake III's `MAX_ZPATH` less the NUL.
pub const MAX_NAME_QUAKE3: usize = 255;
/// Doom 3's `MAX_ZIPPED_FILE_NAME` less the NUL.
pub const MAX_NAME_DOOM3: usize = 2047;

fn u16_at(b: &[u8], at: usize) -> u16 {
    let mut w = [0u8; 2];
    if let Some(s) = b.get(at..at.saturating_add(2)) {
        w.copy_from_slice(s);
    }
    u16::from_le_bytes(w)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(s) = b.get(at..at.saturating_add(4)) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w)
}

fn usize_of(v: impl Into<u64>) -> usize {
    usize::try_from(v.into()).unwrap_or(usize::MAX)
}

fn u64_of(v: usize) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// One accepted central-directory entry.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    name: String,
    /// Absolute offset of its central directory header.
    central: u64,
    size: u64,
    is_dir: bool,
}

impl Named for Entry {
    fn name(&self) -> &str {
        &self.name
    }
    fn is_file(&self) -> bool {
        !self.is_dir
    }
}

/// An open `.pk3` / `.pk4`.
pub struct Pk3 {
    /// The central directory; a later duplicate wins (engine rule).
    /// The entries (its stored names read by `Archive::stored_name`).
    pub(crate) dir: Listing<Entry>,
    zip: Mutex<zip::ZipArchive<Box<dyn ReadSeek>>>,
}

impl core::fmt::Debug for Pk3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.dir.debug("Pk3", f)
    }
}

impl Pk3 {
    /// Opens the zip read by `reader`, named `label` in messages.
    ///
    /// # Errors
    /// One line naming the archive and the offset, for the archive-wide refusals above, or
    /// the `zip` crate's refusal.
    pub fn new(
        label: &str,
        mut reader: Box<dyn ReadSeek>,
        profile: Profile,
        limits: Limits,
    ) -> Result<Pk3, String> {
        let io = |e: std::io::Error| format!("{label}: {e}");
        let file_len = reader.seek(SeekFrom::End(0)).map_err(io)?;
        let window = file_len.min(EOCD_WINDOW);
        let tail_start = file_len.saturating_sub(window);
        reader.seek(SeekFrom::Start(tail_start)).map_err(io)?;
        let mut tail = Vec::new();
        reader
            .by_ref()
            .take(window)
            .read_to_end(&mut tail)
            .map_err(io)?;
        let found = (0..tail.len().saturating_sub(21))
            .rev()
            .find(|&i| tail.get(i..i.saturating_add(4)) == Some(&b"PK\x05\x06"[..]));
        let Some(rel) = found else {
            return Err(format!(
                "{label}: not a zip: no end of central directory record in the last {window} bytes"
            ));
        };
        let eocd = tail.get(rel..).unwrap_or_default();
        let eocd_pos = tail_start.saturating_add(u64_of(rel));
        let disk = u16_at(eocd, 4);
        let cd_disk = u16_at(eocd, 6);
        let on_disk = u16_at(eocd, 8);
        let total = u16_at(eocd, 10);
        let cd_size = u32_at(eocd, 12);
        let cd_off = u32_at(eocd, 16);
        if disk != 0 || cd_disk != 0 {
            return Err(format!(
                "{label}: end record at offset {eocd_pos}: the archive spans several disks ({disk}, {cd_disk})"
            ));
        }
        if total == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_off == 0xFFFF_FFFF {
            return Err(format!(
                "{label}: end record at offset {eocd_pos}: ZIP64 archives are not supported"
            ));
        }
        if on_disk != total {
            return Err(format!(
                "{label}: end record at offset {eocd_pos}: entry counts differ ({on_disk} on this disk, {total} in total)"
            ));
        }
        let cd_end = u64::from(cd_off).saturating_add(u64::from(cd_size));
        // Bytes before the archive (minizip's `byte_before_the_zipfile`) shift every offset.
        let Some(shift) = eocd_pos.checked_sub(cd_end) else {
            return Err(format!(
                "{label}: central directory at offset {cd_off} ({cd_size} bytes) ends after the end record at offset {eocd_pos}"
            ));
        };
        let cd_start = u64::from(cd_off).saturating_add(shift);
        reader.seek(SeekFrom::Start(cd_start)).map_err(io)?;
        // Bounded by the file's real length: the directory lies before the end record.
        let mut cd = Vec::new();
        reader
            .by_ref()
            .take(u64::from(cd_size))
            .read_to_end(&mut cd)
            .map_err(io)?;
        let max_name = if profile == Profile::Doom3 {
            MAX_NAME_DOOM3
        } else {
            MAX_NAME_QUAKE3
        };
        let mut dir = Listing::new(label, profile, Wins::Last);
        let mut at = 0usize;
        for i in 0..total {
            let abs = cd_start.saturating_add(u64_of(at));
            let h = cd.get(at..).unwrap_or_default();
            if h.len() < 46 {
                return Err(format!(
                    "{label}: central directory entry {i} at offset {abs} runs past the directory"
                ));
            }
            if h.get(..4) != Some(&b"PK\x01\x02"[..]) {
                return Err(format!(
                    "{label}: central directory entry {i} at offset {abs}: bad signature"
                ));
            }
            let flags = u16_at(h, 8);
            let method = u16_at(h, 10);
            let csize = u32_at(h, 20);
            let usize_ = u32_at(h, 24);
            let name_len = usize::from(u16_at(h, 28));
            let extra_len = usize::from(u16_at(h, 30));
            let comment_len = usize::from(u16_at(h, 32));
            let local = u32_at(h, 42);
            let rec = 46usize
                .saturating_add(name_len)
                .saturating_add(extra_len)
                .saturating_add(comment_len);
            let Some(name_bytes) = h.get(46..46usize.saturating_add(name_len)) else {
                return Err(format!(
                    "{label}: central directory entry {i} at offset {abs}: name runs past the directory"
                ));
            };
            if h.len() < rec {
                return Err(format!(
                    "{label}: central directory entry {i} at offset {abs} runs past the directory"
                ));
            }
            at = at.saturating_add(rec);
            let shown = String::from_utf8_lossy(name_bytes).into_owned();
            let what = format!("{label}: entry {shown:?} (central directory offset {abs})");
            let local_end = u64::from(local)
                .saturating_add(shift)
                .saturating_add(30)
                .saturating_add(u64_of(name_len))
                .saturating_add(u64::from(csize));
            let problem = if flags & 1 != 0 {
                Some(format!("{what}: encrypted entries are not supported"))
            } else if method != 0 && method != 8 {
                Some(format!(
                    "{what}: compression method {method} is not stored (0) or deflate (8)"
                ))
            } else if method == 0 && csize != usize_ {
                Some(format!(
                    "{what}: stored, but compressed size {csize} differs from size {usize_}"
                ))
            } else if name_len > max_name {
                Some(format!(
                    "{what}: name of {name_len} bytes, longer than the engine's {max_name}"
                ))
            } else if name_bytes.contains(&0) {
                Some(format!("{what}: name has a NUL byte"))
            } else if core::str::from_utf8(name_bytes).is_err() {
                Some(format!("{what}: name is not UTF-8"))
            } else if let Some(why) = crate::path::unsafe_reason(&shown) {
                Some(format!("{what}: refused name: it {why}"))
            } else if local_end > cd_start {
                Some(format!(
                    "{what}: data at offset {local} ({csize} bytes) runs past the central directory at {cd_start}"
                ))
            } else if u64::from(usize_) > limits.max_entry_size {
                Some(format!(
                    "{what}: declared size {usize_} is over the {}-byte entry limit",
                    limits.max_entry_size
                ))
            } else {
                None
            };
            let entry = match problem {
                None => Ok(Entry {
                    is_dir: shown.ends_with('/'),
                    name: shown.clone(),
                    central: abs,
                    size: u64::from(usize_),
                }),
                Some(msg) => Err(msg),
            };
            dir.add(&shown, entry);
        }
        reader.seek(SeekFrom::Start(0)).map_err(io)?;
        let zip = zip::ZipArchive::new(reader).map_err(|e| format!("{label}: zip: {e}"))?;
        Ok(Pk3 {
            dir,
            zip: Mutex::new(zip),
        })
    }

    /// [`Pk3::new`] over bytes in memory.
    ///
    /// # Errors
    /// As [`Pk3::new`].
    pub fn from_bytes(
        label: &str,
        bytes: Vec<u8>,
        profile: Profile,
        limits: Limits,
    ) -> Result<Pk3, String> {
        Pk3::new(label, in_memory(bytes), profile, limits)
    }

    /// The name used in messages.
    pub fn label(&self) -> &str {
        &self.dir.label
    }

    /// The accepted file entries' names (folders left out), in central-directory order
    /// (duplicates included).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.dir
            .entries
            .iter()
            .filter(|e| !e.is_dir)
            .map(|e| e.name.as_str())
    }

    /// One line per refused entry, in central-directory order.
    pub fn problems(&self) -> &[String] {
        &self.dir.problems
    }

    /// Whether the archive holds a file entry named `name` (the profile's comparison).
    pub fn contains(&self, name: &str) -> bool {
        matches!(self.dir.find(name), Ok(Some(_)))
    }

    /// The inflated bytes of the entry named `name`: of the last entry of that name in
    /// central-directory order, compared as the profile's engine does. `Ok(None)` if none.
    ///
    /// # Errors
    /// The entry's refusal, or a stream that inflates past its declared size, ends early or
    /// fails its CRC-32, in one line naming the archive and the entry.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(e) = self.dir.find(name)? else {
            return Ok(None);
        };
        let label = &self.dir.label;
        let what = || format!("{label}: entry {:?}", e.name);
        let mut zip = self
            .zip
            .lock()
            .map_err(|_| format!("{label}: reader poisoned"))?;
        // The zip crate's index for this exact name, checked to be the entry chosen here;
        // otherwise (its own duplicate or name decoding rule differs) found by position.
        let zi = match zip.index_for_name(&e.name) {
            Some(zi)
                if zip
                    .by_index_raw(zi)
                    .is_ok_and(|f| f.central_header_start() == e.central) =>
            {
                Some(zi)
            }
            _ => (0..zip.len()).find(|&zi| {
                zip.by_index_raw(zi)
                    .is_ok_and(|f| f.central_header_start() == e.central)
            }),
        };
        let Some(zi) = zi else {
            return Err(format!("{}: the zip reader does not hold it", what()));
        };
        let file = zip
            .by_index(zi)
            .map_err(|err| format!("{}: {err}", what()))?;
        // Never trust the declared size for the allocation beyond a small start.
        let mut out = Vec::with_capacity(usize_of(e.size.min(1 << 20)));
        file.take(e.size.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|err| format!("{}: {err}", what()))?;
        let got = u64_of(out.len());
        if got > e.size {
            return Err(format!(
                "{}: inflates past its declared size of {} bytes",
                what(),
                e.size
            ));
        }
        if got < e.size {
            return Err(format!(
                "{}: ends after {got} of its declared {} bytes",
                what(),
                e.size
            ));
        }
        Ok(Some(out))
    }

    /// The names of the file entries directly in `dir` ending with `ext`, each once, in
    /// central-directory order.
    pub fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        self.dir.list(dir, ext)
    }
}
