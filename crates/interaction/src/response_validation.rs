//! Checking a response against the exact request it answers, permission
//! rules included, and a response command against the request it is bound
//! to.

use index_js::Problems;
use std::fmt;

use serde_json::Value;

use crate::answer_validation::{AnswerProblem, UnreadableSpec};
use crate::data::data_to_json;
use crate::envelope::{
    InteractionRequest, InteractionResponse, InteractionResponseCommand, parse_response,
};
use crate::js::js_keys;
use crate::limits::is_reserved_name;
use crate::resolution::resolution_problems;
use crate::zod::{At, SchemaIssue, Version, Walk};

/// Why a response does not resolve its request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseProblem {
    /// The request given as JSON is not a valid request.
    Request(SchemaIssue),
    /// The command given as JSON is not a valid response command.
    Command(SchemaIssue),
    /// The response is not a well-formed response.
    Schema(SchemaIssue),
    /// It answers another interaction.
    IdMismatch,
    /// Its outcome is not one the request allows.
    OutcomeNotAllowed,
    /// The command is bound to another request, or to an older version of
    /// this one.
    StaleBinding,
    /// Its answer breaks the request's spec or permission rules.
    Answer(AnswerProblem),
    /// A request given as plain JSON that cannot be checked against, where
    /// the 0.44 reference throws (only
    /// [`crate::v0_44::validate_interaction_response_json`] reports it,
    /// alone).
    Unreadable(UnreadableSpec),
}

impl ResponseProblem {
    /// A stable code: `request:<path>:<zod code>`, `command:…`,
    /// `schema:…`, `response_id_mismatch`, `response_outcome_not_allowed`,
    /// `stale_binding`, or the answer problem's code.
    pub fn code(&self) -> String {
        let schema = |kind: &str, issue: &SchemaIssue| {
            format!("{kind}:{}:{}", issue.path, issue.code.as_str())
        };
        match self {
            ResponseProblem::Request(issue) => schema("request", issue),
            ResponseProblem::Command(issue) => schema("command", issue),
            ResponseProblem::Schema(issue) => schema("schema", issue),
            ResponseProblem::IdMismatch => "response_id_mismatch".to_owned(),
            ResponseProblem::OutcomeNotAllowed => "response_outcome_not_allowed".to_owned(),
            ResponseProblem::StaleBinding => "stale_binding".to_owned(),
            ResponseProblem::Answer(problem) => problem.code(),
            ResponseProblem::Unreadable(_) => "unreadable_request".to_owned(),
        }
    }
}

impl fmt::Display for ResponseProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseProblem::Request(issue) => write!(f, "the request is invalid: {issue}"),
            ResponseProblem::Command(issue) => write!(f, "the command is invalid: {issue}"),
            ResponseProblem::Schema(issue) => write!(f, "{issue}"),
            ResponseProblem::IdMismatch => {
                f.write_str("the response answers a different interaction")
            }
            ResponseProblem::OutcomeNotAllowed => {
                f.write_str("the request does not allow the response's outcome")
            }
            ResponseProblem::StaleBinding => {
                f.write_str("the command is bound to another request or an older version of it")
            }
            ResponseProblem::Answer(problem) => write!(f, "{problem}"),
            ResponseProblem::Unreadable(UnreadableSpec(reason)) => {
                write!(f, "the request cannot be read: {reason}")
            }
        }
    }
}

/// Validates `response` (untyped, as it arrives) against the outstanding
/// `request`: reserved data keys first, then its shape, its id, whether
/// the request allows its outcome, and its answer (for permissions, its
/// grant). Returns the response read.
///
/// ```
/// use index_interaction::*;
/// let request = InteractionRequest::from_material(&serde_json::json!({
///     "id": "p-1", "kind": "permission", "title": "Run the migration?",
///     "answerSpec": serde_json::to_value(permission_answer_spec(None, true)).unwrap(),
///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
///                 "sessionId": "s", "executionId": "x", "interactionId": "p-1"},
/// })).unwrap();
/// let ok = serde_json::json!({"id": "p-1", "outcome": "accepted", "data": {"grant": ["allow_once"]}});
/// assert!(validate_interaction_response(&request, &ok).is_ok());
/// let broad = serde_json::json!({"id": "p-1", "outcome": "accepted", "data": {"grant": ["allow_always"]}});
/// let problems = validate_interaction_response(&request, &broad).unwrap_err();
/// assert_eq!(problems.last().unwrap().code(), "grant_exceeds_scopes:allow_always");
/// ```
pub fn validate_interaction_response(
    request: &InteractionRequest,
    response: &Value,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    Problems::check(reserved_key_problems(response))?;
    let response = read_response(response, Version::V0_46)?;
    check_response(request, &response)?;
    Ok(response)
}

/// [`validate_interaction_response`] for a caller that needs only the
/// verdict.
pub fn interaction_response_is_valid(
    request: &InteractionRequest,
    response: &Value,
) -> Result<(), Problems<ResponseProblem>> {
    validate_interaction_response(request, response).map(drop)
}

/// [`validate_interaction_response`] with the request as plain JSON: the
/// request is read first, and its problems are returned as
/// [`ResponseProblem::Request`].
///
/// ```
/// use index_interaction::validate_interaction_response_json;
/// let unsealed = serde_json::json!({"id": "q", "kind": "question", "title": "T", "answerSpec": {"fields": []}});
/// let response = serde_json::json!({"id": "q", "outcome": "declined"});
/// let problems = validate_interaction_response_json(&unsealed, &response).unwrap_err();
/// assert_eq!(problems[0].code(), "request:binding:invalid_type");
/// ```
pub fn validate_interaction_response_json(
    request: &Value,
    response: &Value,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    validate_interaction_response(&read_request(request)?, response)
}

/// Validates a response command (untyped) against the request it must be
/// bound to: the command's own shape and digest, then its binding (the
/// same run, provider, environment, session, execution, interaction and
/// request digest), then its response as [`validate_interaction_response`]
/// does. Returns the response.
pub fn validate_interaction_response_command(
    request: &InteractionRequest,
    command: &Value,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    let command = InteractionResponseCommand::from_json_value(command)
        .map_err(|invalid| invalid.map(ResponseProblem::Command))?;
    if command.binding != request.command_binding() {
        return Err(Problems::one(ResponseProblem::StaleBinding));
    }
    // The command's response was read by its schema already, and reading
    // refuses every key the reserved-key check would.
    check_response(request, &command.response)?;
    Ok(command.response)
}

/// [`validate_interaction_response_command`] with the request as plain
/// JSON, read first.
pub fn validate_interaction_response_command_json(
    request: &Value,
    command: &Value,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    validate_interaction_response_command(&read_request(request)?, command)
}

fn read_request(request: &Value) -> Result<InteractionRequest, Problems<ResponseProblem>> {
    InteractionRequest::from_json_value(request)
        .map_err(|invalid| invalid.map(ResponseProblem::Request))
}

/// A reserved name among the response's data keys, each an unknown field:
/// checked before the response is read, so the problem is the reference's
/// and not the reader's invalid key.
fn reserved_key_problems(response: &Value) -> Vec<ResponseProblem> {
    let Some(data) = response.get("data").and_then(Value::as_object) else {
        return Vec::new();
    };
    js_keys(data)
        .into_iter()
        .filter(|key| is_reserved_name(key))
        .map(|key| ResponseProblem::Answer(AnswerProblem::UnknownField(key.clone())))
        .collect()
}

/// A response read by `version`'s schema; its schema problems, as response
/// problems.
pub(crate) fn read_response(
    response: &Value,
    version: Version,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    let mut walk = Walk::new(version);
    let parsed = parse_response(&mut walk, &At::Root, Some(response));
    walk.finish(parsed)
        .map_err(|invalid| invalid.map(ResponseProblem::Schema))
}

/// Checks a well-formed response against `request`.
pub fn check_response(
    request: &InteractionRequest,
    response: &InteractionResponse,
) -> Result<(), Problems<ResponseProblem>> {
    if request.id() != response.id {
        return Err(Problems::one(ResponseProblem::IdMismatch));
    }
    if request
        .allowed_outcomes()
        .is_some_and(|allowed| !allowed.contains(&response.outcome))
    {
        return Err(Problems::one(ResponseProblem::OutcomeNotAllowed));
    }
    let data = response.data.as_ref().map(data_to_json);
    Problems::check(
        resolution_problems(&request.asked(), response.outcome, data.as_ref())
            .into_iter()
            .map(ResponseProblem::Answer)
            .collect(),
    )
}
