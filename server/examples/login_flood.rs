//! Another tenant's one-row write while 64 clients flood connect customer, and
//! `consign keys revoke` on the same database meanwhile (docs/PERFORMANCE.md, "Logins
//! under a flood").
//!
//! `cargo build --release -p consign-cli && cargo run --release -p consign-server --example login_flood -- 10 target/release/consign`
//!
//! Three phases of SECONDS each (default 10) on one `consign serve` in this process:
//! the tenant alone; with 64 clients sending wrong passwords for one account (the
//! throttle answers most of them 429 at once); with 64 clients sending the right
//! password (every request runs argon2, so the hashing pool is busy throughout). In each,
//! one client of another customer PUTs its integrated quoting options (one row) in a loop,
//! and, when the path of the `consign` binary is given, `consign keys revoke` of a spare
//! key runs once in the middle and is timed whole (process start included).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark driver: a panic is a failed run")]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use consign::Shipping;
use consign_conformance::{customer_body, quoting_option};
use consign_server::{Config, Server};
use serde_json::json;

const FLOODERS: usize = 64;

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// Status of `method` on `url` with `body` as `key`.
fn send(agent: &ureq::Agent, key: &str, method: &str, url: &str, body: &str) -> u16 {
    let request = ureq::http::Request::builder().method(method).uri(url).header("Authorization", format!("RSIS {key}"));
    let mut reply = agent.run(request.body(body.to_string()).unwrap()).unwrap();
    let _ = reply.body_mut().read_to_vec();
    reply.status().as_u16()
}

/// The `p`th percentile of sorted `values`.
fn percentile(values: &[Duration], p: f64) -> Duration {
    let at = ((values.len() as f64 * p / 100.0).ceil() as usize).clamp(1, values.len());
    values[at - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

struct Setup {
    base: String,
    db: std::path::PathBuf,
    flood_keys: Vec<String>,
    tenant_key: String,
    tenant: String,
    spare_keys: Vec<String>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().map_or(10, |s| s.parse().expect("SECONDS is a whole number"));
    let cli = args.next();
    let dir = std::env::temp_dir().join(format!("consign-login-flood-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("flood.db");

    let shipping = Shipping::open(&db).unwrap();
    let partner = shipping.authenticate(&shipping.create_api_key(None, "flood").unwrap().key).unwrap();
    // A key and an account per flood, so that the second does not find the first's locks.
    let flood_keys: Vec<String> = (0..2).map(|i| shipping.create_api_key(None, &format!("flood {i}")).unwrap().key).collect();
    for email in ["ann@example.com", "bob@example.com"] {
        let created = shipping.handle_as(&partner, "POST", "/restapi/v1/customers", &customer_body(email).to_string());
        assert_eq!(created.status, 201, "{}", created.body);
    }
    let tenant = shipping.handle("POST", "/restapi/v1/customers", &customer_body("tenant@example.com").to_string());
    let tenant: serde_json::Value = serde_json::from_str(&tenant.body).unwrap();
    let tenant = tenant["customerId"].as_str().unwrap().to_string();
    let tenant_key = shipping.create_api_key(Some(&tenant), "tenant").unwrap().key;
    let spare_keys: Vec<String> = (0..3).map(|i| shipping.create_api_key(None, &format!("spare {i}")).unwrap().info.id).collect();
    drop(shipping);

    let mut config = Config::new(&db);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.log = false;
    // The flood measures the hashing pool and the writer, not the per-key rate limit,
    // which would turn most of two keys' flood into cheap 429s.
    config.rate_limit = None;
    let server = Server::start(config).unwrap();
    let setup = Setup { base: format!("http://{}", server.addr()), db: db.clone(), flood_keys, tenant_key, tenant, spare_keys };
    println!(
        "{seconds} s per phase, {FLOODERS} flooding clients, {} processors",
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!("| phase | flood answers/s (statuses) | tenant writes | p50 | p99 | max | `consign keys revoke` |");
    println!("|---|---|---|---|---|---|---|");
    let phases = [
        ("tenant alone", None),
        ("wrong passwords", Some(("ann@example.com", "wrong-password", &setup.flood_keys[0]))),
        ("right passwords", Some(("bob@example.com", "glaze-and-fire", &setup.flood_keys[1]))),
    ];
    for (i, (phase, flood)) in phases.into_iter().enumerate() {
        run_phase(&setup, phase, flood, seconds, cli.as_deref(), &setup.spare_keys[i]);
    }
    server.shutdown().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One phase: the tenant's writes, with 64 clients sending `flood` (e-mail, password,
/// key) to connect customer meanwhile when given.
fn run_phase(setup: &Setup, phase: &str, flood: Option<(&str, &str, &String)>, seconds: u64, cli: Option<&str>, spare: &str) {
    let stop = Arc::new(AtomicBool::new(false));
    let counts: Arc<[AtomicU64; 3]> = Arc::new([AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)]);
    let mut flooders = Vec::new();
    if let Some((email, password, key)) = flood {
        for _ in 0..FLOODERS {
            let (stop, counts) = (Arc::clone(&stop), Arc::clone(&counts));
            let (url, key) = (format!("{}/restapi/v1/connect-customer", setup.base), key.clone());
            let body = json!({"username": email, "password": password}).to_string();
            flooders.push(std::thread::spawn(move || {
                let agent = agent();
                while !stop.load(Ordering::Relaxed) {
                    let slot = match send(&agent, &key, "POST", &url, &body) {
                        200 | 401 => 0,
                        429 => 1,
                        _ => 2,
                    };
                    counts[slot].fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        // Let the flood reach its pace before the tenant is measured.
        std::thread::sleep(Duration::from_secs(1));
    }
    let started = Instant::now();
    let revoke = cli.map(|cli| {
        let (cli, db, spare) = (cli.to_string(), setup.db.clone(), spare.to_string());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(seconds) / 2);
            let t = Instant::now();
            let out = std::process::Command::new(cli).args(["keys", "revoke", &spare, "--db"]).arg(&db).output().unwrap();
            let took = t.elapsed();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            took
        })
    });
    let agent = agent();
    let url = format!("{}/restapi/v1/customers/{}/integratedQuotingOptions", setup.base, setup.tenant);
    let mut latencies = Vec::new();
    let (floods_before, t_before) = (counts.iter().map(|c| c.load(Ordering::Relaxed)).sum::<u64>(), Instant::now());
    let mut n = 0;
    while started.elapsed() < Duration::from_secs(seconds) {
        n += 1;
        let body =
            json!({"integratedQuotingOptions": [quoting_option(&format!("Ground {n}"), "parcel", "parcel_ground", "parcel_custom")]});
        let t = Instant::now();
        let status = send(&agent, &setup.tenant_key, "PUT", &url, &body.to_string());
        latencies.push(t.elapsed());
        assert_eq!(status, 200, "the tenant's write");
    }
    let floods = counts.iter().map(|c| c.load(Ordering::Relaxed)).sum::<u64>() - floods_before;
    let flood_rate = floods as f64 / t_before.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for f in flooders {
        f.join().unwrap();
    }
    let revoked = revoke.map_or_else(|| "-".to_string(), |r| format!("{} ms", ms(r.join().unwrap())));
    latencies.sort();
    let statuses = if flood.is_some() {
        format!(
            "{flood_rate:.0} ({} 200/401, {} 429, {} other)",
            counts[0].load(Ordering::Relaxed),
            counts[1].load(Ordering::Relaxed),
            counts[2].load(Ordering::Relaxed)
        )
    } else {
        "-".to_string()
    };
    println!(
        "| {phase} | {statuses} | {} | {} ms | {} ms | {} ms | {revoked} |",
        latencies.len(),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 99.0)),
        ms(latencies[latencies.len() - 1])
    );
}
