//! Reading a block out of JSON text, and checking a typed block against the
//! rules: well-typed text is decoded straight into the block's shape and
//! checked by the typed rules, which report exactly what the JSON walk
//! ([`crate::walk`]) would; anything else takes the walk.

use std::fmt;
use std::sync::LazyLock;

use memchr::memmem;

use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::block::{QuestionBlock, QuestionBlockQuestion};
use crate::error::InvalidQuestionBlock;
use crate::limits::MAX_QUESTIONS;
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

fn decode<const GIVE_UP: bool>(json: &str) -> Decoded {
    let decoded = match serde_json::from_str::<FastBlock<GIVE_UP>>(json) {
        Ok(decoded) => decoded,
        Err(err) if GIVE_UP && err.to_string().starts_with(GAVE_UP) => {
            return Decoded::TooManyQuestions;
        }
        Err(_) => return Decoded::Untyped,
    };
    match decoded.questions {
        FastQuestions::TooMany => Decoded::TooManyQuestions,
        FastQuestions::Within(questions) if is_one(decoded.version) => Decoded::Typed(
            QuestionBlock::new(questions.into_iter().map(Into::into).collect()),
        ),
        FastQuestions::Within(_) => Decoded::Untyped,
    }
}

/// The message [`FastQuestions`] stops with when told to give up; no serde
/// message starts so.
const GAVE_UP: &str = "gave up past the most questions a block holds";

fn is_one(version: f64) -> bool {
    version == 1.0
}

/// Reads a block from JSON text, reporting every problem.
pub(crate) fn block_from_str(json: &str) -> Result<QuestionBlock, FromStrError> {
    if let Decoded::Typed(block) = decode::<false>(json) {
        return validate_block(&block)
            .map(|()| block)
            .map_err(FromStrError::Invalid);
    }
    let value: Value = serde_json::from_str(json).map_err(FromStrError::Json)?;
    block_from_view(&&value).map_err(FromStrError::Invalid)
}

/// The searcher for the `questions` key, built once: building one costs
/// more than searching a typical payload.
static QUESTIONS_KEY: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("questions"));

/// [`block_from_str`]'s decision alone, which can stop early: a payload
/// with too many questions is refused without reading them all.
pub(crate) fn decide_block(json: &str) -> Option<QuestionBlock> {
    // Without escapes, a second `questions` key (which JavaScript lets
    // replace the first) would be spelled out; with no second spelling,
    // the 21st question settles it and the rest need not even be JSON.
    let one_questions_key = memchr::memchr(b'\\', json.as_bytes()).is_none()
        && QUESTIONS_KEY.find_iter(json.as_bytes()).take(2).count() == 1;
    let decoded = if one_questions_key {
        decode::<true>(json)
    } else {
        decode::<false>(json)
    };
    match decoded {
        Decoded::Typed(block) => validate_block(&block).ok().map(|()| block),
        Decoded::TooManyQuestions => None,
        Decoded::Untyped => block_from_str(json).ok(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastBlock<const GIVE_UP: bool> {
    version: f64,
    questions: FastQuestions<GIVE_UP>,
}

/// The questions array, given up on past [`MAX_QUESTIONS`] items: with
/// `GIVE_UP`, by failing with [`GAVE_UP`] at once; without, once the rest
/// is checked to be JSON.
enum FastQuestions<const GIVE_UP: bool> {
    Within(Vec<FastQuestion>),
    TooMany,
}

impl<'de, const GIVE_UP: bool> Deserialize<'de> for FastQuestions<GIVE_UP> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items<const GIVE_UP: bool>;
        impl<'de, const GIVE_UP: bool> Visitor<'de> for Items<GIVE_UP> {
            type Value = FastQuestions<GIVE_UP>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of questions")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
                let mut questions = Vec::new();
                while let Some(question) = items.next_element::<FastQuestion>()? {
                    if questions.len() == MAX_QUESTIONS {
                        if GIVE_UP {
                            return Err(serde::de::Error::custom(GAVE_UP));
                        }
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
        deserializer.deserialize_seq(Items::<GIVE_UP>)
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
    check_duplicate_refs(&block.questions, &mut issues);
    finish(issues, ())
}

impl QuestionBlock {
    /// Checks every rule of the contract, reporting every problem found.
    ///
    /// ```
    /// use index_question_block::{QuestionBlock, QuestionBlockQuestion};
    /// let block = QuestionBlock::new(vec![QuestionBlockQuestion::new("", "not-a-uuid")]);
    /// let err = block.validate().unwrap_err();
    /// assert_eq!(err.issues().len(), 2);
    /// assert_eq!(err.issues()[1].path.to_string(), "questions.0.opportunityId");
    /// ```
    pub fn validate(&self) -> Result<(), InvalidQuestionBlock> {
        validate_block(self)
    }
}
