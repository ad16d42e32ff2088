//! A negotiation's row: its columns as read, checked into a summary, and
//! with its turns into the rules' state.

use index_negotiation::{
    AnswerPermitted, NegotiationMessage, NegotiationOutcome, NegotiationState, Park, SeatTurn,
    UserId, ask_user_answer_message,
};
use index_question_block::StructuredQuestion;

use crate::error::StoreError;
use crate::model::{NegotiationSummary, RecordStatus, Seat};

use super::stored_id;
use super::turns::{TurnRow, stored_turns};

/// A negotiation's columns as a SQL backend reads them, before any is
/// checked: each backend fills it from its own row (SQLite keeps each
/// seat's eligibility, PostgreSQL reads both as one), and
/// [`read`](Self::read) is the one check of what was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NegotiationRow {
    /// The row's internal key, which its turns and messages refer to.
    pub seq: i64,
    /// The opportunity id.
    pub id: String,
    /// The initiator's user.
    pub initiator_user_id: String,
    /// The initiator's intent.
    pub initiator_intent_id: String,
    /// The responder's user.
    pub responder_user_id: String,
    /// The responder's intent.
    pub responder_intent_id: String,
    /// Whether both seats' intents are active.
    pub eligible: bool,
    /// Whose turn it is, if anyone's.
    pub awaiting_user_id: Option<String>,
    /// The outcome's name, once settled.
    pub outcome: Option<String>,
    /// Whether it is over.
    pub settled: bool,
    /// The record status's name.
    pub status: String,
    /// Turns taken.
    pub turn_count: i64,
    /// Ask rounds spent.
    pub ask_rounds: i64,
    /// The last park's person.
    pub park_user_id: Option<String>,
    /// The last park's question, as JSON text.
    pub park_question: Option<String>,
    /// The last park's answer, once given.
    pub park_answer: Option<String>,
    /// Where the previous round starts in the log (the current one's start
    /// before any round ended).
    pub window_start: i64,
    /// Its place in the store's order of changes: listings run newest
    /// first.
    pub last_change: i64,
}

impl NegotiationRow {
    /// The row read back: its summary checked (every id, the outcome and
    /// the status), the question loop's columns kept as stored until its
    /// state is read.
    ///
    /// ```
    /// use index_negotiation_store::sql_rows::NegotiationRow;
    /// use index_negotiation_store::{RecordStatus, StoreError};
    /// let row = NegotiationRow {
    ///     seq: 1, id: "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".into(),
    ///     initiator_user_id: "alice".into(), initiator_intent_id: "hire".into(),
    ///     responder_user_id: "bob".into(), responder_intent_id: "join".into(),
    ///     eligible: true, awaiting_user_id: Some("alice".into()), outcome: None,
    ///     settled: false, status: "negotiating".into(), turn_count: 0, ask_rounds: 0,
    ///     park_user_id: None, park_question: None, park_answer: None,
    ///     window_start: 0, last_change: 1,
    /// };
    /// assert_eq!(row.clone().read()?.summary.status, RecordStatus::Negotiating);
    /// let unknown = NegotiationRow { status: "lost".into(), ..row };
    /// assert!(matches!(unknown.read(), Err(StoreError::Corrupt(_))));
    /// # Ok::<(), StoreError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] for an id that fails its check, or an
    /// outcome or status this build does not know.
    pub fn read(self) -> Result<StoredNegotiation, StoreError> {
        let outcome = self
            .outcome
            .map(|name| {
                NegotiationOutcome::from_name(&name)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown outcome {name:?}")))
            })
            .transpose()?;
        let status = RecordStatus::from_name(&self.status)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown status {:?}", self.status)))?;
        let waiting_on = self
            .park_user_id
            .clone()
            .filter(|_| self.park_answer.is_none());
        let summary = NegotiationSummary {
            id: stored_id(self.id)?,
            initiator: Seat {
                user_id: stored_id(self.initiator_user_id)?,
                intent_id: stored_id(self.initiator_intent_id)?,
            },
            responder: Seat {
                user_id: stored_id(self.responder_user_id)?,
                intent_id: stored_id(self.responder_intent_id)?,
            },
            status,
            awaiting_user_id: self.awaiting_user_id.map(stored_id).transpose()?,
            outcome,
            settled: self.settled,
            eligible: self.eligible,
            turn_count: usize::try_from(self.turn_count).unwrap_or(0),
            waiting_on: waiting_on.map(stored_id).transpose()?,
        };
        let park_answer = self.park_answer;
        Ok(StoredNegotiation {
            seq: self.seq,
            summary,
            ask_rounds: self.ask_rounds,
            park: self
                .park_user_id
                .zip(self.park_question)
                .map(|(user, question)| (user, question, park_answer)),
            window_start: self.window_start,
            last_change: self.last_change,
        })
    }
}

/// Which of a negotiation's turns a read hands the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Turns {
    /// The whole log.
    All,
    /// The log from the previous round's first turn on: all a decision
    /// reads, however long the log.
    Round,
}

/// A negotiation's row read back: its key and summary, with the question
/// loop's columns as stored (the question is parsed only when the state is
/// read) and where its rounds start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredNegotiation {
    /// The row's internal key, which its turns and messages refer to.
    pub seq: i64,
    /// The negotiation as a listing shows it.
    pub summary: NegotiationSummary,
    ask_rounds: i64,
    park: Option<(String, String, Option<String>)>,
    window_start: i64,
    last_change: i64,
}

impl StoredNegotiation {
    /// The index of the first turn a read of `which` needs: the turns to
    /// select are those from it on, in index order.
    pub fn first_turn(&self, which: Turns) -> i64 {
        match which {
            Turns::All => 0,
            Turns::Round => self.window_start,
        }
    }

    /// The summary and the rules' view of the negotiation, given `rows`,
    /// its turns from [`first_turn(which)`](Self::first_turn) on.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] for turns that are not the ones the row
    /// counts (see [`stored_turns`]) or a park that does not read back; an
    /// error in `rows` as it is.
    pub fn read_state(
        self,
        which: Turns,
        rows: impl IntoIterator<Item = Result<TurnRow, StoreError>>,
    ) -> Result<(NegotiationSummary, NegotiationState), StoreError> {
        let first = usize::try_from(self.first_turn(which)).unwrap_or(0);
        let turns = stored_turns(first, self.summary.turn_count, rows)?;
        let state = stored_state(&self.summary, turns, self.ask_rounds, self.park)?;
        Ok((self.summary, state))
    }

    /// The negotiation as a commit decides on it, given `rows`, its turns
    /// from [`first_turn(Turns::Round)`](Self::first_turn) on.
    ///
    /// # Errors
    ///
    /// As [`read_state`](Self::read_state).
    pub fn locked(
        self,
        rows: impl IntoIterator<Item = Result<TurnRow, StoreError>>,
    ) -> Result<Locked, StoreError> {
        let seq = self.seq;
        let (summary, state) = self.read_state(Turns::Round, rows)?;
        Ok(Locked {
            seq,
            summary,
            state,
        })
    }

    /// Its place in the store's order of changes and its summary: a
    /// listing's entry, for [`NegotiationPage::of`](crate::NegotiationPage::of).
    pub fn listed(self) -> (u64, NegotiationSummary) {
        (u64::try_from(self.last_change).unwrap_or(0), self.summary)
    }
}

/// A negotiation as a commit read it under its lock: the row's key, and
/// the summary and round the rules decide on. What the commit hands back is
/// made from it and the decision (see [`Committed`](crate::Committed)), so
/// nothing is read after the commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locked {
    /// The row's internal key.
    pub seq: i64,
    /// The summary before the commit.
    pub summary: NegotiationSummary,
    /// The state before the commit, from the previous round's first turn.
    pub state: NegotiationState,
}

impl Locked {
    /// The message a permitted answer records: the person's answer to the
    /// question the negotiation is parked on, under its title.
    pub fn answer_message(
        &self,
        user_id: &UserId,
        permitted: &AnswerPermitted,
    ) -> NegotiationMessage {
        let title = self
            .state
            .park
            .as_ref()
            .map_or("", |park| park.question.title.as_str());
        ask_user_answer_message(user_id, title, &permitted.answer)
    }
}

/// A park read back from storage: its person, its question as the JSON
/// text the store keeps, and its answer. A question that does not read
/// back as a valid structured question, or a blank person, is
/// [`StoreError::Corrupt`].
fn stored_park(
    user_id: String,
    question: &str,
    answer: Option<String>,
) -> Result<Park, StoreError> {
    let question = serde_json::from_str::<serde_json::Value>(question)
        .ok()
        .and_then(|value| StructuredQuestion::from_json_value(&value).ok())
        .ok_or_else(|| StoreError::Corrupt("a park's question does not read back".to_owned()))?;
    Ok(Park {
        user_id: stored_id(user_id)?,
        question,
        answer,
    })
}

/// The rules' view of a stored negotiation: its summary and turns, with
/// the question loop's columns as a SQL backend keeps them (the ask rounds,
/// and the last park's person, question as JSON text and answer); a park
/// that does not read back is [`StoreError::Corrupt`].
fn stored_state(
    summary: &NegotiationSummary,
    turns: Vec<SeatTurn>,
    ask_rounds: i64,
    park: Option<(String, String, Option<String>)>,
) -> Result<NegotiationState, StoreError> {
    let park = park
        .map(|(user_id, question, answer)| stored_park(user_id, &question, answer))
        .transpose()?;
    let ask_rounds = usize::try_from(ask_rounds).unwrap_or(0);
    Ok(summary.state(turns, ask_rounds, park))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_park_reads_back_only_as_a_structured_question_for_a_person() {
        let question = r#"{"title":"Budget","prompt":"Which budget?","options":[{"label":"Low","description":"Go low."},{"label":"High","description":"Go high."}],"multiSelect":false}"#;
        let park = stored_park("dana".to_owned(), question, None).unwrap();
        assert!(park.is_open());
        for (user, question) in [("dana", "{}"), ("dana", "not json"), (" ", question)] {
            assert!(matches!(
                stored_park(user.to_owned(), question, None),
                Err(StoreError::Corrupt(_))
            ));
        }
    }
}
