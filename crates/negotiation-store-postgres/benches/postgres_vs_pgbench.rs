//! The store against `pgbench -M prepared` running the same transaction
//! (`benches/turn.pgbench`) on the same schema, side by side in one run, at
//! 1, 8 and 32 concurrent negotiations: turn commits per second and the
//! store's share of pgbench's rate.
//!
//! Each client (a task for the store, a pgbench client for pgbench) commits
//! [`turns`] turns on a negotiation of its own. The store's commits go
//! through `commit_turn` with a decider that permits the next index, so
//! both sides do the same database work and neither pays for the rules
//! (about 60 ns a decision); the store still makes the negotiation it hands
//! back from what it read, which costs no round trip. Needs `INDEX_TEST_DATABASE_URL`
//! (`bash .ci/postgres`) and `pgbench`.
//!
//! `cargo bench -p index-negotiation-store-postgres --bench postgres_vs_pgbench`;
//! without `--bench` (`cargo test --benches`, as CI runs it) each side
//! commits a few turns, so a benchmark that no longer works fails there.

// A benchmark reports by printing; setup failures panic.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use index_negotiation::{
    Decision, NegotiationAction, NegotiationTurn, OpportunityStatus, TurnPermitted,
};
use index_negotiation_store::Actor;
use index_negotiation_store::{
    NegotiationStore, Negotiations, OpenNegotiation, OpportunityId, Seat,
};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

/// Whether this is the short run (`cargo test --benches`).
fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

/// Turns each client commits.
fn turns() -> u32 {
    if quick() { 5 } else { 300 }
}

fn pgbench() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path().join("bin/pgbench")))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found.pop()
}

async fn fresh(url: &str, name: &str, clients: u32) -> PostgresStore {
    let schema = format!("{name}_{}_{clients}", std::process::id());
    let options = PostgresOptions::default()
        .with_schema(schema)
        .with_max_connections(clients as usize + 2);
    let store = PostgresStore::connect_with(url, options).await.unwrap();
    let service = Negotiations::new(&store);
    for client in 1..=clients {
        let seat = |user: &str| Seat {
            user_id: user.parse().unwrap(),
            intent_id: format!("{user}-intent").parse().unwrap(),
        };
        service
            .open(
                &OpenNegotiation {
                    opportunity_id: format!("00000000-0000-4000-8000-{client:012x}")
                        .parse()
                        .unwrap(),
                    initiator: seat("alice"),
                    responder: seat("bob"),
                    eligible: true,
                },
                &Actor::operator(),
            )
            .await
            .unwrap();
    }
    store
}

async fn store_rate(url: &str, clients: u32) -> f64 {
    let store = fresh(url, "bench_store", clients).await;
    let started = Instant::now();
    let lanes: Vec<_> = (1..=clients)
        .map(|client| {
            let store = store.clone();
            tokio::spawn(async move {
                let id =
                    OpportunityId::parse(format!("00000000-0000-4000-8000-{client:012x}")).unwrap();
                let turn = NegotiationTurn::new(NegotiationAction::Propose, "A benchmark turn.");
                for _ in 0..turns() {
                    let decide = Box::new(
                        |state: Option<&index_negotiation::NegotiationState>, _: &_, _: &_| {
                            Decision::Permitted(TurnPermitted {
                                turn_index: state.map_or(0, |s| s.turn_count()),
                                outcome: None,
                                round_ended: None,
                                awaiting_user_id: Some("bob".parse().unwrap()),
                                opportunity_status: OpportunityStatus::Negotiating,
                            })
                        },
                    );
                    let (decision, _) = store
                        .commit_turn(
                            &id,
                            &"alice".parse().unwrap(),
                            &turn,
                            &Actor::operator(),
                            decide,
                        )
                        .await
                        .unwrap();
                    assert!(decision.is_ok());
                }
            })
        })
        .collect();
    for lane in lanes {
        lane.await.unwrap();
    }
    f64::from(clients * turns()) / started.elapsed().as_secs_f64()
}

async fn pgbench_rate(url: &str, pgbench: &PathBuf, clients: u32) -> f64 {
    let schema = format!("bench_pgbench_{}_{clients}", std::process::id());
    drop(fresh(url, "bench_pgbench", clients).await);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/turn.pgbench");
    let out = Command::new(pgbench)
        .args(["-n", "-M", "prepared", "-f"])
        .arg(&script)
        .args([
            "-c",
            &clients.to_string(),
            "-j",
            &clients.min(8).to_string(),
            "-t",
            &turns().to_string(),
            "-d",
            url,
        ])
        .env("PGOPTIONS", format!("-c search_path={schema}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "tps = 1234.5 (without initial connection time)"
    text.lines()
        .find(|line| line.starts_with("tps = ") && line.contains("without"))
        .and_then(|line| line.split_whitespace().nth(2))
        .and_then(|tps| tps.parse().ok())
        .expect("pgbench printed its rate")
}

fn main() {
    let (Ok(url), Some(pgbench)) = (std::env::var("INDEX_TEST_DATABASE_URL"), pgbench()) else {
        // CI has every service: a benchmark it cannot run fails there.
        assert!(
            !std::env::var("CI").is_ok_and(|ci| ci == "true"),
            "needs INDEX_TEST_DATABASE_URL and pgbench under CI=true"
        );
        eprintln!("not measured: needs INDEX_TEST_DATABASE_URL (bash .ci/postgres) and pgbench");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:>7}  {:>12}  {:>12}  {:>6}",
        "clients", "store t/s", "pgbench t/s", "ratio"
    );
    for clients in [1u32, 8, 32] {
        let (store, pgbench) = runtime.block_on(async {
            let pgbench_rate = pgbench_rate(&url, &pgbench, clients).await;
            (store_rate(&url, clients).await, pgbench_rate)
        });
        println!(
            "{clients:>7}  {store:>12.0}  {pgbench:>12.0}  {:>5.2}x",
            store / pgbench
        );
    }
}
