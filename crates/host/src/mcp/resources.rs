//! The caller's negotiations as MCP resources, and word when one changes.
//!
//! Each negotiation where the caller holds a seat is a resource at
//! `index://negotiations/{opportunityId}`, read as the caller's seat sees
//! it (the same JSON `get_negotiation` answers). A client is told when one
//! changes (a turn, a resume, a park, an answer, a close), through the
//! store's change feed as waits are: a client of the current protocol
//! listens (`subscriptions/listen` with `resourceSubscriptions`), an older
//! one subscribes (`resources/subscribe`) for the rest of its session. A
//! negotiation the caller holds no seat in reads as not found and is never
//! announced, exactly as one that does not exist.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam,
};
use rmcp::service::SubscriptionContext;
use rmcp::{ErrorData, Peer, RoleServer};
use tokio_util::sync::CancellationToken;

use index_negotiation_store::OpportunityId;

use crate::service::error::HostError;
use crate::service::host::{Changes, Host};
use crate::service::keys::Caller;
use crate::service::wire::ListQuery;

/// Where a negotiation lives, as a URI template.
pub(crate) const TEMPLATE: &str = "index://negotiations/{opportunityId}";

const PREFIX: &str = "index://negotiations/";

/// How many negotiations one subscription stream, or one older session,
/// may watch: each change reads every one watched, so the count is kept
/// to what a person's assistant needs.
pub(crate) const MOST_WATCHED: usize = 100;

/// The resource of negotiation `id`.
pub(crate) fn uri(id: &OpportunityId) -> String {
    format!("{PREFIX}{id}")
}

/// The negotiation a resource URI names, if it names one.
pub(crate) fn negotiation(uri: &str) -> Option<OpportunityId> {
    OpportunityId::parse(uri.strip_prefix(PREFIX)?).ok()
}

fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("there is no negotiation at {uri}"),
        Some(serde_json::json!({ "uri": uri })),
    )
}

fn failed(err: &HostError) -> ErrorData {
    err.log_cause();
    ErrorData::internal_error(err.to_string(), None)
}

/// One page of the caller's negotiations as resources, newest change
/// first; the page's cursor is the listing's.
pub(crate) async fn list(
    host: &Host,
    caller: &Caller,
    request: Option<PaginatedRequestParams>,
) -> Result<ListResourcesResult, ErrorData> {
    let query = ListQuery {
        cursor: request.and_then(|request| request.cursor),
        ..ListQuery::default()
    };
    let filter = query
        .filter()
        .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
    let page = host
        .list(caller, &filter)
        .await
        .map_err(|err| failed(&err))?;
    let resources = page
        .negotiations
        .iter()
        .map(|summary| {
            let other = if summary.initiator.user_id == caller.user_id {
                &summary.responder.user_id
            } else {
                &summary.initiator.user_id
            };
            Resource::new(uri(&summary.id), format!("negotiation {}", summary.id))
                .with_title(format!("Negotiation with {other}"))
                .with_description(format!(
                    "{}; {} turns",
                    summary.status.as_str(),
                    summary.turn_count
                ))
                .with_mime_type("application/json")
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = page.next.map(|cursor| cursor.to_string());
    Ok(result)
}

/// The one template: a negotiation by its opportunity id.
pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(TEMPLATE, "negotiation")
            .with_title("A negotiation, as your seat sees it")
            .with_mime_type("application/json"),
    ])
    .with_ttl_ms(crate::mcp::LISTS_THAT_LAST_MS)
    .with_cache_scope(rmcp::model::CacheScope::Private)
}

/// The negotiation at `uri` as the caller's seat sees it.
pub(crate) async fn read(
    host: &Host,
    caller: &Caller,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let id = negotiation(uri).ok_or_else(|| not_found(uri))?;
    let view = match host.view(caller, &id).await {
        Ok(view) => view,
        Err(HostError::NotFound) => return Err(not_found(uri)),
        Err(err) => return Err(failed(&err)),
    };
    let text = serde_json::to_string(&view)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json"),
    ]))
}

/// An older client's subscriptions, for its session: each a task that
/// announces its negotiation's changes until it is unsubscribed, the
/// session ends or the host shuts down.
#[derive(Default, Clone)]
pub(crate) struct Subscriptions {
    active: Arc<Mutex<BTreeMap<String, CancellationToken>>>,
}

impl Subscriptions {
    /// Starts announcing the negotiation at `uri` to `peer`.
    pub(crate) async fn subscribe(
        &self,
        host: &Host,
        caller: &Caller,
        peer: Peer<RoleServer>,
        uri: String,
    ) -> Result<(), ErrorData> {
        let id = negotiation(&uri).ok_or_else(|| not_found(&uri))?;
        let changes = host
            .changes_of(caller, [id])
            .await
            .map_err(|err| failed(&err))?;
        if changes.is_empty() {
            return Err(not_found(&uri));
        }
        let stop = CancellationToken::new();
        {
            let Ok(mut active) = self.active.lock() else {
                return Err(ErrorData::internal_error("subscriptions unavailable", None));
            };
            active.retain(|_, stop| !stop.is_cancelled());
            if active.len() >= MOST_WATCHED && !active.contains_key(&uri) {
                return Err(ErrorData::invalid_params(
                    format!("a session watches at most {MOST_WATCHED} negotiations"),
                    None,
                ));
            }
            if let Some(earlier) = active.insert(uri.clone(), stop.clone()) {
                earlier.cancel();
            }
        }
        tokio::spawn(async move {
            // A subscription that ends (its session gone, the host closing)
            // leaves its place for another.
            let _ended = stop.clone().drop_guard();
            announce(changes, stop.cancelled(), |uri| {
                let peer = peer.clone();
                async move {
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await
                }
            })
            .await;
        });
        Ok(())
    }

    /// Stops announcing the negotiation at `uri`.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        if let Ok(mut active) = self.active.lock()
            && let Some(stop) = active.remove(uri)
        {
            stop.cancel();
        }
    }
}

/// A current client's `subscriptions/listen` stream: every accepted
/// resource the caller holds a seat in is announced as it changes, until
/// the client cancels the stream or the host shuts down.
pub(crate) async fn listen(
    host: &Host,
    caller: &Caller,
    context: SubscriptionContext,
) -> Result<(), ErrorData> {
    let ids: Vec<OpportunityId> = context
        .accepted()
        .resource_subscriptions
        .iter()
        .flatten()
        .filter_map(|uri| negotiation(uri))
        .collect();
    let changes = host
        .changes_of(caller, ids)
        .await
        .map_err(|err| failed(&err))?;
    let sink = context.sink().clone();
    announce(changes, context.cancelled(), |uri| {
        let sink = sink.clone();
        async move { sink.notify_resource_updated(uri).await }
    })
    .await;
    Ok(())
}

/// Announces each change `changes` sees, by the negotiation's URI, through
/// `notify`, until `stop` resolves, the host shuts down, or `notify` fails
/// (its client is gone).
async fn announce<E, Sent: Future<Output = Result<(), E>>>(
    mut changes: Changes,
    stop: impl Future<Output = ()>,
    mut notify: impl FnMut(String) -> Sent,
) {
    tokio::pin!(stop);
    loop {
        let changed = tokio::select! {
            changed = changes.next() => changed,
            () = &mut stop => None,
        };
        let Some(id) = changed else {
            return;
        };
        if notify(uri(&id)).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negotiations_uri_names_it_and_nothing_else_does() {
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").ok();
        let id = id.unwrap_or_else(|| unreachable!());
        assert_eq!(negotiation(&uri(&id)), Some(id));
        for other in [
            "index://negotiations/opp-1",
            "index://negotiations/",
            "file:///etc/passwd",
            "index://negotiations/0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36/x",
        ] {
            assert_eq!(negotiation(other), None, "{other}");
        }
    }
}
