//! Delivering a person's answers: every negotiation a question unblocks is
//! resumed exactly once, whatever order, repetition or subset the answers
//! arrive in, and a blank answer uses nothing up.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use std::collections::BTreeMap;

use proptest::prelude::*;

use index_negotiation::AnswerRejection;
use index_negotiation_store::{
    DeliveryReport, MemoryStore, NegotiationStore, Negotiations, OpenNegotiation, OpportunityId,
    RefOutcome, Seat, UserId,
};
use index_question_block::{QuestionBlock, QuestionBlockQuestion};

use index_negotiation_store::Actor;
use support::stall_and_park;

async fn deliver_answers(
    store: &MemoryStore,
    person: &UserId,
    block: &QuestionBlock,
    answers: &[(usize, String)],
) -> DeliveryReport {
    Negotiations::new(store)
        .deliver_answers(person, block, answers, &Actor::operator())
        .await
}

async fn waiting_on(store: &MemoryStore, n: usize) -> Option<String> {
    let opportunity = OpportunityId::parse(id(n)).unwrap();
    let state = store
        .read_negotiation_state(&opportunity)
        .await
        .unwrap()
        .unwrap();
    state.waiting_on().map(ToString::to_string)
}

fn id(n: usize) -> String {
    format!("0c6e9a52-3b1d-4f7e-a2c8-{n:012x}")
}

/// `count` negotiations between dana and sam, each stalled at the end of a
/// round and parked on a question for dana.
async fn parked(count: usize) -> MemoryStore {
    let store = MemoryStore::new();
    let service = Negotiations::new(&store);
    for n in 0..count {
        let seat = |user: &str| Seat {
            user_id: user.parse().unwrap(),
            intent_id: format!("{user}-{n}").parse().unwrap(),
        };
        let opportunity = OpportunityId::parse(id(n)).unwrap();
        service
            .open(
                &OpenNegotiation {
                    opportunity_id: opportunity.clone(),
                    initiator: seat("dana"),
                    responder: seat("sam"),
                    eligible: true,
                },
                &Actor::operator(),
            )
            .await
            .unwrap();
        stall_and_park(&store, &opportunity, "dana").await;
    }
    store
}

/// A block whose question `q` names negotiations `groups[q]`.
fn block(groups: &[Vec<usize>]) -> QuestionBlock {
    QuestionBlock::new(
        groups
            .iter()
            .map(|group| {
                let mut q = QuestionBlockQuestion::new("How much equity?", id(group[0]));
                q.also_unblocks = Some(group[1..].iter().map(|n| id(*n)).collect());
                q
            })
            .collect(),
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

#[test]
fn an_answer_resumes_its_whole_set_once_and_redelivery_changes_nothing() {
    runtime().block_on(async {
        let store = parked(3).await;
        let unknown = "7b2d4f61-0a9c-4e35-8d17-c6f0e2a9b843".to_owned();
        let mut questions = block(&[vec![0, 1], vec![2]]);
        questions.questions[1].also_unblocks = Some(vec![unknown.clone(), "not-a-uuid".into()]);
        assert_eq!(waiting_on(&store, 0).await, Some("dana".into()));

        let answers = [
            (0, "1% to 3%".to_owned()),
            (0, "Never mind".to_owned()),
            (1, "Remote".to_owned()),
            (7, "?".to_owned()),
        ];
        let report = deliver_answers(&store, &"dana".parse().unwrap(), &questions, &answers).await;
        assert_eq!(
            report.duplicates,
            [0],
            "the first answer to a question is kept"
        );
        assert_eq!(report.unknown_questions, [7]);
        let outcomes: Vec<(String, RefOutcome)> = report
            .negotiations
            .iter()
            .map(|r| (r.opportunity_id.clone(), r.outcome.clone()))
            .collect();
        assert_eq!(
            outcomes,
            [
                (id(0), RefOutcome::Resumed),
                (id(1), RefOutcome::Resumed),
                (id(2), RefOutcome::Resumed),
                (unknown, RefOutcome::Unknown),
                ("not-a-uuid".into(), RefOutcome::Unknown),
            ]
        );
        for n in 0..3 {
            let opportunity = OpportunityId::parse(id(n)).unwrap();
            let summary = store.get_negotiation(&opportunity).await.unwrap().unwrap();
            assert_eq!(
                summary.awaiting_user_id.map(|u| u.to_string()),
                Some("dana".into()),
                "dana's seat moves first"
            );
            assert_eq!(
                waiting_on(&store, n).await,
                None,
                "no longer waiting on dana"
            );
            let messages = store.list_messages(&opportunity).await.unwrap();
            assert_eq!(
                messages.last().unwrap().parts[0],
                index_negotiation::MessagePart::Text {
                    text: if n == 2 {
                        "Remote".into()
                    } else {
                        "1% to 3%".into()
                    }
                }
            );
        }
        let again = deliver_answers(&store, &"dana".parse().unwrap(), &questions, &answers).await;
        assert_eq!(again.resumed().count(), 0);
        assert!(again.negotiations.iter().all(|r| matches!(
            r.outcome,
            RefOutcome::NotWaiting {
                rejection: AnswerRejection::AlreadyAnswered
            } | RefOutcome::Unknown
        )));
        assert_eq!(
            store
                .list_messages(&OpportunityId::parse(id(0)).unwrap())
                .await
                .unwrap()
                .len(),
            2,
            "nothing more recorded"
        );

        // Sam holds a seat but was not asked: his answer changes nothing.
        let store = parked(1).await;
        let report = deliver_answers(
            &store,
            &"sam".parse().unwrap(),
            &block(&[vec![0]]),
            &[(0, "Mine".into())],
        )
        .await;
        assert_eq!(
            report.negotiations[0].outcome,
            RefOutcome::NotWaiting {
                rejection: AnswerRejection::NotTheOwner
            }
        );
        // A stranger learns nothing.
        let report = deliver_answers(
            &store,
            &"mallory".parse().unwrap(),
            &block(&[vec![0]]),
            &[(0, "Mine".into())],
        )
        .await;
        assert_eq!(report.negotiations[0].outcome, RefOutcome::Unknown);
    });
}

#[test]
fn a_blank_answer_is_refused_and_uses_nothing_up() {
    runtime().block_on(async {
        let store = parked(1).await;
        let opportunity = OpportunityId::parse(id(0)).unwrap();
        let dana: UserId = "dana".parse().unwrap();
        let questions = block(&[vec![0]]);
        let report = deliver_answers(&store, &dana, &questions, &[(0, " \n\t ".into())]).await;
        assert_eq!(
            report.negotiations[0].outcome,
            RefOutcome::Refused {
                rejection: AnswerRejection::BlankAnswer
            }
        );
        assert_eq!(
            store.list_messages(&opportunity).await.unwrap().len(),
            1,
            "nothing recorded"
        );
        assert_eq!(
            waiting_on(&store, 0).await,
            Some("dana".into()),
            "still parked"
        );
        let report = deliver_answers(&store, &dana, &questions, &[(0, " 3% \n".into())]).await;
        assert_eq!(report.negotiations[0].outcome, RefOutcome::Resumed);
        let state = store
            .read_negotiation_state(&opportunity)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            state.park.and_then(|park| park.answer).as_deref(),
            Some("3%")
        );
    });
}

proptest! {
    /// Any sequence of deliveries of any subset of answers (repeats and
    /// unknown questions included) resumes each negotiation at most once,
    /// and exactly once if some delivered question names it.
    #[test]
    fn each_negotiation_is_resumed_at_most_once(
        groups in proptest::collection::vec(proptest::collection::btree_set(0usize..6, 1..4), 1..4),
        deliveries in proptest::collection::vec(proptest::collection::vec(0usize..5, 0..6), 1..5),
    ) {
        runtime().block_on(async {
            let store = parked(6).await;
            let groups: Vec<Vec<usize>> = groups.into_iter().map(|g| g.into_iter().collect()).collect();
            let questions = block(&groups);
            let mut resumed: BTreeMap<String, usize> = BTreeMap::new();
            let mut covered = std::collections::BTreeSet::new();
            for delivery in &deliveries {
                let answers: Vec<(usize, String)> = delivery.iter().map(|q| (*q, format!("answer {q}"))).collect();
                for (q, _) in &answers {
                    if let Some(group) = groups.get(*q) {
                        covered.extend(group.iter().map(|n| id(*n)));
                    }
                }
                let report = deliver_answers(&store, &"dana".parse().unwrap(), &questions, &answers).await;
                for opportunity in report.resumed() {
                    *resumed.entry(opportunity.to_owned()).or_default() += 1;
                }
            }
            prop_assert!(resumed.values().all(|count| *count == 1), "{resumed:?}");
            let resumed_ids: std::collections::BTreeSet<String> = resumed.keys().cloned().collect();
            prop_assert_eq!(resumed_ids, covered);
            Ok(())
        })?;
    }
}
