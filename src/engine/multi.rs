//! The multi-player game (three to six players) behind a text-free API, as
//! [`Engine`](super::Engine) is for two: it owns the game's position, its
//! options (`Players`, `Victory`, `Alignment`, and the `Seed` and `Player`
//! it shares with the two-player engine) and the searches, and a front end
//! (the protocol's multi-player extension) keeps the names of the systems
//! and turns text into actions itself.
//!
//! It stands beside the two-player engine rather than inside it because the
//! two games have different positions and different searches. The
//! two-player search's speed comes from its packed 128-byte
//! [`Position`](crate::rules::Position), on which its parallel tree, its
//! threat checks and its solver are built; that packing does not extend to
//! more players ([`crate::rules::multi`]), so the multi-player search
//! ([`crate::search::multi`]) is a max-n search of its own on
//! [`MultiPosition`], on `Threads` trees at once. Making one engine generic over both
//! would put a game-type parameter through the two-player hot path for no
//! gain there.
//!
//! A multi-player search is always bounded, by nodes, `movetime` or the
//! clocks ([`MultiLimits`]), so there is no pondering and no infinite
//! search; but a bound can be huge (`go nodes 18446744073709551615`), so
//! [`MultiEngine::go`] runs the search on a thread of its own, as the
//! two-player engine does, and [`MultiEngine::stop`] (or a [`StopHandle`]
//! from another thread) ends it with the best turn found so far: the
//! protocol answers `isready` meanwhile, and `quit` and `stop` end it. A
//! `go`, an option or a new game while a search runs waits for its answer
//! first (at once for a stopped search), so the answers come in order, as
//! they did when the search ran on the caller's thread. Between searches
//! the engine remembers, per position, where its own turns led in this
//! game, so that a deterministic player leaves a cycle instead of repeating
//! it to the turn limit.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::rules::multi::{
    MultiAction, MultiOutcome, MultiPosition, Seat, Seats, Victory, MAX_PLAYERS,
};
use crate::rules::{Rules, TurnState};
use crate::search::multi::{greedy_turn_avoiding, random_turn, MultiSearch, MultiSearchOptions};
use crate::search::PlayerKind;

use super::options::max_threads;
use super::{GoError, StopHandle};

/// What a multi-player search found, for the front end's report: the
/// playouts, the root's expected share per seat, and why the turn was
/// chosen.
pub use crate::search::multi::MultiReport;

/// Playouts a `go` with only a clock may not exceed (a clock-bound search
/// stops on time long before).
const CLOCK_NODE_CAP: u32 = 10_000_000;
/// Clock time kept back per turn for the controller's overhead, in ms.
const OVERHEAD_MS: u64 = 50;

/// The names of the options only the multi-player game has; the two-player
/// engine does not list them.
pub const MULTI_OPTIONS: [&str; 3] = ["Players", "Victory", "Alignment"];

/// The engine's own alignment in Good versus Evil, as the controller told
/// it privately (`Alignment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alignment {
    /// Not told: the search deals it with the others.
    Unknown,
    /// Good.
    Good,
    /// Evil: the search counts itself among the Evil seats.
    Evil,
}

/// The multi-player options in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiSettings {
    /// `Players`: 2 (multi-player games off) to 6.
    pub players: usize,
    /// `Player`: the search, the greedy or the random player.
    pub player: PlayerKind,
    /// `Victory`: how the game is won (Good versus Evil with no Evil seat
    /// named; a position names them).
    pub victory: Victory,
    /// `Alignment`: the engine's own in Good versus Evil.
    pub alignment: Alignment,
    /// `Seed`: mixed with each position's hash for the search's choices.
    pub seed: u64,
    /// `Threads`: how many trees the search grows at once.
    pub threads: usize,
}

impl Default for MultiSettings {
    fn default() -> MultiSettings {
        MultiSettings {
            players: 2,
            player: PlayerKind::Mcts,
            victory: Victory::LastManStanding,
            alignment: Alignment::Unknown,
            seed: 0,
            threads: 1,
        }
    }
}

/// Why a multi-player option could not be set; the options are unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiOptionError {
    /// The option.
    pub name: &'static str,
    /// The rejected value, as given.
    pub value: String,
    /// What was expected.
    pub expected: &'static str,
}

impl fmt::Display for MultiOptionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "option {}: '{}': expected {}",
            self.name, self.value, self.expected
        )
    }
}

impl std::error::Error for MultiOptionError {}

/// Why a position does not fit the game the options describe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MultiPositionError {
    /// Its number of seats is not `Players`.
    Players {
        /// The position's seats.
        position: usize,
        /// The option's value.
        option: usize,
    },
    /// It is in the middle of a turn.
    MidTurn,
    /// It names a victory condition other than the option's.
    Victory {
        /// The one the position names.
        position: &'static str,
        /// The option's.
        option: &'static str,
    },
    /// The rules refuse it with the option's victory condition.
    Invalid(String),
}

impl fmt::Display for MultiPositionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MultiPositionError::Players { position, option } => write!(
                formatter,
                "the position has {position} players but the option Players is {option}"
            ),
            MultiPositionError::MidTurn => {
                write!(formatter, "a position must be at the start of a turn")
            }
            MultiPositionError::Victory { position, option } => write!(
                formatter,
                "the position says victory={position} but the option Victory is {option}"
            ),
            MultiPositionError::Invalid(reason) => write!(formatter, "{reason}"),
        }
    }
}

impl std::error::Error for MultiPositionError {}

/// The limits of a multi-player `go`: a node count, a time per turn, or
/// each seat's clock and increment (all in milliseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MultiLimits {
    /// Playouts at most.
    pub nodes: Option<u32>,
    /// Time for this turn.
    pub movetime: Option<u64>,
    /// Each seat's time left.
    pub time: [Option<u64>; MAX_PLAYERS],
    /// Each seat's increment per turn.
    pub increment: [Option<u64>; MAX_PLAYERS],
}

impl MultiLimits {
    /// Playouts and deadline for `mover`: a node limit alone keeps the
    /// search deterministic; a clock plans a twentieth of the time left
    /// plus most of the increment, never over a quarter of the time.
    pub fn budget(&self, mover: Seat, started: Instant) -> (u32, Option<Instant>) {
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

/// How one multi-player `go` ended.
#[derive(Clone, Debug, PartialEq)]
pub enum MultiGoOutcome {
    /// The game is over: no turn to play.
    GameOver,
    /// The turn to play.
    Turn {
        /// Its actions, in order (the turn then ends).
        actions: Vec<MultiAction>,
        /// What the search found; its `decision` names the player when
        /// the greedy or random player chose.
        report: MultiReport,
        /// When the search began, for the time the report gives.
        started: Instant,
    },
}

/// The multi-player engine: options, the game's position and what its own
/// turns led to. See the module docs.
pub struct MultiEngine {
    settings: MultiSettings,
    position: MultiPosition,
    /// Positions this engine moved from in this game (hash) and where its
    /// turns led from each, to leave a cycle instead of repeating it.
    played: HashMap<u64, Vec<u64>>,
    /// The search in progress, if any.
    running: Option<MultiRunning>,
    /// Stops the running search from other threads.
    stop_handle: StopHandle,
}

impl Drop for MultiEngine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

impl Default for MultiEngine {
    fn default() -> MultiEngine {
        MultiEngine::new()
    }
}

impl MultiEngine {
    /// The two-player default: multi-player games are off until `Players`
    /// is set to 3 or more.
    pub fn new() -> MultiEngine {
        let settings = MultiSettings::default();
        MultiEngine {
            position: start_position(3, settings.victory),
            settings,
            played: HashMap::new(),
            running: None,
            stop_handle: StopHandle::default(),
        }
    }

    /// Whether a multi-player game is set up (`Players` 3 to 6).
    pub fn is_active(&self) -> bool {
        self.settings.players >= 3
    }

    /// The options in force.
    pub fn settings(&self) -> &MultiSettings {
        &self.settings
    }

    /// The game's current position.
    pub fn position(&self) -> &MultiPosition {
        &self.position
    }

    /// Whether `name` (in any case) is one of [`MULTI_OPTIONS`].
    pub fn is_option(name: &str) -> bool {
        MULTI_OPTIONS
            .iter()
            .any(|option| option.eq_ignore_ascii_case(name))
    }

    /// Follows an option it shares with the two-player engine (`Seed`,
    /// `Player`, `Threads`, in any case): that engine checks the value and
    /// answers any error, so a value that does not read is ignored here
    /// (a `Threads` out of that engine's bounds is refused there and here
    /// alike). Other names are ignored.
    pub fn follow_shared_option(&mut self, name: &str, value: &str) {
        if name.eq_ignore_ascii_case("seed") {
            if let Ok(seed) = value.parse::<u64>() {
                self.settings.seed = seed;
            }
        } else if name.eq_ignore_ascii_case("player") {
            if let Ok(player) = value.parse::<PlayerKind>() {
                self.settings.player = player;
            }
        } else if name.eq_ignore_ascii_case("threads") {
            if let Some(threads) = value
                .parse::<usize>()
                .ok()
                .filter(|threads| (1..=max_threads()).contains(threads))
            {
                self.settings.threads = threads;
            }
        }
    }

    /// Sets one of [`MULTI_OPTIONS`] (the name in any case; the value's
    /// words too) and starts a new game with it, at the start position of
    /// `Players` seats (three while they are off). A running search is
    /// waited for first, so that its turn is not remembered in the new
    /// game.
    ///
    /// # Errors
    /// A value that does not fit; the options and the game are then
    /// unchanged.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), MultiOptionError> {
        self.wait();
        let word = value.to_ascii_lowercase();
        let bad = |name: &'static str, expected: &'static str| MultiOptionError {
            name,
            value: value.to_string(),
            expected,
        };
        if name.eq_ignore_ascii_case("players") {
            self.settings.players = value
                .parse::<usize>()
                .ok()
                .filter(|players| (2..=MAX_PLAYERS).contains(players))
                .ok_or_else(|| bad("Players", "a whole number from 2 to 6"))?;
        } else if name.eq_ignore_ascii_case("victory") {
            self.settings.victory = Victory::from_word(&word)
                .map_err(|_| bad("Victory", "last, sinister or good-evil"))?;
        } else {
            self.settings.alignment = match word.as_str() {
                "good" => Alignment::Good,
                "evil" => Alignment::Evil,
                "unknown" => Alignment::Unknown,
                _ => return Err(bad("Alignment", "good, evil or unknown")),
            };
        }
        self.position = start_position(self.settings.players.max(3), self.settings.victory);
        self.played.clear();
        Ok(())
    }

    /// The start position of a game with the options in force.
    pub fn start_position(&self) -> MultiPosition {
        start_position(self.settings.players, self.settings.victory)
    }

    /// Starts a new game: the start position, and no memory of earlier
    /// turns. A running search is waited for first, as
    /// [`MultiEngine::set_option`] says.
    pub fn new_game(&mut self) {
        self.wait();
        self.position = self.start_position();
        self.played.clear();
    }

    /// `position` made to fit the options: it must have `Players` seats and
    /// start a turn, and it takes the `Victory` option's condition, unless
    /// it is Good versus Evil already (its Evil seats are kept). A position
    /// whose text named its victory condition (`victory_named`) must name
    /// the option's. The systems keep their slots, so names given beside
    /// the position stay where they were.
    ///
    /// # Errors
    /// Which of those it breaks.
    pub fn fit(
        &self,
        position: &MultiPosition,
        victory_named: bool,
    ) -> Result<MultiPosition, MultiPositionError> {
        if position.players() != self.settings.players {
            return Err(MultiPositionError::Players {
                position: position.players(),
                option: self.settings.players,
            });
        }
        if position.turn_state() != TurnState::Start {
            return Err(MultiPositionError::MidTurn);
        }
        let option = self.settings.victory.word();
        if victory_named && position.victory().word() != option {
            return Err(MultiPositionError::Victory {
                position: position.victory().word(),
                option,
            });
        }
        let mut parts = position.parts();
        parts.victory = match position.victory() {
            Victory::GoodVersusEvil { evil } => Victory::GoodVersusEvil { evil },
            _ => self.settings.victory,
        };
        MultiPosition::from_parts(parts).map_err(|error| MultiPositionError::Invalid(error.0))
    }

    /// Sets the game's position (one the front end has read, fitted and
    /// played its turns on). The memory of this game's turns is kept.
    pub fn set_position(&mut self, position: MultiPosition) {
        self.position = position;
    }

    /// Starts choosing the turn to play from the current position within
    /// `limits`, with the player the options name, leaving a cycle of its
    /// own turns. Does not wait for this search: it runs on a thread of
    /// its own, so that the controller's `isready` and `stop` are answered
    /// while it runs, and `listener` gets its one outcome there (or on this thread
    /// at once when the game is over). A search told to stop answers with
    /// the best turn found so far. Deterministic under a node limit. A
    /// search still running is waited for first (its limits bound it; a
    /// stopped one answers at once), so its answer comes before this
    /// one's, as when the searches ran on the caller's thread.
    ///
    /// # Errors
    /// [`GoError::NoThread`] when the system refuses a thread.
    pub fn go(
        &mut self,
        rules: &Rules,
        limits: &MultiLimits,
        listener: MultiListener,
    ) -> Result<(), GoError> {
        self.wait();
        if self.position.outcome() != MultiOutcome::Ongoing {
            listener(&MultiGoOutcome::GameOver);
            return Ok(());
        }
        let mover = self.position.side_to_move();
        let job = MultiJob {
            searched: self.search_position(mover),
            position: self.position.clone(),
            settings: self.settings,
            rules: *rules,
            limits: *limits,
            avoid: self
                .played
                .get(&self.position.hash())
                .cloned()
                .unwrap_or_default(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicBool::new(false));
        let (thread_stop, thread_answered) = (Arc::clone(&stop), Arc::clone(&answered));
        let handle = std::thread::Builder::new()
            .name("multi-search".to_string())
            .stack_size(8 << 20)
            .spawn(move || {
                let (outcome, led) = job.run(thread_stop);
                thread_answered.store(true, Ordering::Release);
                listener(&outcome);
                led
            })
            .map_err(|error| GoError::NoThread(error.to_string()))?;
        let stopper = Arc::clone(&stop);
        self.stop_handle.arm(Some(Arc::new(move || {
            stopper.store(true, Ordering::Release)
        })));
        self.running = Some(MultiRunning {
            handle,
            stop,
            answered,
        });
        Ok(())
    }

    /// Asks the running search, if any, to stop; never blocks. It answers
    /// with the best turn it has.
    pub fn stop(&self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Release);
        }
    }

    /// A handle that stops this engine's running search from any thread.
    pub fn stop_handle(&self) -> StopHandle {
        self.stop_handle.clone()
    }

    /// Whether a search is running (it has not answered yet).
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(MultiRunning::is_running)
    }

    /// Waits for the running search (if any) to answer, and remembers where
    /// its turn led. Call [`MultiEngine::stop`] first not to wait for its
    /// limits.
    pub fn wait(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        self.stop_handle.arm(None);
        // A search that panicked chose nothing to remember.
        if let Ok(Some((key, result))) = running.handle.join() {
            let results = self.played.entry(key).or_default();
            if !results.contains(&result) {
                results.push(result);
            }
        }
    }

    /// The position the search sees: in Good versus Evil, the Evil seats
    /// the controller revealed (those out of the game) plus the engine's
    /// own alignment; the search deals the rest.
    fn search_position(&self, mover: Seat) -> MultiPosition {
        let position = &self.position;
        let Victory::GoodVersusEvil { evil } = position.victory() else {
            return position.clone();
        };
        let mut known = Seats(evil.0 & position.out().0);
        match self.settings.alignment {
            Alignment::Evil => known.insert(mover),
            Alignment::Good | Alignment::Unknown => {}
        }
        let mut parts = position.parts();
        parts.victory = Victory::GoodVersusEvil { evil: known };
        MultiPosition::from_parts(parts).unwrap_or_else(|_| position.clone())
    }
}

/// Receives the outcome of a multi-player `go`, on the search's thread.
pub type MultiListener = Box<dyn FnOnce(&MultiGoOutcome) + Send>;

/// A running multi-player search: its thread (which hands back where its
/// turn led, for the memory of this game's turns) and its signals.
struct MultiRunning {
    handle: JoinHandle<Option<(u64, u64)>>,
    /// Set by `stop`: the search answers with what it has.
    stop: Arc<AtomicBool>,
    /// Set just before the answer, so that a controller that reacts to the
    /// `bestmove` at once with another `go` is never told the engine is
    /// busy.
    answered: Arc<AtomicBool>,
}

impl MultiRunning {
    /// Whether the search has not answered yet.
    fn is_running(&self) -> bool {
        !self.answered.load(Ordering::Acquire) && !self.handle.is_finished()
    }
}

/// What one multi-player `go` hands its thread: copies of everything it
/// reads, so that the engine's position and options may change meanwhile.
struct MultiJob {
    /// The game's position.
    position: MultiPosition,
    /// The position as the search sees it (hidden alignments dealt).
    searched: MultiPosition,
    settings: MultiSettings,
    rules: Rules,
    limits: MultiLimits,
    /// Where this engine's turns from this position already led.
    avoid: Vec<u64>,
}

impl MultiJob {
    /// The search: the outcome, and the position's hash with where the
    /// turn leads (when it is legal), for the memory of this game's turns.
    fn run(self, stop: Arc<AtomicBool>) -> (MultiGoOutcome, Option<(u64, u64)>) {
        let MultiJob {
            position,
            searched,
            settings,
            rules,
            limits,
            avoid,
        } = self;
        let started = Instant::now();
        let (iterations, deadline) = limits.budget(position.side_to_move(), started);
        let seed = settings.seed ^ position.hash();
        let mut search = MultiSearch::new(MultiSearchOptions {
            iterations,
            seed,
            deadline,
            threads: settings.threads,
            ..MultiSearchOptions::default()
        })
        .with_stop(stop);
        let actions = match settings.player {
            PlayerKind::Mcts => search.best_turn_avoiding(&searched, &rules, &avoid),
            // The shot player's evaluation is a two-player one.
            PlayerKind::Greedy | PlayerKind::Shots => {
                greedy_turn_avoiding(&searched, &rules, &avoid)
            }
            PlayerKind::Random => {
                let mut random = SmallRng::seed_from_u64(seed);
                random_turn(&mut searched.clone(), &rules, &mut random)
            }
        };
        let mut report = search.report();
        report.decision = match settings.player {
            PlayerKind::Mcts => report.decision,
            PlayerKind::Greedy | PlayerKind::Shots => "greedy",
            PlayerKind::Random => "random",
        };
        let led = result_of(&position, &rules, &actions).map(|result| (position.hash(), result));
        let outcome = MultiGoOutcome::Turn {
            actions,
            report,
            started,
        };
        (outcome, led)
    }
}

/// The hash of the position `actions` and the end of the turn lead to,
/// when the rules allow them.
fn result_of(position: &MultiPosition, rules: &Rules, actions: &[MultiAction]) -> Option<u64> {
    let mut after = position.clone();
    for &action in actions {
        after.try_apply(rules, action).ok()?;
    }
    after.end_turn(rules).ok()?;
    Some(after.hash())
}

/// The start of a game of `players` (2 to 6) under `victory`, with no Evil
/// seat named.
fn start_position(players: usize, victory: Victory) -> MultiPosition {
    let victory = match victory {
        Victory::GoodVersusEvil { .. } => Victory::GoodVersusEvil { evil: Seats::EMPTY },
        other => other,
    };
    // Two to six players with no Evil seat named always start.
    MultiPosition::start(players.clamp(2, MAX_PLAYERS), victory)
        .expect("a start with 2 to 6 players and no Evil seat is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_start_a_new_game_and_refuse_bad_values() {
        let mut engine = MultiEngine::new();
        assert!(!engine.is_active());
        assert_eq!(engine.position().players(), 3);
        engine.set_option("players", "4").unwrap();
        engine.set_option("Victory", "Sinister").unwrap();
        assert!(engine.is_active());
        assert_eq!(engine.position().players(), 4);
        assert_eq!(engine.position().victory(), Victory::Sinister);
        let before = *engine.settings();
        let error = engine.set_option("Players", "7").unwrap_err();
        assert_eq!(
            error.to_string(),
            "option Players: '7': expected a whole number from 2 to 6"
        );
        let error = engine.set_option("victory", "chaos").unwrap_err();
        assert_eq!(
            error.to_string(),
            "option Victory: 'chaos': expected last, sinister or good-evil"
        );
        assert!(engine.set_option("Alignment", "neutral").is_err());
        assert_eq!(engine.settings(), &before);
        engine.follow_shared_option("Seed", "12");
        engine.follow_shared_option("PLAYER", "Greedy");
        engine.follow_shared_option("Player", "minimax");
        assert_eq!(engine.settings().seed, 12);
        assert_eq!(engine.settings().player, PlayerKind::Greedy);
        assert!(MultiEngine::is_option("ALIGNMENT") && !MultiEngine::is_option("Seed"));
    }

    #[test]
    fn a_position_must_fit_the_options() {
        let mut engine = MultiEngine::new();
        engine.set_option("Players", "3").unwrap();
        engine.set_option("Victory", "good-evil").unwrap();
        let four = start_position(4, Victory::LastManStanding);
        assert_eq!(
            engine.fit(&four, false),
            Err(MultiPositionError::Players {
                position: 4,
                option: 3
            })
        );
        let last = start_position(3, Victory::LastManStanding);
        let error = engine.fit(&last, true).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the position says victory=last but the option Victory is good-evil"
        );
        let fitted = engine.fit(&last, false).unwrap();
        assert_eq!(
            fitted.victory(),
            Victory::GoodVersusEvil { evil: Seats::EMPTY }
        );
    }

    /// Runs one `go` to its answer.
    fn answer(engine: &mut MultiEngine, limits: &MultiLimits) -> MultiGoOutcome {
        let (sender, receiver) = std::sync::mpsc::channel();
        engine
            .go(
                &Rules::STANDARD,
                limits,
                Box::new(move |outcome| sender.send(outcome.clone()).unwrap()),
            )
            .unwrap();
        let outcome = receiver.recv().unwrap();
        engine.wait();
        outcome
    }

    #[test]
    fn a_huge_search_stops_on_stop_and_a_go_after_it_waits_for_it() {
        let mut engine = MultiEngine::new();
        engine.set_option("Players", "3").unwrap();
        let huge = MultiLimits {
            nodes: Some(u32::MAX),
            ..MultiLimits::default()
        };
        let (sender, receiver) = std::sync::mpsc::channel();
        let listener = |sender: std::sync::mpsc::Sender<MultiGoOutcome>| -> MultiListener {
            Box::new(move |outcome| sender.send(outcome.clone()).unwrap())
        };
        engine
            .go(&Rules::STANDARD, &huge, listener(sender.clone()))
            .unwrap();
        assert!(engine.is_searching());
        std::thread::sleep(Duration::from_millis(300));
        engine.stop_handle().stop();
        let small = MultiLimits {
            nodes: Some(20),
            ..MultiLimits::default()
        };
        engine
            .go(&Rules::STANDARD, &small, listener(sender))
            .unwrap();
        let first = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
        let second = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
        let nodes = |outcome: &MultiGoOutcome| match outcome {
            MultiGoOutcome::Turn { report, .. } => report.nodes,
            MultiGoOutcome::GameOver => panic!("the start is not over"),
        };
        assert!(nodes(&first) > 20, "the stopped search answered first");
        assert!(nodes(&second) <= 20 * 4, "then the small one");
        engine.wait();
        assert!(!engine.is_searching());
    }

    #[test]
    fn go_is_repeatable_under_a_node_limit() {
        let mut engine = MultiEngine::new();
        engine.set_option("Players", "3").unwrap();
        engine.follow_shared_option("Player", "greedy");
        let limits = MultiLimits {
            nodes: Some(50),
            ..MultiLimits::default()
        };
        let turn = |engine: &mut MultiEngine| match answer(engine, &limits) {
            MultiGoOutcome::Turn {
                actions, report, ..
            } => (actions, report),
            MultiGoOutcome::GameOver => panic!("the start is not over"),
        };
        let (first, report) = turn(&mut engine);
        assert_eq!(report.decision, "greedy");
        assert!(result_of(engine.position(), &Rules::STANDARD, &first).is_some());
        engine.new_game();
        assert_eq!(turn(&mut engine).0, first);
    }

    #[test]
    fn a_clock_plans_a_share_of_the_time_left() {
        let mut limits = MultiLimits::default();
        limits.time[1] = Some(20_000);
        limits.increment[1] = Some(1_000);
        let started = Instant::now();
        let (iterations, deadline) = limits.budget(1, started);
        assert_eq!(iterations, CLOCK_NODE_CAP);
        // 20,000 / 20 + 750, less the overhead.
        assert_eq!(
            deadline,
            Some(started + Duration::from_millis(1_000 + 750 - OVERHEAD_MS))
        );
    }
}
