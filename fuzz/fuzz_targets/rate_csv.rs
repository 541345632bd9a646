//! `rate_csv`: see `consign_fuzz::rate_csv` (fuzz/src/lib.rs) for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| consign_fuzz::rate_csv(data));
