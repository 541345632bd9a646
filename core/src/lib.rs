//! # consign
//!
//! An embeddable shipping service: quoting, booking, tracking, pickups, manifests,
//! orders, customer accounts and prepay accounting, as a synchronous library on SQLite.
//! No network and no server: a desktop application links this crate, a web page loads
//! the WebAssembly build of it, and both get the same answers from the same code.
//!
//! Every operation of the interface is reachable two ways: as a typed method on
//! [`Shipping`] taking and returning the serde types of [`wire`], and through
//! [`Shipping::handle`], which serves the interface's JSON paths in process.
//!
//! ```
//! use std::sync::Arc;
//! use consign::{FixedClock, Shipping};
//!
//! let clock = Arc::new(FixedClock::at("2026-11-21T09:00:00Z").unwrap());
//! let shipping = Shipping::builder().clock(clock).open().unwrap();
//!
//! let created = shipping.handle("POST", "/restapi/v1/customers", r#"{
//!     "profileCode": "Default", "email": "ann@example.com", "password": "correct horse",
//!     "mailingAddress": {"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "",
//!         "city": "Springfield", "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"},
//!     "billingAddress": {"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "",
//!         "city": "Springfield", "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"},
//!     "prepaySettings": {"minimumBalance": "25.00", "rechargeAmount": 100}
//! }"#);
//! assert_eq!(created.status, 201);
//! let id: serde_json::Value = serde_json::from_str(&created.body).unwrap();
//! let id = id["customerId"].as_str().unwrap();
//!
//! let prepay = shipping.prepay(id).unwrap();
//! assert_eq!(prepay.balance, "100.00");
//! let services = shipping.list_services(id).unwrap();
//! assert!(services.services.iter().any(|s| s.service_code == "parcel_ground"));
//! ```

mod accounts;
mod address;
mod batches;
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod bench;
mod booking;
mod catalog;
mod clock;
mod customers;
mod dates;
mod documents;
mod embedded;
mod error;
mod invoices;
mod keys;
mod labels;
mod ledger;
mod limits;
mod logins;
mod manifests;
mod money;
mod orders;
mod pickups;
mod prepay;
mod quoting;
mod rating;
mod refdata;
mod returns;
mod router;
mod search;
mod secrets;
mod shipment;
mod shipments;
mod shipping;
mod store;
mod tracking;
mod tracking_number;
pub mod wire;

/// For the fuzz targets only (`fuzz/`, docs/fuzzing.md), behind the cargo feature
/// `fuzzing`: thin wrappers that reach the crate-private readers of untrusted bytes, so
/// that each can be fuzzed on its own. Not part of consign's interface.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    use crate::rating::rows::{CalendarRow, CarrierRow, ExchangeRow, PriceRow, RateRow, SurchargeRow, TransitRow, ZoneRow};
    use crate::{router, wire, CsvKind, Error};

    /// The quotes of a stored `quotes` column (the packed form), their ids from `first_id`.
    ///
    /// # Errors
    /// The reason, when `packed` is not in the packed form.
    pub fn unpack_quotes(packed: &[u8], first_id: i64) -> Result<Vec<wire::Quote>, String> {
        crate::quoting::packed::unpack_quotes(packed, first_id)
    }

    /// The packed form in which the service stores `quotes`.
    pub fn pack_quotes(quotes: &[wire::Quote]) -> Vec<u8> {
        crate::quoting::packed::pack_quotes(quotes)
    }

    /// A stored row of the rate table of `kind` whose columns (in [`CsvKind::columns`]
    /// order, missing ones empty) hold `columns`, read as the service reads it from SQLite;
    /// its canonical text (what an import stores) when it reads.
    ///
    /// # Errors
    /// The reason, when the row does not read.
    pub fn read_rate_row(kind: CsvKind, columns: &[&str]) -> Result<Vec<String>, String> {
        thread_local! {
            static CONN: Option<rusqlite::Connection> = rusqlite::Connection::open_in_memory().ok();
        }
        fn values<T: RateRow>(row: &rusqlite::Row<'_>) -> rusqlite::Result<Vec<String>> {
            T::from_row(row).map(|r| r.values())
        }
        let select: Vec<String> = kind.columns().iter().enumerate().map(|(i, name)| format!("?{} AS \"{name}\"", i + 1)).collect();
        let texts = (0..kind.columns().len()).map(|i| columns.get(i).copied().unwrap_or(""));
        CONN.with(|conn| {
            let conn = conn.as_ref().ok_or("no in-memory database")?;
            let mut statement = conn.prepare_cached(&format!("SELECT {}", select.join(", "))).map_err(|e| e.to_string())?;
            let read = match kind {
                CsvKind::Carriers => values::<CarrierRow>,
                CsvKind::ExchangeRates => values::<ExchangeRow>,
                CsvKind::Zones => values::<ZoneRow>,
                CsvKind::Rates => values::<PriceRow>,
                CsvKind::Surcharges => values::<SurchargeRow>,
                CsvKind::Transit => values::<TransitRow>,
                CsvKind::Calendars => values::<CalendarRow>,
            };
            statement.query_row(rusqlite::params_from_iter(texts), read).map_err(|e| e.to_string())
        })
    }

    /// A route of `Shipping::handle` found for a request: its method, its pattern and the
    /// decoded path parameters by name.
    #[derive(Debug)]
    pub struct Found {
        /// `GET`, `POST`, `PUT` or `DELETE`.
        pub method: &'static str,
        /// The pattern as the spec writes it.
        pub pattern: &'static str,
        /// The decoded parameters, in the pattern's order.
        pub params: Vec<(&'static str, String)>,
    }

    /// The route that serves `method` on `path` (without its query), as `handle` finds it.
    ///
    /// # Errors
    /// As `handle` answers: `NOT_FOUND`, `METHOD_NOT_ALLOWED` or `INVALID_REQUEST`.
    pub fn lookup(method: &str, path: &str) -> Result<Found, Error> {
        let found = router::lookup(method, path)?;
        let mut params = Vec::new();
        for name in found.route.pattern.split('/').filter_map(|s| s.strip_prefix(':')) {
            params.push((name, found.params.get(name)?.to_string()));
        }
        Ok(Found { method: found.route.method.as_str(), pattern: found.route.pattern, params })
    }

    /// A path parameter `raw` decoded as `handle` decodes it.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `name` for a malformed escape or escapes that are not UTF-8.
    pub fn decode_param(name: &str, raw: &str) -> Result<String, Error> {
        router::decode_param(name, raw).map(std::borrow::Cow::into_owned)
    }

    /// The value of `name` in the query string `query`, as the handlers read it.
    pub fn query_value(query: &str, name: &str) -> Option<String> {
        router::Query(query).get(name).map(std::borrow::Cow::into_owned)
    }

    /// The (method, pattern) lines of the route table, in its order.
    pub fn routes() -> Vec<(&'static str, &'static str)> {
        router::routes().collect()
    }
}

pub use address::Address;
pub use catalog::{Carrier, Catalog, CatalogDocument, PackageType, Profile, Service, ServicePackage, SignatureOption};
pub use clock::{Clock, FixedClock, SystemClock};
pub use documents::LabelLayout;
pub use error::{Error, ErrorCategory, FieldError, Result};
pub use keys::{key_required, ApiKey, Caller, NewApiKey, KEY_PREFIX};
pub use labels::MAX_LABEL_PAGES;
pub use ledger::EntryKind;
pub use limits::{MAX_BATCH, MAX_FEED_EVENTS, MAX_ORDER_LINES, MAX_SHIPMENTS};
pub use manifests::MANIFEST_TYPE;
pub use money::{format2, round_cents};
pub use orders::FULFILLMENT_STATUSES;
pub use quoting::{ExpiredQuotes, PricedQuotes, StoredQuote, QUOTE_LIFETIME_SECS};
pub use rating::{
    CardId, CsvKind, Currency, DimUnit, ImportSummary, Lines, LinesIter, ParseEnumError, PieceInput, Place, Rate, RateBook, RateBookError,
    RateError, RateInput, RowError, Surcharge, SurchargeKind, WeightType, WeightUnit, Zone,
};
pub use router::Document;
pub use router::{
    allowed_methods, route_body_limit, route_pattern, route_prices, route_writes, routes, Prepared, Response, MAX_BODY, MAX_SHIPMENT_BODY,
    MAX_SMALL_BODY,
};
pub use search::MAX_RESULTS;
pub use secrets::{create_secret_key_file, read_secret_key_file, SECRET_KEY_LEN};
pub use secrets::{Secret, MASK};
pub use shipping::{PasswordOutcome, PasswordWork, Shipping, ShippingBuilder, DEFAULT_QUOTED_SHIPMENTS_PER_DAY};
pub use store::{Synchronous, APPLICATION_ID, SCHEMA_VERSION};
pub use tracking::EVENT_STATUSES;
pub use tracking_number::TrackingKind;

/// The examples of README.md, compiled and run as doc tests so that they work as printed
/// (blocks marked `sh` or `js` are run by scripts/readme-check and scripts/test-wasm).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
