//! Quake and Quake II `.pak` archives (docs/game-data.md §1.1), read safely (§1.5).
//!
//! Layout: a 12-byte header (`PACK`, `dirofs`, `dirlen`) and a directory of 64-byte entries
//! (`char name[56]`, `i32 filepos`, `i32 filelen`). The engines check only the magic and the
//! count; this reader also refuses a directory outside the file, a length that is not a
//! whole number of entries, and names without a NUL in their 56 bytes (the engines' `strcpy`
//! would run on into the next fields). An entry whose data lies outside the file, or whose
//! name is unsafe ([`crate::path::unsafe_reason`]), is kept out of the index and reported by
//! [`Pak::problems`]; reading it gives that one-line refusal. Inside one pak the **first**
//! entry of a name wins, as in `COM_FindFile` / `FS_FOpenFile`.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Mutex;

use crate::listing::{Listing, Named, Wins, in_memory};
use crate::profile::{Limits, Profile, ReadSeek};

/// Quake's `MAX_FILES_IN_PACK` (WinQuake common.c).
pub const MAX_FILES_QUAKE: u64 = 2048;
/// Quake II's `MAX_FILES_IN_PACK` (qcommon/files.c).
pub const MAX_FILES_QUAKE2: u64 = 4096;

/// Size of the header (`dpackheader_t`).
const HEADER: u64 = 12;
/// Size of one directory entry (`dpackfile_t`).
const ENTRY: u64 = 64;
/// Bytes of the name field.
const NAME: usize = 56;

/// One accepted directory entry.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    name: String,
    pos: u64,
    len: u64,
}

impl Named for Entry {
    fn name(&self) -> &str {
        &self.name
    }
    fn is_file(&self) -> bool {
        true
    }
}

/// An open `.pak`: its directory, validated, and the reader it was opened from.
pub struct Pak {
    /// The directory; the first entry of a name wins.
    /// The entries (its stored names read by `Archive::stored_name`).
    pub(crate) dir: Listing<Entry>,
    limits: Limits,
    reader: Mutex<Box<dyn ReadSeek>>,
}

impl core::fmt::Debug for Pak {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.dir.debug("Pak", f)
    }
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    let mut w = [0u8; 4];
    if let Some(s) = b.get(at..at.saturating_add(4)) {
        w.copy_from_slice(s);
    }
    i32::from_le_bytes(w)
}

impl Pak {
    /// Opens the pak read by `reader`, named `label` in messages (usually its file name).
    /// The count limit is Quake's 2048 under [`Profile::Quake`], else Quake II's 4096.
    ///
    /// # Errors
    /// One line naming the pak and the offset: a short or wrong header, a directory outside
    /// the file or not a multiple of 64 bytes, too many entries, a name without a NUL.
    ///
    /// ```
    /// use idmodel_assets::{pak::Pak, Limits, Profile};
    /// let mut pak = b"PACK".to_vec();
    /// pak.extend_from_slice(&16i32.to_le_bytes()); // dirofs
    /// pak.extend_from_slice(&64i32.to_le_bytes()); // dirlen: one entry
    /// pak.extend_from_slice(b"hi!\n"); // the data, at 12
    /// let mut name = [0u8; 56];
    /// name[..8].copy_from_slice(b"a/b.txt\0");
    /// pak.extend_from_slice(&name);
    /// pak.extend_from_slice(&12i32.to_le_bytes()); // filepos
    /// pak.extend_from_slice(&4i32.to_le_bytes()); // filelen
    /// let pak = Pak::from_bytes("t.pak", pak, Profile::Quake, Limits::default()).unwrap();
    /// assert_eq!(pak.read("a/b.txt").unwrap().as_deref(), Some(&b"hi!\n"[..]));
    /// ```
    pub fn new(
        label: &str,
        mut reader: Box<dyn ReadSeek>,
        profile: Profile,
        limits: Limits,
    ) -> Result<Pak, String> {
        let io = |e: std::io::Error| format!("{label}: {e}");
        let file_len = reader.seek(SeekFrom::End(0)).map_err(io)?;
        if file_len < HEADER {
            return Err(format!(
                "{label}: not a pak: {file_len} bytes, shorter than the 12-byte header"
            ));
        }
        reader.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut header = [0u8; 12];
        reader.read_exact(&mut header).map_err(io)?;
        if header.get(..4) != Some(&b"PACK"[..]) {
            return Err(format!(
                "{label}: not a pak: magic {:?} at offset 0, expected \"PACK\"",
                String::from_utf8_lossy(header.get(..4).unwrap_or_default())
            ));
        }
        let dirofs = le_i32(&header, 4);
        let dirlen = le_i32(&header, 8);
        let dirofs = u64::try_from(dirofs)
            .ok()
            .filter(|&o| o >= HEADER)
            .ok_or_else(|| {
                format!("{label}: directory offset {dirofs} (offset 4) is inside the header")
            })?;
        let dirlen = u64::try_from(dirlen)
            .map_err(|_| format!("{label}: negative directory length {dirlen} (offset 8)"))?;
        if dirlen % ENTRY != 0 {
            return Err(format!(
                "{label}: directory length {dirlen} (offset 8) is not a multiple of 64"
            ));
        }
        let count = dirlen / ENTRY;
        let max = if profile == Profile::Quake {
            MAX_FILES_QUAKE
        } else {
            MAX_FILES_QUAKE2
        };
        if count > max {
            return Err(format!(
                "{label}: {count} entries (offset 8), more than the engine's {max}"
            ));
        }
        match dirofs.checked_add(dirlen) {
            Some(end) if end <= file_len => {}
            _ => {
                return Err(format!(
                    "{label}: directory at offset {dirofs} ({dirlen} bytes) runs past the end of the file ({file_len} bytes)"
                ));
            }
        }
        reader.seek(SeekFrom::Start(dirofs)).map_err(io)?;
        // Bounded by the file's real length (checked above) and by `max` entries.
        let mut dir = Vec::new();
        reader
            .by_ref()
            .take(dirlen)
            .read_to_end(&mut dir)
            .map_err(io)?;
        let mut pak = Pak {
            dir: Listing::new(label, profile, Wins::First),
            limits,
            reader: Mutex::new(reader),
        };
        for (i, raw) in dir.chunks_exact(64).enumerate() {
            let at =
                dirofs.saturating_add(u64::try_from(i).unwrap_or(u64::MAX).saturating_mul(ENTRY));
            let name_field = raw.get(..NAME).unwrap_or_default();
            let Some(nul) = name_field.iter().position(|&b| b == 0) else {
                return Err(format!(
                    "{label}: entry {i} at offset {at}: name has no NUL in its 56 bytes"
                ));
            };
            let name_bytes = name_field.get(..nul).unwrap_or_default();
            let filepos = le_i32(raw, 56);
            let filelen = le_i32(raw, 60);
            let shown = String::from_utf8_lossy(name_bytes).into_owned();
            let problem = match core::str::from_utf8(name_bytes) {
                Err(_) => Some(format!(
                    "{label}: entry {i} {shown:?} at offset {at}: name is not UTF-8"
                )),
                Ok(name) => crate::path::unsafe_reason(name).map(|why| {
                    format!("{label}: entry {i} {shown:?} at offset {at}: refused name: it {why}")
                }),
            };
            let bounds = match (u64::try_from(filepos), u64::try_from(filelen)) {
                (Ok(p), Ok(l)) => match p.checked_add(l) {
                    Some(end) if end <= file_len => Ok((p, l)),
                    _ => Err(format!(
                        "{label}: entry {i} {shown:?} at offset {at}: data at {p} ({l} bytes) runs past the end of the file ({file_len} bytes)"
                    )),
                },
                _ => Err(format!(
                    "{label}: entry {i} {shown:?} at offset {at}: negative position {filepos} or length {filelen}"
                )),
            };
            let result = match (problem, bounds) {
                (Some(p), _) | (None, Err(p)) => Err(p),
                (None, Ok((pos, len))) => Ok(Entry {
                    name: shown.clone(),
                    pos,
                    len,
                }),
            };
            pak.dir.add(&shown, result);
        }
        Ok(pak)
    }

    /// [`Pak::new`] over bytes in memory.
    ///
    /// # Errors
    /// As [`Pak::new`].
    pub fn from_bytes(
        label: &str,
        bytes: Vec<u8>,
        profile: Profile,
        limits: Limits,
    ) -> Result<Pak, String> {
        Pak::new(label, in_memory(bytes), profile, limits)
    }

    /// The name used in messages.
    pub fn label(&self) -> &str {
        &self.dir.label
    }

    /// The accepted entries' names, in directory order (duplicates included).
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.dir.entries.iter().map(|e| e.name.as_str())
    }

    /// One line per refused entry (unsafe name, data outside the file), in directory order.
    pub fn problems(&self) -> &[String] {
        &self.dir.problems
    }

    /// The bytes of the first entry named `name` (compared as the profile's engine does),
    /// `Ok(None)` if there is none.
    ///
    /// # Errors
    /// The entry's refusal, an entry larger than [`Limits::max_entry_size`], or an I/O error,
    /// in one line naming the pak and the entry.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(e) = self.dir.find(name)? else {
            return Ok(None);
        };
        let label = &self.dir.label;
        if e.len > self.limits.max_entry_size {
            return Err(format!(
                "{label}: entry {:?}: {} bytes, over the {}-byte entry limit",
                e.name, e.len, self.limits.max_entry_size
            ));
        }
        let io = |err: std::io::Error| format!("{label}: entry {:?}: {err}", e.name);
        let mut reader = self
            .reader
            .lock()
            .map_err(|_| format!("{label}: reader poisoned"))?;
        reader.seek(SeekFrom::Start(e.pos)).map_err(io)?;
        let mut out = Vec::new();
        reader
            .by_ref()
            .take(e.len)
            .read_to_end(&mut out)
            .map_err(io)?;
        if u64::try_from(out.len()).ok() != Some(e.len) {
            return Err(format!(
                "{label}: entry {:?}: the file ended after {} of {} bytes",
                e.name,
                out.len(),
                e.len
            ));
        }
        Ok(Some(out))
    }

    /// The names of the entries directly in `dir` ending with `ext`, each once (first
    /// entry wins), in directory order.
    pub fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        self.dir.list(dir, ext)
    }
}

/// Writes a `.pak` holding `files` (name, bytes) in that order: the header, the data, then
/// the directory. For tests and tools that make fixtures; `None` if a name does not fit the
/// 56-byte field with its NUL, or the pak would pass 2 GiB.
///
/// ```
/// use idmodel_assets::{pak::{write, Pak}, Limits, Profile};
/// let bytes = write(&[("progs/a.mdl", b"IDPO")]).unwrap();
/// let pak = Pak::from_bytes("a.pak", bytes, Profile::Quake, Limits::default()).unwrap();
/// assert_eq!(pak.names().collect::<Vec<_>>(), ["progs/a.mdl"]);
/// ```
pub fn write(files: &[(&str, &[u8])]) -> Option<Vec<u8>> {
    let mut data = Vec::new();
    let mut dir = Vec::new();
    for (name, bytes) in files {
        if name.len() >= NAME {
            return None;
        }
        let pos = i32::try_from(data.len().checked_add(12)?).ok()?;
        let len = i32::try_from(bytes.len()).ok()?;
        data.extend_from_slice(bytes);
        let mut field = [0u8; NAME];
        field
            .get_mut(..name.len())?
            .copy_from_slice(name.as_bytes());
        dir.extend_from_slice(&field);
        dir.extend_from_slice(&pos.to_le_bytes());
        dir.extend_from_slice(&len.to_le_bytes());
    }
    let dirofs = i32::try_from(data.len().checked_add(12)?).ok()?;
    let dirlen = i32::try_from(dir.len()).ok()?;
    let mut out = b"PACK".to_vec();
    out.extend_from_slice(&dirofs.to_le_bytes());
    out.extend_from_slice(&dirlen.to_le_bytes());
    out.extend_from_slice(&data);
    out.extend_from_slice(&dir);
    Some(out)
}
