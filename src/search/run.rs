//! Running one search's workers until a limit, a proof or the stop flag ends
//! it. The calling thread iterates too, and alone watches the limits and
//! reports progress (so that `on_info` runs on the caller's thread); helper
//! workers run on the searcher's rayon pool, inside one scope that ends
//! with the search.
//!
//! With one thread the iteration count is flushed every iteration, so a
//! node limit is exact and the search reproducible; with more, workers add
//! their counts in batches, so that they do not fight over one cache line.
//!
//! When the tree is nearly full, the calling thread recycles it
//! (`Tree::recycle`): it raises a flag, each helper finishes its iteration,
//! flushes and waits at a barrier (a mutex and a condition variable, so
//! that on many cores the waiting threads sleep rather than spin), the
//! calling thread compacts the tree alone, and all go on. With one thread
//! the recycle happens at the same iteration every run, so a node-limited
//! search stays reproducible. A recycle that frees too little (the root's
//! own turn fills the tree) is the last of the search: the tree then stops
//! growing and treats nodes as leaves. A recycle is a few passes over the
//! arenas on one thread while the others wait, and it frees half the tree,
//! so its cost is spread over as many new nodes as the tree keeps; the
//! waiting grows with the number of threads, which is why recycles are few
//! and large rather than frequent (a concurrent, incremental reclaim would
//! avoid the wait at the price of synchronising every node access).
//!
//! The same gate stops the helpers while the tree's table grows, and while
//! the root's defence search under a two-turn threat runs on as many
//! threads as the search has (`threats/crew.rs`, [`Crew`]).
//!
//! # Threads
//! The calling thread is the leading worker, so the helpers' pool has one
//! thread fewer than the search: a pool thread with no helper to run is not
//! idle in the way that matters, since a rayon thread without work yields
//! the processor dozens of times looking for some before it sleeps, and
//! posted work wakes it again, taking turns on the cores from the workers.
//! That cost comes at every search's start, so it weighs most where
//! searches are short for their thread count. The checks' pool
//! ([`RunPlan::check_pool`]) has as many threads as the search, because it
//! works while the calling thread waits for it.
//!
//! # The root's checks between iterations
//! Everything besides iterating is the calling thread's, between its
//! iterations: every [`CHECK_INTERVAL`] of them it reads the clock, gives
//! the two-turn verifier a look at the tree (`RootVerifier::visit`, which
//! checks the tree's best turn in slices of time and marks a refuted turn
//! as a proven loss), adds the time the checks were credited to the
//! search's ([`Controller::extend`]), holds the search to its hard limit
//! while a danger is open, and reports progress. The root's own search for
//! a forced win in two runs before the calling thread's first
//! iteration ([`RunPlan::prelude`]) while the helpers already grow the
//! tree, so that no thread waits for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rayon::ThreadPool;

use super::mcts::{Shared, Worker};
use super::threats::{Crew, RootVerifier};
use super::time::Controller;
use super::tree::UNPROVEN;

/// Iterations a worker runs between flushes when several threads search.
const BATCH: u64 = 16;
/// Iterations of the calling thread between looks at the clock and the
/// info interval.
const CHECK_INTERVAL: u32 = 32;
/// Iterations of the calling thread between looks at the tree's fill when
/// helpers run (the allocation counters it reads are their hottest words).
const FILL_INTERVAL: u32 = 8;
/// Fill, in permille, above which a recycle counts as having freed too
/// little: recycling stops for the rest of the search.
const RECYCLE_GIVE_UP_PERMILLE: u32 = 900;

/// The barrier at which the helpers wait while the calling thread recycles
/// the tree.
#[derive(Default)]
struct Gate {
    /// Set while a recycle is wanted; helpers look at it between iterations.
    requested: AtomicBool,
    state: Mutex<GateState>,
    wake: Condvar,
}

/// Who is waiting at the [`Gate`].
#[derive(Default)]
struct GateState {
    /// Helpers waiting for the recycle to end.
    parked: usize,
    /// Helpers that have left the search for good.
    exited: usize,
    /// Recycles done: a parked helper waits for it to change.
    generation: u64,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A helper waits here until the recycle asked for is done (or returns
    /// at once if none is asked for any more).
    fn park(&self) {
        let mut state = self.lock();
        if !self.requested.load(Ordering::Relaxed) {
            return;
        }
        state.parked += 1;
        let generation = state.generation;
        self.wake.notify_all();
        while state.generation == generation {
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A helper has left its loop (or unwound out of it).
    fn exit(&self) {
        self.lock().exited += 1;
        self.wake.notify_all();
    }

    /// Runs `work` once every one of the `helpers` is parked or gone.
    fn with_helpers_stopped(&self, helpers: usize, work: impl FnOnce()) {
        let mut state = self.lock();
        self.requested.store(true, Ordering::Relaxed);
        while state.parked + state.exited < helpers {
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        work();
        state.parked = 0;
        state.generation += 1;
        self.requested.store(false, Ordering::Relaxed);
        self.wake.notify_all();
    }
}

/// Tells the gate that a helper left, however it leaves.
struct ExitGuard<'a>(&'a Gate);

impl Drop for ExitGuard<'_> {
    fn drop(&mut self) {
        self.0.exit();
    }
}

/// Recycles the tree with every helper stopped at the gate (none with one
/// thread). Returns whether recycling may go on in this search: false when
/// it freed too little or could not run.
fn recycle(shared: &Shared, gate: Option<(&Gate, usize)>) -> bool {
    let mut recycled = None;
    let mut work = || {
        if !shared.stopping() {
            recycled = shared.tree.recycle(shared.root, gate.is_some());
        }
    };
    match gate {
        Some((gate, helpers)) => gate.with_helpers_stopped(helpers, work),
        None => work(),
    }
    if recycled.is_none() {
        return shared.stopping();
    }
    shared.recycles.fetch_add(1, Ordering::Relaxed);
    shared.tree.fill_permille() < RECYCLE_GIVE_UP_PERMILLE
}

/// Grows the tree's table ([`Tree::grow_table`](super::tree::Tree::grow_table)) with every helper stopped
/// at the gate (none with one thread). Nodes stay where they are, so the
/// statistics waiting in batches stay valid.
fn grow_table(shared: &Shared, gate: Option<(&Gate, usize)>) {
    let work = || shared.tree.grow_table(gate.is_some());
    match gate {
        Some((gate, helpers)) => gate.with_helpers_stopped(helpers, work),
        None => work(),
    }
}

/// The root's checks' use of every thread: [`Crew::run`] stops the helpers
/// at the gate and lends their cores to `pool` (a pool of its own: the
/// helpers' pool is busy with their parked loops).
struct GateCrew<'a> {
    gate: &'a Gate,
    helpers: usize,
    pool: &'a ThreadPool,
}

impl Crew for GateCrew<'_> {
    fn run(&self, work: &mut dyn FnMut(&ThreadPool)) {
        self.gate
            .with_helpers_stopped(self.helpers, || work(self.pool));
    }
}

/// How one search runs.
pub(super) struct RunPlan<'a> {
    /// The helpers' pool: one helper runs on each of its threads (none: the
    /// calling thread searches alone).
    pub helpers: Option<&'a ThreadPool>,
    /// A pool as large as the search for the root's defence search to
    /// spread its work over while the helpers wait (none with one thread).
    pub check_pool: Option<&'a ThreadPool>,
    /// When to stop, besides the node limit and the stop flag.
    pub controller: Controller,
    /// How often to call the progress report.
    pub info_interval: Duration,
    /// Checks the tree's best turn for two-turn threats as the search runs.
    pub verifier: Option<&'a mut RootVerifier>,
    /// Work the calling thread does before it starts iterating, while the
    /// helpers already search (the root's own search for a win in two):
    /// serial work there would leave every helper idle. Returning true ends
    /// the search.
    pub prelude: Option<Box<dyn FnOnce() -> bool + 'a>>,
}

/// Runs the search on `shared`'s tree; `report` is called about every
/// `info_interval` on the calling thread. Returns when every worker has
/// stopped and flushed its statistics.
pub(super) fn run(
    shared: &Shared,
    worker: &mut Worker,
    plan: RunPlan,
    report: &mut dyn FnMut(&Shared),
) {
    let RunPlan {
        helpers,
        check_pool,
        mut controller,
        info_interval,
        verifier,
        prelude,
    } = plan;
    worker.reset_statistics();
    let gate = Gate::default();
    match helpers {
        Some(pool) => pool.in_place_scope(|scope| {
            let count = pool.current_num_threads();
            for _ in 0..count {
                scope.spawn(|_| help(shared, &gate));
            }
            let watch = Watch {
                controller: &mut controller,
                info_interval,
                verifier,
                prelude,
                gate: Some((&gate, count)),
                check_pool,
            };
            lead(shared, worker, BATCH, watch, report);
        }),
        _ => {
            let watch = Watch {
                controller: &mut controller,
                info_interval,
                verifier,
                prelude,
                gate: None,
                check_pool: None,
            };
            lead(shared, worker, 1, watch, report)
        }
    }
}

/// Whether the root's result is proven, so that searching on is pointless.
fn root_proven(shared: &Shared) -> bool {
    shared.tree.node(shared.root).proof.load(Ordering::Relaxed) != UNPROVEN
}

/// What the calling thread does between iterations besides searching.
struct Watch<'a> {
    controller: &'a mut Controller,
    info_interval: Duration,
    verifier: Option<&'a mut RootVerifier>,
    /// Run once before the first iteration (see [`RunPlan::prelude`]).
    prelude: Option<Box<dyn FnOnce() -> bool + 'a>>,
    /// The helpers' barrier and their number (none with one thread).
    gate: Option<(&'a Gate, usize)>,
    /// See [`RunPlan::check_pool`].
    check_pool: Option<&'a ThreadPool>,
}

/// The calling thread's loop: iterate, watch the limits, report progress.
/// Tells the helpers to stop when it does.
///
/// It runs one iteration even when the stop flag is already set (`quit` or
/// `stop` right after `go`): that iteration expands the root, so the tree
/// holds a turn to verify and answer, the first choice of the root's prior
/// ordering, instead of nothing (which would end the turn as a pass).
fn lead(
    shared: &Shared,
    worker: &mut Worker,
    batch: u64,
    watch: Watch,
    report: &mut dyn FnMut(&Shared),
) {
    let Watch {
        controller,
        info_interval,
        mut verifier,
        prelude,
        gate,
        check_pool,
    } = watch;
    let crew = match (gate, check_pool) {
        (Some((gate, helpers)), Some(pool)) => Some(GateCrew {
            gate,
            helpers,
            pool,
        }),
        _ => None,
    };
    if prelude.is_some_and(|prelude| prelude()) {
        shared.halt.store(true, Ordering::Relaxed);
        return;
    }
    let mut last_info = Instant::now();
    let mut since_check = 0;
    let mut recycling = true;
    let fill_interval = if gate.is_some() { FILL_INTERVAL } else { 1 };
    while !root_proven(shared) {
        worker.iterate(shared);
        since_check += 1;
        if worker.pending() >= batch && worker.flush(shared) >= shared.node_limit {
            break;
        }
        if shared.stopping() {
            break;
        }
        if recycling && since_check % fill_interval == 0 && shared.tree.wants_recycle() {
            // A recycle moves nodes: no statistics may wait for an old index.
            worker.flush(shared);
            recycling = recycle(shared, gate);
        }
        if since_check % fill_interval == 0 && shared.tree.wants_bigger_table() {
            grow_table(shared, gate);
        }
        if since_check >= CHECK_INTERVAL {
            since_check = 0;
            if let Some(verifier) = verifier.as_deref_mut() {
                let before = verifier.credit();
                verifier.visit(shared, crew.as_ref().map(|crew| crew as &dyn Crew));
                controller.extend(verifier.credit() - before);
                if let Some(hard) = controller.hold(verifier.danger_open()) {
                    verifier.stretch(hard);
                }
            }
            if controller.should_stop(shared) {
                break;
            }
            if last_info.elapsed() >= info_interval {
                last_info = Instant::now();
                report(shared);
            }
        }
    }
    shared.halt.store(true, Ordering::Relaxed);
    worker.flush(shared);
    worker.hand_in_phases(shared);
}

/// A helper thread's loop: iterate until told to stop, or until the node
/// limit or a proof is reached (which it then tells the others).
fn help(shared: &Shared, gate: &Gate) {
    let _exit = ExitGuard(gate);
    let mut worker = Worker::default();
    while !shared.stopping() {
        if gate.requested.load(Ordering::Relaxed) {
            worker.flush(shared);
            gate.park();
            continue;
        }
        if root_proven(shared) {
            shared.halt.store(true, Ordering::Relaxed);
            break;
        }
        worker.iterate(shared);
        if worker.pending() >= BATCH && worker.flush(shared) >= shared.node_limit {
            shared.halt.store(true, Ordering::Relaxed);
        }
    }
    worker.flush(shared);
    worker.hand_in_phases(shared);
}
