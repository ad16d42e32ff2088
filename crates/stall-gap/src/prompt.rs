//! The two messages sent to the model. The wording is this crate's own; the
//! decisions it asks the model to make are the protocol's. The conversation
//! rule and section appear only when there is a conversation excerpt, so
//! the model is never told to check something it was not given.

use crate::input::{ConversationRole, StallGapAuthorInput, StallReason, TranscriptTurn};
use crate::model::{ChatMessage, ChatRole};

fn stall_phrase(reason: StallReason) -> &'static str {
    match reason {
        StallReason::TurnCap => "it used all of its turns without reaching agreement",
        StallReason::Timeout => "it ran out of time",
        StallReason::Stalled => "the exchange stopped moving before it reached any conclusion",
    }
}

/// The system and user messages for one authoring call.
///
/// ```
/// use index_stall_gap::*;
/// let input = StallGapAuthorInput {
///     user_name: "Dana".into(),
///     signal: Signal { title: "Co-founder".into(), description: "A technical co-founder for a climate startup".into() },
///     seed_reasoning: "Both work on grid storage.".into(),
///     transcript: vec![TranscriptTurn { action: "propose".into(), reasoning: "Strong overlap.".into(), message: Some("Want to talk?".into()) }],
///     stall_reason: StallReason::TurnCap,
///     conversation: None,
/// };
/// let messages = stall_gap_messages(&input);
/// assert_eq!(messages.len(), 2);
/// assert!(messages[0].content.contains("used all of its turns"));
/// assert!(messages[1].content.contains("Turn 1: propose."));
/// ```
pub fn stall_gap_messages(input: &StallGapAuthorInput) -> Vec<ChatMessage> {
    vec![
        ChatMessage {
            role: ChatRole::System,
            content: system_prompt(input),
        },
        ChatMessage {
            role: ChatRole::User,
            content: user_prompt(input),
        },
    ]
}

fn system_prompt(input: &StallGapAuthorInput) -> String {
    let user = &input.user_name;
    let phrase = stall_phrase(input.stall_reason);
    let conversation_rule = if input.conversation().is_some() {
        format!(
            "\n- You also have {user}'s own recent conversation with you about this signal, shown below. Ground the \
             question in it as well as in the negotiation. If {user} already settled the point there, there is no \
             gap on that point. Reuse {user}'s own words, figures and framing for what is at stake rather than \
             paraphrasing them."
        )
    } else {
        String::new()
    };
    format!(
        "You negotiated on behalf of {user} about a possible connection, and the negotiation has stopped without an \
outcome: {phrase}.

Decide one thing: is there a single fact or choice that only {user} can supply, such that knowing it would let \
another attempt at this negotiation reach an outcome? Look at where the exchange actually got stuck.

Reply with a JSON object: {{\"hasGap\": boolean, \"reason\": string, \"question\": object}}.

If no answer from {user} would change how a retry goes (the match is weak, the other side is what blocks it, or the \
stall had nothing to do with anything {user} could tell you), set hasGap to false and leave out reason and question. \
Never make up a question just to have one: every question costs {user} time and attention.

If there is such a gap, set hasGap to true and fill in:
- reason: the one category that justifies pausing, exactly one of \"unresolved_owner_constraint\", \
\"consequential_disclosure_permission\", \"repeated_non_convergence\" or \"insufficient_commitment_authority\". It is \
recorded for the system; {user} never sees it.
- question.title: a short noun naming what is being decided, at most 12 characters (\"Budget\", \"Start date\", \
\"Location\").
- question.prompt: one or two sentences, at most 400 characters, ending with a question mark, about the exact point \
where this negotiation got stuck, in words {user} would use. No stock phrasing.
- question.options: 2 to 4 real choices {user} could make. Each label at most 120 characters. Each description at \
most 280 characters, saying what the retry will do if {user} picks it rather than what the option means. Do not add \
an \"Other\" choice; the interface offers a free-text answer by itself.
- question.multiSelect: true only when several options can be chosen together; false when {user} must pick one.
- The question has to make sense without knowing who the other side is: do not name them, quote them or describe them.
- Do not mention scores, screening, evaluator output or any other internal workings.{conversation_rule}"
    )
}

/// One line per turn; line breaks inside a turn are folded to spaces so a
/// turn can never pass for two.
fn transcript_line(index: usize, turn: &TranscriptTurn) -> String {
    let fold = |text: &str| {
        text.split(index_js::is_js_line_terminator)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut line = format!(
        "Turn {}: {}. Reasoning: {}",
        index + 1,
        fold(&turn.action),
        fold(&turn.reasoning)
    );
    if let Some(message) = turn.message.as_deref().filter(|m| !m.is_empty()) {
        line.push_str(" Message: ");
        line.push_str(&fold(message));
    }
    line
}

fn user_prompt(input: &StallGapAuthorInput) -> String {
    let user = &input.user_name;
    let mut prompt = format!(
        "The signal {user} is negotiating for:\n- {}: {}\n\nWhy this match was proposed: {}",
        input.signal.title, input.signal.description, input.seed_reasoning
    );
    if !input.transcript.is_empty() {
        prompt.push_str("\n\nThe negotiation, turn by turn:\n");
        let lines: Vec<String> = input
            .transcript
            .iter()
            .enumerate()
            .map(|(i, turn)| transcript_line(i, turn))
            .collect();
        prompt.push_str(&lines.join("\n"));
    }
    if let Some(conversation) = input.conversation() {
        prompt.push_str(&format!(
            "\n\n{user}'s recent conversation with you about this signal, oldest first:\n"
        ));
        let lines: Vec<String> = conversation
            .iter()
            .map(|message| {
                let speaker = match message.role {
                    ConversationRole::User => user.as_str(),
                    ConversationRole::Negotiator => "You",
                };
                format!("{speaker}: {}", message.text)
            })
            .collect();
        prompt.push_str(&lines.join("\n"));
    }
    prompt.push_str(&format!(
        "\n\nDecide whether one question to {user} would let a retry reach an outcome, and if so, write it."
    ));
    prompt
}
