//! The engine: a parallel Monte Carlo tree search over single actions, with
//! exact win-in-1 and safety checks at the root, and two simple players.
//!
//! # Using it
//! Build a [`Searcher`] from [`SearchOptions`], then call
//! [`Searcher::search`] with the position, the hashes of the earlier
//! start-of-turn positions of the game (for repetition), the limits and a
//! stop flag. It returns the turn to play as a list of
//! [`Action`](crate::rules::Action)s; it never prints and never formats
//! text. Progress is reported through the `on_info` callback, called on the
//! calling thread.
//!
//! # Files
//! `options.rs` and `report.rs` hold the public types; `searcher.rs` the
//! [`Searcher`]; `root.rs` the exact root checks and `threats/` the
//! two-turn ones; `run.rs` the worker threads; `mcts/` and `tree/` the tree
//! itself; `extract.rs` and `info.rs` read turns and reports out of it;
//! `time.rs` decides when to stop; `eval.rs`, `priors.rs`, `facts.rs` and
//! `solver/` judge positions, and `quiescence.rs` plays out a leaf's red
//! sacrifice shot; `shot_guard.rs` lists every reply to the tree's turn
//! and weighs the candidates by what the worst takes (`material.rs`, the
//! exact judgement); `explain/` gathers the facts that say why a search's
//! turn was played, for a later layer to write as a sentence; `players.rs` holds the greedy and random players and
//! `shots.rs` the shot-playing test opponent; `bench.rs` the bench
//! signature.
//!
//! # Guarantees (exact, not sampled)
//! For the default `mcts` player and for `greedy`:
//! - if a turn eliminates the opponent at once, it is played;
//! - no turn is played after which the opponent can eliminate the mover at
//!   once, if any turn exists that avoids it (a mutual elimination, a draw,
//!   is chosen only when every other turn loses so);
//! - the returned turn is legal: it replays on the rules core and can end.
//!
//! # Threads and determinism
//! A `Searcher` is `Send`; one search runs at a time (`&mut self`). The
//! calling thread searches, and with `threads` above 1 the searcher keeps a
//! rayon pool of `threads - 1` threads, on which as many helpers run inside
//! one scope per search and borrow the tree (no pool thread is left idle:
//! a rayon thread with no work yields the processor dozens of times before
//! it sleeps, taking turns on the cores from the workers). The stop flag may
//! be set from any thread and ends the search within a few iterations. With
//! `threads = 1` and a node limit (no time limit), results are bit-identical
//! from run to run for the same options, seed and sequence of searches. With
//! more threads, results vary from run to run.
//!
//! # Limits
//! A node limit or a movetime is searched in full; only a game clock is
//! managed, with an early stop once the choice is settled ([`SearchLimits`]).
//! A search whose stop flag is set before it starts still runs one
//! iteration, which expands the root and orders its actions by their
//! priors: its answer is that first choice, completed and verified by the
//! exact checks above, never a pass for want of time.
//!
//! # Options for the protocol layer
//! Everything a user may want to set is in [`SearchOptions`]: threads,
//! `hash_mb`, seed, multi-PV, the player (`mcts`, `greedy`, `random`, `shots`), the
//! rules profile, and every evaluation and search parameter as a
//! [`Tunables`] table. [`TUNABLES`] lists each parameter with its name,
//! default, range and purpose, and [`Tunables::set`] sets one by name with a
//! range check, so each can be exposed as an engine option as is.
//!
//! # Tree reuse and memory
//! The tree persists between searches: when the next position is found in
//! the tree (normally two turns below the last root), its subtree becomes the
//! new root and everything else is compacted away. [`Searcher::clear`]
//! forgets everything (a new game). The tree never uses more than about
//! `hash_mb` megabytes. When a search fills it, the threads meet at a
//! barrier and the tree is recycled: the children of its least visited
//! nodes are dropped (the nodes keep their statistics) until it is half
//! full, and it goes on growing, so a long analysis keeps deepening in
//! bounded memory ([`SearchInfo::recycles`] counts the recycles).

pub mod bench;
mod distill;
mod eval;
mod explain;
mod extract;
mod facts;
mod features;
mod info;
pub mod material;
mod mcts;
pub mod multi;
pub mod network;
mod options;
mod played_setups;
mod players;
mod priors;
mod quiescence;
mod report;
mod root;
mod run;
mod searcher;
mod shot_guard;
pub(crate) mod shots;
mod solver;
#[cfg(test)]
pub(crate) mod testing;
mod threats;
mod time;
mod tree;
pub mod tunables;

use crate::rules::{Position, Rules};

pub use distill::{visit_targets, VisitTarget};
pub use explain::{explain, Explanation, Fact, Goal, Line};
pub use network::{NetworkError, ValueNetwork};
pub use options::{Clock, PlayerKind, SearchLimits, SearchOptions, DEFAULT_HASH_MB};
pub use played_setups::{PlayedSetup, PLAYED_SETUPS};
pub use players::{book_score, has_yellow_or_blue, setup_actions};
pub use report::{
    win_probability, Candidate, Decision, PhaseTimes, Proof, SearchInfo, SearchResult,
};
pub use searcher::Searcher;
pub use solver::Solver;
pub use threats::{ThreatBudget, ThreatChecker};
pub use tunables::{Evaluation, Tunable, TunableError, TunableSpec, Tunables, TUNABLES};

/// The solver budget of the tree's leaf threat check: enough for a win in
/// one in nearly every position, bounded so one leaf never stalls a search.
pub(crate) const LEAF_SOLVER_LIMIT: u64 = 1_000;

/// Whether the opponent could eliminate the side to move at once if it
/// passed, as the tree's leaves judge it (a bounded solver call; false when
/// unknown). The learned value's training data uses the same judgement.
pub(crate) fn leaf_threat(solver: &mut Solver, position: &Position, rules: &Rules) -> bool {
    solver::passed(position, rules)
        .map(|after| solver.can_win_limited(&after, rules, LEAF_SOLVER_LIMIT) == Some(true))
        .unwrap_or(false)
}

/// The leaf value the tree gives a position for its side to move, with the
/// threat flag known: the hand or the learned evaluation, as `tunables`
/// choose (training and accuracy reports score positions with it).
pub(crate) fn evaluate(position: &Position, tunables: &Tunables, threat: bool) -> f32 {
    eval::value(position, tunables, threat)
}

/// The raw prior logits of every child of a position (the prior fitting
/// reads them).
pub(crate) use priors::child_logits;

/// The features of a position for the learned value (training reads them).
pub(crate) use features::{features as value_features, INPUTS as VALUE_INPUTS};

/// The static evaluation of a position for the side to move, in [-1, 1],
/// with default tunables: the tree's leaf value. A win-in-1 for the side to
/// move scores 1, and a threat against it is taken into account.
pub fn static_evaluation(position: &Position, rules: &Rules) -> f32 {
    static_evaluation_with(position, rules, &Tunables::default())
}

/// [`static_evaluation`] with given tunables.
pub fn static_evaluation_with(position: &Position, rules: &Rules, tunables: &Tunables) -> f32 {
    static_evaluation_using(position, rules, tunables, &mut Solver::default())
}

/// [`static_evaluation_with`] with a solver to reuse: the root's checks
/// order tens of thousands of turns by it, and a solver made for each
/// (with none of the winning turns a reused one replays first) made that
/// ordering take 10 to 200 ms in two-turn suite positions, longer than the
/// whole search at 100 ms a turn. The value is the same.
pub(crate) fn static_evaluation_using(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    solver: &mut Solver,
) -> f32 {
    if let Some(value) = eval::terminal_value(position) {
        if !position.in_setup() {
            return value;
        }
    }
    if solver.can_win(position, rules) {
        return 1.0;
    }
    let threat = solver.threatened(position, rules);
    eval::value(position, tunables, threat)
}
