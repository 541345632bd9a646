//! For wasm32 only: the default rate table (`data/rates/rates.csv`, 1.8 MB) is embedded
//! deflated, which keeps the WebAssembly package under its 3.5 MB budget; it is inflated
//! once, when a new database is seeded. Native builds embed the text as it is.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=data/rates/rates.csv");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    let csv = std::fs::read("data/rates/rates.csv").unwrap_or_else(|e| panic!("data/rates/rates.csv: {e}"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("rates.csv.deflate");
    std::fs::write(&out, miniz_oxide::deflate::compress_to_vec(&csv, 9)).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
