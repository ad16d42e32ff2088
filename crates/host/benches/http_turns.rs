//! HTTP commits per second, with p50 and p99 latency, for 64 agent pairs
//! negotiating at once through a real `index-host` listener, on SQLite and
//! (with `INDEX_TEST_DATABASE_URL`) PostgreSQL; afterwards every
//! negotiation's log is checked: no turn lost, none doubled. Alternating
//! with it (each side first in turn), the same store alone does the same
//! work from as many lanes: each lane opens a negotiation and plays ten
//! rounds on it, resuming between them, so both sides time one open and
//! commit 120 turns and 9 resumes per pair. The host's keys, its clients'
//! connections and each key's first use (recorded with a write) come
//! before the clock starts. The client is a lean keep-alive HTTP/1.1 one,
//! so the cores it shares with the host go to the host.
//!
//! Every measurement starts on a store of its own: SQLite's commits slow
//! as its file and the kernel's dirty pages grow, and whichever side ran
//! later would pay for the other's writes. The best of seven of each is
//! printed, and how much longer a commit over HTTP takes than a bare one:
//! best against best, and the median of the seven trials' own ratios
//! (each trial's two sides run back to back, so the machine's drift
//! between trials cancels).
//!
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

/// Rounds each pair plays to the turn limit: ten, as many as the store's
/// own driver plays on each negotiation it opens.
fn rounds() -> usize {
    if quick() { 1 } else { 10 }
}
/// Measurements of each kind, alternating, the best of which counts.
fn trials() -> usize {
    if quick() { 1 } else { 7 }
}

const TURNS_PER_ROUND: usize = index_negotiation::NEGOTIATION_MAX_TURNS;

/// Commits each pair makes: its turns, and a resume before every round
/// after the first (the open is not counted, on either side).
fn commits_per_pair() -> usize {
    rounds() * TURNS_PER_ROUND + rounds() - 1
}

/// Where the stores come from: each measurement gets a fresh one.
enum Backend {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// A new store of its own, named for the measurement.
    async fn fresh(&self, label: &str) -> Arc<dyn HostStore> {
        match self {
            Backend::Sqlite(dir) => Arc::new(
                index_negotiation_store_sqlite::SqliteStore::open(
                    dir.path().join(format!("{label}.db")),
                )
                .await
                .unwrap(),
            ),
            Backend::Postgres(url) => {
                let options = index_negotiation_store_postgres::PostgresOptions::default()
                    .with_schema(format!("bench_http_{}_{label}", std::process::id()))
                    .with_max_connections(32);
                Arc::new(
                    index_negotiation_store_postgres::PostgresStore::connect_with(url, options)
                        .await
                        .unwrap(),
                )
            }
        }
    }
}

/// What one HTTP measurement saw.
struct Measured {
    commits: usize,
    elapsed: std::time::Duration,
    p50: std::time::Duration,
    p99: std::time::Duration,
}

impl Measured {
    fn rate(&self) -> f64 {
        self.commits as f64 / self.elapsed.as_secs_f64()
    }
}

async fn run(backend: &Backend) {
    let (mut best_http, mut best_alone): (Option<Measured>, f64) = (None, 0.0);
    // Each trial's two rates side by side: this machine's speed drifts
    // between trials (its disk most), and a ratio of neighbours cancels it.
    let mut ratios = Vec::new();
    for trial in 0..trials() {
        let (mut http_rate, mut alone_rate) = (0.0, 0.0);
        // Each side first in turn, so neither always runs in the other's
        // wake (the kernel still writing back the pages it dirtied).
        for http_now in [trial % 2 == 0, trial % 2 == 1] {
            if http_now {
                let store = backend.fresh(&format!("http_{trial}")).await;
                let measured = turns_over_http(store).await;
                http_rate = measured.rate();
                if best_http
                    .as_ref()
                    .is_none_or(|best| measured.rate() > best.rate())
                {
                    best_http = Some(measured);
                }
            } else {
                // The same work straight through the port: as many lanes,
                // each opening a negotiation and committing as many turns
                // and resumes.
                let store = backend.fresh(&format!("alone_{trial}")).await;
                let pairs = pair_count();
                let commits = u64::try_from(pairs * commits_per_pair()).unwrap();
                let started = Instant::now();
                drive_commits_in_parallel(&store, u64::try_from(pairs).unwrap(), commits).await;
                alone_rate = commits as f64 / started.elapsed().as_secs_f64();
                best_alone = best_alone.max(alone_rate);
            }
        }
        ratios.push(alone_rate / http_rate);
    }
    let best = best_http.unwrap();
    let name = backend.name();
    println!(
        "{name:<10} {} pairs, {} commits in {:.2} s: {:>6.0} commits/s, p50 {:.2} ms, p99 {:.2} ms; 0 lost, 0 doubled",
        pair_count(),
        best.commits,
        best.elapsed.as_secs_f64(),
        best.rate(),
        best.p50.as_secs_f64() * 1e3,
        best.p99.as_secs_f64() * 1e3,
    );
    ratios.sort_by(f64::total_cmp);
    println!(
        "{name:<10} the store alone: {best_alone:>6.0} commits/s; a commit over HTTP takes {:.2}x a bare commit (best against best), {:.2}x (median of {} trials, each side by side; {:.2}x to {:.2}x)",
        best_alone / best.rate(),
        ratios[ratios.len() / 2],
        ratios.len(),
        ratios[0],
        ratios[ratios.len() - 1],
    );
}

/// A host on `store` and a listener for it; every pair opens its
/// negotiation and plays its rounds through the port, timed from the first
/// open; afterwards each log is checked for exactly the turns sent, in
/// order.
async fn turns_over_http(store: Arc<dyn HostStore>) -> Measured {
    let host = Host::new(store.clone()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(serve(host.clone(), listener, Vec::new(), async move {
        let _ = stopped.await;
    }));
    let secret = |user: String, scope| {
        let host = host.clone();
        async move {
            host.create_key(user.parse().unwrap(), scope)
                .await
                .unwrap()
                .secret
        }
    };
    let host_key = secret("host".to_owned(), KeyScope::Host).await;
    // Untimed, as the bare side has nothing like them: each pair's
    // connection, and a first request with every key, which records the
    // key's first use (a write; later uses are recorded at most once a
    // minute).
    let mut pairs = Vec::new();
    let mut connections = Vec::new();
    for pair in 0..pair_count() {
        let id = format!("0b3c9e2a-4f6d-4a8b-9c1d-{pair:012x}");
        let (a, b) = (format!("a-{pair}"), format!("b-{pair}"));
        let keys = (
            secret(a.clone(), KeyScope::Agent).await,
            secret(b.clone(), KeyScope::Agent).await,
        );
        let mut http = Connection::open(address).await;
        for key in [&host_key, &keys.0, &keys.1] {
            let (status, body) = http.send("GET", "/negotiations", key, "").await;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        }
        pairs.push((id, (a, b), keys));
        connections.push(http);
    }
    let started = Instant::now();
    let workers: Vec<_> = pairs
        .iter()
        .cloned()
        .zip(connections)
        .map(|((id, (a_user, b_user), (a, b)), mut http)| {
            let host_key = host_key.clone();
            tokio::spawn(async move {
                let open = json!({"opportunityId": id, "initiator": {"userId": a_user, "intentId": "i"}, "responder": {"userId": b_user, "intentId": "j"}});
                let (status, _) = http.send("POST", "/negotiations", &host_key, &open.to_string()).await;
                assert_eq!(status, 201);
                let (turns, resume) = (
                    format!("/opportunities/{id}/negotiation/turns"),
                    format!("/opportunities/{id}/negotiation/resume"),
                );
                let mut latencies = Vec::new();
                for round in 0..rounds() {
                    // The initiator opens the first round; the responder resumes
                    // the others, and so moves first in them.
                    let (first, second) = if round == 0 { (&a, &b) } else { (&b, &a) };
                    if round > 0 {
                        let sent = Instant::now();
                        let (status, body) = http.send("POST", &resume, first, "").await;
                        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
                        latencies.push(sent.elapsed());
                    }
                    for n in 0..TURNS_PER_ROUND {
                        let (key, action) = if n % 2 == 0 { (first, "propose") } else { (second, "counter") };
                        let turn = json!({"action": action, "message": format!("round {round} turn {n}")}).to_string();
                        let sent = Instant::now();
                        let (status, body) = http.send("POST", &turns, key, &turn).await;
                        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
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
    let _ = stop.send(());
    served.await.unwrap().unwrap();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    // Verify afterwards: each log holds exactly the turns sent, in order.
    for (id, _, _) in &pairs {
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
    assert_eq!(latencies.len(), pair_count() * commits_per_pair());
    Measured {
        commits: latencies.len(),
        elapsed,
        p50: at(0.50),
        p99: at(0.99),
    }
}

/// A keep-alive HTTP/1.1 connection that writes each request whole and
/// reads back its status and body: the least a client can do, so the cores
/// this machine shares between client and host go to the host.
struct Connection {
    stream: tokio::io::BufReader<tokio::net::TcpStream>,
}

impl Connection {
    async fn open(address: std::net::SocketAddr) -> Self {
        let stream = tokio::net::TcpStream::connect(address).await.unwrap();
        stream.set_nodelay(true).unwrap();
        Connection {
            stream: tokio::io::BufReader::new(stream),
        }
    }

    /// Sends `method` to `path` with `key` and `body` (JSON, or nothing);
    /// the status and the body of the reply.
    async fn send(&mut self, method: &str, path: &str, key: &str, body: &str) -> (u16, Vec<u8>) {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: bench\r\nauthorization: Bearer {key}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.stream
            .get_mut()
            .write_all(request.as_bytes())
            .await
            .unwrap();
        let (mut line, mut status, mut length) = (String::new(), None, None);
        loop {
            line.clear();
            assert!(
                self.stream.read_line(&mut line).await.unwrap() > 0,
                "the host hung up"
            );
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if status.is_none() {
                let code = header.split(' ').nth(1).and_then(|code| code.parse().ok());
                status = Some(code.unwrap_or_else(|| panic!("not a status line: {header:?}")));
            } else if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().ok();
            }
        }
        let status = status.expect("a status line");
        let length = length.unwrap_or_else(|| panic!("a {status} reply without a content-length"));
        let mut reply = vec![0; length];
        self.stream.read_exact(&mut reply).await.unwrap();
        (status, reply)
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        run(&Backend::Sqlite(tempfile::tempdir().unwrap())).await;
        match std::env::var("INDEX_TEST_DATABASE_URL") {
            Ok(url) if !url.is_empty() => run(&Backend::Postgres(url)).await,
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
