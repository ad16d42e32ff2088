//! How long a negotiator's model call may take.

use std::time::Duration;

use index_js::{MAX_SAFE_INTEGER, number_from_str};

/// The turn timeout when neither an override nor the environment sets one.
pub const DEFAULT_TURN_TIMEOUT_MS: f64 = 15_000.0;

/// The environment variable that sets the turn timeout, in milliseconds.
pub const NEGOTIATOR_TURN_TIMEOUT_MS_ENV: &str = "NEGOTIATOR_TURN_TIMEOUT_MS";

fn is_valid_timeout_ms(ms: f64) -> bool {
    ms.is_finite() && ms > 0.0 && ms <= MAX_SAFE_INTEGER
}

/// The turn timeout in milliseconds: a valid `override_ms` wins, then
/// [`NEGOTIATOR_TURN_TIMEOUT_MS_ENV`] read as JavaScript's `Number` reads it,
/// then [`DEFAULT_TURN_TIMEOUT_MS`]. Valid means finite, positive and at
/// most 2^53 − 1.
pub fn resolve_turn_timeout_ms(override_ms: Option<f64>) -> f64 {
    let env =
        std::env::var_os(NEGOTIATOR_TURN_TIMEOUT_MS_ENV).map(|v| v.to_string_lossy().into_owned());
    resolve_turn_timeout_ms_from(override_ms, env.as_deref())
}

/// [`resolve_turn_timeout_ms`] with the environment variable's value passed
/// in, so the decision can be tested without touching the process.
///
/// ```
/// use index_negotiation::resolve_turn_timeout_ms_from;
/// assert_eq!(resolve_turn_timeout_ms_from(Some(500.0), Some("9000")), 500.0);
/// assert_eq!(resolve_turn_timeout_ms_from(Some(-1.0), Some("9000")), 9000.0);
/// assert_eq!(resolve_turn_timeout_ms_from(None, Some("soon")), 15000.0);
/// ```
pub fn resolve_turn_timeout_ms_from(override_ms: Option<f64>, env: Option<&str>) -> f64 {
    if let Some(ms) = override_ms.filter(|ms| is_valid_timeout_ms(*ms)) {
        return ms;
    }
    env.filter(|raw| !raw.is_empty())
        .map(number_from_str)
        .filter(|ms| is_valid_timeout_ms(*ms))
        .unwrap_or(DEFAULT_TURN_TIMEOUT_MS)
}

/// `ms` as a [`Duration`]; the default timeout for a value that is not a
/// valid timeout.
///
/// ```
/// use std::time::Duration;
/// use index_negotiation::turn_timeout;
/// assert_eq!(turn_timeout(1500.0), Duration::from_millis(1500));
/// assert_eq!(turn_timeout(f64::NAN), Duration::from_secs(15));
/// ```
pub fn turn_timeout(ms: f64) -> Duration {
    let ms = if is_valid_timeout_ms(ms) {
        ms
    } else {
        DEFAULT_TURN_TIMEOUT_MS
    };
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::from_secs(15))
}
