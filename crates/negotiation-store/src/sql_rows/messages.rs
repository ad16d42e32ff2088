//! A negotiation message's parts as one JSON text, the form SQL backends
//! store them in: each backend writing its own encoding would let two of
//! them disagree on what a stored message is, so these two functions are
//! the one definition.

use index_negotiation::NegotiationMessage;

use crate::error::StoreError;

/// The message's parts as the JSON text to store.
///
/// ```
/// use index_negotiation::{MessagePart, NegotiationMessage};
/// use index_negotiation_store::sql_rows::message_parts_text;
///
/// let message = NegotiationMessage {
///     sender_id: "agent:alice".into(),
///     parts: vec![MessagePart::Text { text: "Hello".into() }],
/// };
/// assert_eq!(message_parts_text(&message)?, r#"[{"kind":"text","text":"Hello"}]"#);
/// # Ok::<(), index_negotiation_store::StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::InvalidRequest`] when the parts cannot be written as JSON.
pub fn message_parts_text(message: &NegotiationMessage) -> Result<String, StoreError> {
    serde_json::to_string(&message.parts).map_err(|err| StoreError::InvalidRequest(err.to_string()))
}

/// The message stored as `sender_id` and the JSON text of its parts.
///
/// ```
/// use index_negotiation_store::{StoreError, sql_rows::message_from_text};
///
/// let message = message_from_text("agent:bob".into(), r#"[{"kind":"text","text":"Hi"}]"#)?;
/// assert_eq!(message.parts.len(), 1);
/// assert!(matches!(message_from_text("agent:bob".into(), "{"), Err(StoreError::Corrupt(_))));
/// # Ok::<(), StoreError>(())
/// ```
///
/// # Errors
///
/// [`StoreError::Corrupt`] when the text does not read back as parts.
pub fn message_from_text(sender_id: String, parts: &str) -> Result<NegotiationMessage, StoreError> {
    let parts = serde_json::from_str(parts).map_err(|err| {
        StoreError::Corrupt(format!("a stored message does not read back: {err}"))
    })?;
    Ok(NegotiationMessage { sender_id, parts })
}
