//! The engine's tests: positions, options, searches and pondering.

use super::options::{memory_total_bytes, MOVE_OVERHEAD_TUNABLE};
use super::*;
use crate::rules::{
    Colour, EndReason, Outcome, Piece, PieceSet, PlayError, Player, Repetition, System, TurnState,
};
use crate::search::Evaluation;
use std::sync::mpsc;

fn piece(colour: Colour, size: u8) -> Piece {
    Piece::new(colour, size).unwrap()
}

/// The two setup turns of `r1b3:g3:/y2b1::g3 0`.
fn setup_turns() -> Vec<Vec<Action>> {
    vec![
        vec![Action::Homeworld {
            star: piece(Colour::Red, 1),
            second_star: Some(piece(Colour::Blue, 3)),
            ship: piece(Colour::Green, 3),
        }],
        vec![Action::Homeworld {
            star: piece(Colour::Yellow, 2),
            second_star: Some(piece(Colour::Blue, 1)),
            ship: piece(Colour::Green, 3),
        }],
    ]
}

/// The position after the setup turns.
fn after_setup() -> Position {
    let mut position = Position::start();
    for turn in setup_turns() {
        for action in turn {
            position.try_apply(&Rules::STANDARD, action).unwrap();
        }
        position.end_turn(&Rules::STANDARD).unwrap();
    }
    position
}

/// Starts a search whose final outcome arrives on the channel returned.
fn start_go(engine: &mut Engine, limits: SearchLimits) -> mpsc::Receiver<GoOutcome> {
    let (sender, receiver) = mpsc::channel();
    engine
        .go(
            limits,
            Box::new(move |event| {
                if let SearchEvent::Finished(outcome) = event {
                    let _ = sender.send(outcome.clone());
                }
            }),
        )
        .unwrap();
    receiver
}

fn run_go(engine: &mut Engine, limits: SearchLimits) -> GoOutcome {
    let receiver = start_go(engine, limits);
    let outcome = receiver.recv().unwrap();
    engine.wait();
    outcome
}

#[test]
fn a_bad_turn_leaves_the_position_unchanged() {
    let mut engine = Engine::default();
    let turns = setup_turns();
    engine.set_position(Position::start(), &turns[..1]).unwrap();
    let before = *engine.position();
    let build = vec![Action::Build {
        system: 1,
        piece: piece(Colour::Green, 1),
    }];
    let error = engine
        .set_position(Position::start(), &[turns[0].clone(), build])
        .unwrap_err();
    assert!(
        matches!(error, PositionError::Turn { index: 2, .. }),
        "{error}"
    );
    assert_eq!(engine.position(), &before);
    assert_eq!(engine.played_turns().len(), 1);
    let mut mid_turn = after_setup();
    mid_turn.try_apply(&Rules::STANDARD, Action::Pass).unwrap();
    assert_eq!(
        engine.set_position(mid_turn, &[]),
        Err(PositionError::MidTurn)
    );
    assert_eq!(engine.position(), &before);
}

#[test]
fn repetition_is_judged_by_the_setting() {
    let base = after_setup();
    let turns = vec![Vec::new(); 4];
    let mut engine = Engine::default();
    engine.set_position(base, &turns).unwrap();
    assert_eq!(
        engine.status(),
        GameStatus::Ongoing {
            repetitions: 3,
            claimable: true
        }
    );
    engine.set_option("Repetition", "auto@3").unwrap();
    assert!(matches!(
        engine.status(),
        GameStatus::Over(GameResult {
            reason: EndReason::Repetition,
            ..
        })
    ));
    let error = engine.set_position(base, &vec![Vec::new(); 5]).unwrap_err();
    assert!(matches!(
        error,
        PositionError::Turn {
            index: 5,
            error: PlayError::GameOver(_)
        }
    ));
    assert!(error.to_string().contains("1/2-1/2 repetition"), "{error}");
    engine.set_option("Repetition", "off").unwrap();
    engine.set_option("MaxTurns", "4").unwrap();
    engine.set_position(base, &turns).unwrap();
    assert!(matches!(
        engine.status(),
        GameStatus::Over(GameResult {
            reason: EndReason::TurnLimit,
            ..
        })
    ));
}

#[test]
fn the_rules_are_one_value() {
    let mut engine = Engine::default();
    engine.set_option("Repetition", "auto@4").unwrap();
    engine.set_option("MaxTurns", "50").unwrap();
    let rules = engine.rules();
    assert_eq!(rules.repetition, Repetition::Automatic(4));
    assert_eq!(rules.max_turns, Some(50));
    assert_eq!(engine.options().rules, rules);
    // Rules replaces the whole value with the profile.
    engine.set_option("Rules", "sdg").unwrap();
    assert_eq!(engine.rules(), Rules::SDG);
    engine.set_option("Repetition", "claim@5").unwrap();
    assert_eq!(engine.rules().repetition, Repetition::Claim(5));
    assert!(engine.rules().any_ship_size);
    engine.set_option("Repetition", "profile").unwrap();
    assert_eq!(engine.rules(), Rules::SDG);
    engine.set_option("MaxTurns", "0").unwrap();
    assert_eq!(engine.rules().max_turns, None);
}

#[test]
fn the_evaluation_options_switch_and_refuse_bad_files() {
    let mut engine = Engine::default();
    assert_eq!(engine.options().tunables.evaluation(), Evaluation::DEFAULT);
    engine.set_option("Eval", "hand").unwrap();
    assert_eq!(engine.options().tunables.evaluation(), Evaluation::Hand);
    engine.set_option("Eval", "learned").unwrap();
    assert_eq!(engine.options().tunables.evaluation(), Evaluation::Learned);
    let before = engine.options().clone();
    let error = engine
        .set_option("EvalFile", "/no/such/network.net")
        .unwrap_err();
    assert!(error.to_string().contains("EvalFile"), "{error}");
    assert_eq!(engine.options(), &before);
    let path = std::env::temp_dir().join("supernova-bad-network.net");
    std::fs::write(&path, "supernova-value 1\nfeatures 9\n").unwrap();
    let error = engine
        .set_option("EvalFile", path.to_str().unwrap())
        .unwrap_err();
    assert!(error.to_string().contains("feature set 9"), "{error}");
    assert_eq!(engine.options(), &before);
    std::fs::write(&path, ValueNetwork::embedded().write()).unwrap();
    engine
        .set_option("EvalFile", path.to_str().unwrap())
        .unwrap();
    assert_eq!(engine.options().tunables.evaluation(), Evaluation::Learned);
    let _ = std::fs::remove_file(&path);
    assert!(engine.set_option("Eval", "neural").is_err());
    engine.set_option("Eval", "hand").unwrap();
    assert_eq!(engine.options().tunables.evaluation(), Evaluation::Hand);
}

#[test]
fn options_are_checked() {
    let mut engine = Engine::default();
    assert!(engine.set_option("Hash", "0").is_err());
    assert!(engine.set_option("hash", "16").is_ok());
    assert_eq!(engine.options().hash_mb, 16);
    assert!(engine.set_option("Player", "minimax").is_err());
    assert!(engine.set_option("player", "Greedy").is_ok());
    assert!(engine.set_option("cpuct", "1e9").is_err());
    assert!(engine.set_option("cpuct", "NaN").is_err());
    assert!(engine.set_option("Move Overhead", "10").is_ok());
    assert_eq!(
        engine.options().tunables.get(MOVE_OVERHEAD_TUNABLE),
        Some(10.0)
    );
    assert!(matches!(
        engine.set_option("Nope", "1"),
        Err(OptionError::UnknownName(_))
    ));
}

#[test]
fn threads_and_hash_are_bounded_by_the_machine() {
    let processors = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(max_threads(), (2 * processors).min(1024));
    assert!(max_hash_mb() >= SearchOptions::default().hash_mb);
    if let Some(bytes) = memory_total_bytes() {
        assert!(max_hash_mb() as u64 <= (bytes >> 20).max(64));
    }
    let mut engine = Engine::default();
    assert!(engine
        .set_option("Threads", &max_threads().to_string())
        .is_ok());
    assert!(engine
        .set_option("Threads", &(max_threads() + 1).to_string())
        .is_err());
    assert!(engine
        .set_option("Hash", &(max_hash_mb() + 1).to_string())
        .is_err());
    assert_eq!(engine.options().threads, max_threads());
    let spec = |name: &str| {
        option_specs()
            .into_iter()
            .find(|spec| spec.name == name)
            .map(|spec| spec.kind)
    };
    assert!(
        matches!(spec("Threads"), Some(OptionKind::Spin { max, .. }) if max == max_threads() as i64)
    );
    assert!(
        matches!(spec("Hash"), Some(OptionKind::Spin { max, .. }) if max == max_hash_mb() as i64)
    );
}

#[test]
fn move_overhead_is_listed_once() {
    let specs = option_specs();
    let overhead: Vec<&OptionSpec> = specs
        .iter()
        .filter(|spec| {
            spec.name.eq_ignore_ascii_case("Move Overhead") || spec.name == MOVE_OVERHEAD_TUNABLE
        })
        .collect();
    assert_eq!(overhead.len(), 1);
    assert_eq!(overhead[0].name, "Move Overhead");
    assert!(matches!(
        Engine::default().set_option(MOVE_OVERHEAD_TUNABLE, "10"),
        Err(OptionError::UnknownName(_))
    ));
}

#[test]
fn a_ponder_search_waits_for_ponderhit_then_searches_its_limits() {
    let mut engine = Engine::default();
    engine
        .set_position(Position::start(), &setup_turns())
        .unwrap();
    assert!(!engine.ponder_hit(), "nothing to hit");
    let limits = SearchLimits {
        nodes: Some(300),
        ponder: true,
        ..SearchLimits::default()
    };
    let receiver = start_go(&mut engine, limits);
    assert!(engine.is_pondering() && engine.is_searching_infinitely());
    // Options cannot change meanwhile, and stay as they were.
    assert_eq!(engine.set_option("MultiPV", "4"), Err(OptionError::Busy));
    assert_eq!(engine.set_option("Ponder", "true"), Err(OptionError::Busy));
    assert_eq!(engine.options().multi_pv, 1);
    assert!(!engine.settings().ponder);
    assert!(engine.ponder_hit());
    assert!(!engine.ponder_hit(), "hit once");
    let GoOutcome::Turn { result } = receiver.recv().unwrap() else {
        panic!("expected a turn");
    };
    engine.wait();
    assert_eq!(
        result.info.iterations, 300,
        "the go's own limit after the hit"
    );
    assert!(!engine.is_searching());
}

#[test]
fn go_plays_a_legal_turn_and_reports_game_over() {
    let mut engine = Engine::default();
    engine.set_option("Player", "greedy").unwrap();
    let outcome = run_go(&mut engine, SearchLimits::nodes(100));
    let GoOutcome::Turn { result } = outcome else {
        panic!("expected a turn");
    };
    let mut history = engine.history().clone();
    history.play(&engine.rules(), &result.best_turn).unwrap();
    // Player 1 has no home: player 0 has won.
    let home = System {
        stars: PieceSet::single(piece(Colour::Red, 1)),
        ships: [PieceSet::single(piece(Colour::Green, 3)), PieceSet::EMPTY],
    };
    let over = Position::from_parts(
        [Some(home), None],
        [true, true],
        &[],
        Player::Second,
        TurnState::Start,
    )
    .unwrap();
    engine.set_position(over, &[]).unwrap();
    assert_eq!(
        run_go(&mut engine, SearchLimits::nodes(100)),
        GoOutcome::GameOver {
            result: GameResult {
                outcome: Outcome::Win(Player::First),
                reason: EndReason::Elimination
            },
            search: None
        }
    );
}
