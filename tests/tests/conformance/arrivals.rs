//! When it arrives: every quote's `transitDays`, `estimatedDeliveryDate` and
//! `deliveryDateGuaranteed`, worked by hand across weekends and holidays; `deliverBy`
//! and `DELIVERY_DATE_NOT_MET`; the date on bookings, retrieve and search; and the
//! transit and calendar data, imported and exported like the rest of the rate book.

use consign::{CsvKind, ErrorCategory};
use consign_conformance::*;
use serde_json::{json, Value};

/// Wednesday 2026-11-25, the day before Thanksgiving.
const WEDNESDAY: &str = "2026-11-25";
/// Friday 2026-11-27.
const FRIDAY: &str = "2026-11-27";

/// Philadelphia to Los Angeles (distance zone 8), dated `date`.
fn shipment(date: &str) -> Value {
    with(quote_shipment(), "/shipmentDate", json!(date))
}

/// The quote of `service` in custom packaging among `result`'s quotes.
fn quote_of<'a>(result: &'a Value, service: &str) -> &'a Value {
    result["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["serviceCode"] == service && q["packageTypeCode"].as_str().unwrap().ends_with("_custom"))
        .unwrap_or_else(|| panic!("{service} is quoted: {result}"))
}

/// (transit days, estimated date, guaranteed) of a quote.
fn arrival(q: &Value) -> (u64, &str, bool) {
    (q["transitDays"].as_u64().unwrap(), q["estimatedDeliveryDate"].as_str().unwrap(), q["deliveryDateGuaranteed"].as_bool().unwrap())
}

#[test]
fn every_quote_says_when_it_arrives() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let result = h.quote_one(&id, shipment(WEDNESDAY));
    let quotes = result["quotes"].as_array().unwrap();
    assert!(quotes.len() > 10, "{result}");
    for q in quotes {
        assert!(q["transitDays"].is_u64(), "{q}");
        let date = q["estimatedDeliveryDate"].as_str().unwrap_or_else(|| panic!("{q}"));
        assert!(date.len() == 10 && date > WEDNESDAY, "{q}");
        assert!(q["deliveryDateGuaranteed"].is_boolean(), "{q}");
    }
    // worked by hand: Thanksgiving (Thursday 26) is closed for every carrier; the
    // private carriers deliver Monday to Friday, the postal carrier Monday to Saturday
    let expected = [
        ("parcel_next_day_air", (1, "2026-11-27", true)),
        ("parcel_2nd_day_air", (2, "2026-11-30", true)),
        ("expressground_2day", (2, "2026-11-30", true)),
        ("parcel_3_day_select", (3, "2026-12-01", true)),
        // ground across the country: 5 days, Friday, Monday, Tuesday, Wednesday, Thursday
        ("parcel_ground", (5, "2026-12-03", false)),
        // home delivery works Tuesday to Saturday: Friday, Saturday, Tuesday, Wednesday, Thursday
        ("expressground_home_delivery", (5, "2026-12-03", false)),
        // Priority Mail zone 8: 3 days, Friday, Saturday, Monday
        ("postal_priority_mail", (3, "2026-11-30", false)),
        ("postal_priority_mail_express", (1, "2026-11-27", true)),
    ];
    for (service, want) in expected {
        let q = quote_of(&result, service);
        assert_eq!(q["zone"], "8", "{q}");
        assert_eq!(arrival(q), want, "{service}");
    }
}

#[test]
fn a_two_day_service_shipped_on_wednesday_skips_thanksgiving_and_arrives_on_monday() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let s = with(with(shipment(WEDNESDAY), "/serviceCode", json!("parcel_2nd_day_air")), "/packageTypeCode", json!("parcel_custom"));
    let result = h.quote_one(&id, s);
    assert_eq!(arrival(&result["quotes"][0]), (2, "2026-11-30", true));
}

#[test]
fn saturday_delivery_moves_a_friday_overnight_to_saturday() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let overnight = with(with(shipment(FRIDAY), "/serviceCode", json!("parcel_next_day_air")), "/packageTypeCode", json!("parcel_custom"));
    assert_eq!(arrival(&h.quote_one(&id, overnight.clone())["quotes"][0]), (1, "2026-11-30", true), "Monday without it");
    let saturday = with(overnight, "/saturdayDelivery", json!(true));
    assert_eq!(arrival(&h.quote_one(&id, saturday)["quotes"][0]), (1, "2026-11-28", true), "Saturday with it");
}

#[test]
fn a_shipment_date_without_pickup_counts_from_the_next_pickup_day() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    // Sunday 2026-11-22: picked up Monday, overnight arrives Tuesday
    let sunday = h.quote_one(&id, shipment("2026-11-22"));
    assert_eq!(arrival(quote_of(&sunday, "parcel_next_day_air")), (1, "2026-11-24", true));
    assert_eq!(arrival(quote_of(&sunday, "postal_priority_mail_express")), (1, "2026-11-24", true));
    // Saturday 2026-11-21: the postal carrier picks up, the others wait for Monday
    let saturday = h.quote_one(&id, shipment(TODAY));
    assert_eq!(arrival(quote_of(&saturday, "postal_priority_mail_express")), (1, "2026-11-23", true), "Sunday is no delivery day");
    assert_eq!(arrival(quote_of(&saturday, "parcel_next_day_air")), (1, "2026-11-24", true));
}

#[test]
fn international_services_arrive_by_country_group() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let result = h.quote_one(&id, with(intl_shipment(), "/shipmentDate", json!(WEDNESDAY)));
    // Western Europe: express 2 days (Friday, Monday), economy 5
    assert_eq!(arrival(quote_of(&result, "intlexpress_express_worldwide")), (2, "2026-11-30", true));
    assert_eq!(arrival(quote_of(&result, "intlexpress_economy_select")), (5, "2026-12-03", false));
}

/// A batch quote of the 2nd Day Air shipment of Wednesday with `deliverBy`.
fn two_day_by(h: &Harness, id: &str, by: &str) -> Value {
    let s = with(with(shipment(WEDNESDAY), "/serviceCode", json!("parcel_2nd_day_air")), "/packageTypeCode", json!("parcel_custom"));
    h.quote_one(id, with(s, "/deliverBy", json!(by)))
}

#[test]
fn deliver_by_keeps_a_service_arriving_on_that_day_or_before() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    for by in ["2026-11-30", "2026-12-01"] {
        let result = two_day_by(&h, &id, by);
        assert_eq!(result["quotes"].as_array().unwrap().len(), 1, "{by}: {result}");
        assert_eq!(result["quoteErrors"], json!([]), "{by}");
    }
}

#[test]
fn deliver_by_reports_a_service_arriving_later_with_the_date_it_would_arrive() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let result = two_day_by(&h, &id, "2026-11-29");
    assert_eq!(result["status"], "success");
    assert_eq!(result["quotes"], json!([]));
    let errors = result["quoteErrors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{result}");
    let e = &errors[0];
    assert_eq!(e["errorCategory"], "DELIVERY_DATE_NOT_MET");
    assert_eq!(e["serviceCode"], "parcel_2nd_day_air");
    assert_eq!(e["packageTypeCode"], "parcel_custom");
    assert_eq!(e["estimatedDeliveryDate"], "2026-11-30");
    assert!(e["error"].as_str().unwrap().contains("2026-11-30"), "{e}");
}

#[test]
fn deliver_by_over_every_service_keeps_what_arrives_in_time() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let all = h.quote_one(&id, shipment(WEDNESDAY));
    let by = "2026-11-27";
    let result = h.quote_one(&id, with(shipment(WEDNESDAY), "/deliverBy", json!(by)));
    let kept: Vec<&str> = result["quotes"].as_array().unwrap().iter().map(|q| q["estimatedDeliveryDate"].as_str().unwrap()).collect();
    assert!(!kept.is_empty() && kept.iter().all(|d| *d <= by), "{kept:?}");
    let late = quote_errors_of(&result, "parcel")
        .into_iter()
        .chain(quote_errors_of(&result, "postal"))
        .chain(quote_errors_of(&result, "expressground"));
    let late: Vec<&Value> = late.filter(|e| e["errorCategory"] == "DELIVERY_DATE_NOT_MET").collect();
    assert!(late.iter().all(|e| e["estimatedDeliveryDate"].as_str().unwrap() > by), "{late:?}");
    // every quote of the plain answer is either kept or reported late
    let before = all["quotes"].as_array().unwrap().len();
    let late_all = result["quoteErrors"].as_array().unwrap().iter().filter(|e| e["errorCategory"] == "DELIVERY_DATE_NOT_MET").count();
    assert_eq!(kept.len() + late_all, before);
}

#[test]
fn deliver_by_must_be_a_date_not_before_the_shipment_date() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    for by in ["30/11/2026", "2026-11-31", "soon"] {
        let result = h.quote_one(&id, with(shipment(WEDNESDAY), "/deliverBy", json!(by)));
        assert_shipment_error(&result, "INVALID_REQUEST", "shipments[0].deliverBy");
    }
    let result = h.quote_one(&id, with(shipment(WEDNESDAY), "/deliverBy", json!("2026-11-24")));
    assert_shipment_error(&result, "INVALID_REQUEST", "shipments[0].deliverBy");
}

#[test]
fn the_single_quote_of_a_named_service_that_arrives_too_late_names_deliver_by() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let s = with(with(shipment(WEDNESDAY), "/serviceCode", json!("parcel_2nd_day_air")), "/packageTypeCode", json!("parcel_custom"));
    let s = with(with(s, "/carrierCode", json!("parcel")), "/deliverBy", json!("2026-11-27"));
    let path = Harness::path(&id, "/quote");
    h.call("POST", &path, &s).assert_error(400, "DELIVERY_DATE_NOT_MET", Some("deliverBy"));
    let one = h.call("POST", &path, &with(s, "/deliverBy", json!("2026-11-30"))).expect(200).clone();
    assert_eq!(arrival(&one), (2, "2026-11-30", true));
}

#[test]
fn bookings_retrieve_and_search_carry_the_estimated_delivery_date() {
    let h = Harness::new();
    let id = h.shipper("ann@example.com");
    let body = with(book_body_for("parcel", "parcel_2nd_day_air", "parcel_custom"), "/shipmentDate", json!(WEDNESDAY));
    let booked = h.book_with(&id, &body).expect(201).clone();
    assert_eq!(booked["estimatedDeliveryDate"], "2026-11-30");
    let book = booked["bookNumber"].as_str().unwrap();
    let view = h.get(&Harness::path(&id, &format!("/shipments/{book}"))).expect(200).clone();
    assert_eq!(view["estimatedDeliveryDate"], "2026-11-30");
    let found = h.search(&id, book).expect(200).clone();
    assert_eq!(found["shipments"][0]["estimatedDeliveryDate"], "2026-11-30");
}

#[test]
fn the_default_transit_data_exports_as_embedded_and_round_trips() {
    let h = Harness::new();
    for kind in [CsvKind::Transit, CsvKind::Calendars] {
        let exported = h.shipping.export_rates(kind).unwrap();
        assert_eq!(exported, kind.default_csv(), "{}", kind.as_str());
        h.shipping.import_rates(kind, &exported).unwrap();
        assert_eq!(h.shipping.export_rates(kind).unwrap(), exported);
    }
}

#[test]
fn an_imported_calendar_and_transit_table_move_the_dates_at_once() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    // the parcel carrier also closes the day after Thanksgiving
    let calendars = h.shipping.export_rates(CsvKind::Calendars).unwrap();
    let parcel: String = calendars.lines().filter(|l| l.starts_with("parcel,")).map(|l| format!("{l}\n")).collect();
    let csv = format!("carrier,service,key,value\n{parcel}parcel,*,holiday,2026-11-27\n");
    let summary = h.shipping.import_rates(CsvKind::Calendars, &csv).unwrap();
    assert_eq!((summary.rows, summary.replaced), (4, 1));
    assert_eq!(arrival(&two_day_by(&h, &id, "2026-12-31")["quotes"][0]), (2, "2026-12-01", true));
    // exported as imported
    let exported = h.shipping.export_rates(CsvKind::Calendars).unwrap();
    assert!(exported.contains("parcel,*,holiday,2026-11-27\n"), "{exported}");
    h.shipping.import_rates(CsvKind::Calendars, &exported).unwrap();
    assert_eq!(h.shipping.export_rates(CsvKind::Calendars).unwrap(), exported);
    // 2nd Day Air becomes a three-day service, and no longer guaranteed
    let transit = "carrier,service,zone,days,guaranteed\nparcel,parcel_2nd_day_air,*,3,false\n";
    h.shipping.import_rates(CsvKind::Transit, transit).unwrap();
    assert_eq!(arrival(&two_day_by(&h, &id, "2026-12-31")["quotes"][0]), (3, "2026-12-02", false));
}

#[test]
fn a_service_without_transit_rows_quotes_without_a_date() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    // only zone 1 is listed: zone 8 has no row and no `*`
    h.shipping.import_rates(CsvKind::Transit, "carrier,service,zone,days,guaranteed\nparcel,parcel_2nd_day_air,1,1,true\n").unwrap();
    let q = two_day_by(&h, &id, "2026-12-31");
    let late = &q["quoteErrors"][0];
    assert_eq!(late["errorCategory"], "DELIVERY_DATE_NOT_MET", "no date cannot promise a deadline: {q}");
    assert!(late.get("estimatedDeliveryDate").is_none());
    let s = with(with(shipment(WEDNESDAY), "/serviceCode", json!("parcel_2nd_day_air")), "/packageTypeCode", json!("parcel_custom"));
    let plain = &h.quote_one(&id, s)["quotes"][0];
    assert_eq!((plain["transitDays"].clone(), plain["estimatedDeliveryDate"].clone()), (Value::Null, Value::Null), "{plain}");
    assert_eq!(plain["deliveryDateGuaranteed"], false);
}

#[test]
fn invalid_transit_and_calendar_rows_are_named_by_line_and_nothing_changes() {
    let h = Harness::new();
    let before = (h.shipping.export_rates(CsvKind::Transit).unwrap(), h.shipping.export_rates(CsvKind::Calendars).unwrap());
    let transit = "carrier,service,zone,days,guaranteed\n\
                   parcel,parcel_ground,1,1,false\n\
                   parcel,parcel_ground,2,two,false\n\
                   parcel,parcel_ground,3,99,false\n\
                   parcel,parcel_ground,4,1,yes\n\
                   parcel,parcel_ground,1,2,false\n";
    let e = h.shipping.import_rates(CsvKind::Transit, transit).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    let found: Vec<(&str, &str)> = e.details().iter().map(|d| (d.field.as_str(), d.message.split(':').next().unwrap())).collect();
    assert_eq!(found, [("line 3", "days"), ("line 4", "days"), ("line 5", "guaranteed"), ("line 6", "duplicate row")]);
    let calendars = "carrier,service,key,value\n\
                     parcel,*,pickup_days,mon tue\n\
                     parcel,*,delivery_days,mon funday\n\
                     parcel,*,opening_hours,9-5\n\
                     parcel,parcel_ground,holidays,christmas\n\
                     parcel,*,holiday,2026-02-30\n\
                     parcel,*,holidays,christmas easter\n";
    let e = h.shipping.import_rates(CsvKind::Calendars, calendars).unwrap_err();
    let found: Vec<(&str, &str)> = e.details().iter().map(|d| (d.field.as_str(), d.message.split(':').next().unwrap())).collect();
    assert_eq!(found, [("line 3", "value"), ("line 4", "key"), ("line 5", "service"), ("line 6", "value"), ("line 7", "value")]);
    // a service or carrier the data does not have
    let e =
        h.shipping.import_rates(CsvKind::Transit, "carrier,service,zone,days,guaranteed\nparcel,parcel_teleport,*,0,true\n").unwrap_err();
    assert!(e.details().iter().any(|d| d.message.contains("parcel/parcel_teleport")), "{e:?}");
    let e = h.shipping.import_rates(CsvKind::Calendars, "carrier,service,key,value\nowl,*,pickup_days,mon\n").unwrap_err();
    assert!(e.message().contains("owl"), "{e:?}");
    assert_eq!((h.shipping.export_rates(CsvKind::Transit).unwrap(), h.shipping.export_rates(CsvKind::Calendars).unwrap()), before);
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// The days each carrier (or service) of the default calendars delivers, and the
    /// holidays of the weeks the property ships in (Thanksgiving to New Year's Day).
    fn delivers(carrier: &str, service: &str, weekday: chrono::Weekday, saturday_asked: bool) -> bool {
        use chrono::Weekday::*;
        let saturday = matches!(carrier, "postal" | "ecommerce") || service == "expressground_home_delivery" || saturday_asked;
        match weekday {
            Sun => false,
            Sat => saturday,
            Mon => service != "expressground_home_delivery",
            _ => true,
        }
    }

    const HOLIDAYS: [&str; 3] = ["2026-11-26", "2026-12-25", "2027-01-01"];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Whatever the shipment date and options: every quote's estimate is after the
        /// shipment date, on a day its carrier delivers, never on a holiday, and
        /// `transitDays` delivery days after its pickup.
        #[test]
        fn an_estimate_is_never_before_the_shipment_date_nor_on_a_day_without_delivery(
            offset in 0i64..45,
            saturday in any::<bool>(),
            residential in any::<bool>(),
        ) {
            let h = Harness::new();
            let id = h.create_customer("ann@example.com");
            let ship = days_ahead(offset);
            let s = with(with(shipment(&ship), "/saturdayDelivery", json!(saturday)), "/residential", json!(residential));
            let result = h.quote_one(&id, s);
            for q in result["quotes"].as_array().into_iter().flatten() {
                let (days, date, _) = arrival(q);
                let (carrier, service) = (q["carrierCode"].as_str().unwrap(), q["serviceCode"].as_str().unwrap());
                let arrives = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap();
                prop_assert!(date > ship.as_str() && days > 0, "{service}: {date} for {ship}");
                prop_assert!(!HOLIDAYS.contains(&date), "{service} arrives on the holiday {date}");
                prop_assert!(delivers(carrier, service, chrono::Datelike::weekday(&arrives), saturday),
                    "{service} does not deliver on {date} ({:?})", chrono::Datelike::weekday(&arrives));
            }
        }
    }
}
