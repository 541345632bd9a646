//! `handle`: structure-aware requests to `Shipping::handle`. The input picks a line of
//! the route table, fills its parameters with the ids of the setup or with text, adds a
//! query, and sends either the route's valid body with some values replaced or removed,
//! or an arbitrary JSON tree, or arbitrary text. Most inputs are JSON with the interface's
//! keys and values, so they reach the validators and the operations behind them.
//!
//! `cargo fuzz fmt handle <input>` prints the request in the form of a saved finding
//! (tests/fuzz-crashers/handle/).
#![no_main]

use arbitrary::Arbitrary;
use consign_fuzz::{with_setup, Setup, BODIES};
use serde_json::{Map, Value};

#[derive(Arbitrary)]
struct Input {
    route: u8,
    /// Another method than the route's, now and then.
    method: Option<Method>,
    params: Vec<Param>,
    query: Vec<(QueryKey, Text)>,
    body: Body,
}

#[derive(Arbitrary, Debug)]
enum Method {
    Get,
    Post,
    Put,
    Delete,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Param {
    /// The setup's id for the parameter's name.
    Own,
    /// Any id of the setup.
    Id(u8),
    Text(Text),
}

#[derive(Arbitrary, Debug)]
enum QueryKey {
    Limit,
    MinBookNumber,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Text {
    Known(u8),
    Any(String),
}

#[derive(Arbitrary, Debug)]
enum Body {
    /// The route's valid body with these edits.
    Valid(Vec<Edit>),
    Json(Json),
    Text(String),
    Empty,
}

#[derive(Arbitrary, Debug)]
struct Edit {
    /// Which value of the body (its members and elements, in document order).
    at: u16,
    /// `None` removes it.
    to: Option<Json>,
}

#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A number written out: digits, fraction and exponent, of any size.
    Number {
        negative: bool,
        digits: u128,
        fraction: Option<u64>,
        exponent: Option<i16>,
    },
    Text(Text),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

#[derive(Arbitrary, Debug)]
enum Key {
    Known(u8),
    Any(String),
}

/// The keys of the interface's JSON (the wire types' fields).
const KEYS: &[&str] = &[
    "account",
    "accountFields",
    "address",
    "address1",
    "address2",
    "aesNumber",
    "amount",
    "approvePrepayRecharge",
    "balance",
    "balanceAfter",
    "base64Images",
    "baseAmount",
    "batchId",
    "batches",
    "billing",
    "billingAddress",
    "bookNumber",
    "bookNumbers",
    "campaign",
    "cancelled",
    "carrier",
    "carrierCode",
    "carrierLabel",
    "city",
    "closeTime",
    "commercialInvoice",
    "company",
    "content",
    "contentDescription",
    "contentType",
    "country",
    "countryOfOrigin",
    "createdAt",
    "currency",
    "customerId",
    "customsCurrency",
    "dangerousGoodsCode",
    "data",
    "declaredValue",
    "description",
    "details",
    "dhlTaxIds",
    "dimType",
    "dimUnit",
    "dueByDate",
    "duplicates",
    "dutiableParty",
    "dutyPaymentAccountNumber",
    "dutyPaymentType",
    "email",
    "entries",
    "error",
    "errorCategory",
    "event",
    "eventStatus",
    "eventTime",
    "events",
    "family",
    "franchiseId",
    "ftrNumber",
    "fulfillment",
    "fulfillmentStatus",
    "height",
    "htsNumber",
    "id",
    "idempotencyKey",
    "imgUrl",
    "inbound",
    "insuranceAmount",
    "integratedQuotingOptions",
    "integrationId",
    "issuerCountry",
    "items",
    "itnNumber",
    "keyword",
    "kind",
    "labelImageFormat",
    "length",
    "lineId",
    "lineItems",
    "mailingAddress",
    "manifestId",
    "maxWeightPerPiece",
    "medium",
    "minimumBalance",
    "monthlyVolume",
    "multipieceSupported",
    "name",
    "number",
    "ok",
    "orderDate",
    "orderGroup",
    "orderId",
    "orderNumber",
    "packageLocation",
    "packageMarks",
    "packageTypeCode",
    "packageTypeLabel",
    "packageTypes",
    "packages",
    "party",
    "password",
    "paymentMethod",
    "paymentMethodType",
    "phone",
    "pickLocation",
    "pickupDate",
    "pickupId",
    "pieces",
    "postalEndorsement",
    "postalExpressAmDelivery",
    "prepayBalance",
    "prepaySettings",
    "presetHeight",
    "presetLength",
    "presetWidth",
    "price",
    "processorCardTokenId",
    "productId",
    "productName",
    "profileCode",
    "providerAccountId",
    "providerAccounts",
    "providerCode",
    "quantity",
    "quote",
    "quoteCount",
    "quoteErrors",
    "quoteId",
    "quoteIds",
    "quotedWeight",
    "quotedWeightType",
    "quotes",
    "readyTime",
    "receiver",
    "receiverTaxId",
    "rechargeAmount",
    "recorded",
    "reference",
    "residential",
    "results",
    "returnTo",
    "salesRep",
    "saturdayDelivery",
    "scanBasedReturnLabel",
    "sendElectronically",
    "sender",
    "senderTaxIdNumberType",
    "senderVatTaxId",
    "serviceArea",
    "serviceAreaCountry",
    "serviceCode",
    "serviceDescription",
    "serviceLabel",
    "services",
    "shipmentDate",
    "shipmentIndex",
    "shipmentReference",
    "shipmentReference2",
    "shipments",
    "shipperReference",
    "shipperReference2",
    "shippingCost",
    "shippingService",
    "shippingTotal",
    "signatureOptionCode",
    "signatureOptionLabel",
    "signatureOptions",
    "sku",
    "source",
    "specialInstructions",
    "state",
    "status",
    "supportedCountries",
    "supportedDangerousGoodCodes",
    "supportedDangerousGoodsCodes",
    "surcharges",
    "term",
    "termsOfTrade",
    "title",
    "totalAmount",
    "totalShippingCost",
    "trackingNumber",
    "trackingNumbers",
    "type",
    "unitValue",
    "unsupportedCountries",
    "username",
    "utm",
    "voided",
    "weight",
    "weightUnit",
    "width",
    "zip",
    "zone",
];

/// Values the validators know, and awkward ones.
const TEXTS: &[&str] = &[
    "",
    " ",
    "US",
    "CA",
    "GB",
    "DE",
    "PR",
    "PA",
    "ON",
    "XX",
    "19106",
    "90012",
    "00601",
    "K1A 0A9",
    "SW1A 1AA",
    "USD",
    "CAD",
    "EUR",
    "GBP",
    "lb",
    "kg",
    "oz",
    "in",
    "cm",
    "parcel",
    "postal",
    "ecommerce",
    "expressground",
    "freight",
    "parcel_ground",
    "parcel_custom",
    "postal_priority_mail",
    "postal_custom",
    "postal_express",
    "2026-11-21",
    "2026-11-22",
    "2026-11-23",
    "2026-11-28",
    "2026-02-30",
    "2027-01-01",
    "2027-11-21",
    "2027-11-22",
    "+2027-1-05",
    "2027-01-5",
    "9999-12-31",
    "1999-01-01",
    "09:00:00",
    "17:00:00",
    "25:00:00",
    "2026-11-22 10:00:00",
    "processorCardToken",
    "tok_1",
    "4111111111111111",
    "4111 1111 1111 1111",
    "Default",
    "ann@example.com",
    "pending",
    "shipped",
    "Info Received",
    "In Transit",
    "Delivered",
    "DAP",
    "DDP",
    "PDF",
    "ZPL",
    "EPL2",
    "PNG",
    "0",
    "-1",
    "1",
    "2",
    "0001",
    "none",
    "SERVICE_DEFAULT",
    "0.5",
    "1e2",
    "0.001",
    "1e9999",
    "NaN",
    "99999999999999999999999999999",
    "-0",
    "\u{0}",
    "é🚚\u{202e}",
    "%",
    "/",
    "..",
];

impl Json {
    fn value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::from(*i),
            Json::Float(f) => Value::from(*f),
            Json::Number { negative, digits, fraction, exponent } => {
                let mut text = format!("{}{digits}", if *negative { "-" } else { "" });
                if let Some(f) = fraction {
                    text += &format!(".{f}");
                }
                if let Some(e) = exponent {
                    text += &format!("e{e}");
                }
                serde_json::from_str(&text).unwrap_or(Value::Null)
            }
            Json::Text(t) => Value::String(t.text().to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::value).collect()),
            Json::Object(members) => {
                let map: Map<String, Value> = members
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Key::Known(i) => KEYS[usize::from(*i) % KEYS.len()].to_string(),
                            Key::Any(s) => s.clone(),
                        };
                        (key, v.value())
                    })
                    .collect();
                Value::Object(map)
            }
        }
    }
}

impl Text {
    fn text(&self) -> &str {
        match self {
            Text::Known(i) => TEXTS[usize::from(*i) % TEXTS.len()],
            Text::Any(s) => s,
        }
    }
}

/// Every JSON pointer inside `v`, in document order.
fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match v {
        Value::Object(map) => map.iter().map(|(k, c)| (k.replace('~', "~0").replace('/', "~1"), c)).collect(),
        Value::Array(items) => items.iter().enumerate().map(|(i, c)| (i.to_string(), c)).collect(),
        _ => return,
    };
    for (key, child) in children {
        let p = format!("{at}/{key}");
        out.push(p.clone());
        pointers(child, &p, out);
    }
}

/// The valid body of the route `pattern`: the longest key of [`BODIES`] it ends with (or,
/// for a key ending in `/`, contains).
fn valid_body(setup: &Setup, pattern: &str) -> Value {
    let key = BODIES
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| pattern.ends_with(k) || (k.ends_with('/') && pattern.contains(k)))
        .max_by_key(|k| k.len());
    key.and_then(|k| serde_json::from_str(&setup.body(k)).ok()).unwrap_or_else(|| Value::Object(Map::new()))
}

fn edited(mut body: Value, edits: &[Edit]) -> Value {
    for edit in edits {
        let mut places = Vec::new();
        pointers(&body, "", &mut places);
        let Some(place) = places.get(usize::from(edit.at) % places.len().max(1)) else { break };
        let Some((parent, key)) = place.rsplit_once('/') else { continue };
        let key = key.replace("~1", "/").replace("~0", "~");
        match (body.pointer_mut(parent), &edit.to) {
            (Some(Value::Object(map)), None) => {
                map.remove(&key);
            }
            (Some(Value::Array(items)), None) => {
                if let Ok(i) = key.parse::<usize>() {
                    if i < items.len() {
                        items.remove(i);
                    }
                }
            }
            (_, Some(to)) => {
                if let Some(slot) = body.pointer_mut(place) {
                    *slot = to.value();
                }
            }
            _ => {}
        }
    }
    body
}

/// Escapes what would change the shape of the path (and `%`, so that text is sent as is).
fn escaped(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { char::from(b).to_string() } else { format!("%{b:02X}") })
        .collect()
}

impl Input {
    /// The request: method, path with query, body.
    fn request(&self, setup: &Setup) -> (String, String, String) {
        let routes = consign::harness::routes();
        let (method, pattern) = routes[usize::from(self.route) % routes.len()];
        let method = match &self.method {
            None => method.to_string(),
            Some(Method::Get) => "GET".into(),
            Some(Method::Post) => "POST".into(),
            Some(Method::Put) => "PUT".into(),
            Some(Method::Delete) => "DELETE".into(),
            Some(Method::Other(m)) => m.clone(),
        };
        let mut params = self.params.iter();
        let mut path = String::new();
        for segment in pattern.split('/').filter(|s| !s.is_empty()) {
            path.push('/');
            let Some(name) = segment.strip_prefix(':') else {
                path.push_str(segment);
                continue;
            };
            let value = match params.next().unwrap_or(&Param::Own) {
                Param::Own => setup.id(name).unwrap_or("1").to_string(),
                Param::Id(i) => {
                    let all: Vec<&str> =
                        std::iter::once(setup.customer.as_str()).chain(setup.ids.iter().map(|(_, id)| id.as_str())).collect();
                    all[usize::from(*i) % all.len()].to_string()
                }
                Param::Text(t) => t.text().to_string(),
            };
            path.push_str(&escaped(&value));
        }
        let query: Vec<String> = self
            .query
            .iter()
            .map(|(k, v)| {
                let key = match k {
                    QueryKey::Limit => "limit",
                    QueryKey::MinBookNumber => "minBookNumber",
                    QueryKey::Other(s) => s,
                };
                format!("{}={}", escaped(key), escaped(v.text()))
            })
            .collect();
        if !query.is_empty() {
            path = format!("{path}?{}", query.join("&"));
        }
        let body = match &self.body {
            Body::Valid(edits) => edited(valid_body(setup, pattern), edits).to_string(),
            Body::Json(json) => json.value().to_string(),
            Body::Text(text) => text.clone(),
            Body::Empty => String::new(),
        };
        (method, path, body)
    }
}

/// The request in the form of a saved finding, the setup's ids as `{name}`.
impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (method, mut path, body) = with_setup(true, |s| self.request(s));
        with_setup(true, |s| {
            for (name, id) in std::iter::once(("customerId", s.customer.as_str())).chain(s.ids.iter().map(|(n, id)| (*n, id.as_str()))) {
                path = path.replace(&format!("/{id}"), &format!("/{{{name}}}"));
            }
        });
        write!(f, "{method} {path}\n{body}")
    }
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    with_setup(true, |s| {
        let (method, path, body) = input.request(s);
        let r = s.shipping.handle(&method, &path, &body);
        consign_fuzz::check_answer(&method, &path, &body, r.status, &r.body);
    });
});
