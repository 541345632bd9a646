//! Tests of the rating module: hand-computed prices per carrier, zones, properties,
//! CSV import/export and coverage of the catalog.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::OnceLock;

use proptest::prelude::*;
use rusqlite::Connection;
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

use super::*;
use crate::money::round_cents;
use rust_decimal::prelude::ToPrimitive;

fn book() -> &'static RateBook {
    static B: OnceLock<RateBook> = OnceLock::new();
    B.get_or_init(|| RateBook::default_book().expect("default book builds"))
}

fn us(zip: &str) -> Place<'_> {
    Place { country: "US", state: "", zip: Some(zip) }
}

fn abroad(country: &str) -> Place<'_> {
    Place { country, state: "", zip: None }
}

fn input<'a>(s: Place<'a>, r: Place<'a>, unit: WeightUnit, pieces: &'a [PieceInput]) -> RateInput<'a> {
    RateInput {
        sender: s,
        receiver: r,
        residential: false,
        weight_unit: unit,
        dim_unit: if unit == WeightUnit::Kg { DimUnit::Cm } else { DimUnit::In },
        pieces,
        signature_option: None,
        saturday_delivery: false,
        am_delivery: false,
        dangerous_goods: false,
        currency: Currency::Usd,
        markup_percent: Decimal::ZERO,
    }
}

fn piece(w: Decimal) -> PieceInput {
    PieceInput { weight: w, dims: None, insurance: None }
}

fn rate(c: &str, s: &str, p: &str, i: &RateInput<'_>) -> Result<Rate, RateError> {
    let b = book();
    let id = b.card(c, s, p).unwrap_or_else(|| panic!("no card {c}/{s}/{p}"));
    b.rate(id, i)
}

fn lines(r: &Rate) -> Vec<(&'static str, Decimal)> {
    r.surcharges.iter().map(|s| (s.kind.description(), s.amount)).collect()
}

// ------------------------------------------------------------ hand-computed prices

#[test]
fn parcel_ground_new_york_to_los_angeles() {
    let p = [PieceInput { weight: dec!(1.2), dims: Some([dec!(10), dec!(8), dec!(6)]), insurance: Some(dec!(250)) }];
    let mut i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    i.residential = true;
    i.signature_option = Some("parcel_signature");
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    // zone 8 (2451 mi). actual 1.2 lb -> 2 lb; dim 10*8*6 = 480 / 139 = 3.45 -> 4 lb
    // wins: Dimensional, 4 lb. base = zone 8, 4 lb = 14.90 + 3 * 1.80 = 20.30
    assert_eq!(r.zone.as_str(), "8");
    assert_eq!(r.quoted_weight, dec!(4));
    assert_eq!(r.weight_type, WeightType::Dimensional);
    assert_eq!(r.base, dec!(20.30));
    // residential 5.95; fuel 18.5 % of (20.30 + 5.95) = 4.85625 -> 4.86;
    // signature 6.90; insurance ceil(250/100) = 3 * 1.25 = 3.75 < minimum 4.15
    assert_eq!(
        lines(&r),
        vec![("Residential delivery", dec!(5.95)), ("Fuel surcharge", dec!(4.86)), ("Signature", dec!(6.90)), ("Insurance", dec!(4.15)),]
    );
    // 20.30 + 5.95 + 4.86 + 6.90 + 4.15
    assert_eq!(r.total, dec!(42.16));
}

#[test]
fn postal_express_to_american_samoa_zone_9_with_am_delivery() {
    let p = [piece(dec!(40))]; // 40 oz = 2.5 lb -> 3 lb
    let mut i = input(us("10001"), Place { country: "AS", state: "AS", zip: Some("96799") }, WeightUnit::Oz, &p);
    i.am_delivery = true;
    let r = rate("postal", "postal_priority_mail_express", "postal_custom", &i).unwrap();
    // territory rules: zone 9. zone 9 = zone 8 * 1.15: first lb 45.90 * 1.15 = 52.785,
    // per lb 6.10 * 1.15 = 7.015; 3 lb = 52.785 + 2 * 7.015 = 66.815 -> 66.82 (data)
    assert_eq!(r.zone.as_str(), "9");
    assert_eq!(r.quoted_weight, dec!(3));
    assert_eq!(r.base, dec!(66.82));
    // AM delivery 5.00; the postal carrier has no fuel surcharge
    assert_eq!(lines(&r), vec![("AM delivery", dec!(5.00))]);
    assert_eq!(r.total, dec!(71.82));
}

#[test]
fn postal_flat_rate_envelope_markup_and_pounds_sterling() {
    let p = [piece(dec!(9))];
    let mut i = input(us("10001"), us("99501"), WeightUnit::Lb, &p);
    i.currency = Currency::Gbp;
    i.markup_percent = dec!(15);
    let r = rate("postal", "postal_priority_mail", "postal_flat_rate_envelope", &i).unwrap();
    // flat 10.40 whatever the zone and weight; * 1.15 markup * 0.76 GBP/USD = 9.0896 -> 9.09
    assert_eq!(r.zone.as_str(), "8");
    assert_eq!(r.base, dec!(9.09));
    assert_eq!(r.total, dec!(9.09));
    assert_eq!(r.currency, Currency::Gbp);
    // over the 70 lb maximum: not priced
    let p = [piece(dec!(71))];
    let i = input(us("10001"), us("99501"), WeightUnit::Lb, &p);
    let e = rate("postal", "postal_priority_mail", "postal_flat_rate_envelope", &i).unwrap_err();
    assert!(matches!(e, RateError::WeightNotPriced { .. }), "{e}");
}

#[test]
fn intlexpress_30_kg_to_great_britain() {
    let p = [PieceInput { weight: dec!(29.7), dims: Some([dec!(50), dec!(40), dec!(30)]), insurance: None }];
    let i = input(us("10001"), abroad("GB"), WeightUnit::Kg, &p);
    let r = rate("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", &i).unwrap();
    // zone E (Western Europe). 29.7 kg -> 30 kg in 0.5 kg steps; dim 50*40*30/5000 = 12 kg
    // base = 79.00 + 59 half-kilos * 11.20 = 739.80
    assert_eq!(r.zone.as_str(), "E");
    assert_eq!((r.quoted_weight, r.quoted_weight_unit, r.weight_type), (dec!(30), WeightUnit::Kg, WeightType::Actual));
    assert_eq!(r.base, dec!(739.80));
    // fuel 24.5 % of 739.80 = 181.251 -> 181.25
    assert_eq!(lines(&r), vec![("Fuel surcharge", dec!(181.25))]);
    assert_eq!(r.total, dec!(921.05));

    // beyond the last break (30 kg): 35 kg = 739.80 + 5 kg * 22.40 = 851.80
    let p = [piece(dec!(35))];
    let i = input(us("10001"), abroad("GB"), WeightUnit::Kg, &p);
    let r = rate("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", &i).unwrap();
    assert_eq!(r.base, dec!(851.80));
}

#[test]
fn expressground_standard_overnight_envelope() {
    let p = [piece(dec!(0.5))];
    let i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    let r = rate("expressground", "expressground_standard_overnight", "expressground_envelope", &i).unwrap();
    // envelope zone 8, 1 lb: 84.00 * 0.92 = 77.28; fuel 20.75 % = 16.0356 -> 16.04
    assert_eq!(r.base, dec!(77.28));
    assert_eq!(lines(&r), vec![("Fuel surcharge", dec!(16.04))]);
    assert_eq!(r.total, dec!(93.32));
    // Saturday delivery is not offered by Standard Overnight
    let mut i = i;
    i.saturday_delivery = true;
    let e = rate("expressground", "expressground_standard_overnight", "expressground_envelope", &i).unwrap_err();
    assert_eq!(e.to_string(), "Saturday delivery is not offered by this service; remove it from the shipment");
}

#[test]
fn ecommerce_ground_with_dangerous_goods() {
    let p = [piece(dec!(2.01))];
    let mut i = input(us("10001"), us("19103"), WeightUnit::Lb, &p);
    i.dangerous_goods = true;
    let r = rate("ecommerce", "ecommerce_parcel_ground", "ecommerce_custom", &i).unwrap();
    // zone 2 (82 mi); 2.01 lb -> 3 lb: 6.59; dangerous goods 12.00;
    // fuel 9.5 % of (6.59 + 12.00) = 1.76605 -> 1.77
    assert_eq!(r.zone.as_str(), "2");
    assert_eq!(r.base, dec!(6.59));
    assert_eq!(lines(&r), vec![("Dangerous goods", dec!(12.00)), ("Fuel surcharge", dec!(1.77))]);
    assert_eq!(r.total, dec!(20.36));
}

#[test]
fn additional_handling_and_oversize() {
    // 60 lb, 50 x 20 x 10 in: handling (weight > 50: 31.45, length > 48: 26.00) -> 31.45
    let p = [PieceInput { weight: dec!(60), dims: Some([dec!(20), dec!(50), dec!(10)]), insurance: None }];
    let i = input(us("10001"), us("10001"), WeightUnit::Lb, &p);
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    assert!(lines(&r).contains(&("Additional handling", dec!(31.45))), "{:?}", lines(&r));
    // 100 x 20 x 10: length + girth 160 > 130: oversize 235.00 replaces handling
    let p = [PieceInput { weight: dec!(60), dims: Some([dec!(100), dec!(20), dec!(10)]), insurance: None }];
    let i = input(us("10001"), us("10001"), WeightUnit::Lb, &p);
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    let l = lines(&r);
    assert!(l.contains(&("Oversize", dec!(235.00))), "{l:?}");
    assert!(!l.iter().any(|x| x.0 == "Additional handling"), "{l:?}");
}

/// Metric pieces meet a pound-and-inch carrier's limits exactly: 121.92 cm is 48 in and
/// 22.6796185 kg is 50 lb, so neither is over; a hair more is.
#[test]
fn metric_pieces_meet_inch_and_pound_thresholds_exactly() {
    let quote = |kg: Decimal, long_cm: Decimal| {
        let p = [PieceInput { weight: kg, dims: Some([dec!(10), long_cm, dec!(10)]), insurance: None }];
        let r = rate("parcel", "parcel_ground", "parcel_custom", &input(us("10001"), us("60601"), WeightUnit::Kg, &p)).unwrap();
        (lines(&r).into_iter().find(|l| l.0 == "Additional handling").map(|l| l.1), r.quoted_weight, r.weight_type)
    };
    assert_eq!(quote(dec!(2), dec!(121.92)).0, None);
    assert_eq!(quote(dec!(2), dec!(121.93)).0, Some(dec!(26.00)));
    let (handling, weight, kind) = quote(dec!(22.6796185), dec!(20));
    assert_eq!((handling, weight, kind), (None, dec!(50), WeightType::Actual));
    let (handling, weight, _) = quote(dec!(22.6796186), dec!(20));
    assert_eq!((handling, weight), (Some(dec!(31.45)), dec!(51)));
    // 10 x 10 x 353.06 cm is 3.937... x 3.937... x 139 in: 2,154.5 in^3, 15.5 lb at 139 in^3/lb
    let (_, weight, kind) = quote(dec!(1), dec!(353.06));
    assert_eq!((weight, kind), (dec!(16), WeightType::Dimensional));
}

#[test]
fn delivery_area_by_zip3_and_zip5() {
    let p = [piece(dec!(1))];
    let i = input(us("10001"), us("59001"), WeightUnit::Lb, &p); // Montana
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    assert_eq!(lines(&r)[0], ("Delivery area", dec!(4.45)));
    let i = input(us("10001"), us("06390"), WeightUnit::Lb, &p); // Fishers Island
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    assert_eq!(lines(&r)[0], ("Delivery area", dec!(15.00)));
}

#[test]
fn multi_piece_sums_pieces_and_minimum_applies() {
    let p = [piece(dec!(1)), piece(dec!(2.5))];
    let i = input(us("10001"), us("19103"), WeightUnit::Lb, &p);
    let r = rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap();
    let one = rate("parcel", "parcel_ground", "parcel_custom", &input(us("10001"), us("19103"), WeightUnit::Lb, &p[..1])).unwrap();
    let two = rate("parcel", "parcel_ground", "parcel_custom", &input(us("10001"), us("19103"), WeightUnit::Lb, &p[1..])).unwrap();
    assert_eq!(r.base, one.base + two.base);
    assert_eq!(r.quoted_weight, dec!(4));
}

// ------------------------------------------------------------ zones

fn zone_of(c: &str, s: &str, p: &str, from: Place<'_>, to: Place<'_>) -> Result<String, RateError> {
    let pieces = [piece(dec!(1))];
    let unit = if c == "intlexpress" { WeightUnit::Kg } else { WeightUnit::Lb };
    rate(c, s, p, &input(from, to, unit, &pieces)).map(|r| r.zone.as_str().to_owned())
}

fn ground(a: &str, b: &str) -> String {
    zone_of("parcel", "parcel_ground", "parcel_custom", us(a), us(b)).unwrap()
}

#[test]
fn zone_sanity_pairs() {
    assert_eq!(ground("10001", "90001"), "8");
    assert_eq!(ground("10001", "19103"), "2");
    assert_eq!(ground("60601", "46301"), "1");
    assert_eq!(ground("98101", "33101"), "8");
    assert_eq!(ground("96701", "10001"), "8");
    assert_eq!(ground("02101", "10001"), "3");
    assert_eq!(ground("30301", "60601"), "4");
    assert_eq!(ground("75001", "77001"), "3");
    assert_eq!(ground("94101", "90001"), "4");
    assert_eq!(ground("10001-1234", "00901"), "7"); // ZIP+4, San Juan PR
}

#[test]
fn military_and_territory_zones() {
    // military AE via the New York gateway; under postal territory rules zone 9
    assert_eq!(ground("10001", "09001"), "1");
    assert_eq!(ground("33101", "34001"), "1"); // AA via Miami
    let pm = |a: Place<'static>, b: Place<'static>| zone_of("postal", "postal_priority_mail", "postal_custom", a, b);
    assert_eq!(pm(us("10001"), us("09001")).unwrap(), "9");
    assert_eq!(pm(us("10001"), us("96601")).unwrap(), "9");
    // Guam (969) to Saipan (96950, MP): different territories -> 9; Guam to Guam by distance
    let gu = Place { country: "GU", state: "GU", zip: Some("96910") };
    let mp = Place { country: "MP", state: "MP", zip: Some("96950") };
    assert_eq!(pm(gu, mp).unwrap(), "9");
    assert_eq!(pm(gu, Place { zip: Some("96913"), ..gu }).unwrap(), "1");
    // without territory rules (ecommerce uses them too; parcel does not): Guam-Saipan by distance
    assert_eq!(ground("96910", "96950"), "2");
    assert_eq!(ground("10001", "96799"), "8"); // American Samoa
                                               // Virgin Islands: zone 9 for the postal carrier
    assert_eq!(pm(us("10001"), Place { country: "VI", state: "VI", zip: Some("00802") }).unwrap(), "9");
    // unknown prefix and malformed ZIP are errors, not panics
    let e = zone_of("parcel", "parcel_ground", "parcel_custom", us("10001"), us("00001")).unwrap_err();
    assert_eq!(e.to_string(), "receiver.zip: ZIP prefix 000 is not in use; check the ZIP code");
    assert!(matches!(
        zone_of("parcel", "parcel_ground", "parcel_custom", us("1x001"), us("10001")),
        Err(RateError::InvalidZip { end: End::Sender, .. })
    ));
    assert!(matches!(
        zone_of("parcel", "parcel_ground", "parcel_custom", Place { zip: None, ..us("") }, us("10001")),
        Err(RateError::ZipRequired { end: End::Sender })
    ));
}

#[test]
fn canada_international_and_inbound_zones() {
    let ca = Place { country: "CA", state: "ON", zip: Some("M5V 2T6") };
    assert_eq!(zone_of("expressground", "expressground_ground", "expressground_custom", us("10001"), ca).unwrap(), "CA");
    assert_eq!(zone_of("parcel", "parcel_standard", "parcel_custom", us("10001"), abroad("MX")).unwrap(), "MX");
    assert_eq!(zone_of("parcel", "parcel_worldwide_express", "parcel_custom", us("10001"), abroad("DE")).unwrap(), "EUR1");
    assert_eq!(zone_of("parcel", "parcel_worldwide_express", "parcel_custom", us("10001"), abroad("PL")).unwrap(), "EUR2");
    assert_eq!(zone_of("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", us("10001"), abroad("JP")).unwrap(), "G");
    assert_eq!(zone_of("postal", "postal_priority_mail_international", "postal_custom", us("10001"), ca).unwrap(), "1");
    // inbound: zoned by the sender's country
    let imp = |from: Place<'static>, to: Place<'static>| {
        zone_of("intlexpress", "intlexpress_express_worldwide_import", "intlexpress_custom", from, to)
    };
    assert_eq!(imp(abroad("GB"), us("10001")).unwrap(), "E");
    assert_eq!(imp(abroad("ZA"), us("10001")).unwrap(), "J");
    assert!(matches!(imp(us("10001"), abroad("GB")), Err(RateError::RouteNotPriced { .. })));
    // outbound charts are from the US: a foreign sender is not priced
    let e = zone_of("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", abroad("FR"), abroad("GB")).unwrap_err();
    assert!(e.to_string().starts_with("route not priced"), "{e}");
    // Antarctica is in no group
    assert!(zone_of("parcel", "parcel_worldwide_express", "parcel_custom", us("10001"), abroad("AQ")).is_err());
}

// ------------------------------------------------------------ catalog coverage

#[test]
fn every_catalog_service_and_package_type_has_a_card_and_a_realistic_price() {
    let cat: serde_json::Value = serde_json::from_str(include_str!("../../../data/catalog.json")).unwrap();
    let services = cat["services"].as_array().unwrap();
    let mut n = 0;
    for s in services {
        let carrier = s["carrier"].as_str().unwrap();
        let code = s["code"].as_str().unwrap();
        let inbound = s["inbound"].as_bool().unwrap();
        let supported: Vec<&str> =
            s["supportedCountries"].as_array().map(|a| a.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
        let (from, to) = if inbound {
            (abroad("GB"), us("10001"))
        } else if supported.contains(&"US") {
            (us("10001"), us("90001"))
        } else if supported.is_empty() || supported.contains(&"GB") {
            (us("10001"), abroad("GB"))
        } else {
            (us("10001"), abroad(supported[0]))
        };
        for p in s["packageTypes"].as_array().unwrap() {
            let pt = p["packageType"].as_str().unwrap();
            let id = book().card(carrier, code, pt).unwrap_or_else(|| panic!("no card for {code}/{pt}"));
            let unit = if carrier == "intlexpress" { WeightUnit::Kg } else { WeightUnit::Lb };
            let pieces = [piece(dec!(0.5))];
            let r = book().rate(id, &input(from, to, unit, &pieces)).unwrap_or_else(|e| panic!("{code}/{pt}: {e}"));
            assert!(r.total >= dec!(3) && r.total <= dec!(250), "{code}/{pt}: {}", r.total);
            n += 1;
        }
    }
    assert_eq!(n, book().cards().count(), "a card for every pair and no others");
}

#[test]
fn realistic_magnitudes() {
    let p = [piece(dec!(2))];
    let i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    for (c, s, pt) in [("parcel", "parcel_ground", "parcel_custom"), ("expressground", "expressground_ground", "expressground_custom")] {
        let t = rate(c, s, pt, &i).unwrap().total;
        assert!(t >= dec!(15) && t <= dec!(20), "2 lb ground zone 8: {t}");
    }
    let p = [piece(dec!(0.5))];
    let i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    for (c, s, pt) in [
        ("parcel", "parcel_next_day_air", "parcel_letter"),
        ("expressground", "expressground_standard_overnight", "expressground_envelope"),
        ("expressground", "expressground_priority_overnight", "expressground_envelope"),
    ] {
        let t = rate(c, s, pt, &i).unwrap().total;
        assert!(t >= dec!(60) && t <= dec!(100), "overnight envelope: {t}");
    }
    let p = [piece(dec!(30))];
    for to in ["CA", "GB", "JP", "BR", "ZA"] {
        let i = input(us("10001"), abroad(to), WeightUnit::Kg, &p);
        let t = rate("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", &i).unwrap().total;
        assert!(t >= dec!(300) && t <= dec!(1500), "30 kg to {to}: {t}");
    }
}

#[test]
fn convert_uses_the_exchange_table() {
    let b = book();
    assert_eq!(b.convert(dec!(100), Currency::Usd, Currency::Cad), dec!(139.00));
    assert_eq!(b.convert(dec!(100), Currency::Eur, Currency::Eur), dec!(100));
    let back = b.convert(b.convert(dec!(100), Currency::Gbp, Currency::Eur), Currency::Eur, Currency::Gbp);
    assert_eq!(back.round_dp(10), dec!(100));
}

// ------------------------------------------------------------ CSV and SQLite

fn seeded() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    crate::store::configure(&conn).unwrap();
    crate::store::migrate(&mut conn).unwrap();
    let tx = conn.transaction().unwrap();
    seed_defaults(&crate::store::Tx::of(&tx)).unwrap();
    tx.commit().unwrap();
    conn
}

#[test]
fn export_of_seeded_defaults_is_byte_identical() {
    let conn = seeded();
    for kind in CsvKind::ALL {
        assert!(export_csv(&crate::store::Read::of(&conn), kind).unwrap() == kind.default_csv(), "{}", kind.as_str());
    }
    // and the book loaded from SQL prices like the embedded one
    let loaded = RateBook::load(&crate::store::Read::of(&conn)).unwrap();
    let p = [piece(dec!(2))];
    let i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    let id = loaded.card("parcel", "parcel_ground", "parcel_custom").unwrap();
    assert_eq!(loaded.rate(id, &i).unwrap(), rate("parcel", "parcel_ground", "parcel_custom", &i).unwrap());
}

#[test]
fn import_replaces_named_cards_and_round_trips() {
    let mut conn = seeded();
    let csv = "carrier,service,package_type,chart,zone,weight,price\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,10,50.00\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,\"5\",30.5\n";
    let tx = conn.transaction().unwrap();
    let s = import_csv(&crate::store::Tx::of(&tx), CsvKind::Rates, csv).unwrap();
    tx.commit().unwrap();
    assert_eq!((s.rows, s.replaced), (2, 1));
    let b = RateBook::load(&crate::store::Read::of(&conn)).unwrap();
    let p = [piece(dec!(4))];
    let i = input(us("10001"), us("90001"), WeightUnit::Lb, &p);
    let r = b.rate(b.card("parcel", "parcel_ground", "parcel_custom").unwrap(), &i).unwrap();
    assert_eq!(r.base, dec!(30.50));
    let i2 = input(us("10001"), us("19103"), WeightUnit::Lb, &p);
    assert!(matches!(b.rate(b.card("parcel", "parcel_ground", "parcel_custom").unwrap(), &i2), Err(RateError::ZoneNotPriced(_))));
    // other cards untouched
    assert!(b.card("parcel", "parcel_next_day_air", "parcel_custom").is_some());
    // a quoted field round-trips through export and re-import
    let rates = export_csv(&crate::store::Read::of(&conn), CsvKind::Rates).unwrap();
    let tx = conn.transaction().unwrap();
    import_csv(&crate::store::Tx::of(&tx), CsvKind::Rates, &rates).unwrap();
    tx.commit().unwrap();
    assert_eq!(export_csv(&crate::store::Read::of(&conn), CsvKind::Rates).unwrap(), rates);
}

#[test]
fn import_errors_name_every_bad_line_and_write_nothing() {
    let mut conn = seeded();
    let csv = "carrier,service,package_type,chart,zone,weight,price\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,10,50.00\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,ten,50.00\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,11,50.00\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,zone 8,12,-1\n\
               parcel,parcel_ground\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,8,10,50.00\n";
    let tx = conn.transaction().unwrap();
    let e = import_csv(&crate::store::Tx::of(&tx), CsvKind::Rates, csv).unwrap_err();
    let ImportError::Rows(rows) = &e else { panic!("{e}") };
    let lines: Vec<usize> = rows.iter().map(|r| r.line).collect();
    assert_eq!(lines, vec![3, 5, 5, 6, 7]);
    assert!(rows[0].message.starts_with("weight: expected a decimal number above 0"), "{}", rows[0].message);
    assert!(e.to_string().contains("line 7: duplicate row"), "{e}");
    drop(tx); // rolled back
    assert_eq!(export_csv(&crate::store::Read::of(&conn), CsvKind::Rates).unwrap(), CsvKind::Rates.default_csv());

    // consistent rows, inconsistent data: a card on a chart that does not exist
    let tx = conn.transaction().unwrap();
    let e = import_csv(
        &crate::store::Tx::of(&tx),
        CsvKind::Rates,
        "carrier,service,package_type,chart,zone,weight,price\nparcel,x,y,nope,1,1,1\n",
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::Inconsistent(_)), "{e}");
    tx.rollback().unwrap();
    assert_eq!(export_csv(&crate::store::Read::of(&conn), CsvKind::Rates).unwrap(), CsvKind::Rates.default_csv());

    // wrong header
    let tx = conn.transaction().unwrap();
    let e = import_csv(&crate::store::Tx::of(&tx), CsvKind::Zones, "chart,country,zone\n").unwrap_err();
    assert!(e.to_string().contains("line 1: header"), "{e}");
}

#[test]
fn import_errors_count_lines_across_crlf_blank_lines_and_quoted_breaks() {
    let mut conn = seeded();
    let tx = conn.transaction().unwrap();
    // line 1 header (CRLF), 2 empty, 3 bad, 4-5 one record with a quoted line break, 6 bad
    let csv = "\u{feff}chart,basis,country,zone\r\n\r\nc1,receiver,us,1\r\n\"c2\nx\",receiver,US,1\nc3,sideways,US,1\n";
    let ImportError::Rows(rows) = import_csv(&crate::store::Tx::of(&tx), CsvKind::Zones, csv).unwrap_err() else {
        panic!("row errors expected")
    };
    let lines: Vec<(usize, &str)> = rows.iter().map(|r| (r.line, r.message.split(':').next().unwrap_or(""))).collect();
    assert_eq!(lines, vec![(3, "country"), (4, "chart"), (6, "basis")]);
    let e =
        import_csv(&crate::store::Tx::of(&tx), CsvKind::Zones, "chart,basis,country,zone\nc1,receiver,US,1\n\"c2,receiver\n").unwrap_err();
    assert_eq!(e.to_string(), "1 invalid row(s): line 3: a quoted field is not closed");
}

#[test]
fn an_inconsistent_import_keeps_the_book_error_as_its_source() {
    let mut conn = seeded();
    let tx = conn.transaction().unwrap();
    let e = import_csv(
        &crate::store::Tx::of(&tx),
        CsvKind::Rates,
        "carrier,service,package_type,chart,zone,weight,price\nparcel,x,y,nope,1,1,1\n",
    )
    .unwrap_err();
    let source = std::error::Error::source(&e).map(ToString::to_string);
    assert_eq!(source.as_deref(), Some("rate card parcel/x/y: zone chart \"nope\" does not exist"));
    assert_eq!(
        e.to_string(),
        "the import would leave the rate data inconsistent: rate card parcel/x/y: zone chart \"nope\" does not exist"
    );
}

#[test]
fn the_book_loaded_from_rows_is_the_default_book() {
    let conn = seeded();
    let (loaded, default) = (RateBook::load(&crate::store::Read::of(&conn)).unwrap(), book());
    assert_eq!(loaded.cards().count(), default.cards().count());
    assert_eq!(loaded.fx, default.fx);
    let p = [PieceInput { weight: dec!(3.3), dims: Some([dec!(20), dec!(14), dec!(9)]), insurance: Some(dec!(420)) }];
    for (carrier, service, package, id) in default.cards() {
        for (from, to) in [(us("10001"), us("90001")), (us("10001"), abroad("GB")), (abroad("CA"), us("60601"))] {
            let mut i = input(from, to, WeightUnit::Lb, &p);
            i.residential = true;
            let there = loaded.card(carrier, service, package).unwrap();
            assert_eq!(loaded.rate(there, &i), default.rate(id, &i), "{carrier}/{service}/{package}");
        }
    }
}

#[test]
fn exchange_rates_import_changes_conversion() {
    let mut conn = seeded();
    let tx = conn.transaction().unwrap();
    import_csv(&crate::store::Tx::of(&tx), CsvKind::ExchangeRates, "currency,per_usd\nEUR,0.9\n").unwrap();
    tx.commit().unwrap();
    let b = RateBook::load(&crate::store::Read::of(&conn)).unwrap();
    assert_eq!(b.convert(dec!(10), Currency::Usd, Currency::Eur), dec!(9.0));
    let tx = conn.transaction().unwrap();
    assert!(import_csv(&crate::store::Tx::of(&tx), CsvKind::ExchangeRates, "currency,per_usd\nUSD,2\n").is_err());
}

// ------------------------------------------------------------ properties

const ZIPS: [&str; 10] = ["10001", "90001", "60601", "33101", "98101", "99501", "96701", "00901", "09001", "59001"];

fn arb_decimal() -> impl Strategy<Value = Decimal> {
    (any::<u32>(), any::<u32>(), any::<u32>(), any::<bool>(), 0u32..=28)
        .prop_map(|(lo, mid, hi, neg, scale)| Decimal::from_parts(lo, mid, hi, neg, scale))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn price_never_falls_as_weight_rises(a in 0usize..10, b in 0usize..10, w1 in 1u32..3000, dw in 0u32..3000, card in 0usize..4) {
        let (c, s, p, unit) = [
            ("parcel", "parcel_ground", "parcel_custom", WeightUnit::Lb),
            ("postal", "postal_priority_mail", "postal_custom", WeightUnit::Lb),
            ("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", WeightUnit::Kg),
            ("expressground", "expressground_ground", "expressground_custom", WeightUnit::Lb),
        ][card];
        let to = if c == "intlexpress" { abroad(["GB", "JP", "CA", "BR", "ZA", "AU", "MX", "IN", "PL", "JM"][b]) } else { us(ZIPS[b]) };
        let from = us(ZIPS[a]);
        let lo = [piece(Decimal::new(i64::from(w1), 1))];
        let hi = [piece(Decimal::new(i64::from(w1 + dw), 1))];
        let r1 = rate(c, s, p, &input(from, to, unit, &lo));
        let r2 = rate(c, s, p, &input(from, to, unit, &hi));
        if let (Ok(r1), Ok(r2)) = (&r1, &r2) {
            prop_assert!(r1.base <= r2.base && r1.total <= r2.total, "{r1:?} {r2:?}");
        } else {
            // only the heavier one may be over the card's limit
            prop_assert!(r1.is_ok() || r2.is_err());
        }
    }

    #[test]
    fn dim_weight_wins_exactly_when_larger(w in 1u32..2000, l in 1u32..600, wd in 1u32..600, h in 1u32..600) {
        let (w, l, wd, h) = (Decimal::new(i64::from(w), 1), Decimal::new(i64::from(l), 1), Decimal::new(i64::from(wd), 1), Decimal::new(i64::from(h), 1));
        let p = [PieceInput { weight: w, dims: Some([l, wd, h]), insurance: None }];
        let r = rate("parcel", "parcel_ground", "parcel_custom", &input(us("10001"), us("60601"), WeightUnit::Lb, &p)).unwrap();
        let actual = w.ceil();
        let dim = (l * wd * h / dec!(139)).ceil().max(Decimal::ONE);
        prop_assert_eq!(r.weight_type == WeightType::Dimensional, dim > actual);
        prop_assert_eq!(r.quoted_weight, actual.max(dim));
        // postal: dim weight only above one cubic foot
        let dim = if l * wd * h > dec!(1728) { (l * wd * h / dec!(166)).ceil() } else { Decimal::ZERO };
        match rate("postal", "postal_priority_mail", "postal_custom", &input(us("10001"), us("60601"), WeightUnit::Lb, &p)) {
            Ok(r) => prop_assert_eq!(r.weight_type == WeightType::Dimensional, dim > actual),
            Err(e) => {
                let over = matches!(e, RateError::WeightNotPriced { .. }) && actual.max(dim) > dec!(70);
                prop_assert!(over);
            }
        }
    }

    #[test]
    fn total_is_the_sum_of_rounded_lines(w in 1u32..600, markup in 0u32..5000, cur in 0usize..4, ins in 0u32..100_000, res: bool, sig: bool, card in 0usize..3) {
        let (c, s, p, sigopt, to) = [
            ("parcel", "parcel_2nd_day_air", "parcel_custom", "parcel_adult_signature", us("99501")),
            ("intlexpress", "intlexpress_express_worldwide", "intlexpress_custom", "intlexpress_direct_signature", abroad("FR")),
            ("postal", "postal_ground_advantage", "postal_custom", "postal_signature_confirmation", us("96910")),
        ][card];
        let pieces = [PieceInput { weight: Decimal::new(i64::from(w), 1), dims: Some([dec!(30), dec!(20), dec!(10)]), insurance: Some(Decimal::new(i64::from(ins), 2)) }];
        let mut i = input(us("10001"), to, WeightUnit::Lb, &pieces);
        i.currency = Currency::ALL[cur];
        i.markup_percent = Decimal::new(i64::from(markup), 2);
        i.residential = res;
        i.signature_option = sig.then_some(sigopt);
        let r = rate(c, s, p, &i).unwrap();
        let sum = r.surcharges.iter().fold(r.base, |t, l| t + l.amount);
        prop_assert_eq!(r.total, sum);
        for l in &r.surcharges {
            prop_assert_eq!(l.amount, l.amount.round_dp(2));
        }
        prop_assert_eq!(r.base, r.base.round_dp(2));
    }

    #[test]
    fn no_input_makes_rating_panic(
        w in arb_decimal(), d in prop::array::uniform3(arb_decimal()), ins in arb_decimal(), markup in arb_decimal(),
        c1 in ".{0,6}", c2 in "[A-Z]{2}", z1 in ".{0,12}", z2 in "[0-9]{0,9}", sig in ".{0,8}",
        card in 0u32..200, unit in 0usize..4, dims: bool, flags in any::<[bool; 5]>(), n in 0usize..3,
    ) {
        let b = book();
        let pieces = vec![PieceInput { weight: w, dims: dims.then_some(d), insurance: Some(ins) }; n];
        let i = RateInput {
            sender: Place { country: &c1, state: "", zip: flags[0].then_some(z1.as_str()) },
            receiver: Place { country: &c2, state: "", zip: Some(&z2) },
            residential: flags[1],
            weight_unit: [WeightUnit::Lb, WeightUnit::Oz, WeightUnit::Kg, WeightUnit::G][unit],
            dim_unit: if flags[2] { DimUnit::In } else { DimUnit::Cm },
            pieces: &pieces,
            signature_option: flags[3].then_some(sig.as_str()),
            saturday_delivery: flags[4],
            am_delivery: flags[4],
            dangerous_goods: flags[2],
            currency: Currency::ALL[unit],
            markup_percent: markup,
        };
        let _ = b.rate(CardId(card), &i);
        // the same with sane addresses, so that weights and dims are reached
        let i = RateInput { sender: us("10001"), receiver: us("90001"), ..i };
        let _ = b.rate(CardId(card), &i);
        let _ = b.convert(w, Currency::ALL[unit], Currency::Usd);
    }
}

proptest! {
    #[test]
    fn ceil_ratio_matches_decimal_division(a in arb_decimal(), b in arb_decimal()) {
        let expected = if a > Decimal::ZERO && b > Decimal::ZERO {
            a.checked_div(b).and_then(|q| q.ceil().to_u32())
        } else {
            None
        };
        // Decimal division rounds to 28 digits; only compare where it is exact enough
        if let Some(e) = expected {
            if let Some(q) = a.checked_div(b) {
                if q.scale() < 20 {
                    prop_assert_eq!(ceil_ratio(a, b), Some(e));
                }
            }
        } else if a <= Decimal::ZERO || b <= Decimal::ZERO {
            prop_assert_eq!(ceil_ratio(a, b), None);
        }
    }
}

#[test]
fn rounding_half_away_from_zero() {
    assert_eq!(round_cents(dec!(2.345)), dec!(2.35));
    assert_eq!(round_cents(dec!(-2.345)), dec!(-2.35));
    assert_eq!(round_cents(dec!(2.3449999)), dec!(2.34));
    assert_eq!(round_cents(dec!(4.8)), dec!(4.8));
    for d in [dec!(2.345), dec!(2.3449999), dec!(4.8), dec!(0.005), dec!(0.004999)] {
        assert!(same(fixed::D::pos(d).round_cents().dec(), round_cents(d)), "{d}");
    }
}

#[test]
fn ceil_ratio_whole_steps() {
    assert_eq!(ceil_ratio(dec!(480), dec!(139)), Some(4));
    assert_eq!(ceil_ratio(dec!(417), dec!(139)), Some(3));
    assert_eq!(ceil_ratio(dec!(29.7), dec!(0.5)), Some(60));
}

/// Non-negative decimals, mostly small (the fast paths of `D`), some full-width.
fn arb_nonneg_decimal() -> impl Strategy<Value = Decimal> {
    prop_oneof![
        (0u64..100_000_000, 0u32..=10).prop_map(|(m, s)| Decimal::from_i128_with_scale(i128::from(m), s)),
        (any::<u32>(), any::<u32>(), 0u32..=28).prop_map(|(lo, mid, s)| Decimal::from_parts(lo, mid, 0, false, s)),
        (any::<u32>(), any::<u32>(), any::<u32>(), 0u32..=28).prop_map(|(lo, mid, hi, s)| Decimal::from_parts(lo, mid, hi, false, s)),
    ]
}

/// Non-negative decimals at exact and near midpoints of the cent (`x.xx5`, `x.xx4999`).
fn arb_cent_midpoint() -> impl Strategy<Value = Decimal> {
    (0u64..1_000_000_000, 3u32..=20, prop_oneof![Just(0u64), Just(1u64), Just(4u64), Just(5u64), Just(6u64), Just(9u64)]).prop_map(
        |(cents, s, digit)| {
            // cents.digit followed by s - 3 digits of the digit itself
            let mut m = i128::from(cents) * 10 + i128::from(digit);
            for _ in 3..s {
                m = m * 10 + i128::from(digit);
            }
            Decimal::from_i128_with_scale(m, s)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// `rate()` rounds on the fixed-point form; it is the money policy, value and scale.
    #[test]
    fn fixed_point_rounding_is_the_money_policy(d in prop_oneof![arb_nonneg_decimal(), arb_cent_midpoint()]) {
        prop_assert!(same(fixed::D::pos(d).round_cents().dec(), round_cents(d)), "{d}");
    }
}

/// Same value and same scale (`Decimal`'s `==` ignores the scale).
fn same(a: Decimal, b: Decimal) -> bool {
    a == b && a.scale() == b.scale() && a.is_sign_negative() == b.is_sign_negative()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn fixed_point_ops_match_rust_decimal(a in arb_nonneg_decimal(), b in arb_nonneg_decimal()) {
        use super::fixed::D;
        let (da, db) = (D::pos(a), D::pos(b));
        prop_assert!(same(da.dec(), a));
        match (da.checked_add(db), a.checked_add(b)) {
            (Some(x), Some(y)) => prop_assert!(same(x.dec(), y), "{a} + {b}: {} vs {y}", x.dec()),
            (x, y) => prop_assert_eq!(x.is_none(), y.is_none()),
        }
        match (da.checked_mul(db), a.checked_mul(b)) {
            (Some(x), Some(y)) => prop_assert!(same(x.dec(), y), "{a} * {b}: {} vs {y}", x.dec()),
            (x, y) => prop_assert_eq!(x.is_none(), y.is_none()),
        }
        prop_assert_eq!(da.cmp_value(db), a.cmp(&b));
        prop_assert!(same(da.max(db).dec(), a.max(b)));
        prop_assert!(same(da.round_cents().dec(), round_cents(a)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// The three-side sort gives what `sort_unstable_by` on the same comparison gave:
    /// the same values at the same scales in the same places, ties included (small
    /// mantissas and scales, so that equal sides of different scales are common).
    #[test]
    fn longest_first_sorts_as_the_standard_library(sides in proptest::array::uniform3((0u64..30, 0u32..3))) {
        use super::fixed::D;
        let c = sides.map(|(m, s)| D { m: u128::from(m) * fixed::POW10U[s as usize] / 10, s });
        let mut expected = c;
        expected.sort_unstable_by(|a, b| b.cmp_value(*a));
        let got = super::longest_first(c);
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!(g.m == e.m && g.s == e.s, "{c:?}: {got:?} vs {expected:?}");
        }
    }
}

/// A rate's lines come in the order of their kinds, one per kind, whatever the order
/// they were set in; `len`, `iter` and `for` agree.
#[test]
fn lines_keep_the_order_of_the_kinds() {
    let line = |kind, cents| Surcharge { kind, amount: Decimal::new(cents, 2) };
    let lines = Lines::of(&[line(SurchargeKind::Insurance, 300), line(SurchargeKind::Residential, 495), line(SurchargeKind::Fuel, 120)]);
    let kinds: Vec<SurchargeKind> = lines.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, [SurchargeKind::Residential, SurchargeKind::Fuel, SurchargeKind::Insurance]);
    assert_eq!((lines.len(), lines.iter().len(), lines.is_empty()), (3, 3, false));
    let mut total = Decimal::ZERO;
    for l in &lines {
        total += l.amount;
    }
    assert_eq!(total, dec!(9.15));
    assert_eq!(lines.to_vec()[0].description(), "Residential delivery");
    assert!(Lines::of(&[]).is_empty());
}

/// The price lookup (the first few breaks in turn, then a binary search) finds the
/// break a plain binary search finds, for every weight of every zone of every card of
/// the default book and of books with few breaks, beyond the last break included.
#[test]
fn price_lookup_finds_the_first_break_at_or_above_the_weight() {
    let reference = |z: &book::ZonePrices, steps: u32| -> Option<Decimal> {
        let i = z.breaks.partition_point(|b| b.0 < steps);
        match z.breaks.get(i) {
            Some(b) => Some(b.1),
            None => {
                let (last, price) = *z.breaks.last()?;
                price.checked_add(z.extra_per_step?.checked_mul(Decimal::from(steps - last))?)
            }
        }
    };
    let mut zones: Vec<book::ZonePrices> = book().cards.iter().flat_map(|c| c.zones.iter().cloned()).collect();
    for n in 0..12u32 {
        let breaks = (1..=n).map(|i| (i * 3, Decimal::from(i))).collect();
        zones.push(book::ZonePrices { zone: None, breaks, extra_per_step: Some(dec!(0.5)), minimum: None });
    }
    for z in &zones {
        let last = z.breaks.last().map_or(0, |b| b.0);
        for steps in 0..=last + 3 {
            assert_eq!(z.price(steps), reference(z, steps), "{steps} steps of {:?}", z.breaks);
        }
    }
}
