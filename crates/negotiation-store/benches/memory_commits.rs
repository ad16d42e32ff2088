//! Turn commits per second on the in-memory store: one negotiation at a
//! time, and eight negotiations committing in parallel. Run with
//! `cargo bench -p index-negotiation-store`.

// criterion's macros generate undocumented items; setup failures panic.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use index_negotiation_store::MemoryStore;
use index_negotiation_store::conformance::{drive_commits, drive_commits_in_parallel};

fn commits(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("memory-commits");
    group.throughput(Throughput::Elements(1));
    group.bench_function("sequential", |b| {
        b.iter_custom(|iters| {
            let store = MemoryStore::new();
            runtime.block_on(async {
                let started = Instant::now();
                drive_commits(&store, iters).await;
                started.elapsed()
            })
        })
    });
    group.bench_function("8-parallel", |b| {
        b.iter_custom(|iters| {
            let store = MemoryStore::new();
            runtime.block_on(async {
                let started = Instant::now();
                drive_commits_in_parallel(&store, 8, iters).await;
                started.elapsed()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, commits);
criterion_main!(benches);
