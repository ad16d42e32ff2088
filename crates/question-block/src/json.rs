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
    push_js_string(out, &question.prompt);
    out.push_str(",\n      \"opportunityId\": ");
    push_js_string(out, &question.opportunity_id);
    if let Some(refs) = &question.also_unblocks {
        out.push_str(",\n      \"alsoUnblocks\": ");
        if refs.is_empty() {
            out.push_str("[]");
        } else {
            out.push('[');
            for (i, reference) in refs.iter().enumerate() {
                out.push_str(if i == 0 { "\n        " } else { ",\n        " });
                push_js_string(out, reference);
            }
            out.push_str("\n      ]");
        }
    }
    out.push_str("\n    }");
}

/// A string literal as `JSON.stringify` writes one: `"` and `\` escaped, the
/// five short escapes for backspace, tab, newline, form feed and carriage
/// return, `\u00XX` (lowercase hex) for the other C0 controls, and everything
/// else, U+2028 and DEL included, as itself.
pub(crate) fn push_js_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    // Only ASCII bytes are ever escaped, so every index where one is found
    // is a character boundary.
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0C => "\\f",
            b'\r' => "\\r",
            0x00..=0x1F => "",
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            for nibble in [b >> 4, b & 0xF] {
                out.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// `payload` with every escaped lone surrogate inside a string literal
/// rewritten as `\ufffd`, borrowed unchanged when there is none.
pub(crate) fn replace_lone_surrogate_escapes(payload: &str) -> Cow<'_, str> {
    if memchr::memmem::find(payload.as_bytes(), b"\\u").is_none() {
        return Cow::Borrowed(payload);
    }
    let bytes = payload.as_bytes();
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
    fn js_string_escapes_match_json_stringify() {
        let mut out = String::new();
        push_js_string(
            &mut out,
            "a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}é🙂",
        );
        assert_eq!(
            out,
            "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}é🙂\""
        );
    }

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
