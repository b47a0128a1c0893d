//! The shared search tree: flat arenas of nodes and edges addressed by `u32`,
//! with every statistic an atomic, plus a lock-free table that merges
//! transpositions.
//!
//! Why this shape:
//! - One arena per kind, filled by an atomic bump allocator and never freed
//!   during a search, so threads share the tree through `&Tree` with no locks
//!   and no reference counting. Index 0 means "none".
//! - The arenas are allocated zeroed and sized from a megabyte budget. The
//!   operating system hands out zeroed pages lazily, so an unused budget costs
//!   nothing. When the arenas are nearly full during a search, the search
//!   *recycles* ([`Tree::recycle`]): every thread stops at a barrier and the
//!   tree is compacted in place, keeping the root, the principal line and the
//!   children of every node visited at least a threshold number of times,
//!   chosen so that about half the arenas come free. A node below the
//!   threshold keeps its own statistics (visits, value, proof) but loses its
//!   children, becoming a leaf that grows again if the search returns to it;
//!   so no edge's value is forgotten, only the detail under thin branches. If
//!   even that frees too little, the tree stops growing and treats nodes as
//!   leaves, as it did before recycling existed.
//! - Compaction (between turns, [`Tree::compact`], and recycling alike) is a
//!   Lisp-2 sliding compaction: mark, number the survivors in address order,
//!   rewrite child pointers, slide nodes and edge blocks down, rebuild the
//!   table. It needs no memory beyond the budget: the new node numbers live
//!   in each node's virtual-loss counter (zero whenever no iteration is in
//!   flight), and the index of edge blocks in a scratch vector of one word a
//!   node that is part of the budget and committed only when first used.
//! - The root is always node 1 during a search (compaction moves it there),
//!   so that recycling, which slides every node down, leaves the root where
//!   every reader of the search's shared state expects it.
//!
//! Designed for many threads (measured on 2 cores only; see README):
//! - Each thread allocates from a private [`Reserve`], taking 64 nodes or
//!   512 edges from the arenas at a time, so the shared bump counters are
//!   touched once per 64 allocations instead of at each (with 16 threads a
//!   counter bumped at every allocation is a cache line every core fights
//!   over). A reserve belongs to an epoch of the tree and empties when the
//!   tree is cleared or compacted.
//! - Statistics are per node (the graph shares nodes between
//!   transpositions), updated with relaxed atomics; one thread alone uses
//!   plain loads and stores (see `mcts.rs`). The root, which every
//!   iteration passes, is updated in batches by each thread.
//! - Hot fields come first in each node, so that selection reads one cache
//!   line per child in most cases.
//! - A node is keyed by (position hash, turns from the tree's base). The
//!   position hash includes the side to move and the turn state, so action
//!   orders that reach the same mid-turn state share one node, and different
//!   turns reaching the same result share the next turn's start node. The
//!   turn count in the key makes the graph acyclic: inside a turn pieces only
//!   leave (catastrophes) or actions run out, and across turns the count grows.
//! - The table holds one `AtomicU64` per entry: the high 32 bits of the key
//!   and the node index. A node is fully written before its entry is
//!   published with a compare-and-swap, so readers never see half a node.
//!   A tree uses only the first 65,536 entries at first and four times as
//!   many each time the nodes pass a quarter of those in use (at the
//!   search's barrier, as for a recycle): keys fall at random over the
//!   entries in use, so using the whole table at once would have the kernel
//!   commit and zero all of it within a short search's first nodes.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::{Deref, Range};
use std::ptr::NonNull;
use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use crate::rules::memory::advise_huge_pages;
use crate::rules::position::mix;
use crate::rules::{Position, Slot, HOME_SLOTS, SLOT_COUNT};

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
    fn new(length: usize) -> Option<ZeroedArray<T>> {
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
    fn zero_prefix(&mut self, count: usize) {
        self.zero_range(0, count);
    }

    /// Zeroes the elements `start..end` again.
    fn zero_range(&mut self, start: usize, end: usize) {
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

/// Expansion states of a node.
pub(crate) const UNEXPANDED: u8 = 0;
/// Another thread is generating the children.
pub(crate) const EXPANDING: u8 = 1;
/// Children are published.
pub(crate) const EXPANDED: u8 = 2;
/// Children are published and a thread is materialising more of them.
pub(crate) const WIDENING: u8 = 3;

/// Proof states, from the point of view of the node's mover.
pub(crate) const UNPROVEN: u8 = 0;
/// The mover wins with best play.
pub(crate) const PROVEN_WIN: u8 = 1;
/// The mover loses whatever it does.
pub(crate) const PROVEN_LOSS: u8 = 2;
/// Best play draws.
pub(crate) const PROVEN_DRAW: u8 = 3;

/// Node flag: the mover is player 1.
pub(crate) const FLAG_SECOND: u8 = 1;
/// Node flag: the node is the start of a turn.
pub(crate) const FLAG_START: u8 = 2;
/// Node flag: the position repeats one earlier in the game or on the path;
/// it is scored as a draw and never expanded.
pub(crate) const FLAG_REPETITION: u8 = 4;

/// Fixed-point scale of value sums: exact, order-independent `fetch_add`.
pub(crate) const VALUE_SCALE: f64 = 65_536.0;

/// The action code of the edge that ends the turn (no action packs to 0).
pub(crate) const END_TURN: u32 = 0;

/// One node: a position in the middle or at the start of a turn.
///
/// The fields are laid out (`repr(C)`) in the order the search reads them:
/// selection reads only the first 19 bytes of each child (value, visits,
/// virtual loss, flags, proof), so that with the 48-byte stride three
/// children in four need one cache line, not two; descent adds the state,
/// static value and children; backup the turn; the key is read only by the
/// table.
#[derive(Default)]
#[repr(C)]
pub(crate) struct Node {
    /// Sum of backed-up values from the mover's point of view, fixed point.
    pub value_sum: AtomicI64,
    /// Completed visits.
    pub visits: AtomicU32,
    /// Visits in flight (virtual loss).
    pub virtual_loss: AtomicU32,
    /// `FLAG_*` bits.
    pub flags: AtomicU8,
    /// Proof state.
    pub proof: AtomicU8,
    /// Expansion state.
    pub state: AtomicU8,
    /// Static value for the mover (f32 bits), used while unexpanded.
    pub eval: AtomicU32,
    /// Children: first edge (32 bits), materialised count (16), legal total (16).
    pub edges: AtomicU64,
    /// Turns from the tree's base.
    pub turn: AtomicU32,
    /// (position hash, turn) key; written before publication.
    pub key: AtomicU64,
}

// SAFETY: only atomics, all valid at zero.
unsafe impl Zeroable for Node {}

impl Node {
    /// The player to move at this node, as 0 or 1.
    #[inline]
    pub fn mover(&self) -> usize {
        (self.flags.load(Ordering::Relaxed) & FLAG_SECOND) as usize
    }

    /// The published children: (first edge, materialised, legal total).
    #[inline]
    pub fn children(&self) -> (u32, u32, u32) {
        let word = self.edges.load(Ordering::Acquire);
        (
            word as u32,
            ((word >> 32) & 0xFFFF) as u32,
            (word >> 48) as u32,
        )
    }

    /// Mean value for the mover, or `None` before any visit.
    #[inline]
    pub fn mean(&self) -> Option<f32> {
        let visits = self.visits.load(Ordering::Relaxed);
        (visits > 0).then(|| {
            (self.value_sum.load(Ordering::Relaxed) as f64 / VALUE_SCALE / visits as f64) as f32
        })
    }

    /// The static value stored at creation.
    #[inline]
    pub fn static_value(&self) -> f32 {
        f32::from_bits(self.eval.load(Ordering::Relaxed))
    }
}

impl Node {
    /// Sets every field to zero (an empty slot), with atomic stores so that
    /// it needs only a shared reference.
    fn clear(&self) {
        self.key.store(0, Ordering::Relaxed);
        self.value_sum.store(0, Ordering::Relaxed);
        self.edges.store(0, Ordering::Relaxed);
        self.visits.store(0, Ordering::Relaxed);
        self.virtual_loss.store(0, Ordering::Relaxed);
        self.eval.store(0, Ordering::Relaxed);
        self.turn.store(0, Ordering::Relaxed);
        self.state.store(0, Ordering::Relaxed);
        self.proof.store(0, Ordering::Relaxed);
        self.flags.store(0, Ordering::Relaxed);
    }

    /// Copies every field but the virtual loss (zeroed) from `from`.
    fn copy_from(&self, from: &Node) {
        self.key
            .store(from.key.load(Ordering::Relaxed), Ordering::Relaxed);
        self.value_sum
            .store(from.value_sum.load(Ordering::Relaxed), Ordering::Relaxed);
        self.edges
            .store(from.edges.load(Ordering::Relaxed), Ordering::Relaxed);
        self.visits
            .store(from.visits.load(Ordering::Relaxed), Ordering::Relaxed);
        self.virtual_loss.store(0, Ordering::Relaxed);
        self.eval
            .store(from.eval.load(Ordering::Relaxed), Ordering::Relaxed);
        self.turn
            .store(from.turn.load(Ordering::Relaxed), Ordering::Relaxed);
        self.state
            .store(from.state.load(Ordering::Relaxed), Ordering::Relaxed);
        self.proof
            .store(from.proof.load(Ordering::Relaxed), Ordering::Relaxed);
        self.flags
            .store(from.flags.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Exchanges every field with `other`.
    fn swap(&self, other: &Node) {
        macro_rules! swap_fields {
            ($($field:ident),*) => {$(
                let mine = self.$field.load(Ordering::Relaxed);
                self.$field.store(other.$field.load(Ordering::Relaxed), Ordering::Relaxed);
                other.$field.store(mine, Ordering::Relaxed);
            )*};
        }
        swap_fields!(
            key,
            value_sum,
            edges,
            visits,
            virtual_loss,
            eval,
            turn,
            state,
            proof,
            flags
        );
    }
}

/// Packs a children word for [`Node::edges`].
#[inline]
pub(crate) fn pack_children(first: u32, materialised: u32, total: u32) -> u64 {
    first as u64 | (materialised as u64) << 32 | (total as u64) << 48
}

/// One edge: an action (or the end of the turn) and its statistics.
#[derive(Default)]
pub(crate) struct Edge {
    /// The packed action, or [`END_TURN`].
    pub action: AtomicU32,
    /// The prior probability (f32 bits).
    pub prior: AtomicU32,
    /// The child node, 0 until created.
    pub child: AtomicU32,
    /// Times this edge was chosen (including visits in flight).
    pub visits: AtomicU32,
}

// SAFETY: only atomics, all valid at zero.
unsafe impl Zeroable for Edge {}

impl Edge {
    /// Sets every field to zero (an empty slot).
    fn clear(&self) {
        self.action.store(0, Ordering::Relaxed);
        self.prior.store(0, Ordering::Relaxed);
        self.child.store(0, Ordering::Relaxed);
        self.visits.store(0, Ordering::Relaxed);
    }
}

/// The key of the node for a position at a turn from the base.
///
/// The position hash treats the non-home systems as a multiset, but edges
/// name systems by slot, so two positions may share a node only if their
/// systems also sit in the same slots: the key adds each non-home slot's
/// contents with its slot number. Action orders that discover or fade
/// systems differently then get separate nodes, which costs a little
/// sharing but keeps every edge legal in every position that reaches it.
#[inline]
pub(crate) fn node_key(position: &Position, turn: u32) -> u64 {
    let mut hash = position.hash();
    for slot in HOME_SLOTS..SLOT_COUNT {
        let word = position.system(slot as Slot).word();
        if word != 0 {
            hash = hash.wrapping_add(mix(word ^ (slot as u64) << 58 ^ 0x3C6E_F372_FE94_F82B));
        }
    }
    mix(hash ^ (turn as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Edges per node slot the budget plans for: expanded nodes hold blocks of
/// 8 or more, but about half the nodes are never expanded.
const EDGES_PER_NODE: usize = 6;
/// How far a lookup probes before giving up (the node is then not shared).
const PROBE_LIMIT: usize = 32;
/// Entries of the table a new tree uses (512 KB), grown as the tree grows
/// (see [`Tree::wants_bigger_table`]).
const FIRST_TABLE_ENTRIES: usize = 1 << 16;
/// The table grows when the nodes exceed this share of the entries in use.
const TABLE_LOAD_DIVISOR: usize = 4;
/// The most nodes a tree holds: node numbers fit in 30 bits, so that a
/// compaction can keep its two marks beside a new number in one word.
const MAX_NODES: usize = (1 << 30) - 1;
/// Compaction mark (in the virtual-loss word): the root reaches the node.
const MARKED: u32 = 1 << 30;
/// Compaction mark: the node keeps its children.
const KEEP_CHILDREN: u32 = 1 << 31;
/// The new node number in a marked virtual-loss word.
const NUMBER: u32 = MARKED - 1;
/// Fill of the fuller arena, in permille, at which a search recycles: late
/// enough that a recycle is rare, early enough that with several threads
/// the arenas seldom run out while the others come to the barrier.
const RECYCLE_AT_PERMILLE: u64 = 970;
/// Fill of each arena a recycle aims to leave, in permille: half the memory
/// comes free, so a recycle's cost (one pass over the arenas) is spread over
/// as many new nodes as the tree keeps.
const RECYCLE_TARGET_PERMILLE: u64 = 500;
/// Nodes of the principal line (the most visited child from the root down)
/// that keep their children whatever their visits.
const PRINCIPAL_NODES: usize = 64;
/// Classes of visit counts for choosing a recycle's threshold: exact below
/// 32, then four a power of two.
const VISIT_CLASSES: usize = 140;

/// Nodes a recycle's histogram of visits looks at, at least: enough that
/// the threshold it picks frees about what it aims to (with `Hash` 256 and
/// 1.6 million nodes, seven recycles left the tree 378 to 415 per mille
/// full, against 377 to 408 when every node was counted).
const THRESHOLD_SAMPLE: usize = 1 << 18;

/// The class of a visit count (see [`VISIT_CLASSES`]).
fn visit_class(visits: u32) -> usize {
    if visits < 32 {
        visits as usize
    } else {
        let log = 31 - visits.leading_zeros() as usize;
        32 + (log - 5) * 4 + ((visits >> (log - 2)) & 3) as usize
    }
}

/// The smallest visit count in a class.
fn class_floor(class: usize) -> u32 {
    if class < 32 {
        class as u32
    } else {
        let log = 5 + (class - 32) / 4;
        (4 + ((class - 32) % 4) as u32) << (log - 2)
    }
}

/// Elements of an arena one piece of a parallel recycle pass covers.
pub(crate) const PASS_PIECE: usize = 1 << 16;

/// Runs `work` over `start..end` in pieces on rayon's global pool when
/// `parallel`, else at once on this thread. A recycle during a search with
/// helpers runs while they wait at a barrier, so the machine's other cores
/// are idle and the passes whose elements are independent share them; a
/// search on one thread stays on one, as its reproducibility needs.
fn for_pieces(start: usize, end: usize, parallel: bool, work: impl Fn(Range<usize>) + Sync) {
    if parallel && end > start + PASS_PIECE {
        (start..end)
            .step_by(PASS_PIECE)
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each(|first| work(first..(first + PASS_PIECE).min(end)));
    } else if start < end {
        work(start..end);
    }
}

/// Nodes a thread takes from the arena at a time.
const NODE_CHUNK: u32 = 64;
/// Edges a thread takes from the arena at a time.
const EDGE_CHUNK: u32 = 512;

/// A thread's private reserve of nodes and edges, taken from the arenas in
/// chunks so that the threads seldom touch the shared counters (with many
/// threads a counter bumped at every allocation is one cache line that every
/// core fights over). A reserve belongs to one tree and one epoch of it: it
/// is emptied when the tree is cleared or compacted, or replaced. With one thread the
/// nodes are numbered exactly as one at a time would be.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reserve {
    epoch: u32,
    next_node: u32,
    node_end: u32,
    next_edge: u32,
    edge_end: u32,
}

/// A tree epoch never used before in this process (never 0, the epoch of
/// an empty reserve): epochs are unique across trees too, so that a reserve
/// taken from a tree that was since replaced (a new `Hash`) is never taken
/// for one of the new tree's.
fn new_epoch() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        let epoch = NEXT.fetch_add(1, Ordering::Relaxed);
        if epoch != 0 {
            return epoch;
        }
    }
}

/// What a recycle did, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recycled {
    /// Nodes allocated before.
    pub nodes_before: u64,
    /// Nodes kept.
    pub nodes_after: u64,
    /// Edges allocated before.
    pub edges_before: u64,
    /// Edges kept.
    pub edges_after: u64,
    /// The fewest visits with which a node kept its children.
    pub threshold: u32,
}

/// The shared tree.
pub(crate) struct Tree {
    nodes: ZeroedArray<Node>,
    edges: ZeroedArray<Edge>,
    table: ZeroedArray<AtomicU64>,
    /// The entries of the table in use, less one (a power of two less one):
    /// the mask of every probe. Why: keys are spread at random over the
    /// entries in use, so a table of hundreds of megabytes would have
    /// every one of its pages touched, and committed and zeroed by the
    /// kernel, within the first thousands of nodes; a short search in a
    /// fresh process spent a tenth of its time there. The table starts
    /// small and grows fourfold at a barrier when the tree outgrows it.
    /// Written only with every other thread stopped.
    mask: AtomicUsize,
    /// Compaction's index of the kept edge blocks (address << 32 | owner),
    /// and the table's entries while [`Tree::grow_table`] moves them;
    /// reserved with room for one a node, its pages are committed only by
    /// the first compaction or growth that needs them.
    blocks: Mutex<Vec<u64>>,
    /// The arena's allocation counters, written when a thread's reserve
    /// runs out, each alone in its cache lines.
    next_node: CachePadded<AtomicU32>,
    next_edge: CachePadded<AtomicU32>,
    full: AtomicBool,
    /// Changes at every clear and compaction, emptying the threads' reserves.
    epoch: AtomicU32,
}

impl Tree {
    /// A tree using about `megabytes` of memory in total. If the system
    /// refuses that much, it halves the budget until an allocation succeeds.
    pub fn with_megabytes(megabytes: usize) -> Tree {
        let mut bytes = megabytes.max(1).saturating_mul(1 << 20);
        loop {
            if let Some(tree) = Tree::with_bytes(bytes) {
                return tree;
            }
            bytes /= 2;
        }
    }

    fn with_bytes(bytes: usize) -> Option<Tree> {
        let node_bytes = std::mem::size_of::<Node>()
            + EDGES_PER_NODE * std::mem::size_of::<Edge>()
            + std::mem::size_of::<u64>();
        let entry_bytes = std::mem::size_of::<AtomicU64>();
        let estimate = (bytes / (node_bytes + 2 * entry_bytes)).max(64);
        // A power-of-two table at most 80% full.
        let mut table_size = (estimate * 2).next_power_of_two() / 2;
        if table_size < estimate * 5 / 4 {
            table_size *= 2;
        }
        let node_count =
            (bytes.saturating_sub(table_size * entry_bytes) / node_bytes).clamp(64, MAX_NODES);
        let edge_count = (node_count * EDGES_PER_NODE).min(u32::MAX as usize / 2);
        let mut blocks = Vec::new();
        blocks.try_reserve_exact(node_count).ok()?;
        Some(Tree {
            nodes: ZeroedArray::new(node_count)?,
            edges: ZeroedArray::new(edge_count)?,
            table: ZeroedArray::new(table_size)?,
            mask: AtomicUsize::new(table_size.min(FIRST_TABLE_ENTRIES) - 1),
            blocks: Mutex::new(blocks),
            next_node: CachePadded(AtomicU32::new(1)),
            next_edge: CachePadded(AtomicU32::new(1)),
            full: AtomicBool::new(false),
            epoch: AtomicU32::new(new_epoch()),
        })
    }

    /// The node at an index.
    #[inline]
    pub fn node(&self, index: u32) -> &Node {
        &self.nodes[index as usize]
    }

    /// Hints the processor to fetch a node's cache line (a no-op elsewhere
    /// than on x86-64).
    #[inline]
    pub fn prefetch_node(&self, index: u32) {
        #[cfg(target_arch = "x86_64")]
        if (index as usize) < self.nodes.len() {
            let pointer = &self.nodes[index as usize] as *const Node as *const i8;
            // SAFETY: prefetching has no observable effect besides caching,
            // and the pointer is in bounds; SSE is part of x86-64.
            unsafe { std::arch::x86_64::_mm_prefetch(pointer, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Hints the processor to fetch the first cache lines of a block of
    /// edges (at most 16 edges, the most selection usually reads).
    #[inline]
    pub fn prefetch_edges(&self, first: u32, count: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            let end = (first as usize + count.min(16) as usize).min(self.edges.len());
            let mut index = first as usize;
            while index < end {
                let pointer = &self.edges[index] as *const Edge as *const i8;
                // SAFETY: as in `prefetch_node`.
                unsafe { std::arch::x86_64::_mm_prefetch(pointer, std::arch::x86_64::_MM_HINT_T0) };
                // Four 16-byte edges to a 64-byte line.
                index += 4;
            }
            if end > first as usize {
                let pointer = &self.edges[end - 1] as *const Edge as *const i8;
                // SAFETY: as above.
                unsafe { std::arch::x86_64::_mm_prefetch(pointer, std::arch::x86_64::_MM_HINT_T0) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (first, count);
    }

    /// The edge at an index.
    #[inline]
    pub fn edge(&self, index: u32) -> &Edge {
        &self.edges[index as usize]
    }

    /// A node's block of `count` edges from `first`, checked once rather
    /// than at every edge (selection reads whole blocks).
    #[inline]
    pub fn edge_block(&self, first: u32, count: u32) -> &[Edge] {
        &self.edges[first as usize..first as usize + count as usize]
    }

    /// Every node slot, for loops that index many.
    #[inline]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Nodes allocated so far (including any wasted by lost races).
    pub fn node_count(&self) -> u64 {
        (self.next_node.load(Ordering::Relaxed) as u64 - 1).min(self.nodes.len() as u64 - 1)
    }

    /// Node capacity.
    pub fn node_capacity(&self) -> u64 {
        self.nodes.len() as u64 - 1
    }

    /// Edges allocated so far (including blocks left behind by widening).
    pub fn edge_count(&self) -> u64 {
        (self.next_edge.load(Ordering::Relaxed) as u64 - 1).min(self.edges.len() as u64 - 1)
    }

    /// Bytes reserved for the tree (nodes, edges, table and the compaction
    /// index): what `Hash` promises at most.
    pub fn reserved_bytes(&self) -> usize {
        let blocks = self
            .blocks
            .lock()
            .map_or(0, |blocks| blocks.capacity() * std::mem::size_of::<u64>());
        self.nodes.len() * std::mem::size_of::<Node>()
            + self.edges.len() * std::mem::size_of::<Edge>()
            + self.table.len() * std::mem::size_of::<AtomicU64>()
            + blocks
    }

    /// Bytes in use: allocated nodes and edges, plus the table's share for
    /// that many nodes (the table is sized in proportion to the node arena).
    pub fn used_bytes(&self) -> usize {
        let nodes = self.node_count() as usize;
        let edges = (self.next_edge.load(Ordering::Relaxed) as usize).min(self.edges.len());
        let table_share =
            self.table.len() * std::mem::size_of::<AtomicU64>() * nodes / self.nodes.len().max(1);
        nodes * std::mem::size_of::<Node>() + edges * std::mem::size_of::<Edge>() + table_share
    }

    /// How full the tree is, in permille: the fuller of the two arenas (the
    /// table is sized with the node arena). This is UCI's `hashfull`; a
    /// recycle brings it back to about half.
    pub fn fill_permille(&self) -> u32 {
        let nodes = self.node_count() * 1000 / self.node_capacity().max(1);
        let edges = self.edge_count() * 1000 / (self.edges.len() as u64 - 1).max(1);
        nodes.max(edges).min(1000) as u32
    }

    /// Whether an allocation has failed: the tree has stopped growing.
    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// Whether the search should recycle now: an arena is nearly full.
    #[inline]
    pub fn wants_recycle(&self) -> bool {
        self.is_full() || self.fill_permille() as u64 >= RECYCLE_AT_PERMILLE
    }

    /// A fresh zeroed node from the thread's `reserve`, which takes a chunk
    /// of [`NODE_CHUNK`] nodes from the arena when it runs out; `None` when
    /// the arena is full.
    #[inline]
    pub fn allocate_node(&self, reserve: &mut Reserve) -> Option<u32> {
        self.check_reserve(reserve);
        if reserve.next_node < reserve.node_end {
            reserve.next_node += 1;
            return Some(reserve.next_node - 1);
        }
        if self.is_full() {
            return None;
        }
        let first = self.next_node.fetch_add(NODE_CHUNK, Ordering::Relaxed);
        if first as usize >= self.nodes.len() {
            self.full.store(true, Ordering::Relaxed);
            return None;
        }
        reserve.next_node = first + 1;
        reserve.node_end = (first as usize + NODE_CHUNK as usize).min(self.nodes.len()) as u32;
        Some(first)
    }

    /// A block of `count` fresh edges from the thread's `reserve` (blocks
    /// larger than a quarter chunk come straight from the arena), or `None`
    /// when the arena is full. What is left of a chunk too small for a block
    /// is wasted until the next compaction: at most a quarter chunk.
    #[inline]
    pub fn allocate_edges(&self, reserve: &mut Reserve, count: u32) -> Option<u32> {
        self.check_reserve(reserve);
        if reserve.edge_end - reserve.next_edge >= count {
            reserve.next_edge += count;
            return Some(reserve.next_edge - count);
        }
        if self.is_full() {
            return None;
        }
        let take = if count > EDGE_CHUNK / 4 {
            count
        } else {
            EDGE_CHUNK
        };
        let first = self.next_edge.fetch_add(take, Ordering::Relaxed);
        let end = (first as usize)
            .saturating_add(take as usize)
            .min(self.edges.len());
        if (first as usize).saturating_add(count as usize) > end {
            self.full.store(true, Ordering::Relaxed);
            return None;
        }
        if take > count {
            reserve.next_edge = first + count;
            reserve.edge_end = end as u32;
        }
        Some(first)
    }

    /// Empties a reserve taken before the last clear or compaction.
    #[inline]
    fn check_reserve(&self, reserve: &mut Reserve) {
        let epoch = self.epoch.load(Ordering::Relaxed);
        if reserve.epoch != epoch {
            *reserve = Reserve {
                epoch,
                ..Reserve::default()
            };
        }
    }

    /// The node with this key, if published.
    pub fn lookup(&self, key: u64) -> Option<u32> {
        let mask = self.mask.load(Ordering::Relaxed);
        let mut index = key as usize & mask;
        for _ in 0..PROBE_LIMIT {
            let entry = self.table[index].load(Ordering::Acquire);
            if entry == 0 {
                return None;
            }
            if entry >> 32 == key >> 32 {
                let node = entry as u32;
                if self.node(node).key.load(Ordering::Relaxed) == key {
                    return Some(node);
                }
            }
            index = (index + 1) & mask;
        }
        None
    }

    /// Publishes a fully written node under its key. If another thread
    /// published the same key first, returns that node instead (ours is then
    /// wasted); if the table is crowded, the node stays private.
    pub fn publish(&self, key: u64, node: u32) -> u32 {
        let mask = self.mask.load(Ordering::Relaxed);
        let mut index = key as usize & mask;
        let entry = (key & 0xFFFF_FFFF_0000_0000) | node as u64;
        for _ in 0..PROBE_LIMIT {
            let current = self.table[index].load(Ordering::Acquire);
            if current == 0 {
                match self.table[index].compare_exchange(
                    0,
                    entry,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => return node,
                    Err(other) => {
                        if other >> 32 == key >> 32
                            && self.node(other as u32).key.load(Ordering::Relaxed) == key
                        {
                            return other as u32;
                        }
                    }
                }
            } else if current >> 32 == key >> 32
                && self.node(current as u32).key.load(Ordering::Relaxed) == key
            {
                return current as u32;
            }
            index = (index + 1) & mask;
        }
        node
    }

    /// Forgets everything (a new game). Needs exclusive access.
    pub fn clear(&mut self) {
        let nodes = self.allocated_nodes();
        let edges = self.allocated_edges();
        self.clear_table(nodes, false);
        self.nodes.zero_prefix(nodes);
        self.edges.zero_prefix(edges);
        self.next_node.store(1, Ordering::Relaxed);
        self.next_edge.store(1, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        self.epoch.store(new_epoch(), Ordering::Relaxed);
    }

    /// One past the last allocated node.
    pub(crate) fn allocated_nodes(&self) -> usize {
        (self.next_node.load(Ordering::Relaxed) as usize).min(self.nodes.len())
    }

    /// One past the last allocated edge.
    pub(crate) fn allocated_edges(&self) -> usize {
        (self.next_edge.load(Ordering::Relaxed) as usize).min(self.edges.len())
    }

    /// Empties the table, which holds entries only for nodes below
    /// `node_count`: entry by entry when they are few (so that a small tree
    /// in a large budget never touches, and commits, the whole table), else
    /// all at once.
    fn clear_table(&self, node_count: usize, parallel: bool) {
        let mask = self.mask.load(Ordering::Relaxed);
        // Entries beyond those in use are never written.
        if node_count * 8 > mask + 1 {
            self.zero_table(mask + 1, parallel);
            return;
        }
        // Each entry holds one node, so pieces never clear the same entry.
        for_pieces(1, node_count, parallel, |range| {
            for node in range.start as u32..range.end as u32 {
                let key = self.node(node).key.load(Ordering::Relaxed);
                let mut index = key as usize & mask;
                for _ in 0..PROBE_LIMIT {
                    // Entries removed earlier may have left gaps in this probe
                    // sequence, so a zero does not end the search here.
                    let entry = self.table[index].load(Ordering::Relaxed);
                    if entry != 0 && entry as u32 == node {
                        self.table[index].store(0, Ordering::Relaxed);
                        break;
                    }
                    index = (index + 1) & mask;
                }
            }
        });
    }

    /// Keeps only what `root` can reach, sliding the survivors to the front
    /// of both arenas and rebuilding the table; the root becomes node 1,
    /// which this returns. Used between turns so that tree reuse never leaks
    /// the branches that were not played. Needs exclusive access. With
    /// `parallel`, as in [`Tree::recycle`], the independent passes run on
    /// rayon's global pool (a search with several threads, whose cores are
    /// idle between turns).
    pub fn compact(&mut self, root: u32, parallel: bool) -> u32 {
        let node_count = self.allocated_nodes();
        let edge_count = self.allocated_edges();
        if root == 0 || root as usize >= node_count {
            self.clear();
            return 0;
        }
        self.clear_table(node_count, parallel);
        self.move_to_front(root, edge_count, parallel);
        let (nodes, _) = self.slide(node_count, edge_count, 0, 0, parallel);
        self.publish_all(nodes, parallel);
        1
    }

    /// Frees about half the arenas during a search, keeping the root (node
    /// 1), the principal line, the children of the root's turn's nodes that
    /// have a proven child, and the children of every node visited at
    /// least a threshold number of times, chosen from a histogram of visits
    /// so that about [`RECYCLE_TARGET_PERMILLE`] of each arena stays in use.
    /// A node that loses its children keeps its visits, value and proof, and
    /// is expanded again when next visited. Proof marks, the statistics of
    /// every kept node and edge, and the table (rebuilt) stay consistent.
    ///
    /// Returns `None`, doing nothing, if the root is not node 1.
    ///
    /// Contract: no other thread may use the tree during the call (the
    /// search's threads wait at a barrier, see `run.rs`) and no iteration is
    /// in flight, so every virtual loss is zero. It takes `&self` because
    /// the threads share the tree by reference; every write is an atomic
    /// store, so breaking the contract garbles the tree but is not undefined
    /// behaviour.
    ///
    /// With `parallel` the passes over independent nodes, edges or table
    /// entries run on rayon's global pool (the search's helpers wait
    /// meanwhile, so their cores are free): the same tree comes out, except
    /// that of two nodes with one key (rare: a node stays private when the
    /// table has no room for it) either may be the one the table finds.
    pub fn recycle(&self, root: u32, parallel: bool) -> Option<Recycled> {
        let node_count = self.allocated_nodes();
        let edge_count = self.allocated_edges();
        if root != 1 || node_count <= 1 {
            return None;
        }
        let threshold = self.recycle_threshold(node_count, edge_count);
        self.clear_table(node_count, parallel);
        let (nodes, edges) =
            self.slide(node_count, edge_count, threshold, PRINCIPAL_NODES, parallel);
        self.publish_all(nodes, parallel);
        Some(Recycled {
            nodes_before: node_count as u64 - 1,
            nodes_after: nodes as u64 - 1,
            edges_before: edge_count as u64 - 1,
            edges_after: edges as u64 - 1,
            threshold,
        })
    }

    /// The children block of a node, if it lies within the allocated edges.
    fn block(&self, node: &Node, edge_count: usize) -> Option<(u32, u32)> {
        let (first, count, _) = node.children();
        (count == 0 || (first >= 1 && first as usize + count as usize <= edge_count))
            .then_some((first, count))
    }

    /// The fewest visits a node needs to keep its children so that the
    /// children kept fill about [`RECYCLE_TARGET_PERMILLE`] of each arena.
    /// Nodes are counted by the children they hold, which overcounts nodes
    /// shared by transpositions: the recycle frees a little more, not less.
    ///
    /// In a large tree the histogram is taken over a sample of the nodes
    /// (about [`THRESHOLD_SAMPLE`] of them, every `stride`-th with an odd
    /// stride so that the sample does not follow the threads' allocation
    /// chunks), scaled up: the threshold only needs to free about half the
    /// tree, and counting every node's created children was the largest
    /// part of a recycle (38% of it at 1.6 million nodes), a pause during
    /// which every search thread waits.
    fn recycle_threshold(&self, node_count: usize, edge_count: usize) -> u32 {
        let stride = (node_count / THRESHOLD_SAMPLE) as u64 | 1;
        self.recycle_threshold_sampled(node_count, edge_count, stride)
    }

    /// [`Tree::recycle_threshold`] from every `stride`-th node (1: all).
    pub(crate) fn recycle_threshold_sampled(
        &self,
        node_count: usize,
        edge_count: usize,
        stride: u64,
    ) -> u32 {
        let mut classes = [(0u64, 0u64); VISIT_CLASSES];
        for index in (1..node_count as u32).step_by(stride as usize) {
            let node = self.node(index);
            let Some((first, count)) = self.block(node, edge_count) else {
                continue;
            };
            if count == 0 {
                continue;
            }
            let created = (first..first + count)
                .filter(|&edge| self.edge(edge).child.load(Ordering::Relaxed) != 0)
                .count() as u64;
            let class = &mut classes[visit_class(node.visits.load(Ordering::Relaxed))];
            class.0 += created * stride;
            class.1 += count as u64 * stride;
        }
        let node_target = self.node_capacity() * RECYCLE_TARGET_PERMILLE / 1000;
        let edge_target = (self.edges.len() as u64 - 1) * RECYCLE_TARGET_PERMILLE / 1000;
        let (mut nodes, mut edges) = (1u64, 0u64);
        let mut threshold = u32::MAX;
        for class in (0..VISIT_CLASSES).rev() {
            nodes += classes[class].0;
            edges += classes[class].1;
            if nodes > node_target || edges > edge_target {
                break;
            }
            threshold = class_floor(class);
        }
        threshold.max(1)
    }

    /// Makes `root` node 1 by exchanging it with node 1 and rewriting the
    /// child pointers to either. The table must be empty.
    fn move_to_front(&self, root: u32, edge_count: usize, parallel: bool) {
        if root == 1 {
            return;
        }
        self.node(1).swap(self.node(root));
        for_pieces(1, edge_count, parallel, |range| {
            for index in range {
                let child = &self.edge(index as u32).child;
                match child.load(Ordering::Relaxed) {
                    1 => child.store(root, Ordering::Relaxed),
                    old if old == root => child.store(1, Ordering::Relaxed),
                    _ => {}
                }
            }
        });
    }

    /// The sliding compaction behind [`Tree::compact`] and
    /// [`Tree::recycle`], from node 1 as the root: marks what the root
    /// reaches through nodes that keep their children (the root, the first
    /// `principal` nodes of the most visited line, and nodes with at least
    /// `threshold` visits; 0 keeps everything reachable), numbers the marked
    /// nodes in address order, slides the kept edge blocks and then the
    /// nodes down, and zeroes the rest. The table must be empty; the caller
    /// publishes the survivors. Returns one past the last node and edge.
    fn slide(
        &self,
        node_count: usize,
        edge_count: usize,
        threshold: u32,
        principal: usize,
        parallel: bool,
    ) -> (u32, u32) {
        for_pieces(1, node_count, parallel, |range| {
            for index in range {
                self.node(index as u32)
                    .virtual_loss
                    .store(0, Ordering::Relaxed);
            }
        });
        // The principal line keeps its children whatever its visits.
        let mut line = 1u32;
        for _ in 0..principal {
            let node = self.node(line);
            node.virtual_loss.fetch_or(KEEP_CHILDREN, Ordering::Relaxed);
            let Some((first, count)) = self.block(node, edge_count) else {
                break;
            };
            let mut best = (0u32, 0u32);
            for edge in first..first + count {
                let edge = self.edge(edge);
                let child = edge.child.load(Ordering::Relaxed);
                let visits = edge.visits.load(Ordering::Relaxed);
                if child != 0 && (child as usize) < node_count && visits > best.1 {
                    best = (child, visits);
                }
            }
            let next = best.0;
            if next == 0 || self.node(next).virtual_loss.load(Ordering::Relaxed) != 0 {
                break;
            }
            line = next;
        }
        // Mark. Nodes of the root's own turn with a proven child keep
        // their children whatever their visits: the proof may come from
        // outside the tree (the root's two-turn check marks a refuted turn's
        // result), and the tree could not find it again.
        let root_turn = self.node(1).turn.load(Ordering::Relaxed);
        let mut stack = vec![1u32];
        self.node(1)
            .virtual_loss
            .fetch_or(MARKED | KEEP_CHILDREN, Ordering::Relaxed);
        while let Some(index) = stack.pop() {
            let node = self.node(index);
            let marks = node.virtual_loss.load(Ordering::Relaxed);
            let block = self.block(node, edge_count);
            let keep = marks & KEEP_CHILDREN != 0
                || node.visits.load(Ordering::Relaxed) >= threshold
                || (node.turn.load(Ordering::Relaxed) == root_turn
                    && self.has_proven_child(block, node_count));
            let Some((first, count)) = block.filter(|_| keep) else {
                node.virtual_loss
                    .store(marks & !KEEP_CHILDREN, Ordering::Relaxed);
                continue;
            };
            node.virtual_loss
                .store(marks | KEEP_CHILDREN, Ordering::Relaxed);
            for edge in first..first + count {
                let child = self.edge(edge).child.load(Ordering::Relaxed);
                if child != 0 && (child as usize) < node_count {
                    let marks = &self.node(child).virtual_loss;
                    if marks.load(Ordering::Relaxed) & MARKED == 0 {
                        marks.fetch_or(MARKED, Ordering::Relaxed);
                        stack.push(child);
                    }
                }
            }
        }
        // Number the marked nodes in address order: count them a piece at a
        // time, then number each piece from the sum of the counts before it.
        let pieces: Vec<usize> = (1..node_count).step_by(PASS_PIECE).collect();
        let marked = |first: usize| {
            let end = (first + PASS_PIECE).min(node_count);
            (first..end)
                .filter(|&index| {
                    self.node(index as u32).virtual_loss.load(Ordering::Relaxed) & MARKED != 0
                })
                .count() as u32
        };
        let counts: Vec<u32> = if parallel {
            pieces.par_iter().map(|&first| marked(first)).collect()
        } else {
            pieces.iter().map(|&first| marked(first)).collect()
        };
        let mut starts = Vec::with_capacity(counts.len());
        let mut next = 1u32;
        for count in counts {
            starts.push(next);
            next += count;
        }
        let number = |(first, start): (&usize, &u32)| {
            let mut next = *start;
            for index in *first..(*first + PASS_PIECE).min(node_count) {
                let marks = &self.node(index as u32).virtual_loss;
                let mark = marks.load(Ordering::Relaxed);
                if mark & MARKED != 0 {
                    marks.store(next | (mark & KEEP_CHILDREN), Ordering::Relaxed);
                    next += 1;
                } else {
                    marks.store(0, Ordering::Relaxed);
                }
            }
        };
        if parallel {
            pieces.par_iter().zip(&starts).for_each(number);
        } else {
            pieces.iter().zip(&starts).for_each(number);
        }
        // Slide the kept edge blocks down in address order, pointing their
        // edges at the children's new numbers.
        let mut next_edge = 1u32;
        {
            let mut blocks = self
                .blocks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            blocks.clear();
            for index in 1..node_count as u32 {
                let node = self.node(index);
                if node.virtual_loss.load(Ordering::Relaxed) & KEEP_CHILDREN == 0 {
                    continue;
                }
                if let Some((first, count)) = self.block(node, edge_count) {
                    if count > 0 {
                        blocks.push((first as u64) << 32 | index as u64);
                    }
                }
            }
            if parallel {
                blocks.par_sort_unstable();
            } else {
                blocks.sort_unstable();
            }
            for &entry in blocks.iter() {
                let (first, owner) = ((entry >> 32) as u32, entry as u32);
                let node = self.node(owner);
                let (_, count, total) = node.children();
                for offset in 0..count {
                    let from = self.edge(first + offset);
                    let action = from.action.load(Ordering::Relaxed);
                    let prior = from.prior.load(Ordering::Relaxed);
                    let child = from.child.load(Ordering::Relaxed);
                    let visits = from.visits.load(Ordering::Relaxed);
                    let child = if child != 0 && (child as usize) < node_count {
                        self.node(child).virtual_loss.load(Ordering::Relaxed) & NUMBER
                    } else {
                        0
                    };
                    let to = self.edge(next_edge + offset);
                    to.action.store(action, Ordering::Relaxed);
                    to.prior.store(prior, Ordering::Relaxed);
                    to.child.store(child, Ordering::Relaxed);
                    to.visits.store(visits, Ordering::Relaxed);
                }
                node.edges
                    .store(pack_children(next_edge, count, total), Ordering::Relaxed);
                next_edge += count;
            }
        }
        // Slide the nodes down; a node that keeps no children becomes an
        // unexpanded leaf with its own statistics.
        for old in 1..node_count as u32 {
            let from = self.node(old);
            let mark = from.virtual_loss.load(Ordering::Relaxed);
            if mark == 0 {
                continue;
            }
            let new = mark & NUMBER;
            let kept = mark & KEEP_CHILDREN != 0 && self.block(from, edge_count).is_some();
            if kept {
                // EXPANDING or WIDENING left over: expanded (or not yet).
                from.state.fetch_and(!1, Ordering::Relaxed);
                if from.state.load(Ordering::Relaxed) == UNEXPANDED && from.children().1 > 0 {
                    from.state.store(EXPANDED, Ordering::Relaxed);
                }
            } else {
                from.edges.store(0, Ordering::Relaxed);
                from.state.store(UNEXPANDED, Ordering::Relaxed);
            }
            if new != old {
                self.node(new).copy_from(from);
            } else {
                from.virtual_loss.store(0, Ordering::Relaxed);
            }
        }
        for_pieces(next as usize, node_count, parallel, |range| {
            for index in range {
                self.node(index as u32).clear();
            }
        });
        for_pieces(next_edge as usize, edge_count, parallel, |range| {
            for index in range {
                self.edge(index as u32).clear();
            }
        });
        self.next_node.store(next, Ordering::Relaxed);
        self.next_edge.store(next_edge, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        self.epoch.store(new_epoch(), Ordering::Relaxed);
        (next, next_edge)
    }

    /// Whether a block of edges leads to a proven node.
    fn has_proven_child(&self, block: Option<(u32, u32)>, node_count: usize) -> bool {
        let Some((first, count)) = block else {
            return false;
        };
        (first..first + count).any(|edge| {
            let child = self.edge(edge).child.load(Ordering::Relaxed);
            child != 0
                && (child as usize) < node_count
                && self.node(child).proof.load(Ordering::Relaxed) != UNPROVEN
        })
    }

    /// Zeroes the first `entries` entries of the table.
    fn zero_table(&self, entries: usize, parallel: bool) {
        for_pieces(0, entries, parallel, |range| {
            for entry in &self.table[range] {
                entry.store(0, Ordering::Relaxed);
            }
        });
    }

    /// The entries of the table in use (see [`Tree::grow_table`]).
    #[cfg(test)]
    pub(crate) fn table_entries(&self) -> usize {
        self.mask.load(Ordering::Relaxed) + 1
    }

    /// Whether the nodes have outgrown the entries of the table in use
    /// (more than a quarter of them), and it can grow.
    pub(crate) fn wants_bigger_table(&self) -> bool {
        let entries = self.mask.load(Ordering::Relaxed) + 1;
        entries < self.table.len() && self.allocated_nodes() * TABLE_LOAD_DIVISOR > entries
    }

    /// Uses four times the entries of the table (or more, up to all of
    /// them, until the nodes are at most a quarter), moving every entry to
    /// its place under the new mask. Needs every other thread stopped: the
    /// search grows the table at the same barrier as a recycle. The entries
    /// are kept, while they move, in the compaction's scratch vector, which
    /// holds a word a node (each entry is one node's).
    pub(crate) fn grow_table(&self, parallel: bool) {
        let old = self.mask.load(Ordering::Relaxed) + 1;
        let entries = self.entries_for(self.allocated_nodes());
        if entries == old {
            return;
        }
        let mut saved = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        saved.clear();
        saved.extend(
            self.table[..old]
                .iter()
                .map(|entry| entry.load(Ordering::Relaxed))
                .filter(|&entry| entry != 0),
        );
        self.zero_table(old, parallel);
        self.mask.store(entries - 1, Ordering::Relaxed);
        for &entry in saved.iter() {
            let node = entry as u32;
            self.publish(self.node(node).key.load(Ordering::Relaxed), node);
        }
    }

    /// The entries of the table to use for `nodes` nodes: those in use,
    /// times four until the nodes are at most a quarter of them, up to all.
    fn entries_for(&self, nodes: usize) -> usize {
        let mut entries = self.mask.load(Ordering::Relaxed) + 1;
        while entries < self.table.len() && nodes * TABLE_LOAD_DIVISOR > entries {
            entries *= 4;
        }
        entries.min(self.table.len())
    }

    /// Publishes every node below `node_count` in the (empty) table, using
    /// more of its entries first if they are too few for that many.
    fn publish_all(&self, node_count: u32, parallel: bool) {
        let entries = self.entries_for(node_count as usize);
        self.mask.store(entries - 1, Ordering::Relaxed);
        for_pieces(1, node_count as usize, parallel, |range| {
            for index in range {
                let key = self.node(index as u32).key.load(Ordering::Relaxed);
                self.publish(key, index as u32);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_compact() {
        assert_eq!(std::mem::size_of::<Node>(), 48);
        assert_eq!(std::mem::offset_of!(Node, state), 18);
        assert_eq!(std::mem::size_of::<Edge>(), 16);
    }

    #[test]
    fn the_allocation_counters_share_no_cache_line_with_the_arrays() {
        // Every tree access reads the arrays' addresses; a counter that
        // threads write on the same 128 bytes would make those reads miss.
        let tree = Tree::with_megabytes(1);
        let block = |address: usize| address / 128;
        let reads = [
            std::ptr::addr_of!(tree.nodes) as usize,
            std::ptr::addr_of!(tree.edges) as usize,
            std::ptr::addr_of!(tree.table) as usize,
            std::ptr::addr_of!(tree.epoch) as usize,
        ];
        for counter in [
            std::ptr::addr_of!(tree.next_node) as usize,
            std::ptr::addr_of!(tree.next_edge) as usize,
        ] {
            assert_eq!(counter % 128, 0);
            for read in reads {
                assert_ne!(block(counter), block(read));
            }
        }
        assert_ne!(
            block(std::ptr::addr_of!(tree.next_node) as usize),
            block(std::ptr::addr_of!(tree.next_edge) as usize)
        );
    }

    #[test]
    fn publish_and_lookup_share_nodes() {
        let tree = Tree::with_megabytes(1);
        let mut reserve = Reserve::default();
        let key = node_key(&Position::start(), 0);
        let node = tree.allocate_node(&mut reserve).unwrap();
        tree.node(node).key.store(key, Ordering::Relaxed);
        assert_eq!(tree.lookup(key), None);
        assert_eq!(tree.publish(key, node), node);
        assert_eq!(tree.lookup(key), Some(node));
        let other = tree.allocate_node(&mut reserve).unwrap();
        tree.node(other).key.store(key, Ordering::Relaxed);
        assert_eq!(tree.publish(key, other), node, "the first publisher wins");
    }

    #[test]
    fn full_arena_refuses_gracefully() {
        let tree = Tree::with_megabytes(1);
        let mut reserve = Reserve::default();
        let mut count = 0;
        while tree.allocate_node(&mut reserve).is_some() {
            count += 1;
        }
        assert_eq!(count, tree.node_capacity());
        assert!(count > 1000);
        assert!(tree.is_full());
        assert_eq!(tree.allocate_edges(&mut reserve, 1), None);
    }
}
