//! The protocol's multi-player extension (issue 10, section 5;
//! protocol.md §10): three to six players over the same line protocol.
//!
//! It sits in front of the two-player session and claims a line only when
//! it belongs to the extension, so a two-player session is byte for byte
//! what it was: the extension's options (`Players`, `Victory`,
//! `Alignment`) are not listed by `hwi`, and until `Players` is set to 3
//! or more every other line goes to the two-player session untouched.
//!
//! In a multi-player game the extension answers `newgame`, `position`,
//! `go` and `d` itself, on the command loop: a multi-player search is
//! bounded by nodes, `movetime` or the clocks, so it needs no `stop`, and
//! `go infinite`, `go ponder` and the enumeration commands are refused
//! with a clear error. `hwi`, `isready`, `quit` and the other options go
//! to the two-player session as before (`Seed` and `Player`, which picks
//! the search, the greedy or the random player, are read by both).

use std::time::{Duration, Instant};

use crate::notation::multi::{self as notation, MultiBoard};
use crate::notation::turn::Style;
use crate::rules::multi::{MultiOutcome, MultiPosition, Seat, Seats, Victory, MAX_PLAYERS};
use crate::rules::Rules;
use crate::search::multi::{greedy_turn_avoiding, random_turn, MultiSearch, MultiSearchOptions};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::collections::HashMap;

use super::words::split;
use super::{Flow, Output};

/// Playouts a `go` with only a clock may not exceed (a clock-bound search
/// stops on time long before).
const CLOCK_NODE_CAP: u32 = 10_000_000;
/// Clock time kept back per turn for the controller's overhead, in ms.
const OVERHEAD_MS: u64 = 50;

/// Which victory condition the `Victory` option names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VictoryOption {
    Last,
    Sinister,
    GoodEvil,
}

/// Which player the `Player` option names (read by both sessions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlayerOption {
    Search,
    Greedy,
    Random,
}

/// The engine's own alignment in Good versus Evil, as the controller told
/// it privately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alignment {
    Unknown,
    Good,
    Evil,
}

/// The multi-player state of a protocol session: the options and the game.
pub struct MultiSession {
    players: usize,
    player: PlayerOption,
    victory: VictoryOption,
    alignment: Alignment,
    seed: u64,
    board: MultiBoard,
    /// Positions this engine moved from in this game (hash) and where its
    /// turns led from each, to leave a cycle instead of repeating it.
    played: HashMap<u64, Vec<u64>>,
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
        MultiSession {
            players: 2,
            player: PlayerOption::Search,
            victory: VictoryOption::Last,
            alignment: Alignment::Unknown,
            seed: 0,
            board: start_board(3, VictoryOption::Last),
            played: HashMap::new(),
        }
    }

    /// Whether a multi-player game is set up (`Players` 3 to 6).
    pub fn is_active(&self) -> bool {
        self.players >= 3
    }

    /// The current multi-player board, for tests and tools.
    pub fn board(&self) -> &MultiBoard {
        &self.board
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
                self.board = start_board(self.players, self.victory);
                self.played.clear();
                Ok(())
            }
            "position" => self.position(&words[1..], rules),
            "go" => self.go(&words[1..], rules, output),
            "d" => {
                output.line(&format!("position {}", notation::write_board(&self.board)));
                output.line(&format!(
                    "players {} victory {} to move p{}",
                    self.players,
                    victory_word(self.victory),
                    self.board.position.side_to_move()
                ));
                output.line(&format!("status: {}", result_text(&self.board.position)));
                Ok(())
            }
            "stop" | "ponderhit" => Ok(()),
            "turns" | "count" | "eval" => Err(format!(
                "'{first}': not available in multi-player games (Players {})",
                self.players
            )),
            _ => return None,
        };
        if let Err(message) = result {
            output.line(&format!("info string error: {message}"));
        }
        Some(Flow::Continue)
    }

    /// `setoption` for the extension's options (and a look at `Seed`).
    fn set_option(&mut self, words: &[&str], searching: bool, output: &Output) -> Option<Flow> {
        if words.get(1) != Some(&"name") {
            return None;
        }
        let value_at = words.iter().position(|&word| word == "value");
        let name = words[2..value_at.unwrap_or(words.len())].join(" ");
        let value = value_at
            .map(|at| words[at + 1..].join(" "))
            .unwrap_or_default();
        let lower = name.to_ascii_lowercase();
        // `Seed` and `Player` belong to the two-player session as well: it
        // checks them and answers any error; the extension only notes them.
        if lower == "seed" {
            if let Ok(seed) = value.parse::<u64>() {
                self.seed = seed;
            }
            return None;
        }
        if lower == "player" {
            match value.to_ascii_lowercase().as_str() {
                "mcts" => self.player = PlayerOption::Search,
                "greedy" => self.player = PlayerOption::Greedy,
                "random" => self.player = PlayerOption::Random,
                _ => {}
            }
            return None;
        }
        if !matches!(lower.as_str(), "players" | "victory" | "alignment") {
            return None;
        }
        let result = if searching {
            Err("a search is running: send stop first, then change options".to_string())
        } else {
            self.apply_option(&lower, &value)
        };
        if let Err(message) = result {
            output.line(&format!("info string error: {message}"));
        }
        Some(Flow::Continue)
    }

    fn apply_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let word = value.to_ascii_lowercase();
        match name {
            "players" => {
                let players = value
                    .parse::<usize>()
                    .ok()
                    .filter(|players| (2..=MAX_PLAYERS).contains(players))
                    .ok_or_else(|| {
                        format!("option Players: '{value}': expected a whole number from 2 to 6")
                    })?;
                self.players = players;
            }
            "victory" => {
                self.victory = match word.as_str() {
                    "last" => VictoryOption::Last,
                    "sinister" => VictoryOption::Sinister,
                    "good-evil" => VictoryOption::GoodEvil,
                    _ => {
                        return Err(format!(
                            "option Victory: '{value}': expected last, sinister or good-evil"
                        ))
                    }
                }
            }
            _ => {
                self.alignment = match word.as_str() {
                    "good" => Alignment::Good,
                    "evil" => Alignment::Evil,
                    "unknown" => Alignment::Unknown,
                    _ => {
                        return Err(format!(
                            "option Alignment: '{value}': expected good, evil or unknown"
                        ))
                    }
                }
            }
        }
        self.board = start_board(self.players.max(3), self.victory);
        self.played.clear();
        Ok(())
    }

    /// `position startpos|pos <multi HWPN> [moves <turn> ...]`: the board
    /// changes only when the whole line is good.
    fn position(&mut self, words: &[&str], rules: &Rules) -> Result<(), String> {
        let moves_at = words
            .iter()
            .position(|&word| word == "moves")
            .unwrap_or(words.len());
        let mut board = match words.first() {
            Some(&"startpos") if moves_at == 1 => start_board(self.players, self.victory),
            Some(&"startpos") => {
                return Err(format!(
                    "'{}': expected moves or the end of the line after startpos",
                    words[1]
                ))
            }
            Some(&"pos") if moves_at > 1 => {
                let text = words[1..moves_at].join(" ");
                let board = notation::parse(&text).map_err(|error| error.to_string())?;
                self.checked(board, &text)?
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
        self.board = board;
        Ok(())
    }

    /// A parsed position must have `Players` seats and start a turn, and
    /// takes the session's victory condition unless it names the same.
    fn checked(&self, board: MultiBoard, text: &str) -> Result<MultiBoard, String> {
        let position = &board.position;
        if position.players() != self.players {
            return Err(format!(
                "the position has {} players but the option Players is {}",
                position.players(),
                self.players
            ));
        }
        if position.turn_state() != crate::rules::TurnState::Start {
            return Err("a position must be at the start of a turn".into());
        }
        let named = text
            .split_whitespace()
            .any(|word| word.starts_with("victory="));
        let option = victory_word(self.victory);
        if named && position.victory().word() != option {
            return Err(format!(
                "the position says victory={} but the option Victory is {option}",
                position.victory().word()
            ));
        }
        let mut parts = position.parts();
        parts.victory = match (self.victory, position.victory()) {
            (_, Victory::GoodVersusEvil { evil }) => Victory::GoodVersusEvil { evil },
            (VictoryOption::GoodEvil, _) => Victory::GoodVersusEvil { evil: Seats::EMPTY },
            (VictoryOption::Sinister, _) => Victory::Sinister,
            (VictoryOption::Last, _) => Victory::LastManStanding,
        };
        // The parser built the position from its parts too, so the slots
        // (and the board's names for them) stay where they were.
        let mut fixed = board;
        fixed.position = MultiPosition::from_parts(parts).map_err(|error| error.0)?;
        Ok(fixed)
    }

    /// `go`: searches and answers `info` and `bestmove`, or the result.
    fn go(&mut self, words: &[&str], rules: &Rules, output: &Output) -> Result<(), String> {
        let limits = GoLimits::parse(words, self.players)?;
        let position = &self.board.position;
        if position.outcome() != MultiOutcome::Ongoing {
            output.line(&format!("info string result {}", result_text(position)));
            output.line("bestmove (none)");
            return Ok(());
        }
        let mover = position.side_to_move();
        let searched = self.search_position(mover);
        let started = Instant::now();
        let (iterations, deadline) = limits.budget(mover, started);
        let mut search = MultiSearch::new(MultiSearchOptions {
            iterations,
            seed: self.seed ^ position.hash(),
            deadline,
            ..MultiSearchOptions::default()
        });
        let key = position.hash();
        let avoid = self.played.get(&key).cloned().unwrap_or_default();
        let actions = match self.player {
            PlayerOption::Search => search.best_turn_avoiding(&searched, rules, &avoid),
            PlayerOption::Greedy => greedy_turn_avoiding(&searched, rules, &avoid),
            PlayerOption::Random => {
                let mut random = SmallRng::seed_from_u64(self.seed ^ position.hash());
                random_turn(&mut searched.clone(), rules, &mut random)
            }
        };
        let mut report = search.report();
        report.decision = match self.player {
            PlayerOption::Search => report.decision,
            PlayerOption::Greedy => "greedy",
            PlayerOption::Random => "random",
        };
        let mut after = self.board.clone();
        let played = after
            .play_actions(rules, &actions)
            .map_err(|error| format!("the search found no playable turn: {error}"))?;
        let result = after.position.hash();
        let results = self.played.entry(key).or_default();
        if !results.contains(&result) {
            results.push(result);
        }
        let token = notation::format_turn(
            &self.board,
            rules,
            &played.actions,
            &played.names,
            Style::Token,
        );
        let values: Vec<String> = (0..self.players)
            .map(|seat| format!("p{seat} {}", (report.shares[seat] * 1000.0).round() as i64))
            .collect();
        output.line(&format!(
            "info nodes {} time {} shares {} decision {}",
            report.nodes,
            started.elapsed().as_millis(),
            values.join(" "),
            report.decision
        ));
        output.line(&format!("bestmove {token}"));
        Ok(())
    }

    /// The position the search sees: in Good versus Evil, the Evil seats
    /// the controller revealed (those out of the game) plus the engine's
    /// own alignment; the search deals the rest.
    fn search_position(&self, mover: Seat) -> MultiPosition {
        let position = &self.board.position;
        let Victory::GoodVersusEvil { evil } = position.victory() else {
            return position.clone();
        };
        let mut known = Seats(evil.0 & position.out().0);
        match self.alignment {
            Alignment::Evil => known.insert(mover),
            Alignment::Good | Alignment::Unknown => {}
        }
        let mut parts = position.parts();
        parts.victory = Victory::GoodVersusEvil { evil: known };
        MultiPosition::from_parts(parts).unwrap_or_else(|_| position.clone())
    }
}

/// The limits of a multi-player `go`.
#[derive(Clone, Copy, Debug, Default)]
struct GoLimits {
    nodes: Option<u32>,
    movetime: Option<u64>,
    time: [Option<u64>; MAX_PLAYERS],
    increment: [Option<u64>; MAX_PLAYERS],
}

impl GoLimits {
    fn parse(words: &[&str], players: usize) -> Result<GoLimits, String> {
        let mut limits = GoLimits::default();
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
                        .filter(|(seat, field)| {
                            *seat < players && matches!(*field, "time" | "inc")
                        });
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

    /// Playouts and deadline for `mover`: a node limit alone keeps the
    /// search deterministic; a clock plans a twentieth of the time left
    /// plus most of the increment, never over a quarter of the time.
    fn budget(&self, mover: Seat, started: Instant) -> (u32, Option<Instant>) {
        let seat = mover as usize;
        let mut milliseconds = self.movetime;
        if self.time.iter().any(Option::is_some) {
            let left = self.time[seat].unwrap_or(0);
            let increment = self.increment[seat].unwrap_or(0);
            let planned = (left / 20 + increment * 3 / 4).min(left / 4);
            let planned = planned.saturating_sub(OVERHEAD_MS).max(1);
            milliseconds = Some(milliseconds.map_or(planned, |cap| cap.min(planned)));
        }
        let iterations = self.nodes.unwrap_or(CLOCK_NODE_CAP);
        let deadline =
            milliseconds.map(|milliseconds| started + Duration::from_millis(milliseconds));
        (iterations, deadline)
    }
}

fn victory_word(victory: VictoryOption) -> &'static str {
    match victory {
        VictoryOption::Last => "last",
        VictoryOption::Sinister => "sinister",
        VictoryOption::GoodEvil => "good-evil",
    }
}

fn start_board(players: usize, victory: VictoryOption) -> MultiBoard {
    let victory = match victory {
        VictoryOption::Last => Victory::LastManStanding,
        VictoryOption::Sinister => Victory::Sinister,
        VictoryOption::GoodEvil => Victory::GoodVersusEvil { evil: Seats::EMPTY },
    };
    // Two to six players with no Evil seat named always start.
    let position = MultiPosition::start(players.clamp(2, MAX_PLAYERS), victory)
        .expect("a start with 2 to 6 players and no Evil seat is valid");
    MultiBoard::new(position)
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
