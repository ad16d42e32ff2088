//! The question block contract for JavaScript, compiled to WebAssembly.
//!
//! The package's exports take and return plain JavaScript values with the
//! reference's shapes (camelCase keys in the reference's order; optional
//! keys absent, never `undefined` or `null`), so a browser reads and writes
//! question messages with exactly the bytes the server does.
//!
//! Only text crosses the boundary, which keeps both the module and its
//! glue small, and the module has one export, [`explain`]: `index.js`
//! parses with it (from the line of a message's last marker when it can),
//! and validates and serializes a block by explaining a message that holds
//! it, writing the block with the engine's own `JSON.stringify`. The
//! package's `index.js` calls the export directly, not through
//! wasm-bindgen's generated JavaScript: it writes each string into the
//! module's memory as UTF-8 with `TextEncoder.encodeInto` (always valid
//! UTF-8, which the module therefore does not check again) and reads
//! results back with `TextDecoder`. A payload written plainly is read here
//! directly (the `canonical` module); any other is handed to the host's
//! `JSON.parse` (the reference's own semantics) and back as the text
//! `JSON.stringify` makes of it, so the module carries no JSON library.
//! Results come back as JSON text, written with the contract's own writer,
//! for `index.js` to `JSON.parse`. Messages come from the contract's `text`
//! methods, so nothing here links `core::fmt`.
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
    InvalidQuestionBlock, JsonSyntaxError, NotAQuestionMessage,
    explain_question_message_from_fence_line_with, explain_question_message_with,
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

/// The keys of a block and of its questions, in the order the reference's
/// schema writes them.
const KEY_ORDER: [&str; 5] = [
    "version",
    "questions",
    "prompt",
    "opportunityId",
    "alsoUnblocks",
];

/// Reads payloads for [`explain`], remembering a payload that is its own
/// block: written plainly ([`Canonical::read_plain`]) with its keys in the
/// schema's order, so that once the block is found valid, `JSON.parse` of
/// the payload is the block, and the module hands the payload back as it
/// came instead of writing the block out again.
#[derive(Default)]
struct Payloads {
    as_is: std::cell::RefCell<Option<String>>,
}

impl Payloads {
    fn read(&self, payload: &str) -> Result<Canonical, JsonSyntaxError> {
        match Canonical::read_plain(payload) {
            Some(value) => {
                if value.keys_in_order(&KEY_ORDER) {
                    *self.as_is.borrow_mut() = Some(payload.to_owned());
                }
                Ok(value)
            }
            None => read_payload(payload),
        }
    }
}

/// `explainQuestionMessage(body)`, as JSON: `{ok: true, prose, block}` (the
/// prose as its length in UTF-16 units, which `index.js` slices from the
/// body), or `{ok: false, rule, reason, problems?}` saying why not.
///
/// With `from_fence_line`, `body` is the end of a message from the line of
/// its last `index-questions` (see
/// [`explain_question_message_from_fence_line_with`]), which is how
/// `index.js` parses a message at a cost that does not grow with its prose;
/// the result is `false` when that line opens no fence, and `index.js` then
/// reads the whole message.
#[wasm_bindgen(js_name = explainQuestionMessage)]
pub fn explain(body: &str, from_fence_line: bool) -> String {
    let payloads = Payloads::default();
    let read = |payload: &str| payloads.read(payload);
    let explained = if from_fence_line {
        match explain_question_message_from_fence_line_with(body, read) {
            Some(explained) => explained,
            None => return String::from("false"),
        }
    } else {
        explain_question_message_with(body, read)
    };
    match explained {
        Ok(message) => {
            // The prose is the start of the body, which `index.js` slices
            // from the string it was given: that keeps its lone surrogates,
            // and spares a long prose three copies.
            let mut prose = String::new();
            push_decimal(&mut prose, utf16_len(&message.prose));
            let object = Object::new().raw("ok", "true").raw("prose", &prose);
            match payloads.as_is.borrow().as_deref() {
                Some(payload) => object.raw("block", payload),
                None => object.raw("block", &message.block.to_pretty_json()),
            }
            .done()
        }
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
