//! The host as a provider of the interaction contract, over REST on a real
//! listener: the provider matrix (every acknowledgement status, in the
//! contract's order of precedence), replays byte for byte, timeouts,
//! cancels, a store that fails, waits, pages, and racing commands with one
//! winner.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::sync::Arc;

use index_interaction::{
    InteractionAcknowledgement, InteractionBinding, InteractionRequest, InteractionResponse,
    InteractionResponseCommand,
};
use index_negotiation_store::{HostStore, MemoryStore};
use serde_json::{Value, json};

use support::{Running, code};

fn request(id: &str, extra: Value) -> Value {
    let mut request = json!({
        "id": id, "kind": "question", "title": "Which region should the pilot run in?",
        "answerSpec": {"fields": [{"name": "region", "label": "Region", "type": "select", "required": true,
            "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "United States"}]}]},
        "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
                    "sessionId": "s-1", "executionId": "x-1", "interactionId": id},
    });
    for (key, value) in extra.as_object().unwrap() {
        request[key] = value.clone();
    }
    request
}

/// A command for the stored `request` (as the host answered it), its
/// binding changed by `rebind` first, its digest made for what it says.
fn command(
    request: &Value,
    operation: &str,
    response: Value,
    rebind: impl FnOnce(&mut Value),
) -> Value {
    let request = InteractionRequest::from_json_value(request).unwrap();
    let mut binding = serde_json::to_value(request.command_binding()).unwrap();
    rebind(&mut binding);
    let binding = InteractionBinding::from_json_value(&binding).unwrap();
    let response = InteractionResponse::from_json_value(&response).unwrap();
    serde_json::to_value(InteractionResponseCommand::new(
        operation, binding, response,
    ))
    .unwrap()
}

fn eu(id: &str) -> Value {
    json!({"id": id, "outcome": "accepted", "data": {"region": ["eu"]}})
}

/// Where a person's response command is delivered.
#[derive(Debug, Clone, Copy)]
enum Surface {
    /// `POST /interactions/responses`.
    Rest,
    /// The `answer_interaction` tool, as a current MCP client calls it.
    Mcp,
}

/// Sends `command` as `key` on `surface`: the acknowledgement as the
/// surface carried its text.
async fn send(running: &Running, surface: Surface, key: &str, command: &Value) -> String {
    match surface {
        Surface::Rest => {
            let response = running
                .http
                .post(format!("{}/interactions/responses", running.base))
                .bearer_auth(key)
                .json(command)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.text().await.unwrap()
        }
        Surface::Mcp => {
            let params = json!({"name": "answer_interaction", "arguments": {"command": command}});
            let answer = running.current(key, "tools/call", params, "{}").await;
            let result = &answer["result"];
            assert_ne!(result["isError"], json!(true), "{answer}");
            let text = result["content"][0]["text"].as_str().unwrap().to_owned();
            let json: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                json, result["structuredContent"],
                "the text is the structured content"
            );
            text
        }
    }
}

/// Sends `command` as `key`; the acknowledgement's text and its status,
/// checked to echo the command and to read back strictly.
async fn respond(
    running: &Running,
    surface: Surface,
    key: &str,
    command: &Value,
) -> (String, String) {
    let (text, status) = deliver(running, surface, key, command).await;
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["commandDigest"], command["commandDigest"]);
    (text, status)
}

/// [`respond`] for a command whose operation id answered another command
/// before: its acknowledgement is that one's, so it echoes the operation
/// id and binding but the first command's digest.
async fn deliver(
    running: &Running,
    surface: Surface,
    key: &str,
    command: &Value,
) -> (String, String) {
    let text = send(running, surface, key, command).await;
    let json: Value = serde_json::from_str(&text).unwrap();
    let acknowledgement = InteractionAcknowledgement::from_json_value(&json)
        .unwrap_or_else(|invalid| panic!("{text}: {invalid}"));
    assert_eq!(json["operationId"], command["operationId"]);
    assert_eq!(json["binding"], command["binding"]);
    (text, acknowledgement.status.as_str().to_owned())
}

async fn ask(running: &Running, key: &str, request: &Value) -> Value {
    let asked = running
        .call("POST", "/interactions", Some(key), Some(request.clone()))
        .await;
    assert_eq!(asked.status, 201, "{}", asked.body);
    asked.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_matrix_over_rest() {
    provider_matrix(Surface::Rest).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_matrix_over_mcp() {
    provider_matrix(Surface::Mcp).await;
}

/// Every acknowledgement status but the timeouts', the cancel's and a
/// failing store's (below), on `surface`.
async fn provider_matrix(surface: Surface) {
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    let asked = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    assert_eq!(asked["status"], "pending");
    let stored = &asked["request"];
    assert!(
        stored["requestDigest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );

    let wrong = |field: &'static str, value: &'static str| {
        move |binding: &mut Value| binding[field] = json!(value)
    };
    let undeclared =
        json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["eu"], "note": "x"}});
    let cases = [
        (
            "op-run",
            eu("q-1"),
            Box::new(wrong("runId", "run-9")) as Box<dyn FnOnce(&mut Value)>,
            "unknown_run",
        ),
        (
            "op-env",
            eu("q-1"),
            Box::new(wrong("environmentId", "env-9")),
            "binding_mismatch",
        ),
        (
            "op-session",
            eu("q-1"),
            Box::new(wrong("sessionId", "s-9")),
            "binding_mismatch",
        ),
        (
            "op-digest",
            eu("q-1"),
            Box::new(|b: &mut Value| {
                b["requestDigest"] = json!(format!("sha256:{}", "0".repeat(64)))
            }),
            "binding_mismatch",
        ),
        (
            "op-undeclared",
            undeclared,
            Box::new(|_: &mut Value| {}),
            "invalid_response",
        ),
    ];
    for (operation, response, rebind, status) in cases {
        let sent = command(stored, operation, response, rebind);
        assert_eq!(
            respond(&running, surface, &running.dana, &sent).await.1,
            status,
            "{operation}"
        );
    }
    let other_id = command(stored, "op-other", eu("q-7"), |b| {
        b["interactionId"] = json!("q-7")
    });
    assert_eq!(
        respond(&running, surface, &running.dana, &other_id).await.1,
        "unknown_interaction"
    );
    // A stranger's command on dana's interaction finds nothing of hers.
    let accepted = command(stored, "op-1", eu("q-1"), |_| {});
    assert_eq!(
        respond(&running, surface, &running.stranger, &accepted)
            .await
            .1,
        "unknown_run"
    );

    let (first, status) = respond(&running, surface, &running.dana, &accepted).await;
    assert_eq!(status, "accepted");
    let (again, _) = respond(&running, surface, &running.dana, &accepted).await;
    assert_eq!(
        again, first,
        "a replay is the recorded acknowledgement, byte for byte"
    );
    let same = command(stored, "op-2", eu("q-1"), |_| {});
    assert_eq!(
        respond(&running, surface, &running.dana, &same).await.1,
        "already_resolved_same"
    );
    let declined = json!({"id": "q-1", "outcome": "declined"});
    let different = command(stored, "op-3", declined.clone(), |_| {});
    assert_eq!(
        respond(&running, surface, &running.dana, &different)
            .await
            .1,
        "already_resolved_different"
    );
    let declined_under_first = command(stored, "op-1", declined, |_| {});
    assert_eq!(
        deliver(&running, surface, &running.dana, &declined_under_first)
            .await
            .0,
        first,
        "the original operation id replays its acknowledgement whatever the command says"
    );
    // The invalid one was recorded too: replayed, not decided again.
    let undeclared_again = command(stored, "op-undeclared", eu("q-1"), |_| {});
    assert_eq!(
        deliver(&running, surface, &running.dana, &undeclared_again)
            .await
            .1,
        "invalid_response"
    );

    let read = running
        .call("GET", "/interactions/q-1", Some(&running.dana), None)
        .await;
    assert_eq!(read.body["status"], "resolved");
    assert_eq!(read.body["response"], eu("q-1"));
    let strangers = running
        .call("GET", "/interactions/q-1", Some(&running.stranger), None)
        .await;
    assert_eq!((strangers.status, code(&strangers)), (404, "not_found"));
}

#[tokio::test]
async fn an_ask_is_idempotent_and_an_id_with_other_content_conflicts() {
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    let first = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    let again = running
        .call(
            "POST",
            "/interactions",
            Some(&running.dana),
            Some(request("q-1", json!({}))),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, first);
    let other = running
        .call(
            "POST",
            "/interactions",
            Some(&running.dana),
            Some(request("q-1", json!({"title": "Another question"}))),
        )
        .await;
    assert_eq!((other.status, code(&other)), (409, "interaction_exists"));
    // Sent with its digest, which must match.
    let mut sealed = request("q-2", json!({}));
    sealed["requestDigest"] = json!(format!("sha256:{}", "1".repeat(64)));
    let refused = running
        .call("POST", "/interactions", Some(&running.dana), Some(sealed))
        .await;
    assert_eq!((refused.status, code(&refused)), (400, "invalid_request"));
    let unsealed = first["request"].clone();
    let resent = running
        .call("POST", "/interactions", Some(&running.dana), Some(unsealed))
        .await;
    assert_eq!(resent.status, 200, "its own digest matches");
    // Another person may use the same id.
    ask(&running, &running.sam, &request("q-1", json!({}))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_expires_or_resolves_once_and_a_cancel_never_undoes_an_answer() {
    for surface in [Surface::Rest, Surface::Mcp] {
        timeouts_and_cancels(surface).await;
    }
}

async fn timeouts_and_cancels(surface: Surface) {
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    let failing = ask(
        &running,
        &running.dana,
        &request("q-fail", json!({"timeoutMs": 1, "onTimeout": "fail"})),
    )
    .await;
    let defaulting = ask(
        &running,
        &running.dana,
        &request(
            "q-default",
            json!({"timeoutMs": 1, "onTimeout": "default",
            "default": {"outcome": "accepted", "data": {"region": ["us"]}}}),
        ),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let late = command(&failing["request"], "op-late", eu("q-fail"), |_| {});
    assert_eq!(
        respond(&running, surface, &running.dana, &late).await.1,
        "expired"
    );
    let read = running
        .call("GET", "/interactions/q-fail", Some(&running.dana), None)
        .await;
    assert_eq!(read.body["status"], "expired");
    let read = running
        .call("GET", "/interactions/q-default", Some(&running.dana), None)
        .await;
    assert_eq!(read.body["status"], "resolved");
    assert_eq!(
        read.body["response"],
        json!({"id": "q-default", "outcome": "accepted", "data": {"region": ["us"]}})
    );
    let late = command(
        &defaulting["request"],
        "op-default",
        eu("q-default"),
        |_| {},
    );
    assert_eq!(
        respond(&running, surface, &running.dana, &late).await.1,
        "already_resolved_different"
    );

    let cancelled = ask(&running, &running.dana, &request("q-cancel", json!({}))).await;
    let cancel = running
        .call(
            "POST",
            "/interactions/q-cancel/cancel",
            Some(&running.dana),
            None,
        )
        .await;
    assert_eq!(
        (cancel.status, cancel.body["status"].as_str()),
        (200, Some("cancelled"))
    );
    let after = command(
        &cancelled["request"],
        "op-cancelled",
        eu("q-cancel"),
        |_| {},
    );
    assert_eq!(
        respond(&running, surface, &running.dana, &after).await.1,
        "cancelled"
    );
    let strangers = running
        .call(
            "POST",
            "/interactions/q-cancel/cancel",
            Some(&running.stranger),
            None,
        )
        .await;
    assert_eq!(strangers.status, 404);

    let answered = ask(&running, &running.dana, &request("q-answered", json!({}))).await;
    let answer = command(
        &answered["request"],
        "op-answered",
        eu("q-answered"),
        |_| {},
    );
    assert_eq!(
        respond(&running, surface, &running.dana, &answer).await.1,
        "accepted"
    );
    let cancel = running
        .call(
            "POST",
            "/interactions/q-answered/cancel",
            Some(&running.dana),
            None,
        )
        .await;
    assert_eq!(cancel.body["status"], "resolved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_fails_answers_a_retryable_transport_failure() {
    for surface in [Surface::Rest, Surface::Mcp] {
        transport_failure(surface).await;
    }
}

async fn transport_failure(surface: Surface) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let store = index_negotiation_store_sqlite::SqliteStore::open(&path)
        .await
        .unwrap();
    let running = Running::start(Arc::new(store)).await;
    let asked = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE interaction_acknowledgements")
        .unwrap();
    let answer = command(&asked["request"], "op-1", eu("q-1"), |_| {});
    let (text, status) = respond(&running, surface, &running.dana, &answer).await;
    assert_eq!(status, "transport_failure");
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["retryable"], true);
    assert!(
        !text.contains("interaction_acknowledgements"),
        "the cause is logged, never sent"
    );
    let read = running
        .call("GET", "/interactions/q-1", Some(&running.dana), None)
        .await;
    assert_eq!(read.body["status"], "pending", "nothing was applied");
}

/// Dana's `GET /interactions/{id}?wait=20` on `running`, under way: what
/// it answered, and how long it took.
fn waits_on(running: &Running, id: &str) -> tokio::task::JoinHandle<(Value, std::time::Duration)> {
    let (http, url, key) = (
        running.http.clone(),
        format!("{}/interactions/{id}?wait=20", running.base),
        running.dana.clone(),
    );
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        let body: Value = http
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (body, started.elapsed())
    })
}

#[tokio::test]
async fn a_wait_answers_once_the_person_answers() {
    let surface = Surface::Rest;
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    let asked = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    let waiting = waits_on(&running, "q-1");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let answer = command(&asked["request"], "op-1", eu("q-1"), |_| {});
    assert_eq!(
        respond(&running, surface, &running.dana, &answer).await.1,
        "accepted"
    );
    let (body, waited) = waiting.await.unwrap();
    assert_eq!(body["status"], "resolved");
    assert!(
        waited < std::time::Duration::from_secs(10),
        "woken by the answer, not the deadline"
    );
}

#[tokio::test]
async fn pages_list_by_status_oldest_first() {
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    for n in 0..5 {
        ask(
            &running,
            &running.dana,
            &request(&format!("q-{n}"), json!({})),
        )
        .await;
        // Distinct acceptance times keep the order plain.
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    running
        .call(
            "POST",
            "/interactions/q-1/cancel",
            Some(&running.dana),
            None,
        )
        .await;
    let ids = |page: &Value| {
        page["interactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["request"]["id"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let first = running
        .call(
            "GET",
            "/interactions?status=pending&limit=2",
            Some(&running.dana),
            None,
        )
        .await;
    assert_eq!(ids(&first.body), ["q-0", "q-2"]);
    let cursor = first.body["nextCursor"].as_str().unwrap();
    let rest = running
        .call(
            "GET",
            &format!("/interactions?status=pending&limit=2&cursor={cursor}"),
            Some(&running.dana),
            None,
        )
        .await;
    assert_eq!(ids(&rest.body), ["q-3", "q-4"]);
    let cancelled = running
        .call(
            "GET",
            "/interactions?status=cancelled",
            Some(&running.dana),
            None,
        )
        .await;
    assert_eq!(ids(&cancelled.body), ["q-1"]);
    let none = running
        .call("GET", "/interactions", Some(&running.sam), None)
        .await;
    assert_eq!(ids(&none.body), Vec::<String>::new());
    let bad = running
        .call("GET", "/interactions?limit=0", Some(&running.dana), None)
        .await;
    assert_eq!(bad.status, 400);
}

/// Sixteen different answers at once: exactly one is accepted, on every
/// backend a host runs on here.
async fn racing_commands_have_one_winner(store: Arc<dyn HostStore>) {
    let running = Arc::new(Running::start(store).await);
    let asked = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    let answers = (0..16).map(|n| {
        let outcome = if n % 2 == 0 {
            eu("q-1")
        } else {
            json!({"id": "q-1", "outcome": "declined"})
        };
        command(&asked["request"], &format!("op-{n}"), outcome, |_| {})
    });
    let racers: Vec<_> = answers
        .map(|answer| {
            let running = Arc::clone(&running);
            tokio::spawn(async move {
                respond(&running, Surface::Rest, &running.dana, &answer)
                    .await
                    .1
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for racer in racers {
        statuses.push(racer.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| *s == "accepted").count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .all(|s| s == "accepted" || s.starts_with("already_resolved")),
        "{statuses:?}"
    );
    // The one that resolved it is on the audit record, with dana's key and
    // its request's id; the refused ones are not.
    let reply = running
        .call(
            "GET",
            "/audit?step=interaction_resolved",
            Some(&running.host_key),
            None,
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let entries = reply.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["user"], "dana");
    assert_eq!(entries[0]["detail"], "q-1");
    assert_eq!(entries[0]["actor"]["kind"], "agent_key");
    assert!(entries[0]["actor"]["requestId"].is_string(), "{entries:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_commands_have_one_winner_in_memory() {
    racing_commands_have_one_winner(Arc::new(MemoryStore::new())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_commands_have_one_winner_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = index_negotiation_store_sqlite::SqliteStore::open(dir.path().join("index.db"))
        .await
        .unwrap();
    racing_commands_have_one_winner(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_sqlite_a_wait_on_one_host_wakes_when_another_host_takes_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let open = || async {
        let store = index_negotiation_store_sqlite::SqliteStore::open(&path)
            .await
            .unwrap();
        Arc::new(store) as Arc<dyn HostStore>
    };
    let (first, second) = (open().await, open().await);
    wait_across_hosts(first, second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn on_postgres_a_wait_on_one_host_wakes_when_another_host_takes_the_answer() {
    let schema = fresh_schema("host_interactions");
    let (first, second) = (postgres(&schema).await, postgres(&schema).await);
    wait_across_hosts(first, second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn racing_commands_have_one_winner_on_postgres() {
    racing_commands_have_one_winner(postgres(&fresh_schema("host_races")).await).await;
}

/// A schema name no other test uses.
fn fresh_schema(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{what}_{}_{nanos}", std::process::id())
}

/// A store on `schema` of the test database, as each host connects.
async fn postgres(schema: &str) -> Arc<dyn HostStore> {
    let url = std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL (bash .ci/postgres)");
    let options =
        index_negotiation_store_postgres::PostgresOptions::default().with_schema(schema.to_owned());
    let store = index_negotiation_store_postgres::PostgresStore::connect_with(&url, options)
        .await
        .unwrap();
    Arc::new(store)
}

/// Two hosts on one store, as two processes would share it: an
/// interaction asked on one is answered on the other, a replay is the same
/// text on both, and a wait on the first wakes on the store's change
/// signal.
async fn wait_across_hosts(first: Arc<dyn HostStore>, second: Arc<dyn HostStore>) {
    let surface = Surface::Rest;
    let (first, second) = (Running::start(first).await, Running::start(second).await);
    let asked = ask(&first, &first.dana, &request("q-1", json!({}))).await;
    let waiting = waits_on(&first, "q-1");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let answer = command(&asked["request"], "op-1", eu("q-1"), |_| {});
    let (text, status) = respond(&second, surface, &second.dana, &answer).await;
    assert_eq!(status, "accepted");
    assert_eq!(
        respond(&first, surface, &first.dana, &answer).await.0,
        text,
        "the replay is the same on every host"
    );
    let (body, waited) = waiting.await.unwrap();
    assert_eq!(body["status"], "resolved");
    assert!(
        waited < std::time::Duration::from_secs(10),
        "woken by the other host's answer"
    );
}

/// Interactions stored as pending whose time ran out unnoticed are
/// settled before a person's room is counted and before settled ones are
/// listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_nobody_noticed_make_room_and_are_listed() {
    let running = Running::start(Arc::new(MemoryStore::new())).await;
    for n in 0..index_host::MOST_INTERACTIONS {
        let quick = request(
            &format!("q-{n}"),
            json!({"timeoutMs": 1, "onTimeout": "fail"}),
        );
        ask(&running, &running.dana, &quick).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let expired = running
        .call(
            "GET",
            "/interactions?status=expired&limit=200",
            Some(&running.dana),
            None,
        )
        .await;
    let listed = expired.body["interactions"].as_array().unwrap().len();
    assert_eq!(listed, index_host::MOST_INTERACTIONS, "{}", expired.body);
    ask(&running, &running.dana, &request("one-more", json!({}))).await;
}

/// A recorded acknowledgement is answered again as recorded, even one
/// that no longer reads: the command is not decided a second time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_acknowledgement_is_replayed_as_it_was_recorded() {
    let surface = Surface::Rest;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let store = index_negotiation_store_sqlite::SqliteStore::open(&path)
        .await
        .unwrap();
    let running = Running::start(Arc::new(store)).await;
    let asked = ask(&running, &running.dana, &request("q-1", json!({}))).await;
    let answer = command(&asked["request"], "op-1", eu("q-1"), |_| {});
    respond(&running, surface, &running.dana, &answer).await;
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "UPDATE interaction_acknowledgements SET acknowledgement = '{\"as\":\"recorded\"}'",
        )
        .unwrap();
    assert_eq!(
        send(&running, surface, &running.dana, &answer).await,
        "{\"as\":\"recorded\"}"
    );
}
