//! Contact details in any dress: e-mail addresses, URLs and phone numbers,
//! written plainly, in full-width characters, or defanged (`name [at]
//! example [dot] com`, `hxxps://`).
//!
//! A question that carries a way to reach someone routes the person around
//! the negotiation, whoever the contact belongs to.

use std::sync::LazyLock;

use linkify::{LinkFinder, LinkKind};

use super::text::{Text, fold, is_currency_sign, is_east_asian};
use super::word_map::WordSet;

/// Whether `text` holds an e-mail address, a URL, a social or chat handle,
/// or a phone number (in any script's digits, or with letters for digits).
pub(super) fn has_contact(text: &Text) -> bool {
    let plain = contact_view(&text.lower);
    let bracketed = spoken_as_written(undo_brackets(&plain));
    let products = dotted_products(&text.plain);
    has_link(&bracketed, false, &products)
        || spoken_views(&bracketed).any(|view| has_link(&view, true, &products))
        || has_handle(&bracketed)
        || has_phone(&plain)
        || numerals_as_digits(&plain).is_some_and(|view| has_phone(&view))
        || has_spoken_phone(text)
        || has_vanity_number(&text.plain)
        || has_chat_handle(&plain)
        || super::addresses::has_address(&plain)
}

/// The lower-cased view with every dot a reader takes for one written
/// `.` (`。`, `·`, `•`), every dash written `-`, and the sentence marks of
/// other scripts written as ASCII's.
fn contact_view(lower: &str) -> String {
    if lower.is_ascii() {
        // Every character it replaces is outside ASCII.
        return lower.to_owned();
    }
    lower
        .chars()
        .map(|c| match c {
            '。' | '｡' | '·' | '•' | '∙' | '⋅' | '・' | '‧' => '.',
            '\u{2010}'..='\u{2015}' | '−' => '-',
            // Punctuation NFKC leaves, which a link finder would take
            // into a host: Arabic's question mark, comma and semicolon,
            // Devanagari's full stop.
            '؟' => '?',
            '،' => ',',
            '؛' => ';',
            '।' => '.',
            c => c,
        })
        .collect()
}

/// Words for the at sign, in the languages an address is spoken in
/// (English, Spanish and Portuguese, French, Italian, Russian, German,
/// Polish, Turkish, Arabic, Hindi, Korean, Japanese, Chinese); [`AT_PHRASES`]
/// holds those of more than one word.
const AT_WORDS: [&str; 13] = [
    "at",
    "艾特",
    "arroba",
    "arobase",
    "chiocciola",
    "собака",
    "ät",
    "klammeraffe",
    "małpa",
    "آت",
    "एट",
    "골뱅이",
    "アット",
];

/// Spoken at signs of more than one word, each read as ` at `: Indian
/// English's `at the rate (of)`, also in Devanagari, Vietnamese `a còng`, Turkish `et
/// işareti`.
const AT_PHRASES: [&str; 5] = [
    " at the rate of ",
    " at the rate ",
    " एट द रेट ",
    " a còng ",
    " et işareti ",
];

/// Words for the dot, in the same languages.
const DOT_WORDS: [&str; 16] = [
    "点",
    "점",
    "dot",
    "punto",
    "point",
    "punkt",
    "ponto",
    "точка",
    "kropka",
    "nokta",
    "chấm",
    "نقطة",
    "دوت",
    "डॉट",
    "닷",
    "ドット",
];

/// Top-level domains common enough that a dotted word ending in one is
/// read as an address even without a scheme; `node.js` and `file.txt`
/// are not addresses.
const COMMON_TLDS: &[&str] = &[
    "com", "org", "net", "io", "co", "ai", "dev", "app", "eu", "de", "uk", "us", "fr", "nl",
    "info", "biz", "me", "xyz", "gov", "edu", "ly", "to", "gg", "tv", "ch", "se", "no", "dk", "fi",
    "es", "it", "pl", "be", "at", "ca", "au", "in", "jp", "cn", "ru",
    // The countries of the languages questions are asked in.
    "vn", "kr", "tr", "br", "mx", "cl", "pt", "cz", "ua", "sa", "ae", "eg", "tw", "hk", "gr",
];

/// The defanging brackets undone: `[at]`, `( dot )`, `[.]`, `(punkt)`,
/// `hxxp`.
fn undo_brackets(text: &str) -> String {
    let mut out = text.to_owned();
    if !text.contains(['[', '(', '{', '<', '*']) && !text.contains("hxxp") {
        return out;
    }
    for (from, to) in [
        ("hxxp", "http"),
        ("h**p", "http"),
        ("[:]", ":"),
        ("[/]", "/"),
    ] {
        out = out.replace(from, to);
    }
    const BRACKETS: [(char, char); 4] = [('[', ']'), ('(', ')'), ('{', '}'), ('<', '>')];
    for (open, close) in BRACKETS {
        while out.contains(&format!("{open} ")) {
            out = out.replace(&format!("{open} "), &open.to_string());
        }
        while out.contains(&format!(" {close}")) {
            out = out.replace(&format!(" {close}"), &close.to_string());
        }
    }
    let words = AT_WORDS
        .iter()
        .chain(["@"].iter())
        .map(|word| (*word, "@"))
        .chain(
            DOT_WORDS
                .iter()
                .chain(["."].iter())
                .map(|word| (*word, ".")),
        );
    for (word, to) in words {
        for (open, close) in BRACKETS {
            for pad in [" ", ""] {
                out = out.replace(&format!("{pad}{open}{word}{close}{pad}"), to);
            }
        }
    }
    close_up(&out)
}

/// `com` spoken and written in another script: Arabic's `كوم`, Hindi's
/// `कॉम`, Russian's `ком`, Korean's `컴`, Japanese's `コム`.
const SPOKEN_COM: [&str; 5] = [" كوم", " कॉम", " ком", " 컴", " コム"];

/// Each of [`AT_PHRASES`] written ` at `, and each of [`SPOKEN_COM`]
/// written ` com`, for the spoken views.
fn spoken_as_written(text: String) -> String {
    let mut out = text;
    for phrase in AT_PHRASES {
        if out.contains(phrase) {
            out = out.replace(phrase, " at ");
        }
    }
    for com in SPOKEN_COM {
        if out.contains(com) {
            out = out.replace(com, " com");
        }
    }
    out
}

/// The Sino-Korean digit syllables, by value: a phone number read out in
/// Korean is written with them (`공일공`), two or more in a row.
const HANGUL_DIGITS: [(char, char); 11] = [
    ('공', '0'),
    ('영', '0'),
    ('일', '1'),
    ('이', '2'),
    ('삼', '3'),
    ('사', '4'),
    ('오', '5'),
    ('육', '6'),
    ('칠', '7'),
    ('팔', '8'),
    ('구', '9'),
];

/// A CJK numeral's digit: `〇` and `零` to `九`, and the `幺` and `两`
/// phone numbers are read with in Chinese.
fn cjk_digit(c: char) -> Option<char> {
    Some(match c {
        '〇' | '零' => '0',
        '一' | '幺' => '1',
        '二' | '两' => '2',
        '三' => '3',
        '四' => '4',
        '五' => '5',
        '六' => '6',
        '七' => '7',
        '八' => '8',
        '九' => '9',
        _ => return None,
    })
}

fn hangul_digit(c: char) -> Option<char> {
    HANGUL_DIGITS
        .iter()
        .find(|(syllable, _)| *syllable == c)
        .map(|(_, digit)| *digit)
}

/// `text` with numerals written as ASCII digits, for the phone rule:
/// every CJK numeral, and every Sino-Korean digit syllable beside another
/// (one alone is an ordinary syllable: `이` is also "this"). Positional
/// numerals (`百`, `千`, `万`) are left, so a sum written with them never
/// reads as a run of digits. `None` when there is nothing to write.
fn numerals_as_digits(text: &str) -> Option<String> {
    let numeral = |c: char| cjk_digit(c).is_some() || hangul_digit(c).is_some();
    if text.is_ascii() || !text.chars().any(numeral) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let is_hangul_digit = |i: usize| chars.get(i).copied().and_then(hangul_digit).is_some();
    let mut changed = false;
    let view: String = chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let paired =
                is_hangul_digit(i) && ((i > 0 && is_hangul_digit(i - 1)) || is_hangul_digit(i + 1));
            let digit = cjk_digit(*c).or_else(|| paired.then(|| hangul_digit(*c)).flatten());
            changed |= digit.is_some();
            digit.unwrap_or(*c)
        })
        .collect();
    changed.then_some(view)
}

/// Spaces around `@` and `.` closed up: `dana @ example . com`.
fn close_up(text: &str) -> String {
    let mut out = text.to_owned();
    for (from, to) in [(" @ ", "@"), (" @", "@"), ("@ ", "@"), (" . ", ".")] {
        out = out.replace(from, to);
    }
    out
}

/// The most spoken at signs tried one by one in a field.
const MAX_SPOKEN_ATS: usize = 8;

/// `name at example dot com` read as an address, in every language of
/// [`AT_WORDS`] and [`DOT_WORDS`]: every spoken dot becomes `.`, and each
/// spoken at in turn becomes `@` (only one can be the address's, and `me
/// at dana at example dot com` has two). Only links whose domain ends in a
/// common TLD count in these views, since ` at ` is ordinary English.
fn spoken_views(text: &str) -> Box<dyn Iterator<Item = String> + '_> {
    // A spoken word has a space on both sides: it is one of the pieces
    // between spaces, neither the first nor the last.
    let mut pieces = text.split(' ').skip(1).peekable();
    let spoken = std::iter::from_fn(|| {
        let piece = pieces.next()?;
        pieces.peek().is_some().then_some(piece)
    })
    .any(|piece| AT_WORDS.contains(&piece) || DOT_WORDS.contains(&piece));
    let closable = [" @", "@ ", " . "].iter().any(|gap| text.contains(gap));
    if !closable && !spoken {
        // Nothing spoken and nothing to close up: the bracketed view,
        // already read, is the only view.
        return Box::new(std::iter::empty());
    }
    let mut dotted = text.to_owned();
    for word in DOT_WORDS {
        dotted = dotted.replace(&format!(" {word} "), ".");
    }
    let ats: Vec<(usize, usize)> = AT_WORDS
        .iter()
        .flat_map(|word| {
            let spoken = format!(" {word} ");
            let len = spoken.len();
            dotted
                .match_indices(&spoken)
                .map(move |(at, _)| (at, len))
                .collect::<Vec<_>>()
        })
        .take(MAX_SPOKEN_ATS)
        .collect();
    let base = close_up(&dotted);
    Box::new(
        std::iter::once(base).chain(ats.into_iter().map(move |(at, len)| {
            let mut view = dotted.clone();
            view.replace_range(at..at + len, "@");
            close_up(&view)
        })),
    )
}

fn has_link(text: &str, need_common_tld: bool, products: &[String]) -> bool {
    let mut finder = LinkFinder::new();
    finder.url_must_have_scheme(false);
    finder.links(text).any(|link| {
        let found = link.as_str();
        match link.kind() {
            LinkKind::Email => !need_common_tld || ends_in_common_tld(found),
            LinkKind::Url => {
                let has_scheme = found.contains("://");
                let www = found.starts_with("www.");
                let host = host_of(found);
                let product = !has_scheme && products.iter().any(|name| name == host);
                (has_scheme && !need_common_tld)
                    || www
                    || (ends_in_common_tld(host)
                        && !product
                        && !(need_common_tld && ends_in_a_word(host)))
            }
            _ => false,
        }
    })
}

/// Products named like hosts, lower-cased: `ASP.NET` is a framework, and
/// `Socket.IO` a library, where `asp.net` and `socket.io` are sites.
const PRODUCTS: [&str; 6] = [
    "asp.net",
    "vb.net",
    "ado.net",
    "ml.net",
    "socket.io",
    "engine.io",
];

/// The [`PRODUCTS`] in `plain` (case kept) written as their makers write
/// them, the last label in capitals; lower-cased as the link views are.
/// Any other name, capitals or not, is read as a host.
fn dotted_products(plain: &str) -> Vec<String> {
    if !plain.contains(".NET") && !plain.contains(".IO") {
        return Vec::new();
    }
    plain
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|word| word.ends_with(".NET") || word.ends_with(".IO"))
        .map(str::to_lowercase)
        .filter(|word| PRODUCTS.contains(&word.as_str()))
        .collect()
}

/// The host of a URL or e-mail address as linkify found it.
fn host_of(link: &str) -> &str {
    let after_scheme = link.split_once("://").map_or(link, |(_, rest)| rest);
    after_scheme
        .split(['/', '?', '#', ':'])
        .next()
        .unwrap_or(after_scheme)
}

/// Top-level domains that are also short words of the languages an
/// address is spoken in: `the point at issue` is not `the.at`.
const WORD_TLDS: [&str; 10] = ["at", "it", "to", "me", "be", "no", "in", "us", "es", "de"];

/// Whether a host spoken aloud ends in a [`WORD_TLDS`] entry; a spoken URL
/// must end in another TLD (a spoken e-mail address may end in any).
fn ends_in_a_word(host: &str) -> bool {
    host.rsplit('.')
        .next()
        .is_some_and(|tld| WORD_TLDS.contains(&tld))
}

/// Second-level labels a country's domains are registered under
/// (`example.com.ar`, `example.co.uk`).
const SECOND_LEVELS: [&str; 7] = ["com", "co", "org", "net", "gov", "edu", "ac"];

fn ends_in_common_tld(address: &str) -> bool {
    let host = address.rsplit('@').next().unwrap_or(address);
    let mut labels = host.rsplit('.');
    let (tld, second) = (labels.next(), labels.next());
    host.contains('.')
        && (tld.is_some_and(|tld| COMMON_TLDS.contains(&tld))
            || (tld
                .is_some_and(|tld| tld.len() == 2 && tld.chars().all(|c| c.is_ascii_lowercase()))
                && second.is_some_and(|second| SECOND_LEVELS.contains(&second))
                && labels.next().is_some()))
}

/// `@dana_k`: an at sign at a word start followed by a name.
fn has_handle(text: &str) -> bool {
    text.match_indices('@').any(|(at, _)| {
        let before = text.get(..at).and_then(|s| s.chars().next_back());
        let after: String = text
            .get(at + 1..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        before.is_none_or(|c| !c.is_alphanumeric())
            && after.chars().filter(|c| c.is_alphanumeric()).count() >= 2
    })
}

/// The fewest digits a phone number has.
const MIN_PHONE_DIGITS: usize = 7;

/// Seven or more digits, optionally after `+`, grouped by spaces, hyphens,
/// dots, slashes or brackets, that are not a sum (`1 000 000`), a date
/// (`2025-06-01`) or a span of years (`2025-2026`).
fn has_phone(plain: &str) -> bool {
    if plain.bytes().filter(u8::is_ascii_digit).count() < MIN_PHONE_DIGITS {
        // A phone number's digits are all in the text: too few, none.
        return false;
    }
    let chars: Vec<char> = plain.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars
            .get(i)
            .is_some_and(|c| c.is_ascii_digit() || *c == '+' || *c == '(');
        // A number run into a word is part of it (`A320`, `x86`), but
        // scripts that do not space their words put a number straight
        // after a character (`打15987654321`).
        let after_word = i > 0
            && chars
                .get(i - 1)
                .is_some_and(|c| c.is_alphanumeric() && !is_east_asian(*c));
        if !starts || after_word {
            i += 1;
            continue;
        }
        let (groups, separators, end) = number_run(&chars, i);
        let digits: usize = groups.iter().map(String::len).sum();
        let counted = || {
            let before = chars
                .get(..i)
                .unwrap_or_default()
                .iter()
                .rev()
                .find(|c| !c.is_whitespace());
            let after = chars
                .get(end..)
                .unwrap_or_default()
                .iter()
                .find(|c| !c.is_whitespace());
            before.is_some_and(|c| is_currency_sign(*c))
                || after.is_some_and(|c| c.is_alphabetic() || is_currency_sign(*c))
        };
        if digits >= MIN_PHONE_DIGITS
            && (!is_sum_date_or_years(&groups, &separators)
                || (is_mobile_groups(&groups, &separators) && !counted()))
            && !follows_a_standard(&chars, i)
        {
            return true;
        }
        i = end.max(i + 1);
    }
    false
}

/// A mobile number's three groups of three (`601 234 877`): written like
/// a sum in millions, which says what it counts (`601 234 877 zł`).
fn is_mobile_groups(groups: &[String], separators: &[String]) -> bool {
    groups.len() == 3
        && groups.iter().all(|group| group.len() == 3)
        // A sum's thousands are round (`150 000 000`); a number's are not.
        && groups.iter().skip(1).all(|group| group != "000")
        && separators.iter().all(|separator| separator == " ")
}

/// Standards a number follows, whose numbers are no one's phone
/// (`ГОСТ Р ИСО 9001-2015`, `DIN EN 60204-1`).
const STANDARDS: [&str; 12] = [
    "iso", "исо", "гост", "din", "iec", "astm", "ansi", "jis", "tcvn", "gb", "ks", "sni",
];

/// Bodies whose names are also words (`en`, "in"), which name a standard
/// only as the first of a pair (`PN-EN`, `NF EN`, `BS EN`, `UNE-EN`).
const PAIRED_STANDARDS: [&str; 5] = ["pn", "nf", "bs", "une", "en"];

/// Whether the number starting at `start` follows a standard's name, a
/// word or two before it.
fn follows_a_standard(chars: &[char], start: usize) -> bool {
    let before: String = chars.get(..start).unwrap_or_default().iter().collect();
    let words: Vec<String> = before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .rev()
        .take(2)
        .map(str::to_lowercase)
        .collect();
    let paired = matches!(words.as_slice(), [last, first]
        if PAIRED_STANDARDS.contains(&last.as_str()) && PAIRED_STANDARDS.contains(&first.as_str()) && last != first);
    paired || words.iter().any(|word| STANDARDS.contains(&word.as_str()))
}

/// The digit groups of the number run starting at `start`, the separator
/// before each group after the first, and where the run ends.
fn number_run(chars: &[char], start: usize) -> (Vec<String>, Vec<String>, usize) {
    let mut groups: Vec<String> = Vec::new();
    let mut separators: Vec<String> = Vec::new();
    let mut pending = String::new();
    let mut i = start;
    while let Some(c) = chars.get(i) {
        if c.is_ascii_digit() {
            if groups.is_empty() || !pending.is_empty() {
                if !groups.is_empty() {
                    separators.push(std::mem::take(&mut pending));
                }
                groups.push(String::new());
            }
            if let Some(group) = groups.last_mut() {
                group.push(*c);
            }
        } else if matches!(c, ' ' | '-' | '.' | '/' | '(' | ')' | '+' | ',' | 'の')
            && pending.len() < 3
        {
            pending.push(*c);
        } else {
            break;
        }
        i += 1;
    }
    (groups, separators, i)
}

fn is_sum_date_or_years(groups: &[String], separators: &[String]) -> bool {
    is_one_sum_date_or_years(groups, separators)
        || is_range_of_sums(groups, separators)
        || is_comma_list(groups, separators)
}

/// Two sums joined by a spaced dash (`250 000 – 300 000`, the dash
/// written `-` by then), each grouped in thousands.
fn is_range_of_sums(groups: &[String], separators: &[String]) -> bool {
    let Some(dash) = separators.iter().position(|s| s == " - " || s == "-") else {
        return false;
    };
    let (Some(before), Some(after)) = (groups.get(..=dash), groups.get(dash + 1..)) else {
        return false;
    };
    let (Some(between_before), Some(between_after)) =
        (separators.get(..dash), separators.get(dash + 1..))
    else {
        return false;
    };
    let is_sum = |groups: &[String], separators: &[String]| {
        groups.len() >= 2 && is_thousands(groups, separators)
    };
    is_sum(before, between_before) && is_sum(after, between_after)
}

/// Digit groups written as a sum in thousands: one to three digits, then
/// groups of three, every separator the same space or dot.
fn is_thousands(groups: &[String], separators: &[String]) -> bool {
    let one_separator = separators.iter().all(|s| Some(s) == separators.first());
    one_separator
        && separators
            .first()
            .is_some_and(|s| s == " " || s == "." || s == ",")
        && groups.first().is_some_and(|g| (1..=3).contains(&g.len()))
        && groups.iter().skip(1).all(|g| g.len() == 3)
}

/// Numbers listed with commas (`10, 20, 30`, `1,2,3`) rather than a
/// number grouped by them: a comma joins a phone number's groups only
/// between groups of three digits or more (`139,0275,8846`).
fn is_comma_list(groups: &[String], separators: &[String]) -> bool {
    separators.iter().any(|s| s.contains(','))
        && (separators.iter().any(|s| s.contains(", ")) || groups.iter().any(|g| g.len() < 3))
}

fn is_one_sum_date_or_years(groups: &[String], separators: &[String]) -> bool {
    let lens: Vec<usize> = groups.iter().map(String::len).collect();
    let one_separator = separators.iter().all(|s| Some(s) == separators.first());
    let thousands = is_thousands(groups, separators);
    let date = one_separator
        && separators
            .first()
            .is_some_and(|s| matches!(s.as_str(), "-" | "/" | "."))
        && matches!(lens.as_slice(), [4, 1..=2, 1..=2] | [1..=2, 1..=2, 2 | 4]);
    let years = matches!(lens.as_slice(), [4, 4])
        && groups
            .iter()
            .all(|g| g.starts_with("19") || g.starts_with("20"));
    thousands || date || years
}

/// The fewest letters and digits a number written with letters has
/// (`1-800-FLOWERS`).
const MIN_VANITY_LENGTH: usize = 10;

/// A phone number with letters for some digits, in the plain view (case
/// kept): hyphen- or dot-separated groups of digits and capital letters,
/// digits first, three or more digits, a word of three or more capitals.
fn has_vanity_number(plain: &str) -> bool {
    plain.split_whitespace().any(|chunk| {
        let chunk = chunk.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let groups: Vec<&str> = chunk.split(['-', '.']).collect();
        let all_digits = |g: &str| !g.is_empty() && g.chars().all(|c| c.is_ascii_digit());
        let all_capitals = |g: &str| !g.is_empty() && g.chars().all(|c| c.is_ascii_uppercase());
        let digits: usize = groups
            .iter()
            .filter(|g| all_digits(g))
            .map(|g| g.len())
            .sum();
        let length: usize = groups.iter().map(|g| g.len()).sum();
        groups.len() >= 2
            && groups.first().is_some_and(|g| all_digits(g))
            && groups.iter().all(|g| all_digits(g) || all_capitals(g))
            && groups.iter().any(|g| all_capitals(g) && g.len() >= 3)
            && digits >= 3
            && length >= MIN_VANITY_LENGTH
    })
}

/// Chat services a handle is given for.
const CHAT_SERVICES: [&str; 16] = [
    "discord",
    "telegram",
    "whatsapp",
    "signal",
    "skype",
    "wechat",
    "viber",
    "snapchat",
    "instagram",
    "tiktok",
    "twitter",
    "mastodon",
    "bluesky",
    "threads",
    "kik",
    "matrix",
];

/// Words that may stand between a service and the handle: `Telegram is`,
/// `Discord: my username is`.
const HANDLE_FILLERS: [&str; 12] = [
    "is", "me", "on", "at", "id", "handle", "username", "user", "name", "account", "via", "my",
];

/// A chat handle: a name with a discriminator (`dana#4821`), or after a
/// chat service a word no one writes in prose (`Telegram: dana_k42`).
fn has_chat_handle(plain: &str) -> bool {
    let discriminator = plain.match_indices('#').any(|(at, _)| {
        let before = plain.get(..at).and_then(|s| s.chars().next_back());
        let after: Vec<char> = plain
            .get(at + 1..)
            .unwrap_or_default()
            .chars()
            .take(5)
            .collect();
        before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.len() >= 4
            && after.iter().take(4).all(char::is_ascii_digit)
            && after.get(4).is_none_or(|c| !c.is_alphanumeric())
    });
    let words: Vec<&str> = plain
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| ",.;:!?()\"'".contains(c)))
        .filter(|word| !word.is_empty())
        .collect();
    let after_service = words.iter().enumerate().any(|(i, word)| {
        CHAT_SERVICES.contains(word)
            && words
                .iter()
                .skip(i + 1)
                .find(|word| !HANDLE_FILLERS.contains(word))
                .is_some_and(|handle| looks_like_handle(handle))
    });
    discriminator || after_service
}

/// A word shaped like a handle rather than prose.
fn looks_like_handle(word: &str) -> bool {
    let digits = word.chars().any(|c| c.is_ascii_digit());
    let letters = word.chars().any(char::is_alphabetic);
    word.contains(['_', '@', '#']) || (digits && letters) || word.trim_matches('.').contains('.')
}

/// Digits spelled out as words, seven or more in a row, in the languages
/// of the ordinary-question table: `five five five one two three four`,
/// `cinco cinco cinco uno dos tres cuatro`. Words of two languages mix in
/// one run, as they do when a number is read out in one and written in
/// another.
fn has_spoken_phone(text: &Text) -> bool {
    const DIGIT_WORDS: &[&str] = &[
        // English
        "zero",
        "oh",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        // Spanish, Portuguese, Italian
        "cero",
        "uno",
        "dos",
        "tres",
        "cuatro",
        "cinco",
        "seis",
        "siete",
        "ocho",
        "nueve",
        "um",
        "dois",
        "três",
        "quatro",
        "sete",
        "oito",
        "nove",
        "due",
        "tre",
        "quattro",
        "cinque",
        "sei",
        "sette",
        "otto",
        // French, German
        "zéro",
        "un",
        "deux",
        "trois",
        "quatre",
        "cinq",
        "six",
        "sept",
        "huit",
        "neuf",
        "null",
        "eins",
        "zwei",
        "drei",
        "vier",
        "fünf",
        "sechs",
        "sieben",
        "acht",
        "neun",
        // Russian, Polish
        "ноль",
        "один",
        "два",
        "три",
        "четыре",
        "пять",
        "шесть",
        "семь",
        "восемь",
        "девять",
        "jeden",
        "dwa",
        "trzy",
        "cztery",
        "pięć",
        "sześć",
        "siedem",
        "osiem",
        "dziewięć",
        // Turkish, Vietnamese, Hindi in Latin letters
        "sıfır",
        "bir",
        "iki",
        "üç",
        "dört",
        "beş",
        "altı",
        "yedi",
        "sekiz",
        "dokuz",
        "không",
        "một",
        "hai",
        "ba",
        "bốn",
        "năm",
        "sáu",
        "bảy",
        "tám",
        "chín",
        "shunya",
        "ek",
        "do",
        "teen",
        "char",
        "paanch",
        "chhah",
        "saat",
        "aath",
        "nau",
        // Hindi, Arabic
        "शून्य",
        "एक",
        "दो",
        "तीन",
        "चार",
        "पांच",
        "छह",
        "सात",
        "आठ",
        "नौ",
        "صفر",
        "واحد",
        "اثنان",
        "ثلاثة",
        "أربعة",
        "خمسة",
        "ستة",
        "سبعة",
        "ثمانية",
        "تسعة",
    ];
    static DIGITS: LazyLock<WordSet> =
        LazyLock::new(|| DIGIT_WORDS.iter().map(|w| fold(w)).collect());
    let digits = &*DIGITS;
    let mut run = 0;
    let mut any = false;
    for word in text.words() {
        run = if digits.contains(word) { run + 1 } else { 0 };
        any |= run > 0;
        if run >= MIN_PHONE_DIGITS {
            return true;
        }
    }
    // A number read out in groups starts with a digit or a group word;
    // with no digit word at all, only a run of group words could be one.
    ((any || text.words().any(super::number_words::is_group_word))
        && super::number_words::has_grouped_number(text.words(), |word| digits.contains(word)))
        || super::number_words::has_katakana_number(&text.plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> bool {
        has_contact(&Text::new(text))
    }

    #[test]
    fn contacts_in_any_dress() {
        for text in [
            "dana@example.com",
            "ｄａｎａ＠ｅｘａｍｐｌｅ．ｃｏｍ",
            "dana [at] example [dot] com",
            "dana(at)example(dot)com",
            "dana at example dot com",
            "dana @ example . com",
            "https://example.com/x",
            "hxxps://evil[.]com",
            "www.helios-grid.eu",
            "helios-grid.eu/pricing",
            "+44 20 7946 0958",
            "(555) 123-4567",
            "555.123.4567",
            "０２０ ７９４６ ０９５８",
            "five five five one two three four",
            "ping @dana_k",
            "me at dana at example dot com",
            "me at dana [ at ] example [ dot ] org",
            "dana arroba ejemplo punto com",
            "dana собака example точка com",
            "dana＠example。com",
            "+٩٧١ ٥٠ ١٢٣ ٤٥٦٧",
            "555·123·4567",
            "1-800-FLOWERS",
            "discord: dana#4821",
            "my telegram is dana_k42",
            "我的电话是一三八 一二三四 五六七八",
            "可以打一五九八七六五四三二一联系他们吗？",
            "打15987654321联系",
            "電話番号は09012345678です",
            "電話は〇九〇-一二三四-五六七八です",
            "연락처는 공일공 일이삼사 오육칠팔입니다",
            "llámame al seis cero cero uno dos tres cuatro",
            "appelle le six zéro zéro un deux trois quatre",
            "звони: восемь девять один шесть два три четыре",
            "numer: sześć zero zero jeden dwa trzy cztery",
            "ara: beş beş beş bir iki üç dört",
            "gọi không chín một hai ba bốn năm",
            "dana at the rate example dot com",
            "dana a còng example chấm com",
            "dana małpa example kropka pl",
            "dana et işareti example nokta com",
            "dana آت example نقطة com",
            "dana एट example डॉट com",
            "dana 골뱅이 example 닷 com",
            "dana アット example ドット com",
            "sales آت helios دوت com",
            "sales آت helios نقطة com؟",
            "example.net, or EXAMPLE.COM",
            "Sign up at HELIOSGRID.IO or HELIOS.NET/offer",
            "see asp.net or socket.io",
            "555 123 - 4567",
            "+7 495 123 - 45 67",
            "Llámalo en el 612 345 678",
        ] {
            assert!(found(text), "{text:?}");
        }
    }

    #[test]
    fn ordinary_text_has_no_contact() {
        for text in [
            "Meet at the office at 9:00 on 2025-06-01.",
            "A budget of 1 000 000 or 1.000.000 EUR, or 1,250,000.",
            "The 2025-2026 season, node.js or file.txt.",
            "Look at example one, two or three.",
            "Is 20k at 5% fine?",
            "Is WhatsApp fine, or Slack?",
            "A 24-HOUR line, COVID-19, the point at issue.",
            "Meet at the café at noon, dot the i's.",
            "ASP.NET Core, VB.NET or .NET 8, with Socket.IO or Chart.js?",
            "Czy budżet 250 000 – 300 000 zł wystarczy?",
            "Бюджет 1 200 000 - 1 500 000 ₽?",
            "Budget €120,000–150,000?",
            "Is 150 000 000 the ceiling?",
            "Does it follow PN-EN 16121 or ГОСТ Р ИСО 9001-2015?",
            "预算一百二十万元，二〇二六年六月三十日前签约？",
            "이 사이 일이 오이 사과",
            "Ek do teen options: do you want one or two?",
            "La cena es a las ocho, uno o dos platos.",
            "Bir iki gün içinde, beş kişiyle?",
        ] {
            assert!(!found(text), "{text:?}");
        }
    }
}
