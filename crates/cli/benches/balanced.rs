//! Turns through nginx in front of 1, 2 and 3 `index serve` on one
//! PostgreSQL, as docs/deploy.md runs them: turns per second with p50 and
//! p99 latency for agent pairs negotiating at once, and where the CPU went
//! (the hosts, nginx, PostgreSQL, the client driving them), so the note can
//! say which saturates this machine. Every negotiation's log is checked
//! afterwards: no turn lost, none doubled. Then a `tasks/get` answered by
//! the host running the task against one answered by another host.
//!
//! `cargo bench -p index-cli --bench balanced` (with
//! `INDEX_TEST_DATABASE_URL`, which `bash .ci/postgres` prints); without
//! `--bench` (`cargo test --benches`, as CI runs it) it runs once with two
//! pairs and one host count, so a benchmark that no longer works fails
//! there. Nothing is timed in a test.

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

#[path = "../tests/support/balancer.rs"]
mod balancer;
#[path = "../tests/support/serve.rs"]
mod serve;
#[path = "../tests/support/stall.rs"]
mod stall;
#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use balancer::{Balanced, Client, FORMS_AND_TASKS};

/// Whether this is the short run (`cargo test --benches`).
fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

const TURNS_PER_ROUND: usize = 12;

/// CPU seconds a process (and, for PostgreSQL, every backend of the
/// server) has used, from /proc.
fn cpu_seconds(pids: &[u32]) -> f64 {
    // USER_HZ is 100 on every Linux this runs on.
    let ticks: u64 = pids
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter_map(|stat| {
            let after = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = after.split_whitespace().collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .sum();
    ticks as f64 / 100.0
}

/// Every process named `name`.
fn pids_named(name: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == name)
        })
        .collect()
}

struct Run {
    turns: usize,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
    /// Cores used during the run: hosts, nginx, PostgreSQL, this client.
    cores: [f64; 4],
}

/// `pairs` pairs play `rounds` rounds each through `hosts` hosts behind
/// nginx on `db`.
async fn turns_through(dir: &Path, db: &str, hosts: usize, pairs: usize, rounds: usize) -> Run {
    let balanced = Balanced::start(dir, db, hosts, &[]);
    let client = Client::new(balanced.base());
    let host_key = support::key(dir, db, "bench-host", true);
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let mut games = Vec::new();
    for pair in 0..pairs {
        let (a, b) = (
            format!("a{pair}-{}", &tag[..8]),
            format!("b{pair}-{}", &tag[..8]),
        );
        let id = uuid::Uuid::new_v4().to_string();
        let opened = json!({"opportunityId": id, "initiator": {"userId": a, "intentId": "i"},
                            "responder": {"userId": b, "intentId": "j"}});
        let (status, body) = client
            .rest("POST", "/negotiations", &host_key, Some(opened))
            .await;
        assert_eq!(status, 201, "{body}");
        games.push((
            id,
            support::key(dir, db, &a, false),
            support::key(dir, db, &b, false),
        ));
    }
    let processes: Vec<u32> = balanced.hosts.iter().map(|host| host.child.id()).collect();
    let (nginx, postgres) = (pids_named("nginx"), pids_named("postgres"));
    let before = [
        cpu_seconds(&processes),
        cpu_seconds(&nginx),
        cpu_seconds(&postgres),
        cpu_seconds(&[std::process::id()]),
    ];
    let started = Instant::now();
    let players: Vec<_> = games
        .iter()
        .cloned()
        .map(|(id, a, b)| {
            let client = Client::new(balanced.base());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                for round in 0..rounds {
                    let (first, second) = if round == 0 { (&a, &b) } else { (&b, &a) };
                    if round > 0 {
                        let path = format!("/opportunities/{id}/negotiation/resume");
                        assert_eq!(client.rest("POST", &path, first, None).await.0, 200);
                    }
                    for n in 0..TURNS_PER_ROUND {
                        let (key, action) = if n % 2 == 0 {
                            (first, "propose")
                        } else {
                            (second, "counter")
                        };
                        let turn =
                            json!({"action": action, "message": format!("round {round} turn {n}")});
                        let sent = Instant::now();
                        let path = format!("/opportunities/{id}/negotiation/turns");
                        let (status, body) = client.rest("POST", &path, key, Some(turn)).await;
                        assert_eq!(status, 200, "{body}");
                        latencies.push(sent.elapsed());
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for player in players {
        latencies.extend(player.await.unwrap());
    }
    let elapsed = started.elapsed();
    let after = [
        cpu_seconds(&processes),
        cpu_seconds(&nginx),
        cpu_seconds(&postgres),
        cpu_seconds(&[std::process::id()]),
    ];
    for (id, a, _) in &games {
        let view = client.view(a, id).await;
        let turns = view["state"]["turns"].as_array().unwrap().len();
        assert_eq!(
            turns,
            rounds * TURNS_PER_ROUND,
            "{id}: no turn lost, none doubled"
        );
    }
    latencies.sort();
    let at = |share: f64| {
        latencies[((latencies.len() as f64 * share) as usize).min(latencies.len() - 1)]
    };
    Run {
        turns: latencies.len(),
        elapsed,
        p50: at(0.50),
        p99: at(0.99),
        cores: std::array::from_fn(|i| (after[i] - before[i]) / elapsed.as_secs_f64()),
    }
}

/// `tasks/get` of one task, `reads` times, asked of the host running it
/// and of another: the p50 of each.
async fn tasks_get_here_and_there(dir: &Path, db: &str, reads: usize) -> (Duration, Duration) {
    let balanced = Balanced::start(dir, db, 2, &[]);
    let id = uuid::Uuid::new_v4().to_string();
    let person = format!("t-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    // sam moves first: the person's wait has nothing to answer with.
    stall::open_between(dir, db, &id, "sam", &person);
    let person_key = support::key(dir, db, &person, false);
    let [here, there] =
        [0, 1].map(|i| Client::new(format!("http://{}", balanced.hosts[i].address)));
    // A wait on the other seat's move, which never comes: the task works
    // for its whole wait, on the host that took the call.
    let wait = json!({"opportunityId": id, "wait": 40});
    let started = here
        .call(
            &person_key,
            "get_negotiation",
            wait,
            json!({}),
            FORMS_AND_TASKS,
        )
        .await;
    let task = started["result"]["taskId"].as_str().unwrap().to_owned();
    let mut p50 = Vec::new();
    for client in [&here, &there] {
        let mut took = Vec::new();
        for _ in 0..reads {
            let sent = Instant::now();
            let read: Value = client
                .on_task(&person_key, "tasks/get", &task, json!({}))
                .await;
            took.push(sent.elapsed());
            assert_eq!(read["result"]["status"], "working", "{read}");
        }
        took.sort();
        p50.push(took[took.len() / 2]);
    }
    (p50[0], p50[1])
}

fn main() {
    let Some(url) = std::env::var("INDEX_TEST_DATABASE_URL")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        // CI has every service: a benchmark it cannot run fails there.
        assert!(
            !std::env::var("CI").is_ok_and(|ci| ci == "true"),
            "INDEX_TEST_DATABASE_URL is not set under CI=true"
        );
        eprintln!("not measured: INDEX_TEST_DATABASE_URL is not set (bash .ci/postgres)");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (pairs, rounds, counts, reads): (usize, usize, &[usize], usize) = if quick() {
        (2, 1, &[2], 5)
    } else {
        (64, 3, &[1, 2, 3], 500)
    };
    runtime.block_on(async {
        println!("hosts  turns  turns/s  p50 ms  p99 ms  cores: hosts nginx postgres client");
        for &hosts in counts {
            let run = turns_through(dir.path(), &url, hosts, pairs, rounds).await;
            println!(
                "{hosts:>5} {:>6} {:>8.0} {:>7.2} {:>7.2}         {:>5.2} {:>5.2} {:>8.2} {:>6.2}",
                run.turns,
                run.turns as f64 / run.elapsed.as_secs_f64(),
                run.p50.as_secs_f64() * 1e3,
                run.p99.as_secs_f64() * 1e3,
                run.cores[0],
                run.cores[1],
                run.cores[2],
                run.cores[3],
            );
        }
        let (here, there) = tasks_get_here_and_there(dir.path(), &url, reads).await;
        println!(
            "tasks/get p50: {:.2} ms on the host running the task, {:.2} ms on another ({:+.2} ms)",
            here.as_secs_f64() * 1e3,
            there.as_secs_f64() * 1e3,
            (there.as_secs_f64() - here.as_secs_f64()) * 1e3,
        );
    });
}
