//! The question loop end to end, as a user runs it: a negotiation stalls,
//! `park` asks a model (a local server speaking OpenAI's wire format) for
//! the one question, the person's client renders the message, and
//! `answer` resumes every negotiation the question unblocks.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/stall.rs"]
mod stall;
mod support;

use std::path::Path;

use index_test_support::openai_server::{Fake, Reply, gap};
use serde_json::{Value, json};

const FIRST: &str = "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81";
const SECOND: &str = "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b";
const THIRD: &str = "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b";

struct Loop {
    dir: tempfile::TempDir,
    db: String,
    model_base: String,
}

impl Loop {
    fn run(&self, args: &[&str], stdin: Option<&str>) -> (Option<i32>, String, String) {
        let mut full: Vec<&str> = args.to_vec();
        if args.contains(&"negotiation") {
            full.extend_from_slice(&["--db", &self.db]);
        }
        let out = support::index(
            self.dir.path(),
            &full,
            stdin,
            &[
                ("INDEX_MODEL_BASE_URL", &self.model_base),
                ("INDEX_MODEL", "gpt-4o"),
                ("INDEX_MODEL_API_KEY", "sk-loop-secret"),
            ],
        );
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(args, None);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        stdout
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut full = vec!["--json"];
        full.extend_from_slice(args);
        serde_json::from_str(&self.ok(&full)).unwrap()
    }

    /// Opens dana ↔ sam on `id` and plays a round to the turn limit.
    fn stall(&self, id: &str) {
        stall::stall(self.dir.path(), &self.db, id);
    }
}

fn question_loop(db: impl Fn(&Path) -> String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (fake, base) = runtime.block_on(Fake::start([
        Reply::Content(gap("How much equity could you offer?")),
        Reply::Content(gap("How much equity could you offer?")),
        // The third park: the model names the counterparty, so the gate must stop it.
        Reply::Content(gap("Would sam accept 2% equity?")),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let world = Loop {
        db: db(dir.path()),
        dir,
        model_base: base,
    };
    for id in [FIRST, SECOND, THIRD] {
        world.stall(id);
    }

    // Park the first in text mode, its output redirected to a file: the
    // file is the question message alone, and the status is on stderr.
    let (code, redirected, status) = world.run(
        &[
            "negotiation",
            "park",
            FIRST,
            "--as",
            "dana",
            "--counterparty-name",
            "sam",
        ],
        None,
    );
    assert_eq!(code, Some(0), "{status}");
    assert!(status.contains("Parked (ask round 1)"), "{status}");
    let question_file = world.dir.path().join("question.txt");
    std::fs::write(&question_file, &redirected).unwrap();
    let (code, rendered, _) = world.run(
        &["question-block", "render", question_file.to_str().unwrap()],
        None,
    );
    assert_eq!(code, Some(0));
    assert!(
        rendered.starts_with("Your agent paused a negotiation: it needs one answer from you"),
        "the person sees the message, not the tool's status: {rendered}"
    );
    assert!(
        !redirected.contains("sam"),
        "the message never names the other seat: {redirected}"
    );
    let parked = world.json(&["negotiation", "show", FIRST, "--as", "dana"]);
    assert_eq!(
        parked["parked"]["question"]["prompt"], "How much equity could you offer?",
        "{parked}"
    );
    // A wait on a parked negotiation ends at once, with its own status.
    let (code, waited, _) = world.run(
        &[
            "--json",
            "negotiation",
            "wait",
            FIRST,
            "--as",
            "sam",
            "--timeout",
            "5",
        ],
        None,
    );
    assert_eq!(code, Some(7), "{waited}");
    assert_eq!(
        serde_json::from_str::<Value>(&waited).unwrap()["ended"],
        "parked"
    );
    let message = redirected;
    // Parked already: refused before any model call.
    let (code, again, _) = world.run(
        &["--json", "negotiation", "park", FIRST, "--as", "sam"],
        None,
    );
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        (code, again["error"]["code"].as_str()),
        (Some(3), Some("already_parked")),
        "a park the rules refuse exits as a refused turn does: {again}"
    );
    assert_eq!(fake.request_count(), 1);
    let turn = world.run(&["negotiation", "resume", FIRST, "--as", "sam"], None);
    assert_eq!(
        turn.0,
        Some(3),
        "a parked negotiation does not resume: {}",
        turn.2
    );
    assert!(turn.2.contains("awaiting_answer"), "{}", turn.2);

    // Park the other two.
    let second = world.json(&[
        "negotiation",
        "park",
        SECOND,
        "--as",
        "dana",
        "--counterparty-name",
        "sam",
    ]);
    assert_eq!(second["outcome"], "parked");
    let unsafe_gap = world.json(&[
        "negotiation",
        "park",
        THIRD,
        "--as",
        "dana",
        "--counterparty-name",
        "sam",
    ]);
    assert_eq!(
        unsafe_gap["outcome"], "unsafe_gap",
        "a question naming the counterparty is not parked"
    );
    assert_eq!(unsafe_gap["rule"], "counterparty_name", "{unsafe_gap}");
    assert_eq!(fake.request_count(), 3);
    let (auth, request) = fake.requests.lock().unwrap()[0].clone();
    assert_eq!(auth.as_deref(), Some("Bearer sk-loop-secret"));
    assert_eq!(request["response_format"]["json_schema"]["strict"], true);

    let shown = world.ok(&["negotiation", "show", FIRST, "--as", "sam"]);
    assert!(shown.contains("Waiting on dana's answer"), "{shown}");
    assert!(
        !shown.contains("How much equity"),
        "sam never sees dana's question: {shown}"
    );
    let shown = world.json(&["negotiation", "show", FIRST, "--as", "sam"]);
    assert_eq!(shown["parked"], Value::Null);
    assert_eq!(shown["negotiation"]["waitingOn"], "dana");
    let shown = world.ok(&["negotiation", "show", FIRST, "--as", "dana"]);
    assert!(
        shown.contains("Waiting on your answer: How much equity could you offer?"),
        "{shown}"
    );
    assert!(
        !world
            .ok(&["negotiation", "show", THIRD, "--as", "sam"])
            .contains("Waiting on"),
        "the unsafe one is not parked"
    );

    // The person's client renders the message: prose, numbered questions, no refs.
    let (code, rendered, _) = world.run(&["question-block", "render", "-"], Some(&message));
    assert_eq!(code, Some(0));
    assert!(
        rendered.contains("1. How much equity could you offer?") && !rendered.contains(FIRST),
        "{rendered}"
    );
    let (_, plain, _) = world.run(
        &["question-block", "render", "-"],
        Some("Just a note, no block."),
    );
    assert_eq!(plain.trim(), "Just a note, no block.");

    // The host merges both parks into one question; the answer resumes both.
    let block = json!({"version": 1, "questions": [{"prompt": "How much equity could you offer?", "opportunityId": FIRST, "alsoUnblocks": [SECOND]}]});
    let merged = world.ok(&[
        "question-block",
        "serialize",
        "--prose",
        "One question unblocks two negotiations.",
        "--block",
        &block.to_string(),
    ]);
    let (code, stdout, stderr) = world.run(
        &[
            "--json",
            "negotiation",
            "answer",
            "--as",
            "dana",
            "--answer",
            "1=1% to 3%",
            "--answer",
            "1=Never mind",
            "--answer",
            "2=?",
        ],
        Some(&merged),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let outcomes: Vec<(&str, &str)> = report["negotiations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["opportunityId"].as_str().unwrap(),
                r["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(outcomes, [(FIRST, "resumed"), (SECOND, "resumed")]);
    assert_eq!(report["duplicates"], json!([0]));
    assert_eq!(report["unknownQuestions"], json!([1]));
    for id in [FIRST, SECOND] {
        let shown = world.json(&["negotiation", "show", id, "--as", "dana"]);
        assert_eq!(
            shown["negotiation"]["awaitingUserId"], "dana",
            "{id}: dana's seat moves first"
        );
        let messages = world.json(&["negotiation", "messages", id]);
        assert_eq!(
            messages.as_array().unwrap().last().unwrap()["parts"][0]["text"],
            "1% to 3%",
            "the answer is on record"
        );
    }

    // Resumed with dana to move: no park until another round runs out.
    let (code, again, _) = world.run(
        &["--json", "negotiation", "park", FIRST, "--as", "dana"],
        None,
    );
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        (code, again["error"]["code"].as_str()),
        (Some(3), Some("not_parkable")),
        "{again}"
    );
    assert_eq!(
        fake.request_count(),
        3,
        "no model call for a park the rules refuse"
    );

    // Delivering again changes nothing.
    let (_, stdout, _) = world.run(
        &[
            "--json",
            "negotiation",
            "answer",
            "--as",
            "dana",
            "--answer",
            "1=1% to 3%",
        ],
        Some(&merged),
    );
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        again["negotiations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "not_waiting"),
        "{again}"
    );
    assert_eq!(
        world
            .json(&["negotiation", "messages", FIRST])
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Not a question message: exit 1, nothing resumed.
    let (code, _, _) = world.run(
        &["negotiation", "answer", "--as", "dana", "--answer", "1=x"],
        Some("no block here"),
    );
    assert_eq!(code, Some(1));
}

#[test]
fn stall_park_render_answer_resume_on_sqlite() {
    question_loop(|dir| dir.join("loop.db").display().to_string());
}

#[test]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
fn stall_park_render_answer_resume_on_postgres() {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL (bash .ci/postgres)");
    // A database of its own, so the fixed ids do not meet an earlier run's.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("loop_{}_{nanos}", std::process::id());
    let (base, _) = url.rsplit_once('/').unwrap();
    let admin = std::process::Command::new("psql")
        .args([&url, "-qc", &format!("CREATE DATABASE {name}")])
        .output()
        .unwrap();
    assert!(
        admin.status.success(),
        "{}",
        String::from_utf8_lossy(&admin.stderr)
    );
    let db = format!("{base}/{name}");
    question_loop(move |_| db.clone());
}

#[test]
fn a_model_that_fails_is_reported_with_its_own_exit_code() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (_fake, base) = runtime.block_on(Fake::start([
        Reply::Status(500, None),
        Reply::Status(500, None),
        Reply::Garbage,
        Reply::Garbage,
    ]));
    let dir = tempfile::tempdir().unwrap();
    let world = Loop {
        db: dir.path().join("loop.db").display().to_string(),
        dir,
        model_base: base,
    };
    world.stall(FIRST);
    for _ in 0..2 {
        let (code, stdout, stderr) = world.run(
            &["--json", "negotiation", "park", FIRST, "--as", "dana"],
            None,
        );
        assert_eq!(code, Some(5), "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["outcome"], "author_failed", "{report}");
        assert!(
            report["error"]
                .as_str()
                .unwrap()
                .contains("model call failed"),
            "{report}"
        );
        assert!(
            stderr.contains("WARN"),
            "logged at warn by default: {stderr}"
        );
        assert!(!stderr.contains("sk-loop-secret") && !stdout.contains("sk-loop-secret"));
    }
    // Nobody listening at all: the same, in text mode.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let unreachable = Loop {
        model_base: format!("http://{}/v1", closed.local_addr().unwrap()),
        db: world.db.clone(),
        dir: tempfile::tempdir().unwrap(),
    };
    drop(closed);
    let (code, stdout, stderr) =
        unreachable.run(&["negotiation", "park", FIRST, "--as", "dana"], None);
    assert_eq!((code, stdout.as_str()), (Some(5), ""), "{stderr}");
    assert!(
        stderr.contains("no park: the model call failed"),
        "{stderr}"
    );
    let shown = world.json(&["negotiation", "show", FIRST, "--as", "dana"]);
    assert_eq!(shown["parked"], Value::Null, "nothing parked");
}
