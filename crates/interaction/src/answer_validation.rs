//! Checking an accepted answer against its spec.

use index_js::Problems;
use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::data::{InteractionData, InteractionOutcome, data_to_json};
use crate::fields::{InteractionAnswerSpec, InteractionField};
use index_js::{is_blank, number_to_string, utf16_len};

use crate::js::{js_keys, js_string, js_to_number};
use crate::limits::{
    CONTRACT_MAX_ARRAY_LENGTH, CONTRACT_MAX_IDENTIFIER_LENGTH, CONTRACT_MAX_MAP_ENTRIES,
    CONTRACT_MAX_STRING_LENGTH, is_identifier,
};
use crate::zod::{SchemaIssue, Version};

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
    /// The spec the answer was checked against breaks its schema (0.46
    /// checks the spec first).
    Spec(SchemaIssue),
    /// The data is not an object.
    DataNotAnObject,
    /// The data has more than 256 keys.
    TooManyFields,
    /// A string value longer than 16384 UTF-16 units.
    ExceedsStringBound(String),
    /// A list value of more than 1024 items.
    TooManyValues(String),
    /// A list value holding something other than bounded strings.
    InvalidBoundedValue(String),
    /// An object value that cannot be a secret handle.
    InvalidObjectValue(String),
    /// A secret field holding neither a string nor a one-use handle.
    NotAStringOrHandle(String),
    /// A select answer of more than 1024 values.
    TooManyOptionValues(String),
    /// A declined or cancelled resolution carrying a secret field.
    SecretOnUnaccepted(String, InteractionOutcome),
    /// A declined or cancelled resolution carrying answer fields.
    AnswerOnUnaccepted(InteractionOutcome),
    /// A spec given as plain JSON that cannot be checked against, where
    /// the 0.44 reference throws (only [`crate::v0_44`]'s JSON validators
    /// report it, alone).
    Unreadable(UnreadableSpec),
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
            AnswerProblem::Spec(issue) => format!("spec:{}:{}", issue.path, issue.code.as_str()),
            AnswerProblem::DataNotAnObject => "data_not_an_object".to_owned(),
            AnswerProblem::TooManyFields => "too_many_fields".to_owned(),
            AnswerProblem::ExceedsStringBound(f) => format!("exceeds_string_bound:{f}"),
            AnswerProblem::TooManyValues(f) => format!("too_many_values:{f}"),
            AnswerProblem::InvalidBoundedValue(f) => format!("invalid_bounded_value:{f}"),
            AnswerProblem::InvalidObjectValue(f) => format!("invalid_object_value:{f}"),
            AnswerProblem::NotAStringOrHandle(f) => format!("not_a_string_or_handle:{f}"),
            AnswerProblem::TooManyOptionValues(f) => format!("too_many_option_values:{f}"),
            AnswerProblem::SecretOnUnaccepted(f, _) => format!("secret_on_unaccepted:{f}"),
            AnswerProblem::AnswerOnUnaccepted(_) => "answer_on_unaccepted".to_owned(),
            AnswerProblem::Unreadable(_) => "unreadable_spec".to_owned(),
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
                write!(f, "\"{name}\" is below {}", number_to_string(*min))
            }
            AnswerProblem::AboveMax(name, max) => {
                write!(f, "\"{name}\" is above {}", number_to_string(*max))
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
            AnswerProblem::Spec(issue) => write!(f, "the answer spec is invalid: {issue}"),
            AnswerProblem::DataNotAnObject => f.write_str("the answer data is not an object"),
            AnswerProblem::TooManyFields => write!(
                f,
                "the answer has more than {CONTRACT_MAX_MAP_ENTRIES} fields"
            ),
            AnswerProblem::ExceedsStringBound(name) => write!(
                f,
                "\"{name}\" is longer than {CONTRACT_MAX_STRING_LENGTH} characters"
            ),
            AnswerProblem::TooManyValues(name) | AnswerProblem::TooManyOptionValues(name) => {
                write!(
                    f,
                    "\"{name}\" holds more than {CONTRACT_MAX_ARRAY_LENGTH} values"
                )
            }
            AnswerProblem::InvalidBoundedValue(name) => {
                write!(f, "\"{name}\" holds something other than short text")
            }
            AnswerProblem::InvalidObjectValue(name) => {
                write!(f, "\"{name}\" holds an object that is not a secret handle")
            }
            AnswerProblem::NotAStringOrHandle(name) => {
                write!(f, "\"{name}\" needs text or a one-use secret handle")
            }
            AnswerProblem::SecretOnUnaccepted(name, outcome) => write!(
                f,
                "\"{name}\" is secret and may not ride a {} resolution",
                outcome.as_str()
            ),
            AnswerProblem::AnswerOnUnaccepted(outcome) => write!(
                f,
                "a {} resolution carries no answer fields",
                outcome.as_str()
            ),
            AnswerProblem::Unreadable(unreadable) => write!(f, "{unreadable}"),
        }
    }
}

/// Checks an accepted answer's data against `spec`, as 0.46 does: the
/// spec first (a spec read through [`crate::v0_44`] may break 0.46's
/// bounds), then each key's bounds and whether a field has it (in key
/// order), then each field in spec order. Every problem is returned.
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
) -> Result<(), Problems<AnswerProblem>> {
    let json = data.map(|data| Value::Object(data_to_json(data)));
    let spec = serde_json::to_value(spec).unwrap_or(Value::Null);
    Problems::check(answer_problems_json(&spec, json.as_ref()))
}

/// [`validate_interaction_answer`] on untyped JSON data, as an answer
/// arrives before it is known to be well formed.
pub fn validate_interaction_answer_value(
    spec: &InteractionAnswerSpec,
    data: Option<&Value>,
) -> Result<(), Problems<AnswerProblem>> {
    let spec = serde_json::to_value(spec).unwrap_or(Value::Null);
    Problems::check(answer_problems_json(&spec, data))
}

/// [`validate_interaction_answer`] with the spec and the data as plain
/// JSON, as 0.46 takes them: a spec that breaks its schema is reported as
/// [`AnswerProblem::Spec`] problems, data that is not an object as
/// [`AnswerProblem::DataNotAnObject`].
///
/// # Errors
///
/// Every problem with the spec or the answer, in the reference's order.
///
/// ```
/// use index_interaction::validate_interaction_answer_json;
/// let spec = serde_json::json!({"fields": [{"name": "n", "type": "number", "max": 3, "label": "N"}]});
/// let problems = validate_interaction_answer_json(&spec, Some(&serde_json::json!({"n": 5}))).unwrap_err();
/// assert_eq!(problems[0].code(), "above_max:n");
/// let unnamed = serde_json::json!({"fields": [{"type": "number", "label": "N"}]});
/// let problems = validate_interaction_answer_json(&unnamed, None).unwrap_err();
/// assert_eq!(problems.first().code(), "spec:fields.0.name:invalid_type");
/// ```
pub fn validate_interaction_answer_json(
    spec: &Value,
    data: Option<&Value>,
) -> Result<(), Problems<AnswerProblem>> {
    Problems::check(answer_problems_json(spec, data))
}

/// The problems [`validate_interaction_answer_json`] reports, as a list.
pub(crate) fn answer_problems_json(spec: &Value, data: Option<&Value>) -> Vec<AnswerProblem> {
    let spec = match InteractionAnswerSpec::from_json_value(spec) {
        Ok(spec) => spec,
        Err(invalid) => {
            return invalid.into_iter().map(AnswerProblem::Spec).collect();
        }
    };
    answer_problems(&spec, data)
}

/// A valid spec's problems with `data`, as 0.46 finds them.
pub(crate) fn answer_problems(
    spec: &InteractionAnswerSpec,
    data: Option<&Value>,
) -> Vec<AnswerProblem> {
    let empty = Map::new();
    let data = match data {
        None => &empty,
        Some(Value::Object(data)) => data,
        Some(_) => return vec![AnswerProblem::DataNotAnObject],
    };
    if data.len() > CONTRACT_MAX_MAP_ENTRIES {
        return vec![AnswerProblem::TooManyFields];
    }
    let rules: Vec<FieldRules<'_>> = spec.fields.iter().map(FieldRules::from).collect();
    typed_problems(&rules, Some(data), Version::V0_46)
}

/// What answer checking reads of one field: the reference's own view of
/// it, so that a typed spec and a spec given as plain JSON are checked by
/// the same code.
pub(crate) struct FieldRules<'a> {
    /// `String(field.name)`: the key the answer is read under and the
    /// name its problems carry.
    name: Cow<'a, str>,
    /// Whether the name is a string, so that a data key can be it (0.44
    /// reads a plain JSON spec's non-string names through `String`, but
    /// keeps the names themselves as the known keys).
    keyed: bool,
    required: bool,
    check: Check<'a>,
}

/// The type-specific part of a field's rules.
enum Check<'a> {
    /// Text or secret: a string, at most this many UTF-16 units; for a
    /// secret from 0.46 on, a one-use handle instead.
    Text {
        max_length: Option<u64>,
        secret: bool,
    },
    /// A finite number within the bounds.
    Number { min: Option<f64>, max: Option<f64> },
    /// `true` or `false`.
    Boolean,
    /// A list of option values, or write-ins when allowed.
    Select {
        multi: bool,
        allow_custom: bool,
        options: Options<'a>,
    },
    /// A type the reference's switch has no case for: only presence counts.
    Unchecked,
}

/// A select field's options, as far as checking an answer reads them.
enum Options<'a> {
    /// Each option's value, read: `None` for one without (JavaScript's
    /// `undefined`, which no JSON choice equals).
    Values(Vec<Option<Value>>),
    /// A plain JSON spec's `options` member, read only once an answer to
    /// the field is a list, as 0.44 reads it (`None` where it is absent).
    Json(Option<&'a Value>),
}

impl Options<'_> {
    /// Each option's value; unreadable where 0.44's `options.map(o =>
    /// o.value)` throws: `options` not a list, or a `null` option.
    fn values(&self) -> Result<Cow<'_, [Option<Value>]>, UnreadableSpec> {
        match self {
            Options::Values(values) => Ok(Cow::Borrowed(values)),
            Options::Json(options) => options
                .and_then(Value::as_array)
                .ok_or(UnreadableSpec("a select field's options are not a list"))?
                .iter()
                .map(|option| match option {
                    Value::Null => Err(UnreadableSpec("an option is null")),
                    option => Ok(option.get("value").cloned()),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Cow::Owned),
        }
    }
}

impl<'a> From<&'a InteractionField> for FieldRules<'a> {
    fn from(field: &'a InteractionField) -> Self {
        let check = match field {
            InteractionField::Text(text) => Check::Text {
                max_length: text.max_length,
                secret: false,
            },
            InteractionField::Secret(secret) => Check::Text {
                max_length: secret.max_length,
                secret: true,
            },
            InteractionField::Number(number) => Check::Number {
                min: number.min,
                max: number.max,
            },
            InteractionField::Boolean(_) => Check::Boolean,
            InteractionField::Select(select) => Check::Select {
                multi: select.multi.unwrap_or(false),
                allow_custom: select.allow_custom == Some(true),
                options: Options::Values(
                    select
                        .options
                        .iter()
                        .map(|option| Some(Value::String(option.value.clone())))
                        .collect(),
                ),
            },
        };
        FieldRules {
            name: Cow::Borrowed(field.name()),
            keyed: true,
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

impl<'a> FieldRules<'a> {
    /// A field of a spec given as plain JSON, read as the 0.44 reference
    /// reads it: a field that is not an object as one without members
    /// (`(5).name` is `undefined`); its name as `String(name)`
    /// (`"undefined"` when absent); `required` and `multi` for
    /// truthiness, `allowCustom` only when `true`, the bounds compared as
    /// numbers (`maxLength` present is a bound even when `null`, as
    /// `!== undefined` is), a select's options left unread until an
    /// answer reaches them, and an unknown `type` checked for presence
    /// only. Only a `null` field is unreadable (`null.name` throws).
    fn from_json(field: &'a Value) -> Result<Self, UnreadableSpec> {
        if field.is_null() {
            return Err(UnreadableSpec("a field is null"));
        }
        // `Value::get` finds nothing in a value that is not an object,
        // as JavaScript finds none of these members on a primitive or an
        // array.
        let (name, keyed) = match field.get("name") {
            Some(Value::String(name)) => (Cow::Borrowed(name.as_str()), true),
            Some(name) => (Cow::Owned(js_string(name)), false),
            None => (Cow::Borrowed("undefined"), false),
        };
        let truthy = |key: &str| match field.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(_) | Value::Object(_)) => true,
        };
        let bound = |key: &str| field.get(key).map(js_to_number).filter(|n| !n.is_nan());
        let check = match field.get("type").and_then(Value::as_str) {
            Some(kind @ ("text" | "secret")) => Check::Text {
                secret: kind == "secret",
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
                options: Options::Json(field.get("options")),
            },
            _ => Check::Unchecked,
        };
        Ok(FieldRules {
            name,
            keyed,
            required: truthy("required"),
            check,
        })
    }
}

/// The fields of a spec given as plain JSON: unreadable where 0.44's
/// `spec.fields.map(field => field.name)` throws (no list of fields, or a
/// `null` one).
pub(crate) fn rules_from_json(spec: &Value) -> Result<Vec<FieldRules<'_>>, UnreadableSpec> {
    spec.get("fields")
        .and_then(Value::as_array)
        .ok_or(UnreadableSpec("the spec's fields are not a list"))?
        .iter()
        .map(FieldRules::from_json)
        .collect()
}

/// The problems of `data` against typed `rules` (read from an
/// [`InteractionField`], whose options are always a list, so never
/// unreadable; were they, that would be the one problem reported).
pub(crate) fn typed_problems(
    rules: &[FieldRules<'_>],
    data: Option<&Map<String, Value>>,
    version: Version,
) -> Vec<AnswerProblem> {
    problems(rules, data, version)
        .unwrap_or_else(|unreadable| vec![AnswerProblem::Unreadable(unreadable)])
}

/// The problems of `data` against `rules`: per key (0.46's bounds, then
/// whether a field has it), then per field; unreadable where 0.44 throws
/// on the way (a select answered with a list whose options cannot be
/// read).
pub(crate) fn problems(
    rules: &[FieldRules<'_>],
    data: Option<&Map<String, Value>>,
    version: Version,
) -> Result<Vec<AnswerProblem>, UnreadableSpec> {
    let empty = Map::new();
    let data = data.unwrap_or(&empty);
    let current = version == Version::V0_46;
    let mut problems = Vec::new();
    for key in js_keys(data) {
        if current {
            if utf16_len(key) > CONTRACT_MAX_IDENTIFIER_LENGTH {
                problems.push(AnswerProblem::UnknownField(key.clone()));
                continue;
            }
            problems.extend(bound_problems(key, data.get(key.as_str())));
        }
        if !rules
            .iter()
            .any(|field| field.keyed && field.name == key.as_str())
        {
            problems.push(AnswerProblem::UnknownField(key.clone()));
        }
    }
    // What `data[name]` reads, in 0.44, for a name the data does not own
    // but every object inherits (`constructor`, `toString`, …): a
    // function, or for `__proto__` an object. Either fails every field
    // type's check, as an empty object does. 0.46 reads own keys only.
    let inherited = Value::Object(Map::new());
    for field in rules {
        let name = field.name.clone().into_owned();
        let present = data
            .get(field.name.as_ref())
            .or_else(|| (!current && is_object_prototype_member(&field.name)).then_some(&inherited))
            .filter(|v| !v.is_null() && v.as_str() != Some(""));
        let Some(value) = present else {
            if field.required {
                problems.push(AnswerProblem::MissingRequired(name));
            }
            continue;
        };
        match &field.check {
            Check::Text { max_length, secret } => {
                check_text(&mut problems, name, value, *max_length, *secret && current);
            }
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
                if current && choices.len() > CONTRACT_MAX_ARRAY_LENGTH {
                    problems.push(AnswerProblem::TooManyOptionValues(name));
                    continue;
                }
                if !multi && choices.len() > 1 {
                    problems.push(AnswerProblem::SingleValueOnly(name.clone()));
                }
                if field.required && choices.is_empty() {
                    problems.push(AnswerProblem::SelectionRequired(name.clone()));
                }
                // Only here does 0.44 read the options (`new
                // Set(field.options.map((o) => o.value))`).
                let options = options.values()?;
                for choice in choices {
                    if options
                        .iter()
                        .flatten()
                        .any(|option| index_js::same_value_zero(option, choice))
                    {
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
    Ok(problems)
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

/// 0.46's bounds on one value of the data, whatever field it answers.
fn bound_problems(key: &str, value: Option<&Value>) -> Vec<AnswerProblem> {
    let name = || key.to_owned();
    let mut problems = Vec::new();
    match value {
        Some(Value::String(s)) if utf16_len(s) > CONTRACT_MAX_STRING_LENGTH => {
            problems.push(AnswerProblem::ExceedsStringBound(name()));
        }
        Some(Value::Array(items)) => {
            if items.len() > CONTRACT_MAX_ARRAY_LENGTH {
                problems.push(AnswerProblem::TooManyValues(name()));
            }
            let unbounded = |item: &Value| {
                item.as_str()
                    .is_none_or(|s| utf16_len(s) > CONTRACT_MAX_STRING_LENGTH)
            };
            if items.iter().any(unbounded) {
                problems.push(AnswerProblem::InvalidBoundedValue(name()));
            }
        }
        Some(Value::Object(map)) if map.len() > 3 => {
            problems.push(AnswerProblem::InvalidObjectValue(name()));
        }
        _ => {}
    }
    problems
}

/// Whether `value` is a one-use secret handle, as 0.46 checks one in an
/// answer.
fn is_secret_handle(value: &Value) -> bool {
    let Some(map) = value.as_object() else {
        return false;
    };
    map.len() == 3
        && map.get("kind").and_then(Value::as_str) == Some("secret_handle")
        && map.get("oneUse") == Some(&Value::Bool(true))
        && map
            .get("handleId")
            .and_then(Value::as_str)
            .is_some_and(is_identifier)
}

fn check_text(
    problems: &mut Vec<AnswerProblem>,
    name: String,
    value: &Value,
    max_length: Option<u64>,
    handle_allowed: bool,
) {
    match value.as_str() {
        None if handle_allowed && is_secret_handle(value) => {}
        None if handle_allowed => problems.push(AnswerProblem::NotAStringOrHandle(name)),
        None => problems.push(AnswerProblem::NotAString(name)),
        Some(text) => {
            if let Some(max) = max_length.filter(|max| utf16_len(text) as u64 > *max) {
                problems.push(AnswerProblem::TooLong(name, max));
            }
        }
    }
}
