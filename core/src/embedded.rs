//! Default data embedded deflated on wasm32 (`core/build.rs`), so that the WebAssembly
//! package stays small: inflated once, when first read. Native builds embed the text as
//! it is.

/// `fn $name() -> &'static str`: the text of the file `core/$path`, embedded as it is
/// natively and deflated on wasm32 (build.rs deflates `$path` as `$file.deflate`; add it
/// to its list), inflated once, when first read.
macro_rules! default_text {
    ($(#[$doc:meta])* $name:ident, $path:literal, $file:literal) => {
        $(#[$doc])*
        pub(crate) fn $name() -> &'static str {
            #[cfg(not(target_arch = "wasm32"))]
            let text: &'static str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path));
            #[cfg(target_arch = "wasm32")]
            let text: &'static str = {
                static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
                crate::embedded::inflated(&TEXT, include_bytes!(concat!(env!("OUT_DIR"), "/", $file, ".deflate")))
            };
            text
        }
    };
}
pub(crate) use default_text;

/// The text of `deflated`, a default file build.rs deflated, inflated into `cell` once.
#[cfg(target_arch = "wasm32")]
pub(crate) fn inflated(cell: &'static std::sync::OnceLock<String>, deflated: &[u8]) -> &'static str {
    cell.get_or_init(|| {
        let text = miniz_oxide::inflate::decompress_to_vec(deflated).ok().and_then(|b| String::from_utf8(b).ok());
        #[allow(clippy::expect_used, reason = "build.rs wrote it from the UTF-8 file: failing here is a broken build")]
        text.expect("an embedded default file inflates to UTF-8")
    })
}
