//! Question messages from outside: parsing never panics and agrees with
//! the explanation, and whatever parses re-serializes to a message that
//! parses back to the same block and prose.
#![no_main]

use index_question_block::{
    explain_question_message, parse_question_message, serialize_question_message,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_question_message(body);
    let explained = explain_question_message(body);
    assert_eq!(
        parsed.is_some(),
        explained.is_ok(),
        "parse and explain disagree"
    );
    if let Some(parsed) = parsed {
        if let Ok(message) = serialize_question_message(&parsed.prose, &parsed.block) {
            let again = parse_question_message(&message).expect("what was written reads back");
            assert_eq!(again.block, parsed.block);
        }
    }
});
