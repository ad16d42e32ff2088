//! A real host on a free local port, with keys for a pair of seats, a
//! stranger and the host, and a plain HTTP client that speaks to it; and
//! the park the tests put negotiations on.

// Each test binary uses its own part of this.
#![allow(dead_code)]

use std::sync::Arc;

use index_host::{Host, serve_with};
use index_negotiation_store::Actor;
use index_negotiation_store::{HostStore, KeyScope};
use serde_json::{Value, json};

pub const OPP: &str = "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36";

pub struct Running {
    pub base: String,
    pub host_key: String,
    pub dana: String,
    pub sam: String,
    pub stranger: String,
    pub host: Host,
    pub store: Arc<dyn HostStore>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub served: Option<tokio::task::JoinHandle<Result<(), index_host::HostError>>>,
    pub http: reqwest::Client,
}

/// What one request got back.
pub struct Reply {
    pub status: u16,
    pub body: Value,
    pub request_id: Option<String>,
}

impl Running {
    /// Starts a host on `store`, on 127.0.0.1 and a port the system picks.
    pub async fn start(store: Arc<dyn HostStore>) -> Self {
        Self::start_with_author(store, None).await
    }

    /// [`Running::start`] with a model that authors park questions.
    pub async fn start_with_author(
        store: Arc<dyn HostStore>,
        author: Option<Arc<dyn index_stall_gap::StallGapAuthor>>,
    ) -> Self {
        Self::start_with(store, author, index_host::ServeSettings::default()).await
    }

    /// [`Running::start_with_author`] with the listener's `settings`.
    pub async fn start_with(
        store: Arc<dyn HostStore>,
        author: Option<Arc<dyn index_stall_gap::StallGapAuthor>>,
        settings: index_host::ServeSettings,
    ) -> Self {
        let host = Host::with_author(store.clone(), author).await.unwrap();
        let key = |user: &str, scope| {
            let host = host.clone();
            let user = user.to_owned();
            async move {
                host.create_key(user.parse().unwrap(), scope)
                    .await
                    .unwrap()
                    .secret
            }
        };
        let (host_key, dana, sam, stranger) = (
            key("host", KeyScope::Host).await,
            key("dana", KeyScope::Agent).await,
            key("sam", KeyScope::Agent).await,
            key("mallory", KeyScope::Agent).await,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(serve_with(host.clone(), listener, settings, async move {
            let _ = stopped.await;
        }));
        Running {
            base,
            host_key,
            dana,
            sam,
            stranger,
            host,
            store,
            stop: Some(stop),
            served: Some(served),
            http: reqwest::Client::new(),
        }
    }

    /// `method path` with `key` (if any) and a JSON `body` (if any).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let request_id = response
            .headers()
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.unwrap();
        Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
            request_id,
        }
    }

    /// Starts an MCP session over streamable HTTP as `key`, as a client's
    /// `initialize` does; the answer carries the session's id.
    pub async fn mcp_initialize(&self, key: &str) -> reqwest::Response {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}});
        self.http
            .post(format!("{}/mcp", self.base))
            .bearer_auth(key)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
            .await
            .unwrap()
    }

    /// An MCP session over streamable HTTP as `key`: initialized, ready
    /// for requests.
    pub async fn mcp_session(&self, key: &str) -> McpSession<'_> {
        let started = self.mcp_initialize(key).await;
        assert_eq!(started.status(), 200);
        let session = started.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let mcp = McpSession {
            running: self,
            key: key.to_owned(),
            session,
            next_id: 2,
        };
        let initialized = mcp
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(initialized.status(), 202);
        mcp
    }

    /// Opens dana ↔ sam on `id` with the host key.
    pub async fn open(&self, id: &str) -> Reply {
        let body = json!({
            "opportunityId": id,
            "initiator": {"userId": "dana", "intentId": "hire"},
            "responder": {"userId": "sam", "intentId": "join"},
        });
        self.call("POST", "/negotiations", Some(&self.host_key), Some(body))
            .await
    }

    /// A turn on `id` as `key`.
    pub async fn turn(&self, id: &str, key: &str, action: &str, message: &str) -> Reply {
        let body = json!({"action": action, "message": message});
        self.call(
            "POST",
            &format!("/opportunities/{id}/negotiation/turns"),
            Some(key),
            Some(body),
        )
        .await
    }

    /// `GET`s negotiation `id` as `key` sees it.
    pub async fn view(&self, id: &str, key: &str) -> Reply {
        self.call(
            "GET",
            &format!("/opportunities/{id}/negotiation"),
            Some(key),
            None,
        )
        .await
    }

    /// Stops the listener and waits for it to finish what it was doing.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.unwrap().unwrap();
        }
    }
}

/// An MCP session on a [`Running`] host, as one key.
pub struct McpSession<'a> {
    running: &'a Running,
    key: String,
    session: String,
    next_id: u64,
}

impl McpSession<'_> {
    async fn post(&self, message: Value) -> reqwest::Response {
        self.running
            .http
            .post(format!("{}/mcp", self.running.base))
            .bearer_auth(&self.key)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.session)
            .json(&message)
            .send()
            .await
            .unwrap()
    }

    /// Sends request `method`; every message of the event stream the host
    /// answers with, in order (notifications, then the answer).
    pub async fn stream(&mut self, method: &str, params: Value) -> Vec<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let response = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(response.status(), 200, "{method}");
        let text = response.text().await.unwrap();
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .collect()
    }

    /// Sends request `method` and gives its JSON-RPC answer (`result` or
    /// `error`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let messages = self.stream(method, params).await;
        messages
            .iter()
            .find(|message| message.get("id").is_some())
            .cloned()
            .unwrap_or_else(|| panic!("no answer to {method} in {messages:?}"))
    }

    /// Calls tool `name` with `arguments`; gives the tool's result.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await;
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{name} answered a protocol error: {answer}"))
    }
}

/// What the tests' current clients can do: show forms.
pub const FORMS: &str = r#"{"elicitation": {"form": {}}}"#;

/// What a current client that also takes tasks declares.
pub const FORMS_AND_TASKS: &str =
    r#"{"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}"#;

impl Running {
    /// One `tools/call` as a client of the current protocol (2026-07-28)
    /// that shows forms sends it; `extra` joins the params (an
    /// `inputResponses` and `requestState` retry). The JSON-RPC answer.
    pub async fn current_call(
        &self,
        key: &str,
        tool: &str,
        arguments: Value,
        extra: Value,
    ) -> Value {
        let mut params = json!({"name": tool, "arguments": arguments});
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        self.current(key, "tools/call", params, FORMS).await
    }

    /// One request as a client of the current protocol sends it: no
    /// session, the version and the client's `capabilities` (JSON) in the
    /// request itself. The JSON-RPC answer.
    pub async fn current(
        &self,
        key: &str,
        method: &str,
        params: Value,
        capabilities: &str,
    ) -> Value {
        let (status, answer) = self
            .current_answered(key, method, params, capabilities)
            .await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    /// [`Running::current`], whatever the HTTP status: the status and the
    /// JSON-RPC answer.
    pub async fn current_answered(
        &self,
        key: &str,
        method: &str,
        mut params: Value,
        capabilities: &str,
    ) -> (reqwest::StatusCode, Value) {
        let capabilities: Value = serde_json::from_str(capabilities).unwrap();
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let mut request = self
            .http
            .post(format!("{}/mcp", self.base))
            .bearer_auth(key)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        // The header names what the request is about: a tool, a task, a
        // resource.
        let about = ["name", "taskId", "uri"]
            .into_iter()
            .find_map(|field| params[field].as_str());
        if let Some(name) = about {
            request = request.header("mcp-name", name);
        }
        let response = request
            .json(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        let answer = serde_json::from_str(&text).ok().unwrap_or_else(|| {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message.get("id").is_some())
                .unwrap_or_else(|| panic!("no answer in {status} {text:?}"))
        });
        (status, answer)
    }
}

/// The error code of a reply.
pub fn code(reply: &Reply) -> &str {
    reply.body["error"]["code"].as_str().unwrap_or_default()
}

/// The question the tests park on.
pub fn question() -> index_question_block::StructuredQuestion {
    let option = |label: &str| index_question_block::QuestionOption {
        label: label.into(),
        description: format!("Retry with {label}."),
    };
    index_question_block::StructuredQuestion {
        title: "Equity".into(),
        prompt: "How much equity?".into(),
        options: vec![option("1%"), option("3%")],
        multi_select: false,
    }
}

/// The park a seat's agent records on [`question`].
pub fn park_turn() -> index_negotiation::AskUserTurn {
    use index_negotiation::{
        AskUser, AskUserAssessment, AskUserTurn, NegotiationConsultationReason, SuggestedRoles,
    };
    AskUserTurn {
        action: Default::default(),
        assessment: AskUserAssessment {
            reasoning: "Parked.".into(),
            suggested_roles: SuggestedRoles::peers(),
        },
        message: (),
        ask_user: AskUser {
            reason: NegotiationConsultationReason::RepeatedNonConvergence,
            question: question(),
        },
    }
}

/// Runs a whole round between dana and sam (dana first) to the turn limit,
/// then parks the negotiation on [`question`] for `parker`.
#[allow(dead_code)] // not every test binary parks
pub async fn stall_and_park<S: index_negotiation_store::NegotiationStore>(
    store: &S,
    id: &index_negotiation_store::OpportunityId,
    parker: &str,
) {
    use index_negotiation::{NegotiationAction, NegotiationTurn};
    let service = index_negotiation_store::Negotiations::new(store);
    for n in 0..12 {
        let (who, action) = if n % 2 == 0 {
            ("dana", NegotiationAction::Propose)
        } else {
            ("sam", NegotiationAction::Counter)
        };
        let (decision, _) = service
            .execute(
                id,
                &who.parse().unwrap(),
                NegotiationTurn::new(action, format!("turn {n}")),
                &Actor::operator(),
            )
            .await
            .unwrap();
        assert!(decision.is_ok(), "turn {n}: {decision:?}");
    }
    let (parked, _) = service
        .park(
            id,
            &parker.parse().unwrap(),
            &park_turn(),
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(parked.is_ok(), "{parked:?}");
}

/// The error object a refused tool call carries: JSON in its first content
/// block, and no structured content (which a client would check against
/// the tool's output schema).
pub fn refusal(result: &Value) -> Value {
    assert_eq!(result["isError"], json!(true), "not a refusal: {result}");
    assert!(
        result.get("structuredContent").is_none(),
        "a refusal carries no structured content: {result}"
    );
    let text = result["content"][0]["text"].as_str().expect("a text block");
    serde_json::from_str(text).expect("the error object as JSON")
}
