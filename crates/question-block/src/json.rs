//! The two places where serde_json and JavaScript's JSON disagree in a way
//! the question block can see.
//!
//! * Writing: the payload must be byte-identical to `JSON.stringify(block,
//!   null, 2)`. A dedicated writer for the block's fixed shape makes that
//!   exact and infallible (no `Result` from a serializer that cannot fail).
//! * Reading: `JSON.parse` accepts escaped lone surrogates (`"\ud800"`),
//!   which serde_json rejects and a Rust `String` cannot hold. They are
//!   replaced with U+FFFD before parsing, which keeps every length the same
//!   (both are one UTF-16 code unit) and so every validation decision.

use std::borrow::Cow;

use crate::block::{QuestionBlock, QuestionBlockQuestion};

pub(crate) fn pretty_block(block: &QuestionBlock) -> String {
    let mut out = String::with_capacity(pretty_len_hint(block));
    write_pretty_block(&mut out, block);
    out
}

/// Roughly how many bytes the pretty payload takes, to size buffers once.
pub(crate) fn pretty_len_hint(block: &QuestionBlock) -> usize {
    block
        .questions
        .iter()
        .map(|q| {
            96 + q.prompt.len()
                + q.also_unblocks
                    .as_ref()
                    .map_or(0, |refs| 32 + 48 * refs.len())
        })
        .sum::<usize>()
        + 64
}

/// Appends the payload to `out`.
pub(crate) fn write_pretty_block(out: &mut String, block: &QuestionBlock) {
    out.push_str("{\n  \"version\": 1,\n  \"questions\": ");
    if block.questions.is_empty() {
        out.push_str("[]");
    } else {
        out.push('[');
        for (i, question) in block.questions.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            pretty_question(out, question);
        }
        out.push_str("\n  ]");
    }
    out.push_str("\n}");
}

fn pretty_question(out: &mut String, question: &QuestionBlockQuestion) {
    out.push_str("{\n      \"prompt\": ");
    index_js::push_json_string(out, &question.prompt);
    out.push_str(",\n      \"opportunityId\": ");
    index_js::push_json_string(out, &question.opportunity_id);
    if let Some(refs) = &question.also_unblocks {
        out.push_str(",\n      \"alsoUnblocks\": ");
        if refs.is_empty() {
            out.push_str("[]");
        } else {
            out.push('[');
            for (i, reference) in refs.iter().enumerate() {
                out.push_str(if i == 0 { "\n        " } else { ",\n        " });
                index_js::push_json_string(out, reference);
            }
            out.push_str("\n      ]");
        }
    }
    out.push_str("\n    }");
}

/// `payload` with every escaped lone surrogate inside a string literal
/// rewritten as `\ufffd`, borrowed unchanged when there is none.
pub(crate) fn replace_lone_surrogate_escapes(payload: &str) -> Cow<'_, str> {
    let bytes = payload.as_bytes();
    let escapes_a_unit =
        memchr::memchr_iter(b'\\', bytes).any(|at| bytes.get(at + 1) == Some(&b'u'));
    if !escapes_a_unit {
        return Cow::Borrowed(payload);
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match unicode_escape(bytes, i) {
                Some(unit) if is_high_surrogate(unit) => {
                    if unicode_escape(bytes, i + 6).is_some_and(is_low_surrogate) {
                        i += 12;
                    } else {
                        replace(payload, &mut out, &mut copied, i);
                        i += 6;
                    }
                }
                Some(unit) if is_low_surrogate(unit) => {
                    replace(payload, &mut out, &mut copied, i);
                    i += 6;
                }
                Some(_) => i += 6,
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(payload),
        Some(mut rewritten) => {
            rewritten.push_str(payload.get(copied..).unwrap_or_default());
            Cow::Owned(rewritten)
        }
    }
}

fn replace(payload: &str, out: &mut Option<String>, copied: &mut usize, escape_at: usize) {
    let rewritten = out.get_or_insert_with(|| String::with_capacity(payload.len()));
    rewritten.push_str(payload.get(*copied..escape_at).unwrap_or_default());
    rewritten.push_str("\\ufffd");
    *copied = escape_at + 6;
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one is there.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<u16> {
    let escape = bytes.get(at..at + 6)?;
    if escape.first() != Some(&b'\\') || escape.get(1) != Some(&b'u') {
        return None;
    }
    let hex = std::str::from_utf8(escape.get(2..)?).ok()?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(hex, 16).ok()
}

fn is_high_surrogate(unit: u16) -> bool {
    (0xD800..=0xDBFF).contains(&unit)
}

fn is_low_surrogate(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

impl QuestionBlock {
    /// The block as the reference's `JSON.stringify(block, null, 2)` writes
    /// it: the exact payload of a question message's fenced section.
    ///
    /// This does not validate; [`serialize_question_message`](crate::serialize_question_message)
    /// does.
    ///
    /// ```
    /// use index_question_block::{QuestionBlock, QuestionBlockQuestion};
    /// let block = QuestionBlock::new(vec![QuestionBlockQuestion::new("Q?", "9d2e7a41-c3b8-4f05-a6e9-1b7d0c5f82e4")]);
    /// assert!(block.to_pretty_json().starts_with("{\n  \"version\": 1,\n  \"questions\": [\n"));
    /// ```
    pub fn to_pretty_json(&self) -> String {
        pretty_block(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(replace_lone_surrogate_escapes(r#""\ud800""#), r#""\ufffd""#);
        assert_eq!(
            replace_lone_surrogate_escapes(r#""\uDC00x""#),
            r#""\ufffdx""#
        );
        assert_eq!(
            replace_lone_surrogate_escapes(r#""\ud83d\ude00""#),
            r#""\ud83d\ude00""#
        );
        assert_eq!(
            replace_lone_surrogate_escapes(r#""\ud83d\ud83d\ude00""#),
            r#""\ufffd\ud83d\ude00""#
        );
        assert_eq!(
            replace_lone_surrogate_escapes(r#""\\ud800""#),
            r#""\\ud800""#
        );
        assert!(matches!(
            replace_lone_surrogate_escapes(r#"{"a": "plain"}"#),
            Cow::Borrowed(_)
        ));
    }
}
