//! What one [`Engine::go`](super::Engine::go) starts on its background
//! thread: the search (or, pondering, the ponder search and then the
//! timed one on the same tree), the progress reports and the one final
//! answer, and the signals (`stop`, `ponderhit`) the controller sends it.
//!
//! The thread owns the searcher while it runs and hands it back when it
//! returns, so the engine never shares it. A search without limits, or a
//! ponder search, whose answer is settled early (the setup book, a proof,
//! a decided turn) waits here holding the answer until it is told, as UCI
//! requires. A panic in the search is caught and answered with the first
//! legal turn, so that every `go` gets exactly one answer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::strength;
use super::{GoOutcome, Listener, SearchEvent};
use crate::rules::{GameResult, Position, Rules};
use crate::search::{SearchInfo, SearchLimits, SearchOptions, SearchResult, Searcher};

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

    /// Sets both stop flags: `stop` ends the search in whichever phase it
    /// is.
    fn stop_all(&self) {
        self.signal(&[&self.stop, &self.ponder_over]);
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
pub(super) struct Running {
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
    /// Whether the search has answered (or its thread has ended).
    pub(super) fn is_over(&self) -> bool {
        self.answered.load(Ordering::Acquire) || self.handle.is_finished()
    }

    /// Whether only `stop` (or, pondering, `ponderhit`) can end it.
    pub(super) fn waits_for_signal(&self) -> bool {
        (self.infinite || (self.ponder && !self.control.hit.load(Ordering::Acquire)))
            && !self.is_over()
    }

    /// Asks the search to stop, in whichever phase it is.
    pub(super) fn stop(&self) {
        self.control.stop_all();
    }

    /// Whether the search was asked to stop (by [`Running::stop`] or a
    /// [`StopHandle`](super::StopHandle)): it is finishing, and answers soon.
    pub(super) fn is_stopped(&self) -> bool {
        self.control.stop.load(Ordering::Acquire)
    }

    /// What a [`StopHandle`](super::StopHandle) calls to stop this search
    /// from another thread.
    pub(super) fn stopper(&self) -> super::Stopper {
        let control = Arc::clone(&self.control);
        Arc::new(move || control.stop_all())
    }

    /// Turns a ponder search not yet hit or stopped into the timed one;
    /// returns whether there was one.
    pub(super) fn ponder_hit(&self) -> bool {
        let control = &self.control;
        if !self.ponder
            || self.is_over()
            || control.hit.load(Ordering::Acquire)
            || control.ponder_over.load(Ordering::Acquire)
        {
            return false;
        }
        control.signal(&[&control.hit, &control.ponder_over]);
        true
    }

    /// Whether this is a ponder search not yet hit or stopped.
    pub(super) fn is_pondering(&self) -> bool {
        self.ponder && !self.is_over() && !self.control.ponder_over.load(Ordering::Acquire)
    }

    /// Waits for the thread and takes its searcher back; `None` if the
    /// thread panicked (the caller builds a new searcher).
    pub(super) fn join(self) -> Option<Searcher> {
        self.handle.join().ok()
    }
}

/// The limits of one `go`, phase by phase.
#[derive(Clone, Copy, Debug)]
pub(super) struct JobLimits {
    /// The search proper (after `ponderhit`, when pondering).
    timed: SearchLimits,
    /// The ponder phase: no limits, or a limited engine's node budget.
    pondering: SearchLimits,
    /// Started without limits: the answer waits for `stop`.
    pub(super) infinite: bool,
    /// Started as a ponder search: the answer waits for `ponderhit` or
    /// `stop`.
    pub(super) ponder: bool,
}

impl JobLimits {
    /// The phases of a `go` with `limits`. Below full strength: a node
    /// budget per turn, however long the search may run.
    pub(super) fn new(limits: SearchLimits, level: Option<&strength::Level>) -> JobLimits {
        let ponder = limits.ponder;
        let mut timed = SearchLimits {
            ponder: false,
            ..limits
        };
        let infinite = timed.infinite
            || (timed.nodes.is_none() && timed.movetime.is_none() && timed.clock.is_none());
        let mut pondering = SearchLimits {
            infinite: true,
            ..timed
        };
        if let Some(level) = level {
            timed.infinite = false;
            timed.nodes = Some(
                timed
                    .nodes
                    .map_or(level.nodes, |nodes| nodes.min(level.nodes)),
            );
            pondering = SearchLimits::nodes(level.nodes);
        }
        JobLimits {
            timed,
            pondering,
            infinite,
            ponder,
        }
    }

    /// Whether the answer waits for a signal whatever the search finds.
    pub(super) fn waits(&self) -> bool {
        self.ponder || self.infinite
    }
}

/// Everything one `go` hands its thread.
pub(super) struct SearchThread {
    /// The searcher, with the options this search runs with.
    pub(super) searcher: Searcher,
    /// The position searched.
    pub(super) position: Position,
    /// The hashes of the positions before it, for repetition.
    pub(super) history: Vec<u64>,
    /// The options in force (a limited engine searches with others).
    pub(super) options: SearchOptions,
    /// Receives the reports and the one answer.
    pub(super) listener: Listener,
    /// The limits of each phase.
    pub(super) limits: JobLimits,
    /// The strength level, when limited.
    pub(super) level: Option<strength::Level>,
    /// The result when the game is already over: nothing to search.
    pub(super) over: Option<GameResult>,
    /// The draw the side to move may claim instead of playing, if any.
    pub(super) claim: Option<GameResult>,
}

impl SearchThread {
    /// Starts the thread.
    ///
    /// # Errors
    /// The operating system's, when it refuses a thread; the searcher is
    /// then lost with the closure, and the next search builds a new one.
    pub(super) fn spawn(self) -> std::io::Result<Running> {
        let control = Arc::new(Control::default());
        let answered = Arc::new(AtomicBool::new(false));
        let (infinite, ponder) = (self.limits.infinite, self.limits.ponder);
        let thread_control = Arc::clone(&control);
        let thread_answered = Arc::clone(&answered);
        let handle = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(8 << 20)
            .spawn(move || self.run(&thread_control, &thread_answered))?;
        Ok(Running {
            handle,
            control,
            answered,
            infinite,
            ponder,
        })
    }

    /// The thread's work: the searches, the reports and the one answer;
    /// returns the searcher.
    fn run(self, control: &Control, answered: &AtomicBool) -> Searcher {
        let SearchThread {
            mut searcher,
            position,
            history,
            options,
            mut listener,
            limits,
            level,
            over,
            claim,
        } = self;
        if let Some(result) = over {
            // The game is over: nothing to search, but an infinite
            // or ponder search still answers only when told.
            control.wait_for(if limits.ponder {
                &control.ponder_over
            } else {
                &control.stop
            });
            answered.store(true, Ordering::Release);
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
        if limits.ponder {
            // Ponder: no limits until ponderhit or stop; an early
            // answer (a proof, the book) waits for one of them.
            result = job.search(&limits.pondering, &control.ponder_over);
            control.wait_for(&control.ponder_over);
            if control.hit.load(Ordering::Acquire) {
                // The expected reply was played: the normal search,
                // on the tree the ponder search grew.
                result = job.search(&limits.timed, &control.stop);
                if limits.infinite {
                    control.wait_for(&control.stop);
                }
            }
        } else {
            result = job.search(&limits.timed, &control.stop);
            if limits.infinite {
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
        answered.store(true, Ordering::Release);
        listener(SearchEvent::Finished(&outcome));
        searcher
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
