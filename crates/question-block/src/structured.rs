//! The structured question: the title, prompt, options and multi-select flag
//! that every question renderer consumes, and that a negotiator hands over
//! when it parks on a question.
//!
//! Unlike the block, this shape drops unknown keys rather than rejecting
//! them (zod's default object), which is exactly serde's default; garde
//! checks the limits, counted in UTF-16 code units as the reference counts.

use garde::Validate;
use index_js::Problems;
use serde::{Deserialize, Serialize};

/// One answer a person can pick.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Validate)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct QuestionOption {
    /// What the option says: 1 to 120 UTF-16 code units. Renderers list the
    /// safest option first.
    #[garde(length(utf16, min = 1, max = 120))]
    pub label: String,
    /// What choosing it leads to: 1 to 280 UTF-16 code units.
    #[garde(length(utf16, min = 1, max = 280))]
    pub description: String,
}

/// A question with 2 to 4 options.
///
/// ```
/// use index_question_block::StructuredQuestion;
/// let question = StructuredQuestion::from_json_value(&serde_json::json!({
///     "title": "Timing",
///     "prompt": "When could you start?",
///     "options": [
///         {"label": "This month", "description": "The retry offers an immediate start."},
///         {"label": "Next quarter", "description": "The retry proposes a later start date."}
///     ],
///     "multiSelect": false,
///     "extra": "dropped, as the reference drops it"
/// }))?;
/// assert_eq!(question.options.len(), 2);
/// # Ok::<(), index_question_block::InvalidStructuredQuestion>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Validate)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StructuredQuestion {
    /// A short noun for what is being decided: 1 to 12 UTF-16 code units.
    #[garde(length(utf16, min = 1, max = 12))]
    pub title: String,
    /// The question itself: 1 to 400 UTF-16 code units.
    #[garde(length(utf16, min = 1, max = 400))]
    pub prompt: String,
    /// 2 to 4 options; clients add a free-text fallback of their own.
    #[garde(length(min = 2, max = 4), dive)]
    pub options: Vec<QuestionOption>,
    /// Whether more than one option may be picked.
    #[garde(skip)]
    pub multi_select: bool,
}

/// Why a value is not a [`StructuredQuestion`]: each problem as
/// `path: message`, paths written zod's way (`options.1.label`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("invalid structured question: {problems}")]
pub struct InvalidStructuredQuestion {
    problems: Problems<String>,
}

impl InvalidStructuredQuestion {
    /// Every problem found, as `path: message`, in the one list shape every
    /// contract reports with.
    pub fn problems(&self) -> &Problems<String> {
        &self.problems
    }
}

impl StructuredQuestion {
    /// Reads and checks a structured question from parsed JSON.
    ///
    /// # Errors
    ///
    /// A wrong or missing field is reported on its own (the shape is read
    /// first); a well-shaped question reports every limit it breaks.
    pub fn from_json_value(value: &serde_json::Value) -> Result<Self, InvalidStructuredQuestion> {
        // serde would read a struct from an array as well; the contract (and
        // zod) want an object, at both levels.
        let options_are_objects = value
            .get("options")
            .and_then(serde_json::Value::as_array)
            .is_none_or(|options| options.iter().all(serde_json::Value::is_object));
        if !value.is_object() || !options_are_objects {
            return Err(InvalidStructuredQuestion {
                problems: Problems::one(
                    "a structured question and each of its options must be JSON objects".to_owned(),
                ),
            });
        }
        let question =
            StructuredQuestion::deserialize(value).map_err(|err| InvalidStructuredQuestion {
                problems: Problems::one(err.to_string()),
            })?;
        question.check()?;
        Ok(question)
    }

    /// Checks every limit, reporting each problem with its path.
    ///
    /// ```
    /// use index_question_block::{QuestionOption, StructuredQuestion};
    /// let option = QuestionOption { label: "Yes".into(), description: "Go ahead.".into() };
    /// let question = StructuredQuestion {
    ///     title: "A title that is too long".into(),
    ///     prompt: "Proceed?".into(),
    ///     options: vec![option],
    ///     multi_select: false,
    /// };
    /// assert_eq!(question.check().unwrap_err().problems().len(), 2);
    /// ```
    pub fn check(&self) -> Result<(), InvalidStructuredQuestion> {
        let problems = match self.validate() {
            Ok(()) => Vec::new(),
            Err(report) => report
                .iter()
                .map(|(path, error)| format!("{}: {error}", zod_path(&path.to_string())))
                .collect(),
        };
        Problems::check(problems).map_err(|problems| InvalidStructuredQuestion { problems })
    }
}

/// garde writes `options[1].label`; zod, and this crate, `options.1.label`.
fn zod_path(garde_path: &str) -> String {
    garde_path.replace('[', ".").replace(']', "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arrays_are_not_objects() {
        let option = json!({"label": "A", "description": "Picks A."});
        let valid = json!({"title": "T", "prompt": "P?", "options": [option, option], "multiSelect": false});
        assert!(StructuredQuestion::from_json_value(&valid).is_ok());
        assert!(
            StructuredQuestion::from_json_value(&json!(["T", "P?", [option, option], false]))
                .is_err()
        );
        let array_options = json!({"title": "T", "prompt": "P?", "options": [["A", "Picks A."], ["B", "Picks B."]], "multiSelect": false});
        assert!(StructuredQuestion::from_json_value(&array_options).is_err());
    }
}
