//! Closed sets of strings on the wire, each name written once.
//!
//! The reference declares these as zod enums (`z.enum(["propose", …])`):
//! the names are the contract. [`wire_enum!`](crate::wire_enum) declares
//! the Rust enum with each name beside its variant, and everything that
//! needs the names (the list of every value, `as_str`, the lookup,
//! serialization, the refusal of an unknown name) reads them from there.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};

/// An enum whose values are a closed set of strings on the wire, as
/// declared by [`wire_enum!`](crate::wire_enum).
///
/// ```
/// use index_js::WireEnum;
///
/// index_js::wire_enum! {
///     crate index_js;
///     /// A traffic light.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Light {
///         /// Stop.
///         Red = "red",
///         /// Go.
///         Green = "green",
///     }
/// }
///
/// assert_eq!(Light::NAMES, ["red", "green"]);
/// assert_eq!(Light::from_wire("green"), Some(Light::Green));
/// assert_eq!(Light::Red.as_str(), "red");
/// assert_eq!(serde_json::to_string(&Light::Red).unwrap(), r#""red""#);
/// let refused = serde_json::from_str::<Light>(r#""amber""#).unwrap_err();
/// assert!(refused.to_string().starts_with("unknown variant `amber`, expected `red` or `green`"));
/// ```
pub trait WireEnum: Copy + 'static {
    /// Every name, in the contract's order.
    const NAMES: &'static [&'static str];

    /// The value named `name`, if any.
    fn from_wire(name: &str) -> Option<Self>;
}

/// Declares an enum whose values are a closed set of strings on the wire.
///
/// The first line names the crate the enum is exported from (at its root),
/// for the example written into the generated `from_name` docs. Each
/// variant carries its wire name; the macro writes the enum, `ALL`,
/// `as_str`, `from_name`, [`WireEnum`], `Serialize` and a `Deserialize`
/// that refuses an unknown name with the list of known ones. See
/// [`WireEnum`] for an example.
///
/// A crate that reads the enum through a reader of its own (to report the
/// reference's problem for a wrong name) starts the invocation with
/// `@without_deserialize` and implements `Deserialize` itself.
#[macro_export]
macro_rules! wire_enum {
    (
        crate $krate:ident;
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+
        }
    ) => {
        $crate::wire_enum! {
            @without_deserialize crate $krate;
            $(#[$meta])*
            $vis enum $name { $($(#[$vmeta])* $variant = $wire,)+ }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                $crate::deserialize_wire_name(deserializer)
            }
        }
    };
    (
        @without_deserialize crate $krate:ident;
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $wire:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the contract's order.
            pub const ALL: [Self; [$($wire),+].len()] = [$(Self::$variant),+];

            /// The value's name on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)+
                }
            }

            /// The value named `name`, if any: `as_str` read backwards.
            ///
            #[doc = concat!(
                "```\n",
                "use ", stringify!($krate), "::", stringify!($name), ";\n\n",
                "for value in ", stringify!($name), "::ALL {\n",
                "    assert_eq!(", stringify!($name), "::from_name(value.as_str()), Some(value));\n",
                "    let json = serde_json::to_string(&value).unwrap();\n",
                "    assert_eq!(json, format!(\"\\\"{}\\\"\", value.as_str()));\n",
                "    assert_eq!(serde_json::from_str::<", stringify!($name), ">(&json).unwrap(), value);\n",
                "}\n",
                "assert_eq!(", stringify!($name), "::from_name(\"\"), None);\n",
                "assert!(serde_json::from_str::<", stringify!($name), ">(\"\\\"\\\"\").is_err());\n",
                "```"
            )]
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|value| value.as_str() == name)
            }
        }

        impl $crate::__serde::Serialize for $name {
            fn serialize<S: $crate::__serde::Serializer>(
                &self,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl $crate::WireEnum for $name {
            const NAMES: &'static [&'static str] = &[$($wire),+];

            fn from_wire(name: &str) -> Option<Self> {
                Self::from_name(name)
            }
        }

        $crate::__wire_enum_schema!($name);
    };
}

/// The JSON Schema of a [`wire_enum!`](crate::wire_enum): a string, one of
/// its names. Written when this crate's `schemars` feature is on (cargo
/// turns it on for every crate in a build that asks for schemas), and
/// nothing otherwise, so a build without schemas carries no trace of them.
#[cfg(feature = "schemars")]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_schema {
    ($name:ident) => {
        impl $crate::__schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(concat!(module_path!(), "::", stringify!($name)))
            }

            fn json_schema(
                _: &mut $crate::__schemars::SchemaGenerator,
            ) -> $crate::__schemars::Schema {
                $crate::__schemars::json_schema!({
                    "type": "string",
                    "enum": <$name as $crate::WireEnum>::NAMES,
                })
            }
        }
    };
}

/// Without the `schemars` feature, a wire enum has no schema.
#[cfg(not(feature = "schemars"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_schema {
    ($name:ident) => {};
}

/// Reads a [`WireEnum`] from its name, refusing any other value with the
/// names it could have been. Called by the `Deserialize` that
/// [`wire_enum!`](crate::wire_enum) writes.
#[doc(hidden)]
pub fn deserialize_wire_name<'de, T: WireEnum, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    struct Name<T>(PhantomData<T>);

    impl<T: WireEnum> Visitor<'_> for Name<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("one of ")?;
            for (i, name) in T::NAMES.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "`{name}`")?;
            }
            Ok(())
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<T, E> {
            T::from_wire(name).ok_or_else(|| de::Error::unknown_variant(name, T::NAMES))
        }
    }

    deserializer.deserialize_str(Name(PhantomData))
}
