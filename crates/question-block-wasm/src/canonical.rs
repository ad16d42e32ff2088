//! Reading the JSON that JavaScript's `JSON.stringify` writes.
//!
//! Every value reaches the module as `JSON.stringify(JSON.parse(text))` or
//! `JSON.stringify(value)`, made by the host: the host's parser has already
//! applied the reference's semantics (the last of repeated keys, numbers as
//! doubles, lone surrogates kept), and its writer leaves one spelling of each
//! value: no whitespace, each key once, numbers in their shortest form (so
//! the number 1 is always `1`), and lone surrogates as `\uXXXX` escapes. This
//! reader needs nothing more, which keeps the module free of a JSON library
//! and of float parsing. Text that is not JSON is refused (`None`), never a
//! panic; where the host's writer never goes (the spelling of a number
//! other than 1) it is lenient.

use std::borrow::Cow;

use index_question_block::{JsonType, JsonView};
use wide::u8x16;

/// A value read from canonical JSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Canonical {
    Null,
    Boolean,
    /// A number, and whether it is exactly 1.
    Number {
        one: bool,
    },
    String(String),
    Array(Vec<Canonical>),
    /// Members in the order the host's object held them.
    Object(Vec<(String, Canonical)>),
}

impl Canonical {
    /// The value `text` holds, or `None` unless it is exactly one
    /// canonical JSON value.
    pub(crate) fn read(text: &str) -> Option<Canonical> {
        Reader::new(text, false).whole()
    }

    /// The value of JSON text as a person or a server wrote it, when the
    /// host's `JSON.parse` would read exactly this value from it, so the
    /// host need not parse and write it again before the module reads it:
    /// JSON whitespace between tokens, any escape, and nothing whose
    /// meaning depends on the host's semantics. `None` for anything else
    /// (a repeated key, which the host reads as its last; a `__proto__`
    /// key; a number other than a plain integer; an escaped lone surrogate;
    /// text that is not JSON), which the caller then hands to the host.
    pub(crate) fn read_plain(text: &str) -> Option<Canonical> {
        Reader::new(text, true).whole()
    }
}

impl JsonView for &Canonical {
    fn json_type(&self) -> JsonType {
        match self {
            Canonical::Null => JsonType::Null,
            Canonical::Boolean => JsonType::Boolean,
            Canonical::Number { .. } => JsonType::Number,
            Canonical::String(_) => JsonType::String,
            Canonical::Array(_) => JsonType::Array,
            Canonical::Object(_) => JsonType::Object,
        }
    }

    fn as_text(&self) -> Option<Cow<'_, str>> {
        match self {
            Canonical::String(text) => Some(Cow::Borrowed(text)),
            _ => None,
        }
    }

    fn is_number_one(&self) -> bool {
        matches!(self, Canonical::Number { one: true })
    }

    fn items(&self) -> Option<Vec<Self>> {
        match self {
            Canonical::Array(items) => Some(items.iter().collect()),
            _ => None,
        }
    }

    fn member(&self, key: &str) -> Option<Self> {
        match self {
            Canonical::Object(members) => members
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<String> {
        match self {
            Canonical::Object(members) => members.iter().map(|(name, _)| name.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn keys_are_among(&self, known: &[&str]) -> bool {
        match self {
            Canonical::Object(members) => members.iter().all(|(name, _)| known.contains(&&**name)),
            _ => true,
        }
    }
}

/// How deep arrays and objects may nest: far past any block, and shallow
/// enough that reading never exhausts the stack.
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
    /// Reading text as written ([`Canonical::read_plain`]), not as
    /// `JSON.stringify` writes it.
    plain: bool,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, plain: bool) -> Self {
        Reader {
            text,
            at: 0,
            depth: 0,
            plain,
        }
    }

    /// The one value the text holds.
    fn whole(mut self) -> Option<Canonical> {
        let value = self.value()?;
        self.blank();
        (self.at == self.text.len()).then_some(value)
    }

    /// Skips JSON whitespace, which only written text holds.
    fn blank(&mut self) {
        if self.plain {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                self.at += 1;
            }
        }
    }
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.blank();
        let matches = self.peek() == Some(byte);
        if matches {
            self.at += 1;
        }
        matches
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes().get(self.at..end)? == word).then(|| self.at = end)
    }

    fn value(&mut self) -> Option<Canonical> {
        self.blank();
        match self.peek()? {
            b'n' => self.literal(b"null").map(|()| Canonical::Null),
            b't' => self.literal(b"true").map(|()| Canonical::Boolean),
            b'f' => self.literal(b"false").map(|()| Canonical::Boolean),
            b'"' => self.string().map(Canonical::String),
            b'[' => self.nested(Self::array),
            b'{' => self.nested(Self::object),
            _ => self.number(),
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Option<Canonical>) -> Option<Canonical> {
        self.depth += 1;
        let value = (self.depth <= MAX_DEPTH).then(|| read(self)).flatten();
        self.depth -= 1;
        value
    }

    fn array(&mut self) -> Option<Canonical> {
        self.at += 1;
        let mut items = Vec::new();
        if !self.eat(b']') {
            loop {
                items.push(self.value()?);
                if self.eat(b']') {
                    break;
                }
                self.eat(b',').then_some(())?;
            }
        }
        Some(Canonical::Array(items))
    }

    fn object(&mut self) -> Option<Canonical> {
        self.at += 1;
        let mut members = Vec::new();
        if !self.eat(b'}') {
            loop {
                self.blank();
                let key = self.string()?;
                if self.plain
                    && (key == "__proto__" || members.iter().any(|(name, _)| *name == key))
                {
                    return None;
                }
                self.eat(b':').then_some(())?;
                members.push((key, self.value()?));
                if self.eat(b'}') {
                    break;
                }
                self.eat(b',').then_some(())?;
            }
        }
        Some(Canonical::Object(members))
    }

    /// A number as `JSON.stringify` writes one. Its shortest form is unique,
    /// so the number 1 is exactly the text `1`.
    fn number(&mut self) -> Option<Canonical> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.at += 1;
        }
        let text = self.bytes().get(start..self.at)?;
        if self.plain {
            let digits = text.strip_prefix(b"-").unwrap_or(text);
            let plain = matches!(digits, [b'0'] | [b'1'..=b'9', ..])
                && digits.iter().all(u8::is_ascii_digit);
            plain.then_some(())?;
        }
        text.iter()
            .any(u8::is_ascii_digit)
            .then_some(Canonical::Number { one: text == b"1" })
    }

    /// A string literal; an escaped lone surrogate reads as U+FFFD (one
    /// UTF-16 unit, like the surrogate, so every length stays the same).
    /// `JSON.stringify` escapes only control characters and lone
    /// surrogates with `\u`, so a pair of escaped surrogates is two lone
    /// ones here, two U+FFFD, which keeps the length too.
    fn string(&mut self) -> Option<String> {
        self.eat(b'"').then_some(())?;
        let mut out = String::new();
        loop {
            // Up to the next quote or backslash, copied whole: both are
            // ASCII, so both ends of the run are character boundaries.
            let start = self.at;
            self.at += plain_run(self.bytes().get(start..)?);
            // Anything else is a raw control character, which JSON.parse
            // refuses and JSON.stringify never writes.
            let stop = match self.peek()? {
                stop @ (b'"' | b'\\') => stop,
                _ => return None,
            };
            out.push_str(self.text.get(start..self.at)?);
            self.at += 1;
            if stop == b'"' {
                return Some(out);
            }
            let escaped = self.peek()?;
            self.at += 1;
            out.push(match escaped {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => match char::from_u32(self.hex4()?) {
                    Some(unit) => unit,
                    // The host keeps a lone surrogate, which a Rust string
                    // cannot hold; let the host's JSON say what it is.
                    None if self.plain => return None,
                    None => char::REPLACEMENT_CHARACTER,
                },
                _ => return None,
            });
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes().get(self.at..self.at + 4)?;
        let mut unit = 0;
        for &digit in digits {
            unit = unit * 16 + char::from(digit).to_digit(16)?;
        }
        self.at += 4;
        Some(unit)
    }
}

/// How many bytes `bytes` starts with that a string holds as they are:
/// neither a quote, a backslash nor a control character. Sixteen at a time,
/// as a string's text is most of a payload.
fn plain_run(bytes: &[u8]) -> usize {
    let ends = |chunk: u8x16| {
        (chunk.simd_eq(u8x16::splat(b'"'))
            | chunk.simd_eq(u8x16::splat(b'\\'))
            | chunk.min(u8x16::splat(0x1F)).simd_eq(chunk))
        .to_bitmask()
    };
    let mut chunks = bytes.chunks_exact(16);
    let mut run = 0;
    for chunk in &mut chunks {
        let stops = ends(u8x16::from(
            chunk.first_chunk::<16>().copied().unwrap_or_default(),
        ));
        if stops != 0 {
            return run + stops.trailing_zeros() as usize;
        }
        run += 16;
    }
    // The rest, byte by byte: the same three tests, which cost the module
    // fewer bytes than padding a last sixteen would.
    let rest = chunks.remainder();
    run + rest
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
        .unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_json_stringify_writes() {
        let text = r#"{"version":1,"questions":[{"prompt":"a\"\\\n\u0001😀","opportunityId":"x"}],"n":null,"b":[true,false,-1.5e-7]}"#;
        let value = Canonical::read(text).unwrap();
        let view = &value;
        assert!(view.member("version").unwrap().is_number_one());
        assert_eq!(view.keys(), ["version", "questions", "n", "b"]);
        let questions = view.member("questions").unwrap().items().unwrap();
        let prompt = questions[0].member("prompt").unwrap();
        assert_eq!(prompt.as_text().unwrap(), "a\"\\\n\u{1}😀");
        assert_eq!(view.member("n").unwrap().json_type(), JsonType::Null);
        let b = view.member("b").unwrap().items().unwrap();
        assert_eq!(b[2].json_type(), JsonType::Number);
        assert!(!b[2].is_number_one());
    }

    #[test]
    fn plain_text_is_read_only_where_json_parse_reads_the_same_value() {
        let text =
            " {\n  \"version\": 1,\t\"questions\": [ {\"prompt\": \"caf\\u00e9 \\/\"} ]\r\n} ";
        let value = Canonical::read_plain(text).unwrap();
        assert!((&value).member("version").unwrap().is_number_one());
        let questions = (&value).member("questions").unwrap().items().unwrap();
        assert_eq!(
            questions[0].member("prompt").unwrap().as_text().unwrap(),
            "café /"
        );
        // What the host reads otherwise, or not at all, goes to the host.
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"__proto__": 1}"#,
            "1.0",
            "1e0",
            "01",
            "-",
            "\"\u{1}\"",
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            "\u{feff}{}",
            "{} x",
        ] {
            assert_eq!(Canonical::read_plain(text), None, "{text:?}");
        }
        assert!(Canonical::read_plain("[-0, 10, 1]").is_some());
    }

    #[test]
    fn lone_surrogates_read_as_one_replacement_character() {
        let value = Canonical::read(r#""\ud800x\udc00\ud800\ud800\ud83d\ude00""#).unwrap();
        assert_eq!(
            (&value).as_text().unwrap(),
            "\u{fffd}x\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}"
        );
    }

    #[test]
    fn anything_else_is_refused() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "\"\\x\"",
            "1 ",
            "tru",
            "[]]",
            "-",
            "\"\\u12\"",
        ] {
            assert_eq!(Canonical::read(text), None, "{text:?}");
        }
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(Canonical::read(&deep), None);
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(Canonical::read(&fine).is_some());
    }
}
