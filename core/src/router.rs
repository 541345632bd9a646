//! `Shipping::handle`: the HTTP interface of the spec, in process, served from one table.
//!
//! Each operation is one line of the table in [`ROUTES`]: a method, a path pattern as the
//! spec writes it (`:name` marks a parameter) and a handler that calls the `Shipping`
//! method of the operation. Paths are exactly the spec's (DECISIONS 1 and 9).
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

use percent_encoding::percent_decode_str;
use serde::Serialize;

use crate::error::{Error, ErrorCategory, Result};
use crate::limits::{MAX_BODY, MAX_SHIPMENT_BODY, MAX_SMALL_BODY};
use crate::shipping::{PasswordOutcome, PasswordWork, Shipping};
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
    /// its route ([`route_body_limit`]).
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

/// A segment of a path pattern.
#[derive(Debug)]
enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

/// One line of the table: a method on a path pattern, and its handler.
pub(crate) struct Route {
    pub(crate) method: Method,
    /// The path as the spec writes it, e.g. `/restapi/v1/customers/:customerId/prepay`.
    pub(crate) pattern: &'static str,
    segments: Vec<Segment>,
    handler: Handler,
    /// The handler answering the route as one document, where it has one
    /// ([`Shipping::handle_documents_as`]).
    document: Option<Handler>,
    /// The operation may write: every method but GET, unless marked [`Route::reading`].
    writes: bool,
}

impl Route {
    fn new(method: Method, pattern: &'static str, handler: Handler) -> Route {
        let segments =
            pattern.split('/').filter(|s| !s.is_empty()).map(|s| s.strip_prefix(':').map_or(Segment::Literal(s), Segment::Param)).collect();
        Route { method, pattern, segments, handler, document: None, writes: method != Method::Get }
    }

    /// Gives the route `handler` for answers as one document.
    fn document(mut self, handler: Handler) -> Route {
        self.document = Some(handler);
        self
    }

    /// Marks a route of another method than GET whose operation only reads.
    fn reading(mut self) -> Route {
        self.writes = false;
        self
    }

    fn matches(&self, path: &[&str]) -> bool {
        self.segments.len() == path.len()
            && self.segments.iter().zip(path).all(|(s, p)| match s {
                Segment::Literal(literal) => literal == p,
                Segment::Param(_) => true,
            })
    }
}

/// Every operation of the interface and its extensions. Adding one is a line here and
/// a handler below.
static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    use Method::{Delete, Get, Post, Put};
    vec![
        Route::new(Post, "/restapi/v1/customers", create_customer),
        Route::new(Post, "/restapi/v1/connect-customer", connect_customer),
        Route::new(Get, "/restapi/v1/customers/:customerId/services", list_services),
        Route::new(Get, "/restapi/v1/customers/:customerId/integratedQuotingOptions", integrated_quoting_options),
        Route::new(Put, "/restapi/v1/customers/:customerId/integratedQuotingOptions", set_integrated_quoting_options),
        Route::new(Get, "/restapi/v1/customers/:customerId/provider-accounts", provider_accounts),
        Route::new(Put, "/restapi/v1/customers/:customerId/provider-accounts/:providerCode", put_provider_account),
        Route::new(Delete, "/restapi/v1/customers/:customerId/provider-accounts/:id", delete_provider_account),
        Route::new(Post, "/restapi/v1/customers/:customerId/paymentMethod", update_payment_method),
        Route::new(Get, "/restapi/v1/customers/:customerId/regionalShipmentTypes/:postalCode", regional_shipment_types),
        // 4.13 lists this path without the prefix; it answers on both (DECISIONS 1).
        Route::new(Get, "/customers/:customerId/regionalShipmentTypes/:postalCode", regional_shipment_types),
        Route::new(Post, "/restapi/v1/customers/:customerId/integrations", create_integration),
        Route::new(Get, "/restapi/v1/customers/:customerId/prepay", prepay),
        Route::new(Get, "/restapi/v1/customers/:customerId/partners", partners),
        Route::new(Delete, "/restapi/v1/customers/:customerId/partners/:keyId", disconnect_partner),
        Route::new(Post, "/restapi/v1/customers/:customerId/batch-quote", batch_quote),
        Route::new(Post, "/restapi/v1/customers/:customerId/quote", quote),
        Route::new(Post, "/restapi/v1/customers/:customerId/shipments", book_shipment),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments", shipments),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber", shipment),
        Route::new(Post, "/restapi/v1/customers/:customerId/shipments/:bookNumber", void_shipment),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/label", booked_label).document(booked_label_document),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/label/:labelImageFormat", label).document(label_document),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/commercialInvoice", commercial_invoice)
            .document(commercial_invoice_document),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/return-label/:labelImageFormat", return_label)
            .document(return_label_document),
        Route::new(Post, "/restapi/v1/customers/:customerId/shipments/multiple/labels/:labelImageFormat", labels)
            .document(labels_document)
            .reading(),
        Route::new(Get, "/restapi/v1/customers/:customerId/shipments/:bookNumber/tracking-information", tracking_information),
        Route::new(Post, "/restapi/v1/customers/:customerId/shipments/:bookNumber/tracking-events", record_tracking_events),
        Route::new(Post, "/restapi/v1/customers/:customerId/searchShipments", search_shipments).reading(),
        Route::new(Post, "/restapi/v1/customers/:customerId/batch", create_batch),
        Route::new(Get, "/restapi/v1/customers/:customerId/batch", batches),
        Route::new(Get, "/restapi/v1/customers/:customerId/batch/:batchId", batch),
        Route::new(Delete, "/restapi/v1/customers/:customerId/batch/:batchId", delete_batch),
        Route::new(Post, "/restapi/v1/customers/:customerId/batch/:batchId/quotes", add_quotes_to_batch),
        Route::new(Post, "/restapi/v1/customers/:customerId/batch-book", batch_book),
        Route::new(Post, "/restapi/v1/customers/:customerId/pickups", schedule_pickup),
        Route::new(Get, "/restapi/v1/customers/:customerId/pickups/:pickupId", pickup),
        Route::new(Post, "/restapi/v1/customers/:customerId/pickups/:pickupId", cancel_pickup),
        Route::new(Post, "/restapi/v1/customers/:customerId/manifest", create_manifest),
        Route::new(Get, "/restapi/v1/customers/:customerId/manifest/:manifestId", manifest),
        Route::new(Put, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId", put_order),
        Route::new(Get, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId", order),
        Route::new(Delete, "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId", delete_order),
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

/// The decoded path parameters of a request, by the names of its route's pattern.
#[derive(Debug)]
pub(crate) struct Params<'p> {
    values: Vec<(&'static str, Cow<'p, str>)>,
}

impl<'p> Params<'p> {
    /// Decodes the parameters of `path`, a path `route` matches.
    fn decode(route: &Route, path: &[&'p str]) -> Result<Params<'p>> {
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
    pub(crate) route: &'static Route,
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
    let wanted = Method::parse(method);
    let mut seen = [false; Method::ALL.len()];
    for route in ROUTES.iter().filter(|r| r.matches(&segments)) {
        if Some(route.method) == wanted {
            return Ok(Found { route, params: Params::decode(route, &segments)? });
        }
        seen[route.method as usize] = true;
    }
    if !seen.contains(&true) {
        return Err(Error::new(ErrorCategory::NotFound, format!("No operation is served at {path}.")));
    }
    let allowed: Vec<Method> = Method::ALL.into_iter().filter(|m| seen[*m as usize]).collect();
    Err(Error::new(
        ErrorCategory::MethodNotAllowed,
        format!("{} is not allowed on {path}; use {}.", method.to_ascii_uppercase(), either(&allowed)),
    ))
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
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(method, path, body)));
        match outcome {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => Response::error(&e),
            Err(_) => Response::error(&Error::internal("The service failed on this request; nothing was written. Please report it.")),
        }
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

/// The two routes outside a customer: only a partner key may call them.
const CREATE_CUSTOMER: &str = "/restapi/v1/customers";
const CONNECT_CUSTOMER: &str = "/restapi/v1/connect-customer";
/// The routes of a customer's partners, which answer by who the caller is.
const PARTNERS: &str = "/restapi/v1/customers/:customerId/partners";
const PARTNER: &str = "/restapi/v1/customers/:customerId/partners/:keyId";

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
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch_as(caller, method, path, body, documents)));
        match outcome {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => Response::error(&e),
            Err(_) => Response::error(&Error::internal("The service failed on this request; nothing was written. Please report it.")),
        }
    }

    fn dispatch_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str, documents: bool) -> Result<Response> {
        if body.len() > MAX_BODY {
            return Err(body_too_large());
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let found = lookup(method, path)?;
        let customer = found.params.values.iter().find(|(name, _)| *name == "customerId").map(|(_, id)| id.as_ref());
        match (customer, found.route.pattern) {
            (Some(id), pattern) => {
                if !self.acts_for(caller, id)? {
                    return Err(Error::not_found("customer", id));
                }
                match pattern {
                    PARTNERS => json(200, &self.partners_as(caller, id)?),
                    PARTNER => json(200, &self.disconnect_partner_as(caller, id, found.params.get("keyId")?)?),
                    _ => {
                        let handler = found.route.document.filter(|_| documents).unwrap_or(found.route.handler);
                        handler(self, &found.params, Query(query), body)
                    }
                }
            }
            (None, CREATE_CUSTOMER | CONNECT_CUSTOMER) => {
                let outcome = self.begin_password_work(caller, found.route.pattern, body)?.run();
                self.answer_password_work(&outcome)
            }
            (None, pattern) => Err(Error::internal(format!("{pattern} serves no customer and is not a partner operation"))),
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
        let pattern = lookup(method, path).ok()?.route.pattern;
        if ![CREATE_CUSTOMER, CONNECT_CUSTOMER].contains(&pattern) {
            return None;
        }
        let work = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if body.len() > MAX_BODY {
                return Err(body_too_large());
            }
            self.begin_password_work(caller, pattern, body)
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
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer_password_work(outcome)));
        match outcome {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => Response::error(&e),
            Err(_) => Response::error(&Error::internal("The service failed on this request; nothing was written. Please report it.")),
        }
    }

    fn begin_password_work(&self, caller: &crate::Caller, pattern: &str, body: &str) -> Result<PasswordWork> {
        if pattern == CREATE_CUSTOMER {
            self.begin_create_customer(Some(caller), &parse_body(body)?)
        } else {
            self.begin_connect_customer(Some(caller), &parse_body(body)?)
        }
    }

    fn answer_password_work(&self, outcome: &PasswordOutcome) -> Result<Response> {
        json(if outcome.creates() { 201 } else { 200 }, &self.finish_password_work(outcome)?)
    }
}

/// The operations priced before they write: their pricing step only reads, and only
/// storing the quotes needs the writer (see [`Shipping::prepare_as`]).
const PRICED: [(&str, PriceHandler); 2] =
    [("/restapi/v1/customers/:customerId/batch-quote", price_batch_quote), ("/restapi/v1/customers/:customerId/quote", price_quote)];

/// The read-only step of an operation of [`PRICED`].
type PriceHandler = fn(&Shipping, &Params<'_>, Query<'_>, &str) -> Result<crate::PricedQuotes>;

/// What [`Shipping::prepare_as`] made of a request.
#[derive(Debug)]
pub enum Prepared {
    /// The request is answered: refused, or priced with nothing to store.
    Answered(Response),
    /// The quotes are priced and answered; [`Shipping::store_priced`] stores them.
    Priced(crate::PricedQuotes),
}

impl Shipping {
    /// The read-only step of a batch or single quote ([`route_prices`]) on behalf of
    /// `caller`, as [`Shipping::handle_as`] would take it: the caller's right to the
    /// customer, the request, the cap of quoted shipments of the day, and every shipment
    /// validated and priced, without writing. What is left to do is to store the quotes,
    /// with [`Shipping::store_priced`], on whichever `Shipping` writes: a front end prices
    /// on many connections at once and stores on one. Together they answer exactly what
    /// [`Shipping::handle_as`] answers (quote ids are given when the quotes are stored).
    ///
    /// A route that [`route_prices`] does not name is answered `INTERNAL_ERROR`.
    pub fn prepare_as(&self, caller: &crate::Caller, method: &str, path: &str, body: &str) -> Prepared {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.price_as(caller, method, path, body)));
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
        let Some((_, price)) = PRICED.iter().find(|(pattern, _)| *pattern == found.route.pattern) else {
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

/// True when the operation serving `method` on `path` is priced before it writes
/// (batch and single quote): a front end runs [`Shipping::prepare_as`] where it reads,
/// and [`Shipping::store_priced`] where it writes.
pub fn route_prices(method: &str, path: &str) -> bool {
    lookup(method, path).is_ok_and(|found| PRICED.iter().any(|(pattern, _)| *pattern == found.route.pattern))
}

/// The methods the interface serves on `path` (without its query), in the order of
/// `METHOD_NOT_ALLOWED` messages: what an HTTP `Allow` header lists. Empty when no
/// operation is served there.
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    Method::ALL.into_iter().filter(|m| ROUTES.iter().any(|r| r.method == *m && r.matches(&segments))).map(Method::as_str).collect()
}

/// The pattern of the route serving `method` on `path` (without its query), e.g.
/// `/restapi/v1/customers/:customerId/shipments/:bookNumber/label/:labelImageFormat`;
/// `None` when no route serves it. Lets a front end treat a route's answer in its own
/// way.
pub fn route_pattern(method: &str, path: &str) -> Option<&'static str> {
    lookup(method, path).ok().map(|found| found.route.pattern)
}

/// True when the operation serving `method` on `path` may write to the database: every
/// route but the GETs and the search. A front end that serves requests side by side
/// lets the others run while writes go one at a time. A path no route serves counts as
/// a write (it is answered at once anyway).
pub fn route_writes(method: &str, path: &str) -> bool {
    lookup(method, path).map_or(true, |found| found.route.writes)
}

/// The largest request body the operation serving `method` on `path` (without its
/// query) takes, in bytes: [`MAX_BODY`] for the batch quote, [`MAX_SHIPMENT_BODY`] for
/// the routes that carry one shipment, one order or a feed of tracking events,
/// [`MAX_SMALL_BODY`] for every other route and for a path no route serves. A front end
/// refuses a longer body before reading it in whole; `handle` takes up to [`MAX_BODY`]
/// on every route.
pub fn route_body_limit(method: &str, path: &str) -> usize {
    match lookup(method, path).map(|found| found.route.pattern) {
        Ok("/restapi/v1/customers/:customerId/batch-quote") => MAX_BODY,
        Ok(
            "/restapi/v1/customers/:customerId/quote"
            | "/restapi/v1/customers/:customerId/shipments"
            | "/restapi/v1/customers/:customerId/shipments/:bookNumber/tracking-events"
            | "/restapi/v1/customers/:customerId/integrations/:integrationId/orders/:orderId",
        ) => MAX_SHIPMENT_BODY,
        _ => MAX_SMALL_BODY,
    }
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
    json(201, &s.put_provider_account(p.get("customerId")?, p.get("providerCode")?, &parse_body(body)?)?)
}

/// Delete provider account (DECISIONS 9).
fn delete_provider_account(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_provider_account(p.get("customerId")?, p.get("id")?)?)
}

/// Update payment method (4.12).
fn update_payment_method(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.update_payment_method(p.get("customerId")?, &parse_body(body)?)?)
}

/// Regional shipment types (4.13).
fn regional_shipment_types(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.regional_shipment_types(p.get("customerId")?, p.get("postalCode")?)?)
}

/// Create integration (DECISIONS 9).
fn create_integration(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_integration(p.get("customerId")?, &parse_body(body)?)?)
}

/// Prepay balance and ledger (DECISIONS 9).
fn prepay(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.prepay(p.get("customerId")?)?)
}

/// The partner keys connected to a customer (an extension; DECISIONS, "Logins").
fn partners(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.partners(p.get("customerId")?)?)
}

/// Disconnect a partner key from a customer (an extension; DECISIONS, "Logins").
fn disconnect_partner(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.disconnect_partner(p.get("customerId")?, p.get("keyId")?)?)
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
    let limit = match q.get("limit").filter(|l| !l.is_empty()) {
        None => 100,
        Some(l) => l.parse().map_err(|_| Error::invalid("limit", format!("expected a whole number from 1 to 100, found {l:?}")))?,
    };
    json(200, &s.shipments(p.get("customerId")?, &min, limit)?)
}

/// Retrieve shipment (DECISIONS 9).
fn shipment(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.shipment(p.get("customerId")?, p.get("bookNumber")?)?)
}

/// Void shipment (DECISIONS 9).
fn void_shipment(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.void_shipment(p.get("customerId")?, p.get("bookNumber")?, &parse_body(body)?)?)
}

/// Retrieve label (DECISIONS 9).
fn label(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    json(200, &s.label_on(p.get("customerId")?, p.get("bookNumber")?, Some(p.get("labelImageFormat")?), layout(q)?)?)
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
    json(200, &s.return_label(p.get("customerId")?, p.get("bookNumber")?, Some(p.get("labelImageFormat")?), layout(q)?)?)
}

/// Retrieve label in the format chosen at booking (DECISIONS 9, as clients call it).
fn booked_label(s: &Shipping, p: &Params, q: Query, _: &str) -> Result<Response> {
    json(200, &s.label_on(p.get("customerId")?, p.get("bookNumber")?, None, layout(q)?)?)
}

/// Retrieve the labels of several shipments (an extension, as the public documentation
/// of the interface has it).
fn labels(s: &Shipping, p: &Params, q: Query, body: &str) -> Result<Response> {
    json(200, &s.labels(p.get("customerId")?, p.get("labelImageFormat")?, layout(q)?, &parse_body(body)?)?)
}

/// Retrieve commercial invoice (an extension; the shape of the manifest answer).
fn commercial_invoice(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.commercial_invoice(p.get("customerId")?, p.get("bookNumber")?)?)
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
    let answer = s.return_label(p.get("customerId")?, p.get("bookNumber")?, Some(p.get("labelImageFormat")?), layout(q)?)?;
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
    json(200, &s.tracking_information(p.get("customerId")?, p.get("bookNumber")?)?)
}

/// Record tracking events, the carrier feed (DECISIONS 9).
fn record_tracking_events(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.record_tracking_events(p.get("customerId")?, p.get("bookNumber")?, &parse_body(body)?)?)
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
    json(200, &s.batch(p.get("customerId")?, p.get("batchId")?)?)
}

/// Delete batch (DECISIONS 9).
fn delete_batch(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_batch(p.get("customerId")?, p.get("batchId")?)?)
}

/// Add quotes to batch (DECISIONS 9).
fn add_quotes_to_batch(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.add_quotes_to_batch(p.get("customerId")?, p.get("batchId")?, &parse_body(body)?)?)
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
    json(200, &s.pickup(p.get("customerId")?, p.get("pickupId")?)?)
}

/// Cancel pickup (DECISIONS 9).
fn cancel_pickup(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(200, &s.cancel_pickup(p.get("customerId")?, p.get("pickupId")?, &parse_body(body)?)?)
}

/// Create manifest (4.10).
fn create_manifest(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.create_manifest(p.get("customerId")?, &parse_body(body)?)?)
}

/// Get manifest (DECISIONS 9).
fn manifest(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.manifest(p.get("customerId")?, p.get("manifestId")?)?)
}

/// Put order (4.2).
fn put_order(s: &Shipping, p: &Params, _: Query, body: &str) -> Result<Response> {
    json(201, &s.put_order(p.get("customerId")?, p.get("integrationId")?, p.get("orderId")?, &parse_body(body)?)?)
}

/// Get order (DECISIONS 9).
fn order(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.order(p.get("customerId")?, p.get("integrationId")?, p.get("orderId")?)?)
}

/// Delete order (DECISIONS 9).
fn delete_order(s: &Shipping, p: &Params, _: Query, _: &str) -> Result<Response> {
    json(200, &s.delete_order(p.get("customerId")?, p.get("integrationId")?, p.get("orderId")?)?)
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
            assert_eq!(route_writes(method, &path), writes, "{method} {path}");
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
            assert_eq!(route_body_limit(method, &path), limit, "{method} {path}");
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
}
