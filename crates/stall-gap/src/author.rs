//! The author: at most two model calls, each under the turn timeout. The
//! reference reads every failure as "no gap"; here a failure is its own
//! answer, so the park decision still ends without a park but an operator
//! learns why.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;

use index_negotiation::{NegotiationConsultationReason, resolve_turn_timeout_ms, turn_timeout};
use index_negotiation_store::ErrorChain;
use index_question_block::StructuredQuestion;

use crate::input::{NegotiationStallGap, StallGapAuthorInput};
use crate::judge::QuestionJudge;
use crate::model::StructuredModel;
use crate::prompt::stall_gap_messages;

/// Finds the one question a stalled negotiation needs answered.
#[async_trait]
pub trait StallGapAuthor: Send + Sync {
    /// The gap, or `Ok(None)` when there is none worth asking about.
    ///
    /// # Errors
    ///
    /// [`AuthorFailure`] when the author could not tell (the model failed,
    /// timed out, or never answered in the expected shape). The park
    /// decision treats it as the reference treats a missing gap, a stall
    /// with no park, and reports it.
    async fn author(
        &self,
        input: &StallGapAuthorInput,
    ) -> Result<Option<NegotiationStallGap>, AuthorFailure>;

    /// The second opinion a question the gate's rules passed must also
    /// pass, if this author's host asked for one; none by default.
    fn judge(&self) -> Option<&dyn QuestionJudge> {
        None
    }
}

/// Why an author could not tell whether there is a gap.
///
/// ```
/// use index_stall_gap::AuthorFailure;
/// let failure = AuthorFailure::Timeout { timeout_ms: 15_000 };
/// assert_eq!(failure.to_string(), "the model did not answer within 15000 ms");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum AuthorFailure {
    /// The model call failed (unreachable, an HTTP error, a body that is
    /// not JSON), with what the model seam said.
    #[error("the model call failed: {0}")]
    Model(String),
    /// The model did not answer within the turn timeout.
    #[error("the model did not answer within {timeout_ms} ms")]
    Timeout {
        /// The timeout, in milliseconds.
        timeout_ms: u64,
    },
    /// Every answer the model gave lacked the output's shape, or claimed a
    /// gap without a reason and a question.
    #[error("the model's {attempts} answers did not have the expected shape")]
    Unreadable {
        /// How many answers it gave.
        attempts: usize,
    },
}

/// The most model calls one authoring makes.
pub const MAX_MODEL_CALLS: usize = 2;

/// A [`StallGapAuthor`] backed by a [`StructuredModel`].
///
/// Each call runs under the turn timeout. An answer that does not have the
/// output's shape, or claims a gap without a reason and a question, earns
/// one more call; `hasGap: false` is final at once; a model error or a
/// timeout ends the authoring with an [`AuthorFailure`], as do two unreadable
/// answers.
#[derive(Debug, Clone)]
pub struct ModelStallGapAuthor<M> {
    model: M,
    timeout: Duration,
    judge: Option<Arc<dyn QuestionJudge>>,
}

impl<M: StructuredModel> ModelStallGapAuthor<M> {
    /// An author whose timeout is the negotiator's turn timeout, resolved
    /// now from `NEGOTIATOR_TURN_TIMEOUT_MS` or the default.
    pub fn new(model: M) -> Self {
        Self::with_timeout_ms(model, None)
    }

    /// An author with a timeout override in milliseconds; an invalid one
    /// falls back as [`resolve_turn_timeout_ms`] does.
    pub fn with_timeout_ms(model: M, override_ms: Option<f64>) -> Self {
        ModelStallGapAuthor {
            model,
            timeout: turn_timeout(resolve_turn_timeout_ms(override_ms)),
            judge: None,
        }
    }

    /// The same author, with `judge` as the second opinion its questions
    /// must pass after the rules (see [`StallGapAuthor::judge`]).
    #[must_use]
    pub fn with_judge(mut self, judge: Arc<dyn QuestionJudge>) -> Self {
        self.judge = Some(judge);
        self
    }

    /// The timeout each model call runs under.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// What one model answer amounts to, read as the output schema reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StallGapOutput {
    /// Not the output's shape: worth one more call.
    Malformed,
    /// The model found nothing worth asking: final.
    NoGap,
    /// A gap claimed without its reason or question: worth one more call.
    Incomplete,
    /// A complete gap, not yet checked by the safety gate.
    Gap(NegotiationStallGap),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    has_gap: bool,
    #[serde(default)]
    reason: Option<NegotiationConsultationReason>,
    #[serde(default)]
    question: Option<Value>,
}

/// Reads a model's answer as the output schema does: an object whose
/// `hasGap` is a boolean; `reason` and `question`, when present and not
/// null, must be valid; other keys are ignored. For hosts that call their
/// model themselves; [`ModelStallGapAuthor`] reads every answer with it.
///
/// ```
/// use index_stall_gap::{StallGapOutput, read_stall_gap_output};
/// let value = serde_json::json!({"hasGap": false, "note": "ignored"});
/// assert_eq!(read_stall_gap_output(&value), StallGapOutput::NoGap);
/// assert_eq!(read_stall_gap_output(&serde_json::json!([false])), StallGapOutput::Malformed);
/// ```
pub fn read_stall_gap_output(value: &Value) -> StallGapOutput {
    // serde reads a struct from an array too; the schema wants an object.
    if !value.is_object() {
        return StallGapOutput::Malformed;
    }
    let Ok(output) = Output::deserialize(value) else {
        return StallGapOutput::Malformed;
    };
    let question = match output.question.filter(|q| !q.is_null()) {
        None => None,
        Some(question) => match StructuredQuestion::from_json_value(&question) {
            Ok(question) => Some(question),
            Err(_) => return StallGapOutput::Malformed,
        },
    };
    match (output.has_gap, output.reason, question) {
        (false, _, _) => StallGapOutput::NoGap,
        (true, Some(reason), Some(question)) => {
            StallGapOutput::Gap(NegotiationStallGap { reason, question })
        }
        (true, _, _) => StallGapOutput::Incomplete,
    }
}

#[async_trait]
impl<M: StructuredModel> StallGapAuthor for ModelStallGapAuthor<M> {
    async fn author(
        &self,
        input: &StallGapAuthorInput,
    ) -> Result<Option<NegotiationStallGap>, AuthorFailure> {
        let messages = stall_gap_messages(input);
        for attempt in 1..=MAX_MODEL_CALLS {
            let value = match tokio::time::timeout(self.timeout, self.model.complete(&messages))
                .await
            {
                Ok(Ok(value)) => value,
                Ok(Err(err)) => {
                    // The failure says "the model call failed" itself: its
                    // reason is the cause.
                    let err = ErrorChain(err.0.as_ref()).to_string();
                    tracing::warn!(error = %err, attempt, "stall-gap model call failed; no park");
                    return Err(AuthorFailure::Model(err));
                }
                Err(_) => {
                    let timeout_ms = u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX);
                    tracing::warn!(
                        timeout_ms,
                        attempt,
                        "stall-gap model call timed out; no park"
                    );
                    return Err(AuthorFailure::Timeout { timeout_ms });
                }
            };
            match read_stall_gap_output(&value) {
                StallGapOutput::Gap(gap) => return Ok(Some(gap)),
                StallGapOutput::NoGap => return Ok(None),
                StallGapOutput::Malformed => {
                    tracing::warn!(attempt, "stall-gap output does not have the expected shape")
                }
                StallGapOutput::Incomplete => tracing::warn!(
                    attempt,
                    "stall-gap output claims a gap without a reason and a question"
                ),
            }
        }
        Err(AuthorFailure::Unreadable {
            attempts: MAX_MODEL_CALLS,
        })
    }

    fn judge(&self) -> Option<&dyn QuestionJudge> {
        self.judge.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question() -> Value {
        json!({"title": "Budget", "prompt": "Which budget?", "options": [
            {"label": "Low", "description": "Retry with the low figure."},
            {"label": "High", "description": "Retry with the high figure."}
        ], "multiSelect": false})
    }

    #[test]
    fn answers_read_as_the_output_schema() {
        let cases = [
            (json!({"hasGap": false}), "NoGap"),
            (json!({"hasGap": false, "reason": "bogus"}), "Malformed"),
            (
                json!({"hasGap": false, "question": {"title": 1}}),
                "Malformed",
            ),
            (
                json!({"hasGap": true, "reason": null, "question": null}),
                "Incomplete",
            ),
            (
                json!({"hasGap": true, "reason": "repeated_non_convergence"}),
                "Incomplete",
            ),
            (
                json!({"hasGap": true, "question": question()}),
                "Incomplete",
            ),
            (
                json!({"hasGap": true, "reason": "repeated_non_convergence", "question": question(), "extra": 1}),
                "Gap",
            ),
            (json!({"hasGap": "true"}), "Malformed"),
            (json!({}), "Malformed"),
            (json!([true]), "Malformed"),
            (json!(null), "Malformed"),
        ];
        for (value, expected) in cases {
            let answer = format!("{:?}", read_stall_gap_output(&value));
            assert!(answer.starts_with(expected), "{value}: {answer}");
        }
    }

    #[test]
    fn a_question_over_its_limits_is_malformed() {
        let mut long_title = question();
        long_title["title"] = json!("Thirteen chr.");
        let value =
            json!({"hasGap": true, "reason": "repeated_non_convergence", "question": long_title});
        assert!(matches!(
            read_stall_gap_output(&value),
            StallGapOutput::Malformed
        ));
    }
}
