//! Checking a response against the exact request it answers, permission
//! rules included.

use std::fmt;

use serde_json::{Map, Value};

use crate::answer_validation::{AnswerProblem, answer_problems};
use crate::data::{InteractionOutcome, data_to_json};
use crate::envelope::{InteractionRequest, InteractionResponse, parse_response};
use crate::fields::InteractionResponseScope;
use crate::js::js_string;
use crate::permissions::{InteractionKind, PERMISSION_GRANT_FIELD, PermissionGrant};
use crate::zod::{At, SchemaIssue, Walk};

/// Why a response does not resolve its request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseProblem {
    /// The response is not a well-formed response.
    Schema(SchemaIssue),
    /// It answers another interaction.
    IdMismatch,
    /// Its answer breaks the request's spec or permission rules.
    Answer(AnswerProblem),
}

impl ResponseProblem {
    /// A stable code: `schema:<path>:<zod code>`, `response_id_mismatch`,
    /// or the answer problem's code.
    pub fn code(&self) -> String {
        match self {
            ResponseProblem::Schema(issue) => {
                format!("schema:{}:{}", issue.path, issue.code.as_str())
            }
            ResponseProblem::IdMismatch => "response_id_mismatch".to_owned(),
            ResponseProblem::Answer(problem) => problem.code(),
        }
    }
}

impl fmt::Display for ResponseProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseProblem::Schema(issue) => write!(f, "{issue}"),
            ResponseProblem::IdMismatch => {
                f.write_str("the response answers a different interaction")
            }
            ResponseProblem::Answer(problem) => write!(f, "{problem}"),
        }
    }
}

/// Validates `response` (untyped, as it arrives) against the outstanding
/// `request`: its shape first, then its id, then (when accepted) its answer
/// and, for permissions, its grant.
///
/// ```
/// use index_interaction::*;
/// let request = InteractionRequest::from_json_value(&serde_json::json!({
///     "id": "p-1", "kind": "permission", "title": "Run the migration?",
///     "answerSpec": serde_json::to_value(permission_answer_spec(None, true)).unwrap(),
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
) -> Result<(), Vec<ResponseProblem>> {
    check_response(request, &read_response(response)?)
}

/// A response read by its schema; its schema problems, as response problems.
pub(crate) fn read_response(response: &Value) -> Result<InteractionResponse, Vec<ResponseProblem>> {
    let mut walk = Walk::default();
    let parsed = parse_response(&mut walk, &At::Root, Some(response));
    walk.finish(parsed).map_err(|invalid| {
        invalid
            .issues
            .into_iter()
            .map(ResponseProblem::Schema)
            .collect()
    })
}

/// Checks a well-formed response against `request`.
pub fn check_response(
    request: &InteractionRequest,
    response: &InteractionResponse,
) -> Result<(), Vec<ResponseProblem>> {
    if request.id != response.id {
        return Err(vec![ResponseProblem::IdMismatch]);
    }
    let data = response.data.as_ref().map(data_to_json);
    let problems: Vec<ResponseProblem> =
        resolution_problems(request, response.outcome, data.as_ref())
            .into_iter()
            .map(ResponseProblem::Answer)
            .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// What is wrong with resolving `request` with `outcome` and `data`: nothing
/// unless accepted; then the answer's problems and, for a permission, its
/// grant's.
pub(crate) fn resolution_problems(
    request: &InteractionRequest,
    outcome: InteractionOutcome,
    data: Option<&Map<String, Value>>,
) -> Vec<AnswerProblem> {
    if outcome != InteractionOutcome::Accepted {
        return Vec::new();
    }
    let mut problems = answer_problems(&request.answer_spec, data);
    if request.kind == InteractionKind::PERMISSION {
        let permitted = request
            .response_scopes
            .as_deref()
            .unwrap_or(&[InteractionResponseScope::Interaction]);
        problems.extend(grant_problems(data, permitted));
    }
    problems
}

/// A permission answer's grant problems: exactly one grant, a known one,
/// within the request's scopes.
fn grant_problems(
    data: Option<&Map<String, Value>>,
    permitted: &[InteractionResponseScope],
) -> Option<AnswerProblem> {
    let grant = data
        .and_then(|d| d.get(PERMISSION_GRANT_FIELD))
        .and_then(Value::as_array);
    let Some([grant]) = grant.map(Vec::as_slice) else {
        return Some(AnswerProblem::GrantCount);
    };
    let Some(parsed) = grant.as_str().and_then(PermissionGrant::from_name) else {
        return Some(AnswerProblem::InvalidGrant(js_string(grant)));
    };
    parsed
        .required_scope()
        .is_some_and(|scope| !permitted.contains(&scope))
        .then(|| AnswerProblem::GrantExceedsScopes(parsed.as_str().to_owned()))
}

/// [`validate_interaction_response`] with the request as plain JSON, as the
/// 0.44 reference takes it: the response is read by its schema, and the
/// request only where the reference reads it (`id`, `kind`, `answerSpec`
/// as [`validate_interaction_answer_json`](crate::validate_interaction_answer_json)
/// reads a spec, `responseScopes`), without first requiring it to be a
/// valid request. The problems are returned, none when the response is
/// valid.
///
/// # Errors
///
/// [`UnreadableSpec`](crate::UnreadableSpec) where the reference would throw on an accepted
/// response: an `answerSpec` it cannot read, or `responseScopes` that is
/// neither absent, `null` nor a list.
///
/// ```
/// use index_interaction::validate_interaction_response_json;
/// let request = serde_json::json!({"id": "q", "answerSpec": {"fields": [{"name": "ok", "type": "boolean", "required": true}]}});
/// let response = serde_json::json!({"id": "q", "outcome": "accepted", "data": {}});
/// let problems = validate_interaction_response_json(&request, &response).unwrap();
/// assert_eq!(problems[0].code(), "missing_required:ok");
/// ```
pub fn validate_interaction_response_json(
    request: &Value,
    response: &Value,
) -> Result<Vec<ResponseProblem>, crate::UnreadableSpec> {
    let response = match read_response(response) {
        Err(problems) => return Ok(problems),
        Ok(response) => response,
    };
    if request.get("id").and_then(Value::as_str) != Some(response.id.as_str()) {
        return Ok(vec![ResponseProblem::IdMismatch]);
    }
    if response.outcome != InteractionOutcome::Accepted {
        return Ok(Vec::new());
    }
    let data = response.data.as_ref().map(data_to_json);
    let spec = request.get("answerSpec").unwrap_or(&Value::Null);
    let mut problems = crate::answer_validation::problems(
        &crate::answer_validation::rules_from_json(spec)?,
        data.as_ref(),
    );
    if request.get("kind").and_then(Value::as_str) == Some(InteractionKind::PERMISSION) {
        let scopes: Vec<InteractionResponseScope> = match request.get("responseScopes") {
            None | Some(Value::Null) => vec![InteractionResponseScope::Interaction],
            Some(Value::Array(scopes)) => scopes
                .iter()
                .filter_map(|scope| scope.as_str().and_then(InteractionResponseScope::from_name))
                .collect(),
            Some(_) => return Err(crate::UnreadableSpec("responseScopes is not a list")),
        };
        problems.extend(grant_problems(data.as_ref(), &scopes));
    }
    Ok(problems.into_iter().map(ResponseProblem::Answer).collect())
}
