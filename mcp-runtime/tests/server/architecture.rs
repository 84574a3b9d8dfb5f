//! The runtime is a one-way stack (README "Architecture"): every top-level module of
//! `src/` may use only modules of a lower layer, or of its own layer without a cycle.
//! This reads the sources and fails on any `crate::` path that points up the stack or
//! closes a cycle, printing the module graph it found.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer of each top-level module, from the bottom of the stack up.
const LAYERS: &[(&str, u8)] = &[
    ("protocol", 1),
    ("wire", 1),
    // TLS with rustls (roots for the client, the server's config), and the URL rules and the
    // JWT crypto backend both sides of OAuth share: they name no other module.
    ("tls", 1),
    ("oauth_urls", 1),
    ("jose", 1),
    // The change bus between instances: what it carries names nothing above it.
    ("bus", 1),
    // The tasks extension's store, records and the handle a task's work holds: below the
    // handler, whose request context carries the handle.
    ("tasks", 2),
    ("handler", 2),
    // The spans' names, attributes and OpenTelemetry plumbing, and the server's span of a
    // request (it reads the handler's reply); the client's spans live in `client`.
    ("telemetry", 2),
    ("items", 3),
    ("resolve", 3),
    ("sealing", 4),
    ("limits", 4),
    ("hooks", 4),
    ("auth", 4),
    ("server", 5),
    ("serve", 6),
    ("client", 7),
    // The command line: serves a server over a transport.
    ("cli", 7),
    // What the macros' generated code names: re-exports of everything, used by no module.
    ("__private", 8),
];

/// Items re-exported at the crate root, and the module each comes from.
const ROOT_REEXPORTS: &[(&str, &str)] = &[
    ("Error", "protocol"),
    ("Context", "handler"),
    ("RequestContext", "handler"),
    ("Blob", "items"),
    ("Json", "items"),
    ("ElicitForm", "resolve"),
    ("Resolve", "resolve"),
    ("Server", "server"),
];

fn layer(module: &str) -> u8 {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l).unwrap_or_else(|| {
        panic!("src/{module} is not in the layer table of tests/server/architecture.rs: give it a layer")
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The identifiers right after `crate::` in `source`, including each first segment of a
/// `crate::{a::x, b}` group. Comments are skipped.
fn crate_paths(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let mut depth = 0usize;
                let mut segment = String::new();
                let mut first = true;
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            first = true;
                            segment.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if first && depth == 0 {
                        if c.is_alphanumeric() || c == '_' {
                            segment.push(c);
                        } else if !segment.is_empty() {
                            found.insert(std::mem::take(&mut segment));
                            first = false;
                        }
                    }
                }
                if first && !segment.is_empty() {
                    found.insert(segment);
                }
            } else {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    found.insert(name);
                }
            }
            rest = after;
        }
    }
    found
}

/// `module -> modules it uses`, for every top-level module of `src/`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap_or(&file);
        let top = relative.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned());
        let Some(top) = top.map(|t| t.trim_end_matches(".rs").to_owned()) else { continue };
        if top == "lib" {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let deps = graph.entry(top.clone()).or_default();
        for name in crate_paths(&source) {
            let module = ROOT_REEXPORTS.iter().find(|(item, _)| *item == name).map_or(name.as_str(), |(_, m)| m);
            if module != top && LAYERS.iter().any(|(m, _)| *m == module) {
                deps.insert(module.to_owned());
            }
        }
    }
    graph
}

fn render(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut modules: Vec<_> = graph.keys().collect();
    modules.sort_by_key(|m| (layer(m), m.to_string()));
    modules
        .iter()
        .map(|m| {
            let deps: Vec<_> = graph[*m].iter().map(String::as_str).collect();
            format!("  {} {m} -> {}", layer(m), if deps.is_empty() { "(nothing)".into() } else { deps.join(", ") })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_paths_of_a_use_group_are_all_found() {
    let source = "use crate::{handler::{A, B}, protocol::C, Error};\nlet x = crate::items::f(); // crate::client";
    let found: Vec<_> = crate_paths(source).into_iter().collect();
    assert_eq!(found, ["Error", "handler", "items", "protocol"]);
}

#[test]
fn modules_depend_only_down_the_stack_and_without_cycles() {
    let graph = module_graph();
    println!("module graph (layer, module -> what it uses):\n{}", render(&graph));
    let mut upward = Vec::new();
    for (module, deps) in &graph {
        for dep in deps {
            if layer(dep) > layer(module) {
                upward.push(format!("{module} (layer {}) uses {dep} (layer {})", layer(module), layer(dep)));
            }
        }
    }
    assert!(upward.is_empty(), "imports pointing up the stack:\n{}\n\ngraph:\n{}", upward.join("\n"), render(&graph));
    // Within a layer, a depth-first search finds any cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for dep in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(cycle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}\n\ngraph:\n{}", cycle.join(" -> "), render(&graph));
        }
    }
}
