//! The parked question put to a current MCP client (protocol 2026-07-28
//! and later) through `input_required`, the way that protocol lets a
//! server ask: there are no sessions to push a form to, so the answer to
//! a tool call is the form itself, and the client's retry of the same
//! call carries the person's answer.
//!
//! What a form was asked for is kept here, in the process that asked, under
//! an unguessable token that is the `requestState`: bound to the caller
//! and the negotiation, good for the ask-user window, used once. A retry
//! whose token is unknown (spent, expired, or sent to another process of
//! a shared store) is treated as a first call, so the client is simply
//! asked again; the answer goes through the same exactly-once delivery as
//! every other answer, so a replay changes nothing.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};

use index_negotiation_store::{OpportunityId, UserId};
use index_question_block::StructuredQuestion;
use index_stall_gap::ParkReport;

use crate::mcp::elicit::Form;

/// How many asks a process keeps outstanding at most; past it, the oldest
/// go first (their clients are asked again when they retry).
const MOST_OUTSTANDING: usize = 10_000;

/// How many asks one person may have outstanding: a client that keeps
/// calling without answering drops its own oldest asks, never anyone
/// else's.
const MOST_PER_PERSON: usize = 64;

/// The asks this process has outstanding, by token.
#[derive(Default)]
pub(crate) struct Outstanding {
    asks: Mutex<BTreeMap<String, Ask>>,
}

/// One outstanding ask: the form (whose, on which negotiation), what the
/// call that asked had done (a park's report, answered again on the
/// retry), and until when.
struct Ask {
    form: Form,
    report: Option<ParkReport>,
    until: Instant,
}

/// What a retry answered: the form, the person's answer to it, and the
/// report of the park that asked, if a park did.
pub(crate) struct Answered {
    pub(crate) form: Form,
    pub(crate) result: rmcp::model::ElicitResult,
    pub(crate) report: Option<ParkReport>,
}

impl Outstanding {
    /// The `input_required` answer that puts `question` to `owner` as a
    /// form, keyed by the form's own key, with a fresh token as its state.
    /// `None` when no token can be drawn or the question is no form (the
    /// caller then answers as to an older client).
    pub(crate) fn ask(
        &self,
        owner: &UserId,
        id: &OpportunityId,
        question: &StructuredQuestion,
        report: Option<ParkReport>,
        window: Duration,
    ) -> Option<InputRequiredResult> {
        let form = Form::of(owner, id, question)?;
        let token = crate::service::keys::random_hex().ok()?;
        let mut requests = InputRequests::new();
        requests.insert(
            form.key().to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(form.params.clone())),
        );
        let now = Instant::now();
        let mut asks = self.asks.lock().ok()?;
        asks.retain(|_, ask| ask.until > now);
        // Past a person's share, their own oldest ask goes; past the
        // whole, anyone's oldest.
        let theirs = asks
            .values()
            .filter(|ask| ask.form.owner() == owner)
            .count();
        let evict_among = if theirs >= MOST_PER_PERSON {
            Some(Some(owner))
        } else if asks.len() >= MOST_OUTSTANDING {
            Some(None)
        } else {
            None
        };
        if let Some(among) = evict_among
            && let Some(oldest) = asks
                .iter()
                .filter(|(_, ask)| among.is_none_or(|owner| ask.form.owner() == owner))
                .min_by_key(|(_, ask)| ask.until)
                .map(|(token, _)| token.clone())
        {
            asks.remove(&oldest);
        }
        asks.insert(
            token.clone(),
            Ask {
                form,
                report,
                until: now + window,
            },
        );
        Some(InputRequiredResult::new(Some(requests), Some(token)))
    }

    /// The form a retry answers, with the person's answer to it: only when
    /// `state` is a token this process handed out, not yet used nor
    /// expired, for this caller and this negotiation, and the responses
    /// hold an answer under the form's key. The token is spent by the
    /// first such retry; any other retry leaves it for its owner.
    pub(crate) fn answered(
        &self,
        caller: &UserId,
        id: &OpportunityId,
        state: Option<&str>,
        responses: Option<&InputResponses>,
    ) -> Option<Answered> {
        let (state, responses) = (state?, responses?);
        let mut asks = self.asks.lock().ok()?;
        let ask = asks.get(state)?;
        if ask.form.owner() != caller || ask.form.id() != id {
            return None;
        }
        let ask = asks.remove(state)?;
        if ask.until <= Instant::now() {
            return None;
        }
        let result = serde_json::from_value(responses.get(ask.form.key())?.clone()).ok()?;
        Some(Answered {
            form: ask.form,
            result,
            report: ask.report,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn question() -> StructuredQuestion {
        serde_json::from_value(json!({
            "title": "Equity", "prompt": "How much equity?", "multiSelect": false,
            "options": [{"label": "1%", "description": "Retry with 1%."},
                        {"label": "3%", "description": "Retry with 3%."}]}))
        .unwrap()
    }

    #[test]
    fn a_token_answers_once_for_its_owner_and_negotiation_only() {
        let outstanding = Outstanding::default();
        let dana = UserId::parse("dana").unwrap();
        let sam = UserId::parse("sam").unwrap();
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        let other = OpportunityId::parse("7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843").unwrap();
        let asked = outstanding
            .ask(&dana, &id, &question(), None, Duration::from_secs(60))
            .unwrap();
        let state = asked.request_state.clone().unwrap();
        assert_eq!(state.len(), 64);
        let key = asked
            .input_requests
            .as_ref()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert_eq!(key, format!("park:{id}"));
        let mut responses = InputResponses::new();
        responses.insert(key, json!({"action": "accept", "content": {"answer": "1"}}));

        // Someone else's token, or another negotiation: not theirs to spend.
        assert!(
            outstanding
                .answered(&sam, &id, Some(&state), Some(&responses))
                .is_none()
        );
        assert!(
            outstanding
                .answered(&dana, &other, Some(&state), Some(&responses))
                .is_none()
        );
        assert!(
            outstanding
                .answered(&dana, &id, Some("0".repeat(64).as_str()), Some(&responses))
                .is_none()
        );
        // The owner's retry answers, once.
        assert!(
            outstanding
                .answered(&dana, &id, Some(&state), Some(&responses))
                .is_some()
        );
        assert!(
            outstanding
                .answered(&dana, &id, Some(&state), Some(&responses))
                .is_none()
        );
    }

    #[test]
    fn a_person_who_keeps_asking_drops_only_their_own_oldest_asks() {
        let outstanding = Outstanding::default();
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        let (dana, sam) = (
            UserId::parse("dana").unwrap(),
            UserId::parse("sam").unwrap(),
        );
        let ask = |who: &UserId| {
            outstanding
                .ask(who, &id, &question(), None, Duration::from_secs(60))
                .and_then(|asked| asked.request_state)
                .unwrap()
        };
        let sams = ask(&sam);
        let danas_first = ask(&dana);
        for _ in 0..MOST_PER_PERSON {
            ask(&dana);
        }
        let mut responses = InputResponses::new();
        responses.insert(
            format!("park:{id}"),
            json!({"action": "accept", "content": {"answer": "0"}}),
        );
        assert!(
            outstanding
                .answered(&dana, &id, Some(&danas_first), Some(&responses))
                .is_none(),
            "dana's oldest went"
        );
        assert!(
            outstanding
                .answered(&sam, &id, Some(&sams), Some(&responses))
                .is_some(),
            "sam's stayed"
        );
    }

    #[test]
    fn an_expired_token_answers_nothing() {
        let outstanding = Outstanding::default();
        let dana = UserId::parse("dana").unwrap();
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        let asked = outstanding
            .ask(&dana, &id, &question(), None, Duration::ZERO)
            .unwrap();
        let key = format!("park:{id}");
        let mut responses = InputResponses::new();
        responses.insert(key, json!({"action": "accept", "content": {"answer": "0"}}));
        let state = asked.request_state.unwrap();
        assert!(
            outstanding
                .answered(&dana, &id, Some(&state), Some(&responses))
                .is_none()
        );
    }
}
