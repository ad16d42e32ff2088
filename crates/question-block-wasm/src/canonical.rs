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
//! panic; where the host's writer never goes (raw control characters, the
//! spelling of a number other than 1) it is lenient.

use std::borrow::Cow;

use index_question_block::{JsonType, JsonView};

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
        let mut reader = Reader {
            text,
            at: 0,
            depth: 0,
        };
        let value = reader.value()?;
        (reader.at == text.len()).then_some(value)
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
}

/// How deep arrays and objects may nest: far past any block, and shallow
/// enough that reading never exhausts the stack.
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
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
                let key = self.string()?;
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
            let stop = loop {
                match self.peek()? {
                    stop @ (b'"' | b'\\') => break stop,
                    _ => self.at += 1,
                }
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
                b'u' => char::from_u32(self.hex4()?).unwrap_or(char::REPLACEMENT_CHARACTER),
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
