//! `consign serve`'s options as a process: the warning for plain HTTP beyond loopback,
//! the limits in its usage text and their checks, and SIGTERM's deadline over a stalled
//! client.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A directory of its own for the test `name`.
fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("consign-serve-{name}"))
}

/// `consign serve` with `args`: the process and its address, read from the line it
/// prints once it listens.
fn serve(args: &[&str]) -> (Child, String) {
    let (child, line) = common::spawn_listening(Command::new(env!("CARGO_BIN_EXE_consign")).arg("serve").args(args).stderr(Stdio::piped()));
    let addr = line.trim().rsplit_once("://").map(|(_, addr)| addr.to_string()).unwrap_or_else(|| panic!("{line:?}"));
    (child, addr)
}

/// Stops `child` by SIGTERM and returns what it wrote on stderr.
fn terminate(mut child: Child) -> String {
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    stderr
}

#[test]
fn plain_http_beyond_loopback_is_warned_about_at_start() {
    let dir = dir("warn");
    let db = dir.join("shop.db");
    let (child, _) = serve(&["--db", db.to_str().unwrap(), "--listen", "0.0.0.0:0"]);
    let stderr = terminate(child);
    assert!(stderr.contains("warning: serving plain HTTP"), "{stderr}");
    let (child, _) = serve(&["--db", db.to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let stderr = terminate(child);
    assert!(!stderr.contains("warning"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_limit_is_in_the_usage_text_and_checked() {
    let help = Command::new(env!("CARGO_BIN_EXE_consign")).args(["serve", "--help"]).output().unwrap();
    let usage = String::from_utf8(help.stdout).unwrap();
    for option in [
        "--tls-cert",
        "--tls-key",
        "--max-connections",
        "--header-timeout",
        "--body-timeout",
        "--request-timeout",
        "--idle-timeout",
        "--max-body-memory",
        "--shutdown-timeout",
    ] {
        assert!(usage.contains(option), "{option} missing from {usage}");
    }
    for (args, message) in [
        (&["--max-connections", "0"][..], "invalid value '0' for '--max-connections <N>': expected a positive whole number"),
        (&["--idle-timeout", "soon"][..], "invalid value 'soon' for '--idle-timeout <SECS>': expected a positive whole number"),
        (&["--max-body-memory", "8"][..], "invalid value '8' for '--max-body-memory <MIB>': at least 16"),
        (&["--tls-cert", "cert.pem"][..], "the following required arguments were not provided:\n  --tls-key <FILE>"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_consign")).arg("serve").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn sigterm_stops_the_server_at_its_deadline_whatever_a_stalled_client_does() {
    let dir = dir("deadline");
    let db = dir.join("shop.db");
    let key = consign::Shipping::open(&db).unwrap().create_api_key(None, "till").unwrap().key;
    let (child, addr) = serve(&["--db", db.to_str().unwrap(), "--listen", "127.0.0.1:0", "--shutdown-timeout", "1"]);
    // A body declared and never sent: without a deadline it would hold the shutdown for
    // the body timeout (60 s).
    let mut stalled = std::net::TcpStream::connect(&addr).unwrap();
    let head = format!(
        "POST /restapi/v1/customers/C0000001/quote HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {key}\r\nContent-Length: 100\r\n\r\n{{"
    );
    stalled.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    terminate(child);
    let mut rest = Vec::new();
    let _ = stalled.read_to_end(&mut rest);
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    std::fs::remove_dir_all(&dir).unwrap();
}
