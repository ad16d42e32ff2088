//! Finding the test database: `INDEX_TEST_DATABASE_URL`, and a fresh schema
//! per test so tests run in parallel without seeing each other.

use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

/// The test database's URL. These tests are ignored unless asked for, so they run only
/// when asked for, and then a missing database fails them.
pub fn database_url() -> String {
    match std::env::var("INDEX_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "INDEX_TEST_DATABASE_URL is not set: start a test database with `bash .ci/postgres`"
        ),
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

/// A store on a fresh schema, its URL and the schema's name.
pub async fn fresh_store_with(options: PostgresOptions) -> (PostgresStore, String, String) {
    let url = database_url();
    let schema = options.schema.clone().unwrap_or_else(fresh_schema);
    let store = PostgresStore::connect_with(&url, options.with_schema(schema.clone()))
        .await
        .expect("the test database accepts a store");
    (store, url, schema)
}

/// A store on a fresh schema with default options.
#[allow(dead_code)] // used by the conformance suite's binary, not by every test binary
pub async fn fresh_store() -> PostgresStore {
    fresh_store_with(PostgresOptions::default()).await.0
}
