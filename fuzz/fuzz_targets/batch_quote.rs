//! `batch_quote`: see `consign_fuzz::batch_quote` (fuzz/src/lib.rs) for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| consign_fuzz::batch_quote(data));
