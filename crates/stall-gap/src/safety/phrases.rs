//! Lists of folded phrases, indexed so that a rule finds every phrase
//! that starts at a word with one lookup instead of comparing each.
//!
//! The gate's lexicons hold hundreds of phrases in ten languages; read
//! against every word of every field, comparing one by one would cost
//! more than all the other rules together.

use std::collections::BTreeMap;

use super::word_map::WordMap;

use super::text::{Token, folded_words};

/// How a phrase's words are compared with a field's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Matching {
    /// Each word equal.
    Words,
    /// Each word a prefix (`ignor` for `ignoriere`, `ignorez`).
    Prefixes,
}

/// Folded phrases, each with a value, by their first word (or, for
/// prefixes, by its first character).
#[derive(Debug)]
pub(super) struct PhraseIndex<T = ()> {
    matching: Matching,
    by_key: WordMap<Vec<(Vec<String>, T)>>,
}

impl<T> PhraseIndex<T> {
    /// The index of `phrases`, each folded as fields are.
    pub(super) fn new<'a>(
        matching: Matching,
        phrases: impl IntoIterator<Item = (&'a str, T)>,
    ) -> Self {
        let mut by_key: BTreeMap<String, Vec<(Vec<String>, T)>> = BTreeMap::new();
        for (phrase, value) in phrases {
            let words = folded_words(phrase);
            if let Some(key) = words.first().map(|first| key(matching, first).to_owned()) {
                by_key.entry(key).or_default().push((words, value));
            }
        }
        PhraseIndex {
            matching,
            by_key: by_key.into_iter().collect(),
        }
    }

    /// Every phrase that the tokens from `start` on spell, with its value
    /// and where it ends.
    pub(super) fn at<'s>(
        &'s self,
        tokens: &'s [Token],
        start: usize,
    ) -> impl Iterator<Item = (&'s T, usize)> + 's {
        let candidates = tokens
            .get(start)
            .and_then(|token| self.by_key.get(key(self.matching, &token.text)))
            .into_iter()
            .flatten();
        candidates.filter_map(move |(words, value)| {
            let window = tokens.get(start..start + words.len())?;
            let spelled = window
                .iter()
                .zip(words)
                .all(|(token, word)| match self.matching {
                    Matching::Words => token.text == *word,
                    Matching::Prefixes => token.text.starts_with(word.as_str()),
                });
            spelled.then_some((value, start + words.len()))
        })
    }

    /// Where the first phrase spelled from `start` ends, if one is.
    pub(super) fn end_at(&self, tokens: &[Token], start: usize) -> Option<usize> {
        self.at(tokens, start).next().map(|(_, end)| end)
    }

    /// Whether any phrase is spelled anywhere in `tokens`.
    pub(super) fn found_in(&self, tokens: &[Token]) -> bool {
        (0..tokens.len()).any(|start| self.end_at(tokens, start).is_some())
    }
}

impl PhraseIndex {
    /// The index of `phrases`, without values.
    pub(super) fn of<'a>(matching: Matching, phrases: impl IntoIterator<Item = &'a str>) -> Self {
        PhraseIndex::new(matching, phrases.into_iter().map(|phrase| (phrase, ())))
    }
}

/// The key a word is filed under: itself, or its first character.
fn key(matching: Matching, word: &str) -> &str {
    match matching {
        Matching::Words => word,
        Matching::Prefixes => {
            let first = word.chars().next().map_or(0, char::len_utf8);
            word.get(..first).unwrap_or_default()
        }
    }
}

/// Each phrase as written and as it opens a sentence: the skeleton of a
/// capital is not always the skeleton of its small letter (Cyrillic `Н`
/// folds to `h`, `н` does not), so both forms are filed.
pub(super) fn with_capitals<'a>(phrases: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    phrases
        .into_iter()
        .flat_map(|phrase| {
            let mut chars = phrase.chars();
            let capitalised: String = chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect())
                .unwrap_or_default();
            [phrase.to_owned(), capitalised]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safety::text::Text;

    #[test]
    fn phrases_are_found_by_their_first_word() {
        let index = PhraseIndex::of(Matching::Words, ["new rules", "you are now"]);
        let text = Text::new("Well, you are now free.");
        assert_eq!(index.end_at(&text.tokens, 1), Some(4));
        assert!(index.found_in(&text.tokens));
        assert!(!index.found_in(&Text::new("Are you now free?").tokens));
        let prefixes = PhraseIndex::of(Matching::Prefixes, ["ignor", "no sig"]);
        assert!(prefixes.found_in(&Text::new("Ignoriere das").tokens));
        assert!(prefixes.found_in(&Text::new("no sigas").tokens));
        assert!(!prefixes.found_in(&Text::new("sigas no").tokens));
    }
}
