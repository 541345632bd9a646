//! The one error type of consign, with its errorCategory and HTTP status.
//!
//! Every failure an operation can report is an [`Error`]: a category (which decides the
//! HTTP status and the `errorCategory` string), one sentence a person can act on, and,
//! where fields are at fault, their JSON paths. The mapping to HTTP lives here and only
//! here.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

/// The category of an [`Error`]: decides the `errorCategory` string and the HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// Malformed JSON, wrong types, rule violations (400).
    InvalidRequest,
    /// More than 500 shipments, more than 2 `dhlTaxIds`, size limits (400).
    LimitExceeded,
    /// Missing or wrong credentials (401).
    Unauthorized,
    /// Prepay balance too low and no recharge approved or possible (402).
    InsufficientFunds,
    /// Unknown resource, or a resource of another customer (404).
    NotFound,
    /// Known path, wrong method (405).
    MethodNotAllowed,
    /// Duplicate e-mail, voiding twice, idempotency key reuse, shipment already on a manifest (409).
    Conflict,
    /// Booking or batching a quote older than 30 days (409).
    QuoteExpired,
    /// What was asked for is no longer kept: an event cursor older than the oldest event
    /// kept (410).
    Gone,
    /// A named service does not serve the route (a quote result; 400 if ever answered alone).
    ServiceNotAvailable,
    /// A service cannot arrive by the shipment's `deliverBy` date (a quote result; 400
    /// when the single quote of a named service answers it).
    DeliveryDateNotMet,
    /// Too many failed logins for an account or by a key: wait `Retry-After` seconds
    /// (429). The right password is refused too until then.
    TooManyAttempts,
    /// A limit of requests or stored rows per key or customer over a period was reached:
    /// wait `Retry-After` seconds (429).
    TooManyRequests,
    /// The database stayed locked by another connection (another process or `Shipping`
    /// on the same file) past the busy timeout (503). Nothing was done: retry later.
    Busy,
    /// A bug; never caused by input (500).
    Internal,
}

impl ErrorCategory {
    /// Every category, each once: the one list of them, which the lists of the documents
    /// and front ends (`docs/openapi.json`, `consign.d.ts`) are checked against.
    pub const ALL: &'static [Self] = &[
        Self::InvalidRequest,
        Self::LimitExceeded,
        Self::Unauthorized,
        Self::InsufficientFunds,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::Conflict,
        Self::QuoteExpired,
        Self::Gone,
        Self::ServiceNotAvailable,
        Self::DeliveryDateNotMet,
        Self::TooManyAttempts,
        Self::TooManyRequests,
        Self::Busy,
        Self::Internal,
    ];

    /// The `errorCategory` string of the interface, e.g. `INVALID_REQUEST`.
    pub fn code(self) -> &'static str {
        match self {
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::LimitExceeded => "LIMIT_EXCEEDED",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::InsufficientFunds => "INSUFFICIENT_FUNDS",
            Self::NotFound => "NOT_FOUND",
            Self::Gone => "GONE",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::Conflict => "CONFLICT",
            Self::QuoteExpired => "QUOTE_EXPIRED",
            Self::ServiceNotAvailable => "SERVICE_NOT_AVAILABLE",
            Self::DeliveryDateNotMet => "DELIVERY_DATE_NOT_MET",
            Self::TooManyAttempts => "TOO_MANY_ATTEMPTS",
            Self::TooManyRequests => "TOO_MANY_REQUESTS",
            Self::Busy => "BUSY",
            Self::Internal => "INTERNAL",
        }
    }

    /// The HTTP status an answer of this category carries.
    pub fn status(self) -> u16 {
        match self {
            Self::InvalidRequest | Self::LimitExceeded | Self::ServiceNotAvailable | Self::DeliveryDateNotMet => 400,
            Self::Unauthorized => 401,
            Self::InsufficientFunds => 402,
            Self::NotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::Conflict | Self::QuoteExpired => 409,
            Self::Gone => 410,
            Self::TooManyAttempts | Self::TooManyRequests => 429,
            Self::Internal => 500,
            Self::Busy => 503,
        }
    }
}

impl fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The category with `code` (e.g. `INVALID_REQUEST`); unknown codes are `INTERNAL`.
pub(crate) fn category_from_code(code: &str) -> ErrorCategory {
    ErrorCategory::ALL.iter().copied().find(|c| c.code() == code).unwrap_or(ErrorCategory::Internal)
}

/// One field at fault: its JSON path (`shipments[3].sender.state`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FieldError {
    /// JSON path of the field, e.g. `shipments[3].sender.state`.
    pub field: String,
    /// What was expected and what was found.
    pub message: String,
}

/// The lower-level error an [`Error`] was caused by (SQLite, JSON, a rate file).
/// Shared, so that an `Error` stays `Clone`.
type Source = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// A failure of an operation: category, a sentence for people, and the fields at fault.
///
/// A failure caused by a lower-level error (SQLite, JSON, a rate file) keeps it as
/// [`std::error::Error::source`]; it is not part of the message, the JSON body or
/// equality.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
#[error("{message}")]
pub struct Error {
    category: ErrorCategory,
    message: String,
    details: Vec<FieldError>,
    /// Seconds after which the request may succeed (`Retry-After`): `BUSY` and the 429s.
    retry_after: Option<u64>,
    #[source]
    source: Option<Source>,
}

/// Two errors are equal when they say the same: category, message and fields.
impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.category == other.category && self.message == other.message && self.details == other.details
    }
}

impl Eq for Error {}

impl Error {
    /// An error of `category` with a message and no field details.
    pub fn new(category: ErrorCategory, message: impl Into<String>) -> Self {
        let retry_after = (category == ErrorCategory::Busy).then_some(1);
        Error { category, message: message.into(), details: Vec::new(), retry_after, source: None }
    }

    /// The same error, caused by `source` (returned by [`std::error::Error::source`]).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// The same error, to be retried after `seconds` (HTTP `Retry-After`).
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// Seconds after which the request may succeed, when the error says (`BUSY` and the
    /// 429s): what HTTP sends as `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// An `INVALID_REQUEST` error about one field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::fields(ErrorCategory::InvalidRequest, vec![FieldError { field: field.into(), message: message.into() }])
    }

    /// An error of `category` about one or more fields; the sentence names the first.
    pub fn fields(category: ErrorCategory, details: Vec<FieldError>) -> Self {
        let count = details.len();
        Self::fields_of(category, details, count)
    }

    /// [`Error::fields`] for `count` invalid fields of which `details` are the first.
    fn fields_of(category: ErrorCategory, details: Vec<FieldError>, count: usize) -> Self {
        let message = match details.first() {
            None => "The request is not valid.".to_string(),
            Some(one) if count <= 1 => format!("{}: {}", one.field, one.message),
            Some(first) => {
                let rest = count - 1;
                format!("{}: {} (and {rest} more invalid field{})", first.field, first.message, if rest == 1 { "" } else { "s" })
            }
        };
        Error { category, message, details, retry_after: None, source: None }
    }

    /// `NOT_FOUND` for a resource, e.g. `not_found("customer", "C0000009")`.
    pub fn not_found(what: &str, id: &str) -> Self {
        Self::new(ErrorCategory::NotFound, format!("No {what} {id:?} was found."))
    }

    /// `CONFLICT` with a message.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Conflict, message)
    }

    /// `INTERNAL`: a bug or a storage failure, never caused by input.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Internal, message)
    }

    /// The category of this error.
    pub fn category(&self) -> ErrorCategory {
        self.category
    }

    /// The sentence for people.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The fields at fault (empty when none is).
    pub fn details(&self) -> &[FieldError] {
        &self.details
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> u16 {
        self.category.status()
    }

    /// The same error with every field path put under `prefix` (`shipments[3]` + `sender.zip`).
    pub fn within(mut self, prefix: &str) -> Self {
        if prefix.is_empty() || self.details.is_empty() {
            return self;
        }
        for d in &mut self.details {
            d.field = join_path(prefix, &d.field);
        }
        let (source, retry_after) = (self.source, self.retry_after);
        Self { source, retry_after, ..Self::fields(self.category, self.details) }
    }

    /// The JSON body of the interface: `{"error", "errorCategory", "details"?}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut body = serde_json::json!({
            "error": self.message,
            "errorCategory": self.category.code(),
        });
        if !self.details.is_empty() {
            body["details"] = serde_json::to_value(&self.details).unwrap_or(serde_json::Value::Null);
        }
        body
    }
}

/// `prefix.field`, or `prefix[2]` when the field is an index.
pub(crate) fn join_path(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_string()
    } else if field.is_empty() {
        prefix.to_string()
    } else if field.starts_with('[') {
        format!("{prefix}{field}")
    } else {
        format!("{prefix}.{field}")
    }
}

/// The result type of consign operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects every field problem of a request so that one answer names them all.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    details: Vec<FieldError>,
    /// Problems past [`MAX_DETAILS`], counted but not kept.
    more: usize,
}

/// Most field errors one error lists: a request of thousands of invalid entries is told
/// of the first hundred and how many more there are, without a detail (and the memory
/// of one) for each.
pub(crate) const MAX_DETAILS: usize = 100;

impl Problems {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records that `field` is wrong.
    pub(crate) fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        if self.details.len() < MAX_DETAILS {
            self.details.push(FieldError { field: field.into(), message: message.into() });
        } else {
            self.more += 1;
        }
    }

    /// `Ok(())` when nothing was recorded, else one `INVALID_REQUEST` naming every field
    /// (the first [`MAX_DETAILS`] of them in `details`).
    pub(crate) fn finish(self) -> Result<()> {
        if self.details.is_empty() {
            Ok(())
        } else {
            let count = self.details.len() + self.more;
            Err(Error::fields_of(ErrorCategory::InvalidRequest, self.details, count))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_lists_at_most_a_hundred_fields_and_counts_the_rest() {
        let mut p = Problems::new();
        for i in 0..250 {
            p.push(format!("items[{i}].sku"), "must not be empty");
        }
        let e = p.finish().unwrap_err();
        assert_eq!(e.details().len(), MAX_DETAILS);
        assert_eq!(e.message(), "items[0].sku: must not be empty (and 249 more invalid fields)");
    }

    #[test]
    fn busy_reads_back_from_its_code_and_is_retried_after_a_second() {
        assert_eq!(category_from_code("BUSY"), ErrorCategory::Busy);
        assert_eq!(Error::new(ErrorCategory::Busy, "locked").retry_after(), Some(1));
    }

    #[test]
    fn the_429s_carry_their_retry_after() {
        for (category, code) in
            [(ErrorCategory::TooManyAttempts, "TOO_MANY_ATTEMPTS"), (ErrorCategory::TooManyRequests, "TOO_MANY_REQUESTS")]
        {
            let e = Error::new(category, "wait").with_retry_after(30);
            assert_eq!((e.status(), e.category().code(), e.retry_after()), (429, code, Some(30)));
            assert_eq!(category_from_code(code), category);
        }
    }

    #[test]
    fn all_lists_every_category_once_and_each_code_reads_back() {
        use ErrorCategory::*;
        // Each category names the one after it in ALL, the last the first. No wildcard: a
        // new category does not compile here until it has a place in this ring, and the
        // ring is walked against ALL below.
        let next = |c: ErrorCategory| match c {
            InvalidRequest => LimitExceeded,
            LimitExceeded => Unauthorized,
            Unauthorized => InsufficientFunds,
            InsufficientFunds => NotFound,
            NotFound => MethodNotAllowed,
            MethodNotAllowed => Conflict,
            Conflict => QuoteExpired,
            QuoteExpired => Gone,
            Gone => ServiceNotAvailable,
            ServiceNotAvailable => DeliveryDateNotMet,
            DeliveryDateNotMet => TooManyAttempts,
            TooManyAttempts => TooManyRequests,
            TooManyRequests => Busy,
            Busy => Internal,
            Internal => InvalidRequest,
        };
        let mut ring = vec![InvalidRequest];
        while ring.len() <= ErrorCategory::ALL.len() && next(ring[ring.len() - 1]) != InvalidRequest {
            ring.push(next(ring[ring.len() - 1]));
        }
        assert_eq!(ring, ErrorCategory::ALL);
        let codes: std::collections::HashSet<&str> = ErrorCategory::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(codes.len(), ErrorCategory::ALL.len(), "two categories share a code");
        for &c in ErrorCategory::ALL {
            assert_eq!(category_from_code(c.code()), c);
        }
        assert_eq!(category_from_code("NO_SUCH_CATEGORY"), Internal);
    }
}
