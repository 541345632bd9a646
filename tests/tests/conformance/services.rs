//! 4.4 List services, checked against the default catalog.

use std::collections::HashSet;

use consign_conformance::*;
use serde_json::{json, Value};

fn default_services() -> Vec<Value> {
    let h = Harness::new();
    let id = h.create_customer("ann@example.com");
    h.services(&id)
}

fn code(s: &Value) -> &str {
    s["serviceCode"].as_str().unwrap_or_default()
}

fn countries(v: &Value) -> Option<Vec<&str>> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_str).collect())
}

/// True if the service's lists admit `country` (rules 2 and 3).
fn admits(s: &Value, country: &str) -> bool {
    match (countries(&s["supportedCountries"]), countries(&s["unsupportedCountries"])) {
        (Some(supported), None) => supported.contains(&country),
        (None, Some(unsupported)) => !unsupported.contains(&country),
        _ => panic!("rule 1 broken for {}", code(s)),
    }
}

fn is_decimal_string(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.parse::<rust_decimal::Decimal>().is_ok_and(|d| d > rust_decimal::Decimal::ZERO))
}

#[test]
fn the_services_of_an_unknown_customer_are_not_found() {
    let h = Harness::new();
    h.get(&Harness::path("C9999999", "/services")).assert_error_without_details(404, "NOT_FOUND");
}

#[test]
fn every_service_has_every_field_with_its_type() {
    for s in default_services() {
        for key in ["carrierCode", "carrierLabel", "serviceCode", "serviceLabel", "family"] {
            assert!(s[key].as_str().is_some_and(|v| !v.is_empty()), "{key} of {s}");
        }
        assert!(s["inbound"].is_boolean(), "inbound of {s}");
        for key in ["supportedCountries", "unsupportedCountries"] {
            assert!(s[key].is_null() || s[key].as_array().is_some_and(|a| a.iter().all(Value::is_string)), "{key} of {s}");
        }
        for key in ["supportedDangerousGoodsCodes", "supportedDangerousGoodCodes"] {
            assert!(s.get(key).is_some_and(|v| v.is_null() || v.is_string()), "{key} of {s}");
        }
        let options = s["signatureOptions"].as_array().unwrap_or_else(|| panic!("signatureOptions of {s}"));
        for o in options {
            assert!(o["signatureOptionCode"].is_string() && o["signatureOptionLabel"].is_string(), "{o}");
        }
        let packages = s["packageTypes"].as_array().unwrap_or_else(|| panic!("packageTypes of {s}"));
        assert!(!packages.is_empty(), "a service without package types: {s}");
        for p in packages {
            assert!(p["packageTypeCode"].is_string() && p["packageTypeLabel"].is_string(), "{p}");
            assert!(p["multipieceSupported"].is_boolean(), "{p}");
            assert!(matches!(p["weightUnit"].as_str(), Some("lb" | "kg")), "weightUnit of {p}");
            assert!(matches!(p["dimType"].as_str(), Some("preset" | "envelope" | "custom")), "dimType of {p}");
            for key in ["dimUnit", "presetLength", "presetWidth", "presetHeight"] {
                assert!(p.get(key).is_some_and(|v| v.is_null() || v.is_string()), "{key} of {p}");
            }
        }
    }
}

#[test]
fn service_codes_are_unique() {
    let services = default_services();
    let codes: HashSet<&str> = services.iter().map(code).collect();
    assert_eq!(codes.len(), services.len());
}

#[test]
fn exactly_one_country_list_is_set_for_every_service() {
    for s in default_services() {
        assert!(s["supportedCountries"].is_null() != s["unsupportedCountries"].is_null(), "rule 1 for {s}");
    }
}

#[test]
fn country_lists_hold_iso_two_letter_codes() {
    for s in default_services() {
        for list in [&s["supportedCountries"], &s["unsupportedCountries"]] {
            for c in countries(list).into_iter().flatten() {
                assert!(c.len() == 2 && c.chars().all(|ch| ch.is_ascii_uppercase()), "{c} in {}", code(&s));
            }
        }
    }
}

#[test]
fn a_supported_country_list_is_never_empty() {
    for s in default_services() {
        assert!(countries(&s["supportedCountries"]).is_none_or(|l| !l.is_empty()), "a service that serves nobody: {}", code(&s));
    }
}

#[test]
fn inbound_services_exist_and_are_the_import_services() {
    let services = default_services();
    assert!(services.iter().any(|s| s["inbound"] == true), "no inbound service");
    for s in &services {
        assert_eq!(s["inbound"].as_bool(), Some(code(s).ends_with("_import")), "inbound of {}", code(s));
    }
}

#[test]
fn inbound_country_lists_name_sender_countries_so_never_the_home_country() {
    for s in default_services().iter().filter(|s| s["inbound"] == true) {
        assert!(!admits(s, "US"), "an import service that imports from the US: {}", code(s));
        assert!(admits(s, "GB"), "an import service that cannot import from GB: {}", code(s));
    }
}

#[test]
fn outbound_domestic_services_list_the_us_among_receiver_countries() {
    let services = default_services();
    for name in ["parcel_ground", "postal_priority_mail", "expressground_2day", "ecommerce_parcel_ground"] {
        let s = services.iter().find(|s| code(s) == name).unwrap_or_else(|| panic!("{name} is listed"));
        assert!(admits(s, "US"), "{name}");
        assert!(!admits(s, "GB"), "{name}");
    }
}

#[test]
fn outbound_international_services_exclude_the_us_as_receiver() {
    let services = default_services();
    for name in ["parcel_worldwide_express", "intlexpress_express_worldwide", "postal_priority_mail_international"] {
        let s = services.iter().find(|s| code(s) == name).unwrap_or_else(|| panic!("{name} is listed"));
        assert!(!admits(s, "US"), "{name}");
        assert!(admits(s, "GB"), "{name}");
    }
}

#[test]
fn dim_unit_and_preset_dimensions_are_null_unless_preset() {
    for s in default_services() {
        for p in s["packageTypes"].as_array().into_iter().flatten() {
            if p["dimType"] == "preset" {
                assert!(matches!(p["dimUnit"].as_str(), Some("in" | "cm")), "dimUnit of {p}");
                for key in ["presetLength", "presetWidth", "presetHeight"] {
                    assert!(is_decimal_string(&p[key]), "{key} of {p}");
                }
            } else {
                for key in ["dimUnit", "presetLength", "presetWidth", "presetHeight"] {
                    assert!(p[key].is_null(), "{key} of non-preset {p}");
                }
            }
        }
    }
}

#[test]
fn max_weight_per_piece_is_a_decimal_string() {
    for s in default_services() {
        for p in s["packageTypes"].as_array().into_iter().flatten() {
            assert!(is_decimal_string(&p["maxWeightPerPiece"]), "maxWeightPerPiece of {p} in {}", code(&s));
        }
    }
}

#[test]
fn every_service_has_a_ground_or_express_family() {
    let services = default_services();
    for s in &services {
        assert!(matches!(s["family"].as_str(), Some("ground" | "express")), "family of {}", code(s));
    }
    assert!(services.iter().any(|s| s["family"] == "ground") && services.iter().any(|s| s["family"] == "express"));
}

#[test]
fn both_spellings_of_dangerous_goods_codes_carry_the_same_value() {
    let services = default_services();
    for s in &services {
        assert_eq!(s["supportedDangerousGoodsCodes"], s["supportedDangerousGoodCodes"], "{}", code(s));
    }
    assert!(services.iter().any(|s| s["supportedDangerousGoodsCodes"].is_string()), "no service carries dangerous goods codes");
}

#[test]
fn a_ground_saver_customer_sees_only_ground_services() {
    let h = Harness::new();
    let ground = h.create_customer_of_profile("gus@example.com", "GroundSaver");
    let all = h.create_customer("ann@example.com");
    let seen = h.services(&ground);
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|s| s["family"] == "ground"), "{:?}", seen.iter().map(code).collect::<Vec<_>>());
    assert!(seen.len() < h.services(&all).len());
}

#[test]
fn every_carrier_of_the_spec_offers_enough_services() {
    let services = default_services();
    for (carrier, least) in [("parcel", 5), ("postal", 5), ("expressground", 5), ("intlexpress", 3), ("ecommerce", 3)] {
        let n = services.iter().filter(|s| s["carrierCode"] == carrier).count();
        assert!(n >= least, "{carrier} has {n} services, expected at least {least}");
    }
}

#[test]
fn a_catalog_import_that_drops_a_profile_in_use_is_refused() {
    let h = Harness::new();
    let id = h.create_customer_of_profile("gus@example.com", "GroundSaver");
    let before = h.services(&id);
    let mut doc: Value = serde_json::from_str(&h.shipping.export_catalog().unwrap()).unwrap();
    doc["profiles"] = json!(doc["profiles"].as_array().unwrap().iter().filter(|p| p["code"] != "GroundSaver").collect::<Vec<_>>());
    let e = h.shipping.import_catalog(&doc.to_string()).unwrap_err();
    assert_eq!(e.category(), consign::ErrorCategory::InvalidRequest);
    assert_eq!(e.details().first().map(|d| d.field.as_str()), Some("profiles"));
    assert_eq!(h.services(&id), before);
}
