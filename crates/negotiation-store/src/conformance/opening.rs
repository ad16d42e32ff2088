//! Opening: one negotiation per opportunity, only for a pair the rules
//! permit, the initiator to move.

use index_negotiation::NegotiationAction::Propose;
use index_negotiation::NegotiationState;

use crate::{
    ListFilter, NegotiationStore, Negotiations, OpenDecision, OpenRejection, OpportunityId,
    RecordStatus,
};

use super::fixtures::{ALICE, BOB, host, open, play, request, state, user};

/// A fresh negotiation is in talks, the initiator to move, no turns.
pub async fn opening_creates_a_negotiation_with_the_initiator_to_move<S: NegotiationStore>(
    store: S,
) {
    let id = open(&store, 1).await;
    let state = state(&store, &id).await;
    assert_eq!(state, NegotiationState::opened(user(ALICE), user(BOB)));
    let summary = store.get_negotiation(&id).await.unwrap().unwrap();
    assert_eq!(summary.status, RecordStatus::Negotiating);
    assert_eq!(summary.awaiting_user_id, Some(user(ALICE)));
    assert_eq!(summary.turn_count, 0);
}

/// One opportunity, one negotiation.
pub async fn opening_twice_is_refused<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    play(&store, &id, &[(ALICE, Propose)]).await;
    let again = Negotiations::new(&store)
        .open(&request(1), &host())
        .await
        .unwrap();
    assert_eq!(
        again,
        OpenDecision::Refused {
            rejection: OpenRejection::AlreadyExists
        }
    );
    assert_eq!(
        state(&store, &id).await.turns.len(),
        1,
        "the existing negotiation is untouched"
    );
}

/// A UUID written in upper case is the same opportunity: it cannot open a
/// second negotiation, and it finds (and moves) the first.
pub async fn an_upper_case_id_names_the_same_negotiation<S: NegotiationStore>(store: S) {
    let id = open(&store, 1).await;
    let mut shouted = request(1);
    shouted.opportunity_id = OpportunityId::parse(id.as_str().to_ascii_uppercase()).unwrap();
    assert_eq!(shouted.opportunity_id, id);
    let again = Negotiations::new(&store)
        .open(&shouted, &host())
        .await
        .unwrap();
    assert_eq!(
        again,
        OpenDecision::Refused {
            rejection: OpenRejection::AlreadyExists
        }
    );
    play(&store, &shouted.opportunity_id, &[(ALICE, Propose)]).await;
    assert_eq!(state(&store, &id).await.turns.len(), 1);
    let listed = store
        .list_negotiations(&user(ALICE), &ListFilter::default())
        .await
        .unwrap()
        .negotiations;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id.as_str(), id.as_str().to_ascii_lowercase());
}

/// The rules' opening decision is applied: nothing is stored for a refusal.
pub async fn ineligible_pairs_are_not_opened<S: NegotiationStore>(store: S) {
    let service = Negotiations::new(&store);
    let mut not_eligible = request(1);
    not_eligible.eligible = false;
    let mut same_person = request(2);
    same_person.responder.user_id = user(ALICE);
    let mut same_intent = request(3);
    same_intent.responder.intent_id = same_intent.initiator.intent_id.clone();
    for request in [not_eligible, same_person, same_intent] {
        let decision = service.open(&request, &host()).await.unwrap();
        assert_eq!(
            decision,
            OpenDecision::Refused {
                rejection: OpenRejection::Ineligible
            }
        );
        assert_eq!(
            store
                .get_negotiation(&request.opportunity_id)
                .await
                .unwrap(),
            None
        );
    }
}
