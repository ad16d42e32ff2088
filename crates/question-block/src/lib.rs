//! The question block: the fenced JSON block that carries a negotiation's open
//! questions at the end of a chat message.
//!
//! A negotiator that parks on questions only its human can answer writes one
//! chat message: some prose for the person, then a fenced section whose info
//! string is [`QUESTION_BLOCK_MARKER`] holding a [`QuestionBlock`] as JSON.
//! The server writes it with [`serialize_question_message`]; the browser (and
//! the server, when it routes answers) reads it back with
//! [`parse_question_message`]. Both sides must agree on every byte, so this
//! crate reproduces the reference implementation's behaviour exactly,
//! including the JavaScript string semantics it was written in (see
//! [`index_js`] and `docs/question-block.md`).
//!
//! Parsing fails closed: a body that does not end in exactly one well-formed,
//! valid block yields `None`, and the caller shows the whole body as plain
//! text. [`explain_question_message`] makes the same decision but says why.
//!
//! ```
//! use index_question_block::{
//!     parse_question_message, serialize_question_message, QuestionBlock, QuestionBlockQuestion,
//! };
//!
//! let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
//!     "Which city should the first meeting be in?",
//!     "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4",
//! )]);
//! let message = serialize_question_message("One thing before I continue:", &block)?;
//! let parsed = parse_question_message(&message).expect("a block we just wrote parses");
//! assert_eq!(parsed.prose, "One thing before I continue:");
//! assert_eq!(parsed.block, block);
//! # Ok::<(), index_question_block::InvalidQuestionBlock>(())
//! ```
//!
//! This crate is browser-safe: no I/O, no clock, no randomness, and it builds
//! for `wasm32-unknown-unknown`.
//!
//! | module | holds |
//! |---|---|
//! | `limits` | the marker, the version and the limits, a leaf the others read |
//! | `block` | the types, and nothing that reads or checks them |
//! | `view` | `JsonView`, read-only parsed JSON (serde_json's, or a browser's `JSON.parse`) |
//! | `walk` | reads a block out of any view as the zod schema does |
//! | `rules` | the checks both the walk and typed blocks use |
//! | `validate` | checks a typed block; decodes well-typed JSON straight into the block |
//! | `fence` | the fence searches: `blocks` (native, SIMD over 64-byte blocks) and `ticks` (WebAssembly, from backtick to backtick) |
//! | `json` | writes the payload exactly as `JSON.stringify` does |
//! | `message` | serialize, parse and explain, over one split of the body |
//! | `structured` | the structured question a negotiator parks on |
//! | `fixture` | the canonical message, typed out by hand |
//! | `error` | the reports, each with a `text` built without `core::fmt` |

mod block;
mod error;
mod fence;
#[cfg(feature = "fixture")]
pub mod fixture;
mod json;
mod limits;
mod message;
mod rules;
mod structured;
mod validate;
mod view;
mod walk;

pub use block::{
    ParsedQuestionMessage, QuestionBlock, QuestionBlockQuestion, QuestionBlockVersion,
};
pub use error::{
    InvalidQuestionBlock, IssueCode, IssuePath, JsonType, NotAQuestionMessage, PathSegment,
    ValidationIssue,
};
pub use message::{
    JsonSyntaxError, UnsendableQuestionMessage, explain_question_message,
    explain_question_message_from_fence_line_with, explain_question_message_utf16,
    explain_question_message_with, parse_question_message, parse_question_message_utf16,
    parse_question_message_with, serialize_question_message, serialize_question_message_checked,
    serialize_question_message_from_json,
};

/// Whether `s` is a negotiation reference as the block requires one: a UUID
/// in its hyphenated 8-4-4-4-12 form, hex digits in either case, nothing
/// before or after (zod's check, which does not look at version or variant).
///
/// ```
/// use index_question_block::is_negotiation_ref;
/// assert!(is_negotiation_ref("9D2E7A41-c3b8-4f05-a6e9-1b7d0c5f82e4"));
/// assert!(!is_negotiation_ref("{9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4}"));
/// ```
pub fn is_negotiation_ref(s: &str) -> bool {
    index_js::is_hyphenated_uuid(s)
}
pub use structured::{InvalidStructuredQuestion, QuestionOption, StructuredQuestion};
pub use view::JsonView;

pub use limits::{
    MAX_ALSO_UNBLOCKS, MAX_PROMPT_LENGTH, MAX_QUESTIONS, QUESTION_BLOCK_KEYS,
    QUESTION_BLOCK_MARKER, QUESTION_BLOCK_VERSION,
};
