//! `supernova match`: two engines against each other, like cutechess-cli.
//!
//! Each engine is a child process spoken to only through the protocol
//! (protocol.md), so any engine that speaks it can take part. The runner is
//! the referee: it keeps its own board, plays every returned turn on the
//! rules core, and never trusts an engine. A crash, a hang past the clock
//! (with a margin), an unparsable or illegal turn, or a `bestmove (none)`
//! in an ongoing game loses the game, and the reason is logged. Every other
//! ending is judged by the rules layer's [`History`] under the match's rules
//! ([`MatchConfig::referee_rules`]): elimination, an automatic draw when a
//! start-of-turn position recurs `repetitions` times, and the turn limit, so
//! every game ends. The engines are told the same rules.
//!
//! Each opening (a position after both setup turns) is played twice with
//! the engines swapping seats, several games at a time, each game with
//! fresh engine processes so that one game's crash or hang cannot leak into
//! the next. Every game can be saved as an SDG record that
//! `supernova replay` accepts: its variants name the draw rules and a
//! `Referee:` comment states the result and its reason, forfeits included.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::stats::{Sprt, SprtVerdict, Tally};
use super::Ending;
use crate::notation::error::excerpt;
use crate::notation::names::DEFAULT_NAMES;
use crate::notation::sdg::{write_record, Header, RecordTurn};
use crate::notation::turn::{NamedTurn, Style, TurnError};
use crate::notation::{hwpn, Board};
use crate::protocol::client::{EngineFailure, EngineProcess};
use crate::protocol::command::Command;
use crate::protocol::reply::Reply;
use crate::record::{RecordedResult, REPETITION_VARIANT, TURN_LIMIT_VARIANT};
use crate::rules::{
    repetition_text, Action, GameStatus, History, Outcome, Player, Position, Repetition, Rules,
    HOME_SLOTS,
};
use crate::search::{Clock, SearchLimits};

/// How long an engine may take to start and answer `hwi` and `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The built-in openings (positions/openings.txt), used without `--openings`.
pub const DEFAULT_OPENINGS: &str = include_str!("../../positions/openings.txt");

/// Limits for each of an engine's turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TurnLimits {
    /// Fixed time per turn, in ms (`go movetime`).
    pub movetime: Option<u64>,
    /// Node limit per turn (`go nodes`).
    pub nodes: Option<u64>,
    /// A clock: starting time and increment per turn, in ms.
    pub clock: Option<(u64, u64)>,
}

impl TurnLimits {
    /// Whether no limit at all is set.
    pub fn is_empty(&self) -> bool {
        self.movetime.is_none() && self.nodes.is_none() && self.clock.is_none()
    }
}

/// Reads a time control `SECONDS[+INCREMENT]`, such as `10+0.1`, into ms.
///
/// # Errors
/// Names the bad text.
pub fn parse_time_control(text: &str) -> Result<(u64, u64), String> {
    let seconds = |part: &str| -> Result<u64, String> {
        part.parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0 && *value < 1e9)
            .map(|value| (value * 1000.0).round() as u64)
            .ok_or_else(|| {
                format!("time control '{text}': expected SECONDS[+INCREMENT], such as 10+0.1")
            })
    };
    match text.split_once('+') {
        Some((base, increment)) => Ok((seconds(base)?, seconds(increment)?)),
        None => Ok((seconds(text)?, 0)),
    }
}

/// One side of the match: how to start it and what to tell it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineConfig {
    /// The name in reports (defaults to the engine's `id name`).
    pub name: Option<String>,
    /// The program to run (defaults to this binary's `engine` subcommand).
    pub program: Option<String>,
    /// Its arguments.
    pub arguments: Vec<String>,
    /// `setoption` name and value pairs, sent after the handshake.
    pub options: Vec<(String, String)>,
    /// Limits for its turns, overriding the match's.
    pub limits: TurnLimits,
}

impl EngineConfig {
    /// Reads `key=value` words: `cmd=PROGRAM`, `arg=ARG` (repeatable),
    /// `name=NAME`, `option.NAME=VALUE`, `movetime=MS`, `nodes=N`,
    /// `tc=SECONDS+INC`. Later words override earlier ones.
    ///
    /// # Errors
    /// Names the bad word.
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<EngineConfig, String> {
        let mut config = EngineConfig::default();
        config.apply(words)?;
        Ok(config)
    }

    /// Applies more `key=value` words (the `--each` words, then the engine's own).
    ///
    /// # Errors
    /// Names the bad word.
    pub fn apply<S: AsRef<str>>(&mut self, words: &[S]) -> Result<(), String> {
        for word in words {
            let word = word.as_ref();
            let (key, value) = word.split_once('=').ok_or_else(|| {
                format!(
                    "engine setting '{word}': expected key=value, such as name=A or option.Hash=16"
                )
            })?;
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("engine setting '{word}': expected a whole number"))
            };
            match key {
                "cmd" => self.program = Some(value.to_string()),
                "arg" => self.arguments.push(value.to_string()),
                "name" => self.name = Some(value.to_string()),
                "movetime" => self.limits.movetime = Some(number()?),
                "nodes" => self.limits.nodes = Some(number()?),
                "tc" => self.limits.clock = Some(parse_time_control(value)?),
                _ => match key.strip_prefix("option.") {
                    Some(name) if !name.is_empty() => {
                        self.options.retain(|(known, _)| !known.eq_ignore_ascii_case(name));
                        self.options.push((name.to_string(), value.to_string()));
                    }
                    _ => {
                        return Err(format!(
                            "engine setting '{word}': expected a key cmd, arg, name, option.NAME, movetime, nodes or tc"
                        ))
                    }
                },
            }
        }
        Ok(())
    }
}

/// An opening: the text sent to the engines and the board it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The HWPN as written in the file.
    pub text: String,
    /// The parsed board.
    pub board: Board,
    /// The two setup turns that lead to it (one homeworld action each).
    pub setup: [Action; 2],
}

/// Reads openings: one HWPN per line, `#` comments and blank lines ignored.
/// Each must be the position right after both setup turns (two homes, no
/// other system, player 0 to move) and reachable under `rules`.
///
/// # Errors
/// Names the line and what is wrong with it.
pub fn parse_openings(text: &str, rules: &Rules) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let number = index + 1;
        let board =
            hwpn::parse(line).map_err(|error| format!("openings line {number}: {error}"))?;
        let setup = setup_turns(&board.position, rules)
            .map_err(|reason| format!("openings line {number} '{line}': {reason}"))?;
        openings.push(Opening {
            text: line.to_string(),
            board,
            setup,
        });
    }
    if openings.is_empty() {
        return Err(
            "the openings list is empty: expected HWPN positions, one per line".to_string(),
        );
    }
    Ok(openings)
}

/// The two homeworld actions that lead from the empty start to `position`.
fn setup_turns(position: &Position, rules: &Rules) -> Result<[Action; 2], String> {
    let expected = "expected a position right after both setup turns: two homes with one ship each, no other system, player 0 to move";
    if position.in_setup()
        || position.side_to_move() != Player::First
        || position
            .occupied_slots()
            .any(|slot| slot as usize >= HOME_SLOTS)
    {
        return Err(expected.to_string());
    }
    let mut actions = [Action::Pass; 2];
    let mut replay = Position::start();
    for player in Player::BOTH {
        let system = position.system(player.index() as u8);
        let ships = system.ships[player.index()];
        if ships.len() != 1 || !system.ships[player.opponent().index()].is_empty() {
            return Err(expected.to_string());
        }
        let mut stars = system.stars.copies();
        let star = stars.next().ok_or_else(|| expected.to_string())?;
        let action = Action::Homeworld {
            star,
            second_star: stars.next(),
            ship: ships.copies().next().ok_or_else(|| expected.to_string())?,
        };
        replay
            .try_apply(rules, action)
            .and_then(|()| replay.end_turn(rules).map(|_| ()))
            .map_err(|reason| format!("not reachable under the {} rules: {reason}", rules.name))?;
        actions[player.index()] = action;
    }
    if replay != *position {
        return Err(expected.to_string());
    }
    Ok(actions)
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines, A and B.
    pub engines: [EngineConfig; 2],
    /// Limits for engines that set none of their own.
    pub limits: TurnLimits,
    /// The openings, each played twice.
    pub openings: Vec<Opening>,
    /// Games to play (each opening twice, in order, cycling).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The rules the referee applies (and sends as the `Rules` option when
    /// not `standard`).
    pub rules: Rules,
    /// Turns after the opening before the game is drawn (0 = no limit).
    pub max_turns: u32,
    /// Occurrences of a start-of-turn position that draw the game.
    pub repetitions: u32,
    /// Extra time past the limit before a silent engine loses.
    pub margin: Duration,
    /// The per-turn deadline when the limits set no time (node limits only).
    pub turn_timeout: Duration,
    /// Where to write one SDG record per game.
    pub transcripts: Option<PathBuf>,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
    /// The program for engines that name none (normally this binary).
    pub default_program: String,
    /// Its arguments.
    pub default_arguments: Vec<String>,
}

impl MatchConfig {
    /// The rules every game is refereed by (and the engines are told):
    /// `rules` with an automatic draw at `repetitions` occurrences of a
    /// start-of-turn position and the turn limit `max_turns` (0 = none).
    pub fn referee_rules(&self) -> Rules {
        Rules {
            repetition: Repetition::Automatic(self.repetitions.max(2)),
            max_turns: (self.max_turns > 0).then_some(self.max_turns),
            ..self.rules
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReport {
    /// 1-based game number.
    pub number: usize,
    /// Index of the opening played.
    pub opening: usize,
    /// Whether engine A sat as player 0 (moved first).
    pub a_first: bool,
    /// How it ended, by seat.
    pub ending: Ending,
    /// The ending in words, with the engines' names.
    pub reason: String,
    /// Turns played after the opening.
    pub turns: u32,
    /// Engine A's score: 1, 0.5 or 0.
    pub score_a: f64,
}

impl GameReport {
    /// The result by seat.
    pub fn outcome(&self) -> Outcome {
        self.ending.outcome()
    }

    /// Whether a rule break or failure ended it (crash, hang, illegal turn).
    pub fn is_forfeit(&self) -> bool {
        self.ending.is_forfeit()
    }
}

/// The whole match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// The engines' names, A then B.
    pub names: [String; 2],
    /// A's wins, losses and draws.
    pub tally: Tally,
    /// Every game, in the order they finished.
    pub games: Vec<GameReport>,
    /// The SPRT verdict, when a test was requested.
    pub sprt: Option<SprtVerdict>,
}

/// A started engine for one game.
struct Seat {
    process: EngineProcess,
}

/// Starts an engine and completes the handshake, returning it with its `id name`.
fn start_engine(
    config: &EngineConfig,
    match_config: &MatchConfig,
) -> Result<(EngineProcess, Option<String>), EngineFailure> {
    let (program, arguments) = match &config.program {
        Some(program) => (program.clone(), config.arguments.clone()),
        None => (
            match_config.default_program.clone(),
            match_config
                .default_arguments
                .iter()
                .chain(config.arguments.iter())
                .cloned()
                .collect(),
        ),
    };
    let mut process = EngineProcess::spawn(&program, &arguments)?;
    let identity = process.identify(HANDSHAKE_TIMEOUT)?;
    // The referee's rules first (Rules resets the other two), then the
    // engine's own options, which may override them.
    let rules = match_config.referee_rules();
    let set = |name: &str, value: String| Command::SetOption {
        name: name.to_string(),
        value,
    };
    if rules.name != Rules::STANDARD.name {
        process.send(&set("Rules", rules.name.to_string()))?;
    }
    process.send(&set("Repetition", repetition_text(rules.repetition)))?;
    if let Some(limit) = rules.max_turns {
        process.send(&set("MaxTurns", limit.to_string()))?;
    }
    for (name, value) in &config.options {
        process.send(&set(name, value.clone()))?;
    }
    process.send(&Command::NewGame)?;
    process.synchronise(HANDSHAKE_TIMEOUT)?;
    Ok((process, identity.name))
}

/// A name usable in SDG records and reports: letters, digits and `_`, not
/// a default system name (records name homes after their players).
fn record_name(name: &str, fallback: &str) -> String {
    let mut clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean = clean.trim_matches('_').to_string();
    if clean.is_empty() {
        clean = fallback.to_string();
    }
    let reserved = DEFAULT_NAMES
        .iter()
        .any(|default| default.eq_ignore_ascii_case(&clean))
        || clean.to_ascii_lowercase().starts_with("system")
        || clean.eq_ignore_ascii_case("home0")
        || clean.eq_ignore_ascii_case("home1");
    if reserved {
        clean.push_str("_engine");
    }
    clean
}

/// Probes both engines once (start, handshake, options) and settles their
/// names. An engine that cannot start or complete the handshake here stops
/// the match before its first game, as in cutechess-cli: such an engine
/// would lose every game, which only hides the mistake in its command.
fn probe_engines(config: &MatchConfig, log: &mut dyn FnMut(&str)) -> Result<[String; 2], String> {
    let mut names = [String::new(), String::new()];
    for (index, engine) in config.engines.iter().enumerate() {
        let label = ["first", "second"][index];
        let (mut process, id_name) = start_engine(engine, config).map_err(|failure| {
            format!("the {label} engine failed its handshake: {failure}; no game was played")
        })?;
        for error in &process.errors {
            log(&format!("Warning: {label} engine: {error}"));
        }
        process.quit();
        let given = engine.name.clone().or(id_name).unwrap_or_default();
        let fallback = format!("engine{}", index + 1);
        let first_word = given.split_whitespace().next().unwrap_or("").to_string();
        names[index] = record_name(&first_word, &fallback);
    }
    if names[0].eq_ignore_ascii_case(&names[1]) {
        names[0].push_str("_1");
        names[1].push_str("_2");
    }
    Ok(names)
}

/// Today's date as SDG records print it (`2025.01.31`), from the system clock.
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// One game in progress.
struct Game<'a> {
    config: &'a MatchConfig,
    /// The rules the game is refereed by.
    rules: Rules,
    names: &'a [String; 2],
    /// Engine index (0 = A, 1 = B) for each seat (player 0, player 1).
    engines_by_seat: [usize; 2],
    opening: &'a Opening,
    /// The board with the names the engines use (the opening's).
    board: Board,
    /// The game from the empty start: the referee's judgement.
    history: History,
    transcript_board: Board,
    record: Vec<RecordTurn>,
    tokens: Vec<String>,
    clocks: [Option<Duration>; 2],
}

impl Game<'_> {
    fn seat_name(&self, seat: Player) -> &str {
        &self.names[self.engines_by_seat[seat.index()]]
    }

    fn seat_names(&self) -> [&str; 2] {
        [
            self.seat_name(Player::First),
            self.seat_name(Player::Second),
        ]
    }

    fn limits(&self, seat: Player) -> TurnLimits {
        let own = self.config.engines[self.engines_by_seat[seat.index()]].limits;
        if own.is_empty() {
            self.config.limits
        } else {
            own
        }
    }

    /// The `go` command for the side to move, and how long to wait for its answer.
    fn go_command(&self, seat: Player) -> (Command, Duration) {
        let limits = self.limits(seat);
        let mut search = SearchLimits {
            movetime: limits.movetime.map(Duration::from_millis),
            nodes: limits.nodes,
            ..SearchLimits::default()
        };
        let mut deadline = search.movetime;
        if self.clocks.iter().any(Option::is_some) {
            let increment = |player: Player| {
                Duration::from_millis(
                    self.limits(player)
                        .clock
                        .map_or(0, |(_, increment)| increment),
                )
            };
            search.clock = Some(Clock {
                time_left: Player::BOTH
                    .map(|player| self.clocks[player.index()].unwrap_or_default()),
                increment: Player::BOTH.map(increment),
            });
            if let Some(left) = self.clocks[seat.index()] {
                deadline = Some(deadline.map_or(left, |limit| limit.min(left)));
            }
        }
        let wait = deadline.unwrap_or(self.config.turn_timeout) + self.config.margin;
        (Command::Go(search), wait)
    }

    /// The `position` command for the game so far: the opening and the
    /// turns played from it.
    fn position_command(&self) -> Command {
        Command::Position {
            base: Box::new(self.opening.board.clone()),
            turns: self.tokens.clone(),
        }
    }

    /// Plays a turn on both boards and records it.
    fn record_turn(
        &mut self,
        seat: Player,
        turn: &NamedTurn,
        board_before: &Board,
    ) -> Result<(), TurnError> {
        let mut replayed = turn.clone();
        let transcript_before = self.transcript_board.clone();
        replayed.replay(&mut self.transcript_board, &self.config.rules)?;
        let text = replayed.format(&transcript_before, &self.config.rules, Style::Sdg);
        let number = self.record.len() as u32 + 1;
        let record_turn =
            RecordTurn::from_text(number, self.seat_name(seat), &text).map_err(TurnError::Parse)?;
        self.record.push(record_turn);
        self.tokens
            .push(turn.format(board_before, &self.config.rules, Style::Token));
        Ok(())
    }

    /// Asks the side to move for a turn and referees it. `None` = play on.
    fn play_turn(&mut self, seats: &mut [Seat; 2]) -> Option<Ending> {
        if let GameStatus::Over(result) = self.history.status(&self.rules) {
            return Some(Ending::Result(result));
        }
        let rules = self.rules;
        let side = self.board.position.side_to_move();
        let forfeit = |reason: String| Ending::Forfeit {
            loser: side,
            reason,
        };
        let position = self.position_command();
        let (go, wait) = self.go_command(side);
        let seat = &mut seats[side.index()];
        seat.process.errors.clear();
        let sent = seat
            .process
            .send(&position)
            .and_then(|()| seat.process.send(&go));
        let started = Instant::now();
        // The answer is the first `bestmove` line, well formed or not.
        let answer = sent.and_then(|()| {
            seat.process.wait_for(wait, |reply| match reply {
                Ok(Reply::BestMove(turn)) => Some(Ok(turn)),
                Err(error) if error.keyword == "bestmove" => Some(Err(error)),
                _ => None,
            })
        });
        let elapsed = started.elapsed();
        let complaint = seat.process.errors.first().cloned();
        let answer = match answer {
            Ok(answer) => answer,
            Err(failure) => {
                seat.process.kill();
                let reason = match failure {
                    EngineFailure::Timeout(limit) if self.clocks[side.index()].is_some() => {
                        format!("lost on time: no bestmove within {} ms", limit.as_millis())
                    }
                    EngineFailure::Timeout(limit) => {
                        format!("hung: no bestmove within {} ms", limit.as_millis())
                    }
                    other => other.to_string(),
                };
                return Some(forfeit(reason));
            }
        };
        if let Some(left) = self.clocks[side.index()] {
            let increment = self
                .limits(side)
                .clock
                .map_or(0, |(_, increment)| increment);
            self.clocks[side.index()] =
                Some(left.saturating_sub(elapsed) + Duration::from_millis(increment));
        }
        let token = match answer {
            Ok(Some(token)) => token,
            Ok(None) => {
                // No turn: a draw claim, if the rules allow one now.
                return Some(match self.history.claim(&rules) {
                    Some(result) => Ending::Result(result),
                    None => forfeit("answered bestmove (none) in an ongoing game".to_string()),
                });
            }
            Err(error) => return Some(forfeit(format!("sent a bad bestmove line: {error}"))),
        };
        let token = token.as_str();
        let before = self.board.clone();
        // If the engine rejected the position line, say so: its turn was
        // then chosen for some other position.
        let noted = |reason: String| match &complaint {
            Some(error) => format!("{reason} (after it reported: {error})"),
            None => reason,
        };
        let mut board = before.clone();
        let turn = match board.play_turn_text(&rules, token) {
            Ok(turn) => turn,
            Err(TurnError::Parse(error)) => {
                let reason = noted(format!(
                    "sent an unparsable turn '{}': {error}",
                    excerpt(token)
                ));
                return Some(forfeit(reason));
            }
            Err(error) => {
                let reason = noted(format!(
                    "played an illegal turn '{}': {error}",
                    excerpt(token)
                ));
                return Some(forfeit(reason));
            }
        };
        if let Err(error) = self.history.play(&rules, &turn.actions) {
            // The board accepted what the history refuses: a bug here, not
            // the engine's fault; end the game as a draw and say so.
            return Some(Ending::Aborted(format!(
                "the history refuses '{}': {error}",
                excerpt(token)
            )));
        }
        self.board = board;
        if let Err(error) = self.record_turn(side, &turn, &before) {
            // The transcript board disagrees with the referee's: a bug here,
            // not the engine's fault; end the game as a draw and say so.
            return Some(Ending::Aborted(format!(
                "recording '{}': {error}",
                excerpt(token)
            )));
        }
        None
    }

    /// Writes the game's SDG record: the match's draw rules as variants,
    /// the winner (none for a draw), and a `Referee:` comment on the last
    /// turn with the result and its reason, which `supernova replay` reports.
    fn write_transcript(&mut self, number: usize, ending: &Ending) -> Result<(), String> {
        let Some(directory) = &self.config.transcripts else {
            return Ok(());
        };
        let mut header = Header::two_player(
            number as u64,
            self.seat_name(Player::First),
            self.seat_name(Player::Second),
        );
        header.started = today();
        header.ended = header.started.clone();
        header.variants = vec![format!(
            "{REPETITION_VARIANT}{}",
            repetition_text(self.rules.repetition)
        )];
        if let Some(limit) = self.rules.max_turns {
            header.variants.push(format!("{TURN_LIMIT_VARIANT}{limit}"));
        }
        header.winner = match ending.outcome() {
            Outcome::Win(player) => Some(self.seat_name(player).to_string()),
            _ => None,
        };
        let result = match ending {
            Ending::Result(result) => RecordedResult::from_result(result),
            Ending::Forfeit { .. } => RecordedResult {
                outcome: ending.outcome(),
                reason: format!("forfeit: {}", ending.description(self.seat_names())),
            },
            Ending::Aborted(_) => RecordedResult {
                outcome: ending.outcome(),
                reason: ending.description(self.seat_names()),
            },
        };
        if let Some(last) = self.record.last_mut() {
            last.comments.push(result.comment());
        }
        let text = write_record(&header, &self.record);
        let path = directory.join(format!("game-{number:04}.sdg"));
        std::fs::write(&path, text)
            .map_err(|error| format!("{}: cannot write: {error}", path.display()))
    }
}

/// Plays game `number` (1-based) of the schedule.
fn play_game(
    config: &MatchConfig,
    names: &[String; 2],
    number: usize,
) -> (GameReport, Option<String>) {
    let index = number - 1;
    let opening_index = (index / 2) % config.openings.len();
    let a_first = index % 2 == 0;
    let opening = &config.openings[opening_index];
    let engines_by_seat = if a_first { [0, 1] } else { [1, 0] };
    let mut transcript_board = Board::default();
    for player in Player::BOTH {
        transcript_board.names.set(
            player.index() as u8,
            names[engines_by_seat[player.index()]].clone(),
        );
    }
    let clocks = Player::BOTH.map(|player| {
        let engine = &config.engines[engines_by_seat[player.index()]];
        let limits = if engine.limits.is_empty() {
            config.limits
        } else {
            engine.limits
        };
        limits.clock.map(|(base, _)| Duration::from_millis(base))
    });
    let rules = config.referee_rules();
    let mut game = Game {
        config,
        rules,
        names,
        engines_by_seat,
        opening,
        board: opening.board.clone(),
        history: match History::new(Position::start()) {
            Ok(history) => history,
            Err(_) => unreachable!("the start position is at the start of a turn"),
        },
        transcript_board,
        record: Vec::new(),
        tokens: Vec::new(),
        clocks,
    };
    let mut setup_ok = true;
    for (seat, action) in Player::BOTH.into_iter().zip(opening.setup) {
        let mut turn = NamedTurn {
            actions: vec![action],
            names: vec![None],
            outcome: Outcome::Ongoing,
        };
        let before = game.transcript_board.clone();
        if turn
            .replay(&mut game.transcript_board, &config.rules)
            .is_err()
            || game.history.play(&rules, &[action]).is_err()
        {
            setup_ok = false;
            break;
        }
        let text = turn.format(&before, &config.rules, Style::Sdg);
        match RecordTurn::from_text(game.record.len() as u32 + 1, game.seat_name(seat), &text) {
            Ok(record_turn) => game.record.push(record_turn),
            Err(_) => setup_ok = false,
        }
    }
    let setup_ok = setup_ok && game.history.position() == &game.board.position;
    let ending = if !setup_ok {
        Ending::Aborted("the opening's setup turns do not replay".to_string())
    } else {
        run_game(&mut game)
    };
    let warning = game.write_transcript(number, &ending).err();
    let score_first = ending.first_player_points();
    let report = GameReport {
        number,
        opening: opening_index,
        a_first,
        reason: ending.description(game.seat_names()),
        ending,
        turns: game.history.turns_after_setup(),
        score_a: if a_first {
            score_first
        } else {
            1.0 - score_first
        },
    };
    (report, warning)
}

/// Starts both engines and plays until the game ends.
fn run_game(game: &mut Game<'_>) -> Ending {
    let config = game.config;
    let mut processes: Vec<Seat> = Vec::with_capacity(2);
    for seat in Player::BOTH {
        let engine = &config.engines[game.engines_by_seat[seat.index()]];
        match start_engine(engine, config) {
            Ok((process, _)) => processes.push(Seat { process }),
            Err(failure) => {
                for started in &mut processes {
                    started.process.quit();
                }
                return Ending::Forfeit {
                    loser: seat,
                    reason: format!("failed to start: {failure}"),
                };
            }
        }
    }
    let mut seats: [Seat; 2] = match processes.try_into() {
        Ok(seats) => seats,
        Err(_) => unreachable!("two seats were started"),
    };
    let ending = loop {
        if let Some(ending) = game.play_turn(&mut seats) {
            break ending;
        }
    };
    for seat in &mut seats {
        seat.process.quit();
    }
    ending
}

/// Runs the match, writing progress lines (one per finished game) and the
/// final summary to `output`.
///
/// # Errors
/// An engine that cannot start or complete the handshake at all, or an
/// unwritable transcript directory. Engines that fail during games lose
/// those games instead.
pub fn run_match(
    config: &MatchConfig,
    output: &mut (dyn Write + Send),
) -> Result<MatchResult, String> {
    if let Some(directory) = &config.transcripts {
        std::fs::create_dir_all(directory)
            .map_err(|error| format!("{}: cannot create: {error}", directory.display()))?;
    }
    let mut probe_log = Vec::new();
    let names = probe_engines(config, &mut |line| probe_log.push(line.to_string()))?;
    let shared = Mutex::new((
        output,
        MatchResult {
            names: names.clone(),
            ..MatchResult::default()
        },
    ));
    {
        let mut guard = shared
            .lock()
            .map_err(|_| "output lock poisoned".to_string())?;
        for line in &probe_log {
            let _ = writeln!(guard.0, "{line}");
        }
        let _ = writeln!(
            guard.0,
            "Started match of {} games: {} vs {} ({} openings, concurrency {})",
            config.games,
            names[0],
            names[1],
            config.openings.len(),
            config.concurrency.max(1)
        );
        let _ = guard.0.flush();
    }
    let next = AtomicUsize::new(1);
    let halted = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1).min(config.games.max(1)) {
            scope.spawn(|| loop {
                if halted.load(Ordering::Relaxed) {
                    break;
                }
                let number = next.fetch_add(1, Ordering::Relaxed);
                if number > config.games {
                    break;
                }
                let (report, warning) = play_game(config, &names, number);
                let Ok(mut guard) = shared.lock() else {
                    break;
                };
                let (writer, result) = &mut *guard;
                let mut written = Ok(());
                if let Some(warning) = warning {
                    written = writeln!(writer, "Warning: {warning}");
                }
                result.tally.add(report.score_a);
                let seats = if report.a_first { [0, 1] } else { [1, 0] };
                let written = written
                    .and_then(|()| {
                        writeln!(
                            writer,
                            "Finished game {} ({} vs {}): {} {{{}}} | {}",
                            report.number,
                            names[seats[0]],
                            names[seats[1]],
                            report.ending.score(),
                            report.reason,
                            result.tally.score_line(&names[0], &names[1])
                        )
                    })
                    .and_then(|()| writer.flush());
                if written.is_err() {
                    // Nobody reads the report any more (`| head`): stop
                    // after the games under way rather than play on unseen.
                    halted.store(true, Ordering::Relaxed);
                }
                result.games.push(report);
                if let Some(sprt) = &config.sprt {
                    if sprt.verdict(&result.tally) != SprtVerdict::Continue {
                        halted.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let (writer, mut result) = shared
        .into_inner()
        .map_err(|_| "output lock poisoned".to_string())?;
    let _ = writeln!(writer, "{}", result.tally.score_line(&names[0], &names[1]));
    let _ = writeln!(writer, "{}", result.tally.elo_line());
    if let Some(sprt) = &config.sprt {
        let _ = writeln!(writer, "{}", sprt.line(&result.tally));
        result.sprt = Some(sprt.verdict(&result.tally));
    }
    let forfeits = result.games.iter().filter(|game| game.is_forfeit()).count();
    if forfeits > 0 {
        let _ = writeln!(
            writer,
            "Forfeits: {forfeits} games ended by a crash, hang or illegal turn (see above)"
        );
    }
    let _ = writeln!(writer, "Finished match");
    let _ = writer.flush();
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_settings_parse() {
        let mut config =
            EngineConfig::parse(&["name=A", "option.Player=greedy", "tc=10+0.1"]).unwrap();
        assert_eq!(config.name.as_deref(), Some("A"));
        assert_eq!(
            config.options,
            [("Player".to_string(), "greedy".to_string())]
        );
        assert_eq!(config.limits.clock, Some((10_000, 100)));
        config.apply(&["option.player=mcts", "nodes=500"]).unwrap();
        assert_eq!(config.options, [("player".to_string(), "mcts".to_string())]);
        assert_eq!(config.limits.nodes, Some(500));
        assert!(EngineConfig::parse(&["bogus"]).is_err());
        assert!(EngineConfig::parse(&["colour=red"]).is_err());
        assert!(EngineConfig::parse(&["nodes=many"]).is_err());
        assert!(parse_time_control("abc").is_err());
    }

    #[test]
    fn built_in_openings_are_valid_and_distinct() {
        let openings = parse_openings(DEFAULT_OPENINGS, &Rules::STANDARD).unwrap();
        assert!(openings.len() >= 50);
        let mut seen = std::collections::HashSet::new();
        for opening in &openings {
            assert!(
                seen.insert(opening.board.position.hash()),
                "{}",
                opening.text
            );
        }
        let error = parse_openings("r1b3:g3:/y2b1::g3/b2:r1: 0\n", &Rules::STANDARD).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
        let error = parse_openings("r1b3:g1:/y2b1::g3 0\n", &Rules::STANDARD).unwrap_err();
        assert!(error.contains("not reachable"), "{error}");
    }

    #[test]
    fn names_suit_records() {
        assert_eq!(record_name("Supernova 0.1", "x"), "Supernova_0_1");
        assert_eq!(record_name("Delos", "x"), "Delos_engine");
        assert_eq!(record_name("()", "engine2"), "engine2");
    }

    #[test]
    fn dates_look_like_dates() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert_eq!(&date[4..5], ".");
    }
}
