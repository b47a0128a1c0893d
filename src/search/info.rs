//! Reading a running or finished search into the reports: the tree's best
//! turn and candidates ([`TreeReading`], read once per report), and the
//! statistics and principal variation of a [`SearchInfo`].

use std::sync::atomic::Ordering;
use std::sync::PoisonError;
use std::time::Instant;

use super::extract::{best_turn, candidate_turns, continuation, TreeTurn};
use super::mcts::Shared;
use super::report::{Candidate, Proof, SearchInfo};
use crate::rules::Action;

/// Turns of the principal variation reported after the best turn.
const CONTINUATION_TURNS: usize = 30;

/// The tree's answer at one moment: its best turn and its distinct turns,
/// best first. At the end of a search it is read once and serves both the
/// report and the root's verification.
pub(super) struct TreeReading {
    /// The best turn, or `None` when the root has no visited child yet.
    pub best: Option<TreeTurn>,
    /// Up to the asked number of turns, best first (see `candidate_turns`).
    pub candidates: Vec<TreeTurn>,
}

impl TreeReading {
    /// Reads the best turn and up to `limit` candidate turns.
    pub fn new(shared: &Shared, limit: usize) -> TreeReading {
        let mut best = best_turn(
            shared.tree,
            &shared.rules,
            shared.tunables,
            shared.root,
            &shared.root_position,
            shared.repeats(),
        );
        let mut candidates = candidate_turns(
            shared.tree,
            &shared.rules,
            shared.root,
            &shared.root_position,
            limit,
        );
        // The tree's values are stretched far ahead (`Backup::stretched`);
        // the reports and the root's checks read them on the plain scale.
        let backup = &shared.backup;
        for turn in best.iter_mut().chain(candidates.iter_mut()) {
            turn.value = backup.unstretched(turn.value, backup.root_mover);
        }
        TreeReading { best, candidates }
    }

    /// Every turn the tree offers, best first: the best turn, then the
    /// candidates (which may repeat it).
    pub fn turns(&self) -> impl Iterator<Item = &TreeTurn> {
        self.best.iter().chain(self.candidates.iter())
    }
}

/// The state of a search as a [`SearchInfo`]: statistics, the best turn
/// with its line, and the best `multi_pv` candidates (the best turn first).
pub(super) fn collect_info(
    shared: &Shared,
    reading: &TreeReading,
    start: Instant,
    multi_pv: usize,
    in_check: bool,
) -> SearchInfo {
    let tree = shared.tree;
    let elapsed = start.elapsed();
    let iterations = shared.iterations.load(Ordering::Relaxed);
    let root = tree.node(shared.root);
    let mut candidates: Vec<Candidate> = reading
        .candidates
        .iter()
        .take(multi_pv)
        .map(|turn| to_candidate(shared, turn))
        .collect();
    let mut principal_variation = Vec::new();
    let (best_turn, value) = match &reading.best {
        Some(turn) => {
            principal_variation = line_from(shared, turn);
            if candidates
                .first()
                .is_none_or(|first| first.turn != turn.actions)
            {
                candidates.retain(|candidate| candidate.turn != turn.actions);
                candidates.insert(0, to_candidate(shared, turn));
                candidates.truncate(multi_pv);
            }
            (turn.actions.clone(), turn.value)
        }
        None => {
            let mean = root.mean().unwrap_or(0.0);
            let backup = &shared.backup;
            (Vec::new(), backup.unstretched(mean, backup.root_mover))
        }
    };
    SearchInfo {
        elapsed,
        iterations,
        tree_nodes: tree.node_count(),
        root_visits: root.visits.load(Ordering::Relaxed) as u64,
        nodes_per_second: iterations as f64 / elapsed.as_secs_f64().max(1e-9),
        average_depth: shared.depth_sum.load(Ordering::Relaxed) as f64 / iterations.max(1) as f64,
        max_depth: shared.max_depth.load(Ordering::Relaxed),
        hash_full: tree.fill_permille(),
        tree_bytes: tree.used_bytes() as u64,
        best_turn,
        value,
        proof: Proof::from_code(root.proof.load(Ordering::Relaxed)),
        principal_variation,
        candidates,
        in_check,
        recycles: shared.recycles.load(Ordering::Relaxed),
        phases: *shared.phases.lock().unwrap_or_else(PoisonError::into_inner),
    }
}

/// The expected line that starts with `turn`: the turn, then the tree's
/// continuation below it.
fn line_from(shared: &Shared, turn: &TreeTurn) -> Vec<Vec<Action>> {
    let mut line = vec![turn.actions.clone()];
    if turn.child != 0 {
        line.extend(continuation(
            shared.tree,
            &shared.rules,
            turn.child,
            turn.result,
            CONTINUATION_TURNS,
        ));
    }
    line
}

fn to_candidate(shared: &Shared, turn: &TreeTurn) -> Candidate {
    Candidate {
        turn: turn.actions.clone(),
        visits: turn.visits,
        value: turn.value,
        proof: Proof::from_code(turn.proof),
        line: line_from(shared, turn),
    }
}
