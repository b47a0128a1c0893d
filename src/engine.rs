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
//!
//! Why a search's turn was played is gathered by [`explain`] from the
//! search's answer and exact checks after it (an [`Explanation`]: one
//! [`Fact`] with the value change); a front end writes it as a sentence.
//!
//! The engine's parts: its errors ([`error`]), its options and their table
//! ([`options`]), what a search runs on its thread (a private module), the
//! playing strength below full ([`strength`]), and the multi-player game
//! ([`multi`]), which has its own position type and search and so its own
//! engine beside this one.

pub mod error;
mod job;
pub mod multi;
pub mod options;
pub mod strength;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub use error::{GoError, OptionError, PositionError};
use job::{JobLimits, Running, SearchThread};
pub use options::{
    max_hash_mb, max_threads, option_specs, EngineSettings, OptionKind, OptionSpec,
    EMBEDDED_NETWORK,
};

use crate::rules::{Action, GameResult, GameStatus, History, Position, Rules};
/// The search's vocabulary that this layer's API speaks in (limits, reports,
/// results, proofs), re-exported so that a front end needs no other layer.
pub use crate::search::{
    explain, win_probability, Candidate, Clock, Decision, Explanation, Fact, Goal, Proof,
    SearchInfo, SearchLimits, SearchOptions, SearchResult,
};
use crate::search::{static_evaluation_with, Searcher, Solver, ValueNetwork};

/// How often the search reports progress. Protocol front ends show these
/// lines to people; twice a second is lively without flooding a pipe.
pub const INFO_INTERVAL: Duration = Duration::from_millis(500);

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

/// What stops one running search from any thread.
pub(crate) type Stopper = Arc<dyn Fn() + Send + Sync>;

/// Stops an engine's running search from another thread: the protocol's
/// input reader uses it so that `stop` reaches a search at once, even while
/// the command loop is busy with earlier lines. It follows the engine from
/// search to search (each `go` arms it, collecting the search disarms it),
/// and stopping with no search running does nothing.
#[derive(Clone, Default)]
pub struct StopHandle {
    current: Arc<Mutex<Option<Stopper>>>,
}

impl StopHandle {
    /// Asks the running search, if any, to stop, as [`Engine::stop`] does.
    /// Never blocks for longer than the engine takes to start or collect a
    /// search.
    pub fn stop(&self) {
        let current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(stopper) = current.as_ref() {
            stopper();
        }
    }

    /// Points the handle at a new search (or at none).
    pub(crate) fn arm(&self, stopper: Option<Stopper>) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = stopper;
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
    /// Stops the running search from other threads.
    stop_handle: StopHandle,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(SearchOptions::default())
    }
}

/// The win in one for the side to move of `position`, if it has one: the
/// actions that complete its turn (possibly none) after which ending the
/// turn eliminates the opponent. Exact; a front end uses it to finish a
/// proven line that the tree proved by such a win without storing it.
pub fn winning_turn(position: &Position, rules: &Rules) -> Option<Vec<Action>> {
    Solver::default().find_win(position, rules)
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
            stop_handle: StopHandle::default(),
        }
    }

    /// A handle that stops this engine's running search from any thread
    /// (whichever search runs when it is used).
    pub fn stop_handle(&self) -> StopHandle {
        self.stop_handle.clone()
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

    /// The searcher, if no search holds it (collecting a finished search
    /// first, and waiting for one that was told to stop).
    fn idle_searcher(&mut self) -> Result<&mut Searcher, OptionError> {
        if self.is_busy() {
            return Err(OptionError::Busy);
        }
        self.wait();
        Ok(self
            .searcher
            .get_or_insert_with(|| Searcher::new(self.options.clone())))
    }

    /// The static evaluation of the current position for the side to move.
    pub fn evaluate(&self) -> f32 {
        static_evaluation_with(
            self.history.position(),
            &self.options.rules,
            &self.options.tunables,
        )
    }

    /// Whether a search is running and was not told to stop: one that was
    /// told is finishing, and what needs the engine idle waits for it
    /// instead of being refused, so that a controller may send `stop` and
    /// then its next `position` and `go` (or options) without waiting for
    /// the `bestmove` in between.
    fn is_busy(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|running| !running.is_over() && !running.is_stopped())
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
    /// A search that was told to stop ([`Engine::stop`], a
    /// [`StopHandle`]) but has not answered yet is waited for first, so its
    /// `Finished` comes before this search starts.
    ///
    /// # Errors
    /// [`GoError::Busy`] when a search is still running and was not told to
    /// stop.
    pub fn go(&mut self, limits: SearchLimits, mut listener: Listener) -> Result<(), GoError> {
        if self.is_busy() {
            return Err(GoError::Busy);
        }
        self.wait();
        let over = match self.status() {
            GameStatus::Over(result) => Some(result),
            GameStatus::Ongoing { .. } => None,
        };
        let level = self.settings.level();
        let limits = JobLimits::new(limits, level.as_ref());
        if let (Some(result), false) = (over, limits.waits()) {
            listener(SearchEvent::Finished(&GoOutcome::GameOver {
                result,
                search: None,
            }));
            return Ok(());
        }
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(self.options.clone()));
        // Below full strength: no tree carried over from earlier turns, and
        // enough candidates reported to choose among.
        searcher.set_options(match level {
            Some(_) => strength::calibrated_options(self.options.clone(), &self.network),
            None => self.options.clone(),
        });
        let thread = SearchThread {
            searcher,
            position: *self.history.position(),
            history: self.history.earlier_hashes().to_vec(),
            options: self.options.clone(),
            listener,
            limits,
            level,
            over,
            claim: self.history.claim(&self.options.rules),
        };
        match thread.spawn() {
            Ok(running) => {
                self.stop_handle.arm(Some(running.stopper()));
                self.running = Some(running);
                Ok(())
            }
            // The searcher went down with the closure; the next search
            // builds a new one.
            Err(error) => Err(GoError::NoThread(error.to_string())),
        }
    }

    /// Asks a running search to stop. Never blocks; the listener still
    /// receives the final `Finished` event. A ponder search stops without
    /// turning into a timed one, and answers what it found.
    pub fn stop(&self) {
        if let Some(running) = &self.running {
            running.stop();
        }
    }

    /// The expected reply was played (UCI's `ponderhit`): a running ponder
    /// search becomes the normal search with the limits its `go` gave,
    /// keeping its tree. Returns whether a ponder search was running (and
    /// not already hit or stopped); otherwise nothing changes.
    pub fn ponder_hit(&self) -> bool {
        self.running.as_ref().is_some_and(Running::ponder_hit)
    }

    /// Whether a ponder search is running and has not been hit or stopped.
    pub fn is_pondering(&self) -> bool {
        self.running.as_ref().is_some_and(Running::is_pondering)
    }

    /// Waits for the running search (if any) to finish and takes the
    /// searcher back. Call [`Engine::stop`] first to end an infinite search.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            self.stop_handle.arm(None);
            self.searcher = Some(
                running
                    .join()
                    .unwrap_or_else(|| Searcher::new(self.options.clone())),
            );
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
