//! `consign`: the command-line face of the consign library.
//!
//! - `consign demo [--db FILE]` runs the main job on a fresh database with the embedded
//!   default catalog and prints readable tables.
//! - `consign call METHOD PATH [BODY | @FILE] [--db FILE]` runs one request of the
//!   interface against a database file and prints the JSON answer.
//! - `consign purge-quotes --older-than-days N [--db FILE]` removes the quotes expired N
//!   days or more and prints how many.

mod demo;
mod demo_deliver;
mod table;

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage:
  consign demo [--db FILE]                              run the main job on a fresh database (default: consign-demo.db)
  consign call METHOD PATH [BODY | @FILE] [--db FILE]   one request against a database (default: consign.db)
  consign import KIND FILE [--db FILE]                  replace rate data or the catalog from a file
  consign export KIND [--db FILE]                       print rate data or the catalog
  consign purge-quotes --older-than-days N [--db FILE]  remove the quotes expired N days or more (kept by batches excepted)
    KIND: carriers, exchange-rates, zones, rates, surcharges (CSV, docs/rate-cards.md) or catalog (JSON)";

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
    match args.iter().position(|a| a == "--db") {
        Some(i) => {
            if i + 1 >= args.len() {
                return Err("--db needs a file name".into());
            }
            let path = args.remove(i + 1);
            args.remove(i);
            Ok(path)
        }
        None => Ok(default.to_string()),
    }
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
            let shipping = consign::Shipping::open(&db).map_err(|e| e.to_string())?;
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
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}
