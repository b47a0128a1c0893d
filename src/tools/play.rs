//! `supernova play`: a person against the engine in a terminal.
//!
//! The game lives in an [`Engine`] (the same one the protocol drives), so
//! repetition, claims and results are judged exactly as they are for a GUI.
//! The tool keeps the board with its system names and every turn's text
//! form; the engine only sees actions.
//! Turns are typed in any phrasing `Board::play_turn_text` reads (SDG
//! `Build G1 Home0; Pass`, homeworlds-cli `build g1 at Home0`, protocol
//! tokens); a mistake is answered with what is wrong and what is possible.
//! Input is read line by line from any reader, so the game works (and is
//! tested) with stdin piped.
//!
//! A level (`--level`, [`crate::tools::levels`]) is set as the engine's
//! `UCI_LimitStrength` and `UCI_Elo` options. The rulebook's handicaps
//! ([`crate::tools::handicaps`]) are game options: under a timewarp the
//! tool's own [`History`] referees who moves, and the engine is given the
//! game from the last turn after which the players alternate; Red Alert
//! asks the exact checkers; `swap` is Brain Transference; `hint` spends a
//! Tactical Computer token when they are rationed.

use std::io::{BufRead, Write};
use std::sync::mpsc;

use crate::engine::{Engine, GoOutcome, SearchEvent};
use crate::notation::turn::NamedTurn;
use crate::notation::turn::{format_action, format_turn, Style};
use crate::notation::Board;
use crate::protocol::text::{board_text, result_text, rules_text, value_text};
use crate::rules::{Action, Colour, GameStatus, History, Player, Position, Rules, TurnState};
use crate::search::{SearchLimits, SearchOptions};
use crate::tools::handicaps::{red_alert_after, red_alert_now, Handicaps};
use crate::tools::levels::NamedLevel;

/// How a game is set up.
#[derive(Clone, Debug)]
pub struct PlaySettings {
    /// The person's seat (player 0 creates first and moves first).
    pub human: Player,
    /// The board to start from.
    pub start: Board,
    /// The engine's options (rules, player, threads, seed).
    pub options: SearchOptions,
    /// The limit for each engine turn and each hint.
    pub limits: SearchLimits,
    /// The engine's level, or `None` for its options as they are.
    pub level: Option<NamedLevel>,
    /// The rulebook's handicaps for the person.
    pub handicaps: Handicaps,
}

const HELP: &str = "\
Type a turn, actions separated by ';', for example:
  homeworld r1 b3 g3            (setup: two stars, then your ship)
  build g1 Home0; pass
  sacrifice y2 Home0; move g3 Home0 Delos; discover g1 Home0 b2
  catastrophe Home1 red
A protocol token such as build.g1.Home0 works too. Commands:
  help    this text                undo   take back your last turn
  hint    the engine's suggestion  eval   the engine's evaluation
  board   show the board           turns  list some legal turns
  claim   claim a draw by repetition (when allowed)
  swap    change sides with the engine (Brain Transference, once)
  quit    leave the game";

/// The most single actions or turns listed after a mistake.
const LISTED: usize = 30;

/// Plays a game, reading the person's lines from `input`. The board is
/// shown once before each of the person's turns (and at the end), not after
/// every turn.
///
/// # Errors
/// Only failed reads or writes.
pub fn play(
    settings: &PlaySettings,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> std::io::Result<()> {
    let mut game = match Game::new(settings) {
        Ok(game) => game,
        Err(error) => {
            writeln!(output, "error: {error}")?;
            return Ok(());
        }
    };
    let rules = game.engine.rules();
    writeln!(
        output,
        "Supernova: you are player {} ({}). Rules: {}. Type 'help' for help.",
        game.human.index(),
        if game.human == Player::First {
            "you create first"
        } else {
            "the engine creates first"
        },
        rules_text(&rules)
    )?;
    if let Some(level) = settings.level {
        writeln!(output, "Level: {}.", level.text())?;
    }
    if !settings.handicaps.text().is_empty() {
        writeln!(output, "Handicaps: {}.", settings.handicaps.text())?;
    }
    // Whether the board has been shown since it last changed.
    let mut board_shown = false;
    loop {
        if let GameStatus::Over(result) = game.history.status(&rules) {
            if !board_shown {
                write!(output, "{}", board_text(&game.board))?;
            }
            writeln!(output, "Game over: {}", result_text(&result))?;
            return Ok(());
        }
        if game.board.position.side_to_move() != game.human {
            if !game.engine_turn(output)? {
                return Ok(());
            }
            board_shown = false;
            continue;
        }
        if !board_shown {
            write!(output, "{}", board_text(&game.board))?;
            board_shown = true;
            if let Some(alert) = red_alert_now(&game.board, &rules, game.handicaps.red_alert) {
                writeln!(output, "{alert}")?;
            }
        }
        write!(output, "your turn (player {})> ", game.human.index())?;
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(output)?;
            writeln!(output, "End of input: the game is left unfinished.")?;
            return Ok(());
        }
        let line = line.trim();
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("").to_ascii_lowercase();
        let rest: Vec<&str> = words.collect();
        match first.as_str() {
            "" => {}
            "help" | "?" => writeln!(output, "{HELP}")?,
            "quit" | "exit" | "resign" => {
                writeln!(output, "You leave the game.")?;
                return Ok(());
            }
            "board" | "d" | "show" => write!(output, "{}", board_text(&game.board))?,
            "undo" => {
                if game.undo(output)? {
                    board_shown = false;
                }
            }
            "hint" => game.hint(output)?,
            "eval" => {
                let value = game.engine.evaluate();
                writeln!(
                    output,
                    "static evaluation for you: {}",
                    value_text(value, (value + 1.0) / 2.0)
                )?;
            }
            "turns" => game.list_turns(output, rest.first().and_then(|word| word.parse().ok()))?,
            "swap" => {
                if game.swap(output)? {
                    board_shown = false;
                }
            }
            "claim" => match game.history.claim(&game.rules()) {
                Some(result) => {
                    writeln!(
                        output,
                        "You claim a draw by repetition. Game over: {}.",
                        result_text(&result)
                    )?;
                    return Ok(());
                }
                None => writeln!(output, "error: no draw by repetition can be claimed now")?,
            },
            _ => {
                if game.human_turn(line, input, output)? {
                    board_shown = false;
                }
            }
        }
    }
}

/// The game in progress.
struct Game {
    engine: Engine,
    /// The board the game started from.
    start: Board,
    /// The board now, with every system's name.
    board: Board,
    /// Every turn since the start, with the names its discoveries got.
    turns: Vec<NamedTurn>,
    /// The referee: who moves (a timewarp's bonus turns), repetition and
    /// the result.
    history: History,
    human: Player,
    limits: SearchLimits,
    handicaps: Handicaps,
    /// Tactical Computer tokens left, when they are rationed.
    tokens: Option<u8>,
    /// Whether Brain Transference has been used.
    swapped: bool,
    /// The engine's level, if one was set.
    level: Option<NamedLevel>,
}

/// Hands `board`'s position to the mover `history` says is next (a
/// timewarp's bonus turn keeps the mover), as a pass would hand it.
fn follow_mover(board: &mut Board, history: &History, rules: &Rules) {
    if board.position.side_to_move() != history.position().side_to_move() {
        let _ = board.position.end_turn(rules);
    }
}

/// How many actions a turn leaves unused inside a sacrifice, with the
/// sacrifice's colour: the turn's actions replayed from `position`, without
/// ending the turn. `None` when the turn is not inside a sacrifice at its end.
fn missing_sacrifice_actions(
    position: &Position,
    rules: &Rules,
    actions: &[Action],
) -> Option<(u8, Colour)> {
    let mut working = *position;
    for &action in actions {
        working.try_apply(rules, action).ok()?;
    }
    match working.turn_state() {
        TurnState::Sacrifice { colour, remaining } if remaining > 0 => Some((remaining, colour)),
        _ => None,
    }
}

impl Game {
    /// The game `settings` ask for, the engine at its level.
    ///
    /// # Errors
    /// The start cannot begin a game (with a timewarp: one after setup),
    /// or the engine refuses the level.
    fn new(settings: &PlaySettings) -> Result<Game, String> {
        let mut engine = Engine::new(settings.options.clone());
        if let Some(level) = settings.level {
            for (name, value) in level.options() {
                engine
                    .set_option(name, &value)
                    .map_err(|error| format!("cannot set the level: {error}"))?;
            }
        }
        let history = settings
            .handicaps
            .history(&settings.start.position)
            .map_err(|error| format!("cannot start from this position: {error}"))?;
        engine
            .set_position(settings.start.position, &[])
            .map_err(|error| format!("cannot start from this position: {error}"))?;
        Ok(Game {
            engine,
            start: settings.start.clone(),
            board: settings.start.clone(),
            turns: Vec::new(),
            history,
            human: settings.human,
            limits: settings.limits,
            handicaps: settings.handicaps,
            tokens: settings.handicaps.tokens,
            swapped: false,
            level: settings.level,
        })
    }

    fn rules(&self) -> Rules {
        self.engine.rules()
    }

    /// Replays `turns` from the start on a board and a referee's history.
    ///
    /// # Errors
    /// A turn does not play (a bug: each was checked when played).
    fn replay(&self, turns: &mut [NamedTurn]) -> Result<(Board, History), String> {
        let rules = self.rules();
        let mut board = self.start.clone();
        let mut history = self.handicaps.history(&self.start.position)?;
        for turn in turns {
            turn.replay(&mut board, &rules)
                .map_err(|error| error.to_string())?;
            history
                .play(&rules, &turn.actions)
                .map_err(|error| error.to_string())?;
            follow_mover(&mut board, &history, &rules);
        }
        Ok((board, history))
    }

    /// Hands the game to the engine as actions: from the start, or under a
    /// timewarp from the last turn after which the players alternate (the
    /// engine's own history alternates strictly).
    fn tell_engine(&mut self) -> Result<(), String> {
        let since = self.history.alternating_since();
        let mut before = self.turns[..since].to_vec();
        let (from, _) = self.replay(&mut before)?;
        let actions: Vec<Vec<Action>> = self.turns[since..]
            .iter()
            .map(|turn| turn.actions.clone())
            .collect();
        self.engine
            .set_position(from.position, &actions)
            .map_err(|error| error.to_string())
    }

    /// Adds a turn played on `board` (the board after it) and hands the
    /// game to the engine.
    ///
    /// # Errors
    /// The referee or the engine refuses the turn (a bug: the turn was
    /// checked on the board); nothing changes then.
    fn push_turn(&mut self, turn: NamedTurn, mut board: Board) -> Result<(), String> {
        let rules = self.rules();
        let mut history = self.history.clone();
        history
            .play(&rules, &turn.actions)
            .map_err(|error| error.to_string())?;
        follow_mover(&mut board, &history, &rules);
        let saved = (self.history.clone(), self.board.clone());
        self.history = history;
        self.turns.push(turn);
        self.board = board;
        if let Err(error) = self.tell_engine() {
            self.turns.pop();
            (self.history, self.board) = saved;
            return Err(error);
        }
        Ok(())
    }

    /// Whether the opponent moves after `actions` are played now.
    fn opponent_moves_after(&self, actions: &[Action]) -> bool {
        let mut history = self.history.clone();
        history.play(&self.rules(), actions).is_ok()
            && history.position().side_to_move() != self.human
    }

    /// Plays the person's turn, or explains what is wrong and what is
    /// possible. Returns whether the turn was played.
    fn human_turn(
        &mut self,
        text: &str,
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> std::io::Result<bool> {
        let rules = self.rules();
        let before = self.board.clone();
        let mut board = before.clone();
        let turn = match board.play_turn_text(&rules, text) {
            Ok(turn) => turn,
            Err(error) => {
                writeln!(output, "error: {error}")?;
                self.list_actions(output)?;
                return Ok(false);
            }
        };
        // A sacrifice grants actions; a turn that stops right after it is
        // more likely unfinished typing than a choice to waste them.
        if let Some((missing, colour)) =
            missing_sacrifice_actions(&before.position, &rules, &turn.actions)
        {
            writeln!(
                output,
                "error: the sacrifice's actions are missing: it grants {missing} more {} action{}; type them after it, separated by ';', and 'pass' for each one you give up",
                colour.word(),
                if missing == 1 { "" } else { "s" }
            )?;
            return Ok(false);
        }
        let opponent_next = self.opponent_moves_after(&turn.actions);
        if let Some(alert) = red_alert_after(
            &before,
            &rules,
            &turn.actions,
            self.handicaps.red_alert,
            opponent_next,
        ) {
            write!(output, "{alert} (yes/no)> ")?;
            output.flush()?;
            let mut answer = String::new();
            input.read_line(&mut answer)?;
            if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
                writeln!(output, "Turn not played: it is still your turn.")?;
                return Ok(false);
            }
        }
        let text = turn.format(&before, &rules, Style::Sdg);
        if let Err(error) = self.push_turn(turn, board) {
            writeln!(output, "error: {error}")?;
            return Ok(false);
        }
        writeln!(output, "You play: {text}")?;
        Ok(true)
    }

    /// Lists the single actions possible now (the first step of any turn).
    fn list_actions(&self, output: &mut dyn Write) -> std::io::Result<()> {
        let board = &self.board;
        let rules = self.rules();
        let mut actions: Vec<String> = Vec::new();
        board.position.for_each_action(&rules, |action| {
            let text = format_action(board, action, Style::Readable);
            if !actions.contains(&text) {
                actions.push(text);
            }
        });
        actions.sort();
        let more = actions.len().saturating_sub(LISTED);
        actions.truncate(LISTED);
        writeln!(
            output,
            "Actions you can start your turn with (or 'pass'): {}{}",
            actions.join(", "),
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        )?;
        writeln!(
            output,
            "Type 'turns' for whole legal turns, 'help' for the notation."
        )
    }

    /// Lists some whole legal turns.
    fn list_turns(&self, output: &mut dyn Write, limit: Option<usize>) -> std::io::Result<()> {
        let board = &self.board;
        let rules = self.rules();
        let mut turns: Vec<String> = board
            .position
            .legal_turns(&rules)
            .iter()
            .map(|turn| format_turn(board, &rules, &turn.actions, Style::Sdg))
            .collect();
        turns.sort();
        let total = turns.len();
        let limit = limit.unwrap_or(LISTED);
        for turn in turns.iter().take(limit) {
            writeln!(output, "  {turn}")?;
        }
        writeln!(
            output,
            "{total} distinct legal turns ({} shown)",
            total.min(limit)
        )
    }

    /// Takes back the person's last turn (and the engine's replies after
    /// it), by who played each turn (a timewarp may give one player
    /// several in a row). Returns whether anything was undone.
    fn undo(&mut self, output: &mut dyn Write) -> std::io::Result<bool> {
        let movers = self.history.movers();
        let Some(last_own) = (0..self.turns.len())
            .rev()
            .find(|&index| movers[index] == self.human)
        else {
            writeln!(output, "error: nothing to undo")?;
            return Ok(false);
        };
        let mut turns = self.turns[..last_own].to_vec();
        let (board, history) = match self.replay(&mut turns) {
            Ok(replayed) => replayed,
            Err(error) => {
                writeln!(output, "error: {error}")?;
                return Ok(false);
            }
        };
        let saved = (
            std::mem::replace(&mut self.turns, turns),
            std::mem::replace(&mut self.board, board),
            std::mem::replace(&mut self.history, history),
        );
        if let Err(error) = self.tell_engine() {
            (self.turns, self.board, self.history) = saved;
            writeln!(output, "error: {error}")?;
            return Ok(false);
        }
        writeln!(output, "Undone.")?;
        Ok(true)
    }

    /// Brain Transference: the person takes the engine's side, once a
    /// game, and the engine plays the person's old side at the same level.
    /// Returns whether the sides changed.
    fn swap(&mut self, output: &mut dyn Write) -> std::io::Result<bool> {
        if !self.handicaps.brain_transference {
            writeln!(
                output,
                "error: Brain Transference is not one of this game's handicaps (--brain-transference)"
            )?;
            return Ok(false);
        }
        if self.swapped {
            writeln!(
                output,
                "error: Brain Transference was already used in this game"
            )?;
            return Ok(false);
        }
        self.swapped = true;
        self.human = self.human.opponent();
        writeln!(
            output,
            "Brain Transference: you now play player {}; the engine takes player {} at the same level.",
            self.human.index(),
            self.human.opponent().index()
        )?;
        Ok(true)
    }

    /// Runs one search and waits for it.
    fn search(&mut self) -> Option<GoOutcome> {
        let (sender, receiver) = mpsc::channel();
        let started = self.engine.go(
            self.limits,
            Box::new(move |event| {
                if let SearchEvent::Finished(outcome) = event {
                    let _ = sender.send(outcome.clone());
                }
            }),
        );
        if started.is_err() {
            return None;
        }
        let outcome = receiver.recv().ok();
        self.engine.wait();
        outcome
    }

    /// Shows the engine's suggestion for the person, spending a Tactical
    /// Computer token when they are rationed.
    fn hint(&mut self, output: &mut dyn Write) -> std::io::Result<()> {
        if self.tokens == Some(0) {
            return writeln!(output, "error: no Tactical Computer tokens left");
        }
        let board = self.board.clone();
        let rules = self.rules();
        // A hint is the engine's best turn, not one drawn at its level.
        let limited = self.level.is_some_and(|level| level.elo.is_some());
        if limited {
            let _ = self.engine.set_option("UCI_LimitStrength", "false");
        }
        let outcome = self.search();
        if limited {
            let _ = self.engine.set_option("UCI_LimitStrength", "true");
        }
        match outcome {
            Some(GoOutcome::Turn { result }) => {
                let left = self.tokens.map(|tokens| tokens - 1);
                self.tokens = left;
                writeln!(
                    output,
                    "hint: {}  ({}){}",
                    format_turn(&board, &rules, &result.best_turn, Style::Sdg),
                    value_text(result.value, result.win_probability()),
                    left.map_or_else(String::new, |left| format!(
                        "; Tactical Computer tokens left: {left}"
                    ))
                )
            }
            Some(GoOutcome::GameOver { .. }) => writeln!(
                output,
                "hint: the engine would claim a draw by repetition ('claim')"
            ),
            None => writeln!(output, "error: the engine could not search"),
        }
    }

    /// Lets the engine move. Returns false when the game ended by its claim.
    fn engine_turn(&mut self, output: &mut dyn Write) -> std::io::Result<bool> {
        let before = self.board.clone();
        let rules = self.rules();
        match self.search() {
            Some(GoOutcome::Turn { result }) => {
                let mut board = before.clone();
                let mut turn = NamedTurn::new(&result.best_turn);
                let played = turn
                    .replay(&mut board, &rules)
                    .map_err(|error| error.to_string())
                    .and_then(|()| self.push_turn(turn, board));
                if let Err(error) = played {
                    writeln!(output, "error: the engine's turn does not play: {error}")?;
                    return Ok(false);
                }
                writeln!(
                    output,
                    "Supernova plays: {}  ({} for Supernova)",
                    format_turn(&before, &rules, &result.best_turn, Style::Sdg),
                    value_text(result.value, result.win_probability())
                )?;
                Ok(true)
            }
            Some(GoOutcome::GameOver { result, .. }) => {
                writeln!(
                    output,
                    "Supernova claims a draw by repetition. Game over: {}.",
                    result_text(&result)
                )?;
                Ok(false)
            }
            None => {
                writeln!(output, "error: the engine could not search")?;
                Ok(false)
            }
        }
    }
}
