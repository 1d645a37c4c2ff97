//! `.pk3` / `.pk4` fixtures written with the `zip` crate and patched field by field: one test
//! per refusal, the engines' duplicate and case rules.
// Test helpers may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use std::io::Write;

use idmodel_assets::pk3::Pk3;
use idmodel_assets::{Limits, Profile};
use idmodel_test_support::patch;
use zip::write::SimpleFileOptions;

/// A zip of `files`, deflated unless `stored`.
fn zip_of(files: &[(&str, &[u8])], stored: bool) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if stored {
        zip::CompressionMethod::Stored
    } else {
        zip::CompressionMethod::Deflated
    };
    let opts = SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in files {
        if name.ends_with('/') {
            w.add_directory(*name, opts).unwrap();
        } else {
            w.start_file(*name, opts).unwrap();
            w.write_all(bytes).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

fn find_all(hay: &[u8], sig: &[u8]) -> Vec<usize> {
    (0..hay.len().saturating_sub(sig.len() - 1))
        .filter(|&i| &hay[i..i + sig.len()] == sig)
        .collect()
}

/// Offsets of the central directory headers, the local headers and the end record.
fn cd(b: &[u8]) -> Vec<usize> {
    find_all(b, b"PK\x01\x02")
}
fn local(b: &[u8]) -> Vec<usize> {
    find_all(b, b"PK\x03\x04")
}
fn eocd(b: &[u8]) -> usize {
    *find_all(b, b"PK\x05\x06").last().unwrap()
}

fn open(b: Vec<u8>, p: Profile) -> Result<Pk3, String> {
    Pk3::from_bytes("t.pk3", b, p, Limits::default())
}

fn hello() -> Vec<u8> {
    zip_of(&[("models/a.md3", b"hello hello hello hello")], false)
}

#[test]
fn reads_deflated_and_stored() {
    for stored in [false, true] {
        let z = open(
            zip_of(&[("dir/", b""), ("Models/A.md3", b"abc abc abc")], stored),
            Profile::Ioq3,
        )
        .unwrap();
        assert_eq!(z.names().collect::<Vec<_>>(), ["Models/A.md3"]);
        assert_eq!(z.read("models/a.MD3").unwrap().unwrap(), b"abc abc abc");
        assert_eq!(z.read("\\models\\a.md3").unwrap().unwrap(), b"abc abc abc");
        assert_eq!(z.read("dir/").unwrap(), None);
        assert!(z.problems().is_empty());
    }
}

#[test]
fn no_end_record() {
    let mut b = hello();
    let e = eocd(&b);
    b[e] = b'X';
    let n = b.len();
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!("t.pk3: not a zip: no end of central directory record in the last {n} bytes")
    );
}

#[test]
fn several_disks() {
    let mut b = hello();
    let e = eocd(&b);
    patch(&mut b, e + 4, 1u16);
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!("t.pk3: end record at offset {e}: the archive spans several disks (1, 0)")
    );
}

#[test]
fn entry_counts_differ() {
    let mut b = hello();
    let e = eocd(&b);
    patch(&mut b, e + 8, 2u16);
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!(
            "t.pk3: end record at offset {e}: entry counts differ (2 on this disk, 1 in total)"
        )
    );
}

#[test]
fn zip64_marker() {
    let mut b = hello();
    let e = eocd(&b);
    patch(&mut b, e + 16, 0xFFFF_FFFFu32);
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!("t.pk3: end record at offset {e}: ZIP64 archives are not supported")
    );
}

#[test]
fn central_directory_after_end_record() {
    let mut b = hello();
    let e = eocd(&b);
    let size = u32::from_le_bytes(b[e + 12..e + 16].try_into().unwrap());
    patch(&mut b, e + 12, size + 1000);
    let off = u32::from_le_bytes(b[e + 16..e + 20].try_into().unwrap());
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!(
            "t.pk3: central directory at offset {off} ({} bytes) ends after the end record at offset {e}",
            size + 1000
        )
    );
}

#[test]
fn central_header_bad_signature() {
    let mut b = hello();
    let c = cd(&b)[0];
    b[c + 3] = 9;
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!("t.pk3: central directory entry 0 at offset {c}: bad signature")
    );
}

#[test]
fn central_header_past_directory() {
    let mut b = hello();
    let e = eocd(&b);
    patch(&mut b, e + 8, 2u16);
    patch(&mut b, e + 10, 2u16);
    let c = cd(&b)[0];
    let next = e; // the second header would start where the end record is
    let _ = c;
    assert_eq!(
        open(b, Profile::Ioq3).unwrap_err(),
        format!("t.pk3: central directory entry 1 at offset {next} runs past the directory")
    );
}

/// Opens, then expects exactly one refused entry with `msg`, and the read to give it.
fn entry_refused(b: Vec<u8>, p: Profile, name: &str, msg: &str) {
    let z = open(b, p).unwrap();
    assert_eq!(z.problems(), [msg.to_string()]);
    assert_eq!(z.read(name).unwrap_err(), msg);
    assert_eq!(z.names().count(), 0);
}

#[test]
fn encrypted_entry() {
    let mut b = hello();
    let c = cd(&b)[0];
    let l = local(&b)[0];
    b[c + 8] |= 1;
    b[l + 6] |= 1;
    entry_refused(
        b,
        Profile::Ioq3,
        "models/a.md3",
        &format!(
            "t.pk3: entry \"models/a.md3\" (central directory offset {c}): encrypted entries are not supported"
        ),
    );
}

#[test]
fn unsupported_method() {
    let mut b = hello();
    let c = cd(&b)[0];
    let l = local(&b)[0];
    patch(&mut b, c + 10, 12u16); // bzip2
    patch(&mut b, l + 8, 12u16);
    entry_refused(
        b,
        Profile::Ioq3,
        "models/a.md3",
        &format!(
            "t.pk3: entry \"models/a.md3\" (central directory offset {c}): compression method 12 is not stored (0) or deflate (8)"
        ),
    );
}

#[test]
fn stored_sizes_differ() {
    let mut b = zip_of(&[("a.txt", b"abcd")], true);
    let c = cd(&b)[0];
    patch(&mut b, c + 24, 9u32);
    entry_refused(
        b,
        Profile::Ioq3,
        "a.txt",
        &format!(
            "t.pk3: entry \"a.txt\" (central directory offset {c}): stored, but compressed size 4 differs from size 9"
        ),
    );
}

#[test]
fn name_longer_than_the_engine_buffer() {
    let long = format!("{}.txt", "n".repeat(252)); // 256 bytes
    let b = zip_of(&[(&long, b"x")], false);
    let c = cd(&b)[0];
    entry_refused(
        b.clone(),
        Profile::Ioq3,
        &long,
        &format!(
            "t.pk3: entry {long:?} (central directory offset {c}): name of 256 bytes, longer than the engine's 255"
        ),
    );
    // Doom 3's buffer is 2048.
    let z = open(b, Profile::Doom3).unwrap();
    assert_eq!(z.read(&long).unwrap().unwrap(), b"x");
}

#[test]
fn name_with_nul() {
    let mut b = zip_of(&[("ab.txt", b"x")], false);
    let c = cd(&b)[0];
    b[c + 46 + 1] = 0;
    let z = open(b, Profile::Ioq3).unwrap();
    assert_eq!(
        z.problems(),
        [format!(
            "t.pk3: entry \"a\\0.txt\" (central directory offset {c}): name has a NUL byte"
        )]
    );
}

#[test]
fn names_escaping_the_root() {
    for (name, why) in [
        ("../evil.txt", "has a '..' component"),
        ("a/../../evil.txt", "has a '..' component"),
        ("a\\..\\..\\evil.txt", "has a '..' component"),
        ("/etc/evil.txt", "is absolute"),
        ("C:/evil.txt", "has a ':' (a drive or stream name)"),
    ] {
        let mut b = zip_of(&[(&"x".repeat(name.len()), b"x")], false);
        // The writer may clean names: put the hostile one in both headers by hand.
        let c = cd(&b)[0];
        let l = local(&b)[0];
        b[c + 46..c + 46 + name.len()].copy_from_slice(name.as_bytes());
        b[l + 30..l + 30 + name.len()].copy_from_slice(name.as_bytes());
        let z = open(b, Profile::Ioq3).unwrap();
        assert_eq!(
            z.problems(),
            [format!(
                "t.pk3: entry {name:?} (central directory offset {c}): refused name: it {why}"
            )],
            "{name}"
        );
        assert_eq!(z.names().count(), 0);
        assert!(z.read(name).is_err(), "{name}");
    }
}

#[test]
fn data_past_the_central_directory() {
    let mut b = hello();
    let c = cd(&b)[0];
    patch(&mut b, c + 42, c as u32); // local header offset: at the central directory
    entry_refused(
        b,
        Profile::Ioq3,
        "models/a.md3",
        &format!(
            "t.pk3: entry \"models/a.md3\" (central directory offset {c}): data at offset {c} ({} bytes) runs past the central directory at {c}",
            u32::from_le_bytes(hello()[c + 20..c + 24].try_into().unwrap())
        ),
    );
}

#[test]
fn declared_size_over_the_limit() {
    let b = hello();
    let c = cd(&b)[0];
    let z = Pk3::from_bytes("t.pk3", b, Profile::Ioq3, Limits { max_entry_size: 10 }).unwrap();
    let msg = format!(
        "t.pk3: entry \"models/a.md3\" (central directory offset {c}): declared size 23 is over the 10-byte entry limit"
    );
    assert_eq!(z.problems(), std::slice::from_ref(&msg));
    assert_eq!(z.read("models/a.md3").unwrap_err(), msg);
}

#[test]
fn inflates_past_the_declared_size() {
    // A small bomb: 1 MiB of zeros that declares 100 bytes.
    let zeros = vec![0u8; 1 << 20];
    let mut b = zip_of(&[("bomb.bin", &zeros)], false);
    let c = cd(&b)[0];
    let l = local(&b)[0];
    patch(&mut b, c + 24, 100u32);
    patch(&mut b, l + 22, 100u32);
    let z = open(b, Profile::Ioq3).unwrap();
    let err = z.read("bomb.bin").unwrap_err();
    assert_eq!(
        err,
        "t.pk3: entry \"bomb.bin\": inflates past its declared size of 100 bytes"
    );
}

#[test]
fn ends_before_the_declared_size() {
    let mut b = hello();
    let c = cd(&b)[0];
    let l = local(&b)[0];
    patch(&mut b, c + 24, 50u32);
    patch(&mut b, l + 22, 50u32);
    let z = open(b, Profile::Ioq3).unwrap();
    let err = z.read("models/a.md3").unwrap_err();
    assert!(
        err.starts_with("t.pk3: entry \"models/a.md3\": "),
        "one line naming the entry: {err}"
    );
    assert!(!err.contains('\n'));
}

#[test]
fn crc_mismatch() {
    let mut b = hello();
    let c = cd(&b)[0];
    let l = local(&b)[0];
    b[c + 16] ^= 0xFF;
    b[l + 14] ^= 0xFF;
    let z = open(b, Profile::Ioq3).unwrap();
    let err = z.read("models/a.md3").unwrap_err();
    assert!(
        err.starts_with("t.pk3: entry \"models/a.md3\": ")
            && err.to_lowercase().contains("checksum"),
        "{err}"
    );
}

#[test]
fn later_duplicate_wins() {
    // Same name under the engine's folding: the later central-directory entry wins.
    let z = open(
        zip_of(&[("a.txt", b"first"), ("A.TXT", b"second")], false),
        Profile::Quake3,
    )
    .unwrap();
    assert_eq!(z.read("a.txt").unwrap().unwrap(), b"second");
    assert_eq!(z.list("", ".txt"), ["a.txt"]);
    // Byte-identical duplicates (the zip crate keeps one of them in its own map).
    let mut b = zip_of(&[("a.txt", b"first"), ("b.txt", b"secnd")], false);
    let c = cd(&b)[1];
    let l = local(&b)[1];
    b[c + 46] = b'a';
    b[l + 30] = b'a';
    let z = open(b, Profile::Ioq3).unwrap();
    assert_eq!(z.read("a.txt").unwrap().unwrap(), b"secnd");
}

#[test]
fn separators_fold_as_the_engine_does() {
    let z = open(
        zip_of(&[("Scripts\\A.shader", b"s")], false),
        Profile::Quake3,
    )
    .unwrap();
    assert_eq!(z.read("scripts/a.shader").unwrap().unwrap(), b"s");
    assert_eq!(z.list("scripts", ".shader"), ["Scripts\\A.shader"]);
}

#[test]
fn bytes_before_the_archive() {
    let mut b = b"MZ some stub before the zip".to_vec();
    b.extend(hello());
    let z = open(b, Profile::Ioq3).unwrap();
    assert_eq!(
        z.read("models/a.md3").unwrap().unwrap(),
        b"hello hello hello hello"
    );
}

#[test]
fn corpus_kyonshi_pk3() {
    let Some(dir) = idmodel_test_support::corpus_dir("corpus_kyonshi_pk3") else {
        return;
    };
    let path = dir.join("assets/openarena/kyonshi.pk3");
    let bytes = std::fs::read(&path).unwrap();
    let z = open(bytes, Profile::Ioq3).unwrap();
    assert!(z.problems().is_empty(), "{:?}", z.problems());
    let md3 = z.read("models/players/kyonshi/upper.md3").unwrap().unwrap();
    assert_eq!(&md3[..4], b"IDP3");
    assert_eq!(
        z.list("scripts", ".shader"),
        ["scripts/player_kyonshi.shader"]
    );
    for name in z.names() {
        assert!(z.read(name).unwrap().is_some(), "{name}");
    }
}
