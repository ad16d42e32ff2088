//! What must not grow with history, on each backend side by side: a
//! commit and a decision's state read on a log of 13 turns and of 1,201,
//! and a page of 50 and one intent's negotiations for a user with 100
//! negotiations and one with 100,000 (`conformance::measure_growth`). The
//! memory store, the SQLite store (WAL, `synchronous=NORMAL`) and, with
//! `INDEX_TEST_DATABASE_URL` (`bash .ci/postgres`), PostgreSQL.
//!
//! `cargo bench -p index-negotiation-store-postgres --bench growth`;
//! without `--bench` (`cargo test --benches`, as CI runs it) it runs the
//! same work at a small scale, so a benchmark that no longer works fails
//! there.

// A benchmark reports by printing; setup failures panic.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use index_negotiation_store::MemoryStore;
use index_negotiation_store::NegotiationStore;
use index_negotiation_store::conformance::{GrowthScale, measure_growth};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};
use index_negotiation_store_sqlite::SqliteStore;

async fn report(name: &str, store: &impl NegotiationStore, scale: GrowthScale) {
    for row in measure_growth(store, scale).await {
        println!(
            "{name:<9} {:<48} {:>10.1} µs {:>10.1} µs {:>6.2}x",
            row.what,
            row.small.as_secs_f64() * 1e6,
            row.large.as_secs_f64() * 1e6,
            row.large.as_secs_f64() / row.small.as_secs_f64()
        );
    }
}

fn main() {
    let scale = if std::env::args().any(|a| a == "--bench") {
        GrowthScale::FULL
    } else {
        GrowthScale::SHORT
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        println!(
            "{:<9} {:<48} {:>13} {:>13} {:>7}",
            "store", "what", "small", "large", "ratio"
        );
        report("memory", &MemoryStore::new(), scale).await;
        let dir = tempfile::tempdir().unwrap();
        let sqlite = SqliteStore::open(dir.path().join("growth.db")).await.unwrap();
        report("sqlite", &sqlite, scale).await;
        match std::env::var("INDEX_TEST_DATABASE_URL") {
            Ok(url) if !url.is_empty() => {
                let options = PostgresOptions::default()
                    .with_schema(format!("bench_growth_{}", std::process::id()));
                let postgres = PostgresStore::connect_with(&url, options).await.unwrap();
                report("postgres", &postgres, scale).await;
            }
            // CI has every service: a benchmark it cannot run fails there.
            _ => {
                assert!(
                    !std::env::var("CI").is_ok_and(|ci| ci == "true"),
                    "INDEX_TEST_DATABASE_URL is not set under CI=true"
                );
                eprintln!("PostgreSQL not measured: INDEX_TEST_DATABASE_URL is not set (bash .ci/postgres)");
            }
        }
    });
}
