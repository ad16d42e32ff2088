//! The MCP configuration and status types round-trip through JSON in the
//! reference's shapes.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::*;
use serde_json::json;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: serde_json::Value,
) -> T {
    let parsed: T = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
    parsed
}

#[test]
fn local_and_remote_servers() {
    let line: McpConfig = round_trip(json!({"type": "stdio", "command": "mcp-server --port 0"}));
    assert!(matches!(
        line,
        McpConfig::Local(LocalMcpConfig {
            command: McpCommand::Line(_),
            ..
        })
    ));
    let argv: McpConfig = round_trip(json!({
        "type": "local", "command": ["npx", "server"], "args": ["--verbose"],
        "env": {"TOKEN": "x"}, "enabled": true, "timeout": 5000
    }));
    assert!(
        matches!(argv, McpConfig::Local(LocalMcpConfig { command: McpCommand::Argv(ref a), .. }) if a.len() == 2)
    );
    let remote: McpConfig = round_trip(
        json!({"type": "http", "url": "https://mcp.example", "headers": {"Authorization": "Bearer t"}, "enabled": false}),
    );
    assert!(matches!(
        remote,
        McpConfig::Remote(RemoteMcpConfig {
            transport: RemoteTransport::Http,
            ..
        })
    ));
    assert!(serde_json::from_value::<McpConfig>(json!({"type": "socket", "url": "x"})).is_err());
}

#[test]
fn status_listing_and_artifacts() {
    let status: McpStatusResponse = round_trip(json!({"servers": {
        "files": {"name": "files", "status": "connected", "type": "stdio"},
        "search": {"name": "search", "status": "error", "error": "refused"}
    }}));
    assert_eq!(status.servers["search"].status, McpConnection::Error);
    let _: BackendListOptions = round_trip(json!({"limit": 20, "cursor": "abc"}));
    let page: BackendListResult<BackendArtifact> = round_trip(json!({
        "items": [{"path": "out/report.pdf", "sizeBytes": 1024, "updatedAt": "2026-11-29T10:00:00Z"}, {"path": "notes.md"}],
        "nextCursor": "def"
    }));
    assert_eq!(page.items.len(), 2);
    let last: BackendListResult<BackendArtifact> = round_trip(json!({"items": []}));
    assert_eq!(last.next_cursor, None);
}
