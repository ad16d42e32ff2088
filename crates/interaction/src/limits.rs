//! The bounds 0.46 puts on everything it hashes, copies or forwards, so
//! that a hostile request costs a bounded amount of work.

use serde_json::Value;

use index_js::{trim, utf16_len};

/// The longest string, in UTF-16 code units.
pub const CONTRACT_MAX_STRING_LENGTH: usize = 16_384;
/// The longest identifier or field name, in UTF-16 code units.
pub const CONTRACT_MAX_IDENTIFIER_LENGTH: usize = 512;
/// The most items an array holds.
pub const CONTRACT_MAX_ARRAY_LENGTH: usize = 1_024;
/// The most entries an object (answer data, a tool's input) holds.
pub const CONTRACT_MAX_MAP_ENTRIES: usize = 256;
/// The deepest a tool's input nests.
pub const CONTRACT_MAX_JSON_DEPTH: usize = 16;
/// The most steps the reference's bounds walk takes over a tool's input:
/// one per scalar, two per array or object (it enters and leaves each).
pub const CONTRACT_MAX_JSON_NODES: usize = 8_192;

/// The names JavaScript objects reserve, which may not name a field or a
/// data key.
const RESERVED_NAMES: [&str; 3] = ["__proto__", "constructor", "prototype"];

/// Whether `name` is reserved.
pub(crate) fn is_reserved_name(name: &str) -> bool {
    RESERVED_NAMES.contains(&name)
}

/// Whether `s` is a 0.46 identifier: 1 to 512 UTF-16 units, no outer
/// whitespace.
pub(crate) fn is_identifier(s: &str) -> bool {
    (1..=CONTRACT_MAX_IDENTIFIER_LENGTH).contains(&utf16_len(s)) && trim(s) == s
}

/// Whether `name` is a valid 0.46 field name: an identifier that is not
/// reserved.
pub(crate) fn is_field_name(name: &str) -> bool {
    is_identifier(name) && !is_reserved_name(name)
}

/// Whether `value` is within every bound: depth, values, string and key
/// lengths, array and object sizes. Iterative, so an attacker-sized value
/// cannot exhaust the stack; it stops at the first bound broken.
///
/// ```
/// use index_interaction::is_bounded_json;
/// assert!(is_bounded_json(&serde_json::json!({"path": "/tmp", "flags": [1, 2]})));
/// let deep = (0..17).fold(serde_json::json!(1), |inner, _| serde_json::json!([inner]));
/// assert!(!is_bounded_json(&deep));
/// ```
pub fn is_bounded_json(value: &Value) -> bool {
    let mut pending = vec![(value, 0_usize)];
    let mut nodes = 0_usize;
    while let Some((current, depth)) = pending.pop() {
        nodes += 1;
        if nodes > CONTRACT_MAX_JSON_NODES {
            return false;
        }
        match current {
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
            Value::String(s) => {
                if utf16_len(s) > CONTRACT_MAX_STRING_LENGTH {
                    return false;
                }
            }
            Value::Array(items) => {
                nodes += 1;
                if nodes > CONTRACT_MAX_JSON_NODES
                    || depth >= CONTRACT_MAX_JSON_DEPTH
                    || items.len() > CONTRACT_MAX_ARRAY_LENGTH
                {
                    return false;
                }
                pending.extend(items.iter().map(|item| (item, depth + 1)));
            }
            Value::Object(map) => {
                nodes += 1;
                if nodes > CONTRACT_MAX_JSON_NODES
                    || depth >= CONTRACT_MAX_JSON_DEPTH
                    || map.len() > CONTRACT_MAX_MAP_ENTRIES
                {
                    return false;
                }
                for (key, entry) in map {
                    if utf16_len(key) > CONTRACT_MAX_IDENTIFIER_LENGTH {
                        return false;
                    }
                    pending.push((entry, depth + 1));
                }
            }
        }
    }
    true
}
