//! For wasm32 only: the default rate files of thousands of rows (`data/rates/rates.csv`,
//! 1.8 MB, and the zone charts, surcharges and transit times) are embedded deflated,
//! which keeps the WebAssembly package under its 3.5 MB budget; each is inflated once,
//! when first read (a new database is seeded). Native builds embed the text as it is.

/// The files deflated, in `data/rates/`.
const DEFLATED: [&str; 4] = ["rates.csv", "zones.csv", "surcharges.csv", "transit.csv"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for name in DEFLATED {
        println!("cargo:rerun-if-changed=data/rates/{name}");
    }
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    for name in DEFLATED {
        let csv = std::fs::read(format!("data/rates/{name}")).unwrap_or_else(|e| panic!("data/rates/{name}: {e}"));
        let out = dir.join(format!("{name}.deflate"));
        std::fs::write(&out, miniz_oxide::deflate::compress_to_vec(&csv, 9)).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    }
}
