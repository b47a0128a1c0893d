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
//!   even that frees too little (the root's own turn fills the tree), the
//!   tree stops growing for the rest of the search and treats new nodes as
//!   leaves.
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
//! Designed for many threads:
//! - Each thread allocates from a private [`Reserve`], taking 64 nodes or
//!   512 edges from the arenas at a time, so the shared bump counters are
//!   touched once per 64 allocations instead of at each (with 16 threads a
//!   counter bumped at every allocation is a cache line every core fights
//!   over). A reserve belongs to an epoch of the tree and empties when the
//!   tree is cleared or compacted.
//! - Statistics are per node (the graph shares nodes between
//!   transpositions), updated with relaxed atomics; one thread alone uses
//!   plain loads and stores (see `mcts/`). The root, which every
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
//!
//! # Memory
//! The budget (the engine's `Hash` option, `hash_mb`) bounds the whole tree:
//! nodes, edges, the table and the compaction's scratch vector. Its pages
//! are committed only as the tree grows, so a short search in a large
//! budget costs what it uses. The arrays ask Linux for transparent huge
//! pages (as chess engines do for their tables), so that a random read in
//! hundreds of megabytes, a child in selection or a probe of the table,
//! does not also miss the TLB; systems that give huge pages only where
//! asked otherwise give none.
//!
//! A long analysis fills the tree and goes on: the fuller arena's fill
//! ([`Tree::fill_permille`], the protocol's `hashfull`) climbs to
//! [`RECYCLE_AT_PERMILLE`], a recycle brings it back to about half, and the
//! search keeps deepening in bounded memory. A recycle is a pause for every
//! search thread, so it is made cheap and rare:
//! - it frees half the tree, so its cost, a few passes over the arenas, is
//!   spread over as many new nodes as the tree keeps, and the threads meet
//!   at the barrier seldom (a concurrent, incremental reclaim would avoid
//!   the wait at the price of synchronising every node access);
//! - the threshold comes from a histogram of a sample of the nodes rather
//!   than all of them (see `compaction.rs`);
//! - the passes over independent nodes, edges or table entries (clearing,
//!   numbering, sorting the edge blocks, publishing) run on rayon's global
//!   pool while the search's helpers wait, their cores being idle then;
//!   marking and sliding, which follow the tree, stay on one thread.
//!
//! With one thread a recycle happens at the same iteration every run and
//! the passes run in order on that thread, so a node-limited search stays
//! reproducible whether or not its tree fills.

mod arena;
mod compaction;
mod node;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

pub(crate) use arena::{CachePadded, ZeroedArray};
pub(crate) use node::*;

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
/// Fill of the fuller arena, in permille, at which a search recycles: late
/// enough that a recycle is rare, early enough that with several threads
/// the arenas seldom run out while the others come to the barrier.
const RECYCLE_AT_PERMILLE: u64 = 970;

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
mod tests;
