//! Parsed JSON as the block's reader sees it, behind a trait, so that a host
//! with its own JSON reader feeds the very same rules: a browser hands over
//! what its `JSON.parse` made, which has the reference's semantics (numbers
//! as doubles, the last of repeated keys, lone surrogates) at no cost in
//! code size.

use std::borrow::Cow;

use crate::error::JsonType;

/// One parsed JSON value, read the way the block's schema reads it.
///
/// Implemented for `&serde_json::Value`; implement it for another parsed
/// form to read blocks from it with [`QuestionBlock::from_json`](crate::QuestionBlock::from_json)
/// and [`explain_question_message_with`](crate::explain_question_message_with).
///
/// ```
/// use index_question_block::{JsonType, JsonView};
/// let value = serde_json::json!({"version": 1, "questions": []});
/// let view = &value;
/// assert_eq!(view.json_type(), JsonType::Object);
/// assert!(view.member("version").is_some_and(|v| v.is_number_one()));
/// assert_eq!(view.keys(), ["questions", "version"]);
/// ```
pub trait JsonView: Sized {
    /// The value's JSON type.
    fn json_type(&self) -> JsonType;
    /// The value, when it is a string.
    fn as_text(&self) -> Option<Cow<'_, str>>;
    /// Whether the value is the number 1 as JavaScript compares numbers:
    /// any number whose double is exactly 1 (`1`, `1.0`, `1e0`). The only
    /// number the block reads, so a reader needs no float parsing.
    fn is_number_one(&self) -> bool;
    /// The items, when the value is an array.
    fn items(&self) -> Option<Vec<Self>>;
    /// The object's own member `key`, when the value is an object that has
    /// one. Never an inherited property.
    fn member(&self, key: &str) -> Option<Self>;
    /// The object's own keys in the order it holds them; empty for any
    /// other value.
    fn keys(&self) -> Vec<String>;
    /// Whether every own key of the object is one of `known` (true for
    /// any other value). The walk asks this of every object, and collects
    /// [`keys`](Self::keys) only when the answer is no; a reader that can
    /// answer without copying its keys overrides it.
    ///
    /// ```
    /// use index_question_block::JsonView;
    /// let value = serde_json::json!({"version": 1});
    /// assert!((&value).keys_are_among(&["version", "questions"]));
    /// assert!(!(&value).keys_are_among(&["questions"]));
    /// ```
    fn keys_are_among(&self, known: &[&str]) -> bool {
        self.keys().iter().all(|key| known.contains(&key.as_str()))
    }
}

impl JsonView for &serde_json::Value {
    fn json_type(&self) -> JsonType {
        JsonType::of(self)
    }

    fn as_text(&self) -> Option<Cow<'_, str>> {
        self.as_str().map(Cow::Borrowed)
    }

    fn is_number_one(&self) -> bool {
        self.as_f64() == Some(1.0)
    }

    fn items(&self) -> Option<Vec<Self>> {
        self.as_array().map(|items| items.iter().collect())
    }

    fn member(&self, key: &str) -> Option<Self> {
        self.as_object().and_then(|object| object.get(key))
    }

    fn keys(&self) -> Vec<String> {
        self.as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default()
    }
}
