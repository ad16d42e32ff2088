//! The `index` binary end to end: every command and exit code, on temporary
//! databases and the shared fixture files.

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
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const OPP: &str = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/question-block")
}

/// Runs `index` with `args` (and `stdin`), in `dir`, without colour.
fn index_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    support::index(dir, args, stdin, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

struct Db {
    dir: tempfile::TempDir,
}

impl Db {
    fn new() -> Self {
        Db {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> String {
        self.dir.path().join("index.db").display().to_string()
    }

    /// `index negotiation <args> --db <this>`.
    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, None)
    }

    fn run_with(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut full = vec!["negotiation"];
        full.extend_from_slice(args);
        let path = self.path();
        full.extend_from_slice(&["--db", &path]);
        index_in(self.dir.path(), &full, stdin)
    }

    /// `open` for dana and sam on [`OPP`], whatever the outcome.
    fn try_open(&self) -> Output {
        self.run(&[
            "open",
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
        ])
    }

    fn open(&self) {
        let out = self.try_open();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }

    fn turn(&self, who: &str, action: &str, message: &str) -> Output {
        self.run(&[
            "turn",
            OPP,
            "--as",
            who,
            "--action",
            action,
            "--message",
            message,
        ])
    }
}

#[test]
fn parse_prints_the_prose_and_block_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = fixtures().join("canonical.message.txt");
    let out = index_in(
        dir.path(),
        &["question-block", "parse", canonical.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let parsed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let prose = std::fs::read_to_string(fixtures().join("canonical.prose.txt")).unwrap();
    let block: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("canonical.block.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(parsed["prose"], prose.as_str());
    assert_eq!(parsed["block"], block);

    let message = std::fs::read_to_string(&canonical).unwrap();
    let piped = index_in(
        dir.path(),
        &["question-block", "parse", "-"],
        Some(&message),
    );
    assert_eq!(piped.stdout, out.stdout);
    let implicit = index_in(dir.path(), &["question-block", "parse"], Some(&message));
    assert_eq!(implicit.stdout, out.stdout);

    let invalid = index_in(
        dir.path(),
        &["question-block", "parse", "-"],
        Some("```index-questions\n{}\n```"),
    );
    assert_eq!(invalid.status.code(), Some(1));
    let stderr = text(&invalid.stderr);
    assert!(
        stderr.contains("not a question message") && stderr.contains("version"),
        "{stderr}"
    );
    assert!(invalid.stdout.is_empty());

    let missing = index_in(
        dir.path(),
        &["question-block", "parse", "no-such-file.txt"],
        None,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("could not read no-such-file.txt"));
}

/// `index question-block serialize --prose-file <prose> --block-file <block>`.
fn serialize(dir: &Path, prose: &Path, block: &Path) -> Output {
    index_in(
        dir,
        &[
            "question-block",
            "serialize",
            "--prose-file",
            prose.to_str().unwrap(),
            "--block-file",
            block.to_str().unwrap(),
        ],
        None,
    )
}

#[test]
fn serialize_writes_the_canonical_bytes_and_lists_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let prose = fixtures().join("canonical.prose.txt");
    let block = fixtures().join("canonical.block.json");
    let out = serialize(dir.path(), &prose, &block);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let expected = std::fs::read(fixtures().join("canonical.message.txt")).unwrap();
    assert_eq!(
        out.stdout, expected,
        "the canonical bytes, and nothing after them"
    );

    let bad_block = dir.path().join("bad.json");
    std::fs::write(
        &bad_block,
        r#"{"version": 2, "questions": [{"prompt": "", "opportunityId": "nope"}], "extra": 1}"#,
    )
    .unwrap();
    let out = serialize(dir.path(), &prose, &bad_block);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    for path in [
        "version:",
        "questions.0.prompt:",
        "questions.0.opportunityId:",
        "(root): has unknown key(s): 'extra'",
    ] {
        assert!(stderr.contains(path), "{path} missing from {stderr}");
    }

    let malformed = dir.path().join("malformed.json");
    std::fs::write(&malformed, "{\"version\": 1,").unwrap();
    let out = serialize(dir.path(), &prose, &malformed);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not valid JSON"));
}

#[test]
fn check_reports_one_line_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let valid = fixtures().join("valid/single-question.txt");
    let invalid = fixtures().join("invalid/unclosed-fence.txt");
    let out = index_in(
        dir.path(),
        &[
            "question-block",
            "check",
            valid.to_str().unwrap(),
            invalid.to_str().unwrap(),
            "missing.txt",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unreadable file is an input error"
    );
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("ok ") && lines[0].ends_with("single-question.txt"));
    assert!(lines[1].starts_with("FAIL ") && lines[1].contains("never closed"));
    assert!(lines[2].starts_with("FAIL ") && lines[2].contains("missing.txt"));
    let not_messages = index_in(
        dir.path(),
        &[
            "question-block",
            "check",
            valid.to_str().unwrap(),
            invalid.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(not_messages.status.code(), Some(1));
    let all_valid = index_in(
        dir.path(),
        &["question-block", "check", valid.to_str().unwrap()],
        None,
    );
    assert_eq!(all_valid.status.code(), Some(0));
    let json = index_in(
        dir.path(),
        &[
            "--json",
            "question-block",
            "check",
            invalid.to_str().unwrap(),
        ],
        None,
    );
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report[0]["rule"], "unclosed-fence");
}

#[test]
fn a_negotiation_from_the_command_line() {
    let db = Db::new();
    db.open();
    let again = db.try_open();
    assert_eq!(again.status.code(), Some(3));
    assert!(text(&again.stderr).contains("already_exists"));

    let out = db.turn("dana", "propose", "Intro call next week?");
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("sam to move"));

    let refused = db.turn("dana", "propose", "Again?");
    assert_eq!(refused.status.code(), Some(3));
    assert!(text(&refused.stderr).contains("refused (not_your_turn)"));

    let json = db.run(&[
        "turn",
        OPP,
        "--as",
        "sam",
        "--action",
        "accept",
        "--message",
        "",
        "--json",
    ]);
    assert_eq!(json.status.code(), Some(3));
    let refusal: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(refusal["error"]["code"], "invalid_turn");

    let from_stdin = db.run_with(
        &[
            "turn",
            OPP,
            "--as",
            "sam",
            "--action",
            "decline",
            "--message",
            "-",
        ],
        Some("Not this quarter.\n"),
    );
    assert_eq!(
        from_stdin.status.code(),
        Some(0),
        "{}",
        text(&from_stdin.stderr)
    );
    assert!(text(&from_stdin.stdout).contains("Round ended (declined)"));

    let shown = db.run(&["show", OPP, "--as", "sam", "--guidance"]);
    let shown_text = text(&shown.stdout);
    assert!(shown_text.contains("Not this quarter."), "{shown_text}");
    assert!(shown_text.contains("Nobody to move"));
    assert!(shown_text.contains("a seat must resume it"), "{shown_text}");
    assert!(
        !shown_text.contains("Turns left in this round"),
        "no round is under way: {shown_text}"
    );
    assert!(shown_text.contains("The next round, once resumed, has 12 turns."));
    assert!(shown_text.contains("Guidance"));

    assert_eq!(
        db.run(&["resume", OPP, "--as", "dana"]).status.code(),
        Some(0)
    );
    let not_paused = db.run(&["resume", OPP, "--as", "sam"]);
    assert_eq!(not_paused.status.code(), Some(3));
    assert!(text(&not_paused.stderr).contains("not_paused"));

    let show_json: Value =
        serde_json::from_slice(&db.run(&["show", OPP, "--as", "dana", "--json"]).stdout).unwrap();
    assert_eq!(
        show_json["observation"]["availableActions"],
        serde_json::json!(["propose", "decline"])
    );
    assert_eq!(show_json["observation"]["remainingTurns"], 12);
    assert_eq!(show_json["state"]["turns"].as_array().unwrap().len(), 2);

    assert_eq!(
        db.turn("dana", "propose", "Revised terms.").status.code(),
        Some(0)
    );
    let accepted = db.run(&[
        "turn",
        OPP,
        "--as",
        "sam",
        "--action",
        "accept",
        "--message",
        "Deal.",
        "--json",
    ]);
    let decision: Value = serde_json::from_slice(&accepted.stdout).unwrap();
    assert_eq!(decision["outcome"], "agreed");
    assert_eq!(decision["opportunityStatus"], "pending");

    let listed: Value =
        serde_json::from_slice(&db.run(&["list", "--as", "dana", "--json"]).stdout).unwrap();
    assert_eq!(listed["negotiations"][0]["status"], "pending");
    assert_eq!(listed["nextCursor"], Value::Null);
    let page: Value = serde_json::from_slice(
        &db.run(&[
            "list", "--as", "dana", "--limit", "1", "--with", "sam", "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(page["negotiations"].as_array().unwrap().len(), 1);
    assert_eq!(page["nextCursor"], Value::Null, "one negotiation, one page");
    for bad in [
        &["list", "--as", "dana", "--limit", "1", "--cursor", "soon"][..],
        &["list", "--as", "dana", "--cursor", "c1"],
        &["list", "--as", "dana", "--limit", "0"],
    ] {
        assert_eq!(db.run(bad).status.code(), Some(2), "{bad:?}");
    }
    let open_only = db.run(&["list", "--as", "dana", "--state", "open"]);
    assert!(text(&open_only.stdout).contains("No negotiations"));
    let by_intent: Value = serde_json::from_slice(
        &db.run(&["list", "--as", "sam", "--intent-id", "join", "--json"])
            .stdout,
    )
    .unwrap();
    assert_eq!(by_intent["negotiations"].as_array().unwrap().len(), 1);
    let table = text(&db.run(&["list", "--as", "sam"]).stdout);
    assert!(table.lines().next().unwrap().starts_with("id "), "{table}");

    let messages = db.run(&["messages", OPP]);
    assert_eq!(messages.status.code(), Some(0));
    assert!(text(&messages.stdout).contains("No messages"));
    let missing = db.run(&["messages", "00000000-0000-0000-0000-000000000000"]);
    assert_eq!(missing.status.code(), Some(3));
}

#[test]
fn wait_wakes_when_another_process_moves_and_says_how_it_ended() {
    let db = Db::new();
    db.open();
    let ended = |out: &Output| -> Value {
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)))
    };
    // Dana's move already: at once.
    let now = db.run(&["wait", OPP, "--as", "dana", "--json"]);
    assert_eq!(now.status.code(), Some(0));
    assert_eq!(ended(&now)["ended"], "yourMove");
    // Not sam's, and nothing happens: the timeout, exit 8.
    let late = db.run(&["wait", OPP, "--as", "sam", "--timeout", "0", "--json"]);
    assert_eq!(late.status.code(), Some(8));
    assert_eq!(ended(&late)["ended"], "timedOut");
    // A stranger cannot tell it exists.
    assert_eq!(db.run(&["wait", OPP, "--as", "eve"]).status.code(), Some(3));

    // Sam waits in one process; dana's turn in another wakes it.
    let path = db.path();
    let started = std::time::Instant::now();
    let waiter = support::command(db.dir.path())
        .args([
            "--json",
            "negotiation",
            "wait",
            OPP,
            "--as",
            "sam",
            "--timeout",
            "60",
            "--db",
            &path,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        db.turn("dana", "propose", "Intro call?").status.code(),
        Some(0)
    );
    let woken = waiter.wait_with_output().unwrap();
    assert_eq!(woken.status.code(), Some(0), "{}", text(&woken.stderr));
    assert_eq!(ended(&woken)["ended"], "yourMove");
    assert_eq!(ended(&woken)["negotiation"]["turnCount"], 1);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "woken by the turn, not by the timeout"
    );

    // Settled: exit 6, for either seat.
    assert_eq!(db.turn("sam", "accept", "Deal.").status.code(), Some(0));
    let settled = db.run(&["wait", OPP, "--as", "dana", "--json"]);
    assert_eq!(settled.status.code(), Some(6));
    assert_eq!(ended(&settled)["ended"], "settled");
    let said = db.run(&["wait", OPP, "--as", "sam"]);
    assert!(
        text(&said.stdout).contains("settled"),
        "{}",
        text(&said.stdout)
    );
    assert!(
        text(&said.stderr).is_empty(),
        "no error: {}",
        text(&said.stderr)
    );
}

#[test]
fn usage_errors_exit_2() {
    let db = Db::new();
    for args in [
        vec!["turn", OPP, "--action", "propose", "--message", "x"],
        vec![
            "turn",
            OPP,
            "--as",
            "dana",
            "--action",
            "haggle",
            "--message",
            "x",
        ],
        vec![
            "open",
            "--initiator",
            "a",
            "--initiator-intent",
            "i",
            "--responder",
            "b",
            "--responder-intent",
            "j",
            "--opportunity-id",
            "not-a-uuid",
        ],
    ] {
        let out = db.run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = index_in(db.dir.path(), &["no-such-command"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_generated_opportunity_id_and_the_default_database() {
    let dir = tempfile::tempdir().unwrap();
    let out = index_in(
        dir.path(),
        &[
            "--json",
            "negotiation",
            "open",
            "--initiator",
            "a",
            "--initiator-intent",
            "i",
            "--responder",
            "b",
            "--responder-intent",
            "j",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let opened: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = opened["negotiation"]["id"].as_str().unwrap();
    assert!(index_question_block::is_negotiation_ref(id), "{id}");
    assert!(
        dir.path().join("index.db").exists(),
        "created in the current directory"
    );

    let elsewhere = dir.path().join("from-env.db");
    let env = elsewhere.display().to_string();
    let with_env = |args: &[&str]| support::index(dir.path(), args, None, &[("INDEX_DB", &env)]);
    let out = with_env(&["negotiation", "list", "--as", "a"]);
    assert_eq!(out.status.code(), Some(2), "a read never creates the store");
    assert!(!elsewhere.exists());
    let out = with_env(&[
        "negotiation",
        "open",
        "--initiator",
        "a",
        "--initiator-intent",
        "i",
        "--responder",
        "b",
        "--responder-intent",
        "j",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(elsewhere.exists(), "INDEX_DB is used");
    let out = with_env(&["negotiation", "list", "--as", "a"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("initiator"));
}

#[test]
fn a_corrupt_database_is_refused_and_left_untouched() {
    let db = Db::new();
    let garbage = b"this is not a database, it is a shopping list\n".repeat(100);
    std::fs::write(db.path(), &garbage).unwrap();
    let out = db.run(&["list", "--as", "dana"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("is not an Index negotiation store"),
        "{stderr}"
    );
    assert!(
        stderr.lines().count() <= 2,
        "one or two plain sentences: {stderr}"
    );
    assert_eq!(std::fs::read(db.path()).unwrap(), garbage);
}

#[test]
fn two_processes_racing_one_turn_have_one_winner() {
    let db = Db::new();
    db.open();
    for round in 0..3 {
        let spawn = |message: String| {
            let path = db.path();
            Command::new(env!("CARGO_BIN_EXE_index"))
                .args([
                    "negotiation",
                    "turn",
                    OPP,
                    "--as",
                    "dana",
                    "--action",
                    "propose",
                    "--message",
                    &message,
                    "--db",
                    &path,
                ])
                .env("NO_COLOR", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let first = spawn(format!("first {round}"));
        let second = spawn(format!("second {round}"));
        let outputs = [
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        ];
        let codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
        assert!(
            codes.contains(&Some(0)) && codes.contains(&Some(3)),
            "round {round}: {codes:?}"
        );
        let loser = outputs.iter().find(|o| o.status.code() == Some(3)).unwrap();
        assert!(text(&loser.stderr).contains("not_your_turn"));
        // Hand the turn back to dana for the next race.
        assert_eq!(db.turn("sam", "counter", "Go on.").status.code(), Some(0));
    }
    let shown: Value =
        serde_json::from_slice(&db.run(&["show", OPP, "--as", "dana", "--json"]).stdout).unwrap();
    assert_eq!(shown["state"]["turns"].as_array().unwrap().len(), 6);
}

#[test]
fn the_demo_runs_start_to_finish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.db");
    let out = index_in(dir.path(), &["demo", "--db", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for expected in [
        "Round ended (declined)",
        "Round ended (turn_limit)",
        "$ index negotiation park",
        "```index-questions",
        "Waiting on your answer: How much equity can you offer a founding engineer?",
        "$ index question-block render question.txt",
        "1. How much equity can you offer a founding engineer?",
        "$ index negotiation answer --as dana",
        "resumed: dana moves first",
        "ask_user:",
        "Agreed: the opportunity is now pending review.",
        "$ index negotiation resume",
    ] {
        assert!(stdout.contains(expected), "{expected} missing");
    }
    assert!(
        text(&out.stderr).contains("Parked (ask round 1)"),
        "the park's status goes to standard error, beside its message on standard output"
    );
    assert!(
        !stdout.contains('\u{1b}'),
        "no colour when NO_COLOR is set and output is not a terminal"
    );
    let listed = index_in(
        dir.path(),
        &[
            "--json",
            "negotiation",
            "list",
            "--as",
            "dana",
            "--db",
            path.to_str().unwrap(),
        ],
        None,
    );
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let listed = listed["negotiations"].as_array().unwrap();
    let with = |user: &str| {
        listed
            .iter()
            .find(|n| n["responder"]["userId"] == user)
            .unwrap_or_else(|| panic!("a negotiation with {user}: {listed:?}"))
    };
    assert_eq!(with("sam")["status"], "pending");
    assert_eq!(with("sam")["turnCount"], 17);
}

/// Runs `index serve` on `db` in `dir` until it says where it listens,
/// then stops it: what it wrote to standard error before that line, and
/// the line.
fn serve_until_listening(dir: &Path, db: &str) -> (Vec<String>, String) {
    let mut host = support::command(dir)
        .args(["serve", "--listen", "127.0.0.1:0", "--db", db])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::io::BufRead::lines(std::io::BufReader::new(host.stderr.take().unwrap()));
    let mut before = Vec::new();
    let mut listening = String::new();
    for line in lines {
        let line = line.unwrap();
        if line.starts_with("listening on") {
            listening = line;
            break;
        }
        before.push(line);
    }
    host.kill().unwrap();
    host.wait().unwrap();
    (before, listening)
}

/// `index serve` says where it listens and where each of its faces is,
/// the inbox included; its help and man page name the inbox too.
#[test]
fn serve_names_the_inbox_where_it_listens() {
    let dir = tempfile::tempdir().unwrap();
    let (_, line) = serve_until_listening(dir.path(), "serve.db");
    let address = line
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    assert!(address.starts_with("127.0.0.1:"), "{line}");
    assert_eq!(
        line,
        format!("listening on http://{address} (REST at /, MCP at /mcp, inbox at /inbox)")
    );
    let help = index_in(dir.path(), &["serve", "--help"], None);
    assert!(text(&help.stdout).contains("the inbox (a person's web page, at /inbox)"));
    assert!(
        text(&help.stdout).contains("A browser that opens the host's address is sent to /inbox")
    );
}

/// The demo ends with a question left for dana, so that `index serve` on
/// its store shows her the question loop in the inbox.
#[test]
fn the_demo_leaves_dana_one_question_to_answer() {
    let dir = tempfile::tempdir().unwrap();
    let out = index_in(dir.path(), &["demo", "--db", "index.db"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for expected in [
        "8. Dana's agent talks with a second candidate, Lee",
        "--as lee --action counter --message 'Still short of 1.8%; over to Dana.'",
        "Round ended (turn_limit)",
        "--as dana --model scripted --name Dana --counterparty-name Lee",
        "the second waits on Dana's answer.",
        "Answer it in the inbox: run `index serve --db 'index.db'` and open the link `index keys login-link --user dana --db 'index.db'` prints.",
    ] {
        assert!(stdout.contains(expected), "{expected} missing: {stdout}");
    }
    let db = dir.path().join("index.db").display().to_string();
    let listed = index_in(
        dir.path(),
        &["--json", "negotiation", "list", "--as", "dana", "--db", &db],
        None,
    );
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let waiting: Vec<&Value> = listed["negotiations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["waitingOn"] == "dana")
        .collect();
    assert_eq!(waiting.len(), 1, "{listed}");
    assert_eq!(waiting[0]["responder"]["userId"], "lee");

    // What the inbox reads: one question, for that negotiation alone.
    let key = index_in(
        dir.path(),
        &["keys", "create", "--user", "dana", "--db", &db],
        None,
    );
    assert_eq!(key.status.code(), Some(0), "{}", text(&key.stderr));
    let key = text(&key.stdout).trim().to_owned();
    let host = serve::Host::start(dir.path(), &db);
    let (status, asked) = host.request("GET", "/questions", &key, None);
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["questions"].as_array().unwrap().len(), 1, "{asked}");
    assert_eq!(
        asked["questions"][0]["opportunityIds"],
        serde_json::json!([waiting[0]["id"]])
    );
    assert!(
        asked["questions"][0]["message"]
            .as_str()
            .unwrap()
            .contains("How much equity can you offer a founding engineer?"),
        "{asked}"
    );
    assert_eq!(asked["unreadable"], serde_json::json!([]));
    host.stop();
}

#[test]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
fn a_postgres_url_selects_the_postgres_backend() {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL names the test database (bash .ci/postgres)");
    let dir = tempfile::tempdir().unwrap();
    let id = uuid_like(std::process::id());
    let run = |args: &[&str]| {
        let mut full = vec!["negotiation"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["--db", &url]);
        index_in(dir.path(), &full, None)
    };
    let opened = run(&[
        "open",
        "--initiator",
        "pg-a",
        "--initiator-intent",
        "i",
        "--responder",
        "pg-b",
        "--responder-intent",
        "j",
        "--opportunity-id",
        &id,
    ]);
    assert_eq!(opened.status.code(), Some(0), "{}", text(&opened.stderr));
    let turned = run(&[
        "turn",
        &id,
        "--as",
        "pg-a",
        "--action",
        "propose",
        "--message",
        "Over PostgreSQL.",
    ]);
    assert_eq!(turned.status.code(), Some(0), "{}", text(&turned.stderr));
    let shown: Value =
        serde_json::from_slice(&run(&["show", &id, "--as", "pg-b", "--json"]).stdout).unwrap();
    assert_eq!(shown["state"]["turns"][0]["message"], "Over PostgreSQL.");
    assert!(
        !dir.path().join("index.db").exists(),
        "no SQLite file was created"
    );
}

/// A UUID unique to this run, from the process id and the clock.
fn uuid_like(pid: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{pid:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (nanos >> 48) & 0xffff,
        (nanos >> 36) & 0xfff,
        (nanos >> 24) & 0xfff,
        nanos & 0xffff_ffff_ffff
    )
}

/// The notice a command gives when it makes an SQLite store at `path`.
fn created_notice(path: &Path) -> String {
    format!(
        "created a new store at {}",
        std::fs::canonicalize(path).unwrap().display()
    )
}

#[test]
fn a_command_that_creates_a_store_names_it_and_one_on_an_existing_store_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("index.db");
    let created = index_in(dir.path(), &["keys", "create", "--user", "dana"], None);
    assert_eq!(created.status.code(), Some(0), "{}", text(&created.stderr));
    let stderr = text(&created.stderr);
    assert!(stderr.contains(&created_notice(&store)), "{stderr}");
    assert!(
        !text(&created.stdout).contains("created"),
        "standard output stays the key alone"
    );

    // The store exists now: no command mentions creating one.
    for args in [
        &["keys", "create", "--user", "sam"][..],
        &["keys", "login-link", "--user", "dana"],
        &["keys", "list"],
        &["negotiation", "list", "--as", "dana"],
    ] {
        let again = index_in(dir.path(), args, None);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&again.stderr)
        );
        assert!(
            !text(&again.stderr).contains("created a new store"),
            "{args:?}: {}",
            text(&again.stderr)
        );
    }
}

#[test]
fn every_command_that_may_create_a_store_says_so_when_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let named = |name: &str| dir.path().join(name).display().to_string();

    let link = named("link.db");
    let out = index_in(
        dir.path(),
        &["keys", "login-link", "--user", "dana", "--db", &link],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(&created_notice(Path::new(&link))));

    // Under --json too: the JSON is on standard output, the notice beside it.
    let opened = named("open.db");
    let out = index_in(
        dir.path(),
        &[
            "--json",
            "negotiation",
            "open",
            "--initiator",
            "dana",
            "--initiator-intent",
            "hire",
            "--responder",
            "sam",
            "--responder-intent",
            "join",
            "--db",
            &opened,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap();
    assert!(text(&out.stderr).contains(&created_notice(Path::new(&opened))));

    // A relative path is named in full.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let out = index_in(
        dir.path(),
        &[
            "keys",
            "create",
            "--user",
            "dana",
            "--db",
            "sub/../relative.db",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&created_notice(&dir.path().join("relative.db"))),
        "{}",
        text(&out.stderr)
    );

    // The host says so before it says where it listens.
    let served = named("serve.db");
    let (before, _) = serve_until_listening(dir.path(), &served);
    let notice = created_notice(Path::new(&served));
    assert!(
        before.iter().any(|line| line.contains(&notice)),
        "{before:?}"
    );

    // The demo's own throwaway store is nothing to announce.
    let out = index_in(dir.path(), &["demo"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("created a new store"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_reader_that_goes_away_early_is_no_error() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();

    // `index completions bash | head -1`: the script is longer than a pipe
    // holds, so the tool is still writing when its reader goes.
    let mut child = support::command(dir.path())
        .args(["completions", "bash"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = Vec::new();
    let mut byte = [0u8];
    // A byte at a time, so no more than the first line is taken.
    while first.last() != Some(&b'\n') {
        assert_eq!(stdout.read(&mut byte).unwrap(), 1, "{}", text(&first));
        first.push(byte[0]);
    }
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert!(text(&first).starts_with("_index()"), "{}", text(&first));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));

    // Ordinary commands, on a pipe whose reader is gone before they write:
    // nothing is said about it, and each exits with its own status.
    let valid = fixtures().join("valid/no-prose.txt");
    let invalid = fixtures().join("invalid/content-after-block.txt");
    for (args, status) in [
        (vec!["--help"], 0),
        (vec!["completions", "zsh"], 0),
        (
            vec![
                "question-block",
                "check",
                valid.to_str().unwrap(),
                invalid.to_str().unwrap(),
            ],
            1,
        ),
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = support::command(dir.path())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// The statuses a man page's EXIT STATUS section lists.
fn exit_statuses(page: &str) -> Vec<String> {
    page.lines()
        .skip_while(|line| *line != ".SH \"EXIT STATUS\"")
        .skip(1)
        .take_while(|line| !line.starts_with(".SH"))
        .filter_map(|line| line.strip_prefix("\\fB")?.strip_suffix("\\fR"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn man_installs_every_page_each_with_its_own_exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("share/man/man1");
    let out = index_in(
        dir.path(),
        &["man", "--dir", target.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Exactly the pages docs/man holds, byte for byte: one generator for both.
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/man");
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let pages = names(&docs);
    assert_eq!(names(&target), pages);
    for name in &pages {
        assert_eq!(
            std::fs::read_to_string(target.join(name)).unwrap(),
            std::fs::read_to_string(docs.join(name)).unwrap(),
            "{name}"
        );
    }
    let said = text(&out.stdout);
    let target = std::fs::canonicalize(&target).unwrap();
    assert!(
        said.contains(&format!(
            "Wrote {} man pages to {}",
            pages.len(),
            target.display()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "add {} to MANPATH",
            target.parent().unwrap().display()
        )),
        "{said}"
    );
    // A directory that is no man1 of a manual tree: read by path.
    let loose = dir.path().join("loose");
    let out = index_in(dir.path(), &["man", "--dir", loose.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains(&format!(
            "man {}",
            std::fs::canonicalize(&loose)
                .unwrap()
                .join("index-negotiation-turn.1")
                .display()
        )),
        "{said}"
    );

    // Each page lists what its own command can return.
    let statuses = |name: &str| exit_statuses(&std::fs::read_to_string(target.join(name)).unwrap());
    assert_eq!(statuses("index-question-block-check.1"), ["0", "1", "2"]);
    assert_eq!(statuses("index-negotiation-turn.1"), ["0", "2", "3", "4"]);
    assert_eq!(
        statuses("index-negotiation-wait.1"),
        ["0", "2", "3", "4", "6", "7", "8"]
    );
    assert_eq!(statuses("index-serve.1"), ["0", "2", "4"]);
    assert_eq!(statuses("index-keys-whoami.1"), ["0", "1", "2", "4"]);
    assert_eq!(
        statuses("index.1"),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8"]
    );

    // Under --json: where, and which pages.
    let other = dir.path().join("other");
    let out = index_in(
        dir.path(),
        &["--json", "man", "--dir", other.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["dir"],
        std::fs::canonicalize(&other).unwrap().display().to_string()
    );
    assert_eq!(json["pages"].as_array().unwrap().len(), pages.len());
    assert_eq!(json["pages"][0], "index.1");
}

#[test]
fn man_without_a_dir_takes_the_first_default_it_can_write() {
    let dir = tempfile::tempdir().unwrap();
    let (xdg, home) = (dir.path().join("data"), dir.path().join("home"));
    let env = [
        ("XDG_DATA_HOME", xdg.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let out = support::index(dir.path(), &["man"], None, &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(xdg.join("man/man1/index-man.1").is_file());
    assert!(!home.exists());

    // A data directory that cannot be made (a file is in the way): home.
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let xdg = blocked.join("data");
    let env = [
        ("XDG_DATA_HOME", xdg.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let out = support::index(dir.path(), &["man"], None, &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(home.join(".local/share/man/man1/index.1").is_file());

    // Nowhere to write: exit 2, naming each directory tried.
    let env = [
        ("XDG_DATA_HOME", xdg.to_str().unwrap()),
        ("HOME", blocked.to_str().unwrap()),
    ];
    let out = support::index(dir.path(), &["man"], None, &env);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(xdg.to_str().unwrap()) && stderr.contains(blocked.to_str().unwrap()),
        "{stderr}"
    );
}

#[test]
fn serve_takes_an_issuers_tokens_and_a_401_says_where_to_find_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db").display().to_string();
    let host = serve::Host::start_with_args(
        dir.path(),
        &db,
        &[],
        &[
            "--oauth-issuer",
            "https://login.example.com/",
            "--public-url",
            "https://negotiate.example/",
        ],
    );
    let (status, metadata) =
        host.request("GET", "/.well-known/oauth-protected-resource/mcp", "", None);
    assert_eq!(status, 200, "{metadata}");
    assert_eq!(metadata["resource"], "https://negotiate.example/mcp");
    assert_eq!(
        metadata["authorization_servers"],
        serde_json::json!(["https://login.example.com/"])
    );
    let head = host.head_without_key("/mcp");
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains(
            "www-authenticate: bearer resource_metadata=\"https://negotiate.example/.well-known/oauth-protected-resource/mcp\", scope=\"agent\""
        ),
        "{head}"
    );
    host.stop();

    // A URL the host cannot use is refused before anything starts, and so
    // is an issuer without the URL clients reach the host at.
    let issuer = "https://login.example.com";
    for args in [
        &["--oauth-issuer", "ftp://login.example.com"][..],
        &["--oauth-issuer", "http://login.example.com"],
        &["--oauth-issuer", "https://login.example.com/?tenant=1"],
        &["--oauth-issuer", "https://login.example.com/a\"b"],
        &[
            "--oauth-issuer",
            issuer,
            "--public-url",
            "https://user:secret@negotiate.example",
        ],
        &["--public-url", "https://negotiate.example", "--mcp-stdio"],
        &["--oauth-issuer", issuer, "--listen", "0.0.0.0:0"],
    ] {
        let mut command = vec!["serve", "--db", &db];
        command.extend_from_slice(args);
        let refused = index_in(dir.path(), &command, None);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        let said = text(&refused.stderr);
        assert!(
            said.contains("--oauth-issuer") || said.contains("--public-url"),
            "{said}"
        );
    }
}
