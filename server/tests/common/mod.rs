//! Helpers shared by the server's test files: a fresh database file, a fixed clock, a
//! server started on them with a partner key, and an HTTP client that returns every
//! status as an answer.

#![allow(dead_code, reason = "each test file uses only some of the helpers")]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use consign::{FixedClock, Shipping};
use consign_server::{Config, Server};

/// A fresh database file name in the temporary directory, `{prefix}-{pid}-{n}.db`, with
/// whatever an earlier run left under it removed.
pub fn fresh_db(prefix: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let db = std::env::temp_dir().join(format!("{prefix}-{}-{}.db", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed)));
    remove(&db);
    db
}

/// Removes the database file `db` and its `-wal` and `-shm` files, those that exist.
pub fn remove(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
}

/// A clock fixed at the instant `at`.
pub fn fixed(at: &str) -> Arc<dyn consign::Clock> {
    Arc::new(FixedClock::at(at).unwrap())
}

/// Creates a partner key in `db` at `clock`, then starts a server on `db` at `clock`,
/// listening on a free loopback port, without a log, and with whatever else `configure`
/// sets: the server and the partner key.
pub fn start(db: &Path, clock: Arc<dyn consign::Clock>, configure: impl FnOnce(&mut Config)) -> (Server, String) {
    let partner = Shipping::builder().path(db).clock(Arc::clone(&clock)).open().unwrap().create_api_key(None, "partner").unwrap().key;
    let mut config = Config::new(db);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.clock = Some(clock);
    config.log = false;
    configure(&mut config);
    (Server::start(config).unwrap(), partner)
}

/// A server started by [`start`] and what a client needs to reach it; dropping it shuts
/// the server down (a failed shutdown fails the test) and removes its database files.
pub struct Served {
    pub server: Option<Server>,
    pub base: String,
    pub db: PathBuf,
    pub partner: String,
    pub agent: ureq::Agent,
}

/// A server on `db` at `clock` as [`start`] starts it with `configure`, its base URL
/// and a client of [`agent`].
pub fn serve_on(db: PathBuf, clock: Arc<dyn consign::Clock>, configure: impl FnOnce(&mut Config)) -> Served {
    let (server, partner) = start(&db, clock, configure);
    let base = format!("http://{}", server.addr());
    Served { server: Some(server), base, db, partner, agent: agent() }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().unwrap();
        }
        remove(&self.db);
    }
}

/// An HTTP client that answers every status as a reply rather than an error.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}
