use super::bound::{yellow_cost, yellow_moves};
use super::*;
use crate::rules::Player;
use crate::rules::TurnEnumerator;
use crate::search::testing::position;

fn brute_force(position: &Position, rules: &Rules) -> bool {
    let mover = position.side_to_move();
    let mut found = false;
    TurnEnumerator::default().for_each_turn(position, rules, |_, _, outcome| {
        found |= outcome == Outcome::Win(mover);
    });
    found
}

/// Checks the solver and brute force on a position given as systems
/// (see `testing`), player 0 to move; `text` is its HWPN, for messages.
fn check(text: &str, systems: &[(&str, &str, &str)], expected: bool) {
    let position = position(systems, 0);
    let rules = Rules::STANDARD;
    assert_eq!(
        brute_force(&position, &rules),
        expected,
        "brute force on {text}"
    );
    let mut solver = Solver::default();
    let win = solver.find_win(&position, &rules);
    assert_eq!(win.is_some(), expected, "solver on {text}");
    if let Some(actions) = win {
        let mut replay = position;
        for action in actions {
            replay.try_apply(&rules, action).unwrap();
        }
        assert_eq!(
            replay.end_turn(&rules),
            Ok(Outcome::Win(position.side_to_move()))
        );
    }
}

#[test]
fn direct_capture_wins() {
    check(
        "r1b3:r3g3:/y2b1:g2:g1 0",
        &[("r1b3", "r3g3", ""), ("y2b1", "g2", "g1")],
        true,
    );
}

#[test]
fn sitting_duck_falls_to_one_move() {
    // Player 1 has three blue pieces at home (b1 star, two b2 ships);
    // player 0 moves a blue ship in and fires the catastrophe.
    check(
        "r1y3:g3:/y2b1::b2b2/y3:b1: 0",
        &[("r1y3", "g3", ""), ("y2b1", "", "b2b2"), ("y3", "b1", "")],
        true,
    );
}

#[test]
fn a_win_through_a_catastrophe_at_the_own_home_is_found() {
    // Player 0's home (y2 b3) shares size 2 with the target (y1 b2):
    // its blue ships reach the target only once a yellow catastrophe
    // at home has left the b3 star alone. The y3 sacrifice gives three
    // moves: y1 home (the fourth yellow there), then both b1 ships to
    // the target, whose blue catastrophe destroys the last defender;
    // the g2 ship keeps the home alive.
    check(
        "y2b3:y1y2g2b1b1:/y1b2::b1/g1:y3y1: 0",
        &[
            ("y2b3", "y1y2g2b1b1", ""),
            ("y1b2", "", "b1"),
            ("g1", "y3y1", ""),
        ],
        true,
    );
    // One yellow short at home: the catastrophe needs two moves there,
    // and the bound prices that, where it once counted the home's
    // ships as one jump away for free.
    let short = [
        ("y2b3", "y1g2b1b1", ""),
        ("y1b2", "", "b1"),
        ("g1", "y3y1", ""),
    ];
    let mover = Player::from_index(0).unwrap();
    assert!(yellow_cost(&position(&short, 0), mover, 3) <= 3);
    assert!(yellow_moves(&position(&short, 0), mover, 3) > 3);
    check("y2b3:y1g2b1b1:/y1b2::b1/g1:y3y1: 0", &short, false);
}

#[test]
fn the_last_ship_at_home_cannot_complete_a_cover_alone() {
    // The b3 ship's move completes the target's blue overpopulation, but
    // it is player 0's only ship at home: the catastrophe eliminates
    // both players, a draw. The bound counts the move that would have
    // to bring a ship home.
    let lone = position(&[("r3y3", "b3", ""), ("y2b1", "", "b2b2")], 0);
    let mover = Player::from_index(0).unwrap();
    assert!(yellow_cost(&lone, mover, 1) <= 1);
    assert_eq!(yellow_moves(&lone, mover, 1), 2);
    assert!(!may_win(&lone, &Rules::STANDARD));
    check(
        "r3y3:b3:/y2b1::b2b2 0",
        &[("r3y3", "b3", ""), ("y2b1", "", "b2b2")],
        false,
    );
    // With a second ship at home the same move wins.
    check(
        "r3y3:g1b3:/y2b1::b2b2 0",
        &[("r3y3", "g1b3", ""), ("y2b1", "", "b2b2")],
        true,
    );
}

#[test]
fn the_bound_prices_the_pieces_a_catastrophe_at_the_target_needs_first() {
    // From suite position 53, after a turn of player 0: its blue ship
    // at home reaches the target (y1 b2, defended by green and blue)
    // only once the target's b2 star is gone, which needs that very
    // blue piece there first. The simpler pricing passed it (2 moves
    // for a green and a blue), and the solver searched to say no.
    let systems = [
        ("y2b3", "r2g1g1g3b1", ""),
        ("y1b2", "", "g1g2b1b3"),
        ("g3", "y3", ""),
        ("r3", "y1y2", ""),
        ("y1", "y3", ""),
    ];
    let after = position(&systems, 0);
    let mover = Player::from_index(0).unwrap();
    assert!(yellow_cost(&after, mover, 3) <= 3);
    assert!(yellow_moves(&after, mover, 3) > 3);
    assert!(!may_win(&after, &Rules::STANDARD));
    check(
        "y2b3:r2g1g1g3b1:/y1b2::g1g2b1b3/g3:y3:/r3:y1y2:/y1:y3: 0",
        &systems,
        false,
    );
}

#[test]
fn a_remembered_win_is_replayed_only_where_it_still_wins() {
    let rules = Rules::STANDARD;
    let mut solver = Solver::default();
    // The sitting duck: a blue ship moves in and fires the catastrophe.
    let first = position(
        &[("r1y3", "g3", ""), ("y2b1", "", "b2b2"), ("y3", "b1", "")],
        0,
    );
    let win = solver.find_win(&first, &rules).expect("a win");
    let searched = solver.states();
    assert!(searched > 1, "the first win is searched for");
    // An unrelated extra ship at home: the same win, replayed.
    let similar = position(
        &[("r1y3", "g3g1", ""), ("y2b1", "", "b2b2"), ("y3", "b1", "")],
        0,
    );
    assert_eq!(solver.find_win(&similar, &rules), Some(win.clone()));
    assert_eq!(solver.states(), 1, "one replay, no search");
    // The blue ship in another system: the remembered move is illegal,
    // and the search finds the other win.
    let moved = position(
        &[
            ("r1y3", "g3", ""),
            ("y2b1", "", "b2b2"),
            ("b3", "g1", ""),
            ("y3", "b1", ""),
        ],
        0,
    );
    let other = solver
        .find_win(&moved, &rules)
        .expect("a win from the other system");
    assert_ne!(other, win);
    assert!(brute_force(&moved, &rules));
    // No blue ship at all: the replays fail and there is no win.
    let quiet = position(
        &[("r1y3", "g3", ""), ("y2b1", "", "b2b2"), ("y3", "g1", "")],
        0,
    );
    assert!(!solver.can_win(&quiet, &rules));
    assert!(!brute_force(&quiet, &rules));
}

#[test]
fn replaying_first_under_a_limit_gives_the_bound_first_answers() {
    // The two-turn checker proves a plan with the replay-first form;
    // over positions with and without a win, one after another so that
    // remembered wins are replayed where they no longer win too, it
    // must answer as the bound-first form does, and as brute force.
    let rules = Rules::STANDARD;
    let (mut bound_first, mut replay_first) = (Solver::default(), Solver::default());
    let mut wins = 0;
    let start = position(
        &[
            ("r1y3", "g3", ""),
            ("y2b1", "", "b2b2"),
            ("b3", "g1", ""),
            ("y3", "b1y1", ""),
        ],
        0,
    );
    let mut positions = vec![start];
    start.for_each_action(&rules, |action| {
        let mut next = start;
        next.apply_unchecked(&rules, action);
        if next.end_turn(&rules).is_ok() {
            // Back to player 0, as if player 1 had passed.
            if next.end_turn(&rules).is_ok() {
                positions.push(next);
            }
        }
    });
    for position in &positions {
        let expected = brute_force(position, &rules);
        wins += usize::from(expected);
        let limit = u64::MAX;
        assert_eq!(
            bound_first.can_win_limited(position, &rules, limit),
            Some(expected)
        );
        assert_eq!(
            replay_first.can_win_limited_expected(position, &rules, limit),
            Some(expected)
        );
    }
    assert!(
        wins > 0 && wins < positions.len(),
        "{wins} of {}",
        positions.len()
    );
}

/// Asks the replay-first form about every turn's result from `start`
/// (where the opponent threatens a win at once), with a solver that
/// skips the replays it knows the answer of and with one that replays
/// every time: the answers, the states counted and the paths must be the
/// same, and brute force must agree on every `sample`-th. Returns the turns
/// whose result the opponent wins, how many of those were known, and
/// the remembering solver's last win (what its keys read).
fn same_as_replaying(start: &Position, rules: &Rules, sample: usize) -> (usize, usize, Verified) {
    let mut results = Vec::new();
    TurnEnumerator::default().for_each_turn(start, rules, |_, result, outcome| {
        if outcome == Outcome::Ongoing {
            results.push(*result);
        }
    });
    let (mut remembering, mut replaying) = (Solver::default(), Solver::default());
    let (mut known, mut wins) = (0, 0);
    for (index, result) in results.iter().enumerate() {
        known += usize::from(
            remembering
                .verified_key(result, rules)
                .is_some_and(|key| remembering.verified[0].keys.contains(key)),
        );
        replaying.verified.clear();
        replaying.front_verified = false;
        let answer = remembering.can_win_limited_expected(result, rules, u64::MAX);
        let replayed = replaying.can_win_limited_expected(result, rules, u64::MAX);
        assert_eq!(answer, replayed, "turn {index}");
        assert_eq!(remembering.states(), replaying.states(), "turn {index}");
        assert_eq!(remembering.path, replaying.path, "turn {index}");
        wins += usize::from(answer == Some(true));
        if index % sample == 0 {
            assert_eq!(answer, Some(brute_force(result, rules)), "turn {index}");
        }
    }
    (wins, known, remembering.verified.swap_remove(0))
}

#[test]
fn a_known_win_answers_as_its_replay_in_a_big_position_in_check() {
    // A dev position in check (game 33544, turn 47, player 1 to move):
    // the opponent wins at once after most of its turns, and the
    // classification asks the replay-first form after each.
    let rules = Rules::STANDARD;
    let text = "Draw5Playall (0, r2b2) y3g1g3- | Wil (1, y1b1) b3-b3 | Y3 (y3) -r1r2g2b1 \
                | G1 (g1) -b1b2 | G3 (g3) r2- | B3 (b3) -y1y2 | R3 (r3) -y2y3 \
                | Ntvwbp (r1) y1g2g3b2-";
    let start = crate::notation::cli::parse(text, Player::Second)
        .unwrap()
        .position;
    let (wins, known, verified) = same_as_replaying(&start, &rules, 499);
    // 55,465 of the 56,669 turns that leave the game going lose to a
    // sacrifice, moves and a catastrophe, which reads no bank.
    assert_eq!(wins, 55_465);
    assert!(known > wins / 2, "{known} of {wins} known");
    assert!(!verified.bank && !verified.stars);
}

#[test]
fn a_known_win_that_builds_answers_as_its_replay() {
    // Player 1's g1 at player 0's home can build a green there, the
    // fourth, and fire it: the g3 star and player 0's only ship go. The
    // win takes its piece from the bank, which player 0's builds and
    // trades change, so the keys read the bank.
    let rules = Rules::STANDARD;
    let start = position(
        &[
            ("g3y2", "g2", "g1"),
            ("r1b3", "", "y3"),
            ("b1", "y1r2", ""),
            ("y1", "g1b2", "r3"),
            ("b2", "y2", ""),
        ],
        0,
    );
    let (wins, known, verified) = same_as_replaying(&start, &rules, 1);
    assert!(wins > 10, "{wins} wins");
    assert!(known > 0, "{known} of {wins} known");
    assert!(verified.bank, "the win builds: {:?}", verified.win);
}

#[test]
fn quiet_position_has_no_win() {
    check(
        "r1b2:g3:/y1b3::g3 0",
        &[("r1b2", "g3", ""), ("y1b3", "", "g3")],
        false,
    );
}

#[test]
fn mutual_elimination_is_not_a_win() {
    // T6: the only eliminating turn also kills the mover: a draw.
    check(
        "r1b3:y3:y3g3/y2:y1y1:r1 0",
        &[("r1b3", "y3", "y3g3"), ("y2", "y1y1", "r1")],
        false,
    );
}
