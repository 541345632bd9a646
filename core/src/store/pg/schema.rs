//! The PostgreSQL schema (temporary: creates the schema when absent).

use crate::error::{Error, Result};

/// Creates the schema of a new database.
pub(crate) fn migrate(client: &mut postgres::Client) -> Result<()> {
    let exists: bool =
        client.query_one("SELECT to_regclass('customers') IS NOT NULL", &[]).map_err(|e| Error::internal(format!("{e}")))?.get(0);
    if !exists {
        let sql =
            std::fs::read_to_string(std::env::var("CONSIGN_PG_SCHEMA").unwrap_or_default()).map_err(|e| Error::internal(format!("{e}")))?;
        client.batch_execute(&sql).map_err(|e| Error::internal(format!("{e}")))?;
    }
    Ok(())
}
