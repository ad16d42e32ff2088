//! zod's rule for which problems stop the checks that come after them.
//!
//! A zod schema runs a node's refinements (`superRefine`, a record's or an
//! array's own checks) only while nothing beneath the node failed in an
//! aborting way, so which problems a reference reports depends on which
//! ones abort. The two majors the references run under draw that line in
//! different places; each contract crate maps its own issue codes onto
//! [`ZodIssueKind`] and asks its major here.

/// A kind of problem zod reports, by what it means for the checks after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZodIssueKind {
    /// Missing, or the wrong JSON type (`invalid_type`).
    InvalidType,
    /// Not the literal or not one of an enum's values (zod 3's
    /// `invalid_literal` and `invalid_enum_value`, zod 4's `invalid_value`).
    InvalidValue,
    /// No option of a union matches (`invalid_union`).
    InvalidUnion,
    /// A strict object's keys it does not define (`unrecognized_keys`).
    UnrecognizedKeys,
    /// A record key its key schema refuses (zod 4's `invalid_key`).
    InvalidKey,
    /// A string that fails a format or pattern check, a UUID's included
    /// (zod 3's `invalid_string`, zod 4's `invalid_format`).
    InvalidFormat,
    /// Shorter, fewer or smaller than allowed (`too_small`).
    TooSmall,
    /// Longer, more or larger than allowed (`too_big`).
    TooBig,
    /// A refinement's own problem (`custom`).
    Custom,
}

/// The major release of zod a reference schema runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ZodMajor {
    /// zod 3 (the question block's reference, zod 3.25).
    V3,
    /// zod 4 (the interaction contract's reference).
    V4,
}

impl ZodMajor {
    /// Whether a problem of `kind` keeps the refinements of every node
    /// above it from running.
    ///
    /// zod 3 stops them when a value is invalid (a wrong type, value, union
    /// or record key); unknown keys, lengths, formats and custom problems
    /// only mark it dirty. zod 4 stops them on every problem not raised to
    /// continue, and only length, size, format and custom checks are, so
    /// unknown keys abort there.
    ///
    /// ```
    /// use index_js::{ZodIssueKind, ZodMajor};
    /// assert!(!ZodMajor::V3.aborts(ZodIssueKind::UnrecognizedKeys));
    /// assert!(ZodMajor::V4.aborts(ZodIssueKind::UnrecognizedKeys));
    /// assert!(!ZodMajor::V4.aborts(ZodIssueKind::TooBig));
    /// ```
    #[inline]
    pub fn aborts(self, kind: ZodIssueKind) -> bool {
        use ZodIssueKind::*;
        match kind {
            InvalidType | InvalidValue | InvalidUnion | InvalidKey => true,
            UnrecognizedKeys => self == ZodMajor::V4,
            InvalidFormat | TooSmall | TooBig | Custom => false,
        }
    }
}
