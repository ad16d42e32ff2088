//! Reading a block out of JSON the way the reference's zod schema does, and
//! checking a typed block against the same rules.
//!
//! zod reports every problem it finds, in schema order: each field's type
//! and limits, then the object's unknown keys, then the block-wide refinement
//! (duplicate refs), which only runs while no type or literal check has
//! failed. Both walks below follow that order exactly.

use std::fmt;

use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::MAX_QUESTIONS;
use crate::block::{QuestionBlock, QuestionBlockQuestion};
use crate::error::{InvalidQuestionBlock, IssueCode, JsonType};
use crate::rules::{
    At, Issues, check_also_unblocks_count, check_duplicate_refs, check_prompt,
    check_question_count, check_ref,
};

const BLOCK_KEYS: [&str; 2] = ["version", "questions"];
const QUESTION_KEYS: [&str; 3] = ["prompt", "opportunityId", "alsoUnblocks"];

/// Whether `value` is the literal 1 as JavaScript compares it: any JSON
/// number whose double value is exactly 1.
pub(crate) fn is_version_literal(value: &Value) -> bool {
    value.as_f64() == Some(1.0)
}

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
    block_from_value(&value).map_err(FromStrError::Invalid)
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

pub(crate) fn block_from_value(value: &Value) -> Result<QuestionBlock, InvalidQuestionBlock> {
    let mut issues = Issues::default();
    let root = At::Root;
    let Some(object) = expect_object(&root, value, &mut issues) else {
        return finish(issues, QuestionBlock::new(Vec::new()));
    };

    if !object.get("version").is_some_and(is_version_literal) {
        issues.push(&root.key("version"), IssueCode::InvalidVersion);
    }

    let questions_at = root.key("questions");
    let mut questions = Vec::new();
    if let Some(items) = expect_array(&questions_at, object.get("questions"), &mut issues) {
        check_question_count(&questions_at, items.len(), &mut issues);
        for (index, item) in items.iter().enumerate() {
            if let Some(question) =
                question_from_value(&questions_at.index(index), item, &mut issues)
            {
                questions.push(question);
            }
        }
    }
    check_unknown_keys(&root, object, &BLOCK_KEYS, &mut issues);

    if issues.refinement_runs() {
        check_duplicate_refs(
            questions.iter().map(QuestionBlockQuestion::refs),
            &mut issues,
        );
    }
    finish(issues, QuestionBlock::new(questions))
}

pub(crate) fn question_from_root(
    value: &Value,
) -> Result<QuestionBlockQuestion, InvalidQuestionBlock> {
    let mut issues = Issues::default();
    match question_from_value(&At::Root, value, &mut issues) {
        Some(question) if issues.0.is_empty() => Ok(question),
        _ => Err(InvalidQuestionBlock::new(issues.0)),
    }
}

fn question_from_value(
    at: &At<'_>,
    value: &Value,
    issues: &mut Issues,
) -> Option<QuestionBlockQuestion> {
    let object = expect_object(at, value, issues)?;

    let prompt_at = at.key("prompt");
    let prompt = expect_string(&prompt_at, object.get("prompt"), issues);
    if let Some(prompt) = prompt {
        check_prompt(&prompt_at, prompt, issues);
    }

    let id_at = at.key("opportunityId");
    let opportunity_id = expect_string(&id_at, object.get("opportunityId"), issues);
    if let Some(id) = opportunity_id {
        check_ref(&id_at, id, issues);
    }

    let mut also_unblocks = None;
    let mut refs_complete = true;
    if let Some(refs_value) = object.get("alsoUnblocks") {
        let refs_at = at.key("alsoUnblocks");
        match expect_array(&refs_at, Some(refs_value), issues) {
            Some(items) => {
                check_also_unblocks_count(&refs_at, items.len(), issues);
                let mut refs = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    let item_at = refs_at.index(index);
                    match expect_string(&item_at, Some(item), issues) {
                        Some(reference) => {
                            check_ref(&item_at, reference, issues);
                            refs.push(reference.to_owned());
                        }
                        None => refs_complete = false,
                    }
                }
                also_unblocks = Some(refs);
            }
            None => refs_complete = false,
        }
    }
    check_unknown_keys(at, object, &QUESTION_KEYS, issues);

    match (prompt, opportunity_id, refs_complete) {
        (Some(prompt), Some(id), true) => Some(QuestionBlockQuestion {
            prompt: prompt.to_owned(),
            opportunity_id: id.to_owned(),
            also_unblocks,
        }),
        _ => None,
    }
}

fn finish<T>(issues: Issues, value: T) -> Result<T, InvalidQuestionBlock> {
    if issues.0.is_empty() {
        Ok(value)
    } else {
        Err(InvalidQuestionBlock::new(issues.0))
    }
}

fn type_issue(at: &At<'_>, expected: JsonType, found: Option<&Value>, issues: &mut Issues) {
    issues.push(
        at,
        IssueCode::InvalidType {
            expected,
            received: found.map(JsonType::of),
        },
    );
}

fn expect_object<'v>(
    at: &At<'_>,
    value: &'v Value,
    issues: &mut Issues,
) -> Option<&'v Map<String, Value>> {
    let object = value.as_object();
    if object.is_none() {
        type_issue(at, JsonType::Object, Some(value), issues);
    }
    object
}

fn expect_array<'v>(
    at: &At<'_>,
    value: Option<&'v Value>,
    issues: &mut Issues,
) -> Option<&'v Vec<Value>> {
    let array = value.and_then(Value::as_array);
    if array.is_none() {
        type_issue(at, JsonType::Array, value, issues);
    }
    array
}

fn expect_string<'v>(
    at: &At<'_>,
    value: Option<&'v Value>,
    issues: &mut Issues,
) -> Option<&'v str> {
    let string = value.and_then(Value::as_str);
    if string.is_none() {
        type_issue(at, JsonType::String, value, issues);
    }
    string
}

fn check_unknown_keys(
    at: &At<'_>,
    object: &Map<String, Value>,
    known: &[&str],
    issues: &mut Issues,
) {
    let keys: Vec<String> = object
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .cloned()
        .collect();
    if !keys.is_empty() {
        issues.push(at, IssueCode::UnrecognizedKeys { keys });
    }
}
