//! The host as a provider of the interaction contract: an agent asks its
//! person for typed input (answer these fields, grant this permission,
//! approve this plan), the person answers with a response command, and
//! the asking agent reads the validated response.
//!
//! The store keeps each interaction as a record whose body is the request
//! and the response that resolved it; what happens to a command is
//! `index_interaction::decide_interaction_response`, run inside the
//! store's commit, so a retried command gets the same acknowledgement on
//! every host and racing commands have one winner. A timeout is applied
//! by whichever host notices it first, once.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use index_interaction::{
    InteractionAcknowledgementStatus, InteractionRequest, InteractionResponse,
    InteractionResponseCommand, InteractionState, ProvidedInteraction, ResponseDecision,
    decide_interaction_response, transport_failure,
};
use index_negotiation_store::{
    InteractionCursor, InteractionFilter, InteractionInsert, InteractionRecord, InteractionStatus,
    ResponseKey, ResponseWrite, StoreError,
};

use crate::service::error::HostError;
use crate::service::host::Host;
use crate::service::keys::Caller;
use crate::service::wire::{DEFAULT_PAGE, MAX_PAGE, MAX_WAIT};

/// How many interactions a person holds; when every one is pending, the
/// next ask is refused (`too_many_interactions`) until one settles.
pub const MOST_INTERACTIONS: usize = 64;

/// An interaction as its asker and its person see it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InteractionView {
    /// The request as accepted: the contract's `InteractionRequest`, its
    /// `requestDigest` included.
    #[schemars(with = "ContractObject")]
    pub request: InteractionRequest,
    /// `pending`, `resolved`, `expired` or `cancelled`.
    pub status: InteractionStatus,
    /// When the host accepted it, in milliseconds since the Unix epoch.
    pub accepted_at: u64,
    /// When its timeout acts, in milliseconds since the Unix epoch; absent
    /// when it waits for good.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    /// The response that resolved it: the person's, or the request's
    /// default when its time ran out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ContractObject>")]
    pub response: Option<InteractionResponse>,
}

/// A JSON object of the interaction contract: its schema says only
/// "object", since the contract's own rules (which no JSON Schema can
/// state whole) check it.
pub(crate) type ContractObject = serde_json::Map<String, Value>;

/// A page of the caller's interactions, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InteractionPage {
    /// The interactions; a page may hold fewer than asked when some
    /// stopped being pending as it was read.
    pub interactions: Vec<InteractionView>,
    /// Where the next page starts, when there may be one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `GET /interactions`'s query.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InteractionQuery {
    /// Only those with this status.
    pub status: Option<InteractionStatus>,
    /// At most this many (default 50).
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<u64>,
    /// The `nextCursor` of the page before.
    pub cursor: Option<String>,
}

impl InteractionQuery {
    /// The store's filter for this query.
    fn filter(&self) -> Result<InteractionFilter, HostError> {
        let limit = match self.limit {
            None => DEFAULT_PAGE,
            Some(limit @ 1..) if limit <= MAX_PAGE as u64 => {
                usize::try_from(limit).unwrap_or(MAX_PAGE)
            }
            Some(_) => {
                return Err(HostError::BadRequest(format!("limit is 1 to {MAX_PAGE}")));
            }
        };
        let after = self
            .cursor
            .as_deref()
            .map(|cursor| {
                cursor
                    .split_once(':')
                    .and_then(|(ms, id)| {
                        Some(InteractionCursor {
                            created_at_ms: ms.parse().ok()?,
                            id: id.to_owned(),
                        })
                    })
                    .ok_or_else(|| HostError::BadRequest("cursor is not one this host gave".into()))
            })
            .transpose()?;
        Ok(InteractionFilter {
            status: self.status,
            after,
            limit,
        })
    }
}

/// Whether an ask stored a new interaction or found the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Asked {
    /// Stored now.
    Created,
    /// The person had it already, with the same content.
    Existing,
}

/// What the store keeps of an interaction besides its indexed columns.
#[derive(Serialize, Deserialize)]
struct Body {
    request: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response: Option<Value>,
}

/// The time now, in milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The stored record read back as the contract's interaction. A record
/// that does not read (written around the host) is a store failure.
fn provided(record: &InteractionRecord) -> Result<ProvidedInteraction, HostError> {
    let corrupt = |what: String| {
        HostError::Store(StoreError::Corrupt(format!(
            "interaction {:?}: {what}",
            record.id
        )))
    };
    let body: Body = serde_json::from_str(&record.body).map_err(|e| corrupt(e.to_string()))?;
    let request =
        InteractionRequest::from_json_value(&body.request).map_err(|e| corrupt(e.to_string()))?;
    let response = body
        .response
        .as_ref()
        .map(InteractionResponse::from_json_value)
        .transpose()
        .map_err(|e| corrupt(e.to_string()))?;
    let state = match (record.status, response) {
        (InteractionStatus::Pending, None) => InteractionState::Pending,
        (InteractionStatus::Resolved, Some(response)) => InteractionState::Resolved(response),
        (InteractionStatus::Expired, None) => InteractionState::Expired,
        (InteractionStatus::Cancelled, None) => InteractionState::Cancelled,
        (status, _) => {
            return Err(corrupt(format!(
                "{} with or without a response",
                status.as_str()
            )));
        }
    };
    Ok(ProvidedInteraction {
        request,
        accepted_at_ms: record.created_at_ms,
        state,
    })
}

/// `record` changed to `state`, as a replacement of the version read.
/// A state as the store indexes it, and the response it carries (the
/// inverse of what [`provided`] reads back).
fn stored_as(state: &InteractionState) -> (InteractionStatus, Option<&InteractionResponse>) {
    match state {
        InteractionState::Resolved(response) => (InteractionStatus::Resolved, Some(response)),
        InteractionState::Expired => (InteractionStatus::Expired, None),
        InteractionState::Cancelled => (InteractionStatus::Cancelled, None),
        _ => (InteractionStatus::Pending, None),
    }
}

fn with_state(
    record: &InteractionRecord,
    state: &InteractionState,
) -> Result<InteractionRecord, HostError> {
    let mut body: Body = serde_json::from_str(&record.body)
        .map_err(|e| HostError::Store(StoreError::Corrupt(e.to_string())))?;
    let (status, response) = stored_as(state);
    body.response = response.map(to_json);
    Ok(InteractionRecord {
        status,
        body: to_text(&body),
        ..record.clone()
    })
}

// The contract's types and the body serialize to JSON without fail:
// plain structs and maps with string keys.
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `value` as JSON text, its members in the contract's order.
fn to_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn view(interaction: &ProvidedInteraction, now: &InteractionState) -> InteractionView {
    let (status, response) = stored_as(now);
    InteractionView {
        request: interaction.request.clone(),
        status,
        accepted_at: interaction.accepted_at_ms,
        deadline: interaction.deadline_ms(),
        response: response.cloned(),
    }
}

impl Host {
    /// Asks the caller's person `request` (the contract's
    /// `InteractionRequest`, 0.46; its `requestDigest`, if sent, must
    /// match its content, and is computed when left out).
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for a request the contract refuses;
    /// [`HostError::InteractionExists`] when the person has one with that
    /// id and other content; [`HostError::TooManyInteractions`] when they
    /// have [`MOST_INTERACTIONS`] pending.
    pub async fn ask(
        &self,
        caller: &Caller,
        request: &Value,
    ) -> Result<(Asked, InteractionView), HostError> {
        let read = if request.get("requestDigest").is_some() {
            InteractionRequest::from_json_value(request)
        } else {
            InteractionRequest::from_material(request)
        };
        let request = read.map_err(|invalid| HostError::BadRequest(invalid.to_string()))?;
        let binding = request.binding();
        // What timed out is settled first, so it makes room.
        self.sweep(caller).await?;
        let asked = ProvidedInteraction::accepted(request.clone(), now_ms());
        let record = InteractionRecord {
            owner: caller.user_id.clone(),
            id: request.id().to_owned(),
            run_id: binding.run_id.clone(),
            environment_id: binding.environment_id.clone(),
            session_id: binding.session_id.clone(),
            status: InteractionStatus::Pending,
            created_at_ms: asked.accepted_at_ms,
            version: 0,
            body: to_text(&Body {
                request: to_json(&request),
                response: None,
            }),
        };
        match self
            .store()
            .insert_interaction(&record, MOST_INTERACTIONS, &caller.actor())
            .await?
        {
            InteractionInsert::Inserted => {
                self.changed();
                Ok((Asked::Created, view(&asked, &asked.state)))
            }
            InteractionInsert::Exists(held) => {
                let (held, now) = self.noticed(held).await?;
                if held.request.request_digest() == request.request_digest() {
                    Ok((Asked::Existing, view(&held, &now)))
                } else {
                    Err(HostError::InteractionExists)
                }
            }
            _ => Err(HostError::TooManyInteractions),
        }
    }

    /// The caller's interaction `id`, its timeout applied.
    ///
    /// # Errors
    ///
    /// [`HostError::NoInteraction`] when the caller's person has none with
    /// that id (another person's answers alike).
    pub async fn interaction(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<InteractionView, HostError> {
        let record = self.find_interaction(caller, id).await?;
        let (interaction, now) = self.noticed(record).await?;
        Ok(view(&interaction, &now))
    }

    /// [`Host::interaction`] once it stops being pending, or when `wait`
    /// (at most [`MAX_WAIT`]) runs out, whichever comes first. Wakes on a
    /// change signal and at its deadline, never by re-reading on a timer.
    ///
    /// # Errors
    ///
    /// As [`Host::interaction`].
    pub async fn wait_interaction(
        &self,
        caller: &Caller,
        id: &str,
        wait: Duration,
    ) -> Result<InteractionView, HostError> {
        let _in_flight = self.metrics().wait();
        let until = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut changes = self.subscribe();
        let closing = self.closing();
        loop {
            let record = self.find_interaction(caller, id).await?;
            let (interaction, now) = self.noticed(record).await?;
            if now != InteractionState::Pending {
                return Ok(view(&interaction, &now));
            }
            // Its own timeout ends the wait too.
            let deadline = interaction.deadline_ms().map_or(until, |deadline| {
                let left = Duration::from_millis(deadline.saturating_sub(now_ms()));
                until.min(tokio::time::Instant::now() + left)
            });
            let woken = tokio::select! {
                changed = tokio::time::timeout_at(deadline, changes.changed()) => match changed {
                    Ok(Ok(())) => Some(true),
                    Err(_) => Some(false),
                    // The host is going away.
                    Ok(Err(_)) => None,
                },
                () = closing.cancelled() => None,
            };
            match woken {
                Some(true) => {}
                // Its own deadline came first: read again, which applies it.
                Some(false) if deadline < until => {}
                Some(false) | None => return self.interaction(caller, id).await,
            }
        }
    }

    /// A page of the caller's interactions, oldest first, timeouts applied.
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for a limit out of range or a cursor this
    /// host did not give.
    pub async fn interactions(
        &self,
        caller: &Caller,
        query: &InteractionQuery,
    ) -> Result<InteractionPage, HostError> {
        let filter = query.filter()?;
        // Stored as pending but timed out: settled first, so a listing of
        // settled ones finds it.
        if filter
            .status
            .is_some_and(|status| status != InteractionStatus::Pending)
        {
            self.sweep(caller).await?;
        }
        let records = self
            .store()
            .list_interactions(&caller.user_id, &filter)
            .await?;
        let next_cursor = (records.len() == filter.limit)
            .then(|| records.last())
            .flatten()
            .map(|last| format!("{}:{}", last.created_at_ms, last.id));
        let mut interactions = Vec::with_capacity(records.len());
        for record in records {
            let (interaction, now) = self.noticed(record).await?;
            let shown = view(&interaction, &now);
            if filter.status.is_none_or(|status| status == shown.status) {
                interactions.push(shown);
            }
        }
        Ok(InteractionPage {
            interactions,
            next_cursor,
        })
    }

    /// Takes the caller's interaction `id` back: cancelled if it still
    /// waits; one already settled stays as it is (a cancel never undoes
    /// an answer).
    ///
    /// # Errors
    ///
    /// As [`Host::interaction`].
    pub async fn cancel_interaction(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<InteractionView, HostError> {
        loop {
            let record = self.find_interaction(caller, id).await?;
            let interaction = provided(&record)?;
            let now = interaction.cancelled_at(now_ms());
            if now == interaction.state {
                return Ok(view(&interaction, &now));
            }
            if self
                .store()
                .replace_interaction(&with_state(&record, &now)?)
                .await?
            {
                self.changed();
                return Ok(view(&interaction, &now));
            }
            // Changed since it was read (an answer, another cancel): again.
        }
    }

    /// Delivers a response command (the contract's
    /// `InteractionResponseCommand`) from the caller's person, and answers
    /// with its acknowledgement, as JSON text: a command whose operation id
    /// was seen gets the acknowledgement recorded then, byte for byte. A
    /// store that fails answers `transport_failure`, safe to retry.
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] for a body that is not a response command
    /// (no acknowledgement can echo it).
    pub async fn respond(&self, caller: &Caller, command: &Value) -> Result<String, HostError> {
        let command = InteractionResponseCommand::from_json_value(command)
            .map_err(|invalid| HostError::BadRequest(invalid.to_string()))?;
        let binding = &command.binding.request;
        let key = ResponseKey {
            operation_id: command.operation_id.clone(),
            run_id: binding.run_id.clone(),
            environment_id: binding.environment_id.clone(),
            session_id: binding.session_id.clone(),
            interaction_id: binding.interaction_id.clone(),
        };
        let decided = command.clone();
        let now = now_ms();
        // Waiters are woken only when an interaction changed, not by every
        // replay or refusal.
        let changes = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let changing = std::sync::Arc::clone(&changes);
        let committed = self
            .store()
            .commit_interaction_response(
                &caller.user_id,
                &key,
                &caller.actor(),
                Box::new(move |scene| {
                    let write = decide(&scene, &decided, now);
                    changing.store(
                        write.interaction.is_some(),
                        std::sync::atomic::Ordering::SeqCst,
                    );
                    write
                }),
            )
            .await;
        match committed {
            Ok(acknowledgement) => {
                if changes.load(std::sync::atomic::Ordering::SeqCst) {
                    self.changed();
                }
                Ok(acknowledgement)
            }
            Err(failed) => {
                HostError::Store(failed).log_cause();
                Ok(to_text(&transport_failure(
                    &command,
                    "the host could not record the response; nothing was applied, so it is safe to send again",
                )))
            }
        }
    }

    /// Stores the timeouts of the caller's pending interactions that no
    /// host has noticed yet, so that what is stored as pending waits. A
    /// record that does not read is left as it is.
    async fn sweep(&self, caller: &Caller) -> Result<(), HostError> {
        let pending = InteractionFilter {
            status: Some(InteractionStatus::Pending),
            after: None,
            limit: MOST_INTERACTIONS,
        };
        for record in self
            .store()
            .list_interactions(&caller.user_id, &pending)
            .await?
        {
            match self.noticed(record).await {
                Err(HostError::Store(StoreError::Corrupt(_))) | Ok(_) => {}
                Err(failed) => return Err(failed),
            }
        }
        Ok(())
    }

    async fn find_interaction(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<InteractionRecord, HostError> {
        self.store()
            .find_interaction(&caller.user_id, id)
            .await?
            .ok_or(HostError::NoInteraction)
    }

    /// The interaction `record` holds and where it stands now, its timeout
    /// stored if this host is the first to notice it.
    async fn noticed(
        &self,
        record: InteractionRecord,
    ) -> Result<(ProvidedInteraction, InteractionState), HostError> {
        let interaction = provided(&record)?;
        let now = interaction.state_at(now_ms());
        if now != interaction.state
            && self
                .store()
                .replace_interaction(&with_state(&record, &now)?)
                .await?
        {
            self.changed();
        }
        // Lost to another change: what that change made of it is read next
        // time; a timeout is applied by whoever noticed, alike.
        Ok((interaction, now))
    }
}

/// The store's decider for one command: the stored records read as the
/// contract's, the contract's rule, and its decision as the store's write.
/// A record that does not read is decided as none, never as another.
fn decide(
    scene: &index_negotiation_store::ResponseScene,
    command: &InteractionResponseCommand,
    now: u64,
) -> ResponseWrite {
    // A recorded acknowledgement answers again as recorded, read or not:
    // the contract's first rule, applied to the text itself.
    if let Some(recorded) = &scene.replay {
        return ResponseWrite {
            acknowledgement: recorded.clone(),
            record: false,
            interaction: None,
            resolves: false,
        };
    }
    let interaction = scene
        .interaction
        .as_ref()
        .and_then(|record| provided(record).ok().map(|provided| (record, provided)));
    let decided = decide_interaction_response(
        &index_interaction::ResponseScene {
            replay: None,
            run_known: scene.run_known,
            session_known: scene.session_known,
            interaction: interaction.as_ref().map(|(_, provided)| provided),
        },
        command,
        now,
    );
    let unrecorded = |why: &str| ResponseWrite {
        acknowledgement: to_text(&transport_failure(command, why)),
        record: false,
        interaction: None,
        resolves: false,
    };
    match decided {
        ResponseDecision::Acknowledged {
            acknowledgement,
            state,
        } => {
            // The new state goes with the acknowledgement or neither is
            // written.
            let replaced = match (state, &interaction) {
                (None, _) => None,
                (Some(state), Some((record, _))) => match with_state(record, &state) {
                    Ok(replaced) => Some(replaced),
                    Err(_) => return unrecorded("the interaction's record does not read"),
                },
                (Some(_), None) => return unrecorded("no interaction to change"),
            };
            ResponseWrite {
                resolves: replaced.is_some()
                    && acknowledgement.status == InteractionAcknowledgementStatus::Accepted,
                acknowledgement: to_text(&acknowledgement),
                record: true,
                interaction: replaced,
            }
        }
        // The rule replays only what the scene recorded, and it recorded
        // none.
        _ => unrecorded("nothing recorded to replay"),
    }
}
