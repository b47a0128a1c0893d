//! Carrying out the page's commands on the state, once [`Command::parse`]
//! has read them. What the game or the rules refuse (an illegal turn, a
//! bad position, a number out of range) is told to the person and answered
//! with the message; the state is then as it was, but for the message.

use std::sync::Arc;

use super::api::{CheckReply, ChoicesReply, Command, HandicapsRequest, NewGameRequest};
use super::game::{partial_turn, Game, Resignation};
use super::http::Answer;
use super::state::{Mode, Shared, State, TimeControl};
use crate::notation::{cli, hwpn, Board};
use crate::rules::{Player, Rules, Timewarp};
use crate::tools::handicaps::{red_alert_after, Handicaps, RedAlert, MAX_TOKENS};
use crate::tools::levels::NamedLevel;

/// The legal next actions after the page's partial turn.
pub fn choices(shared: &Arc<Shared>, actions: &[String]) -> Answer {
    let state = shared.lock();
    if !state.person_to_move() {
        return Answer::error(409, "it is not your turn");
    }
    let prefix: Vec<&str> = actions
        .iter()
        .map(|action| action.trim())
        .filter(|action| !action.is_empty())
        .collect();
    let board = state.game.board_at(state.cursor).clone();
    let rules = state.game.rules;
    drop(state);
    match partial_turn(&board, &rules, &prefix) {
        Err(error) => Answer::error(400, &error),
        Ok(partial) => Answer::json(&ChoicesReply::new(&partial)),
    }
}

/// Red Alert's question before the person ends a turn (`text`, in any
/// notation `/api/turn` reads): the warning when the opponent, moving
/// next, could then win. The turn is tried on a copy of the game.
pub fn check(shared: &Arc<Shared>, text: &str) -> Answer {
    let state = shared.lock();
    if !state.person_to_move() {
        return Answer::error(409, "it is not your turn");
    }
    let setting = state.game.handicaps.red_alert;
    if state.mode != Mode::Play || setting == RedAlert::Off {
        return Answer::json(&CheckReply { alert: None });
    }
    let human = state.human;
    let mut trial = state.game.clone();
    drop(state);
    let before = trial.board().clone();
    if let Err(error) = trial.play_text(text) {
        return Answer::error(400, &error);
    }
    let actions = trial
        .turns()
        .last()
        .map(|turn| turn.named.actions.clone())
        .unwrap_or_default();
    let opponent_next = trial.result().is_none() && trial.board().position.side_to_move() != human;
    let alert = red_alert_after(&before, &trial.rules, &actions, setting, opponent_next);
    Answer::json(&CheckReply { alert })
}

/// Carries out a command that changes the state, telling the person why
/// when it fails.
///
/// # Errors
/// Why the command was refused.
pub fn carry_out(state: &mut State, command: Command) -> Result<(), String> {
    let outcome = match command {
        Command::Turn(request) => play_turn(state, &request.turn),
        Command::New(request) => new_game(state, request),
        Command::Undo => undo(state),
        Command::Resign => resign(state),
        Command::Goto(request) => {
            state.cursor = request.ply.min(state.game.turns().len());
            Ok(())
        }
        Command::Analyse(request) => {
            state.analysing = request.on;
            if let Some(count) = request.multipv {
                state.multipv = count.clamp(1, 8);
            }
            Ok(())
        }
        Command::Mode(request) => {
            set_mode(state, request.mode);
            Ok(())
        }
        Command::Scan(request) => match request.nodes.unwrap_or(1000) {
            nodes @ 1..=10_000_000 => {
                state.scan(nodes);
                Ok(())
            }
            _ => Err("expected nodes from 1 to 10000000".to_string()),
        },
        Command::Position(request) => set_position(state, &request.position),
        Command::Load(request) => load_record(state, &request.record),
        Command::Resume => {
            state.resume();
            Ok(())
        }
        Command::Hint => ask_hint(state),
        Command::Swap => swap(state),
    };
    if let Err(message) = &outcome {
        state.tell(message, true);
    }
    outcome
}

/// Changes what the page is used for: the end of the game is shown but in
/// review, and analysis starts with the analyse mode.
fn set_mode(state: &mut State, mode: Mode) {
    state.mode = mode;
    if mode != Mode::Review {
        state.cursor = state.game.turns().len();
    }
    if mode == Mode::Analyse {
        state.analysing = true;
    }
    state.paused = false;
}

/// Plays the person's turn (text in any notation the notation layer reads).
fn play_turn(state: &mut State, text: &str) -> Result<(), String> {
    if !state.person_to_move() {
        return Err("it is not your turn".to_string());
    }
    let mut game = state.game.clone();
    game.truncate(state.cursor);
    let mover = game.board().position.side_to_move();
    game.play_text(text)?;
    // A turn played before the end replaces the rest of the game, and the
    // values of its positions with it.
    state.evaluations.truncate(state.cursor + 1);
    state.game = game;
    state.charge_clock(mover);
    state.game_changed();
    state.cursor = state.game.turns().len();
    match state.game.over_text() {
        Some(over) => state.tell(format!("game over: {over}"), false),
        None => state.tell("", false),
    }
    Ok(())
}

/// A new game from the empty start, in the mode, side and time control
/// asked for (each kept as it was when left out).
fn new_game(state: &mut State, request: NewGameRequest) -> Result<(), String> {
    let mode = request.mode.unwrap_or(state.mode);
    let human = match request.side {
        None => state.human,
        Some(0) => Player::First,
        Some(1) => Player::Second,
        Some(_) => return Err("expected side 0 or 1".to_string()),
    };
    let time_control = match request.time_control {
        None => state.time_control,
        Some(time_control) if valid_time_control(time_control) => time_control,
        Some(_) => {
            return Err(
                "expected a movetime of 1 to 3600000 ms, 1 to 100000000 nodes, or a clock of 1 s to 10 h with an increment up to 10 min"
                    .to_string(),
            )
        }
    };
    let level = match request.level {
        Some(name) => NamedLevel::find(&name)?,
        None => state.level,
    };
    let handicaps = match (mode, request.handicaps) {
        (Mode::Play, Some(asked)) => read_handicaps(asked, human)?,
        _ => Handicaps::default(),
    };
    let game = Game::with_handicaps(Board::default(), Rules::STANDARD, handicaps)?;
    state.human = human;
    state.time_control = time_control;
    state.level = level;
    state.start_game(game, mode);
    if mode == Mode::Play {
        state.analysing = false;
    }
    let mut message = format!(
        "new game: {}; engines think {}",
        mode.word(),
        state.time_control.text()
    );
    if mode == Mode::Play {
        message.push_str(&format!("; level {}", level.text()));
        if !handicaps.text().is_empty() {
            message.push_str(&format!("; handicaps: {}", handicaps.text()));
        }
    }
    state.tell(message, false);
    Ok(())
}

/// The handicaps a new game asks for, the person (`human`) the junior.
///
/// # Errors
/// A number out of range, said in words.
fn read_handicaps(asked: HandicapsRequest, human: Player) -> Result<Handicaps, String> {
    let timewarp = match asked.timewarp {
        0 => None,
        count => Some(Timewarp::new(human, count).map_err(|error| format!("timewarp: {error}"))?),
    };
    if asked.tokens.is_some_and(|tokens| tokens > MAX_TOKENS) {
        return Err(format!(
            "expected 0 to {MAX_TOKENS} Tactical Computer tokens"
        ));
    }
    Ok(Handicaps {
        timewarp,
        red_alert: RedAlert::from_level(asked.red_alert)?,
        brain_transference: asked.brain_transference,
        tokens: asked.tokens,
    })
}

/// Asks the engine for the person's turn (Tactical Computer), spending a
/// token when it answers.
fn ask_hint(state: &mut State) -> Result<(), String> {
    if state.mode != Mode::Play || !state.person_to_move() || state.game.result().is_some() {
        return Err("a hint is for your turn in a game you play".to_string());
    }
    if state.tokens == Some(0) {
        return Err("no Tactical Computer tokens left".to_string());
    }
    state.hint_wanted = Some((state.game_id, state.game.turns().len()));
    state.tell("Tactical Computer: thinking…", false);
    Ok(())
}

/// Brain Transference: the person takes the engine's side for the rest of
/// the game, once; the engine plays the other side at the same level.
fn swap(state: &mut State) -> Result<(), String> {
    if !state.can_swap() {
        return Err(
            if state.game.handicaps.brain_transference && state.swapped {
                "Brain Transference was already used in this game".to_string()
            } else {
                "Brain Transference is not one of this game's handicaps".to_string()
            },
        );
    }
    state.swapped = true;
    state.human = state.human.opponent();
    state.hint_wanted = None;
    state.game.swaps.push(state.game.turns().len());
    state.tell(
        format!(
            "Brain Transference: you now play player {}; the engine takes player {} at the same level",
            state.human.index(),
            state.human.opponent().index()
        ),
        false,
    );
    Ok(())
}

/// Whether the engines may be given `time_control`: a bound on every form,
/// so that a mistyped number cannot hang a game for days.
fn valid_time_control(time_control: TimeControl) -> bool {
    match time_control {
        TimeControl::Movetime(time) => (1..=3_600_000).contains(&time),
        TimeControl::Nodes(nodes) => (1..=100_000_000).contains(&nodes),
        TimeControl::Clock { initial, increment } => {
            (1000..=36_000_000).contains(&initial) && increment <= 600_000
        }
    }
}

/// Takes back the last turn, and in play the engine's reply before it, so
/// that it is the person's turn again; in a review's variation, the
/// variation's last turn only (`review::undo_in_variation`).
fn undo(state: &mut State) -> Result<(), String> {
    if let Some(outcome) = super::review::undo_in_variation(state) {
        return outcome;
    }
    let length = state.game.turns().len();
    if length == 0 {
        return Err("no turn to take back".to_string());
    }
    let mut count = 1;
    if state.mode == Mode::Play {
        let side_after = |turns: usize| state.game.board_at(turns).position.side_to_move();
        while count < length && side_after(length - count) != state.human {
            count += 1;
        }
    }
    state.game.undo(count);
    state.game_changed();
    state.turn_started = std::time::Instant::now();
    state.cursor = state.game.turns().len();
    state.paused = false;
    state.tell(format!("took back {count} turn(s)"), false);
    Ok(())
}

/// The person resigns the game they play.
fn resign(state: &mut State) -> Result<(), String> {
    if state.mode != Mode::Play || state.game.result().is_some() {
        return Err("there is no game of yours going on".to_string());
    }
    state.game.resignation = Some(Resignation {
        loser: state.human,
        reason: "resigned",
    });
    state.game_changed();
    let over = state.game.over_text().unwrap_or_default();
    state.tell(format!("you resigned: {over}"), false);
    Ok(())
}

/// Sets up a position from HWPN (or homeworlds-cli state text).
fn set_position(state: &mut State, text: &str) -> Result<(), String> {
    let text = text.trim();
    let board = hwpn::parse(text)
        .or_else(|error| cli::parse(text, Player::First).map_err(|_| error))
        .map_err(|error| format!("bad position: {error}"))?;
    // The handicaps stay, but the timewarp, whose bonus turns follow a
    // setup this game does not have.
    let handicaps = Handicaps {
        timewarp: None,
        ..state.game.handicaps
    };
    let game = Game::with_handicaps(board, Rules::STANDARD, handicaps)?;
    let mode = if state.mode == Mode::Review {
        Mode::Analyse
    } else {
        state.mode
    };
    state.start_game(game, mode);
    state.tell("position set", false);
    Ok(())
}

/// Loads an SDG record or a Board Game Arena log for review.
fn load_record(state: &mut State, text: &str) -> Result<(), String> {
    let (game, note) = Game::from_record(text)?;
    let count = game.turns().len();
    state.start_game(game, Mode::Review);
    match note {
        Some(note) => state.tell(format!("loaded {count} turns; stopped at {note}"), true),
        None => state.tell(format!("loaded {count} turns"), false),
    }
    Ok(())
}
