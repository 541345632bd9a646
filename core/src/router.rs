//! `Shipping::handle`: the HTTP interface of the spec, in process.
//!
//! Paths are exactly the spec's (DECISIONS 1 and 9). A path that matches no route is
//! `NOT_FOUND`; a known path with the wrong method is `METHOD_NOT_ALLOWED`. Every error
//! has the body of DECISIONS 2.

use serde::Serialize;

use crate::error::{Error, ErrorCategory, Result};
use crate::shipping::Shipping;
use crate::wire::{self, parse_body};

/// Largest request body accepted (a full 500-shipment batch is about 1 MiB).
const MAX_BODY: usize = 32 * 1024 * 1024;

/// An HTTP answer: status and JSON body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status, e.g. 200, 201, 400.
    pub status: u16,
    /// The JSON body.
    pub body: String,
}

impl Response {
    fn json<T: Serialize>(status: u16, value: &T) -> Response {
        match wire::to_json(value) {
            Ok(body) => Response { status, body },
            Err(e) => Response::error(&e),
        }
    }

    /// The answer for `error`: its status and the body of DECISIONS 2.
    pub fn error(error: &Error) -> Response {
        Response { status: error.status(), body: error.to_json().to_string() }
    }
}

/// The paths of the interface, with their parameters.
enum Endpoint<'a> {
    Customers,
    ConnectCustomer,
    Services(&'a str),
    QuotingOptions(&'a str),
    ProviderAccounts(&'a str),
    ProviderAccount(&'a str, &'a str),
    PaymentMethod(&'a str),
    RegionalShipmentTypes(&'a str, String),
    Integrations(&'a str),
    Prepay(&'a str),
    BatchQuote(&'a str),
    Quote(&'a str),
    Shipments(&'a str),
    Shipment(&'a str, &'a str),
    Label(&'a str, &'a str, &'a str),
    Batches(&'a str),
    Batch(&'a str, &'a str),
    BatchQuotes(&'a str, &'a str),
    BatchBook(&'a str),
}

impl Endpoint<'_> {
    /// The methods the path answers, for the 405 message.
    fn allowed(&self) -> &'static str {
        match self {
            Endpoint::Customers
            | Endpoint::ConnectCustomer
            | Endpoint::PaymentMethod(_)
            | Endpoint::Integrations(_)
            | Endpoint::BatchQuote(_)
            | Endpoint::Quote(_) => "POST",
            Endpoint::Services(_) | Endpoint::RegionalShipmentTypes(..) | Endpoint::Prepay(_) => "GET",
            Endpoint::QuotingOptions(_) => "GET or PUT",
            Endpoint::ProviderAccounts(_) => "GET",
            Endpoint::ProviderAccount(..) => "PUT or DELETE",
            Endpoint::Shipments(_) | Endpoint::Shipment(..) => "GET or POST",
            Endpoint::Label(..) => "GET",
            Endpoint::Batches(_) => "GET or POST",
            Endpoint::Batch(..) => "GET or DELETE",
            Endpoint::BatchQuotes(..) | Endpoint::BatchBook(_) => "POST",
        }
    }
}

/// Decodes `%XX` escapes of a path parameter (invalid escapes are kept as they are).
pub(crate) fn decode(segment: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let (Some(hi), Some(lo)) = (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
                out.push(hi * 16 + lo);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded value of `name` in a query string `a=1&b=2`.
fn query_param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| decode(&v.replace('+', " ")))
}

fn route<'a>(segments: &[&'a str]) -> Option<Endpoint<'a>> {
    use Endpoint::*;
    let rest = match segments {
        ["restapi", "v1", rest @ ..] => rest,
        // 4.13 is listed without the prefix; it answers on both paths.
        ["customers", id, "regionalShipmentTypes", code] => return Some(RegionalShipmentTypes(id, decode(code))),
        _ => return None,
    };
    Some(match rest {
        ["customers"] => Customers,
        ["connect-customer"] => ConnectCustomer,
        ["customers", id, tail @ ..] => match tail {
            ["services"] => Services(id),
            ["integratedQuotingOptions"] => QuotingOptions(id),
            ["provider-accounts"] => ProviderAccounts(id),
            ["provider-accounts", key] => ProviderAccount(id, key),
            ["paymentMethod"] => PaymentMethod(id),
            ["regionalShipmentTypes", code] => RegionalShipmentTypes(id, decode(code)),
            ["integrations"] => Integrations(id),
            ["prepay"] => Prepay(id),
            ["batch-quote"] => BatchQuote(id),
            ["quote"] => Quote(id),
            ["shipments"] => Shipments(id),
            ["shipments", book] => Shipment(id, book),
            ["shipments", book, "label", format] => Label(id, book, format),
            ["batch"] => Batches(id),
            ["batch", batch] => Batch(id, batch),
            ["batch", batch, "quotes"] => BatchQuotes(id, batch),
            ["batch-book"] => BatchBook(id),
            _ => return None,
        },
        _ => return None,
    })
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
            return Err(Error::new(
                ErrorCategory::LimitExceeded,
                format!("The request body is {} bytes; at most {MAX_BODY} are accepted.", body.len()),
            ));
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let endpoint = route(&segments).ok_or_else(|| Error::new(ErrorCategory::NotFound, format!("No operation is served at {path}.")))?;
        let method = method.to_ascii_uppercase();
        use Endpoint::*;
        let response = match (&endpoint, method.as_str()) {
            (Customers, "POST") => Response::json(201, &self.create_customer(&parse_body(body)?)?),
            (ConnectCustomer, "POST") => Response::json(200, &self.connect_customer(&parse_body(body)?)?),
            (Services(id), "GET") => Response::json(200, &self.list_services(id)?),
            (QuotingOptions(id), "GET") => Response::json(200, &self.integrated_quoting_options(id)?),
            (QuotingOptions(id), "PUT") => Response::json(200, &self.set_integrated_quoting_options(id, &parse_body(body)?)?),
            (ProviderAccounts(id), "GET") => Response::json(200, &self.provider_accounts(id)?),
            (ProviderAccount(id, code), "PUT") => Response::json(201, &self.put_provider_account(id, code, &parse_body(body)?)?),
            (ProviderAccount(id, account), "DELETE") => Response::json(200, &self.delete_provider_account(id, account)?),
            (PaymentMethod(id), "POST") => Response::json(200, &self.update_payment_method(id, &parse_body(body)?)?),
            (RegionalShipmentTypes(id, code), "GET") => Response::json(200, &self.regional_shipment_types(id, code)?),
            (Integrations(id), "POST") => Response::json(201, &self.create_integration(id, &parse_body(body)?)?),
            (Prepay(id), "GET") => Response::json(200, &self.prepay(id)?),
            (BatchQuote(id), "POST") => Response { status: 200, body: self.batch_quote_json(id, body)? },
            (Quote(id), "POST") => Response::json(200, &self.quote(id, &parse_body(body)?)?),
            (Shipments(id), "POST") => Response::json(201, &self.book_shipment(id, &parse_body(body)?)?),
            (Shipments(id), "GET") => {
                let min = query_param(query, "minBookNumber").unwrap_or_default();
                let limit = match query_param(query, "limit").filter(|l| !l.is_empty()) {
                    None => 100,
                    Some(l) => {
                        l.parse().map_err(|_| Error::invalid("limit", format!("expected a whole number from 1 to 100, found {l:?}")))?
                    }
                };
                Response::json(200, &self.shipments(id, &min, limit)?)
            }
            (Shipment(id, book), "GET") => Response::json(200, &self.shipment(id, book)?),
            (Shipment(id, book), "POST") => Response::json(200, &self.void_shipment(id, book, &parse_body(body)?)?),
            (Label(id, book, format), "GET") => Response::json(200, &self.label(id, book, format)?),
            (Batches(id), "POST") => {
                let req = if body.trim().is_empty() { wire::CreateBatchRequest::default() } else { parse_body(body)? };
                Response::json(201, &self.create_batch(id, &req)?)
            }
            (Batches(id), "GET") => Response::json(200, &self.batches(id)?),
            (Batch(id, batch), "GET") => Response::json(200, &self.batch(id, batch)?),
            (Batch(id, batch), "DELETE") => Response::json(200, &self.delete_batch(id, batch)?),
            (BatchQuotes(id, batch), "POST") => Response::json(200, &self.add_quotes_to_batch(id, batch, &parse_body(body)?)?),
            (BatchBook(id), "POST") => Response::json(200, &self.batch_book(id, &parse_body(body)?)?),
            _ => {
                return Err(Error::new(
                    ErrorCategory::MethodNotAllowed,
                    format!("{method} is not allowed on {path}; use {}.", endpoint.allowed()),
                ))
            }
        };
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_are_decoded() {
        assert_eq!(decode("K1A%200B1"), "K1A 0B1");
        assert_eq!(decode("bad%zz"), "bad%zz");
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%é"), "%é");
    }
}
