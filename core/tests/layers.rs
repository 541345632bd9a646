//! The modules of `core/src` import one way: each only from the layers below its own.
//!
//! [`LAYERS`] is the order, lowest first; docs/ARCHITECTURE.md ("Layers") draws it. A
//! module is a file or folder directly under `core/src` (`lib.rs`, the crate root with
//! its curated re-exports, is above them all). An import is any `crate::` path in the
//! code of a module, and a name that `lib.rs` re-exports (`crate::Address`) counts as an
//! import of the module it comes from. Unit tests (`#[cfg(test)]` items and `tests/`
//! folders) are left out: they drive the whole service and may reach any module.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers of `core/src`, lowest first. A module imports only modules of the layers
/// below its own, never one of its own layer or above.
const LAYERS: &[&[&str]] = &[
    // Foundations: errors, money, dates, limits, reference data, pure renderers.
    &["embedded"],
    &["error", "money", "dates", "clock", "limits", "refdata", "tracking_number", "documents"],
    // Storage: the connection, its transactions, and the seam every module speaks SQL through.
    &["store"],
    // Secrets and the login throttle.
    &["secrets", "logins"],
    // The serde types of every request and answer.
    &["wire"],
    // The event feed, which every operation that changes data appends to.
    &["events"],
    // Webhook endpoints, which deliver the feed (feature `webhooks`).
    &["webhooks"],
    // Values and records every operation reads: addresses, the catalog, the ledger, the stored shipment.
    &["address", "catalog", "ledger", "shipments"],
    // The rate book; customers and accounts; what reads a stored shipment.
    &["rating", "customers", "accounts", "invoices", "search"],
    // Shared validation, the prepay charge, label retrieval, API keys.
    &["shipment", "prepay", "labels", "keys"],
    // Operations before and after booking.
    &["quoting", "orders", "pickups", "returns"],
    &["tracking", "manifests"],
    // Book shipment, then batches of bookings.
    &["booking"],
    &["batches"],
    // The facade, then the front end over it.
    &["shipping"],
    &["router"],
    // The answers kept for an Idempotency-Key, around the router's dispatch.
    &["kept"],
    // The hidden harness of the benchmarks and fuzz targets, which reaches the router too.
    &["harness"],
];

/// One import that breaks the order.
struct Climb {
    at: String,
    from: String,
    to: String,
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module (file or folder under `src`) each top-level name re-exported by `lib.rs` comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else { continue };
        let Some((module, items)) = rest.split_once("::") else { continue };
        for name in items.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty()) {
            names.insert(name.to_string(), module.to_string());
        }
    }
    names
}

/// The lines of `text` outside `#[cfg(test)]` items, with their numbers, comments removed.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut skip_to: Option<String> = None;
    let mut after_cfg_test = false;
    for (i, line) in text.lines().enumerate() {
        if let Some(end) = &skip_to {
            if line == end {
                skip_to = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            after_cfg_test = true;
            continue;
        }
        if after_cfg_test {
            if trimmed.starts_with("#[") || trimmed.starts_with("//") {
                continue;
            }
            after_cfg_test = false;
            if !trimmed.trim_end().ends_with(';') {
                let indent = &line[..line.len() - trimmed.len()];
                skip_to = Some(format!("{indent}}}"));
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let code = line.split(" // ").next().unwrap_or(line);
        lines.push((i + 1, code.to_string()));
    }
    lines
}

/// The first segment of each path imported by the `use crate::{...}` group that starts in `text`.
fn group_heads(text: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_head = true;
    let mut word = String::new();
    for c in text.chars() {
        if depth == 1 && at_head && (c.is_alphanumeric() || c == '_') {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            heads.push(std::mem::take(&mut word));
            at_head = false;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_head = true,
            _ => {}
        }
    }
    heads
}

/// Every import in the modules of `src` that does not go to a lower layer.
fn climbs() -> Vec<Climb> {
    let root = src();
    let layer_of: BTreeMap<&str, usize> = LAYERS.iter().enumerate().flat_map(|(i, ms)| ms.iter().map(move |m| (*m, i))).collect();
    let lib = fs::read_to_string(root.join("lib.rs")).expect("src/lib.rs reads");
    let reexported = reexports(&lib);
    let workspace = root.parent().and_then(Path::parent).unwrap_or(&root);
    let mut found = Vec::new();
    for (module, files) in modules(&root) {
        let from = *layer_of.get(module.as_str()).unwrap_or_else(|| panic!("module `{module}` is in no layer of LAYERS"));
        for file in files {
            let text = fs::read_to_string(&file).expect("a source file reads");
            let lines = code_lines(&text);
            let shown = file.strip_prefix(workspace).unwrap_or(&file).display().to_string();
            for (k, (n, line)) in lines.iter().enumerate() {
                let mut targets: Vec<String> = Vec::new();
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    if rest.starts_with('{') {
                        let group: String = lines[k..].iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n");
                        let start = group.find("crate::{").map_or(0, |s| s + "crate::".len());
                        targets.extend(group_heads(&group[start..]));
                    } else {
                        targets.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
                    }
                }
                for target in targets {
                    let target = if layer_of.contains_key(target.as_str()) {
                        target
                    } else if let Some(m) = reexported.get(&target) {
                        m.clone()
                    } else {
                        continue;
                    };
                    let to = layer_of[target.as_str()];
                    if target != module && to >= from {
                        found.push(Climb {
                            at: format!("{shown}:{n}"),
                            from: format!("{module} (layer {from})"),
                            to: format!("{target} (layer {to})"),
                        });
                    }
                }
            }
        }
    }
    found
}

/// The modules directly under `src` (a file, or a folder with its files), but `lib.rs`.
fn modules(root: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(root).expect("src lists") {
        let path = entry.expect("an entry of src").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 name").to_string();
        if path.is_dir() {
            let mut files = Vec::new();
            rust_files(&path, &mut files);
            modules.insert(name, files);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            modules.insert(name, vec![path]);
        }
    }
    modules
}

/// The `.rs` files under `dir`, its `tests` folders left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a folder of src lists") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_imports_only_from_the_layers_below_it() {
    let climbs = climbs();
    let report: Vec<String> =
        climbs.iter().map(|c| format!("{}: module {} imports {}, which is not below it", c.at, c.from, c.to)).collect();
    assert!(report.is_empty(), "imports against the layer order of LAYERS:\n{}", report.join("\n"));
}

#[test]
fn every_module_is_in_exactly_one_layer() {
    let modules = modules(&src());
    let mut listed: Vec<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    listed.sort_unstable();
    let twice: Vec<&&str> = listed.windows(2).filter(|w| w[0] == w[1]).map(|w| &w[0]).collect();
    assert!(twice.is_empty(), "modules listed in more than one layer: {twice:?}");
    let missing: Vec<&String> = modules.keys().filter(|m| !listed.contains(&m.as_str())).collect();
    assert!(missing.is_empty(), "modules of core/src in no layer of LAYERS: {missing:?}");
    let unknown: Vec<&&str> = listed.iter().filter(|m| !modules.contains_key(**m)).collect();
    assert!(unknown.is_empty(), "LAYERS names modules that core/src does not have: {unknown:?}");
}

/// The reader of imports finds a climb when there is one: a `use crate::{...}` group over
/// lines, a path in code, and a name `lib.rs` re-exports.
#[test]
fn the_reader_finds_imports_in_groups_paths_and_reexports() {
    let text = "use crate::{\n    error::Error,\n    wire::{self, Quote},\n};\n#[cfg(test)]\nmod tests {\n    use crate::router;\n}\nfn f() { crate::money::round_cents(x); }\n";
    let lines = code_lines(text);
    assert!(lines.iter().all(|(_, l)| !l.contains("router")), "a #[cfg(test)] item is left out");
    assert_eq!(group_heads(&text["use crate::".len()..]), ["error", "wire"]);
    assert_eq!(group_heads("{store, wire};"), ["store", "wire"]);
    assert!(lines.iter().any(|(n, l)| *n == 9 && l.contains("crate::money::")));
    let names = reexports("pub use address::Address;\npub use error::{\n    Error, ErrorCategory,\n};\n");
    assert_eq!(names.get("Address").map(String::as_str), Some("address"));
    assert_eq!(names.get("ErrorCategory").map(String::as_str), Some("error"));
}

/// Only the store speaks to the database driver: every other module reads and writes
/// through `store::Read` and `store::Tx` (its unit tests may set up a raw connection).
#[test]
fn only_the_store_names_the_database_driver() {
    let mut found = Vec::new();
    for (module, files) in modules(&src()) {
        if module == "store" {
            continue;
        }
        for file in files {
            let text = fs::read_to_string(&file).expect("a module reads");
            for (n, line) in code_lines(&text) {
                if line.contains("rusqlite") {
                    found.push(format!("{}:{n}: {}", file.display(), line.trim()));
                }
            }
        }
    }
    let lib = fs::read_to_string(src().join("lib.rs")).expect("lib.rs reads");
    found.extend(code_lines(&lib).into_iter().filter(|(_, l)| l.contains("rusqlite")).map(|(n, l)| format!("lib.rs:{n}: {}", l.trim())));
    assert!(found.is_empty(), "the driver named outside core/src/store/:\n{}", found.join("\n"));
}
