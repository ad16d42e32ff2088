//! `index serve` with MCP clients nobody here wrote: the Python MCP SDK's,
//! driven by `mcp_agents.py` (two seats negotiating to agreement over
//! streamable HTTP and over stdio, a stranger and a bad key refused) and by
//! `mcp_oauth.py` (its OAuth client connecting from the URL alone, by a
//! metadata document and by registration, with dana's consent, refreshing
//! and refused once revoked) and by
//! `mcp_elicitation.py` (parked questions put to the person's client as
//! forms: declined, accepted for two negotiations at once, never sent to a
//! client that cannot show them, given up after the ask-user window, and
//! asked of a current client through `input_required`), and by
//! `mcp_resources.py` (negotiations as resources, read, and watched through
//! `subscriptions/listen` and `resources/subscribe`), and by `mcp_tasks.py`
//! (a wait and a park as MCP tasks, the park's question asked and answered
//! through its task), and by `mcp_balanced.py` (the same client through
//! nginx in front of several hosts on one store, one killed mid-exchange);
//! and
//! the TypeScript MCP SDK's, driven by `mcp_ts.mjs` (output schemas checked
//! by the SDK, agreement over HTTP and stdio, waits inside the SDK's default
//! timeout and past a short one on progress), and by `mcp_ts_balanced.mjs`
//! (its sessions kept with one host each behind nginx), and by
//! `mcp_ts_oauth.mjs` (its OAuth client connecting from the URL alone, dana
//! approving in Chromium); and the official MCP conformance suite, driven by
//! `mcp_conformance.mjs` and, for the host's own authorization server, by
//! `mcp_conformance_authorization.mjs`; and a person in
//! headless Chromium, driven by puppeteer-core through `inbox_browser.mjs`
//! (the inbox, beside agents on the TypeScript SDK).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "support/balancer.rs"]
mod balancer;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/stall.rs"]
mod stall;
mod support;

use std::path::Path;
use std::process::Command;

use index_negotiation_store::Actor;
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

/// The question the fake model asks unless told otherwise.
const EQUITY: &str = "How much equity could you offer?";

/// A fake OpenAI-compatible model that authors a question for each of
/// `prompts` in turn, on a runtime of its own (kept alive with it); its
/// base URL.
fn model_asking(prompts: &[&str]) -> (tokio::runtime::Runtime, Fake, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let replies = prompts.iter().map(|prompt| Reply::Content(gap(prompt)));
    let (fake, base) = runtime.block_on(Fake::start(replies.collect::<Vec<_>>()));
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
    let (_runtime, fake, base) = model_asking(&[EQUITY; 1]);
    let dir = tempfile::tempdir().unwrap();
    run_script(
        "node",
        "mcp_ts.mjs",
        dir.path(),
        &["--sdk", &sdk, "--model-base", &base],
        &[
            "ok: seventeen tools, each with an output schema",
            "ok: over HTTP: the seats agree",
            "ok: a 50-second wait answers inside the SDK's default timeout",
            "ok: a 25-second wait outlives a 15-second timeout",
            "ok: submit_negotiation_turn is refused as not_found",
            "ok: submit_negotiation_turn is refused as not_your_turn",
            "ok: get_negotiation is refused as invalid_request",
            "ok: open_negotiation is refused as forbidden",
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
#[ignore = "needs Node and the TypeScript MCP SDK: INDEX_TEST_MCP_TS_SDK=path/to/@modelcontextprotocol/sdk (see .ci/run) cargo test -- --ignored"]
fn typescript_mcp_clients_keep_their_sessions_through_nginx_in_front_of_two_hosts() {
    let sdk = std::env::var("INDEX_TEST_MCP_TS_SDK").expect(
        "INDEX_TEST_MCP_TS_SDK names the TypeScript MCP SDK's package directory (.ci/run installs it)",
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("balanced.db").display().to_string();
    let ids = [
        "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
    ];
    for id in ids {
        stall::open_between(dir.path(), &db, id, "tia", "tom");
    }
    let balanced = balancer::Balanced::start(dir.path(), &db, 2, &[]);
    let ids = ids.join(",");
    run_script(
        "node",
        "mcp_ts_balanced.mjs",
        dir.path(),
        &[
            "--sdk",
            &sdk,
            "--url",
            &balanced.base(),
            "--db",
            &db,
            "--ids",
            &ids,
        ],
        &[
            "ok: tom, through his host, sees tia's turn",
            "ok: the seats agree, each turn committed once",
            "ok: a subscription on one host hears a turn taken on another",
            "typescript balanced done",
        ],
    );
}

#[test]
#[ignore = "needs Chromium, puppeteer-core and the TypeScript MCP SDK: INDEX_TEST_PUPPETEER=path/to/puppeteer-core INDEX_TEST_MCP_TS_SDK=path/to/@modelcontextprotocol/sdk (see .ci/run) cargo test -- --ignored"]
fn the_typescript_sdks_oauth_client_connects_from_the_url_alone_with_its_persons_consent() {
    let puppeteer = std::env::var("INDEX_TEST_PUPPETEER").expect(
        "INDEX_TEST_PUPPETEER names the puppeteer-core package directory (.ci/run installs it)",
    );
    let sdk = std::env::var("INDEX_TEST_MCP_TS_SDK").expect(
        "INDEX_TEST_MCP_TS_SDK names the TypeScript MCP SDK's package directory (.ci/run installs it)",
    );
    let dir = tempfile::tempdir().unwrap();
    run_script(
        "node",
        "mcp_ts_oauth.mjs",
        dir.path(),
        &["--sdk", &sdk, "--puppeteer", &puppeteer],
        &[
            "ok: dana signs in with her login link",
            "ok: the SDK found the authorization server from the URL alone (a metadata document)",
            "ok: it takes a turn as dana's agent",
            "ok: the expired access token is refused",
            "ok: the SDK found the authorization server from the URL alone (registration)",
            "ok: a refused access token is refreshed, and the refresh token rotates",
            "ok: after index keys revoke, the token is refused at once",
            "ok: dana's inbox lists the connected client",
            "ok: after the inbox's disconnect, the token is refused at once",
            "typescript oauth done",
        ],
    );
}

/// The conformance suite installed where `variable` says, and the Node it
/// runs on.
fn conformance_suite(variable: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let installed = std::env::var(variable).unwrap_or_else(|_| {
        panic!("{variable} names where a conformance suite and Node 22 are installed (.ci/run installs them)")
    });
    let installed = Path::new(&installed);
    (
        installed.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        installed.join("node_modules/.bin/node"),
    )
}

#[test]
#[ignore = "needs the MCP conformance suite 0.2.0-alpha.12, Node 22 and Chromium with puppeteer-core: INDEX_TEST_MCP_CONFORMANCE_2026=dir INDEX_TEST_PUPPETEER=path (see .ci/run) cargo test -- --ignored"]
fn the_conformance_suites_authorization_scenarios_pass_against_the_built_in_server() {
    let (suite, node) = conformance_suite("INDEX_TEST_MCP_CONFORMANCE_2026");
    let puppeteer = std::env::var("INDEX_TEST_PUPPETEER").expect(
        "INDEX_TEST_PUPPETEER names the puppeteer-core package directory (.ci/run installs it)",
    );
    let dir = tempfile::tempdir().unwrap();
    run_script(
        "node",
        "mcp_conformance_authorization.mjs",
        dir.path(),
        &[
            "--suite",
            &suite.display().to_string(),
            "--node",
            &node.display().to_string(),
            "--puppeteer",
            &puppeteer,
        ],
        &[
            "✓ authorization-server-metadata-endpoint",
            "✓ authorization-code-grant",
            "authorization conformance done",
        ],
    );
}

#[test]
#[ignore = "needs the MCP conformance suite and Node 22: INDEX_TEST_MCP_CONFORMANCE=dir it is installed in (see .ci/run) cargo test -- --ignored"]
fn the_mcp_conformance_suite_passes_every_scenario_that_applies() {
    let (suite, node) = conformance_suite("INDEX_TEST_MCP_CONFORMANCE");
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
            "ok: the waits ran their whole length",
            "ok: a stranger's submit_negotiation_turn is not_found",
            "ok: an unknown key gets 401 from /mcp",
            "ok: over stdio the seats agree",
            "all agents done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn the_python_sdks_oauth_client_connects_from_the_url_alone_with_its_persons_consent() {
    let dir = tempfile::tempdir().unwrap();
    run_python(
        "mcp_oauth.py",
        dir.path(),
        &[],
        &[
            "ok: the SDK sends dana to the consent page",
            "ok: dana signs in with her login link",
            "ok: the SDK found the authorization server from the URL alone (a metadata document)",
            "ok: it takes a turn as dana's agent",
            "ok: the SDK found the authorization server from the URL alone (registration)",
            "ok: the expired access token is refused",
            "ok: the SDK refreshes, and the refresh token rotates",
            "ok: after index keys revoke, the token is refused at once",
            "python oauth done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn a_stopping_host_answers_python_mcp_waits_on_both_protocols() {
    let dir = tempfile::tempdir().unwrap();
    run_python(
        "mcp_shutdown.py",
        dir.path(),
        &[],
        &[
            "ok: a session's wait is answered with the negotiation as the host stops",
            "ok: a current client's wait is answered with the negotiation as the host stops",
            "ok: the stop answered the waits at once",
            "ok: an ordinary stop logs no error",
            "ok: the host stops cleanly on SIGTERM",
            "shutdown done",
        ],
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn a_python_mcp_client_answers_a_park_by_elicitation() {
    let (_runtime, fake, base) = model_asking(&[EQUITY; 5]);
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
    let (_runtime, fake, base) = model_asking(&[EQUITY; 1]);
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
        &[TASK_AGENTS, &["ok: no key reaches the log", "tasks done"]].concat(),
    );
    assert_eq!(fake.request_count(), 1, "one park, one model call");
}

/// What `mcp_tasks.py`'s agents print, run alone or through a balancer.
const TASK_AGENTS: &[&str] = &[
    "ok: dana's wait runs as a task",
    "ok: the task ends on sam's move",
    "ok: the question reaches dana through her task",
    "ok: the park runs as a task that asks once, keyed by its question",
    "ok: the task ends with the answer delivered",
    "ok: the second resumes with dana to move, the answer on record",
    "ok: sam cannot read dana's task",
];

/// The official Python client through nginx in front of `count` hosts on
/// `db` (see `mcp_balanced.py`), killing `kills` of them on the way.
fn python_through_a_balancer(dir: &Path, db: &str, count: usize, kills: usize) {
    let (_runtime, fake, base) = model_asking(&[EQUITY; 4]);
    let ids: Vec<String> = (0..5).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for (id, person) in ids.iter().zip(["dana", "dana", "ivy", "jay", "kim"]) {
        stall::stall_between(dir, db, id, person, "sam");
    }
    let env = [
        ("INDEX_MODEL_BASE_URL", base.as_str()),
        ("INDEX_MODEL", "gpt-4o"),
        ("INDEX_MODEL_API_KEY", "sk-balanced-secret"),
    ];
    let balanced = balancer::Balanced::start(dir, db, count, &env);
    let join = |parts: Vec<String>| parts.join(",");
    let hosts = join(
        balanced
            .hosts
            .iter()
            .map(|host| format!("http://{}", host.address))
            .collect(),
    );
    let pids = join(
        balanced
            .hosts
            .iter()
            .map(|host| host.child.id().to_string())
            .collect(),
    );
    let mut expected = TASK_AGENTS.to_vec();
    expected.extend([
        "ok: dana's answer is on record once",
        "ok: ivy's answer is on record once",
    ]);
    if kills >= 1 {
        expected.push("ok: jay's answer is on record once");
    }
    if kills >= 2 {
        expected.push("ok: kim's negotiation resumes with her to move");
        expected.push("ok: kim's answer is on record once");
    }
    expected.push("balanced done");
    run_python(
        "mcp_balanced.py",
        dir,
        &[
            "--db",
            db,
            "--url",
            &balanced.base(),
            "--hosts",
            &hosts,
            "--pids",
            &pids,
            "--metrics-key",
            &balanced.metrics_key,
            "--ids",
            &ids.join(","),
            "--kills",
            &kills.to_string(),
        ],
        &expected,
    );
    assert_eq!(
        fake.request_count(),
        2 + kills.min(2),
        "one model call per park"
    );
}

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn the_python_mcp_client_through_nginx_in_front_of_two_hosts_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("balanced.db").display().to_string();
    python_through_a_balancer(dir.path(), &db, 2, 1);
}

#[test]
#[ignore = "needs Python with the MCP SDK and PostgreSQL: INDEX_TEST_PYTHON=… INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
fn the_python_mcp_client_through_nginx_in_front_of_three_hosts_on_postgresql() {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL names the test database (bash .ci/postgres)");
    let dir = tempfile::tempdir().unwrap();
    python_through_a_balancer(dir.path(), &url, 3, 2);
}

/// Parks `id` in `db` for dana on a question full of markup, straight
/// through the rules.
async fn park_on_hostile_question(db: &str, id: &str) {
    use index_negotiation::{
        AskUser, AskUserAssessment, AskUserTurn, NegotiationConsultationReason, SuggestedRoles,
    };
    use index_question_block::{QuestionOption, StructuredQuestion};
    let option = |label: &str| QuestionOption {
        label: label.to_owned(),
        description: format!("<b>{label}</b>"),
    };
    let turn = AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: "Parked.".into(),
            suggested_roles: SuggestedRoles::peers(),
        },
        message: (),
        ask_user: AskUser {
            reason: NegotiationConsultationReason::RepeatedNonConvergence,
            question: StructuredQuestion {
                title: "```<i>T</i>".to_owned(),
                prompt: "Which <img src=x onerror=alert(1)> **terms** ```fence``` work\u{2028}for you \u{202e}?gnp.exe".to_owned(),
                options: vec![option("Yes"), option("No")],
                multi_select: true,
            },
        },
    };
    let store = index_negotiation_store_sqlite::SqliteStore::open(db)
        .await
        .unwrap();
    let (parked, _) = index_negotiation_store::Negotiations::new(&store)
        .park(
            &id.parse().unwrap(),
            &"dana".parse().unwrap(),
            &turn,
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(parked.is_ok(), "{parked:?}");
}

#[test]
#[ignore = "needs Chromium, puppeteer-core and the TypeScript MCP SDK: INDEX_TEST_PUPPETEER=path/to/puppeteer-core INDEX_TEST_MCP_TS_SDK=path/to/@modelcontextprotocol/sdk (see .ci/run) cargo test -- --ignored"]
fn a_person_answers_in_the_inbox_in_chromium() {
    let puppeteer = std::env::var("INDEX_TEST_PUPPETEER").expect(
        "INDEX_TEST_PUPPETEER names the puppeteer-core package directory (.ci/run installs it)",
    );
    let sdk = std::env::var("INDEX_TEST_MCP_TS_SDK").expect(
        "INDEX_TEST_MCP_TS_SDK names the TypeScript MCP SDK's package directory (.ci/run installs it)",
    );
    let (runtime, fake, base) = model_asking(&[EQUITY, EQUITY]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("inbox.db").display().to_string();
    let (first, second, third, fourth) = (
        "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "6f5e4d3c-2b1a-4c9d-8e7f-6a5b4c3d2e1f",
        "9c8b7a6f-5e4d-4c3b-a2f1-0e9d8c7b6a5f",
        "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
    );
    for id in [first, second, fourth] {
        stall::stall(dir.path(), &db, id);
    }
    // The fourth is parked on a hostile question (markup, a fence, a line
    // separator, a right-to-left override), behind the safety gate's back,
    // which refuses markup: as a store another producer wrote could hold
    // it. The inbox must show it as the text it is.
    runtime.block_on(park_on_hostile_question(&db, fourth));
    stall::open(dir.path(), &db, third);
    stall::run(
        dir.path(),
        &db,
        &[
            "negotiation",
            "turn",
            third,
            "--as",
            "dana",
            "--action",
            "propose",
            "--message",
            "Two days a week?",
        ],
    );
    // Kept after the test, for a person to look at.
    let shot = |name: &str| {
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("inbox-{name}.png"))
            .display()
            .to_string()
    };
    let (phone, desktop) = (shot("phone"), shot("desktop"));
    for file in [&phone, &desktop] {
        let _ = std::fs::remove_file(file);
    }
    run_script(
        "node",
        "inbox_browser.mjs",
        dir.path(),
        &[
            "--db",
            &db,
            "--model-base",
            &base,
            "--sdk",
            &sdk,
            "--puppeteer",
            &puppeteer,
            "--phone",
            &phone,
            "--desktop",
            &desktop,
            "--first",
            first,
            "--second",
            second,
            "--third",
            third,
            "--fourth",
            fourth,
        ],
        &[
            "ok: a login link signs dana in",
            "ok: the key leaves the address bar",
            "ok: the page cannot read its session cookie",
            "ok: the link signs in once",
            "ok: a used link says so: This sign-in link was used already",
            "ok: an unknown key says so",
            "ok: a host key says so",
            "ok: in words for a person, not the API's",
            "ok: each card says which it is, by her intent and the other person",
            "ok: the inbox shows it live: her agent's move, sam's last turn, and when it came",
            "ok: the question appears once for both negotiations",
            "ok: read from its question message: the prose and the prompt",
            "ok: no ids and no block shown",
            "ok: its options are radio buttons, each with its description",
            "ok: beside a box to write her own",
            "ok: a screenshot of the parked question at 390 px",
            "ok: a screenshot of the parked question at 1280 px",
            "ok: she chooses 1% to 3% with a click",
            "ok: her answer resumes both, the page says what happens next, and the question is gone",
            "ok: each card says it is her agent's move",
            "ok: a hostile question is shown as its text, inert",
            "ok: exactly as `index question-block render` reads it",
            "ok: a question that takes several options offers checkboxes",
            "ok: both chosen, her answer is both labels",
            "ok: her agent asks her through request_interaction",
            "ok: the inbox shows what her agent asks, its choices as radio buttons",
            "ok: a budget past its bound is refused in the page, and nothing is sent",
            "ok: she sends it, and the page says her agent has it",
            "ok: her agent reads her validated answer",
            "ok: a permission offers only the grants its scopes allow",
            "ok: she declines it with a click, and her agent reads that",
            "ok: signed out: the old cookie gets 401",
            "ok: her session ends elsewhere",
            "ok: the page says her session ended",
            "ok: no script errors",
            "inbox done",
        ],
    );
    for file in [&phone, &desktop] {
        let written = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        assert!(written > 0, "the screenshot {file} is written");
        println!("screenshot: {file}");
    }
    assert_eq!(fake.request_count(), 2, "two parks, two model calls");
}

/// One call of the MCP Inspector's command line at `url` as `key`: its
/// exit status, what it printed (the JSON answer) and what it warned.
fn inspector(bin: &str, url: &str, key: &str, args: &[&str]) -> (bool, serde_json::Value, String) {
    let out = Command::new(bin)
        .args(["--cli", "--transport", "http", "--server-url", url])
        .args(["--header", &format!("Authorization: Bearer {key}")])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.success(),
        answer,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The error object a refused call's answer carries, as the Inspector
/// printed it: the JSON of its first text block.
fn refusal_code(answer: &serde_json::Value) -> String {
    assert_eq!(answer["isError"], true, "{answer}");
    assert!(answer.get("structuredContent").is_none(), "{answer}");
    let text = answer["content"][0]["text"].as_str().unwrap();
    let error: serde_json::Value = serde_json::from_str(text).unwrap();
    error["error"]["code"].as_str().unwrap().to_owned()
}

#[test]
#[ignore = "needs the MCP Inspector's command line: INDEX_TEST_MCP_INSPECTOR=path/to/mcp-inspector (see .ci/run) cargo test -- --ignored"]
fn the_mcp_inspector_lists_turns_is_refused_waits_and_parks() {
    let bin = std::env::var("INDEX_TEST_MCP_INSPECTOR").expect(
        "INDEX_TEST_MCP_INSPECTOR names the Inspector's mcp-inspector (.ci/run installs it)",
    );
    let (_runtime, fake, base) = model_asking(&[EQUITY; 1]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("inspector.db").display().to_string();
    let stalled = "5d1e8c2a-7b4f-4e90-a1c3-9f0b2d4e6a81";
    let open = "9a3c5e7f-1b2d-4f60-8e9a-0c1d2e3f4a5b";
    stall::stall(dir.path(), &db, stalled);
    stall::open(dir.path(), &db, open);
    let key = |user: &str| {
        let out = support::index(
            dir.path(),
            &["keys", "create", "--user", user, "--db", &db],
            None,
            &[],
        );
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let (dana, sam) = (key("dana"), key("sam"));
    let host = serve::Host::start_with(
        dir.path(),
        &db,
        &[
            ("INDEX_MODEL_BASE_URL", base.as_str()),
            ("INDEX_MODEL", "gpt-4o"),
            ("INDEX_MODEL_API_KEY", "sk-inspector"),
        ],
    );
    let url = format!("http://{}/mcp", host.address);

    // Its strict schema check finds nothing to warn of.
    let (ok, listed, warned) =
        inspector(&bin, &url, &dana, &["--method", "tools/list", "--strict"]);
    assert!(ok && !warned.contains("Warning"), "{warned}");
    assert_eq!(
        listed["tools"].as_array().map(Vec::len),
        Some(15),
        "{listed}"
    );

    let call = |key: &str, tool: &str, args: &[&str]| {
        let mut all = vec!["--method", "tools/call", "--tool-name", tool, "--tool-arg"];
        all.extend_from_slice(args);
        inspector(&bin, &url, key, &all)
    };
    let opp = format!("opportunityId={open}");
    // A turn.
    let (ok, taken, warned) = call(
        &dana,
        "submit_negotiation_turn",
        &[&opp, "action=propose", "message=Intro call?"],
    );
    assert!(ok, "{warned}");
    assert_eq!(
        taken["structuredContent"]["decision"]["turnIndex"], 0,
        "{taken}"
    );
    // A refusal, read as its code.
    let (_, refused, _) = call(
        &dana,
        "submit_negotiation_turn",
        &[&opp, "action=propose", "message=Again?"],
    );
    assert_eq!(refusal_code(&refused), "not_your_turn");
    let (_, refused, _) = call(&sam, "get_negotiation", &[&opp, "wait=61"]);
    assert_eq!(refusal_code(&refused), "invalid_request");
    // A wait, answered with the negotiation.
    let (ok, seen, warned) = call(&dana, "get_negotiation", &[&opp, "wait=2"]);
    assert!(ok, "{warned}");
    assert_eq!(
        seen["structuredContent"]["negotiation"]["awaitingUserId"], "sam",
        "{seen}"
    );
    // A park, answered with its report.
    let (ok, parked, warned) = call(
        &dana,
        "park_negotiation",
        &[&format!("opportunityId={stalled}"), "counterpartyName=sam"],
    );
    assert!(ok, "{warned}");
    assert_eq!(parked["structuredContent"]["outcome"], "parked", "{parked}");
    assert_eq!(fake.request_count(), 1, "one park, one model call");
    host.stop();
}
