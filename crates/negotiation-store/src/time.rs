//! A moment as the store keeps it: whole seconds since the Unix epoch,
//! read and written as RFC 3339.

use serde::Serialize;

use crate::error::StoreError;

/// A moment, in whole seconds since the Unix epoch: how a key's times and
/// the audit record's are kept. It reads and writes as RFC 3339 in UTC (`2026-12-04T18:00:00Z`).
///
/// ```
/// use index_negotiation_store::UnixTime;
/// let moment = UnixTime(1_796_400_000);
/// assert_eq!(moment.to_string(), "2026-12-04T16:00:00Z");
/// assert_eq!(serde_json::to_value(moment).unwrap(), "2026-12-04T16:00:00Z");
/// assert_eq!(moment.after(std::time::Duration::from_secs(60)), UnixTime(1_796_400_060));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnixTime(pub u64);

impl UnixTime {
    /// Now, by the system clock (the epoch itself for a clock set before it).
    pub fn now() -> Self {
        UnixTime(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs()),
        )
    }

    /// The moment `duration` later, in whole seconds (saturating).
    pub fn after(self, duration: std::time::Duration) -> Self {
        UnixTime(self.0.saturating_add(duration.as_secs()))
    }

    /// The latest recorded use of a key that a use at `at` replaces:
    /// [`KEY_USE_RESOLUTION`] before it, or `None` so early that none is.
    /// The rule [`ApiKeyRecord::use_is_unrecorded`](crate::ApiKeyRecord::use_is_unrecorded) applies, for a SQL
    /// backend's `WHERE` (where `None` is `NULL`, and matches nothing).
    ///
    /// ```
    /// use index_negotiation_store::UnixTime;
    /// assert_eq!(UnixTime::latest_use_replaced_at(UnixTime(100)), Some(UnixTime(40)));
    /// assert_eq!(UnixTime::latest_use_replaced_at(UnixTime(30)), None);
    /// ```
    pub fn latest_use_replaced_at(at: UnixTime) -> Option<UnixTime> {
        at.0.checked_sub(KEY_USE_RESOLUTION.as_secs()).map(UnixTime)
    }

    /// A stored value, refused as corruption when it is negative.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] for a negative number of seconds.
    pub fn from_stored(seconds: i64) -> Result<Self, StoreError> {
        u64::try_from(seconds)
            .map(UnixTime)
            .map_err(|_| StoreError::Corrupt(format!("a stored time of {seconds} seconds")))
    }

    /// The value a SQL column keeps (saturating at `i64::MAX`).
    pub fn to_stored(self) -> i64 {
        i64::try_from(self.0).unwrap_or(i64::MAX)
    }
}

impl std::fmt::Display for UnixTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Past what SystemTime holds, the latest moment it can write.
        let moment = std::time::UNIX_EPOCH
            .checked_add(std::time::Duration::from_secs(self.0))
            .unwrap_or_else(|| {
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(253_402_300_799)
            });
        write!(f, "{}", humantime::format_rfc3339_seconds(moment))
    }
}

/// A moment written as RFC 3339 is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a moment in RFC 3339 (2026-12-04T18:00:00Z): {0:?}")]
pub struct InvalidTime(String);

impl std::str::FromStr for UnixTime {
    type Err = InvalidTime;

    /// Reads RFC 3339 as [`Display`](std::fmt::Display) writes it (a
    /// space for the `T` and no offset, in UTC, also do), to the second.
    ///
    /// ```
    /// use index_negotiation_store::UnixTime;
    /// assert_eq!("2026-12-04T16:00:00Z".parse(), Ok(UnixTime(1_796_400_000)));
    /// assert!("yesterday".parse::<UnixTime>().is_err());
    /// assert!("1969-12-31T23:59:59Z".parse::<UnixTime>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        humantime::parse_rfc3339_weak(text)
            .ok()
            .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|since| UnixTime(since.as_secs()))
            .ok_or_else(|| InvalidTime(text.to_owned()))
    }
}

impl Serialize for UnixTime {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for UnixTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for UnixTime {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "UnixTime".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A moment, in RFC 3339 in UTC to the second.",
            "type": "string",
            "format": "date-time"
        })
    }
}

/// How long a key's last use may go unrecorded: a request records it only
/// when the stored one is at least this old, so a busy key costs a write a
/// minute, not one per request.
pub const KEY_USE_RESOLUTION: std::time::Duration = std::time::Duration::from_secs(60);
