//! The question block contract for JavaScript, compiled to WebAssembly.
//!
//! The package's exports take and return plain JavaScript values with the
//! reference's shapes (camelCase keys in the reference's order; optional
//! keys absent, never `undefined` or `null`), so a browser reads and writes
//! question messages with exactly the bytes the server does.
//!
//! Only text crosses the boundary, which keeps both the module and its
//! glue small. The package's `index.js` calls the exports directly, not
//! through wasm-bindgen's generated JavaScript: it writes each string into
//! the module's memory as UTF-8 from `TextEncoder` (a native copy, and always
//! valid UTF-8, which the module therefore does not check again) and reads
//! results back with `TextDecoder`. Values go in as the text
//! `JSON.stringify` makes of them, and a payload is handed to the host's
//! `JSON.parse` (the reference's own semantics) and back as that text, so
//! the module reads only canonical JSON (the `canonical` module) and carries
//! no JSON library. Results come back as JSON text, written with the
//! contract's own writer, for `index.js` to `JSON.parse`. Messages come from
//! the contract's `text` methods, so nothing here links `core::fmt`.
//!
//! Built by `cargo xtask wasm` into an npm-style package in
//! `target/wasm-pkg/`, whose `index.js` (from `js/index.js`, checked
//! against the module's interface when built) wraps these exports and adds
//! the marker and version constants, and whose `fixture.js` holds the canonical
//! fixture.

mod canonical;

use wasm_bindgen::prelude::*;

use index_js::{push_decimal, push_json_string, utf16_len};
use index_question_block::{
    InvalidQuestionBlock, JsonSyntaxError, NotAQuestionMessage, ParsedQuestionMessage,
    QuestionBlock, explain_question_message_with, parse_question_message_with,
    serialize_question_message_from_json,
};

use crate::canonical::Canonical;

/// The module's allocator: small, and safe to share (a lock, which costs
/// nothing without threads).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());

#[wasm_bindgen]
extern "C" {
    /// `JSON.stringify(JSON.parse(text))`, or NUL and `JSON.parse`'s
    /// message when `text` is not JSON (canonical JSON never starts so).
    /// Provided by `index.js`.
    #[wasm_bindgen(js_name = canonicalJson)]
    fn canonical_json(text: &str) -> String;
}

/// `payload` as the host's `JSON.parse` reads it, or its reason why not.
fn read_payload(payload: &str) -> Result<Canonical, JsonSyntaxError> {
    let canonical = canonical_json(payload);
    match canonical.strip_prefix('\u{0}') {
        Some(reason) => Err(JsonSyntaxError {
            offset: syntax_offset(payload, reason),
            reason: reason.to_owned(),
        }),
        None => Canonical::read(&canonical).ok_or_else(|| JsonSyntaxError {
            offset: 0,
            reason: "the host's JSON could not be read back".to_owned(),
        }),
    }
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
                .take_while(|digit| digit.is_ascii_digit())
                .fold(0usize, |n, digit| {
                    n.saturating_mul(10)
                        .saturating_add(usize::from(digit - b'0'))
                })
        })
        .unwrap_or(0);
    // Each character starts with a byte that is not a continuation byte,
    // and is two UTF-16 units when that byte starts four.
    let mut seen = 0;
    for (at, &byte) in payload.as_bytes().iter().enumerate() {
        if byte & 0xC0 != 0x80 {
            seen += if byte >= 0xF0 { 2 } else { 1 };
            if seen > units {
                return at;
            }
        }
    }
    payload.len()
}

/// A JSON object written member by member, in the contract's key order.
struct Object(String);

impl Object {
    fn new() -> Self {
        Object(String::from("{"))
    }

    /// A member whose value is already JSON text.
    fn raw(mut self, key: &str, json: &str) -> Self {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        push_json_string(&mut self.0, key);
        self.0.push(':');
        self.0.push_str(json);
        self
    }

    fn text(mut self, key: &str, value: &str) -> Self {
        self = self.raw(key, "");
        push_json_string(&mut self.0, value);
        self
    }

    fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// A parsed message with its prose as the body's length in UTF-16 units up
/// to the prose's end: the prose is the start of the body, which `index.js`
/// slices from the string it was given. That keeps its lone surrogates, and
/// spares a long prose three copies.
fn parsed(object: Object, parsed: &ParsedQuestionMessage) -> String {
    let mut prose = String::new();
    push_decimal(&mut prose, utf16_len(&parsed.prose));
    object
        .raw("prose", &prose)
        .raw("block", &parsed.block.to_pretty_json())
        .done()
}

/// Every problem of an invalid block, as a JSON array of `{path, rule,
/// message}`.
fn problems(invalid: &InvalidQuestionBlock) -> String {
    let mut list = String::from("[");
    for issue in invalid.issues().iter() {
        if list.len() > 1 {
            list.push(',');
        }
        list.push_str(
            &Object::new()
                .text("path", &issue.path_text())
                .text("rule", issue.code.rule())
                .text("message", &issue.code.text())
                .done(),
        );
    }
    list.push(']');
    list
}

/// `parseQuestionMessage(body)`, as JSON: `{prose, block}` (the prose as
/// its length in UTF-16 units, which `index.js` slices from the body), or
/// `null` when the body is not a question message.
#[wasm_bindgen(js_name = parseQuestionMessage)]
pub fn parse(body: &str) -> String {
    let read = |payload: &str| read_payload(payload).ok();
    match parse_question_message_with(body, read) {
        Some(message) => parsed(Object::new(), &message),
        None => String::from("null"),
    }
}

/// `explainQuestionMessage(body)`, as JSON: `{ok: true, prose, block}` (the
/// prose as its length in UTF-16 units, which `index.js` slices from the
/// body), or `{ok: false, rule, reason, problems?}` saying why not.
#[wasm_bindgen(js_name = explainQuestionMessage)]
pub fn explain(body: &str) -> String {
    match explain_question_message_with(body, read_payload) {
        Ok(message) => parsed(Object::new().raw("ok", "true"), &message),
        Err(why) => {
            let refusal = Object::new()
                .raw("ok", "false")
                .text("rule", why.rule())
                .text("reason", &why.text());
            match &why {
                NotAQuestionMessage::InvalidBlock(invalid) => {
                    refusal.raw("problems", &problems(invalid))
                }
                _ => refusal,
            }
            .done()
        }
    }
}

/// `serializeQuestionMessage(prose, block)`, as JSON: `{message}`, or
/// `{error}` listing every problem of an invalid block, which `index.js`
/// throws as an `Error`.
#[wasm_bindgen(js_name = serializeQuestionMessage)]
pub fn serialize(prose: &str, block: &str) -> String {
    let message = match Canonical::read(block) {
        Some(value) => {
            serialize_question_message_from_json(prose, &&value).map_err(|invalid| invalid.text())
        }
        None => Err(String::from("the value is not JSON")),
    };
    match message {
        Ok(message) => Object::new().text("message", &message).done(),
        Err(error) => Object::new().text("error", &error).done(),
    }
}

/// `validateQuestionBlock(value)`, as JSON: `{ok: true, block}`
/// (normalised), or `{ok: false, problems: [{path, rule, message}]}`.
#[wasm_bindgen(js_name = validateQuestionBlock)]
pub fn validate(value: &str) -> String {
    let Some(value) = Canonical::read(value) else {
        return Object::new()
            .raw("ok", "false")
            .raw("problems", "[]")
            .done();
    };
    match QuestionBlock::from_json(&&value) {
        Ok(block) => Object::new()
            .raw("ok", "true")
            .raw("block", &block.to_pretty_json())
            .done(),
        Err(invalid) => Object::new()
            .raw("ok", "false")
            .raw("problems", &problems(&invalid))
            .done(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_parse_positions_count_utf16_units() {
        let payload = "é😀x";
        let at = |message: &str| syntax_offset(payload, message);
        assert_eq!(
            at("Unexpected token 'x', \"é😀x\" is not valid JSON at position 3"),
            6
        );
        assert_eq!(at("Unexpected token in JSON at position 1"), 2);
        assert_eq!(at("Unexpected token in JSON at position 0"), 0);
        assert_eq!(at("Unexpected end of JSON input"), 0);
        assert_eq!(at("at position 99"), payload.len());
    }
}
