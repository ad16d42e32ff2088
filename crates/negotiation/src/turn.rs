//! A proposed turn: what a seat wants to do, and the message it sends.

use serde::{Deserialize, Serialize};

use index_js as js;

use crate::NEGOTIATION_MESSAGE_LIMIT;

index_js::wire_enum! {
    crate index_negotiation;
    /// What a seat does with its turn.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum NegotiationAction {
        /// Put an offer on the table.
        Propose = "propose",
        /// Question or answer the standing offer without making one.
        Counter = "counter",
        /// Take the other seat's standing proposal: settles the negotiation.
        Accept = "accept",
        /// Pass for now: ends the round, not the negotiation.
        Decline = "decline",
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
    /// is trimmed as JavaScript trims it. The reference stores the trimmed
    /// message; [`NegotiationTurn::normalized`] gives it.
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

impl NegotiationTurn {
    /// The turn as the reference's schema hands it on: the message trimmed
    /// as JavaScript trims it. This is what a host stores, so a message read
    /// from a terminal (`echo` adds a newline) or padded by a model is kept
    /// as the other seat will read it.
    ///
    /// ```
    /// use index_negotiation::{NegotiationAction, NegotiationTurn};
    /// let turn = NegotiationTurn::new(NegotiationAction::Propose, "  Intro call?\n");
    /// assert_eq!(turn.normalized().message, "Intro call?");
    /// ```
    #[must_use]
    pub fn normalized(mut self) -> Self {
        let trimmed = js::trim(&self.message);
        if trimmed.len() != self.message.len() {
            self.message = trimmed.to_owned();
        }
        self
    }
}

impl NegotiationTurn {
    /// The turn as the turn schema hands it on, for a turn that arrived
    /// typed: its message trimmed, or the length problem the schema
    /// reports. [`parse_negotiation_turn`] ends here too, so a typed and
    /// an untyped turn meet one rule.
    ///
    /// ```
    /// use index_negotiation::{NegotiationAction, NegotiationTurn, TurnProblem};
    /// let turn = NegotiationTurn::new(NegotiationAction::Accept, " Deal. ").checked();
    /// assert_eq!(turn.map(|t| t.message), Ok("Deal.".to_owned()));
    /// let blank = NegotiationTurn::new(NegotiationAction::Accept, "\u{3000}").checked();
    /// assert_eq!(blank, Err(TurnProblem::MessageLength { length: 0 }));
    /// ```
    pub fn checked(self) -> Result<Self, TurnProblem> {
        let turn = self.normalized();
        let length = js::utf16_len(&turn.message);
        if (1..=NEGOTIATION_MESSAGE_LIMIT).contains(&length) {
            Ok(turn)
        } else {
            Err(TurnProblem::MessageLength { length })
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

/// Why a JSON value is not a turn: the first problem the turn schema finds,
/// in the order it checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TurnProblem {
    /// The value is not a JSON object.
    #[error("a turn is a JSON object with an action and a message")]
    NotAnObject,
    /// `action` is missing or not one of the four actions.
    #[error("action must be one of propose, counter, accept, decline")]
    Action,
    /// `message` is missing or not a string.
    #[error("message must be a string")]
    MessageType,
    /// `message`, once trimmed, is empty or longer than the limit.
    #[error(
        "message must be 1 to {NEGOTIATION_MESSAGE_LIMIT} UTF-16 code units once trimmed; this one is {length}"
    )]
    MessageLength {
        /// The trimmed message's length in UTF-16 code units.
        length: usize,
    },
}

/// Reads a turn from untyped JSON as the reference's turn schema does: an
/// object (unknown keys dropped) with a known `action` and a `message` that
/// holds 1 to [`NEGOTIATION_MESSAGE_LIMIT`] UTF-16 code units once trimmed.
/// The turn returned is the schema's output, its message trimmed; the error
/// is the first problem the schema finds.
///
/// ```
/// use index_negotiation::{parse_negotiation_turn, NegotiationAction, TurnProblem};
/// let turn = parse_negotiation_turn(&serde_json::json!({"action": "propose", "message": "  hi  ", "extra": 1}));
/// assert_eq!(turn.map(|t| (t.action, t.message)), Ok((NegotiationAction::Propose, "hi".to_owned())));
/// let blank = parse_negotiation_turn(&serde_json::json!({"action": "propose", "message": "   "}));
/// assert_eq!(blank, Err(TurnProblem::MessageLength { length: 0 }));
/// ```
pub fn parse_negotiation_turn(value: &serde_json::Value) -> Result<NegotiationTurn, TurnProblem> {
    let object = value.as_object().ok_or(TurnProblem::NotAnObject)?;
    let action = object
        .get("action")
        .and_then(serde_json::Value::as_str)
        .and_then(NegotiationAction::from_name)
        .ok_or(TurnProblem::Action)?;
    let message = object
        .get("message")
        .and_then(serde_json::Value::as_str)
        .ok_or(TurnProblem::MessageType)?;
    NegotiationTurn::new(action, message).checked()
}
