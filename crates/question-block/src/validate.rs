//! Reading a block out of JSON the way the reference's zod schema does, and
//! checking a typed block against the same rules.
//!
//! zod reports every problem it finds, in schema order: each field's type
//! and limits, then the object's unknown keys, then the block-wide refinement
//! (duplicate refs), which only runs while no type or literal check has
//! failed. Both walks below follow that order exactly.

use serde_json::{Map, Value};

use crate::block::{QuestionBlock, QuestionBlockQuestion};
use crate::error::{InvalidQuestionBlock, IssueCode, JsonType, ValidationPath};
use crate::rules::{
    Issues, check_also_unblocks_count, check_duplicate_refs, check_prompt, check_question_count,
    check_ref,
};

const BLOCK_KEYS: [&str; 2] = ["version", "questions"];
const QUESTION_KEYS: [&str; 3] = ["prompt", "opportunityId", "alsoUnblocks"];

/// Whether `value` is the literal 1 as JavaScript compares it: any JSON
/// number whose double value is exactly 1.
pub(crate) fn is_version_literal(value: &Value) -> bool {
    value.as_f64() == Some(1.0)
}

pub(crate) fn validate_block(block: &QuestionBlock) -> Result<(), InvalidQuestionBlock> {
    let mut issues = Issues::default();
    let questions_path = ValidationPath::default().key("questions");
    check_question_count(questions_path.clone(), block.questions.len(), &mut issues);
    for (index, question) in block.questions.iter().enumerate() {
        let path = questions_path.index(index);
        check_prompt(path.key("prompt"), &question.prompt, &mut issues);
        check_ref(
            path.key("opportunityId"),
            &question.opportunity_id,
            &mut issues,
        );
        if let Some(refs) = &question.also_unblocks {
            let refs_path = path.key("alsoUnblocks");
            check_also_unblocks_count(refs_path.clone(), refs.len(), &mut issues);
            for (ref_index, reference) in refs.iter().enumerate() {
                check_ref(refs_path.index(ref_index), reference, &mut issues);
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
    let root = ValidationPath::default();
    let Some(object) = expect_object(&root, value, &mut issues) else {
        return finish(issues, QuestionBlock::new(Vec::new()));
    };

    if !object.get("version").is_some_and(is_version_literal) {
        issues.push(root.key("version"), IssueCode::InvalidVersion);
    }

    let questions_path = root.key("questions");
    let mut questions = Vec::new();
    if let Some(items) = expect_array(&questions_path, object.get("questions"), &mut issues) {
        check_question_count(questions_path.clone(), items.len(), &mut issues);
        for (index, item) in items.iter().enumerate() {
            if let Some(question) =
                question_from_value(questions_path.index(index), item, &mut issues)
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

fn question_from_value(
    path: ValidationPath,
    value: &Value,
    issues: &mut Issues,
) -> Option<QuestionBlockQuestion> {
    let object = expect_object(&path, value, issues)?;

    let prompt_path = path.key("prompt");
    let prompt = expect_string(&prompt_path, object.get("prompt"), issues);
    if let Some(prompt) = prompt {
        check_prompt(prompt_path, prompt, issues);
    }

    let id_path = path.key("opportunityId");
    let opportunity_id = expect_string(&id_path, object.get("opportunityId"), issues);
    if let Some(id) = opportunity_id {
        check_ref(id_path, id, issues);
    }

    let mut also_unblocks = None;
    let mut refs_complete = true;
    if let Some(refs_value) = object.get("alsoUnblocks") {
        let refs_path = path.key("alsoUnblocks");
        match expect_array(&refs_path, Some(refs_value), issues) {
            Some(items) => {
                check_also_unblocks_count(refs_path.clone(), items.len(), issues);
                let mut refs = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    let item_path = refs_path.index(index);
                    match expect_string(&item_path, Some(item), issues) {
                        Some(reference) => {
                            check_ref(item_path, reference, issues);
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
    check_unknown_keys(&path, object, &QUESTION_KEYS, issues);

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

fn type_issue(
    path: &ValidationPath,
    expected: JsonType,
    found: Option<&Value>,
    issues: &mut Issues,
) {
    issues.push(
        path.clone(),
        IssueCode::InvalidType {
            expected,
            received: found.map(JsonType::of),
        },
    );
}

fn expect_object<'v>(
    path: &ValidationPath,
    value: &'v Value,
    issues: &mut Issues,
) -> Option<&'v Map<String, Value>> {
    let object = value.as_object();
    if object.is_none() {
        type_issue(path, JsonType::Object, Some(value), issues);
    }
    object
}

fn expect_array<'v>(
    path: &ValidationPath,
    value: Option<&'v Value>,
    issues: &mut Issues,
) -> Option<&'v Vec<Value>> {
    let array = value.and_then(Value::as_array);
    if array.is_none() {
        type_issue(path, JsonType::Array, value, issues);
    }
    array
}

fn expect_string<'v>(
    path: &ValidationPath,
    value: Option<&'v Value>,
    issues: &mut Issues,
) -> Option<&'v str> {
    let string = value.and_then(Value::as_str);
    if string.is_none() {
        type_issue(path, JsonType::String, value, issues);
    }
    string
}

fn check_unknown_keys(
    path: &ValidationPath,
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
        issues.push(path.clone(), IssueCode::UnrecognizedKeys { keys });
    }
}
