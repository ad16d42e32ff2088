//! The counterparty's name, whole or in part, however it is disguised, and
//! without blocking the ordinary words a name may also be.
//!
//! `Helios Grid` is blocked as a whole and as `Helios`, but `grid` alone is
//! an ordinary word: a question about a grid connection must pass. A part
//! that is both a word and a name (`Grace`, `Mark`) counts where it is
//! written capitalised, as a name is.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use super::MIN_FORBIDDEN_IDENTIFIER_LENGTH;
use super::text::{Text, contains_phrase, fold, folded_words};

/// How a name part is read in a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commonness {
    /// An ordinary word only: never a name on its own.
    Word,
    /// A word that is also a name: a name where capitalised.
    WordAndName,
}

/// The common-word list (`word`, or `word*` for one that is also a name),
/// folded as the parts it is compared with are.
static COMMON_WORDS: LazyLock<BTreeMap<String, Commonness>> = LazyLock::new(|| {
    include_str!("common_words.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match line.strip_suffix('*') {
            Some(word) => (fold(word), Commonness::WordAndName),
            None => (fold(line), Commonness::Word),
        })
        .collect()
});

/// A forbidden name, folded and split into the parts that are checked.
#[derive(Debug)]
pub(super) struct Name {
    whole: Vec<String>,
    squashed: String,
    parts: Vec<(String, Option<Commonness>)>,
}

impl Name {
    /// `None` for a name too short to check.
    pub(super) fn new(name: &str) -> Option<Self> {
        let whole = folded_words(name);
        let squashed: String = whole.concat();
        if squashed.chars().count() < MIN_FORBIDDEN_IDENTIFIER_LENGTH {
            return None;
        }
        let parts = whole
            .iter()
            .filter(|part| part.chars().count() >= MIN_FORBIDDEN_IDENTIFIER_LENGTH)
            .map(|part| (part.clone(), COMMON_WORDS.get(part.as_str()).copied()))
            .collect();
        Some(Name {
            whole,
            squashed,
            parts,
        })
    }

    /// Whether `text` names this party: the whole name as words or run
    /// together, or one part as a whole word as its commonness allows.
    pub(super) fn is_in(&self, text: &Text) -> bool {
        contains_phrase(&text.tokens, &self.whole)
            || text.tokens.iter().any(|token| {
                token.text == self.squashed
                    || self.parts.iter().any(|(part, common)| {
                        is_part_or_plural(&token.text, part)
                            && match common {
                                None => true,
                                Some(Commonness::WordAndName) => token.capitalised,
                                Some(Commonness::Word) => false,
                            }
                    })
            })
    }
}

/// `lindqvist`, or `lindqvists` as in `the Lindqvists' offer`.
fn is_part_or_plural(word: &str, part: &str) -> bool {
    word.strip_prefix(part)
        .is_some_and(|rest| rest.is_empty() || rest == "s")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(name: &str, text: &str) -> bool {
        Name::new(name).is_some_and(|name| name.is_in(&Text::new(text)))
    }

    #[test]
    fn parts_and_disguises() {
        assert!(names("Helios Grid", "Would Helios accept?"));
        assert!(names("Helios Grid", "Is Helios's offer fine?"));
        assert!(names("Helios Grid", "Would HeliosGrid accept?"));
        assert!(names(
            "Helios Grid",
            "Would the grid people at Ｈｅｌｉｏｓ accept?"
        ));
        assert!(names("Grace Lindqvist", "Does Lindqvist agree?"));
        assert!(names("Grace Lindqvist", "Does Grace agree?"));
        assert!(names("Grace Lindqvist", "Does Grace Lindqvist agree?"));
    }

    #[test]
    fn ordinary_words_that_are_also_names() {
        assert!(!names("Helios Grid", "Which grid connection date works?"));
        assert!(!names("Grace Lindqvist", "Is a 30-day grace period fine?"));
        assert!(!names("Helios Grid", "Is a heliosgridless setup fine?"));
        assert!(names("Summer Grid", "Summer Grid, or not?"));
        assert!(Name::new("Li").is_none());
    }
}
