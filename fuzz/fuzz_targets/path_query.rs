//! `path_query`: see `consign_fuzz::path_query` (fuzz/src/lib.rs) for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| consign_fuzz::path_query(data));
