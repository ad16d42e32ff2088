//! Where a problem is, as zod names it.

use std::fmt;

use crate::number::push_decimal;

/// One step of an [`IssuePath`]: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathSegment {
    /// A key of a JSON object.
    Key(String),
    /// A position in a JSON array, from 0.
    Index(usize),
}

/// Where in a JSON value a problem is, as zod's `issue.path.join(".")`
/// writes it: keys and indices joined by dots (`questions.1.alsoUnblocks.0`).
/// The root is the empty path, written as the empty string.
///
/// ```
/// use index_js::{IssuePath, PathSegment};
/// let path = IssuePath::default().key("fields").index(0).key("max");
/// assert_eq!(path.to_string(), "fields.0.max");
/// assert_eq!(path.segments()[1], PathSegment::Index(0));
/// assert!(IssuePath::default().is_root());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IssuePath(pub Vec<PathSegment>);

impl IssuePath {
    /// The path one key further down.
    pub fn key(&self, key: &str) -> Self {
        let mut next = self.0.clone();
        next.push(PathSegment::Key(key.to_owned()));
        IssuePath(next)
    }

    /// The path one array position further down.
    pub fn index(&self, index: usize) -> Self {
        let mut next = self.0.clone();
        next.push(PathSegment::Index(index));
        IssuePath(next)
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> &[PathSegment] {
        &self.0
    }

    /// Whether this is the root, the path with no segments.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends the path as [`Display`](fmt::Display) writes it, without
    /// `core::fmt`: a WebAssembly build that writes only paths links none of
    /// the formatting machinery.
    ///
    /// ```
    /// use index_js::IssuePath;
    /// let mut out = String::from("at ");
    /// IssuePath::default().key("questions").index(1).push_text(&mut out);
    /// assert_eq!(out, "at questions.1");
    /// ```
    pub fn push_text(&self, out: &mut String) {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            match segment {
                PathSegment::Key(key) => out.push_str(key),
                PathSegment::Index(index) => push_decimal(out, *index),
            }
        }
    }
}

impl fmt::Display for IssuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.push_text(&mut out);
        f.write_str(&out)
    }
}

/// A position in a value being read, built on the stack as a reader
/// descends and turned into an [`IssuePath`] only when a problem is
/// reported, so reading a valid value allocates nothing for paths.
///
/// ```
/// use index_js::At;
/// let root = At::Root;
/// let fields = root.key("fields");
/// let first = fields.index(0);
/// assert_eq!(first.path().to_string(), "fields.0");
/// ```
#[derive(Debug, Clone, Copy)]
pub enum At<'a> {
    /// The value itself.
    Root,
    /// A member of the object at the parent position.
    Key(&'a At<'a>, &'a str),
    /// An item of the array at the parent position.
    Index(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    /// The member `key` of the object here.
    pub fn key(&'a self, key: &'a str) -> At<'a> {
        At::Key(self, key)
    }

    /// The item `index` of the array here.
    pub fn index(&'a self, index: usize) -> At<'a> {
        At::Index(self, index)
    }

    /// The position as a path, outermost segment first.
    pub fn path(&self) -> IssuePath {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                At::Root => break,
                At::Key(parent, key) => {
                    segments.push(PathSegment::Key((*key).to_owned()));
                    at = parent;
                }
                At::Index(parent, index) => {
                    segments.push(PathSegment::Index(*index));
                    at = parent;
                }
            }
        }
        segments.reverse();
        IssuePath(segments)
    }
}
