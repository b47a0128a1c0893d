//! The bench positions file: HWPN, one position a line, `#` starting a
//! comment that names the position's source. The built-in list is
//! `positions/bench.txt`; `supernova bench --file` reads another. The search
//! runs the bench itself ([`crate::search::bench`]) on the parsed positions;
//! [`write_report`] prints what it measured.

use std::io::Write;
use std::path::Path;

use crate::notation::{hwpn, ParseError};
use crate::rules::Position;
use crate::search::bench::BenchReport;
use crate::search::PhaseTimes;

/// The built-in bench positions (`positions/bench.txt`).
pub const BENCH_POSITIONS: &str = include_str!("../../positions/bench.txt");

/// Benchmark position A of the reference engine (27,635 turns under `cli`),
/// the default subject of `supernova count`.
pub const BENCHMARK_A: &str =
    "Player1=y1b3:r1:/Player2=b3:y2y3g1b3:r2g2/Beta=b1:g1:/Alpha=b1:r1:/Delta=b2:g1:/Gamma=b2:r1: 0";

/// Benchmark position B of the reference engine: a middle game with 33,332
/// turns under `cli`, the default subject of `supernova analyse`.
pub const BENCHMARK_B: &str = "Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1:/Lebling=g2:r1y1b2:/Minsky=g2:r2:/Licklider=g2:r2:/Kotok=g3:r3:/Shrdlu=r3::b1/Frotz=r3::g1b1 0";

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

/// The bench positions of `file`, or the built-in list without one.
///
/// # Errors
/// The file cannot be read, or a line is not HWPN; the message names the
/// file (or `bench positions` for the built-in list).
pub fn read_positions(file: Option<&Path>) -> Result<Vec<BenchPosition>, String> {
    let text = match file {
        Some(path) => crate::files::read_bounded_text(path, crate::files::MAX_LIST_BYTES)
            .map_err(|error| format!("{}: {}", path.display(), error.message("positions")))?,
        None => BENCH_POSITIONS.to_string(),
    };
    parse_positions(&text).map_err(|error| {
        let name = file.map_or("bench positions".to_string(), |path| {
            path.display().to_string()
        });
        format!("{name}: {error}")
    })
}

/// Prints the bench's report: a line per position (nodes, nodes a second,
/// its source), then the totals that `supernova bench` is read for (the
/// signature, nodes a second, the tree's bytes a node) and, in builds with
/// the `phase-timing` feature, where an iteration's time went.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_report(
    report: &BenchReport,
    positions: &[BenchPosition],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for (index, (entry, position)) in report.entries.iter().zip(positions).enumerate() {
        writeln!(
            out,
            "position {:>2}: {:>8} nodes {:>9.0} nps  {}",
            index + 1,
            entry.nodes,
            entry.nodes as f64 / entry.elapsed.as_secs_f64().max(1e-9),
            position.source
        )?;
    }
    let tree_nodes: u64 = report.entries.iter().map(|entry| entry.tree_nodes).sum();
    let tree_bytes: u64 = report.entries.iter().map(|entry| entry.tree_bytes).sum();
    writeln!(out, "Positions: {}", positions.len())?;
    writeln!(out, "Nodes: {}", report.nodes)?;
    writeln!(out, "Signature: {:016x}", report.signature)?;
    writeln!(out, "Nodes/second: {:.0}", report.nodes_per_second())?;
    writeln!(
        out,
        "Bytes/node: {:.0}",
        tree_bytes as f64 / tree_nodes.max(1) as f64
    )?;
    let mut phases = PhaseTimes::default();
    for entry in &report.entries {
        phases.add(&entry.phases);
    }
    if phases.iterations > 0 {
        // Built with the `phase-timing` feature: ticks per iteration, summed
        // over the threads.
        let per = |ticks: u64| ticks as f64 / phases.iterations as f64;
        writeln!(
            out,
            "Ticks/iteration: select {:.0} expand {:.0} advance {:.0} create {:.0} backup {:.0} total {:.0}",
            per(phases.select),
            per(phases.expand),
            per(phases.advance),
            per(phases.create),
            per(phases.backup),
            per(phases.total)
        )?;
    }
    out.flush()
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

    #[test]
    fn benchmark_positions_parse() {
        for text in [BENCHMARK_A, BENCHMARK_B] {
            hwpn::parse(text).unwrap();
        }
    }

    #[test]
    fn missing_file_is_named() {
        let error = read_positions(Some(Path::new("/nonexistent/bench.txt"))).unwrap_err();
        assert!(error.starts_with("/nonexistent/bench.txt: "), "{error}");
    }

    #[test]
    fn report_has_a_line_per_position_and_the_totals() {
        use crate::search::bench::BenchEntry;
        use std::time::Duration;
        let positions = parse_positions(BENCH_POSITIONS).unwrap();
        let entry = BenchEntry {
            nodes: 100,
            elapsed: Duration::from_millis(10),
            tree_nodes: 50,
            tree_bytes: 5_000,
            phases: PhaseTimes::default(),
        };
        let report = BenchReport {
            entries: vec![entry.clone(), entry],
            nodes: 200,
            signature: 0x0fee_9c1d_93ed_2873,
            elapsed: Duration::from_millis(20),
        };
        let mut out = Vec::new();
        write_report(&report, &positions[..2], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("position  1:      100 nodes     10000 nps  "),
            "{text}"
        );
        assert_eq!(
            &lines[2..],
            [
                "Positions: 2",
                "Nodes: 200",
                "Signature: 0fee9c1d93ed2873",
                "Nodes/second: 10000",
                "Bytes/node: 100",
            ]
        );
    }
}
