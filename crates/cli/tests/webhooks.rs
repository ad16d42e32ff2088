//! Webhooks as operators and receivers meet them: endpoints registered
//! with the tool and over REST, steps committed by the tool and by agents
//! on `index serve`, and a receiver that verifies every delivery with the
//! Standard Webhooks reference package (`webhook_receiver.py`). The
//! receiver goes down and comes back, fails half its deliveries, sees a
//! host killed with SIGKILL; two hosts share one PostgreSQL store.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/serve.rs"]
mod serve;
mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const NEEDS_PYTHON: &str =
    "INDEX_TEST_PYTHON names a Python with the test requirements (.ci/run makes one)";

/// Quick retries, so a test sees a whole schedule in seconds (the store
/// keeps whole seconds: a wait under one is no wait at all).
const QUICK_RETRIES: &str = "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s";

/// The receiver, running.
struct Receiver {
    child: Child,
    address: String,
    dir: PathBuf,
}

impl Receiver {
    /// Starts `webhook_receiver.py` keeping its files in `dir`, failing a
    /// share `fail_rate` of deliveries.
    fn start(dir: &Path, fail_rate: f64) -> Receiver {
        let python = std::env::var("INDEX_TEST_PYTHON").expect(NEEDS_PYTHON);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/webhook_receiver.py");
        std::fs::write(dir.join("secrets.json"), "{}").unwrap();
        let mut child = Command::new(python)
            .arg(script)
            .arg(dir)
            .args(["--fail-rate", &fail_rate.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("the receiver did not start: {line:?}"))
            .to_owned();
        Receiver {
            child,
            address,
            dir: dir.to_owned(),
        }
    }

    fn url(&self, name: &str) -> String {
        format!("http://{}/hooks/{name}", self.address)
    }

    /// Sets the secrets each endpoint's deliveries are verified with.
    fn trust(&self, secrets: &BTreeMap<&str, Vec<String>>) {
        std::fs::write(self.dir.join("secrets.json"), json!(secrets).to_string()).unwrap();
    }

    /// Refuses every delivery with 503 while `down`.
    fn set_down(&self, down: bool) {
        let flag = self.dir.join("down");
        if down {
            std::fs::write(flag, "").unwrap();
        } else {
            std::fs::remove_file(flag).unwrap();
        }
    }

    /// Every request received so far.
    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("received.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The verified deliveries to `endpoint`, in the order received.
    fn delivered(&self, endpoint: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|record| record["endpoint"] == endpoint && record["outcome"] == "delivered")
            .collect()
    }

    /// Waits until `endpoint` has `count` verified deliveries.
    fn wait_for(&self, endpoint: &str, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let delivered = self.delivered(endpoint);
            if delivered.len() >= count {
                return delivered;
            }
            assert!(
                Instant::now() < deadline,
                "{endpoint}: {} of {count} delivered; received: {:#?}",
                delivered.len(),
                self.records()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `index webhooks add --url URL ARGS --json`: the endpoint's id and its
/// secret.
fn add(dir: &Path, db: &str, url: &str, args: &[&str]) -> (String, String) {
    let mut full = vec!["webhooks", "add", "--url", url];
    full.extend_from_slice(args);
    let added = support::index_json(dir, db, &full);
    (
        added["id"].as_str().unwrap().to_owned(),
        added["secret"].as_str().unwrap().to_owned(),
    )
}

/// `index negotiation ARGS --db DB`, which must succeed.
fn negotiation(dir: &Path, db: &str, args: &[&str]) {
    let mut full = vec!["negotiation"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--db", db]);
    let out = support::index(dir, &full, None, &[]);
    assert!(
        out.status.success(),
        "index {full:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Opens `id` between `initiator` and `responder`.
fn open(dir: &Path, db: &str, id: &str, initiator: &str, responder: &str) {
    negotiation(
        dir,
        db,
        &[
            "open",
            "--initiator",
            initiator,
            "--initiator-intent",
            "hire",
            "--responder",
            responder,
            "--responder-intent",
            "join",
            "--opportunity-id",
            id,
        ],
    );
}

fn turn(dir: &Path, db: &str, id: &str, who: &str, action: &str) {
    let message = format!("{who} will {action}");
    negotiation(
        dir,
        db,
        &[
            "turn",
            id,
            "--as",
            who,
            "--action",
            action,
            "--message",
            &message,
        ],
    );
}

/// The event types of `deliveries`, in order.
fn types(deliveries: &[Value]) -> Vec<String> {
    deliveries
        .iter()
        .map(|record| record["event"]["type"].as_str().unwrap().to_owned())
        .collect()
}

/// A negotiation's id, `n` of a test.
fn opportunity(n: u32) -> String {
    format!("0c6e9a52-3b1d-4f7e-a2c8-{n:012x}")
}

/// The README's session, played by the tool while a host delivers: the
/// host's endpoint and each seat's person's hear every step, in order,
/// each verified; a stranger hears nothing of it, nor dana of the
/// stranger's own negotiation; an endpoint that wants settlements only
/// hears the settlement. A rotated secret and the one it replaced both
/// verify during the overlap.
#[test]
#[ignore = "needs Python with standardwebhooks: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn a_negotiation_reaches_its_people_and_the_host_signed_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let db = here.join("index.db");
    let db = db.to_str().unwrap();
    let receiver = Receiver::start(here, 0.0);
    let (_, ops) = add(here, db, &receiver.url("ops"), &["--host"]);
    let (_, dana) = add(here, db, &receiver.url("dana"), &["--user", "dana"]);
    let (_, sam) = add(here, db, &receiver.url("sam"), &["--user", "sam"]);
    let (_, lee) = add(here, db, &receiver.url("lee"), &["--user", "lee"]);
    let settled = ["--user", "dana", "--events", "negotiation.settled"];
    let (settled_id, settled_secret) = add(here, db, &receiver.url("settled"), &settled);
    let mut secrets = BTreeMap::from([
        ("ops", vec![ops]),
        ("dana", vec![dana]),
        ("sam", vec![sam]),
        ("lee", vec![lee]),
        ("settled", vec![settled_secret.clone()]),
    ]);
    receiver.trust(&secrets);
    let host = serve::Host::start_with_args(
        here,
        db,
        &[],
        &[
            "--webhooks-allow-private",
            "--webhook-retries",
            QUICK_RETRIES,
        ],
    );

    let id = opportunity(1);
    open(here, db, &id, "dana", "sam");
    turn(here, db, &id, "dana", "propose");
    turn(here, db, &id, "sam", "decline");
    negotiation(here, db, &["resume", &id, "--as", "sam"]);
    turn(here, db, &id, "sam", "propose");
    // The settled endpoint's secret is rotated before the last step: the
    // receiver, still holding only the old one, verifies it.
    let rotated = support::index_json(here, db, &["webhooks", "rotate-secret", &settled_id]);
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, settled_secret);
    assert!(rotated["previousSecretUntil"].is_string());
    turn(here, db, &id, "dana", "accept");
    let strangers = opportunity(2);
    open(here, db, &strangers, "lee", "kim");

    let whole = [
        "negotiation.opened",
        "negotiation.turn_taken",
        "negotiation.round_ended",
        "negotiation.resumed",
        "negotiation.turn_taken",
        "negotiation.settled",
    ];
    let ours = |deliveries: Vec<Value>| -> Vec<Value> {
        deliveries
            .into_iter()
            .filter(|record| record["event"]["data"]["negotiationId"] == id.as_str())
            .collect()
    };
    let ops_seen = receiver.wait_for("ops", whole.len() + 1);
    assert_eq!(types(&ours(ops_seen.clone())), whole);
    assert_eq!(types(&receiver.wait_for("dana", whole.len())), whole);
    assert_eq!(types(&receiver.wait_for("sam", whole.len())), whole);
    assert_eq!(
        types(&receiver.wait_for("settled", 1)),
        ["negotiation.settled"]
    );
    let lees = receiver.wait_for("lee", 1);
    assert_eq!(types(&lees), ["negotiation.opened"]);
    assert_eq!(
        lees[0]["event"]["data"]["negotiationId"],
        strangers.as_str()
    );
    // A moment later, none has heard anything more.
    std::thread::sleep(Duration::from_secs(1));
    let counts = [
        ("ops", whole.len() + 1),
        ("dana", whole.len()),
        ("sam", whole.len()),
        ("settled", 1),
        ("lee", 1),
    ];
    for (endpoint, count) in counts {
        assert_eq!(receiver.delivered(endpoint).len(), count, "{endpoint}");
    }

    // Each event is one id, the same at every endpoint; its body says
    // who did what, and nothing of the messages.
    let ids = |deliveries: &[Value]| -> Vec<String> {
        deliveries
            .iter()
            .map(|record| record["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let dana_seen = receiver.delivered("dana");
    assert_eq!(ids(&ours(ops_seen)), ids(&dana_seen));
    let decline = &dana_seen[2]["event"]["data"];
    assert_eq!(
        (decline["user"].as_str(), decline["action"].as_str()),
        (Some("sam"), Some("decline"))
    );
    assert!(
        !receiver
            .records()
            .iter()
            .any(|record| record.to_string().contains("will propose")),
        "no message reaches a webhook"
    );
    assert!(
        receiver
            .records()
            .iter()
            .all(|record| record["outcome"] == "delivered"),
        "every delivery verified: {:#?}",
        receiver.records()
    );

    // With only the new secret trusted, the next event verifies as well.
    secrets.insert("settled", vec![new_secret]);
    receiver.trust(&secrets);
    let third = opportunity(3);
    open(here, db, &third, "dana", "sam");
    turn(here, db, &third, "dana", "propose");
    turn(here, db, &third, "sam", "accept");
    assert_eq!(receiver.wait_for("settled", 2).len(), 2);
    host.stop();
}

/// The receiver is down for a while, then up: every event arrives, none
/// lost, each once. A host killed with SIGKILL leaves the events the tool
/// commits meanwhile in the outbox, and the host started after it
/// delivers them. `index webhooks list` shows an endpoint that gave up,
/// with its reason, and a replay sends its events again under the same
/// ids.
#[test]
#[ignore = "needs Python with standardwebhooks: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn no_event_is_lost_to_a_receiver_down_or_a_host_killed() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let db = here.join("index.db");
    let db = db.to_str().unwrap();
    let receiver = Receiver::start(here, 0.0);
    let (ops_id, ops) = add(here, db, &receiver.url("ops"), &["--host"]);
    receiver.trust(&BTreeMap::from([("ops", vec![ops])]));
    let args = [
        "--webhooks-allow-private",
        "--webhook-retries",
        QUICK_RETRIES,
    ];
    let host = serve::Host::start_with_args(here, db, &[], &args);

    receiver.set_down(true);
    let id = opportunity(1);
    open(here, db, &id, "dana", "sam");
    turn(here, db, &id, "dana", "propose");
    turn(here, db, &id, "sam", "counter");
    std::thread::sleep(Duration::from_millis(2500));
    let records = receiver.records();
    assert!(
        !records.is_empty() && records.iter().all(|record| record["outcome"] == "down"),
        "tried while down, and nothing delivered: {records:#?}"
    );
    receiver.set_down(false);
    let seen = receiver.wait_for("ops", 3);
    assert_eq!(
        types(&seen),
        [
            "negotiation.opened",
            "negotiation.turn_taken",
            "negotiation.turn_taken"
        ]
    );

    // Killed outright: nothing of it runs, and the tool goes on.
    let mut killed = host;
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    turn(here, db, &id, "dana", "propose");
    turn(here, db, &id, "sam", "accept");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(receiver.delivered("ops").len(), 3, "no host, no delivery");
    let restarted = serve::Host::start_with_args(here, db, &[], &args);
    let seen = receiver.wait_for("ops", 5);
    assert_eq!(
        types(&seen[3..]),
        ["negotiation.turn_taken", "negotiation.settled"]
    );
    std::thread::sleep(Duration::from_secs(1));
    let seen = receiver.delivered("ops");
    let ids: std::collections::BTreeSet<&str> =
        seen.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        (seen.len(), ids.len()),
        (5, 5),
        "each event once, under its own id"
    );

    // A receiver that stays down exhausts the schedule: the endpoint is
    // disabled with the reason, and a replay sends its events again.
    receiver.set_down(true);
    open(here, db, &opportunity(2), "dana", "sam");
    let deadline = Instant::now() + Duration::from_secs(60);
    let disabled = loop {
        let listed = support::index_json(here, db, &["webhooks", "list"]);
        let ops = listed.as_array().unwrap()[0].clone();
        if !ops["disabled"].is_null() {
            break ops;
        }
        assert!(Instant::now() < deadline, "never given up: {listed}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let reason = disabled["disabled"]["reason"].as_str().unwrap();
    assert!(reason.contains("HTTP 503"), "{reason}");
    let text = support::index(here, &["webhooks", "list", "--db", db], None, &[]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("HTTP 503"));
    receiver.set_down(false);
    let replayed = support::index_json(here, db, &["webhooks", "replay", &ops_id]);
    assert_eq!(replayed["queued"], 6);
    let again = receiver.wait_for("ops", 11);
    let first: Vec<&Value> = seen.iter().map(|r| &r["id"]).collect();
    let replay: Vec<&Value> = again[5..]
        .iter()
        .filter(|r| r["event"]["data"]["negotiationId"] == id.as_str())
        .map(|r| &r["id"])
        .collect();
    assert_eq!(first, replay, "a replay sends under the same ids, in order");
    restarted.stop();
}

/// With the receiver failing half its deliveries at random, every event
/// still arrives, each verified, duplicates only under the same id; the
/// figures are printed for the record.
#[test]
#[ignore = "needs Python with standardwebhooks: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn half_the_deliveries_failing_lose_no_event() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let db = here.join("index.db");
    let db = db.to_str().unwrap();
    let receiver = Receiver::start(here, 0.5);
    let (_, ops) = add(here, db, &receiver.url("ops"), &["--host"]);
    receiver.trust(&BTreeMap::from([("ops", vec![ops])]));
    // Twenty-one retries of no wait: giving up takes 22 failures in a row.
    let retries = vec!["100ms"; 21].join(",");
    let args = [
        "--webhooks-allow-private",
        "--webhook-retries",
        retries.as_str(),
    ];
    let host = serve::Host::start_with_args(here, db, &[], &args);
    let mut events = 0;
    for n in 1..=4 {
        let id = opportunity(n);
        open(here, db, &id, "dana", "sam");
        turn(here, db, &id, "dana", "propose");
        for k in 0..7 {
            let who = if k % 2 == 0 { "sam" } else { "dana" };
            turn(here, db, &id, who, "counter");
        }
        events += 9;
    }
    let delivered = receiver.wait_for("ops", events);
    let records = receiver.records();
    let failed = records.iter().filter(|r| r["outcome"] == "failed").count();
    assert!(
        records
            .iter()
            .all(|r| r["outcome"] == "delivered" || r["outcome"] == "failed"),
        "every delivered one verified"
    );
    let mut ids: Vec<&str> = delivered
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let sent = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), events, "every event arrived: none lost");
    for n in 1..=4 {
        let id = opportunity(n);
        let kinds: Vec<String> = delivered
            .iter()
            .filter(|r| r["event"]["data"]["negotiationId"] == id.as_str())
            .map(|r| r["event"]["type"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(kinds.len(), 9);
        assert_eq!(kinds[0], "negotiation.opened");
        // In the order of their steps: the audit entries' numbers grow.
        let numbers: Vec<u64> = delivered
            .iter()
            .filter(|r| r["event"]["data"]["negotiationId"] == id.as_str())
            .map(|r| r["id"].as_str().unwrap()[4..].parse().unwrap())
            .collect();
        assert!(
            numbers.windows(2).all(|pair| pair[0] < pair[1]),
            "{numbers:?}"
        );
    }
    assert_eq!(sent, ids.len(), "one host, no lapsed lease: no duplicate");
    eprintln!(
        "webhooks, receiver failing half: {events} events, {} attempts, {sent} delivered, {} duplicates, {} lost, {failed} failed attempts",
        records.len(),
        sent - ids.len(),
        events - ids.len()
    );
    host.stop();
}

/// Over REST, an agent's key manages its own person's endpoints only; a
/// host key sees and manages every one, and may register the host's own.
/// Secrets are shown once.
#[test]
fn endpoints_are_managed_over_rest_each_by_whom_it_belongs_to() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let db = here.join("index.db");
    let db = db.to_str().unwrap();
    let key = |user: &str, host: bool| {
        let mut args = vec!["keys", "create", "--user", user];
        if host {
            args.push("--host");
        }
        support::index_json(here, db, &args)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (ops, dana, sam) = (key("ops", true), key("dana", false), key("sam", false));
    let host = serve::Host::start(here, db);

    let hook = json!({"url": "https://hooks.example/dana", "events": ["negotiation.parked"]});
    let (status, made) = host.request("POST", "/webhooks", &dana, Some(&hook));
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["user"], "dana");
    assert_eq!(made["events"], json!(["negotiation.parked"]));
    assert!(made["secret"].as_str().unwrap().starts_with("whsec_"));
    let dana_hook = made["id"].as_str().unwrap().to_owned();

    let for_sam = json!({"url": "https://hooks.example/sam", "user": "sam"});
    let (status, _) = host.request("POST", "/webhooks", &dana, Some(&for_sam));
    assert_eq!(status, 403, "an agent registers for its own person only");
    let (status, made) = host.request("POST", "/webhooks", &ops, Some(&for_sam));
    assert_eq!(status, 201);
    assert_eq!(made["user"], "sam");
    let everything = json!({"url": "https://ops.example/index"});
    let (status, made) = host.request("POST", "/webhooks", &ops, Some(&everything));
    assert_eq!(status, 201);
    assert!(made["user"].is_null() && made["events"].is_null());
    for bad in [
        json!({"url": "ftp://hooks.example/"}),
        json!({"url": "https://user:pass@hooks.example/"}),
        json!({"url": "https://hooks.example/", "events": ["negotiation.erased"]}),
    ] {
        let (status, body) = host.request("POST", "/webhooks", &ops, Some(&bad));
        assert_eq!(status, 400, "{bad}: {body}");
    }

    let (status, listed) = host.request("GET", "/webhooks", &dana, None);
    assert_eq!(status, 200);
    assert_eq!(listed.as_array().unwrap().len(), 1, "dana sees her own");
    assert!(listed[0].get("secret").is_none(), "a secret is shown once");
    let (_, listed) = host.request("GET", "/webhooks", &ops, None);
    assert_eq!(listed.as_array().unwrap().len(), 3);

    let path = format!("/webhooks/{dana_hook}");
    let (status, _) = host.request("DELETE", &path, &sam, None);
    assert_eq!(
        status, 404,
        "another person's endpoint is not there for sam"
    );
    let (status, _) = host.request("POST", &format!("{path}/rotate-secret"), &sam, None);
    assert_eq!(status, 404);
    let (status, _) = host.request("POST", &format!("{path}/replay"), &sam, Some(&json!({})));
    assert_eq!(status, 404);
    let (status, rotated) = host.request("POST", &format!("{path}/rotate-secret"), &dana, None);
    assert_eq!(status, 200);
    assert!(rotated["previousSecretUntil"].is_string());
    let range = json!({});
    let (status, replayed) = host.request("POST", &format!("{path}/replay"), &dana, Some(&range));
    assert_eq!((status, replayed), (200, json!({"queued": 0})));
    let (status, _) = host.request("DELETE", &path, &dana, None);
    assert_eq!(status, 204);
    let (status, _) = host.request("DELETE", &path, &dana, None);
    assert_eq!(status, 404);
    host.stop();
}

/// Without `--webhooks-allow-private`, a host sends nothing to a loopback
/// address, written in the URL or resolved from a name: the delivery is
/// given up at once and the endpoint disabled, saying why.
#[test]
fn a_host_sends_nothing_to_a_private_address() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let db = here.join("index.db");
    let db = db.to_str().unwrap();
    add(here, db, "http://127.0.0.1:9/hook", &["--host"]);
    add(here, db, "http://localhost:9/hook", &["--host"]);
    let host = serve::Host::start(here, db);
    open(here, db, &opportunity(1), "dana", "sam");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = support::index_json(here, db, &["webhooks", "list"]);
        let reasons: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|endpoint| endpoint["disabled"]["reason"].as_str())
            .collect();
        if reasons.len() == 2 {
            assert_eq!(reasons, ["a private address (not retried)"; 2]);
            break;
        }
        assert!(Instant::now() < deadline, "not given up: {listed}");
        std::thread::sleep(Duration::from_millis(100));
    }
    host.stop();
}

/// Two hosts on one PostgreSQL store: each event is delivered once, by
/// one of them.
#[test]
#[ignore = "needs PostgreSQL and Python with standardwebhooks: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) INDEX_TEST_PYTHON=… cargo test -- --ignored"]
fn two_hosts_on_postgres_deliver_each_event_once() {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL names the test database (bash .ci/postgres)");
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let receiver = Receiver::start(here, 0.0);
    // People of this run only: the database is shared with other tests.
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let (dana, sam) = (format!("dana-{tag}"), format!("sam-{tag}"));
    let (hook, secret) = add(here, &url, &receiver.url("dana"), &["--user", &dana]);
    receiver.trust(&BTreeMap::from([("dana", vec![secret])]));
    let args = [
        "--webhooks-allow-private",
        "--webhook-retries",
        QUICK_RETRIES,
    ];
    let first = serve::Host::start_with_args(here, &url, &[], &args);
    let second = serve::Host::start_with_args(here, &url, &[], &args);
    let mut events = 0;
    for _ in 0..6 {
        let id = uuid::Uuid::new_v4().to_string();
        open(here, &url, &id, &dana, &sam);
        turn(here, &url, &id, &dana, "propose");
        turn(here, &url, &id, &sam, "accept");
        events += 3;
    }
    let delivered = receiver.wait_for("dana", events);
    std::thread::sleep(Duration::from_millis(1500));
    let records = receiver.records();
    assert_eq!(
        records.len(),
        events,
        "one attempt per event, none twice: {records:#?}"
    );
    let mut ids: Vec<&str> = delivered
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), events);
    support::index_json(here, &url, &["webhooks", "remove", &hook]);
    first.stop();
    second.stop();
}
