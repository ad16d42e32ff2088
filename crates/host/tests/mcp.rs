//! The MCP tools over a live host, as a client sees them: every tool lists
//! an input schema that refuses what it does not define and an output
//! schema, every result it answers conforms to that output schema, and
//! whatever a schema refuses comes back as a tool error with the error
//! shape, never as a protocol error.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use index_negotiation_store::MemoryStore;
use index_stall_gap::{ModelStallGapAuthor, Scripted, ScriptedModel, StallGapAuthor};
use support::{FORMS_AND_TASKS, McpSession, OPP, Running};

const PAUSED: &str = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843";

/// The tools as `tools/list` gives them, by name.
async fn listed(mcp: &mut McpSession<'_>) -> BTreeMap<String, Value> {
    let answer = mcp.request("tools/list", json!({})).await;
    answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool.clone()))
        .collect()
}

/// Calls `tool` and checks its result: not an error, its structured
/// content valid against the tool's output schema, and the same JSON as
/// the first text block.
async fn conforming(
    mcp: &mut McpSession<'_>,
    tools: &BTreeMap<String, Value>,
    tool: &str,
    arguments: Value,
) -> Value {
    let result = mcp.call_tool(tool, arguments).await;
    assert_ne!(result["isError"], json!(true), "{tool}: {result}");
    let structured = result["structuredContent"].clone();
    let schema = &tools[tool]["outputSchema"];
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|err| panic!("{tool}'s output schema does not compile: {err}"));
    let problems: Vec<String> = validator
        .iter_errors(&structured)
        .map(|problem| format!("{} at {}", problem, problem.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{tool}'s result breaks its output schema: {problems:?}\n{structured}"
    );
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, structured, "{tool}: the text block is the JSON");
    structured
}

/// The refusal a tool answered: its code and message.
async fn refused(mcp: &mut McpSession<'_>, tool: &str, arguments: Value) -> (String, String) {
    let result = mcp.call_tool(tool, arguments).await;
    assert_eq!(result["isError"], json!(true), "{tool}: {result}");
    let error = &support::refusal(&result)["error"];
    (
        error["code"].as_str().unwrap().to_owned(),
        error["message"].as_str().unwrap().to_owned(),
    )
}

fn scripted_author() -> Arc<dyn StallGapAuthor> {
    let gap = json!({"hasGap": true, "reason": "repeated_non_convergence", "question": {
        "title": "Equity", "prompt": "How much equity could you offer?", "multiSelect": false,
        "options": [{"label": "1%", "description": "Retry with 1%."}, {"label": "3%", "description": "Retry with 3%."}]}});
    Arc::new(ModelStallGapAuthor::new(ScriptedModel::new([
        Scripted::Value(gap),
    ])))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_tool_states_its_schemas_and_every_result_conforms_to_its_output_schema() {
    let mut host =
        Running::start_with_author(Arc::new(MemoryStore::new()), Some(scripted_author())).await;
    let mut admin = host.mcp_session(&host.host_key).await;
    let mut dana = host.mcp_session(&host.dana).await;
    let mut sam = host.mcp_session(&host.sam).await;
    let tools = listed(&mut admin).await;
    assert_eq!(
        tools.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "add_webhook",
            "answer_interaction",
            "answer_questions",
            "close_negotiation",
            "get_interaction",
            "get_negotiation",
            "list_interactions",
            "list_negotiations",
            "list_webhooks",
            "open_negotiation",
            "park_negotiation",
            "remove_webhook",
            "replay_webhook",
            "request_interaction",
            "resume_negotiation",
            "rotate_webhook_secret",
            "submit_negotiation_turn",
        ]
    );
    // An agent key is offered only what it may call.
    let offered = listed(&mut dana).await;
    assert_eq!(
        offered.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "add_webhook",
            "answer_interaction",
            "answer_questions",
            "get_interaction",
            "get_negotiation",
            "list_interactions",
            "list_negotiations",
            "list_webhooks",
            "park_negotiation",
            "remove_webhook",
            "replay_webhook",
            "request_interaction",
            "resume_negotiation",
            "rotate_webhook_secret",
            "submit_negotiation_turn",
        ]
    );
    for (name, tool) in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(
            tool["inputSchema"]["additionalProperties"],
            json!(false),
            "{name} refuses what it does not define"
        );
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        jsonschema::validator_for(&tool["inputSchema"])
            .unwrap_or_else(|err| panic!("{name}'s input schema does not compile: {err}"));
    }
    std::fs::write(
        "/tmp/tools.json",
        serde_json::to_string_pretty(&tools).unwrap(),
    )
    .unwrap();
    let id_schema = &tools["get_negotiation"]["inputSchema"]["properties"]["opportunityId"];
    assert!(id_schema["pattern"].is_string(), "{id_schema}");
    assert_eq!(
        tools["get_negotiation"]["inputSchema"]["required"],
        json!(["opportunityId"])
    );

    // Open two negotiations; one runs a round to its end and parks on a
    // question, the other pauses on a decline and resumes.
    for id in [OPP, PAUSED] {
        let opened = conforming(
            &mut admin,
            &tools,
            "open_negotiation",
            json!({"opportunityId": id,
                   "initiator": {"userId": "dana", "intentId": "hire"},
                   "responder": {"userId": "sam", "intentId": "join"}}),
        )
        .await;
        assert_eq!(opened["negotiation"]["id"], id);
    }
    for n in 0..12 {
        let (mcp, action) = if n % 2 == 0 {
            (&mut dana, "propose")
        } else {
            (&mut sam, "counter")
        };
        let taken = conforming(
            mcp,
            &tools,
            "submit_negotiation_turn",
            json!({"opportunityId": OPP, "action": action, "message": format!(" Offer {n} ")}),
        )
        .await;
        assert_eq!(taken["decision"]["turnIndex"], n);
    }
    let seen = conforming(
        &mut dana,
        &tools,
        "get_negotiation",
        json!({"opportunityId": OPP, "wait": 0}),
    )
    .await;
    assert_eq!(seen["state"]["turns"][0]["message"], "Offer 0");
    let parked = conforming(
        &mut dana,
        &tools,
        "park_negotiation",
        json!({"opportunityId": OPP, "name": "Dana", "counterpartyName": "Sam"}),
    )
    .await;
    assert_eq!(parked["outcome"], "parked", "{parked}");
    let seen = conforming(
        &mut dana,
        &tools,
        "get_negotiation",
        json!({"opportunityId": OPP}),
    )
    .await;
    assert_eq!(seen["parked"]["question"]["title"], "Equity");
    let (code, _) = refused(&mut sam, "park_negotiation", json!({"opportunityId": OPP})).await;
    assert_eq!(code, "already_parked");
    let delivered = conforming(
        &mut dana,
        &tools,
        "answer_questions",
        json!({"message": parked["message"], "answers": [{"question": 0, "answer": "3%"}]}),
    )
    .await;
    assert_eq!(delivered["negotiations"][0]["outcome"], "resumed");

    conforming(
        &mut dana,
        &tools,
        "submit_negotiation_turn",
        json!({"opportunityId": PAUSED, "action": "propose", "message": "Lunch?"}),
    )
    .await;
    conforming(
        &mut sam,
        &tools,
        "submit_negotiation_turn",
        json!({"opportunityId": PAUSED, "action": "decline", "message": "Not now."}),
    )
    .await;
    let resumed = conforming(
        &mut sam,
        &tools,
        "resume_negotiation",
        json!({"opportunityId": PAUSED}),
    )
    .await;
    assert_eq!(resumed["decision"]["awaitingUserId"], "sam");
    let page = conforming(&mut dana, &tools, "list_negotiations", json!({"limit": 1})).await;
    assert_eq!(page["negotiations"].as_array().unwrap().len(), 1);
    assert!(page["nextCursor"].is_string(), "{page}");
    let closed = conforming(
        &mut admin,
        &tools,
        "close_negotiation",
        json!({"opportunityId": PAUSED, "reason": "expired"}),
    )
    .await;
    assert_eq!(closed["negotiation"]["settled"], true);
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn what_a_schema_refuses_is_a_tool_error_with_the_error_shape() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let mut admin = host.mcp_session(&host.host_key).await;
    let mut dana = host.mcp_session(&host.dana).await;
    let opened = admin
        .call_tool(
            "open_negotiation",
            json!({"opportunityId": OPP,
                   "initiator": {"userId": "dana", "intentId": "hire"},
                   "responder": {"userId": "sam", "intentId": "join"}}),
        )
        .await;
    assert_ne!(opened["isError"], json!(true), "{opened}");

    let cases = [
        (
            "get_negotiation",
            json!({"opportunityId": OPP, "extra": 1}),
            "extra",
        ),
        ("get_negotiation", json!({"wait": 5}), "opportunityId"),
        (
            "get_negotiation",
            json!({"opportunityId": OPP, "wait": 9999}),
            "wait",
        ),
        ("get_negotiation", json!({"opportunityId": "opp-1"}), "UUID"),
        (
            "submit_negotiation_turn",
            json!({"opportunityId": OPP, "action": "propose", "message": "m", "urgent": true}),
            "urgent",
        ),
        (
            "submit_negotiation_turn",
            json!({"opportunityId": OPP, "action": "shout", "message": "m"}),
            "shout",
        ),
        (
            "resume_negotiation",
            json!({"opportunityId": OPP, "force": true}),
            "force",
        ),
        (
            "list_negotiations",
            json!({"limit": 10, "sort": "asc"}),
            "sort",
        ),
        (
            "answer_questions",
            json!({"answers": [], "urgent": true}),
            "urgent",
        ),
        (
            "park_negotiation",
            json!({"opportunityId": OPP, "nonsense": 1}),
            "nonsense",
        ),
        ("no_such_tool", json!({}), "no_such_tool"),
    ];
    for (tool, arguments, named) in cases {
        let (code, message) = refused(&mut dana, tool, arguments.clone()).await;
        assert_eq!(code, "invalid_request", "{tool} {arguments}: {message}");
        assert!(
            message.contains(named),
            "{tool} {arguments}: the refusal names {named}: {message}"
        );
    }
    // The rules' own refusals keep their codes.
    let blank = refused(
        &mut dana,
        "submit_negotiation_turn",
        json!({"opportunityId": OPP, "action": "propose", "message": " \u{3000} "}),
    )
    .await;
    assert_eq!(blank.0, "invalid_turn", "{}", blank.1);
    let first = refused(
        &mut dana,
        "submit_negotiation_turn",
        json!({"opportunityId": OPP, "action": "counter", "message": "No."}),
    )
    .await;
    assert_eq!(first.0, "counter_is_first");
    // Opening and closing are the host's.
    let (code, _) = refused(
        &mut dana,
        "close_negotiation",
        json!({"opportunityId": OPP, "reason": "expired"}),
    )
    .await;
    assert_eq!(code, "forbidden");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_long_wait_sends_progress_to_a_client_that_asks_for_it() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let mut sam = host.mcp_session(&host.sam).await;
    // Dana is to move, so sam's wait runs to its end: past one tick.
    let messages = sam
        .stream(
            "tools/call",
            json!({"name": "get_negotiation",
                   "arguments": {"opportunityId": OPP, "wait": 11},
                   "_meta": {"progressToken": "sam-1"}}),
        )
        .await;
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "{messages:?}");
    assert_eq!(progress[0]["params"]["progressToken"], "sam-1");
    assert_eq!(progress[0]["params"]["total"], 11.0);
    let answer = messages.last().unwrap();
    assert_eq!(
        answer["result"]["structuredContent"]["negotiation"]["awaitingUserId"], "dana",
        "the answer comes last: {messages:?}"
    );
    // Without a token, no notification.
    let quiet = sam
        .stream(
            "tools/call",
            json!({"name": "get_negotiation", "arguments": {"opportunityId": OPP, "wait": 11}}),
        )
        .await;
    assert_eq!(quiet.len(), 1, "{quiet:?}");
    host.stop().await;
}

/// Runs dana ↔ sam on `OPP` to the end of a round without agreement, over
/// REST, so it can park.
async fn stalled(host: &Running) {
    host.open(OPP).await;
    for n in 0..12 {
        let (key, action) = if n % 2 == 0 {
            (&host.dana, "propose")
        } else {
            (&host.sam, "counter")
        };
        assert_eq!(
            host.turn(OPP, key, action, &format!("Offer {n}"))
                .await
                .status,
            200
        );
    }
}

/// Checks a park's result once dana answered "3%": the park's report,
/// the answer resumed the negotiation, dana to move, the answer on record.
async fn answered_park(host: &Running, result: &Value) {
    assert_eq!(result["structuredContent"]["outcome"], "parked", "{result}");
    assert!(
        result["content"][1]["text"]
            .as_str()
            .unwrap()
            .contains("1 negotiation(s) resumed"),
        "{result}"
    );
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(seen.body["negotiation"]["awaitingUserId"], "dana");
    assert_eq!(seen.body["state"]["park"]["answer"], "3%");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_current_client_is_asked_through_input_required_and_its_retry_answers_once() {
    let mut host =
        Running::start_with_author(Arc::new(MemoryStore::new()), Some(scripted_author())).await;
    stalled(&host).await;
    let park = json!({"opportunityId": OPP, "name": "Dana", "counterpartyName": "Sam"});
    let asked = host
        .current_call(&host.dana, "park_negotiation", park.clone(), json!({}))
        .await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let key = format!("park:{OPP}");
    let form = &result["inputRequests"][&key];
    assert_eq!(form["method"], "elicitation/create", "{asked}");
    assert_eq!(form["params"]["mode"], "form");
    assert!(
        form["params"]["message"]
            .as_str()
            .unwrap()
            .contains("equity"),
        "{form}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();

    // Sam cannot answer with dana's state: it is not theirs, so the call
    // is a first call of sam's (whose park is refused: already parked).
    let answer = json!({"action": "accept", "content": {"answer": "1"}});
    let retry = json!({"inputResponses": {&key: answer}, "requestState": state});
    let stolen = host
        .current_call(&host.sam, "park_negotiation", park.clone(), retry.clone())
        .await;
    assert_eq!(
        support::refusal(&stolen["result"])["error"]["code"],
        "already_parked",
        "{stolen}"
    );

    // Dana's retry answers: the park's report, and the negotiation resumes
    // with dana to move, the answer on record.
    let done = host
        .current_call(&host.dana, "park_negotiation", park.clone(), retry.clone())
        .await;
    answered_park(&host, &done["result"]).await;

    // The same state again is spent: a first call, refused by the rules
    // (the answer resumed the negotiation, dana to move).
    let again = host
        .current_call(&host.dana, "park_negotiation", park, retry)
        .await;
    assert_eq!(
        support::refusal(&again["result"])["error"]["code"],
        "not_parkable",
        "{again}"
    );
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wait_that_finds_the_callers_person_parked_asks_a_current_client() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let id = index_negotiation_store::OpportunityId::parse(OPP).unwrap();
    support::stall_and_park(&host.store, &id, "dana").await;
    // A short wait: the declined retry below waits it out.
    let wait = json!({"opportunityId": OPP, "wait": 2});
    let started = std::time::Instant::now();
    let asked = host
        .current_call(&host.dana, "get_negotiation", wait.clone(), json!({}))
        .await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "asked at once"
    );
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    // The other seat is never asked: it waits, as before.
    let read = host
        .current_call(
            &host.sam,
            "get_negotiation",
            json!({"opportunityId": OPP}),
            json!({}),
        )
        .await;
    assert_eq!(
        read["result"]["structuredContent"]["negotiation"]["waitingOn"],
        "dana"
    );
    // A decline is an answer: the retry (of the same call: a token answers
    // only the request it was handed for) is not asked again, and waits.
    let key = format!("park:{OPP}");
    let declined = host
        .current_call(
            &host.dana,
            "get_negotiation",
            wait.clone(),
            json!({"inputResponses": {&key: {"action": "decline"}},
                   "requestState": asked["result"]["requestState"]}),
        )
        .await;
    assert_eq!(
        declined["result"]["structuredContent"]["parked"]["userId"], "dana",
        "{declined}"
    );
    host.stop().await;
}

/// Calls `tool` as a current client that takes tasks: the task it
/// answered with, as first read.
async fn task_call(host: &Running, key: &str, tool: &str, arguments: Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    let answer = host
        .current(key, "tools/call", params, FORMS_AND_TASKS)
        .await;
    let task = answer["result"].clone();
    assert_eq!(task["resultType"], "task", "{answer}");
    assert_eq!(task["status"], "working", "{answer}");
    assert_eq!(task["taskId"].as_str().map(str::len), Some(64), "{answer}");
    assert!(task["ttlMs"].as_u64().is_some() && task["pollIntervalMs"].as_u64().is_some());
    task
}

/// A `tasks/*` request about task `id`, as `key`; `extra` joins its
/// params. The JSON-RPC answer.
async fn on_task(host: &Running, key: &str, method: &str, id: &Value, extra: Value) -> Value {
    let mut params = json!({"taskId": id});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    host.current(key, method, params, FORMS_AND_TASKS).await
}

/// Polls task `id` until it reports `status`; the task then.
async fn until_status(host: &Running, key: &str, id: &Value, status: &str) -> Value {
    for _ in 0..300 {
        let read = on_task(host, key, "tasks/get", id, json!({})).await;
        assert!(read.get("error").is_none(), "{read}");
        if read["result"]["status"] == status {
            return read["result"].clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("task {id} never became {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wait_runs_as_a_task_only_its_caller_can_read() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    assert_eq!(
        host.turn(OPP, &host.dana, "propose", "Offer").await.status,
        200
    );
    let wait = json!({"opportunityId": OPP, "wait": 40});
    let task = task_call(&host, &host.dana, "get_negotiation", wait).await;
    let id = &task["taskId"];

    // To sam, dana's task is exactly an unknown one.
    let unknown = json!("0".repeat(64));
    let strangers = on_task(&host, &host.sam, "tasks/get", id, json!({})).await;
    let missing = on_task(&host, &host.sam, "tasks/get", &unknown, json!({})).await;
    assert_eq!(strangers["error"]["code"], -32602, "{strangers}");
    assert_eq!(
        strangers["error"]["message"]
            .as_str()
            .map(|m| m.replace(id.as_str().unwrap(), "ID")),
        missing["error"]["message"]
            .as_str()
            .map(|m| m.replace(unknown.as_str().unwrap(), "ID")),
    );
    let cancel = on_task(&host, &host.sam, "tasks/cancel", id, json!({})).await;
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");
    until_status(&host, &host.dana, id, "working").await;

    // Sam's turn ends the wait: the task completes with dana's view.
    assert_eq!(
        host.turn(OPP, &host.sam, "counter", "Other").await.status,
        200
    );
    let done = until_status(&host, &host.dana, id, "completed").await;
    let result = &done["result"];
    assert_eq!(
        result["structuredContent"]["negotiation"]["awaitingUserId"], "dana",
        "{done}"
    );
    assert!(
        result["content"][1]["text"]
            .as_str()
            .unwrap()
            .starts_with("Your turn"),
        "{done}"
    );
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn arguments_a_tool_refuses_are_refused_at_once_never_as_a_task() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    for (tool, arguments) in [
        ("get_negotiation", json!({"opportunityId": OPP, "wait": 61})),
        ("get_negotiation", json!({"opportunityId": OPP, "wait": -1})),
        (
            "get_negotiation",
            json!({"opportunityId": "not-an-id", "wait": 5}),
        ),
        (
            "park_negotiation",
            json!({"opportunityId": OPP, "unknown": 1}),
        ),
    ] {
        let params = json!({"name": tool, "arguments": arguments});
        let answer = host
            .current(&host.dana, "tools/call", params, FORMS_AND_TASKS)
            .await;
        let result = &answer["result"];
        assert_ne!(result["resultType"], "task", "{tool} {arguments}: {answer}");
        assert_eq!(
            support::refusal(result)["error"]["code"],
            "invalid_request",
            "{tool} {arguments}: {answer}"
        );
    }
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_park_as_a_task_asks_through_it_and_its_update_answers_once() {
    let mut host =
        Running::start_with_author(Arc::new(MemoryStore::new()), Some(scripted_author())).await;
    stalled(&host).await;
    let park = json!({"opportunityId": OPP, "name": "Dana", "counterpartyName": "Sam"});
    let task = task_call(&host, &host.dana, "park_negotiation", park).await;
    let id = &task["taskId"];
    let asked = until_status(&host, &host.dana, id, "input_required").await;
    let key = format!("park:{OPP}");
    let form = &asked["inputRequests"][&key];
    assert_eq!(form["method"], "elicitation/create", "{asked}");
    assert!(
        form["params"]["message"]
            .as_str()
            .unwrap()
            .contains("equity"),
        "{form}"
    );

    // A response to a key the task does not ask is ignored; so is sam's
    // answer to dana's task, which is not his to touch.
    let answer = json!({"action": "accept", "content": {"answer": "1"}});
    let ignored = on_task(
        &host,
        &host.dana,
        "tasks/update",
        id,
        json!({"inputResponses": {"park:someone-else": answer}}),
    )
    .await;
    assert_eq!(ignored["result"]["resultType"], "complete", "{ignored}");
    let sams = on_task(
        &host,
        &host.sam,
        "tasks/update",
        id,
        json!({"inputResponses": {&key: answer}}),
    )
    .await;
    assert_eq!(sams["error"]["code"], -32602, "{sams}");
    until_status(&host, &host.dana, id, "input_required").await;

    // Dana's answer resumes the negotiation, with dana to move.
    let update = json!({"inputResponses": {&key: answer}});
    let acked = on_task(&host, &host.dana, "tasks/update", id, update.clone()).await;
    assert_eq!(acked["result"]["resultType"], "complete", "{acked}");
    let done = until_status(&host, &host.dana, id, "completed").await;
    answered_park(&host, &done["result"]).await;

    // Counted as every answer is.
    let scraped = host
        .call("GET", "/metrics", Some(&host.host_key), None)
        .await;
    let text = scraped.body.as_str().unwrap_or_default();
    assert!(
        text.lines()
            .any(|line| line == r#"index_answers_total{outcome="resumed"} 1"#),
        "{text}"
    );

    // The key is no longer asked: the same update again changes nothing.
    let other = json!({"inputResponses": {&key: {"action": "accept", "content": {"answer": "0"}}}});
    let again = on_task(&host, &host.dana, "tasks/update", id, other).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    assert_eq!(until_status(&host, &host.dana, id, "completed").await, done);
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(seen.body["state"]["park"]["answer"], "3%");
    host.stop().await;
}

/// A host where `OPP` is parked on dana's question, and the id of the
/// task in which dana's client waits on it and is asked it.
async fn asked_in_a_wait_task() -> (Running, Value) {
    let host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    let id = index_negotiation_store::OpportunityId::parse(OPP).unwrap();
    support::stall_and_park(&host.store, &id, "dana").await;
    let wait = json!({"opportunityId": OPP, "wait": 40});
    let task = task_call(&host, &host.dana, "get_negotiation", wait).await;
    let task_id = task["taskId"].clone();
    until_status(&host, &host.dana, &task_id, "input_required").await;
    (host, task_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_question_answered_another_way_is_no_longer_asked_by_the_task() {
    let (mut host, task_id) = asked_in_a_wait_task().await;
    let task_id = &task_id;

    // Dana answers from the question message instead.
    let block =
        json!({"version": 1, "questions": [{"prompt": "How much equity?", "opportunityId": OPP}]});
    let answers = json!({"block": block, "answers": [{"question": 0, "answer": "1%"}]});
    let answered = host
        .call("POST", "/answers", Some(&host.dana), Some(answers))
        .await;
    assert_eq!(answered.body["negotiations"][0]["outcome"], "resumed");

    // The task ends with the negotiation as it now is; the form's answer,
    // sent late, is ignored.
    let done = until_status(&host, &host.dana, task_id, "completed").await;
    let view = &done["result"]["structuredContent"];
    assert_eq!(view["negotiation"]["awaitingUserId"], "dana", "{done}");
    assert_eq!(view["parked"], json!(null), "{done}");
    let late = json!({"inputResponses": {format!("park:{OPP}"): {"action": "accept", "content": {"answer": "0"}}}});
    on_task(&host, &host.dana, "tasks/update", task_id, late).await;
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(seen.body["state"]["park"]["answer"], "1%");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_task_leaves_the_question_parked() {
    let (mut host, task_id) = asked_in_a_wait_task().await;
    let task_id = &task_id;
    let cancel = on_task(&host, &host.dana, "tasks/cancel", task_id, json!({})).await;
    assert_eq!(cancel["result"]["resultType"], "complete", "{cancel}");
    until_status(&host, &host.dana, task_id, "cancelled").await;
    let seen = host.view(OPP, &host.dana).await;
    assert_eq!(seen.body["parked"]["userId"], "dana", "{}", seen.body);
    host.stop().await;
}

/// An interaction request for dana's person, as the contract writes one.
fn interaction_request(id: &str) -> Value {
    json!({
        "id": id, "kind": "permission", "title": "Run the migration on production?",
        "answerSpec": {"fields": [{"name": "grant", "label": "Grant", "type": "select", "required": true,
            "options": [{"value": "allow_once", "label": "Allow once"}, {"value": "deny", "label": "Deny"}]}]},
        "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
                    "sessionId": "s-1", "executionId": "x-1", "interactionId": id},
    })
}

/// Delivers `response` to the interaction `view` shows, over REST, as
/// `key`'s person: the acknowledgement's status.
async fn answer_interaction(host: &Running, key: &str, view: &Value, response: Value) -> String {
    let request = index_interaction::InteractionRequest::from_json_value(&view["request"]).unwrap();
    let response = index_interaction::InteractionResponse::from_json_value(&response).unwrap();
    let command = index_interaction::InteractionResponseCommand::new(
        "op-1",
        request.command_binding(),
        response,
    );
    let reply = host
        .call(
            "POST",
            "/interactions/responses",
            Some(key),
            Some(serde_json::to_value(command).unwrap()),
        )
        .await;
    reply.body["status"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agent_asks_its_person_through_the_interaction_tools() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let mut dana = host.mcp_session(&host.dana).await;
    let tools = listed(&mut dana).await;
    let asked = conforming(
        &mut dana,
        &tools,
        "request_interaction",
        json!({"request": interaction_request("p-1"), "wait": 0}),
    )
    .await;
    assert_eq!(asked["status"], "pending");
    // Asked again: the same interaction.
    let again = conforming(
        &mut dana,
        &tools,
        "request_interaction",
        json!({"request": interaction_request("p-1"), "wait": 0}),
    )
    .await;
    assert_eq!(again, asked);
    let (code, _) = refused(
        &mut dana,
        "get_interaction",
        json!({"interactionId": "p-9"}),
    )
    .await;
    assert_eq!(code, "not_found");
    let mut other = interaction_request("p-1");
    other["title"] = json!("Something else");
    let (code, _) = refused(
        &mut dana,
        "request_interaction",
        json!({"request": other, "wait": 0}),
    )
    .await;
    assert_eq!(code, "interaction_exists");

    // A wait answers once the person answers (here over REST).
    let waiting = {
        let mut dana = host.mcp_session(&host.dana).await;
        let tools = tools.clone();
        async move {
            conforming(
                &mut dana,
                &tools,
                "get_interaction",
                json!({"interactionId": "p-1", "wait": 20}),
            )
            .await
        }
    };
    let answering = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        answer_interaction(
            &host,
            &host.dana,
            &asked,
            json!({"id": "p-1", "outcome": "accepted", "data": {"grant": ["allow_once"]}}),
        )
        .await
    };
    let (seen, status) = tokio::join!(waiting, answering);
    assert_eq!(status, "accepted");
    assert_eq!(seen["status"], "resolved");
    assert_eq!(seen["response"]["data"]["grant"], json!(["allow_once"]));

    let page = conforming(
        &mut dana,
        &tools,
        "list_interactions",
        json!({"status": "resolved"}),
    )
    .await;
    assert_eq!(page["interactions"].as_array().unwrap().len(), 1);
    // Sam's person has none of dana's.
    let mut sam = host.mcp_session(&host.sam).await;
    let (code, _) = refused(&mut sam, "get_interaction", json!({"interactionId": "p-1"})).await;
    assert_eq!(code, "not_found");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn request_interaction_waits_as_a_task_for_a_client_that_takes_tasks() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let task = task_call(
        &host,
        &host.dana,
        "request_interaction",
        json!({"request": interaction_request("p-2"), "wait": 40}),
    )
    .await;
    let id = &task["taskId"];
    until_status(&host, &host.dana, id, "working").await;
    let view = host
        .call("GET", "/interactions/p-2", Some(&host.dana), None)
        .await;
    assert_eq!(view.body["status"], "pending");
    let status = answer_interaction(
        &host,
        &host.dana,
        &view.body,
        json!({"id": "p-2", "outcome": "declined"}),
    )
    .await;
    assert_eq!(status, "accepted");
    let done = until_status(&host, &host.dana, id, "completed").await;
    assert_eq!(
        done["result"]["structuredContent"]["status"], "resolved",
        "{done}"
    );
    assert_eq!(
        done["result"]["structuredContent"]["response"]["outcome"], "declined",
        "{done}"
    );
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_current_client_is_asked_its_pending_interaction_and_its_retry_answers_once() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let ask = json!({"request": interaction_request("p-3"), "wait": 30});
    let asked = host
        .current_call(&host.dana, "request_interaction", ask.clone(), json!({}))
        .await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let form = &result["inputRequests"]["interaction:p-3"];
    assert_eq!(form["method"], "elicitation/create", "{asked}");
    assert!(
        form["params"]["message"]
            .as_str()
            .unwrap()
            .contains("migration"),
        "{form}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"action": "accept", "content": {"grant": "allow_once"}});
    let retry = json!({"inputResponses": {"interaction:p-3": answer}, "requestState": state});

    // Sam's retry with dana's state is a first call of sam's: his own
    // person is asked, and dana's interaction stays pending.
    let stolen = host
        .current_call(&host.sam, "request_interaction", ask.clone(), retry.clone())
        .await;
    assert_eq!(stolen["result"]["resultType"], "input_required", "{stolen}");
    let still = host
        .call("GET", "/interactions/p-3", Some(&host.dana), None)
        .await;
    assert_eq!(still.body["status"], "pending");

    let done = host
        .current_call(
            &host.dana,
            "request_interaction",
            ask.clone(),
            retry.clone(),
        )
        .await;
    let view = &done["result"]["structuredContent"];
    assert_eq!(view["status"], "resolved", "{done}");
    assert_eq!(
        view["response"]["data"]["grant"],
        json!(["allow_once"]),
        "{done}"
    );
    // The same retry again is the same command: answered, not applied twice.
    let again = host
        .current_call(&host.dana, "request_interaction", ask, retry)
        .await;
    assert_eq!(again["result"]["structuredContent"], *view, "{again}");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interaction_no_form_can_carry_says_so_and_waits() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let mut request = interaction_request("p-4");
    request["answerSpec"] = json!({"fields": [{"name": "token", "label": "API token", "type": "secret", "required": true}]});
    let asked = host
        .current_call(
            &host.dana,
            "request_interaction",
            json!({"request": request, "wait": 1}),
            json!({}),
        )
        .await;
    let result = &asked["result"];
    assert_eq!(result["structuredContent"]["status"], "pending", "{asked}");
    assert!(
        result["content"][1]["text"]
            .as_str()
            .unwrap()
            .contains("A form cannot carry it"),
        "{asked}"
    );
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_current_client_meets_the_current_protocol_its_lists_say_how_long_they_last() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    host.open(OPP).await;
    // What 2026-07-28 removed is an unknown method there, even with the
    // older method's parameters missing: 404 and -32601, the id kept.
    for method in [
        "initialize",
        "ping",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
    ] {
        let (status, answer) = host
            .current_answered(&host.dana, method, json!({}), FORMS_AND_TASKS)
            .await;
        assert_eq!(status, 404, "{method}: {answer}");
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
        assert_eq!(answer["id"], 7, "{method}: {answer}");
    }

    // A well-formed `initialize`, even one naming the current protocol,
    // starts an older session instead (rmcp negotiates 2025-11-25).
    let (status, answer) = host
        .current_answered(
            &host.dana,
            "initialize",
            json!({"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            FORMS_AND_TASKS,
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );

    // A resource not found names the URI it was asked for.
    let uri = format!("index://negotiations/{PAUSED}");
    let missing = host
        .current(
            &host.dana,
            "resources/read",
            json!({"uri": uri}),
            FORMS_AND_TASKS,
        )
        .await;
    // -32602 since SEP-2164, as rmcp writes it.
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], uri.as_str(), "{missing}");

    // The tools and the template last; negotiations change at every turn.
    for (method, ttl) in [
        ("tools/list", 300_000),
        ("resources/templates/list", 300_000),
        ("resources/list", 0),
    ] {
        let listed = host
            .current(&host.dana, method, json!({}), FORMS_AND_TASKS)
            .await;
        assert_eq!(listed["result"]["ttlMs"], ttl, "{method}: {listed}");
        assert_eq!(listed["result"]["cacheScope"], "private", "{listed}");
    }
    let read = host
        .current(
            &host.dana,
            "resources/read",
            json!({"uri": format!("index://negotiations/{OPP}")}),
            FORMS_AND_TASKS,
        )
        .await;
    assert_eq!(read["result"]["ttlMs"], 0, "{read}");
    assert_eq!(read["result"]["cacheScope"], "private", "{read}");
    host.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agent_manages_its_persons_webhook_endpoints_through_the_tools() {
    let mut host = Running::start(Arc::new(MemoryStore::new())).await;
    let mut dana = host.mcp_session(&host.dana).await;
    let tools = listed(&mut dana).await;
    let hook = json!({"url": "https://hooks.example/dana", "events": ["negotiation.parked"]});
    let added = conforming(&mut dana, &tools, "add_webhook", hook).await;
    assert_eq!(added["user"], "dana");
    assert!(added["secret"].as_str().unwrap().starts_with("whsec_"));
    let id = added["id"].as_str().unwrap().to_owned();
    let (code, _) = refused(
        &mut dana,
        "add_webhook",
        json!({"url": "https://hooks.example/sam", "user": "sam"}),
    )
    .await;
    assert_eq!(
        code, "forbidden",
        "an agent registers for its own person only"
    );

    let listed_hooks = conforming(&mut dana, &tools, "list_webhooks", json!({})).await;
    assert_eq!(listed_hooks["webhooks"].as_array().unwrap().len(), 1);
    assert!(listed_hooks["webhooks"][0].get("secret").is_none());
    let rotated = conforming(
        &mut dana,
        &tools,
        "rotate_webhook_secret",
        json!({"webhookId": id}),
    )
    .await;
    assert_ne!(rotated["secret"], added["secret"]);
    let replayed = conforming(
        &mut dana,
        &tools,
        "replay_webhook",
        json!({"webhookId": id}),
    )
    .await;
    assert_eq!(replayed["queued"], 0);

    // Sam's person has none of dana's endpoints.
    let mut sam = host.mcp_session(&host.sam).await;
    let (code, _) = refused(&mut sam, "remove_webhook", json!({"webhookId": id})).await;
    assert_eq!(code, "not_found");
    let removed = conforming(
        &mut dana,
        &tools,
        "remove_webhook",
        json!({"webhookId": id}),
    )
    .await;
    assert_eq!(removed["removed"], id.as_str());
    host.stop().await;
}
