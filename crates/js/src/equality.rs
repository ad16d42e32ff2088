//! Equality as JavaScript's collections decide it.

use serde_json::Value;

/// Whether `Set.has` finds `b` in a set holding `a` (SameValueZero): two
/// strings, booleans or `null`s by value; two numbers by their value as
/// doubles, so `1` and `1.0` are one number, as are `0` and `-0`; and two
/// arrays or objects never, because JavaScript compares them by identity
/// and two values read from JSON are never the same object.
///
/// ```
/// use serde_json::json;
/// assert!(index_js::same_value_zero(&json!(1), &json!(1.0)));
/// assert!(index_js::same_value_zero(&json!("a"), &json!("a")));
/// assert!(!index_js::same_value_zero(&json!({"a": 1}), &json!({"a": 1})));
/// assert!(!index_js::same_value_zero(&json!(1), &json!("1")));
/// ```
pub fn same_value_zero(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        // serde_json numbers are finite, so no NaN to consider.
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_compare_as_doubles_and_containers_never_match() {
        assert!(same_value_zero(&json!(0), &json!(-0.0)));
        assert!(same_value_zero(
            &json!(9007199254740993_u64),
            &json!(9007199254740992_u64)
        ));
        assert!(same_value_zero(&json!(null), &json!(null)));
        assert!(!same_value_zero(&json!(true), &json!(1)));
        assert!(!same_value_zero(&json!([1]), &json!([1])));
        assert!(!same_value_zero(&json!(null), &json!(false)));
    }
}
