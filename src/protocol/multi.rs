//! The protocol's multi-player extension (protocol.md §10): three to six
//! players over the same line protocol. It owns the text: it reads the
//! extension's lines, keeps the controller's names for the systems beside
//! the position ([`MultiBoard`]), and writes the answers; the game, its
//! options and its searches are the engine layer's
//! ([`crate::engine::multi`]), as the two-player session's are
//! [`crate::engine::Engine`]'s.
//!
//! It sits in front of the two-player session and claims a line only when
//! it belongs to the extension, so a two-player session is byte for byte
//! what it would be without it: the extension's options (`Players`,
//! `Victory`, `Alignment`) are not listed by `hwi`, and until `Players` is
//! set to 3 or more every other line goes to the two-player session
//! untouched.
//!
//! In a multi-player game the extension answers `newgame`, `position`,
//! `go`, `stop` and `d` itself. A multi-player search is bounded by nodes,
//! `movetime` or the clocks, so `go infinite`, `go ponder` and the
//! enumeration commands are refused with a clear error; but a bound can be
//! huge, so the search runs off the command loop, on the engine's thread
//! ([`MultiEngine::go`]), and writes its `info` and `bestmove` from there:
//! `isready` is answered while it runs, and `stop` ends it with the best
//! turn found so far. A `go`, `newgame` or multi-player option while it
//! runs waits for its answer (at once after `stop`) and then takes effect,
//! so scripted sessions answer in order as when the search ran on the
//! loop. `hwi`, `isready`, `quit` and the other options go to the
//! two-player session as before (`Seed` and `Player`, which picks the
//! search, the greedy or the random player, are read by both), and the
//! session stops and waits for a multi-player search on `quit` and at the
//! end of input.

use crate::engine::multi::{MultiEngine, MultiGoOutcome, MultiLimits};
use crate::engine::OptionError;
use crate::notation::multi::{self as notation, MultiBoard};
use crate::notation::turn::Style;
use crate::rules::multi::{MultiOutcome, MultiPosition, Seat, Seats, Victory};
use crate::rules::Rules;

use super::words::split;
use super::{Flow, Output};

/// The multi-player state of a protocol session: the engine, and the board
/// with the controller's names for its position.
pub struct MultiSession {
    engine: MultiEngine,
    /// The engine's position, with the system names of the `position`
    /// command that set it.
    board: MultiBoard,
}

impl Default for MultiSession {
    fn default() -> MultiSession {
        MultiSession::new()
    }
}

impl MultiSession {
    /// The two-player default: the extension is idle until `Players` is
    /// set to 3 or more.
    pub fn new() -> MultiSession {
        let engine = MultiEngine::new();
        MultiSession {
            board: MultiBoard::new(engine.position().clone()),
            engine,
        }
    }

    /// Whether a multi-player game is set up (`Players` 3 to 6).
    pub fn is_active(&self) -> bool {
        self.engine.is_active()
    }

    /// The current multi-player board, for tests and tools.
    pub fn board(&self) -> &MultiBoard {
        &self.board
    }

    /// The engine, for inspection by tests and tools.
    pub fn engine(&self) -> &MultiEngine {
        &self.engine
    }

    /// A board with default names for the engine's position, after the
    /// engine started a new game.
    fn reset_board(&mut self) {
        self.board = MultiBoard::new(self.engine.position().clone());
    }

    /// Handles `line` if it belongs to the extension and returns the flow;
    /// `None` hands it to the two-player session. `searching` says whether
    /// a two-player search is running (options cannot change then).
    pub fn handle(
        &mut self,
        line: &str,
        rules: &Rules,
        searching: bool,
        output: &Output,
    ) -> Option<Flow> {
        let Ok(words) = split(line) else {
            return None;
        };
        let first = *words.first()?;
        if first == "setoption" {
            return self.set_option(&words, searching, output);
        }
        if !self.is_active() {
            return None;
        }
        let result = match first {
            "newgame" => {
                self.engine.new_game();
                self.reset_board();
                Ok(())
            }
            "position" => self.position(&words[1..], rules),
            "go" => self.go(&words[1..], rules, output),
            "d" => {
                let settings = self.engine.settings();
                output.line(&format!("position {}", notation::write_board(&self.board)));
                output.line(&format!(
                    "players {} victory {} to move p{}",
                    settings.players,
                    settings.victory.word(),
                    self.board.position.side_to_move()
                ));
                output.line(&format!("status: {}", result_text(&self.board.position)));
                Ok(())
            }
            // `stop` goes on to the two-player session as well, which
            // stops its own search (none runs in a multi-player game) or
            // refuses a line with words after `stop`, which then stops
            // nothing here either.
            "stop" => {
                if words.len() == 1 {
                    self.engine.stop();
                }
                return None;
            }
            "ponderhit" => Ok(()),
            "turns" | "count" | "eval" => Err(format!(
                "'{first}': not available in multi-player games (Players {})",
                self.engine.settings().players
            )),
            _ => return None,
        };
        if let Err(message) = result {
            output.line(&format!("info string error: {message}"));
        }
        Some(Flow::Continue)
    }

    /// `setoption` for the extension's options (and a look at `Seed` and
    /// `Player`).
    fn set_option(&mut self, words: &[&str], searching: bool, output: &Output) -> Option<Flow> {
        if words.get(1) != Some(&"name") {
            return None;
        }
        let value_at = words.iter().position(|&word| word == "value");
        let name = words[2..value_at.unwrap_or(words.len())].join(" ");
        let value = value_at
            .map(|at| words[at + 1..].join(" "))
            .unwrap_or_default();
        if !MultiEngine::is_option(&name) {
            // `Seed`, `Player` and `Threads` belong to the two-player
            // session as well:
            // it checks them and answers any error; the extension only
            // follows them.
            self.engine.follow_shared_option(&name, &value);
            return None;
        }
        let result = if searching {
            Err(OptionError::Busy.to_string())
        } else {
            self.engine
                .set_option(&name, &value)
                .map_err(|error| error.to_string())
        };
        match result {
            Ok(()) => self.reset_board(),
            Err(message) => output.line(&format!("info string error: {message}")),
        }
        Some(Flow::Continue)
    }

    /// `position startpos|pos <multi HWPN> [moves <turn> ...]`: the board
    /// changes only when the whole line is good.
    fn position(&mut self, words: &[&str], rules: &Rules) -> Result<(), String> {
        let moves_at = words
            .iter()
            .position(|&word| word == "moves")
            .unwrap_or(words.len());
        let mut board = match words.first() {
            Some(&"startpos") if moves_at == 1 => MultiBoard::new(self.engine.start_position()),
            Some(&"startpos") => {
                return Err(format!(
                    "'{}': expected moves or the end of the line after startpos",
                    words[1]
                ))
            }
            Some(&"pos") if moves_at > 1 => {
                let text = words[1..moves_at].join(" ");
                let mut board = notation::parse(&text).map_err(|error| error.to_string())?;
                let named = text
                    .split_whitespace()
                    .any(|word| word.starts_with("victory="));
                // The parser built the position from its parts too, so the
                // slots (and the board's names for them) stay where they
                // were.
                board.position = self
                    .engine
                    .fit(&board.position, named)
                    .map_err(|error| error.to_string())?;
                board
            }
            Some(&"pos") => return Err("position pos: expected a multi-player HWPN".into()),
            _ => {
                return Err(format!(
                    "'{}': expected startpos or pos after position",
                    words.first().unwrap_or(&"")
                ))
            }
        };
        for (index, turn) in words.iter().skip(moves_at + 1).enumerate() {
            if board.position.outcome() != MultiOutcome::Ongoing {
                return Err(format!(
                    "turn {} '{turn}' cannot be played: the game is over",
                    index + 1
                ));
            }
            board.play_turn_text(rules, turn).map_err(|error| {
                format!("turn {} '{turn}' cannot be played: {error}", index + 1)
            })?;
        }
        self.engine.set_position(board.position.clone());
        self.board = board;
        Ok(())
    }

    /// `go`: starts the search, whose thread answers `info` and `bestmove`
    /// (or the result at once, when the game is over).
    fn go(&mut self, words: &[&str], rules: &Rules, output: &Output) -> Result<(), String> {
        let players = self.engine.settings().players;
        let limits = parse_limits(words, players)?;
        let board = self.board.clone();
        let rules_copy = *rules;
        let output = output.clone();
        let listener = Box::new(move |outcome: &MultiGoOutcome| {
            let lines = answer_lines(&board, &rules_copy, players, outcome);
            output.lines(&lines);
        });
        self.engine
            .go(rules, &limits, listener)
            .map_err(|error| error.to_string())
    }

    /// Asks a running multi-player search to stop (it answers what it has).
    pub fn stop(&self) {
        self.engine.stop();
    }

    /// Waits for a running multi-player search to answer.
    pub fn wait(&mut self) {
        self.engine.wait();
    }
}

/// The lines that answer a multi-player `go` on `board`: the result when
/// the game is over, else the search's `info` line and `bestmove`.
fn answer_lines(
    board: &MultiBoard,
    rules: &Rules,
    players: usize,
    outcome: &MultiGoOutcome,
) -> Vec<String> {
    let MultiGoOutcome::Turn {
        actions,
        report,
        started,
    } = outcome
    else {
        return vec![
            format!("info string result {}", result_text(&board.position)),
            "bestmove (none)".to_string(),
        ];
    };
    let mut after = board.clone();
    let played = match after.play_actions(rules, actions) {
        Ok(played) => played,
        Err(error) => {
            return vec![format!(
                "info string error: the search found no playable turn: {error}"
            )]
        }
    };
    let token = notation::format_turn(board, rules, &played.actions, &played.names, Style::Token);
    let values: Vec<String> = (0..players)
        .map(|seat| format!("p{seat} {}", (report.shares[seat] * 1000.0).round() as i64))
        .collect();
    vec![
        format!(
            "info nodes {} time {} shares {} decision {}",
            report.nodes,
            started.elapsed().as_millis(),
            values.join(" "),
            report.decision
        ),
        format!("bestmove {token}"),
    ]
}

/// The limits of a multi-player `go` line (the words after `go`): `nodes`,
/// `movetime`, `movestogo` (ignored) and `p<seat>time`/`p<seat>inc` for
/// seats below `players`, each once; `infinite` and `ponder` are refused,
/// and at least one limit must be given.
fn parse_limits(words: &[&str], players: usize) -> Result<MultiLimits, String> {
    let mut limits = MultiLimits::default();
    let mut index = 0;
    while index < words.len() {
        let key = words[index];
        if matches!(key, "infinite" | "ponder") {
            return Err(format!(
                "'{key}': not available in multi-player games: give nodes, movetime or clocks"
            ));
        }
        let value = words
            .get(index + 1)
            .ok_or_else(|| format!("'{key}': expected a number after it"))?;
        let number = value
            .parse::<u64>()
            .map_err(|_| format!("'{value}': expected a whole number after {key}"))?;
        let repeated = || format!("'{key}': given twice");
        match key {
            "nodes" => {
                if limits.nodes.is_some() {
                    return Err(repeated());
                }
                limits.nodes = Some(number.clamp(1, u64::from(u32::MAX)) as u32);
            }
            "movetime" => {
                if limits.movetime.is_some() {
                    return Err(repeated());
                }
                limits.movetime = Some(number);
            }
            "movestogo" => {}
            _ => {
                let seat_field = key
                    .strip_prefix('p')
                    .and_then(|rest| {
                        let digit = rest.chars().next()?.to_digit(10)? as usize;
                        Some((digit, &rest[1..]))
                    })
                    .filter(|(seat, field)| *seat < players && matches!(*field, "time" | "inc"));
                let Some((seat, field)) = seat_field else {
                    return Err(format!(
                        "'{key}': expected nodes, movetime, movestogo or p<seat>time/p<seat>inc with a seat below {players}"
                    ));
                };
                let slot = if field == "time" {
                    &mut limits.time[seat]
                } else {
                    &mut limits.increment[seat]
                };
                if slot.is_some() {
                    return Err(repeated());
                }
                *slot = Some(number);
            }
        }
        index += 2;
    }
    if limits
        .increment
        .iter()
        .zip(limits.time)
        .any(|(increment, time)| increment.is_some() && time.is_none())
    {
        return Err("an increment was given without its time".into());
    }
    let clocks = limits.time.iter().any(Option::is_some);
    if limits.nodes.is_none() && limits.movetime.is_none() && !clocks {
        return Err("'go': multi-player games need a limit: nodes, movetime or clocks".into());
    }
    Ok(limits)
}

/// The result of a finished game with one score per seat (`1-0-0`,
/// `1/2-0-1/2-0`), and how it was decided; `ongoing` otherwise.
pub fn result_text(position: &MultiPosition) -> String {
    let players = position.players();
    let (sharing, reason) = match position.outcome() {
        MultiOutcome::Ongoing => return "ongoing".to_string(),
        MultiOutcome::Draw => (Seats::first(players), "mutual-elimination"),
        MultiOutcome::Win(winners) => {
            let reason = if position.decided_by_resignation() {
                "resignation"
            } else {
                match position.victory() {
                    Victory::LastManStanding => "last-man-standing",
                    Victory::Sinister => "sinister",
                    Victory::GoodVersusEvil { .. } => "good-evil",
                }
            };
            (winners, reason)
        }
    };
    let share = if sharing.len() == 1 {
        "1".to_string()
    } else {
        format!("1/{}", sharing.len())
    };
    let scores: Vec<&str> = (0..players as Seat)
        .map(|seat| {
            if sharing.contains(seat) {
                share.as_str()
            } else {
                "0"
            }
        })
        .collect();
    format!("{} {reason}", scores.join("-"))
}
