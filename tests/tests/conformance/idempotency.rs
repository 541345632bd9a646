//! The `Idempotency-Key` of a POST (`Shipping::handle_once_as`): a retry is answered as
//! the first request was and done once, on either database, however many copies of the
//! request arrive at once.

use consign::{Caller, IdempotencyKey, Response};
use consign_conformance::{book_body, la_address, with, Harness};
use serde_json::Value;

/// A shipper and its own key.
fn shipper(h: &Harness, email: &str) -> (String, Caller) {
    let id = h.shipper(email);
    let key = h.shipping.create_api_key(Some(&id), "till").unwrap();
    (id.clone(), h.shipping.authenticate(&key.key).unwrap())
}

/// POST `body` to `target` as `caller` with the key `key`.
fn post(h: &Harness, caller: &Caller, key: &str, target: &str, body: &str) -> Response {
    let once = IdempotencyKey::new(key, "POST", target, body).unwrap();
    h.shipping.handle_once_as(caller, &once, "POST", target, body)
}

/// The charges of customer `id`'s ledger.
fn charges(h: &Harness, id: &str) -> usize {
    let prepay = h.get(&Harness::path(id, "/prepay")).expect(200).clone();
    prepay["entries"].as_array().unwrap().iter().filter(|e| e["kind"] == "charge").count()
}

#[test]
fn a_booking_retried_with_its_key_answers_the_first_answer_and_is_charged_once() {
    let h = Harness::new();
    let (id, caller) = shipper(&h, "keyed@example.com");
    let target = Harness::path(&id, "/shipments");
    let body = with(book_body(), "/receiver", la_address()).to_string();
    let first = post(&h, &caller, "book-1", &target, &body);
    assert_eq!(first.status, 201, "{}", first.body);
    let again = post(&h, &caller, "book-1", &target, &body);
    assert_eq!((again.status, &again.body), (201, &first.body));
    assert_eq!(charges(&h, &id), 1);
}

#[test]
fn a_key_sent_again_with_another_request_is_409_naming_it() {
    let h = Harness::new();
    let (id, caller) = shipper(&h, "reused@example.com");
    let target = Harness::path(&id, "/batch");
    assert_eq!(post(&h, &caller, "batch-1", &target, r#"{"name": "Monday"}"#).status, 201);
    let refused = post(&h, &caller, "batch-1", &target, r#"{"name": "Tuesday"}"#);
    let body: Value = serde_json::from_str(&refused.body).unwrap();
    assert_eq!(
        (refused.status, &body["errorCategory"], &body["details"][0]["field"]),
        (409, &"CONFLICT".into(), &"Idempotency-Key".into())
    );
}

#[test]
fn copies_of_one_request_sent_at_once_are_done_once_and_answered_alike() {
    let h = Harness::new();
    let (id, caller) = shipper(&h, "racing@example.com");
    let target = Harness::path(&id, "/shipments");
    let body = with(book_body(), "/receiver", la_address()).to_string();
    let answers: Vec<Response> = std::thread::scope(|scope| {
        let copies: Vec<_> = (0..6).map(|_| scope.spawn(|| post(&h, &caller, "book-race", &target, &body))).collect();
        copies.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let done: Vec<&Response> = answers.iter().filter(|a| a.status == 201).collect();
    assert!(!done.is_empty(), "{:?}", answers.iter().map(|a| (a.status, &a.body)).collect::<Vec<_>>());
    for answer in &answers {
        // A copy is answered as the first, or told to retry while the first is still
        // being answered; never done a second time.
        assert!(answer.status == 201 && answer.body == done[0].body || answer.status == 503, "{} {}", answer.status, answer.body);
    }
    assert_eq!(charges(&h, &id), 1, "one booking, charged once");
}
