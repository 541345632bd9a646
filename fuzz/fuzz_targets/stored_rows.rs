//! `stored_rows`: see `consign_fuzz::stored_rows` (fuzz/src/lib.rs) for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| consign_fuzz::stored_rows(data));
