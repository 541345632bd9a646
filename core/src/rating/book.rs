//! The in-memory [`RateBook`] and how it is built from the rows of the rate data.
//! Where the rows come from (the tables, or the embedded files) is `store`'s concern.

use std::collections::BTreeMap;
use std::sync::Arc;

use rust_decimal::Decimal;

use super::fixed::D;
use chrono::NaiveDate;

use super::rows::{Basis, Break, CalendarEntry, RateRows, SurchargeKey, SurchargeRow, SurchargeType, ZoneRule};
use super::transit::{Calendar, Days, Holidays, ServiceTransit, TransitTable};
use super::{zones, Currency, DimUnit, Place, RateBook, Scale, WeightUnit, Zone};

/// Why rate data could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RateBookError {
    /// Database error, as the store reports it.
    #[error("database error: {0}")]
    Sql(#[from] crate::Error),
    /// The rate data is inconsistent; the message names the card, chart or row.
    #[error("{0}")]
    Invalid(String),
    /// Rate data could not be written as CSV.
    #[error("could not write CSV: {0}")]
    Csv(#[from] csv::Error),
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
    /// When the card's service arrives; `None` without transit rows.
    pub transit: Option<Arc<ServiceTransit>>,
}

/// Default exchange rates (per USD) for currencies the table does not list.
const DEFAULT_PER_USD: [Decimal; 4] = [
    Decimal::ONE,
    Decimal::from_parts(76, 0, 0, false, 2),
    Decimal::from_parts(139, 0, 0, false, 2),
    Decimal::from_parts(87, 0, 0, false, 2),
];

/// Builds the book from rows that each passed their checks; what only the whole data
/// can show (a card naming a chart that does not exist, a weight break off the
/// carrier's step) is checked here.
///
/// # Errors
/// [`RateBookError::Invalid`] naming the card, chart or carrier.
pub(crate) fn build(rows: &RateRows) -> Result<RateBook, RateBookError> {
    let invalid = |s: String| RateBookError::Invalid(s);
    // build the ZIP3 distance table (once per process) at book load, not on the first quote
    zones::warm_up();
    // carriers
    let mut carrier_idx: BTreeMap<&str, u16> = BTreeMap::new();
    let mut carriers = Vec::new();
    for r in &rows.carriers {
        carrier_idx.insert(&r.carrier, carriers.len() as u16);
        if r.weight_step.is_zero() || r.dim_divisor.is_zero() {
            return Err(invalid(format!("carrier {}: step and divisor must be above 0", r.carrier)));
        }
        carriers.push(Carrier {
            currency: r.currency,
            weight_unit: r.weight_unit,
            step: r.weight_step,
            dim_unit: r.dim_unit,
            dim_min_volume: r.dim_min_volume,
            dim_volume_per_step: r.dim_divisor * r.weight_step,
        });
    }
    // exchange
    let mut per_usd = DEFAULT_PER_USD;
    for r in &rows.exchange {
        per_usd[r.currency as usize] = r.per_usd;
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
    for r in &rows.zones {
        let i = *chart_idx.entry(&r.chart).or_insert_with(|| {
            charts.push(Chart { basis: r.basis, rules: vec![None; 26 * 26].into_boxed_slice() });
            (charts.len() - 1) as u16
        });
        let chart = &mut charts[usize::from(i)];
        if chart.basis != r.basis {
            return Err(invalid(format!("chart {}: more than one basis", r.chart)));
        }
        let b = r.country.as_bytes();
        if b.len() == 2 && b.iter().all(u8::is_ascii_uppercase) {
            chart.rules[usize::from(b[0] - b'A') * 26 + usize::from(b[1] - b'A')] = Some(r.zone);
        }
    }
    // surcharge rows by carrier
    let mut sur_by_carrier: BTreeMap<&str, Vec<&SurchargeRow>> = BTreeMap::new();
    for r in &rows.surcharges {
        if !carrier_idx.contains_key(r.carrier.as_str()) {
            return Err(invalid(format!("surcharges: carrier {:?} is not in the carriers data", r.carrier)));
        }
        sur_by_carrier.entry(&r.carrier).or_default().push(r);
    }
    let transit = transit_by_service(rows, &carrier_idx)?;
    // cards
    let mut by_card: BTreeMap<(&str, &str, &str), Vec<_>> = BTreeMap::new();
    for r in &rows.prices {
        by_card.entry((r.carrier.as_str(), r.service.as_str(), r.package_type.as_str())).or_default().push(r);
    }
    let mut area_cache: BTreeMap<(&str, Option<&str>), AreaList> = BTreeMap::new();
    let mut cards = Vec::with_capacity(by_card.len());
    for ((carrier, service, pt), rs) in by_card {
        let name = format!("rate card {carrier}/{service}/{pt}");
        let ci = *carrier_idx.get(carrier).ok_or_else(|| invalid(format!("{name}: carrier {carrier:?} is not in the carriers data")))?;
        let c = &carriers[usize::from(ci)];
        let chart_name = rs.first().map_or("", |r| r.chart.as_str());
        let chart = *chart_idx.get(chart_name).ok_or_else(|| invalid(format!("{name}: zone chart {chart_name:?} does not exist")))?;
        let mut zones: Vec<ZonePrices> = Vec::new();
        for r in &rs {
            if r.chart != chart_name {
                return Err(invalid(format!("{name}: more than one zone chart")));
            }
            let zp = match zones.iter_mut().position(|z| z.zone == r.zone) {
                Some(i) => &mut zones[i],
                None => {
                    zones.push(ZonePrices { zone: r.zone, breaks: Vec::new(), extra_per_step: None, minimum: None });
                    let n = zones.len() - 1;
                    &mut zones[n]
                }
            };
            match r.weight {
                Break::Each => zp.extra_per_step = Some(r.price * c.step),
                Break::Min => zp.minimum = Some(r.price),
                Break::UpTo(w) => {
                    let steps = w / c.step;
                    if steps.fract() != Decimal::ZERO {
                        return Err(invalid(format!("{name}: weight break {w} is not a multiple of the carrier's weight step {}", c.step)));
                    }
                    let steps =
                        u32::try_from(steps.trunc().mantissa()).map_err(|_| invalid(format!("{name}: weight break {w} too large")))?;
                    zp.breaks.push((steps, r.price));
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
        let all: &[&SurchargeRow] = sur_by_carrier.get(carrier).map_or(&[], |v| v.as_slice());
        let for_service = |r: &SurchargeRow| r.service.as_deref() == Some(service);
        let mut s = Surcharges::default();
        let mut kinds_with_service: Vec<SurchargeType> = all.iter().filter(|r| for_service(r)).map(|r| r.kind).collect();
        kinds_with_service.sort();
        let mut area_override = false;
        for r in all {
            let specific = for_service(r);
            if !(specific || (r.service.is_none() && kinds_with_service.binary_search(&r.kind).is_err())) {
                continue;
            }
            let amount = r.amount;
            let rule = |key: &SurchargeKey| match key {
                SurchargeKey::Threshold(t) => Ok((D::pos(*t), D::pos(amount))),
                _ => Err(invalid(format!("surcharges of carrier {carrier}: {} needs a threshold", r.kind.as_str()))),
            };
            match (r.kind, &r.key) {
                (SurchargeType::Fuel, _) => s.fuel_fraction = amount / Decimal::ONE_HUNDRED,
                (SurchargeType::Residential, _) => s.residential = Some(amount),
                (SurchargeType::DeliveryArea, _) => area_override |= specific,
                (SurchargeType::Signature, key) => s.signature.push((key_text(key).into(), amount)),
                (SurchargeType::Insurance, _) => s.insurance_per_100 = Some(amount),
                (SurchargeType::InsuranceMin, _) => s.insurance_min = amount,
                (SurchargeType::Saturday, _) => s.saturday = Some(amount),
                (SurchargeType::Am, _) => s.am = Some(amount),
                (SurchargeType::DangerousGoods, _) => s.dangerous_goods = Some(amount),
                (SurchargeType::HandlingWeight, key) => s.handling_weight.push(rule(key)?),
                (SurchargeType::HandlingLength, key) => s.handling_length.push(rule(key)?),
                (SurchargeType::OversizeLength, key) => s.oversize_length.push(rule(key)?),
                (SurchargeType::OversizeGirth, key) => s.oversize_girth.push(rule(key)?),
            }
        }
        let area_key = (carrier, area_override.then_some(service));
        s.area = area_cache
            .entry(area_key)
            .or_insert_with(|| {
                let v: Vec<(u32, Decimal)> = all
                    .iter()
                    .filter(|r| r.kind == SurchargeType::DeliveryArea)
                    .filter(|r| if area_override { for_service(r) } else { r.service.is_none() })
                    .filter_map(|r| {
                        let SurchargeKey::Zip(zip) = &r.key else { return None };
                        let k: u32 = zip.parse().ok()?;
                        Some((if zip.len() == 5 { 1_000_000 + k } else { k }, r.amount))
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
            transit: transit.iter().find(|(k, _)| *k == (carrier, service)).map(|(_, t)| t.clone()),
        });
    }
    let transit_services = transit.iter().map(|((c, s), _)| (Box::from(*c), Box::from(*s))).collect();
    Ok(RateBook { carriers, charts, cards, fx, transit_services })
}

/// A service as (carrier, service) codes.
type Service<'r> = (&'r str, &'r str);

/// The transit of every service with transit rows, each with its carrier's calendar
/// (Monday to Friday without holidays for a carrier without calendar rows) and the
/// service's own pickup and delivery days where its rows set them.
///
/// # Errors
/// [`RateBookError::Invalid`] for rows of a carrier that is not in the carriers data.
fn transit_by_service<'r>(
    rows: &'r RateRows,
    carrier_idx: &BTreeMap<&str, u16>,
) -> Result<Vec<(Service<'r>, Arc<ServiceTransit>)>, RateBookError> {
    let unknown = |kind: &str, carrier: &str| RateBookError::Invalid(format!("{kind}: carrier {carrier:?} is not in the carriers data"));
    /// The days a carrier's or a service's rows set.
    #[derive(Default, Clone, Copy)]
    struct Set {
        pickup: Option<Days>,
        delivery: Option<Days>,
    }
    /// A carrier's calendar rows.
    #[derive(Default)]
    struct Rows {
        days: Set,
        rules: Holidays,
        extra: Vec<NaiveDate>,
    }
    /// The entry of `key` in `list` (a few carriers or services: searched in turn).
    fn entry<K: PartialEq + Copy, V: Default>(list: &mut Vec<(K, V)>, key: K) -> &mut V {
        let i = list.iter().position(|(k, _)| *k == key).unwrap_or_else(|| {
            list.push((key, V::default()));
            list.len() - 1
        });
        &mut list[i].1
    }
    // each carrier's calendar, and the days its services set for themselves
    let mut calendars: Vec<(&str, Rows)> = Vec::new();
    let mut service_days: Vec<((&str, &str), Set)> = Vec::new();
    for r in &rows.calendars {
        if !carrier_idx.contains_key(r.carrier.as_str()) {
            return Err(unknown("calendars", &r.carrier));
        }
        let carrier = entry(&mut calendars, r.carrier.as_str());
        match (&r.service, &r.entry) {
            (None, CalendarEntry::PickupDays(d)) => carrier.days.pickup = Some(*d),
            (None, CalendarEntry::DeliveryDays(d)) => carrier.days.delivery = Some(*d),
            (None, CalendarEntry::Holidays(rules)) => carrier.rules = Holidays(carrier.rules.0 | rules.0),
            (None, CalendarEntry::Holiday(date)) => carrier.extra.push(*date),
            (Some(service), CalendarEntry::PickupDays(d)) => {
                entry(&mut service_days, (r.carrier.as_str(), service.as_str())).pickup = Some(*d)
            }
            (Some(service), CalendarEntry::DeliveryDays(d)) => {
                entry(&mut service_days, (r.carrier.as_str(), service.as_str())).delivery = Some(*d)
            }
            (Some(_), _) => {
                return Err(RateBookError::Invalid(format!("calendars of {}: holidays are the carrier's (service *)", r.carrier)))
            }
        }
    }
    let calendars: Vec<(&str, Arc<Calendar>)> = calendars
        .into_iter()
        .map(|(carrier, c)| {
            let (pickup, delivery) = (c.days.pickup.unwrap_or(Days::WEEKDAYS), c.days.delivery.unwrap_or(Days::WEEKDAYS));
            (carrier, Arc::new(Calendar::new(pickup, delivery, c.rules, c.extra)))
        })
        .collect();
    let weekdays = Arc::new(Calendar::weekdays());
    let mut tables: Vec<((&str, &str), TransitTable)> = Vec::new();
    for r in &rows.transit {
        if !carrier_idx.contains_key(r.carrier.as_str()) {
            return Err(unknown("transit", &r.carrier));
        }
        let table = entry(&mut tables, (r.carrier.as_str(), r.service.as_str()));
        match r.zone {
            Some(zone) => table.zones.push((zone, r.days, r.guaranteed)),
            None => table.other = Some((r.days, r.guaranteed)),
        }
    }
    Ok(tables
        .into_iter()
        .map(|((carrier, service), table)| {
            let calendar = calendars.iter().find(|(c, _)| *c == carrier).map_or(&weekdays, |(_, c)| c).clone();
            let own = service_days.iter().find(|(k, _)| *k == (carrier, service)).map(|(_, s)| *s).unwrap_or_default();
            let transit = ServiceTransit {
                table,
                pickup: own.pickup.unwrap_or(calendar.pickup),
                delivery: own.delivery.unwrap_or(calendar.delivery),
                calendar,
            };
            ((carrier, service), Arc::new(transit))
        })
        .collect())
}

/// The text of a signature option key.
fn key_text(key: &SurchargeKey) -> &str {
    match key {
        SurchargeKey::Code(s) | SurchargeKey::Zip(s) => s,
        SurchargeKey::None | SurchargeKey::Threshold(_) => "",
    }
}
