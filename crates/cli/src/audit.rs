//! `index audit`: the store's audit record, oldest first, as a table or as
//! JSON Lines.

use index_negotiation_store::{AUDIT_PAGE_LIMIT, AuditEntry, AuditFilter};

use crate::cli::AuditArgs;
use crate::database::{Database, Use};
use crate::failure::Failure;
use crate::output::{DIM, Out, styled, table};
use index_negotiation_store_sqlite::Synchronous;

/// Prints the entries `args` asks for: every one that matches, read a page
/// at a time, up to `--limit`.
pub(crate) async fn audit(
    args: AuditArgs,
    synchronous: Synchronous,
    out: Out,
) -> Result<(), Failure> {
    let store = Database::select(args.db, synchronous)?
        .open(Use::Read)
        .await?;
    let mut filter = AuditFilter::default();
    filter.user = args.user;
    filter.negotiation = args.negotiation;
    filter.step = args.step;
    filter.since = args.since;
    filter.until = args.until;
    let mut left = args
        .limit
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut rows = Vec::new();
    while left > 0 {
        filter.limit = left.min(AUDIT_PAGE_LIMIT);
        let page = store.list_audit(&filter).await?;
        let full = page.len() == filter.page_size();
        filter.after = page.last().map(|entry| entry.seq);
        left -= page.len();
        for entry in page {
            out.json_line(&entry);
            rows.push(row(&entry));
        }
        if !full {
            break;
        }
    }
    if rows.is_empty() {
        out.line(styled(DIM, "No entries."));
        return Ok(());
    }
    out.line(table(
        &[
            "seq",
            "at",
            "step",
            "negotiation",
            "user",
            "detail",
            "actor",
            "key",
            "request",
        ],
        &rows,
    ));
    Ok(())
}

/// One entry as a table's row, `-` for what it does not name.
fn row(entry: &AuditEntry) -> Vec<String> {
    let or_dash = |text: Option<&str>| text.unwrap_or("-").to_owned();
    vec![
        entry.seq.to_string(),
        entry.at.to_string(),
        entry.step.as_str().to_owned(),
        or_dash(entry.negotiation.as_ref().map(|id| id.as_str())),
        or_dash(entry.user.as_ref().map(|user| user.as_str())),
        or_dash(entry.detail.as_deref()),
        entry.actor.kind().as_str().to_owned(),
        or_dash(entry.actor.key_id()),
        or_dash(entry.actor.request_id()),
    ]
}
