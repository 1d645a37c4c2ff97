//! The input and output side of a conversion's floor, in a fresh process
//! (`benches/compare/convert`).
//!
//! ```text
//! floor_io INPUT OUTPUT N    read INPUT whole, then replace OUTPUT with N bytes
//! floor_io                   nothing (this program's own process start)
//! ```
//!
//! What any converter of INPUT into an N-byte OUTPUT pays besides its own work: the
//! input read whole into memory a new process has never touched (its page faults
//! included, which a loop inside one process does not see after the first read: the
//! allocator hands the same pages back), N bytes of output produced in fresh memory, and
//! the output replaced as `idmodel convert` replaces a file (a temporary file beside
//! it, write, `fsync` when it replaces one, rename over it). The script runs it with and
//! without arguments and keeps the difference, so that the floor is idmodel's own
//! process start plus this.
// A measuring program: it may unwrap and index (a panic aborts a measurement).
#![allow(clippy::restriction, missing_docs)]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

fn main() {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [input, output, n] = &args[..] else {
        return;
    };
    let bytes = std::fs::read(input).unwrap();
    let n: usize = n.to_str().unwrap().parse().unwrap();
    // N bytes of output in fresh memory, each written once, at copy speed (a converter
    // produces them; the input's bytes over and over stand for them).
    let mut data = Vec::with_capacity(n);
    while data.len() < n {
        let k = (n - data.len()).min(bytes.len().max(1));
        match bytes.get(..k) {
            Some(chunk) if !chunk.is_empty() => data.extend_from_slice(chunk),
            _ => data.resize(n, 0),
        }
    }
    let output = PathBuf::from(output);
    let existing = std::fs::symlink_metadata(&output).ok();
    let temp = output.with_file_name(format!(
        ".{}.floor-tmp-{}",
        output.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .unwrap();
    file.write_all(&data).unwrap();
    if existing.is_some() {
        file.sync_all().unwrap();
    }
    drop(file);
    std::fs::rename(&temp, &output).unwrap();
}
