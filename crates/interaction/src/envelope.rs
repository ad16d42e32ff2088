//! The request an agent sends, the response a person returns, and the
//! commands and acknowledgements that carry a response back, as 0.46
//! binds them: a request names the run, provider, environment, session and
//! execution it belongs to and carries a digest of its own content; a
//! command carries the request's digest and a digest of what it delivers.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::data::{
    InteractionData, InteractionOutcome, InteractionResolution, InteractionSubject, outcome_tag,
    parse_resolution, parse_subject, response_data,
};
use crate::digest::Sha256Digest;
use crate::fields::{
    InteractionAnswerSpec, InteractionField, InteractionResponseScope, has_duplicates,
    parse_answer_spec, parse_scopes,
};
use index_js::MAX_SAFE_INTEGER;

use crate::js::js_keys;
use index_js::WireEnum;

use crate::number::wire_enum;
use crate::permissions::InteractionKind;
use crate::resolution::{ResolutionRequest, resolution_problems, resolution_problems_0_44};
use crate::zod::{At, InvalidInteraction, IssueCode, Mark, Walk};

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

/// A typed ask for a person's input, bound to where it was asked and
/// sealed by a digest of its content. Its parts are read-only: a request
/// that exists is valid and its digest matches it. Build one with
/// [`InteractionRequest::from_material`], or read one with
/// `from_json_value`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionRequest {
    #[serde(flatten)]
    pub(crate) material: RequestMaterial,
    pub(crate) request_digest: Sha256Digest,
}

/// Everything a request's digest covers: the request without its digest.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestMaterial {
    #[serde(flatten)]
    pub(crate) members: Members,
    pub(crate) binding: InteractionRequestBinding,
}

/// The members 0.44 and 0.46 requests share, with `allowedOutcomes`,
/// which 0.46 added (always `None` under 0.44).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Members {
    pub(crate) id: String,
    pub(crate) kind: InteractionKind,
    pub(crate) title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<InteractionSubject>,
    pub(crate) answer_spec: InteractionAnswerSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) response_scopes: Option<Vec<InteractionResponseScope>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) allowed_outcomes: Option<Vec<InteractionOutcome>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default: Option<InteractionResolution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) on_timeout: Option<OnTimeout>,
}

impl Members {
    /// What resolving the request reads: its kind, spec and scopes.
    pub(crate) fn asked(&self) -> ResolutionRequest<'_> {
        ResolutionRequest {
            kind: &self.kind,
            answer_spec: &self.answer_spec,
            response_scopes: self.response_scopes.as_deref(),
        }
    }

    /// The default's data keys that answer secret fields, in key order.
    fn secret_default_keys(&self) -> Vec<String> {
        let Some(data) = self.default.as_ref().and_then(|d| d.data.as_ref()) else {
            return Vec::new();
        };
        let data: Map<String, Value> = crate::data::data_to_json(data);
        js_keys(&data)
            .into_iter()
            .filter(|key| {
                matches!(
                    self.answer_spec.field(key),
                    Some(InteractionField::Secret(_))
                )
            })
            .cloned()
            .collect()
    }
}

impl RequestMaterial {
    fn digest(&self) -> Sha256Digest {
        Sha256Digest::of_json(&serde_json::to_value(self).unwrap_or(Value::Null))
    }
}

impl InteractionRequest {
    /// Seals `material` (a request without its `requestDigest`) into a
    /// request: reads it, computes its digest and checks every rule.
    ///
    /// # Errors
    ///
    /// [`InvalidInteraction`] when the material or the request breaks
    /// the contract (a secret answer in the default among them).
    ///
    /// ```
    /// use index_interaction::InteractionRequest;
    /// let request = InteractionRequest::from_material(&serde_json::json!({
    ///     "id": "q-1", "kind": "question", "title": "Lunch?",
    ///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean"}]},
    ///     "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
    ///                 "sessionId": "s-1", "executionId": "x-1", "interactionId": "q-1"},
    /// }))?;
    /// assert!(request.request_digest().as_str().starts_with("sha256:"));
    /// # Ok::<(), index_interaction::InvalidInteraction>(())
    /// ```
    pub fn from_material(material: &Value) -> Result<Self, InvalidInteraction> {
        let digest = interaction_request_digest(material)?;
        let mut sealed = material.as_object().cloned().unwrap_or_default();
        sealed.insert(
            "requestDigest".to_owned(),
            Value::String(digest.as_str().to_owned()),
        );
        Self::from_json_value(&Value::Object(sealed))
    }

    /// Ties the answer to this ask: the response repeats it, and the
    /// binding names it.
    pub fn id(&self) -> &str {
        &self.material.members.id
    }

    /// What it asks for: `question`, `permission`, `plan`, or another
    /// (namespaced, vendor) kind.
    pub fn kind(&self) -> &InteractionKind {
        &self.material.members.kind
    }

    /// A short prompt.
    pub fn title(&self) -> &str {
        &self.material.members.title
    }

    /// Longer context, as Markdown.
    pub fn body(&self) -> Option<&str> {
        self.material.members.body.as_deref()
    }

    /// What the request is about.
    pub fn subject(&self) -> Option<&InteractionSubject> {
        self.material.members.subject.as_ref()
    }

    /// The fields of a valid answer.
    pub fn answer_spec(&self) -> &InteractionAnswerSpec {
        &self.material.members.answer_spec
    }

    /// Where an answer may be reused; absent means this interaction only.
    pub fn response_scopes(&self) -> Option<&[InteractionResponseScope]> {
        self.material.members.response_scopes.as_deref()
    }

    /// The outcomes a response may have; absent means any.
    pub fn allowed_outcomes(&self) -> Option<&[InteractionOutcome]> {
        self.material.members.allowed_outcomes.as_deref()
    }

    /// The resolution applied when unattended.
    pub fn default(&self) -> Option<&InteractionResolution> {
        self.material.members.default.as_ref()
    }

    /// How long to wait for a person, in milliseconds.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.material.members.timeout_ms
    }

    /// What to do when the wait ends.
    pub fn on_timeout(&self) -> Option<OnTimeout> {
        self.material.members.on_timeout
    }

    /// Where the request was asked.
    pub fn binding(&self) -> &InteractionRequestBinding {
        &self.material.binding
    }

    /// The digest of everything above.
    pub fn request_digest(&self) -> &Sha256Digest {
        &self.request_digest
    }

    /// What resolving it reads: its kind, spec and scopes.
    pub(crate) fn asked(&self) -> ResolutionRequest<'_> {
        self.material.members.asked()
    }

    /// The command binding a response to this request carries.
    pub fn command_binding(&self) -> InteractionBinding {
        InteractionBinding {
            request: self.material.binding.clone(),
            request_digest: self.request_digest.clone(),
        }
    }
}

/// The digest of a request's material (a request without its
/// `requestDigest`), after reading it as the contract does.
///
/// # Errors
///
/// [`InvalidInteraction`] when the material breaks its schema, or its
/// default embeds an answer to a secret field.
///
/// ```
/// use index_interaction::interaction_request_digest;
/// let material = serde_json::json!({
///     "id": "q", "kind": "question", "title": "T", "answerSpec": {"fields": []},
///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
///                 "sessionId": "s", "executionId": "x", "interactionId": "q"},
/// });
/// let digest = interaction_request_digest(&material)?;
/// // Key order and number spelling do not change the digest.
/// let respelled: serde_json::Value = serde_json::from_str(
///     r#"{"title": "T", "answerSpec": {"fields": []}, "kind": "question", "id": "q",
///         "binding": {"interactionId": "q", "executionId": "x", "sessionId": "s",
///                     "environmentId": "e", "provider": "p", "runId": "r"}}"#).unwrap();
/// assert_eq!(interaction_request_digest(&respelled)?, digest);
/// # Ok::<(), index_interaction::InvalidInteraction>(())
/// ```
pub fn interaction_request_digest(material: &Value) -> Result<Sha256Digest, InvalidInteraction> {
    let mut walk = Walk::default();
    let at = At::Root;
    let parsed = walk
        .object(&at, Some(material))
        .and_then(|object| parse_material(&mut walk, &at, object, false));
    let material = walk.finish(parsed)?;
    let secret = material.members.secret_default_keys();
    if !secret.is_empty() {
        let mut walk = Walk::default();
        let data_at = at.key("default");
        let data_at = data_at.key("data");
        for key in &secret {
            walk.issue(&data_at.key(key), IssueCode::Custom, SECRET_IN_DEFAULT);
        }
        return Err(walk.fail());
    }
    Ok(material.digest())
}

const SECRET_IN_DEFAULT: &str = "a secret answer may not be embedded in a default";

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

/// Where a request was asked: unique within its run, provider,
/// environment, session and execution.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionRequestBinding {
    /// The run.
    pub run_id: String,
    /// The provider.
    pub provider: String,
    /// The environment.
    pub environment_id: String,
    /// The provider session.
    pub session_id: String,
    /// The execution within the session.
    pub execution_id: String,
    /// The interaction; the request's id.
    pub interaction_id: String,
}

/// What a response command and its acknowledgement are bound to: the
/// request's binding and its digest, so a command for a request that has
/// since changed is recognised as stale.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionBinding {
    /// The request's binding.
    #[serde(flatten)]
    pub request: InteractionRequestBinding,
    /// The request's digest.
    pub request_digest: Sha256Digest,
}

/// A retryable command delivering a response to an environment, sealed by
/// a digest of its binding and response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionResponseCommand {
    /// Idempotency key.
    pub operation_id: String,
    /// Where it goes.
    pub binding: InteractionBinding,
    /// The digest of `{binding, response}`.
    pub command_digest: Sha256Digest,
    /// The response; its id is the binding's interaction id.
    pub response: InteractionResponse,
}

impl InteractionResponseCommand {
    /// A command delivering `response` under `binding`, with its digest.
    ///
    /// ```
    /// use index_interaction::*;
    /// let request = InteractionRequest::from_material(&serde_json::json!({
    ///     "id": "q-1", "kind": "question", "title": "Lunch?",
    ///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean"}]},
    ///     "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
    ///                 "sessionId": "s-1", "executionId": "x-1", "interactionId": "q-1"},
    /// }))?;
    /// let response = validate_interaction_response(
    ///     &request, &serde_json::json!({"id": "q-1", "outcome": "accepted", "data": {"go": true}})).unwrap();
    /// let command = InteractionResponseCommand::new("op-1", request.command_binding(), response);
    /// let wire = serde_json::to_value(&command).unwrap();
    /// assert!(validate_interaction_response_command(&request, &wire).is_ok());
    /// # Ok::<(), InvalidInteraction>(())
    /// ```
    pub fn new(
        operation_id: impl Into<String>,
        binding: InteractionBinding,
        response: InteractionResponse,
    ) -> Self {
        let command_digest = interaction_response_command_digest(&binding, &response);
        InteractionResponseCommand {
            operation_id: operation_id.into(),
            binding,
            command_digest,
            response,
        }
    }
}

/// The digest a response command carries: of `{binding, response}`.
/// [`InteractionResponseCommand::new`] computes it.
pub fn interaction_response_command_digest(
    binding: &InteractionBinding,
    response: &InteractionResponse,
) -> Sha256Digest {
    let material = serde_json::json!({"binding": binding, "response": response});
    Sha256Digest::of_json(&material)
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
    /// The command's digest.
    pub command_digest: Sha256Digest,
    /// How it ended.
    pub status: InteractionAcknowledgementStatus,
    /// Why, for failures (required for `invalid_response` and `transport_failure`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether a retry is safe (required for `transport_failure`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

/// The members 0.44 and 0.46 requests share (and `allowedOutcomes` from
/// 0.46 on), in shape order, without strictness or cross-member rules.
pub(crate) fn parse_members(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> Option<Members> {
    let id = w
        .identifier(&at.key("id"), object.get("id"))
        .map(str::to_owned);
    let kind = w
        .identifier(&at.key("kind"), object.get("kind"))
        .map(InteractionKind::new);
    let title = w
        .string(&at.key("title"), object.get("title"), 1)
        .map(str::to_owned);
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
    let allowed_outcomes = if w.current() {
        w.optional(object, "allowedOutcomes", |w, v| {
            w.list_within(
                &at.key("allowedOutcomes"),
                v,
                1,
                Some(InteractionOutcome::NAMES.len()),
                |w, item_at, item| w.one_of(item_at, Some(item)),
            )
        })
    } else {
        Ok(None)
    };
    let default = w.optional(object, "default", |w, v| {
        parse_resolution(w, &at.key("default"), v)
    });
    let max_timeout = w.current().then_some(MAX_SAFE_INTEGER as u64);
    let timeout_ms = w.optional(object, "timeoutMs", |w, v| {
        w.positive_int(&at.key("timeoutMs"), v, max_timeout)
    });
    let on_timeout = w.optional(object, "onTimeout", |w, v| {
        w.one_of(&at.key("onTimeout"), v)
    });
    Some(Members {
        id: id?,
        kind: kind?,
        title: title?,
        body: body.ok()?,
        subject: subject.ok()?,
        answer_spec: answer_spec?,
        response_scopes: response_scopes.ok()?,
        allowed_outcomes: allowed_outcomes.ok()?,
        default: default.ok()?,
        timeout_ms: timeout_ms.ok()?,
        on_timeout: on_timeout.ok()?,
    })
}

/// A request's members but its digest; with the material's own strictness
/// unless the caller, reading a `sealed` request, checks the keys itself.
fn parse_material(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
    sealed: bool,
) -> Option<RequestMaterial> {
    let members = parse_members(w, at, object);
    let binding = parse_request_binding(w, &at.key("binding"), object.get("binding"));
    if !sealed {
        w.strict(at, object, &request_keys(false));
    }
    Some(RequestMaterial {
        members: members?,
        binding: binding?,
    })
}

/// The keys of the members both versions share.
pub(crate) const MEMBER_KEYS: [&str; 10] = [
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
];

/// A 0.46 request's keys, with `requestDigest` when `sealed`.
fn request_keys(sealed: bool) -> Vec<&'static str> {
    let mut keys = MEMBER_KEYS.to_vec();
    keys.extend(["allowedOutcomes", "binding"]);
    if sealed {
        keys.push("requestDigest");
    }
    keys
}

pub(crate) fn parse_request(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionRequest> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let material = parse_material(w, at, object, true);
    // The reference digests the material by parsing it again, which
    // throws when the material has any problem of its own; the digest is
    // checked only when it has none (see STABILITY.md).
    let digestible = w.spotless_since(mark);
    let digest = w.digest(&at.key("requestDigest"), object.get("requestDigest"));
    w.strict(at, object, &request_keys(true));
    let request = material
        .zip(digest)
        .map(|(material, request_digest)| InteractionRequest {
            material,
            request_digest,
        });
    w.refine(mark, &request, |w, request| {
        refine_request(w, at, request, digestible);
    });
    request
}

fn refine_request(w: &mut Walk, at: &At<'_>, request: &InteractionRequest, digestible: bool) {
    let material = &request.material;
    if material.binding.interaction_id != material.members.id {
        w.issue(
            &at.key("binding").key("interactionId"),
            IssueCode::Custom,
            "the binding must name the request's id",
        );
    }
    let secret = refine_members(w, at, &material.members);
    if secret.is_empty() && digestible && request.request_digest != material.digest() {
        w.issue(
            &at.key("requestDigest"),
            IssueCode::Custom,
            "the digest does not match the request's content",
        );
    }
}

/// The rules across a request's shared members, in the reference's order,
/// as the walk's version has them; returns the default's data keys that
/// answer secret fields (each reported).
pub(crate) fn refine_members(w: &mut Walk, at: &At<'_>, members: &Members) -> Vec<String> {
    let current = w.current();
    if members
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
    if members
        .allowed_outcomes
        .as_deref()
        .is_some_and(has_duplicates)
    {
        w.issue(
            &at.key("allowedOutcomes"),
            IssueCode::Custom,
            "allowed outcomes must be unique",
        );
    }
    let default_at = at.key("default");
    if members.on_timeout == Some(OnTimeout::Default) && members.default.is_none() {
        w.issue(
            &default_at,
            IssueCode::Custom,
            "onTimeout=default needs a default resolution",
        );
    }
    let Some(default) = &members.default else {
        return Vec::new();
    };
    if members
        .allowed_outcomes
        .as_ref()
        .is_some_and(|allowed| !allowed.contains(&default.outcome))
    {
        w.issue(
            &default_at.key("outcome"),
            IssueCode::Custom,
            "the request does not allow the default's outcome",
        );
    }
    let data = default.data.as_ref().map(crate::data::data_to_json);
    let problems = if current {
        resolution_problems(&members.asked(), default.outcome, data.as_ref())
    } else {
        resolution_problems_0_44(&members.asked(), default.outcome, data.as_ref())
    };
    for problem in problems {
        w.issue(&default_at, IssueCode::Custom, problem.to_string());
    }
    // 0.44 looked for secrets in accepted defaults only.
    if !current && default.outcome != InteractionOutcome::Accepted {
        return Vec::new();
    }
    let secret = members.secret_default_keys();
    let data_at = default_at.key("data");
    for key in &secret {
        w.issue(&data_at.key(key), IssueCode::Custom, SECRET_IN_DEFAULT);
    }
    secret
}

pub(crate) fn parse_response(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionResponse> {
    let object = w.object(at, value)?;
    let outcome = outcome_tag(w, at, object)?;
    let id = w
        .identifier(&at.key("id"), object.get("id"))
        .map(str::to_owned);
    let data = response_data(w, at, object);
    w.strict(at, object, &["id", "outcome", "data"]);
    Some(InteractionResponse {
        id: id?,
        outcome,
        data: data.ok()?,
    })
}

/// The six members of a request binding, without strictness.
fn binding_members(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> Option<InteractionRequestBinding> {
    let id = |w: &mut Walk, key: &str| {
        w.identifier(&at.key(key), object.get(key))
            .map(str::to_owned)
    };
    let run_id = id(w, "runId");
    let provider = id(w, "provider");
    let environment_id = id(w, "environmentId");
    let session_id = id(w, "sessionId");
    let execution_id = id(w, "executionId");
    let interaction_id = id(w, "interactionId");
    Some(InteractionRequestBinding {
        run_id: run_id?,
        provider: provider?,
        environment_id: environment_id?,
        session_id: session_id?,
        execution_id: execution_id?,
        interaction_id: interaction_id?,
    })
}

const BINDING_KEYS: [&str; 6] = [
    "runId",
    "provider",
    "environmentId",
    "sessionId",
    "executionId",
    "interactionId",
];

pub(crate) fn parse_request_binding(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionRequestBinding> {
    let object = w.object(at, value)?;
    let binding = binding_members(w, at, object);
    w.strict(at, object, &BINDING_KEYS);
    binding
}

pub(crate) fn parse_binding(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionBinding> {
    let object = w.object(at, value)?;
    let request = binding_members(w, at, object);
    let request_digest = w.digest(&at.key("requestDigest"), object.get("requestDigest"));
    let mut keys = BINDING_KEYS.to_vec();
    keys.push("requestDigest");
    w.strict(at, object, &keys);
    Some(InteractionBinding {
        request: request?,
        request_digest: request_digest?,
    })
}

/// The `operationId`, `binding` and `commandDigest` that commands and
/// acknowledgements share, and whether the binding had no problem at all.
fn operation_binding_digest(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> (
    Option<String>,
    Option<InteractionBinding>,
    bool,
    Option<Sha256Digest>,
) {
    let operation_id = w
        .identifier(&at.key("operationId"), object.get("operationId"))
        .map(str::to_owned);
    let before = w.mark();
    let binding = parse_binding(w, &at.key("binding"), object.get("binding"));
    let binding_clean = w.spotless_since(before);
    let digest = w.digest(&at.key("commandDigest"), object.get("commandDigest"));
    (operation_id, binding, binding_clean, digest)
}

pub(crate) fn parse_response_command(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionResponseCommand> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let (operation_id, binding, binding_clean, command_digest) =
        operation_binding_digest(w, at, object);
    let before = w.mark();
    let response = parse_response(w, &at.key("response"), object.get("response"));
    let digestible = binding_clean && w.spotless_since(before);
    w.strict(
        at,
        object,
        &["operationId", "binding", "commandDigest", "response"],
    );
    let command = (|| {
        Some(InteractionResponseCommand {
            operation_id: operation_id?,
            binding: binding?,
            command_digest: command_digest?,
            response: response?,
        })
    })();
    w.refine(mark, &command, |w, command| {
        if command.binding.request.interaction_id != command.response.id {
            w.issue(
                &at.key("response").key("id"),
                IssueCode::Custom,
                "the response id must be the bound interaction id",
            );
        }
        // As for requests: the reference throws where the binding or the
        // response has a problem of its own, so only then is it unchecked.
        if digestible
            && command.command_digest
                != interaction_response_command_digest(&command.binding, &command.response)
        {
            w.issue(
                &at.key("commandDigest"),
                IssueCode::Custom,
                "the digest does not match the command's binding and response",
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
    let (operation_id, binding, _, command_digest) = operation_binding_digest(w, at, object);
    let report = parse_report(w, at, object);
    w.strict(
        at,
        object,
        &[
            "operationId",
            "binding",
            "commandDigest",
            "status",
            "message",
            "retryable",
        ],
    );
    report.refine(w, mark, at);
    (|| {
        Some(InteractionAcknowledgement {
            operation_id: operation_id?,
            binding: binding?,
            command_digest: command_digest?,
            status: report.status?,
            message: report.message?,
            retryable: report.retryable?,
        })
    })()
}

/// What an acknowledgement reports, the same in 0.44 and 0.46: each
/// member `None` where it failed.
pub(crate) struct Report {
    pub(crate) status: Option<InteractionAcknowledgementStatus>,
    pub(crate) message: Option<Option<String>>,
    pub(crate) retryable: Option<Option<bool>>,
}

pub(crate) fn parse_report(w: &mut Walk, at: &At<'_>, object: &Map<String, Value>) -> Report {
    let status = w.one_of(&at.key("status"), object.get("status"));
    let message = w.optional(object, "message", |w, v| {
        w.string(&at.key("message"), v, 1).map(str::to_owned)
    });
    let retryable = w.optional(object, "retryable", |w, v| {
        w.boolean(&at.key("retryable"), v)
    });
    Report {
        status,
        message: message.ok(),
        retryable: retryable.ok(),
    }
}

impl Report {
    /// The rules a status puts on the message and retryability, the same
    /// in 0.44 and 0.46, run once the acknowledgement marked at `mark` has
    /// read cleanly.
    pub(crate) fn refine(&self, w: &mut Walk, mark: Mark, at: &At<'_>) {
        let (Some(status), Some(message), Some(retryable)) =
            (self.status, &self.message, &self.retryable)
        else {
            return;
        };
        if w.clean_since(mark) {
            refine_acknowledgement(w, at, status, message.is_some(), retryable.is_some());
        }
    }
}

fn refine_acknowledgement(
    w: &mut Walk,
    at: &At<'_>,
    status: InteractionAcknowledgementStatus,
    has_message: bool,
    has_retryable: bool,
) {
    use InteractionAcknowledgementStatus::{InvalidResponse, TransportFailure};
    if matches!(status, InvalidResponse | TransportFailure) && !has_message {
        w.issue(
            &at.key("message"),
            IssueCode::Custom,
            "this status needs a message",
        );
    }
    if status == TransportFailure && !has_retryable {
        w.issue(
            &at.key("retryable"),
            IssueCode::Custom,
            "a transport failure must say whether a retry is safe",
        );
    }
}

crate::contract::schema_type! {
    InteractionResponse => parse_response, true,
    InteractionRequest => parse_request, true,
    InteractionRequestBinding => parse_request_binding, true,
    InteractionBinding => parse_binding, true,
    InteractionResponseCommand => parse_response_command, true,
    InteractionAcknowledgement => parse_acknowledgement, true,
}

crate::contract::shared! {
    InteractionResponse,
}
