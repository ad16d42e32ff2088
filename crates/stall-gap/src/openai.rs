//! A [`StructuredModel`] for OpenAI-compatible chat-completions servers:
//! OpenAI, OpenRouter, vLLM, llama.cpp's server, Ollama, LiteLLM.
//!
//! The request asks for structured output with the gap's JSON Schema
//! (`response_format: json_schema`, strict), and the answer goes through the
//! same output reader as every other model's, so a server that ignores the
//! schema still cannot slip a malformed question through. Every failure is
//! a [`ModelError`], which the author reads as "no gap". The API key is
//! sent only in the `Authorization` header: it is not kept in `Debug`, an
//! error or a log line.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::model::{
    ChatMessage, Completion, ModelError, OutputSchema, StructuredModel, TokenUsage,
};

/// The base URL, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`.
pub const MODEL_BASE_URL_ENV: &str = "INDEX_MODEL_BASE_URL";
/// The model's name, as the server knows it.
pub const MODEL_ENV: &str = "INDEX_MODEL";
/// The API key, if the server wants one.
pub const MODEL_API_KEY_ENV: &str = "INDEX_MODEL_API_KEY";

/// The longest a 429 or 5xx answer's `Retry-After` is honoured; longer
/// waits give up (the author's timeout would end them anyway).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// A chat-completions client for one model.
#[derive(Clone)]
pub struct OpenAiCompatibleModel {
    http: reqwest::Client,
    endpoint: String,
    model: String,
    api_key: Option<String>,
}

impl std::fmt::Debug for OpenAiCompatibleModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiCompatibleModel")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl OpenAiCompatibleModel {
    /// A client for `model` at `base_url` (the part before
    /// `/chat/completions`), with `api_key` as its bearer token if given.
    ///
    /// # Errors
    ///
    /// A [`ModelError`] for a base URL that is not `http(s)://…` or an
    /// empty model name.
    ///
    /// ```
    /// use index_stall_gap::OpenAiCompatibleModel;
    /// let model = OpenAiCompatibleModel::new("http://127.0.0.1:8080/v1", "qwen2.5", Some("sk-secret".into())).unwrap();
    /// assert!(!format!("{model:?}").contains("sk-secret"));
    /// assert!(OpenAiCompatibleModel::new("ftp://x", "m", None).is_err());
    /// ```
    pub fn new(base_url: &str, model: &str, api_key: Option<String>) -> Result<Self, ModelError> {
        let base = base_url.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(ModelError::msg(format!(
                "{MODEL_BASE_URL_ENV} must be an http:// or https:// URL"
            )));
        }
        if model.trim().is_empty() {
            return Err(ModelError::msg(format!("{MODEL_ENV} must name a model")));
        }
        let http = reqwest::Client::builder()
            .build()
            .map_err(|err| ModelError::msg(format!("could not start the HTTP client: {err}")))?;
        Ok(OpenAiCompatibleModel {
            http,
            endpoint: format!("{base}/chat/completions"),
            model: model.trim().to_owned(),
            api_key: api_key.filter(|key| !key.trim().is_empty()),
        })
    }

    /// The client `INDEX_MODEL_BASE_URL`, `INDEX_MODEL` and
    /// `INDEX_MODEL_API_KEY` describe; `Ok(None)` when the first two are
    /// unset. The one place these variables are read.
    ///
    /// # Errors
    ///
    /// As [`OpenAiCompatibleModel::new`], and for one of the two without the
    /// other.
    pub fn from_env() -> Result<Option<Self>, ModelError> {
        let read = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self::from_values(
            read(MODEL_BASE_URL_ENV),
            read(MODEL_ENV),
            read(MODEL_API_KEY_ENV),
        )
    }

    /// [`OpenAiCompatibleModel::from_env`] with the values given.
    ///
    /// # Errors
    ///
    /// As [`OpenAiCompatibleModel::from_env`].
    pub fn from_values(
        base_url: Option<String>,
        model: Option<String>,
        api_key: Option<String>,
    ) -> Result<Option<Self>, ModelError> {
        match (base_url, model) {
            (None, None) => Ok(None),
            (Some(base), Some(model)) => Self::new(&base, &model, api_key).map(Some),
            _ => Err(ModelError::msg(format!(
                "set both {MODEL_BASE_URL_ENV} and {MODEL_ENV}, or neither"
            ))),
        }
    }

    fn request(&self, messages: &[ChatMessage], schema: &OutputSchema) -> Value {
        json!({
            "model": self.model,
            "messages": messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect::<Vec<_>>(),
            "response_format": {
                "type": "json_schema",
                "json_schema": { "name": schema.name, "strict": true, "schema": schema.schema }
            }
        })
    }

    /// One POST; `Err(Some(wait))` when the server asks to be tried again.
    async fn post(&self, body: &Value) -> Result<Completion, Attempt> {
        let mut request = self.http.post(&self.endpoint).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        for (name, value) in trace_headers() {
            request = request.header(name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|err| Attempt::Failed(ModelError::msg(describe(&err))))?;
        let status = response.status();
        if status.as_u16() == 429 || status.is_server_error() {
            let wait = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map_or(Duration::from_millis(500), Duration::from_secs_f64);
            return Err(Attempt::Retry(
                wait,
                ModelError::msg(format!("the model server answered {status}")),
            ));
        }
        if !status.is_success() {
            return Err(Attempt::Failed(ModelError::msg(format!(
                "the model server answered {status}"
            ))));
        }
        let answer: Value = response.json().await.map_err(|_| {
            Attempt::Failed(ModelError::msg("the model server's answer is not JSON"))
        })?;
        let value = content(&answer).map_err(Attempt::Failed)?;
        Ok(Completion {
            value,
            usage: usage(&answer),
        })
    }
}

/// The W3C `traceparent` (and `tracestate`) of the current span, as
/// header names and values, so the server a request goes to (the model
/// server, a webhook's receiver) joins the caller's trace; none when the
/// span is in no trace (no exporter installed).
///
/// ```
/// // Outside any trace there is nothing to send.
/// assert!(index_stall_gap::trace_headers().is_empty());
/// ```
pub fn trace_headers() -> Vec<(String, String)> {
    use opentelemetry::propagation::TextMapPropagator;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let mut headers = Headers(Vec::new());
    opentelemetry_sdk::propagation::TraceContextPropagator::new()
        .inject_context(&tracing::Span::current().context(), &mut headers);
    headers.0
}

/// Headers in the order they were set.
struct Headers(Vec<(String, String)>);

impl opentelemetry::propagation::Injector for Headers {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
    }
}

enum Attempt {
    Retry(Duration, ModelError),
    Failed(ModelError),
}

/// A transport error without its URL's query or anything of the request.
fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        "the model server did not answer in time".to_owned()
    } else if err.is_connect() {
        "could not connect to the model server".to_owned()
    } else {
        "the request to the model server failed".to_owned()
    }
}

/// The tokens a chat-completions answer says it cost; none unless both
/// counts are there.
fn usage(answer: &Value) -> Option<TokenUsage> {
    let usage = answer.get("usage")?;
    Some(TokenUsage {
        prompt_tokens: usage.get("prompt_tokens")?.as_u64()?,
        completion_tokens: usage.get("completion_tokens")?.as_u64()?,
    })
}

/// The JSON the model produced, from a chat-completions answer.
fn content(answer: &Value) -> Result<Value, ModelError> {
    let message = answer
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .and_then(|choice| choice.get("message"))
        .ok_or_else(|| ModelError::msg("the model's answer has no choices"))?;
    if message.get("refusal").is_some_and(|r| !r.is_null()) {
        return Err(ModelError::msg("the model refused"));
    }
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .ok_or_else(|| ModelError::msg("the model's answer has no content"))?;
    serde_json::from_str(text).map_err(|_| ModelError::msg("the model's content is not JSON"))
}

/// The gap output as a strict JSON Schema: every property required,
/// nothing else allowed, absent values as `null`. Length limits are left to
/// the output reader, which enforces them whatever the server did.
pub fn gap_output_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["hasGap", "reason", "question"],
        "properties": {
            "hasGap": { "type": "boolean" },
            "reason": {
                "type": ["string", "null"],
                "enum": ["unresolved_owner_constraint", "consequential_disclosure_permission", "repeated_non_convergence", "insufficient_commitment_authority", null]
            },
            "question": {
                "anyOf": [
                    { "type": "null" },
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["title", "prompt", "options", "multiSelect"],
                        "properties": {
                            "title": { "type": "string", "description": "1 to 12 characters" },
                            "prompt": { "type": "string", "description": "1 to 400 characters" },
                            "options": {
                                "type": "array",
                                "description": "2 to 4 options",
                                "items": {
                                    "type": "object",
                                    "additionalProperties": false,
                                    "required": ["label", "description"],
                                    "properties": {
                                        "label": { "type": "string" },
                                        "description": { "type": "string" }
                                    }
                                }
                            },
                            "multiSelect": { "type": "boolean" }
                        }
                    }
                ]
            }
        }
    })
}

#[async_trait]
impl StructuredModel for OpenAiCompatibleModel {
    /// Asks for the stall-gap output ([`gap_output_schema`]) through
    /// [`complete_with_schema`](StructuredModel::complete_with_schema).
    async fn complete(&self, messages: &[ChatMessage]) -> Result<Value, ModelError> {
        let schema = OutputSchema {
            name: "negotiation_stall_gap",
            schema: gap_output_schema(),
        };
        Ok(self.complete_with_schema(messages, &schema).await?.value)
    }

    /// Posts the messages with `schema` as the strict `response_format`,
    /// and reads the answer's `usage`. A 429 or 5xx is tried once more
    /// after its `Retry-After` (at most [`MAX_RETRY_AFTER`]), inside
    /// whatever timeout the caller puts around the call.
    #[tracing::instrument(name = "model call", skip_all, fields(model = %self.model, output = schema.name))]
    async fn complete_with_schema(
        &self,
        messages: &[ChatMessage],
        schema: &OutputSchema,
    ) -> Result<Completion, ModelError> {
        let body = self.request(messages, schema);
        match self.post(&body).await {
            Ok(value) => Ok(value),
            Err(Attempt::Failed(err)) => Err(err),
            Err(Attempt::Retry(wait, err)) if wait > MAX_RETRY_AFTER => Err(err),
            Err(Attempt::Retry(wait, _)) => {
                tokio::time::sleep(wait).await;
                match self.post(&body).await {
                    Ok(value) => Ok(value),
                    Err(Attempt::Failed(err) | Attempt::Retry(_, err)) => Err(err),
                }
            }
        }
    }
}
