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
//!   nothing, and when an arena is full the search stops growing and treats
//!   nodes as leaves rather than aborting or swapping.
//! - A node is keyed by (position hash, turns from the tree's base). The
//!   position hash includes the side to move and the turn state, so action
//!   orders that reach the same mid-turn state share one node, and different
//!   turns reaching the same result share the next turn's start node. The
//!   turn count in the key makes the graph acyclic: inside a turn pieces only
//!   leave (catastrophes) or actions run out, and across turns the count grows.
//! - The table holds one `AtomicU64` per entry: the high 32 bits of the key
//!   and the node index. A node is fully written before its entry is
//!   published with a compare-and-swap, so readers never see half a node.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering};

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
        NonNull::new(raw).map(|pointer| ZeroedArray { pointer, length })
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
#[derive(Default)]
pub(crate) struct Node {
    /// (position hash, turn) key; written before publication.
    pub key: AtomicU64,
    /// Sum of backed-up values from the mover's point of view, fixed point.
    pub value_sum: AtomicI64,
    /// Children: first edge (32 bits), materialised count (16), legal total (16).
    pub edges: AtomicU64,
    /// Completed visits.
    pub visits: AtomicU32,
    /// Visits in flight (virtual loss).
    pub virtual_loss: AtomicU32,
    /// Static value for the mover (f32 bits), used while unexpanded.
    pub eval: AtomicU32,
    /// Turns from the tree's base.
    pub turn: AtomicU32,
    /// Expansion state.
    pub state: AtomicU8,
    /// Proof state.
    pub proof: AtomicU8,
    /// `FLAG_*` bits.
    pub flags: AtomicU8,
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

/// The shared tree.
pub(crate) struct Tree {
    nodes: ZeroedArray<Node>,
    edges: ZeroedArray<Edge>,
    table: ZeroedArray<AtomicU64>,
    next_node: AtomicU32,
    next_edge: AtomicU32,
    full: AtomicBool,
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
        let node_bytes = std::mem::size_of::<Node>() + EDGES_PER_NODE * std::mem::size_of::<Edge>();
        let entry_bytes = std::mem::size_of::<AtomicU64>();
        let estimate = (bytes / (node_bytes + 2 * entry_bytes)).max(64);
        // A power-of-two table at most 80% full.
        let mut table_size = (estimate * 2).next_power_of_two() / 2;
        if table_size < estimate * 5 / 4 {
            table_size *= 2;
        }
        let node_count = (bytes.saturating_sub(table_size * entry_bytes) / node_bytes)
            .clamp(64, u32::MAX as usize / 2);
        let edge_count = (node_count * EDGES_PER_NODE).min(u32::MAX as usize / 2);
        Some(Tree {
            nodes: ZeroedArray::new(node_count)?,
            edges: ZeroedArray::new(edge_count)?,
            table: ZeroedArray::new(table_size)?,
            next_node: AtomicU32::new(1),
            next_edge: AtomicU32::new(1),
            full: AtomicBool::new(false),
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

    /// The edge at an index.
    #[inline]
    pub fn edge(&self, index: u32) -> &Edge {
        &self.edges[index as usize]
    }

    /// Nodes allocated so far (including any wasted by lost races).
    pub fn node_count(&self) -> u64 {
        (self.next_node.load(Ordering::Relaxed) as u64 - 1).min(self.nodes.len() as u64 - 1)
    }

    /// Node capacity.
    pub fn node_capacity(&self) -> u64 {
        self.nodes.len() as u64 - 1
    }

    /// Bytes reserved for the tree (nodes, edges and table).
    pub fn reserved_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>()
            + self.edges.len() * std::mem::size_of::<Edge>()
            + self.table.len() * std::mem::size_of::<AtomicU64>()
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

    /// How full the arenas are, in permille (the fuller of the two).
    pub fn fill_permille(&self) -> u32 {
        let nodes = self.node_count() * 1000 / self.node_capacity().max(1);
        let edges = (self.next_edge.load(Ordering::Relaxed) as u64).min(self.edges.len() as u64)
            * 1000
            / (self.edges.len() as u64).max(1);
        nodes.max(edges) as u32
    }

    /// Whether an allocation has failed: the tree has stopped growing.
    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// A fresh zeroed node, or `None` when the arena is full.
    pub fn allocate_node(&self) -> Option<u32> {
        if self.is_full() {
            return None;
        }
        let index = self.next_node.fetch_add(1, Ordering::Relaxed);
        if (index as usize) < self.nodes.len() {
            Some(index)
        } else {
            self.full.store(true, Ordering::Relaxed);
            None
        }
    }

    /// A block of `count` fresh edges, or `None` when the arena is full.
    pub fn allocate_edges(&self, count: u32) -> Option<u32> {
        if self.is_full() {
            return None;
        }
        let first = self.next_edge.fetch_add(count, Ordering::Relaxed);
        if (first as usize).saturating_add(count as usize) <= self.edges.len() {
            Some(first)
        } else {
            self.full.store(true, Ordering::Relaxed);
            None
        }
    }

    /// The node with this key, if published.
    pub fn lookup(&self, key: u64) -> Option<u32> {
        let mask = self.table.len() - 1;
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
        let mask = self.table.len() - 1;
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
        let nodes = (self.next_node.load(Ordering::Relaxed) as usize).min(self.nodes.len());
        let edges = (self.next_edge.load(Ordering::Relaxed) as usize).min(self.edges.len());
        self.clear_table(nodes);
        self.nodes.zero_prefix(nodes);
        self.edges.zero_prefix(edges);
        self.next_node.store(1, Ordering::Relaxed);
        self.next_edge.store(1, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
    }

    /// Empties the table, which holds entries only for nodes below
    /// `node_count`: entry by entry when they are few, else all at once.
    fn clear_table(&mut self, node_count: usize) {
        if node_count * 8 > self.table.len() {
            let table = self.table.len();
            self.table.zero_prefix(table);
            return;
        }
        let mask = self.table.len() - 1;
        for node in 1..node_count as u32 {
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
    }

    /// Keeps only what `root` can reach, sliding the survivors to the front
    /// of both arenas (Lisp-2 style) and rebuilding the table; returns the
    /// root's new index. Used between turns so that tree reuse never leaks
    /// the branches that were not played. Needs exclusive access.
    pub fn compact(&mut self, root: u32) -> u32 {
        let node_count = (self.next_node.load(Ordering::Relaxed) as usize).min(self.nodes.len());
        let edge_count = (self.next_edge.load(Ordering::Relaxed) as usize).min(self.edges.len());
        self.clear_table(node_count);
        // Mark.
        let mut new_index = vec![0u32; node_count];
        let mut stack = vec![root];
        new_index[root as usize] = 1;
        while let Some(node) = stack.pop() {
            let (first, count, _) = self.node(node).children();
            for edge in first..first + count {
                let child = self.edge(edge).child.load(Ordering::Relaxed);
                if child != 0 && (child as usize) < node_count && new_index[child as usize] == 0 {
                    new_index[child as usize] = 1;
                    stack.push(child);
                }
            }
        }
        // New node indices in address order, and the surviving edge blocks.
        let mut next = 1u32;
        let mut blocks = Vec::new();
        for (old, slot) in new_index.iter_mut().enumerate().skip(1) {
            if *slot != 0 {
                *slot = next;
                next += 1;
                let (first, count, _) = self.node(old as u32).children();
                if count > 0 {
                    blocks.push((first, count, old as u32));
                }
            }
        }
        blocks.sort_unstable();
        // Slide edge blocks down, rewriting child pointers.
        let mut next_edge = 1u32;
        for &(first, count, owner) in &blocks {
            for offset in 0..count {
                let from = self.edge(first + offset);
                let action = from.action.load(Ordering::Relaxed);
                let prior = from.prior.load(Ordering::Relaxed);
                let child = from.child.load(Ordering::Relaxed);
                let visits = from.visits.load(Ordering::Relaxed);
                let child = if child != 0 && (child as usize) < node_count {
                    new_index[child as usize]
                } else {
                    0
                };
                let to = self.edge(next_edge + offset);
                to.action.store(action, Ordering::Relaxed);
                to.prior.store(prior, Ordering::Relaxed);
                to.child.store(child, Ordering::Relaxed);
                to.visits.store(visits, Ordering::Relaxed);
            }
            let node = self.node(owner);
            let (_, materialised, total) = node.children();
            node.edges.store(
                pack_children(next_edge, materialised, total),
                Ordering::Relaxed,
            );
            next_edge += count;
        }
        // Slide nodes down.
        for (old, &new) in new_index.iter().enumerate().skip(1) {
            if new == 0 || new as usize == old {
                continue;
            }
            let (from, to) = (self.node(old as u32), self.node(new));
            to.key
                .store(from.key.load(Ordering::Relaxed), Ordering::Relaxed);
            to.value_sum
                .store(from.value_sum.load(Ordering::Relaxed), Ordering::Relaxed);
            to.edges
                .store(from.edges.load(Ordering::Relaxed), Ordering::Relaxed);
            to.visits
                .store(from.visits.load(Ordering::Relaxed), Ordering::Relaxed);
            to.virtual_loss.store(0, Ordering::Relaxed);
            to.eval
                .store(from.eval.load(Ordering::Relaxed), Ordering::Relaxed);
            to.turn
                .store(from.turn.load(Ordering::Relaxed), Ordering::Relaxed);
            to.state
                .store(from.state.load(Ordering::Relaxed), Ordering::Relaxed);
            to.proof
                .store(from.proof.load(Ordering::Relaxed), Ordering::Relaxed);
            to.flags
                .store(from.flags.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        // Zero what is no longer used and rebuild the table.
        let live_nodes = next as usize;
        let live_edges = next_edge as usize;
        self.nodes.zero_range(live_nodes, node_count);
        self.edges.zero_range(live_edges, edge_count);
        self.next_node.store(next, Ordering::Relaxed);
        self.next_edge.store(next_edge, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        for index in 1..next {
            let node = self.node(index);
            node.state.fetch_and(!1, Ordering::Relaxed); // EXPANDING/WIDENING leftovers
            if node.state.load(Ordering::Relaxed) == 0 && node.children().1 > 0 {
                node.state.store(EXPANDED, Ordering::Relaxed);
            }
            let key = node.key.load(Ordering::Relaxed);
            self.publish(key, index);
        }
        new_index[root as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_compact() {
        assert!(std::mem::size_of::<Node>() <= 48);
        assert_eq!(std::mem::size_of::<Edge>(), 16);
    }

    #[test]
    fn publish_and_lookup_share_nodes() {
        let tree = Tree::with_megabytes(1);
        let key = node_key(&Position::start(), 0);
        let node = tree.allocate_node().unwrap();
        tree.node(node).key.store(key, Ordering::Relaxed);
        assert_eq!(tree.lookup(key), None);
        assert_eq!(tree.publish(key, node), node);
        assert_eq!(tree.lookup(key), Some(node));
        let other = tree.allocate_node().unwrap();
        tree.node(other).key.store(key, Ordering::Relaxed);
        assert_eq!(tree.publish(key, other), node, "the first publisher wins");
    }

    #[test]
    fn full_arena_refuses_gracefully() {
        let tree = Tree::with_megabytes(1);
        let mut count = 0;
        while tree.allocate_node().is_some() {
            count += 1;
        }
        assert!(count > 1000);
        assert!(tree.is_full());
        assert_eq!(tree.allocate_edges(1), None);
    }
}
