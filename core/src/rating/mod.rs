//! Rating: zones, rate cards, billable weight, surcharges and currency.
//!
//! Rate data lives in SQLite (tables `rate_*` of `core/schema.sql`) and is loaded once
//! into an immutable [`RateBook`]; [`RateBook::rate`] is then a pure function of the
//! book and a [`RateInput`] (no SQL, no allocation beyond the result). After an
//! import the caller loads a new book and swaps it in whole.
//!
//! How a price is made (docs/rate-cards.md has the data format):
//! 1. **Zone** from the card's zone chart: US domestic by ZIP3 centroid distance
//!    (zones 1-8; 9 under territory rules), other countries by country group; a
//!    chart keys on the receiver (outbound) or the sender (inbound services).
//! 2. **Billable weight** per piece: the actual weight in the carrier's unit,
//!    rounded up to the carrier's step; when dimensions are known and the volume is
//!    above the carrier's threshold, the dimensional weight (volume / divisor,
//!    rounded up the same way) if it is larger. Flat-rate cards use actual weight.
//! 3. **Base**: each piece is priced at the first weight break at or above its
//!    billable weight (beyond the last break: the last price plus the card's price
//!    per further unit); the pieces are summed; the zone's minimum charge applies to
//!    the sum.
//! 4. **Surcharges** in this order: residential, delivery area, additional handling,
//!    oversize, Saturday, AM delivery, dangerous goods, fuel (percent of base plus
//!    all the lines before it), signature, insurance (per 100 of value, or part,
//!    with a minimum; not subject to fuel).
//! 5. **Money**: every line is multiplied by (1 + markup/100) and the exchange rate
//!    from the carrier's currency to the requested one, then rounded once, half away
//!    from zero, to the cent. The total is the sum of the rounded lines.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

mod book;
mod csv;
mod fixed;
pub(crate) mod rows;
mod store;
mod transit;
mod zones;

#[cfg(test)]
mod tests;

pub use self::book::RateBookError;
pub use self::rows::CsvKind;
pub use self::store::{export_csv, seed_defaults, ImportSummary, RowError};
pub(crate) use self::store::{import, seed_arrivals_if_missing};
#[cfg(test)]
pub(crate) use self::store::{import_csv, ImportError};
pub use self::transit::Arrival;
pub use self::zones::End;

use self::book::{Card, Carrier};
use self::fixed::{D, POW10U};
use self::rows::{Basis, ZoneRule};

/// The currencies of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Currency {
    /// US dollar.
    Usd,
    /// Pound sterling.
    Gbp,
    /// Canadian dollar.
    Cad,
    /// Euro.
    Eur,
}

impl Currency {
    /// All currencies, in index order.
    pub const ALL: [Currency; 4] = [Currency::Usd, Currency::Gbp, Currency::Cad, Currency::Eur];

    /// The ISO 4217 code.
    pub fn as_str(self) -> &'static str {
        match self {
            Currency::Usd => "USD",
            Currency::Gbp => "GBP",
            Currency::Cad => "CAD",
            Currency::Eur => "EUR",
        }
    }

    fn idx(self) -> usize {
        self as usize
    }
}

/// Error of the `FromStr` impls of the unit and currency enums.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected one of {expected}, found {found:?}")]
pub struct ParseEnumError {
    expected: &'static str,
    found: String,
}

fn parse_err(expected: &'static str, found: &str) -> ParseEnumError {
    ParseEnumError { expected, found: found.chars().take(32).collect() }
}

impl FromStr for Currency {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "USD" => Currency::Usd,
            "GBP" => Currency::Gbp,
            "CAD" => Currency::Cad,
            "EUR" => Currency::Eur,
            _ => return Err(parse_err("USD, GBP, CAD, EUR", s)),
        })
    }
}

/// Weight units of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WeightUnit {
    /// Pound.
    Lb,
    /// Ounce.
    Oz,
    /// Kilogram.
    Kg,
    /// Gram.
    G,
}

impl WeightUnit {
    /// `lb`, `oz`, `kg` or `g`.
    pub fn as_str(self) -> &'static str {
        match self {
            WeightUnit::Lb => "lb",
            WeightUnit::Oz => "oz",
            WeightUnit::Kg => "kg",
            WeightUnit::G => "g",
        }
    }
}

impl FromStr for WeightUnit {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "lb" => WeightUnit::Lb,
            "oz" => WeightUnit::Oz,
            "kg" => WeightUnit::Kg,
            "g" => WeightUnit::G,
            _ => return Err(parse_err("lb, oz, kg, g", s)),
        })
    }
}

/// Length units of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimUnit {
    /// Inch.
    In,
    /// Centimetre.
    Cm,
}

impl DimUnit {
    /// `in` or `cm`.
    pub fn as_str(self) -> &'static str {
        match self {
            DimUnit::In => "in",
            DimUnit::Cm => "cm",
        }
    }
}

impl FromStr for DimUnit {
    type Err = ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "in" => DimUnit::In,
            "cm" => DimUnit::Cm,
            _ => return Err(parse_err("in, cm", s)),
        })
    }
}

/// Which weight the price was based on (`quotedWeightType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightType {
    /// The actual weight.
    Actual,
    /// The dimensional weight (strictly larger than the actual billable weight).
    Dimensional,
}

impl WeightType {
    /// `Actual` or `Dimensional`.
    pub fn as_str(self) -> &'static str {
        match self {
            WeightType::Actual => "Actual",
            WeightType::Dimensional => "Dimensional",
        }
    }
}

/// A zone code: 1 to 8 ASCII letters or digits (`"8"`, `"E"`, `"EUR1"`). Copy, no
/// allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zone {
    buf: [u8; 8],
    len: u8,
}

impl Zone {
    /// A zone from its code, if it is 1 to 8 ASCII letters or digits.
    pub fn new(code: &str) -> Option<Zone> {
        let b = code.as_bytes();
        if b.is_empty() || b.len() > 8 || !b.iter().all(u8::is_ascii_alphanumeric) {
            return None;
        }
        let mut buf = [0u8; 8];
        buf[..b.len()].copy_from_slice(b);
        Some(Zone { buf, len: b.len() as u8 })
    }

    pub(crate) fn digit(d: u8) -> Zone {
        let mut buf = [0u8; 8];
        buf[0] = b'0' + d % 10;
        Zone { buf, len: 1 }
    }

    /// The zone code.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or("")
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Zone({:?})", self.as_str())
    }
}

/// An address as far as rating needs it. The caller has validated it: `country` is
/// an ISO alpha-2 code in upper case, a US-domain `zip` has 5 or 9 digits (with or
/// without the dash), a Canadian one is a postal code.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// ISO 3166-1 alpha-2, upper case.
    pub country: &'a str,
    /// State or province code (may be empty outside US and CA).
    pub state: &'a str,
    /// ZIP or postal code.
    pub zip: Option<&'a str>,
}

/// One piece (package) of a shipment.
#[derive(Clone, Copy, Debug)]
pub struct PieceInput {
    /// Weight in [`RateInput::weight_unit`].
    pub weight: Decimal,
    /// Length, width, height in [`RateInput::dim_unit`]; `None` when unknown (then
    /// no dimensional weight). The caller fills preset dimensions of preset types.
    pub dims: Option<[Decimal; 3]>,
    /// Value to insure, in [`RateInput::currency`]; `None` or zero for none.
    pub insurance: Option<Decimal>,
}

/// Everything a price depends on besides the rate card.
#[derive(Clone, Copy, Debug)]
pub struct RateInput<'a> {
    /// Ship from.
    pub sender: Place<'a>,
    /// Ship to.
    pub receiver: Place<'a>,
    /// The receiver address is residential.
    pub residential: bool,
    /// Unit of the pieces' weights.
    pub weight_unit: WeightUnit,
    /// Unit of the pieces' dimensions.
    pub dim_unit: DimUnit,
    /// At least one piece.
    pub pieces: &'a [PieceInput],
    /// A signature option code of the carrier (catalog.json), or `None`.
    pub signature_option: Option<&'a str>,
    /// Saturday delivery requested.
    pub saturday_delivery: bool,
    /// AM delivery requested (postal express).
    pub am_delivery: bool,
    /// The shipment holds dangerous goods.
    pub dangerous_goods: bool,
    /// Currency of the result and of the pieces' insurance values.
    pub currency: Currency,
    /// The profile's markup on carrier cost, in percent (e.g. 15 for 15 %).
    pub markup_percent: Decimal,
}

/// Index of a rate card inside one [`RateBook`]. Only meaningful with the book that
/// returned it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CardId(u32);

/// What a surcharge line is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurchargeKind {
    /// Delivery to a residence.
    Residential,
    /// Delivery to a ZIP on the carrier's delivery area list.
    DeliveryArea,
    /// Heavy or long pieces.
    AdditionalHandling,
    /// Very large pieces.
    Oversize,
    /// Saturday delivery.
    Saturday,
    /// AM delivery.
    AmDelivery,
    /// Dangerous goods.
    DangerousGoods,
    /// Fuel (percentage).
    Fuel,
    /// A signature option.
    Signature,
    /// Insurance of the pieces' value.
    Insurance,
}

// `COUNT` is the number of kinds (the last one's index plus one), and `ALL` lists
// them by index: a rate's lines are kept at their kind's index.
const _: () = {
    assert!(SurchargeKind::Insurance as usize + 1 == SurchargeKind::COUNT);
    let mut k = 0;
    while k < SurchargeKind::COUNT {
        assert!(SurchargeKind::ALL[k] as usize == k);
        k += 1;
    }
};

impl SurchargeKind {
    /// How many kinds there are: the most lines a rate can have.
    pub const COUNT: usize = 10;

    /// Every kind, in the order of a rate's lines.
    pub const ALL: [SurchargeKind; SurchargeKind::COUNT] = [
        SurchargeKind::Residential,
        SurchargeKind::DeliveryArea,
        SurchargeKind::AdditionalHandling,
        SurchargeKind::Oversize,
        SurchargeKind::Saturday,
        SurchargeKind::AmDelivery,
        SurchargeKind::DangerousGoods,
        SurchargeKind::Fuel,
        SurchargeKind::Signature,
        SurchargeKind::Insurance,
    ];

    /// The `description` of the line.
    pub fn description(self) -> &'static str {
        match self {
            SurchargeKind::Residential => "Residential delivery",
            SurchargeKind::DeliveryArea => "Delivery area",
            SurchargeKind::AdditionalHandling => "Additional handling",
            SurchargeKind::Oversize => "Oversize",
            SurchargeKind::Saturday => "Saturday delivery",
            SurchargeKind::AmDelivery => "AM delivery",
            SurchargeKind::DangerousGoods => "Dangerous goods",
            SurchargeKind::Fuel => "Fuel surcharge",
            SurchargeKind::Signature => "Signature",
            SurchargeKind::Insurance => "Insurance",
        }
    }
}

/// One surcharge line of a [`Rate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Surcharge {
    /// What it is for.
    pub kind: SurchargeKind,
    /// Amount in [`Rate::currency`], rounded to the cent.
    pub amount: Decimal,
}

impl Surcharge {
    /// Human-readable description (the wire `description`): that of its kind.
    pub fn description(&self) -> &'static str {
        self.kind.description()
    }
}

/// The surcharge lines of a [`Rate`], held inside the rate: a rate has at most one
/// line of each [`SurchargeKind`], and its lines come in the order of the kinds, so
/// each kind has its place. (A `Vec` cost an allocation and a free per service quote,
/// about a tenth of rating one.) Iterate with [`Lines::iter`] or `for line in &lines`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Lines {
    /// Bit `k` set: the kind of index `k` has a line.
    present: u16,
    /// The amount of each kind's line (zero where there is none).
    amounts: [Decimal; SurchargeKind::COUNT],
}

impl Lines {
    const fn new() -> Lines {
        Lines { present: 0, amounts: [Decimal::ZERO; SurchargeKind::COUNT] }
    }

    /// Sets the line of `line.kind`.
    fn push(&mut self, line: Surcharge) {
        let k = line.kind as usize;
        self.amounts[k] = line.amount;
        self.present |= 1 << k;
    }

    /// The lines, in order.
    pub fn iter(&self) -> LinesIter<'_> {
        LinesIter { amounts: &self.amounts, left: self.present }
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.present.count_ones() as usize
    }

    /// There are no lines.
    pub fn is_empty(&self) -> bool {
        self.present == 0
    }

    /// The lines as a vector.
    pub fn to_vec(self) -> Vec<Surcharge> {
        self.iter().collect()
    }
}

#[cfg(test)]
impl Lines {
    /// Lines as given (at most one per kind, in the kinds' order), for tests that build
    /// a [`Rate`].
    pub(crate) fn of(lines: &[Surcharge]) -> Lines {
        let mut out = Lines::new();
        for l in lines {
            out.push(*l);
        }
        out
    }
}

impl<'a> IntoIterator for &'a Lines {
    type Item = Surcharge;
    type IntoIter = LinesIter<'a>;
    fn into_iter(self) -> LinesIter<'a> {
        self.iter()
    }
}

/// The lines of a [`Lines`], in order.
#[derive(Clone, Debug)]
pub struct LinesIter<'a> {
    amounts: &'a [Decimal; SurchargeKind::COUNT],
    /// The kinds still to give, as bits.
    left: u16,
}

impl Iterator for LinesIter<'_> {
    type Item = Surcharge;

    fn next(&mut self) -> Option<Surcharge> {
        if self.left == 0 {
            return None;
        }
        let k = self.left.trailing_zeros() as usize;
        self.left &= self.left - 1;
        Some(Surcharge { kind: *SurchargeKind::ALL.get(k)?, amount: *self.amounts.get(k)? })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.left.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for LinesIter<'_> {}

impl fmt::Debug for Lines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A price.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Zone used.
    pub zone: Zone,
    /// Base charge, rounded to the cent.
    pub base: Decimal,
    /// Surcharge lines, in the documented order; lines of zero are left out.
    pub surcharges: Lines,
    /// base + the surcharge amounts.
    pub total: Decimal,
    /// Billable weight summed over the pieces, in `quoted_weight_unit`.
    pub quoted_weight: Decimal,
    /// The carrier's weight unit.
    pub quoted_weight_unit: WeightUnit,
    /// `Dimensional` exactly when the quoted weight is larger than the sum of the
    /// pieces' actual billable weights.
    pub weight_type: WeightType,
    /// Currency of all amounts.
    pub currency: Currency,
}

/// Why a shipment could not be rated. Every message names what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RateError {
    /// The card id does not belong to this book.
    #[error("unknown rate card; look the card up again in the current rate book")]
    UnknownCard,
    /// No pieces.
    #[error("pieces: expected at least one piece, found none")]
    NoPieces,
    /// More pieces than a shipment may have.
    #[error("pieces: expected at most {max} pieces, found {found}")]
    TooManyPieces {
        /// Limit.
        max: usize,
        /// Count given.
        found: usize,
    },
    /// A piece field is outside the accepted range.
    #[error("pieces[{piece}].{field}: expected {expected}, found {found}")]
    InvalidPiece {
        /// Piece index.
        piece: usize,
        /// `weight`, `dims` or `insuranceAmount`.
        field: &'static str,
        /// The accepted range.
        expected: &'static str,
        /// The value given.
        found: Decimal,
    },
    /// Markup outside the accepted range.
    #[error("markup percent: expected more than -100 and at most 10000, found {0}")]
    InvalidMarkup(Decimal),
    /// A US-domain address without a ZIP code.
    #[error("{}.zip: a ZIP code is needed to find the zone", end.as_str())]
    ZipRequired {
        /// Which address.
        end: End,
    },
    /// A US-domain ZIP that does not start with 5 digits.
    #[error("{}.zip: expected a 5-digit ZIP code, found {zip:?}", end.as_str())]
    InvalidZip {
        /// Which address.
        end: End,
        /// The ZIP given (at most 16 characters of it).
        zip: String,
    },
    /// A ZIP prefix that is not in use.
    #[error("{}.zip: ZIP prefix {prefix:03} is not in use; check the ZIP code", end.as_str())]
    UnknownZipPrefix {
        /// Which address.
        end: End,
        /// The 3-digit prefix.
        prefix: u16,
    },
    /// The card's zone chart has no zone for this origin and destination.
    #[error("route not priced: {reason}")]
    RouteNotPriced {
        /// What is missing.
        reason: Cow<'static, str>,
    },
    /// The card has no prices for the zone of this route.
    #[error("route not priced: the rate card has no prices for zone {0}")]
    ZoneNotPriced(Zone),
    /// A piece is heavier than the card prices.
    #[error("pieces[{piece}]: billable weight {weight} {unit} is above the {max} {unit} this rate card prices; split the shipment or choose another package type")]
    WeightNotPriced {
        /// Piece index.
        piece: usize,
        /// Its billable weight.
        weight: Decimal,
        /// Heaviest priced weight.
        max: Decimal,
        /// Carrier weight unit.
        unit: &'static str,
    },
    /// An amount is too large to compute.
    #[error("the amount is too large to price; check weights, insured values and markup")]
    AmountTooLarge,
    /// An option was asked for that the card does not price.
    #[error("{0} is not offered by this service; remove it from the shipment")]
    OptionNotPriced(Cow<'static, str>),
}

/// Largest number of pieces [`RateBook::rate`] accepts.
pub const MAX_PIECES: usize = 10_000;

/// The immutable, indexed rate data. Build it with [`RateBook::default_book`] (the
/// service loads its own from its database); share it behind an `Arc` and swap the
/// whole book after an import.
#[derive(Debug, Clone)]
pub struct RateBook {
    pub(crate) carriers: Vec<Carrier>,
    pub(crate) charts: Vec<book::Chart>,
    /// Sorted by (carrier, service, package type).
    pub(crate) cards: Vec<Card>,
    /// `fx[from][to]`: multiply an amount in `from` by this to get `to`.
    pub(crate) fx: [[Decimal; 4]; 4],
    /// The (carrier, service) of every transit table, in order.
    pub(crate) transit_services: Vec<(Box<str>, Box<str>)>,
}

/// Checked multiplication: rate data and inputs are bounded, but exchange rates,
/// markup and many heavy pieces together could exceed `Decimal`'s range.
fn mul(a: Decimal, b: Decimal) -> Result<Decimal, RateError> {
    a.checked_mul(b).ok_or(RateError::AmountTooLarge)
}

/// `a / b` rounded up to a whole number, for positive `a` and `b`, in integer
/// arithmetic on the mantissas (falls back to `Decimal` division when the scaled
/// mantissas would not fit an i128). `None` when not positive or above u32.
fn ceil_ratio(a: Decimal, b: Decimal) -> Option<u32> {
    let (ma, mb) = (a.mantissa(), b.mantissa());
    if ma <= 0 || mb <= 0 {
        return None;
    }
    let num = ma.checked_mul(POW10[b.scale().min(28) as usize]);
    let den = mb.checked_mul(POW10[a.scale().min(28) as usize]);
    match (num, den) {
        (Some(n), Some(d)) => match (u64::try_from(n), u64::try_from(d)) {
            (Ok(n), Ok(d)) => u32::try_from(n / d + u64::from(n % d != 0)).ok(),
            _ => u32::try_from(n / d + i128::from(n % d != 0)).ok(),
        },
        _ => a.checked_div(b)?.ceil().to_u32(),
    }
}

/// 10^0 ..= 10^28.
const POW10: [i128; 29] = {
    let mut t = [1i128; 29];
    let mut i = 1;
    while i < 29 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `lo < d <= hi` for integer bounds, on the mantissa (no rescaling: this is on the
/// hot path). `|hi|, |lo| <= 10^9`, so the products stay far inside i128.
#[inline(always)]
fn in_range(d: Decimal, lo_exclusive: i128, hi: i128) -> bool {
    let m = d.mantissa();
    if d.scale() == 0 {
        // whole numbers, the usual input: no scaling of the bounds
        return m > lo_exclusive && m <= hi;
    }
    let p = POW10[d.scale().min(28) as usize];
    m > lo_exclusive * p && m <= hi * p
}

const KG_PER_LB: Decimal = Decimal::from_parts(45_359_237, 0, 0, false, 8);
const MAX_WEIGHT: i128 = 1_000_000;
const MAX_DIM: i128 = 100_000;
const MAX_INSURANCE: i128 = 1_000_000_000;
const HUNDRED: Decimal = Decimal::ONE_HUNDRED;

/// A weight in `from` converted to `to` (only lb and kg are carrier units).
pub(crate) fn convert_weight(w: Decimal, from: WeightUnit, to: WeightUnit) -> Decimal {
    let lb_per = |u: WeightUnit| -> Option<Decimal> {
        match u {
            WeightUnit::Lb => Some(Decimal::ONE),
            WeightUnit::Oz => Some(Decimal::from_parts(625, 0, 0, false, 4)),
            _ => None,
        }
    };
    let kg_per = |u: WeightUnit| -> Decimal {
        match u {
            WeightUnit::Kg => Decimal::ONE,
            WeightUnit::G => Decimal::from_parts(1, 0, 0, false, 3),
            WeightUnit::Lb => KG_PER_LB,
            WeightUnit::Oz => KG_PER_LB / Decimal::from(16),
        }
    };
    if from == to {
        return w;
    }
    match (lb_per(from), to) {
        (Some(f), WeightUnit::Lb) => w * f,
        (None, WeightUnit::Lb) => w * kg_per(from) / KG_PER_LB,
        (_, WeightUnit::Oz) => w * kg_per(from) / kg_per(WeightUnit::Oz),
        (_, _) => w * kg_per(from) / kg_per(to),
    }
}

/// Multipliers of weights and lengths into the unit of a comparison (see [`Units`]).
#[derive(Clone, Copy)]
pub(crate) struct Scale {
    pub weight: D,
    pub length: D,
}

/// The piece's measures and the carrier's step, limits and thresholds compared in one
/// unit, reached by multiplying both sides by integers (exact), never by dividing the
/// piece's measures into the carrier's unit (which would round at 28 digits, and cost a
/// `Decimal` division per measure).
struct Units {
    /// Multipliers of the piece's weight and dimensions.
    piece: Scale,
    /// Multipliers of the carrier's.
    carrier: Scale,
}

impl Units {
    fn of(input: &RateInput<'_>, carrier: &Carrier) -> Units {
        let (wf, wc) = weight_factors(input.weight_unit, carrier.weight_unit);
        let (lf, lc) = length_factors(input.dim_unit, carrier.dim_unit);
        Units { piece: Scale { weight: wf, length: lf }, carrier: Scale { weight: wc, length: lc } }
    }
}

/// Billable weight of one piece, in carrier steps.
struct PieceWeight {
    actual_steps: u32,
    steps: u32,
    /// Sorted dims (longest first), in the comparison unit of [`Units`], if known.
    dims: Option<[D; 3]>,
    /// Actual weight in the comparison unit of [`Units`], unrounded.
    actual: D,
}

impl RateBook {
    /// The rate card of a carrier, service and package type, if the book has one.
    pub fn card(&self, carrier: &str, service: &str, package_type: &str) -> Option<CardId> {
        self.cards
            .binary_search_by(|c| (&*c.carrier, &*c.service, &*c.package_type).cmp(&(carrier, service, package_type)))
            .ok()
            .map(|i| CardId(i as u32))
    }

    /// When a shipment dated `ship` that card `card` rates in `zone` arrives, by the
    /// card's service's transit table and its carrier's calendar; Saturday is a delivery
    /// day when `saturday` delivery was asked for. `None` when the service has no transit
    /// row for the zone (or its calendar never delivers).
    pub fn arrival(&self, card: CardId, zone: Zone, ship: chrono::NaiveDate, saturday: bool) -> Option<Arrival> {
        self.cards.get(card.0 as usize)?.transit.as_ref()?.arrival(zone, ship, saturday)
    }

    /// The (carrier, service) of every service with a transit table.
    pub fn transit_services(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.transit_services.iter().map(|(c, s)| (&**c, &**s))
    }

    /// All cards, as (carrier, service, package type, id).
    pub fn cards(&self) -> impl Iterator<Item = (&str, &str, &str, CardId)> + '_ {
        self.cards.iter().enumerate().map(|(i, c)| (&*c.carrier, &*c.service, &*c.package_type, CardId(i as u32)))
    }

    /// Converts an amount between currencies with the book's exchange table,
    /// unrounded. (An amount so large that the product would overflow `Decimal`,
    /// about 7.9e28, is returned unconverted rather than panicking.)
    pub fn convert(&self, amount: Decimal, from: Currency, to: Currency) -> Decimal {
        if from == to {
            return amount;
        }
        amount.checked_mul(self.fx[from.idx()][to.idx()]).unwrap_or(amount)
    }

    /// Prices a shipment on a card. Pure; no SQL.
    ///
    /// # Errors
    /// [`RateError`] when an input is out of range, the route has no zone or no
    /// price on this card, a piece is heavier than the card prices, or an option is
    /// asked for that the card does not price.
    // ok_or_else, not ok_or: ok_or(error) builds (and drops) the error value on every
    // success, which is measurable on this path
    #[allow(clippy::unnecessary_lazy_evaluations)]
    pub fn rate(&self, card: CardId, input: &RateInput<'_>) -> Result<Rate, RateError> {
        // All money and weight arithmetic below is on `D` (fixed.rs): an unpacked
        // non-negative Decimal whose operations give the same value and scale as
        // `Decimal`'s, in a few integer instructions (falling back to `Decimal` when
        // it would round).
        let card = self.cards.get(card.0 as usize).ok_or_else(|| RateError::UnknownCard)?;
        let carrier = self.carriers.get(usize::from(card.carrier_idx)).ok_or_else(|| RateError::UnknownCard)?;
        if input.pieces.is_empty() {
            return Err(RateError::NoPieces);
        }
        if input.pieces.len() > MAX_PIECES {
            return Err(RateError::TooManyPieces { max: MAX_PIECES, found: input.pieces.len() });
        }
        if !in_range(input.markup_percent, -100, 10_000) {
            return Err(RateError::InvalidMarkup(input.markup_percent));
        }
        let zone = self.zone(card, input)?;
        let units = Units::of(input, carrier);
        let prices = card.zones.iter().find(|z| z.zone.is_none() || z.zone == Some(zone)).ok_or_else(|| RateError::ZoneNotPriced(zone))?;

        let sur = &card.surcharges;
        let too_large = || RateError::AmountTooLarge;
        let mut base = D::ZERO;
        let mut handling = D::ZERO;
        let mut oversize = D::ZERO;
        let mut quoted_steps: u64 = 0;
        let mut actual_steps: u64 = 0;
        let mut insured = D::ZERO;
        for (i, piece) in input.pieces.iter().enumerate() {
            let pw = piece_weight(carrier, card.flat, i, piece, input, &units)?;
            quoted_steps += u64::from(pw.steps);
            actual_steps += u64::from(pw.actual_steps);
            let price = prices.price(pw.steps).ok_or_else(|| RateError::WeightNotPriced {
                piece: i,
                weight: Decimal::from(pw.steps) * carrier.step,
                max: prices.max_weight(carrier.step),
                unit: carrier.weight_unit.as_str(),
            })?;
            base = base.checked_add(D::pos(price)).ok_or_else(too_large)?;
            let (h, o) = sur.piece_handling(pw.actual, pw.dims, units.carrier);
            handling = handling.checked_add(h).ok_or_else(too_large)?;
            oversize = oversize.checked_add(o).ok_or_else(too_large)?;
            if let Some(v) = piece.insurance {
                if !(v.is_zero() || in_range(v, 0, MAX_INSURANCE)) {
                    return Err(RateError::InvalidPiece {
                        piece: i,
                        field: "insuranceAmount",
                        expected: "a value from 0 to 1000000000",
                        found: v,
                    });
                }
                insured = insured.checked_add(D::pos(v)).ok_or_else(too_large)?;
            }
        }
        if let Some(min) = prices.minimum {
            base = base.max(D::pos(min));
        }

        let fx = D::pos(self.fx[carrier.currency.idx()][input.currency.idx()]);
        let factor = if input.markup_percent.is_zero() { fx } else { markup_factor(input.markup_percent, fx)? };
        let mut lines = Lines::new();
        // markup and currency, applied to every line before its single rounding
        let unit_factor = factor.cmp_value(D { m: 1, s: 0 }).is_eq();
        let money = Money { unit: unit_factor, factor };
        // transportation lines, all subject to fuel
        let mut transport = base;
        if input.residential {
            if let Some(a) = sur.residential {
                money.add(&mut lines, &mut transport, SurchargeKind::Residential, D::pos(a))?;
            }
        }
        if let Some(a) = sur.delivery_area(input.receiver) {
            money.add(&mut lines, &mut transport, SurchargeKind::DeliveryArea, D::pos(a))?;
        }
        money.add(&mut lines, &mut transport, SurchargeKind::AdditionalHandling, handling)?;
        money.add(&mut lines, &mut transport, SurchargeKind::Oversize, oversize)?;
        if input.saturday_delivery {
            let a = sur.saturday.ok_or_else(|| RateError::OptionNotPriced(Cow::Borrowed("Saturday delivery")))?;
            money.add(&mut lines, &mut transport, SurchargeKind::Saturday, D::pos(a))?;
        }
        if input.am_delivery {
            let a = sur.am.ok_or_else(|| RateError::OptionNotPriced(Cow::Borrowed("AM delivery")))?;
            money.add(&mut lines, &mut transport, SurchargeKind::AmDelivery, D::pos(a))?;
        }
        if input.dangerous_goods {
            let a = sur.dangerous_goods.ok_or_else(|| RateError::OptionNotPriced(Cow::Borrowed("Shipping dangerous goods")))?;
            money.add(&mut lines, &mut transport, SurchargeKind::DangerousGoods, D::pos(a))?;
        }
        money.push(&mut lines, SurchargeKind::Fuel, transport.checked_mul(D::pos(sur.fuel_fraction)).ok_or_else(too_large)?)?;
        if let Some(code) = input.signature_option {
            let a = sur.signature.iter().find(|(c, _)| &**c == code).map(|(_, a)| *a).ok_or_else(|| {
                RateError::OptionNotPriced(Cow::Owned(format!("signature option {:?}", code.chars().take(64).collect::<String>())))
            })?;
            money.push(&mut lines, SurchargeKind::Signature, D::pos(a))?;
        }
        if insured.gt(D::ZERO) {
            let per100 = sur.insurance_per_100.ok_or_else(|| RateError::OptionNotPriced(Cow::Borrowed("Insurance")))?;
            let value = insured.checked_mul(D::pos(self.fx[input.currency.idx()][carrier.currency.idx()])).ok_or_else(too_large)?;
            let units = match ceil_ratio_d(value, D { m: 100, s: 0 }) {
                Some(u) => D { m: u128::from(u), s: 0 },
                None => D::pos((value.dec() / HUNDRED).ceil()),
            };
            let amount = units.checked_mul(D::pos(per100)).ok_or_else(too_large)?.max(D::pos(sur.insurance_min));
            money.push(&mut lines, SurchargeKind::Insurance, amount)?;
        }

        let base = money.scale(base)?.round_cents();
        let mut total = base;
        for l in lines.iter() {
            total = total.checked_add(D::pos(l.amount)).ok_or_else(too_large)?;
        }
        let quoted_weight = match (D { m: u128::from(quoted_steps), s: 0 }).mul_fast(D::pos(carrier.step)) {
            Some(w) => w.dec(),
            None => Decimal::from(quoted_steps) * carrier.step,
        };
        Ok(Rate {
            zone,
            base: base.dec(),
            surcharges: lines,
            total: total.dec(),
            quoted_weight,
            quoted_weight_unit: carrier.weight_unit,
            weight_type: if quoted_steps > actual_steps { WeightType::Dimensional } else { WeightType::Actual },
            currency: input.currency,
        })
    }

    /// The zone of a route on a card's chart.
    #[allow(clippy::unnecessary_lazy_evaluations)] // as in `rate`: no error value on success
    fn zone(&self, card: &Card, input: &RateInput<'_>) -> Result<Zone, RateError> {
        let chart = self.charts.get(usize::from(card.chart)).ok_or_else(|| RateError::UnknownCard)?;
        let (key, other, other_end) = match chart.basis {
            Basis::Receiver => (input.receiver, input.sender, End::Sender),
            Basis::Sender => (input.sender, input.receiver, End::Receiver),
        };
        let rule = chart.rule(key.country).ok_or_else(|| RateError::RouteNotPriced {
            reason: Cow::Owned(format!(
                "no zone for {} country {:?} on this service's zone chart",
                match chart.basis {
                    Basis::Receiver => "receiver",
                    Basis::Sender => "sender",
                },
                key.country.chars().take(8).collect::<String>()
            )),
        })?;
        if !zones::is_us_domain(other.country) {
            return Err(RateError::RouteNotPriced {
                reason: Cow::Owned(format!(
                    "this service's rates are for shipments {} the United States, and the {} is in {:?}",
                    match chart.basis {
                        Basis::Receiver => "from",
                        Basis::Sender => "to",
                    },
                    other_end.as_str(),
                    other.country.chars().take(8).collect::<String>()
                )),
            });
        }
        match rule {
            ZoneRule::Fixed(z) => Ok(z),
            ZoneRule::Distance { territory_rules } => {
                let (s, r) = (input.sender, input.receiver);
                if !zones::is_us_domain(s.country) || !zones::is_us_domain(r.country) {
                    return Err(RateError::RouteNotPriced { reason: Cow::Borrowed("distance zones need both addresses in the US") });
                }
                let a = zones::us_end(&s, End::Sender)?;
                let b = zones::us_end(&r, End::Receiver)?;
                zones::us_zone(a, b, territory_rules)
            }
        }
    }
}

/// The markup-and-currency factor of a request, applied to every line before its
/// single rounding.
#[derive(Clone, Copy)]
struct Money {
    /// The factor is 1: amounts are left as they are.
    unit: bool,
    factor: D,
}

#[allow(clippy::unnecessary_lazy_evaluations)] // as in `rate`: no error value on success
impl Money {
    #[inline(always)]
    fn scale(self, raw: D) -> Result<D, RateError> {
        if self.unit {
            Ok(raw)
        } else {
            raw.checked_mul(self.factor).ok_or_else(|| RateError::AmountTooLarge)
        }
    }

    /// Appends a line of `raw` (scaled, rounded) unless `raw` is zero.
    #[inline(always)]
    fn push(self, lines: &mut Lines, kind: SurchargeKind, raw: D) -> Result<(), RateError> {
        if !raw.is_zero() {
            lines.push(Surcharge { kind, amount: self.scale(raw)?.round_cents().dec() });
        }
        Ok(())
    }

    /// A transportation line: also added to the fuel base.
    #[inline(always)]
    fn add(self, lines: &mut Lines, transport: &mut D, kind: SurchargeKind, raw: D) -> Result<(), RateError> {
        if raw.is_zero() {
            return Ok(());
        }
        *transport = transport.checked_add(raw).ok_or_else(|| RateError::AmountTooLarge)?;
        self.push(lines, kind, raw)
    }
}

/// Validates a piece and computes its billable weight in carrier steps.
#[allow(clippy::unnecessary_lazy_evaluations)] // as in `rate`: no error value on success
fn piece_weight(
    carrier: &Carrier,
    flat: bool,
    i: usize,
    piece: &PieceInput,
    input: &RateInput<'_>,
    units: &Units,
) -> Result<PieceWeight, RateError> {
    if !in_range(piece.weight, 0, MAX_WEIGHT) {
        return Err(RateError::InvalidPiece {
            piece: i,
            field: "weight",
            expected: "a weight above 0 and at most 1000000",
            found: piece.weight,
        });
    }
    let (wf, wc, lf, lc) = (units.piece.weight, units.carrier.weight, units.piece.length, units.carrier.length);
    let too_heavy = || RateError::InvalidPiece { piece: i, field: "weight", expected: "a smaller weight", found: piece.weight };
    // (The same unit, the usual case, skips the multiplications by one.)
    let same_weight = input.weight_unit == carrier.weight_unit;
    let by = |v: D, f: D, same: bool| if same { Some(v) } else { v.checked_mul(f) };
    let actual = by(D::pos(piece.weight), wf, same_weight).ok_or_else(too_heavy)?;
    let step = by(D::pos(carrier.step), wc, same_weight).ok_or_else(too_heavy)?;
    let actual_steps = ceil_ratio_d(actual, step).ok_or_else(too_heavy)?;
    let mut steps = actual_steps;
    let mut dims = None;
    if let Some(d) = piece.dims {
        for v in d {
            if !in_range(v, 0, MAX_DIM) {
                return Err(RateError::InvalidPiece {
                    piece: i,
                    field: "dims",
                    expected: "each dimension above 0 and at most 100000",
                    found: v,
                });
            }
        }
        let too_large =
            || RateError::InvalidPiece { piece: i, field: "dims", expected: "smaller dimensions", found: d[0].max(d[1]).max(d[2]) };
        let same_length = input.dim_unit == carrier.dim_unit;
        let scaled = |v: Decimal| by(D::pos(v), lf, same_length);
        let (Some(a), Some(b), Some(h)) = (scaled(d[0]), scaled(d[1]), scaled(d[2])) else {
            return Err(too_large());
        };
        let c = longest_first([a, b, h]);
        dims = Some(c);
        let volume = c[0].checked_mul(c[1]).and_then(|v| v.checked_mul(c[2])).ok_or_else(too_large)?;
        let cube = if same_length { lc } else { lc.checked_mul(lc).and_then(|l2| l2.checked_mul(lc)).ok_or_else(too_large)? };
        let min_volume = by(D::pos(carrier.dim_min_volume), cube, same_length).ok_or_else(too_large)?;
        if !flat && (min_volume.is_zero() || volume.gt(min_volume)) {
            // volume per weight step, in one division
            let per_step = by(D::pos(carrier.dim_volume_per_step), cube, same_length).ok_or_else(too_large)?;
            let dim_steps = ceil_ratio_d(volume, per_step).ok_or_else(too_large)?;
            steps = steps.max(dim_steps);
        }
    }
    Ok(PieceWeight { actual_steps, steps, dims, actual })
}

/// The three sides of a piece, longest first: an insertion sort, as the standard
/// library sorts three items (stable), so sides of equal length and different scales
/// keep their order, as they did when this was `sort_unstable_by` on `Decimal`.
#[inline(always)]
fn longest_first(mut c: [D; 3]) -> [D; 3] {
    if c[1].gt(c[0]) {
        c.swap(0, 1);
    }
    if c[2].gt(c[1]) {
        c.swap(1, 2);
        if c[1].gt(c[0]) {
            c.swap(0, 1);
        }
    }
    c
}

/// Nanograms per weight unit: integers, so that a weight in any unit and a weight in
/// any other meet in one unit by multiplying each by an integer.
const fn nanograms(u: WeightUnit) -> u128 {
    match u {
        WeightUnit::Lb => 453_592_370_000,
        WeightUnit::Oz => 28_349_523_125,
        WeightUnit::Kg => 1_000_000_000_000,
        WeightUnit::G => 1_000_000_000,
    }
}

/// Hundredths of a millimetre per length unit, likewise.
const fn centimils(u: DimUnit) -> u128 {
    match u {
        DimUnit::In => 2_540,
        DimUnit::Cm => 1_000,
    }
}

const fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// `(f, g)`, the smallest integers with `x` of unit `a` times `f` and `y` of unit `b`
/// times `g` in one common unit: `(a, b)` per unit as given, reduced.
const fn factors(a: u128, b: u128) -> (D, D) {
    let g = gcd(a, b);
    (D { m: a / g, s: 0 }, D { m: b / g, s: 0 })
}

const WEIGHT_UNITS: [WeightUnit; 4] = [WeightUnit::Lb, WeightUnit::Oz, WeightUnit::Kg, WeightUnit::G];

/// [`factors`] of every pair of weight units, computed at compile time.
const WEIGHT_FACTORS: [[(D, D); 4]; 4] = {
    let mut t = [[(D::ZERO, D::ZERO); 4]; 4];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < 4 {
            t[i][j] = factors(nanograms(WEIGHT_UNITS[i]), nanograms(WEIGHT_UNITS[j]));
            j += 1;
        }
        i += 1;
    }
    t
};

const fn weight_index(u: WeightUnit) -> usize {
    match u {
        WeightUnit::Lb => 0,
        WeightUnit::Oz => 1,
        WeightUnit::Kg => 2,
        WeightUnit::G => 3,
    }
}

/// Multipliers that bring a weight in `input` and one in `carrier` units to one unit
/// (both 1 for the same unit).
#[inline]
fn weight_factors(input: WeightUnit, carrier: WeightUnit) -> (D, D) {
    WEIGHT_FACTORS[weight_index(input)][weight_index(carrier)]
}

/// The same for lengths.
#[inline]
fn length_factors(input: DimUnit, carrier: DimUnit) -> (D, D) {
    const IN_CM: (D, D) = factors(centimils(DimUnit::In), centimils(DimUnit::Cm));
    match (input, carrier) {
        (DimUnit::In, DimUnit::Cm) => IN_CM,
        (DimUnit::Cm, DimUnit::In) => (IN_CM.1, IN_CM.0),
        _ => (D { m: 1, s: 0 }, D { m: 1, s: 0 }),
    }
}

/// [`ceil_ratio`] on `D` (positive `a`, `b`).
#[inline(always)]
fn ceil_ratio_d(a: D, b: D) -> Option<u32> {
    if a.m == 0 || b.m == 0 {
        return None;
    }
    if a.s == 0 && b.s == 0 && b.m == 1 {
        // a whole weight in a carrier step of one unit: no division
        return u32::try_from(a.m).ok();
    }
    // a.m, b.m < 2^96: the products below fit u128 when the power is at most 10^9
    if a.s <= 9 && b.s <= 9 {
        if (a.m | b.m) >> 64 == 0 {
            // the usual case: one widening multiply each
            let n = fixed::wide(a.m as u64, b.s);
            let d = fixed::wide(b.m as u64, a.s);
            if let (Ok(n), Ok(d)) = (u64::try_from(n), u64::try_from(d)) {
                return u32::try_from(n / d + u64::from(n % d != 0)).ok();
            }
        }
        let n = a.m * POW10U[b.s as usize];
        let d = b.m * POW10U[a.s as usize];
        return match (u64::try_from(n), u64::try_from(d)) {
            (Ok(n), Ok(d)) => u32::try_from(n / d + u64::from(n % d != 0)).ok(),
            _ => u32::try_from(n / d + u128::from(n % d != 0)).ok(),
        };
    }
    ceil_ratio(a.dec(), b.dec())
}

/// `(1 + markup / 100) x fx`, the factor of every line, as the `Decimal` code:
/// `fx` alone for a zero markup.
fn markup_factor(markup: Decimal, fx: D) -> Result<D, RateError> {
    if markup.is_zero() {
        return Ok(fx);
    }
    let s = markup.scale();
    if s + 2 <= 28 {
        // 1 + markup / 100 exactly: markup at scale s + 2 is the fraction; 1 at that
        // scale is 10^(s+2). markup > -100, so the sum is positive.
        let one = POW10U[(s + 2) as usize];
        let m = markup.mantissa();
        let sum = if m >= 0 { one.checked_add(m.unsigned_abs()) } else { one.checked_sub(m.unsigned_abs()) };
        if let Some(sum) = sum {
            if sum < (1 << 96) && sum > 0 {
                return D { m: sum, s: s + 2 }.checked_mul(fx).ok_or(RateError::AmountTooLarge);
            }
        }
    }
    let mut frac = markup;
    if frac.set_scale(markup.scale() + 2).is_err() {
        frac = markup / HUNDRED;
    }
    let f = mul(Decimal::ONE + frac, fx.dec())?;
    D::of(f).ok_or(RateError::AmountTooLarge)
}
