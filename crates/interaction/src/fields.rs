//! The answer specification: the typed fields a valid answer is made of,
//! and what an environment says it can render.

use serde::Serialize;
use serde_json::Value;

use index_js::{is_blank, utf16_len};

use crate::limits::CONTRACT_MAX_STRING_LENGTH;
use index_js::WireEnum;

use crate::number::{literal_tags, serialize_optional_js_number, wire_enum};
use crate::zod::{At, IssueCode, Walk};

literal_tags! {
    /// `"text"`.
    TextType = "text";
    /// `"number"`.
    NumberType = "number";
    /// `"boolean"`.
    BooleanType = "boolean";
    /// `"select"`.
    SelectType = "select";
    /// `"secret"`.
    SecretType = "secret";
}

/// What every field has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldBase {
    /// The key the answer comes back under; non-empty.
    pub name: String,
    /// The label shown to the person; non-empty.
    pub label: String,
    /// Whether an accepted answer must include it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl FieldBase {
    /// A field base with `name` and `label`, not required.
    pub fn new(name: impl Into<String>, label: impl Into<String>) -> Self {
        FieldBase {
            name: name.into(),
            label: label.into(),
            required: None,
        }
    }
}

/// A free-text answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextField {
    /// Name, label and whether it is required.
    #[serde(flatten)]
    pub base: FieldBase,
    /// Always `text`.
    #[serde(rename = "type")]
    pub field_type: TextType,
    /// Whether to offer several lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Hint text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The longest answer, in UTF-16 code units; absent means no limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The answer if the person gives none; within `max_length`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A numeric answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberField {
    /// Name, label and whether it is required.
    #[serde(flatten)]
    pub base: FieldBase,
    /// Always `number`.
    #[serde(rename = "type")]
    pub field_type: NumberType,
    /// The least allowed; at most `max`.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_optional_js_number"
    )]
    pub min: Option<f64>,
    /// The most allowed.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_optional_js_number"
    )]
    pub max: Option<f64>,
    /// The answer if the person gives none; within the bounds.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_optional_js_number"
    )]
    pub default: Option<f64>,
}

/// A yes-or-no answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BooleanField {
    /// Name, label and whether it is required.
    #[serde(flatten)]
    pub base: FieldBase,
    /// Always `boolean`.
    #[serde(rename = "type")]
    pub field_type: BooleanType,
    /// The answer if the person gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// One choice of a select field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectOption {
    /// What comes back when chosen; non-empty, unique within the field.
    pub value: String,
    /// What the person sees; non-empty.
    pub label: String,
    /// More about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A choice among options; the answer is a list of option values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectField {
    /// Name, label and whether a choice is required.
    #[serde(flatten)]
    pub base: FieldBase,
    /// Always `select`.
    #[serde(rename = "type")]
    pub field_type: SelectType,
    /// At least one.
    pub options: Vec<SelectOption>,
    /// Whether more than one may be chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multi: Option<bool>,
    /// Whether a non-blank write-in outside the options is allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_custom: Option<bool>,
    /// The choice if the person makes none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Like text, but sensitive (a token, a key): masked, and never given a
/// default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretField {
    /// Name, label and whether it is required.
    #[serde(flatten)]
    pub base: FieldBase,
    /// Always `secret`.
    #[serde(rename = "type")]
    pub field_type: SecretType,
    /// Hint text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The longest answer, in UTF-16 code units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
}

/// One field of an answer, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InteractionField {
    /// `text`.
    Text(TextField),
    /// `number`.
    Number(NumberField),
    /// `boolean`.
    Boolean(BooleanField),
    /// `select`.
    Select(SelectField),
    /// `secret`.
    Secret(SecretField),
}

impl InteractionField {
    /// The key the answer comes back under.
    pub fn name(&self) -> &str {
        &self.base().name
    }

    /// What every field has.
    pub fn base(&self) -> &FieldBase {
        match self {
            InteractionField::Text(f) => &f.base,
            InteractionField::Number(f) => &f.base,
            InteractionField::Boolean(f) => &f.base,
            InteractionField::Select(f) => &f.base,
            InteractionField::Secret(f) => &f.base,
        }
    }

    /// Whether an accepted answer must include it.
    pub fn is_required(&self) -> bool {
        self.base().required.unwrap_or(false)
    }

    /// Its type.
    pub fn field_type(&self) -> InteractionFieldType {
        match self {
            InteractionField::Text(_) => InteractionFieldType::Text,
            InteractionField::Number(_) => InteractionFieldType::Number,
            InteractionField::Boolean(_) => InteractionFieldType::Boolean,
            InteractionField::Select(_) => InteractionFieldType::Select,
            InteractionField::Secret(_) => InteractionFieldType::Secret,
        }
    }
}

wire_enum! {
    /// The type of a field, as capabilities list them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum InteractionFieldType {
        /// `text`.
        Text = "text",
        /// `number`.
        Number = "number",
        /// `boolean`.
        Boolean = "boolean",
        /// `select`.
        Select = "select",
        /// `secret`.
        Secret = "secret",
    }
}

/// The fields of a valid answer; names unique.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractionAnswerSpec {
    /// The fields, in the order to show them.
    pub fields: Vec<InteractionField>,
}

impl InteractionAnswerSpec {
    /// The field named `name`, if any.
    pub fn field(&self, name: &str) -> Option<&InteractionField> {
        self.fields.iter().find(|f| f.name() == name)
    }
}

wire_enum! {
    /// How far beyond this one ask a policy may apply an accepted answer again.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum InteractionResponseScope {
        /// This interaction only.
        Interaction = "interaction",
        /// The rest of the session.
        Session = "session",
        /// From now on.
        Persistent = "persistent",
    }
}

/// What an environment can do with interactions. Its absence means none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractionCapabilities {
    /// Kinds it renders; non-empty, unique.
    pub kinds: Vec<String>,
    /// Field types it renders; non-empty, unique.
    pub answer_field_types: Vec<InteractionFieldType>,
    /// Scopes it honours; non-empty, unique.
    pub response_scopes: Vec<InteractionResponseScope>,
    /// Whether it takes secret answers: exactly when `secret` is listed.
    pub secret_answers: bool,
    /// Whether several requests may be outstanding at once.
    pub concurrent_requests: bool,
    /// Whether requests are replayed after a reconnect.
    pub replay: bool,
    /// Whether repeating a response command is safe.
    pub response_idempotency: bool,
}

/// Whether `items` has a repeat.
pub(crate) fn has_duplicates<T: Ord>(items: &[T]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    items.iter().any(|item| !seen.insert(item))
}

fn optional_bool(
    w: &mut Walk,
    at: &At<'_>,
    object: &serde_json::Map<String, Value>,
    key: &str,
) -> Result<Option<bool>, ()> {
    w.optional(object, key, |w, v| w.boolean(&at.key(key), v))
}

fn optional_string(
    w: &mut Walk,
    at: &At<'_>,
    object: &serde_json::Map<String, Value>,
    key: &str,
    min: usize,
) -> Result<Option<String>, ()> {
    w.optional(object, key, |w, v| {
        w.string(&at.key(key), v, min).map(str::to_owned)
    })
}

pub(crate) fn parse_field(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionField> {
    let object = w.object(at, value)?;
    let tag = w.tag(at, object, "type", InteractionFieldType::NAMES)?;
    let mark = w.mark();
    let name = w
        .field_name(&at.key("name"), object.get("name"))
        .map(str::to_owned);
    let label = w
        .string(&at.key("label"), object.get("label"), 1)
        .map(str::to_owned);
    let required = optional_bool(w, at, object, "required");
    let base = (|| {
        Some(FieldBase {
            name: name?,
            label: label?,
            required: required.ok()?,
        })
    })();
    let field = match tag {
        "text" => {
            let multiline = optional_bool(w, at, object, "multiline");
            let placeholder = optional_string(w, at, object, "placeholder", 0);
            let max_length = w.optional(object, "maxLength", |w, v| {
                w.positive_int(&at.key("maxLength"), v, max_length_bound(w))
            });
            let default = optional_string(w, at, object, "default", 0);
            w.strict(
                at,
                object,
                &[
                    "name",
                    "label",
                    "required",
                    "type",
                    "multiline",
                    "placeholder",
                    "maxLength",
                    "default",
                ],
            );
            Some(InteractionField::Text(TextField {
                base: base?,
                field_type: TextType,
                multiline: multiline.ok()?,
                placeholder: placeholder.ok()?,
                max_length: max_length.ok()?,
                default: default.ok()?,
            }))
        }
        "number" => {
            let min = w.optional(object, "min", |w, v| w.number(&at.key("min"), v));
            let max = w.optional(object, "max", |w, v| w.number(&at.key("max"), v));
            let default = w.optional(object, "default", |w, v| w.number(&at.key("default"), v));
            w.strict(
                at,
                object,
                &["name", "label", "required", "type", "min", "max", "default"],
            );
            Some(InteractionField::Number(NumberField {
                base: base?,
                field_type: NumberType,
                min: min.ok()?,
                max: max.ok()?,
                default: default.ok()?,
            }))
        }
        "boolean" => {
            let default = optional_bool(w, at, object, "default");
            w.strict(
                at,
                object,
                &["name", "label", "required", "type", "default"],
            );
            Some(InteractionField::Boolean(BooleanField {
                base: base?,
                field_type: BooleanType,
                default: default.ok()?,
            }))
        }
        "select" => {
            let options = parse_options(w, &at.key("options"), object.get("options"));
            let multi = optional_bool(w, at, object, "multi");
            let allow_custom = optional_bool(w, at, object, "allowCustom");
            let default = w.optional(object, "default", |w, v| {
                parse_identifiers(w, &at.key("default"), v, 0)
            });
            w.strict(
                at,
                object,
                &[
                    "name",
                    "label",
                    "required",
                    "type",
                    "options",
                    "multi",
                    "allowCustom",
                    "default",
                ],
            );
            Some(InteractionField::Select(SelectField {
                base: base?,
                field_type: SelectType,
                options: options?,
                multi: multi.ok()?,
                allow_custom: allow_custom.ok()?,
                default: default.ok()?,
            }))
        }
        _ => {
            let placeholder = optional_string(w, at, object, "placeholder", 0);
            let max_length = w.optional(object, "maxLength", |w, v| {
                w.positive_int(&at.key("maxLength"), v, max_length_bound(w))
            });
            w.strict(
                at,
                object,
                &[
                    "name",
                    "label",
                    "required",
                    "type",
                    "placeholder",
                    "maxLength",
                ],
            );
            Some(InteractionField::Secret(SecretField {
                base: base?,
                field_type: SecretType,
                placeholder: placeholder.ok()?,
                max_length: max_length.ok()?,
            }))
        }
    };
    w.refine(mark, &field, |w, field| {
        refine_field(w, at, field);
    });
    field
}

/// The largest `maxLength` a text or secret field may set: 16384 from 0.46
/// on.
fn max_length_bound(w: &Walk) -> Option<u64> {
    w.current().then_some(CONTRACT_MAX_STRING_LENGTH as u64)
}

fn parse_options(w: &mut Walk, at: &At<'_>, value: Option<&Value>) -> Option<Vec<SelectOption>> {
    w.list(at, value, 1, |w, item_at, item| {
        let object = w.object(item_at, Some(item))?;
        let value = w
            .identifier(&item_at.key("value"), object.get("value"))
            .map(str::to_owned);
        let label = w
            .string(&item_at.key("label"), object.get("label"), 1)
            .map(str::to_owned);
        let description = optional_string(w, item_at, object, "description", 0);
        w.strict(item_at, object, &["value", "label", "description"]);
        Some(SelectOption {
            value: value?,
            label: label?,
            description: description.ok()?,
        })
    })
}

/// An array of identifiers.
fn parse_identifiers(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
    min: usize,
) -> Option<Vec<String>> {
    w.list(at, value, min, |w, item_at, item| {
        w.identifier(item_at, Some(item)).map(str::to_owned)
    })
}

fn refine_field(w: &mut Walk, at: &At<'_>, field: &InteractionField) {
    match field {
        InteractionField::Text(text) => {
            if let (Some(default), Some(max)) = (&text.default, text.max_length)
                && utf16_len(default) as u64 > max
            {
                w.issue(
                    &at.key("default"),
                    IssueCode::Custom,
                    "the default is longer than maxLength",
                );
            }
        }
        InteractionField::Number(number) => {
            if let (Some(min), Some(max)) = (number.min, number.max)
                && min > max
            {
                w.issue(
                    &at.key("max"),
                    IssueCode::Custom,
                    "max must not be below min",
                );
            }
            if let (Some(default), Some(min)) = (number.default, number.min)
                && default < min
            {
                w.issue(
                    &at.key("default"),
                    IssueCode::Custom,
                    "the default is below min",
                );
            }
            if let (Some(default), Some(max)) = (number.default, number.max)
                && default > max
            {
                w.issue(
                    &at.key("default"),
                    IssueCode::Custom,
                    "the default is above max",
                );
            }
        }
        InteractionField::Select(select) => refine_select(w, at, select),
        InteractionField::Boolean(_) | InteractionField::Secret(_) => {}
    }
}

fn refine_select(w: &mut Walk, at: &At<'_>, select: &SelectField) {
    let values: Vec<&str> = select.options.iter().map(|o| o.value.as_str()).collect();
    if has_duplicates(&values) {
        w.issue(
            &at.key("options"),
            IssueCode::Custom,
            "option values must be unique",
        );
    }
    let Some(default) = &select.default else {
        return;
    };
    let default_at = at.key("default");
    if has_duplicates(default) {
        w.issue(
            &default_at,
            IssueCode::Custom,
            "default values must be unique",
        );
    }
    if !select.multi.unwrap_or(false) && default.len() > 1 {
        w.issue(
            &default_at,
            IssueCode::Custom,
            "a single-select default holds at most one value",
        );
    }
    if select.base.required.unwrap_or(false) && default.is_empty() {
        w.issue(
            &default_at,
            IssueCode::Custom,
            "a required select's default must hold a value",
        );
    }
    for value in default {
        let write_in_ok = select.allow_custom == Some(true) && !is_blank(value);
        if !values.contains(&value.as_str()) && !write_in_ok {
            w.issue(
                &default_at,
                IssueCode::Custom,
                format!("the default holds \"{value}\", which is not an option"),
            );
        }
    }
}

pub(crate) fn parse_answer_spec(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionAnswerSpec> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let fields_at = at.key("fields");
    let fields = w.list(&fields_at, object.get("fields"), 0, |w, item_at, item| {
        parse_field(w, item_at, Some(item))
    });
    w.strict(at, object, &["fields"]);
    let spec = fields.map(|fields| InteractionAnswerSpec { fields });
    w.refine(mark, &spec, |w, spec| {
        let names: Vec<&str> = spec.fields.iter().map(InteractionField::name).collect();
        if has_duplicates(&names) {
            w.issue(&fields_at, IssueCode::Custom, "field names must be unique");
        }
    });
    spec
}

fn parse_enum_list<T: WireEnum>(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<Vec<T>> {
    w.list(at, value, 1, |w, item_at, item| {
        w.one_of(item_at, Some(item))
    })
}

pub(crate) fn parse_scopes(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<Vec<InteractionResponseScope>> {
    parse_enum_list(w, at, value)
}

pub(crate) fn parse_capabilities(
    w: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionCapabilities> {
    let object = w.object(at, value)?;
    let mark = w.mark();
    let kinds_at = at.key("kinds");
    let kinds = parse_identifiers(w, &kinds_at, object.get("kinds"), 1);
    let types = parse_enum_list(
        w,
        &at.key("answerFieldTypes"),
        object.get("answerFieldTypes"),
    );
    let scopes = parse_scopes(w, &at.key("responseScopes"), object.get("responseScopes"));
    let flags: Vec<Option<bool>> = [
        "secretAnswers",
        "concurrentRequests",
        "replay",
        "responseIdempotency",
    ]
    .iter()
    .map(|key| w.boolean(&at.key(key), object.get(*key)))
    .collect();
    w.strict(
        at,
        object,
        &[
            "kinds",
            "answerFieldTypes",
            "responseScopes",
            "secretAnswers",
            "concurrentRequests",
            "replay",
            "responseIdempotency",
        ],
    );
    let capabilities = match (kinds, types, scopes, flags.as_slice()) {
        (
            Some(kinds),
            Some(answer_field_types),
            Some(response_scopes),
            [
                Some(secret_answers),
                Some(concurrent_requests),
                Some(replay),
                Some(response_idempotency),
            ],
        ) => Some(InteractionCapabilities {
            kinds,
            answer_field_types,
            response_scopes,
            secret_answers: *secret_answers,
            concurrent_requests: *concurrent_requests,
            replay: *replay,
            response_idempotency: *response_idempotency,
        }),
        _ => None,
    };
    w.refine(mark, &capabilities, |w, c| {
        if c.answer_field_types.contains(&InteractionFieldType::Secret) != c.secret_answers {
            w.issue(
                &at.key("secretAnswers"),
                IssueCode::Custom,
                "secretAnswers must be true exactly when secret fields are supported",
            );
        }
        if has_duplicates(&c.kinds) {
            w.issue(&kinds_at, IssueCode::Custom, "kinds must be unique");
        }
        if has_duplicates(&c.answer_field_types) {
            w.issue(
                &at.key("answerFieldTypes"),
                IssueCode::Custom,
                "answer field types must be unique",
            );
        }
        if has_duplicates(&c.response_scopes) {
            w.issue(
                &at.key("responseScopes"),
                IssueCode::Custom,
                "response scopes must be unique",
            );
        }
    });
    capabilities
}

crate::contract::schema_type! {
    InteractionField => parse_field, true,
    InteractionAnswerSpec => parse_answer_spec, true,
    InteractionCapabilities => parse_capabilities, true,
}

crate::contract::shared! {
    InteractionField,
    InteractionAnswerSpec,
    InteractionCapabilities,
}
