//! No import circles at any level: in every crate of the workspace, at every folder (the
//! crate root, `md3/`, `import/`, …), no module uses a sibling that uses it back,
//! directly or through other siblings. A module is its file with the files of its
//! folder (`md3/back.rs` is part of `md3` at the root level, and a node of its own at
//! `md3/`'s level); its uses of a sibling are `crate::<folder>::sibling` paths (with
//! `use` groups), `super::sibling` from the module's own file, `super::super::sibling`
//! from a file one folder deeper, and names the folder's module re-exports from the
//! sibling (`pub use back::{record, to_bytes}`). Comments and the test modules at the end
//! of files (`#[cfg(test)]`) are left out.
// Tests may index, unwrap and add: a panic here is a failed assertion. The file walk
// needs `std` (paths, `fs`), so the collections come from `std` too.
#![allow(clippy::restriction, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

type Path_ = Vec<String>;

/// Every `.rs` file below `dir`, with its module path (`lib.rs`, `main.rs` and `mod.rs`
/// name their folder's module).
fn files(src: &Path, dir: &Path, out: &mut Vec<(Path_, PathBuf)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(src, &p, out);
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
fn code_of(path: &Path) -> String {
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

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
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
    files(&src, &src, &mut all);
    let code: Vec<(Path_, String, bool)> = all
        .iter()
        .map(|(m, p)| {
            let folder_file = ["lib.rs", "main.rs", "mod.rs"]
                .iter()
                .any(|f| p.file_name().unwrap() == *f);
            (m.clone(), code_of(p), folder_file)
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
