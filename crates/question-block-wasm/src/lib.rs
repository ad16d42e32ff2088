//! The question block contract for JavaScript, compiled to WebAssembly.
//!
//! The exports take and return plain JavaScript values with the
//! reference's shapes (camelCase keys in the reference's order; optional
//! keys absent, never `undefined` or `null`), so a browser reads and writes
//! question messages with exactly the bytes the server does.
//!
//! The module carries no JSON code of its own: a payload is read by the
//! host's `JSON.parse`, which has the reference's semantics exactly, and
//! walked through [`JsonView`]; results are built as JavaScript objects
//! key by key. Messages are built with the contract's `text` methods, so
//! nothing here links `core::fmt`. Both keep the module small.
//!
//! Built by `cargo xtask wasm` into an npm-style package in
//! `target/wasm-pkg/`, whose `index.js` adds the marker and version
//! constants and whose `fixture.js` holds the canonical fixture.

use std::borrow::Cow;

use js_sys::{Array, JSON, Object, Reflect};
use wasm_bindgen::prelude::*;

use index_question_block::{
    InvalidQuestionBlock, JsonSyntaxError, JsonType, JsonView, NotAQuestionMessage,
    ParsedQuestionMessage, QuestionBlock, explain_question_message_with,
    parse_question_message_with, serialize_question_message,
};

/// The module's allocator: small, and safe to share (a lock, which costs
/// nothing without threads).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());

/// A value `JSON.parse` made, read as the contract reads JSON.
struct Parsed(JsValue);

impl JsonView for Parsed {
    fn json_type(&self) -> JsonType {
        let value = &self.0;
        if value.is_null() {
            JsonType::Null
        } else if value.as_bool().is_some() {
            JsonType::Boolean
        } else if value.as_f64().is_some() {
            JsonType::Number
        } else if value.is_string() {
            JsonType::String
        } else if Array::is_array(value) {
            JsonType::Array
        } else {
            JsonType::Object
        }
    }

    fn as_text(&self) -> Option<Cow<'_, str>> {
        self.0.as_string().map(Cow::Owned)
    }

    fn as_double(&self) -> Option<f64> {
        self.0.as_f64()
    }

    fn items(&self) -> Option<Vec<Self>> {
        Array::is_array(&self.0).then(|| Array::from(&self.0).iter().map(Parsed).collect())
    }

    fn member(&self, key: &str) -> Option<Self> {
        let object = self.0.dyn_ref::<Object>()?;
        let key = JsValue::from_str(key);
        Object::has_own(object, &key)
            .then(|| Reflect::get(object, &key).ok().map(Parsed))
            .flatten()
    }

    fn keys(&self) -> Vec<String> {
        self.0
            .dyn_ref::<Object>()
            .filter(|_| !Array::is_array(&self.0))
            .map(|object| {
                Object::keys(object)
                    .iter()
                    .filter_map(|key| key.as_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A JavaScript error with `message`.
fn error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// `value` as `JSON.parse(JSON.stringify(value))` makes it: what the
/// contract reads from a value handed in, as the reference reads it.
fn through_json(value: &JsValue) -> Result<Parsed, JsValue> {
    let text = JSON::stringify(value)?
        .as_string()
        .ok_or_else(|| error("the value has no JSON form"))?;
    JSON::parse(&text).map(Parsed)
}

/// An object built key by key, so keys keep the contract's order.
struct Builder(Object);

impl Builder {
    fn new() -> Self {
        Builder(Object::new())
    }

    fn set(self, key: &str, value: impl Into<JsValue>) -> Result<Self, JsValue> {
        Reflect::set(&self.0, &JsValue::from_str(key), &value.into())?;
        Ok(self)
    }

    fn done(self) -> JsValue {
        self.0.into()
    }
}

fn strings(items: &[String]) -> Array {
    items.iter().map(|item| JsValue::from_str(item)).collect()
}

fn block_to_js(block: &QuestionBlock) -> Result<JsValue, JsValue> {
    let questions = Array::new();
    for question in &block.questions {
        let mut object = Builder::new()
            .set("prompt", question.prompt.as_str())?
            .set("opportunityId", question.opportunity_id.as_str())?;
        if let Some(refs) = &question.also_unblocks {
            object = object.set("alsoUnblocks", strings(refs))?;
        }
        questions.push(&object.done());
    }
    Ok(Builder::new()
        .set("version", 1)?
        .set("questions", questions)?
        .done())
}

fn parsed_to_js(ok: Option<bool>, parsed: &ParsedQuestionMessage) -> Result<JsValue, JsValue> {
    let mut object = Builder::new();
    if let Some(ok) = ok {
        object = object.set("ok", ok)?;
    }
    Ok(object
        .set("prose", parsed.prose.as_str())?
        .set("block", block_to_js(&parsed.block)?)?
        .done())
}

/// Every problem of an invalid block, as `{path, rule, message}` objects.
fn problems(invalid: &InvalidQuestionBlock) -> Result<Array, JsValue> {
    let list = Array::new();
    for issue in invalid.issues() {
        let problem = Builder::new()
            .set("path", issue.path.text())?
            .set("rule", issue.code.rule())?
            .set("message", issue.code.text())?;
        list.push(&problem.done());
    }
    Ok(list)
}

/// Where `JSON.parse` stopped, from its message's `position N` (counted in
/// UTF-16 units of the payload), as a byte offset; 0 when it gives none.
fn syntax_offset(payload: &str, message: &str) -> usize {
    const POSITION: &[u8] = b"position ";
    let bytes = message.as_bytes();
    let units: usize = (0..bytes.len())
        .find(|&at| bytes.get(at..at + POSITION.len()) == Some(POSITION))
        .and_then(|at| bytes.get(at + POSITION.len()..))
        .map(|rest| {
            rest.iter()
                .copied()
                .take_while(u8::is_ascii_digit)
                .fold(0usize, |n, digit| {
                    n.saturating_mul(10)
                        .saturating_add(usize::from(digit - b'0'))
                })
        })
        .unwrap_or(0);
    let mut seen = 0;
    payload
        .char_indices()
        .find(|(_, c)| {
            seen += c.len_utf16();
            seen > units
        })
        .map_or(payload.len(), |(at, _)| at)
}

/// `parseQuestionMessage(body)`: `{prose, block}`, or `null` when the body
/// is not a question message.
#[wasm_bindgen(js_name = parseQuestionMessage)]
pub fn parse(body: &str) -> Result<JsValue, JsValue> {
    match parse_question_message_with(body, |payload| JSON::parse(payload).ok().map(Parsed)) {
        Some(parsed) => parsed_to_js(None, &parsed),
        None => Ok(JsValue::NULL),
    }
}

/// `explainQuestionMessage(body)`: `{ok: true, prose, block}`, or
/// `{ok: false, rule, reason, problems?}` saying why not.
#[wasm_bindgen(js_name = explainQuestionMessage)]
pub fn explain(body: &str) -> Result<JsValue, JsValue> {
    let read = |payload: &str| {
        JSON::parse(payload).map(Parsed).map_err(|thrown| {
            let reason = thrown
                .dyn_ref::<js_sys::Error>()
                .and_then(|err| err.message().as_string())
                .unwrap_or_default();
            JsonSyntaxError {
                offset: syntax_offset(payload, &reason),
                reason,
            }
        })
    };
    match explain_question_message_with(body, read) {
        Ok(parsed) => parsed_to_js(Some(true), &parsed),
        Err(why) => {
            let mut refusal = Builder::new()
                .set("ok", false)?
                .set("rule", why.rule())?
                .set("reason", why.text())?;
            if let NotAQuestionMessage::InvalidBlock(invalid) = &why {
                refusal = refusal.set("problems", problems(invalid)?)?;
            }
            Ok(refusal.done())
        }
    }
}

/// `serializeQuestionMessage(prose, block)`: the message, or a thrown
/// `Error` listing every problem of an invalid block.
#[wasm_bindgen(js_name = serializeQuestionMessage)]
pub fn serialize(prose: &str, block: &JsValue) -> Result<String, JsValue> {
    let block = QuestionBlock::from_json(&through_json(block)?)
        .map_err(|invalid| error(&invalid.text()))?;
    serialize_question_message(prose, &block).map_err(|invalid| error(&invalid.text()))
}

/// `validateQuestionBlock(value)`: `{ok: true, block}` (normalised), or
/// `{ok: false, problems: [{path, rule, message}]}`.
#[wasm_bindgen(js_name = validateQuestionBlock)]
pub fn validate(value: &JsValue) -> Result<JsValue, JsValue> {
    match QuestionBlock::from_json(&through_json(value)?) {
        Ok(block) => Ok(Builder::new()
            .set("ok", true)?
            .set("block", block_to_js(&block)?)?
            .done()),
        Err(invalid) => Ok(Builder::new()
            .set("ok", false)?
            .set("problems", problems(&invalid)?)?
            .done()),
    }
}
