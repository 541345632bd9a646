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
mod documents;
mod error;
mod keys;
mod ledger;
mod manifests;
mod money;
mod orders;
mod packed;
mod pickups;
mod quoting;
mod rating;
mod refdata;
mod router;
mod search;
mod secrets;
mod shipment;
mod shipping;
mod store;
mod tracking;
mod tracking_number;
pub mod wire;

pub use accounts::MASK;
pub use address::Address;
pub use catalog::{Carrier, Catalog, CatalogDocument, PackageType, Profile, Service, ServicePackage, SignatureOption};
pub use clock::{Clock, FixedClock, SystemClock};
pub use error::{Error, ErrorCategory, FieldError, Result};
pub use keys::{ApiKey, Caller, NewApiKey, KEY_PREFIX};
pub use ledger::EntryKind;
pub use manifests::MANIFEST_TYPE;
pub use money::{format2, round_cents};
pub use orders::{FULFILLMENT_STATUSES, MAX_ORDER_LINES};
pub use pickups::MAX_SHIPMENTS;
pub use quoting::{StoredQuote, MAX_BATCH, QUOTE_LIFETIME_SECS};
pub use rating::{
    CardId, CsvKind, Currency, DimUnit, ImportSummary, Lines, LinesIter, ParseEnumError, PieceInput, Place, Rate, RateBook, RateBookError,
    RateError, RateInput, RowError, Surcharge, SurchargeKind, WeightType, WeightUnit, Zone,
};
pub use router::{allowed_methods, route_pattern, Response, MAX_BODY};
pub use search::MAX_RESULTS;
pub use secrets::Secret;
pub use shipping::{Shipping, ShippingBuilder};
pub use store::{Synchronous, APPLICATION_ID, SCHEMA_VERSION};
pub use tracking::{EVENT_STATUSES, MAX_FEED_EVENTS};
pub use tracking_number::TrackingKind;
