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
use super::phrases::{Matching, PhraseIndex};
use super::quantities::{Quantity, UNITS, quantities};
use super::text::{Text, fold, stem};
use super::word_map::{FNV_START, WordSet, fnv1a, fnv1a_from};

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
    yourselves s t d ll m re ve per via";

/// The function words of the other languages questions are asked in
/// (Spanish, French, German, Portuguese, Italian), which English stems
/// would otherwise count as content.
const OTHER_FUNCTION_WORDS: &str = "el la los las lo un una unos unas de del al en y o u que     con por para su sus tu tus mi mis es son se no le les des du et ou à au aux ce cet cette     ces dans pour par sur avec qui ne pas est sont vous nous il elle der die das den dem des     ein eine einen einem einer und oder zu mit von für auf im ist sind sie wir ich nicht o os     as um uma do da dos das no na nos nas em e ou com pelo pela seu sua il lo gli i le un uno     una di del della dei delle da dal in e o con per su che non è sono";

static FUNCTION_STEMS: LazyLock<WordSet> = LazyLock::new(|| {
    FUNCTION_WORDS
        .split_whitespace()
        .chain(OTHER_FUNCTION_WORDS.split_whitespace())
        .map(|word| stem(&fold(word)).into_owned())
        .collect()
});

/// Words that state one idea, compared as one: the first of each group
/// names it. A paraphrase swaps words for these (`halted capital
/// spending` for `froze capex`).
const SYNONYMS: [&[&str]; 14] = [
    &[
        "ceiling",
        "cap",
        "limit",
        "maximum",
        "max",
        "top",
        "upper limit",
    ],
    &["budget", "spend", "spending", "funds", "funding"],
    &[
        "capex",
        "capital spending",
        "capital expenditure",
        "capital expenditures",
        "capital budget",
        "investment budget",
    ],
    &[
        "freeze",
        "froze",
        "frozen",
        "freezes",
        "halt",
        "halted",
        "halts",
        "pause",
        "paused",
        "suspend",
        "suspended",
        "blocked",
    ],
    &["q1", "first quarter"],
    &["q2", "second quarter"],
    &["q3", "third quarter"],
    &["q4", "fourth quarter"],
    &["accept", "take", "agree to", "go for", "settle for"],
    &[
        "free",
        "no cost",
        "zero cost",
        "gratis",
        "complimentary",
        "at no charge",
        "without charge",
    ],
    &[
        "press",
        "pressed",
        "push",
        "pushed",
        "pushing",
        "pressure",
        "pressured",
    ],
    &["board", "directors", "board of directors"],
    &["discount", "reduction", "rebate", "markdown"],
    &["deadline", "cutoff", "cut off"],
];

/// What an idea's name starts with, so that it never meets a stem.
const IDEA_MARK: char = '~';

/// Words that join two facts in one sentence: a private text's clauses
/// are compared one by one.
const CONNECTIVES: &str = "because but and so since while although though unless if whereas";

/// A field that holds this many of one private clause's ideas, at least
/// [`FACT_SHARE_TENTHS`] of them, one of them a position (a
/// [`SYNONYMS`] idea: a ceiling, a freeze, a discount), restates that
/// clause's fact, whatever its sentence. Sharing only topic words (`share
/// warehouse data`) is talking about the same thing, not restating it.
const FACT_WORDS: usize = 3;
const FACT_SHARE_TENTHS: usize = 6;

/// Each synonym phrase with the idea it names.
static SYNONYM_PHRASES: LazyLock<PhraseIndex<String>> = LazyLock::new(|| {
    PhraseIndex::new(
        Matching::Words,
        SYNONYMS.iter().flat_map(|group| {
            let idea = group
                .first()
                .map(|first| format!("{IDEA_MARK}{}", fold(first)))
                .unwrap_or_default();
            group.iter().map(move |phrase| (*phrase, idea.clone()))
        }),
    )
});

static CONNECTIVE_WORDS: LazyLock<WordSet> =
    LazyLock::new(|| CONNECTIVES.split_whitespace().map(fold).collect());

static UNIT_WORDS: LazyLock<WordSet> =
    LazyLock::new(|| UNITS.iter().map(|(word, _)| fold(word)).collect());

/// One word of a text as the echo rule compares it: its idea, or its
/// stem.
#[derive(Debug)]
struct Word<'t> {
    stem: &'t str,
    /// Whether it carries content: not a function word, a bare number or
    /// a unit of time (numbers and units are compared as quantities).
    content: bool,
    /// Whether a new clause starts at it.
    clause_start: bool,
}

/// The words of `text`, synonyms made one idea.
fn words(text: &Text) -> Vec<Word<'_>> {
    let tokens = &text.tokens;
    let stems = text.stems();
    let mut words = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while let Some(token) = tokens.get(i) {
        let connective = CONNECTIVE_WORDS.contains(&token.text);
        let clause_start = i == 0 || ",;.:!?".contains(token.before) || connective;
        // The longest phrase wins where several start at one word.
        let synonym = SYNONYM_PHRASES.at(tokens, i).max_by_key(|(_, end)| *end);
        let (stem, len) = match synonym {
            Some((idea, end)) => (idea.as_str(), end - i),
            None => (stems.get(i).map_or("", |stem| stem.as_ref()), 1),
        };
        let content = !connective
            && !FUNCTION_STEMS.contains(stem)
            && !(len == 1 && (token.number || UNIT_WORDS.contains(&token.text)));
        words.push(Word {
            stem,
            content,
            clause_start,
        });
        i += len.max(1);
    }
    words
}

/// A run of words as one number, so that runs are compared without
/// keeping copies of their words. FNV-1a has no keys, so the same run
/// always has the same number; two runs that collided would count as
/// shared, which only ever refuses more.
fn run_hash(run: &[&str]) -> u64 {
    run.iter().fold(FNV_START, |hash, word| {
        // A byte no UTF-8 text has ends each word, so `ab c` and `a bc`
        // differ.
        fnv1a_from(hash, word.bytes().chain([0xff]))
    })
}

/// The [`run_hash`] of every run of `len` words that `keep` keeps.
fn run_hashes<'w>(
    words: &'w [&str],
    len: usize,
    keep: impl Fn(&[&str]) -> bool + 'w,
) -> impl Iterator<Item = u64> + 'w {
    words
        .windows(len)
        .filter(move |run| keep(run))
        .map(run_hash)
}

/// A private text, prepared once for every field it is compared with.
/// Its words are kept as their [`fnv1a`] hashes, like its runs: two
/// words that collided would count as shared, which only ever refuses
/// more.
#[derive(Debug)]
pub(super) struct Source {
    compact: String,
    runs: BTreeSet<u64>,
    content_runs: BTreeSet<u64>,
    content: BTreeSet<u64>,
    clauses: Vec<BTreeSet<u64>>,
    quantities: Vec<Quantity>,
}

/// The stems of `words`, and the stems of those that carry content.
fn stems_and_content<'t>(words: &[Word<'t>]) -> (Vec<&'t str>, Vec<&'t str>) {
    let stems = words.iter().map(|word| word.stem).collect();
    let content = words
        .iter()
        .filter(|word| word.content)
        .map(|word| word.stem)
        .collect();
    (stems, content)
}

impl Source {
    pub(super) fn new(text: &str) -> Self {
        let text = Text::new(text);
        let words = words(&text);
        let (stems, content) = stems_and_content(&words);
        let mut clauses: Vec<BTreeSet<u64>> = Vec::new();
        for word in &words {
            if word.clause_start || clauses.is_empty() {
                clauses.push(BTreeSet::new());
            }
            if let (true, Some(clause)) = (word.content, clauses.last_mut()) {
                clause.insert(fnv1a(word.stem));
            }
        }
        Source {
            compact: text.squashed.clone(),
            runs: run_hashes(&stems, SHARED_RUN, |run| {
                content_count(run) >= MIN_CONTENT_IN_SHARED_RUN
            })
            .collect(),
            content_runs: run_hashes(&content, SHARED_CONTENT_RUN, |_| true).collect(),
            content: content.iter().map(|word| fnv1a(word)).collect(),
            clauses,
            quantities: quantities(&text),
        }
    }

    /// Whether `field` echoes this text.
    pub(super) fn is_echoed_by(&self, field: &Field<'_>) -> bool {
        let compact_field = &field.text.squashed;
        let holds = |outer: &str, inner: &str| {
            inner.chars().count() >= MIN_ECHO_LENGTH && outer.contains(inner)
        };
        if holds(compact_field, &self.compact) || holds(&self.compact, compact_field) {
            return true;
        }
        let shared_run = field.runs.iter().any(|run| self.runs.contains(run));
        let shared_content_run = field
            .content_runs
            .iter()
            .any(|run| self.content_runs.contains(run));
        let distinct = &field.distinct;
        let shared = distinct
            .iter()
            .filter(|(hash, _)| self.content.contains(hash))
            .count();
        let paraphrase = distinct.len() >= PARAPHRASE_MIN_WORDS
            && shared * 10 >= distinct.len() * PARAPHRASE_SHARE_TENTHS;
        let fact = self.clauses.iter().any(|clause| {
            let (mut shared, mut idea) = (0, false);
            for (_, word) in distinct.iter().filter(|(hash, _)| clause.contains(hash)) {
                shared += 1;
                idea |= word.starts_with(IDEA_MARK);
            }
            shared >= FACT_WORDS && shared * 10 >= clause.len() * FACT_SHARE_TENTHS && idea
        });
        let quantity = field
            .quantities
            .iter()
            .any(|mine| self.quantities.iter().any(|theirs| mine.same_fact(theirs)));
        shared_run || shared_content_run || paraphrase || fact || quantity
    }
}

/// A field as the echo rule compares it, prepared once for every private
/// text.
#[derive(Debug)]
pub(super) struct Field<'t> {
    text: &'t Text,
    runs: Vec<u64>,
    content_runs: Vec<u64>,
    /// Each distinct content word once, with its [`fnv1a`] hash.
    distinct: Vec<(u64, &'t str)>,
    quantities: Vec<Quantity>,
}

impl<'t> Field<'t> {
    pub(super) fn new(text: &'t Text) -> Self {
        let words = words(text);
        let (stems, content) = stems_and_content(&words);
        Field {
            text,
            runs: run_hashes(&stems, SHARED_RUN, |_| true).collect(),
            content_runs: run_hashes(&content, SHARED_CONTENT_RUN, |_| true).collect(),
            distinct: content
                .iter()
                .copied()
                .collect::<BTreeSet<&str>>()
                .into_iter()
                .map(|word| (fnv1a(word), word))
                .collect(),
            quantities: quantities(text),
        }
    }
}

fn content_count(run: &[&str]) -> usize {
    run.iter()
        .filter(|stem| !FUNCTION_STEMS.contains(stem))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REASONING: &str = "Their budget ceiling is 18k because the board froze capex until Q3; \
        they will accept a free pilot if pressed.";

    fn echoes(field: &str) -> bool {
        Source::new(REASONING).is_echoed_by(&Field::new(&Text::new(field)))
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
    fn facts_and_quantities_restated_echo() {
        assert!(echoes("Is eighteen thousand their most?"));
        assert!(echoes("Is 1.5k a month their limit?"));
        assert!(echoes("Has their board halted capital spending?"));
        assert!(echoes("Would they take a no-cost pilot if pushed?"));
    }

    #[test]
    fn questions_on_the_same_topic_do_not_echo() {
        assert!(!echoes("Is 20k the most you would pay?"));
        assert!(!echoes("Is Q3 or Q4 better for the launch?"));
        assert!(!echoes("What budget can the retry offer for the pilot?"));
        assert!(!echoes("Would a free trial work for you?"));
        assert!(!echoes("Should the pilot start before or after Q3?"));
    }
}
