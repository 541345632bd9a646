//! Inputs shared by the criterion benchmarks in `benches/`.
