//! Building the in-memory [`RateBook`] from validated rows.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;

use rusqlite::Connection;
use rust_decimal::Decimal;

use super::fixed::D;
use super::store::{export_csv, parse_rows, CsvKind, KeyRule, Row};
use super::{zones, Currency, DimUnit, Place, RateBook, Scale, WeightUnit, Zone};

/// Why rate data could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RateBookError {
    /// Database error.
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The rate data is inconsistent; the message names the card, chart or row.
    #[error("{0}")]
    Invalid(String),
}

/// Which address a zone chart keys on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Basis {
    Receiver,
    Sender,
}

impl Basis {
    pub(crate) fn parse(s: &str) -> Option<Basis> {
        match s {
            "receiver" => Some(Basis::Receiver),
            "sender" => Some(Basis::Sender),
            _ => None,
        }
    }
}

/// How a chart zones one country.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ZoneRule {
    Fixed(Zone),
    Distance { territory_rules: bool },
}

#[derive(Debug, Clone)]
pub(crate) struct Chart {
    pub basis: Basis,
    /// Indexed by country (A-Z x A-Z).
    pub rules: Box<[Option<ZoneRule>]>,
}

impl Chart {
    #[inline(always)]
    pub(crate) fn rule(&self, country: &str) -> Option<ZoneRule> {
        let b = country.as_bytes();
        if b.len() != 2 || !b.iter().all(u8::is_ascii_uppercase) {
            return None;
        }
        let i = usize::from(b[0] - b'A') * 26 + usize::from(b[1] - b'A');
        self.rules.get(i).copied().flatten()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Carrier {
    pub currency: Currency,
    pub weight_unit: WeightUnit,
    pub step: Decimal,
    pub dim_unit: DimUnit,
    pub dim_min_volume: Decimal,
    /// dim_divisor x step: the volume of one weight step.
    pub dim_volume_per_step: Decimal,
}

/// Prices of one zone of a card (`zone` None: the zone-independent `*` prices).
#[derive(Debug, Clone)]
pub(crate) struct ZonePrices {
    pub zone: Option<Zone>,
    /// (upper limit in weight steps, price), ascending.
    pub breaks: Vec<(u32, Decimal)>,
    /// Price of each further weight step beyond the last break.
    pub extra_per_step: Option<Decimal>,
    pub minimum: Option<Decimal>,
}

/// Breaks tried one by one before the binary search of [`ZonePrices::price`].
const HEAD: usize = 8;

impl ZonePrices {
    #[inline(always)]
    pub(crate) fn price(&self, steps: u32) -> Option<Decimal> {
        // The first break at or above `steps`. Most parcels are light, so the first few
        // breaks are tried in turn before the rest is searched.
        let head = self.breaks.get(..HEAD).unwrap_or(&self.breaks);
        let i = match head.iter().position(|b| b.0 >= steps) {
            Some(i) => i,
            None => head.len() + self.breaks[head.len()..].partition_point(|b| b.0 < steps),
        };
        if let Some(b) = self.breaks.get(i) {
            return Some(b.1);
        }
        let (last, price) = *self.breaks.last()?;
        price.checked_add(self.extra_per_step?.checked_mul(Decimal::from(steps - last))?)
    }

    pub(crate) fn max_weight(&self, step: Decimal) -> Decimal {
        self.breaks.last().map_or(Decimal::ZERO, |b| Decimal::from(b.0) * step)
    }
}

/// Delivery area ZIPs of a carrier (or service).
#[derive(Debug, Default)]
pub(crate) struct Area {
    /// (zip3, or 1_000_000 + zip5, amount), sorted by key.
    entries: Box<[(u32, Decimal)]>,
    /// Bit p set when an entry is the ZIP3 p or a ZIP5 under it: most receivers
    /// are in no listed prefix and need no search.
    prefixes: [u64; 16],
}

impl Area {
    fn new(mut entries: Vec<(u32, Decimal)>) -> Area {
        entries.sort_by_key(|e| e.0);
        let mut prefixes = [0u64; 16];
        for &(k, _) in &entries {
            let p = if k >= 1_000_000 { (k - 1_000_000) / 100 } else { k };
            // a key whose prefix is above 1023 cannot match a ZIP code anyway
            if let Some(w) = prefixes.get_mut((p / 64) as usize) {
                *w |= 1 << (p % 64);
            }
        }
        Area { entries: entries.into_boxed_slice(), prefixes }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Shared between the cards of a carrier.
pub(crate) type AreaList = Arc<Area>;

/// Surcharge parameters of one card (service rows resolved over `*` rows).
#[derive(Debug, Clone, Default)]
pub(crate) struct Surcharges {
    /// Fuel percent / 100.
    pub fuel_fraction: Decimal,
    pub residential: Option<Decimal>,
    pub area: AreaList,
    pub signature: Vec<(Box<str>, Decimal)>,
    pub insurance_per_100: Option<Decimal>,
    pub insurance_min: Decimal,
    pub saturday: Option<Decimal>,
    pub am: Option<Decimal>,
    pub dangerous_goods: Option<Decimal>,
    /// (threshold, amount) rules, unpacked for the hot path.
    pub handling_weight: Vec<(D, D)>,
    pub handling_length: Vec<(D, D)>,
    pub oversize_length: Vec<(D, D)>,
    pub oversize_girth: Vec<(D, D)>,
}

/// The largest amount of the rules whose threshold (times `unit`) `v` is above (the
/// last of equal amounts, as `Iterator::max`), or zero.
#[inline(always)]
fn max_over(rules: &[(D, D)], v: D, unit: D) -> D {
    let one = unit.m == 1 && unit.s == 0;
    let mut best: Option<D> = None;
    for &(thr, a) in rules {
        // A threshold too large to scale is above any piece.
        let above = if one { v.gt(thr) } else { thr.checked_mul(unit).is_some_and(|t| v.gt(t)) };
        if above {
            best = Some(match best {
                Some(b) if b.gt(a) => b,
                _ => a,
            });
        }
    }
    best.unwrap_or(D::ZERO)
}

impl Surcharges {
    /// (additional handling, oversize) of one piece; oversize replaces handling. The
    /// piece's weight and dims are in the unit `scale` brings the thresholds to.
    #[inline]
    pub(crate) fn piece_handling(&self, actual: D, dims: Option<[D; 3]>, scale: Scale) -> (D, D) {
        if let Some([l, w, h]) = dims {
            let mut oversize = max_over(&self.oversize_length, l, scale.length);
            if !self.oversize_girth.is_empty() {
                let girth = w
                    .checked_add(h)
                    .and_then(|wh| wh.checked_mul(D { m: 2, s: 0 }))
                    .and_then(|wh2| l.checked_add(wh2))
                    .unwrap_or_else(|| D::pos(l.dec() + (w.dec() + h.dec()) * Decimal::TWO));
                oversize = oversize.max(max_over(&self.oversize_girth, girth, scale.length));
            }
            if !oversize.is_zero() {
                // an oversize piece pays no additional handling
                return (D::ZERO, oversize);
            }
        }
        let mut handling = max_over(&self.handling_weight, actual, scale.weight);
        if let (Some([l, _, _]), false) = (dims, self.handling_length.is_empty()) {
            handling = handling.max(max_over(&self.handling_length, l, scale.length));
        }
        let oversize = D::ZERO;
        (handling, oversize)
    }

    #[inline(always)]
    pub(crate) fn delivery_area(&self, to: Place<'_>) -> Option<Decimal> {
        if self.area.is_empty() || !zones::is_us_domain(to.country) {
            return None;
        }
        let b = to.zip?.as_bytes();
        if b.len() < 5 || !b[..5].iter().all(u8::is_ascii_digit) {
            return None;
        }
        let zip5 = b[..5].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
        let zip3 = zip5 / 100;
        if self.area.prefixes[(zip3 / 64) as usize] & (1 << (zip3 % 64)) == 0 {
            return None;
        }
        let e = &self.area.entries;
        let find = |k: u32| e.binary_search_by_key(&k, |e| e.0).ok().map(|i| e[i].1);
        find(1_000_000 + zip5).or_else(|| find(zip5 / 100))
    }
}

/// The kinds of the surcharges file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SurchargeType {
    Fuel,
    Residential,
    DeliveryArea,
    Signature,
    Insurance,
    InsuranceMin,
    Saturday,
    Am,
    DangerousGoods,
    HandlingWeight,
    HandlingLength,
    OversizeLength,
    OversizeGirth,
}

impl SurchargeType {
    pub(crate) fn parse(s: &str) -> Option<SurchargeType> {
        use SurchargeType::*;
        Some(match s {
            "fuel" => Fuel,
            "residential" => Residential,
            "delivery_area" => DeliveryArea,
            "signature" => Signature,
            "insurance" => Insurance,
            "insurance_min" => InsuranceMin,
            "saturday" => Saturday,
            "am" => Am,
            "dangerous_goods" => DangerousGoods,
            "handling_weight" => HandlingWeight,
            "handling_length" => HandlingLength,
            "oversize_length" => OversizeLength,
            "oversize_girth" => OversizeGirth,
            _ => return None,
        })
    }

    pub(crate) fn key_rule(self) -> KeyRule {
        use SurchargeType::*;
        match self {
            DeliveryArea => KeyRule::Zip,
            Signature => KeyRule::Code,
            HandlingWeight | HandlingLength | OversizeLength | OversizeGirth => KeyRule::Threshold,
            _ => KeyRule::Empty,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Card {
    pub carrier: Box<str>,
    pub service: Box<str>,
    pub package_type: Box<str>,
    pub carrier_idx: u16,
    pub chart: u16,
    /// Zone-independent prices (`*`).
    pub flat: bool,
    pub zones: Vec<ZonePrices>,
    pub surcharges: Surcharges,
}

/// Default exchange rates (per USD) for currencies the table does not list.
const DEFAULT_PER_USD: [Decimal; 4] = [
    Decimal::ONE,
    Decimal::from_parts(76, 0, 0, false, 2),
    Decimal::from_parts(139, 0, 0, false, 2),
    Decimal::from_parts(87, 0, 0, false, 2),
];

fn dec(s: &str) -> Result<Decimal, RateBookError> {
    Decimal::from_str(s).map_err(|_| RateBookError::Invalid(format!("not a decimal: {s:?}")))
}

fn rows(kind: CsvKind, text: &str) -> Result<Vec<Row>, RateBookError> {
    parse_rows(kind, text).map_err(|errs| {
        let first = errs.first().map(ToString::to_string).unwrap_or_default();
        RateBookError::Invalid(format!("{} data: {} invalid row(s), first: {first}", kind.as_str(), errs.len()))
    })
}

impl RateBook {
    /// The book of the embedded default rate data (core/data/rates), without SQL.
    ///
    /// # Errors
    /// [`RateBookError::Invalid`] if the embedded data is inconsistent (the tests
    /// prove it is not).
    pub fn default_book() -> Result<RateBook, RateBookError> {
        Self::from_csv(|k| Ok(k.default_csv().to_owned()))
    }

    /// Loads the book from the `rate_*` tables.
    ///
    /// # Errors
    /// [`RateBookError`] on a database error or inconsistent data (e.g. a card that
    /// names an unknown chart or carrier).
    pub fn load(conn: &Connection) -> Result<RateBook, RateBookError> {
        Self::from_csv(|k| export_csv(conn, k))
    }

    fn from_csv(mut text: impl FnMut(CsvKind) -> Result<String, RateBookError>) -> Result<RateBook, RateBookError> {
        let carriers = rows(CsvKind::Carriers, &text(CsvKind::Carriers)?)?;
        let fx = rows(CsvKind::ExchangeRates, &text(CsvKind::ExchangeRates)?)?;
        let zones = rows(CsvKind::Zones, &text(CsvKind::Zones)?)?;
        let prices = rows(CsvKind::Rates, &text(CsvKind::Rates)?)?;
        let sur = rows(CsvKind::Surcharges, &text(CsvKind::Surcharges)?)?;
        // build the ZIP3 distance table (once per process) at book load, not on the first quote
        super::zones::warm_up();
        build(&carriers, &fx, &zones, &prices, &sur)
    }
}

fn build(
    carrier_rows: &[Row],
    fx_rows: &[Row],
    zone_rows: &[Row],
    price_rows: &[Row],
    sur_rows: &[Row],
) -> Result<RateBook, RateBookError> {
    let invalid = |s: String| RateBookError::Invalid(s);
    // carriers
    let mut carrier_idx: BTreeMap<&str, u16> = BTreeMap::new();
    let mut carriers = Vec::new();
    for r in carrier_rows {
        let f = &r.fields;
        let parse = |s: &str| invalid(format!("carrier {}: bad value {s:?}", f[0]));
        carrier_idx.insert(&f[0], carriers.len() as u16);
        let step = dec(&f[3])?;
        let dim_divisor = dec(&f[5])?;
        if step.is_zero() || dim_divisor.is_zero() {
            return Err(invalid(format!("carrier {}: step and divisor must be above 0", f[0])));
        }
        carriers.push(Carrier {
            currency: Currency::from_str(&f[1]).map_err(|_| parse(&f[1]))?,
            weight_unit: WeightUnit::from_str(&f[2]).map_err(|_| parse(&f[2]))?,
            step,
            dim_unit: DimUnit::from_str(&f[4]).map_err(|_| parse(&f[4]))?,
            dim_min_volume: dec(&f[6])?,
            dim_volume_per_step: dim_divisor * step,
        });
    }
    // exchange
    let mut per_usd = DEFAULT_PER_USD;
    for r in fx_rows {
        if let Ok(c) = Currency::from_str(&r.fields[0]) {
            per_usd[c as usize] = dec(&r.fields[1])?;
        }
    }
    let mut fx = [[Decimal::ONE; 4]; 4];
    for (i, row) in fx.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            if i != j {
                *v = per_usd[j] / per_usd[i];
            }
        }
    }
    // charts
    let mut chart_idx: BTreeMap<&str, u16> = BTreeMap::new();
    let mut charts: Vec<Chart> = Vec::new();
    for r in zone_rows {
        let f = &r.fields;
        let basis = Basis::parse(&f[1]).ok_or_else(|| invalid(format!("chart {}: bad basis", f[0])))?;
        let i = *chart_idx.entry(&f[0]).or_insert_with(|| {
            charts.push(Chart { basis, rules: vec![None; 26 * 26].into_boxed_slice() });
            (charts.len() - 1) as u16
        });
        let chart = &mut charts[usize::from(i)];
        if chart.basis != basis {
            return Err(invalid(format!("chart {}: more than one basis", f[0])));
        }
        let rule = match f[3].as_str() {
            "distance" => ZoneRule::Distance { territory_rules: false },
            "distance-t9" => ZoneRule::Distance { territory_rules: true },
            z => ZoneRule::Fixed(Zone::new(z).ok_or_else(|| invalid(format!("chart {}: bad zone {z:?}", f[0])))?),
        };
        let b = f[2].as_bytes();
        if b.len() == 2 && b.iter().all(u8::is_ascii_uppercase) {
            chart.rules[usize::from(b[0] - b'A') * 26 + usize::from(b[1] - b'A')] = Some(rule);
        }
    }
    // surcharge rows by carrier
    let mut sur_by_carrier: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in sur_rows {
        if !carrier_idx.contains_key(r.fields[0].as_str()) {
            return Err(invalid(format!("surcharges: carrier {:?} is not in the carriers data", r.fields[0])));
        }
        sur_by_carrier.entry(&r.fields[0]).or_default().push(r);
    }
    // cards
    let mut by_card: BTreeMap<(&str, &str, &str), Vec<&Row>> = BTreeMap::new();
    for r in price_rows {
        let f = &r.fields;
        by_card.entry((&f[0], &f[1], &f[2])).or_default().push(r);
    }
    let mut area_cache: BTreeMap<(&str, Option<&str>), AreaList> = BTreeMap::new();
    let mut cards = Vec::with_capacity(by_card.len());
    for ((carrier, service, pt), rs) in by_card {
        let name = format!("rate card {carrier}/{service}/{pt}");
        let ci = *carrier_idx.get(carrier).ok_or_else(|| invalid(format!("{name}: carrier {carrier:?} is not in the carriers data")))?;
        let c = &carriers[usize::from(ci)];
        let chart_name = rs.first().map_or("", |r| r.fields[3].as_str());
        let chart = *chart_idx.get(chart_name).ok_or_else(|| invalid(format!("{name}: zone chart {chart_name:?} does not exist")))?;
        let mut zones: Vec<ZonePrices> = Vec::new();
        for r in &rs {
            let f = &r.fields;
            if f[3] != chart_name {
                return Err(invalid(format!("{name}: more than one zone chart")));
            }
            let zone = if f[4] == "*" { None } else { Some(Zone::new(&f[4]).ok_or_else(|| invalid(format!("{name}: bad zone")))?) };
            let zp = match zones.iter_mut().position(|z| z.zone == zone) {
                Some(i) => &mut zones[i],
                None => {
                    zones.push(ZonePrices { zone, breaks: Vec::new(), extra_per_step: None, minimum: None });
                    let n = zones.len() - 1;
                    &mut zones[n]
                }
            };
            let price = dec(&f[6])?;
            match f[5].as_str() {
                "each" => zp.extra_per_step = Some(price * c.step),
                "min" => zp.minimum = Some(price),
                w => {
                    let w = dec(w)?;
                    let steps = w / c.step;
                    if steps.fract() != Decimal::ZERO {
                        return Err(invalid(format!("{name}: weight break {w} is not a multiple of the carrier's weight step {}", c.step)));
                    }
                    let steps =
                        u32::try_from(steps.trunc().mantissa()).map_err(|_| invalid(format!("{name}: weight break {w} too large")))?;
                    zp.breaks.push((steps, price));
                }
            }
        }
        let flat = zones.iter().any(|z| z.zone.is_none());
        if flat && zones.len() > 1 {
            return Err(invalid(format!("{name}: mixes zone * with zone prices")));
        }
        for z in &mut zones {
            z.breaks.sort_by_key(|b| b.0);
            if z.breaks.is_empty() {
                return Err(invalid(format!("{name}: zone {} has no weight breaks", z.zone.map_or("*".to_string(), |z| z.to_string()))));
            }
        }
        // surcharges: service rows of a kind replace the carrier's * rows of that kind
        let all: &[&Row] = sur_by_carrier.get(carrier).map_or(&[], |v| v.as_slice());
        let mut s = Surcharges::default();
        let mut kinds_with_service: Vec<SurchargeType> =
            all.iter().filter(|r| r.fields[1] == service).filter_map(|r| SurchargeType::parse(&r.fields[2])).collect();
        kinds_with_service.sort();
        let mut area_override = false;
        for r in all {
            let f = &r.fields;
            let Some(t) = SurchargeType::parse(&f[2]) else {
                continue;
            };
            let specific = f[1] == service;
            if !(specific || (f[1] == "*" && kinds_with_service.binary_search(&t).is_err())) {
                continue;
            }
            let amount = dec(&f[4])?;
            let key = || dec(&f[3]);
            match t {
                SurchargeType::Fuel => s.fuel_fraction = amount / Decimal::ONE_HUNDRED,
                SurchargeType::Residential => s.residential = Some(amount),
                SurchargeType::DeliveryArea => area_override |= specific,
                SurchargeType::Signature => s.signature.push((f[3].clone().into_boxed_str(), amount)),
                SurchargeType::Insurance => s.insurance_per_100 = Some(amount),
                SurchargeType::InsuranceMin => s.insurance_min = amount,
                SurchargeType::Saturday => s.saturday = Some(amount),
                SurchargeType::Am => s.am = Some(amount),
                SurchargeType::DangerousGoods => s.dangerous_goods = Some(amount),
                SurchargeType::HandlingWeight => s.handling_weight.push((D::pos(key()?), D::pos(amount))),
                SurchargeType::HandlingLength => s.handling_length.push((D::pos(key()?), D::pos(amount))),
                SurchargeType::OversizeLength => s.oversize_length.push((D::pos(key()?), D::pos(amount))),
                SurchargeType::OversizeGirth => s.oversize_girth.push((D::pos(key()?), D::pos(amount))),
            }
        }
        let area_key = (carrier, area_override.then_some(service));
        s.area = area_cache
            .entry(area_key)
            .or_insert_with(|| {
                let v: Vec<(u32, Decimal)> = all
                    .iter()
                    .filter(|r| r.fields[2] == "delivery_area")
                    .filter(|r| if area_override { r.fields[1] == service } else { r.fields[1] == "*" })
                    .filter_map(|r| {
                        let k: u32 = r.fields[3].parse().ok()?;
                        let k = if r.fields[3].len() == 5 { 1_000_000 + k } else { k };
                        Some((k, Decimal::from_str(&r.fields[4]).ok()?))
                    })
                    .collect();
                Arc::new(Area::new(v))
            })
            .clone();
        cards.push(Card {
            carrier: carrier.into(),
            service: service.into(),
            package_type: pt.into(),
            carrier_idx: ci,
            chart,
            flat,
            zones,
            surcharges: s,
        });
    }
    Ok(RateBook { carriers, charts, cards, fx })
}
