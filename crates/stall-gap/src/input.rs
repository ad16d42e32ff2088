//! What the author is given, and what it returns.

use serde::{Deserialize, Serialize};

use index_negotiation::NegotiationConsultationReason;
use index_question_block::StructuredQuestion;

index_js::wire_enum! {
    crate index_stall_gap;
    /// Why the negotiation ended without a conclusion.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum StallReason {
        /// It used every turn it had without agreeing.
        TurnCap = "turn_cap",
        /// A turn took too long.
        Timeout = "timeout",
        /// It stopped moving for any other reason.
        Stalled = "stalled",
    }
}

impl StallReason {
    /// Classifies an unconcluded end: the turn cap when it was reached; a
    /// timeout when the error mentions one (in any case); otherwise a stall.
    ///
    /// ```
    /// use index_stall_gap::StallReason;
    /// assert_eq!(StallReason::classify(false, Some("model call TimeOut after 15s")), StallReason::Timeout);
    /// assert_eq!(StallReason::classify(true, Some("timeout")), StallReason::TurnCap);
    /// assert_eq!(StallReason::classify(false, None), StallReason::Stalled);
    /// ```
    pub fn classify(at_turn_cap: bool, error: Option<&str>) -> Self {
        if at_turn_cap {
            StallReason::TurnCap
        } else if error.is_some_and(|e| e.to_lowercase().contains("timeout")) {
            StallReason::Timeout
        } else {
            StallReason::Stalled
        }
    }
}

/// The person's signal the negotiation was about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signal {
    /// Its title.
    pub title: String,
    /// What it asks for.
    pub description: String,
}

/// One turn of the negotiation, as the author sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TranscriptTurn {
    /// What the turn did (`propose`, `counter`, ...).
    pub action: String,
    /// The acting agent's reasoning.
    pub reasoning: String,
    /// What it said to the other side, if anything.
    pub message: Option<String>,
}

index_js::wire_enum! {
    crate index_stall_gap;
    /// Who spoke in the person's own conversation with their negotiator.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ConversationRole {
        /// The person.
        User = "user",
        /// Their negotiator.
        Negotiator = "negotiator",
    }
}

/// A message from the person's conversation with their negotiator.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConversationMessage {
    /// Who said it.
    pub role: ConversationRole,
    /// What was said.
    pub text: String,
}

/// Everything the author may ground its question in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StallGapAuthorInput {
    /// The display name of the person the question is for.
    pub user_name: String,
    /// The signal under negotiation.
    pub signal: Signal,
    /// Why the match was suggested: context for the author, never material
    /// for the question.
    pub seed_reasoning: String,
    /// The negotiation's turns, oldest first.
    pub transcript: Vec<TranscriptTurn>,
    /// Why it ended unconcluded.
    pub stall_reason: StallReason,
    /// Recent messages from the person's conversation with their negotiator
    /// about this signal, oldest first; `None` or empty when there are none.
    pub conversation: Option<Vec<ConversationMessage>>,
}

impl StallGapAuthorInput {
    /// The conversation excerpt, when there is one to ground in.
    pub fn conversation(&self) -> Option<&[ConversationMessage]> {
        self.conversation
            .as_deref()
            .filter(|messages| !messages.is_empty())
    }
}

/// The one gap a retry needs filled: the question, and why pausing for it is
/// warranted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NegotiationStallGap {
    /// Why the pause is warranted.
    pub reason: NegotiationConsultationReason,
    /// What the person is asked.
    pub question: StructuredQuestion,
}
