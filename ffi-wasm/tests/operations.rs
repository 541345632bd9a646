//! The package's methods against the route table: each entry of the `operations!` list
//! of `src/bindings.rs` names an operation of `consign::operations()` and takes one
//! string per parameter of its pattern, and every operation has a method but those the
//! package leaves to `handle`. The flow tests call only some of the methods; this holds
//! the others to the table.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, reason = "test code")]

/// An entry of the list: the operation, the JavaScript name and the path parameters.
struct Entry {
    operation: String,
    js: String,
    params: Vec<String>,
}

/// The entries of the `operations!` list, read from the source.
fn entries() -> Vec<Entry> {
    let source = include_str!("../src/bindings.rs");
    let list = &source[source.find("operations! {").expect("the operations! list")..];
    let mut entries = Vec::new();
    for line in list.lines().map(str::trim).filter(|l| l.starts_with('"') && l.contains("\" => ")) {
        let (operation, rest) = line[1..].split_once("\" => ").unwrap();
        let (js, rest) = rest.split_once(' ').unwrap();
        let params = rest.split_once('(').unwrap().1.split_once(')').unwrap().0;
        let params = params.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect();
        entries.push(Entry { operation: operation.to_string(), js: js.to_string(), params });
    }
    entries
}

#[test]
fn every_method_names_an_operation_of_the_table_and_takes_its_path_parameters() {
    let entries = entries();
    assert_eq!(entries.len(), 42, "the list has an entry per method");
    for entry in &entries {
        let op = consign::operation(&entry.operation).unwrap_or_else(|| panic!("{}: no operation {}", entry.js, entry.operation));
        assert_eq!(entry.params.len(), op.params().count(), "{}: the parameters of {}", entry.js, op.pattern());
        assert!(op.path(&entry.params.iter().map(String::as_str).collect::<Vec<_>>()).is_ok(), "{}", entry.js);
    }
}

#[test]
fn every_operation_but_two_has_one_method() {
    let entries = entries();
    // The package builds consign without its `webhooks` feature (a browser delivers no
    // webhooks), but a workspace test run unifies the feature in: those routes are not
    // the package's.
    let missing: Vec<&str> = consign::operations()
        .filter(|op| !op.pattern().contains("/webhooks"))
        .map(consign::Operation::name)
        .filter(|name| !entries.iter().any(|e| e.operation == *name))
        .collect();
    // The label in its booked format and the unprefixed regional types: `handle` serves them.
    assert_eq!(missing, ["regionalShipmentTypesUnprefixed", "retrieveBookedLabel"]);
    for (i, entry) in entries.iter().enumerate() {
        assert!(entries[..i].iter().all(|e| e.operation != entry.operation && e.js != entry.js), "{} twice", entry.operation);
    }
}
