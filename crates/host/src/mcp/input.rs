//! The parked question put to a current MCP client (protocol 2026-07-28
//! and later) through `input_required`, the way that protocol lets a
//! server ask: there are no sessions to push a form to, so the answer to
//! a tool call is the form itself, and the client's retry of the same
//! call carries the person's answer.
//!
//! The `requestState` is self-contained, so that the retry may reach any
//! host of the store: it carries whose ask it is (the caller's key and
//! person), on which negotiation, for which request (a digest of the tool
//! and its arguments), until when, and what the call that asked had done;
//! all of it signed with the store's shared key (`crate::service::signing`).
//! A token is used once on the whole store: its first answering retry
//! records it spent in the store. A retry whose token does not hold
//! (changed, expired, spent, another caller's, another negotiation's or
//! another request's) is treated as a first call, so the client is simply
//! asked again; and the answer goes through the same exactly-once delivery
//! as every other answer.

use rmcp::model::{
    ElicitRequest, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use index_negotiation_store::{OpportunityId, UnixTime};
use index_question_block::StructuredQuestion;

use crate::mcp::elicit::Form;
use crate::service::host::Host;
use crate::service::keys::Caller;

/// The digest of a tool call: its tool and its arguments, so that a token
/// answers only a retry of the call that asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestDigest(pub(crate) [u8; 32]);

impl RequestDigest {
    /// The digest of calling `tool` with `arguments`.
    pub(crate) fn of(tool: &str, arguments: Option<&rmcp::model::JsonObject>) -> Self {
        let arguments = arguments.map(serde_json::to_string).and_then(Result::ok);
        let mut digest = Sha256::new();
        digest.update(tool.as_bytes());
        digest.update([0]);
        digest.update(arguments.unwrap_or_default().as_bytes());
        RequestDigest(digest.finalize().into())
    }

    /// The digest in lowercase hex.
    pub(crate) fn hex(self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

/// What a `requestState` carries, signed.
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The caller's API key id, and their person.
    key: String,
    user: String,
    /// The negotiation the form asks about.
    opportunity: OpportunityId,
    /// The question asked, so that any host can rebuild the form.
    question: StructuredQuestion,
    /// The request the token answers a retry of, in hex.
    request: String,
    /// When the token stops answering, in Unix seconds.
    expires: u64,
    /// 128 random bits, so that two asks never make one token.
    nonce: String,
    /// What the call that asked had done (a park's report), answered
    /// again on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    report: Option<serde_json::Value>,
}

/// What a retry answered: the form, the person's answer to it, and the
/// report of the call that asked, if it had one.
pub(crate) struct Answered {
    pub(crate) form: Form,
    pub(crate) result: rmcp::model::ElicitResult,
    pub(crate) report: Option<serde_json::Value>,
}

/// The `input_required` answer that puts `question` to the caller as a
/// form on `id`, keyed by the form's own key, with a signed token as its
/// state. `None` when the question is no form or no token can be made
/// (the caller then answers as to an older client).
pub(crate) async fn ask(
    host: &Host,
    caller: &Caller,
    id: &OpportunityId,
    question: &StructuredQuestion,
    request: RequestDigest,
    report: Option<serde_json::Value>,
) -> Option<InputRequiredResult> {
    let form = Form::of(&caller.user_id, id, question)?;
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).ok()?;
    let claims = Claims {
        key: caller.key_id.clone(),
        user: caller.user_id.as_str().to_owned(),
        opportunity: id.clone(),
        question: question.clone(),
        request: request.hex(),
        expires: UnixTime::now().after(host.ask_user_window()).0,
        nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
        report,
    };
    let token = host.sign(&serde_json::to_vec(&claims).ok()?).await;
    let token = match token {
        Ok(token) => token,
        Err(err) => {
            tracing::warn!(error = %err, "no requestState could be signed; the client is asked without a form");
            return None;
        }
    };
    let mut requests = InputRequests::new();
    requests.insert(
        form.key().to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(form.params.clone())),
    );
    Some(InputRequiredResult::new(Some(requests), Some(token)))
}

/// The form a retry answers, with the person's answer to it: only when
/// `state` is a token a host of this store signed, unexpired, for this
/// caller's key, this negotiation and this request, the responses hold an
/// answer under the form's key, and no retry spent the token before. Any
/// other retry leaves the token as it was.
pub(crate) async fn answered(
    host: &Host,
    caller: &Caller,
    id: &OpportunityId,
    request: RequestDigest,
    state: Option<&str>,
    responses: Option<&InputResponses>,
) -> Option<Answered> {
    let (state, responses) = (state?, responses?);
    let claims: Claims = serde_json::from_slice(&host.open_signed(state).await?).ok()?;
    let now = UnixTime::now();
    if claims.key != caller.key_id
        || claims.user != caller.user_id.as_str()
        || claims.opportunity != *id
        || claims.request != request.hex()
        || UnixTime(claims.expires) <= now
    {
        return None;
    }
    let form = Form::of(&caller.user_id, id, &claims.question)?;
    let result = serde_json::from_value(responses.get(form.key())?.clone()).ok()?;
    let digest: [u8; 32] = Sha256::digest(state.as_bytes()).into();
    match host
        .store()
        .spend_token(&digest, UnixTime(claims.expires), now)
        .await
    {
        Ok(true) => {}
        Ok(false) => return None,
        Err(err) => {
            tracing::warn!(error = %err, "a requestState could not be spent; the client is asked again");
            return None;
        }
    }
    Some(Answered {
        form,
        result,
        report: claims.report,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;
    use std::time::Duration;

    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use index_negotiation_store::{KeyScope, MemoryStore, UserId};
    use serde_json::json;

    use super::*;
    use crate::service::host::HostSettings;

    fn question() -> StructuredQuestion {
        serde_json::from_value(json!({
            "title": "Equity", "prompt": "How much equity?", "multiSelect": false,
            "options": [{"label": "1%", "description": "Retry with 1%."},
                        {"label": "3%", "description": "Retry with 3%."}]}))
        .unwrap()
    }

    fn caller(key: &str, user: &str) -> Caller {
        Caller {
            key_id: key.to_owned(),
            user_id: UserId::parse(user).unwrap(),
            scope: KeyScope::Agent,
            kind: index_negotiation_store::ActorKind::AgentKey,
            request_id: None,
        }
    }

    async fn host(store: &MemoryStore, window: Duration) -> Host {
        let settings = HostSettings {
            ask_user_window: Some(window),
            ..HostSettings::default()
        };
        Host::with_settings(Arc::new(store.clone()), settings)
            .await
            .unwrap()
    }

    fn responses(id: &OpportunityId) -> InputResponses {
        let mut responses = InputResponses::new();
        responses.insert(
            format!("park:{id}"),
            json!({"action": "accept", "content": {"answer": "1"}}),
        );
        responses
    }

    #[tokio::test]
    async fn a_token_answers_once_on_any_host_for_its_caller_negotiation_and_request_only() {
        let store = MemoryStore::new();
        let (here, there) = (
            host(&store, Duration::from_secs(60)).await,
            host(&store, Duration::from_secs(60)).await,
        );
        let dana = caller("key-dana", "dana");
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        let other = OpportunityId::parse("7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843").unwrap();
        let request = RequestDigest::of("park_negotiation", None);
        let asked = ask(
            &here,
            &dana,
            &id,
            &question(),
            request,
            Some(json!({"parked": 1})),
        )
        .await
        .unwrap();
        let state = asked.request_state.clone().unwrap();
        let key = asked
            .input_requests
            .as_ref()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert_eq!(key, format!("park:{id}"));
        let answers = responses(&id);

        let refused = |who: Caller, on: OpportunityId, request: RequestDigest, state: String| {
            let (there, answers) = (there.clone(), answers.clone());
            async move {
                answered(&there, &who, &on, request, Some(&state), Some(&answers))
                    .await
                    .is_none()
            }
        };
        let same_person_other_key = caller("key-dana-2", "dana");
        assert!(refused(caller("key-sam", "sam"), id.clone(), request, state.clone()).await);
        assert!(refused(same_person_other_key, id.clone(), request, state.clone()).await);
        assert!(refused(dana.clone(), other, request, state.clone()).await);
        let other_call = RequestDigest::of("get_negotiation", None);
        assert!(refused(dana.clone(), id.clone(), other_call, state.clone()).await);
        // A token whose claims were changed, under the same signature.
        let mut parts: Vec<&str> = state.split('.').collect();
        let mut claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        claims["expires"] = json!(u64::MAX);
        let tampered_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap());
        parts[1] = &tampered_payload;
        assert!(refused(dana.clone(), id.clone(), request, parts.join(".")).await);

        // The owner's retry answers, on the other host, once on the store.
        let first = answered(&there, &dana, &id, request, Some(&state), Some(&answers))
            .await
            .unwrap();
        assert_eq!(first.report, Some(json!({"parked": 1})));
        assert!(refused(dana.clone(), id.clone(), request, state.clone()).await);
        let replay_here = answered(&here, &dana, &id, request, Some(&state), Some(&answers)).await;
        assert!(replay_here.is_none(), "spent on every host");
    }

    #[tokio::test]
    async fn an_expired_token_answers_nothing() {
        let store = MemoryStore::new();
        let here = host(&store, Duration::ZERO).await;
        let dana = caller("key-dana", "dana");
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        let request = RequestDigest::of("park_negotiation", None);
        let asked = ask(&here, &dana, &id, &question(), request, None)
            .await
            .unwrap();
        let state = asked.request_state.unwrap();
        let answers = responses(&id);
        assert!(
            answered(&here, &dana, &id, request, Some(&state), Some(&answers))
                .await
                .is_none()
        );
    }
}
