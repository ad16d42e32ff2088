//! Long tool calls as MCP tasks (the `io.modelcontextprotocol/tasks`
//! extension): a client that declares the extension gets a task for a
//! `get_negotiation` wait or a park, polls it with `tasks/get`, and
//! answers the parked question the task asks with `tasks/update`; the
//! answer goes through the same exactly-once delivery as every other.
//!
//! rmcp serves the extension's methods and types; the tasks themselves
//! live in the store (`HostStateStore`), so that any host of a shared
//! store answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task
//! another host runs. Every task belongs to the person whose key started
//! it (a stranger's task id answers exactly like an unknown one), ids are
//! 256 random bits, and one person holds at most 16, their own oldest
//! finished task making room for a new one.
//!
//! A task's work (a wait, a park's model call, the wait for the person's
//! answer) runs on the host that accepted it, which vouches for it with a
//! lease it renews every few seconds. Every change to a task is a
//! compare-and-set on the version read, by whichever host makes it: an
//! answer by `tasks/update` is recorded in the task, where the working host
//! picks it up and delivers it; a cancel ends the task, and the working
//! host stops when it sees that. A task whose host stopped (its lease ran
//! out, [`LEASE`] after the last renewal) is failed by the next host that
//! reads it, which first delivers an answer the person had given and the
//! stopped host had not yet delivered.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, DetailedTask, ElicitRequest, ElicitResult, InputRequest, InputRequests,
    JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::task_manager::current_timestamp;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use index_negotiation_store::{
    Actor, ActorKind, HostStore, OpportunityId, TaskRecord, UnixTime, UserId,
};
use index_question_block::StructuredQuestion;

use crate::mcp::elicit::{Form, Offered};
use crate::mcp::state::answer_form;
use crate::service::host::Host;

/// How many tasks one person may hold, running or finished; a finished
/// one is kept until its time runs out or the person needs the room.
const MOST_PER_PERSON: usize = 16;

/// How long a finished task stays readable at least, whatever its
/// time to live, so that a client polling at the suggested interval reads
/// how it ended.
const READABLE_AFTER_END: Duration = Duration::from_secs(60);

/// How often a client is asked to poll.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// How long the host running a task vouches for it without renewing:
/// past it, the task's host is taken to have stopped.
pub(crate) const LEASE: Duration = Duration::from_secs(15);

/// How much of the lease may remain before the running host renews it.
const RENEW_WITHIN: Duration = Duration::from_secs(10);

/// How often the running host looks at its task in the store: for an
/// answer or a cancel another host recorded, and to renew its lease.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// How many times a change is tried against racing changes.
const MOST_TRIES: usize = 16;

/// This process's side of the tasks: a waker for each task it runs, so a
/// `tasks/update` or `tasks/cancel` it takes reaches the work at once
/// (one taken by another host reaches it at its next look). Cheap to
/// clone; clones share the wakers.
#[derive(Clone, Default)]
pub(crate) struct Tasks {
    wakers: Arc<Mutex<BTreeMap<String, Arc<Notify>>>>,
}

/// What the store keeps of a task, as its body.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Body {
    /// The task as a client reads it.
    task: Task,
    state: State,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
enum State {
    Working,
    /// The work waits on the client's answer to `request`, under `key`;
    /// `answer` is that answer, once a `tasks/update` recorded it and until
    /// the work takes it.
    Asking {
        key: String,
        request: Box<InputRequest>,
        /// The parked question asked, so that another host can deliver a
        /// recorded answer if this task's host stops.
        form: AskedForm,
        answer: Option<serde_json::Value>,
    },
    Completed {
        result: JsonObject,
    },
    Failed {
        error: JsonObject,
    },
    Cancelled,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct AskedForm {
    opportunity: OpportunityId,
    question: StructuredQuestion,
}

impl State {
    fn failed(error: &ErrorData) -> State {
        State::Failed {
            error: object(error),
        }
    }

    fn ended(&self) -> bool {
        matches!(
            self,
            State::Completed { .. } | State::Failed { .. } | State::Cancelled
        )
    }

    /// What a client reads: an ask already answered reads as working.
    fn payload(&self) -> TaskPayload {
        match self {
            State::Working
            | State::Asking {
                answer: Some(_), ..
            } => TaskPayload::Working,
            State::Asking { key, request, .. } => {
                let mut requests = InputRequests::new();
                requests.insert(key.clone(), request.as_ref().clone());
                TaskPayload::InputRequired {
                    input_requests: requests,
                }
            }
            State::Completed { result } => TaskPayload::Completed {
                result: result.clone(),
            },
            State::Failed { error } => TaskPayload::Failed {
                error: error.clone(),
            },
            State::Cancelled => TaskPayload::Cancelled,
        }
    }
}

/// A task as read from the store, its body read.
struct Read {
    record: TaskRecord,
    body: Body,
}

/// The task `id`, if the store holds it (and will not yet forget it).
async fn read(store: &dyn HostStore, id: &str) -> Result<Option<Read>, ErrorData> {
    let Some(record) = store
        .find_task(id, UnixTime::now())
        .await
        .map_err(store_failed)?
    else {
        return Ok(None);
    };
    let body = serde_json::from_str(&record.body).map_err(|err| {
        tracing::error!(error = %err, "a stored task does not read back");
        ErrorData::internal_error("a stored task does not read back", None)
    })?;
    Ok(Some(Read { record, body }))
}

/// Changes the task `id` with `change`, which says whether it changed
/// anything, against the task as it is: tried again from a fresh read
/// when another change came between. The task as written; `None` when
/// `change` left it, or there is no such task.
async fn change(
    store: &dyn HostStore,
    id: &str,
    mut change: impl FnMut(&mut TaskRecord, &mut Body) -> bool,
) -> Result<Option<Read>, ErrorData> {
    for _ in 0..MOST_TRIES {
        let Some(mut read) = read(store, id).await? else {
            return Ok(None);
        };
        if !change(&mut read.record, &mut read.body) {
            return Ok(None);
        }
        read.body.task.status = read.body.state.payload().status();
        read.body.task.last_updated_at = current_timestamp();
        read.record.body = serde_json::to_string(&read.body)
            .map_err(|_| ErrorData::internal_error("a task could not be written", None))?;
        if store
            .replace_task(&read.record)
            .await
            .map_err(store_failed)?
        {
            read.record.version += 1;
            return Ok(Some(read));
        }
    }
    Err(ErrorData::internal_error(
        "the task kept changing; try again",
        None,
    ))
}

/// Ends the task as `state` unless it ended already (the first end wins:
/// a cancel is not overwritten by the work's own end).
fn end(record: &mut TaskRecord, body: &mut Body, state: &State) -> bool {
    if body.state.ended() {
        return false;
    }
    body.state = state.clone();
    let ttl = Duration::from_millis(body.task.ttl_ms.unwrap_or_default());
    let readable = UnixTime::now().after(READABLE_AFTER_END);
    record.forget_at = Some(record.started_at.after(ttl).max(readable));
    true
}

/// A tool call running as a task, handed to the tool so that it can ask
/// its caller's person through the task.
#[derive(Clone)]
pub(crate) struct InTask {
    store: Arc<dyn HostStore>,
    id: String,
    waker: Arc<Notify>,
}

impl InTask {
    /// Asks the client `form` and waits for its answer, recorded by a
    /// `tasks/update` on any host. `None` when the task ended (cancelled)
    /// or is gone.
    pub(crate) async fn ask(&self, form: &Form) -> Option<serde_json::Value> {
        let asking = State::Asking {
            key: form.key().to_owned(),
            request: Box::new(InputRequest::Elicitation(ElicitRequest::new(
                form.params.clone(),
            ))),
            form: AskedForm {
                opportunity: form.id().clone(),
                question: form.question().clone(),
            },
            answer: None,
        };
        let asked = change(self.store.as_ref(), &self.id, |_, body| {
            if !matches!(body.state, State::Working) {
                return false;
            }
            body.state = asking.clone();
            true
        })
        .await;
        if !matches!(asked, Ok(Some(_))) {
            return None;
        }
        // However the wait ends (answered, or dropped because the work
        // moved on), the task no longer asks.
        let _asking = Asking(self);
        loop {
            tokio::select! {
                () = self.waker.notified() => {}
                () = tokio::time::sleep(LOOK_EVERY) => {}
            }
            let state = match read(self.store.as_ref(), &self.id).await {
                Ok(Some(read)) => read.body.state,
                Ok(None) => return None,
                Err(_) => continue,
            };
            match state {
                State::Asking {
                    answer: Some(_), ..
                } => {
                    let mut taken = None;
                    let took = change(self.store.as_ref(), &self.id, |_, body| {
                        let State::Asking {
                            answer: Some(answer),
                            ..
                        } = &body.state
                        else {
                            return false;
                        };
                        taken = Some(answer.clone());
                        body.state = State::Working;
                        true
                    })
                    .await;
                    if matches!(took, Ok(Some(_))) {
                        return taken;
                    }
                }
                State::Asking { .. } => {}
                _ => return None,
            }
        }
    }
}

/// While alive, a task asks; dropped, it asks no more (if no answer came).
struct Asking<'a>(&'a InTask);

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        // A runtime shutting down drops its work without one: the task is
        // then its lease's to end.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (store, id) = (self.0.store.clone(), self.0.id.clone());
        runtime.spawn(async move {
            let _ = change(store.as_ref(), &id, |_, body| {
                if !matches!(body.state, State::Asking { .. }) {
                    return false;
                }
                body.state = State::Working;
                true
            })
            .await;
        });
    }
}

impl Tasks {
    fn wake(&self, id: &str) {
        if let Ok(wakers) = self.wakers.lock()
            && let Some(waker) = wakers.get(id)
        {
            waker.notify_waiters();
        }
    }

    /// Starts `work` as a task of `owner`'s that may live for `ttl`, and
    /// returns the task as a client first reads it. `None` when no task can
    /// be started (every one of the person's tasks is still running, the
    /// store fails, or no id can be drawn): the call is then answered
    /// without one.
    pub(crate) async fn start<W, F>(
        &self,
        host: &Host,
        owner: &UserId,
        ttl: Duration,
        work: W,
    ) -> Option<Task>
    where
        W: FnOnce(InTask) -> F,
        F: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        let id = crate::service::keys::random_hex().ok()?;
        let now = UnixTime::now();
        let stamp = current_timestamp();
        let mut task = Task::new(id.clone(), TaskStatus::Working, stamp.clone(), stamp);
        task.ttl_ms = u64::try_from(ttl.as_millis()).ok();
        task.poll_interval_ms = u64::try_from(POLL_EVERY.as_millis()).ok();
        let body = Body {
            task: task.clone(),
            state: State::Working,
        };
        let record = TaskRecord {
            id: id.clone(),
            owner: owner.clone(),
            version: 0,
            started_at: now,
            lease_until: now.after(LEASE),
            forget_at: None,
            body: serde_json::to_string(&body).ok()?,
        };
        let store = host.store().clone();
        match store.insert_task(&record, MOST_PER_PERSON, now).await {
            Ok(true) => {}
            Ok(false) => return None,
            Err(err) => {
                tracing::warn!(error = %err, "no task could be stored; the call is answered without one");
                return None;
            }
        }
        let waker = Arc::new(Notify::new());
        if let Ok(mut wakers) = self.wakers.lock() {
            wakers.insert(id.clone(), waker.clone());
        }
        let work = work(InTask {
            store: store.clone(),
            id: id.clone(),
            waker: waker.clone(),
        });
        let (tasks, host) = (self.clone(), host.clone());
        tokio::spawn(async move {
            let _running = host.metrics().task();
            let ended = tokio::select! {
                biased;
                () = vouch(store.as_ref(), &id, &waker) => None,
                () = tokio::time::sleep(ttl) => Some(State::failed(
                    &ErrorData::internal_error("the task ran out of time", None),
                )),
                ended = work => Some(match ended {
                    Ok(result) => State::Completed { result: object(&result) },
                    Err(error) => State::failed(&error),
                }),
            };
            if let Some(state) = ended
                && let Err(err) = change(store.as_ref(), &id, |record, body| {
                    end(record, body, &state)
                })
                .await
            {
                tracing::warn!(error = ?err, "a task's end could not be recorded; another host fails it when its lease runs out");
            }
            if let Ok(mut wakers) = tasks.wakers.lock() {
                wakers.remove(&id);
            }
        });
        Some(task)
    }

    /// `tasks/get`: the task as it is now, if it is the caller's.
    pub(crate) async fn get(
        &self,
        host: &Host,
        caller: &UserId,
        id: &str,
    ) -> Result<DetailedTask, ErrorData> {
        let read = theirs(host, caller, id).await?;
        Ok(DetailedTask::new(read.body.task, read.body.state.payload()))
    }

    /// `tasks/update`: records the answer to what the task asks, if the
    /// responses hold one under its key, for the work to take; any other
    /// response (to a key no longer asked, never asked, or answered
    /// already) is ignored, as the extension says.
    pub(crate) async fn update(
        &self,
        host: &Host,
        caller: &UserId,
        id: &str,
        responses: BTreeMap<String, serde_json::Value>,
    ) -> Result<(), ErrorData> {
        theirs(host, caller, id).await?;
        let answered = change(host.store().as_ref(), id, |_, body| {
            let State::Asking { key, answer, .. } = &mut body.state else {
                return false;
            };
            match (answer.is_none(), responses.get(key.as_str())) {
                (true, Some(response)) => {
                    *answer = Some(response.clone());
                    true
                }
                _ => false,
            }
        })
        .await?;
        if answered.is_some() {
            self.wake(id);
        }
        Ok(())
    }

    /// `tasks/cancel`: the task ends as cancelled unless it already ended;
    /// its work stops where it waits. An answer being delivered when the
    /// cancel comes is delivered whole.
    pub(crate) async fn cancel(
        &self,
        host: &Host,
        caller: &UserId,
        id: &str,
    ) -> Result<(), ErrorData> {
        theirs(host, caller, id).await?;
        let cancelled = change(host.store().as_ref(), id, |record, body| {
            end(record, body, &State::Cancelled)
        })
        .await?;
        if cancelled.is_some() {
            self.wake(id);
        }
        Ok(())
    }
}

/// Renews the lease of the task `id` while it runs here, and returns when
/// it ended another way (cancelled, or failed by another host) or is gone:
/// one read each look, and a write only when the lease needs renewing.
async fn vouch(store: &dyn HostStore, id: &str, waker: &Notify) {
    loop {
        tokio::select! {
            () = waker.notified() => {}
            () = tokio::time::sleep(LOOK_EVERY) => {}
        }
        let renew_by = UnixTime::now().after(RENEW_WITHIN);
        match read(store, id).await {
            Ok(None) => return,
            Ok(Some(read)) if read.body.state.ended() => return,
            Ok(Some(read)) if read.record.lease_until <= renew_by => {
                // A change racing this one is retried from a fresh read;
                // a failure is tried again at the next look.
                let _ = change(store, id, |record, body| {
                    if body.state.ended() {
                        return false;
                    }
                    record.lease_until = UnixTime::now().after(LEASE);
                    true
                })
                .await;
            }
            Ok(Some(_)) | Err(_) => {}
        }
    }
}

/// The caller's task `id` (a stranger's answers exactly as a missing
/// one), failed first if the host running it stopped.
async fn theirs(host: &Host, caller: &UserId, id: &str) -> Result<Read, ErrorData> {
    let store = host.store().as_ref();
    let read = read(store, id)
        .await?
        .filter(|read| read.record.owner == *caller)
        .ok_or_else(|| unknown(id))?;
    if read.body.state.ended() || read.record.lease_until >= UnixTime::now() {
        return Ok(read);
    }
    take_over(host, read).await?;
    read_again(store, id).await
}

async fn read_again(store: &dyn HostStore, id: &str) -> Result<Read, ErrorData> {
    read(store, id).await?.ok_or_else(|| unknown(id))
}

/// Fails a task whose host stopped, delivering first the answer the person
/// gave that the stopped host had not delivered (the delivery is exactly
/// once, so hosts racing to take over deliver it once between them).
async fn take_over(host: &Host, read: Read) -> Result<(), ErrorData> {
    let mut said = "the host that ran this task stopped before it finished; call again";
    if let State::Asking {
        form,
        answer: Some(answer),
        ..
    } = &read.body.state
        && let Some(form) = Form::of(&read.record.owner, &form.opportunity, &form.question)
        && let Ok(result) = serde_json::from_value::<ElicitResult>(answer.clone())
    {
        // The person answered through a host that stopped: this host
        // delivers it on its own, with no request of theirs behind it.
        let actor = Actor::new(ActorKind::Host, None, None);
        let offered = answer_form(host, &form, &result, &actor).await;
        tracing::info!(
            ?offered,
            "a stopped host's task: its answer delivered by another"
        );
        if matches!(offered, Offered::Answered(_)) {
            said = "the host that ran this task stopped before it finished; your person's answer was delivered";
        }
    }
    let failed = State::failed(&ErrorData::internal_error(said, None));
    let stopped = UnixTime::now();
    change(host.store().as_ref(), &read.record.id, |record, body| {
        record.lease_until < stopped && end(record, body, &failed)
    })
    .await?;
    Ok(())
}

/// The extension's error for a task id it does not know: invalid params.
fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

fn store_failed(err: index_negotiation_store::StoreError) -> ErrorData {
    tracing::error!(error = %err, "the store failed on a task");
    ErrorData::internal_error("the store failed; try again", None)
}

/// A result or an error as the JSON object a task carries.
fn object<T: serde::Serialize>(value: &T) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    // Tests report failure by panicking.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use rmcp::model::ContentBlock;
    use serde_json::json;

    use index_negotiation_store::{HostStateStore, MemoryStore};

    use super::*;

    fn user(name: &str) -> UserId {
        UserId::parse(name).unwrap()
    }

    async fn hosts(store: &MemoryStore) -> (Host, Host) {
        (
            Host::new(Arc::new(store.clone())).await.unwrap(),
            Host::new(Arc::new(store.clone())).await.unwrap(),
        )
    }

    fn form(owner: &UserId) -> Form {
        let question: StructuredQuestion = serde_json::from_value(json!({
            "title": "Equity", "prompt": "How much equity?", "multiSelect": false,
            "options": [{"label": "1%", "description": "Retry with 1%."},
                        {"label": "3%", "description": "Retry with 3%."}]}))
        .unwrap();
        let id = OpportunityId::parse("0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36").unwrap();
        Form::of(owner, &id, &question).unwrap()
    }

    /// Starts a task on `host` that asks once and completes with the answer.
    async fn asking_task(host: &Host, owner: &UserId) -> Option<String> {
        let form = form(owner);
        Tasks::default()
            .start(host, owner, Duration::from_secs(60), |in_task| async move {
                let answer = in_task.ask(&form).await.unwrap_or_default();
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    answer.to_string(),
                )]))
            })
            .await
            .map(|task| task.task_id)
    }

    async fn settled(host: &Host, owner: &UserId, id: &str, status: TaskStatus) -> DetailedTask {
        for _ in 0..400 {
            let task = Tasks::default().get(host, owner, id).await.unwrap();
            if task.status() == status {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} never became {status:?}");
    }

    fn answer(key: &str, value: serde_json::Value) -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([(key.to_owned(), value)])
    }

    #[tokio::test]
    async fn a_task_started_on_one_host_is_read_and_answered_once_on_another() {
        let store = MemoryStore::new();
        let (here, there) = hosts(&store).await;
        let dana = user("dana");
        let id = asking_task(&here, &dana).await.unwrap();
        assert_eq!(id.len(), 64);
        let asked = settled(&there, &dana, &id, TaskStatus::InputRequired).await;
        let TaskPayload::InputRequired { input_requests } = asked.payload else {
            panic!("{asked:?}")
        };
        let key = form(&dana).key().to_owned();
        assert_eq!(input_requests.keys().collect::<Vec<_>>(), [&key]);

        // A key never asked is ignored; the ask stands.
        let tasks = Tasks::default();
        tasks
            .update(&there, &dana, &id, answer("other", json!(1)))
            .await
            .unwrap();
        settled(&there, &dana, &id, TaskStatus::InputRequired).await;

        tasks
            .update(&there, &dana, &id, answer(&key, json!("yes")))
            .await
            .unwrap();
        // Answered once: a second answer before the work takes it is ignored.
        tasks
            .update(&there, &dana, &id, answer(&key, json!("no")))
            .await
            .unwrap();
        let done = settled(&there, &dana, &id, TaskStatus::Completed).await;
        let TaskPayload::Completed { result } = done.payload else {
            panic!("{done:?}")
        };
        assert_eq!(result["content"][0]["text"], json!("\"yes\""));
        let before = tasks.get(&here, &dana, &id).await.unwrap();
        tasks
            .update(&here, &dana, &id, answer(&key, json!("no")))
            .await
            .unwrap();
        assert_eq!(
            tasks.get(&there, &dana, &id).await.unwrap().payload,
            before.payload
        );
    }

    #[tokio::test]
    async fn a_strangers_task_answers_as_a_missing_one() {
        let store = MemoryStore::new();
        let (here, there) = hosts(&store).await;
        let (dana, sam) = (user("dana"), user("sam"));
        let id = asking_task(&here, &dana).await.unwrap();
        let missing = "0".repeat(64);
        let as_missing = |err: ErrorData, id: &str| (err.code, err.message.replace(id, "ID"));
        let tasks = Tasks::default();
        let expected = as_missing(
            tasks.get(&there, &sam, &missing).await.unwrap_err(),
            &missing,
        );
        assert_eq!(
            as_missing(tasks.get(&there, &sam, &id).await.unwrap_err(), &id),
            expected
        );
        let key = form(&dana).key().to_owned();
        let update = tasks
            .update(&there, &sam, &id, answer(&key, json!("yes")))
            .await;
        assert_eq!(as_missing(update.unwrap_err(), &id), expected);
        let cancel = tasks.cancel(&there, &sam, &id).await;
        assert_eq!(as_missing(cancel.unwrap_err(), &id), expected);
        // None of it touched dana's task.
        settled(&here, &dana, &id, TaskStatus::InputRequired).await;
    }

    #[tokio::test]
    async fn a_task_cancelled_on_another_host_ends_cancelled_and_asks_no_more() {
        let store = MemoryStore::new();
        let (here, there) = hosts(&store).await;
        let dana = user("dana");
        let id = asking_task(&here, &dana).await.unwrap();
        settled(&there, &dana, &id, TaskStatus::InputRequired).await;
        Tasks::default().cancel(&there, &dana, &id).await.unwrap();
        let ended = settled(&here, &dana, &id, TaskStatus::Cancelled).await;
        assert_eq!(ended.payload, TaskPayload::Cancelled);
        // The work saw it, stopped asking, and its end did not overwrite it.
        tokio::time::sleep(LOOK_EVERY * 3).await;
        let after = Tasks::default().get(&there, &dana, &id).await.unwrap();
        assert_eq!(after.payload, TaskPayload::Cancelled);
    }

    #[tokio::test]
    async fn a_person_makes_room_by_their_own_oldest_finished_task() {
        let store = MemoryStore::new();
        let (host, _) = hosts(&store).await;
        let (dana, sam) = (user("dana"), user("sam"));
        let quick = |owner: UserId| {
            let host = host.clone();
            async move {
                Tasks::default()
                    .start(&host, &owner, Duration::from_secs(60), |_| async {
                        Ok(CallToolResult::success(Vec::new()))
                    })
                    .await
                    .map(|task| task.task_id)
            }
        };
        let sams = quick(sam.clone()).await.unwrap();
        let first = quick(dana.clone()).await.unwrap();
        settled(&host, &dana, &first, TaskStatus::Completed).await;
        let mut running = Vec::new();
        for _ in 1..MOST_PER_PERSON {
            running.push(asking_task(&host, &dana).await.unwrap());
        }
        // Full: the finished one makes room, and is gone.
        let newest = quick(dana.clone()).await.unwrap();
        assert!(Tasks::default().get(&host, &dana, &first).await.is_err());
        settled(&host, &dana, &newest, TaskStatus::Completed).await;
        settled(&host, &sam, &sams, TaskStatus::Completed).await;
        // Every other task of dana's still runs: no room, no task.
        running.push(asking_task(&host, &dana).await.unwrap());
        for id in &running {
            settled(&host, &dana, id, TaskStatus::InputRequired).await;
        }
        assert!(quick(dana).await.is_none());
        assert!(quick(sam).await.is_some(), "sam's share is his own");
    }

    #[tokio::test]
    async fn a_task_whose_host_stopped_is_failed_by_the_next_host_that_reads_it() {
        let store = MemoryStore::new();
        let (host, _) = hosts(&store).await;
        let dana = user("dana");
        // A task as a host left it when it stopped: working, its lease out.
        let stamp = current_timestamp();
        let mut task = Task::new("a".repeat(64), TaskStatus::Working, stamp.clone(), stamp);
        task.ttl_ms = Some(600_000);
        let long_ago = UnixTime(UnixTime::now().0 - 60);
        let record = TaskRecord {
            id: task.task_id.clone(),
            owner: dana.clone(),
            version: 0,
            started_at: long_ago,
            lease_until: long_ago.after(LEASE),
            forget_at: None,
            body: serde_json::to_string(&Body {
                task,
                state: State::Working,
            })
            .unwrap(),
        };
        assert!(
            store
                .insert_task(&record, MOST_PER_PERSON, UnixTime::now())
                .await
                .unwrap()
        );
        let read = Tasks::default()
            .get(&host, &dana, &record.id)
            .await
            .unwrap();
        let TaskPayload::Failed { error } = read.payload else {
            panic!("{read:?}")
        };
        assert!(
            error["message"].as_str().unwrap().contains("stopped"),
            "{error:?}"
        );
    }
}
