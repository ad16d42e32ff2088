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
    let rules: Vec<FieldRules<'_>> = spec.fields.iter().map(FieldRules::from).collect();
    problems(&rules, data)
}

/// What answer checking reads of one field: the reference's own view of
/// it, so that a typed spec and a spec given as plain JSON are checked by
/// the same code.
pub(crate) struct FieldRules<'a> {
    name: &'a str,
    required: bool,
    check: Check,
}

/// The type-specific part of a field's rules.
enum Check {
    /// Text or secret: a string, at most this many UTF-16 units.
    Text { max_length: Option<u64> },
    /// A finite number within the bounds.
    Number { min: Option<f64>, max: Option<f64> },
    /// `true` or `false`.
    Boolean,
    /// A list of option values, or write-ins when allowed.
    Select {
        multi: bool,
        allow_custom: bool,
        /// Each option's value; `None` for one without (JavaScript's
        /// `undefined`, which no JSON choice equals).
        options: Vec<Option<Value>>,
    },
    /// A type the reference's switch has no case for: only presence counts.
    Unchecked,
}

impl<'a> From<&'a InteractionField> for FieldRules<'a> {
    fn from(field: &'a InteractionField) -> Self {
        let check = match field {
            InteractionField::Text(text) => Check::Text {
                max_length: text.max_length,
            },
            InteractionField::Secret(secret) => Check::Text {
                max_length: secret.max_length,
            },
            InteractionField::Number(number) => Check::Number {
                min: number.min,
                max: number.max,
            },
            InteractionField::Boolean(_) => Check::Boolean,
            InteractionField::Select(select) => Check::Select {
                multi: select.multi.unwrap_or(false),
                allow_custom: select.allow_custom == Some(true),
                options: select
                    .options
                    .iter()
                    .map(|option| Some(Value::String(option.value.clone())))
                    .collect(),
            },
        };
        FieldRules {
            name: field.name(),
            required: field.is_required(),
            check,
        }
    }
}

/// Why a spec given as plain JSON cannot be checked against: where the
/// reference, handed the same object, throws instead of answering.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the answer spec cannot be read: {0}")]
pub struct UnreadableSpec(pub &'static str);

/// JavaScript's `Number(value)` for the JSON a spec's bounds may hold;
/// strings, lists and objects are `NaN` here (the reference would parse a
/// numeric string, see STABILITY.md).
fn js_to_number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(_) | Value::Array(_) | Value::Object(_) => f64::NAN,
    }
}

impl<'a> FieldRules<'a> {
    /// A field of a spec given as plain JSON, read as the 0.44 reference
    /// reads it: `required` and `multi` for truthiness, `allowCustom` only
    /// when `true`, the bounds compared as numbers (`maxLength` present is
    /// a bound even when `null`, as `!== undefined` is), the options'
    /// values whatever they are, and an unknown `type` checked for
    /// presence only.
    fn from_json(field: &'a Value) -> Result<Self, UnreadableSpec> {
        let field = field
            .as_object()
            .ok_or(UnreadableSpec("a field is not an object"))?;
        let name = field
            .get("name")
            .and_then(Value::as_str)
            .ok_or(UnreadableSpec("a field's name is not a string"))?;
        let truthy = |key: &str| match field.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(_) | Value::Object(_)) => true,
        };
        let bound = |key: &str| field.get(key).map(js_to_number).filter(|n| !n.is_nan());
        let check = match field.get("type").and_then(Value::as_str) {
            Some("text" | "secret") => Check::Text {
                // `length > m` is `length > floor(m)`; below zero, every
                // present (so non-empty) string is too long, as with 0.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                max_length: bound("maxLength")
                    .map(|m| m.max(0.0).floor().min(u64::MAX as f64) as u64),
            },
            Some("number") => Check::Number {
                min: bound("min"),
                max: bound("max"),
            },
            Some("boolean") => Check::Boolean,
            Some("select") => Check::Select {
                multi: truthy("multi"),
                allow_custom: field.get("allowCustom") == Some(&Value::Bool(true)),
                options: field
                    .get("options")
                    .and_then(Value::as_array)
                    .ok_or(UnreadableSpec("a select field's options are not a list"))?
                    .iter()
                    .map(|option| match option {
                        Value::Null => Err(UnreadableSpec("an option is null")),
                        option => Ok(option.get("value").cloned()),
                    })
                    .collect::<Result<_, _>>()?,
            },
            _ => Check::Unchecked,
        };
        Ok(FieldRules {
            name,
            required: truthy("required"),
            check,
        })
    }
}

/// The fields of a spec given as plain JSON.
pub(crate) fn rules_from_json(spec: &Value) -> Result<Vec<FieldRules<'_>>, UnreadableSpec> {
    spec.get("fields")
        .and_then(Value::as_array)
        .ok_or(UnreadableSpec("the spec's fields are not a list"))?
        .iter()
        .map(FieldRules::from_json)
        .collect()
}

/// [`validate_interaction_answer`] with the spec as plain JSON, as the 0.44
/// reference takes it: any object with a `fields` list is checked against,
/// without first requiring it to be a valid spec (a field of unknown type
/// is checked for presence only). The problems are returned, none when the
/// answer is valid.
///
/// # Errors
///
/// [`UnreadableSpec`] where the reference would throw: `fields` not a
/// list, a field not an object or without a string name, a select without
/// a list of options or with a `null` one.
///
/// ```
/// use index_interaction::validate_interaction_answer_json;
/// let spec = serde_json::json!({"fields": [{"name": "n", "type": "number", "max": 3, "label": ""}]});
/// let data = serde_json::json!({"n": 5});
/// let problems = validate_interaction_answer_json(&spec, data.as_object()).unwrap();
/// assert_eq!(problems[0].code(), "above_max:n");
/// assert!(validate_interaction_answer_json(&serde_json::json!({}), None).is_err());
/// ```
pub fn validate_interaction_answer_json(
    spec: &Value,
    data: Option<&Map<String, Value>>,
) -> Result<Vec<AnswerProblem>, UnreadableSpec> {
    Ok(problems(&rules_from_json(spec)?, data))
}

pub(crate) fn problems(
    rules: &[FieldRules<'_>],
    data: Option<&Map<String, Value>>,
) -> Vec<AnswerProblem> {
    let empty = Map::new();
    let data = data.unwrap_or(&empty);
    let mut problems: Vec<AnswerProblem> = js_keys(data)
        .into_iter()
        .filter(|key| !rules.iter().any(|field| field.name == key.as_str()))
        .map(|key| AnswerProblem::UnknownField(key.clone()))
        .collect();
    // What `data[name]` reads for a name the data does not own but every
    // object inherits (`constructor`, `toString`, …): a function, or for
    // `__proto__` an object. Either fails every field type's check, as an
    // empty object does.
    let inherited = Value::Object(Map::new());
    for field in rules {
        let name = field.name.to_owned();
        let present = data
            .get(field.name)
            .or_else(|| is_object_prototype_member(field.name).then_some(&inherited))
            .filter(|v| !v.is_null() && v.as_str() != Some(""));
        let Some(value) = present else {
            if field.required {
                problems.push(AnswerProblem::MissingRequired(name));
            }
            continue;
        };
        match &field.check {
            Check::Text { max_length } => check_text(&mut problems, name, value, *max_length),
            Check::Number { min, max } => match value.as_f64().filter(|n| n.is_finite()) {
                None => problems.push(AnswerProblem::NotAFiniteNumber(name)),
                Some(n) => {
                    if let Some(min) = min.filter(|min| n < *min) {
                        problems.push(AnswerProblem::BelowMin(name.clone(), min));
                    }
                    if let Some(max) = max.filter(|max| n > *max) {
                        problems.push(AnswerProblem::AboveMax(name, max));
                    }
                }
            },
            Check::Boolean => {
                if !value.is_boolean() {
                    problems.push(AnswerProblem::NotABoolean(name));
                }
            }
            Check::Select {
                multi,
                allow_custom,
                options,
            } => {
                let Some(choices) = value.as_array() else {
                    problems.push(AnswerProblem::NotAnArray(name));
                    continue;
                };
                if !multi && choices.len() > 1 {
                    problems.push(AnswerProblem::SingleValueOnly(name.clone()));
                }
                if field.required && choices.is_empty() {
                    problems.push(AnswerProblem::SelectionRequired(name.clone()));
                }
                for choice in choices {
                    if options.iter().flatten().any(|option| option == choice) {
                        continue;
                    }
                    if *allow_custom {
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
            Check::Unchecked => {}
        }
    }
    problems
}

/// The names every JavaScript object inherits from `Object.prototype`. The
/// 0.44 reference reads an answer's fields as `data[field.name]`, through
/// the prototype chain, so a field with one of these names is never absent.
const OBJECT_PROTOTYPE_MEMBERS: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

fn is_object_prototype_member(name: &str) -> bool {
    OBJECT_PROTOTYPE_MEMBERS.contains(&name)
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
