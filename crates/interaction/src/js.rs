//! The JavaScript semantics this contract inherits: string lengths in UTF-16
//! code units, JavaScript's `trim`, numbers written as JavaScript writes
//! them, and the order in which JavaScript visits an object's keys.

use serde_json::{Map, Value};

/// JavaScript's largest safe integer, 2^53 − 1.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// JavaScript's `s.length`.
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Whether JavaScript's `trim` removes `c`.
fn is_js_whitespace(c: char) -> bool {
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

/// JavaScript's `s.trim()`.
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Whether `s.trim()` is empty in JavaScript.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// A number as JavaScript's `String(n)` writes it: `3` for 3.0, `1.5`,
/// `1e+21`, `1.5e-7`, `NaN`, `Infinity`.
///
/// ```
/// use index_interaction::js_number_string;
/// assert_eq!(js_number_string(3.0), "3");
/// assert_eq!(js_number_string(1e21), "1e+21");
/// assert_eq!(js_number_string(1.5e-7), "1.5e-7");
/// assert_eq!(js_number_string(-0.0), "0");
/// assert_eq!(js_number_string(123456.789), "123456.789");
/// ```
pub fn js_number_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if n == 0.0 {
        return "0".to_owned();
    }
    let sign = if n < 0.0 { "-" } else { "" };
    // Rust's `{:e}` gives the shortest round-trip digits, like ECMAScript's
    // Number::toString, only laid out differently.
    let scientific = format!("{:e}", n.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let n_exp = exponent.parse::<i64>().unwrap_or(0) + 1;
    let body = if k <= n_exp && n_exp <= 21 {
        format!(
            "{digits}{}",
            "0".repeat(usize::try_from(n_exp - k).unwrap_or(0))
        )
    } else if 0 < n_exp && n_exp <= 21 {
        let (whole, fraction) = digits.split_at(usize::try_from(n_exp).unwrap_or(0));
        format!("{whole}.{fraction}")
    } else if -6 < n_exp && n_exp <= 0 {
        format!(
            "0.{}{digits}",
            "0".repeat(usize::try_from(-n_exp).unwrap_or(0))
        )
    } else {
        let e = n_exp - 1;
        let e_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1.min(digits.len()));
        if rest.is_empty() {
            format!("{first}e{e_sign}{}", e.abs())
        } else {
            format!("{first}.{rest}e{e_sign}{}", e.abs())
        }
    };
    format!("{sign}{body}")
}

/// JavaScript's `String(value)` for a JSON value: arrays join their items
/// with commas (null as empty), objects are `[object Object]`.
pub(crate) fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number_string(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                if item.is_null() {
                    String::new()
                } else {
                    js_string(item)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".to_owned(),
    }
}

/// Whether `key` is a canonical array index, which JavaScript visits first
/// and in numeric order.
fn array_index(key: &str) -> Option<u32> {
    let index: u32 = key.parse().ok()?;
    (index != u32::MAX && index.to_string() == key).then_some(index)
}

/// `map`'s keys in the order JavaScript's `Object.keys` would give them
/// for an object whose other keys were inserted in sorted order: array
/// indices ascending, then the rest. (A parsed map no longer knows the
/// document's order; see STABILITY.md.)
pub(crate) fn js_keys(map: &Map<String, Value>) -> Vec<&String> {
    let mut indices: Vec<(u32, &String)> = map
        .keys()
        .filter_map(|k| array_index(k).map(|i| (i, k)))
        .collect();
    indices.sort_unstable();
    let mut keys: Vec<&String> = indices.into_iter().map(|(_, k)| k).collect();
    keys.extend(map.keys().filter(|k| array_index(k).is_none()));
    keys
}

/// Whether `n` is a safe integer (zod 4's `.int()`).
pub(crate) fn is_safe_integer(n: f64) -> bool {
    n.is_finite() && n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER
}

/// What JavaScript reads as `value.length`, as a number: a string's
/// UTF-16 length, an array's item count, an object's own `length` member
/// as `Number()` converts it; `None` where it is `undefined`.
pub(crate) fn js_length(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::String(s) => Some(utf16_len(s) as f64),
        Value::Array(items) => Some(items.len() as f64),
        Value::Object(map) => map.get("length").map(js_to_number),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// JavaScript's `Number(value)` for JSON.
pub(crate) fn js_to_number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => string_to_number(s),
        // `Number([])` is 0 and `Number([x])` is `Number(String(x))`.
        Value::Array(items) => match items.as_slice() {
            [] => 0.0,
            [item] if !item.is_array() && !item.is_object() => string_to_number(&js_string(item)),
            _ => f64::NAN,
        },
        Value::Object(_) => f64::NAN,
    }
}

/// JavaScript's `Number(s)` for a string: trimmed, empty is 0, decimal
/// and `Infinity` forms; anything else `NaN`.
fn string_to_number(s: &str) -> f64 {
    let s = js_trim(s);
    if s.is_empty() {
        return 0.0;
    }
    let unsigned = s.trim_start_matches(['+', '-']);
    if unsigned == "Infinity" {
        return if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let decimal = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    match s.parse::<f64>() {
        Ok(n) if decimal && s.len() - unsigned.len() <= 1 => n,
        _ => f64::NAN,
    }
}
