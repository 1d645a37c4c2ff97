//! The C API's conversions are the library's: `idmodel_convert` and
//! `idmodel_convert_files` give the bytes `idmodel_convert::convert` and `convert_bytes`
//! give (and so the bytes `idmodel convert` writes, which its own tests check against the
//! library), for the samples and, with the corpus, a Quake III player folder.
//! Run with `cargo test -p idmodel-capi --features convert`.
#![cfg(feature = "convert")]
// Tests may index and unwrap: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

use std::ffi::CString;
use std::path::{Path, PathBuf};

use idmodel_capi::{
    IDMODEL_CONVERT_QUANTIZE, IDMODEL_E_CONVERT, IDMODEL_E_NULL, IDMODEL_OK, IdmodelError,
    idmodel_archives_close, idmodel_buffer_free, idmodel_convert, idmodel_convert_files,
    idmodel_convert_with,
};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

fn message(e: &IdmodelError) -> String {
    let bytes: Vec<u8> = e
        .message
        .iter()
        .map(|&c| u8::from_ne_bytes(c.to_ne_bytes()))
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// The bytes the library gave (released), or none when `code` is an error.
fn taken(code: i32, ptr: *mut u8, len: usize) -> Vec<u8> {
    if code != IDMODEL_OK {
        return Vec::new();
    }
    // SAFETY: the library gave `len` bytes at `ptr`.
    let v = unsafe { core::slice::from_raw_parts(ptr, len) }.to_vec();
    // SAFETY: given by the library, released once.
    unsafe { idmodel_buffer_free(ptr, len) };
    v
}

/// `idmodel_convert(input, output)`: the code, the bytes and the error.
fn through_c(input: &Path, output: &Path) -> (i32, Vec<u8>, IdmodelError) {
    let i = CString::new(input.to_str().unwrap()).unwrap();
    let o = CString::new(output.to_str().unwrap()).unwrap();
    let (mut ptr, mut len) = (core::ptr::null_mut::<u8>(), 0usize);
    let mut err = IdmodelError::default();
    // SAFETY: NUL-terminated strings and live out-values.
    let code = unsafe { idmodel_convert(i.as_ptr(), o.as_ptr(), &mut ptr, &mut len, &mut err) };
    (code, taken(code, ptr, len), err)
}

#[test]
fn a_file_converts_to_the_library_s_bytes() {
    for name in [
        "sample.mdl",
        "sample.md2",
        "sample.md3",
        "sample.md5mesh",
        "sample.md5camera",
    ] {
        let input = samples().join(name);
        let outs: &[&str] = if name.ends_with("md5camera") {
            &["x.glb"]
        } else {
            &["x.glb", "x.obj"]
        };
        for out in outs {
            let output = std::env::temp_dir().join(out);
            let (code, bytes, err) = through_c(&input, &output);
            assert_eq!(code, IDMODEL_OK, "{name}: {}", message(&err));
            let lib =
                idmodel_convert::convert(&input, &output, &idmodel_convert::Options::default())
                    .unwrap();
            assert!(bytes == lib.main_bytes(), "{name} -> {out}");
            assert!(!bytes.is_empty());
        }
    }
}

#[test]
fn an_archive_entry_converts_and_the_archive_closes() {
    let dir = idmodel_test_support::Scratch::new("capi-pak");
    let pak = dir.join("game.pak");
    let mdl = std::fs::read(samples().join("sample.mdl")).unwrap();
    std::fs::write(
        &pak,
        idmodel_assets::pak::write(&[("progs/sample.mdl", &mdl)]).unwrap(),
    )
    .unwrap();
    let entry = PathBuf::from(format!("{}:progs/sample.mdl", pak.display()));
    let (code, bytes, err) = through_c(&entry, &dir.join("s.glb"));
    assert_eq!(code, IDMODEL_OK, "{}", message(&err));
    let (_, alone, _) = through_c(&samples().join("sample.mdl"), &dir.join("s.glb"));
    assert!(bytes == alone, "the entry converts as the file does");
    let c = CString::new(pak.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { idmodel_archives_close(c.as_ptr()) }, 1);
    assert_eq!(
        unsafe { idmodel_archives_close(c.as_ptr()) },
        0,
        "already closed"
    );
    assert_eq!(unsafe { idmodel_archives_close(std::ptr::null()) }, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failure_is_the_library_s_line() {
    let (code, bytes, err) = through_c(Path::new("no/such/file.md2"), Path::new("x.glb"));
    assert_eq!(code, IDMODEL_E_CONVERT);
    assert!(bytes.is_empty());
    assert!(
        message(&err).starts_with("no/such/file.md2: cannot read"),
        "{}",
        message(&err)
    );
    let (code, _, err) = through_c(&samples().join("sample.md2"), Path::new("x.fbx"));
    assert_eq!(code, IDMODEL_E_CONVERT);
    assert!(
        message(&err).contains("cannot tell the output format"),
        "{}",
        message(&err)
    );
    let mut out = core::ptr::null_mut::<u8>();
    let mut len = 0usize;
    let mut err = IdmodelError::default();
    // SAFETY: a null input is what is tested; the rest is live.
    let code = unsafe {
        idmodel_convert(
            core::ptr::null(),
            c"x.glb".as_ptr(),
            &mut out,
            &mut len,
            &mut err,
        )
    };
    assert_eq!(code, IDMODEL_E_NULL);
    // SAFETY: null out-pointers are what is tested.
    let code = unsafe {
        idmodel_convert(
            c"a".as_ptr(),
            c"b".as_ptr(),
            core::ptr::null_mut(),
            &mut len,
            &mut err,
        )
    };
    assert_eq!(code, IDMODEL_E_NULL);
    // SAFETY: releasing null does nothing.
    unsafe { idmodel_buffer_free(core::ptr::null_mut(), 0) };
}

/// `idmodel_convert_files` over `files` (name, bytes) for `model`.
fn files_through_c(files: &[(String, Vec<u8>)], model: &str) -> (i32, Vec<u8>, IdmodelError) {
    let names: Vec<CString> = files
        .iter()
        .map(|(n, _)| CString::new(n.as_str()).unwrap())
        .collect();
    let name_ptrs: Vec<*const core::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let data: Vec<*const u8> = files.iter().map(|(_, b)| b.as_ptr()).collect();
    let sizes: Vec<usize> = files.iter().map(|(_, b)| b.len()).collect();
    let model = CString::new(model).unwrap();
    let (mut ptr, mut len) = (core::ptr::null_mut::<u8>(), 0usize);
    let mut err = IdmodelError::default();
    // SAFETY: arrays of `files.len()` live elements, NUL-terminated strings, live outs.
    let code = unsafe {
        idmodel_convert_files(
            name_ptrs.as_ptr(),
            data.as_ptr(),
            sizes.as_ptr(),
            files.len(),
            model.as_ptr(),
            c"out.glb".as_ptr(),
            &mut ptr,
            &mut len,
            &mut err,
        )
    };
    (code, taken(code, ptr, len), err)
}

#[test]
fn files_in_memory_convert_to_the_library_s_bytes() {
    let md2 = std::fs::read(samples().join("sample.md2")).unwrap();
    let files = vec![("models/sample/tris.md2".to_owned(), md2.clone())];
    let (code, bytes, err) = files_through_c(&files, "models/sample/tris.md2");
    assert_eq!(code, IDMODEL_OK, "{}", message(&err));
    let borrowed = [("models/sample/tris.md2", md2.as_slice())];
    let lib = idmodel_convert::convert_bytes(
        &borrowed,
        "models/sample/tris.md2",
        Path::new("out.glb"),
        &idmodel_convert::Options::default(),
    )
    .unwrap();
    assert!(bytes == lib.main_bytes());
    let (code, _, err) = files_through_c(&files, "models/sample/other.md2");
    assert_eq!(code, IDMODEL_E_CONVERT);
    assert!(
        message(&err).starts_with("models/sample/other.md2: "),
        "{}",
        message(&err)
    );
    let Some(corpus) =
        idmodel_test_support::corpus_dir("files_in_memory_convert_to_the_library_s_bytes")
    else {
        return;
    };
    // A Quake III player folder in memory is the player the command assembles from disk.
    let dir = corpus.join("md3/oa_kyonshi");
    let mut files = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = format!("oa_kyonshi/{}", p.file_name().unwrap().to_str().unwrap());
        files.push((name, std::fs::read(&p).unwrap()));
    }
    let (code, bytes, err) = files_through_c(&files, "oa_kyonshi");
    assert_eq!(code, IDMODEL_OK, "{}", message(&err));
    let lib = idmodel_convert::convert(
        &dir,
        &std::env::temp_dir().join("p.glb"),
        &idmodel_convert::Options::default(),
    )
    .unwrap();
    assert!(
        bytes == lib.main_bytes(),
        "the player in memory differs from the one on disk"
    );
}

#[test]
fn the_quantize_flag_gives_the_library_s_quantized_bytes_and_unknown_flags_are_refused() {
    let input = CString::new(samples().join("sample.md3").to_str().unwrap()).unwrap();
    let output = CString::new("x.glb").unwrap();
    let run = |flags: u32| {
        let (mut ptr, mut len) = (std::ptr::null_mut(), 0usize);
        let mut err = IdmodelError::default();
        // SAFETY: valid strings and out-pointers.
        let code = unsafe {
            idmodel_convert_with(
                input.as_ptr(),
                output.as_ptr(),
                flags,
                &mut ptr,
                &mut len,
                &mut err,
            )
        };
        let bytes = if code == IDMODEL_OK {
            // SAFETY: the library gave `len` bytes at `ptr`.
            let b = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
            // SAFETY: released once, as the API asks.
            unsafe { idmodel_buffer_free(ptr, len) };
            b
        } else {
            Vec::new()
        };
        (code, bytes, message(&err))
    };
    let (code, bytes, e) = run(IDMODEL_CONVERT_QUANTIZE);
    assert_eq!(code, IDMODEL_OK, "{e}");
    let lib = idmodel_convert::convert(
        &samples().join("sample.md3"),
        std::path::Path::new("x.glb"),
        &idmodel_convert::Options {
            quantize: true,
            ..idmodel_convert::Options::default()
        },
    )
    .unwrap();
    assert!(bytes == lib.main_bytes());
    assert!(String::from_utf8_lossy(&bytes).contains("KHR_mesh_quantization"));
    let (plain, _, _) = run(0);
    assert_eq!(plain, IDMODEL_OK);
    let (code, _, e) = run(0x80);
    assert_ne!(code, IDMODEL_OK);
    assert!(e.contains("unknown bits 0x80"), "{e}");
}
