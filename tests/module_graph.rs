//! No module cycles: in every crate, no module imports one that imports it back. Each
//! module's imports are the `crate::x` paths in its code and in the files of its folder
//! (`mesh/owned.rs` is part of `mesh`; comments excluded); a `crate::Name` re-exported at
//! the crate root counts as an import of the module `lib.rs` re-exports it from. The
//! crate root's modules are checked first; then every folder level of every crate's
//! sources (`scene/src/md3/*`, `gltf/src/import/*`, …), with `super::`, `self::`, `use`
//! groups and the names a module brings in with `use`.
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
// Every level: at every folder level of every crate (the crate root, `md3/`, `import/`,
// …), no module uses a sibling that uses it back, directly or through other siblings.
// The siblings of a level are its child modules: a file `x.rs` with the files of its
// folder `x/` (and a module written inline, `mod x { … }`, as the fuzz targets are). A
// sibling's uses of another are the paths its code names it by: `crate::<level>::other`,
// `super::other` (from a file of the level's modules), `self::other`, and each path of a
// `use` group (`crate::a::{b, c::{d, e}}`). A name the level's module (or the crate root,
// or any module on the way) brings in with `use` (`pub use back::record`, globs too)
// counts as a use of the module that defines it. Comments and doc comments are left out,
// and so are the contents of string and character literals.

/// Every crate's sources checked at every level.
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

/// A module path from the crate root (`["md3", "back"]`; the root is `[]`).
type Mod = Vec<String>;

/// A graph of sibling modules: each one's uses of the others.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A token of code: an identifier or keyword, `::`, or another character.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Sep,
    P(char),
}

/// The index after the string literal whose contents start at `i` (after its `"`).
fn skip_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The tokens of `text`, without comments (line, block, doc) and without the contents of
/// string and character literals.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1);
            out.push(Tok::P('"'));
        } else if ch == '\'' {
            if next == Some('\\') {
                // An escaped character: '\n', '\'', '\u{..}'.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Tok::P('"'));
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push(Tok::P('"'));
            } else {
                // A lifetime or a label: its name follows.
                out.push(Tok::P('\''));
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let id: String = c[start..i].iter().collect();
            let at = c.get(i).copied();
            let raw = matches!(id.as_str(), "r" | "br" | "cr");
            if raw && (at == Some('#') || at == Some('"')) {
                let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
                if c.get(i + hashes) == Some(&'"') {
                    // A raw string: up to a `"` with as many `#` after it.
                    i += hashes + 1;
                    while i < c.len()
                        && !(c[i] == '"'
                            && c[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes)
                    {
                        i += 1;
                    }
                    i += 1 + hashes;
                    out.push(Tok::P('"'));
                    continue;
                }
                if id == "r" && hashes == 1 {
                    // A raw identifier (`r#type`).
                    i += 1;
                    continue;
                }
            }
            if matches!(id.as_str(), "b" | "c") && at == Some('"') {
                i = skip_string(&c, i + 1);
                out.push(Tok::P('"'));
            } else if id == "b" && at == Some('\'') {
                // A byte literal: the character branch reads it.
            } else {
                out.push(Tok::Id(id));
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Tok::Sep);
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(Tok::P(ch));
            }
            i += 1;
        }
    }
    out
}

/// Reads the `use` tree at `t[*i]` below `prefix`: each path it names, with the name it
/// binds (`None` for a glob).
fn use_tree(
    t: &[Tok],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut p = prefix.to_vec();
    loop {
        match t.get(*i) {
            Some(Tok::Sep) => *i += 1,
            Some(Tok::P('{')) => {
                *i += 1;
                loop {
                    match t.get(*i) {
                        Some(Tok::P('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::P(',')) => *i += 1,
                        Some(Tok::P(';')) | None => return,
                        Some(_) => use_tree(t, i, &p, out),
                    }
                }
            }
            Some(Tok::P('*')) => {
                *i += 1;
                out.push((p, None));
                return;
            }
            Some(Tok::Id(s)) => {
                *i += 1;
                if t.get(*i) == Some(&Tok::Sep) {
                    p.push(s.clone());
                    continue;
                }
                let mut name = if s == "self" {
                    p.last().cloned().unwrap_or_default()
                } else {
                    s.clone()
                };
                if s != "self" || p.is_empty() {
                    p.push(s.clone());
                }
                if t.get(*i) == Some(&Tok::Id("as".into())) {
                    if let Some(Tok::Id(n)) = t.get(*i + 1) {
                        name = n.clone();
                        *i += 2;
                    }
                }
                out.push((p, Some(name)));
                return;
            }
            _ => return,
        }
    }
}

/// What the code of one file says, each fact with the module (the file's, or one written
/// inline in it) it is said in.
#[derive(Default, Debug)]
struct Facts {
    /// The modules written inline (`mod tests { … }`).
    inline: Vec<Mod>,
    /// The paths of `use` items: scope, path as written, bound name (`None`: a glob),
    /// and whether the `use` is an item of its module (not inside a function).
    uses: Vec<(Mod, Vec<String>, Option<String>, bool)>,
    /// The paths in code that start with `crate`, `self` or `super`.
    paths: Vec<(Mod, Vec<String>)>,
    /// The other paths in code that may name something a glob `use` brings in (a path
    /// with `::`, a call, or a capitalised name).
    bare: Vec<(Mod, Vec<String>)>,
    /// The names the module's items define.
    defs: Vec<(Mod, String)>,
}

/// Reads the code of the file of module `module`.
fn facts(text: &str, module: &Mod) -> Facts {
    let t = tokens(text);
    let mut f = Facts::default();
    // The modules open at this point, with the brace depth of their bodies.
    let mut open: Vec<(Mod, usize)> = vec![(module.clone(), 0)];
    let mut depth = 0usize;
    let mut i = 0;
    let id = |k: usize| match t.get(k) {
        Some(Tok::Id(s)) => Some(s.as_str()),
        _ => None,
    };
    while i < t.len() {
        let (scope, body) = open.last().cloned().unwrap();
        let item = depth == body;
        let after_sep = i > 0 && t[i - 1] == Tok::Sep;
        match &t[i] {
            Tok::P('{') => {
                depth += 1;
                i += 1;
            }
            Tok::P('}') => {
                if open.len() > 1 && depth == body {
                    open.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Id(k) if k == "mod" && item && t.get(i + 2) == Some(&Tok::P('{')) => {
                let mut m = scope.clone();
                m.push(id(i + 1).unwrap_or_default().to_owned());
                f.defs.push((scope.clone(), m.last().unwrap().clone()));
                f.inline.push(m.clone());
                depth += 1;
                open.push((m, depth));
                i += 3;
            }
            Tok::Id(k) if k == "use" && !after_sep => {
                i += 1;
                let mut found = Vec::new();
                use_tree(&t, &mut i, &[], &mut found);
                for (p, name) in found {
                    f.uses.push((scope.clone(), p, name, item));
                }
                while i < t.len() && t[i] != Tok::P(';') {
                    i += 1;
                }
            }
            Tok::Id(k)
                if matches!(k.as_str(), "crate" | "self" | "super")
                    && !after_sep
                    && t.get(i + 1) == Some(&Tok::Sep) =>
            {
                let mut p = vec![k.clone()];
                i += 1;
                while t.get(i) == Some(&Tok::Sep) {
                    match id(i + 1) {
                        Some(s) => {
                            p.push(s.to_owned());
                            i += 2;
                        }
                        None => break,
                    }
                }
                f.paths.push((scope.clone(), p));
            }
            Tok::Id(k)
                if item
                    && matches!(
                        k.as_str(),
                        "fn" | "struct"
                            | "enum"
                            | "const"
                            | "static"
                            | "type"
                            | "trait"
                            | "union"
                            | "mod"
                    ) =>
            {
                if let Some(name) = id(i + 1) {
                    f.defs.push((scope.clone(), name.to_owned()));
                }
                i += 1;
            }
            Tok::Id(k)
                if !after_sep
                    && (i == 0 || !matches!(t[i - 1], Tok::P('.') | Tok::P('\'')))
                    && (matches!(t.get(i + 1), Some(Tok::Sep) | Some(Tok::P('(')))
                        || k.starts_with(|c: char| c.is_uppercase())) =>
            {
                let mut p = vec![k.clone()];
                i += 1;
                while t.get(i) == Some(&Tok::Sep) {
                    match id(i + 1) {
                        Some(s) => {
                            p.push(s.to_owned());
                            i += 2;
                        }
                        None => break,
                    }
                }
                f.bare.push((scope.clone(), p));
            }
            _ => i += 1,
        }
    }
    f
}

/// The module path of each source file (`src`-relative path and text): `x.rs` and
/// `x/mod.rs` are `x`, `lib.rs` and `main.rs` the root, and a file named by
/// `#[path = "t.rs"] mod table;` in `a.rs` is `a::table`.
fn module_paths(files: &[(PathBuf, String)]) -> Vec<Mod> {
    let plain = |p: &Path| -> Mod {
        let mut m: Mod = p
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if m.last()
            .is_some_and(|l| ["lib", "main", "mod"].contains(&l.as_str()))
        {
            m.pop();
        }
        m
    };
    let mut named = BTreeMap::new();
    for (p, text) in files {
        let mut lines = text.lines().map(str::trim);
        while let Some(l) = lines.next() {
            if let Some(target) = l
                .strip_prefix("#[path = \"")
                .and_then(|r| r.strip_suffix("\"]"))
            {
                let decl = lines.next().unwrap_or_default();
                let name = ident(decl.trim_start_matches("pub ").trim_start_matches("mod "));
                let mut m = plain(p);
                m.push(name.to_owned());
                named.insert(p.parent().unwrap().join(target), m);
            }
        }
    }
    files
        .iter()
        .map(|(p, _)| named.get(p).cloned().unwrap_or_else(|| plain(p)))
        .collect()
}

/// Everything known about a crate's modules, to resolve the paths its code names.
#[derive(Default)]
struct Crate {
    /// Every module: of a file or written inline.
    modules: BTreeSet<Mod>,
    /// The names each module's `use` items bring in, with the absolute paths they name.
    aliases: BTreeMap<Mod, BTreeMap<String, Vec<String>>>,
    /// The modules each module's glob `use` items bring in all of.
    globs: BTreeMap<Mod, Vec<Vec<String>>>,
    /// The names each module's items define.
    defs: BTreeMap<Mod, BTreeSet<String>>,
}

impl Crate {
    /// The absolute path of `path`, written in module `scope` (in a `use` item when
    /// `in_use`, where a path may start at a child module); `None` outside the crate.
    fn absolute(&self, path: &[String], scope: &Mod, in_use: bool) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => scope.clone(),
            _ => {
                let mut child = scope.clone();
                child.push(first.clone());
                if in_use && self.modules.contains(&child) {
                    scope.clone()
                } else {
                    return None;
                }
            }
        };
        let mut rest = path;
        if first == "crate" || first == "self" {
            rest = &path[1..];
        }
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// Whether module `m` has or brings in a name `name`.
    fn has(&self, m: &Mod, name: &str) -> bool {
        let mut child = m.clone();
        child.push(name.to_owned());
        self.modules.contains(&child)
            || self.defs.get(m).is_some_and(|d| d.contains(name))
            || self.aliases.get(m).is_some_and(|a| a.contains_key(name))
    }

    /// The modules the absolute path `path` goes through, up to the one that defines what
    /// it names, following the names modules bring in with `use`.
    fn resolve(&self, path: &[String], out: &mut Vec<Mod>, depth: usize) {
        let mut m: Mod = Vec::new();
        for (k, seg) in path.iter().enumerate() {
            let mut next = m.clone();
            next.push(seg.clone());
            if self.modules.contains(&next) {
                m = next;
                out.push(m.clone());
                continue;
            }
            if depth > 8 || self.defs.get(&m).is_some_and(|d| d.contains(seg)) {
                return;
            }
            if let Some(target) = self.aliases.get(&m).and_then(|a| a.get(seg)) {
                let mut p = target.clone();
                p.extend(path[k + 1..].iter().cloned());
                return self.resolve(&p, out, depth + 1);
            }
            for g in self.globs.get(&m).into_iter().flatten() {
                if self.has(g, seg) {
                    let mut p = g.clone();
                    p.extend(path[k..].iter().cloned());
                    return self.resolve(&p, out, depth + 1);
                }
            }
            return;
        }
    }
}

/// For each level of a crate (the module path of a module with two or more child
/// modules), the graph of its child modules, from the crate's source files (`src`-relative
/// path and text).
fn level_graphs(files: &[(PathBuf, String)]) -> BTreeMap<Mod, Graph> {
    let paths = module_paths(files);
    let all: Vec<Facts> = files
        .iter()
        .zip(&paths)
        .map(|((_, text), m)| facts(text, m))
        .collect();
    let mut krate = Crate::default();
    for (m, f) in paths.iter().zip(&all) {
        krate.modules.insert(m.clone());
        krate.modules.extend(f.inline.iter().cloned());
        for (scope, name) in &f.defs {
            krate
                .defs
                .entry(scope.clone())
                .or_default()
                .insert(name.clone());
        }
    }
    for f in &all {
        for (scope, p, name, item) in &f.uses {
            let Some(abs) = krate.absolute(p, scope, true).filter(|_| *item) else {
                continue;
            };
            match name {
                Some(n) => {
                    krate
                        .aliases
                        .entry(scope.clone())
                        .or_default()
                        .insert(n.clone(), abs);
                }
                None => krate.globs.entry(scope.clone()).or_default().push(abs),
            }
        }
    }
    let mut out: BTreeMap<Mod, Graph> = BTreeMap::new();
    for m in &krate.modules {
        if let Some((name, level)) = m.split_last() {
            out.entry(level.to_vec())
                .or_default()
                .entry(name.clone())
                .or_default();
        }
    }
    out.retain(|_, g| g.len() > 1);
    for f in &all {
        let written = f
            .uses
            .iter()
            .map(|(s, p, _, _)| (s, p, true))
            .chain(f.paths.iter().map(|(s, p)| (s, p, false)));
        let globbed = f.bare.iter().filter_map(|(scope, p)| {
            // A name a glob `use` of the module brings in (`use super::*;`).
            let g = krate
                .globs
                .get(scope)?
                .iter()
                .find(|g| krate.has(g, &p[0]))?;
            let mut abs = g.clone();
            abs.extend(p.iter().cloned());
            Some((scope, abs))
        });
        let written = written
            .filter_map(|(scope, p, in_use)| Some((scope, krate.absolute(p, scope, in_use)?)))
            .chain(globbed);
        for (scope, abs) in written {
            let mut through = Vec::new();
            krate.resolve(&abs, &mut through, 0);
            for to in through {
                let l = scope.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if let (Some(a), Some(b)) = (scope.get(l), to.get(l)) {
                    if let Some(g) = out.get_mut(&scope[..l]) {
                        g.get_mut(a).unwrap().insert(b.clone());
                    }
                }
            }
        }
    }
    out
}

/// The source files below `dir`, with their paths relative to `src`.
fn sources(src: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(src, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((p.strip_prefix(src).unwrap().to_path_buf(), text));
        }
    }
}

/// Each level of the crate whose sources are in `src` (relative to the workspace) with
/// the graph of its modules.
fn levels(src: &str) -> BTreeMap<Mod, Graph> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    files.sort();
    level_graphs(&files)
}

/// The import circles of the crate whose sources are in `src`: one per level that has
/// one, as `level: a -> b -> a`.
fn circles(src: &str) -> Vec<String> {
    levels(src)
        .iter()
        .filter_map(|(level, g)| {
            let c = cycle(g)?;
            Some(format!("{src}/{}: {}", level.join("/"), c.join(" -> ")))
        })
        .collect()
}

/// Asserts that no level of the crate whose sources are in `src` has an import circle,
/// and that at `level` module `from` uses its sibling `to` (so the graph is not empty by
/// mistake).
fn no_circles_at_any_level(src: &str, level: &[&str], from: &str, to: &str) {
    let all = levels(src);
    let level: Mod = level.iter().map(|s| s.to_string()).collect();
    let g = &all[&level];
    assert!(g[from].contains(to), "{src}/{}: {g:?}", level.join("/"));
    let found = circles(src);
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn every_level_reads_paths_as_rust_resolves_them() {
    let file = |p: &str, text: &str| (PathBuf::from(p), text.to_owned());
    let files = [
        file(
            "lib.rs",
            "mod a; mod b;\n// use crate::b::x::Z; (a comment)\npub use b::x::Root;\n\
             mod tests { use super::*; fn t() { b::g(); let a = 1; Root; } }\n",
        ),
        file("a.rs", "pub fn f() { crate::Root::new(); }\n"),
        file(
            "b.rs",
            "mod x; mod y; mod z; mod w;\npub use y::{self as why, Y};\nuse w::*;\n",
        ),
        // `x` uses `y` through the name `b` brings in from it, and `z` through `self`.
        file(
            "b/x.rs",
            "pub struct Root; fn g() { super::Y; }\nuse self::super::z::Zed;\n",
        ),
        // `y` uses `z` in a group, and a string or a test module's `super` is no use.
        file(
            "b/y.rs",
            "use crate::{a, b::{z::{self, Z}}};\npub struct Y;\nconst S: &str = \"super::w::W\";\n\
             mod tests { use super::*; fn t() { super::Y; } }\n",
        ),
        // `z` uses `w` through `b`'s glob, and `w` uses `x` through a raw string's end.
        file(
            "b/z.rs",
            "pub struct Z; pub struct Zed; fn h() { super::W::new(); }\n",
        ),
        file(
            "b/w.rs",
            "pub struct W; const R: &str = r#\"\"\"#; fn i(_: &'static str) { let c = '\"'; super::x::Root; }\n",
        ),
    ];
    let g = level_graphs(&files);
    let set = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    // At the root, `a` uses `b` (through the name the crate root brings in from `b::x`).
    assert_eq!(g[&Vec::new()]["a"], set(&["b"]));
    assert_eq!(g[&Vec::new()]["b"], set(&["a"]));
    // A test module's `use super::*` brings in the root's modules and names.
    assert_eq!(g[&Vec::new()]["tests"], set(&["b"]));
    let b = &g[&vec!["b".to_string()]];
    assert_eq!(b["x"], set(&["y", "z"]));
    assert_eq!(b["y"], set(&["z"]));
    assert_eq!(b["z"], set(&["w"]));
    assert_eq!(b["w"], set(&["x"]));
    // The test module written in `y` is a level of its own, with one module: not checked.
    assert!(!g.contains_key(&vec!["b".to_string(), "y".to_string()]));
    assert_eq!(cycle(&g[&Vec::new()]).unwrap(), ["a", "b", "a"]);
    assert_eq!(cycle(b).unwrap(), ["w", "x", "y", "z", "w"]);
    // `#[path]` files are the module that names them; comments and literals are not code.
    let files = [
        file("lib.rs", "mod n;\nmod m;\n"),
        file(
            "n.rs",
            "#[path = \"n_table.rs\"]\nmod table;\n/* crate::m::X */ const C: char = 'x';\n",
        ),
        file("n_table.rs", "use super::super::m::X;\n"),
        file("m.rs", "pub struct X;\n"),
    ];
    let g = level_graphs(&files);
    assert_eq!(g[&Vec::new()]["n"], set(&["m"]));
    assert_eq!(g[&Vec::new()]["m"], set(&[]));
    assert_eq!(
        tokens("a::b // c::d\n'a' b\"q\" 'l"),
        [
            Tok::Id("a".into()),
            Tok::Sep,
            Tok::Id("b".into()),
            Tok::P('"'),
            Tok::P('"'),
            Tok::P('\''),
            Tok::Id("l".into()),
        ]
    );
}

#[test]
fn no_module_uses_a_sibling_that_uses_it_back_at_any_level() {
    // Not an empty walk: the crates have many levels and many uses between siblings.
    let (mut checked, mut edges) = (0, 0);
    for src in CRATES {
        for g in levels(src).values() {
            checked += 1;
            edges += g.values().map(BTreeSet::len).sum::<usize>();
        }
    }
    assert!(checked > 20, "only {checked} levels");
    assert!(edges > 100, "only {edges} uses between siblings");
}

#[test]
fn core_has_no_import_circles() {
    no_circles_at_any_level("crates/core/src", &[], "trivertx", "anorms");
}

#[test]
fn mdl_has_no_import_circles() {
    no_circles_at_any_level("crates/mdl/src", &[], "view", "raw");
}

#[test]
fn md2_has_no_import_circles() {
    no_circles_at_any_level("crates/md2/src", &[], "view", "raw");
}

#[test]
fn md3_has_no_import_circles() {
    no_circles_at_any_level("crates/md3/src", &[], "view", "raw");
}

#[test]
fn md5_has_no_import_circles() {
    no_circles_at_any_level("crates/md5/src", &[], "lexer", "types");
}

#[test]
fn scene_has_no_import_circles() {
    no_circles_at_any_level("crates/scene/src", &["md3"], "player_back", "back");
}

#[test]
fn assets_has_no_import_circles() {
    no_circles_at_any_level("crates/assets/src", &["textures"], "md3", "load");
}

#[test]
fn gltf_has_no_import_circles() {
    no_circles_at_any_level("crates/gltf/src", &["import"], "scene", "doc");
}

#[test]
fn convert_has_no_import_circles() {
    no_circles_at_any_level("crates/convert/src", &[], "batch", "model");
}

#[test]
fn cli_has_no_import_circles() {
    no_circles_at_any_level("crates/cli/src", &[], "commands", "output");
}

#[test]
fn capi_has_no_import_circles() {
    no_circles_at_any_level("crates/capi/src", &[], "ffi", "message");
}

#[test]
fn web_has_no_import_circles() {
    no_circles_at_any_level("web/src", &[], "tests", "archive");
}

#[test]
fn fuzz_has_no_import_circles() {
    no_circles_at_any_level("fuzz/src", &[], "md5anim", "md5mesh");
}
