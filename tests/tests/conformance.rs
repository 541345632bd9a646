//! The conformance suite: every rule of the interface, through `Shipping::handle`.
//! One module per operation.

#[path = "conformance/customers.rs"]
mod customers;
