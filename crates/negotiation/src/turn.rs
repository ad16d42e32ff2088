//! A proposed turn: what a seat wants to do, and the message it sends.

use serde::{Deserialize, Serialize};

use index_question_block::js;

use crate::NEGOTIATION_MESSAGE_LIMIT;

/// What a seat does with its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NegotiationAction {
    /// Put an offer on the table.
    Propose,
    /// Question or answer the standing offer without making one.
    Counter,
    /// Take the other seat's standing proposal: settles the negotiation.
    Accept,
    /// Pass for now: ends the round, not the negotiation.
    Decline,
}

impl NegotiationAction {
    /// Every action, in the reference's order.
    pub const ALL: [NegotiationAction; 4] = [
        NegotiationAction::Propose,
        NegotiationAction::Counter,
        NegotiationAction::Accept,
        NegotiationAction::Decline,
    ];

    /// The wire name (`propose`, `counter`, `accept`, `decline`).
    pub fn as_str(self) -> &'static str {
        match self {
            NegotiationAction::Propose => "propose",
            NegotiationAction::Counter => "counter",
            NegotiationAction::Accept => "accept",
            NegotiationAction::Decline => "decline",
        }
    }

    /// The action named `name`, if any (exact, lowercase).
    ///
    /// ```
    /// use index_negotiation::NegotiationAction;
    /// assert_eq!(NegotiationAction::from_name("counter"), Some(NegotiationAction::Counter));
    /// assert_eq!(NegotiationAction::from_name("Counter"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|action| action.as_str() == name)
    }
}

impl std::fmt::Display for NegotiationAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Anything that records an action, so [`current_round`](crate::current_round)
/// works on proposed turns, logged turns and host records alike.
pub trait HasAction {
    /// The action taken.
    fn action(&self) -> NegotiationAction;
}

impl HasAction for NegotiationAction {
    fn action(&self) -> NegotiationAction {
        *self
    }
}

/// A turn a seat proposes to take.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NegotiationTurn {
    /// What the seat does.
    pub action: NegotiationAction,
    /// What it says: 1 to 4000 UTF-16 code units once surrounding whitespace
    /// is trimmed as JavaScript trims it. Stored as given.
    pub message: String,
}

impl NegotiationTurn {
    /// A turn with `action` and `message`.
    pub fn new(action: NegotiationAction, message: impl Into<String>) -> Self {
        NegotiationTurn {
            action,
            message: message.into(),
        }
    }
}

impl HasAction for NegotiationTurn {
    fn action(&self) -> NegotiationAction {
        self.action
    }
}

/// Whether `turn` satisfies the turn schema: its message, trimmed as
/// JavaScript trims, holds 1 to [`NEGOTIATION_MESSAGE_LIMIT`] UTF-16 code
/// units.
///
/// ```
/// use index_negotiation::{is_valid_turn, NegotiationAction, NegotiationTurn};
/// assert!(is_valid_turn(&NegotiationTurn::new(NegotiationAction::Decline, "Not now.")));
/// assert!(!is_valid_turn(&NegotiationTurn::new(NegotiationAction::Decline, " \u{feff}\u{3000} ")));
/// ```
pub fn is_valid_turn(turn: &NegotiationTurn) -> bool {
    is_valid_message(&turn.message)
}

pub(crate) fn is_valid_message(message: &str) -> bool {
    (1..=NEGOTIATION_MESSAGE_LIMIT).contains(&js::utf16_len(js::trim(message)))
}

/// Reads a turn from untyped JSON as the reference's schema does: an object
/// (unknown keys ignored) with a known `action` and a valid `message`.
pub(crate) fn turn_from_value(value: &serde_json::Value) -> Option<NegotiationTurn> {
    let action = NegotiationAction::from_name(value.get("action")?.as_str()?)?;
    let message = value.get("message")?.as_str()?;
    is_valid_message(message).then(|| NegotiationTurn::new(action, message))
}
