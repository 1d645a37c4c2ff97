//! The one findings vocabulary: every format's findings (MDL, MD2, MD3 with its `.skin`
//! and `animation.cfg`, md5mesh/md5anim/md5camera) use idmodel-core's `Engine` and
//! `Severity`, implement its `Finding` trait and display as `engine: severity: message`.
// Tests may index, unwrap and cast: a panic here is a failed assertion.
#![allow(clippy::restriction)]

extern crate alloc;

use alloc::collections::BTreeSet;
use core::fmt::Display;

use idmodel::core::findings;
use idmodel::{Engine, Finding, Format, Severity};

/// Checks the one shape on `found` (all reported for `engine`) and returns their codes.
fn one_shape<F: Finding + Display>(
    what: &str,
    engine: Engine,
    found: &[F],
) -> BTreeSet<&'static str> {
    assert!(!found.is_empty(), "{what}: the fixture must have findings");
    for f in found {
        let text = f.to_string();
        assert_eq!(f.engine(), engine, "{what}: {text}");
        assert_eq!(
            text,
            format!("{}: {}: {}", engine.name(), f.severity(), f.message()),
            "{what}"
        );
        assert!(!f.message().to_string().is_empty(), "{what}: {text}");
        assert!(!text.contains('\n'), "{what}: one line: {text}");
        let code = f.code();
        assert!(
            !code.is_empty()
                && code
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{what}: code {code:?}"
        );
    }
    found.iter().map(Finding::code).collect()
}

#[test]
fn severity_order_is_warning_hazard_refused() {
    assert!(Severity::Warning < Severity::Hazard);
    assert!(Severity::Hazard < Severity::Refused);
    let mut all = vec![Severity::Refused, Severity::Warning, Severity::Hazard];
    all.sort();
    assert_eq!(
        all,
        [Severity::Warning, Severity::Hazard, Severity::Refused]
    );
    // Every format crate uses this one type (a second Severity would not compile here).
    let same: [Severity; 4] = [
        idmodel::mdl::Severity::Refused,
        idmodel::md2::Severity::Refused,
        idmodel::md3::Severity::Refused,
        idmodel::md5::Severity::Refused,
    ];
    assert!(same.iter().all(|s| *s == Severity::Refused));
}

#[test]
fn every_format_lists_the_engines_that_load_it() {
    let of = |f| Engine::for_format(f).collect::<Vec<_>>();
    assert_eq!(of(Format::Mdl), idmodel::mdl::ENGINES);
    assert_eq!(of(Format::Md2), idmodel::md2::ENGINES);
    assert_eq!(of(Format::Md3), idmodel::md3::ENGINES);
    for f in [Format::Md5Mesh, Format::Md5Anim, Format::Md5Camera] {
        assert_eq!(of(f), idmodel::md5::ENGINES);
    }
    let mut all: Vec<Engine> = [
        idmodel::mdl::ENGINES,
        idmodel::md2::ENGINES,
        idmodel::md3::ENGINES,
        idmodel::md5::ENGINES,
    ]
    .concat();
    all.dedup();
    assert_eq!(
        all,
        Engine::ALL,
        "each engine loads exactly one format family"
    );
}

#[test]
fn mdl_findings_display_in_the_one_shape() {
    let mut m = idmodel::mdl::Model::example();
    m.skin_width = 6; // not a multiple of 4: WinQuake refuses it
    for skin in &mut m.skins {
        skin.resize_images(6 * m.skin_height as usize);
    }
    m.trailing = b"QMEX....".to_vec();
    let bytes = m.write().unwrap();
    let mdl = idmodel::mdl::Mdl::parse(&bytes).unwrap();
    for &e in idmodel::mdl::ENGINES {
        one_shape("mdl", e, &mdl.findings(e));
    }
    let sw = mdl.findings(Engine::WinQuake);
    assert!(sw.iter().any(|f| f.severity == Severity::Refused));
    assert!(
        sw[0]
            .to_string()
            .starts_with("winquake: refused: skin width 6")
    );
    // Engines that do not load MDL report nothing.
    for e in [Engine::Quake2, Engine::Quake3, Engine::Ioq3, Engine::Doom3] {
        assert!(mdl.findings(e).is_empty(), "{e}");
    }
}

#[test]
fn md2_findings_display_in_the_one_shape() {
    let mut m = idmodel::md2::Model::example();
    m.skin_height = 481;
    m.gl_commands = false;
    let bytes = idmodel::md2::write(&m).unwrap();
    let md2 = idmodel::md2::Md2::parse(&bytes).unwrap();
    let found = md2.findings(Engine::Quake2);
    let codes = one_shape("md2", Engine::Quake2, &found);
    assert!(codes.contains("skin-too-tall") && codes.contains("no-gl-commands"));
    assert!(md2.findings(Engine::GlQuake).is_empty());
}

#[test]
fn md3_findings_display_in_the_one_shape() {
    let bytes = idmodel::md3::write(&idmodel::md3::Model::example()).unwrap();
    let md3 = idmodel::md3::Md3::parse(&bytes).unwrap();
    let skin = idmodel::md3::Skin::parse(b"nosuch,models/x.tga\n").unwrap();
    let cfg = idmodel::md3::AnimationCfg::parse(b"footsteps nosuch\n").unwrap();
    for &e in idmodel::md3::ENGINES {
        let model = one_shape("md3", e, &md3.findings(e));
        assert!(model.contains("surface-renamed"), "{model:?}");
        one_shape("md3 .skin", e, &skin.findings(Some(&md3), e));
        one_shape("md3 animation.cfg", e, &cfg.findings(None, e));
    }
    assert_eq!(
        md3.findings(Engine::Ioq3)[0].to_string(),
        "ioq3: warning: surface 1 'arm_l' is renamed 'arm' by the engine; .skin files must use 'arm'"
    );
    assert!(md3.findings(Engine::Doom3).is_empty());
    assert!(skin.findings(Some(&md3), Engine::Quake2).is_empty());
    assert!(cfg.findings(None, Engine::WinQuake).is_empty());
}

#[test]
fn md5_findings_display_in_the_one_shape() {
    let anim = b"MD5Version 10 commandline \"\" numFrames 1 numJoints 1 frameRate 0
        numAnimatedComponents 0 hierarchy { \"root\" -1 0 0 }
        bounds { ( 0 0 0 ) ( 0 0 0 ) } baseframe { ( 0 0 0 ) ( 0 0 0 ) } frame 0 { }";
    let a = idmodel::md5::anim::parse(anim).unwrap();
    let codes = one_shape("md5anim", Engine::Doom3, &a.findings(Engine::Doom3));
    assert!(codes.contains("zero-frame-rate"), "{codes:?}");
    let mesh = b"MD5Version 10 commandline \"\" numJoints 1 numMeshes 1
        joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) }
        mesh { shader \"s\" numverts 1 vert 0 ( 0 0 ) 0 1 numtris 0 numweights 1
               weight 0 0 0.5 ( 0 0 0 ) }";
    let m = idmodel::md5::mesh::parse(mesh).unwrap();
    let codes = one_shape("md5mesh", Engine::Doom3, &m.findings(Engine::Doom3));
    assert!(codes.contains("bias-sum"), "{codes:?}");
    let camera = b"MD5Version 10 commandline \"\" numFrames 1 frameRate 60 numCuts 0
        cuts { } camera { ( 0 0 0 ) ( 0 0 0 ) 90 }";
    let c = idmodel::md5::camera::parse(camera).unwrap();
    let codes = one_shape("md5camera", Engine::Doom3, &c.findings(Engine::Doom3));
    assert!(codes.contains("sixty-hertz-camera"), "{codes:?}");
    assert!(a.findings(Engine::Ioq3).is_empty());
    assert!(m.findings(Engine::Quake2).is_empty());
    assert!(c.findings(Engine::QuakeSpasm).is_empty());
}

#[test]
fn first_n_findings_without_an_allocator() {
    let mut m = idmodel::md2::Model::example();
    m.skin_height = 481; // refused
    m.gl_commands = false; // a hazard
    let bytes = idmodel::md2::write(&m).unwrap();
    let md2 = idmodel::md2::Md2::parse(&bytes).unwrap();
    let all = md2.findings(Engine::Quake2);
    assert!(all.len() >= 2);
    let first = findings::first::<_, 1>(|sink| md2.check(Engine::Quake2, sink));
    assert_eq!(first.findings.len(), 1);
    assert_eq!(first.findings[0], all[0]);
    assert_eq!(first.total(), all.len());
    assert_eq!(first.worst, all.iter().map(|f| f.severity).max());
    assert_eq!(first.worst, Some(Severity::Refused));
    let clean = findings::first::<_, 8>(|sink| md2.check(Engine::Doom3, sink));
    assert!(clean.is_clean() && clean.total() == 0);
}
