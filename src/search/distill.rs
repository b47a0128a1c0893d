//! What the search prefers at each well-visited node of one tree: the
//! targets for fitting the action priors to the search itself (policy
//! distillation, as AlphaZero trains its policy on visit counts).
//!
//! The priors decide which actions the tree tries first. Fitted to the turns
//! people played, they predict people; fitted to the visit counts of deeper
//! searches, they predict what the search itself would find, so that a
//! small budget starts where a large one ends. `supernova priors --search N
//! --positions P --min-visits V` fits them so: from P start-of-turn
//! positions of the records, a one-thread search of N iterations each, and
//! at every node visited V times the share of visits each child got.
//!
//! The defaults of the `prior_*` tunables are the weights fitted to people,
//! not these. A fit to the search's visits predicts the search better (on
//! held-out decisions its favourite ranked first 67.4% of the time against
//! 64.5%, from 10,000-iteration searches), but does not play better (about
//! -10 Elo at 3,000 nodes a turn): with a few weights the priors cannot say
//! much more than they do, and the visits they are fitted to were shaped by
//! the same priors.

use std::sync::atomic::Ordering;

use ahash::AHashSet;

use super::mcts::{advance, grow_bare, Backup, Step};
use super::tree::{Tree, EXPANDED, WIDENING};
use super::tunables::Tunables;
use crate::rules::{Position, Rules};

/// One node's decision: its position and how often the search chose each
/// materialised child (children never materialised have no visits).
#[derive(Clone, Debug, PartialEq)]
pub struct VisitTarget {
    /// The node's position (at the start of a turn or inside one).
    pub position: Position,
    /// (packed action, visits), the end of the turn packed as 0.
    pub visits: Vec<(u32, u32)>,
}

/// Grows the bare tree (no root checks) from `position` for `iterations`
/// on one thread, then returns the visit counts at every node the search
/// reached at least `min_visits` times, root first. Deterministic.
pub fn visit_targets(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    iterations: u64,
    min_visits: u32,
) -> Vec<VisitTarget> {
    // About 150 bytes a node: room for every iteration, so that no recycle
    // happens (a search that fills even the cap stops there).
    let megabytes = (iterations.saturating_mul(200) >> 20).clamp(4, 4096) as usize;
    let tree = Tree::with_megabytes(megabytes);
    let backup = Backup::new(tunables, position.side_to_move().index(), 0.0);
    let Some(root) = grow_bare(&tree, rules, tunables, position, &[], backup, iterations) else {
        return Vec::new();
    };
    let mut targets = Vec::new();
    let mut seen = AHashSet::new();
    let mut pending = vec![(root, *position, 0u32)];
    while let Some((node_id, position, turn)) = pending.pop() {
        if !seen.insert(node_id) {
            continue;
        }
        let node = tree.node(node_id);
        let state = node.state.load(Ordering::Acquire);
        if node.visits.load(Ordering::Relaxed) < min_visits
            || (state != EXPANDED && state != WIDENING)
        {
            continue;
        }
        let (first, count, _) = node.children();
        let mut visits = Vec::with_capacity(count as usize);
        for index in first..first + count {
            let edge = tree.edge(index);
            let action = edge.action.load(Ordering::Relaxed);
            let chosen = edge.visits.load(Ordering::Relaxed);
            visits.push((action, chosen));
            let child = edge.child.load(Ordering::Acquire);
            if child != 0 && chosen >= min_visits {
                let mut next = position;
                let mut next_turn = turn;
                if let Step::Ended(_) | Step::Inside =
                    advance(&mut next, rules, action, &mut next_turn)
                {
                    pending.push((child, next, next_turn));
                }
            }
        }
        if visits.iter().any(|&(_, chosen)| chosen > 0) {
            targets.push(VisitTarget { position, visits });
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::priors::child_logits;
    use crate::search::testing::position;

    #[test]
    fn the_targets_are_the_trees_visits_at_legal_children() {
        let start = position(
            &[
                ("r1b3", "g3y1", ""),
                ("y1b2", "", "r1r1g1g1g3"),
                ("g2", "y1", ""),
            ],
            0,
        );
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let targets = visit_targets(&start, &rules, &tunables, 3000, 50);
        assert_eq!(targets[0].position, start);
        // The root's children share the visits of all but the first
        // iteration (which expands it).
        let root_total: u32 = targets[0].visits.iter().map(|&(_, visits)| visits).sum();
        assert!((2990..=3000).contains(&root_total), "{root_total}");
        assert!(targets.len() > 3, "{}", targets.len());
        for target in &targets {
            let mut children = Vec::new();
            child_logits(&target.position, &rules, &tunables, &mut children);
            for &(action, _) in &target.visits {
                assert!(
                    children.iter().any(|&(_, legal)| legal == action),
                    "{action} is not a child"
                );
            }
        }
        // Deterministic.
        assert_eq!(targets, visit_targets(&start, &rules, &tunables, 3000, 50));
    }
}
