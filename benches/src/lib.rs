//! Inputs shared by the criterion benchmarks in `benches/` and the examples beside them:
//! the 500-shipment batch, a service on a file database in a temporary directory, and
//! the floor of a batch quote (the same parse, inserts and serialisation without rating).

#![allow(clippy::unwrap_used, clippy::expect_used)] // bench support: a broken setup should stop the run

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use consign::wire::{BatchQuoteResponse, QuoteShipment};
use consign::Shipping;
use consign::{CardId, Currency, DimUnit, PieceInput, Place, RateBook, RateInput, WeightUnit};
use rusqlite::{Connection, TransactionBehavior};
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// Shipments in the batch benchmarks: the most one request may hold.
pub const BATCH: usize = consign::limits::MAX_BATCH;

/// Service named by the domestic shipments of the one-service batch.
pub const DOMESTIC_SERVICE: &str = "parcel_ground";
/// Service named by the international shipments of the one-service batch.
pub const INTERNATIONAL_SERVICE: &str = "parcel_worldwide_express";

/// A directory under the system temporary directory, removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, empty directory.
    pub fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!("consign-bench-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&path).expect("creates a temporary directory");
        TempDir(path)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Default for TempDir {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A service on a file database (WAL) with one customer, as a caller would run it.
#[derive(Debug)]
pub struct Service {
    /// The service.
    pub shipping: Shipping,
    /// `POST` path of the customer's batch quote.
    pub batch_path: String,
    /// The customer's id.
    pub customer_id: String,
    /// A second connection to the database file, to empty the quotes table between runs.
    side: Connection,
    _dir: TempDir,
}

impl Service {
    /// Opens a fresh database file and creates one customer on the Default profile.
    pub fn open() -> Service {
        let dir = TempDir::new();
        let db = dir.path().join("consign.db");
        let shipping = Shipping::open(&db).expect("opens a file database");
        let body = json!({
            "profileCode": "Default", "email": "bench@example.com", "password": "bench-password",
            "mailingAddress": sender(0), "billingAddress": sender(0),
            "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}
        });
        let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        let id: Value = serde_json::from_str(&r.body).expect("json");
        let customer_id = id["customerId"].as_str().expect("customerId").to_string();
        let batch_path = format!("/restapi/v1/customers/{customer_id}/batch-quote");
        let side = Connection::open(&db).expect("opens a second connection");
        side.busy_timeout(std::time::Duration::from_secs(5)).expect("busy timeout");
        Service { shipping, batch_path, customer_id, side, _dir: dir }
    }

    /// A batch quote request body of [`BATCH`] shipments (see [`batch`]).
    pub fn batch_body(&self, one_service: bool) -> String {
        let date = (self.shipping.clock().today() + chrono::Duration::days(1)).to_string();
        json!({ "shipments": batch(&date, one_service) }).to_string()
    }

    /// Runs one batch quote through `handle` and returns the quote count and the fewest
    /// quotes of one shipment, checking that every shipment was quoted (a full parse of
    /// the answer: use it untimed).
    pub fn quote(&self, body: &str) -> (usize, usize) {
        let r = self.shipping.handle("POST", &self.batch_path, body);
        assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(500)]);
        count_quotes(&r.body)
    }

    /// Runs one batch quote through `handle` and returns the answer.
    pub fn answer(&self, body: &str) -> consign::Response {
        self.shipping.handle("POST", &self.batch_path, body)
    }

    /// Empties the quotes table and the day's count of quoted shipments (untimed,
    /// between runs), so that every timed batch inserts into a table of the same size
    /// instead of one growing by 500 rows a run, and never reaches the customer's cap of
    /// quoted shipments per day (which a run of the benchmark passes within seconds).
    pub fn clear_quotes(&self) {
        self.side.execute_batch("DELETE FROM quoted_shipments; DELETE FROM quote_days;").expect("deletes");
    }
}

/// Quote objects in an answer, counted cheaply (by their `quoteId` key) for the checks
/// made after every timed run.
pub fn quote_ids(body: &str) -> usize {
    body.matches("\"quoteId\":").count()
}

/// The quotes of a batch quote answer and the fewest any shipment got; panics on a
/// shipment that was not quoted.
pub fn count_quotes(body: &str) -> (usize, usize) {
    let answer: BatchQuoteResponse = serde_json::from_str(body).expect("a batch quote answer");
    assert_eq!(answer.results.len(), BATCH);
    let per_shipment: Vec<usize> = answer
        .results
        .iter()
        .map(|r| {
            assert_eq!(r.status, "success", "{r:?}");
            let n = r.quotes.as_ref().map_or(0, Vec::len);
            assert!(n > 0, "shipment {} has no quote: {:?}", r.shipment_index, r.quote_errors);
            n
        })
        .collect();
    (per_shipment.iter().sum(), per_shipment.iter().copied().min().unwrap_or(0))
}

const SENDERS: [(&str, &str, &str, &str); 3] = [
    ("Philadelphia", "PA", "19106", "200 Market St"),
    ("Chicago", "IL", "60601", "100 W Randolph St"),
    ("Denver", "CO", "80202", "1700 Lincoln St"),
];

const US_RECEIVERS: [(&str, &str, &str); 16] = [
    ("New York", "NY", "10001"),
    ("Los Angeles", "CA", "90012"),
    ("San Francisco", "CA", "94105"),
    ("Miami", "FL", "33131"),
    ("Seattle", "WA", "98101"),
    ("Dallas", "TX", "75201"),
    ("Atlanta", "GA", "30303"),
    ("Boston", "MA", "02108"),
    ("Phoenix", "AZ", "85004"),
    ("Minneapolis", "MN", "55401"),
    ("Portland", "OR", "97204"),
    ("Detroit", "MI", "48226"),
    ("New Orleans", "LA", "70112"),
    ("Nashville", "TN", "37219"),
    ("Salt Lake City", "UT", "84111"),
    ("Honolulu", "HI", "96813"),
];

const ABROAD: [(&str, &str, &str, &str, &str); 8] = [
    ("London", "", "SW1A 1AA", "GB", "+44 20 7946 0958"),
    ("Berlin", "", "10115", "DE", "+49 30 901820"),
    ("Paris", "", "75001", "FR", "+33 1 42 68 53 00"),
    ("Toronto", "ON", "M5V 2T6", "CA", "416-555-0142"),
    ("Tokyo", "", "100-0001", "JP", "+81 3 3201 3331"),
    ("Sydney", "", "2000", "AU", "+61 2 9265 9333"),
    ("Amsterdam", "", "1012 JS", "NL", "+31 20 552 9111"),
    ("Mexico City", "", "06000", "MX", "+52 55 5130 1900"),
];

fn sender(i: usize) -> Value {
    let (city, state, zip, street) = SENDERS[i % SENDERS.len()];
    json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": street, "address2": "", "city": city,
        "state": state, "zip": zip, "country": "US", "phone": "(215) 555-0142", "email": "ann@leeceramics.example"})
}

/// Shipment `i` of the batch: three in five are domestic US boxes with dimensions
/// (varied weights, sizes, origins and destination ZIPs, some residential, some
/// insured), two in five go abroad to one of eight countries in kg and cm with a
/// declared value. Every one gets at least 10 quotes from the Default profile. With
/// `one_service` each names one service that serves its route ([`DOMESTIC_SERVICE`] or
/// [`INTERNATIONAL_SERVICE`]).
pub fn shipment(i: usize, date: &str, one_service: bool) -> Value {
    let domestic = i % 5 < 3;
    let mut s = if domestic {
        let (city, state, zip) = US_RECEIVERS[(i * 7) % US_RECEIVERS.len()];
        let weight = format!("{}.{}", 1 + (i * 13) % 40, (i * 3) % 10);
        let (l, w, h) = (8 + (i * 5) % 20, 6 + (i * 3) % 12, 4 + i % 10);
        json!({
            "shipmentDate": date, "shipmentReference": format!("INV-{i:05}"), "contentDescription": "ceramics",
            "sender": sender(i),
            "receiver": {"name": "Bo Kim", "company": "", "address1": "9 Elm St", "address2": "", "city": city,
                "state": state, "zip": zip, "country": "US", "phone": "213-555-0199", "email": ""},
            "residential": i % 2 == 0, "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": weight, "length": l.to_string(), "width": w.to_string(), "height": h.to_string(),
                "insuranceAmount": if i % 4 == 0 { json!("150") } else { Value::Null }, "declaredValue": null}]
        })
    } else {
        let (city, state, zip, country, phone) = ABROAD[(i * 3) % ABROAD.len()];
        // up to 1.7 kg: light enough for every international service of the catalog
        let weight = format!("{}.{}", (i * 7) % 16 / 10, 2 + (i * 7) % 16 % 10 / 2);
        let (l, w, h) = (20 + (i * 5) % 30, 15 + (i * 3) % 20, 5 + i % 15);
        json!({
            "shipmentDate": date, "shipmentReference": format!("INV-{i:05}"), "contentDescription": "ceramics",
            "sender": sender(i),
            "receiver": {"name": "Jo Smith", "company": "Smith & Co", "address1": "1 High St", "address2": "", "city": city,
                "state": state, "zip": zip, "country": country, "phone": phone},
            "weightUnit": "kg", "dimUnit": "cm", "currency": "USD",
            "pieces": [{"weight": weight, "length": l.to_string(), "width": w.to_string(), "height": h.to_string(),
                "insuranceAmount": null, "declaredValue": format!("{}", 40 + i % 200)}]
        })
    };
    if one_service {
        s["serviceCode"] = json!(if domestic { DOMESTIC_SERVICE } else { INTERNATIONAL_SERVICE });
    }
    s
}

/// The [`BATCH`] shipments of [`shipment`], dated `date` (`YYYY-MM-DD`).
pub fn batch(date: &str, one_service: bool) -> Vec<Value> {
    (0..BATCH).map(|i| shipment(i, date, one_service)).collect()
}

/// A batch request whose every shipment reads, read in one pass.
#[derive(serde::Deserialize)]
struct WholeRequest {
    shipments: Vec<QuoteShipment>,
}

/// The floor of a batch quote: what any implementation must do for the same request
/// and answer, without validating or rating. It reads the request in one pass into the
/// same wire type (the service reads each shipment on its own only when one does not
/// read) and writes each shipment back as serde does (the form the service stores, with
/// the service's writer), packs each shipment's quotes as the service stores them,
/// inserts the same rows (same columns, same bytes) in one IMMEDIATE transaction into a
/// table of the same schema on a file database with the same settings (WAL,
/// `synchronous = NORMAL`, foreign keys on), and writes the same answer with the
/// service's writer. The quotes come from a real run of the same batch made once,
/// before timing.
#[derive(Debug)]
pub struct Floor {
    conn: Connection,
    answer: BatchQuoteResponse,
    _dir: TempDir,
}

impl Floor {
    /// Prepares the floor from a real answer `answer_json` to the batch.
    pub fn new(answer_json: &str) -> Floor {
        let dir = TempDir::new();
        let conn = Connection::open(dir.path().join("floor.db")).expect("opens");
        conn.busy_timeout(std::time::Duration::from_secs(5)).expect("busy timeout");
        conn.pragma_update(None, "foreign_keys", "ON").expect("foreign keys");
        let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).expect("wal");
        conn.pragma_update(None, "synchronous", "NORMAL").expect("synchronous");
        conn.execute_batch(
            "CREATE TABLE customers (id TEXT PRIMARY KEY);
             INSERT INTO customers (id) VALUES ('c1');
             CREATE TABLE id_sequences (name TEXT PRIMARY KEY, last INTEGER NOT NULL);
             CREATE TABLE quoted_shipments (
                 customer_id TEXT NOT NULL REFERENCES customers(id),
                 first_quote_id INTEGER NOT NULL,
                 quote_count INTEGER NOT NULL CHECK (quote_count > 0),
                 shipment TEXT NOT NULL,
                 quotes TEXT NOT NULL,
                 created_at INTEGER NOT NULL,
                 expires_at INTEGER NOT NULL,
                 PRIMARY KEY (customer_id, first_quote_id)
             );",
        )
        .expect("schema");
        let answer: BatchQuoteResponse = serde_json::from_str(answer_json).expect("an answer");
        Floor { conn, answer, _dir: dir }
    }

    /// Parses `body`, inserts one row per shipment and serialises the answer; returns
    /// the answer's length.
    pub fn run(&mut self, body: &str) -> usize {
        // its row keeps the shipment as serde writes it (what the service stores: the
        // fields of a shipment, nothing else that was sent)
        let request: WholeRequest = serde_json::from_str(body).expect("a batch of shipments");
        let items: Vec<(QuoteShipment, String)> = request
            .shipments
            .into_iter()
            .map(|shipment| {
                let json = consign::harness::shipment_json(&shipment);
                (shipment, json)
            })
            .collect();
        assert_eq!(items.len(), self.answer.results.len());
        let total: i64 = self.answer.results.iter().map(|r| r.quotes.as_ref().map_or(0, Vec::len) as i64).sum();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).expect("begins");
        {
            let last: i64 = tx
                .query_row(
                    "INSERT INTO id_sequences (name, last) VALUES ('quote', ?1) ON CONFLICT (name) DO UPDATE SET last = last + ?1 RETURNING last",
                    [total],
                    |r| r.get(0),
                )
                .expect("reserves ids");
            let mut next = last - total + 1;
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO quoted_shipments (customer_id, first_quote_id, quote_count, shipment, quotes, created_at, expires_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .expect("prepares");
            for ((_, json), result) in items.iter().zip(&self.answer.results) {
                let quotes = result.quotes.as_deref().unwrap_or_default();
                if quotes.is_empty() {
                    continue;
                }
                let packed = consign::harness::pack_quotes(quotes);
                insert
                    .execute(rusqlite::params!["c1", next, quotes.len() as i64, json, packed, 1_800_000_000i64, 1_802_592_000i64])
                    .expect("inserts");
                next += quotes.len() as i64;
            }
        }
        tx.commit().expect("commits");
        std::hint::black_box(&items);
        consign::harness::answer_json(&self.answer).expect("serialises").len()
    }

    /// Empties the table, so that every run inserts into a table of the same size.
    pub fn clear(&self) {
        self.conn.execute("DELETE FROM quoted_shipments", []).expect("deletes");
    }
}

/// A database of booked shipments to search, with the keywords each benchmark asks.
pub struct SearchFixture {
    /// The service on the database file.
    pub shipping: Shipping,
    /// The customer that owns almost all shipments.
    pub customer_id: String,
    /// Shipments in the file.
    pub shipments: u32,
    /// Full tracking numbers of shipments spread over the file (each matches one).
    pub tracking_numbers: Vec<String>,
    /// Receiver surnames that occur (each on roughly `shipments / 20_000` shipments).
    pub surnames: Vec<String>,
    /// Two-character keywords: common ones (in every shipment) and rare ones.
    pub two_chars: Vec<String>,
    /// Keywords that match far more than 100 shipments (first names, company words).
    pub many_matches: Vec<String>,
}

const FIRST: [&str; 20] = [
    "Mira", "Jonas", "Amara", "Ravi", "Elena", "Tomas", "Yuki", "Omar", "Ingrid", "Diego", "Leila", "Pavel", "Noor", "Felix", "Sanaa",
    "Hugo", "Maren", "Kofi", "Ilse", "Rosa",
];
const PREFIX: [&str; 30] = [
    "Kar", "Bel", "Dom", "Fen", "Gal", "Hol", "Jas", "Lun", "Mor", "Nov", "Or", "Pet", "Quin", "Ros", "Sal", "Tor", "Ul", "Var", "Wes",
    "Yar", "Zel", "Ash", "Brin", "Cal", "Dre", "Esk", "Fal", "Grim", "Hask", "Ivo",
];
const MIDDLE: [&str; 30] = [
    "a", "e", "i", "o", "u", "an", "en", "in", "on", "ar", "er", "ir", "or", "al", "el", "il", "ol", "av", "ev", "ov", "am", "em", "im",
    "om", "ad", "ed", "id", "od", "ab", "eb",
];
const SUFFIX: [&str; 25] = [
    "ello", "sen", "ova", "ski", "wick", "ford", "ton", "berg", "stad", "more", "dale", "ley", "rup", "vic", "quist", "holm", "lund",
    "ard", "ias", "oux", "elli", "azar", "ondo", "ridge", "thorpe",
];

/// The `i`th of 22,500 surnames.
pub fn surname(i: u32) -> String {
    let i = i as usize;
    format!("{}{}{}", PREFIX[i % 30], MIDDLE[(i / 30) % 30], SUFFIX[(i / 900) % 25])
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

fn address(name: &str) -> Value {
    json!({"name": name, "company": "Lee Ceramics", "address1": "200 Market St", "address2": "", "city": "Philadelphia",
        "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142", "email": "ann@leeceramics.example"})
}

fn call(shipping: &Shipping, method: &str, path: &str, body: &Value) -> Value {
    let r = shipping.handle(method, path, &body.to_string());
    assert!(r.status < 300, "{method} {path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap()
}

/// Where cached fixtures live: `$CARGO_TARGET_DIR/bench-data`, else `target/bench-data`
/// of the workspace.
pub fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    target.join("bench-data")
}

/// Opens (building it the first time, which takes minutes for a million) a file
/// database of `n` booked shipments of one customer, plus a few of another customer, in
/// `target/bench-data/search-{n}.db`. Shipments are copies of one real booking with
/// their own book and tracking numbers, receivers, phones, e-mails, references and
/// order numbers, inserted with the store's own SQL.
pub fn search_fixture(n: u32) -> SearchFixture {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("search-{n}.db"));
    if !path.exists() {
        let tmp = dir.join(format!("search-{n}.building.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
        }
        build(&Shipping::open(&tmp).unwrap(), n);
        std::fs::rename(&tmp, &path).unwrap();
    }
    keywords(Shipping::open(&path).unwrap(), n)
}

/// [`search_fixture`] in the PostgreSQL database at `url` (built with the feature
/// `postgres`): the shipments are inserted into it when it holds no customer yet (with
/// `synchronous_commit` off for the load), and reused when it holds the `n` shipments
/// of an earlier load. A database holding anything else is refused: give an empty one.
#[cfg(feature = "postgres")]
pub fn search_fixture_postgres(url: &str, n: u32) -> SearchFixture {
    let shipping = Shipping::builder().postgres(url).open().unwrap();
    let probe = |i: u32| {
        let found = shipping.search_shipments("C0000001", &consign::wire::SearchShipmentsRequest { keyword: format!("REF-{i:07}") });
        found.is_ok_and(|f| !f.shipments.is_empty())
    };
    let customers = shipping.handle("GET", "/restapi/v1/customers/C0000001/prepay", "").status;
    if customers == 404 {
        drop(shipping);
        let separator = if url.contains('?') { '&' } else { '?' };
        let loading = Shipping::builder().postgres(format!("{url}{separator}options=-c%20synchronous_commit%3Doff")).open().unwrap();
        build(&loading, n);
        drop(loading);
        return keywords(Shipping::builder().postgres(url).open().unwrap(), n);
    }
    assert!(
        probe(n - 1) && !probe(n),
        "the database at {url} holds customers but not the {n} shipments of this fixture: give an empty database"
    );
    keywords(shipping, n)
}

/// The fixture of `n` shipments on `shipping`, with its keywords.
fn keywords(shipping: Shipping, n: u32) -> SearchFixture {
    let customer_id = "C0000001".to_string();
    let step = (n / 100).max(1);
    let tracking_numbers = (0..n)
        .step_by(step as usize)
        .take(100)
        .map(|i| {
            let found = shipping.search_shipments(&customer_id, &consign::wire::SearchShipmentsRequest { keyword: format!("REF-{i:07}") });
            found.unwrap().shipments[0].tracking_number.clone()
        })
        .collect();
    SearchFixture {
        shipping,
        customer_id,
        shipments: n,
        tracking_numbers,
        surnames: (0..100).map(|i| surname(mix(i) as u32 % 22_500)).collect(),
        two_chars: vec!["an".into(), "ra".into(), "el".into(), "qz".into(), "xj".into(), "zq".into()],
        many_matches: FIRST.iter().map(|f| f.to_string()).chain(["Ceramics".into(), "Lee Ceramics".into()]).collect(),
    }
}

fn build(shipping: &Shipping, n: u32) {
    let customer = |email: &str| {
        let body = json!({"profileCode": "Default", "email": email, "password": "bench-password",
            "mailingAddress": address("Ann Lee"), "billingAddress": address("Ann Lee"),
            "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 1000}});
        let id = call(shipping, "POST", "/restapi/v1/customers", &body)["customerId"].as_str().unwrap().to_string();
        let card = json!({"billingAddress": address("Ann Lee"),
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_bench"}});
        call(shipping, "POST", &format!("/restapi/v1/customers/{id}/paymentMethod"), &card);
        id
    };
    let big = customer("big@example.com");
    assert_eq!(big, "C0000001");
    let small = customer("small@example.com");
    let today = shipping.clock().today().to_string();
    let booking = json!({
        "carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
        "shipmentDate": today, "shipmentReference": "TEMPLATE", "contentDescription": "ceramics",
        "sender": address("Ann Lee"),
        "receiver": {"name": "Bo Kim", "company": "Kim Studio", "address1": "9 Elm St", "address2": "", "city": "Los Angeles",
            "state": "CA", "zip": "90012", "country": "US", "phone": "213-555-0199", "email": "bo@kimstudio.example"},
        "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
        "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}],
        "approvePrepayRecharge": true
    });
    let template =
        call(shipping, "POST", &format!("/restapi/v1/customers/{big}/shipments"), &booking)["bookNumber"].as_str().unwrap().to_string();
    let small_template =
        call(shipping, "POST", &format!("/restapi/v1/customers/{small}/shipments"), &booking)["bookNumber"].as_str().unwrap().to_string();
    consign::harness::insert_shipment_copies(shipping, &small, &small_template, 1000, |_, _| {}).unwrap();
    let chunk = 50_000;
    let mut done = 0;
    while done < n {
        let count = chunk.min(n - done);
        consign::harness::insert_shipment_copies(shipping, &big, &template, count, |j, view| {
            let i = done + j;
            let r = mix(u64::from(i));
            let first = FIRST[(r % 20) as usize];
            let last = surname((r >> 8) as u32 % 22_500);
            view.receiver.name = format!("{first} {last}");
            view.receiver.company = if r % 3 == 0 { format!("{last} Trading") } else { String::new() };
            view.receiver.phone = format!("{:03}-555-{:04}", 200 + (r >> 20) % 700, (r >> 32) % 10_000);
            view.receiver.email = format!("{}.{}@example.com", first.to_lowercase(), last.to_lowercase());
            view.shipper_reference = format!("REF-{i:07}");
            view.shipment_reference = view.shipper_reference.clone();
            view.order_number = format!("SO-{}", 500_000 + i);
        })
        .unwrap();
        done += count;
        eprintln!("search fixture: {done} of {n} shipments");
    }
}

/// One service quote of the `rating/rate` bench and of `examples/rate_many`: a 2 lb
/// 10 x 8 x 6 in box by ground from Philadelphia to Los Angeles (domestic), or a 1.2 kg
/// 30 x 20 x 10 cm box by worldwide express to London (international: kilograms and
/// centimetres for a pound-and-inch carrier).
#[derive(Debug)]
pub struct RateCase {
    /// The card rated.
    pub card: CardId,
    pieces: [PieceInput; 1],
    receiver: Place<'static>,
    weight_unit: WeightUnit,
    dim_unit: DimUnit,
}

impl RateCase {
    /// The domestic or the international case on `book`.
    pub fn new(book: &RateBook, domestic: bool) -> RateCase {
        let d = |m: i64, s: u32| Decimal::new(m, s);
        let (service, piece, receiver, weight_unit, dim_unit) = if domestic {
            let piece = PieceInput { weight: d(2, 0), dims: Some([d(10, 0), d(8, 0), d(6, 0)]), insurance: None };
            ("parcel_ground", piece, Place { country: "US", state: "CA", zip: Some("90012") }, WeightUnit::Lb, DimUnit::In)
        } else {
            let piece = PieceInput { weight: d(12, 1), dims: Some([d(30, 0), d(20, 0), d(10, 0)]), insurance: None };
            ("parcel_worldwide_express", piece, Place { country: "GB", state: "", zip: Some("SW1A 1AA") }, WeightUnit::Kg, DimUnit::Cm)
        };
        let card = book.card("parcel", service, "parcel_custom").expect("a card");
        RateCase { card, pieces: [piece], receiver, weight_unit, dim_unit }
    }

    /// The rating input, from Philadelphia, no options, in US dollars, no markup.
    pub fn input(&self) -> RateInput<'_> {
        RateInput {
            sender: Place { country: "US", state: "PA", zip: Some("19106") },
            receiver: self.receiver,
            residential: false,
            weight_unit: self.weight_unit,
            dim_unit: self.dim_unit,
            pieces: &self.pieces,
            signature_option: None,
            saturday_delivery: false,
            am_delivery: false,
            dangerous_goods: false,
            currency: Currency::Usd,
            markup_percent: Decimal::ZERO,
        }
    }
}
