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

/// Every count of `positions/perft.txt`, under its profile. Runs always.
#[test]
fn project_perft_file_counts() {
    let text = include_str!("../positions/perft.txt");
    let mut enumerator = TurnEnumerator::default();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "bad line: {line}");
        let rules: Rules = fields[1].parse().unwrap();
        let expected: usize = fields[2].parse().unwrap();
        let board = hwpn::parse(fields[3]).unwrap();
        assert_eq!(
            enumerator.count(&board.position, &rules),
            expected,
            "{} under {rules}",
            fields[0]
        );
        checked += 1;
    }
    assert!(checked >= 20);
}

/// A listing stopped early and resumed gives exactly the turns an
/// uninterrupted listing gives, in the same order, each once: stopped by
/// its visitor every few turns, and by a deadline that has already passed
/// (which stops it every 1,024 expanded states), on every position of
/// `positions/perft.txt`. The two-turn checks rely on it to go on with a
/// listing that ran out of time instead of listing its first part again.
#[test]
fn a_resumed_listing_gives_the_rest_of_the_turns() {
    let text = include_str!("../positions/perft.txt");
    let (mut checked, mut deadline_stops) = (0, 0);
    for line in text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let rules: Rules = fields[1].parse().unwrap();
        let position = hwpn::parse(fields[3]).unwrap().position;
        let mut whole = Vec::new();
        TurnEnumerator::default().for_each_turn(&position, &rules, |actions, result, _| {
            whole.push((actions.to_vec(), result.hash()))
        });
        for every in [1, 7, 1000] {
            let mut enumerator = TurnEnumerator::default();
            let mut pieces = Vec::new();
            let mut stops = 0;
            loop {
                let mut given = 0;
                enumerator.resume_while(&position, &rules, None, |actions, result, _| {
                    pieces.push((actions.to_vec(), result.hash()));
                    given += 1;
                    given < every
                });
                if !enumerator.is_resumable() {
                    break;
                }
                stops += 1;
            }
            assert_eq!(
                pieces, whole,
                "{} under {rules}, stopped every {every}",
                fields[0]
            );
            assert!(
                stops + 1 >= whole.len() / every,
                "{} stopped {stops} times",
                fields[0]
            );
        }
        let mut enumerator = TurnEnumerator::default();
        let mut pieces = Vec::new();
        let mut runs = 0;
        while !enumerator.resume_while(
            &position,
            &rules,
            Some(std::time::Instant::now()),
            |actions, result, _| {
                pieces.push((actions.to_vec(), result.hash()));
                true
            },
        ) {
            runs += 1;
            assert!(enumerator.is_resumable());
        }
        assert_eq!(pieces, whole, "{} under {rules}, out of time", fields[0]);
        deadline_stops += runs;
        checked += 1;
    }
    assert!(checked >= 20);
    assert!(deadline_stops > 0, "the deadline never stopped a listing");
}

/// The binary's `count` prints the count as its last line, for both input
/// formats, and rejects bad input with a message naming the token.
#[test]
fn count_command_end_to_end() {
    let run = |arguments: &[&str]| {
        let output = std::process::Command::new(common::binary())
            .arg("count")
            .args(arguments)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).to_string(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    let a_cli = "Player1 (0, b3y1) r1- | Alpha (b1) r1- | Beta (b1) g1- | Gamma (b2) r1- | Delta (b2) g1- | Player2 (1, b3) b3y3y2g1-r2g2";
    let (code, stdout, _) = run(&["--rules", "cli", a_cli]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.lines().last(), Some("27635"));
    let (_, stdout, _) = run(&["--rules", "cli", "--side", "0", a_cli]);
    assert_eq!(stdout.lines().last(), Some("27635"));
    let (_, stdout, _) = run(&["-/- 0"]);
    assert_eq!(stdout.lines().last(), Some("312"));
    let (_, stdout, _) = run(&["--rules", "sdg", "startpos"]);
    assert_eq!(stdout.lines().last(), Some("1081"));
    let (code, _, stderr) = run(&["r1b3:g3:/y2b1::q3 0"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("'q3'"), "{stderr}");
    let (code, _, stderr) = run(&["--rules", "fancy", "startpos"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("fancy"), "{stderr}");
}

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
