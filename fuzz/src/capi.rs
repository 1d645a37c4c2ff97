//! The C ABI (`idmodel-capi`) called as C would call it: fuzzed model bytes and fuzzed
//! buffer lengths, indices, frames and lerp fractions. Every call returns a code; a
//! too-short array gives `IDMODEL_E_BUFFER_TOO_SMALL` with the length it needs, and an
//! exact one succeeds. (Without the `capi` feature, as when `tests/sweeps.rs` includes
//! this file, it does nothing.)

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    #[cfg(feature = "capi")]
    run_capi(data);
    #[cfg(not(feature = "capi"))]
    let _ = data;
}

/// Lengths and indices drawn from the input's first bytes.
#[cfg(feature = "capi")]
struct Knobs<'a> {
    bytes: &'a [u8],
    at: usize,
}

#[cfg(feature = "capi")]
impl Knobs<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A length around `needed`: exact, short, long, zero.
    fn len(&mut self, needed: usize) -> usize {
        match self.byte() % 4 {
            0 | 1 => needed,
            2 => needed.saturating_sub(usize::from(self.byte()) + 1),
            _ => needed + usize::from(self.byte()),
        }
    }

    /// An index below `count` mostly, sometimes past it.
    fn index(&mut self, count: u64) -> u64 {
        let b = u64::from(self.byte());
        if b >= 240 {
            count + (b - 240)
        } else {
            b % count.max(1)
        }
    }
}

#[cfg(feature = "capi")]
fn run_capi(data: &[u8]) {
    use idmodel_capi::*;
    // The last 16 bytes are knobs, the rest is the model (so real files as seeds
    // keep their headers).
    let (bytes, knobs) = data.split_at(data.len().saturating_sub(16));
    let mut k = Knobs {
        bytes: knobs,
        at: 0,
    };
    let size = idmodel_handle_size();
    let mut m = IdmodelModel::default();
    let mut err = IdmodelError::default();
    // SAFETY (all calls below): every pointer is a live Rust value or a Vec's pointer
    // with that Vec's length.
    let rc = unsafe { idmodel_parse(bytes.as_ptr(), bytes.len(), &mut m, size, &mut err) };
    assert_eq!(rc, err.code);
    let mut info = IdmodelInfo::default();
    if rc != IDMODEL_OK {
        assert!(rc < 0 && err.message[0] != 0, "error without a message");
        assert_eq!(
            unsafe { idmodel_info(&m, &mut info, &mut err) },
            IDMODEL_E_BAD_HANDLE
        );
        return;
    }
    assert_eq!(unsafe { idmodel_info(&m, &mut info, &mut err) }, IDMODEL_OK);
    let short = |rc: i32, err: &IdmodelError, len: usize, needed: usize| {
        if len < needed {
            assert_eq!(rc, IDMODEL_E_BUFFER_TOO_SMALL, "len {len} < {needed}");
            assert_eq!(err.required, needed as u64);
        }
    };
    for _ in 0..2 {
        let mesh = k.index(info.meshes);
        let mut mi = IdmodelMeshInfo::default();
        let rc = unsafe { idmodel_mesh_info(&m, mesh, &mut mi, &mut err) };
        if rc != IDMODEL_OK {
            assert!(mesh >= info.meshes, "mesh_info {mesh}: {rc}");
            continue;
        }
        let (nv, nt) = (mi.vertices as usize, mi.triangles as usize);
        let len = k.len(nt * 3);
        let mut idx = vec![0u32; len];
        let rc = unsafe { idmodel_indices(&m, mesh, idx.as_mut_ptr(), len, &mut err) };
        short(rc, &err, len, nt * 3);
        if rc == IDMODEL_OK && info.format != IDMODEL_FORMAT_MD5MESH {
            assert!(idx[..nt * 3].iter().all(|&i| (i as usize) < nv));
        }
        let len = k.len(nv * 3);
        let (mut p, mut n) = (vec![0f32; len], vec![0f32; len]);
        let (a, b) = (k.index(mi.frames), k.index(mi.frames));
        let back = f32::from(k.byte()) / 255.0;
        let rc = unsafe {
            idmodel_frame(
                &m,
                mesh,
                a,
                b,
                back,
                p.as_mut_ptr(),
                n.as_mut_ptr(),
                len,
                &mut err,
            )
        };
        if info.format != IDMODEL_FORMAT_MD5MESH && a < mi.frames && b < mi.frames {
            short(rc, &err, len, nv * 3);
            if len >= nv * 3 {
                assert_eq!(rc, IDMODEL_OK, "frame {a} {b}");
            }
        } else {
            assert!(rc < 0);
        }
        let len = k.len(nt * 6);
        let mut uv = vec![0f32; len];
        let rc = unsafe { idmodel_corner_uvs(&m, mesh, uv.as_mut_ptr(), len, &mut err) };
        if info.format != IDMODEL_FORMAT_MD5MESH {
            short(rc, &err, len, nt * 6);
        }
        let len = k.len(nv * 2);
        let mut uv = vec![0f32; len];
        let rc = unsafe { idmodel_uvs(&m, mesh, uv.as_mut_ptr(), len, &mut err) };
        if matches!(info.format, IDMODEL_FORMAT_MD3 | IDMODEL_FORMAT_MD5MESH) {
            short(rc, &err, len, nv * 2);
        }
        if info.format == IDMODEL_FORMAT_MD5MESH {
            let nj = info.joints as usize;
            let jl = k.len(nj);
            let mut joints = vec![IdmodelJoint::default(); jl];
            let rc = unsafe {
                idmodel_md5_pose(
                    &m,
                    0,
                    core::ptr::null_mut(),
                    0,
                    joints.as_mut_ptr(),
                    jl,
                    &mut err,
                )
            };
            short(rc, &err, jl, nj);
            let len = k.len(nv * 3);
            let mut out = vec![0f32; len];
            let rc = unsafe {
                idmodel_md5_skin(
                    &m,
                    mesh,
                    joints.as_ptr(),
                    jl,
                    out.as_mut_ptr(),
                    len,
                    &mut err,
                )
            };
            short(rc, &err, len, nv * 3);
        }
    }
    if info.format == IDMODEL_FORMAT_MD5ANIM {
        let (nj, nc) = (info.joints as usize, info.components as usize);
        let (jl, cl) = (k.len(nj), k.len(nc));
        let mut joints = vec![IdmodelJoint::default(); jl];
        let mut comps = vec![0f32; cl];
        let f = k.index(info.frames);
        let rc = unsafe {
            idmodel_md5_pose(
                &m,
                f,
                comps.as_mut_ptr(),
                cl,
                joints.as_mut_ptr(),
                jl,
                &mut err,
            )
        };
        if f < info.frames && jl >= nj && cl >= nc {
            assert_eq!(rc, IDMODEL_OK);
        }
    }
    if info.tags > 0 {
        let mut tag = IdmodelTag::default();
        let (t, a, b) = (
            k.index(info.tags),
            k.index(info.frames),
            k.index(info.frames),
        );
        let rc = unsafe { idmodel_tag(&m, t, a, b, 0.5, &mut tag, &mut err) };
        assert_eq!(
            rc == IDMODEL_OK,
            t < info.tags && a < info.frames && b < info.frames
        );
    }
    unsafe extern "C" fn count(user: *mut core::ffi::c_void, f: *const IdmodelFinding) {
        // SAFETY: `user` is the `usize` below and `f` is valid during the call.
        unsafe {
            *user.cast::<usize>() += 1;
            assert!(!(*f).message.is_null());
        }
    }
    let mut n = 0usize;
    let engine = i32::from(k.byte() % 9) - 1;
    let rc = unsafe {
        idmodel_check(
            &m,
            engine,
            Some(count),
            (&mut n as *mut usize).cast(),
            &mut err,
        )
    };
    // The byte picks -1 (all) to 7: 7 is past IDMODEL_ENGINE_DOOM3, a range error.
    if engine <= IDMODEL_ENGINE_DOOM3 {
        assert_eq!(rc, IDMODEL_OK, "check for engine {engine}");
    } else {
        assert_eq!(rc, IDMODEL_E_RANGE, "check for engine {engine}");
    }
}
