//! Game paths: the engines' name comparison and the safety checks every name passes before
//! it is indexed or joined to a host folder (docs/game-data.md §1.5).

use crate::profile::Profile;

/// The lookup key of `name` under `profile`'s comparison (docs/game-data.md §1.4): Quake
/// compares bytes exactly; Quake II folds ASCII letters; Quake III, ioq3 and Doom 3 fold
/// ASCII letters and read `\` and `:` as `/`. One leading `/` or `\` is dropped first
/// (Quake III, Doom 3).
///
/// ```
/// use idmodel_assets::{path::key, Profile};
/// assert_eq!(key(Profile::Ioq3, "Models\\Players/A.md3"), "models/players/a.md3");
/// assert_eq!(key(Profile::Quake2, "Models\\A.md2"), "models\\a.md2");
/// assert_eq!(key(Profile::Quake, "progs/Player.mdl"), "progs/Player.mdl");
/// ```
pub fn key(profile: Profile, name: &str) -> String {
    match profile {
        Profile::Quake => name.to_owned(),
        Profile::Quake2 => name.to_ascii_lowercase(),
        Profile::Quake3 | Profile::Ioq3 | Profile::Doom3 => {
            let name = name
                .strip_prefix('/')
                .or_else(|| name.strip_prefix('\\'))
                .unwrap_or(name);
            name.chars()
                .map(|c| match c {
                    '\\' | ':' => '/',
                    c => c.to_ascii_lowercase(),
                })
                .collect()
        }
    }
}

/// Why a name stored in an archive (or asked for by a model) may not be used as a game path:
/// `None` when it is safe, else a short reason. Refused: the empty name, control bytes, a
/// leading `/` or `\`, a `:` anywhere (drive letters, `::`), and `..` as a component, with
/// `\` read as a separator whatever the engine does (a name that escapes the root under any
/// engine's reading is refused under all).
///
/// ```
/// use idmodel_assets::path::unsafe_reason;
/// assert_eq!(unsafe_reason("models/a.md3"), None);
/// assert_eq!(unsafe_reason("models\\..\\..\\x"), Some("has a '..' component"));
/// assert_eq!(unsafe_reason("C:/x"), Some("has a ':' (a drive or stream name)"));
/// assert_eq!(unsafe_reason("/etc/passwd"), Some("is absolute"));
/// ```
pub fn unsafe_reason(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("is empty");
    }
    if name.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Some("has a control byte");
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Some("is absolute");
    }
    if name.contains(':') {
        return Some("has a ':' (a drive or stream name)");
    }
    if name.split(['/', '\\']).any(|c| c == "..") {
        return Some("has a '..' component");
    }
    None
}

/// The game path a lookup asks for, made ready for [`key`]: one leading `/` or `\` dropped
/// (as Quake III and Doom 3 do), then refused if [`unsafe_reason`] finds it unsafe.
///
/// # Errors
/// One line naming the path and the reason.
pub fn lookup_path(path: &str) -> Result<&str, String> {
    let trimmed = path
        .strip_prefix('/')
        .or_else(|| path.strip_prefix('\\'))
        .unwrap_or(path);
    match unsafe_reason(trimmed) {
        None => Ok(trimmed),
        Some(why) => Err(format!("refused game path {path:?}: it {why}")),
    }
}

/// Whether `name` lies directly in folder `dir` (a key-folded folder, no trailing `/`) and
/// ends with `ext` (ASCII case-insensitive), both already in key form.
pub(crate) fn in_dir_with_ext(key_name: &str, key_dir: &str, ext_lower: &str) -> bool {
    let rest = if key_dir.is_empty() {
        Some(key_name)
    } else {
        key_name
            .strip_prefix(key_dir)
            .and_then(|r| r.strip_prefix('/'))
    };
    rest.is_some_and(|r| {
        !r.contains('/') && !r.is_empty() && r.to_ascii_lowercase().ends_with(ext_lower)
    })
}
