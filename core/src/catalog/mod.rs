//! The catalog: carriers, services, package types, signature options and profiles.
//!
//! It is data: seeded on first open from the embedded default (`core/data/catalog.json`),
//! stored as one JSON document in the database, and replaced whole by an import. At open
//! it is checked and indexed into an immutable [`Catalog`].

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::documents::LabelFormat;
use crate::error::{Error, ErrorCategory, Result};
use crate::refdata;
use crate::tracking_number::TrackingKind;
use crate::wire;

/// The embedded default catalog (`core/data/catalog.json`): its text natively; on wasm32
/// deflated by core/build.rs and inflated once, when first read.
pub(crate) fn default_catalog_json() -> &'static str {
    #[cfg(not(target_arch = "wasm32"))]
    let text: &'static str = include_str!("../../data/catalog.json");
    #[cfg(target_arch = "wasm32")]
    let text: &'static str = {
        static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        crate::embedded::inflated(&TEXT, include_bytes!(concat!(env!("OUT_DIR"), "/catalog.json.deflate")))
    };
    text
}

/// The catalog as stored: the format of `core/data/catalog.json` and of catalog imports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CatalogDocument {
    /// Format version (1).
    pub version: u32,
    /// Carriers, with their package types and signature options.
    pub carriers: Vec<Carrier>,
    /// Services, in the order list services shows them.
    pub services: Vec<Service>,
    /// Customer profiles.
    pub profiles: Vec<Profile>,
}

/// A carrier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Carrier {
    /// Carrier code, e.g. `parcel`.
    pub code: String,
    /// Name for people.
    pub label: String,
    /// The spec's kind: `A` to `E`, `consolidator`, `worldexpress`.
    pub kind: String,
    /// `lb` or `kg`: the unit of its rates and weight limits.
    pub weight_unit: String,
    /// `in` or `cm`.
    pub dim_unit: String,
    /// Currency of its rates.
    pub currency: String,
    /// Countries it ships from (to, for inbound services).
    pub origins: Vec<String>,
    /// How many days ahead a shipment date may be, if limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_days: Option<u32>,
    /// True if the sender name must hold a first and a last name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_sender_full_name: bool,
    /// Label formats it prints: `PDF`, `ZPL`, `EPL2`. The one list every format check
    /// asks ([`Carrier::prints`]): booking's `labelImageFormat`, label and return label
    /// retrieval.
    pub label_formats: Vec<String>,
    /// Field names of its provider accounts.
    pub account_fields: Vec<String>,
    /// True if its shipments can be tracked.
    pub trackable: bool,
    /// Its signature options.
    pub signature_options: Vec<SignatureOption>,
    /// Its package types.
    pub package_types: Vec<PackageType>,
    /// True if a booking may ask for a scan-based return label (`scanBasedReturnLabel`),
    /// and its tracking feed reports the scans of those labels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scan_based_return_labels: bool,
    /// True if a booking may ask for AM delivery (`postalExpressAmDelivery`); the
    /// service must offer it too (its `amDelivery`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub am_delivery: bool,
    /// True if a booking may name a dangerous goods code (`dangerousGoodsCode`); the
    /// service must accept the code too (its `dangerousGoodsCodes`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dangerous_goods: bool,
    /// True if a booking may ask for a postal endorsement (`postalEndorsement`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub postal_endorsements: bool,
    /// True if its labels for a shipment abroad print a postal customs declaration (a
    /// second page per piece).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub customs_declarations_abroad: bool,
    /// True if a shipment between the US and its territories (or between two of them)
    /// is domestic for it: no declared values, no customs declaration.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub us_territories_domestic: bool,
    /// True if the answer to a booking of several pieces lists each piece (`pieces`:
    /// tracking number and shipping cost).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pieces_in_answer: bool,
    /// The kind of tracking numbers it gives, by service family; none if it gives none.
    #[serde(default, skip_serializing_if = "TrackingNumbers::is_empty")]
    pub tracking_numbers: TrackingNumbers,
    /// True if it picks up ground and express shipments separately: a pickup holds
    /// shipments of one family only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pickups_by_family: bool,
    /// True if a pickup may say where the packages wait (`packageLocation`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pickup_package_location: bool,
    /// Carriers whose tracking feed may report events for its shipments, besides its
    /// own (e.g. the carrier that delivers its packages on the final mile).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepts_events_of: Vec<String>,
}

/// The tracking number kinds of a carrier, by service family: codes of
/// [`TrackingKind::code`], e.g. `parcel`, `expressground_ground`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackingNumbers {
    /// The kind of the numbers of its `ground` services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<String>,
    /// The kind of the numbers of its other (`express`) services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub express: Option<String>,
}

impl TrackingNumbers {
    /// True if neither family has a kind.
    pub fn is_empty(&self) -> bool {
        self.ground.is_none() && self.express.is_none()
    }
}

/// A signature option of a carrier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureOption {
    /// Code.
    pub code: String,
    /// Name for people.
    pub label: String,
    /// The carrier-neutral code of the public documentation of the interface that also
    /// names this option: `direct` (a signature), `indirect` (a neighbour's will do) or
    /// `adult`. A carrier has at most one option of each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generic: Option<String>,
}

/// The carrier-neutral signature option codes a catalog may give its options.
pub const GENERIC_SIGNATURE_OPTIONS: [&str; 3] = ["direct", "indirect", "adult"];

impl SignatureOption {
    /// True if `code` names this option: its code or its generic code, in any case
    /// (clients send `DIRECT` as the documentation shows it).
    pub fn is_named(&self, code: &str) -> bool {
        let code = code.trim();
        self.code.eq_ignore_ascii_case(code) || self.generic.as_deref().is_some_and(|g| g.eq_ignore_ascii_case(code))
    }
}

/// Signature option codes that ask for no signature (in any case, around spaces): a
/// request that sends one is read as sending none, for every carrier.
pub(crate) const NO_SIGNATURE_CODES: [&str; 3] = ["none", "no_signature_required", "service_default"];

/// `code` as a request's signature option: `None` when absent or one of
/// [`NO_SIGNATURE_CODES`].
pub(crate) fn signature_asked(code: Option<&str>) -> Option<&str> {
    code.filter(|c| !NO_SIGNATURE_CODES.iter().any(|none| none.eq_ignore_ascii_case(c.trim())))
}

impl Carrier {
    /// The carrier's signature option that `code` names (see [`SignatureOption::is_named`]).
    pub fn signature_option(&self, code: &str) -> Option<&SignatureOption> {
        self.signature_options.iter().find(|o| o.is_named(code))
    }

    /// True if it offers any of the capabilities from `scanBasedReturnLabels` to
    /// `acceptsEventsOf` (not `labelFormats`, which every catalog states).
    pub fn offers_any(&self) -> bool {
        self.scan_based_return_labels
            || self.am_delivery
            || self.dangerous_goods
            || self.postal_endorsements
            || self.customs_declarations_abroad
            || self.us_territories_domestic
            || self.pieces_in_answer
            || !self.tracking_numbers.is_empty()
            || self.pickups_by_family
            || self.pickup_package_location
            || !self.accepts_events_of.is_empty()
    }

    /// Takes every capability of [`Carrier::offers_any`] from `other`.
    fn offer_as(&mut self, other: &Carrier) {
        self.scan_based_return_labels = other.scan_based_return_labels;
        self.am_delivery = other.am_delivery;
        self.dangerous_goods = other.dangerous_goods;
        self.postal_endorsements = other.postal_endorsements;
        self.customs_declarations_abroad = other.customs_declarations_abroad;
        self.us_territories_domestic = other.us_territories_domestic;
        self.pieces_in_answer = other.pieces_in_answer;
        self.tracking_numbers = other.tracking_numbers.clone();
        self.pickups_by_family = other.pickups_by_family;
        self.pickup_package_location = other.pickup_package_location;
        self.accepts_events_of = other.accepts_events_of.clone();
    }

    /// True if it prints labels in `format` (its `labelFormats`).
    pub fn prints(&self, format: LabelFormat) -> bool {
        self.label_formats.iter().any(|f| f == format.code())
    }

    /// The kind of the tracking numbers of its services of `family` (`ground` or
    /// another); `None` if it gives none.
    pub fn tracking_kind(&self, family: &str) -> Option<TrackingKind> {
        let code = if family == "ground" { &self.tracking_numbers.ground } else { &self.tracking_numbers.express };
        TrackingKind::from_code(code.as_deref()?)
    }
}

/// A package type of a carrier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PackageType {
    /// Code, e.g. `postal_flat_rate_envelope`.
    pub code: String,
    /// Name for people.
    pub label: String,
    /// `preset`, `envelope` or `custom`.
    pub dim_type: String,
    /// `lb` or `kg`.
    pub weight_unit: String,
    /// Maximum weight per piece.
    pub max_weight: Decimal,
    /// `in` or `cm` for preset dimensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dim_unit: Option<String>,
    /// Preset length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_length: Option<Decimal>,
    /// Preset width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_width: Option<Decimal>,
    /// Preset height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_height: Option<Decimal>,
}

impl PackageType {
    /// True for package types with preset dimensions.
    pub fn is_preset(&self) -> bool {
        self.dim_type == "preset"
    }
    /// True for package types whose dimensions the shipper gives.
    pub fn is_custom(&self) -> bool {
        self.dim_type == "custom"
    }
    /// The preset dimensions (L, W, H), for preset types.
    pub fn preset_dims(&self) -> Option<[Decimal; 3]> {
        Some([self.preset_length?, self.preset_width?, self.preset_height?])
    }
}

/// A service of a carrier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Service {
    /// Carrier code.
    pub carrier: String,
    /// Service code, e.g. `parcel_ground`.
    pub code: String,
    /// Name for people.
    pub label: String,
    /// `ground` or `express`.
    pub family: String,
    /// True for inbound (import) services.
    pub inbound: bool,
    /// Complete list of supported countries (receivers; senders when inbound).
    pub supported_countries: Option<Vec<String>>,
    /// Countries not supported; all others are.
    pub unsupported_countries: Option<Vec<String>>,
    /// Package types it offers.
    pub package_types: Vec<ServicePackage>,
    /// US states and territories (as state codes) it does not deliver to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_states: Vec<String>,
    /// True if Saturday delivery can be asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub saturday_delivery: bool,
    /// True if AM (10:30) delivery can be asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub am_delivery: bool,
    /// Dangerous goods codes it accepts, comma separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dangerous_goods_codes: Option<String>,
}

/// A package type as offered by one service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServicePackage {
    /// Package type code.
    pub package_type: String,
    /// True if several pieces may travel together.
    pub multipiece: bool,
    /// A lower weight limit for this service, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_weight: Option<Decimal>,
}

/// A customer profile: which services a customer sees and the markup on carrier cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Profile {
    /// Code, e.g. `Default`.
    pub code: String,
    /// Name for people.
    pub label: String,
    /// Markup on carrier cost, in percent.
    pub markup_percent: Decimal,
    /// Service codes it offers; null for all.
    pub services: Option<Vec<String>>,
}

/// The checked, indexed catalog. Immutable; an import builds a new one.
#[derive(Debug, Clone)]
pub struct Catalog {
    doc: CatalogDocument,
    carriers: HashMap<String, usize>,
    services: HashMap<String, usize>,
    profiles: HashMap<String, usize>,
    /// The carrier of each service, by index: quoting asks for every service of every
    /// shipment, and a `String` hash per ask showed in the batch quote profile.
    service_carriers: Vec<usize>,
    /// Where each service goes, by index, as country sets ([`Catalog::serves_at`]);
    /// `None` for a service whose lists hold a code that is not two capitals.
    reach: Vec<Option<Reach>>,
    /// For each service (by index) and each of its package types, where that package
    /// type is in its carrier's list ([`Catalog::offered_package`]).
    service_packages: Vec<Vec<Option<usize>>>,
}

/// A set of two-letter country (or state) codes `AA` to `ZZ`, one bit each.
#[derive(Debug, Clone, Default)]
struct CountrySet([u64; 11]);

impl CountrySet {
    /// The bit of a code, if it is two ASCII capitals.
    fn bit(code: &str) -> Option<usize> {
        crate::refdata::code2_index(code)
    }

    /// The set of `codes`; `None` if one is not two capitals (then the lists decide).
    fn of<'a>(codes: impl IntoIterator<Item = &'a String>) -> Option<CountrySet> {
        let mut set = CountrySet::default();
        for c in codes {
            let bit = Self::bit(c)?;
            set.0[bit / 64] |= 1 << (bit % 64);
        }
        Some(set)
    }

    fn contains(&self, bit: usize) -> bool {
        self.0.get(bit / 64).is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }
}

/// A service's origins (its carrier's) and its foreign countries, as sets: what
/// [`Catalog::serves_with`] finds by scanning lists, for every service of every shipment.
#[derive(Debug, Clone)]
struct Reach {
    origins: CountrySet,
    /// The supported countries, or (`listed_are_supported` false) the unsupported ones.
    listed: CountrySet,
    listed_are_supported: bool,
    /// The US states the service does not deliver to.
    excluded_states: CountrySet,
}

impl Catalog {
    /// Parses and checks a catalog document.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming every inconsistency (unknown carrier of a service, a
    /// package type the carrier lacks, both or neither country list, ...).
    pub fn from_json(json: &str) -> Result<Catalog> {
        let doc: CatalogDocument = serde_json::from_str(json)
            .map_err(|e| Error::new(ErrorCategory::InvalidRequest, format!("The catalog is not valid: {e}.")).with_source(e))?;
        Self::from_document(doc)
    }

    /// A catalog stored by a build that knew no generic signature codes or carrier
    /// capabilities, read as if it had them.
    ///
    /// An option without a generic code takes that of the default catalog's option of
    /// the same carrier and code, unless another option of the carrier has it. An option
    /// the default catalog lacks keeps none, and so does every option when the codes
    /// taken would name two options of a carrier.
    ///
    /// A document none of whose carriers offers any capability ([`Carrier::offers_any`]:
    /// then no carrier has tracking numbers, and none could be booked) gives each carrier
    /// those of the default catalog's carrier of the same code; a carrier the default
    /// catalog lacks offers none of them.
    ///
    /// # Errors
    /// As [`Catalog::from_json`].
    pub(crate) fn stored(json: &str) -> Result<Catalog> {
        let invalid =
            |e: serde_json::Error| Error::new(ErrorCategory::InvalidRequest, format!("The catalog is not valid: {e}.")).with_source(e);
        let Ok(defaults) = Self::default_catalog() else { return Self::from_json(json) };
        let mut doc: CatalogDocument = serde_json::from_str(json).map_err(invalid)?;
        if !doc.carriers.iter().any(Carrier::offers_any) {
            for carrier in &mut doc.carriers {
                if let Some(default) = defaults.carrier(&carrier.code) {
                    carrier.offer_as(default);
                }
            }
        }
        for carrier in &mut doc.carriers {
            let Some(default) = defaults.carrier(&carrier.code) else { continue };
            for i in 0..carrier.signature_options.len() {
                let known = default.signature_options.iter().find(|d| d.code == carrier.signature_options[i].code);
                let Some(generic) = known.and_then(|d| d.generic.clone()) else { continue };
                let taken = carrier.signature_options.iter().any(|o| o.generic.as_deref() == Some(generic.as_str()));
                if carrier.signature_options[i].generic.is_none() && !taken {
                    carrier.signature_options[i].generic = Some(generic);
                }
            }
        }
        Self::from_document(doc).or_else(|_| Self::from_json(json))
    }

    /// The embedded default catalog.
    ///
    /// # Errors
    /// Only if the embedded data were broken, which a unit test rules out.
    pub fn default_catalog() -> Result<Catalog> {
        Self::from_json(default_catalog_json())
    }

    /// Checks and indexes a document.
    ///
    /// # Errors
    /// As [`Catalog::from_json`].
    pub fn from_document(doc: CatalogDocument) -> Result<Catalog> {
        let mut p = crate::error::Problems::new();
        let mut carriers = HashMap::new();
        for (i, c) in doc.carriers.iter().enumerate() {
            if carriers.insert(c.code.clone(), i).is_some() {
                p.push(format!("carriers[{i}].code"), format!("duplicate carrier {:?}", c.code));
            }
            for unit in [&c.weight_unit] {
                if unit != "lb" && unit != "kg" {
                    p.push(format!("carriers[{i}].weightUnit"), "expected lb or kg");
                }
            }
            // Each code a client may send must name one option.
            for (j, o) in c.signature_options.iter().enumerate() {
                if let Some(g) = &o.generic {
                    if !GENERIC_SIGNATURE_OPTIONS.contains(&g.as_str()) {
                        p.push(
                            format!("carriers[{i}].signatureOptions[{j}].generic"),
                            format!("expected one of {}, found {g:?}", GENERIC_SIGNATURE_OPTIONS.join(", ")),
                        );
                    }
                }
                let names = [Some(o.code.as_str()), o.generic.as_deref()];
                let earlier = &c.signature_options[..j];
                if names.into_iter().flatten().any(|name| earlier.iter().any(|e| e.is_named(name))) {
                    p.push(
                        format!("carriers[{i}].signatureOptions[{j}]"),
                        "its code or generic code names an earlier option of the carrier too",
                    );
                }
            }
            for (family, kind) in [("ground", &c.tracking_numbers.ground), ("express", &c.tracking_numbers.express)] {
                if let Some(kind) = kind.as_deref().filter(|k| TrackingKind::from_code(k).is_none()) {
                    let known: Vec<&str> = TrackingKind::ALL.iter().map(|k| k.code()).collect();
                    p.push(
                        format!("carriers[{i}].trackingNumbers.{family}"),
                        format!("expected one of {}, found {kind:?}", known.join(", ")),
                    );
                }
            }
            for (j, other) in c.accepts_events_of.iter().enumerate() {
                if !doc.carriers.iter().any(|o| &o.code == other) {
                    p.push(format!("carriers[{i}].acceptsEventsOf[{j}]"), format!("unknown carrier {other:?}"));
                }
            }
            for (j, pt) in c.package_types.iter().enumerate() {
                if !matches!(pt.dim_type.as_str(), "preset" | "envelope" | "custom") {
                    p.push(format!("carriers[{i}].packageTypes[{j}].dimType"), "expected preset, envelope or custom");
                }
                if pt.is_preset() && pt.preset_dims().is_none() {
                    p.push(
                        format!("carriers[{i}].packageTypes[{j}]"),
                        "a preset package type needs presetLength, presetWidth and presetHeight",
                    );
                }
                if pt.max_weight <= Decimal::ZERO {
                    p.push(format!("carriers[{i}].packageTypes[{j}].maxWeight"), "must be above zero");
                }
            }
        }
        let mut services = HashMap::new();
        for (i, s) in doc.services.iter().enumerate() {
            if services.insert(s.code.clone(), i).is_some() {
                p.push(format!("services[{i}].code"), format!("duplicate service {:?}", s.code));
            }
            let Some(&ci) = carriers.get(&s.carrier) else {
                p.push(format!("services[{i}].carrier"), format!("unknown carrier {:?}", s.carrier));
                continue;
            };
            if s.supported_countries.is_some() == s.unsupported_countries.is_some() {
                p.push(format!("services[{i}]"), "exactly one of supportedCountries and unsupportedCountries must be set");
            }
            for list in [&s.supported_countries, &s.unsupported_countries].into_iter().flatten() {
                for code in list {
                    if refdata::country(code).is_none() {
                        p.push(format!("services[{i}]"), format!("unknown country {code:?}"));
                    }
                }
            }
            if s.family != "ground" && s.family != "express" {
                p.push(format!("services[{i}].family"), "expected ground or express");
            }
            for (j, sp) in s.package_types.iter().enumerate() {
                if !doc.carriers[ci].package_types.iter().any(|pt| pt.code == sp.package_type) {
                    p.push(
                        format!("services[{i}].packageTypes[{j}]"),
                        format!("carrier {} has no package type {:?}", s.carrier, sp.package_type),
                    );
                }
            }
        }
        let mut profiles = HashMap::new();
        for (i, pr) in doc.profiles.iter().enumerate() {
            profiles.insert(pr.code.clone(), i);
            for code in pr.services.iter().flatten() {
                if !services.contains_key(code) {
                    p.push(format!("profiles[{i}].services"), format!("unknown service {code:?}"));
                }
            }
        }
        if !profiles.contains_key("Default") {
            p.push("profiles", "the Default profile must exist");
        }
        p.finish().map_err(|e| Error::new(ErrorCategory::InvalidRequest, format!("The catalog is not valid: {}", e.message())))?;
        let service_carriers: Vec<usize> = doc.services.iter().map(|s| carriers.get(&s.carrier).copied().unwrap_or(usize::MAX)).collect();
        let reach = doc
            .services
            .iter()
            .zip(&service_carriers)
            .map(|(s, &c)| {
                let origins = doc.carriers.get(c).and_then(|c| CountrySet::of(&c.origins))?;
                // No list at all is an empty list of unsupported countries: every country.
                let (listed, listed_are_supported) = match (&s.supported_countries, &s.unsupported_countries) {
                    (Some(l), _) => (CountrySet::of(l)?, true),
                    (None, Some(l)) => (CountrySet::of(l)?, false),
                    (None, None) => (CountrySet::default(), false),
                };
                let excluded_states = CountrySet::of(&s.excluded_states)?;
                Some(Reach { origins, listed, listed_are_supported, excluded_states })
            })
            .collect();
        let service_packages = doc
            .services
            .iter()
            .zip(&service_carriers)
            .map(|(s, &c)| {
                let offered = doc.carriers.get(c).map_or(&[][..], |c| &c.package_types[..]);
                s.package_types.iter().map(|sp| offered.iter().position(|pt| pt.code == sp.package_type)).collect()
            })
            .collect();
        Ok(Catalog { doc, carriers, services, profiles, service_carriers, reach, service_packages })
    }

    /// The document this catalog was built from.
    pub fn document(&self) -> &CatalogDocument {
        &self.doc
    }

    /// The carrier with `code`.
    pub fn carrier(&self, code: &str) -> Option<&Carrier> {
        self.carriers.get(code).map(|&i| &self.doc.carriers[i])
    }

    /// True if carrier `carrier` prints labels in `format` ([`Carrier::prints`]); a
    /// carrier the catalog lacks prints none.
    pub fn printable(&self, carrier: &str, format: LabelFormat) -> bool {
        self.carrier(carrier).is_some_and(|c| c.prints(format))
    }

    /// The carriers that offer what `offers` asks, for a message: `the postal carrier`,
    /// `the carriers postal, courier` or `no carrier`.
    pub fn offered_by(&self, offers: &dyn Fn(&Carrier) -> bool) -> String {
        let codes: Vec<&str> = self.doc.carriers.iter().filter(|c| offers(c)).map(|c| c.code.as_str()).collect();
        match codes.as_slice() {
            [] => "no carrier".to_string(),
            [one] => format!("the {one} carrier"),
            many => format!("the carriers {}", many.join(", ")),
        }
    }

    /// The service with `code`.
    pub fn service(&self, code: &str) -> Option<&Service> {
        self.services.get(code).map(|&i| &self.doc.services[i])
    }

    /// The profile with `code`.
    pub fn profile(&self, code: &str) -> Option<&Profile> {
        self.profiles.get(code).map(|&i| &self.doc.profiles[i])
    }

    /// Every service, in catalog order.
    pub fn services(&self) -> &[Service] {
        &self.doc.services
    }

    /// The package type `code` of `carrier`.
    pub fn package_type(&self, carrier: &str, code: &str) -> Option<&PackageType> {
        self.carrier(carrier)?.package_types.iter().find(|p| p.code == code)
    }

    /// The services a profile offers, in catalog order.
    pub fn services_for<'a>(&'a self, profile: &'a Profile) -> impl Iterator<Item = &'a Service> + 'a {
        self.doc.services.iter().filter(move |s| self.offers(profile, s))
    }

    /// True if `profile` offers `service`.
    pub fn offers(&self, profile: &Profile, service: &Service) -> bool {
        profile.services.as_ref().is_none_or(|list| list.contains(&service.code))
    }

    /// The carrier's package type that is the `package`-th of the `service`-th service's
    /// package types (indices in [`Catalog::services`] and its `package_types`): the
    /// search of the carrier's list by code, done once when the catalog is built.
    pub(crate) fn offered_package(&self, service: usize, package: usize) -> Option<&PackageType> {
        let at = (*self.service_packages.get(service)?.get(package)?)?;
        self.carrier_of(service)?.package_types.get(at)
    }

    /// The carrier of the service at `index` in [`Catalog::services`].
    pub(crate) fn carrier_of(&self, index: usize) -> Option<&Carrier> {
        self.service_carriers.get(index).and_then(|&i| self.doc.carriers.get(i))
    }

    /// True if `service` carries a shipment from `sender` to `receiver` (countries
    /// upper-case ISO codes; `receiver_state` the US state code when the receiver is US).
    pub fn serves(&self, service: &Service, sender: &str, receiver: &str, receiver_state: &str) -> bool {
        self.carrier(&service.carrier).is_some_and(|carrier| Self::serves_with(carrier, service, sender, receiver, receiver_state))
    }

    /// [`Catalog::serves_with`] for the service at `index` of [`Catalog::services`], with
    /// its carrier: set lookups instead of list scans.
    pub(crate) fn serves_at(&self, index: usize, carrier: &Carrier, sender: &str, receiver: &str, receiver_state: &str) -> bool {
        let (Some(Some(reach)), Some(service)) = (self.reach.get(index), self.doc.services.get(index)) else {
            return self.doc.services.get(index).is_some_and(|s| Self::serves_with(carrier, s, sender, receiver, receiver_state));
        };
        let (home, foreign) = if service.inbound { (receiver, sender) } else { (sender, receiver) };
        let (Some(home), Some(foreign_bit)) = (CountrySet::bit(home), CountrySet::bit(foreign)) else {
            return Self::serves_with(carrier, service, sender, receiver, receiver_state);
        };
        reach.origins.contains(home)
            && reach.listed.contains(foreign_bit) == reach.listed_are_supported
            && !(receiver == "US" && CountrySet::bit(receiver_state).is_some_and(|b| reach.excluded_states.contains(b)))
    }

    /// [`Catalog::serves`], given the service's carrier.
    pub(crate) fn serves_with(carrier: &Carrier, service: &Service, sender: &str, receiver: &str, receiver_state: &str) -> bool {
        let (home, foreign) = if service.inbound { (receiver, sender) } else { (sender, receiver) };
        if !carrier.origins.iter().any(|c| c == home) {
            return false;
        }
        let listed = |list: &Option<Vec<String>>| list.as_ref().is_some_and(|l| l.iter().any(|c| c == foreign));
        let country_ok = if service.supported_countries.is_some() {
            listed(&service.supported_countries)
        } else {
            !listed(&service.unsupported_countries)
        };
        country_ok && !(receiver == "US" && service.excluded_states.iter().any(|s| s == receiver_state))
    }

    /// List services (4.4) for a profile.
    pub fn list_services(&self, profile: &Profile) -> wire::ServicesResponse {
        let services = self
            .services_for(profile)
            .filter_map(|s| {
                let carrier = self.carrier(&s.carrier)?;
                Some(wire::ServiceEntry {
                    carrier_code: carrier.code.clone(),
                    carrier_label: carrier.label.clone(),
                    service_code: s.code.clone(),
                    service_label: s.label.clone(),
                    family: s.family.clone(),
                    inbound: s.inbound,
                    supported_countries: s.supported_countries.clone(),
                    unsupported_countries: s.unsupported_countries.clone(),
                    signature_options: carrier
                        .signature_options
                        .iter()
                        .map(|o| wire::SignatureOptionEntry {
                            signature_option_code: o.code.clone(),
                            signature_option_label: o.label.clone(),
                        })
                        .collect(),
                    supported_dangerous_goods_codes: s.dangerous_goods_codes.clone(),
                    supported_dangerous_good_codes: s.dangerous_goods_codes.clone(),
                    package_types: s
                        .package_types
                        .iter()
                        .filter_map(|sp| {
                            let pt = carrier.package_types.iter().find(|p| p.code == sp.package_type)?;
                            let preset = |d: Option<Decimal>| if pt.is_preset() { d.map(|d| d.normalize().to_string()) } else { None };
                            Some(wire::PackageTypeEntry {
                                package_type_code: pt.code.clone(),
                                package_type_label: pt.label.clone(),
                                multipiece_supported: sp.multipiece,
                                weight_unit: pt.weight_unit.clone(),
                                max_weight_per_piece: sp.max_weight.unwrap_or(pt.max_weight).normalize().to_string(),
                                dim_type: pt.dim_type.clone(),
                                dim_unit: if pt.is_preset() { pt.dim_unit.clone() } else { None },
                                preset_length: preset(pt.preset_length),
                                preset_width: preset(pt.preset_width),
                                preset_height: preset(pt.preset_height),
                            })
                        })
                        .collect(),
                })
            })
            .collect();
        wire::ServicesResponse { services }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A catalog stored before generic signature codes existed: the default catalog's
    /// document without them.
    pub(crate) fn without_generic_codes() -> serde_json::Value {
        let mut doc: serde_json::Value = serde_json::from_str(default_catalog_json()).unwrap();
        for carrier in doc["carriers"].as_array_mut().unwrap() {
            for option in carrier["signatureOptions"].as_array_mut().unwrap() {
                option.as_object_mut().unwrap().remove("generic");
            }
        }
        doc
    }

    #[test]
    fn a_stored_catalog_without_generic_codes_takes_the_default_ones() {
        let old = without_generic_codes();
        assert!(Catalog::from_json(&old.to_string()).unwrap().carrier("parcel").unwrap().signature_option("DIRECT").is_none());
        let stored = Catalog::stored(&old.to_string()).unwrap();
        let defaults = Catalog::default_catalog().unwrap();
        for carrier in &defaults.doc.carriers {
            assert_eq!(stored.carrier(&carrier.code).unwrap().signature_options, carrier.signature_options, "{}", carrier.code);
        }
        assert_eq!(stored.carrier("parcel").unwrap().signature_option("direct").unwrap().code, "parcel_signature");
    }

    #[test]
    fn options_the_default_lacks_or_codes_that_would_clash_keep_no_generic_code() {
        let mut doc = without_generic_codes();
        let options = doc["carriers"][0]["signatureOptions"].as_array_mut().unwrap();
        options[1]["code"] = serde_json::json!("my_adult_signature");
        options.push(serde_json::json!({"code": "direct", "label": "A carrier code that is the generic one"}));
        let stored = Catalog::stored(&doc.to_string()).unwrap();
        let options = &stored.doc.carriers[0].signature_options;
        assert!(options.iter().all(|o| o.generic.is_none()), "the clash keeps the catalog as stored: {options:?}");
        doc["carriers"][0]["signatureOptions"].as_array_mut().unwrap().pop();
        let stored = Catalog::stored(&doc.to_string()).unwrap();
        let generics: Vec<Option<&str>> = stored.doc.carriers[0].signature_options.iter().map(|o| o.generic.as_deref()).collect();
        assert_eq!(generics, [Some("direct"), None]);
    }

    /// The default catalog's document without the carrier capability fields: a catalog
    /// stored before carriers stated them.
    fn without_capabilities() -> serde_json::Value {
        let mut doc: serde_json::Value = serde_json::from_str(default_catalog_json()).unwrap();
        for carrier in doc["carriers"].as_array_mut().unwrap() {
            for field in [
                "scanBasedReturnLabels",
                "amDelivery",
                "dangerousGoods",
                "postalEndorsements",
                "customsDeclarationsAbroad",
                "usTerritoriesDomestic",
                "piecesInAnswer",
                "trackingNumbers",
                "pickupsByFamily",
                "pickupPackageLocation",
                "acceptsEventsOf",
            ] {
                carrier.as_object_mut().unwrap().remove(field);
            }
        }
        doc
    }

    #[test]
    fn a_stored_catalog_without_capabilities_takes_the_default_ones() {
        let old = without_capabilities();
        let read = Catalog::from_json(&old.to_string()).unwrap();
        assert!(!read.carrier("postal").unwrap().scan_based_return_labels, "a document without them offers none");
        assert_eq!(read.carrier("postal").unwrap().tracking_kind("ground"), None);
        let stored = Catalog::stored(&old.to_string()).unwrap();
        let defaults = Catalog::default_catalog().unwrap();
        for carrier in &defaults.doc.carriers {
            assert_eq!(stored.carrier(&carrier.code).unwrap(), carrier, "{}", carrier.code);
        }
    }

    #[test]
    fn a_stored_catalog_with_any_capability_is_read_as_stored() {
        let mut doc = without_capabilities();
        doc["carriers"][0]["amDelivery"] = serde_json::json!(true);
        let stored = Catalog::stored(&doc.to_string()).unwrap();
        assert!(stored.doc.carriers[0].am_delivery);
        assert!(stored.doc.carriers.iter().skip(1).all(|c| c.tracking_numbers.is_empty() && !c.scan_based_return_labels));
    }

    #[test]
    fn a_stored_carrier_the_default_catalog_lacks_offers_nothing() {
        let mut doc = without_capabilities();
        let mut courier = doc["carriers"][1].clone();
        courier["code"] = serde_json::json!("courier");
        doc["carriers"].as_array_mut().unwrap().push(courier);
        let stored = Catalog::stored(&doc.to_string()).unwrap();
        let courier = stored.carrier("courier").unwrap();
        let plain = Catalog::from_json(&without_capabilities().to_string()).unwrap();
        let postal_without = plain.carrier("postal").unwrap();
        assert_eq!(Carrier { code: "postal".into(), ..courier.clone() }, *postal_without);
        assert!(stored.carrier("postal").unwrap().scan_based_return_labels);
    }

    /// The default carriers' tracking number kinds, by family.
    #[test]
    fn default_tracking_kinds() {
        let c = Catalog::default_catalog().unwrap();
        let kind = |carrier: &str, family: &str| c.carrier(carrier).unwrap().tracking_kind(family);
        assert_eq!(kind("parcel", "express"), Some(TrackingKind::Parcel));
        assert_eq!(kind("parcel", "ground"), Some(TrackingKind::Parcel));
        assert_eq!(kind("postal", "express"), Some(TrackingKind::Postal));
        assert_eq!(kind("intlexpress", "express"), Some(TrackingKind::IntlExpress));
        assert_eq!(kind("expressground", "express"), Some(TrackingKind::ExpressGroundExpress));
        assert_eq!(kind("expressground", "ground"), Some(TrackingKind::ExpressGroundGround));
        assert_eq!(kind("ecommerce", "express"), Some(TrackingKind::Ecommerce));
        assert_eq!(kind("consolidator", "express"), Some(TrackingKind::Consolidator));
        assert_eq!(kind("worldexpress", "ground"), Some(TrackingKind::WorldExpress));
    }

    /// The default carriers print what the interface documents: EPL2 carrier D only, ZPL
    /// carriers A, B and D, PDF every carrier.
    #[test]
    fn default_label_formats() {
        let c = Catalog::default_catalog().unwrap();
        for carrier in &c.doc.carriers {
            let code = carrier.code.as_str();
            assert!(c.printable(code, LabelFormat::Pdf), "{code}");
            assert_eq!(c.printable(code, LabelFormat::Epl2), code == "expressground", "{code}");
            assert_eq!(c.printable(code, LabelFormat::Zpl), matches!(code, "parcel" | "postal" | "expressground"), "{code}");
        }
        assert!(!c.printable("nobody", LabelFormat::Pdf));
    }

    /// The country sets answer as the lists do, for every service and route.
    #[test]
    fn serves_at_is_serves_with() {
        let c = Catalog::default_catalog().unwrap();
        let countries = ["US", "CA", "GB", "DE", "FR", "MX", "JP", "AU", "PR", "GU", "VI", "KP", "CU", "ZZ", "us", "", "USA"];
        let mut answers = [0usize; 2];
        for (i, service) in c.services().iter().enumerate() {
            let carrier = c.carrier_of(i).unwrap();
            for from in countries {
                for to in countries {
                    for state in ["CA", "AK", "HI", "PR", "AE", "ak", "", "AKA"] {
                        let fast = c.serves_at(i, carrier, from, to, state);
                        assert_eq!(fast, Catalog::serves_with(carrier, service, from, to, state), "{} {from}->{to} {state}", service.code);
                        answers[usize::from(fast)] += 1;
                    }
                }
            }
        }
        assert!(answers[0] > 0 && answers[1] > 0, "{answers:?}");
    }

    #[test]
    fn offered_package_is_the_carrier_list_searched_by_code() {
        let c = Catalog::default_catalog().unwrap();
        let mut found = 0;
        for (i, service) in c.services().iter().enumerate() {
            let carrier = c.carrier_of(i).unwrap();
            for (j, sp) in service.package_types.iter().enumerate() {
                let searched = carrier.package_types.iter().find(|pt| pt.code == sp.package_type);
                assert_eq!(c.offered_package(i, j).map(|pt| &pt.code), searched.map(|pt| &pt.code), "{} {}", service.code, sp.package_type);
                found += usize::from(searched.is_some());
            }
            assert_eq!(c.offered_package(i, service.package_types.len()).map(|pt| &pt.code), None);
        }
        assert!(found > 0);
        assert!(c.offered_package(c.services().len(), 0).is_none());
    }

    #[test]
    fn the_default_catalog_is_consistent() {
        let c = Catalog::default_catalog().unwrap();
        for kind in ["parcel", "postal", "expressground"] {
            assert!(c.services().iter().filter(|s| s.carrier == kind).count() >= 5, "{kind}");
        }
        for kind in ["intlexpress", "ecommerce"] {
            assert!(c.services().iter().filter(|s| s.carrier == kind).count() >= 3, "{kind}");
        }
        assert!(c.services().iter().any(|s| s.inbound));
        assert!(c.profile("Default").is_some());
    }

    #[test]
    fn a_catalog_with_a_service_of_an_unknown_carrier_is_refused() {
        let mut doc = Catalog::default_catalog().unwrap().document().clone();
        doc.services[0].carrier = "nobody".into();
        let e = Catalog::from_document(doc).unwrap_err();
        assert!(e.message().contains("unknown carrier"), "{}", e.message());
    }

    #[test]
    fn routes() {
        let c = Catalog::default_catalog().unwrap();
        let s = |code| c.service(code).unwrap();
        assert!(c.serves(s("parcel_ground"), "US", "US", "NY"));
        assert!(!c.serves(s("parcel_ground"), "US", "GB", ""));
        assert!(!c.serves(s("parcel_ground"), "US", "US", "GU"));
        assert!(c.serves(s("parcel_worldwide_express"), "US", "GB", ""));
        assert!(!c.serves(s("parcel_worldwide_express"), "US", "US", "NY"));
        assert!(!c.serves(s("parcel_worldwide_express"), "US", "KP", ""));
        // Inbound: the lists name sender countries, the receiver is at home.
        assert!(c.serves(s("parcel_worldwide_express_import"), "GB", "US", "NY"));
        assert!(!c.serves(s("parcel_worldwide_express_import"), "US", "GB", ""));
        assert!(c.serves(s("postal_priority_mail"), "US", "GU", ""));
    }
}
