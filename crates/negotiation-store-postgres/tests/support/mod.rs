//! Finding the test database: `INDEX_TEST_DATABASE_URL`, and a fresh schema
//! per test so tests run in parallel without seeing each other.

use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

/// The test database's URL, or `None` (with the reason printed) when there
/// is none. Under `CI=true` a missing database is a failure, not a skip.
pub fn database_url() -> Option<String> {
    match std::env::var("INDEX_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "INDEX_TEST_DATABASE_URL is not set; CI must start PostgreSQL (see .ci/postgres)"
            );
            eprintln!(
                "skipped: INDEX_TEST_DATABASE_URL is not set (run `bash .ci/postgres` to start a test database)"
            );
            None
        }
    }
}

/// A schema name no other test uses.
pub fn fresh_schema() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "t_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        nanos
    )
}

/// A store on a fresh schema, or `None` when there is no test database.
pub async fn fresh_store_with(options: PostgresOptions) -> Option<(PostgresStore, String, String)> {
    let url = database_url()?;
    let schema = options.schema.clone().unwrap_or_else(fresh_schema);
    let store = PostgresStore::connect_with(
        &url,
        PostgresOptions {
            schema: Some(schema.clone()),
            ..options
        },
    )
    .await
    .expect("the test database accepts a store");
    Some((store, url, schema))
}

/// A store on a fresh schema with default options.
#[allow(dead_code)] // used by the conformance suite's binary, not by every test binary
pub async fn fresh_store() -> Option<PostgresStore> {
    fresh_store_with(PostgresOptions::default())
        .await
        .map(|(store, _, _)| store)
}
