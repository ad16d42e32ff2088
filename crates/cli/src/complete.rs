//! Negotiation ids offered while a shell completes a command line
//! (`source <(COMPLETE=bash index)`): the negotiations of the person the
//! line names with `--as` (or `--user`), newest change first, from the
//! store its `--db` or `INDEX_DB` names. The store is only read; anything
//! that goes wrong offers nothing rather than printing into the shell.

use std::ffi::OsStr;

use clap_complete::CompletionCandidate;
use index_negotiation_store::{ListFilter, NegotiationSummary, UserId};
use index_negotiation_store_sqlite::Synchronous;

use crate::database::{Database, Use};

/// How many ids are offered at most.
const OFFERED: usize = 50;

/// The candidates for a negotiation id that starts with `current`.
pub(crate) fn negotiation_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    // While completing, the process's arguments are the words of the line
    // being completed (after `--`), so the other flags are read from them.
    let words: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| {
        let prefixed = format!("{flag}=");
        words.iter().enumerate().find_map(|(i, word)| {
            if word == flag {
                words.get(i + 1).cloned()
            } else {
                word.strip_prefix(&prefixed).map(str::to_owned)
            }
        })
    };
    let Some(user) = value_of("--as")
        .or_else(|| value_of("--user"))
        .and_then(|user| UserId::parse(user).ok())
    else {
        return Vec::new();
    };
    let prefix = current.to_string_lossy().to_ascii_lowercase();
    let Ok(database) = Database::select(value_of("--db"), Synchronous::Normal) else {
        return Vec::new();
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let page = runtime.block_on(async {
        let store = database.open(Use::Read).await.ok()?;
        let filter = ListFilter {
            limit: Some(OFFERED),
            ..ListFilter::default()
        };
        store.list_negotiations(&user, &filter).await.ok()
    });
    page.map(|page| page.negotiations)
        .unwrap_or_default()
        .iter()
        .filter(|negotiation| negotiation.id.as_str().starts_with(&prefix))
        .map(|negotiation| {
            CompletionCandidate::new(negotiation.id.as_str())
                .help(Some(describe(negotiation, &user).into()))
        })
        .collect()
}

/// What a candidate says beside its id: the other person and the state.
fn describe(negotiation: &NegotiationSummary, user: &UserId) -> String {
    let other = if negotiation.initiator.user_id == *user {
        &negotiation.responder.user_id
    } else {
        &negotiation.initiator.user_id
    };
    match &negotiation.awaiting_user_id {
        Some(next) => format!("with {other}, {next} to move"),
        None => format!("with {other}, {}", negotiation.status.as_str()),
    }
}
