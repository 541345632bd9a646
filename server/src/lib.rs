//! # consign-server
//!
//! The HTTP face of consign (`consign serve`): the interface of the spec over HTTP/1.1,
//! answered by [`consign::Shipping::handle_documents_as`], behind API keys (DECISIONS 9).
//! This crate adds only what HTTP itself needs: reading the request, the `Authorization`
//! header, status codes and headers (`Allow`, `Retry-After`, PDF labels and invoices sent
//! as the `application/pdf` bytes core hands over in [`consign::Response::document`]),
//! CORS, a log line per request and a graceful shutdown.
//!
//! ```no_run
//! let server = consign_server::Server::start(consign_server::Config::new("shipping.db")).unwrap();
//! println!("listening on http://{}", server.addr());
//! server.shutdown().unwrap();
//! ```
//!
//! ## Concurrency
//! The core is synchronous, and a `Shipping` runs one operation at a time on its
//! connection.
//! - Reads (GETs and the search) run on a fixed pool of `Shipping` instances on the file
//!   ([`Config::pool`]), off the async threads (`spawn_blocking`), in parallel: SQLite's
//!   WAL lets readers go on while one connection writes.
//! - Requests that may write ([`consign::Operation::writes`]: every method but GET,
//!   except the search) queue for one writer thread with a `Shipping` of its own, each in the queue
//!   of its API key. The writer forms groups round-robin between keys (one write of each
//!   in turn, up to [`MAX_GROUP`] units of work: see the `writer` module) and runs a
//!   group's writes one after the other with one commit
//!   ([`consign::Shipping::commit_together`]): each keeps its own all-or-nothing, and
//!   the group waits for the disk once. No answer is sent before its group is committed,
//!   so an acknowledged write survives a crash (and, under the default
//!   `Synchronous::Full`, a power loss).
//! - Create and connect customer hash or verify a password (argon2, tens of milliseconds)
//!   on a hashing pool of their own (one at a time per processor), outside any
//!   transaction; only their short write queues for the writer (`logins.rs`).
//! - Batch quotes are validated and priced on the reader pool, in parallel
//!   ([`consign::Shipping::prepare_as`]); only storing their quotes goes to the writer,
//!   as a write of their key (`priced.rs`). A single quote goes to the writer whole.
//! - Expired quotes are purged at start and then once a day ([`Config::purge_quotes`]),
//!   a few rows per write through the writer.
//! - After each group, a checkpointer thread with a connection of its own copies the
//!   write-ahead log into the database file ([`consign::Shipping::checkpoint`]), so that
//!   no write waits for that. The writer checkpoints only past
//!   [`WRITER_AUTO_CHECKPOINT`] pages, should the log outgrow what the checkpointer keeps
//!   up with (readers holding old snapshots stop a log from starting over).
//!
//! Another process writing to the file (the CLI) takes turns by SQLite's lock; a group or
//! read that waits longer than the busy timeout answers 503 `BUSY` with `Retry-After: 1`.
//!
//! On PostgreSQL ([`Config::postgres`], feature `postgres`) there is no writer thread,
//! group commit or checkpointer: one `Shipping` on a pool of [`Config::pool`] connections
//! serves reads and writes alike, each request on a blocking thread of its own, at most
//! [`Config::pool`] at once; writes to different customers run in parallel (PostgreSQL
//! serialises a customer's writes on its row and groups commits itself). The key check
//! and the purge have a connection each; the purge removes quotes itself. Password work,
//! batch pricing and the limits are as above; the tenants' ring of the writer does not
//! apply: requests wait for the pool in the order they came.
//!
//! ## Limits
//! Every limit is a field of [`Config`] and an option of `consign serve`.
//! - Each API key may make [`Config::rate_limit`] requests (a token bucket: 429
//!   `TOO_MANY_REQUESTS` with `Retry-After` past it), counted before the key is looked up
//!   or the body read. Each customer may store [`Config::quotes_per_day`] quoted
//!   shipments per UTC day (429 until midnight UTC past it).
//! - The key is looked up (one indexed read, on a connection kept for it) before any
//!   byte of the body is read: no key, or an unknown or revoked one, is 401 at once. A request
//!   without a body (a GET) is authenticated with its answer.
//! - A body longer than its route takes ([`consign::Operation::body_limit`]: 16 MiB for the
//!   batch quote, 4 MiB for one shipment, order or feed, 1 MiB for the rest) is 413,
//!   refused on its `Content-Length` before it is read, or as soon as a chunked body
//!   passes the limit. A body must arrive within [`Config::body_timeout`] (else 408).
//! - The bytes of request bodies held at once, across all connections, are capped
//!   ([`Config::max_body_memory`]): a body reserves its declared length (a chunked one,
//!   each chunk as it arrives) before it is buffered. A request that cannot reserve its
//!   bytes within [`BODY_MEMORY_WAIT`] is 503 `BUSY` with `Retry-After: 1`.
//! - Connections ([`Config::max_connections`]) and their timeouts: see the module
//!   `transport` (a head, at most 64 KiB, else 431, must arrive within
//!   [`Config::header_timeout`], a whole request
//!   be served within [`Config::request_timeout`], an idle connection closes after
//!   [`Config::idle_timeout`]). Past the cap, a new connection waits in the listen backlog
//!   until an open one closes.
//! - A shutdown lets the requests in flight finish for up to [`Config::shutdown_timeout`],
//!   then drops the connections left; the writer commits what was queued and ends.
//!
//! ## Imports
//! The catalog and the rate book are loaded into each instance when the server starts.
//! Import them with the CLI while the server is stopped (or restart it after an import):
//! a running server keeps answering with what it loaded. On PostgreSQL a server takes in
//! what an import by another process replaced before it prices again.

mod limits;
mod maintenance;
mod outbound;
mod priced;
mod transport;
mod webhooks;
mod writer;

pub use limits::RateLimit;
pub use maintenance::QuotePurge;
pub use webhooks::{LEASE_MARGIN as WEBHOOK_LEASE_MARGIN, MAX_IN_FLIGHT as MAX_WEBHOOKS_IN_FLIGHT, POLL as WEBHOOK_POLL};
pub use writer::MAX_GROUP;
use writer::{failed, Call, Write};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{HeaderMap, HeaderValue, ALLOW, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use consign::{limits::MAX_BODY, Error, Shipping};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::cors::CorsLayer;

mod logins;

/// Where `consign serve` listens unless told otherwise: loopback only (DECISIONS 9).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// How long a request waits for room for its body under [`Config::max_body_memory`]
/// before it is answered 503 `BUSY` with `Retry-After: 1`.
pub const BODY_MEMORY_WAIT: Duration = Duration::from_secs(5);

/// The log size, in pages of 4 KiB, past which the writer checkpoints on its own
/// commit (see the crate docs); SQLite's default is 1,000.
pub const WRITER_AUTO_CHECKPOINT: u32 = 16_000;

/// How a server is set up.
#[derive(Clone)]
pub struct Config {
    /// The database file (created if missing); not used when [`Config::postgres`] is set.
    pub db: PathBuf,
    /// The PostgreSQL database to serve instead of the file: a libpq connection string or
    /// URL ([`consign::ShippingBuilder`]'s `postgres`, feature `postgres` of this crate).
    /// Several servers may serve one database; writes run in parallel (see the crate
    /// docs). It may hold a password: no message or log line repeats it.
    pub postgres: Option<String>,
    /// The address to listen on; port 0 picks a free one ([`Server::addr`] tells which).
    pub listen: SocketAddr,
    /// The origin of browser pages allowed to call the server (CORS), e.g.
    /// `https://shop.example.com`; `None` allows none but the server's own.
    pub cors_origin: Option<String>,
    /// How many `Shipping` instances (connections to the file) serve reads at once;
    /// writes have one more of their own. On PostgreSQL: how many requests, reads and
    /// writes, run at once, each on a connection of the database.
    pub pool: usize,
    /// Write a log line per request to stderr.
    pub log: bool,
    /// How commits wait for the disk ([`consign::Synchronous`]): `Full` by default, every
    /// acknowledged answer survives a power loss; `Normal` is faster and may lose the
    /// last acknowledged writes on a power loss.
    pub synchronous: consign::Synchronous,
    /// The clock of the services (the system clock when `None`): tests serve at a fixed
    /// instant.
    pub clock: Option<Arc<dyn consign::Clock>>,
    /// The PEM certificate chain to serve HTTPS with (with [`Config::tls_key`]); plain
    /// HTTP when `None`.
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of [`Config::tls_cert`].
    pub tls_key: Option<PathBuf>,
    /// Most connections open at once (`--max-connections`, default 1,024); past it a new
    /// connection waits in the listen backlog until one closes.
    pub max_connections: usize,
    /// Most time from the first byte of a request (or of the TLS handshake) to the end of
    /// its headers (`--header-timeout`, default 10 s); the connection is closed past it.
    pub header_timeout: Duration,
    /// Most time a connection stays open without a request (`--idle-timeout`, default
    /// 60 s), also the most a client takes to read an answer.
    pub idle_timeout: Duration,
    /// Most time to receive a request's whole body (`--body-timeout`, default 60 s);
    /// 408 past it.
    pub body_timeout: Duration,
    /// Most time from the first byte of a request to its answer (`--request-timeout`,
    /// default 120 s); the connection is closed past it.
    pub request_timeout: Duration,
    /// Most bytes of request bodies held at once across all connections
    /// (`--max-body-memory`, default 128 MiB; never below [`consign::limits::MAX_BODY`]).
    pub max_body_memory: usize,
    /// Most time a shutdown waits for the requests in flight (`--shutdown-timeout`,
    /// default 10 s) before it drops their connections.
    pub shutdown_timeout: Duration,
    /// The key that seals provider account credentials and payment tokens at rest
    /// ([`consign::ShippingBuilder::secret_key`]); when the server starts it seals those
    /// stored in clear before ([`consign::Shipping::seal_stored_secrets`]). `None` stores
    /// them as sent. `consign serve` always gives one (`--secret-key-file`).
    pub secret_key: Option<[u8; consign::SECRET_KEY_LEN]>,
    /// The requests each API key may make (`--rate-limit`, `--rate-burst`;
    /// [`RateLimit::default`]); `None`: no limit.
    pub rate_limit: Option<RateLimit>,
    /// When expired quotes are purged (`--purge-quotes-every`, `--purge-quotes-after`;
    /// [`QuotePurge::default`]); `None`: never.
    pub purge_quotes: Option<QuotePurge>,
    /// The most quoted shipments each customer may store per UTC day
    /// (`--quotes-per-day`; [`consign::ShippingBuilder::quoted_shipments_per_day`]).
    pub quotes_per_day: u64,
    /// Allow webhook endpoints at `http://` URLs and private or loopback addresses
    /// (`--allow-http-webhooks`): for tests with a receiver on this machine only.
    pub allow_http_webhooks: bool,
    /// Most time one webhook delivery attempt takes, from resolving the endpoint's host
    /// to its answer's status line (`--webhook-timeout`, default 15 s).
    pub webhook_timeout: Duration,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("db", &self.db)
            .field("postgres", &self.postgres.as_ref().map(|_| consign::MASK))
            .field("listen", &self.listen)
            .field("cors_origin", &self.cors_origin)
            .field("pool", &self.pool)
            .field("log", &self.log)
            .field("synchronous", &self.synchronous)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("max_connections", &self.max_connections)
            .field("header_timeout", &self.header_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_body_memory", &self.max_body_memory)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("secret_key", &self.secret_key.map(|_| consign::MASK))
            .field("rate_limit", &self.rate_limit)
            .field("purge_quotes", &self.purge_quotes)
            .field("quotes_per_day", &self.quotes_per_day)
            .field("allow_http_webhooks", &self.allow_http_webhooks)
            .field("webhook_timeout", &self.webhook_timeout)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// The defaults for the database at `db`: [`DEFAULT_LISTEN`], no CORS, a pool of
    /// twice the processors (at least 4), logging on, plain HTTP, and the limits of their
    /// fields' docs.
    pub fn new(db: impl Into<PathBuf>) -> Config {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Config {
            db: db.into(),
            postgres: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            cors_origin: None,
            pool: (2 * cores).max(4),
            log: true,
            synchronous: consign::Synchronous::Full,
            clock: None,
            tls_cert: None,
            tls_key: None,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(120),
            max_body_memory: 128 * 1024 * 1024,
            shutdown_timeout: Duration::from_secs(10),
            secret_key: None,
            rate_limit: Some(RateLimit::default()),
            purge_quotes: Some(QuotePurge::default()),
            quotes_per_day: consign::DEFAULT_QUOTED_SHIPMENTS_PER_DAY,
            allow_http_webhooks: false,
            webhook_timeout: Duration::from_secs(15),
        }
    }

    /// The defaults of [`Config::new`] for the PostgreSQL database at `url` (see
    /// [`Config::postgres`]), with a pool of [`postgres_pool`] requests at once.
    pub fn postgres(url: impl Into<String>) -> Config {
        Config { postgres: Some(url.into()), pool: postgres_pool(), ..Config::new("") }
    }
}

/// The requests a server on PostgreSQL runs at once unless told otherwise: four per
/// processor, at least 8, as they mostly wait for the database.
pub fn postgres_pool() -> usize {
    (4 * std::thread::available_parallelism().map_or(2, usize::from)).max(8)
}

/// A running server: started by [`Server::start`], stopped by [`Server::shutdown`] or by
/// SIGTERM or Ctrl-C when run by [`run`].
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Opens the database, binds the address and serves on threads of its own; returns
    /// once the server accepts connections.
    ///
    /// # Errors
    /// When the database does not open (its message) or the address cannot be bound.
    pub fn start(config: Config) -> std::io::Result<Server> {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        Server::spawn(config, || async {
            let _ = stopped.await;
        })
        .map(|(addr, thread)| Server { addr, stop: Some(stop), thread: Some(thread) })
    }

    /// Serves `config` on threads of its own until the future `shutdown` makes (inside
    /// the runtime, before the address is returned) resolves.
    fn spawn<F: std::future::Future<Output = ()> + Send + 'static>(
        config: Config,
        shutdown: impl FnOnce() -> F,
    ) -> std::io::Result<(SocketAddr, std::thread::JoinHandle<std::io::Result<()>>)> {
        let tls = match (&config.tls_cert, &config.tls_key) {
            (Some(cert), Some(key)) => Some(transport::acceptor(cert, key)?),
            (None, None) => None,
            _ => {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "HTTPS needs both a certificate and its private key"));
            }
        };
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let (app, Threads { writer, kept }, deliverer) = app(&config)?;
        runtime.spawn(deliverer);
        let listener = runtime.block_on(tokio::net::TcpListener::bind(config.listen))?;
        let addr = listener.local_addr()?;
        let shutdown = {
            let _runtime = runtime.enter();
            shutdown()
        };
        if tls.is_none() && !addr.ip().is_loopback() {
            eprintln!(
                "consign: warning: serving plain HTTP on {addr}, beyond this machine: API keys and customers' data cross the network \
                 in clear. Serve HTTPS (--tls-cert FILE --tls-key FILE) or listen on 127.0.0.1 behind a TLS proxy."
            );
        }
        let limits = transport::Limits {
            header_timeout: config.header_timeout,
            idle_timeout: config.idle_timeout,
            request_timeout: config.request_timeout,
            max_connections: config.max_connections,
            shutdown_timeout: config.shutdown_timeout,
        };
        let thread = std::thread::Builder::new().name("consign-serve".into()).spawn(move || {
            runtime.block_on(transport::serve(listener, app, limits, tls, shutdown));
            // Reads still running on blocking threads finish on their own; nothing waits
            // for them.
            runtime.shutdown_background();
            drop(kept);
            // The router, and with it the writer's queue, is gone: the writer ends once
            // it has committed what was queued.
            match writer {
                Some(writer) => writer.join().map_err(|_| std::io::Error::other("the writer thread panicked")),
                None => Ok(()),
            }
        })?;
        Ok((addr, thread))
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections, lets the requests in flight finish for up to
    /// [`Config::shutdown_timeout`] (then drops their connections), and returns once the
    /// writer has committed what was queued.
    ///
    /// # Errors
    /// When serving failed.
    pub fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.wait()
    }

    fn wait(&mut self) -> std::io::Result<()> {
        match self.thread.take().map(std::thread::JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(std::io::Error::other("the server thread panicked")),
        }
    }
}

/// Serves until SIGTERM or Ctrl-C, then lets the requests in flight finish for up to
/// [`Config::shutdown_timeout`].
/// `listening` is told the address once connections are accepted.
///
/// # Errors
/// When the database does not open, the address cannot be bound or serving fails.
pub fn run(config: Config, listening: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let (addr, thread) = Server::spawn(config, stop_signal)?;
    listening(addr);
    let mut server = Server { addr, stop: None, thread: Some(thread) };
    server.wait()
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT). The handlers are installed at once (within a
/// runtime), so that a signal sent as soon as the server says it listens stops it
/// gracefully rather than ending the process.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (terminate, interrupt) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt()));
        async move {
            let (Ok(mut terminate), Ok(mut interrupt)) = (terminate, interrupt) else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The fixed pool of services on the database file (on PostgreSQL, the one service of
/// the server, as many times as requests may run at once).
struct Pool {
    free: Mutex<Vec<Arc<Shipping>>>,
    permits: Arc<Semaphore>,
}

/// A service taken from the pool; it goes back when the lease is dropped, even when the
/// request's task fails.
struct Lease {
    pool: Arc<Pool>,
    shipping: Option<Arc<Shipping>>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(shipping) = self.shipping.take() {
            self.pool.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(shipping);
        }
    }
}

impl Pool {
    async fn lease(self: &Arc<Self>) -> Option<Lease> {
        let permit = Arc::clone(&self.permits).acquire_owned().await.ok()?;
        let shipping = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop()?;
        Some(Lease { pool: Arc::clone(self), shipping: Some(shipping), _permit: permit })
    }
}

/// The service that checks a request's key before its body is read (see
/// [`App::authenticate`]).
#[expect(clippy::large_enum_variant, reason = "one per server, never moved after start")]
enum Gate {
    /// On the file: a connection kept for it, read on the async thread.
    File(Mutex<Shipping>),
    /// On PostgreSQL: a few connections of its own, read on a blocking thread.
    #[cfg_attr(not(feature = "postgres"), expect(dead_code, reason = "only a server on PostgreSQL has one"))]
    Postgres(Arc<Shipping>),
}

/// What every request shares.
struct App {
    pool: Arc<Pool>,
    /// The connection that checks a request's key before its body is read (see
    /// [`App::authenticate`]).
    gate: Gate,
    /// The queue of the writer thread (see the crate docs).
    writes: writer::Writes,
    /// The buckets of the API keys, when requests are limited.
    limiter: Option<limits::Limiter>,
    /// Stops the purge of expired quotes with the server.
    _purge: Option<maintenance::Stop>,
    /// A permit per byte of request body that may be held at once
    /// ([`Config::max_body_memory`]).
    body_memory: Arc<Semaphore>,
    /// [`Config::body_timeout`].
    body_timeout: Duration,
    /// Wakes the deliverer of webhooks after each write that succeeded: it may have
    /// written events.
    wake: Arc<tokio::sync::Notify>,
}

impl App {
    /// The holder of `key` when it is a key in force, which the request's later steps
    /// take from here rather than reading the key again: one indexed read, on the async
    /// thread itself. It takes a few microseconds (the keys' pages stay in memory), far
    /// less than handing it to a blocking thread and back, which every request with a
    /// body would pay. On PostgreSQL the read is a round trip to the database: it runs
    /// on a blocking thread.
    async fn authenticate(&self, key: &str) -> Result<consign::Caller, Error> {
        match &self.gate {
            Gate::File(gate) => gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner).authenticate(key),
            Gate::Postgres(gate) => {
                let (gate, key) = (Arc::clone(gate), key.to_string());
                tokio::task::spawn_blocking(move || gate.authenticate(&key)).await.unwrap_or_else(|_| Err(failed()))
            }
        }
    }

    /// Room for `bytes` more bytes of request body, waiting up to [`BODY_MEMORY_WAIT`].
    async fn reserve(&self, bytes: usize) -> Result<Option<OwnedSemaphorePermit>, Refusal> {
        if bytes == 0 {
            return Ok(None);
        }
        let permits = u32::try_from(bytes).map_err(|_| Refusal::TooLarge(bytes))?;
        match tokio::time::timeout(BODY_MEMORY_WAIT, Arc::clone(&self.body_memory).acquire_many_owned(permits)).await {
            Ok(Ok(permit)) => Ok(Some(permit)),
            _ => Err(Refusal::NoRoom),
        }
    }

    /// The body of a request, at most `limit` bytes, `declared` long when the request
    /// says so, with the room it holds under [`Config::max_body_memory`].
    async fn read_body(
        &self,
        mut body: Body,
        declared: Option<u64>,
        limit: usize,
    ) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), Refusal> {
        use http_body_util::BodyExt as _;
        let reading = async {
            let declared = declared.map(|length| usize::try_from(length).unwrap_or(usize::MAX));
            if declared.is_some_and(|length| length > limit) {
                return Err(Refusal::TooLarge(limit));
            }
            let mut held = self.reserve(declared.unwrap_or(0)).await?;
            let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(1 << 20));
            while let Some(frame) = body.frame().await {
                let data = frame.map_err(|_| Refusal::Unreadable)?.into_data().unwrap_or_default();
                if bytes.len() + data.len() > limit {
                    return Err(Refusal::TooLarge(limit));
                }
                if declared.is_none() {
                    match (&mut held, self.reserve(data.len()).await?) {
                        (Some(held), Some(more)) => held.merge(more),
                        (held, more) => *held = held.take().or(more),
                    }
                }
                bytes.extend_from_slice(&data);
            }
            Ok((bytes, held))
        };
        tokio::time::timeout(self.body_timeout, reading).await.unwrap_or(Err(Refusal::Late(self.body_timeout)))
    }
}

/// Why a request's body was not read.
#[derive(Debug)]
enum Refusal {
    /// Longer than the limit of its route: 413.
    TooLarge(usize),
    /// Not received within the body timeout: 408 naming `body`.
    Late(Duration),
    /// No room under [`Config::max_body_memory`] within [`BODY_MEMORY_WAIT`]: 503 `BUSY`.
    NoRoom,
    /// The connection broke before the body's end.
    Unreadable,
}

impl Refusal {
    fn response(&self) -> Response {
        match self {
            Refusal::TooLarge(limit) => too_large(*limit),
            Refusal::Late(timeout) => {
                let late = Error::invalid("body", format!("the request body did not arrive within {} s", timeout.as_secs_f64()));
                let mut response = error(&late);
                *response.status_mut() = StatusCode::REQUEST_TIMEOUT;
                response
            }
            Refusal::NoRoom => error(
                &Error::new(consign::ErrorCategory::Busy, "The server holds as many request bodies as it may; retry shortly.")
                    .with_retry_after(1),
            ),
            Refusal::Unreadable => error(&Error::invalid("body", "the request body could not be read to its end")),
        }
    }
}

/// The checkpointer thread: a passive checkpoint after each group the writer committed
/// (those committed during one are covered by the next), until the writer ends.
fn checkpoint_loop(shipping: &Shipping, committed: &std::sync::mpsc::Receiver<()>) {
    while committed.recv().is_ok() {
        // A failed checkpoint leaves the log as it was: the next one, or the writer's
        // own past WRITER_AUTO_CHECKPOINT, copies it.
        let _ = shipping.checkpoint();
    }
}

/// A builder of services with the options of `config` its database aside.
fn builder(config: &Config) -> consign::ShippingBuilder {
    let builder = Shipping::builder().quoted_shipments_per_day(config.quotes_per_day).allow_http_webhooks(config.allow_http_webhooks);
    let builder = match &config.clock {
        Some(clock) => builder.clock(Arc::clone(clock)),
        None => builder,
    };
    match config.secret_key {
        Some(key) => builder.secret_key(key),
        None => builder,
    }
}

/// The services of a server and where its writes go.
struct Services {
    pool: Arc<Pool>,
    gate: Gate,
    writes: writer::Writes,
    /// The service of the purge thread, when quotes are purged.
    purger: Option<Shipping>,
    /// The writer thread (SQLite only).
    writer: Option<std::thread::JoinHandle<()>>,
    /// The services on PostgreSQL, held until the runtime has stopped: closing a
    /// connection of the synchronous client blocks, which a runtime's thread may not.
    kept: Vec<Arc<Shipping>>,
}

/// The services of a server on the database file of `config`: the readers, the writer
/// thread and the checkpointer thread (see the crate docs).
fn file_services(config: &Config) -> std::io::Result<Services> {
    let open = |auto_checkpoint: u32| {
        builder(config)
            .path(&config.db)
            .synchronous(config.synchronous)
            .auto_checkpoint(auto_checkpoint)
            .open()
            .map_err(|e| std::io::Error::other(format!("{}: {}", config.db.display(), e.message())))
    };
    let size = config.pool.max(1);
    // Readers write only labels rendered on first retrieval (`lazy_labels`, which the
    // server does not use): SQLite's default checkpointing serves them.
    let free = (0..size).map(|_| open(1000).map(Arc::new)).collect::<std::io::Result<Vec<_>>>()?;
    let pool = Arc::new(Pool { free: Mutex::new(free), permits: Arc::new(Semaphore::new(size)) });
    let (writer, checkpointer) = (open(WRITER_AUTO_CHECKPOINT)?, open(0)?);
    let sealed = writer.seal_stored_secrets().map_err(|e| std::io::Error::other(format!("{}: {}", config.db.display(), e.message())))?;
    if sealed > 0 && config.log {
        eprintln!("consign: sealed {sealed} secrets that were stored in clear");
    }
    let (writes, queue) = writer::queue();
    let (committed, due) = std::sync::mpsc::sync_channel(1);
    let checkpointer =
        std::thread::Builder::new().name("consign-checkpointer".into()).spawn(move || checkpoint_loop(&checkpointer, &due))?;
    let writer = std::thread::Builder::new().name("consign-writer".into()).spawn(move || {
        writer::write_loop(&writer, &queue, &committed);
        drop(committed);
        // The checkpointer ends once it has seen the last group.
        let _ = checkpointer.join();
    })?;
    let purger = match config.purge_quotes {
        Some(_) => Some(open(1000)?),
        None => None,
    };
    Ok(Services { pool, gate: Gate::File(Mutex::new(open(1000)?)), writes, purger, writer: Some(writer), kept: Vec::new() })
}

/// The services of a server on the PostgreSQL database at `url`: one service on a pool
/// of [`Config::pool`] connections, which reads and writes share, each request on a
/// blocking thread of its own; the key check and the purge have a connection each.
/// No writer thread and no checkpoints: PostgreSQL groups commits itself.
#[cfg(feature = "postgres")]
fn postgres_services(config: &Config, url: &str) -> std::io::Result<Services> {
    // The message never repeats the URL: it may hold a password.
    let open = |connections: usize| {
        builder(config)
            .postgres(url)
            .postgres_pool(connections)
            .open()
            .map_err(|e| std::io::Error::other(format!("the PostgreSQL database: {}", e.message())))
    };
    let size = config.pool.max(1);
    let shipping = Arc::new(open(size)?);
    let sealed = shipping.seal_stored_secrets().map_err(|e| std::io::Error::other(format!("the PostgreSQL database: {}", e.message())))?;
    if sealed > 0 && config.log {
        eprintln!("consign: sealed {sealed} secrets that were stored in clear");
    }
    let free = vec![Arc::clone(&shipping); size];
    let pool = Arc::new(Pool { free: Mutex::new(free), permits: Arc::new(Semaphore::new(size)) });
    let gate = Arc::new(open(GATE_CONNECTIONS)?);
    let purger = match config.purge_quotes {
        Some(_) => Some(open(1)?),
        None => None,
    };
    Ok(Services {
        kept: vec![shipping, Arc::clone(&gate)],
        gate: Gate::Postgres(gate),
        writes: writer::Writes::Parallel(Arc::clone(&pool)),
        pool,
        purger,
        writer: None,
    })
}

/// Connections of a server on PostgreSQL that check keys before bodies are read.
#[cfg(feature = "postgres")]
const GATE_CONNECTIONS: usize = 4;

/// Without the feature `postgres`, a server on PostgreSQL does not start.
#[cfg(not(feature = "postgres"))]
fn postgres_services(_config: &Config, _url: &str) -> std::io::Result<Services> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this build of consign has no PostgreSQL support: build it with `--features postgres`",
    ))
}

/// What outlives a server's runtime: the writer thread (SQLite only), which ends once
/// the router is gone, and the services on PostgreSQL, dropped after the runtime (see
/// [`Services`]).
struct Threads {
    writer: Option<std::thread::JoinHandle<()>>,
    kept: Vec<Arc<Shipping>>,
}

/// The routes, the layers, the services and the writer thread (SQLite only) of `config`,
/// the services to drop once the runtime has stopped, and the deliverer of webhooks, to
/// run on the runtime.
fn app(config: &Config) -> std::io::Result<(Router, Threads, impl std::future::Future<Output = ()> + Send + 'static)> {
    let Services { pool, gate, writes, purger, writer, kept } = match &config.postgres {
        Some(url) => postgres_services(config, url)?,
        None => file_services(config)?,
    };
    let body_memory = Arc::new(Semaphore::new(config.max_body_memory.clamp(MAX_BODY, Semaphore::MAX_PERMITS)));
    let purge = match (config.purge_quotes, purger) {
        (Some(purge), Some(purger)) => Some(maintenance::spawn(purger, writes.downgrade(), purge, config.log)?),
        _ => None,
    };
    let limiter = config.rate_limit.map(limits::Limiter::new);
    let wake = Arc::new(tokio::sync::Notify::new());
    let state = Arc::new(App {
        pool,
        gate,
        writes,
        limiter,
        _purge: purge,
        body_memory,
        body_timeout: config.body_timeout,
        wake: Arc::clone(&wake),
    });
    let outbound = Arc::new(outbound::Outbound::new(config.allow_http_webhooks, config.webhook_timeout));
    let deliverer = webhooks::deliver(Arc::clone(&state), outbound, config.webhook_timeout, wake);
    let mut router =
        Router::new().route("/healthz", get(healthz)).route("/restapi/v1/openapi.json", get(openapi)).fallback(interface).with_state(state);
    if let Some(origin) = &config.cors_origin {
        let origin = HeaderValue::from_str(origin)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a valid origin: {origin:?}")))?;
        router = router.layer(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
                .allow_headers([AUTHORIZATION, CONTENT_TYPE])
                .max_age(Duration::from_secs(3600)),
        );
    }
    if config.log {
        router = router.layer(axum::middleware::from_fn(log));
    }
    Ok((router, Threads { writer, kept }, deliverer))
}

/// One line per request on stderr: method, path (without the query), status and
/// duration. Never a body or a header: they carry keys and customers' data.
async fn log(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    eprintln!("{method} {path} {} {:.1}ms", response.status().as_u16(), start.elapsed().as_secs_f64() * 1000.0);
    response
}

/// `GET /healthz`: the server is up (no key needed).
async fn healthz() -> Response {
    json(StatusCode::OK, r#"{"status":"ok"}"#.to_string())
}

/// The OpenAPI document of the interface (`docs/openapi.json`), built into the binary.
const OPENAPI: &str = include_str!("../../docs/openapi.json");

/// The header that makes a retried POST safe: its answer is kept for the key
/// ([`consign::Shipping::handle_once_as`]).
const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// `GET /restapi/v1/openapi.json`: the document of every route (no key needed).
async fn openapi() -> Response {
    json(StatusCode::OK, OPENAPI.to_string())
}

/// Every other request: the interface, answered by `Shipping::handle_documents_as`.
async fn interface(State(app): State<Arc<App>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Some(key) = api_key(&parts.headers).map(str::to_string) else {
        return error(&consign::key_required());
    };
    if let Some(Err(refused)) = app.limiter.as_ref().map(|limiter| limiter.take(&key, Instant::now())) {
        return error(&refused);
    }
    // The key before any byte of the body. A request without a body has none to read:
    // core authenticates it with its answer.
    let caller = if axum::body::HttpBody::is_end_stream(&body) {
        None
    } else {
        match app.authenticate(&key).await {
            Ok(caller) => Some(caller),
            Err(e) => return error(&e),
        }
    };
    let path = parts.uri.path().to_string();
    // The table says how each operation is served; a request no operation serves is
    // answered by core, as a write, without reading more than a small body.
    let routed = consign::route(parts.method.as_str(), &path);
    let operation = routed.as_ref().ok().copied();
    let allow = match &routed {
        Err(consign::Unrouted::MethodNotAllowed(methods)) => methods.join(", "),
        _ => String::new(),
    };
    let limit = operation.map_or(consign::limits::MAX_SMALL_BODY, consign::Operation::body_limit);
    let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    // The room held for the body is given back once the request is answered.
    let (bytes, _held) = match app.read_body(body, declared, limit).await {
        Ok(read) => read,
        Err(refusal) => return refusal.response(),
    };
    let Ok(body) = String::from_utf8(bytes) else {
        return error(&Error::invalid("body", "expected JSON in UTF-8, found bytes that are not UTF-8"));
    };
    let target = parts.uri.path_and_query().map_or_else(|| path.clone(), |pq| pq.as_str().to_string());
    // The key of a request that writes; other requests ignore it.
    let once = match parts.headers.get(IDEMPOTENCY_KEY) {
        Some(value) if operation.is_none_or(consign::Operation::writes) => {
            let key = value.to_str().unwrap_or("\u{fffd}");
            match consign::IdempotencyKey::new(key, parts.method.as_str(), &target, &body) {
                Ok(once) => Some(once),
                Err(e) => return error(&e),
            }
        }
        _ => None,
    };
    let call = Call { key, method: parts.method.as_str().to_string(), target, body, password: None, once, caller };
    if operation.is_some_and(logins::serves) {
        let answer = logins::answer(&app, call).await;
        if answer.status < 300 {
            app.wake.notify_one();
        }
        return respond(&allow, answer);
    }
    let answered = if operation.is_some_and(priced::serves) {
        priced::answer(&app.pool, &app.writes, call).await
    } else if operation.is_none_or(consign::Operation::writes) {
        let (answer, answered) = tokio::sync::oneshot::channel();
        if app.writes.send(Write { request: call, answer }).await.is_err() {
            return error(&failed());
        }
        answered.await.ok()
    } else {
        let Some(lease) = app.pool.lease().await else {
            return error(&Error::internal("No database connection of the server was free for this request."));
        };
        tokio::task::spawn_blocking(move || lease.shipping.as_ref().map(|shipping| call.answer(shipping))).await.ok().flatten()
    };
    match answered {
        Some(answer) => {
            if answer.status < 300 && operation.is_none_or(consign::Operation::writes) {
                app.wake.notify_one();
            }
            respond(&allow, answer)
        }
        None => error(&failed()),
    }
}

/// The API key of `Authorization: RSIS <key>` or `Bearer <key>`: the scheme in any case,
/// spaces around the parts tolerated.
fn api_key(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, key) = value.split_once(|c: char| c.is_ascii_whitespace())?;
    let key = key.trim();
    let known = scheme.eq_ignore_ascii_case("RSIS") || scheme.eq_ignore_ascii_case("Bearer");
    (known && !key.is_empty()).then_some(key)
}

/// The HTTP answer for core's `answer`: a document as its bytes, else the JSON; a 405
/// names the methods `allow` lists.
fn respond(allow: &str, answer: consign::Response) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Some(document) = answer.document {
        return (status, [(CONTENT_TYPE, HeaderValue::from_static(document.content_type))], document.bytes).into_response();
    }
    let mut response = json(status, answer.body);
    let headers = response.headers_mut();
    if status == StatusCode::METHOD_NOT_ALLOWED {
        if let Ok(allow) = HeaderValue::from_str(allow) {
            headers.insert(ALLOW, allow);
        }
    }
    if let Some(seconds) = answer.retry_after {
        headers.insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// A JSON answer: `body` ending with a newline, so that answers printed one after the
/// other (`curl` in a shell) stand on lines of their own.
fn json(status: StatusCode, mut body: String) -> Response {
    if !body.ends_with('\n') {
        body.push('\n');
    }
    (status, [(CONTENT_TYPE, HeaderValue::from_static("application/json"))], Body::from(body)).into_response()
}

fn error(e: &Error) -> Response {
    let answer = consign::Response::error(e);
    let mut response = json(StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), answer.body);
    if let Some(seconds) = answer.retry_after {
        response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// 413 with core's `LIMIT_EXCEEDED` body for a body over `limit` bytes, which core
/// answers 400 in process.
fn too_large(limit: usize) -> Response {
    json(StatusCode::PAYLOAD_TOO_LARGE, consign::Response::body_over(limit).body)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use super::*;

    #[test]
    fn the_key_is_read_after_rsis_or_bearer_in_any_case_with_spaces() {
        let key = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            api_key(&headers).map(str::to_string)
        };
        for value in ["RSIS csk_K1_x", "rsis csk_K1_x", "  Rsis   csk_K1_x  ", "Bearer csk_K1_x", "bearer\tcsk_K1_x"] {
            assert_eq!(key(value).as_deref(), Some("csk_K1_x"), "{value:?}");
        }
        for value in ["", "RSIS", "RSIS   ", "Basic csk_K1_x", "csk_K1_x", "RSIScsk_K1_x"] {
            assert_eq!(key(value), None, "{value:?}");
        }
        assert_eq!(api_key(&HeaderMap::new()), None);
    }
}
