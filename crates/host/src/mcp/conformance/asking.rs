//! The fixtures that ask before they answer (`input_required`, SEP-2322):
//! the first call answers with what the client must ask its user, its
//! model or its roots, and the retry carries the answers. Where a fixture
//! keeps state between rounds, the `requestState` is signed with the key
//! the host's own forms are signed with (`Host::sign`), so a changed state
//! is refused and any host of the store can read it. Unlike the forms'
//! tokens, a fixture's state names no caller, has no deadline and may be
//! used again.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, InputRequiredResult, InputResponses, Prompt, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::from_json;
use crate::service::host::Host;

/// What a fixture's signed `requestState` carries.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    /// The fixture that wrote it: a state is good for that fixture only.
    fixture: String,
    /// The round it answers.
    round: u8,
    /// What an earlier round learnt (the multi-round fixture's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// 128 random bits, so that no two rounds write the same state.
    nonce: String,
}

pub(super) fn tools() -> Vec<Tool> {
    [
        ("test_input_required_result_elicitation", "MRTR: returns InputRequiredResult with elicitation request"),
        ("test_input_required_result_sampling", "MRTR: returns InputRequiredResult with sampling request"),
        ("test_input_required_result_list_roots", "MRTR: returns InputRequiredResult with roots/list request"),
        ("test_input_required_result_request_state", "MRTR: returns InputRequiredResult with requestState"),
        ("test_input_required_result_multiple_inputs", "MRTR: returns InputRequiredResult with multiple input requests"),
        ("test_input_required_result_multi_round", "MRTR: multi-round InputRequiredResult workflow"),
        ("test_input_required_result_tampered_state", "MRTR: signed requestState integrity test"),
        ("test_input_required_result_capabilities", "MRTR: respects client capabilities in inputRequests"),
    ]
    .into_iter()
    .filter_map(|(name, description)| {
        let tool = json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}});
        serde_json::from_value(tool).ok()
    })
    .collect()
}

pub(super) fn prompts() -> Vec<Prompt> {
    let prompt = json!({
        "name": "test_input_required_result_prompt",
        "description": "MRTR: prompt that requires elicitation input",
    });
    serde_json::from_value(prompt).into_iter().collect()
}

/// An elicitation of one field, `field`, of JSON type `kind`.
pub(super) fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]},
    }})
}

/// A request for one message from the client's model.
fn sample(text: &str, max_tokens: u32) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens,
    }})
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

pub(super) fn asked(
    requests: Value,
    state: Option<String>,
) -> Result<InputRequiredResult, ErrorData> {
    from_json(json!({
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": state,
    }))
}

fn text(text: &str) -> Result<CallToolResult, ErrorData> {
    from_json(json!({"content": [{"type": "text", "text": text}]}))
}

fn malformed(key: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("the input response {key:?} has not the shape asked"),
        None,
    )
}

/// The answer under `key` to an elicitation: `None` when there is none,
/// the accepted content (empty when declined or cancelled), or "invalid
/// params" for a response that is no elicitation result.
fn elicited(
    responses: Option<&InputResponses>,
    key: &str,
) -> Result<Option<serde_json::Map<String, Value>>, ErrorData> {
    let Some(response) = responses.and_then(|responses| responses.get(key)) else {
        return Ok(None);
    };
    match response.get("action").and_then(Value::as_str) {
        Some("accept") => match response.get("content") {
            Some(Value::Object(content)) => Ok(Some(content.clone())),
            _ => Err(malformed(key)),
        },
        Some("decline" | "cancel") => Ok(Some(serde_json::Map::new())),
        _ => Err(malformed(key)),
    }
}

/// The text a sampling answer under `key` carries, if there is one.
fn sampled(responses: Option<&InputResponses>, key: &str) -> Result<Option<String>, ErrorData> {
    let Some(response) = responses.and_then(|responses| responses.get(key)) else {
        return Ok(None);
    };
    response
        .pointer("/content/text")
        .and_then(Value::as_str)
        .map(|text| Some(text.to_owned()))
        .ok_or_else(|| malformed(key))
}

/// How many roots an answer under `key` lists, if there is one.
fn rooted(responses: Option<&InputResponses>, key: &str) -> Result<Option<usize>, ErrorData> {
    let Some(response) = responses.and_then(|responses| responses.get(key)) else {
        return Ok(None);
    };
    response
        .get("roots")
        .and_then(Value::as_array)
        .map(|roots| Some(roots.len()))
        .ok_or_else(|| malformed(key))
}

/// A new state for `fixture`'s `round`, signed.
async fn signed(
    host: &Host,
    fixture: &str,
    round: u8,
    name: Option<String>,
) -> Result<String, ErrorData> {
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    let state = State {
        fixture: fixture.to_owned(),
        round,
        name,
        nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
    };
    let payload = serde_json::to_vec(&state)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    host.sign(&payload)
        .await
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))
}

/// Asks `requests` with a new signed state for `fixture`'s `round`.
async fn ask_with_state(
    host: &Host,
    fixture: &str,
    round: u8,
    name: Option<String>,
    requests: Value,
) -> Result<CallToolResponse, ErrorData> {
    let state = signed(host, fixture, round, name).await?;
    asked(requests, Some(state)).map(Into::into)
}

/// What a state sent back carries: `None` when none was sent, "invalid
/// params" when it was not signed by a host of this store for `fixture`
/// or was changed.
async fn opened(
    host: &Host,
    fixture: &str,
    state: Option<&str>,
) -> Result<Option<State>, ErrorData> {
    let Some(state) = state else { return Ok(None) };
    let refused = || ErrorData::invalid_params("requestState integrity check failed", None);
    let payload = host.open_signed(state).await.ok_or_else(refused)?;
    let state: State = serde_json::from_slice(&payload).map_err(|_| refused())?;
    if state.fixture != fixture {
        return Err(refused());
    }
    Ok(Some(state))
}

/// The answer of the asking fixture `request` names, or `None` when it
/// names none of them.
pub(super) async fn call(
    host: &Host,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let name = request.name.as_ref();
    let responses = request.input_responses.as_ref();
    let state = request.request_state.as_deref();
    let answer = match name {
        "test_input_required_result_elicitation" => greeting(responses).await,
        "test_input_required_result_sampling" => match sampled(responses, "capital_question") {
            Ok(Some(answer)) => text(&format!("Sampling result: {answer}")).map(Into::into),
            Ok(None) => asked(
                json!({"capital_question": sample("What is the capital of France?", 100)}),
                None,
            )
            .map(Into::into),
            Err(err) => Err(err),
        },
        "test_input_required_result_list_roots" => match rooted(responses, "client_roots") {
            Ok(Some(count)) => text(&format!("Found {count} root(s)")).map(Into::into),
            Ok(None) => asked(json!({"client_roots": roots()}), None).map(Into::into),
            Err(err) => Err(err),
        },
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            confirmed(host, name, responses, state).await
        }
        "test_input_required_result_multiple_inputs" => {
            all_three(host, name, responses, state).await
        }
        "test_input_required_result_multi_round" => rounds(host, name, responses, state).await,
        "test_input_required_result_capabilities" => {
            within_capabilities(host, name, responses, context).await
        }
        _ => return None,
    };
    Some(answer)
}

/// Asks for a name, and greets it.
async fn greeting(responses: Option<&InputResponses>) -> Result<CallToolResponse, ErrorData> {
    match elicited(responses, "user_name")? {
        Some(content) => {
            let name = match content.get("name") {
                Some(Value::String(name)) => name.clone(),
                None => "unknown".to_owned(),
                Some(_) => return Err(malformed("user_name")),
            };
            text(&format!("Hello, {name}!")).map(Into::into)
        }
        None => asked(
            json!({"user_name": elicit("What is your name?", "name", "string")}),
            None,
        )
        .map(Into::into),
    }
}

/// Asks for a confirmation with a signed state; answers only a retry that
/// brings that state back unchanged.
async fn confirmed(
    host: &Host,
    fixture: &str,
    responses: Option<&InputResponses>,
    state: Option<&str>,
) -> Result<CallToolResponse, ErrorData> {
    let opened = opened(host, fixture, state).await?;
    if let (Some(_), Some(content)) = (opened, elicited(responses, "confirm")?) {
        let said = if fixture.ends_with("tampered_state") {
            "integrity-ok: state verified"
        } else {
            "state-ok: requestState validated"
        };
        let ok = content.get("ok").and_then(Value::as_bool).unwrap_or(false);
        return text(&format!("{said} (ok: {ok})")).map(Into::into);
    }
    ask_with_state(
        host,
        fixture,
        1,
        None,
        json!({"confirm": elicit("Please confirm", "ok", "boolean")}),
    )
    .await
}

/// Asks the user, the model and the roots at once.
async fn all_three(
    host: &Host,
    fixture: &str,
    responses: Option<&InputResponses>,
    state: Option<&str>,
) -> Result<CallToolResponse, ErrorData> {
    let opened = opened(host, fixture, state).await?;
    let name = elicited(responses, "user_name")?;
    let greeting = sampled(responses, "greeting")?;
    let listed = rooted(responses, "client_roots")?;
    if let (Some(_), Some(name), Some(greeting), Some(listed)) = (opened, name, greeting, listed) {
        let name = name
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        return text(&format!(
            "Name: {name}; Greeting: {greeting}; Roots: {listed}"
        ))
        .map(Into::into);
    }
    let requests = json!({
        "user_name": elicit("What is your name?", "name", "string"),
        "greeting": sample("Generate a greeting", 50),
        "client_roots": roots(),
    });
    ask_with_state(host, fixture, 1, None, requests).await
}

/// A name, then a colour, each its own round with its own state.
async fn rounds(
    host: &Host,
    fixture: &str,
    responses: Option<&InputResponses>,
    state: Option<&str>,
) -> Result<CallToolResponse, ErrorData> {
    let opened = opened(host, fixture, state).await?;
    match opened {
        Some(State { round: 1, .. }) => {
            if let Some(content) = elicited(responses, "step1")? {
                let name = content
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                let requests = json!({"step2": elicit("Step 2: What is your favorite color?", "color", "string")});
                return ask_with_state(host, fixture, 2, Some(name.to_owned()), requests).await;
            }
        }
        Some(State { round: 2, name, .. }) => {
            if let Some(content) = elicited(responses, "step2")? {
                let color = content
                    .get("color")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                let name = name.unwrap_or_default();
                return text(&format!(
                    "Multi-round complete for {name} who likes {color}"
                ))
                .map(Into::into);
            }
        }
        _ => {}
    }
    ask_with_state(
        host,
        fixture,
        1,
        None,
        json!({"step1": elicit("Step 1: What is your name?", "name", "string")}),
    )
    .await
}

/// Asks only what the client said it can answer.
async fn within_capabilities(
    host: &Host,
    fixture: &str,
    responses: Option<&InputResponses>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    if let Some(responses) = responses.filter(|responses| !responses.is_empty()) {
        let keys: Vec<&str> = responses.keys().map(String::as_str).collect();
        return text(&format!("capabilities-ok: received {}", keys.join(", "))).map(Into::into);
    }
    let capabilities = context.client_capabilities().unwrap_or_default();
    let mut requests = serde_json::Map::new();
    if capabilities.elicitation.is_some() {
        requests.insert(
            "elicit_input".to_owned(),
            elicit("Please provide a value", "value", "string"),
        );
    }
    if capabilities.sampling.is_some() {
        requests.insert("sample_input".to_owned(), sample("Sample request", 50));
    }
    if capabilities.roots.is_some() {
        requests.insert("client_roots".to_owned(), roots());
    }
    if requests.is_empty() {
        return text("capabilities-ok: nothing the client can answer was asked").map(Into::into);
    }
    ask_with_state(host, fixture, 1, None, Value::Object(requests)).await
}

/// The asking prompt, or `None` when `request` names another.
pub(super) fn prompt(
    request: &GetPromptRequestParams,
) -> Option<Result<GetPromptResponse, ErrorData>> {
    if request.name != "test_input_required_result_prompt" {
        return None;
    }
    let answer = match elicited(request.input_responses.as_ref(), "user_context") {
        Ok(Some(content)) => {
            let context = content
                .get("context")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let message = json!({"role": "user", "content": {"type": "text", "text": format!("Prompt with context: {context}")}});
            from_json(json!({"messages": [message]})).map(GetPromptResponse::Complete)
        }
        Ok(None) => {
            let requests = json!({"user_context": elicit("What context should the prompt use?", "context", "string")});
            asked(requests, None).map(GetPromptResponse::InputRequired)
        }
        Err(err) => Err(err),
    };
    Some(answer)
}
