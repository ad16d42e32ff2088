//! The limits every request is held to, apart from the modules that hold
//! requests to them (the router, the `/mcp` gate, the listener), so that
//! none of those has to reach into another for a number.

use std::time::Duration;

/// The largest request body accepted, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How long one request may take before it is answered 408; waits are
/// bounded by [`crate::MAX_WAIT`], below this.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(90);
