//! The fence search of the browser build: the same decisions as the block
//! search, found from the backticks alone, in a fraction of its code.
//!
//! Both fences start with a run of backticks at a line start, so every
//! candidate is a backtick, and the search steps from one to the next,
//! sixteen bytes at a time in between: back from the end for the opening
//! fence (whose marker follows a run's last backtick), forward for the
//! closing one (from each run's first). Each candidate is then checked byte
//! by byte with the block search's own checks. Prose without backticks is
//! crossed at SIMD speed; a body dense with backtick runs costs a check per
//! run, several times what the block search costs there, which a browser's
//! messages can afford and its download cannot.

use super::{CloseFence, OpenFence, fence_tail, is_line_start, open_fence_at, tick_mask16};

/// The backticks of `bytes`, first to last.
fn ticks_up(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    // The mask of the sixteen bytes before `end`.
    let (mut end, mut mask) = (0, 0u16);
    std::iter::from_fn(move || {
        while mask == 0 {
            let rest = bytes.get(end..).filter(|rest| !rest.is_empty())?;
            mask = tick_mask16(rest);
            end += 16;
        }
        let bit = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(end - 16 + bit)
    })
}

/// The backticks of `bytes`, last to first.
fn ticks_down(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    // The mask of the (up to) sixteen bytes from `start`.
    let (mut start, mut mask) = (bytes.len(), 0u16);
    std::iter::from_fn(move || {
        while mask == 0 {
            if start == 0 {
                return None;
            }
            let end = start;
            start = end.saturating_sub(16);
            mask = tick_mask16(bytes.get(start..end)?);
        }
        let bit = 15 - mask.leading_zeros() as usize;
        mask &= !(1 << bit);
        Some(start + bit)
    })
}

/// [`super::last_open_fence`]: the first fence found stepping back from the
/// end is the last in the body. Its marker follows a run's last backtick.
pub(super) fn last_open_fence(bytes: &[u8]) -> Option<OpenFence> {
    ticks_down(bytes).find_map(|tick| {
        let after = tick + 1;
        (bytes.get(after) == Some(&b'i'))
            .then(|| open_fence_at(bytes, after))
            .flatten()
    })
}

/// [`super::first_close_fence`], from each run's first backtick.
pub(super) fn first_close_fence(bytes: &[u8], length: usize) -> Option<CloseFence> {
    ticks_up(bytes).find_map(|start| {
        if start.checked_sub(1).and_then(|i| bytes.get(i)) == Some(&b'`') {
            return None;
        }
        let mut run = 1;
        while bytes.get(start + run) == Some(&b'`') {
            run += 1;
        }
        if run != length || !is_line_start(bytes, start) {
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
    fn every_backtick_is_found_in_order() {
        for len in 0..70 {
            for gap in 1..20 {
                let text: Vec<u8> = (0..len)
                    .map(|i| if i % gap == 0 { b'`' } else { b'x' })
                    .collect();
                let ticks: Vec<usize> = (0..len).step_by(gap).collect();
                assert_eq!(ticks_up(&text).collect::<Vec<_>>(), ticks, "{len} {gap}");
                let down: Vec<usize> = ticks.iter().rev().copied().collect();
                assert_eq!(ticks_down(&text).collect::<Vec<_>>(), down, "{len} {gap}");
            }
        }
    }
}
