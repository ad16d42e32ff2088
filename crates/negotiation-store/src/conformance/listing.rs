//! Listings: filters, newest change first, and pages that never repeat
//! or lose a negotiation.

use std::collections::BTreeSet;

use index_negotiation::NegotiationAction::{Accept, Propose};

use crate::{IntentId, ListFilter, NegotiationStore, Negotiations, OpenDecision, StateFilter};

use super::fixtures::{ALICE, BOB, host, open, play, request, turn, user};

/// Listings show the user's negotiations, newest change first, filtered
/// by intent, state and the other seat.
pub async fn listing_filters_by_intent_and_state<S: NegotiationStore>(store: S) {
    let a = open(&store, 1).await;
    let b = open(&store, 2).await;
    let c = open(&store, 3).await;
    play(&store, &b, &[(ALICE, Propose), (BOB, Accept)]).await;
    let mut other = request(4);
    other.initiator.user_id = user("carol");
    let d = match Negotiations::new(&store)
        .open(&other, &host())
        .await
        .unwrap()
    {
        OpenDecision::Opened { negotiation } => negotiation.id,
        refused => panic!("{refused:?}"),
    };
    let list = async |who: &str, filter: ListFilter| {
        let page = store.list_negotiations(&user(who), &filter).await.unwrap();
        assert_eq!(page.next, None, "no limit, one page");
        page.negotiations
            .into_iter()
            .map(|summary| summary.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(ALICE, ListFilter::default()).await,
        [b.clone(), c.clone(), a.clone()]
    );
    let open_only = ListFilter {
        state: Some(StateFilter::Open),
        ..ListFilter::default()
    };
    assert_eq!(list(ALICE, open_only).await, [c.clone(), a.clone()]);
    let settled = ListFilter {
        state: Some(StateFilter::Settled),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, settled).await, std::slice::from_ref(&b));
    let by_intent = ListFilter {
        intent_id: Some(IntentId::parse("bob-intent-3").unwrap()),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, by_intent.clone()).await, std::slice::from_ref(&c));
    assert!(
        list(ALICE, by_intent).await.is_empty(),
        "the intent is bob's"
    );
    let with = |who: &str| ListFilter {
        other_user_id: Some(user(who)),
        ..ListFilter::default()
    };
    assert_eq!(list(BOB, with("carol")).await, std::slice::from_ref(&d));
    assert_eq!(list("carol", with(BOB)).await, [d]);
    assert!(list(ALICE, with("carol")).await.is_empty());
    assert_eq!(list(BOB, with(ALICE)).await, [b, c, a]);
    assert!(list("nobody", ListFilter::default()).await.is_empty());
}

/// Pages run newest change first and end with a cursor the next page
/// starts after. While commits land between pages, no negotiation is
/// listed twice, and every one that did not change is listed once; one
/// that changed has moved to the front, where a fresh first page finds it.
pub async fn pages_never_repeat_or_lose_a_negotiation_while_commits_land<S: NegotiationStore>(
    store: S,
) {
    const OPENED: u32 = 23;
    const PAGE: usize = 5;
    let mut ids = Vec::new();
    for n in 0..OPENED {
        ids.push(open(&store, 200 + n).await);
    }
    let first_page = ListFilter {
        limit: Some(PAGE),
        ..ListFilter::default()
    };
    let mut filter = first_page.clone();
    let (mut seen, mut changed) = (Vec::new(), BTreeSet::new());
    let mut pages = 0;
    loop {
        let page = store
            .list_negotiations(&user(ALICE), &filter)
            .await
            .unwrap();
        assert!(page.negotiations.len() <= PAGE);
        seen.extend(page.negotiations.iter().map(|summary| summary.id.clone()));
        pages += 1;
        // A commit lands between pages: on one already listed, and on one
        // still to come.
        for at in [0, OPENED as usize - 1 - pages] {
            let id = &ids[at];
            if changed.insert(id.clone()) {
                assert!(turn(&store, id, ALICE, Propose).await.is_ok());
            }
        }
        match page.next {
            Some(cursor) => filter.cursor = Some(cursor),
            None => break,
        }
        assert!(pages <= OPENED as usize, "the pages never end");
    }
    let unique: BTreeSet<_> = seen.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        seen.len(),
        "a negotiation listed twice: {seen:?}"
    );
    for id in ids.iter().filter(|id| !changed.contains(*id)) {
        assert!(unique.contains(id), "{id} was never listed");
    }
    // A fresh first page leads with the newest changes.
    let fresh = store
        .list_negotiations(&user(ALICE), &first_page)
        .await
        .unwrap();
    assert!(changed.contains(&fresh.negotiations[0].id));
    assert!(fresh.next.is_some());
    // The whole listing in pages is the whole listing at once, when
    // nothing changes meanwhile.
    let whole: Vec<_> = store
        .list_negotiations(&user(ALICE), &ListFilter::default())
        .await
        .unwrap()
        .negotiations
        .into_iter()
        .map(|summary| summary.id)
        .collect();
    assert_eq!(whole.len(), OPENED as usize);
    let mut paged = Vec::new();
    let mut filter = first_page;
    loop {
        let page = store
            .list_negotiations(&user(ALICE), &filter)
            .await
            .unwrap();
        paged.extend(page.negotiations.into_iter().map(|summary| summary.id));
        match page.next {
            Some(cursor) => filter.cursor = Some(cursor),
            None => break,
        }
    }
    assert_eq!(paged, whole);
}
