//! The `Shipping` class of the package: one method per operation, each a path sent
//! through [`consign::Shipping::handle`].

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use consign::CsvKind;
use consign::{Clock, FixedClock, ShippingBuilder};
use js_sys::{Array, JsString, Reflect, Uint8Array, JSON};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("../consign.d.ts");

// Optional object arguments, typed in TypeScript as optional parameters.
#[wasm_bindgen]
extern "C" {
    /// `ShippingOptions` of consign.d.ts.
    #[wasm_bindgen(typescript_type = "ShippingOptions")]
    pub type Options;
    /// `ShippingOptions & { bytes?: Uint8Array }`.
    #[wasm_bindgen(typescript_type = "ShippingOptions & { bytes?: Uint8Array }")]
    pub type PersistentOptions;
    /// The query of the shipment list.
    #[wasm_bindgen(typescript_type = "{ minBookNumber?: string; limit?: number }")]
    pub type ShipmentsQuery;
    /// `VoidRequest` of consign.d.ts, or its JSON text.
    #[wasm_bindgen(typescript_type = "VoidRequest | string")]
    pub type VoidBody;
}

/// "now" from the JavaScript `Date`; "today" is the date where the user is.
struct JsClock;

impl Clock for JsClock {
    fn now(&self) -> DateTime<Utc> {
        // Whole milliseconds since the epoch fit an i64 for the next 290 million years.
        DateTime::from_timestamp_millis(js_sys::Date::now() as i64).unwrap_or_default()
    }

    fn today(&self) -> NaiveDate {
        let d = js_sys::Date::new_0();
        NaiveDate::from_ymd_opt(d.get_full_year() as i32, d.get_month() + 1, d.get_date()).unwrap_or_else(|| self.now().date_naive())
    }
}

/// The JS `Error` for an answer of the router: `message`, `status`, `errorCategory` and
/// `details` (the field paths at fault; empty when the error is not about fields).
fn js_error(status: u16, body: &JsValue) -> JsValue {
    let field = |name: &str| Reflect::get(body, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
    let message = field("error").as_string().unwrap_or_else(|| format!("consign answered {status}"));
    let error = js_sys::Error::new(&message);
    let details = field("details");
    let details = if details.is_undefined() { Array::new().into() } else { details };
    for (name, value) in [("status", JsValue::from(status)), ("errorCategory", field("errorCategory")), ("details", details)] {
        // Setting a property on a fresh Error cannot fail.
        let _ = Reflect::set(&error, &JsValue::from_str(name), &value);
    }
    error.into()
}

/// A consign error raised outside the router (opening, importing) as a JS `Error`.
fn throw(e: &consign::Error) -> JsValue {
    let r = consign::Response::error(e);
    js_error(r.status, &JSON::parse(&r.body).unwrap_or(JsValue::NULL))
}

/// A path parameter, percent-encoded the way the router decodes it.
fn seg(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

fn customer(id: &str, tail: &str) -> String {
    format!("/restapi/v1/customers/{}/{tail}", seg(id))
}

/// The `?layout=` of a label route, when one is given.
fn layout_query(layout: Option<&str>) -> String {
    layout.map(|l| format!("?layout={}", seg(l))).unwrap_or_default()
}

/// Options of every constructor: `{ now?: string }`, a fixed RFC 3339 instant (tests and
/// reproducible runs); without it the clock is the JS `Date`.
fn builder(options: Option<&JsValue>) -> Result<(ShippingBuilder, Option<Arc<FixedClock>>), JsValue> {
    let now = options.and_then(|o| Reflect::get(o, &JsValue::from_str("now")).ok()).and_then(|v| v.as_string());
    match now {
        Some(now) => {
            let clock = Arc::new(
                FixedClock::at(&now)
                    .map_err(|e| js_sys::Error::new(&format!("options.now: expected an RFC 3339 instant, found {now:?} ({e})")))?,
            );
            Ok((consign::Shipping::builder().clock(clock.clone()), Some(clock)))
        }
        None => Ok((consign::Shipping::builder().clock(Arc::new(JsClock)), None)),
    }
}

/// The shipping service on one SQLite database: in memory (`new Shipping()`), from
/// exported bytes (`Shipping.fromBytes`), or kept in the browser's origin private file
/// system (`await Shipping.openPersistent()`, in a dedicated worker).
#[wasm_bindgen]
pub struct Shipping {
    inner: consign::Shipping,
    fixed: Option<Arc<FixedClock>>,
}

#[wasm_bindgen]
impl Shipping {
    /// A service on a fresh in-memory database.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<Options>) -> Result<Shipping, JsValue> {
        let (b, fixed) = builder(options.as_deref())?;
        Ok(Shipping { inner: b.open().map_err(|e| throw(&e))?, fixed })
    }

    /// A service on an in-memory copy of `bytes` (from `exportDatabase`, or an SQLite
    /// file written by the native library).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8], options: Option<Options>) -> Result<Shipping, JsValue> {
        let (b, fixed) = builder(options.as_deref())?;
        Ok(Shipping { inner: b.bytes(bytes.to_vec()).open().map_err(|e| throw(&e))?, fixed })
    }

    /// A service on the database `name` in the origin private file system, kept across
    /// page loads. Needs a dedicated worker (OPFS sync access handles exist only there).
    /// `options.bytes` replaces its content.
    #[wasm_bindgen(js_name = openPersistent)]
    pub async fn open_persistent(name: Option<String>, options: Option<PersistentOptions>) -> Result<Shipping, JsValue> {
        let options: Option<JsValue> = options.map(Into::into);
        use sqlite_wasm_vfs::sahpool::{install, OpfsSAHPoolCfgBuilder};
        let config = OpfsSAHPoolCfgBuilder::new().vfs_name("consign-opfs").directory(".consign").build();
        install::<sqlite_wasm_rs::WasmOsCallback>(&config, true)
            .await
            .map_err(|e| js_sys::Error::new(&format!("could not open the origin private file system: {e}")))?;
        let bytes = options.as_ref().and_then(|o| Reflect::get(o, &JsValue::from_str("bytes")).ok()).filter(|b| !b.is_undefined());
        let (mut b, fixed) = builder(options.as_ref())?;
        b = b.path(format!("/{}.sqlite3", name.as_deref().unwrap_or("consign")));
        if let Some(bytes) = bytes {
            b = b.bytes(Uint8Array::new(&bytes).to_vec());
        }
        Ok(Shipping { inner: b.open().map_err(|e| throw(&e))?, fixed })
    }

    /// The whole database as SQLite file bytes.
    #[wasm_bindgen(js_name = exportDatabase)]
    pub fn export_database(&self) -> Result<Vec<u8>, JsValue> {
        self.inner.export_database().map_err(|e| throw(&e))
    }

    /// Moves a fixed clock (`options.now`) to another RFC 3339 instant.
    #[wasm_bindgen(js_name = setNow)]
    pub fn set_now(&self, now: &str) -> Result<(), JsValue> {
        let clock = self.fixed.as_ref().ok_or_else(|| js_sys::Error::new("setNow needs a service opened with options.now"))?;
        let at = FixedClock::at(now).map_err(|e| js_sys::Error::new(&format!("expected an RFC 3339 instant, found {now:?} ({e})")))?;
        clock.set(at.now());
        Ok(())
    }

    /// One request of the JSON interface, answered like the HTTP server would:
    /// `{ status, body }` with `body` the JSON text. Never throws.
    /// A body longer than [`consign::limits::MAX_BODY`] is refused before it is copied into the
    /// module's memory, where a copy too large to allocate would end the instance.
    #[wasm_bindgen(unchecked_return_type = "{ status: number; body: string }")]
    pub fn handle(&self, method: &str, path: &str, body: Option<JsString>) -> JsValue {
        let r = match body.map(bounded_text) {
            None => self.inner.handle(method, path, ""),
            Some(Ok(text)) => self.inner.handle(method, path, &text),
            Some(Err(too_large)) => too_large,
        };
        let out = js_sys::Object::new();
        let _ = Reflect::set(&out, &"status".into(), &JsValue::from(r.status));
        let _ = Reflect::set(&out, &"body".into(), &JsValue::from(r.body));
        out.into()
    }

    /// Sends one operation through the router: `body` is an object (sent through
    /// `JSON.stringify`) or JSON text; the answer is parsed, an error answer thrown.
    fn call(&self, method: &str, path: &str, body: Option<&JsValue>) -> Result<JsValue, JsValue> {
        let body = match body {
            None => Ok(String::new()),
            Some(b) if b.is_string() => bounded_text(b.clone().unchecked_into()),
            Some(b) => bounded_text(JSON::stringify(b)?),
        };
        let r = match body {
            Ok(text) => self.inner.handle(method, path, &text),
            Err(too_large) => too_large,
        };
        let value = JSON::parse(&r.body)?;
        if r.status >= 400 {
            Err(js_error(r.status, &value))
        } else {
            Ok(value)
        }
    }

    // ---- operations: one per path of the interface -------------------------------

    /// Create customer (4.9), `POST /restapi/v1/customers`.
    #[wasm_bindgen(js_name = createCustomer, unchecked_return_type = "CustomerIdResponse")]
    pub fn create_customer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CreateCustomerRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", "/restapi/v1/customers", Some(&req))
    }

    /// Connect customer, `POST /restapi/v1/connect-customer`.
    #[wasm_bindgen(js_name = connectCustomer, unchecked_return_type = "CustomerIdResponse")]
    pub fn connect_customer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConnectCustomerRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", "/restapi/v1/connect-customer", Some(&req))
    }

    /// Update payment method (4.12), `POST .../paymentMethod`.
    #[wasm_bindgen(js_name = updatePaymentMethod, unchecked_return_type = "OkResponse")]
    pub fn update_payment_method(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "UpdatePaymentMethodRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "paymentMethod"), Some(&req))
    }

    /// List services (4.4), `GET .../services`.
    #[wasm_bindgen(js_name = listServices, unchecked_return_type = "ServicesResponse")]
    pub fn list_services(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "services"), None)
    }

    /// Integrated quoting options (4.8), `GET .../integratedQuotingOptions`.
    #[wasm_bindgen(js_name = integratedQuotingOptions, unchecked_return_type = "IntegratedQuotingOptions")]
    pub fn integrated_quoting_options(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "integratedQuotingOptions"), None)
    }

    /// Replace the integrated quoting options, `PUT .../integratedQuotingOptions`.
    #[wasm_bindgen(js_name = setIntegratedQuotingOptions, unchecked_return_type = "IntegratedQuotingOptions")]
    pub fn set_integrated_quoting_options(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "IntegratedQuotingOptions | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("PUT", &customer(customer_id, "integratedQuotingOptions"), Some(&req))
    }

    /// Provider accounts (4.11), `GET .../provider-accounts`.
    #[wasm_bindgen(js_name = providerAccounts, unchecked_return_type = "ProviderAccountsResponse")]
    pub fn provider_accounts(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "provider-accounts"), None)
    }

    /// Put provider account, `PUT .../provider-accounts/:providerCode`.
    #[wasm_bindgen(js_name = putProviderAccount, unchecked_return_type = "ProviderAccount")]
    pub fn put_provider_account(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = providerCode)] provider_code: &str,
        #[wasm_bindgen(unchecked_param_type = "PutProviderAccountRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("PUT", &customer(customer_id, &format!("provider-accounts/{}", seg(provider_code))), Some(&req))
    }

    /// Delete provider account, `DELETE .../provider-accounts/:id`.
    #[wasm_bindgen(js_name = deleteProviderAccount, unchecked_return_type = "OkResponse")]
    pub fn delete_provider_account(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = accountId)] account_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("DELETE", &customer(customer_id, &format!("provider-accounts/{}", seg(account_id))), None)
    }

    /// Regional shipment types (4.13), `GET .../regionalShipmentTypes/:postalCode`.
    #[wasm_bindgen(js_name = regionalShipmentTypes, unchecked_return_type = "RegionalShipmentTypesResponse")]
    pub fn regional_shipment_types(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = postalCode)] postal_code: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("regionalShipmentTypes/{}", seg(postal_code))), None)
    }

    /// Create integration, `POST .../integrations`.
    #[wasm_bindgen(js_name = createIntegration, unchecked_return_type = "CreateIntegrationResponse")]
    pub fn create_integration(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "CreateIntegrationRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "integrations"), Some(&req))
    }

    /// Prepay balance and ledger, `GET .../prepay`.
    #[wasm_bindgen(unchecked_return_type = "PrepayResponse")]
    pub fn prepay(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "prepay"), None)
    }

    /// The partner keys connected to a customer (an extension), `GET .../partners`.
    #[wasm_bindgen(unchecked_return_type = "PartnersResponse")]
    pub fn partners(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "partners"), None)
    }

    /// Disconnect a partner key from a customer, `DELETE .../partners/:keyId`.
    #[wasm_bindgen(js_name = disconnectPartner, unchecked_return_type = "OkResponse")]
    pub fn disconnect_partner(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = keyId)] key_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("DELETE", &customer(customer_id, &format!("partners/{}", seg(key_id))), None)
    }

    /// Batch quote (4.1), `POST .../batch-quote`: every service for up to 500 shipments.
    #[wasm_bindgen(js_name = batchQuote, unchecked_return_type = "BatchQuoteResponse")]
    pub fn batch_quote(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "BatchQuoteRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "batch-quote"), Some(&req))
    }

    /// Single-shipment quote, `POST .../quote`.
    #[wasm_bindgen(unchecked_return_type = "Quote | QuotesResponse")]
    pub fn quote(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "QuoteShipment | string")] shipment: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "quote"), Some(&shipment))
    }

    /// Book shipment (4.5), `POST .../shipments`.
    #[wasm_bindgen(js_name = bookShipment, unchecked_return_type = "BookShipmentResponse")]
    pub fn book_shipment(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "BookShipmentRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "shipments"), Some(&req))
    }

    /// List shipments, `GET .../shipments?minBookNumber=&limit=`.
    #[wasm_bindgen(unchecked_return_type = "ShipmentsResponse")]
    pub fn shipments(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        options: Option<ShipmentsQuery>,
    ) -> Result<JsValue, JsValue> {
        let options: Option<JsValue> = options.map(Into::into);
        let get = |name: &str| options.as_ref().and_then(|o| Reflect::get(o, &JsValue::from_str(name)).ok()).filter(|v| !v.is_undefined());
        let mut query = Vec::new();
        if let Some(min) = get("minBookNumber").and_then(|v| v.as_string()) {
            query.push(format!("minBookNumber={}", seg(&min)));
        }
        if let Some(limit) = get("limit") {
            // A number or a numeric string; the router answers anything else as INVALID_REQUEST.
            let limit = limit.as_f64().map(|n| n.to_string()).or_else(|| limit.as_string()).unwrap_or_else(|| format!("{limit:?}"));
            query.push(format!("limit={}", seg(&limit)));
        }
        let path = customer(customer_id, "shipments");
        let path = if query.is_empty() { path } else { format!("{path}?{}", query.join("&")) };
        self.call("GET", &path, None)
    }

    /// Retrieve shipment, `GET .../shipments/:bookNumber`.
    #[wasm_bindgen(unchecked_return_type = "ShipmentView")]
    pub fn shipment(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("shipments/{}", seg(book_number))), None)
    }

    /// Void shipment, `POST .../shipments/:bookNumber` with `{ voided: true }`.
    #[wasm_bindgen(js_name = voidShipment, unchecked_return_type = "VoidResponse")]
    pub fn void_shipment(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
        req: Option<VoidBody>,
    ) -> Result<JsValue, JsValue> {
        let req = req.map(JsValue::from).filter(|r| !r.is_undefined()).unwrap_or_else(|| JsValue::from_str(r#"{"voided": true}"#));
        self.call("POST", &customer(customer_id, &format!("shipments/{}", seg(book_number))), Some(&req))
    }

    /// Retrieve label, `GET .../shipments/:bookNumber/label/:format` (`PDF`, `ZPL`,
    /// `EPL2`): the document base64-encoded. `layout` `letter` or `a4` puts PDF labels
    /// two to an office sheet, with cut marks (default `4x6`).
    #[wasm_bindgen(unchecked_return_type = "LabelResponse")]
    pub fn label(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
        format: &str,
        layout: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let path = format!("shipments/{}/label/{}{}", seg(book_number), seg(format), layout_query(layout.as_deref()));
        self.call("GET", &customer(customer_id, &path), None)
    }

    /// Retrieve return label, `GET .../shipments/:bookNumber/return-label/:format`: the
    /// scan-based return label of a carrier B booking (`scanBasedReturnLabel`), from the
    /// receiver back to `returnTo`, base64-encoded; `layout` as for [`Self::label`].
    #[wasm_bindgen(js_name = returnLabel, unchecked_return_type = "LabelResponse")]
    pub fn return_label(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
        format: &str,
        layout: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let path = format!("shipments/{}/return-label/{}{}", seg(book_number), seg(format), layout_query(layout.as_deref()));
        self.call("GET", &customer(customer_id, &path), None)
    }

    /// Retrieve the labels of several shipments,
    /// `POST .../shipments/multiple/labels/:format` with `{ bookNumbers }`: in PDF one
    /// document with a page per label in that order (two per office sheet with `layout`
    /// `letter` or `a4`), in ZPL or EPL2 one entry per label.
    #[wasm_bindgen(unchecked_return_type = "LabelResponse")]
    pub fn labels(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        format: &str,
        #[wasm_bindgen(unchecked_param_type = "LabelsRequest | string")] req: JsValue,
        layout: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let path = format!("shipments/multiple/labels/{}{}", seg(format), layout_query(layout.as_deref()));
        self.call("POST", &customer(customer_id, &path), Some(&req))
    }

    /// Retrieve commercial invoice, `GET .../shipments/:bookNumber/commercialInvoice`: the
    /// invoice of a booking that carried `commercialInvoice`, `{ type, data }` with the
    /// PDF base64-encoded.
    #[wasm_bindgen(js_name = commercialInvoice, unchecked_return_type = "InvoiceResponse")]
    pub fn commercial_invoice(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("shipments/{}/commercialInvoice", seg(book_number))), None)
    }

    // ---- after booking: search, tracking, pickups, manifests, orders ---------------------

    /// Search shipments (4.3), `POST .../searchShipments` with `{ keyword }`.
    #[wasm_bindgen(js_name = searchShipments, unchecked_return_type = "ShipmentsResponse")]
    pub fn search_shipments(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "SearchShipmentsRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "searchShipments"), Some(&req))
    }

    /// Track shipment (4.6), `GET .../shipments/:bookNumber/tracking-information`: events newest first.
    #[wasm_bindgen(js_name = trackingInformation, unchecked_return_type = "TrackingEvent[]")]
    pub fn tracking_information(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("shipments/{}/tracking-information", seg(book_number))), None)
    }

    /// Record carrier events, `POST .../shipments/:bookNumber/tracking-events` with `{ events }`.
    #[wasm_bindgen(js_name = recordTrackingEvents, unchecked_return_type = "RecordTrackingEventsResponse")]
    pub fn record_tracking_events(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = bookNumber)] book_number: &str,
        #[wasm_bindgen(unchecked_param_type = "RecordTrackingEventsRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, &format!("shipments/{}/tracking-events", seg(book_number))), Some(&req))
    }

    /// Schedule pickup (4.7), `POST .../pickups`: answers `{ pickupId }`.
    #[wasm_bindgen(js_name = schedulePickup, unchecked_return_type = "PickupIdResponse")]
    pub fn schedule_pickup(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "SchedulePickupRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "pickups"), Some(&req))
    }

    /// Get pickup, `GET .../pickups/:pickupId`.
    #[wasm_bindgen(unchecked_return_type = "Pickup")]
    pub fn pickup(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = pickupId)] pickup_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("pickups/{}", seg(pickup_id))), None)
    }

    /// Cancel pickup, `POST .../pickups/:pickupId` with `{ cancelled: true }`.
    #[wasm_bindgen(js_name = cancelPickup, unchecked_return_type = "Pickup")]
    pub fn cancel_pickup(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = pickupId)] pickup_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call(
            "POST",
            &customer(customer_id, &format!("pickups/{}", seg(pickup_id))),
            Some(&JsValue::from_str(r#"{"cancelled": true}"#)),
        )
    }

    /// Create manifest (4.10), `POST .../manifest`: `{ manifestId, type, data }` (data: base64 PDF).
    #[wasm_bindgen(js_name = createManifest, unchecked_return_type = "ManifestResponse")]
    pub fn create_manifest(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "CreateManifestRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "manifest"), Some(&req))
    }

    /// Get manifest, `GET .../manifest/:manifestId`.
    #[wasm_bindgen(unchecked_return_type = "ManifestResponse")]
    pub fn manifest(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = manifestId)] manifest_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("manifest/{}", seg(manifest_id))), None)
    }

    /// Put order (4.2), `PUT .../integrations/:integrationId/orders/:orderId`: create or replace.
    #[wasm_bindgen(js_name = putOrder, unchecked_return_type = "OkResponse")]
    pub fn put_order(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = integrationId)] integration_id: &str,
        #[wasm_bindgen(js_name = orderId)] order_id: &str,
        #[wasm_bindgen(unchecked_param_type = "Order | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("PUT", &customer(customer_id, &format!("integrations/{}/orders/{}", seg(integration_id), seg(order_id))), Some(&req))
    }

    /// Get order, `GET .../integrations/:integrationId/orders/:orderId`.
    #[wasm_bindgen(unchecked_return_type = "Order")]
    pub fn order(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = integrationId)] integration_id: &str,
        #[wasm_bindgen(js_name = orderId)] order_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("integrations/{}/orders/{}", seg(integration_id), seg(order_id))), None)
    }

    /// Delete order, `DELETE .../integrations/:integrationId/orders/:orderId`.
    #[wasm_bindgen(js_name = deleteOrder, unchecked_return_type = "OkResponse")]
    pub fn delete_order(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = integrationId)] integration_id: &str,
        #[wasm_bindgen(js_name = orderId)] order_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("DELETE", &customer(customer_id, &format!("integrations/{}/orders/{}", seg(integration_id), seg(order_id))), None)
    }

    // ---- batches (DECISIONS 9) ------------------------------------------------------------

    /// Create batch, `POST .../batch`: answers `{ batchId }`.
    #[wasm_bindgen(js_name = createBatch, unchecked_return_type = "CreateBatchResponse")]
    pub fn create_batch(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "CreateBatchRequest | string | undefined")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        let req = if req.is_undefined() || req.is_null() { JsValue::from_str("{}") } else { req };
        self.call("POST", &customer(customer_id, "batch"), Some(&req))
    }

    /// Add quotes to batch, `POST .../batch/:batchId/quotes` with `{ quoteIds }`.
    #[wasm_bindgen(js_name = addQuotesToBatch, unchecked_return_type = "Batch")]
    pub fn add_quotes_to_batch(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = batchId)] batch_id: &str,
        #[wasm_bindgen(unchecked_param_type = "AddQuotesRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, &format!("batch/{}/quotes", seg(batch_id))), Some(&req))
    }

    /// Get batch, `GET .../batch/:batchId`.
    #[wasm_bindgen(unchecked_return_type = "Batch")]
    pub fn batch(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = batchId)] batch_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, &format!("batch/{}", seg(batch_id))), None)
    }

    /// List batches, `GET .../batch`.
    #[wasm_bindgen(unchecked_return_type = "BatchesResponse")]
    pub fn batches(&self, #[wasm_bindgen(js_name = customerId)] customer_id: &str) -> Result<JsValue, JsValue> {
        self.call("GET", &customer(customer_id, "batch"), None)
    }

    /// Delete batch, `DELETE .../batch/:batchId`.
    #[wasm_bindgen(js_name = deleteBatch, unchecked_return_type = "OkResponse")]
    pub fn delete_batch(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(js_name = batchId)] batch_id: &str,
    ) -> Result<JsValue, JsValue> {
        self.call("DELETE", &customer(customer_id, &format!("batch/{}", seg(batch_id))), None)
    }

    /// Batch book, `POST .../batch-book` with `{ batchId }`: one result per quote.
    #[wasm_bindgen(js_name = batchBook, unchecked_return_type = "BatchBookResponse")]
    pub fn batch_book(
        &self,
        #[wasm_bindgen(js_name = customerId)] customer_id: &str,
        #[wasm_bindgen(unchecked_param_type = "BatchBookRequest | string")] req: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("POST", &customer(customer_id, "batch-book"), Some(&req))
    }

    // ---- data: rate cards and catalog (no HTTP path; the typed library methods) --------

    /// Imports rate data of `kind` (`carriers`, `exchange-rates`, `zones`, `rates`,
    /// `surcharges`) from CSV; answers `{ kind, rows, replaced }`.
    #[wasm_bindgen(js_name = importRates, unchecked_return_type = "{ kind: RateCsvKind; rows: number; replaced: number }")]
    pub fn import_rates(&self, #[wasm_bindgen(unchecked_param_type = "RateCsvKind")] kind: &str, csv: &str) -> Result<JsValue, JsValue> {
        let s = self.inner.import_rates(csv_kind(kind)?, csv).map_err(|e| throw(&e))?;
        let out = js_sys::Object::new();
        let _ = Reflect::set(&out, &"kind".into(), &s.kind.as_str().into());
        let _ = Reflect::set(&out, &"rows".into(), &JsValue::from(u32::try_from(s.rows).unwrap_or(u32::MAX)));
        let _ = Reflect::set(&out, &"replaced".into(), &JsValue::from(u32::try_from(s.replaced).unwrap_or(u32::MAX)));
        Ok(out.into())
    }

    /// Exports the rate data of `kind` as CSV, in the import format.
    #[wasm_bindgen(js_name = exportRates)]
    pub fn export_rates(&self, #[wasm_bindgen(unchecked_param_type = "RateCsvKind")] kind: &str) -> Result<String, JsValue> {
        self.inner.export_rates(csv_kind(kind)?).map_err(|e| throw(&e))
    }

    /// Replaces the catalog with a catalog document (JSON text).
    #[wasm_bindgen(js_name = importCatalog)]
    pub fn import_catalog(&self, json: &str) -> Result<(), JsValue> {
        self.inner.import_catalog(json).map_err(|e| throw(&e))
    }

    /// The catalog document in force, as JSON text.
    #[wasm_bindgen(js_name = exportCatalog)]
    pub fn export_catalog(&self) -> Result<String, JsValue> {
        self.inner.export_catalog().map_err(|e| throw(&e))
    }
}

fn csv_kind(kind: &str) -> Result<CsvKind, JsValue> {
    CsvKind::ALL.into_iter().find(|k| k.as_str() == kind).ok_or_else(|| {
        let names: Vec<&str> = CsvKind::ALL.iter().map(|k| k.as_str()).collect();
        throw(&consign::Error::invalid("kind", format!("expected one of {}, found {kind:?}", names.join(", "))))
    })
}

/// The text of `body`, or the answer to a body over [`consign::limits::MAX_BODY`] bytes when its
/// length alone shows it is (a UTF-16 unit is at least one byte of UTF-8), so that it
/// is never copied.
fn bounded_text(body: JsString) -> Result<String, consign::Response> {
    if body.length() as usize > consign::limits::MAX_BODY {
        return Err(consign::Response::body_too_large());
    }
    Ok(String::from(body))
}
