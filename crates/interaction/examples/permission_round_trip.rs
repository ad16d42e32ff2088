//! An agent asks for permission, a person answers, and the answer travels
//! back as a retryable command that the environment checks against the
//! exact request it answers.
//!
//! Run with `cargo run -p index-interaction --example permission_round_trip`.

// An example program: printing is its output.
#![allow(clippy::print_stdout)]

use index_interaction::{
    InteractionRequest, InteractionResponseCommand, InteractionResponseScope,
    permission_answer_spec, validate_interaction_response, validate_interaction_response_command,
};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The agent's side: a permission request, bound to where it was asked.
    let scopes = [
        InteractionResponseScope::Interaction,
        InteractionResponseScope::Session,
    ];
    let request = InteractionRequest::from_material(&json!({
        "id": "perm-1",
        "kind": "permission",
        "title": "Run the database migration?",
        "subject": {"type": "command", "command": "migrate --apply"},
        "responseScopes": scopes,
        "answerSpec": permission_answer_spec(Some(&scopes), true),
        "binding": {"runId": "run-42", "provider": "local", "environmentId": "dev",
                    "sessionId": "s-7", "executionId": "x-3", "interactionId": "perm-1"},
    }))?;
    println!("asked {} ({})", request.id(), request.request_digest());

    // The person's side: allow for the session, with a reason.
    let answer = json!({"id": "perm-1", "outcome": "accepted",
                        "data": {"grant": ["allow_session"], "feedback": "Only today."}});
    let response = validate_interaction_response(&request, &answer).map_err(|problems| {
        let codes: Vec<String> = problems.iter().map(|p| p.code()).collect();
        codes.join(", ")
    })?;

    // Delivery: a command sealed by a digest of its binding and response.
    let command = InteractionResponseCommand::new("op-1", request.command_binding(), response);
    let wire = serde_json::to_value(&command)?;
    println!("{}", serde_json::to_string_pretty(&wire)?);

    // The environment's side: the command answers this very request.
    let delivered = validate_interaction_response_command(&request, &wire)
        .map_err(|problems| format!("{} problem(s)", problems.len()))?;
    println!("delivered: {}", delivered.outcome.as_str());
    Ok(())
}
