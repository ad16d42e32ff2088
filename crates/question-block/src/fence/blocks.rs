//! The fence search of native builds: the text classified 64 bytes at a
//! time into bit masks with the `wide` crate's portable SIMD.
//!
//! One pass finds the backticks and the bytes after which a line may
//! start, which settles every block whose backticks all sit mid-line. Only
//! where a line starts with backticks are the runs found (by carrying an
//! addition through them), the byte after each run tested (the marker's
//! first byte; or blanks, from a second pass over that block alone, then a
//! line end from the first), and the few candidates left confirmed byte by
//! byte, the line's tail first. The opening search also skips, with
//! memchr's SIMD substring search, every 4 KiB window that does not hold
//! the marker.

use wide::u8x16;

use super::{
    CloseFence, OpenFence, backtick_run, backtick_run_before, fence_tail, is_line_start,
    may_end_a_line, open_fence_at, sixteen,
};
use crate::limits::QUESTION_BLOCK_MARKER;

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
        } else if overflow || self.starts_a_split_terminator(landing) {
            // The last position's line goes on past the block (its blanks
            // reach the end, or it lands on what may be the first byte of a
            // terminator whose rest is in the next block): only it may
            // still end a fence.
            1 << (63 - positions.leading_zeros())
        } else {
            0
        }
    }

    /// Whether the last of `landing` is so near the block's end that a
    /// terminator starting there would end in the next block: U+2028 or
    /// U+2029, whose first byte is 0xE2 (LF and CR are one byte, which
    /// `ends` already shows). Judged on that one byte, since a landing
    /// there is on every third block of a body of short lines.
    fn starts_a_split_terminator(&self, landing: u64) -> bool {
        landing >> 62 != 0 && self.bytes.get(63 - landing.leading_zeros() as usize) == Some(&0xE2)
    }
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

/// The last opening marker fence in `body`: the match the reference's
/// global search ends on.
///
/// A matching line holds one match and matches cannot overlap, so the last
/// line-start run of backticks followed by a marker that checks out is that
/// match. Blocks are searched from the end; inside a block, the candidates
/// are the bytes after line-start runs of backticks that are an `i`, and
/// the leading run's end, which comes before every other candidate.
pub(super) fn last_open_fence(bytes: &[u8]) -> Option<OpenFence> {
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
pub(super) const WINDOW: usize = 64 * BLOCK;

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
pub(super) fn first_close_fence(bytes: &[u8], length: usize) -> Option<CloseFence> {
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
