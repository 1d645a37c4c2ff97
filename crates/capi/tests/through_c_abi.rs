//! The extern functions against the format crates' own decoders, bit for bit, on the
//! samples and (with `IDMODEL_CORPUS`) every corpus model; and the argument checks.
// Tests index, unwrap and count freely, and call the unsafe extern functions with live
// Rust buffers (each call's SAFETY is that every pointer is a live slice and its length).
#![allow(clippy::restriction)]

use std::path::{Path, PathBuf};

use idmodel_capi::*;
use idmodel_core::quat::JointMat;

const MODEL_SIZE: usize = core::mem::size_of::<IdmodelModel>();

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

fn model_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = idmodel_test_support::walk(&samples());
    if let Some(dir) = idmodel_test_support::corpus_dir("capi through_c_abi") {
        for sub in ["mdl", "md2", "md3", "md5"] {
            files.extend(idmodel_test_support::walk(&dir.join(sub)));
        }
    }
    files.retain(|p| {
        p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["mdl", "md2", "md3", "md5mesh", "md5anim", "md5camera"]
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x))
        })
    });
    assert!(!files.is_empty());
    files
}

fn parse(bytes: &[u8]) -> (IdmodelModel, i32, IdmodelError) {
    let mut m = IdmodelModel::default();
    let mut err = IdmodelError::default();
    let rc = unsafe { idmodel_parse(bytes.as_ptr(), bytes.len(), &mut m, MODEL_SIZE, &mut err) };
    (m, rc, err)
}

fn info(m: &IdmodelModel) -> IdmodelInfo {
    let mut i = IdmodelInfo::default();
    let mut err = IdmodelError::default();
    assert_eq!(unsafe { idmodel_info(m, &mut i, &mut err) }, IDMODEL_OK);
    i
}

fn mesh_info(m: &IdmodelModel, mesh: u64) -> IdmodelMeshInfo {
    let mut i = IdmodelMeshInfo::default();
    let mut err = IdmodelError::default();
    assert_eq!(
        unsafe { idmodel_mesh_info(m, mesh, &mut i, &mut err) },
        IDMODEL_OK
    );
    i
}

fn frame(m: &IdmodelModel, mesh: u64, old: u64, new: u64, back: f32) -> (Vec<f32>, Vec<f32>) {
    let n = mesh_info(m, mesh).vertices as usize * 3;
    let (mut p, mut q) = (vec![f32::NAN; n], vec![f32::NAN; n]);
    let mut err = IdmodelError::default();
    let rc = unsafe {
        idmodel_frame(
            m,
            mesh,
            old,
            new,
            back,
            p.as_mut_ptr(),
            q.as_mut_ptr(),
            n,
            &mut err,
        )
    };
    assert_eq!(rc, IDMODEL_OK, "{}", message(&err));
    (p, q)
}

fn indices(m: &IdmodelModel, mesh: u64) -> Vec<u32> {
    let n = mesh_info(m, mesh).triangles as usize * 3;
    let mut out = vec![u32::MAX; n];
    let mut err = IdmodelError::default();
    let rc = unsafe { idmodel_indices(m, mesh, out.as_mut_ptr(), n, &mut err) };
    assert_eq!(rc, IDMODEL_OK, "{}", message(&err));
    out
}

fn message(err: &IdmodelError) -> String {
    String::from_utf8(err.message_bytes().collect()).unwrap()
}

fn flat3(v: impl IntoIterator<Item = [f32; 3]>) -> Vec<u32> {
    v.into_iter().flatten().map(f32::to_bits).collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

#[test]
fn every_model_agrees_with_its_format_crate() {
    for path in model_files() {
        let bytes = std::fs::read(&path).unwrap();
        let (m, rc, err) = parse(&bytes);
        let shown = path.display();
        assert_eq!(rc, IDMODEL_OK, "{shown}: {}", message(&err));
        let i = info(&m);
        match i.format {
            IDMODEL_FORMAT_MDL => {
                let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
                assert_eq!(i.frames, mdl.pose_count() as u64, "{shown}");
                assert_eq!(i.vertices, mdl.vertex_count() as u64);
                // backlerp 0: exactly the pose's decoded positions and table normals.
                let last = mdl.pose_count() - 1;
                let (p, n) = frame(&m, 0, 0, last as u64, 0.0);
                let pose = mdl.pose(last).unwrap();
                assert_eq!(bits(&p), flat3(pose.positions()), "{shown}");
                assert_eq!(bits(&n), flat3(pose.normals()), "{shown}");
                // backlerp 1: the old pose.
                let (p, _) = frame(&m, 0, 0, last as u64, 1.0);
                assert_eq!(bits(&p), flat3(mdl.pose(0).unwrap().positions()), "{shown}");
                let want: Vec<u32> = mdl.triangle_indices().flatten().map(|x| x as u32).collect();
                assert_eq!(indices(&m, 0), want);
            }
            IDMODEL_FORMAT_MD2 => {
                let md2 = idmodel_md2::Md2::parse(&bytes).unwrap();
                assert_eq!(i.frames, md2.frame_count() as u64);
                let last = md2.frame_count() - 1;
                let (a, b) = (md2.frame(0).unwrap(), md2.frame(last).unwrap());
                let (p, n) = frame(&m, 0, 0, last as u64, 0.25);
                assert_eq!(
                    bits(&p),
                    flat3(idmodel_md2::lerp_positions(&a, &b, 0.25)),
                    "{shown}"
                );
                assert_eq!(bits(&n), flat3(b.normals()), "{shown}");
                let want: Vec<u32> = md2
                    .triangles()
                    .iter()
                    .flat_map(|t| idmodel_md2::Triangle::from_raw(t).xyz.map(u32::from))
                    .collect();
                assert_eq!(indices(&m, 0), want);
            }
            IDMODEL_FORMAT_MD3 => {
                let md3 = idmodel_md3::Md3::parse(&bytes).unwrap();
                assert_eq!(i.meshes, md3.num_surfaces() as u64);
                for s in md3.surfaces() {
                    let k = s.index() as u64;
                    let last = s.num_frames() - 1;
                    let nv = s.num_verts();
                    let (mut wp, mut wn) = (vec![[0.0; 3]; nv], vec![[0.0; 3]; nv]);
                    s.lerp_into(
                        0,
                        last,
                        0.5,
                        idmodel_md3::NormalDecode::Exact,
                        &mut wp,
                        &mut wn,
                    )
                    .unwrap();
                    let (p, n) = frame(&m, k, 0, last as u64, 0.5);
                    assert_eq!(bits(&p), flat3(wp), "{shown}");
                    assert_eq!(bits(&n), flat3(wn), "{shown}");
                    let want: Vec<u32> = s.indices().flatten().collect();
                    assert_eq!(indices(&m, k), want);
                }
                for (t, name) in md3.tag_names().enumerate() {
                    let mut tag = IdmodelTag::default();
                    let mut err = IdmodelError::default();
                    let last = md3.num_frames() as u64 - 1;
                    let rc = unsafe { idmodel_tag(&m, t as u64, 0, last, 0.3, &mut tag, &mut err) };
                    assert_eq!(rc, IDMODEL_OK);
                    let want = md3
                        .lerp_tag(name.as_bytes(), 0, last as usize, 0.3)
                        .unwrap();
                    assert_eq!(tag.origin, want.origin);
                    assert_eq!(tag.axis, want.axis);
                }
            }
            IDMODEL_FORMAT_MD5MESH => {
                let file = idmodel_md5::mesh::parse(&bytes).unwrap();
                let mut joints = vec![IdmodelJoint::default(); i.joints as usize];
                let mut err = IdmodelError::default();
                let rc = unsafe {
                    idmodel_md5_pose(
                        &m,
                        0,
                        core::ptr::null_mut(),
                        0,
                        joints.as_mut_ptr(),
                        joints.len(),
                        &mut err,
                    )
                };
                assert_eq!(rc, IDMODEL_OK, "{}", message(&err));
                let mut bind = vec![JointMat::IDENTITY; file.num_joints()];
                file.bind_pose(&mut bind);
                for (a, b) in joints.iter().zip(&bind) {
                    assert_eq!(a.m, b.m);
                }
                for mesh in file.meshes() {
                    let k = mesh.index() as u64;
                    let mut want = vec![[0.0; 3]; mesh.num_vertices()];
                    mesh.skin(&bind, &mut want);
                    let mut got = vec![f32::NAN; want.len() * 3];
                    let rc = unsafe {
                        idmodel_md5_skin(
                            &m,
                            k,
                            joints.as_ptr(),
                            joints.len(),
                            got.as_mut_ptr(),
                            got.len(),
                            &mut err,
                        )
                    };
                    assert_eq!(rc, IDMODEL_OK, "{}", message(&err));
                    assert_eq!(bits(&got), flat3(want), "{shown}");
                    let tris: Vec<u32> = mesh.triangles().flatten().collect();
                    assert_eq!(indices(&m, k), tris);
                }
            }
            IDMODEL_FORMAT_MD5ANIM => {
                let anim = idmodel_md5::anim::Anim::parse(&bytes).unwrap();
                let nj = anim.hierarchy.len();
                let mut comps = vec![0.0f32; i.components as usize];
                let mut joints = vec![IdmodelJoint::default(); nj];
                let mut local = vec![idmodel_md5::pose::JointPose::IDENTITY; nj];
                let mut want = vec![JointMat::IDENTITY; nj];
                for f in [0, anim.num_frames() - 1] {
                    let mut err = IdmodelError::default();
                    let rc = unsafe {
                        idmodel_md5_pose(
                            &m,
                            f as u64,
                            comps.as_mut_ptr(),
                            comps.len(),
                            joints.as_mut_ptr(),
                            nj,
                            &mut err,
                        )
                    };
                    assert_eq!(rc, IDMODEL_OK, "{}", message(&err));
                    anim.local_pose(f, &mut local);
                    idmodel_md5::pose::model_space(&anim.hierarchy, &local, &mut want);
                    for (a, b) in joints.iter().zip(&want) {
                        assert_eq!(a.m, b.m, "{shown} frame {f}");
                    }
                }
            }
            IDMODEL_FORMAT_MD5CAMERA => {}
            other => panic!("{shown}: format {other}"),
        }
    }
}

/// Every malformed corpus file is refused with a message, or (where idmodel reads it
/// because the engine loads it: ARCHITECTURE.md rule 1) gets at least a hazard from
/// `idmodel_check`.
#[test]
fn malformed_corpus_files_are_errors_or_hazards() {
    let Some(dir) = idmodel_test_support::corpus_dir("capi malformed") else {
        return;
    };
    let files = idmodel_test_support::walk(&dir.join("malformed"));
    assert!(!files.is_empty());
    let mut refused = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let (m, rc, err) = parse(&bytes);
        assert_eq!(err.code, rc);
        if rc != IDMODEL_OK {
            assert!(rc < 0, "{}", path.display());
            assert!(!message(&err).is_empty());
            let mut i = IdmodelInfo::default();
            assert_eq!(
                unsafe { idmodel_info(&m, &mut i, core::ptr::null_mut()) },
                IDMODEL_E_BAD_HANDLE
            );
            refused += 1;
            continue;
        }
        unsafe extern "C" fn worst(user: *mut core::ffi::c_void, f: *const IdmodelFinding) {
            let w = unsafe { &mut *user.cast::<i32>() };
            *w = (*w).max(unsafe { (*f).severity });
        }
        let mut w = -1i32;
        assert_eq!(check_all(&m, worst, &mut w), IDMODEL_OK);
        assert!(
            w >= IDMODEL_SEVERITY_HAZARD,
            "{} parsed without a hazard",
            path.display()
        );
    }
    assert!(refused > 0);
}

#[test]
fn parse_errors_carry_the_byte_offset_of_the_format_crate() {
    let bytes = std::fs::read(samples().join("sample.md3")).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let want = idmodel_md3::Md3::parse(cut).unwrap_err();
    let (_, rc, err) = parse(cut);
    assert_eq!(rc, IDMODEL_E_PARSE);
    assert_eq!(err.offset, want.offset());
    assert_eq!(message(&err), format!("md3: {want}"));
}

#[test]
fn short_arrays_say_what_they_need_and_are_not_written() {
    let bytes = std::fs::read(samples().join("sample.mdl")).unwrap();
    let (m, rc, _) = parse(&bytes);
    assert_eq!(rc, IDMODEL_OK);
    let mi = mesh_info(&m, 0);
    let need = mi.vertices as usize * 3;
    let mut p = vec![7.0f32; need];
    let mut n = vec![7.0f32; need];
    let mut err = IdmodelError::default();
    let rc = unsafe {
        idmodel_frame(
            &m,
            0,
            0,
            0,
            0.0,
            p.as_mut_ptr(),
            n.as_mut_ptr(),
            need - 1,
            &mut err,
        )
    };
    assert_eq!(rc, IDMODEL_E_BUFFER_TOO_SMALL);
    assert_eq!(err.required, need as u64);
    assert!(p.iter().chain(&n).all(|&x| x == 7.0));
    // The storage for the handle too.
    let mut small = IdmodelModel::default();
    let rc = unsafe {
        idmodel_parse(
            bytes.as_ptr(),
            bytes.len(),
            &mut small,
            MODEL_SIZE - 1,
            &mut err,
        )
    };
    assert_eq!(rc, IDMODEL_E_BUFFER_TOO_SMALL);
    assert_eq!(err.required, idmodel_handle_size() as u64);
}

#[test]
fn null_and_overlapping_pointers_are_errors() {
    let bytes = std::fs::read(samples().join("sample.md2")).unwrap();
    let (m, _, _) = parse(&bytes);
    let need = mesh_info(&m, 0).vertices as usize * 3;
    let mut p = vec![0.0f32; need * 2];
    let mut err = IdmodelError::default();
    let null = core::ptr::null_mut();
    assert_eq!(
        unsafe { idmodel_frame(&m, 0, 0, 0, 0.0, null, p.as_mut_ptr(), need, &mut err) },
        IDMODEL_E_NULL
    );
    assert_eq!(
        unsafe { idmodel_frame(core::ptr::null(), 0, 0, 0, 0.0, null, null, 0, &mut err) },
        IDMODEL_E_NULL
    );
    // normals start one float into positions.
    let base = p.as_mut_ptr();
    let rc = unsafe { idmodel_frame(&m, 0, 0, 0, 0.0, base, base.add(3), need, &mut err) };
    assert_eq!(rc, IDMODEL_E_OVERLAP, "{}", message(&err));
    // Without an error struct the code still comes back.
    assert_eq!(
        unsafe { idmodel_info(&m, core::ptr::null_mut(), core::ptr::null_mut()) },
        IDMODEL_E_NULL
    );
    let mut info = IdmodelInfo::default();
    let mut zero = IdmodelModel::default();
    assert_eq!(
        unsafe { idmodel_info(&zero, &mut info, &mut err) },
        IDMODEL_E_BAD_HANDLE
    );
    let (mut again, _, _) = parse(&bytes);
    unsafe { idmodel_release(&mut again) };
    assert_eq!(
        unsafe { idmodel_info(&again, &mut info, &mut err) },
        IDMODEL_E_BAD_HANDLE
    );
    unsafe { idmodel_release(&mut zero) };
}

/// `idmodel_check` of every engine on `m`, calling `callback` with `user`; its return.
fn check_all<T>(
    m: &IdmodelModel,
    callback: unsafe extern "C" fn(*mut core::ffi::c_void, *const IdmodelFinding),
    user: &mut T,
) -> i32 {
    let mut err = IdmodelError::default();
    let user = (user as *mut T).cast();
    unsafe { idmodel_check(m, IDMODEL_ENGINE_ALL, Some(callback), user, &mut err) }
}

/// Every finding of `engines`, as `Display` writes it.
fn messages<F: std::fmt::Display>(
    engines: &[idmodel_core::Engine],
    findings: impl Fn(idmodel_core::Engine) -> Vec<F>,
) -> Vec<String> {
    engines
        .iter()
        .flat_map(|&e| findings(e))
        .map(|f| f.to_string())
        .collect()
}

#[test]
fn check_reports_what_the_format_crate_reports() {
    for path in model_files() {
        let bytes = std::fs::read(&path).unwrap();
        let (m, _, _) = parse(&bytes);
        let mut seen: Vec<(i32, i32, String, String)> = Vec::new();
        unsafe extern "C" fn collect(user: *mut core::ffi::c_void, f: *const IdmodelFinding) {
            let seen = unsafe { &mut *user.cast::<Vec<(i32, i32, String, String)>>() };
            let f = unsafe { &*f };
            let s = |p| {
                unsafe { core::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            };
            seen.push((f.engine, f.severity, s(f.code), s(f.message)));
        }
        assert_eq!(check_all(&m, collect, &mut seen), IDMODEL_OK);
        let want: Vec<String> = match info(&m).format {
            IDMODEL_FORMAT_MDL => {
                let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
                messages(idmodel_mdl::ENGINES, |e| mdl.findings(e))
            }
            IDMODEL_FORMAT_MD2 => {
                let md2 = idmodel_md2::Md2::parse(&bytes).unwrap();
                messages(idmodel_md2::ENGINES, |e| md2.findings(e))
            }
            IDMODEL_FORMAT_MD3 => messages(idmodel_md3::ENGINES, |e| {
                idmodel_md3::Md3::parse(&bytes).unwrap().findings(e)
            }),
            _ => continue,
        };
        let got: Vec<String> = seen
            .iter()
            .map(|(e, s, _, msg)| {
                let engine = unsafe { core::ffi::CStr::from_ptr(idmodel_engine_name(*e)) };
                let sev = ["warning", "hazard", "refused"][*s as usize];
                format!("{}: {sev}: {msg}", engine.to_str().unwrap())
            })
            .collect();
        assert_eq!(got, want, "{}", path.display());
    }
}
