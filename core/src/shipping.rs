//! [`Shipping`]: the facade that owns the store, the clock and the catalog, with one
//! method per operation. Every write of an operation is one IMMEDIATE transaction that
//! commits only when the operation succeeds (a savepoint of one, in a group of operations
//! committed together: see `connection.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use crate::booking;
use crate::catalog::{Catalog, Profile};
use crate::clock::{Clock, SystemClock};
use crate::customers::{self, Customer};
use crate::error::{Error, Result};
use crate::rating::{self, CsvKind, ImportSummary, RateBook};
use crate::secrets::Sealer;
use crate::store::{self, args, Read, Settings, Synchronous, Tx};

mod accounts;
mod batches;
mod connection;
mod events;
mod fulfilment;
mod ids;

pub use ids::{BookNumber, CustomerId};
mod keys;
mod logins;
mod quotes;
mod shipments;
#[cfg(feature = "webhooks")]
mod webhooks;
#[cfg(feature = "webhooks")]
pub use webhooks::MAX_DELIVERIES_PAGE;

pub use logins::{PasswordOutcome, PasswordWork};

/// The most quoted shipments a customer may store per UTC day unless
/// [`ShippingBuilder::quoted_shipments_per_day`] says otherwise.
pub const DEFAULT_QUOTED_SHIPMENTS_PER_DAY: u64 = 100_000;

/// The shipping service on one SQLite database.
///
/// `Shipping` is `Send + Sync`: operations on one instance are serialised on its
/// connection, so share it behind an `Arc` between threads.
pub struct Shipping {
    db: store::Database,
    clock: Arc<dyn Clock>,
    catalog: RwLock<Arc<Catalog>>,
    rates: RwLock<Arc<RateBook>>,
    labels_at_booking: bool,
    /// Seals provider credentials and payment tokens at rest, when the application gave a key.
    sealer: Option<Sealer>,
    /// The most quoted shipments a customer may store per UTC day.
    quotes_per_day: u64,
    /// Webhook endpoints may be `http://` URLs and private or loopback addresses.
    #[cfg(feature = "webhooks")]
    allow_http_webhooks: bool,
    /// The revisions of the catalog and the rate book this service holds (PostgreSQL:
    /// other services on the database may import new ones; see [`Shipping::fresh`]).
    #[cfg(feature = "postgres")]
    revisions: std::sync::Mutex<Revisions>,
}

impl std::fmt::Debug for Shipping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shipping").finish_non_exhaustive()
    }
}

/// Options for opening a [`Shipping`]: where the database is and which clock to use.
#[derive(Default)]
pub struct ShippingBuilder {
    path: Option<PathBuf>,
    clock: Option<Arc<dyn Clock>>,
    lazy_labels: bool,
    bytes: Option<Vec<u8>>,
    settings: Settings,
    secret_key: Option<[u8; 32]>,
    quotes_per_day: Option<u64>,
    on_commit: Option<CommitListener>,
    #[cfg(feature = "webhooks")]
    allow_http_webhooks: bool,
    #[cfg(feature = "postgres")]
    postgres: Option<(String, usize)>,
}

/// What [`ShippingBuilder::on_commit`] runs.
type CommitListener = Arc<dyn Fn(&[crate::wire::CommittedEvent]) + Send + Sync>;

impl std::fmt::Debug for ShippingBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShippingBuilder").field("path", &self.path).finish_non_exhaustive()
    }
}

impl ShippingBuilder {
    /// Use the database file at `path` (created if missing). Without a path the database
    /// lives in memory.
    pub fn path(mut self, path: impl AsRef<Path>) -> Self {
        self.path = Some(path.as_ref().to_path_buf());
        self
    }

    /// Use the PostgreSQL database at `url` instead of an SQLite file: a libpq
    /// connection string or URL (`postgres://user:password@host:5432/consign`; several
    /// hosts and `target_session_attrs=read-write` to follow a failover; `sslmode=require`
    /// for TLS, verified against the machine's trusted certificates or `SSL_CERT_FILE`;
    /// without it, or with libpq's `prefer`, which would not verify, the connection is plain).
    /// The schema is created or upgraded on open, under an advisory lock, so that several
    /// services may open one database at once. Operations run on a pool of connections
    /// (16; see [`Self::postgres_pool`]), writes to different customers in parallel.
    /// `path`, `bytes` and the SQLite settings do not apply.
    #[cfg(feature = "postgres")]
    pub fn postgres(mut self, url: impl Into<String>) -> Self {
        self.postgres = Some((url.into(), crate::store::pg::DEFAULT_POOL_SIZE));
        self
    }

    /// The most connections a PostgreSQL-backed service opens at once (default 16); an
    /// operation that finds them all busy waits up to 5 seconds, then answers `BUSY`.
    #[cfg(feature = "postgres")]
    pub fn postgres_pool(mut self, connections: usize) -> Self {
        if let Some((_, size)) = &mut self.postgres {
            *size = connections.max(1);
        }
        self
    }

    /// Run `listener` after each commit that appended events (the event feed, see
    /// [`Shipping::events`]), with those events in the order they were appended: for
    /// one operation, or for a group of them committed together. It runs after the
    /// commit, never before and never for a change rolled back, on the thread that
    /// committed, once the database is free again (it may call the service). What one
    /// process commits is told to its listener only: another process on the same file
    /// reads the feed.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use consign::{FixedClock, Shipping};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let told = seen.clone();
    /// let shipping = Shipping::builder()
    ///     .clock(Arc::new(FixedClock::at("2026-11-21T09:00:00Z").unwrap()))
    ///     .on_commit(move |events| told.lock().unwrap().extend(events.iter().map(|e| e.event.kind.clone())))
    ///     .open()
    ///     .unwrap();
    /// # let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
    /// #     "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
    /// # let body = format!(r#"{{"profileCode": "Default", "email": "ann@example.com", "password": "correct horse",
    /// #     "mailingAddress": {address}, "billingAddress": {address},
    /// #     "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#);
    /// assert_eq!(shipping.handle("POST", "/restapi/v1/customers", &body).status, 201);
    /// assert_eq!(*seen.lock().unwrap(), ["prepay.recharged"]);
    /// ```
    pub fn on_commit(mut self, listener: impl Fn(&[crate::wire::CommittedEvent]) + Send + Sync + 'static) -> Self {
        self.on_commit = Some(Arc::new(listener));
        self
    }

    /// Allow webhook endpoints at `http://` URLs and at private or loopback addresses
    /// (default: `https://` and public addresses only): for tests against a receiver on
    /// this machine, never for a service exposed to customers (feature `webhooks`).
    #[cfg(feature = "webhooks")]
    pub fn allow_http_webhooks(mut self, allow: bool) -> Self {
        self.allow_http_webhooks = allow;
        self
    }

    /// Use `clock` for "now" and "today" (the system clock by default).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Render labels when they are first retrieved instead of at booking (default: at
    /// booking, so that a booking that cannot print fails whole). For applications that
    /// print later, or in bulk.
    pub fn lazy_labels(mut self, lazy: bool) -> Self {
        self.lazy_labels = lazy;
        self
    }

    /// Start from `bytes`, a whole database as [`Shipping::export_database`] gives it:
    /// they replace what the database (in memory, or the file at `path`) held.
    ///
    /// The image is checked whole in memory before anything is replaced: it must be
    /// intact, carry consign's mark at a schema this build reads, and hold exactly
    /// consign's tables and indexes (no triggers or views of its own). [`Self::open`]
    /// refuses it otherwise, and the file at `path` keeps what it held.
    pub fn bytes(mut self, bytes: Vec<u8>) -> Self {
        self.bytes = Some(bytes);
        self
    }

    /// How a file database waits for the disk on commit: [`Synchronous::Full`] (the
    /// default) makes every acknowledged operation survive a power loss, at an fsync per
    /// write; [`Synchronous::Normal`] writes faster but may lose the last acknowledged
    /// operations on a power loss (never the database's consistency). No effect in memory.
    pub fn synchronous(mut self, synchronous: Synchronous) -> Self {
        self.settings.synchronous = synchronous;
        self
    }

    /// The size of the write-ahead log, in pages of 4 KiB, past which a commit also
    /// checkpoints it into the database file (SQLite's `wal_autocheckpoint`; default
    /// 4,000, 16 MiB of log). 0 leaves checkpoints to [`Shipping::checkpoint`], called
    /// from elsewhere: `consign serve` checkpoints on a thread of its own, so that no
    /// write waits for it.
    pub fn auto_checkpoint(mut self, pages: u32) -> Self {
        self.settings.auto_checkpoint = pages;
        self
    }

    /// How long an operation waits for a lock held by another connection to the same
    /// file (another process, or another `Shipping`) before it answers `BUSY` (HTTP 503,
    /// to be retried). Default: 5 seconds.
    pub fn busy_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.settings.busy_timeout = timeout;
        self
    }

    /// Seal provider account credentials and payment tokens at rest with `key`
    /// (XChaCha20-Poly1305): 32 random bytes that the application keeps outside the
    /// database (a keychain, a secrets manager) and gives on every open. Without a key
    /// these secrets are stored as sent, and so are in every copy of the file and in
    /// [`Shipping::export_database`]. A value sealed with one key does not open with
    /// another; values stored before a key was given stay plain until they are put again.
    pub fn secret_key(mut self, key: [u8; 32]) -> Self {
        self.secret_key = Some(key);
        self
    }

    /// The most quoted shipments each customer may store per UTC day (default
    /// [`DEFAULT_QUOTED_SHIPMENTS_PER_DAY`]): a batch or single quote that would go over it
    /// is refused with `TOO_MANY_REQUESTS` before it is priced, to be retried after
    /// midnight UTC. Every shipment of a request counts, whether or not it gets quotes.
    pub fn quoted_shipments_per_day(mut self, shipments: u64) -> Self {
        self.quotes_per_day = Some(shipments);
        self
    }

    /// Opens the database, creates or upgrades its schema and seeds the default catalog
    /// and rate book on first open.
    ///
    /// # Errors
    /// `INTERNAL` when the file cannot be opened, is another application's SQLite
    /// database (it is left as it was), was written by a newer schema, or holds a catalog
    /// that does not load; `INVALID_REQUEST` on `bytes` when the image is refused;
    /// `BUSY` when another connection holds the file locked past the busy timeout.
    pub fn open(self) -> Result<Shipping> {
        let mut db = self.database()?;
        if let Some(listener) = self.on_commit.clone() {
            db.listen(Arc::new(move |stored: &[store::Stored]| listener(&stored.iter().map(committed).collect::<Vec<_>>())));
        }
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let sealer = self.secret_key.as_ref().map(Sealer::new);
        let mut shipping = Shipping::from_database(db, clock, !self.lazy_labels, sealer)?;
        shipping.quotes_per_day = self.quotes_per_day.unwrap_or(DEFAULT_QUOTED_SHIPMENTS_PER_DAY);
        #[cfg(feature = "webhooks")]
        {
            shipping.allow_http_webhooks = self.allow_http_webhooks;
        }
        Ok(shipping)
    }
}

/// An event as stored, as the listener of commits is given it.
fn committed(stored: &store::Stored) -> crate::wire::CommittedEvent {
    // The service wrote the data as JSON; should a row have been altered outside it,
    // the event still goes out, with null (the default) for data.
    let data = serde_json::value::RawValue::from_string(stored.data.clone()).unwrap_or_default();
    crate::wire::CommittedEvent {
        customer_id: stored.customer_id.clone(),
        event: crate::wire::Event {
            id: stored.id,
            kind: stored.kind.clone(),
            subject_id: stored.subject_id.clone(),
            created_at: stored.created_at.clone(),
            data,
        },
    }
}

impl ShippingBuilder {
    /// The database the options name.
    fn database(&self) -> Result<store::Database> {
        #[cfg(feature = "postgres")]
        if let Some((url, pool)) = &self.postgres {
            if self.path.is_some() || self.bytes.is_some() {
                return Err(Error::invalid("database", "a PostgreSQL database takes neither a file path nor an SQLite image"));
            }
            return store::Database::postgres(url, *pool);
        }
        store::Database::open(self.path.as_deref(), self.bytes.as_deref(), self.settings)
    }
}

impl Shipping {
    /// Options for opening a service: database path and clock.
    pub fn builder() -> ShippingBuilder {
        ShippingBuilder::default()
    }

    /// Opens (or creates) the database file at `path` with the system clock.
    ///
    /// # Errors
    /// As [`ShippingBuilder::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Shipping> {
        Self::builder().path(path).open()
    }

    /// A service on a fresh in-memory database with the system clock.
    ///
    /// # Errors
    /// As [`ShippingBuilder::open`].
    pub fn open_in_memory() -> Result<Shipping> {
        Self::builder().open()
    }

    fn from_database(db: store::Database, clock: Arc<dyn Clock>, labels_at_booking: bool, sealer: Option<Sealer>) -> Result<Shipping> {
        let catalog = db.write(|tx| {
            let stored: Option<String> = tx.row("SELECT document FROM catalog WHERE id = 1", args![], |r| r.get(0))?;
            Ok(match stored {
                Some(doc) => {
                    // Rate data written before transit times existed gets the default ones.
                    seed_arrivals(tx)?;
                    Catalog::stored(&doc).map_err(|e| Error::internal(format!("the stored catalog does not load: {}", e.message())))?
                }
                None => {
                    // No catalog yet: the database is new, and gets the default data too.
                    seed_rate_book(tx)?;
                    let catalog = Catalog::default_catalog()?;
                    tx.execute(
                        "INSERT INTO catalog (id, document, updated_at) VALUES (1, ?1, ?2)",
                        args![crate::catalog::default_catalog_json(), crate::dates::timestamp(clock.now())],
                    )?;
                    catalog
                }
            })
        })?;
        #[cfg(feature = "postgres")]
        let revisions = db.read(Revisions::read)?;
        let rates = db.read(load_rate_book)?;
        Ok(Shipping {
            db,
            clock,
            catalog: RwLock::new(Arc::new(catalog)),
            rates: RwLock::new(rates),
            labels_at_booking,
            sealer,
            quotes_per_day: DEFAULT_QUOTED_SHIPMENTS_PER_DAY,
            #[cfg(feature = "webhooks")]
            allow_http_webhooks: false,
            #[cfg(feature = "postgres")]
            revisions: std::sync::Mutex::new(revisions),
        })
    }

    /// On PostgreSQL, where other services share the database, takes in the catalog or
    /// rate book another one imported since this one last looked (one query of two
    /// revisions), so that no service prices with data another has replaced. Best
    /// effort: should the database not answer, the operation that follows fails on it.
    #[cfg(feature = "postgres")]
    fn fresh(&self) {
        if !self.db.is_postgres() || IN_OPERATION.get() {
            return;
        }
        // The revisions are read and the data loaded without holding the lock, so that
        // operations do not queue behind one another's query; only a newer revision than
        // the one held is swapped in, so a slow load never replaces a newer one.
        let held = || self.revisions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Ok(now) = self.read_latest(Revisions::read) else { return };
        let before = *held();
        if now.catalog > before.catalog {
            let stored = self.read(|conn| conn.one("SELECT document FROM catalog WHERE id = 1", args![], |r| r.get::<String>(0)));
            if let Ok(catalog) = stored.and_then(|doc| Catalog::stored(&doc)) {
                let mut held = held();
                if now.catalog > held.catalog {
                    *self.catalog.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(catalog);
                    held.catalog = now.catalog;
                }
            }
        }
        if now.rates > before.rates {
            if let Ok(book) = self.read(load_rate_book) {
                let mut held = held();
                if now.rates > held.rates {
                    *self.rates.write().unwrap_or_else(std::sync::PoisonError::into_inner) = book;
                    held.rates = now.rates;
                }
            }
        }
    }

    /// Runs `f`, one operation: on PostgreSQL the catalog and rate book are brought up to
    /// date once, at its start ([`Shipping::fresh`]), and not again at each use inside it.
    pub(crate) fn operation<T>(&self, f: impl FnOnce() -> T) -> T {
        #[cfg(feature = "postgres")]
        if !IN_OPERATION.get() {
            self.fresh();
            /// Ends the operation on this thread, however `f` ends.
            struct Ended;
            impl Drop for Ended {
                fn drop(&mut self) {
                    IN_OPERATION.set(false);
                }
            }
            IN_OPERATION.set(true);
            let _ended = Ended;
            return f();
        }
        f()
    }

    /// The whole database as bytes (an SQLite file image), for backups and for moving a
    /// database between a browser and a desktop; [`ShippingBuilder::bytes`] opens it.
    ///
    /// The image holds provider account credentials and payment tokens: sealed when the
    /// service was opened with [`ShippingBuilder::secret_key`] (and then only that key
    /// opens them), else **in plain text**. Keep an export as safe as the database.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_database(&self) -> Result<Vec<u8>> {
        self.not_in_group("an export")?;
        self.db.serialize()
    }

    /// The clock this service reads.
    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// The catalog in force.
    pub fn catalog(&self) -> Arc<Catalog> {
        #[cfg(feature = "postgres")]
        self.fresh();
        self.catalog.read().map(|c| Arc::clone(&c)).unwrap_or_else(|p| Arc::clone(&p.into_inner()))
    }

    /// The rate book in force.
    pub fn rate_book(&self) -> Arc<RateBook> {
        #[cfg(feature = "postgres")]
        self.fresh();
        self.rates.read().map(|r| Arc::clone(&r)).unwrap_or_else(|p| Arc::clone(&p.into_inner()))
    }

    /// Imports rate data of `kind` from CSV (the format of `docs/rate-cards.md`): every
    /// row is checked (errors carry line numbers), the cards and charts it names are
    /// replaced in one transaction, and the new rate book is swapped in whole.
    ///
    /// # Errors
    /// `INVALID_REQUEST` with a detail per invalid line (`line 12`), or naming what
    /// would be inconsistent; nothing is written then and the old book stays in force.
    pub fn import_rates(&self, kind: CsvKind, csv: &str) -> Result<ImportSummary> {
        self.not_in_group("rates")?;
        let (summary, book) = self.write(|tx| {
            // From now on this database's rates are its own, not the embedded default.
            store::next_revision(tx, RATE_REVISION)?;
            rating::import(tx, &self.catalog(), kind, csv)
        })?;
        match self.rates.write() {
            Ok(mut r) => *r = Arc::new(book),
            Err(p) => *p.into_inner() = Arc::new(book),
        }
        Ok(summary)
    }

    /// Exports the rate data of `kind` as CSV, in the import format.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_rates(&self, kind: CsvKind) -> Result<String> {
        self.read(|conn| rating::export_csv(conn, kind).map_err(|e| Error::internal(format!("could not export {}: {e}", kind.as_str()))))
    }

    /// Replaces the catalog with `json` (the format of `core/data/catalog.json`).
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming what is inconsistent, or a profile that customers use and
    /// the new catalog lacks; the old catalog stays in force.
    pub fn import_catalog(&self, json: &str) -> Result<()> {
        self.not_in_group("a catalog")?;
        let catalog = Catalog::from_json(json)?;
        self.write(|tx| {
            let used = tx.rows("SELECT DISTINCT profile_code FROM customers ORDER BY profile_code", args![], |r| r.get::<String>(0))?;
            let missing: Vec<&str> = used.iter().map(String::as_str).filter(|code| catalog.profile(code).is_none()).collect();
            if !missing.is_empty() {
                return Err(Error::invalid("profiles", format!("customers use profiles the catalog lacks: {}", missing.join(", "))));
            }
            tx.execute(
                "UPDATE catalog SET document = ?1, updated_at = ?2 WHERE id = 1",
                store::args![json, crate::dates::timestamp(self.clock.now())],
            )?;
            // Other services on the database take the new catalog in by this.
            store::next_revision(tx, CATALOG_REVISION)?;
            Ok(())
        })?;
        match self.catalog.write() {
            Ok(mut c) => *c = Arc::new(catalog),
            Err(p) => *p.into_inner() = Arc::new(catalog),
        }
        Ok(())
    }

    /// The catalog document in force, as JSON.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn export_catalog(&self) -> Result<String> {
        self.read(|conn| conn.one("SELECT document FROM catalog WHERE id = 1", args![], |r| r.get(0)))
    }

    /// What seals secrets at rest, when the application gave a key.
    pub(crate) fn sealer(&self) -> Option<&Sealer> {
        self.sealer.as_ref()
    }

    /// Runs `f` on the connection, for reads, once `customer_id` is known to be a customer.
    pub(crate) fn read_for<T>(&self, customer_id: &str, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            f(conn)
        })
    }

    /// Runs `f` in one write transaction, committed only if `f` succeeds, once
    /// `customer_id` is known to be a customer, with the customer's writes serialised
    /// (`customers::find_locked`).
    pub(crate) fn write_for<T>(&self, customer_id: &str, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        self.write(|tx| {
            customers::find_locked(tx, customer_id)?;
            f(tx)
        })
    }

    /// Runs `f` in one write transaction with the booking context of `customer_id`: the
    /// catalog, rate book and clock in force, and the customer with its profile.
    fn write_booking<T>(&self, customer_id: &str, f: impl FnOnce(&Tx<'_>, &booking::Context) -> Result<T>) -> Result<T> {
        let catalog = self.catalog();
        let rates = self.rate_book();
        let (today, now) = (self.clock.today(), self.clock.now());
        self.write(|tx| {
            let customer = customers::find_locked(tx, customer_id)?;
            let profile = Self::profile(&catalog, &customer)?;
            let ctx = booking::Context {
                catalog: &catalog,
                rates: &rates,
                profile,
                customer: &customer,
                today,
                now,
                labels_at_booking: self.labels_at_booking,
            };
            f(tx, &ctx)
        })
    }

    fn customer(&self, conn: &Read<'_>, customer_id: &str) -> Result<(Customer, Arc<Catalog>)> {
        let customer = customers::find(conn, customer_id)?;
        Ok((customer, self.catalog()))
    }

    fn profile<'c>(catalog: &'c Catalog, customer: &Customer) -> Result<&'c Profile> {
        catalog.profile(&customer.profile_code).ok_or_else(|| {
            Error::internal(format!("customer {} has profile {:?}, which the catalog lacks", customer.id, customer.profile_code))
        })
    }
}

/// The sequence counting rate imports: absent means the rates are the embedded default.
const RATE_REVISION: &str = "rate_revision";

/// The `id_sequences` row counting imports of a catalog.
const CATALOG_REVISION: &str = "catalog_revision";

#[cfg(feature = "postgres")]
thread_local! {
    /// Whether this thread runs an operation ([`Shipping::operation`]) whose catalog and
    /// rate book were brought up to date at its start.
    static IN_OPERATION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The revisions of the catalog and the rate book (0 before the first import).
#[cfg(feature = "postgres")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Revisions {
    catalog: i64,
    rates: i64,
}

#[cfg(feature = "postgres")]
impl Revisions {
    fn read(conn: &Read<'_>) -> Result<Revisions> {
        conn.one(
            "SELECT coalesce(max(CASE WHEN name = ?1 THEN last END), 0), coalesce(max(CASE WHEN name = ?2 THEN last END), 0)
             FROM id_sequences WHERE name IN (?1, ?2)",
            args![CATALOG_REVISION, RATE_REVISION],
            |r| Ok(Revisions { catalog: r.get(0)?, rates: r.get(1)? }),
        )
    }
}

/// Writes the default rate book into a new database, on its first open: default data,
/// not schema, so that no upgrade depends on today's rating code.
///
/// # Errors
/// `INTERNAL` when the rows cannot be written.
fn seed_rate_book(tx: &Tx<'_>) -> Result<()> {
    crate::rating::seed_defaults(tx).map_err(|e| Error::internal(format!("could not write the default rate book: {e}")))
}

/// Writes the default transit times and calendars of the stored rate data's carriers
/// when it has none (rate data written before they existed): on every open of an
/// existing database, a no-op once they are there.
///
/// # Errors
/// `INTERNAL` when the rows cannot be read or written.
fn seed_arrivals(tx: &Tx<'_>) -> Result<()> {
    crate::rating::seed_arrivals_if_missing(tx).map_err(|e| Error::internal(format!("could not write the default transit times: {e}")))
}

/// The rate book of a database: the embedded default, built once per process and shared,
/// while nothing was imported; else loaded from its tables.
fn load_rate_book(conn: &Read<'_>) -> Result<Arc<RateBook>> {
    static DEFAULT: OnceLock<std::result::Result<Arc<RateBook>, String>> = OnceLock::new();
    let imported: Option<i64> = conn.row("SELECT last FROM id_sequences WHERE name = ?1", args![RATE_REVISION], |r| r.get(0))?;
    if imported.is_none() {
        return DEFAULT
            .get_or_init(|| RateBook::default_book().map(Arc::new).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| Error::internal(format!("the embedded rate book does not load: {e}")));
    }
    RateBook::load(conn).map(Arc::new).map_err(|e| Error::internal(format!("the stored rate book does not load: {e}")))
}

/// Requests for the unit tests of the facade.
#[cfg(test)]
pub(crate) mod testing {
    /// The body of a create customer request for `email`, every field valid.
    pub(crate) fn customer_body(email: &str) -> String {
        let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
            "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
        format!(
            r#"{{"profileCode": "Default", "email": "{email}", "password": "correct horse", "mailingAddress": {address},
                "billingAddress": {address}, "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalog_stored_without_generic_signature_codes_opens_with_them() {
        let dir = std::env::temp_dir().join(format!("consign-stored-catalog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.db");
        let old = crate::catalog::tests::without_generic_codes().to_string();
        let shipping = Shipping::open(&path).unwrap();
        shipping.write(|tx| tx.execute("UPDATE catalog SET document = ?1", store::args![old])).unwrap();
        drop(shipping);
        let reopened = Shipping::open(&path).unwrap();
        assert_eq!(reopened.catalog().carrier("postal").unwrap().signature_option("ADULT").unwrap().code, "postal_adult_signature");
        drop(reopened);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_databases_sync_fully_unless_told_otherwise_and_reads_are_one_transaction() {
        let dir = std::env::temp_dir().join(format!("consign-synchronous-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let synchronous = |s: &Shipping| s.read(|c| c.one("PRAGMA synchronous", args![], |r| r.get::<i64>(0))).unwrap();
        // SQLite's numbers: 1 NORMAL, 2 FULL.
        let full = Shipping::open(dir.join("full.db")).unwrap();
        assert_eq!(synchronous(&full), 2);
        let normal = Shipping::builder().path(dir.join("normal.db")).synchronous(Synchronous::Normal).open().unwrap();
        assert_eq!(synchronous(&normal), 1);
        assert!(full.read(|c| Ok(c.in_transaction())).unwrap(), "a read runs inside a transaction");
        assert!(full.db.lock().is_autocommit(), "and ends it");
        drop((full, normal));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
