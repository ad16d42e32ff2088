//! Numbers on the wire as JavaScript writes them, and literal tags as types.

use serde::Serializer;

use crate::js::is_safe_integer;

/// Writes a double as `JSON.stringify` would for the values this contract
/// carries: whole numbers within the safe range without a fraction (`3`,
/// not `3.0`), negative zero as `0`, anything else as the shortest double.
pub(crate) fn serialize_js_number<S: Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if is_safe_integer(n) {
        // Exact: |n| <= 2^53 - 1 fits an i64, and -0.0 becomes 0.
        serializer.serialize_i64(n as i64)
    } else {
        serializer.serialize_f64(n)
    }
}

pub(crate) fn serialize_optional_js_number<S: Serializer>(
    n: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => serialize_js_number(*n, serializer),
        None => serializer.serialize_none(),
    }
}

/// Declares unit types that stand for one literal string on the wire.
macro_rules! literal_tags {
    ($($(#[$meta:meta])* $name:ident = $value:literal;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The literal.
            pub const VALUE: &'static str = $value;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }
    )*};
}
pub(crate) use literal_tags;
