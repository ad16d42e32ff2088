//! Decisions: what the rules permit, or why they refuse.
//!
//! On the wire a decision is the reference's union, `{"ok": true, ...}` or
//! `{"ok": false, "rejection": "..."}`; in Rust it is [`Decision`], one
//! generic type for turns and resumes alike.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ids::UserId;
use crate::state::{NegotiationOutcome, OpportunityStatus, RoundEnded};

/// Either what the rules permit (`T`) or why they refuse (`R`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Decision<T, R> {
    /// The transition the host must apply, whole.
    Permitted(T),
    /// Why nothing may change. A refusal is an answer, not an error.
    Refused(R),
}

impl<T, R: Copy> Decision<T, R> {
    /// The permitted transition, if any.
    pub fn permitted(&self) -> Option<&T> {
        match self {
            Decision::Permitted(permitted) => Some(permitted),
            Decision::Refused(_) => None,
        }
    }

    /// The refusal, if any.
    pub fn rejection(&self) -> Option<R> {
        match self {
            Decision::Permitted(_) => None,
            Decision::Refused(rejection) => Some(*rejection),
        }
    }

    /// Whether the rules permit the transition.
    pub fn is_ok(&self) -> bool {
        matches!(self, Decision::Permitted(_))
    }
}

#[derive(Serialize)]
struct PermittedWire<'a, T> {
    ok: bool,
    #[serde(flatten)]
    permitted: &'a T,
}

#[derive(Serialize)]
struct RefusedWire<'a, R> {
    ok: bool,
    rejection: &'a R,
}

impl<T: Serialize, R: Serialize> Serialize for Decision<T, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Decision::Permitted(permitted) => PermittedWire {
                ok: true,
                permitted,
            }
            .serialize(serializer),
            Decision::Refused(rejection) => RefusedWire {
                ok: false,
                rejection,
            }
            .serialize(serializer),
        }
    }
}

/// The reference's union as a schema: `ok: true` beside what is permitted,
/// or `ok: false` with the rejection.
#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema, R: schemars::JsonSchema> schemars::JsonSchema for Decision<T, R> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Decision_{}_{}", T::schema_name(), R::schema_name()).into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        format!(
            "index_negotiation::Decision<{}, {}>",
            T::schema_id(),
            R::schema_id()
        )
        .into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let permitted = generator.subschema_for::<T>();
        let rejection = generator.subschema_for::<R>();
        schemars::json_schema!({
            "oneOf": [
                {
                    "allOf": [
                        permitted,
                        {
                            "type": "object",
                            "properties": { "ok": { "const": true } },
                            "required": ["ok"]
                        }
                    ]
                },
                {
                    "type": "object",
                    "properties": { "ok": { "const": false }, "rejection": rejection },
                    "required": ["ok", "rejection"]
                }
            ]
        })
    }
}

impl<'de, T: DeserializeOwned, R: DeserializeOwned> Deserialize<'de> for Decision<T, R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        match value.get("ok").and_then(serde_json::Value::as_bool) {
            Some(true) => T::deserialize(value)
                .map(Decision::Permitted)
                .map_err(D::Error::custom),
            Some(false) => {
                let rejection = value
                    .get("rejection")
                    .cloned()
                    .ok_or_else(|| D::Error::missing_field("rejection"))?;
                R::deserialize(rejection)
                    .map(Decision::Refused)
                    .map_err(D::Error::custom)
            }
            None => Err(D::Error::custom("a decision needs a boolean `ok`")),
        }
    }
}

index_js::wire_enum! {
    crate index_negotiation;
    /// Why a turn is refused. Codes are checked in this order of priority:
    /// whether the negotiation exists, who may act on it, then the turn itself.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum NegotiationRejection {
        /// There is no such negotiation.
        NotFound = "not_found",
        /// The user holds neither seat.
        NotASeat = "not_a_seat",
        /// The negotiation is over.
        AlreadySettled = "already_settled",
        /// A seat's intent is paused, removed or no longer shared.
        IntentInactive = "intent_inactive",
        /// The other seat has the turn, or nobody does until a seat resumes.
        NotYourTurn = "not_your_turn",
        /// Another write took this turn first (reported by hosts, never by the rules).
        Raced = "raced",
        /// The action is unknown or the message is empty or too long.
        InvalidTurn = "invalid_turn",
        /// A round cannot open with a counter: there is nothing to counter.
        CounterIsFirst = "counter_is_first",
        /// Accept needs the other seat's proposal standing in this round.
        AcceptWithoutOffer = "accept_without_offer",
        /// The other seat's proposal stands: counter, accept or decline it.
        ProposeOverOffer = "propose_over_offer",
    }
}

impl NegotiationRejection {
    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            NegotiationRejection::NotFound => "There is no negotiation with that id.",
            NegotiationRejection::NotASeat => "You do not hold a seat in this negotiation.",
            NegotiationRejection::AlreadySettled => {
                "This negotiation is over; nothing more can happen in it."
            }
            NegotiationRejection::IntentInactive => {
                "A seat's intent is paused or removed, so the negotiation cannot move."
            }
            NegotiationRejection::NotYourTurn => {
                "It is not your turn: the other seat is to move, or the round has ended and needs a resume."
            }
            NegotiationRejection::Raced => {
                "Another write took this turn first; read the negotiation again before acting."
            }
            NegotiationRejection::InvalidTurn => {
                "The turn is not valid: once trimmed, the message must be 1 to 4000 UTF-16 code units long (most characters count 1, emoji and other characters outside the Basic Multilingual Plane count 2)."
            }
            NegotiationRejection::CounterIsFirst => {
                "A round cannot open with a counter; propose or decline instead."
            }
            NegotiationRejection::AcceptWithoutOffer => {
                "There is no proposal from the other seat standing in this round to accept."
            }
            NegotiationRejection::ProposeOverOffer => {
                "The other seat's proposal is standing: counter, accept or decline it instead."
            }
        }
    }
}

impl std::fmt::Display for NegotiationRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

index_js::wire_enum! {
    crate index_negotiation;
    /// Why a seat may not resume.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum NegotiationResumeRejection {
        /// There is no such negotiation.
        NotFound = "not_found",
        /// The user holds neither seat.
        NotASeat = "not_a_seat",
        /// The negotiation is over.
        AlreadySettled = "already_settled",
        /// A seat's intent is paused, removed or no longer shared.
        IntentInactive = "intent_inactive",
        /// A seat already has the turn: the negotiation is not between rounds.
        NotPaused = "not_paused",
        /// It waits on a person's answer to the question it parked on; the
        /// answer resumes it.
        AwaitingAnswer = "awaiting_answer",
    }
}

impl NegotiationResumeRejection {
    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            NegotiationResumeRejection::NotPaused => {
                "A seat already has the turn; only a negotiation paused between rounds can be resumed."
            }
            NegotiationResumeRejection::AwaitingAnswer => {
                "This negotiation waits on a person's answer to its question; the answer resumes it."
            }
            NegotiationResumeRejection::NotFound => NegotiationRejection::NotFound.explanation(),
            NegotiationResumeRejection::NotASeat => NegotiationRejection::NotASeat.explanation(),
            NegotiationResumeRejection::AlreadySettled => {
                NegotiationRejection::AlreadySettled.explanation()
            }
            NegotiationResumeRejection::IntentInactive => {
                NegotiationRejection::IntentInactive.explanation()
            }
        }
    }
}

impl std::fmt::Display for NegotiationResumeRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permitted turn: everything the host must write, in one transaction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TurnPermitted {
    /// Where the turn goes in the log (the log's current length).
    pub turn_index: usize,
    /// `Some(Agreed)` when the turn settles the negotiation; otherwise `None`.
    pub outcome: Option<NegotiationOutcome>,
    /// Why the turn ended its round, if it did.
    pub round_ended: Option<RoundEnded>,
    /// Who moves next; `None` when the turn settled or ended the round.
    pub awaiting_user_id: Option<UserId>,
    /// The opportunity's status after the turn.
    pub opportunity_status: OpportunityStatus,
}

/// A permitted resume: the resuming seat takes the first turn of a new round.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResumePermitted {
    /// The seat that now holds the turn.
    pub awaiting_user_id: UserId,
}

/// The decision on a turn.
pub type NegotiationDecision = Decision<TurnPermitted, NegotiationRejection>;

/// The decision on a resume.
pub type NegotiationResumeDecision = Decision<ResumePermitted, NegotiationResumeRejection>;
