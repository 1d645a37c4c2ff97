//! `.pak` fixtures built field by field: one test per refusal, the engine's lookup rules.
// Test helpers may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_assets::pak::{Pak, write};
use idmodel_assets::{Limits, Profile};
use idmodel_test_support::{LeBuffer, patch};

/// A pak with one 4-byte file `a/b.txt` at 12 and the directory at 16.
fn one() -> LeBuffer {
    let mut b = LeBuffer::new();
    b.bytes(b"PACK") // id
        .i32(16) // dirofs
        .i32(64) // dirlen: one entry
        .bytes(b"data") // file data at 12
        .name("a/b.txt", 56) // name[56]
        .i32(12) // filepos
        .i32(4); // filelen
    b
}

fn open(bytes: Vec<u8>, p: Profile) -> Result<Pak, String> {
    Pak::from_bytes("t.pak", bytes, p, Limits::default())
}

fn refused(bytes: Vec<u8>) -> String {
    open(bytes, Profile::Quake2).unwrap_err()
}

#[test]
fn reads_the_fixture() {
    let pak = open(one().into_vec(), Profile::Quake).unwrap();
    assert_eq!(pak.names().collect::<Vec<_>>(), ["a/b.txt"]);
    assert_eq!(pak.read("a/b.txt").unwrap().unwrap(), b"data");
    assert_eq!(pak.read("a/c.txt").unwrap(), None);
    assert!(pak.problems().is_empty());
}

#[test]
fn short_header() {
    assert_eq!(
        refused(b"PACK\0\0".to_vec()),
        "t.pak: not a pak: 6 bytes, shorter than the 12-byte header"
    );
}

#[test]
fn bad_magic() {
    let mut b = one().into_vec();
    b[..4].copy_from_slice(b"KCAP");
    assert_eq!(
        refused(b),
        "t.pak: not a pak: magic \"KCAP\" at offset 0, expected \"PACK\""
    );
}

/// One i32 header field of the fixture set to a hostile value: `(offset, value, refusal)`,
/// each case named in a comment (and by its offset and value when it fails).
#[test]
fn hostile_directory_fields_are_refused() {
    for (at, value, why) in [
        // directory offset inside header
        (
            4,
            8,
            "t.pak: directory offset 8 (offset 4) is inside the header",
        ),
        // negative directory length
        (8, -64, "t.pak: negative directory length -64 (offset 8)"),
        // directory length not whole entries
        (
            8,
            63,
            "t.pak: directory length 63 (offset 8) is not a multiple of 64",
        ),
        // directory past end
        (
            8,
            128,
            "t.pak: directory at offset 16 (128 bytes) runs past the end of the file (80 bytes)",
        ),
    ] {
        let mut b = one().into_vec();
        patch(&mut b, at, value);
        assert_eq!(refused(b), why, "offset {at} = {value}");
    }
}

/// A pak of `n` empty entries `f0`, `f1`, ….
fn many(n: usize) -> Vec<u8> {
    let mut b = LeBuffer::new();
    b.bytes(b"PACK").i32(12).i32((n * 64) as i32);
    for i in 0..n {
        b.name(format!("f{i}"), 56).i32(12).i32(0);
    }
    b.into_vec()
}

#[test]
fn too_many_entries_for_quake() {
    assert!(open(many(2048), Profile::Quake).is_ok());
    assert_eq!(
        open(many(2049), Profile::Quake).unwrap_err(),
        "t.pak: 2049 entries (offset 8), more than the engine's 2048"
    );
    // Quake II's limit is 4096.
    assert!(open(many(2049), Profile::Quake2).is_ok());
    assert_eq!(
        open(many(4097), Profile::Quake2).unwrap_err(),
        "t.pak: 4097 entries (offset 8), more than the engine's 4096"
    );
}

#[test]
fn name_without_nul() {
    let mut b = one().into_vec();
    b[16..72].fill(b'x');
    assert_eq!(
        refused(b),
        "t.pak: entry 0 at offset 16: name has no NUL in its 56 bytes"
    );
}

#[test]
fn entry_data_past_end() {
    let mut b = one().into_vec();
    patch(&mut b, 76, 100i32); // filelen
    let pak = open(b, Profile::Quake2).unwrap();
    let msg = "t.pak: entry 0 \"a/b.txt\" at offset 16: data at 12 (100 bytes) runs past the end of the file (80 bytes)";
    assert_eq!(pak.problems(), [msg]);
    assert_eq!(pak.read("a/b.txt").unwrap_err(), msg);
    assert_eq!(pak.names().count(), 0);
}

#[test]
fn negative_entry_position() {
    let mut b = one().into_vec();
    patch(&mut b, 72, -1i32); // filepos
    let pak = open(b, Profile::Quake2).unwrap();
    assert_eq!(
        pak.read("a/b.txt").unwrap_err(),
        "t.pak: entry 0 \"a/b.txt\" at offset 16: negative position -1 or length 4"
    );
}

fn named(name: &str) -> Pak {
    let mut b = one();
    b.patch_bytes(16, &[0; 56]).patch_bytes(16, name.as_bytes());
    open(b.into_vec(), Profile::Quake2).unwrap()
}

#[test]
fn names_escaping_the_root() {
    for (name, why) in [
        ("../x", "has a '..' component"),
        ("a/../../x", "has a '..' component"),
        ("a\\..\\x", "has a '..' component"),
        ("/etc/x", "is absolute"),
        ("\\x", "is absolute"),
        ("c:/x", "has a ':' (a drive or stream name)"),
        ("a\tb", "has a control byte"),
    ] {
        let pak = named(name);
        let msg = format!("t.pak: entry 0 {name:?} at offset 16: refused name: it {why}");
        assert_eq!(pak.problems(), std::slice::from_ref(&msg), "{name}");
        assert_eq!(pak.names().count(), 0);
    }
}

#[test]
fn empty_name() {
    let pak = named("");
    assert_eq!(
        pak.problems(),
        ["t.pak: entry 0 \"\" at offset 16: refused name: it is empty"]
    );
}

#[test]
fn entry_over_the_size_limit() {
    let pak = Pak::from_bytes(
        "t.pak",
        one().into_vec(),
        Profile::Quake,
        Limits { max_entry_size: 3 },
    )
    .unwrap();
    assert_eq!(
        pak.read("a/b.txt").unwrap_err(),
        "t.pak: entry \"a/b.txt\": 4 bytes, over the 3-byte entry limit"
    );
}

#[test]
fn first_entry_wins() {
    let b = write(&[("a.txt", b"first"), ("a.txt", b"second")]).unwrap();
    let pak = open(b, Profile::Quake).unwrap();
    assert_eq!(pak.read("a.txt").unwrap().unwrap(), b"first");
    assert_eq!(pak.list("", ".txt"), ["a.txt"]);
}

#[test]
fn quake_is_case_sensitive_quake2_folds() {
    let b = write(&[("progs/Player.mdl", b"q")]).unwrap();
    let q1 = open(b.clone(), Profile::Quake).unwrap();
    assert_eq!(q1.read("progs/player.mdl").unwrap(), None);
    assert_eq!(q1.read("progs/Player.mdl").unwrap().unwrap(), b"q");
    let q2 = open(b, Profile::Quake2).unwrap();
    assert_eq!(q2.read("PROGS/PLAYER.MDL").unwrap().unwrap(), b"q");
    // Neither maps `\` to `/`.
    assert_eq!(q2.read("progs\\player.mdl").unwrap(), None);
}

#[test]
fn list_is_directory_order() {
    let b = write(&[
        ("scripts/z.shader", b"1"),
        ("scripts/a.shader", b"2"),
        ("scripts/sub/b.shader", b"3"),
        ("scripts/c.txt", b"4"),
    ])
    .unwrap();
    let pak = open(b, Profile::Quake2).unwrap();
    assert_eq!(
        pak.list("scripts", ".SHADER"),
        ["scripts/z.shader", "scripts/a.shader"]
    );
}

#[test]
fn writer_refuses_long_names() {
    assert!(write(&[(&"x".repeat(56), b"")]).is_none());
    assert!(write(&[(&"x".repeat(55), b"")]).is_some());
}
