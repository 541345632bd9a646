//! Default data embedded deflated on wasm32 (`core/build.rs`), so that the WebAssembly
//! package stays small: inflated once, when first read. Native builds embed the text as
//! it is and do not use this module.

/// The text of `deflated`, a default file build.rs deflated, inflated into `cell` once.
#[cfg(target_arch = "wasm32")]
pub(crate) fn inflated(cell: &'static std::sync::OnceLock<String>, deflated: &[u8]) -> &'static str {
    cell.get_or_init(|| {
        let text = miniz_oxide::inflate::decompress_to_vec(deflated).ok().and_then(|b| String::from_utf8(b).ok());
        #[allow(clippy::expect_used, reason = "build.rs wrote it from the UTF-8 file: failing here is a broken build")]
        text.expect("an embedded default file inflates to UTF-8")
    })
}
