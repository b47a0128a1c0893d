//! The state's choice of searches, and its clocks.

use super::*;

fn state() -> Arc<Shared> {
    let command = EngineCommand::parse("engine-that-is-never-started").unwrap();
    Shared::new([command.clone(), command])
}

#[test]
fn each_mode_asks_the_engines_for_the_right_search() {
    let shared = state();
    let mut state = shared.lock();
    // Play, the person to move: nothing; then the engine's turn.
    assert_eq!(state.wanted(), [None, None]);
    state.game.play_text("home.r1.b3.g3").unwrap();
    state.game_changed();
    let [first, second] = state.wanted();
    let first = first.unwrap();
    assert_eq!(
        (first.purpose, first.ply, first.mover),
        (Purpose::Turn, 1, Player::Second)
    );
    assert_eq!(second, None);
    // A paused game asks for nothing.
    state.paused = true;
    assert_eq!(state.wanted(), [None, None]);
    state.resume();
    // Watch: the engine of the side to move.
    state.mode = Mode::Watch;
    assert_eq!(state.wanted()[0], None);
    assert_eq!(state.wanted()[1].unwrap().purpose, Purpose::Turn);
    // Review with analysis: the shown position, until stopped.
    state.mode = Mode::Review;
    state.cursor = 0;
    state.analysing = true;
    let analysis = state.wanted()[0].unwrap();
    assert_eq!((analysis.purpose, analysis.ply), (Purpose::Analysis, 0));
    // A game over asks for no turn.
    state.mode = Mode::Play;
    state.game.resignation = Some(crate::tools::gui::game::Resignation {
        loser: Player::First,
        reason: "resigned",
    });
    assert_eq!(state.wanted(), [None, None]);
}

#[test]
fn a_clock_that_runs_out_loses_the_game() {
    let shared = state();
    let mut state = shared.lock();
    state.time_control = TimeControl::Clock {
        initial: 1000,
        increment: 0,
    };
    let game = Game::new(Board::default(), Rules::STANDARD).unwrap();
    state.start_game(game, Mode::Play);
    let times = state.clock_times().unwrap();
    assert!(times[0] <= 1000 && times[1] == 1000, "{times:?}");
    assert!(!state.check_clock());
    state.turn_started = Instant::now() - Duration::from_millis(1500);
    assert!(state.check_clock());
    assert_eq!(
        state.game.over_text().as_deref(),
        Some("0-1 player 0 lost on time")
    );
}
