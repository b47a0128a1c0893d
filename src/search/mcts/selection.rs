//! Choosing the child to descend into: PUCT with first-play urgency and
//! progressive widening in prior order, with the terms that depend only on
//! a node's visit count read from a table.

use std::sync::atomic::Ordering;

use super::super::tree::{FLAG_START, PROVEN_LOSS, PROVEN_WIN, UNPROVEN, VALUE_SCALE};
use super::super::tunables::{Tunable, Tunables};
use super::{flip_proof, Shared, Worker};
use crate::rules::Position;

/// Visit counts below this read selection's terms from [`Selection`].
const SELECTION_TABLE: usize = 1024;

/// The terms of PUCT selection that depend only on a node's visit count
/// (how many children it may consider, and the exploration scale at the
/// start of a turn and inside one), for the small counts that most
/// selections see. Why: a logarithm, a power and a square root per selected
/// node were about 2% of a search. Each entry is computed with the same
/// expression as [`Selection::terms`] uses above the table, so the search
/// is bit for bit the same.
pub(crate) struct Selection {
    /// For visit count `v` (as an index): (children allowed, exploration
    /// scale at a turn's start, exploration scale inside a turn).
    table: Box<[(u32, f32, f32)]>,
    cpuct: f32,
    cpuct_intra_turn: f32,
    growth: f32,
    widening_base: f32,
    widening_exponent: f32,
}

impl Selection {
    /// The table for these tunables.
    pub fn new(tunables: &Tunables) -> Selection {
        let mut selection = Selection {
            table: Box::new([]),
            cpuct: tunables[Tunable::Cpuct],
            cpuct_intra_turn: tunables[Tunable::CpuctIntraTurn],
            growth: tunables[Tunable::CpuctGrowth],
            widening_base: tunables[Tunable::WideningBase],
            widening_exponent: tunables[Tunable::WideningExponent],
        };
        selection.table = (0..SELECTION_TABLE as u32)
            .map(|visits| {
                let (allowed, start) = selection.compute(visits, true);
                let (_, intra) = selection.compute(visits, false);
                (allowed, start, intra)
            })
            .collect();
        selection
    }

    /// (children allowed, exploration scale) at a node with `visits`.
    #[inline]
    pub(super) fn terms(&self, visits: u32, start: bool) -> (u32, f32) {
        match self.table.get(visits as usize) {
            Some(&(allowed, at_start, inside)) => (allowed, if start { at_start } else { inside }),
            None => self.compute(visits, start),
        }
    }

    pub(super) fn compute(&self, visits: u32, start: bool) -> (u32, f32) {
        let visits = visits as f32;
        let base = if start {
            self.cpuct
        } else {
            self.cpuct_intra_turn
        };
        let exploration = base * (1.0 + self.growth * (1.0 + visits).ln());
        let allowed = (self.widening_base + visits.powf(self.widening_exponent)).ceil() as u32;
        (allowed, exploration * visits.max(1.0).sqrt())
    }
}

impl Worker {
    /// PUCT selection with progressive widening. Returns an edge index.
    pub(super) fn select(
        &mut self,
        shared: &Shared,
        node_id: u32,
        position: &Position,
    ) -> Option<u32> {
        let tree = shared.tree;
        let tunables = shared.tunables;
        let node = tree.node(node_id);
        let mover = node.mover();
        for _attempt in 0..2 {
            let (first, count, total) = node.children();
            let start = node.flags.load(Ordering::Relaxed) & FLAG_START != 0;
            let (allowed, scale) = shared
                .selection
                .terms(node.visits.load(Ordering::Relaxed), start);
            let parent_value = node.mean().unwrap_or_else(|| node.static_value());
            let first_play = parent_value - tunables[Tunable::FpuReduction];
            let mut best = None;
            let mut best_score = f32::NEG_INFINITY;
            let mut considered = 0;
            let edges = tree.edge_block(first, count);
            let nodes = tree.nodes();
            // The children are scattered over the arena: ask for all of them
            // at once so that their cache misses overlap.
            let window = count.min(allowed.saturating_add(4)) as usize;
            for edge in &edges[..window] {
                tree.prefetch_node(edge.child.load(Ordering::Relaxed));
            }
            // One thread alone keeps no virtual loss.
            let exclusive = shared.exclusive;
            for (offset, edge) in edges.iter().enumerate() {
                let child = edge.child.load(Ordering::Acquire);
                let value = if child != 0 {
                    let child_node = &nodes[child as usize];
                    let proof = child_node.proof.load(Ordering::Acquire);
                    let same = child_node.mover() == mover;
                    if proof != UNPROVEN {
                        match if same { proof } else { flip_proof(proof) } {
                            PROVEN_WIN => return Some(first + offset as u32),
                            PROVEN_LOSS => continue,
                            _ => shared.backup.draw_for(mover),
                        }
                    } else {
                        let in_flight = if exclusive {
                            0.0
                        } else {
                            child_node.virtual_loss.load(Ordering::Relaxed) as f32
                        };
                        let child_visits =
                            child_node.visits.load(Ordering::Relaxed) as f32 + in_flight;
                        if child_visits == 0.0 {
                            first_play
                        } else {
                            let sum =
                                child_node.value_sum.load(Ordering::Relaxed) as f64 / VALUE_SCALE;
                            let sum = if same { sum } else { -sum } as f32;
                            (sum - in_flight) / child_visits
                        }
                    }
                } else {
                    first_play
                };
                considered += 1;
                let prior = f32::from_bits(edge.prior.load(Ordering::Relaxed));
                let score =
                    value + scale * prior / (1.0 + edge.visits.load(Ordering::Relaxed) as f32);
                if score > best_score {
                    best_score = score;
                    best = Some(first + offset as u32);
                }
                if considered >= allowed {
                    break;
                }
            }
            if considered < allowed && count < total && self.widen(shared, node_id, position) {
                continue;
            }
            return best;
        }
        None
    }
}
