//! Quantities in a text, normalised so that one fact written two ways
//! compares equal: an amount (`18k`, `€18,000`, `18 000`, `eighteen
//! thousand`, `18 grand`, and `1.5k a month` for 18k a year), a
//! percentage (`12%`, `twelve percent`), a duration (`90-day`, `three
//! months`) or a date (`30 June 2026`, `June 30, 2026`, `30/06/2026`).
//!
//! Word n-grams cannot see that `eighteen thousand` restates `18k`; the
//! echo rule compares these values instead.

use std::sync::LazyLock;

use super::text::{Text, fold, is_currency_sign};
use super::word_map::{WordMap, WordSet};

/// One quantity, normalised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Quantity {
    /// An amount; `per_year` is the amount over a year when it is given
    /// per week, month, quarter or year.
    Amount { value: f64, per_year: Option<f64> },
    /// A percentage.
    Percent(f64),
    /// A duration in days (a month is 30, a year 360, so that `12 months`
    /// and `a year` meet).
    Duration(f64),
    /// A day of a month, with its year if written.
    Date {
        year: Option<u32>,
        month: u32,
        day: u32,
    },
}

impl Quantity {
    /// Whether the two state the same fact.
    pub(super) fn same_fact(&self, other: &Quantity) -> bool {
        let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
        match (*self, *other) {
            (Quantity::Percent(a), Quantity::Percent(b))
            | (Quantity::Duration(a), Quantity::Duration(b)) => same(a, b),
            (
                Quantity::Date { year, month, day },
                Quantity::Date {
                    year: other_year,
                    month: other_month,
                    day: other_day,
                },
            ) => {
                month == other_month
                    && day == other_day
                    && (year.is_none() || other_year.is_none() || year == other_year)
            }
            (
                Quantity::Amount { value, per_year },
                Quantity::Amount {
                    value: other_value,
                    per_year: other_per_year,
                },
            ) => {
                let mine = [Some(value), per_year];
                let theirs = [Some(other_value), other_per_year];
                mine.iter()
                    .flatten()
                    .any(|a| theirs.iter().flatten().any(|b| same(*a, *b)))
            }
            _ => false,
        }
    }
}

/// One piece of a text as the quantity reader sees it.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Number(f64),
    Date {
        year: Option<u32>,
        month: u32,
        day: u32,
    },
    Word(String),
    Symbol(char),
}

/// The quantities `text` states.
pub(super) fn quantities(text: &Text) -> Vec<Quantity> {
    let spelled = || {
        text.tokens
            .iter()
            .any(|token| NUMBER_WORDS.contains(&token.text))
    };
    if !text.digits().bytes().any(|b| b.is_ascii_digit()) && !spelled() {
        // No digit and no number word: nothing to read.
        return Vec::new();
    }
    let items = items(&text.lower);
    let mut found = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let (quantity, used) = read_quantity(&items, i);
        if let Some(quantity) = quantity {
            found.push(quantity);
        }
        i += used.max(1);
    }
    found
}

/// Splits a lower-cased text into numbers, numeric dates, words and
/// symbols.
fn items(text: &str) -> Vec<Item> {
    let chars: Vec<char> = text.chars().collect();
    let mut items = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let rest = chars.get(i..).unwrap_or_default();
        if c.is_ascii_digit() {
            if let Some((date, len)) = numeric_date(rest) {
                items.push(date);
                i += len;
            } else {
                let (number, len) = number(rest);
                items.push(Item::Number(number));
                i += len.max(1);
            }
        } else if is_east_asian(c) {
            // Chinese, Japanese and Korean write a unit onto its number
            // and the next word onto the unit (`8月15日前`): each
            // character is read alone.
            items.push(Item::Word(c.to_string()));
            i += 1;
        } else if c.is_alphabetic() {
            let word: String = rest
                .iter()
                .take_while(|c| c.is_alphabetic() && !is_east_asian(**c))
                .collect();
            i += word.chars().count();
            items.push(Item::Word(word));
        } else if c == '٪' {
            items.push(Item::Symbol('%'));
            i += 1;
        } else {
            if !c.is_whitespace() {
                items.push(Item::Symbol(c));
            }
            i += 1;
        }
    }
    items
}

fn digit_run(chars: &[char]) -> usize {
    chars.iter().take_while(|c| c.is_ascii_digit()).count()
}

fn parse_digits(chars: &[char]) -> Option<u32> {
    chars.iter().collect::<String>().parse().ok()
}

/// `30/06/2026`, `30.06.2026`, `2026-06-30` at the start of `chars`.
fn numeric_date(chars: &[char]) -> Option<(Item, usize)> {
    let first = digit_run(chars);
    let separator = *chars.get(first)?;
    if !matches!(separator, '/' | '.' | '-') {
        return None;
    }
    let second_start = first + 1;
    let second = digit_run(chars.get(second_start..)?);
    if chars.get(second_start + second) != Some(&separator) {
        return None;
    }
    let third_start = second_start + second + 1;
    let third = digit_run(chars.get(third_start..)?);
    let a = parse_digits(chars.get(..first)?)?;
    let b = parse_digits(chars.get(second_start..second_start + second)?)?;
    let c = parse_digits(chars.get(third_start..third_start + third)?)?;
    let (year, month, day) = match (first, second, third) {
        (4, 1..=2, 1..=2) => (a, b, c),
        (1..=2, 1..=2, 4) => (c, b, a),
        (1..=2, 1..=2, 2) => (2000 + c, b, a),
        _ => return None,
    };
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((
        Item::Date {
            year: Some(year),
            month,
            day,
        },
        third_start + third,
    ))
}

/// A number at the start of `chars` with its grouping: `18,000`,
/// `18.000` and `18 000` are eighteen thousand, `1.5` and `1,5` one and a
/// half. A separator followed by exactly three digits groups thousands;
/// the last one followed by one or two digits is the decimal point.
fn number(chars: &[char]) -> (f64, usize) {
    let mut groups: Vec<String> = vec![chars.iter().take_while(|c| c.is_ascii_digit()).collect()];
    let mut separators: Vec<char> = Vec::new();
    let mut i = groups.first().map_or(0, String::len);
    while let Some(&separator) = chars.get(i) {
        if !matches!(separator, ',' | '.' | ' ') {
            break;
        }
        let run = digit_run(chars.get(i + 1..).unwrap_or_default());
        let thousands = run == 3;
        let decimal = (1..=2).contains(&run) && separator != ' ';
        if run == 0 || !(thousands || decimal) || (separator == ' ' && !thousands) {
            break;
        }
        separators.push(separator);
        groups.push(
            chars
                .get(i + 1..i + 1 + run)
                .unwrap_or_default()
                .iter()
                .collect(),
        );
        i += 1 + run;
        if decimal {
            break;
        }
    }
    let decimal_last = groups.last().is_some_and(|g| g.len() != 3) && groups.len() > 1;
    let (whole, fraction) = match groups.split_last() {
        Some((last, rest)) if decimal_last => (rest.concat(), last.clone()),
        _ => (groups.concat(), String::new()),
    };
    let value = format!("{whole}.{fraction}0").parse().unwrap_or(0.0);
    (value, i)
}

/// Magnitudes after a number.
fn magnitude(word: &str) -> Option<f64> {
    Some(match word {
        "k" | "thousand" | "thousands" | "grand" | "tausend" | "mil" | "mille" | "тыс"
        | "тысяч" | "тысячи" | "tys" | "tysięcy" | "bin" | "nghìn" | "ngàn" | "ألف" | "آلاف"
        | "千" => 1e3,
        "万" | "萬" | "만" => 1e4,
        "lakh" | "lakhs" | "लाख" => 1e5,
        "m" | "mn" | "mm" | "mio" | "million" | "millions" | "millionen" | "millones"
        | "milioni" | "milhões" | "milhão" | "млн" | "миллион" | "миллиона" | "миллионов"
        | "mln" | "milionów" | "miliony" | "milion" | "milyon" | "triệu" | "مليون" | "ملايين" => {
            1e6
        }
        "crore" | "crores" | "करोड़" => 1e7,
        "億" | "亿" | "억" => 1e8,
        "bn" | "b" | "billion" | "billions" | "mrd" | "milliard" | "milliards" | "млрд" | "mld"
        | "milyar" | "tỷ" | "مليار" => 1e9,
        _ => return None,
    })
}

fn is_east_asian(c: char) -> bool {
    super::text::is_east_asian(c)
}

/// Units of time, and their length in days.
pub(super) const UNITS: [(&str, f64); 42] = [
    // Days in the other languages of the tables (`60 días`, `90 ngày`,
    // `30 дней`), and Chinese's and Korean's day counts.
    ("días", 1.0),
    ("dias", 1.0),
    ("jours", 1.0),
    ("tage", 1.0),
    ("tagen", 1.0),
    ("giorni", 1.0),
    ("дней", 1.0),
    ("дня", 1.0),
    ("dni", 1.0),
    ("gün", 1.0),
    ("ngày", 1.0),
    ("दिन", 1.0),
    ("يوم", 1.0),
    ("يوما", 1.0),
    ("天", 1.0),
    ("日", 1.0),
    ("일", 1.0),
    ("meses", 30.0),
    ("mois", 30.0),
    ("monate", 30.0),
    ("mesi", 30.0),
    ("месяцев", 30.0),
    ("miesięcy", 30.0),
    ("ay", 30.0),
    ("tháng", 30.0),
    ("años", 360.0),
    ("anos", 360.0),
    ("day", 1.0),
    ("days", 1.0),
    ("week", 7.0),
    ("weeks", 7.0),
    ("wk", 7.0),
    ("wks", 7.0),
    ("month", 30.0),
    ("months", 30.0),
    ("mo", 30.0),
    ("mos", 30.0),
    ("quarter", 90.0),
    ("quarters", 90.0),
    ("year", 360.0),
    ("years", 360.0),
    ("yr", 360.0),
];

fn unit(word: &str) -> Option<f64> {
    UNITS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, days)| *days)
}

/// Adverbs of period: how many of them make a year.
fn per_year_adverb(word: &str) -> Option<f64> {
    Some(match word {
        "weekly" => 52.0,
        "monthly" => 12.0,
        "quarterly" => 4.0,
        "yearly" | "annually" | "annual" => 1.0,
        _ => return None,
    })
}

fn is_currency(item: &Item) -> bool {
    match item {
        Item::Symbol(c) => is_currency_sign(*c),
        Item::Word(word) => matches!(
            word.as_str(),
            "元" | "円"
                | "원"
                | "zł"
                | "zl"
                | "pln"
                | "руб"
                | "рублей"
                | "рубля"
                | "tl"
                | "lira"
                | "đồng"
                | "dong"
                | "vnd"
                | "aed"
                | "درهم"
                | "dirham"
                | "dirhams"
                | "rs"
                | "rupees"
                | "krw"
                | "won"
                | "cny"
                | "rmb"
                | "yuan"
                | "sar"
                | "riyal"
                | "dólares"
                | "eur"
                | "euro"
                | "euros"
                | "usd"
                | "dollar"
                | "dollars"
                | "gbp"
                | "pounds"
                | "chf"
                | "francs"
                | "sek"
                | "nok"
                | "dkk"
                | "jpy"
                | "yen"
        ),
        _ => false,
    }
}

fn is_percent(items: &[Item], at: usize) -> Option<usize> {
    match (items.get(at), items.get(at + 1)) {
        (Some(Item::Symbol('%')), _) => Some(1),
        (Some(Item::Word(word)), _) if matches!(word.as_str(), "percent" | "pct" | "prozent") => {
            Some(1)
        }
        (Some(Item::Word(per)), Some(Item::Word(cent)))
            if matches!(per.as_str(), "per" | "pour" | "por") && cent.starts_with("c") =>
        {
            Some(2)
        }
        _ => None,
    }
}

fn word_at(items: &[Item], at: usize) -> Option<&str> {
    match items.get(at) {
        Some(Item::Word(word)) => Some(word.as_str()),
        _ => None,
    }
}

/// The English number words below a hundred.
const UNITS_AND_TENS: [&str; 28] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
];

/// Those words folded, to tell whether a text spells a number at all.
static NUMBER_WORDS: LazyLock<WordSet> =
    LazyLock::new(|| UNITS_AND_TENS.iter().map(|word| fold(word)).collect());

/// The value of English number words from `at` (`eighteen thousand`,
/// `twenty-five`), and how many items they take.
fn number_words(items: &[Item], at: usize) -> Option<(f64, usize)> {
    let small = |word: &str| -> Option<f64> {
        let index = UNITS_AND_TENS.iter().position(|known| *known == word)?;
        Some(if index < 20 {
            index as f64
        } else {
            (index as f64 - 18.0) * 10.0
        })
    };
    let (mut total, mut current, mut used, mut any) = (0.0, 0.0, 0, false);
    let mut i = at;
    loop {
        match items.get(i) {
            Some(Item::Word(word)) => {
                if let Some(value) = small(word) {
                    current += value;
                } else if word == "hundred" && any {
                    current *= 100.0;
                } else if let Some(scale) = magnitude(word).filter(|_| any && word.len() > 2) {
                    total += current * scale;
                    current = 0.0;
                } else if word == "and" && any {
                    // `two hundred and fifty`
                } else {
                    break;
                }
                any = true;
                i += 1;
                used = i - at;
            }
            Some(Item::Symbol('-')) if any => i += 1,
            _ => break,
        }
    }
    any.then_some((total + current, used))
}

/// The names of the months in the other languages of the tables, each
/// row January to December, as they are written after a day: Russian's
/// and Polish's in the genitive (`1 июля`, `30 kwietnia`); Turkish's
/// suffix comes after an apostrophe (`31 Ekim'den`), which ends the word.
const OTHER_MONTHS: [[&str; 12]; 11] = [
    [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    [
        "janeiro",
        "fevereiro",
        "março",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
    ],
    [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    [
        "januar",
        "februar",
        "märz",
        "april",
        "mai",
        "juni",
        "juli",
        "august",
        "september",
        "oktober",
        "november",
        "dezember",
    ],
    [
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ],
    [
        "января",
        "февраля",
        "марта",
        "апреля",
        "мая",
        "июня",
        "июля",
        "августа",
        "сентября",
        "октября",
        "ноября",
        "декабря",
    ],
    [
        "январь",
        "февраль",
        "март",
        "апрель",
        "май",
        "июнь",
        "июль",
        "август",
        "сентябрь",
        "октябрь",
        "ноябрь",
        "декабрь",
    ],
    [
        "stycznia",
        "lutego",
        "marca",
        "kwietnia",
        "maja",
        "czerwca",
        "lipca",
        "sierpnia",
        "września",
        "października",
        "listopada",
        "grudnia",
    ],
    [
        "ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim",
        "kasım", "aralık",
    ],
    [
        "يناير",
        "فبراير",
        "مارس",
        "أبريل",
        "مايو",
        "يونيو",
        "يوليو",
        "أغسطس",
        "سبتمبر",
        "أكتوبر",
        "نوفمبر",
        "ديسمبر",
    ],
    [
        "जनवरी",
        "फ़रवरी",
        "मार्च",
        "अप्रैल",
        "मई",
        "जून",
        "जुलाई",
        "अगस्त",
        "सितंबर",
        "अक्टूबर",
        "नवंबर",
        "दिसंबर",
    ],
];

/// Every month name of [`OTHER_MONTHS`] with its number, looked up once
/// per word read.
static MONTHS: LazyLock<WordMap<u32>> = LazyLock::new(|| {
    OTHER_MONTHS
        .iter()
        .flat_map(|names| names.iter().zip(1..))
        .map(|(name, month)| ((*name).to_owned(), month))
        .collect()
});

/// The month a word names, in any language of the tables.
fn month(word: &str) -> Option<u32> {
    english_month(word).or_else(|| MONTHS.get(word).copied())
}

/// The month a word names, in English.
fn english_month(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    MONTHS
        .iter()
        .position(|name| *name == word || (word.len() == 3 && name.starts_with(word)))
        .and_then(|index| u32::try_from(index + 1).ok())
}

fn small_integer(value: f64, range: std::ops::RangeInclusive<u32>) -> Option<u32> {
    let whole = value as u32;
    (value.fract() == 0.0 && range.contains(&whole)).then_some(whole)
}

/// The quantity that starts at `at`, if any, and how many items it takes.
fn read_quantity(items: &[Item], at: usize) -> (Option<Quantity>, usize) {
    match items.get(at) {
        Some(Item::Date { year, month, day }) => (
            Some(Quantity::Date {
                year: *year,
                month: *month,
                day: *day,
            }),
            1,
        ),
        Some(Item::Symbol('%')) => match items.get(at + 1) {
            // Turkish writes the sign first: `%20`.
            Some(Item::Number(value)) => (Some(Quantity::Percent(*value)), 2),
            _ => (None, 1),
        },
        Some(Item::Word(word)) if END_WORDS.contains(&word.as_str()) => {
            // `end of June`, `fin de junio`, `Ende Juni`, `конца июня`
            let mut next = at + 1;
            if word_at(items, next).is_some_and(|w| OF_WORDS.contains(&w)) {
                next += 1;
            }
            match word_at(items, next).and_then(month) {
                Some(month) => (
                    Some(Quantity::Date {
                        year: None,
                        month,
                        day: END_OF_MONTH,
                    }),
                    next + 1 - at,
                ),
                None => (None, 1),
            }
        }
        Some(Item::Word(word)) => {
            if let Some(month) = month(word) {
                // `June 30, 2026`
                if let Some(Item::Number(day)) = items.get(at + 1)
                    && let Some(day) = small_integer(*day, 1..=31)
                {
                    let comma = usize::from(items.get(at + 2) == Some(&Item::Symbol(',')));
                    let year = match items.get(at + 2 + comma) {
                        Some(Item::Number(year)) => small_integer(*year, 1900..=2100),
                        _ => None,
                    };
                    let used = 2 + if year.is_some() { 1 + comma } else { 0 };
                    return (Some(Quantity::Date { year, month, day }), used);
                }
                return (None, 1);
            }
            match number_words(items, at) {
                Some((value, used)) => measure(items, at, value, used, false),
                None => (None, 1),
            }
        }
        Some(Item::Number(value)) => {
            if let Some(found) = east_asian_date(items, at, *value) {
                return found;
            }
            // `30 June 2026`, `30th of June`, `28 de febrero`
            let mut next = at + 1;
            if word_at(items, next).is_some_and(|w| matches!(w, "st" | "nd" | "rd" | "th")) {
                next += 1;
            }
            if word_at(items, next).is_some_and(|w| OF_WORDS.contains(&w)) {
                next += 1;
            }
            if let (Some(day), Some(month)) = (
                small_integer(*value, 1..=31),
                word_at(items, next).and_then(month),
            ) {
                let year = match items.get(next + 1) {
                    Some(Item::Number(year)) => small_integer(*year, 1900..=2100),
                    _ => None,
                };
                let used = next + 1 - at + usize::from(year.is_some());
                return (Some(Quantity::Date { year, month, day }), used);
            }
            let currency_before = at
                .checked_sub(1)
                .and_then(|i| items.get(i))
                .is_some_and(is_currency);
            measure(items, at, *value, 1, currency_before)
        }
        _ => (None, 1),
    }
}

/// The day a date `end of June` is given: no month has it, so it meets
/// only another end of the same month (`6月末`).
const END_OF_MONTH: u32 = 0;

/// Words for a month's end before it.
const END_WORDS: [&str; 9] = [
    "end",
    "fin",
    "fine",
    "ende",
    "конца",
    "конец",
    "koniec",
    "końca",
    "sonu",
];

/// `of` between a day or an end and its month.
const OF_WORDS: [&str; 4] = ["of", "de", "di", "do"];

/// A date as Chinese, Japanese and Korean write it: `8月15日`, `9월
/// 30일`, `6月末` (the end of June); `None` unless a month follows the
/// number at `at`.
fn east_asian_date(items: &[Item], at: usize, value: f64) -> Option<(Option<Quantity>, usize)> {
    let month = small_integer(value, 1..=12)?;
    if !matches!(word_at(items, at + 1), Some("月" | "월")) {
        return None;
    }
    let date = |day| Quantity::Date {
        year: None,
        month,
        day,
    };
    match (items.get(at + 2), word_at(items, at + 3)) {
        (Some(Item::Number(day)), Some("日" | "일" | "号")) => {
            Some((Some(date(small_integer(*day, 1..=31)?)), 4))
        }
        (Some(Item::Word(end)), _) if end == "末" => Some((Some(date(END_OF_MONTH)), 3)),
        _ => None,
    }
}

/// What follows a number of `used` items at `at`: a magnitude, then a
/// percent sign, a unit of time, or a currency and a period.
fn measure(
    items: &[Item],
    at: usize,
    value: f64,
    used: usize,
    currency_before: bool,
) -> (Option<Quantity>, usize) {
    let mut next = at + used;
    let mut value = value;
    let mut significant = currency_before;
    if let Some(scale) = word_at(items, next).and_then(magnitude) {
        value *= scale;
        significant = true;
        next += 1;
    } else if used > 1 {
        // Number words with a scale (`eighteen thousand`) are an amount.
        significant = value >= 1000.0;
    }
    if let Some(len) = is_percent(items, next) {
        return (Some(Quantity::Percent(value)), next + len - at);
    }
    let hyphen = usize::from(items.get(next) == Some(&Item::Symbol('-')));
    if let Some(days) = word_at(items, next + hyphen).and_then(unit) {
        return (
            Some(Quantity::Duration(value * days)),
            next + hyphen + 1 - at,
        );
    }
    if items.get(next).is_some_and(is_currency) {
        significant = true;
        next += 1;
    }
    let per_year = per_year(items, next);
    if let Some((_, len)) = per_year {
        next += len;
    }
    let is_year = !significant && value.fract() == 0.0 && (1900.0..=2100.0).contains(&value);
    let large = value >= 1000.0 && !is_year;
    (
        (significant || large).then_some(Quantity::Amount {
            value,
            per_year: per_year.map(|(times, _)| value * times),
        }),
        next - at,
    )
}

/// `a month`, `per year`, `/mo`, `monthly` at `at`: how many of the
/// period make a year, and the items it takes.
fn per_year(items: &[Item], at: usize) -> Option<(f64, usize)> {
    if let Some(times) = word_at(items, at).and_then(per_year_adverb) {
        return Some((times, 1));
    }
    let introduces = match items.get(at) {
        Some(Item::Symbol('/')) => true,
        Some(Item::Word(word)) => matches!(word.as_str(), "a" | "an" | "per" | "each" | "every"),
        _ => false,
    };
    let days = word_at(items, at + 1).and_then(unit)?;
    introduces.then_some((360.0 / days, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Quantity> {
        quantities(&Text::new(text))
    }

    fn same(a: &str, b: &str) -> bool {
        let (a, b) = (read(a), read(b));
        a.iter().any(|x| b.iter().any(|y| x.same_fact(y)))
    }

    #[test]
    fn one_fact_in_many_spellings() {
        for spelling in [
            "18k",
            "€18,000",
            "$18K",
            "18 000",
            "18.000 EUR",
            "eighteen thousand",
            "18 grand",
            "1.5k a month",
            "1,500 per month",
        ] {
            assert!(same("a ceiling of 18k", spelling), "{spelling:?}");
        }
        assert!(same("a 12% discount", "twelve percent"));
        assert!(same("a 90-day notice", "three months"));
        assert!(same("30 June 2026", "June 30, 2026"));
        assert!(same("30 June 2026", "30/06/2026"));
        assert!(same("30 June 2026", "2026-06-30"));
    }

    #[test]
    fn different_facts_and_non_quantities() {
        assert!(!same("a ceiling of 18k", "20k"));
        assert!(!same("a ceiling of 18k", "18 months"));
        assert!(!same("a 90-day notice", "a 60-day notice"));
        assert!(read("in 2026, one of two, Q3, 3 sites").is_empty());
        assert!(read("٩٠ days").contains(&Quantity::Duration(90.0)));
    }
}
