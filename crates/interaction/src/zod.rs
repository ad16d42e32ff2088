//! Reading JSON the way the reference's zod 4 schemas do, reporting every
//! problem with its path.
//!
//! zod 4 reports a node's own problems in shape order, then its unknown
//! keys, then its refinements. A refinement runs only while nothing beneath
//! its node failed in an aborting way: a wrong type, an unmatched union or
//! enum value, or an unknown key. Lengths, sizes and other refinements do
//! not abort. [`Walk`] keeps that bookkeeping in one place.

use std::fmt;

use serde_json::{Map, Value};

use crate::js::{is_safe_integer, js_keys, utf16_len};
use crate::number::WireEnum;

/// One step of a path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathSegment {
    /// A key.
    Key(String),
    /// An index, from 0.
    Index(usize),
}

/// Where a problem is, written as zod writes paths: `answerSpec.fields.0.max`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IssuePath(pub Vec<PathSegment>);

impl fmt::Display for IssuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            match segment {
                PathSegment::Key(key) => f.write_str(key)?,
                PathSegment::Index(index) => write!(f, "{index}")?,
            }
        }
        Ok(())
    }
}

/// zod 4's issue codes, the kinds of problem a schema reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IssueCode {
    /// Missing, or the wrong JSON type, or not an integer.
    InvalidType,
    /// No option of a union matches (including an unknown discriminator).
    InvalidUnion,
    /// Not one of an enum's values.
    InvalidValue,
    /// Shorter, fewer or smaller than allowed.
    TooSmall,
    /// Longer, more or larger than allowed.
    TooBig,
    /// A strict object has keys it does not define.
    UnrecognizedKeys,
    /// A rule across fields.
    Custom,
}

impl IssueCode {
    /// zod's name for the code (`invalid_type`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::InvalidType => "invalid_type",
            IssueCode::InvalidUnion => "invalid_union",
            IssueCode::InvalidValue => "invalid_value",
            IssueCode::TooSmall => "too_small",
            IssueCode::TooBig => "too_big",
            IssueCode::UnrecognizedKeys => "unrecognized_keys",
            IssueCode::Custom => "custom",
        }
    }

    fn aborts(self) -> bool {
        matches!(
            self,
            IssueCode::InvalidType
                | IssueCode::InvalidUnion
                | IssueCode::InvalidValue
                | IssueCode::UnrecognizedKeys
        )
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
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{}", issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct InvalidInteraction {
    /// Every problem; never empty.
    pub issues: Vec<SchemaIssue>,
}

/// A position, built on the stack and turned into a path only when a
/// problem is reported.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    pub(crate) fn key(&'a self, key: &'a str) -> At<'a> {
        At::Key(self, key)
    }

    pub(crate) fn index(&'a self, index: usize) -> At<'a> {
        At::Index(self, index)
    }

    fn path(&self) -> IssuePath {
        match self {
            At::Root => IssuePath::default(),
            At::Key(parent, key) => {
                let mut path = parent.path();
                path.0.push(PathSegment::Key((*key).to_owned()));
                path
            }
            At::Index(parent, index) => {
                let mut path = parent.path();
                path.0.push(PathSegment::Index(*index));
                path
            }
        }
    }
}

fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "nothing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

/// The problems found so far, and how many of them abort refinements.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    issues: Vec<SchemaIssue>,
    aborts: usize,
}

/// A point in the walk, to ask later whether a refinement may run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark(usize);

impl Walk {
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
        Mark(self.aborts)
    }

    /// Whether refinements of the node marked at `mark` may run.
    pub(crate) fn clean_since(&self, mark: Mark) -> bool {
        self.aborts == mark.0
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
            _ => Err(InvalidInteraction {
                issues: self.issues,
            }),
        }
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

    /// A required string of at least `min` UTF-16 units.
    pub(crate) fn string<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
        min: usize,
    ) -> Option<&'v str> {
        let Some(s) = value.and_then(Value::as_str) else {
            self.wrong_type(at, "a string", value);
            return None;
        };
        if utf16_len(s) < min {
            self.issue(
                at,
                IssueCode::TooSmall,
                format!("needs at least {min} character(s)"),
            );
        }
        Some(s)
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

    /// zod 4's `.int().positive()`: a safe integer above zero.
    pub(crate) fn positive_int(&mut self, at: &At<'_>, value: Option<&Value>) -> Option<u64> {
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
        Some(n as u64)
    }

    pub(crate) fn array<'v>(
        &mut self,
        at: &At<'_>,
        value: Option<&'v Value>,
        min: usize,
    ) -> Option<&'v Vec<Value>> {
        let Some(items) = value.and_then(Value::as_array) else {
            self.wrong_type(at, "an array", value);
            return None;
        };
        if items.len() < min {
            self.issue(
                at,
                IssueCode::TooSmall,
                format!("needs at least {min} item(s)"),
            );
        }
        Some(items)
    }

    /// Parses every item of `items` with `parse`; `None` if any failed (each
    /// failure reported, in order).
    pub(crate) fn each<T>(
        &mut self,
        at: &At<'_>,
        items: &[Value],
        mut parse: impl FnMut(&mut Self, &At<'_>, &Value) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut parsed = Some(Vec::with_capacity(items.len()));
        for (i, item) in items.iter().enumerate() {
            match (parse(self, &at.index(i), item), parsed.as_mut()) {
                (Some(value), Some(list)) => list.push(value),
                _ => parsed = None,
            }
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
