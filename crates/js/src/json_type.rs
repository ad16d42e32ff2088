//! The six JSON types, as problem reports name them.

use std::fmt;

/// The JSON type of a value, as a problem report names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` or `false`
    Boolean,
    /// Any JSON number.
    Number,
    /// A JSON string.
    String,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
}

impl JsonType {
    /// The type of `value`.
    ///
    /// ```
    /// use index_js::JsonType;
    /// assert_eq!(JsonType::of(&serde_json::json!([1])), JsonType::Array);
    /// assert_eq!(JsonType::of(&serde_json::json!(null)).to_string(), "null");
    /// assert_eq!(JsonType::String.phrase(), "a string");
    /// ```
    pub fn of(value: &serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => JsonType::Null,
            serde_json::Value::Bool(_) => JsonType::Boolean,
            serde_json::Value::Number(_) => JsonType::Number,
            serde_json::Value::String(_) => JsonType::String,
            serde_json::Value::Array(_) => JsonType::Array,
            serde_json::Value::Object(_) => JsonType::Object,
        }
    }

    /// How a problem report names the type (`a string`, `null`).
    pub fn phrase(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.phrase())
    }
}
