//! The human-in-the-loop interaction contract: how any agent asks a person
//! for typed input (an answer to a question, a permission, a review of a
//! plan) and gets a validated answer back.
//!
//! An agent sends an [`InteractionRequest`] whose [`InteractionAnswerSpec`]
//! says what a valid answer looks like, bound (by its
//! [`InteractionRequestBinding`]) to the run, provider, environment,
//! session and execution that asked, and sealed by a digest of its
//! content; a person (or an unattended policy) returns an
//! [`InteractionResponse`] with the same id.
//! [`validate_interaction_response`] checks it against the exact request,
//! permission rules included; a response delivered later as an
//! [`InteractionResponseCommand`] is checked against the request it is
//! bound to by [`validate_interaction_response_command`].
//!
//! This is the contract of `@tangle-network/agent-interface` 0.46.0. Data
//! written under 0.44.0, which had no bindings or digests, is read through
//! [`v0_44`].
//!
//! Every type reads from JSON the way the reference's zod 4 schemas do:
//! unknown keys rejected where the reference is strict, numbers read as
//! JavaScript reads them (`3.0` is the integer 3), strings, lists and
//! tool inputs within the contract's bounds, and every problem reported
//! with its path. Deserializing validates, so a value that exists is
//! valid.
//!
//! ```
//! use index_interaction::*;
//!
//! let request = InteractionRequest::from_material(&serde_json::json!({
//!     "id": "q-1",
//!     "kind": "question",
//!     "title": "Which region should the pilot run in?",
//!     "answerSpec": {"fields": [{"name": "region", "label": "Region", "type": "select", "required": true,
//!         "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "United States"}]}]},
//!     "binding": {"runId": "run-1", "provider": "local", "environmentId": "env-1",
//!                 "sessionId": "s-1", "executionId": "x-1", "interactionId": "q-1"},
//! }))?;
//! let answer = serde_json::json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["eu"]}});
//! assert!(validate_interaction_response(&request, &answer).is_ok());
//! # Ok::<(), InvalidInteraction>(())
//! ```
//!
//! Browser-safe: no I/O, no clock, no randomness.
//!
//! | module | holds |
//! |---|---|
//! | `contract` | the one schema walk behind every type's `from_json_value` and `Deserialize` |
//! | `zod` | `Walk`, the reader every schema uses, told which version it reads |
//! | `fields` | field types, answer spec, capabilities |
//! | `data` | values, secret handles, outcomes, resolutions, subjects |
//! | `envelope` | request, binding, response, command, acknowledgement, their digests |
//! | `limits` | 0.46's bounds and reserved names |
//! | `digest` | RFC 8785 canonical JSON as JavaScript writes it, hashed with SHA-256 |
//! | `permissions` | grants and scopes |
//! | `answer_validation` | an answer checked against its spec |
//! | `resolution` | what an outcome and its data must be for the request they answer |
//! | `response_validation` | a response (or command) checked against its request |
//! | `provider` | what a provider decides: an interaction's timeout, a response command's acknowledgement |
//! | `elicitation` | requests and responses as MCP elicitation, and back |
//! | `mcp` | the MCP configuration and status types |
//! | `js` | `String`, `Number` and `length` of a JSON value, and JavaScript's key order |
//! | `number` | numbers written as JavaScript does, and the crate's wire enums |
//! | `v0_44` | the 0.44.0 read path: its own envelope types and validators |

mod answer_validation;
mod contract;
mod data;
mod digest;
mod elicitation;
mod envelope;
mod fields;
mod js;
mod limits;
mod mcp;
mod number;
mod permissions;
mod provider;
mod resolution;
mod response_validation;
pub mod v0_44;
mod zod;

pub use answer_validation::{
    AnswerProblem, UnreadableSpec, validate_interaction_answer, validate_interaction_answer_json,
    validate_interaction_answer_value,
};
pub use contract::Contract;
pub use data::{
    InteractionData, InteractionDataRecord, InteractionOutcome, InteractionResolution,
    InteractionSubject, InteractionValue, SecretHandle,
};
pub use digest::{Sha256Digest, canonical_json};
pub use elicitation::{
    ElicitationAction, ElicitationRequest, ElicitationResult, Unmappable,
    elicitation_to_interaction, elicitation_to_response, interaction_to_elicitation,
    response_to_elicitation_result,
};
pub use envelope::{
    InteractionAcknowledgement, InteractionAcknowledgementStatus, InteractionBinding,
    InteractionRequest, InteractionRequestBinding, InteractionResponse, InteractionResponseCommand,
    OnTimeout, interaction_request_digest, interaction_response_command_digest,
};
pub use fields::{
    BooleanField, BooleanType, FieldBase, InteractionAnswerSpec, InteractionCapabilities,
    InteractionField, InteractionFieldType, InteractionResponseScope, NumberField, NumberType,
    SecretField, SecretType, SelectField, SelectOption, SelectType, TextField, TextType,
};
pub use limits::{
    CONTRACT_MAX_ARRAY_LENGTH, CONTRACT_MAX_IDENTIFIER_LENGTH, CONTRACT_MAX_JSON_DEPTH,
    CONTRACT_MAX_JSON_NODES, CONTRACT_MAX_MAP_ENTRIES, CONTRACT_MAX_STRING_LENGTH, is_bounded_json,
};
pub use mcp::{
    BackendArtifact, BackendListOptions, BackendListResult, LocalMcpConfig, LocalTransport,
    McpCommand, McpConfig, McpConnection, McpServerStatus, McpStatusResponse, McpTransport,
    RemoteMcpConfig, RemoteTransport,
};
pub use permissions::{
    InteractionKind, OtherKind, PERMISSION_FEEDBACK_FIELD, PERMISSION_GRANT_FIELD, PermissionGrant,
    permission_answer_spec,
};
pub use provider::{
    InteractionState, ProvidedInteraction, ResponseDecision, ResponseScene,
    decide_interaction_response, transport_failure,
};
pub use response_validation::{
    ResponseProblem, check_response, interaction_response_is_valid, validate_interaction_response,
    validate_interaction_response_command, validate_interaction_response_command_json,
    validate_interaction_response_json,
};
pub use zod::{InvalidInteraction, IssueCode, IssuePath, PathSegment, SchemaIssue};
