//! The MCP server negotiator agents connect to: seventeen tools over the
//! same [`Host`] the REST API uses, each acting as the caller the API key
//! names: eight for negotiations, four for the interactions an agent asks
//! its person and the person answers (`interactions`), five for the
//! webhook endpoints that tell of them (`webhooks`).
//! Each tool is one `#[tool]` function: its name, description, hints and
//! schemas beside its handler, its arguments a type that states its input
//! schema (rmcp makes it) and its result a type that states its output
//! schema (made in `crate::service::schema`).
//!
//! Over streamable HTTP the caller comes from the request the tool call
//! arrived in (the router authenticated it); over stdio it is fixed when
//! the server starts. Refusals are tool results with `isError` whose first
//! block is the error object as JSON (see `failure` for why it is not
//! structured content), never protocol errors, so an agent reads the
//! rejection code and can act on it.
//!
//! | module | holds |
//! |---|---|
//! | `interactions` | the interaction tools: ask your person, see one, list them, answer one |
//! | `webhooks` | the webhook tools: register, list, remove, rotate a secret, replay |
//! | `interaction_forms` | a pending interaction put to its person's current client through `input_required`, the retry's answer a response command |
//! | `state` | what MCP keeps beside a host: sessions that show forms, outstanding asks, tasks |
//! | `elicit` | a parked question put to its person's MCP client as a form |
//! | `input` | the same form for current clients, through `input_required`: outstanding asks, single use |
//! | `resources` | the caller's negotiations as MCP resources, and word when one changes (listen, subscribe) |
//! | `tasks` | long calls as MCP tasks (a wait, a park): each its caller's, asking through itself, bounded per person |
//! | `gate` | in front of rmcp: the `/mcp` body read to the limit, rmcp's plain-text refusals in the error shape |
//! | `keep_alive` | an MCP answer rmcp is slow to start, held on an event stream that keeps talking |
//! | `sessions` | MCP sessions bounded per key and in all, the least recently used closed first |
//! | `conformance` | the official conformance suite's fixtures beside the tools (the `conformance` feature, for its test server only) |

#[cfg(feature = "conformance")]
pub(crate) mod conformance;
pub(crate) mod elicit;
pub(crate) mod gate;
pub(crate) mod input;
pub(crate) mod interaction_forms;
pub(crate) mod interactions;
pub(crate) mod keep_alive;
pub(crate) mod resources;
pub(crate) mod sessions;
pub(crate) mod state;
pub(crate) mod tasks;
pub(crate) mod webhooks;

use std::future::Future;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tracing::Instrument;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState, ToolCallContext};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    ContentBlock, CreateTaskResult, CustomRequest, CustomResult, ElicitResult, ErrorCode,
    GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams, InitializeResult,
    InputRequiredResult, JsonObject, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, SubscribeRequestParams,
    SubscriptionFilter, Task, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use index_negotiation::{NEGOTIATION_MAX_TURNS, NegotiationAction, NegotiationTurn};
use index_negotiation_store::{DeliveryReport, NegotiationPage, OpportunityId};
use index_question_block::StructuredQuestion;
use index_stall_gap::{ParkOutcomeKind, ParkReport, ParkRequest};

use crate::mcp::elicit::{Form, Offered};
use crate::mcp::input::RequestDigest;
use crate::mcp::state::{McpState, answer_form};
use crate::mcp::tasks::InTask;
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::schema::{Contract, plain, tool_schema};
use crate::service::trace_context::TraceContext;
use crate::service::wire::{AnswersBody, Changed, CloseBody, OpenBody, TurnBody};
use crate::service::wire::{
    ListQuery, MAX_WAIT, NegotiationView, Resumed, TurnTaken, wait_duration,
};

/// The MCP server for one connection (stdio) or one session (HTTP).
#[derive(Clone)]
pub struct NegotiatorServer {
    tools: Tools,
    /// An older client's resource subscriptions, for this session.
    subscriptions: crate::mcp::resources::Subscriptions,
}

impl std::fmt::Debug for NegotiatorServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NegotiatorServer")
            .field("caller", &self.tools.caller)
            .finish_non_exhaustive()
    }
}

impl NegotiatorServer {
    /// A server whose callers are authenticated per request, by the HTTP
    /// router in front of it.
    pub fn per_request(host: Host) -> Self {
        NegotiatorServer {
            tools: Tools { host, caller: None },
            subscriptions: Default::default(),
        }
    }

    /// A server that acts as `caller` for every call (stdio, one key).
    pub fn as_caller(host: Host, caller: Caller) -> Self {
        NegotiatorServer {
            tools: Tools {
                host,
                caller: Some(Arc::new(caller)),
            },
            subscriptions: Default::default(),
        }
    }
}

/// The tools over one host, as one caller. A private type, so the
/// functions `#[tool_router]` writes stay out of the crate's API.
#[derive(Clone)]
struct Tools {
    host: Host,
    /// The caller of a stdio server, fixed by its key file.
    caller: Option<Arc<Caller>>,
}

/// The tools, built once from their definitions below.
static ROUTER: LazyLock<ToolRouter<Tools>> =
    LazyLock::new(|| Tools::tool_router() + interactions::router() + webhooks::router());

/// The tools as `tools/list` shows them, in name order. rmcp made their
/// input schemas from the arguments' types; they are made plain here, as
/// the output schemas are when they are made.
static LISTED: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut tools = ROUTER.list_all();
    for tool in &mut tools {
        let mut schema = serde_json::Value::Object(tool.input_schema.as_ref().clone());
        plain(&mut schema);
        if let serde_json::Value::Object(schema) = schema {
            tool.input_schema = Arc::new(schema);
        }
    }
    tools
});

/// The tools only a host key may call.
const HOST_ONLY: &[&str] = &["open_negotiation", "close_negotiation"];

/// Every tool, as `tools/list` shows them to a host key, in name order.
pub fn tools() -> Vec<Tool> {
    LISTED.clone()
}

/// A tool's answer: its JSON (the structured content, and the same JSON as
/// text for clients that hand only `content` to a model, as the
/// specification advises) and a sentence for people.
struct Reply {
    value: serde_json::Value,
    text: String,
    summary: String,
}

impl Reply {
    /// `value` written once as text, so its fields keep their documented
    /// order, and once as the structured content.
    fn new<T: serde::Serialize>(value: &T, summary: String) -> Result<Self, HostError> {
        let failed = |err: serde_json::Error| {
            HostError::BadRequest(format!("could not write the result: {err}"))
        };
        Ok(Reply {
            text: serde_json::to_string(value).map_err(failed)?,
            value: serde_json::to_value(value).map_err(failed)?,
            summary,
        })
    }
}

/// What a tool call answers: its reply, or (to a current client) a form
/// its person must fill in first, the call to be retried with the answer.
enum Answer {
    Reply(Reply),
    Ask(InputRequiredResult),
}

impl From<Reply> for Answer {
    fn from(reply: Reply) -> Self {
        Answer::Reply(reply)
    }
}

/// How a call can put the caller's person's parked question to them,
/// besides the question message (and the form pushed to an older
/// client's session, `crate::mcp::elicit`).
enum Asking {
    /// It cannot: the client shows no forms, or speaks an older protocol.
    No,
    /// The call answers with the form, `input_required`, and the client's
    /// retry of this request carries the answer (`crate::mcp::input`).
    ByRetry(RequestDigest),
    /// The call runs as a task: it asks through the task and waits for
    /// the answer (`crate::mcp::tasks`).
    InTask(InTask),
}

impl Asking {
    /// How this call can ask: a client that shows forms is asked through
    /// the task its call runs as, or else, when it speaks 2026-07-28 or
    /// later (no sessions, so no form can be pushed to it), through
    /// `input_required`.
    fn of(context: &RequestContext<RoleServer>) -> Asking {
        let forms = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        let current = speaks_current(context);
        match context.extensions.get::<InTask>() {
            _ if !forms => Asking::No,
            Some(task) => Asking::InTask(task.clone()),
            None if current => Asking::ByRetry(request_digest(context)),
            None => Asking::No,
        }
    }

    fn can(&self) -> bool {
        !matches!(self, Asking::No)
    }

    /// Puts `question`, parked on `id` for the caller's person, to them
    /// the way this call can (with `report`, what a park that asks did,
    /// for a retry to answer again).
    async fn ask(
        &self,
        host: &Host,
        caller: &Caller,
        id: &OpportunityId,
        question: &StructuredQuestion,
        report: Option<ParkReport>,
    ) -> Asked {
        match self {
            Asking::ByRetry(request) => {
                let asked =
                    McpState::ask_for_answer(host, caller, id, question, *request, report.as_ref())
                        .await;
                match asked {
                    Some(asked) => Asked::Retry(asked),
                    None => Asked::Not,
                }
            }
            Asking::InTask(task) => {
                Asked::InTask(ask_in_task(task, host, caller, id, question).await)
            }
            Asking::No => Asked::Not,
        }
    }
}

/// How a call put a parked question to its person.
enum Asked {
    /// Not at all: it waits on its question message.
    Not,
    /// As the call's answer; the retry carries the person's.
    Retry(InputRequiredResult),
    /// Through the call's task, with what the person's answer did.
    InTask(Offered),
}

/// Puts `question`, parked on `id` for the caller's person, to them
/// through the task the call runs as, and delivers their answer. The ask
/// ends when they answer, when the question is answered another way, or
/// after the ask-user window.
async fn ask_in_task(
    task: &InTask,
    host: &Host,
    caller: &Caller,
    id: &OpportunityId,
    question: &StructuredQuestion,
) -> Offered {
    let Some(form) = Form::of(&caller.user_id, id, question) else {
        return Offered::NoAnswer;
    };
    let answer = tokio::select! {
        answer = task.ask(&form) => answer,
        () = host.until_unparked(caller, id, question) => return Offered::Overtaken,
        () = tokio::time::sleep(host.ask_user_window()) => None,
    };
    let Some(result) =
        answer.and_then(|answer| serde_json::from_value::<ElicitResult>(answer).ok())
    else {
        return Offered::NoAnswer;
    };
    tracing::info!(user = ?caller.user_id.as_str(), "a parked question answered through a task");
    // Delivered whole on a task of its own, even if the call's task is
    // cancelled while it commits.
    let host = host.clone();
    // The answer came in a later request of the task's, not the call's.
    let actor = caller.actor_outside_request();
    tokio::spawn(async move { answer_form(&host, &form, &result, &actor).await })
        .await
        .unwrap_or(Offered::NoAnswer)
}

/// The arguments of a tool that acts on one negotiation: its id beside the
/// tool's own arguments, which refuse any key they do not define.
#[derive(Debug)]
struct OnNegotiation<T> {
    id: OpportunityId,
    args: T,
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OnNegotiation<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut object = JsonObject::deserialize(deserializer)?;
        let id = object
            .remove("opportunityId")
            .ok_or_else(|| D::Error::missing_field("opportunityId"))?;
        Ok(OnNegotiation {
            id: OpportunityId::deserialize(id).map_err(D::Error::custom)?,
            args: T::deserialize(serde_json::Value::Object(object)).map_err(D::Error::custom)?,
        })
    }
}

impl<T: JsonSchema> JsonSchema for OnNegotiation<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("OnNegotiation_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = T::json_schema(generator);
        let id = generator.subschema_for::<OpportunityId>();
        if let Some(properties) = schema
            .ensure_object()
            .entry("properties")
            .or_insert_with(|| serde_json::Value::Object(JsonObject::new()))
            .as_object_mut()
        {
            properties.insert("opportunityId".to_owned(), id.to_value());
        }
        let required = schema
            .ensure_object()
            .entry("required")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let Some(required) = required.as_array_mut() {
            required.insert(0, "opportunityId".into());
        }
        schema
    }
}

/// `get_negotiation`'s own argument.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct See {
    /// Seconds to wait for a change or for your turn before answering.
    #[schemars(range(min = 0, max = crate::service::wire::MAX_WAIT.as_secs()))]
    wait: Option<f64>,
}

/// A tool that takes nothing but the negotiation's id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nothing {}

/// A tool's output schema: what its result's `Serialize` writes.
fn output<T: JsonSchema>() -> Arc<JsonObject> {
    tool_schema::<T>(Contract::Writes)
}

#[tool_router]
impl Tools {
    #[tool(
        name = "get_negotiation",
        title = "See a negotiation",
        description = "See a negotiation as your seat does: whose turn it is, the actions you may take, the turns left in this round, the message limit, the guidance negotiators follow, and the log. With wait, returns as soon as it changes or becomes your turn.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<NegotiationView>()
    )]
    async fn get_negotiation(
        &self,
        Parameters(OnNegotiation { id, args }): Parameters<OnNegotiation<See>>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "get_negotiation", async |host, caller| {
            // A current client's retry carries its person's answer.
            let request = request_digest(&context);
            let answered = McpState::answer_asked(
                host,
                &caller,
                &id,
                request,
                state.as_deref(),
                responses.as_ref(),
            )
            .await;
            // A wait that finds the negotiation parked on the caller's
            // person's question asks them, if their client can be asked,
            // and has not just been answered (a decline is an answer).
            let asking = match args.wait {
                Some(_) if answered.is_none() => Asking::of(&context),
                _ => Asking::No,
            };
            let mut view = match args.wait {
                None => host.view(&caller, &id).await?,
                Some(seconds) => {
                    let wait = wait_duration(seconds)?;
                    // Parked already: asked at once rather than after the
                    // wait (only a client that can be asked reads first).
                    let first = if asking.can() {
                        Some(host.view(&caller, &id).await?)
                    } else {
                        None
                    };
                    match first {
                        Some(view) if view.parked.is_some() => view,
                        _ => with_progress(&context, wait, host.wait(&caller, &id, wait)).await?,
                    }
                }
            };
            if let Some(parked) = &view.parked {
                match asking.ask(host, &caller, &id, &parked.question, None).await {
                    Asked::Retry(asked) => return Ok(Answer::Ask(asked)),
                    // Answered or not, the negotiation as it is now.
                    Asked::InTask(_) => view = host.view(&caller, &id).await?,
                    Asked::Not => {}
                }
            }
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
            Reply::new(&view, summary).map(Answer::from)
        })
        .await
    }

    #[tool(
        name = "submit_negotiation_turn",
        title = "Take a turn",
        description = format!("Take your turn: propose an offer, counter the standing one, accept it, or decline (which ends the round). A round has at most {NEGOTIATION_MAX_TURNS} turns. A refusal names its code (not_your_turn, counter_is_first, …) and changes nothing."),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false),
        output_schema = output::<TurnTaken>()
    )]
    async fn submit_negotiation_turn(
        &self,
        Parameters(OnNegotiation { id, args }): Parameters<OnNegotiation<TurnBody>>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "submit_negotiation_turn", async |host, caller| {
            let turn = NegotiationTurn::new(args.action, args.message);
            let taken = host.turn(&caller, &id, turn).await?;
            // Sentences count turns from 1; JSON's `turnIndex` from 0.
            let number = taken.decision.permitted().map_or(0, |p| p.turn_index) + 1;
            Reply::new(&taken, format!("Turn {number} taken on {id}."))
        })
        .await
    }

    #[tool(
        name = "resume_negotiation",
        title = "Resume a negotiation",
        description = "Resume a negotiation paused between rounds: your seat moves first in the next round.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false),
        output_schema = output::<Resumed>()
    )]
    async fn resume_negotiation(
        &self,
        Parameters(OnNegotiation {
            id,
            args: Nothing {},
        }): Parameters<OnNegotiation<Nothing>>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "resume_negotiation", async |host, caller| {
            let resumed = host.resume(&caller, &id).await?;
            Reply::new(
                &resumed,
                format!("Resumed {id}: your seat moves first in the new round."),
            )
        })
        .await
    }

    #[tool(
        name = "park_negotiation",
        title = "Park on a question for your person",
        description = "When your negotiation stalled (the round ran out without agreement), ask this host's model for the one question only your person can answer; if it passes the safety gate, the negotiation waits on it and you get the question message to send them.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true),
        output_schema = output::<ParkReport>()
    )]
    async fn park_negotiation(
        &self,
        Parameters(OnNegotiation { id, args }): Parameters<OnNegotiation<ParkRequest>>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "park_negotiation", async |host, caller| {
            // The retry of a park that asked its person: the park is done,
            // and the answer it carries is delivered.
            let request = request_digest(&context);
            if let Some((offered, Some(report))) = McpState::answer_asked(
                host,
                &caller,
                &id,
                request,
                state.as_deref(),
                responses.as_ref(),
            )
            .await
            {
                return Reply::new(&report, asked_summary(&id, &offered)).map(Answer::from);
            }
            let parked = host.park(&caller, &id, &args).await?;
            let report = parked.report();
            if let index_stall_gap::ParkOutcome::Parked { gap, .. } = &parked.outcome {
                let asking = Asking::of(&context);
                match asking.ask(host, &caller, &id, &gap.question, Some(report.clone())).await {
                    Asked::Retry(asked) => return Ok(Answer::Ask(asked)),
                    Asked::InTask(offered) => {
                        return Reply::new(&report, asked_summary(&id, &offered)).map(Answer::from);
                    }
                    Asked::Not => {}
                }
            }
            let summary = match parked.outcome.kind() {
                ParkOutcomeKind::Parked => format!(
                    "Parked {id}: send your person the question message (if their client shows forms, they are asked there too)."
                ),
                outcome => format!("Not parked ({}).", outcome.as_str()),
            };
            Reply::new(&report, summary).map(Answer::from)
        })
        .await
    }

    #[tool(
        name = "answer_questions",
        title = "Deliver your person's answers",
        description = "Deliver your person's answers to a question message: each question's negotiations get the answer on record and resume with your seat to move, each exactly once; the report says what happened to each.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<DeliveryReport>()
    )]
    async fn answer_questions(
        &self,
        Parameters(body): Parameters<AnswersBody>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "answer_questions", async |host, caller| {
            let (block, answers) = body.into_parts()?;
            let report = host.answer(&caller, &block, &answers).await;
            let summary = format!("{} negotiation(s) resumed.", report.resumed().count());
            Reply::new(&report, summary)
        })
        .await
    }

    #[tool(
        name = "list_negotiations",
        title = "List your negotiations",
        description = "List the negotiations where you hold a seat, newest change first, a page at a time: pass the result's nextCursor as cursor for the next page.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<NegotiationPage>()
    )]
    async fn list_negotiations(
        &self,
        Parameters(query): Parameters<ListQuery>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "list_negotiations", async |host, caller| {
            let page = host.list(&caller, &query.filter()?).await?;
            let summary = match &page.next {
                Some(cursor) => format!(
                    "{} negotiation(s); more after cursor {cursor}.",
                    page.negotiations.len()
                ),
                None => format!("{} negotiation(s).", page.negotiations.len()),
            };
            Reply::new(&page, summary)
        })
        .await
    }

    #[tool(
        name = "open_negotiation",
        title = "Open a negotiation",
        description = "Open a negotiation on an opportunity between two seats, the initiator to move first (host keys only). Opening one that exists with the same seats changes nothing.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<Changed>()
    )]
    async fn open_negotiation(
        &self,
        Parameters(body): Parameters<OpenBody>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "open_negotiation", async |host, caller| {
            let opened = host.open(&caller, &body.checked()?).await?;
            let summary = format!(
                "Opened {}: {} to move.",
                opened.id, opened.initiator.user_id
            );
            Reply::new(
                &Changed {
                    negotiation: opened,
                },
                summary,
            )
        })
        .await
    }

    #[tool(
        name = "close_negotiation",
        title = "Close a negotiation",
        description = "Close a negotiation that has not settled, for a reason (host keys only): no seat may move after.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<Changed>()
    )]
    async fn close_negotiation(
        &self,
        Parameters(OnNegotiation { id, args }): Parameters<OnNegotiation<CloseBody>>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "close_negotiation", async |host, caller| {
            let closed = host.close(&caller, &id, args.reason).await?;
            let summary = format!("Closed {id} ({}).", args.reason.as_str());
            Reply::new(
                &Changed {
                    negotiation: closed,
                },
                summary,
            )
        })
        .await
    }
}

impl Tools {
    /// The caller, or the protocol error a request without one gets (the
    /// router authenticates every HTTP request first, so only a
    /// misconfigured server meets it).
    fn caller_or_refuse(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Arc<Caller>, ErrorData> {
        self.caller(context)
            .ok_or_else(|| ErrorData::invalid_request(HostError::Unauthorized.to_string(), None))
    }

    fn caller(&self, context: &RequestContext<RoleServer>) -> Option<Arc<Caller>> {
        self.caller.clone().or_else(|| {
            context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Arc<Caller>>().cloned())
        })
    }

    /// Runs one tool as the caller: its answer as a result (or a form to
    /// fill in first), or its refusal as a tool error the agent can read
    /// and act on.
    async fn run<F, A>(
        &self,
        context: &RequestContext<RoleServer>,
        tool: &str,
        act: F,
    ) -> CallToolResponse
    where
        F: AsyncFnOnce(&Host, Arc<Caller>) -> Result<A, HostError>,
        A: Into<Answer>,
    {
        let Some(caller) = self.caller(context) else {
            return failure(&HostError::Unauthorized).into();
        };
        let user = caller.user_id.clone();
        match act(&self.host, caller).await.map(Into::into) {
            Ok(Answer::Reply(reply)) => {
                let mut result = CallToolResult::success(vec![
                    ContentBlock::text(reply.text),
                    ContentBlock::text(reply.summary),
                ]);
                result.structured_content = Some(reply.value);
                result.into()
            }
            Ok(Answer::Ask(ask)) => {
                tracing::info!(user = ?user.as_str(), tool, "asked the person through input_required");
                CallToolResponse::InputRequired(ask)
            }
            Err(err) => {
                tracing::info!(user = ?user.as_str(), tool, code = err.code(), "refused");
                failure(&err).into()
            }
        }
    }
}

/// How often a wait tells a client that asked for progress that it is
/// still waiting: well inside the shortest common request timeout.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// Runs `work` (a wait of up to `wait`), and while it runs, when the
/// request carried a `progressToken`, sends a progress notification every
/// [`PROGRESS_EVERY`]: a client that resets its timeout on progress then
/// waits as long as the host does, whatever its own timeout.
async fn with_progress<T>(
    context: &RequestContext<RoleServer>,
    wait: Duration,
    work: impl Future<Output = T>,
) -> T {
    // A task's call was answered already: its client polls the task.
    let token = context.meta.get_progress_token();
    let Some(token) = token.filter(|_| context.extensions.get::<InTask>().is_none()) else {
        return work.await;
    };
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    tokio::pin!(work);
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = ticks.tick() => {
                let progress = ProgressNotificationParam::new(
                    token.clone(),
                    started.elapsed().as_secs_f64().floor(),
                )
                .with_total(wait.as_secs_f64())
                .with_message("Still waiting for a change or your turn.");
                // A client gone away is the wait's own business: the wait
                // ends on its own deadline.
                let _ = context.peer.notify_progress(progress).await;
            }
        }
    }
}

/// What a park that asked its person says of their answer.
fn asked_summary(id: &OpportunityId, offered: &Offered) -> String {
    match offered {
        Offered::Answered(report) => format!(
            "Parked {id}, and your person answered: {} negotiation(s) resumed.",
            report.resumed().count()
        ),
        Offered::Overtaken => format!("Parked {id}, and the question was answered another way."),
        _ => {
            format!("Parked {id}; your person did not answer, so it waits on the question message.")
        }
    }
}

fn actions(actions: &[NegotiationAction]) -> String {
    actions
        .iter()
        .map(|a| a.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The MCP requests the host answers (those in [`BEFORE_CURRENT`] to
/// older clients only).
const SERVED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// The methods the current protocol (2026-07-28) removed: the host serves
/// them to older sessions, and a request in the current protocol's style
/// whose parameters are not the older method's names a method that does
/// not exist there (404 and "method not found"). rmcp refuses a
/// well-formed `ping` or subscription there itself, and takes a
/// well-formed `initialize` to start an older session.
const BEFORE_CURRENT: &[&str] = &[
    "initialize",
    "ping",
    "resources/subscribe",
    "resources/unsubscribe",
];

// `crate::mcp::conformance::ConformanceServer` hands each of these to this
// server by name: a method overridden here is overridden there too.
impl ServerHandler for NegotiatorServer {
    /// The default handshake, and a session whose client advertised
    /// elicitation is remembered as one that can put a parked question to
    /// its person (see `crate::mcp::elicit`).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        if request.capabilities.elicitation.is_some()
            && let Some(caller) = self.tools.caller(&context)
        {
            McpState::of(&self.tools.host).register_elicitor(&caller, context.peer.clone());
        }
        self.negotiate_initialize(&request)
    }

    /// A request rmcp could not read as the method it names arrives here
    /// as a custom one: for a method the host serves, its parameters have
    /// the wrong shape, which is "invalid params", not an unknown method.
    /// A method the request's own protocol removed is unknown to it.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        let removed = carries_request_metadata(&context) && BEFORE_CURRENT.contains(&method);
        if SERVED_METHODS.contains(&method) && !removed {
            return Err(ErrorData::invalid_params(
                format!("the parameters of {} do not have its shape", request.method),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }

    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        InitializeResult::new(capabilities)
            .with_server_info(Implementation::new("index-host", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Negotiate for your user: find negotiations with list_negotiations, read one with get_negotiation \
                 (use wait instead of polling), act with submit_negotiation_turn or resume_negotiation. When a \
                 negotiation stalls, park_negotiation asks your person one question; answer_questions delivers \
                 their answers. You act only as your own seat. A host key also opens and closes negotiations \
                 (open_negotiation, close_negotiation). Each of your negotiations is also a resource \
                 (index://negotiations/{opportunityId}); subscribe to one to hear when it changes.",
            )
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        crate::mcp::resources::list(&self.tools.host, &caller, request).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(crate::mcp::resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        crate::mcp::resources::read(&self.tools.host, &caller, &request.uri)
            .await
            .map(ReadResourceResponse::Complete)
    }

    /// The negotiations a current client may listen to: well-formed URIs
    /// of ours, the first `MOST_WATCHED` of them (whether the caller holds
    /// a seat is checked as it listens).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| crate::mcp::resources::negotiation(uri).is_some())
            .take(crate::mcp::resources::MOST_WATCHED)
            .cloned()
            .collect();
        Some(
            SubscriptionFilter::builder()
                .resource_subscriptions(uris)
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let caller = self.tools.caller_or_refuse(context.request_context())?;
        crate::mcp::resources::listen(&self.tools.host, &caller, context).await
    }

    #[allow(deprecated)] // the older clients' way, kept beside `listen`
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        self.subscriptions
            .subscribe(&self.tools.host, &caller, context.peer.clone(), request.uri)
            .await
    }

    #[allow(deprecated)] // the older clients' way, kept beside `listen`
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    /// The tools the caller may call: an agent key is not offered the two
    /// that need a host key (called anyway, they are refused `forbidden`).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let host = self
            .tools
            .caller(&context)
            .is_some_and(|caller| caller.scope == index_negotiation_store::KeyScope::Host);
        let offered = LISTED
            .iter()
            .filter(|tool| host || !HOST_ONLY.contains(&tool.name.as_ref()))
            .cloned()
            .collect();
        Ok(ListToolsResult::with_all_items(offered)
            .with_ttl_ms(LISTS_THAT_LAST_MS)
            .with_cache_scope(CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        LISTED.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        context
            .extensions
            .insert(RequestDigest::of(&request.name, request.arguments.as_ref()));
        let span = tracing::info_span!("tool call", tool = ?request.name.as_ref());
        trace_context(&context).continue_in(&span);
        async move {
            if let Some(task) = self.tools.as_task(&request, &context).await {
                return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
            }
            self.tools.call(request, context).await
        }
        .instrument(span)
        .await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        let host = &self.tools.host;
        McpState::of(host)
            .tasks()
            .get(host, &caller.user_id, &request.task_id)
            .await
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        let host = &self.tools.host;
        McpState::of(host)
            .tasks()
            .update(
                host,
                &caller.user_id,
                &request.task_id,
                request.input_responses,
            )
            .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.tools.caller_or_refuse(&context)?;
        let host = &self.tools.host;
        McpState::of(host)
            .tasks()
            .cancel(host, &caller.user_id, &request.task_id)
            .await
    }
}

/// The trace a tool call continues: the one its `_meta` names, else (none
/// named, or not a valid one) the one its HTTP request's headers name (the
/// MCP service runs the call apart from the request's own span).
fn trace_context(context: &RequestContext<RoleServer>) -> TraceContext<'_> {
    let meta = &context.meta;
    let given = TraceContext {
        traceparent: meta.get_traceparent(),
        tracestate: meta.get_tracestate(),
    };
    if given.names_a_span() {
        return given;
    }
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .map(|parts| crate::http::extract::trace_context(&parts.headers))
        .unwrap_or_default()
}

/// The digest of the tool call `context` belongs to (see `call_tool`).
fn request_digest(context: &RequestContext<RoleServer>) -> RequestDigest {
    context
        .extensions
        .get::<RequestDigest>()
        .copied()
        .unwrap_or_else(|| RequestDigest::of("", None))
}

/// How long a current client may keep the lists that change only when the
/// host is upgraded (the tools, the resource template), in milliseconds.
/// Private: the tools offered depend on the key. The negotiations listed
/// and read as resources change with every turn, so they carry rmcp's
/// default, `0` (do not keep), and a client listens for their changes.
pub(crate) const LISTS_THAT_LAST_MS: u64 = 5 * 60 * 1000;

/// How long a task may live beyond what it waits for.
const TASK_MARGIN: Duration = Duration::from_secs(10 * 60);

/// Whether a request is of the current protocol (2026-07-28 or later):
/// per-request capabilities and no session, so nothing can be pushed to it.
fn speaks_current(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Whether a request is in the current protocol's style, as rmcp tells
/// one: its own `_meta` carries what the protocol asks of every request
/// (version, client, capabilities), whatever version it names.
fn carries_request_metadata(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .missing_required_keys(&ProtocolVersion::V_2026_07_28)
        .is_empty()
}

/// A call's arguments read as its tool reads them, or `None` when the tool
/// would refuse them.
fn arguments<T: serde::de::DeserializeOwned>(request: &CallToolRequestParams) -> Option<T> {
    let arguments = request.arguments.clone().unwrap_or_default();
    serde_json::from_value(serde_json::Value::Object(arguments)).ok()
}

impl Tools {
    /// Starts a long call as a task, when its client takes tasks: a wait,
    /// or a park (a model call, and then perhaps the person's answer).
    /// `None` for any other call, or when no task can be started: the call
    /// is then answered as usual.
    async fn as_task(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Task> {
        let capabilities = context.client_capabilities()?;
        // Only a call whose arguments hold runs as a task: one they refuse
        // (a wait over the limit, a malformed id) is refused at once, not
        // from a task the client must poll to hear it.
        let long = match request.name.as_ref() {
            "park_negotiation" => arguments::<OnNegotiation<ParkRequest>>(request).is_some(),
            "get_negotiation" => arguments::<OnNegotiation<See>>(request)
                .and_then(|on| on.args.wait)
                .is_some_and(|wait| wait_duration(wait).is_ok()),
            "request_interaction" => arguments::<interactions::Ask>(request).is_some_and(|ask| {
                wait_duration(ask.wait.unwrap_or(MAX_WAIT.as_secs_f64()))
                    .is_ok_and(|wait| !wait.is_zero())
            }),
            "get_interaction" => arguments::<interactions::Get>(request)
                .and_then(|get| get.wait)
                .is_some_and(|wait| wait_duration(wait).is_ok()),
            _ => false,
        };
        // The tasks extension is the current protocol's, declared in each
        // request's capabilities. An older session that lists it when it
        // initializes (the Inspector does) reads a task as a tool result
        // without its structured content, so it gets the result itself.
        if !capabilities.supports_tasks() || !speaks_current(context) || !long {
            return None;
        }
        let caller = self.caller(context)?;
        // A task that may ask its person lives as long as they may take.
        let ttl = match capabilities.elicitation {
            Some(_) => MAX_WAIT + self.host.ask_user_window() + TASK_MARGIN,
            None => MAX_WAIT + TASK_MARGIN,
        };
        let (tools, request, mut context) = (self.clone(), request.clone(), context.clone());
        McpState::of(&self.host)
            .tasks()
            .start(&self.host, &caller.user_id, ttl, move |task| {
                context.extensions.insert(task);
                async move {
                    match tools.call(request, context).await? {
                        CallToolResponse::Complete(result) => Ok(result),
                        _ => Err(ErrorData::internal_error(
                            "the call asked for input outside its task",
                            None,
                        )),
                    }
                }
            })
            .await
    }

    /// Runs the tool a request names, with rmcp's refusals of its
    /// arguments given the error shape.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.clone();
        let response = match ROUTER
            .call(ToolCallContext::new(self, request, context))
            .await
        {
            Err(err) if err.code == ErrorCode::INVALID_PARAMS => {
                return Ok(failure(&HostError::BadRequest(format!(
                    "there is no tool named {name:?}"
                )))
                .into());
            }
            other => other?,
        };
        Ok(match response {
            // Arguments a tool's schema refuses never reach the tool: rmcp
            // answers them with a text-only tool error, given the error
            // shape here (every refusal of ours carries it already).
            CallToolResponse::Complete(result)
                if result.is_error == Some(true) && !carries_error_object(&result) =>
            {
                let message = result
                    .content
                    .first()
                    .and_then(|block| block.as_text())
                    .map(|text| text.text.clone())
                    .unwrap_or_default();
                failure(&HostError::BadRequest(format!("{name}: {message}"))).into()
            }
            other => other,
        })
    }
}

/// A tool error: the error object as JSON text, then a one-line summary.
///
/// It carries no structured content. A client checks structured content
/// against the tool's output schema, which describes the tool's answer and
/// not the error object; the TypeScript SDK does so even on `isError`, so
/// an error object there would reach the agent as a schema failure and
/// never as the refusal's code. The spec asks for schema-conforming
/// structured content and says nothing of errors; so the error is text,
/// which every client passes on.
fn failure(err: &HostError) -> CallToolResult {
    err.log_cause();
    let body = err.body();
    CallToolResult::error(vec![
        ContentBlock::text(serde_json::to_string(&body).unwrap_or_default()),
        ContentBlock::text(format!("{} ({})", body.error.message, body.error.code)),
    ])
}

/// Whether an error result is one of ours: its first block is the error
/// object. rmcp's own refusals (arguments a schema refuses) are plain text.
fn carries_error_object(result: &CallToolResult) -> bool {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text.text).ok())
        .is_some_and(|value| value.get("error").is_some_and(serde_json::Value::is_object))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
    fn arguments_on_a_negotiation_refuse_a_key_their_tool_does_not_define() {
        const ID: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";
        let read = |value| serde_json::from_value::<OnNegotiation<See>>(value);
        let seen = read(json!({"opportunityId": ID, "wait": 5})).map(|a| (a.id, a.args.wait));
        assert_eq!(
            seen.ok(),
            Some((ID.parse().ok().unwrap_or_else(|| panic!()), Some(5.0)))
        );
        let extra = read(json!({"opportunityId": ID, "extra": 1})).map(|_| ());
        assert!(extra.is_err_and(|err| err.to_string().contains("extra")));
        let no_id = read(json!({"wait": 1})).map(|_| ());
        assert!(no_id.is_err_and(|err| err.to_string().contains("opportunityId")));
        let schema = tool_schema::<OnNegotiation<See>>(Contract::Reads);
        assert_eq!(schema.get("required"), Some(&json!(["opportunityId"])));
        assert_eq!(schema.get("additionalProperties"), Some(&json!(false)));
    }

    #[test]
    fn schemas_carry_no_rustdoc_and_no_rust_formats() {
        let listed = serde_json::to_string(&tools()).unwrap_or_default();
        for rust in ["```", "[`", "Self::", "crate::", "\"uint", "\"double\""] {
            assert!(!listed.contains(rust), "{rust} in {listed}");
        }
    }
}
