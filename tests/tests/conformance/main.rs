//! The conformance suite: every rule of the interface, through `Shipping::handle`.
//! One module per operation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failure should stop the test loudly

mod arrivals;
mod batches;
mod booking;
mod carriers;
mod customers;
mod dates;
mod invoices;
mod labels;
mod ledger;
mod limits;
mod logins;
mod manifests;
mod openapi;
mod orders;
mod partners;
mod payment_method;
mod pickups;
mod provider_accounts;
mod quote_lock;
mod quotes;
mod quoting_options;
mod rate_data;
mod regional;
mod returns;
mod robustness;
mod router;
mod search;
mod secrets;
mod services;
mod tracking;
