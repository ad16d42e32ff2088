//! The question judge as an operator turns it on: `index serve
//! --gate-judge` and `index negotiation park --gate-judge`, on a local
//! server speaking OpenAI's wire format. What it calls safe parks, what it
//! refuses or cannot judge does not (unless told to fail open), and
//! `/metrics` counts its verdicts and the tokens it was billed.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/serve.rs"]
mod serve;
#[path = "support/stall.rs"]
mod stall;
mod support;

use index_test_support::openai_server::{Fake, Reply, gap};
use serde_json::{Value, json};

const FIRST: &str = "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81";
const SECOND: &str = "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b";
const THIRD: &str = "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b";

fn verdict(verdict: &str, reason: &str) -> Reply {
    Reply::Content(json!({"verdict": verdict, "reason": reason}).to_string())
}

fn fake(replies: Vec<Reply>) -> (tokio::runtime::Runtime, Fake, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (fake, base) = runtime.block_on(Fake::start(replies));
    (runtime, fake, base)
}

/// The value of the metric line that starts with `name`.
fn metric(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"))
}

#[test]
fn a_host_with_a_judge_parks_what_it_calls_safe_and_counts_every_verdict() {
    let question = || Reply::Content(gap("How much equity could you offer?"));
    let (_runtime, fake, base) = fake(vec![
        question(),
        verdict("safe", "none"),
        question(),
        verdict("unsafe", "echo"),
        question(),
        Reply::Garbage,
    ]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("judge.db").display().to_string();
    for id in [FIRST, SECOND, THIRD] {
        stall::stall(dir.path(), &db, id);
    }
    let dana = support::key(dir.path(), &db, "dana", false);
    let operator = support::key(dir.path(), &db, "operator", true);
    let host = serve::Host::start_with_args(
        dir.path(),
        &db,
        &[
            ("INDEX_MODEL_BASE_URL", base.as_str()),
            ("INDEX_MODEL", "gpt-4o-mini"),
            ("INDEX_MODEL_API_KEY", "sk-judge-secret"),
        ],
        &["--gate-judge"],
    );
    let park = |id: &str| {
        let (status, report) = host.request(
            "POST",
            &format!("/opportunities/{id}/negotiation/park"),
            &dana,
            Some(&json!({"counterpartyName": "sam"})),
        );
        assert_eq!(status, 200, "{report}");
        report
    };
    assert_eq!(park(FIRST)["outcome"], "parked");
    for refused in [park(SECOND), park(THIRD)] {
        assert_eq!(refused["outcome"], "unsafe_gap", "{refused}");
        assert_eq!(refused["rule"], "model_judge", "{refused}");
        assert_eq!(refused["field"], Value::Null, "{refused}");
    }
    // Each park asked the author, then the judge, with the judge's schema.
    let requests = fake.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 6);
    for (i, (_, body)) in requests.iter().enumerate() {
        let schema = &body["response_format"]["json_schema"]["name"];
        let expected = if i % 2 == 0 {
            "negotiation_stall_gap"
        } else {
            "question_judge"
        };
        assert_eq!(schema, expected, "request {i}");
        assert_eq!(body["model"], "gpt-4o-mini");
    }

    let (status, metrics) = host.get_text("/metrics", &operator);
    assert_eq!(status, 200, "{metrics}");
    for (line, value) in [
        ("index_gate_judge_questions_total{verdict=\"safe\"}", 1.0),
        ("index_gate_judge_questions_total{verdict=\"unsafe\"}", 1.0),
        ("index_gate_judge_questions_total{verdict=\"failed\"}", 1.0),
        ("index_gate_judge_passed_on_failure_total", 0.0),
        // The fake bills 812 prompt and 96 completion tokens a call; the
        // garbled answer bills nothing.
        ("index_gate_judge_tokens_total{kind=\"prompt\"}", 1624.0),
        ("index_gate_judge_tokens_total{kind=\"completion\"}", 192.0),
    ] {
        assert_eq!(metric(&metrics, line), value, "{line}");
    }
    assert!(metric(&metrics, "index_gate_judge_seconds_total") > 0.0);
    assert!(!metrics.contains("sk-judge-secret"));
    host.stop();
}

#[test]
fn the_tool_parks_on_the_rules_alone_when_its_judge_fails_open() {
    let (_runtime, fake, base) = fake(vec![
        Reply::Content(gap("How much equity could you offer?")),
        Reply::Status(500, None),
        Reply::Status(500, None),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("judge.db").display().to_string();
    stall::stall(dir.path(), &db, FIRST);
    let env = [
        ("INDEX_MODEL_BASE_URL", base.as_str()),
        ("INDEX_MODEL", "gpt-4o-mini"),
    ];
    let out = support::index(
        dir.path(),
        &[
            "--json",
            "negotiation",
            "park",
            FIRST,
            "--as",
            "dana",
            "--counterparty-name",
            "sam",
            "--gate-judge",
            "--gate-judge-on-failure",
            "open",
            "--db",
            &db,
        ],
        None,
        &env,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["outcome"], "parked", "{report}");
    // The judge's call failed (a 500, tried once more).
    assert_eq!(fake.request_count(), 3);

    // The failure policy means nothing without the judge, and a host
    // without a model has no judge to ask.
    let out = support::index(
        dir.path(),
        &["serve", "--gate-judge-on-failure", "open", "--db", &db],
        None,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = support::index(
        dir.path(),
        &["serve", "--gate-judge", "--db", &db],
        None,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--gate-judge asks the host's model"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
