//! The block's types, in the reference's JSON shape and field order.

use serde::{Deserialize, Serialize, Serializer};

use crate::error::InvalidQuestionBlock;
use crate::limits::QUESTION_BLOCK_VERSION;

/// The block's `version` field, which can only be the literal `1`.
///
/// A unit type rather than a number so that a [`QuestionBlock`] of any other
/// version cannot be constructed. It serializes as `1` and deserializes from
/// any JSON number whose double value is exactly 1 (`1`, `1.0`, `1e0`), as
/// JavaScript reads numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuestionBlockVersion;

impl Serialize for QuestionBlockVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(QUESTION_BLOCK_VERSION)
    }
}

/// One question in a block: a prompt rendered as one step of the steps UI,
/// and the negotiations its answer unparks.
///
/// A question has no id of its own: its identity is [`opportunity_id`], the
/// primary negotiation it unparks. References are kept as the strings the
/// reference carries (any UUID spelling its check accepts, case preserved),
/// not normalised, so a block round-trips byte for byte.
///
/// [`opportunity_id`]: QuestionBlockQuestion::opportunity_id
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionBlockQuestion {
    /// The question as the person reads it: 1 to 2000 UTF-16 code units.
    pub prompt: String,
    /// The primary negotiation (an opportunity id, a UUID) this answer unparks.
    pub opportunity_id: String,
    /// Other negotiations stalled on the very same missing answer, resumed
    /// together with the primary one: at most 8 UUIDs. An empty list is kept distinct from an
    /// absent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub also_unblocks: Option<Vec<String>>,
}

impl QuestionBlockQuestion {
    /// A question with no further negotiations to unblock.
    ///
    /// ```
    /// use index_question_block::QuestionBlockQuestion;
    /// let q = QuestionBlockQuestion::new("Remote or on-site?", "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4");
    /// assert!(q.also_unblocks.is_none());
    /// ```
    pub fn new(prompt: impl Into<String>, opportunity_id: impl Into<String>) -> Self {
        QuestionBlockQuestion {
            prompt: prompt.into(),
            opportunity_id: opportunity_id.into(),
            also_unblocks: None,
        }
    }

    /// The same question, also unparking `refs` when answered.
    ///
    /// ```
    /// use index_question_block::QuestionBlockQuestion;
    /// let q = QuestionBlockQuestion::new("Remote or on-site?", "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4")
    ///     .also_unblocking(["7c1f4e08-b2d9-4a63-8e5c-d0a9f3b61e27"]);
    /// assert_eq!(q.also_unblocks.as_deref().map(<[String]>::len), Some(1));
    /// ```
    pub fn also_unblocking<I, S>(mut self, refs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.also_unblocks = Some(refs.into_iter().map(Into::into).collect());
        self
    }

    /// Every negotiation reference this question carries, primary first.
    pub fn refs(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.opportunity_id.as_str())
            .chain(self.also_unblocks.iter().flatten().map(String::as_str))
    }
}

/// The block: a versioned, non-empty list of questions.
///
/// The block is a view of the negotiations currently parked for one scope,
/// rebuilt whenever they change; it deliberately carries no state of its own
/// (no answered flags, timestamps or question ids).
///
/// Deserializing validates: a `QuestionBlock` obtained through serde, like
/// one from [`QuestionBlock::from_json_value`], satisfies every rule. One
/// built by hand is checked by [`QuestionBlock::validate`], which
/// [`serialize_question_message`](crate::serialize_question_message) calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub struct QuestionBlock {
    /// Always 1.
    pub version: QuestionBlockVersion,
    /// 1 to 20 questions; no negotiation reference may appear twice in the
    /// whole block.
    pub questions: Vec<QuestionBlockQuestion>,
}

impl QuestionBlock {
    /// A version-1 block of `questions`.
    ///
    /// ```
    /// use index_question_block::{QuestionBlock, QuestionBlockQuestion};
    /// let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
    ///     "Remote or on-site?",
    ///     "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4",
    /// )]);
    /// assert!(block.validate().is_ok());
    /// ```
    pub fn new(questions: Vec<QuestionBlockQuestion>) -> Self {
        QuestionBlock {
            version: QuestionBlockVersion,
            questions,
        }
    }
}

impl TryFrom<serde_json::Value> for QuestionBlock {
    type Error = InvalidQuestionBlock;

    fn try_from(value: serde_json::Value) -> Result<Self, Self::Error> {
        QuestionBlock::from_json_value(&value)
    }
}

/// A question message taken apart: the agent's prose and the block after it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ParsedQuestionMessage {
    /// Everything before the block's opening fence, with trailing whitespace
    /// removed as JavaScript's `trimEnd` does. May be empty.
    pub prose: String,
    /// The block, valid by construction.
    pub block: QuestionBlock,
}
