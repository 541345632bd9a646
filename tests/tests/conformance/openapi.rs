//! `docs/openapi.json` against the router: the same routes, and every answer of a
//! representative request of each route (its success and some errors) valid under the
//! schema the document gives for that status. This is what keeps the document honest
//! before schemathesis checks it against the real server.

use std::collections::{BTreeSet, HashSet};
use std::sync::LazyLock;

use consign_conformance::*;
use serde_json::{json, Value};

/// The document, as served at `GET /restapi/v1/openapi.json`.
static DOC: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("../../../docs/openapi.json")).expect("docs/openapi.json is JSON"));

/// The routes `consign serve` adds to those of `Shipping::handle`.
const SERVER_ROUTES: [(&str, &str); 2] = [("get", "/healthz"), ("get", "/restapi/v1/openapi.json")];

const METHODS: [&str; 4] = ["get", "post", "put", "delete"];

/// `/a/:b/c` as OpenAPI writes it: `/a/{b}/c`.
fn openapi_path(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|s| s.strip_prefix(':').map_or_else(|| s.to_string(), |name| format!("{{{name}}}")))
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn the_document_lists_exactly_the_routes_of_the_router_and_the_server() {
    let router: BTreeSet<(String, String)> =
        consign::routes().map(|(method, pattern)| (method.to_ascii_lowercase(), openapi_path(pattern))).collect();
    assert_eq!(router.len(), consign::routes().count(), "the router has no line twice");
    let mut document = BTreeSet::new();
    for (path, item) in DOC["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            assert!(METHODS.contains(&method.as_str()), "{method} {path}: a method the interface never serves");
            document.insert((method.clone(), path.clone()));
        }
    }
    for (method, path) in SERVER_ROUTES {
        assert!(document.remove(&(method.to_string(), path.to_string())), "the document lacks {method} {path}, which the server adds");
    }
    let missing: Vec<_> = router.difference(&document).collect();
    let extra: Vec<_> = document.difference(&router).collect();
    assert!(missing.is_empty() && extra.is_empty(), "routes the document lacks: {missing:?}; routes it has and the router not: {extra:?}");
}

/// Each operation of the table is the document's operation of its route: the same
/// `operationId`, and `application/pdf` among its success answers exactly when the
/// operation may answer a document (labels, the commercial invoice).
#[test]
fn each_operation_has_the_name_and_answers_of_the_document() {
    for op in consign::operations() {
        let what = format!("{} {}", op.method(), op.pattern());
        let entry = &DOC["paths"][openapi_path(op.pattern())][op.method().to_ascii_lowercase()];
        assert_eq!(entry["operationId"].as_str(), Some(op.name()), "{what}: the operationId");
        let success = entry["responses"].as_object().expect("responses").iter().filter(|(status, _)| status.starts_with('2'));
        let types: BTreeSet<&str> =
            success.flat_map(|(_, r)| r["content"].as_object().into_iter().flatten().map(|(t, _)| t.as_str())).collect();
        let documents = op.answer() != consign::AnswerKind::Json;
        let expected: BTreeSet<&str> = if documents { ["application/json", "application/pdf"].into() } else { ["application/json"].into() };
        assert_eq!(types, expected, "{what}: answered as {:?}", op.answer());
        // Every operation needs the document's one API key scheme.
        assert!(entry.get("security").is_none(), "{what}: the document gives it a security of its own");
    }
    assert_eq!(DOC["security"], json!([{ "apiKey": [] }]));
}

#[test]
fn the_document_lists_exactly_the_error_categories_of_the_library() {
    let document: Vec<&str> = DOC
        .pointer("/components/schemas/ErrorCategory/enum")
        .and_then(Value::as_array)
        .expect("the document declares the ErrorCategory enum")
        .iter()
        .map(|c| c.as_str().expect("a category is a string"))
        .collect();
    let library: Vec<&str> = consign::ErrorCategory::ALL.iter().map(|c| c.code()).collect();
    assert_eq!(document, library);
}

/// `s` as a JSON pointer token.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Checks answers against the document and remembers which operations had a success.
struct Checker {
    h: Harness,
    succeeded: HashSet<(String, String)>,
}

impl Checker {
    /// Serves `method` on `pattern` (OpenAPI form) with `args` filled in for its
    /// parameters in order and `query` after it, checks that the answer has `status` and
    /// that the document gives that status, and validates the body under its schema.
    #[track_caller]
    fn check(&mut self, method: &str, pattern: &str, args: &[&str], query: &str, body: &Value, status: u16) -> Value {
        let mut args = args.iter();
        let path: Vec<String> = pattern
            .split('/')
            .map(|s| if s.starts_with('{') { (*args.next().expect("an argument per parameter")).to_string() } else { s.to_string() })
            .collect();
        let path = format!("{}{query}", path.join("/"));
        let answer = self.h.call(method, &path, body);
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.body);
        let method = method.to_ascii_lowercase();
        let mut pointer = format!("/paths/{}/{method}/responses/{status}", token(pattern));
        let response = DOC.pointer(&pointer).unwrap_or_else(|| panic!("the document gives no {status} for {method} {pattern}"));
        if let Some(target) = response.get("$ref").and_then(Value::as_str) {
            pointer = target.trim_start_matches('#').to_string();
        }
        validate(&format!("{pointer}/content/application~1json/schema"), &answer.body, &format!("{method} {path} {status}"));
        if status < 300 {
            self.succeeded.insert((method, pattern.to_string()));
        }
        answer.body
    }
}

/// Validates `instance` under the schema at `pointer` in the document, with the
/// document's components in reach of its `$ref`s.
#[track_caller]
fn validate(pointer: &str, instance: &Value, what: &str) {
    assert!(DOC.pointer(pointer).is_some(), "{what}: the document has no schema at {pointer}");
    let mut root = DOC.clone();
    // A URI fragment, where `{` and `}` of a path template must be escaped.
    root["$ref"] = json!(format!("#{}", pointer.replace('{', "%7B").replace('}', "%7D")));
    let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{what}: the schema at {pointer} does not build: {e}"));
    let errors: Vec<String> = validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{what}: the answer does not match the document:\n{}\n{instance}", errors.join("\n"));
}

const C: &str = "/restapi/v1/customers/{customerId}";

#[test]
fn every_answer_matches_the_document() {
    let mut c = Checker { h: Harness::new(), succeeded: HashSet::new() };
    let (get, post, put, delete) = ("GET", "POST", "PUT", "DELETE");
    let none = Value::Null;

    // Customers and accounts.
    let customer = c.check(post, "/restapi/v1/customers", &[], "", &customer_body("ann@lee.example"), 201);
    let id = customer["customerId"].as_str().unwrap().to_string();
    let id = id.as_str();
    c.check(post, "/restapi/v1/customers", &[], "", &customer_body("ann@lee.example"), 409);
    c.check(post, "/restapi/v1/customers", &[], "", &without(customer_body("bo@lee.example"), "/email"), 400);
    let login = json!({"username": "ann@lee.example", "password": "glaze-and-fire"});
    c.check(post, "/restapi/v1/connect-customer", &[], "", &login, 200);
    c.check(post, "/restapi/v1/connect-customer", &[], "", &with(login.clone(), "/password", json!("wrong-password")), 401);
    let guessed = json!({"username": "guessed@lee.example", "password": "wrong-password"});
    for _ in 0..5 {
        c.check(post, "/restapi/v1/connect-customer", &[], "", &guessed, 401);
    }
    c.check(post, "/restapi/v1/connect-customer", &[], "", &guessed, 429);
    c.check(post, "/restapi/v1/customers", &[], "", &customer_body("guessed@lee.example"), 429);
    c.check(get, &format!("{C}/partners"), &[id], "", &none, 200);
    let partner = c.h.shipping.authenticate(&c.h.shipping.create_api_key(None, "shop").unwrap().key).unwrap();
    assert_eq!(c.h.shipping.handle_as(&partner, post, "/restapi/v1/connect-customer", &login.to_string()).status, 200);
    c.check(get, &format!("{C}/partners"), &[id], "", &none, 200);
    c.check(delete, &format!("{C}/partners/{{keyId}}"), &[id, partner.key_id()], "", &none, 200);
    c.check(delete, &format!("{C}/partners/{{keyId}}"), &[id, partner.key_id()], "", &none, 404);
    c.check(post, &format!("{C}/paymentMethod"), &[id], "", &payment_body("tok_1NqLx2"), 200);
    let services = c.check(get, &format!("{C}/services"), &[id], "", &none, 200);
    c.check(get, &format!("{C}/services"), &["C9999999"], "", &none, 404);
    let service = &services["services"][0];
    let option = quoting_option(
        "Everyday",
        service["carrierCode"].as_str().unwrap(),
        service["serviceCode"].as_str().unwrap(),
        service["packageTypes"][0]["packageTypeCode"].as_str().unwrap(),
    );
    c.check(put, &format!("{C}/integratedQuotingOptions"), &[id], "", &json!({"integratedQuotingOptions": [option]}), 200);
    c.check(get, &format!("{C}/integratedQuotingOptions"), &[id], "", &none, 200);
    let account = c.check(put, &format!("{C}/provider-accounts/{{providerCode}}"), &[id, "parcel"], "", &parcel_account("A1B2C3"), 201);
    c.check(put, &format!("{C}/provider-accounts/{{providerCode}}"), &[id, "parcel"], "", &json!({"accountFields": 5}), 400);
    c.check(get, &format!("{C}/provider-accounts"), &[id], "", &none, 200);
    c.check(delete, &format!("{C}/provider-accounts/{{id}}"), &[id, account["id"].as_str().unwrap()], "", &none, 200);
    c.check(get, &format!("{C}/regionalShipmentTypes/{{postalCode}}"), &[id, "19106"], "", &none, 200);
    c.check(get, &format!("{C}/regionalShipmentTypes/{{postalCode}}"), &[id, "nowhere"], "", &none, 400);
    c.check(get, "/customers/{customerId}/regionalShipmentTypes/{postalCode}", &[id, "K1A 0B1"], "", &none, 200);
    let integration = c.check(post, &format!("{C}/integrations"), &[id], "", &json!({"name": "Web shop"}), 201);
    let integration = integration["integrationId"].as_str().unwrap().to_string();

    // Quotes.
    let bad = with(quote_shipment(), "/sender/state", json!("Texas"));
    let batch = c.check(post, &format!("{C}/batch-quote"), &[id], "", &json!({"shipments": [quote_shipment(), bad, 5]}), 200);
    let quote_ids: Vec<i64> = batch["results"][0]["quotes"].as_array().unwrap().iter().map(|q| q["quoteId"].as_i64().unwrap()).collect();
    c.check(post, &format!("{C}/batch-quote"), &[id], "", &json!({"shipments": "all"}), 400);
    c.check(post, &format!("{C}/quote"), &[id], "", &quote_shipment(), 200);
    let first = &batch["results"][0]["quotes"][0];
    let named = with(
        with(with(quote_shipment(), "/carrierCode", first["carrierCode"].clone()), "/serviceCode", first["serviceCode"].clone()),
        "/packageTypeCode",
        first["packageTypeCode"].clone(),
    );
    let one = c.check(post, &format!("{C}/quote"), &[id], "", &named, 200);
    assert!(one.get("quoteId").is_some(), "a named service quotes one: {one}");
    let too_late = with(named.clone(), "/deliverBy", named["shipmentDate"].clone());
    c.check(post, &format!("{C}/quote"), &[id], "", &too_late, 400);
    let reduced = json!({"sender": {"country": "US", "zip": "19106"}, "receiver": {"country": "US", "zip": "90012"}, "weightUnit": "lb",
        "dimUnit": "in", "carrierCode": "", "pieces": [{"weight": 2, "length": 10, "width": 8, "height": 6}]});
    c.check(post, &format!("{C}/quote"), &[id], "", &reduced, 200);

    // Shipments.
    let booked = c.check(post, &format!("{C}/shipments"), &[id], "", &book_body(), 201);
    let book = booked["bookNumber"].as_str().unwrap().to_string();
    let book = book.as_str();
    c.check(post, &format!("{C}/shipments"), &[id], "", &without(book_body(), "/pieces"), 400);
    let poor = with(customer_body("poor@lee.example"), "/prepaySettings", json!({"minimumBalance": 0, "rechargeAmount": "1.00"}));
    let poor = c.h.create_customer_with(&poor);
    c.check(post, &format!("{C}/shipments"), &[&poor], "", &with(book_body(), "/approvePrepayRecharge", json!(false)), 402);
    c.check(get, &format!("{C}/shipments"), &[id], "?limit=500", &none, 200);
    c.check(get, &format!("{C}/shipments"), &[id], "?limit=0", &none, 400);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}"), &[id, book], "", &none, 200);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}"), &[id, "1999999999"], "", &none, 404);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/label"), &[id, book], "", &none, 200);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/label/{{labelImageFormat}}"), &[id, book, "pdf"], "", &none, 200);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/label/{{labelImageFormat}}"), &[id, book, "GIF"], "", &none, 400);
    let mut intl = with(intl_shipment(), "/commercialInvoice", invoice("1.2"));
    for (key, value) in
        [("carrierCode", "intlexpress"), ("serviceCode", "intlexpress_express_worldwide"), ("packageTypeCode", "intlexpress_custom")]
    {
        intl[key] = json!(value);
    }
    intl["approvePrepayRecharge"] = json!(true);
    let invoiced = c.h.book(id, &intl);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/commercialInvoice"), &[id, &invoiced], "", &none, 200);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/commercialInvoice"), &[id, book], "", &none, 404);
    let returned = c.h.book(id, &with(book_body(), "/scanBasedReturnLabel", json!(true)));
    let return_label = format!("{C}/shipments/{{bookNumber}}/return-label/{{labelImageFormat}}");
    c.check(get, &return_label, &[id, &returned, "ZPL"], "", &none, 200);
    c.check(get, &return_label, &[id, &returned, "pdf"], "?layout=a4", &none, 200);
    c.check(get, &return_label, &[id, book, "PDF"], "", &none, 404);
    c.check(get, &return_label, &[id, &returned, "EPL2"], "", &none, 400);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}"), &[id, &returned], "", &none, 200);
    let multiple = format!("{C}/shipments/multiple/labels/{{labelImageFormat}}");
    c.check(post, &multiple, &[id, "PDF"], "", &json!({"bookNumbers": [book, &invoiced]}), 200);
    c.check(post, &multiple, &[id, "ZPL"], "", &json!({"bookNumbers": [book]}), 200);
    c.check(post, &multiple, &[id, "PDF"], "", &json!({"bookNumbers": ["1999999999"]}), 404);
    c.check(post, &multiple, &[id, "PDF"], "", &json!({"bookNumbers": []}), 400);
    let event = json!({"trackingNumber": booked["trackingNumber"], "carrier": "postal", "event": "Accepted at the post office",
        "eventStatus": "In Transit", "eventTime": format!("{TODAY} 16:00:00"), "serviceArea": "Philadelphia", "serviceAreaCountry": "US"});
    c.check(post, &format!("{C}/shipments/{{bookNumber}}/tracking-events"), &[id, book], "", &json!({"events": [event]}), 200);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/tracking-information"), &[id, book], "", &none, 200);
    c.check(post, &format!("{C}/searchShipments"), &[id], "", &json!({"keyword": "Kim"}), 200);
    c.check(post, &format!("{C}/searchShipments"), &[id], "", &json!({}), 400);
    // Voided: the carrier's scan above stops a void, so void another.
    let other = c.h.book(id, &book_body());
    c.check(post, &format!("{C}/shipments/{{bookNumber}}"), &[id, &other], "", &json!({"voided": true}), 200);
    c.check(post, &format!("{C}/shipments/{{bookNumber}}"), &[id, &other], "", &json!({"voided": true}), 409);
    c.check(get, &format!("{C}/shipments/{{bookNumber}}/label"), &[id, &other], "", &none, 409);

    // Batches.
    let created = c.check(post, &format!("{C}/batch"), &[id], "", &json!({"name": "Monday"}), 201);
    let batch_id = created["batchId"].as_str().unwrap().to_string();
    c.check(post, &format!("{C}/batch"), &[id], "", &none, 201);
    c.check(post, &format!("{C}/batch/{{batchId}}/quotes"), &[id, &batch_id], "", &json!({"quoteIds": [quote_ids[0]]}), 200);
    c.check(post, &format!("{C}/batch/{{batchId}}/quotes"), &[id, &batch_id], "", &json!({"quoteIds": [999_999]}), 404);
    c.check(get, &format!("{C}/batch/{{batchId}}"), &[id, &batch_id], "", &none, 200);
    c.check(get, &format!("{C}/batch"), &[id], "", &none, 200);
    c.check(post, &format!("{C}/batch-book"), &[id], "", &json!({"batchId": batch_id, "approvePrepayRecharge": true}), 200);
    c.check(delete, &format!("{C}/batch/{{batchId}}"), &[id, &batch_id], "", &none, 409);
    let empty = c.h.call(post, &Harness::path(id, "/batch"), &json!({})).body["batchId"].as_str().unwrap().to_string();
    c.check(delete, &format!("{C}/batch/{{batchId}}"), &[id, &empty], "", &none, 200);

    // Pickups and manifests.
    let pickup = c.check(post, &format!("{C}/pickups"), &[id], "", &pickup_body("postal", &[book]), 201);
    let pickup = pickup["pickupId"].as_str().unwrap().to_string();
    c.check(post, &format!("{C}/pickups"), &[id], "", &pickup_body("parcel", &[book]), 400);
    c.check(get, &format!("{C}/pickups/{{pickupId}}"), &[id, &pickup], "", &none, 200);
    c.check(post, &format!("{C}/pickups/{{pickupId}}"), &[id, &pickup], "", &json!({"cancelled": true}), 200);
    let manifest = c.check(post, &format!("{C}/manifest"), &[id], "", &manifest_body("postal", &[book]), 201);
    c.check(get, &format!("{C}/manifest/{{manifestId}}"), &[id, manifest["manifestId"].as_str().unwrap()], "", &none, 200);
    c.check(get, &format!("{C}/manifest/{{manifestId}}"), &[id, "M404"], "", &none, 404);

    // Orders.
    let order = format!("{C}/integrations/{{integrationId}}/orders/{{orderId}}");
    c.check(put, &order, &[id, &integration, "SO-5001"], "", &order_body("SO-5001"), 201);
    let sparse =
        json!({"orderId": "SO-5002", "orderDate": TODAY, "fulfillmentStatus": "pending", "sender": us_address(), "receiver": la_address()});
    c.check(put, &order, &[id, &integration, "SO-5002"], "", &sparse, 201);
    c.check(put, &order, &[id, &integration, "SO-5003"], "", &with(sparse, "/fulfillmentStatus", json!("lost")), 400);
    c.check(get, &order, &[id, &integration, "SO-5001"], "", &none, 200);
    c.check(get, &order, &[id, &integration, "SO-5002"], "", &none, 200);
    c.check(delete, &order, &[id, &integration, "SO-5002"], "", &none, 200);
    c.check(get, &order, &[id, &integration, "SO-5002"], "", &none, 404);
    c.check(get, &format!("{C}/prepay"), &[id], "", &none, 200);
    // Every event so far, of every kind of data.
    c.check(get, &format!("{C}/events"), &[id], "?limit=1000", &none, 200);
    c.check(get, &format!("{C}/events"), &[id], "?types=nothing", &none, 400);
    c.check(get, &format!("{C}/events"), &["C9999999"], "", &none, 404);
    let hooks = format!("{C}/webhooks");
    let hook = format!("{C}/webhooks/{{webhookId}}");
    let endpoint = json!({"url": "https://hooks.example.com/consign", "types": ["shipment.*"], "description": "shop"});
    let created = c.check(post, &hooks, &[id], "", &endpoint, 201);
    let webhook = created["webhookId"].as_str().unwrap();
    c.check(post, &hooks, &[id], "", &json!({"url": "http://hooks.example.com/consign"}), 400);
    c.check(get, &hooks, &[id], "", &none, 200);
    c.check(get, &hook, &[id, webhook], "", &none, 200);
    c.check(get, &hook, &[id, "wh_00000000000000000000"], "", &none, 404);
    c.check(put, &hook, &[id, webhook], "", &with(endpoint.clone(), "/enabled", json!(true)), 200);
    c.check(post, &format!("{hook}/rotate-secret"), &[id, webhook], "", &none, 200);
    c.check(post, &format!("{hook}/test"), &[id, webhook], "", &none, 202);
    c.check(get, &format!("{hook}/deliveries"), &[id, webhook], "", &none, 200);
    c.check(get, &format!("{hook}/deliveries"), &[id, webhook], "?limit=0", &none, 400);
    c.check(post, &format!("{hook}/replay"), &[id, webhook], "", &json!({"after": "0"}), 200);
    c.check(post, &format!("{hook}/replay"), &[id, webhook], "", &json!({"after": "99999"}), 400);
    c.check(delete, &hook, &[id, webhook], "", &none, 200);

    // What no operation of the document answers still has the error body.
    let wrong_method = c.h.call("DELETE", "/restapi/v1/customers", &none);
    assert_eq!(wrong_method.status, 405);
    validate("/components/responses/Error405/content/application~1json/schema", &wrong_method.body, "DELETE /restapi/v1/customers");

    let untested: Vec<_> = consign::routes()
        .map(|(method, pattern)| (method.to_ascii_lowercase(), openapi_path(pattern)))
        .filter(|route| !c.succeeded.contains(route))
        .collect();
    assert!(untested.is_empty(), "routes without a checked success: {untested:?}");
}
