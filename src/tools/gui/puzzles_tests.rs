use super::*;
use crate::rules::{Action, TurnEnumerator};

/// The puzzles of one kind.
fn of_kind(kind: Kind) -> Vec<&'static Puzzle> {
    all().iter().filter(|puzzle| puzzle.kind == kind).collect()
}

/// The turn and comment fields of a one-turn-shots line: (played, safe).
fn shot_turns(index: usize) -> (String, String) {
    let text = SUITES[3].1;
    let line = text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .nth(index)
        .unwrap();
    let word_after = |marker: &str| {
        line.split_once(marker)
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap()
            .to_string()
    };
    (word_after("played "), word_after("nodes: "))
}

#[test]
fn every_suite_line_is_a_puzzle() {
    for (kind, text) in SUITES {
        let lines = text
            .lines()
            .filter(|line| !line.trim().is_empty() && !line.trim().starts_with('#'))
            .count();
        assert!(lines >= 10, "{kind:?}: {lines} lines");
        assert_eq!(of_kind(kind).len(), lines, "{kind:?}");
    }
}

#[test]
fn puzzles_from_sdg_games_name_the_game_and_turn() {
    let first = of_kind(Kind::WinInOne)[0];
    assert_eq!(first.source.as_deref(), Some("SDG game 608, turn 50"));
    assert_eq!(first.goal, "win this turn");
    let two_turn = of_kind(Kind::TwoTurn);
    assert_eq!(
        two_turn[0].source.as_deref(),
        Some("SDG game 1100, turn 37")
    );
    // The engine's own match games are not SDG games.
    assert!(two_turn.iter().any(|puzzle| puzzle.source.is_none()));
    assert!(of_kind(Kind::Material)
        .iter()
        .all(|puzzle| puzzle.source.is_none()));
}

#[test]
fn a_win_in_one_is_solved_by_the_win_and_failed_by_a_pass() {
    let puzzle = of_kind(Kind::WinInOne)[0];
    let rules = Rules::STANDARD;
    let win = Solver::default()
        .find_win(&puzzle.board.position, &rules)
        .unwrap();
    let text = format_turn(&puzzle.board, &rules, &win, Style::Sdg);
    let verdict = judge(puzzle, &text).unwrap();
    assert_eq!(verdict.solved, Some(true), "{verdict:?}");
    let verdict = judge(puzzle, "pass").unwrap();
    assert_eq!(verdict.solved, Some(false), "{verdict:?}");
    assert!(verdict.text.contains("does not win"), "{verdict:?}");
}

#[test]
fn a_must_defend_blunder_is_refuted_by_the_opponents_win() {
    let rules = Rules::STANDARD;
    let puzzle = of_kind(Kind::MustDefend)[0];
    // The suite's positions have both: a turn that lets the opponent win at
    // once (the game's), and one that does not.
    let (mut blunder, mut defence) = (None, None);
    let mut solver = Solver::default();
    TurnEnumerator::default().for_each_turn(
        &puzzle.board.position,
        &rules,
        |actions, result, outcome| {
            if outcome != Outcome::Ongoing {
                return;
            }
            let slot = match solver.find_win(result, &rules) {
                Some(_) => &mut blunder,
                None => &mut defence,
            };
            slot.get_or_insert_with(|| actions.to_vec());
        },
    );
    let text = |actions: Vec<Action>| format_turn(&puzzle.board, &rules, &actions, Style::Sdg);
    let blunder = text(blunder.unwrap());
    let verdict = judge(puzzle, &blunder).unwrap();
    assert_eq!(verdict.solved, Some(false), "{blunder}: {verdict:?}");
    // The refutation is a real win: played after the blunder, it ends the
    // game.
    let mut game = Game::new(puzzle.board.clone(), rules).unwrap();
    game.play_text(&blunder).unwrap();
    game.play_text(verdict.refutation.as_deref().unwrap())
        .unwrap();
    assert!(game.result().is_some(), "{verdict:?}");
    let defence = text(defence.unwrap());
    let verdict = judge(puzzle, &defence).unwrap();
    assert_eq!(verdict.solved, Some(true), "{defence}: {verdict:?}");
}

#[test]
fn a_material_shot_is_refuted_and_the_safe_turn_solves_it() {
    let puzzle = of_kind(Kind::Material)[0];
    let (played, safe) = shot_turns(0);
    let verdict = judge(puzzle, &played).unwrap();
    assert_eq!(verdict.solved, Some(false), "{played}: {verdict:?}");
    assert!(verdict.text.contains("takes 8.5"), "{verdict:?}");
    assert!(verdict.refutation.is_some(), "{verdict:?}");
    let verdict = judge(puzzle, &safe).unwrap();
    assert_eq!(verdict.solved, Some(true), "{safe}: {verdict:?}");
}

#[test]
fn a_two_turn_pass_is_refuted_by_the_opponents_plan() {
    let puzzle = of_kind(Kind::TwoTurn)[0];
    let verdict = judge(puzzle, "pass").unwrap();
    assert_eq!(verdict.solved, Some(false), "{verdict:?}");
    assert!(verdict.refutation.is_some(), "{verdict:?}");
}

#[test]
fn bad_answers_are_refused_with_a_reason() {
    let error = answer(&AnswerRequest {
        puzzle: usize::MAX,
        turn: "pass".to_string(),
    })
    .unwrap_err();
    assert!(error.contains("no such puzzle"), "{error}");
    let error = answer(&AnswerRequest {
        puzzle: 0,
        turn: "Build Q9 Nowhere".to_string(),
    })
    .unwrap_err();
    assert!(error.contains("cannot be played"), "{error}");
}
