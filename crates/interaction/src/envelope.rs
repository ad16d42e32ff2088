//! The request an agent sends, the response a person returns, and the
//! commands and acknowledgements that carry a response back.

use serde::Serialize;
use serde_json::Value;

use crate::data::{
    InteractionData, InteractionOutcome, InteractionResolution, InteractionSubject, optional_data,
    outcome_tag, parse_resolution, parse_subject,
};
use crate::fields::{
    InteractionAnswerSpec, InteractionField, InteractionResponseScope, has_duplicates,
    parse_answer_spec, parse_scopes,
};
use crate::number::wire_enum;
use crate::response_validation::resolution_problems;
use crate::zod::{At, IssueCode, Walk};

wire_enum! {
    /// What happens when nobody answers in time.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum OnTimeout {
        /// Apply the request's default resolution.
        Default = "default",
        /// Fail the turn.
        Fail = "fail",
        /// Keep waiting (the behaviour when unset).
        Wait = "wait",
    }
}

/// A typed ask for a person's input.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionRequest {
    /// Ties the answer to this ask: no two requests in a session share it,
    /// and the person's response repeats it.
    pub id: String,
    /// An open label: `question`, `permission`, `plan`, or a namespaced
    /// vendor kind.
    pub kind: String,
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

/// A person's answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractionResponse {
    /// The request's id.
    pub id: String,
    /// How they answered.
    pub outcome: InteractionOutcome,
    /// Field values (validated only when accepted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<InteractionData>,
}

impl InteractionResponse {
    /// The response as a resolution.
    pub fn resolution(&self) -> InteractionResolution {
        InteractionResolution {
            outcome: self.outcome,
            data: self.data.clone(),
        }
    }
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

wire_enum! {
    /// How a response command ended.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum InteractionAcknowledgementStatus {
        /// Applied.
        Accepted = "accepted",
        /// Already resolved with the same response.
        AlreadyResolvedSame = "already_resolved_same",
        /// Already resolved with a different response.
        AlreadyResolvedDifferent = "already_resolved_different",
        /// The interaction expired.
        Expired = "expired",
        /// The interaction was cancelled.
        Cancelled = "cancelled",
        /// No such interaction.
        UnknownInteraction = "unknown_interaction",
        /// No such run.
        UnknownRun = "unknown_run",
        /// The binding does not match.
        BindingMismatch = "binding_mismatch",
        /// The response failed validation (a message says why).
        InvalidResponse = "invalid_response",
        /// Delivery failed (a message says why, and whether a retry is safe).
        TransportFailure = "transport_failure",
    }
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
    let text = |w: &mut Walk, key: &str| {
        w.string(&at.key(key), object.get(key), 1)
            .map(str::to_owned)
    };
    let id = text(w, "id");
    let kind = text(w, "kind");
    let title = text(w, "title");
    let body = w.optional(object, "body", |w, v| {
        w.string(&at.key("body"), v, 0).map(str::to_owned)
    });
    let subject = w.optional(object, "subject", |w, v| {
        parse_subject(w, &at.key("subject"), v)
    });
    let answer_spec = parse_answer_spec(w, &at.key("answerSpec"), object.get("answerSpec"));
    let response_scopes = w.optional(object, "responseScopes", |w, v| {
        parse_scopes(w, &at.key("responseScopes"), v)
    });
    let default = w.optional(object, "default", |w, v| {
        parse_resolution(w, &at.key("default"), v)
    });
    let timeout_ms = w.optional(object, "timeoutMs", |w, v| {
        w.positive_int(&at.key("timeoutMs"), v)
    });
    let on_timeout = w.optional(object, "onTimeout", |w, v| {
        w.one_of(&at.key("onTimeout"), v)
    });
    w.strict(
        at,
        object,
        &[
            "id",
            "kind",
            "title",
            "body",
            "subject",
            "answerSpec",
            "responseScopes",
            "default",
            "timeoutMs",
            "onTimeout",
        ],
    );
    let request = (|| {
        Some(InteractionRequest {
            id: id?,
            kind: kind?,
            title: title?,
            body: body.ok()?,
            subject: subject.ok()?,
            answer_spec: answer_spec?,
            response_scopes: response_scopes.ok()?,
            default: default.ok()?,
            timeout_ms: timeout_ms.ok()?,
            on_timeout: on_timeout.ok()?,
        })
    })();
    w.refine(mark, &request, |w, request| {
        refine_request(w, at, request);
    });
    request
}

fn refine_request(w: &mut Walk, at: &At<'_>, request: &InteractionRequest) {
    if request
        .response_scopes
        .as_deref()
        .is_some_and(has_duplicates)
    {
        w.issue(
            &at.key("responseScopes"),
            IssueCode::Custom,
            "response scopes must be unique",
        );
    }
    let default_at = at.key("default");
    if request.on_timeout == Some(OnTimeout::Default) && request.default.is_none() {
        w.issue(
            &default_at,
            IssueCode::Custom,
            "onTimeout=default needs a default resolution",
        );
    }
    let Some(default) = &request.default else {
        return;
    };
    for problem in resolution_problems(
        request,
        default.outcome,
        default
            .data
            .as_ref()
            .map(crate::data::data_to_json)
            .as_ref(),
    ) {
        w.issue(&default_at, IssueCode::Custom, problem.to_string());
    }
    if default.outcome == InteractionOutcome::Accepted {
        let data_at = default_at.key("data");
        let secret = |name: &str| {
            matches!(
                request.answer_spec.field(name),
                Some(InteractionField::Secret(_))
            )
        };
        let data = default
            .data
            .as_ref()
            .map(crate::data::data_to_json)
            .unwrap_or_default();
        for key in crate::js::js_keys(&data) {
            if secret(key) {
                w.issue(
                    &data_at.key(key),
                    IssueCode::Custom,
                    "a secret answer may not be embedded in a default",
                );
            }
        }
    }
}

pub(crate) fn parse_response(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionResponse> {
    let object = w.object(at, value)?;
    let outcome = outcome_tag(w, at, object)?;
    let id = w
        .string(&at.key("id"), object.get("id"), 1)
        .map(str::to_owned);
    let data = optional_data(w, at, object);
    w.strict(at, object, &["id", "outcome", "data"]);
    Some(InteractionResponse {
        id: id?,
        outcome,
        data: data.ok()?,
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
    let status = w.one_of(&at.key("status"), object.get("status"));
    let message = w.optional(object, "message", |w, v| {
        w.string(&at.key("message"), v, 1).map(str::to_owned)
    });
    let retryable = w.optional(object, "retryable", |w, v| {
        w.boolean(&at.key("retryable"), v)
    });
    w.strict(
        at,
        object,
        &["operationId", "binding", "status", "message", "retryable"],
    );
    let ack = (|| {
        Some(InteractionAcknowledgement {
            operation_id: operation_id?,
            binding: binding?,
            status: status?,
            message: message.ok()?,
            retryable: retryable.ok()?,
        })
    })();
    w.refine(mark, &ack, |w, ack| {
        use InteractionAcknowledgementStatus::{InvalidResponse, TransportFailure};
        if matches!(ack.status, InvalidResponse | TransportFailure) && ack.message.is_none() {
            w.issue(
                &at.key("message"),
                IssueCode::Custom,
                "this status needs a message",
            );
        }
        if ack.status == TransportFailure && ack.retryable.is_none() {
            w.issue(
                &at.key("retryable"),
                IssueCode::Custom,
                "a transport failure must say whether a retry is safe",
            );
        }
    });
    ack
}
