//! The webhook tools: an agent registers, lists and removes its person's
//! endpoints, rotates a secret and replays deliveries (a host key, anyone's
//! and the host's own). The same service as `/webhooks`.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::{Reply, Tools, output};
use crate::service::webhooks::{NewWebhook, ReplayQuery, Replayed, WebhookView, WebhookWithSecret};

/// The tools that name one endpoint take its id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Named {
    /// The endpoint's id (`wh_…`).
    #[schemars(length(min = 1))]
    webhook_id: String,
}

/// `replay_webhook`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Replay {
    /// The endpoint's id (`wh_…`).
    #[schemars(length(min = 1))]
    webhook_id: String,
    /// Events written at or after this moment (RFC 3339); all when absent.
    since: Option<String>,
    /// Events written at or before this moment (RFC 3339); all when absent.
    until: Option<String>,
}

/// `list_webhooks`' arguments: none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nothing {}

/// The endpoints the caller may see.
#[derive(Debug, Serialize, JsonSchema)]
struct Webhooks {
    /// Oldest first, without their secrets.
    webhooks: Vec<WebhookView>,
}

/// What `remove_webhook` removed.
#[derive(Debug, Serialize, JsonSchema)]
struct Removed {
    /// The endpoint's id.
    removed: String,
}

#[tool_router(router = webhook_tools, vis = "pub(super)")]
impl Tools {
    #[tool(
        name = "add_webhook",
        title = "Register a webhook endpoint",
        description = "Register a URL that is told, signed the Standard Webhooks way, when your person's negotiations move: opened, a turn, a round ended, settled, parked on a question for them, answered, resumed, closed; and when an interaction is asked of your person or resolved. Keep the whsec_ secret in the result: it is shown only now. A host key may register one for any person, or (no user) for every negotiation.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true),
        output_schema = output::<WebhookWithSecret>()
    )]
    async fn add_webhook(
        &self,
        Parameters(hook): Parameters<NewWebhook>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "add_webhook", async |host, caller| {
            let added = host.add_webhook(&caller, hook).await?;
            let summary = format!(
                "Registered {}; keep its secret, shown only now.",
                added.webhook.id
            );
            Reply::new(&added, summary)
        })
        .await
    }

    #[tool(
        name = "list_webhooks",
        title = "List your webhook endpoints",
        description = "List the webhook endpoints you may see (your person's; every one for a host key), oldest first, without their secrets; a disabled one says why its deliveries were given up.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false),
        output_schema = output::<Webhooks>()
    )]
    async fn list_webhooks(
        &self,
        Parameters(Nothing {}): Parameters<Nothing>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "list_webhooks", async |host, caller| {
            let webhooks = host.webhooks(&caller).await?;
            let summary = format!("{} endpoint(s).", webhooks.len());
            Reply::new(&Webhooks { webhooks }, summary)
        })
        .await
    }

    #[tool(
        name = "remove_webhook",
        title = "Remove a webhook endpoint",
        description = "Remove a webhook endpoint, with the deliveries waiting for it.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false),
        output_schema = output::<Removed>()
    )]
    async fn remove_webhook(
        &self,
        Parameters(Named { webhook_id }): Parameters<Named>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "remove_webhook", async |host, caller| {
            host.remove_webhook(&caller, &webhook_id).await?;
            let summary = format!("Removed {webhook_id}.");
            Reply::new(
                &Removed {
                    removed: webhook_id,
                },
                summary,
            )
        })
        .await
    }

    #[tool(
        name = "rotate_webhook_secret",
        title = "Rotate a webhook secret",
        description = "Give a webhook endpoint a new secret; the old one signs beside it for a day, so the receiver can move over. Keep the new secret: it is shown only now.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false),
        output_schema = output::<WebhookWithSecret>()
    )]
    async fn rotate_webhook_secret(
        &self,
        Parameters(Named { webhook_id }): Parameters<Named>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "rotate_webhook_secret", async |host, caller| {
            let rotated = host.rotate_webhook_secret(&caller, &webhook_id).await?;
            Reply::new(&rotated, format!("Rotated {webhook_id}'s secret."))
        })
        .await
    }

    #[tool(
        name = "replay_webhook",
        title = "Replay webhook deliveries",
        description = "Send a webhook endpoint's deliveries of a range of events again (since and until, RFC 3339; all when left out), under their own webhook-ids, enabling the endpoint if its deliveries had been given up.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true),
        output_schema = output::<Replayed>()
    )]
    async fn replay_webhook(
        &self,
        Parameters(Replay {
            webhook_id,
            since,
            until,
        }): Parameters<Replay>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.run(&context, "replay_webhook", async |host, caller| {
            let range = ReplayQuery { since, until };
            let replayed = host.replay_webhook(&caller, &webhook_id, range).await?;
            let summary = format!("Queued {} deliveries again.", replayed.queued);
            Reply::new(&replayed, summary)
        })
        .await
    }
}

/// The webhook tools' router, to be merged with the negotiation tools'.
pub(super) fn router() -> ToolRouter<Tools> {
    Tools::webhook_tools()
}
