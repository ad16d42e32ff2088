//! HTTP turns per second, with p50 and p99 latency, for 64 agent pairs
//! negotiating at once through a real `index-host` listener, on SQLite and
//! (with `INDEX_TEST_DATABASE_URL`) PostgreSQL; afterwards every
//! negotiation's log is checked: no turn lost, none doubled. Alternating
//! with it (each side first in turn), the same store alone commits as many
//! turns from as many lanes; the best of three of each is printed, and the
//! HTTP rate's share of the store's.
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

/// The allocator `index serve` runs with (crates/cli/src/main.rs), so the
/// host is measured as it is shipped; the bare store beside it uses the
/// same.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
/// Measurements of each kind, alternating, the best of which counts.
fn trials() -> usize {
    if quick() { 1 } else { 3 }
}

const TURNS_PER_ROUND: usize = index_negotiation::NEGOTIATION_MAX_TURNS;

/// What one HTTP measurement saw.
struct Measured {
    turns: usize,
    elapsed: std::time::Duration,
    p50: std::time::Duration,
    p99: std::time::Duration,
}

impl Measured {
    fn rate(&self) -> f64 {
        self.turns as f64 / self.elapsed.as_secs_f64()
    }
}

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
    let (mut best_http, mut best_alone): (Option<Measured>, f64) = (None, 0.0);
    for trial in 0..trials() {
        // Each side first in turn, so neither always runs in the other's
        // wake (the kernel still writing back the pages it dirtied).
        for http_now in [trial % 2 == 0, trial % 2 == 1] {
            if http_now {
                let measured = turns_over_http(&host, &store, &http, &base, &host_key, trial).await;
                if best_http
                    .as_ref()
                    .is_none_or(|best| measured.rate() > best.rate())
                {
                    best_http = Some(measured);
                }
            } else {
                // The same store alone, side by side: as many commits (turns
                // and resumes) from as many concurrent lanes, straight
                // through the port.
                let commits = u64::try_from(rounds() * TURNS_PER_ROUND * pair_count()).unwrap();
                let started = Instant::now();
                drive_commits_in_parallel(&store, u64::try_from(pair_count()).unwrap(), commits)
                    .await;
                best_alone = best_alone.max(commits as f64 / started.elapsed().as_secs_f64());
            }
        }
    }
    let best = best_http.unwrap();
    println!(
        "{name:<10} {} pairs, {} turns in {:.2} s: {:>6.0} turns/s, p50 {:.2} ms, p99 {:.2} ms; 0 lost, 0 doubled",
        pair_count(),
        best.turns,
        best.elapsed.as_secs_f64(),
        best.rate(),
        best.p50.as_secs_f64() * 1e3,
        best.p99.as_secs_f64() * 1e3,
    );
    println!(
        "{name:<10} the store alone: {best_alone:>6.0} commits/s; HTTP at {:.2}x of it (a turn over HTTP takes {:.2}x a bare commit)",
        best.rate() / best_alone,
        best_alone / best.rate()
    );
    let _ = stop.send(());
    served.await.unwrap().unwrap();
}

/// Every pair plays its rounds through the port; afterwards each log is
/// checked for exactly the turns sent, in order.
async fn turns_over_http(
    host: &Host,
    store: &Arc<dyn HostStore>,
    http: &reqwest::Client,
    base: &str,
    host_key: &str,
    trial: usize,
) -> Measured {
    let run_id = std::process::id();
    let mut pairs = Vec::new();
    for pair in 0..pair_count() {
        let (a, b) = (
            format!("a-{run_id}-{trial}-{pair}"),
            format!("b-{run_id}-{trial}-{pair}"),
        );
        let id = format!(
            "0b3c9e2a-4f6d-4a8b-{:04x}-{:08x}{:04x}",
            run_id & 0xffff,
            pair,
            trial
        );
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
            .bearer_auth(host_key)
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
            let (http, base) = (http.clone(), base.to_owned());
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
    Measured {
        turns: latencies.len(),
        elapsed,
        p50: at(0.50),
        p99: at(0.99),
    }
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
