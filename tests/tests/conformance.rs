//! The conformance suite: every rule of the interface, through `Shipping::handle`.
//! One module per operation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failure should stop the test loudly

#[path = "conformance/arrivals.rs"]
mod arrivals;
#[path = "conformance/batches.rs"]
mod batches;
#[path = "conformance/booking.rs"]
mod booking;
#[path = "conformance/customers.rs"]
mod customers;
#[path = "conformance/dates.rs"]
mod dates;
#[path = "conformance/invoices.rs"]
mod invoices;
#[path = "conformance/labels.rs"]
mod labels;
#[path = "conformance/ledger.rs"]
mod ledger;
#[path = "conformance/limits.rs"]
mod limits;
#[path = "conformance/logins.rs"]
mod logins;
#[path = "conformance/manifests.rs"]
mod manifests;
#[path = "conformance/openapi.rs"]
mod openapi;
#[path = "conformance/orders.rs"]
mod orders;
#[path = "conformance/partners.rs"]
mod partners;
#[path = "conformance/payment_method.rs"]
mod payment_method;
#[path = "conformance/pickups.rs"]
mod pickups;
#[path = "conformance/provider_accounts.rs"]
mod provider_accounts;
#[path = "conformance/quote_lock.rs"]
mod quote_lock;
#[path = "conformance/quotes.rs"]
mod quotes;
#[path = "conformance/quoting_options.rs"]
mod quoting_options;
#[path = "conformance/rate_data.rs"]
mod rate_data;
#[path = "conformance/regional.rs"]
mod regional;
#[path = "conformance/returns.rs"]
mod returns;
#[path = "conformance/robustness.rs"]
mod robustness;
#[path = "conformance/router.rs"]
mod router;
#[path = "conformance/search.rs"]
mod search;
#[path = "conformance/secrets.rs"]
mod secrets;
#[path = "conformance/services.rs"]
mod services;
#[path = "conformance/tracking.rs"]
mod tracking;
