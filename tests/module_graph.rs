//! No module cycles (STYLE.md, "What the models do that we do next"): in every library
//! crate, no module imports one that imports it back. Each module's imports are the
//! `crate::x` paths in its code and in the files of its folder (`mesh/owned.rs` is part
//! of `mesh`; comments excluded); a `crate::Name` re-exported at the crate root counts as
//! an import of the module `lib.rs` re-exports it from.
// Tests may index, unwrap and add: a panic here is a failed assertion. The file walk
// needs `std` (paths, `fs`), so the collections come from `std` too.
#![allow(clippy::restriction, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The source of each top-level module of `src` (`lexer.rs` → `lexer`) with the files
/// below its folder (`lexer/tests.rs`), without comment lines.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let mut code = code_of(&path);
            let folder = path.with_extension("");
            if folder.is_dir() {
                for file in files(&folder) {
                    code.push('\n');
                    code.push_str(&code_of(&file));
                }
            }
            out.insert(name, code);
        }
    }
    out
}

/// The `.rs` files below `dir`, sorted.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// A file's lines that are not comments.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    code.join("\n")
}

/// The identifier starting at `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first name of each path after a `crate::`: `x` in `x::Y`, or `a` and `b` in
/// `{a::C, b}` (nested braces belong to the item they follow).
fn heads(s: &str) -> Vec<&str> {
    let Some(list) = s.strip_prefix('{') else {
        return vec![ident(s)];
    };
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                out.push(ident(list[start..].trim_start()));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ident(list[start..].trim_start()));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.retain(|id| !id.is_empty());
    out
}

/// Which module each name re-exported by `lib.rs` (`pub use m::{A, b}`) comes from.
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = lib;
    while let Some(at) = rest.find("pub use ") {
        rest = &rest[at + 8..];
        let module = ident(rest).to_string();
        let end = rest.find(';').unwrap();
        let list = &rest[module.len()..end];
        for name in list.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !name.is_empty() && name != "self" {
                out.insert(name.to_string(), module.clone());
            }
        }
        rest = &rest[end..];
    }
    out
}

/// Each module's imports of other modules of the crate.
fn graph(crate_dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(crate_dir)
        .join("src");
    let mods = modules(&src);
    let exports = root_exports(&mods["lib"]);
    let mut g = BTreeMap::new();
    for (name, code) in &mods {
        if name == "lib" {
            continue;
        }
        let mut deps = BTreeSet::new();
        for (at, _) in code.match_indices("crate::") {
            for id in heads(&code[at + 7..]) {
                let module = if mods.contains_key(id) {
                    Some(id.to_string())
                } else {
                    exports.get(id).cloned()
                };
                if let Some(m) = module.filter(|m| m != name) {
                    deps.insert(m);
                }
            }
        }
        g.insert(name.clone(), deps);
    }
    g
}

/// The first cycle found, as a path of modules.
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut c = path[i..].to_vec();
            c.push(node.to_string());
            return Some(c);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in g.get(node).into_iter().flatten() {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|k| visit(g, k, &mut Vec::new(), &mut done))
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let edge = |a: &str, b: &[&str]| (a.to_string(), b.iter().map(|s| s.to_string()).collect());
    let g: BTreeMap<_, _> = [edge("a", &["b"]), edge("b", &["c"]), edge("c", &["a"])].into();
    assert_eq!(cycle(&g).unwrap(), ["a", "b", "c", "a"]);
    let g: BTreeMap<_, _> = [edge("a", &["b", "c"]), edge("b", &["c"]), edge("c", &[])].into();
    assert_eq!(cycle(&g), None);
    let exports = root_exports("pub use view::{Md3, Surface};\npub use raw::XYZ_SCALE;");
    assert_eq!(exports["Surface"], "view");
    assert_eq!(exports["XYZ_SCALE"], "raw");
    assert_eq!(heads("view::Md3;"), ["view"]);
    assert_eq!(
        heads("{Error, raw::{A, B},\n    view}; x"),
        ["Error", "raw", "view"]
    );
    assert_eq!(heads("{a, b,}"), ["a", "b"]);
}

/// Asserts that `crate_dir` has no module cycle and that `module` imports `dep` (so the
/// graph is not empty by mistake).
fn no_cycles(crate_dir: &str, module: &str, dep: &str) {
    let g = graph(crate_dir);
    assert!(g[module].contains(dep), "{crate_dir}: {g:?}");
    assert_eq!(cycle(&g), None, "{crate_dir}: {g:?}");
}

#[test]
fn md3_modules_have_no_cycles() {
    no_cycles("crates/md3", "view", "raw");
}

#[test]
fn md5_modules_have_no_cycles() {
    no_cycles("crates/md5", "lexer", "types");
    // The owned layer, now in `mesh/owned.rs`, is still read as part of `mesh`.
    assert!(graph("crates/md5")["mesh"].contains("write"));
}

#[test]
fn core_modules_have_no_cycles() {
    no_cycles("crates/core", "trivertx", "anorms");
}

#[test]
fn mdl_modules_have_no_cycles() {
    no_cycles("crates/mdl", "view", "raw");
}

#[test]
fn md2_modules_have_no_cycles() {
    no_cycles("crates/md2", "view", "raw");
}

#[test]
fn scene_modules_have_no_cycles() {
    no_cycles("crates/scene", "md3", "scene");
}

#[test]
fn gltf_modules_have_no_cycles() {
    no_cycles("crates/gltf", "export", "error");
}

#[test]
fn assets_modules_have_no_cycles() {
    no_cycles("crates/assets", "vfs", "profile");
}
