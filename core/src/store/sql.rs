//! The seam between the operations and the database: a read handle ([`Read`]), a write
//! transaction ([`Tx`]), statements, rows and the values bound to them.
//!
//! The operations speak SQL through these types only, never a driver's, so that the
//! driver and the database behind them can change in this module alone. A [`Tx`] is
//! what makes a function a write: only the facade's `Shipping::write` and the group
//! commit build one, each inside the transaction (or savepoint) it stands for. A
//! [`Read`] runs queries and nothing else; a [`Tx`] reads too.
//!
//! Statements are prepared once per connection and kept (a statement cache), so running
//! the same SQL text again costs a lookup.
//!
//! Two databases stand behind these types: SQLite (rusqlite), and PostgreSQL with the
//! `postgres` feature (`store::pg`). The SQL texts are the same for both, written in the
//! subset they share with SQLite's placeholders; what differs between them lives in the
//! store, per database.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{CachedStatement, Connection};

use crate::error::{Error, ErrorCategory, Result};

/// A value bound to a statement's parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value<'a> {
    /// SQL NULL.
    Null,
    /// An integer.
    Int(i64),
    /// Text.
    Text(&'a str),
    /// Bytes.
    Blob(&'a [u8]),
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(i),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// What may be bound to a parameter: `args![a, b]` (or `&[&a, &b]`) binds a list.
pub(crate) trait Arg {
    /// The value bound.
    fn value(&self) -> Value<'_>;
}

impl Arg for Value<'_> {
    fn value(&self) -> Value<'_> {
        *self
    }
}

impl Arg for str {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Arg for String {
    fn value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Arg for [u8] {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl Arg for Vec<u8> {
    fn value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl Arg for bool {
    fn value(&self) -> Value<'_> {
        Value::Int(i64::from(*self))
    }
}

macro_rules! int_args {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn value(&self) -> Value<'_> {
                Value::Int(i64::from(*self))
            }
        }
    )*};
}
int_args!(i64, i32, u32);

impl<T: Arg + ?Sized> Arg for &T {
    fn value(&self) -> Value<'_> {
        (**self).value()
    }
}

impl<T: Arg> Arg for Option<T> {
    fn value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, Arg::value)
    }
}

/// A list of values bound to a statement's parameters `?1`, `?2`, ... in order.
pub(crate) type Args<'a> = &'a [&'a dyn Arg];

/// `args![a, b, c]`: the values `a`, `b` and `c` for the parameters `?1`, `?2` and `?3`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$(&$value as &dyn $crate::store::sql::Arg),*] as $crate::store::sql::Args<'_>
    };
}
pub(crate) use args;

/// Binds `args` for rusqlite.
fn bound<'a>(args: Args<'a>) -> impl Iterator<Item = Value<'a>> + 'a {
    args.iter().map(|a| a.value())
}

/// The connection a [`Read`] or [`Tx`] speaks to.
#[derive(Clone, Copy)]
pub(crate) enum Conn<'c> {
    /// An SQLite connection.
    Lite(&'c Connection),
    /// A PostgreSQL connection.
    #[cfg(feature = "postgres")]
    Pg(&'c super::pg::Pooled),
}

/// A column read from a [`Row`].
pub(crate) trait Column: Sized {
    /// The value of column `i` of `row`.
    ///
    /// # Errors
    /// `INTERNAL` naming the column when it holds another type.
    fn column(row: &Row<'_>, i: usize) -> Result<Self>;
}

// Not inlined: a query's closure reads several columns, and the driver's typed read
// with its errors, inlined into each, took kilobytes of the WASM package.
macro_rules! driver_columns {
    ($($t:ty),*) => {$(
        impl Column for $t {
            #[inline(never)]
            fn column(row: &Row<'_>, i: usize) -> Result<Self> {
                match row.0 {
                    RowOf::Lite(r) => Ok(r.get(i)?),
                    #[cfg(feature = "postgres")]
                    RowOf::Pg(r) => pg_column(r, i),
                }
            }
        }
    )*};
}
driver_columns!(i64, i32, u32, bool, String, Vec<u8>);

/// Column `i` of a PostgreSQL row as a `T`, read as SQLite would give it: integers
/// from any integer type (and booleans, and whole NUMERICs), text, bytes.
#[cfg(feature = "postgres")]
#[inline(never)]
fn pg_column<T: FromCell>(row: &postgres::Row, i: usize) -> Result<T> {
    use super::pg::Cell;
    let cell = super::pg::cell(row, i)?;
    let found = match &cell {
        Cell::Null => "NULL",
        Cell::Int(_) => "an integer",
        Cell::Text(_) => "text",
        Cell::Blob(_) => "bytes",
    };
    T::from_cell(cell).ok_or_else(|| Error::internal(format!("column {i} holds {found}, not {}", std::any::type_name::<T>())))
}

/// What a PostgreSQL column's value converts to.
#[cfg(feature = "postgres")]
trait FromCell: Sized {
    fn from_cell(cell: super::pg::Cell<'_>) -> Option<Self>;
}

#[cfg(feature = "postgres")]
macro_rules! int_cells {
    ($($t:ty),*) => {$(
        impl FromCell for $t {
            fn from_cell(cell: super::pg::Cell<'_>) -> Option<Self> {
                match cell {
                    super::pg::Cell::Int(i) => <$t>::try_from(i).ok(),
                    _ => None,
                }
            }
        }
    )*};
}
#[cfg(feature = "postgres")]
int_cells!(i64, i32, u32);

#[cfg(feature = "postgres")]
impl FromCell for bool {
    fn from_cell(cell: super::pg::Cell<'_>) -> Option<Self> {
        match cell {
            super::pg::Cell::Int(i) => Some(i != 0),
            _ => None,
        }
    }
}

#[cfg(feature = "postgres")]
impl FromCell for String {
    fn from_cell(cell: super::pg::Cell<'_>) -> Option<Self> {
        match cell {
            super::pg::Cell::Text(t) => Some(t.to_string()),
            _ => None,
        }
    }
}

#[cfg(feature = "postgres")]
impl FromCell for Vec<u8> {
    fn from_cell(cell: super::pg::Cell<'_>) -> Option<Self> {
        match cell {
            super::pg::Cell::Blob(b) => Some(b.to_vec()),
            _ => None,
        }
    }
}

impl<T: Column> Column for Option<T> {
    fn column(row: &Row<'_>, i: usize) -> Result<Self> {
        let null = match row.0 {
            RowOf::Lite(r) => matches!(r.get_ref(i)?, ValueRef::Null),
            #[cfg(feature = "postgres")]
            RowOf::Pg(r) => matches!(super::pg::cell(r, i)?, super::pg::Cell::Null),
        };
        if null {
            return Ok(None);
        }
        T::column(row, i).map(Some)
    }
}

/// One row of a query's result.
pub(crate) struct Row<'r>(RowOf<'r>);

/// The driver's row.
#[derive(Clone, Copy)]
enum RowOf<'r> {
    Lite(&'r rusqlite::Row<'r>),
    #[cfg(feature = "postgres")]
    Pg(&'r postgres::Row),
}

impl Row<'_> {
    /// Column `i` (from 0) as a `T`.
    ///
    /// # Errors
    /// `INTERNAL` when the column does not hold a `T`.
    pub(crate) fn get<T: Column>(&self, i: usize) -> Result<T> {
        T::column(self, i)
    }

    /// Column `i`, a BLOB, without copying its bytes.
    ///
    /// # Errors
    /// `INTERNAL` when the column holds something else.
    pub(crate) fn blob(&self, i: usize) -> Result<&[u8]> {
        match self.0 {
            RowOf::Lite(r) => match r.get_ref(i)? {
                ValueRef::Blob(b) => Ok(b),
                other => Err(Error::internal(format!("column {i} holds {}, not a BLOB", other.data_type()))),
            },
            #[cfg(feature = "postgres")]
            RowOf::Pg(r) => match super::pg::cell(r, i)? {
                super::pg::Cell::Blob(b) => Ok(b),
                other => Err(Error::internal(format!("column {i} holds {other:?}, not bytes"))),
            },
        }
    }
}

/// A query prepared on a [`Read`] (kept by the connection's cache).
pub(crate) struct Query<'c>(Prepared<'c>);

/// The driver's prepared statement.
enum Prepared<'c> {
    Lite(CachedStatement<'c>),
    #[cfg(feature = "postgres")]
    Pg(&'c super::pg::Pooled, postgres::Statement),
}

impl Query<'_> {
    /// The first row of the query, through `f`, or `None` when it has none.
    ///
    /// # Errors
    /// What `f` or the database returns.
    pub(crate) fn row<T>(&mut self, args: Args<'_>, f: impl FnOnce(&Row<'_>) -> Result<T>) -> Result<Option<T>> {
        let (mut f, mut out) = (Some(f), None);
        step(&mut self.0, args, true, &mut |r| {
            if let Some(f) = f.take() {
                out = Some(f(r)?);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Every row of the query, each through `f`.
    ///
    /// # Errors
    /// What `f` or the database returns.
    pub(crate) fn rows<T>(&mut self, args: Args<'_>, mut f: impl FnMut(&Row<'_>) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        step(&mut self.0, args, false, &mut |r| {
            out.push(f(r)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Runs `f` on every row of the query in turn, without collecting them.
    ///
    /// # Errors
    /// What `f` or the database returns; the first error stops the query.
    pub(crate) fn each(&mut self, args: Args<'_>, mut f: impl FnMut(&Row<'_>) -> Result<()>) -> Result<()> {
        step(&mut self.0, args, false, &mut f)
    }
}

/// Runs `statement` with `args` and gives `f` each row it answers (only the first with
/// `first`). The one loop every query runs, not generic, so that a query adds no more
/// than its closure to the build (the WASM package has a size limit).
#[inline(never)]
fn step(statement: &mut Prepared<'_>, args: Args<'_>, first: bool, f: &mut dyn FnMut(&Row<'_>) -> Result<()>) -> Result<()> {
    match statement {
        Prepared::Lite(statement) => {
            let mut rows = statement.query(rusqlite::params_from_iter(bound(args)))?;
            while let Some(r) = rows.next()? {
                f(&Row(RowOf::Lite(r)))?;
                if first {
                    break;
                }
            }
        }
        #[cfg(feature = "postgres")]
        Prepared::Pg(session, statement) => {
            let values: Vec<Value<'_>> = bound(args).collect();
            for r in &session.query(statement, &values)? {
                f(&Row(RowOf::Pg(r)))?;
                if first {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// A statement prepared on a [`Tx`]: a query, or a change it executes.
pub(crate) struct Statement<'c>(Query<'c>);

impl<'c> std::ops::Deref for Statement<'c> {
    type Target = Query<'c>;
    fn deref(&self) -> &Query<'c> {
        &self.0
    }
}

impl<'c> std::ops::DerefMut for Statement<'c> {
    fn deref_mut(&mut self) -> &mut Query<'c> {
        &mut self.0
    }
}

impl Statement<'_> {
    /// Executes the statement with `args`; returns how many rows it changed.
    ///
    /// # Errors
    /// What the database returns (a constraint, a full disk, `BUSY`).
    pub(crate) fn execute(&mut self, args: Args<'_>) -> Result<usize> {
        match &mut self.0 .0 {
            Prepared::Lite(statement) => Ok(statement.execute(rusqlite::params_from_iter(bound(args)))?),
            #[cfg(feature = "postgres")]
            Prepared::Pg(session, statement) => session.execute(statement, &bound(args).collect::<Vec<_>>()),
        }
    }
}

/// A read handle: the connection inside one read transaction (or inside the write
/// transaction it is part of), for queries only.
pub(crate) struct Read<'c> {
    conn: Conn<'c>,
}

impl<'c> Read<'c> {
    /// The read handle of `conn`, which the caller has put inside a transaction.
    pub(super) fn new(conn: Conn<'c>) -> Read<'c> {
        Read { conn }
    }

    /// The read handle of `conn` in a test, which has put it inside a transaction.
    #[cfg(test)]
    pub(crate) fn of(conn: &'c Connection) -> Read<'c> {
        Read::new(Conn::Lite(conn))
    }

    /// Whether the connection is inside a transaction (for tests of the transactions).
    #[cfg(test)]
    pub(crate) fn in_transaction(&self) -> bool {
        match self.conn {
            Conn::Lite(conn) => !conn.is_autocommit(),
            #[cfg(feature = "postgres")]
            Conn::Pg(_) => true,
        }
    }

    /// The connection (for the store's functions that differ by database).
    pub(super) fn conn(&self) -> Conn<'c> {
        self.conn
    }

    /// `sql` prepared (or found in the connection's cache).
    ///
    /// # Errors
    /// `INTERNAL` when `sql` does not prepare.
    pub(crate) fn query(&self, sql: &str) -> Result<Query<'c>> {
        Ok(Query(match self.conn {
            Conn::Lite(conn) => Prepared::Lite(conn.prepare_cached(sql)?),
            #[cfg(feature = "postgres")]
            Conn::Pg(session) => Prepared::Pg(session, session.prepare(sql)?),
        }))
    }

    /// The first row of `sql` with `args`, through `f`, or `None` when it has none.
    ///
    /// # Errors
    /// What `f` or the database returns.
    pub(crate) fn row<T>(&self, sql: &str, args: Args<'_>, f: impl FnOnce(&Row<'_>) -> Result<T>) -> Result<Option<T>> {
        self.query(sql)?.row(args, f)
    }

    /// The one row `sql` must answer, through `f`.
    ///
    /// # Errors
    /// `INTERNAL` when there is none; what `f` or the database returns.
    pub(crate) fn one<T>(&self, sql: &str, args: Args<'_>, f: impl FnOnce(&Row<'_>) -> Result<T>) -> Result<T> {
        self.row(sql, args, f)?.ok_or_else(|| Error::internal(format!("no row where one was expected: {sql}")))
    }

    /// Every row of `sql` with `args`, each through `f`.
    ///
    /// # Errors
    /// What `f` or the database returns.
    pub(crate) fn rows<T>(&self, sql: &str, args: Args<'_>, f: impl FnMut(&Row<'_>) -> Result<T>) -> Result<Vec<T>> {
        self.query(sql)?.rows(args, f)
    }

    /// Every row of `sql` with `args`, each through `f`, as [`Read::rows`] gives them,
    /// with `sql` planned for these values each time it runs. For a query whose best
    /// plan depends on its values (a trigram search): PostgreSQL plans a prepared
    /// statement once for any value after a few runs.
    ///
    /// # Errors
    /// What `f` or the database returns.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "only the search on PostgreSQL plans each time"))]
    pub(crate) fn rows_planned_each_time<T>(&self, sql: &str, args: Args<'_>, f: impl FnMut(&Row<'_>) -> Result<T>) -> Result<Vec<T>> {
        match self.conn {
            Conn::Lite(_) => self.rows(sql, args, f),
            #[cfg(feature = "postgres")]
            Conn::Pg(session) => {
                let mut f = f;
                session.query_planned(sql, &bound(args).collect::<Vec<_>>())?.iter().map(|r| f(&Row(RowOf::Pg(r)))).collect()
            }
        }
    }
}

/// A write transaction: the connection inside the transaction (or, in a group of
/// operations committed together, the savepoint) of one operation. Only
/// `Shipping::write` and the group commit build one; every function that writes takes
/// one. It reads as a [`Read`] does, and sees its own writes.
pub(crate) struct Tx<'c> {
    read: Read<'c>,
}

impl<'c> std::ops::Deref for Tx<'c> {
    type Target = Read<'c>;
    fn deref(&self) -> &Read<'c> {
        &self.read
    }
}

impl<'c> Tx<'c> {
    /// The write transaction of `conn`, which the caller has begun.
    pub(super) fn new(conn: Conn<'c>) -> Tx<'c> {
        Tx { read: Read::new(conn) }
    }

    /// The write transaction of `conn` in a test, which has begun it.
    #[cfg(test)]
    pub(crate) fn of(conn: &'c Connection) -> Tx<'c> {
        Tx::new(Conn::Lite(conn))
    }

    /// `sql` prepared (or found in the connection's cache), to be executed or queried.
    ///
    /// # Errors
    /// `INTERNAL` when `sql` does not prepare.
    pub(crate) fn statement(&self, sql: &str) -> Result<Statement<'c>> {
        self.read.query(sql).map(Statement)
    }

    /// Executes `sql` with `args`; returns how many rows it changed.
    ///
    /// # Errors
    /// What the database returns (a constraint, a full disk, `BUSY`).
    pub(crate) fn execute(&self, sql: &str, args: Args<'_>) -> Result<usize> {
        self.statement(sql)?.execute(args)
    }

    /// Executes `sql`, a write whose outcome is known before it runs: an INSERT of rows
    /// whose keys no other row holds (numbers just taken, rows of what this operation
    /// creates), or an UPDATE of rows this transaction wrote. On PostgreSQL it is sent
    /// with the operation's next statement or its commit, in the same round trip, and
    /// should it fail (a bug, not an answer) the operation fails there.
    ///
    /// # Errors
    /// What the database returns (on SQLite; on PostgreSQL when `sql` does not prepare,
    /// or when the writes sent together because many waited fail).
    pub(crate) fn execute_later(&self, sql: &str, args: Args<'_>) -> Result<()> {
        match self.read.conn {
            Conn::Lite(_) => self.execute(sql, args).map(drop),
            #[cfg(feature = "postgres")]
            Conn::Pg(session) => session.execute_later(session.prepare(sql)?, &bound(args).collect::<Vec<_>>()),
        }
    }

    /// Runs `sql`, one or more statements without parameters (savepoints, pragmas).
    ///
    /// # Errors
    /// What the database returns.
    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        match self.read.conn {
            Conn::Lite(conn) => Ok(conn.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Conn::Pg(session) => session.batch(sql),
        }
    }

    /// Rolls back to the savepoint `name` and releases it: what was written since it
    /// was set is undone, and the writes held back since ([`Tx::execute_later`]) are
    /// dropped unsent.
    ///
    /// # Errors
    /// What the database returns.
    pub(crate) fn roll_back_to(&self, name: &str) -> Result<()> {
        match self.read.conn {
            Conn::Lite(conn) => Ok(conn.execute_batch(&format!("ROLLBACK TO {name}; RELEASE {name}"))?),
            #[cfg(feature = "postgres")]
            Conn::Pg(session) => session.roll_back_to(name),
        }
    }

    /// The rowid of the last row this connection inserted (SQLite only: 0 on PostgreSQL,
    /// whose tables have no rowid).
    pub(crate) fn last_rowid(&self) -> i64 {
        match self.read.conn {
            Conn::Lite(conn) => conn.last_insert_rowid(),
            #[cfg(feature = "postgres")]
            Conn::Pg(_) => 0,
        }
    }
}

/// A storage failure is `INTERNAL`, except a lock another connection held past the
/// busy timeout: that is `BUSY`, which clients retry.
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked) => {
                Error::new(ErrorCategory::Busy, "The database is locked by another connection; nothing was done. Retry the request.")
                    .with_source(e)
            }
            _ => Error::internal(format!("storage failed: {e}")).with_source(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_failure_keeps_the_sqlite_error_as_its_source() {
        let sqlite = rusqlite::Error::InvalidQuery;
        let text = sqlite.to_string();
        let e = Error::from(sqlite);
        assert_eq!(e.message(), format!("storage failed: {text}"));
        assert_eq!(std::error::Error::source(&e).map(ToString::to_string), Some(text));
        // the source is not part of the body nor of equality
        assert_eq!(e.to_json(), Error::internal(e.message()).to_json());
        assert_eq!(e, Error::internal(e.message()));
    }

    #[test]
    fn a_lock_held_past_the_timeout_is_busy() {
        for code in [rusqlite::ffi::SQLITE_BUSY, rusqlite::ffi::SQLITE_LOCKED] {
            let e = Error::from(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None));
            assert_eq!((e.category(), e.status(), e.category().code()), (ErrorCategory::Busy, 503, "BUSY"));
            assert!(std::error::Error::source(&e).is_some());
        }
    }
}
