//! What the rules refused, typed: one vocabulary every surface maps to its
//! own terms (an HTTP status, a tool error, an exit status), so a code is
//! never spelled by hand and a turn's refusal and a park's read alike.

use index_negotiation::{
    AnswerRejection, NegotiationRejection, NegotiationResumeRejection, ParkRejection,
};

use crate::OpenRejection;

/// A refusal by the rules, of any operation. Its code and sentence come
/// from the rejection itself.
///
/// ```
/// use index_negotiation::{NegotiationRejection, ParkRejection};
/// use index_negotiation_store::{Refusal, RefusalKind};
/// let turn = Refusal::Turn(NegotiationRejection::NotYourTurn);
/// assert_eq!((turn.code(), turn.kind()), ("not_your_turn", RefusalKind::NotYours));
/// let park = Refusal::Park(ParkRejection::AlreadyParked);
/// assert_eq!((park.code(), park.kind()), ("already_parked", RefusalKind::Conflict));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// A turn was refused.
    Turn(NegotiationRejection),
    /// A resume was refused.
    Resume(NegotiationResumeRejection),
    /// Opening was refused.
    Open(OpenRejection),
    /// A park was refused.
    Park(ParkRejection),
    /// An answer was refused.
    Answer(AnswerRejection),
}

/// What sort of refusal it is, which each surface maps once: the reference
/// host's HTTP statuses are 404, 403, 409 and 400 in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RefusalKind {
    /// The negotiation is not there (or not the caller's).
    Missing,
    /// The caller's seat may not do this now.
    NotYours,
    /// The negotiation's state forbids it.
    Conflict,
    /// What was asked is wrong in itself.
    Invalid,
}

impl Refusal {
    /// The rejection's wire code (`not_your_turn`, `already_parked`, …).
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Turn(rejection) => rejection.as_str(),
            Refusal::Resume(rejection) => rejection.as_str(),
            Refusal::Open(rejection) => rejection.as_str(),
            Refusal::Park(rejection) => rejection.as_str(),
            Refusal::Answer(rejection) => rejection.as_str(),
        }
    }

    /// One plain sentence for a person.
    pub fn explanation(self) -> &'static str {
        match self {
            Refusal::Turn(rejection) => rejection.explanation(),
            Refusal::Resume(rejection) => rejection.explanation(),
            Refusal::Open(rejection) => rejection.explanation(),
            Refusal::Park(rejection) => rejection.explanation(),
            Refusal::Answer(rejection) => rejection.explanation(),
        }
    }

    /// Which sort of refusal this is.
    pub fn kind(self) -> RefusalKind {
        use AnswerRejection as Answer;
        use NegotiationRejection as Turn;
        use NegotiationResumeRejection as Resume;
        use ParkRejection as Park;
        match self {
            Refusal::Turn(Turn::NotFound)
            | Refusal::Resume(Resume::NotFound)
            | Refusal::Park(Park::NotFound)
            | Refusal::Answer(Answer::NotFound) => RefusalKind::Missing,
            Refusal::Turn(Turn::NotASeat | Turn::NotYourTurn)
            | Refusal::Resume(Resume::NotASeat)
            | Refusal::Park(Park::NotASeat)
            | Refusal::Answer(Answer::NotASeat | Answer::NotTheOwner) => RefusalKind::NotYours,
            Refusal::Turn(Turn::AlreadySettled | Turn::IntentInactive | Turn::Raced)
            | Refusal::Resume(
                Resume::AlreadySettled
                | Resume::IntentInactive
                | Resume::NotPaused
                | Resume::AwaitingAnswer,
            )
            | Refusal::Open(OpenRejection::AlreadyExists)
            | Refusal::Park(_)
            | Refusal::Answer(
                Answer::AlreadySettled
                | Answer::IntentInactive
                | Answer::NotParked
                | Answer::AlreadyAnswered,
            ) => RefusalKind::Conflict,
            Refusal::Turn(_) | Refusal::Resume(_) | Refusal::Open(_) | Refusal::Answer(_) => {
                RefusalKind::Invalid
            }
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.explanation())
    }
}

macro_rules! refusal_from {
    ($($rejection:ty => $variant:ident),* $(,)?) => {$(
        impl From<$rejection> for Refusal {
            fn from(rejection: $rejection) -> Self {
                Refusal::$variant(rejection)
            }
        }
    )*};
}

refusal_from! {
    NegotiationRejection => Turn,
    NegotiationResumeRejection => Resume,
    OpenRejection => Open,
    ParkRejection => Park,
    AnswerRejection => Answer,
}
