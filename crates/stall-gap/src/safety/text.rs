//! The views of a field that every rule reads, so that no rule can be
//! passed by spelling its words differently.
//!
//! A reader sees `Ｈеlios`, `He\u{200b}lios` and `Helios` as one name, and
//! `ignоre` with a Cyrillic `о` as `ignore`. The gate must too: every text
//! is normalised once (NFKC, invisible characters removed), then folded to
//! its confusables skeleton (UTS #39), stripped of combining marks and
//! lower-cased. Patterns are folded the same way, so a rule never compares
//! a folded text with an unfolded word.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_security::skeleton;

/// Whether `c` is a Default_Ignorable_Code_Point (Unicode's
/// DerivedCoreProperties): invisible when rendered, so it can hide inside a
/// word or between the groups of an identifier.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// NFKC with invisible characters removed: full-width and compatibility
/// forms become their plain letters, digits and punctuation (`＠` is `@`,
/// `１` is `1`), and nothing hides between two characters. Case and
/// look-alike letters are kept; identifiers and contact details are read
/// from this view, where digits are still digits.
pub(super) fn plain(text: &str) -> String {
    text.nfkc().filter(|c| !is_invisible(*c)).collect()
}

/// Folds one character of the plain view onto `out`: its confusables
/// skeleton, lower-cased, combining marks removed (Cyrillic `Н` is `h`, `0`
/// is `o`, `1` is `l`). An ASCII capital is made small first, so that `I`
/// folds as `i` does and not to the `l` its own skeleton is.
fn fold_char(c: char, out: &mut String) {
    match ASCII_FOLDS.get(c as usize) {
        Some(folded) => out.push_str(folded),
        None => fold_char_slowly(c, out),
    }
}

/// [`fold_char`] of every ASCII character, computed once: most of what the
/// gate reads is ASCII, and the skeleton is the costly part.
static ASCII_FOLDS: LazyLock<Vec<String>> = LazyLock::new(|| {
    (0u8..128)
        .map(|byte| {
            let mut folded = String::new();
            fold_char_slowly(char::from(byte), &mut folded);
            folded
        })
        .collect()
});

fn fold_char_slowly(c: char, out: &mut String) {
    let c = c.to_ascii_lowercase();
    let mut buffer = [0u8; 4];
    for folded in skeleton(c.encode_utf8(&mut buffer)) {
        if !is_combining_mark(folded) {
            out.extend(folded.to_lowercase());
        }
    }
}

/// `text` folded as every word-level rule reads it.
pub(super) fn fold(text: &str) -> String {
    let mut out = String::new();
    for c in plain(text).chars() {
        fold_char(c, &mut out);
    }
    out
}

/// One word of a field: a maximal run of letters and digits in the
/// skeleton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    /// The folded word.
    pub(super) text: String,
    /// Whether the word starts with a capital letter as written.
    pub(super) capitalised: bool,
}

/// A field in every view the rules read.
#[derive(Debug)]
pub(super) struct Text {
    /// NFKC, invisible characters removed.
    pub(super) plain: String,
    /// The folded text, punctuation and line breaks kept.
    pub(super) folded: String,
    /// The folded words, in order.
    pub(super) tokens: Vec<Token>,
    /// The folded words joined with nothing between them: a phrase split
    /// by spaces, dots or hyphens inside its words is still found here.
    pub(super) squashed: String,
    /// The words' stems, made when the echo rule first asks.
    stems: std::sync::OnceLock<Vec<String>>,
}

impl Text {
    pub(super) fn new(text: &str) -> Self {
        let plain = plain(text);
        let mut folded = String::with_capacity(plain.len());
        let mut tokens: Vec<Token> = Vec::new();
        let mut in_word = false;
        for c in plain.chars() {
            let start = folded.len();
            fold_char(c, &mut folded);
            for (offset, f) in folded[start..].char_indices() {
                if !f.is_alphanumeric() {
                    in_word = false;
                    continue;
                }
                if !in_word {
                    tokens.push(Token {
                        text: String::new(),
                        capitalised: c.is_uppercase() && offset == 0,
                    });
                    in_word = true;
                }
                if let Some(token) = tokens.last_mut() {
                    token.text.push(f);
                }
            }
        }
        let squashed = tokens.iter().map(|token| token.text.as_str()).collect();
        Text {
            plain,
            folded,
            tokens,
            squashed,
            stems: std::sync::OnceLock::new(),
        }
    }

    /// The folded words.
    pub(super) fn words(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|token| token.text.as_str())
    }

    /// The Snowball stem of each folded word, in order (computed once).
    pub(super) fn stems(&self) -> &[String] {
        self.stems.get_or_init(|| self.words().map(stem).collect())
    }
}

/// The folded words of `phrase`, for comparing with a [`Text`]'s tokens.
pub(super) fn folded_words(phrase: &str) -> Vec<String> {
    Text::new(phrase)
        .tokens
        .into_iter()
        .map(|token| token.text)
        .collect()
}

/// Whether `words` occur one after another among `tokens`.
pub(super) fn contains_phrase(tokens: &[Token], words: &[String]) -> bool {
    !words.is_empty()
        && tokens.windows(words.len()).any(|window| {
            window
                .iter()
                .zip(words)
                .all(|(token, word)| token.text == *word)
        })
}

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The English Snowball stem of a folded word: `programmes` and
/// `programme` meet, so an echo cannot hide behind an inflection.
pub(super) fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disguises_fold_to_the_plain_word() {
        for disguised in [
            "Helios",
            "ＨＥＬＩＯＳ",
            "He\u{200b}lios",
            "\u{041d}\u{0435}lios",
            "He1ios",
            "Hel\u{00ad}ios",
            "He\u{e0041}lios",
        ] {
            let text = Text::new(disguised);
            let words: Vec<&str> = text.words().collect();
            assert_eq!(words, [fold("helios").as_str()], "{disguised:?}");
        }
    }

    #[test]
    fn plain_keeps_digits_and_drops_invisibles() {
        assert_eq!(plain("１２\u{200d}３＠ｘ．ｃｏ"), "123@x.co");
        assert_eq!(fold("café"), fold("cafe"));
    }

    #[test]
    fn phrases_match_whole_words_in_order() {
        let text = Text::new("Would helios-grid agree?");
        assert!(contains_phrase(&text.tokens, &folded_words("Helios Grid")));
        assert!(!contains_phrase(&text.tokens, &folded_words("grid helios")));
        assert!(!contains_phrase(&text.tokens, &[]));
        assert_eq!(text.squashed, fold("wouldheliosgridagree"));
    }
}
