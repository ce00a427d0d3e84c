//! The code as the compiler sees it, for the layering tests (issue 50, D-177): each crate's
//! module tree followed from its root through `mod` declarations, every file parsed whole with
//! `syn`, and every item under `#[cfg(test)]` dropped (a test module, a test-only function, a
//! test-only `mod x;` and the file behind it), wherever it stands in the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// One module of a crate: its path from the crate root (`[]` for the root), the file it is in,
/// and its production items (inline child modules are modules of their own).
pub(crate) struct Module {
    pub(crate) path: Vec<String>,
    pub(crate) file: PathBuf,
    pub(crate) items: Vec<syn::Item>,
}

impl Module {
    /// `a::b`, or `crate` for the root.
    pub(crate) fn name(&self) -> String {
        if self.path.is_empty() {
            "crate".to_owned()
        } else {
            self.path.join("::")
        }
    }
}

/// Whether `attrs` hold `#[cfg(test)]` (or a `cfg` whose only condition is `test`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

/// Every production module of the crate whose root file is `root` (`lib.rs`, `main.rs` or a
/// binary's file), in the order they are declared.
pub(crate) fn crate_modules(root: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let dir = root
        .parent()
        .expect("a root file in a folder")
        .to_path_buf();
    file_module(root, Vec::new(), dir, &mut out);
    out
}

fn parse(file: &Path) -> syn::File {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()))
}

/// The module in `file` at `path`, whose out-of-line children live in `children`.
fn file_module(file: &Path, path: Vec<String>, children: PathBuf, out: &mut Vec<Module>) {
    let parsed = parse(file);
    inline_module(file, path, parsed.items, children, out);
}

fn inline_module(
    file: &Path,
    path: Vec<String>,
    items: Vec<syn::Item>,
    children: PathBuf,
    out: &mut Vec<Module>,
) {
    let mut own = Vec::new();
    let mut later = Vec::new();
    for item in items {
        match item {
            syn::Item::Mod(m) if test_only(&m.attrs) => {}
            syn::Item::Mod(m) => later.push(m),
            item if item_test_only(&item) => {}
            item => own.push(item),
        }
    }
    out.push(Module {
        path: path.clone(),
        file: file.to_path_buf(),
        items: own,
    });
    for m in later {
        let name = m.ident.to_string();
        let mut child = path.clone();
        child.push(name.clone());
        match m.content {
            Some((_, items)) => {
                inline_module(file, child, items, children.join(&name), out);
            }
            None => {
                let flat = children.join(format!("{name}.rs"));
                let (source, grandchildren) = if flat.is_file() {
                    (flat, children.join(&name))
                } else {
                    let nested = children.join(&name).join("mod.rs");
                    assert!(
                        nested.is_file(),
                        "{}: `mod {name};` has no file",
                        file.display()
                    );
                    (nested, children.join(&name))
                };
                file_module(&source, child, grandchildren, out);
            }
        }
    }
}

/// Whether an item other than a module is compiled for tests only.
fn item_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => return false,
    };
    test_only(attrs)
}

/// Every path the module's items name through `crate::`, `super::` or `self::` (in `use` trees
/// and in code alike), made absolute from the crate root.
pub(crate) fn references(module: &Module) -> BTreeSet<Vec<String>> {
    struct Paths<'a> {
        here: &'a [String],
        out: BTreeSet<Vec<String>>,
    }
    impl Paths<'_> {
        fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
            let mut at: Vec<String> = match segments.first().map(String::as_str) {
                Some("crate") => Vec::new(),
                Some("self") => self.here.to_vec(),
                Some("super") => self.here.to_vec(),
                _ => return None,
            };
            let mut rest = &segments[1..];
            if segments[0] == "super" {
                at.pop()?;
            }
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
            at.extend(rest.iter().cloned());
            Some(at)
        }

        fn take(&mut self, segments: Vec<String>) {
            if let Some(path) = self.absolute(&segments) {
                self.out.insert(path);
            }
        }

        fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
            match tree {
                syn::UseTree::Path(p) => {
                    prefix.push(p.ident.to_string());
                    self.use_tree(prefix, &p.tree);
                    prefix.pop();
                }
                syn::UseTree::Name(n) => {
                    let mut path = prefix.clone();
                    if n.ident != "self" {
                        path.push(n.ident.to_string());
                    }
                    self.take(path);
                }
                syn::UseTree::Rename(r) => {
                    let mut path = prefix.clone();
                    path.push(r.ident.to_string());
                    self.take(path);
                }
                syn::UseTree::Glob(_) => self.take(prefix.clone()),
                syn::UseTree::Group(g) => {
                    for tree in &g.items {
                        self.use_tree(prefix, tree);
                    }
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Paths<'_> {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.take(segments);
            syn::visit::visit_path(self, path);
        }

        fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
            self.use_tree(&mut Vec::new(), &item.tree);
        }

        // A nested module is a module of its own.
        fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    }
    let mut paths = Paths {
        here: &module.path,
        out: BTreeSet::new(),
    };
    for item in &module.items {
        paths.visit_item(item);
    }
    paths.out
}

/// Every path the module's items name from outside the crate (`std::fs::File`,
/// `tokio::net::TcpStream`), in `use` trees and in code alike, as written.
pub(crate) fn outside_paths(module: &Module) -> Vec<(usize, String)> {
    struct Paths {
        out: Vec<(usize, String)>,
    }
    impl Paths {
        fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
            match tree {
                syn::UseTree::Path(p) => {
                    prefix.push(p.ident.to_string());
                    self.use_tree(prefix, &p.tree, line);
                    prefix.pop();
                }
                syn::UseTree::Name(n) => {
                    let mut path = prefix.clone();
                    path.push(n.ident.to_string());
                    self.out.push((line, path.join("::")));
                }
                syn::UseTree::Rename(r) => {
                    let mut path = prefix.clone();
                    path.push(r.ident.to_string());
                    self.out.push((line, path.join("::")));
                }
                syn::UseTree::Glob(_) => self.out.push((line, format!("{}::*", prefix.join("::")))),
                syn::UseTree::Group(g) => {
                    for tree in &g.items {
                        self.use_tree(prefix, tree, line);
                    }
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Paths {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let text: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let line = path
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.out.push((line, text.join("::")));
            syn::visit::visit_path(self, path);
        }

        fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
            let line = item.use_token.span.start().line;
            self.use_tree(&mut Vec::new(), &item.tree, line);
        }

        fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    }
    let mut paths = Paths { out: Vec::new() };
    for item in &module.items {
        paths.visit_item(item);
    }
    paths.out
}

/// Every function with a body in the module's items (free functions, methods, trait methods
/// with a default body), each with its name and its length in lines from its first line (its
/// attributes and doc comment left out) to its closing brace.
pub(crate) fn functions(module: &Module) -> Vec<(String, usize, usize)> {
    struct Fns {
        out: Vec<(String, usize, usize)>,
    }
    impl Fns {
        fn take(&mut self, name: &syn::Ident, sig_start: usize, block: &syn::Block) {
            let end = block.brace_token.span.close().end().line;
            self.out
                .push((name.to_string(), sig_start, end + 1 - sig_start));
        }
    }
    impl<'ast> Visit<'ast> for Fns {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            let start = first_line(&f.vis, &f.sig);
            self.take(&f.sig.ident, start, &f.block);
            syn::visit::visit_item_fn(self, f);
        }

        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            let start = first_line(&f.vis, &f.sig);
            self.take(&f.sig.ident, start, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }

        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if let Some(block) = &f.default {
                let start = f.sig.fn_token.span.start().line;
                self.take(&f.sig.ident, start, block);
            }
            syn::visit::visit_trait_item_fn(self, f);
        }

        fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            if !test_only(&i.attrs) {
                syn::visit::visit_item_impl(self, i);
            }
        }

        fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
            let attrs = match i {
                syn::ImplItem::Fn(f) => &f.attrs,
                _ => return syn::visit::visit_impl_item(self, i),
            };
            if !test_only(attrs) {
                syn::visit::visit_impl_item(self, i);
            }
        }
    }
    let mut fns = Fns { out: Vec::new() };
    for item in &module.items {
        fns.visit_item(item);
    }
    fns.out
}

/// The line a function starts on: its visibility's, else its signature's first token's.
fn first_line(vis: &syn::Visibility, sig: &syn::Signature) -> usize {
    use syn::spanned::Spanned;
    match vis {
        syn::Visibility::Inherited => sig.span().start().line,
        vis => vis.span().start().line,
    }
}

/// For each module with children, the cycles among its children: a child reaches another when
/// anything in its subtree names anything in the other's. Each cycle is named by its modules'
/// paths.
pub(crate) fn sibling_cycles(modules: &[Module]) -> Vec<Vec<String>> {
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    // Each module's references, resolved to the deepest known module they name.
    let mut reaches: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for m in modules {
        let targets = reaches.entry(m.path.clone()).or_default();
        for path in references(m) {
            let mut at = path;
            while !at.is_empty() && !known.contains(&at) {
                at.pop();
            }
            targets.insert(at);
        }
    }
    let mut out = Vec::new();
    for parent in &known {
        let children: Vec<&Vec<String>> = known
            .iter()
            .filter(|p| p.len() == parent.len() + 1 && p.starts_with(parent))
            .collect();
        if children.len() < 2 {
            continue;
        }
        let child_of = |path: &Vec<String>| -> Option<String> {
            (path.len() > parent.len() && path.starts_with(parent))
                .then(|| path[parent.len()].clone())
        };
        let mut graph: BTreeMap<String, BTreeSet<String>> = children
            .iter()
            .map(|c| (c[parent.len()].clone(), BTreeSet::new()))
            .collect();
        for (from, targets) in &reaches {
            let Some(a) = child_of(from) else { continue };
            for target in targets {
                if let Some(b) = child_of(target)
                    && b != a
                {
                    graph.entry(a.clone()).or_default().insert(b);
                }
            }
        }
        for cycle in super::cycles(&graph) {
            let prefix = if parent.is_empty() {
                String::new()
            } else {
                format!("{}::", parent.join("::"))
            };
            out.push(cycle.into_iter().map(|c| format!("{prefix}{c}")).collect());
        }
    }
    out
}

/// The crate roots under a crate's `src`: the library, the binary and each of `src/bin/`.
pub(crate) fn crate_roots(src: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.is_file())
        .collect();
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter_map(|p| {
                if p.extension().is_some_and(|e| e == "rs") {
                    Some(p)
                } else {
                    Some(p.join("main.rs")).filter(|m| m.is_file())
                }
            })
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    roots
}

/// Every module of every crate rooted under `src`.
pub(crate) fn all_modules(src: &Path) -> Vec<Module> {
    crate_roots(src)
        .iter()
        .flat_map(|root| crate_modules(root))
        .collect()
}

/// The lines of every production file under `src` (reached from a crate root, not through a
/// test-only `mod`), each with its path relative to `src`, its number and its text, leaving out
/// the lines of every `#[cfg(test)]` item wherever it stands in the file.
pub(crate) fn production_lines(src: &Path) -> Vec<(String, usize, String)> {
    let files: BTreeSet<PathBuf> = all_modules(src).into_iter().map(|m| m.file).collect();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let parsed = parse(&file);
        let mut hidden: Vec<(usize, usize)> = Vec::new();
        test_spans(&parsed.items, &mut hidden);
        let rel = file
            .strip_prefix(src)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if !hidden.iter().any(|(a, b)| *a <= n && n <= *b) {
                out.push((rel.clone(), n, line.to_owned()));
            }
        }
    }
    out
}

/// The line ranges of the test-only items among `items`, looking inside inline modules.
fn test_spans(items: &[syn::Item], out: &mut Vec<(usize, usize)>) {
    use syn::spanned::Spanned;
    for item in items {
        let test = match item {
            syn::Item::Mod(m) => test_only(&m.attrs),
            item => item_test_only(item),
        };
        if test {
            let span = item.span();
            out.push((span.start().line, span.end().line));
        } else if let syn::Item::Mod(syn::ItemMod {
            content: Some((_, inner)),
            ..
        }) = item
        {
            test_spans(inner, out);
        } else if let syn::Item::Impl(i) = item {
            for inner in &i.items {
                if let syn::ImplItem::Fn(f) = inner
                    && test_only(&f.attrs)
                {
                    let span = inner.span();
                    out.push((span.start().line, span.end().line));
                }
            }
        }
    }
}
