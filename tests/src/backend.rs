//! The database the conformance suite runs on: SQLite in memory, or, when the
//! environment variable `CONSIGN_TEST_PG` holds the URL of a PostgreSQL server's
//! superuser (and the suite is built with the `postgres` feature), a fresh PostgreSQL
//! database per test, copied from a template that the first test of the process creates
//! and seeds, and dropped when the test's service is.
//!
//! Every test of the suite runs on both. The tests of what only SQLite has (database
//! images, checkpoints, SQLite's locking) open SQLite themselves rather than through
//! [`fresh`], so they run on SQLite in both legs.

use consign::ShippingBuilder;

/// The variable naming the PostgreSQL server of the suite's PostgreSQL leg.
pub const PG_VARIABLE: &str = "CONSIGN_TEST_PG";

/// A PostgreSQL database made for one test, dropped on drop.
#[derive(Debug)]
pub struct TestDatabase {
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "only the PostgreSQL leg makes databases"))]
    name: String,
    #[cfg_attr(not(feature = "postgres"), allow(dead_code, reason = "only the PostgreSQL leg makes databases"))]
    url: String,
}

impl TestDatabase {
    /// Another service on this database, as a second `consign serve` would open it.
    pub fn another(&self, builder: ShippingBuilder) -> consign::Shipping {
        #[cfg(feature = "postgres")]
        let builder = builder.postgres(&self.url).postgres_pool(2);
        builder.open().expect("a second service opens the test's database")
    }
}

/// Whether this run is the PostgreSQL leg: built with the feature and given a server.
pub fn on_postgres() -> bool {
    cfg!(feature = "postgres") && std::env::var_os(PG_VARIABLE).is_some()
}

/// `builder` on a fresh database: unchanged (in memory) on SQLite; on the PostgreSQL
/// leg, a new database of its own, with the guard that drops it.
pub fn fresh(builder: ShippingBuilder) -> (ShippingBuilder, Option<TestDatabase>) {
    #[cfg(feature = "postgres")]
    if let Some(admin) = std::env::var_os(PG_VARIABLE) {
        let (url, database) = pg::fresh(&admin.to_string_lossy());
        return (builder.postgres(url).postgres_pool(4), Some(database));
    }
    (builder, None)
}

#[cfg(feature = "postgres")]
mod pg {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::OnceLock;

    use postgres::config::Host;
    use postgres::{Client, Config, NoTls};

    use super::TestDatabase;

    /// The template every test's database is copied from: migrated and seeded once.
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU32 = AtomicU32::new(0);

    /// A connection string to `database` on the server of `admin`.
    pub(super) fn url_of(admin: &str, database: &str) -> String {
        let config: Config = admin.parse().expect("CONSIGN_TEST_PG is a PostgreSQL URL");
        let mut url = format!("dbname={database}");
        if let Some(host) = config.get_hosts().first() {
            match host {
                Host::Tcp(name) => url.push_str(&format!(" host={name}")),
                Host::Unix(path) => url.push_str(&format!(" host={}", path.display())),
            }
        }
        if let Some(port) = config.get_ports().first() {
            url.push_str(&format!(" port={port}"));
        }
        if let Some(user) = config.get_user() {
            url.push_str(&format!(" user={user}"));
        }
        if let Some(password) = config.get_password() {
            url.push_str(&format!(" password='{}'", String::from_utf8_lossy(password).replace('\'', "\\'")));
        }
        url
    }

    fn admin(admin: &str) -> Client {
        Client::connect(admin, NoTls).expect("CONSIGN_TEST_PG names a server that accepts the connection")
    }

    /// A new database for one test, and the URL to it.
    pub(super) fn fresh(admin_url: &str) -> (String, TestDatabase) {
        let template = TEMPLATE.get_or_init(|| {
            let name = format!("consign_template_{}", std::process::id());
            let mut admin = admin(admin_url);
            admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).expect("an old template is dropped");
            admin.batch_execute(&format!("CREATE DATABASE {name}")).expect("the template is created");
            // Opening creates the schema and seeds the default catalog and rate book.
            drop(consign::Shipping::builder().postgres(url_of(admin_url, &name)).open().expect("the template opens"));
            name
        });
        let name = format!("consign_t_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        admin(admin_url)
            .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .expect("a test database is copied from the template");
        let url = url_of(admin_url, &name);
        (url.clone(), TestDatabase { name, url })
    }

    impl Drop for TestDatabase {
        fn drop(&mut self) {
            if let Some(url) = std::env::var_os(super::PG_VARIABLE) {
                if let Ok(mut admin) = Client::connect(&url.to_string_lossy(), NoTls) {
                    let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
                }
            }
        }
    }
}
