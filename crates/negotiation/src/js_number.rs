//! JavaScript's `Number(string)`, for the environment variables the
//! reference reads that way.
//!
//! `Number` accepts more than Rust's `f64::from_str` in some ways (hex, octal
//! and binary literals, JavaScript whitespace around the value, the empty
//! string as 0) and less in others (no `inf`, `nan` or `infinity`), so it is
//! written out here rather than approximated.

use index_question_block::js;

/// The number JavaScript's `Number(text)` gives, `NaN` when it gives `NaN`.
///
/// ```
/// use index_negotiation::js_number;
/// assert_eq!(js_number(" 0x10\n"), 16.0);
/// assert_eq!(js_number("3e0"), 3.0);
/// assert_eq!(js_number(""), 0.0);
/// assert!(js_number("inf").is_nan());
/// assert_eq!(js_number("-Infinity"), f64::NEG_INFINITY);
/// ```
pub fn js_number(text: &str) -> f64 {
    let text = js::trim(text);
    if text.is_empty() {
        return 0.0;
    }
    for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
        if let Some(digits) = prefixes.iter().find_map(|p| text.strip_prefix(p)) {
            return radix_integer(digits, radix);
        }
    }
    let (sign, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, text.get(1..).unwrap_or_default()),
        Some(b'+') => (1.0, text.get(1..).unwrap_or_default()),
        _ => (1.0, text),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal_literal(unsigned) {
        return f64::NAN;
    }
    unsigned
        .parse::<f64>()
        .map_or(f64::NAN, |value| sign * value)
}

/// `digits` in `radix`, rounded once to the nearest double; `NaN` when empty
/// or holding a digit outside the radix.
fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let mut exact: Option<u128> = Some(0);
    let mut approximate = 0.0f64;
    for c in digits.chars() {
        let Some(digit) = c.to_digit(radix) else {
            return f64::NAN;
        };
        exact = exact
            .and_then(|n| n.checked_mul(u128::from(radix)))
            .and_then(|n| n.checked_add(u128::from(digit)));
        approximate = approximate * f64::from(radix) + f64::from(digit);
    }
    // u128 to f64 rounds to nearest; past u128 the running double is as
    // close as this needs (such values are far beyond any limit read here).
    exact.map_or(approximate, |n| n as f64)
}

/// `digits[.digits][e[+-]digits]` or `.digits[e[+-]digits]`, ASCII only.
fn is_decimal_literal(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let integer = digits(&mut i);
    let mut fraction = 0;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        fraction = digits(&mut i);
    }
    if integer == 0 && fraction == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == bytes.len()
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
    fn matches_javascript_number() {
        let cases = [
            ("3", 3.0),
            ("  3  ", 3.0),
            ("\u{feff}3\u{2028}", 3.0),
            ("+3", 3.0),
            ("-3", -3.0),
            ("3.", 3.0),
            (".5", 0.5),
            ("3.0", 3.0),
            ("1e3", 1000.0),
            ("1E+3", 1000.0),
            ("010", 10.0),
            ("00", 0.0),
            ("0x1F", 31.0),
            ("0o17", 15.0),
            ("0b101", 5.0),
            ("0B0", 0.0),
            ("Infinity", f64::INFINITY),
            ("+Infinity", f64::INFINITY),
            ("", 0.0),
            (" \t\n", 0.0),
            ("1e400", f64::INFINITY),
            ("0x20000000000000000000000000000000000", 2f64.powi(137)),
        ];
        for (text, expected) in cases {
            assert_eq!(js_number(text), expected, "{text:?}");
        }
        for text in [
            "inf",
            "nan",
            "NaN",
            "infinity",
            "-0x10",
            "0x",
            "1_000",
            "1,000",
            "3 4",
            "e5",
            ".",
            "+-3",
            "0xG",
            "Infinityx",
            "\u{85}3",
        ] {
            assert!(js_number(text).is_nan(), "{text:?}");
        }
    }
}
