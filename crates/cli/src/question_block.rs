//! `index question-block`: parse, serialize and check question messages.

use std::path::{Path, PathBuf};

use serde::Serialize;

use index_question_block::{
    ParsedQuestionMessage, QuestionBlock, UnsendableQuestionMessage, explain_question_message,
    serialize_question_message_checked,
};

use crate::failure::Failure;
use crate::output::{BAD, GOOD, Out, read_input, styled};

/// `body` read as a question message, or the reader's reason it is not
/// one: every command that takes a message says the same.
pub(crate) fn read_message(body: &str) -> Result<ParsedQuestionMessage, Failure> {
    explain_question_message(body)
        .map_err(|why| Failure::NotAMessage(format!("not a question message: {why}")))
}

/// Prints the parsed message as JSON, or fails with the reason.
pub(crate) fn parse(file: Option<&Path>, _out: Out) -> Result<(), Failure> {
    let body = read_input(file.unwrap_or(Path::new("-")))?;
    let parsed = read_message(&body)?;
    let text = serde_json::to_string_pretty(&parsed)
        .map_err(|err| Failure::Input(format!("could not write the result: {err}")))?;
    anstream::println!("{text}");
    Ok(())
}

/// Text given on the command line, or the file (or standard input) to read
/// it from; clap makes sure exactly one is given.
pub(crate) enum Source {
    Text(String),
    File(PathBuf),
}

impl Source {
    pub(crate) fn new(text: Option<String>, file: Option<PathBuf>) -> Self {
        match (text, file) {
            (Some(text), _) => Source::Text(text),
            (None, file) => Source::File(file.unwrap_or_else(|| PathBuf::from("-"))),
        }
    }

    fn read(&self) -> Result<String, Failure> {
        match self {
            Source::Text(text) => Ok(text.clone()),
            Source::File(path) => read_input(path),
        }
    }

    /// How to name it in an error.
    fn describe(&self, what: &str) -> String {
        match self {
            Source::Text(_) => format!("--{what}"),
            Source::File(path) => path.display().to_string(),
        }
    }
}

/// Prints the message for `prose` and `block`, byte for byte (no newline
/// is added, so the output can be compared with a stored message); every
/// problem of an invalid block is listed.
pub(crate) fn serialize(prose: &Source, block: &Source, out: Out) -> Result<(), Failure> {
    let prose_text = prose.read()?;
    let block_text = block.read()?;
    let value: serde_json::Value = serde_json::from_str(&block_text).map_err(|err| {
        Failure::Input(format!(
            "{} is not valid JSON: {err}",
            block.describe("block")
        ))
    })?;
    let parsed = QuestionBlock::from_json_value(&value).map_err(|invalid| {
        Failure::Input(format!(
            "{} is not a valid question block: {invalid}",
            block.describe("block")
        ))
    })?;
    // Written only if it reads back: the reference would send a block
    // whose strings end a line beside a fence marker, and no reader finds
    // it in the bytes.
    let message =
        serialize_question_message_checked(&prose_text, &parsed).map_err(|unsendable| {
            match unsendable {
                UnsendableQuestionMessage::DoesNotReadBack { .. } => Failure::Input(format!(
                    "{unsendable}; {} holds a line or paragraph separator (U+2028, U+2029) \
                 that would end a line of the message",
                    line_breaking_fields(&value).join(", ")
                )),
                invalid => Failure::Input(invalid.to_string()),
            }
        })?;
    if out.json {
        out.json(&serde_json::json!({ "message": message }));
    } else {
        anstream::print!("{message}");
    }
    Ok(())
}

/// The paths (`questions.0.prompt`) of the strings in `block` that hold
/// U+2028 or U+2029, which JSON leaves raw and which end a line for the
/// fence search.
fn line_breaking_fields(block: &serde_json::Value) -> Vec<String> {
    fn walk(value: &serde_json::Value, path: &str, found: &mut Vec<String>) {
        let join = |key: &str| {
            if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            }
        };
        match value {
            serde_json::Value::String(text) if text.contains(['\u{2028}', '\u{2029}']) => {
                found.push(path.to_owned());
            }
            serde_json::Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, &join(&index.to_string()), found);
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, field) in fields {
                    walk(field, &join(key), found);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(block, "", &mut found);
    found
}

#[derive(Serialize)]
struct Checked {
    file: PathBuf,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// One line per file; fails when any file is not a question message (exit
/// 1), or cannot be read (exit 2, which wins).
pub(crate) fn check(files: &[PathBuf], out: Out) -> Result<(), Failure> {
    let results: Vec<Checked> = files
        .iter()
        .map(|file| match read_input(file) {
            Err(err) => Checked {
                file: file.clone(),
                ok: false,
                rule: Some("unreadable"),
                reason: Some(err.to_string()),
            },
            Ok(body) => match explain_question_message(&body) {
                Ok(_) => Checked {
                    file: file.clone(),
                    ok: true,
                    rule: None,
                    reason: None,
                },
                Err(why) => Checked {
                    file: file.clone(),
                    ok: false,
                    rule: Some(why.rule()),
                    reason: Some(why.to_string().replace('\n', " ")),
                },
            },
        })
        .collect();
    out.json(&results);
    for result in &results {
        match &result.reason {
            None => out.line(format!(
                "{}    {}",
                styled(GOOD, "ok"),
                result.file.display()
            )),
            Some(reason) => out.line(format!(
                "{}  {}: {reason}",
                styled(BAD, "FAIL"),
                result.file.display()
            )),
        }
    }
    let unreadable = results
        .iter()
        .filter(|r| r.rule == Some("unreadable"))
        .count();
    let failed = results.iter().filter(|r| !r.ok).count();
    let failure = if unreadable > 0 {
        Failure::Input(format!(
            "{unreadable} of {} files could not be read",
            results.len()
        ))
    } else if failed > 0 {
        Failure::NotAMessage(format!(
            "{failed} of {} files are not question messages",
            results.len()
        ))
    } else {
        return Ok(());
    };
    Err(Failure::Reported(Box::new(failure)))
}
