//! The model seam: hosts plug their provider in here.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

index_js::wire_enum! {
    crate index_stall_gap;
    /// Who a chat message is from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ChatRole {
        /// Instructions.
        System = "system",
        /// The material to work on.
        User = "user",
    }
}

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who it is from.
    pub role: ChatRole,
    /// What it says.
    pub content: String,
}

/// Why a model call failed.
///
/// The cause is the source, to walk (as [`ErrorChain`] does) or downcast;
/// the message is this error's own.
///
/// ```
/// use index_negotiation_store::ErrorChain;
/// use index_stall_gap::ModelError;
/// let err = ModelError::msg("timed out");
/// assert_eq!(err.to_string(), "model call failed");
/// assert_eq!(ErrorChain(&err).to_string(), "model call failed: timed out");
/// ```
///
/// [`ErrorChain`]: index_negotiation_store::ErrorChain
#[derive(Debug, thiserror::Error)]
#[error("model call failed")]
pub struct ModelError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

impl ModelError {
    /// A failure described by `message`.
    pub fn msg(message: impl Into<String>) -> Self {
        ModelError(message.into().into())
    }
}

/// A model that answers with structured output (a JSON value). The caller
/// checks the value's shape; a model need only return what it produced.
#[async_trait]
pub trait StructuredModel: Send + Sync {
    /// Sends `messages` and returns the model's JSON answer.
    async fn complete(&self, messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError>;
}

#[async_trait]
impl<M: StructuredModel + ?Sized> StructuredModel for std::sync::Arc<M> {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError> {
        (**self).complete(messages).await
    }
}
