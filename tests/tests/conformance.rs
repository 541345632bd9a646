//! The conformance suite: every rule of the interface, through `Shipping::handle`.
//! One module per operation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failure should stop the test loudly

#[path = "conformance/customers.rs"]
mod customers;
#[path = "conformance/quotes.rs"]
mod quotes;
