//! The bodies of the fuzz targets, as plain functions.
//!
//! Each `fuzz_targets/<name>.rs` calls `<name>::run(data)`, and `tests/regressions.rs`
//! replays every file under `regressions/<name>/` through the same function from an
//! ordinary `cargo test`, so a crasher found once stays fixed.
//!
//! These are harnesses, not library code: they `assert!` and `unwrap` on purpose (a
//! failed assertion is a finding), so the workspace's panic-freedom lints are not
//! applied to this crate (its manifest does not opt into `[lints] workspace = true`).

/// Format detection and the shared byte helpers never panic on any input.
pub mod detect {
    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let _ = idmodel::detect(data);
        let _ = idmodel_core::bytes::Name::from_field(data).to_str();
        if data.len() >= 2 {
            let n = u16::from_le_bytes([data[0], data[1]]);
            let a = idmodel_core::md3_normal::decode_exact(n);
            let b = idmodel_core::md3_normal::encode(a);
            let _ = idmodel_core::md3_normal::decode_ideal(b);
        }
    }
}

/// The command line's `info` and `check` paths (`idmodel info [--json]`, `idmodel check`)
/// on any bytes: never a panic, and every answer in the shape the command promises (the
/// JSON on one line, every error on one line naming the file).
pub mod cli_info {
    /// Runs the target on one input; panics on a finding. (Without the `cli` feature,
    /// as when `tests/sweeps.rs` includes this file, it does nothing.)
    pub fn run(data: &[u8]) {
        #[cfg(feature = "cli")]
        run_cli(data);
        #[cfg(not(feature = "cli"))]
        let _ = data;
    }

    #[cfg(feature = "cli")]
    fn run_cli(data: &[u8]) {
        use std::path::Path;
        // A folder that does not exist: MD3 sidecar lookups find nothing, nothing is read.
        let path = Path::new("/nonexistent/idmodel-fuzz/model");
        let name = path.display().to_string();
        let one_line = |e: &str| {
            assert!(e.starts_with(&name), "error does not name the file: {e}");
            assert!(!e.contains(['\n', '\r']), "error is not one line: {e:?}");
        };
        match idmodel_cli::info_report(path, data, true) {
            Ok(json) => {
                assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
                assert!(!json.contains('\n'), "JSON is not one line");
                let text = idmodel_cli::info_report(path, data, false).unwrap();
                assert!(text.starts_with(&name), "{text}");
            }
            Err(e) => {
                one_line(&e);
                // The text form refuses the same input with the same message.
                assert_eq!(idmodel_cli::info_report(path, data, false), Err(e));
            }
        }
        match idmodel_cli::check_report(path, data, None) {
            Ok((report, _clean)) => {
                for l in report.lines() {
                    assert!(l.starts_with(&name), "finding does not name the file: {l}");
                }
            }
            Err(e) => one_line(&e),
        }
    }
}

/// Quake MDL: parse, then walk every accessor, decode every pose and skin, run every
/// engine check and build the welded mesh under both seam rules. Nothing may panic.
pub mod mdl {
    use idmodel::mdl::{
        AnimRule, ENGINES, Mdl, SeamRule, SkinOptions, fullbright_mask, skin_to_rgba_vec,
    };

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(m) = Mdl::parse(data) else {
            return;
        };
        let _ = (
            m.scale(),
            m.origin(),
            m.eye_position(),
            m.size(),
            m.flags().trail(),
            m.trailing().len(),
        );
        let _ = m.triangle_indices().count();
        let opts = SkinOptions {
            transparent_255: m.flags().holey(),
            ..SkinOptions::default()
        };
        for skin in m.skins() {
            let _ = skin.intervals().count();
            for rule in [AnimRule::Software, AnimRule::Gl] {
                let _ = skin.image_at(2.5, 0.3, rule);
            }
            for image in skin.images() {
                let rgba = skin_to_rgba_vec(image, &opts);
                assert_eq!(rgba.len(), image.len() * 4);
                let mut mask = vec![0u8; image.len()];
                fullbright_mask(image, &mut mask);
            }
        }
        for frame in m.frames() {
            let _ = (frame.name(), frame.bbox_min(), frame.bbox_max());
            for rule in [AnimRule::Software, AnimRule::Gl] {
                if let Some(p) = frame.pose_at(7.1, 0.4, rule) {
                    assert!(p < frame.pose_count());
                }
            }
        }
        let mut poses = 0usize;
        for pose in m.poses() {
            let _ = (pose.name().to_str(), pose.bbox_min(), pose.bbox_max());
            assert_eq!(pose.positions().count(), m.vertex_count());
            let _ = pose.normals().count();
            poses += 1;
        }
        assert_eq!(poses, m.pose_count());
        for i in [0, m.pose_count() / 2, m.pose_count().saturating_sub(1)] {
            assert!(m.pose(i).is_some());
        }
        for rule in [SeamRule::Gl, SeamRule::Software] {
            let _ = m.triangle_uvs(rule).count();
            let mesh = m.welded_mesh(rule);
            assert!(
                mesh.indices
                    .iter()
                    .all(|&i| (i as usize) < mesh.vertices.len())
            );
            if let Some(p) = m.pose(0) {
                let _ = mesh.positions(&p);
                let _ = mesh.normals(&p);
            }
        }
        for p in ENGINES {
            m.check(*p, &mut |f| {
                let _ = f.to_string();
            });
        }
        let _ = m.animations().count();
    }
}

/// Quake MDL round trip: whatever parses converts to the owned model, writes back to the
/// same bytes (type words normalised to 0/1), and parses again to the same model.
pub mod mdl_roundtrip {
    use idmodel::mdl::{Mdl, Model};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(m) = Mdl::parse(data) else {
            return;
        };
        let model = Model::from(&m);
        let bytes = model.write().expect("a parsed model is always writable");
        assert_eq!(bytes.len(), model.written_size().unwrap());
        let again = Mdl::parse(&bytes).expect("written bytes parse");
        let back = Model::from(&again);
        // Compare the written bytes: NaN intervals make `==` on floats unreliable.
        assert_eq!(back.write().unwrap(), bytes);
        let canonical = m.skins().all(|s| s.type_word() == 0 || s.type_word() == 1)
            && m.frames().all(|f| f.type_word() == 0 || f.type_word() == 1);
        if canonical {
            assert_eq!(&bytes[..], data);
        }
    }
}

/// MD2 parsing never panics, and on what parses every accessor, decoder and the checker
/// walk the whole model: every frame, both mesh topologies, the GL commands, findings.
pub mod md2 {
    use idmodel::md2::{Engine, Md2, MeshVertex, lerp_positions};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(md2) = Md2::parse(data) else {
            return;
        };
        let _ = Md2::parse_strict(data);
        let _ = md2.gl_commands_look_swapped();
        for s in md2.skins() {
            let _ = s.to_str();
        }
        let mut pos = vec![[0.0f32; 3]; md2.vertex_count()];
        let mut nrm = vec![[0.0f32; 3]; md2.vertex_count()];
        for f in md2.frames() {
            assert_eq!(f.positions_into(&mut pos).ok(), Some(md2.vertex_count()));
            assert_eq!(f.normals_into(&mut nrm).ok(), Some(md2.vertex_count()));
            let _ = f.name().to_str();
        }
        let a = md2.frame_or_first(0);
        let b = md2.frame_or_first(md2.frame_count().wrapping_sub(1));
        assert_eq!(lerp_positions(&a, &b, 0.5).count(), md2.vertex_count());
        for cmd in md2.gl_commands() {
            for t in 0..cmd.triangle_count() {
                let tri = cmd.triangle(t).unwrap_or([0; 3]);
                assert!(tri.iter().all(|&i| i < cmd.vertices.len()));
            }
        }
        let sizes = md2.soft_mesh_sizes();
        let mut verts = vec![MeshVertex::default(); sizes.vertices];
        let mut idx = vec![0u32; sizes.indices];
        if let Ok(n) = md2.soft_mesh_into(&mut verts, &mut idx) {
            assert!(idx.iter().all(|&i| usize::try_from(i).is_ok_and(|i| i < n)));
        }
        let gl = md2.gl_mesh();
        assert_eq!(gl.indices.len(), 3 * md2.gl_triangle_count());
        let _ = md2.animations().count();
        for f in md2.findings(Engine::Quake2) {
            let _ = f.to_string();
        }
    }
}

/// What parses converts to an owned model; when the writer accepts it, the written file
/// parses strictly, converts back to an equal model (bitwise, NaNs included) and writes
/// the same bytes again.
pub mod md2_roundtrip {
    use idmodel::md2::{Engine, Md2, Model, write};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(md2) = Md2::parse(data) else {
            return;
        };
        let model = Model::from(md2);
        let Ok(bytes) = write(&model) else {
            return;
        };
        let again = Md2::parse_strict(&bytes).expect("written file parses strictly");
        assert!(
            !again
                .findings(Engine::Quake2)
                .iter()
                .any(|f| matches!(f.kind, idmodel::md2::FindingKind::GlMismatch { .. })),
            "generated GL commands disagree with the triangles"
        );
        let back = Model::from(again);
        assert_eq!(
            write(&back).ok(),
            Some(bytes.clone()),
            "second write differs"
        );
        assert_eq!(back.triangles, model.triangles);
        assert_eq!(back.st, model.st);
        assert_eq!(back.skins, model.skins);
        for (x, y) in back.frames.iter().zip(&model.frames) {
            assert_eq!(x.vertices, y.vertices);
            assert_eq!(x.name, y.name);
            assert_eq!(x.scale.map(f32::to_bits), y.scale.map(f32::to_bits));
            assert_eq!(x.translate.map(f32::to_bits), y.translate.map(f32::to_bits));
        }
    }
}

/// MD3: parse, then walk every accessor, decode every frame (both normal decodes, lerped),
/// every tag, and run every check. Nothing may panic.
pub mod md3 {
    use idmodel::md3::{ENGINES, Md3, NormalDecode};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(m) = Md3::parse(data) else {
            return;
        };
        let _ = (
            m.name().to_string(),
            m.flags(),
            m.num_skins(),
            m.trailing_bytes().len(),
        );
        for f in m.frames() {
            let _ = (
                f.mins(),
                f.maxs(),
                f.local_origin(),
                f.radius(),
                f.name().to_string(),
            );
        }
        let frames = m.num_frames();
        for s in m.surfaces() {
            let n = s.num_verts();
            let _ = (
                s.name().to_string(),
                s.engine_name().to_string(),
                s.offset(),
            );
            for sh in s.shaders() {
                let _ = sh.name().to_string();
            }
            for tri in s.indices() {
                assert!(tri.iter().all(|&i| (i as usize) < n));
            }
            assert_eq!(s.tex_coords().count(), n);
            let mut p = vec![[0.0f32; 3]; n];
            let mut nr = vec![[0.0f32; 3]; n];
            for f in 0..s.num_frames() {
                s.decode_frame(f, NormalDecode::Exact, &mut p, &mut nr)
                    .unwrap();
                s.lerp_into(f, 0, 0.25, NormalDecode::Exact, &mut p, &mut nr)
                    .unwrap();
                s.lerp_into(0, f, 0.75, NormalDecode::Ideal, &mut p, &mut nr)
                    .unwrap();
                assert_eq!(s.positions(f).unwrap().count(), n);
                assert_eq!(s.normals(f, NormalDecode::Ideal).unwrap().count(), n);
            }
            let (a, b) = m.engine_frames(frames, 0);
            assert_eq!((a, b), (0, 0));
        }
        for t in m.all_tags() {
            for f in 0..frames {
                let _ = m.lerp_tag(t.name().as_bytes(), f, frames, 0.5);
            }
        }
        for p in ENGINES {
            m.check(*p, &mut |f| {
                let _ = f.to_string();
            });
        }
    }
}

/// MD3 round trip: whatever parses and the writer accepts is written, parsed again, and
/// written again to the same bytes (compared as bytes so NaN floats compare equal).
pub mod md3_roundtrip {
    use idmodel::md3::{Md3, Model, write, written_size};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(m) = Md3::parse(data) else {
            return;
        };
        let owned = Model::from(m);
        let Ok(bytes) = write(&owned) else {
            return;
        };
        assert_eq!(written_size(&owned).unwrap(), bytes.len());
        let again = Md3::parse(&bytes).expect("the writer's output parses");
        assert_eq!(again.num_frames(), m.num_frames());
        assert_eq!(again.num_surfaces(), m.num_surfaces());
        let twice = write(&Model::from(again)).expect("a re-parsed model is writable");
        assert_eq!(twice, bytes);
    }
}

/// `.skin`: parsing and iterating never panic, the iterator makes progress and agrees with
/// the counts from `parse`, and the checks run.
pub mod md3_skin {
    use idmodel::md3::{ENGINES, Skin};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(skin) = Skin::parse(data) else {
            return;
        };
        let mut n = 0usize;
        for e in skin.entries() {
            n += 1;
            assert!(!e.name.is_empty());
            assert!(n <= data.len(), "the entry iterator does not make progress");
            let _ = e.matches(b"h_head");
        }
        assert_eq!(n, skin.num_surfaces() + skin.num_tags());
        for p in ENGINES {
            skin.check(None, *p, &mut |f| {
                let _ = f.to_string();
            });
            let _ = skin.shader_for(b"u_torso", *p);
        }
    }
}

/// `animation.cfg`: parsing, raw entries, the Quake III interpretation and the checks
/// never panic; the raw entry iterator makes progress.
pub mod md3_animcfg {
    use idmodel::md3::{AnimationCfg, Engine};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(cfg) = AnimationCfg::parse(data) else {
            return;
        };
        let _ = (
            cfg.footsteps(),
            cfg.gender(),
            cfg.head_offset(),
            cfg.fixed_legs(),
        );
        let n = cfg.raw_entries().count();
        assert!(
            n <= data.len() / 4 + 1,
            "the raw entry iterator does not make progress"
        );
        if let Ok(q3) = cfg.q3() {
            assert!((25..=31).contains(&q3.from_file()));
            for (id, a) in q3.iter() {
                assert_eq!(q3.by_name(id.name()), Some(a));
            }
        }
        cfg.check(Some((100, 100)), Engine::Ioq3, &mut |f| {
            let _ = f.to_string();
        });
    }
}

/// md5mesh: parsing never panics, with either comment rule; whatever parses has every
/// accessor walked (joints, meshes, vertices, triangles, weights, skinning, findings);
/// and the lexer always makes progress (each token moves the position forward, so no
/// input can make it loop).
pub mod md5mesh {
    use idmodel::md5::lexer::{CommentRule, Lexer};
    use idmodel::md5::{Engine, ParseOptions, mesh};
    use idmodel_core::quat::JointMat;

    /// The lexer makes progress on every token, in order, and stops within `data.len()`
    /// tokens (the md5anim and md5camera targets run it too).
    pub(crate) fn progress(data: &[u8], concat: bool, rule: CommentRule) {
        let mut lex = Lexer::new(data, concat, rule);
        let mut last = 0usize;
        let mut tokens = 0usize;
        while let Ok(Some(t)) = lex.next_token() {
            assert!(t.offset >= last, "token before the previous end");
            assert!(lex.pos() > last, "no progress at byte {last}");
            last = lex.pos();
            tokens += 1;
            assert!(tokens <= data.len(), "more tokens than bytes");
        }
    }

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        progress(data, true, CommentRule::Engine);
        progress(data, true, CommentRule::Strict);
        for comments in [CommentRule::Engine, CommentRule::Strict] {
            let opts = ParseOptions {
                comments,
                require_element_indices: false,
            };
            let Ok(file) = mesh::parse_with(data, opts) else {
                continue;
            };
            let _ = file.findings(Engine::Doom3);
            let _ = file.commandline().to_string_lossy();
            let mut mats = vec![JointMat::IDENTITY; file.num_joints()];
            assert_eq!(file.bind_pose(&mut mats), file.num_joints());
            assert_eq!(file.joints().count(), file.num_joints());
            let mut n = 0;
            for m in file.meshes() {
                n += 1;
                let _ = (m.name(), m.shader().len());
                assert_eq!(m.vertices().count(), m.num_vertices());
                assert!(
                    m.triangles()
                        .flatten()
                        .all(|v| (v as usize) < m.num_vertices())
                );
                assert!(m.weights().all(|w| (w.joint as usize) < file.num_joints()));
                let mut out = vec![[0.0; 3]; m.num_vertices()];
                assert_eq!(m.skin(&mats, &mut out), m.num_vertices());
            }
            assert_eq!(n, file.num_meshes());
            let owned = mesh::Model::from(&file);
            let _ = owned.findings(Engine::Doom3);
            for m in &owned.meshes {
                let positions: Vec<[f32; 3]> = {
                    let mut out = vec![[0.0; 3]; m.vertices.len()];
                    idmodel::md5::skinning::skin(&m.vertices, &m.weights, &mats, &mut out);
                    out
                };
                let uv: Vec<[f32; 2]> = m.vertices.iter().map(|v| v.uv).collect();
                let setup = idmodel::md5::normals::DoomTangents::new(&positions, &uv, &m.triangles);
                let _ = setup.derive(&positions);
                let mut normals = vec![[0.0; 3]; positions.len()];
                idmodel::md5::normals::area_weighted_normals(
                    &positions,
                    &m.triangles,
                    &mut normals,
                );
            }
        }
    }
}

/// md5anim: parsing never panics; whatever parses has every accessor walked and is
/// evaluated (frames, blended times with both root-motion modes, model space); the lexer
/// always makes progress.
pub mod md5anim {
    use idmodel::md5::Engine;
    use idmodel::md5::anim::{self, Anim};
    use idmodel::md5::lexer::CommentRule;
    use idmodel::md5::pose::{self, JointPose, RootMotion};
    use idmodel_core::quat::JointMat;

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        super::md5mesh::progress(data, false, CommentRule::Engine);
        let Ok(file) = anim::parse(data) else {
            return;
        };
        let _ = file.findings(Engine::Doom3);
        assert_eq!(file.hierarchy().count(), file.num_joints());
        assert_eq!(file.bounds().count(), file.num_frames());
        assert_eq!(file.base_frame().count(), file.num_joints());
        let mut frames = 0;
        for f in file.frames() {
            frames += 1;
            assert_eq!(f.components().count(), file.num_animated_components());
        }
        assert_eq!(frames, file.num_frames());
        let a = Anim::from(&file);
        let _ = a.findings(Engine::Doom3);
        let _ = a.length_ms();
        let n = a.hierarchy.len();
        let mut local = vec![JointPose::IDENTITY; n];
        let mut scratch = local.clone();
        let mut model = vec![JointMat::IDENTITY; n];
        for f in 0..a.num_frames().min(8) {
            a.local_pose(f, &mut local);
            pose::model_space(&a.hierarchy, &local, &mut model);
        }
        for t in [-1, 0, 1, 17, 999, 123_456, i32::MAX] {
            for root in [RootMotion::Raw, RootMotion::Extract] {
                a.local_pose_at(t, root, &mut scratch, &mut local);
            }
        }
    }
}

/// md5camera: parsing never panics; whatever parses has its cuts and frames walked and
/// is sampled at many times, never blending a cut frame forward when cuts ascend; the
/// lexer always makes progress.
pub mod md5camera {
    use idmodel::md5::Engine;
    use idmodel::md5::camera::{self, Camera};
    use idmodel::md5::lexer::CommentRule;

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        super::md5mesh::progress(data, false, CommentRule::Engine);
        let Ok(file) = camera::parse(data) else {
            return;
        };
        let _ = file.findings(Engine::Doom3);
        assert_eq!(file.cuts().count(), file.num_cuts());
        assert_eq!(file.frames().count(), file.num_frames());
        let c = Camera::from(&file);
        let ascending = c.cuts.windows(2).all(|w| w[0] <= w[1]);
        for t in [-5i64, 0, 1, 33, 500, 1001, 60_000, i64::MAX] {
            let s = c.sample(t);
            assert!(s.frame < c.frames.len() && s.next < c.frames.len());
            if ascending && s.lerp > 0.0 {
                assert!(!c.cuts.contains(&(s.frame as u32)));
            }
        }
        let _ = c.duration_ms();
    }
}

/// MD5 round trip: whatever parses as an md5mesh, md5anim or md5camera converts to the
/// owned form; if it is writable (no NaN or infinite values), the text parses back to
/// an equal model and writing that again gives the same bytes.
pub mod md5_roundtrip {
    use idmodel::md5::{anim, camera, mesh};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        if let Ok(m) = mesh::Model::parse(data)
            && let Ok(text) = mesh::write(&m)
        {
            assert_eq!(mesh::written_size(&m).unwrap(), text.len());
            let back = mesh::Model::parse(&text).expect("written md5mesh parses");
            assert_eq!(back, m);
            assert_eq!(mesh::write(&back).unwrap(), text);
        }
        if let Ok(a) = anim::Anim::parse(data)
            && let Ok(text) = anim::write(&a)
        {
            let back = anim::Anim::parse(&text).expect("written md5anim parses");
            assert_eq!(back, a);
            assert_eq!(anim::write(&back).unwrap(), text);
        }
        if let Ok(c) = camera::Camera::parse(data)
            && let Ok(text) = camera::write(&c)
        {
            let back = camera::Camera::parse(&text).expect("written md5camera parses");
            assert_eq!(back, c);
            assert_eq!(camera::write(&back).unwrap(), text);
        }
    }
}

/// A target's body: runs one input, panics on a finding.
pub type Target = fn(&[u8]);

/// What a hostile file reaches when it is converted: every format's scene adapter (the
/// whole animation and one posed frame), the GLB writer, the OBJ writer and the software
/// renderer. Never a panic; a GLB that is written starts like one, and its JSON chunk is
/// JSON; an OBJ has no NaN or infinity.
pub mod convert {
    use idmodel::Format;
    use idmodel_scene::axes::Axes;
    use idmodel_scene::render::{RenderOptions, render};
    use idmodel_scene::{Options, Scene, md2, md3, md5, mdl};

    /// The animated scene and one posed frame of `data`, when it is a model that parses.
    fn scenes(data: &[u8]) -> Vec<Scene> {
        let all = Options::default();
        let mut out = Vec::new();
        let mut keep = |r: Result<Scene, idmodel_scene::Error>| {
            if let Ok(s) = r {
                out.push(s);
            } else if let Err(e) = r {
                let m = e.to_string();
                assert!(
                    !m.is_empty() && !m.contains('\n'),
                    "error not one line: {m:?}"
                );
            }
        };
        match idmodel::detect(data) {
            Some(Format::Mdl) => {
                if let Ok(m) = idmodel::mdl::Mdl::parse(data) {
                    keep(mdl::scene(&m, "m", &all));
                    keep(mdl::frame(&m, "m", &all));
                }
            }
            Some(Format::Md2) => {
                if let Ok(m) = idmodel::md2::Md2::parse(data) {
                    keep(md2::scene(&m, "m", &all));
                    keep(md2::frame(&m, "m", &all));
                }
            }
            Some(Format::Md3) => {
                if let Ok(m) = idmodel::md3::Md3::parse(data) {
                    let side = md3::Sidecars::default();
                    keep(md3::scene(&m, "m", &side, &all));
                    keep(md3::frame(&m, "m", &side, &all));
                }
            }
            Some(Format::Md5Mesh) => {
                if let Ok(m) = idmodel::md5::mesh::Model::parse(data) {
                    keep(md5::mesh::scene(&m, "m", &[], &all));
                    keep(md5::mesh::frame(&m, "m", &[], &all));
                }
            }
            Some(Format::Md5Anim) => {
                if let Ok(a) = idmodel::md5::anim::Anim::parse(data) {
                    keep(md5::anim::scene(&a, "m", &all));
                    keep(md5::anim::frame(&a, "m", &all));
                }
            }
            Some(Format::Md5Camera) => {
                if let Ok(c) = idmodel::md5::camera::Camera::parse(data) {
                    keep(md5::camera::scene(&c, "m", &all));
                }
            }
            _ => {}
        }
        out
    }

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        for scene in scenes(data) {
            if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
                assert_eq!(&glb[..4], b"glTF");
                let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
                let json = &glb[20..20 + json_len];
                serde_json::from_slice::<serde_json::Value>(json).expect("GLB JSON chunk is JSON");
            }
            if let Ok(obj) = idmodel_scene::obj::to_obj(&scene, "m", Axes::YUp) {
                for line in obj.obj.lines().filter(|l| l.starts_with('v')) {
                    assert!(
                        !line.contains("NaN") && !line.contains("inf"),
                        "non-finite OBJ line: {line}"
                    );
                }
            }
            let small = RenderOptions {
                width: 32,
                height: 24,
                ..RenderOptions::default()
            };
            if let Ok(picture) = render(&scene, &small) {
                assert_eq!(picture.rgba.len(), 32 * 24 * 4);
            }
        }
    }
}

/// Quake III `.shader` scripts: the definition walk makes progress, every definition
/// parses (or fails with a positioned error), and every accessor and the glTF view run.
pub mod shader {
    use idmodel::md3::shader::ShaderText;

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let text = ShaderText::new(data);
        let _ = text.validate_ioq3();
        let mut n = 0usize;
        for def in text.entries() {
            n += 1;
            assert!(
                n <= data.len() + 1,
                "the definition walk does not make progress"
            );
            let Ok(def) = def else { continue };
            let Ok(shader) = def.parse() else { continue };
            assert!(shader.stages().len() <= shader.num_stages());
            assert!(shader.surface_parms().len() <= shader.num_surface_parms());
            for s in shader.stages() {
                let _ = s.base_image();
            }
            let _ = (shader.base_stage(), shader.gltf());
            if let Some(f) = shader.failure.filter(|_| n <= 4) {
                let _ = (f.to_string(), f.line(), f.column());
            }
        }
    }
}

/// Doom 3 `.mtr` files (`idmodel_assets::textures::mtr`): the decl walk makes progress and
/// every material, stage and image program (node, arguments, first image) is walked.
pub mod mtr {
    #[cfg(feature = "assets")]
    use idmodel_assets::textures::mtr::{Arg, ImageProgram, MaterialText, Node};

    #[cfg(feature = "assets")]
    fn walk(p: ImageProgram<'_>, depth: usize) {
        assert!(depth <= idmodel_assets::textures::mtr::MAX_PROGRAM_DEPTH + 1);
        let _ = (p.text(), p.first_image(), p.is_generated());
        if let Node::Call { args, .. } = p.node() {
            for a in args.take(64) {
                if let Arg::Program(q) = a {
                    walk(q, depth + 1);
                }
            }
        }
    }

    /// Runs the target on one input; panics on a finding. (Without the `assets` feature,
    /// as when `tests/sweeps.rs` includes this file, it does nothing.)
    pub fn run(data: &[u8]) {
        #[cfg(feature = "assets")]
        {
            let text = MaterialText::new(data);
            let mut n = 0usize;
            for d in text.decls() {
                n += 1;
                assert!(n <= data.len() + 1, "the decl walk does not make progress");
                let Ok(d) = d else {
                    let _ = d.map_err(|e| e.to_string());
                    continue;
                };
                let Ok(m) = d.material() else { continue };
                for s in m.stages() {
                    if let Some(p) = s.map {
                        walk(p, 0);
                    }
                }
                let g = m.gltf();
                for p in [g.base_color, g.normal, g.specular, m.editor_image]
                    .into_iter()
                    .flatten()
                {
                    walk(p, 0);
                }
                let _ = text.find(d.name);
            }
        }
        #[cfg(not(feature = "assets"))]
        let _ = data;
    }
}

/// Cube 2 `md5.cfg` / `md3.cfg`: statements make progress; every word, number and
/// command is read.
pub mod cube2cfg {
    use idmodel::md5::cube2::{Cfg, texture_file};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let mut n = 0usize;
        for s in Cfg::new(data).statements() {
            n += 1;
            assert!(
                n <= data.len() + 1,
                "the statement walk does not make progress"
            );
            let Ok(s) = s else { continue };
            assert!(s.args().count() < idmodel::md5::cube2::MAX_WORDS);
            for w in s.args() {
                let _ = (
                    w.int(),
                    w.float(),
                    texture_file(w.raw),
                    w.unescaped().count(),
                );
            }
            let _ = s.command();
        }
    }
}

/// UFO:AI `.anm` clip tables: every entry, its clip, rate and check.
pub mod anm {
    use idmodel::md2::Anm;

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Ok(anm) = Anm::parse(data) else { return };
        assert!(anm.len() <= idmodel::md2::anm::MAX_ANIMS);
        let mut n = 0usize;
        for e in anm.entries() {
            n += 1;
            assert!(e.name.as_bytes().len() < idmodel::md2::anm::MAX_ANIMNAME);
            let rate = e.rate();
            assert!(rate.is_finite() && rate > 0.0, "{rate}");
            if let Some(c) = e.clip() {
                assert!(c.frames.start < c.frames.end);
            }
            let _ = (e.check(0), e.check(1000), e.frame_time_ms());
        }
        assert_eq!(n, anm.len());
    }
}

/// The archive readers of `idmodel-assets` on any bytes, shared by the `pak` and `pk3`
/// targets: open under each profile with a 1 MiB entry limit, list, read every entry and
/// every refused name. No panic; nothing read is larger than the limit or than what the
/// directory declares; every error is one line naming the archive.
#[cfg(feature = "assets")]
mod archive_walk {
    use idmodel_assets::{Archive, Limits, Profile};

    const LIMIT: u64 = 1 << 20;

    pub fn walk(data: &[u8], profiles: &[Profile]) {
        let one_line = |e: &str| {
            assert!(
                e.starts_with("fuzz:"),
                "error does not name the archive: {e}"
            );
            assert!(!e.contains(['\n', '\r']), "error is not one line: {e:?}");
        };
        for &p in profiles {
            let limits = Limits {
                max_entry_size: LIMIT,
            };
            let archive = match Archive::from_bytes("fuzz", data.to_vec(), p, limits) {
                Ok(a) => a,
                Err(e) => {
                    one_line(&e);
                    continue;
                }
            };
            for e in archive.problems() {
                one_line(e);
            }
            let names: Vec<String> = archive.names().into_iter().map(str::to_owned).collect();
            for n in &names {
                match archive.read(n) {
                    Ok(Some(bytes)) => assert!(bytes.len() as u64 <= LIMIT),
                    // A name of the index may be a duplicate whose chosen entry is refused.
                    Ok(None) => {}
                    Err(e) => one_line(&e),
                }
            }
            for (dir, ext) in [("", ""), ("scripts", ".shader"), ("progs", ".mdl")] {
                for n in archive.list(dir, ext) {
                    assert!(names.contains(&n), "listed {n:?} is not an entry");
                }
            }
        }
    }
}

/// `.pak` (Quake, Quake II): see `archive_walk`.
pub mod pak {
    /// Runs the target on one input; panics on a finding. (Without the `assets` feature,
    /// as when `tests/sweeps.rs` includes this file, it does nothing.)
    pub fn run(data: &[u8]) {
        #[cfg(feature = "assets")]
        {
            use idmodel_assets::Profile;
            let mut bytes = data.to_vec();
            super::archive_walk::walk(&bytes, &[Profile::Quake, Profile::Quake2]);
            // Most inputs fail the magic: try them as a pak too.
            if !bytes.starts_with(b"PACK") {
                bytes.splice(0..bytes.len().min(4), *b"PACK");
                super::archive_walk::walk(&bytes, &[Profile::Quake2]);
            }
        }
        #[cfg(not(feature = "assets"))]
        let _ = data;
    }
}

/// `.pk3` / `.pk4` (zip): see `archive_walk`.
pub mod pk3 {
    /// Runs the target on one input; panics on a finding. (Without the `assets` feature,
    /// as when `tests/sweeps.rs` includes this file, it does nothing.)
    pub fn run(data: &[u8]) {
        #[cfg(feature = "assets")]
        {
            use idmodel_assets::Profile;
            if data.starts_with(b"PACK") {
                return;
            }
            super::archive_walk::walk(data, &[Profile::Ioq3, Profile::Doom3]);
        }
        #[cfg(not(feature = "assets"))]
        let _ = data;
    }
}

/// The way back to md5 (issue #16): any bytes read as a glTF/GLB (a small budget), or an
/// md5 file through its scene adapter, then `idmodel_scene::md5::from_scene::convert` and
/// the md5 writers; whatever is written parses back as the same model.
pub mod md5_back {
    use idmodel::Format;
    use idmodel::md5::{anim, camera, mesh};
    use idmodel_scene::md5::from_scene::{self, Md5Options};
    use idmodel_scene::{Options, Scene, md5};

    fn scene(data: &[u8]) -> Option<Scene> {
        let all = Options::default();
        match idmodel::detect(data) {
            Some(Format::Md5Mesh) => {
                let m = mesh::Model::parse(data).ok()?;
                md5::mesh::scene(&m, "m", &[], &all).ok()
            }
            Some(Format::Md5Anim) => {
                let a = anim::Anim::parse(data).ok()?;
                md5::anim::scene(&a, "m", &all).ok()
            }
            Some(Format::Md5Camera) => {
                let c = camera::Camera::parse(data).ok()?;
                md5::camera::scene(&c, "m", &all).ok()
            }
            _ => {
                let options = idmodel_gltf::import::ImportOptions {
                    max_bytes: Some(32 << 20),
                    ..Default::default()
                };
                idmodel_gltf::import::from_bytes(
                    data,
                    &options,
                    &mut idmodel_gltf::import::no_files,
                )
                .ok()
            }
        }
    }

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let Some(scene) = scene(data) else { return };
        let options = Md5Options {
            fps: None,
            max_bytes: Some(16 << 20),
        };
        let files = match from_scene::convert(&scene, &options) {
            Ok(f) => f,
            Err(e) => {
                let m = e.to_string();
                assert!(
                    !m.is_empty() && !m.contains('\n'),
                    "error not one line: {m:?}"
                );
                return;
            }
        };
        if let Some(m) = &files.mesh
            && let Ok(text) = mesh::write(m)
        {
            assert_eq!(
                &mesh::Model::parse(&text).expect("written md5mesh parses"),
                m
            );
        }
        for (_, a) in &files.anims {
            if let Ok(text) = anim::write(a) {
                assert_eq!(
                    &anim::Anim::parse(&text).expect("written md5anim parses"),
                    a
                );
            }
        }
        for (_, c) in &files.cameras {
            if let Ok(text) = camera::write(c) {
                assert_eq!(
                    &camera::Camera::parse(&text).expect("written md5camera parses"),
                    c
                );
            }
        }
    }
}

/// The C ABI (`idmodel-capi`) called as C would call it: fuzzed model bytes and fuzzed
/// buffer lengths, indices, frames and lerp fractions. Every call returns a code; a
/// too-short array gives `IDMODEL_E_BUFFER_TOO_SMALL` with the length it needs, and an
/// exact one succeeds. (Without the `capi` feature, as when `tests/sweeps.rs` includes
/// this file, it does nothing.)
pub mod capi {
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
}
/// The glTF reader over JSON and GLB bytes: never a panic, one-line errors, a scene that is
/// read exports again (or is refused with an error) and, when exported, reads back.
pub mod gltf_import {
    use idmodel_gltf::import::{ImportOptions, from_bytes, from_glb};

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let options = ImportOptions {
            max_bytes: Some(64 << 20),
            ..ImportOptions::default()
        };
        // A resolver that hands back the input itself for any URI: external buffers and
        // images are exercised without I/O.
        let mut resolve = |_: &str| Some(data.to_vec());
        match from_bytes(data, &options, &mut resolve) {
            Ok(scene) => {
                if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
                    let back = from_glb(&glb, &options, &mut idmodel_gltf::import::no_files);
                    assert!(
                        back.is_ok(),
                        "an exported scene does not read back: {back:?}"
                    );
                }
                // The way back to a Quake III player folder: files or a one-line error.
                if let Err(e) = idmodel_scene::md3::player_files(&scene, &Default::default()) {
                    let m = e.to_string();
                    assert!(
                        !m.is_empty() && !m.contains('\n'),
                        "error not one line: {m:?}"
                    );
                }
            }
            Err(e) => {
                let m = e.to_string();
                assert!(
                    !m.is_empty() && !m.contains('\n'),
                    "error not one line: {m:?}"
                );
            }
        }
    }
}

/// The OBJ reader on any bytes, with the bytes as every MTL library and texture it names:
/// never a panic, an error is one line, and a scene it reads exports as GLB, reads back,
/// and writes as OBJ again.
pub mod obj_import {
    use idmodel_gltf::import::ImportOptions;
    use idmodel_gltf::import::obj::from_obj;

    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        let options = ImportOptions {
            max_bytes: Some(64 << 20),
            read_images: true,
            ..ImportOptions::default()
        };
        let mut resolve = |_: &str| Some(data.to_vec());
        match from_obj(data, &options, &mut resolve) {
            Ok(scene) => {
                let _ = idmodel_scene::obj::to_obj(&scene, "x", Default::default());
                if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
                    // A texture the OBJ named but that did not decode stays a URI in the
                    // GLB: read back without fetching images.
                    let back_options = ImportOptions {
                        read_images: false,
                        ..options.clone()
                    };
                    let back = idmodel_gltf::import::from_glb(
                        &glb,
                        &back_options,
                        &mut idmodel_gltf::import::no_files,
                    );
                    assert!(
                        back.is_ok(),
                        "an exported OBJ scene does not read back: {back:?}"
                    );
                }
            }
            Err(e) => {
                let m = e.to_string();
                assert!(
                    !m.is_empty() && !m.contains('\n'),
                    "error not one line: {m:?}"
                );
            }
        }
    }
}

/// Every target, by the name of its `fuzz_targets/` file and `regressions/` folder.
pub const TARGETS: &[(&str, Target)] = &[
    ("detect", detect::run),
    ("mdl", mdl::run),
    ("mdl_roundtrip", mdl_roundtrip::run),
    ("md2", md2::run),
    ("md2_roundtrip", md2_roundtrip::run),
    ("md3", md3::run),
    ("md3_roundtrip", md3_roundtrip::run),
    ("md3_skin", md3_skin::run),
    ("md3_animcfg", md3_animcfg::run),
    ("md5mesh", md5mesh::run),
    ("md5anim", md5anim::run),
    ("md5camera", md5camera::run),
    ("md5_roundtrip", md5_roundtrip::run),
    ("cli_info", cli_info::run),
    ("convert", convert::run),
    ("images", images::run),
    ("shader", shader::run),
    ("mtr", mtr::run),
    ("cube2cfg", cube2cfg::run),
    ("anm", anm::run),
    ("pak", pak::run),
    ("pk3", pk3::run),
    ("md5_back", md5_back::run),
    ("capi", capi::run),
    ("gltf_import", gltf_import::run),
    ("obj_import", obj_import::run),
    ("convert_call", convert_call::run),
];

/// The one conversion call on files held in memory (`idmodel_convert::convert_bytes`):
/// the bytes as every model kind to GLB and OBJ, and as glTF and OBJ to every id format,
/// with a budget on animated output. Never a panic; an error is one line naming the
/// file. (Without the `cli` feature, as when `tests/sweeps.rs` includes this file, it
/// does nothing.)
pub mod convert_call {
    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        #[cfg(feature = "cli")]
        run_convert(data);
        #[cfg(not(feature = "cli"))]
        let _ = data;
    }

    #[cfg(feature = "cli")]
    fn run_convert(data: &[u8]) {
        use std::path::Path;
        let options = idmodel_convert::Options {
            max_output: Some(1 << 22),
            ..idmodel_convert::Options::default()
        };
        for (name, out) in [
            ("models/m.mdl", "m.glb"),
            ("models/m.md2", "m.obj"),
            ("models/m.md3", "m.glb"),
            ("models/m.md5mesh", "m.glb"),
            ("models/m.md5anim", "m.gltf"),
            ("m.glb", "m.md3"),
            ("m.glb", "m.md2"),
            ("m.glb", "m.mdl"),
            ("m.glb", "m.md5mesh"),
            ("m.obj", "m.md3"),
        ] {
            let files = [(name, data)];
            match idmodel_convert::convert_bytes(&files, name, Path::new(out), &options) {
                Ok(done) => assert!(!done.files.is_empty(), "{name} -> {out}: no file"),
                Err(e) => {
                    let line = e.line();
                    assert!(!line.contains(['\n', '\r']), "not one line: {line:?}");
                    assert!(
                        !line.contains("memory-"),
                        "names the memory archive: {line}"
                    );
                }
            }
        }
    }
}

/// The image decoders (PCX, WAL, TGA both origins, PNG, JPEG) on any bytes, with their
/// limits: never a panic, a decoded image is `width × height × 4` bytes within
/// `MAX_SIDE`; and the texture resolution with the bytes as every kind of side file
/// (skin image, `.shader`, `.mtr`, `md5.cfg`, `colormap.pcx`, `palette.lmp`). (Without the
/// `cli` feature, as when `tests/sweeps.rs` includes this file, it does nothing.)
pub mod images {
    /// Runs the target on one input; panics on a finding.
    pub fn run(data: &[u8]) {
        #[cfg(feature = "cli")]
        run_assets(data);
        #[cfg(not(feature = "cli"))]
        let _ = data;
    }

    #[cfg(feature = "cli")]
    fn run_assets(data: &[u8]) {
        use idmodel_assets::MemFiles;
        use idmodel_assets::images::{self, MAX_SIDE, Rgba, TgaOrigin};
        use idmodel_assets::textures::{Format, ModelRef, Options, resolve};
        use idmodel_scene::{Material, Primitive, Scene};

        let sane = |r: &Rgba| {
            assert!(r.width >= 1 && r.width <= MAX_SIDE && r.height >= 1 && r.height <= MAX_SIDE);
            assert_eq!(
                r.pixels.len() as u64,
                u64::from(r.width) * u64::from(r.height) * 4
            );
        };
        if let Ok((img, _)) = images::pcx(data) {
            assert_eq!(
                img.indices.len() as u64,
                u64::from(img.width) * u64::from(img.height)
            );
            sane(&img.to_rgba(&[[1, 2, 3]; 256]).0);
        }
        if let Ok(img) = images::wal(data) {
            sane(&img.to_rgba(&[[1, 2, 3]; 256]).0);
        }
        for origin in [TgaOrigin::Ignored, TgaOrigin::Honoured] {
            if let Ok((r, _)) = images::tga(data, origin) {
                sane(&r);
            }
        }
        if let Ok(r) = images::png(data) {
            sane(&r);
        }
        if let Ok(r) = images::jpeg(data) {
            sane(&r);
        }
        // Resolution with the bytes as each side file.
        let tri = |m: usize| Primitive {
            positions: vec![[0.0; 3]; 3],
            uvs: vec![[0.0; 2]; 3],
            indices: vec![0, 1, 2],
            material: Some(m),
            ..Primitive::default()
        };
        let names = [
            "models/x/a.pcx",
            "models/x/a",
            ".a",
            "07 - Default",
            "a.png",
        ];
        let scene = Scene::still(
            "x",
            (0..names.len()).map(tri).collect(),
            names.iter().map(|n| Material::new(*n, None)).collect(),
        );
        let mut files = MemFiles::default();
        for path in [
            "models/x/a.pcx",
            "models/x/a.tga",
            "models/x/a.wal",
            "models/x/a.png",
            "models/x/a.jpg",
            "scripts/x.shader",
            "materials/x.mtr",
            "models/x/md5.cfg",
            "pics/colormap.pcx",
            "gfx/palette.lmp",
        ] {
            files.insert(path, data.to_vec());
        }
        for format in [Format::Mdl, Format::Md2, Format::Md3, Format::Md5] {
            let mut s = scene.clone();
            let model = ModelRef {
                format,
                game_path: "models/x/x.mdl",
                bytes: data,
            };
            for w in resolve(&mut s, model, &files, &Options::default()) {
                assert!(!w.contains('\n'), "a warning is one line: {w:?}");
            }
            assert_eq!(s.materials.len(), names.len());
        }
    }
}
