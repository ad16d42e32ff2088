//! Every rule and every rejection, one row each, in the order the checks
//! run: each row's state also breaks every later rule, so a row passes only
//! if the earlier check wins.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use index_negotiation::NegotiationAction::{self, Accept, Counter, Decline, Propose};
use index_negotiation::{
    NegotiationRejection as R, NegotiationResumeRejection as RR, NegotiationState, NegotiationTurn,
    OpportunityStatus, RoundEnded, SeatTurn, decide_negotiation_resume, decide_negotiation_turn,
    decide_negotiation_turn_value,
};

use index_negotiation::UserId;

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

/// A state with `log` as (seat, action) pairs and `awaiting` to move.
fn state(log: &[(&str, NegotiationAction)], awaiting: Option<&str>) -> NegotiationState {
    let mut state = NegotiationState::opened(user("alice"), user("bob"));
    state.turns = log
        .iter()
        .map(|(seat, action)| SeatTurn {
            seat_user_id: user(seat),
            action: *action,
            message: "m".to_owned(),
        })
        .collect();
    state.awaiting_user_id = awaiting.map(user);
    state
}

/// (name, state, user, action, message, expected rejection).
type Row<'a> = (
    &'a str,
    Option<NegotiationState>,
    &'a str,
    NegotiationAction,
    &'a str,
    R,
);

/// The one place that decides a turn for a row: the rejection code, or
/// "ok" with the fields that matter.
fn check(
    state: Option<&NegotiationState>,
    user: &str,
    action: NegotiationAction,
    message: &str,
) -> String {
    match decide_negotiation_turn(
        state,
        &self::user(user),
        &NegotiationTurn::new(action, message),
    ) {
        index_negotiation::Decision::Refused(r) => r.as_str().to_owned(),
        index_negotiation::Decision::Permitted(p) => format!(
            "ok index={} awaiting={:?} outcome={:?} round_ended={:?} status={:?}",
            p.turn_index,
            p.awaiting_user_id.as_ref().map(UserId::as_str),
            p.outcome,
            p.round_ended,
            p.opportunity_status
        ),
    }
}

#[test]
fn rejections_in_check_order() {
    let mut settled = state(&[("alice", Propose)], Some("carol"));
    settled.settled = true;
    settled.eligible = false;
    let mut inactive = state(&[], Some("bob"));
    inactive.eligible = false;
    let bad = "   ";
    let rows: Vec<Row> = vec![
        (
            "missing negotiation",
            None,
            "carol",
            Counter,
            bad,
            R::NotFound,
        ),
        (
            "stranger",
            Some(settled.clone()),
            "carol",
            Counter,
            bad,
            R::NotASeat,
        ),
        (
            "settled before inactive",
            Some(settled.clone()),
            "alice",
            Counter,
            bad,
            R::AlreadySettled,
        ),
        (
            "inactive before turn",
            Some(inactive),
            "alice",
            Counter,
            bad,
            R::IntentInactive,
        ),
        (
            "other seat's turn",
            Some(state(&[], Some("bob"))),
            "alice",
            Counter,
            bad,
            R::NotYourTurn,
        ),
        (
            "between rounds",
            Some(state(&[("alice", Decline)], None)),
            "alice",
            Propose,
            "x",
            R::NotYourTurn,
        ),
        (
            "blank message",
            Some(state(&[], Some("alice"))),
            "alice",
            Counter,
            bad,
            R::InvalidTurn,
        ),
        (
            "counter opens round",
            Some(state(&[], Some("alice"))),
            "alice",
            Counter,
            "x",
            R::CounterIsFirst,
        ),
        (
            "counter opens second round",
            Some(state(
                &[("alice", Propose), ("bob", Decline)],
                Some("alice"),
            )),
            "alice",
            Counter,
            "x",
            R::CounterIsFirst,
        ),
        (
            "accept with nothing",
            Some(state(&[], Some("alice"))),
            "alice",
            Accept,
            "x",
            R::AcceptWithoutOffer,
        ),
        (
            "accept a counter",
            Some(state(
                &[("alice", Propose), ("bob", Counter)],
                Some("alice"),
            )),
            "alice",
            Accept,
            "x",
            R::AcceptWithoutOffer,
        ),
        (
            "accept own proposal",
            Some(state(&[("alice", Propose)], Some("alice"))),
            "alice",
            Accept,
            "x",
            R::AcceptWithoutOffer,
        ),
        (
            "accept across a round",
            Some(state(
                &[("bob", Propose), ("alice", Decline)],
                Some("alice"),
            )),
            "alice",
            Accept,
            "x",
            R::AcceptWithoutOffer,
        ),
        (
            "propose over a proposal",
            Some(state(&[("bob", Propose)], Some("alice"))),
            "alice",
            Propose,
            "x",
            R::ProposeOverOffer,
        ),
    ];
    for (name, state, user, action, message, expected) in rows {
        assert_eq!(
            check(state.as_ref(), user, action, message),
            expected.as_str(),
            "{name}"
        );
    }
}

#[test]
fn permitted_transitions() {
    let opened = state(&[], Some("alice"));
    assert_eq!(
        check(Some(&opened), "alice", Propose, "Intro?"),
        "ok index=0 awaiting=Some(\"bob\") outcome=None round_ended=None status=Negotiating"
    );
    let proposed = state(&[("alice", Propose)], Some("bob"));
    assert_eq!(
        check(Some(&proposed), "bob", Accept, "Yes"),
        "ok index=1 awaiting=None outcome=Some(Agreed) round_ended=None status=Pending"
    );
    assert_eq!(
        check(Some(&proposed), "bob", Decline, "No"),
        "ok index=1 awaiting=None outcome=None round_ended=Some(Declined) status=Negotiating"
    );
    assert_eq!(
        check(Some(&opened), "alice", Decline, "Not now"),
        "ok index=0 awaiting=None outcome=None round_ended=Some(Declined) status=Negotiating"
    );
    let countered = state(&[("alice", Propose), ("bob", Counter)], Some("alice"));
    assert_eq!(
        check(Some(&countered), "alice", Propose, "Revised"),
        "ok index=2 awaiting=Some(\"bob\") outcome=None round_ended=None status=Negotiating"
    );
    assert_eq!(
        check(Some(&countered), "alice", Counter, "Why?"),
        "ok index=2 awaiting=Some(\"bob\") outcome=None round_ended=None status=Negotiating"
    );
}

#[test]
fn the_twelfth_turn_of_a_round_ends_it_but_an_accept_still_settles() {
    let seats = ["alice", "bob"];
    let eleven: Vec<(&str, NegotiationAction)> = (0..11)
        .map(|i| (seats[i % 2], if i % 2 == 0 { Propose } else { Counter }))
        .collect();
    let last = state(&eleven, Some("bob"));
    assert_eq!(
        check(Some(&last), "bob", Counter, "One more question"),
        "ok index=11 awaiting=None outcome=None round_ended=Some(TurnLimit) status=Negotiating"
    );
    let mut offered = eleven.clone();
    offered[10] = ("alice", Propose);
    assert_eq!(
        check(Some(&state(&offered, Some("bob"))), "bob", Accept, "Deal"),
        "ok index=11 awaiting=None outcome=Some(Agreed) round_ended=None status=Pending"
    );
    // Round two counts from zero: turn 13 overall is turn 1 of round two.
    let mut twelve = eleven.clone();
    twelve.push(("bob", Counter));
    let resumed = state(&twelve, Some("alice"));
    let decision = decide_negotiation_turn(
        Some(&resumed),
        &user("alice"),
        &NegotiationTurn::new(Propose, "Fresh start"),
    );
    let permitted = decision.permitted().unwrap();
    assert_eq!((permitted.turn_index, permitted.round_ended), (12, None));
    assert_eq!(permitted.opportunity_status, OpportunityStatus::Negotiating);
    // And round two ends at its own twelfth turn, not at the log's 24th.
    let mut round_two = twelve.clone();
    for n in 0..11 {
        round_two.push(if n % 2 == 0 {
            ("alice", Propose)
        } else {
            ("bob", Counter)
        });
    }
    let last = state(&round_two, Some("bob"));
    let decision = decide_negotiation_turn(
        Some(&last),
        &user("bob"),
        &NegotiationTurn::new(Counter, "Still apart"),
    );
    assert_eq!(
        decision.permitted().unwrap().round_ended,
        Some(RoundEnded::TurnLimit)
    );
}

#[test]
fn messages_are_measured_as_javascript_measures_them() {
    let opened = state(&[], Some("alice"));
    let ok = |m: &str| check(Some(&opened), "alice", Propose, m).starts_with("ok");
    assert!(ok(&"a".repeat(4000)));
    assert!(!ok(&"a".repeat(4001)));
    assert!(
        ok(&format!("  {}\u{feff}\u{3000}", "a".repeat(4000))),
        "JS trim removes U+FEFF and U+3000"
    );
    assert!(ok(&"🙂".repeat(2000)));
    assert!(
        !ok(&format!("{}a", "🙂".repeat(2000))),
        "astral characters count two units"
    );
    assert!(!ok("\u{feff}\u{2029}\t"));
    assert!(ok("\u{85}"), "U+0085 is not JavaScript whitespace");
}

#[test]
fn untyped_turns_are_checked_after_the_seat_checks() {
    let opened = state(&[], Some("alice"));
    let decide = |s: Option<&NegotiationState>, user: &str, v: serde_json::Value| {
        decide_negotiation_turn_value(s, &self::user(user), &v)
            .rejection()
            .map(R::as_str)
    };
    let bad = serde_json::json!({"action": "haggle", "message": "x"});
    assert_eq!(decide(None, "alice", bad.clone()), Some("not_found"));
    assert_eq!(
        decide(Some(&opened), "bob", bad.clone()),
        Some("not_your_turn")
    );
    assert_eq!(decide(Some(&opened), "alice", bad), Some("invalid_turn"));
    assert_eq!(
        decide(
            Some(&opened),
            "alice",
            serde_json::json!({"action": "propose"})
        ),
        Some("invalid_turn")
    );
    assert_eq!(
        decide(Some(&opened), "alice", serde_json::json!("propose")),
        Some("invalid_turn")
    );
    assert_eq!(
        decide(
            Some(&opened),
            "alice",
            serde_json::json!({"action": "propose", "message": "hi", "extra": 1})
        ),
        None,
        "unknown keys are dropped"
    );
}

#[test]
fn resume_rejections_in_check_order() {
    let mut settled = state(&[("alice", Decline)], Some("bob"));
    settled.settled = true;
    settled.eligible = false;
    let mut inactive = state(&[("alice", Decline)], Some("bob"));
    inactive.eligible = false;
    let rows = [
        (None, "carol", Some(RR::NotFound)),
        (Some(settled.clone()), "carol", Some(RR::NotASeat)),
        (Some(settled), "bob", Some(RR::AlreadySettled)),
        (Some(inactive), "bob", Some(RR::IntentInactive)),
        (
            Some(state(&[("alice", Propose)], Some("bob"))),
            "alice",
            Some(RR::NotPaused),
        ),
        (Some(state(&[("alice", Decline)], None)), "bob", None),
        (Some(state(&[("alice", Decline)], None)), "alice", None),
    ];
    for (state, user, expected) in rows {
        let decision = decide_negotiation_resume(state.as_ref(), &self::user(user));
        assert_eq!(decision.rejection(), expected, "{user} on {state:?}");
        if expected.is_none() {
            assert_eq!(decision.permitted().unwrap().awaiting_user_id, user);
        }
    }
}
