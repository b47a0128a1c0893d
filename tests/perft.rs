//! Turn counts against the independent reference engine (homeworlds-cli),
//! position by position, like chess perft. The shared counts are read from
//! `../shared/perft` when present; the project's own copies of the benchmark
//! positions in `positions/perft.txt` always run.

mod common;

use supernova::notation::{cli, hwpn};
use supernova::rules::{Player, Rules, TurnEnumerator};

/// Counts above this are skipped unless SUPERNOVA_FULL_PERFT is set, to keep
/// the default test run short.
const DEFAULT_LIMIT: usize = 1_000_000;

#[test]
fn shared_dev_positions_match_the_reference() {
    let Some(path) = common::shared("perft/dev.tsv", "shared_dev_positions_match_the_reference")
    else {
        return;
    };
    let limit = if std::env::var_os("SUPERNOVA_FULL_PERFT").is_some() {
        usize::MAX
    } else {
        DEFAULT_LIMIT
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut enumerator = TurnEnumerator::default();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let expected: usize = fields[3].parse().unwrap();
        if expected > limit {
            continue;
        }
        let side = Player::from_index(fields[2].parse().unwrap()).unwrap();
        let board = cli::parse(fields[4], side).unwrap();
        let count = enumerator.count(&board.position, &Rules::CLI);
        checked += 1;
        if count != expected {
            failures.push(format!(
                "game {} turn {}: expected {expected}, got {count}: {}",
                fields[0],
                fields[1],
                hwpn::write(&board.position, None)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 5000, "only {checked} positions checked");
}
