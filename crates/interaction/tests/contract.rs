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

/// Each problem's code, if any.
fn codes<T>(result: Result<T, index_js::Problems<ResponseProblem>>) -> Option<Vec<String>> {
    result
        .err()
        .map(|problems| problems.iter().map(ResponseProblem::code).collect())
}

/// A binding for a request with `id`.
fn binding(id: &str) -> Value {
    json!({"runId": "run-1", "provider": "local", "environmentId": "env-1",
           "sessionId": "s-1", "executionId": "x-1", "interactionId": id})
}

/// `material` (a request without binding or digest) bound and sealed.
fn seal(mut material: Value) -> InteractionRequest {
    let id = material["id"].as_str().unwrap().to_owned();
    material["binding"] = binding(&id);
    InteractionRequest::from_material(&material).unwrap()
}

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
    let request = seal(json!({
        "id": "q", "kind": "question", "title": "T", "timeoutMs": 1.0,
        "answerSpec": {"fields": [{"name": "n", "label": "N", "type": "number", "min": 0.0, "max": 2.5, "default": -0.0}]},
        "default": {"outcome": "accepted", "data": {"n": 2.0}}
    }));
    assert_eq!(request.timeout_ms(), Some(1));
    let written = serde_json::to_string(&request).unwrap();
    assert!(written.contains(r#""timeoutMs":1"#), "{written}");
    assert!(
        written.contains(r#""min":0,"max":2.5,"default":0"#),
        "{written}"
    );
    assert!(written.contains(r#""data":{"n":2}"#), "{written}");
    // Whole numbers past the safe range are written in full, as
    // JavaScript writes them below 10^21.
    let big = serde_json::to_string(&InteractionValue::Number(9_007_199_254_740_992.0)).unwrap();
    assert_eq!(big, "9007199254740992");
    let huge = serde_json::to_string(&InteractionValue::Number(1e19)).unwrap();
    assert_eq!(huge, "10000000000000000000");
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
    let permission = seal(json!({
        "id": "p-1", "kind": InteractionKind::Permission, "title": "Deploy to production?",
        "subject": {"type": "tool", "toolName": "deploy", "input": {"env": "prod"}},
        "responseScopes": ["interaction", "session"],
        "answerSpec": serde_json::to_value(permission_answer_spec(Some(&[InteractionResponseScope::Interaction, InteractionResponseScope::Session]), true)).unwrap(),
    }));
    insta::assert_json_snapshot!("permission_request", permission);
    let response = InteractionResponse::from_json_value(&json!({"id": "p-1", "outcome": "accepted", "data": {"grant": ["allow_session"], "feedback": "Fine for today."}})).unwrap();
    insta::assert_json_snapshot!("response", response);
    assert!(check_response(&permission, &response).is_ok());
    let command = InteractionResponseCommand::new("op-1", permission.command_binding(), response);
    insta::assert_json_snapshot!("response_command", command);
    let ack = InteractionAcknowledgement::from_json_value(&json!({
        "operationId": "op-1", "binding": permission.command_binding(), "commandDigest": command.command_digest,
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
        seal(value)
    };
    let answer = |r: &InteractionRequest, grant: Value| {
        codes(validate_interaction_response(
            r,
            &json!({"id": "p", "outcome": "accepted", "data": {"grant": grant}}),
        ))
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
    let declined = |data: Value| {
        codes(validate_interaction_response(
            &default,
            &json!({"id": "p", "outcome": "declined", "data": data}),
        ))
    };
    assert_eq!(
        declined(json!({})),
        None,
        "a declined response may carry empty data"
    );
    assert_eq!(
        declined(json!({"grant": ["whatever"]})),
        Some(vec!["answer_on_unaccepted".to_owned()]),
        "a declined response carries no answer, valid or not"
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
            InteractionResponse,
            InteractionDataRecord,
            InteractionSubject
        );
        // A request read from material round-trips too, digest included.
        let mut material = value.clone();
        if let Some(object) = material.as_object_mut() {
            object.insert("binding".into(), binding(object.get("id").and_then(Value::as_str).unwrap_or("id")));
        }
        if let Ok(request) = InteractionRequest::from_material(&material) {
            let written = serde_json::to_value(&request).unwrap();
            prop_assert_eq!(InteractionRequest::from_json_value(&written).ok(), Some(request.clone()));
            let _ = validate_interaction_response(&request, &other);
            let _ = validate_interaction_answer_value(request.answer_spec(), Some(&other));
        }
        let spec = permission_answer_spec(None, true);
        let _ = validate_interaction_answer_value(&spec, Some(&value));
        let _ = validate_interaction_answer_json(&value, Some(&other));
        let _ = validate_interaction_response_json(&value, &other);
        let _ = validate_interaction_response_command_json(&value, &other);
        let _ = v0_44::validate_interaction_answer_json(&value, other.as_object());
        let _ = v0_44::validate_interaction_response_json(&value, &other);
        if let Ok(elicitation) = serde_json::from_value::<ElicitationRequest>(value.clone()) {
            let binding = InteractionRequestBinding {
                run_id: "r".into(), provider: "p".into(), environment_id: "e".into(),
                session_id: "s".into(), execution_id: "x".into(), interaction_id: "id".into(),
            };
            let _ = elicitation_to_interaction(&binding, &elicitation);
        }
    }

    #[test]
    fn every_kind_round_trips_and_only_unknown_ones_are_other(kind in "[a-z./ -]{0,12}|question|permission|plan") {
        let read = InteractionKind::new(kind.as_str());
        prop_assert_eq!(read.as_str(), kind.as_str());
        prop_assert_eq!(serde_json::to_value(&read).unwrap(), json!(kind));
        let well_known = ["question", "permission", "plan"].contains(&kind.as_str());
        prop_assert_eq!(read.is_well_known(), well_known);
        prop_assert_eq!(InteractionKind::new(read.as_str()), read);
    }

    #[test]
    fn a_permission_spec_accepts_exactly_the_grants_its_scopes_permit(scopes in scope_sets(), feedback in any::<bool>()) {
        let spec = permission_answer_spec(Some(&scopes), feedback);
        let request = seal(json!({
            "id": "p", "kind": InteractionKind::Permission, "title": "T",
            "answerSpec": serde_json::to_value(spec).unwrap(), "responseScopes": scopes,
        }));
        for grant in PermissionGrant::ALL {
            let response = json!({"id": "p", "outcome": "accepted", "data": {"grant": [grant.as_str()]}});
            let accepted = validate_interaction_response(&request, &response).is_ok();
            let permitted = grant.required_scope().is_none_or(|scope| scopes.contains(&scope));
            prop_assert_eq!(accepted, permitted, "{:?} with {:?}", grant, scopes);
        }
    }
}

#[test]
fn a_request_the_reference_cannot_check_is_refused_with_every_issue() {
    // The reference throws on these instead of answering; the crate
    // returns the issues, and leaves the digest unchecked.
    let unsealed = |over: Value| {
        let mut value = json!({"id": "q", "kind": "question", "title": "T",
            "answerSpec": {"fields": []}, "binding": binding("q"),
            "requestDigest": format!("sha256:{}", "0".repeat(64))});
        for (key, member) in over.as_object().unwrap() {
            value[key] = member.clone();
        }
        let issues = InteractionRequest::from_json_value(&value).unwrap_err();
        issues
            .iter()
            .map(|i| format!("{} {}", i.path, i.code.as_str()))
            .collect::<Vec<_>>()
    };
    assert_eq!(unsealed(json!({"title": ""})), ["title too_small"]);
    assert_eq!(unsealed(json!({"kind": " question"})), ["kind custom"]);
    assert_eq!(
        unsealed(json!({"timeoutMs": 9_007_199_254_740_992_u64})),
        ["timeoutMs too_big", "timeoutMs too_big"]
    );
    assert_eq!(
        unsealed(json!({"allowedOutcomes": []})),
        ["allowedOutcomes too_small"]
    );
    // A request whose content is sound is checked against its digest.
    assert_eq!(unsealed(json!({})), ["requestDigest custom"]);
}

/// A `__proto__` data key is refused whether the response is validated as
/// JSON or read into a value first: the reference's validator refuses it,
/// and reading must not launder it into an accepted response. 0.44, whose
/// validator reads first, accepts it on both paths.
#[test]
fn a_proto_data_key_gets_one_answer_on_the_typed_and_the_json_path() {
    let material = json!({"id": "q", "kind": "question", "title": "Lunch?",
        "answerSpec": {"fields": [{"name": "t", "label": "T", "type": "text"}]}});
    let request = seal(material.clone());
    let response: Value =
        serde_json::from_str(r#"{"id":"q","outcome":"accepted","data":{"__proto__":1,"t":"x"}}"#)
            .unwrap();

    assert_eq!(
        codes(validate_interaction_response(&request, &response)).unwrap(),
        ["unknown_field:__proto__"]
    );
    let issues = InteractionResponse::from_json_value(&response).unwrap_err();
    assert_eq!(issues[0].path.to_string(), "data.__proto__");

    let clean = InteractionResponse::from_json_value(
        &json!({"id": "q", "outcome": "accepted", "data": {"t": "x"}}),
    )
    .unwrap();
    let mut command = serde_json::to_value(InteractionResponseCommand::new(
        "op",
        request.command_binding(),
        clean,
    ))
    .unwrap();
    command["response"]["data"]["__proto__"] = json!(1);
    let command_codes = codes(validate_interaction_response_command(&request, &command)).unwrap();
    assert!(
        command_codes[0].starts_with("command:response.data.__proto__:"),
        "{command_codes:?}"
    );

    let old = v0_44::InteractionRequest::from_json_value(&material).unwrap();
    assert!(v0_44::validate_interaction_response(&old, &response).is_ok());
    let read = v0_44::from_json_value::<InteractionResponse>(&response).unwrap();
    assert_eq!(read.data.unwrap().keys().collect::<Vec<_>>(), ["t"]);
}

#[test]
fn a_request_changed_after_sealing_is_refused_and_a_command_for_it_is_stale() {
    let request = seal(json!({"id": "q", "kind": "question", "title": "Lunch?",
        "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean"}]}}));
    let mut changed = serde_json::to_value(&request).unwrap();
    changed["title"] = json!("Dinner?");
    let issues = InteractionRequest::from_json_value(&changed).unwrap_err();
    assert_eq!(issues[0].path.to_string(), "requestDigest");

    let reread = InteractionRequest::from_material(&{
        let mut material = changed.clone();
        material.as_object_mut().unwrap().remove("requestDigest");
        material
    })
    .unwrap();
    assert_ne!(reread.request_digest(), request.request_digest());
    let response = InteractionResponse::from_json_value(
        &json!({"id": "q", "outcome": "accepted", "data": {"go": true}}),
    )
    .unwrap();
    let command = InteractionResponseCommand::new("op", request.command_binding(), response);
    let wire = serde_json::to_value(&command).unwrap();
    assert!(validate_interaction_response_command(&request, &wire).is_ok());
    let command_codes = |request: &InteractionRequest, command: &Value| {
        codes(validate_interaction_response_command(request, command)).unwrap()
    };
    assert_eq!(command_codes(&reread, &wire), ["stale_binding"]);
    let mut tampered = wire.clone();
    tampered["response"]["data"]["go"] = json!(false);
    assert_eq!(
        command_codes(&request, &tampered),
        ["command:commandDigest:custom"]
    );
}

#[test]
fn values_read_under_0_44_upgrade_only_within_0_46_rules() {
    let spec = json!({"fields": [{"name": "ok", "label": "OK", "type": "boolean"}]});
    let read = v0_44::from_json_value::<InteractionAnswerSpec>(&spec).unwrap();
    assert_eq!(v0_44::upgrade(&read).unwrap(), read);
    let reserved = json!({"fields": [{"name": "constructor", "label": "C", "type": "boolean"}]});
    let read = v0_44::from_json_value::<InteractionAnswerSpec>(&reserved).unwrap();
    let issues = v0_44::upgrade(&read).unwrap_err();
    assert_eq!(issues[0].path.to_string(), "fields.0.name");
    // 0.44 requests have no binding or digest: they are their own type.
    let old = v0_44::InteractionRequest::from_json_value(&json!({
        "id": "q", "kind": "question", "title": "T", "answerSpec": spec}))
    .unwrap();
    assert!(InteractionRequest::from_json_value(&serde_json::to_value(&old).unwrap()).is_err());
}
