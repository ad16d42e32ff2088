//! How a host request fails, and the one error shape both surfaces show:
//! `{"error": {"code", "message"}}` over HTTP, and the same object as a
//! tool error's structured content over MCP.

use axum::http::StatusCode;
use serde::Serialize;

use index_negotiation::ParkRejection;
use index_negotiation::{NegotiationRejection, NegotiationResumeRejection};
use index_negotiation_store::{OpenRejection, Refusal, RefusalKind, StoreError};

index_js::wire_enum! {
    crate index_host;
    /// The host's own error codes. A rules refusal carries its rejection's
    /// code instead (`not_your_turn`, `invalid_turn`, `blank_answer`, …).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ErrorCode {
        /// No valid key.
        Unauthorized = "unauthorized",
        /// A key whose expiry has passed.
        KeyExpired = "key_expired",
        /// A valid key that may not do this.
        Forbidden = "forbidden",
        /// A body that is not JSON.
        MalformedJson = "malformed_json",
        /// A body sent as something other than JSON.
        UnsupportedMediaType = "unsupported_media_type",
        /// A request the host cannot use.
        InvalidRequest = "invalid_request",
        /// A park asked of a host without a model.
        NoModel = "no_model",
        /// The store failed.
        StoreFailed = "store_failed",
        /// The listener or a transport failed.
        Unavailable = "unavailable",
        /// No route at that path (also the answer to OAuth discovery on a
        /// host that takes no identity provider's tokens).
        UnknownRoute = "unknown_route",
        /// An identity provider's token that does not carry the scope the
        /// host needs (`agent`).
        InsufficientScope = "insufficient_scope",
        /// The route does not take that method.
        MethodNotAllowed = "method_not_allowed",
        /// A body over the host's limit.
        PayloadTooLarge = "payload_too_large",
        /// A request that took longer than the host gives one.
        RequestTimeout = "request_timeout",
        /// A change asked by cookie from a page that is not this host's.
        CrossOrigin = "cross_origin",
        /// A sign-in with a login link that was used already (or revoked).
        LoginLinkUsed = "login_link_used",
        /// An interaction asked under an id its person has with other
        /// content.
        InteractionExists = "interaction_exists",
        /// An interaction asked of a person whose every kept interaction
        /// is pending.
        TooManyInteractions = "too_many_interactions",
    }
}

/// Any code the error object carries, typed: the host's own, or a rules
/// refusal's. Every surface maps it once: HTTP by [`HostError::status`],
/// MCP as a tool error carrying the same object, the command line by its
/// exit statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// One of the host's own codes.
    Host(ErrorCode),
    /// A rules refusal's code (`invalid_turn`, `blank_answer`, …).
    Rules(Refusal),
}

impl Code {
    /// The code as the error object spells it.
    ///
    /// ```
    /// use index_host::{Code, ErrorCode, Refusal};
    /// use index_negotiation::NegotiationRejection;
    /// assert_eq!(Code::Host(ErrorCode::MalformedJson).as_str(), "malformed_json");
    /// assert_eq!(Code::Rules(Refusal::Turn(NegotiationRejection::InvalidTurn)).as_str(), "invalid_turn");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Host(code) => code.as_str(),
            Code::Rules(refusal) => refusal.code(),
        }
    }
}

/// What a caller hears of any store failure; the cause goes to the log.
pub(crate) const STORE_FAILED: &str = "the store failed";

/// A request the host did not carry out. A rules refusal is one of these
/// too, since it is what the caller must hear about; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// No valid key: missing, malformed, unknown or revoked.
    #[error("invalid API key: send a valid one as a bearer token")]
    Unauthorized,
    /// The key was valid and its expiry has passed.
    #[error("this API key has expired: ask for a new one (`index keys create`)")]
    KeyExpired,
    /// A sign-in with a login link that signed in already (a link signs
    /// in once) or was revoked. Only the link's holder can present it, so
    /// telling it apart from an unknown key gives nothing away.
    #[error(
        "this login link was used already (a link signs in once) or revoked: ask for a new one (`index keys login-link`)"
    )]
    LoginLinkUsed,
    /// The key is valid but may not do this (opening or closing needs a
    /// host key).
    #[error("this needs a host key")]
    Forbidden,
    /// An identity provider's token, valid but without the `agent` scope.
    #[error("this token does not carry the agent scope: ask for it")]
    InsufficientScope,
    /// No such negotiation, or one where the caller holds no seat: the two
    /// answer alike, so ids cannot be probed.
    #[error("There is no negotiation with that id.")]
    NotFound,
    /// The rules refused.
    #[error("{}", .0.explanation())]
    Refused(Refusal),
    /// The request cannot be used: malformed JSON, a body that fails the
    /// turn schema (`code` `invalid_turn`), a bad query.
    #[error("{message}")]
    Invalid {
        /// A stable code: an [`ErrorCode`] (`malformed_json`, `no_model`)
        /// or a rejection (`invalid_turn`, `blank_answer`,
        /// `answer_too_long`).
        code: Code,
        /// What is wrong, for a person.
        message: String,
    },
    /// A request the host cannot use, as plain text (`invalid_request`).
    #[error("{0}")]
    BadRequest(String),
    /// The store failed; nothing was applied.
    #[error("{STORE_FAILED}")]
    Store(#[from] StoreError),
    /// The listener or transport failed.
    #[error("the host's connection failed")]
    Io(#[source] std::io::Error),
    /// No route at that path.
    #[error("There is no such route; this host takes API keys, not OAuth.")]
    UnknownRoute,
    /// The route does not take that method.
    #[error("This route does not take that method.")]
    MethodNotAllowed,
    /// The body is over [`crate::BODY_LIMIT`].
    #[error("The request body is over the host's limit of 64 KiB.")]
    PayloadTooLarge,
    /// A request its session cookie authenticated that would change
    /// something, sent from a page that is not this host's (or a sign-in
    /// sent from one).
    #[error("This request must come from a page of this host.")]
    CrossOrigin,
    /// A body whose `Content-Type` is not JSON, or a body sent without
    /// one: it is refused rather than read as empty, so nothing a caller
    /// sent can go unchecked.
    #[error("A request body must be JSON, sent with `Content-Type: application/json`.")]
    UnsupportedMediaType,
    /// A host key presented to sign a browser in: an inbox session is a
    /// person's (`forbidden`, 403).
    #[error(
        "An inbox session is a person's: sign in with your own key or a login link, not a host key."
    )]
    HostKeySignIn,
    /// The request took longer than [`crate::REQUEST_TIMEOUT`].
    #[error("The request took longer than the host gives one (90 seconds).")]
    RequestTimeout,
    /// No interaction with that id for the caller's person; another
    /// person's answers alike, so ids cannot be probed (`not_found`).
    #[error("There is no interaction with that id.")]
    NoInteraction,
    /// The caller's person has an interaction with that id and other
    /// content (`interaction_exists`, 409); the same content again is
    /// not an error.
    #[error("An interaction with that id exists with other content: ask under a new id.")]
    InteractionExists,
    /// Every interaction the caller's person may hold is pending
    /// (`too_many_interactions`, 409).
    #[error(
        "Your person has too many interactions pending: wait for one to settle, or cancel one."
    )]
    TooManyInteractions,
    /// No webhook endpoint with that id that the caller may see: another
    /// person's answers alike, so ids cannot be probed (`not_found`).
    #[error("There is no webhook endpoint with that id.")]
    NoWebhook,
}

impl HostError {
    /// Wraps an I/O failure of the listener or a transport.
    pub fn io(err: std::io::Error) -> Self {
        HostError::Io(err)
    }

    /// The stable code in the error object.
    pub fn code(&self) -> &'static str {
        match self {
            HostError::Unauthorized => ErrorCode::Unauthorized.as_str(),
            HostError::KeyExpired => ErrorCode::KeyExpired.as_str(),
            HostError::LoginLinkUsed => ErrorCode::LoginLinkUsed.as_str(),
            HostError::Forbidden | HostError::HostKeySignIn => ErrorCode::Forbidden.as_str(),
            HostError::InsufficientScope => ErrorCode::InsufficientScope.as_str(),
            HostError::NotFound | HostError::NoInteraction | HostError::NoWebhook => {
                NegotiationRejection::NotFound.as_str()
            }
            HostError::InteractionExists => ErrorCode::InteractionExists.as_str(),
            HostError::TooManyInteractions => ErrorCode::TooManyInteractions.as_str(),
            HostError::Refused(refusal) => refusal.code(),
            HostError::Invalid { code, .. } => code.as_str(),
            HostError::BadRequest(_) => ErrorCode::InvalidRequest.as_str(),
            HostError::Store(_) => ErrorCode::StoreFailed.as_str(),
            HostError::Io(_) => ErrorCode::Unavailable.as_str(),
            HostError::UnknownRoute => ErrorCode::UnknownRoute.as_str(),
            HostError::MethodNotAllowed => ErrorCode::MethodNotAllowed.as_str(),
            HostError::PayloadTooLarge => ErrorCode::PayloadTooLarge.as_str(),
            HostError::CrossOrigin => ErrorCode::CrossOrigin.as_str(),
            HostError::UnsupportedMediaType => ErrorCode::UnsupportedMediaType.as_str(),
            HostError::RequestTimeout => ErrorCode::RequestTimeout.as_str(),
        }
    }

    /// The HTTP status, with the reference host's map for rejections.
    pub fn status(&self) -> StatusCode {
        match self {
            HostError::Unauthorized | HostError::KeyExpired | HostError::LoginLinkUsed => {
                StatusCode::UNAUTHORIZED
            }
            HostError::Forbidden
            | HostError::HostKeySignIn
            | HostError::CrossOrigin
            | HostError::InsufficientScope => StatusCode::FORBIDDEN,
            HostError::NotFound
            | HostError::NoInteraction
            | HostError::NoWebhook
            | HostError::UnknownRoute => StatusCode::NOT_FOUND,
            HostError::InteractionExists | HostError::TooManyInteractions => StatusCode::CONFLICT,
            HostError::Refused(refusal) => refusal_status(*refusal),
            HostError::Invalid { .. } | HostError::BadRequest(_) => StatusCode::BAD_REQUEST,
            HostError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            HostError::Io(_) => StatusCode::SERVICE_UNAVAILABLE,
            HostError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            HostError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            HostError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            HostError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        }
    }

    /// Logs a store failure's cause, where the error becomes an answer to
    /// a caller (a REST response, a tool error, a protocol error): the
    /// answer says only that the store failed.
    pub(crate) fn log_cause(&self) {
        if let HostError::Store(cause) = self {
            tracing::error!(error = %index_negotiation_store::ErrorChain(cause), "store failed");
        }
    }

    /// The error object both surfaces show. A store failure says only that
    /// it failed: its cause is logged, never sent to a caller.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorFields {
                code: self.code(),
                message: self.to_string(),
            },
        }
    }
}

/// `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorFields,
}

/// The inside of [`ErrorBody`].
#[derive(Debug, Clone, Serialize)]
pub struct ErrorFields {
    /// A stable code to match on.
    pub code: &'static str,
    /// One plain sentence for a person.
    pub message: String,
}

/// The reference host's HTTP status for a refusal: 404 for a negotiation
/// that is not there, 403 for a seat that may not move, 409 for a state
/// that forbids it, 400 for a request that is wrong in itself.
///
/// ```
/// use index_host::{Refusal, refusal_status};
/// use index_negotiation::{NegotiationRejection, ParkRejection};
/// assert_eq!(refusal_status(Refusal::Turn(NegotiationRejection::ProposeOverOffer)), axum::http::StatusCode::BAD_REQUEST);
/// assert_eq!(refusal_status(Refusal::Park(ParkRejection::AlreadyParked)), axum::http::StatusCode::CONFLICT);
/// ```
pub fn refusal_status(refusal: Refusal) -> StatusCode {
    match refusal.kind() {
        RefusalKind::Missing => StatusCode::NOT_FOUND,
        RefusalKind::NotYours => StatusCode::FORBIDDEN,
        RefusalKind::Conflict => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// A refusal as the caller hears it: a negotiation that is not there and
/// one where the caller holds no seat answer alike (`not_found`), so ids
/// cannot be probed; any other refusal is itself.
impl From<Refusal> for HostError {
    fn from(refusal: Refusal) -> Self {
        use index_negotiation::AnswerRejection as Answer;
        let stranger = matches!(
            refusal,
            Refusal::Turn(NegotiationRejection::NotASeat)
                | Refusal::Resume(NegotiationResumeRejection::NotASeat)
                | Refusal::Park(ParkRejection::NotASeat)
                | Refusal::Answer(Answer::NotASeat)
        );
        if stranger || refusal.kind() == RefusalKind::Missing {
            HostError::NotFound
        } else {
            HostError::Refused(refusal)
        }
    }
}

macro_rules! refused_by {
    ($($rejection:ty),* $(,)?) => {$(
        impl From<$rejection> for HostError {
            fn from(rejection: $rejection) -> Self {
                Refusal::from(rejection).into()
            }
        }
    )*};
}

refused_by!(
    NegotiationRejection,
    NegotiationResumeRejection,
    OpenRejection,
    ParkRejection,
    index_negotiation::AnswerRejection,
);

/// A turn the turn schema refuses: `invalid_turn`, with its problem.
impl From<index_negotiation::TurnProblem> for HostError {
    fn from(problem: index_negotiation::TurnProblem) -> Self {
        HostError::Invalid {
            code: Code::Rules(Refusal::Turn(NegotiationRejection::InvalidTurn)),
            message: problem.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference host's map, by wire code, for every rejection of
    /// every kind: a rejection added without a status decision fails here.
    #[test]
    fn every_rejection_has_the_reference_status() {
        let expected = [
            ("not_found", 404),
            ("not_a_seat", 403),
            ("already_settled", 409),
            ("not_your_turn", 403),
            ("counter_is_first", 400),
            ("accept_without_offer", 400),
            ("propose_over_offer", 400),
            ("intent_inactive", 409),
            ("invalid_turn", 400),
            ("raced", 409),
            ("not_paused", 409),
            // Ours: the reference has no parks in its state (see STABILITY.md).
            ("awaiting_answer", 409),
            ("ineligible", 400),
            ("already_exists", 409),
            ("not_parkable", 409),
            ("already_parked", 409),
            ("ask_cap_reached", 409),
            ("not_parked", 409),
            ("not_the_owner", 403),
            ("already_answered", 409),
            ("blank_answer", 400),
            ("answer_too_long", 400),
        ];
        let refusals = NegotiationRejection::ALL
            .into_iter()
            .map(Refusal::Turn)
            .chain(
                NegotiationResumeRejection::ALL
                    .into_iter()
                    .map(Refusal::Resume),
            )
            .chain(OpenRejection::ALL.into_iter().map(Refusal::Open))
            .chain(ParkRejection::ALL.into_iter().map(Refusal::Park))
            .chain(
                index_negotiation::AnswerRejection::ALL
                    .into_iter()
                    .map(Refusal::Answer),
            );
        for refusal in refusals {
            let status = expected
                .iter()
                .find(|(code, _)| *code == refusal.code())
                .map(|(_, status)| *status);
            assert_eq!(
                Some(refusal_status(refusal).as_u16()),
                status,
                "{refusal:?}"
            );
        }
    }

    #[test]
    fn a_seat_the_caller_lacks_answers_as_not_found() {
        assert!(matches!(
            HostError::from(NegotiationRejection::NotASeat),
            HostError::NotFound
        ));
        assert!(matches!(
            HostError::from(NegotiationResumeRejection::NotASeat),
            HostError::NotFound
        ));
        assert!(matches!(
            HostError::from(ParkRejection::NotASeat),
            HostError::NotFound
        ));
        assert!(matches!(
            HostError::from(ParkRejection::AlreadyParked),
            HostError::Refused(Refusal::Park(ParkRejection::AlreadyParked))
        ));
        let body = serde_json::to_value(
            HostError::Store(StoreError::Corrupt("secret detail".into())).body(),
        )
        .unwrap();
        assert_eq!(body["error"]["code"], "store_failed");
        assert!(
            !body.to_string().contains("secret detail"),
            "a store's cause is not sent"
        );
    }
}
