//! The ids a negotiation is keyed by. Each is checked when it is made and
//! when it is read, so an id that exists is valid and every layer above
//! (stores, the host, the CLI) takes it as it is instead of checking again.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a string is not an id of the kind asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidId {
    /// A user or intent id that is empty or only (JavaScript) whitespace.
    #[error("the {0} cannot be blank")]
    Blank(IdKind),
    /// An opportunity id that is not a UUID in the 8-4-4-4-12 hex form.
    #[error("an opportunity id must be a UUID (8-4-4-4-12 hex digits)")]
    NotAUuid,
}

/// Which kind of id an [`InvalidId`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdKind {
    /// An [`OpportunityId`].
    Opportunity,
    /// A [`UserId`].
    User,
    /// An [`IntentId`].
    Intent,
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IdKind::Opportunity => "opportunity id",
            IdKind::User => "user id",
            IdKind::Intent => "intent id",
        })
    }
}

macro_rules! id_newtype {
    ($(#[$meta:meta])* $name:ident, $check:path, schema $schema:tt) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Checks `id` and keeps it in its canonical form.
            pub fn parse(id: impl Into<String>) -> Result<Self, InvalidId> {
                $check(id.into()).map($name)
            }

            /// The id as a string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(id: &str) -> Result<Self, InvalidId> {
                $name::parse(id)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = InvalidId;
            fn try_from(id: &str) -> Result<Self, InvalidId> {
                $name::parse(id)
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidId;
            fn try_from(id: String) -> Result<Self, InvalidId> {
                $name::parse(id)
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

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

id_newtype!(
    /// The opportunity a negotiation runs on; it is also the negotiation's id.
    ///
    /// Opportunity ids are UUIDs in the reference, and PostgreSQL's `uuid`
    /// type treats `0C6E…` and `0c6e…` as one value, so an id is kept in
    /// lower case however it was written: every backend stores and compares
    /// one spelling, and an upper-case id finds the negotiation its
    /// lower-case twin opened.
    ///
    /// ```
    /// use index_negotiation::{InvalidId, OpportunityId};
    /// let id = OpportunityId::parse("0C6E9A52-3B1D-4F7E-A2C8-5D94E1B07F36")?;
    /// assert_eq!(id.as_str(), "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36");
    /// assert_eq!(id, "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".parse::<OpportunityId>()?);
    /// assert_eq!(OpportunityId::parse("opp-1"), Err(InvalidId::NotAUuid));
    /// assert!(serde_json::from_str::<OpportunityId>("\"opp-1\"").is_err());
    /// # Ok::<(), InvalidId>(())
    /// ```
    OpportunityId,
    canonical_opportunity_id,
    // What `is_hyphenated_uuid` accepts, for clients that check first.
    schema {
        "type": "string",
        "description": "An opportunity id: a UUID, 8-4-4-4-12 hex digits.",
        "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    }
);
id_newtype!(
    /// A person, and so the seat their agent holds. Any text that is not
    /// blank, kept exactly as given (`" dana"` and `"dana"` are two people,
    /// as they are to the reference).
    ///
    /// ```
    /// use index_negotiation::{IdKind, InvalidId, UserId};
    /// assert_eq!(UserId::parse("dana")?, "dana");
    /// assert_eq!(UserId::parse(" \u{a0}\n"), Err(InvalidId::Blank(IdKind::User)));
    /// # Ok::<(), InvalidId>(())
    /// ```
    UserId,
    user_id,
    schema { "type": "string", "minLength": 1, "description": "A user id: any text that is not blank." }
);
id_newtype!(
    /// One of a person's intents. Any text that is not blank, kept exactly
    /// as given.
    ///
    /// ```
    /// use index_negotiation::IntentId;
    /// assert!(IntentId::parse("hire").is_ok());
    /// assert!(IntentId::parse("").is_err());
    /// ```
    IntentId,
    intent_id,
    schema { "type": "string", "minLength": 1, "description": "An intent id: any text that is not blank." }
);

pub use index_js::is_hyphenated_uuid;

fn canonical_opportunity_id(mut id: String) -> Result<String, InvalidId> {
    if !is_hyphenated_uuid(&id) {
        return Err(InvalidId::NotAUuid);
    }
    id.make_ascii_lowercase();
    Ok(id)
}

fn not_blank(id: String, kind: IdKind) -> Result<String, InvalidId> {
    if index_js::is_blank(&id) {
        Err(InvalidId::Blank(kind))
    } else {
        Ok(id)
    }
}

fn user_id(id: String) -> Result<String, InvalidId> {
    not_blank(id, IdKind::User)
}

fn intent_id(id: String) -> Result<String, InvalidId> {
    not_blank(id, IdKind::Intent)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_id_read_from_json_is_checked_like_one_made_in_code() {
        let read = |json: &str| serde_json::from_str::<UserId>(json).map_err(|e| e.to_string());
        assert_eq!(read("\"dana\"").unwrap(), "dana");
        assert!(
            read("\"\\t \"")
                .unwrap_err()
                .contains("the user id cannot be blank")
        );
        let id: OpportunityId =
            serde_json::from_str("\"0C6E9A52-3B1D-4F7E-A2C8-5D94E1B07F36\"").unwrap();
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36\""
        );
    }

    #[test]
    fn only_the_hyphenated_form_is_an_opportunity_id() {
        for bad in [
            "",
            "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f3",
            "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36 ",
            "{0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36}",
            "0c6e9a52_3b1d-4f7e-a2c8-5d94e1b07f36",
            "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07g36",
        ] {
            assert_eq!(
                OpportunityId::parse(bad),
                Err(InvalidId::NotAUuid),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn blank_is_judged_as_javascript_trims() {
        // U+FEFF and U+3000 are whitespace to JavaScript's trim; U+200B is not.
        assert!(IntentId::parse("\u{feff}\u{3000}").is_err());
        assert_eq!(IntentId::parse("\u{200b}").unwrap(), "\u{200b}");
        assert_eq!(
            InvalidId::Blank(IdKind::Intent).to_string(),
            "the intent id cannot be blank"
        );
    }
}
