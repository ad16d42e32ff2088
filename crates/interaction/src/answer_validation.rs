//! Checking an accepted answer against its spec.

use std::fmt;

use serde_json::{Map, Value};

use crate::data::{InteractionData, data_to_json};
use crate::fields::{InteractionAnswerSpec, InteractionField};
use crate::js::{is_blank, js_keys, js_number_string, js_string, utf16_len};

/// One thing wrong with an answer. [`code`](AnswerProblem::code) is stable
/// and names the field; the display text is for people.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnswerProblem {
    /// A key no field has.
    UnknownField(String),
    /// A required field is missing (absent, null or the empty string).
    MissingRequired(String),
    /// A text or secret field holds something other than a string.
    NotAString(String),
    /// A text or secret answer is longer than `maxLength` (UTF-16 units).
    TooLong(String, u64),
    /// A number field holds something other than a finite number.
    NotAFiniteNumber(String),
    /// Below the field's `min`.
    BelowMin(String, f64),
    /// Above the field's `max`.
    AboveMax(String, f64),
    /// A boolean field holds something else.
    NotABoolean(String),
    /// A select field holds something other than a list.
    NotAnArray(String),
    /// A single select holds more than one value.
    SingleValueOnly(String),
    /// A required select is empty.
    SelectionRequired(String),
    /// A write-in that is not a non-blank string.
    BlankWriteIn(String),
    /// A value that is not an option (and write-ins are not allowed).
    InvalidOption(String, String),
    /// A permission answer without exactly one grant.
    GrantCount,
    /// A permission answer whose grant is not a grant.
    InvalidGrant(String),
    /// A grant broader than the request's scopes.
    GrantExceedsScopes(String),
}

impl AnswerProblem {
    /// A stable code: the kind, then the field (and value) it concerns,
    /// separated by colons (`invalid_option:color:teal`).
    pub fn code(&self) -> String {
        match self {
            AnswerProblem::UnknownField(f) => format!("unknown_field:{f}"),
            AnswerProblem::MissingRequired(f) => format!("missing_required:{f}"),
            AnswerProblem::NotAString(f) => format!("not_a_string:{f}"),
            AnswerProblem::TooLong(f, _) => format!("too_long:{f}"),
            AnswerProblem::NotAFiniteNumber(f) => format!("not_a_finite_number:{f}"),
            AnswerProblem::BelowMin(f, _) => format!("below_min:{f}"),
            AnswerProblem::AboveMax(f, _) => format!("above_max:{f}"),
            AnswerProblem::NotABoolean(f) => format!("not_a_boolean:{f}"),
            AnswerProblem::NotAnArray(f) => format!("not_an_array:{f}"),
            AnswerProblem::SingleValueOnly(f) => format!("single_value_only:{f}"),
            AnswerProblem::SelectionRequired(f) => format!("selection_required:{f}"),
            AnswerProblem::BlankWriteIn(f) => format!("blank_write_in:{f}"),
            AnswerProblem::InvalidOption(f, v) => format!("invalid_option:{f}:{v}"),
            AnswerProblem::GrantCount => "grant_count".to_owned(),
            AnswerProblem::InvalidGrant(g) => format!("invalid_grant:{g}"),
            AnswerProblem::GrantExceedsScopes(g) => format!("grant_exceeds_scopes:{g}"),
        }
    }
}

impl fmt::Display for AnswerProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerProblem::UnknownField(name) => write!(f, "no field is named \"{name}\""),
            AnswerProblem::MissingRequired(name) => write!(f, "\"{name}\" is required"),
            AnswerProblem::NotAString(name) => write!(f, "\"{name}\" needs text"),
            AnswerProblem::TooLong(name, max) => {
                write!(f, "\"{name}\" is longer than {max} characters")
            }
            AnswerProblem::NotAFiniteNumber(name) => write!(f, "\"{name}\" needs a finite number"),
            AnswerProblem::BelowMin(name, min) => {
                write!(f, "\"{name}\" is below {}", js_number_string(*min))
            }
            AnswerProblem::AboveMax(name, max) => {
                write!(f, "\"{name}\" is above {}", js_number_string(*max))
            }
            AnswerProblem::NotABoolean(name) => write!(f, "\"{name}\" needs true or false"),
            AnswerProblem::NotAnArray(name) => {
                write!(f, "\"{name}\" needs a list of option values")
            }
            AnswerProblem::SingleValueOnly(name) => write!(f, "\"{name}\" takes one value only"),
            AnswerProblem::SelectionRequired(name) => write!(f, "\"{name}\" needs a choice"),
            AnswerProblem::BlankWriteIn(name) => write!(f, "\"{name}\" has an empty write-in"),
            AnswerProblem::InvalidOption(name, value) => {
                write!(f, "\"{name}\" has \"{value}\", which is not an option")
            }
            AnswerProblem::GrantCount => write!(f, "a permission answer needs exactly one grant"),
            AnswerProblem::InvalidGrant(grant) => {
                write!(f, "\"{grant}\" is not a permission grant")
            }
            AnswerProblem::GrantExceedsScopes(grant) => write!(
                f,
                "the grant \"{grant}\" is broader than the request allows"
            ),
        }
    }
}

/// Checks an accepted answer's data against `spec`: unknown keys first (in
/// key order), then each field in spec order. Every problem is returned.
///
/// ```
/// use index_interaction::*;
/// let spec = permission_answer_spec(None, true);
/// let mut data = InteractionData::new();
/// data.insert("grant".into(), InteractionValue::Choices(vec!["allow_once".into()]));
/// assert!(validate_interaction_answer(&spec, Some(&data)).is_ok());
/// data.insert("mood".into(), InteractionValue::Text("fine".into()));
/// let problems = validate_interaction_answer(&spec, Some(&data)).unwrap_err();
/// assert_eq!(problems[0].code(), "unknown_field:mood");
/// ```
pub fn validate_interaction_answer(
    spec: &InteractionAnswerSpec,
    data: Option<&InteractionData>,
) -> Result<(), Vec<AnswerProblem>> {
    let json = data.map(data_to_json);
    let problems = answer_problems(spec, json.as_ref());
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// [`validate_interaction_answer`] on untyped JSON data, as an answer
/// arrives before it is known to be well formed.
pub fn validate_interaction_answer_value(
    spec: &InteractionAnswerSpec,
    data: Option<&Map<String, Value>>,
) -> Result<(), Vec<AnswerProblem>> {
    let problems = answer_problems(spec, data);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

pub(crate) fn answer_problems(
    spec: &InteractionAnswerSpec,
    data: Option<&Map<String, Value>>,
) -> Vec<AnswerProblem> {
    let empty = Map::new();
    let data = data.unwrap_or(&empty);
    let mut problems: Vec<AnswerProblem> = js_keys(data)
        .into_iter()
        .filter(|key| spec.field(key).is_none())
        .map(|key| AnswerProblem::UnknownField(key.clone()))
        .collect();
    for field in &spec.fields {
        let name = field.name().to_owned();
        let present = data
            .get(field.name())
            .filter(|v| !v.is_null() && v.as_str() != Some(""));
        let Some(value) = present else {
            if field.is_required() {
                problems.push(AnswerProblem::MissingRequired(name));
            }
            continue;
        };
        match field {
            InteractionField::Text(text) => check_text(&mut problems, name, value, text.max_length),
            InteractionField::Secret(secret) => {
                check_text(&mut problems, name, value, secret.max_length)
            }
            InteractionField::Number(number) => match value.as_f64().filter(|n| n.is_finite()) {
                None => problems.push(AnswerProblem::NotAFiniteNumber(name)),
                Some(n) => {
                    if let Some(min) = number.min.filter(|min| n < *min) {
                        problems.push(AnswerProblem::BelowMin(name.clone(), min));
                    }
                    if let Some(max) = number.max.filter(|max| n > *max) {
                        problems.push(AnswerProblem::AboveMax(name, max));
                    }
                }
            },
            InteractionField::Boolean(_) => {
                if !value.is_boolean() {
                    problems.push(AnswerProblem::NotABoolean(name));
                }
            }
            InteractionField::Select(select) => {
                let Some(choices) = value.as_array() else {
                    problems.push(AnswerProblem::NotAnArray(name));
                    continue;
                };
                if !select.multi.unwrap_or(false) && choices.len() > 1 {
                    problems.push(AnswerProblem::SingleValueOnly(name.clone()));
                }
                if select.base.required.unwrap_or(false) && choices.is_empty() {
                    problems.push(AnswerProblem::SelectionRequired(name.clone()));
                }
                for choice in choices {
                    let is_option = choice
                        .as_str()
                        .is_some_and(|c| select.options.iter().any(|o| o.value == c));
                    if is_option {
                        continue;
                    }
                    if select.allow_custom == Some(true) {
                        if choice.as_str().is_none_or(is_blank) {
                            problems.push(AnswerProblem::BlankWriteIn(name.clone()));
                        }
                        continue;
                    }
                    problems.push(AnswerProblem::InvalidOption(
                        name.clone(),
                        js_string(choice),
                    ));
                }
            }
        }
    }
    problems
}

fn check_text(
    problems: &mut Vec<AnswerProblem>,
    name: String,
    value: &Value,
    max_length: Option<u64>,
) {
    match value.as_str() {
        None => problems.push(AnswerProblem::NotAString(name)),
        Some(text) => {
            if let Some(max) = max_length.filter(|max| utf16_len(text) as u64 > *max) {
                problems.push(AnswerProblem::TooLong(name, max));
            }
        }
    }
}
