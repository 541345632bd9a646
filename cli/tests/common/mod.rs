//! Helpers shared by the command line's test files: a fresh directory, `consign` run as
//! a process, `consign serve` started and its address read, a customer's JSON, and an
//! HTTP client that returns every status as an answer.

#![allow(dead_code, reason = "each test file uses only some of the helpers")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// A fresh directory of its own, `{name}-{pid}` in the temporary directory, emptied of
/// whatever an earlier run left in it.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `consign` with `args`, run to its end.
pub fn consign(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_consign")).args(args).output().unwrap()
}

/// Spawns `command` (a `consign serve`) with its stdout piped and reads the line it
/// prints once it listens: the process and that line.
pub fn spawn_listening(command: &mut Command) -> (Child, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (child, line)
}

/// `consign serve` on `db` at a free loopback port, with whatever else `configure` sets
/// on the command (environment, stderr): the process and its base URL.
pub fn serve(db: &Path, configure: impl FnOnce(&mut Command)) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_consign"));
    command.args(["serve", "--db", db.to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    configure(&mut command);
    let (child, line) = spawn_listening(&mut command);
    let base = line.trim().rsplit_once(" on ").map(|(_, url)| url.to_string()).unwrap_or_else(|| panic!("{line:?}"));
    (child, base)
}

/// Ann Lee's address in Philadelphia, as JSON.
pub const ANN_ADDRESS: &str = r#"{"name": "Ann Lee", "company": "", "address1": "200 Market St", "address2": "", "city": "Philadelphia",
        "state": "PA", "zip": "19106", "country": "US", "phone": "2155550142"}"#;

/// The JSON body creating the customer ann@example.com at [`ANN_ADDRESS`], prepaid.
pub fn ann_customer() -> String {
    let address = ANN_ADDRESS;
    format!(
        r#"{{"profileCode": "Default", "email": "ann@example.com", "password": "glaze-and-fire", "mailingAddress": {address},
            "billingAddress": {address}, "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#
    )
}

/// An HTTP client that answers every status as a reply rather than an error.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}
