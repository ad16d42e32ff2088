//! Finding the block's fences exactly as the reference's multiline regular
//! expressions do.
//!
//! The reference matches the opening fence with ``^(`{3,})index-questions[ \t]*\r?$``
//! and the closing one with ``^`{N}[ \t]*\r?$``, both in JavaScript's
//! multiline mode, where `^` and `$` sit next to any of LF, CR, U+2028 and
//! U+2029. Everything here works on byte offsets into UTF-8; the characters
//! that matter are ASCII or single UTF-16 units, so byte arithmetic agrees
//! with the reference's UTF-16 arithmetic.

use crate::QUESTION_BLOCK_MARKER;

/// The last line that opens a marker fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OpenFence {
    /// Byte offset of the fence line's first backtick.
    pub(crate) start: usize,
    /// How many backticks open (and must close) the fence.
    pub(crate) length: usize,
    /// Byte offset just past the regex match (the line terminator, if any,
    /// starts here; a CR before an LF belongs to the match).
    pub(crate) end: usize,
}

/// The first line after the payload start that closes the fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CloseFence {
    /// Byte offset of the closing line's first backtick, relative to the
    /// text searched.
    pub(crate) start: usize,
    /// Byte offset just past the regex match, relative to the text searched.
    pub(crate) end: usize,
}

/// Length in bytes of the line terminator starting at `at`, if one does.
pub(crate) fn terminator_len(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'\n' | b'\r' => Some(1),
        0xE2 if matches!(bytes.get(at + 1..at + 3), Some([0x80, 0xA8 | 0xA9])) => Some(3),
        _ => None,
    }
}

/// Offsets at which `^` matches in multiline mode: 0 and just after every
/// line terminator.
fn line_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut next = Some(0);
    std::iter::from_fn(move || {
        let start = next?;
        let mut i = start;
        next = loop {
            if i >= bytes.len() {
                break None;
            }
            if let Some(len) = terminator_len(bytes, i) {
                break Some(i + len);
            }
            i += 1;
        };
        Some(start)
    })
}

fn backtick_run(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(at..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| b == b'`').count())
}

/// Matches `[ \t]*\r?$` at `at`, returning where the match ends.
///
/// Greedy then backtracking, as the regex engine does: a CR is taken when
/// the input ends or another terminator follows it; otherwise `$` matches
/// before the CR, which is itself a terminator.
fn fence_tail(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    if i == bytes.len() {
        return Some(i);
    }
    if bytes.get(i) == Some(&b'\r')
        && (i + 1 == bytes.len() || terminator_len(bytes, i + 1).is_some())
    {
        return Some(i + 1);
    }
    terminator_len(bytes, i).map(|_| i)
}

/// The last opening marker fence in `body`, as the reference's global
/// search keeps overwriting its match with the next one.
pub(crate) fn last_open_fence(body: &str) -> Option<OpenFence> {
    let bytes = body.as_bytes();
    let marker = QUESTION_BLOCK_MARKER.as_bytes();
    line_starts(bytes)
        .filter_map(|start| {
            let length = backtick_run(bytes, start);
            if length < 3 {
                return None;
            }
            let after_marker = start + length + marker.len();
            if bytes.get(start + length..after_marker) != Some(marker) {
                return None;
            }
            let end = fence_tail(bytes, after_marker)?;
            Some(OpenFence { start, length, end })
        })
        .last()
}

/// The first line of `text` made of exactly `length` backticks, then only
/// spaces or tabs (and an optional CR).
pub(crate) fn first_close_fence(text: &str, length: usize) -> Option<CloseFence> {
    let bytes = text.as_bytes();
    line_starts(bytes).find_map(|start| {
        if backtick_run(bytes, start) != length {
            return None;
        }
        let end = fence_tail(bytes, start + length)?;
        Some(CloseFence { start, end })
    })
}

/// The longest run of backticks in `text`.
pub(crate) fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_fence_takes_cr_only_before_a_terminator_or_the_end() {
        let fence = last_open_fence("```index-questions\r\n{}").unwrap();
        assert_eq!((fence.length, fence.end), (3, 19));
        let fence = last_open_fence("```index-questions\r{}").unwrap();
        assert_eq!(fence.end, 18);
        let fence = last_open_fence("````index-questions \t").unwrap();
        assert_eq!(fence.end, 21);
    }

    #[test]
    fn open_fence_needs_the_line_to_end_after_the_marker() {
        assert!(last_open_fence("```index-questions json\n").is_none());
        assert!(last_open_fence(" ```index-questions\n").is_none());
        assert!(last_open_fence("``index-questions\n").is_none());
        assert!(last_open_fence("```index-questions\u{b}\n").is_none());
        assert!(last_open_fence("x\u{2028}```index-questions\u{2029}").is_some());
    }

    #[test]
    fn last_fence_wins() {
        let body = "```index-questions\n```\n````index-questions\n";
        assert_eq!(last_open_fence(body).unwrap().length, 4);
    }

    #[test]
    fn close_fence_is_exactly_the_opening_length() {
        assert_eq!(first_close_fence("````\n```", 3).unwrap().start, 5);
        assert!(first_close_fence("```` \n", 3).is_none());
        assert_eq!(first_close_fence("x\r```\t\r", 3).unwrap().end, 7);
    }

    #[test]
    fn backtick_runs() {
        assert_eq!(longest_backtick_run("a``b````c`"), 4);
        assert_eq!(longest_backtick_run("none"), 0);
    }
}
