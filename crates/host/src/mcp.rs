//! The MCP server negotiator agents connect to: six tools over the same
//! [`Host`] the REST API uses, each acting as the caller the API key names.
//!
//! Over streamable HTTP the caller comes from the request the tool call
//! arrived in (the router authenticated it); over stdio it is fixed when
//! the server starts. Refusals are tool results with `isError` and the
//! error object as structured content, never protocol errors, so an agent
//! reads the rejection code and can act on it.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use index_js::WireEnum;
use index_negotiation::{NEGOTIATION_MAX_TURNS, NEGOTIATION_MESSAGE_LIMIT};
use index_negotiation_store::{OpportunityId, StateFilter};

use crate::error::HostError;
use crate::host::{Host, ListQuery, MAX_PAGE, MAX_WAIT, wait_duration};
use crate::keys::Caller;

/// The MCP server for one connection (stdio) or one request (HTTP).
#[derive(Clone)]
pub struct NegotiatorServer {
    host: Host,
    /// The caller of a stdio server, fixed by its key file.
    caller: Option<Arc<Caller>>,
}

impl std::fmt::Debug for NegotiatorServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NegotiatorServer")
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl NegotiatorServer {
    /// A server whose callers are authenticated per request, by the HTTP
    /// router in front of it.
    pub fn per_request(host: Host) -> Self {
        NegotiatorServer { host, caller: None }
    }

    /// A server that acts as `caller` for every call (stdio, one key).
    pub fn as_caller(host: Host, caller: Caller) -> Self {
        NegotiatorServer {
            host,
            caller: Some(Arc::new(caller)),
        }
    }

    fn caller(&self, context: &RequestContext<RoleServer>) -> Option<Arc<Caller>> {
        self.caller.clone().or_else(|| {
            context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Arc<Caller>>().cloned())
        })
    }

    async fn dispatch(
        &self,
        caller: &Caller,
        name: &str,
        args: &JsonObject,
    ) -> Result<(Written, String), HostError> {
        match name {
            "get_negotiation" => {
                let id = opportunity(args)?;
                let view = match args.get("wait") {
                    None | Some(Value::Null) => self.host.view(caller, &id).await?,
                    Some(wait) => {
                        let seconds = wait.as_f64().unwrap_or(f64::NAN);
                        self.host.wait(caller, &id, wait_duration(seconds)?).await?
                    }
                };
                let summary = match (&view.negotiation.awaiting_user_id, view.negotiation.settled) {
                    (_, true) => format!(
                        "Negotiation {id} is settled ({}).",
                        view.negotiation.status.as_str()
                    ),
                    (Some(who), _) if *who == caller.user_id => format!(
                        "Your turn on {id}: you may {}; {} turns left in this round.",
                        actions(&view.observation.available_actions),
                        view.observation.remaining_turns
                    ),
                    (Some(who), _) => format!("Negotiation {id}: {who} to move."),
                    (None, _) => {
                        format!("Negotiation {id} is paused between rounds; a seat may resume it.")
                    }
                };
                Ok((written(&view)?, summary))
            }
            "submit_negotiation_turn" => {
                let id = opportunity(args)?;
                let turn = json!({ "action": args.get("action"), "message": args.get("message") });
                let taken = self.host.turn(caller, &id, &turn).await?;
                // Sentences count turns from 1; JSON's `turnIndex` from 0.
                let number = taken.decision.permitted().map_or(0, |p| p.turn_index) + 1;
                let summary = format!("Turn {number} taken on {id}.");
                Ok((written(&taken)?, summary))
            }
            "resume_negotiation" => {
                let id = opportunity(args)?;
                let resumed = self.host.resume(caller, &id).await?;
                Ok((
                    written(&resumed)?,
                    format!("Resumed {id}: your seat moves first in the new round."),
                ))
            }
            "list_negotiations" => {
                let query: ListQuery = serde_json::from_value(Value::Object(args.clone()))
                    .map_err(|err| HostError::BadRequest(err.to_string()))?;
                let page = self.host.list(caller, &query.filter()?).await?;
                let summary = match &page.next {
                    Some(cursor) => format!(
                        "{} negotiation(s); more after cursor {cursor}.",
                        page.negotiations.len()
                    ),
                    None => format!("{} negotiation(s).", page.negotiations.len()),
                };
                Ok((written(&page)?, summary))
            }
            "park_negotiation" => {
                let id = opportunity(args)?;
                let mut rest = args.clone();
                rest.remove("opportunityId");
                let request: index_stall_gap::ParkRequest =
                    serde_json::from_value(Value::Object(rest))
                        .map_err(|err| HostError::BadRequest(err.to_string()))?;
                let parked = self.host.park(caller, &id, &request).await?;
                let report = parked.report();
                let summary = match parked.outcome.kind() {
                    index_stall_gap::ParkOutcomeKind::Parked => format!(
                        "Parked {id}: send your person the question message (if their client shows forms, they are asked there too)."
                    ),
                    outcome => format!("Not parked ({}).", outcome.as_str()),
                };
                Ok((written(&report)?, summary))
            }
            "answer_questions" => {
                let body: crate::http::AnswersBody =
                    serde_json::from_value(Value::Object(args.clone()))
                        .map_err(|err| HostError::BadRequest(err.to_string()))?;
                let (block, answers) = body.into_parts()?;
                let report = self.host.answer(caller, &block, &answers).await;
                let summary = format!("{} negotiation(s) resumed.", report.resumed().count());
                Ok((written(&report)?, summary))
            }
            other => Err(HostError::BadRequest(format!(
                "there is no tool named {other:?}"
            ))),
        }
    }
}

fn actions(actions: &[index_negotiation::NegotiationAction]) -> String {
    actions
        .iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A tool's result: its structured content, and the same JSON as text for
/// clients that hand only `content` to a model (the specification's
/// advice), written from the result itself so its fields keep their
/// documented order.
struct Written {
    value: Value,
    text: String,
}

fn written<T: serde::Serialize>(value: &T) -> Result<Written, HostError> {
    let failed = |err: serde_json::Error| {
        HostError::BadRequest(format!("could not write the result: {err}"))
    };
    Ok(Written {
        text: serde_json::to_string(value).map_err(failed)?,
        value: serde_json::to_value(value).map_err(failed)?,
    })
}

fn opportunity(args: &JsonObject) -> Result<OpportunityId, HostError> {
    match args.get("opportunityId").and_then(Value::as_str) {
        Some(id) => OpportunityId::parse(id).map_err(|_| HostError::NotFound),
        None => Err(HostError::BadRequest(
            "opportunityId is required".to_owned(),
        )),
    }
}

fn schema(value: Value) -> Arc<JsonObject> {
    Arc::new(match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    })
}

/// The opportunity id property every tool but the list takes.
fn id_property() -> Value {
    json!({
        "type": "string",
        "description": "The negotiation's opportunity id (a UUID).",
        "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    })
}

/// The six tools, their input schemas stating the limits the rules
/// enforce.
pub fn tools() -> Vec<Tool> {
    TOOLS.clone()
}

/// The tools, built once: every call looks its tool's schema up here.
static TOOLS: std::sync::LazyLock<Vec<Tool>> = std::sync::LazyLock::new(build_tools);

fn build_tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    vec![
        Tool::new(
            "get_negotiation",
            "See a negotiation as your seat does: whose turn it is, the actions you may take, the turns left in this round, the message limit, the guidance negotiators follow, and the log. With wait, returns as soon as it changes or becomes your turn.",
            schema(json!({
                "type": "object",
                "properties": {
                    "opportunityId": id_property(),
                    "wait": {
                        "type": "number", "minimum": 0, "maximum": MAX_WAIT.as_secs(),
                        "description": "Seconds to wait for a change or for your turn before answering."
                    }
                },
                "required": ["opportunityId"],
                "additionalProperties": false
            })),
        )
        .with_title("See a negotiation")
        .with_annotations(read_only.clone()),
        Tool::new(
            "submit_negotiation_turn",
            format!(
                "Take your turn: propose an offer, counter the standing one, accept it, or decline (which ends the round). A round has at most {NEGOTIATION_MAX_TURNS} turns. A refusal names its code (not_your_turn, counter_is_first, …) and changes nothing."
            ),
            schema(json!({
                "type": "object",
                "properties": {
                    "opportunityId": id_property(),
                    "action": { "type": "string", "enum": ["propose", "counter", "accept", "decline"] },
                    "message": {
                        "type": "string", "minLength": 1, "maxLength": NEGOTIATION_MESSAGE_LIMIT,
                        "description": format!("What you say to the other seat: 1 to {NEGOTIATION_MESSAGE_LIMIT} UTF-16 code units once trimmed; stored trimmed.")
                    }
                },
                "required": ["opportunityId", "action", "message"],
                "additionalProperties": false
            })),
        )
        .with_title("Take a turn")
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).idempotent(false).open_world(false)),
        Tool::new(
            "resume_negotiation",
            "Resume a negotiation paused between rounds: your seat moves first in the next round.",
            schema(json!({
                "type": "object",
                "properties": { "opportunityId": id_property() },
                "required": ["opportunityId"],
                "additionalProperties": false
            })),
        )
        .with_title("Resume a negotiation")
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).idempotent(false).open_world(false)),
        Tool::new(
            "park_negotiation",
            "When your negotiation stalled (the round ran out without agreement), ask this host's model for the one question only your person can answer; if it passes the safety gate, the negotiation waits on it and you get the question message to send them.",
            schema(json!({
                "type": "object",
                "properties": {
                    "opportunityId": id_property(),
                    "name": { "type": "string", "description": "Your person's name." },
                    "signalTitle": { "type": "string", "description": "What they look for, in a few words." },
                    "signal": { "type": "string", "description": "What they look for." },
                    "seedReasoning": { "type": "string", "description": "Why the pair was matched (never echoed)." },
                    "counterpartyName": { "type": "string", "description": "The other seat's name (never in the question)." },
                    "network": { "type": "string" }
                },
                "required": ["opportunityId"],
                "additionalProperties": false
            })),
        )
        .with_title("Park on a question for your person")
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).idempotent(false).open_world(true)),
        Tool::new(
            "answer_questions",
            "Deliver your person's answers to a question message: each question's negotiations get the answer on record and resume with your seat to move, each exactly once; the report says what happened to each.",
            schema(json!({
                "type": "object",
                "properties": {
                    "message": { "type": "string", "description": "The question message as the person received it." },
                    "block": { "type": "object", "description": "Or its question block." },
                    "answers": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": { "type": "integer", "minimum": 0, "description": "The question's position in the block, from 0." },
                                "answer": { "type": "string", "minLength": 1, "maxLength": 4000, "description": "The person's answer: 1 to 4000 UTF-16 code units once trimmed; a blank one is refused." }
                            },
                            "required": ["question", "answer"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["answers"],
                "additionalProperties": false
            })),
        )
        .with_title("Deliver your person's answers")
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).idempotent(true).open_world(false)),
        Tool::new(
            "list_negotiations",
            "List the negotiations where you hold a seat, newest change first, a page at a time: pass the result's nextCursor as cursor for the next page.",
            schema(json!({
                "type": "object",
                "properties": {
                    "state": { "type": "string", "enum": StateFilter::NAMES },
                    "intentId": { "type": "string", "minLength": 1, "description": "Only those where your seat negotiates for this intent." },
                    "with": { "type": "string", "minLength": 1, "description": "Only those with this user in the other seat." },
                    "limit": { "type": "integer", "minimum": 1, "maximum": MAX_PAGE, "description": "At most this many (default 50)." },
                    "cursor": { "type": "string", "description": "The nextCursor of the page before." }
                },
                "additionalProperties": false
            })),
        )
        .with_title("List your negotiations")
        .with_annotations(read_only),
    ]
}

impl ServerHandler for NegotiatorServer {
    /// The default handshake, and a session whose client advertised
    /// elicitation is remembered as one that can put a parked question to
    /// its person (see `crate::elicit`).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        if request.capabilities.elicitation.is_some()
            && let Some(caller) = self.caller(&context)
        {
            self.host
                .register_elicitor(&caller.user_id, context.peer.clone());
        }
        self.negotiate_initialize(&request)
    }

    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("index-host", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Negotiate for your user: find negotiations with list_negotiations, read one with get_negotiation \
                 (use wait instead of polling), act with submit_negotiation_turn or resume_negotiation. When a \
                 negotiation stalls, park_negotiation asks your person one question; answer_questions delivers \
                 their answers. You act only as your own seat.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(caller) = self.caller(&context) else {
            return Ok(failure(&HostError::Unauthorized).into());
        };
        let args = request.arguments.unwrap_or_default();
        let checked = match unknown_argument(&request.name, &args) {
            Some(key) => Err(HostError::BadRequest(format!(
                "{} takes no argument {key:?}",
                request.name
            ))),
            None => self.dispatch(&caller, &request.name, &args).await,
        };
        let result = match checked {
            Ok((written, summary)) => {
                let mut result = CallToolResult::success(vec![
                    ContentBlock::text(written.text),
                    ContentBlock::text(summary),
                ]);
                result.structured_content = Some(written.value);
                result
            }
            Err(err) => {
                tracing::info!(user = %caller.user_id, tool = %request.name, code = err.code(), "refused");
                failure(&err)
            }
        };
        Ok(result.into())
    }
}

/// The first argument `tool`'s input schema does not define, when the
/// schema allows no others (every tool's does): what the schema refuses is
/// refused, never ignored.
fn unknown_argument<'a>(tool: &str, args: &'a JsonObject) -> Option<&'a str> {
    let schema = &TOOLS
        .iter()
        .find(|candidate| candidate.name == tool)?
        .input_schema;
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let known = schema.get("properties").and_then(Value::as_object);
    args.keys()
        .find(|key| !known.is_some_and(|known| known.contains_key(key.as_str())))
        .map(String::as_str)
}

/// A tool error carrying the error object.
fn failure(err: &HostError) -> CallToolResult {
    if let HostError::Store(cause) = err {
        tracing::error!(error = %index_negotiation_store::ErrorChain(cause), "store failed");
    }
    let body = err.body();
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{} ({})",
        body.error.message, body.error.code
    ))]);
    result.structured_content = serde_json::to_value(&body).ok();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_title_and_says_how_it_acts() {
        for tool in tools() {
            assert!(
                tool.title.as_deref().is_some_and(|t| !t.is_empty()),
                "{}",
                tool.name
            );
            let hints = tool
                .annotations
                .as_ref()
                .unwrap_or_else(|| panic!("{}", tool.name));
            for hint in [
                hints.read_only_hint,
                hints.destructive_hint,
                hints.idempotent_hint,
                hints.open_world_hint,
            ] {
                assert!(hint.is_some(), "{}: every hint is stated", tool.name);
            }
        }
    }

    #[test]
    fn every_tool_refuses_an_argument_its_schema_does_not_define() {
        for tool in tools() {
            assert_eq!(
                tool.input_schema.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{}",
                tool.name
            );
        }
        let args = |value: Value| value.as_object().cloned().unwrap_or_default();
        assert_eq!(
            unknown_argument(
                "get_negotiation",
                &args(json!({"opportunityId": "x", "extra": 1}))
            ),
            Some("extra")
        );
        assert_eq!(
            unknown_argument(
                "get_negotiation",
                &args(json!({"opportunityId": "x", "wait": 5}))
            ),
            None
        );
        assert_eq!(
            unknown_argument(
                "submit_negotiation_turn",
                &args(
                    json!({"opportunityId": "x", "action": "propose", "message": "m", "urgent": true})
                )
            ),
            Some("urgent")
        );
    }
}
