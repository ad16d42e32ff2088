//! The host's service: every operation a caller may ask for, checked
//! against who the caller is, carried out through the `Negotiations`
//! service, and announced to whoever waits.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use index_negotiation::is_visible_to;
use index_negotiation::{Decision, NegotiationMessage, NegotiationTurn, SeatStanding};
use index_negotiation_store::{
    ApiKeyStore, AuditStep, CloseReason, Committed, DeliveryReport, HostStore, KeyScope,
    ListFilter, NegotiationPage, NegotiationSummary, Negotiations, OpenDecision, OpenNegotiation,
    OpportunityId, QuestionLoopSettings, SeatView, StateFilter, UserId,
};
use index_stall_gap::{ParkError, ParkRequest, Parked, park_negotiation};

use index_question_block::StructuredQuestion;

use crate::service::error::HostError;
use crate::service::keys::{Caller, KeyOptions, NewKey, authenticate, create_key};
use crate::service::wire::{
    AskedQuestion, MAX_WAIT, NegotiationView, Questions, Resumed, TurnTaken, UnreadableQuestion,
};

/// What a host is built with: settings read once, when it starts (from the
/// command line and the environment), never inside a request.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct HostSettings {
    /// Who authors park questions; without one, a park is refused.
    pub author: Option<Arc<dyn index_stall_gap::StallGapAuthor>>,
    /// The question loop's settings: the ask-round cap.
    pub question_loop: QuestionLoopSettings,
    /// How long a parked question put to its person by elicitation waits
    /// for their answer before it is left to the question message
    /// [default: the ask-user window, a day].
    pub ask_user_window: Option<Duration>,
    /// The identity provider whose access tokens the host takes beside
    /// API keys (see [`IssuerSettings`](crate::IssuerSettings)); none by default.
    pub oauth_issuer: Option<crate::service::issuer::IssuerSettings>,
    /// The host's own authorization server, for clients that connect only
    /// through OAuth (see [`AuthorizationSettings`](crate::AuthorizationSettings));
    /// none by default. Not beside an identity provider.
    pub authorization: Option<crate::service::authorization::AuthorizationSettings>,
}

impl std::fmt::Debug for HostSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostSettings")
            .field("author", &self.author.as_ref().map(|_| "…"))
            .field("question_loop", &self.question_loop)
            .field("ask_user_window", &self.ask_user_window)
            .field("oauth_issuer", &self.oauth_issuer)
            .field("authorization", &self.authorization)
            .finish()
    }
}

/// The negotiations one caller watches, each with how it last looked
/// (see [`Host::changes_of`]).
pub(crate) struct Changes {
    host: Host,
    seen: BTreeMap<OpportunityId, NegotiationSummary>,
    receiver: tokio::sync::watch::Receiver<u64>,
}

impl Changes {
    /// Whether nothing is watched: none of the ids was the caller's.
    pub(crate) fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The next watched negotiation whose record changed (a turn, a resume,
    /// a park, an answer, a close), or `None` once the host shuts down.
    pub(crate) async fn next(&mut self) -> Option<OpportunityId> {
        loop {
            for (id, last) in &mut self.seen {
                // A read that fails is tried again on the next change.
                if let Ok(Some(now)) = self.host.store().get_negotiation(id).await
                    && now != *last
                {
                    *last = now;
                    return Some(id.clone());
                }
            }
            tokio::select! {
                changed = self.receiver.changed() => changed.ok()?,
                () = self.host.inner.closing.cancelled() => return None,
            }
        }
    }
}

/// What [`Host::watch_parks`] tells: the host, the person whose question
/// a park put, the negotiation, the question.
pub(crate) type ParkWatcher =
    Arc<dyn Fn(&Host, &UserId, &OpportunityId, &StructuredQuestion) + Send + Sync>;

/// The negotiation host: authentication, who may do what, and waking
/// waiters. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

struct Inner {
    negotiations: Negotiations<Arc<dyn HostStore>>,
    /// Bumped after every change this host makes and every change another
    /// process reports through the store's change feed.
    changes: tokio::sync::watch::Sender<u64>,
    /// Cancelled when the host shuts down, so waits answer at once.
    closing: tokio_util::sync::CancellationToken,
    /// Who authors park questions, if this host has a model.
    author: Option<Arc<dyn index_stall_gap::StallGapAuthor>>,
    /// What the transports keep beside the host.
    attached: crate::service::attached::Attached,
    /// Told of each question a park puts to its person, so a transport
    /// that can reach the person right away (an MCP client that shows
    /// forms) puts it to them.
    park_watchers: std::sync::Mutex<Vec<ParkWatcher>>,
    /// How long a parked question put by elicitation waits for its answer.
    ask_user_window: Duration,
    /// What `/metrics` reports.
    metrics: crate::service::metrics::Metrics,
    /// The store's signing keys, as this host last read them.
    signer: crate::service::signing::Signer,
    /// The identity provider whose tokens are taken, if any.
    issuer: Option<Arc<crate::service::issuer::Issuer>>,
    /// The host's own authorization server, if it runs one.
    authorization: Option<crate::service::authorization::AuthorizationSettings>,
    /// The API keys this host looked up, until any process changes one.
    keys: Arc<crate::service::key_cache::KeyCache>,
    /// Cancels the token the store's feed relays end on when the last
    /// handle on the host drops (see [`crate::service::feed_relay`]).
    _gone: tokio_util::sync::DropGuard,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}

/// The id `/readyz` reads: a valid id that no negotiation is given.
const READY_PROBE: &str = "00000000-0000-4000-8000-000000000000";

impl Host {
    /// A host on `store`. Starts watching the store's change feed (if it has
    /// one) so that waits wake on other processes' commits too.
    ///
    /// # Errors
    ///
    /// [`HostError::Store`] when the store cannot start its change feed.
    pub async fn new(store: Arc<dyn HostStore>) -> Result<Self, HostError> {
        Self::with_author(store, None).await
    }

    /// A host on `store` that parks stalled negotiations with `author`'s
    /// questions (see [`Host::park`]), with the other settings' defaults.
    ///
    /// # Errors
    ///
    /// As [`Host::new`].
    pub async fn with_author(
        store: Arc<dyn HostStore>,
        author: Option<Arc<dyn index_stall_gap::StallGapAuthor>>,
    ) -> Result<Self, HostError> {
        let settings = HostSettings {
            author,
            ..HostSettings::default()
        };
        Self::with_settings(store, settings).await
    }

    /// A host on `store`, built with `settings`.
    ///
    /// # Errors
    ///
    /// As [`Host::new`].
    pub async fn with_settings(
        store: Arc<dyn HostStore>,
        settings: HostSettings,
    ) -> Result<Self, HostError> {
        let feed = store.change_feed().await?;
        let gone = tokio_util::sync::CancellationToken::new();
        let (keys, key_feed) = crate::service::key_cache::KeyCache::new(store.key_changes().await?);
        let keys = Arc::new(keys);
        if let Some(key_feed) = key_feed {
            crate::service::key_cache::KeyCache::watch(
                Arc::downgrade(&keys),
                key_feed,
                gone.clone(),
            );
        }
        let (changes, _) = tokio::sync::watch::channel(0);
        if settings.oauth_issuer.is_some() && settings.authorization.is_some() {
            return Err(HostError::BadRequest(
                "a host takes an identity provider's tokens or runs its own authorization server, not both".to_owned(),
            ));
        }
        let issuer = settings
            .oauth_issuer
            .map(crate::service::issuer::Issuer::new)
            .transpose()?
            .map(Arc::new);
        let host = Host {
            inner: Arc::new(Inner {
                negotiations: Negotiations::with_settings(store, settings.question_loop),
                changes,
                closing: tokio_util::sync::CancellationToken::new(),
                author: settings.author.clone(),
                attached: crate::service::attached::Attached::default(),
                park_watchers: std::sync::Mutex::default(),
                ask_user_window: settings.ask_user_window.unwrap_or(Duration::from_millis(
                    index_negotiation::DEFAULT_ASK_USER_WINDOW_MS,
                )),
                metrics: crate::service::metrics::Metrics::new(settings.author.clone()),
                signer: crate::service::signing::Signer::default(),
                issuer,
                authorization: settings.authorization,
                keys,
                _gone: gone.clone().drop_guard(),
            }),
        };
        if let Some(feed) = feed {
            let weak = Arc::downgrade(&host.inner);
            let each = move || {
                weak.upgrade()
                    .map(|inner| inner.changes.send_modify(|generation| *generation += 1))
                    .is_some()
            };
            crate::service::feed_relay::relay(feed, gone, each, || {});
        }
        Ok(host)
    }

    /// The store, for what a transport keeps in it between requests
    /// (MCP's tasks).
    pub(crate) fn store(&self) -> &Arc<dyn HostStore> {
        self.inner.negotiations.store()
    }

    /// The store's API keys, through the keys this host keeps.
    pub(crate) fn keys(&self) -> crate::service::key_cache::Cached<'_> {
        self.inner.keys.over(self.store().as_ref())
    }

    /// `payload`, signed so that any host of the store can check it (see
    /// `crate::service::signing`).
    pub(crate) async fn sign(
        &self,
        payload: &[u8],
    ) -> Result<String, crate::service::signing::SignError> {
        self.inner.signer.sign(self.store().as_ref(), payload).await
    }

    /// What a token signed by any host of the store carries, when it is
    /// one and unchanged.
    pub(crate) async fn open_signed(&self, token: &str) -> Option<Vec<u8>> {
        self.inner.signer.open(self.store().as_ref(), token).await
    }

    /// What `/metrics` reports.
    pub(crate) fn metrics(&self) -> &crate::service::metrics::Metrics {
        &self.inner.metrics
    }

    /// The metrics in Prometheus's text format, for a host key.
    ///
    /// # Errors
    ///
    /// [`HostError::Forbidden`] for an agent key: what a host serves is
    /// the operator's to see.
    pub async fn metrics_text(&self, caller: &Caller) -> Result<String, HostError> {
        require_host(caller)?;
        Ok(self.inner.metrics.render().await)
    }

    /// Ends every wait under way (each answers with the negotiation as it
    /// is); requests keep being served until the listener stops.
    pub fn shut_down(&self) {
        self.inner.closing.cancel();
    }

    pub(crate) fn changed(&self) {
        self.inner
            .changes
            .send_modify(|generation| *generation += 1);
    }

    /// Whether the store answers: one read of a negotiation that is never
    /// there, as `/readyz` asks it.
    ///
    /// # Errors
    ///
    /// [`HostError::Store`] when the store does not answer.
    pub async fn ready(&self) -> Result<(), HostError> {
        if let Ok(probe) = OpportunityId::parse(READY_PROBE) {
            self.store().get_negotiation(&probe).await?;
        }
        Ok(())
    }

    /// The caller a bearer token names, in the request `request_id` (which
    /// the audit record names beside each of its steps, and beside a
    /// refusal of a key that no longer works).
    ///
    /// # Errors
    ///
    /// [`HostError::Unauthorized`] for anything but a valid, unrevoked key,
    /// [`HostError::KeyExpired`] for one whose time is up.
    pub async fn authenticate(
        &self,
        token: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<Caller, HostError> {
        match (&self.inner.issuer, token) {
            (Some(issuer), Some(token)) if !token.starts_with(crate::service::keys::KEY_PREFIX) => {
                let mut caller = issuer.authenticate(token).await?;
                caller.request_id = request_id.map(str::to_owned);
                Ok(caller)
            }
            _ => authenticate(&self.keys(), token, request_id).await,
        }
    }

    /// The caller a browser's session cookie names: a session key only
    /// (see [`crate::service::keys::authenticate_session`]).
    pub(crate) async fn authenticate_session(
        &self,
        token: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<Caller, HostError> {
        crate::service::keys::authenticate_session(&self.keys(), token, request_id).await
    }

    /// The host's own authorization server, if it runs one.
    pub(crate) fn authorization(
        &self,
    ) -> Option<&crate::service::authorization::AuthorizationSettings> {
        self.inner.authorization.as_ref()
    }

    /// The identity provider whose access tokens this host takes, if any.
    pub(crate) fn oauth_issuer(&self) -> Option<&crate::service::issuer::IssuerSettings> {
        self.inner
            .issuer
            .as_deref()
            .map(crate::service::issuer::Issuer::settings)
    }

    /// Signs a browser in with a person's key or a login link: its session
    /// key (see [`crate::service::keys::sign_in`]).
    ///
    /// # Errors
    ///
    /// As [`crate::service::keys::sign_in`].
    pub async fn sign_in(
        &self,
        secret: &str,
        request_id: Option<&str>,
    ) -> Result<NewKey, HostError> {
        crate::service::keys::sign_in(&self.keys(), secret, request_id).await
    }

    /// Ends the browser session `caller` is, on every process of the store.
    ///
    /// # Errors
    ///
    /// [`HostError::Store`] when the store fails.
    pub async fn sign_out(&self, caller: &Caller) -> Result<(), HostError> {
        self.keys()
            .revoke_api_key(&caller.key_id, AuditStep::SignedOut, &caller.actor())
            .await?;
        Ok(())
    }

    /// Makes a key for `user_id` (see [`create_key`]).
    ///
    /// # Errors
    ///
    /// As [`create_key`].
    pub async fn create_key(&self, user_id: UserId, scope: KeyScope) -> Result<NewKey, HostError> {
        create_key(
            self.store().as_ref(),
            user_id,
            scope,
            &KeyOptions::default(),
        )
        .await
    }

    /// The negotiation's summary, if the caller holds a seat in it; a
    /// negotiation without the caller answers as missing.
    async fn seated(
        &self,
        caller: &Caller,
        id: &OpportunityId,
    ) -> Result<NegotiationSummary, HostError> {
        match self.store().get_negotiation(id).await? {
            Some(summary)
                if summary.initiator.user_id == caller.user_id
                    || summary.responder.user_id == caller.user_id =>
            {
                Ok(summary)
            }
            _ => Err(HostError::NotFound),
        }
    }

    /// The negotiation as the caller's seat sees it.
    ///
    /// # Errors
    ///
    /// [`HostError::NotFound`] unless the caller holds a seat in it.
    pub async fn view(
        &self,
        caller: &Caller,
        id: &OpportunityId,
    ) -> Result<NegotiationView, HostError> {
        self.seat_view(caller, id).await.map(NegotiationView::of)
    }

    /// The store's view of the negotiation for the caller's seat
    /// ([`Negotiations::view`]), which alone says what a seat sees; a
    /// negotiation without the caller answers as missing.
    async fn seat_view(&self, caller: &Caller, id: &OpportunityId) -> Result<SeatView, HostError> {
        self.inner
            .negotiations
            .view(id, &caller.user_id)
            .await?
            .ok_or(HostError::NotFound)
    }

    /// Waits up to `wait` (at most [`MAX_WAIT`]) for the negotiation to
    /// change or to become the caller's turn, then returns it as the
    /// caller sees it. Returns at once when it is the caller's turn already,
    /// or when it is settled (no turn can come). Wakes on a change signal,
    /// never by re-reading on a timer.
    ///
    /// # Errors
    ///
    /// As [`Host::view`].
    pub async fn wait(
        &self,
        caller: &Caller,
        id: &OpportunityId,
        wait: Duration,
    ) -> Result<NegotiationView, HostError> {
        let _in_flight = self.inner.metrics.wait();
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut changes = self.inner.changes.subscribe();
        let first = self.seat_view(caller, id).await?;
        if matches!(
            first.standing,
            SeatStanding::Settled | SeatStanding::YourMove
        ) {
            return Ok(NegotiationView::of(first));
        }
        loop {
            let woken = tokio::select! {
                changed = tokio::time::timeout_at(deadline, changes.changed()) => matches!(changed, Ok(Ok(()))),
                () = self.inner.closing.cancelled() => false,
            };
            if !woken {
                // The deadline passed, or the host is going away.
                return self.view(caller, id).await;
            }
            let now = self
                .store()
                .get_negotiation(id)
                .await?
                .ok_or(HostError::NotFound)?;
            if now != first.summary {
                return self.view(caller, id).await;
            }
        }
    }

    /// A watch on those of `ids` the caller holds a seat in (the others
    /// are left out without a word, as a stranger's negotiation never
    /// changes for them): [`Changes::next`] names each as it changes, woken
    /// by this host's changes and the store's change feed.
    pub(crate) async fn changes_of(
        &self,
        caller: &Caller,
        ids: impl IntoIterator<Item = OpportunityId>,
    ) -> Result<Changes, HostError> {
        let receiver = self.inner.changes.subscribe();
        let mut seen = BTreeMap::new();
        for id in ids {
            match self.seated(caller, &id).await {
                Ok(summary) => {
                    seen.insert(id, summary);
                }
                Err(HostError::NotFound) => {}
                Err(err) => return Err(err),
            }
        }
        Ok(Changes {
            host: self.clone(),
            seen,
            receiver,
        })
    }

    /// Takes a turn for the caller's seat: the turn schema's rule first
    /// (the message trimmed, 1 to 4000 UTF-16 units), then the rules.
    ///
    /// # Errors
    ///
    /// [`HostError::NotFound`] unless the caller holds a seat;
    /// [`HostError::Invalid`] (`invalid_turn`) with the schema's problem;
    /// [`HostError::Refused`] with the rules' code.
    #[tracing::instrument(name = "turn", skip_all, fields(negotiation = ?id.as_str()))]
    pub async fn turn(
        &self,
        caller: &Caller,
        id: &OpportunityId,
        turn: NegotiationTurn,
    ) -> Result<TurnTaken, HostError> {
        // No separate seat check: the rules decide against the locked state,
        // and their `not_a_seat` answers as `NotFound`, like a missing one.
        let turn = turn.checked()?;
        // The reply is built from what the commit hands back: nothing is
        // read after it.
        let (decision, after) = self
            .inner
            .negotiations
            .execute(id, &caller.user_id, turn, &caller.actor())
            .await?;
        self.inner.metrics.commit(
            "turn",
            decision
                .rejection()
                .map_or("ok", |rejection| rejection.as_str()),
        );
        let negotiation = self.after_commit(caller, &decision, after)?;
        Ok(TurnTaken {
            decision,
            negotiation,
        })
    }

    /// What a turn's or resume's reply shows: the rules' refusal as the
    /// error, or the negotiation as the commit left it (waiters woken).
    /// A store hands back what it committed whenever a decision was
    /// applied; one that did not is answered as not found rather than
    /// trusted.
    fn after_commit<T, R: Copy + Into<HostError>>(
        &self,
        caller: &Caller,
        decision: &Decision<T, R>,
        after: Option<Committed>,
    ) -> Result<NegotiationView, HostError> {
        if let Decision::Refused(rejection) = decision {
            return Err((*rejection).into());
        }
        self.changed();
        let after = after.ok_or(HostError::NotFound)?;
        Ok(NegotiationView::of(SeatView::new(
            after.summary,
            after.state,
            &caller.user_id,
        )))
    }

    /// Resumes a negotiation paused between rounds: the caller's seat moves
    /// first in the next round.
    ///
    /// # Errors
    ///
    /// As [`Host::turn`], with the resume's codes.
    #[tracing::instrument(name = "resume", skip_all, fields(negotiation = ?id.as_str()))]
    pub async fn resume(&self, caller: &Caller, id: &OpportunityId) -> Result<Resumed, HostError> {
        // The rules' `not_a_seat` answers as `NotFound` (see `turn`).
        let (decision, after) = self
            .inner
            .negotiations
            .resume(id, &caller.user_id, &caller.actor())
            .await?;
        self.inner.metrics.commit(
            "resume",
            decision
                .rejection()
                .map_or("ok", |rejection| rejection.as_str()),
        );
        let negotiation = self.after_commit(caller, &decision, after)?;
        Ok(Resumed {
            decision,
            negotiation,
        })
    }

    /// A page of the caller's negotiations, newest change first (see
    /// [`ListFilter`]).
    ///
    /// # Errors
    ///
    /// [`HostError::Store`] when the store fails.
    pub async fn list(
        &self,
        caller: &Caller,
        filter: &ListFilter,
    ) -> Result<NegotiationPage, HostError> {
        Ok(self
            .store()
            .list_negotiations(&caller.user_id, filter)
            .await?)
    }

    /// The negotiation's message record, as the caller's seat may read it:
    /// without the other person's park question and answer.
    ///
    /// # Errors
    ///
    /// [`HostError::NotFound`] unless the caller holds a seat.
    pub async fn messages(
        &self,
        caller: &Caller,
        id: &OpportunityId,
    ) -> Result<Vec<NegotiationMessage>, HostError> {
        self.seated(caller, id).await?;
        let mut messages = self.store().list_messages(id).await?;
        messages.retain(|message| is_visible_to(message, &caller.user_id));
        Ok(messages)
    }

    /// The questions the caller's person is asked: one question message
    /// per distinct question, naming every negotiation of theirs parked on
    /// it unanswered, so that one answer resumes them all (oldest change
    /// first, as they were asked); and each negotiation whose question
    /// could not be read or written, by id.
    ///
    /// # Errors
    ///
    /// [`HostError::Store`] when the store fails to list the person's
    /// negotiations.
    pub async fn questions(&self, caller: &Caller) -> Result<Questions, HostError> {
        let person = &caller.user_id;
        let filter = ListFilter {
            state: Some(StateFilter::Open),
            ..ListFilter::default()
        };
        let open = self.store().list_negotiations(person, &filter).await?;
        let mut asked: Vec<(StructuredQuestion, Vec<OpportunityId>)> = Vec::new();
        let mut unreadable = Vec::new();
        // Oldest change first, as they were asked; each park read on its
        // own, so one that does not read back is named, not fatal.
        for summary in open.negotiations.into_iter().rev() {
            if summary.waiting_on.as_ref() != Some(person) {
                continue;
            }
            let park = match self.store().read_negotiation_round(&summary.id).await {
                Ok(state) => state
                    .and_then(|state| state.park)
                    .filter(|park| park.is_open() && park.user_id == *person),
                Err(err) => {
                    tracing::error!(opportunity_id = %summary.id, error = %index_negotiation_store::ErrorChain(&err), "a parked question could not be read");
                    unreadable.push(UnreadableQuestion {
                        opportunity_id: summary.id,
                        reason: "The store could not read this negotiation's question.".to_owned(),
                    });
                    continue;
                }
            };
            let Some(park) = park else { continue };
            match asked
                .iter_mut()
                .find(|(question, _)| *question == park.question)
            {
                Some((_, ids)) => ids.push(summary.id),
                None => asked.push((park.question, vec![summary.id])),
            }
        }
        let mut questions = Vec::new();
        for (question, ids) in asked {
            let Some((first, also)) = ids.split_first() else {
                continue;
            };
            match index_stall_gap::question_message_unblocking(first, also, &question) {
                Ok(message) => questions.push(AskedQuestion {
                    message,
                    opportunity_ids: ids,
                    question,
                }),
                Err(err) => {
                    tracing::error!(opportunity_id = %first, error = %index_negotiation_store::ErrorChain(&err), "a parked question cannot be written as a question message");
                    unreadable.extend(ids.into_iter().map(|opportunity_id| UnreadableQuestion {
                        opportunity_id,
                        reason: "This negotiation's question cannot be written as a question message.".to_owned(),
                    }));
                }
            }
        }
        Ok(Questions {
            questions,
            unreadable,
        })
    }

    /// Parks a stalled negotiation on a question for the caller's person
    /// (see [`index_stall_gap::park_negotiation`]).
    ///
    /// # Errors
    ///
    /// [`HostError::NotFound`] unless the caller holds a seat;
    /// [`HostError::Invalid`] (`no_model`) when this host has no model;
    /// [`HostError::Refused`] when the rules refuse the park at its commit
    /// (`already_parked`, `not_parkable`, …), as a refused turn is.
    #[tracing::instrument(name = "park", skip_all, fields(negotiation = ?id.as_str()))]
    pub async fn park(
        &self,
        caller: &Caller,
        id: &OpportunityId,
        request: &ParkRequest,
    ) -> Result<Parked, HostError> {
        self.seated(caller, id).await?;
        let author = self.inner.author.as_deref().ok_or_else(|| HostError::Invalid {
            code: crate::service::error::Code::Host(crate::service::error::ErrorCode::NoModel),
            message: "this host has no model to author questions (set INDEX_MODEL_BASE_URL and INDEX_MODEL)".to_owned(),
        })?;
        let parked = park_negotiation(
            &self.inner.negotiations,
            id,
            &caller.user_id,
            request,
            author,
            &caller.actor(),
        )
        .await
        .map_err(|err| match err {
            ParkError::NotFound => HostError::NotFound,
            ParkError::Store(err) => err.into(),
            other => HostError::BadRequest(other.to_string()),
        })?;
        self.inner.metrics.park(parked.outcome.kind().as_str());
        // A park the rules refused at its commit is refused as a turn is:
        // nothing changed.
        if let index_stall_gap::ParkOutcome::Refused { rejection, .. } = parked.outcome {
            return Err(rejection.into());
        }
        self.changed();
        if let index_stall_gap::ParkOutcome::Parked { gap, .. } = &parked.outcome {
            let watchers = self
                .inner
                .park_watchers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            for watcher in watchers {
                watcher(self, &caller.user_id, id, &gap.question);
            }
        }
        Ok(parked)
    }

    /// The value of type `T` a transport keeps beside this host, made by
    /// `make` the first time (see [`crate::service::attached`]).
    pub(crate) fn attached<T: Send + Sync + 'static>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        self.inner.attached.get_or_make(make)
    }

    /// Has `watcher` told of every question a park puts to its person
    /// from now on: the person who owns it, the negotiation, the question.
    pub(crate) fn watch_parks(&self, watcher: ParkWatcher) {
        self.inner
            .park_watchers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(watcher);
    }

    /// The rules and the store, for a transport that delivers an answer
    /// it gathered itself (see [`Host::answered`]).
    pub(crate) fn negotiations(&self) -> &Negotiations<Arc<dyn HostStore>> {
        &self.inner.negotiations
    }

    /// Wakes on every change this host makes and every change the store's
    /// change feed reports.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Cancelled when the host shuts down.
    pub(crate) fn closing(&self) -> tokio_util::sync::CancellationToken {
        self.inner.closing.clone()
    }

    /// What a delivered answer did, told as every answer's is: the answers
    /// counted, waiters woken when a negotiation resumed.
    pub(crate) fn answered(&self, report: &DeliveryReport) {
        self.inner.metrics.answers(report);
        if report.resumed().next().is_some() {
            self.changed();
        }
    }

    /// How long a parked question put to its person waits for the answer.
    pub(crate) fn ask_user_window(&self) -> Duration {
        self.inner.ask_user_window
    }

    /// Resolves once negotiation `id` no longer waits on the caller's
    /// person's `question` (answered another way, or the park ended), or
    /// the host shuts down.
    pub(crate) async fn until_unparked(
        &self,
        caller: &Caller,
        id: &OpportunityId,
        question: &StructuredQuestion,
    ) {
        let Ok(mut changes) = self.changes_of(caller, [id.clone()]).await else {
            return;
        };
        loop {
            match self.view(caller, id).await {
                Ok(view)
                    if view
                        .parked
                        .as_ref()
                        .is_some_and(|parked| parked.question == *question) => {}
                Ok(_) | Err(HostError::NotFound) => return,
                // A read that fails is tried again on the next change.
                Err(_) => {}
            }
            if changes.next().await.is_none() {
                return;
            }
        }
    }

    /// Delivers the caller's answers to the questions in `block` (see
    /// [`Negotiations::deliver_answers`]): the caller answers as
    /// themselves, so only negotiations they hold a seat in are touched.
    /// The surfaces refuse a blank or overlong answer before this (see
    /// [`index_negotiation::check_answer`]); the rules refuse it again.
    #[tracing::instrument(name = "answer", skip_all, fields(questions = block.questions.len()))]
    pub async fn answer(
        &self,
        caller: &Caller,
        block: &index_question_block::QuestionBlock,
        answers: &[(usize, String)],
    ) -> DeliveryReport {
        let report = self
            .inner
            .negotiations
            .deliver_answers(&caller.user_id, block, answers, &caller.actor())
            .await;
        self.answered(&report);
        without_store_causes(report)
    }

    /// Opens a negotiation (host keys only).
    ///
    /// # Errors
    ///
    /// [`HostError::Forbidden`] for an agent key; [`HostError::Refused`]
    /// (`already_exists`, `ineligible`).
    #[tracing::instrument(name = "open", skip_all, fields(negotiation = ?request.opportunity_id.as_str()))]
    pub async fn open(
        &self,
        caller: &Caller,
        request: &OpenNegotiation,
    ) -> Result<NegotiationSummary, HostError> {
        require_host(caller)?;
        match self
            .inner
            .negotiations
            .open(request, &caller.actor())
            .await?
        {
            OpenDecision::Opened { negotiation } => {
                self.inner.metrics.commit("open", "ok");
                self.changed();
                Ok(negotiation)
            }
            OpenDecision::Refused { rejection } => {
                self.inner.metrics.commit("open", rejection.as_str());
                Err(rejection.into())
            }
        }
    }

    /// Closes a negotiation from outside the rules (host keys only).
    ///
    /// # Errors
    ///
    /// [`HostError::Forbidden`] for an agent key; [`HostError::NotFound`].
    #[tracing::instrument(name = "close", skip_all, fields(negotiation = ?id.as_str()))]
    pub async fn close(
        &self,
        caller: &Caller,
        id: &OpportunityId,
        reason: CloseReason,
    ) -> Result<NegotiationSummary, HostError> {
        require_host(caller)?;
        let closed = self
            .store()
            .close_negotiation(id, reason, &caller.actor())
            .await?
            .ok_or(HostError::NotFound)?;
        self.inner.metrics.commit("close", "ok");
        self.changed();
        Ok(closed)
    }
}

/// A delivery report as a caller may see it: a negotiation the store failed
/// on says only that, as every store failure does, and its cause is logged
/// instead of sent.
fn without_store_causes(mut report: DeliveryReport) -> DeliveryReport {
    for line in &mut report.negotiations {
        if let index_negotiation_store::RefOutcome::Failed { reason } = &mut line.outcome {
            tracing::error!(opportunity_id = %line.opportunity_id, error = %reason, "store failed");
            *reason = crate::service::error::STORE_FAILED.to_owned();
        }
    }
    report
}

pub(crate) fn require_host(caller: &Caller) -> Result<(), HostError> {
    match caller.scope {
        KeyScope::Host => Ok(()),
        _ => Err(HostError::Forbidden),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_delivery_says_the_store_failed_and_nothing_of_why() {
        let report = DeliveryReport {
            negotiations: vec![index_negotiation_store::RefReport {
                question: 0,
                opportunity_id: "0c6e9a52-3b1d-4f7e-a2c8-5d94e1b07f36".to_owned(),
                outcome: index_negotiation_store::RefOutcome::Failed {
                    reason: "connection to db.internal:5432 refused for user index".to_owned(),
                },
            }],
            unknown_questions: Vec::new(),
            duplicates: Vec::new(),
        };
        let sent = serde_json::to_string(&without_store_causes(report)).unwrap();
        assert!(sent.contains("the store failed"), "{sent}");
        assert!(!sent.contains("db.internal"), "{sent}");
    }
}
