//! Content digests: RFC 8785 canonical JSON hashed with SHA-256, as 0.46
//! binds a request to its content and a response command to its binding
//! and response.
//!
//! The canonical form is JavaScript's: keys sorted by UTF-16 code units
//! (which orders keys outside the BMP before those in the upper BMP,
//! unlike a byte sort), numbers written as `JSON.stringify` writes them
//! (`1e+21`, `0.1`), strings escaped as `JSON.stringify` escapes them.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use index_js::{number_to_string, push_json_string};

/// `sha256:` and 64 lower-case hex digits: the only form the contract
/// accepts, so two digests of the same content are equal as strings.
///
/// ```
/// use index_interaction::Sha256Digest;
/// let digest = Sha256Digest::of_json(&serde_json::json!({"b": 1, "a": [0.1, 1e21]}));
/// assert_eq!(digest, Sha256Digest::of_canonical_json(r#"{"a":[0.1,1e+21],"b":1}"#));
/// assert!(Sha256Digest::parse(digest.as_str()).is_some());
/// assert!(Sha256Digest::parse("sha256:ABC").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Digest(String);

const PREFIX: &str = "sha256:";

impl Sha256Digest {
    /// Reads `s` if it is a digest in the contract's form.
    pub fn parse(s: &str) -> Option<Self> {
        let hex = s.strip_prefix(PREFIX)?;
        let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        (hex.len() == 64 && hex.bytes().all(lower_hex)).then(|| Sha256Digest(s.to_owned()))
    }

    /// Keeps text a walk has already reported as malformed, so that a
    /// value holding it can still be checked across members before the
    /// walk fails.
    pub(crate) fn reported(s: &str) -> Self {
        Sha256Digest(s.to_owned())
    }

    /// The digest of `value`'s canonical JSON.
    pub fn of_json(value: &Value) -> Self {
        Self::of_canonical_json(&canonical_json(value))
    }

    /// The digest of text that is already canonical JSON (its UTF-8 bytes).
    pub fn of_canonical_json(canonical: &str) -> Self {
        let hash = Sha256::digest(canonical.as_bytes());
        let mut text = String::with_capacity(PREFIX.len() + 64);
        text.push_str(PREFIX);
        for byte in hash {
            for nibble in [byte >> 4, byte & 0x0f] {
                text.push(char::from(if nibble < 10 {
                    b'0' + nibble
                } else {
                    b'a' + nibble - 10
                }));
            }
        }
        Sha256Digest(text)
    }

    /// The digest as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Sha256Digest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// `value` as RFC 8785 canonical JSON, written the way JavaScript's
/// reference writes it.
///
/// ```
/// use index_interaction::canonical_json;
/// let value = serde_json::json!({"\u{ff61}": 1, "\u{1f600}": 2, "b": [3.0, -0.0, 1e-7]});
/// assert_eq!(canonical_json(&value), "{\"b\":[3,0,1e-7],\"\u{1f600}\":2,\"\u{ff61}\":1}");
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, value);
    out
}

fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_to_string(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, (key, entry)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, key);
                out.push(':');
                write_canonical(out, entry);
            }
            out.push('}');
        }
    }
}
