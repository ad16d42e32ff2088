//! MCP server configuration and status, as agents exchange them. These are
//! shapes only: the reference declares them as types with no runtime checks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::number::serialize_optional_js_number;

/// How a local server's command is given: one string, or program and
/// arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum McpCommand {
    /// A single command line.
    Line(String),
    /// Program and arguments.
    Argv(Vec<String>),
}

/// A server the agent starts itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalMcpConfig {
    /// `local` or `stdio`.
    #[serde(rename = "type")]
    pub transport: LocalTransport,
    /// What to run.
    pub command: McpCommand,
    /// Extra arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Environment for the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Whether it is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Start-up or call timeout, in milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_optional_js_number"
    )]
    pub timeout: Option<f64>,
}

index_js::wire_enum! {
    crate index_interaction;
    /// The two spellings of a local transport.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum LocalTransport {
        /// `local`.
        Local = "local",
        /// `stdio`.
        Stdio = "stdio",
    }
}

/// A server reached over the network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteMcpConfig {
    /// `remote` or `http`.
    #[serde(rename = "type")]
    pub transport: RemoteTransport,
    /// Where it is.
    pub url: String,
    /// Headers to send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Whether it is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Call timeout, in milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_optional_js_number"
    )]
    pub timeout: Option<f64>,
}

index_js::wire_enum! {
    crate index_interaction;
    /// The two spellings of a remote transport.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum RemoteTransport {
        /// `remote`.
        Remote = "remote",
        /// `http`.
        Http = "http",
    }
}

/// Either kind of server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum McpConfig {
    /// Started by the agent.
    Local(LocalMcpConfig),
    /// Reached over the network.
    Remote(RemoteMcpConfig),
}

index_js::wire_enum! {
    crate index_interaction;
    /// A server's connection state.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum McpConnection {
        /// Connected.
        Connected = "connected",
        /// Not connected.
        Disconnected = "disconnected",
        /// Failed.
        Error = "error",
        /// Not known.
        Unknown = "unknown",
    }
}

index_js::wire_enum! {
    crate index_interaction;
    /// Any transport spelling, as a status reports it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum McpTransport {
        /// `local`.
        Local = "local",
        /// `remote`.
        Remote = "remote",
        /// `stdio`.
        Stdio = "stdio",
        /// `http`.
        Http = "http",
    }
}

/// One server's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServerStatus {
    /// Its name.
    pub name: String,
    /// Its connection state.
    pub status: McpConnection,
    /// How it is reached.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<McpTransport>,
    /// What went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every server's status, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpStatusResponse {
    /// The servers.
    pub servers: BTreeMap<String, McpServerStatus>,
}

/// Paging for a listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendListOptions {
    /// The most items to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Where to continue from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendListResult<T> {
    /// The items.
    pub items: Vec<T>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A file an agent's backend produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendArtifact {
    /// Where it is.
    pub path: String,
    /// Its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// When it last changed (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}
