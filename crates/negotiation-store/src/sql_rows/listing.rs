//! A listing's page as a SQL backend binds it.

use index_negotiation::UserId;

use crate::model::{ListFilter, StateFilter};

/// The values a SQL backend binds for a page of `user`'s listing under a
/// [`ListFilter`]: the same test as [`ListFilter::matches`], with the
/// cursor and the limit, each spelled once for both databases. The page is
/// made from what the query finds with
/// [`NegotiationPage::of`](crate::NegotiationPage::of).
///
/// ```
/// use index_negotiation_store::sql_rows::PageQuery;
/// use index_negotiation_store::{ListFilter, StateFilter, UserId};
/// let dana: UserId = "dana".parse()?;
/// let filter = ListFilter { state: Some(StateFilter::Open), limit: Some(20), ..ListFilter::default() };
/// let query = PageQuery::of(&dana, &filter);
/// assert_eq!((query.below, query.settled, query.fetch), (i64::MAX, Some(false), Some(21)));
/// # Ok::<(), index_negotiation_store::InvalidId>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageQuery<'a> {
    /// The user whose seats are listed.
    pub user: &'a str,
    /// Only negotiations whose last change is below this (the cursor's
    /// position; `i64::MAX` on a first page).
    pub below: i64,
    /// Only settled ones (`true`) or open ones (`false`); `None` for both.
    pub settled: Option<bool>,
    /// Only those with this user in the other seat.
    pub other: Option<&'a str>,
    /// Only those where the user's own seat negotiates for this intent.
    pub intent: Option<&'a str>,
    /// How many rows to fetch: one more than the page, to know whether
    /// another follows; `None` for all.
    pub fetch: Option<i64>,
}

impl<'a> PageQuery<'a> {
    /// The values for `user_id`'s page under `filter`.
    pub fn of(user_id: &'a UserId, filter: &'a ListFilter) -> Self {
        PageQuery {
            user: user_id.as_str(),
            below: filter.cursor.map_or(i64::MAX, |cursor| {
                i64::try_from(cursor.change()).unwrap_or(i64::MAX)
            }),
            settled: filter.state.map(|state| state == StateFilter::Settled),
            other: filter.other_user_id.as_ref().map(UserId::as_str),
            intent: filter.intent_id.as_ref().map(|intent| intent.as_str()),
            fetch: filter
                .limit
                .map(|limit| i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1)),
        }
    }
}
