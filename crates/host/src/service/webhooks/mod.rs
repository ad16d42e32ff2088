//! Webhooks through the host: endpoints registered by people (for their
//! own negotiations) and by host keys (for anyone's, or every
//! negotiation), and the loop that delivers the store's outbox to them,
//! signed the Standard Webhooks way.
//!
//! | module | holds |
//! |---|---|
//! | `signature` | secrets and `webhook-signature` values |
//! | `delivery` | the delivery loop, its retry schedule and the private-address guard |

mod delivery;
mod signature;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use index_js::WireEnum;

use index_negotiation_store::{
    EventFilter, EventType, KeyScope, ReplayRange, UnixTime, UserId, WebhookEndpoint, WebhookStore,
};

pub use delivery::{WebhookSettings, deliver_webhooks};
pub use signature::{new_secret, sign};

use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::wire::{id_field, moment};

/// How long a rotated secret still signs deliveries beside the new one,
/// so a receiver has a day to move to the new secret.
pub const ROTATION_OVERLAP: Duration = Duration::from_secs(24 * 3600);

/// The longest endpoint URL taken.
pub const URL_LIMIT: usize = 2048;

/// The most endpoints one person (or the host, for its own) registers:
/// each commit writes a delivery for every one that wants its event.
pub const MOST_WEBHOOKS: usize = 10;

/// Stores `endpoint` unless its person (or the host) holds
/// [`MOST_WEBHOOKS`] already: the endpoint with its secret, the one time
/// it is shown. Two registrations racing may both pass the count.
///
/// # Errors
///
/// [`HostError::BadRequest`] when the person holds as many as they may,
/// or the id is taken; [`HostError::Store`].
pub async fn register<S: WebhookStore + ?Sized>(
    store: &S,
    endpoint: WebhookEndpoint,
) -> Result<WebhookWithSecret, HostError> {
    let held = store
        .list_webhooks()
        .await?
        .iter()
        .filter(|held| held.user == endpoint.user)
        .count();
    if held >= MOST_WEBHOOKS {
        return Err(HostError::BadRequest(format!(
            "{} webhook endpoints are registered for {}, the most there may be: remove one first",
            MOST_WEBHOOKS,
            endpoint.user.as_ref().map_or("the host", UserId::as_str)
        )));
    }
    if !store.insert_webhook(&endpoint).await? {
        return Err(HostError::BadRequest(
            "an endpoint with that id exists: try again".to_owned(),
        ));
    }
    Ok(WebhookWithSecret {
        webhook: WebhookView::from(&endpoint),
        secret: endpoint.secret.expose().to_owned(),
    })
}

/// Gives the endpoint `id` a new secret, the old one signing beside it
/// for [`ROTATION_OVERLAP`] (a second rotation within it drops the first
/// old secret at once): the endpoint with its new secret.
///
/// # Errors
///
/// [`HostError::NoWebhook`] when there is none; [`HostError::Store`].
pub async fn rotate<S: WebhookStore + ?Sized>(
    store: &S,
    id: &str,
) -> Result<WebhookWithSecret, HostError> {
    let secret = new_secret()
        .ok_or_else(|| HostError::BadRequest("the system has no randomness".to_owned()))?;
    let until = UnixTime::now().after(ROTATION_OVERLAP);
    if !store.rotate_webhook_secret(id, &secret, until).await? {
        return Err(HostError::NoWebhook);
    }
    let endpoints = store.list_webhooks().await?;
    let endpoint = endpoints
        .iter()
        .find(|endpoint| endpoint.id == id)
        .ok_or(HostError::NoWebhook)?;
    Ok(WebhookWithSecret {
        webhook: WebhookView::from(endpoint),
        secret: secret.expose().to_owned(),
    })
}

/// What registers an endpoint (`POST /webhooks`, `index webhooks add`).
///
/// ```
/// use index_host::webhooks::NewWebhook;
/// let hook: NewWebhook = serde_json::from_str(r#"{"url":"https://hooks.example/index","events":["negotiation.parked"]}"#).unwrap();
/// assert!(hook.endpoint(Some("dana".parse().unwrap())).is_ok());
/// let bad = NewWebhook { url: "ftp://hooks.example/".into(), ..hook };
/// assert!(bad.endpoint(None).is_err());
/// ```
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewWebhook {
    /// Where deliveries are posted: an `http` or `https` URL with no user
    /// name or password in it.
    pub url: String,
    /// The person whose negotiations it hears of. An agent's key may only
    /// name its own person (the default); a host key names anyone, or no
    /// one for an endpoint that hears of every negotiation.
    #[schemars(with = "Option<UserId>")]
    pub user: Option<String>,
    /// The event types it wants (every type when absent or empty).
    #[schemars(with = "Option<Vec<EventType>>")]
    pub events: Option<Vec<String>>,
}

impl NewWebhook {
    /// The endpoint this registers for `user` (or the host's, for
    /// `None`), with a fresh id and secret, made now.
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for a URL that is not one the host posts
    /// to, or an event type it does not know.
    pub fn endpoint(&self, user: Option<UserId>) -> Result<WebhookEndpoint, HostError> {
        let url = checked_url(&self.url)?;
        let types = self
            .events
            .iter()
            .flatten()
            .map(|name| {
                EventType::from_name(name).ok_or_else(|| {
                    HostError::BadRequest(format!(
                        "events: {name:?} is not an event type (one of {})",
                        EventType::NAMES.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let secret = signature::new_secret()
            .ok_or_else(|| HostError::BadRequest("the system has no randomness".to_owned()))?;
        Ok(WebhookEndpoint {
            id: format!("wh_{}", uuid::Uuid::new_v4().simple()),
            user,
            url,
            events: EventFilter::only(types),
            secret,
            previous_secret: None,
            created_at: UnixTime::now(),
            disabled: None,
        })
    }
}

/// `url` as an endpoint's, or why not.
fn checked_url(url: &str) -> Result<String, HostError> {
    let refuse = |why: &str| Err(HostError::BadRequest(format!("url: {why}")));
    if url.len() > URL_LIMIT {
        return refuse("longer than 2048 characters");
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return refuse("not a URL");
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return refuse("not http or https");
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return refuse("a user name or password does not belong in it");
    }
    if parsed.host().is_none() {
        return refuse("no host");
    }
    Ok(parsed.to_string())
}

/// An endpoint as the host shows it: never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookView {
    /// Its id (`wh_…`).
    pub id: String,
    /// The person whose negotiations it hears of; `null` for a host's
    /// endpoint, which hears of every negotiation.
    pub user: Option<UserId>,
    /// Where deliveries are posted.
    pub url: String,
    /// The event types it wants; `null` for every type.
    pub events: Option<Vec<EventType>>,
    /// When it was registered.
    pub created_at: UnixTime,
    /// Until when the secret a rotation replaced still signs deliveries.
    pub previous_secret_until: Option<UnixTime>,
    /// When deliveries to it were given up, and why; `null` while it
    /// receives. A replay enables it again.
    pub disabled: Option<DisabledView>,
}

/// Why an endpoint stopped receiving.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DisabledView {
    /// When.
    pub at: UnixTime,
    /// What the last attempt met.
    pub reason: String,
}

impl From<&WebhookEndpoint> for WebhookView {
    fn from(endpoint: &WebhookEndpoint) -> Self {
        WebhookView {
            id: endpoint.id.clone(),
            user: endpoint.user.clone(),
            url: endpoint.url.clone(),
            events: match &endpoint.events {
                EventFilter::All => None,
                EventFilter::Only(types) => Some(types.clone()),
            },
            created_at: endpoint.created_at,
            previous_secret_until: endpoint
                .previous_secret
                .as_ref()
                .map(|(_, until)| *until)
                .filter(|until| *until > UnixTime::now()),
            disabled: endpoint.disabled.as_ref().map(|off| DisabledView {
                at: off.at,
                reason: off.reason.clone(),
            }),
        }
    }
}

/// A registered endpoint or a rotated one, with its secret: the one time
/// the secret is shown. Its `Debug` never shows it.
#[derive(Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookWithSecret {
    /// The endpoint.
    #[serde(flatten)]
    pub webhook: WebhookView,
    /// The `whsec_` secret deliveries are signed with: keep it now, it is
    /// not shown again.
    pub secret: String,
}

impl std::fmt::Debug for WebhookWithSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookWithSecret")
            .field("webhook", &self.webhook)
            .finish_non_exhaustive()
    }
}

/// `POST /webhooks/{id}/replay`'s body: the range of events to send again.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplayQuery {
    /// Events written at or after this moment (RFC 3339); all when absent.
    #[schemars(with = "Option<UnixTime>")]
    pub since: Option<String>,
    /// Events written at or before this moment (RFC 3339); all when absent.
    #[schemars(with = "Option<UnixTime>")]
    pub until: Option<String>,
}

/// How many deliveries a replay queued.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Replayed {
    /// Deliveries queued again.
    pub queued: u64,
}

impl Host {
    /// Registers an endpoint: the caller's person's for an agent's key,
    /// anyone's or the host's own for a host key.
    ///
    /// # Errors
    ///
    /// [`HostError::Forbidden`] for an agent's key naming another person;
    /// [`HostError::BadRequest`] as [`NewWebhook::endpoint`] and
    /// [`register`];
    /// [`HostError::Store`].
    pub async fn add_webhook(
        &self,
        caller: &Caller,
        hook: NewWebhook,
    ) -> Result<WebhookWithSecret, HostError> {
        let named = hook
            .user
            .clone()
            .map(|user| id_field::<UserId>("user", user))
            .transpose()?;
        let user = match caller.scope {
            KeyScope::Host => named,
            _ if named.as_ref().is_none_or(|user| *user == caller.user_id) => {
                Some(caller.user_id.clone())
            }
            _ => return Err(HostError::Forbidden),
        };
        register(&**self.store(), hook.endpoint(user)?).await
    }

    /// The endpoints the caller may see: its person's, or every one for a
    /// host key; oldest first.
    ///
    /// # Errors
    ///
    /// [`HostError::Store`].
    pub async fn webhooks(&self, caller: &Caller) -> Result<Vec<WebhookView>, HostError> {
        Ok(self
            .visible_webhooks(caller)
            .await?
            .iter()
            .map(WebhookView::from)
            .collect())
    }

    async fn visible_webhooks(&self, caller: &Caller) -> Result<Vec<WebhookEndpoint>, HostError> {
        let all = self.store().list_webhooks().await?;
        Ok(all
            .into_iter()
            .filter(|endpoint| {
                caller.scope == KeyScope::Host || endpoint.user.as_ref() == Some(&caller.user_id)
            })
            .collect())
    }

    /// The endpoint `id`, when the caller may see it.
    async fn visible_webhook(&self, caller: &Caller, id: &str) -> Result<(), HostError> {
        let visible = self.visible_webhooks(caller).await?;
        if visible.iter().any(|endpoint| endpoint.id == id) {
            Ok(())
        } else {
            Err(HostError::NoWebhook)
        }
    }

    /// Removes an endpoint the caller may see, with the deliveries waiting
    /// for it.
    ///
    /// # Errors
    ///
    /// [`HostError::NoWebhook`] when there is none the caller may see;
    /// [`HostError::Store`].
    pub async fn remove_webhook(&self, caller: &Caller, id: &str) -> Result<(), HostError> {
        self.visible_webhook(caller, id).await?;
        if self.store().remove_webhook(id).await? {
            Ok(())
        } else {
            Err(HostError::NoWebhook)
        }
    }

    /// Gives an endpoint the caller may see a new secret; the old one
    /// signs beside it for [`ROTATION_OVERLAP`].
    ///
    /// # Errors
    ///
    /// As [`Host::remove_webhook`].
    pub async fn rotate_webhook_secret(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<WebhookWithSecret, HostError> {
        self.visible_webhook(caller, id).await?;
        rotate(&**self.store(), id).await
    }

    /// Sends an endpoint's deliveries of a range again (enabling it if it
    /// was disabled).
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for a moment that is not RFC 3339; as
    /// [`Host::remove_webhook`].
    pub async fn replay_webhook(
        &self,
        caller: &Caller,
        id: &str,
        query: ReplayQuery,
    ) -> Result<Replayed, HostError> {
        let range = ReplayRange {
            endpoint: id.to_owned(),
            since: query.since.map(|at| moment("since", &at)).transpose()?,
            until: query.until.map(|at| moment("until", &at)).transpose()?,
        };
        self.visible_webhook(caller, id).await?;
        let queued = self
            .store()
            .replay_deliveries(&range, UnixTime::now())
            .await?
            .ok_or(HostError::NoWebhook)?;
        Ok(Replayed { queued })
    }
}
