//! No import circles: at every folder level of every crate's sources (the crate root,
//! `scene/src/md3/*`, `gltf/src/import/*`, …), no module uses a sibling that uses it back,
//! directly or through others; uses are read from `crate::`, `super::` and `self::` paths,
//! `use` groups and the names a module brings in with `use` (see the section below).
// Tests may index, unwrap and add: a panic here is a failed assertion. The file walk
// needs `std` (paths, `fs`), so the collections come from `std` too.
#![allow(clippy::restriction, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The identifier starting at `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
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

/// Every crate's sources checked at every level, each with a use its graph must show
/// (at a level, a module and the sibling it uses).
const CRATES: [(&str, &[&str], &str, &str); 13] = [
    ("crates/core/src", &[], "trivertx", "anorms"),
    ("crates/mdl/src", &[], "view", "raw"),
    ("crates/md2/src", &[], "view", "raw"),
    ("crates/md3/src", &[], "view", "raw"),
    ("crates/md5/src", &[], "lexer", "types"),
    ("crates/scene/src", &["md3"], "player_back", "back"),
    ("crates/assets/src", &["textures"], "md3", "load"),
    ("crates/gltf/src", &["import"], "scene", "doc"),
    ("crates/convert/src", &[], "batch", "model"),
    ("crates/cli/src", &[], "commands", "output"),
    ("crates/capi/src", &[], "ffi", "message"),
    ("web/src", &[], "tests", "archive"),
    ("fuzz/src", &[], "md5anim", "md5mesh"),
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
                if t.get(*i) == Some(&Tok::Id("as".into()))
                    && let Some(Tok::Id(n)) = t.get(*i + 1)
                {
                    name = n.clone();
                    *i += 2;
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
    // The path starting at the identifier `t[i]` (`a::b::c`) and the index after it.
    let path_at = |mut i: usize| {
        let mut p = vec![id(i).unwrap_or_default().to_owned()];
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
        (p, i)
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
                let p;
                (p, i) = path_at(i);
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
                let p;
                (p, i) = path_at(i);
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
                if let (Some(a), Some(b)) = (scope.get(l), to.get(l))
                    && let Some(g) = out.get_mut(&scope[..l])
                {
                    g.get_mut(a).unwrap().insert(b.clone());
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
    for (src, ..) in CRATES {
        for g in levels(src).values() {
            checked += 1;
            edges += g.values().map(BTreeSet::len).sum::<usize>();
        }
    }
    assert!(checked > 20, "only {checked} levels");
    assert!(edges > 100, "only {edges} uses between siblings");
}

#[test]
fn no_crate_has_an_import_circle_at_any_level() {
    let mut found = Vec::new();
    for (src, level, from, to) in CRATES {
        let all = levels(src);
        // Not an empty graph by mistake: a use every crate's graph must show.
        let level: Mod = level.iter().map(|s| s.to_string()).collect();
        let g = &all[&level];
        assert!(g[from].contains(to), "{src}/{}: {g:?}", level.join("/"));
        found.extend(circles(src));
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}
