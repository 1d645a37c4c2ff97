//! The real-file corpus (`$IDMODEL_CORPUS/md3`): every MD3 parses with the surveyed
//! counts, every accessor and frame decodes, every `.skin` and `animation.cfg` parses,
//! and the malformed stub is refused. Skipped with a notice when unset.
// Test code: a panic is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use std::path::Path;

use idmodel_md3::{
    AnimFindingKind, AnimId, AnimationCfg, ENGINES, Engine, ErrorKind, FindingKind, Footsteps,
    Gender, LodRule, LodSet, Md3, Model, NormalDecode, Skin, check_lod_frames, lod_frame_findings,
    lod_name, write,
};

/// One row of `corpus_survey.txt`: file, frames, tag names (frame 0), surfaces, total
/// verts, total triangles (surveyed from the corpus files).
type Survey = (String, usize, Vec<String>, usize, usize, usize);

/// The rows of `corpus_survey.txt` (`#` lines are comments).
fn survey() -> Vec<Survey> {
    let rows = common::table_rows("corpus_survey.txt", include_str!("corpus_survey.txt"), 6);
    let n = |w: &[&str], k: usize| w[k].parse::<usize>().unwrap();
    rows.iter()
        .map(|w| {
            (
                w[0].to_owned(),
                n(w, 1),
                common::list_cell(w[2]),
                n(w, 3),
                n(w, 4),
                n(w, 5),
            )
        })
        .collect()
}

fn read(dir: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Walks every accessor and decodes every frame and tag.
fn walk(m: &Md3<'_>) {
    for s in m.surfaces() {
        let n = s.num_verts();
        let (mut p, mut nr) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        for f in 0..s.num_frames() {
            s.decode_frame(f, NormalDecode::Exact, &mut p, &mut nr)
                .unwrap();
            assert!(p.iter().flatten().all(|v| v.is_finite()));
            assert!(nr.iter().flatten().all(|v| v.abs() <= 1.0));
            let next = (f + 1) % s.num_frames();
            s.lerp_into(f, next, 0.5, NormalDecode::Ideal, &mut p, &mut nr)
                .unwrap();
        }
        assert_eq!(s.tex_coords().len(), n);
        assert!(s.indices().flatten().all(|i| (i as usize) < n));
    }
    for name in m.tag_names() {
        for f in 0..m.num_frames() {
            let t = m.lerp_tag(name.as_bytes(), f, f, 0.0).unwrap();
            assert!(t.origin.iter().all(|v| v.is_finite()));
        }
    }
    for p in ENGINES {
        m.check(*p, &mut |f| assert!(!f.to_string().is_empty()));
    }
}

#[test]
fn every_md3_parses_with_the_surveyed_counts() {
    let Some(dir) = common::corpus_subdir("every_md3_parses_with_the_surveyed_counts", "md3")
    else {
        return;
    };
    let all = common::files_with_ext(&dir, "md3");
    let survey = survey();
    assert_eq!(all.len(), survey.len(), "corpus md3 files changed: {all:?}");
    for (file, frames, tags, surfaces, verts, tris) in survey {
        let bytes = read(&dir, &file);
        let m = Md3::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(m.num_frames(), frames, "{file}");
        let mut names: Vec<_> = m.tag_names().map(|n| n.to_string()).collect();
        names.sort(); // the survey lists them sorted
        assert_eq!(names, tags, "{file}");
        assert_eq!(m.num_surfaces(), surfaces, "{file}");
        assert_eq!(
            m.surfaces().map(|s| s.num_verts()).sum::<usize>(),
            verts,
            "{file}"
        );
        assert_eq!(
            m.surfaces().map(|s| s.triangles().len()).sum::<usize>(),
            tris,
            "{file}"
        );
        walk(&m);
        // Owned round trip through the writer.
        let owned = Model::from(m);
        let again = write(&owned).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(Model::from(Md3::parse(&again).unwrap()), owned, "{file}");
    }
}

#[test]
fn corpus_quirks() {
    let Some(dir) = common::corpus_subdir("corpus_quirks", "md3") else {
        return;
    };
    for file in ["rifle_tpweapon.md3", "trem_grenade.md3"] {
        let bytes = read(&dir, file);
        let m = Md3::parse(&bytes).unwrap();
        assert_eq!(m.trailing_bytes().len(), 1, "{file}");
        assert_eq!(m.body().len(), bytes.len() - 1);
    }
    let bytes = read(&dir, "kamboom2.md3");
    let m = Md3::parse(&bytes).unwrap();
    assert!(
        m.findings(Engine::Ioq3).iter().any(|f| matches!(
            f.kind,
            FindingKind::AboveDeclaredMax {
                what: "MD3_MAX_SURFACES",
                count: 24,
                ..
            }
        )) == (24 > idmodel_md3::MAX_SURFACES)
    );
    let bytes = read(&dir, "chaingun_thirdperson.md3");
    let m = Md3::parse(&bytes).unwrap();
    assert!(
        m.findings(Engine::Ioq3)
            .iter()
            .any(|f| matches!(f.kind, FindingKind::DuplicateSurfaceName { .. }))
    );
    let bytes = read(&dir, "tplgun.md3");
    let m = Md3::parse(&bytes).unwrap();
    assert_eq!(m.num_skins(), 1);
    assert_eq!(m.name(), "Darkplaces MD3 Exporter");
    // tplgun has 2340 vertices over 2 surfaces: at least one is above both engines' limit.
    assert!(
        m.findings(Engine::Quake3)
            .iter()
            .any(|f| matches!(f.kind, FindingKind::TooManyVerts { .. }))
    );
    // No corpus surface name is changed by the `_x` cut.
    for path in common::files_with_ext(&dir, "md3") {
        let bytes = std::fs::read(&path).unwrap();
        let m = Md3::parse(&bytes).unwrap();
        for s in m.surfaces() {
            assert!(
                !s.engine_name().is_shortened(s.name().as_bytes()),
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn kyonshi_lods() {
    let Some(dir) = common::corpus_subdir("kyonshi_lods", "md3") else {
        return;
    };
    for part in ["head", "lower", "upper"] {
        let path = format!("oa_kyonshi/{part}.md3");
        let exists = |lod| {
            let name = lod_name(&path, lod, LodRule::Ioq3).to_string();
            assert_eq!(lod_name(&path, lod, LodRule::Quake3), name.as_str());
            dir.join(name).is_file()
        };
        let set = LodSet {
            lod1: exists(1),
            lod2: exists(2),
        };
        assert!(set.lod1 && set.lod2 && !set.has_gap());
        assert_eq!(set.engine_lod_count(), 3);
        // Every LOD has LOD 0's frames: nothing for the LOD frame check to report.
        let files: Vec<Vec<u8>> = (0..3)
            .map(|lod| read(&dir, &lod_name(&path, lod, LodRule::Ioq3).to_string()))
            .collect();
        let frames: Vec<Option<usize>> = files
            .iter()
            .map(|b| Some(Md3::parse(b).unwrap().num_frames()))
            .collect();
        assert!(
            frames.iter().all(|&n| n == frames[0] && n >= Some(1)),
            "{frames:?}"
        );
        for &engine in ENGINES {
            check_lod_frames(engine, &frames, &mut |f| panic!("{path}: {f}"));
            // With one more frame in LOD 0, both lower LODs are one short.
            let longer = [frames[0].map(|n| n + 1), frames[1], frames[2]];
            assert_eq!(lod_frame_findings(engine, &longer).len(), 2);
        }
    }
}

#[test]
fn malformed_stub_is_refused() {
    let files = common::corpus_bytes("malformed_stub_is_refused", "malformed/md3", "md3");
    for (_, bytes) in files.into_iter().flatten() {
        let e = Md3::parse(&bytes).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::Truncated {
                needed: 108,
                available: bytes.len() as u64
            }
        );
        assert_eq!(
            e.to_string(),
            "truncated: needed 108 bytes, 22 available (at byte 0)"
        );
    }
}

#[test]
fn every_skin_parses_and_matches_its_model() {
    let Some(dir) = common::corpus_subdir("every_skin_parses_and_matches_its_model", "md3") else {
        return;
    };
    let skins = common::files_with_ext(&dir, "skin");
    assert_eq!(skins.len(), 18);
    let mut unknown = Vec::new();
    for path in skins {
        let text = std::fs::read(&path).unwrap();
        let skin = Skin::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(skin.num_surfaces() > 0);
        let file = path.file_name().unwrap().to_str().unwrap();
        let part = file.split('_').next().unwrap();
        let bytes = std::fs::read(path.with_file_name(format!("{part}.md3"))).unwrap();
        let md3 = Md3::parse(&bytes).unwrap();
        for f in skin.findings(Some(&md3), Engine::Ioq3) {
            match f.kind {
                idmodel_md3::SkinFindingKind::UnknownSurface { name, .. } => {
                    unknown.push(format!("{file}:{}", String::from_utf8_lossy(name)));
                }
                other => panic!("{}: unexpected finding {other:?}: {f}", path.display()),
            }
        }
    }
    // Only kyonshi's head skins name `h_hair2`, which head.md3 does not have.
    unknown.sort();
    assert_eq!(
        unknown,
        [
            "head_beh.skin:h_hair2",
            "head_blue.skin:h_hair2",
            "head_default.skin:h_hair2",
            "head_red.skin:h_hair2"
        ]
    );
}

#[test]
fn kyonshi_animation_cfg() {
    let Some(dir) = common::corpus_subdir("kyonshi_animation_cfg", "md3/oa_kyonshi") else {
        return;
    };
    let text = read(&dir, "animation.cfg");
    let cfg = AnimationCfg::parse(&text).unwrap();
    assert_eq!(cfg.gender(), Gender::Female);
    assert_eq!(cfg.head_offset(), [-8.0, 0.0, -1.0]);
    assert!(!cfg.fixed_torso());
    assert_eq!(cfg.raw_entries().count(), 25);
    let q3 = cfg.q3().unwrap();
    assert_eq!(q3.legs_skip(), 60);
    let first = |id| q3.get(id).first_frame;
    assert_eq!(first(AnimId::LEGS_WALKCR), 95);
    assert_eq!(first(AnimId::LEGS_WALK), 200);
    assert_eq!(first(AnimId::LEGS_IDLE), 180);
    assert_eq!(first(AnimId::LEGS_TURN), 200);
    assert_eq!(q3.get(AnimId::TORSO_GESTURE).frame_lerp, 76);
    assert_eq!(q3.get(AnimId::TORSO_STAND).frame_lerp, 200);
    assert_eq!(q3.get(AnimId::LEGS_IDLE).frame_lerp, 125);
    for id in &AnimId::ALL[25..31] {
        let a = q3.get(*id);
        assert_eq!(
            (a.first_frame, a.num_frames, a.loop_frames, a.frame_lerp),
            (95, 37, 0, 76)
        );
    }
    let lower = Md3::parse(&read(&dir, "lower.md3")).unwrap().num_frames();
    let upper = Md3::parse(&read(&dir, "upper.md3")).unwrap().num_frames();
    let f = cfg.findings(Some((lower, upper)), Engine::Ioq3);
    assert!(
        f.is_empty(),
        "{:?}",
        f.iter().map(|f| f.to_string()).collect::<Vec<_>>()
    );
}

#[test]
fn tremulous_animation_cfg_is_not_quake3() {
    let Some(dir) = common::corpus_dir("tremulous_animation_cfg_is_not_quake3") else {
        return;
    };
    let text = read(&dir.join("md3/trem_human_base"), "animation.cfg");
    let cfg = AnimationCfg::parse(&text).unwrap();
    assert_eq!(cfg.raw_entries().count(), 37);
    assert_eq!(cfg.footsteps(), Footsteps::Normal);
    let f = cfg.findings(None, Engine::Ioq3);
    assert!(f.iter().any(|f| matches!(
        f.kind,
        AnimFindingKind::BadFootsteps {
            token: b"custom",
            ..
        }
    )));
    // Quake III rules "succeed" on the first 31 entries with skip 0, names wrong.
    let q3 = cfg.q3().unwrap();
    assert_eq!((q3.from_file(), q3.legs_skip()), (31, 0));
    // Under Tremulous's own order: skip = 153 − 90 = 63 (raw entries 6 and 26... as
    // surveyed), and the last legs entry ends at lower.md3's 184 frames.
    let raw: Vec<_> = cfg.raw_entries().collect();
    let last = raw.last().unwrap();
    assert_eq!(last.first_frame - 63 + last.num_frames, 184);
}
