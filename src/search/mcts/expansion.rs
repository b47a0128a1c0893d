//! Growing the tree: a new node created and scored (or proven at once), a
//! node's first block of children listed in prior order, and the next
//! blocks materialised as progressive widening asks for them.

use std::sync::atomic::Ordering;

use super::super::eval;
use super::super::priors::scored_children;
use super::super::quiescence;
use super::super::tree::*;
use super::{proof_value, Shared, Step, Worker};
use crate::rules::{Outcome, Position, TurnState};

/// Edges materialised at a first expansion, then at the first widening.
const FIRST_BLOCK: u32 = 8;
const SECOND_BLOCK: u32 = 32;
/// States the in-tree solver may visit before answering "unknown".
const TREE_SOLVER_LIMIT: u64 = 1_000;

/// Result of looking up or creating a child.
pub(super) enum Creation {
    /// A node created by this call: (index, value for its mover).
    Created(u32, f32),
    /// A node that already existed.
    Existing(u32),
    /// The arena is full: (value, mover) of the unstored leaf.
    Full(f32, usize),
}

impl Worker {
    /// Finds or creates the node for `position` (reached by `step`).
    pub(super) fn create(
        &mut self,
        shared: &Shared,
        position: &Position,
        turn: u32,
        step: Step,
    ) -> Creation {
        let tree = shared.tree;
        let rules = &shared.rules;
        let hash = position.hash();
        let key = node_key(position, turn);
        if let Some(index) = tree.lookup(key) {
            return Creation::Existing(index);
        }
        let mover = position.side_to_move().index();
        let mut flags = mover as u8;
        let mut proof = UNPROVEN;
        let mut value = 0.0;
        // A turn that has only fired catastrophes so far is, for the rest of
        // the turn, the same as a fresh start; such nodes merge with real
        // start-of-turn nodes and are scored alike.
        let start = position.turn_state() == TurnState::Start;
        if start {
            flags |= FLAG_START;
        }
        if let Step::Ended(outcome) = step {
            match outcome {
                Outcome::Win(winner) => {
                    proof = if winner.index() == mover {
                        PROVEN_WIN
                    } else {
                        PROVEN_LOSS
                    };
                }
                Outcome::Draw => proof = PROVEN_DRAW,
                Outcome::Ongoing => {
                    let earlier = &self.starts[..self.starts.len() - 1];
                    if shared.history.binary_search(&hash).is_ok() || earlier.contains(&hash) {
                        flags |= FLAG_REPETITION;
                    }
                }
            }
        }
        if proof == UNPROVEN && flags & FLAG_REPETITION == 0 {
            if start {
                if self
                    .solver
                    .can_win_limited(position, rules, TREE_SOLVER_LIMIT)
                    == Some(true)
                {
                    proof = PROVEN_WIN;
                } else {
                    value = self.leaf_value(position, rules, shared.tunables);
                }
            } else {
                let mut ended = *position;
                value = match ended.end_turn(rules) {
                    Ok(Outcome::Win(winner)) if winner.index() == mover => {
                        proof = PROVEN_WIN;
                        1.0
                    }
                    Ok(Outcome::Win(_)) => -1.0,
                    Ok(Outcome::Draw) => 0.0,
                    Ok(Outcome::Ongoing) => {
                        let value = eval::value(&ended, shared.tunables, false);
                        -quiescence::with_sacrifice_shot(&ended, rules, shared.tunables, value)
                    }
                    Err(_) => 0.0,
                };
            }
        }
        if proof != UNPROVEN {
            value = proof_value(proof);
        }
        let Some(index) = tree.allocate_node(&mut self.reserve) else {
            return Creation::Full(value, mover);
        };
        write_node(tree.node(index), key, flags, proof, value, turn);
        let published = tree.publish(key, index);
        if published != index {
            return Creation::Existing(published);
        }
        Creation::Created(index, value)
    }

    /// Generates and publishes the first block of children. Returns false if
    /// another thread is expanding the node or the arena is full.
    pub(super) fn expand(
        &mut self,
        shared: &Shared,
        node_id: u32,
        position: &Position,
        turn: u32,
    ) -> bool {
        let tree = shared.tree;
        if tree.is_full() {
            return false;
        }
        let node = tree.node(node_id);
        if node
            .state
            .compare_exchange(UNEXPANDED, EXPANDING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.generate(shared, position, turn, FIRST_BLOCK as usize);
        let total = self.scored.len() as u32;
        if total == 0 {
            node.edges.store(0, Ordering::Release);
            node.proof.store(PROVEN_LOSS, Ordering::Release);
            node.state.store(EXPANDED, Ordering::Release);
            return true;
        }
        let count = total.min(FIRST_BLOCK);
        let Some(first) = tree.allocate_edges(&mut self.reserve, count) else {
            node.state.store(UNEXPANDED, Ordering::Release);
            return false;
        };
        for (offset, &(prior, action)) in self.scored[..count as usize].iter().enumerate() {
            let edge = tree.edge(first + offset as u32);
            edge.action.store(action, Ordering::Relaxed);
            edge.prior.store(prior.to_bits(), Ordering::Relaxed);
        }
        node.edges
            .store(pack_children(first, count, total), Ordering::Release);
        node.state.store(EXPANDED, Ordering::Release);
        true
    }

    /// Scores every child into `self.scored`, the first `sorted` in order.
    fn generate(&mut self, shared: &Shared, position: &Position, turn: u32, sorted: usize) {
        match shared.root_filter.filter(|_| turn == shared.root_turn) {
            Some(filter) => {
                let keep = |hash: u64| filter.binary_search(&hash).is_ok();
                scored_children(
                    position,
                    &shared.rules,
                    shared.tunables,
                    Some(&keep),
                    sorted,
                    &mut self.scored,
                );
            }
            None => scored_children(
                position,
                &shared.rules,
                shared.tunables,
                None,
                sorted,
                &mut self.scored,
            ),
        }
    }

    /// Materialises the next block of children in prior order.
    pub(super) fn widen(&mut self, shared: &Shared, node_id: u32, position: &Position) -> bool {
        let tree = shared.tree;
        let node = tree.node(node_id);
        if tree.is_full()
            || node
                .state
                .compare_exchange(EXPANDED, WIDENING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        let (first, count, total) = node.children();
        let new_count = if count < SECOND_BLOCK {
            total.min(SECOND_BLOCK)
        } else {
            total
        };
        let turn = node.turn.load(Ordering::Relaxed);
        self.generate(shared, position, turn, new_count as usize);
        let consistent = self.scored.len() as u32 == total
            && (0..count).all(|offset| {
                tree.edge(first + offset).action.load(Ordering::Relaxed)
                    == self.scored[offset as usize].1
            });
        let new_first = if consistent {
            tree.allocate_edges(&mut self.reserve, new_count)
        } else {
            None
        };
        let Some(new_first) = new_first else {
            node.state.store(EXPANDED, Ordering::Release);
            return false;
        };
        for offset in 0..new_count {
            let to = tree.edge(new_first + offset);
            if offset < count {
                let from = tree.edge(first + offset);
                to.action
                    .store(from.action.load(Ordering::Relaxed), Ordering::Relaxed);
                to.prior
                    .store(from.prior.load(Ordering::Relaxed), Ordering::Relaxed);
                to.child
                    .store(from.child.load(Ordering::Acquire), Ordering::Relaxed);
                to.visits
                    .store(from.visits.load(Ordering::Relaxed), Ordering::Relaxed);
            } else {
                let (prior, action) = self.scored[offset as usize];
                to.action.store(action, Ordering::Relaxed);
                to.prior.store(prior.to_bits(), Ordering::Relaxed);
            }
        }
        node.edges.store(
            pack_children(new_first, new_count, total),
            Ordering::Release,
        );
        node.state.store(EXPANDED, Ordering::Release);
        true
    }
}

/// Writes a new node's fields before publication.
pub(super) fn write_node(node: &Node, key: u64, flags: u8, proof: u8, value: f32, turn: u32) {
    node.key.store(key, Ordering::Relaxed);
    node.flags.store(flags, Ordering::Relaxed);
    node.proof.store(proof, Ordering::Relaxed);
    node.eval.store(value.to_bits(), Ordering::Relaxed);
    node.turn.store(turn, Ordering::Relaxed);
}
