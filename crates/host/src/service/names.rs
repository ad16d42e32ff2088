//! The names a caller gives that end up in a log line or a table: user
//! ids, intent ids, key names.
//!
//! A newline in a user id would print as a second, forged log line; a
//! right-to-left override or a zero-width character would make one name
//! look like another in `index keys list`. The negotiation types accept
//! any text that is not blank, as the reference does, so the host and the
//! `index` tool refuse these characters where a name comes in: opening a
//! negotiation, making a key or a login link.

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::service::error::HostError;

/// A name holding a character no name may hold: which field, and the
/// first such character (the name itself is not repeated, since it is
/// what could not be shown).
///
/// ```
/// let refused = index_host::names::check_name("initiator.userId", "mallory\nuser=root");
/// let err = refused.unwrap_err();
/// assert_eq!(err.found, '\n');
/// assert!(err.to_string().starts_with("initiator.userId cannot hold"));
/// assert!(index_host::names::check_name("user id", "José 山田").is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{field} cannot hold control or format characters (line breaks, direction overrides, \
     zero-width characters), and it holds U+{code:04X}",
    code = u32::from(*found)
)]
#[non_exhaustive]
pub struct UnsafeName {
    /// The field, as the caller named it (`initiator.userId`, `user id`).
    pub field: String,
    /// The first character it may not hold.
    pub found: char,
}

impl From<UnsafeName> for HostError {
    fn from(unsafe_name: UnsafeName) -> Self {
        HostError::BadRequest(unsafe_name.to_string())
    }
}

/// Whether `c` may not be part of a name: a control character (Unicode
/// category Cc, line feeds and escapes among them), a format character
/// (Cf: direction overrides and isolates, zero-width spaces and joiners,
/// the byte-order mark, tags), or the line and paragraph separators
/// U+2028 and U+2029, which some readers take as a line's end.
pub fn is_forbidden_in_name(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// `text`, the value of `field`, as a name: refused when it holds a
/// character [`is_forbidden_in_name`] names.
///
/// # Errors
///
/// [`UnsafeName`], naming `field` and the first such character.
pub fn check_name(field: &str, text: &str) -> Result<(), UnsafeName> {
    match text.chars().find(|&c| is_forbidden_in_name(c)) {
        None => Ok(()),
        Some(found) => Err(UnsafeName {
            field: field.to_owned(),
            found,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_escapes_overrides_and_invisible_characters_are_refused() {
        for hostile in [
            "mallory\nuser=root",
            "mallory\r",
            "a\u{1b}[31mred",
            "nul\u{0}",
            "del\u{7f}",
            "next\u{85}line",
            "abc\u{202e}fed",
            "iso\u{2066}late",
            "zero\u{200b}width",
            "join\u{200d}er",
            "\u{feff}bom",
            "soft\u{ad}hyphen",
            "tag\u{e0041}",
            "line\u{2028}sep",
            "para\u{2029}sep",
        ] {
            let refused = check_name("user id", hostile);
            assert!(refused.is_err(), "{hostile:?}");
        }
        let refused = check_name("responder.intentId", "x\u{202e}y").unwrap_err();
        assert_eq!(refused.found, '\u{202e}');
        assert!(
            refused.to_string().contains("U+202E")
                && refused.to_string().starts_with("responder.intentId"),
            "{refused}"
        );
    }

    #[test]
    fn names_in_any_script_with_spaces_and_punctuation_pass() {
        for name in [
            "dana",
            " dana ",
            "José García",
            "山田太郎",
            "محمد",
            "dana+agent@example.com",
            "team: hiring (Q3)",
            "🦀",
        ] {
            assert_eq!(check_name("user id", name), Ok(()), "{name:?}");
        }
        // The joiner inside an emoji sequence is a format character too:
        // refused with the rest, since it is as invisible in a table.
        assert!(check_name("user id", "👩\u{200d}💻").is_err());
    }
}
