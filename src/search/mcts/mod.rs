//! The tree search: selection, expansion, evaluation, backup and proofs.
//!
//! Each tree level is one action of the current turn, plus an explicit
//! end-of-turn edge (packed as 0); only ending the turn hands the move over,
//! so values are negated exactly when the mover changes between a node and
//! its child, never by depth parity. An action that finishes the turn's core
//! with no catastrophe left to fire ends the turn at once (its child is the
//! opponent's start-of-turn node), which saves a node per ordinary turn.
//!
//! Positions are not stored: every iteration replays the path from the root.
//! New nodes are scored by the static evaluation (mid-turn nodes by the
//! position after ending the turn now) and expanded on their second visit.
//! Start-of-turn nodes ask the win-in-1 solver: a mover who can eliminate
//! the opponent is a proven win and is never expanded (MCTS-Solver). Proofs
//! move up when a mover has a winning child, or when every legal child is
//! materialised and proven. Selection is PUCT with first-play urgency and
//! progressive widening in prior order; proven losses do not count against
//! the widening budget, so a refuted line makes room for the next one.
//!
//! # The files
//! This file holds what the workers share ([`Shared`]) and one iteration
//! ([`Worker::iterate`]: descend, follow each edge, create a leaf, back
//! up); `selection.rs` chooses the child at each node, `expansion.rs`
//! creates, scores and expands nodes, `step.rs` follows an edge on the
//! replayed position, and `backup.rs` holds the rules for backed-up values
//! (draw contempt, per-turn discount) and the proofs.
//!
//! # The root's checks
//! The tree does not stand alone: the root's exact checks (`root.rs`,
//! `threats/`) steer it. In check, the actions of the root's turn are
//! restricted to the safe turns ([`Shared::root_filter`] holds the
//! positions they pass through, and expansion lists only the actions that
//! lead to one of them). A turn the two-turn check refutes during the
//! search is marked in the tree as a proven loss, so selection moves to the
//! alternatives at once, and compaction keeps the children of such nodes
//! whatever their visits, since the tree could not find that proof again
//! itself. A proof of the root ends the search.
//!
//! # Threads
//! Every worker descends the shared tree with relaxed atomic statistics and
//! a virtual loss on each node of its path: a node another thread is
//! descending through counts one more visit, lost, so that threads spread
//! over the tree instead of crowding into one path (without it they would
//! search a different, narrower tree). What many threads would fight over
//! is kept private where it can be: nodes and edges come from each worker's
//! reserve (`tree/`), the visits and values of the root and of the other
//! hot nodes (those of [`HOT_VISITS`] visits or more, which take no virtual
//! loss) and of the edges out of them are added in batches, as are the
//! iteration counts, every 16 iterations (`run.rs`).
//!
//! The cost of a second thread is mostly the cache lines of the nodes both
//! threads read after the other wrote them, spread over the whole tree, not
//! the locked instructions themselves (replacing them by plain stores,
//! racy and wrong, gains only a few per cent). The hot threshold trades
//! the two: below it, a node's virtual loss keeps the threads apart where
//! they would otherwise meet; above it, a batch per thread of late visits
//! changes its mean by little. A threshold a sixteenth as high runs two
//! threads a few per cent faster but searches worse: the virtual losses on
//! nodes of a few hundred visits are worth more than the locked adds they
//! cost.
//!
//! One thread alone (`Shared::exclusive`) skips the locked instructions
//! and the virtual loss altogether, with the same results, so the bench
//! signature does not depend on this machinery.

mod backup;
mod expansion;
mod selection;
mod step;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

pub(crate) use backup::{flip_proof, proof_for, proof_value, try_prove, Backup};
pub(crate) use selection::Selection;
pub(crate) use step::{advance, advance_hinted, Step};

use super::eval;
use super::quiescence;
use super::report::PhaseTimes;
use super::solver::Solver;
use super::tree::*;
use super::tunables::Tunables;
use crate::rules::{Outcome, Position, Rules};
use expansion::{write_node, Creation};
use step::FollowedEdge;

/// What all workers of one search share.
pub(crate) struct Shared<'a> {
    pub tree: &'a Tree,
    pub rules: Rules,
    pub tunables: &'a Tunables,
    pub root: u32,
    pub root_position: Position,
    pub root_turn: u32,
    /// Sorted hashes of earlier start-of-turn positions in the game.
    pub history: &'a [u64],
    /// Sorted hashes of the positions on safe turns, when the root is in check.
    pub root_filter: Option<&'a [u64]>,
    /// Set from outside to stop the search.
    pub stop: &'a AtomicBool,
    /// Set by the search itself when a limit is reached.
    pub halt: AtomicBool,
    /// Iterations, depth total and deepest path, added by each worker's
    /// flush; each alone in its cache lines, away from the fields every
    /// iteration reads.
    pub iterations: CachePadded<AtomicU64>,
    pub depth_sum: CachePadded<AtomicU64>,
    pub max_depth: CachePadded<AtomicU32>,
    pub node_limit: u64,
    /// How values of draws and of distant leaves are backed up.
    pub backup: Backup,
    /// Recycles of the tree during this search (see `Tree::recycle`).
    pub recycles: AtomicU32,
    /// Whether one thread searches alone. It then updates the statistics
    /// with plain loads and stores instead of locked read-modify-writes and
    /// keeps no virtual loss, with the same results: no other thread reads
    /// them, and along one path a child is never an ancestor (the graph is
    /// acyclic), so selection never saw a virtual loss of its own thread.
    pub exclusive: bool,
    /// Selection's per-visit-count terms, precomputed.
    pub selection: Selection,
    /// The workers' phase times, handed in as each stops (`phase-timing`).
    pub phases: Mutex<PhaseTimes>,
}

impl Shared<'_> {
    /// What a turn completed outside the tree must avoid: the game's earlier
    /// positions, each worth the tree's draw to the root mover.
    pub(crate) fn repeats(&self) -> crate::search::extract::Repeats<'_> {
        crate::search::extract::Repeats {
            history: self.history,
            draw: self
                .backup
                .draw_for(self.root_position.side_to_move().index()),
        }
    }
}

/// Adds one to a counter: a plain load and store when one thread searches.
#[inline]
fn increment(counter: &AtomicU32, exclusive: bool) {
    if exclusive {
        counter.store(
            counter.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
    } else {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// Visits from which a node is hot when several threads search: every
/// thread passes it, so instead of writing its statistics (and those of the
/// edges out of it) at every iteration, which moves its cache line between
/// the cores that all read it in selection, each thread adds them in
/// batches at its flush, like the root's, and takes no virtual loss on it
/// (a few more visits move its mean by under a tenth of a percent).
/// Selection there reads statistics up to a batch per thread late.
pub(crate) const HOT_VISITS: u32 = 1024;

impl Shared<'_> {
    /// Whether the workers should stop.
    #[inline]
    pub fn stopping(&self) -> bool {
        self.halt.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed)
    }
}

/// Per-thread scratch space, and statistics not yet added to [`Shared`]
/// (batched so that threads do not fight over one cache line).
pub(crate) struct Worker {
    solver: Solver,
    /// Nodes and edges this thread has taken from the arenas.
    reserve: Reserve,
    /// Visits and value sum (fixed point) backed up into the root but not
    /// yet added to it, when several threads search: every iteration passes
    /// the root, whose cache line would otherwise move between the cores at
    /// every backup. Selection at the root reads these a batch late.
    pending_root: (u32, i64),
    /// The same for the other hot nodes (see [`HOT_VISITS`]): index, visits
    /// and value sum not yet added.
    pending_nodes: Vec<(u32, u32, i64)>,
    /// Visits of edges out of hot nodes not yet added: index, visits.
    pending_edges: Vec<(u32, u32)>,
    scored: Vec<(f32, u32)>,
    path: Vec<u32>,
    /// For each node of `path`, whether it is hot: it took no virtual loss
    /// and its statistics go to `pending_nodes`.
    hot: Vec<bool>,
    starts: Vec<u64>,
    /// The last iteration's path below the root: each edge's action and
    /// where following it led, which the next iteration copies while its
    /// path is the same ([`Worker::iterate`]).
    steps: Vec<FollowedEdge>,
    /// The root position and turn the path in `steps` starts from.
    steps_root: (Position, u32),
    pending_iterations: u64,
    pending_depth: u64,
    max_depth: u32,
    /// Where this worker's iterations spent their time since it last handed
    /// them in (only with the `phase-timing` feature).
    phases: PhaseTimes,
}

/// The time-stamp counter with the `phase-timing` feature, else 0 (and the
/// sums of differences of it compile to nothing).
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(all(feature = "phase-timing", target_arch = "x86_64"))]
    // SAFETY: reading the time-stamp counter has no preconditions.
    unsafe {
        std::arch::x86_64::_rdtsc()
    }
    #[cfg(not(all(feature = "phase-timing", target_arch = "x86_64")))]
    0
}

impl Default for Worker {
    fn default() -> Worker {
        Worker {
            solver: Solver::default(),
            reserve: Reserve::default(),
            pending_root: (0, 0),
            pending_nodes: Vec::with_capacity(32),
            pending_edges: Vec::with_capacity(32),
            scored: Vec::with_capacity(256),
            path: Vec::with_capacity(64),
            hot: Vec::with_capacity(64),
            starts: Vec::with_capacity(16),
            steps: Vec::with_capacity(64),
            steps_root: (Position::start(), 0),
            pending_iterations: 0,
            pending_depth: 0,
            max_depth: 0,
            phases: PhaseTimes::default(),
        }
    }
}

/// Where a descent ended: the value to back up, for which player, and
/// whether it is a proof (which then moves up the path too).
#[derive(Clone, Copy)]
struct Leaf {
    value: f32,
    mover: usize,
    proven: bool,
}

impl Leaf {
    #[inline]
    fn new(value: f32, mover: usize, proven: bool) -> Leaf {
        Leaf {
            value,
            mover,
            proven,
        }
    }
}

impl Worker {
    /// The heuristic value of a leaf for its mover, knowing whether the
    /// opponent would win at once if the mover passed (a bounded solver call,
    /// so one leaf never stalls the search).
    fn leaf_value(&mut self, position: &Position, rules: &Rules, tunables: &Tunables) -> f32 {
        let threat = super::leaf_threat(&mut self.solver, position, rules);
        let value = eval::value(position, tunables, threat);
        quiescence::with_sacrifice_shot(position, rules, tunables, value)
    }

    /// Adds this worker's phase times to the search's and starts its own
    /// afresh (a worker stopping; with the `phase-timing` feature only).
    pub fn hand_in_phases(&mut self, shared: &Shared) {
        if PhaseTimes::COUNTED {
            let phases = std::mem::take(&mut self.phases);
            shared
                .phases
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(&phases);
        }
    }

    /// Starts a search's statistics afresh.
    pub fn reset_statistics(&mut self) {
        self.pending_iterations = 0;
        self.pending_depth = 0;
        self.max_depth = 0;
    }

    /// Iterations run but not yet added to the shared count.
    pub fn pending(&self) -> u64 {
        self.pending_iterations
    }

    /// Adds this worker's pending statistics to the shared ones; returns the
    /// new shared iteration count.
    pub fn flush(&mut self, shared: &Shared) -> u64 {
        let done = shared
            .iterations
            .fetch_add(self.pending_iterations, Ordering::Relaxed)
            + self.pending_iterations;
        shared
            .depth_sum
            .fetch_add(self.pending_depth, Ordering::Relaxed);
        shared
            .max_depth
            .fetch_max(self.max_depth, Ordering::Relaxed);
        self.pending_iterations = 0;
        self.pending_depth = 0;
        let (visits, value_sum) = std::mem::take(&mut self.pending_root);
        if visits > 0 {
            let root = shared.tree.node(shared.root);
            root.value_sum.fetch_add(value_sum, Ordering::Relaxed);
            root.visits.fetch_add(visits, Ordering::Relaxed);
        }
        for (index, visits, value_sum) in self.pending_nodes.drain(..) {
            let node = shared.tree.node(index);
            node.value_sum.fetch_add(value_sum, Ordering::Relaxed);
            node.visits.fetch_add(visits, Ordering::Relaxed);
        }
        for (index, visits) in self.pending_edges.drain(..) {
            shared
                .tree
                .edge(index)
                .visits
                .fetch_add(visits, Ordering::Relaxed);
        }
        done
    }

    /// Creates the root node for a search if it does not exist yet.
    pub fn ensure_root(
        &mut self,
        tree: &Tree,
        rules: &Rules,
        tunables: &Tunables,
        position: &Position,
        turn: u32,
    ) -> Option<u32> {
        let key = node_key(position, turn);
        if let Some(node) = tree.lookup(key) {
            // A reused node may have been a repetition on the old path; as
            // the root it is simply the current position. A repetition was
            // never evaluated, and the draw contempt needs the root's value.
            let flags = tree
                .node(node)
                .flags
                .fetch_and(!FLAG_REPETITION, Ordering::Relaxed);
            if flags & FLAG_REPETITION != 0 {
                let value = self.leaf_value(position, rules, tunables);
                tree.node(node)
                    .eval
                    .store(value.to_bits(), Ordering::Relaxed);
            }
            return Some(node);
        }
        let mover = position.side_to_move().index();
        let value = self.leaf_value(position, rules, tunables);
        let node = tree.allocate_node(&mut self.reserve)?;
        write_node(
            tree.node(node),
            key,
            mover as u8 | FLAG_START,
            UNPROVEN,
            value,
            turn,
        );
        Some(tree.publish(key, node))
    }

    /// One iteration: descend, create or evaluate a leaf, back up.
    pub fn iterate(&mut self, shared: &Shared) {
        let started = ticks();
        let mut position = shared.root_position;
        let mut turn = shared.root_turn;
        self.path.clear();
        self.hot.clear();
        self.starts.clear();
        self.starts.push(position.hash());
        // Successive iterations mostly share the top of their paths: those
        // edges' positions are copied from the last path, not replayed.
        // After the first edge that differs, `steps` ends at that edge, so
        // no later one can match.
        if self.steps_root.1 != turn || !self.steps_root.0.identical(&position) {
            self.steps.clear();
            self.steps_root = (position, turn);
        }
        let leaf = self.descend(shared, &mut position, &mut turn);
        // `turn` is now the leaf's turn; each node sees the leaf's value
        // discounted by how many turns below it the leaf lies.
        let backing_up = ticks();
        self.back_up(shared, leaf, turn);
        let finished = ticks();
        self.phases.backup += finished - backing_up;
        self.phases.total += finished - started;
        self.phases.iterations += u64::from(PhaseTimes::COUNTED);
        let depth = self.path.len() as u32;
        self.pending_iterations += 1;
        self.pending_depth += depth as u64;
        self.max_depth = self.max_depth.max(depth);
    }

    /// Descends from the root to a leaf, following (and counting) the
    /// selected edges and creating the node where an edge has none yet;
    /// `position` and `turn` are left at the leaf's.
    #[inline]
    fn descend(&mut self, shared: &Shared, position: &mut Position, turn: &mut u32) -> Leaf {
        let tree = shared.tree;
        let mut node_id = shared.root;
        let mut depth = 0;
        loop {
            let node = tree.node(node_id);
            // The edges out of a hot node, or out of the root, which every
            // iteration passes, add their visits in batches too.
            let batched =
                self.enter(shared, node_id) || (node_id == shared.root && !shared.exclusive);
            let mover = node.mover();
            let edge_index = match self.choose(shared, node_id, position, *turn) {
                Ok(edge_index) => edge_index,
                Err(leaf) => return leaf,
            };
            let edge = tree.edge(edge_index);
            self.count_edge_visit(edge, edge_index, batched, shared.exclusive);
            let action = edge.action.load(Ordering::Relaxed);
            let mut child = edge.child.load(Ordering::Acquire);
            // An existing child tells whether the edge ends the turn: the
            // mover changes exactly then.
            let ends = (child != 0).then(|| tree.node(child).mover() != mover);
            if child != 0 {
                // The child's node is in the cache (selection just read it);
                // its children's block is next, and is fetched while the
                // action is applied.
                let (first, count, _) = tree.node(child).children();
                tree.prefetch_edges(first, count);
            }
            let before = ticks();
            let step = self.follow(&shared.rules, depth, position, turn, action, ends);
            depth += 1;
            self.phases.advance += ticks() - before;
            if step == Step::Invalid {
                let value = shared.backup.stretched(node.static_value(), mover);
                return Leaf::new(value, mover, false);
            }
            if let Step::Ended(outcome) = step {
                if let Some(leaf) = self.repetition(shared, position, outcome, child) {
                    return leaf;
                }
            }
            if child == 0 {
                match self.create_child(shared, edge, position, *turn, step) {
                    Ok(index) => child = index,
                    Err(leaf) => return leaf,
                }
            }
            node_id = child;
        }
    }

    /// At a node on the path: the edge to follow, or the leaf the descent
    /// ends in (a proven node, a repetition, a node not yet expanded, or
    /// one with no child left to try). Expands the node on its second visit.
    #[inline]
    fn choose(
        &mut self,
        shared: &Shared,
        node_id: u32,
        position: &Position,
        turn: u32,
    ) -> Result<u32, Leaf> {
        let tree = shared.tree;
        let backup = &shared.backup;
        let node = tree.node(node_id);
        let mover = node.mover();
        let proof = node.proof.load(Ordering::Acquire);
        if proof != UNPROVEN {
            return Err(Leaf::new(backup.proof_value(proof, mover), mover, true));
        }
        if node.flags.load(Ordering::Relaxed) & FLAG_REPETITION != 0 {
            return Err(Leaf::new(backup.draw_for(mover), mover, false));
        }
        let mut state = node.state.load(Ordering::Acquire);
        let before = ticks();
        let expanded = state == UNEXPANDED
            && (node_id == shared.root || node.visits.load(Ordering::Relaxed) > 0)
            && self.expand(shared, node_id, position, turn);
        self.phases.expand += ticks() - before;
        if expanded {
            state = EXPANDED;
            let proof = node.proof.load(Ordering::Acquire);
            if proof != UNPROVEN {
                return Err(Leaf::new(backup.proof_value(proof, mover), mover, true));
            }
        }
        if state != EXPANDED && state != WIDENING {
            let value = backup.stretched(node.static_value(), mover);
            return Err(Leaf::new(value, mover, false));
        }
        let before = ticks();
        let selected = self.select(shared, node_id, position);
        self.phases.select += ticks() - before;
        let Some(edge_index) = selected else {
            // Every materialised child is a proven loss and none is left.
            if try_prove(tree, node_id) {
                let proof = node.proof.load(Ordering::Acquire);
                return Err(Leaf::new(backup.proof_value(proof, mover), mover, true));
            }
            return Err(Leaf::new(-1.0, mover, false));
        };
        Ok(edge_index)
    }

    /// Counts a visit of the selected edge: at once, or in this worker's
    /// batch when it leaves a hot node or the root (`batched`).
    #[inline]
    fn count_edge_visit(&mut self, edge: &Edge, edge_index: u32, batched: bool, exclusive: bool) {
        if batched {
            match self
                .pending_edges
                .iter_mut()
                .find(|entry| entry.0 == edge_index)
            {
                Some(entry) => entry.1 += 1,
                None => self.pending_edges.push((edge_index, 1)),
            }
        } else {
            increment(&edge.visits, exclusive);
        }
    }

    /// Follows the edge of `action` at `depth` of the path: the position,
    /// turn and step are copied from the last iteration's path while it is
    /// the same, and replayed (and recorded for the next) from where it
    /// differs.
    #[inline]
    fn follow(
        &mut self,
        rules: &Rules,
        depth: usize,
        position: &mut Position,
        turn: &mut u32,
        action: u32,
        ends: Option<bool>,
    ) -> Step {
        match self.steps.get(depth) {
            Some(followed) if followed.action == action => {
                #[cfg(debug_assertions)]
                {
                    let (mut replayed, mut replayed_turn) = (*position, *turn);
                    let step =
                        advance_hinted(&mut replayed, rules, action, &mut replayed_turn, ends);
                    debug_assert!(
                        replayed.identical(&followed.position)
                            && replayed_turn == followed.turn
                            && step == followed.step,
                        "the copied step of {action} differs from its replay"
                    );
                }
                *position = followed.position;
                *turn = followed.turn;
                followed.step
            }
            _ => {
                self.steps.truncate(depth);
                let step = advance_hinted(position, rules, action, turn, ends);
                self.steps.push(FollowedEdge {
                    action,
                    position: *position,
                    turn: *turn,
                    step,
                });
                step
            }
        }
    }

    /// After an edge that ended the turn with `outcome` at `position`:
    /// records the new turn's start, and returns the draw the descent ends
    /// in when the existing `child` repeats an earlier position.
    #[inline]
    fn repetition(
        &mut self,
        shared: &Shared,
        position: &Position,
        outcome: Outcome,
        child: u32,
    ) -> Option<Leaf> {
        let hash = position.hash();
        // A repetition depends on the path and the game so far, which
        // change under tree reuse, so it is checked on every visit, not
        // only when the node is created.
        let repeats = outcome == Outcome::Ongoing
            && child != 0
            && (shared.history.binary_search(&hash).is_ok() || self.starts.contains(&hash));
        self.starts.push(hash);
        if !repeats {
            return None;
        }
        // The repeated node takes the draw's value too, so that its mean
        // (what selection reads) is the draw's value, not whatever it held
        // when it was created.
        let repeated = shared.tree.node(child);
        self.enter(shared, child);
        let repeated_mover = repeated.mover();
        Some(Leaf::new(
            shared.backup.draw_for(repeated_mover),
            repeated_mover,
            false,
        ))
    }

    /// Gives the edge, which has none yet, its child: the node found or
    /// created for `position`, to descend into, or the leaf the descent
    /// ends in (the node just created, or an unstored leaf when the arena
    /// is full).
    #[inline]
    fn create_child(
        &mut self,
        shared: &Shared,
        edge: &Edge,
        position: &Position,
        turn: u32,
        step: Step,
    ) -> Result<u32, Leaf> {
        let before = ticks();
        let creation = self.create(shared, position, turn, step);
        self.phases.create += ticks() - before;
        match creation {
            Creation::Created(index, value) => {
                edge.child.store(index, Ordering::Release);
                let created = shared.tree.node(index);
                self.enter(shared, index);
                let proof = created.proof.load(Ordering::Relaxed);
                let repetition = created.flags.load(Ordering::Relaxed) & FLAG_REPETITION != 0;
                let value = if proof == PROVEN_DRAW || repetition {
                    shared.backup.draw_for(created.mover())
                } else if proof == UNPROVEN {
                    shared.backup.stretched(value, created.mover())
                } else {
                    value
                };
                Err(Leaf::new(value, created.mover(), proof != UNPROVEN))
            }
            Creation::Existing(index) => {
                edge.child.store(index, Ordering::Release);
                Ok(index)
            }
            Creation::Full(value, mover) => Err(Leaf::new(
                shared.backup.stretched(value, mover),
                mover,
                false,
            )),
        }
    }

    /// Backs the leaf's value up the path (found at `leaf_turn`), each
    /// node's share signed for its mover and discounted by the turns
    /// between, and moves a proven leaf's proof up as far as it goes.
    #[inline]
    fn back_up(&mut self, shared: &Shared, leaf: Leaf, leaf_turn: u32) {
        let tree = shared.tree;
        let backup = &shared.backup;
        let exclusive = shared.exclusive;
        for (&index, &hot) in self.path.iter().zip(&self.hot).rev() {
            let node = tree.node(index);
            let node_turn = node.turn.load(Ordering::Relaxed);
            let discounted = leaf.value * backup.factor(leaf_turn.saturating_sub(node_turn));
            let signed = if node.mover() == leaf.mover {
                discounted
            } else {
                -discounted
            };
            let amount = (signed as f64 * VALUE_SCALE) as i64;
            if index == shared.root && !exclusive {
                self.pending_root.0 += 1;
                self.pending_root.1 += amount;
                continue;
            }
            if hot {
                match self.pending_nodes.iter_mut().find(|entry| entry.0 == index) {
                    Some(entry) => {
                        entry.1 += 1;
                        entry.2 += amount;
                    }
                    None => self.pending_nodes.push((index, 1, amount)),
                }
                continue;
            }
            if exclusive {
                let sum = node.value_sum.load(Ordering::Relaxed).wrapping_add(amount);
                node.value_sum.store(sum, Ordering::Relaxed);
            } else {
                node.value_sum.fetch_add(amount, Ordering::Relaxed);
            }
            increment(&node.visits, exclusive);
            if index != shared.root && !exclusive {
                node.virtual_loss.fetch_sub(1, Ordering::Relaxed);
            }
        }
        if leaf.proven && self.path.len() >= 2 {
            for &index in self.path[..self.path.len() - 1].iter().rev() {
                if !try_prove(tree, index) {
                    break;
                }
            }
        }
    }

    /// Puts `index` on the path, with a virtual loss unless it is the root,
    /// one thread searches alone, or the node is hot (see [`HOT_VISITS`]).
    /// Returns whether it is hot.
    #[inline]
    fn enter(&mut self, shared: &Shared, index: u32) -> bool {
        let mut hot = false;
        if index != shared.root && !shared.exclusive {
            let node = shared.tree.node(index);
            hot = node.visits.load(Ordering::Relaxed) >= HOT_VISITS;
            if !hot {
                node.virtual_loss.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.path.push(index);
        self.hot.push(hot);
        hot
    }
}

/// Grows the bare tree (no root checks, one thread) from `position` at
/// turn 0 for `iterations`, or until it wants a recycle, with `history`
/// (sorted hashes of earlier positions) for repetitions. Returns the root,
/// or `None` if the tree cannot hold it. Deterministic: what the prior
/// distillation reads, and what the tree's unit tests grow.
pub(crate) fn grow_bare(
    tree: &Tree,
    rules: &Rules,
    tunables: &Tunables,
    position: &Position,
    history: &[u64],
    backup: Backup,
    iterations: u64,
) -> Option<u32> {
    let mut worker = Worker::default();
    let root = worker.ensure_root(tree, rules, tunables, position, 0)?;
    let stop = AtomicBool::new(false);
    let shared = Shared {
        tree,
        rules: *rules,
        tunables,
        root,
        root_position: *position,
        root_turn: 0,
        history,
        root_filter: None,
        stop: &stop,
        halt: AtomicBool::new(false),
        iterations: CachePadded(AtomicU64::new(0)),
        depth_sum: CachePadded(AtomicU64::new(0)),
        max_depth: CachePadded(AtomicU32::new(0)),
        node_limit: iterations,
        backup,
        recycles: AtomicU32::new(0),
        exclusive: true,
        selection: Selection::new(tunables),
        phases: Mutex::default(),
    };
    for _ in 0..iterations {
        if tree.wants_recycle() {
            break;
        }
        if tree.wants_bigger_table() {
            tree.grow_table(false);
        }
        worker.iterate(&shared);
    }
    Some(root)
}

#[cfg(test)]
mod tests;
