//! MCP elicitation ⇄ interaction requests: the JSON for every field kind,
//! the refusals, and, for every answer spec that maps, a valid answer given
//! through MCP validates while an invalid one is refused exactly as the
//! same answer sent directly.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn binding(id: &str) -> InteractionRequestBinding {
    InteractionRequestBinding {
        run_id: "run-1".into(),
        provider: "mcp".into(),
        environment_id: "env-1".into(),
        session_id: "s-1".into(),
        execution_id: "x-1".into(),
        interaction_id: id.into(),
    }
}

fn request_of_kind(kind: &str, fields: Value) -> InteractionRequest {
    InteractionRequest::from_material(&json!({
        "id": "ask-1", "kind": kind, "title": "Before the retry",
        "body": "Two things only you can answer.",
        "answerSpec": {"fields": fields},
        "binding": binding("ask-1"),
    }))
    .unwrap()
}

fn request(fields: Value) -> InteractionRequest {
    request_of_kind("question", fields)
}

fn every_kind_of(kind: &str) -> InteractionRequest {
    request_of_kind(
        kind,
        json!([
            {"name": "note", "label": "A note", "type": "text", "maxLength": 200, "default": "none", "multiline": true},
            {"name": "budget", "label": "Budget", "type": "number", "min": 0, "max": 50000, "default": 20000, "required": true},
            {"name": "remote", "label": "Remote?", "type": "boolean", "default": false},
            {"name": "city", "label": "City", "type": "select", "required": true, "default": ["berlin"],
             "options": [{"value": "berlin", "label": "Berlin"}, {"value": "paris", "label": "Paris", "description": "The office"}]},
            {"name": "days", "label": "Days", "type": "select", "multi": true, "required": true,
             "options": [{"value": "mon", "label": "Monday"}, {"value": "fri", "label": "Friday"}]}
        ]),
    )
}

fn every_kind() -> InteractionRequest {
    every_kind_of("question")
}

#[test]
fn every_field_kind_as_an_elicitation() {
    insta::assert_json_snapshot!(interaction_to_elicitation(&every_kind()).unwrap());
}

#[test]
fn what_mcp_cannot_ask_is_refused() {
    let secret = request(json!([{"name": "token", "label": "Token", "type": "secret"}]));
    assert_eq!(
        interaction_to_elicitation(&secret),
        Err(Unmappable::Secret("token".into()))
    );
    let custom = request(
        json!([{"name": "c", "label": "C", "type": "select", "allowCustom": true,
        "options": [{"value": "a", "label": "A"}]}]),
    );
    assert_eq!(
        interaction_to_elicitation(&custom),
        Err(Unmappable::AllowCustom("c".into()))
    );
    let vendor = every_kind_of("acme.deploy");
    assert_eq!(
        interaction_to_elicitation(&vendor),
        Err(Unmappable::VendorKind("acme.deploy".into()))
    );
}

#[test]
fn decline_and_cancel_carry_no_data() {
    for (action, outcome) in [
        (ElicitationAction::Decline, InteractionOutcome::Declined),
        (ElicitationAction::Cancel, InteractionOutcome::Cancelled),
    ] {
        let result = ElicitationResult {
            action,
            content: json!({"budget": 1}).as_object().cloned(),
        };
        let response = elicitation_to_response(&every_kind(), &result).unwrap();
        assert_eq!((response.outcome, &response.data), (outcome, &None));
        assert_eq!(
            response_to_elicitation_result(every_kind().answer_spec(), &response).action,
            action
        );
    }
}

#[test]
fn an_accepted_answer_maps_both_ways() {
    let content = json!({"budget": 18000, "city": "paris", "days": ["mon"], "remote": true});
    let result = ElicitationResult {
        action: ElicitationAction::Accept,
        content: content.as_object().cloned(),
    };
    let response = elicitation_to_response(&every_kind(), &result).unwrap();
    insta::assert_json_snapshot!(response);
    assert_eq!(
        response_to_elicitation_result(every_kind().answer_spec(), &response),
        result,
        "the response goes back as the content it came from"
    );
}

#[test]
fn asks_from_any_mcp_server_read_as_requests() {
    let elicitation: ElicitationRequest = serde_json::from_value(json!({
        "message": "Set up your profile",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "maxLength": 50, "description": "As on your passport"},
            "age": {"type": "number", "minimum": 18},
            "tier": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"], "default": "free"},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "news": {"type": "boolean", "default": true}
        }, "required": ["name", "tier"]}
    }))
    .unwrap();
    let request = elicitation_to_interaction(&binding("mcp-7"), &elicitation).unwrap();
    insta::assert_json_snapshot!(request);
    for (property, schema) in [
        ("n", json!({"type": "integer"})),
        ("e", json!({"type": "string", "format": "email"})),
        ("m", json!({"type": "string", "minLength": 3})),
        ("o", json!({"type": "object", "properties": {}})),
        ("x", json!({"type": "array", "items": {"type": "string"}})),
        ("t", json!({"title": "no type"})),
    ] {
        let elicitation = ElicitationRequest {
            message: "Q".into(),
            requested_schema: json!({"type": "object", "properties": {property: schema}})
                .as_object()
                .cloned()
                .unwrap(),
        };
        assert!(
            matches!(
                elicitation_to_interaction(&binding("id"), &elicitation),
                Err(Unmappable::Property { property: p, .. }) if p == property
            ),
            "{schema}"
        );
    }
    let blank = ElicitationRequest {
        message: String::new(),
        requested_schema: json!({"type": "object", "properties": {}})
            .as_object()
            .cloned()
            .unwrap(),
    };
    assert!(matches!(
        elicitation_to_interaction(&binding("id"), &blank),
        Err(Unmappable::Invalid(_))
    ));
}

/// A field this contract and MCP can both express, with a valid answer
/// for it (as MCP content) and one of the wrong type.
fn field() -> impl Strategy<Value = (Value, Value, Value)> {
    let required = prop::option::of(Just(true));
    let text = (prop::option::of(1u64..40), "[a-z]{1,12}", required.clone()).prop_map(
        |(max, answer, required)| {
            let mut field = json!({"label": "Text", "type": "text"});
            if let Some(max) = max {
                field["maxLength"] = json!(max);
            }
            if let Some(required) = required {
                field["required"] = json!(required);
            }
            let limit = max.unwrap_or(40) as usize;
            let answer: String = answer.chars().take(limit).collect();
            (field, json!(answer), json!(7))
        },
    );
    let number =
        (-1000i64..1000, 0i64..1000, required.clone()).prop_map(|(min, span, required)| {
            let mut field =
                json!({"label": "Number", "type": "number", "min": min, "max": min + span});
            if let Some(required) = required {
                field["required"] = json!(required);
            }
            (field, json!(min + span / 2), json!("many"))
        });
    let boolean = (any::<bool>(), required.clone()).prop_map(|(answer, required)| {
        let mut field = json!({"label": "Yes?", "type": "boolean"});
        if let Some(required) = required {
            field["required"] = json!(required);
        }
        (field, json!(answer), json!("yes"))
    });
    let select = (
        1usize..5,
        any::<bool>(),
        any::<prop::sample::Index>(),
        required,
    )
        .prop_map(|(count, multi, pick, required)| {
            let options: Vec<Value> = (0..count)
                .map(|i| json!({"value": format!("v{i}"), "label": format!("Option {i}")}))
                .collect();
            let mut field = json!({"label": "Pick", "type": "select", "options": options});
            if multi {
                field["multi"] = json!(true);
            }
            if let Some(required) = required {
                field["required"] = json!(required);
            }
            let chosen = format!("v{}", pick.index(count));
            let answer = if multi {
                json!([chosen])
            } else {
                json!(chosen)
            };
            (field, answer, json!({"no": "object"}))
        });
    prop_oneof![text, number, boolean, select]
}

proptest! {
    #[test]
    fn a_mapped_spec_validates_the_same_through_mcp(
        fields in prop::collection::vec(field(), 1..5),
        broken in any::<prop::sample::Index>(),
    ) {
        let mut spec = Vec::new();
        let mut valid = Map::new();
        for (i, (mut field, answer, _)) in fields.iter().cloned().enumerate() {
            field["name"] = json!(format!("f{i}"));
            spec.push(field);
            valid.insert(format!("f{i}"), answer);
        }
        let request = request(Value::Array(spec));
        let elicitation = interaction_to_elicitation(&request).unwrap();
        let back = elicitation_to_interaction(request.binding(), &elicitation).unwrap();
        prop_assert_eq!(back.answer_spec(), request.answer_spec(), "the spec survives the round trip");

        let accept = |content: &Map<String, Value>| ElicitationResult {
            action: ElicitationAction::Accept,
            content: Some(content.clone()),
        };
        let response = elicitation_to_response(&request, &accept(&valid));
        prop_assert!(response.is_ok(), "{:?}", response);

        // The same answer with one value of the wrong type: MCP's way and
        // the direct way report the same problems.
        let which = broken.index(fields.len());
        let mut invalid = valid.clone();
        invalid.insert(format!("f{which}"), fields[which].2.clone());
        let through_mcp = elicitation_to_response(&request, &accept(&invalid)).unwrap_err();
        let mut direct = invalid.clone();
        for (name, value) in direct.iter_mut() {
            if let (Some(InteractionField::Select(_)), Value::String(one)) = (request.answer_spec().field(name), &*value) {
                *value = json!([one]);
            }
        }
        let direct = validate_interaction_response(
            &request,
            &json!({"id": request.id(), "outcome": "accepted", "data": direct}),
        )
        .unwrap_err();
        let codes = |problems: &[ResponseProblem]| problems.iter().map(ResponseProblem::code).collect::<Vec<_>>();
        prop_assert_eq!(codes(&through_mcp), codes(&direct));
    }
}
