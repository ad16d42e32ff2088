//! Strings as JavaScript measures and trims them.

/// Whether JavaScript's `trim`/`trimEnd` removes `c`: the ECMAScript
/// *WhiteSpace* and *LineTerminator* productions.
///
/// Unlike [`char::is_whitespace`], this includes U+FEFF (the byte-order mark)
/// and excludes U+0085 (next line).
///
/// ```
/// use index_js::is_js_whitespace;
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
/// use index_js::is_js_line_terminator;
/// assert!(is_js_line_terminator('\u{2028}'));
/// assert!(!is_js_line_terminator('\u{85}'));
/// ```
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `s.trimEnd()` as JavaScript computes it.
///
/// ```
/// use index_js::trim_end;
/// assert_eq!(trim_end("prose\u{feff}\r\n"), "prose");
/// assert_eq!(trim_end("prose\u{85}"), "prose\u{85}");
/// ```
pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// `s.trim()` as JavaScript computes it.
///
/// ```
/// use index_js::trim;
/// assert_eq!(trim("\u{3000} hi \u{2029}"), "hi");
/// ```
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Whether `s.trim()` is empty in JavaScript, without building the trim.
///
/// ```
/// use index_js::is_blank;
/// assert!(is_blank("\u{feff}\t"));
/// assert!(!is_blank("\u{85}"));
/// ```
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// JavaScript's `s.length`: the number of UTF-16 code units.
///
/// ```
/// use index_js::utf16_len;
/// assert_eq!(utf16_len("héllo"), 5);
/// assert_eq!(utf16_len("🙂"), 2);
/// ```
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // Every byte that starts a character counts one unit, and a four-byte
    // character (lead byte 0xF0 or more) counts a second. Counted eight
    // bytes to a word, each byte's verdict in its top bit: a browser build,
    // compiled for size, would otherwise make a call per byte.
    const TOP: u64 = 0x8080_8080_8080_8080;
    let count = |word: u64| {
        // Continuation bytes are 0b10xx_xxxx; four-byte leads 0b1111_xxxx.
        let continuation = word & !(word << 1) & TOP;
        let astral = word & (word << 1) & (word << 2) & (word << 3) & TOP;
        (astral.count_ones() as usize).wrapping_sub(continuation.count_ones() as usize)
    };
    let mut chunks = s.as_bytes().chunks_exact(8);
    let mut units = s.len();
    for chunk in &mut chunks {
        let word = chunk.first_chunk::<8>().copied().unwrap_or_default();
        units = units.wrapping_add(count(u64::from_le_bytes(word)));
    }
    let mut rest = [0; 8];
    rest.get_mut(..chunks.remainder().len())
        .unwrap_or_default()
        .copy_from_slice(chunks.remainder());
    units.wrapping_add(count(u64::from_le_bytes(rest)))
}

/// Whether `s` is a UUID as zod 3's `z.string().uuid()` reads one: 8-4-4-4-12
/// ASCII hex digits in either case, hyphenated, nothing before or after.
/// Any version and variant nibble is accepted, including the nil UUID;
/// braces, `urn:` prefixes and the unhyphenated form are not.
///
/// ```
/// assert!(index_js::is_hyphenated_uuid("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36"));
/// assert!(index_js::is_hyphenated_uuid("FFFFFFFF-ffff-FfFf-0000-abcdefABCDEF"));
/// assert!(!index_js::is_hyphenated_uuid("0c6e9a523b1d4f7ea2c85d94e1b07f36"));
/// assert!(!index_js::is_hyphenated_uuid("{00000000-0000-0000-0000-000000000000}"));
/// ```
pub fn is_hyphenated_uuid(s: &str) -> bool {
    // A plain loop over the bytes: a browser build, compiled for size,
    // would call an iterator adapter per byte.
    let Ok(bytes) = <&[u8; 36]>::try_from(s.as_bytes()) else {
        return false;
    };
    let mut at = 0;
    while at < 36 {
        #[allow(clippy::indexing_slicing, reason = "`at` is below the array's length")]
        let byte = bytes[at];
        let hyphen = matches!(at, 8 | 13 | 18 | 23);
        if (hyphen && byte != b'-') || (!hyphen && !byte.is_ascii_hexdigit()) {
            return false;
        }
        at += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn uuid_check_matches_zod_shapes() {
        assert!(is_hyphenated_uuid("00000000-0000-0000-0000-000000000000"));
        assert!(is_hyphenated_uuid("FFFFFFFF-ffff-FfFf-0000-abcdefABCDEF"));
        assert!(!is_hyphenated_uuid("00000000000000000000000000000000"));
        assert!(!is_hyphenated_uuid(
            "{00000000-0000-0000-0000-000000000000}"
        ));
        assert!(!is_hyphenated_uuid(
            "00000000-0000-0000-0000-000000000000\n"
        ));
        assert!(!is_hyphenated_uuid("0000000g-0000-0000-0000-000000000000"));
        assert!(!is_hyphenated_uuid("00000000-0000-0000-0000-00000000000０"));
    }

    proptest! {
        #[test]
        fn utf16_len_counts_what_encode_utf16_yields(s in any::<String>()) {
            prop_assert_eq!(utf16_len(&s), s.encode_utf16().count());
        }

        #[test]
        fn trim_removes_exactly_the_javascript_whitespace(s in "[ \u{85}\u{feff}\u{2028}a\t]{0,12}") {
            let trimmed = trim(&s);
            prop_assert!(!trimmed.starts_with(is_js_whitespace));
            prop_assert!(!trimmed.ends_with(is_js_whitespace));
            prop_assert!(s.contains(trimmed));
            prop_assert_eq!(is_blank(&s), trimmed.is_empty());
        }
    }

    /// Every code point JavaScript's `/\s/` matches (from the ECMAScript
    /// WhiteSpace and LineTerminator tables), and only those.
    #[test]
    fn whitespace_is_the_ecmascript_set() {
        let expected: Vec<u32> = [
            0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
            0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f,
            0x3000, 0xfeff,
        ]
        .to_vec();
        let found: Vec<u32> = (0..=0x10_ffff)
            .filter_map(char::from_u32)
            .filter(|&c| is_js_whitespace(c))
            .map(u32::from)
            .collect();
        assert_eq!(found, expected);
    }
}
