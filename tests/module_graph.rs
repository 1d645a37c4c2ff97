//! No module cycles (STYLE.md, "What the models do that we do next"): in the MD3 and MD5
//! crates, no module imports one that imports it back. Each module's imports are the
//! `crate::x` paths in its code (comments excluded); a `crate::Name` re-exported at the
//! crate root counts as an import of the module `lib.rs` re-exports it from.
// Tests may index, unwrap and add: a panic here is a failed assertion. The file walk
// needs `std` (paths, `fs`), so the collections come from `std` too.
#![allow(clippy::restriction, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The source of each top-level module of `src` (`lexer.rs` → `lexer`), without
/// comment lines.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.insert(name, code.join("\n"));
        }
    }
    out
}

/// The identifier starting at `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
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
            let id = ident(&code[at + 7..]);
            let module = if mods.contains_key(id) {
                Some(id.to_string())
            } else {
                exports.get(id).cloned()
            };
            if let Some(m) = module.filter(|m| m != name) {
                deps.insert(m);
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
}

#[test]
fn md3_modules_have_no_cycles() {
    let g = graph("crates/md3");
    assert!(g["view"].contains("raw"), "{g:?}");
    assert_eq!(cycle(&g), None, "{g:?}");
}

#[test]
fn md5_modules_have_no_cycles() {
    let g = graph("crates/md5");
    assert!(g["lexer"].contains("types"), "{g:?}");
    assert_eq!(cycle(&g), None, "{g:?}");
}
