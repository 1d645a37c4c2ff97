//! # idmodel-web
//!
//! The Rust side of the idmodel viewer (`web/`): the files dropped on the page go in,
//! a GLB (the model, textured and animated, made by `idmodel_convert::convert_bytes`,
//! the conversion `idmodel convert` makes) and a JSON state (what the file is, counts,
//! bounds, clips, skins, and each engine's verdict, from the same code as `idmodel info
//! --json` and `idmodel check`) come out. [`open_files`] is the whole logic, host-testable;
//! [`open`] is its wasm-bindgen export.
//!
//! Several files are one model and its side files: an MD3 with its `.skin`s and
//! `animation.cfg` (three of them named `lower`, `upper`, `head` in one folder are a
//! Quake III player), an md5mesh with its md5anims, skins as TGA, PCX, PNG or JPEG.
//! A `.pk3`/`.pk4` (zip) or `.pak` (`PACK`) is opened and its models listed.
//!
//! ```
//! let bytes = idmodel::md3::write(&idmodel::md3::Model::example())?;
//! let files = vec![idmodel_web::File { name: "sample.md3".into(), bytes }];
//! let opened = idmodel_web::open_files(files, &idmodel_web::Choice::default());
//! assert_eq!(opened.state["format"], "md3");
//! assert_eq!(opened.state["error"], serde_json::Value::Null);
//! assert_eq!(&opened.glb[..4], b"glTF");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
// A std crate (it links the conversion library): `std::` paths are the natural ones here.
#![allow(clippy::std_instead_of_core, clippy::std_instead_of_alloc)]

pub mod archive;
pub mod check;

use std::path::{Path, PathBuf};

use idmodel::core::detect::{Format, detect};
use idmodel::md5::anim::Anim;
use idmodel::md5::mesh::Model as Md5Mesh;
use idmodel_convert::Options;
use idmodel_scene::md3::{PLAYER_PARTS, part_name};
use serde_json::{Value, json};
use wasm_bindgen::prelude::wasm_bindgen;

/// A dropped file: its name (a path inside a dropped folder or archive, `/`-separated)
/// and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// The name, e.g. `sarge/lower.md3` or `pak0.pk3/models/players/sarge/lower.md3`.
    pub name: String,
    /// The whole file.
    pub bytes: Vec<u8>,
}

/// What the page chose besides the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    /// The model to show, by its name in the state's `models`; default: the first
    /// (an md5mesh before its md5anims).
    pub model: Option<String>,
    /// The skin: an MD3 skin name (`default`, `red`, `blue`) or an MDL/MD2 skin index.
    pub skin: Option<String>,
    /// Only the first frame, fast: no animation and no check panel (the page shows this
    /// at once, then opens the files again in full).
    pub first_frame: bool,
    /// A quantized GLB (`KHR_mesh_quantization`, [`Options::quantize`]): the page asks
    /// for it, about half the bytes to hand to three.js for an animated model.
    pub quantize: bool,
}

/// What [`open_files`] gives the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// `{format, frames, vertices, triangles, clips, textured, error, model, models,
    /// skins, skin, files, info, check}`: the first seven as `window.idmodelViewer.state()`
    /// returns them; `error` is the one-line message (then the GLB is empty).
    pub state: Value,
    /// The model as binary glTF (Y up), empty on an error.
    pub glb: Vec<u8>,
}

/// The wasm export: what [`open_files`] returns, for JavaScript.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Viewed {
    state: String,
    glb: Vec<u8>,
}

#[wasm_bindgen]
impl Viewed {
    /// The state as JSON text (see [`Opened::state`]).
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.state.clone()
    }

    /// The GLB bytes (empty on an error).
    #[wasm_bindgen(getter)]
    pub fn glb(&self) -> Vec<u8> {
        self.glb.clone()
    }
}

/// Opens the dropped files `names[i]` holding `files[i]` (each a `Uint8Array`) with the
/// chosen `model` and `skin`, in full or (`first_frame`) only the first frame, quantized
/// or not (see [`Choice`]).
#[wasm_bindgen]
pub fn open(
    names: Vec<String>,
    files: js_sys::Array,
    model: Option<String>,
    skin: Option<String>,
    first_frame: bool,
    quantize: bool,
) -> Viewed {
    let files = names
        .into_iter()
        .zip(files.iter())
        .map(|(name, v)| File {
            name,
            bytes: js_sys::Uint8Array::new(&v).to_vec(),
        })
        .collect();
    let opened = open_files(
        files,
        &Choice {
            model,
            skin,
            first_frame,
            quantize,
        },
    );
    Viewed {
        state: opened.state.to_string(),
        glb: opened.glb,
    }
}

/// The file name of `path` (after the last `/` or `\`).
fn base(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The folder of `path` (before the last `/` or `\`), empty for none.
fn dir(path: &str) -> &str {
    path.rfind(['/', '\\'])
        .and_then(|i| path.get(..i))
        .unwrap_or("")
}

/// The file name of `path` without its extension.
fn stem(path: &str) -> &str {
    let b = base(path);
    b.rsplit_once('.').map_or(b, |(s, _)| s)
}

/// What a file is, in a few words, for the files list.
fn what(file: &File) -> String {
    let lower = file.name.to_ascii_lowercase();
    match detect(&file.bytes) {
        Some(f) => f.name().to_owned(),
        None if lower.ends_with(".skin") => "Quake III skin".to_owned(),
        None if base(&lower) == "animation.cfg" => "Quake III animation.cfg".to_owned(),
        None if lower.ends_with(".tga") => "TGA image".to_owned(),
        None => "not a file idmodel knows".to_owned(),
    }
}

/// Whether `name` is a Quake III LOD (`upper_1.md3`, `head_2.md3`).
fn is_lod(name: &str) -> bool {
    stem(name)
        .rsplit_once('_')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether idmodel reads this format.
fn is_model(f: Option<Format>) -> bool {
    f.is_some_and(Format::is_supported)
}

/// The whole viewer logic: expands archives, picks the model, builds its scene with the
/// side files, resolves its textures, writes the GLB and the state. Never panics; every
/// failure is the state's one-line `error`.
pub fn open_files(dropped: Vec<File>, choice: &Choice) -> Opened {
    let mut budget = archive::MAX_EXTRACTED;
    let mut files = Vec::new();
    let mut listed = Vec::new();
    let mut archive_notes = Vec::new();
    for f in dropped {
        listed.push(json!({"name": f.name, "what": what(&f)}));
        let unpacked = match detect(&f.bytes) {
            Some(Format::Zip) => Some(archive::unzip(&f.name, &f.bytes, &mut budget)),
            Some(Format::Pak) => Some(archive::unpak(&f.name, &f.bytes, &mut budget)),
            _ => None,
        };
        match unpacked {
            Some(Ok(x)) => {
                archive_notes.push(format!("{}: a {} of {} files", f.name, what(&f), x.members));
                files.extend(x.files);
            }
            Some(Err(e)) => archive_notes.push(e),
            None => files.push(f),
        }
    }
    let models: Vec<&File> = files
        .iter()
        .filter(|f| is_model(detect(&f.bytes)))
        .collect();
    let names: Vec<&str> = models.iter().map(|f| f.name.as_str()).collect();
    let chosen = match &choice.model {
        Some(m) => models.iter().find(|f| f.name == *m).copied(),
        // A mesh before an md5anim or md5camera, a full model before its LODs
        // (`lower_1.md3`), else the order of the drop.
        None => models
            .iter()
            .min_by_key(|f| {
                let motion = matches!(detect(&f.bytes), Some(Format::Md5Anim | Format::Md5Camera));
                (motion, is_lod(&f.name))
            })
            .copied(),
    };
    let mut state = json!({
        "format": null, "frames": 0, "vertices": 0, "triangles": 0, "clips": [],
        "textured": 0, "error": null, "model": null, "models": names, "skins": [],
        "skin": null, "files": listed, "archives": archive_notes, "info": [], "check": [],
    });
    let Some(model) = chosen else {
        set(
            &mut state,
            "error",
            Value::String(nothing_to_show(&files, &archive_notes, choice)),
        );
        return Opened {
            state,
            glb: Vec::new(),
        };
    };
    let glb = match show(model, &files, choice, &mut state) {
        Ok(glb) => glb,
        Err(e) => {
            set(&mut state, "error", Value::String(e));
            Vec::new()
        }
    };
    Opened { state, glb }
}

/// The error when no file is a model idmodel reads: what the first file is (the
/// message of `idmodel info`), or what the archives held.
fn nothing_to_show(files: &[File], notes: &[String], choice: &Choice) -> String {
    if let Some(m) = &choice.model {
        return format!("no model named {m:?} among the files");
    }
    if let Some(note) = notes.first() {
        return format!("{note}, none of them a model idmodel reads");
    }
    match files.first() {
        None => "no files".to_owned(),
        Some(f) => match idmodel_convert::info_report(Path::new(&f.name), &f.bytes, true) {
            Err(e) => e,
            Ok(_) => format!("{}: not a model idmodel shows", f.name),
        },
    }
}

/// The side file `name` (compared without case) in folder `folder`.
fn sibling<'f>(files: &'f [File], folder: &str, name: &str) -> Option<&'f File> {
    files
        .iter()
        .find(|f| dir(&f.name) == folder && base(&f.name).eq_ignore_ascii_case(name))
}

/// The skin names of `part` in `folder`: `<part>_<name>.skin`.
fn skin_names(files: &[File], folder: &str, part: &str, out: &mut Vec<String>) {
    let prefix = format!("{part}_");
    for f in files.iter().filter(|f| dir(&f.name) == folder) {
        let b = base(&f.name).to_ascii_lowercase();
        if let Some(name) = b
            .strip_suffix(".skin")
            .and_then(|s| s.strip_prefix(prefix.as_str()))
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_owned());
        }
    }
}

/// The `info --json` object of `file`, or its one-line error.
fn info(file: &File) -> Result<Value, String> {
    let text = idmodel_convert::info_report(Path::new(&file.name), &file.bytes, true)?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.name))
}

/// Fills `state` for `model` and returns the GLB.
fn show(
    model: &File,
    files: &[File],
    choice: &Choice,
    state: &mut Value,
) -> Result<Vec<u8>, String> {
    let format = detect(&model.bytes);
    set(state, "model", Value::String(model.name.clone()));
    set(
        state,
        "format",
        format.map_or(Value::Null, |f| Value::String(f.id().to_owned())),
    );
    let folder = dir(&model.name);
    let part = part_name(base(&model.name));
    let player = format == Some(Format::Md3)
        && PLAYER_PARTS.contains(&part.as_str())
        && PLAYER_PARTS.iter().all(|p| {
            sibling(files, folder, &format!("{p}.md3"))
                .is_some_and(|f| detect(&f.bytes) == Some(Format::Md3))
        });
    let parts: Vec<&File> = if player {
        PLAYER_PARTS
            .iter()
            .filter_map(|p| sibling(files, folder, &format!("{p}.md3")))
            .collect()
    } else {
        vec![model]
    };
    if !choice.first_frame {
        set(
            state,
            "check",
            Value::Array(
                parts
                    .iter()
                    .map(
                        |f| json!({"file": f.name, "verdicts": check::verdicts(&f.name, &f.bytes)}),
                    )
                    .collect(),
            ),
        );
    }
    let infos: Vec<Value> = parts.iter().map(|f| info(f)).collect::<Result<_, _>>()?;
    set(
        state,
        "info",
        Value::Array(
            parts
                .iter()
                .zip(&infos)
                .map(|(f, i)| json!({"file": f.name, "info": i}))
                .collect(),
        ),
    );
    let sum = |key: &str| {
        infos
            .iter()
            .filter_map(|i| i.get(key).and_then(Value::as_u64))
            .fold(0u64, u64::saturating_add)
    };
    if let Some(first) = infos.first() {
        set(
            state,
            "frames",
            first.get("frames").cloned().unwrap_or(Value::Null),
        );
    }
    set(state, "vertices", json!(sum("vertices")));
    set(state, "triangles", json!(sum("triangles")));
    let mut options = Options {
        skin: choice.skin.clone(),
        frame: choice.first_frame.then_some(0),
        quantize: choice.quantize,
        ..Options::default()
    };
    match format {
        Some(Format::Md3) => {
            let mut skins = Vec::new();
            let roles: Vec<String> = if player {
                PLAYER_PARTS.iter().map(|p| (*p).to_owned()).collect()
            } else {
                vec![part.clone()]
            };
            for r in &roles {
                skin_names(files, folder, r, &mut skins);
            }
            let skin = choice
                .skin
                .clone()
                .or_else(|| skins.iter().find(|s| *s == "default").cloned())
                .or_else(|| skins.first().cloned());
            set(state, "skins", json!(skins));
            set(state, "skin", json!(skin));
            // The library's default is `<part>_default.skin`; another is asked for.
            options.skin = skin.filter(|s| s != "default");
        }
        Some(Format::Mdl) => {
            let n = idmodel::mdl::Mdl::parse(&model.bytes).map_or(0, |m| m.skin_count());
            list_skins(state, n, &options);
        }
        Some(Format::Md2) => {
            let n = idmodel::md2::Md2::parse(&model.bytes).map_or(0, |m| m.skin_fields().len());
            list_skins(state, n, &options);
        }
        Some(Format::Md5Mesh) => options.anims = fitting_anims(model, files),
        _ => {}
    }
    // A player is converted as its folder, any other model as its file.
    let source = if player { folder } else { model.name.as_str() };
    let output = PathBuf::from(format!("{}.glb", stem(source)));
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|f| (f.name.as_str(), f.bytes.as_slice()))
        .collect();
    let done =
        idmodel_convert::convert_bytes(&named, source, &output, &options).map_err(String::from)?;
    let glb = done.main_bytes();
    set(state, "clips", json!(clip_names(&glb)));
    set(state, "textured", json!(done.report.written.embedded));
    Ok(glb)
}

/// The md5anims among `files` that fit the md5mesh `model` (same joints), by name.
fn fitting_anims(model: &File, files: &[File]) -> Vec<PathBuf> {
    let Ok(mesh) = Md5Mesh::parse(&model.bytes) else {
        return Vec::new();
    };
    files
        .iter()
        .filter(|f| detect(&f.bytes) == Some(Format::Md5Anim))
        .filter(|f| {
            Anim::parse(&f.bytes).is_ok_and(|a| idmodel_scene::md5::mesh::fit(&mesh, &a).is_ok())
        })
        .map(|f| PathBuf::from(&f.name))
        .collect()
}

/// The names of a GLB's animations (its JSON chunk's `animations`), in order.
fn clip_names(glb: &[u8]) -> Vec<String> {
    let len = glb
        .get(12..16)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
        .and_then(|n| usize::try_from(n).ok());
    let json = len.and_then(|n| glb.get(20..20usize.saturating_add(n)));
    let doc: Value = json
        .and_then(|j| serde_json::from_slice(j).ok())
        .unwrap_or(Value::Null);
    doc.get("animations")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| {
                    x.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Sets `state[key]` (`state` is an object).
fn set(state: &mut Value, key: &str, value: Value) {
    if let Some(o) = state.as_object_mut() {
        o.insert(key.to_owned(), value);
    }
}

/// Lists skins `0` to `n - 1` and the chosen one (default `0`).
fn list_skins(state: &mut Value, n: usize, options: &Options) {
    let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    set(
        state,
        "skin",
        json!(options.skin.clone().or_else(|| names.first().cloned())),
    );
    set(state, "skins", json!(names));
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> File {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples")
            .join(name);
        File {
            name: name.to_owned(),
            bytes: std::fs::read(path).unwrap(),
        }
    }

    fn opened(files: Vec<File>) -> Value {
        let o = open_files(files, &Choice::default());
        assert_eq!(o.state["error"], Value::Null, "{}", o.state);
        assert_eq!(&o.glb[..4], b"glTF");
        o.state
    }

    #[test]
    fn every_sample_opens_and_matches_info() {
        for name in [
            "sample.mdl",
            "sample.md2",
            "sample.md3",
            "sample.md5mesh",
            "sample.md5anim",
            "sample.md5camera",
        ] {
            let f = sample(name);
            let info: Value = serde_json::from_str(
                &idmodel_convert::info_report(Path::new(name), &f.bytes, true).unwrap(),
            )
            .unwrap();
            let s = opened(vec![f]);
            for key in ["format", "frames", "vertices", "triangles"] {
                assert_eq!(s[key], info[key], "{name}: {key}");
            }
            assert_eq!(s["model"], name);
        }
    }

    #[test]
    fn the_first_frame_alone_has_no_clips_nor_checks() {
        let full = opened(vec![sample("sample.md3")]);
        let o = open_files(
            vec![sample("sample.md3")],
            &Choice {
                first_frame: true,
                ..Choice::default()
            },
        );
        assert_eq!(o.state["error"], Value::Null);
        assert_eq!(o.state["clips"], json!([]));
        assert_eq!(o.state["check"], json!([]));
        assert_eq!(o.state["vertices"], full["vertices"]);
        assert!(!full["clips"].as_array().unwrap().is_empty());
        assert!(!full["check"].as_array().unwrap().is_empty());
        assert!(o.glb.len() < full_glb_len(), "{}", o.glb.len());
    }

    fn full_glb_len() -> usize {
        open_files(vec![sample("sample.md3")], &Choice::default())
            .glb
            .len()
    }

    #[test]
    fn an_md5mesh_takes_the_dropped_anims_as_clips() {
        let s = opened(vec![sample("sample.md5anim"), sample("sample.md5mesh")]);
        assert_eq!(s["format"], "md5mesh");
        assert_eq!(s["clips"], json!(["sample"]));
        assert_eq!(s["models"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn a_malformed_model_gives_its_one_line_error() {
        let mut f = sample("sample.md3");
        f.bytes.truncate(200);
        let o = open_files(vec![f], &Choice::default());
        let e = o.state["error"].as_str().unwrap();
        assert!(e.starts_with("sample.md3: "), "{e}");
        assert!(!e.contains('\n'));
        assert!(o.glb.is_empty());
    }

    #[test]
    fn files_that_are_not_models_are_named() {
        let o = open_files(
            vec![File {
                name: "x.mdl".into(),
                bytes: b"IDST\x0a\0\0\0 and more bytes here".to_vec(),
            }],
            &Choice::default(),
        );
        let e = o.state["error"].as_str().unwrap();
        assert!(e.contains("Half-Life"), "{e}");
        let o = open_files(
            vec![File {
                name: "a.png".into(),
                bytes: b"\x89PNG\r\n\x1a\n....".to_vec(),
            }],
            &Choice::default(),
        );
        assert!(
            o.state["error"].as_str().unwrap().contains("PNG"),
            "{}",
            o.state
        );
        let o = open_files(Vec::new(), &Choice::default());
        assert_eq!(o.state["error"], "no files");
    }

    #[test]
    fn a_player_is_assembled_from_three_parts_with_skins_and_cfg() {
        let md3 = sample("sample.md3").bytes;
        let mut files: Vec<File> = PLAYER_PARTS
            .iter()
            .map(|p| File {
                name: format!("sarge/{p}.md3"),
                bytes: md3.clone(),
            })
            .collect();
        files.push(File {
            name: "sarge/lower_red.skin".into(),
            bytes: b"x,y.tga\n".to_vec(),
        });
        files.push(File {
            name: "sarge/head_default.skin".into(),
            bytes: b"x,y.tga\n".to_vec(),
        });
        let s = opened(files);
        assert_eq!(s["info"].as_array().unwrap().len(), 3);
        assert_eq!(s["skins"], json!(["red", "default"]));
        assert_eq!(s["skin"], "default");
        assert_eq!(s["check"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_zip_is_opened() {
        let md2 = sample("sample.md2");
        let z = archive::tests::zip(&[("models/a.md2", &md2.bytes)]);
        let s = opened(vec![File {
            name: "pak9.pk3".into(),
            bytes: z,
        }]);
        assert_eq!(s["model"], "pak9.pk3/models/a.md2");
        assert_eq!(s["format"], "md2");
        let z = archive::tests::zip(&[("readme.txt", b"hi")]);
        let o = open_files(
            vec![File {
                name: "e.pk3".into(),
                bytes: z,
            }],
            &Choice::default(),
        );
        assert!(
            o.state["error"]
                .as_str()
                .unwrap()
                .contains("none of them a model"),
            "{}",
            o.state
        );
    }

    fn corpus_file(dir: &Path, path: &str) -> File {
        File {
            name: path.to_owned(),
            bytes: std::fs::read(dir.join(path)).unwrap(),
        }
    }

    #[test]
    fn corpus_pk3_player_is_textured() {
        let Some(dir) = idmodel_test_support::corpus_dir("corpus_pk3_player_is_textured") else {
            return;
        };
        let s = opened(vec![corpus_file(&dir, "assets/openarena/kyonshi.pk3")]);
        assert_eq!(s["format"], "md3");
        assert!(!is_lod(s["model"].as_str().unwrap()), "{}", s["model"]);
        assert!(s["textured"].as_u64().unwrap() > 0, "{s}");
        assert!(s["clips"].as_array().unwrap().len() > 1, "{s}");
    }

    #[test]
    fn corpus_player_folder_has_cfg_clips_and_skins() {
        let Some(dir) = idmodel_test_support::corpus_dir("corpus_player_folder") else {
            return;
        };
        let files = [
            "lower.md3",
            "upper.md3",
            "head.md3",
            "animation.cfg",
            "lower_red.skin",
            "upper_red.skin",
            "head_red.skin",
        ]
        .iter()
        .map(|f| corpus_file(&dir, &format!("md3/oa_kyonshi/{f}")))
        .collect();
        let s = opened(files);
        assert!(
            s["clips"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "TORSO_GESTURE"),
            "{}",
            s["clips"]
        );
        assert_eq!(s["skin"], "red");
    }
}
