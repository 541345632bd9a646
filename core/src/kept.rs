//! Answers kept for the `Idempotency-Key` header of a POST, so that a client that
//! retries a request whose answer it never got (a timeout, a dropped connection, a
//! database failover answering 503) has it done once.
//!
//! The first request with a key runs as usual, and its answer, when it succeeded, is
//! stored with the key in the same transaction as the operation's writes: either both
//! are committed or neither. For 24 hours after, the same key with the same request
//! (method, path with its query, and body, byte for byte) answers with the stored
//! answer without doing anything again; with another request it is refused, 409
//! `CONFLICT` naming `Idempotency-Key`. A key is its owner's: the customer of the path,
//! or the partner key itself for create and connect customer, which have none.
//!
//! An answer that is an error is not kept (the operation wrote nothing, and the client
//! may put right what was wrong and send the same request again), nor a document (the
//! POST that answers one, the labels of several shipments, writes nothing).

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCategory, FieldError, Result};
use crate::router::{self, Response};
use crate::secrets::{self, Sealer};
use crate::store::{args, Read, Tx};
use crate::{Caller, PasswordOutcome, Shipping};

/// How long an answer is kept for its key, in seconds: 24 hours.
pub const KEPT_FOR_SECS: i64 = 86_400;

/// The longest key, in characters.
const MAX_KEY: usize = 255;

/// The field an error about the key names: the header's.
const FIELD: &str = "Idempotency-Key";

/// A request's `Idempotency-Key` and what identifies the request it came with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey {
    key: String,
    /// SHA-256 of the method, the path with its query and the body, in hex.
    request: String,
}

impl IdempotencyKey {
    /// The key `key` of the request `method` on `target` (path and query) with `body`.
    ///
    /// ```
    /// let key = consign::IdempotencyKey::new("order-1187-pickup", "POST", "/restapi/v1/customers/C0000001/pickups", "{}");
    /// assert!(key.is_ok());
    /// assert!(consign::IdempotencyKey::new("", "POST", "/", "").is_err());
    /// ```
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `Idempotency-Key` when `key` is empty, longer than 255
    /// characters or holds anything but visible ASCII and spaces.
    pub fn new(key: &str, method: &str, target: &str, body: &str) -> Result<IdempotencyKey> {
        if key.is_empty() || key.len() > MAX_KEY || !key.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(Error::invalid(FIELD, format!("must be 1 to {MAX_KEY} visible ASCII characters")));
        }
        let mut digest = Sha256::new();
        for part in [method.to_ascii_uppercase().as_str(), target, body] {
            digest.update((part.len() as u64).to_be_bytes());
            digest.update(part.as_bytes());
        }
        Ok(IdempotencyKey { key: key.to_string(), request: hex(&digest.finalize()) })
    }

    /// The key as the client sent it.
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// `bytes` in lower-case hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A stored answer: the request's digest, the status and the body.
struct Kept {
    request: String,
    status: u16,
    body: String,
}

/// The context a kept answer holding a secret is sealed in.
fn sealed_context(owner: &str, key: &str) -> String {
    format!("kept answer of {owner} for key {key}")
}

/// The answer `owner` keeps for `key`, if one was stored after `since`; an answer
/// sealed at rest (it holds a secret) is opened with `sealer`.
fn find(conn: &Read<'_>, sealer: Option<&Sealer>, owner: &str, key: &str, since: i64) -> Result<Option<Kept>> {
    conn.row(
        "SELECT request, status, body FROM request_answers WHERE owner = ?1 AND key = ?2 AND created_at > ?3",
        args![owner, key, since],
        |r| {
            let status: i64 = r.get(1)?;
            let status = u16::try_from(status).map_err(|_| Error::internal(format!("a kept answer has the status {status}")))?;
            let body: String = r.get(2)?;
            Ok(Kept { request: r.get(0)?, status, body: secrets::reveal(sealer, &sealed_context(owner, key), &body)? })
        },
    )
}

/// Stores the answer `status`, `body` for `owner`'s `key` at `now`, replacing an answer
/// stored at `since` or before (expired); `false` when an answer stored after is there
/// (another request with the key was answered meanwhile).
fn store(tx: &Tx<'_>, owner: &str, key: &IdempotencyKey, status: u16, body: &str, now: i64, since: i64) -> Result<bool> {
    let stored = tx.execute(
        "INSERT INTO request_answers (owner, key, request, status, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (owner, key) DO UPDATE SET request = excluded.request, status = excluded.status,
             body = excluded.body, created_at = excluded.created_at
         WHERE request_answers.created_at <= ?7",
        args![owner, key.key, key.request, i64::from(status), body, now, since],
    )?;
    Ok(stored == 1)
}

/// The answer kept for `key` when it came with the same request; 409 when it came with
/// another.
fn replay(kept: Kept, key: &IdempotencyKey) -> Result<Response> {
    if kept.request != key.request {
        return Err(Error::fields(
            ErrorCategory::Conflict,
            vec![FieldError { field: FIELD.into(), message: format!("{:?} was used for another request in the last 24 hours", key.key) }],
        ));
    }
    Ok(Response { status: kept.status, body: kept.body, retry_after: None, document: None })
}

/// Whether `answer` is kept for its key: a success that is not a document.
fn keeps(answer: &Response) -> bool {
    (200..300).contains(&answer.status) && answer.document.is_none()
}

impl Shipping {
    /// Serves one request as [`Shipping::handle_documents_as`] does, with the
    /// `Idempotency-Key` `key` (made for this very request with
    /// [`IdempotencyKey::new`]): a POST whose key already has an answer of the last 24
    /// hours is answered with it, without being done again (409 `CONFLICT` when the key
    /// came with another request); else it is done, and a successful answer is stored
    /// with the key in the operation's own transaction. Other methods ignore the key.
    ///
    /// ```
    /// let shipping = consign::Shipping::open_in_memory().unwrap();
    /// let partner = shipping.authenticate(&shipping.create_api_key(None, "shop").unwrap().key).unwrap();
    /// let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "",
    ///     "city": "Springfield", "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
    /// let body = format!(
    ///     r#"{{"profileCode": "Default", "email": "ann@example.com", "password": "correct horse",
    ///         "mailingAddress": {address}, "billingAddress": {address},
    ///         "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#
    /// );
    /// let path = "/restapi/v1/customers";
    /// let key = consign::IdempotencyKey::new("signup-7", "POST", path, &body).unwrap();
    /// let first = shipping.handle_once_as(&partner, &key, "POST", path, &body);
    /// let again = shipping.handle_once_as(&partner, &key, "POST", path, &body);
    /// assert_eq!(first.status, 201);
    /// assert_eq!((first.status, &first.body), (again.status, &again.body), "one customer, created once");
    /// ```
    pub fn handle_once_as(&self, caller: &Caller, key: &IdempotencyKey, method: &str, target: &str, body: &str) -> Response {
        router::caught(|| {
            self.operation(|| {
                let Some((owner, sealed)) = self.owner(caller, method, target)? else {
                    return self.dispatch_as(caller, method, target, body, true);
                };
                self.once(&owner, key, sealed, || router::answered(self.dispatch_as(caller, method, target, body, true)))
            })
        })
    }

    /// The answer kept for `key` of a request of `caller` on `target`, if there is one
    /// (or 409 `CONFLICT` when the key came with another request): for a front end that
    /// does the password work of create and connect customer before their short write
    /// ([`Shipping::password_work`]), to answer a retry without that work.
    pub fn kept_answer(&self, caller: &Caller, key: &IdempotencyKey, method: &str, target: &str) -> Option<Response> {
        let kept = router::unpanicked(|| match self.owner(caller, method, target)? {
            Some((owner, _)) => self.replayed(&owner, key, self.clock().now().timestamp() - KEPT_FOR_SECS),
            None => Ok(None),
        });
        kept.unwrap_or_else(|e| Some(Response::error(&e)))
    }

    /// The short write of create or connect customer ([`Shipping::answer_password`])
    /// with the `Idempotency-Key` `key` of its request: answered as
    /// [`Shipping::handle_once_as`] answers.
    pub fn answer_password_once(&self, caller: &Caller, key: &IdempotencyKey, outcome: &PasswordOutcome) -> Response {
        router::caught(|| {
            let owner = partner_owner(caller);
            self.once(&owner, key, false, || self.answer_password(outcome))
        })
    }

    /// Stores the quotes that [`Shipping::prepare_as`] priced for a request `method` on
    /// `target` with the `Idempotency-Key` `key`, as [`Shipping::store_priced`] does, and
    /// keeps the answer with them in one transaction. A front end first answers a retry
    /// with [`Shipping::kept_answer`], before pricing it again.
    pub fn store_priced_once(
        &self,
        caller: &Caller,
        key: &IdempotencyKey,
        method: &str,
        target: &str,
        priced: crate::PricedQuotes,
    ) -> Response {
        router::caught(|| match self.owner(caller, method, target)? {
            Some((owner, _)) => self.once(&owner, key, false, || self.store_priced(priced)),
            None => Ok(self.store_priced(priced)),
        })
    }

    /// Removes at most `at_most` answers kept longer than 24 hours, the oldest first,
    /// in one transaction, and returns how many it removed (fewer than `at_most`: none
    /// are left). Lookups ignore them already; this gives their room back (`consign
    /// serve` does it with its daily purge).
    ///
    /// # Errors
    /// Only on a storage failure, or `BUSY`.
    pub fn purge_expired_answers(&self, at_most: u32) -> Result<u64> {
        let since = self.clock().now().timestamp() - KEPT_FOR_SECS;
        let removed = self.write(|tx| {
            tx.execute(
                "DELETE FROM request_answers WHERE (owner, key) IN
                     (SELECT owner, key FROM request_answers WHERE created_at <= ?1 ORDER BY created_at LIMIT ?2)",
                args![since, i64::from(at_most)],
            )
        })?;
        Ok(removed as u64)
    }

    /// Whose keys a request of `caller` uses: the customer of its path (once the caller
    /// is known to act for it), the partner key for create and connect customer; `None`
    /// when the method is not POST, or no operation that writes serves the path (the key
    /// means nothing there). With it, whether the operation's answer holds a secret.
    fn owner(&self, caller: &Caller, method: &str, target: &str) -> Result<Option<(String, bool)>> {
        if !method.eq_ignore_ascii_case("POST") {
            return Ok(None);
        }
        let (path, _) = target.split_once('?').unwrap_or((target, ""));
        let Ok(found) = router::lookup(method, path) else { return Ok(None) };
        if !found.route.writes() {
            return Ok(None);
        }
        if found.route.access() == router::Access::Partner {
            return Ok(Some((partner_owner(caller), false)));
        }
        let customer = found.params.get("customerId")?;
        if !self.acts_for(caller, customer)? {
            return Err(Error::not_found("customer", customer));
        }
        Ok(Some((customer.to_string(), found.route.answers_secret())))
    }

    /// The answer `owner` keeps for `key` since `since`, replayed (or 409 when the key
    /// came with another request); `None` when there is none.
    fn replayed(&self, owner: &str, key: &IdempotencyKey, since: i64) -> Result<Option<Response>> {
        self.read(|conn| find(conn, self.sealer(), owner, &key.key, since))?.map(|kept| replay(kept, key)).transpose()
    }

    /// The body kept of `answer` for `owner`'s `key`: sealed when it holds a secret
    /// (`sealed`) and the service has a key.
    fn kept_body<'a>(&self, owner: &str, key: &IdempotencyKey, sealed: bool, answer: &'a Response) -> Result<std::borrow::Cow<'a, str>> {
        Ok(match sealed {
            true => std::borrow::Cow::Owned(secrets::store(self.sealer(), &sealed_context(owner, &key.key), &answer.body)?),
            false => std::borrow::Cow::Borrowed(answer.body.as_str()),
        })
    }

    /// `answer()` once for `owner`'s `key`: the kept answer when there is one, else
    /// `answer()` with its answer kept in the same transaction when it succeeds (sealed
    /// when it holds a secret, `sealed`).
    fn once(&self, owner: &str, key: &IdempotencyKey, sealed: bool, answer: impl FnOnce() -> Response) -> Result<Response> {
        let now = self.clock().now().timestamp();
        let since = now - KEPT_FOR_SECS;
        if let Some(kept) = self.replayed(owner, key, since)? {
            return Ok(kept);
        }
        let mut raced = false;
        let done = self.all_or_nothing(|| {
            let answer = answer();
            if keeps(&answer)
                && !self.write(|tx| store(tx, owner, key, answer.status, &self.kept_body(owner, key, sealed, &answer)?, now, since))?
            {
                // Another request with this key was answered since the look above: undo
                // this one, and answer as that one was.
                raced = true;
                return Err(Error::new(ErrorCategory::Conflict, "answered meanwhile"));
            }
            Ok(answer)
        });
        match done {
            Err(_) if raced => match self.replayed(owner, key, since)? {
                Some(kept) => Ok(kept),
                None => Err(Error::new(ErrorCategory::Busy, "another request with this Idempotency-Key was being answered; retry it")),
            },
            done => done,
        }
    }
}

/// The owner of the keys of a partner key's create and connect customer.
fn partner_owner(caller: &Caller) -> String {
    format!("key:{}", caller.key_id())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use super::*;

    use std::sync::Arc;

    use crate::clock::FixedClock;
    use crate::shipping::testing::customer_body;

    /// A service at a clock the test moves, a partner key, and a customer it created.
    struct Service {
        shipping: Shipping,
        clock: Arc<FixedClock>,
        partner: Caller,
        customer: String,
    }

    fn service() -> Service {
        let clock = Arc::new(FixedClock::at("2026-03-02T15:00:00Z").unwrap());
        let shipping = Shipping::builder().clock(clock.clone()).open().unwrap();
        let partner = shipping.authenticate(&shipping.create_api_key(None, "shop").unwrap().key).unwrap();
        let created = shipping.handle_as(&partner, "POST", "/restapi/v1/customers", &customer_body("ann@example.com"));
        assert_eq!(created.status, 201, "{}", created.body);
        let customer = serde_json::from_str::<serde_json::Value>(&created.body).unwrap()["customerId"].as_str().unwrap().to_string();
        Service { shipping, clock, partner, customer }
    }

    impl Service {
        fn batches(&self) -> String {
            format!("/restapi/v1/customers/{}/batch", self.customer)
        }

        /// POST `body` to `target` with the key `key`.
        fn post(&self, key: &str, target: &str, body: &str) -> Response {
            let key = IdempotencyKey::new(key, "POST", target, body).unwrap();
            self.shipping.handle_once_as(&self.partner, &key, "POST", target, body)
        }

        fn count(&self, table: &str) -> i64 {
            self.shipping.read(|c| c.one(&format!("SELECT count(*) FROM {table}"), args![], |r| r.get(0))).unwrap()
        }
    }

    fn conflict_on_the_key(answer: &Response) {
        assert_eq!(answer.status, 409, "{}", answer.body);
        let body: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(body["errorCategory"], "CONFLICT", "{body}");
        assert_eq!(body["details"][0]["field"], FIELD, "{body}");
    }

    #[test]
    fn the_same_key_and_request_answer_the_first_answer_without_doing_it_again() {
        let s = service();
        let first = s.post("b-1", &s.batches(), r#"{"name": "Monday"}"#);
        assert_eq!(first.status, 201, "{}", first.body);
        let again = s.post("b-1", &s.batches(), r#"{"name": "Monday"}"#);
        assert_eq!((again.status, &again.body), (201, &first.body));
        assert_eq!(s.count("batches"), 1);
    }

    #[test]
    fn the_same_key_with_another_request_is_a_conflict_on_the_key() {
        let s = service();
        assert_eq!(s.post("b-1", &s.batches(), r#"{"name": "Monday"}"#).status, 201);
        conflict_on_the_key(&s.post("b-1", &s.batches(), r#"{"name": "Tuesday"}"#));
        let path = format!("/restapi/v1/customers/{}/pickups", s.customer);
        conflict_on_the_key(&s.post("b-1", &path, r#"{"name": "Monday"}"#));
        assert_eq!(s.count("batches"), 1);
    }

    #[test]
    fn create_customer_with_a_key_creates_one_customer() {
        let s = service();
        let body = customer_body("bob@example.com");
        let first = s.post("signup-bob", "/restapi/v1/customers", &body);
        assert_eq!(first.status, 201, "{}", first.body);
        let again = s.post("signup-bob", "/restapi/v1/customers", &body);
        assert_eq!((again.status, &again.body), (201, &first.body));
        assert_eq!(s.count("customers"), 2);
    }

    #[test]
    fn an_error_is_not_kept_and_the_key_stays_free() {
        let s = service();
        let refused = s.post("b-1", &s.batches(), r#"{"name": 7}"#);
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert_eq!(s.count("request_answers"), 0);
        assert_eq!(s.post("b-1", &s.batches(), r#"{"name": "Monday"}"#).status, 201);
    }

    #[test]
    fn a_key_is_kept_for_24_hours_then_free() {
        let s = service();
        let first = s.post("b-1", &s.batches(), "{}");
        s.clock.advance(chrono::Duration::seconds(KEPT_FOR_SECS - 1));
        assert_eq!(s.post("b-1", &s.batches(), "{}").body, first.body);
        s.clock.advance(chrono::Duration::seconds(1));
        assert_eq!(s.post("b-1", &s.batches(), "{}").status, 201);
        assert_eq!(s.count("batches"), 2, "done again: a second batch");
        // The answer just stored is kept; the purge removes only expired ones.
        s.clock.advance(chrono::Duration::seconds(KEPT_FOR_SECS));
        assert_eq!(s.post("b-2", &s.batches(), "{}").status, 201);
        assert_eq!(s.shipping.purge_expired_answers(100).unwrap(), 1);
        assert_eq!(s.count("request_answers"), 1);
    }

    #[test]
    fn keys_are_each_owners_own() {
        let s = service();
        let created = s.shipping.handle_as(&s.partner, "POST", "/restapi/v1/customers", &customer_body("cy@example.com"));
        let other = serde_json::from_str::<serde_json::Value>(&created.body).unwrap()["customerId"].as_str().unwrap().to_string();
        assert_eq!(s.post("b-1", &s.batches(), "{}").status, 201);
        assert_eq!(s.post("b-1", &format!("/restapi/v1/customers/{other}/batch"), "{}").status, 201);
        assert_eq!(s.count("batches"), 2);
    }

    #[test]
    fn a_customer_the_caller_does_not_act_for_is_not_found_before_any_kept_answer() {
        let s = service();
        assert_eq!(s.post("b-1", &s.batches(), "{}").status, 201);
        let stranger = s.shipping.authenticate(&s.shipping.create_api_key(None, "other").unwrap().key).unwrap();
        let key = IdempotencyKey::new("b-1", "POST", &s.batches(), "{}").unwrap();
        let answer = s.shipping.handle_once_as(&stranger, &key, "POST", &s.batches(), "{}");
        assert_eq!(answer.status, 404, "{}", answer.body);
        assert!(answer.body.contains("NOT_FOUND"));
    }

    #[test]
    fn methods_other_than_post_ignore_the_key() {
        let s = service();
        let target = s.batches();
        let key = IdempotencyKey::new("b-1", "GET", &target, "").unwrap();
        assert_eq!(s.shipping.handle_once_as(&s.partner, &key, "GET", &target, "").status, 200);
        assert_eq!(s.count("request_answers"), 0);
    }

    #[test]
    fn the_kept_answer_commits_with_the_operation_or_not_at_all() {
        let s = service();
        // A group that fails at its end takes both the batch and its kept answer back.
        let outcome = s.shipping.all_or_nothing(|| {
            assert_eq!(s.post("b-1", &s.batches(), "{}").status, 201);
            Err::<(), _>(Error::internal("the group fails"))
        });
        assert!(outcome.is_err());
        assert_eq!((s.count("batches"), s.count("request_answers")), (0, 0));
        assert_eq!(s.post("b-1", &s.batches(), "{}").status, 201);
        assert_eq!((s.count("batches"), s.count("request_answers")), (1, 1));
    }

    #[test]
    fn a_key_is_one_to_255_visible_ascii_characters() {
        for key in ["a", "order 1187/pickup#2", &"k".repeat(255)] {
            assert!(IdempotencyKey::new(key, "POST", "/", "").is_ok(), "{key:?}");
        }
        for key in ["", &"k".repeat(256), "caf\u{e9}", "tab\there", "new\nline"] {
            let e = IdempotencyKey::new(key, "POST", "/", "").unwrap_err();
            assert_eq!((e.category(), e.details()[0].field.as_str()), (ErrorCategory::InvalidRequest, FIELD), "{key:?}");
        }
    }

    #[test]
    fn the_request_is_its_method_target_and_body_each_counted() {
        let digest = |m: &str, t: &str, b: &str| IdempotencyKey::new("k", m, t, b).unwrap().request;
        assert_eq!(digest("post", "/a", "{}"), digest("POST", "/a", "{}"));
        assert_ne!(digest("POST", "/a", "{}"), digest("POST", "/a?x=1", "{}"));
        assert_ne!(digest("POST", "/a", "{}"), digest("POST", "/a", "{ }"));
        // Parts are length-prefixed: moving bytes from one part to the next changes it.
        assert_ne!(digest("POST", "/ab", "c"), digest("POST", "/a", "bc"));
    }
}
