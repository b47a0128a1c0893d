//! The max-n tree of the multi-player search, and how several threads grow
//! it.
//!
//! **One tree per thread (root parallelism).** With `threads` above one,
//! each thread grows a tree of its own from the same root with its own
//! random stream, and the turn is read from all the trees together: at each
//! step of the turn the choice with the most visits summed over the trees
//! that reached it (the same choice the single tree's most visited child
//! is, when there is one tree). The two-player search shares one tree
//! between threads instead, on atomics over its packed 128-byte position;
//! the multi-player nodes own a `Vec` position and a `Vec` of edges, so a
//! shared tree would need a lock per node on every playout. Separate trees
//! need no synchronisation at all until the end, so the playout rate grows
//! with the cores; what they lose is depth, since each tree holds only its
//! share of the playouts, and at the short searches a turn gets that costs
//! little (the choice of a whole turn is made near the root, where the
//! summed visits count as much as one big tree's).
//!
//! **Determinism.** One thread runs on the caller's thread with the
//! search's own random stream, exactly as the search did before it had
//! threads: with a seed and a node limit it gives the same turn every time.
//! With more threads the trees are each deterministic, but a deadline or
//! `stop` cuts them at moments that vary from run to run.
//!
//! **Bounds.** The playouts are split evenly between the trees (the total
//! is the node limit); each tree stops at the shared deadline and stop
//! flag, and at its share of [`super::MAX_TREE_NODES`], so that all trees
//! together stay within one tree's memory.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat, MAX_PLAYERS};
use crate::rules::{Rules, TurnState};

use super::{evaluate, keep_sensible_setups, random_turn, MultiEdge, MAX_TREE_NODES};

/// One node: its position, its choices with the child each leads to once
/// expanded, and the playouts through it with their summed shares.
pub(super) struct Node {
    position: MultiPosition,
    edges: Vec<(MultiEdge, Option<usize>)>,
    visits: u32,
    totals: evaluate::Shares,
}

impl Node {
    fn new(position: MultiPosition, rules: &Rules) -> Node {
        let edges = edges(&position, rules)
            .into_iter()
            .map(|edge| (edge, None))
            .collect();
        Node {
            position,
            edges,
            visits: 0,
            totals: [0.0; MAX_PLAYERS],
        }
    }
}

/// The choices at a position: its legal actions, and ending the turn where
/// the turn may end (not at its start, where ending is the `Pass` action,
/// and not where the rules refuse the end).
fn edges(position: &MultiPosition, rules: &Rules) -> Vec<MultiEdge> {
    if position.outcome() != MultiOutcome::Ongoing {
        return Vec::new();
    }
    let mut actions = Vec::new();
    position.legal_actions(rules, &mut actions);
    keep_sensible_setups(&mut actions);
    let mut edges: Vec<MultiEdge> = actions.into_iter().map(MultiEdge::Act).collect();
    if position.turn_state() != TurnState::Start && position.clone().end_turn(rules).is_ok() {
        edges.push(MultiEdge::End);
    }
    edges
}

/// Plays an edge on a copy of `position`.
fn play(position: &MultiPosition, rules: &Rules, edge: MultiEdge) -> MultiPosition {
    let mut next = position.clone();
    match edge {
        MultiEdge::Act(action) => next.apply_unchecked(rules, action),
        MultiEdge::End => {
            // The edge list only offers ends the rules accept.
            let _ = next.end_turn(rules);
        }
    }
    next
}

/// What every tree of one search shares: how to select and score, and
/// when to stop.
pub(super) struct Growth<'a> {
    /// The UCT exploration constant.
    pub exploration: f64,
    /// Rounds of random turns before the evaluation (0: none).
    pub playout_turns: u32,
    /// Whether the other players minimise the root mover's share.
    pub paranoid: bool,
    /// Set from another thread to end the playouts (the protocol's `stop`).
    pub stop: Option<&'a AtomicBool>,
    /// When the playouts end, whatever the node limit says.
    pub deadline: Option<Instant>,
}

impl Growth<'_> {
    /// Whether the playouts must end now: the deadline has passed or `stop`
    /// is set.
    fn must_stop(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Acquire))
            || self.deadline.is_some_and(|end| Instant::now() >= end)
    }
}

/// The trees grown from `position` by `threads` threads (one: on this
/// thread, with `random`) with `iterations` playouts in all, as the module
/// docs say.
pub(super) fn grow_trees(
    position: &MultiPosition,
    rules: &Rules,
    iterations: u32,
    threads: usize,
    random: &mut SmallRng,
    growth: &Growth,
) -> Vec<Vec<Node>> {
    let iterations = iterations.max(1);
    let threads = threads.clamp(1, iterations as usize);
    if threads == 1 {
        return vec![grow(
            position,
            rules,
            iterations,
            MAX_TREE_NODES,
            random,
            growth,
        )];
    }
    let seeds: Vec<u64> = (0..threads).map(|_| random.random()).collect();
    let share = iterations / threads as u32;
    let extra = iterations as usize % threads;
    let node_cap = MAX_TREE_NODES / threads;
    // Each tree is built on a thread of its own, so the threads share
    // nothing but the read-only root, rules and stop signals; the scope
    // joins them all before the trees are read.
    std::thread::scope(|scope| {
        let workers: Vec<_> = seeds
            .iter()
            .enumerate()
            .map(|(index, &seed)| {
                let playouts = share + u32::from(index < extra);
                std::thread::Builder::new()
                    .name(format!("multi-tree-{index}"))
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, move || {
                        let mut random = SmallRng::seed_from_u64(seed);
                        grow(position, rules, playouts, node_cap, &mut random, growth)
                    })
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|worker| {
                // A thread the system refuses leaves its share unplayed; a
                // tree that panicked is left out.
                worker.ok()?.join().ok()
            })
            .collect()
    })
}

/// One tree of up to `iterations` playouts and `node_cap` nodes.
fn grow(
    position: &MultiPosition,
    rules: &Rules,
    iterations: u32,
    node_cap: usize,
    random: &mut SmallRng,
    growth: &Growth,
) -> Vec<Node> {
    let mut nodes = vec![Node::new(position.clone(), rules)];
    for iteration in 0..iterations.max(1) {
        if (iteration % 16 == 15 && growth.must_stop()) || nodes.len() >= node_cap {
            break;
        }
        iterate(&mut nodes, rules, random, growth);
    }
    nodes
}

/// The playouts of all the trees and the root's mean share per seat over
/// them, for the report.
pub(super) fn root_report(trees: &[Vec<Node>]) -> (u64, evaluate::Shares) {
    let visits: u64 = trees.iter().map(|tree| u64::from(tree[0].visits)).sum();
    let mut shares = [0.0; MAX_PLAYERS];
    for tree in trees {
        for (share, total) in shares.iter_mut().zip(tree[0].totals) {
            *share += total;
        }
    }
    for share in &mut shares {
        *share /= visits.max(1) as f64;
    }
    (visits, shares)
}

/// The turn the trees choose for `mover`: from the root, the choice with
/// the most visits summed over the trees that expanded it (the last of
/// equals, as one tree's most visited child), until the turn ends or no
/// tree looked further.
pub(super) fn chosen_turn(trees: &[Vec<Node>], mover: Seat) -> Vec<MultiAction> {
    let mut turn = Vec::new();
    // The node of each tree at the current step; all hold one position.
    let mut here: Vec<(usize, usize)> = (0..trees.len()).map(|tree| (tree, 0)).collect();
    let Some(&(first_tree, _)) = here.first() else {
        return turn;
    };
    let mut first = &trees[first_tree][0];
    loop {
        let child_of = |edge: usize| {
            here.iter()
                .filter_map(move |&(tree, node)| Some((tree, trees[tree][node].edges[edge].1?)))
        };
        let mut best: Option<(usize, u64)> = None;
        for edge in 0..first.edges.len() {
            let mut reached = false;
            let mut visits = 0;
            for (tree, child) in child_of(edge) {
                reached = true;
                visits += u64::from(trees[tree][child].visits);
            }
            if reached && best.is_none_or(|(_, most)| visits >= most) {
                best = Some((edge, visits));
            }
        }
        let next: Vec<(usize, usize)> =
            best.map_or(Vec::new(), |(edge, _)| child_of(edge).collect());
        match best.map(|(edge, _)| first.edges[edge].0) {
            Some(MultiEdge::Act(action))
                if trees[next[0].0][next[0].1].position.side_to_move() == mover =>
            {
                turn.push(action);
                here = next;
                first = &trees[here[0].0][here[0].1];
            }
            Some(MultiEdge::End) => break,
            _ => {
                // Unexplored here: end if the turn may end, else take the
                // first legal choice that keeps the turn going.
                if first.position.turn_state() == TurnState::Start {
                    if let Some(&(MultiEdge::Act(action), _)) = first.edges.first() {
                        turn.push(action);
                    }
                }
                break;
            }
        }
    }
    turn
}

/// One playout: select by each mover's UCT, expand one node, play random
/// turns, score, and add the shares along the path.
fn iterate(nodes: &mut Vec<Node>, rules: &Rules, random: &mut SmallRng, growth: &Growth) {
    let mut path = vec![0];
    let mut index = 0;
    let root = nodes[0].position.side_to_move() as usize;
    loop {
        let node = &nodes[index];
        if node.edges.is_empty() {
            break;
        }
        let mover = node.position.side_to_move() as usize;
        let paranoid = growth.paranoid && mover != root;
        let unexplored: Vec<usize> = (0..node.edges.len())
            .filter(|&edge| node.edges[edge].1.is_none())
            .collect();
        if !unexplored.is_empty() {
            let edge = unexplored[random.random_range(0..unexplored.len())];
            let child = Node::new(play(&node.position, rules, node.edges[edge].0), rules);
            nodes.push(child);
            let child_index = nodes.len() - 1;
            nodes[index].edges[edge].1 = Some(child_index);
            path.push(child_index);
            index = child_index;
            break;
        }
        let parent_visits = (node.visits.max(1) as f64).ln();
        let exploration = growth.exploration;
        let (_, best) = node
            .edges
            .iter()
            .filter_map(|&(_, child)| child)
            .map(|child| {
                let child_node = &nodes[child];
                let visits = child_node.visits.max(1) as f64;
                let own = if paranoid {
                    visits - child_node.totals[root]
                } else {
                    child_node.totals[mover]
                };
                let value = own / visits + exploration * (parent_visits / visits).sqrt();
                (value, child)
            })
            .fold((f64::MIN, 0), |best, candidate| {
                if candidate.0 > best.0 {
                    candidate
                } else {
                    best
                }
            });
        path.push(best);
        index = best;
    }
    let mut position = nodes[index].position.clone();
    for _ in 0..growth.playout_turns * position.players() as u32 {
        if position.outcome() != MultiOutcome::Ongoing {
            break;
        }
        random_turn(&mut position, rules, random);
    }
    let result = evaluate::evaluated_shares(&position);
    for &visited in &path {
        let node = &mut nodes[visited];
        node.visits += 1;
        for (total, share) in node.totals.iter_mut().zip(result) {
            *total += share;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::multi::Victory;

    fn growth() -> Growth<'static> {
        Growth {
            exploration: 0.7,
            playout_turns: 0,
            paranoid: false,
            stop: None,
            deadline: None,
        }
    }

    #[test]
    fn threads_split_the_playouts_and_one_thread_repeats() {
        let start = MultiPosition::start(3, Victory::LastManStanding).unwrap();
        let rules = Rules::STANDARD;
        let mut random = SmallRng::seed_from_u64(5);
        let trees = grow_trees(&start, &rules, 301, 3, &mut random, &growth());
        assert_eq!(trees.len(), 3);
        let visits: Vec<u32> = trees.iter().map(|tree| tree[0].visits).collect();
        assert_eq!(visits, vec![101, 100, 100]);
        assert_eq!(root_report(&trees).0, 301);
        let turn = chosen_turn(&trees, 0);
        assert_eq!(turn.len(), 1, "a setup is one action: {turn:?}");

        let one = |seed| {
            let mut random = SmallRng::seed_from_u64(seed);
            let trees = grow_trees(&start, &rules, 200, 1, &mut random, &growth());
            (trees.len(), root_report(&trees).1, chosen_turn(&trees, 0))
        };
        assert_eq!(one(9), one(9));
    }

    #[test]
    fn summed_visits_choose_across_trees() {
        let start = MultiPosition::start(3, Victory::LastManStanding).unwrap();
        let rules = Rules::STANDARD;
        let mut random = SmallRng::seed_from_u64(5);
        let trees = grow_trees(&start, &rules, 400, 2, &mut random, &growth());
        let root_edges = trees[0][0].edges.len();
        let summed = |edge: usize| -> u32 {
            trees
                .iter()
                .filter_map(|tree| tree[0].edges[edge].1.map(|child| tree[child].visits))
                .sum()
        };
        let most = (0..root_edges).map(summed).max().unwrap();
        let turn = chosen_turn(&trees, 0);
        let chosen = trees[0][0]
            .edges
            .iter()
            .position(|&(edge, _)| edge == MultiEdge::Act(turn[0]))
            .unwrap();
        assert_eq!(summed(chosen), most);
    }
}
