//! Webhook endpoints: where `consign serve` posts a customer's events, signed per the
//! Standard Webhooks specification (<https://www.standardwebhooks.com>).
//!
//! An endpoint takes the customer's events of its types in order, one at a time: its
//! cursor is the number of the last event it has. The next event is claimed by a
//! server ([`claim`]), which posts it and records the attempt ([`record`]): a 2xx
//! moves the cursor past it; anything else retries the same message, with the same
//! `webhook-id`, after [`RETRY_AFTER`]'s delays (about a day in all), after which the
//! endpoint is disabled and a `webhook.disabled` event written. As the cursor and the
//! claim are in the database, a server killed between a commit and its delivery
//! delivers after a restart.
//!
//! The signing secret is `whsec_` and [`SECRET_BYTES`] random bytes in base64, shown
//! once and sealed at rest; a rotation keeps the previous one signing too for
//! [`ROTATION_OVERLAP_HOURS`] hours. URLs are `https://` and may not name a private,
//! loopback or otherwise non-public address (the server checks the addresses a name
//! resolves to again before each attempt); `http://` and such addresses are allowed
//! only where the service was opened with `allow_http_webhooks`, for loopback tests.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::dates::timestamp;
use crate::error::{Error, ErrorCategory, Result};
use crate::events::{self, Type};
use crate::secrets::{self, Sealer};
use crate::store::{args, Read, Row, Tx};
use crate::wire;

/// Most endpoints a customer may have.
pub const MAX_WEBHOOKS: i64 = 5;

/// Most characters of an endpoint's URL.
pub const MAX_URL: usize = 2048;

/// Most characters of an endpoint's description.
pub const MAX_DESCRIPTION: usize = 200;

/// Most bytes of a delivery's body: an event whose data would pass it is delivered
/// without its data (`"data": null, "dataOmitted": true`), for the receiver to read it
/// from the feed.
pub const MAX_PAYLOAD: usize = 256 * 1024;

/// Random bytes of a signing secret.
pub const SECRET_BYTES: usize = 32;

/// Hours a rotated-out secret keeps signing deliveries beside the new one.
pub const ROTATION_OVERLAP_HOURS: i64 = 24;

/// The delays, in seconds, before each retry of a message that failed: after the first
/// attempt 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (27 h 35 min 5 s in all,
/// eight attempts); past the last, the endpoint is disabled.
pub const RETRY_AFTER: [i64; 7] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

/// Most events a claim reads past an endpoint's cursor looking for one of its types:
/// past them it moves the cursor on without a delivery.
const MAX_SKIPPED: i64 = 10_000;

/// The content type of a Standard Webhooks delivery.
const JSON: &str = "application/json";

/// The content type of an XPS order callback.
const FORM: &str = "application/x-www-form-urlencoded";

/// The formats of a delivery.
const FORMATS: [&str; 2] = ["standard", "xps"];

/// A message claimed for delivery, signed, with where to post it. Its secrets never
/// leave this module: only the signatures do, in [`Delivery::headers`].
#[derive(Clone)]
pub struct Delivery {
    /// The customer whose endpoint it is.
    pub customer_id: String,
    /// The endpoint.
    pub webhook_id: String,
    /// Where to post it.
    pub url: String,
    /// The event delivered; `None` for a test message.
    pub event_id: Option<i64>,
    /// The attempt's number for this message, from 1.
    pub attempt: i64,
    /// The body's content type.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
    /// The headers to send: `webhook-id`, `webhook-timestamp`, `webhook-signature` (and
    /// `x-rsis-key` for the `xps` format).
    pub headers: Vec<(&'static str, String)>,
    /// The `webhook-id`.
    message_id: String,
    /// The endpoint's revision when claimed: an attempt that ran across a change of it
    /// does not move its cursor.
    revision: i64,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery")
            .field("customer_id", &self.customer_id)
            .field("webhook_id", &self.webhook_id)
            .field("message_id", &self.message_id)
            .field("event_id", &self.event_id)
            .field("attempt", &self.attempt)
            .finish_non_exhaustive()
    }
}

/// What an attempt at a [`Delivery`] came to.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// The endpoint's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why it did not answer (a short message for the customer), when it did not.
    pub error: Option<String>,
    /// How long the attempt took, in milliseconds.
    pub duration_ms: u64,
}

/// A fresh signing secret: `whsec_` and [`SECRET_BYTES`] random bytes in base64.
fn new_secret() -> Result<String> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::internal(format!("no randomness for a webhook secret: {e}")))?;
    Ok(format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes)))
}

/// A fresh endpoint id: `wh_` and 20 hexadecimal digits.
fn new_id() -> Result<String> {
    let mut bytes = [0u8; 10];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::internal(format!("no randomness for a webhook id: {e}")))?;
    Ok(bytes.iter().fold(String::from("wh_"), |mut id, b| {
        id.push_str(&format!("{b:02x}"));
        id
    }))
}

/// The Standard Webhooks signature of `body` as message `message_id` at `timestamp`
/// (Unix seconds) with `secret` (`whsec_` and the key in base64): `v1,` and the
/// HMAC-SHA256 of `id.timestamp.body` in base64.
///
/// # Errors
/// `INTERNAL` when `secret` is not `whsec_` and base64.
pub fn sign(secret: &str, message_id: &str, timestamp: i64, body: &[u8]) -> Result<String> {
    let key = secret
        .strip_prefix("whsec_")
        .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .ok_or_else(|| Error::internal("a webhook secret is not whsec_ and base64"))?;
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).map_err(|_| Error::internal("a webhook secret is not a valid HMAC key"))?;
    mac.update(message_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())))
}

/// Why `ip` may not be delivered to when private addresses are refused; `None` for a
/// public address. Refused: unspecified, loopback, private, shared (100.64/10),
/// link-local, multicast, broadcast, documentation, benchmarking and reserved ranges,
/// IPv6 unique and site local, discard-only and local-use NAT64, and the IPv4-mapped,
/// -compatible, NAT64 and 6to4 forms of refused IPv4 addresses.
pub fn forbidden_address(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => forbidden_v4(ip),
        IpAddr::V6(ip) => forbidden_v6(ip),
    }
}

/// [`forbidden_address`] of an IPv4 address.
fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() => "an unspecified address",
        (0, _, _) => "an address of the current network (0.0.0.0/8)",
        (127, _, _) => "a loopback address",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "a private address",
        (169, 254, _) => "a link-local address",
        (100, 64..=127, _) => "a shared (carrier-grade NAT) address",
        (192, 0, 0) => "an address reserved for protocol assignments",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        _ if ip.is_broadcast() => "a broadcast address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved address",
        _ => return None,
    })
}

/// [`forbidden_address`] of an IPv6 address, and of the IPv4 address embedded in it.
fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    let o = ip.octets();
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses, and the
    // NAT64 well-known prefix (64:ff9b::/96): the IPv4 address is what is reached.
    let mapped = s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0);
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if mapped || nat64 {
        return forbidden_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    // 6to4 (2002::/16) reaches the relay at the IPv4 address in its next 32 bits.
    if s[0] == 0x2002 {
        return forbidden_v4(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    Some(match s {
        [0x64, 0xff9b, 1, ..] => "a local-use NAT64 address",
        [0x100, 0, 0, 0, ..] => "a discard-only address",
        [0x2001, 0xdb8, ..] => "a documentation address",
        [0x3fff, 0..=0x0fff, ..] => "a documentation address",
        [0x2001, 2, 0, ..] => "a benchmarking address",
        [first, ..] if first & 0xfe00 == 0xfc00 => "a unique local address",
        [first, ..] if first & 0xffc0 == 0xfe80 => "a link-local address",
        [first, ..] if first & 0xffc0 == 0xfec0 => "a site-local address",
        [first, ..] if first & 0xff00 == 0xff00 => "a multicast address",
        _ => return None,
    })
}

/// Checks the endpoint URL `url`: at most [`MAX_URL`] characters, `https://` (or
/// `http://` when `allow_http`), a host, no user name or password; a host that is an
/// address must be public unless `allow_http`, and `localhost` is refused likewise.
///
/// # Errors
/// `INVALID_REQUEST` naming `url`.
pub(crate) fn check_url(url: &str, allow_http: bool) -> Result<()> {
    let refuse = |why: &str| Err(Error::invalid("url", why.to_string()));
    if url.chars().count() > MAX_URL {
        return refuse(&format!("at most {MAX_URL} characters"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return refuse("a URL has no spaces or control characters");
    }
    let rest = match url.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => rest,
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") && allow_http => rest,
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("http") => {
            return refuse(
                "expected an https:// URL: deliveries carry customers' data (http:// needs a server started with --allow-http-webhooks)",
            );
        }
        _ => return refuse("expected an https:// URL"),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return refuse("a webhook URL may not hold a user name or password");
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    if host.is_empty() {
        return refuse("the URL names no host");
    }
    if allow_http {
        return Ok(());
    }
    let lower = host.to_ascii_lowercase();
    if lower == "localhost" || lower.ends_with(".localhost") {
        return refuse("the host is this machine (localhost): deliveries go to public addresses only");
    }
    if let Some(why) = host.parse::<IpAddr>().ok().and_then(forbidden_address) {
        return refuse(&format!("the host is {why}: deliveries go to public addresses only"));
    }
    Ok(())
}

/// The type filter of an endpoint: its bits, and the names as sent (trimmed).
fn types_of(types: &[String]) -> Result<(i64, Vec<String>)> {
    let names: Vec<String> = types.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    if names.len() > events::TYPES.len() {
        return Err(Error::invalid("types", format!("at most {} types", events::TYPES.len())));
    }
    let mask = events::filter(&names.join(","))?.unwrap_or(-1);
    Ok((mask, names))
}

fn format_of(format: Option<&str>) -> Result<&'static str> {
    let format = format.unwrap_or("standard");
    FORMATS.iter().find(|f| **f == format).copied().ok_or_else(|| {
        Error::invalid("format", format!("expected standard or xps, found {:?}", format.chars().take(40).collect::<String>()))
    })
}

/// The type bits an endpoint of `format` takes of `mask`: an XPS callback is made of
/// bookings only.
fn mask_of(format: &str, mask: i64) -> i64 {
    match format {
        "xps" => mask & Type::ShipmentBooked.bit(),
        _ => mask,
    }
}

fn check_description(description: &str) -> Result<()> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(Error::invalid("description", format!("at most {MAX_DESCRIPTION} characters")));
    }
    Ok(())
}

/// The columns of [`view`], in its order.
const VIEW: &str =
    "id, url, description, types, format, status, disabled_reason, cursor, attempts, next_attempt_at, created_at, updated_at";

fn view(r: &Row<'_>) -> Result<wire::Webhook> {
    let types: String = r.get(3)?;
    Ok(wire::Webhook {
        webhook_id: r.get(0)?,
        url: r.get(1)?,
        description: r.get(2)?,
        types: types.split(',').filter(|t| !t.is_empty()).map(str::to_string).collect(),
        format: r.get(4)?,
        status: r.get(5)?,
        disabled_reason: r.get(6)?,
        cursor: r.get::<i64>(7)?.to_string(),
        failed_attempts: r.get(8)?,
        next_attempt_at: r.get(9)?,
        created_at: r.get(10)?,
        updated_at: r.get(11)?,
    })
}

/// The customer's endpoint `webhook_id`.
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint (or another customer's).
pub(crate) fn get(conn: &Read<'_>, customer_id: &str, webhook_id: &str) -> Result<wire::Webhook> {
    conn.row(&format!("SELECT {VIEW} FROM webhooks WHERE customer_id = ?1 AND id = ?2"), args![customer_id, webhook_id], view)?
        .ok_or_else(|| Error::not_found("webhook", webhook_id))
}

/// The customer's endpoints, oldest first (by URL within one second).
///
/// # Errors
/// A storage failure.
pub(crate) fn list(conn: &Read<'_>, customer_id: &str) -> Result<wire::WebhooksResponse> {
    let webhooks =
        conn.rows(&format!("SELECT {VIEW} FROM webhooks WHERE customer_id = ?1 ORDER BY created_at, url, id"), args![customer_id], view)?;
    Ok(wire::WebhooksResponse { webhooks })
}

/// The number of the customer's newest event, 0 for none.
fn newest_event(conn: &Read<'_>, customer_id: &str) -> Result<i64> {
    conn.one("SELECT COALESCE(MAX(id), 0) FROM events WHERE customer_id = ?1", args![customer_id], |r| r.get(0))
}

/// Create webhook: a new endpoint of `customer_id`, delivering the events committed
/// from now on, and its secret (shown only here).
///
/// # Errors
/// `INVALID_REQUEST` naming `url`, `types`, `description` or `format`;
/// `LIMIT_EXCEEDED` past [`MAX_WEBHOOKS`] endpoints.
pub(crate) fn create(
    tx: &Tx<'_>,
    sealer: Option<&Sealer>,
    customer_id: &str,
    req: &wire::WebhookRequest,
    now: DateTime<Utc>,
    allow_http: bool,
) -> Result<wire::CreatedWebhook> {
    check_url(&req.url, allow_http)?;
    let (mask, names) = types_of(&req.types)?;
    check_description(&req.description)?;
    let format = format_of(req.format.as_deref())?;
    let mask = mask_of(format, mask);
    if req.enabled == Some(false) {
        return Err(Error::invalid("enabled", "a new endpoint is enabled; disable it with update webhook"));
    }
    let count: i64 = tx.one("SELECT COUNT(*) FROM webhooks WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    if count >= MAX_WEBHOOKS {
        return Err(Error::new(
            ErrorCategory::LimitExceeded,
            format!("A customer may have at most {MAX_WEBHOOKS} webhook endpoints; delete one first."),
        ));
    }
    let (id, secret) = (new_id()?, new_secret()?);
    let stored = secrets::store(sealer, &secrets::webhook_secret_context(customer_id, &id), &secret)?;
    let (cursor, at) = (newest_event(tx, customer_id)?, timestamp(now));
    tx.execute(
        "INSERT INTO webhooks (customer_id, id, url, description, types, type_mask, format, secret, status, cursor, attempts, revision,
                               created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'enabled', ?9, 0, 1, ?10, ?10)",
        args![
            customer_id,
            id.as_str(),
            req.url.as_str(),
            req.description.as_str(),
            names.join(",").as_str(),
            mask,
            format,
            stored.as_str(),
            cursor,
            at.as_str()
        ],
    )?;
    Ok(wire::CreatedWebhook { webhook: get(tx, customer_id, &id)?, secret })
}

/// Update webhook: replaces the endpoint's URL, types, description and format; `enabled`
/// re-enables it (forgetting its failed attempts) or disables it.
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint; as [`create`] for the fields.
pub(crate) fn update(
    tx: &Tx<'_>,
    customer_id: &str,
    webhook_id: &str,
    req: &wire::WebhookRequest,
    now: DateTime<Utc>,
    allow_http: bool,
) -> Result<wire::Webhook> {
    get(tx, customer_id, webhook_id)?;
    check_url(&req.url, allow_http)?;
    let (mask, names) = types_of(&req.types)?;
    check_description(&req.description)?;
    let format = format_of(req.format.as_deref())?;
    let mask = mask_of(format, mask);
    let at = timestamp(now);
    tx.execute(
        "UPDATE webhooks SET url = ?3, description = ?4, types = ?5, type_mask = ?6, format = ?7, updated_at = ?8,
                revision = revision + 1, claimed_until = NULL
         WHERE customer_id = ?1 AND id = ?2",
        args![customer_id, webhook_id, req.url.as_str(), req.description.as_str(), names.join(",").as_str(), mask, format, at.as_str()],
    )?;
    match req.enabled {
        Some(true) => {
            tx.execute(
                "UPDATE webhooks SET status = 'enabled', disabled_reason = NULL, attempts = 0, next_attempt_at = NULL, failing_since = NULL
                 WHERE customer_id = ?1 AND id = ?2",
                args![customer_id, webhook_id],
            )?;
        }
        Some(false) => {
            tx.execute(
                "UPDATE webhooks SET status = 'disabled', disabled_reason = 'disabled by the customer', next_attempt_at = NULL
                 WHERE customer_id = ?1 AND id = ?2",
                args![customer_id, webhook_id],
            )?;
        }
        None => {}
    }
    get(tx, customer_id, webhook_id)
}

/// Delete webhook: removes the endpoint and its deliveries; answers it as it was.
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint.
pub(crate) fn delete(tx: &Tx<'_>, customer_id: &str, webhook_id: &str) -> Result<wire::Webhook> {
    let webhook = get(tx, customer_id, webhook_id)?;
    tx.execute("DELETE FROM webhook_deliveries WHERE customer_id = ?1 AND webhook_id = ?2", args![customer_id, webhook_id])?;
    tx.execute("DELETE FROM webhooks WHERE customer_id = ?1 AND id = ?2", args![customer_id, webhook_id])?;
    Ok(webhook)
}

/// Rotate secret: a new signing secret; the previous one signs too for
/// [`ROTATION_OVERLAP_HOURS`] hours (a second rotation within them ends the first's).
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint.
pub(crate) fn rotate(
    tx: &Tx<'_>,
    sealer: Option<&Sealer>,
    customer_id: &str,
    webhook_id: &str,
    now: DateTime<Utc>,
) -> Result<wire::WebhookSecret> {
    get(tx, customer_id, webhook_id)?;
    let secret = new_secret()?;
    let stored = secrets::store(sealer, &secrets::webhook_secret_context(customer_id, webhook_id), &secret)?;
    let until = timestamp(now + Duration::hours(ROTATION_OVERLAP_HOURS));
    tx.execute(
        "UPDATE webhooks SET previous_secret = secret, previous_until = ?4, secret = ?3, updated_at = ?5, revision = revision + 1
         WHERE customer_id = ?1 AND id = ?2",
        args![customer_id, webhook_id, stored.as_str(), until.as_str(), timestamp(now).as_str()],
    )?;
    Ok(wire::WebhookSecret { webhook_id: webhook_id.to_string(), secret, previous_valid_until: until })
}

/// Replay: the events after `after` are delivered again, in order, from the next claim;
/// a disabled endpoint is enabled again.
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint; `INVALID_REQUEST` naming `after` (not a cursor,
/// or past the newest event); `GONE` when the events after it are no longer kept.
pub(crate) fn replay(
    tx: &Tx<'_>,
    customer_id: &str,
    webhook_id: &str,
    req: &wire::ReplayWebhookRequest,
    now: DateTime<Utc>,
) -> Result<wire::Webhook> {
    get(tx, customer_id, webhook_id)?;
    let after = events::cursor(&req.after)?;
    // The feed's own checks: past the newest is refused, purged is GONE.
    events::page(tx, customer_id, Some(after), None, 1)?;
    tx.execute(
        "UPDATE webhooks SET cursor = ?3, status = 'enabled', disabled_reason = NULL, attempts = 0, next_attempt_at = NULL,
                failing_since = NULL, claimed_until = NULL, revision = revision + 1, updated_at = ?4
         WHERE customer_id = ?1 AND id = ?2",
        args![customer_id, webhook_id, after, timestamp(now).as_str()],
    )?;
    get(tx, customer_id, webhook_id)
}

/// Test webhook: a `webhook.test` message is sent to the endpoint at the next claim,
/// beside its events (its attempt shows in the deliveries; it is not retried).
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint.
pub(crate) fn request_test(tx: &Tx<'_>, customer_id: &str, webhook_id: &str, now: DateTime<Utc>) -> Result<wire::Webhook> {
    get(tx, customer_id, webhook_id)?;
    tx.execute(
        "UPDATE webhooks SET test_requested_at = ?3 WHERE customer_id = ?1 AND id = ?2",
        args![customer_id, webhook_id, timestamp(now).as_str()],
    )?;
    get(tx, customer_id, webhook_id)
}

/// The endpoint's delivery attempts, newest first, at most `limit`.
///
/// # Errors
/// `NOT_FOUND` for an unknown endpoint.
pub(crate) fn deliveries(conn: &Read<'_>, customer_id: &str, webhook_id: &str, limit: i64) -> Result<wire::WebhookDeliveriesResponse> {
    get(conn, customer_id, webhook_id)?;
    let deliveries = conn.rows(
        "SELECT message_id, event_id, attempt, attempted_at, status_code, error, duration_ms FROM webhook_deliveries
         WHERE customer_id = ?1 AND webhook_id = ?2 ORDER BY seq DESC LIMIT ?3",
        args![customer_id, webhook_id, limit],
        |r| {
            Ok(wire::WebhookDelivery {
                message_id: r.get(0)?,
                event_id: r.get(1)?,
                attempt: r.get(2)?,
                attempted_at: r.get(3)?,
                status_code: r.get(4)?,
                error: r.get(5)?,
                duration_ms: r.get(6)?,
            })
        },
    )?;
    Ok(wire::WebhookDeliveriesResponse { deliveries })
}

/// An endpoint as a claim reads it.
struct Due {
    customer_id: String,
    id: String,
    url: String,
    format: String,
    mask: i64,
    secret: String,
    previous_secret: Option<String>,
    previous_until: Option<String>,
    cursor: i64,
    attempts: i64,
    test: bool,
    revision: i64,
}

/// The payload of a Standard Webhooks delivery of an event.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    timestamp: &'a str,
    id: i64,
    customer_id: &'a str,
    subject_id: &'a str,
    data: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    data_omitted: bool,
}

/// Most endpoints of one customer claimed at once: a customer whose endpoints answer
/// slowly holds this many of a deliverer's slots, not all of them.
pub const CLAIMS_PER_CUSTOMER: i64 = 2;

/// The endpoints with a message due at `?1`: enabled, not claimed, whose retry (if any)
/// is due, with a test asked for or events after their cursor, of a customer with fewer
/// than [`CLAIMS_PER_CUSTOMER`] endpoints claimed.
const DUE: &str = "status = 'enabled' AND (claimed_until IS NULL OR claimed_until <= ?1)
    AND (SELECT COUNT(*) FROM webhooks held WHERE held.customer_id = webhooks.customer_id AND held.claimed_until > ?1) < 2
    AND (next_attempt_at IS NULL OR next_attempt_at <= ?1 OR test_requested_at IS NOT NULL)
    AND (test_requested_at IS NOT NULL
         OR cursor < (SELECT COALESCE(MAX(e.id), 0) FROM events e WHERE e.customer_id = webhooks.customer_id))";

/// Whether any endpoint has a message due at `now`.
///
/// # Errors
/// A storage failure.
pub(crate) fn due(conn: &Read<'_>, now: DateTime<Utc>) -> Result<bool> {
    conn.one(&format!("SELECT EXISTS (SELECT 1 FROM webhooks WHERE {DUE})"), args![timestamp(now).as_str()], |r| r.get(0))
}

/// Claims, for `lease` from `now`, at most `at_most` messages due: for each enabled
/// endpoint not claimed by another server, whose retry is due, its test message if one
/// was asked for, else the next event of its types after its cursor (an endpoint whose
/// next events are none of its types has its cursor moved past them). Each comes
/// signed with the endpoint's secrets in force at `now`.
///
/// # Errors
/// A storage failure, or `INTERNAL` when a secret does not open.
pub(crate) fn claim(tx: &Tx<'_>, sealer: Option<&Sealer>, now: DateTime<Utc>, lease: Duration, at_most: usize) -> Result<Vec<Delivery>> {
    let at = timestamp(now);
    let due = tx.rows(
        &format!(
            "SELECT customer_id, id, url, format, type_mask, secret, previous_secret, previous_until, cursor, attempts,
                test_requested_at IS NOT NULL, revision
         FROM webhooks WHERE {DUE}
         ORDER BY COALESCE(next_attempt_at, created_at)
         LIMIT ?2"
        ),
        args![at.as_str(), i64::try_from(at_most).unwrap_or(i64::MAX)],
        |r| {
            Ok(Due {
                customer_id: r.get(0)?,
                id: r.get(1)?,
                url: r.get(2)?,
                format: r.get(3)?,
                mask: r.get(4)?,
                secret: r.get(5)?,
                previous_secret: r.get(6)?,
                previous_until: r.get(7)?,
                cursor: r.get(8)?,
                attempts: r.get(9)?,
                test: r.get(10)?,
                revision: r.get(11)?,
            })
        },
    )?;
    let until = timestamp(now + lease);
    let mut claimed: Vec<Delivery> = Vec::new();
    for mut endpoint in due {
        let held: i64 = tx.one(
            "SELECT COUNT(*) FROM webhooks WHERE customer_id = ?1 AND claimed_until > ?2",
            args![endpoint.customer_id.as_str(), at.as_str()],
            |r| r.get(0),
        )?;
        if held >= CLAIMS_PER_CUSTOMER {
            continue;
        }
        let mut next = next_message(tx, sealer, &endpoint, now)?;
        // Events an endpoint's format makes nothing of are passed, a few per claim.
        for _ in 0..MAX_PASSED {
            let Next::Passed(cursor) = next else { break };
            endpoint.cursor = cursor;
            next = next_message(tx, sealer, &endpoint, now)?;
        }
        let Next::Message(delivery) = next else { continue };
        tx.execute(
            "UPDATE webhooks SET claimed_until = ?3 WHERE customer_id = ?1 AND id = ?2",
            args![endpoint.customer_id.as_str(), endpoint.id.as_str(), until.as_str()],
        )?;
        claimed.push(*delivery);
    }
    Ok(claimed)
}

/// What an endpoint is due next.
enum Next {
    /// A message to post.
    Message(Box<Delivery>),
    /// An event its format makes nothing of: its cursor moved past it, to this.
    Passed(i64),
    /// Nothing: its next events are none of its types (its cursor moved past those read).
    Nothing,
}

/// Events a claim passes per endpoint (see [`Next::Passed`]) before it goes on to the
/// next endpoint.
const MAX_PASSED: usize = 64;

/// The message `endpoint` is due: its test, else its next event of its types.
fn next_message(tx: &Tx<'_>, sealer: Option<&Sealer>, endpoint: &Due, now: DateTime<Utc>) -> Result<Next> {
    let at = timestamp(now);
    let (event_id, message_id, body) = if endpoint.test {
        let message_id = format!("msg_test_{}_{}", endpoint.id, now.timestamp_millis());
        let data = format!(r#"{{"webhookId":{}}}"#, serde_json::Value::from(endpoint.id.as_str()));
        let data = RawValue::from_string(data).map_err(|e| Error::internal(e.to_string()))?;
        let payload = Payload {
            kind: "webhook.test",
            timestamp: &at,
            id: 0,
            customer_id: &endpoint.customer_id,
            subject_id: &endpoint.id,
            data: Some(&data),
            data_omitted: false,
        };
        (None, message_id, wire::to_json(&payload)?.into_bytes())
    } else {
        let newest = newest_event(tx, &endpoint.customer_id)?;
        let read_to = endpoint.cursor.saturating_add(MAX_SKIPPED).min(newest);
        let next = tx.row(
            "SELECT id, type, subject_id, created_at, data FROM events
             WHERE customer_id = ?1 AND id > ?2 AND id <= ?3 AND type_bit & ?4 <> 0 ORDER BY id LIMIT 1",
            args![endpoint.customer_id.as_str(), endpoint.cursor, read_to, endpoint.mask],
            |r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?, r.get::<String>(2)?, r.get::<String>(3)?, r.get::<String>(4)?)),
        )?;
        let Some((id, kind, subject_id, created_at, data)) = next else {
            tx.execute(
                "UPDATE webhooks SET cursor = ?3 WHERE customer_id = ?1 AND id = ?2 AND cursor < ?3",
                args![endpoint.customer_id.as_str(), endpoint.id.as_str(), read_to],
            )?;
            return Ok(Next::Nothing);
        };
        let message_id = format!("evt_{}_{id}", endpoint.customer_id);
        let body = match endpoint.format.as_str() {
            "xps" => match xps_form(&kind, &data)? {
                Some(form) => form.into_bytes(),
                None => {
                    // Only an order's shipment makes an XPS callback: the cursor passes
                    // the others.
                    tx.execute(
                        "UPDATE webhooks SET cursor = ?3 WHERE customer_id = ?1 AND id = ?2 AND cursor < ?3",
                        args![endpoint.customer_id.as_str(), endpoint.id.as_str(), id],
                    )?;
                    return Ok(Next::Passed(id));
                }
            },
            _ => standard_payload(&kind, &created_at, id, &endpoint.customer_id, &subject_id, &data)?,
        };
        (Some(id), message_id, body)
    };
    let context = secrets::webhook_secret_context(&endpoint.customer_id, &endpoint.id);
    let secret = secrets::reveal(sealer, &context, &endpoint.secret)?;
    let stamp = now.timestamp();
    let mut signatures = vec![sign(&secret, &message_id, stamp, &body)?];
    if let (Some(previous), Some(until)) = (&endpoint.previous_secret, &endpoint.previous_until) {
        if until.as_str() > at.as_str() {
            signatures.push(sign(&secrets::reveal(sealer, &context, previous)?, &message_id, stamp, &body)?);
        }
    }
    let mut headers =
        vec![("webhook-id", message_id.clone()), ("webhook-timestamp", stamp.to_string()), ("webhook-signature", signatures.join(" "))];
    let content_type = if endpoint.format == "xps" && event_id.is_some() {
        headers.push(("x-rsis-key", secret));
        FORM
    } else {
        JSON
    };
    Ok(Next::Message(Box::new(Delivery {
        customer_id: endpoint.customer_id.clone(),
        webhook_id: endpoint.id.clone(),
        url: endpoint.url.clone(),
        event_id,
        attempt: endpoint.attempts + 1,
        content_type,
        body,
        headers,
        message_id,
        revision: endpoint.revision,
    })))
}

/// The Standard Webhooks body of an event: `type`, `timestamp` and `data`, with the
/// event's number, customer and subject; without its data past [`MAX_PAYLOAD`].
fn standard_payload(kind: &str, created_at: &str, id: i64, customer_id: &str, subject_id: &str, data: &str) -> Result<Vec<u8>> {
    let data =
        RawValue::from_string(data.to_string()).map_err(|e| Error::internal(format!("the stored data of an event is not JSON: {e}")))?;
    let mut payload = Payload { kind, timestamp: created_at, id, customer_id, subject_id, data: Some(&data), data_omitted: false };
    let json = wire::to_json(&payload)?;
    if json.len() <= MAX_PAYLOAD {
        return Ok(json.into_bytes());
    }
    (payload.data, payload.data_omitted) = (None, true);
    Ok(wire::to_json(&payload)?.into_bytes())
}

/// The XPS order callback of an event, when it is a booking that fulfils an order: the
/// form XPS's Webhooks integration posts to its Update Order URL (`orderId`, `carrier`,
/// `trackingNumbers` separated by commas, the items shipped, the receiver and what the
/// shipment cost); `None` for any other event.
fn xps_form(kind: &str, data: &str) -> Result<Option<String>> {
    if kind != Type::ShipmentBooked.name() {
        return Ok(None);
    }
    let shipment: wire::ShipmentView =
        serde_json::from_str(data).map_err(|e| Error::internal(format!("the stored shipment of an event is unreadable: {e}")))?;
    let Some(fulfillment) = &shipment.fulfillment else { return Ok(None) };
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("orderId", &fulfillment.order_id);
    form.append_pair("carrier", &shipment.carrier_code.to_ascii_lowercase());
    form.append_pair("trackingNumbers", &shipment.tracking_numbers.join(","));
    for (i, item) in fulfillment.items.iter().enumerate() {
        let id = [&item.line_id, &item.product_id, &item.sku].into_iter().find(|s| !s.is_empty()).map_or("", |s| s.as_str());
        form.append_pair(&format!("items[{i}].id"), id);
        form.append_pair(&format!("items[{i}].quantity"), &item.quantity.0.to_string());
    }
    let r = &shipment.receiver;
    let zip = r.zip.clone().unwrap_or_default();
    for (name, value) in [
        ("company", &r.company),
        ("name", &r.name),
        ("address1", &r.address1),
        ("address2", &r.address2),
        ("city", &r.city),
        ("state", &r.state),
        ("zip", &zip),
        ("country", &r.country),
        ("phone", &r.phone),
        ("email", &r.email),
    ] {
        form.append_pair(&format!("receiver.{name}"), value);
    }
    form.append_pair("quote.charges.total", &crate::money::format2(shipment.total_shipping_cost));
    Ok(Some(form.finish()))
}

/// Records `attempt` at `delivery`, at `now`: a 2xx moves the endpoint's cursor past
/// its event (unless the endpoint changed since the claim); anything else schedules the
/// next retry, or past the last disables the endpoint and writes `webhook.disabled`. A
/// test message is not retried. The claim ends either way.
///
/// # Errors
/// A storage failure.
pub(crate) fn record(tx: &Tx<'_>, delivery: &Delivery, attempt: &Attempt, now: DateTime<Utc>) -> Result<()> {
    let (customer_id, webhook_id) = (delivery.customer_id.as_str(), delivery.webhook_id.as_str());
    let Some(revision) =
        tx.row("SELECT revision FROM webhooks WHERE customer_id = ?1 AND id = ?2", args![customer_id, webhook_id], |r| r.get::<i64>(0))?
    else {
        // Deleted meanwhile: nothing to record.
        return Ok(());
    };
    let at = timestamp(now);
    let succeeded = attempt.status.is_some_and(|s| (200..300).contains(&s));
    let error = match (&attempt.error, attempt.status) {
        (Some(error), _) => Some(error.clone()),
        (None, Some(status)) if !succeeded => Some(format!("the endpoint answered {status}")),
        _ => None,
    };
    tx.execute(
        "INSERT INTO webhook_deliveries (customer_id, webhook_id, seq, message_id, event_id, attempt, attempted_at, status_code, error, duration_ms)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_deliveries WHERE customer_id = ?1 AND webhook_id = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        args![
            customer_id,
            webhook_id,
            delivery.message_id.as_str(),
            delivery.event_id,
            delivery.attempt,
            at.as_str(),
            attempt.status.map(i64::from),
            error.as_deref(),
            i64::try_from(attempt.duration_ms).unwrap_or(i64::MAX)
        ],
    )?;
    let Some(event_id) = delivery.event_id else {
        tx.execute(
            "UPDATE webhooks SET test_requested_at = NULL, claimed_until = NULL WHERE customer_id = ?1 AND id = ?2",
            args![customer_id, webhook_id],
        )?;
        return Ok(());
    };
    if revision != delivery.revision {
        tx.execute("UPDATE webhooks SET claimed_until = NULL WHERE customer_id = ?1 AND id = ?2", args![customer_id, webhook_id])?;
        return Ok(());
    }
    if succeeded {
        tx.execute(
            "UPDATE webhooks SET cursor = ?3, attempts = 0, next_attempt_at = NULL, failing_since = NULL, claimed_until = NULL
             WHERE customer_id = ?1 AND id = ?2 AND cursor < ?3",
            args![customer_id, webhook_id, event_id],
        )?;
        return Ok(());
    }
    let failed = usize::try_from(delivery.attempt).unwrap_or(usize::MAX);
    match RETRY_AFTER.get(failed.saturating_sub(1)) {
        Some(delay) => {
            tx.execute(
                "UPDATE webhooks SET attempts = ?3, next_attempt_at = ?4, failing_since = COALESCE(failing_since, ?5), claimed_until = NULL
                 WHERE customer_id = ?1 AND id = ?2",
                args![customer_id, webhook_id, delivery.attempt, timestamp(now + Duration::seconds(*delay)).as_str(), at.as_str()],
            )?;
        }
        None => {
            let reason = format!(
                "{} attempts at event {event_id} failed over about a day; the last: {}",
                delivery.attempt,
                error.as_deref().unwrap_or("no answer")
            );
            tx.execute(
                "UPDATE webhooks SET status = 'disabled', disabled_reason = ?3, attempts = ?4, next_attempt_at = NULL, claimed_until = NULL
                 WHERE customer_id = ?1 AND id = ?2",
                args![customer_id, webhook_id, reason.as_str(), delivery.attempt],
            )?;
            let webhook = get(tx, customer_id, webhook_id)?;
            events::append(tx, customer_id, Type::WebhookDisabled, webhook_id, now, &webhook)?;
        }
    }
    Ok(())
}

/// Removes at most `at_most` delivery attempts older than [`events::KEPT_DAYS`] days at
/// `now`; returns how many.
///
/// # Errors
/// A storage failure.
pub(crate) fn purge(tx: &Tx<'_>, now: DateTime<Utc>, at_most: u32) -> Result<u64> {
    let cutoff = timestamp(now - Duration::days(i64::from(events::KEPT_DAYS)));
    let doomed = tx.rows(
        "SELECT customer_id, webhook_id, seq FROM webhook_deliveries WHERE attempted_at < ?1 ORDER BY attempted_at LIMIT ?2",
        args![cutoff.as_str(), i64::from(at_most)],
        |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?, r.get::<i64>(2)?)),
    )?;
    for (customer_id, webhook_id, seq) in &doomed {
        tx.execute(
            "DELETE FROM webhook_deliveries WHERE customer_id = ?1 AND webhook_id = ?2 AND seq = ?3",
            args![customer_id.as_str(), webhook_id.as_str(), *seq],
        )?;
    }
    Ok(doomed.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_match_the_reference_libraries_vectors() {
        // From the Standard Webhooks reference libraries (Python and Rust).
        let python =
            sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, br#"{"test": 2432232314}"#);
        assert_eq!(python.ok().as_deref(), Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
        let rust = sign(
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1_649_367_553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
        );
        assert_eq!(rust.ok().as_deref(), Some("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="));
    }

    #[test]
    fn the_due_endpoints_are_those_of_customers_under_the_claims_cap() {
        assert!(DUE.contains(&format!("held.claimed_until > ?1) < {CLAIMS_PER_CUSTOMER}")), "{DUE}");
    }

    #[test]
    fn a_secret_is_whsec_and_32_bytes() {
        let secret = new_secret().ok().unwrap_or_default();
        let decoded = secret.strip_prefix("whsec_").and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
        assert_eq!(decoded.map(|d| d.len()), Some(SECRET_BYTES));
    }

    #[test]
    fn forbidden_addresses_by_range() {
        let forbidden = [
            ("0.0.0.0", "an unspecified address"),
            ("0.1.2.3", "an address of the current network (0.0.0.0/8)"),
            ("127.0.0.1", "a loopback address"),
            ("127.255.255.254", "a loopback address"),
            ("10.0.0.1", "a private address"),
            ("172.16.0.1", "a private address"),
            ("172.31.255.255", "a private address"),
            ("192.168.1.1", "a private address"),
            ("169.254.169.254", "a link-local address"),
            ("100.64.0.1", "a shared (carrier-grade NAT) address"),
            ("100.127.255.255", "a shared (carrier-grade NAT) address"),
            ("192.0.0.8", "an address reserved for protocol assignments"),
            ("192.0.2.1", "a documentation address"),
            ("198.51.100.1", "a documentation address"),
            ("203.0.113.1", "a documentation address"),
            ("198.18.0.1", "a benchmarking address"),
            ("198.19.255.255", "a benchmarking address"),
            ("224.0.0.1", "a multicast address"),
            ("239.255.255.250", "a multicast address"),
            ("240.0.0.1", "a reserved address"),
            ("255.255.255.255", "a broadcast address"),
            ("::", "an unspecified address"),
            ("::1", "a loopback address"),
            ("::ffff:127.0.0.1", "a loopback address"),
            ("::ffff:192.168.0.1", "a private address"),
            ("::ffff:0.0.0.0", "an unspecified address"),
            ("::10.0.0.1", "a private address"),
            ("::127.0.0.1", "a loopback address"),
            ("64:ff9b::a9fe:a9fe", "a link-local address"),
            ("64:ff9b::10.0.0.1", "a private address"),
            ("64:ff9b:1::1", "a local-use NAT64 address"),
            ("2002:0a00:0001::1", "a private address"),
            ("fc00::1", "a unique local address"),
            ("fd12:3456::1", "a unique local address"),
            ("fe80::1", "a link-local address"),
            ("febf::1", "a link-local address"),
            ("fec0::1", "a site-local address"),
            ("ff02::1", "a multicast address"),
            ("2001:db8::1", "a documentation address"),
            ("3fff::1", "a documentation address"),
            ("2001:2::1", "a benchmarking address"),
            ("100::1", "a discard-only address"),
        ];
        for (ip, reason) in forbidden {
            assert_eq!(forbidden_address(ip.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))), Some(reason), "{ip}");
        }
        let allowed = [
            "8.8.8.8",
            "1.1.1.1",
            "172.15.255.255",
            "172.32.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700::1",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:0808:0808::1",
            "100:0:0:1::1",
        ];
        for ip in allowed {
            assert_eq!(forbidden_address(ip.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))), None, "{ip}");
        }
    }

    #[test]
    fn urls_are_https_with_a_public_host_and_no_credentials() {
        for good in ["https://example.com/hooks", "https://example.com:8443/h?x=1", "https://[2606:4700::1]/h", "https://8.8.8.8"] {
            assert!(check_url(good, false).is_ok(), "{good}");
        }
        for bad in [
            "http://example.com/hooks",
            "ftp://example.com",
            "example.com",
            "https://",
            "https://user:pw@example.com/",
            "https://localhost/x",
            "https://app.localhost/x",
            "https://127.0.0.1/x",
            "https://[::1]:8080/x",
            "https://10.1.2.3/x",
            "https://169.254.169.254/latest/meta-data",
            "https://exa mple.com",
        ] {
            let e = check_url(bad, false).err();
            assert_eq!(e.as_ref().map(|e| e.details().first().map(|d| d.field.clone())), Some(Some("url".to_string())), "{bad}");
        }
        assert!(check_url("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(check_url(&format!("https://example.com/{}", "a".repeat(MAX_URL)), false).is_err());
    }
}
