//! Bytes with a name: a model and the files beside it (skins, `.skin`, `animation.cfg`,
//! md5anims, shader scripts) held in memory, as a web page or a binding has them. They
//! are read as one archive, through the same code as a model on disk or in a `.pk3`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use idmodel_assets::MemFiles;

use crate::options::Options;
use crate::outcome::{Converted, Error};

/// Numbers the memory archives of this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// Converts the model at game path `model` among `files` (game paths and bytes: the
/// model itself and every file it may use) to `output`, as [`convert`](crate::convert)
/// converts a file: `output` names the result (`model.glb`), and the files come back
/// named after it. Paths are matched without regard to ASCII case, as in a `.pk3`, and a
/// file the model names that is not at its path is found by its file name alone (files
/// dropped without their folders).
/// [`Options::anims`] and [`Options::game`] are not read (the md5anims are among
/// `files`: name them in `anims` by their game paths).
///
/// ```
/// let md2 = include_bytes!("../../../samples/sample.md2");
/// let files = [("models/sample/tris.md2", &md2[..])];
/// let done = idmodel_convert::convert_bytes(&files, "models/sample/tris.md2", "tris.glb".as_ref(),
///     &idmodel_convert::Options::default()).unwrap();
/// assert_eq!(&done.main_bytes()[..4], b"glTF");
/// ```
///
/// # Errors
/// As [`convert`](crate::convert); a `model` not among `files` fails.
pub fn convert_bytes(
    files: &[(&str, &[u8])],
    model: &str,
    output: &Path,
    options: &Options,
) -> Result<Converted, Error> {
    let mut mem = MemFiles::default();
    for (name, bytes) in files {
        mem.insert(&clean(name), bytes.to_vec());
    }
    // No process id: it does not exist on every target (wasm32).
    let label = format!("memory-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    crate::archives::register_memory(&label, mem.by_file_name());
    let at = |name: &str| crate::archives::virtual_path(Path::new(&label), &clean(name));
    let anims = options
        .anims
        .iter()
        .map(|a| at(&a.to_string_lossy()))
        .collect();
    let options = Options {
        anims,
        game: Vec::new(),
        ..options.clone()
    };
    let result = crate::convert(&at(model), output, &options);
    crate::archives::unregister(&label);
    let mut done = result.map_err(|e| unlabel(e, &label))?;
    done.report.inputs.clear();
    let strip = |s: &mut String| *s = s.replace(&format!("{label}:/"), "");
    done.report.warnings.iter_mut().for_each(strip);
    done.report.lines.iter_mut().for_each(strip);
    Ok(done)
}

/// A game path with `\` as `/` and no leading `/`.
fn clean(name: &str) -> String {
    name.replace('\\', "/").trim_start_matches('/').to_owned()
}

/// The error with the memory archive's label taken out of its line.
fn unlabel(e: Error, label: &str) -> Error {
    let fix = |s: String| s.replace(&format!("{label}:/"), "");
    match e {
        Error::Usage(s) => Error::Usage(fix(s)),
        Error::Failed(s) => Error::Failed(fix(s)),
        Error::Refused(s) => Error::Refused(fix(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gltf_in_memory_goes_back_to_the_id_file_it_came_from() {
        let md3 = include_bytes!("../../../samples/sample.md3");
        let files = [("models/x/sample.md3", &md3[..])];
        let glb = convert_bytes(
            &files,
            "models/x/sample.md3",
            Path::new("s.glb"),
            &Options::default(),
        )
        .unwrap()
        .main_bytes();
        let files = [("s.glb", glb.as_slice())];
        let back = convert_bytes(&files, "s.glb", Path::new("s.md3"), &Options::default()).unwrap();
        assert_eq!(back.main_bytes(), md3);
        assert_eq!(back.files.len(), 1);
        // A missing model names itself, without the memory archive's label.
        let e =
            convert_bytes(&files, "t.glb", Path::new("t.md3"), &Options::default()).unwrap_err();
        assert!(e.line().starts_with("t.glb: "), "{e}");
    }
}
