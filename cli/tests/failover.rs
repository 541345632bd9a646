//! Failover of the PostgreSQL database under `consign serve`: a primary and a standby on
//! loopback (clusters of Debian's PostgreSQL 15 under a scratch folder, made by
//! `scripts/pg-cluster`), two `consign serve` on a URL naming both hosts with
//! `target_session_attrs=read-write`, clients booking for several prepaid customers
//! through both, the primary killed (`pg_ctl stop -m immediate`) at a random moment and
//! the standby promoted.
//!
//! With a synchronous standby no acknowledged booking is lost, every ledger balances,
//! every booking retried with its `idempotencyKey` is charged once, and the servers reach
//! the new primary by themselves. With an asynchronous standby, the same run loses
//! acknowledged bookings: the negative control, without which the first proves nothing.
//!
//! Both need `CONSIGN_TEST_FAILOVER=1` (`scripts/test-pg` sets it), a build with the
//! feature `postgres` and PostgreSQL 15 at `/usr/lib/postgresql/15/bin` (which
//! `scripts/pg-cluster` installs); otherwise they say why they were skipped and pass.
//! They take the failover lock in turn: each runs two clusters and two servers.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

/// A synchronous standby loses no acknowledged booking when the primary dies.
#[test]
fn a_synchronous_standby_loses_no_acknowledged_booking() {
    if let Some(reason) = skipped() {
        eprintln!("skipped: {reason}");
    } else {
        #[cfg(feature = "postgres")]
        run::synchronous();
    }
}

/// The negative control: an asynchronous standby that falls behind loses acknowledged
/// bookings when the primary dies.
#[test]
fn an_asynchronous_standby_loses_acknowledged_bookings() {
    if let Some(reason) = skipped() {
        eprintln!("skipped: {reason}");
    } else {
        #[cfg(feature = "postgres")]
        run::asynchronous();
    }
}

/// Why the failover tests cannot run here, if they cannot.
fn skipped() -> Option<&'static str> {
    if !cfg!(feature = "postgres") {
        Some("built without --features postgres")
    } else if std::env::var_os("CONSIGN_TEST_FAILOVER").is_none_or(|v| v != "1") {
        Some("CONSIGN_TEST_FAILOVER=1 is not set (scripts/test-pg sets it)")
    } else if !std::path::Path::new("/usr/lib/postgresql/15/bin/pg_basebackup").exists() {
        Some("PostgreSQL 15 is not installed at /usr/lib/postgresql/15/bin (scripts/pg-cluster installs it)")
    } else {
        None
    }
}

#[cfg(feature = "postgres")]
mod run {
    use std::collections::HashMap;
    use std::hash::{BuildHasher, RandomState};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use consign_conformance::{book_body, customer_body, payment_body, with};
    use serde_json::{json, Value};

    use super::common;

    /// Held by the test that runs clusters: one run at a time on this machine.
    static FAILOVER: Mutex<()> = Mutex::new(());

    /// The words of the `BUSY` answer of a commit whose outcome is unknown.
    const IN_DOUBT: &str = "it may or may not have been done";

    /// Clients booking at once, and customers they book for.
    const CLIENTS: usize = 6;
    const CUSTOMERS: usize = 4;

    /// How long one booking is retried before the test gives up on it.
    const RETRY_FOR: Duration = Duration::from_secs(90);

    pub(super) fn synchronous() {
        let _one = FAILOVER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let run = failover(Standby::Sync);
        println!("{}", run.summary());
        assert!(run.unexpected.is_empty(), "answers that are neither 201 nor a BUSY to retry: {:?}", run.unexpected);
        assert!(run.booked.iter().any(|b| b.retries > 0), "no booking was cut by the failover: the primary died while nobody booked");
        assert_eq!(run.lost, Vec::<String>::new(), "acknowledged bookings lost with a synchronous standby");
        assert!(run.after_promotion > 0, "no booking was answered after the promotion: the servers did not reconnect");
        run.assert_ledgers();
        if run.in_doubt == 0 {
            println!("failover (sync): no commit was in doubt in this run, so no 503 of its own was seen");
        }
    }

    pub(super) fn asynchronous() {
        let _one = FAILOVER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let run = failover(Standby::Async);
        println!("{}", run.summary());
        assert!(run.unexpected.is_empty(), "answers that are neither 201 nor a BUSY to retry: {:?}", run.unexpected);
        assert!(run.booked.iter().any(|b| b.retries > 0), "no booking was cut by the failover: the primary died while nobody booked");
        assert!(!run.lost.is_empty(), "an asynchronous standby lost no acknowledged booking: the run proves nothing");
        assert!(run.after_promotion > 0, "no booking was answered after the promotion: the servers did not reconnect");
        // What survived is consistent: every ledger still balances, a booking once.
        run.assert_ledgers();
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Standby {
        Sync,
        Async,
    }

    impl Standby {
        fn name(self) -> &'static str {
            match self {
                Standby::Sync => "sync",
                Standby::Async => "async",
            }
        }
    }

    /// One booking, answered 201 at last.
    struct Booked {
        key: String,
        customer: String,
        book: String,
        answered: Instant,
        /// Answers before the 201 (BUSY, in doubt, or no answer at all).
        retries: usize,
        /// Whether one of them was the in-doubt 503.
        in_doubt: bool,
    }

    /// What a run saw.
    struct Run {
        standby: Standby,
        base: String,
        partner: String,
        booked: Vec<Booked>,
        /// Keys of acknowledged bookings missing after the failover.
        lost: Vec<String>,
        /// 503 answers with the in-doubt message.
        in_doubt: usize,
        /// The answers before a 201, by their message (or why no answer came).
        failures: HashMap<String, usize>,
        /// Bookings answered 201 after the standby was promoted.
        after_promotion: usize,
        unexpected: Vec<String>,
        /// The clusters and servers, kept until the checks are done.
        _scratch: Scratch,
    }

    impl Run {
        fn summary(&self) -> String {
            format!(
                "failover ({}): {} bookings acknowledged, {} lost, {} in-doubt 503s (for {} bookings), {} bookings retried, {} answered after the promotion",
                self.standby.name(),
                self.booked.len(),
                self.lost.len(),
                self.in_doubt,
                self.booked.iter().filter(|b| b.in_doubt).count(),
                self.booked.iter().filter(|b| b.retries > 0).count(),
                self.after_promotion,
            ) + &self.failures.iter().collect::<std::collections::BTreeMap<_, _>>().iter().map(|(m, n)| format!("\n  {n} x {m}")).collect::<String>()
        }

        /// Every customer's ledger balances (the balance is the sum of the entries, each
        /// `balanceAfter` the running sum), and each booking still there is charged
        /// exactly once: one charge per booking, no other charge.
        fn assert_ledgers(&self) {
            let mut present: HashMap<&str, Vec<&Booked>> = HashMap::new();
            for b in self.booked.iter().filter(|b| !self.lost.contains(&b.key)) {
                present.entry(&b.customer).or_default().push(b);
            }
            for (customer, bookings) in &present {
                let (status, prepay) = send(&self.base, &self.partner, "GET", &format!("/restapi/v1/customers/{customer}/prepay"), None)
                    .unwrap_or_else(|e| panic!("{customer}'s prepay: {e}"));
                assert_eq!(status, 200, "{prepay}");
                let entries = prepay["entries"].as_array().unwrap();
                assert_eq!(entries.iter().map(|e| cents(&e["amount"])).sum::<i64>(), cents(&prepay["balance"]), "{customer}: {prepay}");
                let mut running = 0;
                for e in entries.iter().rev() {
                    running += cents(&e["amount"]);
                    assert_eq!(cents(&e["balanceAfter"]), running, "{customer}: balanceAfter is the running sum: {e}");
                }
                let charges: Vec<&str> =
                    entries.iter().filter(|e| e["kind"] == "charge").map(|e| e["reference"].as_str().unwrap()).collect();
                for b in bookings {
                    let reference = format!("shipment {}", b.book);
                    let times = charges.iter().filter(|r| **r == reference).count();
                    assert_eq!(
                        times, 1,
                        "{customer}: booking {} (key {}, retried {} times) charged {times} times",
                        b.book, b.key, b.retries
                    );
                }
                assert_eq!(charges.len(), bookings.len(), "{customer}: charges for bookings nobody acknowledged: {charges:?}");
            }
        }
    }

    /// A random number, from the standard library's randomly keyed hasher.
    fn random() -> u64 {
        RandomState::new().hash_one(std::process::id())
    }

    /// A loopback port nothing listens on now.
    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    /// `scripts/pg-cluster` with `args`; its last line of output.
    fn pg_cluster(args: &[&str]) -> String {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-cluster");
        let out = Command::new("bash").arg(script).args(args).output().unwrap();
        assert!(out.status.success(), "pg-cluster {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string()
    }

    /// What `psql` answers to `sql` on `url`, unaligned.
    fn psql(url: &str, sql: &str) -> String {
        let out = Command::new("/usr/lib/postgresql/15/bin/psql")
            .args(["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
            .output()
            .unwrap();
        assert!(out.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The clusters and the servers of a run, stopped and removed however it ends.
    struct Scratch {
        dir: PathBuf,
        servers: Vec<Child>,
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            for server in &mut self.servers {
                let _ = server.kill();
                let _ = server.wait();
            }
            for cluster in ["standby", "primary"] {
                let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-cluster");
                let _ = Command::new("bash").arg(script).arg("stop").arg(self.dir.join(cluster)).output();
            }
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// `method` on `base` + `path` with `key`: the status and the JSON answer, or why no
    /// answer came.
    fn send(base: &str, key: &str, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
        let request =
            ureq::http::Request::builder().method(method).uri(format!("{base}{path}")).header("Authorization", format!("RSIS {key}"));
        let agent: ureq::Agent =
            ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(60))).build().into();
        let reply = match body {
            Some(body) => agent.run(request.body(body.to_string()).unwrap()),
            None => agent.run(request.body(()).unwrap()),
        };
        let mut reply = reply.map_err(|e| e.to_string())?;
        let text = reply.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((reply.status().as_u16(), serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    /// Money as cents.
    fn cents(v: &Value) -> i64 {
        let s = v.as_str().unwrap_or_else(|| panic!("money is a string: {v}"));
        let (whole, frac) = s.split_once('.').unwrap_or_else(|| panic!("2 decimals in {s:?}"));
        let c = whole.trim_start_matches('-').parse::<i64>().unwrap() * 100 + frac.parse::<i64>().unwrap();
        if whole.starts_with('-') {
            -c
        } else {
            c
        }
    }

    /// What the clients share: the servers, the key, the customers and the tallies.
    struct Clients<'a> {
        servers: &'a [String],
        partner: &'a str,
        customers: &'a [String],
        stop: AtomicBool,
        /// The answers before a 201, by their message (or why no answer came).
        failures: Mutex<HashMap<String, usize>>,
        unexpected: Mutex<Vec<String>>,
    }

    impl Clients<'_> {
        /// Books `body` under `key` for `customer` until it is answered 201, retrying
        /// with the same key through the servers in turn after a BUSY or no answer.
        fn book(&self, customer: &str, key: &str, body: &Value, first: usize) -> Option<Booked> {
            let path = format!("/restapi/v1/customers/{customer}/shipments");
            let started = Instant::now();
            let (mut retries, mut in_doubt) = (0, false);
            loop {
                let base = &self.servers[(first + retries) % self.servers.len()];
                match send(base, self.partner, "POST", &path, Some(body)) {
                    Ok((201, answer)) => {
                        let book = answer["bookNumber"].as_str().unwrap_or_default().to_string();
                        return Some(Booked {
                            key: key.into(),
                            customer: customer.into(),
                            book,
                            answered: Instant::now(),
                            retries,
                            in_doubt,
                        });
                    }
                    Ok((503, answer)) if answer["errorCategory"] != "BUSY" => {
                        self.unexpected.lock().unwrap().push(format!("{key}: 503 {answer}"));
                    }
                    Ok((503, answer)) => {
                        let message = format!("503 {}", answer["error"].as_str().unwrap_or_default());
                        in_doubt |= message.contains(IN_DOUBT);
                        *self.failures.lock().unwrap().entry(message).or_default() += 1;
                    }
                    Ok((status, answer)) => self.unexpected.lock().unwrap().push(format!("{key}: {status} {answer}")),
                    // No answer: whether it was done is unknown, as after an in-doubt 503.
                    Err(e) => *self.failures.lock().unwrap().entry(format!("no answer: {e}")).or_default() += 1,
                }
                retries += 1;
                if started.elapsed() > RETRY_FOR {
                    self.unexpected.lock().unwrap().push(format!("{key}: not answered 201 within {RETRY_FOR:?}"));
                    return None;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }

        /// Client `n`: books one shipment after another, each with a key of its own and
        /// the key as its reference, until told to stop.
        fn run(&self, standby: Standby, n: usize) -> Vec<Booked> {
            let tomorrow = chrono::Local::now().date_naive() + chrono::Duration::days(1);
            let mut booked = Vec::new();
            for i in 0.. {
                if self.stop.load(Ordering::Relaxed) {
                    break;
                }
                let key = format!("{}-{n}-{i}", standby.name());
                let customer = &self.customers[(n + i) % self.customers.len()];
                let body = with(book_body(), "/shipmentDate", json!(tomorrow.to_string()));
                let body = with(with(body, "/idempotencyKey", json!(key)), "/shipmentReference", json!(key));
                // ZPL renders far faster than PDF in a debug build.
                let body = with(body, "/labelImageFormat", json!("ZPL"));
                booked.extend(self.book(customer, &key, &body, n + i));
            }
            booked
        }
    }

    /// One run: clusters, servers, customers, clients booking, the primary killed at a
    /// random moment, the standby promoted, clients booking on, then what survived.
    fn failover(standby: Standby) -> Run {
        let dir = common::fresh_dir(&format!("consign-failover-{}", standby.name()));
        let mut scratch = Scratch { dir: dir.clone(), servers: Vec::new() };
        let (primary, replica) = (dir.join("primary"), dir.join("standby"));
        let (p1, p2) = (free_port().to_string(), free_port().to_string());
        let admin = pg_cluster(&["start", primary.to_str().unwrap(), &p1]);
        psql(&admin, "CREATE DATABASE consign");
        let replica_admin = pg_cluster(&["standby", primary.to_str().unwrap(), replica.to_str().unwrap(), &p2, standby.name()]);
        let url = format!("postgres://postgres@127.0.0.1:{p1},127.0.0.1:{p2}/consign?target_session_attrs=read-write");

        let key_file = dir.join("secret.key").display().to_string();
        let mut servers = Vec::new();
        for _ in 0..2 {
            let mut serve = Command::new(env!("CARGO_BIN_EXE_consign"));
            // No rate limit: the clients are one partner booking as fast as they can.
            serve
                .args(["serve", "--listen", "127.0.0.1:0", "--secret-key-file", &key_file, "--rate-limit", "0"])
                .env("CONSIGN_DATABASE_URL", &url);
            serve.stderr(Stdio::null());
            let (child, line) = common::spawn_listening(&mut serve);
            scratch.servers.push(child);
            servers.push(line.trim().rsplit_once(" on ").unwrap_or_else(|| panic!("{line:?}")).1.to_string());
        }
        let out = Command::new(env!("CARGO_BIN_EXE_consign"))
            .args(["keys", "create", "--name", "failover", "--secret-key-file", &key_file])
            .env("CONSIGN_DATABASE_URL", &url)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let partner = String::from_utf8(out.stdout).unwrap().trim().to_string();

        // Prepaid customers, funded at creation, with a card on file for recharges.
        let customers: Vec<String> = (0..CUSTOMERS)
            .map(|i| {
                let (status, created) =
                    send(&servers[i % 2], &partner, "POST", "/restapi/v1/customers", Some(&customer_body(&format!("shop{i}@example.com"))))
                        .unwrap();
                assert_eq!(status, 201, "{created}");
                let id = created["customerId"].as_str().unwrap().to_string();
                let path = format!("/restapi/v1/customers/{id}/paymentMethod");
                let (status, paid) = send(&servers[i % 2], &partner, "POST", &path, Some(&payment_body("tok_1"))).unwrap();
                assert_eq!(status, 200, "{paid}");
                id
            })
            .collect();

        let clients = Clients {
            servers: &servers,
            partner: &partner,
            customers: &customers,
            stop: AtomicBool::new(false),
            failures: Mutex::new(HashMap::new()),
            unexpected: Mutex::new(Vec::new()),
        };
        let (booked, promoted) = std::thread::scope(|s| {
            let threads: Vec<_> = (0..CLIENTS)
                .map(|n| {
                    s.spawn({
                        let clients = &clients;
                        move || clients.run(standby, n)
                    })
                })
                .collect();
            // A random moment, 2 to 5 s into the bookings.
            std::thread::sleep(Duration::from_millis(2000 + random() % 3000));
            // The standby falls behind: it stops receiving WAL (an empty primary_conninfo
            // ends its WAL receiver). Pausing its replay (pg_wal_replay_pause) would not
            // do: a promotion replays all WAL received. On loopback a standby is never
            // behind by more than a few milliseconds; this makes the window in which
            // an asynchronous primary acknowledges what the standby lacks certain. A
            // synchronous primary acknowledges nothing meanwhile: its commits wait, and
            // the kill leaves them in doubt.
            psql(&replica_admin, "ALTER SYSTEM SET primary_conninfo = ''");
            psql(&replica_admin, "SELECT pg_reload_conf()");
            while psql(&replica_admin, "SELECT count(*) FROM pg_stat_wal_receiver") != "0" {
                std::thread::sleep(Duration::from_millis(50));
            }
            std::thread::sleep(Duration::from_millis(700));
            pg_cluster(&["kill", primary.to_str().unwrap()]);
            std::thread::sleep(Duration::from_millis(500));
            pg_cluster(&["promote", replica.to_str().unwrap()]);
            let promoted = Instant::now();
            // The clients book on for 3 s through the same servers.
            std::thread::sleep(Duration::from_secs(3));
            clients.stop.store(true, Ordering::Relaxed);
            let booked: Vec<Booked> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
            (booked, promoted)
        });
        for server in &mut scratch.servers {
            assert!(server.try_wait().unwrap().is_none(), "a server ended during the failover");
        }

        // Every acknowledged booking is there, under its key (a lost booking's number
        // may have been given again to another).
        let base = servers[0].clone();
        let lost = booked
            .iter()
            .filter(|b| {
                let path = format!("/restapi/v1/customers/{}/shipments/{}", b.customer, b.book);
                match send(&base, &partner, "GET", &path, None).unwrap() {
                    (200, shipment) => shipment["shipmentReference"] != b.key.as_str(),
                    (404, _) => true,
                    (status, answer) => panic!("{path}: {status} {answer}"),
                }
            })
            .map(|b| b.key.clone())
            .collect();
        let after_promotion = booked.iter().filter(|b| b.answered > promoted).count();
        let failures = clients.failures.into_inner().unwrap();
        let in_doubt = failures.iter().filter(|(m, _)| m.starts_with("503") && m.contains(IN_DOUBT)).map(|(_, n)| n).sum();
        let unexpected = clients.unexpected.into_inner().unwrap();
        Run { standby, base, partner, booked, lost, in_doubt, failures, after_promotion, unexpected, _scratch: scratch }
    }
}
