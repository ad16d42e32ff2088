//! MCP elicitation (form mode) and this contract, both ways.
//!
//! The answer spec mirrors MCP elicitation, so an ask that comes from MCP
//! maps onto it, and one of ours can go to a person's MCP client. The MCP
//! specification restricts `requestedSchema` to a flat object of primitive
//! properties: strings (`maxLength`), numbers (`minimum`, `maximum`),
//! booleans, and single- or multi-select enums, titled with `oneOf` /
//! `anyOf` of `{const, title}`, each with an optional `default`. What one
//! side can say and the other cannot is refused with a typed reason, never
//! dropped; presentation hints with no counterpart (a text field's
//! `multiline` and `placeholder`, an option's `description`) are the only
//! things not carried, and they change no answer's validity.
//!
//! This module holds the wire shapes as JSON so that the crate stays free
//! of any MCP library; a host hands [`ElicitationRequest`] to its MCP
//! server as `elicitation/create` params, and the client's result back as
//! an [`ElicitationResult`].

use index_js::Problems;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::data::InteractionOutcome;
use crate::envelope::{InteractionRequest, InteractionRequestBinding, InteractionResponse};
use crate::fields::{InteractionAnswerSpec, InteractionField};
use crate::permissions::InteractionKind;
use crate::response_validation::{ResponseProblem, check_response, read_response};
use crate::zod::Version;
use crate::{InteractionValue, InvalidInteraction};

/// The params of an MCP `elicitation/create` request in form mode.
///
/// ```
/// use index_interaction::ElicitationRequest;
/// let request: ElicitationRequest = serde_json::from_value(serde_json::json!({
///     "message": "Which day?",
///     "requestedSchema": {"type": "object", "properties": {"day": {"type": "string"}}}
/// })).unwrap();
/// assert_eq!(request.message, "Which day?");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationRequest {
    /// What the person is asked.
    pub message: String,
    /// The restricted JSON Schema of the answer: `{"type": "object",
    /// "properties": {…}, "required": […]}`.
    pub requested_schema: Map<String, Value>,
}

index_js::wire_enum! {
    crate index_interaction;
    /// What the person did with an elicitation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ElicitationAction {
        /// They answered.
        Accept = "accept",
        /// They said no.
        Decline = "decline",
        /// They dismissed it.
        Cancel = "cancel",
    }
}

/// An MCP client's answer to an elicitation.
///
/// ```
/// use index_interaction::{ElicitationAction, ElicitationResult};
/// let result: ElicitationResult = serde_json::from_value(serde_json::json!({"action": "decline"})).unwrap();
/// assert_eq!(result.action, ElicitationAction::Decline);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationResult {
    /// Accept, decline or cancel.
    pub action: ElicitationAction,
    /// The answer, on accept: property name to string, number, boolean or
    /// list of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// Why a request or a schema cannot be carried to the other side.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unmappable {
    /// MCP forbids asking for secrets in form mode.
    #[error("field {0:?} is a secret, which an MCP form may not ask for")]
    Secret(String),
    /// MCP enums have no write-in choice.
    #[error("field {0:?} allows a custom answer, which an MCP enum cannot")]
    AllowCustom(String),
    /// A single-choice field whose default names more than one option.
    #[error("field {0:?} is single-choice with a default of several options")]
    SeveralDefaults(String),
    /// A vendor kind: its meaning is not the answer spec alone.
    #[error("kind {0:?} is not question, permission or plan")]
    VendorKind(String),
    /// The schema is not an object of properties.
    #[error("the requested schema is not an object with properties")]
    NotAnObject,
    /// A property this contract has no field for (a nested object, an
    /// integer, a string `format`, a `minLength`, a pattern, …).
    #[error("property {property:?}: {what} has no counterpart in an answer spec")]
    Property {
        /// The property.
        property: String,
        /// What about it cannot be carried.
        what: String,
    },
    /// The request built from the schema breaks the contract's own rules.
    /// Its problems are shown in the message, not chained as a source, so a
    /// reporter prints them once.
    #[error("the request made from the schema is invalid: {0}")]
    Invalid(InvalidInteraction),
}

impl From<InvalidInteraction> for Unmappable {
    fn from(invalid: InvalidInteraction) -> Self {
        Unmappable::Invalid(invalid)
    }
}

/// An interaction request as an MCP elicitation: the message is the title,
/// then the body; each field becomes a property of the requested schema.
///
/// | field | property |
/// |---|---|
/// | text | `string`, `title`, `maxLength`, `default` |
/// | number | `number`, `title`, `minimum`, `maximum`, `default` |
/// | boolean | `boolean`, `title`, `default` |
/// | select | `string` with `oneOf` (single) or `array` of `anyOf` (multi), each `{const: value, title: label}`; `minItems: 1` when required |
/// | secret | refused: [`Unmappable::Secret`] |
///
/// # Errors
///
/// [`Unmappable`] for a secret field, a write-in select, a single-choice
/// default of several options, or a vendor kind.
///
/// ```
/// use index_interaction::{InteractionRequest, interaction_to_elicitation};
/// let request = InteractionRequest::from_material(&serde_json::json!({
///     "id": "q-1", "kind": "question", "title": "Lunch?",
///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean", "required": true}]},
///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
///                 "sessionId": "s", "executionId": "x", "interactionId": "q-1"},
/// })).unwrap();
/// let elicitation = interaction_to_elicitation(&request).unwrap();
/// assert_eq!(elicitation.message, "Lunch?");
/// assert_eq!(elicitation.requested_schema["required"], serde_json::json!(["go"]));
/// ```
pub fn interaction_to_elicitation(
    request: &InteractionRequest,
) -> Result<ElicitationRequest, Unmappable> {
    let kind = request.kind();
    if !kind.is_well_known() {
        return Err(Unmappable::VendorKind(kind.as_str().to_owned()));
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in &request.answer_spec().fields {
        properties.insert(field.name().to_owned(), property_of(field)?);
        if field.is_required() {
            required.push(Value::String(field.name().to_owned()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    let message = match request.body() {
        Some(body) if !index_js::is_blank(body) => format!("{}\n\n{body}", request.title()),
        _ => request.title().to_owned(),
    };
    Ok(ElicitationRequest {
        message,
        requested_schema: schema,
    })
}

/// A number as JSON the way JavaScript writes it: `20000`, not `20000.0`.
fn js_number_value(n: f64) -> Value {
    // Writing a number into a `Value` cannot fail.
    index_js::serialize_js_number(n, serde_json::value::Serializer).unwrap_or(Value::Null)
}

fn property_of(field: &InteractionField) -> Result<Value, Unmappable> {
    let name = field.name().to_owned();
    let mut property = Map::new();
    let mut put = |key: &str, value: Value| {
        property.insert(key.to_owned(), value);
    };
    match field {
        InteractionField::Text(text) => {
            put("type", json!("string"));
            put("title", json!(text.base.label));
            if let Some(max) = text.max_length {
                put("maxLength", json!(max));
            }
            if let Some(default) = &text.default {
                put("default", json!(default));
            }
        }
        InteractionField::Number(number) => {
            put("type", json!("number"));
            put("title", json!(number.base.label));
            for (key, value) in [
                ("minimum", number.min),
                ("maximum", number.max),
                ("default", number.default),
            ] {
                if let Some(value) = value {
                    put(key, js_number_value(value));
                }
            }
        }
        InteractionField::Boolean(boolean) => {
            put("type", json!("boolean"));
            put("title", json!(boolean.base.label));
            if let Some(default) = boolean.default {
                put("default", json!(default));
            }
        }
        InteractionField::Select(select) => {
            if select.allow_custom == Some(true) {
                return Err(Unmappable::AllowCustom(name));
            }
            let choices: Vec<Value> = select
                .options
                .iter()
                .map(|option| json!({"const": option.value, "title": option.label}))
                .collect();
            put("title", json!(select.base.label));
            if select.multi == Some(true) {
                put("type", json!("array"));
                put("items", json!({ "anyOf": choices }));
                if field.is_required() {
                    put("minItems", json!(1));
                }
                if let Some(default) = &select.default {
                    put("default", json!(default));
                }
            } else {
                put("type", json!("string"));
                put("oneOf", Value::Array(choices));
                match select.default.as_deref() {
                    None | Some([]) => {}
                    Some([one]) => put("default", json!(one)),
                    Some(_) => return Err(Unmappable::SeveralDefaults(name)),
                }
            }
        }
        InteractionField::Secret(_) => return Err(Unmappable::Secret(name)),
    }
    Ok(Value::Object(property))
}

/// A client's elicitation result as the response to `request`, validated
/// exactly as a response sent directly would be: `accept` is accepted with
/// the content as data (a single-choice answer, a string in MCP, becomes
/// the one-element list this contract uses), `decline` is declined and
/// `cancel` cancelled, without data.
///
/// # Errors
///
/// The problems [`validate_interaction_response`](crate::validate_interaction_response) finds, unchanged.
///
/// ```
/// use index_interaction::*;
/// let request = InteractionRequest::from_material(&serde_json::json!({
///     "id": "q-1", "kind": "question", "title": "Lunch?",
///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean", "required": true}]},
///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
///                 "sessionId": "s", "executionId": "x", "interactionId": "q-1"},
/// })).unwrap();
/// let yes = ElicitationResult { action: ElicitationAction::Accept, content: serde_json::json!({"go": true}).as_object().cloned() };
/// assert_eq!(elicitation_to_response(&request, &yes).unwrap().outcome, InteractionOutcome::Accepted);
/// let empty = ElicitationResult { action: ElicitationAction::Accept, content: None };
/// assert!(elicitation_to_response(&request, &empty).is_err());
/// ```
pub fn elicitation_to_response(
    request: &InteractionRequest,
    result: &ElicitationResult,
) -> Result<InteractionResponse, Problems<ResponseProblem>> {
    let mut response = Map::new();
    response.insert("id".into(), json!(request.id()));
    let outcome = match result.action {
        ElicitationAction::Accept => InteractionOutcome::Accepted,
        ElicitationAction::Decline => InteractionOutcome::Declined,
        ElicitationAction::Cancel => InteractionOutcome::Cancelled,
    };
    response.insert("outcome".into(), json!(outcome.as_str()));
    if let (ElicitationAction::Accept, Some(content)) = (result.action, &result.content) {
        response.insert(
            "data".into(),
            Value::Object(content_as_data(request.answer_spec(), content)),
        );
    }
    let response = read_response(&Value::Object(response), Version::V0_46)?;
    check_response(request, &response)?;
    Ok(response)
}

/// MCP content as answer data: a string for a select field is its one
/// choice; everything else is passed as it is, for validation to judge.
fn content_as_data(
    spec: &InteractionAnswerSpec,
    content: &Map<String, Value>,
) -> Map<String, Value> {
    content
        .iter()
        .map(|(name, value)| {
            let value = match (spec.field(name), value) {
                (Some(InteractionField::Select(_)), Value::String(one)) => json!([one]),
                _ => value.clone(),
            };
            (name.clone(), value)
        })
        .collect()
}

/// A response to an MCP-originated ask as the elicitation result to send
/// back: accepted is `accept` with the data as content (a single-choice
/// select's one choice as a string), declined is `decline`, cancelled is
/// `cancel`.
///
/// ```
/// use index_interaction::*;
/// let response = InteractionResponse { id: "q".into(), outcome: InteractionOutcome::Declined, data: None };
/// let spec = InteractionAnswerSpec { fields: vec![] };
/// assert_eq!(response_to_elicitation_result(&spec, &response).action, ElicitationAction::Decline);
/// ```
pub fn response_to_elicitation_result(
    spec: &InteractionAnswerSpec,
    response: &InteractionResponse,
) -> ElicitationResult {
    let action = match response.outcome {
        InteractionOutcome::Accepted => ElicitationAction::Accept,
        InteractionOutcome::Declined => ElicitationAction::Decline,
        InteractionOutcome::Cancelled => ElicitationAction::Cancel,
    };
    let content = (action == ElicitationAction::Accept)
        .then_some(response.data.as_ref())
        .flatten()
        .map(|data| {
            data.iter()
                .map(|(name, value)| {
                    let single = matches!(
                        spec.field(name),
                        Some(InteractionField::Select(select)) if select.multi != Some(true)
                    );
                    let value = match value {
                        InteractionValue::Choices(choices) if single && choices.len() == 1 => {
                            json!(choices.first())
                        }
                        other => serde_json::to_value(other).unwrap_or(Value::Null),
                    };
                    (name.clone(), value)
                })
                .collect()
        });
    ElicitationResult { action, content }
}

/// An MCP elicitation as an interaction request of kind `question`, bound
/// by `binding` (whose interaction id becomes the request's id) and sealed
/// with its digest, so a host that speaks this contract can show asks
/// from any MCP server. The title is the message; the fields come in property-name
/// order (a JSON object's order is not kept); each property's
/// `description`, which a field has no place for, is kept in the body as
/// `label: description` lines.
///
/// # Errors
///
/// [`Unmappable`] for a schema that is not an object of properties, a
/// property with no counterpart (a nested object, an `integer`, a string
/// `format`, `minLength` or `pattern`, an array of anything but choices),
/// or a request that breaks the contract's rules (a blank message, say).
///
/// ```
/// use index_interaction::*;
/// let elicitation: ElicitationRequest = serde_json::from_value(serde_json::json!({
///     "message": "Which size?",
///     "requestedSchema": {"type": "object", "properties": {
///         "size": {"type": "string", "enum": ["s", "m", "l"], "default": "m"}
///     }, "required": ["size"]}
/// })).unwrap();
/// let binding = InteractionRequestBinding {
///     run_id: "run-1".into(), provider: "mcp".into(), environment_id: "env-1".into(),
///     session_id: "s-1".into(), execution_id: "x-1".into(), interaction_id: "ask-1".into(),
/// };
/// let request = elicitation_to_interaction(&binding, &elicitation).unwrap();
/// assert_eq!(request.answer_spec().fields[0].field_type(), InteractionFieldType::Select);
/// assert_eq!(request.id(), "ask-1");
/// ```
pub fn elicitation_to_interaction(
    binding: &InteractionRequestBinding,
    elicitation: &ElicitationRequest,
) -> Result<InteractionRequest, Unmappable> {
    let schema = &elicitation.requested_schema;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(Unmappable::NotAnObject);
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Err(Unmappable::NotAnObject);
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields = Vec::new();
    let mut notes = Vec::new();
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            return Err(unmappable(name, "a schema that is not an object"));
        };
        let label = property
            .get("title")
            .and_then(Value::as_str)
            .filter(|title| !index_js::is_blank(title))
            .unwrap_or(name);
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            notes.push(format!("{label}: {description}"));
        }
        let mut field = field_of(name, label, property)?;
        if required.contains(&name.as_str()) {
            field.insert("required".into(), json!(true));
        }
        fields.push(Value::Object(field));
    }
    let mut request = Map::new();
    request.insert("id".into(), json!(binding.interaction_id));
    request.insert("kind".into(), json!(InteractionKind::Question));
    request.insert("title".into(), json!(elicitation.message));
    request.insert("answerSpec".into(), json!({ "fields": fields }));
    if !notes.is_empty() {
        request.insert("body".into(), json!(notes.join("\n")));
    }
    request.insert("binding".into(), json!(binding));
    Ok(InteractionRequest::from_material(&Value::Object(request))?)
}

fn unmappable(property: &str, what: &str) -> Unmappable {
    Unmappable::Property {
        property: property.to_owned(),
        what: what.to_owned(),
    }
}

/// The keywords each property type may carry; any other is refused.
const COMMON_KEYWORDS: [&str; 4] = ["type", "title", "description", "default"];

fn field_of(
    name: &str,
    label: &str,
    property: &Map<String, Value>,
) -> Result<Map<String, Value>, Unmappable> {
    let kind = property.get("type").and_then(Value::as_str);
    let choices = choices_of(name, property)?;
    let (field_type, allowed): (&str, &[&str]) = match (kind, &choices) {
        (Some("string"), Some(_)) => ("select", &["enum", "enumNames", "oneOf"]),
        (Some("string"), None) => ("text", &["maxLength"]),
        (Some("number"), _) => ("number", &["minimum", "maximum"]),
        (Some("boolean"), _) => ("boolean", &[]),
        (Some("array"), Some(_)) => ("select", &["items", "minItems", "maxItems"]),
        (Some(other), _) => return Err(unmappable(name, &format!("type {other:?}"))),
        (None, _) => return Err(unmappable(name, "a property without a type")),
    };
    if let Some(keyword) = property
        .keys()
        .find(|key| !COMMON_KEYWORDS.contains(&key.as_str()) && !allowed.contains(&key.as_str()))
    {
        return Err(unmappable(name, &format!("the keyword {keyword:?}")));
    }
    let mut field = Map::new();
    field.insert("name".into(), json!(name));
    field.insert("label".into(), json!(label));
    field.insert("type".into(), json!(field_type));
    for (from, to) in [
        ("maxLength", "maxLength"),
        ("minimum", "min"),
        ("maximum", "max"),
    ] {
        if let Some(value) = property.get(from) {
            field.insert(to.into(), value.clone());
        }
    }
    let multi = kind == Some("array");
    if let Some(options) = choices {
        field.insert("options".into(), Value::Array(options));
        if multi {
            field.insert("multi".into(), json!(true));
            if let Some(max) = property.get("maxItems") {
                return Err(unmappable(name, &format!("maxItems {max}")));
            }
            // At least one choice is what `required` already means.
            if let Some(min) = property
                .get("minItems")
                .filter(|min| min.as_f64() > Some(1.0))
            {
                return Err(unmappable(name, &format!("minItems {min}")));
            }
        }
    }
    if let Some(default) = property.get("default") {
        let default = match default {
            Value::String(one) if field_type == "select" => json!([one]),
            other => other.clone(),
        };
        field.insert("default".into(), default);
    }
    Ok(field)
}

/// The options of an enum property, single (`enum` with optional
/// `enumNames`, or `oneOf`) or multi (`items` with `enum` or `anyOf`), as
/// `{value, label}`; `None` for a property that is not a choice.
fn choices_of(name: &str, property: &Map<String, Value>) -> Result<Option<Vec<Value>>, Unmappable> {
    let source = match property.get("items") {
        Some(Value::Object(items)) => {
            if let Some(keyword) = items
                .keys()
                .find(|key| !["type", "enum", "anyOf"].contains(&key.as_str()))
            {
                return Err(unmappable(name, &format!("the items keyword {keyword:?}")));
            }
            items
        }
        Some(_) => return Err(unmappable(name, "items that are not a schema")),
        None => property,
    };
    let titled = source
        .get("oneOf")
        .or_else(|| source.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(titled) = titled {
        return titled
            .iter()
            .map(|choice| {
                let value = choice.get("const").and_then(Value::as_str);
                let label = choice.get("title").and_then(Value::as_str).or(value);
                match (value, label) {
                    (Some(value), Some(label)) => Ok(json!({"value": value, "label": label})),
                    _ => Err(unmappable(name, "a choice without a string const")),
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some);
    }
    let Some(values) = source.get("enum").and_then(Value::as_array) else {
        return match property.get("items") {
            Some(_) => Err(unmappable(name, "an array of anything but choices")),
            None => Ok(None),
        };
    };
    let names = property.get("enumNames").and_then(Value::as_array);
    values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let Some(value) = value.as_str() else {
                return Err(unmappable(name, "an enum of anything but strings"));
            };
            let label = names
                .and_then(|names| names.get(i))
                .and_then(Value::as_str)
                .unwrap_or(value);
            Ok(json!({"value": value, "label": label}))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}
