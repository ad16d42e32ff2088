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

/// Whether `^` matches at `at` in multiline mode: at the start of the input
/// or just after a line terminator.
fn is_line_start(bytes: &[u8], at: usize) -> bool {
    match at.checked_sub(1).and_then(|i| bytes.get(i)) {
        None => true,
        Some(b'\n' | b'\r') => true,
        Some(0xA8 | 0xA9) => at >= 3 && bytes.get(at - 3..at - 1) == Some(&[0xE2, 0x80][..]),
        Some(_) => false,
    }
}

const LOW7: u64 = u64::from_le_bytes([0x7F; 8]);

/// The bytes of `chunk` equal to `needle`, as a mask with the high bit of
/// each such byte set. Exact (no carry crosses a byte), so the mask can be
/// read from either end.
fn match_mask(chunk: &[u8], needle: u8) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(chunk);
    let x = u64::from_le_bytes(word) ^ (u64::from_le_bytes([0x01; 8]) * u64::from(needle));
    !((((x & LOW7).wrapping_add(LOW7)) | x) | LOW7)
}

/// The first `needle` in `haystack`, eight bytes per step.
fn find_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    let mut chunks = haystack.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let found = match_mask(chunk, needle);
        if found != 0 {
            return Some(offset + found.trailing_zeros() as usize / 8);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .map(|i| offset + i)
}

/// The last `needle` in `haystack`, eight bytes per step from the end.
fn rfind_byte(haystack: &[u8], needle: u8) -> Option<usize> {
    let mut chunks = haystack.rchunks_exact(8);
    let mut end = haystack.len();
    for chunk in &mut chunks {
        end -= 8;
        let found = match_mask(chunk, needle);
        if found != 0 {
            return Some(end + 7 - found.leading_zeros() as usize / 8);
        }
    }
    chunks.remainder().iter().rposition(|&b| b == needle)
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

/// The last opening marker fence in `body`: the match the reference's
/// global search ends on.
///
/// Searching backwards from the end finds it without walking the prose:
/// each backtick directly before the marker is checked for a run of three
/// or more reaching back to a line start, and for a line end after the
/// marker. A matching line holds exactly one marker occurrence, so the first
/// occurrence that checks out belongs to the last matching line.
pub(crate) fn last_open_fence(body: &str) -> Option<OpenFence> {
    let bytes = body.as_bytes();
    let marker = QUESTION_BLOCK_MARKER.as_bytes();
    let mut search_end = bytes.len();
    // The backtick just before a marker occurrence, searched from the end.
    while let Some(tick) = rfind_byte(bytes.get(..search_end)?, b'`') {
        let marker_at = tick + 1;
        let before = bytes.get(..marker_at).unwrap_or_default();
        let length = before.iter().rev().take_while(|&&b| b == b'`').count();
        let start = marker_at - length;
        // Nothing inside this run of backticks can start a later match.
        search_end = start;
        if bytes.get(marker_at..marker_at + marker.len()) == Some(marker)
            && length >= 3
            && is_line_start(bytes, start)
            && let Some(end) = fence_tail(bytes, marker_at + marker.len())
        {
            return Some(OpenFence { start, length, end });
        }
    }
    None
}

/// The first line of `text` made of exactly `length` backticks, then only
/// spaces or tabs (and an optional CR).
pub(crate) fn first_close_fence(text: &str, length: usize) -> Option<CloseFence> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(offset) = find_byte(bytes.get(from..)?, b'`') {
        let start = from + offset;
        let run = backtick_run(bytes, start);
        if run == length
            && is_line_start(bytes, start)
            && let Some(end) = fence_tail(bytes, start + length)
        {
            return Some(CloseFence { start, end });
        }
        from = start + run;
    }
    None
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
    fn find_byte_finds_the_first_occurrence_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut hay = vec![b'x'; len];
                hay[at] = b'`';
                if at + 3 < len {
                    hay[at + 3] = b'`';
                }
                assert_eq!(find_byte(&hay, b'`'), Some(at), "len {len} at {at}");
            }
            assert_eq!(find_byte(&vec![b'a'; len], b'`'), None);
        }
        assert_eq!(find_byte(&[0x60 ^ 0x80, 0x5f, 0x61, b'`'], b'`'), Some(3));
    }

    #[test]
    fn rfind_byte_finds_the_last_occurrence_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut hay = vec![b'x'; len];
                hay[at] = b'`';
                if at >= 3 {
                    hay[at - 3] = b'`';
                }
                assert_eq!(rfind_byte(&hay, b'`'), Some(at), "len {len} at {at}");
            }
            assert_eq!(rfind_byte(&vec![0x60 ^ 0x01; len], b'`'), None);
        }
    }

    #[test]
    fn backtick_runs() {
        assert_eq!(longest_backtick_run("a``b````c`"), 4);
        assert_eq!(longest_backtick_run("none"), 0);
    }
}
