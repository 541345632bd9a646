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
//! Prepared statements keep PostgreSQL's plan cache: after a few runs, one generic plan
//! serves every value, and a run is not planned again. The search is the exception
//! ([`Session::query_planned`]): a trigram search planned once for any keyword (a generic
//! plan) was measured at 515 ms where its own plan took 0.09 ms.

use std::cell::{Cell as Flag, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use postgres::types::{FromSql, IsNull, ToSql, Type};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tokio_postgres::Config;

use super::sql::Value;
use crate::error::{Error, ErrorCategory, Result};

pub(crate) mod schema;
pub(crate) mod search;

/// Connections a service keeps to the database unless told otherwise.
pub(crate) const DEFAULT_POOL_SIZE: usize = 16;

/// Most writes a session holds back ([`Session::execute_later`]) before it sends them.
const MOST_UNSENT: usize = 64;

/// How long an operation waits for a free connection of the pool before `BUSY`.
const POOL_WAIT: Duration = Duration::from_secs(5);

/// The most a statement may run before the server cancels it (then `INTERNAL`): no
/// request holds a connection and its locks longer.
const STATEMENT_TIMEOUT: &str = "30s";

/// One connection, on a runtime of its own that runs only while the connection is
/// waited for (as the `postgres` crate does), and the statements prepared on it, by their
/// SQLite text.
///
/// What a transaction can send without waiting is sent with what comes next, in one
/// round trip: its BEGIN goes with its first statement, and the writes whose outcome is
/// known before they run ([`Session::execute_later`]) with its next statement or its
/// COMMIT.
pub(crate) struct Session {
    runtime: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
    statements: RefCell<HashMap<Box<str>, postgres::Statement>>,
    /// The BEGIN of a transaction begun but not sent yet.
    unsent_begin: Flag<Option<&'static str>>,
    /// Writes not sent yet ([`Session::execute_later`]), with their values.
    unsent_writes: RefCell<Vec<(postgres::Statement, Vec<Owned>)>>,
    /// Numbers of sequences taken ahead for the transaction ([`Session::reserve`]): the
    /// sequence, the next number and the number past the last.
    reserved: RefCell<Vec<(Box<str>, i64, i64)>>,
}

impl Session {
    /// Begins a transaction with `begin` (a BEGIN statement), sent with the first
    /// statement run in it.
    pub(crate) fn begin(&self, begin: &'static str) {
        self.unsent_begin.set(Some(begin));
        self.reserved.borrow_mut().clear();
    }

    /// Keeps the `count` numbers of the sequence `name` from `first` on for the
    /// transaction ([`Session::reserved`]), until it ends.
    pub(crate) fn reserve(&self, name: &str, first: i64, count: i64) {
        self.reserved.borrow_mut().push((name.into(), first, first + count));
    }

    /// The first of `count` numbers of the sequence `name` taken from those reserved for
    /// the transaction, if enough are left.
    pub(crate) fn reserved(&self, name: &str, count: i64) -> Option<i64> {
        let mut reserved = self.reserved.borrow_mut();
        let (_, next, _) = reserved.iter_mut().find(|(n, next, end)| &**n == name && *end - *next >= count)?;
        let first = *next;
        *next += count;
        Some(first)
    }

    /// Ends the transaction with `end` (COMMIT or ROLLBACK): nothing is sent for a
    /// transaction that ran nothing, nor the writes held back of one rolled back.
    ///
    /// # Errors
    /// For a COMMIT: the first error of the writes sent with it (the transaction is
    /// then rolled back), a `BUSY` of its own when the connection broke during the
    /// commit (the outcome is unknown: see [`in_doubt`]), what the database answers
    /// otherwise.
    pub(crate) fn end(&self, end: &str) -> Result<()> {
        self.reserved.borrow_mut().clear();
        let commit = end == "COMMIT";
        if !commit {
            self.unsent_writes.borrow_mut().clear();
        }
        if self.unsent_begin.get().is_some() && self.unsent_writes.borrow().is_empty() {
            self.unsent_begin.set(None);
            return Ok(());
        }
        self.sent_raw(self.client.batch_execute(end)).map_err(|e| match commit {
            true => in_doubt(&e).unwrap_or_else(|| e.into()),
            false => e.into(),
        })
    }

    /// Rolls back to the savepoint `name`, released then: the writes held back since it
    /// was set (it was sent with them before it) are dropped unsent.
    ///
    /// # Errors
    /// What the database answers.
    pub(crate) fn roll_back_to(&self, name: &str) -> Result<()> {
        self.unsent_writes.borrow_mut().clear();
        self.batch(&format!("ROLLBACK TO {name}; RELEASE {name}"))
    }

    /// The outcome of `next`, sent after what is not sent yet (the transaction's BEGIN,
    /// its writes held back), all in one round trip; the first error of them all.
    fn sent<T>(&self, next: impl std::future::Future<Output = std::result::Result<T, postgres::Error>>) -> Result<T> {
        Ok(self.sent_raw(next)?)
    }

    /// [`Session::sent`], with the driver's error.
    fn sent_raw<T>(
        &self,
        next: impl std::future::Future<Output = std::result::Result<T, postgres::Error>>,
    ) -> std::result::Result<T, postgres::Error> {
        let begin = self.unsent_begin.take();
        let writes = std::mem::take(&mut *self.unsent_writes.borrow_mut());
        if begin.is_none() && writes.is_empty() {
            return self.runtime.block_on(next);
        }
        let client = &self.client;
        // Each request is sent when it is first polled, in this order.
        let begun = async move {
            match begin {
                Some(begin) => client.batch_execute(begin).await,
                None => Ok(()),
            }
        };
        let written = futures_util::future::join_all(writes.iter().map(|(statement, values)| async move {
            let values: Vec<Value<'_>> = values.iter().map(Owned::value).collect();
            client.execute(statement, &params(&values)).await
        }));
        let (begun, written, next) = self.runtime.block_on(futures_util::future::join3(begun, written, next));
        begun?;
        written.into_iter().try_for_each(|done| done.map(drop))?;
        next
    }

    /// The statement of `sql`, prepared on this connection the first time.
    pub(crate) fn prepare(&self, sql: &str) -> Result<postgres::Statement> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.runtime.block_on(self.client.prepare(&numbered(sql)))?;
        self.statements.borrow_mut().insert(sql.into(), statement.clone());
        Ok(statement)
    }

    /// The rows `statement` answers with `args`.
    pub(crate) fn query(&self, statement: &postgres::Statement, args: &[Value<'_>]) -> Result<Vec<postgres::Row>> {
        self.sent(self.client.query(statement, &params(args)))
    }

    /// The rows `sql` answers with `args`, planned for these values: an unnamed
    /// statement, parsed, bound and run in one round trip, each parameter typed by its
    /// value (text, a 64-bit integer or bytes).
    pub(crate) fn query_planned(&self, sql: &str, args: &[Value<'_>]) -> Result<Vec<postgres::Row>> {
        let typed: Vec<(&(dyn ToSql + Sync), Type)> = args
            .iter()
            .map(|v| {
                let ty = match v {
                    Value::Int(_) => Type::INT8,
                    Value::Blob(_) => Type::BYTEA,
                    Value::Null | Value::Text(_) => Type::TEXT,
                };
                (v as &(dyn ToSql + Sync), ty)
            })
            .collect();
        let sql = numbered(sql);
        self.sent(self.client.query_typed(&sql, &typed))
    }

    /// Executes `statement` with `args`; how many rows it changed.
    pub(crate) fn execute(&self, statement: &postgres::Statement, args: &[Value<'_>]) -> Result<usize> {
        let changed = self.sent(self.client.execute(statement, &params(args)))?;
        usize::try_from(changed).map_err(|_| Error::internal("a statement changed more rows than this machine counts"))
    }

    /// Executes `statement`, a write, with `args` once the next statement or the COMMIT
    /// goes: its error, if any, is theirs, and fails the transaction. Once
    /// [`MOST_UNSENT`] wait, they go at once.
    ///
    /// # Errors
    /// The first error of the writes sent at once.
    pub(crate) fn execute_later(&self, statement: postgres::Statement, args: &[Value<'_>]) -> Result<()> {
        let mut unsent = self.unsent_writes.borrow_mut();
        unsent.push((statement, args.iter().map(Owned::of).collect()));
        if unsent.len() < MOST_UNSENT {
            return Ok(());
        }
        drop(unsent);
        self.sent(std::future::ready(Ok(())))
    }

    /// Runs `sql`, statements without parameters (transaction control, savepoints).
    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        self.sent(self.client.batch_execute(sql))
    }

    fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}

/// A [`Value`] kept until its statement is sent.
enum Owned {
    Null,
    Int(i64),
    Text(Box<str>),
    Blob(Box<[u8]>),
}

impl Owned {
    fn of(value: &Value<'_>) -> Owned {
        match *value {
            Value::Null => Owned::Null,
            Value::Int(i) => Owned::Int(i),
            Value::Text(t) => Owned::Text(t.into()),
            Value::Blob(b) => Owned::Blob(b.into()),
        }
    }

    fn value(&self) -> Value<'_> {
        match self {
            Owned::Null => Value::Null,
            Owned::Int(i) => Value::Int(*i),
            Owned::Text(t) => Value::Text(t),
            Owned::Blob(b) => Value::Blob(b),
        }
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

/// How to reach the database.
struct Target {
    config: tokio_postgres::Config,
    /// The TLS client, for `sslmode=require` only: a plain connection never builds one,
    /// so that a Unix socket (a host without a name to check) connects.
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
}

impl Target {
    fn connect(&self) -> Result<Session> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::internal(format!("could not start a database connection's runtime: {e}")))?;
        // The connection's task runs whenever the session waits for the database.
        let client = match &self.tls {
            Some(tls) => {
                let (client, connection) = runtime.block_on(self.config.connect(tls.clone())).map_err(unreached)?;
                runtime.spawn(connection);
                client
            }
            None => {
                let (client, connection) = runtime.block_on(self.config.connect(tokio_postgres::NoTls)).map_err(unreached)?;
                runtime.spawn(connection);
                client
            }
        };
        let session = Session {
            runtime,
            client,
            statements: RefCell::new(HashMap::new()),
            unsent_begin: Flag::new(None),
            unsent_writes: RefCell::new(Vec::new()),
            reserved: RefCell::new(Vec::new()),
        };
        session.batch(&format!(
            "SET statement_timeout = '{STATEMENT_TIMEOUT}'; SET idle_in_transaction_session_timeout = '{STATEMENT_TIMEOUT}'"
        ))?;
        Ok(session)
    }

    /// A connection of the `postgres` crate's, for the schema's migrations.
    fn connect_for_migrations(&self) -> Result<postgres::Client> {
        let config = postgres::Config::from(self.config.clone());
        match &self.tls {
            Some(tls) => config.connect(tls.clone()),
            None => config.connect(postgres::NoTls),
        }
        .map_err(unreached)
    }
}

/// The error of a connection that could not be made.
fn unreached(e: postgres::Error) -> Error {
    Error::new(ErrorCategory::Busy, format!("could not connect to the database: {e}. Retry the request.")).with_source(e)
}

/// Connections to one PostgreSQL database: idle ones kept, more opened up to `size`,
/// broken ones dropped. A failover shows as broken connections; the next ones reach
/// the new primary (a URL naming every host, `target_session_attrs=read-write`).
pub(crate) struct Pool {
    target: Target,
    size: usize,
    state: Mutex<PoolState>,
    freed: Condvar,
    /// The connections that allocate ids (`next_ids`), each number in a transaction of
    /// its own: a few, so that concurrent writes do not queue behind one round trip.
    ids: [Mutex<Option<Session>>; ID_CONNECTIONS],
}

/// Connections of a pool that allocate ids ([`Pool::next_ids`]).
const ID_CONNECTIONS: usize = 4;

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
    /// and `target_session_attrs` as libpq reads them; a host that is a folder, such as
    /// `%2Fvar%2Frun%2Fpostgresql` in a URL, is the Unix socket there; `sslmode=require`
    /// for TLS, with the machine's trusted certificates, or those of `SSL_CERT_FILE`;
    /// plain without it, `prefer` included).
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
        let tls = (config.get_ssl_mode() != postgres::config::SslMode::Disable).then(tls);
        Ok(Pool {
            target: Target { config, tls },
            size: size.max(1),
            state: Mutex::new(PoolState { idle: Vec::new(), open: 0 }),
            freed: Condvar::new(),
            ids: std::array::from_fn(|_| Mutex::new(None)),
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

    /// Brings the database to the current schema, on a connection of its own.
    ///
    /// # Errors
    /// As [`schema::migrate`]; `BUSY` when the database cannot be reached.
    pub(crate) fn migrate(&self) -> Result<()> {
        schema::migrate(&mut self.target.connect_for_migrations()?)
    }

    /// Takes `count` (at least 1) numbers of the sequence `name` at once and returns the
    /// first, as [`Pool::take_ids`] does.
    pub(crate) fn next_ids(&self, name: &str, count: i64) -> Result<i64> {
        Ok(self.take_ids(&[(name, count)])?.first().copied().unwrap_or_default())
    }

    /// Takes `count` (at least 1) numbers of each sequence `name` of `wanted` (no name
    /// twice) in one statement, in a transaction of its own, and returns the first of
    /// each, in `wanted`'s order. Numbers taken by an operation that then fails are not
    /// given again (gaps), so that concurrent operations never wait for each other's
    /// commit to number what they write.
    pub(crate) fn take_ids(&self, wanted: &[(&str, i64)]) -> Result<Vec<i64>> {
        // A free connection of the few, else the one after the last taken.
        let mut ids = match self.ids.iter().find_map(|slot| slot.try_lock().ok()) {
            Some(free) => free,
            None => {
                static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let slot = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % ID_CONNECTIONS;
                self.ids[slot].lock().unwrap_or_else(std::sync::PoisonError::into_inner)
            }
        };
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
        // The rows are locked in the order of their names, so that two statements
        // taking the same sequences never wait for each other in a circle.
        let mut sorted: Vec<(&str, i64)> = wanted.to_vec();
        sorted.sort_unstable();
        let rows: Vec<String> = (0..sorted.len()).map(|i| format!("(?{}, ?{})", 2 * i + 1, 2 * i + 2)).collect();
        let statement = session.prepare(&format!(
            "INSERT INTO id_sequences (name, last) VALUES {}
             ON CONFLICT (name) DO UPDATE SET last = id_sequences.last + excluded.last RETURNING name, last",
            rows.join(", ")
        ))?;
        let values: Vec<Value<'_>> = sorted.iter().flat_map(|&(name, count)| [Value::Text(name), Value::Int(count)]).collect();
        let mut lasts = HashMap::with_capacity(sorted.len());
        for row in session.query(&statement, &values)? {
            if let (Cell::Text(name), Cell::Int(last)) = (cell(&row, 0)?, cell(&row, 1)?) {
                lasts.insert(name.to_string(), last);
            }
        }
        wanted
            .iter()
            .map(|&(name, count)| match lasts.get(name) {
                Some(last) => Ok(last - count + 1),
                None => Err(Error::internal(format!("the sequence {name} answered no number"))),
            })
            .collect()
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

    /// A Unix socket has no host name for a certificate to name: a plain connection (the
    /// default) goes to it without building a TLS client. The socket here is a listener
    /// that hangs up on the first connection, so the connection fails after it was made.
    #[test]
    fn a_unix_socket_is_reached_without_tls() {
        let dir = std::env::temp_dir().join(format!("consign-socket-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join(".s.PGSQL.5432"));
        let listener = std::os::unix::net::UnixListener::bind(dir.join(".s.PGSQL.5432")).unwrap();
        let hang_up = std::thread::spawn(move || drop(listener.accept().unwrap()));
        let host = dir.to_str().unwrap().replace('/', "%2F");
        let pool = Arc::new(Pool::new(&format!("postgres://consign@{host}/consign"), 1).unwrap());
        let error = pool.get().err().expect("the listener hangs up").to_string();
        hang_up.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(error.contains("could not connect to the database"), "{error}");
        assert!(!error.contains("TLS"), "{error}");
    }
}
