//! Reading input files safely: regular files only (a FIFO or a device named like a model
//! is refused without being opened, so nothing blocks), a size cap before reading, and
//! every file read noted for the conversion's [`Report::inputs`](crate::Report), so a
//! tool can refuse to write over an input.

use std::cell::RefCell;
use std::fs::{File, FileType, OpenOptions};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::failure::Failure;

thread_local! {
    /// The files read by the conversion running on this thread (`None`: not collecting).
    static READ: RefCell<Option<Vec<PathBuf>>> = const { RefCell::new(None) };
}

/// Runs `f`, collecting the paths of the files it reads on this thread (the collection
/// of an outer call, if any, goes on after it).
pub(crate) fn collecting<T>(f: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
    let outer = READ.with(|r| r.borrow_mut().replace(Vec::new()));
    let value = f();
    let mine = READ.with(|r| {
        let mut r = r.borrow_mut();
        let mine = r.take().unwrap_or_default();
        if let Some(mut o) = outer {
            o.extend(mine.iter().cloned());
            *r = Some(o);
        }
        mine
    });
    (value, mine)
}

/// Notes `path` as read by the running conversion.
pub(crate) fn note(path: &Path) {
    READ.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut()
            && !list.iter().any(|p| p == path)
        {
            list.push(path.to_owned());
        }
    });
}

/// `"not a regular file (a FIFO)"` and the like for anything but a regular file.
pub fn not_regular(file_type: FileType) -> Option<String> {
    if file_type.is_file() {
        return None;
    }
    let what = if file_type.is_dir() {
        "a directory"
    } else {
        special_kind(file_type)
    };
    Some(format!("not a regular file ({what})"))
}

#[cfg(unix)]
fn special_kind(file_type: FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_file_type: FileType) -> &'static str {
    "a special file"
}

/// Opens `path` for reading without blocking on a FIFO.
fn open_for_reading(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn too_large(len: u64, max: u64) -> Failure {
    Failure::new(format!(
        "{len} bytes is larger than any model this tool reads ({max} max)"
    ))
}

/// Reads the regular file `path` (at most `max` bytes) and notes it as an input of the
/// conversion. Anything but a regular file is a failure (`not a regular file (a
/// FIFO)`), without blocking. The failure does not name the file; the caller does.
///
/// # Errors
/// The file cannot be read, is not a regular file, or is larger than `max`.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, Failure> {
    let cannot = |e: std::io::Error| Failure::new(format!("cannot read: {e}"));
    // By path first: a FIFO or device is refused without being opened at all.
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if let Some(why) = not_regular(meta.file_type()) {
        return Err(Failure::new(why));
    }
    let file = open_for_reading(path).map_err(cannot)?;
    // Again on the handle: the path may have been replaced in between.
    let meta = file.metadata().map_err(cannot)?;
    if let Some(why) = not_regular(meta.file_type()) {
        return Err(Failure::new(why));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if len > max {
        return Err(too_large(len, max));
    }
    note(path);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_collected_per_call_and_nest() {
        let dir = idmodel_test_support::Scratch::new("read");
        let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
        std::fs::write(&a, b"aa").unwrap();
        std::fs::write(&b, b"bbb").unwrap();
        let ((inner, outer_value), all) = collecting(|| {
            read_regular(&a, 10).unwrap();
            let (_, inner) = collecting(|| read_regular(&b, 10).unwrap());
            (inner, 1)
        });
        assert_eq!(outer_value, 1);
        assert_eq!(inner, std::slice::from_ref(&b));
        assert_eq!(all, [a.clone(), b.clone()]);
        assert!(
            read_regular(&b, 2)
                .unwrap_err()
                .to_string()
                .contains("larger")
        );
        assert!(
            read_regular(&dir, 10)
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn reading_refuses_what_is_not_a_regular_file() {
        let dir = idmodel_test_support::Scratch::new("read-dev");
        let e = read_regular(&dir, 10).unwrap_err().to_string();
        assert_eq!(e, "not a regular file (a directory)");
        let e = read_regular(Path::new("/dev/null"), 10)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "not a regular file (a device)");
        let f = dir.join("big");
        std::fs::write(&f, [0u8; 11]).unwrap();
        let e = read_regular(&f, 10).unwrap_err().to_string();
        assert!(e.starts_with("11 bytes is larger"), "{e}");
        assert_eq!(read_regular(&f, 11).unwrap().len(), 11);
    }
}
