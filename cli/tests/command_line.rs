//! The command line's conventions: `--help` prints help and does nothing else,
//! `--version`, usage errors on stderr with exit status 2, answers that end with a
//! newline, a demo that never replaces a database or a file without `--force`, and demo
//! tables a user reads right.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `consign` with `args` in the directory `dir`, without a secret key file from the
/// environment; killed, and the test failed, if it has not ended after a minute (a
/// `serve --help` that served would never end).
fn consign_in(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_consign"))
        .args(args)
        .current_dir(dir)
        .env_remove("CONSIGN_SECRET_KEY_FILE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("consign {args:?} had not ended after a minute");
}

/// The names of the files and folders under `dir`, sorted, relative to it.
fn files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    found.sort();
    found
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const COMMANDS: [&[&str]; 13] = [
    &[],
    &["demo"],
    &["call"],
    &["import"],
    &["export"],
    &["purge-quotes"],
    &["purge-events"],
    &["serve"],
    &["keys"],
    &["keys", "create"],
    &["keys", "list"],
    &["keys", "revoke"],
    &["keys", "disconnect"],
];

#[test]
fn help_of_every_command_prints_its_usage_and_does_nothing_else() {
    let dir = common::fresh_dir("consign-cli-help");
    for command in COMMANDS {
        for flag in ["--help", "-h"] {
            // Before the other options too: `demo --help --db x.db` creates nothing either.
            for args in [[command, &[flag]].concat(), [command, &[flag, "--db", "x.db"]].concat()] {
                let out = consign_in(&dir, &args);
                assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
                let usage = format!("Usage: consign {}", command.join(" "));
                assert!(text(&out.stdout).contains(usage.trim_end()), "{args:?}: {}", text(&out.stdout));
                assert_eq!(text(&out.stderr), "", "{args:?}");
                assert_eq!(files(&dir), Vec::<String>::new(), "{args:?} left files behind");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn version_prints_the_name_and_version() {
    let dir = common::fresh_dir("consign-cli-version");
    for flag in ["--version", "-V"] {
        let out = consign_in(&dir, &[flag]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stdout), format!("consign {}\n", env!("CARGO_PKG_VERSION")));
    }
    assert_eq!(files(&dir), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_usage_error_exits_2_with_the_message_and_usage_on_stderr_and_does_nothing() {
    let dir = common::fresh_dir("consign-cli-usage");
    for (args, message) in [
        (&[][..], "Usage: consign <COMMAND>"),
        (&["ship"][..], "error: unrecognized subcommand 'ship'"),
        (&["demo", "--dbb", "x.db"][..], "error: unexpected argument '--dbb' found"),
        (&["demo", "--db"][..], "error: a value is required for '--db <FILE>' but none was supplied"),
        (&["call", "GET"][..], "error: the following required arguments were not provided:\n  <PATH>"),
        (&["export", "rate", "--db", "x.db"][..], "error: invalid value 'rate' for '<KIND>'"),
        (&["serve", "--listen", "localhost"][..], "error: invalid value 'localhost' for '--listen <ADDR>'"),
        (&["serve", "--synchronous", "off"][..], "error: invalid value 'off' for '--synchronous <SYNCHRONOUS>'"),
        (&["keys", "revoke"][..], "error: the following required arguments were not provided:\n  <ID>"),
    ] {
        let out = consign_in(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: consign") || stderr.contains("For more information, try '--help'."), "{args:?}: {stderr}");
        assert_eq!(files(&dir), Vec::<String>::new(), "{args:?} left files behind");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failure_exits_2_with_the_message_on_stderr() {
    let dir = common::fresh_dir("consign-cli-failure");
    let out = consign_in(&dir, &["import", "rates", "missing.csv", "--db", "shop.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).starts_with("consign: cannot read missing.csv: "), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_demo_works_in_a_new_folder_under_target_each_time_and_says_where() {
    let dir = common::fresh_dir("consign-cli-demo-folder");
    for folder in ["target/consign-demo", "target/consign-demo-2"] {
        let out = consign_in(&dir, &["demo"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.starts_with(&format!("consign demo on {folder}/demo.db ")), "{stdout}");
        assert!(stdout.contains(&format!("The database is {folder}/demo.db and the PDFs are in {folder};")), "{stdout}");
    }
    let made = files(&dir);
    assert_eq!(made.iter().filter(|f| !f.starts_with("target")).count(), 0, "{made:?}");
    for folder in ["target/consign-demo", "target/consign-demo-2"] {
        for file in ["demo.db", "label-1000000001-1.pdf", "manifest-M0000001.pdf"] {
            assert!(made.contains(&format!("{folder}/{file}")), "{folder}/{file} not in {made:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_demo_refuses_an_existing_database_or_file_without_force() {
    let dir = common::fresh_dir("consign-cli-demo-force");
    let db = dir.join("shop.db");
    std::fs::write(&db, "not to be replaced").unwrap();
    let out = consign_in(&dir, &["demo", "--db", "shop.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), "consign: shop.db exists; the demo starts from a fresh database and replaces one only with --force\n");
    assert_eq!(std::fs::read_to_string(&db).unwrap(), "not to be replaced");
    assert_eq!(files(&dir), ["shop.db"]);

    let out = consign_in(&dir, &["demo", "--db", "shop.db", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(consign::Shipping::open(&db).unwrap().prepay("C0000001").is_ok(), "the database is the demo's");

    // A fresh database beside the PDFs of an earlier demo: the label is not replaced.
    let label = dir.join("label-1000000001-1.pdf");
    std::fs::write(&label, "an earlier label").unwrap();
    let out = consign_in(&dir, &["demo", "--db", "other.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "consign: ./label-1000000001-1.pdf exists; the demo replaces files only with --force\n");
    assert_eq!(std::fs::read_to_string(&label).unwrap(), "an earlier label");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_answer_printed_ends_with_a_newline() {
    let dir = common::fresh_dir("consign-cli-newline");
    for args in [
        &["call", "POST", "/restapi/v1/customers", &common::ann_customer(), "--db", "shop.db"][..],
        &["call", "GET", "/restapi/v1/customers/C0000001/prepay", "--db", "shop.db"],
        &["call", "GET", "/restapi/v1/customers/C9999999/prepay", "--db", "shop.db"],
        &["export", "catalog", "--db", "shop.db"],
        &["export", "carriers", "--db", "shop.db"],
        &["keys", "create", "--db", "shop.db"],
        &["keys", "list", "--db", "shop.db"],
        &["purge-quotes", "--older-than-days", "7", "--db", "shop.db"],
        &["purge-events", "--db", "shop.db"],
        &["demo", "--db", "demo.db"],
    ] {
        let out = consign_in(&dir, args);
        let stdout = text(&out.stdout);
        assert!(!stdout.is_empty() && stdout.ends_with('\n'), "{args:?}: {stdout:?} {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whole cents of a money cell such as `37.51`.
fn cents(cell: &str) -> i64 {
    let (whole, frac) = cell.split_once('.').unwrap_or_else(|| panic!("{cell:?} is not money with two decimals"));
    assert_eq!(frac.len(), 2, "{cell:?}");
    whole.parse::<i64>().unwrap() * 100 + frac.parse::<i64>().unwrap()
}

/// The rows of the table under the header line starting with `header`, as cells.
fn table(out: &str, header: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = out.lines().skip_while(|l| !l.starts_with(header)).skip(2).take_while(|l| !l.is_empty()).collect();
    assert!(!lines.is_empty(), "no table {header:?} in {out}");
    lines.iter().map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()).collect()
}

#[test]
fn the_demo_shows_money_in_money_columns_weights_with_their_unit_and_times_with_their_zone() {
    let dir = common::fresh_dir("consign-cli-demo-columns");
    let out = consign_in(&dir, &["demo", "--db", "demo.db"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("billed weight       base USD  surcharges USD  total USD  arrives"), "{stdout}");
    let quotes = table(&stdout, "quote  carrier");
    for row in &quotes {
        let [_, _, _, _, weight, base, surcharges, total, _] = row.as_slice() else { panic!("{row:?}") };
        let (number, basis) = weight.split_once(" lb (").unwrap_or_else(|| panic!("{weight:?} has no unit"));
        assert!(number.parse::<f64>().is_ok() && (basis == "actual)" || basis == "dimensional)"), "{weight:?}");
        assert_eq!(cents(base) + cents(surcharges), cents(total), "{row:?}");
    }
    assert!(quotes.iter().any(|row| cents(&row[6]) > 0), "some quote has surcharges");
    for row in table(&stdout, "time  ") {
        assert!(row[0].ends_with(" UTC"), "{row:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
