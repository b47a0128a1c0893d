//! The conversion suite: from each position of
//! `positions/tactics/conversion.txt`, where the side to move is far ahead, the
//! tree search (one thread, a node limit, so the result is the same on every
//! run) plays the greedy player for at most 40 turns, with the automatic
//! repetition draw at three occurrences. A search that cannot convert draws
//! these games by repetition or runs out of turns.
//!
//! The engine wins all 31 at 10,000 nodes with the built-in network
//! `distilled-1` (the default) and with the hand evaluation (at 2,000 nodes
//! it leaves 3 unconverted).
//! CONVERSION_EVAL=hand or =learned chooses the evaluation (of both
//! players: the greedy one ranks its turns by it too).

use std::sync::atomic::AtomicBool;

use supernova::notation::hwpn;
use supernova::rules::{GameStatus, History, Outcome, Repetition, Rules};
use supernova::search::{PlayerKind, SearchLimits, SearchOptions, Searcher, ValueNetwork};

/// Turns (both sides') the strong side has to win in.
const TURNS: u32 = 40;
/// Nodes per turn of the tree search.
const NODES: u64 = 10_000;

/// Plays the suite's position `text` and returns how it ended, or why it
/// did not end in a win for the side to move.
fn convert(text: &str) -> Result<u32, String> {
    let board = hwpn::parse(text).map_err(|error| error.to_string())?;
    let rules = Rules {
        repetition: Repetition::Automatic(3),
        ..Rules::STANDARD
    };
    let strong = board.position.side_to_move();
    let mut history = History::new(board.position).map_err(|_| "mid-turn".to_string())?;
    let options = |player| {
        let mut options = SearchOptions {
            hash_mb: 32,
            player,
            rules,
            ..SearchOptions::default()
        };
        match std::env::var("CONVERSION_EVAL").as_deref() {
            Ok("learned") => options.tunables.set_network(Some(ValueNetwork::embedded())),
            Ok("hand") => options.tunables.set_network(None),
            _ => {}
        }
        options
    };
    let mut searchers = [
        Searcher::new(options(PlayerKind::Mcts)),
        Searcher::new(options(PlayerKind::Greedy)),
    ];
    let stop = AtomicBool::new(false);
    for turn in 0..TURNS {
        if let GameStatus::Over(result) = history.status(&rules) {
            return match result.outcome {
                Outcome::Win(winner) if winner == strong => Ok(turn),
                _ => Err(format!("{result:?} after {turn} turns")),
            };
        }
        let side = history.position().side_to_move();
        let searcher = &mut searchers[usize::from(side != strong)];
        let result = searcher.search(
            history.position(),
            history.earlier_hashes(),
            &SearchLimits::nodes(NODES),
            &stop,
            |_| {},
        );
        if std::env::var("CONVERSION_TRACE").is_ok() {
            eprintln!("{turn} {side:?} {:.3} {:?}", result.value, result.best_turn);
        }
        history
            .play(&rules, &result.best_turn)
            .map_err(|error| format!("turn {turn} does not play: {error}"))?;
    }
    match history.status(&rules) {
        GameStatus::Over(result) if result.outcome == Outcome::Win(strong) => Ok(TURNS),
        status => Err(format!("not won within {TURNS} turns: {status:?}")),
    }
}

#[test]
fn the_strong_side_converts_the_suite_against_greedy() {
    let text = include_str!("../positions/tactics/conversion.txt");
    let only = std::env::var("CONVERSION_ONLY").ok();
    let positions: Vec<&str> = text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .filter(|line| only.as_deref().is_none_or(|only| line.starts_with(only)))
        .collect();
    assert!(
        positions.len() >= 20 || only.is_some(),
        "the suite has {}",
        positions.len()
    );
    let failures: Vec<String> = positions
        .iter()
        .filter_map(|position| {
            convert(position)
                .err()
                .map(|reason| format!("{position}: {reason}"))
        })
        .collect();
    if !failures.is_empty() {
        eprintln!("not converted:\n{}", failures.join("\n"));
    }
    assert!(
        failures.is_empty(),
        "{} of {} not converted:\n{}",
        failures.len(),
        positions.len(),
        failures.join("\n")
    );
}
