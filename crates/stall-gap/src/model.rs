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

/// The shape a call asks the model to answer in: a JSON Schema and the
/// name a server files it under. [`StructuredModel::complete`] asks for the
/// stall-gap output; other callers (the gate's judge) ask for their own.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSchema {
    /// The schema's name, as servers report it (`[a-zA-Z0-9_-]`).
    pub name: &'static str,
    /// The JSON Schema, strict: every property required, none other allowed.
    pub schema: serde_json::Value,
}

/// What a call cost, in the tokens the server counted; a server that does
/// not say leaves it out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TokenUsage {
    /// Tokens read (the messages).
    pub prompt_tokens: u64,
    /// Tokens written (the answer).
    pub completion_tokens: u64,
}

/// A model's answer to a call with an [`OutputSchema`].
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The JSON the model produced.
    pub value: serde_json::Value,
    /// What it cost, when the server said.
    pub usage: Option<TokenUsage>,
}

/// A model that answers with structured output (a JSON value). The caller
/// checks the value's shape; a model need only return what it produced.
#[async_trait]
pub trait StructuredModel: Send + Sync {
    /// Sends `messages` and returns the model's JSON answer.
    async fn complete(&self, messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError>;

    /// Sends `messages`, asking for an answer in `schema`'s shape, and
    /// returns it with what it cost. A model that cannot be told a schema
    /// (a double, a provider without structured output) answers as
    /// [`complete`](Self::complete) does, its cost unknown; the caller
    /// checks the shape either way.
    ///
    /// ```
    /// use index_stall_gap::{OutputSchema, Scripted, ScriptedModel, StructuredModel};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let model = ScriptedModel::new([Scripted::Value(serde_json::json!({"ok": true}))]);
    /// let schema = OutputSchema { name: "ok", schema: serde_json::json!({"type": "object"}) };
    /// let answer = model.complete_with_schema(&[], &schema).await.unwrap();
    /// assert_eq!(answer.value, serde_json::json!({"ok": true}));
    /// assert_eq!(answer.usage, None);
    /// # });
    /// ```
    async fn complete_with_schema(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<Completion, ModelError> {
        let _ = schema;
        Ok(Completion {
            value: self.complete(messages).await?,
            usage: None,
        })
    }
}

#[async_trait]
impl<M: StructuredModel + ?Sized> StructuredModel for std::sync::Arc<M> {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError> {
        (**self).complete(messages).await
    }

    async fn complete_with_schema(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<Completion, ModelError> {
        (**self).complete_with_schema(messages, schema).await
    }
}
