//! Reading a block out of parsed JSON the way the reference's zod schema
//! does, for any [`JsonView`].
//!
//! zod reports every problem it finds, in schema order: each field's type
//! and limits, then the object's unknown keys, then the block-wide refinement
//! (duplicate refs), which only runs while no type or literal check has
//! failed. The walk follows that order exactly.

use std::borrow::Cow;

use index_js::Problems;
use serde::{Deserialize, Deserializer};

use crate::block::{QuestionBlock, QuestionBlockQuestion, QuestionBlockVersion};
use crate::error::{InvalidQuestionBlock, IssueCode, JsonType, ValidationIssue};
use crate::limits::{MAX_QUESTIONS, QUESTION_BLOCK_KEYS, QUESTION_BLOCK_VERSION};
use crate::rules::{
    At, Issues, check_also_unblocks_count, check_duplicate_refs, check_prompt,
    check_question_count, check_ref,
};
use crate::view::JsonView;

/// The block's own keys, then a question's.
const BLOCK_KEYS: &[&str] = QUESTION_BLOCK_KEYS.split_at(2).0;
const QUESTION_KEYS: &[&str] = QUESTION_BLOCK_KEYS.split_at(2).1;

/// Whether `value` is the literal 1 as JavaScript compares it: any JSON
/// number whose double value is exactly 1.
pub(crate) fn is_version_literal<V: JsonView>(value: &V) -> bool {
    value.is_number_one()
}

pub(crate) fn block_from_view<V: JsonView>(
    value: &V,
) -> Result<QuestionBlock, InvalidQuestionBlock> {
    let mut issues = Issues::default();
    let root = At::Root;
    if !expect(&root, JsonType::Object, Some(value), &mut issues) {
        return finish(issues, QuestionBlock::new(Vec::new()));
    }

    if !value
        .member("version")
        .is_some_and(|v| is_version_literal(&v))
    {
        issues.push(&root.key("version"), IssueCode::InvalidVersion);
    }

    let questions_at = root.key("questions");
    let mut questions = Vec::new();
    if let Some(items) = expect_array(
        &questions_at,
        value.member("questions").as_ref(),
        &mut issues,
    ) {
        check_question_count(&questions_at, items.len(), &mut issues);
        for (index, item) in items.iter().enumerate() {
            if let Some(question) =
                question_from_view(&questions_at.index(index), item, &mut issues)
            {
                questions.push(question);
            }
        }
    }
    check_unknown_keys(&root, value, BLOCK_KEYS, &mut issues);

    if issues.refinement_runs() {
        check_duplicate_refs(&questions, &mut issues);
    }
    finish(issues, QuestionBlock::new(questions))
}

/// [`block_from_view`]'s decision alone, which can stop early: a block
/// whose (final) `questions` array is too long is refused without walking it.
pub(crate) fn decide_block_view<V: JsonView>(value: &V) -> Option<QuestionBlock> {
    let questions = value
        .member("questions")
        .and_then(|questions| questions.items());
    if questions.is_some_and(|items| items.len() > MAX_QUESTIONS) {
        return None;
    }
    block_from_view(value).ok()
}

pub(crate) fn question_from_root<V: JsonView>(
    value: &V,
) -> Result<QuestionBlockQuestion, InvalidQuestionBlock> {
    let mut issues = Issues::default();
    let question = question_from_view(&At::Root, value, &mut issues);
    match finish(issues, question)? {
        Some(question) => Ok(question),
        // Reading no question always records why; were that ever not so,
        // this is still a refusal rather than a panic.
        None => Err(InvalidQuestionBlock::new(Problems::one(ValidationIssue {
            path: At::Root.path(),
            code: IssueCode::InvalidType {
                expected: JsonType::Object,
                received: Some(value.json_type()),
            },
        }))),
    }
}

fn question_from_view<V: JsonView>(
    at: &At<'_>,
    value: &V,
    issues: &mut Issues,
) -> Option<QuestionBlockQuestion> {
    if !expect(at, JsonType::Object, Some(value), issues) {
        return None;
    }

    let prompt_at = at.key("prompt");
    let prompt_value = value.member("prompt");
    let prompt = expect_string(&prompt_at, prompt_value.as_ref(), issues);
    if let Some(prompt) = &prompt {
        check_prompt(&prompt_at, prompt, issues);
    }

    let id_at = at.key("opportunityId");
    let id_value = value.member("opportunityId");
    let opportunity_id = expect_string(&id_at, id_value.as_ref(), issues);
    if let Some(id) = &opportunity_id {
        check_ref(&id_at, id, issues);
    }

    let mut also_unblocks = None;
    let mut refs_complete = true;
    if let Some(refs_value) = value.member("alsoUnblocks") {
        let refs_at = at.key("alsoUnblocks");
        match expect_array(&refs_at, Some(&refs_value), issues) {
            Some(items) => {
                check_also_unblocks_count(&refs_at, items.len(), issues);
                let mut refs = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    let item_at = refs_at.index(index);
                    match expect_string(&item_at, Some(item), issues) {
                        Some(reference) => {
                            check_ref(&item_at, &reference, issues);
                            refs.push(reference.into_owned());
                        }
                        None => refs_complete = false,
                    }
                }
                also_unblocks = Some(refs);
            }
            None => refs_complete = false,
        }
    }
    check_unknown_keys(at, value, QUESTION_KEYS, issues);

    match (prompt, opportunity_id, refs_complete) {
        (Some(prompt), Some(id), true) => Some(QuestionBlockQuestion {
            prompt: prompt.into_owned(),
            opportunity_id: id.into_owned(),
            also_unblocks,
        }),
        _ => None,
    }
}

pub(crate) fn finish<T>(issues: Issues, value: T) -> Result<T, InvalidQuestionBlock> {
    Problems::check(issues.0)
        .map(|()| value)
        .map_err(InvalidQuestionBlock::new)
}

/// Whether `found` has the `expected` type, reporting a problem when not.
fn expect<V: JsonView>(
    at: &At<'_>,
    expected: JsonType,
    found: Option<&V>,
    issues: &mut Issues,
) -> bool {
    let received = found.map(JsonView::json_type);
    let matches = received == Some(expected);
    if !matches {
        issues.push(at, IssueCode::InvalidType { expected, received });
    }
    matches
}

fn expect_array<V: JsonView>(
    at: &At<'_>,
    value: Option<&V>,
    issues: &mut Issues,
) -> Option<Vec<V>> {
    if expect(at, JsonType::Array, value, issues) {
        value.and_then(JsonView::items)
    } else {
        None
    }
}

fn expect_string<'v, V: JsonView>(
    at: &At<'_>,
    value: Option<&'v V>,
    issues: &mut Issues,
) -> Option<Cow<'v, str>> {
    if expect(at, JsonType::String, value, issues) {
        value.and_then(JsonView::as_text)
    } else {
        None
    }
}

fn check_unknown_keys<V: JsonView>(at: &At<'_>, object: &V, known: &[&str], issues: &mut Issues) {
    if object.keys_are_among(known) {
        return;
    }
    let mut keys = object.keys();
    keys.retain(|key| !known.contains(&key.as_str()));
    if !keys.is_empty() {
        issues.push(at, IssueCode::UnrecognizedKeys { keys });
    }
}

impl<'de> Deserialize<'de> for QuestionBlockVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        if is_version_literal(&&value) {
            Ok(QuestionBlockVersion)
        } else {
            Err(serde::de::Error::custom(format_args!(
                "question block version must be {QUESTION_BLOCK_VERSION}, got {value}"
            )))
        }
    }
}

impl QuestionBlockQuestion {
    /// Reads one question from parsed JSON, as the reference's
    /// `QuestionBlockQuestionSchema` does on its own: unknown keys
    /// rejected, every problem reported with its path from the question.
    /// A ref repeated inside the one question is not a problem here; only
    /// a whole block forbids repeats.
    ///
    /// ```
    /// use index_question_block::QuestionBlockQuestion;
    /// let value = serde_json::json!({"prompt": "Remote?", "opportunityId": "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4"});
    /// assert_eq!(QuestionBlockQuestion::from_json_value(&value).unwrap().prompt, "Remote?");
    /// let err = QuestionBlockQuestion::from_json_value(&serde_json::json!({"prompt": ""})).unwrap_err();
    /// assert_eq!(err.issues()[0].path.to_string(), "prompt");
    /// ```
    ///
    /// # Errors
    ///
    /// [`InvalidQuestionBlock`] with every problem, in the reference's order.
    pub fn from_json_value(value: &serde_json::Value) -> Result<Self, InvalidQuestionBlock> {
        question_from_root(&value)
    }
}

impl QuestionBlock {
    /// Reads a block from parsed JSON, as the reference's schema does:
    /// unknown keys are rejected at both levels, and every problem is
    /// reported with its path.
    ///
    /// ```
    /// use index_question_block::QuestionBlock;
    /// let value = serde_json::json!({"version": 1.0, "questions": [
    ///     {"prompt": "Remote?", "opportunityId": "9D2E7A41-C3B8-4F05-A6E9-1B7D0C5F82E4"}
    /// ]});
    /// let block = QuestionBlock::from_json_value(&value)?;
    /// assert_eq!(block.questions[0].opportunity_id, "9D2E7A41-C3B8-4F05-A6E9-1B7D0C5F82E4");
    /// # Ok::<(), index_question_block::InvalidQuestionBlock>(())
    /// ```
    pub fn from_json_value(value: &serde_json::Value) -> Result<Self, InvalidQuestionBlock> {
        block_from_view(&value)
    }

    /// [`QuestionBlock::from_json_value`] on any parsed form of JSON, such
    /// as the value a browser's `JSON.parse` made.
    ///
    /// ```
    /// use index_question_block::QuestionBlock;
    /// let value = serde_json::json!({"version": 1, "questions": []});
    /// let err = QuestionBlock::from_json(&&value).unwrap_err();
    /// assert_eq!(err.issues()[0].code.rule(), "too-few-items");
    /// ```
    ///
    /// # Errors
    ///
    /// [`InvalidQuestionBlock`] with every problem, in the reference's order.
    pub fn from_json<V: JsonView>(value: &V) -> Result<Self, InvalidQuestionBlock> {
        block_from_view(value)
    }
}
