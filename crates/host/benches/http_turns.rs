//! HTTP turns per second, with p50 and p99 latency, for 64 agent pairs
//! negotiating at once through a real `index-host` listener, on SQLite and
//! (with `INDEX_TEST_DATABASE_URL`) PostgreSQL; afterwards every
//! negotiation's log is checked: no turn lost, none doubled. Then the same
//! store alone commits as many turns from as many lanes, and the HTTP
//! rate's share of that is printed.
//! `cargo bench -p index-host --bench http_turns`; without `--bench`
//! (`cargo test --benches`, as CI runs it) it runs once with four pairs
//! and one round, so a benchmark that no longer works fails there.

// A benchmark reports by printing; setup failures panic.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::sync::Arc;
use std::time::Instant;

use index_host::{Host, serve};
use index_negotiation_store::conformance::drive_commits_in_parallel;
use index_negotiation_store::{HostStore, KeyScope, OpportunityId};
use serde_json::json;

/// Whether this is the short run (`cargo test --benches`).
fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

/// Agent pairs negotiating at once.
fn pair_count() -> usize {
    if quick() { 4 } else { 64 }
}

/// Rounds each pair plays to the turn limit.
fn rounds() -> usize {
    if quick() { 1 } else { 3 }
}
const TURNS_PER_ROUND: usize = index_negotiation::NEGOTIATION_MAX_TURNS;

async fn run(name: &str, store: Arc<dyn HostStore>) {
    let host = Host::new(store.clone()).await.unwrap();
    let host_key = host
        .create_key("host".parse().unwrap(), KeyScope::Host)
        .await
        .unwrap()
        .secret;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(serve(host.clone(), listener, Vec::new(), async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(2 * pair_count())
        .build()
        .unwrap();
    let run_id = std::process::id();
    let mut pairs = Vec::new();
    for pair in 0..pair_count() {
        let (a, b) = (format!("a-{run_id}-{pair}"), format!("b-{run_id}-{pair}"));
        let id = format!("0b3c9e2a-4f6d-4a8b-{:04x}-{:012x}", run_id & 0xffff, pair);
        let keys = (
            host.create_key(a.as_str().parse().unwrap(), KeyScope::Agent)
                .await
                .unwrap()
                .secret,
            host.create_key(b.as_str().parse().unwrap(), KeyScope::Agent)
                .await
                .unwrap()
                .secret,
        );
        let opened = http
            .post(format!("{base}/negotiations"))
            .bearer_auth(&host_key)
            .json(&json!({"opportunityId": id, "initiator": {"userId": a, "intentId": "i"}, "responder": {"userId": b, "intentId": "j"}}))
            .send()
            .await
            .unwrap();
        assert_eq!(opened.status().as_u16(), 201);
        pairs.push((id, keys));
    }
    let started = Instant::now();
    let workers: Vec<_> = pairs
        .iter()
        .cloned()
        .map(|(id, (a, b))| {
            let (http, base) = (http.clone(), base.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                for round in 0..rounds() {
                    // The initiator opens the first round; the responder resumes
                    // the others, and so moves first in them.
                    let (first, second) = if round == 0 { (&a, &b) } else { (&b, &a) };
                    if round > 0 {
                        let resumed = http.post(format!("{base}/opportunities/{id}/negotiation/resume")).bearer_auth(first).send().await.unwrap();
                        assert!(resumed.status().is_success());
                    }
                    for n in 0..TURNS_PER_ROUND {
                        let (key, action) = if n % 2 == 0 { (first, "propose") } else { (second, "counter") };
                        let sent = Instant::now();
                        let reply = http
                            .post(format!("{base}/opportunities/{id}/negotiation/turns"))
                            .bearer_auth(key)
                            .json(&json!({"action": action, "message": format!("round {round} turn {n}")}))
                            .send()
                            .await
                            .unwrap();
                        assert_eq!(reply.status().as_u16(), 200, "{}", reply.text().await.unwrap_or_default());
                        reply.bytes().await.unwrap();
                        latencies.push(sent.elapsed());
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.unwrap());
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    // Verify afterwards: each log holds exactly the turns sent, in order.
    for (id, _) in &pairs {
        let state = store
            .read_negotiation_state(&OpportunityId::parse(id.as_str()).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            state.turns.len(),
            rounds() * TURNS_PER_ROUND,
            "{id}: lost or doubled"
        );
        for (i, turn) in state.turns.iter().enumerate() {
            assert_eq!(
                turn.message,
                format!("round {} turn {}", i / TURNS_PER_ROUND, i % TURNS_PER_ROUND)
            );
        }
    }
    println!(
        "{name:<10} {} pairs, {} turns in {:.2} s: {:>6.0} turns/s, p50 {:.2} ms, p99 {:.2} ms; 0 lost, 0 doubled",
        pair_count(),
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
    );
    let _ = stop.send(());
    served.await.unwrap().unwrap();
    // The same store alone, side by side: as many commits (turns and
    // resumes) from as many concurrent lanes, straight through the port.
    let commits = u64::try_from(latencies.len()).unwrap();
    let started = Instant::now();
    drive_commits_in_parallel(&store, u64::try_from(pair_count()).unwrap(), commits).await;
    let alone = commits as f64 / started.elapsed().as_secs_f64();
    let http = latencies.len() as f64 / elapsed.as_secs_f64();
    println!(
        "{name:<10} the store alone: {alone:>6.0} commits/s; HTTP at {:.2}x of it",
        http / alone
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = index_negotiation_store_sqlite::SqliteStore::open(dir.path().join("bench.db"))
            .await
            .unwrap();
        run("sqlite", Arc::new(sqlite)).await;
        match std::env::var("INDEX_TEST_DATABASE_URL") {
            Ok(url) if !url.is_empty() => {
                let options = index_negotiation_store_postgres::PostgresOptions::default()
                    .with_schema(format!("bench_http_{}", std::process::id()))
                    .with_max_connections(32);
                let postgres =
                    index_negotiation_store_postgres::PostgresStore::connect_with(&url, options)
                        .await
                        .unwrap();
                run("postgres", Arc::new(postgres)).await;
            }
            // CI has every service: a benchmark it cannot run fails there.
            _ if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
                panic!("INDEX_TEST_DATABASE_URL is not set under CI=true")
            }
            _ => eprintln!(
                "PostgreSQL not measured: INDEX_TEST_DATABASE_URL is not set (bash .ci/postgres)"
            ),
        }
    });
}
