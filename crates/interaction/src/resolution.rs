//! Resolving a request: what an outcome and its data must be for the
//! request they answer (a declined or cancelled one carries no answer; an
//! accepted one is a valid answer and, for a permission, a grant within
//! the request's scopes), in 0.46 and as 0.44 had it.

use serde_json::{Map, Value};

use crate::answer_validation::{AnswerProblem, FieldRules, answer_problems, typed_problems};
use crate::data::InteractionOutcome;
use crate::fields::{InteractionAnswerSpec, InteractionField, InteractionResponseScope};
use crate::js::{js_keys, js_string};
use crate::permissions::{InteractionKind, PERMISSION_GRANT_FIELD, PermissionGrant};
use crate::zod::Version;

/// What resolving a request reads of it: its kind, spec and scopes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResolutionRequest<'a> {
    pub(crate) kind: &'a InteractionKind,
    pub(crate) answer_spec: &'a InteractionAnswerSpec,
    pub(crate) response_scopes: Option<&'a [InteractionResponseScope]>,
}

/// What is wrong with resolving `request` with `outcome` and `data`, as
/// 0.46 sees it: a declined or cancelled resolution carries no answer
/// (and no secret); an accepted one's answer is checked and, for a
/// permission, its grant.
pub(crate) fn resolution_problems(
    request: &ResolutionRequest<'_>,
    outcome: InteractionOutcome,
    data: Option<&Map<String, Value>>,
) -> Vec<AnswerProblem> {
    if outcome != InteractionOutcome::Accepted {
        let empty = Map::new();
        let keys = js_keys(data.unwrap_or(&empty));
        let mut problems: Vec<AnswerProblem> = keys
            .iter()
            .filter(|key| {
                matches!(
                    request.answer_spec.field(key),
                    Some(InteractionField::Secret(_))
                )
            })
            .map(|key| AnswerProblem::SecretOnUnaccepted((*key).clone(), outcome))
            .collect();
        if !keys.is_empty() {
            problems.push(AnswerProblem::AnswerOnUnaccepted(outcome));
        }
        return problems;
    }
    let json = data.cloned().map(Value::Object);
    let mut problems = answer_problems(request.answer_spec, json.as_ref());
    problems.extend(permission_problems(request, data));
    problems
}

/// A permission answer's grant problems (none for other kinds).
pub(crate) fn permission_problems(
    request: &ResolutionRequest<'_>,
    data: Option<&Map<String, Value>>,
) -> Option<AnswerProblem> {
    if *request.kind != InteractionKind::Permission {
        return None;
    }
    let permitted = request
        .response_scopes
        .unwrap_or(&[InteractionResponseScope::Interaction]);
    grant_problems(data, permitted)
}

/// A permission answer's grant problems: exactly one grant, a known one,
/// within the request's scopes.
pub(crate) fn grant_problems(
    data: Option<&Map<String, Value>>,
    permitted: &[InteractionResponseScope],
) -> Option<AnswerProblem> {
    read_grant(data).map_or_else(Some, |grant| scope_problem(grant, permitted))
}

/// A permission answer's grant: exactly one, a known one.
pub(crate) fn read_grant(
    data: Option<&Map<String, Value>>,
) -> Result<PermissionGrant, AnswerProblem> {
    let grant = data
        .and_then(|d| d.get(PERMISSION_GRANT_FIELD))
        .and_then(Value::as_array);
    let Some([grant]) = grant.map(Vec::as_slice) else {
        return Err(AnswerProblem::GrantCount);
    };
    grant
        .as_str()
        .and_then(PermissionGrant::from_name)
        .ok_or_else(|| AnswerProblem::InvalidGrant(js_string(grant)))
}

/// Whether `grant` needs a scope `permitted` lacks (deny needs none).
pub(crate) fn scope_problem(
    grant: PermissionGrant,
    permitted: &[InteractionResponseScope],
) -> Option<AnswerProblem> {
    grant
        .required_scope()
        .is_some_and(|scope| !permitted.contains(&scope))
        .then(|| AnswerProblem::GrantExceedsScopes(grant.as_str().to_owned()))
}

/// 0.44's resolution: nothing to check unless accepted; then the answer,
/// read through the prototype chain, and for a permission its grant.
pub(crate) fn resolution_problems_0_44(
    request: &ResolutionRequest<'_>,
    outcome: InteractionOutcome,
    data: Option<&Map<String, Value>>,
) -> Vec<AnswerProblem> {
    if outcome != InteractionOutcome::Accepted {
        return Vec::new();
    }
    let rules: Vec<FieldRules<'_>> = request
        .answer_spec
        .fields
        .iter()
        .map(FieldRules::from)
        .collect();
    let mut problems = typed_problems(&rules, data, Version::V0_44);
    problems.extend(permission_problems(request, data));
    problems
}
