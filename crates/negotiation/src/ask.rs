//! The ask-round budget: how often a negotiation may stop to ask its people,
//! read from the negotiation's own message record.
//!
//! Each `ask_user` message in the record is one round spent, whichever side
//! asked and whether it was a question mid-negotiation or a park after a
//! stall. The cap bounds the whole park, answer, resume loop so two agents
//! cannot keep sending their people questions forever.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use index_question_block::StructuredQuestion;

use index_js::number_from_str;

use crate::ids::UserId;

/// The ask rounds a negotiation may spend when nothing overrides it. Three
/// leaves room for one park after a stall even once each side has asked
/// once mid-negotiation.
pub const DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP: usize = 3;

/// The environment variable that overrides the cap.
pub const NEGOTIATION_ASK_ROUNDS_CAP_ENV: &str = "NEGOTIATION_ASK_ROUNDS_CAP";

/// How long a parked negotiation waits for its person's answer: 24 hours.
pub const DEFAULT_ASK_USER_WINDOW_MS: u64 = 24 * 60 * 60 * 1000;

/// The `action` of a park turn.
pub const ASK_USER_ACTION: &str = "ask_user";

/// The ask-round cap, from [`NEGOTIATION_ASK_ROUNDS_CAP_ENV`].
///
/// Only a positive integer, as JavaScript's `Number` reads the variable,
/// counts; anything else (unset, empty, zero, negative, fractional, not a
/// number) means [`DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP`]. Zero does not turn
/// the budget off: the cap exists so the loop always ends.
pub fn negotiation_ask_rounds_cap() -> usize {
    let raw =
        std::env::var_os(NEGOTIATION_ASK_ROUNDS_CAP_ENV).map(|v| v.to_string_lossy().into_owned());
    negotiation_ask_rounds_cap_from(raw.as_deref())
}

/// [`negotiation_ask_rounds_cap`] with the variable's raw value passed in.
/// A cap beyond `usize::MAX` saturates, which compares the same against any
/// count.
///
/// ```
/// use index_negotiation::negotiation_ask_rounds_cap_from;
/// assert_eq!(negotiation_ask_rounds_cap_from(Some("5")), 5);
/// assert_eq!(negotiation_ask_rounds_cap_from(Some(" 0x4 ")), 4);
/// assert_eq!(negotiation_ask_rounds_cap_from(Some("2.0")), 2);
/// assert_eq!(negotiation_ask_rounds_cap_from(Some("0")), 3);
/// assert_eq!(negotiation_ask_rounds_cap_from(Some("2.5")), 3);
/// assert_eq!(negotiation_ask_rounds_cap_from(None), 3);
/// ```
pub fn negotiation_ask_rounds_cap_from(raw: Option<&str>) -> usize {
    let Some(raw) = raw.filter(|raw| !raw.is_empty()) else {
        return DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP;
    };
    let parsed = number_from_str(raw);
    if parsed.is_finite() && parsed.fract() == 0.0 && parsed > 0.0 {
        if parsed >= usize::MAX as f64 {
            usize::MAX
        } else {
            parsed as usize
        }
    } else {
        DEFAULT_NEGOTIATION_ASK_ROUNDS_CAP
    }
}

/// One part of a negotiation message.
///
/// The reference types parts as `unknown[]`, so a record may hold any JSON
/// there: a `file` part, `data: null`, extra keys. The two shapes this
/// workspace writes are typed; anything else is kept as it is, so every
/// record the reference can hold reads and writes back unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagePart {
    /// `{"kind": "text", "text": …}`: plain text.
    Text {
        /// The text.
        text: String,
    },
    /// `{"kind": "data", "data": {…}}`: structured data, such as a turn
    /// payload.
    Data {
        /// The data: a JSON object.
        data: serde_json::Map<String, serde_json::Value>,
    },
    /// Any other part, exactly as it was read.
    Other(serde_json::Value),
}

impl MessagePart {
    /// Whether the part's `kind` is `data`, as the reference finds a
    /// message's data part (`parts.find(p => p.kind === "data")`), whatever
    /// its `data` holds.
    pub fn is_data(&self) -> bool {
        match self {
            MessagePart::Data { .. } => true,
            MessagePart::Text { .. } => false,
            MessagePart::Other(value) => {
                value.get("kind").and_then(serde_json::Value::as_str) == Some("data")
            }
        }
    }

    /// The part's `data` when the part is a data part and its data an
    /// object.
    ///
    /// ```
    /// use index_negotiation::MessagePart;
    /// let part: MessagePart = serde_json::from_value(serde_json::json!({"kind": "data", "data": null})).unwrap();
    /// assert!(part.is_data() && part.data().is_none());
    /// ```
    pub fn data(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        match self {
            MessagePart::Data { data } => Some(data),
            MessagePart::Text { .. } => None,
            MessagePart::Other(value) if self.is_data() => {
                value.get("data").and_then(serde_json::Value::as_object)
            }
            MessagePart::Other(_) => None,
        }
    }
}

impl Serialize for MessagePart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MessagePart::Text { text } => {
                serde_json::json!({"kind": "text", "text": text}).serialize(serializer)
            }
            MessagePart::Data { data } => {
                serde_json::json!({"kind": "data", "data": data}).serialize(serializer)
            }
            MessagePart::Other(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for MessagePart {
    /// A part of exactly one of the two typed shapes is typed; any other
    /// JSON is [`MessagePart::Other`], so nothing is lost.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let typed = value
            .as_object()
            .filter(|part| part.len() == 2)
            .and_then(|part| {
                match (
                    part.get("kind").and_then(serde_json::Value::as_str),
                    part.get("text"),
                    part.get("data"),
                ) {
                    (Some("text"), Some(serde_json::Value::String(text)), None) => {
                        Some(MessagePart::Text { text: text.clone() })
                    }
                    (Some("data"), None, Some(serde_json::Value::Object(data))) => {
                        Some(MessagePart::Data { data: data.clone() })
                    }
                    _ => None,
                }
            });
        Ok(typed.unwrap_or(MessagePart::Other(value)))
    }
}

/// Any JSON, as the reference's `unknown` part is: the two shapes this
/// workspace writes are described, and nothing is refused.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for MessagePart {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("MessagePart")
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A part of a message: `{\"kind\": \"text\", \"text\"}` or `{\"kind\": \"data\", \"data\": {…}}`; a record may hold any other JSON here, kept as it was read."
        })
    }
}

/// A message in a negotiation's own record: who sent it and its parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NegotiationMessage {
    /// The sender; a seat's agent is `agent:{userId}`.
    pub sender_id: String,
    /// The parts, in order.
    pub parts: Vec<MessagePart>,
}

impl NegotiationMessage {
    /// The data of the message's data part, found as the reference finds
    /// it: the first part whose `kind` is `data`. When that part's data is
    /// not an object there is none, and no later part is looked at.
    ///
    /// ```
    /// use index_negotiation::{MessagePart, NegotiationMessage};
    /// let message: NegotiationMessage = serde_json::from_value(serde_json::json!({
    ///     "senderId": "agent:u1",
    ///     "parts": [{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"action": "counter"}}]
    /// })).unwrap();
    /// assert_eq!(message.data().unwrap()["action"], "counter");
    /// ```
    pub fn data(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.parts
            .iter()
            .find(|part| part.is_data())
            .and_then(MessagePart::data)
    }

    /// Whether this message is an ask round: its data part's `action` is
    /// `ask_user`.
    pub fn is_ask_user(&self) -> bool {
        self.data()
            .and_then(|data| data.get("action"))
            .and_then(serde_json::Value::as_str)
            == Some(ASK_USER_ACTION)
    }
}

/// The sender id of `user_id`'s agent.
pub fn agent_sender_id(user_id: &UserId) -> String {
    format!("agent:{user_id}")
}

/// How many ask rounds the negotiation has spent, both sides together.
///
/// ```
/// use index_negotiation::{count_negotiation_ask_rounds, NegotiationMessage, MessagePart};
/// let ask = |who: &str| NegotiationMessage {
///     sender_id: format!("agent:{who}"),
///     parts: vec![MessagePart::Data { data: serde_json::json!({"action": "ask_user"}).as_object().unwrap().clone() }],
/// };
/// assert_eq!(count_negotiation_ask_rounds(&[ask("alice"), ask("bob")]), 2);
/// ```
pub fn count_negotiation_ask_rounds(messages: &[NegotiationMessage]) -> usize {
    messages.iter().filter(|m| m.is_ask_user()).count()
}

/// Whether `user_id`'s side has already asked in this negotiation.
pub fn has_prior_ask_user(messages: &[NegotiationMessage], user_id: &UserId) -> bool {
    let sender = agent_sender_id(user_id);
    messages
        .iter()
        .any(|m| m.is_ask_user() && m.sender_id == sender)
}

index_js::wire_enum! {
    crate index_negotiation;
    /// Why a negotiation pauses to ask its person: a closed set of categories
    /// recorded for the server, never shown as wording.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum NegotiationConsultationReason {
        /// A constraint of the person's is unknown and decides the outcome.
        UnresolvedOwnerConstraint = "unresolved_owner_constraint",
        /// Going on would disclose something that needs the person's permission.
        ConsequentialDisclosurePermission = "consequential_disclosure_permission",
        /// The seats keep failing to converge without new input.
        RepeatedNonConvergence = "repeated_non_convergence",
        /// The agent may not commit to what the deal needs.
        InsufficientCommitmentAuthority = "insufficient_commitment_authority",
    }
}

/// The literal `"ask_user"`, as a type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AskUserAction;

impl Serialize for AskUserAction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(ASK_USER_ACTION)
    }
}

impl<'de> Deserialize<'de> for AskUserAction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let action = String::deserialize(deserializer)?;
        if action == ASK_USER_ACTION {
            Ok(AskUserAction)
        } else {
            Err(serde::de::Error::custom(format_args!(
                "expected \"ask_user\", got {action:?}"
            )))
        }
    }
}

/// The roles an assessment suggests for the two people (`peer`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedRoles {
    /// The role suggested for this side's person.
    pub own_user: String,
    /// The role suggested for the other person.
    pub other_user: String,
}

impl SuggestedRoles {
    /// Both people as peers: what a park uses when no turn suggested roles.
    pub fn peers() -> Self {
        SuggestedRoles {
            own_user: "peer".to_owned(),
            other_user: "peer".to_owned(),
        }
    }
}

/// The assessment a park turn carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskUserAssessment {
    /// Why the turn was taken.
    pub reasoning: String,
    /// The roles suggested for the people.
    pub suggested_roles: SuggestedRoles,
}

/// The question a park asks, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AskUser {
    /// Why the pause is warranted.
    pub reason: NegotiationConsultationReason,
    /// What the person is asked.
    pub question: StructuredQuestion,
}

/// An `ask_user` turn: the data part of a message that parks a negotiation
/// on a question for one person.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AskUserTurn {
    /// Always `ask_user`.
    pub action: AskUserAction,
    /// The turn's assessment.
    pub assessment: AskUserAssessment,
    /// Always `null`: a park says nothing to the other seat.
    pub message: (),
    /// The question.
    pub ask_user: AskUser,
}

impl AskUserTurn {
    /// The park as a message from `user_id`'s agent, ready for the record.
    ///
    /// ```
    /// use index_negotiation::*;
    /// use index_question_block::{QuestionOption, StructuredQuestion};
    /// let option = |l: &str| QuestionOption { label: l.into(), description: format!("Retry with {l}.") };
    /// let turn = AskUserTurn {
    ///     action: Default::default(),
    ///     assessment: AskUserAssessment { reasoning: "Parked.".into(), suggested_roles: SuggestedRoles::peers() },
    ///     message: (),
    ///     ask_user: AskUser {
    ///         reason: NegotiationConsultationReason::UnresolvedOwnerConstraint,
    ///         question: StructuredQuestion { title: "Budget".into(), prompt: "Which budget?".into(), options: vec![option("low"), option("high")], multi_select: false },
    ///     },
    /// };
    /// let message = turn.to_message(&"alice".parse()?);
    /// assert_eq!(message.sender_id, "agent:alice");
    /// assert!(message.is_ask_user());
    /// # Ok::<(), InvalidId>(())
    /// ```
    pub fn to_message(&self, user_id: &UserId) -> NegotiationMessage {
        let data = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map,
            // A struct of strings, enums and a unit always serializes to an
            // object; this arm only satisfies the type.
            _ => serde_json::Map::new(),
        };
        NegotiationMessage {
            sender_id: agent_sender_id(user_id),
            parts: vec![MessagePart::Data { data }],
        }
    }
}

/// The `action` of the message that records a person's answer to a park.
pub const ASK_USER_ANSWER_ACTION: &str = "ask_user_answer";

/// The message that records `user_id`'s `answer` to the question titled
/// `title`, as a store appends it when an answer is permitted: the answer
/// as text (what an agent reading the record sees), and a data part naming
/// the question it answers. Sent by `user:{userId}`, the person, not their
/// agent.
///
/// ```
/// use index_negotiation::{ask_user_answer_message, ASK_USER_ANSWER_ACTION};
/// let message = ask_user_answer_message(&"alice".parse()?, "Budget", "Low");
/// assert_eq!(message.sender_id, "user:alice");
/// assert_eq!(message.data().unwrap()["action"], ASK_USER_ANSWER_ACTION);
/// # Ok::<(), index_negotiation::InvalidId>(())
/// ```
pub fn ask_user_answer_message(user_id: &UserId, title: &str, answer: &str) -> NegotiationMessage {
    let mut data = serde_json::Map::new();
    data.insert("action".to_owned(), ASK_USER_ANSWER_ACTION.into());
    data.insert("title".to_owned(), title.into());
    data.insert("answer".to_owned(), answer.into());
    NegotiationMessage {
        sender_id: format!("user:{user_id}"),
        parts: vec![
            MessagePart::Text {
                text: answer.to_owned(),
            },
            MessagePart::Data { data },
        ],
    }
}
