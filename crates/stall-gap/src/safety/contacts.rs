//! Contact details in any dress: e-mail addresses, URLs and phone numbers,
//! written plainly, in full-width characters, or defanged (`name [at]
//! example [dot] com`, `hxxps://`).
//!
//! A question that carries a way to reach someone routes the person around
//! the negotiation, whoever the contact belongs to.

use std::sync::LazyLock;

use linkify::{LinkFinder, LinkKind};

use super::text::{Text, fold};

/// Whether `text` holds an e-mail address, a URL, a social handle or a
/// phone number.
pub(super) fn has_contact(text: &Text) -> bool {
    let plain = text.plain.to_lowercase();
    let bracketed = undo_brackets(&plain);
    let spoken = undo_spoken(&bracketed);
    has_link(&bracketed, false)
        || has_link(&spoken, true)
        || has_handle(&bracketed)
        || has_phone(&plain)
        || has_spoken_phone(text)
}

/// Top-level domains common enough that a dotted word ending in one is
/// read as an address even without a scheme; `node.js` and `file.txt`
/// are not addresses.
const COMMON_TLDS: [&str; 40] = [
    "com", "org", "net", "io", "co", "ai", "dev", "app", "eu", "de", "uk", "us", "fr", "nl",
    "info", "biz", "me", "xyz", "gov", "edu", "ly", "to", "gg", "tv", "ch", "se", "no", "dk", "fi",
    "es", "it", "pl", "be", "at", "ca", "au", "in", "jp", "cn", "ru",
];

/// The defanging brackets undone: `[at]`, `(dot)`, `[.]`, `hxxp`.
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
    for (word, to) in [("at", "@"), ("@", "@"), ("dot", "."), (".", ".")] {
        for (open, close) in [("[", "]"), ("(", ")"), ("{", "}"), ("<", ">")] {
            for pad in ["", " "] {
                out = out.replace(&format!("{pad}{open}{word}{close}{pad}"), to);
            }
        }
    }
    out
}

/// `name at example dot com` read as an address: ` at ` and ` dot `
/// become `@` and `.`, and spaces around `@` and `.` close up. Only links
/// whose domain ends in a common TLD count in this view, since ` at ` is
/// ordinary English.
fn undo_spoken(text: &str) -> String {
    let mut out = text.replace(" dot ", ".").replace(" at ", "@");
    for (from, to) in [(" @ ", "@"), (" @", "@"), ("@ ", "@"), (" . ", ".")] {
        out = out.replace(from, to);
    }
    out
}

fn has_link(text: &str, need_common_tld: bool) -> bool {
    let mut finder = LinkFinder::new();
    finder.url_must_have_scheme(false);
    finder.links(text).any(|link| {
        let found = link.as_str();
        match link.kind() {
            LinkKind::Email => !need_common_tld || ends_in_common_tld(found),
            LinkKind::Url => {
                let has_scheme = found.contains("://");
                let www = found.starts_with("www.");
                (has_scheme && !need_common_tld) || www || ends_in_common_tld(host_of(found))
            }
            _ => false,
        }
    })
}

/// The host of a URL or e-mail address as linkify found it.
fn host_of(link: &str) -> &str {
    let after_scheme = link.split_once("://").map_or(link, |(_, rest)| rest);
    after_scheme
        .split(['/', '?', '#', ':'])
        .next()
        .unwrap_or(after_scheme)
}

fn ends_in_common_tld(address: &str) -> bool {
    let host = address.rsplit('@').next().unwrap_or(address);
    host.rsplit('.')
        .next()
        .is_some_and(|tld| host.contains('.') && COMMON_TLDS.contains(&tld))
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
    let chars: Vec<char> = plain.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars
            .get(i)
            .is_some_and(|c| c.is_ascii_digit() || *c == '+' || *c == '(');
        let after_word = i > 0 && chars.get(i - 1).is_some_and(|c| c.is_alphanumeric());
        if !starts || after_word {
            i += 1;
            continue;
        }
        let (groups, separators, end) = number_run(&chars, i);
        let digits: usize = groups.iter().map(String::len).sum();
        if digits >= MIN_PHONE_DIGITS && !is_sum_date_or_years(&groups, &separators) {
            return true;
        }
        i = end.max(i + 1);
    }
    false
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
        } else if matches!(c, ' ' | '-' | '.' | '/' | '(' | ')' | '+') && pending.len() < 3 {
            pending.push(*c);
        } else {
            break;
        }
        i += 1;
    }
    (groups, separators, i)
}

fn is_sum_date_or_years(groups: &[String], separators: &[String]) -> bool {
    let lens: Vec<usize> = groups.iter().map(String::len).collect();
    let one_separator = separators.iter().all(|s| Some(s) == separators.first());
    let thousands = one_separator
        && separators.first().is_some_and(|s| s == " " || s == ".")
        && lens.first().is_some_and(|len| (1..=3).contains(len))
        && lens.iter().skip(1).all(|len| *len == 3);
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

/// Digits spelled out as words, seven or more in a row: `five five five
/// one two three four`.
fn has_spoken_phone(text: &Text) -> bool {
    const DIGIT_WORDS: [&str; 11] = [
        "zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    static DIGITS: LazyLock<Vec<String>> =
        LazyLock::new(|| DIGIT_WORDS.iter().map(|w| fold(w)).collect());
    let digits = &*DIGITS;
    let mut run = 0;
    for word in text.words() {
        run = if digits.iter().any(|d| d == word) {
            run + 1
        } else {
            0
        };
        if run >= MIN_PHONE_DIGITS {
            return true;
        }
    }
    false
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
        ] {
            assert!(!found(text), "{text:?}");
        }
    }
}
