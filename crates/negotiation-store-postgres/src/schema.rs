//! Numbered migrations under a version table, applied once across hosts.

use deadpool_postgres::Pool;

use index_negotiation_store::StoreError;

use crate::error::{pg_error, pool_error};

/// Numbered migrations; a database at version N has run the first N.
const MIGRATIONS: [&str; 10] = [
    include_str!("../migrations/0001_initial.sql"),
    include_str!("../migrations/0002_api_keys.sql"),
    include_str!("../migrations/0003_question_loop.sql"),
    include_str!("../migrations/0004_rounds_and_changes.sql"),
    include_str!("../migrations/0005_key_details.sql"),
    include_str!("../migrations/0006_host_state.sql"),
    include_str!("../migrations/0007_interactions.sql"),
    include_str!("../migrations/0008_oauth_keys.sql"),
    include_str!("../migrations/0009_audit.sql"),
    include_str!("../migrations/0010_webhooks.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// An arbitrary, fixed advisory-lock key that serialises migrations.
const MIGRATION_LOCK: i64 = 0x494E_4458_4D49_4752;

/// Creates `schema` over one of the pool's connections.
pub(crate) async fn create_schema(pool: &Pool, schema: &str) -> Result<(), StoreError> {
    let client = pool.get().await.map_err(pool_error)?;
    client
        .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
        .await
        .map_err(pg_error)
}

/// Brings the schema to [`SCHEMA_VERSION`], or refuses a newer one.
pub(crate) async fn migrate(pool: &Pool) -> Result<(), StoreError> {
    let mut client = pool.get().await.map_err(pool_error)?;
    let tx = client.transaction().await.map_err(pg_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(pg_error)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS index_schema_version (version INTEGER NOT NULL)")
        .await
        .map_err(pg_error)?;
    let version: i32 = match tx
        .query_opt("SELECT version FROM index_schema_version", &[])
        .await
        .map_err(pg_error)?
    {
        Some(row) => row.get(0),
        None => {
            tx.execute("INSERT INTO index_schema_version (version) VALUES (0)", &[])
                .await
                .map_err(pg_error)?;
            0
        }
    };
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: "the PostgreSQL database".to_owned(),
            found: i64::from(version),
            supported: i64::from(SCHEMA_VERSION),
        });
    }
    for migration in MIGRATIONS
        .iter()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        tx.batch_execute(migration).await.map_err(pg_error)?;
    }
    tx.execute(
        "UPDATE index_schema_version SET version = $1",
        &[&SCHEMA_VERSION],
    )
    .await
    .map_err(pg_error)?;
    tx.commit().await.map_err(pg_error)
}
