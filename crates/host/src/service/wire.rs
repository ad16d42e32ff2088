//! The bodies requests carry and the shapes answers take, the same on
//! every transport: REST reads a turn from a request's JSON, MCP from a
//! tool call's arguments, both into one [`TurnBody`], checked one way.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use index_js::WireEnum;
use index_negotiation::{
    NegotiationDecision, NegotiationObservation, NegotiationResumeDecision, NegotiationState,
};
use index_negotiation_store::{
    CloseReason, InvalidId, ListCursor, ListFilter, NegotiationSummary, OpenNegotiation,
    OpportunityId, Seat, SeatView, StateFilter, UserId,
};
use index_question_block::StructuredQuestion;

use crate::service::error::HostError;

/// What `open` and `close` answer: the negotiation after the change, in
/// its own field order.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Changed {
    /// The negotiation after the change.
    pub negotiation: index_negotiation_store::NegotiationSummary,
}
/// A turn as a request states it (`POST …/turns`, MCP's
/// `submit_negotiation_turn`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnBody {
    /// What you do.
    pub(crate) action: index_negotiation::NegotiationAction,
    /// What you say to the other seat: 1 to 4000 UTF-16 code units once
    /// trimmed; stored trimmed.
    #[schemars(length(min = 1, max = 4000))]
    pub(crate) message: String,
}
/// `POST /negotiations` (and MCP's `open_negotiation`): the opening
/// request.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OpenBody {
    /// The opportunity, which becomes the negotiation's id.
    #[schemars(with = "OpportunityId")]
    opportunity_id: String,
    /// The seat that opens it and moves first.
    initiator: SeatBody,
    /// The other seat.
    responder: SeatBody,
    /// Whether both seats' intents are active and shared (default true).
    #[serde(default = "eligible")]
    eligible: bool,
}
impl OpenBody {
    /// The opening, its ids checked by name.
    pub(crate) fn checked(self) -> Result<OpenNegotiation, HostError> {
        Ok(OpenNegotiation {
            opportunity_id: id_field("opportunityId", self.opportunity_id)?,
            initiator: self.initiator.checked("initiator")?,
            responder: self.responder.checked("responder")?,
            eligible: self.eligible,
        })
    }
}
fn eligible() -> bool {
    true
}
/// A seat as the request spells it: its ids are checked after the JSON is
/// read, so a bad one is refused by name rather than as malformed JSON.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SeatBody {
    /// The person.
    #[schemars(with = "index_negotiation::UserId")]
    user_id: String,
    /// The intent their seat negotiates for.
    #[schemars(with = "index_negotiation::IntentId")]
    intent_id: String,
}
impl SeatBody {
    /// The seat, its ids refused by name when blank or when they hold a
    /// character that would forge or hide text where they are printed
    /// (every log line of the seat's requests, `keys list`, listings).
    fn checked(self, what: &str) -> Result<Seat, HostError> {
        let (user, intent) = (format!("{what}.userId"), format!("{what}.intentId"));
        crate::service::names::check_name(&user, &self.user_id)?;
        crate::service::names::check_name(&intent, &self.intent_id)?;
        Ok(Seat {
            user_id: id_field(&user, self.user_id)?,
            intent_id: id_field(&intent, self.intent_id)?,
        })
    }
}
/// `POST …/close` (and MCP's `close_negotiation`): why.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CloseBody {
    /// Why the negotiation closes.
    pub(crate) reason: CloseReason,
}
/// `POST /answers`: the caller's answers to a question message (or its
/// block), question positions from 0.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AnswersBody {
    /// The question message as the person received it.
    message: Option<String>,
    /// Or its question block.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    block: Option<serde_json::Value>,
    /// The person's answers.
    answers: Vec<AnswerBody>,
}
impl AnswersBody {
    /// The block the answers go to, and the answers by question position,
    /// each trimmed. A blank or overlong answer refuses the whole request
    /// (400, `blank_answer` or `answer_too_long`) before anything is
    /// delivered, as the command line refuses it.
    pub(crate) fn into_parts(
        self,
    ) -> Result<(index_question_block::QuestionBlock, Vec<(usize, String)>), HostError> {
        let block = question_block(self.message, self.block)?;
        let answers = self
            .answers
            .into_iter()
            .map(|a| match index_negotiation::check_answer(&a.answer) {
                Ok(answer) => Ok((a.question, answer.to_owned())),
                Err(rejection) => Err(HostError::Invalid {
                    code: crate::service::error::Code::Rules(rejection.into()),
                    message: format!(
                        "answer to question {}: {}",
                        a.question,
                        rejection.explanation()
                    ),
                }),
            })
            .collect::<Result<_, _>>()?;
        Ok((block, answers))
    }
}
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    /// The question's position in the block, from 0.
    question: usize,
    /// The person's answer: 1 to 4000 UTF-16 code units once trimmed; a
    /// blank one is refused.
    #[schemars(length(min = 1, max = 4000))]
    answer: String,
}
/// The block answers go to: read from the question message, or given.
fn question_block(
    message: Option<String>,
    block: Option<serde_json::Value>,
) -> Result<index_question_block::QuestionBlock, HostError> {
    match (message, block) {
        (Some(message), None) => index_question_block::parse_question_message(&message)
            .map(|parsed| parsed.block)
            .ok_or_else(|| HostError::BadRequest("message is not a question message".to_owned())),
        (None, Some(block)) => index_question_block::QuestionBlock::from_json_value(&block)
            .map_err(|invalid| HostError::BadRequest(invalid.to_string())),
        _ => Err(HostError::BadRequest(
            "give the question message or its block, one of the two".to_owned(),
        )),
    }
}

/// The longest a caller may wait for a change in one request: under the
/// 60 seconds that common clients (the TypeScript MCP SDK's default
/// request timeout among them) give a request, so a wait at the maximum
/// answers before its client gives up.
pub const MAX_WAIT: Duration = Duration::from_secs(50);

/// A negotiation as one seat sees it: the record, the rules' state with
/// its log, and what this seat may do now.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NegotiationView {
    /// The record: seats, status, whose turn.
    pub negotiation: NegotiationSummary,
    /// What the caller's seat may do, and the guidance agents follow.
    pub observation: NegotiationObservation,
    /// The turn log and the rules' view.
    pub state: NegotiationState,
    /// The question the negotiation waits on, when it is parked on one for
    /// the caller's own person. The other seat never sees it (nor the
    /// park in `state`); `negotiation.waitingOn` tells it whose answer the
    /// negotiation waits on.
    pub parked: Option<ParkedQuestion>,
}

impl NegotiationView {
    /// The seat's view (see [`SeatView`]) in the wire's shape: what the
    /// seat may see is the store's view's to say, not this body's.
    pub(crate) fn of(view: SeatView) -> Self {
        let parked = view.parked().map(|park| ParkedQuestion {
            user_id: park.user_id.clone(),
            question: park.question.clone(),
        });
        NegotiationView {
            negotiation: view.summary,
            observation: view.observation,
            state: view.state,
            parked,
        }
    }
}

/// The question a negotiation waits on, and whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParkedQuestion {
    /// The person asked (their agent parked the negotiation).
    pub user_id: UserId,
    /// What they are asked, with its options.
    pub question: StructuredQuestion,
}

/// A question the caller's person is asked, as its question message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AskedQuestion {
    /// The question message: prose, then the block whose question names
    /// every negotiation below. Read it with the question-block parser;
    /// answer it at `POST /answers`.
    pub message: String,
    /// The negotiations parked on it, which one answer resumes.
    pub opportunity_ids: Vec<OpportunityId>,
    /// The question as its person's agent asked it: its options (what the
    /// message's prose lists), each with its description, and whether
    /// several may be chosen, for a client that offers them as choices.
    pub question: StructuredQuestion,
}

/// What the caller's person is asked (`GET /questions`): every question
/// that could be read, and a line for each negotiation whose question
/// could not, so one damaged negotiation hides nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Questions {
    /// The questions, one per distinct question, oldest asked first.
    pub questions: Vec<AskedQuestion>,
    /// The negotiations parked on the person whose question could not be
    /// shown; empty when all could.
    pub unreadable: Vec<UnreadableQuestion>,
}

/// A negotiation parked on the caller's person whose question could not
/// be shown: its park did not read back from the store, or its question
/// cannot be written as a question message. The cause is logged, never
/// sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnreadableQuestion {
    /// The negotiation.
    pub opportunity_id: OpportunityId,
    /// Why, for a person: one plain sentence.
    pub reason: String,
}

/// A permitted turn and the negotiation after it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TurnTaken {
    /// The rules' decision, in the reference's shape (`ok: true`, …).
    pub decision: NegotiationDecision,
    /// The negotiation after the turn; its state's log starts at the
    /// previous round's first turn (`earlierTurns` counts the turns
    /// before), so the reply does not grow with the history.
    pub negotiation: NegotiationView,
}

/// A permitted resume and the negotiation after it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Resumed {
    /// The rules' decision (`ok: true`, `awaitingUserId`).
    pub decision: NegotiationResumeDecision,
    /// The negotiation after the resume, its log as after a turn.
    pub negotiation: NegotiationView,
}

/// An id from a request's field, checked as every id is; a bad one is a
/// 400 that names the field, on both surfaces.
pub(crate) fn id_field<T>(what: &str, value: String) -> Result<T, HostError>
where
    T: TryFrom<String, Error = InvalidId>,
{
    T::try_from(value).map_err(|invalid| HostError::BadRequest(format!("{what}: {invalid}")))
}

/// An RFC 3339 moment, to the second, named `what` in the error.
pub(crate) fn moment(
    what: &str,
    text: &str,
) -> Result<index_negotiation_store::UnixTime, HostError> {
    text.parse()
        .map_err(|invalid| HostError::BadRequest(format!("{what}: {invalid}")))
}

/// How many negotiations a page of a listing holds when the caller does
/// not say.
pub const DEFAULT_PAGE: usize = 50;

/// The most negotiations a caller may ask one page for.
pub const MAX_PAGE: usize = 200;

/// A listing's query as both surfaces take it (REST's query string, MCP's
/// `list_negotiations` arguments): `state` (`open` or `settled`),
/// `intentId` (the caller's seat's intent), `with` (the other seat's user
/// id), `limit` (1 to [`MAX_PAGE`], [`DEFAULT_PAGE`] when absent) and
/// `cursor` (the `nextCursor` of the page before). Any other key is
/// refused.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListQuery {
    /// `open` or `settled`.
    #[schemars(with = "Option<StateFilter>")]
    pub state: Option<String>,
    /// Only those where the caller's seat negotiates for this intent.
    #[schemars(with = "Option<index_negotiation::IntentId>")]
    pub intent_id: Option<String>,
    /// Only those with this user in the other seat.
    #[schemars(with = "Option<UserId>")]
    pub with: Option<String>,
    /// At most this many (default 50).
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub limit: Option<u64>,
    /// The `nextCursor` of the page before.
    #[schemars(with = "Option<ListCursor>")]
    pub cursor: Option<String>,
}

impl ListQuery {
    /// The filter the query asks for.
    ///
    /// ```
    /// use index_host::ListQuery;
    /// let query = ListQuery { state: Some("open".into()), limit: Some(10), ..ListQuery::default() };
    /// assert_eq!(query.filter()?.limit, Some(10));
    /// assert!(ListQuery { limit: Some(0), ..ListQuery::default() }.filter().is_err());
    /// assert!(ListQuery { cursor: Some("nope".into()), ..ListQuery::default() }.filter().is_err());
    /// # Ok::<(), index_host::HostError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] naming the value that is not one.
    pub fn filter(self) -> Result<ListFilter, HostError> {
        let state = self
            .state
            .map(|name| {
                StateFilter::from_name(&name).ok_or_else(|| {
                    HostError::BadRequest(format!(
                        "state is {}, not {name:?}",
                        StateFilter::NAMES.join(" or ")
                    ))
                })
            })
            .transpose()?;
        let limit = match self.limit {
            None => DEFAULT_PAGE,
            Some(limit) => usize::try_from(limit)
                .ok()
                .filter(|limit| (1..=MAX_PAGE).contains(limit))
                .ok_or_else(|| {
                    HostError::BadRequest(format!("limit is 1 to {MAX_PAGE}, not {limit}"))
                })?,
        };
        let cursor = self
            .cursor
            .map(|cursor| {
                cursor
                    .parse::<ListCursor>()
                    .map_err(|invalid| HostError::BadRequest(format!("cursor: {invalid}")))
            })
            .transpose()?;
        Ok(ListFilter {
            intent_id: self
                .intent_id
                .map(|id| id_field("intentId", id))
                .transpose()?,
            state,
            other_user_id: self.with.map(|id| id_field("with", id)).transpose()?,
            limit: Some(limit),
            cursor,
        })
    }
}

/// A `wait` in seconds, as both surfaces take it: 0 to [`MAX_WAIT`].
///
/// # Errors
///
/// [`HostError::BadRequest`] for a number that is not 0 to [`MAX_WAIT`]
/// seconds: a longer wait is refused, as the schemas say, not cut short.
pub fn wait_duration(seconds: f64) -> Result<Duration, HostError> {
    if seconds.is_finite() && (0.0..=MAX_WAIT.as_secs_f64()).contains(&seconds) {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(HostError::BadRequest(format!(
            "wait is 0 to {} seconds, not {}",
            MAX_WAIT.as_secs(),
            index_js::number_to_string(seconds)
        )))
    }
}
