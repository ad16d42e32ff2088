//! The REST API's OpenAPI 3.1 document, made from the same table of routes
//! the router serves (each transport's `routes`) and from the wire types' JSON
//! Schemas (`crate::service::schema`): a route cannot be served undocumented, and a
//! body cannot differ from its schema, because each is written once.
//!
//! Every operation lists each status it can answer and, per error status,
//! the error codes that status carries.

use std::collections::{BTreeMap, BTreeSet};

use axum::http::{Method, StatusCode};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use index_negotiation::{NegotiationRejection, NegotiationResumeRejection};
use index_negotiation_store::OpenRejection;

use crate::service::error::{ErrorCode, HostError};
use crate::service::schema::{Contract, plain, settings};

/// A schema made by a generator: a `$ref` into the document's components
/// for a named type.
pub(crate) type MakeSchema = fn(&mut SchemaGenerator) -> Schema;

/// `T`'s schema, as a [`MakeSchema`].
pub(crate) fn of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// What an operation answers when it succeeds.
#[derive(Clone, Copy)]
pub(crate) enum Success {
    /// JSON, described by a schema.
    Json(StatusCode, MakeSchema),
    /// JSON, described by a schema: 201 when made now, 200 when the same
    /// was there already.
    Made(MakeSchema),
    /// Prometheus's text format.
    Metrics,
    /// No body.
    Empty(StatusCode),
}

/// One REST operation as the document describes it.
#[derive(Clone)]
pub(crate) struct Operation {
    /// Its method.
    pub(crate) method: Method,
    /// Its path, `{id}` for the opportunity id, `{interactionId}` for an
    /// interaction's, `{connectionId}` for a connected client's,
    /// `{webhookId}` for a webhook endpoint's.
    pub(crate) path: &'static str,
    /// `operationId`.
    pub(crate) id: &'static str,
    /// One line for people.
    pub(crate) summary: &'static str,
    /// Whether it is served without a key.
    pub(crate) public: bool,
    /// Its query, a type whose properties are the parameters.
    pub(crate) query: Option<MakeSchema>,
    /// Its JSON body, if it takes one.
    pub(crate) body: Option<MakeSchema>,
    /// Whether the body may be left out.
    pub(crate) body_optional: bool,
    /// What it answers.
    pub(crate) success: Success,
    /// How it can fail, beyond what every keyed route can.
    pub(crate) fails: &'static [Fails],
}

impl Operation {
    /// `method path`, answering `success`, keyed, with no query or body.
    pub(crate) fn new(
        method: Method,
        path: &'static str,
        id: &'static str,
        summary: &'static str,
        success: Success,
    ) -> Self {
        Operation {
            method,
            path,
            id,
            summary,
            public: false,
            query: None,
            body: None,
            body_optional: false,
            success,
            fails: &[],
        }
    }

    /// Served without a key.
    pub(crate) fn public(self) -> Self {
        Operation {
            public: true,
            ..self
        }
    }

    /// Takes a query.
    pub(crate) fn query(self, query: MakeSchema) -> Self {
        Operation {
            query: Some(query),
            ..self
        }
    }

    /// Takes a JSON body.
    pub(crate) fn body(self, body: MakeSchema) -> Self {
        Operation {
            body: Some(body),
            ..self
        }
    }

    /// Takes a JSON body, or none.
    pub(crate) fn optional_body(self, body: MakeSchema) -> Self {
        Operation {
            body: Some(body),
            body_optional: true,
            ..self
        }
    }

    /// Fails in these ways too.
    pub(crate) fn fails(self, fails: &'static [Fails]) -> Self {
        Operation { fails, ..self }
    }
}

/// A way an operation can fail, each with its statuses and codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fails {
    /// A path id that is malformed, or a negotiation the caller holds no
    /// seat in: `not_found`, alike.
    Seat,
    /// A body that is not JSON of the right shape: `malformed_json`; or
    /// not sent as JSON: `unsupported_media_type`, 415.
    Body,
    /// A query or body value the host cannot use: `invalid_request`.
    Request,
    /// Only a host key may: `forbidden`.
    HostKey,
    /// The turn schema and the rules' refusals of a turn.
    Turn,
    /// The rules' refusals of a resume.
    Resume,
    /// The refusals of an opening.
    Open,
    /// A park on a host without a model: `no_model`.
    Park,
    /// A blank or overlong answer: the whole delivery is refused.
    Answer,
    /// The store cannot answer (readiness): `store_failed`, 503.
    NotReady,
    /// A key that signs nothing in: `unauthorized`, `key_expired`, a login
    /// link used already: `login_link_used`; a host key, which may not:
    /// `forbidden`, 403.
    SignIn,
    /// Sent from a page that is not this host's: `cross_origin`, 403.
    CrossOrigin,
    /// A public route's body over the limit: `payload_too_large`, 413.
    Oversize,
    /// No interaction with that id for the caller's person: `not_found`.
    Interaction,
    /// No webhook endpoint with that id the caller may see: `not_found`.
    Webhook,
    /// No client the caller's person connected has that id: `not_found`.
    Connection,
    /// Only a person's browser session may: `forbidden`, 403.
    Session,
    /// The host takes no identity provider's tokens: `unknown_route`, 404.
    NoIssuer,
    /// An id taken with other content, or too many pending:
    /// `interaction_exists`, `too_many_interactions`, 409.
    Ask,
}

impl Fails {
    /// The statuses and codes this failure answers with.
    fn codes(self) -> Vec<(StatusCode, &'static str)> {
        let of = |err: HostError| (err.status(), err.code());
        match self {
            Fails::Seat => vec![of(HostError::NotFound)],
            Fails::Body => vec![
                (StatusCode::BAD_REQUEST, ErrorCode::MalformedJson.as_str()),
                of(HostError::UnsupportedMediaType),
            ],
            Fails::Request => vec![of(HostError::BadRequest(String::new()))],
            Fails::HostKey => vec![of(HostError::Forbidden)],
            Fails::Turn => NegotiationRejection::ALL
                .into_iter()
                .map(|rejection| of(rejection.into()))
                .collect(),
            Fails::Resume => NegotiationResumeRejection::ALL
                .into_iter()
                .map(|rejection| of(rejection.into()))
                .collect(),
            Fails::Open => OpenRejection::ALL
                .into_iter()
                .map(|rejection| of(rejection.into()))
                .collect(),
            Fails::Park => vec![(StatusCode::BAD_REQUEST, ErrorCode::NoModel.as_str())],
            // What `check_answer` refuses, before anything is delivered.
            Fails::Answer => [
                index_negotiation::AnswerRejection::BlankAnswer,
                index_negotiation::AnswerRejection::AnswerTooLong,
            ]
            .into_iter()
            .map(|rejection| (StatusCode::BAD_REQUEST, rejection.as_str()))
            .collect(),
            Fails::NoIssuer => vec![of(HostError::UnknownRoute)],
            Fails::NotReady => vec![(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::StoreFailed.as_str(),
            )],
            Fails::SignIn => vec![
                of(HostError::Unauthorized),
                of(HostError::KeyExpired),
                of(HostError::LoginLinkUsed),
                of(HostError::HostKeySignIn),
            ],
            Fails::CrossOrigin => vec![of(HostError::CrossOrigin)],
            Fails::Oversize => vec![of(HostError::PayloadTooLarge)],
            Fails::Interaction => vec![of(HostError::NoInteraction)],
            Fails::Webhook => vec![of(HostError::NoWebhook)],
            Fails::Connection => vec![of(HostError::NotFound)],
            Fails::Session => vec![of(HostError::Forbidden)],
            Fails::Ask => vec![
                of(HostError::InteractionExists),
                of(HostError::TooManyInteractions),
            ],
        }
    }
}

/// What every keyed route can answer besides its own: no valid key, a
/// body over the limit (checked after the key), a store that failed.
const EVERY_KEYED: &[(StatusCode, ErrorCode)] = &[
    (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized),
    (StatusCode::UNAUTHORIZED, ErrorCode::KeyExpired),
    (StatusCode::FORBIDDEN, ErrorCode::InsufficientScope),
    (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge),
    (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::StoreFailed),
];

/// The OpenAPI 3.1 document of `operations`.
pub(crate) fn document(operations: &[Operation]) -> Value {
    let Described {
        paths,
        written,
        read,
    } = described(operations);
    // One namespace for both contracts: a type read and written under one
    // name has one shape (`a_type_read_and_written_has_one_shape`).
    let mut schemas = written;
    schemas.extend(read);
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Index negotiation host",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Negotiations for agents: each request authenticates with an API key that names its user (`Authorization: Bearer …`); a caller acts only as its own seat, and a negotiation it holds no seat in answers 404 like one that does not exist. Every error is `{\"error\": {\"code\", \"message\"}}`. The same service is an MCP server at `/mcp`.",
            "license": { "name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0" },
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "security": [{ "apiKey": [] }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key made by `index keys create`: an agent key acts as its user's seat, a host key also opens and closes negotiations.",
                },
            },
        },
    });
    plain(&mut document);
    document
}

/// The operations described, by path and method, and the component
/// schemas their answers (written) and requests (read) name.
pub(crate) struct Described {
    pub(crate) paths: BTreeMap<&'static str, Map<String, Value>>,
    pub(crate) written: Map<String, Value>,
    pub(crate) read: Map<String, Value>,
}

/// Each operation described, and the schemas it names.
pub(crate) fn described(operations: &[Operation]) -> Described {
    let mut reads = settings_for_components(Contract::Reads).into_generator();
    let mut writes = settings_for_components(Contract::Writes).into_generator();
    let mut paths: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
    for operation in operations {
        paths.entry(operation.path).or_default().insert(
            operation.method.as_str().to_ascii_lowercase(),
            describe(operation, &mut reads, &mut writes),
        );
    }
    Described {
        paths,
        written: writes.take_definitions(true),
        read: reads.take_definitions(true),
    }
}

/// Component schemas under `#/components/schemas/`, without the
/// `$schema` line each root would carry.
fn settings_for_components(contract: Contract) -> schemars::generate::SchemaSettings {
    let mut settings = settings(contract);
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    settings
}

fn describe(
    operation: &Operation,
    reads: &mut SchemaGenerator,
    writes: &mut SchemaGenerator,
) -> Value {
    let mut parameters = Vec::new();
    if operation.path.contains("{id}") {
        parameters.push(json!({
            "name": "id", "in": "path", "required": true,
            "description": "The negotiation's opportunity id.",
            "schema": of::<index_negotiation::OpportunityId>(reads),
        }));
    }
    let ids = [
        ("interactionId", "The interaction's id (its request's)."),
        (
            "connectionId",
            "The connected client's id: its grant's, as `GET /connections` lists it.",
        ),
        ("webhookId", "The webhook endpoint's id (`wh_…`)."),
    ];
    for (name, description) in ids {
        if operation.path.contains(&format!("{{{name}}}")) {
            parameters.push(json!({
                "name": name, "in": "path", "required": true,
                "description": description,
                "schema": { "type": "string", "minLength": 1 },
            }));
        }
    }
    if let Some(query) = operation.query {
        let schema = inline(query(reads), reads);
        let required: BTreeSet<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let mut property = property.clone();
                let description = property
                    .as_object_mut()
                    .and_then(|object| object.remove("description"));
                parameters.push(json!({
                    "name": name, "in": "query",
                    "required": required.contains(name.as_str()),
                    "description": description,
                    "schema": not_null(property),
                }));
            }
        }
    }
    let mut responses = Map::new();
    match operation.success {
        Success::Json(status, schema) => {
            responses.insert(
                status.as_u16().to_string(),
                json!({
                    "description": status.canonical_reason().unwrap_or("Success"),
                    "content": { "application/json": { "schema": schema(writes) } },
                }),
            );
        }
        Success::Made(schema) => {
            let schema = schema(writes);
            for (status, description) in [
                (StatusCode::CREATED, "Made now."),
                (StatusCode::OK, "The same was there already."),
            ] {
                responses.insert(
                    status.as_u16().to_string(),
                    json!({
                        "description": description,
                        "content": { "application/json": { "schema": schema } },
                    }),
                );
            }
        }
        Success::Empty(status) => {
            responses.insert(
                status.as_u16().to_string(),
                json!({ "description": status.canonical_reason().unwrap_or("Success") }),
            );
        }
        Success::Metrics => {
            responses.insert(
                "200".to_owned(),
                json!({
                    "description": "The metrics, in Prometheus's text format (OpenMetrics).",
                    "content": { "application/openmetrics-text": { "schema": { "type": "string" } } },
                }),
            );
        }
    }
    let mut failures: BTreeMap<u16, BTreeSet<&'static str>> = BTreeMap::new();
    if !operation.public {
        for (status, code) in EVERY_KEYED {
            failures
                .entry(status.as_u16())
                .or_default()
                .insert(code.as_str());
        }
        // A change a browser's session cookie authenticates must come
        // from a page of this host.
        if operation.method != Method::GET {
            let (status, code) = (
                HostError::CrossOrigin.status(),
                HostError::CrossOrigin.code(),
            );
            failures.entry(status.as_u16()).or_default().insert(code);
        }
    }
    for fails in operation.fails {
        for (status, code) in fails.codes() {
            failures.entry(status.as_u16()).or_default().insert(code);
        }
    }
    for (status, codes) in failures {
        let codes: Vec<&str> = codes.into_iter().collect();
        responses.insert(
            status.to_string(),
            json!({
                "description": codes.join(", "),
                "content": { "application/json": { "schema": error_body(&codes) } },
            }),
        );
    }
    let mut described = Map::new();
    described.insert("operationId".to_owned(), operation.id.into());
    described.insert("summary".to_owned(), operation.summary.into());
    described.insert("parameters".to_owned(), parameters.into());
    if let Some(body) = operation.body {
        described.insert(
            "requestBody".to_owned(),
            json!({
                "required": !operation.body_optional,
                "content": { "application/json": { "schema": body(reads) } },
            }),
        );
    }
    described.insert("responses".to_owned(), responses.into());
    if operation.public {
        described.insert("security".to_owned(), json!([]));
    }
    Value::Object(described)
}

/// A schema with its `$ref` followed: a query's parameters are its
/// properties, so the query type itself must be at hand.
fn inline(schema: Schema, generator: &SchemaGenerator) -> Value {
    let value = schema.to_value();
    let name = value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.rsplit('/').next());
    match name.and_then(|name| generator.definitions().get(name)) {
        Some(found) => found.clone(),
        None => value,
    }
}

/// A query parameter's schema without its `null`: an absent parameter is
/// how a query says none.
fn not_null(mut schema: Value) -> Value {
    if let Some(types) = schema.get_mut("type")
        && let Some(list) = types.as_array()
    {
        let kept: Vec<Value> = list
            .iter()
            .filter(|kind| kind.as_str() != Some("null"))
            .cloned()
            .collect();
        *types = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept),
        };
    }
    if let Some(Value::Array(names)) = schema.get_mut("enum") {
        names.retain(|name| !name.is_null());
    }
    schema
}

/// `{"error": {"code", "message"}}` with `code` one of `codes`.
fn error_body(codes: &[&str]) -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": { "type": "string", "enum": codes },
                    "message": { "type": "string" },
                },
            },
        },
    })
}
