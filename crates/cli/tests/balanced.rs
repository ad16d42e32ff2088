//! Several `index serve` on one store behind nginx, round-robin, as
//! docs/deploy.md has operators run them: every request lands on the next
//! host, and every host answers it alike. REST reads and turns, the
//! inbox's `/events`, MCP tasks (started on one host, read, answered and
//! cancelled on the others), `input_required` retries (a tampered or
//! replayed `requestState` refused on every host, one signed before a
//! rotation of the signing key still answered) and a revoked key. Then
//! one host is killed with SIGKILL in the middle of a task and of an
//! `input_required` exchange: the client finishes on the others, nothing
//! acknowledged is lost, no answer is delivered twice.
//!
//! Two hosts on one SQLite file in the plain run (nginx is needed: .ci/run
//! installs it); three on one PostgreSQL in the ignored pass.

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
use std::time::Duration;

use serde_json::{Value, json};

use balancer::{Balanced, Client, FORMS, FORMS_AND_TASKS};

/// A new key for `user` in `db`: the key, and its id.
fn key_and_id(dir: &Path, db: &str, user: &str) -> (String, String) {
    let made = support::index_json(dir, db, &["keys", "create", "--user", user]);
    let field = |name: &str| made[name].as_str().unwrap().to_owned();
    (field("key"), field("id"))
}

/// A new key for `user` in `db`.
fn key(dir: &Path, db: &str, user: &str) -> String {
    key_and_id(dir, db, user).0
}

/// A negotiation id no other test (nor an earlier run on the same
/// PostgreSQL) uses.
fn fresh_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Stalls `person` ↔ sam on `id` and parks it on `person`'s question,
/// with the `index` tool's scripted model; `person`'s key. (Each flow has
/// a person of its own: one answer resumes every negotiation of a person's
/// parked on the same question, and the scripted model asks just one.)
fn parked(dir: &Path, db: &str, id: &str, person: &str) -> String {
    stall::stall_between(dir, db, id, person, "sam");
    let park = [
        "negotiation",
        "park",
        id,
        "--as",
        person,
        "--model",
        "scripted",
    ];
    stall::run(dir, db, &park);
    key(dir, db, person)
}

/// How many of the negotiation's messages are the answer `answer`.
fn answers_on_record(dir: &Path, db: &str, id: &str, answer: &str) -> usize {
    let messages = support::index_json(dir, db, &["negotiation", "messages", id]);
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["parts"][0]["text"] == answer)
        .count()
}

/// The form's key and an answer choosing its first option.
fn first_option(id: &str) -> (String, Value) {
    (
        format!("park:{id}"),
        json!({"action": "accept", "content": {"answer": "0"}}),
    )
}

/// How many requests each host answered.
fn answered(balanced: &Balanced) -> Vec<u64> {
    (0..balanced.hosts.len())
        .map(|i| balanced.answered_by(i))
        .collect()
}

/// Every request lands on the next host; REST, the inbox's events, MCP
/// tasks and retries are answered alike by every host; a revoked key
/// stops on every host at once.
async fn hosts_behind_nginx_answer_every_request(dir: &Path, db: &str, count: usize) {
    let [talk, answered_task, cancelled_task, retried] = [(); 4].map(|()| fresh_id());
    let (talk, answered_task, cancelled_task, retried) =
        (&*talk, &*answered_task, &*cancelled_task, &*retried);
    stall::open(dir, db, talk);
    let ana = parked(dir, db, answered_task, "ana");
    let ben = parked(dir, db, cancelled_task, "ben");
    let cy = parked(dir, db, retried, "cy");
    let rotated = fresh_id();
    let di = parked(dir, db, &rotated, "di");
    let (dana, sam) = (key(dir, db, "dana"), key(dir, db, "sam"));
    let balanced = Balanced::start(dir, db, count, &[]);
    let client = Client::new(balanced.base());

    // Round-robin: 3 × count reads, 3 on each host.
    let before = answered(&balanced);
    for _ in 0..3 * count {
        let (status, page) = client.rest("GET", "/negotiations", &dana, None).await;
        assert_eq!(status, 200, "{page}");
    }
    let after = answered(&balanced);
    let each: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(each, vec![3; count], "every request lands on the next host");

    // The inbox's events on one host hear a turn taken on another.
    let mut events = client
        .http
        .get(format!("{}/events", client.base))
        .bearer_auth(&sam)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let turn = json!({"action": "propose", "message": "An offer, through the balancer."});
    let (status, taken) = client
        .rest(
            "POST",
            &format!("/opportunities/{talk}/negotiation/turns"),
            &dana,
            Some(turn),
        )
        .await;
    assert_eq!(status, 200, "{taken}");
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        let mut seen = String::new();
        while !seen.contains(talk) {
            let chunk = events
                .chunk()
                .await
                .unwrap()
                .expect("the stream stays open");
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        seen
    })
    .await
    .expect("the turn is heard on the other host");
    assert!(heard.contains("event: changed"), "{heard}");
    drop(events);

    // A task started on one host is read, answered and cancelled on the
    // others: each poll, the update and the cancel land on the next host.
    let wait = json!({"opportunityId": answered_task, "wait": 30});
    let started = client
        .call(&ana, "get_negotiation", wait, json!({}), FORMS_AND_TASKS)
        .await;
    let task = started["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let asked = client
        .until(&ana, &task, "input_required", Duration::from_secs(10))
        .await;
    let (form_key, choice) = first_option(answered_task);
    assert!(asked["inputRequests"].get(&form_key).is_some(), "{asked}");
    for _ in 0..count {
        let stranger = client.on_task(&sam, "tasks/get", &task, json!({})).await;
        let unknown = client
            .on_task(&sam, "tasks/get", &"0".repeat(64), json!({}))
            .await;
        assert_eq!(
            stranger["error"]["code"], unknown["error"]["code"],
            "{stranger}"
        );
        assert_eq!(stranger["error"]["code"], -32602, "{stranger}");
    }
    let update = json!({"inputResponses": {&form_key: choice}});
    let acked = client
        .on_task(&ana, "tasks/update", &task, update.clone())
        .await;
    assert!(acked.get("error").is_none(), "{acked}");
    let done = client
        .until(&ana, &task, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    let view = client.view(&ana, answered_task).await;
    let answer = view["state"]["park"]["answer"].as_str().unwrap().to_owned();
    assert_eq!(view["negotiation"]["awaitingUserId"], "ana", "{view}");
    // The same answer again, on every host: ignored.
    for _ in 0..count {
        client
            .on_task(&ana, "tasks/update", &task, update.clone())
            .await;
    }
    assert_eq!(
        answers_on_record(dir, db, answered_task, &answer),
        1,
        "delivered once"
    );

    let wait = json!({"opportunityId": cancelled_task, "wait": 30});
    let started = client
        .call(&ben, "get_negotiation", wait, json!({}), FORMS_AND_TASKS)
        .await;
    let task = started["result"]["taskId"].as_str().unwrap().to_owned();
    client
        .until(&ben, &task, "input_required", Duration::from_secs(10))
        .await;
    let cancelled = client.on_task(&ben, "tasks/cancel", &task, json!({})).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    for _ in 0..count {
        let read = client.on_task(&ben, "tasks/get", &task, json!({})).await;
        assert_eq!(read["result"]["status"], "cancelled", "{read}");
    }
    assert!(
        client.view(&ben, cancelled_task).await["parked"].is_object(),
        "still parked"
    );

    // A requestState is checked by every host: a changed one is refused
    // (the client is asked again), a spent one too.
    let wait = json!({"opportunityId": retried, "wait": 1});
    let asked = client
        .call(&cy, "get_negotiation", wait.clone(), json!({}), FORMS)
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let (form_key, _) = first_option(retried);
    let decline = json!({"action": "decline"});
    let mut tampered = state.clone().into_bytes();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    for _ in 0..count {
        let retry = json!({"inputResponses": {&form_key: decline}, "requestState": tampered});
        let again = client
            .call(&cy, "get_negotiation", wait.clone(), retry, FORMS)
            .await;
        assert_eq!(
            again["result"]["resultType"], "input_required",
            "a tampered token: {again}"
        );
    }
    let retry = json!({"inputResponses": {&form_key: decline}, "requestState": state});
    let declined = client
        .call(&cy, "get_negotiation", wait.clone(), retry.clone(), FORMS)
        .await;
    assert!(
        declined["result"]["structuredContent"]["parked"].is_object(),
        "a decline is an answer: {declined}"
    );
    for _ in 0..count {
        let replayed = client
            .call(&cy, "get_negotiation", wait.clone(), retry.clone(), FORMS)
            .await;
        assert_eq!(
            replayed["result"]["resultType"], "input_required",
            "a spent token: {replayed}"
        );
    }

    // The signing key is rotated while the hosts serve: a token signed
    // before the rotation still answers, on whichever host the retry
    // reaches.
    let wait = json!({"opportunityId": rotated, "wait": 1});
    let asked = client
        .call(&di, "get_negotiation", wait.clone(), json!({}), FORMS)
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let rotation = support::index_json(dir, db, &["keys", "rotate-signing-key", "--overlap", "5m"]);
    assert_eq!(rotation["overlapSeconds"], 300, "{rotation}");
    let (form_key, choice) = first_option(&rotated);
    let retry = json!({"inputResponses": {&form_key: choice},
                       "requestState": asked["result"]["requestState"]});
    let answered = client
        .call(&di, "get_negotiation", wait, retry, FORMS)
        .await;
    assert!(
        answered["result"]["structuredContent"]["parked"].is_null(),
        "a token signed before the rotation holds: {answered}"
    );

    // A revoked key stops at its next request, on every host.
    let (spare, spare_id) = key_and_id(dir, db, "dana");
    for _ in 0..count {
        assert_eq!(
            client.rest("GET", "/negotiations", &spare, None).await.0,
            200
        );
    }
    stall::run(dir, db, &["keys", "revoke", &spare_id]);
    for _ in 0..2 * count {
        assert_eq!(
            client.rest("GET", "/negotiations", &spare, None).await.0,
            401
        );
    }
}

/// A host killed with SIGKILL while a task it runs asks its person, and
/// while its `input_required` ask waits for the retry: the client finishes
/// on the others, and the answer is delivered exactly once.
async fn a_host_killed_mid_task_or_mid_retry_loses_nothing(dir: &Path, db: &str, count: usize) {
    let (in_task, in_retry) = (fresh_id(), fresh_id());
    let (in_task, in_retry) = (&*in_task, &*in_retry);
    let dee = parked(dir, db, in_task, "dee");
    let eve = parked(dir, db, in_retry, "eve");

    let mut balanced = Balanced::start(dir, db, count, &[]);
    let client = Client::new(balanced.base());
    let wait = json!({"opportunityId": in_task, "wait": 30});
    let started = client
        .call(&dee, "get_negotiation", wait, json!({}), FORMS_AND_TASKS)
        .await;
    let task = started["result"]["taskId"].as_str().unwrap().to_owned();
    client
        .until(&dee, &task, "input_required", Duration::from_secs(10))
        .await;
    let running = (0..count)
        .find(|&i| metric(&balanced, i, "index_mcp_tasks_running") == 1)
        .expect("one host runs the task");
    balanced.kill(running);
    // The answer reaches a host that lives: acknowledged, so it must not
    // be lost. The dead host's lease runs out, and the next read fails the
    // task, delivering the answer first.
    let (form_key, choice) = first_option(in_task);
    let update = json!({"inputResponses": {&form_key: choice}});
    let acked = client.on_task(&dee, "tasks/update", &task, update).await;
    assert!(acked.get("error").is_none(), "{acked}");
    let ended = client
        .until(&dee, &task, "failed", Duration::from_secs(40))
        .await;
    assert!(
        ended["error"]["message"]
            .as_str()
            .unwrap()
            .contains("answer was delivered"),
        "{ended}"
    );
    let view = client.view(&dee, in_task).await;
    assert_eq!(view["negotiation"]["awaitingUserId"], "dee", "{view}");
    let answer = view["state"]["park"]["answer"].as_str().unwrap().to_owned();
    assert_eq!(
        answers_on_record(dir, db, in_task, &answer),
        1,
        "delivered once"
    );
    drop(balanced);

    let mut balanced = Balanced::start(dir, db, count, &[]);
    let client = Client::new(balanced.base());
    let wait = json!({"opportunityId": in_retry, "wait": 1});
    let before = answered(&balanced);
    let asked = client
        .call(&eve, "get_negotiation", wait.clone(), json!({}), FORMS)
        .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let after = answered(&balanced);
    let asker = (0..count).find(|&i| after[i] > before[i]).unwrap();
    balanced.kill(asker);
    let (form_key, choice) = first_option(in_retry);
    let retry = json!({"inputResponses": {&form_key: choice},
                       "requestState": asked["result"]["requestState"]});
    let answered_call = client
        .call(&eve, "get_negotiation", wait.clone(), retry.clone(), FORMS)
        .await;
    assert_eq!(
        answered_call["result"]["structuredContent"]["negotiation"]["awaitingUserId"], "eve",
        "the retry is answered by another host: {answered_call}"
    );
    let again = client
        .call(&eve, "get_negotiation", wait, retry, FORMS)
        .await;
    assert!(
        again["result"]["structuredContent"]["parked"].is_null(),
        "{again}"
    );
    let view = client.view(&eve, in_retry).await;
    let answer = view["state"]["park"]["answer"].as_str().unwrap().to_owned();
    assert_eq!(
        answers_on_record(dir, db, in_retry, &answer),
        1,
        "delivered once"
    );
}

/// The value of the gauge `name` on host `index`.
fn metric(balanced: &Balanced, index: usize, name: &str) -> i64 {
    let text = balanced.metrics(index);
    text.lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} missing from {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_on_one_sqlite_file_answer_every_request_behind_nginx() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("balanced.db").display().to_string();
    hosts_behind_nginx_answer_every_request(dir.path(), &db, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_killed_on_one_sqlite_file_loses_nothing_behind_nginx() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("killed.db").display().to_string();
    a_host_killed_mid_task_or_mid_retry_loses_nothing(dir.path(), &db, 2).await;
}

/// The test database (its negotiations' ids are fresh in each test).
fn postgres() -> String {
    std::env::var("INDEX_TEST_DATABASE_URL")
        .expect("INDEX_TEST_DATABASE_URL names the test database (bash .ci/postgres)")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn three_hosts_on_one_postgresql_answer_every_request_behind_nginx() {
    let dir = tempfile::tempdir().unwrap();
    hosts_behind_nginx_answer_every_request(dir.path(), &postgres(), 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored"]
async fn a_host_killed_on_one_postgresql_loses_nothing_behind_nginx() {
    let dir = tempfile::tempdir().unwrap();
    a_host_killed_mid_task_or_mid_retry_loses_nothing(dir.path(), &postgres(), 3).await;
}
