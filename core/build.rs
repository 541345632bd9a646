//! For wasm32 only: the default rate files of thousands of rows (`data/rates/rates.csv`,
//! 1.8 MB, and the zone charts, surcharges and transit times), the default catalog
//! (`data/catalog.json`), the reference lists of countries and ZIP3 prefixes, the schema a new database is created with (`schema.sql`,
//! read once per new database) and the frozen migrations (`migrations/`, read when an
//! older database is upgraded or an imported image checked) are embedded deflated,
//! which keeps the WebAssembly package under its 3.5 MB budget; each is inflated once,
//! when first read. Native builds embed the text as it is.

/// The files deflated, from `core/`; each is written as `OUT_DIR/<file name>.deflate`.
const DEFLATED: [&str; 8] = [
    "data/rates/rates.csv",
    "data/rates/zones.csv",
    "data/rates/surcharges.csv",
    "data/rates/transit.csv",
    "data/catalog.json",
    "data/countries.csv",
    "data/us-zip3.csv",
    "schema.sql",
];

/// The folder of the migrations, from `core/`: its `.sql` files, in the order of their
/// names and each followed by a NUL byte, are written deflated as one
/// `OUT_DIR/migrations.deflate` (`store::history` splits them again).
const MIGRATIONS: &str = "migrations";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for name in DEFLATED {
        println!("cargo:rerun-if-changed={name}");
    }
    // A folder is rescanned when a file in it is added, removed or changed.
    println!("cargo:rerun-if-changed={MIGRATIONS}");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let write = |name: &str, text: &[u8]| {
        let out = dir.join(format!("{name}.deflate"));
        std::fs::write(&out, miniz_oxide::deflate::compress_to_vec(text, 9)).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    };
    for path in DEFLATED {
        let text = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        write(path.rsplit('/').next().unwrap_or(path), &text);
    }
    write(MIGRATIONS, &migrations());
}

/// The `.sql` files of [`MIGRATIONS`] in the order of their names, each followed by a NUL.
fn migrations() -> Vec<u8> {
    let entries = std::fs::read_dir(MIGRATIONS).unwrap_or_else(|e| panic!("{MIGRATIONS}: {e}"));
    let mut paths: Vec<std::path::PathBuf> = entries
        .map(|entry| entry.unwrap_or_else(|e| panic!("{MIGRATIONS}: {e}")).path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
        .collect();
    paths.sort();
    let mut all = Vec::new();
    for path in paths {
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!text.contains(&0), "{}: a NUL byte, which separates the migrations in the package", path.display());
        all.extend_from_slice(&text);
        all.push(0);
    }
    all
}
