//! The contract's examples, round trips, snapshots and properties.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use index_interaction::*;
use proptest::prelude::*;
use serde_json::{Value, json};

fn fixture_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/interaction")
        .join(kind)
}

fn fixtures(kind: &str) -> Vec<(String, Value)> {
    let mut files: Vec<(String, Value)> = std::fs::read_dir(fixture_dir(kind))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap(),
            )
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// Parses a fixture by its name's prefix and returns it re-serialized, or
/// the problems.
fn parse(name: &str, value: &Value) -> Result<Value, InvalidInteraction> {
    fn to_json<T: serde::Serialize>(
        parsed: Result<T, InvalidInteraction>,
    ) -> Result<Value, InvalidInteraction> {
        parsed.map(|v| serde_json::to_value(v).unwrap())
    }
    if ["request", "spec", "field"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        to_json(InteractionRequest::from_json_value(value))
    } else if name.starts_with("response-command") {
        to_json(InteractionResponseCommand::from_json_value(value))
    } else if name.starts_with("response") {
        to_json(InteractionResponse::from_json_value(value))
    } else if name.starts_with("acknowledgement") {
        to_json(InteractionAcknowledgement::from_json_value(value))
    } else {
        to_json(InteractionCapabilities::from_json_value(value))
    }
}

#[test]
fn valid_examples_parse_and_round_trip() {
    let valid = fixtures("valid");
    assert!(valid.len() >= 8);
    for (name, value) in valid {
        let once = parse(&name, &value).unwrap_or_else(|e| panic!("{name}: {e}"));
        let twice = parse(&name, &once).unwrap();
        assert_eq!(once, twice, "{name}");
    }
}

#[test]
fn invalid_examples_are_rejected_for_their_rule() {
    let invalid = fixtures("invalid");
    assert!(invalid.len() >= 15);
    let report: String = invalid
        .iter()
        .map(|(name, value)| {
            let err = parse(name, value).expect_err(name);
            let issues: Vec<String> = err
                .issues
                .iter()
                .map(|i| format!("{} {} ({})", i.path, i.code.as_str(), i.message))
                .collect();
            format!("{name}:\n  {}\n", issues.join("\n  "))
        })
        .collect();
    insta::assert_snapshot!(report);
}

#[test]
fn numbers_are_written_as_javascript_writes_them() {
    let request = InteractionRequest::from_json_value(&json!({
        "id": "q", "kind": "question", "title": "T", "timeoutMs": 1.0,
        "answerSpec": {"fields": [{"name": "n", "label": "N", "type": "number", "min": 0.0, "max": 2.5, "default": -0.0}]},
        "default": {"outcome": "accepted", "data": {"n": 2.0}}
    }))
    .unwrap();
    assert_eq!(request.timeout_ms, Some(1));
    let written = serde_json::to_string(&request).unwrap();
    assert!(written.contains(r#""timeoutMs":1"#), "{written}");
    assert!(
        written.contains(r#""min":0,"max":2.5,"default":0"#),
        "{written}"
    );
    assert!(written.contains(r#""data":{"n":2}"#), "{written}");
}

#[test]
fn representative_messages() {
    let request = InteractionRequest::from_json_value(
        &serde_json::from_str(
            &std::fs::read_to_string(fixture_dir("valid").join("request-question.json")).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    insta::assert_json_snapshot!("request", request);
    let permission = InteractionRequest::from_json_value(&json!({
        "id": "p-1", "kind": InteractionKind::PERMISSION, "title": "Deploy to production?",
        "subject": {"type": "tool", "toolName": "deploy", "input": {"env": "prod"}},
        "responseScopes": ["interaction", "session"],
        "answerSpec": serde_json::to_value(permission_answer_spec(Some(&[InteractionResponseScope::Interaction, InteractionResponseScope::Session]), true)).unwrap(),
    }))
    .unwrap();
    insta::assert_json_snapshot!("permission_request", permission);
    let response = InteractionResponse::from_json_value(&json!({"id": "p-1", "outcome": "accepted", "data": {"grant": ["allow_session"], "feedback": "Fine for today."}})).unwrap();
    insta::assert_json_snapshot!("response", response);
    assert!(check_response(&permission, &response).is_ok());
    let ack = InteractionAcknowledgement::from_json_value(&json!({
        "operationId": "op-1", "binding": {"runId": "r", "environmentId": "e", "sessionId": "s", "interactionId": "p-1"},
        "status": "already_resolved_different", "message": "Another answer arrived first."
    }))
    .unwrap();
    insta::assert_json_snapshot!("acknowledgement", ack);
}

#[test]
fn permission_rules() {
    let spec = |scopes: Option<&[InteractionResponseScope]>| {
        serde_json::to_value(permission_answer_spec(scopes, true)).unwrap()
    };
    let request = |scopes: Option<Vec<&str>>| {
        let typed: Option<Vec<InteractionResponseScope>> = scopes.as_ref().map(|s| {
            s.iter()
                .map(|scope| match *scope {
                    "session" => InteractionResponseScope::Session,
                    "persistent" => InteractionResponseScope::Persistent,
                    _ => InteractionResponseScope::Interaction,
                })
                .collect()
        });
        let mut value = json!({"id": "p", "kind": "permission", "title": "T", "answerSpec": spec(typed.as_deref())});
        if let Some(scopes) = scopes {
            value["responseScopes"] = json!(scopes);
        }
        InteractionRequest::from_json_value(&value).unwrap()
    };
    let answer = |r: &InteractionRequest, grant: Value| {
        validate_interaction_response(
            r,
            &json!({"id": "p", "outcome": "accepted", "data": {"grant": grant}}),
        )
        .err()
        .map(|problems| {
            problems
                .iter()
                .map(ResponseProblem::code)
                .collect::<Vec<_>>()
        })
    };
    let default = request(None);
    assert_eq!(answer(&default, json!(["allow_once"])), None);
    assert_eq!(answer(&default, json!(["deny"])), None);
    assert_eq!(
        answer(&default, json!(["allow_session"])),
        Some(vec![
            "invalid_option:grant:allow_session".to_owned(),
            "grant_exceeds_scopes:allow_session".to_owned()
        ])
    );
    assert_eq!(
        answer(&default, json!(["deny", "allow_once"])),
        Some(vec![
            "single_value_only:grant".to_owned(),
            "grant_count".to_owned()
        ])
    );
    let session = request(Some(vec!["session"]));
    assert_eq!(answer(&session, json!(["allow_session"])), None);
    assert_eq!(
        answer(&session, json!(["allow_once"])),
        Some(vec![
            "invalid_option:grant:allow_once".to_owned(),
            "grant_exceeds_scopes:allow_once".to_owned()
        ])
    );
    let declined = validate_interaction_response(
        &default,
        &json!({"id": "p", "outcome": "declined", "data": {"grant": ["whatever"]}}),
    );
    assert!(
        declined.is_ok(),
        "data on a declined response is not validated"
    );
}

fn scope_sets() -> impl Strategy<Value = Vec<InteractionResponseScope>> {
    prop::sample::subsequence(
        vec![
            InteractionResponseScope::Interaction,
            InteractionResponseScope::Session,
            InteractionResponseScope::Persistent,
        ],
        1..=3,
    )
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "",
            "text",
            "select",
            "secret",
            "accepted",
            "permission",
            "grant",
            "allow_once",
            "deny",
            "a"
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "id",
                    "kind",
                    "title",
                    "type",
                    "name",
                    "label",
                    "options",
                    "value",
                    "fields",
                    "answerSpec",
                    "outcome",
                    "data",
                    "default",
                    "grant",
                    "required",
                    "multi",
                    "allowCustom",
                    "maxLength",
                    "min",
                    "max"
                ])
                .prop_map(str::to_owned),
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `default` cases, or as many as `PROPTEST_CASES` asks for, so a long
/// run needs no code change.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    #[test]
    fn validation_never_panics_and_what_it_accepts_round_trips(value in any_json(), other in any_json()) {
        macro_rules! round_trips {
            ($($ty:ty),*) => {$(
                if let Ok(parsed) = <$ty>::from_json_value(&value) {
                    let written = serde_json::to_value(&parsed).unwrap();
                    prop_assert_eq!(<$ty>::from_json_value(&written).ok(), Some(parsed));
                }
            )*};
        }
        round_trips!(
            InteractionField,
            InteractionAnswerSpec,
            InteractionCapabilities,
            InteractionResponseCommand,
            InteractionAcknowledgement,
            InteractionRequest,
            InteractionResponse
        );
        if let Ok(request) = InteractionRequest::from_json_value(&value) {
            let _ = validate_interaction_response(&request, &other);
            let _ = validate_interaction_answer_value(&request.answer_spec, other.as_object());
        }
        let spec = permission_answer_spec(None, true);
        let _ = validate_interaction_answer_value(&spec, value.as_object());
        let _ = validate_interaction_answer_json(&value, other.as_object());
        let _ = validate_interaction_response_json(&value, &other);
        if let Ok(elicitation) = serde_json::from_value::<ElicitationRequest>(value.clone()) {
            let _ = elicitation_to_interaction("id", &elicitation);
        }
    }

    #[test]
    fn a_permission_spec_accepts_exactly_the_grants_its_scopes_permit(scopes in scope_sets(), feedback in any::<bool>()) {
        let spec = permission_answer_spec(Some(&scopes), feedback);
        let request = InteractionRequest {
            id: "p".into(), kind: InteractionKind::PERMISSION.into(), title: "T".into(), body: None, subject: None,
            answer_spec: spec, response_scopes: Some(scopes.clone()), default: None, timeout_ms: None, on_timeout: None,
        };
        for grant in PermissionGrant::ALL {
            let response = json!({"id": "p", "outcome": "accepted", "data": {"grant": [grant.as_str()]}});
            let accepted = validate_interaction_response(&request, &response).is_ok();
            let permitted = grant.required_scope().is_none_or(|scope| scopes.contains(&scope));
            prop_assert_eq!(accepted, permitted, "{:?} with {:?}", grant, scopes);
        }
    }
}
