//! Specs and requests outside 0.44's types, given as plain JSON to the
//! 0.44 validators: each is answered as the 0.44.0 reference answers it
//! under Node 20. The reference reads each part of a spec or request only
//! when its checks reach it: a field that is not an object is a field
//! with no name, type or rules (only a `null` one throws); a field's name
//! is used as `String(name)` (the key it is read under and the name its
//! problems carry), though only a string name makes a data key known; a
//! select's options are read only once its answer is a list; and
//! `responseScopes` only for a grant that needs a scope. Each expected
//! value below is the reference's, its messages written as this crate's
//! problem codes (`unreadable_*` where it throws).

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_interaction::{AnswerProblem, ResponseProblem, v0_44};
use serde_json::{Value, json};

/// The codes 0.44 answers an answer checked against `spec` with; empty
/// when it accepts.
fn answer(spec: Value, data: Value) -> Vec<String> {
    v0_44::validate_interaction_answer_json(&spec, data.as_object())
        .err()
        .map(|problems| problems.iter().map(AnswerProblem::code).collect())
        .unwrap_or_default()
}

/// The codes 0.44 answers `response` to `request` with; empty when it
/// accepts.
fn response(request: Value, response: Value) -> Vec<String> {
    v0_44::validate_interaction_response_json(&request, &response)
        .err()
        .map(|problems| problems.iter().map(ResponseProblem::code).collect())
        .unwrap_or_default()
}

/// An accepted response to `q` with `data`.
fn accepted(data: Value) -> Value {
    json!({"id": "q", "outcome": "accepted", "data": data})
}

/// A permission request `q` with an empty spec and `scopes`.
fn permission(scopes: Value) -> Value {
    json!({"id": "q", "kind": "permission", "answerSpec": {"fields": []}, "responseScopes": scopes})
}

const NONE: [&str; 0] = [];

#[test]
fn a_field_that_is_a_number_has_no_name_and_no_rules() {
    // `(5).name` is undefined: the field is read under the key "undefined".
    assert_eq!(answer(json!({"fields": [5]}), json!({})), NONE);
    assert_eq!(
        answer(json!({"fields": [5]}), json!({"undefined": 1})),
        ["unknown_field:undefined"]
    );
}

#[test]
fn a_field_that_is_an_array_has_no_name_and_no_rules() {
    assert_eq!(
        answer(json!({"fields": [["x"]]}), json!({"x": 1})),
        ["unknown_field:x"]
    );
}

#[test]
fn fields_that_are_a_string_or_a_boolean_have_no_name_and_no_rules() {
    assert_eq!(
        answer(json!({"fields": ["s"]}), json!({"s": "x"})),
        ["unknown_field:s"]
    );
    let spec = json!({"fields": [true, {"name": "a", "type": "boolean", "required": true}]});
    assert_eq!(answer(spec, json!({})), ["missing_required:a"]);
}

#[test]
fn a_number_name_is_read_as_its_string_but_never_makes_a_key_known() {
    let spec = json!({"fields": [{"name": 5, "type": "number", "required": true}]});
    assert_eq!(answer(spec.clone(), json!({})), ["missing_required:5"]);
    assert_eq!(
        answer(spec, json!({"5": "x"})),
        ["unknown_field:5", "not_a_finite_number:5"]
    );
    let spec = json!({"fields": [{"name": 1.5, "type": "number", "max": 1}]});
    assert_eq!(
        answer(spec, json!({"1.5": 3})),
        ["unknown_field:1.5", "above_max:1.5"]
    );
}

#[test]
fn a_null_name_is_named_null() {
    let spec = json!({"fields": [{"name": null, "type": "text", "required": true}]});
    assert_eq!(answer(spec, json!({})), ["missing_required:null"]);
}

#[test]
fn a_missing_name_is_named_undefined() {
    let spec = json!({"fields": [{"type": "text", "label": "T"}]});
    assert_eq!(
        answer(spec, json!({"undefined": 3})),
        ["unknown_field:undefined", "not_a_string:undefined"]
    );
}

#[test]
fn an_array_name_is_its_items_joined_by_commas() {
    let spec = json!({"fields": [{"name": ["a", "b"], "type": "boolean"}]});
    assert_eq!(
        answer(spec, json!({"a,b": 1})),
        ["unknown_field:a,b", "not_a_boolean:a,b"]
    );
    let spec = json!({"fields": [{"name": [null, [1, 2]], "required": true}]});
    assert_eq!(answer(spec, json!({})), ["missing_required:,1,2"]);
}

#[test]
fn an_object_name_is_object_object() {
    let spec = json!({"fields": [{"name": {}, "type": "select", "options": [{"value": "x"}]}]});
    assert_eq!(
        answer(spec, json!({"[object Object]": ["y"]})),
        [
            "unknown_field:[object Object]",
            "invalid_option:[object Object]:y"
        ]
    );
}

#[test]
fn a_name_that_reads_as_a_prototype_member_is_never_absent() {
    // `data[["constructor"]]` is `data.constructor`: a function.
    let spec = json!({"fields": [{"name": ["constructor"], "type": "text"}]});
    assert_eq!(answer(spec, json!({})), ["not_a_string:constructor"]);
}

#[test]
fn a_boolean_name_is_true_or_false() {
    let spec = json!({"fields": [{"name": true, "type": "boolean", "required": true}]});
    assert_eq!(
        answer(spec, json!({"true": "yes"})),
        ["unknown_field:true", "not_a_boolean:true"]
    );
}

#[test]
fn a_select_without_options_is_read_until_its_answer_is_a_list() {
    let spec = json!({"fields": [{"name": "s", "type": "select"}]});
    assert_eq!(answer(spec.clone(), json!({})), NONE);
    assert_eq!(answer(spec.clone(), json!({"s": "a"})), ["not_an_array:s"]);
    // With a list, `field.options.map` throws.
    assert_eq!(answer(spec, json!({"s": []})), ["unreadable_spec"]);
    let required = json!({"fields": [{"name": "s", "type": "select", "required": true}]});
    assert_eq!(answer(required, json!({"s": ""})), ["missing_required:s"]);
}

#[test]
fn a_select_whose_options_are_not_a_list_is_read_until_its_answer_is_a_list() {
    let string = json!({"fields": [{"name": "s", "type": "select", "options": "abc"}]});
    assert_eq!(answer(string.clone(), json!({"s": 5})), ["not_an_array:s"]);
    assert_eq!(answer(string, json!({"s": ["a"]})), ["unreadable_spec"]);
    let object = json!({"fields": [{"name": "s", "type": "select", "options": {}}]});
    assert_eq!(answer(object, json!({"s": ["a"]})), ["unreadable_spec"]);
    let null_option = json!({"fields": [{"name": "s", "type": "select", "options": [null]}]});
    assert_eq!(answer(null_option, json!({"s": "a"})), ["not_an_array:s"]);
    let null =
        json!({"fields": [{"name": "s", "type": "select", "options": null, "required": true}]});
    assert_eq!(answer(null, json!({"s": true})), ["not_an_array:s"]);
}

#[test]
fn a_null_field_still_throws_wherever_it_stands() {
    let spec = json!({"fields": [{"name": "a"}, null]});
    assert_eq!(answer(spec, json!({})), ["unreadable_spec"]);
}

#[test]
fn number_scopes_are_not_read_for_a_deny() {
    assert_eq!(
        response(permission(json!(5)), accepted(json!({"grant": ["deny"]}))),
        ["unknown_field:grant"]
    );
}

#[test]
fn number_scopes_are_not_read_without_exactly_one_grant() {
    assert_eq!(
        response(permission(json!(5)), accepted(json!({}))),
        ["grant_count"]
    );
    assert_eq!(
        response(
            permission(json!(7)),
            accepted(json!({"grant": ["allow_once", "deny"]}))
        ),
        ["unknown_field:grant", "grant_count"]
    );
}

#[test]
fn scopes_that_are_not_iterable_throw_for_a_grant_that_needs_a_scope() {
    for scopes in [json!(5), json!(true), json!({})] {
        assert_eq!(
            response(
                permission(scopes.clone()),
                accepted(json!({"grant": ["allow_session"]}))
            ),
            ["unreadable_request"],
            "{scopes}"
        );
    }
}

#[test]
fn string_scopes_are_a_set_of_characters_which_permits_no_scope() {
    let request = json!({"id": "q", "kind": "permission", "responseScopes": "interaction",
        "answerSpec": {"fields": [{"name": "grant", "type": "select", "options": [{"value": "allow_once"}]}]}});
    assert_eq!(
        response(request, accepted(json!({"grant": ["allow_once"]}))),
        ["grant_exceeds_scopes:allow_once"]
    );
    assert_eq!(
        response(
            permission(json!("")),
            accepted(json!({"grant": ["allow_session"]}))
        ),
        ["unknown_field:grant", "grant_exceeds_scopes:allow_session"]
    );
}

#[test]
fn string_scopes_are_not_read_for_an_invalid_grant() {
    assert_eq!(
        response(
            permission(json!("session")),
            accepted(json!({"grant": ["nope"]}))
        ),
        ["unknown_field:grant", "invalid_grant:nope"]
    );
}

#[test]
fn a_request_spec_outside_the_types_is_read_as_an_answer_spec_is() {
    let request = json!({"id": "q", "kind": "permission",
        "answerSpec": {"fields": [3, {"name": 7, "type": "select"}]}});
    assert_eq!(
        response(
            request,
            accepted(json!({"grant": ["allow_once"], "7": "x"}))
        ),
        ["unknown_field:7", "unknown_field:grant", "not_an_array:7"]
    );
    let request = json!({"id": "q", "kind": "permission", "responseScopes": "x",
        "answerSpec": {"fields": [{"name": "grant", "type": "select", "required": true}]}});
    assert_eq!(
        response(request, accepted(json!({"grant": "deny"}))),
        ["not_an_array:grant", "grant_count"]
    );
}

#[test]
fn scopes_of_another_kind_or_outcome_are_never_read() {
    let question = json!({"id": "q", "kind": "question", "answerSpec": {"fields": []}, "responseScopes": true});
    assert_eq!(response(question, accepted(json!({}))), NONE);
    let declined = json!({"id": "q", "outcome": "declined"});
    assert_eq!(
        response(
            json!({"id": "q", "kind": "permission", "responseScopes": 1}),
            declined
        ),
        NONE
    );
}
