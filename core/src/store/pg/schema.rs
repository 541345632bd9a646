//! The PostgreSQL schema and its upgrades.
//!
//! The version lives in the one row of the table `schema_version` (SQLite keeps it in
//! `PRAGMA user_version`). A database whose current schema (the first of `search_path`)
//! holds no table is created from `core/pg/schema.sql`, the dialect of
//! `core/schema.sql`; an older one is upgraded by the numbered files of
//! `core/pg/migrations/`, each the twin of the file of `core/migrations/` with the same
//! number; a database written by a newer schema, or holding tables of someone else, is
//! refused and left as it was. All of it runs in one transaction under an advisory lock,
//! so that servers starting at once on a new database create its schema once.

use postgres::{Client, Transaction};

use crate::error::{Error, ErrorCategory, Result};
use crate::store::SCHEMA_VERSION;

/// The current schema in full, what a new database is created with.
const SCHEMA: &str = include_str!("../../../pg/schema.sql");

/// The first schema version of PostgreSQL databases: the one `core/pg/schema.sql` was
/// first written at. No PostgreSQL database has an older one.
const BASELINE: i64 = 11;

/// The upgrades in order: `UPGRADES[i]` brings a database of version `BASELINE + i` to
/// `BASELINE + i + 1`, and is the file `core/pg/migrations/{BASELINE + i + 1:04}_*.sql`,
/// the twin of the SQLite upgrade of the same number. Never edit one that has shipped.
const UPGRADES: &[&str] = &[
    include_str!("../../../pg/migrations/0012_request_answers.sql"),
    include_str!("../../../pg/migrations/0013_citus_keys.sql"),
    include_str!("../../../pg/migrations/0014_search_indexes.sql"),
    include_str!("../../../pg/migrations/0015_inlined_grams.sql"),
    include_str!("../../../pg/migrations/0016_events.sql"),
    include_str!("../../../pg/migrations/0017_webhooks.sql"),
];

// Every SQLite upgrade after the baseline has its PostgreSQL twin in `UPGRADES`.
const _: () = assert!(
    BASELINE + UPGRADES.len() as i64 == SCHEMA_VERSION,
    "core/migrations/ has an upgrade without its twin in core/pg/migrations/ (store::pg::schema::UPGRADES)"
);

/// The key of the advisory lock held while the schema is checked, created or upgraded:
/// the ASCII bytes `CSGNSCHM`.
const LOCK: i64 = i64::from_be_bytes(*b"CSGNSCHM");

/// What a database is, from the tables of its current schema.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// No tables: a new database.
    Empty,
    /// consign's, at this schema version (newer ones included).
    Consign(i64),
    /// Anything else: what makes it so.
    Foreign(String),
}

/// An `INTERNAL` error saying what failed, for a PostgreSQL error.
fn failed(what: &'static str) -> impl Fn(postgres::Error) -> Error {
    move |e| Error::internal(format!("{what}: {}", describe(&e)))
}

/// The server's own words for an error it reported (its message, detail and hint), or
/// the client's for another.
fn describe(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), ToString::to_string)
}

/// Creates the schema of a new database, or brings an older one up to
/// [`SCHEMA_VERSION`], in one transaction holding the advisory lock [`LOCK`].
///
/// # Errors
/// `INTERNAL` when the database was written by a newer schema, is not a consign
/// database (nothing is changed then), or on a failure of the database.
pub(crate) fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction().map_err(failed("could not begin the schema's transaction"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK]).map_err(failed("could not lock the schema"))?;
    match identify(&mut tx)? {
        Kind::Foreign(why) => {
            return Err(Error::internal(format!(
                "the database is not a consign database: {why}. consign opens only its own databases or empty ones, and left it as it was."
            )))
        }
        Kind::Consign(version) if version > SCHEMA_VERSION => return Err(Error::new(
            ErrorCategory::Internal,
            format!("The database was written by a newer consign (schema {version}); this build reads schemas up to {SCHEMA_VERSION}. Upgrade consign to open it."),
        )),
        Kind::Consign(SCHEMA_VERSION) => return Ok(()),
        Kind::Consign(version) => {
            upgrade(&mut tx, version)?;
            tx.execute("UPDATE schema_version SET version = $1", &[&SCHEMA_VERSION]).map_err(failed("could not record the schema version"))?;
        }
        Kind::Empty => {
            tx.batch_execute(SCHEMA).map_err(failed("could not create the schema"))?;
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&SCHEMA_VERSION])
                .map_err(failed("could not record the schema version"))?;
        }
    }
    tx.commit().map_err(failed("could not commit the schema"))
}

/// Tells an empty database, consign's and another one apart by the tables of the
/// current schema and consign's `schema_version`.
fn identify(tx: &mut Transaction<'_>) -> Result<Kind> {
    let schema = tx.query_one("SELECT current_schema()", &[]).map_err(failed("could not read the current schema"))?;
    if schema.try_get::<_, Option<String>>(0).map_err(failed("could not read the current schema"))?.is_none() {
        return Err(Error::internal("the database has no schema to hold consign's tables: search_path names none that exists"));
    }
    let tables: Vec<String> = tx
        .query(
            "SELECT relname::text FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
                 AND relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY relname",
            &[],
        )
        .map_err(failed("could not list the tables"))?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<std::result::Result<_, _>>()
        .map_err(failed("could not list the tables"))?;
    if tables.is_empty() {
        return Ok(Kind::Empty);
    }
    if !tables.iter().any(|t| t == "schema_version") {
        let shown = tables.iter().take(5).map(String::as_str).collect::<Vec<_>>().join(", ");
        let more = if tables.len() > 5 { ", ..." } else { "" };
        return Ok(Kind::Foreign(format!("it holds tables ({shown}{more}) but no schema_version")));
    }
    let versions = match tx.query("SELECT version FROM schema_version", &[]) {
        Ok(rows) => rows.iter().map(|r| r.try_get::<_, i64>(0)).collect::<std::result::Result<Vec<_>, _>>(),
        Err(e) => Err(e),
    };
    Ok(match versions.as_deref() {
        Ok([version]) => Kind::Consign(*version),
        Ok(rows) => Kind::Foreign(format!("its schema_version holds {} rows, not one", rows.len())),
        Err(e) => Kind::Foreign(format!("its schema_version is not consign's ({})", describe(e))),
    })
}

/// Applies the upgrades that bring schema `from` to [`SCHEMA_VERSION`].
fn upgrade(tx: &mut Transaction<'_>, from: i64) -> Result<()> {
    for version in from + 1..=SCHEMA_VERSION {
        let sql = usize::try_from(version - BASELINE - 1)
            .ok()
            .and_then(|i| UPGRADES.get(i))
            .ok_or_else(|| Error::internal(format!("this build has no PostgreSQL upgrade from schema {} to {version}", version - 1)))?;
        tx.batch_execute(sql).map_err(|e| Error::internal(format!("the upgrade to schema {version} failed: {}", describe(&e))))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use postgres::NoTls;
    use rusqlite::Connection;

    use super::*;

    /// Schema 11 as first written, frozen: where the PostgreSQL upgrades start.
    const BASELINE_SCHEMA: &str = include_str!("../../../pg/baseline.sql");

    /// A fresh database of its own on the server `CONSIGN_TEST_PG` names (an admin
    /// connection URL), dropped at the end; `None`, and the test is skipped, without it.
    struct TestDb {
        admin: postgres::Config,
        name: String,
    }

    impl TestDb {
        fn new() -> Option<TestDb> {
            let Ok(url) = std::env::var("CONSIGN_TEST_PG") else {
                eprintln!("skipped: set CONSIGN_TEST_PG to an admin connection URL to run the PostgreSQL tests");
                return None;
            };
            let admin: postgres::Config = url.parse().expect("CONSIGN_TEST_PG is a connection URL");
            let mut random = [0u8; 8];
            getrandom::getrandom(&mut random).unwrap();
            let name = format!("consign_t_{:016x}", u64::from_le_bytes(random));
            admin.connect(NoTls).unwrap().batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
            Some(TestDb { admin, name })
        }

        fn connect(&self) -> Client {
            let mut config = self.admin.clone();
            config.dbname(&self.name);
            config.connect(NoTls).unwrap()
        }
    }

    impl Drop for TestDb {
        fn drop(&mut self) {
            if let Ok(mut admin) = self.admin.connect(NoTls) {
                let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
            }
        }
    }

    /// What the comparison sees of a table.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Table {
        /// In order: name, NOT NULL (primary key columns count as NOT NULL: PostgreSQL
        /// makes them so, SQLite only in tables without rowid), and the class of its
        /// type (integer, text, blob).
        columns: Vec<(String, bool, String)>,
        primary_key: Vec<String>,
        /// The columns of each UNIQUE constraint or unique index but the primary key.
        uniques: BTreeSet<Vec<String>>,
        /// Columns, referenced table and columns, ON DELETE action.
        foreign_keys: BTreeSet<(Vec<String>, String, Vec<String>, String)>,
        /// The other indexes: name, columns, partial.
        indexes: BTreeSet<(String, Vec<String>, bool)>,
        triggers: BTreeSet<String>,
        /// The DEFAULT of each column that has one, as its SQL.
        defaults: BTreeMap<String, String>,
        /// How many CHECK constraints it has (their SQL differs between the two).
        checks: usize,
    }

    type Schema = BTreeMap<String, Table>;

    /// What exists in only one of the two schemas, and why.
    const ONLY_SQLITE_TABLES: &[(&str, &str)] = &[
        ("shipment_search", "FTS5 search; PostgreSQL finds keywords in shipments.search_body through the index shipments_search"),
        ("shipment_search_config", "a shadow table of the FTS5 table shipment_search"),
        ("shipment_search_content", "a shadow table of the FTS5 table shipment_search"),
        ("shipment_search_data", "a shadow table of the FTS5 table shipment_search"),
        ("shipment_search_idx", "a shadow table of the FTS5 table shipment_search"),
        ("shipment_grams", "FTS5 search of one- and two-character keywords; pg_trgm finds them on PostgreSQL"),
        ("shipment_grams_config", "a shadow table of the FTS5 table shipment_grams"),
        ("shipment_grams_data", "a shadow table of the FTS5 table shipment_grams"),
        ("shipment_grams_idx", "a shadow table of the FTS5 table shipment_grams"),
    ];
    const ONLY_PG_TABLES: &[(&str, &str)] = &[("schema_version", "SQLite keeps the schema version in PRAGMA user_version")];
    const ONLY_PG_INDEXES: &[(&str, &str, &str)] = &[
        ("shipments", "shipments_search", "the trigram index of search (pg_trgm), where SQLite has its FTS5 tables"),
        ("shipments", "shipments_newest", "search walks a customer's shipments newest first, where SQLite has its FTS5 tables"),
        ("shipments", "shipments_short_grams", "search finds keywords of one or two characters, where SQLite has shipment_grams"),
        ("shipments", "shipments_digit_grams", "search finds numbers by six digits, where SQLite has shipment_grams"),
        ("events", "events_by_time", "the purge finds the oldest events by time, where SQLite walks the rowids of its events"),
    ];
    /// Columns whose type class differs: (table, column, SQLite's class, PostgreSQL's, why).
    const OTHER_TYPES: &[(&str, &str, &str, &str, &str)] = &[(
        "quoted_shipments",
        "quotes",
        "text",
        "blob",
        "declared TEXT on SQLite, whose columns take any type, but written as a BLOB (packed quotes); PostgreSQL needs BYTEA for bytes",
    )];

    fn class(declared: &str) -> String {
        match declared.to_ascii_lowercase().as_str() {
            "integer" | "bigint" => "integer".into(),
            "text" => "text".into(),
            "blob" | "bytea" => "blob".into(),
            other => format!("other: {other}"),
        }
    }

    fn sqlite_schema(conn: &Connection) -> Schema {
        let strings = |sql: &str, arg: &str| -> Vec<String> {
            conn.prepare(sql).unwrap().query_map([arg], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
        };
        let mut schema = Schema::new();
        for name in strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE ?1 ORDER BY name", "sqlite\\_%") {
            let mut table = Table::default();
            let mut stmt = conn.prepare("SELECT name, type, \"notnull\", pk, dflt_value FROM pragma_table_info(?1) ORDER BY cid").unwrap();
            let mut key: Vec<(i64, String)> = Vec::new();
            for row in stmt.query_map([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap() {
                let (column, declared, not_null, pk, default): (String, String, bool, i64, Option<String>) = row.unwrap();
                if pk > 0 {
                    key.push((pk, column.clone()));
                }
                if let Some(default) = default {
                    table.defaults.insert(column.clone(), default);
                }
                table.columns.push((column, not_null || pk > 0, class(&declared)));
            }
            key.sort();
            table.checks = strings("SELECT sql FROM sqlite_schema WHERE name = ?1", &name)[0].matches("CHECK (").count();
            table.primary_key = key.into_iter().map(|(_, c)| c).collect();
            let mut stmt = conn.prepare("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)").unwrap();
            let indexes: Vec<(String, bool, String, bool)> =
                stmt.query_map([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect();
            for (index, unique, origin, partial) in indexes {
                let columns = strings("SELECT name FROM pragma_index_info(?1) ORDER BY seqno", &index);
                match (origin.as_str(), unique) {
                    ("pk", _) => assert_eq!(columns, table.primary_key, "{name}"),
                    (_, true) => assert!(table.uniques.insert(columns)),
                    (_, false) => assert!(table.indexes.insert((index, columns, partial))),
                }
            }
            let mut stmt = conn
                .prepare("SELECT id, \"from\", \"table\", \"to\", on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq")
                .unwrap();
            let mut keys: BTreeMap<i64, (Vec<String>, String, Vec<String>, String)> = BTreeMap::new();
            for row in stmt.query_map([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap() {
                let (id, from, parent, to, on_delete): (i64, String, String, String, String) = row.unwrap();
                let key = keys.entry(id).or_insert_with(|| (Vec::new(), parent, Vec::new(), on_delete));
                key.0.push(from);
                key.2.push(to);
            }
            table.foreign_keys = keys.into_values().collect();
            table.triggers =
                strings("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1", &name).into_iter().collect();
            schema.insert(name, table);
        }
        schema
    }

    /// The tables of the current schema of `client`'s database.
    fn pg_schema(client: &mut Client) -> Schema {
        const HERE: &str = "relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())";
        let names: Vec<String> = client
            .query(&format!("SELECT relname::text FROM pg_class WHERE {HERE} AND relkind IN ('r', 'p')"), &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut schema = Schema::new();
        for name in names {
            let mut table = Table::default();
            let columns = client
                .query(
                    &format!(
                        "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
                         FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid
                         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                         WHERE t.relname = $1 AND t.{HERE} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
                    ),
                    &[&name],
                )
                .unwrap();
            for row in columns {
                let (column, declared, not_null, default): (String, String, bool, Option<String>) =
                    (row.get(0), row.get(1), row.get(2), row.get(3));
                if let Some(default) = default {
                    table.defaults.insert(column.clone(), default);
                }
                table.columns.push((column, not_null, class(&declared)));
            }
            let columns_of = |list: &str, table: &str| {
                format!(
                    "array(SELECT a.attname::text FROM unnest({list}::int2[]) WITH ORDINALITY AS k(attnum, n)
                         JOIN pg_attribute a ON a.attrelid = {table} AND a.attnum = k.attnum ORDER BY k.n)"
                )
            };
            let indexes = client
                .query(
                    &format!(
                        "SELECT ic.relname::text, i.indisprimary, i.indisunique, i.indpred IS NOT NULL, {}
                         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
                         WHERE t.relname = $1 AND t.{HERE}",
                        columns_of("i.indkey", "i.indrelid")
                    ),
                    &[&name],
                )
                .unwrap();
            for row in indexes {
                let (index, primary, unique, partial, columns): (String, bool, bool, bool, Vec<String>) =
                    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
                match (primary, unique) {
                    (true, _) => table.primary_key = columns,
                    (false, true) => assert!(table.uniques.insert(columns)),
                    (false, false) => assert!(table.indexes.insert((index, columns, partial))),
                }
            }
            let keys = client
                .query(
                    &format!(
                        "SELECT {}, p.relname::text, {},
                             CASE c.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'
                                 WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END
                         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class p ON p.oid = c.confrelid
                         WHERE c.contype = 'f' AND t.relname = $1 AND t.{HERE}",
                        columns_of("c.conkey", "c.conrelid"),
                        columns_of("c.confkey", "c.confrelid")
                    ),
                    &[&name],
                )
                .unwrap();
            table.foreign_keys = keys.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
            let triggers = client
                .query(
                    &format!(
                        "SELECT g.tgname::text FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid
                         WHERE NOT g.tgisinternal AND t.relname = $1 AND t.{HERE}"
                    ),
                    &[&name],
                )
                .unwrap();
            table.triggers = triggers.iter().map(|r| r.get(0)).collect();
            let checks = client
                .query_one(
                    &format!(
                        "SELECT count(*) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
                         WHERE c.contype = 'c' AND t.relname = $1 AND t.{HERE}"
                    ),
                    &[&name],
                )
                .unwrap();
            table.checks = usize::try_from(checks.get::<_, i64>(0)).unwrap();
            schema.insert(name, table);
        }
        schema
    }

    /// Removes the listed exceptions from both schemas, asserting that each is there.
    fn without_exceptions(mut sqlite: Schema, mut pg: Schema) -> (Schema, Schema) {
        for (name, why) in ONLY_SQLITE_TABLES {
            assert!(sqlite.remove(*name).is_some() && !pg.contains_key(*name), "{name} is only on SQLite ({why})");
        }
        for (name, why) in ONLY_PG_TABLES {
            assert!(pg.remove(*name).is_some() && !sqlite.contains_key(*name), "{name} is only on PostgreSQL ({why})");
        }
        for (table, index, why) in ONLY_PG_INDEXES {
            let indexes = &mut pg.get_mut(*table).unwrap().indexes;
            let before = indexes.len();
            indexes.retain(|(name, ..)| name != index);
            assert_eq!(before, indexes.len() + 1, "{table} has the index {index} on PostgreSQL ({why})");
        }
        for (table, column, on_sqlite, on_pg, why) in OTHER_TYPES {
            let class = |schema: &mut Schema| {
                let found = schema.get_mut(*table).unwrap().columns.iter_mut().find(|(name, ..)| name == column).unwrap();
                std::mem::replace(&mut found.2, "(compared apart)".into())
            };
            assert_eq!((class(&mut sqlite), class(&mut pg)), (on_sqlite.to_string(), on_pg.to_string()), "{table}.{column}: {why}");
        }
        (sqlite, pg)
    }

    /// The PostgreSQL schema has the tables, columns (name, NOT NULL, type class, DEFAULT),
    /// primary keys, unique constraints, foreign keys, secondary indexes, triggers and
    /// number of CHECK constraints of the SQLite schema at [`SCHEMA_VERSION`], but for the
    /// exceptions listed above with their reasons; and every text column sorts by bytes
    /// (collation "C").
    #[test]
    fn the_schema_is_sqlites() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        migrate(&mut client).unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::store::configure(&conn).unwrap();
        crate::store::migrate(&mut conn).unwrap();
        let (sqlite, pg) = without_exceptions(sqlite_schema(&conn), pg_schema(&mut client));
        assert!(sqlite.len() > 30, "every table is compared: {}", sqlite.len());
        let names: BTreeSet<&String> = sqlite.keys().chain(pg.keys()).collect();
        let differences: Vec<String> = names
            .into_iter()
            .filter(|name| sqlite.get(*name) != pg.get(*name))
            .map(|name| format!("{name}\n  on SQLite: {:?}\n  on PostgreSQL: {:?}", sqlite.get(name), pg.get(name)))
            .collect();
        assert!(
            differences.is_empty(),
            "core/pg/schema.sql and core/schema.sql disagree: change both, with a migration in each\n{}",
            differences.join("\n")
        );
        let not_bytewise: Vec<String> = client
            .query(
                "SELECT t.relname || '.' || a.attname || ' (' || coalesce(co.collname::text, 'none') || ')'
                 FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid LEFT JOIN pg_collation co ON co.oid = a.attcollation
                 WHERE t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND t.relkind IN ('r', 'p')
                     AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'text'::regtype AND co.collname IS DISTINCT FROM 'C'
                 ORDER BY 1",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(not_bytewise.is_empty(), "text columns without the C collation: {not_bytewise:?}");
    }

    fn version(client: &mut Client) -> Vec<i64> {
        client.query("SELECT version FROM schema_version", &[]).unwrap().iter().map(|r| r.get(0)).collect()
    }

    #[test]
    fn migrating_again_changes_nothing() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        migrate(&mut client).unwrap();
        client.batch_execute("INSERT INTO id_sequences (name, last) VALUES ('x', 41)").unwrap();
        let before = pg_schema(&mut client);
        migrate(&mut client).unwrap();
        assert_eq!(pg_schema(&mut client), before);
        assert_eq!(version(&mut client), [SCHEMA_VERSION]);
        let last: i64 = client.query_one("SELECT last FROM id_sequences WHERE name = 'x'", &[]).unwrap().get(0);
        assert_eq!(last, 41);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        migrate(&mut client).unwrap();
        client.execute("UPDATE schema_version SET version = $1", &[&(SCHEMA_VERSION + 1)]).unwrap();
        let e = migrate(&mut client).unwrap_err();
        assert_eq!(e.category(), ErrorCategory::Internal);
        assert!(e.message().contains(&format!("written by a newer consign (schema {})", SCHEMA_VERSION + 1)), "{}", e.message());
        assert_eq!(version(&mut client), [SCHEMA_VERSION + 1]);
    }

    #[test]
    fn an_older_schema_without_its_upgrade_is_refused() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        migrate(&mut client).unwrap();
        client.execute("UPDATE schema_version SET version = $1", &[&(BASELINE - 1)]).unwrap();
        let e = migrate(&mut client).unwrap_err();
        assert!(e.message().contains(&format!("no PostgreSQL upgrade from schema {} to {BASELINE}", BASELINE - 1)), "{}", e.message());
        assert_eq!(version(&mut client), [BASELINE - 1]);
    }

    #[test]
    fn another_applications_database_is_refused_and_left_as_it_was() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        let extensions = |client: &mut Client| -> Vec<String> {
            client.query("SELECT extname::text FROM pg_extension ORDER BY 1", &[]).unwrap().iter().map(|r| r.get(0)).collect()
        };
        let before = extensions(&mut client);
        client.batch_execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');").unwrap();
        let e = migrate(&mut client).unwrap_err();
        assert!(e.message().contains("not a consign database: it holds tables (notes) but no schema_version"), "{}", e.message());
        assert_eq!(pg_schema(&mut client).into_keys().collect::<Vec<_>>(), ["notes"]);
        let notes: Vec<String> = client.query("SELECT text FROM notes", &[]).unwrap().iter().map(|r| r.get(0)).collect();
        assert_eq!(notes, ["mine"]);
        assert_eq!(extensions(&mut client), before, "no extension created");

        // A schema_version of someone else's, and consign's with its one row gone.
        client.batch_execute("CREATE TABLE schema_version (version TEXT); INSERT INTO schema_version VALUES ('v1');").unwrap();
        let e = migrate(&mut client).unwrap_err();
        assert!(e.message().contains("not a consign database: its schema_version is not consign's"), "{}", e.message());
        client.batch_execute("DROP TABLE notes, schema_version").unwrap();
        migrate(&mut client).unwrap();
        client.batch_execute("DELETE FROM schema_version").unwrap();
        let e = migrate(&mut client).unwrap_err();
        assert!(e.message().contains("not a consign database: its schema_version holds 0 rows, not one"), "{}", e.message());
    }

    /// Servers starting at once on a new database: the advisory lock makes one create the
    /// schema and the other find it created. Without the lock, one of the two fails on a
    /// table the other created.
    #[test]
    fn two_servers_migrating_at_once_create_the_schema_once() {
        let Some(db) = TestDb::new() else { return };
        let start = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            let servers: Vec<_> = (0..2)
                .map(|_| {
                    let mut client = db.connect();
                    let start = &start;
                    s.spawn(move || {
                        start.wait();
                        migrate(&mut client)
                    })
                })
                .collect();
            for server in servers {
                server.join().unwrap().unwrap();
            }
        });
        let mut client = db.connect();
        assert_eq!(version(&mut client), [SCHEMA_VERSION]);
    }

    /// A database of schema 11 with rows is brought to the schema a new database gets:
    /// the lookup tables hold the e-mails and tracking numbers of its rows, and the rows
    /// of the tables whose keys changed are kept.
    #[test]
    fn the_upgrade_from_schema_11_gives_the_current_schema_and_keeps_the_rows() {
        use crate::store::tenancy::{KEPT, KEPT_ROWS, LOOKUPS, LOOKUP_ROWS, SCHEMA_11_ROWS};
        let Some(old) = TestDb::new() else { return };
        let Some(new) = TestDb::new() else { return };
        let mut client = old.connect();
        client.batch_execute(BASELINE_SCHEMA).unwrap();
        client.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&BASELINE]).unwrap();
        client.batch_execute(SCHEMA_11_ROWS).unwrap();
        client
            .batch_execute(
                "INSERT INTO api_keys (id, digest, customer_id, name, created_at) VALUES ('K1', '\\x00', 'C1', 'k', '');
                 INSERT INTO api_key_customers (key_id, customer_id) VALUES ('K1', 'C2');",
            )
            .unwrap();
        migrate(&mut client).unwrap();
        assert_eq!(version(&mut client), [SCHEMA_VERSION]);
        let mut fresh = new.connect();
        migrate(&mut fresh).unwrap();
        assert_eq!(pg_schema(&mut client), pg_schema(&mut fresh));
        let rows = |client: &mut Client, sql: &str| -> Vec<String> { client.query(sql, &[]).unwrap().iter().map(|r| r.get(0)).collect() };
        assert_eq!(rows(&mut client, LOOKUPS), LOOKUP_ROWS);
        assert_eq!(rows(&mut client, KEPT), KEPT_ROWS);
    }

    #[test]
    fn ledger_entries_cannot_be_updated_or_deleted() {
        let Some(db) = TestDb::new() else { return };
        let mut client = db.connect();
        migrate(&mut client).unwrap();
        client
            .batch_execute(
                "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                     minimum_balance_cents, recharge_amount_cents, created_at) VALUES ('C1', 'a', 'a', '', 'Default', '{}', '{}', 0, 0, '');
                 INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
                 VALUES ('C1', 1, 'recharge', 100, 100, 'r', '');",
            )
            .unwrap();
        for sql in ["UPDATE ledger_entries SET amount_cents = 0", "DELETE FROM ledger_entries"] {
            let e = client.batch_execute(sql).unwrap_err();
            assert_eq!(e.as_db_error().map(|e| e.message()), Some("ledger entries are append-only"), "{sql}");
        }
        let amount: i64 = client.query_one("SELECT amount_cents FROM ledger_entries", &[]).unwrap().get(0);
        assert_eq!(amount, 100);
    }
}
