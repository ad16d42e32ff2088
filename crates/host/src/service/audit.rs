//! The audit record as the host reads it out: to host keys only, in pages
//! that continue after the last entry read.

use serde::{Deserialize, Serialize};

use index_js::WireEnum;

use index_negotiation_store::{
    AUDIT_PAGE_LIMIT, AuditEntry, AuditFilter, AuditStep, OpportunityId, UnixTime, UserId,
};

use crate::service::error::HostError;
use crate::service::host::{Host, require_host};
use crate::service::keys::Caller;
use crate::service::wire::{id_field, moment};

/// How many entries a page holds when the caller does not say.
pub const DEFAULT_AUDIT_PAGE: usize = 100;

/// `GET /audit`'s query: every key optional, any other refused.
///
/// ```
/// use index_host::AuditQuery;
/// let query = AuditQuery { step: Some("answered".into()), since: Some("2026-12-01T00:00:00Z".into()), ..AuditQuery::default() };
/// assert!(query.filter().is_ok());
/// assert!(AuditQuery { since: Some("yesterday".into()), ..AuditQuery::default() }.filter().is_err());
/// assert!(AuditQuery { limit: Some(0), ..AuditQuery::default() }.filter().is_err());
/// ```
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditQuery {
    /// Only steps taken for this person.
    #[schemars(with = "Option<UserId>")]
    pub user: Option<String>,
    /// Only steps taken on this negotiation.
    #[schemars(with = "Option<OpportunityId>")]
    pub negotiation: Option<String>,
    /// Only this step.
    #[schemars(with = "Option<AuditStep>")]
    pub step: Option<String>,
    /// Only entries written at or after this moment (RFC 3339).
    #[schemars(with = "Option<UnixTime>")]
    pub since: Option<String>,
    /// Only entries written before this moment (RFC 3339).
    #[schemars(with = "Option<UnixTime>")]
    pub until: Option<String>,
    /// Only entries after this one: the `next` of the page before.
    pub after: Option<u64>,
    /// At most this many (default 100).
    #[schemars(range(min = 1, max = AUDIT_PAGE_LIMIT))]
    pub limit: Option<u64>,
}

impl AuditQuery {
    /// The store's filter for this query.
    ///
    /// # Errors
    ///
    /// [`HostError::BadRequest`] naming the value that is not one.
    pub fn filter(self) -> Result<AuditFilter, HostError> {
        let step = self
            .step
            .map(|name| {
                AuditStep::from_name(&name).ok_or_else(|| {
                    HostError::BadRequest(format!(
                        "step is one of {}, not {name:?}",
                        AuditStep::NAMES.join(", ")
                    ))
                })
            })
            .transpose()?;
        let limit = match self.limit {
            None => DEFAULT_AUDIT_PAGE,
            Some(limit) => usize::try_from(limit)
                .ok()
                .filter(|limit| (1..=AUDIT_PAGE_LIMIT).contains(limit))
                .ok_or_else(|| {
                    HostError::BadRequest(format!("limit is 1 to {AUDIT_PAGE_LIMIT}, not {limit}"))
                })?,
        };
        let mut filter = AuditFilter::default();
        filter.user = self.user.map(|id| id_field("user", id)).transpose()?;
        filter.negotiation = self
            .negotiation
            .map(|id| id_field("negotiation", id))
            .transpose()?;
        filter.step = step;
        filter.since = self.since.map(|at| moment("since", &at)).transpose()?;
        filter.until = self.until.map(|at| moment("until", &at)).transpose()?;
        filter.after = self.after;
        filter.limit = limit;
        Ok(filter)
    }
}

/// A page of the audit record, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AuditPage {
    /// The entries.
    pub entries: Vec<AuditEntry>,
    /// The `after` of the next page, when this one is full (there may be
    /// more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<u64>,
}

impl Host {
    /// A page of the audit record (host keys only).
    ///
    /// # Errors
    ///
    /// [`HostError::Forbidden`] for an agent key; [`HostError::Store`]
    /// when the store fails.
    pub async fn audit(
        &self,
        caller: &Caller,
        filter: &AuditFilter,
    ) -> Result<AuditPage, HostError> {
        require_host(caller)?;
        let entries = self.store().list_audit(filter).await?;
        let next = (entries.len() == filter.page_size())
            .then(|| entries.last().map(|entry| entry.seq))
            .flatten();
        Ok(AuditPage { entries, next })
    }
}
