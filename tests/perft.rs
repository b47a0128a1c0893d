//! Turn counts against the independent reference engine (homeworlds-cli),
//! position by position, like chess perft. The shared counts are read from
//! `../shared/perft` when present; the project's own copies of the benchmark
//! positions in `positions/perft.txt` always run.

mod common;

use supernova::notation::{cli, hwpn};
use supernova::rules::{Action, Player, Position, Rules, Slot, TurnEnumerator, TurnOrder};

/// Counts above this are skipped unless SUPERNOVA_FULL_PERFT is set, to keep
/// the default test run short.
const DEFAULT_LIMIT: usize = 1_000_000;

/// One line of `positions/perft.txt`: a name, a rule profile, the count of
/// distinct turns, and the position.
struct PerftLine {
    name: &'static str,
    rules: Rules,
    count: usize,
    position: Position,
}

/// Every line of `positions/perft.txt`.
fn perft_lines() -> Vec<PerftLine> {
    include_str!("../positions/perft.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "bad line: {line}");
            PerftLine {
                name: fields[0],
                rules: fields[1].parse().unwrap(),
                count: fields[2].parse().unwrap(),
                position: hwpn::parse(fields[3]).unwrap().position,
            }
        })
        .collect()
}

/// Every count of `positions/perft.txt`, under its profile. Runs always.
#[test]
fn project_perft_file_counts() {
    let lines = perft_lines();
    let mut enumerator = TurnEnumerator::default();
    for line in &lines {
        assert_eq!(
            enumerator.count(&line.position, &line.rules),
            line.count,
            "{} under {}",
            line.name,
            line.rules
        );
    }
    assert!(lines.len() >= 20);
}

/// A listing stopped early and resumed gives exactly the turns an
/// uninterrupted listing gives, in the same order, each once: stopped by
/// its visitor every few turns, and by a deadline that has already passed
/// (which stops it every 1,024 expanded states), on every position of
/// `positions/perft.txt`, in both listing orders. The two-turn checks rely
/// on it to go on with a listing that ran out of time instead of listing
/// its first part again.
#[test]
fn a_resumed_listing_gives_the_rest_of_the_turns() {
    let lines = perft_lines();
    let mut deadline_stops = 0;
    for line in &lines {
        for order in [TurnOrder::Plain, TurnOrder::AttackFirst] {
            deadline_stops += resumed_listings(line, order);
        }
    }
    assert!(lines.len() >= 20);
    assert!(deadline_stops > 0, "the deadline never stopped a listing");
}

/// Checks [`a_resumed_listing_gives_the_rest_of_the_turns`] on one line in
/// one order; returns how often the deadline stopped the listing.
fn resumed_listings(line: &PerftLine, order: TurnOrder) -> usize {
    let (position, rules, name) = (&line.position, &line.rules, line.name);
    let ordered = || {
        let mut enumerator = TurnEnumerator::default();
        enumerator.set_order(order);
        enumerator
    };
    let mut whole = Vec::new();
    ordered().for_each_turn(position, rules, |actions, result, _| {
        whole.push((actions.to_vec(), result.hash()))
    });
    for every in [1, 7, 1000] {
        let mut enumerator = ordered();
        let mut pieces = Vec::new();
        let mut stops = 0;
        loop {
            let mut given = 0;
            enumerator.resume_while(position, rules, None, |actions, result, _| {
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
            "{name} under {rules}, {order:?}, stopped every {every}"
        );
        assert!(
            stops + 1 >= whole.len() / every,
            "{name} stopped {stops} times"
        );
    }
    let mut enumerator = ordered();
    let mut pieces = Vec::new();
    let mut runs = 0;
    while !enumerator.resume_while(
        position,
        rules,
        Some(std::time::Instant::now()),
        |actions, result, _| {
            pieces.push((actions.to_vec(), result.hash()));
            true
        },
    ) {
        runs += 1;
        assert!(enumerator.is_resumable());
    }
    assert_eq!(
        pieces, whole,
        "{name} under {rules}, {order:?}, out of time"
    );
    runs
}

/// Whether `action`, by the side to move in `position` at the start of its
/// turn, is one an attack-first listing takes in its first pass: a
/// sacrifice, a catastrophe, or an action at (or a move or discovery into)
/// the opponent's home or a system connected to it. Written out here from
/// the rule, independently of the enumerator.
fn aims_at_the_opponent_home(position: &Position, action: Action) -> bool {
    let home = position.side_to_move().opponent().index() as Slot;
    let home_sizes = position.system(home).size_mask();
    let near = |slot: Slot| {
        let sizes = position.system(slot).size_mask();
        slot == home || (sizes != 0 && sizes & home_sizes == 0)
    };
    match action {
        Action::Sacrifice { .. } | Action::Catastrophe { .. } => true,
        Action::Move { to, .. } => near(to),
        Action::Discover { star, .. } => home_sizes & (1 << star.size()) == 0,
        Action::Build { system, .. }
        | Action::Trade { system, .. }
        | Action::Capture { system, .. } => near(system),
        Action::Homeworld { .. } | Action::Pass => false,
    }
}

/// An attack-first listing gives the same turns as the plain one, each once
/// and each replaying to its result, with the turns made only of actions
/// aimed at the opponent's home first: the two-turn checks rely on it to
/// find a plan early without missing or repeating a turn.
#[test]
fn an_attack_first_listing_gives_the_same_turns_aimed_ones_first() {
    let mut fronts = 0;
    for PerftLine {
        name,
        rules,
        position,
        ..
    } in perft_lines()
    {
        let mut plain = Vec::new();
        TurnEnumerator::default()
            .for_each_turn(&position, &rules, |_, result, _| plain.push(result.hash()));
        let mut enumerator = TurnEnumerator::default();
        enumerator.set_order(TurnOrder::AttackFirst);
        let mut listed = Vec::new();
        let mut aimed = Vec::new();
        enumerator.for_each_turn(&position, &rules, |actions, result, outcome| {
            let mut replayed = position;
            for &action in actions {
                replayed.try_apply(&rules, action).unwrap();
            }
            assert_eq!(replayed.end_turn(&rules), Ok(outcome), "{name}");
            assert_eq!(replayed.hash(), result.hash(), "{name}");
            listed.push(result.hash());
            aimed.push(
                !position.in_setup()
                    && actions
                        .iter()
                        .all(|&action| aims_at_the_opponent_home(&position, action)),
            );
        });
        assert_eq!(listed.len(), plain.len(), "{name}: count");
        let mut sorted_plain = plain.clone();
        sorted_plain.sort_unstable();
        let mut sorted = listed.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, sorted_plain, "{name}: the same turns");
        // The aimed turns come first, all of them.
        let front = aimed.iter().take_while(|&&aimed| aimed).count();
        assert!(
            aimed[front..].iter().all(|&aimed| !aimed),
            "{name}: an aimed turn after the first {front}"
        );
        if front > 0 && front < listed.len() {
            fronts += 1;
        }
    }
    assert!(
        fronts >= 10,
        "only {fronts} positions had aimed turns first"
    );
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
