//! The bench positions file: HWPN, one position a line, `#` starting a
//! comment that names the position's source. The built-in list is
//! `positions/bench.txt`; `supernova bench --file` reads another. The search
//! runs the bench itself ([`crate::search::bench`]) on the parsed positions.

use crate::notation::{hwpn, ParseError};
use crate::rules::Position;

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
