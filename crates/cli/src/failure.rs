//! How a command fails: the exit code each kind of failure means, and the
//! one error shape every command prints under `--json`.

use std::process::ExitCode;

use serde::Serialize;

use index_negotiation_store::Refusal;
use index_negotiation_store::StoreError;

/// A command's failure. Every variant prints as one or two plain sentences.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The body is not a question message, or a checked file failed (exit 1).
    #[error("{0}")]
    NotAMessage(String),
    /// The command line is wrong: a flag, an id, a store name (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The command line does not parse (exit 2): `code` says how
    /// (`unknown_argument`, `missing_argument`, `invalid_value`, or
    /// `usage`), `message` is the parser's own explanation.
    #[error("{message}")]
    Parse {
        /// The kind of mistake.
        code: CliCode,
        /// What the parser says, without styling.
        message: String,
    },
    /// The input cannot be used: a file that cannot be read, malformed JSON,
    /// an invalid block (exit 2).
    #[error("{0}")]
    Input(String),
    /// The protocol refused (exit 3); the message names the code.
    #[error("refused ({}): {explanation}", refusal.code())]
    Refused {
        /// What the rules refused.
        refusal: Refusal,
        /// One plain sentence, or two.
        explanation: String,
    },
    /// The model a command needed failed: unreachable, an error, a body
    /// that is not JSON, too slow (exit 5).
    #[error("{0}")]
    Model(String),
    /// The store failed, or is not where the command was told (exit 4, or
    /// 2 for a store that is missing or named wrongly).
    #[error(transparent)]
    Storage(#[from] StoreError),
    /// Not a failure: a command whose outcome has its own exit status
    /// (`negotiation wait`: settled, parked, timed out) printed what
    /// happened; only the status remains.
    #[error("")]
    Ended(u8),
    /// A failure whose JSON output the command has already printed (the
    /// per-file report of `check`); only its sentence and exit code remain.
    #[error(transparent)]
    Reported(Box<Failure>),
}

index_js::wire_enum! {
    crate index_cli;
    /// The command line's own error codes under `--json`
    /// (`docs/cli-json.md`); a rules refusal carries its rejection's code
    /// instead.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CliCode {
        /// Input that is not a question message.
        NotAQuestionMessage = "not_a_question_message",
        /// A command line that cannot be used.
        Usage = "usage",
        /// An argument the command does not take.
        UnknownArgument = "unknown_argument",
        /// An argument the command needs.
        MissingArgument = "missing_argument",
        /// An argument's value that cannot be used.
        InvalidValue = "invalid_value",
        /// Input that cannot be used: unreadable, malformed.
        InvalidInput = "invalid_input",
        /// The model a command needed failed.
        ModelFailed = "model_failed",
        /// No store at the path given.
        StoreNotFound = "store_not_found",
        /// The store failed.
        StoreFailed = "store_failed",
        /// A wait that ended without the change it waited for.
        Ended = "ended",
    }
}

/// `{"error": {"code", "message"}}`: what every command prints on standard
/// output under `--json` when it fails, beside its exit code.
#[derive(Serialize)]
struct Envelope<'a> {
    error: Body<'a>,
}

#[derive(Serialize)]
struct Body<'a> {
    code: &'a str,
    message: String,
}

impl Failure {
    /// A refusal with the rejection's own explanation.
    pub(crate) fn refused(refusal: impl Into<Refusal>) -> Self {
        let refusal = refusal.into();
        Failure::Refused {
            refusal,
            explanation: refusal.explanation().to_owned(),
        }
    }

    /// A command line the parser refused, as `--json` reports it: the
    /// parser's explanation (its first paragraph, without `error:` or
    /// styling), and a code for its kind.
    pub(crate) fn parse(err: &clap::Error) -> Self {
        use clap::error::ErrorKind;
        let code = match err.kind() {
            ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand => CliCode::UnknownArgument,
            ErrorKind::MissingRequiredArgument | ErrorKind::MissingSubcommand => {
                CliCode::MissingArgument
            }
            ErrorKind::InvalidValue | ErrorKind::ValueValidation | ErrorKind::InvalidUtf8 => {
                CliCode::InvalidValue
            }
            _ => CliCode::Usage,
        };
        let rendered = err.render().to_string();
        let first = rendered.split("\n\n").next().unwrap_or_default();
        let message = first.trim().trim_start_matches("error:").trim().to_owned();
        Failure::Parse { code, message }
    }

    /// The `not_found` refusal, the same for every command.
    pub(crate) fn not_found() -> Self {
        Failure::refused(index_negotiation::NegotiationRejection::NotFound)
    }

    /// The stable code in the JSON error: a rejection's own code, or the
    /// command line's ([`CliCode`]).
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Failure::NotAMessage(_) => CliCode::NotAQuestionMessage.as_str(),
            Failure::Usage(_) | Failure::Storage(StoreError::InvalidRequest(_)) => {
                CliCode::Usage.as_str()
            }
            Failure::Parse { code, .. } => code.as_str(),
            Failure::Input(_) => CliCode::InvalidInput.as_str(),
            Failure::Refused { refusal, .. } => refusal.code(),
            Failure::Model(_) => CliCode::ModelFailed.as_str(),
            Failure::Storage(StoreError::Missing { .. }) => CliCode::StoreNotFound.as_str(),
            Failure::Storage(_) => CliCode::StoreFailed.as_str(),
            Failure::Reported(inner) => inner.code(),
            Failure::Ended(_) => CliCode::Ended.as_str(),
        }
    }

    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self {
            Failure::NotAMessage(_) => 1,
            Failure::Usage(_) | Failure::Parse { .. } | Failure::Input(_) => 2,
            Failure::Storage(StoreError::Missing { .. } | StoreError::InvalidRequest(_)) => 2,
            Failure::Refused { .. } => 3,
            Failure::Storage(_) => 4,
            Failure::Model(_) => 5,
            Failure::Reported(inner) => return inner.exit_code(),
            Failure::Ended(status) => *status,
        })
    }

    /// The JSON error for this failure; `None` when the command printed its
    /// own report.
    pub(crate) fn to_json(&self) -> Option<String> {
        if let Failure::Reported(_) | Failure::Ended(_) = self {
            return None;
        }
        let message = match self {
            Failure::Refused { explanation, .. } => explanation.clone(),
            other => index_negotiation_store::ErrorChain(other).to_string(),
        };
        serde_json::to_string_pretty(&Envelope {
            error: Body {
                code: self.code(),
                message,
            },
        })
        .ok()
    }
}
