//! A local server that answers chat-completions requests in OpenAI's wire
//! format, from a queue of canned replies shaped as OpenAI's own (a
//! completion, a refusal, a rate-limit error), recording each request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One canned reply.
#[derive(Clone)]
pub enum Reply {
    /// 200 with a completion whose content is `content` (a string).
    Content(String),
    /// 200 with a refusal.
    Refusal,
    /// 200 with no choices.
    NoChoices,
    /// 200 with a body that is not JSON.
    Garbage,
    /// An error status, with `Retry-After` seconds if given.
    Status(u16, Option<u64>),
    /// Waits this long, then answers `Content` of a "no gap" output.
    Slow(Duration),
}

/// A request as received: its `Authorization` header and its body.
pub type Request = (Option<String>, Value);

/// The server: the replies still to give, and every request it took.
/// Clones share both.
#[derive(Clone, Default)]
pub struct Fake {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    /// Every request, in the order it arrived.
    pub requests: Arc<Mutex<Vec<Request>>>,
    /// Each request's W3C `traceparent` header, in the same order.
    pub traceparents: Arc<Mutex<Vec<Option<String>>>>,
}

/// A completion as OpenAI sends it.
fn completion(content: Value, refusal: Value) -> Value {
    json!({
        "id": "chatcmpl-AbCdEf0123456789",
        "object": "chat.completion",
        "created": 1_733_011_200,
        "model": "gpt-4o-2024-08-06",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": refusal},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 812, "completion_tokens": 96, "total_tokens": 908},
        "system_fingerprint": "fp_7f6be3efb0"
    })
}

async fn chat(
    State(fake): State<Fake>,
    headers: axum::http::HeaderMap,
    body: axum::Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let traceparent = headers
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    fake.traceparents.lock().unwrap().push(traceparent);
    fake.requests.lock().unwrap().push((auth, body.0));
    let reply = fake
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Reply::Status(500, None));
    match reply {
        Reply::Content(content) => {
            axum::Json(completion(json!(content), Value::Null)).into_response()
        }
        Reply::Refusal => axum::Json(completion(
            Value::Null,
            json!("I'm sorry, I can't help with that."),
        ))
        .into_response(),
        Reply::NoChoices => {
            let mut empty = completion(Value::Null, Value::Null);
            empty["choices"] = json!([]);
            axum::Json(empty).into_response()
        }
        Reply::Garbage => (StatusCode::OK, "<html>bad gateway</html>").into_response(),
        Reply::Status(status, retry_after) => {
            let mut response = (
                StatusCode::from_u16(status).unwrap(),
                axum::Json(json!({"error": {"message": "Rate limit reached for requests", "type": "requests", "param": null, "code": "rate_limit_exceeded"}})),
            )
                .into_response();
            if let Some(seconds) = retry_after {
                response
                    .headers_mut()
                    .insert("retry-after", seconds.to_string().parse().unwrap());
            }
            response
        }
        Reply::Slow(wait) => {
            tokio::time::sleep(wait).await;
            axum::Json(completion(
                json!("{\"hasGap\": false, \"reason\": null, \"question\": null}"),
                Value::Null,
            ))
            .into_response()
        }
    }
}

impl Fake {
    /// Starts the server on a free local port; returns it and its base URL.
    pub async fn start(replies: impl IntoIterator<Item = Reply>) -> (Self, String) {
        let fake = Fake {
            replies: Arc::new(Mutex::new(replies.into_iter().collect())),
            ..Fake::default()
        };
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(chat))
            .with_state(fake.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (fake, base)
    }

    /// How many requests it has taken.
    pub fn request_count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

/// A gap output with a question, as JSON text.
pub fn gap(prompt: &str) -> String {
    json!({
        "hasGap": true,
        "reason": "repeated_non_convergence",
        "question": {
            "title": "Equity",
            "prompt": prompt,
            "options": [
                {"label": "Under 1%", "description": "Retry with an offer below one percent."},
                {"label": "1% to 3%", "description": "Retry with an offer between one and three percent."}
            ],
            "multiSelect": false
        }
    })
    .to_string()
}
