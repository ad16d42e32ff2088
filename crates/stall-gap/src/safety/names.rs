//! The counterparty's name, whole or in part, however it is written, and
//! without blocking the ordinary words a name may also be.
//!
//! `Helios Grid` is blocked as a whole and as `Helios`, but `grid` alone is
//! an ordinary word: a question about a grid connection must pass. A name
//! is also recognised in the forms a reader would still take for it: its
//! nicknames (`Peggy` for Margaret), its parts run together (`OBrien`),
//! spelled out letter by letter (`G r a c e`), and written in Cyrillic or
//! Greek (`Петров`).
//!
//! Where a form is also an ordinary word, context decides. A word that is
//! also a name (`Grace`, `Mark`) counts where it is capitalised and not
//! merely opening a sentence; a month, a weekday or a place (`June`,
//! `Jordan`), and a nickname that is also a word (`Will`, `Bill`), count
//! only in a name's position: before a verb of agreeing, meeting or saying,
//! after a title or a verb addressed to a person, or with a possessive.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use super::MIN_FORBIDDEN_IDENTIFIER_LENGTH;
use super::text::{
    Text, Token, contains_phrase, fold, folded_set, folded_words, is_apostrophe, is_east_asian,
    is_han, is_hangul, marks_agree,
};
use super::word_map::{WordMap, WordSet};

/// How a word that may be part of a name is read in ordinary text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Commonness {
    /// An ordinary word only.
    Word,
    /// A word that is also a name.
    WordAndName,
    /// A month, a weekday or a place.
    CalendarOrPlace,
}

/// Every word with a commonness, folded: the common-word list (`word`, or
/// `word*` for one that is also a name), then the calendar and place list.
static COMMON_WORDS: LazyLock<WordMap<Commonness>> = LazyLock::new(|| {
    let words =
        data_lines(include_str!("common_words.txt")).map(|line| match line.strip_suffix('*') {
            Some(word) => (fold(word), Commonness::WordAndName),
            None => (fold(line), Commonness::Word),
        });
    let places = data_lines(include_str!("calendar_and_places.txt"))
        .map(|line| (fold(line), Commonness::CalendarOrPlace));
    words.chain(places).collect()
});

fn data_lines(data: &str) -> impl Iterator<Item = &str> {
    data.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Given names with their nicknames, each group folded, with an index by
/// the phonetic key of the given name and by every member.
struct Nicknames {
    groups: Vec<Vec<String>>,
    by_key: BTreeMap<String, Vec<usize>>,
    by_member: BTreeMap<String, Vec<usize>>,
}

static NICKNAMES: LazyLock<Nicknames> = LazyLock::new(|| {
    let groups: Vec<Vec<String>> = data_lines(include_str!("nicknames.txt"))
        .map(|line| line.split_whitespace().map(fold).collect())
        .collect();
    let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut by_member: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, group) in groups.iter().enumerate() {
        if let Some(given) = group.first() {
            by_key.entry(phonetic_key(given)).or_default().push(index);
        }
        for member in group {
            by_member.entry(member.clone()).or_default().push(index);
        }
    }
    Nicknames {
        groups,
        by_key,
        by_member,
    }
});

impl Nicknames {
    /// The other names of `part`: for a nickname, its given names and
    /// their other nicknames; `by_sound`, also the nicknames of a given name
    /// that sounds like it (`Aleksandr` finds Alexander's).
    fn variants_of(&self, part: &str, by_sound: bool) -> BTreeSet<&str> {
        let by_key = by_sound
            .then(|| self.by_key.get(&phonetic_key(part)))
            .flatten()
            .into_iter()
            .flatten();
        let by_member = self.by_member.get(part).into_iter().flatten();
        by_key
            .chain(by_member)
            .filter_map(|index| self.groups.get(*index))
            .flatten()
            .map(String::as_str)
            .filter(|variant| *variant != part)
            .collect()
    }
}

/// Where a form of the name counts as the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// As a whole word, anywhere.
    Anywhere,
    /// Capitalised, and not only because it opens a sentence.
    Capitalised,
    /// In a name's position only.
    NamePosition,
}

/// One form of a name and where it counts.
#[derive(Debug)]
struct Form {
    text: String,
    reading: Reading,
    /// Whether the form is also a month, a weekday or a place.
    place_or_time: bool,
    /// Its letters with diacritics, as given; `None` when the name has
    /// none anywhere (see [`marks_agree`]).
    marks: Option<String>,
    /// The fewest letters it needs for its declined forms to count (see
    /// [`is_declined`]).
    min_declined: usize,
}

impl Form {
    fn new(text: &str, reading: Reading) -> Self {
        Form {
            text: text.to_owned(),
            reading,
            place_or_time: COMMON_WORDS.get(text) == Some(&Commonness::CalendarOrPlace),
            marks: None,
            min_declined: MIN_DECLINED_LENGTH,
        }
    }

    /// The form of a part written with `marks` (`Some("")` for a part
    /// written without any, in a name that has some elsewhere).
    fn marked(mut self, marks: Option<&str>) -> Self {
        self.marks = marks.map(str::to_owned);
        self
    }
}

/// Legal forms of a company, which name no one: `GmbH`, `sp. z o.o.`,
/// `ООО` (whose letters the skeleton reads as `000`).
const LEGAL_FORMS: &str = "gmbh mbh ohg sp ooo оао зао пао llc ltd inc corp plc pvt pte llp \
    sarl srl ltda bv kft tnhh jsc";

/// Words that belong to a legal form only beside one of [`LEGAL_FORMS`]
/// (`sp. z o.o.`, `Công ty TNHH`); alone, each may be a name's (`Công`
/// of `Phạm Công Thành`, `O` of `O'Brien`).
const LEGAL_FORM_PARTS: &str = "ag kg ug co z o oo sa sas sl spa sac nv ab as oy aps ao ип cong \
    ty a s ş";

static LEGAL_FORM_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(LEGAL_FORMS));
static LEGAL_FORM_PART_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(LEGAL_FORM_PARTS));

/// Cities a Chinese company's name opens with.
const CHINESE_CITIES: [&str; 16] = [
    "北京", "上海", "深圳", "广州", "杭州", "成都", "南京", "武汉", "天津", "重庆", "苏州", "西安",
    "香港", "台北", "东京", "大阪",
];

/// Trades a company's name ends with, before its legal form.
const TRADES: [&str; 12] = [
    "科技",
    "电子",
    "实业",
    "贸易",
    "物流",
    "网络",
    "信息技术",
    "技术",
    "商事",
    "精機",
    "工業",
    "物産",
];

/// Company forms written before or after a name in Chinese, Japanese and
/// Korean, where nothing spaces them off: `株式会社サトウ精機` is also
/// written `サトウ精機`.
const EAST_ASIAN_LEGAL_FORMS: [&str; 9] = [
    "股份有限公司",
    "有限责任公司",
    "有限公司",
    "集团",
    "株式会社",
    "有限会社",
    "合同会社",
    "주식회사",
    "(주)",
];

/// A forbidden name, folded, with every form that is checked.
#[derive(Debug)]
pub(super) struct Name {
    /// The words of a part written with hyphens (`Ji-won`), each a phrase
    /// found as a whole even where its words are short.
    phrases: Vec<Vec<String>>,
    /// The diacritics of the last part as given, when the name has any
    /// (see [`marks_agree`]).
    last_marks: Option<String>,
    whole: Vec<String>,
    squashed: String,
    forms: Vec<Form>,
    east_asian: EastAsian,
}

/// A name's parts written in Chinese characters, kana or hangul, where
/// words are not spaced apart (or, in Korean, carry their particles) and
/// a name is written with an honorific after it, often without its given
/// or its family name.
#[derive(Debug, Default)]
struct EastAsian {
    /// Found anywhere in the text: the whole name, its parts run together
    /// or spaced as given, of two characters or more.
    anywhere: Vec<String>,
    /// Found before an honorific: every part, one character too
    /// (`森さん`), and of a one-part name of three or four Chinese
    /// characters or hangul its family and given names (`王小明` as
    /// `王先生` or `小明先生`, `김민준` as `김 대표님` or `민준 씨`). Alone,
    /// a part may be an ordinary word (`지원`, "support"; `国庆`, the
    /// National Day), so it counts only where a name stands.
    titled: Vec<String>,
}

/// Words a person's name follows in Chinese and Japanese, where it is the
/// one written to or dealt with (`发给志明`, "send to Zhiming").
const ADDRESSED: [&str; 8] = ["给", "问", "告诉", "联系", "通知", "让", "转告", "請"];

/// Family names of two characters, which a three-character name starts
/// with (`欧阳澜` is 欧阳 and 澜, `남궁세린` is 남궁 and 세린).
const COMPOUND_SURNAMES: [&str; 18] = [
    "欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "令狐", "公孙", "慕容", "尉迟", "长孙", "宇文",
    "남궁", "황보", "제갈", "선우", "독고", "사공",
];

/// Honorifics written after a name, in Japanese, Chinese and Korean.
const HONORIFICS: [&str; 27] = [
    "さん",
    "さま",
    "様",
    "氏",
    "先生",
    "君",
    "くん",
    "ちゃん",
    "殿",
    "社長",
    "部長",
    "女士",
    "小姐",
    "老师",
    "总",
    "经理",
    "씨",
    "님",
    "선생",
    "대표",
    "팀장",
    "과장",
    "부장",
    "이사",
    "사장",
    "실장",
    "课长",
];

impl EastAsian {
    fn of(name: &str) -> Self {
        let mut found = EastAsian::default();
        let plain = super::text::plain(name);
        let parts: Vec<&str> = plain
            .split(|c: char| !is_east_asian(c))
            .filter(|part| !part.is_empty())
            .collect();
        if parts.is_empty() {
            return found;
        }
        let whole = [parts.concat(), parts.join(" ")];
        // A company is named without its legal form too.
        let cores: Vec<String> = whole
            .iter()
            .filter_map(|form| {
                let core = EAST_ASIAN_LEGAL_FORMS
                    .iter()
                    .fold(form.clone(), |core, legal| core.replace(legal, ""));
                (core != *form).then(|| core.trim().to_owned())
            })
            .flat_map(|core| {
                // The brand alone, as a company is spoken of: without its
                // city before it and its trade after it (`深圳蓝鲸云仓科技`
                // as `蓝鲸云仓`).
                let city = CHINESE_CITIES
                    .iter()
                    .find_map(|city| core.strip_prefix(city))
                    .unwrap_or(&core)
                    .to_owned();
                let brand = TRADES
                    .iter()
                    .find_map(|trade| city.strip_suffix(trade))
                    .unwrap_or(&city)
                    .to_owned();
                [core, city, brand]
            })
            .filter(|core| core.chars().count() >= 3)
            .collect();
        let whole: Vec<String> = whole.iter().cloned().chain(cores).collect();
        for form in whole {
            if form.chars().count() >= 2 && !found.anywhere.contains(&form) {
                found.anywhere.push(form);
            }
        }
        for part in &parts {
            found.titled.push((*part).to_owned());
        }
        // A one-part name: a family name of one character (two in a name
        // of four), then the given name.
        if let [part] = parts.as_slice() {
            let chars: Vec<char> = part.chars().collect();
            let compound = COMPOUND_SURNAMES
                .iter()
                .any(|surname| part.starts_with(surname));
            let split = match chars.len() {
                3 if compound => Some(2),
                3 => Some(1),
                4 => Some(2),
                _ => None,
            };
            let one_script =
                chars.iter().all(|c| is_han(*c)) || chars.iter().all(|c| is_hangul(*c));
            if let (Some(at), true) = (split, one_script) {
                found.titled.push(chars.iter().take(at).collect());
                found.titled.push(chars.iter().skip(at).collect());
            }
        }
        found
    }

    fn is_in(&self, plain: &str) -> bool {
        if !plain.chars().any(is_east_asian) {
            return false;
        }
        self.anywhere
            .iter()
            .any(|form| plain.contains(form.as_str()))
            || self.titled.iter().any(|part| {
                plain.match_indices(part.as_str()).any(|(at, _)| {
                    let after = plain.get(at + part.len()..).unwrap_or_default();
                    let after = after.trim_start();
                    let before = plain.get(..at).unwrap_or_default().trim_end();
                    HONORIFICS.iter().any(|title| after.starts_with(title))
                        || (part.chars().count() >= 2
                            && ADDRESSED.iter().any(|verb| before.ends_with(verb)))
                })
            })
    }
}

impl Name {
    /// `None` for a name too short to check.
    pub(super) fn new(name: &str) -> Option<Self> {
        let mut tokens = Text::new(name).tokens;
        if tokens
            .iter()
            .any(|token| LEGAL_FORM_WORDS.contains(&token.text))
        {
            tokens.retain(|token| {
                !LEGAL_FORM_WORDS.contains(&token.text)
                    && !LEGAL_FORM_PART_WORDS.contains(&token.text)
            });
        }
        let whole: Vec<String> = tokens.iter().map(|token| token.text.clone()).collect();
        let name_marked = tokens.iter().any(|token| !token.marks.is_empty());
        let squashed: String = whole.concat();
        if squashed.chars().count() < MIN_FORBIDDEN_IDENTIFIER_LENGTH {
            return None;
        }
        let long_enough = |word: &str| word.chars().count() >= MIN_FORBIDDEN_IDENTIFIER_LENGTH;
        let one_word = whole.len() == 1;
        let mut forms = Vec::new();
        for (index, part) in whole
            .iter()
            .enumerate()
            .filter(|(_, part)| long_enough(part))
        {
            let reading = match COMMON_WORDS.get(part.as_str()) {
                None => Some(Reading::Anywhere),
                Some(Commonness::WordAndName) if !one_word => Some(Reading::Capitalised),
                Some(Commonness::Word) if !one_word => None,
                Some(_) => Some(Reading::NamePosition),
            };
            if let Some(reading) = reading {
                let marks = tokens.get(index).map_or("", |token| token.marks.as_str());
                forms.push(Form::new(part, reading).marked(name_marked.then_some(marks)));
            }
            // A given name is usually written first: only that word's
            // sound is looked up among the given names.
            for variant in NICKNAMES.variants_of(part, index == 0) {
                let reading = if COMMON_WORDS.contains(variant) {
                    Reading::NamePosition
                } else {
                    Reading::Capitalised
                };
                if long_enough(variant) {
                    forms.push(Form::new(variant, reading));
                }
            }
        }
        // Parts run together where the name is written with a hyphen or
        // an apostrophe between them: `Jean-Luc` as `JeanLuc`, `O'Brien`
        // as `OBrien`.
        for start in 0..whole.len() {
            for end in start + 2..=whole.len() {
                if end - start < whole.len()
                    && let Some(run) = whole.get(start..end)
                {
                    forms.push(Form::new(&run.concat(), Reading::Anywhere));
                }
            }
        }
        // The skeleton writes much of Cyrillic in Latin letters (`Сева` as
        // `ceba`), so the script is read from the name as given.
        if name.chars().any(is_cyrillic_or_greek) {
            for form in &mut forms {
                form.min_declined = MIN_CYRILLIC_DECLINED_LENGTH;
            }
        }
        Some(Name {
            last_marks: name_marked
                .then(|| tokens.last().map(|token| token.marks.clone()))
                .flatten(),
            phrases: hyphenated_parts(name),
            whole,
            squashed,
            forms,
            east_asian: EastAsian::of(name),
        })
    }

    /// Whether `text` names this party.
    pub(super) fn is_in(&self, text: &Text) -> bool {
        let several_words = self.whole.len() > 1;
        if several_words && contains_phrase(&text.tokens, &self.whole) {
            return true;
        }
        if self
            .phrases
            .iter()
            .any(|phrase| contains_phrase(&text.tokens, phrase))
        {
            return true;
        }
        if self.is_after_a_title(&text.tokens) {
            return true;
        }
        let words = candidate_words(&text.tokens);
        words.iter().any(|word| {
            // A declined form counts written as a name is, capitalised
            // inside a sentence: `rosso` and `costi` are words, though
            // Rossi and Costa decline to them.
            let declinable = word.capitalised && !word.starts_sentence;
            (several_words && word.text == self.squashed)
                || self.forms.iter().any(|form| {
                    (is_form_or_plural(&word.text, &form.text)
                        || (declinable && is_declined(&word.text, &form.text, form.min_declined)))
                        && marks_agree(word.marks, form.marks.as_deref())
                        && match form.reading {
                            // A name is capitalised where its language
                            // writes: a surname written lower case inside
                            // a sentence is the word it also is (`in weiß`,
                            // `mùa thu`), unless it stands where a name does.
                            Reading::Anywhere if lower_case_inside(word, text) => {
                                in_name_position(&text.tokens, word, form.place_or_time)
                            }
                            Reading::Anywhere => true,
                            Reading::Capitalised => {
                                (word.capitalised && !word.starts_sentence)
                                    || in_name_position(&text.tokens, word, form.place_or_time)
                            }
                            Reading::NamePosition => {
                                in_name_position(&text.tokens, word, form.place_or_time)
                            }
                        }
                })
        }) || self.is_in_another_script(text)
            || self.east_asian.is_in(&text.plain)
    }

    /// The name written in Cyrillic or Greek: the word transliterated is a
    /// form of the name, or sounds like one.
    fn is_in_another_script(&self, text: &Text) -> bool {
        if !text.plain.chars().any(is_cyrillic_or_greek) {
            return false;
        }
        let keys: Vec<(String, &Form)> = self
            .forms
            .iter()
            .filter(|form| form.reading != Reading::NamePosition)
            .map(|form| (phonetic_key(&form.text), form))
            .collect();
        text.plain
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| word.chars().any(is_cyrillic_or_greek))
            .any(|word| {
                let latin = fold(&transliterate(word));
                let key = phonetic_key(&latin);
                let declinable = word.chars().next().is_some_and(char::is_uppercase);
                keys.iter().any(|(form_key, form)| {
                    is_form_or_plural(&latin, &form.text)
                        || (declinable
                            && is_declined(&latin, &form.text, MIN_CYRILLIC_DECLINED_LENGTH))
                        || (key.chars().count() >= MIN_FORBIDDEN_IDENTIFIER_LENGTH
                            && key == *form_key)
                })
            })
    }
}

/// The longest name part read as the ordinary word it may also be when
/// written in lower case, counted in the folded view (where the skeleton
/// writes `m` as `rn` and `ß` as `ss`): such words are short (`weiß`,
/// `koch`, `thu`, `campos`); a longer part in lower case is still the name
/// (`lindqvist`).
const MAX_WORD_LIKE_PART: usize = 7;

/// Whether `word` is written in lower case inside a sentence of a text
/// that capitalises (its first letter is a capital), in a script with
/// case, and short enough to be the word a name part may also be.
fn lower_case_inside(word: &Candidate<'_>, text: &Text) -> bool {
    !word.capitalised
        && word.text.chars().count() <= MAX_WORD_LIKE_PART
        && !word.starts_sentence
        && text.tokens.first().is_some_and(|first| first.capitalised)
        && text.tokens.get(word.first).is_some_and(|token| {
            token
                .text
                .chars()
                .all(|c| c.is_lowercase() || c.is_numeric())
        })
}

/// The words of each part of `name` written with a hyphen or an
/// apostrophe inside it (`Ji-won`, `Al-Omari`), of two words or more.
fn hyphenated_parts(name: &str) -> Vec<Vec<String>> {
    name.split_whitespace()
        .filter(|part| part.contains(['-', '\u{2010}', '\u{2011}']))
        .map(folded_words)
        .filter(|words| {
            words.len() > 1
                && words.iter().map(|w| w.chars().count()).sum::<usize>()
                    >= MIN_FORBIDDEN_IDENTIFIER_LENGTH
        })
        .collect()
}

/// Words of address written before a given name in Vietnamese (`chị
/// Hà`), where a name part is often a single short syllable.
const VIETNAMESE_TITLES: &str = "anh chi chị em co cô chu chú bac bác ong ông ba bà";

static VIETNAMESE_TITLE_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(VIETNAMESE_TITLES));

impl Name {
    /// A name's last part of any length after a title (`Mr Ho`, `chị Hà`),
    /// where a part too short to check alone is still the name.
    ///
    /// The name is written as given: capitalised, with its own diacritics
    /// or none (`có phạt`, "is there a fine", does not name `Phát`).
    /// Vietnamese words of address count only before a name given with
    /// diacritics, as a Vietnamese name is (`Chi porta`, "who brings", is
    /// Italian).
    fn is_after_a_title(&self, tokens: &[Token]) -> bool {
        let Some(last) = self.whole.last().filter(|part| part.chars().count() >= 2) else {
            return false;
        };
        tokens.windows(2).any(|pair| {
            let [title, word] = pair else { return false };
            word.text == *last
                && word.capitalised
                && marks_agree(&word.marks, self.last_marks.as_deref())
                && (TITLE_WORDS.contains(&title.text)
                    || (self.last_marks.is_some() && VIETNAMESE_TITLE_WORDS.contains(&title.text)))
        })
    }
}

/// `lindqvist`, or `lindqvists` as in `the Lindqvists' offer`.
fn is_form_or_plural(word: &str, form: &str) -> bool {
    word.strip_prefix(form)
        .is_some_and(|rest| rest.is_empty() || rest == "s")
}

/// The fewest letters a form has for its declined forms to count: a
/// shorter one would take in words of its own (`Lan` and `lana`).
const MIN_DECLINED_LENGTH: usize = 5;

/// The same for a name written or given in Cyrillic, which declines from
/// four letters (`Дима`, `Диме`) without taking in Latin words.
const MIN_CYRILLIC_DECLINED_LENGTH: usize = 4;

/// Case endings, folded, that the languages which decline names write
/// onto the name (Polish, Russian, Czech, Slovak, the Baltic and South
/// Slavic languages, and Finnish and Hungarian's commonest): `Petrovym`,
/// `Nowaka`, `Wiśniewskiego`.
const CASE_ENDINGS: &str = "a u e y i o om em ym im ow ov ova ovi owi ego emu ej oj ou ach ami     am ie iem ego emu ovych ovym yh ih";

/// Endings that replace a form's last vowel: `Wiśniewski` as
/// `Wiśniewskiego`, `Katarzyna` as `Katarzyny`.
const VOWEL_ENDINGS: &str = "a u e y i o ą ę ie iego iemu im ich ej oj ou";

static CASE_ENDING_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(CASE_ENDINGS));
static VOWEL_ENDING_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(VOWEL_ENDINGS));

/// Whether `word` is `form` declined: a case ending after it, or in place
/// of its last vowel, for a form of `min_length` letters or more
/// ([`MIN_DECLINED_LENGTH`]; a name given in Cyrillic declines from four,
/// `Дима` and `Диме`, where no ordinary Latin word is caught by it).
fn is_declined(word: &str, form: &str, min_length: usize) -> bool {
    if form.chars().count() < min_length || word.len() + 1 < form.len() {
        return false;
    }
    // Polish and Czech drop the `e` of `-ek` as they decline: `Tomek`,
    // `Tomka`, `Tomkowi`.
    if let Some(stem) = form.strip_suffix("ek")
        && let Some(rest) = word
            .strip_prefix(stem)
            .and_then(|rest| rest.strip_prefix('k'))
        && CASE_ENDING_WORDS.contains(rest)
    {
        return true;
    }
    let added = word
        .strip_prefix(form)
        .is_some_and(|rest| CASE_ENDING_WORDS.contains(rest));
    let replaced = form
        .char_indices()
        .next_back()
        .filter(|(_, last)| "aeiouy".contains(*last))
        .and_then(|(at, _)| word.strip_prefix(form.get(..at)?))
        .is_some_and(|rest| VOWEL_ENDING_WORDS.contains(rest));
    added || replaced
}

/// A word of the text, or letters spelled one by one read as a word
/// (`G r a c e`), with the tokens it spans.
struct Candidate<'t> {
    text: Cow<'t, str>,
    capitalised: bool,
    starts_sentence: bool,
    first: usize,
    last: usize,
    marks: &'t str,
}

/// The fewest single letters in a row read as one spelled word.
const MIN_SPELLED_LETTERS: usize = 3;

fn candidate_words(tokens: &[Token]) -> Vec<Candidate<'_>> {
    let single = |token: &Token| token.text.chars().count() == 1;
    let mut words: Vec<Candidate> = tokens
        .iter()
        .enumerate()
        .map(|(index, token)| Candidate {
            text: Cow::Borrowed(token.text.as_str()),
            capitalised: token.capitalised,
            starts_sentence: token.starts_sentence(),
            first: index,
            last: index,
            marks: token.marks.as_str(),
        })
        .collect();
    let mut start = 0;
    while start < tokens.len() {
        let run = tokens
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|token| single(token))
            .count();
        if run >= MIN_SPELLED_LETTERS
            && let Some(first) = tokens.get(start)
        {
            words.push(Candidate {
                text: Cow::Owned(
                    tokens
                        .get(start..start + run)
                        .unwrap_or_default()
                        .iter()
                        .map(|token| token.text.as_str())
                        .collect(),
                ),
                capitalised: first.capitalised,
                starts_sentence: first.starts_sentence(),
                first: start,
                last: start + run - 1,
                marks: "",
            });
        }
        start += run.max(1);
    }
    words
}

/// Titles before a name.
const TITLES: &str = "mr mrs ms miss mx dr prof sir madam dame lord lady herr frau senor \
    senora sr sra srta monsieur madame mme mlle signor signora sig dott";

/// Verbs whose object is a person, before a name: `ask Bill`.
const VERBS_BEFORE: &str = "ask asks asked tell tells told call calls called email emails \
    emailed ping message contact thank thanks remind invite cc";

/// Verbs of agreeing, meeting or saying, after a name: `June accepts`.
const VERBS_AFTER: &str = "agree agrees agreed accept accepts accepted sign signs signed say \
    says said think thinks thought want wants wanted prefer prefers preferred offer offers \
    offered meet meets met reply replies replied decline declines declined approve approves \
    approved propose proposes proposed insist insists insisted ask asks asked confirm \
    confirms confirmed refuse refuses refused counter counters countered wrote told agreeing \
    accepting signing";

/// What a party has in a negotiation: after a month's or a place's
/// possessive (`June's offer`), the word is a name; `Jordan's capital` is
/// a country's.
const STANCES: &str = "offer offers price prices terms team agent proposal side position     budget deal counteroffer bid draft reply answer email message view decision";

static STANCE_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(STANCES));

/// Words that may stand between a name and its verb: `June would accept`.
const BETWEEN: &str = "would will could can did does do may might should must has have had \
    is was really also still not already then never";

static TITLE_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(TITLES));
static BEFORE_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(VERBS_BEFORE));
static AFTER_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(VERBS_AFTER));
static BETWEEN_WORDS: LazyLock<WordSet> = LazyLock::new(|| folded_set(BETWEEN));

/// Whether the word stands where only a person's name would: after a
/// title or a verb addressed to a person, before an apostrophe `s`, or
/// before a verb of agreeing, meeting or saying (one auxiliary between).
///
/// A month's or a place's possessive counts only before a party's
/// [`STANCES`].
fn in_name_position(tokens: &[Token], word: &Candidate<'_>, place_or_time: bool) -> bool {
    let previous = word.first.checked_sub(1).and_then(|i| tokens.get(i));
    let next = tokens.get(word.last + 1);
    let after_title = previous.is_some_and(|token| {
        TITLE_WORDS.contains(&token.text) || BEFORE_WORDS.contains(&token.text)
    });
    let possessive = next.is_some_and(|token| token.text == "s" && is_apostrophe(token.before))
        && (!place_or_time
            || tokens
                .get(word.last + 2)
                .is_some_and(|token| STANCE_WORDS.contains(&token.text)));
    let verb_after = next.is_some_and(|token| AFTER_WORDS.contains(&token.text))
        || (next.is_some_and(|token| BETWEEN_WORDS.contains(&token.text))
            && tokens
                .get(word.last + 2)
                .is_some_and(|token| AFTER_WORDS.contains(&token.text)));
    after_title || possessive || verb_after
}

fn is_cyrillic_or_greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' | '\u{0400}'..='\u{04FF}')
}

/// A Cyrillic or Greek word in Latin letters, as names are commonly
/// romanised (Russian BGN/PCGN-like, modern Greek ELOT-like), accents
/// dropped. Other characters are kept.
fn transliterate(word: &str) -> String {
    let lower: Vec<char> = word
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = lower.get(i) {
        let next = lower.get(i + 1).copied();
        let greek_pair = match (c, next) {
            ('ο', Some('υ')) => Some("ou"),
            ('α', Some('ι')) => Some("ai"),
            ('ε', Some('ι')) => Some("ei"),
            ('ο', Some('ι')) => Some("oi"),
            ('γ', Some('κ')) => Some("g"),
            ('γ', Some('γ')) => Some("ng"),
            ('μ', Some('π')) => Some("b"),
            ('ν', Some('τ')) => Some("d"),
            _ => None,
        };
        if let Some(pair) = greek_pair {
            out.push_str(pair);
            i += 2;
            continue;
        }
        match romanise(c) {
            Some(latin) => out.push_str(latin),
            None => out.push(c),
        }
        i += 1;
    }
    out
}

fn romanise(c: char) -> Option<&'static str> {
    Some(match c {
        'а' | 'α' => "a",
        'б' => "b",
        'в' | 'β' => "v",
        'г' | 'ґ' | 'γ' => "g",
        'д' | 'δ' => "d",
        'е' | 'ё' | 'э' | 'ε' => "e",
        'є' => "ye",
        'ж' => "zh",
        'з' | 'ζ' => "z",
        'и' | 'і' | 'η' | 'ι' => "i",
        'ї' => "yi",
        'й' | 'ы' | 'υ' => "y",
        'к' | 'κ' => "k",
        'л' | 'λ' => "l",
        'м' | 'μ' => "m",
        'н' | 'ν' => "n",
        'о' | 'ο' | 'ω' => "o",
        'п' | 'π' => "p",
        'р' | 'ρ' => "r",
        'с' | 'σ' | 'ς' => "s",
        'т' | 'τ' => "t",
        'у' => "u",
        'ф' | 'φ' => "f",
        'х' => "kh",
        'χ' => "ch",
        'ц' => "ts",
        'ч' => "ch",
        'ш' => "sh",
        'щ' => "shch",
        'ъ' | 'ь' => "",
        'ю' => "yu",
        'я' => "ya",
        'θ' => "th",
        'ξ' => "x",
        'ψ' => "ps",
        _ => return None,
    })
}

/// A rough sound of a Latin-letter name, for matching its spellings in
/// other scripts and its given names: letters that sound alike are made
/// one (`c` before `e`, `i` or `y` is `s`, else `k`; `q` is `k`, `x` is
/// `ks`, `w` is `v`, `z` is `s`; `kh`, `ph`, `th` are `h`, `f`, `t`),
/// vowels after the first letter dropped, doubled letters made single.
/// `Aleksandr` and `Alexander` are both `alksndr`.
fn phonetic_key(word: &str) -> String {
    let chars: Vec<char> = word.chars().collect();
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        let (sound, width) = match (c, next) {
            ('k', Some('h')) => ("h", 2),
            ('p', Some('h')) => ("f", 2),
            ('t', Some('h')) => ("t", 2),
            ('c', Some('k')) => ("k", 2),
            ('c', Some('e' | 'i' | 'y')) => ("s", 1),
            ('c' | 'q', _) => ("k", 1),
            ('x', _) => ("ks", 1),
            ('w', _) => ("v", 1),
            ('z', _) => ("s", 1),
            (c, _) if vowel(c) => (if i == 0 { "a" } else { "" }, 1),
            (c, _) if c.is_ascii_alphabetic() => (char_str(c), 1),
            _ => ("", 1),
        };
        for s in sound.chars() {
            if !out.ends_with(s) {
                out.push(s);
            }
        }
        i += width;
    }
    out
}

/// The ASCII letter `c` as a string.
fn char_str(c: char) -> &'static str {
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyz";
    let index = usize::from(c as u8).wrapping_sub(usize::from(b'a'));
    LETTERS.get(index..=index).unwrap_or("")
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
        assert!(!names(
            "Grace Lindqvist",
            "Grace periods: are 30 days fine?"
        ));
        assert!(!names("Helios Grid", "Is a heliosgridless setup fine?"));
        assert!(names("Summer Grid", "Summer Grid, or not?"));
        assert!(Name::new("Li").is_none());
    }

    #[test]
    fn other_forms_of_a_name() {
        assert!(names("Margaret Holm", "Would Peggy accept?"));
        assert!(names("Aleksandr Petrov", "Would Alex accept?"));
        assert!(names("William Okafor", "Ask Bill first?"));
        assert!(!names("William Okafor", "Will the bill be split?"));
        assert!(names("Siobhan O'Brien", "Would OBrien accept?"));
        assert!(names("Grace Lindqvist", "Would G r a c e accept?"));
        assert!(names("Grace Lindqvist", "Would Линдквист accept?"));
        assert!(names("Nikos Papadopoulos", "ο Παπαδόπουλος;"));
    }

    #[test]
    fn months_and_places_count_only_where_a_name_stands() {
        for text in [
            "Would June accept?",
            "Is June's offer final?",
            "Ask Ms June.",
        ] {
            assert!(names("June", text), "{text:?}");
        }
        for text in ["Can we start in June?", "June 15?", "June or July?"] {
            assert!(!names("June", text), "{text:?}");
        }
    }

    #[test]
    fn sounds() {
        assert_eq!(phonetic_key("aleksandr"), phonetic_key("alexander"));
        assert_eq!(phonetic_key("lindkvist"), phonetic_key("lindqvist"));
        assert_eq!(phonetic_key("greis"), phonetic_key("grace"));
        assert_eq!(transliterate("Петров"), "petrov");
        assert_eq!(transliterate("Παπαδόπουλος"), "papadopoulos");
    }
}
