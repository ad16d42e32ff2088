//! The audit record as people use it: the README's session with the
//! `index` tool, then agents on `index serve` over the same store, keys
//! made and revoked by the tool meanwhile; `index audit` and `GET /audit`
//! then list every step with who took it, and a revoked key's later
//! attempts as refused.

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

use std::path::Path;

use serde_json::{Value, json};

const OPP: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";

/// `index ARGS --db DB` in `dir`, its exit code.
fn index_status(dir: &Path, db: &str, args: &[&str]) -> i32 {
    let mut full = args.to_vec();
    full.extend_from_slice(&["--db", db]);
    support::index(dir, &full, None, &[]).status.code().unwrap()
}

/// A key for `user` made by the tool: its id and secret.
fn make_key(dir: &Path, db: &str, user: &str, host: bool) -> (String, String) {
    let mut args = vec!["keys", "create", "--user", user];
    if host {
        args.push("--host");
    }
    let made = support::index_json(dir, db, &args);
    (
        made["id"].as_str().unwrap().to_owned(),
        made["key"].as_str().unwrap().to_owned(),
    )
}

/// `index audit --json ARGS` on `db`: one entry a line.
fn audit(dir: &Path, db: &str, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["--json", "audit"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--db", db]);
    let out = support::index(dir, &full, None, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is one JSON entry"))
        .collect()
}

/// An entry as `(step, user, detail, actor kind, key id, request id)`,
/// `-` for what it does not name.
fn shown(entry: &Value) -> [String; 6] {
    let text = |value: &Value| value.as_str().unwrap_or("-").to_owned();
    [
        text(&entry["step"]),
        text(&entry["user"]),
        text(&entry["detail"]),
        text(&entry["actor"]["kind"]),
        text(&entry["actor"]["keyId"]),
        text(&entry["actor"]["requestId"]),
    ]
}

fn row(fields: [&str; 6]) -> [String; 6] {
    fields.map(str::to_owned)
}

#[test]
fn index_audit_lists_every_step_of_the_readme_session_with_its_actor() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let db = db.to_str().unwrap();
    let here = dir.path();

    // The README's session, with the tool as the operator.
    let negotiation = |args: &[&str]| {
        let mut full = vec!["negotiation"];
        full.extend_from_slice(args);
        index_status(here, db, &full)
    };
    assert_eq!(
        negotiation(&[
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
        ]),
        0
    );
    let turn = |who: &str, action: &str, message: &str| {
        negotiation(&[
            "turn",
            OPP,
            "--as",
            who,
            "--action",
            action,
            "--message",
            message,
        ])
    };
    assert_eq!(turn("dana", "propose", "Intro call next week?"), 0);
    assert_eq!(turn("dana", "propose", "Hello?"), 3, "not dana's turn");
    assert_eq!(turn("sam", "decline", "Not this quarter."), 0);
    assert_eq!(negotiation(&["resume", OPP, "--as", "sam"]), 0);

    // Agents on the host, with keys the tool makes and revokes meanwhile.
    let (host_id, host_key) = make_key(here, db, "ops", true);
    let (sam_id, sam_key) = make_key(here, db, "sam", false);
    let host = serve::Host::start(here, db);
    let turns = format!("/opportunities/{OPP}/negotiation/turns");
    let body = json!({"action": "propose", "message": "Call on Tuesday?"});
    let (status, _) = host.request_with(
        "POST",
        &turns,
        &sam_key,
        Some(&body),
        &[("x-request-id", "sam-turn-1")],
    );
    assert_eq!(status, 200);
    let revoked = support::index_json(here, db, &["keys", "revoke", &sam_id]);
    assert_eq!(revoked["revoked"], sam_id.as_str());
    let (status, _) = host.request_with(
        "POST",
        &turns,
        &sam_key,
        Some(&body),
        &[("x-request-id", "sam-turn-2")],
    );
    assert_eq!(status, 401, "a revoked key stops at its next request");
    // Tried again at once, it is refused again, but recorded once a minute.
    let (status, _) = host.request_with(
        "POST",
        &turns,
        &sam_key,
        Some(&body),
        &[("x-request-id", "sam-turn-3")],
    );
    assert_eq!(status, 401);

    let expected = vec![
        row(["opened", "dana", "-", "operator", "-", "-"]),
        row(["turn", "dana", "propose", "operator", "-", "-"]),
        row(["turn", "sam", "decline", "operator", "-", "-"]),
        row(["resumed", "sam", "-", "operator", "-", "-"]),
        row(["key_created", "ops", &host_id, "operator", "-", "-"]),
        row(["key_created", "sam", &sam_id, "operator", "-", "-"]),
        row(["turn", "sam", "propose", "agent_key", &sam_id, "sam-turn-1"]),
        row(["key_revoked", "sam", &sam_id, "operator", "-", "-"]),
        row([
            "refused",
            "sam",
            "key_revoked",
            "agent_key",
            &sam_id,
            "sam-turn-2",
        ]),
    ];
    let entries = audit(here, db, &[]);
    assert_eq!(entries.iter().map(shown).collect::<Vec<_>>(), expected);
    for entry in &entries {
        let text = entry.to_string();
        assert!(
            !text.contains("Intro call")
                && !text.contains("Call on Tuesday")
                && !text.contains(&sam_key),
            "no message body and no secret on the record: {text}"
        );
    }

    // Filters, from the tool and from the host, agree.
    let refused = audit(here, db, &["--user", "sam", "--step", "refused"]);
    assert_eq!(refused.iter().map(shown).collect::<Vec<_>>(), expected[8..]);
    let (status, page) = host.request("GET", "/audit?user=sam&step=refused", &host_key, None);
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["entries"], Value::Array(refused));
    let (status, page) = host.request("GET", "/audit?limit=4", &host_key, None);
    assert_eq!(status, 200);
    assert_eq!(page["entries"].as_array().unwrap().len(), 4);
    let next = page["next"].as_u64().expect("a full page names the next");
    let (_, rest) = host.request("GET", &format!("/audit?after={next}"), &host_key, None);
    let paged: Vec<Value> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["entries"].as_array().unwrap())
        .cloned()
        .collect();
    assert_eq!(paged, entries, "pages continue after `next`");
    let since = audit(here, db, &["--since", "1h", "--limit", "2"]);
    assert_eq!(since, entries[..2]);

    // Only host keys read the record, and a bad filter is a 400.
    let (_, dana_key) = make_key(here, db, "dana", false);
    let (status, refusal) = host.request("GET", "/audit", &dana_key, None);
    assert_eq!(
        (status, refusal["error"]["code"].as_str()),
        (403, Some("forbidden"))
    );
    let (status, _) = host.request("GET", "/audit?step=erased", &host_key, None);
    assert_eq!(status, 400);
    let (status, _) = host.request("GET", "/audit?since=yesterday", &host_key, None);
    assert_eq!(status, 400);
    host.stop();

    // The text form: a header and a row per entry.
    let out = support::index(
        here,
        &["audit", "--negotiation", OPP, "--db", db],
        None,
        &[],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("seq"), "{text}");
    assert_eq!(
        lines.len(),
        1 + 5,
        "the five steps on the negotiation: {text}"
    );
    assert_eq!(
        index_status(here, db, &["audit", "--since", "last week"]),
        2,
        "a moment that is none is a usage error"
    );
}
