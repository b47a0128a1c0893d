//! Short forced wins: the suite `positions/tactics/win_in_two.txt` of
//! positions in which the side to move cannot win at once but can force a
//! win in two (a turn of its own, after which every reply of the opponent's
//! leaves it a win at once).
//!
//! The normal tests play every suite position through the binary at a node
//! limit and judge the turn played by listing every reply, each of which
//! must leave the mover a win at once: the engine's own claim counts for
//! nothing. The ignored tests prove each position with the exact checker
//! and no limit, count what a `go movetime 100` search proves (for
//! `benches/README.md`), and rebuild candidates from `../shared/sdg`:
//! `SUPERNOVA_WIN_IN_TWO_OUT=/tmp/found.txt cargo test --release --test win_in_two -- --ignored find_win_in_two_positions`.

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use supernova::notation::hwpn;
use supernova::notation::turn::{format_turn, Style};
use supernova::notation::Board;
use supernova::record::GameRecord;
use supernova::rules::{Action, Outcome, Player, Position, Rules, TurnEnumerator};
use supernova::search::{Solver, ThreatBudget, ThreatChecker};

const SUITE: &str = "positions/tactics/win_in_two.txt";

/// The node limit at which the engine must play a forcing turn in every
/// suite position.
const SUITE_NODES: u64 = 3_000;

/// One suite entry: the board (with its system names, to read turns on)
/// and the comment that says where it comes from.
struct Entry {
    board: Board,
    source: String,
}

fn suite() -> Vec<Entry> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE);
    let text = std::fs::read_to_string(path).unwrap();
    let mut entries = Vec::new();
    for line in text.lines() {
        let (body, comment) = line.split_once('#').unwrap_or((line, ""));
        if body.trim().is_empty() {
            continue;
        }
        let board = hwpn::parse(body.trim()).unwrap_or_else(|error| panic!("{line}: {error}"));
        entries.push(Entry {
            board,
            source: comment.trim().to_string(),
        });
    }
    entries
}

/// How many replies `turn`, played by the side to move in `root`, leaves the
/// opponent, if every one of them loses: it eliminates the opponent's own
/// side, or leaves the mover a win at once. `Some(0)` for a turn that wins
/// at once; `None` for an illegal turn, a draw or a turn that some reply
/// escapes. Exact: every reply is listed and each win is the solver's.
fn forced_replies(root: &Position, turn: &[Action], rules: &Rules) -> Option<usize> {
    let mover = root.side_to_move();
    let mut after = *root;
    for &action in turn {
        after.try_apply(rules, action).ok()?;
    }
    match after.end_turn(rules).ok()? {
        Outcome::Win(winner) => return (winner == mover).then_some(0),
        Outcome::Draw => return None,
        Outcome::Ongoing => {}
    }
    let mut solver = Solver::default();
    let (mut replies, mut escapes) = (0, false);
    TurnEnumerator::default().for_each_turn_while(&after, rules, None, |_, reply, outcome| {
        replies += 1;
        let lost = match outcome {
            Outcome::Win(winner) => winner == mover,
            Outcome::Draw => false,
            Outcome::Ongoing => solver.can_win_expected(reply, rules),
        };
        escapes = !lost;
        lost
    });
    (!escapes && replies > 0).then_some(replies)
}

/// A sacrifice in `turn` that uses fewer actions than the sacrificed ship
/// grants: (actions used, actions granted).
fn short_sacrifice(turn: &[Action]) -> Option<(usize, u8)> {
    let index = turn
        .iter()
        .position(|action| matches!(action, Action::Sacrifice { .. }))?;
    let Action::Sacrifice { ship, .. } = turn[index] else {
        unreachable!("found a sacrifice")
    };
    let used = turn[index + 1..]
        .iter()
        .filter(|action| !matches!(action, Action::Catastrophe { .. }))
        .count();
    (used < usize::from(ship.size())).then_some((used, ship.size()))
}

/// What one run of the binary answered in a position: its turn, and
/// whether that turn forces a win in two (by [`forced_replies`]).
struct Answer {
    text: String,
    forced: bool,
    claimed: bool,
}

/// Plays `go LIMIT` in `entry`'s position through the binary, a fresh
/// process each time so that no position learns from another, and judges
/// the turn. An answer that claims `forced-win-in-two` for a turn that
/// does not force the win fails the test: the claim must be exact.
fn engine_answer(entry: &Entry, limit: &str) -> Answer {
    let board = &entry.board;
    // Options to measure with, `NAME=VALUE` separated by `;`.
    let options: String = std::env::var("SUPERNOVA_WIN_IN_TWO_OPTIONS")
        .unwrap_or_default()
        .split(';')
        .filter_map(|option| option.split_once('='))
        .map(|(name, value)| format!("setoption name {name} value {value}\n"))
        .collect();
    let input = format!(
        "{options}position pos {}\ngo {limit}\n",
        hwpn::write_board(board)
    );
    let output = common::supernova_with_input(&[], input.as_bytes());
    let stdout = common::text(&output);
    let text = stdout
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove in {stdout}"))
        .trim()
        .to_string();
    let claimed = stdout
        .lines()
        .any(|line| line.starts_with("info string") && line.contains("forced-win-in-two"));
    let rules = Rules::STANDARD;
    let forced = board
        .clone()
        .play_turn_text(&rules, &text)
        .ok()
        .and_then(|turn| forced_replies(&board.position, &turn.actions, &rules))
        .is_some();
    assert!(forced || !claimed, "{}: a false claim {text}", entry.source);
    Answer {
        text,
        forced,
        claimed,
    }
}

// ----- the suite --------------------------------------------------------------

/// No suite position is won at once, and each has a proof: the checker with
/// no limit finds a first turn, and listing every reply to it confirms it.
/// Slow-ish: ignored by default, run it after editing the suite.
#[test]
#[ignore]
fn suite_positions_are_wins_in_two_and_not_at_once() {
    let rules = Rules::STANDARD;
    for entry in suite() {
        let root = entry.board.position;
        assert!(
            !Solver::default().can_win(&root, &rules),
            "{}: wins at once",
            entry.source
        );
        let mut checker = ThreatChecker::default();
        let plan = checker
            .winning_plan(&root, &rules, ThreatBudget::work(u64::MAX))
            .unwrap_or_else(|| panic!("{}: no win in two", entry.source));
        assert!(
            forced_replies(&root, &plan, &rules).is_some_and(|replies| replies > 0),
            "{}: the plan {plan:?} is escaped",
            entry.source
        );
    }
}

/// The suite has what it is meant to have: real and composed positions,
/// middle-game ones (many turns to choose from), and first turns that use
/// fewer sacrifice actions than they could (named in the comments).
#[test]
fn the_suite_covers_middle_games_and_short_sacrifices() {
    let entries = suite();
    let composed = entries
        .iter()
        .filter(|entry| entry.source.starts_with("composed"))
        .count();
    let short = entries
        .iter()
        .filter(|entry| entry.source.contains("short sacrifice"))
        .count();
    let rules = Rules::STANDARD;
    let big = entries
        .iter()
        .filter(|entry| TurnEnumerator::default().count(&entry.board.position, &rules) >= 1_000)
        .count();
    assert!(entries.len() >= 20, "{} positions", entries.len());
    assert!(composed >= 2, "{composed} composed");
    assert!(short >= 3, "{short} short sacrifices");
    assert!(big >= 5, "{big} positions with 1,000 turns or more");
}

/// The engine at a node limit plays a turn that forces a win in two in
/// every suite position, judged by listing every reply.
#[test]
fn the_engine_forces_the_win_in_every_suite_position() {
    let mut failures = Vec::new();
    let entries = suite();
    for entry in &entries {
        let answer = engine_answer(entry, &format!("nodes {SUITE_NODES}"));
        if !answer.forced {
            failures.push(format!("{}: {}", entry.source, answer.text));
        }
    }
    eprintln!(
        "win in two: {} of {} forced at {SUITE_NODES} nodes",
        entries.len() - failures.len(),
        entries.len()
    );
    assert!(failures.is_empty(), "not forced:\n{}", failures.join("\n"));
}

/// The suite on the clock, for `benches/README.md`: how many positions a
/// `go movetime $SUPERNOVA_WIN_IN_TWO_MOVETIME` search (default 100 ms, the
/// binary's defaults) proves: the answer is `forced-win-in-two`, or its
/// turn is proven by listing every reply. A false claim fails the test;
/// otherwise timed, so it reports:
/// `cargo test --release --test win_in_two -- --ignored --nocapture at_a_movetime`;
/// `SUPERNOVA_WIN_IN_TWO_OPTIONS="NAME=VALUE;..."` sets engine options first.
#[test]
#[ignore]
fn win_in_two_at_a_movetime() {
    let movetime: u64 = std::env::var("SUPERNOVA_WIN_IN_TWO_MOVETIME")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(100);
    let entries = suite();
    let (mut claimed, mut proven) = (0, 0);
    for entry in &entries {
        let answer = engine_answer(entry, &format!("movetime {movetime}"));
        claimed += usize::from(answer.claimed);
        proven += usize::from(answer.forced);
        if !answer.forced {
            println!("not forced: {}: {}", entry.source, answer.text);
        }
    }
    println!(
        "win in two: {proven} of {} forced at {movetime} ms ({claimed} claimed forced-win-in-two)",
        entries.len()
    );
}

// ----- finding positions in real games ----------------------------------------

/// The records of `directory` that parse, by game number (the file name),
/// in the order of their names.
fn sdg_records(directory: &std::path::Path) -> Vec<(String, GameRecord)> {
    let mut paths: Vec<_> = std::fs::read_dir(directory)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "raw"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let record = GameRecord::parse_sdg(&std::fs::read_to_string(&path).ok()?).ok()?;
            Some((path.file_stem()?.to_string_lossy().into_owned(), record))
        })
        .collect()
}

/// Lists candidate suite positions from the SDG records: in games won by
/// elimination, the winner's positions 2, 4 and 6 turns of the game before
/// its last where it cannot win at once and the checker (a few seconds a
/// position) finds a win in two. Each line gives the game, the turn, the
/// checker's first turn, how many replies it covers, how many turns the
/// mover had, and a sacrifice of the first turn that uses fewer actions
/// than it grants. Writes to $SUPERNOVA_WIN_IN_TWO_OUT.
#[test]
#[ignore]
fn find_win_in_two_positions() {
    let Some(directory) = common::shared("sdg", "find_win_in_two_positions") else {
        return;
    };
    let Some(out) = std::env::var_os("SUPERNOVA_WIN_IN_TWO_OUT") else {
        eprintln!("set SUPERNOVA_WIN_IN_TWO_OUT to a file to write");
        return;
    };
    let mut out = std::fs::File::create(out).unwrap();
    let rules = Rules::STANDARD;
    let per_check = Duration::from_secs(5);
    for (game, record) in sdg_records(&directory) {
        let walk = record.walk(&Rules::SDG);
        let Outcome::Win(winner) = walk.outcome else {
            continue;
        };
        let last = walk.turns.len() - 1;
        for back in [2, 4, 6] {
            let Some(index) = last.checked_sub(back) else {
                continue;
            };
            let turn = &walk.turns[index];
            let root = turn.board.position;
            if turn.mover != winner || root.in_setup() || Solver::default().can_win(&root, &rules) {
                continue;
            }
            let budget = ThreatBudget {
                work: u64::MAX,
                deadline: Some(Instant::now() + per_check),
            };
            let started = Instant::now();
            let Some(plan) = ThreatChecker::default().winning_plan(&root, &rules, budget) else {
                continue;
            };
            let seconds = started.elapsed().as_secs_f64();
            let replies = forced_replies(&root, &plan, &rules).expect("the checker is exact");
            let turns = TurnEnumerator::default().count(&root, &rules);
            let short = short_sacrifice(&plan).map_or(String::new(), |(used, granted)| {
                format!("; short sacrifice: {used} of {granted} actions")
            });
            let line = format!(
                "{} # SDG game {game}, before turn {} ({} to move, {} turns, won {back} turns later); proof: {} ({replies} replies){short} ({seconds:.1}s)",
                hwpn::write_board(&turn.board),
                turn.number,
                if turn.mover == Player::First { "N" } else { "S" },
                turns,
                format_turn(&turn.board, &rules, &plan, Style::Token),
            );
            eprintln!("{line}");
            writeln!(out, "{line}").unwrap();
            out.flush().unwrap();
        }
    }
}
