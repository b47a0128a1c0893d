//! The tree's records: a node per position (mid-turn or at a turn's
//! start), an edge per action out of it, their state and proof codes, and
//! the key that merges transpositions.

use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering};

use super::arena::Zeroable;
use crate::rules::position::mix;
use crate::rules::{Position, Slot, HOME_SLOTS, SLOT_COUNT};

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
    pub(super) fn clear(&self) {
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
    pub(super) fn copy_from(&self, from: &Node) {
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
    pub(super) fn swap(&self, other: &Node) {
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
    pub(super) fn clear(&self) {
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
