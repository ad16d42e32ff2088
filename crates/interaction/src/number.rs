//! Numbers on the wire as JavaScript writes them, literal tags as types, and
//! enums whose values are a closed set of strings read through the walk.

use serde::Serializer;

/// Writes a double as `JSON.stringify` would for the values this contract
/// carries: whole numbers without a fraction (`3` and `9007199254740992`,
/// not `3.0`; JavaScript writes whole numbers below 10^21 in full),
/// negative zero as `0`, anything else as the shortest double.
pub(crate) fn serialize_js_number<S: Serializer>(n: f64, serializer: S) -> Result<S::Ok, S::Error> {
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

/// Declares an enum whose values are a closed set of strings on the wire,
/// with `index_js::wire_enum!`, read through the schema walk every type
/// uses, so a wrong name is refused with the same problem as inside a
/// request.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+
        }
    ) => {
        index_js::wire_enum! {
            @without_deserialize crate index_interaction;
            $(#[$meta])*
            pub enum $name { $($(#[$vmeta])* $variant = $wire,)+ }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = serde_json::Value::deserialize(deserializer)?;
                let mut walk = $crate::zod::Walk::default();
                let parsed = walk.one_of::<Self>(&$crate::zod::At::Root, Some(&value));
                walk.finish(parsed).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use wire_enum;
