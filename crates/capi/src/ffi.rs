//! The extern "C" functions. Each one checks its pointers and lengths first (null,
//! alignment, size, overlap), turns them into Rust references in small `unsafe` blocks,
//! and then calls the safe code in `formats`.

use core::ffi::{c_char, c_void};
use core::mem::{align_of, needs_drop, size_of};

use crate::formats::{self, Fail, Parsed, count};
use crate::message::{self, CBuf};
use crate::{
    IDMODEL_ENGINE_ALL, IDMODEL_FORMAT_MD3, IDMODEL_FORMAT_MD5ANIM, IDMODEL_FORMAT_MD5MESH,
    IDMODEL_OK, IdmodelError, IdmodelFinding, IdmodelFindingFn, IdmodelInfo, IdmodelJoint,
    IdmodelMeshInfo, IdmodelModel, IdmodelTag,
};

/// "idmodel" and a layout version: the first word of a parsed handle.
const MAGIC: u64 = 0x6964_6d6f_6465_6c01;

/// What a parsed [`IdmodelModel`] holds. `magic` comes first so that a handle can be
/// recognised by reading one word.
#[repr(C)]
struct Handle {
    magic: u64,
    data: *const u8,
    len: usize,
    parsed: Parsed<'static>,
}

const _: () = assert!(size_of::<Handle>() <= size_of::<IdmodelModel>());
const _: () = assert!(align_of::<Handle>() <= align_of::<IdmodelModel>());
// A handle is released by forgetting it: nothing in it may need dropping.
const _: () = assert!(!needs_drop::<Handle>());

/// Writes the outcome into the caller's error struct (when there is one) and returns the
/// code.
fn finish(err: *mut IdmodelError, result: Result<(), Fail>) -> i32 {
    let code = match &result {
        Ok(()) => IDMODEL_OK,
        Err(f) => f.code(),
    };
    if !err.is_null() && err.is_aligned() {
        // SAFETY: `err` is non-null and aligned; the caller passes either null or a
        // pointer to an `IdmodelError` it owns (the header's contract), which no other
        // reference aliases during the call.
        let e = unsafe { &mut *err };
        e.code = code;
        match &result {
            Ok(()) => {
                e.offset = crate::IDMODEL_NO_OFFSET;
                e.required = 0;
                e.message = [0; crate::IDMODEL_MESSAGE_SIZE];
            }
            Err(f) => {
                e.offset = f.offset();
                e.required = f.required();
                message::set_display(&mut e.message, f);
            }
        }
    }
    code
}

/// The handle behind `model`, when it is one that [`idmodel_parse`] filled.
fn handle<'h>(model: *const IdmodelModel) -> Result<&'h Handle, Fail> {
    if model.is_null() {
        return Err(Fail::Null("model"));
    }
    if !model.is_aligned() {
        return Err(Fail::Misaligned("model"));
    }
    // SAFETY: non-null and aligned for `IdmodelModel` (so for `u64`), and the caller's
    // storage is at least one `IdmodelModel` long; every bit pattern is a valid `u64`, and
    // word 0 is initialised in any storage the caller zeroed or that `idmodel_parse`
    // wrote.
    let magic = unsafe { model.cast::<u64>().read() };
    if magic != MAGIC {
        return Err(Fail::BadHandle);
    }
    // SAFETY: the magic word is only ever written by `idmodel_parse`, in the same write
    // as a whole valid `Handle` at this address (size and alignment asserted above), and
    // `idmodel_release` clears it; the handle's bytes stay alive and unchanged while
    // the caller uses it (the header's contract).
    Ok(unsafe { &*model.cast::<Handle>() })
}

impl Handle {
    /// The model bytes' address range, for overlap checks.
    fn bytes_range(&self) -> (usize, usize) {
        (self.data.addr(), self.len)
    }
}

/// Two address ranges `(start, bytes)` share a byte.
fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    let (a0, alen) = a;
    let (b0, blen) = b;
    if alen == 0 || blen == 0 {
        return false;
    }
    let a1 = a0.saturating_add(alen);
    let b1 = b0.saturating_add(blen);
    a0 < b1 && b0 < a1
}

/// The bytes a slice of `n` `T`s spans, refusing lengths no object can have.
fn span<T>(what: &'static str, n: usize) -> Result<usize, Fail> {
    n.checked_mul(size_of::<T>())
        .filter(|&b| isize::try_from(b).is_ok())
        .ok_or(Fail::TooLarge(what))
}

/// An output array from C: `ptr` to `len` scalars `S` (floats, indices), of which the
/// call needs `needed` groups of `K`. Returns exactly `needed` groups.
///
/// Checks null, alignment, length, size and overlap with `others` (the model's bytes,
/// the handle, other outputs) before any reference is made.
fn out_groups<'o, S, const K: usize>(
    what: &'static str,
    ptr: *mut S,
    len: usize,
    needed: usize,
    others: &[(&'static str, (usize, usize))],
) -> Result<&'o mut [[S; K]], Fail> {
    let needed_scalars = needed.checked_mul(K).ok_or(Fail::TooLarge(what))?;
    if ptr.is_null() {
        return Err(Fail::Null(what));
    }
    if !ptr.is_aligned() {
        return Err(Fail::Misaligned(what));
    }
    span::<S>(what, len)?;
    if len < needed_scalars {
        return Err(Fail::TooSmall {
            what,
            needed: count(needed_scalars),
            got: count(len),
        });
    }
    let bytes = span::<S>(what, needed_scalars)?;
    let range = (ptr.addr(), bytes);
    for (name, other) in others {
        if overlaps(range, *other) {
            return Err(Fail::Overlap(what, name));
        }
    }
    // SAFETY: `ptr` is non-null and aligned for `S` (so for `[S; K]`, which has the same
    // alignment and no padding); the caller's array holds `len >= needed * K` scalars
    // (the header's contract), the span fits in `isize`, and it overlaps neither the
    // model's bytes nor the handle nor any other array of this call, so this is the only
    // reference to that memory while the call runs.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr.cast::<[S; K]>(), needed) })
}

/// What a per-mesh array holds one group for.
#[derive(Debug, Clone, Copy)]
enum Per {
    /// A vertex of the mesh.
    Vertex,
    /// A triangle of the mesh.
    Triangle,
}

/// How many vertices or triangles `mesh` has.
fn mesh_count(p: &Parsed<'_>, mesh: u64, per: Per) -> Result<usize, Fail> {
    let info = p.mesh_info(mesh)?;
    let n = match per {
        Per::Vertex => info.vertices,
        Per::Triangle => info.triangles,
    };
    usize::try_from(n).map_err(|_| Fail::TooLarge("mesh"))
}

/// A per-mesh output array: `out` (`ptr`, `len` scalars) checked by [`out_groups`] as
/// one group of `K` per vertex or triangle of `mesh`, then filled by `fill`. Where the
/// format has no such array (`wanted` false), `fill` gets no groups (and says why).
fn mesh_array<S, const K: usize>(
    p: &Parsed<'_>,
    (mesh, per): (u64, Per),
    (ptr, len): (*mut S, usize),
    others: &[(&'static str, (usize, usize))],
    wanted: bool,
    fill: impl FnOnce(&mut [[S; K]]) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let n = mesh_count(p, mesh, per)?;
    if !wanted {
        return fill(&mut []);
    }
    fill(out_groups::<S, K>("out", ptr, len, n, others)?)
}

/// The (start, bytes) of an output group slice, for the next overlap check.
fn range_of<T>(s: &[T]) -> (usize, usize) {
    (s.as_ptr().addr(), core::mem::size_of_val(s))
}

/// Runs `f` on the parsed model behind `model`, with the model's bytes and handle as the
/// ranges outputs must not overlap.
fn with_model(
    model: *const IdmodelModel,
    err: *mut IdmodelError,
    f: impl FnOnce(&Parsed<'static>, &[(&'static str, (usize, usize))]) -> Result<(), Fail>,
) -> i32 {
    let result = handle(model).and_then(|h| {
        let others = [
            ("the model's bytes", h.bytes_range()),
            (
                "the model handle",
                (model.addr(), size_of::<IdmodelModel>()),
            ),
            ("the error struct", (err.addr(), size_of::<IdmodelError>())),
        ];
        f(&h.parsed, &others)
    });
    finish(err, result)
}

/// Writes one C struct to `out` after the checks of [`out_groups`].
fn out_one<'o, T>(
    what: &'static str,
    out: *mut T,
    others: &[(&'static str, (usize, usize))],
) -> Result<&'o mut T, Fail> {
    if out.is_null() {
        return Err(Fail::Null(what));
    }
    if !out.is_aligned() {
        return Err(Fail::Misaligned(what));
    }
    let range = (out.addr(), size_of::<T>());
    for (name, other) in others {
        if overlaps(range, *other) {
            return Err(Fail::Overlap(what, name));
        }
    }
    // SAFETY: non-null, aligned, and the caller passes a pointer to a `T` it owns (the
    // header's contract) that overlaps nothing else this call reads or writes.
    Ok(unsafe { &mut *out })
}

/// The size in bytes of [`IdmodelModel`], the storage [`idmodel_parse`] fills. Callers
/// that allocate handles themselves (an arena, a pool) reserve this many bytes, aligned
/// to 8.
#[unsafe(no_mangle)]
pub extern "C" fn idmodel_handle_size() -> usize {
    size_of::<IdmodelModel>()
}

/// The format of `len` bytes at `data`: an `IDMODEL_FORMAT_*` (the magic and, for the
/// md5 text formats, the first keywords; nothing is validated). Null `data` (or `len`
/// 0) is [`crate::IDMODEL_FORMAT_NONE`].
///
/// # Safety
///
/// `data` is null or points to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_detect(data: *const u8, len: usize) -> i32 {
    if data.is_null() || isize::try_from(len).is_err() {
        return crate::IDMODEL_FORMAT_NONE;
    }
    // SAFETY: non-null, `len` fits in `isize`, and the caller's buffer holds `len`
    // readable bytes that nothing writes during the call.
    let bytes = unsafe { core::slice::from_raw_parts(data, len) };
    formats::detect_code(bytes)
}

/// The id of an `IDMODEL_FORMAT_*` as `idmodel info --json` writes it (`"mdl"`, `"md2"`,
/// `"md3"`, `"md5mesh"`, `"md5anim"`, `"md5camera"`); `""` for any other value. A static
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn idmodel_format_id(format: i32) -> *const c_char {
    let s: &'static core::ffi::CStr = match format {
        crate::IDMODEL_FORMAT_MDL => c"mdl",
        crate::IDMODEL_FORMAT_MD2 => c"md2",
        crate::IDMODEL_FORMAT_MD3 => c"md3",
        crate::IDMODEL_FORMAT_MD5MESH => c"md5mesh",
        crate::IDMODEL_FORMAT_MD5ANIM => c"md5anim",
        crate::IDMODEL_FORMAT_MD5CAMERA => c"md5camera",
        _ => c"",
    };
    s.as_ptr()
}

/// The name of an `IDMODEL_ENGINE_*` (`"winquake"`, …, `"doom3"`), `""` for any other
/// value. A static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn idmodel_engine_name(engine: i32) -> *const c_char {
    let s: &'static core::ffi::CStr = match formats::engine_of(engine) {
        Some(idmodel_core::Engine::WinQuake) => c"winquake",
        Some(idmodel_core::Engine::GlQuake) => c"glquake",
        Some(idmodel_core::Engine::QuakeSpasm) => c"quakespasm",
        Some(idmodel_core::Engine::Quake2) => c"quake2",
        Some(idmodel_core::Engine::Quake3) => c"quake3",
        Some(idmodel_core::Engine::Ioq3) => c"ioq3",
        Some(idmodel_core::Engine::Doom3) => c"doom3",
        _ => c"",
    };
    s.as_ptr()
}

/// Validates the `len` bytes at `data` as a model of any format idmodel reads (by
/// [`idmodel_detect`]) and stores a view of them in `*out`, whose storage is `out_size`
/// bytes (at least [`idmodel_handle_size`], aligned to 8). Nothing is copied or
/// allocated: **the handle borrows `data`**, which must stay alive and unchanged while
/// the handle is used.
///
/// Errors: [`crate::IDMODEL_E_NULL`], [`crate::IDMODEL_E_BUFFER_TOO_SMALL`] (`required`:
/// the handle size), [`crate::IDMODEL_E_UNKNOWN_FORMAT`], [`crate::IDMODEL_E_PARSE`] (with
/// the byte offset). On error `*out` is left a handle every other call refuses.
///
/// # Safety
///
/// `data` points to `len` readable bytes; `out` points to `out_size` writable bytes;
/// `err` is null or points to an [`IdmodelError`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_parse(
    data: *const u8,
    len: usize,
    out: *mut IdmodelModel,
    out_size: usize,
    err: *mut IdmodelError,
) -> i32 {
    let result = (|| {
        if out.is_null() {
            return Err(Fail::Null("out"));
        }
        if !out.is_aligned() {
            return Err(Fail::Misaligned("out"));
        }
        if out_size < size_of::<IdmodelModel>() {
            return Err(Fail::TooSmall {
                what: "the handle storage",
                needed: count(size_of::<IdmodelModel>()),
                got: count(out_size),
            });
        }
        let storage = (out.addr(), size_of::<IdmodelModel>());
        if overlaps(storage, (err.addr(), size_of::<IdmodelError>())) && !err.is_null() {
            return Err(Fail::Overlap("out", "err"));
        }
        // SAFETY: non-null, aligned, at least `size_of::<IdmodelModel>()` bytes the caller
        // owns; writing a whole `IdmodelModel` of zeros first makes the handle one that
        // every call refuses until the parse below succeeds.
        unsafe { out.write(IdmodelModel::default()) };
        if data.is_null() {
            return Err(Fail::Null("data"));
        }
        if isize::try_from(len).is_err() {
            return Err(Fail::TooLarge("data"));
        }
        if overlaps(storage, (data.addr(), len)) {
            return Err(Fail::Overlap("out", "data"));
        }
        // SAFETY: non-null, `len` fits in `isize`, the caller's buffer holds `len` bytes
        // and outlives the handle, unchanged (the header's contract), and it does not
        // overlap the handle storage written below. `'static` stands for "as long as the
        // caller keeps the buffer", which the C contract, not the borrow checker, keeps.
        let bytes: &'static [u8] = unsafe { core::slice::from_raw_parts(data, len) };
        let parsed = formats::parse(bytes)?;
        let handle = Handle {
            magic: MAGIC,
            data,
            len,
            parsed,
        };
        // SAFETY: `out` is non-null, aligned for `IdmodelModel` and so for `Handle`, and
        // holds at least `size_of::<Handle>()` bytes (asserted at compile time).
        unsafe { out.cast::<Handle>().write(handle) };
        Ok(())
    })();
    finish(err, result)
}

/// Marks a handle unused: every later call with it returns
/// [`crate::IDMODEL_E_BAD_HANDLE`]. The handle owns nothing, so this frees nothing (the
/// caller frees its own buffer and storage). Null is ignored.
///
/// # Safety
///
/// `model` is null or points to an [`IdmodelModel`]'s storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_release(model: *mut IdmodelModel) {
    if !model.is_null() && model.is_aligned() {
        // SAFETY: non-null, aligned, and the caller's storage is an `IdmodelModel`;
        // zeroing it removes the magic word.
        unsafe { model.write(IdmodelModel::default()) };
    }
}

/// The model's counts (as `idmodel info --json` reports them) into `*out`.
///
/// # Safety
///
/// `model` points to an [`IdmodelModel`]; `out` to an [`IdmodelInfo`]; `err` is null or
/// points to an [`IdmodelError`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_info(
    model: *const IdmodelModel,
    out: *mut IdmodelInfo,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        *out_one("out", out, others)? = p.info();
        Ok(())
    })
}

/// Mesh `mesh`'s counts and names (MDL and MD2: mesh 0 is the model; MD3: surface
/// `mesh`; md5mesh: mesh `mesh`) into `*out`.
///
/// # Safety
///
/// As [`idmodel_info`], with `out` pointing to an [`IdmodelMeshInfo`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_mesh_info(
    model: *const IdmodelModel,
    mesh: u64,
    out: *mut IdmodelMeshInfo,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let info = p.mesh_info(mesh)?;
        *out_one("out", out, others)? = info;
        Ok(())
    })
}

/// Positions and normals of `mesh` between frames `old_frame` and `new_frame`
/// (`backlerp` is the weight of `old_frame`, as Quake II and III pass it: 0 shows
/// `new_frame` alone), interpolated as the format's engine does: MDL as QuakeSpasm
/// (vertices mixed in byte space with `blend = 1 − backlerp`, then scaled; normals
/// mixed the same way, not renormalised, as its lighting mixes them), MD2 as Quake II's
/// `GL_LerpVerts` (normals: the new frame's, which its GL renderer shades with), MD3 as
/// Quake III's `LerpMeshVertexes` (normals mixed and renormalised with the fast inverse
/// square root). MDL frames are poses (frame groups expanded). md5mesh: use
/// [`idmodel_md5_pose`] and [`idmodel_md5_skin`].
///
/// `positions` and `normals` each hold `len` floats, at least 3 × the mesh's vertices.
///
/// # Safety
///
/// As [`idmodel_info`]; `positions` and `normals` each point to `len` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_frame(
    model: *const IdmodelModel,
    mesh: u64,
    old_frame: u64,
    new_frame: u64,
    backlerp: f32,
    positions: *mut f32,
    normals: *mut f32,
    len: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let n = mesh_count(p, mesh, Per::Vertex)?;
        if p.format_code() == IDMODEL_FORMAT_MD5MESH {
            // md5 meshes are posed by joints; say so before asking for arrays.
            return p.frame(mesh, old_frame, new_frame, backlerp, &mut [], &mut []);
        }
        let pos = out_groups::<f32, 3>("positions", positions, len, n, others)?;
        let mut more = [("positions", range_of(pos))];
        let nrm_others = extend(others, &mut more);
        let nrm = out_groups::<f32, 3>("normals", normals, len, n, nrm_others.as_slice())?;
        p.frame(mesh, old_frame, new_frame, backlerp, pos, nrm)
    })
}

/// A small fixed list of ranges: the call's `others` and one more.
struct Ranges<'r> {
    items: [(&'static str, (usize, usize)); 4],
    len: usize,
    _r: core::marker::PhantomData<&'r ()>,
}

impl Ranges<'_> {
    fn as_slice(&self) -> &[(&'static str, (usize, usize))] {
        self.items.get(..self.len).unwrap_or(&self.items)
    }
}

/// `others` and `more` as one list (at most 4 entries; the calls pass 3 + 1).
fn extend<'r>(
    others: &[(&'static str, (usize, usize))],
    more: &mut [(&'static str, (usize, usize)); 1],
) -> Ranges<'r> {
    let mut items = [("", (0usize, 0usize)); 4];
    let mut len = 0usize;
    for (slot, item) in items.iter_mut().zip(others.iter().chain(more.iter())) {
        *slot = *item;
        len = len.saturating_add(1);
    }
    Ranges {
        items,
        len,
        _r: core::marker::PhantomData,
    }
}

/// The triangles' vertex indices of `mesh`, three per triangle, into `out` (`len`
/// `uint32_t`s, at least 3 × the mesh's triangles). Indices are into the arrays of
/// [`idmodel_frame`] / [`idmodel_md5_skin`] / [`idmodel_uvs`].
///
/// # Safety
///
/// As [`idmodel_info`]; `out` points to `len` writable `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_indices(
    model: *const IdmodelModel,
    mesh: u64,
    out: *mut u32,
    len: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let out = (out, len);
        mesh_array::<u32, 3>(p, (mesh, Per::Triangle), out, others, true, |o| {
            p.indices(mesh, o)
        })
    })
}

/// Per-vertex texture coordinates of `mesh` (MD3 as stored, md5mesh as Doom uses them;
/// `t = 0` is the top of the image), two floats per vertex, into `out` (`len` floats).
/// MDL and MD2 keep texture coordinates per triangle corner: [`idmodel_corner_uvs`].
///
/// # Safety
///
/// As [`idmodel_info`]; `out` points to `len` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_uvs(
    model: *const IdmodelModel,
    mesh: u64,
    out: *mut f32,
    len: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let per_vertex = matches!(p.format_code(), IDMODEL_FORMAT_MD5MESH | IDMODEL_FORMAT_MD3);
        let out = (out, len);
        mesh_array::<f32, 2>(p, (mesh, Per::Vertex), out, others, per_vertex, |o| {
            p.uvs(mesh, o)
        })
    })
}

/// Texture coordinates per triangle corner of `mesh`, six floats per triangle in index
/// order, into `out` (`len` floats): MDL with GLQuake's seam rule and half-texel offset,
/// MD2 `s / skinwidth, t / skinheight`, MD3 its per-vertex ones. Not for md5 (per vertex:
/// [`idmodel_uvs`]).
///
/// # Safety
///
/// As [`idmodel_info`]; `out` points to `len` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_corner_uvs(
    model: *const IdmodelModel,
    mesh: u64,
    out: *mut f32,
    len: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let per_corner = p.format_code() != IDMODEL_FORMAT_MD5MESH;
        let out = (out, len);
        mesh_array::<f32, 6>(p, (mesh, Per::Triangle), out, others, per_corner, |o| {
            p.corner_uvs(mesh, o)
        })
    })
}

/// MD3 tag `tag` between frames `frame_a` and `frame_b` (`frac` is the weight of
/// `frame_b`), as Quake III's `R_LerpTag`: origins and axis rows mixed linearly, each row
/// normalised. Tag indices are those of frame 0's tags, `0 .. info.tags`.
///
/// # Safety
///
/// As [`idmodel_info`]; `out` points to an [`IdmodelTag`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_tag(
    model: *const IdmodelModel,
    tag: u64,
    frame_a: u64,
    frame_b: u64,
    frac: f32,
    out: *mut IdmodelTag,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let t = p.tag(tag, frame_a, frame_b, frac)?;
        *out_one("out", out, others)? = t;
        Ok(())
    })
}

/// Runs the engines' checks (`engine`: an `IDMODEL_ENGINE_*`, or
/// [`IDMODEL_ENGINE_ALL`] for every engine that loads the format; an engine that does not
/// load it reports nothing) and calls `callback(user, &finding)` for each finding, in the
/// order `idmodel check` prints them. The finding and its strings are valid during the
/// call only. Returns [`IDMODEL_OK`] when the checks ran (findings are not errors).
///
/// # Safety
///
/// As [`idmodel_info`]; `callback` is a function that may be called with `user` (it must
/// not unwind).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_check(
    model: *const IdmodelModel,
    engine: i32,
    callback: IdmodelFindingFn,
    user: *mut c_void,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, _| {
        let Some(callback) = callback else {
            return Err(Fail::Null("callback"));
        };
        let engine = if engine == IDMODEL_ENGINE_ALL {
            None
        } else {
            Some(formats::engine_of(engine).ok_or(Fail::Range {
                what: "engine",
                index: u64::try_from(engine).unwrap_or(u64::MAX),
                count: count(idmodel_core::Engine::ALL.len()),
            })?)
        };
        let mut code: [c_char; 64] = [0; 64];
        let mut text: [c_char; 512] = [0; 512];
        p.check(engine, &mut |f| {
            message::set_bytes(&mut code, f.code().as_bytes());
            {
                let mut w = CBuf::new(&mut text);
                let _ = core::fmt::write(&mut w, format_args!("{}", Msg(f)));
            }
            let finding = IdmodelFinding {
                engine: formats::engine_code(f.engine()),
                severity: formats::severity_code(f.severity()),
                code: code.as_ptr(),
                message: text.as_ptr(),
                offset: f.offset(),
            };
            // SAFETY: `callback` is the caller's function (non-null: `Option` of a fn
            // pointer); `finding` and the two strings it points to live until it returns.
            unsafe { callback(user, &finding) };
        });
        Ok(())
    })
}

/// Displays a finding's message.
struct Msg<'f>(&'f dyn formats::Reported);

impl core::fmt::Display for Msg<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.message(f)
    }
}

/// md5: the model-space joint matrices of a pose into `out` (`count` [`IdmodelJoint`]s,
/// at least the joint count): for an md5mesh its bind pose (`frame` 0), for an md5anim
/// frame `frame` (`components` is scratch of `components_len` floats, at least
/// `info.components`; it may be null for an md5mesh). Doom 3's `frame_local`, `CalcW`
/// and `TransformJoints`. Pair an anim with a mesh of the same joints (names and parents;
/// `idmodel check` says when they differ).
///
/// # Safety
///
/// As [`idmodel_info`]; `components` points to `components_len` writable floats (or is
/// null for an md5mesh); `out` points to `count` writable [`IdmodelJoint`]s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_md5_pose(
    model: *const IdmodelModel,
    frame: u64,
    components: *mut f32,
    components_len: usize,
    out: *mut IdmodelJoint,
    count_: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        let info = p.info();
        let joints = usize::try_from(info.joints).map_err(|_| Fail::TooLarge("joints"))?;
        if !matches!(
            p.format_code(),
            IDMODEL_FORMAT_MD5MESH | IDMODEL_FORMAT_MD5ANIM
        ) {
            return p.md5_pose(frame, &mut [], &mut []);
        }
        let out = out_groups::<IdmodelJoint, 1>("out", out, count_, joints, others)?;
        let out = flatten1(out);
        let mut more = [("out", range_of(out))];
        let comp_others = extend(others, &mut more);
        let needed = usize::try_from(info.components).map_err(|_| Fail::TooLarge("components"))?;
        let comps: &mut [f32] = if p.format_code() == IDMODEL_FORMAT_MD5ANIM {
            let c = out_groups::<f32, 1>(
                "components",
                components,
                components_len,
                needed,
                comp_others.as_slice(),
            )?;
            flatten1(c)
        } else {
            &mut []
        };
        p.md5_pose(frame, comps, out)
    })
}

/// `[[T; 1]]` as `[T]`.
fn flatten1<T>(s: &mut [[T; 1]]) -> &mut [T] {
    s.as_flattened_mut()
}

/// md5mesh: mesh `mesh`'s vertices skinned by `joints` (`joint_count` model-space
/// matrices from [`idmodel_md5_pose`]), as Doom 3's `TransformVerts`: three floats per
/// vertex into `out` (`len` floats). Weights naming a joint past `joint_count` add
/// nothing.
///
/// # Safety
///
/// As [`idmodel_info`]; `joints` points to `joint_count` [`IdmodelJoint`]s, `out` to `len`
/// writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn idmodel_md5_skin(
    model: *const IdmodelModel,
    mesh: u64,
    joints: *const IdmodelJoint,
    joint_count: usize,
    out: *mut f32,
    len: usize,
    err: *mut IdmodelError,
) -> i32 {
    with_model(model, err, |p, others| {
        if !p.format_code() == IDMODEL_FORMAT_MD5MESH {
            return p.md5_skin(mesh, &[], &mut []);
        }
        let n = mesh_count(p, mesh, Per::Vertex)?;
        if joints.is_null() {
            return Err(Fail::Null("joints"));
        }
        if !joints.is_aligned() {
            return Err(Fail::Misaligned("joints"));
        }
        let jbytes = span::<IdmodelJoint>("joints", joint_count)?;
        let mut more = [("joints", (joints.addr(), jbytes))];
        let out_others = extend(others, &mut more);
        let out = out_groups::<f32, 3>("out", out, len, n, out_others.as_slice())?;
        // SAFETY: non-null, aligned, the span fits in `isize`, and the caller's array
        // holds `joint_count` joints (the header's contract); `out` does not overlap it
        // (checked above), so nothing writes it during the call.
        let joints = unsafe { core::slice::from_raw_parts(joints, joint_count) };
        p.md5_skin(mesh, joints, out)
    })
}
