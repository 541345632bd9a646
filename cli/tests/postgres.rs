//! The commands on a PostgreSQL database: `--db` or `CONSIGN_DATABASE_URL` naming one, the
//! refusal of a build without the feature `postgres`, errors that never repeat the URL
//! (it may hold a password), and, when `CONSIGN_TEST_PG` names a server, two
//! `consign serve` on one database.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

mod common;

use std::process::{Command, Output};

/// A URL to a port where nothing listens, with a password no message may show.
const SECRET_URL: &str = "postgres://ann:hunter2-secret@127.0.0.1:1/shop";

/// `consign` with `args`, and `CONSIGN_DATABASE_URL` set to `url` when given (unset
/// otherwise, whatever the environment of the test holds).
fn consign_with(args: &[&str], url: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_consign"));
    command.args(args).env_remove("CONSIGN_DATABASE_URL").env_remove("CONSIGN_SECRET_KEY_FILE");
    if let Some(url) = url {
        command.env("CONSIGN_DATABASE_URL", url);
    }
    command.output().unwrap()
}

/// Every command that opens a database, given `db` as `--db`.
fn commands(db: &str, dir: &std::path::Path) -> Vec<Vec<String>> {
    let rates = dir.join("carriers.csv");
    std::fs::write(&rates, "code,name\n").unwrap();
    let key = dir.join("serve.key").display().to_string();
    [
        vec!["call", "GET", "/restapi/v1/customers/C0000001", "--db", db],
        vec!["import", "carriers", rates.to_str().unwrap(), "--db", db],
        vec!["export", "catalog", "--db", db],
        vec!["purge-quotes", "--older-than-days", "7", "--db", db],
        vec!["keys", "list", "--db", db],
        vec!["serve", "--listen", "127.0.0.1:0", "--secret-key-file", &key, "--db", db],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_string).collect())
    .collect()
}

/// A build without the feature refuses a PostgreSQL database, in each of its forms and in
/// every command, saying how to build one that takes it.
#[cfg(not(feature = "postgres"))]
#[test]
fn a_postgres_database_without_the_feature_is_refused_saying_to_build_with_it() {
    let dir = common::fresh_dir("consign-pg-refused");
    for db in [SECRET_URL, "postgresql://ann@127.0.0.1/shop", "host=127.0.0.1 port=1 dbname=shop password=hunter2-secret"] {
        for args in commands(db, &dir) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = consign_with(&args, None);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("built without PostgreSQL support: build it with `--features postgres`"), "{args:?}: {stderr}");
            assert!(!stderr.contains("hunter2") && !stderr.contains(db), "{args:?} repeats the URL: {stderr}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// No error of any command repeats the URL or its password: not the refusal of a build
/// without the feature, nor, with it, the failure to reach the server.
#[test]
fn an_error_never_repeats_the_url_or_its_password() {
    let dir = common::fresh_dir("consign-pg-secret");
    for db in [SECRET_URL, "host=127.0.0.1 port=1 dbname=shop user=ann password=hunter2-secret connect_timeout=2"] {
        for args in commands(db, &dir) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = consign_with(&args, None);
            let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.starts_with("consign: "), "{args:?}: {stderr}");
            for shown in [&stdout, &stderr] {
                assert!(!shown.contains("hunter2") && !shown.contains(db), "{args:?} repeats the URL: {shown}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `--db`, a command takes its database from `CONSIGN_DATABASE_URL`.
#[test]
fn the_database_is_taken_from_consign_database_url_without_db() {
    let dir = common::fresh_dir("consign-pg-env");
    let db = dir.join("from-env.db");
    let out = consign_with(&["keys", "create", "--name", "env"], Some(db.to_str().unwrap()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(db.exists(), "the key was created in the database the variable names");
    let listed = consign_with(&["keys", "list", "--db", db.to_str().unwrap()], None);
    assert!(String::from_utf8_lossy(&listed.stdout).contains(" env"), "{}", String::from_utf8_lossy(&listed.stdout));

    // A PostgreSQL URL there is taken as one (refused, or unreachable), never as a file.
    let out = consign_with(&["keys", "list"], Some(SECRET_URL));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let expected = if cfg!(feature = "postgres") { "the PostgreSQL database" } else { "built without PostgreSQL support" };
    assert!(stderr.contains(expected), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--db` wins over `CONSIGN_DATABASE_URL`.
#[test]
fn db_wins_over_consign_database_url() {
    let dir = common::fresh_dir("consign-pg-db-wins");
    let db = dir.join("given.db");
    let out = consign_with(&["keys", "create", "--name", "given", "--db", db.to_str().unwrap()], Some(SECRET_URL));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(db.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On PostgreSQL, `--synchronous` is refused (the database's own settings say how commits
/// wait), and `serve` needs the secret key file that every server of the database shares;
/// both before any connection is tried.
#[cfg(feature = "postgres")]
#[test]
fn serve_on_postgres_refuses_synchronous_and_needs_a_secret_key_file() {
    let out = consign_with(
        &["serve", "--synchronous", "normal", "--secret-key-file", "/nonexistent/k", "--listen", "127.0.0.1:0"],
        Some(SECRET_URL),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--synchronous is for SQLite files"), "{stderr}");
    let out = consign_with(&["serve", "--listen", "127.0.0.1:0"], Some(SECRET_URL));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("on PostgreSQL, serve needs --secret-key-file PATH"), "{stderr}");
}

/// Two `consign serve` on one fresh PostgreSQL database (made on the server that
/// `CONSIGN_TEST_PG` names, then dropped): a key made by `consign keys` works on both; a
/// customer created through one is served by the other, and a booking made through one is
/// retrieved through the other. Where creating a customer fails with a storage error
/// (SQL of the domain not yet PostgreSQL's), the key revoked by `consign keys` is refused
/// by both instead.
#[test]
fn two_servers_on_one_postgres_database_serve_the_same_customers() {
    let Some(admin) = std::env::var_os("CONSIGN_TEST_PG").map(|a| a.to_string_lossy().into_owned()) else {
        eprintln!("skipped: CONSIGN_TEST_PG names no PostgreSQL server");
        return;
    };
    if !cfg!(feature = "postgres") {
        eprintln!("skipped: built without --features postgres");
        return;
    }
    pg::two_servers(&admin);
}

/// TLS to the database (`sslmode=require`): the server's certificate is checked against
/// the roots of `SSL_CERT_FILE`, so a server whose certificate they do not sign is
/// refused, and one they sign is served. Run when `CONSIGN_TEST_PG_CA` names the
/// authority that signed the certificate of the server `CONSIGN_TEST_PG` names
/// (`scripts/pg-tls`, which `scripts/test-pg` runs).
#[cfg(feature = "postgres")]
#[test]
fn tls_to_the_database_checks_the_servers_certificate() {
    let (Some(admin), Some(ca)) = (std::env::var_os("CONSIGN_TEST_PG"), std::env::var_os("CONSIGN_TEST_PG_CA")) else {
        eprintln!("skipped: CONSIGN_TEST_PG and CONSIGN_TEST_PG_CA name no PostgreSQL server serving TLS");
        return;
    };
    pg::tls(&admin.to_string_lossy(), std::path::Path::new(&ca));
}

mod pg {
    use std::process::{Child, Command, Stdio};

    use consign_conformance::{book_body, customer_body, payment_body, with};
    use serde_json::{json, Value};

    use super::common;

    /// `psql` on `url` running `sql`; panics with its message when it fails.
    fn psql(url: &str, sql: &str) {
        let psql = ["psql", "/usr/lib/postgresql/15/bin/psql"]
            .into_iter()
            .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
            .expect("psql is installed (scripts/pg-cluster installs it)");
        let out = Command::new(psql).args(["-v", "ON_ERROR_STOP=1", "-q", "-d", url, "-c", sql]).output().unwrap();
        assert!(out.status.success(), "psql: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// The URL of `database` on the server of the admin URL `admin` (a URL or a
    /// connection string).
    fn url_of(admin: &str, database: &str) -> String {
        match admin.split_once("://") {
            Some((scheme, rest)) => {
                let (authority, query) = match rest.split_once('/') {
                    Some((authority, path)) => (authority, path.split_once('?').map_or("", |(_, q)| q)),
                    None => (rest.split_once('?').map_or(rest, |(a, _)| a), rest.split_once('?').map_or("", |(_, q)| q)),
                };
                let query = if query.is_empty() { String::new() } else { format!("?{query}") };
                format!("{scheme}://{authority}/{database}{query}")
            }
            None => format!("{admin} dbname={database}"),
        }
    }

    /// Drops the database when the test ends, passed or failed.
    struct Dropped<'a> {
        admin: &'a str,
        name: String,
        servers: Vec<Child>,
    }

    impl Drop for Dropped<'_> {
        fn drop(&mut self) {
            for server in &mut self.servers {
                let _ = server.kill();
                let _ = server.wait();
            }
            psql(self.admin, &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }

    /// Stops the servers of `guard` with SIGTERM: each closes its connections and ends
    /// with status 0.
    fn stop(guard: &mut Dropped<'_>) {
        for mut server in guard.servers.drain(..) {
            let terminated = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
            assert!(terminated.success());
            assert!(server.wait().unwrap().success(), "a server on PostgreSQL stops cleanly on SIGTERM");
        }
    }

    /// `method` on `base` + `path` with `key`: the status and the JSON answer.
    fn send(base: &str, key: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let request =
            ureq::http::Request::builder().method(method).uri(format!("{base}{path}")).header("Authorization", format!("RSIS {key}"));
        let agent = common::agent();
        let mut reply = match body {
            Some(body) => agent.run(request.body(body.to_string()).unwrap()).unwrap(),
            None => agent.run(request.body(()).unwrap()).unwrap(),
        };
        let text = reply.body_mut().read_to_string().unwrap();
        (reply.status().as_u16(), serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub(super) fn two_servers(admin: &str) {
        let name = format!("consign_cli_two_servers_{}", std::process::id());
        psql(admin, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        psql(admin, &format!("CREATE DATABASE {name}"));
        let mut guard = Dropped { admin, name: name.clone(), servers: Vec::new() };
        let url = url_of(admin, &name);
        let dir = common::fresh_dir("consign-pg-two-servers");
        let key_file = dir.join("secret.key").display().to_string();

        // One server from CONSIGN_DATABASE_URL (it creates the key file), the other from --db.
        let mut first = Command::new(env!("CARGO_BIN_EXE_consign"));
        first.args(["serve", "--listen", "127.0.0.1:0", "--secret-key-file", &key_file]).env("CONSIGN_DATABASE_URL", &url);
        first.stderr(Stdio::null());
        let (child, line) = common::spawn_listening(&mut first);
        guard.servers.push(child);
        assert!(line.starts_with("consign: serving the PostgreSQL database on http://"), "{line:?}");
        let a = line.trim().rsplit_once(" on ").unwrap().1.to_string();
        let mut second = Command::new(env!("CARGO_BIN_EXE_consign"));
        second.args(["serve", "--listen", "127.0.0.1:0", "--secret-key-file", &key_file, "--db", &url]).env_remove("CONSIGN_DATABASE_URL");
        second.stderr(Stdio::null());
        let (child, line) = common::spawn_listening(&mut second);
        guard.servers.push(child);
        let b = line.trim().rsplit_once(" on ").unwrap().1.to_string();

        // A partner key, made by `consign keys` on the same database.
        let out = Command::new(env!("CARGO_BIN_EXE_consign"))
            .args(["keys", "create", "--name", "partner", "--secret-key-file", &key_file, "--db", &url])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let partner = String::from_utf8(out.stdout).unwrap().trim().to_string();

        // The key made by the command works on both servers, checked before the body is
        // read (a round trip to the database on a blocking thread).
        for base in [&a, &b] {
            let (status, answer) = send(base, &partner, "POST", "/restapi/v1/customers", Some(&json!({})));
            assert_eq!(status, 400, "{base}: {answer}");
            // A write, on a blocking thread of its own.
            let (status, answer) =
                send(base, &partner, "POST", "/restapi/v1/customers/C0000099/paymentMethod", Some(&payment_body("tok_0")));
            assert_eq!(status, 404, "{base}: {answer}");
        }

        let (status, created) = send(&a, &partner, "POST", "/restapi/v1/customers", Some(&customer_body("two@example.com")));
        assert_eq!(status, 201, "{created}");
        let customer = created["customerId"].as_str().unwrap().to_string();
        // The customer made through one server is the other's too.
        let (status, prepay) = send(&b, &partner, "GET", &format!("/restapi/v1/customers/{customer}/prepay"), None);
        assert_eq!(status, 200, "{prepay}");

        let (status, paid) =
            send(&b, &partner, "POST", &format!("/restapi/v1/customers/{customer}/paymentMethod"), Some(&payment_body("tok_1")));
        assert_eq!(status, 200, "{paid}");
        let tomorrow = chrono::Local::now().date_naive() + chrono::Duration::days(1);
        let booking = with(with(book_body(), "/shipmentDate", json!(tomorrow.to_string())), "/idempotencyKey", json!("two-1"));
        let shipments = format!("/restapi/v1/customers/{customer}/shipments");
        let (status, booked) = send(&b, &partner, "POST", &shipments, Some(&booking));
        assert_eq!(status, 201, "{booked}");
        let book = booked["bookNumber"].as_str().unwrap();
        let (status, got) = send(&a, &partner, "GET", &format!("{shipments}/{book}"), None);
        assert_eq!((status, got["bookNumber"].as_str()), (200, Some(book)), "{got}");

        stop(&mut guard);
        drop(guard);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `consign keys create` on the database `name` over TLS, trusting the roots of `roots`.
    #[cfg(feature = "postgres")]
    fn keys_create_over_tls(admin: &str, name: &str, roots: &std::path::Path) -> std::process::Output {
        let url = url_of(admin, name);
        let tls = if url.contains('?') { format!("{url}&sslmode=require") } else { format!("{url}?sslmode=require") };
        Command::new(env!("CARGO_BIN_EXE_consign"))
            .args(["keys", "create", "--name", "tls"])
            .env("CONSIGN_DATABASE_URL", tls)
            .env("SSL_CERT_FILE", roots)
            .env_remove("SSL_CERT_DIR")
            .output()
            .unwrap()
    }

    #[cfg(feature = "postgres")]
    pub(super) fn tls(admin: &str, ca: &std::path::Path) {
        let name = format!("consign_cli_tls_{}", std::process::id());
        psql(admin, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        psql(admin, &format!("CREATE DATABASE {name}"));
        let _dropped = Dropped { admin, name: name.clone(), servers: Vec::new() };

        let other = ca.with_file_name("other-ca.pem");
        let refused = keys_create_over_tls(admin, &name, &other);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "a certificate the trusted roots do not sign is refused");
        assert!(stderr.contains("TLS handshake"), "{stderr}");

        let served = keys_create_over_tls(admin, &name, ca);
        assert!(served.status.success(), "{}", String::from_utf8_lossy(&served.stderr));
        assert!(String::from_utf8_lossy(&served.stdout).starts_with("csk_"), "the key is printed");
    }
}
