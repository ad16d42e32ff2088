//! The contract as 0.44.0 wrote it, for data recorded before 0.46.
//!
//! 0.44 requests carry no binding and no digest, and its commands and
//! acknowledgements bind a response by run, environment, optional session
//! and interaction only. Those records cannot be read as 0.46 (the fields
//! 0.46 requires were never recorded), so they have their own types here.
//! Answer specs, fields, data and responses are the same types in both
//! versions; read through this module they follow 0.44's rules (no
//! length bounds, no reserved names, no secret handles, answers read
//! through the prototype chain), and [`upgrade`] re-reads one under 0.46.

use index_js::Problems;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::answer_validation::{
    AnswerProblem, FieldRules, UnreadableSpec, problems, rules_from_json, typed_problems,
};
use crate::contract::Contract;
use crate::data::{
    InteractionData, InteractionOutcome, InteractionResolution, InteractionSubject, data_to_json,
};
use crate::envelope::{
    InteractionAcknowledgementStatus, InteractionResponse, MEMBER_KEYS, OnTimeout, parse_members,
    parse_report, parse_response, refine_members,
};
use crate::fields::{InteractionAnswerSpec, InteractionResponseScope};
use crate::permissions::InteractionKind;
use crate::resolution::{ResolutionRequest, read_grant, resolution_problems_0_44, scope_problem};
use crate::response_validation::{ResponseProblem, read_response};
use crate::zod::{At, InvalidInteraction, IssueCode, Version, Walk};

/// Reads one of the types 0.44 and 0.46 share as 0.44 wrote it.
///
/// ```
/// use index_interaction::{InteractionField, v0_44};
/// let long = serde_json::json!({"name": "n".repeat(600), "label": "L", "type": "text"});
/// assert!(v0_44::from_json_value::<InteractionField>(&long).is_ok());
/// assert!(InteractionField::from_json_value(&long).is_err());
/// ```
///
/// # Errors
///
/// [`InvalidInteraction`] with each problem, under 0.44's rules.
pub fn from_json_value<T: Contract>(value: &Value) -> Result<T, InvalidInteraction> {
    T::read(value, false)
}

/// Re-reads a value read through this module under 0.46's rules: the
/// honest way across for the types both versions share.
///
/// # Errors
///
/// [`InvalidInteraction`] where the value breaks a rule 0.46 added (a
/// bound, a reserved name).
pub fn upgrade<T: Contract + Serialize>(value: &T) -> Result<T, InvalidInteraction> {
    T::read(&serde_json::to_value(value).unwrap_or(Value::Null), true)
}

/// A typed ask for a person's input, as 0.44 wrote it: unbound and
/// without a digest.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionRequest {
    /// Ties the answer to this ask: no two requests in a session share it,
    /// and the person's response repeats it.
    pub id: String,
    /// What it asks for: `question`, `permission`, `plan`, or another
    /// (namespaced, vendor) kind.
    pub kind: InteractionKind,
    /// A short prompt.
    pub title: String,
    /// Longer context, as Markdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// What the request is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<InteractionSubject>,
    /// The fields of a valid answer.
    pub answer_spec: InteractionAnswerSpec,
    /// Where an answer may be reused; absent means this interaction only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_scopes: Option<Vec<InteractionResponseScope>>,
    /// The resolution applied when unattended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<InteractionResolution>,
    /// How long to wait for a person, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What to do when the wait ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_timeout: Option<OnTimeout>,
}

/// Which interaction a response is for: unique within its run and session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionBinding {
    /// The run.
    pub run_id: String,
    /// The environment.
    pub environment_id: String,
    /// The provider session, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The interaction; equal to the response's id.
    pub interaction_id: String,
}

/// A retryable command delivering a response to an environment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionResponseCommand {
    /// Idempotency key.
    pub operation_id: String,
    /// Where it goes.
    pub binding: InteractionBinding,
    /// The response; its id is the binding's interaction id.
    pub response: InteractionResponse,
}

/// The durable result of one response command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionAcknowledgement {
    /// The command's idempotency key.
    pub operation_id: String,
    /// Where it went.
    pub binding: InteractionBinding,
    /// How it ended.
    pub status: InteractionAcknowledgementStatus,
    /// Why, for failures (required for `invalid_response` and `transport_failure`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether a retry is safe (required for `transport_failure`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

pub(crate) fn parse_request(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionRequest> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let members = parse_members(w, at, object);
    w.strict(at, object, &MEMBER_KEYS);
    w.refine(mark, &members, |w, members| {
        refine_members(w, at, members);
    });
    members.map(|m| InteractionRequest {
        id: m.id,
        kind: m.kind,
        title: m.title,
        body: m.body,
        subject: m.subject,
        answer_spec: m.answer_spec,
        response_scopes: m.response_scopes,
        default: m.default,
        timeout_ms: m.timeout_ms,
        on_timeout: m.on_timeout,
    })
}

/// The `operationId` and `binding` that commands and acknowledgements share.
fn operation_and_binding(
    w: &mut Walk,
    at: &At<'_>,
    object: &serde_json::Map<String, Value>,
) -> (Option<String>, Option<InteractionBinding>) {
    let operation_id = w
        .string(&at.key("operationId"), object.get("operationId"), 1)
        .map(str::to_owned);
    let binding = parse_binding(w, &at.key("binding"), object.get("binding"));
    (operation_id, binding)
}

pub(crate) fn parse_binding(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionBinding> {
    let object = w.object(at, value)?;
    let text = |w: &mut Walk, key: &str| {
        w.string(&at.key(key), object.get(key), 1)
            .map(str::to_owned)
    };
    let run_id = text(w, "runId");
    let environment_id = text(w, "environmentId");
    let session_id = w.optional(object, "sessionId", |w, v| {
        w.string(&at.key("sessionId"), v, 1).map(str::to_owned)
    });
    let interaction_id = text(w, "interactionId");
    w.strict(
        at,
        object,
        &["runId", "environmentId", "sessionId", "interactionId"],
    );
    Some(InteractionBinding {
        run_id: run_id?,
        environment_id: environment_id?,
        session_id: session_id.ok()?,
        interaction_id: interaction_id?,
    })
}

pub(crate) fn parse_response_command(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionResponseCommand> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let (operation_id, binding) = operation_and_binding(w, at, object);
    let response = parse_response(w, &at.key("response"), object.get("response"));
    w.strict(at, object, &["operationId", "binding", "response"]);
    let command = (|| {
        Some(InteractionResponseCommand {
            operation_id: operation_id?,
            binding: binding?,
            response: response?,
        })
    })();
    w.refine(mark, &command, |w, command| {
        if command.binding.interaction_id != command.response.id {
            w.issue(
                &at.key("response").key("id"),
                IssueCode::Custom,
                "the response id must be the bound interaction id",
            );
        }
    });
    command
}

pub(crate) fn parse_acknowledgement(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionAcknowledgement> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let (operation_id, binding) = operation_and_binding(w, at, object);
    let report = parse_report(w, at, object);
    w.strict(
        at,
        object,
        &["operationId", "binding", "status", "message", "retryable"],
    );
    report.refine(w, mark, at);
    (|| {
        Some(InteractionAcknowledgement {
            operation_id: operation_id?,
            binding: binding?,
            status: report.status?,
            message: report.message?,
            retryable: report.retryable?,
        })
    })()
}

impl InteractionRequest {
    /// What resolving it reads: its kind, spec and scopes.
    fn asked(&self) -> ResolutionRequest<'_> {
        ResolutionRequest {
            kind: &self.kind,
            answer_spec: &self.answer_spec,
            response_scopes: self.response_scopes.as_deref(),
        }
    }
}

/// Validates `response` against a 0.44 `request`: its shape (under 0.44's
/// rules), its id, and when accepted its answer and, for permissions, its
/// grant.
///
/// ```
/// use index_interaction::v0_44;
/// let request: v0_44::InteractionRequest = serde_json::from_value(serde_json::json!({
///     "id": "q-1", "kind": "question", "title": "Lunch?",
///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean", "required": true}]},
/// })).unwrap();
/// let yes = serde_json::json!({"id": "q-1", "outcome": "accepted", "data": {"go": true}});
/// assert!(v0_44::validate_interaction_response(&request, &yes).is_ok());
/// ```
///
/// # Errors
///
/// Every [`ResponseProblem`] found.
pub fn validate_interaction_response(
    request: &InteractionRequest,
    response: &Value,
) -> Result<(), Problems<ResponseProblem>> {
    check_response(request, &read_response(response, Version::V0_44)?)
}

/// Checks a well-formed response against a 0.44 `request`.
///
/// # Errors
///
/// Every [`ResponseProblem`] found.
pub fn check_response(
    request: &InteractionRequest,
    response: &InteractionResponse,
) -> Result<(), Problems<ResponseProblem>> {
    if request.id != response.id {
        return Err(Problems::one(ResponseProblem::IdMismatch));
    }
    let data = response.data.as_ref().map(data_to_json);
    Problems::check(
        resolution_problems_0_44(&request.asked(), response.outcome, data.as_ref())
            .into_iter()
            .map(ResponseProblem::Answer)
            .collect(),
    )
}

/// Checks an accepted answer's data against `spec` as 0.44 did: unknown
/// keys first, then each field, a field's value read through the
/// prototype chain.
///
/// # Errors
///
/// Every [`AnswerProblem`] found.
pub fn validate_interaction_answer(
    spec: &InteractionAnswerSpec,
    data: Option<&InteractionData>,
) -> Result<(), Problems<AnswerProblem>> {
    let json = data.map(data_to_json);
    validate_interaction_answer_value(spec, json.as_ref())
}

/// [`validate_interaction_answer`] on untyped JSON data.
///
/// # Errors
///
/// Every [`AnswerProblem`] found.
pub fn validate_interaction_answer_value(
    spec: &InteractionAnswerSpec,
    data: Option<&Map<String, Value>>,
) -> Result<(), Problems<AnswerProblem>> {
    let rules: Vec<FieldRules<'_>> = spec.fields.iter().map(FieldRules::from).collect();
    Problems::check(typed_problems(&rules, data, Version::V0_44))
}

/// [`validate_interaction_answer`] with the spec as plain JSON, as 0.44
/// takes it: any object with a `fields` list is checked against, without
/// first requiring it to be a valid spec, each part read only where
/// 0.44's checks reach it. A field of unknown type is checked for
/// presence only; a field that is not an object is one without a name,
/// type or rules; a name that is not a string is used as `String(name)`
/// (`"undefined"` when absent), the key its answer is read under and the
/// name its problems carry, though no data key counts as that field's; a
/// select's options are read only once its answer is a list.
///
/// # Errors
///
/// Every [`AnswerProblem`] found; or, alone, [`AnswerProblem::Unreadable`]
/// where 0.44 would throw: `fields` not a list, a `null` field, or a
/// select answered with a list whose options are not a list or hold a
/// `null` one.
///
/// ```
/// use index_interaction::{AnswerProblem, v0_44};
/// let spec = serde_json::json!({"fields": [{"name": "n", "type": "number", "max": 3, "label": ""}]});
/// let data = serde_json::json!({"n": 5});
/// let problems = v0_44::validate_interaction_answer_json(&spec, data.as_object()).unwrap_err();
/// assert_eq!(problems.first().code(), "above_max:n");
/// let unreadable = v0_44::validate_interaction_answer_json(&serde_json::json!({}), None).unwrap_err();
/// assert!(matches!(unreadable.first(), AnswerProblem::Unreadable(_)));
/// ```
pub fn validate_interaction_answer_json(
    spec: &Value,
    data: Option<&Map<String, Value>>,
) -> Result<(), Problems<AnswerProblem>> {
    let unreadable = |unreadable| Problems::one(AnswerProblem::Unreadable(unreadable));
    let rules = rules_from_json(spec).map_err(unreadable)?;
    Problems::check(problems(&rules, data, Version::V0_44).map_err(unreadable)?)
}

/// [`validate_interaction_response`] with the request as plain JSON, as
/// 0.44 takes it: the response is read by its schema, and the request
/// only where 0.44 reads it (`id`, `kind`, `answerSpec` as
/// [`validate_interaction_answer_json`] reads a spec, `responseScopes`),
/// without first requiring it to be a valid request.
///
/// # Errors
///
/// Every [`ResponseProblem`] found; or, alone,
/// [`ResponseProblem::Unreadable`] where 0.44 would throw: a `null` request
/// with a well formed response, or on an accepted response an
/// `answerSpec` it cannot read, or, for a permission answer with one
/// known grant other than `deny` (the only answer 0.44 reads
/// `responseScopes` for), `responseScopes` that cannot be iterated (a
/// number, a boolean, an object). A string is iterated as its
/// characters, so it permits no scope.
///
/// ```
/// use index_interaction::{ResponseProblem, v0_44};
/// let response = serde_json::json!({"id": "q", "outcome": "accepted"});
/// let unreadable = v0_44::validate_interaction_response_json(&serde_json::Value::Null, &response).unwrap_err();
/// assert!(matches!(unreadable.first(), ResponseProblem::Unreadable(_)));
/// ```
pub fn validate_interaction_response_json(
    request: &Value,
    response: &Value,
) -> Result<(), Problems<ResponseProblem>> {
    let unreadable = |reason| Problems::one(ResponseProblem::Unreadable(reason));
    let response = read_response(response, Version::V0_44)?;
    // The reference reads `request.id` once the response is well formed,
    // which throws for `null` (any other value only lacks the id).
    if request.is_null() {
        return Err(unreadable(UnreadableSpec("the request is null")));
    }
    if request.get("id").and_then(Value::as_str) != Some(response.id.as_str()) {
        return Err(Problems::one(ResponseProblem::IdMismatch));
    }
    if response.outcome != InteractionOutcome::Accepted {
        return Ok(());
    }
    let data = response.data.as_ref().map(data_to_json);
    let spec = request.get("answerSpec").unwrap_or(&Value::Null);
    let rules = rules_from_json(spec).map_err(unreadable)?;
    let mut found = problems(&rules, data.as_ref(), Version::V0_44).map_err(unreadable)?;
    if request.get("kind").and_then(Value::as_str) == Some(InteractionKind::Permission.as_str()) {
        match read_grant(data.as_ref()) {
            Err(problem) => found.push(problem),
            // 0.44 reads `responseScopes` only here: for one known grant
            // other than deny.
            Ok(grant) if grant.required_scope().is_some() => {
                let permitted =
                    permitted_scopes(request.get("responseScopes")).map_err(unreadable)?;
                found.extend(scope_problem(grant, &permitted));
            }
            Ok(_) => {}
        }
    }
    Problems::check(found.into_iter().map(ResponseProblem::Answer).collect())
}

/// The scopes in 0.44's `new Set(request.responseScopes ?? ["interaction"])`:
/// unreadable where that throws (a value that cannot be iterated: a
/// number, a boolean, an object).
fn permitted_scopes(
    scopes: Option<&Value>,
) -> Result<Vec<InteractionResponseScope>, UnreadableSpec> {
    match scopes {
        None | Some(Value::Null) => Ok(vec![InteractionResponseScope::Interaction]),
        Some(Value::Array(scopes)) => Ok(scopes
            .iter()
            .filter_map(|scope| scope.as_str().and_then(InteractionResponseScope::from_name))
            .collect()),
        // A string is iterated by code point: a set of one-character
        // strings, none of them a scope's name.
        Some(Value::String(_)) => Ok(Vec::new()),
        Some(_) => Err(UnreadableSpec("responseScopes is not iterable")),
    }
}

crate::contract::schema_type! {
    InteractionRequest => parse_request, false,
    InteractionBinding => parse_binding, false,
    InteractionResponseCommand => parse_response_command, false,
    InteractionAcknowledgement => parse_acknowledgement, false,
}
