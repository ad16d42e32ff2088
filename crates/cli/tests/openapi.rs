//! `index serve`'s REST API against its own OpenAPI document, fuzzed by
//! Schemathesis (a tool nobody here wrote): every response must conform to
//! the document (status, content type, headers, body schema), no request
//! may get a 5xx, and a request without a valid key must get 401.
//!
//! Two runs: an agent's key with the id of a negotiation it holds a seat
//! in, so the routes on one negotiation reach their rules, then a host
//! key, which may also open and close.

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

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use serve::Host;

const ID: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";

/// The `schemathesis` command beside the test Python.
fn schemathesis() -> PathBuf {
    let python = std::env::var("INDEX_TEST_PYTHON").expect(
        "INDEX_TEST_PYTHON names a Python that has schemathesis installed (.ci/run makes one)",
    );
    Path::new(&python).with_file_name("schemathesis")
}

/// A key for `user` (a host key when `host`), written to `dir/user.key`.
fn key(dir: &Path, db: &str, user: &str, host: bool) -> String {
    let file = format!("{user}.key");
    let mut args = vec![
        "keys", "create", "--user", user, "--output", &file, "--db", db,
    ];
    if host {
        args.push("--host");
    }
    let out = support::index(dir, &args, None, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join(file))
        .unwrap()
        .trim()
        .to_owned()
}

/// What both runs expect beyond Schemathesis's defaults.
const CHECKS: &str = r#"
# The rules refuse some requests the schema allows (an opening of one
# person with themself, a message that is not a question message), with
# the 400s the document lists for them.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", 400, 401, 403, 404, 409]

# A body the schema refuses may also be over the host's limit: 413.
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422]
"#;

/// Runs every Schemathesis check against `host` with `key`, and `config`
/// besides [`CHECKS`]; the run's JSON report.
fn fuzz(dir: &Path, host: &Host, key: &str, name: &str, config: &str) -> Value {
    let report = dir.join(format!("{name}.json"));
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("{config}\n{CHECKS}")).unwrap();
    let out = Command::new(schemathesis())
        .arg("--config-file")
        .arg(path)
        .arg("run")
        .arg(format!("http://{}/openapi.json", host.address))
        .args(["--header", &format!("Authorization: Bearer {key}")])
        .args(["--checks", "all", "--max-examples", "40", "--seed", "7"])
        .arg("--report-json-path")
        .arg(&report)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Schemathesis found problems ({name}):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap()
}

#[test]
#[ignore = "needs Schemathesis: INDEX_TEST_PYTHON=path/to/python with schemathesis installed (see .ci/run) cargo test -- --ignored"]
fn schemathesis_finds_every_answer_as_the_openapi_document_says() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.db").display().to_string();
    let host_key = key(dir.path(), &db, "host", true);
    let dana = key(dir.path(), &db, "dana", false);
    let host = Host::start(dir.path(), &db);
    let (status, _) = host.request(
        "POST",
        "/negotiations",
        &host_key,
        Some(&json!({"opportunityId": ID,
                     "initiator": {"userId": "dana", "intentId": "hire"},
                     "responder": {"userId": "sam", "intentId": "join"}})),
    );
    assert_eq!(status, 201);
    let (status, served) = host.request("GET", "/openapi.json", "", None);
    assert_eq!((status, served), (200, index_host::openapi()));

    // Waits are fixed at none: a 50-second wait is the rules working,
    // not something to fuzz for a minute at a time.
    let seat = fuzz(
        dir.path(),
        &host,
        &dana,
        "agent",
        &format!("[parameters]\n\"path.id\" = \"{ID}\"\n\"query.wait\" = 0\n"),
    );
    let admin = fuzz(dir.path(), &host, &host_key, "host", "");
    for (name, report) in [("agent", &seat), ("host", &admin)] {
        eprintln!(
            "{name}: {} requests generated over {} operations",
            report["test_cases"]["generated"], report["operations"]["tested"]
        );
        // Every operation the document lists was fuzzed, but the document
        // itself, which Schemathesis reads rather than fuzzes.
        let listed = index_host::openapi()["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|path| path.as_object().unwrap().len())
            .sum::<usize>();
        assert_eq!(report["operations"]["tested"], listed - 1, "{report}");
        assert!(report["test_cases"]["generated"].as_u64().unwrap() > 100);
    }
    host.stop();
}
