//! The safety gate for an authored question: fail closed, never rewrite.
//!
//! A question a model wrote reaches a person, and its answer flows back into
//! a negotiation. Before that, every visible field is checked for what must
//! never be in it: internal identifiers, pointers at private material, the
//! counterparty's name, an echo of the evaluator's reasoning, and anything
//! shaped like an instruction to a model.

use index_question_block::StructuredQuestion;
use index_question_block::js::{trim, utf16_len};

/// The longest a visible field may be, in UTF-16 code units after trimming.
pub const MAX_VISIBLE_FIELD_LENGTH: usize = 600;

/// The shortest forbidden identifier that is checked (shorter ones match
/// too much ordinary text to mean anything).
pub const MIN_FORBIDDEN_IDENTIFIER_LENGTH: usize = 3;

/// The shortest normalised text that counts as an echo of source text.
pub const MIN_ECHO_LENGTH: usize = 24;

/// Whether an authored question may be shown to a person as it is.
///
/// Unsafe when it does not have 2 to 4 options, or when any visible field
/// (title, prompt, each option's label and description) is empty after
/// trimming, longer than [`MAX_VISIBLE_FIELD_LENGTH`], or contains:
///
/// * an internal identifier: a UUID, or a task, intent, network,
///   opportunity, user or match id token (`taskId`, `intent_id`, `user id`);
/// * a reference to private sources: raw or private transcripts, assessment
///   or evaluator reasoning or output, match reasons, internal metadata,
///   counterparty profiles;
/// * a forbidden identifier of [`MIN_FORBIDDEN_IDENTIFIER_LENGTH`] or more
///   characters as a whole word, ignoring case and punctuation;
/// * an echo of forbidden source text: the two, normalised, contain one
///   another over [`MIN_ECHO_LENGTH`] or more characters;
/// * something shaped like an instruction to a model: override phrasings,
///   a role header such as `system:` at a line start, chat-template tokens,
///   `[INST]`/`[SYS]` tags, or a line made only of dashes.
///
/// ```
/// use index_question_block::{QuestionOption, StructuredQuestion};
/// use index_stall_gap::is_safe_authored_negotiation_question;
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("The retry offers {l}.") };
/// let question = StructuredQuestion {
///     title: "Budget".into(),
///     prompt: "Which budget should the retry offer?".into(),
///     options: vec![option("the lower figure"), option("the higher figure")],
///     multi_select: false,
/// };
/// assert!(is_safe_authored_negotiation_question(&question, &[], &[]));
/// assert!(!is_safe_authored_negotiation_question(&question, &["Budget".into()], &[]));
/// ```
pub fn is_safe_authored_negotiation_question(
    question: &StructuredQuestion,
    forbidden_identifiers: &[String],
    forbidden_source_text: &[String],
) -> bool {
    if !(2..=4).contains(&question.options.len()) {
        return false;
    }
    let identifiers: Vec<String> = forbidden_identifiers
        .iter()
        .map(|id| words(id))
        .filter(|id| id.len() >= MIN_FORBIDDEN_IDENTIFIER_LENGTH)
        .collect();
    let sources: Vec<String> = forbidden_source_text.iter().map(|s| compact(s)).collect();
    visible_fields(question).all(|field| is_safe_field(field, &identifiers, &sources))
}

fn visible_fields(question: &StructuredQuestion) -> impl Iterator<Item = &str> {
    [question.title.as_str(), question.prompt.as_str()]
        .into_iter()
        .chain(
            question
                .options
                .iter()
                .flat_map(|option| [option.label.as_str(), option.description.as_str()]),
        )
}

fn is_safe_field(field: &str, identifiers: &[String], sources: &[String]) -> bool {
    let trimmed = trim(field);
    if trimmed.is_empty() || utf16_len(trimmed) > MAX_VISIBLE_FIELD_LENGTH {
        return false;
    }
    let text = words(trimmed);
    let padded = format!(" {text} ");
    !contains_uuid(trimmed)
        && !has_id_token(&text)
        && !PRIVATE_SOURCE_PHRASES
            .iter()
            .any(|p| padded.contains(&format!(" {p} ")))
        && !identifiers
            .iter()
            .any(|id| padded.contains(&format!(" {id} ")))
        && !echoes(&compact(trimmed), sources)
        && !looks_like_instructions(trimmed, &padded)
}

/// Lowercase alphanumeric words separated by single spaces: case and
/// punctuation ignored.
fn words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lowercase alphanumerics only, for echo comparison.
fn compact(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn echoes(field: &str, sources: &[String]) -> bool {
    sources.iter().any(|source| {
        (source.chars().count() >= MIN_ECHO_LENGTH && field.contains(source.as_str()))
            || (field.chars().count() >= MIN_ECHO_LENGTH && source.contains(field))
    })
}

fn contains_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(36).any(|window| {
        window.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
    })
}

const ID_SUBJECTS: [&str; 6] = ["task", "intent", "network", "opportunity", "user", "match"];

/// `taskId`, `task_id`, `task-id`, `task id` (and plurals), as words.
fn has_id_token(text: &str) -> bool {
    let tokens: Vec<&str> = text.split(' ').collect();
    tokens.iter().enumerate().any(|(i, token)| {
        ID_SUBJECTS.iter().any(|subject| {
            let joined = token
                .strip_prefix(subject)
                .is_some_and(|rest| rest == "id" || rest == "ids");
            let split = *token == *subject && matches!(tokens.get(i + 1), Some(&"id" | &"ids"));
            joined || split
        })
    })
}

const PRIVATE_SOURCE_PHRASES: [&str; 16] = [
    "raw transcript",
    "raw transcripts",
    "private transcript",
    "private transcripts",
    "assessment reasoning",
    "evaluator reasoning",
    "evaluator output",
    "evaluator outputs",
    "match reason",
    "match reasons",
    "match reasoning",
    "internal metadata",
    "counterparty profile",
    "counterparty profiles",
    "counterparty s profile",
    "counterpart profile",
];

const OVERRIDE_PHRASES: [&str; 11] = [
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore prior instructions",
    "ignore the above",
    "ignore all prior instructions",
    "disregard previous instructions",
    "disregard all previous instructions",
    "disregard the above",
    "forget previous instructions",
    "forget your instructions",
    "override your instructions",
];

const ROLE_HEADERS: [&str; 5] = ["system:", "assistant:", "user:", "developer:", "tool:"];

const TEMPLATE_MARKERS: [&str; 8] = [
    "<|", "|>", "[inst]", "[/inst]", "[sys]", "[/sys]", "<<sys>>", "<</sys>>",
];

fn looks_like_instructions(raw: &str, padded_words: &str) -> bool {
    let lower = raw.to_lowercase();
    OVERRIDE_PHRASES
        .iter()
        .any(|p| padded_words.contains(&format!(" {p} ")))
        || padded_words.contains(" you are now a ")
        || padded_words.contains(" you are now an ")
        || lower.contains("new instructions:")
        || TEMPLATE_MARKERS.iter().any(|m| lower.contains(m))
        || lower
            .split(['\n', '\r', '\u{2028}', '\u{2029}'])
            .any(|line| {
                let line = line.trim_start();
                ROLE_HEADERS.iter().any(|header| line.starts_with(header))
                    || (line.trim_end().len() >= 3 && line.trim_end().chars().all(|c| c == '-'))
            })
}
