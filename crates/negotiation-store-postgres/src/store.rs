//! The store contract on PostgreSQL: each operation one transaction, with
//! the reference host's locks.

use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{Object, Transaction};
use tokio_postgres::error::SqlState;

use index_negotiation::{
    AnswerDecision, AskUserTurn, Decision, NegotiationDecision, NegotiationMessage,
    NegotiationOutcome, NegotiationRejection, NegotiationResumeDecision, NegotiationState,
    NegotiationTurn, ParkDecision,
};
use index_negotiation_store::sql_rows::{Locked, Turns, message_parts_text};
use index_negotiation_store::{
    Actor, AnswerDecider, Audience, AuditStep, AuditWrite, ChangeFeed, CloseReason, Committed,
    EventFilter, EventWrite, ListFilter, NegotiationPage, NegotiationStore, NegotiationSummary,
    OpenNegotiation, OpportunityId, ParkDecider, RecordStatus, ResumeDecider, StoreError,
    TurnDecider, TurnEnd, UnixTime, UserId,
};

use crate::PostgresStore;
use crate::error::{ServerError, pg_error, pool_error};
use crate::rows;

/// The common table expression `hooks`, which queues the event of the
/// audit row the expression `audit` inserted (`RETURNING seq`) for every
/// enabled endpoint that wants it and may hear of it: the host's, the
/// person's (`person`), or the negotiation's two seats' (`negotiation`).
/// Each argument is the placeholder of that value (see [`Queued`]); a
/// `NULL` kind queues nothing.
macro_rules! queue_event {
    ($kind:literal, $queue:literal, $body:literal, $trace:literal, $at:literal, $pattern:literal, $person:literal, $negotiation:literal) => {
        concat!(
            "hooks AS (INSERT INTO webhook_deliveries \
             (endpoint_id, message, event, queue, body, traceparent, created_at, next_attempt_at) \
             SELECT e.id, audit.seq, ",
            $kind,
            "::text, ",
            $queue,
            "::text, ",
            $body,
            "::text, ",
            $trace,
            "::text, ",
            $at,
            "::bigint, ",
            $at,
            "::bigint FROM audit, webhook_endpoints e WHERE ",
            $kind,
            "::text IS NOT NULL \
             AND (e.events = '*' OR strpos(e.events, ",
            $pattern,
            "::text) > 0) \
             AND (e.user_id IS NULL OR e.user_id = ",
            $person,
            "::text OR e.user_id IN \
             (SELECT initiator_user_id FROM negotiations WHERE id = ",
            $negotiation,
            "::text \
             UNION ALL SELECT responder_user_id FROM negotiations WHERE id = ",
            $negotiation,
            "::text)))"
        )
    };
}

/// Why one attempt failed: retryable only while `decide` has not run.
enum Attempt {
    Transient(StoreError),
    Final(StoreError),
}

impl From<tokio_postgres::Error> for Attempt {
    fn from(err: tokio_postgres::Error) -> Self {
        pg_error(err).into()
    }
}

/// Whether PostgreSQL says trying again may succeed (see
/// [`ServerError::is_transient`]).
pub(crate) fn is_transient(err: &StoreError) -> bool {
    match err {
        StoreError::Backend(cause) => cause
            .downcast_ref::<ServerError>()
            .is_some_and(ServerError::is_transient),
        _ => false,
    }
}

/// Runs a read with a pooled connection, and once more with another if the
/// first turned out closed (the server dropped it while it sat in the pool,
/// which fast recycling does not notice): a read changes nothing, so trying
/// it again is always safe. The closed connection is taken out of the pool.
macro_rules! reading {
    ($store:expr, |$client:ident| $read:expr) => {{
        let mut retried = false;
        loop {
            #[allow(unused_mut)]
            let mut $client = $store.client().await?;
            let result = $read.await;
            match result {
                Err(err) if !retried && crate::store::is_transient(&err) => {
                    retried = true;
                    drop(deadpool_postgres::Object::take($client));
                }
                other => break other,
            }
        }
    }};
}
pub(crate) use reading;

impl From<StoreError> for Attempt {
    /// A failure is worth another try when PostgreSQL says so; whether it
    /// gets one depends on whether `decide` has run.
    fn from(err: StoreError) -> Self {
        let transient = is_transient(&err);
        if transient {
            Attempt::Transient(err)
        } else {
            Attempt::Final(err)
        }
    }
}

fn is_unique_violation(err: &tokio_postgres::Error) -> bool {
    err.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

/// A short, varying pause before retry `attempt`: 5 to 25 ms times the
/// attempt, varied by the clock's nanoseconds so racing hosts spread out.
fn backoff(attempt: u32) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    Duration::from_millis(u64::from(attempt) * (5 + u64::from(nanos % 20)))
}

impl PostgresStore {
    pub(crate) async fn client(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }
}

/// Runs `$attempt` (which takes `&mut $slot`) until it succeeds, fails for
/// good, or has been retried `max_retries` times. `decide` lives in the slot
/// the attempts share, so once an attempt has taken it, nothing is retried.
macro_rules! retrying {
    ($store:expr, $decide:expr, |$slot:ident| $attempt:expr) => {{
        let mut $slot = Some($decide);
        let mut tries = 0;
        loop {
            match $attempt.await {
                Ok(value) => break Ok(value),
                Err(Attempt::Transient(_)) if $slot.is_some() && tries < $store.max_retries => {
                    tries += 1;
                    tokio::time::sleep(backoff(tries)).await;
                }
                Err(Attempt::Transient(err) | Attempt::Final(err)) => break Err(err),
            }
        }
    }};
}

/// Locks the negotiation's row; its key, or `None` when there is none. Every
/// writer locks this row first, so locks are always taken in one order.
async fn lock_row(
    tx: &Transaction<'_>,
    id: &OpportunityId,
) -> Result<Option<i64>, tokio_postgres::Error> {
    let row = tx
        .query_opt(
            "SELECT seq FROM negotiations WHERE id = $1 FOR UPDATE",
            &[&id.as_str()],
        )
        .await?;
    Ok(row.map(|row| row.get(0)))
}

/// Locks the negotiation's row and reads its state, eligibility included:
/// two statements, the lock and the summary in the first.
async fn locked_state(tx: &Transaction<'_>, id: &OpportunityId) -> Result<Option<Locked>, Attempt> {
    let Some(stored) = rows::find_locked(tx, id).await? else {
        return Ok(None);
    };
    Ok(Some(rows::locked(tx, stored).await?))
}

/// Locks and reads the negotiation, then asks `decide`, taken from the
/// slot so that it runs at most once however often the commit is retried.
/// Returns the row key and the locked state (when the negotiation exists)
/// and the decision.
async fn decide_locked<D, R>(
    tx: &Transaction<'_>,
    id: &OpportunityId,
    slot: &mut Option<D>,
    run: impl FnOnce(D, Option<&NegotiationState>) -> R,
) -> Result<(Option<Locked>, R), Attempt> {
    let locked = locked_state(tx, id).await?;
    let decide = slot
        .take()
        .ok_or_else(|| StoreError::Corrupt("decide was already used".to_owned()))?;
    let decision = run(decide, locked.as_ref().map(|locked| &locked.state));
    Ok((locked, decision))
}

async fn commit_turn_once(
    store: &PostgresStore,
    id: &OpportunityId,
    user_id: &UserId,
    turn: &NegotiationTurn,
    actor: &Actor,
    slot: &mut Option<TurnDecider>,
) -> Result<(NegotiationDecision, Option<Committed>), Attempt> {
    let mut client = store.client().await?;
    let tx = client.transaction().await?;
    let (locked, decision) =
        decide_locked(&tx, id, slot, |decide, state| decide(state, user_id, turn)).await?;
    let (Some(locked), Decision::Permitted(permitted)) = (locked, &decision) else {
        return Ok((decision, None));
    };
    let seq = locked.seq;
    let index = i32::try_from(permitted.turn_index).unwrap_or(i32::MAX);
    let outcome = permitted.outcome.map(NegotiationOutcome::as_str);
    let status = RecordStatus::from(permitted.opportunity_status).as_str();
    // The turn, its audit entry and the negotiation's new state in one
    // statement, one round trip; a taken index fails the whole statement,
    // applying none of them.
    let audit = AuditWrite::turn(id, user_id, turn, TurnEnd::of(permitted), actor);
    let at = UnixTime::now();
    let queued = Queued::of(audit.event(at));
    let apply = tx
        .prepare_cached(concat!(
            "WITH turn AS (INSERT INTO turns (negotiation_seq, turn_index, seat_user_id, action, message) \
             VALUES ($4, $5, $6, $7, $8)), \
             audit AS (INSERT INTO audit (at, step, negotiation_id, user_id, detail, actor_kind, key_id, request_id) \
             VALUES ($10, $11, $12, $6, $7, $13, $14, $15) RETURNING seq), ",
            queue_event!("$16", "$17", "$18", "$22", "$10", "$19", "$20", "$21"),
            " UPDATE negotiations SET awaiting_user_id = $1, outcome = COALESCE($2, outcome), \
             settled = settled OR $2::text IS NOT NULL, status = $3, turn_count = $5 + 1, \
             window_start = CASE WHEN $9 THEN round_start ELSE window_start END, \
             round_start = CASE WHEN $9 THEN $5 + 1 ELSE round_start END, \
             last_change = nextval('negotiation_changes') WHERE seq = $4"
        ))
        .await
        .map_err(|err| Attempt::Final(pg_error(err)))?;
    let applied = tx
        .execute(
            &apply,
            &[
                &permitted.awaiting_user_id.as_ref().map(UserId::as_str) as Param<'_>,
                &outcome,
                &status,
                &seq,
                &index,
                &user_id.as_str(),
                &turn.action.as_str(),
                &turn.message,
                &permitted.round_ended.is_some(),
                &at.to_stored(),
                &audit.step.as_str(),
                &id.as_str(),
                &audit.actor.kind().as_str(),
                &audit.actor.key_id(),
                &audit.actor.request_id(),
            ]
            .into_iter()
            .chain(queued.params())
            .collect::<Vec<Param<'_>>>(),
        )
        .await;
    match applied {
        Err(err) if is_unique_violation(&err) => {
            return Ok((Decision::Refused(NegotiationRejection::Raced), None));
        }
        other => other.map_err(|err| Attempt::Final(pg_error(err)))?,
    };
    tx.commit()
        .await
        .map_err(|err| Attempt::Final(pg_error(err)))?;
    let after = Committed::after_turn(&locked.summary, &locked.state, user_id, turn, permitted);
    Ok((decision, Some(after)))
}

async fn commit_resume_once(
    store: &PostgresStore,
    id: &OpportunityId,
    user_id: &UserId,
    actor: &Actor,
    slot: &mut Option<ResumeDecider>,
) -> Result<(NegotiationResumeDecision, Option<Committed>), Attempt> {
    let mut client = store.client().await?;
    let tx = client.transaction().await?;
    let (locked, decision) =
        decide_locked(&tx, id, slot, |decide, state| decide(state, user_id)).await?;
    let (Some(locked), Decision::Permitted(permitted)) = (locked, &decision) else {
        return Ok((decision, None));
    };
    let resume = tx
        .prepare_cached(
            "UPDATE negotiations SET awaiting_user_id = $1, \
             last_change = nextval('negotiation_changes') WHERE seq = $2",
        )
        .await
        .map_err(|err| final_error(pg_error(err)))?;
    tx.execute(
        &resume,
        &[&permitted.awaiting_user_id.as_str(), &locked.seq],
    )
    .await
    .map_err(|err| final_error(pg_error(err)))?;
    append_audit(
        &tx,
        AuditWrite::by_seat(AuditStep::Resumed, id, user_id, actor),
    )
    .await
    .map_err(final_error)?;
    tx.commit()
        .await
        .map_err(|err| final_error(pg_error(err)))?;
    let after = Committed::after_resume(&locked.summary, &locked.state, permitted);
    Ok((decision, Some(after)))
}

/// Appends a message at the end of the negotiation's record, in `tx`.
async fn append(
    tx: &Transaction<'_>,
    seq: i64,
    message: &NegotiationMessage,
) -> Result<(), StoreError> {
    let parts = message_parts_text(message)?;
    let append = tx
        .prepare_cached(
            "INSERT INTO messages (negotiation_seq, position, sender_id, parts) VALUES ($1, \
             (SELECT COALESCE(max(position) + 1, 0) FROM messages WHERE negotiation_seq = $1), $2, $3)",
        )
        .await
        .map_err(pg_error)?;
    tx.execute(&append, &[&seq, &message.sender_id, &parts])
        .await
        .map_err(pg_error)?;
    Ok(())
}

/// A statement's parameter.
type Param<'a> = &'a (dyn tokio_postgres::types::ToSql + Sync);

/// An event's values as `queue_event!` binds them, all `NULL` for a step
/// with no event.
#[derive(Debug, Default)]
struct Queued<'a> {
    kind: Option<&'static str>,
    queue: Option<String>,
    body: Option<String>,
    trace: Option<&'a str>,
    pattern: Option<String>,
    person: Option<&'a str>,
    negotiation: Option<&'a str>,
}

impl<'a> Queued<'a> {
    /// The values in `queue_event!`'s order after the time: kind, queue,
    /// body, pattern, person, negotiation, trace.
    fn params(&self) -> [Param<'_>; 7] {
        [
            &self.kind,
            &self.queue,
            &self.body,
            &self.pattern,
            &self.person,
            &self.negotiation,
            &self.trace,
        ]
    }

    fn of(event: Option<EventWrite<'a>>) -> Self {
        let Some(event) = event else {
            return Queued::default();
        };
        let (person, negotiation) = match event.audience {
            Audience::Person(user) => (Some(user.as_str()), None),
            Audience::Seats(id) => (None, Some(id.as_str())),
        };
        Queued {
            kind: Some(event.kind.as_str()),
            queue: Some(event.queue),
            body: Some(event.body),
            trace: event.trace,
            pattern: Some(EventFilter::stored_pattern(event.kind)),
            person,
            negotiation,
        }
    }
}

/// Appends `write` to the audit record, in the transaction of the step it
/// records, and queues its event, in one statement.
pub(crate) async fn append_audit(
    tx: &Transaction<'_>,
    write: AuditWrite<'_>,
) -> Result<(), StoreError> {
    let append = tx
        .prepare_cached(concat!(
            "WITH audit AS (INSERT INTO audit \
             (at, step, negotiation_id, user_id, detail, actor_kind, key_id, request_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq), ",
            queue_event!("$9", "$10", "$11", "$15", "$1", "$12", "$13", "$14"),
            " SELECT 1"
        ))
        .await
        .map_err(pg_error)?;
    let at = UnixTime::now();
    let queued = Queued::of(write.event(at));
    tx.execute(
        &append,
        &[
            &at.to_stored() as Param<'_>,
            &write.step.as_str(),
            &write.negotiation.map(OpportunityId::as_str),
            &write.user.map(UserId::as_str),
            &write.detail,
            &write.actor.kind().as_str(),
            &write.actor.key_id(),
            &write.actor.request_id(),
        ]
        .into_iter()
        .chain(queued.params())
        .collect::<Vec<Param<'_>>>(),
    )
    .await
    .map_err(pg_error)?;
    Ok(())
}

/// A failure once `decide` has run: never retried.
fn final_error(err: impl Into<StoreError>) -> Attempt {
    Attempt::Final(err.into())
}

async fn commit_park_once(
    store: &PostgresStore,
    id: &OpportunityId,
    user_id: &UserId,
    turn: &AskUserTurn,
    actor: &Actor,
    slot: &mut Option<ParkDecider>,
) -> Result<(ParkDecision, Option<Committed>), Attempt> {
    let mut client = store.client().await?;
    let tx = client.transaction().await?;
    let (locked, decision) =
        decide_locked(&tx, id, slot, |decide, state| decide(state, user_id)).await?;
    let (Some(locked), Decision::Permitted(permitted)) = (locked, &decision) else {
        return Ok((decision, None));
    };
    let seq = locked.seq;
    let asked = serde_json::to_value(&turn.ask_user.question)
        .map_err(|err| final_error(StoreError::backend(err)))?;
    let question = asked.to_string();
    append(&tx, seq, &turn.to_message(user_id))
        .await
        .map_err(final_error)?;
    let ask_rounds = i32::try_from(permitted.ask_rounds).unwrap_or(i32::MAX);
    tx.execute(
        "UPDATE negotiations SET ask_rounds = $1, park_user_id = $2, park_question = $3, \
         park_answer = NULL, last_change = nextval('negotiation_changes') WHERE seq = $4",
        &[&ask_rounds, &user_id.as_str(), &question, &seq],
    )
    .await
    .map_err(|err| final_error(pg_error(err)))?;
    append_audit(&tx, AuditWrite::parked(id, user_id, &asked, actor))
        .await
        .map_err(final_error)?;
    tx.commit()
        .await
        .map_err(|err| final_error(pg_error(err)))?;
    let question = &turn.ask_user.question;
    let after = Committed::after_park(&locked.summary, &locked.state, user_id, question, permitted);
    Ok((decision, Some(after)))
}

async fn commit_answer_once(
    store: &PostgresStore,
    id: &OpportunityId,
    user_id: &UserId,
    answer: &str,
    actor: &Actor,
    slot: &mut Option<AnswerDecider>,
) -> Result<(AnswerDecision, Option<Committed>), Attempt> {
    let mut client = store.client().await?;
    let tx = client.transaction().await?;
    let (locked, decision) = decide_locked(&tx, id, slot, |decide, state| {
        decide(state, user_id, answer)
    })
    .await?;
    let (Some(locked), Decision::Permitted(permitted)) = (locked, &decision) else {
        return Ok((decision, None));
    };
    let seq = locked.seq;
    let message = locked.answer_message(user_id, permitted);
    append(&tx, seq, &message).await.map_err(final_error)?;
    tx.execute(
        "UPDATE negotiations SET park_answer = $1, awaiting_user_id = $2, \
         last_change = nextval('negotiation_changes') WHERE seq = $3",
        &[
            &permitted.answer,
            &permitted.awaiting_user_id.as_str(),
            &seq,
        ],
    )
    .await
    .map_err(|err| final_error(pg_error(err)))?;
    append_audit(
        &tx,
        AuditWrite::by_seat(AuditStep::Answered, id, user_id, actor),
    )
    .await
    .map_err(final_error)?;
    tx.commit()
        .await
        .map_err(|err| final_error(pg_error(err)))?;
    let after = Committed::after_answer(&locked.summary, &locked.state, permitted);
    Ok((decision, Some(after)))
}

/// The negotiation's state in one read-only, repeatable-read transaction,
/// so the row and its turns agree.
async fn read_state(
    client: &mut Object,
    id: &OpportunityId,
    which: Turns,
) -> Result<Option<NegotiationState>, StoreError> {
    let tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await
        .map_err(pg_error)?;
    let state = match rows::find(&tx, id).await? {
        None => None,
        Some(stored) => Some(rows::read_state(&tx, stored, which).await?.1),
    };
    tx.commit().await.map_err(pg_error)?;
    Ok(state)
}

#[async_trait]
impl NegotiationStore for PostgresStore {
    async fn read_negotiation_state(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        reading!(self, |client| read_state(&mut client, id, Turns::All))
    }

    async fn read_negotiation_round(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationState>, StoreError> {
        reading!(self, |client| read_state(&mut client, id, Turns::Round))
    }

    async fn commit_turn(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &NegotiationTurn,
        actor: &Actor,
        decide: TurnDecider,
    ) -> Result<(NegotiationDecision, Option<Committed>), StoreError> {
        retrying!(self, decide, |slot| commit_turn_once(
            self, id, user_id, turn, actor, &mut slot
        ))
    }

    async fn commit_resume(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        actor: &Actor,
        decide: ResumeDecider,
    ) -> Result<(NegotiationResumeDecision, Option<Committed>), StoreError> {
        retrying!(self, decide, |slot| commit_resume_once(
            self, id, user_id, actor, &mut slot
        ))
    }

    async fn commit_park(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        turn: &AskUserTurn,
        actor: &Actor,
        decide: ParkDecider,
    ) -> Result<(ParkDecision, Option<Committed>), StoreError> {
        retrying!(self, decide, |slot| commit_park_once(
            self, id, user_id, turn, actor, &mut slot
        ))
    }

    async fn commit_answer(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        answer: &str,
        actor: &Actor,
        decide: AnswerDecider,
    ) -> Result<(AnswerDecision, Option<Committed>), StoreError> {
        retrying!(self, decide, |slot| commit_answer_once(
            self, id, user_id, answer, actor, &mut slot
        ))
    }

    async fn insert_negotiation(
        &self,
        negotiation: &OpenNegotiation,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        let id = negotiation.opportunity_id.as_str();
        tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&id])
            .await
            .map_err(pg_error)?;
        let inserted = tx
            .query_opt(
                "INSERT INTO negotiations (id, initiator_user_id, initiator_intent_id, responder_user_id, responder_intent_id, awaiting_user_id) \
                 VALUES ($1, $2, $3, $4, $5, $2) ON CONFLICT (id) DO NOTHING RETURNING seq",
                &[
                    &id,
                    &negotiation.initiator.user_id.as_str(),
                    &negotiation.initiator.intent_id.as_str(),
                    &negotiation.responder.user_id.as_str(),
                    &negotiation.responder.intent_id.as_str(),
                ],
            )
            .await
            .map_err(pg_error)?;
        let Some(row) = inserted else {
            return Ok(false);
        };
        let seq: i64 = row.get(0);
        tx.execute(
            "INSERT INTO seats (negotiation_seq, user_id) VALUES ($1, $2), ($1, $3) ON CONFLICT DO NOTHING",
            &[&seq, &negotiation.initiator.user_id.as_str(), &negotiation.responder.user_id.as_str()],
        )
        .await
        .map_err(pg_error)?;
        append_audit(&tx, AuditWrite::opened(negotiation, actor)).await?;
        tx.commit().await.map_err(pg_error)?;
        Ok(true)
    }

    async fn set_seat_eligibility(
        &self,
        id: &OpportunityId,
        user_id: &UserId,
        eligible: bool,
    ) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        // The negotiation's row first, as commits lock it, so the two never
        // wait on each other in opposite orders.
        let Some(seq) = lock_row(&tx, id).await.map_err(pg_error)? else {
            return Ok(false);
        };
        let updated = tx
            .execute(
                "UPDATE seats SET eligible = $1 WHERE negotiation_seq = $2 AND user_id = $3",
                &[&eligible, &seq, &user_id.as_str()],
            )
            .await
            .map_err(pg_error)?;
        if updated == 1 {
            tx.execute(
                "UPDATE negotiations SET last_change = nextval('negotiation_changes') WHERE seq = $1",
                &[&seq],
            )
            .await
            .map_err(pg_error)?;
        }
        tx.commit().await.map_err(pg_error)?;
        Ok(updated == 1)
    }

    async fn close_negotiation(
        &self,
        id: &OpportunityId,
        reason: CloseReason,
        actor: &Actor,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_error)?;
        let closed = tx.execute(
            "UPDATE negotiations SET outcome = CASE WHEN settled THEN outcome ELSE $1 END, settled = true, \
             awaiting_user_id = NULL, status = $2, last_change = nextval('negotiation_changes') WHERE id = $3",
            &[&NegotiationOutcome::Closed.as_str(), &reason.status().as_str(), &id.as_str()],
        )
        .await
        .map_err(pg_error)?;
        if closed == 1 {
            append_audit(&tx, AuditWrite::closed(id, reason, actor)).await?;
        }
        let summary = rows::find(&tx, id).await?.map(|stored| stored.summary);
        tx.commit().await.map_err(pg_error)?;
        Ok(summary)
    }

    async fn get_negotiation(
        &self,
        id: &OpportunityId,
    ) -> Result<Option<NegotiationSummary>, StoreError> {
        reading!(self, |client| async {
            Ok(rows::find(&client, id).await?.map(|stored| stored.summary))
        })
    }

    async fn list_negotiations(
        &self,
        user_id: &UserId,
        filter: &ListFilter,
    ) -> Result<NegotiationPage, StoreError> {
        reading!(self, |client| rows::page_of_user(&client, user_id, filter))
    }

    async fn list_messages(
        &self,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, StoreError> {
        reading!(self, |client| async {
            match rows::find(&client, id).await? {
                None => Ok(Vec::new()),
                Some(stored) => rows::messages(&client, stored.seq).await,
            }
        })
    }

    /// LISTENs for the notification the `negotiations_changed` trigger
    /// sends in every transaction that changes a negotiation, from any
    /// host on the database.
    async fn change_feed(&self) -> Result<Option<ChangeFeed>, StoreError> {
        self.listen(crate::listen::NEGOTIATIONS_CHANNEL)
            .await
            .map(Some)
    }
}
