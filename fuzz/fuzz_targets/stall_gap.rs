//! A model's stall-gap output and the safety gate, from outside: the
//! output reader never panics; the gate's two forms agree, it is
//! deterministic, fewer private inputs never refuse more, its
//! normalisation is idempotent, the text it checked in a question it
//! passes is the text shown (up to NFKC), and such a question always makes
//! a question message that reads back.
#![no_main]

use index_question_block::{
    QuestionBlock, QuestionBlockQuestion, parse_question_message,
    serialize_question_message_checked,
};
use index_stall_gap::{
    StallGapOutput, check_authored_negotiation_question, is_safe_authored_negotiation_question,
    normalized_visible_text, read_stall_gap_output,
};
use unicode_normalization::UnicodeNormalization;
use libfuzzer_sys::fuzz_target;

/// Any reference, as the block needs one.
const REF: &str = "3c9a7e52-1f4b-4d8e-a6c2-9b0f3e7d5a14";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `name|private text` on the first line, the model's output after it.
    let (head, output) = text.split_once('\n').unwrap_or(("", text));
    let (name, private) = head.split_once('|').unwrap_or((head, ""));
    for raw in [name, private, output] {
        let once = normalized_visible_text(raw);
        assert_eq!(normalized_visible_text(&once), once, "idempotent on {raw:?}");
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(output) else {
        return;
    };
    let StallGapOutput::Gap(gap) = read_stall_gap_output(&value) else {
        return;
    };
    let question = &gap.question;
    let names = [name.to_owned()];
    let sources = [private.to_owned()];
    let verdict = check_authored_negotiation_question(question, &names, &sources);
    assert_eq!(
        verdict.is_ok(),
        is_safe_authored_negotiation_question(question, &names, &sources)
    );
    assert_eq!(
        verdict,
        check_authored_negotiation_question(question, &names, &sources),
        "deterministic"
    );
    if verdict.is_err() {
        return;
    }
    assert!(
        check_authored_negotiation_question(question, &[], &[]).is_ok(),
        "a question safe against private inputs is safe without them"
    );
    let fields = [&question.title, &question.prompt]
        .into_iter()
        .chain(question.options.iter().flat_map(|o| [&o.label, &o.description]));
    for field in fields {
        let shown = index_js::trim(field);
        assert_eq!(
            normalized_visible_text(shown),
            shown.nfkc().collect::<String>(),
            "the text checked is the text shown: {shown:?}"
        );
    }
    let mut prose = format!("One answer is needed ({}).", question.title);
    for option in &question.options {
        prose.push_str(&format!("\n- {}: {}", option.label, option.description));
    }
    let block = QuestionBlock::new(vec![QuestionBlockQuestion::new(
        question.prompt.clone(),
        REF,
    )]);
    let message = serialize_question_message_checked(&prose, &block)
        .expect("a question the gate passes makes a sendable message");
    let parsed = parse_question_message(&message).expect("and it reads back");
    assert_eq!(parsed.block, block);
});
