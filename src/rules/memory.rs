//! Memory for the big tables: the turn enumerator's sets here, the search
//! tree's arenas above. It sits in the rules core, the lowest layer, so that
//! both can use it.
//!
//! Two costs matter at the sizes these tables reach (hundreds of kilobytes
//! to hundreds of megabytes, read at random): a page fault for every 4 KB
//! page first touched, and a TLB miss on nearly every read. Transparent huge
//! pages (2 MB) cut both, and most Linux systems grant them only where a
//! program asks (`madvise` mode), as Stockfish and lc0 do.

use std::alloc::{alloc, alloc_zeroed, dealloc, handle_alloc_error, Layout};
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

/// Fresh zeroed memory straight from the kernel, `bytes` long, for a huge
/// table: none on failure. Why not the allocator: after the first big table
/// is freed, glibc raises its mapping threshold and serves the next one from
/// its heap, where `alloc_zeroed` must clear every byte itself (a table and
/// its alignment slack, 4 MB) before the huge-page advice can apply; a
/// program that makes a fresh enumerator for each listing paid more for that
/// than for the listing.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn map_zeroed(bytes: usize) -> Option<NonNull<u8>> {
    extern "C" {
        fn mmap(
            address: *mut u8,
            length: usize,
            protect: i32,
            flags: i32,
            file: i32,
            offset: i64,
        ) -> *mut u8;
    }
    /// `PROT_READ | PROT_WRITE`, `MAP_PRIVATE | MAP_ANONYMOUS` in Linux's
    /// `mman` headers, on x86-64 and AArch64 (`off_t` is 64 bits there).
    const READ_WRITE: i32 = 0x1 | 0x2;
    const PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
    // SAFETY: a new private anonymous mapping aliases nothing; the result is
    // checked against `MAP_FAILED` (all bits set) before use.
    let raw = unsafe {
        mmap(
            std::ptr::null_mut(),
            bytes,
            READ_WRITE,
            PRIVATE_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw as usize == usize::MAX {
        return None;
    }
    NonNull::new(raw)
}

/// Returns a mapping made by [`map_zeroed`].
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn unmap(base: NonNull<u8>, bytes: usize) {
    extern "C" {
        fn munmap(address: *mut u8, length: usize) -> i32;
    }
    // SAFETY: `base` and `bytes` are those of a live mapping from
    // `map_zeroed`, which the caller owns and no longer uses.
    unsafe { munmap(base.as_ptr(), bytes) };
}

/// Elsewhere (where the `mmap` constants and `off_t` above may differ),
/// huge tables come from the allocator.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn map_zeroed(_bytes: usize) -> Option<NonNull<u8>> {
    None
}

/// Never called where [`map_zeroed`] maps nothing.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn unmap(_base: NonNull<u8>, _bytes: usize) {}

/// A table of zeroed 64-bit words: written to zero when allocated where it
/// is smaller than a huge page, aligned to a huge page and backed by huge
/// pages where it is at least that big.
///
/// Why written, not left to the kernel's lazy zeroing: a hash table is read
/// before it is written, so each page would fault twice, once mapping the
/// shared zero page for the read and once copying it for the write; the
/// enumerator's growing sets took two thirds of a `count` process's page
/// faults that way. Why huge: a table of 2 MB then costs one or two faults
/// instead of 512 to 1,024, and the kernel's zeroing is the only one.
pub(crate) struct Words {
    /// The allocation, which starts up to a huge page before `words`.
    base: NonNull<u8>,
    words: NonNull<u64>,
    length: usize,
    /// Whether `base` is a mapping of its own ([`map_zeroed`]) rather than
    /// the allocator's.
    mapped: bool,
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
        let bytes = length * std::mem::size_of::<u64>();
        let huge = bytes >= HUGE_PAGE;
        let mapped = if huge {
            map_zeroed(layout.size())
        } else {
            None
        };
        let base = match mapped {
            Some(base) => base,
            None => {
                // SAFETY: the layout has a non-zero size.
                let raw = unsafe {
                    if huge {
                        alloc_zeroed(layout)
                    } else {
                        alloc(layout)
                    }
                };
                match NonNull::new(raw) {
                    Some(base) => base,
                    None => handle_alloc_error(layout),
                }
            }
        };
        let raw = base.as_ptr();
        let words = if huge {
            // Zeroed by the kernel a huge page at a time, as each is first
            // written. The first touch must be a write: a read would map a
            // small zero page there, and the huge page would be lost.
            let start = (raw as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
            advise_huge_pages(start, bytes);
            let words = start as *mut u64;
            for offset in (0..length).step_by(HUGE_PAGE / std::mem::size_of::<u64>()) {
                // SAFETY: inside the table; volatile, so that the store of
                // the zero the allocator promised is not left out.
                unsafe { words.add(offset).write_volatile(0) };
            }
            words
        } else {
            let words = raw as *mut u64;
            // SAFETY: the allocation holds `length` words, aligned for
            // `u64` (the layout's alignment is 64).
            unsafe { std::ptr::write_bytes(words, 0, length) };
            words
        };
        Words {
            base,
            // SAFETY: inside a non-null allocation (the layout holds a huge
            // page more where the words are moved up to one).
            words: unsafe { NonNull::new_unchecked(words) },
            length,
            mapped: mapped.is_some(),
        }
    }

    /// The allocation behind `length` words: a huge page more where the
    /// words are moved up to the next huge page boundary, and a cache
    /// line's alignment for the others.
    fn layout(length: usize) -> Layout {
        let bytes = length
            .checked_mul(std::mem::size_of::<u64>())
            .expect("a table of words that fits in memory");
        // A huge table is aligned by hand: an alignment above 16 would make
        // the allocator zero it with a write to every page before the
        // advice.
        let (slack, align) = if bytes >= HUGE_PAGE {
            (HUGE_PAGE, 16)
        } else {
            (0, 64)
        };
        Layout::from_size_align(bytes + slack, align).expect("a table of words that fits in memory")
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        let layout = Words::layout(self.length);
        if self.mapped {
            unmap(self.base, layout.size());
        } else {
            // SAFETY: allocated in `zeroed` with this layout.
            unsafe { dealloc(self.base.as_ptr(), layout) };
        }
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
