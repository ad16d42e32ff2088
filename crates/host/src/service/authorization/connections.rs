//! The clients a person connected through OAuth, as their inbox lists
//! them: one per grant that can still go on (its refresh token is
//! active), however many access tokens it has had. Ending one revokes the
//! grant, as `index keys revoke` does, on every host of the store.

use std::collections::BTreeMap;

use serde::Serialize;

use index_negotiation_store::{ApiKeyRecord, ApiKeyStore, KeyKind, KeyState, UnixTime};

use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;

/// A client a person connected: what the inbox shows of it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Connection {
    /// The grant's id: what `DELETE /connections/{connectionId}` takes.
    id: String,
    /// The client's name, as its metadata or registration gave it.
    client_name: String,
    /// The client's id: its metadata document's URL, or its registration.
    client_id: String,
    /// When the person approved it (RFC 3339).
    connected_at: Option<String>,
    /// When one of its tokens was last used (RFC 3339), to within the
    /// store's resolution of a key's use.
    last_used_at: Option<String>,
}

/// `GET /connections`: the caller's person's connected clients.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Connections {
    /// Newest approval first.
    connections: Vec<Connection>,
}

/// The grants of `caller`'s person that can still go on.
pub(crate) async fn connections(host: &Host, caller: &Caller) -> Result<Connections, HostError> {
    let now = UnixTime::now();
    let mut grants: BTreeMap<String, Vec<ApiKeyRecord>> = BTreeMap::new();
    for record in host.store().list_api_keys().await? {
        if record.user_id != caller.user_id {
            continue;
        }
        if let Some(grant) = record.grant.clone() {
            grants.entry(grant).or_default().push(record);
        }
    }
    let mut connections: Vec<Connection> = grants
        .into_iter()
        .filter(|(_, keys)| {
            keys.iter()
                .any(|key| key.kind == KeyKind::OAuthRefresh && key.state(now) == KeyState::Active)
        })
        .filter_map(|(id, keys)| {
            let newest = keys.iter().max_by_key(|key| key.created_at)?;
            Some(Connection {
                client_name: newest.name.clone().unwrap_or_default(),
                client_id: newest.client.clone().unwrap_or_default(),
                connected_at: keys
                    .iter()
                    .filter_map(|key| key.created_at)
                    .min()
                    .map(|at| at.to_string()),
                last_used_at: keys
                    .iter()
                    .filter_map(|key| key.last_used_at)
                    .max()
                    .map(|at| at.to_string()),
                id,
            })
        })
        .collect();
    connections.sort_by(|a, b| b.connected_at.cmp(&a.connected_at));
    Ok(Connections { connections })
}

/// Ends the grant `id` of `caller`'s person: every token of it, at once.
/// A grant of anyone else is `not_found`, as one that never was.
pub(crate) async fn disconnect(host: &Host, caller: &Caller, id: &str) -> Result<(), HostError> {
    let theirs = host
        .store()
        .list_api_keys()
        .await?
        .into_iter()
        .any(|record| record.grant.as_deref() == Some(id) && record.user_id == caller.user_id);
    if !theirs {
        return Err(HostError::NotFound);
    }
    host.keys().revoke_grant(id, &caller.actor()).await?;
    tracing::info!(user = ?caller.user_id.as_str(), grant = %id, "a person disconnected an OAuth client");
    Ok(())
}
