//! A webhook endpoint's row and a claimed delivery's, as both SQL backends
//! read them.

use crate::error::StoreError;
use crate::time::UnixTime;
use crate::webhooks::{
    Delivery, Disabled, EventFilter, EventType, WebhookEndpoint, WebhookSecret, message_id,
};

use super::stored_id;

/// The endpoint table's columns in the order [`StoredEndpoint`] reads
/// them, each prefixed with `e.` (a claim joins the table as `e`).
pub const ENDPOINT_COLUMNS: &str = "e.id, e.user_id, e.url, e.events, e.secret, \
     e.previous_secret, e.previous_until, e.created_at, e.disabled_at, e.disabled_reason";

/// An endpoint's columns as a SQL backend keeps them, before they are
/// checked. Its `Debug` never shows the secrets.
#[derive(Clone)]
#[allow(missing_docs)] // each field is the column of the same name
pub struct StoredEndpoint {
    pub id: String,
    pub user_id: Option<String>,
    pub url: String,
    pub events: String,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_until: Option<i64>,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
    pub disabled_reason: Option<String>,
}

impl std::fmt::Debug for StoredEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredEndpoint")
            .field("id", &self.id)
            .field("user_id", &self.user_id)
            .field("url", &self.url)
            .field("events", &self.events)
            .field("created_at", &self.created_at)
            .field("disabled_at", &self.disabled_at)
            .finish_non_exhaustive()
    }
}

/// An endpoint read back from storage: an unknown event type, a negative
/// time or a user id that fails its check is [`StoreError::Corrupt`].
///
/// ```
/// use index_negotiation_store::EventFilter;
/// use index_negotiation_store::sql_rows::{StoredEndpoint, stored_endpoint};
/// let row = StoredEndpoint {
///     id: "wh_1".into(), user_id: Some("dana".into()), url: "https://example.com/hook".into(),
///     events: "*".into(), secret: "whsec_AAAA".into(), previous_secret: None,
///     previous_until: None, created_at: 100, disabled_at: None, disabled_reason: None,
/// };
/// assert_eq!(stored_endpoint(row.clone())?.events, EventFilter::All);
/// assert!(stored_endpoint(StoredEndpoint { events: ",negotiation.erased,".into(), ..row }).is_err());
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] as above.
pub fn stored_endpoint(row: StoredEndpoint) -> Result<WebhookEndpoint, StoreError> {
    let previous_secret = match (row.previous_secret, row.previous_until) {
        (Some(secret), Some(until)) => {
            Some((WebhookSecret::new(secret), UnixTime::from_stored(until)?))
        }
        _ => None,
    };
    let disabled = match row.disabled_at {
        Some(at) => Some(Disabled {
            at: UnixTime::from_stored(at)?,
            reason: row.disabled_reason.unwrap_or_default(),
        }),
        None => None,
    };
    Ok(WebhookEndpoint {
        id: row.id,
        user: row.user_id.map(stored_id).transpose()?,
        url: row.url,
        events: EventFilter::from_stored(&row.events)?,
        secret: WebhookSecret::new(row.secret),
        previous_secret,
        created_at: UnixTime::from_stored(row.created_at)?,
        disabled,
    })
}

/// A claimed delivery's own columns (`seq, message, event, body,
/// created_at, attempts, traceparent`), each prefixed with `d.`, before
/// its endpoint's.
pub const DELIVERY_COLUMNS: &str =
    "d.seq, d.message, d.event, d.body, d.created_at, d.attempts, d.traceparent";

/// A claimed delivery's columns as a SQL backend keeps them.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // each field is the column of the same name
pub struct StoredDelivery {
    pub seq: i64,
    pub message: i64,
    pub event: String,
    pub body: String,
    pub created_at: i64,
    pub attempts: i64,
    pub traceparent: Option<String>,
    pub endpoint: StoredEndpoint,
}

/// A claimed delivery read back from storage.
///
/// # Errors
///
/// [`StoreError::Corrupt`] for a negative number or time, or an unknown
/// event type, here or in its endpoint.
pub fn stored_delivery(row: StoredDelivery) -> Result<Delivery, StoreError> {
    let number = |value: i64, what: &str| {
        u64::try_from(value)
            .map_err(|_| StoreError::Corrupt(format!("a delivery's {what} {value}")))
    };
    let kind = EventType::from_name(&row.event)
        .ok_or_else(|| StoreError::Corrupt(format!("a webhook event type {:?}", row.event)))?;
    Ok(Delivery {
        seq: number(row.seq, "number")?,
        message_id: message_id(number(row.message, "message")?),
        kind,
        body: row.body,
        created_at: UnixTime::from_stored(row.created_at)?,
        attempts: u32::try_from(row.attempts).unwrap_or(u32::MAX),
        trace: row.traceparent,
        endpoint: stored_endpoint(row.endpoint)?,
    })
}
