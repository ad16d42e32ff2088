//! The safety gate for an authored question: fail closed, never rewrite.
//!
//! A question a model wrote reaches a person verbatim, and the option they
//! pick flows back into a negotiator's prompt. Before that, every visible
//! field is checked, in layers:
//!
//! 1. [`text`] normalises once (NFKC, invisible characters removed, the
//!    confusables skeleton, case folded), so no rule can be passed by
//!    spelling its words with full-width, look-alike or hidden characters;
//! 2. [`identifiers`], [`contacts`], [`names`], [`echoes`] and
//!    [`instructions`] each look for one kind of leak or attack in those
//!    views, and the first that fires is the reason the question is refused.
//!
//! The reference's rules (whole-word names, containment of private text, a
//! list of override phrasings) are all still here; each layer widens one of
//! them to the spellings a reader would also recognise.
//!
//! | module | holds |
//! |---|---|
//! | `text` | the views of a field every rule reads |
//! | `phrases` | folded phrase lists indexed by first word |
//! | `word_map` | a map from words to values for the fixed word lists |
//! | `addresses` | postal addresses by their structure |
//! | `contacts` | contact details in any dress |
//! | `echoes` | private text quoted or paraphrased |
//! | `identifiers` | internal identifiers in any spelling |
//! | `instructions` | text shaped like an instruction to a model, and forged structure |
//! | `names` | the counterparty's name, however written |
//! | `number_words` | phone numbers read out in groups, or in katakana |
//! | `private_sources` | offers of what the other side keeps to itself |
//! | `quantities` | quantities normalised so one fact written two ways compares equal |

mod addresses;
mod contacts;
mod echoes;
mod identifiers;
mod instructions;
mod names;
mod number_words;
mod phrases;
mod private_sources;
mod quantities;
mod text;
mod word_map;

use std::fmt;
use std::sync::LazyLock;

use index_js::{trim, utf16_len};
use index_question_block::StructuredQuestion;

use echoes::Source;
use names::Name;
use phrases::{Matching, PhraseIndex};
use text::Text;

/// The longest a visible field may be, in UTF-16 code units after trimming.
pub const MAX_VISIBLE_FIELD_LENGTH: usize = 600;

/// The shortest forbidden identifier, or part of one, that is checked
/// (shorter ones match too much ordinary text to mean anything).
pub const MIN_FORBIDDEN_IDENTIFIER_LENGTH: usize = 3;

/// The shortest normalised text that counts as an echo when one text holds
/// the other whole.
pub const MIN_ECHO_LENGTH: usize = 24;

index_js::wire_enum! {
    crate index_stall_gap;
    /// Which rule refused a question: the reason code a host logs and reports.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum GateRule {
        /// Fewer than 2 or more than 4 options.
        OptionCount = "option_count",
        /// A visible field empty after trimming.
        EmptyField = "empty_field",
        /// A visible field over [`MAX_VISIBLE_FIELD_LENGTH`].
        FieldTooLong = "field_too_long",
        /// An internal identifier: a UUID in any spelling, another opaque id
        /// format, or an id word with a value.
        Identifier = "identifier",
        /// An e-mail address, URL, social handle or phone number, plain or
        /// obfuscated.
        ContactDetail = "contact_detail",
        /// A reference to private sources (transcripts, evaluator reasoning,
        /// internal metadata, counterparty profiles).
        PrivateSource = "private_source",
        /// The counterparty's name, whole or in part.
        CounterpartyName = "counterparty_name",
        /// An echo of private text: quoted, quoted in part, or paraphrased.
        Echo = "echo",
        /// Text addressed to a model, or structure forged inside the question
        /// (markup included).
        Instruction = "instruction",
        /// Characters a person does not see but a model reads (Unicode tag
        /// characters, zero-width characters), or that reorder what is
        /// shown (bidirectional controls): the text checked and shown must
        /// be the text a model reads.
        HiddenText = "hidden_text",
        /// The second opinion a host asked for refused a question the rules
        /// passed (see `QuestionJudge`); the field is not named, as a
        /// model judges the question whole.
        ModelJudge = "model_judge",
    }
}

impl fmt::Display for GateRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A visible field of a question, named without its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuestionField {
    /// The title.
    Title,
    /// The prompt.
    Prompt,
    /// The label of the option at this index.
    OptionLabel(usize),
    /// The description of the option at this index.
    OptionDescription(usize),
}

impl fmt::Display for QuestionField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuestionField::Title => f.write_str("title"),
            QuestionField::Prompt => f.write_str("prompt"),
            QuestionField::OptionLabel(i) => write!(f, "options[{i}].label"),
            QuestionField::OptionDescription(i) => write!(f, "options[{i}].description"),
        }
    }
}

/// Why the gate refused a question: the rule and the field, never the text
/// (the refusal is logged, and the text may be exactly what must not be).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub struct GateRefusal {
    /// The rule that fired.
    pub rule: GateRule,
    /// The field it fired on; `None` for the option count.
    pub field: Option<QuestionField>,
}

impl fmt::Display for GateRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Some(field) => write!(f, "the question's {field} breaks the {} rule", self.rule),
            None => write!(f, "the question breaks the {} rule", self.rule),
        }
    }
}

/// Whether an authored question may be shown to a person as it is: the
/// reference's boolean form of [`check_authored_negotiation_question`].
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
/// // A question that repeats a private text is not.
/// let private = ["Which budget should the retry offer?".to_owned()];
/// assert!(!is_safe_authored_negotiation_question(&question, &[], &private));
/// ```
pub fn is_safe_authored_negotiation_question(
    question: &StructuredQuestion,
    forbidden_identifiers: &[String],
    forbidden_source_text: &[String],
) -> bool {
    check_authored_negotiation_question(question, forbidden_identifiers, forbidden_source_text)
        .is_ok()
}

/// Checks an authored question, and says which rule refused it.
///
/// Refused when it does not have 2 to 4 options, or when any visible field
/// (title, prompt, each option's label and description) is empty after
/// trimming, longer than [`MAX_VISIBLE_FIELD_LENGTH`], or contains, after
/// normalisation:
///
/// * a contact detail ([`GateRule::ContactDetail`]): an e-mail address or
///   URL, also defanged (`[at]`, `(dot)`, `hxxp`) or spoken (`at`, `dot`),
///   a social handle, a phone number, also spelled out in words;
/// * an internal identifier ([`GateRule::Identifier`]): 32 hex digits with
///   any separators, a long token mixing letters and digits (object ids,
///   ULIDs), a code-style word (`intent_id`, `userId`), or an id word with a
///   value (`ID: 7f3a`, `opportunity 8f3e9a`);
/// * a reference to private sources ([`GateRule::PrivateSource`]);
/// * a forbidden identifier ([`GateRule::CounterpartyName`]): the whole
///   name, or any part of [`MIN_FORBIDDEN_IDENTIFIER_LENGTH`] or more
///   characters as a whole word, except parts that are common English words
///   (`Grid`), which count only as part of the whole name, and parts that
///   are both a word and a name (`Grace`), which count where capitalised;
/// * an echo of forbidden source text ([`GateRule::Echo`]): one contains
///   the other over [`MIN_ECHO_LENGTH`] or more characters, they share a run
///   of four words (two of them content words) or three content words in a
///   row, or most of the field's content words are the source's;
/// * text addressed to a model or forged structure
///   ([`GateRule::Instruction`]): an override verb with what it overrides
///   (`ignore … instructions`), phrases such as `you are now`, a role header
///   or role tag, a markdown heading or rule line, a code fence, the
///   question block's marker, chat-template tokens.
///
/// Fields are checked in order (title, prompt, then each option's label and
/// description), and the first rule that fires on the first such field is
/// the refusal.
///
/// # Errors
///
/// The [`GateRefusal`] when the question must not be shown.
///
/// ```
/// use index_question_block::{QuestionOption, StructuredQuestion};
/// use index_stall_gap::{GateRule, QuestionField, check_authored_negotiation_question};
/// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Offer {l}.") };
/// let question = StructuredQuestion {
///     title: "Budget".into(),
///     prompt: "Could you write to dana [at] example [dot] com?".into(),
///     options: vec![option("less"), option("more")],
///     multi_select: false,
/// };
/// let refusal = check_authored_negotiation_question(&question, &[], &[]).unwrap_err();
/// assert_eq!(refusal.rule, GateRule::ContactDetail);
/// assert_eq!(refusal.field, Some(QuestionField::Prompt));
/// ```
pub fn check_authored_negotiation_question(
    question: &StructuredQuestion,
    forbidden_identifiers: &[String],
    forbidden_source_text: &[String],
) -> Result<(), GateRefusal> {
    if !(2..=4).contains(&question.options.len()) {
        return Err(GateRefusal {
            rule: GateRule::OptionCount,
            field: None,
        });
    }
    let private = Private {
        names: forbidden_identifiers
            .iter()
            .filter_map(|name| Name::new(name))
            .collect(),
        sources: forbidden_source_text
            .iter()
            .map(|text| Source::new(text))
            .collect(),
    };
    for (field, value) in visible_fields(question) {
        if let Err(rule) = check_field(value, &private) {
            return Err(GateRefusal {
                rule,
                field: Some(field),
            });
        }
    }
    Ok(())
}

/// The text the gate reads of a visible field, before any rule folds it:
/// NFKC, HTML character references decoded and invisible characters
/// removed, repeated until nothing changes (so normalising twice changes
/// nothing).
///
/// The gate refuses a field whose text differs from this by more than
/// NFKC: one holding invisible characters ([`GateRule::HiddenText`]) or
/// character references ([`GateRule::Instruction`]). So for a question
/// it passes, the text a person is shown and a model reads is, up to
/// compatibility forms that look the same, the text that was checked.
///
/// ```
/// use index_stall_gap::normalized_visible_text;
/// assert_eq!(normalized_visible_text("ｆｉｎｅ &lt;b&gt;"), "fine <b>");
/// assert_eq!(normalized_visible_text("He\u{200b}lios\u{e0041}"), "Helios");
/// let once = normalized_visible_text("&amp;lt;");
/// assert_eq!(normalized_visible_text(&once), once);
/// ```
pub fn normalized_visible_text(field: &str) -> String {
    text::plain(field)
}

/// What the question may not reveal, prepared once for every field.
struct Private {
    names: Vec<Name>,
    sources: Vec<Source>,
}

fn visible_fields(question: &StructuredQuestion) -> impl Iterator<Item = (QuestionField, &str)> {
    [
        (QuestionField::Title, question.title.as_str()),
        (QuestionField::Prompt, question.prompt.as_str()),
    ]
    .into_iter()
    .chain(question.options.iter().enumerate().flat_map(|(i, option)| {
        [
            (QuestionField::OptionLabel(i), option.label.as_str()),
            (
                QuestionField::OptionDescription(i),
                option.description.as_str(),
            ),
        ]
    }))
}

fn check_field(field: &str, private: &Private) -> Result<(), GateRule> {
    let trimmed = trim(field);
    if trimmed.is_empty() {
        return Err(GateRule::EmptyField);
    }
    if utf16_len(trimmed) > MAX_VISIBLE_FIELD_LENGTH {
        return Err(GateRule::FieldTooLong);
    }
    let text = Text::new(trimmed);
    if text.tokens.is_empty() {
        // Nothing a person could read: no letter or digit survives the
        // normalisation (only invisible characters, or only symbols).
        return Err(GateRule::EmptyField);
    }
    let fired = if contacts::has_contact(&text) {
        Some(GateRule::ContactDetail)
    } else if identifiers::has_identifier(&text) {
        Some(GateRule::Identifier)
    } else if names_private_source(&text) {
        Some(GateRule::PrivateSource)
    } else if private.names.iter().any(|name| name.is_in(&text)) {
        Some(GateRule::CounterpartyName)
    } else if !private.sources.is_empty() && {
        let field = echoes::Field::new(&text);
        private
            .sources
            .iter()
            .any(|source| source.is_echoed_by(&field))
    } {
        Some(GateRule::Echo)
    } else if instructions::looks_like_instructions(&text) {
        Some(GateRule::Instruction)
    } else if text.hidden {
        Some(GateRule::HiddenText)
    } else {
        None
    };
    fired.map_or(Ok(()), Err)
}

/// Phrases that point at material the person must not be shown.
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

static PRIVATE_SOURCES: LazyLock<PhraseIndex> =
    LazyLock::new(|| PhraseIndex::of(Matching::Words, PRIVATE_SOURCE_PHRASES));

fn names_private_source(text: &Text) -> bool {
    PRIVATE_SOURCES.found_in(&text.tokens) || private_sources::offers_the_other_side(text)
}
