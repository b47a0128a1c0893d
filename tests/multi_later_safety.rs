//! The multi-player safety check beyond the next player: a turn after
//! which the next player cannot hurt the mover but the one after can
//! eliminate it is known before it is played, in the search and end to end
//! through the binary; with the check on the next player only (as it once
//! was) the search walks into it.

mod engine_process;

use engine_process::{synchronise, Engine};
use supernova::notation::multi::{self, MultiBoard};
use supernova::rules::multi::MultiAction;
use supernova::rules::Rules;
use supernova::search::multi::{turns, MultiSearch, MultiSearchOptions};

/// A three-player position from a self-play game, seat 0 to move. Seat 2
/// can sacrifice a yellow ship at home to move its Y2 through Kotok and
/// its Y3 from Minsky into Home0: with seat 0's Y1 and Y3 that makes four
/// yellow pieces, and the yellow catastrophe leaves seat 0 no ship at
/// home. Seat 1, who moves first, has no such reach. Most of seat 0's turns
/// leave the threat standing; trading or moving a yellow ship away from
/// home ends it.
const THREATENED: &str = "players=3 Home0=r3b2:y1y3::/Home1=r3b2::r3y1y1y2g1g2:\
/Home2=r3b2:::y2y3y3g1g3/Kotok=b1:::b1/Minsky=b1::r2g3b2:y3/Lebling=b1:g1g2g3::/Delos=y1:g1g2:: 0";

/// Positions a listing may look at here: far more than the turns have,
/// so that "no threat" is exact.
const EXHAUSTIVE: usize = 2_000_000;

/// The board after `turn` on [`THREATENED`].
fn after(turn: &[MultiAction]) -> MultiBoard {
    let mut board = multi::parse(THREATENED).unwrap();
    board.play_actions(&Rules::STANDARD, turn).unwrap();
    board
}

/// Whether seat 1 (to move) or seat 2 can make seat 0 lose on `board`.
fn threats(board: &MultiBoard) -> (bool, bool) {
    let rules = Rules::STANDARD;
    let next = turns::loses_next_turn(&board.position, &rules, 0, EXHAUSTIVE);
    let later = turns::loses_to_player(&board.position, &rules, 0, 2, EXHAUSTIVE).0;
    (next, later)
}

fn search(seed: u64, later_safety: bool) -> (Vec<MultiAction>, &'static str) {
    let board = multi::parse(THREATENED).unwrap();
    let mut search = MultiSearch::new(MultiSearchOptions {
        iterations: 300,
        seed,
        later_safety,
        ..MultiSearchOptions::default()
    });
    let turn = search.best_turn(&board.position, &Rules::STANDARD);
    (turn, search.report().decision)
}

#[test]
fn the_threat_of_the_player_after_next_is_seen_and_avoided() {
    // The next player cannot hurt seat 0 whatever it does: only seat 2 can.
    let board = multi::parse(THREATENED).unwrap();
    assert!(!turns::loses_next_turn(
        &board.position,
        &Rules::STANDARD,
        0,
        EXHAUSTIVE
    ));
    // Checking the next player only, the search walks into seat 2's
    // catastrophe.
    let (old, _) = search(6_366_164_054_559_803_334, false);
    assert_eq!(threats(&after(&old)), (false, true), "{old:?}");
    // Checking the later players too, it replaces that choice with a turn
    // after which nobody can eliminate seat 0, with every seed.
    let (new, decision) = search(6_366_164_054_559_803_334, true);
    assert_eq!(decision, "safety");
    assert_eq!(threats(&after(&new)), (false, false), "{new:?}");
    for seed in 1..=4 {
        let (turn, _) = search(seed, true);
        assert_eq!(
            threats(&after(&turn)),
            (false, false),
            "seed {seed}: {turn:?}"
        );
    }
}

#[test]
fn the_engine_does_not_play_into_the_later_threat() {
    for seed in [1, 2] {
        let mut engine = Engine::start();
        engine.send("setoption name Players value 3");
        engine.send(&format!("setoption name Seed value {seed}"));
        engine.send(&format!("position pos {THREATENED}"));
        assert!(synchronise(&mut engine).is_empty());
        engine.send("go nodes 300");
        let lines = engine.read_until(|line| line.starts_with("bestmove"));
        let token = lines.last().unwrap()["bestmove ".len()..].to_string();
        let mut board = multi::parse(THREATENED).unwrap();
        board
            .play_turn_text(&Rules::STANDARD, &token)
            .unwrap_or_else(|error| panic!("{token}: {error}"));
        assert_eq!(threats(&board), (false, false), "seed {seed}: {token}");
        engine.quit();
    }
}
