//! JavaScript string semantics that the wire contract inherits from the
//! reference implementation.
//!
//! Rust's `str::trim_end` and `char::is_whitespace` disagree with
//! JavaScript's `String.prototype.trimEnd` on two code points (U+0085 and
//! U+FEFF), and JavaScript measures strings in UTF-16 code units rather than
//! bytes or scalar values. Every length limit and every trim in this crate
//! goes through these functions so the two implementations cannot drift.

/// Whether JavaScript's `trim`/`trimEnd` removes `c`: the ECMAScript
/// *WhiteSpace* and *LineTerminator* productions.
///
/// Unlike [`char::is_whitespace`], this includes U+FEFF (the byte-order mark)
/// and excludes U+0085 (next line).
///
/// ```
/// use index_question_block::js::is_js_whitespace;
/// assert!(is_js_whitespace('\u{feff}'));
/// assert!(!is_js_whitespace('\u{85}'));
/// ```
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Whether `c` ends a line for a JavaScript regular expression in multiline
/// mode (`^` and `$` with the `m` flag): LF, CR, U+2028 and U+2029.
///
/// ```
/// use index_question_block::js::is_js_line_terminator;
/// assert!(is_js_line_terminator('\u{2028}'));
/// assert!(!is_js_line_terminator('\u{85}'));
/// ```
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `s.trimEnd()` as JavaScript computes it.
///
/// ```
/// use index_question_block::js::trim_end;
/// assert_eq!(trim_end("prose\u{feff}\r\n"), "prose");
/// assert_eq!(trim_end("prose\u{85}"), "prose\u{85}");
/// ```
pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// `s.trim()` as JavaScript computes it.
///
/// ```
/// use index_question_block::js::trim;
/// assert_eq!(trim("\u{3000} hi \u{2029}"), "hi");
/// ```
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// JavaScript's `s.length`: the number of UTF-16 code units.
///
/// ```
/// use index_question_block::js::utf16_len;
/// assert_eq!(utf16_len("héllo"), 5);
/// assert_eq!(utf16_len("🙂"), 2);
/// ```
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // Every byte that starts a character counts one unit, and a four-byte
    // character (lead byte 0xF0 or more) counts a second.
    let continuation = s.bytes().filter(|&b| b & 0xC0 == 0x80).count();
    let astral = s.bytes().filter(|&b| b >= 0xF0).count();
    s.len() - continuation + astral
}

/// `JSON.stringify(s)`: the string as a JSON literal, written exactly as
/// JavaScript writes one (`"` and `\` escaped, the short escapes, `\u00XX`
/// for other controls, everything else as itself).
///
/// ```
/// use index_question_block::js::json_string;
/// assert_eq!(json_string("a\"b\u{1}\u{2028}"), "\"a\\\"b\\u0001\u{2028}\"");
/// ```
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    crate::json::push_js_string(&mut out, s);
    out
}
