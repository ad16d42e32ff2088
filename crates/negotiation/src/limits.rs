//! The rules' two limits: turns in a round and the length of a message.

/// The most turns one round may hold. Not a limit on the negotiation: after
/// a round's last turn, a seat may resume and start another.
pub const NEGOTIATION_MAX_TURNS: usize = max_turns!();

/// The longest turn message, in UTF-16 code units after JavaScript-style
/// trimming.
pub const NEGOTIATION_MESSAGE_LIMIT: usize = 4000;

/// Expands to the round limit as a literal, so the guidance text can quote
/// it with `concat!` and never disagree with [`NEGOTIATION_MAX_TURNS`].
macro_rules! max_turns {
    () => {
        12
    };
}
pub(crate) use max_turns;
