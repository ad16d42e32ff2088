//! Turn commits per second on the in-memory store: one negotiation at a
//! time, and eight negotiations committing in parallel; and listing one
//! user's 100 negotiations among 100 and among 100,000 (a list reads only
//! the user's own, so the two should cost the same). Run with
//! `cargo bench -p index-negotiation-store`.

// criterion's macros generate undocumented items; setup failures panic.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use index_negotiation_store::conformance::{
    drive_commits, drive_commits_in_parallel, fill_for_listing,
};
use index_negotiation_store::{ListFilter, MemoryStore, NegotiationStore};

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

fn lists(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("memory-list");
    for others in [0, 99_900] {
        let store = MemoryStore::new();
        let dana = runtime.block_on(fill_for_listing(&store, 100, others));
        let all = ListFilter::default();
        group.bench_function(format!("100 of {}", 100 + others), |b| {
            b.iter(|| {
                let listed = runtime
                    .block_on(store.list_negotiations(&dana, &all))
                    .unwrap();
                assert_eq!(listed.len(), 100);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, commits, lists);
criterion_main!(benches);
