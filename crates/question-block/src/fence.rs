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
//! Both fences start with a backtick at a line start, so the search looks
//! only at those. The text is classified 64 bytes at a time into bit masks
//! with the `wide` crate's portable SIMD: one pass finds the backticks and
//! the bytes after which a line may start, which settles every block whose
//! backticks all sit mid-line. Only where a line starts with backticks are
//! the runs found (by carrying an addition through them), the byte after
//! each run tested (the marker's first byte; or blanks, from a second pass
//! over that block alone, then a line end from the first), and the few
//! candidates left confirmed byte by byte, the line's tail first. The
//! opening search also skips, with memchr's SIMD substring search, every
//! 4 KiB window that does not hold the marker. The browser build, where every byte of code is
//! downloaded, uses the smaller search in [`ticks`] instead, which steps from
//! backtick to backtick. A test checks all four searches against a literal
//! evaluation of the two regular expressions on random bodies.

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

const BLOCK: usize = 64;

/// The fence-relevant part of one 64-byte block, as bit masks (bit `i`
/// describes byte `i`). One pass finds the backticks and the bytes after
/// which a line may start, which is all that most blocks need; the masks
/// that only a block with a candidate fence needs come later, from the same
/// bytes, when asked for.
struct Block<'a> {
    /// The block's bytes (fewer than 64 at the end of the text).
    bytes: &'a [u8],
    /// Backticks.
    ticks: u64,
    /// The bytes after which a line may start (see [`may_end_a_line`]).
    ends: u64,
    /// The byte after each run of backticks that starts at a line start and
    /// ends in this block.
    after_runs: u64,
    /// Where the run of backticks continuing from the previous block ends,
    /// if it ends here (the case `after_runs` cannot see).
    leading_run_end: Option<usize>,
}

impl<'a> Block<'a> {
    /// The block of `text` at `start`, or `None` when no fence line can
    /// start or end in it: no backtick at a line start, and no run going on
    /// from the previous block.
    #[inline(always)]
    fn at(text: &'a [u8], start: usize) -> Option<Self> {
        Self::scan(text, start).ok()
    }

    /// [`Block::at`], saying when the block is `Err(true)`: has no backtick
    /// at all (and none goes on into it), so the search may skip ahead to
    /// the next one.
    #[inline(always)]
    fn scan(text: &'a [u8], start: usize) -> Result<Self, bool> {
        let bytes = text
            .get(start..)
            .map_or(&[][..], |rest| rest.get(..BLOCK).unwrap_or(rest));
        let previous = start.checked_sub(1).and_then(|i| text.get(i).copied());
        let [ticks, ends] = masks(bytes, |v| {
            [v.simd_eq(u8x16::splat(b'`')), may_end_a_line(v)]
        });
        let continues = previous == Some(b'`');
        if !continues && ticks == 0 {
            return Err(true);
        }
        let first = match previous {
            None | Some(b'\n' | b'\r' | 0xA8 | 0xA9) => 1,
            Some(_) => 0,
        };
        let starts = ticks & !(ticks << 1) & ((ends << 1) | first);
        // Adding a run's first bit to the run carries through it to the
        // byte after; runs that do not start a line, or that began in an
        // earlier block, stay backticks and are masked away.
        let after_runs = starts.wrapping_add(ticks) & !ticks;
        let leading_end = ticks.trailing_ones() as usize;
        let leading_run_end = (continues && leading_end < BLOCK).then_some(leading_end);
        if after_runs == 0 && leading_run_end.is_none() {
            return Err(false);
        }
        Ok(Block {
            bytes,
            ticks,
            ends,
            after_runs,
            leading_run_end,
        })
    }

    /// `i`, the marker's first byte (for the opening search).
    fn marker_heads(&self) -> u64 {
        let [heads] = masks(self.bytes, |v| [v.simd_eq(u8x16::splat(b'i'))]);
        heads
    }

    /// Which of `positions` may be followed, past blanks, by a line
    /// terminator or the end of the text: the rest of a fence line, to be
    /// checked byte by byte (an over-estimate is only slower). Adding each
    /// position that is a blank to the blanks carries through its run of
    /// blanks to the byte after it. Positions land in their order (a
    /// backtick separates each from the next), so where the last landing
    /// cannot be judged inside the block, the last position is kept.
    fn may_end_lines_after_blanks(&self, positions: u64) -> u64 {
        let [blanks] = masks(self.bytes, |v| {
            [v.simd_eq(u8x16::splat(b' ')) | v.simd_eq(u8x16::splat(b'\t'))]
        });
        let on_blanks = positions & blanks;
        let (skipped, overflow) = on_blanks.overflowing_add(blanks);
        let landing = (skipped | positions) & !blanks;
        // A terminator starts where the blanks end: LF or CR, which `ends`
        // holds, or U+2028 or U+2029, whose last byte it holds two bytes
        // on.
        let end_of_text = u32::try_from(self.bytes.len())
            .ok()
            .and_then(|bit| 1u64.checked_shl(bit))
            .unwrap_or(0);
        if landing & (self.ends | (self.ends >> 2) | end_of_text) != 0 {
            positions
        } else if overflow || landing >> 62 != 0 {
            // The last position's line goes on past the block (its blanks
            // reach the end, or its landing is too near the end to see
            // the rest of a terminator): only it may still end a fence.
            1 << (63 - positions.leading_zeros())
        } else {
            0
        }
    }
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

/// Bit masks of the bytes of `block` (64 bytes, or fewer at the end of the
/// text, the rest read as zeros, which no test selects) that each of
/// `tests` selects, sixteen bytes per step.
#[inline(always)]
fn masks<const N: usize>(block: &[u8], tests: impl Fn(u8x16) -> [u8x16; N]) -> [u64; N] {
    let mut masks = [0u64; N];
    let mut lane = |index: usize, bytes: &[u8; 16]| {
        let found = tests(u8x16::from(*bytes));
        // Indexed: iterators here cost the size-optimised browser build a
        // call per lane, several times slower.
        for test in 0..N {
            if let (Some(mask), Some(found)) = (masks.get_mut(test), found.get(test)) {
                *mask |= u64::from(found.to_bitmask()) << (16 * index);
            }
        }
    };
    // A whole block takes a path of its own, which the compiler unrolls.
    if block.len() == BLOCK {
        for (index, chunk) in block.chunks_exact(16).enumerate() {
            lane(index, &sixteen(chunk));
        }
    } else {
        for index in 0..BLOCK / 16 {
            lane(index, &sixteen(block.get(16 * index..).unwrap_or_default()));
        }
    }
    masks
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

/// The set bits of `mask`, lowest first.
fn bits_up(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

/// The set bits of `mask`, highest first.
fn bits_down(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = 63 - mask.leading_zeros() as usize;
            mask &= !(1 << bit);
            bit
        })
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
/// match. Blocks are searched from the end; inside a block, the candidates
/// are the bytes after line-start runs of backticks that are an `i`, and
/// the leading run's end, which comes before every other candidate.
pub(crate) fn last_open_fence(body: &str) -> Option<OpenFence> {
    let bytes = body.as_bytes();
    if cfg!(target_arch = "wasm32") {
        return ticks::last_open_fence(bytes);
    }
    if bytes.len() <= WINDOW {
        return open_fence_in_blocks(bytes, 0, bytes.len());
    }
    let marker = memchr::memmem::Finder::new(QUESTION_BLOCK_MARKER);
    // Windows without the marker (searched with memchr's SIMD, a little
    // past the window so a marker across its end is seen) are skipped whole.
    for window in (0..bytes.len()).step_by(WINDOW).rev() {
        let end = (window + WINDOW).min(bytes.len());
        let searched = bytes
            .get(window..(end + QUESTION_BLOCK_MARKER.len() - 1).min(bytes.len()))
            .unwrap_or_default();
        if marker.find(searched).is_none() {
            continue;
        }
        if let Some(fence) = open_fence_in_blocks(bytes, window, end) {
            return Some(fence);
        }
    }
    None
}

/// How many bytes [`last_open_fence`] looks for the marker in at once: a
/// multiple of [`BLOCK`].
const WINDOW: usize = 64 * BLOCK;

/// The last opening fence whose marker starts in `bytes[from..to]`, where
/// `from` is a multiple of [`BLOCK`], searched block by block from the end.
fn open_fence_in_blocks(bytes: &[u8], from: usize, to: usize) -> Option<OpenFence> {
    let mut start = from + to.saturating_sub(from + 1) / BLOCK * BLOCK;
    while start >= from && start < to {
        if let Some(fence) = open_fence_in_block(bytes, start) {
            return Some(fence);
        }
        start = start.checked_sub(BLOCK)?;
    }
    None
}

/// The last opening fence whose marker starts in the block at `start`.
fn open_fence_in_block(bytes: &[u8], start: usize) -> Option<OpenFence> {
    let block = Block::at(bytes, start)?;
    let candidates = match block.after_runs {
        0 => 0,
        after => after & block.marker_heads(),
    };
    bits_down(candidates)
        .find_map(|bit| open_fence_at(bytes, start + bit))
        .or_else(|| {
            block
                .leading_run_end
                .and_then(|end| open_fence_at(bytes, start + end))
        })
}

/// The closing fence of `length` backticks whose run starts at `start`.
///
/// The line's tail is tested first: past a run that does not close, it is
/// the cheapest test to fail.
#[inline(always)]
fn close_fence_at(bytes: &[u8], start: usize, length: usize) -> Option<CloseFence> {
    let end = fence_tail(bytes, start + length)?;
    let closes = backtick_run(bytes, start) == length && is_line_start(bytes, start);
    closes.then_some(CloseFence { start, end })
}

/// The first line of `text` made of exactly `length` backticks, then only
/// spaces or tabs (and an optional CR).
///
/// Inside a block, the candidates are the line-start runs of exactly
/// `length` backticks after which, past any blanks, a line may end.
pub(crate) fn first_close_fence(text: &str, length: usize) -> Option<CloseFence> {
    let bytes = text.as_bytes();
    if cfg!(target_arch = "wasm32") {
        return ticks::first_close_fence(bytes, length);
    }
    // Up to and including the end, so that a run ending the text at a block
    // boundary is seen as a leading run of the (empty) block after it.
    let mut start = 0;
    while start <= bytes.len() {
        match Block::scan(bytes, start) {
            Ok(block) => {
                if let Some(fence) = close_fence_in_block(&block, bytes, start, length) {
                    return Some(fence);
                }
                start += BLOCK;
            }
            Err(true) => start = next_block_with_a_tick(bytes, start + BLOCK)?,
            Err(false) => start += BLOCK,
        }
    }
    None
}

/// After a block without backticks, the block at or after `next` (a
/// multiple of [`BLOCK`]) that holds the next one, found with memchr's
/// SIMD search; `None` when there is none, as then no fence line follows.
fn next_block_with_a_tick(bytes: &[u8], next: usize) -> Option<usize> {
    if next > bytes.len() {
        return Some(next);
    }
    let offset = memchr::memchr(b'`', bytes.get(next..)?)?;
    Some(next + offset / BLOCK * BLOCK)
}

/// The closing fence of `length` backticks in `block`, at `start`.
fn close_fence_in_block(
    block: &Block,
    bytes: &[u8],
    start: usize,
    length: usize,
) -> Option<CloseFence> {
    // The run's tail first: most runs are not followed by a fence line's.
    if let Some(end) = block
        .leading_run_end
        .filter(|&end| fence_tail(bytes, start + end).is_some())
    {
        let run_start = start + end - backtick_run_before(bytes, start + end);
        if let Some(fence) = close_fence_at(bytes, run_start, length) {
            return Some(fence);
        }
    }
    // Runs of 64 or more always end in a later block: the leading-run case
    // above.
    let run_starts = block.ticks & !(block.ticks << 1);
    let exact = match u32::try_from(length) {
        Ok(shift) if shift < 64 => block.after_runs & (run_starts << shift),
        _ => 0,
    };
    if exact == 0 {
        return None;
    }
    bits_up(block.may_end_lines_after_blanks(exact))
        .find_map(|bit| close_fence_at(bytes, start + bit - length, length))
}

/// The longest run of backticks in `text`.
pub(crate) fn longest_backtick_run(text: &str) -> usize {
    let (longest, _) = text.bytes().fold((0, 0), |(longest, run), b| {
        let run = if b == b'`' { run + 1 } else { 0 };
        (longest.max(run), run)
    });
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        // U+0228 also ends in 0xA8, but does not end a line.
        assert!(last_open_fence("x\u{228}```index-questions\n").is_none());
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
    fn fences_are_found_across_and_at_block_boundaries() {
        for pad in 0..140 {
            let prose = "x".repeat(pad);
            let body = format!("{prose}\n```index-questions\n{{}}\n```\n");
            let open = last_open_fence(&body).unwrap();
            assert_eq!(open.start, pad + 1, "pad {pad}");
            let rest = body.get(open.end + 1..).unwrap();
            assert_eq!(first_close_fence(rest, 3).unwrap().start, 3, "pad {pad}");
        }
    }

    #[test]
    fn fences_are_found_across_search_windows() {
        for pad in WINDOW - 40..WINDOW + 40 {
            let body = format!("{}\n```index-questions\n{{}}\n```\n", "x".repeat(pad));
            assert_eq!(last_open_fence(&body).unwrap().start, pad + 1, "pad {pad}");
            // The backticks and the marker in different windows.
            let body = format!("{}\n{}index-questions\n", "x".repeat(pad), "`".repeat(90));
            assert_eq!(last_open_fence(&body).unwrap().length, 90, "pad {pad}");
        }
        let far = format!("```index-questions\n{}", "prose\n".repeat(3 * WINDOW));
        assert_eq!(last_open_fence(&far).unwrap().start, 0);
    }

    #[test]
    fn backtick_runs_are_counted_at_every_length() {
        for len in 0..40 {
            let text = format!("{}x``", "`".repeat(len));
            assert_eq!(backtick_run(text.as_bytes(), 0), len);
            for pad in 0..3 {
                let text = format!("{}``x{}", "y".repeat(pad), "`".repeat(len));
                assert_eq!(backtick_run_before(text.as_bytes(), text.len()), len);
                assert_eq!(backtick_run_before(text.as_bytes(), pad + 2), 2);
            }
        }
        assert_eq!(longest_backtick_run("a``b````c`"), 4);
        assert_eq!(longest_backtick_run("none"), 0);
    }

    /// The reference's two regular expressions, evaluated at every position
    /// in the most literal way: no masks, no skipping.
    mod naive {
        fn ends_line(c: char) -> bool {
            matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
        }

        fn line_start(text: &str, at: usize) -> bool {
            text.get(..at)
                .and_then(|before| before.chars().next_back())
                .is_none_or(ends_line)
        }

        /// `[ \t]*\r?$` at `at`.
        fn tail(text: &str, at: usize) -> Option<usize> {
            let rest = text.get(at..)?;
            let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            let after = at + blanks;
            let ends_at = |i: usize| {
                text.get(i..)?
                    .chars()
                    .next()
                    .is_none_or(ends_line)
                    .then_some(i)
            };
            if text.get(after..)?.starts_with('\r')
                && let Some(end) = ends_at(after + 1)
            {
                return Some(end);
            }
            ends_at(after)
        }

        fn run_at(text: &str, at: usize) -> usize {
            text.get(at..)
                .map_or(0, |rest| rest.len() - rest.trim_start_matches('`').len())
        }

        pub(super) fn last_open(text: &str) -> Option<(usize, usize, usize)> {
            let mut found = None;
            let mut at = 0;
            while at <= text.len() {
                let run = run_at(text, at);
                let marker_end = at + run + "index-questions".len();
                if text.is_char_boundary(at)
                    && line_start(text, at)
                    && run >= 3
                    && text
                        .get(at + run..)
                        .is_some_and(|r| r.starts_with("index-questions"))
                    && let Some(end) = tail(text, marker_end)
                {
                    found = Some((at, run, end));
                    at = end.max(at + 1);
                    continue;
                }
                at += 1;
            }
            found
        }

        pub(super) fn first_close(text: &str, length: usize) -> Option<(usize, usize)> {
            (0..=text.len()).find_map(|at| {
                let closes =
                    text.is_char_boundary(at) && line_start(text, at) && run_at(text, at) == length;
                closes
                    .then(|| tail(text, at + length))
                    .flatten()
                    .map(|end| (at, end))
            })
        }
    }

    fn body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("`"),
            Just("```"),
            Just("````"),
            Just("index-questions"),
            Just("\n"),
            Just("\r"),
            Just("\r\n"),
            Just("\u{2028}"),
            Just("\u{2029}"),
            Just("\u{228}"),
            Just(" "),
            Just("\t"),
            Just("\t  \t    \t  \t    \t  \t    "),
            Just("``````````````````````````````````````````````````````````````````````"),
            Just("x"),
            Just("prose "),
            Just("{}"),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn the_scanner_agrees_with_the_regular_expressions(text in body(), pad in 0usize..130) {
            // Padding moves every fence across the 64-byte block boundaries.
            let text = format!("{}{text}", "p".repeat(pad));
            let expected = naive::last_open(&text);
            let open = last_open_fence(&text).map(|f| (f.start, f.length, f.end));
            prop_assert_eq!(open, expected);
            let open = ticks::last_open_fence(text.as_bytes()).map(|f| (f.start, f.length, f.end));
            prop_assert_eq!(open, expected, "the browser build's search");
            for length in [1, 2, 3, 4, 70] {
                let expected = naive::first_close(&text, length);
                let close = first_close_fence(&text, length).map(|f| (f.start, f.end));
                prop_assert_eq!(close, expected);
                let close = ticks::first_close_fence(text.as_bytes(), length).map(|f| (f.start, f.end));
                prop_assert_eq!(close, expected, "the browser build's search");
            }
        }
    }
}
