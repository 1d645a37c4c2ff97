//! Scene → Quake III player folder: every corpus player folder → scene → GLB → scene →
//! folder is byte-identical; an edited scene writes an `animation.cfg` and skins that
//! say its clips and materials; a player made elsewhere (nodes on `tag_torso` and
//! `tag_head`, shape-key clips) splits into a folder that reads back with its clips.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use std::path::{Path, PathBuf};

use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
use idmodel_gltf::{ExportOptions, to_glb};
use idmodel_md3::{AnimId, Md3, Model, Skin, TagInfo, write};
use idmodel_scene::md3::{self, Player, PlayerBackOptions};
use idmodel_scene::{
    Animation, Channel, ChannelValues, Interpolation, Material, Mesh, MorphTarget, Node, Options,
    Primitive, Scene,
};

/// Folders of the corpus holding lower.md3, upper.md3 and head.md3.
fn player_folders() -> Vec<PathBuf> {
    idmodel_test_support::corpus_dir("player_back")
        .map(|dir| idmodel_test_support::player_folders(&dir))
        .unwrap_or_default()
}

struct Folder {
    name: String,
    md3: [Vec<u8>; 3],
    cfg: Option<Vec<u8>>,
    skins: [Option<Vec<u8>>; 3],
}

fn read_folder(dir: &Path) -> Folder {
    let read = |n: &str| std::fs::read(dir.join(n)).ok();
    Folder {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        md3: ["lower", "upper", "head"].map(|p| read(&format!("{p}.md3")).unwrap()),
        cfg: read("animation.cfg"),
        skins: ["lower", "upper", "head"].map(|p| read(&format!("{p}_default.skin"))),
    }
}

fn player<'a>(f: &'a Folder) -> Player<'a> {
    Player {
        name: &f.name,
        lower: Md3::parse(&f.md3[0]).unwrap(),
        upper: Md3::parse(&f.md3[1]).unwrap(),
        head: Md3::parse(&f.md3[2]).unwrap(),
        animation_cfg: f.cfg.as_deref(),
        skins: f
            .skins
            .each_ref()
            .map(|s| s.as_deref().and_then(md3::usable_skin)),
    }
}

fn via_glb(scene: &Scene) -> Scene {
    let glb = to_glb(scene, &ExportOptions::default()).unwrap();
    from_glb(&glb, &ImportOptions::default(), &mut no_files).unwrap()
}

fn file<'a>(files: &'a md3::PlayerFiles, name: &str) -> &'a [u8] {
    &files.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn every_corpus_player_comes_back_byte_for_byte() {
    let folders = player_folders();
    for dir in &folders {
        let f = read_folder(dir);
        let scene = md3::player_scene(&player(&f), &Options::default()).unwrap();
        let back = via_glb(&scene);
        let files = md3::player_files(&back, &PlayerBackOptions::default()).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, idmodel_test_support::PLAYER_FILES);
        for (i, part) in ["lower", "upper", "head"].iter().enumerate() {
            assert!(
                file(&files, &format!("{part}.md3")) == f.md3[i].as_slice(),
                "{}: {part}.md3 differs",
                dir.display()
            );
            if let Some(skin) = &f.skins[i] {
                assert_eq!(
                    file(&files, &format!("{part}_default.skin")),
                    skin.as_slice(),
                    "{}: {part}_default.skin",
                    dir.display()
                );
            }
        }
        if let Some(cfg) = &f.cfg {
            assert_eq!(
                file(&files, "animation.cfg"),
                cfg.as_slice(),
                "{}",
                dir.display()
            );
        }
    }
    eprintln!("{} player folders byte-identical", folders.len());
}

#[test]
fn an_edited_clip_writes_a_new_animation_cfg_that_reads_back() {
    let Some(dir) = player_folders()
        .into_iter()
        .find(|d| d.to_string_lossy().contains("kyonshi"))
    else {
        return;
    };
    let f = read_folder(&dir);
    let scene = md3::player_scene(&player(&f), &Options::default()).unwrap();
    let mut back = via_glb(&scene);
    // Slow LEGS_RUN down to 10 fps (100 ms a frame).
    let run = back
        .animations
        .iter_mut()
        .find(|a| a.name == "LEGS_RUN")
        .unwrap();
    for c in &mut run.channels {
        for (k, t) in c.times.iter_mut().enumerate() {
            *t = k as f32 * 0.1;
        }
    }
    let files = md3::player_files(&back, &PlayerBackOptions::default()).unwrap();
    let cfg = file(&files, "animation.cfg");
    assert_ne!(cfg, f.cfg.as_deref().unwrap());
    let text = String::from_utf8(cfg.to_vec()).unwrap();
    // The keyword lines come from the original (sex f, headoffset -8 0 -1).
    assert!(text.contains("sex f\n"), "{text}");
    assert!(text.contains("headoffset -8 0 -1\n"), "{text}");
    let (new, entries) = md3::q3_animations(cfg).unwrap();
    let (old, _) = md3::q3_animations(f.cfg.as_deref().unwrap()).unwrap();
    assert_eq!(entries, 25);
    for (id, a) in old.iter().take(31) {
        let b = new.get(id);
        if id == AnimId::LEGS_RUN {
            assert_eq!(b.frame_lerp, 100);
            assert_eq!(
                (b.first_frame, b.num_frames, b.loop_frames),
                (a.first_frame, a.num_frames, a.loop_frames)
            );
        } else {
            assert_eq!(b, a, "{}", id.name());
        }
    }
    // The models are unchanged.
    assert_eq!(file(&files, "lower.md3"), f.md3[0].as_slice());
}

#[test]
fn an_edited_material_writes_a_new_skin() {
    let Some(dir) = player_folders().into_iter().next() else {
        return;
    };
    let f = read_folder(&dir);
    let scene = md3::player_scene(&player(&f), &Options::default()).unwrap();
    let mut back = via_glb(&scene);
    let head = back.nodes.iter().rposition(|n| n.name == "head").unwrap();
    let mesh = back.nodes[head].mesh.unwrap();
    back.materials
        .push(Material::new("models/players/x/new", None));
    let m = back.materials.len() - 1;
    back.meshes[mesh].primitives[0].material = Some(m);
    let files = md3::player_files(&back, &PlayerBackOptions::default()).unwrap();
    let skin = Skin::parse(file(&files, "head_default.skin")).unwrap();
    let head_md3 = Md3::parse(file(&files, "head.md3")).unwrap();
    let first = head_md3
        .surfaces()
        .find(|s| s.num_verts() > 0 && !s.triangles().is_empty())
        .unwrap();
    assert_eq!(
        skin.shader_for(first.engine_name().as_bytes(), idmodel_md3::Engine::Ioq3),
        Some(&b"models/players/x/new"[..])
    );
    // The other parts keep their skins.
    if let Some(orig) = &f.skins[0] {
        assert_eq!(file(&files, "lower_default.skin"), orig.as_slice());
    }
}

// ---------------------------------------------------------------------------------------
// A player made elsewhere

/// A box of `size` at height `z`, with one morph target per extra frame moving it up by
/// `k` units.
fn part_mesh(name: &str, z: f32, frames: usize, material: usize) -> Mesh {
    let s = 4.0;
    let positions: Vec<[f32; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { -s } else { s },
                if i & 2 == 0 { -s } else { s },
                z + if i & 4 == 0 { 0.0 } else { s },
            ]
        })
        .collect();
    let indices = vec![
        0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4,
        1, 5, 7, 1, 7, 3,
    ];
    let targets = (1..frames)
        .map(|k| MorphTarget {
            positions: vec![[0.0, 0.0, k as f32]; 8],
            normals: Vec::new(),
        })
        .collect();
    Mesh {
        name: name.into(),
        primitives: vec![Primitive {
            positions,
            uvs: vec![[0.5, 0.5]; 8],
            indices,
            material: Some(material),
            targets,
            ..Primitive::default()
        }],
        target_names: (1..frames).map(|k| format!("f{k}")).collect(),
    }
}

fn weights(node: usize, targets: usize, frames: std::ops::Range<usize>, step: f32) -> Channel {
    let shown: Vec<Option<usize>> = frames.clone().map(|f| f.checked_sub(1)).collect();
    Channel {
        node,
        times: (0..frames.len()).map(|k| k as f32 * step).collect(),
        interpolation: Interpolation::Linear,
        values: ChannelValues::one_hot(targets, shown),
    }
}

/// legs (node 0) → tag_torso (1) → torso (2) → tag_head (3) → face (4): no part named
/// lower, upper or head. Legs have 12 frames, torso 10, the face 1.
fn made_elsewhere() -> Scene {
    let mut nodes = vec![
        Node::new("legs"),
        Node::new("tag_torso"),
        Node::new("torso"),
        Node::new("tag_head"),
        Node::new("face"),
    ];
    nodes[0].mesh = Some(0);
    nodes[0].children = vec![1];
    nodes[1].translation = [0.0, 0.0, 8.0];
    nodes[1].children = vec![2];
    nodes[2].mesh = Some(1);
    nodes[2].children = vec![3];
    nodes[3].translation = [0.0, 0.0, 6.0];
    nodes[3].children = vec![4];
    nodes[4].mesh = Some(2);
    // BOTH_DEATH1: frames 0-1 of both; TORSO_GESTURE: torso 2-5; TORSO_STAND: torso 6-9;
    // LEGS_WALKCR: legs 2-3 (= TORSO_GESTURE's start, as the engine needs); LEGS_RUN: legs
    // 11 down to 4 (reversed).
    let mut run = weights(0, 11, 4..12, 0.05);
    if let ChannelValues::SparseWeights { nonzero, .. } = &mut run.values {
        let n = nonzero.len();
        for (k, e) in nonzero.iter_mut().enumerate() {
            e.0 = n - 1 - k;
        }
        nonzero.sort_by_key(|e| e.0);
    }
    let anim = |name: &str, channels: Vec<Channel>| Animation {
        name: name.into(),
        channels,
    };
    Scene {
        name: "elsewhere".into(),
        meshes: vec![
            part_mesh("legs", 0.0, 12, 0),
            part_mesh("torso", 0.0, 10, 1),
            part_mesh("face", 0.0, 1, 2),
        ],
        materials: vec![
            Material::new("models/players/e/legs", None),
            Material::new("models/players/e/torso", None),
            Material::new("models/players/e/face", None),
        ],
        nodes,
        animations: vec![
            anim(
                "BOTH_DEATH1",
                vec![weights(0, 11, 0..2, 0.1), weights(2, 9, 0..2, 0.1)],
            ),
            anim("TORSO_GESTURE", vec![weights(2, 9, 2..6, 1.0 / 15.0)]),
            anim("TORSO_STAND", vec![weights(2, 9, 6..10, 0.2)]),
            anim("LEGS_WALKCR", vec![weights(0, 11, 2..4, 0.1)]),
            anim("LEGS_RUN", vec![run]),
        ],
        ..Scene::default()
    }
}

#[test]
fn a_player_made_elsewhere_splits_on_its_tags() {
    let scene = made_elsewhere();
    assert_eq!(md3::player_parts(&scene), Some([0, 2, 4]));
    let files = md3::player_files(&via_glb(&scene), &PlayerBackOptions::default()).unwrap();
    let lower = Md3::parse(file(&files, "lower.md3")).unwrap();
    let upper = Md3::parse(file(&files, "upper.md3")).unwrap();
    let head = Md3::parse(file(&files, "head.md3")).unwrap();
    assert_eq!(
        (lower.num_frames(), upper.num_frames(), head.num_frames()),
        (12, 10, 1)
    );
    // Each part keeps only its own tags, in its own space.
    let tag_names = |m: &Md3<'_>| m.tag_names().map(|t| t.to_string()).collect::<Vec<_>>();
    assert_eq!(tag_names(&lower), ["tag_torso"]);
    assert_eq!(tag_names(&upper), ["tag_head"]);
    assert!(tag_names(&head).is_empty());
    let torso = lower.frame_tags(0).unwrap()[0];
    assert_eq!(torso.origin.map(|c| c.get()), [0.0, 0.0, 8.0]);
    // The torso's box is in its own space (not raised by tag_torso).
    let z = |m: &Md3<'_>, f: usize| m.frames()[f].bounds[0][2].get();
    assert_eq!(z(&upper, 0), 0.0);
    assert_eq!(z(&upper, 3), 3.0);
    // The clips read back under the Quake III rules.
    let (q3, entries) = md3::q3_animations(file(&files, "animation.cfg")).unwrap();
    assert_eq!(entries, 25);
    let a = |id: AnimId| {
        let a = q3.get(id);
        (a.first_frame, a.num_frames, a.reversed, a.frame_lerp)
    };
    assert_eq!(a(AnimId::BOTH_DEATH1), (0, 2, false, 100));
    assert_eq!(a(AnimId::TORSO_GESTURE), (2, 4, false, 66));
    assert_eq!(a(AnimId::TORSO_STAND), (6, 4, false, 200));
    assert_eq!(a(AnimId::LEGS_WALKCR), (2, 2, false, 100));
    assert_eq!(a(AnimId::LEGS_RUN), (4, 8, true, 50));
    // Skins: one line per surface with its material, and the part's tags.
    let skin = String::from_utf8(file(&files, "upper_default.skin").to_vec()).unwrap();
    assert_eq!(skin, "torso,models/players/e/torso\ntag_head,\n");
    // Every written model reads back as a player scene.
    let p = Player {
        name: "e",
        lower,
        upper,
        head,
        animation_cfg: Some(file(&files, "animation.cfg")),
        skins: [None; 3],
    };
    let again = md3::player_scene(&p, &Options::default()).unwrap();
    assert!(again.animations.iter().any(|a| a.name == "LEGS_RUN"));
}

#[test]
fn clips_the_cfg_cannot_say_are_refused_naming_them() {
    let mut scene = made_elsewhere();
    // LEGS_WALKCR at legs frame 5, TORSO_GESTURE at 2: the legs offset makes them equal.
    scene.animations[3] = Animation {
        name: "LEGS_WALKCR".into(),
        channels: vec![weights(0, 11, 5..7, 0.1)],
    };
    let e = md3::player_files(&scene, &PlayerBackOptions::default()).unwrap_err();
    assert!(
        e.message().contains("LEGS_WALKCR starts at lower frame 5"),
        "{e}"
    );
    // Frames out of order are not one range.
    let mut scene = made_elsewhere();
    let mut ch = weights(2, 9, 2..6, 0.1);
    if let ChannelValues::SparseWeights { nonzero, .. } = &mut ch.values {
        nonzero.swap(0, 1);
        nonzero[0].0 = 0;
        nonzero[1].0 = 1;
    }
    scene.animations[1].channels = vec![ch];
    let e = md3::player_files(&scene, &PlayerBackOptions::default()).unwrap_err();
    assert!(e.message().contains("TORSO_GESTURE"), "{e}");
    // Not a player at all.
    let e = md3::player_files(&Scene::default(), &PlayerBackOptions::default()).unwrap_err();
    assert!(e.message().starts_with("not a Quake III player"), "{e}");
}

#[test]
fn a_script_made_player_folder_comes_back_and_names_its_skin() {
    // Three example models, tags renamed; a 25-entry cfg; skins with tag lines.
    let part = |tag: &[u8], z: f32| {
        let mut m = Model::example();
        for f in &mut m.tags {
            f[0] = TagInfo {
                name: tag.to_vec(),
                origin: [0.0, 0.0, z],
                axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            };
        }
        write(&m).unwrap()
    };
    let mut cfg = String::from("sex n\nfootsteps boot\n");
    for i in 0..25 {
        let first = if (13..25).contains(&i) { 1 + 2 } else { 1 };
        cfg += &format!("{first} 2 0 10 // entry {i}\n");
    }
    let f = Folder {
        name: "script".into(),
        md3: [
            part(b"tag_torso", 24.0),
            part(b"tag_head", 16.0),
            part(b"tag_x", 0.0),
        ],
        cfg: Some(cfg.into_bytes()),
        skins: [
            Some(b"body,models/a/body\r\ntag_torso,\r\n".to_vec()),
            Some(b"arm,models/a/arm\nbody,models/a/b2\n".to_vec()),
            None,
        ],
    };
    let scene = md3::player_scene(&player(&f), &Options::default()).unwrap();
    let options = PlayerBackOptions {
        skin: "red".into(),
        ..PlayerBackOptions::default()
    };
    let files = md3::player_files(&via_glb(&scene), &options).unwrap();
    for (i, part) in ["lower", "upper", "head"].iter().enumerate() {
        assert_eq!(
            file(&files, &format!("{part}.md3")),
            f.md3[i].as_slice(),
            "{part}"
        );
    }
    assert_eq!(file(&files, "animation.cfg"), f.cfg.as_deref().unwrap());
    assert_eq!(
        file(&files, "lower_red.skin"),
        f.skins[0].as_deref().unwrap()
    );
    assert_eq!(
        file(&files, "upper_red.skin"),
        f.skins[1].as_deref().unwrap()
    );
    // The head had no skin: one is written from its shader names.
    let head = String::from_utf8(file(&files, "head_red.skin").to_vec()).unwrap();
    assert!(head.contains("tag_x,\n"), "{head}");
    assert!(Skin::parse(head.as_bytes()).unwrap().num_surfaces() > 0);
}
