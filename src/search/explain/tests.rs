//! Each fact in a position where it holds, and not where it does not.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::*;
use crate::rules::Piece;
use crate::rules::{Slot, TurnEnumerator};
use crate::search::testing::position;
use crate::search::{SearchLimits, SearchOptions, Searcher};

fn piece(text: &str) -> Piece {
    Piece::parse(text).unwrap()
}

/// Player 0 has a large red at player 1's home, whose only ship is small:
/// capturing it wins.
fn win_in_one() -> Position {
    position(&[("r1b3", "g3", ""), ("y2b2", "r3", "g1")], 0)
}

/// Player 1 to move; player 0's large red at player 1's home can capture
/// its only ship, and building a second ship is the only defence.
fn in_check() -> Position {
    position(&[("y1g2", "r1", ""), ("y3g3", "r3", "b3")], 1)
}

/// Player 0 to move with a large red and a yellow at a system next to
/// player 1's home, which holds two small ships.
fn one_move_from_a_capture() -> Position {
    position(
        &[("r1b3", "g3", ""), ("y2b2", "", "g1y1"), ("b1", "r3y1", "")],
        0,
    )
}

/// The search's answer `turn` with `decision` and `line` as its principal
/// variation.
fn answer(turn: Vec<Action>, decision: Decision, line: Line) -> SearchResult {
    let mut result = SearchResult::decided(turn, 0.1, decision, Duration::ZERO);
    result.info.principal_variation = line;
    result
}

fn fact_of(position: &Position, result: &SearchResult) -> Fact {
    explain(position, &Rules::CLI, &Tunables::default(), result).fact
}

fn search(position: &Position, nodes: u64) -> SearchResult {
    let options = SearchOptions {
        threads: 1,
        hash_mb: 16,
        rules: Rules::CLI,
        ..SearchOptions::default()
    };
    let limits = SearchLimits {
        nodes: Some(nodes),
        ..SearchLimits::default()
    };
    Searcher::new(options).search(position, &[], &limits, &AtomicBool::new(false), |_| {})
}

/// As [`one_move_from_a_capture`], with one ship at player 1's home: once
/// the large red moves in, capturing it wins.
fn one_move_from_a_win() -> Position {
    position(
        &[("r1b3", "g3", ""), ("y2b2", "", "g1"), ("b1", "r3y1", "")],
        0,
    )
}

const HOME1: Slot = 1;

#[test]
fn a_win_in_one_is_named() {
    let position = win_in_one();
    let result = search(&position, 500);
    let capture = vec![Action::Capture {
        system: HOME1,
        ship: piece("g1"),
    }];
    assert_eq!(result.best_turn, capture);
    assert_eq!(
        fact_of(&position, &result),
        Fact::Win {
            win: vec![capture.clone()]
        }
    );
    // A pass there is no win.
    let passed = answer(Vec::new(), Decision::Search, vec![Vec::new()]);
    assert!(!matches!(fact_of(&position, &passed), Fact::Win { .. }));
}

#[test]
fn in_check_the_threat_is_named_and_the_only_defence_is_said_to_be_so() {
    let position = in_check();
    let result = search(&position, 500);
    assert_eq!(result.decision, Decision::OnlySafeTurn);
    let threat = vec![Action::Capture {
        system: HOME1,
        ship: piece("b3"),
    }];
    match fact_of(&position, &result) {
        Fact::Defends {
            threat: line, only, ..
        } => {
            assert_eq!(line, vec![Vec::new(), threat]);
            assert!(only);
        }
        other => panic!("{other:?}"),
    }
    // Out of check no threat is named.
    let quiet = one_move_from_a_capture();
    let result = answer(Vec::new(), Decision::Search, vec![Vec::new()]);
    assert!(matches!(fact_of(&quiet, &result), Fact::Expected { .. }));
}

#[test]
fn a_parried_sacrifice_shot_names_the_sacrifice_and_its_captures() {
    // Player 0 to move, its large red and blue at player 1's home, where
    // player 1's red sacrifice elsewhere would capture both.
    let mut threatened = crate::search::testing::walked_into_a_red_sacrifice();
    threatened = Position::from_parts(
        [Some(threatened.system(0)), Some(threatened.system(1))],
        [true, true],
        &(2..crate::rules::SLOT_COUNT as Slot)
            .map(|slot| threatened.system(slot))
            .filter(|system| system.exists())
            .collect::<Vec<_>>(),
        crate::rules::Player::First,
        TurnState::Start,
    )
    .unwrap();
    let rules = Rules::CLI;
    let tunables = Tunables::default();
    let mut parry = None;
    TurnEnumerator::default().for_each_turn(&threatened, &rules, |actions, _, outcome| {
        if parry.is_none()
            && outcome == Outcome::Ongoing
            && parried_shot(&threatened, &rules, &tunables, actions).is_some()
        {
            parry = Some(actions.to_vec());
        }
    });
    let parry = parry.expect("some turn takes the two large ships out of reach");
    let result = answer(parry.clone(), Decision::Search, vec![parry]);
    match fact_of(&threatened, &result) {
        Fact::DefendsShot { shot, captured, .. } => {
            assert_eq!(captured, [0, 0, 2]);
            let [pass, actions] = shot.as_slice() else {
                panic!("{shot:?}");
            };
            assert!(pass.is_empty());
            assert!(matches!(
                actions[0],
                Action::Sacrifice { ship, .. } if ship == piece("r2")
            ));
            assert_eq!(actions.len(), 3, "a medium red buys two captures");
        }
        other => panic!("{other:?}"),
    }
    // A pass leaves the shot: it parries nothing.
    let pass = answer(Vec::new(), Decision::Search, vec![Vec::new()]);
    assert!(!matches!(
        fact_of(&threatened, &pass),
        Fact::DefendsShot { .. }
    ));
}

#[test]
fn a_forced_win_in_two_names_the_win_after_a_pass() {
    let position = one_move_from_a_win();
    let approach = vec![Action::Move {
        from: 2,
        to: HOME1,
        ship: piece("r3"),
    }];
    let result = answer(
        approach.clone(),
        Decision::ForcedWinInTwo,
        vec![approach.clone()],
    );
    match fact_of(&position, &result) {
        Fact::WinInTwo { turn, finish } => {
            assert_eq!(turn, vec![approach.clone()]);
            let finish = finish.expect("after a pass the red captures");
            assert_eq!(finish[0], approach);
            assert!(finish[1].is_empty());
            assert!(matches!(
                finish[2][..],
                [Action::Capture { system: HOME1, .. }, ..]
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_line_whose_next_turn_captures_builds_towards_it() {
    let position = one_move_from_a_capture();
    let approach = vec![Action::Move {
        from: 2,
        to: HOME1,
        ship: piece("r3"),
    }];
    let capture = vec![Action::Capture {
        system: HOME1,
        ship: piece("y1"),
    }];
    let line = vec![approach.clone(), Vec::new(), capture.clone()];
    let result = answer(approach.clone(), Decision::Search, line.clone());
    assert_eq!(
        fact_of(&position, &result),
        Fact::BuildsTowards {
            goal: Goal::Capture { size: 1 },
            line
        }
    );
    // A line whose next turn does nothing builds towards nothing: the
    // expected line, cut to its first turns.
    let quiet = vec![approach.clone(), Vec::new(), Vec::new(), Vec::new()];
    let result = answer(approach.clone(), Decision::Search, quiet.clone());
    assert_eq!(
        fact_of(&position, &result),
        Fact::Expected {
            line: quiet[..LINE_TURNS].to_vec()
        }
    );
}

#[test]
fn decisions_without_a_search_are_their_own_facts() {
    let position = in_check();
    let setup = answer(Vec::new(), Decision::Setup, Vec::new());
    assert_eq!(fact_of(&position, &setup), Fact::Setup);
    let draw = answer(Vec::new(), Decision::ForcedDraw, Vec::new());
    assert_eq!(fact_of(&position, &draw), Fact::ForcedDraw);
    let lost = answer(Vec::new(), Decision::NoSafeTurn, Vec::new());
    assert!(matches!(
        fact_of(&position, &lost),
        Fact::NoSafeTurn { threat: Some(_) }
    ));
    let sampled = answer(Vec::new(), Decision::LimitedStrength, Vec::new());
    let explanation = explain(&position, &Rules::CLI, &Tunables::default(), &sampled);
    assert!(explanation.limited);
    assert_eq!(explanation.after, 0.1);
    // The threat is still named for a sampled turn in check.
    assert!(matches!(
        explanation.fact,
        Fact::Defends { only: false, .. }
    ));
}
