//! No module cycles: in every library crate, no module imports one that imports it back. Each module's imports are the
//! `crate::x` paths in its code and in the files of its folder (`mesh/owned.rs` is part
//! of `mesh`; comments excluded); a `crate::Name` re-exported at the crate root counts as
//! an import of the module `lib.rs` re-exports it from.
// Tests may index, unwrap and add: a panic here is a failed assertion. The file walk
// needs `std` (paths, `fs`), so the collections come from `std` too.
#![allow(clippy::restriction, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

// ---------------------------------------------------------------------------------------
// Every level: at every folder (the crate root, `md3/`, `import/`, …) of every crate, no
// module uses a sibling that uses it back, directly or through other siblings. A module
// is its file with the files of its folder; its uses of a sibling are
// `crate::<folder>::sibling` paths (with `use` groups), `super::sibling` from the
// module's own file, `super::super::sibling` from a file one folder deeper, and names the
// folder's module re-exports from the sibling (`pub use back::{record, to_bytes}`).
// Comments and the test modules at the end of files (`#[cfg(test)]`) are left out.

/// Every crate's sources checked.
const CRATES: [&str; 13] = [
    "crates/core/src",
    "crates/mdl/src",
    "crates/md2/src",
    "crates/md3/src",
    "crates/md5/src",
    "crates/scene/src",
    "crates/assets/src",
    "crates/gltf/src",
    "crates/convert/src",
    "crates/cli/src",
    "crates/capi/src",
    "web/src",
    "fuzz/src",
];

/// A module path (`["md3", "back"]`).
type Path_ = Vec<String>;

/// Every `.rs` file below `dir`, with its module path (`lib.rs`, `main.rs` and `mod.rs`
/// name their folder's module).
fn module_files(src: &Path, dir: &Path, out: &mut Vec<(Path_, PathBuf)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            module_files(src, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut m: Path_ = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if ["lib", "main", "mod"].contains(&m.last().unwrap().as_str()) {
                m.pop();
            }
            out.push((m, p));
        }
    }
}

/// The code of a file without comment lines and without its test module.
fn code_without_tests(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if !t.starts_with("//") {
            out.push(l);
        }
    }
    out.join("\n")
}

/// The paths a `use`-like path text starting at `s` names: `a::b::C` gives `[a, b, C]`;
/// `a::{b, c::D}` gives `[a, b]` and `[a, c, D]` (one level of braces).
fn paths(s: &str) -> Vec<Path_> {
    let mut base = Vec::new();
    let mut rest = s;
    loop {
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            return list[..end]
                .split(',')
                .map(|item| {
                    let mut p = base.clone();
                    p.extend(
                        item.trim()
                            .split("::")
                            .map(|x| ident(x.trim()).to_owned())
                            .filter(|x| !x.is_empty()),
                    );
                    p
                })
                .filter(|p: &Path_| p.len() > base.len())
                .collect();
        }
        let id = ident(rest);
        if id.is_empty() {
            return vec![base];
        }
        base.push(id.to_owned());
        match rest[id.len()..].strip_prefix("::") {
            Some(r) => rest = r,
            None => return vec![base],
        }
    }
}

/// The absolute module paths a file of module `module` refers to.
fn refs(code: &str, module: &Path_, is_folder_file: bool) -> Vec<Path_> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        out.extend(paths(&code[at + 7..]));
    }
    // `super` from a file is the module's parent; from `x/mod.rs` or `lib.rs`, likewise.
    let parent = |n: usize| -> Option<Path_> {
        let _ = is_folder_file;
        module.len().checked_sub(n).map(|k| module[..k].to_vec())
    };
    for (at, _) in code.match_indices("super::") {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &code[at + 7..];
        let mut up = 1;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            up += 1;
        }
        if let Some(base) = parent(up) {
            for p in paths(rest) {
                let mut full = base.clone();
                full.extend(p);
                out.push(full);
            }
        }
    }
    out
}

/// The names the module file `code` re-exports from its child modules: name → child.
fn reexports(code: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (at, _) in code.match_indices("pub use ") {
        let rest = &code[at + 8..];
        let end = rest.find(';').unwrap_or(rest.len());
        for p in paths(&rest[..end]) {
            if p.len() >= 2 && p[0] != "crate" && p[0] != "super" && p[0] != "self" {
                out.insert(p.last().unwrap().clone(), p[0].clone());
            }
        }
    }
    out
}

/// For every folder level of the crate at `src`: the level (its module path) and the
/// graph of its sibling modules.
fn levels(src: &str) -> Vec<(Path_, BTreeMap<String, BTreeSet<String>>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut all = Vec::new();
    module_files(&src, &src, &mut all);
    let code: Vec<(Path_, String, bool)> = all
        .iter()
        .map(|(m, p)| {
            let folder_file = ["lib.rs", "main.rs", "mod.rs"]
                .iter()
                .any(|f| p.file_name().unwrap() == *f);
            (m.clone(), code_without_tests(p), folder_file)
        })
        .collect();
    let modules: BTreeSet<Path_> = code.iter().map(|(m, _, _)| m.clone()).collect();
    let mut out = Vec::new();
    for level in modules.iter().chain(std::iter::once(&Vec::new())) {
        let siblings: BTreeSet<String> = modules
            .iter()
            .filter(|m| m.len() == level.len() + 1 && m.starts_with(level))
            .map(|m| m.last().unwrap().clone())
            .collect();
        if siblings.len() < 2 {
            continue;
        }
        let exported = code
            .iter()
            .find(|(m, _, _)| m == level)
            .map(|(_, c, _)| reexports(c))
            .unwrap_or_default();
        let mut g: BTreeMap<String, BTreeSet<String>> = siblings
            .iter()
            .map(|s| (s.clone(), BTreeSet::new()))
            .collect();
        for (m, c, folder_file) in &code {
            if m.len() <= level.len() || !m.starts_with(level) {
                continue;
            }
            let me = &m[level.len()];
            for r in refs(c, m, *folder_file) {
                if r.len() <= level.len() || !r.starts_with(level) {
                    continue;
                }
                let head = &r[level.len()];
                let target = if siblings.contains(head) {
                    Some(head.clone())
                } else {
                    exported.get(head).cloned()
                };
                if let Some(t) = target.filter(|t| t != me && siblings.contains(t)) {
                    g.get_mut(me).unwrap().insert(t);
                }
            }
        }
        out.push((level.clone(), g));
    }
    out
}

#[test]
fn paths_and_references_are_read_as_rust_names_them() {
    assert_eq!(paths("a::b::C;"), [vec!["a", "b", "C"]]);
    assert_eq!(paths("a::{b, c::D}"), [vec!["a", "b"], vec!["a", "c", "D"]]);
    let m: Path_ = vec!["md3".into(), "player".into()];
    let r = refs(
        "use super::parts::{X};\nuse crate::md3::back::y;\nsuper::super::Z",
        &m,
        false,
    );
    assert!(r.contains(&vec!["md3".to_string(), "parts".into(), "X".into()]));
    assert!(r.contains(&vec!["md3".to_string(), "back".into(), "y".into()]));
    assert!(r.contains(&vec!["Z".to_string()]));
    let e = reexports("pub use back::{record, to_bytes};\npub use crate::x::Y;");
    assert_eq!(e["record"], "back");
    assert!(!e.contains_key("Y"));
    // A cycle through a re-export is found.
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycle(&g).unwrap(), ["a", "b", "a"]);
}

#[test]
fn no_module_uses_a_sibling_that_uses_it_back_at_any_level() {
    let mut checked = 0;
    let mut edges = 0;
    let mut found = Vec::new();
    for src in CRATES {
        for (level, g) in levels(src) {
            checked += 1;
            edges += g.values().map(BTreeSet::len).sum::<usize>();
            if let Some(c) = cycle(&g) {
                found.push(format!("{src}/{}: {}", level.join("/"), c.join(" -> ")));
            }
        }
    }
    // Not an empty walk: the crates have many levels and many uses between siblings.
    assert!(checked > 20, "only {checked} levels");
    assert!(edges > 100, "only {edges} uses between siblings");
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}
