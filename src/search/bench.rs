//! The bench signature: a fixed, node-limited, single-threaded search over
//! a fixed set of positions. The total node count and a hash of the chosen
//! turns change only when the search's behaviour changes, so a refactor that
//! keeps them is a refactor, and a change to them needs a strength test.
//! Nodes per second come along for free.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::{SearchLimits, SearchOptions, Searcher};
use crate::notation::{hwpn, ParseError};
use crate::rules::{Position, Rules};

/// The built-in bench positions (`positions/bench.txt`).
pub const BENCH_POSITIONS: &str = include_str!("../../positions/bench.txt");

/// One bench position.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchPosition {
    /// The position.
    pub position: Position,
    /// The comment naming its source.
    pub source: String,
}

/// Reads positions in the bench format: HWPN, one per line, `#` starting a
/// comment; blank and comment-only lines are skipped.
///
/// # Errors
/// The first line that is not valid HWPN, with its line number.
pub fn parse_positions(text: &str) -> Result<Vec<BenchPosition>, ParseError> {
    let mut positions = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let (body, comment) = match line.split_once('#') {
            Some((body, comment)) => (body, comment.trim()),
            None => (line, ""),
        };
        if body.trim().is_empty() {
            continue;
        }
        let board = hwpn::parse(body.trim()).map_err(|error| error.at_line(index + 1))?;
        positions.push(BenchPosition {
            position: board.position,
            source: comment.to_string(),
        });
    }
    Ok(positions)
}

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

/// Runs the bench: a fresh searcher per position with `options` (use one
/// thread for a reproducible signature) and `nodes` iterations each.
pub fn run(positions: &[BenchPosition], nodes: u64, options: &SearchOptions) -> BenchReport {
    let mut report = BenchReport {
        signature: 0xCBF2_9CE4_8422_2325,
        ..BenchReport::default()
    };
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(SearchOptions {
        rules: options.rules,
        ..options.clone()
    });
    for entry in positions {
        searcher.clear();
        let start = Instant::now();
        let result = searcher.search(
            &entry.position,
            &[],
            &SearchLimits::nodes(nodes),
            &stop,
            |_| {},
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_positions_parse() {
        let positions = parse_positions(BENCH_POSITIONS).unwrap();
        assert!(positions.len() >= 20, "{} positions", positions.len());
        assert!(positions.iter().all(|entry| !entry.source.is_empty()));
    }

    #[test]
    fn bad_line_is_reported_with_its_number() {
        let error = parse_positions("# comment\nr1b2:g3:/y1b3::g3 0\nnot hwpn\n").unwrap_err();
        assert!(error.to_string().contains('3'), "{error}");
    }
}
