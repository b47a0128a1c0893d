//! The engine as a program component, with no text: it owns the game (a
//! [`History`]: the start position and the turns played from it, as
//! actions), the options (one [`Rules`] value among them) and a
//! [`Searcher`], and runs searches on a background thread.
//!
//! This is the layer between the search (which knows one position and a
//! list of earlier hashes) and the protocol (which knows text and system
//! names). Game results are judged by the rules layer's [`History`], the one
//! referee that self-play, the match runner and the record tools use too. It
//! mirrors Stockfish's `engine.h`: [`Engine::set_position`] returns an error
//! and leaves the state unchanged, [`Engine::go`] and [`Engine::stop`] never
//! block, and progress and the final answer arrive through a listener called
//! on the search thread. A front end other than the text protocol (the
//! terminal player, a GUI binding) can drive it the same way: it keeps its
//! own names for the systems and turns text into actions itself.
//!
//! As UCI requires, a search without limits, or a ponder search
//! ([`SearchLimits::ponder`]), never delivers its answer before
//! [`Engine::stop`] (or, pondering, [`Engine::ponder_hit`], which turns it
//! into the search its limits describe, on the same tree): when its answer
//! is settled early (the setup book, a proof, a decided turn), the search
//! thread holds it until told. Options are refused while a search runs, so
//! no search ever sees half a change. Below full strength
//! ([`EngineSettings::limit_strength`]) the engine searches a node budget
//! and draws its turn among good candidates ([`strength`]).

pub mod strength;

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::rules::{
    parse_repetition, Action, GameResult, GameStatus, History, PlayError, Position, Rules,
};
use crate::search::{
    static_evaluation_with, Evaluation, PlayerKind, SearchInfo, SearchLimits, SearchOptions,
    SearchResult, Searcher, TunableError, Tunables, ValueNetwork, TUNABLES,
};

/// How often the search reports progress. Protocol front ends show these
/// lines to people; twice a second is lively without flooding a pipe.
pub const INFO_INTERVAL: Duration = Duration::from_millis(500);

/// The tunable that the `Move Overhead` option sets; it is listed and set
/// only under that UCI name.
const MOVE_OVERHEAD_TUNABLE: &str = "move_overhead_ms";

/// The `EvalFile` value that names the network built into the binary.
pub const EMBEDDED_NETWORK: &str = "<built-in>";

/// Why a position could not be set. The engine's position is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The start position is in the middle of a turn.
    MidTurn,
    /// Turn number `index` (from 1) of the list cannot be played, or comes
    /// after the end of the game ([`PlayError::GameOver`]).
    Turn {
        /// 1-based index in the turn list.
        index: usize,
        /// Why it was rejected.
        error: PlayError,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MidTurn => write!(formatter, "{}", crate::rules::MidTurn),
            PositionError::Turn {
                index,
                error: PlayError::GameOver(result),
            } => write!(
                formatter,
                "turn {index} comes after the end of the game ({} {})",
                result.score(),
                result.reason.word()
            ),
            PositionError::Turn { index, error } => {
                write!(formatter, "turn {index} cannot be played: {error}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Why an option could not be set. The options are unchanged. The name and
/// value are quoted as given: a front end that shows them to people bounds
/// and escapes them (the protocol session does).
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
    /// On or off (UCI's `check`).
    Check {
        /// Default value.
        default: bool,
    },
}

/// The engine's own settings, which change what it reports and how it
/// plays rather than how the searcher is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineSettings {
    /// `Ponder`: the controller may ponder; `bestmove` then names the
    /// expected reply (`ponder <turn>`) when the search has one.
    pub ponder: bool,
    /// `UCI_ShowWDL`: `info` lines carry win, draw and loss chances.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`: play at the strength `elo` (see [`strength`]).
    pub limit_strength: bool,
    /// `UCI_Elo`: the strength when limited.
    pub elo: i64,
}

impl Default for EngineSettings {
    fn default() -> EngineSettings {
        EngineSettings {
            ponder: false,
            show_wdl: false,
            limit_strength: false,
            elo: strength::DEFAULT_ELO,
        }
    }
}

impl EngineSettings {
    /// The strength level in force, when limited.
    pub fn level(&self) -> Option<strength::Level> {
        self.limit_strength.then(|| strength::level_for(self.elo))
    }
}

/// One option the engine understands.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// The name, matched without regard to case.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptionKind,
}

/// `Threads` is at most this many times the processors this process may
/// use: helpers beyond the processors only take turns with each other.
const THREADS_PER_PROCESSOR: usize = 2;
/// The most `Threads` on any machine.
const THREAD_CEILING: usize = 1024;
/// `Hash` is at most this fraction (1/n) of the machine's memory: the tree
/// grows into what it is given, and the rest is the system's.
const HASH_MEMORY_DIVISOR: u64 = 2;
/// The `Hash` bound, in megabytes, where the machine's memory cannot be
/// read (not Linux): safe on any machine this is likely to run on.
const FALLBACK_MAX_HASH_MB: usize = 4096;

/// The largest `Threads` value on this machine: twice the processors this
/// process may use ([`std::thread::available_parallelism`], which follows
/// CPU affinity and cgroup quotas), at most 1024. Beyond it, `Threads 1024`
/// on 2 cores made the engine slow to answer even `isready`.
pub fn max_threads() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        let processors = std::thread::available_parallelism().map_or(1, usize::from);
        (processors * THREADS_PER_PROCESSOR).clamp(1, THREAD_CEILING)
    })
}

/// The largest `Hash` value on this machine, in megabytes: half its memory
/// (on Linux the smaller of `MemTotal` in /proc/meminfo and a cgroup v2
/// `memory.max`), or 4096 where neither can be read; never below the
/// default. The tree's memory is reserved lazily, so a larger value is
/// accepted by the system and then grows until the machine swaps or the
/// process is killed.
pub fn max_hash_mb() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        let megabytes = memory_total_bytes().map_or(FALLBACK_MAX_HASH_MB as u64, |bytes| {
            (bytes / HASH_MEMORY_DIVISOR) >> 20
        });
        let default = crate::search::DEFAULT_HASH_MB as u64;
        megabytes.clamp(default, i64::MAX as u64) as usize
    })
}

/// The memory this process may use, in bytes, where the system says.
fn memory_total_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let physical = meminfo.as_deref().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
        let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kilobytes.checked_mul(1024)
    });
    let limit = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    match (physical, limit) {
        (Some(physical), Some(limit)) => Some(physical.min(limit)),
        (physical, limit) => physical.or(limit),
    }
}

/// The largest `MultiPV` value.
const MAX_MULTI_PV: i64 = 256;
/// The largest `MaxTurns` value.
const MAX_TURN_LIMIT: i64 = 1_000_000;

/// Every option, in the order `hwi` lists them: the engine's own, then each
/// search tunable from the tunables table.
pub fn option_specs() -> Vec<OptionSpec> {
    // Every command line lists these for its flags' ranges: the defaults
    // here need no network loaded.
    let defaults = SearchOptions::with_tunables(Tunables::hand());
    let mut specs = vec![
        OptionSpec {
            name: "Threads",
            kind: OptionKind::Spin {
                default: defaults.threads as i64,
                min: 1,
                max: max_threads() as i64,
            },
        },
        OptionSpec {
            name: "Hash",
            kind: OptionKind::Spin {
                default: defaults.hash_mb as i64,
                min: 1,
                max: max_hash_mb() as i64,
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
            name: "Eval",
            kind: OptionKind::Combo {
                default: Evaluation::DEFAULT.name(),
                values: vec![Evaluation::Hand.name(), Evaluation::Learned.name()],
            },
        },
        OptionSpec {
            name: "EvalFile",
            kind: OptionKind::Text {
                default: EMBEDDED_NETWORK,
            },
        },
        OptionSpec {
            name: "MaxTurns",
            kind: OptionKind::Spin {
                default: 0,
                min: 0,
                max: MAX_TURN_LIMIT,
            },
        },
        OptionSpec {
            name: "Ponder",
            kind: OptionKind::Check {
                default: EngineSettings::default().ponder,
            },
        },
        OptionSpec {
            name: "UCI_ShowWDL",
            kind: OptionKind::Check {
                default: EngineSettings::default().show_wdl,
            },
        },
        OptionSpec {
            name: "UCI_LimitStrength",
            kind: OptionKind::Check {
                default: EngineSettings::default().limit_strength,
            },
        },
        OptionSpec {
            name: "UCI_Elo",
            kind: OptionKind::Spin {
                default: strength::DEFAULT_ELO,
                min: strength::MIN_ELO,
                max: strength::MAX_ELO,
            },
        },
    ];
    let overhead = Tunables::find(MOVE_OVERHEAD_TUNABLE).map(|(_, spec)| spec);
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
    specs.extend(
        TUNABLES
            .iter()
            .filter(|spec| spec.name != MOVE_OVERHEAD_TUNABLE)
            .map(|spec| OptionSpec {
                name: spec.name,
                kind: OptionKind::Float {
                    default: spec.default,
                    min: spec.min,
                    max: spec.max,
                },
            }),
    );
    specs
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

/// The signals a controller sends a running search, and the wait for
/// them. A search that must not answer before `stop` (an infinite or ponder
/// search that ended early: a setup turn, a proof, a decided turn) blocks
/// here holding its answer, as UCI requires.
#[derive(Default)]
struct Control {
    /// Set by `stop`: the stop flag of the search proper.
    stop: AtomicBool,
    /// Set by `stop` and by `ponderhit`: the stop flag of the ponder phase.
    ponder_over: AtomicBool,
    /// Set by `ponderhit`: the expected reply was played.
    hit: AtomicBool,
    /// Wakes a search waiting for a signal.
    lock: Mutex<()>,
    wake: Condvar,
}

/// How long a waiting search sleeps between looks at its flags, should a
/// wake-up be missed (the flags are set before the lock is taken, so none
/// should be).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

impl Control {
    /// Sets `flags` and wakes a waiting search.
    fn signal(&self, flags: &[&AtomicBool]) {
        for flag in flags {
            flag.store(true, Ordering::Release);
        }
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.wake.notify_all();
    }

    /// Blocks until `flag` is set.
    fn wait_for(&self, flag: &AtomicBool) {
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !flag.load(Ordering::Acquire) {
            guard = match self.wake.wait_timeout(guard, SIGNAL_POLL) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

/// A running search: its thread (which hands the searcher back) and its signals.
struct Running {
    handle: JoinHandle<Searcher>,
    control: Arc<Control>,
    /// Set just before the final event: from then on the search counts as
    /// over, so a controller that reacts to `bestmove` at once with another
    /// `go` is never told the engine is busy (the thread only has to return).
    answered: Arc<AtomicBool>,
    /// Started without limits: only `stop` ends it.
    infinite: bool,
    /// Started as a ponder search.
    ponder: bool,
}

impl Running {
    fn is_over(&self) -> bool {
        self.answered.load(Ordering::Acquire) || self.handle.is_finished()
    }

    /// Whether only `stop` (or, pondering, `ponderhit`) can end it.
    fn waits_for_signal(&self) -> bool {
        (self.infinite || (self.ponder && !self.control.hit.load(Ordering::Acquire)))
            && !self.is_over()
    }
}

/// The engine: game state, options and a searcher. See the module docs.
pub struct Engine {
    /// The game: the start position and the turns played from it.
    history: History,
    /// The search options; `options.rules` is the one [`Rules`] value in
    /// force, for playing turns, judging results and searching.
    options: SearchOptions,
    /// The searcher, when no search is running.
    searcher: Option<Searcher>,
    running: Option<Running>,
    /// The network `Eval learned` uses: the built-in one unless `EvalFile`
    /// named another.
    network: Arc<ValueNetwork>,
    /// What the engine reports and how it plays (`Ponder`, `UCI_ShowWDL`).
    settings: EngineSettings,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(SearchOptions::default())
    }
}

/// A history at the empty start position.
fn new_history() -> History {
    match History::new(Position::start()) {
        Ok(history) => history,
        Err(_) => unreachable!("the start position is at the start of a turn"),
    }
}

impl Engine {
    /// An engine at the start position.
    pub fn new(mut options: SearchOptions) -> Engine {
        options.info_interval = INFO_INTERVAL;
        Engine {
            history: new_history(),
            searcher: Some(Searcher::new(options.clone())),
            network: options
                .tunables
                .network()
                .map(|network| Arc::new(network.clone()))
                .unwrap_or_else(ValueNetwork::embedded),
            options,
            running: None,
            settings: EngineSettings::default(),
        }
    }

    /// The engine's own settings in force.
    pub fn settings(&self) -> EngineSettings {
        self.settings
    }

    /// The rules in force: the profile chosen with `Rules`, with the
    /// `Repetition` and `MaxTurns` fields as set since.
    pub fn rules(&self) -> Rules {
        self.options.rules
    }

    /// The search options in force.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// The current position (at the start of a turn).
    pub fn position(&self) -> &Position {
        self.history.position()
    }

    /// The game: the start position given to [`Engine::set_position`], the
    /// turns played since, and what repetition is judged on.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The turns played since the position's start.
    pub fn played_turns(&self) -> &[Vec<Action>] {
        self.history.turns()
    }

    /// Where the game stands, judged with the rules in force.
    pub fn status(&self) -> GameStatus {
        self.history.status(&self.options.rules)
    }

    /// Sets the game: a start position (at the start of a turn) and the
    /// turns played from it, each as its actions. A search in progress is
    /// not affected (it works on its own copy).
    ///
    /// # Errors
    /// A mid-turn start, a turn that cannot be played or comes after the
    /// end of the game (with its 1-based index). The engine's position is
    /// then unchanged.
    pub fn set_position(
        &mut self,
        start: Position,
        turns: &[Vec<Action>],
    ) -> Result<(), PositionError> {
        let mut history = History::new(start).map_err(|_| PositionError::MidTurn)?;
        history.reserve(turns.len());
        for (index, actions) in turns.iter().enumerate() {
            history
                .play(&self.options.rules, actions)
                .map_err(|error| PositionError::Turn {
                    index: index + 1,
                    error,
                })?;
        }
        self.history = history;
        Ok(())
    }

    /// Starts a new game: the start position, and a searcher with no memory.
    ///
    /// # Errors
    /// [`OptionError::Busy`] while a search runs.
    pub fn new_game(&mut self) -> Result<(), OptionError> {
        let searcher = self.idle_searcher()?;
        searcher.clear();
        self.history = new_history();
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
    /// The rules are one value: `Rules` replaces all of it with the named
    /// profile, the profile's repetition rule and (absent) turn limit
    /// included, so `Repetition` and `MaxTurns` set after `Rules` adjust the
    /// profile, and set before it are reset by it. `Repetition profile`
    /// restores the current profile's repetition rule.
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
                    "MaxTurns" => options.rules.max_turns = (number > 0).then_some(number as u32),
                    "UCI_Elo" => {
                        self.idle_searcher()?;
                        self.settings.elo = number;
                        return Ok(());
                    }
                    "Move Overhead" => options
                        .tunables
                        .set(MOVE_OVERHEAD_TUNABLE, number as f32)
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
                        options.rules = value.parse::<Rules>().map_err(|_| bad(expected()))?;
                    }
                    "Eval" => match value.parse::<Evaluation>().map_err(|_| bad(expected()))? {
                        Evaluation::Hand => options.tunables.set_network(None),
                        Evaluation::Learned => {
                            options.tunables.set_network(Some(self.network.clone()))
                        }
                    },
                    _ => return Err(OptionError::UnknownName(name.to_string())),
                }
            }
            OptionKind::Check { .. } => {
                let on = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("true or false".to_string())),
                };
                let mut settings = self.settings;
                match spec.name {
                    "Ponder" => settings.ponder = on,
                    "UCI_ShowWDL" => settings.show_wdl = on,
                    "UCI_LimitStrength" => settings.limit_strength = on,
                    _ => return Err(OptionError::UnknownName(name.to_string())),
                }
                // Refused during a search like every option, so that no
                // search ever sees half of a change.
                self.idle_searcher()?;
                self.settings = settings;
                return Ok(());
            }
            OptionKind::Text { .. } if spec.name == "EvalFile" => {
                let network = if value.is_empty() || value == EMBEDDED_NETWORK {
                    ValueNetwork::embedded()
                } else {
                    let text = std::fs::read_to_string(value)
                        .map_err(|error| bad(format!("a readable network file ({error})")))?;
                    Arc::new(
                        ValueNetwork::parse(&text)
                            .map_err(|error| bad(format!("a network file ({error})")))?,
                    )
                };
                let searcher = self.idle_searcher()?;
                if options.tunables.network().is_some() {
                    options.tunables.set_network(Some(network.clone()));
                    searcher.set_options(options.clone());
                    self.options = options;
                }
                self.network = network;
                return Ok(());
            }
            OptionKind::Text { .. } => {
                // Repetition is the other free text.
                options.rules.repetition = if value.eq_ignore_ascii_case("profile") {
                    Rules::profile(options.rules.name)
                        .unwrap_or_default()
                        .repetition
                } else {
                    parse_repetition(value).ok_or_else(|| {
                        bad("profile, off, claim@N or auto@N with N at least 2".to_string())
                    })?
                };
            }
        }
        let searcher = self.idle_searcher()?;
        searcher.set_options(options.clone());
        self.options = options;
        Ok(())
    }

    /// The static evaluation of the current position for the side to move.
    pub fn evaluate(&self) -> f32 {
        static_evaluation_with(
            self.history.position(),
            &self.options.rules,
            &self.options.tunables,
        )
    }

    /// Whether a search is running (its thread has not finished).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|running| !running.is_over())
    }

    /// Whether the running search ends only when told: it was started
    /// without limits, or is a ponder search not yet hit, so that only
    /// [`Engine::stop`] (or [`Engine::ponder_hit`]) ends it.
    pub fn is_searching_infinitely(&self) -> bool {
        self.running.as_ref().is_some_and(Running::waits_for_signal)
    }

    /// Starts searching the current position. Never blocks: the listener
    /// gets `Info` events and then exactly one `Finished`, on the search
    /// thread (or on this thread at once when the game is already over and
    /// the search has limits). Without limits, or pondering, `Finished`
    /// comes only after [`Engine::stop`] (or [`Engine::ponder_hit`] and the
    /// limits), even when the game is over.
    ///
    /// # Errors
    /// [`GoError::Busy`] when a search is still running.
    pub fn go(&mut self, limits: SearchLimits, mut listener: Listener) -> Result<(), GoError> {
        if self.is_searching() {
            return Err(GoError::Busy);
        }
        self.wait();
        let over = match self.status() {
            GameStatus::Over(result) => Some(result),
            GameStatus::Ongoing { .. } => None,
        };
        let waits = limits.ponder
            || limits.infinite
            || (limits.nodes.is_none() && limits.movetime.is_none() && limits.clock.is_none());
        if let (Some(result), false) = (over, waits) {
            listener(SearchEvent::Finished(&GoOutcome::GameOver {
                result,
                search: None,
            }));
            return Ok(());
        }
        // The draw the side to move may claim instead of playing, if any.
        let claim = self.history.claim(&self.options.rules);
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.options.clone()));
        let control = Arc::new(Control::default());
        let ponder = limits.ponder;
        let mut timed = SearchLimits {
            ponder: false,
            ..limits
        };
        let infinite = timed.infinite
            || (timed.nodes.is_none() && timed.movetime.is_none() && timed.clock.is_none());
        // Below full strength: a node budget per turn (however long the
        // search may run), no tree carried over from earlier turns, and
        // enough candidates reported to choose among.
        let level = self.settings.level();
        let mut pondering = SearchLimits {
            infinite: true,
            ..timed
        };
        let mut search_options = self.options.clone();
        if let Some(level) = level {
            timed.infinite = false;
            timed.nodes = Some(
                timed
                    .nodes
                    .map_or(level.nodes, |nodes| nodes.min(level.nodes)),
            );
            pondering = SearchLimits::nodes(level.nodes);
            search_options.multi_pv = search_options.multi_pv.max(strength::SAMPLED_CANDIDATES);
            search_options.tree_reuse = false;
            let (cpuct, intra_turn) = strength::CALIBRATED_EXPLORATION;
            let tunables = &mut search_options.tunables;
            // Both are inside their ranges, so neither can fail.
            let _ = tunables.set("cpuct", cpuct);
            let _ = tunables.set("cpuct_intra_turn", intra_turn);
            let _ = tunables.set("contempt", strength::CALIBRATED_CONTEMPT);
            let (exposed, escape) = strength::CALIBRATED_EXPOSURE_PRIORS;
            let _ = tunables.set("prior_exposed", exposed);
            let _ = tunables.set("prior_escape", escape);
            match strength::CALIBRATED_EVALUATION {
                Evaluation::Hand => tunables.set_network(None),
                Evaluation::Learned => tunables.set_network(Some(self.network.clone())),
            }
        }
        searcher.set_options(search_options);
        let position = *self.history.position();
        let history = self.history.earlier_hashes().to_vec();
        let options = self.options.clone();
        let thread_control = Arc::clone(&control);
        let answered = Arc::new(AtomicBool::new(false));
        let thread_answered = Arc::clone(&answered);
        let spawned = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(8 << 20)
            .spawn(move || {
                let control = thread_control;
                if let Some(result) = over {
                    // The game is over: nothing to search, but an infinite
                    // or ponder search still answers only when told.
                    control.wait_for(if ponder {
                        &control.ponder_over
                    } else {
                        &control.stop
                    });
                    thread_answered.store(true, Ordering::Release);
                    listener(SearchEvent::Finished(&GoOutcome::GameOver {
                        result,
                        search: None,
                    }));
                    return searcher;
                }
                let mut last_info: Option<SearchInfo> = None;
                let mut job = SearchJob {
                    searcher: &mut searcher,
                    position: &position,
                    history: &history,
                    options: &options,
                    listener: &mut listener,
                    last_info: &mut last_info,
                    level,
                };
                let mut result;
                if ponder {
                    // Ponder: no limits until ponderhit or stop; an early
                    // answer (a proof, the book) waits for one of them.
                    result = job.search(&pondering, &control.ponder_over);
                    control.wait_for(&control.ponder_over);
                    if control.hit.load(Ordering::Acquire) {
                        // The expected reply was played: the normal search,
                        // on the tree the ponder search grew.
                        result = job.search(&timed, &control.stop);
                        if infinite {
                            control.wait_for(&control.stop);
                        }
                    }
                } else {
                    result = job.search(&timed, &control.stop);
                    if infinite {
                        // UCI: an infinite search answers only after stop,
                        // even when its answer was settled at once.
                        control.wait_for(&control.stop);
                    }
                }
                if last_info.as_ref() != Some(&result.info) {
                    listener(SearchEvent::Info(&result.info));
                }
                let outcome = match claim {
                    Some(claimed) if result.value <= 0.0 => GoOutcome::GameOver {
                        result: claimed,
                        search: Some(result),
                    },
                    _ => GoOutcome::Turn { result },
                };
                thread_answered.store(true, Ordering::Release);
                listener(SearchEvent::Finished(&outcome));
                searcher
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    control,
                    answered,
                    infinite,
                    ponder,
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
    /// receives the final `Finished` event. A ponder search stops without
    /// turning into a timed one, and answers what it found.
    pub fn stop(&self) {
        if let Some(running) = &self.running {
            let control = &running.control;
            control.signal(&[&control.stop, &control.ponder_over]);
        }
    }

    /// The expected reply was played (UCI's `ponderhit`): a running ponder
    /// search becomes the normal search with the limits its `go` gave,
    /// keeping its tree. Returns whether a ponder search was running (and
    /// not already hit or stopped); otherwise nothing changes.
    pub fn ponder_hit(&self) -> bool {
        let Some(running) = &self.running else {
            return false;
        };
        let control = &running.control;
        if !running.ponder
            || running.is_over()
            || control.hit.load(Ordering::Acquire)
            || control.ponder_over.load(Ordering::Acquire)
        {
            return false;
        }
        control.signal(&[&control.hit, &control.ponder_over]);
        true
    }

    /// Whether a ponder search is running and has not been hit or stopped.
    pub fn is_pondering(&self) -> bool {
        self.running.as_ref().is_some_and(|running| {
            running.ponder
                && !running.is_over()
                && !running.control.ponder_over.load(Ordering::Acquire)
        })
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

/// One `go`'s searches, which share the searcher, the position and the
/// listener: a ponder search and the timed search after `ponderhit` are two.
struct SearchJob<'a> {
    searcher: &'a mut Searcher,
    position: &'a Position,
    history: &'a [u64],
    options: &'a SearchOptions,
    listener: &'a mut Listener,
    /// The last report sent, so that the final one is not sent twice.
    last_info: &'a mut Option<SearchInfo>,
    /// The strength level, when limited.
    level: Option<strength::Level>,
}

impl SearchJob<'_> {
    /// One search under `limits`, ended early by `stop`; reports progress.
    fn search(&mut self, limits: &SearchLimits, stop: &AtomicBool) -> SearchResult {
        let listener = &mut *self.listener;
        let last_info = &mut *self.last_info;
        let searcher = &mut *self.searcher;
        let shown = self.options.multi_pv.max(1);
        let searched = catch_unwind(AssertUnwindSafe(|| {
            searcher.search(self.position, self.history, limits, stop, |info| {
                let info = shown_info(info, shown);
                listener(SearchEvent::Info(&info));
                *last_info = Some(info);
            })
        }));
        match searched {
            Ok(mut result) => {
                if let Some(level) = &self.level {
                    strength::sample_turn(
                        &mut result,
                        self.position,
                        &self.options.rules,
                        level,
                        self.options.seed,
                    );
                }
                result.info = shown_info(&result.info, shown);
                result
            }
            Err(_) => {
                // A search bug must not break the protocol's promise of one
                // answer per go: play the first legal turn, and start the
                // next search with a fresh searcher.
                *self.searcher = Searcher::new(self.options.clone());
                fallback_result(self.position, &self.options.rules)
            }
        }
    }
}

/// A report with at most `shown` candidates: a limited engine's search
/// reports more, to choose among, than `MultiPV` asks to see.
fn shown_info(info: &SearchInfo, shown: usize) -> SearchInfo {
    let mut info = info.clone();
    info.candidates.truncate(shown);
    info
}

/// The first legal turn, as a result, for when the search failed. The
/// listing stops at that first turn: a position can have hundreds of
/// thousands, and listing them all (with a copy of each) took seconds.
fn fallback_result(position: &Position, rules: &Rules) -> SearchResult {
    let mut turn = Vec::new();
    crate::rules::TurnEnumerator::default().for_each_turn_while(
        position,
        rules,
        None,
        |actions, _, _| {
            turn = actions.to_vec();
            false
        },
    );
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
    use crate::rules::{
        Colour, EndReason, Outcome, Piece, PieceSet, Player, Repetition, System, TurnState,
    };
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
                spec.name.eq_ignore_ascii_case("Move Overhead")
                    || spec.name == MOVE_OVERHEAD_TUNABLE
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
        let (sender, receiver) = mpsc::channel();
        let limits = SearchLimits {
            nodes: Some(300),
            ponder: true,
            ..SearchLimits::default()
        };
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
}
