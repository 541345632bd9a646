//! Import and export of rate data: the documented CSV format, validated row by
//! row with line numbers, applied atomically, round-tripping losslessly.

use consign::CsvKind;
use consign::ErrorCategory;
use consign_conformance::*;
use rust_decimal::Decimal;
use serde_json::json;

fn ground_total(h: &Harness, id: &str) -> serde_json::Value {
    let s = with(with(quote_shipment(), "/serviceCode", json!("parcel_ground")), "/packageTypeCode", json!("parcel_custom"));
    h.quote_one(id, s)["quotes"][0]["totalAmount"].clone()
}

#[test]
fn every_kind_exports_and_reimports_unchanged() {
    let h = Harness::new();
    for kind in CsvKind::ALL {
        let before = h.shipping.export_rates(kind).unwrap();
        h.shipping.import_rates(kind, &before).unwrap_or_else(|e| panic!("{}: {e}", kind.as_str()));
        assert_eq!(h.shipping.export_rates(kind).unwrap(), before, "{}", kind.as_str());
    }
}

#[test]
fn an_imported_price_is_quoted_at_once() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let before = ground_total(&h, &id);
    let summary = h.shipping.import_rates(CsvKind::Rates, &doubled_ground_card(&h)).unwrap();
    assert_eq!(summary.replaced, 1, "one card replaced");
    assert_ne!(ground_total(&h, &id), before);
}

#[test]
fn invalid_rows_are_named_by_line_and_nothing_changes() {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    let before = ground_total(&h, &id);
    let exported = h.shipping.export_rates(CsvKind::Rates).unwrap();
    let csv = "carrier,service,package_type,chart,zone,weight,price\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,2,1,1.00\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,2,2,abc\n\
               parcel,parcel_ground,parcel_custom,parcel_domestic,2,3,-4\n";
    let e = h.shipping.import_rates(CsvKind::Rates, csv).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    let lines: Vec<&str> = e.details().iter().map(|d| d.field.as_str()).collect();
    assert_eq!(lines, ["line 3", "line 4"]);
    assert_eq!(h.shipping.export_rates(CsvKind::Rates).unwrap(), exported, "nothing was written");
    assert_eq!(ground_total(&h, &id), before, "the book in force is unchanged");
}

#[test]
fn a_card_for_a_service_the_catalog_lacks_is_refused() {
    let h = Harness::new();
    let csv = "carrier,service,package_type,chart,zone,weight,price\nparcel,parcel_teleport,parcel_custom,parcel_domestic,2,1,5.00\n";
    let e = h.shipping.import_rates(CsvKind::Rates, csv).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
    assert!(e.details()[0].message.contains("parcel_teleport"), "{e}");
}

#[test]
fn an_import_survives_reopening_the_database() {
    let dir = std::env::temp_dir().join(format!("consign-rates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.db");
    let _ = std::fs::remove_file(&path);
    let fx = "currency,per_usd\nCAD,1.40\nEUR,0.90\nGBP,0.80\n";
    {
        let shipping = consign::Shipping::open(&path).unwrap();
        shipping.import_rates(CsvKind::ExchangeRates, fx).unwrap();
    }
    let shipping = consign::Shipping::open(&path).unwrap();
    assert!(shipping.export_rates(CsvKind::ExchangeRates).unwrap().contains("GBP,0.80"));
    drop(shipping);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_catalog_exports_and_reimports() {
    let h = Harness::new();
    let catalog = h.shipping.export_catalog().unwrap();
    h.shipping.import_catalog(&catalog).unwrap();
    assert_eq!(h.shipping.export_catalog().unwrap(), catalog);
    let e = h.shipping.import_catalog("{\"version\": 1}").unwrap_err();
    assert_eq!(e.category(), ErrorCategory::InvalidRequest);
}

/// The ground card with every price doubled, as an import of [`CsvKind::Rates`].
fn doubled_ground_card(h: &Harness) -> String {
    let rates = h.shipping.export_rates(CsvKind::Rates).unwrap();
    let card: Vec<&str> = rates.lines().filter(|l| l.starts_with("parcel,parcel_ground,parcel_custom,")).collect();
    let doubled: String = std::iter::once("carrier,service,package_type,chart,zone,weight,price")
        .chain(card.iter().copied())
        .map(|line| {
            let mut cols: Vec<String> = line.split(',').map(str::to_string).collect();
            if let Ok(price) = cols[6].parse::<Decimal>() {
                cols[6] = (price * Decimal::TWO).to_string();
            }
            cols.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n");
    doubled + "\n"
}

#[test]
fn services_sharing_a_database_price_with_the_rates_another_imported() {
    let h = Harness::new();
    let Some(database) = &h.database else {
        eprintln!("PostgreSQL only: services share a database there (the PostgreSQL leg runs it)");
        return;
    };
    let other =
        Harness { shipping: database.another(consign::Shipping::builder().clock(h.clock.clone())), clock: h.clock.clone(), database: None };
    let id = h.create_customer("ann@example.com");
    let before = ground_total(&other, &id);
    h.shipping.import_rates(CsvKind::Rates, &doubled_ground_card(&h)).unwrap();
    assert_ne!(ground_total(&other, &id), before, "the other service prices with the imported card");
    assert_eq!(ground_total(&other, &id), ground_total(&h, &id));
}
