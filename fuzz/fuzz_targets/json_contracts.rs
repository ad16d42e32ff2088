//! JSON from outside through every schema reader: the block, one
//! structured question, and every interaction schema type, with the answer
//! and response validators. None may panic; what a reader accepts
//! serializes and reads back to the same value; the typed and untyped
//! validators agree.
#![no_main]

use index_interaction::{
    InteractionAcknowledgement, InteractionAnswerSpec, InteractionBinding, InteractionCapabilities,
    InteractionDataRecord, InteractionField, InteractionRequest, InteractionRequestBinding,
    InteractionResolution, InteractionResponse, InteractionResponseCommand, InteractionSubject,
    SecretHandle, check_response, v0_44, validate_interaction_answer,
    validate_interaction_answer_value, validate_interaction_response,
    validate_interaction_response_command,
};
use index_question_block::{QuestionBlock, StructuredQuestion};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// What `read` accepts writes out as JSON that `read` accepts as the same.
macro_rules! round_trips {
    ($value:expr, $($ty:ty),* $(,)?) => {$(
        if let Ok(parsed) = <$ty>::from_json_value($value) {
            let written = serde_json::to_value(&parsed).expect("an accepted value serializes");
            assert_eq!(
                <$ty>::from_json_value(&written).ok(),
                Some(parsed),
                concat!(stringify!($ty), " reads back what it writes")
            );
        }
    )*};
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    round_trips!(
        &value,
        QuestionBlock,
        StructuredQuestion,
        InteractionField,
        InteractionAnswerSpec,
        InteractionCapabilities,
        InteractionSubject,
        InteractionResolution,
        InteractionDataRecord,
        InteractionRequest,
        InteractionResponse,
        InteractionRequestBinding,
        InteractionBinding,
        InteractionResponseCommand,
        InteractionAcknowledgement,
        SecretHandle,
        v0_44::InteractionRequest,
        v0_44::InteractionBinding,
        v0_44::InteractionResponseCommand,
        v0_44::InteractionAcknowledgement,
    );
    // `[spec, data]`: the typed answer validator agrees with the untyped one.
    if let Some([spec, answer]) = value.as_array().map(Vec::as_slice) {
        if let (Ok(spec), Some(_)) = (
            InteractionAnswerSpec::from_json_value(spec),
            answer.as_object(),
        ) {
            let untyped = validate_interaction_answer_value(&spec, Some(answer));
            if let Ok(record) = InteractionDataRecord::from_json_value(answer) {
                assert_eq!(
                    validate_interaction_answer(&spec, Some(&record.0)).is_ok(),
                    untyped.is_ok(),
                    "typed and untyped answer validation agree"
                );
            }
        }
    }
    // `[request material, response]`: the JSON response validator agrees
    // with the typed check on a response that reads, and a command
    // carrying the response is judged as the response is.
    if let Some([request, response]) = value.as_array().map(Vec::as_slice) {
        if let Ok(request) = InteractionRequest::from_material(request) {
            let from_json = validate_interaction_response(&request, response);
            if let Ok(typed) = InteractionResponse::from_json_value(response) {
                let command =
                    InteractionResponseCommand::new("op", request.command_binding(), typed.clone());
                let wire = serde_json::to_value(&command).expect("a command serializes");
                assert_eq!(
                    validate_interaction_response_command(&request, &wire).is_ok(),
                    check_response(&request, &typed).is_ok(),
                    "a command is judged as its response"
                );
            }
            if let Ok(typed) = InteractionResponse::from_json_value(response) {
                assert_eq!(
                    check_response(&request, &typed).is_ok(),
                    from_json.is_ok(),
                    "typed and JSON response validation agree"
                );
            }
        }
    }
});
