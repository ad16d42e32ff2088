//! Numbers as JavaScript reads and writes them.

use crate::string::trim;

/// JavaScript's `Number.MAX_SAFE_INTEGER`, 2^53 − 1: the largest integer a
/// double holds with every smaller integer.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// `Number.isSafeInteger(n)` (what zod 4's `.int()` accepts).
///
/// ```
/// use index_js::{MAX_SAFE_INTEGER, is_safe_integer};
/// assert!(is_safe_integer(-MAX_SAFE_INTEGER));
/// assert!(!is_safe_integer(MAX_SAFE_INTEGER + 1.0));
/// assert!(!is_safe_integer(1.5));
/// ```
pub fn is_safe_integer(n: f64) -> bool {
    n.is_finite() && n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER
}

/// `String(n)`: a number as JavaScript writes it (`3` for 3.0, `1.5`,
/// `1e+21`, `1.5e-7`, `NaN`, `Infinity`, and `0` for −0).
///
/// ```
/// use index_js::number_to_string;
/// assert_eq!(number_to_string(3.0), "3");
/// assert_eq!(number_to_string(1e21), "1e+21");
/// assert_eq!(number_to_string(1.5e-7), "1.5e-7");
/// assert_eq!(number_to_string(-0.0), "0");
/// assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
/// ```
pub fn number_to_string(n: f64) -> String {
    ryu_js::Buffer::new().format(n).to_owned()
}

/// `Number(text)`: the number JavaScript reads from a string, `NaN` where it
/// reads `NaN`.
///
/// `Number` accepts more than Rust's `f64::from_str` in some ways (hex,
/// octal and binary literals, JavaScript whitespace around the value, the
/// empty string as 0) and less in others (no `inf`, `nan` or `infinity`, no
/// sign before a `0x` literal).
///
/// ```
/// use index_js::number_from_str;
/// assert_eq!(number_from_str(" 0x10\n"), 16.0);
/// assert_eq!(number_from_str("3e0"), 3.0);
/// assert_eq!(number_from_str(""), 0.0);
/// assert!(number_from_str("inf").is_nan());
/// assert!(number_from_str("-0x1").is_nan());
/// assert_eq!(number_from_str("-Infinity"), f64::NEG_INFINITY);
/// ```
pub fn number_from_str(text: &str) -> f64 {
    let text = trim(text);
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

/// Appends `n` in decimal without `core::fmt`, so a WebAssembly build that
/// writes only whole numbers links none of the formatting machinery.
///
/// ```
/// let mut out = String::from("line ");
/// index_js::push_decimal(&mut out, 1024);
/// assert_eq!(out, "line 1024");
/// ```
pub fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        if let Some(digit) = digits.get_mut(at) {
            // `rest % 10` is a single digit.
            *digit = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in digits.get(at..).unwrap_or_default() {
        out.push(char::from(digit));
    }
}

/// Serializes a double as `JSON.stringify` writes it: whole numbers
/// without a fraction (`3` and `9007199254740992`, not `3.0`; JavaScript
/// writes whole numbers below 10^21 in full), negative zero as `0`,
/// anything else as the shortest double.
///
/// ```
/// let write = |n| index_js::serialize_js_number(n, serde_json::value::Serializer).unwrap().to_string();
/// assert_eq!(write(3.0), "3");
/// assert_eq!(write(-0.0), "0");
/// assert_eq!(write(2.5), "2.5");
/// ```
///
/// # Errors
///
/// Whatever `serializer` reports.
pub fn serialize_js_number<S: serde::Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
    // 2^63 and 2^64: the whole numbers an i64 or a u64 holds exactly.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    if n.fract() != 0.0 || !n.is_finite() {
        serializer.serialize_f64(n)
    } else if n.abs() < I64_END {
        // Exact, and -0.0 becomes 0.
        serializer.serialize_i64(n as i64)
    } else if (0.0..U64_END).contains(&n) {
        serializer.serialize_u64(n as u64)
    } else {
        serializer.serialize_f64(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pairs recorded from Node 20 (`Number(s)` and `String(n)`).
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
            assert_eq!(number_from_str(text), expected, "{text:?}");
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
            assert!(number_from_str(text).is_nan(), "{text:?}");
        }
        let written = [
            (0.1 + 0.2, "0.30000000000000004"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (-1.5e300, "-1.5e+300"),
            (f64::NAN, "NaN"),
            (5e-324, "5e-324"),
        ];
        for (n, expected) in written {
            assert_eq!(number_to_string(n), expected);
        }
    }

    proptest! {
        /// What `String(n)` writes, `Number` reads back as `n`.
        #[test]
        fn number_round_trips_through_its_string(n in any::<f64>()) {
            let back = number_from_str(&number_to_string(n));
            prop_assert!(back == n || (back.is_nan() && n.is_nan()));
        }

        #[test]
        fn push_decimal_writes_what_display_writes(n in any::<usize>()) {
            let mut out = String::new();
            push_decimal(&mut out, n);
            prop_assert_eq!(out, n.to_string());
        }
    }
}
