//! The module's allocator: a bump allocator that starts over whenever
//! nothing is allocated.
//!
//! Every call into the module allocates a little, frees it all before
//! `index.js` returns, and runs alone (the module has no threads), so
//! between calls nothing is live and the whole arena is free again. That
//! makes an allocation a pointer bump and a free a count, where a free
//! list walks its list on each; and memory grows to the largest call's
//! need and no further.

#![allow(unsafe_code)]

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32::{memory_grow, memory_size};
use core::cell::Cell;

const PAGE: usize = 1 << 16;

pub(crate) struct Arena {
    /// Where the arena starts: the end of memory when it was first used.
    base: Cell<usize>,
    /// The first free byte.
    next: Cell<usize>,
    /// The end of memory.
    end: Cell<usize>,
    /// How many allocations are live.
    live: Cell<usize>,
}

// SAFETY: the module is built without threads, so nothing is shared.
unsafe impl Sync for Arena {}

impl Arena {
    pub(crate) const fn new() -> Self {
        Arena {
            base: Cell::new(0),
            next: Cell::new(0),
            end: Cell::new(0),
            live: Cell::new(0),
        }
    }

    /// `size` bytes at `align`, growing memory when they do not fit.
    fn bump(&self, size: usize, align: usize) -> *mut u8 {
        if self.base.get() == 0 {
            let end = memory_size(0) * PAGE;
            self.base.set(end);
            self.next.set(end);
            self.end.set(end);
        }
        let start = (self.next.get() + align - 1) & !(align - 1);
        let Some(stop) = start.checked_add(size) else {
            return core::ptr::null_mut();
        };
        if !self.reach(stop) {
            return core::ptr::null_mut();
        }
        self.next.set(stop);
        self.live.set(self.live.get() + 1);
        start as *mut u8
    }

    /// Grows memory until it ends at or past `stop`; false when it cannot.
    fn reach(&self, stop: usize) -> bool {
        if stop <= self.end.get() {
            return true;
        }
        let pages = (stop - self.end.get()).div_ceil(PAGE);
        if memory_grow(0, pages) == usize::MAX {
            return false;
        }
        self.end.set(self.end.get() + pages * PAGE);
        true
    }
}

unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.bump(layout.size(), layout.align())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let live = self.live.get() - 1;
        self.live.set(live);
        if live == 0 {
            self.next.set(self.base.get());
        } else if ptr as usize + layout.size() == self.next.get() {
            self.next.set(ptr as usize);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The newest allocation grows or shrinks where it is.
        if ptr as usize + layout.size() == self.next.get() {
            let stop = ptr as usize + new_size;
            if !self.reach(stop) {
                return core::ptr::null_mut();
            }
            self.next.set(stop);
            return ptr;
        }
        let new = self.bump(new_size, layout.align());
        if !new.is_null() {
            // SAFETY: both are live and distinct; the smaller size is in both.
            unsafe { core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            unsafe { self.dealloc(ptr, layout) };
        }
        new
    }
}
