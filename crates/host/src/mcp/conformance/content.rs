//! The fixtures that answer at once: tools whose results are each one kind
//! of content (or a tool error, or progress on the call's stream), the
//! suite's prompts, its static resources and template, and completion.
//! Each answer is the reference server's, written as the JSON it sends.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, GetPromptRequestParams,
    GetPromptResult, ProgressNotificationParam, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

use super::from_json;

/// A 1×1 PNG, the suite's test image.
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file with one sample, the suite's test sound.
const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// How long a fixture resource may be kept, as the reference server says.
const KEEP_MS: u64 = 300_000;

/// A tool that takes nothing.
fn plain_tool(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}})
}

pub(super) fn tools() -> Vec<Tool> {
    let tools = [
        plain_tool("test_simple_text", "Tests simple text content response"),
        plain_tool("test_image_content", "Tests image content response"),
        plain_tool("test_audio_content", "Tests audio content response"),
        plain_tool(
            "test_embedded_resource",
            "Tests embedded resource content response",
        ),
        plain_tool(
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
        ),
        plain_tool("test_error_handling", "Tests error response handling"),
        plain_tool(
            "test_tool_with_progress",
            "Tests tool that reports progress notifications",
        ),
        plain_tool("test_missing_capability", "Test tool requiring sampling"),
        plain_tool(
            "test_streaming_elicitation",
            "Diagnostic tool validating response progress streams",
        ),
        plain_tool("test_logging_tool", "Diagnostic logging validator tool"),
        json!({
            "name": "test_custom_header_param",
            "description": "Carries its argument in a header as well as in the body (SEP-2243)",
            "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]},
        }),
        json!({
            "name": "greet",
            "description": "Greets someone by name, at once",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        }),
        json!({
            "name": "json_schema_2020_12_tool",
            "description": "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"},
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false,
            },
        }),
    ];
    tools
        .into_iter()
        .filter_map(|tool| serde_json::from_value(tool).ok())
        .collect()
}

/// The answer of the fixture tool `request` names, or `None` when it names
/// none of these.
pub(super) async fn call(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let text = |text: &str| json!({"content": [{"type": "text", "text": text}]});
    let result = match request.name.as_ref() {
        "test_simple_text" => text("This is a simple text response for testing."),
        "test_image_content" => {
            json!({"content": [{"type": "image", "data": IMAGE, "mimeType": "image/png"}]})
        }
        "test_audio_content" => {
            json!({"content": [{"type": "audio", "data": AUDIO, "mimeType": "audio/wav"}]})
        }
        "test_embedded_resource" => json!({"content": [{"type": "resource", "resource": {
            "uri": "test://embedded-resource",
            "mimeType": "text/plain",
            "text": "This is an embedded resource content.",
        }}]}),
        "test_multiple_content_types" => json!({"content": [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": IMAGE, "mimeType": "image/png"},
            {"type": "resource", "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": json!({"test": "data", "value": 123}).to_string(),
            }},
        ]}),
        "test_error_handling" => json!({"isError": true, "content": [
            {"type": "text", "text": "This tool intentionally returns an error for testing"},
        ]}),
        "test_tool_with_progress" => return Some(Ok(with_progress(context).await.into())),
        "test_missing_capability" => {
            let sampling = context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.sampling.is_some());
            if !sampling {
                return Some(Err(ErrorData::new(
                    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    "this tool needs the client's sampling capability",
                    Some(json!({"requiredCapabilities": {"sampling": {}}})),
                )));
            }
            text("Success")
        }
        "test_streaming_elicitation" => text("Streaming complete"),
        "test_logging_tool" => text("Logging evaluated"),
        "test_custom_header_param" => {
            let region = request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get("region"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            text(&format!("region={region}"))
        }
        "greet" => {
            let name = request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("someone");
            text(&format!("Hello, {name}!"))
        }
        "json_schema_2020_12_tool" => {
            let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
            text(&format!(
                "JSON Schema 2020-12 tool called with: {arguments}"
            ))
        }
        _ => return None,
    };
    Some(from_json::<CallToolResult>(result).map(CallToolResponse::from))
}

/// Three progress notifications on the call's own stream, then the token
/// the client sent as the result.
async fn with_progress(context: &RequestContext<RoleServer>) -> CallToolResult {
    let Some(token) = context.meta.get_progress_token() else {
        return CallToolResult::success(vec![rmcp::model::ContentBlock::text("no progress token")]);
    };
    for step in [0.0, 50.0, 100.0] {
        let progress = ProgressNotificationParam::new(token.clone(), step)
            .with_total(100.0)
            .with_message(format!("Completed step {step} of 100"));
        let _ = context.peer.notify_progress(progress).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let token = serde_json::to_value(&token.0)
        .ok()
        .map(|token| match token {
            Value::String(token) => token,
            other => other.to_string(),
        })
        .unwrap_or_default();
    CallToolResult::success(vec![rmcp::model::ContentBlock::text(token)])
}

pub(super) fn prompts() -> Vec<Prompt> {
    let argument = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    [
        json!({"name": "test_simple_prompt", "description": "A simple prompt without arguments"}),
        json!({
            "name": "test_prompt_with_arguments",
            "description": "A prompt with required arguments",
            "arguments": [argument("arg1", "First test argument"), argument("arg2", "Second test argument")],
        }),
        json!({
            "name": "test_prompt_with_embedded_resource",
            "description": "A prompt that includes an embedded resource",
            "arguments": [argument("resourceUri", "URI of the resource to embed")],
        }),
        json!({"name": "test_prompt_with_image", "description": "A prompt that includes image content"}),
    ]
    .into_iter()
    .filter_map(|prompt| serde_json::from_value(prompt).ok())
    .collect()
}

/// The prompt `request` names, or "invalid params" for one there is not.
pub(super) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let argument = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let user = |content: Value| json!({"role": "user", "content": content});
    let text = |text: &str| user(json!({"type": "text", "text": text}));
    let messages = match request.name.as_str() {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => vec![text(&format!(
            "Prompt with arguments: arg1='{}', arg2='{}'",
            argument("arg1"),
            argument("arg2")
        ))],
        "test_prompt_with_embedded_resource" => vec![
            user(json!({"type": "resource", "resource": {
                "uri": argument("resourceUri"),
                "mimeType": "text/plain",
                "text": "Embedded resource content for testing.",
            }})),
            text("Please process the embedded resource above."),
        ],
        "test_prompt_with_image" => vec![
            user(json!({"type": "image", "data": IMAGE, "mimeType": "image/png"})),
            text("Please analyze the image above."),
        ],
        name => {
            return Err(ErrorData::invalid_params(
                format!("there is no prompt named {name:?}"),
                None,
            ));
        }
    };
    from_json(json!({ "messages": messages }))
}

pub(super) fn resources() -> Vec<Resource> {
    [
        json!({"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "mimeType": "text/plain"}),
        json!({"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "mimeType": "image/png"}),
    ]
    .into_iter()
    .filter_map(|resource| serde_json::from_value(resource).ok())
    .collect()
}

pub(super) fn templates() -> Vec<ResourceTemplate> {
    let template = json!({
        "uriTemplate": "test://template/{id}/data",
        "name": "template",
        "title": "Resource Template",
        "description": "A resource template with parameter substitution",
        "mimeType": "application/json",
    });
    serde_json::from_value(template).into_iter().collect()
}

/// The fixture resource at `uri`, or `None` when it is none of theirs.
pub(super) fn read(uri: &str) -> Option<Result<ReadResourceResult, ErrorData>> {
    let contents = match uri {
        "test://static-text" => {
            json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
        }
        "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": IMAGE}),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            let data =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            json!({"uri": uri, "mimeType": "application/json", "text": data.to_string()})
        }
    };
    Some(from_json(json!({
        "contents": [contents],
        "ttlMs": KEEP_MS,
        "cacheScope": "private",
    })))
}
