//! The interaction tools: an agent asks its person for typed input
//! (`request_interaction`, which waits for the answer, as a task for a
//! client that takes tasks), reads one (`get_interaction`) and lists them
//! (`list_interactions`), over the same service as `/interactions`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::{Reply, Tools, output, with_progress};
use crate::service::interactions::{InteractionPage, InteractionQuery, InteractionView};
use crate::service::wire::{MAX_WAIT, wait_duration};

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
    match view.status.as_str() {
        "pending" => format!("Interaction {id} is waiting for your person's answer."),
        status => format!("Interaction {id} is {status}."),
    }
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
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "request_interaction", async |host, caller| {
            let wait = wait_duration(args.wait.unwrap_or(MAX_WAIT.as_secs_f64()))?;
            let (_, asked) = host
                .ask(&caller, &serde_json::Value::Object(args.request))
                .await?;
            let id = asked.request.id().to_owned();
            let view = if wait.is_zero() || asked.status.as_str() != "pending" {
                asked
            } else {
                with_progress(&context, wait, host.wait_interaction(&caller, &id, wait)).await?
            };
            Reply::new(&view, summary(&view))
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
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "get_interaction", async |host, caller| {
            let view = match args.wait {
                None => host.interaction(&caller, &args.interaction_id).await?,
                Some(seconds) => {
                    let wait = wait_duration(seconds)?;
                    let waiting = host.wait_interaction(&caller, &args.interaction_id, wait);
                    with_progress(&context, wait, waiting).await?
                }
            };
            Reply::new(&view, summary(&view))
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
