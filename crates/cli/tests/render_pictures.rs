//! `render --animate` and `render --turntable`: animated PNGs (APNG) of a clip and of a
//! turn about the up axis, decoded back frame by frame; their budgets and one-line errors.
//!
//! The models are the project's `samples/`; the clip lengths come from the format crates'
//! own clip lists, not from the command.

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use std::path::Path;

use common::*;

/// An APNG read back: `acTL`'s frame count, each frame's RGBA and delay (num, den).
struct Apng {
    frames_declared: u32,
    frames: Vec<(Vec<u8>, (u16, u16))>,
    size: (u32, u32),
}

fn read_apng(path: &Path) -> Apng {
    let bytes = std::fs::read(path).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let info = reader.info();
    let control = info.animation_control.expect("an acTL chunk");
    let size = (info.width, info.height);
    let mut frames = Vec::new();
    for _ in 0..control.num_frames {
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let out = reader.next_frame(&mut buf).unwrap();
        assert_eq!((out.width, out.height), size, "full-size frames");
        let fc = reader.info().frame_control.expect("an fcTL per frame");
        buf.truncate(out.buffer_size());
        frames.push((buf, (fc.delay_num, fc.delay_den)));
    }
    Apng {
        frames_declared: control.num_frames,
        frames,
        size,
    }
}

/// The pixels of a still PNG (no APNG), RGBA8 whatever its stored colour type.
fn still_rgba(path: &Path) -> Vec<u8> {
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    assert!(
        reader.info().animation_control.is_none(),
        "a still is no APNG"
    );
    rgba_of(path).0
}

fn ok(args: &[&dyn AsRef<std::ffi::OsStr>]) {
    let o = idmodel(args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// `render <input>... -o <out> --animate --size <size> <extra>...`, which must exit 0;
/// the APNG written.
fn animated(input: &[&dyn AsRef<std::ffi::OsStr>], out: &Path, size: &str, extra: &[&str]) -> Apng {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"render"];
    args.extend_from_slice(input);
    args.extend([
        &"-o" as &dyn AsRef<std::ffi::OsStr>,
        &out,
        &"--animate",
        &"--size",
        &size,
    ]);
    args.extend(extra.iter().map(|a| a as &dyn AsRef<std::ffi::OsStr>));
    ok(&args);
    read_apng(out)
}

/// The longest clip of the sample MD2 (name, frame count), from `idmodel-md2` itself.
fn md2_clip() -> (String, usize) {
    let bytes = std::fs::read(sample_file("md2")).unwrap();
    let md2 = idmodel::md2::Md2::parse(&bytes).unwrap();
    let clip = md2
        .animations()
        .max_by_key(|c| c.frames.len())
        .expect("the sample MD2 has clips");
    (clip.name.to_string(), clip.frames.len())
}

#[test]
fn animated_clip_has_the_clips_frame_count_and_frames_differ() {
    let dir = scratch("animated_clip");
    let (clip, count) = md2_clip();
    assert!(
        count > 1,
        "the sample's longest clip {clip} has {count} frames"
    );
    let out = dir.join("clip.png");
    let model = sample_file("md2");
    ok(&[
        &"render",
        &model,
        &"-o",
        &out,
        &"--clip",
        &clip,
        &"--animate",
        &"--size",
        &"64x48",
    ]);
    let apng = read_apng(&out);
    assert_eq!(apng.size, (64, 48));
    assert_eq!(apng.frames_declared as usize, count);
    assert_eq!(apng.frames.len(), count);
    let distinct: std::collections::HashSet<&Vec<u8>> =
        apng.frames.iter().map(|(f, _)| f).collect();
    assert!(distinct.len() > 1, "the frames of {clip} are not all alike");
    for (_, (num, den)) in &apng.frames {
        assert!(*num >= 1 && *den == 1000, "delay {num}/{den}");
    }
}

#[test]
fn animation_of_the_whole_model_has_every_frame() {
    let dir = scratch("whole_model");
    let bytes = std::fs::read(sample_file("md2")).unwrap();
    let frames = idmodel::md2::Md2::parse(&bytes).unwrap().frames().len();
    let out = dir.join("all.png");
    let model = sample_file("md2");
    let apng = animated(&[&model], &out, "40x40", &[]);
    assert_eq!(apng.frames_declared as usize, frames);
}

#[test]
fn animated_frames_share_one_framing() {
    // With the union of the frames' bounds framed, the first animated frame is the still
    // of frame 0 only when frame 0 alone spans the union; what must hold in every case is
    // that the framing does not follow the frame: a frame drawn alone as a still differs
    // from the same frame in the animation whenever its own bounds are smaller.
    let dir = scratch("framing");
    let (clip, count) = md2_clip();
    let model = sample_file("md2");
    let anim = dir.join("clip.png");
    ok(&[
        &"render",
        &model,
        &"-o",
        &anim,
        &"--clip",
        &clip,
        &"--animate",
        &"--size",
        &"64x64",
    ]);
    let apng = read_apng(&anim);
    let bytes = std::fs::read(&model).unwrap();
    let md2 = idmodel::md2::Md2::parse(&bytes).unwrap();
    let first = md2
        .animations()
        .find(|c| c.name.to_string() == clip)
        .unwrap()
        .frames
        .start;
    let mut differing = 0;
    for k in 0..count {
        let still = dir.join(format!("f{k}.png"));
        let n = (first + k).to_string();
        ok(&[
            &"render", &model, &"-o", &still, &"--frame", &n, &"--size", &"64x64",
        ]);
        if still_rgba(&still) != apng.frames[k].0 {
            differing += 1;
        }
    }
    assert!(differing > 0, "every animated frame was framed on its own");
}

#[test]
fn turntable_frames_differ_and_frame_zero_is_the_still() {
    let dir = scratch("turntable");
    for ext in ["md2", "md3", "mdl"] {
        let model = sample_file(ext);
        let turn = dir.join(format!("{ext}-turn.png"));
        let still = dir.join(format!("{ext}-still.png"));
        ok(&[
            &"render",
            &model,
            &"-o",
            &turn,
            &"--turntable",
            &"5",
            &"--size",
            &"48x40",
        ]);
        ok(&[&"render", &model, &"-o", &still, &"--size", &"48x40"]);
        let apng = read_apng(&turn);
        assert_eq!(apng.frames_declared, 5, "{ext}");
        assert_eq!(apng.frames.len(), 5, "{ext}");
        assert_eq!(
            apng.frames[0].0,
            still_rgba(&still),
            "{ext}: frame 0 is the still"
        );
        for k in 1..5 {
            assert!(
                apng.frames[k].0 != apng.frames[0].0,
                "{ext}: view {k} turned"
            );
        }
        // 4 seconds a turn. (5 views: the samples are symmetric under half and quarter turns.)
        assert_eq!(apng.frames[0].1, (800, 1000), "{ext}");
    }
}

#[test]
fn md5_animates_with_its_anim() {
    let dir = scratch("md5");
    let mesh = sample_file("md5mesh");
    let anim = sample_file("md5anim");
    let text = std::fs::read_to_string(&anim).unwrap();
    let frames: usize = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("numFrames"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = dir.join("walk.png");
    ok(&[
        &"render",
        &mesh,
        &"--anim",
        &anim,
        &"-o",
        &out,
        &"--animate",
        &"--size",
        &"40x40",
    ]);
    let apng = read_apng(&out);
    assert_eq!(apng.frames_declared as usize, frames);
    if frames > 1 {
        let distinct: std::collections::HashSet<&Vec<u8>> =
            apng.frames.iter().map(|(f, _)| f).collect();
        assert!(distinct.len() > 1, "the md5 frames are not all alike");
    }
}

fn assert_one_line_error(args: &[&dyn AsRef<std::ffi::OsStr>], out: &Path, needle: &str) {
    let o = idmodel(args);
    assert_ne!(code(&o), 0);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert!(!out.exists(), "nothing written on failure");
}

#[test]
fn budgets_and_nothing_to_animate_are_one_line_errors() {
    let dir = scratch("errors");
    let out = dir.join("x.png");
    let model = sample_file("md2");
    assert_one_line_error(
        &[
            &"render",
            &model,
            &"-o",
            &out,
            &"--animate",
            &"--max-output",
            &"1K",
        ],
        &out,
        "--max-output",
    );
    assert_one_line_error(
        &[
            &"render",
            &model,
            &"-o",
            &out,
            &"--turntable",
            &"10",
            &"--size",
            &"100x100",
            &"--max-output",
            &"100K",
        ],
        &out,
        "over the budget",
    );
    let mesh = sample_file("md5mesh");
    assert_one_line_error(
        &[&"render", &mesh, &"-o", &out, &"--animate"],
        &out,
        "nothing to animate",
    );
}

#[test]
fn animate_and_turntable_usage_is_checked() {
    let dir = scratch("usage");
    let out = dir.join("x.png");
    let model = sample_file("md2");
    for args in [
        vec!["--animate", "--frame", "1"],
        vec!["--animate", "--turntable", "4"],
        vec!["--turntable", "0"],
        vec!["--turntable", "1001"],
    ] {
        let mut a: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"render", &model, &"-o", &out];
        a.extend(args.iter().map(|s| s as &dyn AsRef<std::ffi::OsStr>));
        let o = idmodel(&a);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!out.exists());
    }
}

/// The RGBA8 pixels and size of a PNG that may be RGB or RGBA.
fn rgba_of(path: &Path) -> (Vec<u8>, u32, u32) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(path).unwrap()));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let out = reader.next_frame(&mut buf).unwrap();
    buf.truncate(out.buffer_size());
    let px = buf.len() / (out.width * out.height) as usize;
    let rgba = if px == 4 {
        buf
    } else {
        buf.chunks(px)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    (rgba, out.width, out.height)
}

#[test]
fn contact_sheet_of_the_samples_has_a_grid_with_names() {
    let dir = scratch("sheet");
    let samples = sample_file("md2").parent().unwrap().to_path_buf();
    // Models the folder walk draws (md5anim files need a mesh and are skipped).
    let mut models: Vec<String> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".md5anim"))
        .collect();
    models.sort();
    let n = models.len();
    let cols = (1..).find(|c: &usize| c * c >= n).unwrap();
    let rows = n.div_ceil(cols);
    let out = dir.join("sheet.png");
    let o = idmodel(&[&"render", &samples, &"-o", &out, &"--size", &"64x48"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The md5camera has nothing to draw: a grey "error" cell and one stderr line.
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l.contains("sample.md5camera")),
        "the failed cell is named on stderr: {err}"
    );
    let (rgba, w, h) = rgba_of(&out);
    let label = 16; // the label strip under each cell
    assert_eq!((w, h), (cols as u32 * 64, rows as u32 * (48 + label)));
    let at = |x: u32, y: u32| -> &[u8] {
        let i = ((y * w + x) * 4) as usize;
        &rgba[i..i + 4]
    };
    let bg = [0x30, 0x30, 0x38, 0xff];
    for (i, name) in models.iter().enumerate() {
        let (cx, cy) = ((i % cols) as u32 * 64, (i / cols) as u32 * (48 + label));
        let ink = (cy + 48..cy + 48 + label)
            .flat_map(|y| (cx..cx + 64).map(move |x| (x, y)))
            .filter(|&(x, y)| at(x, y) != bg)
            .count();
        assert!(ink > 20, "{name}: text pixels under cell {i} ({ink})");
        let drawn = (cy..cy + 48)
            .flat_map(|y| (cx..cx + 64).map(move |x| (x, y)))
            .filter(|&(x, y)| at(x, y) != bg)
            .count();
        assert!(drawn > 50, "{name}: a thumbnail or a grey cell in cell {i}");
        if name.ends_with(".md5camera") {
            assert_eq!(at(cx + 2, cy + 2), [110, 110, 110, 255], "grey error cell");
        }
    }
    // Empty cells of the last row stay background.
    if rows * cols > n {
        let (cx, cy) = (
            ((rows * cols - 1) % cols) as u32 * 64,
            (rows as u32 - 1) * (48 + label),
        );
        assert_eq!(at(cx + 32, cy + 24), bg);
    }
}

#[test]
fn contact_sheet_refuses_motion_and_empty_folders_in_one_line() {
    let dir = scratch("sheet_errors");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("x.png");
    assert_one_line_error(&[&"render", &empty, &"-o", &out], &out, "no models");
    let samples = sample_file("md2").parent().unwrap().to_path_buf();
    let o = idmodel(&[&"render", &samples, &"-o", &out, &"--turntable", &"3"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!out.exists());
}
