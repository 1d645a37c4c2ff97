//! Whole conversions through `idmodel_convert`, the call the `idmodel` command and the
//! browser viewer make (the `convert` feature: it needs `std`, an allocator and, for MD3
//! LODs, the C++ runtime). The result is a buffer this library allocates: release it
//! with [`idmodel_buffer_free`].

extern crate alloc;
extern crate std;

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::{CStr, c_char};
use std::path::Path;

use crate::message;
use crate::{
    IDMODEL_E_CONVERT, IDMODEL_E_NULL, IDMODEL_E_TOO_LARGE, IDMODEL_NO_OFFSET, IDMODEL_OK,
    IdmodelError,
};

/// Fills `err` (when given) and returns `code`.
fn done(err: *mut IdmodelError, code: i32, line: &str) -> i32 {
    if !err.is_null() && err.is_aligned() {
        // SAFETY: non-null and aligned; the caller passes null or a pointer to an
        // `IdmodelError` it owns, which nothing else aliases during the call.
        let e = unsafe { &mut *err };
        e.code = code;
        e.offset = IDMODEL_NO_OFFSET;
        e.required = 0;
        message::set_display(&mut e.message, line);
    }
    code
}

/// A NUL-terminated UTF-8 argument, or why not.
///
/// # Safety
/// `s` is null or points to a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, (i32, String)> {
    if s.is_null() {
        return Err((IDMODEL_E_NULL, alloc::format!("{what} is null")));
    }
    // SAFETY: non-null, and the caller's string is NUL-terminated and lives through the call.
    let c = unsafe { CStr::from_ptr(s) };
    c.to_str()
        .map_err(|_| (IDMODEL_E_CONVERT, alloc::format!("{what} is not UTF-8")))
}

/// Two string arguments (see [`text`]).
///
/// # Safety
/// Each pointer is null or points to a NUL-terminated string.
unsafe fn texts<'a>(
    a: (*const c_char, &str),
    b: (*const c_char, &str),
) -> Result<(&'a str, &'a str), (i32, String)> {
    // SAFETY: the caller's contract, passed on.
    let first = unsafe { text(a.0, a.1) }?;
    // SAFETY: as above.
    let second = unsafe { text(b.0, b.1) }?;
    Ok((first, second))
}

/// Runs `convert` and hands its bytes to the caller as `*out` / `*out_len` (checked
/// first), filling `err` with its failure.
fn deliver(
    err: *mut IdmodelError,
    out: *mut *mut u8,
    out_len: *mut usize,
    convert: impl FnOnce() -> Result<Vec<u8>, (i32, String)>,
) -> i32 {
    if out.is_null() || out_len.is_null() || !out.is_aligned() || !out_len.is_aligned() {
        return done(err, IDMODEL_E_NULL, "out or out_len is null or misaligned");
    }
    match convert() {
        Ok(bytes) => {
            let len = bytes.len();
            let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>();
            // SAFETY: checked non-null and aligned above; the caller owns both.
            unsafe { out.write(ptr) };
            // SAFETY: as above.
            unsafe { out_len.write(len) };
            done(err, IDMODEL_OK, "")
        }
        Err((code, line)) => done(err, code, &line),
    }
}

/// A conversion's failure as a code and its line.
fn failed(e: &idmodel_convert::Error) -> (i32, String) {
    (IDMODEL_E_CONVERT, e.line().to_owned())
}

/// Converts the model at the path `input` (a model file, a Quake III player folder, an
/// md5mesh, `ARCHIVE:entry`, or a glTF/OBJ on the way back) to the format the path
/// `output` names by its extension (`.glb`, `.gltf`, `.obj`, `.md3`, `.md2`, `.mdl`,
/// `.md5mesh`), exactly as `idmodel convert INPUT -o OUTPUT` does, and gives the main
/// output's bytes in `*out` (`*out_len` bytes) without writing any file. Side files (a
/// `.gltf`'s `.bin`, an OBJ's `.mtl`) are not returned: use GLB. Release `*out` with
/// [`idmodel_buffer_free`].
///
/// Errors: [`crate::IDMODEL_E_NULL`], [`IDMODEL_E_CONVERT`] (the message is the command's
/// one line).
///
/// # Safety
///
/// `input` and `output` are NUL-terminated strings; `out` and `out_len` point to writable
/// values; `err` is null or points to an [`IdmodelError`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_convert(
    input: *const c_char,
    output: *const c_char,
    out: *mut *mut u8,
    out_len: *mut usize,
    err: *mut IdmodelError,
) -> i32 {
    // SAFETY: the caller's contract, passed on unchanged.
    unsafe { idmodel_convert_with(input, output, 0, out, out_len, err) }
}

/// A flag of [`idmodel_convert_with`]: GLB meshes with `KHR_mesh_quantization` (integer
/// positions on the model's grid, byte normals), as `idmodel convert --quantize`.
pub const IDMODEL_CONVERT_QUANTIZE: u32 = 1;

/// [`idmodel_convert`] with `flags`, an OR of `IDMODEL_CONVERT_*` (0 is
/// [`idmodel_convert`]). A flag this library does not know is refused
/// ([`IDMODEL_E_CONVERT`]), so that a caller built for a newer library learns it.
///
/// # Safety
///
/// As [`idmodel_convert`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_convert_with(
    input: *const c_char,
    output: *const c_char,
    flags: u32,
    out: *mut *mut u8,
    out_len: *mut usize,
    err: *mut IdmodelError,
) -> i32 {
    deliver(err, out, out_len, || {
        // SAFETY: the caller's contract: NUL-terminated strings or null.
        let (input, output) = unsafe { texts((input, "input"), (output, "output")) }?;
        let unknown = flags & !IDMODEL_CONVERT_QUANTIZE;
        if unknown != 0 {
            return Err((
                IDMODEL_E_CONVERT,
                alloc::format!("flags: unknown bits {unknown:#x}"),
            ));
        }
        let options = idmodel_convert::Options {
            quantize: flags & IDMODEL_CONVERT_QUANTIZE != 0,
            ..idmodel_convert::Options::default()
        };
        idmodel_convert::convert(Path::new(input), Path::new(output), &options)
            .map(|c| c.main_bytes())
            .map_err(|e| failed(&e))
    })
}

/// Converts the model at game path `model` among `count` files held in memory (`names[i]`,
/// `data[i]`, `sizes[i]` bytes: the model and the files beside it, such as skins, `.skin`
/// files and `animation.cfg`; a Quake III player folder is named by its folder) to the
/// format `output` names (`model.glb`), as the browser viewer does, and gives the main
/// output's bytes in `*out` (`*out_len` bytes). Release `*out` with
/// [`idmodel_buffer_free`].
///
/// Errors: [`crate::IDMODEL_E_NULL`], [`crate::IDMODEL_E_TOO_LARGE`], [`IDMODEL_E_CONVERT`].
///
/// # Safety
///
/// `names`, `data` and `sizes` point to `count` elements each; every `names[i]` is a
/// NUL-terminated string and every `data[i]` points to `sizes[i]` readable bytes; `model`
/// and `output` are NUL-terminated strings; `out` and `out_len` point to writable values;
/// `err` is null or points to an [`IdmodelError`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_convert_files(
    names: *const *const c_char,
    data: *const *const u8,
    sizes: *const usize,
    count: usize,
    model: *const c_char,
    output: *const c_char,
    out: *mut *mut u8,
    out_len: *mut usize,
    err: *mut IdmodelError,
) -> i32 {
    let arrays_ok = |p: bool, aligned: bool| count == 0 || (!p && aligned);
    if !arrays_ok(names.is_null(), names.is_aligned())
        || !arrays_ok(data.is_null(), data.is_aligned())
        || !arrays_ok(sizes.is_null(), sizes.is_aligned())
    {
        return done(
            err,
            IDMODEL_E_NULL,
            "names, data or sizes is null or misaligned",
        );
    }
    if isize::try_from(count).is_err() {
        return done(err, IDMODEL_E_TOO_LARGE, "count is too large");
    }
    deliver(err, out, out_len, || {
        // SAFETY: the caller's contract: NUL-terminated strings or null.
        let (model, output) = unsafe { texts((model, "model"), (output, "output")) }?;
        let (names, data, sizes): (&[*const c_char], &[*const u8], &[usize]) = if count == 0 {
            (&[], &[], &[])
        } else {
            // SAFETY: non-null, aligned, `count` fits in `isize`, and each array holds
            // `count` elements (the contract) that nothing writes during the call.
            let n = unsafe { core::slice::from_raw_parts(names, count) };
            // SAFETY: as above.
            let d = unsafe { core::slice::from_raw_parts(data, count) };
            // SAFETY: as above.
            let z = unsafe { core::slice::from_raw_parts(sizes, count) };
            (n, d, z)
        };
        let mut files: Vec<(&str, &[u8])> = Vec::new();
        for ((&name, &bytes), &size) in names.iter().zip(data).zip(sizes) {
            // SAFETY: the contract: a NUL-terminated string.
            let name = unsafe { text(name, "a file name") }?;
            if bytes.is_null() || isize::try_from(size).is_err() {
                let line = alloc::format!("{name}: its data is null or too large");
                return Err((IDMODEL_E_NULL, line));
            }
            // SAFETY: non-null, `size` fits in `isize`, and the caller's buffer holds
            // `size` readable bytes that nothing writes during the call.
            files.push((name, unsafe { core::slice::from_raw_parts(bytes, size) }));
        }
        let options = idmodel_convert::Options::default();
        idmodel_convert::convert_bytes(&files, model, Path::new(output), &options)
            .map(|c| c.main_bytes())
            .map_err(|e| failed(&e))
    })
}

/// Releases a buffer [`idmodel_convert`] or [`idmodel_convert_files`] gave (`buf` and its
/// length `len` as given). Null is ignored.
///
/// # Safety
///
/// `buf` is null or a buffer this library gave with length `len`, not yet released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_buffer_free(buf: *mut u8, len: usize) {
    if buf.is_null() {
        return;
    }
    let slice = core::ptr::slice_from_raw_parts_mut(buf, len);
    // SAFETY: the contract: `buf` and `len` are a boxed slice this library leaked.
    drop(unsafe { Box::from_raw(slice) });
}

/// Closes the archive (`.pak`, `.pk3`, `.pk4`) at `path` (as given to
/// [`idmodel_convert`] in `ARCHIVE:entry`), or every archive when `path` is null. Archives
/// stay open between conversions, so a batch reads each directory once; a long-running
/// program that is done with them frees them here (one changed on disk is read again
/// anyway). Returns 1 when it closed an archive (always for null), 0 when none by that
/// name was open.
///
/// # Safety
///
/// `path` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_archives_close(path: *const c_char) -> i32 {
    if path.is_null() {
        idmodel_convert::archives::close_all();
        return 1;
    }
    // SAFETY: the caller's contract: a NUL-terminated string.
    let path = unsafe { CStr::from_ptr(path) };
    match path.to_str() {
        Ok(p) => i32::from(idmodel_convert::archives::close(Path::new(p))),
        Err(_) => 0,
    }
}
