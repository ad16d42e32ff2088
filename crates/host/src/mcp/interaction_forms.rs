//! A pending interaction put to its person's own current MCP client
//! (protocol 2026-07-28 and later) as a form, through `input_required`:
//! the answer to `request_interaction` or a waiting `get_interaction` is
//! the form, and the client's retry of the same call carries the person's
//! answer, which becomes a response command like any other.
//!
//! As for a parked question (`crate::mcp::input`), the `requestState` is
//! self-contained and signed with the store's shared key, so the retry may
//! reach any host: it names the caller's key and person, the interaction
//! and its request's digest, the call (a digest of the tool and its
//! arguments) and an expiry. Its
//! random nonce is the command's operation id, so a retry sent twice is
//! the same command twice: the second is answered with the first's
//! acknowledgement, and the interaction is resolved once.

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult,
    InputResponses,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use index_interaction::{
    InteractionRequest, InteractionResponseCommand, Unmappable, elicitation_to_response,
    interaction_to_elicitation,
};
use index_negotiation_store::UnixTime;

use crate::mcp::elicit::read_result;
use crate::mcp::input::RequestDigest;
use crate::service::host::Host;
use crate::service::keys::Caller;

/// What a `requestState` carries, signed.
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The caller's API key id, and their person.
    key: String,
    user: String,
    /// The interaction the form asks, and the digest of its request, so
    /// an answer never reaches another request asked later under its id.
    interaction: String,
    digest: String,
    /// The call the token answers a retry of, in hex.
    request: String,
    /// When the token stops answering, in Unix seconds.
    expires: u64,
    /// 128 random bits: the answer's operation id.
    nonce: String,
}

/// The key of an interaction's form among a call's inputs, apart from a
/// parked question's (`park:…`).
fn form_key(id: &str) -> String {
    format!("interaction:{id}")
}

/// What asking the caller's person `request` as a form came to.
pub(super) enum Form {
    /// The call answers with this form.
    Asked(InputRequiredResult),
    /// No form can carry the request (a secret field, a kind the contract
    /// does not know): the person answers with a response command.
    Unmappable(Unmappable),
    /// No token could be signed: the call waits as for any client.
    Not,
}

/// The `input_required` answer that puts `request`, pending for the
/// caller's person, to them as a form, for a retry of `call`.
pub(super) async fn ask(
    host: &Host,
    caller: &Caller,
    request: &InteractionRequest,
    call: RequestDigest,
) -> Form {
    let elicitation = match interaction_to_elicitation(request) {
        Ok(elicitation) => elicitation,
        Err(unmappable) => return Form::Unmappable(unmappable),
    };
    let params = json!({
        "mode": "form",
        "message": elicitation.message,
        "requestedSchema": elicitation.requested_schema,
    });
    let Ok(params) = serde_json::from_value::<ElicitRequestParams>(params) else {
        return Form::Not;
    };
    let mut nonce = [0u8; 16];
    if getrandom::fill(&mut nonce).is_err() {
        return Form::Not;
    }
    let claims = Claims {
        key: caller.key_id.clone(),
        user: caller.user_id.as_str().to_owned(),
        interaction: request.id().to_owned(),
        digest: request.request_digest().to_string(),
        request: call.hex(),
        expires: UnixTime::now().after(host.ask_user_window()).0,
        nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
    };
    let Ok(claims) = serde_json::to_vec(&claims) else {
        return Form::Not;
    };
    let token = match host.sign(&claims).await {
        Ok(token) => token,
        Err(err) => {
            tracing::warn!(error = %err, "no requestState could be signed; the interaction is not put as a form");
            return Form::Not;
        }
    };
    let mut requests = InputRequests::new();
    requests.insert(
        form_key(request.id()),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    Form::Asked(InputRequiredResult::new(Some(requests), Some(token)))
}

/// Delivers the answer a retry carries, when `state` is a token a host of
/// this store signed, unexpired, for this caller's key and this call, and
/// the responses hold an answer under its form's key: `Some` once the
/// answer is delivered. Any other retry is a first call.
pub(super) async fn answered(
    host: &Host,
    caller: &Caller,
    call: RequestDigest,
    state: Option<&str>,
    responses: Option<&InputResponses>,
) -> Option<()> {
    let (state, responses) = (state?, responses?);
    let claims: Claims = serde_json::from_slice(&host.open_signed(state).await?).ok()?;
    if claims.key != caller.key_id
        || claims.user != caller.user_id.as_str()
        || claims.request != call.hex()
        || UnixTime(claims.expires) <= UnixTime::now()
    {
        return None;
    }
    let result =
        serde_json::from_value(responses.get(&form_key(&claims.interaction))?.clone()).ok()?;
    let view = host.interaction(caller, &claims.interaction).await.ok()?;
    if view.request.request_digest().to_string() != claims.digest {
        return None;
    }
    let response = match elicitation_to_response(&view.request, &read_result(&result)?) {
        Ok(response) => response,
        Err(problems) => {
            tracing::info!(user = ?caller.user_id.as_str(), problems = problems.len(), "a form's answer that breaks the interaction's spec: asked again");
            return None;
        }
    };
    let command = InteractionResponseCommand::new(
        format!("mcp-form:{}", claims.nonce),
        view.request.command_binding(),
        response,
    );
    // Whatever it is acknowledged with, the retry answers with the
    // interaction as it then stands.
    host.respond(caller, &serde_json::to_value(&command).ok()?)
        .await
        .ok()?;
    tracing::info!(user = ?caller.user_id.as_str(), "an interaction answered through input_required");
    Some(())
}
