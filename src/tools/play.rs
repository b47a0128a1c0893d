//! `supernova play`: a person against the engine in a terminal.
//!
//! The game lives in an [`Engine`] (the same one the protocol drives), so
//! repetition, claims and results are judged exactly as they are for a GUI.
//! Turns are typed in any phrasing `Board::play_turn_text` reads (SDG
//! `Build G1 Home0; Pass`, homeworlds-cli `build g1 at Home0`, protocol
//! tokens); a mistake is answered with what is wrong and what is possible.
//! Input is read line by line from any reader, so the game works (and is
//! tested) with stdin piped.

use std::io::{BufRead, Write};
use std::sync::mpsc;

use crate::engine::{Engine, GameStatus, GoOutcome, SearchEvent};
use crate::notation::turn::{format_action, format_turn, Style};
use crate::notation::Board;
use crate::protocol::text::{board_text, rules_text, status_text, value_text};
use crate::rules::{Player, Rules};
use crate::search::{SearchLimits, SearchOptions};

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
  quit    leave the game";

/// The most single actions or turns listed after a mistake.
const LISTED: usize = 30;

/// Plays a game, reading the person's lines from `input`.
///
/// # Errors
/// Only failed reads or writes.
pub fn play(
    settings: &PlaySettings,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> std::io::Result<()> {
    let mut game = Game {
        engine: Engine::new(settings.options.clone()),
        start: settings.start.clone(),
        tokens: Vec::new(),
        human: settings.human,
        limits: settings.limits,
    };
    if let Err(error) = game.engine.set_position(game.start.clone(), &game.tokens) {
        writeln!(output, "error: cannot start from this position: {error}")?;
        return Ok(());
    }
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
    write!(output, "{}", board_text(game.engine.board()))?;
    loop {
        if let GameStatus::Over(result) = game.engine.status() {
            writeln!(
                output,
                "Game over: {}",
                status_text(&GameStatus::Over(result))
            )?;
            return Ok(());
        }
        if game.engine.board().position.side_to_move() != game.human {
            if !game.engine_turn(output)? {
                return Ok(());
            }
            write!(output, "{}", board_text(game.engine.board()))?;
            continue;
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
            "board" | "d" | "show" => write!(output, "{}", board_text(game.engine.board()))?,
            "undo" => game.undo(output)?,
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
            "claim" => match game.engine.status() {
                GameStatus::Ongoing {
                    claimable: true, ..
                } => {
                    writeln!(
                        output,
                        "You claim a draw by repetition. Game over: draw (1/2-1/2)."
                    )?;
                    return Ok(());
                }
                _ => writeln!(output, "error: no draw by repetition can be claimed now")?,
            },
            _ => game.human_turn(line, output)?,
        }
    }
}

/// The game in progress.
struct Game {
    engine: Engine,
    start: Board,
    /// Every turn since the start, as protocol tokens (with discovery names).
    tokens: Vec<String>,
    human: Player,
    limits: SearchLimits,
}

impl Game {
    fn rules(&self) -> Rules {
        self.engine.rules()
    }

    /// Plays the person's turn, or explains what is wrong and what is possible.
    fn human_turn(&mut self, text: &str, output: &mut dyn Write) -> std::io::Result<()> {
        let rules = self.rules();
        let before = self.engine.board().clone();
        let mut board = before.clone();
        match board.play_turn_text(&rules, text) {
            Ok(turn) => {
                self.tokens.push(turn.format(&before, &rules, Style::Token));
                if let Err(error) = self.engine.set_position(self.start.clone(), &self.tokens) {
                    self.tokens.pop();
                    writeln!(output, "error: {error}")?;
                    return Ok(());
                }
                writeln!(
                    output,
                    "You play: {}",
                    turn.format(&before, &rules, Style::Sdg)
                )?;
                write!(output, "{}", board_text(self.engine.board()))?;
            }
            Err(error) => {
                writeln!(output, "error: {error}")?;
                self.list_actions(output)?;
            }
        }
        Ok(())
    }

    /// Lists the single actions possible now (the first step of any turn).
    fn list_actions(&self, output: &mut dyn Write) -> std::io::Result<()> {
        let board = self.engine.board();
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
        let board = self.engine.board();
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

    /// Takes back the person's last turn (and the engine's reply to it).
    /// Turns alternate strictly, so turn `i` was played by the starting
    /// side when `i` is even.
    fn undo(&mut self, output: &mut dyn Write) -> std::io::Result<()> {
        let first_mover = self.start.position.side_to_move();
        let mover_of = |index: usize| {
            if index % 2 == 0 {
                first_mover
            } else {
                first_mover.opponent()
            }
        };
        let Some(last_own) = (0..self.tokens.len())
            .rev()
            .find(|&index| mover_of(index) == self.human)
        else {
            return writeln!(output, "error: nothing to undo");
        };
        self.tokens.truncate(last_own);
        if let Err(error) = self.engine.set_position(self.start.clone(), &self.tokens) {
            writeln!(output, "error: {error}")?;
        }
        writeln!(output, "Undone.")?;
        write!(output, "{}", board_text(self.engine.board()))
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

    /// Shows the engine's suggestion for the person.
    fn hint(&mut self, output: &mut dyn Write) -> std::io::Result<()> {
        let board = self.engine.board().clone();
        let rules = self.rules();
        match self.search() {
            Some(GoOutcome::Turn { result }) => writeln!(
                output,
                "hint: {}  ({})",
                format_turn(&board, &rules, &result.best_turn, Style::Sdg),
                value_text(result.value, result.win_probability())
            ),
            Some(GoOutcome::GameOver { .. }) => writeln!(
                output,
                "hint: the engine would claim a draw by repetition ('claim')"
            ),
            None => writeln!(output, "error: the engine could not search"),
        }
    }

    /// Lets the engine move. Returns false when the game ended by its claim.
    fn engine_turn(&mut self, output: &mut dyn Write) -> std::io::Result<bool> {
        let board = self.engine.board().clone();
        let rules = self.rules();
        match self.search() {
            Some(GoOutcome::Turn { result }) => {
                let token = format_turn(&board, &rules, &result.best_turn, Style::Token);
                self.tokens.push(token);
                if let Err(error) = self.engine.set_position(self.start.clone(), &self.tokens) {
                    writeln!(output, "error: the engine's turn does not play: {error}")?;
                    return Ok(false);
                }
                writeln!(
                    output,
                    "Supernova plays: {}  ({} for Supernova)",
                    format_turn(&board, &rules, &result.best_turn, Style::Sdg),
                    value_text(result.value, result.win_probability())
                )?;
                Ok(true)
            }
            Some(GoOutcome::GameOver { result, .. }) => {
                writeln!(
                    output,
                    "Supernova claims a draw by repetition. Game over: draw ({}).",
                    result.score()
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
