//! Offers of what the other side keeps to itself: what its agent knows,
//! thinks or said in private, its notes and its reasoning.
//!
//! A question that offers the person the other side's private mind
//! routes them around the negotiation as surely as a contact detail does,
//! whatever private text it quotes (often none).

use std::sync::LazyLock;

use super::phrases::{Matching, PhraseIndex};
use super::text::Text;

/// Ways to name the other side or its agent, as whole words in order.
const OTHER_SIDE: [&str; 16] = [
    "other side",
    "other party",
    "other seat",
    "other agent",
    "other negotiator",
    "other team",
    "their agent",
    "their negotiator",
    "their side",
    "counterparty",
    "counterpart",
    "opposing side",
    "opposing party",
    "opposing agent",
    "the seller s agent",
    "the buyer s agent",
];

/// What a mind holds, said of someone else: `knows`, `said`.
const MIND: [&str; 16] = [
    "knows",
    "knew",
    "thinks",
    "thought",
    "said",
    "says",
    "told",
    "believes",
    "believed",
    "wrote",
    "plans",
    "intends",
    "really wants",
    "is hiding",
    "would accept",
    "will accept",
];

/// Words that make a record private.
const PRIVATE: [&str; 11] = [
    "private",
    "privately",
    "confidential",
    "confidentially",
    "secret",
    "secretly",
    "hidden",
    "internal",
    "off the record",
    "in confidence",
    "behind the scenes",
];

/// Records of a mind: `notes`, `reasoning`.
const RECORDS: [&str; 12] = [
    "notes",
    "note",
    "reasoning",
    "thoughts",
    "thinking",
    "strategy",
    "instructions",
    "brief",
    "messages",
    "position",
    "chat",
    "transcript",
];

/// Words that open what is offered: `what their agent said`.
const WHAT: [&str; 5] = ["what", "everything", "anything", "how much", "all"];

/// How many words an offer may spread over.
const REACH: usize = 6;

static OTHER: LazyLock<PhraseIndex> =
    LazyLock::new(|| PhraseIndex::of(Matching::Words, OTHER_SIDE));
static MINDS: LazyLock<PhraseIndex> = LazyLock::new(|| PhraseIndex::of(Matching::Words, MIND));
static PRIVATES: LazyLock<PhraseIndex> =
    LazyLock::new(|| PhraseIndex::of(Matching::Words, PRIVATE));
static RECORD_WORDS: LazyLock<PhraseIndex> =
    LazyLock::new(|| PhraseIndex::of(Matching::Words, RECORDS));
static WHATS: LazyLock<PhraseIndex> = LazyLock::new(|| PhraseIndex::of(Matching::Words, WHAT));

/// `what their agent said in private`, `the other party's private notes`,
/// `the other seat's confidential reasoning`: the other side followed by
/// what its mind holds, after `what`, or a private record of it.
pub(super) fn offers_the_other_side(text: &Text) -> bool {
    let tokens = &text.tokens;
    (0..tokens.len()).any(|start| {
        let Some(end) = OTHER.end_at(tokens, start) else {
            return false;
        };
        let found = |index: &PhraseIndex, mut range: std::ops::Range<usize>| {
            range.any(|at| index.end_at(tokens, at).is_some())
        };
        let what_before = found(&WHATS, start.saturating_sub(REACH)..start);
        let after = end..end + REACH;
        let mind_after = found(&MINDS, after.clone());
        let private_after = found(&PRIVATES, after.clone());
        let record_after = found(&RECORD_WORDS, after);
        (what_before && mind_after) || (private_after && (record_after || mind_after))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers(text: &str) -> bool {
        offers_the_other_side(&Text::new(text))
    }

    #[test]
    fn offers_of_the_other_sides_mind() {
        assert!(offers("Want to know what their agent said in private?"));
        assert!(offers("See the other party's private notes?"));
        assert!(offers("I can share what the counterparty's agent knows."));
    }

    #[test]
    fn questions_about_the_other_side() {
        assert!(!offers("What would the other side think of 20k?"));
        assert!(!offers("Should the other party's offer stay confidential?"));
        assert!(!offers(
            "Is it fine if the other party knows your deadline?"
        ));
    }
}
