//! The bench signature: a fixed, node-limited, single-threaded search over
//! a fixed set of positions. The total node count and a hash of the chosen
//! turns change only when the search's behaviour changes, so a refactor that
//! keeps them is a refactor, and a change to them needs a strength test.
//! Nodes per second come along for free.
//!
//! # What is searched
//! `supernova bench` searches each position of `positions/bench.txt` (the
//! two homeworlds-cli perft benchmark positions and middle-game positions
//! of real SuperDuperGames records) for 20,000 iterations with one thread,
//! in a searcher cleared before each, so that no position's search depends
//! on the one before. `--nodes`, `--hash`, `--threads`, `--eval` and
//! `--file` vary it; the positions come from the caller (`tools::bench`
//! parses them), so that the search needs no text.
//!
//! # Why the signature identifies a search's behaviour
//! With one thread and a node limit a search is deterministic: no clock
//! decides anything (the root's checks are bounded by work, not time, under
//! a node limit), nothing random is left unseeded, and a recycle of the
//! tree, if the tree fills, happens at the same iteration every run. Every
//! part of the engine then leaves its mark on the answer: the rules'
//! listing of actions and their order, the priors, the evaluation, the
//! selection and backup, the solver's proofs, the root's exact checks and
//! the reading of the turn out of the tree. The signature is an FNV-1a hash
//! over the packed actions of every chosen turn, in order, each turn closed
//! by a separator, and the node count is the iterations searched (fewer
//! than asked only where the root decides without the tree, or a proof
//! ends a search). A change that alters what any of those parts computes
//! in the positions searched almost always changes some position's turn;
//! one that leaves every turn and count the same is, for these positions,
//! the same search. It is a fingerprint, not a proof: the unit and
//! integration tests check the rest.
//!
//! At the default 256 MB the bench's trees never fill, so the signature
//! does not cover recycling; a small `--hash` (say `--nodes 150000 --hash
//! 16`) gives a signature that does. With more threads the turns depend on
//! the threads' timing, so only the speed is meaningful.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::{PhaseTimes, SearchLimits, SearchOptions, Searcher};
use crate::rules::{Position, Rules};

/// The result for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchEntry {
    /// Iterations searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// Tree nodes at the end.
    pub tree_nodes: u64,
    /// Bytes of tree in use at the end.
    pub tree_bytes: u64,
    /// Where the iterations' time went (`phase-timing` builds only).
    pub phases: PhaseTimes,
}

/// The whole bench.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchReport {
    /// Per position, in order.
    pub entries: Vec<BenchEntry>,
    /// Total iterations.
    pub nodes: u64,
    /// Hash of every chosen turn, in order.
    pub signature: u64,
    /// Total time.
    pub elapsed: Duration,
}

impl BenchReport {
    /// Iterations per second over the whole bench.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs the bench: one searcher with `options` (use one thread for a
/// reproducible signature), cleared before each position, and `nodes`
/// iterations on each.
pub fn run(positions: &[Position], nodes: u64, options: &SearchOptions) -> BenchReport {
    let mut report = BenchReport {
        signature: 0xCBF2_9CE4_8422_2325,
        ..BenchReport::default()
    };
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(options.clone());
    for position in positions {
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search(position, &[], &SearchLimits::nodes(nodes), &stop, |_| {});
        let elapsed = start.elapsed();
        report.nodes += result.info.iterations;
        report.elapsed += elapsed;
        for action in result
            .best_turn
            .iter()
            .map(|action| action.pack() as u64)
            .chain([u64::MAX])
        {
            report.signature = (report.signature ^ action).wrapping_mul(0x0000_0100_0000_01B3);
        }
        report.entries.push(BenchEntry {
            nodes: result.info.iterations,
            elapsed,
            tree_nodes: result.info.tree_nodes,
            tree_bytes: result.info.tree_bytes,
            phases: result.info.phases,
        });
    }
    report
}

/// The default bench options: one thread, 64 MB, standard rules.
pub fn default_options() -> SearchOptions {
    SearchOptions {
        threads: 1,
        hash_mb: 64,
        rules: Rules::STANDARD,
        ..SearchOptions::default()
    }
}
