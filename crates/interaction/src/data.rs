//! Answers: field values, outcomes, resolutions, and what a request is about.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::js::js_keys;
use crate::number::{WireEnum, serialize_js_number, wire_enum};
use crate::zod::{At, IssueCode, Walk};

/// One field's value in an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum InteractionValue {
    /// A text or secret answer.
    Text(String),
    /// A number answer (finite).
    Number(f64),
    /// A yes-or-no answer.
    Boolean(bool),
    /// A select answer: the chosen option values.
    Choices(Vec<String>),
}

impl Serialize for InteractionValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InteractionValue::Text(text) => serializer.serialize_str(text),
            InteractionValue::Number(n) => serialize_js_number(*n, serializer),
            InteractionValue::Boolean(b) => serializer.serialize_bool(*b),
            InteractionValue::Choices(choices) => choices.serialize(serializer),
        }
    }
}

impl InteractionValue {
    /// The value as JSON, numbers as JavaScript reads them.
    pub fn to_json(&self) -> Value {
        match self {
            InteractionValue::Text(text) => Value::String(text.clone()),
            InteractionValue::Number(n) => {
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            }
            InteractionValue::Boolean(b) => Value::Bool(*b),
            InteractionValue::Choices(choices) => {
                Value::Array(choices.iter().cloned().map(Value::String).collect())
            }
        }
    }
}

/// Field values keyed by field name.
pub type InteractionData = BTreeMap<String, InteractionValue>;

/// `data` as a JSON object.
pub(crate) fn data_to_json(data: &InteractionData) -> Map<String, Value> {
    data.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()
}

wire_enum! {
    /// How a person answered.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum InteractionOutcome {
        /// They answered.
        Accepted = "accepted",
        /// They said no.
        Declined = "declined",
        /// The ask was withdrawn or dismissed.
        Cancelled = "cancelled",
    }
}

/// An outcome and, for an accepted one, its data. Data on a declined or
/// cancelled resolution is kept for compatibility and never validated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractionResolution {
    /// The outcome.
    pub outcome: InteractionOutcome,
    /// Field values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<InteractionData>,
}

/// What a request is about, for previews and permission prompts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum InteractionSubject {
    /// Running a tool.
    Tool {
        /// Its name.
        #[serde(rename = "toolName")]
        tool_name: String,
        /// Its input, any JSON.
        #[serde(skip_serializing_if = "Option::is_none")]
        input: Option<Value>,
    },
    /// Running a command.
    Command {
        /// The command line.
        command: String,
    },
    /// A file.
    File {
        /// Its path.
        path: String,
        /// A preview of the change.
        #[serde(skip_serializing_if = "Option::is_none")]
        preview: Option<String>,
    },
    /// A resource.
    Resource {
        /// Its URI.
        uri: String,
    },
}

pub(crate) fn parse_data(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionData> {
    let object = w.object(at, value)?;
    let mut data = Some(InteractionData::new());
    for key in js_keys(object) {
        let parsed = match object.get(key.as_str()) {
            Some(Value::String(s)) => Some(InteractionValue::Text(s.clone())),
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|n| n.is_finite())
                .map(InteractionValue::Number),
            Some(Value::Bool(b)) => Some(InteractionValue::Boolean(*b)),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(InteractionValue::Choices),
            _ => None,
        };
        match (parsed, data.as_mut()) {
            // The reference's record assigns `result[key] = value`, and for
            // `__proto__` that sets (or, for a primitive, ignores) the
            // prototype instead of adding a key: the key is dropped.
            (Some(_), Some(_)) if key == "__proto__" => {}
            (Some(v), Some(map)) => {
                map.insert(key.clone(), v);
            }
            (Some(_), None) => {}
            (None, _) => {
                w.issue(
                    &at.key(key),
                    IssueCode::InvalidUnion,
                    "should be a string, a number, a boolean or a list of strings",
                );
                data = None;
            }
        }
    }
    data
}

/// The `outcome` tag of a resolution or response.
pub(crate) fn outcome_tag(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> Option<InteractionOutcome> {
    let outcome = w.tag(at, object, "outcome", InteractionOutcome::NAMES)?;
    InteractionOutcome::from_name(outcome)
}

/// The optional `data` record of a resolution or response.
pub(crate) fn optional_data(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> Result<Option<InteractionData>, ()> {
    w.optional(object, "data", |w, v| parse_data(w, &at.key("data"), v))
}

pub(crate) fn parse_resolution(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionResolution> {
    let object = w.object(at, value)?;
    let outcome = outcome_tag(w, at, object)?;
    let data = optional_data(w, at, object);
    w.strict(at, object, &["outcome", "data"]);
    Some(InteractionResolution {
        outcome,
        data: data.ok()?,
    })
}

pub(crate) fn parse_subject(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionSubject> {
    let object = w.object(at, value)?;
    let tag = w.tag(at, object, "type", &["tool", "command", "file", "resource"])?;
    let text = |w: &mut Walk, key: &str| {
        w.string(&at.key(key), object.get(key), 0)
            .map(str::to_owned)
    };
    match tag {
        "tool" => {
            let tool_name = text(w, "toolName");
            let input = object.get("input").cloned();
            w.strict(at, object, &["type", "toolName", "input"]);
            Some(InteractionSubject::Tool {
                tool_name: tool_name?,
                input,
            })
        }
        "command" => {
            let command = text(w, "command");
            w.strict(at, object, &["type", "command"]);
            Some(InteractionSubject::Command { command: command? })
        }
        "file" => {
            let path = text(w, "path");
            let preview = w.optional(object, "preview", |w, v| {
                w.string(&at.key("preview"), v, 0).map(str::to_owned)
            });
            w.strict(at, object, &["type", "path", "preview"]);
            Some(InteractionSubject::File {
                path: path?,
                preview: preview.ok()?,
            })
        }
        _ => {
            let uri = text(w, "uri");
            w.strict(at, object, &["type", "uri"]);
            Some(InteractionSubject::Resource { uri: uri? })
        }
    }
}
