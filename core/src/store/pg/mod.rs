//! The PostgreSQL backend: a pool of connections ([`Pool`]), each a [`Session`] with its
//! own cache of prepared statements, and the translation between the seam's values and
//! PostgreSQL's typed ones.
//!
//! The operations' SQL is written once, in the subset SQLite and PostgreSQL share, with
//! SQLite's numbered placeholders (`?1`); a session rewrites them to PostgreSQL's (`$1`)
//! when it first prepares a text. Values bind loosely, as SQLite takes them: an integer
//! bound where PostgreSQL expects text is sent as its digits, and so on; columns read
//! loosely too (`sum()` of a BIGINT is a NUMERIC, read as an integer).
//!
//! Every connection runs with `plan_cache_mode = force_custom_plan`: a prepared statement
//! is planned for the values it runs with. A trigram search planned once for any keyword
//! (a generic plan) was measured at 515 ms where its own plan took 0.09 ms.

use std::cell::{Cell as Flag, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use postgres::types::{FromSql, IsNull, ToSql, Type};
use postgres::{Client, Config};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::sql::Value;
use crate::error::{Error, ErrorCategory, Result};

pub(crate) mod schema;
pub(crate) mod search;

/// Connections a service keeps to the database unless told otherwise.
pub(crate) const DEFAULT_POOL_SIZE: usize = 16;

/// How long an operation waits for a free connection of the pool before `BUSY`.
const POOL_WAIT: Duration = Duration::from_secs(5);

/// The most a statement may run before the server cancels it (then `INTERNAL`): no
/// request holds a connection and its locks longer.
const STATEMENT_TIMEOUT: &str = "30s";

/// One connection and the statements prepared on it, by their SQLite text.
pub(crate) struct Session {
    client: RefCell<Client>,
    statements: RefCell<HashMap<Box<str>, postgres::Statement>>,
}

impl Session {
    /// The statement of `sql`, prepared on this connection the first time.
    pub(crate) fn prepare(&self, sql: &str) -> Result<postgres::Statement> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.borrow_mut().prepare(&numbered(sql))?;
        self.statements.borrow_mut().insert(sql.into(), statement.clone());
        Ok(statement)
    }

    /// The rows `statement` answers with `args`.
    pub(crate) fn query(&self, statement: &postgres::Statement, args: &[Value<'_>]) -> Result<Vec<postgres::Row>> {
        Ok(self.client.borrow_mut().query(statement, &params(args))?)
    }

    /// Executes `statement` with `args`; how many rows it changed.
    pub(crate) fn execute(&self, statement: &postgres::Statement, args: &[Value<'_>]) -> Result<usize> {
        let changed = self.client.borrow_mut().execute(statement, &params(args))?;
        usize::try_from(changed).map_err(|_| Error::internal("a statement changed more rows than this machine counts"))
    }

    /// Runs `sql`, statements without parameters (transaction control, savepoints).
    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        Ok(self.client.borrow_mut().batch_execute(sql)?)
    }

    /// Commits the transaction open on this connection.
    ///
    /// # Errors
    /// A `BUSY` of its own when the connection broke during the commit (the outcome is
    /// unknown: see [`in_doubt`]); what the database answers otherwise.
    pub(crate) fn commit(&self) -> Result<()> {
        self.client.borrow_mut().batch_execute("COMMIT").map_err(|e| in_doubt(&e).unwrap_or_else(|| e.into()))
    }

    /// The connection itself, for what the seam does not cover (migrations).
    pub(crate) fn client(&self) -> std::cell::RefMut<'_, Client> {
        self.client.borrow_mut()
    }

    fn is_closed(&self) -> bool {
        self.client.borrow().is_closed()
    }
}

/// `args` as the driver takes parameters.
fn params<'a>(args: &'a [Value<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// `sql` with SQLite's placeholders `?N` (and bare `?`) rewritten as PostgreSQL's `$N`,
/// outside string literals and quoted names.
pub(crate) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quote: Option<char> = None;
    let mut next = 0u32;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '?') => {
                out.push('$');
                if chars.peek().is_some_and(char::is_ascii_digit) {
                    while let Some(d) = chars.next_if(char::is_ascii_digit) {
                        out.push(d);
                    }
                } else {
                    next += 1;
                    out.push_str(&next.to_string());
                }
            }
            (None, c) => out.push(c),
        }
    }
    out
}

/// Values bind as SQLite takes them: PostgreSQL infers each parameter's type from the
/// statement, and the value is sent in that type when it can be.
impl ToSql for Value<'_> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(i)?.to_sql(ty, out),
                Type::BOOL => (i != 0).to_sql(ty, out),
                Type::NUMERIC => Decimal::from(i).to_sql(ty, out),
                _ => i.to_string().as_str().to_sql(&Type::TEXT, out),
            },
            Value::Text(t) if t.contains('\0') => Err(Box::new(NulInText)),
            Value::Text(t) => match *ty {
                Type::INT8 => t.parse::<i64>()?.to_sql(ty, out),
                Type::INT4 => t.parse::<i32>()?.to_sql(ty, out),
                Type::NUMERIC => t.parse::<Decimal>()?.to_sql(ty, out),
                Type::BYTEA => t.as_bytes().to_sql(ty, out),
                _ => t.to_sql(&Type::TEXT, out),
            },
            Value::Blob(b) => match *ty {
                Type::BYTEA => b.to_sql(ty, out),
                _ => std::str::from_utf8(b)?.to_sql(&Type::TEXT, out),
            },
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// Text holding U+0000, which PostgreSQL's text cannot hold (SQLite's can).
#[derive(Debug)]
struct NulInText;

impl std::fmt::Display for NulInText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("text holds the NUL character (U+0000)")
    }
}

impl std::error::Error for NulInText {}

/// A column's value, whatever its PostgreSQL type, as one of SQLite's storage classes.
#[derive(Debug)]
pub(crate) enum Cell<'r> {
    /// SQL NULL.
    Null,
    /// An integer (BIGINT, INTEGER, SMALLINT, BOOLEAN, a whole NUMERIC).
    Int(i64),
    /// Text.
    Text(&'r str),
    /// Bytes (BYTEA).
    Blob(&'r [u8]),
}

impl<'r> FromSql<'r> for Cell<'r> {
    fn from_sql(ty: &Type, raw: &'r [u8]) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(match *ty {
            Type::INT8 => Cell::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Cell::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Cell::Int(i16::from_sql(ty, raw)?.into()),
            Type::BOOL => Cell::Int(bool::from_sql(ty, raw)?.into()),
            Type::NUMERIC => {
                let d = Decimal::from_sql(ty, raw)?;
                Cell::Int(d.to_i64().filter(|_| d.fract().is_zero()).ok_or_else(|| format!("the NUMERIC {d} is not a 64-bit integer"))?)
            }
            Type::BYTEA => Cell::Blob(<&[u8]>::from_sql(ty, raw)?),
            _ => Cell::Text(<&str>::from_sql(ty, raw)?),
        })
    }

    fn from_sql_null(_: &Type) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Cell::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Column `i` of `row`.
pub(crate) fn cell(row: &postgres::Row, i: usize) -> Result<Cell<'_>> {
    Ok(row.try_get(i)?)
}

/// A storage failure is `INTERNAL`, except what a retry resolves: a lock or a
/// serialisation conflict with another transaction (`BUSY`), and a lost connection
/// (`BUSY`: the pool connects again, to the new primary after a failover).
impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        use postgres::error::SqlState;
        let retry = match e.code() {
            Some(c) if [SqlState::T_R_SERIALIZATION_FAILURE, SqlState::T_R_DEADLOCK_DETECTED, SqlState::LOCK_NOT_AVAILABLE].contains(c) => {
                true
            }
            Some(c) => c.code().starts_with("08") || c.code().starts_with("57P") || *c == SqlState::READ_ONLY_SQL_TRANSACTION,
            None => e.is_closed() || std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>()),
        };
        if std::error::Error::source(&e).is_some_and(|s| s.is::<NulInText>()) {
            return Error::new(
                ErrorCategory::InvalidRequest,
                "A text field holds the NUL character (U+0000), which this database cannot store; nothing was done. Remove it and retry.",
            )
            .with_source(e);
        }
        if retry {
            return Error::new(ErrorCategory::Busy, "The database could not do this now (a conflict with another request, or a lost connection); nothing was done. Retry the request.")
                .with_source(e);
        }
        Error::internal(format!("storage failed: {}", described(&e))).with_source(e)
    }
}

/// What failed, as PostgreSQL says it: the message and its SQLSTATE, without the detail
/// (which may quote the values of a row).
fn described(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

/// How to reach the database and how many connections to keep.
struct Target {
    config: Config,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
}

impl Target {
    fn connect(&self) -> Result<Session> {
        let mut client = self.config.connect(self.tls.clone()).map_err(|e| {
            Error::new(ErrorCategory::Busy, format!("could not connect to the database: {e}. Retry the request.")).with_source(e)
        })?;
        client.batch_execute(&format!(
            "SET plan_cache_mode = force_custom_plan; SET statement_timeout = '{STATEMENT_TIMEOUT}'; \
             SET idle_in_transaction_session_timeout = '{STATEMENT_TIMEOUT}'"
        ))?;
        Ok(Session { client: RefCell::new(client), statements: RefCell::new(HashMap::new()) })
    }
}

/// Connections to one PostgreSQL database: idle ones kept, more opened up to `size`,
/// broken ones dropped. A failover shows as broken connections; the next ones reach
/// the new primary (a URL naming every host, `target_session_attrs=read-write`).
pub(crate) struct Pool {
    target: Target,
    size: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
    /// The connection that allocates ids (`next_ids`), each in a transaction of its own.
    ids: Mutex<Option<Session>>,
}

struct PoolState {
    idle: Vec<Session>,
    open: usize,
}

/// A connection taken from the pool, given back on drop (dropped instead when it broke
/// or was left inside a transaction).
pub(crate) struct Pooled {
    pool: Arc<Pool>,
    session: Option<Session>,
    /// Set while a transaction is open on it: a connection dropped then is closed.
    pub(crate) in_transaction: Flag<bool>,
}

impl Pooled {
    /// The pool the connection came from.
    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }
}

impl std::ops::Deref for Pooled {
    type Target = Session;
    fn deref(&self) -> &Session {
        self.session.as_ref().unwrap_or_else(|| unreachable!("a pooled connection is only taken on drop"))
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let session = self.session.take();
        let mut state = self.pool.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match session {
            Some(s) if !self.in_transaction.get() && !s.is_closed() => state.idle.push(s),
            _ => state.open -= 1,
        }
        drop(state);
        self.pool.freed.notify_one();
    }
}

thread_local! {
    /// The transactions open on this thread, a connection of a pool each: what runs on
    /// this thread meanwhile on the same pool runs inside it (see [`Open`]).
    static OPEN: RefCell<Vec<Rc<Pooled>>> = const { RefCell::new(Vec::new()) };
}

/// A transaction open on this thread, on its pool's connection, for as long as this
/// lives: reads and writes that this thread starts meanwhile on the same pool run in it
/// (writes in savepoints), as they would in SQLite's one connection, instead of taking
/// a second connection that would not see what this one wrote.
pub(crate) struct Open(Rc<Pooled>);

impl Open {
    /// Marks `conn`'s transaction as this thread's on its pool until the `Open` drops.
    pub(crate) fn mark(conn: &Rc<Pooled>) -> Open {
        OPEN.with_borrow_mut(|open| open.push(Rc::clone(conn)));
        Open(Rc::clone(conn))
    }

    /// The connection of the transaction this thread has open on `pool`, if any.
    pub(crate) fn on(pool: &Arc<Pool>) -> Option<Rc<Pooled>> {
        OPEN.with_borrow(|open| open.iter().rev().find(|c| Arc::ptr_eq(&c.pool, pool)).cloned())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        OPEN.with_borrow_mut(|open| open.retain(|c| !Rc::ptr_eq(c, &self.0)));
    }
}

impl Pool {
    /// A pool for the database at `url` (a libpq connection string or URL; several hosts
    /// and `target_session_attrs` as libpq reads them; `sslmode=require` for TLS, with
    /// the machine's trusted certificates, or those of `SSL_CERT_FILE`; plain without it,
    /// `prefer` included).
    ///
    /// # Errors
    /// `INVALID_REQUEST` when `url` does not parse (the message does not repeat it: it
    /// may hold a password).
    pub(crate) fn new(url: &str, size: usize) -> Result<Pool> {
        let mut config: Config = url.parse().map_err(|e: postgres::Error| {
            Error::invalid("database", format!("not a PostgreSQL connection string or URL: {}", redacted(&e.to_string(), url)))
        })?;
        // libpq's default, `prefer`, encrypts without checking the certificate; TLS here
        // always checks it, so a server with a self-signed certificate (Debian's default)
        // would refuse every connection. Without `sslmode=require` connections are plain.
        if config.get_ssl_mode() == postgres::config::SslMode::Prefer {
            config.ssl_mode(postgres::config::SslMode::Disable);
        }
        Ok(Pool {
            target: Target { config, tls: tls() },
            size: size.max(1),
            state: Mutex::new(PoolState { idle: Vec::new(), open: 0 }),
            freed: Condvar::new(),
            ids: Mutex::new(None),
        })
    }

    /// A connection: an idle one, a new one, or the next one given back.
    ///
    /// # Errors
    /// `BUSY` when none is free within the wait, or the database cannot be reached.
    pub(crate) fn get(self: &Arc<Self>) -> Result<Pooled> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if let Some(session) = state.idle.pop() {
                return Ok(Pooled { pool: Arc::clone(self), session: Some(session), in_transaction: Flag::new(false) });
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match self.target.connect() {
                    Ok(session) => Ok(Pooled { pool: Arc::clone(self), session: Some(session), in_transaction: Flag::new(false) }),
                    Err(e) => {
                        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).open -= 1;
                        Err(e)
                    }
                };
            }
            let (next, waited) = self.freed.wait_timeout(state, POOL_WAIT).unwrap_or_else(std::sync::PoisonError::into_inner);
            state = next;
            if waited.timed_out() && state.idle.is_empty() && state.open >= self.size {
                return Err(Error::new(
                    ErrorCategory::Busy,
                    "every connection to the database is busy; nothing was done. Retry the request.",
                ));
            }
        }
    }

    /// Takes `count` (at least 1) numbers of the sequence `name` at once, in a
    /// transaction of their own, and returns the first. Numbers taken by an operation
    /// that then fails are not given again (gaps), so that concurrent operations never
    /// wait for each other's commit to number what they write.
    pub(crate) fn next_ids(&self, name: &str, count: i64) -> Result<i64> {
        let mut ids = self.ids.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if ids.as_ref().is_none_or(Session::is_closed) {
            let session = self.target.connect()?;
            // The numbers' commits do not wait for the disk (or a standby): each operation
            // that uses them commits after, and its commit's flush covers theirs, as WAL is
            // written in order. A number whose commit is lost with the machine was used by
            // no committed row. Waiting here serialised every write of the server behind
            // one flush per number.
            session.batch("SET synchronous_commit = off")?;
            *ids = Some(session);
        }
        let session = ids.as_ref().unwrap_or_else(|| unreachable!("connected above"));
        let statement = session.prepare(
            "INSERT INTO id_sequences (name, last) VALUES (?1, ?2)
             ON CONFLICT (name) DO UPDATE SET last = id_sequences.last + excluded.last RETURNING last",
        )?;
        let rows = session.query(&statement, &[Value::Text(name), Value::Int(count)])?;
        let last = match rows.first().map(|r| cell(r, 0)).transpose()? {
            Some(Cell::Int(last)) => last,
            _ => return Err(Error::internal(format!("the sequence {name} answered no number"))),
        };
        Ok(last - count + 1)
    }
}

/// TLS for connections that ask for it: the machine's trusted roots (or
/// `SSL_CERT_FILE`/`SSL_CERT_DIR`), with rustls on ring.
fn tls() -> tokio_postgres_rustls::MakeRustlsConnect {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
        .unwrap_or_else(|_| unreachable!("ring supports the default protocol versions"));
    tokio_postgres_rustls::MakeRustlsConnect::new(config)
}

/// The error of a COMMIT that may or may not have happened: the connection broke while
/// the server was committing, so only the database knows. A `BUSY` of its own, naming
/// the retry with the same `Idempotency-Key` that makes the retry safe.
fn in_doubt(e: &postgres::Error) -> Option<Error> {
    let lost = e.is_closed() || e.code().is_some_and(|c| c.code().starts_with("08") || c.code().starts_with("57P"));
    lost.then(|| {
        Error::new(
            ErrorCategory::Busy,
            "The connection to the database was lost while the operation committed: it may or may not have been done. \
             Retry it with the same Idempotency-Key header; a booking retried with its idempotencyKey is done once.",
        )
    })
}

/// `message` without the password of `url`, should it quote it.
fn redacted(message: &str, url: &str) -> String {
    let password = url.parse::<Config>().ok().and_then(|c| c.get_password().map(|p| String::from_utf8_lossy(p).into_owned()));
    match password {
        Some(p) if !p.is_empty() => message.replace(&p, "***"),
        _ => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_literals() {
        assert_eq!(numbered("SELECT a FROM t WHERE b = ?1 AND c = ?12"), "SELECT a FROM t WHERE b = $1 AND c = $12");
        assert_eq!(numbered("VALUES (?, ?)"), "VALUES ($1, $2)");
        assert_eq!(numbered("SELECT '?1', \"a?\" WHERE x = ?2"), "SELECT '?1', \"a?\" WHERE x = $2");
        assert_eq!(numbered("SELECT 'it''s ?' || ?1"), "SELECT 'it''s ?' || $1");
    }
}
