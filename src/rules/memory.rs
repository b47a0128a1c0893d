//! Memory for the big tables: the turn enumerator's sets here, the search
//! tree's arenas above. It sits in the rules core, the lowest layer, so that
//! both can use it.
//!
//! Two costs matter at the sizes these tables reach (hundreds of kilobytes
//! to hundreds of megabytes, read at random): a page fault for every 4 KB
//! page first touched, and a TLB miss on nearly every read. Transparent huge
//! pages (2 MB) cut both, and most Linux systems grant them only where a
//! program asks (`madvise` mode), as Stockfish and lc0 do.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The size of a transparent huge page on the machines the engine targets.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the 2 MB-aligned interior of `bytes` bytes at
/// `start` with transparent huge pages as they are touched. Pages stay
/// committed lazily, 2 MB at a time. Elsewhere than Linux, or if the kernel
/// refuses, nothing changes.
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages(start: *mut u8, bytes: usize) {
    extern "C" {
        fn madvise(address: *mut u8, length: usize, advice: i32) -> i32;
    }
    /// `MADV_HUGEPAGE` in Linux's `mman-common.h`.
    const MADV_HUGEPAGE: i32 = 14;
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies inside an allocation the caller owns, and
        // the advice changes only how its pages are backed, not their
        // contents; a failure is harmless and ignored.
        unsafe { madvise(first as *mut u8, end - first, MADV_HUGEPAGE) };
    }
}

/// Huge pages are asked for on Linux only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages(_start: *mut u8, _bytes: usize) {}

/// A table of zeroed 64-bit words, written to zero when allocated, and
/// aligned to a huge page and backed by one where it is at least that big.
///
/// Why written, not left to the kernel's lazy zeroing: a hash table is read
/// before it is written, so each page would fault twice, once mapping the
/// shared zero page for the read and once copying it for the write; the
/// enumerator's growing sets took two thirds of a `count` process's page
/// faults that way. Why huge: a table of 2 MB then costs one fault instead
/// of 512.
pub(crate) struct Words {
    /// The allocation, which starts up to a huge page before `words`.
    base: NonNull<u8>,
    words: NonNull<u64>,
    length: usize,
}

// SAFETY: the table owns its words; sharing it is as safe as sharing `[u64]`.
unsafe impl Sync for Words {}
// SAFETY: as above, moving the owner moves the words.
unsafe impl Send for Words {}

impl Words {
    /// `length` zeroed words (at least one). Aborts, as a `Vec` does, when
    /// memory is short.
    pub(crate) fn zeroed(length: usize) -> Words {
        let length = length.max(1);
        let layout = Words::layout(length);
        // SAFETY: the layout has a non-zero size.
        let Some(base) = NonNull::new(unsafe { alloc(layout) }) else {
            handle_alloc_error(layout)
        };
        let bytes = length * std::mem::size_of::<u64>();
        let start = if bytes >= HUGE_PAGE {
            let start = (base.as_ptr() as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
            advise_huge_pages(start, bytes);
            start
        } else {
            base.as_ptr()
        };
        let words = start as *mut u64;
        // SAFETY: `start..start + bytes` lies inside the allocation (the
        // layout holds a huge page more where `start` is moved up to one),
        // and `start` is aligned for `u64` (the layout's alignment, or a
        // huge page's).
        unsafe { std::ptr::write_bytes(words, 0, length) };
        Words {
            base,
            // SAFETY: inside a non-null allocation.
            words: unsafe { NonNull::new_unchecked(words) },
            length,
        }
    }

    /// The allocation behind `length` words: a huge page more where the
    /// words are moved up to the next huge page boundary.
    fn layout(length: usize) -> Layout {
        let bytes = length
            .checked_mul(std::mem::size_of::<u64>())
            .expect("a table of words that fits in memory");
        let slack = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 0 };
        Layout::from_size_align(bytes + slack, 64).expect("a table of words that fits in memory")
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { dealloc(self.base.as_ptr(), Words::layout(self.length)) };
    }
}

impl Deref for Words {
    type Target = [u64];

    #[inline]
    fn deref(&self) -> &[u64] {
        // SAFETY: `words` holds `length` initialised words.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr(), self.length) }
    }
}

impl DerefMut for Words {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as above, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_ptr(), self.length) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_small_and_huge_start_zeroed_aligned_and_keep_their_writes() {
        for length in [1, 1000, HUGE_PAGE / 8, HUGE_PAGE / 8 * 3 + 5] {
            let mut words = Words::zeroed(length);
            assert_eq!(words.len(), length);
            assert!(words.iter().all(|&word| word == 0));
            let start = words.as_ptr() as usize;
            assert_eq!(start % 8, 0);
            if length * 8 >= HUGE_PAGE {
                assert_eq!(start % HUGE_PAGE, 0, "a big table starts on a huge page");
            }
            let last = length - 1;
            words[0] = 7;
            words[last] ^= 9;
            assert_eq!(
                (words[0], words[last]),
                if last == 0 { (14, 14) } else { (7, 9) }
            );
        }
        assert_eq!(Words::zeroed(0).len(), 1, "never empty");
    }
}
