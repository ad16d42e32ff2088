//! Rounds: the round in progress, the round each turn belongs to, and
//! whether talks stopped because a round ran to the turn cap. Every
//! surface that numbers rounds or asks how talks stopped asks here, so a
//! round is counted one way, the rules' own.

use crate::limits::NEGOTIATION_MAX_TURNS;
use crate::state::NegotiationState;
use crate::turn::{HasAction, NegotiationAction};

/// Whether each turn closes its round, oldest first: a decline does, and
/// so does a round's [`NEGOTIATION_MAX_TURNS`]th turn. The one walk that
/// [`current_round`] and [`round_numbers`] share.
fn closes_round<T: HasAction>(turns: &[T]) -> impl Iterator<Item = bool> + '_ {
    let mut in_round = 0_usize;
    turns.iter().map(move |turn| {
        in_round = in_round.saturating_add(1);
        let closes =
            turn.action() == NegotiationAction::Decline || in_round >= NEGOTIATION_MAX_TURNS;
        if closes {
            in_round = 0;
        }
        closes
    })
}

/// The turns of the round in progress: those after the last decline or the
/// last full round, oldest first.
///
/// A round ends at a decline or once it holds [`NEGOTIATION_MAX_TURNS`]
/// turns; right after it ends, the current round is empty.
///
/// ```
/// use index_negotiation::{current_round, NegotiationAction::*};
/// assert_eq!(current_round(&[Propose, Counter, Decline, Propose]), &[Propose]);
/// assert!(current_round(&[Propose, Decline]).is_empty());
/// assert_eq!(current_round(&[Propose; 13]).len(), 1);
/// ```
pub fn current_round<T: HasAction>(turns: &[T]) -> &[T] {
    let start = closes_round(turns)
        .enumerate()
        .filter(|(_, closes)| *closes)
        .last()
        .map_or(0, |(index, _)| index.saturating_add(1));
    turns.get(start..).unwrap_or_default()
}

/// The round each of `turns` belongs to, counted from 1 at the first turn
/// given, oldest first: what a surface prints beside each turn of a log,
/// counted as the rules count rounds rather than by a walk of its own.
/// Give it the whole log (a log that starts at a later round's first turn
/// is numbered from that round as 1).
///
/// ```
/// use index_negotiation::{round_numbers, NegotiationAction::*};
/// let rounds: Vec<usize> = round_numbers(&[Propose, Decline, Propose, Counter]).collect();
/// assert_eq!(rounds, [1, 1, 2, 2]);
/// // Twelve turns fill a round: the thirteenth starts the next.
/// assert_eq!(round_numbers(&[Propose; 13]).last(), Some(2));
/// ```
pub fn round_numbers<T: HasAction>(turns: &[T]) -> impl Iterator<Item = usize> + '_ {
    let mut round = 1_usize;
    closes_round(turns).map(move |closes| {
        let this = round;
        if closes {
            round = round.saturating_add(1);
        }
        this
    })
}

impl NegotiationState {
    /// Where the round in progress starts, counted over the whole log (the
    /// turns before [`turns`](Self::turns) included): the index its first
    /// turn has, or the next turn will have if it has none yet. A store
    /// reads the log from here (or from the round before) without walking
    /// the rounds itself.
    ///
    /// ```
    /// use index_negotiation::{NegotiationAction, NegotiationState, SeatTurn, UserId};
    /// let alice = UserId::parse("alice")?;
    /// let mut state = NegotiationState::opened(alice.clone(), UserId::parse("bob")?);
    /// let turn = |action| SeatTurn { seat_user_id: alice.clone(), action, message: "…".into() };
    /// state.turns = vec![turn(NegotiationAction::Propose), turn(NegotiationAction::Decline), turn(NegotiationAction::Propose)];
    /// assert_eq!(state.round_start(), 2);
    /// state.earlier_turns = 12;
    /// assert_eq!(state.round_start(), 14);
    /// # Ok::<(), index_negotiation::InvalidId>(())
    /// ```
    pub fn round_start(&self) -> usize {
        self.turn_count()
            .saturating_sub(current_round(&self.turns).len())
    }

    /// Whether talks, still open, stopped because their last round ran to
    /// the turn cap: the round's [`NEGOTIATION_MAX_TURNS`]th turn was its
    /// last, and it was not a decline. This is the reference's "stalled at
    /// the turn cap", which a park's stall reason reports. It stays true
    /// once a seat resumes, until the new round's first turn; a round
    /// that ended on a decline, or a negotiation settled (by an accept or
    /// a close), did not stall at the cap.
    ///
    /// ```
    /// use index_negotiation::*;
    /// let (alice, bob) = (UserId::parse("alice")?, UserId::parse("bob")?);
    /// let mut state = NegotiationState::opened(alice.clone(), bob.clone());
    /// assert!(!state.ran_to_turn_cap());
    /// state.turns = (0..NEGOTIATION_MAX_TURNS).map(|n| SeatTurn {
    ///     seat_user_id: if n % 2 == 0 { alice.clone() } else { bob.clone() },
    ///     action: if n == 0 { NegotiationAction::Propose } else { NegotiationAction::Counter },
    ///     message: "…".into(),
    /// }).collect();
    /// state.awaiting_user_id = None;
    /// assert!(state.ran_to_turn_cap() && state.ended_unconcluded());
    /// state.settled = true;
    /// assert!(!state.ran_to_turn_cap());
    /// # Ok::<(), InvalidId>(())
    /// ```
    pub fn ran_to_turn_cap(&self) -> bool {
        !self.settled
            && self
                .turns
                .last()
                .is_some_and(|turn| turn.action != NegotiationAction::Decline)
            && current_round(&self.turns).is_empty()
    }

    /// Whether the negotiation ended unconcluded: nobody is to move, and
    /// the last round [ran to the turn cap](Self::ran_to_turn_cap) rather
    /// than ending on a decline. Only such a negotiation may park on a
    /// question ([`decide_park`](crate::decide_park)), as the reference's
    /// finalize step reads a stall.
    ///
    /// ```
    /// use index_negotiation::{NegotiationState, UserId};
    /// let state = NegotiationState::opened(UserId::parse("alice")?, UserId::parse("bob")?);
    /// assert!(!state.ended_unconcluded(), "nothing was negotiated yet");
    /// # Ok::<(), index_negotiation::InvalidId>(())
    /// ```
    pub fn ended_unconcluded(&self) -> bool {
        self.awaiting_user_id.is_none() && self.ran_to_turn_cap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NegotiationAction::{Accept, Counter, Decline, Propose};

    /// The walk a surface would write by hand, to hold the shared one to.
    fn by_hand(turns: &[NegotiationAction]) -> Vec<usize> {
        let (mut round, mut in_round) = (1, 0);
        turns
            .iter()
            .map(|action| {
                let this = round;
                in_round += 1;
                if *action == Decline || in_round >= NEGOTIATION_MAX_TURNS {
                    round += 1;
                    in_round = 0;
                }
                this
            })
            .collect()
    }

    #[test]
    fn rounds_are_numbered_as_the_round_in_progress_is_found() {
        let mut log = Vec::new();
        for n in 0..40 {
            log.push(match n % 7 {
                0 => Propose,
                3 => Decline,
                5 => Accept,
                _ => Counter,
            });
            let numbers: Vec<usize> = round_numbers(&log).collect();
            assert_eq!(numbers, by_hand(&log));
            let last = numbers.last().copied().unwrap_or(1);
            let in_progress = current_round(&log).len();
            let in_last = numbers.iter().filter(|round| **round == last).count();
            // The round in progress is the last numbered one, or, right
            // after a round ends, a round with no turns yet.
            assert!(in_progress == in_last || in_progress == 0, "{log:?}");
        }
    }
}
