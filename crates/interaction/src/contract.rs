//! How every contract type is read, in either version: the one schema
//! walk behind each type's `from_json_value` and `Deserialize`, and the
//! mark of the types 0.44 and 0.46 share. Each module applies
//! [`schema_type!`] and [`shared!`] to the types it defines.

use crate::zod::Version;

pub(crate) mod sealed {
    /// How a contract type is read, in either version.
    pub trait Read: Sized {
        /// Reads one from `value` under 0.46's rules when `current`, else
        /// under 0.44's.
        fn read(
            value: &serde_json::Value,
            current: bool,
        ) -> Result<Self, crate::InvalidInteraction>;
    }
}

/// A type both 0.44 and 0.46 define the same way, which
/// [`v0_44::from_json_value`](crate::v0_44::from_json_value) can read under
/// 0.44's rules.
pub trait Contract: sealed::Read {}

/// The schema version a read under 0.46's rules (`current`) or 0.44's uses.
pub(crate) fn version(current: bool) -> Version {
    if current {
        Version::V0_46
    } else {
        Version::V0_44
    }
}

/// Gives a type `from_json_value` and a validating `Deserialize`, both
/// through its schema walk, under `$current` (0.46) or 0.44's rules.
macro_rules! schema_type {
    ($($ty:ty => $parse:path, $current:expr),* $(,)?) => {$(
        impl $ty {
            /// Reads and validates one from JSON, reporting every problem
            /// in the reference's order.
            ///
            /// # Errors
            ///
            /// [`InvalidInteraction`](crate::InvalidInteraction) with each
            /// problem's path and kind.
            pub fn from_json_value(
                value: &serde_json::Value,
            ) -> Result<Self, $crate::zod::InvalidInteraction> {
                <Self as $crate::contract::sealed::Read>::read(value, $current)
            }
        }

        impl $crate::contract::sealed::Read for $ty {
            fn read(
                value: &serde_json::Value,
                current: bool,
            ) -> Result<Self, $crate::zod::InvalidInteraction> {
                let mut walk = $crate::zod::Walk::new($crate::contract::version(current));
                let parsed = $parse(&mut walk, &$crate::zod::At::Root, Some(value));
                walk.finish(parsed)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
                Self::from_json_value(&value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}
pub(crate) use schema_type;

/// Marks the types both versions share.
macro_rules! shared {
    ($($ty:ty),* $(,)?) => {$( impl $crate::contract::Contract for $ty {} )*};
}
pub(crate) use shared;
