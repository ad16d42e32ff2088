//! Echoes of private text: quoted whole, quoted in part with words around
//! it, or closely paraphrased.
//!
//! Private reasoning (why the pair was matched, what the other seat's agent
//! thought) must not reach the person through the question. Containment
//! alone misses a fragment with a word changed around it, so the gate also
//! compares word n-grams, after stemming, and the share of the field's
//! content words that the private text holds.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use super::MIN_ECHO_LENGTH;
use super::text::{Text, fold, stem};

/// A run of this many words shared with a private text is an echo, when
/// at least [`MIN_CONTENT_IN_SHARED_RUN`] of them carry content.
const SHARED_RUN: usize = 4;
const MIN_CONTENT_IN_SHARED_RUN: usize = 2;

/// This many content words in a row (function words skipped) shared with
/// a private text are an echo.
const SHARED_CONTENT_RUN: usize = 3;

/// A paraphrase: a field with at least this many distinct content words...
const PARAPHRASE_MIN_WORDS: usize = 6;
/// ...of which at least this share, in tenths, the private text holds.
const PARAPHRASE_SHARE_TENTHS: usize = 7;

/// English function words: shared, they say nothing about an echo.
const FUNCTION_WORDS: &str = "a about above after again against all am an and any are as at be \
    because been before being below between both but by can could did do does doing down during \
    each few for from further had has have having he her here hers herself him himself his how i \
    if in into is it its itself just me more most my myself no nor not now of off on once only or \
    other our ours ourselves out over own same she should so some such than that the their theirs \
    them themselves then there these they this those through to too under until up very was we \
    were what when where which while who whom why will with would you your yours yourself \
    yourselves s t d ll m re ve";

static FUNCTION_STEMS: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    FUNCTION_WORDS
        .split_whitespace()
        .map(|word| stem(&fold(word)))
        .collect()
});

/// A private text, prepared once for every field it is compared with.
#[derive(Debug)]
pub(super) struct Source {
    compact: String,
    runs: BTreeSet<Vec<String>>,
    content_runs: BTreeSet<Vec<String>>,
    content: BTreeSet<String>,
}

/// The stems of `text`, and which of them carry content.
fn stems_and_content(text: &Text) -> (&[String], Vec<String>) {
    let stems = text.stems();
    let content = stems
        .iter()
        .filter(|stem| !FUNCTION_STEMS.contains(*stem))
        .cloned()
        .collect();
    (stems, content)
}

impl Source {
    pub(super) fn new(text: &str) -> Self {
        let text = Text::new(text);
        let (stems, content) = stems_and_content(&text);
        Source {
            compact: text.squashed.clone(),
            runs: stems
                .windows(SHARED_RUN)
                .filter(|run| content_count(run) >= MIN_CONTENT_IN_SHARED_RUN)
                .map(<[String]>::to_vec)
                .collect(),
            content_runs: content
                .windows(SHARED_CONTENT_RUN)
                .map(<[String]>::to_vec)
                .collect(),
            content: content.into_iter().collect(),
        }
    }

    /// Whether `field` echoes this text.
    pub(super) fn is_echoed_by(&self, field: &Text) -> bool {
        let compact_field = &field.squashed;
        let holds = |outer: &str, inner: &str| {
            inner.chars().count() >= MIN_ECHO_LENGTH && outer.contains(inner)
        };
        if holds(compact_field, &self.compact) || holds(&self.compact, compact_field) {
            return true;
        }
        let (stems, content) = stems_and_content(field);
        let shared_run = stems.windows(SHARED_RUN).any(|run| self.runs.contains(run));
        let shared_content_run = content
            .windows(SHARED_CONTENT_RUN)
            .any(|run| self.content_runs.contains(run));
        let distinct: BTreeSet<&String> = content.iter().collect();
        let shared = distinct
            .iter()
            .filter(|word| self.content.contains(**word))
            .count();
        let paraphrase = distinct.len() >= PARAPHRASE_MIN_WORDS
            && shared * 10 >= distinct.len() * PARAPHRASE_SHARE_TENTHS;
        shared_run || shared_content_run || paraphrase
    }
}

fn content_count(run: &[String]) -> usize {
    run.iter()
        .filter(|stem| !FUNCTION_STEMS.contains(*stem))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REASONING: &str = "Their budget ceiling is 18k because the board froze capex until Q3; \
        they will accept a free pilot if pressed.";

    fn echoes(field: &str) -> bool {
        Source::new(REASONING).is_echoed_by(&Text::new(field))
    }

    #[test]
    fn quotes_fragments_and_paraphrases_echo() {
        assert!(echoes(REASONING));
        assert!(echoes(
            "Given that the board froze capex until Q3, what now?"
        ));
        assert!(echoes("They said: budget ceilings are 18k. Go lower?"));
        assert!(echoes(
            "Since the board has frozen capex until Q3, is their ceiling 18k?"
        ));
    }

    #[test]
    fn questions_on_the_same_topic_do_not_echo() {
        assert!(!echoes("What budget can the retry offer for the pilot?"));
        assert!(!echoes("Would a free trial work for you?"));
        assert!(!echoes("Should the pilot start before or after Q3?"));
    }
}
