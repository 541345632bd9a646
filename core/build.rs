//! For wasm32 only: the default rate files of thousands of rows (`data/rates/rates.csv`,
//! 1.8 MB, and the zone charts, surcharges and transit times), the default catalog
//! (`data/catalog.json`) and the schema a new database is created with (`schema.sql`,
//! read once per new database) are embedded deflated,
//! which keeps the WebAssembly package under its 3.5 MB budget; each is inflated once,
//! when first read (a new database is seeded). Native builds embed the text as it is.

/// The files deflated, from `core/`; each is written as `OUT_DIR/<file name>.deflate`.
const DEFLATED: [&str; 6] = [
    "data/rates/rates.csv",
    "data/rates/zones.csv",
    "data/rates/surcharges.csv",
    "data/rates/transit.csv",
    "data/catalog.json",
    "schema.sql",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for name in DEFLATED {
        println!("cargo:rerun-if-changed={name}");
    }
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    for path in DEFLATED {
        let text = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let name = path.rsplit('/').next().unwrap_or(path);
        let out = dir.join(format!("{name}.deflate"));
        std::fs::write(&out, miniz_oxide::deflate::compress_to_vec(&text, 9)).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    }
}
