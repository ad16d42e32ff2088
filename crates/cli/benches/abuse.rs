//! `index serve` under abuse from one client, with a fresh client probing
//! it throughout: silent connections and HTTP/2 prefaces, then MCP
//! `initialize` calls without end, then SIGTERM with thousands of idle
//! connections and a hundred waits open.
//!
//! `cargo bench -p index-cli --bench abuse` runs the full attack (20,000
//! silent connections, 20,000 initializes, 10,000 idle connections at the
//! stop) and prints, per phase, the fresh client's latency (p50, p99,
//! max, failures) and the host's resident memory (before, at the peak,
//! after); then how long the stop took and how many waits it answered.
//! `cargo test --bench abuse` runs a small version and checks only that
//! every probe and every wait was answered and the host exited cleanly:
//! nothing is timed in a test.
//!
//! Everything stays on loopback: the attacker connects from 127.0.0.1 (and
//! 127.0.1.x for the idle connections at the stop), the probe from
//! 127.0.0.2, every loop is bounded, and the host is stopped at the end.

// A benchmark reports on standard output and fails by its exit status.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const OPP: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";

/// How big each attack is.
struct Scale {
    silent: usize,
    initialize: usize,
    idle_at_stop: usize,
    waits: usize,
    session_idle_secs: u64,
}

const FULL: Scale = Scale {
    silent: 20_000,
    initialize: 20_000,
    idle_at_stop: 10_000,
    waits: 100,
    session_idle_secs: 10,
};

const SMALL: Scale = Scale {
    silent: 600,
    initialize: 200,
    idle_at_stop: 300,
    waits: 10,
    session_idle_secs: 2,
};

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let scale = if full { FULL } else { SMALL };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("abuse: no runtime: {err}");
            std::process::exit(1);
        }
    };
    if let Err(failure) = runtime.block_on(run(&scale, full)) {
        eprintln!("abuse: {failure}");
        std::process::exit(1);
    }
}

type Failure = Box<dyn std::error::Error>;

fn index(dir: &Path, args: &[&str]) -> Result<(), Failure> {
    let status = Command::new(env!("CARGO_BIN_EXE_index"))
        .current_dir(dir)
        .env_remove("INDEX_DB")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("index {args:?} failed: {status}").into())
    }
}

/// `index serve` on a free port; its address from its first line.
fn serve(dir: &Path, scale: &Scale) -> Result<(Child, SocketAddr), Failure> {
    let idle = scale.session_idle_secs.to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_index"))
        .current_dir(dir)
        .env_remove("INDEX_DB")
        .env("RUST_LOG", "warn")
        .args(["serve", "--db", "index.db", "--listen", "127.0.0.1:0"])
        .args(["--mcp-session-idle", &idle])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut stderr = BufReader::new(stderr);
    let mut line = String::new();
    stderr.read_line(&mut line)?;
    let address = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or_else(|| format!("the host did not start: {line}"))?
        .parse()?;
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    Ok((child, address))
}

/// The host's resident memory, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

async fn connect_from(from: [u8; 4], to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(to).await
}

/// One request on a fresh connection; the status and the whole answer.
async fn request(
    from: [u8; 4],
    to: SocketAddr,
    head: &str,
    body: &str,
) -> std::io::Result<(u16, String)> {
    let mut stream = connect_from(from, to).await?;
    stream
        .write_all(
            format!(
                "{head}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await?;
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    Ok((status, reply))
}

/// A fresh client asking `/healthz` every 10 ms until `stop`: each
/// answer's latency, and how many were not answered 200 within 5 s.
async fn probe(to: SocketAddr, stop: Arc<AtomicBool>) -> (Vec<Duration>, usize) {
    let mut latencies = Vec::new();
    let mut failed = 0;
    while !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        let asked = tokio::time::timeout(
            Duration::from_secs(5),
            request(
                [127, 0, 0, 2],
                to,
                "GET /healthz HTTP/1.1\r\nhost: x\r\n",
                "",
            ),
        )
        .await;
        match asked {
            Ok(Ok((200, _))) => latencies.push(started.elapsed()),
            _ => failed += 1,
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (latencies, failed)
}

/// What one phase measured.
struct Phase {
    name: &'static str,
    latencies: Vec<Duration>,
    failed: usize,
    rss_before: f64,
    rss_peak: f64,
    rss_after: f64,
}

impl Phase {
    fn print(&mut self) {
        self.latencies.sort();
        let at = |q: f64| {
            let n = self.latencies.len();
            if n == 0 {
                return 0.0;
            }
            let i = ((n as f64 * q).ceil() as usize).clamp(1, n) - 1;
            self.latencies
                .get(i)
                .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        println!(
            "{:<34} probes {:>5}  failed {:>3}  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  RSS {:>6.1} -> {:>6.1} -> {:>6.1} MiB",
            self.name,
            self.latencies.len(),
            self.failed,
            at(0.5),
            at(0.99),
            at(1.0),
            self.rss_before,
            self.rss_peak,
            self.rss_after,
        );
    }
}

/// Runs `attack` while the probe asks and the host's memory is sampled;
/// `settle` is how long to wait after it before the memory is read again.
async fn phase<F>(
    name: &'static str,
    pid: u32,
    to: SocketAddr,
    settle: Duration,
    attack: F,
) -> Phase
where
    F: std::future::Future<Output = ()>,
{
    let rss_before = rss_mib(pid);
    let stop = Arc::new(AtomicBool::new(false));
    let probing = tokio::spawn(probe(to, stop.clone()));
    let peak = Arc::new(std::sync::Mutex::new(rss_before));
    let sampling = {
        let (stop, peak) = (stop.clone(), peak.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let now = rss_mib(pid);
                if let Ok(mut peak) = peak.lock() {
                    *peak = peak.max(now);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    attack.await;
    stop.store(true, Ordering::Relaxed);
    let (latencies, failed) = probing.await.unwrap_or_default();
    let _ = sampling.await;
    tokio::time::sleep(settle).await;
    let rss_peak = peak.lock().map_or(0.0, |peak| *peak);
    Phase {
        name,
        latencies,
        failed,
        rss_before,
        rss_peak,
        rss_after: rss_mib(pid),
    }
}

/// Opens `count` connections from 127.0.0.1, 256 connecting at a time,
/// each sending nothing or part of an HTTP/2 preface and then held until
/// the host closes it (at most 15,000 held at once, within the
/// descriptors one process has).
async fn silent(to: SocketAddr, count: usize) {
    let connecting = Arc::new(tokio::sync::Semaphore::new(256));
    let holding = Arc::new(tokio::sync::Semaphore::new(15_000));
    let mut held = tokio::task::JoinSet::new();
    for n in 0..count {
        let Ok(held_permit) = holding.clone().acquire_owned().await else {
            break;
        };
        let Ok(connect_permit) = connecting.clone().acquire_owned().await else {
            break;
        };
        held.spawn(async move {
            let connected = connect_from([127, 0, 0, 1], to).await;
            if let Ok(mut stream) = connected {
                let opening: &[u8] = match n % 3 {
                    0 => b"",
                    1 => b"PRI * HTTP/2.0\r\n",
                    _ => b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
                };
                let _ = stream.write_all(opening).await;
                drop(connect_permit);
                let mut buf = [0u8; 64];
                // Held until the host closes it: at once when over the
                // address's budget, else at the head deadline.
                let _ = tokio::time::timeout(Duration::from_secs(15), stream.read(&mut buf)).await;
            }
            drop(held_permit);
        });
        while held.try_join_next().is_some() {}
    }
    while held.join_next().await.is_some() {}
}

/// `count` MCP initializes from 127.0.0.1 as `key`, 16 at a time, none
/// ever deleted; how many were answered 200.
async fn initializes(to: SocketAddr, key: &str, count: usize) -> usize {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"abuse","version":"1"}}}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {key}\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\n"
    );
    let head = Arc::new(head);
    let answered = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(tokio::sync::Semaphore::new(16));
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..count {
        let Ok(permit) = gate.clone().acquire_owned().await else {
            break;
        };
        let (head, answered) = (head.clone(), answered.clone());
        calls.spawn(async move {
            if let Ok(Ok((200, _))) = tokio::time::timeout(
                Duration::from_secs(10),
                request([127, 0, 0, 1], to, &head, body),
            )
            .await
            {
                answered.fetch_add(1, Ordering::Relaxed);
            }
            drop(permit);
        });
        while calls.try_join_next().is_some() {}
    }
    while calls.join_next().await.is_some() {}
    answered.load(Ordering::Relaxed)
}

async fn run(scale: &Scale, full: bool) -> Result<(), Failure> {
    let dir = tempfile::tempdir()?;
    let path = dir.path();
    for user in ["dana", "sam"] {
        index(
            path,
            &[
                "keys",
                "create",
                "--db",
                "index.db",
                "--user",
                user,
                "--output",
                &format!("{user}.key"),
            ],
        )?;
    }
    index(
        path,
        &[
            "negotiation",
            "open",
            "--db",
            "index.db",
            "--initiator",
            "dana",
            "--initiator-intent",
            "hire",
            "--responder",
            "sam",
            "--responder-intent",
            "join",
            "--opportunity-id",
            OPP,
        ],
    )?;
    let dana = std::fs::read_to_string(path.join("dana.key"))?
        .trim()
        .to_owned();
    let sam = std::fs::read_to_string(path.join("sam.key"))?
        .trim()
        .to_owned();
    let (mut child, to) = serve(path, scale)?;
    let pid = child.id();
    println!(
        "abuse ({} scale): {} silent connections, {} MCP initializes, stop with {} idle connections and {} waits",
        if full { "full" } else { "small" },
        scale.silent,
        scale.initialize,
        scale.idle_at_stop,
        scale.waits
    );
    let mut silent_phase = phase(
        "silent connections and h2 prefaces",
        pid,
        to,
        Duration::from_secs(1),
        silent(to, scale.silent),
    )
    .await;
    silent_phase.print();
    let answered = Arc::new(AtomicUsize::new(0));
    let counted = answered.clone();
    // Idle sessions close, then the allocator returns what they held.
    let settle = Duration::from_secs(scale.session_idle_secs + if full { 15 } else { 3 });
    let mut sessions_phase = phase(
        "MCP initializes, never deleted",
        pid,
        to,
        settle,
        async move {
            counted.store(
                initializes(to, &dana, scale.initialize).await,
                Ordering::Relaxed,
            );
        },
    )
    .await;
    sessions_phase.print();
    println!(
        "  initializes answered 200: {}",
        answered.load(Ordering::Relaxed)
    );

    // The stop: waits from one address, then idle connections from 40
    // others (those past the connection cap wait in the backlog).
    let mut waits = tokio::task::JoinSet::new();
    for _ in 0..scale.waits {
        let head = format!(
            "GET /opportunities/{OPP}/negotiation?wait=50 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {sam}\r\n"
        );
        waits.spawn(async move { request([127, 0, 0, 4], to, &head, "").await });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut idle = Vec::new();
    for n in 0..scale.idle_at_stop {
        let from = [127, 0, 1, u8::try_from(n % 40).unwrap_or(0) + 1];
        idle.push(connect_from(from, to).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    let exit = tokio::task::spawn_blocking(move || child.wait()).await??;
    let took = started.elapsed();
    let mut waits_answered = 0;
    while let Some(wait) = waits.join_next().await {
        if let Ok(Ok((200, _))) = wait {
            waits_answered += 1;
        }
    }
    drop(idle);
    println!(
        "SIGTERM with {} idle connections and {} waits: exited {} in {:.0} ms, waits answered {}/{}",
        scale.idle_at_stop,
        scale.waits,
        exit,
        took.as_secs_f64() * 1000.0,
        waits_answered,
        scale.waits
    );
    if !full {
        let probes_failed = silent_phase.failed + sessions_phase.failed;
        if probes_failed > 0 || waits_answered != scale.waits || !exit.success() {
            return Err(format!(
                "probes failed {probes_failed}, waits answered {waits_answered}/{}, exit {exit}",
                scale.waits
            )
            .into());
        }
    }
    Ok(())
}
