//! Rate data in SQLite: schema, seeding, CSV import and export, and loading the
//! [`RateBook`] from the tables' rows.
//!
//! Every value is stored as the canonical text the CSV format uses, so that export
//! reproduces an imported file byte for byte. Rows are exported in a fixed order:
//! by their key columns, then in the order they were imported.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::OnceLock;

use super::book::{self, RateBookError};
use super::csv::{self, DialectError, Record};
use super::rows::{self, CalendarRow, CarrierRow, CsvKind, ExchangeRow, PriceRow, RateRow, RateRows, SurchargeRow, TransitRow, ZoneRow};
use super::RateBook;
use crate::catalog::Catalog;
use crate::error::{Error, ErrorCategory, FieldError};
use crate::store::sql::Arg;
use crate::store::{args, Read, Tx};

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
    Inconsistent(#[source] RateBookError),
    /// The CSV reader failed on the file (not a row that breaks a rule: those are
    /// [`ImportError::Rows`]).
    #[error("line {line}: unreadable CSV: {source}")]
    Unreadable {
        /// The line the reader stopped on.
        line: usize,
        /// The reader's error.
        #[source]
        source: ::csv::Error,
    },
    /// Database error, as the store reports it.
    #[error("database error: {0}")]
    Sql(#[from] crate::Error),
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

// ---------------------------------------------------------------- CSV to rows

/// Parses and checks a whole file of `T`'s kind; all row errors are collected.
fn parse_rows<T: RateRow>(text: &str) -> Result<Vec<T>, ImportError> {
    let records = match csv::parse(text) {
        Ok(records) => records,
        Err(DialectError::Unclosed { line }) => {
            return Err(ImportError::Rows(vec![RowError { line, message: "a quoted field is not closed".into() }]))
        }
        Err(DialectError::Csv(source, line)) => return Err(ImportError::Unreadable { line, source }),
    };
    let mut rows = Vec::new();
    check_records(T::KIND, records, &mut |fields, msgs| {
        let row = rows::check::<T>(fields, msgs)?;
        let group = row.one_per_group().map(|(g, v)| (g.into_iter().map(str::to_owned).collect(), v.to_owned()));
        let checked = Checked { key: row.key(), group };
        rows.push(row);
        Some(checked)
    })
    .map_err(ImportError::Rows)?;
    Ok(rows)
}

/// What the check of a whole file needs of a row that passed its own checks.
struct Checked {
    /// The columns that must be unique within the file.
    key: Vec<String>,
    /// For a whole-group rule: the group and the value the same across it.
    group: Option<(Vec<String>, String)>,
}

/// The check of one record's fields: its row's messages pushed, and what the file's
/// rules need of a good row.
type CheckRow<'c> = dyn FnMut(&[String], &mut Vec<String>) -> Option<Checked> + 'c;

/// Checks the header and every record of a file of `kind`, each record's row by `check`
/// (which records its messages, and gives what the file's rules need of a good row):
/// all errors, in file order, or none. One body for every kind of row.
fn check_records(kind: CsvKind, records: Vec<Record>, check: &mut CheckRow<'_>) -> Result<(), Vec<RowError>> {
    let mut iter = records.into_iter();
    let cols = kind.columns();
    match iter.next() {
        Some(Record { line, fields }) if fields != cols => {
            return Err(vec![RowError {
                line,
                message: format!(
                    "header: expected {:?} for {}, found {:?}",
                    cols.join(","),
                    kind.as_str(),
                    fields.join(",").chars().take(120).collect::<String>()
                ),
            }]);
        }
        None => return Err(vec![RowError { line: 1, message: format!("header: expected {:?}, found an empty file", cols.join(",")) }]),
        _ => {}
    }
    let mut errors = Vec::new();
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut groups: Vec<(usize, (Vec<String>, String))> = Vec::new();
    for Record { line, fields } in iter {
        if fields.len() != cols.len() {
            errors.push(RowError { line, message: format!("expected {} fields, found {}", cols.len(), fields.len()) });
            continue;
        }
        let mut msgs = Vec::new();
        if let Some(row) = check(&fields, &mut msgs) {
            if seen.insert(row.key) {
                groups.extend(row.group.map(|g| (line, g)));
            } else {
                msgs.push("duplicate row: the same key appears on an earlier line".into());
            }
        }
        errors.extend(msgs.into_iter().map(|message| RowError { line, message }));
    }
    if errors.is_empty() {
        // whole-group rules: one basis per chart, one chart per card
        let (what, per) = if kind == CsvKind::Zones { ("basis", "chart") } else { ("chart", "rate card") };
        let mut first: BTreeMap<&[String], (&str, usize)> = BTreeMap::new();
        for (line, (g, v)) in &groups {
            match first.get(g.as_slice()) {
                Some((value, first_line)) if *value != v.as_str() => errors.push(RowError {
                    line: *line,
                    message: format!("{what}: {v:?} differs from {value:?} on line {first_line}; one {what} per {per}"),
                }),
                Some(_) => {}
                None => {
                    first.insert(g, (v, *line));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

// ---------------------------------------------------------------- rows to SQL

/// Replaces the groups the rows name (see [`CsvKind::group_len`]) with the rows.
fn write_rows<T: RateRow>(tx: &Tx<'_>, rows: &[T]) -> crate::Result<ImportSummary> {
    write_values(tx, T::KIND, &rows.iter().map(RateRow::values).collect::<Vec<_>>())
}

/// [`write_rows`] of rows of `kind` as the text of their columns (one body for every
/// kind, not one per row type).
fn write_values(tx: &Tx<'_>, kind: CsvKind, values: &[Vec<String>]) -> crate::Result<ImportSummary> {
    let (table, cols, group_len) = (kind.table(), kind.columns(), kind.group_len());
    let groups: BTreeSet<&[String]> = values.iter().map(|v| &v[..group_len]).collect();
    let where_: Vec<String> = cols[..group_len].iter().zip(1..).map(|(c, i)| format!("{c} = ?{i}")).collect();
    let mut del = tx.statement(&format!("DELETE FROM {table} WHERE {}", where_.join(" AND ")))?;
    for g in &groups {
        del.execute(&texts(g))?;
    }
    let marks = (1..=cols.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
    let mut ins = tx.statement(&format!("INSERT INTO {table} ({}) VALUES ({marks})", cols.join(", ")))?;
    for v in values {
        ins.execute(&texts(v))?;
    }
    Ok(ImportSummary { kind, rows: values.len(), replaced: groups.len() })
}

/// The texts of a row's columns as the values bound to `?1`, `?2`, ...
fn texts(values: &[String]) -> Vec<&dyn Arg> {
    values.iter().map(|v| v as &dyn Arg).collect()
}

/// Checks a file of `T`'s kind and writes it.
fn import_rows<T: RateRow>(tx: &Tx<'_>, csv: &str) -> Result<ImportSummary, ImportError> {
    let rows = parse_rows::<T>(csv)?;
    Ok(write_rows(tx, &rows)?)
}

/// Writes the file, then loads the book from the tables to check the whole data.
fn import_and_load(tx: &Tx<'_>, kind: CsvKind, csv: &str) -> Result<(ImportSummary, RateBook), ImportError> {
    let summary = match kind {
        CsvKind::Carriers => import_rows::<CarrierRow>(tx, csv),
        CsvKind::ExchangeRates => import_rows::<ExchangeRow>(tx, csv),
        CsvKind::Zones => import_rows::<ZoneRow>(tx, csv),
        CsvKind::Rates => import_rows::<PriceRow>(tx, csv),
        CsvKind::Surcharges => import_rows::<SurchargeRow>(tx, csv),
        CsvKind::Transit => import_rows::<TransitRow>(tx, csv),
        CsvKind::Calendars => import_rows::<CalendarRow>(tx, csv),
    }?;
    let book = RateBook::load(tx).map_err(|e| match e {
        RateBookError::Sql(e) => ImportError::Sql(e),
        other => ImportError::Inconsistent(other),
    })?;
    Ok((summary, book))
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
#[cfg(test)]
pub(crate) fn import_csv(tx: &Tx<'_>, kind: CsvKind, csv: &str) -> Result<ImportSummary, ImportError> {
    import_and_load(tx, kind, csv).map(|(summary, _)| summary)
}

/// The import of rate data through the facade: checked and written as `import_csv`
/// describes, and then every card
/// must name a service and package type of `catalog` (a card the catalog lacks would
/// price nothing). Returns the new book, for the caller to swap in once `tx` commits.
///
/// # Errors
/// `INVALID_REQUEST` with a detail per invalid line (`line 12`), naming what would be
/// inconsistent, or a detail per card the catalog lacks; `INTERNAL` on a storage
/// failure. The caller must roll `tx` back.
pub(crate) fn import(tx: &Tx<'_>, catalog: &Catalog, kind: CsvKind, csv: &str) -> crate::Result<(ImportSummary, RateBook)> {
    let (summary, book) = import_and_load(tx, kind, csv).map_err(|e| match e {
        ImportError::Rows(rows) => Error::fields(
            ErrorCategory::InvalidRequest,
            rows.into_iter().map(|r| FieldError { field: format!("line {}", r.line), message: r.message }).collect(),
        ),
        ImportError::Sql(e) => e,
        other => Error::new(ErrorCategory::InvalidRequest, other.to_string()).with_source(other),
    })?;
    let not_offered = |carrier: &str, service: &str| catalog.service(service).is_none_or(|s| s.carrier != carrier);
    let mut strays: Vec<FieldError> = book
        .cards()
        .filter(|(carrier, service, package, _)| {
            not_offered(carrier, service)
                || catalog.service(service).is_some_and(|s| !s.package_types.iter().any(|p| p.package_type == *package))
        })
        .map(|(carrier, service, package, _)| FieldError {
            field: "rates".into(),
            message: format!("card {carrier}/{service}/{package} names no service and package type of the catalog"),
        })
        .collect();
    strays.extend(book.transit_services().filter(|(carrier, service)| not_offered(carrier, service)).map(|(carrier, service)| {
        FieldError { field: kind.as_str().into(), message: format!("{carrier}/{service} names no service of the catalog") }
    }));
    if !strays.is_empty() {
        return Err(Error::fields(ErrorCategory::InvalidRequest, strays));
    }
    Ok((summary, book))
}

/// The embedded default rate data (core/data/rates), checked. Parsed and checked once
/// per process: every new database (every test, every browser tab) then only pays for
/// the inserts, and the default book for its build.
fn defaults() -> Result<&'static RateRows, RateBookError> {
    static DEFAULTS: OnceLock<Result<RateRows, String>> = OnceLock::new();
    let parse = || -> Result<RateRows, ImportError> {
        Ok(RateRows {
            carriers: parse_rows(CsvKind::Carriers.default_csv())?,
            exchange: parse_rows(CsvKind::ExchangeRates.default_csv())?,
            zones: parse_rows(CsvKind::Zones.default_csv())?,
            prices: parse_rows(CsvKind::Rates.default_csv())?,
            surcharges: parse_rows(CsvKind::Surcharges.default_csv())?,
            transit: parse_rows(CsvKind::Transit.default_csv())?,
            calendars: parse_rows(CsvKind::Calendars.default_csv())?,
        })
    };
    DEFAULTS
        .get_or_init(|| parse().map_err(|e| format!("the embedded rate data is invalid: {e}")))
        .as_ref()
        .map_err(|e| RateBookError::Invalid(e.clone()))
}

/// Writes the embedded default rate data into the (empty) tables.
///
/// # Errors
/// [`RateBookError`] on a database error (the embedded data itself is checked by
/// the tests).
pub fn seed_defaults(tx: &Tx<'_>) -> Result<(), RateBookError> {
    let d = defaults()?;
    write_rows(tx, &d.carriers)?;
    write_rows(tx, &d.exchange)?;
    write_rows(tx, &d.zones)?;
    write_rows(tx, &d.prices)?;
    write_rows(tx, &d.surcharges)?;
    write_rows(tx, &d.transit)?;
    write_rows(tx, &d.calendars)?;
    Ok(())
}

/// Writes the default transit tables and calendars of the carriers whose rate data the
/// tables hold, when neither kind has a row: a database whose rate data was written
/// before they existed gets them on its first open by a build that has them.
///
/// # Errors
/// [`RateBookError`] on a database error.
pub(crate) fn seed_arrivals_if_missing(tx: &Tx<'_>) -> Result<(), RateBookError> {
    let count = |table: &str| tx.one(&format!("SELECT count(*) FROM {table}"), args![], |r| r.get::<i64>(0));
    if count("rate_transit")? > 0 || count("rate_calendar")? > 0 {
        return Ok(());
    }
    let d = defaults()?;
    let carriers: Vec<String> = load_rows::<CarrierRow>(tx)?.into_iter().map(|c| c.carrier).collect();
    let transit: Vec<TransitRow> = d.transit.iter().filter(|r| carriers.contains(&r.carrier)).cloned().collect();
    let calendars: Vec<CalendarRow> = d.calendars.iter().filter(|r| carriers.contains(&r.carrier)).cloned().collect();
    write_rows(tx, &transit)?;
    write_rows(tx, &calendars)?;
    Ok(())
}

/// Exports the table of `kind` in the import format.
///
/// # Errors
/// [`RateBookError::Sql`] on a database error.
pub fn export_csv(conn: &Read<'_>, kind: CsvKind) -> Result<String, RateBookError> {
    let cols = kind.columns();
    let records = conn.rows(&format!("SELECT {} FROM {} ORDER BY {}", cols.join(", "), kind.table(), kind.order_by()), args![], |row| {
        (0..cols.len()).map(|i| row.get::<String>(i)).collect::<crate::Result<Vec<String>>>()
    })?;
    Ok(csv::write(cols, records)?)
}

/// Every row of `T`'s table, in export order.
fn load_rows<T: RateRow>(conn: &Read<'_>) -> crate::Result<Vec<T>> {
    let kind = T::KIND;
    conn.rows(&format!("SELECT {} FROM {} ORDER BY {}", kind.columns().join(", "), kind.table(), kind.order_by()), args![], |row| {
        T::from_row(row)
    })
}

impl RateBook {
    /// The book of the embedded default rate data (core/data/rates), without SQL.
    ///
    /// # Errors
    /// [`RateBookError::Invalid`] if the embedded data is inconsistent (the tests
    /// prove it is not).
    pub fn default_book() -> Result<RateBook, RateBookError> {
        book::build(defaults()?)
    }

    /// Loads the book from the `rate_*` tables.
    ///
    /// # Errors
    /// [`RateBookError`] on a database error or inconsistent data (e.g. a card that
    /// names an unknown chart or carrier).
    pub(crate) fn load(conn: &Read<'_>) -> Result<RateBook, RateBookError> {
        book::build(&RateRows {
            carriers: load_rows(conn)?,
            exchange: load_rows(conn)?,
            zones: load_rows(conn)?,
            prices: load_rows(conn)?,
            surcharges: load_rows(conn)?,
            transit: load_rows(conn)?,
            calendars: load_rows(conn)?,
        })
    }
}
