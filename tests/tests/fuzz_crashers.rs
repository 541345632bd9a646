//! Replays every input saved under `tests/fuzz-crashers/<target>/` through the check of
//! its fuzz target (`fuzz/src/lib.rs`, included here as it is), as automerge replays
//! its crashers: an input a fuzz run once found stays a test. docs/fuzzing.md says how
//! to add one.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

#[allow(dead_code, reason = "shared with the fuzz targets, which use all of it")]
#[path = "../../fuzz/src/lib.rs"]
mod checks;

use std::path::PathBuf;

/// Runs `check` on every file of `tests/fuzz-crashers/<target>/` but its README.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz-crashers").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file() && path.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} has no inputs", dir.display());
    for file in files {
        let data = std::fs::read(&file).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{} fails its check again", file.display());
    }
}

#[test]
fn batch_quote() {
    replay("batch_quote", checks::batch_quote);
}

#[test]
fn stored_rows() {
    replay("stored_rows", checks::stored_rows);
}

#[test]
fn rate_csv() {
    replay("rate_csv", checks::rate_csv);
}

#[test]
fn path_query() {
    replay("path_query", checks::path_query);
}

#[test]
fn handle() {
    replay("handle", checks::handle);
}
