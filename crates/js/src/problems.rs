//! Every problem a contract found, as one error.

use std::fmt;

/// Every problem a reader or validator found, in the reference's order: a
/// list that is never empty and is itself an error, so a caller can use
/// `?`, print it whole, or go through the problems one by one.
///
/// Every contract crate reports a list of problems this way: as this type,
/// or as a named error that holds one and adds its own wording (the
/// question block's reports, which the browser build writes without
/// `core::fmt`).
///
/// ```
/// use index_js::Problems;
/// let problems = Problems::new(vec!["too long", "not a UUID"]).unwrap();
/// assert_eq!(problems.len(), 2);
/// assert_eq!(problems.first(), &"too long");
/// assert_eq!(problems.to_string(), "too long; not a UUID");
/// assert!(Problems::<&str>::new(Vec::new()).is_none());
/// let error: Box<dyn std::error::Error> = Box::new(problems);
/// assert_eq!(error.to_string(), "too long; not a UUID");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Problems<P> {
    problems: Vec<P>,
}

impl<P> Problems<P> {
    /// The problems, or `None` when there are none (nothing is wrong).
    pub fn new(problems: Vec<P>) -> Option<Self> {
        (!problems.is_empty()).then_some(Problems { problems })
    }

    /// A single problem.
    ///
    /// ```
    /// assert_eq!(index_js::Problems::one("late").as_slice(), ["late"]);
    /// ```
    pub fn one(problem: P) -> Self {
        Problems {
            problems: vec![problem],
        }
    }

    /// Each problem turned into another kind (as a response reports the
    /// problems of the request it was checked against); never empty still.
    ///
    /// ```
    /// let codes = index_js::Problems::one(404).map(|code| format!("E{code}"));
    /// assert_eq!(codes.first(), "E404");
    /// ```
    pub fn map<Q>(self, f: impl FnMut(P) -> Q) -> Problems<Q> {
        Problems {
            problems: self.problems.into_iter().map(f).collect(),
        }
    }

    /// `Ok(())` when `problems` is empty, else the problems as an error.
    ///
    /// ```
    /// use index_js::Problems;
    /// assert_eq!(Problems::<u8>::check(Vec::new()), Ok(()));
    /// assert_eq!(Problems::check(vec![1]).unwrap_err().into_vec(), vec![1]);
    /// ```
    pub fn check(problems: Vec<P>) -> Result<(), Self> {
        Self::new(problems).map_or(Ok(()), Err)
    }

    /// The first problem found (there always is one).
    pub fn first(&self) -> &P {
        // The list is never empty; `new` is the only way to build one.
        #[expect(clippy::indexing_slicing, reason = "never empty by construction")]
        &self.problems[0]
    }

    /// The problems, in the order found.
    pub fn as_slice(&self) -> &[P] {
        &self.problems
    }

    /// The problems, owned.
    pub fn into_vec(self) -> Vec<P> {
        self.problems
    }
}

impl<P> std::ops::Deref for Problems<P> {
    type Target = [P];

    fn deref(&self) -> &[P] {
        &self.problems
    }
}

impl<P> IntoIterator for Problems<P> {
    type Item = P;
    type IntoIter = std::vec::IntoIter<P>;

    fn into_iter(self) -> Self::IntoIter {
        self.problems.into_iter()
    }
}

impl<'a, P> IntoIterator for &'a Problems<P> {
    type Item = &'a P;
    type IntoIter = std::slice::Iter<'a, P>;

    fn into_iter(self) -> Self::IntoIter {
        self.problems.iter()
    }
}

/// The problems joined by `; `.
impl<P: fmt::Display> fmt::Display for Problems<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        Ok(())
    }
}

impl<P: fmt::Debug + fmt::Display> std::error::Error for Problems<P> {}
