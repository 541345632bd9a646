//! The conformance suite: every rule of the interface, through `Shipping::handle`.
//! One module per operation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failure should stop the test loudly

mod arrivals;
mod batches;
mod booking;
mod carriers;
mod customers;
mod dates;
mod events;
mod idempotency;
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
mod webhooks;

/// The suite runs on the database the run asks for, and says so: on PostgreSQL when
/// `CONSIGN_TEST_PG` names a server (and the suite is built with the feature), where a
/// whole-database image is refused; otherwise on SQLite, saying that the PostgreSQL leg
/// was skipped.
#[test]
fn the_suite_runs_on_the_database_the_run_asks_for() {
    use consign_conformance::backend::{on_postgres, PG_VARIABLE};
    let export = consign_conformance::Harness::new().shipping.export_database();
    if on_postgres() {
        assert_eq!(export.unwrap_err().category(), consign::ErrorCategory::InvalidRequest, "an SQLite image of a PostgreSQL database");
        eprintln!("the conformance suite runs on PostgreSQL");
    } else {
        assert!(export.is_ok(), "an in-memory SQLite database exports");
        eprintln!("the conformance suite runs on SQLite; the PostgreSQL leg was skipped (set {PG_VARIABLE} to a server's admin URL and build with --features postgres)");
    }
}
