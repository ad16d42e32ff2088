//! Markup a question never has: HTML comments, elements, event handlers,
//! character references and blockquotes.
//!
//! A person sees a question as text, but a model or a web page that reads
//! the answer may read it as markup: an HTML comment carries a note no one
//! sees, `&lt;system&gt;` becomes a role tag, and a quoted line passes for
//! someone else's words.

use super::super::text::{Text, is_line_break};

/// Element names a forged tag would use.
const ELEMENTS: [&str; 48] = [
    "a",
    "abbr",
    "audio",
    "b",
    "base",
    "blockquote",
    "body",
    "br",
    "button",
    "code",
    "details",
    "div",
    "em",
    "embed",
    "font",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "li",
    "link",
    "marquee",
    "meta",
    "object",
    "ol",
    "p",
    "pre",
    "script",
    "select",
    "span",
    "strong",
    "style",
    "svg",
    "table",
    "textarea",
    "title",
    "u",
    "ul",
];

/// Whether the field holds markup (read in the plain view, where
/// character references are already decoded, and from the flag that says
/// the field had some).
pub(super) fn has_markup(text: &Text) -> bool {
    let plain = text.lower.as_str();
    text.references
        || plain.contains("<!--")
        || has_element(plain)
        || has_event_handler(plain)
        || has_unsafe_link(plain)
        || plain
            .split(is_line_break)
            .any(|line| line.trim_start().starts_with('>'))
}

/// Schemes that run or carry a document wherever they stand:
/// `javascript:alert(1)`, `data:text/html,…`.
const SCRIPT_SCHEMES: [&str; 3] = ["javascript:", "vbscript:", "data:text/"];

/// A markdown link whose target names a scheme other than `https`
/// (`[terms](javascript:…)`, `[x](http://…)`, `[x](file:…)`), or a scheme
/// that runs script anywhere, its URL after it.
/// A question the person reads has no use for a link; one that a renderer
/// would follow must at least be one the browser protects.
fn has_unsafe_link(plain: &str) -> bool {
    let markdown = plain.match_indices("](").any(|(at, _)| {
        let target = plain
            .get(at + 2..)
            .unwrap_or_default()
            .trim_start()
            .split(|c: char| c == ')' || c.is_whitespace())
            .next()
            .unwrap_or_default();
        target
            .split_once(':')
            .is_some_and(|(scheme, _)| !scheme.contains('/') && scheme != "https")
    });
    // A scheme is written with its URL straight after it: `JavaScript:
    // React or Vue?` is a question about a language.
    markdown
        || SCRIPT_SCHEMES.iter().any(|scheme| {
            plain.match_indices(scheme).any(|(at, _)| {
                let before = plain
                    .get(..at)
                    .and_then(|before| before.chars().next_back());
                let after = plain
                    .get(at + scheme.len()..)
                    .and_then(|after| after.chars().next());
                before.is_none_or(|c| !c.is_alphanumeric())
                    && after.is_some_and(|c| !c.is_whitespace())
            })
        })
}

/// `<b>`, `</span>`, `<img src=…>`: a known element's tag.
fn has_element(plain: &str) -> bool {
    plain.match_indices('<').any(|(at, _)| {
        let rest = plain.get(at + 1..).unwrap_or_default();
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let name: String = rest
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        let after = rest.get(name.len()..).unwrap_or_default();
        ELEMENTS.contains(&name.as_str())
            && (after.starts_with(['>', '/']) || after.starts_with(char::is_whitespace))
    })
}

/// `onerror=`, `onclick =`: an attribute that runs script.
fn has_event_handler(plain: &str) -> bool {
    plain.match_indices("on").any(|(at, _)| {
        let starts_word = plain
            .get(..at)
            .and_then(|before| before.chars().next_back())
            .is_none_or(|c| !c.is_alphanumeric());
        let rest = plain.get(at + 2..).unwrap_or_default();
        let event: String = rest.chars().take_while(char::is_ascii_lowercase).collect();
        starts_word
            && event.len() >= 3
            && rest
                .get(event.len()..)
                .unwrap_or_default()
                .trim_start()
                .starts_with('=')
    })
}
