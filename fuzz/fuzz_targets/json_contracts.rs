//! JSON from outside through every schema reader: the block, one
//! structured question, and the interaction contract's request and
//! response validation. None may panic; what a reader accepts serializes
//! and reads back to the same value.
#![no_main]

use index_interaction::{InteractionRequest, validate_interaction_response};
use index_question_block::{QuestionBlock, StructuredQuestion};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    if let Ok(block) = QuestionBlock::from_json_value(&value) {
        let written = serde_json::to_value(&block).expect("a block serializes");
        assert_eq!(QuestionBlock::from_json_value(&written).ok(), Some(block));
    }
    if let Ok(question) = StructuredQuestion::from_json_value(&value) {
        let written = serde_json::to_value(&question).expect("a question serializes");
        assert_eq!(StructuredQuestion::from_json_value(&written).ok(), Some(question));
    }
    // The same value as a request, and (its first element, if an array) as
    // a response to it.
    if let Ok(request) = InteractionRequest::from_json_value(&value) {
        let _ = validate_interaction_response(&request, &value);
    }
});
