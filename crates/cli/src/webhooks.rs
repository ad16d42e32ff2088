//! `index webhooks`: the store's webhook endpoints, registered, listed,
//! removed, rotated and replayed right on the store (no host needed; any
//! running host delivers).

use index_host::webhooks::{NewWebhook, WebhookView, WebhookWithSecret};
use index_negotiation_store::{HostStore, ReplayRange, UnixTime};
use index_negotiation_store_sqlite::Synchronous;

use crate::cli::WebhooksCommand;
use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::output::{BOLD, DIM, Out, styled, table};

async fn open(
    db: Option<String>,
    synchronous: Synchronous,
    purpose: Use,
) -> Result<Box<dyn HostStore>, Failure> {
    Database::select(db, synchronous)?.open(purpose).await
}

/// Runs one `index webhooks` subcommand.
pub(crate) async fn webhooks(
    command: WebhooksCommand,
    synchronous: Synchronous,
    out: Out,
) -> Result<(), Failure> {
    match command {
        WebhooksCommand::Add {
            url,
            user,
            host: _,
            events,
            db,
        } => {
            let store = open(db, synchronous, Use::Create).await?;
            let hook = NewWebhook {
                url,
                user: None,
                events: Some(events.iter().map(|kind| kind.as_str().to_owned()).collect()),
            };
            let added = index_host::webhooks::register(&*store, hook.endpoint(user)?).await?;
            shown_with_secret(&out, &added, "Registered");
        }
        WebhooksCommand::List { db } => {
            let store = open(db, synchronous, Use::Read).await?;
            let views: Vec<WebhookView> = store
                .list_webhooks()
                .await?
                .iter()
                .map(WebhookView::from)
                .collect();
            out.json(&views);
            if views.is_empty() {
                out.line(styled(DIM, "No webhook endpoints."));
            } else {
                out.line(table(
                    &["id", "user", "url", "events", "state"],
                    &views.iter().map(row).collect::<Vec<_>>(),
                ));
            }
        }
        WebhooksCommand::Remove { id, db } => {
            let store = open(db, synchronous, Use::Write).await?;
            if !store.remove_webhook(&id).await? {
                return Err(no_such(&id));
            }
            out.json(&serde_json::json!({ "removed": id }));
            out.line(format!("Removed {id}."));
        }
        WebhooksCommand::RotateSecret { id, db } => {
            let store = open(db, synchronous, Use::Write).await?;
            let rotated = match index_host::webhooks::rotate(&*store, &id).await {
                Err(index_host::HostError::NoWebhook) => return Err(no_such(&id)),
                other => other?,
            };
            shown_with_secret(&out, &rotated, "Rotated");
        }
        WebhooksCommand::Replay {
            id,
            since,
            until,
            db,
        } => {
            let store = open(db, synchronous, Use::Write).await?;
            let range = ReplayRange {
                endpoint: id.clone(),
                since,
                until,
            };
            let queued = store
                .replay_deliveries(&range, UnixTime::now())
                .await?
                .ok_or_else(|| no_such(&id))?;
            out.json(&serde_json::json!({ "queued": queued }));
            out.line(format!(
                "Queued {queued} deliveries to {id} again; a running `index serve` sends them."
            ));
        }
    }
    Ok(())
}

fn no_such(id: &str) -> Failure {
    Failure::Input(format!(
        "there is no webhook endpoint {id:?} (see `index webhooks list`)"
    ))
}

/// An endpoint with its secret, as JSON or as lines that say to keep it.
fn shown_with_secret(out: &Out, made: &WebhookWithSecret, what: &str) {
    out.json(made);
    out.line(format!("{what} {}.", styled(BOLD, &made.webhook.id)));
    out.line(format!("Secret (shown only now): {}", made.secret));
    out.status(styled(
        DIM,
        "Verify each delivery's webhook-signature with it (Standard Webhooks).",
    ));
}

/// One endpoint as a table's row.
fn row(view: &WebhookView) -> Vec<String> {
    let events = view.events.as_ref().map_or_else(
        || "all".to_owned(),
        |types| {
            types
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(",")
        },
    );
    let state = match &view.disabled {
        None => "enabled".to_owned(),
        Some(off) => format!("disabled {}: {}", off.at, off.reason),
    };
    vec![
        view.id.clone(),
        view.user
            .as_ref()
            .map_or_else(|| "(host)".to_owned(), ToString::to_string),
        view.url.clone(),
        events,
        state,
    ]
}
