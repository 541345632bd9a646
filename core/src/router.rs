//! `Shipping::handle`: the HTTP interface of the spec, in process, served from one table.
//!
//! Each operation is one line of the table in [`ROUTES`], an [`Operation`]: its name (the
//! `operationId` of `docs/openapi.json`), a method, a path pattern as the spec writes it
//! (`:name` marks a parameter), the handler that calls the `Shipping` method of the
//! operation, and what every front end needs to know of it: which keys may call it, what
//! it answers, whether it writes, the largest body it takes, whether it is priced before
//! it writes. Front ends ask the table ([`route`], [`operation`]) rather than test
//! paths. Paths are exactly the spec's (DECISIONS 1 and 9).
//!
//! How a request is read:
//! - The path is cut at the first `?`; what follows is the query. The path is split on
//!   `/`, empty segments ignored (`//a/` reads as `/a`). Literal segments match as
//!   written, without decoding and with case.
//! - Every path parameter is percent-decoded the same way (`percent-encoding`): `%2F` is
//!   a `/` inside the parameter, a `+` stays a `+`. A `%` not followed by two hex digits,
//!   or escapes that are not UTF-8, are `INVALID_REQUEST` naming the parameter: the
//!   client sent a malformed URL, and guessing its bytes could address another resource.
//! - The query is `application/x-www-form-urlencoded` (`form_urlencoded`): `+` is a
//!   space; as browsers read it, a stray `%` is kept and bytes that are not UTF-8 become
//!   U+FFFD. The operations that read a query value validate it themselves.
//! - Methods match without regard to case.
//!
//! A path that no pattern matches is `NOT_FOUND`; a path that a pattern matches, but not
//! with the request's method, is `METHOD_NOT_ALLOWED` naming the methods the table has
//! for it. Every failure becomes a [`Response`] in one place, [`Shipping::handle`], with
//! the body of DECISIONS 2.

use std::borrow::Cow;
use std::sync::LazyLock;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::Serialize;

use crate::error::{Error, ErrorCategory, Result};
use crate::limits::{MAX_BODY, MAX_SHIPMENT_BODY, MAX_SMALL_BODY};
use crate::shipping::{BookNumber, CustomerId, PasswordOutcome, PasswordWork, Shipping};
use crate::wire::{self, parse_body};

/// A body of more than [`MAX_BODY`] bytes.
fn body_too_large() -> Error {
    body_over(MAX_BODY)
}

/// A body of more than `limit` bytes.
fn body_over(limit: usize) -> Error {
    Error::new(ErrorCategory::LimitExceeded, format!("The request body is larger than {limit} bytes, the most accepted."))
}

/// An HTTP answer: status and JSON body, or a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status, e.g. 200, 201, 400.
    pub status: u16,
    /// The JSON body.
    pub body: String,
    /// Seconds after which a refused request may succeed (`BUSY`, `TOO_MANY_ATTEMPTS`,
    /// `TOO_MANY_REQUESTS`): HTTP's `Retry-After`. `None` for every other answer.
    pub retry_after: Option<u64>,
    /// The answer as one document (its `body` then empty): filled only by
    /// [`Shipping::handle_documents_as`], for a route whose answer is one PDF.
    pub document: Option<Document>,
}

/// A document answered as itself rather than in JSON: what an HTTP front end sends as
/// the body, with `content_type` as `Content-Type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The media type, e.g. `application/pdf`.
    pub content_type: &'static str,
    /// The document's bytes.
    pub bytes: Vec<u8>,
}

impl Response {
    /// The answer for `error`: its status and the body of DECISIONS 2.
    pub fn error(error: &Error) -> Response {
        Response { status: error.status(), body: error.to_json().to_string(), retry_after: error.retry_after(), document: None }
    }

    /// The answer to a body of more than [`MAX_BODY`] bytes (`LIMIT_EXCEEDED`), for a
    /// front end that refuses such a body before reading it in whole, as
    /// [`Shipping::handle`] would once it had.
    pub fn body_too_large() -> Response {
        Response::error(&body_too_large())
    }

    /// The answer to a body of more than `limit` bytes (`LIMIT_EXCEEDED`), the limit of
    /// its route ([`Operation::body_limit`]).
    pub fn body_over(limit: usize) -> Response {
        Response::error(&body_over(limit))
    }
}

/// A method the interface serves. A `METHOD_NOT_ALLOWED` message lists methods in the
/// order of [`Method::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    const ALL: [Method; 4] = [Method::Get, Method::Post, Method::Put, Method::Delete];

    /// The method named `name` in any case; `None` for one the interface never serves.
    fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str().eq_ignore_ascii_case(name))
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// Serves one route: the service, the decoded path parameters, the query and the body
/// (as sent; GET and DELETE handlers ignore it).
type Handler = fn(&Shipping, &Params<'_>, Query<'_>, &str) -> Result<Response>;

/// Serves a route of a customer by who calls it ([`Shipping::handle_as`]).
type CallerHandler = fn(&Shipping, &crate::Caller, &Params<'_>) -> Result<Response>;

/// The read step of an operation of partner keys for a caller and a body: the password
/// work left to do ([`Shipping::password_work`]).
type PasswordHandler = fn(&Shipping, &crate::Caller, &str) -> Result<PasswordWork>;

/// The read-only step of an operation priced before it writes (see [`Shipping::prepare_as`]).
type PriceHandler = fn(&Shipping, &Params<'_>, Query<'_>, &str) -> Result<crate::PricedQuotes>;

/// A segment of a path pattern.
#[derive(Debug)]
enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

/// Which API keys may call an operation through [`Shipping::handle_as`] (an HTTP front
/// end); [`Shipping::handle`], which holds the database, serves every operation to
/// anyone.
///
/// ```
/// use consign::Access;
/// assert_eq!(consign::operation("createCustomer").unwrap().access(), Access::Partner);
/// assert_eq!(consign::operation("bookShipment").unwrap().access(), Access::Customer);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A key that acts for the customer the path names (`:customerId`): that customer's
    /// own key, or a partner key that created or connected it. Any other key is
    /// `NOT_FOUND`, the answer to an unknown customer.
    Customer,
    /// A partner key only (create and connect customer): a customer key is
    /// `UNAUTHORIZED`. These operations check a password, so they run in steps
    /// ([`Shipping::password_work`]) that count failed logins against the key too.
    Partner,
}

/// What an operation answers, as [`Shipping::handle_documents_as`] gives it.
///
/// ```
/// use consign::AnswerKind;
/// assert_eq!(consign::operation("retrieveLabel").unwrap().answer(), AnswerKind::Label);
/// assert_eq!(consign::operation("retrieveCommercialInvoice").unwrap().answer(), AnswerKind::Invoice);
/// assert_eq!(consign::operation("bookShipment").unwrap().answer(), AnswerKind::Json);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// JSON, always.
    Json,
    /// Labels: JSON of base64 images, except that labels that are one PDF are answered
    /// as that document ([`Response::document`]).
    Label,
    /// A commercial invoice: JSON with the PDF base64-encoded, or the PDF itself as the
    /// document.
    Invoice,
}

/// How [`Shipping::handle_as`] serves a route beyond its handler.
#[derive(Debug, Clone, Copy)]
enum AsCaller {
    /// With the handler, once the caller is known to act for the path's customer.
    Handler,
    /// By who calls (the partners of a customer).
    ByCaller(CallerHandler),
    /// For a partner key, in the steps of the password work.
    Password(PasswordHandler),
}

/// One operation of the interface: one line of the table that [`Shipping::handle`]
/// serves, with everything a front end needs to know of it. Found by [`route`] (by
/// method and path), by [`operation`] (by name), or listed by [`operations`].
///
/// ```
/// let op = consign::operation("bookShipment").unwrap();
/// assert_eq!((op.method(), op.pattern()), ("POST", "/restapi/v1/customers/:customerId/shipments"));
/// assert!(op.writes());
/// assert_eq!(op.body_limit(), consign::limits::MAX_SHIPMENT_BODY);
/// ```
#[derive(Debug)]
pub struct Operation {
    /// The operation's name, as `operationId` in `docs/openapi.json`, e.g. `bookShipment`.
    name: &'static str,
    pub(crate) method: Method,
    /// The path as the spec writes it, e.g. `/restapi/v1/customers/:customerId/prepay`.
    pub(crate) pattern: &'static str,
    segments: Vec<Segment>,
    handler: Handler,
    /// The handler answering the route as one document ([`AnswerKind`] other than JSON).
    document: Option<Handler>,
    answer: AnswerKind,
    as_caller: AsCaller,
    /// The read-only step, for an operation priced before it writes.
    priced: Option<PriceHandler>,
    /// The operation may write: every method but GET, unless marked [`Operation::reading`].
    writes: bool,
    body_limit: usize,
    /// The answer holds a secret shown once: kept for an `Idempotency-Key`, it is sealed.
    secret_answer: bool,
}

impl Operation {
    /// The line `name`: `method` on `pattern`, served by `handler`; by default it
    /// answers JSON to a key of the path's customer, writes unless it is a GET, and
    /// takes a body of up to [`MAX_SMALL_BODY`] bytes.
    fn new(name: &'static str, method: Method, pattern: &'static str, handler: Handler) -> Operation {
        let segments =
            pattern.split('/').filter(|s| !s.is_empty()).map(|s| s.strip_prefix(':').map_or(Segment::Literal(s), Segment::Param)).collect();
        Operation {
            name,
            method,
            pattern,
            segments,
            handler,
            document: None,
            answer: AnswerKind::Json,
            as_caller: AsCaller::Handler,
            priced: None,
            writes: method != Method::Get,
            body_limit: MAX_SMALL_BODY,
            secret_answer: false,
        }
    }

    /// Marks an operation whose answer holds a secret shown once (a webhook's signing
    /// secret): the answer kept for its `Idempotency-Key` is sealed at rest.
    #[cfg(feature = "webhooks")]
    fn secret(mut self) -> Operation {
        self.secret_answer = true;
        self
    }

    /// True when the answer holds a secret shown once (create webhook, rotate its
    /// secret): the answer kept for an `Idempotency-Key` is sealed with the service's key.
    pub fn answers_secret(&self) -> bool {
        self.secret_answer
    }

    /// Answers labels, as one document through `handler` where they are one PDF.
    fn label(mut self, handler: Handler) -> Operation {
        (self.answer, self.document) = (AnswerKind::Label, Some(handler));
        self
    }

    /// Answers a commercial invoice, as the document through `handler`.
    fn invoice(mut self, handler: Handler) -> Operation {
        (self.answer, self.document) = (AnswerKind::Invoice, Some(handler));
        self
    }

    /// Marks a route of another method than GET whose operation only reads.
    fn reading(mut self) -> Operation {
        self.writes = false;
        self
    }

    /// Takes a body of up to `limit` bytes.
    fn body(mut self, limit: usize) -> Operation {
        self.body_limit = limit;
        self
    }

    /// Prices before it writes, `price` being the read-only step.
    fn priced(mut self, price: PriceHandler) -> Operation {
        self.priced = Some(price);
        self
    }

    /// Answers a caller of [`Shipping::handle_as`] through `handler`, by who it is.
    fn by_caller(mut self, handler: CallerHandler) -> Operation {
        self.as_caller = AsCaller::ByCaller(handler);
        self
    }

    /// Serves partner keys only, `begin` being the read step of its password work.
    fn partner(mut self, begin: PasswordHandler) -> Operation {
        self.as_caller = AsCaller::Password(begin);
        self
    }

    fn matches(&self, path: &[&str]) -> bool {
        self.segments.len() == path.len()
            && self.segments.iter().zip(path).all(|(s, p)| match s {
                Segment::Literal(literal) => literal == p,
                Segment::Param(_) => true,
            })
    }

    /// The operation's name, as `operationId` in `docs/openapi.json`.
    ///
    /// ```
    /// let op = consign::route("POST", "/restapi/v1/customers/C0000001/shipments/1000000001").unwrap();
    /// assert_eq!(op.name(), "voidShipment");
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The method: `GET`, `POST`, `PUT` or `DELETE`.
    ///
    /// ```
    /// assert_eq!(consign::operation("voidShipment").unwrap().method(), "POST");
    /// ```
    pub fn method(&self) -> &'static str {
        self.method.as_str()
    }

    /// The path pattern as the spec writes it, `:name` marking a parameter.
    ///
    /// ```
    /// assert_eq!(consign::operation("prepay").unwrap().pattern(), "/restapi/v1/customers/:customerId/prepay");
    /// ```
    pub fn pattern(&self) -> &'static str {
        self.pattern
    }

    /// The names of the pattern's parameters, in order.
    ///
    /// ```
    /// let names: Vec<_> = consign::operation("getOrder").unwrap().params().collect();
    /// assert_eq!(names, ["customerId", "integrationId", "orderId"]);
    /// ```
    pub fn params(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(name) => Some(*name),
            Segment::Literal(_) => None,
        })
    }

    /// Which API keys may call the operation.
    ///
    /// ```
    /// assert_eq!(consign::operation("connectCustomer").unwrap().access(), consign::Access::Partner);
    /// ```
    pub fn access(&self) -> Access {
        match self.as_caller {
            AsCaller::Password(_) => Access::Partner,
            AsCaller::Handler | AsCaller::ByCaller(_) => Access::Customer,
        }
    }

    /// What the operation answers.
    ///
    /// ```
    /// assert_eq!(consign::operation("retrieveReturnLabel").unwrap().answer(), consign::AnswerKind::Label);
    /// ```
    pub fn answer(&self) -> AnswerKind {
        self.answer
    }

    /// True when the operation may write to the database: every route but the GETs and
    /// the search. A front end that serves requests side by side lets the others run
    /// while writes go one at a time.
    ///
    /// ```
    /// assert!(!consign::operation("searchShipments").unwrap().writes());
    /// assert!(consign::operation("quote").unwrap().writes());
    /// ```
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// True when the operation is priced before it writes (batch and single quote): a
    /// front end may run [`Shipping::prepare_as`] where it reads, and
    /// [`Shipping::store_priced`] where it writes.
    ///
    /// ```
    /// assert!(consign::operation("batchQuote").unwrap().prices());
    /// assert!(!consign::operation("bookShipment").unwrap().prices());
    /// ```
    pub fn prices(&self) -> bool {
        self.priced.is_some()
    }

    /// The largest request body the operation takes, in bytes: [`MAX_BODY`] for the
    /// batch quote, [`MAX_SHIPMENT_BODY`] for the routes that carry one shipment, one
    /// order or a feed of tracking events, [`MAX_SMALL_BODY`] for every other route. A
    /// front end refuses a longer body before reading it in whole; `handle` takes up to
    /// [`MAX_BODY`] on every route.
    ///
    /// ```
    /// assert_eq!(consign::operation("batchQuote").unwrap().body_limit(), consign::limits::MAX_BODY);
    /// assert_eq!(consign::operation("createBatch").unwrap().body_limit(), consign::limits::MAX_SMALL_BODY);
    /// ```
    pub fn body_limit(&self) -> usize {
        self.body_limit
    }

    /// The path of the operation with `values` for its parameters, in the order of
    /// [`Operation::params`], each percent-encoded (as JavaScript's
    /// `encodeURIComponent` does) so that the router decodes it back as given.
    ///
    /// # Errors
    /// `INVALID_REQUEST` when `values` are not one per parameter.
    ///
    /// ```
    /// let op = consign::operation("regionalShipmentTypes").unwrap();
    /// assert_eq!(op.path(&["C0000001", "K1A 0B1"]).unwrap(), "/restapi/v1/customers/C0000001/regionalShipmentTypes/K1A%200B1");
    /// assert!(op.path(&["C0000001"]).is_err());
    /// ```
    pub fn path(&self, values: &[&str]) -> Result<String> {
        let wanted = self.params().count();
        if values.len() != wanted {
            return Err(Error::invalid(
                "params",
                format!(
                    "{} takes {wanted} path parameters ({}), found {}",
                    self.name,
                    self.params().collect::<Vec<_>>().join(", "),
                    values.len()
                ),
            ));
        }
        let mut values = values.iter();
        let mut path = String::new();
        for segment in &self.segments {
            path.push('/');
            match segment {
                Segment::Literal(literal) => path.push_str(literal),
                Segment::Param(_) => path.extend(utf8_percent_encode(values.next().copied().unwrap_or_default(), COMPONENT)),
            }
        }
        Ok(path)
    }
}

/// What `encodeURIComponent` escapes: every byte but ASCII letters, digits and
/// `-_.!~*'()`.
const COMPONENT: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'!').remove(b'~').remove(b'*').remove(b'\'').remove(b'(').remove(b')');

/// Every operation of the interface and its extensions: a line each, naming what a
/// front end needs to know of it (see [`Operation`]). A line here, a handler below,
/// the `Shipping` method it calls and a test make an endpoint.
static ROUTES: LazyLock<Vec<Operation>> = LazyLock::new(|| {
    use Method::{Delete, Get, Post, Put};
    vec![
        Operation::new("createCustomer", Post, "/restapi/v1/customers", create_customer).partner(begin_create_customer),
        Operation::new("connectCustomer", Post, "/restapi/v1/connect-customer", connect_customer).partner(begin_connect_customer),
        Operation::new("listServices", Get, "/restapi/v1/customers/:customerId/services", list_services),
        Operation::new(
            "listIntegratedQuotingOptions",
            Get,
            "/restapi/v1/customers/:customerId/integratedQuotingOptions",
            integrated_quoting_options,
        ),
        Operation::new(
            "setIntegratedQuotingOptions",
            Put,
            "/restapi/v1/customers/:customerId/integratedQuotingOptions",
            set_integrated_quoting_options,
        ),
        Operation::new("listProviderAccounts", Get, "/restapi/v1/customers/:customerId/provider-accounts", provider_accounts),
        Operation::new(
            "putProviderAccount",
            Put,
            "/restapi/v1/customers/:customerId/provider-accounts/:providerCode",
            put_provider_account,
        ),
        Operation::new("deleteProviderAccount", Delete, "/restapi/v1/customers/:customerId/provider-accounts/:id", delete_provider_account),
        Operation::new("updatePaymentMethod", Post, "/restapi/v1/customers/:customerId/paymentMethod", update_payment_method),
        Operation::new(
            "regionalShipmentTypes",
            Get,
            "/restapi/v1/customers/:customerId/regionalShipmentTypes/:postalCode",
            regional_shipment_types,
        ),
        // 4.13 lists this path without the prefix; it answers on both (DECISIONS 1).
        Operation::new(
            "regionalShipmentTypesUnprefixed",
            Get,
            "/customers/:customerId/regionalShipmentTypes/:postalCode",
            regional_shipment_types,
        ),
        Operation::new("createIntegration", Post, "/restapi/v1/customers/:customerId/integrations", create_integration),
        Operation::new("prepay", Get, "/restapi/v1/customers/:customerId/prepay", prepay),
        Operation::new("listEvents", Get, "/restapi/v1/customers/:customerId/events", list_events),
        Operation::new("partners", Get, "/restapi/v1/customers/:customerId/partners", partners).by_caller(partners_as),
        Operation::new("disconnectPartner", Delete, "/restapi/v1/customers/:customerId/partners/:keyId", disconnect_partner)
            .by_caller(disconnect_partner_as),
        Operation::new("batchQuote", Post, "/restapi/v1/customers/:customerId/batch-quote", batch_quote)
            .priced(price_batch_quote)
            .body(MAX_BODY),
        Operation::new("quote", Post, "/restapi/v1/customers/:customerId/quote", quote).priced(price_quote).body(MAX_SHIPMENT_BODY),
        Operation::new("bookShipment", Post, "/restapi/v1/customers/:customerId/shipments", book_shipment).body(MAX_SHIPMENT_BODY),
        Operation::new("listShipments", Get, "/restapi/v1/customers/:customerId/shipments", shipments),
        Operation::new("retrieveShipment", Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber", shipment),
        Operation::new("voidShipment", Post, "/restapi/v1/customers/:customerId/shipments/:bookNumber", void_shipment),
        Operation::new("retrieveBookedLabel", Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/label", booked_label)
            .label(booked_label_document),
        Operation::new("retrieveLabel", Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/label/:labelImageFormat", label)
            .label(label_document),
        Operation::new(
            "retrieveCommercialInvoice",
            Get,
            "/restapi/v1/customers/:customerId/shipments/:bookNumber/commercialInvoice",
            commercial_invoice,
        )
        .invoice(commercial_invoice_document),
        Operation::new(
            "retrieveReturnLabel",
            Get,
            "/restapi/v1/customers/:customerId/shipments/:bookNumber/return-label/:labelImageFormat",
            return_label,
        )
        .label(return_label_document),
        Operation::new(
            "retrieveLabelsOfShipments",
            Post,
            "/restapi/v1/customers/:customerId/shipments/multiple/labels/:labelImageFormat",
            labels,
        )
        .label(labels_document)
        .reading(),
        Operation::new(
            "trackShipment",
            Get,
            "/restapi/v1/customers/:customerId/shipments/:bookNumber/tracking-information",
            tracking_information,
        ),
        Operation::new(
            "recordTrackingEvents",
            Post,
            "/restapi/v1/customers/:customerId/shipments/:bookNumber/tracking-events",
            record_tracking_events,
        )
        .body(MAX_SHIPMENT_BODY),
        Operation::new("searchShipments", Post, "/restapi/v1/customers/:customerId/searchShipments", search_shipments).reading(),
        Operation::new("createBatch", Post, "/restapi/v1/customers/:customerId/batch", create_batch),
        Operation::new("listBatches", Get, "/restapi/v1/customers/:customerId/batch", batches),
        Operation::new("getBatch", Get, "/restapi/v1/customers/:customerId/batch/:batchId", batch),
        Operation::new("deleteBatch", Delete, "/restapi/v1/customers/:customerId/batch/:batchId", delete_batch),
        Operation::new("addQuotesToBatch", Post, "/restapi/v1/customers/:customerId/batch/:batchId/quotes", add_quotes_to_batch),
        Operation::new("bookBatch", Post, "/restapi/v1/customers/:customerId/batch-book", batch_book),
        Operation::new("schedulePickup", Post, "/restapi/v1/customers/:customerId/pickups", schedule_pickup),
        Operation::new("getPickup", Get, "/restapi/v1/customers/:customerId/pickups/:pickupId", pickup),
        Operation::new("cancelPickup", Post, "/restapi/v1/customers/:customerId/pickups/:pickupId", cancel_pickup),
        Operation::new("createManifest", Post, "/restapi/v1/customers/:customerId/manifest", create_manifest),
        Operation::new("getManifest", Get, "/restapi/v1/customers/:customerId/manifest/:manifestId", manifest),
        Operation::new("putOrder", Put, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId", put_order)
            .body(MAX_SHIPMENT_BODY),
        Operation::new("getOrder", Get, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId", order),
        Operation::new(
            "deleteOrder",
            Delete,
            "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId",
            delete_order,
        ),
        #[cfg(feature = "webhooks")]
        Operation::new("createWebhook", Post, "/restapi/v1/customers/:customerId/webhooks", create_webhook).secret(),
        #[cfg(feature = "webhooks")]
        Operation::new("listWebhooks", Get, "/restapi/v1/customers/:customerId/webhooks", list_webhooks),
        #[cfg(feature = "webhooks")]
        Operation::new("getWebhook", Get, "/restapi/v1/customers/:customerId/webhooks/:webhookId", webhook),
        #[cfg(feature = "webhooks")]
        Operation::new("updateWebhook", Put, "/restapi/v1/customers/:customerId/webhooks/:webhookId", update_webhook),
        #[cfg(feature = "webhooks")]
        Operation::new("deleteWebhook", Delete, "/restapi/v1/customers/:customerId/webhooks/:webhookId", delete_webhook),
        #[cfg(feature = "webhooks")]
        Operation::new(
            "rotateWebhookSecret",
            Post,
            "/restapi/v1/customers/:customerId/webhooks/:webhookId/rotate-secret",
            rotate_webhook_secret,
        )
        .secret(),
        #[cfg(feature = "webhooks")]
        Operation::new(
            "listWebhookDeliveries",
            Get,
            "/restapi/v1/customers/:customerId/webhooks/:webhookId/deliveries",
            webhook_deliveries,
        ),
        #[cfg(feature = "webhooks")]
        Operation::new("replayWebhook", Post, "/restapi/v1/customers/:customerId/webhooks/:webhookId/replay", replay_webhook),
        #[cfg(feature = "webhooks")]
        Operation::new("testWebhook", Post, "/restapi/v1/customers/:customerId/webhooks/:webhookId/test", test_webhook),
    ]
});

/// Every operation [`Shipping::handle`] serves, in the order of its table: the method
/// (`GET`, `POST`, `PUT` or `DELETE`) and the path pattern as the spec writes it, `:name`
/// marking a parameter. An OpenAPI document of the interface lists exactly these
/// (`docs/openapi.json`; a test compares the two).
///
/// ```
/// assert!(consign::routes().any(|r| r == ("POST", "/restapi/v1/customers/:customerId/shipments")));
/// ```
pub fn routes() -> impl Iterator<Item = (&'static str, &'static str)> {
    ROUTES.iter().map(|r| (r.method.as_str(), r.pattern))
}

/// Every operation [`Shipping::handle`] serves, in the order of its table.
///
/// ```
/// assert_eq!(consign::operations().count(), consign::routes().count());
/// assert!(consign::operations().any(|op| op.name() == "trackShipment"));
/// ```
pub fn operations() -> impl Iterator<Item = &'static Operation> {
    ROUTES.iter()
}

/// The operation named `name` (its `operationId` in `docs/openapi.json`); `None` for a
/// name the table does not have.
///
/// ```
/// let op = consign::operation("getPickup").unwrap();
/// assert_eq!(op.path(&["C0000001", "P1"]).unwrap(), "/restapi/v1/customers/C0000001/pickups/P1");
/// assert!(consign::operation("getPickups").is_none());
/// ```
pub fn operation(name: &str) -> Option<&'static Operation> {
    ROUTES.iter().find(|op| op.name == name)
}

/// Why no operation serves a request ([`route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unrouted {
    /// No pattern matches the path: `NOT_FOUND`.
    NotFound,
    /// Patterns match the path, none with the request's method: `METHOD_NOT_ALLOWED`.
    /// The methods they have, in the order of its message: what HTTP's `Allow` lists.
    MethodNotAllowed(Vec<&'static str>),
}

/// The operation that serves `method` (in any case) on `path` (a query after `?` is
/// ignored), as [`Shipping::handle`] finds it; or why none does. Only the route is
/// found: the path parameters are decoded, and may be refused, when the request is
/// served.
///
/// # Errors
/// [`Unrouted::NotFound`] when no pattern matches `path`;
/// [`Unrouted::MethodNotAllowed`] with the methods of the patterns that do, when none of
/// them is `method`.
///
/// ```
/// use consign::Unrouted;
/// let op = consign::route("get", "/restapi/v1/customers/C0000001/shipments/1000000001/label/PDF?layout=a4").unwrap();
/// assert_eq!(op.name(), "retrieveLabel");
/// assert_eq!(consign::route("GET", "/restapi/v1/nothing").unwrap_err(), Unrouted::NotFound);
/// assert_eq!(consign::route("DELETE", "/restapi/v1/customers/C0000001/shipments").unwrap_err(), Unrouted::MethodNotAllowed(vec!["GET", "POST"]));
/// ```
pub fn route(method: &str, path: &str) -> std::result::Result<&'static Operation, Unrouted> {
    let (path, _) = path.split_once('?').unwrap_or((path, ""));
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    find(method, &segments).map_err(|allowed| match allowed.as_slice() {
        [] => Unrouted::NotFound,
        methods => Unrouted::MethodNotAllowed(methods.iter().map(|m| m.as_str()).collect()),
    })
}

/// The operation serving `method` on the path of `segments`; else the methods of the
/// operations on that path (none when no pattern matches it).
fn find(method: &str, segments: &[&str]) -> std::result::Result<&'static Operation, Vec<Method>> {
    let wanted = Method::parse(method);
    let mut seen = [false; Method::ALL.len()];
    for route in ROUTES.iter().filter(|r| r.matches(segments)) {
        if Some(route.method) == wanted {
            return Ok(route);
        }
        seen[route.method as usize] = true;
    }
    Err(Method::ALL.into_iter().filter(|m| seen[*m as usize]).collect())
}

/// The decoded path parameters of a request, by the names of its route's pattern.
#[derive(Debug)]
pub(crate) struct Params<'p> {
    values: Vec<(&'static str, Cow<'p, str>)>,
}

impl<'p> Params<'p> {
    /// Decodes the parameters of `path`, a path `route` matches.
    fn decode(route: &Operation, path: &[&'p str]) -> Result<Params<'p>> {
        let mut values = Vec::new();
        for (segment, raw) in route.segments.iter().zip(path) {
            if let Segment::Param(name) = segment {
                values.push((*name, decode_param(name, raw)?));
            }
        }
        Ok(Params { values })
    }

    /// The value of the parameter `name` of the pattern.
    ///
    /// # Errors
    /// `INTERNAL` when the pattern has no such parameter: a handler that does not fit its
    /// line of the table (the table's tests call every handler).
    // One copy for the fifty-odd call sites: inlined, each carried its own error path.
    #[inline(never)]
    pub(crate) fn get(&self, name: &str) -> Result<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_ref())
            .ok_or_else(|| Error::internal(format!("The route has no parameter {name:?}.")))
    }
}

/// Percent-decodes the path parameter `name`, refusing what is not a well-formed escape
/// of UTF-8 text (`percent-encoding` alone would keep a stray `%` and report only the
/// UTF-8).
pub(crate) fn decode_param<'p>(name: &str, raw: &'p str) -> Result<Cow<'p, str>> {
    let malformed = || Error::invalid(name, format!("expected UTF-8 text with %XX escapes (two hex digits each), found {raw:?}"));
    let stray_percent =
        raw.match_indices('%').any(|(i, _)| !raw.as_bytes().get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)));
    if stray_percent {
        return Err(malformed());
    }
    percent_decode_str(raw).decode_utf8().map_err(|_| malformed())
}

/// The query string of a request (after `?`, without it), read on demand.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Query<'q>(pub(crate) &'q str);

impl<'q> Query<'q> {
    /// The decoded value of the first `name` (`""` for `name` without `=`); `None` when
    /// absent.
    pub(crate) fn get(self, name: &str) -> Option<Cow<'q, str>> {
        form_urlencoded::parse(self.0.as_bytes()).find(|(key, _)| key == name).map(|(_, value)| value)
    }
}

/// A route of the table and the decoded parameters of the path it matched.
pub(crate) struct Found<'p> {
    pub(crate) route: &'static Operation,
    pub(crate) params: Params<'p>,
}

/// The route that serves `method` on `path` (without its query), with the path's
/// parameters decoded.
///
/// # Errors
/// `NOT_FOUND` when no pattern matches `path`; `METHOD_NOT_ALLOWED`, naming the methods
/// of the patterns that do, when none of them is `method`; `INVALID_REQUEST` for a
/// parameter that is not well-formed percent-encoded UTF-8.
pub(crate) fn lookup<'p>(method: &str, path: &'p str) -> Result<Found<'p>> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match find(method, &segments) {
        Ok(route) => Ok(Found { route, params: Params::decode(route, &segments)? }),
        Err(allowed) if allowed.is_empty() => Err(Error::new(ErrorCategory::NotFound, format!("No operation is served at {path}."))),
        Err(allowed) => Err(Error::new(
            ErrorCategory::MethodNotAllowed,
            format!("{} is not allowed on {path}; use {}.", method.to_ascii_uppercase(), either(&allowed)),
        )),
    }
}

/// `GET`, `GET or POST`, `GET, PUT or DELETE`.
fn either(methods: &[Method]) -> String {
    match methods.split_last() {
        None => String::new(),
        Some((last, [])) => last.as_str().to_string(),
        Some((last, rest)) => {
            let rest: Vec<&str> = rest.iter().map(|m| m.as_str()).collect();
            format!("{} or {}", rest.join(", "), last.as_str())
        }
    }
}

impl Shipping {
    /// Serves one request of the interface: `method` (`GET`, `POST`, `PUT`, `DELETE`),
    /// `path` as in the spec (a query string is allowed), and the JSON `body` (ignored
    /// for GET and DELETE). Never panics; every failure is a [`Response`] with the error
    /// body of DECISIONS 2.
    ///
    /// ```
    /// let shipping = consign::Shipping::open_in_memory().unwrap();
    /// let r = shipping.handle("GET", "/restapi/v1/customers/nobody/services", "");
    /// assert_eq!(r.status, 404);
    /// assert!(r.body.contains("NOT_FOUND"));
    /// ```
    pub fn handle(&self, method: &str, path: &str, body: &str) -> Response {
        caught(|| self.operation(|| self.dispatch(method, path, body)))
    }

    fn dispatch(&self, method: &str, path: &str, body: &str) -> Result<Response> {
        if body.len() > MAX_BODY {
            return Err(body_too_large());
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let found = lookup(method, path)?;
        (found.route.handler)(self, &found.params, Query(query), body)
    }
}

// The caller-aware entry of the HTTP adapter (`consign serve`, DECISIONS 9), and what it
// needs to know of the table for HTTP's own conventions.

impl Shipping {
    /// Serves one request as [`Shipping::handle`] does, on behalf of `caller` (an API
    /// key's holder, from [`Shipping::authenticate`]): a customer the caller does not act
    /// for is `NOT_FOUND`, the same answer as an unknown customer, before anything else
    /// is read. Create and connect customer are for partner keys (a customer key is
    /// `UNAUTHORIZED` there), and record that the key acts for the customer; their
    /// failed logins count against the key too. A customer's partners are listed and
    /// removed by who the caller is: its own key sees and removes every partner, a
    /// partner key only itself.
    ///
    /// ```
    /// let shipping = consign::Shipping::open_in_memory().unwrap();
    /// let key = shipping.create_api_key(None, "shop").unwrap();
    /// let caller = shipping.authenticate(&key.key).unwrap();
    /// let r = shipping.handle_as(&caller, "GET", "/restapi/v1/customers/C0000001/prepay", "");
    /// assert_eq!(r.status, 404);
    /// ```
    pub fn handle_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Response {
        self.answer_as(caller, method, path, body, false)
    }

    /// Serves one request as [`Shipping::handle_as`] does, except that a route whose
    /// answer is one PDF answers with it in [`Response::document`] (and an empty
    /// `body`): a PDF label (several pieces as one PDF of a page per piece), the labels
    /// of several shipments in PDF, a PDF return label and a commercial invoice. Labels
    /// in ZPL or EPL2, and every other answer, are JSON as `handle_as` gives them. For an
    /// HTTP front end, which sends documents as themselves.
    ///
    /// ```
    /// let shipping = consign::Shipping::open_in_memory().unwrap();
    /// let key = shipping.create_api_key(None, "shop").unwrap();
    /// let caller = shipping.authenticate(&key.key).unwrap();
    /// let r = shipping.handle_documents_as(&caller, "GET", "/restapi/v1/customers/C0000001/shipments/1/label", "");
    /// assert_eq!((r.status, r.document), (404, None));
    /// ```
    pub fn handle_documents_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Response {
        self.answer_as(caller, method, path, body, true)
    }

    fn answer_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str, documents: bool) -> Response {
        caught(|| self.operation(|| self.dispatch_as(caller, method, path, body, documents)))
    }

    pub(crate) fn dispatch_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str, documents: bool) -> Result<Response> {
        if body.len() > MAX_BODY {
            return Err(body_too_large());
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let found = lookup(method, path)?;
        let customer = found.params.values.iter().find(|(name, _)| *name == "customerId").map(|(_, id)| id.as_ref());
        if let Some(id) = customer {
            if !self.acts_for(caller, id)? {
                return Err(Error::not_found("customer", id));
            }
        }
        match (customer, found.route.as_caller) {
            (_, AsCaller::Password(begin)) => {
                let outcome = begin(self, caller, body)?.run();
                self.answer_password_work(&outcome)
            }
            (Some(_), AsCaller::ByCaller(handler)) => handler(self, caller, &found.params),
            (Some(_), AsCaller::Handler) => {
                let handler = found.route.document.filter(|_| documents).unwrap_or(found.route.handler);
                handler(self, &found.params, Query(query), body)
            }
            (None, _) => Err(Error::internal(format!("{} serves no customer and is not a partner operation", found.route.pattern))),
        }
    }

    /// For a front end that runs the password work of create and connect customer on
    /// threads of its own (`consign serve`): when `method` on `path` is one of them, its
    /// read step for `caller` ([`PasswordWork`]), or the answer when that step refuses
    /// the request already (a bad body, a customer key, a locked e-mail or key); `None`
    /// for every other route. Then [`PasswordWork::run`] anywhere, and
    /// [`Shipping::answer_password`] for the short write: together they answer as
    /// [`Shipping::handle_as`] does.
    pub fn password_work(
        &self,
        caller: &crate::Caller,
        method: &str,
        path: &str,
        body: &str,
    ) -> Option<std::result::Result<PasswordWork, Response>> {
        let (path, _) = path.split_once('?').unwrap_or((path, ""));
        let AsCaller::Password(begin) = lookup(method, path).ok()?.route.as_caller else {
            return None;
        };
        let work = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if body.len() > MAX_BODY {
                return Err(body_too_large());
            }
            begin(self, caller, body)
        }));
        Some(match work {
            Ok(work) => work.map_err(|e| Response::error(&e)),
            Err(_) => Err(Response::error(&Error::internal("The service failed on this request; nothing was written. Please report it."))),
        })
    }

    /// The short write of create or connect customer whose password work is done
    /// ([`Shipping::password_work`]), and its answer: 201 or 200 with the customer id, or
    /// the error.
    pub fn answer_password(&self, outcome: &PasswordOutcome) -> Response {
        caught(|| self.answer_password_work(outcome))
    }

    fn answer_password_work(&self, outcome: &PasswordOutcome) -> Result<Response> {
        json(if outcome.creates() { 201 } else { 200 }, &self.finish_password_work(outcome)?)
    }
}

/// What [`Shipping::prepare_as`] made of a request.
#[derive(Debug)]
pub enum Prepared {
    /// The request is answered: refused, or priced with nothing to store.
    Answered(Response),
    /// The quotes are priced and answered; [`Shipping::store_priced`] stores them.
    Priced(crate::PricedQuotes),
}

impl Shipping {
    /// The read-only step of a batch or single quote ([`Operation::prices`]) on behalf of
    /// `caller`, as [`Shipping::handle_as`] would take it: the caller's right to the
    /// customer, the request, the cap of quoted shipments of the day, and every shipment
    /// validated and priced, without writing. What is left to do is to store the quotes,
    /// with [`Shipping::store_priced`], on whichever `Shipping` writes: a front end prices
    /// on many connections at once and stores on one. Together they answer exactly what
    /// [`Shipping::handle_as`] answers (quote ids are given when the quotes are stored).
    ///
    /// An operation that does not price ([`Operation::prices`]) is answered `INTERNAL_ERROR`.
    pub fn prepare_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Prepared {
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.operation(|| self.price_as(caller, method, path, body))));
        match outcome {
            Ok(Ok(priced)) if priced.rows.is_empty() => match self.store_priced_quotes(priced) {
                Ok(body) => Prepared::Answered(Response { status: 200, body, retry_after: None, document: None }),
                Err(e) => Prepared::Answered(Response::error(&e)),
            },
            Ok(Ok(priced)) => Prepared::Priced(priced),
            Ok(Err(e)) => Prepared::Answered(Response::error(&e)),
            Err(_) => Prepared::Answered(Response::error(&Error::internal(
                "The service failed on this request; nothing was written. Please report it.",
            ))),
        }
    }

    fn price_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Result<crate::PricedQuotes> {
        if body.len() > MAX_BODY {
            return Err(body_too_large());
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let found = lookup(method, path)?;
        let Some(price) = found.route.priced else {
            return Err(Error::internal(format!("{} is not priced before it writes", found.route.pattern)));
        };
        let customer = found.params.get("customerId")?;
        if !self.acts_for(caller, customer)? {
            return Err(Error::not_found("customer", customer));
        }
        price(self, &found.params, Query(query), body)
    }

    /// Stores the quotes that [`Shipping::prepare_as`] priced, in one transaction (a
    /// savepoint in [`Shipping::commit_together`]), and answers with their ids.
    /// `TOO_MANY_REQUESTS` when quotes stored since the pricing leave the customer no
    /// room for these today.
    pub fn store_priced(&self, priced: crate::PricedQuotes) -> Response {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.store_priced_quotes(priced)));
        match outcome {
            Ok(Ok(body)) => Response { status: 200, body, retry_after: None, document: None },
            Ok(Err(e)) => Response::error(&e),
            Err(_) => Response::error(&Error::internal("The service failed on this request; nothing was written. Please report it.")),
        }
    }
}

/// The answer of `f`: its error's answer when it fails, `INTERNAL_ERROR` when it panics.
pub(crate) fn caught(f: impl FnOnce() -> Result<Response>) -> Response {
    answered(unpanicked(f))
}

/// What `f` returns, `INTERNAL_ERROR` when it panics.
pub(crate) fn unpanicked<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Error::internal("The service failed on this request; nothing was written. Please report it.")))
}

/// The answer of `outcome`: the error's answer when it is one.
pub(crate) fn answered(outcome: Result<Response>) -> Response {
    outcome.unwrap_or_else(|e| Response::error(&e))
}

/// A `status` answer with the JSON of `value`.
fn json<T: Serialize>(status: u16, value: &T) -> Result<Response> {
    Ok(Response { status, body: wire::to_json(value)?, retry_after: None, document: None })
}

// The handlers, in the order of the table. Each names its operation; the table names
// its route.

/// Create customer (4.9).
fn create_customer(s: &Shipping, _: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_customer(&parse_body(body)?)?)
}

/// Connect customer (DECISIONS 9).
fn connect_customer(s: &Shipping, _: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.connect_customer(&parse_body(body)?)?)
}

/// The read step of create customer for a partner key.
fn begin_create_customer(s: &Shipping, caller: &crate::Caller, body: &str) -> Result<PasswordWork> {
    s.begin_create_customer(Some(caller), &parse_body(body)?)
}

/// The read step of connect customer for a partner key.
fn begin_connect_customer(s: &Shipping, caller: &crate::Caller, body: &str) -> Result<PasswordWork> {
    s.begin_connect_customer(Some(caller), &parse_body(body)?)
}

/// List services (4.4).
fn list_services(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.list_services(p.get("customerId")?)?)
}

/// List integrated quoting options (4.8).
fn integrated_quoting_options(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.integrated_quoting_options(p.get("customerId")?)?)
}

/// Set integrated quoting options (DECISIONS 9).
fn set_integrated_quoting_options(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.set_integrated_quoting_options(p.get("customerId")?, &parse_body(body)?)?)
}

/// List provider accounts (4.11).
fn provider_accounts(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.provider_accounts(p.get("customerId")?)?)
}

/// Put provider account (DECISIONS 9).
fn put_provider_account(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.put_provider_account(CustomerId(p.get("customerId")?), p.get("providerCode")?, &parse_body(body)?)?)
}

/// Delete provider account (DECISIONS 9).
fn delete_provider_account(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_provider_account(CustomerId(p.get("customerId")?), p.get("id")?)?)
}

/// Update payment method (4.12).
fn update_payment_method(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.update_payment_method(p.get("customerId")?, &parse_body(body)?)?)
}

/// Regional shipment types (4.13).
fn regional_shipment_types(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.regional_shipment_types(CustomerId(p.get("customerId")?), p.get("postalCode")?)?)
}

/// Create integration (DECISIONS 9).
fn create_integration(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_integration(p.get("customerId")?, &parse_body(body)?)?)
}

/// Prepay balance and ledger (DECISIONS 9).
fn prepay(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.prepay(p.get("customerId")?)?)
}

/// List events (an extension; DECISIONS, "Events"): `?after=&limit=&types=`.
fn list_events(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    let limit = limit(q, crate::MAX_EVENTS_PAGE)?;
    let (after, types) = (q.get("after").filter(|a| !a.is_empty()), q.get("types"));
    json(200, &s.events(CustomerId(p.get("customerId")?), after.as_deref(), types.as_deref(), limit)?)
}

/// Create webhook (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn create_webhook(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_webhook(CustomerId(p.get("customerId")?), &parse_body(body)?)?)
}

/// List webhooks (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn list_webhooks(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.webhooks(CustomerId(p.get("customerId")?))?)
}

/// Get webhook (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn webhook(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.webhook(CustomerId(p.get("customerId")?), p.get("webhookId")?)?)
}

/// Update webhook (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn update_webhook(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.update_webhook(CustomerId(p.get("customerId")?), p.get("webhookId")?, &parse_body(body)?)?)
}

/// Delete webhook (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn delete_webhook(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_webhook(CustomerId(p.get("customerId")?), p.get("webhookId")?)?)
}

/// Rotate a webhook's secret (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn rotate_webhook_secret(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.rotate_webhook_secret(CustomerId(p.get("customerId")?), p.get("webhookId")?)?)
}

/// List a webhook's deliveries (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn webhook_deliveries(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    let limit = limit(q, crate::MAX_WEBHOOK_DELIVERIES_PAGE)?;
    json(200, &s.webhook_deliveries(CustomerId(p.get("customerId")?), p.get("webhookId")?, limit)?)
}

/// Replay a webhook's events (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn replay_webhook(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.replay_webhook(CustomerId(p.get("customerId")?), p.get("webhookId")?, &parse_body(body)?)?)
}

/// Send a test message to a webhook (an extension; DECISIONS, "Webhooks").
#[cfg(feature = "webhooks")]
fn test_webhook(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(202, &s.test_webhook(CustomerId(p.get("customerId")?), p.get("webhookId")?)?)
}

/// The partner keys connected to a customer (an extension; DECISIONS, "Logins").
fn partners(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.partners(p.get("customerId")?)?)
}

/// Disconnect a partner key from a customer (an extension; DECISIONS, "Logins").
fn disconnect_partner(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.disconnect_partner(CustomerId(p.get("customerId")?), p.get("keyId")?)?)
}

/// [`partners`] as the caller sees them: its own key sees every partner, a partner key
/// only itself.
fn partners_as(s: &Shipping, caller: &crate::Caller, p: &Params) -> Result<Response> {
    json(200, &s.partners_as(caller, p.get("customerId")?)?)
}

/// [`disconnect_partner`] as the caller may: its own key removes any partner, a partner
/// key only itself.
fn disconnect_partner_as(s: &Shipping, caller: &crate::Caller, p: &Params) -> Result<Response> {
    json(200, &s.disconnect_partner_as(caller, p.get("customerId")?, p.get("keyId")?)?)
}

/// Batch quote (4.1): the body goes to the batch reader as sent, and its answer is
/// already JSON.
fn batch_quote(s: &Shipping, p: &Params, q: Query, body: &str) -> Result<Response> {
    store_priced(s, price_batch_quote(s, p, q, body)?)
}

/// Single-shipment quote (DECISIONS 9).
fn quote(s: &Shipping, p: &Params, q: Query, body: &str) -> Result<Response> {
    store_priced(s, price_quote(s, p, q, body)?)
}

/// The pricing step of batch quote, which only reads (see [`Shipping::prepare_as`]).
fn price_batch_quote(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<crate::PricedQuotes> {
    s.price_batch_json(p.get("customerId")?, body)
}

/// The pricing step of the single quote, which only reads.
fn price_quote(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<crate::PricedQuotes> {
    s.price_quote(p.get("customerId")?, &parse_body(body)?)
}

/// Stores priced quotes: their answer.
fn store_priced(s: &Shipping, priced: crate::PricedQuotes) -> Result<Response> {
    Ok(Response { status: 200, body: s.store_priced_quotes(priced)?, retry_after: None, document: None })
}

/// Book shipment (4.5).
fn book_shipment(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.book_shipment(p.get("customerId")?, &parse_body(body)?)?)
}

/// List shipments (DECISIONS 9): `minBookNumber` (default: from the first) and `limit`
/// (default 100) from the query.
fn shipments(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    let min = q.get("minBookNumber").unwrap_or_default();
    // A page of list shipments holds 1 to 100 (Shipping::shipments).
    let limit = limit(q, 100)?.unwrap_or(100);
    json(200, &s.shipments(CustomerId(p.get("customerId")?), BookNumber(&min), limit)?)
}

/// The `limit` query of a list whose pages hold 1 to `most`: `None` when absent or
/// empty. The range itself is the operation's to check.
///
/// # Errors
/// `INVALID_REQUEST` on `limit` for anything but a whole number (shown cut to 40
/// characters).
fn limit(q: Query, most: i64) -> Result<Option<i64>> {
    q.get("limit")
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.parse().map_err(|_| {
                Error::invalid(
                    "limit",
                    format!("expected a whole number from 1 to {most}, found {:?}", l.chars().take(40).collect::<String>()),
                )
            })
        })
        .transpose()
}

/// Retrieve shipment (DECISIONS 9).
fn shipment(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.shipment(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?))?)
}

/// Void shipment (DECISIONS 9).
fn void_shipment(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.void_shipment(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), &parse_body(body)?)?)
}

/// Retrieve label (DECISIONS 9).
fn label(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    json(
        200,
        &s.label_on(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), Some(p.get("labelImageFormat")?), layout(q)?)?,
    )
}

/// The `layout` query of the label routes: `4x6` (the default), `letter` or `a4`.
fn layout(q: Query) -> Result<crate::LabelLayout> {
    match q.get("layout") {
        None => Ok(crate::LabelLayout::Label),
        Some(code) => crate::LabelLayout::from_code(&code)
            .ok_or_else(|| Error::invalid("layout", format!("expected 4x6, letter or a4, found {code:?}"))),
    }
}

/// Retrieve return label (4.5 `scanBasedReturnLabel`, an extension).
fn return_label(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    json(
        200,
        &s.return_label(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), Some(p.get("labelImageFormat")?), layout(q)?)?,
    )
}

/// Retrieve label in the format chosen at booking (DECISIONS 9, as clients call it).
fn booked_label(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    json(200, &s.label_on(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), None, layout(q)?)?)
}

/// Retrieve the labels of several shipments (an extension, as the public documentation
/// of the interface has it).
fn labels(s: &Shipping, p: &Params, q: Query, body: &str) -> Result<Response> {
    json(200, &s.labels(CustomerId(p.get("customerId")?), p.get("labelImageFormat")?, layout(q)?, &parse_body(body)?)?)
}

/// Retrieve commercial invoice (an extension; the shape of the manifest answer).
fn commercial_invoice(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.commercial_invoice(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?))?)
}

// The routes answered as one document (`Shipping::handle_documents_as`).

/// A 200 answer of the PDF `bytes` as itself.
fn pdf(bytes: Vec<u8>) -> Response {
    Response { status: 200, body: String::new(), retry_after: None, document: Some(Document { content_type: "application/pdf", bytes }) }
}

/// Labels as one PDF document when they are one PDF; else their JSON answer.
fn label_answer(images: crate::labels::LabelImages) -> Result<Response> {
    if images.format == crate::documents::LabelFormat::Pdf && images.images.len() == 1 {
        return Ok(pdf(images.images.into_iter().next().unwrap_or_default()));
    }
    json(200, &images.into_response())
}

/// [`label`] as one document.
fn label_document(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    label_answer(s.label_document(p.get("customerId")?, p.get("bookNumber")?, Some(p.get("labelImageFormat")?), layout(q)?)?)
}

/// [`booked_label`] as one document.
fn booked_label_document(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    label_answer(s.label_document(p.get("customerId")?, p.get("bookNumber")?, None, layout(q)?)?)
}

/// [`labels`] as one document.
fn labels_document(s: &Shipping, p: &Params, q: Query, body: &str) -> Result<Response> {
    label_answer(s.labels_document(p.get("customerId")?, p.get("labelImageFormat")?, layout(q)?, &parse_body(body)?)?)
}

/// [`return_label`] as one document: the label answer's one image, decoded.
fn return_label_document(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    use base64::Engine as _;
    let answer =
        s.return_label(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), Some(p.get("labelImageFormat")?), layout(q)?)?;
    let format = crate::documents::LabelFormat::from_code(&answer.label_image_format)
        .ok_or_else(|| Error::internal(format!("a return label in an unknown format {:?}", answer.label_image_format)))?;
    let images = answer
        .base64_images
        .iter()
        .map(|image| base64::engine::general_purpose::STANDARD.decode(image))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::internal(format!("a return label's image is not base64: {e}")))?;
    label_answer(crate::labels::LabelImages { format, images })
}

/// [`commercial_invoice`] as one document.
fn commercial_invoice_document(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    Ok(pdf(s.commercial_invoice_pdf(p.get("customerId")?, p.get("bookNumber")?)?))
}

/// Track shipment (4.6).
fn tracking_information(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.tracking_information(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?))?)
}

/// Record tracking events, the carrier feed (DECISIONS 9).
fn record_tracking_events(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.record_tracking_events(CustomerId(p.get("customerId")?), BookNumber(p.get("bookNumber")?), &parse_body(body)?)?)
}

/// Search shipments (4.3).
fn search_shipments(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    Ok(Response {
        status: 200,
        body: s.search_shipments_json(p.get("customerId")?, &parse_body(body)?)?,
        retry_after: None,
        document: None,
    })
}

/// Create batch (DECISIONS 9); an empty body is a batch without a name.
fn create_batch(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    let req = if body.trim().is_empty() { wire::CreateBatchRequest::default() } else { parse_body(body)? };
    json(201, &s.create_batch(p.get("customerId")?, &req)?)
}

/// List batches (DECISIONS 9).
fn batches(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.batches(p.get("customerId")?)?)
}

/// Get batch (DECISIONS 9).
fn batch(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.batch(CustomerId(p.get("customerId")?), p.get("batchId")?)?)
}

/// Delete batch (DECISIONS 9).
fn delete_batch(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_batch(CustomerId(p.get("customerId")?), p.get("batchId")?)?)
}

/// Add quotes to batch (DECISIONS 9).
fn add_quotes_to_batch(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.add_quotes_to_batch(CustomerId(p.get("customerId")?), p.get("batchId")?, &parse_body(body)?)?)
}

/// Book a batch (DECISIONS 9).
fn batch_book(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.batch_book(p.get("customerId")?, &parse_body(body)?)?)
}

/// Schedule pickup (4.7).
fn schedule_pickup(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.schedule_pickup(p.get("customerId")?, &parse_body(body)?)?)
}

/// Get pickup (DECISIONS 9).
fn pickup(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.pickup(CustomerId(p.get("customerId")?), p.get("pickupId")?)?)
}

/// Cancel pickup (DECISIONS 9).
fn cancel_pickup(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.cancel_pickup(CustomerId(p.get("customerId")?), p.get("pickupId")?, &parse_body(body)?)?)
}

/// Create manifest (4.10).
fn create_manifest(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_manifest(p.get("customerId")?, &parse_body(body)?)?)
}

/// Get manifest (DECISIONS 9).
fn manifest(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.manifest(CustomerId(p.get("customerId")?), p.get("manifestId")?)?)
}

/// Put order (4.2).
fn put_order(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.put_order(CustomerId(p.get("customerId")?), p.get("integrationId")?, p.get("orderId")?, &parse_body(body)?)?)
}

/// Get order (DECISIONS 9).
fn order(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.order(CustomerId(p.get("customerId")?), p.get("integrationId")?, p.get("orderId")?)?)
}

/// Delete order (DECISIONS 9).
fn delete_order(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_order(CustomerId(p.get("customerId")?), p.get("integrationId")?, p.get("orderId")?)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

    use super::*;

    fn decoded(raw: &str) -> Result<String> {
        decode_param("postalCode", raw).map(Cow::into_owned)
    }

    #[test]
    fn a_path_parameter_is_percent_decoded() {
        assert_eq!(decoded("K1A%200B1").unwrap(), "K1A 0B1");
        assert_eq!(decoded("SO%2F7%20A").unwrap(), "SO/7 A");
        assert_eq!(decoded("caf%C3%A9").unwrap(), "café");
        assert_eq!(decoded("%4a%4A").unwrap(), "JJ");
        // `+` is a space only in a query.
        assert_eq!(decoded("a+b").unwrap(), "a+b");
        assert_eq!(decoded("café").unwrap(), "café");
    }

    #[test]
    fn a_malformed_escape_in_a_path_parameter_is_refused_naming_it() {
        for raw in ["bad%zz", "%", "%4", "50%", "%%41", "%é", "%C3", "%FF", "%C3%28"] {
            let e = decoded(raw).expect_err(raw);
            assert_eq!(e.category(), ErrorCategory::InvalidRequest, "{raw}");
            assert_eq!(e.details()[0].field, "postalCode", "{raw}");
            assert_eq!(
                e.message(),
                format!("postalCode: expected UTF-8 text with %XX escapes (two hex digits each), found {raw:?}"),
                "{raw}"
            );
        }
    }

    #[test]
    fn a_query_value_is_form_decoded() {
        let q = Query("minBookNumber=1000000002&limit=5&note=a+b%20c&flag&limit=7");
        assert_eq!(q.get("minBookNumber").as_deref(), Some("1000000002"));
        assert_eq!(q.get("limit").as_deref(), Some("5"), "the first of repeated keys");
        assert_eq!(q.get("note").as_deref(), Some("a b c"));
        assert_eq!(q.get("flag").as_deref(), Some(""));
        assert_eq!(q.get("missing"), None);
        assert_eq!(Query("").get("limit"), None);
        assert_eq!(Query("limit=%zz").get("limit").as_deref(), Some("%zz"), "a stray % is kept, as browsers do");
    }

    /// A path `pattern` matches, each parameter filled with `value`.
    fn sample(pattern: &str, value: &str) -> String {
        pattern.split('/').map(|s| if s.starts_with(':') { value } else { s }).collect::<Vec<_>>().join("/")
    }

    #[test]
    fn every_route_is_reachable_and_its_wrong_methods_are_not_allowed() {
        for route in ROUTES.iter() {
            let path = sample(route.pattern, "x");
            let found = lookup(route.method.as_str(), &path).unwrap_or_else(|e| panic!("{} {path}: {e}", route.method.as_str()));
            assert!(std::ptr::eq(found.route, route), "{} {path} reached {}", route.method.as_str(), found.route.pattern);
            // The Allow list: the methods of the lines whose pattern has this shape (the
            // spec names the provider-account parameter differently for PUT and DELETE).
            let shape = sample(route.pattern, ":");
            let allowed: Vec<Method> =
                Method::ALL.into_iter().filter(|m| ROUTES.iter().any(|r| r.method == *m && sample(r.pattern, ":") == shape)).collect();
            for wrong in Method::ALL.into_iter().filter(|m| !allowed.contains(m)) {
                let e = lookup(wrong.as_str(), &path).err().unwrap_or_else(|| panic!("{} {path} was served", wrong.as_str()));
                assert_eq!(e.category(), ErrorCategory::MethodNotAllowed, "{} {path}: {e}", wrong.as_str());
                assert_eq!(e.message(), format!("{} is not allowed on {path}; use {}.", wrong.as_str(), either(&allowed)));
            }
        }
    }

    #[test]
    fn the_allow_list_is_worded_as_a_sentence() {
        let message = |method: &str, path: &str| lookup(method, path).err().map(|e| e.message().to_string());
        let c = "/restapi/v1/customers/C1";
        assert_eq!(message("GET", "/restapi/v1/customers").as_deref(), Some("GET is not allowed on /restapi/v1/customers; use POST."));
        assert_eq!(message("delete", &format!("{c}/shipments")), Some(format!("DELETE is not allowed on {c}/shipments; use GET or POST.")));
        assert_eq!(
            message("PATCH", &format!("{c}/integrations/I1/orders/O1")),
            Some(format!("PATCH is not allowed on {c}/integrations/I1/orders/O1; use GET, PUT or DELETE."))
        );
        assert_eq!(
            message("GET", &format!("{c}/provider-accounts/parcel")),
            Some(format!("GET is not allowed on {c}/provider-accounts/parcel; use PUT or DELETE."))
        );
    }

    #[test]
    fn a_path_no_pattern_matches_is_not_found() {
        for path in ["/", "/restapi/v1", "/restapi/v1/customers/C1", "/customers/C1/services", "/restapi/v1/customers/C1/Services"] {
            let e = lookup("GET", path).err().unwrap_or_else(|| panic!("{path} was served"));
            assert_eq!(e.category(), ErrorCategory::NotFound, "{path}");
            assert_eq!(e.message(), format!("No operation is served at {path}."));
        }
    }

    #[test]
    fn parameters_are_decoded_by_the_names_of_the_pattern() {
        let found = lookup("get", "//restapi/v1/customers/C%31/integrations/I1/orders/SO%2F7%20A/").unwrap();
        assert_eq!(found.route.pattern, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId");
        assert_eq!(found.params.get("customerId").unwrap(), "C1");
        assert_eq!(found.params.get("integrationId").unwrap(), "I1");
        assert_eq!(found.params.get("orderId").unwrap(), "SO/7 A");
        assert_eq!(found.params.get("bookNumber").unwrap_err().category(), ErrorCategory::Internal);
        let e = lookup("GET", "/restapi/v1/customers/C1/shipments/%zz").err().unwrap();
        assert_eq!(e.details()[0].field, "bookNumber");
    }

    #[test]
    fn every_handler_reads_the_parameters_of_its_pattern() {
        let shipping = Shipping::open_in_memory().unwrap();
        for route in ROUTES.iter() {
            let path = sample(route.pattern, "x");
            let r = shipping.handle(route.method.as_str(), &path, "{}");
            let what = format!("{} {path}: {} {}", route.method.as_str(), r.status, r.body);
            // Customer "x" does not exist, so each operation refuses the request itself.
            assert!(matches!(r.status, 400 | 401 | 404), "{what}");
            assert!(!r.body.contains("No operation is served"), "{what}");
        }
    }

    /// What a front end may run side by side: GETs and the search; every other route,
    /// and a path no route serves, counts as a write.
    #[test]
    fn only_gets_and_the_search_read() {
        let c = "/restapi/v1/customers/C0000001";
        for (method, path, writes) in [
            ("GET", format!("{c}/shipments/1000000001"), false),
            ("GET", format!("{c}/prepay"), false),
            ("POST", format!("{c}/searchShipments"), false),
            ("POST", format!("{c}/shipments"), true),
            ("POST", format!("{c}/quote"), true),
            ("POST", format!("{c}/batch-quote"), true),
            ("PUT", format!("{c}/provider-accounts/parcel"), true),
            ("POST", "/restapi/v1/nothing".to_string(), true),
        ] {
            assert_eq!(route(method, &path).map_or(true, Operation::writes), writes, "{method} {path}");
        }
    }

    /// The batch quote takes 16 MiB, the routes of one shipment, order or feed 4 MiB,
    /// every other route 1 MiB.
    #[test]
    fn each_route_has_the_body_limit_of_what_it_carries() {
        let c = "/restapi/v1/customers/C0000001";
        for (method, path, limit) in [
            ("POST", format!("{c}/batch-quote"), MAX_BODY),
            ("post", format!("{c}/batch-quote"), MAX_BODY),
            ("POST", format!("{c}/quote"), MAX_SHIPMENT_BODY),
            ("POST", format!("{c}/shipments"), MAX_SHIPMENT_BODY),
            ("POST", format!("{c}/shipments/1000000001/tracking-events"), MAX_SHIPMENT_BODY),
            ("PUT", format!("{c}/integrations/I1/orders/SO-1"), MAX_SHIPMENT_BODY),
            ("POST", format!("{c}/batch-book"), MAX_SMALL_BODY),
            ("POST", format!("{c}/batch"), MAX_SMALL_BODY),
            ("POST", format!("{c}/shipments/multiple/labels/PDF"), MAX_SMALL_BODY),
            ("POST", "/restapi/v1/customers".to_string(), MAX_SMALL_BODY),
            ("GET", format!("{c}/batch-quote"), MAX_SMALL_BODY),
            ("POST", "/restapi/v1/nothing".to_string(), MAX_SMALL_BODY),
        ] {
            assert_eq!(route(method, &path).map_or(MAX_SMALL_BODY, Operation::body_limit), limit, "{method} {path}");
        }
    }

    #[test]
    fn no_line_of_the_table_hides_another() {
        // The first line that matches serves the request: two lines of one method whose
        // patterns differ only in parameter names would leave the second unreachable.
        let pairs: Vec<_> = routes().map(|(method, pattern)| (method, sample(pattern, ":"))).collect();
        for (i, pair) in pairs.iter().enumerate() {
            assert!(!pairs[..i].contains(pair), "{pair:?} twice");
        }
        assert!(routes().any(|pair| pair == ("GET", "/customers/:customerId/regionalShipmentTypes/:postalCode")));
    }

    /// The names of the operations whose row says `fact`, in the order of the table.
    fn named(fact: impl Fn(&Operation) -> bool) -> Vec<&'static str> {
        operations().filter(|op| fact(op)).map(Operation::name).collect()
    }

    #[test]
    fn every_operation_has_a_name_of_its_own_in_camel_case() {
        let names = named(|_| true);
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
            assert!(name.starts_with(|c: char| c.is_ascii_lowercase()) && name.chars().all(|c| c.is_ascii_alphanumeric()), "{name}");
            assert!(std::ptr::eq(operation(name).unwrap(), operations().nth(i).unwrap()), "{name}");
        }
        assert_eq!(operation("BookShipment").map(Operation::name), None, "names match with case");
    }

    #[test]
    fn only_create_and_connect_customer_are_for_partner_keys_and_they_name_no_customer() {
        let partner = named(|op| op.access() == Access::Partner);
        assert_eq!(partner, ["createCustomer", "connectCustomer"]);
        let patterns: Vec<_> = operations().filter(|op| op.access() == Access::Partner).map(Operation::pattern).collect();
        assert_eq!(patterns, ["/restapi/v1/customers", "/restapi/v1/connect-customer"]);
        // Every other operation is of the customer its path names.
        assert_eq!(named(|op| !op.params().any(|p| p == "customerId")), partner);
    }

    #[test]
    fn only_the_partners_of_a_customer_answer_by_who_calls() {
        let by_caller = named(|op| matches!(op.as_caller, AsCaller::ByCaller(_)));
        assert_eq!(by_caller, ["partners", "disconnectPartner"]);
        let patterns: Vec<_> = ["partners", "disconnectPartner"].iter().map(|n| operation(n).unwrap().pattern()).collect();
        assert_eq!(patterns, ["/restapi/v1/customers/:customerId/partners", "/restapi/v1/customers/:customerId/partners/:keyId"]);
    }

    #[test]
    fn labels_and_the_commercial_invoice_are_the_operations_answered_as_documents() {
        let labels = named(|op| op.answer() == AnswerKind::Label);
        assert_eq!(labels, ["retrieveBookedLabel", "retrieveLabel", "retrieveReturnLabel", "retrieveLabelsOfShipments"]);
        assert_eq!(named(|op| op.answer() == AnswerKind::Invoice), ["retrieveCommercialInvoice"]);
        // A document handler exactly where the answer may be a document.
        assert_eq!(named(|op| op.document.is_some()), named(|op| op.answer() != AnswerKind::Json));
        let c = "/restapi/v1/customers/:customerId/shipments";
        let patterns: Vec<_> = operations().filter(|op| op.answer() != AnswerKind::Json).map(Operation::pattern).collect();
        assert_eq!(
            patterns,
            [
                format!("{c}/:bookNumber/label"),
                format!("{c}/:bookNumber/label/:labelImageFormat"),
                format!("{c}/:bookNumber/commercialInvoice"),
                format!("{c}/:bookNumber/return-label/:labelImageFormat"),
                format!("{c}/multiple/labels/:labelImageFormat"),
            ]
        );
    }

    #[test]
    fn only_batch_and_single_quote_are_priced_before_they_write() {
        assert_eq!(named(Operation::prices), ["batchQuote", "quote"]);
        assert!(named(Operation::prices).iter().all(|name| operation(name).unwrap().writes()));
    }

    #[test]
    fn the_writes_and_body_limits_of_the_table_are_those_of_their_rows() {
        assert_eq!(named(|op| op.method != Method::Get && !op.writes()), ["retrieveLabelsOfShipments", "searchShipments"]);
        assert!(operations().all(|op| op.method != Method::Get || !op.writes()));
        assert_eq!(named(|op| op.body_limit() == MAX_BODY), ["batchQuote"]);
        assert_eq!(named(|op| op.body_limit() == MAX_SHIPMENT_BODY), ["quote", "bookShipment", "recordTrackingEvents", "putOrder"]);
        assert!(operations().all(|op| [MAX_BODY, MAX_SHIPMENT_BODY, MAX_SMALL_BODY].contains(&op.body_limit())));
    }

    #[test]
    fn route_finds_what_handle_serves_and_says_why_it_finds_nothing() {
        for op in operations() {
            let path = format!("{}?layout=a4", sample(op.pattern, "x"));
            assert!(std::ptr::eq(route(&op.method().to_ascii_lowercase(), &path).unwrap(), op), "{} {path}", op.name);
            for wrong in Method::ALL.into_iter().filter(|m| *m != op.method) {
                match (route(wrong.as_str(), &path), lookup(wrong.as_str(), path.split('?').next().unwrap())) {
                    (Ok(other), Ok(found)) => assert!(std::ptr::eq(other, found.route)),
                    (Err(Unrouted::MethodNotAllowed(allowed)), Err(e)) => {
                        assert_eq!(e.category(), ErrorCategory::MethodNotAllowed);
                        assert!(e.message().ends_with(&format!(
                            "use {}.",
                            either(&allowed.iter().map(|m| Method::parse(m).unwrap()).collect::<Vec<_>>())
                        )));
                    }
                    (routed, looked_up) => panic!("{} {path}: {routed:?} but {:?}", wrong.as_str(), looked_up.err()),
                }
            }
        }
        assert_eq!(route("GET", "/restapi/v1/nothing").unwrap_err(), Unrouted::NotFound);
        assert_eq!(
            route("PATCH", "/restapi/v1/customers/C1/integrations/I1/orders/O1").unwrap_err(),
            Unrouted::MethodNotAllowed(vec!["GET", "PUT", "DELETE"])
        );
    }

    #[test]
    fn a_path_made_from_values_is_decoded_back_to_them() {
        let values = ["C 1", "a/b?c#d", "café", "100%", "x+y&z=1", "-_.!~*'()"];
        for op in operations() {
            let given: Vec<&str> = values.iter().copied().cycle().take(op.params().count()).collect();
            let path = op.path(&given).unwrap();
            let found = lookup(op.method(), &path).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(std::ptr::eq(found.route, op), "{path}");
            let decoded: Vec<&str> = op.params().map(|name| found.params.get(name).unwrap()).collect();
            assert_eq!(decoded, given, "{path}");
        }
        let op = operation("getOrder").unwrap();
        assert_eq!(op.path(&["C1", "I1", "SO 7/A"]).unwrap(), "/restapi/v1/customers/C1/integrations/I1/orders/SO%207%2FA");
        let e = op.path(&["C1", "I1"]).unwrap_err();
        assert_eq!((e.category(), e.details()[0].field.as_str()), (ErrorCategory::InvalidRequest, "params"));
    }
}
