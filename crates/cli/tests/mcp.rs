//! `index serve` with MCP clients nobody here wrote: the Python MCP SDK's,
//! driven by `mcp_agents.py` (two seats negotiating to agreement over
//! streamable HTTP and over stdio, a stranger and a bad key refused) and by
//! `mcp_elicitation.py` (parked questions put to the person's client as
//! forms: declined, accepted for two negotiations at once, never sent to a
//! client that cannot show them, given up after the ask-user window, and
//! asked of a current client through `input_required`), and by
//! `mcp_resources.py` (negotiations as resources, read, and watched through
//! `subscriptions/listen` and `resources/subscribe`), and by `mcp_tasks.py`
//! (a wait and a park as MCP tasks, the park's question asked and answered
//! through its task); and
//! the TypeScript MCP SDK's, driven by `mcp_ts.mjs` (output schemas checked
//! by the SDK, agreement over HTTP and stdio, waits inside the SDK's default
//! timeout and past a short one on progress); and the official MCP
//! conformance suite, driven by `mcp_conformance.mjs`.

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
use std::process::Command;

use index_test_support::openai_server::{Fake, Reply, gap};

/// Runs the script `name` (in `tests/`) with `program` (a Python or a
/// Node), the `index` binary, `dir` and `args`, and checks it succeeded
/// and printed every `expected` line.
fn run_script(program: &str, name: &str, dir: &Path, args: &[&str], expected: &[&str]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    let out = Command::new(program)
        .arg(&script)
        .args(["--index", env!("CARGO_BIN_EXE_index"), "--dir"])
        .arg(dir)
        .args(args)
        .env_remove("INDEX_DB")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in expected {
        assert!(stdout.contains(line), "{line} missing from:\n{stdout}");
    }
}

/// A fake OpenAI-compatible model that authors the equity question
/// `times` times, on a runtime of its own (kept alive with it); its base URL.
fn equity_model(times: usize) -> (tokio::runtime::Runtime, Fake, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let question = gap("How much equity could you offer?");
    let (fake, base) = runtime.block_on(Fake::start(vec![Reply::Content(question); times]));
    (runtime, fake, base)
}

/// [`run_script`] with the Python that has the SDK.
fn run_python(name: &str, dir: &Path, args: &[&str], expected: &[&str]) {
    let python = std::env::var("INDEX_TEST_PYTHON")
        .expect("INDEX_TEST_PYTHON names a Python that has `mcp` installed (.ci/run makes one)");
    run_script(&python, name, dir, args, expected);
}

#[test]
#[ignore = "needs Node and the TypeScript MCP SDK: INDEX_TEST_MCP_TS_SDK=path/to/@modelcontextprotocol/sdk (see .ci/run) cargo test -- --ignored"]
fn typescript_mcp_clients_negotiate_through_index_serve() {
    let sdk = std::env::var("INDEX_TEST_MCP_TS_SDK").expect(
        "INDEX_TEST_MCP_TS_SDK names the TypeScript MCP SDK's package directory (.ci/run installs it)",
    );
    let (_runtime, fake, base) = equity_model(1);
    let dir = tempfile::tempdir().unwrap();
    run_script(
        "node",
        "mcp_ts.mjs",
        dir.path(),
        &["--sdk", &sdk, "--model-base", &base],
        &[
            "ok: eight tools, each with an output schema",
            "ok: over HTTP: the seats agree",
            "ok: a 50-second wait answers inside the SDK's default timeout",
            "ok: a 25-second wait outlives a 15-second timeout",
            "ok: a stranger's submit_negotiation_turn is not_found",
            "ok: a bad key is refused with 401",
            "ok: over stdio: the seats agree",
            "ok: a subscription is woken by the other seat's turn",
            "ok: the question reaches dana's client as a form",
            "ok: its answer resumes the negotiation, dana to move",
            "typescript done",
        ],
    );
    assert_eq!(fake.request_count(), 1, "one park, one model call");
}

#[test]
#[ignore = "needs the MCP conformance suite and Node 22: INDEX_TEST_MCP_CONFORMANCE=dir it is installed in (see .ci/run) cargo test -- --ignored"]
fn the_mcp_conformance_suite_passes_every_scenario_that_applies() {
    let installed = std::env::var("INDEX_TEST_MCP_CONFORMANCE").expect(
        "INDEX_TEST_MCP_CONFORMANCE names where the conformance suite and Node 22 are installed (.ci/run installs them)",
    );
    let installed = Path::new(&installed);
    let suite = installed.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let node = installed.join("node_modules/.bin/node");
    let dir = tempfile::tempdir().unwrap();
    run_script(
        "node",
        "mcp_conformance.mjs",
        dir.path(),
        &[
            "--suite",
            &suite.display().to_string(),
            "--node",
            &node.display().to_string(),
        ],
        &[
            "✓ server-initialize",
            "✓ ping",
            "✓ tools-list",
            "✓ resources-list",
            "✓ server-sse-multiple-streams",
            "✓ dns-rebinding-protection",
            "conformance done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn python_mcp_clients_read_and_watch_negotiations_as_resources() {
    let dir = tempfile::tempdir().unwrap();
    run_python(
        "mcp_resources.py",
        dir.path(),
        &[],
        &[
            "ok: dana's negotiations are listed as resources",
            "ok: a read is the negotiation as dana's seat sees it",
            "ok: a negotiation dana holds no seat in reads as not found",
            "ok: a current client listens to its negotiation",
            "ok: and hears of the change",
            "ok: an older client is offered subscriptions",
            "ok: and the older client hears of it",
            "resources done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn python_mcp_clients_negotiate_through_index_serve() {
    let dir = tempfile::tempdir().unwrap();
    run_python(
        "mcp_agents.py",
        dir.path(),
        &[],
        &[
            "ok: over HTTP the seats agree",
            "ok: a stranger's submit_negotiation_turn is not_found",
            "ok: an unknown key gets 401 from /mcp",
            "ok: over stdio the seats agree",
            "all agents done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn a_python_mcp_client_answers_a_park_by_elicitation() {
    let (_runtime, fake, base) = equity_model(5);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parks.db").display().to_string();
    let ids = [
        "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81",
        "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b",
        "2b4d6f80-1a3c-4e5f-9a7b-8c9d0e1f2a3b",
        "7c8d9e0f-2a3b-4c5d-8e6f-0a1b2c3d4e5f",
        "4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8",
    ];
    for id in ids {
        stall::stall(dir.path(), &db, id);
    }
    run_python(
        "mcp_elicitation.py",
        dir.path(),
        &["--db", &db, "--model-base", &base],
        &[
            "ok: the question reaches dana's client as a form",
            "ok: declined: the negotiation stays parked",
            "ok: accepted: the second resumes with dana to move",
            "ok: and the first, which the same answer unblocks",
            "ok: and is never sent a form",
            "ok: an unanswered form gives up after the ask-user window",
            "ok: and the question is answered the ordinary way",
            "ok: a current client is asked through input_required",
            "ok: its retry carries the answer",
            "ok: the fifth resumes with dana to move, the answer on record",
            "ok: and the third, parked on the same question",
            "elicitation done",
        ],
    );
    // Five parks, five model calls: the current client's retry delivers
    // its answer without parking (or asking the model) again.
    assert_eq!(fake.request_count(), 5, "one model call per park");
    // The answer is on record, once, in both negotiations it unblocked.
    for id in &ids[..2] {
        let out = support::index(
            dir.path(),
            &["--json", "negotiation", "messages", id, "--db", &db],
            None,
            &[],
        );
        let messages: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let answers: Vec<&serde_json::Value> = messages
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["parts"][0]["text"] == "1% to 3%")
            .collect();
        assert_eq!(answers.len(), 1, "{id}: {messages}");
    }
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn a_python_mcp_client_waits_and_parks_through_tasks() {
    let (_runtime, fake, base) = equity_model(1);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tasks.db").display().to_string();
    for id in [
        "3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7",
        "8f9a0b1c-2d3e-4f5a-b6c7-d8e9f0a1b2c3",
    ] {
        stall::stall(dir.path(), &db, id);
    }
    run_python(
        "mcp_tasks.py",
        dir.path(),
        &["--db", &db, "--model-base", &base],
        &[
            "ok: dana's wait runs as a task",
            "ok: the task ends on sam's move",
            "ok: the question reaches dana through her task",
            "ok: the park runs as a task that asks once, keyed by its question",
            "ok: the task ends with the answer delivered",
            "ok: the second resumes with dana to move, the answer on record",
            "ok: sam cannot read dana's task",
            "ok: no key reaches the log",
            "tasks done",
        ],
    );
    assert_eq!(fake.request_count(), 1, "one park, one model call");
}
