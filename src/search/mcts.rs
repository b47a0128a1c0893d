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
//! Threads: every worker descends the shared tree with a virtual loss on
//! each node of its path and relaxed atomic statistics. What many threads
//! would fight over is kept private where it can be: nodes and edges come
//! from each worker's reserve (`tree.rs`), the visits and values of the
//! root and of the other hot nodes (those of [`HOT_VISITS`] visits or more,
//! which take no virtual loss) and of the edges out of them are added in
//! batches, as are the iteration counts, every 16 iterations (`run.rs`).
//! One thread alone (`Shared::exclusive`) skips the locked instructions
//! and the virtual loss altogether, with the same results, so the bench
//! signature does not depend on this machinery.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::eval;
use super::facts::has_overpopulation;
use super::priors::scored_children;
use super::report::PhaseTimes;
use super::solver::Solver;
use super::tree::*;
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Outcome, Position, Rules, Slot, TurnState, SLOT_COUNT};

/// Edges materialised at a first expansion, then at the first widening.
const FIRST_BLOCK: u32 = 8;
const SECOND_BLOCK: u32 = 32;
/// States the in-tree solver may visit before answering "unknown".
const TREE_SOLVER_LIMIT: u64 = 1_000;

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
    fn terms(&self, visits: u32, start: bool) -> (u32, f32) {
        match self.table.get(visits as usize) {
            Some(&(allowed, at_start, inside)) => (allowed, if start { at_start } else { inside }),
            None => self.compute(visits, start),
        }
    }

    fn compute(&self, visits: u32, start: bool) -> (u32, f32) {
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

/// How leaf values are turned into backed-up values: draws scored with
/// contempt, and distant leaves discounted per turn.
///
/// Both exist so that a side that is ahead makes progress (issue 8 §3):
/// without them a repetition is worth 0 to both sides and a win in ten
/// turns is worth as much as a win in two, so a won position can drift into
/// a repetition or the turn limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Backup {
    /// The player to move at the root.
    pub root_mover: usize,
    /// A draw's value for the root mover: `-contempt`, less
    /// `draw_contempt` times the root's static value when that is positive,
    /// so a side ahead avoids draws all the more. Never above `-contempt`
    /// when behind, because a root that is barely behind by the evaluation
    /// (often in the opening) would otherwise steer into a repetition
    /// against an opponent it beats (measured against greedy).
    pub draw_value: f32,
    /// Per-turn factor on a leaf's value as it is backed up (1: none).
    /// A proof stores no distance, so once a node is proven its value
    /// counts in full from that node up: the discount orders the values of
    /// unproven lines, and a proven win is preferred by its proof anyway.
    pub discount: f32,
}

impl Backup {
    /// The backup rules for a search from a root whose static value for its
    /// mover is `root_value`.
    pub fn new(tunables: &Tunables, root_mover: usize, root_value: f32) -> Backup {
        Backup {
            root_mover,
            draw_value: -(tunables[Tunable::Contempt]
                + tunables[Tunable::DrawContempt] * root_value.clamp(0.0, 1.0))
            .min(1.0),
            discount: tunables[Tunable::TurnDiscount],
        }
    }

    /// Plain backups: a draw is worth 0 and nothing is discounted.
    #[cfg(test)]
    pub fn neutral() -> Backup {
        Backup {
            root_mover: 0,
            draw_value: 0.0,
            discount: 1.0,
        }
    }

    /// A draw's value for `mover`.
    #[inline]
    pub fn draw_for(&self, mover: usize) -> f32 {
        if mover == self.root_mover {
            self.draw_value
        } else {
            -self.draw_value
        }
    }

    /// A proof's value for the node's mover, draws with contempt.
    #[inline]
    pub fn proof_value(&self, proof: u8, mover: usize) -> f32 {
        match proof {
            PROVEN_DRAW => self.draw_for(mover),
            other => proof_value(other),
        }
    }

    /// The factor on a value found `turns` turns below a node.
    #[inline]
    pub fn factor(&self, turns: u32) -> f32 {
        if self.discount == 1.0 || turns == 0 {
            1.0
        } else {
            power(self.discount, turns)
        }
    }
}

/// `base` to the power `exponent`, out of line: inlined, the compiler
/// computed the power (a library call) on every backup step and kept it
/// only when the discount was not 1, which it never is by default.
#[inline(never)]
fn power(base: f32, exponent: u32) -> f32 {
    base.powi(exponent.min(i32::MAX as u32) as i32)
}

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

/// The value of a proof for the node's mover.
#[inline]
pub(crate) fn proof_value(proof: u8) -> f32 {
    match proof {
        PROVEN_WIN => 1.0,
        PROVEN_LOSS => -1.0,
        _ => 0.0,
    }
}

/// A proof seen from the other player's side.
#[inline]
pub(crate) fn flip_proof(proof: u8) -> u8 {
    match proof {
        PROVEN_WIN => PROVEN_LOSS,
        PROVEN_LOSS => PROVEN_WIN,
        other => other,
    }
}

/// A child's proof from the point of view of the parent's mover.
#[inline]
pub(crate) fn proof_for(tree: &Tree, child: u32, mover: usize) -> u8 {
    let node = tree.node(child);
    let proof = node.proof.load(Ordering::Acquire);
    if node.mover() == mover {
        proof
    } else {
        flip_proof(proof)
    }
}

/// Whether any catastrophe could be fired now.
pub(crate) fn any_catastrophe(position: &Position) -> bool {
    (0..SLOT_COUNT as Slot).any(|slot| has_overpopulation(position.system(slot).pieces()))
}

/// Where following an edge led.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Still inside the same turn.
    Inside,
    /// The turn ended with this outcome.
    Ended(Outcome),
    /// The edge could not be followed (never happens with a consistent tree).
    Invalid,
}

/// Follows an edge: applies the action, or ends the turn, and ends it
/// automatically when nothing but the end is left.
pub(crate) fn advance(position: &mut Position, rules: &Rules, action: u32, turn: &mut u32) -> Step {
    advance_hinted(position, rules, action, turn, None)
}

/// [`advance`], told by `ends` (when the child already exists) whether the
/// edge ends the turn, which saves looking for catastrophes.
pub(crate) fn advance_hinted(
    position: &mut Position,
    rules: &Rules,
    action: u32,
    turn: &mut u32,
    ends: Option<bool>,
) -> Step {
    if action == END_TURN {
        return match position.end_turn(rules) {
            Ok(outcome) => {
                *turn += 1;
                Step::Ended(outcome)
            }
            Err(_) => Step::Invalid,
        };
    }
    let Some(action) = Action::unpack(action) else {
        return Step::Invalid;
    };
    debug_assert!(
        position.check(rules, action).is_ok(),
        "tree edge {action:?} is illegal in {position:?}"
    );
    position.apply_unchecked(rules, action);
    let ends = match ends {
        Some(ends) => ends,
        None => position.turn_state() == TurnState::Done && !any_catastrophe(position),
    };
    if ends {
        let mut ended = *position;
        if let Ok(outcome) = ended.end_turn(rules) {
            *position = ended;
            *turn += 1;
            return Step::Ended(outcome);
        }
    }
    Step::Inside
}

/// One edge of a worker's last path: its action, and the position, turn
/// and step that following it gave.
#[derive(Clone, Copy)]
struct FollowedEdge {
    action: u32,
    position: Position,
    turn: u32,
    step: Step,
}

/// Result of looking up or creating a child.
enum Creation {
    /// A node created by this call: (index, value for its mover).
    Created(u32, f32),
    /// A node that already existed.
    Existing(u32),
    /// The arena is full: (value, mover) of the unstored leaf.
    Full(f32, usize),
}

impl Worker {
    /// The heuristic value of a leaf for its mover, knowing whether the
    /// opponent would win at once if the mover passed (a bounded solver call,
    /// so one leaf never stalls the search).
    fn leaf_value(&mut self, position: &Position, rules: &Rules, tunables: &Tunables) -> f32 {
        let threat = super::leaf_threat(&mut self.solver, position, rules);
        eval::value(position, tunables, threat)
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
        let tree = shared.tree;
        let rules = &shared.rules;
        let mut position = shared.root_position;
        let mut turn = shared.root_turn;
        let mut node_id = shared.root;
        let backup = &shared.backup;
        let exclusive = shared.exclusive;
        self.path.clear();
        self.hot.clear();
        self.starts.clear();
        self.starts.push(position.hash());
        // Successive iterations mostly share the top of their paths: those
        // edges' positions are copied from the last path, not replayed.
        // After the first edge that differs, `steps` ends at that edge, so
        // no later one can match.
        let mut depth = 0;
        if self.steps_root.1 != turn || !self.steps_root.0.identical(&position) {
            self.steps.clear();
            self.steps_root = (position, turn);
        }
        let (value, value_mover, proven) = loop {
            let node = tree.node(node_id);
            // The edges out of a hot node, or out of the root, which every
            // iteration passes, add their visits in batches too.
            let batched = self.enter(shared, node_id) || (node_id == shared.root && !exclusive);
            let mover = node.mover();
            let proof = node.proof.load(Ordering::Acquire);
            if proof != UNPROVEN {
                break (backup.proof_value(proof, mover), mover, true);
            }
            if node.flags.load(Ordering::Relaxed) & FLAG_REPETITION != 0 {
                break (backup.draw_for(mover), mover, false);
            }
            let mut state = node.state.load(Ordering::Acquire);
            let before = ticks();
            let expanded = state == UNEXPANDED
                && (node_id == shared.root || node.visits.load(Ordering::Relaxed) > 0)
                && self.expand(shared, node_id, &position, turn);
            self.phases.expand += ticks() - before;
            if expanded {
                state = EXPANDED;
                let proof = node.proof.load(Ordering::Acquire);
                if proof != UNPROVEN {
                    break (backup.proof_value(proof, mover), mover, true);
                }
            }
            if state != EXPANDED && state != WIDENING {
                break (node.static_value(), mover, false);
            }
            let before = ticks();
            let selected = self.select(shared, node_id, &position);
            self.phases.select += ticks() - before;
            let Some(edge_index) = selected else {
                // Every materialised child is a proven loss and none is left.
                if try_prove(tree, node_id) {
                    let proof = node.proof.load(Ordering::Acquire);
                    break (backup.proof_value(proof, mover), mover, true);
                }
                break (-1.0, mover, false);
            };
            let edge = tree.edge(edge_index);
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
            let step = match self.steps.get(depth) {
                Some(followed) if followed.action == action => {
                    #[cfg(debug_assertions)]
                    {
                        let (mut replayed, mut replayed_turn) = (position, turn);
                        let step =
                            advance_hinted(&mut replayed, rules, action, &mut replayed_turn, ends);
                        debug_assert!(
                            replayed.identical(&followed.position)
                                && replayed_turn == followed.turn
                                && step == followed.step,
                            "the copied step of {action} differs from its replay"
                        );
                    }
                    position = followed.position;
                    turn = followed.turn;
                    followed.step
                }
                _ => {
                    self.steps.truncate(depth);
                    let step = advance_hinted(&mut position, rules, action, &mut turn, ends);
                    self.steps.push(FollowedEdge {
                        action,
                        position,
                        turn,
                        step,
                    });
                    step
                }
            };
            depth += 1;
            self.phases.advance += ticks() - before;
            if step == Step::Invalid {
                break (node.static_value(), mover, false);
            }
            if let Step::Ended(outcome) = step {
                let hash = position.hash();
                // A repetition depends on the path and the game so far, which
                // change under tree reuse, so it is checked on every visit,
                // not only when the node is created.
                let repeats = outcome == Outcome::Ongoing
                    && child != 0
                    && (shared.history.binary_search(&hash).is_ok() || self.starts.contains(&hash));
                self.starts.push(hash);
                if repeats {
                    // The repeated node takes the draw's value too, so that
                    // its mean (what selection reads) is the draw's value,
                    // not whatever it held when it was created.
                    let repeated = tree.node(child);
                    self.enter(shared, child);
                    let repeated_mover = repeated.mover();
                    break (backup.draw_for(repeated_mover), repeated_mover, false);
                }
            }
            if child == 0 {
                let before = ticks();
                let creation = self.create(shared, &position, turn, step);
                self.phases.create += ticks() - before;
                match creation {
                    Creation::Created(index, value) => {
                        edge.child.store(index, Ordering::Release);
                        let created = tree.node(index);
                        self.enter(shared, index);
                        let proof = created.proof.load(Ordering::Relaxed);
                        let repetition =
                            created.flags.load(Ordering::Relaxed) & FLAG_REPETITION != 0;
                        let value = if proof == PROVEN_DRAW || repetition {
                            backup.draw_for(created.mover())
                        } else {
                            value
                        };
                        break (value, created.mover(), proof != UNPROVEN);
                    }
                    Creation::Existing(index) => {
                        edge.child.store(index, Ordering::Release);
                        child = index;
                    }
                    Creation::Full(value, mover) => break (value, mover, false),
                }
            }
            node_id = child;
        };
        // `turn` is now the leaf's turn; each node sees the leaf's value
        // discounted by how many turns below it the leaf lies.
        let leaf_turn = turn;
        let backing_up = ticks();
        for (&index, &hot) in self.path.iter().zip(&self.hot).rev() {
            let node = tree.node(index);
            let node_turn = node.turn.load(Ordering::Relaxed);
            let discounted = value * backup.factor(leaf_turn.saturating_sub(node_turn));
            let signed = if node.mover() == value_mover {
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
        if proven && self.path.len() >= 2 {
            for &index in self.path[..self.path.len() - 1].iter().rev() {
                if !try_prove(tree, index) {
                    break;
                }
            }
        }
        let finished = ticks();
        self.phases.backup += finished - backing_up;
        self.phases.total += finished - started;
        self.phases.iterations += u64::from(PhaseTimes::COUNTED);
        let depth = self.path.len() as u32;
        self.pending_iterations += 1;
        self.pending_depth += depth as u64;
        self.max_depth = self.max_depth.max(depth);
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

    /// Finds or creates the node for `position` (reached by `step`).
    fn create(&mut self, shared: &Shared, position: &Position, turn: u32, step: Step) -> Creation {
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
                    Ok(Outcome::Ongoing) => -eval::value(&ended, shared.tunables, false),
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
    fn expand(&mut self, shared: &Shared, node_id: u32, position: &Position, turn: u32) -> bool {
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
    fn widen(&mut self, shared: &Shared, node_id: u32, position: &Position) -> bool {
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

    /// PUCT selection with progressive widening. Returns an edge index.
    fn select(&mut self, shared: &Shared, node_id: u32, position: &Position) -> Option<u32> {
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

/// Writes a new node's fields before publication.
fn write_node(node: &Node, key: u64, flags: u8, proof: u8, value: f32, turn: u32) {
    node.key.store(key, Ordering::Relaxed);
    node.flags.store(flags, Ordering::Relaxed);
    node.proof.store(proof, Ordering::Relaxed);
    node.eval.store(value.to_bits(), Ordering::Relaxed);
    node.turn.store(turn, Ordering::Relaxed);
}

/// Tries to prove a node from its children; true if it is (now) proven.
pub(crate) fn try_prove(tree: &Tree, node_id: u32) -> bool {
    let node = tree.node(node_id);
    if node.proof.load(Ordering::Acquire) != UNPROVEN {
        return true;
    }
    let state = node.state.load(Ordering::Acquire);
    if state != EXPANDED && state != WIDENING {
        return false;
    }
    let (first, count, total) = node.children();
    let mover = node.mover();
    let mut complete = count == total;
    let mut best = PROVEN_LOSS;
    for index in first..first + count {
        let child = tree.edge(index).child.load(Ordering::Acquire);
        if child == 0 {
            complete = false;
            continue;
        }
        match proof_for(tree, child, mover) {
            PROVEN_WIN => {
                node.proof.store(PROVEN_WIN, Ordering::Release);
                return true;
            }
            PROVEN_DRAW => best = PROVEN_DRAW,
            PROVEN_LOSS => {}
            _ => complete = false,
        }
    }
    if complete {
        node.proof.store(best, Ordering::Release);
    }
    complete
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::position;

    #[test]
    fn the_selection_table_gives_what_the_formula_gives_above_it() {
        // The table must change no selection: every entry equals the
        // direct computation, for tunables other than the defaults too.
        let mut tunables = Tunables::default();
        for (cpuct, exponent) in [(1.5, 0.6), (0.7, 0.45)] {
            tunables.set("cpuct", cpuct).unwrap();
            tunables.set("widening_exponent", exponent).unwrap();
            let selection = Selection::new(&tunables);
            for visits in (0..3000).chain([65_535, 1 << 20]) {
                for start in [false, true] {
                    let (allowed, scale) = selection.terms(visits, start);
                    let (direct_allowed, direct_scale) = selection.compute(visits, start);
                    assert_eq!(allowed, direct_allowed);
                    assert_eq!(scale.to_bits(), direct_scale.to_bits());
                }
            }
            let (allowed, scale) = selection.terms(400, true);
            let expected = cpuct * (1.0 + 0.15 * 401f32.ln()) * 20.0;
            assert_eq!(allowed, (4.0 + 400f32.powf(exponent)).ceil() as u32);
            assert!(
                (scale - expected).abs() < 1e-4,
                "{scale} against {expected}"
            );
        }
    }

    /// Runs the bare tree (no root shortcuts) from `position` at turn 0,
    /// with `history` (unsorted hashes of earlier positions) and the backup
    /// rules; returns the tree and its root.
    fn grow(position: Position, history: &[u64], backup: Backup, iterations: u32) -> (Tree, u32) {
        grow_in(
            Tree::with_megabytes(4),
            position,
            history,
            backup,
            iterations,
        )
    }

    /// [`grow`] in a given tree, stopping early when it wants a recycle.
    fn grow_in(
        tree: Tree,
        position: Position,
        history: &[u64],
        backup: Backup,
        iterations: u32,
    ) -> (Tree, u32) {
        grow_tuned(
            tree,
            position,
            history,
            backup,
            iterations,
            Tunables::default(),
        )
    }

    /// [`grow_in`] with given tunables.
    fn grow_tuned(
        tree: Tree,
        position: Position,
        history: &[u64],
        backup: Backup,
        iterations: u32,
        tunables: Tunables,
    ) -> (Tree, u32) {
        let mut history = history.to_vec();
        history.sort_unstable();
        let root = grow_bare(
            &tree,
            &Rules::STANDARD,
            &tunables,
            &position,
            &history,
            backup,
            u64::from(iterations),
        )
        .unwrap();
        (tree, root)
    }

    /// Every node the root reaches, with its key, visits, value sum and
    /// proof, and whether the table finds it under its key.
    fn reachable(tree: &Tree, root: u32) -> Vec<(u64, u32, i64, u8, bool)> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![root];
        let mut nodes = Vec::new();
        while let Some(index) = stack.pop() {
            if !seen.insert(index) {
                continue;
            }
            let node = tree.node(index);
            let key = node.key.load(Ordering::Relaxed);
            nodes.push((
                key,
                node.visits.load(Ordering::Relaxed),
                node.value_sum.load(Ordering::Relaxed),
                node.proof.load(Ordering::Relaxed),
                tree.lookup(key) == Some(index),
            ));
            let (first, count, _) = node.children();
            for edge in first..first + count {
                let child = tree.edge(edge).child.load(Ordering::Relaxed);
                if child != 0 {
                    assert!(
                        child as u64 <= tree.node_count(),
                        "child {child} out of range"
                    );
                    stack.push(child);
                }
            }
        }
        nodes.sort_unstable_by_key(|node| node.0);
        nodes
    }

    /// A middle game with many turns, whose tree fills fast.
    fn busy_position() -> Position {
        position(
            &[
                ("g3b1", "y3", ""),
                ("r2g1", "", "r1y1g1b1b3"),
                ("b2", "", "g2b3"),
                ("g2", "", "g2g3"),
                ("y3", "", "y1g1g3"),
            ],
            1,
        )
    }

    #[test]
    fn a_recycle_keeps_statistics_proofs_and_the_table_consistent() {
        // Two middle games grown in 1 MB until the tree wants a recycle.
        let busy = busy_position();
        let sacrifice = position(
            &[
                ("g3b1", "r1r2y1y2", ""),
                ("r1b2", "", "g3y1"),
                ("b3", "r2r3g3", "y3"),
                ("g2", "y1", ""),
                ("r2", "r1", "r3"),
            ],
            0,
        );
        let mut proofs = 0;
        let mut outside_proofs = 0;
        for root_position in [busy, sacrifice] {
            let (tree, root) = grow_in(
                Tree::with_megabytes(1),
                root_position,
                &[],
                Backup::neutral(),
                1_000_000,
            );
            assert_eq!(root, 1);
            assert!(tree.wants_recycle());
            // (A few nodes may be private, when the nearly full table had
            // no free entry within the probe limit.)
            // A proof from outside the tree (as the root's two-turn check
            // marks a refuted turn) below the least visited node of the
            // root's turn that has children.
            let root_turn = tree.node(root).turn.load(Ordering::Relaxed);
            let (first, count, _) = tree.node(root).children();
            let marked = (first..first + count)
                .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
                .filter(|&child| {
                    child != 0
                        && tree.node(child).turn.load(Ordering::Relaxed) == root_turn
                        && tree.node(child).children().1 > 0
                })
                .min_by_key(|&child| tree.node(child).visits.load(Ordering::Relaxed))
                .and_then(|node| {
                    let (first, count, _) = tree.node(node).children();
                    (first..first + count)
                        .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
                        .find(|&child| {
                            child != 0 && tree.node(child).proof.load(Ordering::Relaxed) == UNPROVEN
                        })
                })
                .map(|grandchild| {
                    let node = tree.node(grandchild);
                    node.proof.store(PROVEN_WIN, Ordering::Relaxed);
                    node.key.load(Ordering::Relaxed)
                });
            let before = reachable(&tree, root);
            proofs += before.iter().filter(|node| node.3 != UNPROVEN).count();
            let recycled = tree.recycle(root, false).expect("the root is node 1");
            assert!(recycled.nodes_after < recycled.nodes_before);
            assert!(recycled.nodes_after <= tree.node_capacity() * 6 / 10);
            assert!(!tree.wants_recycle());
            let after = reachable(&tree, root);
            // Every survivor was in the tree, with the same statistics and
            // proof, and the rebuilt table finds it.
            assert!(after.len() < before.len());
            for node in &after {
                assert!(
                    tree.lookup(node.0).is_some(),
                    "{:x} not in the table",
                    node.0
                );
                let same_key = before.iter().filter(|old| old.0 == node.0);
                assert!(
                    same_key
                        .clone()
                        .any(|old| (old.1, old.2, old.3) == (node.1, node.2, node.3)),
                    "{node:?} against {:?}",
                    same_key.collect::<Vec<_>>()
                );
            }
            assert_eq!(after.len() as u64, tree.node_count());
            if let Some(key) = marked {
                let node = tree.lookup(key).map(|index| tree.node(index));
                let proof = node.map(|node| node.proof.load(Ordering::Relaxed));
                assert_eq!(proof, Some(PROVEN_WIN), "the marked proof was dropped");
                outside_proofs += 1;
            }
            // The search goes on in the recycled tree, from the same root.
            let visits = tree.node(root).visits.load(Ordering::Relaxed);
            let (tree, root) = grow_in(tree, root_position, &[], Backup::neutral(), 500);
            assert_eq!(root, 1);
            assert_eq!(tree.node(root).visits.load(Ordering::Relaxed), visits + 500);
        }
        assert!(proofs > 0, "no proven node to keep");
        assert!(outside_proofs > 0, "no proof marked from outside");
    }

    #[test]
    fn the_table_grows_with_the_tree_and_still_finds_every_node() {
        // A tree starts with a small table (a fresh process would otherwise
        // commit all of it at once) and uses more of it as it grows.
        let tree = Tree::with_megabytes(40);
        let first = tree.table_entries();
        let (tree, root) = grow_in(tree, busy_position(), &[], Backup::neutral(), 30_000);
        let nodes = reachable(&tree, root);
        assert!(nodes.len() * 4 > first, "{} nodes", nodes.len());
        assert!(tree.table_entries() >= tree.allocated_nodes() * 4);
        assert!(
            nodes.iter().all(|node| node.4),
            "a node is not in the grown table"
        );
        // Between turns the compaction rebuilds it at that size.
        let mut tree = tree;
        let (first_edge, count, _) = tree.node(root).children();
        let next = (first_edge..first_edge + count)
            .map(|edge| tree.edge(edge).child.load(Ordering::Relaxed))
            .find(|&child| child != 0 && tree.node(child).children().1 > 0)
            .expect("an expanded child");
        assert_eq!(tree.compact(next, false), 1);
        assert!(reachable(&tree, 1).iter().all(|node| node.4));
    }

    #[test]
    fn a_parallel_recycle_or_compaction_leaves_the_tree_a_serial_one_leaves() {
        // Large enough that every pass splits into several pieces. A wide
        // exploration keeps the tree from proving the root before it fills.
        let busy = busy_position();
        let mut wide = Tunables::default();
        wide.set("cpuct", 1.5).unwrap();
        wide.set("cpuct_intra_turn", 1.0).unwrap();
        let grown = || {
            grow_tuned(
                Tree::with_megabytes(40),
                busy,
                &[],
                Backup::neutral(),
                10_000_000,
                wide.clone(),
            )
        };
        let (serial, root) = grown();
        let (parallel, _) = grown();
        assert!(serial.wants_recycle());
        assert!(serial.allocated_nodes() > 3 * PASS_PIECE);
        let before = reachable(&serial, root);
        assert_eq!(before, reachable(&parallel, root));
        let serial_recycled = serial.recycle(root, false).unwrap();
        let parallel_recycled = parallel.recycle(root, true).unwrap();
        assert_eq!(serial_recycled, parallel_recycled);
        assert!(serial_recycled.nodes_after * 2 < serial_recycled.nodes_before);
        let after = reachable(&serial, root);
        assert_eq!(after, reachable(&parallel, root));
        assert!(
            after.iter().all(|node| node.4),
            "a survivor is not in the table"
        );
        for index in 1..serial.allocated_edges() as u32 {
            let (one, other) = (serial.edge(index), parallel.edge(index));
            assert_eq!(
                (
                    one.action.load(Ordering::Relaxed),
                    one.child.load(Ordering::Relaxed)
                ),
                (
                    other.action.load(Ordering::Relaxed),
                    other.child.load(Ordering::Relaxed)
                )
            );
        }
        // Both grow on alike.
        let (serial, _) = grow_in(serial, busy, &[], Backup::neutral(), 2_000);
        let (mut parallel, _) = grow_in(parallel, busy, &[], Backup::neutral(), 2_000);
        assert_eq!(reachable(&serial, root), reachable(&parallel, root));
        // And so does a compaction around another node, as between turns.
        let (first, count, _) = serial.node(root).children();
        let next = (first..first + count)
            .map(|edge| serial.edge(edge).child.load(Ordering::Relaxed))
            .find(|&child| child != 0 && serial.node(child).children().1 > 0)
            .expect("an expanded child");
        let mut serial = serial;
        assert!(serial.allocated_nodes() > PASS_PIECE);
        assert_eq!(serial.compact(next, false), parallel.compact(next, true));
        let after = reachable(&serial, 1);
        assert!(after.len() > 1 && after.iter().all(|node| node.4));
        assert_eq!(after, reachable(&parallel, 1));
        assert_eq!(serial.allocated_edges(), parallel.allocated_edges());
    }

    #[test]
    fn a_sampled_histogram_picks_about_the_threshold_of_the_whole_tree() {
        // A recycle in a large tree counts every few nodes only; the
        // threshold must still free about what counting all would.
        let busy = busy_position();
        let (tree, _) = grow_in(
            Tree::with_megabytes(8),
            busy,
            &[],
            Backup::neutral(),
            1_000_000,
        );
        assert!(tree.wants_recycle());
        let (nodes, edges) = (tree.allocated_nodes(), tree.allocated_edges());
        let exact = tree.recycle_threshold_sampled(nodes, edges, 1);
        let kept = |threshold: u32| {
            (1..nodes as u32)
                .filter(|&index| tree.node(index).visits.load(Ordering::Relaxed) >= threshold)
                .map(|index| tree.node(index).children().1 as u64)
                .sum::<u64>()
        };
        assert!(exact > 2, "a threshold of {exact} says little");
        for stride in [3, 7, 15] {
            let sampled = tree.recycle_threshold_sampled(nodes, edges, stride);
            let (exact_kept, sampled_kept) = (kept(exact), kept(sampled));
            assert!(
                sampled_kept * 4 >= exact_kept * 3 && sampled_kept * 3 <= exact_kept * 4,
                "one node in {stride}: threshold {sampled} keeps {sampled_kept} edges, \
                 all nodes: {exact} keeps {exact_kept}"
            );
        }
    }

    /// Runs the bare tree with plain backups and returns the root's proof
    /// and mean value for the side to move.
    fn bare_tree(position: Position, iterations: u32) -> (u8, f32) {
        bare_tree_with(position, Backup::neutral(), iterations)
    }

    /// [`bare_tree`] with the given backup rules.
    fn bare_tree_with(position: Position, backup: Backup, iterations: u32) -> (u8, f32) {
        let (tree, root) = grow(position, &[], backup, iterations);
        let node = tree.node(root);
        (node.proof.load(Ordering::Relaxed), node.mean().unwrap())
    }

    #[test]
    fn a_winning_root_backs_up_plus_one() {
        // `r1b3:r3g3:/y2b1:g2:g1 0`: a red sacrifice then a capture wins: two
        // actions deep in the tree, with values passed up unchanged inside
        // the turn.
        let position = position(&[("r1b3", "r3g3", ""), ("y2b1", "g2", "g1")], 0);
        let (proof, value) = bare_tree(position, 400);
        assert_eq!(proof, PROVEN_WIN);
        assert!(value > 0.5, "value {value}");
    }

    #[test]
    fn a_lost_root_backs_up_minus_one() {
        // `r2b1:y1:r3/y3::y2g2 0`: every turn lets player 1's r3 capture
        // player 0's last home ship: values cross the end of the turn with
        // their sign flipped.
        let position = position(&[("r2b1", "y1", "r3"), ("y3", "", "y2g2")], 0);
        let (proof, value) = bare_tree(position, 400);
        assert_eq!(proof, PROVEN_LOSS);
        assert!(value < -0.5, "value {value}");
    }

    #[test]
    fn draw_contempt_counts_against_the_side_ahead() {
        let mut tunables = Tunables::default();
        tunables.set("draw_contempt", 0.5).unwrap();
        tunables.set("contempt", 0.0).unwrap();
        // Root mover 1, who is ahead: a draw is bad for it, good for 0.
        let ahead = Backup::new(&tunables, 1, 0.8);
        assert!((ahead.draw_for(1) + 0.4).abs() < 1e-6);
        assert!((ahead.draw_for(0) - 0.4).abs() < 1e-6);
        assert!((ahead.proof_value(PROVEN_DRAW, 1) + 0.4).abs() < 1e-6);
        assert_eq!(ahead.proof_value(PROVEN_WIN, 1), 1.0);
        // Behind, a draw is worth no more than usual.
        let behind = Backup::new(&tunables, 0, -0.6);
        assert_eq!(behind.draw_for(0), 0.0);
        assert_eq!(behind.draw_for(1), 0.0);
        tunables.set("draw_contempt", 0.0).unwrap();
        assert_eq!(Backup::new(&tunables, 0, 0.9).draw_for(0), 0.0);
        // With contempt, a draw is worth less than nothing to the root
        // mover whatever the root's value, and more when it is ahead.
        tunables.set("contempt", 0.1).unwrap();
        tunables.set("draw_contempt", 0.5).unwrap();
        let behind = Backup::new(&tunables, 0, -0.6);
        assert!((behind.draw_for(0) + 0.1).abs() < 1e-6);
        assert!((behind.draw_for(1) - 0.1).abs() < 1e-6);
        let ahead = Backup::new(&tunables, 0, 0.8);
        assert!((ahead.draw_for(0) + 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_turn_discount_shrinks_distant_values() {
        let mut tunables = Tunables::default();
        tunables.set("turn_discount", 0.9).unwrap();
        let backup = Backup::new(&tunables, 0, 0.0);
        assert_eq!(backup.factor(0), 1.0);
        assert!((backup.factor(2) - 0.81).abs() < 1e-6);
        assert_eq!(Backup::neutral().factor(7), 1.0);
    }

    #[test]
    fn a_side_ahead_scores_a_repetition_with_contempt_and_avoids_it() {
        // Issue 8 §3, from a match against greedy (game 86): player 1 is far
        // ahead, and moving G3 from Delos back to Kotok repeats the position
        // after its previous turn. Without contempt the repetition scored 0
        // and, with a high prior, took the most visits and was played.
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let root = busy_position();
        let repeated = position(
            &[
                ("g3b1", "y3", ""),
                ("r2g1", "", "r1y1g1b1b3"),
                ("b2", "", "g2g3b3"),
                ("g2", "", "g2g3"),
                ("y3", "", "y1g1"),
            ],
            0,
        );
        let mut reachable = false;
        crate::rules::TurnEnumerator::default().for_each_turn(&root, &rules, |_, result, _| {
            reachable |= result.hash() == repeated.hash();
        });
        assert!(reachable, "the repetition is one turn away");
        let root_value = eval::value(&root, &tunables, false);
        assert!(root_value > 0.5, "player 1 is ahead: {root_value}");
        let backup = Backup::new(&tunables, 1, root_value);
        assert!(backup.draw_value < -0.2, "{backup:?}");
        let (tree, root_id) = grow(root, &[repeated.hash()], backup, 2_000);
        let node = tree
            .lookup(node_key(&repeated, 1))
            .map(|index| tree.node(index))
            .expect("the repetition was searched");
        // Its mean, for player 1, is the draw's value, not 0.
        let mean = -node.mean().unwrap();
        assert!((mean - backup.draw_value).abs() < 1e-3, "mean {mean}");
        let chosen = crate::search::extract::best_turn(&tree, &rules, &tunables, root_id, &root)
            .expect("a turn");
        assert_ne!(
            chosen.result.hash(),
            repeated.hash(),
            "{:?}",
            chosen.actions
        );
        let visits = node.visits.load(Ordering::Relaxed);
        assert!(visits < 100, "the repetition took {visits} visits");
    }

    #[test]
    fn a_proven_win_is_read_out_through_a_thinly_visited_sacrifice() {
        // Issue 8 §3, from a match against greedy (game 45): sacrificing Y2
        // and moving two ships into the enemy home wins by force, but the
        // sacrifice node had fewer visits than `extract_min_visits`, so the
        // turn was cut short into "sacrifice, pass, pass".
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let root = position(
            &[
                ("g3b1", "r1r2y1y2b3", ""),
                ("r1b2", "", "g3"),
                ("b3", "r2r3r3g3", ""),
                ("g2", "y1y1", ""),
                ("r2", "r1r3", ""),
            ],
            0,
        );
        let (tree, root_id) = grow(root, &[], Backup::neutral(), 2_000);
        assert_eq!(tree.node(root_id).proof.load(Ordering::Relaxed), PROVEN_WIN);
        let chosen = crate::search::extract::best_turn(&tree, &rules, &tunables, root_id, &root)
            .expect("a turn");
        assert_eq!(chosen.proof, PROVEN_WIN, "{:?}", chosen.actions);
        assert_eq!(chosen.actions.len(), 3, "{:?}", chosen.actions);
    }
}
