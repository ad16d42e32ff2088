//! Strings written as `JSON.stringify` writes them.

/// Appends `s` as a JSON string literal, exactly as `JSON.stringify`
/// writes one: `"` and `\` escaped, the five short escapes for backspace,
/// tab, newline, form feed and carriage return, `\u00XX` (lowercase hex) for
/// the other C0 controls, and everything else, U+2028 and DEL included, as
/// itself.
///
/// ```
/// let mut out = String::from("x=");
/// index_js::push_json_string(&mut out, "tab\there");
/// assert_eq!(out, r#"x="tab\there""#);
/// ```
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    // Most text escapes nothing: sixteen bytes at a time (a loop the
    // compiler turns into a few vector instructions), skip to the first
    // chunk that escapes something. Only ASCII bytes are ever escaped, so
    // every index where one is found is a character boundary.
    let bytes = s.as_bytes();
    let plain = bytes
        .chunks_exact(16)
        .take_while(|chunk| !chunk.iter().fold(false, |any, &b| any | escapes(b)))
        .count()
        * 16;
    for (i, &b) in bytes.iter().enumerate().skip(plain) {
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

/// Whether `JSON.stringify` writes byte `b` of a string as an escape.
fn escapes(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// `JSON.stringify(s)`: [`push_json_string`] into a new string.
///
/// ```
/// use index_js::json_string;
/// assert_eq!(json_string("a\"b\u{1}\u{2028}"), "\"a\\\"b\\u0001\u{2028}\"");
/// ```
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::json_string;
    use proptest::prelude::*;

    #[test]
    fn escapes_what_json_stringify_escapes() {
        assert_eq!(
            json_string("a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}é🙂"),
            "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}é🙂\""
        );
    }

    #[test]
    fn escapes_at_every_offset_of_a_long_string() {
        for escaped in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
            for at in 0..40 {
                let mut s: String = "plain text, quite long enough".repeat(2);
                s.insert(at, escaped);
                assert_eq!(
                    Some(json_string(&s)),
                    serde_json::to_string(&s).ok(),
                    "{s:?}"
                );
            }
        }
    }

    proptest! {
        /// What is written reads back as the string, and serde_json (which
        /// escapes the same set) writes the same bytes.
        #[test]
        fn agrees_with_serde_json(s in any::<String>()) {
            let written = json_string(&s);
            prop_assert_eq!(serde_json::from_str::<String>(&written).ok(), Some(s.clone()));
            prop_assert_eq!(Some(written), serde_json::to_string(&s).ok());
        }
    }
}
