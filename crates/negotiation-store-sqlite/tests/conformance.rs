//! The shared conformance suite against a fresh SQLite file per test.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::sync::atomic::{AtomicUsize, Ordering};

use index_negotiation_store_sqlite::SqliteStore;

/// A new database file under cargo's per-target scratch directory, unique
/// to this process and test.
async fn fresh_store() -> SqliteStore {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sqlite-conformance");
    std::fs::create_dir_all(&dir).expect("the scratch directory");
    let path = dir.join(format!(
        "{}-{}.db",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    SqliteStore::open(&path).await.expect("a fresh store opens")
}

index_negotiation_store::negotiation_store_conformance!(fresh_store());
