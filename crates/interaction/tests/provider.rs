//! The provider's decisions: every acknowledgement status, in the
//! contract's order of precedence, and timeouts applied once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::*;
use serde_json::{Value, json};

fn request(extra: Value) -> InteractionRequest {
    let mut material = json!({
        "id": "q-1", "kind": "question", "title": "Which region?",
        "answerSpec": {"fields": [{"name": "region", "label": "Region", "type": "select", "required": true,
            "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "United States"}]}]},
        "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
                    "sessionId": "s-1", "executionId": "x-1", "interactionId": "q-1"},
    });
    for (key, value) in extra.as_object().unwrap() {
        material[key] = value.clone();
    }
    InteractionRequest::from_material(&material).unwrap()
}

fn command(
    request: &InteractionRequest,
    operation: &str,
    response: Value,
) -> InteractionResponseCommand {
    let wire = json!({"binding": request.command_binding(), "response": response});
    let binding = InteractionBinding::from_json_value(&wire["binding"]).unwrap();
    let response = InteractionResponse::from_json_value(&wire["response"]).unwrap();
    InteractionResponseCommand::new(operation, binding, response)
}

/// An answer with a field the request does not declare.
fn undeclared(request: &InteractionRequest) -> InteractionResponseCommand {
    command(
        request,
        "op-1",
        json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["eu"], "extra": "x"}}),
    )
}

fn eu() -> Value {
    json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["eu"]}})
}

fn scene(interaction: Option<&ProvidedInteraction>) -> ResponseScene<'_> {
    ResponseScene {
        replay: None,
        run_known: true,
        session_known: true,
        interaction,
    }
}

/// The acknowledgement and new state, checked to echo the command and to
/// read back strictly.
fn decide(
    scene: &ResponseScene<'_>,
    command: &InteractionResponseCommand,
    now: u64,
) -> (InteractionAcknowledgement, Option<InteractionState>) {
    let ResponseDecision::Acknowledged {
        acknowledgement,
        state,
    } = decide_interaction_response(scene, command, now)
    else {
        panic!("not a new acknowledgement");
    };
    assert_eq!(acknowledgement.operation_id, command.operation_id);
    assert_eq!(acknowledgement.binding, command.binding);
    assert_eq!(acknowledgement.command_digest, command.command_digest);
    let wire = serde_json::to_value(&acknowledgement).unwrap();
    assert_eq!(
        InteractionAcknowledgement::from_json_value(&wire).unwrap(),
        *acknowledgement
    );
    (*acknowledgement, state)
}

use InteractionAcknowledgementStatus as Status;

#[test]
fn an_answer_to_a_pending_interaction_is_accepted_and_resolves_it() {
    let request = request(json!({}));
    let asked = ProvidedInteraction::accepted(request.clone(), 0);
    let answer = command(&request, "op-1", eu());
    let (ack, state) = decide(&scene(Some(&asked)), &answer, 1);
    assert_eq!(ack.status, Status::Accepted);
    assert_eq!(state, Some(InteractionState::Resolved(answer.response)));
}

#[test]
fn a_seen_operation_id_is_replayed_before_anything_else() {
    let request = request(json!({}));
    let answer = command(&request, "op-1", eu());
    let asked = ProvidedInteraction::accepted(request, 0);
    let (recorded, _) = decide(&scene(Some(&asked)), &answer, 1);
    let replay = ResponseScene {
        replay: Some(&recorded),
        run_known: false,
        session_known: false,
        interaction: None,
    };
    assert_eq!(
        decide_interaction_response(&replay, &answer, 2),
        ResponseDecision::Replayed
    );
}

#[test]
fn where_a_command_is_bound_is_checked_run_then_session_then_interaction_then_the_rest() {
    let request = request(json!({}));
    let asked = ProvidedInteraction::accepted(request.clone(), 0);
    // An undeclared field too, so each binding status also beats validation.
    let bad = undeclared(&request);
    let cases = [
        (false, false, None, Status::UnknownRun),
        (true, false, None, Status::BindingMismatch),
        (true, true, None, Status::UnknownInteraction),
        (true, true, Some(&asked), Status::InvalidResponse),
    ];
    for (run_known, session_known, interaction, status) in cases {
        let scene = ResponseScene {
            replay: None,
            run_known,
            session_known,
            interaction,
        };
        let (ack, state) = decide(&scene, &bad, 1);
        assert_eq!(ack.status, status);
        assert_eq!(state, None, "{status:?} changes nothing");
    }
    // Another request under the same id (its digest differs): stale.
    let other =
        ProvidedInteraction::accepted(self::request(json!({"title": "Which region, again?"})), 0);
    let (ack, _) = decide(&scene(Some(&other)), &bad, 1);
    assert_eq!(ack.status, Status::BindingMismatch);
}

#[test]
fn an_undeclared_field_is_an_invalid_response_with_a_message() {
    let request = request(json!({}));
    let asked = ProvidedInteraction::accepted(request.clone(), 0);
    let bad = undeclared(&request);
    let (ack, _) = decide(&scene(Some(&asked)), &bad, 1);
    assert_eq!(ack.status, Status::InvalidResponse);
    assert!(ack.message.unwrap().contains("extra"));
}

#[test]
fn a_resolved_interaction_tells_the_same_answer_from_a_different_one() {
    let request = request(json!({}));
    let first = command(&request, "op-1", eu());
    let mut asked = ProvidedInteraction::accepted(request.clone(), 0);
    asked.state = InteractionState::Resolved(first.response.clone());
    let again = command(&request, "op-2", eu());
    assert_eq!(
        decide(&scene(Some(&asked)), &again, 1).0.status,
        Status::AlreadyResolvedSame
    );
    let declined = command(
        &request,
        "op-3",
        json!({"id": "q-1", "outcome": "declined"}),
    );
    let (ack, state) = decide(&scene(Some(&asked)), &declined, 1);
    assert_eq!(ack.status, Status::AlreadyResolvedDifferent);
    assert_eq!(state, None);
    // Validation comes first: an invalid answer to a resolved one is invalid.
    let invalid = command(
        &request,
        "op-4",
        json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["mars"]}}),
    );
    assert_eq!(
        decide(&scene(Some(&asked)), &invalid, 1).0.status,
        Status::InvalidResponse
    );
}

#[test]
fn a_cancelled_interaction_answers_cancelled_and_a_cancel_never_undoes_an_answer() {
    let request = request(json!({}));
    let mut asked = ProvidedInteraction::accepted(request.clone(), 0);
    assert_eq!(asked.cancelled_at(1), InteractionState::Cancelled);
    asked.state = InteractionState::Cancelled;
    assert_eq!(
        decide(&scene(Some(&asked)), &command(&request, "op-1", eu()), 1)
            .0
            .status,
        Status::Cancelled
    );
    let answer = command(&request, "op-2", eu());
    asked.state = InteractionState::Resolved(answer.response.clone());
    assert_eq!(
        asked.cancelled_at(1),
        InteractionState::Resolved(answer.response)
    );
}

#[test]
fn a_fail_timeout_expires_the_interaction_once_noticed() {
    let request = request(json!({"timeoutMs": 1000, "onTimeout": "fail"}));
    let asked = ProvidedInteraction::accepted(request.clone(), 10_000);
    assert_eq!(asked.deadline_ms(), Some(11_000));
    let answer = command(&request, "op-1", eu());
    assert_eq!(
        decide(&scene(Some(&asked)), &answer, 10_999).0.status,
        Status::Accepted
    );
    let (ack, state) = decide(&scene(Some(&asked)), &answer, 11_000);
    assert_eq!(ack.status, Status::Expired);
    assert_eq!(
        state,
        Some(InteractionState::Expired),
        "the expiry is stored"
    );
    // Noticed by an invalid command too, and stored all the same.
    let invalid = command(
        &request,
        "op-2",
        json!({"id": "q-1", "outcome": "accepted", "data": {}}),
    );
    let (ack, state) = decide(&scene(Some(&asked)), &invalid, 11_000);
    assert_eq!(ack.status, Status::InvalidResponse);
    assert_eq!(state, Some(InteractionState::Expired));
    // Once stored, nothing more to store.
    let mut expired = asked.clone();
    expired.state = InteractionState::Expired;
    let (ack, state) = decide(&scene(Some(&expired)), &answer, 20_000);
    assert_eq!(ack.status, Status::Expired);
    assert_eq!(state, None);
}

#[test]
fn a_default_timeout_resolves_with_the_default_and_a_wait_never_times_out() {
    let request = request(json!({"timeoutMs": 50, "onTimeout": "default",
        "default": {"outcome": "accepted", "data": {"region": ["us"]}}}));
    let asked = ProvidedInteraction::accepted(request.clone(), 0);
    let InteractionState::Resolved(default) = asked.state_at(50) else {
        panic!("resolved by its default");
    };
    assert_eq!(
        serde_json::to_value(&default).unwrap(),
        json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["us"]}})
    );
    let same = command(
        &request,
        "op-1",
        json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["us"]}}),
    );
    let (ack, state) = decide(&scene(Some(&asked)), &same, 60);
    assert_eq!(ack.status, Status::AlreadyResolvedSame);
    assert_eq!(state, Some(InteractionState::Resolved(default)));

    for on_timeout in [
        json!({"timeoutMs": 50, "onTimeout": "wait"}),
        json!({"timeoutMs": 50}),
    ] {
        let waits = ProvidedInteraction::accepted(self::request(on_timeout), 0);
        assert_eq!(waits.deadline_ms(), None);
        assert_eq!(waits.state_at(u64::MAX), InteractionState::Pending);
    }
}

#[test]
fn a_transport_failure_says_a_retry_is_safe_and_reads_back() {
    let request = request(json!({}));
    let answer = command(&request, "op-1", eu());
    let failure = transport_failure(&answer, "the store is unreachable");
    assert_eq!(failure.status, Status::TransportFailure);
    assert_eq!(failure.retryable, Some(true));
    let wire = serde_json::to_value(&failure).unwrap();
    assert_eq!(
        InteractionAcknowledgement::from_json_value(&wire).unwrap(),
        failure
    );
}
