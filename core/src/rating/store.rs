//! Rate data in SQLite: schema, seeding, CSV import and export.
//!
//! Every value is stored as the canonical text the CSV format uses, so that export
//! reproduces an imported file byte for byte. Rows are exported in a fixed order:
//! by their key columns, then in the order they were imported.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use rusqlite::{params_from_iter, Connection, Transaction};
use rust_decimal::Decimal;

use super::book::{Basis, RateBookError, SurchargeType};
use super::csv::{self, Record};
use super::{Currency, DimUnit, RateBook, Zone};

/// The tables of the rate data. Applied once by a migration.
pub const SCHEMA_SQL: &str = "\
CREATE TABLE rate_carrier (
    carrier TEXT PRIMARY KEY NOT NULL,
    currency TEXT NOT NULL,
    weight_unit TEXT NOT NULL,
    weight_step TEXT NOT NULL,
    dim_unit TEXT NOT NULL,
    dim_divisor TEXT NOT NULL,
    dim_min_volume TEXT NOT NULL
);
CREATE TABLE rate_exchange (
    currency TEXT PRIMARY KEY NOT NULL,
    per_usd TEXT NOT NULL
);
CREATE TABLE rate_zone (
    id INTEGER PRIMARY KEY,
    chart TEXT NOT NULL,
    basis TEXT NOT NULL,
    country TEXT NOT NULL,
    zone TEXT NOT NULL,
    UNIQUE (chart, country)
);
CREATE TABLE rate_price (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    package_type TEXT NOT NULL,
    chart TEXT NOT NULL,
    zone TEXT NOT NULL,
    weight TEXT NOT NULL,
    price TEXT NOT NULL,
    UNIQUE (carrier, service, package_type, zone, weight)
);
CREATE TABLE rate_surcharge (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    amount TEXT NOT NULL,
    UNIQUE (carrier, service, kind, key)
);
";

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
}

impl CsvKind {
    /// All kinds, in the order data must be seeded.
    pub const ALL: [CsvKind; 5] = [CsvKind::Carriers, CsvKind::ExchangeRates, CsvKind::Zones, CsvKind::Rates, CsvKind::Surcharges];

    /// `carriers`, `exchange-rates`, `zones`, `rates`, `surcharges`.
    pub fn as_str(self) -> &'static str {
        match self {
            CsvKind::Carriers => "carriers",
            CsvKind::ExchangeRates => "exchange-rates",
            CsvKind::Zones => "zones",
            CsvKind::Rates => "rates",
            CsvKind::Surcharges => "surcharges",
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
        }
    }

    fn table(self) -> &'static str {
        match self {
            CsvKind::Carriers => "rate_carrier",
            CsvKind::ExchangeRates => "rate_exchange",
            CsvKind::Zones => "rate_zone",
            CsvKind::Rates => "rate_price",
            CsvKind::Surcharges => "rate_surcharge",
        }
    }

    fn order_by(self) -> &'static str {
        match self {
            CsvKind::Carriers => "carrier",
            CsvKind::ExchangeRates => "currency",
            CsvKind::Zones => "chart, id",
            CsvKind::Rates => "carrier, service, package_type, id",
            CsvKind::Surcharges => "carrier, id",
        }
    }

    /// The embedded default file of this kind.
    pub fn default_csv(self) -> &'static str {
        match self {
            CsvKind::Carriers => include_str!("../../data/rates/carriers.csv"),
            CsvKind::ExchangeRates => include_str!("../../data/rates/exchange-rates.csv"),
            CsvKind::Zones => include_str!("../../data/rates/zones.csv"),
            CsvKind::Rates => default_rates_csv(),
            CsvKind::Surcharges => include_str!("../../data/rates/surcharges.csv"),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn default_rates_csv() -> &'static str {
    include_str!("../../data/rates/rates.csv")
}

/// The WASM build embeds the rate table deflated (core/build.rs) to stay small.
#[cfg(target_arch = "wasm32")]
fn default_rates_csv() -> &'static str {
    static CSV: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSV.get_or_init(|| {
        let deflated = include_bytes!(concat!(env!("OUT_DIR"), "/rates.csv.deflate"));
        let text = miniz_oxide::inflate::decompress_to_vec(deflated).ok().and_then(|b| String::from_utf8(b).ok());
        #[allow(clippy::expect_used, reason = "build.rs wrote it from the UTF-8 file: failing here is a broken build")]
        text.expect("the embedded rate table inflates to UTF-8")
    })
}

impl FromStr for CsvKind {
    type Err = super::ParseEnumError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CsvKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| super::parse_err("carriers, exchange-rates, zones, rates, surcharges", s))
    }
}

/// One invalid row of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// 1-based line number in the file (the header is line 1).
    pub line: usize,
    /// What is wrong, naming the column.
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Why an import was refused. Nothing was written when this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// Rows that failed validation (all of them, in file order).
    #[error("{} invalid row(s): {}", .0.len(), join(.0))]
    Rows(Vec<RowError>),
    /// The data would leave the rate book inconsistent (e.g. a card naming a zone
    /// chart that does not exist).
    #[error("the import would leave the rate data inconsistent: {0}")]
    Inconsistent(String),
    /// Database error.
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

fn join(rows: &[RowError]) -> String {
    let mut s = String::new();
    for (i, r) in rows.iter().enumerate() {
        if i == 10 {
            s.push_str(&format!("; and {} more", rows.len() - 10));
            break;
        }
        if i > 0 {
            s.push_str("; ");
        }
        s.push_str(&r.to_string());
    }
    s
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    /// The kind imported.
    pub kind: CsvKind,
    /// Data rows written.
    pub rows: usize,
    /// Cards, charts, carriers or currencies replaced.
    pub replaced: usize,
}

// ---------------------------------------------------------------- typed rows

/// A validated data row: canonical field text plus the parsed values build needs.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub line: usize,
    pub fields: Vec<String>,
}

fn is_code(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

fn is_country(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// Largest number accepted anywhere in rate data.
const MAX_VALUE: Decimal = Decimal::from_parts(1_000_000_000, 0, 0, false, 0);

/// Parses a non-negative decimal of at most 10 decimal places, at most 10^9.
pub(crate) fn parse_amount(s: &str) -> Option<Decimal> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let d = Decimal::from_str(s).ok()?;
    (d.scale() <= 10 && d <= MAX_VALUE).then_some(d)
}

fn parse_positive(s: &str) -> Option<Decimal> {
    parse_amount(s).filter(|d| !d.is_zero())
}

/// Checks one record of `kind`; returns the canonical fields.
fn check_row(kind: CsvKind, f: &[String], errs: &mut Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = f.to_vec();
    let mut bad = |col: &str, expected: &str, found: &str| {
        errs.push(format!("{col}: expected {expected}, found {:?}", found.chars().take(40).collect::<String>()))
    };
    let num = |i: usize, col: &str, positive: bool, out: &mut Vec<String>, bad: &mut dyn FnMut(&str, &str, &str)| {
        let p = if positive { parse_positive(&f[i]) } else { parse_amount(&f[i]) };
        match p {
            Some(d) => out[i] = d.to_string(),
            None => bad(
                col,
                if positive {
                    "a decimal number above 0 (at most 1000000000, 10 decimals)"
                } else {
                    "a decimal number of 0 or more (at most 1000000000, 10 decimals)"
                },
                &f[i],
            ),
        }
    };
    match kind {
        CsvKind::Carriers => {
            if !is_code(&f[0]) {
                bad("carrier", "a code of a-z, 0-9, _ or -", &f[0]);
            }
            if Currency::from_str(&f[1]).is_err() {
                bad("currency", "USD, GBP, CAD or EUR", &f[1]);
            }
            if !matches!(f[2].as_str(), "lb" | "kg") {
                bad("weight_unit", "lb or kg", &f[2]);
            }
            num(3, "weight_step", true, &mut out, &mut bad);
            if let Some(step) = parse_positive(&f[3]) {
                if step < Decimal::new(1, 4) {
                    bad("weight_step", "at least 0.0001", &f[3]);
                }
            }
            if DimUnit::from_str(&f[4]).is_err() {
                bad("dim_unit", "in or cm", &f[4]);
            }
            num(5, "dim_divisor", true, &mut out, &mut bad);
            num(6, "dim_min_volume", false, &mut out, &mut bad);
        }
        CsvKind::ExchangeRates => {
            if Currency::from_str(&f[0]).is_err() {
                bad("currency", "USD, GBP, CAD or EUR", &f[0]);
            }
            num(1, "per_usd", true, &mut out, &mut bad);
            if f[0] == "USD" && parse_positive(&f[1]) != Some(Decimal::ONE) {
                bad("per_usd", "1 for USD", &f[1]);
            }
            if let Some(d) = parse_positive(&f[1]) {
                if d < Decimal::new(1, 4) {
                    bad("per_usd", "at least 0.0001", &f[1]);
                }
            }
        }
        CsvKind::Zones => {
            if !is_code(&f[0]) {
                bad("chart", "a code of a-z, 0-9, _ or -", &f[0]);
            }
            if Basis::parse(&f[1]).is_none() {
                bad("basis", "receiver or sender", &f[1]);
            }
            if !is_country(&f[2]) {
                bad("country", "an ISO alpha-2 code in upper case", &f[2]);
            }
            if !matches!(f[3].as_str(), "distance" | "distance-t9") && Zone::new(&f[3]).is_none() {
                bad("zone", "a zone code of 1 to 8 letters or digits, distance or distance-t9", &f[3]);
            }
            if f[1] == "sender" && f[3].starts_with("distance") {
                bad("zone", "a zone code (distance zoning keys on the receiver)", &f[3]);
            }
        }
        CsvKind::Rates => {
            for (i, col) in ["carrier", "service", "package_type", "chart"].iter().enumerate() {
                if !is_code(&f[i]) {
                    bad(col, "a code of a-z, 0-9, _ or -", &f[i]);
                }
            }
            if f[4] != "*" && Zone::new(&f[4]).is_none() {
                bad("zone", "a zone code of 1 to 8 letters or digits, or *", &f[4]);
            }
            if !matches!(f[5].as_str(), "each" | "min") {
                num(5, "weight", true, &mut out, &mut bad);
            }
            num(6, "price", false, &mut out, &mut bad);
        }
        CsvKind::Surcharges => {
            if !is_code(&f[0]) {
                bad("carrier", "a code of a-z, 0-9, _ or -", &f[0]);
            }
            if f[1] != "*" && !is_code(&f[1]) {
                bad("service", "a service code or *", &f[1]);
            }
            match SurchargeType::parse(&f[2]) {
                None => bad(
                    "kind",
                    "one of fuel, residential, delivery_area, signature, insurance, insurance_min, saturday, am, dangerous_goods, handling_weight, handling_length, oversize_length, oversize_girth",
                    &f[2],
                ),
                Some(t) => match t.key_rule() {
                    KeyRule::Empty if !f[3].is_empty() => bad("key", "an empty key for this kind", &f[3]),
                    KeyRule::Zip
                        if !((f[3].len() == 3 || f[3].len() == 5)
                            && f[3].bytes().all(|b| b.is_ascii_digit())) =>
                    {
                        bad("key", "a 3-digit ZIP prefix or a 5-digit ZIP", &f[3])
                    }
                    KeyRule::Code if !is_code(&f[3]) => bad("key", "a signature option code", &f[3]),
                    KeyRule::Threshold => num(3, "key", true, &mut out, &mut bad),
                    _ => {}
                },
            }
            num(4, "amount", false, &mut out, &mut bad);
        }
    }
    out
}

/// What the `key` column of a surcharge kind holds.
pub(crate) enum KeyRule {
    Empty,
    Zip,
    Code,
    Threshold,
}

/// Parses and validates a whole file; all row errors are collected.
pub(crate) fn parse_rows(kind: CsvKind, text: &str) -> Result<Vec<Row>, Vec<RowError>> {
    let records = csv::parse(text).map_err(|line| vec![RowError { line, message: "a quoted field is not closed".into() }])?;
    let mut iter = records.into_iter();
    let cols = kind.columns();
    let mut errors = Vec::new();
    match iter.next() {
        Some(Record { line, fields }) if fields != cols => {
            errors.push(RowError {
                line,
                message: format!(
                    "header: expected {:?} for {}, found {:?}",
                    cols.join(","),
                    kind.as_str(),
                    fields.join(",").chars().take(120).collect::<String>()
                ),
            });
            return Err(errors);
        }
        None => return Err(vec![RowError { line: 1, message: format!("header: expected {:?}, found an empty file", cols.join(",")) }]),
        _ => {}
    }
    let mut rows = Vec::new();
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    for Record { line, fields } in iter {
        if fields.len() != cols.len() {
            errors.push(RowError { line, message: format!("expected {} fields, found {}", cols.len(), fields.len()) });
            continue;
        }
        let mut msgs = Vec::new();
        let fields = check_row(kind, &fields, &mut msgs);
        let key: Vec<String> = match kind {
            CsvKind::Carriers | CsvKind::ExchangeRates => vec![fields[0].clone()],
            CsvKind::Zones => vec![fields[0].clone(), fields[2].clone()],
            CsvKind::Rates => {
                let mut k = fields[..3].to_vec();
                k.extend_from_slice(&fields[4..6]);
                k
            }
            CsvKind::Surcharges => fields[..4].to_vec(),
        };
        if msgs.is_empty() && !seen.insert(key) {
            msgs.push("duplicate row: the same key appears on an earlier line".into());
        }
        if msgs.is_empty() {
            rows.push(Row { line, fields });
        } else {
            errors.extend(msgs.into_iter().map(|message| RowError { line, message }));
        }
    }
    if errors.is_empty() {
        // whole-group rules: one basis per chart, one chart per card
        let mut groups: std::collections::BTreeMap<Vec<&str>, (&str, usize)> = Default::default();
        for r in &rows {
            let (g, v): (Vec<&str>, &str) = match kind {
                CsvKind::Zones => (vec![&r.fields[0]], &r.fields[1]),
                CsvKind::Rates => (r.fields[..3].iter().map(|s| s.as_str()).collect(), &r.fields[3]),
                _ => continue,
            };
            match groups.get(&g) {
                Some((first, first_line)) if *first != v => errors.push(RowError {
                    line: r.line,
                    message: format!(
                        "{}: {:?} differs from {:?} on line {}; one {} per {}",
                        if kind == CsvKind::Zones { "basis" } else { "chart" },
                        v,
                        first,
                        first_line,
                        if kind == CsvKind::Zones { "basis" } else { "chart" },
                        if kind == CsvKind::Zones { "chart" } else { "rate card" },
                    ),
                }),
                Some(_) => {}
                None => {
                    groups.insert(g, (v, r.line));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(rows)
    } else {
        Err(errors)
    }
}

/// Imports one CSV file of `kind` into the tables. It replaces the data of every
/// carrier (carriers, surcharges), currency (exchange rates), chart (zones) or
/// rate card (rates) the file names, and leaves the rest alone. Validated row by row
/// first (all row errors are returned, with line numbers); then written; then the
/// whole rate data is checked to still build a [`RateBook`].
///
/// # Errors
/// [`ImportError`]; the caller must roll the transaction back (it is not committed
/// here). On a row error nothing has been written at all.
pub fn import_csv(tx: &Transaction<'_>, kind: CsvKind, csv: &str) -> Result<ImportSummary, ImportError> {
    let summary = write_rows(tx, kind, csv)?;
    RateBook::load(tx).map_err(|e| ImportError::Inconsistent(e.to_string()))?;
    Ok(summary)
}

fn write_rows(conn: &Connection, kind: CsvKind, csv: &str) -> Result<ImportSummary, ImportError> {
    let rows = parse_rows(kind, csv).map_err(ImportError::Rows)?;
    write_parsed(conn, kind, &rows)
}

fn write_parsed(conn: &Connection, kind: CsvKind, rows: &[Row]) -> Result<ImportSummary, ImportError> {
    let table = kind.table();
    let cols = kind.columns();
    // groups replaced
    let group_len = match kind {
        CsvKind::Carriers | CsvKind::ExchangeRates | CsvKind::Zones | CsvKind::Surcharges => 1,
        CsvKind::Rates => 3,
    };
    let groups: BTreeSet<&[String]> = rows.iter().map(|r| &r.fields[..group_len]).collect();
    let where_: Vec<String> = cols[..group_len].iter().map(|c| format!("{c} = ?")).collect();
    let mut del = conn.prepare(&format!("DELETE FROM {table} WHERE {}", where_.join(" AND ")))?;
    for g in &groups {
        del.execute(params_from_iter(g.iter()))?;
    }
    let marks = vec!["?"; cols.len()].join(", ");
    let mut ins = conn.prepare(&format!("INSERT INTO {table} ({}) VALUES ({marks})", cols.join(", ")))?;
    for r in rows {
        ins.execute(params_from_iter(r.fields.iter()))?;
    }
    Ok(ImportSummary { kind, rows: rows.len(), replaced: groups.len() })
}

/// Writes the embedded default rate data into the (empty) tables.
///
/// # Errors
/// [`RateBookError`] on a database error (the embedded data itself is checked by
/// the tests).
pub fn seed_defaults(tx: &Transaction<'_>) -> Result<(), RateBookError> {
    // The embedded rows are parsed and checked once per process: every new database
    // (every test, every browser tab) then only pays for the inserts.
    static DEFAULT_ROWS: std::sync::OnceLock<Result<Vec<Vec<Row>>, String>> = std::sync::OnceLock::new();
    let parsed = DEFAULT_ROWS.get_or_init(|| {
        CsvKind::ALL
            .into_iter()
            .map(|kind| parse_rows(kind, kind.default_csv()).map_err(|rows| ImportError::Rows(rows).to_string()))
            .collect()
    });
    let parsed = parsed.as_ref().map_err(|e| RateBookError::Invalid(e.clone()))?;
    for (kind, rows) in CsvKind::ALL.into_iter().zip(parsed) {
        write_parsed(tx, kind, rows).map_err(|e| match e {
            ImportError::Sql(e) => RateBookError::Sql(e),
            other => RateBookError::Invalid(other.to_string()),
        })?;
    }
    Ok(())
}

/// Exports the table of `kind` in the import format.
///
/// # Errors
/// [`RateBookError::Sql`] on a database error.
pub fn export_csv(conn: &Connection, kind: CsvKind) -> Result<String, RateBookError> {
    let cols = kind.columns();
    let mut out = String::new();
    csv::write_record(&mut out, cols);
    let mut stmt = conn.prepare(&format!("SELECT {} FROM {} ORDER BY {}", cols.join(", "), kind.table(), kind.order_by()))?;
    let mut rows = stmt.query([])?;
    let mut fields: Vec<String> = Vec::with_capacity(cols.len());
    while let Some(row) = rows.next()? {
        fields.clear();
        for i in 0..cols.len() {
            fields.push(row.get(i)?);
        }
        csv::write_record(&mut out, &fields);
    }
    Ok(out)
}
