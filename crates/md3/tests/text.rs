//! `.skin` and `animation.cfg`: the engine's parsing quirks, one test each.
// Test code: a panic is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_md3::{
    AnimFindingKind, AnimId, AnimationCfg, Engine, EntryKind, Footsteps, Gender, Md3, Model,
    Severity, Skin, SkinFindingKind, TextErrorKind, write,
};

fn pairs(text: &str) -> Vec<(String, String)> {
    Skin::parse(text.as_bytes())
        .unwrap()
        .surface_entries()
        .map(|e| (e.name().to_string(), e.shader().to_string()))
        .collect()
}

fn p(a: &str, b: &str) -> (String, String) {
    (a.into(), b.into())
}

/// The ioq3 findings of the `.skin` text `text` (for no model).
fn skin_findings(text: &[u8]) -> Vec<idmodel_md3::SkinFinding<'_>> {
    Skin::parse(text).unwrap().findings(None, Engine::Ioq3)
}

/// Whether `f` holds a finding of `kind`.
fn has(f: &[idmodel_md3::SkinFinding<'_>], kind: SkinFindingKind<'_>) -> bool {
    f.iter().any(|f| f.kind == kind)
}

/// The Quake III error of the `animation.cfg` text `text`, which must fail.
fn q3_error(text: &str) -> idmodel_md3::TextError {
    AnimationCfg::parse(text.as_bytes())
        .unwrap()
        .q3()
        .unwrap_err()
}

#[test]
fn skin_separators() {
    for t in [
        "h_head,models/x.tga",
        "h_head models/x.tga",
        "h_head, models/x.tga",
    ] {
        assert_eq!(pairs(t), [p("h_head", "models/x.tga")], "{t}");
    }
}

#[test]
fn skin_space_before_comma_gives_comma_shader() {
    assert_eq!(pairs("h_head ,x"), [p("h_head", ",x")]);
    let f = skin_findings(b"h_head ,x");
    assert!(has(&f, SkinFindingKind::CommaShader { line: 1 }));
}

#[test]
fn skin_tag_lines_are_skipped_with_or_without_comma() {
    let skin = Skin::parse(b"tag_torso,\r\ntag_head\r\nu_torso,a.tga\r\ntag_weapon").unwrap();
    assert_eq!(skin.num_tags(), 3);
    assert_eq!(skin.num_surfaces(), 1);
    let e: Vec<_> = skin.entries().collect();
    assert_eq!(e[2].line, 3);
    assert_eq!(e[3].kind, EntryKind::Tag);
}

#[test]
fn skin_tag_with_shader_swallows_the_next_name() {
    assert_eq!(
        pairs("tag_head,foo\nh_head,x.tga"),
        [p("foo", "h_head"), p(",x.tga", "")]
    );
    let f = skin_findings(b"tag_head,foo\nh_head,x.tga");
    assert!(has(&f, SkinFindingKind::TagSwallowsNext { line: 1 }));
    assert!(f.iter().any(|f| matches!(
        f.kind,
        SkinFindingKind::ShaderOnNextLine {
            line: 1,
            shader_line: 2
        }
    )));
}

#[test]
fn skin_missing_shader_pulls_the_next_line() {
    assert_eq!(
        pairs("h_face,\nh_eyes,e.tga"),
        [p("h_face", "h_eyes"), p(",e.tga", "")]
    );
    assert_eq!(pairs("h_face,"), [p("h_face", "")]);
}

#[test]
fn skin_uppercase_tag_is_not_skipped() {
    assert_eq!(pairs("TAG_head,\nh,x"), [p("TAG_head", "h"), p(",x", "")]);
    let f = skin_findings(b"TAG_head,\nh,x");
    assert!(has(&f, SkinFindingKind::TagNotSkipped { line: 1 }));
}

#[test]
fn skin_tag_substring_anywhere() {
    assert_eq!(pairs("my_tag_x,foo"), [p("foo", "")]);
}

#[test]
fn skin_quoted_and_commented() {
    assert_eq!(
        pairs("// c\n\"a b\",\"c d\" /* x */ e,f"),
        [p("a b", "c d"), p("e", "f")]
    );
    let e = Skin::parse(b"a,\n\"open").unwrap_err();
    assert_eq!(e.kind, TextErrorKind::UnterminatedQuote);
    assert_eq!((e.line, e.column), (2, 1));
}

#[test]
fn skin_names_are_lowercased_for_matching_and_nul_ends_the_text() {
    let skin = Skin::parse(b"H_Head,x.tga\0junk,y").unwrap();
    assert_eq!(skin.num_surfaces(), 1);
    assert_eq!(
        skin.shader_for(b"h_head", Engine::Ioq3),
        Some(&b"x.tga"[..])
    );
    assert_eq!(skin.shader_for(b"H_Head", Engine::Ioq3), None);
}

#[test]
fn skin_limits_per_engine() {
    let text: String = (0..40).map(|i| format!("s{i},x\n")).collect();
    let skin = Skin::parse(text.as_bytes()).unwrap();
    let q3 = skin.findings(None, Engine::Quake3);
    assert!(q3.iter().any(
        |f| f.kind == SkinFindingKind::TooManySurfaces { count: 40, max: 32 }
            && f.severity == Severity::Hazard
    ));
    assert!(skin.findings(None, Engine::Ioq3).is_empty());
    assert!(skin.shader_for(b"s35", Engine::Quake3).is_none());
    assert!(skin.shader_for(b"s35", Engine::Ioq3).is_some());
}

#[test]
fn skin_empty_is_refused_by_the_player_code() {
    let f = skin_findings(b"tag_head\n");
    assert_eq!(f[0].kind, SkinFindingKind::NoSurfaces);
    assert_eq!(f[0].severity, Severity::Refused);
}

#[test]
fn skin_against_a_model() {
    let bytes = write(&Model::example()).unwrap();
    let md3 = Md3::parse(&bytes).unwrap();
    // "arm_l" is never matched: the engine's surface name is "arm".
    let skin = Skin::parse(b"body,b.tga\narm_l,a.tga\nextra,e.tga").unwrap();
    let unknown: Vec<_> = skin.unknown_surfaces(&md3).map(|e| e.line).collect();
    assert_eq!(unknown, [2, 3]);
    let f = skin.findings(Some(&md3), Engine::Ioq3);
    assert!(has(&f, SkinFindingKind::UnskinnedSurface { surface: 1 }));
}

fn entries(n: usize, first: impl Fn(usize) -> i32) -> String {
    (0..n)
        .map(|i| format!("{}\t5\t5\t10\t// entry {i}\r\n", first(i)))
        .collect()
}

#[test]
fn animcfg_keywords() {
    let text = format!(
        "// x\nsex F\nheadoffset -8 0 -1\nfootsteps BOOT\nfixedlegs\nfixedtorso\n{}",
        entries(25, |i| i as i32 * 10)
    );
    let cfg = AnimationCfg::parse(text.as_bytes()).unwrap();
    assert_eq!(cfg.gender(), Gender::Female);
    assert_eq!(cfg.head_offset(), [-8.0, 0.0, -1.0]);
    assert_eq!(cfg.footsteps(), Footsteps::Boot);
    assert!(cfg.fixed_legs() && cfg.fixed_torso());
    let raw: Vec<_> = cfg.raw_entries().collect();
    assert_eq!(raw.len(), 25);
    assert_eq!(raw[24].first_frame, 240);
    assert_eq!(raw[0].line, 7);
}

#[test]
fn animcfg_legs_adjustment_and_team_arena_fill() {
    let text = entries(25, |i| i as i32 * 10);
    let q3 = AnimationCfg::parse(text.as_bytes()).unwrap().q3().unwrap();
    assert_eq!(q3.from_file(), 25);
    // skip = LEGS_WALKCR (130) − TORSO_GESTURE (60) = 70.
    assert_eq!(q3.legs_skip(), 70);
    assert_eq!(q3.get(AnimId::LEGS_WALKCR).first_frame, 60);
    assert_eq!(q3.get(AnimId::LEGS_TURN).first_frame, 240 - 70);
    assert_eq!(q3.get(AnimId::TORSO_STAND2).first_frame, 120);
    assert_eq!(
        q3.get(AnimId::TORSO_NEGATIVE),
        q3.get(AnimId::TORSO_GESTURE)
    );
    assert_eq!(q3.get(AnimId::TORSO_GESTURE).frame_lerp, 100);
    let backcr = q3.get(AnimId::LEGS_BACKCR);
    assert!(backcr.reversed);
    assert_eq!(backcr.first_frame, 60);
    assert_eq!(q3.get(AnimId::FLAG_RUN).frame_lerp, 66);
    assert_eq!(AnimId::LEGS_BACKCR.index(), 32);
    assert_eq!(AnimId::FLAG_STAND2RUN.index(), 36);
    assert_eq!(q3.by_name("LEGS_IDLE"), Some(q3.get(AnimId::LEGS_IDLE)));
}

#[test]
fn animcfg_numbers() {
    let mut text = entries(24, |_| 0);
    text += "0 -7 2 0\n13 1 0 13\n"; // LEGS_TURN reversed with fps 0; TORSO_GETFLAG 13 fps
    let q3 = AnimationCfg::parse(text.as_bytes()).unwrap().q3().unwrap();
    let turn = q3.get(AnimId::LEGS_TURN);
    assert_eq!(
        (turn.num_frames, turn.reversed, turn.frame_lerp),
        (7, true, 1000)
    );
    assert_eq!(q3.get(AnimId::TORSO_GETFLAG).frame_lerp, 76);
}

#[test]
fn animcfg_stray_token_after_25_entries_fails() {
    let text = entries(25, |_| 0) + "fixedlegs\n";
    let e = q3_error(&text);
    assert_eq!(
        e.kind,
        TextErrorKind::MissingAnimations {
            complete: 25,
            needed: 25
        }
    );
    assert_eq!(e.line, 26);
}

#[test]
fn animcfg_too_few_entries() {
    let text = entries(24, |_| 0);
    let e = q3_error(&text);
    assert_eq!(
        e.kind,
        TextErrorKind::MissingAnimations {
            complete: 24,
            needed: 25
        }
    );
    let f = AnimationCfg::parse(text.as_bytes())
        .unwrap()
        .findings(None, Engine::Ioq3);
    assert!(matches!(f[0].kind, AnimFindingKind::Refused(_)) && f[0].severity == Severity::Refused);
}

#[test]
fn animcfg_unknown_tokens_and_bad_footsteps() {
    let text = format!("footsteps metal\nwhatever\n-1 {}", entries(25, |_| 0));
    let cfg = AnimationCfg::parse(text.as_bytes()).unwrap();
    let f = cfg.findings(None, Engine::Ioq3);
    assert!(f.iter().any(|f| matches!(
        f.kind,
        AnimFindingKind::BadFootsteps {
            line: 1,
            token: b"metal"
        }
    )));
    assert!(
        f.iter()
            .any(|f| matches!(f.kind, AnimFindingKind::UnknownToken { line: 2, .. }))
    );
    // "-1" does not end the keyword section: it is an unknown token too.
    assert!(f.iter().any(|f| matches!(
        f.kind,
        AnimFindingKind::UnknownToken {
            line: 3,
            token: b"-1"
        }
    )));
    assert_eq!(cfg.footsteps(), Footsteps::Normal);
}

#[test]
fn animcfg_frames_against_models() {
    let text = entries(25, |i| i as i32 * 10);
    let cfg = AnimationCfg::parse(text.as_bytes()).unwrap();
    let f = cfg.findings(Some((200, 100)), Engine::Ioq3);
    // TORSO_STAND2 runs to frame 124 of a 100-frame upper.md3.
    assert!(f.iter().any(|f| matches!(
        f.kind,
        AnimFindingKind::FramesOutOfRange {
            anim: AnimId::TORSO_STAND2,
            model: "upper",
            last: 124,
            frames: 100
        }
    )));
    assert!(cfg.findings(Some((1000, 1000)), Engine::Ioq3).is_empty());
}

#[test]
fn animcfg_without_numbers_hangs_vanilla() {
    let cfg = AnimationCfg::parse(b"sex m\nfootsteps boot\n").unwrap();
    let q3 = cfg.findings(None, Engine::Quake3);
    assert!(q3.iter().any(|f| f.kind == AnimFindingKind::VanillaHang));
    let ioq3 = cfg.findings(None, Engine::Ioq3);
    assert!(ioq3.iter().all(|f| f.kind != AnimFindingKind::VanillaHang));
    assert!(matches!(ioq3[0].kind, AnimFindingKind::Refused(_)));
}

#[test]
fn animcfg_too_long_and_empty() {
    let text = " ".repeat(19_999);
    let e = q3_error(&text);
    assert!(matches!(
        e.kind,
        TextErrorKind::TooLong {
            len: 19_999,
            max: 19_998
        }
    ));
    assert_eq!(
        AnimationCfg::parse(b"").unwrap().q3().unwrap_err().kind,
        TextErrorKind::Empty
    );
}

#[test]
fn atoi_and_atof_follow_c() {
    use idmodel_md3::{atof, atoi};
    assert_eq!(atoi(b"30//x"), 30);
    assert_eq!(atoi(b"-12abc"), -12);
    assert_eq!(atoi(b"x"), 0);
    assert_eq!(atoi(b"99999999999999999999"), -1); // strtol saturates, int truncates
    assert_eq!(atof(b"1.5e1x"), 15.0);
    assert_eq!(atof(b".5"), 0.5);
    assert_eq!(atof(b"e5"), 0.0);
    assert_eq!(atof(b"-inf"), f64::NEG_INFINITY);
}

/// Regression (fuzz target md3_animcfg, crash-35cd4d4e): `AnimId::name` was off by one
/// for the derived entries (LEGS_BACKCR was called "LEGS_BACKWALK"), so `by_name` and
/// `iter` disagreed.
#[test]
fn regression_animcfg_by_name_mismatch() {
    // The crash file was a mutated corpus file (not committed); any valid file shows it.
    let text = entries(25, |i| i as i32 * 10);
    let q3 = AnimationCfg::parse(text.as_bytes()).unwrap().q3().unwrap();
    for (id, a) in q3.iter() {
        assert_eq!(q3.by_name(id.name()), Some(a), "{}", id.name());
        assert_eq!(AnimId::from_name(id.name()), Some(id));
    }
    assert_eq!(AnimId::LEGS_BACKCR.name(), "LEGS_BACKCR");
    assert_eq!(AnimId::FLAG_STAND2RUN.name(), "FLAG_STAND2RUN");
}

/// Regression: the line of every raw entry, unknown-token finding and tag line was
/// computed by rescanning the text from its start (quadratic on token-heavy input: the
/// `md3_animcfg` fuzz target ran at ~40 inputs/s). Lines are now counted forward once;
/// this checks they are still right on a long file.
#[test]
fn line_numbers_on_long_files_are_counted_forward() {
    let n = 20_000usize;
    let text = "0 10 0 15\n".repeat(n);
    let cfg = idmodel_md3::AnimationCfg::parse(text.as_bytes()).unwrap();
    let mut count = 0u32;
    for (i, e) in cfg.raw_entries().enumerate() {
        assert_eq!(e.line, u32::try_from(i + 1).unwrap());
        count += 1;
    }
    assert_eq!(count, u32::try_from(n).unwrap());

    // Unknown tokens before the entries: every finding names its own line.
    let mut text = String::new();
    for _ in 0..5_000 {
        text.push_str("bogus\n");
    }
    text.push_str(&"0 10 0 15\n".repeat(31));
    let cfg = idmodel_md3::AnimationCfg::parse(text.as_bytes()).unwrap();
    let mut lines = Vec::new();
    cfg.check(None, idmodel_md3::Engine::Ioq3, &mut |f| {
        if let idmodel_md3::AnimFindingKind::UnknownToken { line, .. } = f.kind {
            lines.push(line);
        }
    });
    assert_eq!(lines.len(), 5_000);
    assert!(
        lines
            .iter()
            .enumerate()
            .all(|(i, &l)| l == u32::try_from(i + 1).unwrap())
    );
}
