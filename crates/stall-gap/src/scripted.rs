//! A model double for tests: answers from a queue, records what it was sent.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use crate::model::{ChatMessage, ModelError, StructuredModel};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Scripted {
    /// Return this value.
    Value(serde_json::Value),
    /// Fail with this message.
    Error(String),
    /// Wait this long (on tokio's clock, so a paused test clock skips it),
    /// then give the inner answer.
    Delayed(Duration, Box<Scripted>),
}

/// A [`StructuredModel`] that replays queued answers in order and records
/// every conversation it was sent. An empty queue is an error, so a test
/// that expected fewer calls fails loudly.
#[derive(Debug, Default)]
pub struct ScriptedModel {
    queue: Mutex<VecDeque<Scripted>>,
    calls: Mutex<Vec<Vec<ChatMessage>>>,
}

impl ScriptedModel {
    /// A model that will give `answers`, in order.
    pub fn new(answers: impl IntoIterator<Item = Scripted>) -> Self {
        ScriptedModel {
            queue: Mutex::new(answers.into_iter().collect()),
            calls: Mutex::new(Vec::new()),
        }
    }

    /// Every conversation sent so far.
    pub fn calls(&self) -> Vec<Vec<ChatMessage>> {
        self.calls
            .lock()
            .map(|calls| calls.clone())
            .unwrap_or_default()
    }

    /// How many calls were made.
    pub fn call_count(&self) -> usize {
        self.calls
            .lock()
            .map(|calls| calls.len())
            .unwrap_or_default()
    }
}

#[async_trait]
impl StructuredModel for ScriptedModel {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<serde_json::Value, ModelError> {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(messages.to_vec());
        }
        let mut next = self
            .queue
            .lock()
            .ok()
            .and_then(|mut queue| queue.pop_front())
            .ok_or_else(|| ModelError::msg("the script has no more answers"))?;
        loop {
            match next {
                Scripted::Value(value) => return Ok(value),
                Scripted::Error(message) => return Err(ModelError::msg(message)),
                Scripted::Delayed(delay, inner) => {
                    tokio::time::sleep(delay).await;
                    next = *inner;
                }
            }
        }
    }
}
