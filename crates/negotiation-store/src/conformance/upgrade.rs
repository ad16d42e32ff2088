//! What a backend's upgrade tests write in an old schema, and what the
//! upgrade must make of it.

use index_negotiation::{Decision, NEGOTIATION_MAX_TURNS, NegotiationAction};
use index_question_block::StructuredQuestion;

use crate::{NegotiationStore, OpportunityId, UserId};

use super::fixtures::{ALICE, BOB, four_rounds, park_turn, resume, text_message, turn, user};

/// A turn log as a store written before schema version 4 holds it, for
/// backends' upgrade tests: write `turns` (with `awaiting` as the row's
/// awaiting seat) into a version-3 store, open it with this version, and
/// check with [`assert_rounds_upgraded`].
#[derive(Debug, Clone)]
pub struct LegacyLog {
    /// `(seat_user_id, action)`, from index 0.
    pub turns: Vec<(String, NegotiationAction)>,
    /// The seat to move, `None` between rounds.
    pub awaiting: Option<String>,
    /// Where the round before the current one starts: what the upgrade
    /// must find.
    pub window_start: usize,
}

/// Logs that end a round differently: none, one turn, a declined round,
/// one round after it at the turn limit, two, and a turn into the round
/// after those.
pub fn legacy_logs() -> Vec<LegacyLog> {
    let script = four_rounds();
    let limit = NEGOTIATION_MAX_TURNS;
    [
        (0, Some(ALICE), 0),
        (1, Some(BOB), 0),
        (3, None, 0),
        (3 + limit, None, 3),
        (3 + 2 * limit, None, 3 + limit),
        (4 + 2 * limit, Some(ALICE), 3 + limit),
    ]
    .into_iter()
    .map(|(len, awaiting, window_start)| LegacyLog {
        turns: script
            .iter()
            .take(len)
            .map(|(who, action)| ((*who).to_owned(), *action))
            .collect(),
        awaiting: awaiting.map(str::to_owned),
        window_start,
    })
    .collect()
}

/// Checks that `store`, written at schema version 3 with each of
/// [`legacy_logs`] under [`legacy_id`] (alice the initiator, bob the
/// responder, in talks), reads back what the upgrade must have made of
/// them: the turn count, the round read from the previous round's start,
/// the whole log unchanged, and a next commit at the next index.
pub async fn assert_rounds_upgraded<S: NegotiationStore>(store: &S) {
    let script = four_rounds();
    for (n, log) in legacy_logs().iter().enumerate() {
        let id = legacy_id(n);
        let whole = store.read_negotiation_state(&id).await.unwrap().unwrap();
        let round = store.read_negotiation_round(&id).await.unwrap().unwrap();
        let summary = store.get_negotiation(&id).await.unwrap().unwrap();
        let len = log.turns.len();
        assert_eq!(summary.turn_count, len, "{log:?}");
        assert_eq!(whole.turn_count(), len);
        assert_eq!(round.earlier_turns, log.window_start, "{log:?}");
        assert_eq!(round.turns, whole.turns.get(log.window_start..).unwrap());
        let Some((who, action)) = script.get(len) else {
            continue;
        };
        if log.awaiting.is_none() {
            assert!(resume(store, &id, who).await.is_ok(), "{log:?}");
        }
        let next = turn(store, &id, who, *action).await;
        assert!(
            matches!(next, Decision::Permitted(ref permitted) if permitted.turn_index == len),
            "{log:?}: {next:?}"
        );
    }
}

/// One negotiation's message record as stores of schema version 2 kept the
/// question loop (parks and answers only as messages), and what an upgrade
/// must read from it. For backends' upgrade tests: write `messages` into a
/// version-2 store, open it with this version, and compare.
#[derive(Debug, Clone)]
pub struct LegacyRecord {
    /// `(sender_id, parts as JSON text)`, in order.
    pub messages: Vec<(String, String)>,
    /// The ask rounds the record spent.
    pub ask_rounds: usize,
    /// The last park's person and its answer, if the record parked.
    pub park: Option<(String, Option<String>)>,
}

/// The question every [`legacy_records`] park asks.
pub fn legacy_question() -> StructuredQuestion {
    park_turn("budget").ask_user.question
}

/// Records as version 2 wrote them: two parks, the last open; one park,
/// answered; a park followed by a text note only; and no park at all.
pub fn legacy_records() -> Vec<LegacyRecord> {
    let park = |who: &str| {
        let message = park_turn("budget").to_message(&user(who));
        (
            message.sender_id.clone(),
            crate::sql_rows::message_parts_text(&message).unwrap(),
        )
    };
    // Version 2's answer: the text, then data with a `turnCount` mark.
    let answer = |who: &str, text: &str| {
        let parts = serde_json::json!([
            {"kind": "text", "text": text},
            {"kind": "data", "data": {"action": "ask_user_answer", "title": "budget", "answer": text, "turnCount": 12}},
        ]);
        (format!("user:{who}"), parts.to_string())
    };
    let note = |who: &str| {
        let message = text_message(who, "see you then");
        (
            message.sender_id.clone(),
            crate::sql_rows::message_parts_text(&message).unwrap(),
        )
    };
    vec![
        LegacyRecord {
            messages: vec![park(BOB), answer(BOB, "High"), park(ALICE)],
            ask_rounds: 2,
            park: Some((ALICE.to_owned(), None)),
        },
        LegacyRecord {
            messages: vec![note(ALICE), park(BOB), answer(BOB, "Low"), note(BOB)],
            ask_rounds: 1,
            park: Some((BOB.to_owned(), Some("Low".to_owned()))),
        },
        LegacyRecord {
            messages: vec![park(ALICE), note(BOB)],
            ask_rounds: 1,
            park: Some((ALICE.to_owned(), None)),
        },
        LegacyRecord {
            messages: vec![note(ALICE), note(BOB)],
            ask_rounds: 0,
            park: None,
        },
    ]
}

/// The negotiation a backend's upgrade test writes `legacy_records()[n]`
/// into: between alice (initiator) and bob.
pub fn legacy_id(n: usize) -> OpportunityId {
    OpportunityId::parse(format!("7d1e4b2c-9a3f-4c6e-8b5d-{n:012x}")).unwrap()
}

/// Checks that `store`, written at schema version 2 with each of
/// [`legacy_records`] under [`legacy_id`], reads back what the upgrade
/// must have made of them: the ask rounds, the last park and its answer,
/// whose answer each waits on, and the record itself unchanged.
pub async fn assert_upgraded<S: NegotiationStore>(store: &S) {
    for (n, record) in legacy_records().iter().enumerate() {
        let id = legacy_id(n);
        let state = store.read_negotiation_state(&id).await.unwrap().unwrap();
        assert_eq!(state.ask_rounds, record.ask_rounds, "{record:?}");
        let park = state.park.as_ref().map(|park| {
            assert_eq!(park.question, legacy_question());
            (park.user_id.to_string(), park.answer.clone())
        });
        assert_eq!(park, record.park, "{record:?}");
        let summary = store.get_negotiation(&id).await.unwrap().unwrap();
        let waiting = record
            .park
            .as_ref()
            .filter(|(_, answer)| answer.is_none())
            .map(|(who, _)| who.as_str());
        assert_eq!(summary.waiting_on.as_ref().map(UserId::as_str), waiting);
        assert_eq!(
            store.list_messages(&id).await.unwrap().len(),
            record.messages.len(),
            "the record itself is kept as it was"
        );
    }
}
