//! The prepay ledger (DECISIONS 7) as a property: whatever sequence of bookings,
//! recharges and voids, the balance is the sum of the entries, never negative, and each
//! entry's `balanceAfter` is the running sum.

use consign_conformance::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Domestic services (carrier, service, package type) the sequences book on.
const SERVICES: [(&str, &str, &str); 5] = [
    ("parcel", "parcel_ground", "parcel_custom"),
    ("parcel", "parcel_next_day_air", "parcel_custom"),
    ("postal", "postal_priority_mail", "postal_custom"),
    ("expressground", "expressground_ground", "expressground_custom"),
    ("expressground", "expressground_2day", "expressground_custom"),
];

#[derive(Debug, Clone)]
enum Step {
    /// Book on `SERVICES[service]` a piece of `weight` lb, approving recharges or not.
    Book { service: usize, weight: u32, approve: bool },
    /// Void the `n`th booking made so far (modulo their number).
    Void(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..SERVICES.len(), 1u32..=40, any::<bool>()).prop_map(|(service, weight, approve)| Step::Book { service, weight, approve }),
        1 => any::<usize>().prop_map(Step::Void),
    ]
}

fn cents(v: &Value) -> i64 {
    let s = v.as_str().unwrap_or_else(|| panic!("money is a string: {v}"));
    let (whole, frac) = s.split_once('.').unwrap_or_else(|| panic!("2 decimals in {s:?}"));
    assert_eq!(frac.len(), 2, "2 decimals in {s:?}");
    let neg = whole.starts_with('-');
    let c = whole.trim_start_matches('-').parse::<i64>().expect("digits") * 100 + frac.parse::<i64>().expect("digits");
    if neg {
        -c
    } else {
        c
    }
}

fn body(service: usize, weight: u32, approve: bool) -> Value {
    let (carrier, code, package) = SERVICES[service];
    let mut b = quote_shipment();
    b["carrierCode"] = json!(carrier);
    b["serviceCode"] = json!(code);
    b["packageTypeCode"] = json!(package);
    b["pieces"][0]["weight"] = json!(weight.to_string());
    b["approvePrepayRecharge"] = json!(approve);
    // Every carrier here prints ZPL, which renders far faster than PDF in a debug build.
    b["labelImageFormat"] = json!("ZPL");
    b
}

/// The ledger invariants; returns the number of entries.
fn check_ledger(h: &Harness, id: &str) -> Result<usize, TestCaseError> {
    let p = h.get(&Harness::path(id, "/prepay")).expect(200).clone();
    let entries = p["entries"].as_array().cloned().unwrap_or_default();
    let balance = cents(&p["balance"]);
    prop_assert!(balance >= 0, "negative balance {balance}");
    prop_assert_eq!(entries.iter().map(|e| cents(&e["amount"])).sum::<i64>(), balance, "balance is the sum: {}", p);
    let mut running = 0;
    for e in entries.iter().rev() {
        running += cents(&e["amount"]);
        prop_assert_eq!(cents(&e["balanceAfter"]), running, "balanceAfter is the running sum: {}", e);
        prop_assert!(running >= 0, "never negative: {}", e);
    }
    Ok(entries.len())
}

/// Runs `steps` for customer `id`, checking the ledger after each.
fn run_steps(h: &Harness, id: &str, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut booked: Vec<(String, bool)> = Vec::new();
    let mut count = check_ledger(h, id)?;
    for s in steps {
        match *s {
            Step::Book { service, weight, approve } => {
                let a = h.call("POST", &Harness::path(id, "/shipments"), &body(service, weight, approve));
                match a.status {
                    201 => booked.push((a.body["bookNumber"].as_str().unwrap_or_default().to_string(), false)),
                    402 => {
                        prop_assert!(!approve, "an approved booking with a card on file is never short: {}", a.body);
                        prop_assert_eq!(check_ledger(h, id)?, count, "a refused booking writes nothing");
                    }
                    other => prop_assert!(false, "unexpected {other}: {}", a.body),
                }
            }
            Step::Void(n) if !booked.is_empty() => {
                let i = n % booked.len();
                let path = Harness::path(id, &format!("/shipments/{}", booked[i].0));
                let a = h.call("POST", &path, &json!({"voided": true}));
                prop_assert_eq!(a.status, if booked[i].1 { 409 } else { 200 }, "{}", a.body);
                booked[i].1 = true;
            }
            Step::Void(_) => {}
        }
        count = check_ledger(h, id)?;
    }
    Ok(())
}

/// One customer for every case (creating one hashes a password, the slowest step): the
/// invariants hold whatever the ledger held before the case.
#[test]
fn the_balance_is_always_the_sum_of_the_ledger() {
    let h = Harness::new();
    let settings = json!({"minimumBalance": "50.00", "rechargeAmount": "30.00"});
    let id = h.create_customer_with(&with(customer_body("ann@example.com"), "/prepaySettings", settings));
    h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2Ab9zQ")).expect(200);
    let mut runner =
        proptest::test_runner::TestRunner::new(ProptestConfig { cases: 16, source_file: Some(file!()), ..ProptestConfig::default() });
    let result = runner.run(&proptest::collection::vec(step(), 1..=12), |steps| run_steps(&h, &id, &steps));
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Bookings and voids from several threads at once, for several customers and several
/// threads per customer (on PostgreSQL, each on a connection of its own, serialised per
/// customer only): every ledger stays whole, and each booking is charged once.
#[test]
fn bookings_and_voids_at_once_for_several_customers_keep_every_ledger_whole() {
    let h = Harness::new();
    let settings = json!({"minimumBalance": "50.00", "rechargeAmount": "30.00"});
    let ids: Vec<String> = (0..3)
        .map(|n| {
            let id = h.create_customer_with(&with(customer_body(&format!("c{n}@example.com")), "/prepaySettings", settings.clone()));
            h.call("POST", &Harness::path(&id, "/paymentMethod"), &payment_body("tok_1NqLx2Ab9zQ")).expect(200);
            id
        })
        .collect();
    let booked: Vec<(String, bool)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..6)
            .map(|t| {
                let (h, id) = (&h, &ids[t % ids.len()]);
                scope.spawn(move || {
                    (0..4)
                        .map(|n| {
                            let a = h.call("POST", &Harness::path(id, "/shipments"), &body((t + n) % SERVICES.len(), 1 + n as u32, true));
                            let book = a.expect(201)["bookNumber"].as_str().unwrap().to_string();
                            let voided = n % 2 == 1;
                            if voided {
                                h.call("POST", &Harness::path(id, &format!("/shipments/{book}")), &json!({"voided": true})).expect(200);
                            }
                            (id.clone(), voided)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads.into_iter().flat_map(|t| t.join().unwrap()).collect()
    });
    for id in &ids {
        check_ledger(&h, id).unwrap();
        let entries = h.get(&Harness::path(id, "/prepay")).expect(200)["entries"].as_array().unwrap().clone();
        let kinds = |kind: &str| entries.iter().filter(|e| e["kind"] == kind).count();
        let mine = booked.iter().filter(|(who, _)| who == id);
        assert_eq!(kinds("charge"), mine.clone().count(), "one charge per booking of {id}");
        assert_eq!(kinds("refund"), mine.filter(|(_, voided)| *voided).count(), "one refund per void of {id}");
        // The customer's events are numbered 1, 2, 3... without a gap, one per change.
        let events = h.get(&Harness::path(id, "/events?limit=1000")).expect(200)["events"].as_array().unwrap().clone();
        let numbers: Vec<i64> = events.iter().map(|e| e["id"].as_i64().unwrap()).collect();
        assert_eq!(numbers, (1..=numbers.len() as i64).collect::<Vec<_>>(), "{id}");
        let prepay_events = events.iter().filter(|e| e["type"].as_str().unwrap().starts_with("prepay.")).count();
        assert_eq!(prepay_events, entries.len(), "an event per ledger entry of {id}");
    }
}
