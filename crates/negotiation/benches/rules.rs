//! Decision cost on realistic logs: decide and observe on a 24-turn log (two
//! full rounds), and `current_round` on logs up to 10,000 turns to show it
//! is linear. Run with `cargo bench -p index-negotiation`.

// criterion's macros generate undocumented items; a bench's fixed ids are
// known to be valid.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use index_negotiation::{
    NegotiationAction, NegotiationState, NegotiationTurn, SeatTurn, UserId, current_round,
    decide_negotiation_turn, observe_negotiation,
};

/// A user id for a test, which is never blank.
fn user(id: &str) -> UserId {
    UserId::parse(id).unwrap()
}

/// A log of `n` alternating propose/counter turns by alice and bob, with the
/// turn left to whoever is next.
fn state_with(n: usize) -> NegotiationState {
    let mut state = NegotiationState::opened(user("alice"), user("bob"));
    state.turns = (0..n)
        .map(|i| SeatTurn {
            seat_user_id: user(if i.is_multiple_of(2) { "alice" } else { "bob" }),
            action: if i.is_multiple_of(2) {
                NegotiationAction::Propose
            } else {
                NegotiationAction::Counter
            },
            message: "Terms as discussed, with the start date moved a week.".to_owned(),
        })
        .collect();
    state.awaiting_user_id = Some(user(if n.is_multiple_of(2) { "alice" } else { "bob" }));
    state
}

fn decisions(c: &mut Criterion) {
    let state = state_with(23);
    let turn = NegotiationTurn::new(NegotiationAction::Accept, "Agreed, let's connect.");
    let bob = user("bob");
    let mut group = c.benchmark_group("24-turn-log");
    group.bench_function("decide_negotiation_turn", |b| {
        b.iter(|| {
            decide_negotiation_turn(black_box(Some(&state)), black_box(&bob), black_box(&turn))
        })
    });
    group.bench_function("observe_negotiation", |b| {
        b.iter(|| observe_negotiation(black_box(&state), black_box(&bob)))
    });
    group.finish();
}

fn rounds(c: &mut Criterion) {
    let mut group = c.benchmark_group("current_round");
    for n in [100usize, 1_000, 10_000] {
        let turns = state_with(n).turns;
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &turns, |b, turns| {
            b.iter(|| current_round(black_box(turns)).len())
        });
    }
    group.finish();
}

criterion_group!(benches, decisions, rounds);
criterion_main!(benches);
