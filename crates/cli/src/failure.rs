//! How a command fails, and the exit code each kind of failure means.

use std::process::ExitCode;

/// A command's failure. Every variant prints as one or two plain sentences.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The body is not a question message, or a checked file failed (exit 1).
    #[error("{0}")]
    NotAMessage(String),
    /// The input cannot be used: a file that cannot be read, malformed JSON,
    /// an invalid block or id (exit 2).
    #[error("{0}")]
    Input(String),
    /// The protocol refused (exit 3); the message names the code.
    #[error("refused ({code}): {explanation}")]
    Refused {
        /// The rejection code.
        code: &'static str,
        /// One plain sentence.
        explanation: &'static str,
    },
    /// The store failed (exit 4).
    #[error("{0}")]
    Storage(#[from] index_negotiation_store::StoreError),
}

impl Failure {
    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self {
            Failure::NotAMessage(_) => 1,
            Failure::Input(_) => 2,
            Failure::Refused { .. } => 3,
            Failure::Storage(_) => 4,
        })
    }
}
