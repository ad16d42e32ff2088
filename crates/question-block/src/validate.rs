//! Reading a block out of JSON text, and checking a typed block against the
//! rules: well-typed text is decoded straight into the block's shape and
//! checked by the typed rules, which report exactly what the JSON walk
//! ([`crate::walk`]) would; anything else takes the walk.

use std::fmt;

use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::MAX_QUESTIONS;
use crate::block::{QuestionBlock, QuestionBlockQuestion};
use crate::error::InvalidQuestionBlock;
use crate::rules::{
    At, Issues, check_also_unblocks_count, check_duplicate_refs, check_prompt,
    check_question_count, check_ref,
};
use crate::walk::{block_from_view, finish};

/// Why JSON text did not yield a block.
pub(crate) enum FromStrError {
    /// The text is not JSON.
    Json(serde_json::Error),
    /// The JSON breaks the contract.
    Invalid(InvalidQuestionBlock),
}

/// A straight decode into the block's shape, without building a `Value`
/// tree: the first step of both readers.
enum Decoded {
    /// Well-typed; the typed rules report exactly what the JSON walk would
    /// (there are no type problems to interleave).
    Typed(QuestionBlock),
    /// Well-typed up to more questions than a block may hold, so invalid
    /// whatever the rest holds; the rest was only checked to be JSON.
    TooManyQuestions,
    /// Anything serde's derive refuses, including duplicate keys that
    /// JavaScript resolves last-wins: only the faithful `Value` walk decides.
    Untyped,
}

fn decode(json: &str) -> Decoded {
    let Ok(FastBlock { version, questions }) = serde_json::from_str::<FastBlock>(json) else {
        return Decoded::Untyped;
    };
    match questions {
        FastQuestions::TooMany => Decoded::TooManyQuestions,
        FastQuestions::Within(questions) if is_one(version) => Decoded::Typed(QuestionBlock::new(
            questions.into_iter().map(Into::into).collect(),
        )),
        FastQuestions::Within(_) => Decoded::Untyped,
    }
}

fn is_one(version: f64) -> bool {
    version == 1.0
}

/// Reads a block from JSON text, reporting every problem.
pub(crate) fn block_from_str(json: &str) -> Result<QuestionBlock, FromStrError> {
    if let Decoded::Typed(block) = decode(json) {
        return validate_block(&block)
            .map(|()| block)
            .map_err(FromStrError::Invalid);
    }
    let value: Value = serde_json::from_str(json).map_err(FromStrError::Json)?;
    block_from_view(&&value).map_err(FromStrError::Invalid)
}

/// [`block_from_str`]'s decision alone, which can stop early: a payload
/// with too many questions is refused without reading them all.
pub(crate) fn decide_block(json: &str) -> Option<QuestionBlock> {
    match decode(json) {
        Decoded::Typed(block) => validate_block(&block).ok().map(|()| block),
        Decoded::TooManyQuestions => None,
        Decoded::Untyped => block_from_str(json).ok(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastBlock {
    version: f64,
    questions: FastQuestions,
}

/// The questions array, given up on past [`MAX_QUESTIONS`] items.
enum FastQuestions {
    Within(Vec<FastQuestion>),
    TooMany,
}

impl<'de> Deserialize<'de> for FastQuestions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> Visitor<'de> for Items {
            type Value = FastQuestions;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of questions")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
                let mut questions = Vec::new();
                while let Some(question) = items.next_element::<FastQuestion>()? {
                    if questions.len() == MAX_QUESTIONS {
                        // The rest must still be JSON (a later duplicate
                        // `questions` key could replace this array), but
                        // need not be questions.
                        while items.next_element::<IgnoredAny>()?.is_some() {}
                        return Ok(FastQuestions::TooMany);
                    }
                    questions.push(question);
                }
                Ok(FastQuestions::Within(questions))
            }
        }
        deserializer.deserialize_seq(Items)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FastQuestion {
    prompt: String,
    opportunity_id: String,
    /// Absent reads as `None`; `null` is refused (zod's `.optional()` does
    /// not accept null), sending the input to the faithful walk.
    #[serde(default, deserialize_with = "present_list")]
    also_unblocks: Option<Vec<String>>,
}

fn present_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    Vec::<String>::deserialize(deserializer).map(Some)
}

impl From<FastQuestion> for QuestionBlockQuestion {
    fn from(fast: FastQuestion) -> Self {
        QuestionBlockQuestion {
            prompt: fast.prompt,
            opportunity_id: fast.opportunity_id,
            also_unblocks: fast.also_unblocks,
        }
    }
}

pub(crate) fn validate_block(block: &QuestionBlock) -> Result<(), InvalidQuestionBlock> {
    let mut issues = Issues::default();
    let root = At::Root;
    let questions_at = root.key("questions");
    check_question_count(&questions_at, block.questions.len(), &mut issues);
    for (index, question) in block.questions.iter().enumerate() {
        let at = questions_at.index(index);
        check_prompt(&at.key("prompt"), &question.prompt, &mut issues);
        check_ref(
            &at.key("opportunityId"),
            &question.opportunity_id,
            &mut issues,
        );
        if let Some(refs) = &question.also_unblocks {
            let refs_at = at.key("alsoUnblocks");
            check_also_unblocks_count(&refs_at, refs.len(), &mut issues);
            for (ref_index, reference) in refs.iter().enumerate() {
                check_ref(&refs_at.index(ref_index), reference, &mut issues);
            }
        }
    }
    check_duplicate_refs(
        block.questions.iter().map(QuestionBlockQuestion::refs),
        &mut issues,
    );
    finish(issues, ())
}
