//! Numbers on the wire as JavaScript writes them, literal tags as types, and
//! enums whose values are a closed set of strings read through the walk.

use serde::Serializer;

pub(crate) fn serialize_optional_js_number<S: Serializer>(
    n: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => index_js::serialize_js_number(*n, serializer),
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
