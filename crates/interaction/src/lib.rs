//! The human-in-the-loop interaction contract: how any agent asks a person
//! for typed input (an answer to a question, a permission, a review of a
//! plan) and gets a validated answer back.
//!
//! An agent sends an [`InteractionRequest`] whose [`InteractionAnswerSpec`]
//! says what a valid answer looks like; a person (or an unattended policy)
//! returns an [`InteractionResponse`] with the same id.
//! [`validate_interaction_response`] checks it against the exact request,
//! permission rules included.
//!
//! Every type reads from JSON the way the reference's zod 4 schemas do:
//! unknown keys rejected where the reference is strict, numbers read as
//! JavaScript reads them (`3.0` is the integer 3), and every problem
//! reported with its path. Deserializing validates, so a value that exists
//! is valid.
//!
//! ```
//! use index_interaction::*;
//!
//! let request = InteractionRequest::from_json_value(&serde_json::json!({
//!     "id": "q-1",
//!     "kind": "question",
//!     "title": "Which region should the pilot run in?",
//!     "answerSpec": {"fields": [{"name": "region", "label": "Region", "type": "select", "required": true,
//!         "options": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "United States"}]}]},
//! }))?;
//! let answer = serde_json::json!({"id": "q-1", "outcome": "accepted", "data": {"region": ["eu"]}});
//! assert!(validate_interaction_response(&request, &answer).is_ok());
//! # Ok::<(), InvalidInteraction>(())
//! ```
//!
//! Browser-safe: no I/O, no clock, no randomness.

mod answer_validation;
mod data;
mod elicitation;
mod envelope;
mod fields;
mod js;
mod mcp;
mod number;
mod permissions;
mod response_validation;
mod zod;

pub use answer_validation::{
    AnswerProblem, UnreadableSpec, validate_interaction_answer, validate_interaction_answer_json,
    validate_interaction_answer_value,
};
pub use data::{
    InteractionData, InteractionOutcome, InteractionResolution, InteractionSubject,
    InteractionValue,
};
pub use elicitation::{
    ElicitationAction, ElicitationRequest, ElicitationResult, Unmappable,
    elicitation_to_interaction, elicitation_to_response, interaction_to_elicitation,
    response_to_elicitation_result,
};
pub use envelope::{
    InteractionAcknowledgement, InteractionAcknowledgementStatus, InteractionBinding,
    InteractionRequest, InteractionResponse, InteractionResponseCommand, OnTimeout,
};
pub use fields::{
    BooleanField, BooleanType, FieldBase, InteractionAnswerSpec, InteractionCapabilities,
    InteractionField, InteractionFieldType, InteractionResponseScope, NumberField, NumberType,
    SecretField, SecretType, SelectField, SelectOption, SelectType, TextField, TextType,
};
pub use js::{MAX_SAFE_INTEGER, js_number_string};
pub use mcp::{
    BackendArtifact, BackendListOptions, BackendListResult, LocalMcpConfig, LocalTransport,
    McpCommand, McpConfig, McpConnection, McpServerStatus, McpStatusResponse, McpTransport,
    RemoteMcpConfig, RemoteTransport,
};
pub use permissions::{
    InteractionKind, PERMISSION_FEEDBACK_FIELD, PERMISSION_GRANT_FIELD, PermissionGrant,
    permission_answer_spec,
};
pub use response_validation::{
    ResponseProblem, check_response, validate_interaction_response,
    validate_interaction_response_json,
};
pub use zod::{InvalidInteraction, IssueCode, IssuePath, PathSegment, SchemaIssue};

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::zod::{At, Walk};

/// Gives a type `from_json_value` and a validating `Deserialize`, both
/// through its schema walk.
macro_rules! schema_type {
    ($($ty:ty => $parse:path),* $(,)?) => {$(
        impl $ty {
            /// Reads and validates one from JSON, reporting every problem
            /// in the reference's order.
            ///
            /// # Errors
            ///
            /// [`InvalidInteraction`] with each problem's path and kind.
            pub fn from_json_value(value: &Value) -> Result<Self, InvalidInteraction> {
                let mut walk = Walk::default();
                let parsed = $parse(&mut walk, &At::Root, Some(value));
                walk.finish(parsed)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(deserializer)?;
                Self::from_json_value(&value).map_err(serde::de::Error::custom)
            }
        }
    )*};
}

/// The reference's data record, on its own.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct InteractionDataRecord(pub InteractionData);

fn parse_data_record(
    walk: &mut Walk,
    at: &At<'_>,
    value: Option<&Value>,
) -> Option<InteractionDataRecord> {
    data::parse_data(walk, at, value).map(InteractionDataRecord)
}

schema_type! {
    InteractionField => fields::parse_field,
    InteractionAnswerSpec => fields::parse_answer_spec,
    InteractionCapabilities => fields::parse_capabilities,
    InteractionSubject => data::parse_subject,
    InteractionResolution => data::parse_resolution,
    InteractionDataRecord => parse_data_record,
    InteractionRequest => envelope::parse_request,
    InteractionResponse => envelope::parse_response,
    InteractionBinding => envelope::parse_binding,
    InteractionResponseCommand => envelope::parse_response_command,
    InteractionAcknowledgement => envelope::parse_acknowledgement,
}
