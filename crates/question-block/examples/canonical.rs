//! Parses the canonical question message, re-serializes it, and prints the
//! questions: the quickest way to see the wire contract work end to end.

// An example program: printing is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use index_question_block::fixture::QUESTION_MESSAGE_FIXTURE;
use index_question_block::{explain_question_message, serialize_question_message};

fn main() -> ExitCode {
    let parsed = match explain_question_message(QUESTION_MESSAGE_FIXTURE) {
        Ok(parsed) => parsed,
        Err(reason) => {
            eprintln!("the canonical message did not parse: {reason}");
            return ExitCode::FAILURE;
        }
    };
    println!("prose:\n  {}\n", parsed.prose.replace('\n', "\n  "));
    println!("questions:");
    for (i, question) in parsed.block.questions.iter().enumerate() {
        println!("  {}. {}", i + 1, question.prompt);
        println!("     unparks {}", question.opportunity_id);
        for also in question.also_unblocks.iter().flatten() {
            println!("     also    {also}");
        }
    }
    match serialize_question_message(&parsed.prose, &parsed.block) {
        Ok(again) if again == QUESTION_MESSAGE_FIXTURE => {
            println!(
                "\nre-serialized: identical to the canonical message ({} bytes)",
                again.len()
            );
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("re-serialized bytes differ from the canonical message");
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
