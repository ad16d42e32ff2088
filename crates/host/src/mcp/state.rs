//! What MCP keeps beside a [`Host`]: the sessions whose clients can show
//! a form (live connections, so this process's alone), and this process's
//! view of the tasks, which live in the store. One of each per host,
//! shared by every session and the stdio server (see [`Host::attached`]).
//! The forms put to current clients are kept nowhere: their `requestState`
//! carries them (`crate::mcp::input`).

use std::sync::Arc;

use index_negotiation_store::{Actor, OpportunityId, UserId};
use index_question_block::StructuredQuestion;
use index_stall_gap::ParkReport;

use crate::mcp::elicit::{Elicitors, Form, Offer, Offered};
use crate::mcp::input::{self, RequestDigest};
use crate::mcp::tasks::Tasks;
use crate::service::host::Host;
use crate::service::keys::Caller;

#[derive(Default)]
pub(crate) struct McpState {
    elicitors: Elicitors,
    tasks: Tasks,
}

impl std::fmt::Debug for McpState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpState").finish_non_exhaustive()
    }
}

impl McpState {
    /// `host`'s MCP state; made on the first call, which also has every
    /// question a park puts from then on offered to its owner's sessions
    /// that show forms (before any session, there is none to offer it to).
    pub(crate) fn of(host: &Host) -> Arc<McpState> {
        host.attached(|| {
            host.watch_parks(Arc::new(offer_by_elicitation));
            McpState::default()
        })
    }

    /// Remembers an MCP session of `user`'s whose client can show forms.
    pub(crate) fn register_elicitor(&self, caller: &Caller, peer: rmcp::Peer<rmcp::RoleServer>) {
        self.elicitors
            .register(&caller.user_id, peer, caller.actor_outside_request());
    }

    /// The MCP tasks, as this process reaches them.
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// The `input_required` answer that puts `question`, the caller's
    /// person's parked question on `id`, to a current MCP client as a form
    /// (with `report`, what a park that asks did, for its retry).
    pub(crate) async fn ask_for_answer(
        host: &Host,
        caller: &Caller,
        id: &OpportunityId,
        question: &StructuredQuestion,
        request: RequestDigest,
        report: Option<&ParkReport>,
    ) -> Option<rmcp::model::InputRequiredResult> {
        let report = report.and_then(|report| serde_json::to_value(report).ok());
        input::ask(host, caller, id, question, request, report).await
    }

    /// Delivers the answer a current client's retry carries, when it
    /// answers a form a host of the store put to the caller on `id` for
    /// this very request: what the person's answer did, and the report of
    /// the park that asked.
    pub(crate) async fn answer_asked(
        host: &Host,
        caller: &Caller,
        id: &OpportunityId,
        request: RequestDigest,
        state: Option<&str>,
        responses: Option<&rmcp::model::InputResponses>,
    ) -> Option<(Offered, Option<serde_json::Value>)> {
        let answered = input::answered(host, caller, id, request, state, responses).await?;
        let offered = answer_form(host, &answered.form, &answered.result, &caller.actor()).await;
        tracing::info!(user = ?caller.user_id.as_str(), ?offered, "a parked question answered through input_required");
        Some((offered, answered.report))
    }
}

/// Delivers the person's answer to `form` (see `Form::answered`), given
/// by `actor`, and tells the host what it did.
pub(crate) async fn answer_form(
    host: &Host,
    form: &Form,
    result: &rmcp::model::ElicitResult,
    actor: &Actor,
) -> Offered {
    let offered = form.answered(host.negotiations(), result, actor).await;
    told(host, &offered);
    offered
}

/// Tells the host what an answer by form did, as every answer's is told
/// (see `Host::answered`); an offer that got no answer did nothing.
fn told(host: &Host, offered: &Offered) {
    if let Offered::Answered(report) = offered {
        host.answered(report);
    }
}

/// Puts a just-parked question to its owner's MCP client, if one that
/// can show forms is connected, on a task of its own: the park answers
/// at once, and the person answers when they do.
fn offer_by_elicitation(
    host: &Host,
    owner: &UserId,
    id: &OpportunityId,
    question: &StructuredQuestion,
) {
    // Every question is a select of 2 to 4 options, so a form; one that
    // were not would stay answerable by its question message.
    let Some(form) = Form::of(owner, id, question) else {
        tracing::info!(user = ?owner.as_str(), "parked question not offered by elicitation: it is no form");
        return;
    };
    let offer = Offer {
        negotiations: host.negotiations().clone(),
        form,
        window: host.ask_user_window(),
    };
    let host = host.clone();
    tokio::spawn(async move {
        let closing = host.closing();
        let state = McpState::of(&host);
        tokio::select! {
            offered = offer.run(&state.elicitors) => {
                tracing::debug!(?offered, "elicitation offer done");
                told(&host, &offered);
            }
            () = closing.cancelled() => {}
        }
    });
}
