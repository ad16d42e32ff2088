//! Identifier newtypes, so an opportunity id cannot be passed where a user
//! id belongs.

use serde::{Deserialize, Serialize};

macro_rules! id_newtype {
    ($(#[$meta:meta])* $name:ident, $canonical:path) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Wraps an id, in its canonical form.
            pub fn new(id: impl Into<String>) -> Self {
                $name($canonical(id.into()))
            }

            /// The id as a string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                $name::new(id)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                $name::new(id)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_newtype!(
    /// The opportunity a negotiation runs on; it is also the negotiation's id.
    ///
    /// Opportunity ids are UUIDs in the reference, and PostgreSQL's `uuid`
    /// type treats `0C6E…` and `0c6e…` as one value, so a hyphenated UUID is
    /// kept in lower case however it was written: every backend stores and
    /// compares one spelling, and an upper-case id finds the negotiation its
    /// lower-case twin opened. Any other text is kept as given.
    ///
    /// ```
    /// use index_negotiation_store::OpportunityId;
    /// let id = OpportunityId::new("0C6E9A52-3B1D-4F7E-A2C8-5D94E1B07F36");
    /// assert_eq!(id.as_str(), "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36");
    /// assert_eq!(id, OpportunityId::from("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36"));
    /// assert_eq!(OpportunityId::new("opp-1").as_str(), "opp-1");
    /// ```
    OpportunityId,
    canonical_opportunity_id
);
id_newtype!(
    /// A person (and so the seat their agent holds).
    UserId,
    std::convert::identity
);
id_newtype!(
    /// One of a person's intents.
    IntentId,
    std::convert::identity
);

/// Whether `id` is a UUID in the 8-4-4-4-12 hex form, in either case.
pub fn is_hyphenated_uuid(id: &str) -> bool {
    id.len() == 36
        && id.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

fn canonical_opportunity_id(mut id: String) -> String {
    if is_hyphenated_uuid(&id) {
        id.make_ascii_lowercase();
    }
    id
}
