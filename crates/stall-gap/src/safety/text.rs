//! The views of a field that every rule reads, so that no rule can be
//! passed by spelling its words differently.
//!
//! A reader sees `Ｈеlios`, `He\u{200b}lios` and `Helios` as one name, and
//! `ignоre` with a Cyrillic `о` as `ignore`. The gate must too: every text
//! is normalised once (NFKC, invisible characters removed), then folded to
//! its confusables skeleton (UTS #39), stripped of combining marks and
//! lower-cased. Patterns are folded the same way, so a rule never compares
//! a folded text with an unfolded word.

use std::borrow::Cow;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_security::skeleton;

use super::word_map::WordMap;

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

/// The most rounds [`plain`] takes to reach its fixed point. Each round
/// that changes the text decodes a character reference or removes an
/// invisible character, so real text settles in two or three; the cap only
/// bounds what a hostile nesting (`&amp;amp;…`) can cost.
const MAX_PLAIN_ROUNDS: usize = 16;

/// NFKC, HTML character references decoded and invisible characters
/// removed, repeated until nothing changes: full-width and compatibility
/// forms become their plain letters, digits and punctuation (`＠` is `@`,
/// `１` is `1`), `&lt;` is `<`, and nothing hides between two characters.
/// Case and look-alike letters are kept; identifiers and contact details
/// are read from this view, where digits are still digits.
///
/// Repeating makes the view idempotent: removing an invisible character can
/// bring a letter and a combining mark together for NFKC to compose, and a
/// decoded reference can be a compatibility form or another reference.
pub(super) fn plain(text: &str) -> String {
    if is_plain_already(text) {
        return text.to_owned();
    }
    let mut current: String = text.chars().filter(|c| !is_invisible(*c)).collect();
    for _ in 0..MAX_PLAIN_ROUNDS {
        let next: String = decode_character_references(&current)
            .nfkc()
            .filter(|c| !is_invisible(*c))
            .collect();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// Whether [`plain`] leaves `text` as it is: ASCII is its own NFKC, has no
/// invisible characters, and without `&` no character reference. Most
/// fields are, and skip the normalisation.
fn is_plain_already(text: &str) -> bool {
    text.is_ascii() && !text.contains('&')
}

/// Whether `text` holds a character [`plain`] removes: something a person
/// does not see but a model reads (Unicode tag characters can spell a whole
/// instruction), or that reorders what is shown (bidirectional controls).
pub(super) fn has_invisible(text: &str) -> bool {
    text.chars().any(is_invisible)
}

/// Named character references a text could use to spell markup, and the
/// characters they stand for.
const NAMED_REFERENCES: [(&str, char); 24] = [
    ("lt", '<'),
    ("gt", '>'),
    ("amp", '&'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{a0}'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("colon", ':'),
    ("semi", ';'),
    ("commat", '@'),
    ("period", '.'),
    ("comma", ','),
    ("lpar", '('),
    ("rpar", ')'),
    ("lsqb", '['),
    ("rsqb", ']'),
    ("lbrack", '['),
    ("rbrack", ']'),
    ("num", '#'),
    ("excl", '!'),
    ("quest", '?'),
    ("equals", '='),
    ("verbar", '|'),
];

/// The longest character reference read, `&` and `;` included
/// (`&#x10FFFF;`, `&commat;`).
const MAX_REFERENCE_LEN: usize = 10;

/// `&lt;`, `&#60;` and `&#x3c;` decoded; anything else after `&` is kept.
fn decode_character_references(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match read_reference(rest) {
            Some((decoded, len)) => {
                out.push(decoded);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `text` starts with `&`: the character a reference there stands for,
/// and the reference's length in bytes.
fn read_reference(text: &str) -> Option<(char, usize)> {
    let end = text.get(1..)?.find(';')? + 1;
    if end + 1 > MAX_REFERENCE_LEN {
        return None;
    }
    let body = text.get(1..end)?;
    let decoded = if let Some(number) = body.strip_prefix('#') {
        let value = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        char::from_u32(value).filter(|c| *c != '\0')?
    } else {
        NAMED_REFERENCES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(body))
            .map(|(_, c)| *c)?
    };
    Some((decoded, end + 1))
}

/// The decimal value of a digit in any script: Arabic-Indic `٣`,
/// Devanagari `३` and ASCII `3` are all 3 (`char::to_digit` reads ASCII
/// only). Every decimal digit block is ten code points from its zero.
pub(super) fn decimal_digit(c: char) -> Option<u32> {
    if c.is_ascii() {
        return c.to_digit(10);
    }
    let code = u32::from(c);
    let index = DECIMAL_ZEROS.partition_point(|zero| *zero <= code);
    let zero = *DECIMAL_ZEROS.get(index.checked_sub(1)?)?;
    (code - zero < 10).then(|| code - zero)
}

/// The zero of every decimal digit block (general category Nd), from the
/// Unicode Character Database 14.0.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// `text` with every decimal digit written as its ASCII digit, or `None`
/// when that is `text` itself (ASCII text).
fn ascii_digits(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    text.chars()
        .map(|c| match decimal_digit(c) {
            Some(value) => char::from_digit(value, 10).unwrap_or(c),
            None => c,
        })
        .collect::<String>()
        .into()
}

/// Folds one character of the plain view onto `out`: its confusables
/// skeleton, lower-cased, combining marks removed (Cyrillic `Н` is `h`, `0`
/// is `o`, `1` is `l`). An ASCII capital is made small first, so that `I`
/// folds as `i` does and not to the `l` its own skeleton is.
fn fold_char(c: char, out: &mut String) {
    if is_line_break(c) {
        // The skeleton would make these spaces; a role header after one
        // must still start a line.
        out.push(c);
        return;
    }
    match ASCII_FOLDS.get(c as usize) {
        // One byte of UTF-8 is one ASCII character: pushed without a copy
        // loop.
        Some(folded) => match folded.as_bytes() {
            [byte] => out.push(char::from(*byte)),
            _ => out.push_str(folded),
        },
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
        if matches!(folded, 'ß' | 'ẞ') {
            // Full case folding's `ss`: `Weiß` is written `Weiss` where
            // the letter is missing.
            out.push_str("ss");
        } else if !is_combining_mark(folded) {
            out.extend(folded.to_lowercase());
        }
    }
}

/// Whether `c` is a Chinese character, kana or hangul: scripts that do not
/// space their words apart (hangul does, but runs its particles onto the
/// word before), so a word or a number may start straight after one.
pub(super) fn is_east_asian(c: char) -> bool {
    is_han(c) || matches!(c, '\u{3040}'..='\u{30ff}') || is_hangul(c)
}

/// Whether `c` is a Chinese character (kanji, hanzi, hanja).
pub(super) fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// Whether `c` is a hangul syllable.
pub(super) fn is_hangul(c: char) -> bool {
    matches!(c, '\u{ac00}'..='\u{d7a3}')
}

/// Whether `c` ends a line for a reader.
pub(super) fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
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
    /// The last character other than white space before the word, as
    /// written (`'\0'` for the first word): `'` before `s` makes a
    /// possessive, `.` or `?` before a word starts a sentence.
    pub(super) before: char,
    /// Whether the word as written is only digits (in any script).
    pub(super) number: bool,
    /// The word's letters that carry a diacritic as written, lower-cased,
    /// in order (`ạ` of `phạt`): folding drops the marks, but two words
    /// that keep different ones are different words (see [`marks_agree`]).
    pub(super) marks: String,
}

/// Whether a word written with `word` marks may be a form written with
/// `form` marks: the same word with its diacritics dropped (`Wisniewski`),
/// or with the form's own (`Wiśniewskiego` for `Wiśniewski`), and not one
/// whose marks differ (`phạt`, "a fine", is not `Phát`; `thử` is not
/// `Thu` of `Nguyễn Thị Thu Hà`). `None` for a form of a name given
/// without any diacritic, as a name often is where its letters were
/// dropped (`Jose Garcia`): any marks agree (`José`).
pub(super) fn marks_agree(word: &str, form: Option<&str>) -> bool {
    match form {
        None => true,
        Some(form) => word.is_empty() || (!form.is_empty() && word.starts_with(form)),
    }
}

/// Whether `c` is a letter written with a diacritic (`é`, `ạ`, `ś`).
fn is_marked(c: char) -> bool {
    let mut marked = false;
    unicode_normalization::char::decompose_canonical(c, |part| {
        marked |= is_combining_mark(part);
    });
    marked
}

impl Token {
    /// Whether the word opens a sentence (or the field), where every
    /// language capitalises, so a capital says nothing about a name.
    pub(super) fn starts_sentence(&self) -> bool {
        matches!(
            self.before,
            '\0' | '.' | '!' | '?' | ':' | ';' | '¿' | '¡' | '…' | '"' | '“' | '«' | '('
        ) || is_line_break(self.before)
    }
}

/// Whether `c` writes an apostrophe.
pub(super) fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | 'ʼ' | '`' | '´' | '‘')
}

/// A field in every view the rules read.
#[derive(Debug)]
pub(super) struct Text {
    /// NFKC, character references decoded, invisible characters removed
    /// ([`plain`]).
    pub(super) plain: String,
    /// The plain view with every decimal digit written in ASCII, where it
    /// differs from the plain view (see [`Text::digits`]).
    digits: Option<String>,
    /// The digits view lower-cased, made once for the rules that compare
    /// without case.
    pub(super) lower: String,
    /// Whether the field as written holds invisible characters.
    pub(super) hidden: bool,
    /// Whether the field as written holds HTML character references (once
    /// in NFKC, so `＆lt;` is one).
    pub(super) references: bool,
    /// The folded text, punctuation and line breaks kept.
    pub(super) folded: String,
    /// The folded words, in order.
    pub(super) tokens: Vec<Token>,
    /// The folded words joined with nothing between them: a phrase split
    /// by spaces, dots or hyphens inside its words is still found here.
    pub(super) squashed: String,
    /// The words' stems, made when the echo rule first asks.
    stems: std::sync::OnceLock<Vec<Cow<'static, str>>>,
}

impl Text {
    pub(super) fn new(text: &str) -> Self {
        let plain = plain(text);
        let mut folded = String::with_capacity(plain.len());
        let mut tokens: Vec<Token> = Vec::new();
        // Where the word being read starts in `folded`: a token's text is
        // one run of letters and digits there, copied once it ends.
        let mut word_start: Option<usize> = None;
        let end_word = |tokens: &mut Vec<Token>, folded: &str, start: &mut Option<usize>, end| {
            if let (Some(from), Some(token)) = (start.take(), tokens.last_mut()) {
                token.text = folded.get(from..end).unwrap_or_default().to_owned();
            }
        };
        let mut before = '\0';
        for c in plain.chars() {
            let start = folded.len();
            fold_char(c, &mut folded);
            let digit = decimal_digit(c).is_some();
            for (offset, f) in folded[start..].char_indices() {
                if !f.is_alphanumeric() {
                    end_word(&mut tokens, &folded, &mut word_start, start + offset);
                    continue;
                }
                if word_start.is_none() {
                    tokens.push(Token {
                        text: String::new(),
                        capitalised: c.is_uppercase() && offset == 0,
                        before,
                        number: true,
                        marks: String::new(),
                    });
                    word_start = Some(start + offset);
                }
                if let Some(token) = tokens.last_mut() {
                    token.number &= digit;
                    if offset == 0 && !c.is_ascii() && is_marked(c) {
                        token.marks.extend(c.to_lowercase());
                    }
                }
            }
            if !c.is_whitespace() || is_line_break(c) {
                before = c;
            }
        }
        end_word(&mut tokens, &folded, &mut word_start, folded.len());
        let squashed = tokens.iter().map(|token| token.text.as_str()).collect();
        let digits = ascii_digits(&plain);
        let hidden = has_invisible(text);
        // Without invisible characters, the plain view differs from NFKC
        // only where character references were decoded.
        let references =
            !hidden && !is_plain_already(text) && plain != text.nfkc().collect::<String>();
        Text {
            lower: digits.as_deref().unwrap_or(&plain).to_lowercase(),
            digits,
            hidden,
            references,
            plain,
            folded,
            tokens,
            squashed,
            stems: std::sync::OnceLock::new(),
        }
    }

    /// The plain view with every decimal digit written in ASCII, where
    /// numbers are read whatever script wrote them.
    pub(super) fn digits(&self) -> &str {
        self.digits.as_deref().unwrap_or(&self.plain)
    }

    /// The folded words.
    pub(super) fn words(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|token| token.text.as_str())
    }

    /// The Snowball stem of each folded word, in order (computed once).
    pub(super) fn stems(&self) -> &[Cow<'static, str>] {
        self.stems.get_or_init(|| self.words().map(stem).collect())
    }
}

/// A set of space-separated `words`, each folded as a [`Text`]'s tokens
/// are, for the rules' fixed word lists.
pub(super) fn folded_set(words: &str) -> super::word_map::WordSet {
    words.split_whitespace().map(fold).collect()
}

/// A letter, a digit or a mark on one (Devanagari's virama and nukta are
/// neither letters nor digits, but inside a word).
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// A currency's sign, which says the number beside it is a sum.
pub(super) fn is_currency_sign(c: char) -> bool {
    matches!(
        c,
        '€' | '$' | '£' | '¥' | '₽' | '₩' | '₫' | '₺' | '₹' | '元' | '円' | '원'
    )
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
pub(super) fn stem(word: &str) -> Cow<'static, str> {
    match COMMON_STEMS.get(word) {
        Some(stem) => Cow::Borrowed(stem.as_str()),
        None => Cow::Owned(STEMMER.stem(word).into_owned()),
    }
}

/// The stems of the common-word list, made once per process: most words a
/// question uses are among them, and the stemmer is the costly part of the
/// echo rule.
static COMMON_STEMS: LazyLock<WordMap<String>> = LazyLock::new(|| {
    include_str!("common_words.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let word = fold(line.trim_end_matches('*'));
            let stem = STEMMER.stem(&word).into_owned();
            (word, stem)
        })
        .collect()
});

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
