//! The `index` tool as a contract: every command's JSON on success and on
//! failure (one error shape everywhere, exit codes unchanged), and the
//! defects a new user would hit, each pinned by a test.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;

const OPP: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";

/// What one run of `index` did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("not one JSON value ({err}): {}", self.stdout))
    }

    /// Asserts the run failed with `exit` and the JSON error `code`.
    fn fails_with(&self, exit: i32, code: &str) {
        assert_eq!(
            (self.code, self.error_code().as_str()),
            (Some(exit), code),
            "{}",
            self.stderr
        );
    }

    /// The JSON error's code, checking the envelope's shape on the way.
    fn error_code(&self) -> String {
        let json = self.json();
        let error = json["error"]
            .as_object()
            .unwrap_or_else(|| panic!("no error object: {json}"));
        assert_eq!(error.len(), 2, "{json}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{json}"
        );
        error["code"].as_str().unwrap().to_owned()
    }
}

/// A scratch directory with a store path in it.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("index.db")
    }

    /// `index <args>` here, with `stdin`, `INDEX_DB` unset unless `env` sets it.
    fn run_with(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Run {
        let out = support::index(self.dir.path(), args, stdin, env);
        Run {
            code: out.status.code(),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, None, &[])
    }

    /// `index --json negotiation <args> --db <store>`.
    fn json(&self, args: &[&str]) -> Run {
        let db = self.db().display().to_string();
        let mut full = vec!["--json", "negotiation"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["--db", &db]);
        self.run(&full)
    }

    /// `index negotiation <args> --db <store>`, as text.
    fn text(&self, args: &[&str]) -> Run {
        let db = self.db().display().to_string();
        let mut full = vec!["negotiation"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["--db", &db]);
        self.run(&full)
    }

    fn open_args(id: &str) -> Vec<&str> {
        vec![
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
            id,
        ]
    }

    fn open(&self) {
        let run = self.json(&Self::open_args(OPP));
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }

    /// Opens `OPP` and plays three turns: dana proposes, sam counters,
    /// dana proposes.
    fn open_with_three_turns(&self) {
        self.open();
        for (who, action) in [("dana", "propose"), ("sam", "counter"), ("dana", "propose")] {
            let run = self.json(&[
                "turn",
                OPP,
                "--as",
                who,
                "--action",
                action,
                "--message",
                "A turn.",
            ]);
            assert_eq!(run.code, Some(0), "{}", run.stderr);
        }
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/question-block")
}

/// The JSON each negotiation command prints, success and failure, in order
/// of a short negotiation. The snapshot pins every shape as printed, so
/// the order of every object's fields is pinned too (the order
/// docs/cli-json.md shows); the exit code of each is asserted beside it.
#[test]
fn every_negotiation_command_has_one_json_shape() {
    let s = Scratch::new();
    let mut steps: Vec<(String, Option<i32>, Value, String)> = Vec::new();
    let mut record = |name: &str, run: Run| {
        steps.push((name.to_owned(), run.code, run.json(), run.stdout));
    };
    record("open", s.json(&Scratch::open_args(OPP)));
    record("open refused", s.json(&Scratch::open_args(OPP)));
    record(
        "turn",
        s.json(&[
            "turn",
            OPP,
            "--as",
            "dana",
            "--action",
            "propose",
            "--message",
            "Intro call next week?",
        ]),
    );
    record(
        "turn refused",
        s.json(&[
            "turn",
            OPP,
            "--as",
            "dana",
            "--action",
            "propose",
            "--message",
            "Hello?",
        ]),
    );
    record(
        "turn decline",
        s.json(&[
            "turn",
            OPP,
            "--as",
            "sam",
            "--action",
            "decline",
            "--message",
            "Not this quarter.",
        ]),
    );
    record("resume", s.json(&["resume", OPP, "--as", "sam"]));
    record("resume refused", s.json(&["resume", OPP, "--as", "dana"]));
    record("show", s.json(&["show", OPP, "--as", "dana"]));
    record(
        "show not found",
        s.json(&[
            "show",
            "00000000-0000-4000-8000-000000000000",
            "--as",
            "dana",
        ]),
    );
    record("list", s.json(&["list", "--as", "dana"]));
    record("messages", s.json(&["messages", OPP]));
    record(
        "messages not found",
        s.json(&["messages", "00000000-0000-4000-8000-000000000000"]),
    );
    record(
        "invalid: malformed id",
        s.json(&["show", "not-a-uuid", "--as", "dana"]),
    );
    record(
        "eligibility",
        s.json(&["eligibility", OPP, "--user", "sam", "--inactive"]),
    );
    record("close", s.json(&["close", OPP, "--reason", "passed"]));
    let codes: Vec<(String, Option<i32>)> =
        steps.iter().map(|(n, c, _, _)| (n.clone(), *c)).collect();
    assert_eq!(
        codes,
        [
            ("open", 0),
            ("open refused", 3),
            ("turn", 0),
            ("turn refused", 3),
            ("turn decline", 0),
            ("resume", 0),
            ("resume refused", 3),
            ("show", 0),
            ("show not found", 3),
            ("list", 0),
            ("messages", 0),
            ("messages not found", 3),
            ("invalid: malformed id", 2),
            ("eligibility", 0),
            ("close", 0),
        ]
        .map(|(n, c)| (n.to_owned(), Some(c)))
    );
    for (name, _, json, _) in &steps {
        if name.contains("refused") || name.contains("not found") || name.starts_with("invalid") {
            assert!(json.get("error").is_some(), "{name}: {json}");
        } else {
            assert!(json.get("error").is_none(), "{name}: {json}");
        }
    }
    let printed: String = steps
        .iter()
        .map(|(name, _, _, stdout)| format!("== {name}\n{stdout}"))
        .collect();
    insta::assert_snapshot!("negotiation-commands", printed);
}

#[test]
fn show_includes_the_guidance_only_when_asked() {
    let s = Scratch::new();
    s.open();
    let plain = s.json(&["show", OPP, "--as", "dana"]).json();
    assert!(plain["observation"].get("guidance").is_none(), "{plain}");
    assert!(plain["observation"].get("availableActions").is_some());
    let guided = s.json(&["show", OPP, "--as", "dana", "--guidance"]).json();
    assert!(
        guided["observation"]["guidance"]
            .as_str()
            .is_some_and(|g| g.len() > 100)
    );
}

#[test]
fn question_block_commands_have_one_json_shape() {
    let s = Scratch::new();
    let canonical = fixtures()
        .join("canonical.message.txt")
        .display()
        .to_string();
    let unclosed = fixtures()
        .join("invalid/unclosed-fence.txt")
        .display()
        .to_string();
    let prose = fixtures().join("canonical.prose.txt").display().to_string();
    let block = fixtures()
        .join("canonical.block.json")
        .display()
        .to_string();
    let parse = s.run(&["--json", "question-block", "parse", &canonical]);
    assert_eq!(parse.code, Some(0));
    assert!(parse.json()["block"]["questions"].is_array());
    let not_message = s.run(&["--json", "question-block", "parse", &unclosed]);
    not_message.fails_with(1, "not_a_question_message");
    let unreadable = s.run(&[
        "--json",
        "question-block",
        "parse",
        "/nonexistent/message.txt",
    ]);
    unreadable.fails_with(2, "invalid_input");
    let serialized = s.run(&[
        "--json",
        "question-block",
        "serialize",
        "--prose-file",
        &prose,
        "--block-file",
        &block,
    ]);
    assert_eq!(serialized.code, Some(0));
    assert_eq!(
        serialized.json()["message"].as_str().unwrap().as_bytes(),
        std::fs::read(fixtures().join("canonical.message.txt")).unwrap()
    );
    let invalid = s.run(&[
        "--json",
        "question-block",
        "serialize",
        "--prose",
        "x",
        "--block",
        "{\"version\": 2}",
    ]);
    invalid.fails_with(2, "invalid_input");
    let usage = s.run(&["--json", "question-block", "serialize", "--prose", "x"]);
    usage.fails_with(2, "missing_argument");
    assert!(
        usage.stderr.contains("--block"),
        "clap's own explanation is kept on stderr: {}",
        usage.stderr
    );

    let check = s.run(&["--json", "question-block", "check", &canonical, &unclosed]);
    assert_eq!(check.code, Some(1));
    let report = check.json();
    assert_eq!(
        report.as_array().map(Vec::len),
        Some(2),
        "the report, and nothing else: {report}"
    );
    insta::assert_json_snapshot!(
        "question-block-commands",
        serde_json::json!({
            "not a message": not_message.json(),
            "invalid block": invalid.json(),
            "check": report.as_array().unwrap().iter().map(|r| serde_json::json!({"ok": r["ok"], "rule": r["rule"]})).collect::<Vec<_>>(),
        })
    );
}

#[test]
fn serialize_takes_text_or_files_and_reproduces_the_canonical_bytes() {
    let s = Scratch::new();
    let prose = std::fs::read_to_string(fixtures().join("canonical.prose.txt")).unwrap();
    let block = std::fs::read_to_string(fixtures().join("canonical.block.json")).unwrap();
    let canonical = std::fs::read(fixtures().join("canonical.message.txt")).unwrap();
    let inline = s.run(&[
        "question-block",
        "serialize",
        "--prose",
        &prose,
        "--block",
        &block,
    ]);
    assert_eq!(inline.code, Some(0), "{}", inline.stderr);
    assert_eq!(inline.stdout.as_bytes(), canonical);
    let piped = s.run_with(
        &[
            "question-block",
            "serialize",
            "--prose",
            &prose,
            "--block-file",
            "-",
        ],
        Some(&block),
        &[],
    );
    assert_eq!(piped.stdout.as_bytes(), canonical);
    let both = s.run(&[
        "question-block",
        "serialize",
        "--prose",
        "x",
        "--prose-file",
        "p",
        "--block",
        "{}",
    ]);
    assert_eq!(both.code, Some(2), "one source each");
}

/// On a terminal, reading standard input says so instead of seeming to
/// hang; piped input is read without a word (the other tests pipe it).
/// `script` (util-linux) gives the command a terminal.
#[test]
#[cfg(unix)]
fn reading_a_terminal_says_how_to_end_the_input() {
    use std::io::Write;
    let command = format!("{} question-block parse", env!("CARGO_BIN_EXE_index"));
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs the command on a terminal");
    // Ctrl-D on the terminal ends the input.
    child.stdin.take().unwrap().write_all(b"\x04").unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("Reading standard input"), "{said}");
    assert!(said.contains("Ctrl-D"), "{said}");
    assert!(said.contains("not a question message"), "{said}");
}

#[test]
fn json_parse_errors_say_what_the_parser_says_and_which_kind() {
    let s = Scratch::new();
    for (args, code, says) in [
        (
            &["negotiation", "list", "--as", "dana", "--bogus"][..],
            "unknown_argument",
            "--bogus",
        ),
        (&["negotiation", "show", OPP], "missing_argument", "--as"),
        (
            &[
                "negotiation",
                "turn",
                OPP,
                "--as",
                "dana",
                "--action",
                "shout",
                "--message",
                "m",
            ],
            "invalid_value",
            "possible values: propose, counter, accept, decline",
        ),
        (
            &["negotiation", "answer", "--as", "dana", "--answer", "0=x"],
            "invalid_value",
            "numbered from 1",
        ),
    ] {
        let mut full = vec!["--json"];
        full.extend_from_slice(args);
        let run = s.run(&full);
        run.fails_with(2, code);
        let message = run.json()["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.contains(says), "{args:?}: {message}");
        assert!(!message.contains('\u{1b}'), "no styling: {message:?}");
    }
}

#[test]
fn answering_a_file_that_is_not_a_question_message_says_why() {
    let s = Scratch::new();
    s.open();
    let notes = s.dir.path().join("notes.txt");
    std::fs::write(&notes, "Just some notes, no questions.\n").unwrap();
    let run = s.text(&[
        "answer",
        "--as",
        "dana",
        "--message",
        notes.to_str().unwrap(),
        "--answer",
        "1=yes",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let parse = s.run(&["question-block", "parse", notes.to_str().unwrap()]);
    assert_eq!(parse.code, Some(1));
    // The reader's own reason, as `question-block parse` gives it.
    assert!(run.stderr.contains("no line opens"), "{}", run.stderr);
    assert_eq!(
        run.stderr.lines().last(),
        parse.stderr.lines().last(),
        "the same explanation"
    );
}

#[test]
fn a_stranger_cannot_tell_a_negotiation_exists() {
    let s = Scratch::new();
    s.open();
    let missing = "00000000-0000-4000-8000-000000000000";
    for id in [OPP, missing] {
        let run = s.run(&["--json", "negotiation", "show", id, "--as", "eve"]);
        assert_eq!(run.code, Some(3), "{id}: {}", run.stdout);
        assert_eq!(run.json()["error"]["code"], "not_found", "{id}");
        assert!(!run.stdout.contains("turns"), "{}", run.stdout);
    }
    let seat = s.run(&["--json", "negotiation", "show", OPP, "--as", "dana"]);
    assert_eq!(seat.code, Some(0), "{}", seat.stderr);
}

#[test]
fn serialize_refuses_a_block_that_would_not_read_back() {
    let s = Scratch::new();
    // A prompt that ends a line (U+2028) beside a fence marker: the
    // reference writes these bytes, and no reader then finds the block.
    let block = serde_json::json!({"version": 1, "questions": [
        {"prompt": "Fine?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"},
        {"prompt": "\u{2028}```index-questions\u{2028}", "opportunityId": "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36"}
    ]})
    .to_string();
    let run = s.run(&[
        "question-block",
        "serialize",
        "--prose",
        "Two questions:",
        "--block",
        &block,
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stdout.is_empty(), "nothing is written: {}", run.stdout);
    assert!(
        run.stderr.contains("would not read back") && run.stderr.contains("questions.1.prompt"),
        "{}",
        run.stderr
    );
    let json = s.run(&[
        "--json",
        "question-block",
        "serialize",
        "--prose",
        "Two questions:",
        "--block",
        &block,
    ]);
    assert_eq!(json.code, Some(2));
    assert_eq!(json.json()["error"]["code"], "invalid_input");
}

#[test]
fn a_file_that_cannot_be_read_is_exit_2_everywhere() {
    let s = Scratch::new();
    for args in [
        vec!["question-block", "check", "/nonexistent"],
        vec!["question-block", "parse", "/nonexistent"],
        vec![
            "question-block",
            "serialize",
            "--prose-file",
            "/nonexistent",
            "--block",
            "{}",
        ],
    ] {
        let run = s.run(&args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(said.contains("could not read /nonexistent"), "{said}");
    }
}

#[test]
fn reads_never_create_a_store() {
    let s = Scratch::new();
    let typo = s.dir.path().join("typo.db").display().to_string();
    for args in [
        vec!["negotiation", "list", "--as", "x", "--db", &typo],
        vec!["negotiation", "show", OPP, "--as", "x", "--db", &typo],
        vec!["negotiation", "messages", OPP, "--db", &typo],
        vec![
            "negotiation",
            "turn",
            OPP,
            "--as",
            "x",
            "--action",
            "propose",
            "--message",
            "m",
            "--db",
            &typo,
        ],
        vec!["negotiation", "resume", OPP, "--as", "x", "--db", &typo],
    ] {
        let run = s.run(&args);
        assert_eq!(run.code, Some(2), "{args:?}");
        assert!(
            run.stderr.contains("there is no negotiation store at"),
            "{}",
            run.stderr
        );
        let mut json = vec!["--json"];
        json.extend_from_slice(&args);
        assert_eq!(s.run(&json).error_code(), "store_not_found");
    }
    let entries: Vec<_> = std::fs::read_dir(s.dir.path()).unwrap().collect();
    assert!(entries.is_empty(), "nothing was created: {entries:?}");
}

#[test]
fn reads_leave_an_existing_store_byte_for_byte_as_it_was() {
    let s = Scratch::new();
    s.open();
    let before = std::fs::read(s.db()).unwrap();
    for args in [
        vec!["list", "--as", "dana"],
        vec!["show", OPP, "--as", "sam"],
        vec!["messages", OPP],
    ] {
        assert_eq!(s.text(&args).code, Some(0), "{args:?}");
    }
    assert_eq!(std::fs::read(s.db()).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["index.db"], "no -wal or -shm left behind");
}

#[test]
fn the_store_is_named_by_a_path_or_a_known_scheme() {
    let s = Scratch::new();
    let empty = s.run_with(
        &["negotiation", "list", "--as", "x"],
        None,
        &[("INDEX_DB", "")],
    );
    assert_eq!(empty.code, Some(2));
    assert!(empty.stderr.contains("INDEX_DB"), "{}", empty.stderr);
    for url in ["mysql://root@localhost/index", "redis://x"] {
        let run = s.run(&["negotiation", "list", "--as", "x", "--db", url]);
        assert_eq!(run.code, Some(2), "{url}");
        assert!(
            run.stderr.contains("postgres://") && run.stderr.contains("sqlite://"),
            "{}",
            run.stderr
        );
    }
    let bad_url = s.run(&[
        "negotiation",
        "list",
        "--as",
        "x",
        "--db",
        "postgres://bad url/x",
    ]);
    assert_eq!(bad_url.code, Some(2), "{}", bad_url.stderr);
    let bad_port = s.run(&[
        "negotiation",
        "list",
        "--as",
        "x",
        "--db",
        "postgres://u@localhost:port/x",
    ]);
    assert_eq!(bad_port.code, Some(2), "{}", bad_port.stderr);

    let path = s.dir.path().join("scheme.db");
    let url = format!("sqlite://{}", path.display());
    let mut open = Scratch::open_args(OPP);
    open.extend_from_slice(&["--db", &url]);
    let mut args = vec!["negotiation"];
    args.extend_from_slice(&open);
    assert_eq!(s.run(&args).code, Some(0));
    assert!(path.exists(), "sqlite:// names the file after it");
}

#[test]
fn an_opportunity_id_has_one_spelling() {
    let s = Scratch::new();
    s.open();
    let upper = OPP.to_ascii_uppercase();
    let again = s.json(&Scratch::open_args(&upper));
    again.fails_with(3, "already_exists");
    let turn = s.json(&[
        "turn",
        &upper,
        "--as",
        "dana",
        "--action",
        "propose",
        "--message",
        "Hi.",
    ]);
    assert_eq!(turn.code, Some(0), "{}", turn.stderr);
    let listed = s.json(&["list", "--as", "dana"]).json();
    assert_eq!(listed["negotiations"].as_array().unwrap().len(), 1);
    assert_eq!(listed["negotiations"][0]["id"], OPP, "stored in lower case");
}

/// A malformed id or a blank name is refused as the command line is read,
/// before any store is opened, naming the argument and why.
#[test]
fn malformed_ids_and_blank_names_are_refused_naming_the_argument() {
    let s = Scratch::new();
    s.open();
    for (args, argument) in [
        (vec!["show", "not-a-uuid", "--as", "dana"], "<ID>"),
        (
            vec![
                "turn",
                "not-a-uuid",
                "--as",
                "dana",
                "--action",
                "propose",
                "--message",
                "m",
            ],
            "<ID>",
        ),
        (vec!["resume", "not-a-uuid", "--as", "dana"], "<ID>"),
        (vec!["messages", "not-a-uuid"], "<ID>"),
        (vec!["show", OPP, "--as", " "], "--as <USER>"),
        (vec!["list", "--as", ""], "--as <USER>"),
        (
            vec![
                "open",
                "--initiator",
                "",
                "--initiator-intent",
                "i",
                "--responder",
                "b",
                "--responder-intent",
                "j",
            ],
            "--initiator <INITIATOR>",
        ),
        (
            vec![
                "open",
                "--initiator",
                "a",
                "--initiator-intent",
                "\t",
                "--responder",
                "b",
                "--responder-intent",
                "j",
            ],
            "--initiator-intent <INITIATOR_INTENT>",
        ),
        (
            vec!["list", "--as", "dana", "--limit", "2", "--cursor", "zz"],
            "--cursor <CURSOR>",
        ),
    ] {
        let run = s.json(&args);
        run.fails_with(2, "invalid_value");
        let message = run.json()["error"]["message"].as_str().unwrap().to_owned();
        assert!(
            message.contains(&format!("for '{argument}'")),
            "{args:?}: {message}"
        );
    }
}

#[test]
fn messages_are_stored_trimmed_and_measured_in_utf16_units() {
    let s = Scratch::new();
    s.open();
    let piped = s.run_with(
        &[
            "negotiation",
            "turn",
            OPP,
            "--as",
            "dana",
            "--action",
            "propose",
            "--message",
            "-",
            "--db",
            &s.db().display().to_string(),
        ],
        Some("Intro call next week?\n"),
        &[],
    );
    assert_eq!(piped.code, Some(0), "{}", piped.stderr);
    let shown = s.json(&["show", OPP, "--as", "sam"]).json();
    assert_eq!(
        shown["state"]["turns"][0]["message"],
        "Intro call next week?"
    );

    let emoji = "\u{1F600}".repeat(2001); // 4002 UTF-16 code units
    let refused = s.text(&[
        "turn",
        OPP,
        "--as",
        "sam",
        "--action",
        "counter",
        "--message",
        &emoji,
    ]);
    assert_eq!(refused.code, Some(3));
    assert!(
        refused.stderr.contains("UTF-16 code units") && refused.stderr.contains("This one is 4002"),
        "{}",
        refused.stderr
    );
    let fits = "\u{1F600}".repeat(2000);
    assert_eq!(
        s.text(&[
            "turn",
            OPP,
            "--as",
            "sam",
            "--action",
            "counter",
            "--message",
            &fits
        ])
        .code,
        Some(0)
    );
}

#[test]
fn the_demo_refuses_json() {
    let s = Scratch::new();
    let run = s.run(&["--json", "demo"]);
    run.fails_with(2, "usage");
}

#[test]
fn completions_are_generated_from_the_command_line_definition() {
    let s = Scratch::new();
    for shell in ["bash", "zsh", "fish"] {
        let run = s.run(&["completions", shell]);
        assert_eq!(run.code, Some(0), "{shell}");
        assert!(
            run.stdout.contains("question-block") && run.stdout.contains("negotiation"),
            "{shell}"
        );
    }
    assert_eq!(s.run(&["completions", "cmd.exe"]).code, Some(2));
}

/// `source <(COMPLETE=bash index)` in a real bash: completing a
/// negotiation id offers the ids of the person `--as` names, from the store
/// `--db` names, filtered by what was typed; without `--as` it offers no id.
#[test]
#[cfg(unix)]
fn bash_completes_a_persons_negotiation_ids_from_the_store() {
    let s = Scratch::new();
    s.open();
    let other = "1c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";
    let mut args = Scratch::open_args(other);
    args[2] = "eve";
    assert_eq!(s.json(&args).code, Some(0));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_index"))
        .parent()
        .unwrap();
    let db = s.db().display().to_string();
    let complete = |words: &[&str]| -> Vec<String> {
        let current = words.last().unwrap();
        let script = format!(
            "source <(COMPLETE=bash index) && COMP_WORDS=({}) && COMP_CWORD={} && \
             _clap_complete_index index '{current}' && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(s.dir.path())
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .env_remove("INDEX_DB")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('-'))
            .map(str::to_owned)
            .collect()
    };
    let show = |user: &str, typed: &str| {
        complete(&[
            "index",
            "negotiation",
            "show",
            "--db",
            &db,
            "--as",
            user,
            typed,
        ])
    };
    assert_eq!(show("dana", ""), [OPP]);
    assert_eq!(show("sam", ""), [other, OPP], "newest change first");
    assert_eq!(show("eve", "1c"), [other]);
    assert!(
        show("eve", "0c").is_empty(),
        "what was typed filters the ids"
    );
    assert!(show("nobody", "").is_empty());
    assert!(
        complete(&["index", "negotiation", "show", "--db", &db, ""]).is_empty(),
        "without --as, no person's ids"
    );
    assert_eq!(
        complete(&[
            "index",
            "negotiation",
            "turn",
            &format!("--db={db}"),
            "--as=dana",
            ""
        ]),
        [OPP],
        "flags written with ="
    );
}

#[test]
#[cfg(unix)]
fn a_key_written_to_a_file_is_its_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    let db = s.db().display().to_string();
    let path = s.dir.path().join("dana.key");
    let file = path.to_str().unwrap();
    let created = s.run(&[
        "keys", "create", "--user", "dana", "--output", file, "--db", &db,
    ]);
    assert_eq!(created.code, Some(0), "{}", created.stderr);
    assert!(
        created.stdout.is_empty(),
        "the key is not printed: {}",
        created.stdout
    );
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.starts_with("idx_") && written.trim().len() == 68,
        "{written:?}"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    // An existing file is never overwritten without --force, and no key
    // is made for it.
    let again = s.run(&[
        "--json", "keys", "create", "--user", "dana", "--output", file, "--db", &db,
    ]);
    again.fails_with(2, "invalid_input");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    let keys = s.run(&["--json", "keys", "list", "--db", &db]).json();
    assert_eq!(keys.as_array().unwrap().len(), 1, "{keys}");
    // With --force the file is replaced, still the owner's alone, even if
    // it was readable by anyone before.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let forced = s.run(&[
        "--json", "keys", "create", "--user", "dana", "--output", file, "--force", "--db", &db,
    ]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr);
    assert_eq!(forced.json()["file"], file);
    assert_eq!(forced.json().get("key"), None, "the key stays in the file");
    assert_ne!(std::fs::read_to_string(&path).unwrap(), written);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    assert_eq!(
        s.run(&["keys", "create", "--user", "dana", "--force", "--db", &db])
            .code,
        Some(2),
        "--force needs --output"
    );
}

#[test]
fn keys_are_shown_once_listed_without_secrets_and_revoked() {
    let s = Scratch::new();
    let db = s.db().display().to_string();
    let created = s.run(&["keys", "create", "--user", "dana", "--db", &db]);
    assert_eq!(created.code, Some(0), "{}", created.stderr);
    let secret = created.stdout.trim().to_owned();
    assert!(
        secret.starts_with("idx_") && secret.len() == 68,
        "only the key on stdout: {secret:?}"
    );
    let json = s
        .run(&[
            "--json", "keys", "create", "--user", "host", "--host", "--db", &db,
        ])
        .json();
    assert_eq!(
        (json["userId"].as_str(), json["scope"].as_str()),
        (Some("host"), Some("host"))
    );
    let listed = s.run(&["--json", "keys", "list", "--db", &db]);
    let keys = listed.json();
    assert_eq!(keys.as_array().unwrap().len(), 2);
    assert!(
        !listed.stdout.contains(&secret[4..]),
        "a listing never shows a key"
    );
    let id = keys[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(s.run(&["keys", "revoke", &id, "--db", &db]).code, Some(0));
    assert_eq!(
        s.run(&["--json", "keys", "list", "--db", &db]).json()[0]["revoked"],
        true
    );
    s.run(&["--json", "keys", "revoke", "nope", "--db", &db])
        .fails_with(2, "usage");
    let rotated = s
        .run(&[
            "--json",
            "keys",
            "rotate-signing-key",
            "--overlap",
            "30s",
            "--db",
            &db,
        ])
        .json();
    assert_eq!(
        rotated["overlapSeconds"], 120,
        "raised to the least overlap"
    );
    assert!(!rotated["signingKey"].as_str().unwrap().is_empty());
    s.run(&["--json", "keys", "create", "--user", " ", "--db", &db])
        .fails_with(2, "invalid_value");

    let key_file = s.dir.path().join("dana.key");
    std::fs::write(&key_file, format!("{secret}\n")).unwrap();
    let revoked = s.run(&[
        "serve",
        "--mcp-stdio",
        "--key-file",
        key_file.to_str().unwrap(),
        "--db",
        &db,
    ]);
    assert_eq!(
        revoked.code,
        Some(2),
        "a revoked key cannot serve: {}",
        revoked.stderr
    );
    assert!(!revoked.stderr.contains(&secret), "the key is not echoed");
    assert_eq!(
        s.run(&["serve", "--mcp-stdio", "--db", &db]).code,
        Some(2),
        "--mcp-stdio needs --key-file"
    );
}

#[test]
fn a_login_link_carries_its_key_in_the_fragment_and_expires() {
    let s = Scratch::new();
    let db = s.db().display().to_string();
    let made = s.run(&[
        "keys",
        "login-link",
        "--user",
        "dana",
        "--base",
        "http://inbox.test:9/",
        "--db",
        &db,
    ]);
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    let link = made.stdout.trim();
    let secret = link
        .strip_prefix("http://inbox.test:9/inbox#login=")
        .unwrap_or_else(|| panic!("{link}"));
    assert!(secret.starts_with("idx_") && secret.len() == 68, "{link}");
    let listed = s.run(&["--json", "keys", "list", "--db", &db]).json();
    let key = &listed[0];
    assert_eq!(
        (
            key["name"].as_str(),
            key["userId"].as_str(),
            key["scope"].as_str()
        ),
        (Some("index: login link"), Some("dana"), Some("agent"))
    );
    let at = |field: &str| humantime::parse_rfc3339(key[field].as_str().unwrap()).unwrap();
    let lifetime = at("expiresAt").duration_since(at("createdAt")).unwrap();
    assert_eq!(lifetime.as_secs(), 600, "ten minutes");
    s.run(&[
        "--json",
        "keys",
        "login-link",
        "--user",
        "dana",
        "--expires-in",
        "2d",
        "--db",
        &db,
    ])
    .fails_with(2, "invalid_input");
    s.run(&[
        "--json",
        "keys",
        "create",
        "--user",
        "dana",
        "--name",
        "index: mine",
        "--db",
        &db,
    ])
    .fails_with(2, "invalid_input");
}

#[test]
fn a_name_that_would_forge_a_log_line_is_refused_where_it_comes_in() {
    let s = Scratch::new();
    let db = s.db().display().to_string();
    for user in [
        "mallory\nINFO user=root",
        "dana\u{202e}",
        "sam\u{200b}",
        "x\u{2028}",
    ] {
        let created = s.run(&["--json", "keys", "create", "--user", user, "--db", &db]);
        created.fails_with(2, "invalid_value");
        let message = created.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            message.contains("--user") && message.contains("control or format characters"),
            "{message}"
        );
        s.run(&["--json", "keys", "login-link", "--user", user, "--db", &db])
            .fails_with(2, "invalid_value");
        s.json(&[
            "open",
            "--initiator",
            user,
            "--initiator-intent",
            "hire",
            "--responder",
            "sam",
            "--responder-intent",
            "join",
        ])
        .fails_with(2, "invalid_value");
    }
    s.json(&[
        "open",
        "--initiator",
        "dana",
        "--initiator-intent",
        "hire",
        "--responder",
        "sam",
        "--responder-intent",
        "nioj\u{202e}",
    ])
    .fails_with(2, "invalid_value");
    assert!(!s.db().exists(), "nothing was made, not even the store");
}

/// The host's log as `index serve` writes it, after one request with
/// `key` and the request id `request_id`.
fn log_of_one_request(s: &Scratch, key: &str, request_id: &str) -> String {
    use std::io::{Read, Write};
    let db = s.db().display().to_string();
    let path = s.dir.path().join("serve.log");
    let mut child = support::command(s.dir.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--db", &db])
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&path).unwrap())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let address = loop {
        let log = std::fs::read_to_string(&path).unwrap();
        if let Some(address) = log
            .lines()
            .find_map(|line| line.strip_prefix("listening on http://"))
            .and_then(|rest| rest.split_whitespace().next())
        {
            break address.to_owned();
        }
        assert!(
            started.elapsed().as_secs() < 30,
            "the host did not start: {log}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "GET /session HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer {key}\r\n\
         x-request-id: {request_id}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    assert!(child.wait().unwrap().success());
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn the_hosts_log_quotes_a_user_id_so_it_cannot_forge_a_line() {
    let s = Scratch::new();
    let db = s.db().display().to_string();
    let created = s.run(&["keys", "create", "--user", "dana", "--db", &db]);
    assert_eq!(created.code, Some(0), "{}", created.stderr);
    let key = created.stdout.trim().to_owned();
    // A user id stored before ids were checked, or by another program:
    // the types accept it, so the log must show it as what it is.
    let store = rusqlite::Connection::open(s.db()).unwrap();
    store
        .execute(
            "UPDATE api_keys SET user_id = ?1",
            ["mallory\nINFO forged: user=root"],
        )
        .unwrap();
    drop(store);
    let log = log_of_one_request(&s, &key, "req-7");
    assert!(
        log.contains(r#"user="mallory\nINFO forged: user=root""#),
        "the user id, quoted and escaped: {log}"
    );
    assert!(
        !log.lines().any(|line| line.starts_with("INFO forged")),
        "no forged line: {log}"
    );
    assert!(log.contains(r#"request_id="req-7""#), "{log}");
}

#[test]
fn store_check_reads_only_and_finds_a_broken_log() {
    let s = Scratch::new();
    s.open_with_three_turns();
    let db = s.db().display().to_string();
    let before = std::fs::read(s.db()).unwrap();
    let good = s.run(&["--json", "store", "check", "--db", &db]);
    assert_eq!(good.code, Some(0), "{}", good.stderr);
    assert_eq!(
        good.json(),
        serde_json::json!({"ok": true, "problems": [], "openElsewhere": []})
    );
    assert_eq!(
        std::fs::read(s.db()).unwrap(),
        before,
        "a check writes nothing"
    );

    // A gap in the turn log, made behind the store's back.
    let raw = rusqlite::Connection::open(s.db()).unwrap();
    raw.execute("UPDATE turns SET turn_index = 20 WHERE turn_index = 2", [])
        .unwrap();
    drop(raw);
    let broken = s.run(&["--json", "store", "check", "--db", &db]);
    assert_eq!(broken.code, Some(4), "{}", broken.stderr);
    let report = broken.json();
    assert_eq!(report["ok"], false);
    let problem = report["problems"][0].as_str().unwrap();
    assert!(
        problem.contains(OPP) && problem.contains("not dense"),
        "{problem}"
    );
    let text = s.run(&["store", "check", "--db", &db]);
    assert!(
        text.stdout.starts_with("FAIL  negotiation"),
        "{}",
        text.stdout
    );
    let missing = s.run(&[
        "store",
        "check",
        "--db",
        &s.dir.path().join("nope.db").display().to_string(),
    ]);
    assert_eq!(
        missing.code,
        Some(2),
        "a missing store is not created by a check"
    );
    let postgres = s.run(&["store", "check", "--db", "postgres://u@localhost/x"]);
    assert_eq!(postgres.code, Some(2));
}

/// Hand-made damage that reads back fine but that the rules would never
/// have let happen: each is reported as what it is.
#[test]
fn store_check_replays_every_log_through_the_rules() {
    let s = Scratch::new();
    s.open_with_three_turns();
    let good = std::fs::read(s.db()).unwrap();
    let cases = [
        (
            "UPDATE turns SET seat_user_id = 'mallory' WHERE turn_index = 1",
            "turn 1 by mallory breaks the rules",
        ),
        (
            "UPDATE turns SET seat_user_id = 'dana' WHERE turn_index = 1",
            "turn 1 by dana breaks the rules: not_your_turn",
        ),
        (
            "UPDATE turns SET action = 'accept' WHERE turn_index = 0",
            "turn 0 by dana breaks the rules: accept_without_offer",
        ),
        (
            "UPDATE turns SET message = '' WHERE turn_index = 2",
            "turn 2 by dana breaks the rules: invalid_turn",
        ),
        (
            "UPDATE turns SET message = replace(hex(zeroblob(6000)), '00', 'x') WHERE turn_index = 2",
            "turn 2 by dana breaks the rules: invalid_turn",
        ),
        (
            "UPDATE negotiations SET awaiting_user_id = 'mallory'",
            "mallory is to move but holds no seat",
        ),
        (
            "UPDATE negotiations SET settled = 1",
            "settled, yet sam is recorded as to move",
        ),
        (
            "UPDATE negotiations SET awaiting_user_id = 'dana'",
            "awaitingUserId is dana, but the log leads to sam",
        ),
        (
            "PRAGMA foreign_keys = OFF; INSERT INTO turns VALUES (99, 0, 'dana', 'propose', 'Stray.')",
            "turns: a row refers to a missing negotiations row",
        ),
    ];
    let db = s.db().display().to_string();
    for (damage, expected) in cases {
        std::fs::write(s.db(), &good).unwrap();
        let raw = rusqlite::Connection::open(s.db()).unwrap();
        raw.execute_batch(damage).unwrap();
        drop(raw);
        let checked = s.run(&["--json", "store", "check", "--db", &db]);
        assert_eq!(checked.code, Some(4), "{damage}: {}", checked.stdout);
        let report = checked.json();
        let problems: Vec<&str> = report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect();
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "{damage}: {expected:?} not in {problems:?}"
        );
    }
}

/// Damage that `store check` once passed, end to end: each is reported,
/// named after its negotiation or key, and fails the check. Keys as the
/// host makes them (a name as long as it allows, a login link, a signed-in
/// browser's session key) pass, so the check's key rules are the host's.
#[test]
fn store_check_holds_every_table_to_what_its_readers_rely_on() {
    let s = Scratch::new();
    s.open_with_three_turns();
    let db = s.db().display().to_string();
    let longest = "n".repeat(index_host::keys::KEY_NAME_LIMIT);
    let made = s.run(&[
        "--json", "keys", "create", "--user", "dana", "--name", &longest, "--db", &db,
    ]);
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    let key = made.json()["id"].as_str().unwrap().to_owned();
    let link = s.run(&["keys", "login-link", "--user", "sam", "--db", &db]);
    assert_eq!(link.code, Some(0), "{}", link.stderr);
    let raw = rusqlite::Connection::open(s.db()).unwrap();
    raw.execute(
        "INSERT INTO api_keys (id, hash, user_id, scope, name, created_at, expires_at) \
         VALUES ('5e5510aa00bb', randomblob(32), 'dana', 'agent', ?1, 1800000000, 1800043200)",
        [index_host::keys::WEB_SESSION_NAME],
    )
    .unwrap();
    drop(raw);
    let clean = s.run(&["--json", "store", "check", "--db", &db]);
    assert_eq!(clean.code, Some(0), "{}", clean.stdout);
    let good = std::fs::read(s.db()).unwrap();

    let cases = [
        (
            format!("UPDATE api_keys SET scope = 'root' WHERE id = '{key}'"),
            format!("key {key}: stored data is corrupt: unknown key scope \"root\""),
        ),
        (
            format!("UPDATE api_keys SET name = name || 'n' WHERE id = '{key}'"),
            format!(
                "key {key}: its name is longer than {} characters",
                index_host::keys::KEY_NAME_LIMIT
            ),
        ),
        (
            "UPDATE turns SET message = message || ' ' WHERE turn_index = 1".to_owned(),
            format!("negotiation {OPP}: turn 1: its message is not stored trimmed"),
        ),
        (
            "UPDATE negotiations SET park_answer = 'Yes'".to_owned(),
            format!("negotiation {OPP}: an answer is recorded without a park"),
        ),
        (
            "INSERT INTO messages VALUES (1, 0, 'agent:dana', '[{\"kind\":\"text\",\"text\":\"Hi.\"}]'); \
             INSERT INTO messages VALUES (1, 2, 'agent:sam', '[{\"kind\":\"text\",\"text\":\"Hello.\"}]')"
                .to_owned(),
            format!(
                "negotiation {OPP}: the message record is not dense: message 1 is stored at position 2"
            ),
        ),
        (
            "UPDATE negotiations SET round_start = 9".to_owned(),
            format!("negotiation {OPP}: round_start is 9, past the log's 3 turns"),
        ),
    ];
    for (damage, expected) in &cases {
        std::fs::write(s.db(), &good).unwrap();
        let raw = rusqlite::Connection::open(s.db()).unwrap();
        raw.execute_batch(damage).unwrap();
        drop(raw);
        let checked = s.run(&["--json", "store", "check", "--db", &db]);
        assert_eq!(checked.code, Some(4), "{damage}: {}", checked.stdout);
        let report = checked.json();
        assert_eq!(report["ok"], false);
        assert_eq!(
            report["problems"],
            serde_json::json!([expected]),
            "{damage}"
        );
    }
    // What the first damage did to a reader: the whole listing fails.
    std::fs::write(s.db(), &good).unwrap();
    let raw = rusqlite::Connection::open(s.db()).unwrap();
    raw.execute_batch(&cases[0].0).unwrap();
    drop(raw);
    s.run(&["--json", "keys", "list", "--db", &db])
        .fails_with(4, "store_failed");
}
