//! The rows of the rate tables as typed values: what the import checks a CSV record
//! into, what the book is built from, and what is read back from SQLite.
//!
//! Each kind of rate data file ([`CsvKind`]) has one row type here. A row is made from
//! a CSV record by `check` (naming every bad column, as docs/rate-cards.md says), from
//! a table row by `from_row`, and gives back the canonical text of its columns with
//! `values` (what is stored, so that export reproduces an imported file).

use std::str::FromStr;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::transit::{Days, Holiday, Holidays};
use super::{Currency, DimUnit, WeightUnit, Zone};
use crate::error::{Error, Result};
use crate::store::Row;

/// The kinds of rate data file (docs/rate-cards.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CsvKind {
    /// Carrier settings: currency, units, weight step, dimensional weight rule.
    Carriers,
    /// Exchange rates: units of a currency per US dollar.
    ExchangeRates,
    /// Zone charts: country to zone (or to US distance zoning) per chart.
    Zones,
    /// Rate cards: price per zone and weight break.
    Rates,
    /// Surcharges and their parameters per carrier (and service).
    Surcharges,
    /// Business days in transit per service and zone, and whether the date is
    /// guaranteed.
    Transit,
    /// Per carrier (and service): pickup and delivery days, holidays.
    Calendars,
}

impl CsvKind {
    /// All kinds, in the order data must be seeded.
    pub const ALL: [CsvKind; 7] = [
        CsvKind::Carriers,
        CsvKind::ExchangeRates,
        CsvKind::Zones,
        CsvKind::Rates,
        CsvKind::Surcharges,
        CsvKind::Transit,
        CsvKind::Calendars,
    ];

    /// `carriers`, `exchange-rates`, `zones`, `rates`, `surcharges`, `transit`,
    /// `calendars`.
    pub fn as_str(self) -> &'static str {
        match self {
            CsvKind::Carriers => "carriers",
            CsvKind::ExchangeRates => "exchange-rates",
            CsvKind::Zones => "zones",
            CsvKind::Rates => "rates",
            CsvKind::Surcharges => "surcharges",
            CsvKind::Transit => "transit",
            CsvKind::Calendars => "calendars",
        }
    }

    /// The header line's columns.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            CsvKind::Carriers => &["carrier", "currency", "weight_unit", "weight_step", "dim_unit", "dim_divisor", "dim_min_volume"],
            CsvKind::ExchangeRates => &["currency", "per_usd"],
            CsvKind::Zones => &["chart", "basis", "country", "zone"],
            CsvKind::Rates => &["carrier", "service", "package_type", "chart", "zone", "weight", "price"],
            CsvKind::Surcharges => &["carrier", "service", "kind", "key", "amount"],
            CsvKind::Transit => &["carrier", "service", "zone", "days", "guaranteed"],
            CsvKind::Calendars => &["carrier", "service", "key", "value"],
        }
    }

    /// The table that holds this kind.
    pub(crate) fn table(self) -> &'static str {
        match self {
            CsvKind::Carriers => "rate_carrier",
            CsvKind::ExchangeRates => "rate_exchange",
            CsvKind::Zones => "rate_zone",
            CsvKind::Rates => "rate_price",
            CsvKind::Surcharges => "rate_surcharge",
            CsvKind::Transit => "rate_transit",
            CsvKind::Calendars => "rate_calendar",
        }
    }

    /// The order of export and of loading: by key, then in the order rows were imported.
    pub(crate) fn order_by(self) -> &'static str {
        match self {
            CsvKind::Carriers => "carrier",
            CsvKind::ExchangeRates => "currency",
            CsvKind::Zones => "chart, id",
            CsvKind::Rates => "carrier, service, package_type, id",
            CsvKind::Surcharges => "carrier, id",
            CsvKind::Transit => "carrier, service, id",
            CsvKind::Calendars => "carrier, id",
        }
    }

    /// How many leading columns name the group an import replaces: a carrier, a
    /// currency, a chart, a service (carrier, service) or a rate card (carrier, service,
    /// package type).
    pub(crate) fn group_len(self) -> usize {
        match self {
            CsvKind::Carriers | CsvKind::ExchangeRates | CsvKind::Zones | CsvKind::Surcharges | CsvKind::Calendars => 1,
            CsvKind::Transit => 2,
            CsvKind::Rates => 3,
        }
    }

    /// The embedded default file of this kind.
    pub fn default_csv(self) -> &'static str {
        match self {
            CsvKind::Carriers => include_str!("../../data/rates/carriers.csv"),
            CsvKind::ExchangeRates => include_str!("../../data/rates/exchange-rates.csv"),
            CsvKind::Zones => embedded!("zones.csv"),
            CsvKind::Rates => embedded!("rates.csv"),
            CsvKind::Surcharges => embedded!("surcharges.csv"),
            CsvKind::Transit => embedded!("transit.csv"),
            CsvKind::Calendars => include_str!("../../data/rates/calendars.csv"),
        }
    }
}

/// The default file `data/rates/<name>`: its text natively; on wasm32 deflated by
/// core/build.rs (the files of thousands of rows, so that the package stays small),
/// inflated once when first read.
macro_rules! embedded {
    ($name:literal) => {{
        #[cfg(not(target_arch = "wasm32"))]
        let text: &'static str = include_str!(concat!("../../data/rates/", $name));
        #[cfg(target_arch = "wasm32")]
        let text: &'static str = {
            static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            crate::embedded::inflated(&TEXT, include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".deflate")))
        };
        text
    }};
}
use embedded;

impl FromStr for CsvKind {
    type Err = super::ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CsvKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| super::parse_err("carriers, exchange-rates, zones, rates, surcharges, transit, calendars", s))
    }
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

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Basis::Receiver => "receiver",
            Basis::Sender => "sender",
        }
    }
}

/// How a chart zones one country.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ZoneRule {
    Fixed(Zone),
    Distance { territory_rules: bool },
}

impl ZoneRule {
    fn parse(s: &str) -> Option<ZoneRule> {
        match s {
            "distance" => Some(ZoneRule::Distance { territory_rules: false }),
            "distance-t9" => Some(ZoneRule::Distance { territory_rules: true }),
            z => Zone::new(z).map(ZoneRule::Fixed),
        }
    }

    fn text(self) -> String {
        match self {
            ZoneRule::Fixed(z) => z.as_str().to_owned(),
            ZoneRule::Distance { territory_rules: false } => "distance".to_owned(),
            ZoneRule::Distance { territory_rules: true } => "distance-t9".to_owned(),
        }
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
    const ALL: [SurchargeType; 13] = [
        SurchargeType::Fuel,
        SurchargeType::Residential,
        SurchargeType::DeliveryArea,
        SurchargeType::Signature,
        SurchargeType::Insurance,
        SurchargeType::InsuranceMin,
        SurchargeType::Saturday,
        SurchargeType::Am,
        SurchargeType::DangerousGoods,
        SurchargeType::HandlingWeight,
        SurchargeType::HandlingLength,
        SurchargeType::OversizeLength,
        SurchargeType::OversizeGirth,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        use SurchargeType::*;
        match self {
            Fuel => "fuel",
            Residential => "residential",
            DeliveryArea => "delivery_area",
            Signature => "signature",
            Insurance => "insurance",
            InsuranceMin => "insurance_min",
            Saturday => "saturday",
            Am => "am",
            DangerousGoods => "dangerous_goods",
            HandlingWeight => "handling_weight",
            HandlingLength => "handling_length",
            OversizeLength => "oversize_length",
            OversizeGirth => "oversize_girth",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<SurchargeType> {
        SurchargeType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// A parameter of a surcharge row (its `key` column), by what its kind keys on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SurchargeKey {
    /// Kinds without a key.
    None,
    /// A delivery area: a ZIP3 prefix (`"100"`) or a whole ZIP5 (`"10001"`), as written.
    Zip(String),
    /// A signature option code.
    Code(String),
    /// The threshold of a handling or oversize rule.
    Threshold(Decimal),
}

impl SurchargeKey {
    fn text(&self) -> String {
        match self {
            SurchargeKey::None => String::new(),
            SurchargeKey::Zip(s) | SurchargeKey::Code(s) => s.clone(),
            SurchargeKey::Threshold(d) => d.to_string(),
        }
    }
}

/// One row of `rate_carrier`.
#[derive(Clone, Debug)]
pub(crate) struct CarrierRow {
    pub carrier: String,
    pub currency: Currency,
    pub weight_unit: WeightUnit,
    pub weight_step: Decimal,
    pub dim_unit: DimUnit,
    pub dim_divisor: Decimal,
    pub dim_min_volume: Decimal,
}

/// One row of `rate_exchange`.
#[derive(Clone, Debug)]
pub(crate) struct ExchangeRow {
    pub currency: Currency,
    pub per_usd: Decimal,
}

/// One row of `rate_zone`.
#[derive(Clone, Debug)]
pub(crate) struct ZoneRow {
    pub chart: String,
    pub basis: Basis,
    pub country: String,
    pub zone: ZoneRule,
}

/// The `weight` column of a price row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Break {
    /// The price up to this weight.
    UpTo(Decimal),
    /// `each`: the price per further unit beyond the last break.
    Each,
    /// `min`: the minimum charge of the zone.
    Min,
}

/// One row of `rate_price`.
#[derive(Clone, Debug)]
pub(crate) struct PriceRow {
    pub carrier: String,
    pub service: String,
    pub package_type: String,
    pub chart: String,
    /// `None`: `*`, prices whatever the zone.
    pub zone: Option<Zone>,
    pub weight: Break,
    pub price: Decimal,
}

/// One row of `rate_surcharge`.
#[derive(Clone, Debug)]
pub(crate) struct SurchargeRow {
    pub carrier: String,
    /// `None`: `*`, every service of the carrier without a row of its own of this kind.
    pub service: Option<String>,
    pub kind: SurchargeType,
    pub key: SurchargeKey,
    pub amount: Decimal,
}

/// One row of `rate_transit`.
#[derive(Clone, Debug)]
pub(crate) struct TransitRow {
    pub carrier: String,
    pub service: String,
    /// `None`: `*`, every zone without a row of its own.
    pub zone: Option<Zone>,
    /// Business days in transit.
    pub days: u8,
    pub guaranteed: bool,
}

/// What a row of `rate_calendar` sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CalendarEntry {
    /// The days the carrier (or the service's carrier for it) picks up.
    PickupDays(Days),
    /// The days the carrier (or the service) delivers.
    DeliveryDays(Days),
    /// The federal holidays the carrier observes, by rule (empty: none).
    Holidays(Holidays),
    /// A further date the carrier is closed.
    Holiday(NaiveDate),
}

impl CalendarEntry {
    const KEYS: &'static str = "pickup_days, delivery_days, holidays or holiday";

    fn key(&self) -> &'static str {
        match self {
            CalendarEntry::PickupDays(_) => "pickup_days",
            CalendarEntry::DeliveryDays(_) => "delivery_days",
            CalendarEntry::Holidays(_) => "holidays",
            CalendarEntry::Holiday(_) => "holiday",
        }
    }

    fn value(&self) -> String {
        match self {
            CalendarEntry::PickupDays(d) | CalendarEntry::DeliveryDays(d) => d.text(),
            CalendarEntry::Holidays(rules) => rules.iter().map(Holiday::as_str).collect::<Vec<_>>().join(" "),
            CalendarEntry::Holiday(date) => date.to_string(),
        }
    }

    /// The entry of `key` with the text `value`; `Err` says what `value` should be
    /// (`None` for an unknown key).
    fn parse(key: &str, value: &str) -> Result<CalendarEntry, Option<&'static str>> {
        const DAYS: &str = "weekday names (mon tue wed thu fri sat sun) separated by single spaces, each once";
        match key {
            "pickup_days" => Days::parse(value).map(CalendarEntry::PickupDays).ok_or(Some(DAYS)),
            "delivery_days" => Days::parse(value).map(CalendarEntry::DeliveryDays).ok_or(Some(DAYS)),
            "holidays" => {
                const NAMES: &str = "holiday names separated by single spaces, each once: new_years_day mlk_day presidents_day memorial_day juneteenth independence_day labor_day columbus_day veterans_day thanksgiving christmas";
                let mut rules = Holidays::default();
                for name in value.split(' ').filter(|_| !value.is_empty()) {
                    match Holiday::parse(name) {
                        Some(h) if !rules.contains(h) => rules = rules.with(h),
                        _ => return Err(Some(NAMES)),
                    }
                }
                Ok(CalendarEntry::Holidays(rules))
            }
            "holiday" => {
                let date = (value.trim() == value).then(|| crate::dates::parse_date(value)).flatten();
                date.map(CalendarEntry::Holiday).ok_or(Some("a date YYYY-MM-DD"))
            }
            _ => Err(None),
        }
    }
}

/// One row of `rate_calendar`.
#[derive(Clone, Debug)]
pub(crate) struct CalendarRow {
    pub carrier: String,
    /// `None`: `*`, the carrier's own row.
    pub service: Option<String>,
    pub entry: CalendarEntry,
}

/// All rate data, as the book is built from it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateRows {
    pub carriers: Vec<CarrierRow>,
    pub exchange: Vec<ExchangeRow>,
    pub zones: Vec<ZoneRow>,
    pub prices: Vec<PriceRow>,
    pub surcharges: Vec<SurchargeRow>,
    pub transit: Vec<TransitRow>,
    pub calendars: Vec<CalendarRow>,
}

/// A row type of one [`CsvKind`].
pub(crate) trait RateRow: Sized {
    /// The kind of file and table.
    const KIND: CsvKind;

    /// The row of a CSV record whose field count is right, or `None` after recording
    /// a message per bad column (`weight: expected ..., found "ten"`) in `c`. Called
    /// through [`check`].
    fn check(c: &mut Fields<'_>) -> Option<Self>;

    /// The canonical text of each column, in [`CsvKind::columns`] order: what is stored.
    fn values(&self) -> Vec<String>;

    /// The row read from its table, its columns in [`CsvKind::columns`] order.
    ///
    /// # Errors
    /// `INTERNAL` naming the column when a stored value does not read.
    fn from_row(row: &Row<'_>) -> Result<Self>;

    /// The columns that must be unique within a file.
    fn key(&self) -> Vec<String> {
        self.values()
    }

    /// For kinds with a whole-group rule (one basis per chart, one chart per card):
    /// the group and the value that must be the same across it.
    fn one_per_group(&self) -> Option<(Vec<&str>, &str)> {
        None
    }
}

// ------------------------------------------------------------ checks of CSV fields

fn is_code(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

fn is_country(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// Largest number accepted anywhere in rate data.
const MAX_VALUE: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// Parses a non-negative decimal of at most 10 decimal places, at most 10^9.
fn parse_amount(s: &str) -> Option<Decimal> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let d = Decimal::from_str(s).ok()?;
    (d.scale() <= 10 && d <= MAX_VALUE).then_some(d)
}

fn parse_positive(s: &str) -> Option<Decimal> {
    parse_amount(s).filter(|d| !d.is_zero())
}

/// The row of a CSV record whose field count is right, or `None` after pushing a
/// message per bad column onto `errs`.
pub(crate) fn check<T: RateRow>(f: &[String], errs: &mut Vec<String>) -> Option<T> {
    let start = errs.len();
    let row = T::check(&mut Fields { f, errs });
    if errs.len() == start {
        row
    } else {
        None
    }
}

/// The checks of one record: each records what is wrong with its column.
pub(crate) struct Fields<'a> {
    f: &'a [String],
    errs: &'a mut Vec<String>,
}

impl Fields<'_> {
    fn bad(&mut self, col: &str, expected: &str, found: &str) {
        self.errs.push(format!("{col}: expected {expected}, found {:?}", found.chars().take(40).collect::<String>()));
    }

    fn code(&mut self, i: usize, col: &str) -> Option<String> {
        let f = self.f;
        let s = &f[i];
        if is_code(s) {
            Some(s.clone())
        } else {
            self.bad(col, "a code of a-z, 0-9, _ or -", s);
            None
        }
    }

    /// A service code, or `*` (`Some(None)`): every service of the carrier.
    fn service_or_star(&mut self, i: usize) -> Option<Option<String>> {
        let f = self.f;
        let service = if f[i] == "*" { Some(None) } else { is_code(&f[i]).then(|| Some(f[i].clone())) };
        if service.is_none() {
            self.bad("service", "a service code or *", &f[i]);
        }
        service
    }

    fn currency(&mut self, i: usize) -> Option<Currency> {
        let f = self.f;
        let c = Currency::from_str(&f[i]).ok();
        if c.is_none() {
            self.bad("currency", "USD, GBP, CAD or EUR", &f[i]);
        }
        c
    }

    fn num(&mut self, i: usize, col: &str, positive: bool) -> Option<Decimal> {
        let f = self.f;
        let s = &f[i];
        let d = if positive { parse_positive(s) } else { parse_amount(s) };
        if d.is_none() {
            let expected = if positive {
                "a decimal number above 0 (at most 1000000000, 10 decimals)"
            } else {
                "a decimal number of 0 or more (at most 1000000000, 10 decimals)"
            };
            self.bad(col, expected, s);
        }
        d
    }
}

// ------------------------------------------------------------ SQL

/// Column `i` of a row of `kind`'s table (read in [`CsvKind::columns`] order), canonical
/// text parsed with `parse`; a text that does not parse is `INTERNAL` naming the column.
fn parsed<T>(row: &Row<'_>, kind: CsvKind, i: usize, parse: impl FnOnce(&str) -> Option<T>) -> Result<T> {
    let text: String = row.get(i)?;
    parse(&text).ok_or_else(|| {
        let col = kind.columns().get(i).copied().unwrap_or("?");
        Error::internal(format!("{}.{col}: unreadable value {text:?}", kind.table()))
    })
}

fn decimal(row: &Row<'_>, kind: CsvKind, i: usize) -> Result<Decimal> {
    parsed(row, kind, i, |s| Decimal::from_str(s).ok())
}

// ------------------------------------------------------------ the row types

impl RateRow for CarrierRow {
    const KIND: CsvKind = CsvKind::Carriers;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let carrier = c.code(0, "carrier");
        let currency = c.currency(1);
        let weight_unit = match f[2].as_str() {
            "lb" => Some(WeightUnit::Lb),
            "kg" => Some(WeightUnit::Kg),
            other => {
                c.bad("weight_unit", "lb or kg", other);
                None
            }
        };
        let weight_step = c.num(3, "weight_step", true);
        if weight_step.is_some_and(|step| step < Decimal::new(1, 4)) {
            c.bad("weight_step", "at least 0.0001", &f[3]);
        }
        let dim_unit = DimUnit::from_str(&f[4]).ok();
        if dim_unit.is_none() {
            c.bad("dim_unit", "in or cm", &f[4]);
        }
        let dim_divisor = c.num(5, "dim_divisor", true);
        let dim_min_volume = c.num(6, "dim_min_volume", false);
        (|| {
            Some(CarrierRow {
                carrier: carrier?,
                currency: currency?,
                weight_unit: weight_unit?,
                weight_step: weight_step?,
                dim_unit: dim_unit?,
                dim_divisor: dim_divisor?,
                dim_min_volume: dim_min_volume?,
            })
        })()
    }

    fn values(&self) -> Vec<String> {
        vec![
            self.carrier.clone(),
            self.currency.as_str().to_owned(),
            self.weight_unit.as_str().to_owned(),
            self.weight_step.to_string(),
            self.dim_unit.as_str().to_owned(),
            self.dim_divisor.to_string(),
            self.dim_min_volume.to_string(),
        ]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(CarrierRow {
            carrier: row.get(0)?,
            currency: parsed(row, Self::KIND, 1, |s| s.parse().ok())?,
            weight_unit: parsed(row, Self::KIND, 2, |s| s.parse().ok())?,
            weight_step: decimal(row, Self::KIND, 3)?,
            dim_unit: parsed(row, Self::KIND, 4, |s| s.parse().ok())?,
            dim_divisor: decimal(row, Self::KIND, 5)?,
            dim_min_volume: decimal(row, Self::KIND, 6)?,
        })
    }

    fn key(&self) -> Vec<String> {
        vec![self.carrier.clone()]
    }
}

impl RateRow for ExchangeRow {
    const KIND: CsvKind = CsvKind::ExchangeRates;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let currency = c.currency(0);
        let per_usd = c.num(1, "per_usd", true);
        if f[0] == "USD" && per_usd != Some(Decimal::ONE) {
            c.bad("per_usd", "1 for USD", &f[1]);
        }
        if per_usd.is_some_and(|d| d < Decimal::new(1, 4)) {
            c.bad("per_usd", "at least 0.0001", &f[1]);
        }
        currency.zip(per_usd).map(|(currency, per_usd)| ExchangeRow { currency, per_usd })
    }

    fn values(&self) -> Vec<String> {
        vec![self.currency.as_str().to_owned(), self.per_usd.to_string()]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ExchangeRow { currency: parsed(row, Self::KIND, 0, |s| s.parse().ok())?, per_usd: decimal(row, Self::KIND, 1)? })
    }

    fn key(&self) -> Vec<String> {
        vec![self.currency.as_str().to_owned()]
    }
}

impl RateRow for ZoneRow {
    const KIND: CsvKind = CsvKind::Zones;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let chart = c.code(0, "chart");
        let basis = Basis::parse(&f[1]);
        if basis.is_none() {
            c.bad("basis", "receiver or sender", &f[1]);
        }
        let country = is_country(&f[2]).then(|| f[2].clone());
        if country.is_none() {
            c.bad("country", "an ISO alpha-2 code in upper case", &f[2]);
        }
        let zone = ZoneRule::parse(&f[3]);
        if zone.is_none() {
            c.bad("zone", "a zone code of 1 to 8 letters or digits, distance or distance-t9", &f[3]);
        }
        if f[1] == "sender" && f[3].starts_with("distance") {
            c.bad("zone", "a zone code (distance zoning keys on the receiver)", &f[3]);
        }
        (|| Some(ZoneRow { chart: chart?, basis: basis?, country: country?, zone: zone? }))()
    }

    fn values(&self) -> Vec<String> {
        vec![self.chart.clone(), self.basis.as_str().to_owned(), self.country.clone(), self.zone.text()]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ZoneRow {
            chart: row.get(0)?,
            basis: parsed(row, Self::KIND, 1, Basis::parse)?,
            country: row.get(2)?,
            zone: parsed(row, Self::KIND, 3, ZoneRule::parse)?,
        })
    }

    fn key(&self) -> Vec<String> {
        vec![self.chart.clone(), self.country.clone()]
    }

    fn one_per_group(&self) -> Option<(Vec<&str>, &str)> {
        Some((vec![&self.chart], self.basis.as_str()))
    }
}

impl Break {
    fn parse(s: &str) -> Option<Break> {
        match s {
            "each" => Some(Break::Each),
            "min" => Some(Break::Min),
            w => parse_positive(w).map(Break::UpTo),
        }
    }

    fn text(self) -> String {
        match self {
            Break::UpTo(w) => w.to_string(),
            Break::Each => "each".to_owned(),
            Break::Min => "min".to_owned(),
        }
    }
}

fn zone_or_star(zone: Option<Zone>) -> String {
    zone.map_or_else(|| "*".to_owned(), |z| z.as_str().to_owned())
}

impl RateRow for PriceRow {
    const KIND: CsvKind = CsvKind::Rates;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let carrier = c.code(0, "carrier");
        let service = c.code(1, "service");
        let package_type = c.code(2, "package_type");
        let chart = c.code(3, "chart");
        let zone = if f[4] == "*" { Some(None) } else { Zone::new(&f[4]).map(Some) };
        if zone.is_none() {
            c.bad("zone", "a zone code of 1 to 8 letters or digits, or *", &f[4]);
        }
        let weight = match f[5].as_str() {
            "each" => Some(Break::Each),
            "min" => Some(Break::Min),
            _ => c.num(5, "weight", true).map(Break::UpTo),
        };
        let price = c.num(6, "price", false);
        let (Some(carrier), Some(service), Some(package_type), Some(chart)) = (carrier, service, package_type, chart) else {
            return None;
        };
        zone.zip(weight).zip(price).map(|((zone, weight), price)| PriceRow { carrier, service, package_type, chart, zone, weight, price })
    }

    fn values(&self) -> Vec<String> {
        vec![
            self.carrier.clone(),
            self.service.clone(),
            self.package_type.clone(),
            self.chart.clone(),
            zone_or_star(self.zone),
            self.weight.text(),
            self.price.to_string(),
        ]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(PriceRow {
            carrier: row.get(0)?,
            service: row.get(1)?,
            package_type: row.get(2)?,
            chart: row.get(3)?,
            zone: parsed(row, Self::KIND, 4, |s| if s == "*" { Some(None) } else { Zone::new(s).map(Some) })?,
            weight: parsed(row, Self::KIND, 5, Break::parse)?,
            price: decimal(row, Self::KIND, 6)?,
        })
    }

    fn key(&self) -> Vec<String> {
        vec![self.carrier.clone(), self.service.clone(), self.package_type.clone(), zone_or_star(self.zone), self.weight.text()]
    }

    fn one_per_group(&self) -> Option<(Vec<&str>, &str)> {
        Some((vec![&self.carrier, &self.service, &self.package_type], &self.chart))
    }
}

/// The key of a surcharge kind, parsed from its text; `None` if the text does not fit.
fn surcharge_key(kind: SurchargeType, s: &str) -> Option<SurchargeKey> {
    use SurchargeType::*;
    match kind {
        DeliveryArea => ((s.len() == 3 || s.len() == 5) && s.bytes().all(|b| b.is_ascii_digit())).then(|| SurchargeKey::Zip(s.to_owned())),
        Signature => is_code(s).then(|| SurchargeKey::Code(s.to_owned())),
        HandlingWeight | HandlingLength | OversizeLength | OversizeGirth => parse_positive(s).map(SurchargeKey::Threshold),
        _ => s.is_empty().then_some(SurchargeKey::None),
    }
}

impl RateRow for SurchargeRow {
    const KIND: CsvKind = CsvKind::Surcharges;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let carrier = c.code(0, "carrier");
        let service = c.service_or_star(1);
        let kind = SurchargeType::parse(&f[2]);
        let key = match kind {
            None => {
                c.bad(
                    "kind",
                    "one of fuel, residential, delivery_area, signature, insurance, insurance_min, saturday, am, dangerous_goods, handling_weight, handling_length, oversize_length, oversize_girth",
                    &f[2],
                );
                None
            }
            Some(t) => {
                use SurchargeType::*;
                let key = surcharge_key(t, &f[3]);
                if key.is_none() {
                    match t {
                        DeliveryArea => c.bad("key", "a 3-digit ZIP prefix or a 5-digit ZIP", &f[3]),
                        Signature => c.bad("key", "a signature option code", &f[3]),
                        HandlingWeight | HandlingLength | OversizeLength | OversizeGirth => {
                            c.num(3, "key", true);
                        }
                        _ => c.bad("key", "an empty key for this kind", &f[3]),
                    }
                }
                key
            }
        };
        let amount = c.num(4, "amount", false);
        (|| Some(SurchargeRow { carrier: carrier?, service: service?, kind: kind?, key: key?, amount: amount? }))()
    }

    fn values(&self) -> Vec<String> {
        vec![
            self.carrier.clone(),
            self.service.clone().unwrap_or_else(|| "*".to_owned()),
            self.kind.as_str().to_owned(),
            self.key.text(),
            self.amount.to_string(),
        ]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        let kind = parsed(row, Self::KIND, 2, SurchargeType::parse)?;
        Ok(SurchargeRow {
            carrier: row.get(0)?,
            service: parsed(row, Self::KIND, 1, |s| Some((s != "*").then(|| s.to_owned())))?,
            kind,
            key: parsed(row, Self::KIND, 3, |s| surcharge_key(kind, s))?,
            amount: decimal(row, Self::KIND, 4)?,
        })
    }

    fn key(&self) -> Vec<String> {
        self.values()[..4].to_vec()
    }
}

/// Most business days a transit row may give.
const MAX_TRANSIT_DAYS: u8 = 60;

impl RateRow for TransitRow {
    const KIND: CsvKind = CsvKind::Transit;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let carrier = c.code(0, "carrier");
        let service = c.code(1, "service");
        let zone = if f[2] == "*" { Some(None) } else { Zone::new(&f[2]).map(Some) };
        if zone.is_none() {
            c.bad("zone", "a zone code of 1 to 8 letters or digits, or *", &f[2]);
        }
        let days = (!f[3].is_empty() && f[3].len() <= 2 && f[3].bytes().all(|b| b.is_ascii_digit()))
            .then(|| f[3].parse::<u8>().ok())
            .flatten()
            .filter(|d| *d <= MAX_TRANSIT_DAYS);
        if days.is_none() {
            c.bad("days", "a whole number of business days from 0 to 60", &f[3]);
        }
        let guaranteed = match f[4].as_str() {
            "true" => Some(true),
            "false" => Some(false),
            other => {
                c.bad("guaranteed", "true or false", other);
                None
            }
        };
        (|| Some(TransitRow { carrier: carrier?, service: service?, zone: zone?, days: days?, guaranteed: guaranteed? }))()
    }

    fn values(&self) -> Vec<String> {
        vec![self.carrier.clone(), self.service.clone(), zone_or_star(self.zone), self.days.to_string(), self.guaranteed.to_string()]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(TransitRow {
            carrier: row.get(0)?,
            service: row.get(1)?,
            zone: parsed(row, Self::KIND, 2, |s| if s == "*" { Some(None) } else { Zone::new(s).map(Some) })?,
            days: parsed(row, Self::KIND, 3, |s| s.parse::<u8>().ok())?,
            guaranteed: parsed(row, Self::KIND, 4, |s| match s {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            })?,
        })
    }

    fn key(&self) -> Vec<String> {
        self.values()[..3].to_vec()
    }
}

impl RateRow for CalendarRow {
    const KIND: CsvKind = CsvKind::Calendars;

    fn check(c: &mut Fields<'_>) -> Option<Self> {
        let f = c.f;
        let carrier = c.code(0, "carrier");
        let service = c.service_or_star(1);
        let entry = match CalendarEntry::parse(&f[2], &f[3]) {
            Ok(entry) => Some(entry),
            Err(None) => {
                c.bad("key", CalendarEntry::KEYS, &f[2]);
                None
            }
            Err(Some(expected)) => {
                c.bad("value", expected, &f[3]);
                None
            }
        };
        if let (Some(Some(_)), Some(e @ (CalendarEntry::Holidays(_) | CalendarEntry::Holiday(_)))) = (&service, &entry) {
            c.bad("service", &format!("* for {}: holidays are the carrier's", e.key()), &f[1]);
        }
        (|| Some(CalendarRow { carrier: carrier?, service: service?, entry: entry? }))()
    }

    fn values(&self) -> Vec<String> {
        vec![self.carrier.clone(), self.service.clone().unwrap_or_else(|| "*".to_owned()), self.entry.key().to_owned(), self.entry.value()]
    }

    fn from_row(row: &Row<'_>) -> Result<Self> {
        let key: String = row.get(2)?;
        Ok(CalendarRow {
            carrier: row.get(0)?,
            service: parsed(row, Self::KIND, 1, |s| Some((s != "*").then(|| s.to_owned())))?,
            entry: parsed(row, Self::KIND, 3, |v| CalendarEntry::parse(&key, v).ok())?,
        })
    }

    /// One row per key, but a listed holiday per date.
    fn key(&self) -> Vec<String> {
        let mut key = self.values();
        if !matches!(self.entry, CalendarEntry::Holiday(_)) {
            key.truncate(3);
        }
        key
    }
}
