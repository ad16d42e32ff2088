//! Reading JSON the way the reference's zod 4 schemas do, reporting every
//! problem with its path.
//!
//! zod 4 reports a node's own problems in shape order, then its unknown
//! keys, then its refinements. A refinement runs only while nothing beneath
//! its node failed in an aborting way, as [`index_js::ZodMajor::aborts`]
//! decides for zod 4; [`Walk`] keeps that bookkeeping in one place.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Map, Value};

use crate::digest::Sha256Digest;
use index_js::{is_safe_integer, trim};

use crate::js::{js_keys, js_length};
use crate::limits::{
    CONTRACT_MAX_ARRAY_LENGTH, CONTRACT_MAX_IDENTIFIER_LENGTH, CONTRACT_MAX_STRING_LENGTH,
    is_reserved_name,
};
use index_js::{WireEnum, ZodIssueKind, ZodMajor};

pub(crate) use index_js::At;
pub use index_js::{IssuePath, PathSegment};

index_js::wire_enum! {
    crate index_interaction;
    /// zod 4's issue codes, the kinds of problem a schema reports.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum IssueCode {
        /// Missing, or the wrong JSON type, or not an integer.
        InvalidType = "invalid_type",
        /// No option of a union matches (including an unknown discriminator).
        InvalidUnion = "invalid_union",
        /// Not one of an enum's values.
        InvalidValue = "invalid_value",
        /// Shorter, fewer or smaller than allowed.
        TooSmall = "too_small",
        /// Longer, more or larger than allowed.
        TooBig = "too_big",
        /// A strict object has keys it does not define.
        UnrecognizedKeys = "unrecognized_keys",
        /// A record key that its key schema refuses (0.46: a reserved or
        /// unbounded field name).
        InvalidKey = "invalid_key",
        /// A string that does not match its pattern (a digest).
        InvalidFormat = "invalid_format",
        /// A rule across fields.
        Custom = "custom",
    }
}

impl IssueCode {
    /// Whether this problem stops refinements, as zod 4 decides.
    fn aborts(self) -> bool {
        let kind = match self {
            IssueCode::InvalidType => ZodIssueKind::InvalidType,
            IssueCode::InvalidUnion => ZodIssueKind::InvalidUnion,
            IssueCode::InvalidValue => ZodIssueKind::InvalidValue,
            IssueCode::TooSmall => ZodIssueKind::TooSmall,
            IssueCode::TooBig => ZodIssueKind::TooBig,
            IssueCode::UnrecognizedKeys => ZodIssueKind::UnrecognizedKeys,
            IssueCode::InvalidKey => ZodIssueKind::InvalidKey,
            IssueCode::InvalidFormat => ZodIssueKind::InvalidFormat,
            IssueCode::Custom => ZodIssueKind::Custom,
        };
        ZodMajor::V4.aborts(kind)
    }
}

/// One problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaIssue {
    /// Where.
    pub path: IssuePath,
    /// What kind.
    pub code: IssueCode,
    /// What, for a person.
    pub message: String,
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.0.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// A value that breaks the contract, with every problem, in the
/// reference's order.
pub type InvalidInteraction = index_js::Problems<SchemaIssue>;

fn type_name(value: Option<&Value>) -> &'static str {
    value.map_or("nothing", |value| index_js::JsonType::of(value).phrase())
}

/// Which release of the contract a walk reads. The two differ in bounds,
/// reserved names, secret handles and the envelope; the shared schemas
/// ask [`Walk::current`] where they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Version {
    /// 0.44.0, read through [`crate::v0_44`].
    V0_44,
    /// 0.46.0, the contract.
    #[default]
    V0_46,
}

/// The problems found so far, and how many of them abort refinements.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    issues: Vec<SchemaIssue>,
    aborts: usize,
    version: Version,
}

/// A point in the walk, to ask later whether a refinement may run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    aborts: usize,
    issues: usize,
}

impl Walk {
    /// A walk that reads `version` of the contract.
    pub(crate) fn new(version: Version) -> Self {
        Walk {
            version,
            ..Walk::default()
        }
    }

    /// The version the walk reads.
    pub(crate) fn version(&self) -> Version {
        self.version
    }

    /// Whether anything reported so far aborts refinements.
    pub(crate) fn aborted(&self) -> bool {
        self.aborts > 0
    }

    /// Takes over what `other` (a trial walk of one union option) found.
    pub(crate) fn absorb(&mut self, other: Walk) {
        self.aborts += other.aborts;
        self.issues.extend(other.issues);
    }

    /// Whether the walk reads 0.46, with its bounds.
    pub(crate) fn current(&self) -> bool {
        self.version == Version::V0_46
    }

    /// The most items an array may hold: 1024 from 0.46 on, no bound before.
    pub(crate) fn max_items(&self) -> Option<usize> {
        self.current().then_some(CONTRACT_MAX_ARRAY_LENGTH)
    }

    pub(crate) fn issue(&mut self, at: &At<'_>, code: IssueCode, message: impl Into<String>) {
        if code.aborts() {
            self.aborts += 1;
        }
        self.issues.push(SchemaIssue {
            path: at.path(),
            code,
            message: message.into(),
        });
    }

    pub(crate) fn mark(&self) -> Mark {
        Mark {
            aborts: self.aborts,
            issues: self.issues.len(),
        }
    }

    /// Whether refinements of the node marked at `mark` may run.
    pub(crate) fn clean_since(&self, mark: Mark) -> bool {
        self.aborts == mark.aborts
    }

    /// Whether nothing at all was reported since `mark`.
    pub(crate) fn spotless_since(&self, mark: Mark) -> bool {
        self.issues.len() == mark.issues
    }

    /// Runs a node's cross-field rules on `value`, if it parsed and nothing
    /// beneath the node (since `mark`) failed in an aborting way.
    pub(crate) fn refine<T>(
        &mut self,
        mark: Mark,
        value: &Option<T>,
        rules: impl FnOnce(&mut Self, &T),
    ) {
        if let Some(value) = value.as_ref().filter(|_| self.clean_since(mark)) {
            rules(self, value);
        }
    }

    pub(crate) fn finish<T>(self, value: Option<T>) -> Result<T, InvalidInteraction> {
        match value {
            Some(value) if self.issues.is_empty() => Ok(value),
            _ => Err(self.fail()),
        }
    }

    /// The problems found, for a caller that found one of its own.
    pub(crate) fn fail(self) -> InvalidInteraction {
        // A walk that read nothing reported why; should one ever not have,
        // the value is still refused, with a problem at the root.
        index_js::Problems::new(self.issues).unwrap_or_else(|| {
            index_js::Problems::one(SchemaIssue {
                path: IssuePath::default(),
                code: IssueCode::Custom,
                message: "could not be read".to_owned(),
            })
        })
    }

    fn wrong_type(&mut self, at: &At<'_>, expected: &str, found: Option<&Value>) {
        let message = format!("should be {expected}, not {}", type_name(found));
        self.issue(at, IssueCode::InvalidType, message);
    }

    pub(crate) fn object<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
    ) -> Option<&'v Map<String, Value>> {
        let object = value.and_then(Value::as_object);
        if object.is_none() {
            self.wrong_type(at, "an object", value);
        }
        object
    }

    /// Reports `object`'s keys outside `known`, in JavaScript key order.
    pub(crate) fn strict(&mut self, at: &At<'_>, object: &Map<String, Value>, known: &[&str]) {
        let unknown: Vec<&String> = js_keys(object)
            .into_iter()
            .filter(|k| !known.contains(&k.as_str()))
            .collect();
        if !unknown.is_empty() {
            let list = unknown
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ");
            self.issue(
                at,
                IssueCode::UnrecognizedKeys,
                format!("has unknown key(s): {list}"),
            );
        }
    }

    /// A required string of at least `min` UTF-16 units (and, from 0.46 on,
    /// at most 16384).
    pub(crate) fn string<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
        min: usize,
    ) -> Option<&'v str> {
        self.string_within(at, value, min, None)
    }

    /// [`string`](Walk::string), also at most `max` units when given.
    ///
    /// zod 4 runs length checks on anything with a `length`, after the
    /// type check fails too: a list where text belongs is also too short
    /// when empty. So does this, with [`js_length`].
    fn string_within<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
        min: usize,
        max: Option<usize>,
    ) -> Option<&'v str> {
        let text = value.and_then(Value::as_str);
        if text.is_none() {
            self.wrong_type(at, "a string", value);
        }
        if let Some(length) = js_length(value) {
            let bound = self.current().then_some(CONTRACT_MAX_STRING_LENGTH);
            self.check_at_most(at, length, bound, "character");
            self.check_at_least(at, length, min, "character");
            self.check_at_most(at, length, max, "character");
        }
        text
    }

    /// A length check `.min(min)`, where `min` is 0 for none.
    fn check_at_least(&mut self, at: &At<'_>, length: f64, min: usize, unit: &str) {
        // Written as JavaScript compares: NaN is never long enough.
        let long_enough = length
            .partial_cmp(&(min as f64))
            .is_some_and(Ordering::is_ge);
        if min > 0 && !long_enough {
            self.issue(
                at,
                IssueCode::TooSmall,
                format!("needs at least {min} {unit}(s)"),
            );
        }
    }

    /// A length check `.max(max)`, if any.
    fn check_at_most(&mut self, at: &At<'_>, length: f64, max: Option<usize>, unit: &str) {
        let too_long = |max: &usize| {
            !length
                .partial_cmp(&(*max as f64))
                .is_some_and(Ordering::is_le)
        };
        if let Some(max) = max.filter(too_long) {
            self.issue(
                at,
                IssueCode::TooBig,
                format!("may have at most {max} {unit}(s)"),
            );
        }
    }

    /// An identifier: from 0.46 on, a bounded string of 1 to 512 UTF-16
    /// units without outer whitespace; in 0.44, any non-empty string.
    pub(crate) fn identifier<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
    ) -> Option<&'v str> {
        let max = self.current().then_some(CONTRACT_MAX_IDENTIFIER_LENGTH);
        let s = self.string_within(at, value, 1, max)?;
        if self.current() && trim(s) != s {
            self.issue(
                at,
                IssueCode::Custom,
                "an identifier may not start or end with whitespace",
            );
        }
        Some(s)
    }

    /// A field name: an identifier that, from 0.46 on, is not one of the
    /// names JavaScript objects reserve.
    pub(crate) fn field_name<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
    ) -> Option<&'v str> {
        let s = self.identifier(at, value)?;
        if self.current() && is_reserved_name(s) {
            self.issue(at, IssueCode::Custom, "this field name is reserved");
        }
        Some(s)
    }

    /// A `sha256:` digest in lower-case hex.
    pub(crate) fn digest(&mut self, at: &At<'_>, value: Option<&Value>) -> Option<Sha256Digest> {
        let Some(s) = value.and_then(Value::as_str) else {
            self.wrong_type(at, "a string", value);
            return None;
        };
        // A malformed digest is kept, so the rules across members still
        // run (zod's format check does not abort them); the walk has
        // reported it, so the value never leaves.
        Some(Sha256Digest::parse(s).unwrap_or_else(|| {
            self.issue(
                at,
                IssueCode::InvalidFormat,
                "should be \"sha256:\" and 64 lower-case hex digits",
            );
            Sha256Digest::reported(s)
        }))
    }

    pub(crate) fn boolean(&mut self, at: &At<'_>, value: Option<&Value>) -> Option<bool> {
        let b = value.and_then(Value::as_bool);
        if b.is_none() {
            self.wrong_type(at, "true or false", value);
        }
        b
    }

    /// A finite JSON number, as a double.
    pub(crate) fn number(&mut self, at: &At<'_>, value: Option<&Value>) -> Option<f64> {
        let n = value.and_then(Value::as_f64).filter(|n| n.is_finite());
        if n.is_none() {
            self.wrong_type(at, "a finite number", value);
        }
        n
    }

    /// zod 4's `.int().positive()`, and `.max(max)` when given: a safe
    /// integer above zero.
    pub(crate) fn positive_int(
        &mut self,
        at: &At<'_>,
        value: Option<&Value>,
        max: Option<u64>,
    ) -> Option<u64> {
        let Some(n) = value
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite() && n.fract() == 0.0)
        else {
            self.wrong_type(at, "a whole number", value);
            return None;
        };
        if !is_safe_integer(n) {
            self.issue(at, IssueCode::TooBig, "must be at most 9007199254740991");
        }
        if n <= 0.0 {
            self.issue(at, IssueCode::TooSmall, "must be greater than 0");
        }
        // Out-of-range values were reported; the cast saturates harmlessly.
        let whole = n as u64;
        if let Some(max) = max.filter(|max| n > *max as f64) {
            self.issue(at, IssueCode::TooBig, format!("must be at most {max}"));
        }
        Some(whole)
    }

    /// An array of at least `min` items (and at most [`max_items`]), each
    /// read by `parse`; `None` if any item failed. Items are reported
    /// before the length, as zod 4 runs length checks after the items.
    ///
    /// [`max_items`]: Walk::max_items
    pub(crate) fn list<T>(
        &mut self,
        at: &At<'_>,
        value: Option<&Value>,
        min: usize,
        parse: impl FnMut(&mut Self, &At<'_>, &Value) -> Option<T>,
    ) -> Option<Vec<T>> {
        let max = self.max_items();
        self.list_within(at, value, min, max, parse)
    }

    /// [`list`](Walk::list) with its own upper bound.
    pub(crate) fn list_within<T>(
        &mut self,
        at: &At<'_>,
        value: Option<&Value>,
        min: usize,
        max: Option<usize>,
        mut parse: impl FnMut(&mut Self, &At<'_>, &Value) -> Option<T>,
    ) -> Option<Vec<T>> {
        let parsed = match value.and_then(Value::as_array) {
            None => {
                self.wrong_type(at, "an array", value);
                None
            }
            Some(items) => {
                let mut parsed = Some(Vec::with_capacity(items.len()));
                for (i, item) in items.iter().enumerate() {
                    match (parse(self, &at.index(i), item), parsed.as_mut()) {
                        (Some(value), Some(list)) => list.push(value),
                        _ => parsed = None,
                    }
                }
                parsed
            }
        };
        // After the items, and on anything else with a length too.
        if let Some(length) = js_length(value) {
            self.check_at_least(at, length, min, "item");
            self.check_at_most(at, length, max, "item");
        }
        parsed
    }

    /// One of the values of `T`, by name.
    pub(crate) fn one_of<T: WireEnum>(&mut self, at: &At<'_>, value: Option<&Value>) -> Option<T> {
        let found = value.and_then(Value::as_str).and_then(T::from_wire);
        if found.is_none() {
            let names = T::NAMES
                .iter()
                .map(|name| format!("\"{name}\""))
                .collect::<Vec<_>>()
                .join(", ");
            self.issue(
                at,
                IssueCode::InvalidValue,
                format!("should be one of {names}"),
            );
        }
        found
    }

    /// A discriminated union's tag at `object[key]`: one of `allowed`, or an
    /// `invalid_union` at the tag's path.
    pub(crate) fn tag<'v>(
        &mut self,
        at: &At<'_>,
        object: &'v Map<String, Value>,
        key: &str,
        allowed: &[&str],
    ) -> Option<&'v str> {
        let tag = object
            .get(key)
            .and_then(Value::as_str)
            .filter(|t| allowed.contains(t));
        if tag.is_none() {
            let names = allowed
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ");
            self.issue(
                &at.key(key),
                IssueCode::InvalidUnion,
                format!("should be one of {names}"),
            );
        }
        tag
    }

    /// An optional member: `None` when absent, `Some(parsed)` otherwise.
    pub(crate) fn optional<'v, T>(
        &mut self,
        object: &'v Map<String, Value>,
        key: &str,
        parse: impl FnOnce(&mut Self, Option<&'v Value>) -> Option<T>,
    ) -> Result<Option<T>, ()> {
        match object.get(key) {
            None => Ok(None),
            Some(value) => parse(self, Some(value)).map(Some).ok_or(()),
        }
    }
}
