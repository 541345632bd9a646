//! `consign`: the command-line face of the consign library.
//!
//! - `consign demo [--db FILE]` runs the main job on a fresh database with the embedded
//!   default catalog and prints readable tables.
//! - `consign call METHOD PATH [BODY | @FILE] [--db FILE]` runs one request of the
//!   interface against a database file and prints the JSON answer.
//! - `consign purge-quotes --older-than-days N [--db FILE]` removes the quotes expired N
//!   days or more and prints how many.
//! - `consign serve [--db FILE] [--listen ADDR] [--cors-origin ORIGIN] [--pool N] [--synchronous full|normal]
//!   [--tls-cert FILE --tls-key FILE] [LIMITS]` serves the interface over HTTP or HTTPS (crate
//!   `consign-server`) until SIGTERM or Ctrl-C; the limits are listed in the usage text
//!   (connections and timeouts; tenants: `--rate-limit N`, `--rate-burst N`,
//!   `--quotes-per-day N`, `--purge-quotes-every HOURS`, `--purge-quotes-after DAYS`).
//! - `consign keys create|list|revoke` issues, lists and revokes the API keys of `serve`;
//!   `consign keys disconnect KEY CUSTOMER` undoes a partner key's link to a customer.
//! - `serve`, `call` and `keys` take `--secret-key-file PATH` (or
//!   `CONSIGN_SECRET_KEY_FILE`), the key that seals secrets at rest; by default `DB.key`
//!   beside the database, which `serve` creates and `call` and `keys` use when it exists.

mod demo;
mod demo_deliver;
mod table;

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage:
  consign demo [--db FILE]                              run the main job on a fresh database (default: consign-demo.db)
  consign call METHOD PATH [BODY | @FILE] [--db FILE] [--secret-key-file PATH]
                                                        one request against a database (default: consign.db)
  consign import KIND FILE [--db FILE]                  replace rate data or the catalog from a file
  consign export KIND [--db FILE]                       print rate data or the catalog
  consign purge-quotes --older-than-days N [--db FILE]  remove the quotes expired N days or more (kept by batches excepted)
  consign serve [--db FILE] [--listen ADDR] [--cors-origin ORIGIN] [--pool N] [--synchronous full|normal]
                [--tls-cert FILE --tls-key FILE] [--secret-key-file PATH] [LIMITS]
                                                        serve the interface over HTTP (default: 127.0.0.1:8080), or HTTPS with
                                                        the PEM certificate chain and key, until SIGTERM or Ctrl-C
      LIMITS (default):
        --max-connections N      connections open at once; more wait to be accepted (1024)
        --header-timeout SECS    from a request's first byte to the end of its headers (10)
        --body-timeout SECS      to receive a request's body, else 408 (60)
        --request-timeout SECS   from a request's first byte to its answer (120)
        --idle-timeout SECS      a connection without a request, or reading an answer (60)
        --max-body-memory MIB    request bodies held at once, all connections; at least 16 (128)
        --shutdown-timeout SECS  on SIGTERM or Ctrl-C, for the requests in flight to finish (10)
        --rate-limit N           requests a second per API key; 0: no limit (50)
        --rate-burst N           requests an API key may make at once (200)
        --quotes-per-day N       quoted shipments a customer may store per UTC day (100000)
        --purge-quotes-every H   purge expired quotes at start and every H hours; 0: never (24)
        --purge-quotes-after D   the quotes expired D days or more (7)
  consign keys create [--customer ID] [--name TEXT] [--db FILE]
                                                        issue an API key (for one customer, else a partner key) and print it once
  consign keys list [--db FILE]                         list the API keys (never the keys themselves)
  consign keys revoke ID [--db FILE]                    revoke an API key
  consign keys disconnect KEY CUSTOMER [--db FILE]      disconnect a partner key from a customer (it no longer acts for it)
    --secret-key-file PATH (or CONSIGN_SECRET_KEY_FILE): the 32-byte key sealing provider credentials and payment
      tokens; default DB.key beside the database, which serve creates (mode 0600) and call and keys use when it exists
    KIND: carriers, exchange-rates, zones, rates, surcharges, transit, calendars (CSV, docs/rate-cards.md) or catalog (JSON)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("consign: {message}");
            ExitCode::from(2)
        }
    }
}

/// The rate data kind named on the command line.
fn csv_kind(name: &str) -> Result<consign::CsvKind, String> {
    name.parse().map_err(|_| format!("unknown kind {name:?}\n{USAGE}"))
}

/// An error with every field detail, one per line (import errors name their lines).
fn describe(e: &consign::Error) -> String {
    let mut text = e.message().to_string();
    for d in e.details() {
        text.push_str(&format!("\n  {}: {}", d.field, d.message));
    }
    text
}

/// Takes `--db FILE` out of `args`.
fn take_db(args: &mut Vec<String>, default: &str) -> Result<String, String> {
    Ok(take_option(args, "--db")?.unwrap_or_else(|| default.to_string()))
}

/// Takes `flag VALUE` out of `args`.
fn take_option(args: &mut Vec<String>, flag: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == flag) {
        Some(i) => {
            if i + 1 >= args.len() {
                return Err(format!("{flag} needs a value"));
            }
            let value = args.remove(i + 1);
            args.remove(i);
            Ok(Some(value))
        }
        None => Ok(None),
    }
}

/// Takes `flag N`, a positive whole number, out of `args`.
fn take_count(args: &mut Vec<String>, flag: &str) -> Result<Option<usize>, String> {
    take_option(args, flag)?
        .map(|value| {
            value.parse().ok().filter(|n| *n > 0).ok_or_else(|| format!("{flag}: expected a positive whole number, found {value:?}"))
        })
        .transpose()
}

/// Takes `--secret-key-file PATH` out of `args`, else reads `CONSIGN_SECRET_KEY_FILE`.
fn take_secret_key_file(args: &mut Vec<String>) -> Result<Option<std::path::PathBuf>, String> {
    let given = take_option(args, "--secret-key-file")?.or_else(|| std::env::var("CONSIGN_SECRET_KEY_FILE").ok().filter(|v| !v.is_empty()));
    Ok(given.map(std::path::PathBuf::from))
}

/// The key that seals secrets at rest in the database `db` (README, "The secret key
/// file"): read from `given`, else from `DB.key` beside the database when it exists.
/// With `create` (`consign serve`) a missing `DB.key` is created, and said so once.
/// `None`: no key (`call` and `keys` on a database that was never served).
fn secret_key(given: Option<std::path::PathBuf>, db: &str, create: bool) -> Result<Option<[u8; consign::SECRET_KEY_LEN]>, String> {
    let (path, explicit) = match given {
        Some(path) => (path, true),
        None => (std::path::PathBuf::from(format!("{db}.key")), false),
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

/// Opens the database `db` with the secret key `key`.
fn open(db: &str, key: Option<[u8; consign::SECRET_KEY_LEN]>) -> Result<consign::Shipping, String> {
    let builder = consign::Shipping::builder().path(db);
    let builder = match key {
        Some(key) => builder.secret_key(key),
        None => builder,
    };
    builder.open().map_err(|e| e.to_string())
}

/// `consign serve`: the interface over HTTP until SIGTERM or Ctrl-C.
fn serve(mut args: Vec<String>) -> Result<ExitCode, String> {
    let mut config = consign_server::Config::new(take_db(&mut args, "consign.db")?);
    let key_file = take_secret_key_file(&mut args)?;
    if let Some(listen) = take_option(&mut args, "--listen")? {
        config.listen = listen.parse().map_err(|_| format!("--listen: expected an address like 127.0.0.1:8080, found {listen:?}"))?;
    }
    config.cors_origin = take_option(&mut args, "--cors-origin")?;
    if let Some(pool) = take_option(&mut args, "--pool")? {
        config.pool = pool.parse().ok().filter(|n| *n > 0).ok_or_else(|| format!("--pool: expected a positive number, found {pool:?}"))?;
    }
    if let Some(mode) = take_option(&mut args, "--synchronous")? {
        config.synchronous = match mode.to_ascii_lowercase().as_str() {
            "full" => consign::Synchronous::Full,
            "normal" => consign::Synchronous::Normal,
            _ => return Err(format!("--synchronous: expected full or normal, found {mode:?}")),
        };
    }
    config.tls_cert = take_option(&mut args, "--tls-cert")?.map(Into::into);
    config.tls_key = take_option(&mut args, "--tls-key")?.map(Into::into);
    if config.tls_cert.is_some() != config.tls_key.is_some() {
        return Err("--tls-cert and --tls-key go together".into());
    }
    if let Some(n) = take_count(&mut args, "--max-connections")? {
        config.max_connections = n;
    }
    if let Some(mib) = take_count(&mut args, "--max-body-memory")? {
        if mib < 16 {
            return Err(format!("--max-body-memory: at least 16 (MiB, the largest body), found {mib}"));
        }
        config.max_body_memory = mib.saturating_mul(1024 * 1024);
    }
    for (flag, limit) in [
        ("--header-timeout", &mut config.header_timeout),
        ("--body-timeout", &mut config.body_timeout),
        ("--request-timeout", &mut config.request_timeout),
        ("--idle-timeout", &mut config.idle_timeout),
        ("--shutdown-timeout", &mut config.shutdown_timeout),
    ] {
        if let Some(secs) = take_count(&mut args, flag)? {
            *limit = std::time::Duration::from_secs(secs as u64);
        }
    }
    tenant_limits(&mut args, &mut config)?;
    if !args.is_empty() {
        return Err(USAGE.into());
    }
    let db = config.db.display().to_string();
    let scheme = if config.tls_cert.is_some() { "https" } else { "http" };
    config.secret_key = secret_key(key_file, &db, true)?;
    consign_server::run(config, |addr| {
        // Tests and scripts read the address (port 0 picks one) from this line.
        println!("consign: serving {db} on {scheme}://{addr}");
    })
    .map_err(|e| e.to_string())?;
    eprintln!("consign: stopped");
    Ok(ExitCode::SUCCESS)
}

/// Takes `flag N` out of `args`: a whole number.
fn take_number(args: &mut Vec<String>, flag: &str) -> Result<Option<u64>, String> {
    take_option(args, flag)?.map(|n| n.parse::<u64>().map_err(|_| format!("{flag}: expected a whole number, found {n:?}"))).transpose()
}

/// The options of `serve` that limit its tenants: rate limits, quoted shipments per day,
/// the purge of expired quotes.
fn tenant_limits(args: &mut Vec<String>, config: &mut consign_server::Config) -> Result<(), String> {
    let rate = take_number(args, "--rate-limit")?;
    let burst = take_number(args, "--rate-burst")?;
    let u32_of = |flag: &str, n: u64| u32::try_from(n).map_err(|_| format!("{flag}: at most {}, found {n}", u32::MAX));
    if let Some(limit) = config.rate_limit.as_mut() {
        if let Some(n) = rate {
            limit.per_second = u32_of("--rate-limit", n)?;
        }
        if let Some(n) = burst {
            limit.burst = u32_of("--rate-burst", n)?.max(1);
        }
    }
    if rate == Some(0) {
        config.rate_limit = None;
    }
    if let Some(n) = take_number(args, "--quotes-per-day")? {
        config.quotes_per_day = n;
    }
    let every = take_number(args, "--purge-quotes-every")?;
    let after = take_number(args, "--purge-quotes-after")?;
    if let Some(purge) = config.purge_quotes.as_mut() {
        if let Some(hours) = every {
            purge.every = std::time::Duration::from_secs(hours.saturating_mul(3600));
        }
        if let Some(days) = after {
            purge.expired_for_days = u32_of("--purge-quotes-after", days)?;
        }
    }
    if every == Some(0) {
        config.purge_quotes = None;
    }
    Ok(())
}

/// `consign keys create|list|revoke|disconnect`.
fn keys(mut args: Vec<String>) -> Result<ExitCode, String> {
    let db = take_db(&mut args, "consign.db")?;
    let customer = take_option(&mut args, "--customer")?;
    let name = take_option(&mut args, "--name")?.unwrap_or_default();
    let key_file = take_secret_key_file(&mut args)?;
    let shipping = open(&db, secret_key(key_file, &db, false)?)?;
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["create"] => {
            let new = shipping.create_api_key(customer.as_deref(), &name).map_err(|e| describe(&e))?;
            let acts_for = new.info.customer_id.as_deref().map_or("a partner key".to_string(), |c| format!("for customer {c}"));
            eprintln!("consign: API key {} ({acts_for}); it is shown this once, keep it safe:", new.info.id);
            println!("{}", new.key);
        }
        ["list"] => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{:<10} {:<10} {:<21} {:<21} name", "id", "customer", "created", "revoked");
            for k in shipping.api_keys().map_err(|e| describe(&e))? {
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
        ["revoke", id] => {
            let key = shipping.revoke_api_key(id).map_err(|e| describe(&e))?;
            println!("revoked API key {} at {}", key.id, key.revoked_at.unwrap_or_default());
        }
        ["disconnect", key, customer] => {
            shipping.disconnect_partner(customer, key).map_err(|e| describe(&e))?;
            println!("disconnected API key {key} from customer {customer}");
        }
        _ => return Err(USAGE.into()),
    }
    Ok(ExitCode::SUCCESS)
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let mut args = args.to_vec();
    let Some(command) = (!args.is_empty()).then(|| args.remove(0)) else {
        return Err(USAGE.into());
    };
    match command.as_str() {
        "demo" => {
            let db = take_db(&mut args, "consign-demo.db")?;
            demo::run(&db).map(|()| ExitCode::SUCCESS)
        }
        "call" => {
            let db = take_db(&mut args, "consign.db")?;
            let key_file = take_secret_key_file(&mut args)?;
            let (method, path, body) = match args.as_slice() {
                [m, p] => (m.clone(), p.clone(), String::new()),
                [m, p, b] => {
                    let body = match b.strip_prefix('@') {
                        Some(file) => std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?,
                        None => b.clone(),
                    };
                    (m.clone(), p.clone(), body)
                }
                _ => return Err(USAGE.into()),
            };
            let shipping = open(&db, secret_key(key_file, &db, false)?)?;
            let response = shipping.handle(&method, &path, &body);
            let pretty = serde_json::from_str::<serde_json::Value>(&response.body)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .unwrap_or(response.body);
            // A closed pipe (`consign call ... | head`) is not an error of the call.
            let _ = writeln!(std::io::stdout().lock(), "{pretty}");
            eprintln!("HTTP {}", response.status);
            Ok(if response.status < 400 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        "import" => {
            let db = take_db(&mut args, "consign.db")?;
            let [kind, file] = args.as_slice() else { return Err(USAGE.into()) };
            let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
            let shipping = consign::Shipping::open(&db).map_err(|e| e.to_string())?;
            if kind == "catalog" {
                shipping.import_catalog(&text).map_err(|e| describe(&e))?;
                println!("imported the catalog from {file}");
            } else {
                let summary = shipping.import_rates(csv_kind(kind)?, &text).map_err(|e| describe(&e))?;
                println!("imported {} rows of {kind} from {file} ({} replaced)", summary.rows, summary.replaced);
            }
            Ok(ExitCode::SUCCESS)
        }
        "export" => {
            let db = take_db(&mut args, "consign.db")?;
            let [kind] = args.as_slice() else { return Err(USAGE.into()) };
            let shipping = consign::Shipping::open(&db).map_err(|e| e.to_string())?;
            let text = if kind == "catalog" { shipping.export_catalog() } else { shipping.export_rates(csv_kind(kind)?) }
                .map_err(|e| describe(&e))?;
            let _ = write!(std::io::stdout().lock(), "{text}");
            Ok(ExitCode::SUCCESS)
        }
        "purge-quotes" => {
            let db = take_db(&mut args, "consign.db")?;
            let [flag, days] = args.as_slice() else { return Err(USAGE.into()) };
            if flag != "--older-than-days" {
                return Err(USAGE.into());
            }
            let days: u32 = days.parse().map_err(|_| format!("--older-than-days: expected a whole number of days, found {days:?}"))?;
            let shipping = consign::Shipping::open(&db).map_err(|e| e.to_string())?;
            let removed = shipping.purge_expired_quotes(days).map_err(|e| describe(&e))?;
            println!("removed {removed} quotes expired {days} days or more");
            Ok(ExitCode::SUCCESS)
        }
        "serve" => serve(args),
        "keys" => keys(args),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}
