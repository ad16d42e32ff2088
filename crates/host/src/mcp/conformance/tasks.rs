//! The fixtures that run as tasks (the `io.modelcontextprotocol/tasks`
//! extension), in the host's own task store: started, polled, cancelled
//! and ended as the host's long calls are, each the caller's own.
//!
//! A fixture that may run as a task does so for a current client that
//! declares the extension, and answers at once otherwise; one that must
//! refuses a client without the extension (-32021, naming it).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CreateTaskResult, ErrorCode, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use super::from_json;
use crate::mcp::state::McpState;
use crate::mcp::{NegotiatorServer, speaks_current};

/// How long a fixture's task may live.
const TASK_TTL: Duration = Duration::from_secs(5 * 60);

/// How long `failing_job` works before it fails.
const FAILS_AFTER: Duration = Duration::from_secs(1);

/// The longest `slow_compute` sleeps.
const LONGEST_COMPUTE: Duration = Duration::from_secs(120);

pub(super) fn tools() -> Vec<Tool> {
    let tool = |name: &str, description: &str, properties: Value, support: &str| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
            "execution": {"taskSupport": support},
        })
    };
    [
        tool(
            "slow_compute",
            "Sleeps for seconds, then answers with its label; runs as a task when the client takes them",
            json!({"seconds": {"type": "integer", "minimum": 0}, "label": {"type": "string"}}),
            "optional",
        ),
        tool("failing_job", "Runs as a task and ends with a tool error", json!({}), "required"),
        tool(
            "protocol_error_job",
            "Runs as a task and fails with a protocol error",
            json!({}),
            "optional",
        ),
        tool(
            "test_tool_with_task",
            "Asks for a name through input_required, then greets it from a task",
            json!({}),
            "required",
        ),
    ]
    .into_iter()
    .filter_map(|tool| serde_json::from_value(tool).ok())
    .collect()
}

/// What a fixture does once it runs, at once or as a task.
enum Work {
    Compute { seconds: u64, label: String },
    Fail,
    ProtocolError,
    Greet(String),
}

impl Work {
    async fn run(self) -> Result<CallToolResult, ErrorData> {
        let text = |text: String| from_json(json!({"content": [{"type": "text", "text": text}]}));
        match self {
            Work::Compute { seconds, label } => {
                tokio::time::sleep(Duration::from_secs(seconds).min(LONGEST_COMPUTE)).await;
                text(format!("computed {label} after {seconds}s"))
            }
            Work::Fail => {
                tokio::time::sleep(FAILS_AFTER).await;
                from_json(json!({"isError": true, "content": [
                    {"type": "text", "text": "failing_job: intentional tool error"},
                ]}))
            }
            Work::ProtocolError => Err(ErrorData::internal_error(
                "protocol_error_job: internal error",
                None,
            )),
            Work::Greet(name) => text(format!("Hello, {name}! (from task)")),
        }
    }
}

/// The refusal of a call that must run as a task from a client that does
/// not take tasks.
fn tasks_required() -> ErrorData {
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "this tool runs only as a task: declare the io.modelcontextprotocol/tasks extension",
        Some(
            json!({"requiredCapabilities": {"extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}}}),
        ),
    )
}

/// The answer of the task fixture `request` names, or `None` when it names
/// none of them.
pub(super) async fn call(
    server: &NegotiatorServer,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let arguments = request.arguments.clone().unwrap_or_default();
    let (work, required) = match request.name.as_ref() {
        "slow_compute" => {
            let seconds = arguments
                .get("seconds")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let label = arguments
                .get("label")
                .and_then(Value::as_str)
                .unwrap_or("compute");
            let label = label.to_owned();
            (Work::Compute { seconds, label }, false)
        }
        "failing_job" => (Work::Fail, true),
        "protocol_error_job" => (Work::ProtocolError, false),
        "test_tool_with_task" => {
            let responses = request.input_responses.as_ref();
            let name = responses
                .and_then(|responses| responses.get("user_name"))
                .and_then(|response| response.pointer("/content/name"))
                .and_then(Value::as_str);
            let Some(name) = name else {
                // Asked before any task is made, as the extension says.
                let name = super::asking::elicit("What is your name?", "name", "string");
                let asked = super::asking::asked(json!({ "user_name": name }), None);
                return Some(asked.map(CallToolResponse::InputRequired));
            };
            (Work::Greet(name.to_owned()), true)
        }
        _ => return None,
    };
    let takes_tasks = speaks_current(context)
        && context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
    if !takes_tasks {
        return Some(if required {
            Err(tasks_required())
        } else {
            work.run().await.map(Into::into)
        });
    }
    let Some(caller) = server.tools.caller(context) else {
        return Some(Err(ErrorData::invalid_request("no caller", None)));
    };
    let host = &server.tools.host;
    let started = McpState::of(host)
        .tasks()
        .start(host, &caller.user_id, TASK_TTL, move |_task| work.run())
        .await;
    Some(match started {
        Some(task) => Ok(CallToolResponse::Task(CreateTaskResult::new(task))),
        None => Err(ErrorData::internal_error("no task could be started", None)),
    })
}
