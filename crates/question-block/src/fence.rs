//! Finding the block's fences exactly as the reference's multiline regular
//! expressions do.
//!
//! The reference matches the opening fence with ``^(`{3,})index-questions[ \t]*\r?$``
//! and the closing one with ``^`{N}[ \t]*\r?$``, both in JavaScript's
//! multiline mode, where `^` and `$` sit next to any of LF, CR, U+2028 and
//! U+2029. Everything here works on byte offsets into UTF-8; the characters
//! that matter are ASCII or single UTF-16 units, so byte arithmetic agrees
//! with the reference's UTF-16 arithmetic.
//!
//! Both fences start with a backtick at a line start, so the searches look
//! only at those. This module holds what both searches share: the fences
//! found, the byte checks that confirm a candidate (line starts and ends,
//! backtick runs, a fence line's tail). Native builds search with
//! [`blocks`], 64 bytes at a time; the browser build, where every byte of
//! code is downloaded, with the smaller [`ticks`], which steps from backtick
//! to backtick. The tests check all four searches against a literal
//! evaluation of the two regular expressions on random bodies.
//!
//! | module | holds |
//! |---|---|
//! | `blocks` | the native search: 64 bytes at a time as bit masks (portable SIMD) |
//! | `ticks` | the browser search: from the backticks that may start a line |
//! | `tests` | every search against a literal evaluation of the regular expressions |

mod blocks;
#[cfg(test)]
mod tests;
mod ticks;

use wide::u8x16;

use crate::limits::QUESTION_BLOCK_MARKER;

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

/// The first sixteen bytes of `bytes`, the end of the text (a shorter
/// slice) followed by zeros, which no test selects.
#[inline(always)]
fn sixteen(bytes: &[u8]) -> [u8; 16] {
    bytes.first_chunk::<16>().copied().unwrap_or_else(|| {
        let mut padded = [0u8; 16];
        if let Some(to) = padded.get_mut(..bytes.len()) {
            to.copy_from_slice(bytes);
        }
        padded
    })
}

/// Which of the first 16 bytes of `chunk` are backticks, bit `i` for byte
/// `i`.
fn tick_mask16(chunk: &[u8]) -> u16 {
    // Sixteen lanes make a sixteen-bit mask.
    u8x16::from(sixteen(chunk))
        .simd_eq(u8x16::splat(b'`'))
        .to_bitmask() as u16
}

/// The bytes after which a line may start: LF, CR, or 0xA8 or 0xA9 (the
/// last byte of U+2028 and U+2029, but also of other characters, so a line
/// start found with this is confirmed by [`is_line_start`]).
#[inline(always)]
fn may_end_a_line(v: u8x16) -> u8x16 {
    v.simd_eq(u8x16::splat(b'\n'))
        | v.simd_eq(u8x16::splat(b'\r'))
        | (v & u8x16::splat(0xFE)).simd_eq(u8x16::splat(0xA8))
}

/// How many backticks start at `at`, sixteen bytes per step.
fn backtick_run(bytes: &[u8], at: usize) -> usize {
    let rest = bytes.get(at..).unwrap_or_default();
    let mut chunks = rest.chunks_exact(16);
    let mut run = 0;
    for chunk in &mut chunks {
        let ticks = tick_mask16(chunk);
        if ticks != u16::MAX {
            return run + ticks.trailing_ones() as usize;
        }
        run += 16;
    }
    run + tick_mask16(chunks.remainder()).trailing_ones() as usize
}

/// How many backticks end just before `at`, sixteen bytes per step.
fn backtick_run_before(bytes: &[u8], at: usize) -> usize {
    let before = bytes.get(..at).unwrap_or_default();
    let mut chunks = before.rchunks_exact(16);
    let mut run = 0;
    for chunk in &mut chunks {
        let ticks = tick_mask16(chunk);
        if ticks != u16::MAX {
            return run + ticks.leading_ones() as usize;
        }
        run += 16;
    }
    let rest = chunks.remainder();
    // The remainder's bytes, moved to the top of the mask.
    let ticks = tick_mask16(rest) << (16 - rest.len()).min(15);
    let counted = if rest.is_empty() {
        0
    } else {
        ticks.leading_ones() as usize
    };
    run + counted.min(rest.len())
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

/// The opening fence whose marker starts at `marker_at`, if there is one.
fn open_fence_at(bytes: &[u8], marker_at: usize) -> Option<OpenFence> {
    let marker = QUESTION_BLOCK_MARKER.as_bytes();
    if bytes.get(marker_at..marker_at + marker.len()) != Some(marker) {
        return None;
    }
    let length = backtick_run_before(bytes, marker_at);
    let start = marker_at - length;
    let opens = length >= 3 && is_line_start(bytes, start);
    let end = fence_tail(bytes, marker_at + marker.len()).filter(|_| opens)?;
    Some(OpenFence { start, length, end })
}

/// The last opening marker fence in `body`: the match the reference's
/// global search ends on.
///
/// A matching line holds one match and matches cannot overlap, so the last
/// line-start run of backticks followed by a marker that checks out is that
/// match.
pub(crate) fn last_open_fence(body: &str) -> Option<OpenFence> {
    if cfg!(target_arch = "wasm32") {
        ticks::last_open_fence(body.as_bytes())
    } else {
        blocks::last_open_fence(body.as_bytes())
    }
}

/// The opening marker fence on the first line of `body`, if that line is
/// one (the text is taken to start at a line start).
pub(crate) fn open_fence_on_first_line(body: &str) -> Option<OpenFence> {
    open_fence_at(body.as_bytes(), backtick_run(body.as_bytes(), 0))
}

/// The first line of `text` made of exactly `length` backticks, then only
/// spaces or tabs (and an optional CR).
pub(crate) fn first_close_fence(text: &str, length: usize) -> Option<CloseFence> {
    if cfg!(target_arch = "wasm32") {
        ticks::first_close_fence(text.as_bytes(), length)
    } else {
        blocks::first_close_fence(text.as_bytes(), length)
    }
}

/// The longest run of backticks in `text`.
pub(crate) fn longest_backtick_run(text: &str) -> usize {
    let (longest, _) = text.bytes().fold((0, 0), |(longest, run), b| {
        let run = if b == b'`' { run + 1 } else { 0 };
        (longest.max(run), run)
    });
    longest
}
