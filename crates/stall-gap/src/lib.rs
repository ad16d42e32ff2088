//! When a negotiation ends without a conclusion: find the one question only
//! its person can answer, check it, and park the negotiation on it, or end
//! it for good.
//!
//! * [`ModelStallGapAuthor`] asks a [`StructuredModel`] (the seam a host
//!   plugs its provider into) for the gap, at most twice, each call under
//!   the negotiator's turn timeout. A failure is an [`AuthorFailure`], which
//!   the park decision reports as it ends without a park.
//! * [`check_authored_negotiation_question`] (and its boolean form,
//!   [`is_safe_authored_negotiation_question`]) is the fail-closed gate a
//!   question must pass before a person sees it, with a [`GateRule`] as the
//!   reason when it refuses. A host may put a [`QuestionJudge`] (a model,
//!   [`ModelQuestionJudge`]) behind it, off by default.
//! * [`park_stalled_negotiation`] decides: within the ask-round budget, a
//!   safe gap becomes an `ask_user` park turn in the negotiation's record
//!   (through a [`ParkSink`]); anything else is a terminal stall.
//!
//! ```
//! use index_stall_gap::*;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let model = ScriptedModel::new([Scripted::Value(serde_json::json!({"hasGap": false}))]);
//! let author = ModelStallGapAuthor::with_timeout_ms(model, Some(5_000.0));
//! let input = StallGapAuthorInput {
//!     user_name: "Dana".into(),
//!     signal: Signal { title: "Co-founder".into(), description: "A technical co-founder".into() },
//!     seed_reasoning: "Both build batteries.".into(),
//!     transcript: vec![],
//!     stall_reason: StallReason::Stalled,
//!     conversation: None,
//! };
//! assert_eq!(author.author(&input).await, Ok(None));
//! # });
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `input` | what the author is given |
//! | `model` | the `StructuredModel` seam |
//! | `prompt` | the two messages |
//! | `author` | the loop and the output reading |
//! | `judge` | the optional second opinion: a model asked after the rules pass |
//! | `safety` | the gate: normalised views, one rule family per module |
//! | `park` | the park decision and the `ParkSink` port |
//! | `stored` | the park of a stored negotiation, committed through `Negotiations::park` |
//! | `openai` | the model on OpenAI-compatible servers (feature `openai`) |
//! | `scripted` | the model double (feature `testing`) |

mod author;
mod input;
mod judge;
mod model;
#[cfg(feature = "openai")]
mod openai;
mod park;
mod prompt;
mod safety;
#[cfg(feature = "testing")]
mod scripted;
mod stored;

pub use author::{
    AuthorFailure, MAX_MODEL_CALLS, ModelStallGapAuthor, StallGapAuthor, StallGapOutput,
    read_stall_gap_output,
};
pub use input::{
    ConversationMessage, ConversationRole, NegotiationStallGap, Signal, StallGapAuthorInput,
    StallReason, TranscriptTurn,
};
pub use judge::{
    DEFAULT_JUDGE_TIMEOUT, JudgeFailurePolicy, JudgeReason, JudgeStats, ModelQuestionJudge,
    QuestionJudge, judge_messages, judge_output_schema, read_judge_output,
};
pub use model::{
    ChatMessage, ChatRole, Completion, ModelError, OutputSchema, StructuredModel, TokenUsage,
};
#[cfg(feature = "openai")]
pub use openai::{
    MAX_RETRY_AFTER, MODEL_API_KEY_ENV, MODEL_BASE_URL_ENV, MODEL_ENV, OpenAiCompatibleModel,
    gap_output_schema, trace_headers,
};
pub use park::{
    NEGOTIATION_PARK_REASONING, NegotiationEnd, ParkContext, ParkOutcome, ParkOutcomeKind,
    ParkSink, ParkSinkError, REJECT_LIKE_ACTIONS, can_spend_ask_round, park_stalled_negotiation,
};
pub use prompt::stall_gap_messages;
pub use safety::{
    GateRefusal, GateRule, MAX_VISIBLE_FIELD_LENGTH, MIN_ECHO_LENGTH,
    MIN_FORBIDDEN_IDENTIFIER_LENGTH, QuestionField, check_authored_negotiation_question,
    is_safe_authored_negotiation_question, normalized_visible_text,
};
#[cfg(feature = "testing")]
pub use scripted::{Scripted, ScriptedModel};
pub use stored::{
    ParkError, ParkReport, ParkRequest, Parked, park_negotiation, question_block, question_message,
    question_message_unblocking,
};
