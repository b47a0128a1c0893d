//! The engine as a program component, with no text protocol: it owns the
//! game (a [`Board`] and the turns played to reach it), the options and a
//! [`Searcher`], and runs searches on a background thread.
//!
//! This is the layer between the search (which knows one position and a
//! list of earlier hashes) and the protocol (which knows text). It is where
//! the game's history lives, so it is also where game results that depend on
//! history are judged: repetition and the turn limit (rules.md R11.5). It
//! mirrors Stockfish's `engine.h`: [`Engine::set_position`] returns an error
//! and leaves the state unchanged, [`Engine::go`] and [`Engine::stop`] never
//! block, and progress and the final answer arrive through a listener called
//! on the search thread. A front end other than the text protocol (the
//! terminal player, a GUI binding) can drive it the same way.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::notation::turn::TurnError;
use crate::notation::Board;
use crate::rules::{Action, Outcome, Player, Repetition, Rules, TurnState};
use crate::search::{
    static_evaluation_with, PlayerKind, SearchInfo, SearchLimits, SearchOptions, SearchResult,
    Searcher, TunableError, Tunables, TUNABLES,
};

/// How often the search reports progress. Protocol front ends show these
/// lines to people; twice a second is lively without flooding a pipe.
pub const INFO_INTERVAL: Duration = Duration::from_millis(500);

/// Why a game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// One player eliminated the other.
    Elimination,
    /// Both players were eliminated in the same turn.
    MutualElimination,
    /// A position occurred as often as the automatic repetition rule allows.
    Repetition,
    /// The side to move claimed a draw by repetition (the `claim@N` rule).
    RepetitionClaim,
    /// The rules' turn limit was reached.
    TurnLimit,
}

impl EndReason {
    /// The word the protocol prints for the reason.
    pub fn word(self) -> &'static str {
        match self {
            EndReason::Elimination => "elimination",
            EndReason::MutualElimination => "mutual-elimination",
            EndReason::Repetition => "repetition",
            EndReason::RepetitionClaim => "repetition-claim",
            EndReason::TurnLimit => "turn-limit",
        }
    }
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// `Win(player)` or `Draw`, never `Ongoing`.
    pub outcome: Outcome,
    /// How the game ended.
    pub reason: EndReason,
}

impl GameResult {
    /// The score in the PGN style, from player 0's side: `1-0`, `0-1`, `1/2-1/2`.
    pub fn score(&self) -> &'static str {
        match self.outcome {
            Outcome::Win(Player::First) => "1-0",
            Outcome::Win(Player::Second) => "0-1",
            _ => "1/2-1/2",
        }
    }
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// The game goes on.
    Ongoing {
        /// How many times the current position has occurred (1 = first time).
        repetitions: u32,
        /// Whether the side to move may claim a draw by repetition now.
        claimable: bool,
    },
    /// The game is over.
    Over(GameResult),
}

/// Why a position could not be set. The engine's position is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The start position is in the middle of a turn.
    MidTurn,
    /// Turn number `index` (from 1) of the list cannot be played.
    Turn {
        /// 1-based index in the turn list.
        index: usize,
        /// The turn as given.
        text: String,
        /// Why it was rejected.
        error: TurnError,
    },
    /// Turn number `index` comes after the game ended.
    AfterGameOver {
        /// 1-based index in the turn list.
        index: usize,
        /// The turn as given.
        text: String,
        /// How the game had ended.
        result: GameResult,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MidTurn => write!(
                formatter,
                "expected a position at the start of a turn (no turn= field, or turn=s)"
            ),
            PositionError::Turn { index, text, error } => {
                write!(formatter, "turn {index} '{text}' cannot be played: {error}")
            }
            PositionError::AfterGameOver {
                index,
                text,
                result,
            } => write!(
                formatter,
                "turn {index} '{text}' comes after the end of the game ({} {})",
                result.score(),
                result.reason.word()
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// Why an option could not be set. The options are unchanged.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    /// No option has this name.
    UnknownName(String),
    /// The value does not fit the option.
    BadValue {
        /// The option.
        name: String,
        /// The rejected value.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// Options cannot change while a search runs.
    Busy,
}

impl fmt::Display for OptionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownName(name) => write!(
                formatter,
                "unknown option '{name}' (the hwi command lists them)"
            ),
            OptionError::BadValue {
                name,
                value,
                expected,
            } => write!(
                formatter,
                "option {name}: bad value '{value}': expected {expected}"
            ),
            OptionError::Busy => write!(
                formatter,
                "a search is running: send stop first, then change options"
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// Why a search could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// A search is already running.
    Busy,
    /// The operating system refused a thread for the search.
    NoThread(String),
}

impl fmt::Display for GoError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoError::Busy => write!(formatter, "a search is already running: send stop first"),
            GoError::NoThread(reason) => {
                write!(formatter, "cannot start a search thread: {reason}")
            }
        }
    }
}

impl std::error::Error for GoError {}

/// The kind and range of an option, for listing (`option name ... type ...`).
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    /// A whole number.
    Spin {
        /// Default value.
        default: i64,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A real number (a search tunable).
    Float {
        /// Default value.
        default: f32,
        /// Smallest value.
        min: f32,
        /// Largest value.
        max: f32,
    },
    /// One of a fixed list of words.
    Combo {
        /// Default value.
        default: &'static str,
        /// Every allowed value.
        values: Vec<&'static str>,
    },
    /// Free text.
    Text {
        /// Default value.
        default: &'static str,
    },
}

/// One option the engine understands.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// The name, matched without regard to case.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// The largest `Hash` value, in megabytes: far beyond any machine this runs
/// on, but small enough that the arithmetic on it cannot overflow.
const MAX_HASH_MB: i64 = 1 << 20;
/// The largest `Threads` value.
const MAX_THREADS: i64 = 1024;
/// The largest `MultiPV` value.
const MAX_MULTI_PV: i64 = 256;
/// The largest `MaxTurns` value.
const MAX_TURN_LIMIT: i64 = 1_000_000;

/// Every option, in the order `hwi` lists them: the engine's own, then each
/// search tunable from the tunables table.
pub fn option_specs() -> Vec<OptionSpec> {
    let defaults = SearchOptions::default();
    let mut specs = vec![
        OptionSpec {
            name: "Threads",
            kind: OptionKind::Spin {
                default: defaults.threads as i64,
                min: 1,
                max: MAX_THREADS,
            },
        },
        OptionSpec {
            name: "Hash",
            kind: OptionKind::Spin {
                default: defaults.hash_mb as i64,
                min: 1,
                max: MAX_HASH_MB,
            },
        },
        OptionSpec {
            name: "MultiPV",
            kind: OptionKind::Spin {
                default: defaults.multi_pv as i64,
                min: 1,
                max: MAX_MULTI_PV,
            },
        },
        OptionSpec {
            name: "Seed",
            kind: OptionKind::Spin {
                default: defaults.seed as i64,
                min: 0,
                max: i64::MAX,
            },
        },
        OptionSpec {
            name: "Player",
            kind: OptionKind::Combo {
                default: defaults.player.name(),
                values: vec!["mcts", "greedy", "random"],
            },
        },
        OptionSpec {
            name: "Rules",
            kind: OptionKind::Combo {
                default: defaults.rules.name,
                values: Rules::PROFILES.iter().map(|rules| rules.name).collect(),
            },
        },
        OptionSpec {
            name: "Repetition",
            kind: OptionKind::Text { default: "profile" },
        },
        OptionSpec {
            name: "MaxTurns",
            kind: OptionKind::Spin {
                default: 0,
                min: 0,
                max: MAX_TURN_LIMIT,
            },
        },
    ];
    let overhead = Tunables::find("move_overhead_ms").map(|(_, spec)| spec);
    if let Some(spec) = overhead {
        specs.push(OptionSpec {
            name: "Move Overhead",
            kind: OptionKind::Spin {
                default: spec.default as i64,
                min: spec.min as i64,
                max: spec.max as i64,
            },
        });
    }
    specs.extend(TUNABLES.iter().map(|spec| OptionSpec {
        name: spec.name,
        kind: OptionKind::Float {
            default: spec.default,
            min: spec.min,
            max: spec.max,
        },
    }));
    specs
}

/// Writes a repetition setting as the `Repetition` option reads it.
pub fn repetition_text(repetition: Repetition) -> String {
    match repetition {
        Repetition::Off => "off".to_string(),
        Repetition::Claim(count) => format!("claim@{count}"),
        Repetition::Automatic(count) => format!("auto@{count}"),
    }
}

/// Reads a repetition setting: `off`, `claim@N` or `auto@N` (N from 2).
pub fn parse_repetition(text: &str) -> Option<Repetition> {
    if text.eq_ignore_ascii_case("off") {
        return Some(Repetition::Off);
    }
    let (kind, count) = text.split_once('@')?;
    let count: u32 = count.parse().ok().filter(|&count| count >= 2)?;
    match kind.to_ascii_lowercase().as_str() {
        "claim" => Some(Repetition::Claim(count)),
        "auto" => Some(Repetition::Automatic(count)),
        _ => None,
    }
}

/// What a running search tells its listener, on the search thread.
#[derive(Debug)]
pub enum SearchEvent<'a> {
    /// Progress (rate-limited by [`INFO_INTERVAL`]); the last one before
    /// `Finished` describes the final state.
    Info(&'a SearchInfo),
    /// The search is over: the turn to play, or a claimed draw.
    Finished(&'a GoOutcome),
}

/// How one `go` ended.
#[derive(Clone, Debug, PartialEq)]
pub enum GoOutcome {
    /// A turn to play.
    Turn {
        /// The search's answer (its `best_turn` is the turn to play).
        result: SearchResult,
    },
    /// No turn: the game was already over, or the engine claimed a draw by
    /// repetition instead of playing.
    GameOver {
        /// The result.
        result: GameResult,
        /// The search that preceded a claim, if one ran.
        search: Option<SearchResult>,
    },
}

/// Receives search events. Runs on the search thread, so it must be `Send`.
pub type Listener = Box<dyn FnMut(SearchEvent<'_>) + Send>;

/// A running search: its thread (which hands the searcher back) and its stop flag.
struct Running {
    handle: JoinHandle<Searcher>,
    stop: Arc<AtomicBool>,
    /// Set just before the final event: from then on the search counts as
    /// over, so a controller that reacts to `bestmove` at once with another
    /// `go` is never told the engine is busy (the thread only has to return).
    answered: Arc<AtomicBool>,
    infinite: bool,
}

impl Running {
    fn is_over(&self) -> bool {
        self.answered.load(Ordering::Acquire) || self.handle.is_finished()
    }
}

/// The engine: game state, options and a searcher. See the module docs.
pub struct Engine {
    /// The board now (position and system names).
    board: Board,
    /// The board before each turn played since the last `set_position`
    /// base, oldest first (all at the start of a turn).
    earlier: Vec<Board>,
    /// The actions of each turn played since the base.
    played: Vec<Vec<Action>>,
    /// Turns played after setup, for the turn limit.
    turns_after_setup: u32,
    /// The result on the board after the last turn (elimination only).
    board_outcome: Outcome,
    options: SearchOptions,
    /// The profile chosen with `Rules`; repetition and the turn limit
    /// override it when set.
    profile: Rules,
    repetition: Option<Repetition>,
    max_turns: Option<u32>,
    /// The searcher, when no search is running.
    searcher: Option<Searcher>,
    running: Option<Running>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(SearchOptions::default())
    }
}

impl Engine {
    /// An engine at the start position.
    pub fn new(mut options: SearchOptions) -> Engine {
        options.info_interval = INFO_INTERVAL;
        let profile = options.rules;
        Engine {
            board: Board::default(),
            earlier: Vec::new(),
            played: Vec::new(),
            turns_after_setup: 0,
            board_outcome: Outcome::Ongoing,
            searcher: Some(Searcher::new(options.clone())),
            options,
            profile,
            repetition: None,
            max_turns: None,
            running: None,
        }
    }

    /// The rules in force: the profile with the repetition and turn-limit overrides.
    pub fn rules(&self) -> Rules {
        let mut rules = self.profile;
        if let Some(repetition) = self.repetition {
            rules.repetition = repetition;
        }
        if let Some(limit) = self.max_turns {
            rules.max_turns = (limit > 0).then_some(limit);
        }
        rules
    }

    /// The search options in force.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The current board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The boards before each turn played since the position's base, oldest first.
    pub fn earlier_boards(&self) -> &[Board] {
        &self.earlier
    }

    /// The turns played since the position's base.
    pub fn played_turns(&self) -> &[Vec<Action>] {
        &self.played
    }

    /// Hashes of the earlier start-of-turn positions, for the search's
    /// repetition detection.
    pub fn history(&self) -> Vec<u64> {
        self.earlier
            .iter()
            .map(|board| board.position.hash())
            .collect()
    }

    /// Where the game stands, judged with the rules in force.
    pub fn status(&self) -> GameStatus {
        status_of(
            &self.rules(),
            &self.board,
            &self.earlier,
            self.turns_after_setup,
            self.board_outcome,
        )
    }

    /// Sets the game: a base board (at the start of a turn) and the turns
    /// played from it, as text (any form [`Board::play_turn_text`] reads).
    /// A search in progress is not affected (it works on its own copy).
    ///
    /// # Errors
    /// A mid-turn base, a turn that cannot be played (naming it), or a turn
    /// after the game ended. The engine's position is then unchanged.
    pub fn set_position<S: AsRef<str>>(
        &mut self,
        base: Board,
        turns: &[S],
    ) -> Result<(), PositionError> {
        if base.position.turn_state() != TurnState::Start {
            return Err(PositionError::MidTurn);
        }
        let rules = self.rules();
        let mut board = base;
        let mut earlier = Vec::with_capacity(turns.len());
        let mut played = Vec::with_capacity(turns.len());
        let mut turns_after_setup = 0;
        let mut outcome = board.position.outcome();
        for (index, text) in turns.iter().enumerate() {
            let text = text.as_ref();
            if let GameStatus::Over(result) =
                status_of(&rules, &board, &earlier, turns_after_setup, outcome)
            {
                return Err(PositionError::AfterGameOver {
                    index: index + 1,
                    text: text.to_string(),
                    result,
                });
            }
            let before = board.clone();
            let turn = board
                .play_turn_text(&rules, text)
                .map_err(|error| PositionError::Turn {
                    index: index + 1,
                    text: text.to_string(),
                    error,
                })?;
            if !before.position.in_setup() {
                turns_after_setup += 1;
            }
            outcome = turn.outcome;
            earlier.push(before);
            played.push(turn.actions);
        }
        self.board = board;
        self.earlier = earlier;
        self.played = played;
        self.turns_after_setup = turns_after_setup;
        self.board_outcome = outcome;
        Ok(())
    }

    /// Starts a new game: the start position, and a searcher with no memory.
    ///
    /// # Errors
    /// [`OptionError::Busy`] while a search runs.
    pub fn new_game(&mut self) -> Result<(), OptionError> {
        let searcher = self.idle_searcher()?;
        searcher.clear();
        self.board = Board::default();
        self.earlier.clear();
        self.played.clear();
        self.turns_after_setup = 0;
        self.board_outcome = Outcome::Ongoing;
        Ok(())
    }

    /// The searcher, if no search holds it (collecting a finished search first).
    fn idle_searcher(&mut self) -> Result<&mut Searcher, OptionError> {
        if let Some(running) = &self.running {
            if !running.is_over() {
                return Err(OptionError::Busy);
            }
            self.wait();
        }
        Ok(self
            .searcher
            .get_or_insert_with(|| Searcher::new(self.options.clone())))
    }

    /// Sets an option by name (case-insensitive). Values are checked against
    /// [`option_specs`]; tunables by the tunables table.
    ///
    /// # Errors
    /// An unknown name, a bad value, or a search in progress. The options are
    /// then unchanged.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let spec = option_specs()
            .into_iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::UnknownName(name.to_string()))?;
        let bad = |expected: String| OptionError::BadValue {
            name: spec.name.to_string(),
            value: value.to_string(),
            expected,
        };
        let mut options = self.options.clone();
        let mut profile = self.profile;
        let mut repetition = self.repetition;
        let mut max_turns = self.max_turns;
        match &spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let number: i64 = value
                    .parse()
                    .ok()
                    .filter(|number| (min..=max).contains(&number))
                    .ok_or_else(|| bad(format!("a whole number from {min} to {max}")))?;
                match spec.name {
                    "Threads" => options.threads = number as usize,
                    "Hash" => options.hash_mb = number as usize,
                    "MultiPV" => options.multi_pv = number as usize,
                    "Seed" => options.seed = number as u64,
                    "MaxTurns" => max_turns = Some(number as u32),
                    "Move Overhead" => options
                        .tunables
                        .set("move_overhead_ms", number as f32)
                        .map_err(|error| bad(error.to_string()))?,
                    _ => return Err(OptionError::UnknownName(name.to_string())),
                }
            }
            OptionKind::Float { .. } => {
                let number: f32 = value
                    .parse()
                    .ok()
                    .filter(|number: &f32| number.is_finite())
                    .ok_or_else(|| bad("a number".to_string()))?;
                options
                    .tunables
                    .set(spec.name, number)
                    .map_err(|error| match error {
                        TunableError::OutOfRange { min, max, .. } => {
                            bad(format!("a number from {min} to {max}"))
                        }
                        TunableError::UnknownName(name) => OptionError::UnknownName(name),
                    })?;
            }
            OptionKind::Combo { values, .. } => {
                let expected = || format!("one of {}", values.join(", "));
                match spec.name {
                    "Player" => {
                        options.player =
                            value.parse::<PlayerKind>().map_err(|_| bad(expected()))?;
                    }
                    "Rules" => {
                        profile = value.parse::<Rules>().map_err(|_| bad(expected()))?;
                    }
                    _ => return Err(OptionError::UnknownName(name.to_string())),
                }
            }
            OptionKind::Text { .. } => {
                // Only Repetition is free text.
                repetition = if value.eq_ignore_ascii_case("profile") {
                    None
                } else {
                    Some(parse_repetition(value).ok_or_else(|| {
                        bad("profile, off, claim@N or auto@N with N at least 2".to_string())
                    })?)
                };
            }
        }
        let searcher = self.idle_searcher()?;
        let mut rules = profile;
        if let Some(repetition) = repetition {
            rules.repetition = repetition;
        }
        if let Some(limit) = max_turns {
            rules.max_turns = (limit > 0).then_some(limit);
        }
        options.rules = rules;
        searcher.set_options(options.clone());
        self.options = options;
        self.profile = profile;
        self.repetition = repetition;
        self.max_turns = max_turns;
        Ok(())
    }

    /// The static evaluation of the current position for the side to move.
    pub fn evaluate(&self) -> f32 {
        static_evaluation_with(&self.board.position, &self.rules(), &self.options.tunables)
    }

    /// Whether a search is running (its thread has not finished).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|running| !running.is_over())
    }

    /// Whether the running search was started without limits, so that only
    /// [`Engine::stop`] ends it.
    pub fn is_searching_infinitely(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|running| running.infinite && !running.is_over())
    }

    /// Starts searching the current position. Never blocks: the listener
    /// gets `Info` events and then exactly one `Finished`, on the search
    /// thread (or on this thread at once when the game is already over).
    ///
    /// # Errors
    /// [`GoError::Busy`] when a search is still running.
    pub fn go(&mut self, limits: SearchLimits, mut listener: Listener) -> Result<(), GoError> {
        if self.is_searching() {
            return Err(GoError::Busy);
        }
        self.wait();
        let status = self.status();
        let claimable = match status {
            GameStatus::Over(result) => {
                listener(SearchEvent::Finished(&GoOutcome::GameOver {
                    result,
                    search: None,
                }));
                return Ok(());
            }
            GameStatus::Ongoing { claimable, .. } => claimable,
        };
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.options.clone()));
        let stop = Arc::new(AtomicBool::new(false));
        let infinite = limits.infinite
            || (limits.nodes.is_none() && limits.movetime.is_none() && limits.clock.is_none());
        let position = self.board.position;
        let history = self.history();
        let options = self.options.clone();
        let thread_stop = Arc::clone(&stop);
        let answered = Arc::new(AtomicBool::new(false));
        let thread_answered = Arc::clone(&answered);
        let spawned = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(8 << 20)
            .spawn(move || {
                let mut last_info: Option<SearchInfo> = None;
                let searched = catch_unwind(AssertUnwindSafe(|| {
                    searcher.search(&position, &history, &limits, &thread_stop, |info| {
                        listener(SearchEvent::Info(info));
                        last_info = Some(info.clone());
                    })
                }));
                let result = match searched {
                    Ok(result) => result,
                    Err(_) => {
                        // A search bug must not break the protocol's promise of
                        // one answer per go: play the first legal turn, and
                        // start the next search with a fresh searcher.
                        searcher = Searcher::new(options.clone());
                        fallback_result(&position, &options.rules)
                    }
                };
                if last_info.as_ref() != Some(&result.info) {
                    listener(SearchEvent::Info(&result.info));
                }
                let outcome = if claimable && result.value <= 0.0 {
                    GoOutcome::GameOver {
                        result: GameResult {
                            outcome: Outcome::Draw,
                            reason: EndReason::RepetitionClaim,
                        },
                        search: Some(result),
                    }
                } else {
                    GoOutcome::Turn { result }
                };
                thread_answered.store(true, Ordering::Release);
                listener(SearchEvent::Finished(&outcome));
                searcher
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    stop,
                    answered,
                    infinite,
                });
                Ok(())
            }
            Err(error) => {
                // The searcher went down with the closure; the next search
                // builds a new one.
                Err(GoError::NoThread(error.to_string()))
            }
        }
    }

    /// Asks a running search to stop. Never blocks; the listener still
    /// receives the final `Finished` event.
    pub fn stop(&self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Waits for the running search (if any) to finish and takes the
    /// searcher back. Call [`Engine::stop`] first to end an infinite search.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => self.searcher = Some(Searcher::new(self.options.clone())),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

/// The game status of `board` reached through `earlier`.
fn status_of(
    rules: &Rules,
    board: &Board,
    earlier: &[Board],
    turns_after_setup: u32,
    board_outcome: Outcome,
) -> GameStatus {
    let outcome = if board.position.in_setup() {
        Outcome::Ongoing
    } else {
        match board_outcome {
            Outcome::Ongoing => board.position.outcome(),
            other => other,
        }
    };
    match outcome {
        Outcome::Win(player) => {
            return GameStatus::Over(GameResult {
                outcome: Outcome::Win(player),
                reason: EndReason::Elimination,
            })
        }
        Outcome::Draw => {
            return GameStatus::Over(GameResult {
                outcome: Outcome::Draw,
                reason: EndReason::MutualElimination,
            })
        }
        Outcome::Ongoing => {}
    }
    let hash = board.position.hash();
    let repetitions = 1 + earlier
        .iter()
        .filter(|before| before.position.hash() == hash)
        .count() as u32;
    let mut claimable = false;
    match rules.repetition {
        Repetition::Automatic(count) if repetitions >= count => {
            return GameStatus::Over(GameResult {
                outcome: Outcome::Draw,
                reason: EndReason::Repetition,
            })
        }
        Repetition::Claim(count) => claimable = repetitions >= count,
        _ => {}
    }
    if let Some(limit) = rules.max_turns {
        if turns_after_setup >= limit {
            return GameStatus::Over(GameResult {
                outcome: Outcome::Draw,
                reason: EndReason::TurnLimit,
            });
        }
    }
    GameStatus::Ongoing {
        repetitions,
        claimable,
    }
}

/// The first legal turn, as a result, for when the search failed.
fn fallback_result(position: &crate::rules::Position, rules: &Rules) -> SearchResult {
    let turn = position
        .legal_turns(rules)
        .into_iter()
        .next()
        .map(|turn| turn.actions)
        .unwrap_or_default();
    let info = SearchInfo {
        best_turn: turn.clone(),
        principal_variation: vec![turn.clone()],
        ..SearchInfo::default()
    };
    SearchResult {
        best_turn: turn,
        value: 0.0,
        decision: crate::search::Decision::Search,
        info,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;
    use std::sync::mpsc;

    fn run_go(engine: &mut Engine, limits: SearchLimits) -> GoOutcome {
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
        let outcome = receiver.recv().unwrap();
        engine.wait();
        outcome
    }

    #[test]
    fn a_bad_turn_leaves_the_position_unchanged() {
        let mut engine = Engine::default();
        engine
            .set_position(Board::default(), &["home.r1.b3.g3"])
            .unwrap();
        let before = engine.board().clone();
        let error = engine
            .set_position(Board::default(), &["home.r1.b3.g3", "build.g1.Home1"])
            .unwrap_err();
        assert!(
            matches!(error, PositionError::Turn { index: 2, .. }),
            "{error}"
        );
        assert_eq!(engine.board(), &before);
        assert_eq!(engine.played_turns().len(), 1);
    }

    #[test]
    fn repetition_is_judged_by_the_setting() {
        let base = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        let turns = ["pass", "pass", "pass", "pass"];
        let mut engine = Engine::default();
        engine.set_position(base.clone(), &turns).unwrap();
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
        let error = engine
            .set_position(base.clone(), &["pass", "pass", "pass", "pass", "pass"])
            .unwrap_err();
        assert!(matches!(
            error,
            PositionError::AfterGameOver { index: 5, .. }
        ));
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
            engine.options().tunables.get("move_overhead_ms"),
            Some(10.0)
        );
        assert!(matches!(
            engine.set_option("Nope", "1"),
            Err(OptionError::UnknownName(_))
        ));
    }

    #[test]
    fn go_plays_a_legal_turn_and_reports_game_over() {
        let mut engine = Engine::default();
        engine.set_option("Player", "greedy").unwrap();
        let outcome = run_go(&mut engine, SearchLimits::nodes(100));
        let GoOutcome::Turn { result } = outcome else {
            panic!("expected a turn");
        };
        let mut board = engine.board().clone();
        board
            .play_actions(&engine.rules(), &result.best_turn)
            .unwrap();
        let over = hwpn::parse("r1b3:g3:/x 1").unwrap();
        engine.set_position(over, &[] as &[&str]).unwrap();
        assert!(matches!(
            run_go(&mut engine, SearchLimits::nodes(100)),
            GoOutcome::GameOver { .. }
        ));
    }
}
