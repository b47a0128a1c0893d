//! Running one search's workers until a limit, a proof or the stop flag ends
//! it. The calling thread iterates too, and alone watches the limits and
//! reports progress (so that `on_info` runs on the caller's thread); helper
//! workers run on the searcher's rayon pool, inside one scope that ends
//! with the search.
//!
//! With one thread the iteration count is flushed every iteration, so a
//! node limit is exact and the search reproducible; with more, workers add
//! their counts in batches, so that they do not fight over one cache line.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rayon::ThreadPool;

use super::mcts::{Shared, Worker};
use super::threats::RootVerifier;
use super::time::Controller;
use super::tree::UNPROVEN;

/// Iterations a worker runs between flushes when several threads search.
const BATCH: u64 = 16;
/// Iterations of the calling thread between looks at the clock and the
/// info interval.
const CHECK_INTERVAL: u32 = 32;

/// How one search runs.
pub(super) struct RunPlan<'a> {
    /// The pool for the helpers, and how many to start on it (0: the calling
    /// thread searches alone).
    pub helpers: Option<(&'a ThreadPool, usize)>,
    /// When to stop, besides the node limit and the stop flag.
    pub controller: Controller,
    /// How often to call the progress report.
    pub info_interval: Duration,
    /// Checks the tree's best turn for two-turn threats as the search runs.
    pub verifier: Option<&'a mut RootVerifier>,
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
        mut controller,
        info_interval,
        verifier,
    } = plan;
    worker.reset_statistics();
    let watch = Watch {
        controller: &mut controller,
        info_interval,
        verifier,
    };
    match helpers {
        Some((pool, count)) if count > 0 => pool.in_place_scope(|scope| {
            for _ in 0..count {
                scope.spawn(|_| help(shared));
            }
            lead(shared, worker, BATCH, watch, report);
        }),
        _ => lead(shared, worker, 1, watch, report),
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
    } = watch;
    let mut last_info = Instant::now();
    let mut since_check = 0;
    while !root_proven(shared) {
        worker.iterate(shared);
        since_check += 1;
        if worker.pending() >= batch && worker.flush(shared) >= shared.node_limit {
            break;
        }
        if shared.stopping() {
            break;
        }
        if since_check >= CHECK_INTERVAL {
            since_check = 0;
            if let Some(verifier) = verifier.as_deref_mut() {
                let before = verifier.credit();
                verifier.visit(shared);
                controller.extend(verifier.credit() - before);
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
}

/// A helper thread's loop: iterate until told to stop, or until the node
/// limit or a proof is reached (which it then tells the others).
fn help(shared: &Shared) {
    let mut worker = Worker::default();
    while !shared.stopping() {
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
}
