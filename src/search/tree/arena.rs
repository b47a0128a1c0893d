//! Memory for the tree's arenas: arrays allocated zeroed (the operating
//! system commits a page only when it is first touched, so an unused
//! budget costs nothing), made of types for which zero is "empty", and a
//! padding that keeps counters many threads write out of the cache lines
//! every thread reads.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use crate::rules::memory::advise_huge_pages;

/// Marks types made only of atomics, for which all-zero bytes are a valid,
/// meaningful value ("empty").
///
/// # Safety
/// Implementors must be valid when every byte is zero.
pub(crate) unsafe trait Zeroable {}

// SAFETY: atomics of integers are valid at zero.
unsafe impl Zeroable for AtomicU64 {}

/// A value alone in its own 128 bytes (two cache lines, the pair that x86's
/// adjacent-line prefetcher moves together), for counters that every
/// thread writes now and then. Why: next to the words every thread reads
/// on each step (the arrays' addresses, the search's limits), each write
/// would make every other thread's next read miss its cache ("false
/// sharing"), a cost that grows with the number of threads.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub T);

impl<T> Deref for CachePadded<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A fixed-size array allocated with zeroed memory, so that the operating
/// system only commits the pages that are actually touched.
pub(crate) struct ZeroedArray<T: Zeroable> {
    pointer: NonNull<T>,
    length: usize,
}

// SAFETY: the array owns its elements; sharing it is as safe as sharing `[T]`.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedArray<T> {}
// SAFETY: as above, moving the owner moves the elements.
unsafe impl<T: Zeroable + Send> Send for ZeroedArray<T> {}

impl<T: Zeroable> ZeroedArray<T> {
    /// Allocates `length` zeroed elements, or `None` when memory is short.
    pub(super) fn new(length: usize) -> Option<ZeroedArray<T>> {
        if length == 0 || std::mem::size_of::<T>() == 0 {
            return Some(ZeroedArray {
                pointer: NonNull::dangling(),
                length: 0,
            });
        }
        let layout = Layout::array::<T>(length).ok()?;
        // SAFETY: the layout has non-zero size; `T: Zeroable` makes zeroed
        // memory a valid `[T]`.
        let raw = unsafe { alloc_zeroed(layout) } as *mut T;
        let pointer = NonNull::new(raw)?;
        advise_huge_pages(raw as *mut u8, layout.size());
        Some(ZeroedArray { pointer, length })
    }

    /// Zeroes the first `count` elements again.
    pub(super) fn zero_prefix(&mut self, count: usize) {
        self.zero_range(0, count);
    }

    /// Zeroes the elements `start..end` again.
    pub(super) fn zero_range(&mut self, start: usize, end: usize) {
        let end = end.min(self.length);
        if start < end {
            // SAFETY: within the allocation, and zero is valid for `T`.
            unsafe { std::ptr::write_bytes(self.pointer.as_ptr().add(start), 0, end - start) };
        }
    }
}

impl<T: Zeroable> Deref for ZeroedArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `pointer` owns `length` initialised elements (or dangles with length 0).
        unsafe { std::slice::from_raw_parts(self.pointer.as_ptr(), self.length) }
    }
}

impl<T: Zeroable> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        if self.length > 0 && std::mem::size_of::<T>() > 0 {
            let layout = Layout::array::<T>(self.length).expect("allocated with this layout");
            // SAFETY: allocated in `new` with the same layout.
            unsafe { dealloc(self.pointer.as_ptr() as *mut u8, layout) };
        }
    }
}
