//! The fence search of the browser build: the same decisions as the block
//! search, found from the backticks that may start a line, in a fraction
//! of its code.
//!
//! Both fences start with a run of backticks at a line start, so every
//! candidate is such a backtick, and the search steps from one to the next,
//! sixteen bytes at a time in between: back from the end for the opening
//! fence, forward for the closing one. A sixteen-byte step finds the
//! backticks that follow a byte after which a line may start, and each is
//! then confirmed and checked byte by byte with the block search's own
//! checks. Prose, and backticks in the middle of lines, are crossed at SIMD
//! speed; a body of lines that each start with backticks costs a check per
//! line.

use wide::u8x16;

use super::{
    CloseFence, OpenFence, backtick_run, fence_tail, is_line_start, may_end_a_line, open_fence_at,
    sixteen,
};

/// The backticks among the sixteen bytes at `start` that may start a line
/// (bit `i` for byte `start + i`): each follows a byte that may end one, or
/// starts the text. Inlined: called once per sixteen bytes, where a call
/// costs as much as the work.
#[inline(always)]
fn line_start_ticks(bytes: &[u8], start: usize) -> u16 {
    let v = u8x16::from(sixteen(bytes.get(start..).unwrap_or_default()));
    // Sixteen lanes make a sixteen-bit mask.
    let ticks = v.simd_eq(u8x16::splat(b'`')).to_bitmask() as u16;
    if ticks == 0 {
        return 0;
    }
    let ends = may_end_a_line(v).to_bitmask() as u16;
    let first = match start.checked_sub(1).and_then(|i| bytes.get(i)) {
        None | Some(b'\n' | b'\r' | 0xA8 | 0xA9) => 1,
        Some(_) => 0,
    };
    ticks & ((ends << 1) | first)
}

/// The backticks of `bytes` that start a line, first to last.
fn line_starts_up(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    // The mask of the sixteen bytes before `end`.
    let (mut end, mut mask) = (0, 0u16);
    std::iter::from_fn(move || {
        loop {
            while mask == 0 {
                (end < bytes.len()).then_some(())?;
                mask = line_start_ticks(bytes, end);
                end += 16;
            }
            let at = end - 16 + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if is_line_start(bytes, at) {
                return Some(at);
            }
        }
    })
}

/// The backticks of `bytes` that start a line, last to first.
fn line_starts_down(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    // The mask of the sixteen bytes from `start`, which the chunks tile
    // from the text's start, so none reaches past its end.
    let (mut start, mut mask) = (bytes.len().div_ceil(16) * 16, 0u16);
    std::iter::from_fn(move || {
        loop {
            while mask == 0 {
                start = start.checked_sub(16)?;
                mask = line_start_ticks(bytes, start);
            }
            let bit = 15 - mask.leading_zeros() as usize;
            mask &= !(1 << bit);
            let at = start + bit;
            if is_line_start(bytes, at) {
                return Some(at);
            }
        }
    })
}

/// [`super::last_open_fence`]: the first fence found stepping back from the
/// end is the last in the body. Its marker follows its line's run.
pub(super) fn last_open_fence(bytes: &[u8]) -> Option<OpenFence> {
    line_starts_down(bytes)
        .find_map(|start| open_fence_at(bytes, start + backtick_run(bytes, start)))
}

/// [`super::first_close_fence`], from each line's run.
pub(super) fn first_close_fence(bytes: &[u8], length: usize) -> Option<CloseFence> {
    line_starts_up(bytes).find_map(|start| {
        if backtick_run(bytes, start) != length {
            return None;
        }
        let end = fence_tail(bytes, start + length)?;
        Some(CloseFence { start, end })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_starting_backtick_is_found_in_order() {
        for len in 0..70 {
            for gap in 1..20 {
                // A backtick every `gap` bytes, after a line feed every
                // other time.
                let text: Vec<u8> = (0..len)
                    .map(|i| match i % gap {
                        0 => b'`',
                        _ if (i + 1) % gap == 0 && (i / gap) % 2 == 0 => b'\n',
                        _ => b'x',
                    })
                    .collect();
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| text[i] == b'`' && is_line_start(&text, i))
                    .collect();
                assert_eq!(
                    line_starts_up(&text).collect::<Vec<_>>(),
                    starts,
                    "{len} {gap}"
                );
                let down: Vec<usize> = starts.iter().rev().copied().collect();
                assert_eq!(
                    line_starts_down(&text).collect::<Vec<_>>(),
                    down,
                    "{len} {gap}"
                );
            }
        }
    }
}
