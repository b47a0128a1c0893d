//! The bench signature: a fixed, node-limited, single-threaded search over
//! a fixed set of positions. The total node count and a hash of the chosen
//! turns change only when the search's behaviour changes, so a refactor that
//! keeps them is a refactor, and a change to them needs a strength test.
//! Nodes per second come along for free.
//!
//! The positions come from the caller (`supernova bench` reads them with
//! `tools::bench`), so that the search needs no text.

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
