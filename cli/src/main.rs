//! `consign`: the command-line face of the consign library (`consign --help`, and
//! `consign COMMAND --help` for each command).
//!
//! - `consign demo [--db FILE] [--force]` runs the main job on a fresh database with the
//!   embedded default catalog and prints readable tables; by default in a new folder under
//!   `target/`, and never over an existing database or file without `--force`.
//! - `consign call METHOD PATH [BODY | @FILE]` runs one request of the interface against a
//!   database file and prints the JSON answer.
//! - `consign import KIND FILE` and `consign export KIND` replace and print rate data or
//!   the catalog.
//! - `consign purge-quotes --older-than-days N` removes the quotes expired N days or more
//!   and prints how many.
//! - `consign purge-events` removes the events older than 90 days (each customer's newest
//!   stays) and prints how many.
//! - `consign serve` serves the interface over HTTP or HTTPS (crate `consign-server`) until
//!   SIGTERM or Ctrl-C, within the limits its options set.
//! - `consign keys create|list|revoke|disconnect` issues, lists and revokes the API keys of
//!   `serve`, and undoes a partner key's link to a customer.
//! - `serve`, `call` and `keys` take `--secret-key-file PATH` (or
//!   `CONSIGN_SECRET_KEY_FILE`), the key that seals secrets at rest; by default `DB.key`
//!   beside the database, which `serve` creates and `call` and `keys` use when it exists.
//! - Every command but `demo` takes `--db FILE`, or a PostgreSQL connection string or URL
//!   (`postgres://...`, `postgresql://...`, `host=...`; feature `postgres`), or, without
//!   `--db`, the one in `CONSIGN_DATABASE_URL`, which keeps a password out of the list of
//!   processes. No message repeats a URL: it may hold a password.
//!
//! Usage errors (clap) and failures are printed on stderr and exit with status 2; `call`
//! exits with 1 when the interface answered 4xx or 5xx.

mod demo;
mod table;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The rate data kinds and the catalog, as `import` and `export` name them.
const KINDS: [&str; 8] = ["carriers", "exchange-rates", "zones", "rates", "surcharges", "transit", "calendars", "catalog"];

/// An embeddable shipping service: quoting, booking, tracking, pickups, manifests and
/// prepay accounting on one SQLite file.
#[derive(Parser)]
#[command(name = "consign", version, arg_required_else_help = true, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the main job on a fresh database with the embedded default catalog.
    ///
    /// Creates a customer, quotes a shipment with every service, books the cheapest,
    /// writes its label and a manifest as PDF, and prints what each step answered. By
    /// default it works in a new folder under target/ of the current directory
    /// (target/consign-demo, else target/consign-demo-2, ...) and says where.
    Demo(DemoArgs),
    /// Run one request of the interface against a database and print the JSON answer.
    ///
    /// The status goes to stderr as `HTTP 201`; the exit status is 1 when it is 400 or
    /// more.
    Call(CallArgs),
    /// Replace rate data or the catalog from a file (checked row by row, applied whole).
    Import(ImportArgs),
    /// Print rate data (CSV) or the catalog (JSON).
    Export(ExportArgs),
    /// Remove the quotes expired N days or more (those kept by batches excepted).
    PurgeQuotes(PurgeArgs),
    /// Remove the events older than 90 days, but each customer's newest (it numbers the next).
    PurgeEvents {
        #[command(flatten)]
        db: Db,
    },
    /// Serve the interface over HTTP, or HTTPS with a certificate, until SIGTERM or Ctrl-C.
    Serve(Box<ServeArgs>),
    /// Issue, list and revoke the API keys of `serve`, and disconnect partner keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

/// The database of a command.
#[derive(Args)]
struct Db {
    /// The database file (created if missing), or a PostgreSQL connection string or URL
    /// (postgres://..., postgresql://..., host=...; in a build with `--features postgres`).
    /// Give a URL holding a password in CONSIGN_DATABASE_URL instead: other users of the
    /// machine can read a command's arguments.
    #[arg(long, value_name = "FILE|URL", env = "CONSIGN_DATABASE_URL", hide_env_values = true, default_value = "consign.db")]
    db: PathBuf,
}

/// The message of a command given a PostgreSQL database by a build without the feature.
const NO_POSTGRES: &str = "--db (or CONSIGN_DATABASE_URL) names a PostgreSQL database, and this consign was built without \
                           PostgreSQL support: build it with `--features postgres` (cargo build --release -p consign-cli --features postgres)";

/// Where a command's data is.
#[derive(Debug, PartialEq)]
enum Database {
    /// An SQLite file.
    File(PathBuf),
    /// A PostgreSQL connection string or URL; it may hold a password.
    Postgres(String),
}

impl Db {
    /// The database `--db` (or `CONSIGN_DATABASE_URL`) names.
    fn database(&self) -> Database {
        match postgres_url(&self.db) {
            Some(url) => Database::Postgres(url.to_string()),
            None => Database::File(self.db.clone()),
        }
    }
}

/// `db` when it is a PostgreSQL URL (`postgres://`, `postgresql://`) or a libpq
/// connection string (`host=... dbname=...`), not a file's path.
fn postgres_url(db: &Path) -> Option<&str> {
    let text = db.to_str()?;
    let lower = text.trim_start().to_ascii_lowercase();
    let url = lower.starts_with("postgres://") || lower.starts_with("postgresql://");
    let keywords = ["host=", "hostaddr=", "port=", "dbname=", "user="];
    (url || keywords.iter().any(|k| lower.starts_with(k))).then_some(text)
}

/// `message` without `url` and without the password in it, should it quote them.
fn scrub(message: &str, url: &str) -> String {
    let mut text = message.replace(url, "(the database's URL)");
    if let Some(password) = password_of(url).filter(|p| !p.is_empty()) {
        text = text.replace(password, "***");
    }
    text
}

/// The password in a PostgreSQL URL (`postgres://user:password@host`) or connection
/// string (`password=...`), as written.
fn password_of(url: &str) -> Option<&str> {
    if let Some((_, rest)) = url.split_once("://") {
        let authority = rest.split(['/', '?']).next()?;
        let (credentials, _) = authority.rsplit_once('@')?;
        return credentials.split_once(':').map(|(_, password)| password);
    }
    let (_, value) = url.split_once("password")?;
    let value = value.trim_start().strip_prefix('=')?.trim_start();
    match value.strip_prefix('\'') {
        Some(quoted) => quoted.split('\'').next(),
        None => value.split_whitespace().next(),
    }
}

/// The database file and the secret key that seals secrets at rest in it.
#[derive(Args)]
struct SealedDb {
    #[command(flatten)]
    db: Db,
    /// The 32-byte key sealing provider credentials and payment tokens [default: DB.key
    /// beside the database, which serve creates (mode 0600) and call and keys use when
    /// it exists].
    #[arg(long, value_name = "PATH", env = "CONSIGN_SECRET_KEY_FILE")]
    secret_key_file: Option<PathBuf>,
}

#[derive(Args)]
struct DemoArgs {
    /// The database to create [default: demo.db in a new folder under target/]; the
    /// label and manifest PDFs are written beside it.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Replace the database and the PDFs when they exist.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
struct CallArgs {
    /// The HTTP method: GET, POST, PUT, DELETE.
    method: String,
    /// The path, e.g. /restapi/v1/customers/C0000001/services.
    path: String,
    /// The JSON body, or @FILE for the content of FILE.
    body: Option<String>,
    #[command(flatten)]
    db: SealedDb,
}

#[derive(Args)]
struct ImportArgs {
    /// What FILE holds: rate data as CSV (docs/rate-cards.md) or the catalog as JSON.
    #[arg(value_parser = KINDS)]
    kind: String,
    /// The file to import.
    file: PathBuf,
    #[command(flatten)]
    db: Db,
}

#[derive(Args)]
struct ExportArgs {
    /// What to print: rate data as CSV (docs/rate-cards.md) or the catalog as JSON.
    #[arg(value_parser = KINDS)]
    kind: String,
    #[command(flatten)]
    db: Db,
}

#[derive(Args)]
struct PurgeArgs {
    /// Remove the quotes expired this many days or more.
    #[arg(long, value_name = "N", value_parser = days)]
    older_than_days: u32,
    #[command(flatten)]
    db: Db,
}

/// How `serve` commits: waiting for the disk, or not.
#[derive(Clone, Copy, ValueEnum)]
enum Commits {
    /// Every commit waits for the disk: nothing answered is lost on a power loss.
    Full,
    /// Faster; a power loss may lose the last acknowledged writes.
    Normal,
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    db: SealedDb,
    /// The address to listen on [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR", value_parser = address)]
    listen: Option<std::net::SocketAddr>,
    /// The origin of browser pages allowed to call the server (CORS).
    #[arg(long, value_name = "ORIGIN")]
    cors_origin: Option<String>,
    /// Connections to the file serving reads [default: twice the processors, at least 4];
    /// on PostgreSQL, requests run at once, each on a connection of the database
    /// [default: four per processor, at least 8].
    #[arg(long, value_name = "N", value_parser = positive)]
    pool: Option<usize>,
    /// How commits to a file wait for the disk [default: full]; not for PostgreSQL,
    /// whose own settings (synchronous_commit) say that.
    #[arg(long, value_enum, ignore_case = true)]
    synchronous: Option<Commits>,
    /// The PEM certificate chain, leaf first, to serve HTTPS (with --tls-key).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of the certificate (with --tls-cert).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Connections open at once; more wait to be accepted.
    #[arg(long, value_name = "N", value_parser = positive, default_value = "1024", help_heading = "Limits")]
    max_connections: usize,
    /// From a request's first byte to the end of its headers.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "10", help_heading = "Limits")]
    header_timeout: usize,
    /// To receive a request's body, else 408.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "60", help_heading = "Limits")]
    body_timeout: usize,
    /// From a request's first byte to its answer.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "120", help_heading = "Limits")]
    request_timeout: usize,
    /// A connection without a request, or a client reading its answer.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "60", help_heading = "Limits")]
    idle_timeout: usize,
    /// Request bodies held at once, all connections; at least 16 (the largest body).
    #[arg(long, value_name = "MIB", value_parser = body_memory, default_value = "128", help_heading = "Limits")]
    max_body_memory: usize,
    /// On SIGTERM or Ctrl-C, for the requests in flight to finish.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "10", help_heading = "Limits")]
    shutdown_timeout: usize,
    /// Requests a second per API key; 0: no limit.
    #[arg(long, value_name = "N", default_value = "50", help_heading = "Limits")]
    rate_limit: u32,
    /// Requests an API key may make at once.
    #[arg(long, value_name = "N", default_value = "200", help_heading = "Limits")]
    rate_burst: u32,
    /// Quoted shipments a customer may store per UTC day.
    #[arg(long, value_name = "N", default_value_t = consign::DEFAULT_QUOTED_SHIPMENTS_PER_DAY, help_heading = "Limits")]
    quotes_per_day: u64,
    /// Purge expired quotes at start and every H hours; 0: never.
    #[arg(long, value_name = "H", default_value = "24", help_heading = "Limits")]
    purge_quotes_every: u64,
    /// The purge removes the quotes expired D days or more.
    #[arg(long, value_name = "D", default_value = "7", help_heading = "Limits")]
    purge_quotes_after: u32,
    /// One webhook delivery attempt, from resolving the endpoint's host to its answer.
    #[arg(long, value_name = "SECS", value_parser = positive, default_value = "15", help_heading = "Webhooks")]
    webhook_timeout: usize,
    /// Allow webhook endpoints at http:// URLs and at private or loopback addresses: for
    /// tests with a receiver on this machine, never on a server customers reach.
    #[arg(long, help_heading = "Webhooks")]
    allow_http_webhooks: bool,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Issue an API key (for one customer, else a partner key) and print it once.
    Create {
        /// The customer the key acts for alone [default: a partner key, acting for the
        /// customers it creates or connects].
        #[arg(long, value_name = "ID")]
        customer: Option<String>,
        /// A name to tell the key by.
        #[arg(long, value_name = "TEXT", default_value = "")]
        name: String,
        #[command(flatten)]
        db: SealedDb,
    },
    /// List the API keys (never the keys themselves).
    List {
        #[command(flatten)]
        db: SealedDb,
    },
    /// Revoke an API key.
    Revoke {
        /// The key's id, e.g. K0000001.
        id: String,
        #[command(flatten)]
        db: SealedDb,
    },
    /// Disconnect a partner key from a customer (it no longer acts for it).
    Disconnect {
        /// The partner key's id, e.g. K0000001.
        key: String,
        /// The customer, e.g. C0000001.
        customer: String,
        #[command(flatten)]
        db: SealedDb,
    },
}

/// A whole number of days (0 or more).
fn days(value: &str) -> Result<u32, String> {
    value.parse().map_err(|_| format!("expected a whole number of days, found {value:?}"))
}

/// A positive whole number.
fn positive(value: &str) -> Result<usize, String> {
    value.parse().ok().filter(|n| *n > 0).ok_or_else(|| format!("expected a positive whole number, found {value:?}"))
}

/// Mebibytes for request bodies: at least 16, the largest body.
fn body_memory(value: &str) -> Result<usize, String> {
    let mib = positive(value)?;
    if mib < 16 {
        return Err(format!("at least 16 (MiB, the largest body), found {mib}"));
    }
    Ok(mib)
}

/// An address to listen on.
fn address(value: &str) -> Result<std::net::SocketAddr, String> {
    value.parse().map_err(|_| format!("expected an address like 127.0.0.1:8080, found {value:?}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("consign: {message}");
            ExitCode::from(2)
        }
    }
}

/// An error with every field detail, one per line (import errors name their lines).
fn describe(e: &consign::Error) -> String {
    let mut text = e.message().to_string();
    for d in e.details() {
        text.push_str(&format!("\n  {}: {}", d.field, d.message));
    }
    text
}

/// The key that seals secrets at rest in the database `db` (README, "The secret key
/// file"): read from `given`, else from `DB.key` beside the database when it exists.
/// With `create` (`consign serve`) a missing `DB.key` is created, and said so once.
/// `None`: no key (`call` and `keys` on a database that was never served).
///
/// A PostgreSQL database has no `DB.key`: `serve` needs `given`, and creates it when
/// missing; every server of the database must then be given the same file.
fn secret_key(given: Option<PathBuf>, database: &Database, create: bool) -> Result<Option<[u8; consign::SECRET_KEY_LEN]>, String> {
    let given = given.filter(|p| !p.as_os_str().is_empty());
    let db = match database {
        Database::File(path) => path.display().to_string(),
        Database::Postgres(_) => return postgres_secret_key(given, create),
    };
    let (path, explicit) = match given {
        Some(path) => (path, true),
        None => (PathBuf::from(format!("{db}.key")), false),
    };
    if !explicit && !path.exists() {
        if !create {
            return Ok(None);
        }
        let key = consign::create_secret_key_file(&path).map_err(|e| e.to_string())?;
        eprintln!(
            "consign: created the secret key file {} (mode 0600): it seals provider credentials and payment tokens in {db}; \
             back it up, apart from the database, and keep it with it",
            path.display()
        );
        return Ok(Some(key));
    }
    let key = consign::read_secret_key_file(&path).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
            eprintln!("consign: warning: the secret key file {} can be read by other users; chmod 600 it", path.display());
        }
    }
    Ok(Some(key))
}

/// [`secret_key`] for a PostgreSQL database: the file `given`, created by `serve` (with
/// `create`) when missing.
fn postgres_secret_key(given: Option<PathBuf>, create: bool) -> Result<Option<[u8; consign::SECRET_KEY_LEN]>, String> {
    let Some(path) = given else {
        if create {
            return Err("on PostgreSQL, serve needs --secret-key-file PATH (or CONSIGN_SECRET_KEY_FILE): the key that seals \
                        secrets at rest, the same file for every server of the database (created when missing)"
                .to_string());
        }
        return Ok(None);
    };
    if create && !path.exists() {
        let key = consign::create_secret_key_file(&path).map_err(|e| e.to_string())?;
        eprintln!(
            "consign: created the secret key file {} (mode 0600): it seals provider credentials and payment tokens in the \
             PostgreSQL database; give this same file to every server of that database, and back it up apart from the database",
            path.display()
        );
        return Ok(Some(key));
    }
    consign::read_secret_key_file(&path).map(Some).map_err(|e| e.to_string())
}

/// Opens `database`, with the secret key `key` when there is one. A failure's message
/// never repeats a PostgreSQL URL.
fn open_database(database: &Database, key: Option<[u8; consign::SECRET_KEY_LEN]>) -> Result<consign::Shipping, String> {
    let builder = match database {
        Database::File(path) => consign::Shipping::builder().path(path),
        Database::Postgres(url) => on_postgres(consign::Shipping::builder(), url)?,
    };
    let builder = match key {
        Some(key) => builder.secret_key(key),
        None => builder,
    };
    builder.open().map_err(|e| match database {
        Database::File(_) => e.to_string(),
        Database::Postgres(url) => scrub(&format!("the PostgreSQL database: {e}"), url),
    })
}

/// `builder` on the PostgreSQL database at `url`.
#[cfg(feature = "postgres")]
fn on_postgres(builder: consign::ShippingBuilder, url: &str) -> Result<consign::ShippingBuilder, String> {
    Ok(builder.postgres(url))
}

/// Without the feature `postgres`: the error saying to build with it.
#[cfg(not(feature = "postgres"))]
fn on_postgres(_builder: consign::ShippingBuilder, _url: &str) -> Result<consign::ShippingBuilder, String> {
    Err(NO_POSTGRES.to_string())
}

/// Opens the database of `sealed` with its secret key, if any.
fn open(sealed: SealedDb) -> Result<consign::Shipping, String> {
    let database = sealed.db.database();
    if matches!(database, Database::Postgres(_)) && !cfg!(feature = "postgres") {
        return Err(NO_POSTGRES.to_string());
    }
    let key = secret_key(sealed.secret_key_file, &database, false)?;
    open_database(&database, key)
}

/// Writes `text` to stdout, ending it with a newline if it has none. A closed pipe
/// (`consign call ... | head`) is not an error of the command.
fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Demo(args) => demo::run(args.db, args.force).map(|()| ExitCode::SUCCESS),
        Command::Call(args) => call(args),
        Command::Import(ImportArgs { kind, file, db }) => {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let shipping = open_database(&db.database(), None)?;
            if kind == "catalog" {
                shipping.import_catalog(&text).map_err(|e| describe(&e))?;
                println!("imported the catalog from {}", file.display());
            } else {
                let kind_of: consign::CsvKind = kind.parse().map_err(|_| format!("unknown kind {kind:?}"))?;
                let summary = shipping.import_rates(kind_of, &text).map_err(|e| describe(&e))?;
                println!("imported {} rows of {kind} from {} ({} replaced)", summary.rows, file.display(), summary.replaced);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Export(ExportArgs { kind, db }) => {
            let shipping = open_database(&db.database(), None)?;
            let text = if kind == "catalog" {
                shipping.export_catalog()
            } else {
                shipping.export_rates(kind.parse().map_err(|_| format!("unknown kind {kind:?}"))?)
            }
            .map_err(|e| describe(&e))?;
            print(&text);
            Ok(ExitCode::SUCCESS)
        }
        Command::PurgeQuotes(PurgeArgs { older_than_days: days, db }) => {
            let shipping = open_database(&db.database(), None)?;
            let removed = shipping.purge_expired_quotes(days).map_err(|e| describe(&e))?;
            println!("removed {removed} quotes expired {days} days or more");
            Ok(ExitCode::SUCCESS)
        }
        Command::PurgeEvents { db } => {
            let shipping = open_database(&db.database(), None)?;
            let mut removed = 0;
            loop {
                let part = shipping.purge_expired_events(PURGE_EVENTS_PART).map_err(|e| describe(&e))?;
                removed += part;
                if part < u64::from(PURGE_EVENTS_PART) {
                    break;
                }
            }
            println!("removed {removed} events older than {} days", consign::EVENTS_KEPT_DAYS);
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => serve(*args),
        Command::Keys { command } => keys(command),
    }
}

/// Events `consign purge-events` removes per transaction, so that other writers of the
/// file wait for a part at a time, never for the whole purge.
const PURGE_EVENTS_PART: u32 = 10_000;

/// `consign call`: one request, its JSON answer pretty-printed.
fn call(args: CallArgs) -> Result<ExitCode, String> {
    let body = match args.body {
        None => String::new(),
        Some(b) => match b.strip_prefix('@') {
            Some(file) => std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?,
            None => b,
        },
    };
    let shipping = open(args.db)?;
    let response = shipping.handle(&args.method, &args.path, &body);
    let pretty =
        serde_json::from_str::<serde_json::Value>(&response.body).and_then(|v| serde_json::to_string_pretty(&v)).unwrap_or(response.body);
    print(&pretty);
    eprintln!("HTTP {}", response.status);
    Ok(if response.status < 400 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `consign serve`: the interface over HTTP until SIGTERM or Ctrl-C.
fn serve(args: ServeArgs) -> Result<ExitCode, String> {
    let database = args.db.db.database();
    let (mut config, key_file) = server_config(args)?;
    let (db, url) = match &database {
        Database::File(path) => (path.display().to_string(), None),
        Database::Postgres(url) => ("the PostgreSQL database".to_string(), Some(url.as_str())),
    };
    let scheme = if config.tls_cert.is_some() { "https" } else { "http" };
    config.secret_key = secret_key(key_file, &database, true)?;
    consign_server::run(config, |addr| {
        // Tests and scripts read the address (port 0 picks one) from this line.
        println!("consign: serving {db} on {scheme}://{addr}");
    })
    .map_err(|e| match url {
        Some(url) => scrub(&e.to_string(), url),
        None => e.to_string(),
    })?;
    eprintln!("consign: stopped");
    Ok(ExitCode::SUCCESS)
}

/// The server's configuration from the options of `serve`, and the secret key file named.
///
/// # Errors
/// A PostgreSQL database in a build without the feature, or with `--synchronous`.
fn server_config(args: ServeArgs) -> Result<(consign_server::Config, Option<PathBuf>), String> {
    let mut config = match args.db.db.database() {
        Database::File(path) => consign_server::Config::new(path),
        Database::Postgres(_) if !cfg!(feature = "postgres") => return Err(NO_POSTGRES.to_string()),
        Database::Postgres(_) if args.synchronous.is_some() => {
            return Err("--synchronous is for SQLite files; on PostgreSQL, its own setting synchronous_commit \
                        (and a synchronous standby) say how commits wait"
                .to_string())
        }
        Database::Postgres(url) => consign_server::Config::postgres(url),
    };
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    config.cors_origin = args.cors_origin;
    if let Some(pool) = args.pool {
        config.pool = pool;
    }
    config.synchronous = match args.synchronous.unwrap_or(Commits::Full) {
        Commits::Full => consign::Synchronous::Full,
        Commits::Normal => consign::Synchronous::Normal,
    };
    config.tls_cert = args.tls_cert;
    config.tls_key = args.tls_key;
    config.max_connections = args.max_connections;
    config.max_body_memory = args.max_body_memory.saturating_mul(1024 * 1024);
    let secs = |n: usize| std::time::Duration::from_secs(n as u64);
    config.header_timeout = secs(args.header_timeout);
    config.body_timeout = secs(args.body_timeout);
    config.request_timeout = secs(args.request_timeout);
    config.idle_timeout = secs(args.idle_timeout);
    config.shutdown_timeout = secs(args.shutdown_timeout);
    if let Some(limit) = config.rate_limit.as_mut() {
        limit.per_second = args.rate_limit;
        limit.burst = args.rate_burst.max(1);
    }
    if args.rate_limit == 0 {
        config.rate_limit = None;
    }
    config.quotes_per_day = args.quotes_per_day;
    config.webhook_timeout = secs(args.webhook_timeout);
    config.allow_http_webhooks = args.allow_http_webhooks;
    if let Some(purge) = config.purge_quotes.as_mut() {
        purge.every = std::time::Duration::from_secs(args.purge_quotes_every.saturating_mul(3600));
        purge.expired_for_days = args.purge_quotes_after;
    }
    if args.purge_quotes_every == 0 {
        config.purge_quotes = None;
    }
    Ok((config, args.db.secret_key_file))
}

/// `consign keys create|list|revoke|disconnect`.
fn keys(command: KeysCommand) -> Result<ExitCode, String> {
    match command {
        KeysCommand::Create { customer, name, db } => {
            let new = open(db)?.create_api_key(customer.as_deref(), &name).map_err(|e| describe(&e))?;
            let acts_for = new.info.customer_id.as_deref().map_or("a partner key".to_string(), |c| format!("for customer {c}"));
            eprintln!("consign: API key {} ({acts_for}); it is shown this once, keep it safe:", new.info.id);
            println!("{}", new.key);
        }
        KeysCommand::List { db } => {
            let keys = open(db)?.api_keys().map_err(|e| describe(&e))?;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{:<10} {:<10} {:<21} {:<21} name", "id", "customer", "created", "revoked");
            for k in keys {
                let _ = writeln!(
                    out,
                    "{:<10} {:<10} {:<21} {:<21} {}",
                    k.id,
                    k.customer_id.as_deref().unwrap_or("(partner)"),
                    k.created_at,
                    k.revoked_at.as_deref().unwrap_or("-"),
                    k.name
                );
            }
        }
        KeysCommand::Revoke { id, db } => {
            let key = open(db)?.revoke_api_key(&id).map_err(|e| describe(&e))?;
            println!("revoked API key {} at {}", key.id, key.revoked_at.unwrap_or_default());
        }
        KeysCommand::Disconnect { key, customer, db } => {
            open(db)?.disconnect_partner(consign::CustomerId(&customer), &key).map_err(|e| describe(&e))?;
            println!("disconnected API key {key} from customer {customer}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code: a panic is a failed test")]

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory as _;
        Cli::command().debug_assert();
    }

    #[test]
    fn postgres_urls_and_connection_strings_name_postgres_and_anything_else_a_file() {
        for db in ["postgres://u:p@h/db", "postgresql://h/db", "POSTGRES://h", "host=h dbname=db", "dbname=db", "user=u host=h"] {
            assert_eq!(postgres_url(Path::new(db)), Some(db), "{db}");
        }
        for db in ["consign.db", "./postgres://x", "data/host=1.db", "hosts.db", "/tmp/postgres.db"] {
            assert_eq!(postgres_url(Path::new(db)), None, "{db}");
        }
    }

    #[test]
    fn scrub_removes_the_url_and_its_password_from_a_message() {
        let url = "postgres://ann:s3cret@db.example.com:5432/shop?sslmode=require";
        assert_eq!(password_of(url), Some("s3cret"));
        assert_eq!(scrub(&format!("cannot open {url}: bad password s3cret"), url), "cannot open (the database's URL): bad password ***");
        assert_eq!(password_of("host=h password = 'a b' dbname=x"), Some("a b"));
        assert_eq!(password_of("host=h password=pw dbname=x"), Some("pw"));
        assert_eq!(password_of("postgres://ann@h/db"), None);
        assert_eq!(scrub("refused", "host=h"), "refused");
    }

    #[test]
    fn serve_without_options_has_the_defaults_of_the_server() {
        let Command::Serve(args) = Cli::try_parse_from(["consign", "serve"]).unwrap().command else { panic!("not serve") };
        let (ours, key_file) = server_config(*args).unwrap();
        let theirs = consign_server::Config::new("consign.db");
        assert_eq!(key_file, std::env::var_os("CONSIGN_SECRET_KEY_FILE").map(PathBuf::from));
        assert_eq!(
            (ours.db, ours.listen, ours.pool, ours.max_connections),
            (theirs.db, theirs.listen, theirs.pool, theirs.max_connections)
        );
        assert_eq!(
            [ours.header_timeout, ours.body_timeout, ours.request_timeout, ours.idle_timeout, ours.shutdown_timeout],
            [theirs.header_timeout, theirs.body_timeout, theirs.request_timeout, theirs.idle_timeout, theirs.shutdown_timeout]
        );
        assert_eq!((ours.max_body_memory, ours.quotes_per_day), (theirs.max_body_memory, theirs.quotes_per_day));
        assert_eq!(ours.rate_limit.map(|l| (l.per_second, l.burst)), theirs.rate_limit.map(|l| (l.per_second, l.burst)));
        assert_eq!(ours.purge_quotes.map(|p| (p.every, p.expired_for_days)), theirs.purge_quotes.map(|p| (p.every, p.expired_for_days)));
        assert_eq!((ours.webhook_timeout, ours.allow_http_webhooks), (theirs.webhook_timeout, theirs.allow_http_webhooks));
        assert!(matches!(ours.synchronous, consign::Synchronous::Full));
        assert!(ours.tls_cert.is_none() && ours.tls_key.is_none() && ours.cors_origin.is_none());
    }
}
