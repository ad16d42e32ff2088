//! Phone numbers read out the way each language groups them: in pairs and
//! hundreds (`zéro quatre, soixante-douze, dix-huit`, `sıfır beş yüz otuz
//! üç`, `восемь девятьсот шестнадцать`), and in Japanese katakana digit
//! readings run together (`ゼロサン、ゴーロクナナハチ`).
//!
//! A list of digit words alone catches `five five five one two three
//! four`; a number spoken in groups uses tens and hundreds too, which in
//! a row of six or more only a phone number has (a sum says "thousand" or
//! "million", which ends the row).

use std::sync::LazyLock;

use super::text::folded_set;
use super::word_map::WordSet;

/// Teens, tens and hundreds, in the languages a number is read out in:
/// English, Spanish, Portuguese, Italian, French, German, Russian, Polish,
/// Turkish.
const GROUP_WORDS: &str = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen \
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred \
    diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve veinte \
    treinta cuarenta cincuenta sesenta setenta ochenta noventa cien ciento doscientos \
    trescientos cuatrocientos quinientos seiscientos setecientos ochocientos novecientos \
    dez onze doze treze catorze quatorze quinze dezesseis dezessete dezoito dezenove vinte \
    trinta quarenta cinquenta sessenta setenta oitenta noventa cem cento duzentos trezentos \
    dieci undici dodici tredici quattordici quindici sedici diciassette diciotto diciannove \
    venti trenta quaranta sessanta settanta ottanta novanta \
    dix onze douze treize quatorze quinze seize vingt trente quarante cinquante soixante \
    zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig \
    dreißig vierzig fünfzig sechzig siebzig achtzig neunzig hundert \
    десять одиннадцать двенадцать тринадцать четырнадцать пятнадцать шестнадцать \
    семнадцать восемнадцать девятнадцать двадцать тридцать сорок пятьдесят шестьдесят \
    семьдесят восемьдесят девяносто сто двести триста четыреста пятьсот шестьсот семьсот \
    восемьсот девятьсот \
    dziesięć jedenaście dwanaście trzynaście czternaście piętnaście szesnaście siedemnaście \
    osiemnaście dziewiętnaście dwadzieścia trzydzieści czterdzieści pięćdziesiąt \
    sześćdziesiąt siedemdziesiąt osiemdziesiąt dziewięćdziesiąt sto dwieście trzysta \
    czterysta pięćset sześćset siedemset osiemset dziewięćset \
    on yirmi otuz kırk elli altmış yetmiş seksen doksan yüz";

/// Words joining a number's parts (`treinta y dos`, `vingt et un`), which
/// neither count nor end a row.
const JOINERS: &str = "y e et und";

static GROUPS: LazyLock<WordSet> = LazyLock::new(|| folded_set(GROUP_WORDS));
static JOINING: LazyLock<WordSet> = LazyLock::new(|| folded_set(JOINERS));

/// Whether `word` (folded) is a teen, a ten or a hundred.
pub(super) fn is_group_word(word: &str) -> bool {
    GROUPS.contains(word)
}

/// The fewest number words in a row, tens or hundreds among them, that
/// read as a phone number.
const MIN_GROUPED_WORDS: usize = 6;

/// Whether `words` (folded) hold a phone number read out in groups:
/// [`MIN_GROUPED_WORDS`] number words in a row, one a group word, where
/// `is_digit_word` says which are single digits.
pub(super) fn has_grouped_number<'w>(
    words: impl Iterator<Item = &'w str>,
    is_digit_word: impl Fn(&str) -> bool,
) -> bool {
    let (mut run, mut grouped) = (0, false);
    for word in words {
        if JOINING.contains(word) && run > 0 {
            continue;
        }
        let group = GROUPS.contains(word);
        if group || is_digit_word(word) {
            run += 1;
            grouped |= group;
        } else {
            (run, grouped) = (0, false);
        }
        if run >= MIN_GROUPED_WORDS && grouped {
            return true;
        }
    }
    false
}

/// The katakana readings of the digits, longest first so a greedy reading
/// takes `ニー` before `ニ`.
const KATAKANA_DIGITS: [&str; 17] = [
    "キュウ",
    "キュー",
    "ゼロ",
    "レイ",
    "イチ",
    "ニー",
    "サン",
    "ヨン",
    "ゴー",
    "ロク",
    "ナナ",
    "シチ",
    "ハチ",
    "ニ",
    "シ",
    "ゴ",
    "ク",
];

/// The fewest digits read in katakana that make a phone number.
const MIN_KATAKANA_DIGITS: usize = 7;

/// Whether `plain` holds a number read in katakana digits: runs of
/// katakana that read wholly as digits, `、`, `・`, `-` or spaces between
/// them, [`MIN_KATAKANA_DIGITS`] digits in all.
pub(super) fn has_katakana_number(plain: &str) -> bool {
    if plain.is_ascii() {
        return false;
    }
    let mut digits = 0;
    let mut rest = plain;
    while let Some(c) = rest.chars().next() {
        let run_len: usize = rest
            .chars()
            // `・` joins the runs; it reads as no digit.
            .take_while(|c| matches!(c, '\u{30a0}'..='\u{30ff}') && *c != '・')
            .map(char::len_utf8)
            .sum();
        if run_len > 0 {
            let run = rest.get(..run_len).unwrap_or_default();
            match katakana_digit_count(run) {
                Some(count) => digits += count,
                None => digits = 0,
            }
            rest = rest.get(run_len..).unwrap_or_default();
        } else {
            if !matches!(c, '、' | '・' | '-' | ' ' | '，' | ',') {
                digits = 0;
            }
            rest = rest.get(c.len_utf8()..).unwrap_or_default();
        }
        if digits >= MIN_KATAKANA_DIGITS {
            return true;
        }
    }
    false
}

/// How many digits `run` reads as, if it reads wholly as digits.
fn katakana_digit_count(run: &str) -> Option<usize> {
    let mut rest = run;
    let mut count = 0;
    while !rest.is_empty() {
        let digit = KATAKANA_DIGITS
            .iter()
            .find(|digit| rest.starts_with(*digit))?;
        rest = rest.get(digit.len()..).unwrap_or_default();
        count += 1;
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::super::text::fold;
    use super::*;

    fn grouped(text: &str) -> bool {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(fold)
            .collect();
        let digits = [
            "zero",
            "zéro",
            "quatre",
            "huit",
            "trois",
            "neuf",
            "восемь",
            "три",
            "пять",
            "семь",
            "dwa",
            "pięć",
            "sıfır",
            "beş",
            "üç",
            "iki",
            "yedi",
        ]
        .map(fold);
        has_grouped_number(words.iter().map(String::as_str), |w| {
            digits.iter().any(|d| d == w)
        })
    }

    #[test]
    fn numbers_read_in_groups_are_found_and_sums_are_not() {
        assert!(grouped(
            "zéro quatre, soixante-douze, dix-huit, trente-trois, quarante-neuf"
        ));
        assert!(grouped(
            "восемь девятьсот шестнадцать, сто двадцать три, сорок пять"
        ));
        assert!(grouped("sıfır beş yüz otuz üç, iki yüz on iki"));
        assert!(!grouped("twenty or thirty seats, for forty days"));
        assert!(!grouped("два миллиона пятьсот тысяч рублей"));
        assert!(has_katakana_number(
            "担当直通：ゼロサン、ゴーロクナナハチ、イチニーサンヨン"
        ));
        assert!(!has_katakana_number("サンプルをゴールまでに"));
    }
}
