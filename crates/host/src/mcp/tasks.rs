//! Long tool calls as MCP tasks (the `io.modelcontextprotocol/tasks`
//! extension): a client that declares the extension gets a task for a
//! `get_negotiation` wait or a park, polls it with `tasks/get`, and
//! answers the parked question the task asks with `tasks/update`; the
//! answer goes through the same exactly-once delivery as every other.
//!
//! rmcp serves the extension's methods and types; the tasks themselves are
//! kept here rather than in rmcp's `TaskManager` because a host needs what
//! that store does not offer: every task belongs to the person whose key
//! started it (a stranger's task id answers exactly like an unknown one),
//! ids are 256 random bits, and one person's tasks are bounded, their own
//! oldest finished task making room for a new one, so a client that polls
//! with tasks all day holds a fixed amount of memory.
//!
//! Tasks live in the process that started them: a `tasks/get` sent to
//! another process on the same store finds none.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, DetailedTask, InputRequest, InputRequests, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use rmcp::task_manager::current_timestamp;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use index_negotiation_store::UserId;

/// How many tasks one person may hold, running or finished; a finished
/// one is kept until its time runs out or the person needs the room.
const MOST_PER_PERSON: usize = 16;

/// How many tasks a process holds at most.
const MOST_HELD: usize = 10_000;

/// How long a finished task stays readable at least, whatever its
/// time to live, so that a client polling at the suggested interval reads
/// how it ended.
const READABLE_AFTER_END: Duration = Duration::from_secs(60);

/// How often a client is asked to poll.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// The tasks of this process. Cheap to clone; clones share the tasks.
#[derive(Clone, Default)]
pub(crate) struct Tasks {
    held: Arc<Mutex<BTreeMap<String, Held>>>,
}

/// One task: whose it is, what a client reads of it, and what it waits on.
struct Held {
    owner: UserId,
    task: Task,
    state: State,
    /// Cancelled by `tasks/cancel`: the work stops where it waits.
    cancel: CancellationToken,
    /// When it started, and when its time to live runs out.
    started: Instant,
    expires: Instant,
    /// When it ended, if it has.
    ended: Option<Instant>,
}

enum State {
    Working,
    /// The work waits on the client's answer to `request`, under `key`.
    Asking {
        key: String,
        request: Box<InputRequest>,
        answer: oneshot::Sender<serde_json::Value>,
    },
    /// Ended: completed, failed or cancelled.
    Ended(TaskPayload),
}

impl Held {
    /// Moves the task to `state`, as of now; what it was.
    fn become_(&mut self, state: State) -> State {
        self.task.last_updated_at = current_timestamp();
        std::mem::replace(&mut self.state, state)
    }
}

/// A tool call running as a task, handed to the tool so that it can ask
/// its caller's person through the task.
#[derive(Clone)]
pub(crate) struct InTask {
    tasks: Tasks,
    id: String,
}

impl InTask {
    /// Asks the client `request` under `key` and waits for its answer,
    /// delivered by `tasks/update`. `None` when the task was cancelled or
    /// is gone.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Option<serde_json::Value> {
        let (answer, answered) = oneshot::channel();
        {
            let mut held = self.tasks.lock()?;
            let entry = held.get_mut(&self.id)?;
            if !matches!(entry.state, State::Working) || entry.cancel.is_cancelled() {
                return None;
            }
            entry.become_(State::Asking {
                key: key.to_owned(),
                request: Box::new(request),
                answer,
            });
        }
        // However the wait ends (answered, or dropped because the work
        // moved on), the task no longer asks.
        let _asking = Asking(self);
        answered.await.ok()
    }
}

/// While alive, a task asks; dropped, it asks no more (if no answer came).
struct Asking<'a>(&'a InTask);

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        if let Some(mut held) = self.0.tasks.lock()
            && let Some(entry) = held.get_mut(&self.0.id)
            && matches!(entry.state, State::Asking { .. })
        {
            entry.become_(State::Working);
        }
    }
}

impl Tasks {
    fn lock(&self) -> Option<MutexGuard<'_, BTreeMap<String, Held>>> {
        self.held.lock().ok()
    }

    /// Starts `work` as a task of `owner`'s that may live for `ttl`, and
    /// returns the task as a client first reads it. `None` when no task can
    /// be started (every one of the person's tasks is still running, the
    /// process holds its most, or no id can be drawn): the call is then
    /// answered without one.
    pub(crate) fn start<W, F>(&self, owner: &UserId, ttl: Duration, work: W) -> Option<Task>
    where
        W: FnOnce(InTask) -> F,
        F: Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
    {
        let id = crate::service::keys::random_hex().ok()?;
        let now = Instant::now();
        let stamp = current_timestamp();
        let mut task = Task::new(id.clone(), TaskStatus::Working, stamp.clone(), stamp);
        task.ttl_ms = u64::try_from(ttl.as_millis()).ok();
        task.poll_interval_ms = u64::try_from(POLL_EVERY.as_millis()).ok();
        let cancel = CancellationToken::new();
        {
            let mut held = self.lock()?;
            sweep(&mut held, now);
            if !make_room(&mut held, Some(owner), MOST_PER_PERSON)
                || !make_room(&mut held, None, MOST_HELD)
            {
                return None;
            }
            held.insert(
                id.clone(),
                Held {
                    owner: owner.clone(),
                    task: task.clone(),
                    state: State::Working,
                    cancel: cancel.clone(),
                    started: now,
                    expires: now + ttl,
                    ended: None,
                },
            );
        }
        let work = work(InTask {
            tasks: self.clone(),
            id: id.clone(),
        });
        let tasks = self.clone();
        tokio::spawn(async move {
            let payload = tokio::select! {
                biased;
                () = cancel.cancelled() => TaskPayload::Cancelled,
                () = tokio::time::sleep(ttl) => TaskPayload::Failed {
                    error: object(&ErrorData::internal_error("the task ran out of time", None)),
                },
                ended = work => match ended {
                    Ok(result) => TaskPayload::Completed { result: object(&result) },
                    Err(error) => TaskPayload::Failed { error: object(&error) },
                },
            };
            tasks.end(&id, payload);
        });
        Some(task)
    }

    /// Records how a task ended (the first end wins: a cancel is not
    /// overwritten by the work's own end).
    fn end(&self, id: &str, payload: TaskPayload) {
        let Some(mut held) = self.lock() else { return };
        if let Some(entry) = held.get_mut(id)
            && !matches!(entry.state, State::Ended(_))
        {
            entry.become_(State::Ended(payload));
            entry.ended = Some(Instant::now());
        }
    }

    /// `tasks/get`: the task as it is now, if it is the caller's.
    pub(crate) fn get(&self, caller: &UserId, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut held = self.lock().ok_or_else(|| unknown(id))?;
        sweep(&mut held, Instant::now());
        let entry = theirs(&mut held, caller, id)?;
        let payload = match &entry.state {
            State::Working => TaskPayload::Working,
            State::Asking { key, request, .. } => {
                let mut requests = InputRequests::new();
                requests.insert(key.clone(), request.as_ref().clone());
                TaskPayload::InputRequired {
                    input_requests: requests,
                }
            }
            State::Ended(payload) => payload.clone(),
        };
        Ok(DetailedTask::new(entry.task.clone(), payload))
    }

    /// `tasks/update`: hands the work the answer to what it asks, if the
    /// responses hold one under its key; any other response (to a key no
    /// longer asked, or never asked) is ignored, as the extension says.
    pub(crate) fn update(
        &self,
        caller: &UserId,
        id: &str,
        mut responses: BTreeMap<String, serde_json::Value>,
    ) -> Result<(), ErrorData> {
        let mut held = self.lock().ok_or_else(|| unknown(id))?;
        sweep(&mut held, Instant::now());
        let entry = theirs(&mut held, caller, id)?;
        let response = match &entry.state {
            State::Asking { key, .. } => responses.remove(key),
            _ => None,
        };
        if let Some(response) = response
            && let State::Asking { answer, .. } = entry.become_(State::Working)
        {
            // The work gone already is the work's business.
            let _ = answer.send(response);
        }
        Ok(())
    }

    /// `tasks/cancel`: the task ends as cancelled unless it already ended.
    /// An answer being delivered when the cancel comes is delivered whole.
    pub(crate) fn cancel(&self, caller: &UserId, id: &str) -> Result<(), ErrorData> {
        let mut held = self.lock().ok_or_else(|| unknown(id))?;
        sweep(&mut held, Instant::now());
        theirs(&mut held, caller, id)?.cancel.cancel();
        Ok(())
    }
}

/// The caller's task `id`; a stranger's answers exactly as a missing one.
fn theirs<'a>(
    held: &'a mut BTreeMap<String, Held>,
    caller: &UserId,
    id: &str,
) -> Result<&'a mut Held, ErrorData> {
    held.get_mut(id)
        .filter(|entry| entry.owner == *caller)
        .ok_or_else(|| unknown(id))
}

/// The extension's error for a task id it does not know: invalid params.
fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

/// Forgets the tasks that ended and whose time ran out.
fn sweep(held: &mut BTreeMap<String, Held>, now: Instant) {
    held.retain(|_, entry| match entry.ended {
        Some(ended) => entry.expires.max(ended + READABLE_AFTER_END) > now,
        None => true,
    });
}

/// Whether there is room for one more task among `owner`'s (or among all,
/// for `None`) below `most`, made by forgetting the oldest finished one.
fn make_room(held: &mut BTreeMap<String, Held>, owner: Option<&UserId>, most: usize) -> bool {
    let among = |entry: &Held| owner.is_none_or(|owner| entry.owner == *owner);
    if held.values().filter(|entry| among(entry)).count() < most {
        return true;
    }
    let oldest_ended = held
        .iter()
        .filter(|(_, entry)| among(entry) && entry.ended.is_some())
        .min_by_key(|(_, entry)| entry.started)
        .map(|(id, _)| id.clone());
    oldest_ended.is_some_and(|id| held.remove(&id).is_some())
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

    use rmcp::model::{ContentBlock, ElicitRequest, ElicitRequestParams};
    use serde_json::json;

    use super::*;

    fn user(name: &str) -> UserId {
        UserId::parse(name).unwrap()
    }

    fn form() -> InputRequest {
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form", "message": "Which?",
            "requestedSchema": {"type": "object", "properties": {}}
        }))
        .unwrap();
        InputRequest::Elicitation(ElicitRequest::new(params))
    }

    /// Starts a task that asks once under "q" and completes with the answer.
    fn asking_task(tasks: &Tasks, owner: &UserId) -> String {
        tasks
            .start(owner, Duration::from_secs(60), |in_task| async move {
                let answer = in_task.ask("q", form()).await.unwrap_or_default();
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    answer.to_string(),
                )]))
            })
            .unwrap()
            .task_id
    }

    async fn settled(tasks: &Tasks, owner: &UserId, id: &str, status: TaskStatus) -> DetailedTask {
        for _ in 0..200 {
            let task = tasks.get(owner, id).unwrap();
            if task.status() == status {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("task {id} never became {status:?}");
    }

    #[tokio::test]
    async fn a_task_asks_its_owner_and_ends_with_the_answer_given_once() {
        let tasks = Tasks::default();
        let dana = user("dana");
        let id = asking_task(&tasks, &dana);
        assert_eq!(id.len(), 64);
        let asked = settled(&tasks, &dana, &id, TaskStatus::InputRequired).await;
        let TaskPayload::InputRequired { input_requests } = asked.payload else {
            panic!("{asked:?}")
        };
        assert_eq!(input_requests.keys().collect::<Vec<_>>(), ["q"]);

        // A key never asked is ignored; the ask stands.
        tasks
            .update(&dana, &id, BTreeMap::from([("other".to_owned(), json!(1))]))
            .unwrap();
        settled(&tasks, &dana, &id, TaskStatus::InputRequired).await;

        tasks
            .update(&dana, &id, BTreeMap::from([("q".to_owned(), json!("yes"))]))
            .unwrap();
        let done = settled(&tasks, &dana, &id, TaskStatus::Completed).await;
        let TaskPayload::Completed { result } = done.payload else {
            panic!("{done:?}")
        };
        assert_eq!(result["content"][0]["text"], json!("\"yes\""));
        // The same key again: no longer asked, ignored, still completed.
        let before = tasks.get(&dana, &id).unwrap();
        tasks
            .update(&dana, &id, BTreeMap::from([("q".to_owned(), json!("no"))]))
            .unwrap();
        assert_eq!(tasks.get(&dana, &id).unwrap().payload, before.payload);
    }

    #[tokio::test]
    async fn a_strangers_task_answers_as_a_missing_one() {
        let tasks = Tasks::default();
        let (dana, sam) = (user("dana"), user("sam"));
        let id = asking_task(&tasks, &dana);
        let missing = "0".repeat(64);
        let as_missing = |err: ErrorData, id: &str| (err.code, err.message.replace(id, "ID"));
        let expected = as_missing(tasks.get(&sam, &missing).unwrap_err(), &missing);
        assert_eq!(as_missing(tasks.get(&sam, &id).unwrap_err(), &id), expected);
        let answer = BTreeMap::from([("q".to_owned(), json!("yes"))]);
        assert_eq!(
            as_missing(tasks.update(&sam, &id, answer).unwrap_err(), &id),
            expected
        );
        assert_eq!(
            as_missing(tasks.cancel(&sam, &id).unwrap_err(), &id),
            expected
        );
        // None of it touched dana's task.
        settled(&tasks, &dana, &id, TaskStatus::InputRequired).await;
    }

    #[tokio::test]
    async fn a_cancelled_task_ends_cancelled_and_asks_no_more() {
        let tasks = Tasks::default();
        let dana = user("dana");
        let id = asking_task(&tasks, &dana);
        settled(&tasks, &dana, &id, TaskStatus::InputRequired).await;
        tasks.cancel(&dana, &id).unwrap();
        let ended = settled(&tasks, &dana, &id, TaskStatus::Cancelled).await;
        assert_eq!(ended.payload, TaskPayload::Cancelled);
    }

    #[tokio::test]
    async fn a_person_makes_room_by_their_own_oldest_finished_task() {
        let tasks = Tasks::default();
        let (dana, sam) = (user("dana"), user("sam"));
        let quick = |owner: &UserId| {
            tasks
                .start(owner, Duration::from_secs(60), |_| async {
                    Ok(CallToolResult::success(Vec::new()))
                })
                .map(|task| task.task_id)
        };
        let sams = quick(&sam).unwrap();
        let first = quick(&dana).unwrap();
        settled(&tasks, &dana, &first, TaskStatus::Completed).await;
        let mut running = Vec::new();
        for _ in 1..MOST_PER_PERSON {
            running.push(asking_task(&tasks, &dana));
        }
        // Full: the finished one makes room, and is gone.
        let newest = quick(&dana).unwrap();
        assert!(tasks.get(&dana, &first).is_err());
        settled(&tasks, &dana, &newest, TaskStatus::Completed).await;
        settled(&tasks, &sam, &sams, TaskStatus::Completed).await;
        // Every other task of dana's still runs: no room, no task.
        running.push(asking_task(&tasks, &dana));
        for id in &running {
            settled(&tasks, &dana, id, TaskStatus::InputRequired).await;
        }
        assert!(quick(&dana).is_none());
        assert!(quick(&sam).is_some(), "sam's share is his own");
    }
}
