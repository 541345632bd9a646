//! For wasm32 only: the default rate files of thousands of rows (`data/rates/rates.csv`,
//! 1.8 MB, and the zone charts, surcharges and transit times) and the default catalog
//! (`data/catalog.json`) are embedded deflated,
//! which keeps the WebAssembly package under its 3.5 MB budget; each is inflated once,
//! when first read (a new database is seeded). Native builds embed the text as it is.

/// The files deflated, in `data/`; each is written as `OUT_DIR/<file name>.deflate`.
const DEFLATED: [&str; 5] = ["rates/rates.csv", "rates/zones.csv", "rates/surcharges.csv", "rates/transit.csv", "catalog.json"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for name in DEFLATED {
        println!("cargo:rerun-if-changed=data/{name}");
    }
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    for path in DEFLATED {
        let text = std::fs::read(format!("data/{path}")).unwrap_or_else(|e| panic!("data/{path}: {e}"));
        let name = path.rsplit('/').next().unwrap_or(path);
        let out = dir.join(format!("{name}.deflate"));
        std::fs::write(&out, miniz_oxide::deflate::compress_to_vec(&text, 9)).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    }
}
