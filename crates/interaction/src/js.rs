//! The JavaScript semantics this contract applies to JSON values: `String`
//! and `Number` of a value, what `value.length` reads, and the order in
//! which JavaScript visits an object's keys. The string and number
//! semantics underneath are `index_js`'s.

use index_js::{number_from_str, number_to_string, utf16_len};
use serde_json::{Map, Value};

/// JavaScript's `String(value)` for a JSON value: arrays join their items
/// with commas (null as empty), objects are `[object Object]`.
pub(crate) fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_string(n.as_f64().unwrap_or(f64::NAN)),
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
        Value::String(s) => number_from_str(s),
        // `Number(array)` is `Number(String(array))`: `[]` and `[null]` are
        // 0, `[[7]]` is 7, `[1, 2]` is NaN.
        Value::Array(_) => number_from_str(&js_string(value)),
        Value::Object(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{js_length, js_to_number};

    /// `Number(x)` as Node 20 gives it for each JSON value.
    #[test]
    fn number_of_a_value_is_javascripts() {
        let cases = [
            (json!(null), 0.0),
            (json!(true), 1.0),
            (json!(" 0x10 "), 16.0),
            (json!(""), 0.0),
            (json!([]), 0.0),
            (json!(["7"]), 7.0),
            (json!([null]), 0.0),
            (json!([[" 7 "]]), 7.0),
        ];
        for (value, expected) in cases {
            assert_eq!(js_to_number(&value), expected, "Number({value})");
        }
        for value in [json!("1,5"), json!([1, 2]), json!({}), json!([{}])] {
            assert!(js_to_number(&value).is_nan(), "Number({value})");
        }
        assert_eq!(js_length(Some(&json!({"length": "0b11"}))), Some(3.0));
        assert_eq!(js_length(Some(&json!("🙂"))), Some(2.0));
        assert_eq!(js_length(Some(&json!(5))), None);
    }
}
