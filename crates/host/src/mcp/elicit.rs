//! The parked question, put to its person through their own MCP client.
//!
//! A person's assistant that is connected to `index serve` and advertised
//! elicitation can show the person a form. When one of their negotiations
//! parks, the host sends the question there (with every other negotiation
//! of theirs parked on the same question, so one answer unblocks them
//! all); an accepted answer is delivered exactly as answers from a question
//! message are, so each negotiation is resumed once. A decline, a cancel,
//! a client gone, or no answer within the ask-user window leaves the
//! negotiation parked and answerable the ordinary way.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitResult};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

use index_interaction::{
    ElicitationResult, InteractionOutcome, InteractionRequest, InteractionRequestBinding,
    InteractionValue, elicitation_to_response, interaction_to_elicitation,
};
use index_negotiation_store::{Actor, NegotiationStore, Negotiations, OpportunityId, UserId};
use index_question_block::StructuredQuestion;

/// The MCP sessions that can show a person a form: per user, the peers of
/// the sessions whose client advertised elicitation, newest last.
#[derive(Default)]
pub(crate) struct Elicitors {
    peers: Mutex<BTreeMap<UserId, Vec<Session>>>,
}

/// One of a person's sessions, with who opened it: the actor of an answer
/// given in it.
type Session = (Peer<RoleServer>, Actor);

impl Elicitors {
    /// Remembers `peer` as one of `user`'s sessions, opened by `actor`,
    /// forgetting closed ones.
    pub(crate) fn register(&self, user: &UserId, peer: Peer<RoleServer>, actor: Actor) {
        let Ok(mut peers) = self.peers.lock() else {
            return;
        };
        let sessions = peers.entry(user.clone()).or_default();
        sessions.retain(|(peer, _)| !peer.is_transport_closed());
        sessions.push((peer, actor));
    }

    /// `user`'s newest open session, if any: the one they use now.
    fn newest(&self, user: &UserId) -> Option<Session> {
        let mut peers = self.peers.lock().ok()?;
        let sessions = peers.get_mut(user)?;
        sessions.retain(|(peer, _)| !peer.is_transport_closed());
        sessions.last().cloned()
    }
}

/// The name of the one field the person answers.
const ANSWER_FIELD: &str = "answer";

/// The provider and environment the host's interaction requests name.
const PROVIDER: &str = "index";
const ENVIRONMENT: &str = "index-host";

/// The question as an interaction request: one required select whose
/// options are the question's (values are their positions), the options'
/// descriptions in the body so the person reads them. It is bound to the
/// negotiation (as run and execution) and to its owner (as session): the
/// only context the answer must come back to.
fn question_request(
    owner: &UserId,
    id: &OpportunityId,
    question: &StructuredQuestion,
) -> Option<InteractionRequest> {
    let mut body = question.prompt.clone();
    for option in &question.options {
        body.push_str(&format!("\n- {}: {}", option.label, option.description));
    }
    let options: Vec<Value> = question
        .options
        .iter()
        .enumerate()
        .map(|(i, option)| json!({"value": i.to_string(), "label": option.label}))
        .collect();
    let interaction_id = format!("park:{id}");
    let binding = InteractionRequestBinding {
        run_id: id.to_string(),
        provider: PROVIDER.to_owned(),
        environment_id: ENVIRONMENT.to_owned(),
        session_id: owner.to_string(),
        execution_id: id.to_string(),
        interaction_id: interaction_id.clone(),
    };
    let request = json!({
        "id": interaction_id,
        "binding": binding,
        "kind": "question",
        "title": question.title,
        "body": body,
        "answerSpec": {"fields": [{
            "name": ANSWER_FIELD, "label": "Your answer", "type": "select", "required": true,
            "multi": question.multi_select, "options": options,
        }]},
    });
    InteractionRequest::from_material(&request).ok()
}

/// The chosen options' labels, as the answer on record.
fn answer_text(
    question: &StructuredQuestion,
    data: Option<&index_interaction::InteractionData>,
) -> Option<String> {
    let Some(InteractionValue::Choices(chosen)) = data?.get(ANSWER_FIELD) else {
        return None;
    };
    let labels: Vec<&str> = chosen
        .iter()
        .filter_map(|value| value.parse::<usize>().ok())
        .filter_map(|i| question.options.get(i))
        .map(|option| option.label.as_str())
        .collect();
    (!labels.is_empty()).then(|| labels.join("; "))
}

/// Everything one elicitation needs, owned so that it can run on its own
/// task while the park's caller gets its answer.
pub(crate) struct Offer<S> {
    pub(crate) negotiations: Negotiations<S>,
    /// The question as a form, which names its owner and negotiation.
    pub(crate) form: Form,
    pub(crate) window: Duration,
}

/// What became of an offer, for the log and the tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Offered {
    /// The owner has no open session that advertised elicitation.
    NoClient,
    /// Answered: what the delivery did to each negotiation.
    Answered(index_negotiation_store::DeliveryReport),
    /// Declined or cancelled: still parked.
    Refused,
    /// No answer in time, or the client failed: still parked.
    NoAnswer,
    /// The question was answered another way first (or its park ended)
    /// while the form waited.
    Overtaken,
}

impl<S: NegotiationStore> Offer<S> {
    /// Puts the question to the owner's newest session that can show it,
    /// waits for the answer (at most the window) and delivers it.
    pub(crate) async fn run(self, elicitors: &Elicitors) -> Offered {
        let owner = self.form.owner();
        let Some((peer, actor)) = elicitors.newest(owner) else {
            tracing::info!(user = ?owner.as_str(), "parked question not offered by elicitation: no open session of theirs advertised it");
            return Offered::NoClient;
        };
        let result = match peer
            .create_elicitation_with_timeout(self.form.params.clone(), Some(self.window))
            .await
        {
            Ok(result) => result,
            Err(err) => {
                tracing::info!(user = ?owner.as_str(), error = %err, "no answer by elicitation; the question stays parked");
                return Offered::NoAnswer;
            }
        };
        self.form
            .answered(&self.negotiations, &result, &actor)
            .await
    }
}

/// A parked question as a form: the interaction request it stands for,
/// and the `elicitation/create` parameters that show it. Pushed to an
/// older client's session ([`Offer`]), or handed to a current client in an
/// `input_required` result (`crate::mcp::input`); the answer is read and
/// delivered the same way either way.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    owner: UserId,
    id: OpportunityId,
    question: StructuredQuestion,
    request: InteractionRequest,
    /// What `elicitation/create` carries.
    pub(crate) params: ElicitRequestParams,
}

impl Form {
    /// The form for `owner`'s question on negotiation `id`; `None` when the
    /// question cannot be put as one (it always can: a select of 2 to 4
    /// options).
    pub(crate) fn of(
        owner: &UserId,
        id: &OpportunityId,
        question: &StructuredQuestion,
    ) -> Option<Form> {
        let request = question_request(owner, id, question)?;
        let elicitation = interaction_to_elicitation(&request).ok()?;
        let params = json!({
            "mode": "form",
            "message": elicitation.message,
            "requestedSchema": elicitation.requested_schema,
        });
        let params = serde_json::from_value::<ElicitRequestParams>(params).ok()?;
        Some(Form {
            owner: owner.clone(),
            id: id.clone(),
            question: question.clone(),
            request,
            params,
        })
    }

    /// Whose question it is.
    pub(crate) fn owner(&self) -> &UserId {
        &self.owner
    }

    /// The negotiation it is parked on.
    pub(crate) fn id(&self) -> &OpportunityId {
        &self.id
    }

    /// The question it puts.
    pub(crate) fn question(&self) -> &StructuredQuestion {
        &self.question
    }

    /// The key of this form's answer among a request's inputs: the
    /// interaction's id, `park:<opportunity id>`.
    pub(crate) fn key(&self) -> &str {
        self.request.id()
    }

    /// Reads the person's answer to this form and, when they accepted,
    /// delivers it as answers from a question message are (to every other
    /// negotiation of theirs parked on the same question too), `actor` the
    /// one who answered.
    pub(crate) async fn answered<S: NegotiationStore>(
        &self,
        negotiations: &Negotiations<S>,
        result: &ElicitResult,
        actor: &Actor,
    ) -> Offered {
        let Some(result) = read_result(result) else {
            return Offered::NoAnswer;
        };
        let response = match elicitation_to_response(&self.request, &result) {
            Ok(response) => response,
            Err(problems) => {
                tracing::info!(user = ?self.owner.as_str(), problems = problems.len(), "an elicitation answer that breaks the question's spec; still parked");
                return Offered::NoAnswer;
            }
        };
        if response.outcome != InteractionOutcome::Accepted {
            tracing::info!(user = ?self.owner.as_str(), outcome = response.outcome.as_str(), "the person did not answer by elicitation; still parked");
            return Offered::Refused;
        }
        let Some(answer) = answer_text(&self.question, response.data.as_ref()) else {
            return Offered::NoAnswer;
        };
        let unblocks = self.parked_on_same_question(negotiations).await;
        let block = index_stall_gap::question_block(&self.id, &unblocks, &self.question);
        let report = negotiations
            .deliver_answers(&self.owner, &block, &[(0, answer)], actor)
            .await;
        Offered::Answered(report)
    }

    /// The owner's other negotiations parked, unanswered, on this very
    /// question: one answer unblocks them all.
    async fn parked_on_same_question<S: NegotiationStore>(
        &self,
        negotiations: &Negotiations<S>,
    ) -> Vec<OpportunityId> {
        let Ok(waiting) = negotiations.waiting_on(&self.owner).await else {
            return Vec::new();
        };
        waiting
            .into_iter()
            .filter(|(summary, park)| summary.id != self.id && park.question == self.question)
            .map(|(summary, _)| summary.id)
            .collect()
    }
}

/// An MCP elicitation result as the contract reads one.
pub(crate) fn read_result(result: &ElicitResult) -> Option<ElicitationResult> {
    serde_json::to_value(result)
        .ok()
        .and_then(|value| serde_json::from_value(value).ok())
}

#[cfg(test)]
mod tests {
    // Tests report failure by panicking.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use index_question_block::QuestionOption;

    use super::*;

    #[test]
    fn a_parked_question_is_a_request_bound_to_its_negotiation_and_owner() {
        let option = |label: &str| QuestionOption {
            label: label.to_owned(),
            description: format!("Go with {label}."),
        };
        let question = StructuredQuestion {
            title: "Venue".to_owned(),
            prompt: "Where should the pilot run?".to_owned(),
            options: vec![option("Berlin"), option("Paris")],
            multi_select: false,
        };
        let owner = UserId::parse("user-1").unwrap();
        let id = OpportunityId::parse("3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1b").unwrap();
        let request = question_request(&owner, &id, &question).expect("the question maps");
        assert_eq!(request.id(), "park:3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1b");
        assert_eq!(
            request.binding().interaction_id,
            "park:3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1b"
        );
        assert_eq!(
            request.binding().run_id,
            "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1b"
        );
        assert_eq!(request.binding().session_id, "user-1");
        let accepted = ElicitationResult {
            action: index_interaction::ElicitationAction::Accept,
            content: json!({"answer": "1"}).as_object().cloned(),
        };
        let response = elicitation_to_response(&request, &accepted).unwrap();
        assert_eq!(
            answer_text(&question, response.data.as_ref()).as_deref(),
            Some("Paris")
        );
    }
}
