//! How a host request fails, and the one error shape both surfaces show:
//! `{"error": {"code", "message"}}` over HTTP, and the same object as a
//! tool error's structured content over MCP.

use serde::Serialize;

use index_negotiation::{NegotiationRejection, NegotiationResumeRejection};
use index_negotiation_store::{OpenRejection, StoreError};

/// A request the host did not carry out. A rules refusal is one of these
/// too, since it is what the caller must hear about; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// No valid key: missing, malformed, unknown or revoked.
    #[error("a valid API key is required")]
    Unauthorized,
    /// The key is valid but may not do this (opening or closing needs a
    /// host key).
    #[error("this needs a host key")]
    Forbidden,
    /// No such negotiation, or one where the caller holds no seat: the two
    /// answer alike, so ids cannot be probed.
    #[error("There is no negotiation with that id.")]
    NotFound,
    /// The rules refused.
    #[error("{explanation}")]
    Refused {
        /// The rejection code.
        code: &'static str,
        /// One plain sentence.
        explanation: &'static str,
    },
    /// The request cannot be used: malformed JSON, a body that fails the
    /// turn schema (`code` `invalid_turn`), a bad query.
    #[error("{message}")]
    Invalid {
        /// A stable code (`malformed_json`, `invalid_turn`, `invalid_request`).
        code: &'static str,
        /// What is wrong, for a person.
        message: String,
    },
    /// A request the host cannot use, as plain text (`invalid_request`).
    #[error("{0}")]
    BadRequest(String),
    /// The store failed; nothing was applied.
    #[error("the store failed")]
    Store(#[from] StoreError),
    /// The listener or transport failed.
    #[error("the host's connection failed: {0}")]
    Io(std::io::Error),
}

impl HostError {
    /// Wraps an I/O failure of the listener or a transport.
    pub fn io(err: std::io::Error) -> Self {
        HostError::Io(err)
    }

    /// The stable code in the error object.
    pub fn code(&self) -> &'static str {
        match self {
            HostError::Unauthorized => "unauthorized",
            HostError::Forbidden => "forbidden",
            HostError::NotFound => "not_found",
            HostError::Refused { code, .. } | HostError::Invalid { code, .. } => code,
            HostError::BadRequest(_) => "invalid_request",
            HostError::Store(_) => "store_failed",
            HostError::Io(_) => "unavailable",
        }
    }

    /// The HTTP status, with the reference host's map for rejections.
    pub fn status(&self) -> u16 {
        match self {
            HostError::Unauthorized => 401,
            HostError::Forbidden => 403,
            HostError::NotFound => 404,
            HostError::Refused { code, .. } => rejection_status(code),
            HostError::Invalid { .. } | HostError::BadRequest(_) => 400,
            HostError::Store(_) => 500,
            HostError::Io(_) => 503,
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

/// The reference host's status for each rejection code.
fn rejection_status(code: &str) -> u16 {
    match code {
        "not_found" => 404,
        "not_a_seat" | "not_your_turn" => 403,
        "already_settled" | "intent_inactive" | "raced" | "not_paused" | "already_exists" => 409,
        "counter_is_first"
        | "accept_without_offer"
        | "propose_over_offer"
        | "invalid_turn"
        | "ineligible" => 400,
        _ => 400,
    }
}

impl From<NegotiationRejection> for HostError {
    fn from(rejection: NegotiationRejection) -> Self {
        match rejection {
            NegotiationRejection::NotFound | NegotiationRejection::NotASeat => HostError::NotFound,
            other => HostError::Refused {
                code: other.code(),
                explanation: other.explanation(),
            },
        }
    }
}

impl From<NegotiationResumeRejection> for HostError {
    fn from(rejection: NegotiationResumeRejection) -> Self {
        match rejection {
            NegotiationResumeRejection::NotFound | NegotiationResumeRejection::NotASeat => {
                HostError::NotFound
            }
            other => HostError::Refused {
                code: other.code(),
                explanation: other.explanation(),
            },
        }
    }
}

impl From<OpenRejection> for HostError {
    fn from(rejection: OpenRejection) -> Self {
        HostError::Refused {
            code: rejection.code(),
            explanation: rejection.explanation(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ];
        for (code, status) in expected {
            assert_eq!(rejection_status(code), status, "{code}");
        }
        for rejection in NegotiationRejection::ALL {
            let status = rejection_status(rejection.code());
            assert!(
                expected
                    .iter()
                    .any(|(code, s)| *code == rejection.code() && *s == status),
                "{rejection:?}"
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
