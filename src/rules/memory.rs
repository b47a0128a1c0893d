//! Memory for the big tables: the turn enumerator's sets here, the search
//! tree's arenas above. It sits in the rules core, the lowest layer, so that
//! both can use it.
//!
//! Two costs matter at the sizes these tables reach (hundreds of kilobytes
//! to hundreds of megabytes, read at random): a page fault for every 4 KB
//! page first touched, and a TLB miss on nearly every read. Transparent huge
//! pages (2 MB) cut both, and most Linux systems grant them only where a
//! program asks (`madvise` mode), as Stockfish and lc0 do.
//!
//! # Zeroing and first touch
//! A hash table is read before it is written, so a table left for the
//! kernel to zero lazily faults twice a page: a read maps the shared zero
//! page, then a write copies it. [`Words`] therefore writes a table under
//! 2 MB to zero when it allocates it, and takes a bigger one from its own
//! `mmap`, aligned to a huge page and advised as one, first touched by a
//! write so that the kernel backs it with one huge page (and zeroes it
//! itself). A big table does not come from the heap: once a first huge
//! table was freed, the allocator would serve the next from its heap and
//! clear it by hand.
//!
//! # The enumerator's sets
//! [`HashSet64`] holds non-zero position hashes in an open-addressed table
//! of bare words (the zero key is a flag beside it). It stays at most half
//! full, so a lookup mostly ends at the first or second slot. A listing
//! that outgrows its small table mostly goes on to tens of thousands of
//! keys, so past that size the table goes straight to one huge page
//! instead of doubling through the sizes in between, each with its page
//! faults and a rehash; one huge page costs one fault. Clearing a big
//! table after a small listing (the threat checks list the replies to each
//! threat with one enumerator, after listings of tens of thousands) zeroes
//! only the slots it filled, which the set remembers while few are.

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

/// An open-addressing set of non-zero 64-bit keys (position hashes), faster
/// than a general hash set because the keys are already well mixed.
pub struct HashSet64 {
    slots: Words,
    len: usize,
    has_zero: bool,
    /// The slots filled since the last clear, while they are few (equal in
    /// number to `len` exactly when all are here), so that clearing a big
    /// table after a small listing zeroes only them. Why: the threat checker
    /// lists the replies to each threat with one enumerator, mostly a few
    /// hundred turns, after a listing of tens of thousands grew its tables.
    filled: Vec<u32>,
    /// The most slots the table grows to in small pages before it goes
    /// straight to a huge page (see [`HashSet64::grow`]).
    small_slots: usize,
}

impl Default for HashSet64 {
    fn default() -> HashSet64 {
        HashSet64::with_capacity(1024)
    }
}

impl HashSet64 {
    /// A set sized for about `capacity` keys before it grows.
    pub fn with_capacity(capacity: usize) -> HashSet64 {
        HashSet64::with_small_slots(capacity, SMALL_SLOTS)
    }

    /// A set sized for about `capacity` keys that doubles in small pages up
    /// to `small_slots` slots before it goes to a huge page. For a set that
    /// mostly stays at a few thousand keys, such as the enumerator's memo
    /// of mid-turn states: the kernel zeroes a huge page's 2 MB when it is
    /// first touched (about 85 µs), more than a table of 8,192 slots costs
    /// in small pages with the rehashes on the way.
    pub(crate) fn with_small_slots(capacity: usize, small_slots: usize) -> HashSet64 {
        let size = (capacity * 2).next_power_of_two().max(16);
        HashSet64 {
            slots: Words::zeroed(size),
            len: 0,
            has_zero: false,
            filled: Vec::new(),
            small_slots,
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len + self.has_zero as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every key, keeping the allocation.
    pub fn clear(&mut self) {
        // An enumerator is reused for many small listings after a big one:
        // an empty table need not be swept again, nor a nearly empty one
        // whole.
        if self.filled.len() == self.len {
            for &index in &self.filled {
                self.slots[index as usize] = 0;
            }
        } else {
            self.slots.fill(0);
        }
        self.filled.clear();
        self.len = 0;
        self.has_zero = false;
    }

    /// Asks the processor to start loading the slot where `key` would be,
    /// so that a later [`HashSet64::contains`] or [`HashSet64::insert`] of
    /// it does not wait for memory: a big listing's result set is far
    /// larger than the caches, and each lookup would otherwise miss.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let index = (key as usize) & (self.slots.len() - 1);
        #[cfg(target_arch = "x86_64")]
        // Safety: `index` is masked to the table's length, so the address
        // lies inside the allocation; a prefetch reads nothing and cannot
        // fault whatever the address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(index) as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Whether the key is in the set.
    pub fn contains(&self, key: u64) -> bool {
        if key == 0 {
            return self.has_zero;
        }
        let mask = self.slots.len() - 1;
        let mut index = (key as usize) & mask;
        loop {
            match self.slots[index] {
                0 => return false,
                slot if slot == key => return true,
                _ => index = (index + 1) & mask,
            }
        }
    }

    /// Inserts a key; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        if key == 0 {
            return !std::mem::replace(&mut self.has_zero, true);
        }
        // At most half full: most lookups in a listing find their key, and
        // linear probing past half slows them more than the memory costs.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut index = (key as usize) & mask;
        loop {
            let slot = self.slots[index];
            if slot == key {
                return false;
            }
            if slot == 0 {
                self.slots[index] = key;
                if self.filled.len() == self.len && self.len < self.slots.len() / FILLED_SHARE {
                    // A slot past `u32` is not remembered, and the clear
                    // sweeps the whole table.
                    if let Ok(index) = u32::try_from(index) {
                        self.filled.push(index);
                    }
                }
                self.len += 1;
                return true;
            }
            index = (index + 1) & mask;
        }
    }

    /// Doubles the table, or past its small size ([`SMALL_SLOTS`] unless
    /// set otherwise) goes straight to a huge page (see [`Words`]). Why: a
    /// listing that outgrows a thousand keys mostly goes on to tens of
    /// thousands, and in a fresh enumerator (a `count`, a search root's
    /// listing) each table on the way costs its page faults and a rehash
    /// (doubling from 4,096 slots to 32,768 is about a tenth of a `count`
    /// process), while one huge page costs one fault, as the kernel zeroes
    /// it.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut size = self.slots.len() * 2;
        let huge = HUGE_PAGE / std::mem::size_of::<u64>();
        if size > self.small_slots && size < huge {
            size = huge;
        }
        let old = std::mem::replace(&mut self.slots, Words::zeroed(size));
        self.len = 0;
        self.filled.clear();
        for &key in old.iter().filter(|&&key| key != 0) {
            self.insert(key);
        }
    }
}

/// The most slots a [`HashSet64`] table grows to in small pages (16 KB)
/// before it goes straight to a huge page.
const SMALL_SLOTS: usize = 2048;

/// [`HashSet64`] remembers which slots it filled while at most one in this
/// many is.
const FILLED_SHARE: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::turns::STATE_SMALL_SLOTS;

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

    /// Well-mixed keys, as position hashes are.
    fn keys(seed: u64, count: usize) -> Vec<u64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut key = state;
                key = (key ^ (key >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                key = (key ^ (key >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                key ^ (key >> 31)
            })
            .collect()
    }

    #[test]
    fn a_set_cleared_after_big_or_small_use_holds_nothing_and_takes_keys_again() {
        // The state memo's growth in small pages takes the same keys.
        for mut set in [
            HashSet64::default(),
            HashSet64::with_small_slots(1024, STATE_SMALL_SLOTS),
        ] {
            check_clears(&mut set);
        }
        // A default set goes from 2,048 slots straight to a huge page; the
        // memo of a listing of a few thousand states stays in small ones.
        for (mut set, slots) in [
            (HashSet64::default(), HUGE_PAGE / 8),
            (HashSet64::with_small_slots(1024, STATE_SMALL_SLOTS), 8192),
        ] {
            for key in keys(7, 2206) {
                set.insert(key);
            }
            assert_eq!((set.len(), set.slots.len()), (2206, slots));
        }
    }

    fn check_clears(set: &mut HashSet64) {
        // Past the huge table (a quarter of a million slots) and back, then
        // small listings in the big table, whose clears zero only their slots.
        for (round, count) in [(1, 5), (2, 200_000), (3, 40), (4, 3), (5, 9_000), (6, 0)] {
            let inserted = keys(round, count);
            for &key in &inserted {
                assert!(set.insert(key));
                assert!(!set.insert(key), "a key goes in once");
            }
            assert_eq!(set.len(), count);
            assert!(inserted.iter().all(|&key| set.contains(key)));
            set.clear();
            assert!(set.is_empty());
            for earlier in 1..=round {
                assert!(
                    keys(earlier, 200_000).iter().all(|&key| !set.contains(key)),
                    "round {round}: a cleared key of round {earlier} is gone"
                );
            }
        }
        assert!(set.insert(0) && set.contains(0) && set.len() == 1);
        set.clear();
        assert!(!set.contains(0));
    }
}
