//! The question block contract for JavaScript, compiled to WebAssembly.
//!
//! The package's exports take and return plain JavaScript values with the
//! reference's shapes (camelCase keys in the reference's order; optional
//! keys absent, never `undefined` or `null`), so a browser reads and writes
//! question messages with exactly the bytes the server does.
//!
//! Only text crosses the boundary, which keeps both the module and its
//! glue small, and the module has one export, [`question_message`], which
//! explains a whole message, decides the end of one from the line of its
//! last marker (how `index.js` parses), or checks a block (how it
//! validates and serializes). It never writes a block: the engine's
//! `JSON.parse` of an accepted payload is the block, once its keys are in
//! the contract's order, which the module says. The package's `index.js` calls the export
//! directly, not through wasm-bindgen's generated JavaScript: it writes
//! each string into the module's memory as UTF-8 with
//! `TextEncoder.encodeInto` (always valid UTF-8, which the module therefore
//! does not check again) and reads results back with `TextDecoder`. A
//! payload written plainly is read here directly (the `canonical` module);
//! any other is handed to the host's `JSON.parse` (the reference's own
//! semantics) and back as the text `JSON.stringify` makes of it, so the
//! module carries no JSON library. Results come back as short JSON text
//! for `index.js` to `JSON.parse`. Messages
//! come from the contract's `text` methods, so nothing here links
//! `core::fmt`. The allocator (`arena.rs`) starts over after every call.
//!
//! Built by `cargo xtask wasm` into an npm-style package in
//! `target/wasm-pkg/`, whose `index.js` (from `js/index.js`, checked
//! against the module's interface when built) wraps these exports and adds
//! the marker and version constants, and whose `fixture.js` holds the canonical
//! fixture.
//!
//! | module | holds |
//! |---|---|
//! | `canonical` | a payload written plainly, read without the host's `JSON.parse` (strings scanned sixteen bytes at a time) |
//! | `arena` | the module's allocator: a bump allocator that starts over whenever nothing is allocated, which is after every call |

// The allocator, on the host only for its tests.
#[cfg(any(target_arch = "wasm32", test))]
mod arena;
mod canonical;

use std::cell::Cell;

use wasm_bindgen::prelude::*;

use index_js::{push_decimal, push_json_string, utf16_len};
use index_question_block::{
    InvalidQuestionBlock, JsonSyntaxError, JsonView, MAX_QUESTIONS, NotAQuestionMessage,
    QUESTION_BLOCK_KEYS, QuestionBlock, explain_question_message_with,
};

use crate::canonical::Canonical;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: arena::Arena<arena::Linear> = arena::Arena::new(arena::Linear);

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

/// Reads the payloads of one task.
struct Payloads {
    /// Only the decision is asked for, so a block with more questions than
    /// any valid one is refused before it is walked (its reason unsaid).
    decide: bool,
}

impl Payloads {
    /// `payload` as the host's `JSON.parse` reads it: read here when it is
    /// written plainly ([`Canonical::read_plain`]), else by the host.
    fn read(&self, payload: &str) -> Result<Canonical, JsonSyntaxError> {
        let value = match Canonical::read_plain(payload) {
            Some(value) => value,
            None => read_payload(payload)?,
        };
        let questions = (&value).member("questions");
        if self.decide
            && matches!(questions, Some(Canonical::Array(items)) if items.len() > MAX_QUESTIONS)
        {
            return Err(JsonSyntaxError {
                offset: 0,
                reason: String::new(),
            });
        }
        Ok(value)
    }
}

/// [`question_message`]'s task: explain a whole message.
const EXPLAIN: u32 = 0;
/// [`question_message`]'s task: decide a message's end from its fence line.
const PARSE_FROM_FENCE_LINE: u32 = 1;
/// [`question_message`]'s task: check a block.
const CHECK_BLOCK: u32 = 2;

/// The module's one export, which reads `text` as `task` says (one export
/// rather than three, as each costs the module its glue). The module never
/// writes a block: the host's `JSON.parse` of the payload the module
/// accepted is the block, once its keys are in the contract's order
/// ([`QUESTION_BLOCK_KEYS`]), which the reply says (`ordered`).
///
/// - `0`, explain: `explainQuestionMessage(text)`'s decision, as JSON:
///   `[prose, from, to, ordered]` (the prose's length, and where the
///   payload starts and ends, in UTF-16 units of `text`, which `index.js`
///   slices; `ordered` is 1 or 0), or `{ok: false, rule, reason,
///   problems?}` saying why not.
/// - `1`, parse from the fence line: the decision alone for the end of a
///   message from the line of its last `index-questions`, which decides as
///   the whole message would when that line opens a fence (see
///   [`explain_question_message_from_fence_line_with`](index_question_block::explain_question_message_from_fence_line_with)).
///   Such a tail holds no marker after its first line, so its last opening
///   fence can only be there, and `explain_question_message_with` gives
///   that function's decision, with `NoMarkerFence` where it gives `None`;
///   calling it instead would cost the module another 70 bytes gzipped.
///   This is how `index.js` parses a message at a cost that grows with
///   neither its prose nor a refused block: the same `[prose, ...]`, or
///   just `{ok: false}`; `false` when the end holds no fence, and
///   `index.js` then explains the whole message.
/// - `2`, check a block, given as the JSON `JSON.stringify` made of it:
///   `[ordered]`, or the refusal of a message holding it.
#[wasm_bindgen(js_name = questionMessage)]
pub fn question_message(text: &str, task: u32) -> String {
    let payloads = Payloads {
        decide: task == PARSE_FROM_FENCE_LINE,
    };
    // Where the payload lies in `text`, in bytes, and whether its keys are
    // in order.
    let read = Cell::new((0, 0, false));
    let explained = match task {
        EXPLAIN | PARSE_FROM_FENCE_LINE => explain_question_message_with(text, |payload| {
            // The payload is a part of `text` (as the reader promises),
            // so its address says where.
            let from = (payload.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            let to = from.saturating_add(payload.len());
            let value = payloads.read(payload)?;
            read.set((from, to, in_key_order(&value)));
            Ok(value)
        }),
        CHECK_BLOCK => return check_block(text),
        _ => return String::from("false"),
    };
    match explained {
        Ok(message) => {
            let (from, to, ordered) = read.get();
            let before = text.get(..from).unwrap_or_default();
            let payload = text.get(from..to).unwrap_or_default();
            // The prose is the start of the body, which `index.js` slices
            // from the string it was given: that keeps its lone surrogates,
            // and spares a long prose three copies.
            let from = utf16_len(before);
            accepted(&[
                utf16_len(&message.prose),
                from,
                from + utf16_len(payload),
                usize::from(ordered),
            ])
        }
        // The end from the fence line holds no fence: the message's, if
        // any, is earlier.
        Err(NotAQuestionMessage::NoMarkerFence) if payloads.decide => String::from("false"),
        Err(_) if payloads.decide => String::from("{\"ok\":false}"),
        Err(why) => refusal(&why),
    }
}

/// Whether a valid block's objects hold their keys in the order the
/// contract writes them. A valid block's keys are all known, and the ones
/// it must have come first in that order, so its keys are in order exactly
/// when they start it.
fn in_key_order(value: &Canonical) -> bool {
    let (block, question) = QUESTION_BLOCK_KEYS.split_at(2);
    let written = |value: &Canonical, order: &[&str]| {
        matches!(value, Canonical::Object(members)
            if members.iter().zip(order).all(|((key, _), known)| key == known))
    };
    written(value, block)
        && match value.member("questions") {
            Some(Canonical::Array(questions)) => {
                questions.iter().all(|item| written(item, question))
            }
            _ => true,
        }
}

/// [`CHECK_BLOCK`].
fn check_block(json: &str) -> String {
    let why = match (Payloads { decide: false }).read(json) {
        Ok(value) => match QuestionBlock::from_json(&&value) {
            Ok(_) => {
                return accepted(&[usize::from(in_key_order(&value))]);
            }
            Err(invalid) => NotAQuestionMessage::InvalidBlock(invalid),
        },
        // Not reached: JSON.stringify's text is JSON.
        Err(err) => NotAQuestionMessage::InvalidJson {
            line: 1,
            column: 1,
            reason: err.reason,
        },
    };
    refusal(&why)
}

/// An accepted text's reply: its figures, as a JSON array.
fn accepted(figures: &[usize]) -> String {
    let mut reply = String::from("[");
    for figure in figures {
        if reply.len() > 1 {
            reply.push(',');
        }
        push_decimal(&mut reply, *figure);
    }
    reply.push(']');
    reply
}

/// `{ok: false, rule, reason, problems?}`: why a body is not a question
/// message, with every problem of an invalid block.
fn refusal(why: &NotAQuestionMessage) -> String {
    let refusal = Object::new()
        .raw("ok", "false")
        .text("rule", why.rule())
        .text("reason", &why.text());
    match why {
        NotAQuestionMessage::InvalidBlock(invalid) => refusal.raw("problems", &problems(invalid)),
        _ => refusal,
    }
    .done()
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

    /// The `key = value` lines of `toml`'s table `[name]`, in order.
    fn lint_table<'a>(toml: &'a str, name: &str) -> Vec<&'a str> {
        toml.lines()
            .skip_while(|line| line.trim() != name)
            .skip(1)
            .take_while(|line| !line.starts_with('['))
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect()
    }

    /// The crate's lints are the workspace's but for `unsafe_code`, denied
    /// here (so that `arena` alone may allow it) and forbidden there.
    #[test]
    fn the_lints_are_the_workspaces_but_for_unsafe_code() {
        let workspace = include_str!("../../../Cargo.toml");
        let crate_toml = include_str!("../Cargo.toml");
        for group in ["rust", "clippy"] {
            let ours = lint_table(crate_toml, &format!("[lints.{group}]"));
            let theirs: Vec<String> = lint_table(workspace, &format!("[workspace.lints.{group}]"))
                .into_iter()
                .map(|line| line.replace(r#"unsafe_code = "forbid""#, r#"unsafe_code = "deny""#))
                .collect();
            assert!(!ours.is_empty(), "no [lints.{group}] here");
            assert_eq!(ours, theirs, "[lints.{group}]");
        }
        assert!(workspace.contains(r#"unsafe_code = "forbid""#));
        assert!(crate_toml.contains(r#"unsafe_code = "deny""#));
    }
}
