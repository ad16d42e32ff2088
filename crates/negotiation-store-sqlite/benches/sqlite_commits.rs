//! Durable turn commits per second on SQLite (WAL) with `synchronous=NORMAL`
//! and `FULL`, one negotiation at a time and eight in parallel. Run with
//! `cargo bench -p index-negotiation-store-sqlite`.

// criterion's macros generate undocumented items; setup failures panic.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use index_negotiation_store::conformance::{drive_commits, drive_commits_in_parallel};
use index_negotiation_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};

fn store(
    runtime: &tokio::runtime::Runtime,
    dir: &std::path::Path,
    synchronous: Synchronous,
) -> SqliteStore {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let options = SqliteOptions::default().with_synchronous(synchronous);
    runtime
        .block_on(SqliteStore::open_with(
            dir.join(format!("bench-{n}.db")),
            options,
        ))
        .unwrap()
}

fn commits(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("sqlite-commits");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    for (name, synchronous) in [("normal", Synchronous::Normal), ("full", Synchronous::Full)] {
        let sequential = store(&runtime, dir.path(), synchronous);
        group.bench_function(format!("{name}/sequential"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let started = Instant::now();
                    drive_commits(&sequential, iters).await;
                    started.elapsed()
                })
            })
        });
        let shared = store(&runtime, dir.path(), synchronous);
        group.bench_function(format!("{name}/8-parallel"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let started = Instant::now();
                    drive_commits_in_parallel(&shared, 8, iters).await;
                    started.elapsed()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, commits);
criterion_main!(benches);
