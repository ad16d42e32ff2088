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

/// Prints the message for `prose` and `block`; every problem of an invalid
/// block is listed.
pub(crate) fn serialize(prose: &Path, block: &Path, out: Out) -> Result<(), Failure> {
    let prose_text = read_input(prose)?;
    let block_text = read_input(block)?;
    let value: serde_json::Value = serde_json::from_str(&block_text)
        .map_err(|err| Failure::Input(format!("{} is not valid JSON: {err}", block.display())))?;
    let block = QuestionBlock::from_json_value(&value).map_err(|invalid| {
        Failure::Input(format!(
            "{} is not a valid question block: {invalid}",
            block.display()
        ))
    })?;
    let message = serialize_question_message(&prose_text, &block)
        .map_err(|invalid| Failure::Input(invalid.to_string()))?;
    if out.json {
        out.json(&serde_json::json!({ "message": message }));
    } else {
        anstream::println!("{message}");
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

/// One line per file; fails when any file is not a question message.
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
    let failed = results.iter().filter(|r| !r.ok).count();
    if failed == 0 {
        Ok(())
    } else {
        Err(Failure::NotAMessage(format!(
            "{failed} of {} files are not question messages",
            results.len()
        )))
    }
}
