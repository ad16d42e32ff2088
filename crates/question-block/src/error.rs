//! Why a block is invalid, and why a body is not a question message.

use std::fmt;

pub use index_js::{IssuePath, JsonType, PathSegment};
use index_js::{Problems, ZodIssueKind, ZodMajor, push_decimal};

/// The text `push` appends to an empty string.
fn built(push: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    push(&mut out);
    out
}

/// What is wrong at a path. The variants follow zod's issue codes, which is
/// what decides whether later checks still run (see [`IssueCode::aborts`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueCode {
    /// A required value is missing (`received` is `None`) or has the wrong type.
    InvalidType {
        /// The type the contract wants here.
        expected: JsonType,
        /// The type found, or `None` when the key is absent.
        received: Option<JsonType>,
    },
    /// `version` is not the literal 1.
    InvalidVersion,
    /// A string is shorter (in UTF-16 code units) or an array has fewer items
    /// than allowed.
    TooSmall {
        /// The least allowed.
        minimum: usize,
        /// Whether a string or an array was measured.
        of: JsonType,
    },
    /// A string is longer (in UTF-16 code units) or an array has more items
    /// than allowed.
    TooBig {
        /// The most allowed.
        maximum: usize,
        /// Whether a string or an array was measured.
        of: JsonType,
    },
    /// A negotiation reference is not a UUID as the reference's check reads one.
    InvalidUuid,
    /// A strict object carries keys the contract does not define.
    UnrecognizedKeys {
        /// The unknown keys, in the order the object holds them.
        keys: Vec<String>,
    },
    /// A negotiation reference appears a second time in the block.
    DuplicateRef {
        /// The repeated reference.
        reference: String,
    },
}

impl IssueCode {
    /// A stable kebab-case name for the rule broken, for logs, tooling and
    /// fixture names (`invalid-uuid`, `duplicate-ref`, ...).
    pub fn rule(&self) -> &'static str {
        match self {
            IssueCode::InvalidType { received: None, .. } => "missing-field",
            IssueCode::InvalidType { .. } => "wrong-type",
            IssueCode::InvalidVersion => "invalid-version",
            IssueCode::TooSmall {
                of: JsonType::Array,
                ..
            } => "too-few-items",
            IssueCode::TooSmall { .. } => "too-short",
            IssueCode::TooBig {
                of: JsonType::Array,
                ..
            } => "too-many-items",
            IssueCode::TooBig { .. } => "too-long",
            IssueCode::InvalidUuid => "invalid-uuid",
            IssueCode::UnrecognizedKeys { .. } => "unknown-key",
            IssueCode::DuplicateRef { .. } => "duplicate-ref",
        }
    }

    /// Whether this problem stops the block-wide checks (the duplicate-ref
    /// rule) from running, as zod 3, the reference's, decides: a failed
    /// type or literal check does; length, UUID and unknown-key problems
    /// do not.
    pub fn aborts(&self) -> bool {
        ZodMajor::V3.aborts(self.zod_kind())
    }

    /// The kind of problem zod reports for this one.
    #[inline]
    fn zod_kind(&self) -> ZodIssueKind {
        match self {
            IssueCode::InvalidType { .. } => ZodIssueKind::InvalidType,
            IssueCode::InvalidVersion => ZodIssueKind::InvalidValue,
            IssueCode::TooSmall { .. } => ZodIssueKind::TooSmall,
            IssueCode::TooBig { .. } => ZodIssueKind::TooBig,
            IssueCode::InvalidUuid => ZodIssueKind::InvalidFormat,
            IssueCode::UnrecognizedKeys { .. } => ZodIssueKind::UnrecognizedKeys,
            IssueCode::DuplicateRef { .. } => ZodIssueKind::Custom,
        }
    }
}

impl IssueCode {
    /// The problem as [`Display`](fmt::Display) writes it, built without
    /// `core::fmt` (see [`ValidationIssue::path_text`]).
    ///
    /// ```
    /// use index_question_block::IssueCode;
    /// assert_eq!(IssueCode::InvalidUuid.text(), "is not a UUID");
    /// ```
    pub fn text(&self) -> String {
        built(|out| self.push_text(out))
    }

    fn push_text(&self, out: &mut String) {
        let mut limit = |words: &str, n: usize, unit: &str| {
            out.push_str(words);
            push_decimal(out, n);
            out.push_str(unit);
        };
        match self {
            IssueCode::InvalidType {
                expected,
                received: None,
            } => {
                out.push_str("is required (");
                out.push_str(expected.phrase());
                out.push(')');
            }
            IssueCode::InvalidType {
                expected,
                received: Some(received),
            } => {
                out.push_str("should be ");
                out.push_str(expected.phrase());
                out.push_str(", not ");
                out.push_str(received.phrase());
            }
            IssueCode::InvalidVersion => out.push_str("should be the number 1"),
            IssueCode::TooSmall {
                minimum,
                of: JsonType::Array,
            } => limit("needs at least ", *minimum, " item(s)"),
            IssueCode::TooSmall { minimum, .. } => {
                limit("needs at least ", *minimum, " character(s)");
            }
            IssueCode::TooBig {
                maximum,
                of: JsonType::Array,
            } => limit("allows at most ", *maximum, " item(s)"),
            IssueCode::TooBig { maximum, .. } => limit(
                "allows at most ",
                *maximum,
                " character(s), counted in UTF-16 code units",
            ),
            IssueCode::InvalidUuid => out.push_str("is not a UUID"),
            IssueCode::UnrecognizedKeys { keys } => {
                out.push_str("has unknown key(s): ");
                for (i, key) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('\'');
                    out.push_str(key);
                    out.push('\'');
                }
            }
            IssueCode::DuplicateRef { reference } => {
                out.push_str("repeats negotiation ref ");
                out.push_str(reference);
                out.push_str(", which may appear only once in a block");
            }
        }
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// One problem: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValidationIssue {
    /// Where the problem is, as zod writes it.
    pub path: IssuePath,
    /// What the problem is.
    pub code: IssueCode,
}

impl ValidationIssue {
    /// Where the problem is, as a report writes it: zod's dotted path
    /// (`questions.1.prompt`), or `(root)` for the block itself. Built
    /// without `core::fmt`, so a WebAssembly build that calls only the
    /// `text` methods links none of the formatting machinery.
    ///
    /// ```
    /// use index_question_block::{IssueCode, IssuePath, ValidationIssue};
    /// let issue = ValidationIssue { path: IssuePath::default(), code: IssueCode::InvalidVersion };
    /// assert_eq!(issue.path_text(), "(root)");
    /// let issue = ValidationIssue { path: IssuePath::default().key("questions").index(1), ..issue };
    /// assert_eq!(issue.path_text(), "questions.1");
    /// ```
    pub fn path_text(&self) -> String {
        built(|out| self.push_path_text(out))
    }

    fn push_path_text(&self, out: &mut String) {
        if self.path.is_root() {
            out.push_str("(root)");
        }
        self.path.push_text(out);
    }

    fn push_text(&self, out: &mut String) {
        self.push_path_text(out);
        out.push_str(": ");
        self.code.push_text(out);
    }
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&built(|out| self.push_text(out)))
    }
}

/// A block that breaks the contract, with every problem found, in the order
/// the reference's schema reports them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub struct InvalidQuestionBlock {
    issues: Problems<ValidationIssue>,
}

impl InvalidQuestionBlock {
    pub(crate) fn new(issues: Problems<ValidationIssue>) -> Self {
        InvalidQuestionBlock { issues }
    }

    /// Every problem, as the one list shape every contract reports with;
    /// the block's own type adds the report's wording, which the browser
    /// build writes without `core::fmt`.
    pub fn issues(&self) -> &Problems<ValidationIssue> {
        &self.issues
    }
}

impl InvalidQuestionBlock {
    /// The report as [`Display`](fmt::Display) writes it (a count, then one
    /// problem per line), built without `core::fmt` (see
    /// [`ValidationIssue::path_text`]).
    pub fn text(&self) -> String {
        built(|out| self.push_text(out))
    }

    fn push_text(&self, out: &mut String) {
        out.push_str("invalid question block (");
        push_decimal(out, self.issues.len());
        out.push_str(" problem(s))");
        for issue in &self.issues {
            out.push_str("\n  ");
            issue.push_text(out);
        }
    }
}

impl fmt::Display for InvalidQuestionBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl NotAQuestionMessage {
    /// A stable kebab-case name for the first rule the body breaks; for an
    /// invalid block, the rule of its first problem.
    ///
    /// ```
    /// use index_question_block::explain_question_message;
    /// assert_eq!(explain_question_message("hello").unwrap_err().rule(), "no-marker-fence");
    /// ```
    pub fn rule(&self) -> &'static str {
        match self {
            NotAQuestionMessage::NoMarkerFence => "no-marker-fence",
            NotAQuestionMessage::NothingAfterFence { .. } => "nothing-after-fence",
            NotAQuestionMessage::Unclosed { .. } => "unclosed-fence",
            NotAQuestionMessage::ContentAfterBlock { .. } => "content-after-block",
            NotAQuestionMessage::InvalidJson { .. } => "invalid-json",
            NotAQuestionMessage::InvalidBlock(invalid) => invalid.issues().first().code.rule(),
        }
    }
}

/// Why a body is not a question message, so it renders as plain text.
///
/// Lines and columns are 1-based and count the body's lines as the parser
/// does (LF, CR, U+2028 and U+2029 each end a line; CRLF ends one); columns
/// count characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotAQuestionMessage {
    /// No line is an opening fence: three or more backticks, the marker,
    /// then only spaces or tabs.
    NoMarkerFence,
    /// The last opening fence is the body's final line, so no block follows it.
    NothingAfterFence {
        /// The opening fence's line.
        line: usize,
    },
    /// No line after the opening fence closes it with exactly as many backticks.
    Unclosed {
        /// The opening fence's line.
        line: usize,
        /// How many backticks the closing line needs.
        fence_length: usize,
    },
    /// Something other than whitespace follows the closing fence.
    ContentAfterBlock {
        /// The first line after the closing fence that holds text.
        line: usize,
    },
    /// The fenced payload is not JSON.
    InvalidJson {
        /// Line in the body.
        line: usize,
        /// Column in that line.
        column: usize,
        /// What the JSON reader expected.
        reason: String,
    },
    /// The payload is JSON but breaks the block contract.
    InvalidBlock(InvalidQuestionBlock),
}

impl NotAQuestionMessage {
    /// The reason as [`Display`](fmt::Display) writes it, built without
    /// `core::fmt` (see [`ValidationIssue::path_text`]).
    ///
    /// ```
    /// use index_question_block::explain_question_message;
    /// let why = explain_question_message("```index-questions").unwrap_err();
    /// assert_eq!(why.text(), why.to_string());
    /// ```
    pub fn text(&self) -> String {
        const FENCE: &str = "the `index-questions` fence on line ";
        let mut out = String::new();
        match self {
            NotAQuestionMessage::NoMarkerFence => {
                out.push_str("no line opens an `index-questions` fence");
            }
            NotAQuestionMessage::NothingAfterFence { line } => {
                out.push_str(FENCE);
                push_decimal(&mut out, *line);
                out.push_str(" ends the message; no block follows it");
            }
            NotAQuestionMessage::Unclosed { line, fence_length } => {
                out.push_str(FENCE);
                push_decimal(&mut out, *line);
                out.push_str(" is never closed by a line of exactly ");
                push_decimal(&mut out, *fence_length);
                out.push_str(" backticks");
            }
            NotAQuestionMessage::ContentAfterBlock { line } => {
                out.push_str("line ");
                push_decimal(&mut out, *line);
                out.push_str(
                    " has text after the block's closing fence; the block must end the message",
                );
            }
            NotAQuestionMessage::InvalidJson {
                line,
                column,
                reason,
            } => {
                out.push_str("the block is not valid JSON at line ");
                push_decimal(&mut out, *line);
                out.push_str(", column ");
                push_decimal(&mut out, *column);
                out.push_str(": ");
                out.push_str(reason);
            }
            NotAQuestionMessage::InvalidBlock(invalid) => invalid.push_text(&mut out),
        }
        out
    }
}

impl fmt::Display for NotAQuestionMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// The block's report is the message itself, so it is shown, not chained.
impl std::error::Error for NotAQuestionMessage {}

impl From<InvalidQuestionBlock> for NotAQuestionMessage {
    fn from(invalid: InvalidQuestionBlock) -> Self {
        NotAQuestionMessage::InvalidBlock(invalid)
    }
}
