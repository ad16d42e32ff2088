//! `index question-block`: parse, serialize and check question messages.

use std::path::{Path, PathBuf};

use serde::Serialize;

use index_question_block::{QuestionBlock, explain_question_message, serialize_question_message};

use crate::failure::Failure;
use crate::output::{BAD, GOOD, Out, read_input, styled};

/// Prints the parsed message as JSON, or fails with the reason.
pub(crate) fn parse(file: Option<&Path>, _out: Out) -> Result<(), Failure> {
    let body = read_input(file.unwrap_or(Path::new("-")))?;
    let parsed = explain_question_message(&body)
        .map_err(|why| Failure::NotAMessage(format!("not a question message: {why}")))?;
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
    let message = serialize_question_message(&prose_text, &parsed)
        .map_err(|invalid| Failure::Input(invalid.to_string()))?;
    if out.json {
        out.json(&serde_json::json!({ "message": message }));
    } else {
        anstream::print!("{message}");
    }
    Ok(())
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
