//! Turn commits per second with 1, 8 and 32 negotiations committing at
//! once, on PostgreSQL and, for comparison, on SQLite (WAL, NORMAL). Needs
//! `INDEX_TEST_DATABASE_URL` (see `.ci/postgres`); without it only SQLite
//! runs. `cargo bench -p index-negotiation-store-postgres`.

// criterion's macros generate undocumented items; setup failures panic.
#![allow(missing_docs, clippy::unwrap_used, clippy::print_stderr)]

use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use index_negotiation_store::NegotiationStore;
use index_negotiation_store::conformance::drive_commits_in_parallel;
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};
use index_negotiation_store_sqlite::SqliteStore;

fn run<S: NegotiationStore + Clone + 'static>(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    name: &str,
    store: &S,
) {
    let mut group = c.benchmark_group(format!("{name}-commits"));
    group.throughput(Throughput::Elements(1));
    group.sample_size(10);
    for lanes in [1u64, 8, 32] {
        group.bench_with_input(
            BenchmarkId::new("concurrent", lanes),
            &lanes,
            |b, &lanes| {
                b.iter_custom(|iters| {
                    runtime.block_on(async {
                        let started = Instant::now();
                        drive_commits_in_parallel(store, lanes, iters.max(lanes)).await;
                        started.elapsed()
                    })
                })
            },
        );
    }
    group.finish();
}

fn commits(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = runtime
        .block_on(SqliteStore::open(dir.path().join("bench.db")))
        .unwrap();
    run(c, &runtime, "sqlite", &sqlite);
    match std::env::var("INDEX_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => {
            let schema = format!("bench_{}", std::process::id());
            let options = PostgresOptions::default()
                .with_schema(schema)
                .with_max_connections(40);
            let postgres = runtime
                .block_on(PostgresStore::connect_with(&url, options))
                .unwrap();
            run(c, &runtime, "postgres", &postgres);
        }
        _ => eprintln!("skipped PostgreSQL: INDEX_TEST_DATABASE_URL is not set"),
    }
}

criterion_group!(benches, commits);
criterion_main!(benches);
