//! Internal identifiers in any spelling: a UUID with any separators or none,
//! other opaque id formats, and an id-like word with a value after it.
//!
//! A person never needs an id to answer a question, and an id in the
//! question tells them something internal. So any id shape counts, whether
//! it belongs to a negotiation or not.

use std::sync::LazyLock;

use super::text::{Text, is_word_char};
use super::word_map::WordSet;

/// The hex digits a UUID has.
const UUID_HEX_DIGITS: usize = 32;

/// The most non-alphanumeric characters allowed between two hex digits of
/// one identifier: `3c9a7e52 - 1f4b` still reads as one.
const MAX_SEPARATOR_RUN: usize = 3;

/// Of a hex run that long, how many must be decimal digits: English words
/// made only of the letters a to f never come close.
const MIN_DIGITS_IN_HEX_RUN: usize = 6;

/// Whether `text` holds an internal identifier.
pub(super) fn has_identifier(text: &Text) -> bool {
    let digits = if mentions_colour(&text.lower) {
        without_colours(text.digits())
    } else {
        std::borrow::Cow::Borrowed(text.digits())
    };
    has_hex_identifier(&text.folded)
        || digits
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(is_opaque_token)
        || has_short_hex_identifier(&digits)
        || has_project_key(text.digits())
        || has_namespaced_key(text.digits())
        || has_numbered_hash(&digits)
        || has_code_identifier(&text.plain)
        || has_id_word_with_value(&text.lower)
        || has_path_key(text.digits())
}

/// The hex digits a CSS colour has after its `#`: `#fff`, `#ffff`,
/// `#1a73e8`, `#1a73e8cc`.
const COLOUR_LENGTHS: [usize; 4] = [3, 4, 6, 8];

/// Words that say a field is about colour, in the languages of the
/// tables (and CSS's own): without one, `#a3f9c2` is as likely a ticket as
/// a colour. These start a word (`colour`, `Farbe`, `цвета`, `pintura`).
const COLOUR_STEMS: [&str; 19] = [
    "colo",
    "couleur",
    "farb",
    "цвет",
    "kolor",
    "renk",
    "palet",
    "paint",
    "pintur",
    "peintur",
    "vernic",
    "краск",
    "farba",
    "boya",
    "brand",
    "theme",
    "hex",
    "rgb",
    "css",
];

/// Colour words and the commonest colours' names, matched as whole words
/// (`vert` is not in `Vertrag`, nor `lack` in `black`).
const COLOUR_NAMES: [&str; 20] = [
    "cor", "cores", "màu", "sơn", "tema", "lack", "green", "blue", "grey", "gray", "azul", "verde",
    "bleu", "vert", "grün", "blau", "laranja", "orange", "رنگ", "لون",
];

/// Colour words of scripts written without spaces, or with particles run
/// onto them (`颜色`, `색상은`, `ブランドカラー`), found inside the text.
const COLOUR_INSIDE: [&str; 5] = ["色", "색", "カラー", "컬러", "रंग"];

fn mentions_colour(lower: &str) -> bool {
    COLOUR_INSIDE.iter().any(|word| lower.contains(word))
        || lower.split(|c: char| !c.is_alphanumeric()).any(|word| {
            COLOUR_NAMES.contains(&word) || COLOUR_STEMS.iter().any(|stem| word.starts_with(stem))
        })
}

/// `digits` with each hex colour blanked out: `#` after no letter or
/// digit, then [`COLOUR_LENGTHS`] hex digits with a letter among them, or
/// six digits (a shorter run of digits alone is a number, `#48213`), then neither a letter, a
/// digit nor a joiner (`#a3f9c2-7b1e` is an id's parts).
/// A colour is a quantity a person chooses, not an id.
fn without_colours(digits: &str) -> std::borrow::Cow<'_, str> {
    if !digits.contains('#') {
        return std::borrow::Cow::Borrowed(digits);
    }
    let mut out = String::with_capacity(digits.len());
    let mut rest = digits;
    while let Some(at) = rest.find('#') {
        let (before, from_hash) = rest.split_at(at);
        out.push_str(before);
        let after = from_hash.get(1..).unwrap_or_default();
        let hex_len = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        let preceded = out
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        // A particle written onto it (`#1E3A8A로`) is not part of it.
        let followed = after
            .get(hex_len..)
            .and_then(|tail| tail.chars().next())
            .is_some_and(|c| c.is_ascii_alphanumeric() || "-:_/".contains(c));
        let hex = after.get(..hex_len).unwrap_or_default();
        // With a colour named beside it, `#333333` is a grey.
        let colour = !preceded
            && !followed
            && COLOUR_LENGTHS.contains(&hex_len)
            && (hex.bytes().any(|b| b.is_ascii_alphabetic()) || hex_len == 6);
        if colour {
            out.push_str(&" ".repeat(1 + hex_len));
            rest = after.get(hex_len..).unwrap_or_default();
        } else {
            out.push('#');
            rest = after;
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// How often a short hex id switches between letters and digits at
/// least: `a3f9c2` switches five times, `100bed` once.
const MIN_HEX_SWITCHES: usize = 3;

/// Whether `word` is hex written as ids are, mixing letters and digits
/// throughout, and `min_len` long or more.
fn is_mixed_hex(word: &str, min_len: usize) -> bool {
    let hex = word.len() >= min_len && word.bytes().all(|b| b.is_ascii_hexdigit());
    // Case does not change which bytes are digits, so the word is read as
    // it is.
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    hex && digits >= 2 && digits < word.len() && mixed_hex_switches(word) >= MIN_HEX_SWITCHES - 1
}

/// A short hex id: one word of six or more mixed hex characters
/// (`a3f9c2`), or two of four or more joined by a hyphen or colon
/// (`7f3a-9b2c`).
fn has_short_hex_identifier(digits: &str) -> bool {
    let single = digits
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| is_mixed_hex(word, 6) && mixed_hex_switches(word) >= MIN_HEX_SWITCHES);
    let paired = digits.split_whitespace().any(|chunk| {
        let chunk = chunk.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let groups: Vec<&str> = chunk.split(['-', ':']).collect();
        groups.len() >= 2 && groups.iter().all(|group| is_mixed_hex(group, 4))
    });
    single || paired
}

fn mixed_hex_switches(word: &str) -> usize {
    word.as_bytes()
        .windows(2)
        .filter(|pair| pair.first().map(u8::is_ascii_digit) != pair.get(1).map(u8::is_ascii_digit))
        .count()
}

/// A tracker's key: two to ten capitals, a hyphen, three or more digits
/// (`JIRA-4821`, `INC-042713`); `COVID-19` and `GPT-4` are too short.
/// The digits may follow the capitals directly where a suffix is hyphened
/// on, and a language or country suffix may follow (`OPP-2291-EN`,
/// `OPP2291-DE`).
fn has_project_key(digits: &str) -> bool {
    let after_model = |word: &str| {
        digits
            .find(word)
            .and_then(|at| digits.get(..at))
            .and_then(|before| before.split_whitespace().next_back())
            .is_some_and(|previous| {
                let previous = previous.to_lowercase();
                MODEL_WORDS.iter().any(|model| previous.starts_with(model))
            })
    };
    let is_key =
        |key: &str| (2..=10).contains(&key.len()) && key.chars().all(|c| c.is_ascii_uppercase());
    let is_number = |number: &str| number.len() >= 3 && number.chars().all(|c| c.is_ascii_digit());
    let is_suffix =
        |suffix: &str| suffix.len() == 2 && suffix.chars().all(|c| c.is_ascii_uppercase());
    digits
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .any(|word| {
            let parts: Vec<&str> = word.split('-').collect();
            let key = match parts.as_slice() {
                [key, number] => {
                    (is_key(key) && is_number(number)) || (is_joined_key(key) && is_suffix(number))
                }
                [key, number, suffix] => is_key(key) && is_number(number) && is_suffix(suffix),
                _ => false,
            };
            // `Modell KX-300`: a product's model, which a person buys.
            key && !after_model(word)
        })
}

/// Words for a product's model, before which a key is the model's name.
const MODEL_WORDS: [&str; 9] = [
    "model",
    "modèle",
    "modell",
    "modelo",
    "modello",
    "модел",
    "型号",
    "型番",
    "모델",
];

/// Capitals, then three or more digits, run together: `OPP2291`.
fn is_joined_key(word: &str) -> bool {
    let capitals = word.chars().take_while(char::is_ascii_uppercase).count();
    let number = word.get(capitals..).unwrap_or_default();
    (2..=10).contains(&capitals) && number.len() >= 3 && number.chars().all(|c| c.is_ascii_digit())
}

/// A key written as a store or a system writes one, its parts joined by
/// `:` or `/` with no space: a namespace word and a value with two digits
/// or more (`opp:3391`, `intent:hire-42`), or three or more parts led by
/// a word with a number among them (`users:pk:4821`, `deal/8842/fr`).
/// Times, ratios and dates (`10:30:00`, `16:9`, `2024/25`) have no word;
/// `Q3/2026` and `km/h` have two parts at most and no namespace; a price
/// per unit (`50/user/month`, `kwh/m2/year`) does not lead with a word or
/// has no number.
fn has_namespaced_key(digits: &str) -> bool {
    digits
        .split(|c: char| !(c.is_ascii_alphanumeric() || ":/-_".contains(c)))
        .map(|word| word.trim_matches(|c: char| ":/-_".contains(c)))
        .any(|word| {
            for joiner in [':', '/'] {
                let parts: Vec<&str> = word.split(joiner).collect();
                if parts.iter().any(|part| part.is_empty()) || parts.len() < 2 {
                    continue;
                }
                let two_digits =
                    |part: &&str| part.chars().filter(char::is_ascii_digit).count() >= 2;
                let number =
                    |part: &&str| two_digits(part) && part.chars().all(|c| c.is_ascii_digit());
                let is_word = |part: &&str| {
                    part.len() >= 2 && part.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                };
                let namespaced = joiner == ':'
                    && parts.len() == 2
                    && parts.first().is_some_and(is_word)
                    && parts.get(1).is_some_and(two_digits);
                // The namespace comes first: `50/user/month` is a price.
                let long = parts.len() >= 3
                    && parts.first().is_some_and(is_word)
                    && parts.iter().any(number);
                if namespaced || long {
                    return true;
                }
            }
            false
        })
}

/// The fewest digits after `#` that make a number a reference (`#48213`);
/// `#1 priority` is a rank.
const MIN_HASH_DIGITS: usize = 4;

fn has_numbered_hash(digits: &str) -> bool {
    digits.match_indices('#').any(|(at, _)| {
        digits
            .get(at + 1..)
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_digit)
            .count()
            >= MIN_HASH_DIGITS
    })
}

/// A hex digit as the skeleton writes it: `0` and `1` fold to `o` and `l`.
fn hex_value(c: char) -> Option<bool> {
    match c {
        '0'..='9' | 'o' | 'l' => Some(true),
        'a'..='f' => Some(false),
        _ => None,
    }
}

/// 32 or more hex digits separated by short runs of punctuation or spaces:
/// a UUID however it is grouped, or an object id joined to something.
fn has_hex_identifier(folded: &str) -> bool {
    let (mut hex, mut digits, mut gap) = (0usize, 0usize, 0usize);
    for c in folded.chars() {
        match hex_value(c) {
            Some(is_digit) => {
                hex += 1;
                digits += usize::from(is_digit);
                gap = 0;
                if hex >= UUID_HEX_DIGITS && digits >= MIN_DIGITS_IN_HEX_RUN {
                    return true;
                }
            }
            None if !c.is_alphanumeric() && gap < MAX_SEPARATOR_RUN && hex > 0 => gap += 1,
            None => (hex, digits, gap) = (0, 0, 0),
        }
    }
    false
}

/// A word no language has: long, and mixing letters with digits, as object
/// ids (24 hex), ULIDs (26 base-32), nano ids and API tokens do.
fn is_opaque_token(token: &str) -> bool {
    let len = token.chars().count();
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let letters = len - digits;
    (len >= 16 && digits >= 1 && letters >= 1) || (len >= 10 && digits >= 3 && letters >= 3)
}

/// A word written as code: `intent_id`, `cus_Nffr2`, `taskId`. People do not
/// write underscores between letters, or a lower-case word run into a
/// capitalised `Id`.
fn has_code_identifier(plain: &str) -> bool {
    plain
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| {
            let inner_underscore = word.trim_matches('_').contains('_');
            let camel_id = word.len() > 2
                && (word.ends_with("Id") || word.ends_with("ID") || word.ends_with("Ids"))
                && word.chars().next().is_some_and(char::is_lowercase);
            inner_underscore || camel_id
        })
}

/// Words that name an identifier: whatever follows them is one. With
/// [`NAMING_ID_WORDS`], which mean "identifier" itself.
const ID_WORDS: [&str; 14] = [
    "ids",
    "uuid",
    "uuids",
    "guid",
    "guids",
    "identifiers",
    "ref",
    "token",
    "tokens",
    "ticket",
    "serial",
    "key",
    // Arabic's word for an identifier with its article and preposition.
    "المعرف",
    "بالمعرف",
];

/// The words for an identifier itself, in the languages of the tables,
/// which name a record even with a word between them and its number
/// (`ID klienta 55021`).
const NAMING_ID_WORDS: [&str; 13] = [
    "id",
    "identifier",
    "identifiant",
    "identificador",
    "identificativo",
    "identyfikator",
    "kennung",
    "kimlik",
    "идентификатор",
    "ид",
    "معرف",
    "आईडी",
    "아이디",
];

/// Things the protocol gives ids to: followed by a value, they name one.
const ID_SUBJECTS: [&str; 8] = [
    "task",
    "intent",
    "network",
    "opportunity",
    "user",
    "match",
    "negotiation",
    "seat",
];

/// Words for a record that has a number: followed by a long number, or
/// by a number word and any number, they name one (`case 48213`, `order
/// no. 7734`, `Rechnung Nr. 24`), in the languages a question is asked in.
const RECORD_WORDS: [&str; 37] = [
    "case",
    "order",
    "invoice",
    "reference",
    "record",
    "account",
    "claim",
    "booking",
    "reservation",
    "confirmation",
    "tracking",
    "policy",
    "file",
    "caso",
    "expediente",
    "pedido",
    "factura",
    "referencia",
    "dossier",
    "commande",
    "facture",
    "référence",
    "rechnung",
    "bestellung",
    "vorgang",
    "aktenzeichen",
    "konto",
    "pratica",
    "ordine",
    "fattura",
    "fatura",
    "processo",
    "заказ",
    "счет",
    "protocolo",
    "protocollo",
    "रिकॉर्ड",
];

/// Words for "number": followed by four or more digits, they name one.
const NUMBER_WORDS: [&str; 14] = [
    "no",
    "nr",
    "num",
    "number",
    "numero",
    "número",
    "numéro",
    "nummer",
    "номер",
    "numer",
    "번호",
    "رقم",
    "नंबर",
    "संख्या",
];

/// Words for a record's number that Chinese and Japanese write onto the
/// word before them (`案件番号`, `订单编号`).
const JOINED_NUMBER_WORDS: [&str; 5] = ["番号", "编号", "單號", "单号", "号码"];

/// The fewest letters before the slash of a path-like key, and digits
/// after it (`opportunities/8812`; `km/h`, `24/7`, `EUR/100` and
/// `Mar/2026` are not).
const MIN_PATH_LETTERS: usize = 5;
const MIN_PATH_DIGITS: usize = 3;

/// The fewest digits a record word alone needs before them (`case 48213`,
/// not `order 5000 licences`).
const MIN_RECORD_DIGITS: usize = 5;

/// The word lists above as sets, since every word of a field is looked up
/// in each.
static ID_WORD_SET: LazyLock<WordSet> = LazyLock::new(|| {
    ID_WORDS
        .iter()
        .chain(&NAMING_ID_WORDS)
        .map(|w| (*w).to_owned())
        .collect()
});
static NAMING_ID_SET: LazyLock<WordSet> = LazyLock::new(|| word_set(&NAMING_ID_WORDS));
static SUBJECT_SET: LazyLock<WordSet> = LazyLock::new(|| word_set(&ID_SUBJECTS));
static RECORD_WORD_SET: LazyLock<WordSet> = LazyLock::new(|| word_set(&RECORD_WORDS));
static NUMBER_WORD_SET: LazyLock<WordSet> = LazyLock::new(|| word_set(&NUMBER_WORDS));

fn word_set(words: &[&str]) -> WordSet {
    words.iter().map(|word| (*word).to_owned()).collect()
}

/// `user id`, `ID: 7f3a`, `opportunity 8f3e9a`, `ticket #4411`, `case
/// 48213`: an id word after a subject or before a value, a subject before
/// a value, or a record or number word before a number. Read in the
/// lower-cased digits view.
fn has_id_word_with_value(lower: &str) -> bool {
    // Arabic's short vowels and shadda are marks a reader may leave out.
    let unmarked: String;
    let lower = if lower.chars().any(is_arabic_mark) {
        unmarked = lower.chars().filter(|c| !is_arabic_mark(*c)).collect();
        &unmarked
    } else {
        lower
    };
    let words: Vec<&str> = lower
        .split(|c: char| !is_word_char(c))
        .filter(|word| !word.is_empty())
        .collect();
    let is_id_word = |word: &str| ID_WORD_SET.contains(word);
    let is_subject = |word: &str| SUBJECT_SET.contains(word);
    // `no` and `n` say "number" only abbreviated (`No. 7734`, `nº 12`);
    // `No, 2000 is too much` is an answer.
    // Looked for only when a field has one of those words.
    let abbreviated = || {
        ["no.", "nº", "n°", "n."]
            .iter()
            .any(|mark| lower.contains(mark))
    };
    let is_number_word = |word: &str| {
        (NUMBER_WORD_SET.contains(word) && (!matches!(word, "no" | "n") || abbreviated()))
            || (word == "n" && abbreviated())
            || JOINED_NUMBER_WORDS
                .iter()
                .any(|joined| word.ends_with(joined))
    };
    let digit_count = |word: &str| word.chars().filter(char::is_ascii_digit).count();
    words.iter().enumerate().any(|(i, word)| {
        let next = words.get(i + 1).copied();
        let after_next = words.get(i + 2).copied();
        let joined = ID_SUBJECTS.iter().any(|subject| {
            word.strip_prefix(subject)
                .is_some_and(|rest| !rest.is_empty() && is_id_word(rest))
        });
        // The digits of the value after a record word, its pieces joined
        // by hyphens as written (`2024-BR-77123`), not a sum's groups
        // (`12,000`) nor the words after it.
        let value_digits = || -> usize {
            let mut pieces = words.get(i + 1..).unwrap_or_default().iter();
            let Some(first) = pieces.next() else {
                return 0;
            };
            let mut total = digit_count(first);
            let mut previous = *first;
            for piece in pieces.take(2) {
                if !lower.contains(&format!("{previous}-{piece}")) {
                    break;
                }
                total += digit_count(piece);
                previous = piece;
            }
            total
        };
        let record = RECORD_WORD_SET.contains(word)
            && (next.is_some_and(|next| {
                digit_count(next) >= MIN_RECORD_DIGITS || is_mixed_hex(next, 4)
            }) || value_digits() >= MIN_RECORD_DIGITS
                || (next.is_some_and(|next| is_number_word(next) || is_id_word(next))
                    && after_next.is_some_and(looks_like_value)));
        // `No 48213` (NFKC writes `№` so): without its dot, `no` takes a
        // record's five digits (`No, 2000 is too much` is an answer).
        let plain_no = matches!(*word, "no" | "n") && !abbreviated();
        let numbered = (is_number_word(word) && value_digits() >= 4)
            || (plain_no && value_digits() >= MIN_RECORD_DIGITS);
        // The word for an identifier before a word and a long number:
        // `ID klienta 55021` (not `Ticket price 1500`, nor a year).
        let id_of = NAMING_ID_SET.contains(word)
            && after_next.is_some_and(|value| digit_count(value) >= MIN_RECORD_DIGITS);
        joined
            || record
            || numbered
            || id_of
            || (is_subject(word)
                && next.is_some_and(|next| is_id_word(next) || looks_like_value(next)))
            || (is_id_word(word) && next.is_some_and(looks_like_value))
    })
}

fn is_arabic_mark(c: char) -> bool {
    matches!(c, '\u{064b}'..='\u{065f}' | '\u{0670}')
}

/// A record written as a path: letters, a slash, digits, with nothing
/// between (`opportunities/8812`, `deals/4411`).
fn has_path_key(digits: &str) -> bool {
    digits.match_indices('/').any(|(at, _)| {
        let before = digits.get(..at).unwrap_or_default();
        let after = digits.get(at + 1..).unwrap_or_default();
        let letters = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphabetic() || *c == '_')
            .count();
        let numbers = after.chars().take_while(char::is_ascii_digit).count();
        letters >= MIN_PATH_LETTERS
            && numbers >= MIN_PATH_DIGITS
            && !after
                .chars()
                .nth(numbers)
                .is_some_and(char::is_alphanumeric)
    })
}

/// A word that reads as an id's value: it has a digit, or is six or more
/// hex letters.
fn looks_like_value(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        || (word.len() >= 6 && word.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> bool {
        has_identifier(&Text::new(text))
    }

    #[test]
    fn ids_in_any_spelling() {
        for text in [
            "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14",
            "3c9a7e521f4b4d8ea6c29b0f3e7d5a14",
            "3c9a7e52 1f4b 4d8e a6c2 9b0f3e7d5a14",
            "3c9a7e52_1f4b_4d8e_a6c2_9b0f3e7d5a14",
            "3c9a7e52\u{200b}-1f4b-4d8e-a6c2-9b0f3e7d5a14",
            "３ｃ９ａ７ｅ５２-1f4b-4d8e-a6c2-9b0f3e7d5a14",
            "507f1f77bcf86cd799439011",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "the intent_id",
            "your userId",
            "ID: 7f3a",
            "opportunity 8f3e9a",
            "ticket #4411",
            "user id",
            "case 48213",
            "order no. 7734-22",
            "Is 7f3a-9b2c it?",
            "the pair a3f9c2",
            "JIRA-4821",
            "#48213",
            "№ 48213",
            "caso ٤٨٢١٣",
            "ref#a3f9c2",
            "Is ticket #a3f9c2 still open?",
            "#7f3a9b2c",
            "#a3f9c2e",
            "#a3f9c2-7b1e",
            "users:pk:4821",
            "opp:3391:en",
            "intent:hire-42",
            "deal/8842/fr",
            "OPP-2291-EN",
            "OPP2291-DE",
        ] {
            assert!(found(text), "{text:?}");
        }
    }

    #[test]
    fn ordinary_words_and_numbers_are_not_ids() {
        for text in [
            "a decade of facade work",
            "The 2025-06-01 start, €20,000 and 1.5 million.",
            "Your identity, the user guide, a network effect.",
            "Does the match in June suit you?",
            "deadbeef",
            "Order 5000 licences for the 100bed ward, COVID-19, GPT-4, #1.",
            "Is case A or case B better, with a 4x4 or a 3D model?",
            "パイロットは6月に開始できますか",
            "Keep the colours #1a73e8, or #C70039 with #fff text and a #1a73e8cc overlay?",
            "At 10:30:00, in 16:9, for 2024/25, Q3/2026, 24/7, km/h and/or EUR/USD.",
            "Note: 5 items, time 9:45, the A4 and A3 sizes, a 3:1 split, v2.",
            "Is $50/user/month, €12/seat/year or 5/day/person fine, at 90 kwh/m2/year?",
        ] {
            assert!(!found(text), "{text:?}");
        }
    }
}
