//! # consign
//!
//! An embeddable shipping service: quoting, booking, tracking, pickups, manifests,
//! orders, customer accounts and prepay accounting, as a synchronous library on SQLite.
//! No network and no server: a desktop application links this crate, a web page loads
//! the WebAssembly build of it, and both get the same answers from the same code.
//!
//! Every operation of the interface is reachable two ways: as a typed method on
//! [`Shipping`] taking and returning the serde types of [`wire`], and through
//! [`Shipping::handle`], which serves the interface's JSON paths in process. The limits
//! of requests and answers are in [`limits`].
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
mod booking;
mod catalog;
mod clock;
mod customers;
mod dates;
mod documents;
mod embedded;
mod error;
mod events;
#[cfg(any(feature = "bench", feature = "fuzzing"))]
#[doc(hidden)]
pub mod harness;
mod invoices;
mod kept;
mod keys;
mod labels;
mod ledger;
pub mod limits;
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
#[cfg(feature = "webhooks")]
mod webhooks;
pub mod wire;

pub use address::Address;
pub use catalog::{Carrier, Catalog, CatalogDocument, PackageType, Profile, Service, ServicePackage, SignatureOption, TrackingNumbers};
pub use clock::{Clock, FixedClock, SystemClock};
pub use documents::LabelLayout;
pub use error::{Error, ErrorCategory, FieldError, Result};
pub use events::{
    KEPT_DAYS as EVENTS_KEPT_DAYS, MAX_PAGE as MAX_EVENTS_PAGE, MAX_PAGE_BYTES as MAX_EVENTS_PAGE_BYTES, MAX_SCANNED as MAX_EVENTS_SCANNED,
    TYPES as EVENT_TYPES,
};
pub use kept::{IdempotencyKey, KEPT_FOR_SECS};
pub use keys::{key_required, ApiKey, Caller, NewApiKey, KEY_PREFIX};
pub use ledger::EntryKind;
pub use manifests::MANIFEST_TYPE;
pub use money::{format2, round_cents};
pub use orders::FULFILLMENT_STATUSES;
pub use quoting::{ExpiredQuotes, PricedQuotes, StoredQuote, QUOTE_LIFETIME_SECS};
pub use rating::{
    CardId, CsvKind, Currency, DimUnit, ImportSummary, Lines, LinesIter, ParseEnumError, PieceInput, Place, Rate, RateBook, RateBookError,
    RateError, RateInput, RowError, Surcharge, SurchargeKind, WeightType, WeightUnit, Zone,
};
pub use router::{operation, operations, route, routes, Access, AnswerKind, Document, Operation, Prepared, Response, Unrouted};
pub use secrets::{create_secret_key_file, read_secret_key_file, Secret, MASK, SECRET_KEY_LEN};
#[cfg(feature = "webhooks")]
pub use shipping::MAX_DELIVERIES_PAGE as MAX_WEBHOOK_DELIVERIES_PAGE;
pub use shipping::{BookNumber, CustomerId, PasswordOutcome, PasswordWork, Shipping, ShippingBuilder, DEFAULT_QUOTED_SHIPMENTS_PER_DAY};
pub use store::{Synchronous, APPLICATION_ID, SCHEMA_VERSION};
pub use tracking::EVENT_STATUSES;
pub use tracking_number::TrackingKind;
#[cfg(feature = "webhooks")]
pub use webhooks::{
    forbidden_address, sign as sign_webhook, Attempt as WebhookAttempt, Delivery as WebhookDelivery,
    CLAIMS_PER_CUSTOMER as WEBHOOK_CLAIMS_PER_CUSTOMER, MAX_DESCRIPTION as MAX_WEBHOOK_DESCRIPTION, MAX_PAYLOAD as MAX_WEBHOOK_PAYLOAD,
    MAX_URL as MAX_WEBHOOK_URL, MAX_WEBHOOKS, RETRY_AFTER as WEBHOOK_RETRY_AFTER, ROTATION_OVERLAP_HOURS as WEBHOOK_ROTATION_OVERLAP_HOURS,
};

/// The examples of README.md, compiled and run as doc tests so that they work as printed
/// (blocks marked `sh` or `js` are run by scripts/readme-check and scripts/test-wasm).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
