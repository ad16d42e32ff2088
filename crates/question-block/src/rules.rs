//! The block's rules on already-typed values, shared by the JSON reader and
//! by [`QuestionBlock::validate`](crate::QuestionBlock::validate) so the two
//! can never disagree.

use index_js::utf16_len;

use crate::block::QuestionBlockQuestion;
use crate::error::{IssueCode, JsonType, ValidationIssue};
use crate::limits::{MAX_ALSO_UNBLOCKS, MAX_PROMPT_LENGTH, MAX_QUESTIONS};

pub(crate) use index_js::At;

/// Collects problems in the order the reference's schema reports them.
#[derive(Debug, Default)]
pub(crate) struct Issues(pub(crate) Vec<ValidationIssue>);

impl Issues {
    pub(crate) fn push(&mut self, at: &At<'_>, code: IssueCode) {
        self.0.push(ValidationIssue {
            path: at.path(),
            code,
        });
    }

    /// Whether the block-wide rules may still run: zod skips a refinement
    /// once a type or literal check has failed anywhere inside.
    pub(crate) fn refinement_runs(&self) -> bool {
        !self.0.iter().any(|issue| issue.code.aborts())
    }
}

pub(crate) fn check_prompt(at: &At<'_>, prompt: &str, issues: &mut Issues) {
    let length = utf16_len(prompt);
    if length < 1 {
        issues.push(
            at,
            IssueCode::TooSmall {
                minimum: 1,
                of: JsonType::String,
            },
        );
    }
    if length > MAX_PROMPT_LENGTH {
        issues.push(
            at,
            IssueCode::TooBig {
                maximum: MAX_PROMPT_LENGTH,
                of: JsonType::String,
            },
        );
    }
}

pub(crate) fn check_ref(at: &At<'_>, reference: &str, issues: &mut Issues) {
    if !index_js::is_hyphenated_uuid(reference) {
        issues.push(at, IssueCode::InvalidUuid);
    }
}

pub(crate) fn check_question_count(at: &At<'_>, count: usize, issues: &mut Issues) {
    if count < 1 {
        issues.push(
            at,
            IssueCode::TooSmall {
                minimum: 1,
                of: JsonType::Array,
            },
        );
    }
    if count > MAX_QUESTIONS {
        issues.push(
            at,
            IssueCode::TooBig {
                maximum: MAX_QUESTIONS,
                of: JsonType::Array,
            },
        );
    }
}

pub(crate) fn check_also_unblocks_count(at: &At<'_>, count: usize, issues: &mut Issues) {
    if count > MAX_ALSO_UNBLOCKS {
        issues.push(
            at,
            IssueCode::TooBig {
                maximum: MAX_ALSO_UNBLOCKS,
                of: JsonType::Array,
            },
        );
    }
}

/// The block-wide rule: a negotiation ref names one question's negotiation,
/// so it may appear once in the whole block. Each repeat is reported at its
/// own position (`questions.Q.opportunityId` or `questions.Q.alsoUnblocks.K`).
///
/// Refs compare as exact strings, so two spellings of one UUID (`AB…` and
/// `ab…`) are distinct, as they are in the reference.
pub(crate) fn check_duplicate_refs(questions: &[QuestionBlockQuestion], issues: &mut Issues) {
    // Every ref with its place in the block (counted across questions,
    // primary first), sorted by ref and then by place: each entry whose
    // predecessor holds the same ref repeats it. (A set would cost the
    // browser build a B-tree.)
    let mut sorted: Vec<(&str, usize)> = Vec::new();
    for question in questions {
        for reference in question.refs() {
            sorted.push((reference, sorted.len()));
        }
    }
    sorted.sort_unstable();
    let mut repeated = vec![false; sorted.len()];
    for pair in sorted.windows(2) {
        if let [(earlier, _), (later, place)] = *pair
            && earlier == later
            && let Some(repeat) = repeated.get_mut(place)
        {
            *repeat = true;
        }
    }
    // Reported in the order the block holds them.
    let mut places = repeated.into_iter();
    for (question_index, question) in questions.iter().enumerate() {
        for (ref_index, reference) in question.refs().enumerate() {
            if places.next() != Some(true) {
                continue;
            }
            let root = At::Root;
            let questions = root.key("questions");
            let question = questions.index(question_index);
            let refs = question.key("alsoUnblocks");
            let at = match ref_index.checked_sub(1) {
                None => question.key("opportunityId"),
                Some(also_index) => refs.index(also_index),
            };
            issues.push(
                &at,
                IssueCode::DuplicateRef {
                    reference: reference.to_owned(),
                },
            );
        }
    }
}
