//! The module's allocator: a bump allocator that starts over whenever
//! nothing is allocated.
//!
//! Every call into the module allocates a little, frees it all before
//! `index.js` returns, and runs alone (the module has no threads), so
//! between calls nothing is live and the whole arena is free again. That
//! makes an allocation a pointer bump and a free a count, where a free
//! list walks its list on each; and memory grows to the largest call's
//! need and no further.
//!
//! This is the crate's one module that may use `unsafe` (a global
//! allocator is an `unsafe impl`); every `unsafe` here says, where it
//! stands, why it holds. The memory it bumps through is behind
//! [`Memory`], so that its tests run on the host over a buffer of their
//! own.

#![allow(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

use core::alloc::{GlobalAlloc, Layout};
use core::cell::Cell;

/// WebAssembly's page: memory grows by whole pages.
const PAGE: usize = 1 << 16;

/// Memory that ends at an address and grows at its end by whole pages.
pub(crate) trait Memory {
    /// The address one past its last byte.
    fn end(&self) -> usize;
    /// Grows it by `pages` pages; the address where they start, or `None`
    /// when it cannot grow.
    fn grow(&self, pages: usize) -> Option<usize>;
}

/// The module's own linear memory.
#[cfg(target_arch = "wasm32")]
pub(crate) struct Linear;

#[cfg(target_arch = "wasm32")]
impl Memory for Linear {
    fn end(&self) -> usize {
        // A full 4 GiB memory ends one past `usize::MAX`; saturating
        // loses its last byte, never claims one it lacks.
        core::arch::wasm32::memory_size(0).saturating_mul(PAGE)
    }

    fn grow(&self, pages: usize) -> Option<usize> {
        // Grown by at least one page, memory had at most 65535 of them,
        // whose end is below 4 GiB.
        match core::arch::wasm32::memory_grow(0, pages) {
            usize::MAX => None,
            previous => Some(previous * PAGE),
        }
    }
}

/// A bump allocator over the end of `M`: everything from where memory
/// ended when it was first used.
pub(crate) struct Arena<M> {
    memory: M,
    /// Where the arena starts (0 until it is first used).
    base: Cell<usize>,
    /// The first free byte: every live allocation lies below it.
    next: Cell<usize>,
    /// The end of the memory the arena has: nothing past it is the
    /// arena's.
    end: Cell<usize>,
    /// How many allocations are live.
    live: Cell<usize>,
}

// SAFETY: `Sync` lets the allocator be a `static`, which threads could
// share; the `Cell`s are not safe to share between threads. This impl
// exists only for wasm32 built without the `atomics` feature, where a
// module has exactly one thread, so nothing is ever shared. (A build with
// threads loses this impl, and the `static` then fails to compile.)
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl Sync for Arena<Linear> {}

impl<M: Memory> Arena<M> {
    pub(crate) const fn new(memory: M) -> Self {
        Arena {
            memory,
            base: Cell::new(0),
            next: Cell::new(0),
            end: Cell::new(0),
            live: Cell::new(0),
        }
    }

    /// The address of `size` bytes at `align` (a power of two) past every
    /// live allocation, in memory the arena has; 0 when they cannot be
    /// had.
    fn bump(&self, size: usize, align: usize) -> usize {
        if self.base.get() == 0 {
            let end = self.memory.end();
            self.base.set(end);
            self.next.set(end);
            self.end.set(end);
        }
        let Some(start) = self
            .next
            .get()
            .checked_add(align - 1)
            .map(|bumped| bumped & !(align - 1))
        else {
            return 0;
        };
        let Some(stop) = start.checked_add(size) else {
            return 0;
        };
        if !self.reach(stop) {
            return 0;
        }
        self.next.set(stop);
        self.live.set(self.live.get() + 1);
        start
    }

    /// Grows memory until the arena's ends at or past `stop`; false when
    /// it cannot. The pages grown are the arena's only when they start
    /// where its memory ended (nothing else in the module grows memory,
    /// but were something to, the arena would not hand out its pages).
    fn reach(&self, stop: usize) -> bool {
        let end = self.end.get();
        if stop <= end {
            return true;
        }
        let pages = (stop - end).div_ceil(PAGE);
        match self.memory.grow(pages) {
            Some(start) if start == end => {
                self.end.set(end.saturating_add(pages.saturating_mul(PAGE)));
                true
            }
            _ => false,
        }
    }

    /// Frees the allocation `[at, at + size)`: when it was the last one
    /// live the arena starts over; when it is the newest, its bytes are
    /// free again at once. (At least one block is live when one is
    /// freed, and a live block's end was reckoned without overflow when
    /// it was handed out.)
    fn free(&self, at: usize, size: usize) {
        let live = self.live.get() - 1;
        self.live.set(live);
        if live == 0 {
            self.next.set(self.base.get());
        } else if at + size == self.next.get() {
            self.next.set(at);
        }
    }

    /// Resizes the allocation at `at` where it stands when it is the
    /// newest (nothing live lies past it); false otherwise, or when memory
    /// cannot grow to it.
    fn resize_in_place(&self, at: usize, size: usize, new_size: usize) -> bool {
        if at + size != self.next.get() {
            return false;
        }
        match at.checked_add(new_size) {
            Some(stop) if self.reach(stop) => {
                self.next.set(stop);
                true
            }
            _ => false,
        }
    }
}

/// The pointer to `address` in memory, null for 0. The arena counts in
/// addresses, as WebAssembly's linear memory does; the memory's pointer
/// provenance is exposed (the linear memory's is, from address 0; a test's
/// buffer exposes its own), so a pointer made from one of its addresses
/// may be used as a pointer into it.
fn pointer(address: usize) -> *mut u8 {
    core::ptr::with_exposed_provenance_mut(address)
}

// SAFETY: `GlobalAlloc`'s contract, and why it holds:
// - A block handed out is aligned to its layout (`bump` rounds up to the
//   alignment), is `size` bytes of memory the arena has (`reach` grew it
//   to them), and overlaps no live block: it starts at `next`, and every
//   live block lies below `next`. That stays so: `next` only moves up past
//   a new block, back to a block's start when that block is freed while
//   ending at `next` (so every other live block lies below it), back to
//   the base only when nothing is live, and in `realloc` to the new end of
//   the block that ends at `next`.
// - Failure is a null pointer (`bump` gives 0 for it), never a panic or an
//   unwind: arithmetic on what a caller asks for is checked or saturating,
//   and the rest (a live count above 0, a handed-out block's end) cannot
//   overflow.
// - `realloc` keeps the block's first `min(size, new_size)` bytes: in
//   place they do not move; otherwise they are copied to the new block
//   before the old one is freed.
unsafe impl<M: Memory> GlobalAlloc for Arena<M> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        pointer(self.bump(layout.size(), layout.align()))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.free(ptr.addr(), layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.resize_in_place(ptr.addr(), layout.size(), new_size) {
            return ptr;
        }
        let new = pointer(self.bump(new_size, layout.align()));
        if !new.is_null() {
            // SAFETY: `ptr` is live for `layout.size()` bytes (the caller's
            // promise) and `new` for `new_size` (just bumped), so both are
            // valid for the smaller count; `new` lies past every live
            // block, `ptr`'s included, so they do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            // The caller no longer uses `ptr` once `realloc` succeeds.
            self.free(ptr.addr(), layout.size());
        }
        new
    }
}

#[cfg(test)]
mod tests {
    // Tests report failure by panicking.
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]

    use super::*;

    /// A memory of at most `capacity` pages over a buffer of the test's
    /// own, starting page-aligned at one page.
    struct Buffer {
        /// Owns the bytes the arena hands out.
        _bytes: Vec<u8>,
        start: usize,
        pages: Cell<usize>,
        capacity: usize,
    }

    impl Buffer {
        fn new(capacity: usize) -> Self {
            let mut bytes = vec![0u8; (capacity + 1) * PAGE];
            // Exposed so that the arena's addresses into it are pointers.
            let address = bytes.as_mut_ptr().expose_provenance();
            Buffer {
                _bytes: bytes,
                start: address.next_multiple_of(PAGE),
                pages: Cell::new(1),
                capacity,
            }
        }

        /// How many pages it has grown to.
        fn pages(&self) -> usize {
            self.pages.get()
        }
    }

    impl Memory for &Buffer {
        fn end(&self) -> usize {
            self.start + self.pages.get() * PAGE
        }

        fn grow(&self, pages: usize) -> Option<usize> {
            let grown = self.pages.get() + pages;
            (grown <= self.capacity).then(|| {
                let start = self.end();
                self.pages.set(grown);
                start
            })
        }
    }

    /// A block the test holds: where, its layout, and the byte it is
    /// filled with.
    struct Block {
        ptr: *mut u8,
        layout: Layout,
        fill: u8,
    }

    impl Block {
        fn bytes(&self) -> &[u8] {
            // SAFETY: the block is live and `layout.size()` bytes long,
            // all of them written by `fill` when it was allocated (or
            // resized), and nothing else writes it while it is borrowed.
            unsafe { core::slice::from_raw_parts(self.ptr, self.layout.size()) }
        }

        fn fill(&mut self) {
            // SAFETY: the block is live, `layout.size()` bytes long, and
            // overlaps no other live block (what the arena promises and the
            // test checks).
            unsafe { self.ptr.write_bytes(self.fill, self.layout.size()) };
        }

        fn intact(&self) -> bool {
            self.bytes().iter().all(|&byte| byte == self.fill)
        }
    }

    /// xorshift64: the same "random" sizes on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn alloc<M: Memory>(arena: &Arena<M>, layout: Layout, fill: u8) -> Block {
        // SAFETY: every layout the test asks for has a non-zero size.
        let ptr = unsafe { arena.alloc(layout) };
        assert!(!ptr.is_null(), "{layout:?}");
        assert_eq!(ptr.addr() % layout.align(), 0, "{layout:?}");
        let mut block = Block { ptr, layout, fill };
        block.fill();
        block
    }

    fn free<M: Memory>(arena: &Arena<M>, block: Block) {
        assert!(block.intact(), "a block changed while it was live");
        // SAFETY: the block was allocated by this arena with this layout
        // and is freed once (it is moved in).
        unsafe { arena.dealloc(block.ptr, block.layout) };
    }

    fn resize<M: Memory>(arena: &Arena<M>, block: &mut Block, new_size: usize) {
        assert!(block.intact(), "a block changed while it was live");
        let kept = block.layout.size().min(new_size);
        // SAFETY: the block was allocated by this arena with its layout,
        // and `new_size` is non-zero and, rounded to the alignment, far
        // below `isize::MAX`.
        let ptr = unsafe { arena.realloc(block.ptr, block.layout, new_size) };
        assert!(!ptr.is_null());
        assert_eq!(ptr.addr() % block.layout.align(), 0);
        block.ptr = ptr;
        block.layout = Layout::from_size_align(new_size, block.layout.align()).unwrap();
        assert!(
            block.bytes()[..kept].iter().all(|&byte| byte == block.fill),
            "realloc lost the kept bytes"
        );
        block.fill();
    }

    /// No two live blocks share a byte.
    fn disjoint(blocks: &[Block]) -> bool {
        let mut spans: Vec<(usize, usize)> = blocks
            .iter()
            .map(|b| (b.ptr.addr(), b.ptr.addr() + b.layout.size()))
            .collect();
        spans.sort_unstable();
        spans.windows(2).all(|pair| pair[0].1 <= pair[1].0)
    }

    /// Runs `calls` calls as a call into the module does: each allocates
    /// blocks of many sizes and alignments, frees and resizes some as it
    /// goes and the rest at its end, in an order of their own. Every block
    /// stays intact and apart from the others while live, and each call
    /// starts over at the arena's base. Returns the most bytes any one
    /// call could take (each block its size and its alignment's padding,
    /// a resized one counted again).
    fn calls(arena: &Arena<&Buffer>, seed: u64, calls: usize) -> usize {
        let mut rng = Rng(seed);
        let mut largest_need = 0;
        for call in 0..calls {
            let mut live: Vec<Block> = Vec::new();
            let mut need = 0;
            let mut first = true;
            for step in 0..1 + rng.below(60) {
                match rng.below(10) {
                    0..=5 => {
                        let size = match rng.below(20) {
                            0 => 1 + rng.below(3 * PAGE),
                            1..=4 => 1 + rng.below(4096),
                            _ => 1 + rng.below(64),
                        };
                        let align = 1 << rng.below(13);
                        let layout = Layout::from_size_align(size, align).unwrap();
                        need += size + align - 1;
                        let block = alloc(arena, layout, (call * 31 + step) as u8 | 1);
                        if first {
                            // The last call freed its last block, so the
                            // arena started over.
                            let base = arena.base.get().next_multiple_of(align);
                            assert_eq!(block.ptr.addr(), base, "call {call}");
                            first = false;
                        }
                        live.push(block);
                    }
                    6..=7 if !live.is_empty() => {
                        let at = rng.below(live.len());
                        free(arena, live.swap_remove(at));
                    }
                    8..=9 if !live.is_empty() => {
                        let at = rng.below(live.len());
                        let new_size = 1 + rng.below(2 * 4096);
                        need += new_size + live[at].layout.align() - 1;
                        resize(arena, &mut live[at], new_size);
                    }
                    _ => {}
                }
                // Each block is checked intact when it is freed or
                // resized, which every block is.
                assert!(disjoint(&live), "call {call}: live blocks overlap");
            }
            while !live.is_empty() {
                let at = rng.below(live.len());
                free(arena, live.swap_remove(at));
            }
            assert_eq!(arena.live.get(), 0);
            assert_eq!(arena.next.get(), arena.base.get(), "call {call}");
            largest_need = largest_need.max(need);
        }
        largest_need
    }

    /// Memory grows to the largest call's need and no further, however
    /// many calls run: the same calls again grow it not at all.
    #[test]
    fn many_calls_reuse_the_arena_and_keep_every_block_intact() {
        let buffer = Buffer::new(256);
        let arena = Arena::new(&buffer);
        let seed = 0x9E37_79B9_7F4A_7C15;
        let largest_need = calls(&arena, seed, 2_000);
        let grown = buffer.pages() - 1;
        assert!(grown > 0);
        assert!(grown * PAGE < largest_need + PAGE, "{grown} pages");
        calls(&arena, seed, 2_000);
        assert_eq!(
            buffer.pages() - 1,
            grown,
            "the same calls grew memory again"
        );
    }

    /// Newest blocks are freed at once and grow in place; a block too
    /// large for the memory is a null pointer, after which the arena goes
    /// on as before.
    #[test]
    fn the_newest_block_is_reused_at_once_and_failure_is_null() {
        let buffer = Buffer::new(4);
        let arena = Arena::new(&buffer);
        let small = Layout::from_size_align(100, 8).unwrap();
        let first = alloc(&arena, small, 1);
        let second = alloc(&arena, small, 2);
        let second_at = second.ptr;
        free(&arena, second);
        let again = alloc(&arena, small, 3);
        assert_eq!(again.ptr, second_at, "the newest block's bytes are reused");
        let mut again = again;
        resize(&arena, &mut again, 5000);
        assert_eq!(again.ptr, second_at, "the newest block grows in place");
        let mut first = first;
        resize(&arena, &mut first, 200);
        assert_ne!(first.ptr, second_at, "an older block moves to grow");
        assert!(first.intact() && again.intact());

        let huge = Layout::from_size_align(16 * PAGE, 8).unwrap();
        // SAFETY: the layout's size is non-zero.
        assert!(unsafe { arena.alloc(huge) }.is_null());
        let pages = buffer.pages();
        free(&arena, first);
        free(&arena, again);
        assert_eq!(arena.next.get(), arena.base.get());
        let after = alloc(&arena, small, 4);
        assert_eq!(after.ptr.addr(), arena.base.get().next_multiple_of(8));
        free(&arena, after);
        assert_eq!(buffer.pages(), pages);
    }
}
