//! What a provider of the contract decides: how an interaction it keeps
//! stands at a moment (its timeout applied), and how a response command
//! delivered to it ends. Pure, so that a store can run the decision inside
//! the commit that applies it, and every process of that store decides
//! alike.

use crate::digest::Sha256Digest;
use crate::envelope::{
    InteractionAcknowledgement, InteractionAcknowledgementStatus, InteractionRequest,
    InteractionResponse, InteractionResponseCommand, OnTimeout,
};
use crate::limits::CONTRACT_MAX_STRING_LENGTH;
use crate::response_validation::check_response;

/// Where an interaction a provider keeps stands.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InteractionState {
    /// Waiting for its person.
    Pending,
    /// Answered: the response that resolved it (its default, when its
    /// timeout resolved it).
    Resolved(InteractionResponse),
    /// Its timeout ran out under `onTimeout: "fail"`.
    Expired,
    /// Its asker took it back.
    Cancelled,
}

impl InteractionState {
    /// The state's name on the wire: `pending`, `resolved`, `expired` or
    /// `cancelled`.
    pub fn as_str(&self) -> &'static str {
        match self {
            InteractionState::Pending => "pending",
            InteractionState::Resolved(_) => "resolved",
            InteractionState::Expired => "expired",
            InteractionState::Cancelled => "cancelled",
        }
    }
}

/// An interaction as a provider keeps it: the request it accepted, when
/// (its timeout counts from then), and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvidedInteraction {
    /// The request as accepted.
    pub request: InteractionRequest,
    /// When the provider accepted it, in milliseconds since the Unix epoch.
    pub accepted_at_ms: u64,
    /// Where it stands, as last stored (see [`ProvidedInteraction::state_at`]).
    pub state: InteractionState,
}

impl ProvidedInteraction {
    /// A request just accepted at `accepted_at_ms`: pending.
    pub fn accepted(request: InteractionRequest, accepted_at_ms: u64) -> Self {
        ProvidedInteraction {
            request,
            accepted_at_ms,
            state: InteractionState::Pending,
        }
    }

    /// When its timeout acts, if it ever does: a `timeoutMs` with
    /// `onTimeout` `fail` or `default`. Unset, `onTimeout` waits.
    pub fn deadline_ms(&self) -> Option<u64> {
        let timeout = self.request.timeout_ms()?;
        match self.request.on_timeout()? {
            OnTimeout::Fail | OnTimeout::Default => {
                Some(self.accepted_at_ms.saturating_add(timeout))
            }
            OnTimeout::Wait => None,
        }
    }

    /// Where it stands at `now_ms`: a pending interaction whose deadline
    /// has come is expired (`fail`) or resolved with the request's default
    /// (`default`); anything else stands as stored. A caller that finds
    /// this differs from [`state`](Self::state) stores it, once: whichever
    /// process notices first.
    ///
    /// ```
    /// use index_interaction::*;
    /// let request = InteractionRequest::from_material(&serde_json::json!({
    ///     "id": "q-1", "kind": "question", "title": "Lunch?", "timeoutMs": 1000, "onTimeout": "fail",
    ///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean"}]},
    ///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
    ///                 "sessionId": "s", "executionId": "x", "interactionId": "q-1"},
    /// }))?;
    /// let asked = ProvidedInteraction::accepted(request, 5_000);
    /// assert_eq!(asked.state_at(5_999), InteractionState::Pending);
    /// assert_eq!(asked.state_at(6_000), InteractionState::Expired);
    /// # Ok::<(), InvalidInteraction>(())
    /// ```
    pub fn state_at(&self, now_ms: u64) -> InteractionState {
        let due = self
            .deadline_ms()
            .is_some_and(|deadline| deadline <= now_ms);
        if self.state != InteractionState::Pending || !due {
            return self.state.clone();
        }
        match (self.request.on_timeout(), self.request.default()) {
            (Some(OnTimeout::Default), Some(default)) => {
                InteractionState::Resolved(InteractionResponse {
                    id: self.request.id().to_owned(),
                    outcome: default.outcome,
                    data: default.data.clone(),
                })
            }
            // A request cannot say `default` without one; were it to, it
            // fails closed.
            _ => InteractionState::Expired,
        }
    }

    /// What its asker taking it back at `now_ms` leaves: cancelled if it
    /// still waits then, and otherwise where it stands (a cancel never
    /// undoes an answer).
    pub fn cancelled_at(&self, now_ms: u64) -> InteractionState {
        match self.state_at(now_ms) {
            InteractionState::Pending => InteractionState::Cancelled,
            settled => settled,
        }
    }
}

/// What a provider knows of where a response command is bound, read
/// inside the commit that will apply the decision.
#[derive(Debug, Clone, Copy)]
pub struct ResponseScene<'a> {
    /// The acknowledgement already recorded under the command's
    /// operation id, if any.
    pub replay: Option<&'a InteractionAcknowledgement>,
    /// Whether the answering person has any interaction in the command's
    /// run.
    pub run_known: bool,
    /// Whether that run has any interaction in the command's environment
    /// and session.
    pub session_known: bool,
    /// The person's interaction with the command's id in that run,
    /// environment and session, if any.
    pub interaction: Option<&'a ProvidedInteraction>,
}

/// How a response command ends.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseDecision {
    /// Its operation id was seen before: the acknowledgement recorded then
    /// answers it again, exactly as recorded, and nothing changes.
    Replayed,
    /// A new acknowledgement, to be recorded under the operation id, with
    /// the interaction's new state when it changes (an answer accepted, or
    /// a timeout noticed).
    Acknowledged {
        /// The acknowledgement (boxed: a decision is made once per
        /// command and moved on at once).
        acknowledgement: Box<InteractionAcknowledgement>,
        /// The interaction's state from now on, when it differs from the
        /// stored one.
        state: Option<InteractionState>,
    },
}

/// Decides how `command` ends against what the provider keeps, at
/// `now_ms`. The first that applies, in the contract's order: a replayed
/// operation id; an unknown run (`unknown_run`); an environment or session
/// the run does not have (`binding_mismatch`); an unknown interaction
/// (`unknown_interaction`); the rest of the binding (provider, execution,
/// the request's digest: `binding_mismatch`); a response the request does
/// not accept (`invalid_response`); an interaction no longer pending
/// (`expired`, `cancelled`, `already_resolved_same` or
/// `already_resolved_different`); and otherwise `accepted`, which resolves
/// it.
///
/// ```
/// use index_interaction::*;
/// let request = InteractionRequest::from_material(&serde_json::json!({
///     "id": "q-1", "kind": "question", "title": "Lunch?",
///     "answerSpec": {"fields": [{"name": "go", "label": "Go", "type": "boolean"}]},
///     "binding": {"runId": "r", "provider": "p", "environmentId": "e",
///                 "sessionId": "s", "executionId": "x", "interactionId": "q-1"},
/// }))?;
/// let asked = ProvidedInteraction::accepted(request.clone(), 0);
/// let response = validate_interaction_response(
///     &request, &serde_json::json!({"id": "q-1", "outcome": "accepted", "data": {"go": true}})).unwrap();
/// let command = InteractionResponseCommand::new("op-1", request.command_binding(), response);
/// let scene = ResponseScene { replay: None, run_known: true, session_known: true, interaction: Some(&asked) };
/// let ResponseDecision::Acknowledged { acknowledgement, state } =
///     decide_interaction_response(&scene, &command, 10) else { unreachable!() };
/// assert_eq!(acknowledgement.status, InteractionAcknowledgementStatus::Accepted);
/// assert!(matches!(state, Some(InteractionState::Resolved(_))));
/// # Ok::<(), InvalidInteraction>(())
/// ```
pub fn decide_interaction_response(
    scene: &ResponseScene<'_>,
    command: &InteractionResponseCommand,
    now_ms: u64,
) -> ResponseDecision {
    use InteractionAcknowledgementStatus as Status;
    if scene.replay.is_some() {
        return ResponseDecision::Replayed;
    }
    let unchanged = |status, message| ResponseDecision::Acknowledged {
        acknowledgement: Box::new(acknowledge(command, status, message)),
        state: None,
    };
    if !scene.run_known {
        return unchanged(Status::UnknownRun, None);
    }
    if !scene.session_known {
        return unchanged(Status::BindingMismatch, None);
    }
    let Some(interaction) = scene.interaction else {
        return unchanged(Status::UnknownInteraction, None);
    };
    if command.binding != interaction.request.command_binding() {
        return unchanged(Status::BindingMismatch, None);
    }
    let now = interaction.state_at(now_ms);
    // A timeout noticed here is stored whatever the command's fate.
    let noticed = (now != interaction.state).then(|| now.clone());
    let status = match check_response(&interaction.request, &command.response) {
        Err(problems) => {
            return ResponseDecision::Acknowledged {
                acknowledgement: Box::new(acknowledge(
                    command,
                    Status::InvalidResponse,
                    Some(problems.to_string()),
                )),
                state: noticed,
            };
        }
        Ok(()) => match &now {
            InteractionState::Pending => Status::Accepted,
            InteractionState::Expired => Status::Expired,
            InteractionState::Cancelled => Status::Cancelled,
            InteractionState::Resolved(resolved) if same_response(resolved, &command.response) => {
                Status::AlreadyResolvedSame
            }
            InteractionState::Resolved(_) => Status::AlreadyResolvedDifferent,
        },
    };
    let state = if status == Status::Accepted {
        Some(InteractionState::Resolved(command.response.clone()))
    } else {
        noticed
    };
    ResponseDecision::Acknowledged {
        acknowledgement: Box::new(acknowledge(command, status, None)),
        state,
    }
}

/// The acknowledgement a provider gives when it cannot record `command`
/// (its store failed): `transport_failure`, safe to retry under the same
/// operation id, since nothing was applied.
pub fn transport_failure(
    command: &InteractionResponseCommand,
    message: &str,
) -> InteractionAcknowledgement {
    let mut acknowledgement = acknowledge(
        command,
        InteractionAcknowledgementStatus::TransportFailure,
        Some(message.to_owned()),
    );
    acknowledgement.retryable = Some(true);
    acknowledgement
}

/// Whether two responses say the same: compared by their canonical JSON,
/// so member order and how a number was written make no difference.
fn same_response(a: &InteractionResponse, b: &InteractionResponse) -> bool {
    let digest = |response: &InteractionResponse| {
        serde_json::to_value(response)
            .ok()
            .map(|json| Sha256Digest::of_json(&json))
    };
    a.outcome == b.outcome && digest(a).is_some() && digest(a) == digest(b)
}

/// An acknowledgement of `command` with `status`, echoing its operation
/// id, binding and digest. A message is kept within the contract's string
/// bound (and never empty), so the acknowledgement always reads back.
fn acknowledge(
    command: &InteractionResponseCommand,
    status: InteractionAcknowledgementStatus,
    message: Option<String>,
) -> InteractionAcknowledgement {
    let message = message.map(|message| {
        let units: Vec<u16> = message
            .encode_utf16()
            .take(CONTRACT_MAX_STRING_LENGTH)
            .collect();
        let kept = String::from_utf16_lossy(&units);
        if kept.is_empty() {
            status.as_str().to_owned()
        } else {
            kept
        }
    });
    InteractionAcknowledgement {
        operation_id: command.operation_id.clone(),
        binding: command.binding.clone(),
        command_digest: command.command_digest.clone(),
        status,
        message,
        retryable: None,
    }
}
