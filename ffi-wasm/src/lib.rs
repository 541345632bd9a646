//! # consign-wasm
//!
//! consign for JavaScript: a `Shipping` class over [`consign::Shipping`], built with
//! wasm-bindgen for the browser and for Node.
//!
//! The wrapper holds no domain logic. Every operation is a camelCase method that sends
//! the operation's path through [`consign::Shipping::handle`], so JavaScript gets exactly
//! the answers of the Rust library and of the HTTP interface. Requests are plain objects
//! (or JSON text, to send decimals exactly); answers are the router's JSON parsed by
//! `JSON.parse`, so money stays an exact JSON number. A failure is thrown as an `Error`
//! carrying `status`, `errorCategory` and `details`.
//!
//! The TypeScript types of every request and answer are in `consign.d.ts`, declared
//! into the generated bindings below. Its declarations of requests and answers are
//! rendered from the wire types of [`consign::wire`] by ts-rs, and `tests/typescript.rs`
//! fails when the file and the types differ.
//!
//! Natively the crate is empty: it compiles so that `cargo build --workspace` works,
//! and its native tests write the fixture that the WASM tests compare against.

#[cfg(target_arch = "wasm32")]
mod bindings;

#[cfg(target_arch = "wasm32")]
pub use bindings::Shipping;
