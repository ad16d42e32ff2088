//! The interaction tools: an agent asks its person for typed input
//! (`request_interaction`, which waits for the answer, as a task for a
//! client that takes tasks), reads one (`get_interaction`) and lists them
//! (`list_interactions`); the person's side delivers a response command
//! (`answer_interaction`). The same service as `/interactions`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::interaction_forms::{self, Form};
use crate::mcp::{Answer, Asking, Reply, Tools, output, request_digest, with_progress};
use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::interactions::{
    ContractObject, InteractionPage, InteractionQuery, InteractionView,
};
use crate::service::keys::Caller;
use crate::service::wire::{MAX_WAIT, wait_duration};
use index_negotiation_store::InteractionStatus;

/// `request_interaction`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Ask {
    /// The interaction contract's `InteractionRequest` (0.46): id, kind,
    /// title, answerSpec and binding; its requestDigest is computed when
    /// left out, and must match when sent.
    request: serde_json::Map<String, serde_json::Value>,
    /// Seconds to wait for the person's answer before answering with the
    /// interaction as it stands (default and most: 50; 0 answers at once).
    #[schemars(range(min = 0, max = crate::service::wire::MAX_WAIT.as_secs()))]
    pub(super) wait: Option<f64>,
}

/// `answer_interaction`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Respond {
    /// The interaction contract's `InteractionResponseCommand`: the
    /// response, bound to the request's binding and digest, under an
    /// operation id of your choosing, sealed by its commandDigest.
    command: serde_json::Map<String, serde_json::Value>,
}

/// `get_interaction`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct Get {
    /// The interaction's id (its request's).
    #[schemars(length(min = 1))]
    interaction_id: String,
    /// Seconds to wait for it to stop being pending before answering.
    #[schemars(range(min = 0, max = crate::service::wire::MAX_WAIT.as_secs()))]
    pub(super) wait: Option<f64>,
}

/// What a tool says of an interaction, for people.
fn summary(view: &InteractionView) -> String {
    let id = view.request.id();
    match view.status {
        InteractionStatus::Pending => {
            format!("Interaction {id} is waiting for your person's answer.")
        }
        status => format!("Interaction {id} is {}.", status.as_str()),
    }
}

/// How a call that finds its interaction pending goes on: with the form
/// that asks the caller's person, when their client is a current one that
/// shows forms; else by waiting (with word of why no form could carry it).
async fn ask_or_wait(
    host: &Host,
    caller: &Caller,
    view: &InteractionView,
    context: &RequestContext<RoleServer>,
) -> Result<Answer, String> {
    let Asking::ByRetry(call) = Asking::of(context) else {
        return Err(String::new());
    };
    match interaction_forms::ask(host, caller, &view.request, call).await {
        Form::Asked(form) => Ok(Answer::Ask(form)),
        // A secret is given as a handle by a client that keeps secrets;
        // anything else a form cannot carry, the inbox can.
        Form::Unmappable(why @ index_interaction::Unmappable::Secret(_)) => Err(format!(
            " A form cannot carry it ({why}): your person's client gives the secret as a handle, with answer_interaction."
        )),
        Form::Unmappable(why) => Err(format!(
            " A form cannot carry it ({why}): your person answers it in their inbox (/inbox)."
        )),
        Form::Not => Err(String::new()),
    }
}

/// Whether this call is a current client's retry that answered the form
/// an earlier call put to the caller's person (see
/// `crate::mcp::interaction_forms`): the answer is then delivered.
async fn answers_form(
    host: &Host,
    caller: &Caller,
    context: &RequestContext<RoleServer>,
    state: Option<String>,
    responses: Option<rmcp::model::InputResponses>,
) -> bool {
    let call = request_digest(context);
    interaction_forms::answered(host, caller, call, state.as_deref(), responses.as_ref())
        .await
        .is_some()
}

/// Waits up to `wait` for the interaction `view` shows to settle, first
/// putting it to the caller's person as a form when their client can show
/// one; the answer, or the interaction as it then stands.
async fn settled(
    host: &Host,
    caller: &Caller,
    view: InteractionView,
    wait: std::time::Duration,
    context: &RequestContext<RoleServer>,
) -> Result<Answer, HostError> {
    if view.status != InteractionStatus::Pending || wait.is_zero() {
        return Reply::new(&view, summary(&view)).map(Answer::from);
    }
    let note = match ask_or_wait(host, caller, &view, context).await {
        Ok(form) => return Ok(form),
        Err(note) => note,
    };
    let id = view.request.id();
    let view = with_progress(context, wait, host.wait_interaction(caller, id, wait)).await?;
    Reply::new(&view, format!("{}{note}", summary(&view))).map(Answer::from)
}

#[tool_router(router = interaction_tools, vis = "pub(super)")]
impl Tools {
    #[tool(
        name = "request_interaction",
        title = "Ask your person",
        description = "Ask your person for typed input: answer some fields, grant a permission, approve a plan. The request is the interaction contract's InteractionRequest; the call waits for their answer (wait seconds, 50 at most) and returns the interaction with its validated response once resolved, or as it stands. Asking again with the same request returns the same interaction.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = true),
        output_schema = output::<InteractionView>()
    )]
    async fn request_interaction(
        &self,
        Parameters(args): Parameters<Ask>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "request_interaction", async |host, caller| {
            let wait = wait_duration(args.wait.unwrap_or(MAX_WAIT.as_secs_f64()))?;
            // A current client's retry carries its person's answer.
            let answered = answers_form(host, &caller, &context, state, responses).await;
            let (_, asked) = host
                .ask(&caller, &serde_json::Value::Object(args.request))
                .await?;
            let wait = if answered {
                std::time::Duration::ZERO
            } else {
                wait
            };
            settled(host, &caller, asked, wait, &context).await
        })
        .await
    }

    #[tool(
        name = "get_interaction",
        title = "See an interaction",
        description = "See an interaction you asked your person: pending, resolved (with their validated response), expired or cancelled. With wait, returns as soon as it stops being pending.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<InteractionView>()
    )]
    async fn get_interaction(
        &self,
        Parameters(args): Parameters<Get>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "get_interaction", async |host, caller| {
            let answered = answers_form(host, &caller, &context, state, responses).await;
            let view = host.interaction(&caller, &args.interaction_id).await?;
            let wait = match (args.wait, answered) {
                (Some(seconds), false) => wait_duration(seconds)?,
                _ => std::time::Duration::ZERO,
            };
            settled(host, &caller, view, wait, &context).await
        })
        .await
    }

    #[tool(
        name = "answer_interaction",
        title = "Answer an interaction",
        description = "Deliver your person's answer to an interaction asked of them: an InteractionResponseCommand. Answered with its InteractionAcknowledgement whatever the outcome (accepted, already_resolved_same, already_resolved_different, expired, cancelled, unknown_run, unknown_interaction, binding_mismatch, invalid_response, transport_failure); the same operation id again gets the same acknowledgement.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<ContractObject>()
    )]
    async fn answer_interaction(
        &self,
        Parameters(args): Parameters<Respond>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "answer_interaction", async |host, caller| {
            let text = host
                .respond(&caller, &serde_json::Value::Object(args.command))
                .await?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|err| {
                HostError::BadRequest(format!("could not read the acknowledgement: {err}"))
            })?;
            let status = value
                .get("status")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            // The acknowledgement as recorded is the text block, so a
            // replay reads byte for byte as the first answer.
            Ok(Reply {
                value,
                text,
                summary: format!("Acknowledged: {status}."),
            })
        })
        .await
    }

    #[tool(
        name = "list_interactions",
        title = "List your interactions",
        description = "List the interactions you asked your person, oldest first, by status (pending, resolved, expired, cancelled), a page at a time: pass the result's nextCursor as cursor for the next page.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<InteractionPage>()
    )]
    async fn list_interactions(
        &self,
        Parameters(query): Parameters<InteractionQuery>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "list_interactions", async |host, caller| {
            let page = host.interactions(&caller, &query).await?;
            let summary = match &page.next_cursor {
                Some(cursor) => format!(
                    "{} interaction(s); more after cursor {cursor}.",
                    page.interactions.len()
                ),
                None => format!("{} interaction(s).", page.interactions.len()),
            };
            Reply::new(&page, summary)
        })
        .await
    }
}

/// The interaction tools' router, to be merged with the negotiation tools'.
pub(super) fn router() -> ToolRouter<Tools> {
    Tools::interaction_tools()
}
