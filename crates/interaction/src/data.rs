//! Answers: field values, outcomes, resolutions, and what a request is about.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::js::js_keys;
use crate::limits::{CONTRACT_MAX_MAP_ENTRIES, is_bounded_json, is_field_name};
use index_js::WireEnum;

use crate::number::wire_enum;
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
    /// A secret answer held elsewhere, named by a one-use handle, so the
    /// secret itself never rides the response (0.46).
    SecretHandle(SecretHandle),
}

/// A one-use handle for a secret answer: `{"kind": "secret_handle",
/// "handleId": …, "oneUse": true}` on the wire.
///
/// ```
/// use index_interaction::SecretHandle;
/// let wire = serde_json::json!({"kind": "secret_handle", "handleId": "vault-7", "oneUse": true});
/// let handle = SecretHandle::from_json_value(&wire).unwrap();
/// assert_eq!(handle.handle_id, "vault-7");
/// assert_eq!(handle.to_json(), wire);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SecretHandle {
    /// The handle; an identifier.
    pub handle_id: String,
}

impl SecretHandle {
    /// The handle as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::json!({"kind": SECRET_HANDLE_KIND, "handleId": self.handle_id, "oneUse": true})
    }
}

impl Serialize for SecretHandle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// The `kind` of a secret handle.
const SECRET_HANDLE_KIND: &str = "secret_handle";

impl Serialize for InteractionValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InteractionValue::Text(text) => serializer.serialize_str(text),
            InteractionValue::Number(n) => index_js::serialize_js_number(*n, serializer),
            InteractionValue::Boolean(b) => serializer.serialize_bool(*b),
            InteractionValue::Choices(choices) => choices.serialize(serializer),
            InteractionValue::SecretHandle(handle) => handle.serialize(serializer),
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
            InteractionValue::SecretHandle(handle) => handle.to_json(),
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
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    let mark = w.mark();
    let mut data = Some(InteractionData::new());
    for key in js_keys(object) {
        // `__proto__` is never a key of the parsed record: zod 4's record,
        // which both versions are read with, skips it without looking at
        // its value.
        if key == "__proto__" {
            continue;
        }
        let key_at = at.key(key);
        let value = object.get(key.as_str());
        let parsed = if w.current() {
            if is_field_name(key) {
                parse_value(w, &key_at, value)
            } else {
                w.issue(&key_at, IssueCode::InvalidKey, "not a valid field name");
                None
            }
        } else {
            parse_value_0_44(w, &key_at, value)
        };
        match (parsed, data.as_mut()) {
            (Some(v), Some(map)) => {
                map.insert(key.clone(), v);
            }
            (Some(_), None) => {}
            (None, _) => data = None,
        }
    }
    w.refine(mark, &data, |w, data| {
        if w.current() && data.len() > CONTRACT_MAX_MAP_ENTRIES {
            w.issue(at, IssueCode::Custom, "answer data has too many fields");
        }
    });
    data
}

/// One 0.44 data value: a string, a finite number, a boolean or a list of
/// strings.
fn parse_value_0_44(w: &mut Walk, at: &At<'_>, value: Option<&Value>) -> Option<InteractionValue> {
    let parsed = match value {
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
    if parsed.is_none() {
        not_a_value(w, at);
    }
    parsed
}

fn not_a_value(w: &mut Walk, at: &At<'_>) {
    w.issue(
        at,
        IssueCode::InvalidUnion,
        "should be a string, a number, a boolean, a list of strings or a secret handle",
    );
}

/// One 0.46 data value, read as zod reads its union: the one option the
/// value's type can match reports its own bounds; a value no option can
/// match is an `invalid_union`.
fn parse_value(w: &mut Walk, at: &At<'_>, value: Option<&Value>) -> Option<InteractionValue> {
    match value {
        Some(Value::String(_)) => w
            .string(at, value, 0)
            .map(|s| InteractionValue::Text(s.to_owned())),
        Some(Value::Number(n)) => n.as_f64().map(InteractionValue::Number),
        Some(Value::Bool(b)) => Some(InteractionValue::Boolean(*b)),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => w
            .list(at, value, 0, |w, item_at, item| {
                w.string(item_at, Some(item), 0).map(str::to_owned)
            })
            .map(InteractionValue::Choices),
        Some(Value::Object(_)) => {
            let mut handle = Walk::new(w.version());
            let parsed = parse_secret_handle(&mut handle, at, value);
            if handle.aborted() {
                not_a_value(w, at);
                None
            } else {
                w.absorb(handle);
                parsed.map(InteractionValue::SecretHandle)
            }
        }
        _ => {
            not_a_value(w, at);
            None
        }
    }
}

/// A secret handle, as its strict schema reads one.
pub(crate) fn parse_secret_handle(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<SecretHandle> {
    let object = w.object(at, value)?;
    let kind_at = at.key("kind");
    let kind = object.get("kind").and_then(Value::as_str);
    if kind != Some(SECRET_HANDLE_KIND) {
        w.issue(
            &kind_at,
            IssueCode::InvalidValue,
            "should be \"secret_handle\"",
        );
    }
    let handle_id = w.identifier(&at.key("handleId"), object.get("handleId"));
    if object.get("oneUse") != Some(&Value::Bool(true)) {
        w.issue(&at.key("oneUse"), IssueCode::InvalidValue, "should be true");
    }
    w.strict(at, object, &["kind", "handleId", "oneUse"]);
    let handle_id = handle_id?.to_owned();
    (kind == Some(SECRET_HANDLE_KIND) && object.get("oneUse") == Some(&Value::Bool(true)))
        .then_some(SecretHandle { handle_id })
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

/// The optional `data` record of a response. In 0.46 a `__proto__` key is
/// refused as the field-name schema refuses `constructor`, where zod's
/// record would skip it unseen: the reference's response validator refuses
/// it in the JSON it is given, and a response read into a value first must
/// be judged the same (STABILITY.md).
pub(crate) fn response_data(
    w: &mut Walk,
    at: &At<'_>,
    object: &Map<String, Value>,
) -> Result<Option<InteractionData>, ()> {
    let data = object.get("data").and_then(Value::as_object);
    if w.current() && data.is_some_and(|data| data.contains_key("__proto__")) {
        w.issue(
            &at.key("data").key("__proto__"),
            IssueCode::InvalidKey,
            "not a valid field name",
        );
    }
    optional_data(w, at, object)
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
            let tool_name = if w.current() {
                w.identifier(&at.key("toolName"), object.get("toolName"))
                    .map(str::to_owned)
            } else {
                text(w, "toolName")
            };
            let input = object.get("input").cloned();
            if w.current() && input.as_ref().is_some_and(|input| !is_bounded_json(input)) {
                w.issue(
                    &at.key("input"),
                    IssueCode::Custom,
                    "the input exceeds the contract's bounds",
                );
            }
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

/// The reference's data record, on its own.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct InteractionDataRecord(pub InteractionData);

fn parse_data_record(
    walk: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionDataRecord> {
    parse_data(walk, at, value).map(InteractionDataRecord)
}

crate::contract::schema_type! {
    InteractionSubject => parse_subject, true,
    InteractionResolution => parse_resolution, true,
    InteractionDataRecord => parse_data_record, true,
    SecretHandle => parse_secret_handle, true,
}

crate::contract::shared! {
    InteractionSubject,
    InteractionResolution,
    InteractionDataRecord,
}
