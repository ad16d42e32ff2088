//! The question block contract for JavaScript, compiled to WebAssembly.
//!
//! The exports take and return plain JavaScript values with the
//! reference's shapes (camelCase keys in the reference's order; optional
//! keys absent, never `undefined` or `null`), so a browser reads and writes
//! question messages with exactly the bytes the server does. Values cross
//! the boundary as JSON text, serialized from typed values so key order is
//! the contract's, never a map's.
//!
//! Built by `cargo xtask wasm` into an npm-style package in
//! `target/wasm-pkg/`, whose `index.js` adds the marker and version
//! constants and whose `fixture.js` holds the canonical fixture.

use js_sys::JSON;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use index_question_block::{
    InvalidQuestionBlock, NotAQuestionMessage, ParsedQuestionMessage, QuestionBlock,
    explain_question_message, parse_question_message, serialize_question_message,
};

/// A typed value as the JavaScript object `JSON.parse` makes of its JSON.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|err| js_sys::Error::new(&err.to_string()))?;
    JSON::parse(&text)
}

/// A JavaScript value as JSON, the way `JSON.stringify` writes it.
fn from_js(value: &JsValue) -> Result<Value, JsValue> {
    let text = JSON::stringify(value)?
        .as_string()
        .ok_or_else(|| js_sys::Error::new("the value has no JSON form"))?;
    serde_json::from_str(&text).map_err(|err| js_sys::Error::new(&err.to_string()).into())
}

/// One problem of an invalid block.
#[derive(Serialize)]
struct Problem {
    path: String,
    rule: &'static str,
    message: String,
}

fn problems(invalid: &InvalidQuestionBlock) -> Vec<Problem> {
    invalid
        .issues()
        .iter()
        .map(|issue| Problem {
            path: issue.path.to_string(),
            rule: issue.code.rule(),
            message: issue.code.to_string(),
        })
        .collect()
}

/// `explainQuestionMessage`'s answer: `{ok: true, prose, block}` or
/// `{ok: false, rule, reason, problems?}`.
#[derive(Serialize)]
#[serde(untagged)]
enum Explanation {
    Parsed {
        ok: bool,
        prose: String,
        block: QuestionBlock,
    },
    Refused {
        ok: bool,
        rule: &'static str,
        reason: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        problems: Option<Vec<Problem>>,
    },
}

/// `validateQuestionBlock`'s answer.
#[derive(Serialize)]
#[serde(untagged)]
enum Validation {
    Valid { ok: bool, block: QuestionBlock },
    Invalid { ok: bool, problems: Vec<Problem> },
}

/// `parseQuestionMessage(body)`: `{prose, block}`, or `null` when the body
/// is not a question message.
#[wasm_bindgen(js_name = parseQuestionMessage)]
pub fn parse(body: &str) -> Result<JsValue, JsValue> {
    parse_question_message(body).map_or(Ok(JsValue::NULL), |parsed: ParsedQuestionMessage| {
        to_js(&parsed)
    })
}

/// `explainQuestionMessage(body)`: `{ok: true, prose, block}`, or
/// `{ok: false, rule, reason, problems?}` saying why not.
#[wasm_bindgen(js_name = explainQuestionMessage)]
pub fn explain(body: &str) -> Result<JsValue, JsValue> {
    let explanation = match explain_question_message(body) {
        Ok(parsed) => Explanation::Parsed {
            ok: true,
            prose: parsed.prose,
            block: parsed.block,
        },
        Err(why) => Explanation::Refused {
            ok: false,
            rule: why.rule(),
            reason: why.to_string(),
            problems: match &why {
                NotAQuestionMessage::InvalidBlock(invalid) => Some(problems(invalid)),
                _ => None,
            },
        },
    };
    to_js(&explanation)
}

/// `serializeQuestionMessage(prose, block)`: the message, or a thrown
/// `Error` listing every problem of an invalid block.
#[wasm_bindgen(js_name = serializeQuestionMessage)]
pub fn serialize(prose: &str, block: &JsValue) -> Result<String, JsValue> {
    let block = QuestionBlock::from_json_value(&from_js(block)?)
        .map_err(|invalid| js_sys::Error::new(&invalid.to_string()))?;
    serialize_question_message(prose, &block)
        .map_err(|invalid| js_sys::Error::new(&invalid.to_string()).into())
}

/// `validateQuestionBlock(value)`: `{ok: true, block}` (normalised), or
/// `{ok: false, problems: [{path, rule, message}]}`.
#[wasm_bindgen(js_name = validateQuestionBlock)]
pub fn validate(value: &JsValue) -> Result<JsValue, JsValue> {
    let validation = match QuestionBlock::from_json_value(&from_js(value)?) {
        Ok(block) => Validation::Valid { ok: true, block },
        Err(invalid) => Validation::Invalid {
            ok: false,
            problems: problems(&invalid),
        },
    };
    to_js(&validation)
}
